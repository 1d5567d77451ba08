/* SPDX-License-Identifier: MIT */
/* Shared NFSv3/MOUNT helpers: see nfs3.h. */
#include "nfs3/nfs3.h"
#include "vfs/dir.h"

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

	if (!s) {
		snprintf(err, errlen, "out of memory");
		exports_free(ex);
		return -1;
	}
	if (export_init(ex, state_dir, err, errlen) < 0) {
		free(s);
		return -1;
	}
	/* A new write verifier at every start, so clients resend
	 * unstable writes a crash may have lost. */
	randombytes_buf(s->write_verf, sizeof(s->write_verf));
	nfs3 = s;
	return 0;
}

void nfs3_fini(void)
{
	if (!nfs3)
		return;
	export_fini();
	free(nfs3);
	nfs3 = NULL;
}

int nfs3_exports_replace(struct nfsx_exports *ex, struct export_reload_stats *st,
			 char *err, size_t errlen)
{
	if (export_replace(ex, st, err, errlen) < 0)
		return -1;
	mount3_prune(ex);
	return 0;
}

static enum nfsstat3 resolved(int r)
{
	switch (r) {
	case 0: return NFS3_OK;
	case -EBADHANDLE: return NFS3ERR_BADHANDLE;
	case -EWOULDBLOCK: return NFS3ERR_JUKEBOX;   /* o->would_block says why */
	case -EPERM: return NFS3ERR_PERM;
	case -EACCES: return NFS3ERR_ACCES;
	case -ESTALE: return NFS3ERR_STALE;
	case -EFAULT: return NFS3ERR_SERVERFAULT;
	default: return nfs3_errno(-r);
	}
}

/*
 * Resolved with result @r: a flavour the rule's sec= does not allow is
 * ACCES, as knfsd answers NFSv3 (fh_verify's nfserr_wrongsec, which
 * nfsd3_map_status() makes nfserr_acces), not an RPC AUTH_TOOWEAK.
 */
static enum nfsstat3 sec_checked(struct rpc_req *req, int r, struct export_obj *o)
{
	if (r == 0 && !export_sec_ok(req, o->client)) {
		export_release(o);
		return NFS3ERR_ACCES;
	}
	return resolved(r);
}

enum nfsstat3 nfs3_resolve(struct rpc_req *req, const struct nfs_fh3 *fh,
			   struct export_obj *o)
{
	return sec_checked(req, export_resolve(req, fh->data.data, fh->data.len, false, o), o);
}

enum nfsstat3 nfs3_resolve_mem(struct rpc_req *req, const struct nfs_fh3 *fh,
			       struct export_obj *o)
{
	return sec_checked(req, export_resolve(req, fh->data.data, fh->data.len, true, o), o);
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

void nfs3_fattr(const struct export_obj *o, const struct stat *st, struct fattr3 *a)
{
	const struct nfsx_export *exp = o->exp;

	a->type = ftype(st->st_mode);
	a->mode = st->st_mode & 07777;
	a->nlink = (uint32_t)st->st_nlink;
	a->uid = st->st_uid;
	a->gid = st->st_gid;
	a->size = (uint64_t)st->st_size;
	a->used = (uint64_t)st->st_blocks * 512u;
	a->rdev.specdata1 = major(st->st_rdev);
	a->rdev.specdata2 = minor(st->st_rdev);
	/* A crossed mount's own; else fsid= when the admin gave one, else
	 * the device: stable per export. */
	if (o->vexp && o->vexp->fsid_fixed)
		a->fsid = o->vexp->fsid;
	else
		a->fsid = exp->fsid_kind == NFSX_FSID_NUM ? exp->fsid : (uint64_t)st->st_dev;
	a->fileid = st->st_ino;
	a->atime.seconds = (uint32_t)st->st_atim.tv_sec;
	a->atime.nseconds = (uint32_t)st->st_atim.tv_nsec;
	a->mtime.seconds = (uint32_t)st->st_mtim.tv_sec;
	a->mtime.nseconds = (uint32_t)st->st_mtim.tv_nsec;
	a->ctime.seconds = (uint32_t)st->st_ctim.tv_sec;
	a->ctime.nseconds = (uint32_t)st->st_ctim.tv_nsec;
}

void nfs3_post_op(const struct export_obj *o, const struct vfs_obj *obj,
		  struct post_op_attr *pa)
{
	struct stat st;

	pa->attributes_follow = vfs_obj_ok(obj) && o->vexp->ops->getattr(o->vexp, obj, &st) == 0;
	if (pa->attributes_follow)
		nfs3_fattr(o, &st, &pa->u.attributes);
}

enum nfsstat3 nfs3_handle(const struct export_obj *o, const struct vfs_obj *obj,
			  struct nfsx_fh *buf, struct nfs_fh3 *out)
{
	int r = o->vexp->ops->handle(export_fh_key, o->vexp, obj, buf);

	if (r < 0)
		return nfs3_errno(-r);
	out->data.data = buf->data;
	out->data.len = buf->len;
	return NFS3_OK;
}

void nfs3_pre_op(const struct export_obj *o, struct pre_op_attr *pa)
{
	/* nfs3_resolve's stat, taken just before: a second fstat would be
	 * no more exact (nothing is locked between either and the change). */
	pa->attributes_follow = o->have_st;
	if (!pa->attributes_follow)
		return;
	pa->u.attributes.size = (uint64_t)o->st.st_size;
	pa->u.attributes.mtime.seconds = (uint32_t)o->st.st_mtim.tv_sec;
	pa->u.attributes.mtime.nseconds = (uint32_t)o->st.st_mtim.tv_nsec;
	pa->u.attributes.ctime.seconds = (uint32_t)o->st.st_ctim.tv_sec;
	pa->u.attributes.ctime.nseconds = (uint32_t)o->st.st_ctim.tv_nsec;
}

void nfs3_wcc(const struct export_obj *o, const struct vfs_obj *obj,
	      const struct pre_op_attr *pre, struct wcc_data *w)
{
	/* every change answers with wcc_data: the listing cache learns of
	 * it here (vfs/dir.h), before the client does */
	vfs_dir_changed();
	w->before = *pre;
	nfs3_post_op(o, obj, &w->after);
}

/* The changes the thread's running call has in flight (nfs3.h): a call
 * runs on one thread from its handler's start to its end, whether a
 * worker or an event loop. */
static _Thread_local struct vfs_change changes;

enum nfsstat3 nfs3_lease_break(const struct stat *st, enum vfs_break_why why)
{
	int r;

	if (why < VFS_BREAK_READ)
		vfs_change_mark(&changes, st->st_dev, st->st_ino);
	r = vfs_lease_break(st->st_dev, st->st_ino, 0, why);
	return r < 0 ? nfs3_errno(-r) : NFS3_OK; /* -EAGAIN: JUKEBOX */
}

void nfs3_changes_mark_names(void)
{
	vfs_change_mark_names(&changes);
}

void nfs3_changes_end(void)
{
	vfs_change_end(&changes);
}

void nfs3_changes_take(struct vfs_change *to)
{
	*to = changes;
	memset(&changes, 0, sizeof(changes));
}

enum nfsstat3 nfs3_writable(const struct export_obj *o)
{
	return o->client && o->client->opts.rw ? NFS3_OK : NFS3ERR_ROFS;
}
