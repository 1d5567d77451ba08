/* SPDX-License-Identifier: MIT */
/* Shared NFSv3/MOUNT helpers: see nfs3.h. */
#include "nfs3/nfs3.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <sodium.h>

struct nfs3_state *nfs3;

int nfs3_init(struct nfsx_exports *ex, const char *state_dir, char *err,
	      size_t errlen)
{
	struct nfs3_state *s = calloc(1, sizeof(*s));
	const struct nfsx_export *e = NULL;
	unsigned int n = exports_count(ex);

	if (!s || fh_key_load(state_dir, s->key, err, errlen) < 0) {
		free(s);
		return -1;
	}
	s->exports = ex;
	s->vexp = calloc(n ? n : 1, sizeof(*s->vexp));
	if (!s->vexp) {
		snprintf(err, errlen, "out of memory");
		free(s);
		return -1;
	}
	while ((e = exports_next(ex, e))) {
		int r = vfs_export_open(&s->vexp[e->index], e->id, e->path);

		if (r < 0) {
			snprintf(err, errlen, "export %s: %s", e->path, strerror(-r));
			while (s->nexp)
				vfs_export_close(&s->vexp[--s->nexp]);
			free(s->vexp);
			free(s);
			return -1;
		}
		s->nexp++;
	}
	/* A new write verifier at every start, so clients resend
	 * unstable writes a crash may have lost. */
	randombytes_buf(s->write_verf, sizeof(s->write_verf));
	nfs3 = s;
	return 0;
}

void nfs3_fini(void)
{
	unsigned int i;

	if (!nfs3)
		return;
	for (i = 0; i < nfs3->nexp; i++)
		vfs_export_close(&nfs3->vexp[i]);
	exports_free(nfs3->exports);
	free(nfs3->vexp);
	free(nfs3);
	nfs3 = NULL;
}

void nfs3_cred(const struct rpc_req *req, const struct nfsx_export_client *c,
	       struct vfs_cred *out)
{
	const struct rpc_cred *rc = &req->call.cred;
	uint32_t i;

	if (rc->flavor == RPC_AUTH_SYS) {
		out->uid = rc->uid;
		out->gid = rc->gid;
		out->ngids = rc->ngids;
		for (i = 0; i < rc->ngids; i++)
			out->gids[i] = rc->gids[i];
	} else {
		/* AUTH_NONE: the anonymous identity of the export. */
		out->uid = c->opts.anonuid;
		out->gid = c->opts.anongid;
		out->ngids = 0;
		return;
	}
	exports_squash(c, &out->uid, &out->gid, out->gids, &out->ngids);
}

enum nfsstat3 nfs3_resolve(struct rpc_req *req, const struct nfs_fh3 *fh,
			   struct nfs3_obj *o)
{
	struct vfs_cred cred;
	struct fh_parts p;
	int fd;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (!fh_decode(nfs3->key, fh->data.data, fh->data.len, &p))
		return NFS3ERR_BADHANDLE;
	o->exp = exports_find_id(nfs3->exports, p.export_id);
	if (!o->exp)
		return NFS3ERR_STALE;
	o->vexp = &nfs3->vexp[o->exp->index];
	o->client = exports_match(o->exp, req->peer, NULL);
	if (!o->client)
		return NFS3ERR_ACCES;
	if (!exports_port_ok(o->client, req->peer))
		return NFS3ERR_PERM;
	if (vfs_become(NULL) < 0)
		return NFS3ERR_SERVERFAULT;
	fd = vfs_open_handle(o->vexp, &p);
	if (fd < 0)
		return nfs3_errno(-fd);
	o->fd = fd;
	nfs3_cred(req, o->client, &cred);
	if (vfs_become(&cred) < 0) {
		nfs3_release(o);
		return NFS3ERR_SERVERFAULT;
	}
	if (vfs_stat(fd, &o->st) == 0)
		o->have_st = true;
	return NFS3_OK;
}

void nfs3_release(struct nfs3_obj *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
}

/*
 * errno to nfsstat3: RFC 1813's meaning of each status, and where they
 * differ in detail, what Linux's nfsd answers (nfserrno(), and
 * nfsd3_map_status() for NFSv3), so that clients see what they see from
 * the kernel server. tests/unit/nfs3/test_errno.c holds the same table
 * as its expectation.
 */
