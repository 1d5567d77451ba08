/* SPDX-License-Identifier: MIT */
/*
 * The synchronous API over NFSv4.1: each nfsx_* function of sync.c and
 * path.c forwards here on a version 4 context. Results are the same
 * struct nfsx_attr / handles; a failure is the positive nfsstat4 (most
 * values are NFSv3's own: NOENT 2, EXIST 17, NOTDIR 20, ...).
 *
 * - nfsx_mount walks its path from the pseudo root (PUTROOTFH);
 *   nfsx_mount_path takes for the export the deepest directory of the
 *   path where the file system changes (fsid), like NFSv3's longest
 *   exported prefix.
 * - A walk is one COMPOUND of PUTFH (or PUTROOTFH), a LOOKUP per
 *   component, GETFH and GETATTR, cut into several COMPOUNDs for long
 *   paths.
 * - READ and WRITE take a handle only, so each is one COMPOUND of PUTFH,
 *   OPEN by handle (CLAIM_FH, no delegation wanted), the I/O with the
 *   current stateid and CLOSE of it: no open state outlives the call.
 *   When the I/O fails after the OPEN, the CLOSE goes out alone, as it
 *   does after a WRITE of more than half of NC_CALL_MAX (the core's
 *   bound on an encoded call; such a WRITE goes last, from the caller's
 *   buffer).
 * - A create is OPEN4_CREATE (UNCHECKED4, or GUARDED4 for @exclusive)
 *   by name, GETFH, CLOSE.
 * - A listing starts with "." and ".." (GETATTR, LOOKUPP), which NFSv4's
 *   READDIR leaves out and the API promises (".." of the pseudo root is
 *   the root itself).
 */
#include "client/sync4.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/attr4.h"
#include "client/nfs4.h"
#include "client/sync.h"

#define WALK_CHUNK 10u                /* LOOKUPs per COMPOUND */
#define READDIR_MAX (32u << 10)
#define DIRCOUNT (8u << 10)

static void op_putfh(struct nfs_argop4 *o, const struct nfsx_fh *fh)
{
	nfs_fh4 f = { .data = fh->data, .len = fh->len };

	nc4_op_putfh(o, &f);
}

static void op_simple(struct nfs_argop4 *o, enum nfs_opnum4 op)
{
	memset(o, 0, sizeof(*o));
	o->argop = op;
}

static void op_getattr(struct nfs_argop4 *o, uint32_t w[3])
{
	op_simple(o, OP_GETATTR);
	o->u.opgetattr.attr_request.len = 3;
	o->u.opgetattr.attr_request.val = w;
}

static void op_name(struct nfs_argop4 *o, enum nfs_opnum4 op, const char *name, size_t len)
{
	op_simple(o, op);
	/* LOOKUP, REMOVE: component4 first in either */
	if (op == OP_LOOKUP) {
		o->u.oplookup.objname.data = (const uint8_t *)name;
		o->u.oplookup.objname.len = (uint32_t)len;
	} else {
		o->u.opremove.target.data = (const uint8_t *)name;
		o->u.opremove.target.len = (uint32_t)len;
	}
}

/* The last result of @op in @r, or NULL. */
static const struct nfs_resop4 *res_of(const struct nfsx4_res *r, enum nfs_opnum4 op)
{
	uint32_t i;

	for (i = r->nops; i-- > 0;)
		if (r->ops[i].resop == op)
			return &r->ops[i];
	return NULL;
}

static int status_only(const struct nfsx4_res *r, void *out)
{
	(void)out;
	return (int)r->status;
}

/* ---- handles and attributes ------------------------------------------ */

struct fh_attr_out {
	struct nfsx_fh *fh;
	struct nfsx_attr *attr;
	struct nc4_attrs *all;
};

static int x_fh_attr(const struct nfsx4_res *r, void *out)
{
	struct fh_attr_out *o = out;
	const struct nfs_resop4 *g;
	struct nc4_attrs tmp;
	int e;

	if (r->status != NFS4_OK)
		return (int)r->status;
	if (o->fh) {
		g = res_of(r, OP_GETFH);
		if (!g || nc_fh_copy(o->fh, &g->u.opgetfh.u.resok4.object) < 0)
			return -EPROTO;
	}
	if (o->attr || o->all) {
		g = res_of(r, OP_GETATTR);
		if (!g)
			return -EPROTO;
		e = nc4_attr_decode(&g->u.opgetattr.u.resok4.obj_attributes, o->all ? o->all : &tmp);
		if (e)
			return e;
		if (o->attr)
			*o->attr = (o->all ? o->all : &tmp)->a;
	}
	return 0;
}

