/* SPDX-License-Identifier: MIT */
/*
 * The filehandle operations: PUTFH, PUTROOTFH, PUTPUBFH, GETFH, SAVEFH,
 * RESTOREFH, LOOKUP, LOOKUPP (RFC 7530 sections 16.20-16.23, 16.13,
 * 16.14, 16.27, 16.28).
 *
 * DESIGN
 * - The current filehandle is a pseudo directory or an object of an
 *   export (internal.h). Stepping from a pseudo directory to the export
 *   attached below it resolves the export's root with its client rules;
 *   LOOKUPP from an export's root climbs back into the pseudo file
 *   system, to the directory holding the export.
 * - A client sees only the pseudo directories on the way to an export
 *   it may use (export_pseudo_visible), as knfsd's mountd-built pseudo
 *   root shows; the others are NOENT, like missing names.
 * - A LOOKUP result becomes the current filehandle through its handle
 *   (export_resolve), so that it is held in the open-object cache like
 *   any PUTFH, with the rules of the export the name led into (LOOKUP
 *   crosses mount points as NFSv3's does, crossing.c).
 * - Names as knfsd checks them (check_filename): empty is INVAL, longer
 *   than NAME_MAX NAMETOOLONG, a "/" (or a NUL) BADNAME; "." and ".."
 *   are BADNAME for LOOKUP (LOOKUPP climbs). UTF-8 is not checked, as
 *   with knfsd: names are bytes to a POSIX file system.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "nfs4/internal.h"

void nfs4_fh_clear(struct nfs4_fh *f)
{
	if (f->kind == NFS4_FH_OBJ)
		export_release(&f->o);
	f->kind = NFS4_FH_NONE;
	f->have_sid = false;
}

const struct stateid4 *nfs4_sid(const struct nfs4_compound *c, const struct stateid4 *s)
{
	static const uint8_t zero[NFS4_OTHER_SIZE];
	/* a special "other" with a seqid no special stateid has */
	static const struct stateid4 none = {
		.seqid = 5,
		.other = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	};

	if (c->minorversion == 0 || s->seqid != 1 || memcmp(s->other, zero, sizeof(zero)) != 0)
		return s;
	return c->cur.have_sid ? &c->cur.sid : &none;
}

void nfs4_set_sid(struct nfs4_compound *c, const struct stateid4 *sid)
{
	c->cur.sid = *sid;
	c->cur.have_sid = true;
}

/* The result of resolving a handle or a root into @f (cleared first). */
static enum nfsstat4 set_obj(struct nfs4_compound *c, struct nfs4_fh *f, int r,
			     struct export_obj *o)
{
	(void)c;
	nfs4_fh_clear(f);
	if (r < 0)
		return nfs4_errno(r);
	f->kind = NFS4_FH_OBJ;
	f->o = *o;
	return NFS4_OK;
}

static bool admits(const struct nfsx_export *e, void *arg)
{
	struct rpc_req *req = arg;
	const struct nfsx_export_client *cl = export_match(req, e);

	return cl && exports_port_ok(cl, req->peer);
}

/* The current filehandle becomes pseudo node @i, or the export attached there. */
static enum nfsstat4 enter_node(struct nfs4_compound *c, uint32_t i)
{
	const struct export_pseudo *p = &c->snap->pseudo;
	struct export_obj o;

	if (p->nodes[i].exp)
		return set_obj(c, &c->cur, export_resolve_root(c->req, p->nodes[i].exp, &o), &o);
	nfs4_fh_clear(&c->cur);
	c->cur.kind = NFS4_FH_PSEUDO;
	c->cur.node = i;
	return NFS4_OK;
}

static enum nfsstat4 root_fh(struct nfs4_compound *c)
{
	const struct export_pseudo *p = &c->snap->pseudo;
	struct export_obj o;

	if (p->root_exp)
		return set_obj(c, &c->cur, export_resolve_root(c->req, p->root_exp, &o), &o);
	if (p->n == 0)
		return NFS4ERR_NOENT;   /* no export at all */
	return enter_node(c, 0);
}

enum nfsstat4 nfs4_putrootfh(struct nfs4_compound *c, const struct nfs_argop4 *a,
			     struct nfs_resop4 *r)
{
	(void)a;
	return r->u.opputrootfh.status = root_fh(c);
}

/* knfsd answers PUTPUBFH as PUTROOTFH: there is no public filehandle of its own. */
enum nfsstat4 nfs4_putpubfh(struct nfs4_compound *c, const struct nfs_argop4 *a,
			    struct nfs_resop4 *r)
{
	(void)a;
	return r->u.opputpubfh.status = root_fh(c);
}

enum nfsstat4 nfs4_putfh(struct nfs4_compound *c, const struct nfs_argop4 *a,
			 struct nfs_resop4 *r)
{
	const nfs_fh4 *fh = &a->u.opputfh.object;
	struct export_obj o;
	uint32_t node;
	int k;

