/* SPDX-License-Identifier: MIT */
/*
 * Operations that read attributes: GETATTR, VERIFY, NVERIFY, ACCESS,
 * READLINK (RFC 7530 sections 16.7, 16.35, 16.15, 16.1, 16.25).
 *
 * DESIGN
 * - Attributes are taken fresh for each GETATTR (one getattr through the
 *   export's operations): an earlier operation of the COMPOUND may have
 *   changed the object since it was resolved.
 * - fsid: a crossed mount's own, else the export's fsid= (major N, minor
 *   0), else the device's major and minor, as knfsd's FSIDSOURCE_DEV; the
 *   pseudo file system is fsid 0,0, as knfsd's pseudo root (fsid=0).
 * - A pseudo directory's attributes are made up: a directory 0555 of
 *   root, its fileid the 64-bit id of its handle, its times the server's
 *   start; an export's root reached from one has the pseudo directory's
 *   fileid as mounted_on_fileid, so that a client sees one inode number
 *   for the mount point from either side.
 * - change is the ctime (seconds << 32 | nanoseconds), as knfsd without
 *   i_version (which user space cannot read). With multigrain timestamps
 *   (Linux 6.13 and later, on tmpfs, ext4, XFS and btrfs) a ctime once
 *   read is never given to a later change, so every change after a look
 *   shows a new value (nfs4-ns checks it); before 6.13 two changes within
 *   one clock tick may share a value.
 * - owner and owner_group as numbers, knfsd's default for AUTH_SYS
 *   (nfs4_disable_idmapping); numbers and name@domain are both accepted
 *   where a client sets them.
 * - GETATTR, VERIFY or NVERIFY of a regular file's size or change by
 *   another client first recalls a write delegation of it (DELAY
 *   meanwhile, deleg.c): its holder may have written what the server has
 *   not seen. knfsd asks the holder with CB_GETATTR first.
 * GETATTR's result is encoded here, straight into the reply
 * (nfs4_attr_encode), rather than through the generated codec.
 */
#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "nfs4/attr.h"
#include "nfs4/internal.h"


static struct timespec start_time;
static pthread_once_t start_once = PTHREAD_ONCE_INIT;

static void start_time_set(void)
{
	clock_gettime(CLOCK_REALTIME, &start_time);
}

static bool wants(const bitmap4 *req, unsigned int attr)
{
	return req->len > attr / 32 && (req->val[attr / 32] >> (attr % 32) & 1);
}

/* A made-up directory for pseudo node @i. */
void nfs4_pseudo_stat(const struct export_pseudo *p, uint32_t i, struct stat *st)
{
	uint32_t c, n = 2;

	/* workers make pseudo attributes at once: set once, read after */
	pthread_once(&start_once, start_time_set);
	for (c = p->nodes[i].child; c != PSEUDO_NONE; c = p->nodes[c].next)
		n++;
	memset(st, 0, sizeof(*st));
	st->st_mode = S_IFDIR | 0555;
	st->st_nlink = n;
	st->st_ino = (ino_t)p->nodes[i].id;
	st->st_size = 4096;
	st->st_blksize = 4096;
	st->st_atim = st->st_mtim = st->st_ctim = start_time;
}

void nfs4_src_base(const struct nfs4_compound *c, struct nfs4_attr_src *s)
{
	memset(s, 0, sizeof(*s));
	s->lease_time = nfs4_lease_time;
	s->minorversion = c->minorversion;
	s->rdattr_error = NFS4_OK;
	s->maxread = s->maxwrite = NFS4_IO_MAX;
	s->time_delta_ns = 1;
	s->numeric_ids = true;
}

void nfs4_src_obj(const struct nfs4_compound *c, const struct export_obj *o,
		  const struct stat *st, struct nfs4_attr_src *s)
{
	const struct export_pseudo *p = &c->snap->pseudo;
	const struct vfs_export *v = o->vexp;
	uint32_t node;

	s->st = st;
	if (v->fsid_fixed) {
		s->fsid_major = v->fsid;
	} else if (o->exp->fsid_kind == NFSX_FSID_NUM) {
		s->fsid_major = o->exp->fsid;
	} else if (o->exp->fsid_kind == NFSX_FSID_UUID) {
		memcpy(&s->fsid_major, o->exp->uuid, 8);
		memcpy(&s->fsid_minor, o->exp->uuid + 8, 8);
	} else {
		s->fsid_major = major(st->st_dev);
		s->fsid_minor = minor(st->st_dev);
	}
	s->change = (uint64_t)st->st_ctim.tv_sec << 32 | (uint64_t)st->st_ctim.tv_nsec;
	s->mounted_on_fileid = st->st_ino;
	if (st->st_dev == v->root_dev && st->st_ino == v->root_ino &&
	    v == export_root_of(c->snap, o->exp) &&
	    (node = export_pseudo_node_of(p, o->exp)) != PSEUDO_NONE)
		s->mounted_on_fileid = p->nodes[node].id;
	s->read_only = !o->client->opts.rw;
}