int nc4_getattr(struct nfsx_ctx *c, const struct nfsx_fh *fh, struct nfsx_attr *attr)
{
	struct nfs_argop4 ops[2];
	uint32_t w[3];
	struct fh_attr_out o = { NULL, attr, NULL };
	struct nfsx_attr tmp;

	if (!attr)
		o.attr = &tmp;
	nc4_attr_request(w, false);
	op_putfh(&ops[0], fh);
	op_getattr(&ops[1], w);
	return nc4_sync(c, ops, 2, x_fh_attr, &o);
}

/*
 * Walk @path from @start (NULL: the pseudo root) into @fh and @attr
 * (both may be NULL), WALK_CHUNK components per COMPOUND.
 */
static int walk(struct nfsx_ctx *c, const struct nfsx_fh *start, const char *path,
		struct nfsx_fh *fh, struct nfsx_attr *attr)
{
	struct nfsx_fh cur;
	bool root = !start;
	uint32_t w[3];
	size_t n;

	if (start)
		cur = *start;
	nc4_attr_request(w, false);
	for (;;) {
		struct nfs_argop4 ops[WALK_CHUNK + 3];
		struct fh_attr_out o = { &cur, NULL, NULL };
		struct nfsx_attr tmp;
		uint32_t k = 0, nops;
		bool last;
		int r;

		if (root)
			op_simple(&ops[0], OP_PUTROOTFH);
		else
			op_putfh(&ops[0], &cur);
		nops = 1;
		while (k < WALK_CHUNK && (n = nc_next_component(&path)) > 0) {
			if (n > 255)
				return NFS4ERR_NAMETOOLONG;
			op_name(&ops[nops++], OP_LOOKUP, path, n);
			path += n;
			k++;
		}
		last = nc_next_component(&path) == 0;
		op_simple(&ops[nops++], OP_GETFH);
		if (last) {
			o.attr = attr ? attr : &tmp;
			op_getattr(&ops[nops++], w);
		}
		r = nc4_sync(c, ops, nops, x_fh_attr, &o);
		if (r != 0)
			return r;
		root = false;
		if (last)
			break;
	}
	if (fh)
		*fh = cur;
	return 0;
}

int nc4_lookup(struct nfsx_ctx *c, const struct nfsx_fh *dir, const char *name,
	       struct nfsx_fh *fh, struct nfsx_attr *attr)
{
	struct nfs_argop4 ops[4];
	uint32_t w[3];
	struct nfsx_fh tmp;
	struct fh_attr_out o = { fh ? fh : &tmp, attr, NULL };
	size_t n = strlen(name);

	if (n > 255)
		return NFS4ERR_NAMETOOLONG;
	nc4_attr_request(w, false);
	op_putfh(&ops[0], dir);
	op_name(&ops[1], OP_LOOKUP, name, n);
	op_simple(&ops[2], OP_GETFH);
	op_getattr(&ops[3], w);
	return nc4_sync(c, ops, attr ? 4 : 3, x_fh_attr, &o);
}

int nc4_mount(struct nfsx_ctx *c, const char *exp, struct nfsx_fh *root)
{
	struct nfsx_fh fh;
	int r = walk(c, NULL, exp, &fh, NULL);

	if (r != 0)
		return r;
	c->root = fh;
	c->mounted = true;
	snprintf(c->mnt_path, sizeof(c->mnt_path), "%s", exp);
	if (root)
		*root = fh;
	return 0;
}

/*
 * The export is where the walk from the pseudo root last crosses into
 * another file system (fsid changes), as NFSv3's longest exported
 * prefix: the tool refuses to remove an export's root, and needs to know
 * it. The walk stops at the first name that fails (a file to be made).
 */