	/* on a loop: the handle resolved before the COMPOUND ran */
	if (c->pre && c->op_index < NFS4_INLINE_OPS &&
	    c->pre[c->op_index].kind != NFS4_FH_NONE) {
		nfs4_fh_clear(&c->cur);
		c->cur = c->pre[c->op_index];
		c->pre[c->op_index].kind = NFS4_FH_NONE;
		return r->u.opputfh.status = NFS4_OK;
	}
	if (fh->len > NFS4_FHSIZE)
		return r->u.opputfh.status = NFS4ERR_BADHANDLE;
	k = export_pseudo_resolve(c->snap, fh->data, fh->len, &node);
	if (k < 0) {
		nfs4_fh_clear(&c->cur);
		return r->u.opputfh.status = nfs4_errno(k);
	}
	if (k == 1) {
		nfs4_fh_clear(&c->cur);
		c->cur.kind = NFS4_FH_PSEUDO;
		c->cur.node = node;
		return r->u.opputfh.status = NFS4_OK;
	}
	return r->u.opputfh.status =
		set_obj(c, &c->cur, export_resolve(c->req, fh->data, fh->len, false, &o), &o);
}

enum nfsstat4 nfs4_getfh(struct nfs4_compound *c, const struct nfs_argop4 *a,
			 struct nfs_resop4 *r)
{
	struct GETFH4res *res = &r->u.opgetfh;
	int err;

	(void)a;
	switch (c->cur.kind) {
	case NFS4_FH_NONE:
		return res->status = NFS4ERR_NOFILEHANDLE;
	case NFS4_FH_PSEUDO:
		if (export_pseudo_handle(export_fh_key, &c->snap->pseudo, c->cur.node,
					 &c->fhbuf) < 0)
			return res->status = NFS4ERR_SERVERFAULT;
		break;
	case NFS4_FH_OBJ:
		err = c->cur.o.vexp->ops->handle(export_fh_key, c->cur.o.vexp, &c->cur.o.obj,
						 &c->fhbuf);
		if (err < 0)
			return res->status = nfs4_errno(err);
		break;
	}
	res->u.resok4.object.data = c->fhbuf.data;
	res->u.resok4.object.len = c->fhbuf.len;
	return res->status = NFS4_OK;
}

/* @dst = @src, each holding its own. */
static void fh_copy(struct nfs4_fh *dst, const struct nfs4_fh *src)
{
	nfs4_fh_clear(dst);
	dst->kind = src->kind;
	dst->node = src->node;
	if (src->kind == NFS4_FH_OBJ)
		export_obj_dup(&dst->o, &src->o);
	dst->have_sid = src->have_sid;
	dst->sid = src->sid;
}

enum nfsstat4 nfs4_savefh(struct nfs4_compound *c, const struct nfs_argop4 *a,
			  struct nfs_resop4 *r)
{
	(void)a;
	if (c->cur.kind == NFS4_FH_NONE)
		return r->u.opsavefh.status = NFS4ERR_NOFILEHANDLE;
	fh_copy(&c->saved, &c->cur);
	return r->u.opsavefh.status = NFS4_OK;
}

enum nfsstat4 nfs4_restorefh(struct nfs4_compound *c, const struct nfs_argop4 *a,
			     struct nfs_resop4 *r)
{
	(void)a;
	if (c->saved.kind == NFS4_FH_NONE)
		return r->u.oprestorefh.status = NFS4ERR_RESTOREFH;
	fh_copy(&c->cur, &c->saved);
	return r->u.oprestorefh.status = NFS4_OK;
}

/* knfsd's check_filename, with "." and ".." refused too. */
enum nfsstat4 nfs4_check_name(const component4 *n)
{
	if (n->len == 0)
		return NFS4ERR_INVAL;
	if (n->len > NAME_MAX)
		return NFS4ERR_NAMETOOLONG;
	if (memchr(n->data, '/', n->len) || memchr(n->data, 0, n->len))
		return NFS4ERR_BADNAME;
	if ((n->len == 1 && n->data[0] == '.') ||
	    (n->len == 2 && n->data[0] == '.' && n->data[1] == '.'))
		return NFS4ERR_BADNAME;
	return NFS4_OK;
}

/* Is the current filehandle a directory? NOTDIR, or SYMLINK for a symlink. */
static enum nfsstat4 cur_dir(const struct nfs4_compound *c)
{
	if (c->cur.kind == NFS4_FH_NONE)
		return NFS4ERR_NOFILEHANDLE;
	if (c->cur.kind == NFS4_FH_PSEUDO)
		return NFS4_OK;
	if (!c->cur.o.have_st)
		return NFS4ERR_IO;
	if (S_ISDIR(c->cur.o.st.st_mode))
		return NFS4_OK;
	return S_ISLNK(c->cur.o.st.st_mode) ? NFS4ERR_SYMLINK : NFS4ERR_NOTDIR;
}