void nfs4_src_pseudo(const struct nfs4_compound *c, uint32_t node, struct stat *st,
		     struct vfs_statfs *sf, struct nfs4_attr_src *s)
{
	nfs4_pseudo_stat(&c->snap->pseudo, node, st);
	s->st = st;
	s->change = (uint64_t)start_time.tv_sec << 32 | (uint64_t)start_time.tv_nsec;
	s->mounted_on_fileid = st->st_ino;
	s->read_only = true;
	memset(sf, 0, sizeof(*sf));
	sf->bsize = 4096;
	sf->name_max = NAME_MAX;
	s->sf = sf;
}

/*
 * Fill @s for the current filehandle as @req asks; @st, @sf and @fh are
 * the caller's storage. Return values: NFS4_OK or the error.
 */
static enum nfsstat4 attr_src(struct nfs4_compound *c, const bitmap4 *req,
			      struct nfs4_attr_src *s, struct stat *st, struct vfs_statfs *sf,
			      struct nfsx_fh *fh)
{
	const struct export_pseudo *p = &c->snap->pseudo;
	int err;

	nfs4_src_base(c, s);
	switch (c->cur.kind) {
	case NFS4_FH_NONE:
		return NFS4ERR_NOFILEHANDLE;
	case NFS4_FH_PSEUDO:
		nfs4_src_pseudo(c, c->cur.node, st, sf, s);
		if (wants(req, FATTR4_FILEHANDLE) &&
		    export_pseudo_handle(export_fh_key, p, c->cur.node, fh) == 0)
			s->fh = fh;
		return NFS4_OK;
	case NFS4_FH_OBJ:
		break;
	}
	{
		struct export_obj *o = &c->cur.o;
		const struct vfs_export *v = o->vexp;

		if ((wants(req, FATTR4_SIZE) || wants(req, FATTR4_CHANGE)) && nfs4_wdelegs_held() &&
		    o->have_st && S_ISREG(o->st.st_mode)) {
			struct nfs4_file_id f;
			enum nfsstat4 st4;

			/* as nfs4_check_read() on an event loop */
			if (c->req->on_loop)
				return NFS4ERR_DELAY;
			nfs4_file_id_of(o, &f);
			st4 = nfs4_deleg_break_read(&f, nfs4_breaker(c, 0));
			if (st4 != NFS4_OK)
				return st4;
		}
		err = v->ops->getattr(v, &o->obj, st);
		if (err < 0)
			return nfs4_errno(err);
		nfs4_src_obj(c, o, st, s);
		if (nfs4_attr_need_statfs(req)) {
			err = v->ops->statfs(v, &o->obj, sf);
			if (err < 0)
				return nfs4_errno(err);
			s->sf = sf;
		}
		if (wants(req, FATTR4_FILEHANDLE) &&
		    v->ops->handle(export_fh_key, v, &o->obj, fh) == 0)
			s->fh = fh;
		if (wants(req, FATTR4_XATTR_SUPPORT))
			s->xattr_support = nfs4_xattr_supported(o);
	}
	return NFS4_OK;
}

enum nfsstat4 nfs4_getattr(struct nfs4_compound *c, const struct nfs_argop4 *a,
			   struct nfs_resop4 *r)
{
	const bitmap4 *req = &a->u.opgetattr.attr_request;
	struct rpc_req *rq = c->req;
	struct nfs4_attr_src s;
	struct vfs_statfs sf;
	struct nfsx_fh fh;
	struct stat st;
	enum nfsstat4 status;
	size_t at;

	status = nfs4_attr_check_request(req);
	if (status == NFS4_OK)
		status = attr_src(c, req, &s, &st, &sf, &fh);
	if (status != NFS4_OK)
		return r->u.opgetattr.status = status;
	at = xdr_enc_len(&rq->enc);
	if (rpc_req_reply_reserve(rq, at + 8 + NFS4_ATTR_ENCODED_MAX) < 0)
		return r->u.opgetattr.status = NFS4ERR_RESOURCE;
	if (!xdr_enc_u32(&rq->enc, OP_GETATTR) || !xdr_enc_u32(&rq->enc, NFS4_OK) ||
	    !nfs4_attr_encode(&rq->enc, req, &s)) {
		rq->enc.p = rq->enc.start + at;
		return r->u.opgetattr.status = NFS4ERR_RESOURCE;
	}
	c->encoded = true;
	return r->u.opgetattr.status = NFS4_OK;
}

/* VERIFY (@want_same) and NVERIFY: SAME or NOT_SAME when they differ. */
static enum nfsstat4 verify(struct nfs4_compound *c, const struct fattr4 *f, bool want_same)
{
	struct nfs4_attr_src s;
	struct vfs_statfs sf;
	struct nfsx_fh fh;
	struct stat st;
	enum nfsstat4 status;
	bool same = false;

	status = attr_src(c, &f->attrmask, &s, &st, &sf, &fh);
	if (status == NFS4_OK)
		status = nfs4_attr_verify(f, &s, &same);
	if (status != NFS4_OK)
		return status;
	if (want_same)
		return same ? NFS4_OK : NFS4ERR_NOT_SAME;
	return same ? NFS4ERR_SAME : NFS4_OK;
}

