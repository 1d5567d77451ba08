/* SPDX-License-Identifier: MIT */
/*
 * READDIR (RFC 7530 section 16.24, RFC 8881 section 18.23).
 *
 * DESIGN
 * - An export's directory is listed by the export's readdir (vfs/ops.h:
 *   the listing path and cache NFSv3 uses, cookies stable while the
 *   directory changes, linear in its size); a pseudo directory lists the
 *   pseudo directories and exports below it that the client may see.
 * - Attributes and handles are taken per entry (the listing's "plus")
 *   only when asked for something beyond rdattr_error, fileid and
 *   mounted_on_fileid, which the directory itself gives.
 * - Each entry is encoded into a scratch buffer first: whether it fits
 *   maxcount is known only then (its attributes' size varies), and an
 *   entry that does not fit is left for the next call. maxcount counts
 *   READDIR4resok whole (verifier, entries, list end and eof), as knfsd.
 *   dircount is a hint only (knfsd ignores it too).
 * - "." and ".." are not listed (RFC 7530 16.24.4); cookies 1 and 2 are
 *   refused (BAD_COOKIE) since no entry is ever given them: they are the
 *   offsets of the dot entries. The cookie verifier is zero and not
 *   checked: a cookie stays valid while the directory changes.
 * - An entry whose attributes cannot be had (removed meanwhile, a mount
 *   point another file system covers) carries rdattr_error NOENT when the
 *   client asked for it, and no attribute otherwise.
 * - An export in a pseudo directory that the call's flavour may not use
 *   (sec=) carries only rdattr_error WRONGSEC; when rdattr_error was not
 *   asked for, the READDIR fails with WRONGSEC (RFC 7530 16.24.4: no
 *   other way to tell), as knfsd's.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <string.h>

#include "nfs4/attr.h"
#include "nfs4/internal.h"
#include "vfs/dir.h"

/* The most one entry4 takes: list marker, cookie, name, attributes. */
#define ENTRY_MAX (4u + 8u + 4u + NAME_MAX + 3u + NFS4_ATTR_ENCODED_MAX)

struct rd {
	struct nfs4_compound *c;
	const bitmap4 *req;
	struct xdr_enc *e;
	uint32_t used, max, nent;
	bool plus, failed;
	int sf_err;                  /* 1: sf not taken yet, 0: taken, < 0: failed */
	struct vfs_statfs sf;        /* the directory's file system, once a call */
	uint8_t scratch[ENTRY_MAX];
	uint32_t slen;               /* the entry encoded in scratch */
};

static bool only_names(const bitmap4 *req)
{
	uint32_t w0 = req->len > 0 ? req->val[0] : 0, w1 = req->len > 1 ? req->val[1] : 0;
	uint32_t i;

	w0 &= ~(1u << FATTR4_RDATTR_ERROR | 1u << FATTR4_FILEID);
	w1 &= ~(1u << (FATTR4_MOUNTED_ON_FILEID - 32));
	for (i = 2; i < req->len; i++)
		if (req->val[i])
			return false;
	return !w0 && !w1;
}

/* Encode the entry into scratch. */
static bool encode_entry(struct rd *r, const uint8_t *name, uint32_t namelen, uint64_t cookie,
			 const bitmap4 *req, const struct nfs4_attr_src *s)
{
	struct xdr_enc e;

	xdr_enc_init(&e, r->scratch, sizeof(r->scratch));
	if (!xdr_enc_bool(&e, true) || !xdr_enc_u64(&e, cookie) ||
	    !xdr_enc_bytes(&e, name, namelen, NAME_MAX) || !nfs4_attr_encode(&e, req, s))
		return false;
	r->slen = (uint32_t)xdr_enc_len(&e);
	return true;
}

/* Room for the entry in scratch (the list end and eof after it)? */
static bool fits(const struct rd *r)
{
	return r->used + r->slen + 8 <= r->max;
}

static void emit(struct rd *r)
{
	memcpy(xdr_enc_reserve(r->e, r->slen), r->scratch, r->slen);
	r->used += r->slen;
	r->nent++;
}

/* ---- an export's directory ---- */

