/* SPDX-License-Identifier: MIT */
/* Synchronous single-call operations: see sync.h. */
#include "client/sync.h"
#include "client/sync4.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "xdr/gen/nfs3.h"

struct nc_wait {
	bool done;
	int err;
	nc_extract_fn extract;
	void *out;
};

static void wait_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct nc_wait *w = priv;

	(void)ctx;
	w->done = true;
	w->err = err;
	if (!err && w->extract)
		w->err = w->extract(res, w->out);
}

int nc_sync_call(struct nfsx_ctx *ctx, const struct nfsx_proc *p, const void *args,
		 nc_extract_fn extract, void *out)
{
	struct nc_wait w = { .extract = extract, .out = out };
	int r;

	if (nc_sync_forbidden(ctx))
		return -EDEADLK;
	r = nfsx_call(ctx, p, args, wait_cb, &w);
	if (r < 0)
		return r;
	/* The call always ends (reply, timeout, or failure to connect). */
	while (!w.done)
		nfsx_run_once(ctx, -1);
	return w.err;
}

void nc_attr_from_fattr3(struct nfsx_attr *a, const struct fattr3 *f)
{
	a->type = f->type;
	a->mode = f->mode;
	a->nlink = f->nlink;
	a->uid = f->uid;
	a->gid = f->gid;
	a->size = f->size;
	a->used = f->used;
	a->fsid = f->fsid;
	a->fileid = f->fileid;
	a->rdev_major = f->rdev.specdata1;
	a->rdev_minor = f->rdev.specdata2;
	a->atime_ns = (int64_t)f->atime.seconds * 1000000000 + f->atime.nseconds;
	a->mtime_ns = (int64_t)f->mtime.seconds * 1000000000 + f->mtime.nseconds;
	a->ctime_ns = (int64_t)f->ctime.seconds * 1000000000 + f->ctime.nseconds;
}

int nc_fh_copy(struct nfsx_fh *dst, const struct xdr_bytes *src)
{
	if (src->len > NFSX_FH_MAX)
		return -EPROTO;
	dst->len = src->len;
	memcpy(dst->data, src->data, src->len);
	return 0;
}

#define PROC(n) (&nfsx_nfs3_procs[NFSPROC3_##n])

/* GETATTR */

static int x_getattr(void *res, void *out)
{
	struct GETATTR3res *r = res;

	if (r->status != NFS3_OK)
		return (int)r->status;
	if (out)
		nc_attr_from_fattr3(out, &r->u.resok.obj_attributes);
	return 0;
}

int nfsx_getattr(struct nfsx_ctx *c, const struct nfsx_fh *fh, struct nfsx_attr *attr)
{
	struct GETATTR3args a = { nc_fh3(fh) };

	if (nc_is_v4(c))
		return nc4_getattr(c, fh, attr);

	return nc_sync_call(c, PROC(GETATTR), &a, x_getattr, attr);
}

/* LOOKUP */

struct lookup_out {
	struct nfsx_fh *fh;
	struct nfsx_attr *attr;
	bool have_attr;
};

static int x_lookup(void *res, void *out)
{
	struct LOOKUP3res *r = res;
	struct lookup_out *o = out;

	if (r->status != NFS3_OK)
		return (int)r->status;
	if (o->fh && nc_fh_copy(o->fh, &r->u.resok.object.data) < 0)
		return -EPROTO;
	if (o->attr && r->u.resok.obj_attributes.attributes_follow) {
		nc_attr_from_fattr3(o->attr, &r->u.resok.obj_attributes.u.attributes);
		o->have_attr = true;
	}
	return 0;
}

int nfsx_lookup(struct nfsx_ctx *c, const struct nfsx_fh *dir, const char *name,
		struct nfsx_fh *fh, struct nfsx_attr *attr)
{
	struct nfsx_fh tmp;
	struct lookup_out o = { fh ? fh : &tmp, attr, false };
	struct LOOKUP3args a = { { nc_fh3(dir), { (const uint8_t *)name, (uint32_t)strlen(name) } } };
	int r;

	if (nc_is_v4(c))
		return nc4_lookup(c, dir, name, fh, attr);

	r = nc_sync_call(c, PROC(LOOKUP), &a, x_lookup, &o);
	if (r == 0 && attr && !o.have_attr)
		r = nfsx_getattr(c, o.fh, attr);
	return r;
}

/* READ */

struct read_out {
	void *buf;
	uint32_t len, got;
	bool eof;
};