int nc4_mount_path(struct nfsx_ctx *c, const char *path, struct nfsx_fh *root,
		   const char **rest)
{
	struct nfsx_fh cur, best;
	struct nfsx_attr a;
	const char *p = path, *best_rest = path;
	uint64_t fsid;
	char name[256];
	size_t n;
	int r;

	r = walk(c, NULL, "", &cur, &a);
	if (r != 0)
		return r;
	best = cur;
	fsid = a.fsid;
	while (a.type == NF3DIR && (n = nc_next_component(&p)) > 0 && n < sizeof(name)) {
		struct nfsx_fh next;

		memcpy(name, p, n);
		name[n] = '\0';
		if (nc4_lookup(c, &cur, name, &next, &a) != 0)
			break;
		p += n;
		if (a.fsid != fsid) {
			best = next;
			best_rest = p;
		}
		fsid = a.fsid;
		cur = next;
	}
	c->root = best;
	c->mounted = true;
	snprintf(c->mnt_path, sizeof(c->mnt_path), "%.*s", (int)(best_rest - path), path);
	if (root)
		*root = best;
	if (rest) {
		while (*best_rest == '/')
			best_rest++;
		*rest = best_rest;
	}
	return 0;
}

int nc4_resolve(struct nfsx_ctx *c, const char *path, struct nfsx_fh *fh,
		struct nfsx_attr *attr)
{
	if (!c->mounted)
		return -ENOTCONN;
	return walk(c, &c->root, path, fh, attr);
}

int nc4_fsinfo(struct nfsx_ctx *c, const struct nfsx_fh *root, uint32_t *rtmax,
	       uint32_t *wtmax, uint32_t *dtpref)
{
	struct nfs_argop4 ops[2];
	uint32_t w[3] = { 0, 0, 0 };
	struct nc4_attrs all;
	struct fh_attr_out o = { NULL, NULL, &all };
	uint64_t rmax, wmax;
	int r;

	w[FATTR4_MAXREAD / 32] |= 1u << (FATTR4_MAXREAD % 32);
	w[FATTR4_MAXWRITE / 32] |= 1u << (FATTR4_MAXWRITE % 32);
	op_putfh(&ops[0], root);
	op_getattr(&ops[1], w);
	r = nc4_sync(c, ops, 2, x_fh_attr, &o);
	if (r != 0)
		return r;
	/* The session's sizes bound the I/O as much as the file system's. */
	rmax = c->v4->maxresp > NC4_IO_SLACK + 4096 ? c->v4->maxresp - NC4_IO_SLACK : 4096;
	wmax = c->v4->maxreq > NC4_IO_SLACK + 4096 ? c->v4->maxreq - NC4_IO_SLACK : 4096;
	if (all.maxread && all.maxread < rmax)
		rmax = all.maxread;
	if (all.maxwrite && all.maxwrite < wmax)
		wmax = all.maxwrite;
	/* nor more than CREATE_SESSION asked for */
	if (rmax > NC4_IO_MAX)
		rmax = NC4_IO_MAX;
	if (wmax > NC4_IO_MAX)
		wmax = NC4_IO_MAX;
	/* A WRITE that is the last operation sends its data from the
	 * caller's buffer, so only the session bounds it (nc4_write). */
	if (rtmax)
		*rtmax = (uint32_t)rmax;
	if (wtmax)
		*wtmax = (uint32_t)wmax;
	if (dtpref)
		*dtpref = READDIR_MAX;
	return 0;
}

/* ---- READDIR ----------------------------------------------------------- */

struct page4 {
	struct nfsx_dirent *e;
	size_t n;
	char *names;
	bool eof;
	verifier4 verf;
	bool plus;
};

static int x_readdir(const struct nfsx4_res *r, void *out)
{
	struct page4 *pg = out;
	const struct nfs_resop4 *rd;
	const struct entry4 *e;
	size_t n = 0, bytes = 0, used = 0;

	if (r->status != NFS4_OK)
		return (int)r->status;
	rd = res_of(r, OP_READDIR);
	if (!rd)
		return -EPROTO;
	for (e = rd->u.opreaddir.u.resok4.reply.entries; e; e = e->nextentry) {
		n++;
		bytes += e->name.len + 1;
	}
	pg->e = calloc(n ? n : 1, sizeof(*pg->e));
	pg->names = malloc(bytes ? bytes : 1);
	if (!pg->e || !pg->names)
		return -ENOMEM;
	for (e = rd->u.opreaddir.u.resok4.reply.entries; e; e = e->nextentry) {
		struct nfsx_dirent *d = &pg->e[pg->n++];
		struct nc4_attrs a;

		if (memchr(e->name.data, '\0', e->name.len) || e->name.len == 0)
			return -EPROTO;
		d->name = pg->names + used;
		memcpy(pg->names + used, e->name.data, e->name.len);
		pg->names[used + e->name.len] = '\0';
		used += e->name.len + 1;
		d->cookie = e->cookie;
		if (nc4_attr_decode(&e->attrs, &a) < 0)
			return -EPROTO;
		d->fileid = a.a.fileid;
		/* Attributes count only when the server gave them all. */
		if (pg->plus && !a.rdattr_error && a.fh.len &&
		    (a.mask[0] >> FATTR4_TYPE & 1) && (a.mask[1] >> (FATTR4_MODE - 32) & 1)) {
			d->has_attr = true;
			d->attr = a.a;
			d->fh = a.fh;
		}
	}
	pg->eof = rd->u.opreaddir.u.resok4.reply.eof;
	pg->verf = rd->u.opreaddir.u.resok4.cookieverf;
	return 0;
}