static bool obj_room(void *arg, const struct vfs_dirent *d)
{
	struct rd *r = arg;
	const struct export_obj *o = &r->c->cur.o;
	const bitmap4 *req = r->req;
	uint32_t words[2] = { 0, 0 };
	bitmap4 some = { 2, words };
	struct nfs4_attr_src s;
	struct nfsx_fh fh;
	struct stat st;

	r->slen = 0;
	if (d->name[0] == '.' && (d->namelen == 1 || (d->namelen == 2 && d->name[1] == '.')))
		return true;   /* not listed: put skips it */
	nfs4_src_base(r->c, &s);
	if (d->st && !export_crossing_point(o, d->st)) {
		nfs4_src_obj(r->c, o, d->st, &s);
		/* every entry is on the directory's file system (a mount
		 * point is not given attributes): one statfs a call */
		if (r->sf_err == 1 && nfs4_attr_need_statfs(req))
			r->sf_err = o->vexp->ops->statfs(o->vexp, &o->obj, &r->sf);
		if (r->sf_err == 0)
			s.sf = &r->sf;
		if (d->fhlen && d->fhlen <= FH_MAX) {
			fh.len = d->fhlen;
			memcpy(fh.data, d->fh, d->fhlen);
			s.fh = &fh;
		}
	} else {
		/* What the listing gives: fileid and mounted_on_fileid, and
		 * rdattr_error NOENT when more was asked and cannot be had. */
		memset(&st, 0, sizeof(st));
		st.st_ino = (ino_t)d->ino;
		nfs4_src_obj(r->c, o, &st, &s);
		s.mounted_on_fileid = d->ino;
		if (r->plus)
			s.rdattr_error = NFS4ERR_NOENT;
		words[0] = (req->len > 0 ? req->val[0] : 0) &
			   (1u << FATTR4_RDATTR_ERROR | 1u << FATTR4_FILEID);
		words[1] = (req->len > 1 ? req->val[1] : 0) &
			   (1u << (FATTR4_MOUNTED_ON_FILEID - 32));
		req = &some;
	}
	if (!encode_entry(r, (const uint8_t *)d->name, d->namelen, d->cookie, req, &s)) {
		r->failed = true;
		return false;
	}
	return fits(r);
}

static void obj_put(void *arg, const struct vfs_dirent *d)
{
	struct rd *r = arg;

	(void)d;
	if (r->slen)
		emit(r);
}

/* ---- a pseudo directory ---- */

static bool admits(const struct nfsx_export *e, void *arg)
{
	struct rpc_req *req = arg;
	const struct nfsx_export_client *cl = export_match(req, e);

	return cl && exports_port_ok(cl, req->peer);
}

static bool asks_rdattr_error(const bitmap4 *req)
{
	return req->len > 0 && (req->val[0] & 1u << FATTR4_RDATTR_ERROR);
}

static enum nfsstat4 list_pseudo(struct rd *r, uint64_t cookie, bool *eof)
{
	static uint32_t error_word[1] = { 1u << FATTR4_RDATTR_ERROR };
	static const bitmap4 only_error = { 1, error_word };
	struct nfs4_compound *c = r->c;
	const struct export_pseudo *p = &c->snap->pseudo;
	uint32_t i, k = 0;

	*eof = false;
	for (i = p->nodes[c->cur.node].child; i != PSEUDO_NONE; i = p->nodes[i].next) {
		const struct export_pseudo_node *x = &p->nodes[i];
		struct nfs4_attr_src s;
		struct vfs_statfs sf;
		struct stat st;
		struct export_obj o;
		bool held = false, resolved;

		/* cookies 3, 4, ...: the child's place in the list */
		if (++k + 2 <= cookie)
			continue;
		if (!export_pseudo_visible(p, i, admits, c->req))
			continue;
		nfs4_src_base(c, &s);
		resolved = x->exp && export_resolve_root(c->req, x->exp, &o) == 0;
		if (resolved && !export_sec_ok(c->req, o.client)) {
			/* an export the call's flavour may not use: its
			 * attributes are not given (knfsd's check_nfsd_access
			 * in its READDIR) */
			export_release(&o);
			if (!asks_rdattr_error(r->req))
				return NFS4ERR_WRONGSEC;
			s.rdattr_error = NFS4ERR_WRONGSEC;
			if (!encode_entry(r, (const uint8_t *)x->name, (uint32_t)strlen(x->name),
					  (uint64_t)k + 2, &only_error, &s))
				return NFS4ERR_SERVERFAULT;
			if (!fits(r))
				return NFS4_OK;
			emit(r);
			continue;
		}
		if (resolved && o.vexp->ops->getattr(o.vexp, &o.obj, &st) == 0) {
			held = true;
			nfs4_src_obj(c, &o, &st, &s);
			if (nfs4_attr_need_statfs(r->req) &&
			    o.vexp->ops->statfs(o.vexp, &o.obj, &sf) == 0)
				s.sf = &sf;
			s.mounted_on_fileid = x->id;
		} else {
			if (x->exp)
				export_release(&o);
			nfs4_src_pseudo(c, i, &st, &sf, &s);
		}
		if (!encode_entry(r, (const uint8_t *)x->name, (uint32_t)strlen(x->name),
				  (uint64_t)k + 2, r->req, &s)) {
			if (held)
				export_release(&o);
			return NFS4ERR_SERVERFAULT;
		}
		if (held)
			export_release(&o);
		if (!fits(r))
			return NFS4_OK;
		emit(r);
	}
	*eof = true;
	return NFS4_OK;
}