/* The object @obj, reached from @at's place (@to after crossing), becomes current. */
static enum nfsstat4 step_into(struct nfs4_compound *c, const struct export_obj *to,
			       struct vfs_obj *obj)
{
	struct vfs_export *v = to->vexp;
	struct export_obj o;
	struct nfsx_fh fh;
	int r = v->ops->handle(export_fh_key, v, obj, &fh);

	v->ops->release(obj);
	if (r < 0)
		return nfs4_errno(r);
	return set_obj(c, &c->cur, export_resolve(c->req, fh.data, fh.len, false, &o), &o);
}

/* @name (@len bytes) in the current directory becomes current. */
static enum nfsstat4 lookup_in(struct nfs4_compound *c, const uint8_t *name, uint32_t len)
{
	struct export_obj to;
	struct vfs_obj obj;
	uint32_t i;
	int r;

	if (c->cur.kind == NFS4_FH_PSEUDO) {
		i = export_pseudo_lookup(&c->snap->pseudo, c->cur.node, (const char *)name, len);
		if (i == PSEUDO_NONE ||
		    !export_pseudo_visible(&c->snap->pseudo, i, admits, c->req))
			return NFS4ERR_NOENT;
		return enter_node(c, i);
	}
	r = export_lookup_in(c->req, &c->cur.o, name, len, &to, &obj);
	if (r < 0)
		return nfs4_errno(r);
	return step_into(c, &to, &obj);
}

enum nfsstat4 nfs4_lookup(struct nfs4_compound *c, const struct nfs_argop4 *a,
			  struct nfs_resop4 *r)
{
	const component4 *n = &a->u.oplookup.objname;
	enum nfsstat4 st = cur_dir(c);

	if (st == NFS4_OK)
		st = nfs4_check_name(n);
	if (st == NFS4_OK)
		st = lookup_in(c, n->data, n->len);
	return r->u.oplookup.status = st;
}

enum nfsstat4 nfs4_lookupp(struct nfs4_compound *c, const struct nfs_argop4 *a,
			   struct nfs_resop4 *r)
{
	const struct export_pseudo *p = &c->snap->pseudo;
	enum nfsstat4 st = cur_dir(c);
	uint32_t i;

	(void)a;
	if (st != NFS4_OK)
		return r->u.oplookupp.status = st;
	if (c->cur.kind == NFS4_FH_PSEUDO) {
		if (c->cur.node == 0)
			return r->u.oplookupp.status = NFS4ERR_NOENT;
		c->cur.node = p->nodes[c->cur.node].parent;
		return r->u.oplookupp.status = NFS4_OK;
	}
	if (c->cur.o.have_st && c->cur.o.st.st_dev == c->cur.o.vexp->root_dev &&
	    c->cur.o.st.st_ino == c->cur.o.vexp->root_ino &&
	    c->cur.o.vexp == export_root_of(c->snap, c->cur.o.exp)) {
		/* the root of an export: into the pseudo file system */
		i = export_pseudo_node_of(p, c->cur.o.exp);
		if (i == PSEUDO_NONE || i == 0)
			return r->u.oplookupp.status = NFS4ERR_NOENT;
		nfs4_fh_clear(&c->cur);
		c->cur.kind = NFS4_FH_PSEUDO;
		c->cur.node = p->nodes[i].parent;
		return r->u.oplookupp.status = NFS4_OK;
	}
	return r->u.oplookupp.status = lookup_in(c, (const uint8_t *)"..", 2);
}

/*
 * SECINFO (RFC 7530 16.31, RFC 8881 18.29): the flavours with which
 * @name in the current directory may be reached (sec.c), never
 * WRONGSEC; in 4.0 the current filehandle stays.
 */
enum nfsstat4 nfs4_secinfo(struct nfs4_compound *c, const struct nfs_argop4 *a,
			   struct nfs_resop4 *r)
{
	const component4 *n = &a->u.opsecinfo.name;
	struct SECINFO4res *res = &r->u.opsecinfo;
	struct nfs4_fh keep = { .kind = NFS4_FH_NONE };
	enum nfsstat4 st = cur_dir(c);

	if (st == NFS4_OK)
		st = nfs4_check_name(n);
	if (st != NFS4_OK)
		return res->status = st;
	fh_copy(&keep, &c->cur);
	st = lookup_in(c, n->data, n->len);
	if (st == NFS4_OK)
		st = nfs4_sec_list(c, &c->cur, &res->u.resok4);
	fh_copy(&c->cur, &keep);
	nfs4_fh_clear(&keep);
	if (st != NFS4_OK)
		return res->status = st;
	/* RFC 8881 2.6.3.1.1.8: in 4.1 SECINFO consumes the current
	 * filehandle (what follows needs a PUTFH) */
	if (c->minorversion > 0)
		nfs4_fh_clear(&c->cur);
	return res->status = NFS4_OK;
}