struct dots_out {
	struct nfsx_dirent d[2];
};

static int x_dots(const struct nfsx4_res *r, void *out)
{
	struct dots_out *o = out;
	struct nc4_attrs a;
	uint32_t i, k = 0;

	if (r->nops < 4 || nc4_op_status(&r->ops[3]) != NFS4_OK)
		return r->status != NFS4_OK ? (int)r->status : -EPROTO;
	/* SEQUENCE PUTFH GETFH GETATTR [LOOKUPP GETFH GETATTR] */
	for (i = 2; i + 1 < r->nops && k < 2; i += 3, k++) {
		const struct nfs_resop4 *fh = &r->ops[i], *at = &r->ops[i + 1];

		if (fh->resop != OP_GETFH || at->resop != OP_GETATTR ||
		    nc4_op_status(fh) != NFS4_OK || nc4_op_status(at) != NFS4_OK)
			break;
		if (nc_fh_copy(&o->d[k].fh, &fh->u.opgetfh.u.resok4.object) < 0 ||
		    nc4_attr_decode(&at->u.opgetattr.u.resok4.obj_attributes, &a) < 0)
			return -EPROTO;
		o->d[k].attr = a.a;
		o->d[k].fileid = a.a.fileid;
		o->d[k].has_attr = true;
	}
	/* ".." of the top (LOOKUPP failed): the directory itself, as NFSv3 gives */
	if (k == 1)
		o->d[1] = o->d[0];
	o->d[0].name = ".";
	o->d[1].name = "..";
	return 0;
}

/* "." and "..", which NFSv4's READDIR leaves out, for the NFSv3 API. */
static int dots(struct nfsx_ctx *c, const struct nfsx_fh *dir, nfsx_dirent_fn fn, void *priv)
{
	struct nfs_argop4 ops[6];
	struct dots_out o;
	uint32_t w[3];
	int r;

	memset(&o, 0, sizeof(o));
	nc4_attr_request(w, false);
	op_putfh(&ops[0], dir);
	op_simple(&ops[1], OP_GETFH);
	op_getattr(&ops[2], w);
	op_simple(&ops[3], OP_LOOKUPP);
	op_simple(&ops[4], OP_GETFH);
	op_getattr(&ops[5], w);
	r = nc4_sync(c, ops, 6, x_dots, &o);
	if (r == 0)
		r = fn(&o.d[0], priv);
	if (r == 0)
		r = fn(&o.d[1], priv);
	return r;
}

int nc4_readdir(struct nfsx_ctx *c, const struct nfsx_fh *dir, bool plus, nfsx_dirent_fn fn,
		void *priv)
{
	uint64_t cookie = 0;
	verifier4 verf = { { 0 } };
	uint32_t w[3];
	int r0 = dots(c, dir, fn, priv);

	if (r0 != 0)
		return r0;

	if (plus)
		nc4_attr_request(w, true);
	else
		w[0] = 1u << FATTR4_FILEID, w[1] = w[2] = 0;
	for (;;) {
		struct nfs_argop4 ops[2];
		struct page4 pg = { .plus = plus };
		size_t i;
		int r;

		op_putfh(&ops[0], dir);
		op_simple(&ops[1], OP_READDIR);
		ops[1].u.opreaddir.cookie = cookie;
		ops[1].u.opreaddir.cookieverf = verf;
		ops[1].u.opreaddir.dircount = DIRCOUNT;
		ops[1].u.opreaddir.maxcount = READDIR_MAX;
		ops[1].u.opreaddir.attr_request.len = 3;
		ops[1].u.opreaddir.attr_request.val = w;
		r = nc4_sync(c, ops, 2, x_readdir, &pg);
		for (i = 0; r == 0 && i < pg.n; i++)
			r = fn(&pg.e[i], priv);
		/* A page that does not move the cookie would loop forever. */
		if (r == 0 && !pg.eof && (pg.n == 0 || pg.e[pg.n - 1].cookie == cookie))
			r = -EPROTO;
		if (r == 0 && !pg.eof) {
			cookie = pg.e[pg.n - 1].cookie;
			verf = pg.verf;
		}
		free(pg.e);
		free(pg.names);
		if (r != 0 || pg.eof)
			return r;
	}
}