static int x_read(void *res, void *out)
{
	struct READ3res *r = res;
	struct read_out *o = out;

	if (r->status != NFS3_OK)
		return (int)r->status;
	if (r->u.resok.data.len > o->len)
		return -EPROTO; /* more than asked for */
	memcpy(o->buf, r->u.resok.data.data, r->u.resok.data.len);
	o->got = r->u.resok.data.len;
	o->eof = r->u.resok.eof;
	return 0;
}

int nfsx_read(struct nfsx_ctx *c, const struct nfsx_fh *fh, uint64_t off, void *buf,
	      uint32_t len, uint32_t *got, bool *eof)
{
	struct READ3args a = { nc_fh3(fh), off, len };
	struct read_out o = { buf, len, 0, false };
	int r;

	if (nc_is_v4(c))
		return nc4_read(c, fh, off, buf, len, got, eof);

	r = nc_sync_call(c, PROC(READ), &a, x_read, &o);
	if (got)
		*got = r == 0 ? o.got : 0;
	if (eof)
		*eof = r == 0 && o.eof;
	return r;
}

/* WRITE and COMMIT */

struct write_out {
	uint32_t count;
	uint8_t *verf;
};

static int x_write(void *res, void *out)
{
	struct WRITE3res *r = res;
	struct write_out *o = out;

	if (r->status != NFS3_OK)
		return (int)r->status;
	o->count = r->u.resok.count;
	if (o->verf)
		memcpy(o->verf, r->u.resok.verf.val, NFS3_WRITEVERFSIZE);
	return 0;
}

int nfsx_write(struct nfsx_ctx *c, const struct nfsx_fh *fh, uint64_t off, const void *buf,
	       uint32_t len, enum stable_how how, uint32_t *written,
	       uint8_t verf[NFS3_WRITEVERFSIZE])
{
	struct WRITE3args a = { nc_fh3(fh), off, len, how, { buf, len } };
	struct write_out o = { 0, verf };
	int r;

	if (nc_is_v4(c))
		return nc4_write(c, fh, off, buf, len, how, written, verf);

	r = nc_sync_call(c, PROC(WRITE), &a, x_write, &o);
	if (written)
		*written = r == 0 ? o.count : 0;
	return r;
}

static int x_commit(void *res, void *out)
{
	struct COMMIT3res *r = res;

	if (r->status != NFS3_OK)
		return (int)r->status;
	if (out)
		memcpy(out, r->u.resok.verf.val, NFS3_WRITEVERFSIZE);
	return 0;
}

int nfsx_commit(struct nfsx_ctx *c, const struct nfsx_fh *fh, uint8_t verf[NFS3_WRITEVERFSIZE])
{
	struct COMMIT3args a = { nc_fh3(fh), 0, 0 };

	if (nc_is_v4(c))
		return nc4_commit(c, fh, verf);

	return nc_sync_call(c, PROC(COMMIT), &a, x_commit, verf);
}

/* CREATE, MKDIR: a handle, from the reply or by LOOKUP if it had none */

struct made_out {
	struct nfsx_fh *fh;
	bool have_fh;
};

static int made(enum nfsstat3 st, const struct post_op_fh3 *obj, struct made_out *o)
{
	if (st != NFS3_OK)
		return (int)st;
	if (obj->handle_follows) {
		if (nc_fh_copy(o->fh, &obj->u.handle.data) < 0)
			return -EPROTO;
		o->have_fh = true;
	}
	return 0;
}

static int x_create(void *res, void *out)
{
	struct CREATE3res *r = res;

	return made(r->status, &r->u.resok.obj, out);
}

static int x_mkdir(void *res, void *out)
{
	struct MKDIR3res *r = res;

	return made(r->status, &r->u.resok.obj, out);
}

static struct sattr3 mode_only(uint32_t mode)
{
	struct sattr3 s = { 0 };

	s.mode.set_it = true;
	s.mode.u.mode = mode;
	return s;
}

static int x_status_setattr(void *res, void *out)
{
	(void)out;
	return (int)((struct SETATTR3res *)res)->status;
}

static int setattr(struct nfsx_ctx *c, const struct nfsx_fh *fh, const struct sattr3 *s)
{
	struct SETATTR3args a = { nc_fh3(fh), *s, { 0 } };

	return nc_sync_call(c, PROC(SETATTR), &a, x_status_setattr, NULL);
}