enum nfsstat3 nfs3_errno(int err)
{
	switch (err) {
	case 0: return NFS3_OK;
	case EPERM: return NFS3ERR_PERM;
	case ENOKEY: return NFS3ERR_PERM;    /* fscrypt: no key (as nfsd) */
	case ENOENT: return NFS3ERR_NOENT;
	case EIO: return NFS3ERR_IO;
	case ETXTBSY: return NFS3ERR_IO;     /* as nfsd */
	case EUCLEAN: return NFS3ERR_IO;     /* corrupted file system (as nfsd) */
	case EBADMSG: return NFS3ERR_IO;     /* bad checksum on disk */
	case EREMOTEIO: return NFS3ERR_IO;
	case ENXIO: return NFS3ERR_NXIO;
	case EACCES: return NFS3ERR_ACCES;
	/* A mount point removed or renamed over: nfsd answers v3 ACCES. */
	case EBUSY: return NFS3ERR_ACCES;
	case EEXIST: return NFS3ERR_EXIST;
	case EXDEV: return NFS3ERR_XDEV;
	case ENODEV: return NFS3ERR_NODEV;
	case ENOTDIR: return NFS3ERR_NOTDIR;
	case EISDIR: return NFS3ERR_ISDIR;
	case EINVAL: return NFS3ERR_INVAL;
	/* A symlink where a file was asked (open without O_PATH of an
	 * O_NOFOLLOW-resolved object): nfsd answers v3 INVAL. */
	case ELOOP: return NFS3ERR_INVAL;
	case EFBIG: return NFS3ERR_FBIG;
	case E2BIG: return NFS3ERR_FBIG;     /* as nfsd */
	case ENOSPC: return NFS3ERR_NOSPC;
	case EROFS: return NFS3ERR_ROFS;
	case EMLINK: return NFS3ERR_MLINK;
	case ENAMETOOLONG: return NFS3ERR_NAMETOOLONG;
	case ENOTEMPTY: return NFS3ERR_NOTEMPTY;
	case EDQUOT: return NFS3ERR_DQUOT;
	case ESTALE: return NFS3ERR_STALE;
	case EBADF: return NFS3ERR_STALE;    /* as nfsd */
	case EOPNOTSUPP: return NFS3ERR_NOTSUPP; /* = ENOTSUP on Linux */
	/* Transient: the client waits and retries (nfsd: JUKEBOX for
	 * ETIMEDOUT, EAGAIN, ENOMEM, and ERESTARTSYS, which user space
	 * sees as EINTR). */
	case ETIMEDOUT: return NFS3ERR_JUKEBOX;
	case EAGAIN: return NFS3ERR_JUKEBOX; /* = EWOULDBLOCK on Linux */
	case ENOMEM: return NFS3ERR_JUKEBOX;
	case EINTR: return NFS3ERR_JUKEBOX;
	/* Out of descriptors (nfsd: ENFILE); a handle too large for NFSv3. */
	case ENFILE: return NFS3ERR_SERVERFAULT;
	case EMFILE: return NFS3ERR_SERVERFAULT;
	case EOVERFLOW: return NFS3ERR_SERVERFAULT;
	/* Anything else: a hard error, as nfsd (clients map it to EIO). */
	default: return NFS3ERR_IO;
	}
}

static enum ftype3 ftype(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFDIR: return NF3DIR;
	case S_IFBLK: return NF3BLK;
	case S_IFCHR: return NF3CHR;
	case S_IFLNK: return NF3LNK;
	case S_IFSOCK: return NF3SOCK;
	case S_IFIFO: return NF3FIFO;
	default: return NF3REG;
	}
}

void nfs3_fattr(const struct nfsx_export *exp, const struct stat *st,
		struct fattr3 *a)
{
	a->type = ftype(st->st_mode);
	a->mode = st->st_mode & 07777;
	a->nlink = (uint32_t)st->st_nlink;
	a->uid = st->st_uid;
	a->gid = st->st_gid;
	a->size = (uint64_t)st->st_size;
	a->used = (uint64_t)st->st_blocks * 512u;
	a->rdev.specdata1 = major(st->st_rdev);
	a->rdev.specdata2 = minor(st->st_rdev);
	/* fsid= when the admin gave one, else the device: stable per export. */
	a->fsid = exp->fsid_kind == NFSX_FSID_NUM ? exp->fsid : (uint64_t)st->st_dev;
	a->fileid = st->st_ino;
	a->atime.seconds = (uint32_t)st->st_atim.tv_sec;
	a->atime.nseconds = (uint32_t)st->st_atim.tv_nsec;
	a->mtime.seconds = (uint32_t)st->st_mtim.tv_sec;
	a->mtime.nseconds = (uint32_t)st->st_mtim.tv_nsec;
	a->ctime.seconds = (uint32_t)st->st_ctim.tv_sec;
	a->ctime.nseconds = (uint32_t)st->st_ctim.tv_nsec;
}

void nfs3_post_op(const struct nfs3_obj *o, int fd, struct post_op_attr *pa)
{
	struct stat st;

	pa->attributes_follow = fd >= 0 && vfs_stat(fd, &st) == 0;
	if (pa->attributes_follow)
		nfs3_fattr(o->exp, &st, &pa->u.attributes);
}

enum nfsstat3 nfs3_handle(const struct nfs3_obj *o, int fd,
			  struct nfsx_fh *buf, struct nfs_fh3 *out)
{
	int r = vfs_handle_of(nfs3->key, o->vexp, fd, buf);

	if (r < 0)
		return nfs3_errno(-r);
	out->data.data = buf->data;
	out->data.len = buf->len;
	return NFS3_OK;
}

void nfs3_pre_op(int fd, struct pre_op_attr *pa)
{
	struct stat st;

	pa->attributes_follow = fd >= 0 && vfs_stat(fd, &st) == 0;
	if (!pa->attributes_follow)
		return;
	pa->u.attributes.size = (uint64_t)st.st_size;
	pa->u.attributes.mtime.seconds = (uint32_t)st.st_mtim.tv_sec;
	pa->u.attributes.mtime.nseconds = (uint32_t)st.st_mtim.tv_nsec;
	pa->u.attributes.ctime.seconds = (uint32_t)st.st_ctim.tv_sec;
	pa->u.attributes.ctime.nseconds = (uint32_t)st.st_ctim.tv_nsec;
}

void nfs3_wcc(const struct nfs3_obj *o, int fd, const struct pre_op_attr *pre,
	      struct wcc_data *w)
{
	w->before = *pre;
	nfs3_post_op(o, fd, &w->after);
}

enum nfsstat3 nfs3_writable(const struct nfs3_obj *o)
{
	return o->client && o->client->opts.rw ? NFS3_OK : NFS3ERR_ROFS;
}