/* ---- OPEN, READ, WRITE, CLOSE ------------------------------------------ */

/* The current stateid (RFC 8881 16.2.3.1.2): seqid 1, other all zeros. */
static struct stateid4 current_sid(void)
{
	struct stateid4 s = { 1, { 0 } };

	return s;
}

static void op_close(struct nfs_argop4 *o, const struct stateid4 *sid)
{
	op_simple(o, OP_CLOSE);
	o->u.opclose.open_stateid = *sid;
}

struct io_out {
	void *buf;                 /* READ, READ_PLUS */
	uint32_t len, got;
	bool eof;
	uint64_t off;              /* READ_PLUS: where the range starts */
	uint32_t holes;            /* READ_PLUS: hole bytes */
	uint32_t written;          /* WRITE */
	uint8_t *verf;
	bool opened;               /* OPEN succeeded: its stateid below */
	struct stateid4 sid;
	struct nfsx_fh *fh;        /* create */
};

static int x_io(const struct nfsx4_res *r, void *out)
{
	struct io_out *o = out;
	const struct nfs_resop4 *x = res_of(r, OP_OPEN);

	if (x && nc4_op_status(x) == NFS4_OK) {
		o->opened = true;
		o->sid = x->u.opopen.u.resok4.stateid;
	}
	if ((x = res_of(r, OP_CLOSE)) && nc4_op_status(x) == NFS4_OK)
		o->opened = false;
	if ((x = res_of(r, OP_READ)) && nc4_op_status(x) == NFS4_OK) {
		const struct READ4resok *ok = &x->u.opread.u.resok4;

		if (ok->data.len > o->len)
			return -EPROTO; /* more than asked for */
		memcpy(o->buf, ok->data.data, ok->data.len);
		o->got = ok->data.len;
		o->eof = ok->eof;
	}
	if ((x = res_of(r, OP_READ_PLUS)) && nc4_op_status(x) == NFS4_OK) {
		struct nfsx4_read_plus_out rp;
		int e = nfsx4_read_plus_fill(&x->u.opread_plus, o->off, o->len, o->buf, &rp);

		if (e)
			return e;
		o->got = rp.count;
		o->eof = rp.eof;
		o->holes = rp.hole_bytes;
	}
	if ((x = res_of(r, OP_WRITE)) && nc4_op_status(x) == NFS4_OK) {
		o->written = x->u.opwrite.u.resok4.count;
		if (o->verf)
			memcpy(o->verf, x->u.opwrite.u.resok4.writeverf.val, NFS4_VERIFIER_SIZE);
	}
	if (o->fh && (x = res_of(r, OP_GETFH)) && nc4_op_status(x) == NFS4_OK &&
	    nc_fh_copy(o->fh, &x->u.opgetfh.u.resok4.object) < 0)
		return -EPROTO;
	return (int)r->status;
}

/* The I/O failed after its OPEN: close what was opened. */
static void close_left(struct nfsx_ctx *c, const struct nfsx_fh *fh, struct io_out *o)
{
	struct nfs_argop4 ops[2];

	if (!o->opened)
		return;
	op_putfh(&ops[0], fh);
	op_close(&ops[1], &o->sid);
	nc4_sync(c, ops, 2, status_only, NULL);
	o->opened = false;
}

int nc4_read(struct nfsx_ctx *c, const struct nfsx_fh *fh, uint64_t off, void *buf,
	     uint32_t len, uint32_t *got, bool *eof)
{
	struct nfs_argop4 ops[4];
	struct io_out o = { .buf = buf, .len = len };
	struct stateid4 cur = current_sid();
	int r;

	if ((!c->v4 || !c->v4->up) && (r = nfsx4_session_open(c)) != 0)
		return r;
	op_putfh(&ops[0], fh);
	nc4_op_open_fh(&ops[1], c->v4, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE);
	op_simple(&ops[2], OP_READ);
	ops[2].u.opread.stateid = cur;
	ops[2].u.opread.offset = off;
	ops[2].u.opread.count = len;
	op_close(&ops[3], &cur);
	r = nc4_sync(c, ops, 4, x_io, &o);
	close_left(c, fh, &o);
	if (got)
		*got = r == 0 ? o.got : 0;
	if (eof)
		*eof = r == 0 && o.eof;
	return r;
}