int nfsx_create(struct nfsx_ctx *c, const struct nfsx_fh *dir, const char *name,
		uint32_t mode, bool exclusive, struct nfsx_fh *fh)
{
	struct nfsx_fh tmp;
	struct made_out o = { fh ? fh : &tmp, false };
	struct CREATE3args a = { { nc_fh3(dir), { (const uint8_t *)name, (uint32_t)strlen(name) } },
				 { 0 } };
	int r;

	if (nc_is_v4(c))
		return nc4_create(c, dir, name, mode, exclusive, fh);

	if (exclusive) {
		/* The verifier makes a retransmitted create succeed, not EXIST. */
		a.how.mode = EXCLUSIVE;
		if (getrandom(a.how.u.verf.val, sizeof(a.how.u.verf.val), 0) < 0)
			return -errno;
	} else {
		a.how.mode = UNCHECKED;
		a.how.u.obj_attributes = mode_only(mode);
	}
	r = nc_sync_call(c, PROC(CREATE), &a, x_create, &o);
	if (r == 0 && !o.have_fh)
		r = nfsx_lookup(c, dir, name, o.fh, NULL);
	if (r == 0 && exclusive) {
		/* RFC 1813: attributes are set by a SETATTR after an EXCLUSIVE create. */
		struct sattr3 s = mode_only(mode);

		r = setattr(c, o.fh, &s);
	}
	return r;
}

int nfsx_truncate(struct nfsx_ctx *c, const struct nfsx_fh *fh, uint64_t size)
{
	struct sattr3 s = { 0 };

	if (nc_is_v4(c))
		return nc4_truncate(c, fh, size);

	s.size.set_it = true;
	s.size.u.size = size;
	return setattr(c, fh, &s);
}

int nfsx_mkdir(struct nfsx_ctx *c, const struct nfsx_fh *dir, const char *name,
	       uint32_t mode, struct nfsx_fh *fh)
{
	struct nfsx_fh tmp;
	struct made_out o = { fh ? fh : &tmp, false };
	struct MKDIR3args a = { { nc_fh3(dir), { (const uint8_t *)name, (uint32_t)strlen(name) } },
				mode_only(mode) };
	int r;

	if (nc_is_v4(c))
		return nc4_mkdir(c, dir, name, mode, fh);

	r = nc_sync_call(c, PROC(MKDIR), &a, x_mkdir, &o);
	if (r == 0 && !o.have_fh)
		r = nfsx_lookup(c, dir, name, o.fh, NULL);
	return r;
}

/* REMOVE, RMDIR */

static int x_remove(void *res, void *out)
{
	(void)out;
	return (int)((struct REMOVE3res *)res)->status;
}

static int x_rmdir(void *res, void *out)
{
	(void)out;
	return (int)((struct RMDIR3res *)res)->status;
}

int nfsx_remove(struct nfsx_ctx *c, const struct nfsx_fh *dir, const char *name)
{
	struct REMOVE3args a = { { nc_fh3(dir), { (const uint8_t *)name, (uint32_t)strlen(name) } } };

	if (nc_is_v4(c))
		return nc4_remove(c, dir, name);

	return nc_sync_call(c, PROC(REMOVE), &a, x_remove, NULL);
}

int nfsx_rmdir(struct nfsx_ctx *c, const struct nfsx_fh *dir, const char *name)
{
	struct RMDIR3args a = { { nc_fh3(dir), { (const uint8_t *)name, (uint32_t)strlen(name) } } };

	if (nc_is_v4(c))
		return nc4_remove(c, dir, name);

	return nc_sync_call(c, PROC(RMDIR), &a, x_rmdir, NULL);
}

/* FSINFO */

struct fsinfo_out {
	uint32_t rtmax, wtmax, dtpref;
};

static int x_fsinfo(void *res, void *out)
{
	struct FSINFO3res *r = res;
	struct fsinfo_out *o = out;

	if (r->status != NFS3_OK)
		return (int)r->status;
	o->rtmax = r->u.resok.rtmax;
	o->wtmax = r->u.resok.wtmax;
	o->dtpref = r->u.resok.dtpref;
	return 0;
}

int nfsx_fsinfo(struct nfsx_ctx *c, const struct nfsx_fh *root, uint32_t *rtmax,
		uint32_t *wtmax, uint32_t *dtpref)
{
	struct FSINFO3args a = { nc_fh3(root) };
	struct fsinfo_out o = { 0 };
	int r;

	if (nc_is_v4(c))
		return nc4_fsinfo(c, root, rtmax, wtmax, dtpref);

	r = nc_sync_call(c, PROC(FSINFO), &a, x_fsinfo, &o);
	if (r == 0) {
		if (rtmax)
			*rtmax = o.rtmax;
		if (wtmax)
			*wtmax = o.wtmax;
		if (dtpref)
			*dtpref = o.dtpref;
	}
	return r;
}