enum nfsstat4 nfs4_readdir(struct nfs4_compound *c, const struct nfs_argop4 *a,
			   struct nfs_resop4 *r)
{
	static const uint8_t zero_verf[NFS4_VERIFIER_SIZE];
	const struct READDIR4args *ra = &a->u.opreaddir;
	struct rpc_req *rq = c->req;
	struct rd rdbuf, *rd = &rdbuf;
	size_t at;
	bool eof = false;
	enum nfsstat4 st;
	uint32_t maxcount = ra->maxcount;
	int err;

	if (c->cur.kind == NFS4_FH_NONE)
		return r->u.opreaddir.status = NFS4ERR_NOFILEHANDLE;
	if (c->cur.kind == NFS4_FH_OBJ && !S_ISDIR(c->cur.o.st.st_mode))
		return r->u.opreaddir.status = NFS4ERR_NOTDIR;
	if (ra->cookie == 1 || ra->cookie == 2)
		return r->u.opreaddir.status = NFS4ERR_BAD_COOKIE;
	st = nfs4_attr_check_request(&ra->attr_request);
	if (st != NFS4_OK)
		return r->u.opreaddir.status = st;
	/* the reply's own limit, with room for the rest of the COMPOUND */
	if (maxcount > 1024u * 1024u)
		maxcount = 1024u * 1024u;
	/* verifier, list end, eof: less cannot hold even an empty list */
	if (maxcount < 16)
		return r->u.opreaddir.status = NFS4ERR_TOOSMALL;
	at = xdr_enc_len(&rq->enc);
	if (rpc_req_reply_reserve(rq, at + 8 + maxcount) < 0)
		return r->u.opreaddir.status = NFS4ERR_RESOURCE;
	memset(rd, 0, offsetof(struct rd, scratch));
	rd->sf_err = 1;
	rd->c = c;
	rd->req = &ra->attr_request;
	rd->e = &rq->enc;
	rd->max = maxcount;
	rd->used = 8;
	rd->plus = !only_names(&ra->attr_request);
	xdr_enc_u32(&rq->enc, OP_READDIR);
	xdr_enc_u32(&rq->enc, NFS4_OK);
	xdr_enc_opaque_fixed(&rq->enc, zero_verf, sizeof(zero_verf));
	if (c->cur.kind == NFS4_FH_PSEUDO) {
		st = list_pseudo(rd, ra->cookie, &eof);
	} else {
		const struct export_obj *o = &c->cur.o;
		struct vfs_dir_sink sink = {
			.plus = rd->plus, .room = obj_room, .put = obj_put, .arg = rd,
			.want = (maxcount < 32768 ? maxcount : 32768) / 2 + 1024,
		};

		err = o->vexp->ops->readdir(export_fh_key, o->vexp, &o->obj, &o->st, ra->cookie,
					    &sink, &eof);
		st = err < 0 ? nfs4_errno(err) : rd->failed ? NFS4ERR_SERVERFAULT : NFS4_OK;
	}
	if (st == NFS4_OK && rd->nent == 0 && !eof)
		st = NFS4ERR_TOOSMALL;
	if (st != NFS4_OK) {
		rq->enc.p = rq->enc.start + at;
		return r->u.opreaddir.status = st;
	}
	xdr_enc_bool(&rq->enc, false);
	xdr_enc_bool(&rq->enc, eof);
	c->encoded = true;
	return r->u.opreaddir.status = NFS4_OK;
}