int nfsx_read_plus(struct nfsx_ctx *c, const struct nfsx_fh *fh, uint64_t off, void *buf,
		   uint32_t len, uint32_t *got, bool *eof, uint32_t *hole_bytes)
{
	struct nfs_argop4 ops[4];
	struct io_out o = { .buf = buf, .len = len, .off = off };
	struct stateid4 cur = current_sid();
	int r;

	if (got)
		*got = 0;
	if (eof)
		*eof = false;
	if (hole_bytes)
		*hole_bytes = 0;
	if (!nc_is_v4(c))
		return -EOPNOTSUPP;
	if (nc_sync_forbidden(c))
		return -EDEADLK;
	if ((!c->v4 || !c->v4->up) && (r = nfsx4_session_open(c)) != 0)
		return r;
	if (c->v4->minor < 2)
		return -EOPNOTSUPP;
	op_putfh(&ops[0], fh);
	nc4_op_open_fh(&ops[1], c->v4, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE);
	op_simple(&ops[2], OP_READ_PLUS);
	ops[2].u.opread_plus.rpa_stateid = cur;
	ops[2].u.opread_plus.rpa_offset = off;
	ops[2].u.opread_plus.rpa_count = len;
	op_close(&ops[3], &cur);
	r = nc4_sync(c, ops, 4, x_io, &o);
	close_left(c, fh, &o);
	if (r == 0) {
		if (got)
			*got = o.got;
		if (eof)
			*eof = o.eof;
		if (hole_bytes)
			*hole_bytes = o.holes;
	}
	return r;
}

int nc4_write(struct nfsx_ctx *c, const struct nfsx_fh *fh, uint64_t off, const void *buf,
	      uint32_t len, enum stable_how how, uint32_t *written, uint8_t *verf)
{
	struct nfs_argop4 ops[4];
	struct io_out o = { .verf = verf };
	struct stateid4 cur = current_sid();
	int r;

	if ((!c->v4 || !c->v4->up) && (r = nfsx4_session_open(c)) != 0)
		return r;
	op_putfh(&ops[0], fh);
	nc4_op_open_fh(&ops[1], c->v4, OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_NONE);
	op_simple(&ops[2], OP_WRITE);
	ops[2].u.opwrite.stateid = cur;
	ops[2].u.opwrite.offset = off;
	/* stable_how and stable_how4 have the same values */
	ops[2].u.opwrite.stable = (enum stable_how4)how;
	ops[2].u.opwrite.data.data = buf;
	ops[2].u.opwrite.data.len = len;
	op_close(&ops[3], &cur);
	/* Data behind which CLOSE follows are encoded into the call, which
	 * the core bounds; a large WRITE goes last (zero copy) and its CLOSE
	 * on its own (close_left). */
	r = nc4_sync(c, ops, len > NC_CALL_MAX / 2 ? 3 : 4, x_io, &o);
	close_left(c, fh, &o);
	if (written)
		*written = r == 0 ? o.written : 0;
	return r;
}

static int x_commit(const struct nfsx4_res *r, void *out)
{
	const struct nfs_resop4 *x = res_of(r, OP_COMMIT);

	if (r->status != NFS4_OK)
		return (int)r->status;
	if (!x)
		return -EPROTO;
	if (out)
		memcpy(out, x->u.opcommit.u.resok4.writeverf.val, NFS4_VERIFIER_SIZE);
	return 0;
}

int nc4_commit(struct nfsx_ctx *c, const struct nfsx_fh *fh, uint8_t *verf)
{
	struct nfs_argop4 ops[2];

	op_putfh(&ops[0], fh);
	op_simple(&ops[1], OP_COMMIT);
	return nc4_sync(c, ops, 2, x_commit, verf);
}

/* A fattr4 of the mode alone (or the size alone). */
struct one_attr {
	uint32_t w[2];
	uint8_t v[8];
};