enum nfsstat4 nfs4_verify(struct nfs4_compound *c, const struct nfs_argop4 *a,
			  struct nfs_resop4 *r)
{
	return r->u.opverify.status = verify(c, &a->u.opverify.obj_attributes, true);
}

enum nfsstat4 nfs4_nverify(struct nfs4_compound *c, const struct nfs_argop4 *a,
			   struct nfs_resop4 *r)
{
	return r->u.opnverify.status = verify(c, &a->u.opnverify.obj_attributes, false);
}

/*
 * ACCESS: as NFSv3's (export_access, whose bits are NFSv4's), supported
 * only where the bit applies to the object's type (knfsd); a pseudo
 * directory may be read and searched, nothing else. From minor version
 * 2 on, the xattr bits of an object (RFC 8276 8.4.2) are supported as
 * knfsd maps them: XAREAD and XALIST are READ's access, XAWRITE
 * MODIFY's (the Linux client asks for them before it gets or sets).
 */
_Static_assert(ACCESS4_READ == EXPORT_ACCESS_READ && ACCESS4_LOOKUP == EXPORT_ACCESS_LOOKUP &&
	       ACCESS4_MODIFY == EXPORT_ACCESS_MODIFY && ACCESS4_EXTEND == EXPORT_ACCESS_EXTEND &&
	       ACCESS4_DELETE == EXPORT_ACCESS_DELETE &&
	       ACCESS4_EXECUTE == EXPORT_ACCESS_EXECUTE, "ACCESS4 bits");

enum nfsstat4 nfs4_access(struct nfs4_compound *c, const struct nfs_argop4 *a,
			  struct nfs_resop4 *r)
{
	struct ACCESS4res *res = &r->u.opaccess;
	uint32_t want = a->u.opaccess.access, supp, xa = 0, got;

	if (c->cur.kind == NFS4_FH_NONE)
		return res->status = NFS4ERR_NOFILEHANDLE;
	if (want & ~(ACCESS4_READ | ACCESS4_LOOKUP | ACCESS4_MODIFY | ACCESS4_EXTEND |
		     ACCESS4_DELETE | ACCESS4_EXECUTE | ACCESS4_XAREAD | ACCESS4_XAWRITE |
		     ACCESS4_XALIST))
		return res->status = NFS4ERR_INVAL;
	/* what applies to the object's type, as knfsd's access maps:
	 * LOOKUP and DELETE for directories, EXECUTE for the rest */
	if (c->cur.kind == NFS4_FH_PSEUDO || (c->cur.o.have_st && S_ISDIR(c->cur.o.st.st_mode)))
		supp = want & (ACCESS4_READ | ACCESS4_LOOKUP | ACCESS4_MODIFY | ACCESS4_EXTEND |
			       ACCESS4_DELETE);
	else
		supp = want & (ACCESS4_READ | ACCESS4_MODIFY | ACCESS4_EXTEND | ACCESS4_EXECUTE);
	if (c->minorversion >= 2 && c->cur.kind == NFS4_FH_OBJ)
		xa = want & (ACCESS4_XAREAD | ACCESS4_XAWRITE | ACCESS4_XALIST);
	res->u.resok4.supported = supp | xa;
	if (c->cur.kind == NFS4_FH_PSEUDO) {
		res->u.resok4.access = supp & (ACCESS4_READ | ACCESS4_LOOKUP);
		return res->status = NFS4_OK;
	}
	got = export_access(&c->cur.o, supp | (xa & (ACCESS4_XAREAD | ACCESS4_XALIST) ?
						ACCESS4_READ : 0) |
					     (xa & ACCESS4_XAWRITE ? ACCESS4_MODIFY : 0));
	res->u.resok4.access = (got & supp) |
			       (got & ACCESS4_READ ? xa & (ACCESS4_XAREAD | ACCESS4_XALIST) : 0) |
			       (got & ACCESS4_MODIFY ? xa & ACCESS4_XAWRITE : 0);
	return res->status = NFS4_OK;
}

enum nfsstat4 nfs4_readlink(struct nfs4_compound *c, const struct nfs_argop4 *a,
			    struct nfs_resop4 *r)
{
	struct READLINK4res *res = &r->u.opreadlink;
	const struct export_obj *o = &c->cur.o;
	ssize_t n;

	(void)a;
	if (c->cur.kind == NFS4_FH_NONE)
		return res->status = NFS4ERR_NOFILEHANDLE;
	if (c->cur.kind == NFS4_FH_PSEUDO)
		return res->status = NFS4ERR_INVAL;
	/* RFC 7530 16.25.5: INVAL for anything but a symlink (knfsd turns
	 * its ISDIR into INVAL too) */
	if (!S_ISLNK(o->st.st_mode))
		return res->status = NFS4ERR_INVAL;
	n = o->vexp->ops->readlink(o->vexp, &o->obj, c->linkbuf, sizeof(c->linkbuf));
	if (n < 0)
		return res->status = nfs4_errno((int)n);
	res->u.resok4.link.data = (const uint8_t *)c->linkbuf;
	res->u.resok4.link.len = (uint32_t)n;
	return res->status = NFS4_OK;
}