static void attr_mode(struct one_attr *a, struct fattr4 *f, uint32_t mode)
{
	memset(a, 0, sizeof(*a));
	a->w[1] = 1u << (FATTR4_MODE - 32);
	xdr__put32(a->v, mode & 07777);
	f->attrmask.len = 2;
	f->attrmask.val = a->w;
	f->attr_vals.data = a->v;
	f->attr_vals.len = 4;
}

int nc4_create(struct nfsx_ctx *c, const struct nfsx_fh *dir, const char *name,
	       uint32_t mode, bool exclusive, struct nfsx_fh *fh)
{
	struct nfs_argop4 ops[4];
	struct nfsx_fh tmp;
	struct io_out o = { .fh = fh ? fh : &tmp };
	struct stateid4 cur = current_sid();
	struct one_attr m;
	struct OPEN4args *a;
	size_t n = strlen(name);
	int r;

	if (n > 255)
		return NFS4ERR_NAMETOOLONG;
	if ((!c->v4 || !c->v4->up) && (r = nfsx4_session_open(c)) != 0)
		return r;
	op_putfh(&ops[0], dir);
	nc4_op_open_fh(&ops[1], c->v4, OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_NONE);
	a = &ops[1].u.opopen;
	a->openhow.opentype = OPEN4_CREATE;
	a->openhow.u.how.mode = exclusive ? GUARDED4 : UNCHECKED4;
	attr_mode(&m, &a->openhow.u.how.u.createattrs, mode);
	a->claim.claim = CLAIM_NULL;
	a->claim.u.file.data = (const uint8_t *)name;
	a->claim.u.file.len = (uint32_t)n;
	op_simple(&ops[2], OP_GETFH);
	op_close(&ops[3], &cur);
	r = nc4_sync(c, ops, 4, x_io, &o);
	if (o.opened) {
		/* Opened, not closed: close the file found by its name. */
		op_name(&ops[1], OP_LOOKUP, name, n);
		op_close(&ops[2], &o.sid);
		nc4_sync(c, ops, 3, status_only, NULL);
	}
	return r;
}

int nc4_truncate(struct nfsx_ctx *c, const struct nfsx_fh *fh, uint64_t size)
{
	struct nfs_argop4 ops[2];
	uint32_t w[1] = { 1u << FATTR4_SIZE };
	uint8_t v[8];

	xdr__put32(v, (uint32_t)(size >> 32));
	xdr__put32(v + 4, (uint32_t)size);
	op_putfh(&ops[0], fh);
	op_simple(&ops[1], OP_SETATTR);
	/* the anonymous stateid: no open of ours covers the change */
	ops[1].u.opsetattr.obj_attributes.attrmask.len = 1;
	ops[1].u.opsetattr.obj_attributes.attrmask.val = w;
	ops[1].u.opsetattr.obj_attributes.attr_vals.data = v;
	ops[1].u.opsetattr.obj_attributes.attr_vals.len = 8;
	return nc4_sync(c, ops, 2, status_only, NULL);
}

int nc4_mkdir(struct nfsx_ctx *c, const struct nfsx_fh *dir, const char *name, uint32_t mode,
	      struct nfsx_fh *fh)
{
	struct nfs_argop4 ops[3];
	struct nfsx_fh tmp;
	struct fh_attr_out o = { fh ? fh : &tmp, NULL, NULL };
	struct one_attr m;
	size_t n = strlen(name);

	if (n > 255)
		return NFS4ERR_NAMETOOLONG;
	op_putfh(&ops[0], dir);
	op_simple(&ops[1], OP_CREATE);
	ops[1].u.opcreate.objtype.type = NF4DIR;
	ops[1].u.opcreate.objname.data = (const uint8_t *)name;
	ops[1].u.opcreate.objname.len = (uint32_t)n;
	attr_mode(&m, &ops[1].u.opcreate.createattrs, mode);
	op_simple(&ops[2], OP_GETFH);
	return nc4_sync(c, ops, 3, x_fh_attr, &o);
}

int nc4_remove(struct nfsx_ctx *c, const struct nfsx_fh *dir, const char *name)
{
	struct nfs_argop4 ops[2];
	size_t n = strlen(name);

	if (n > 255)
		return NFS4ERR_NAMETOOLONG;
	op_putfh(&ops[0], dir);
	op_name(&ops[1], OP_REMOVE, name, n);
	return nc4_sync(c, ops, 2, status_only, NULL);
}
