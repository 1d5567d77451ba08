/* SPDX-License-Identifier: MIT */
/*
 * Extended attributes of NFSv4.2 (RFC 8276): GETXATTR, SETXATTR,
 * LISTXATTRS, REMOVEXATTR, and the xattr_support attribute.
 *
 * DESIGN
 * - The user namespace only, as RFC 8276 defines it and knfsd serves it:
 *   the wire name has no prefix, the backend adds "user." (vfs/ops.h),
 *   and a listing shows only user names, without it. Linux holds a whole
 *   name to XATTR_NAME_MAX (255) bytes, so a wire name holds 250 at
 *   most (NAMETOOLONG beyond, as knfsd); an empty one, or one with a
 *   NUL byte no C call can name, is INVAL.
 * - Values up to XATTR_SIZE_MAX (64 KiB, Linux's limit): a longer
 *   SETXATTR is XATTR2BIG before the file system is asked; a value the
 *   file system itself cannot hold (-E2BIG, -ERANGE) is XATTR2BIG too.
 *   GETXATTR's value goes straight into the reply buffer (as READ's
 *   data), first into the room it has, and into room grown for 64 KiB
 *   only when the value did not fit (ERANGE: no size asked first, which
 *   a change between two calls could make wrong); a session whose
 *   replies are smaller gets REP_TOO_BIG from compound.c.
 * - SETXATTR4_CREATE and _REPLACE are XATTR_CREATE and XATTR_REPLACE:
 *   the file system decides atomically, EEXIST -> EXIST, ENODATA ->
 *   NOXATTR. No such attribute anywhere is NOXATTR; a file system that
 *   refuses user xattrs (-EOPNOTSUPP: tmpfs before Linux 6.6) NOTSUPP.
 *   user xattrs exist only on regular files and directories (Linux's
 *   xattr_permission): elsewhere a get is NOXATTR, a set PERM.
 * - Access as knfsd asks it (NFSD_MAY_READ to get and list,
 *   NFSD_MAY_WRITE to set and remove), through export_access as the
 *   caller, after a read-only export or pseudo directory (ROFS for a
 *   change; NOTSUPP to read, xattr_support being false there).
 * - SETXATTR and REMOVEXATTR are changes of the file: as SETATTR, the
 *   file is marked changing and other clients' delegations of it are
 *   recalled first (nfs4_break_obj; DELAY meanwhile), and cached
 *   listing attributes dropped after (vfs_dir_changed). Their
 *   change_info4 is the file's change attribute (its ctime, which Linux
 *   moves on every xattr change) read before and after, not atomic.
 * - LISTXATTRS's cookie is the index of the next name in the file's
 *   list (0: the start), a cookie past its end BAD_COOKIE; the result
 *   is held to lxa_maxcount counting its XDR (cookie, array length,
 *   each name's length and padded bytes, eof), TOOSMALL when not even
 *   the next name fits. The list may change between two calls: names
 *   are then skipped or repeated, as READDIR's entries by index would.
 *   The result is encoded here, straight into the reply.
 * - xattr_support asks the file system once per GETATTR that wants it
 *   (a get of a user name no one sets: -ENODATA means user xattrs work).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include "nfs4/internal.h"
#include "vfs/dir.h"

/* Linux's limits (linux/limits.h): a whole name, a value, a listing. */
#define XA_NAME_MAX 255u
#define XA_SIZE_MAX 65536u
#define XA_LIST_MAX 65536u
#define XA_PREFIX_LEN 5u   /* "user." */

/* The errno of an xattr call as its nfsstat4 (RFC 8276 8.4). */
static enum nfsstat4 xa_errno(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case ENODATA: return NFS4ERR_NOXATTR;
	case E2BIG:
	case ERANGE: return NFS4ERR_XATTR2BIG;
	default: return nfs4_errno(err);
	}
}

/* The wire name @k as a C string into @buf, checked (see DESIGN). */
static enum nfsstat4 xa_name(const xattrkey4 *k, char buf[XA_NAME_MAX + 1])
{
	if (k->len == 0 || memchr(k->data, 0, k->len))
		return NFS4ERR_INVAL;
	if (k->len > XA_NAME_MAX - XA_PREFIX_LEN)
		return NFS4ERR_NAMETOOLONG;
	memcpy(buf, k->data, k->len);
	buf[k->len] = '\0';
	return NFS4_OK;
}

/*
 * The current filehandle as an object whose xattrs the caller may read
 * (@write false) or change.
 * Return values: NFS4_OK, or the status that answers the operation.
 */
static enum nfsstat4 xa_obj(const struct nfs4_compound *c, bool write)
{
	const struct export_obj *o = &c->cur.o;

	if (c->cur.kind == NFS4_FH_NONE)
		return NFS4ERR_NOFILEHANDLE;
	if (c->cur.kind == NFS4_FH_PSEUDO)
		return write ? NFS4ERR_ROFS : NFS4ERR_NOTSUPP;
	if (!o->have_st)
		return NFS4ERR_IO;
	if (write && !o->client->opts.rw)
		return NFS4ERR_ROFS;
	if (!o->vexp->ops->getxattr || !o->vexp->ops->setxattr || !o->vexp->ops->listxattr ||
	    !o->vexp->ops->removexattr)
		return NFS4ERR_NOTSUPP;
	if (write ? !export_access(o, EXPORT_ACCESS_MODIFY) :
		    !export_access(o, EXPORT_ACCESS_READ))
		return NFS4ERR_ACCESS;
	return NFS4_OK;
}

bool nfs4_xattr_supported(const struct export_obj *o)
{
	char b[1];

	if (!o->vexp->ops->getxattr)
		return false;
	return o->vexp->ops->getxattr(o->vexp, &o->obj, "nfsx.probe", b, 0) != -EOPNOTSUPP;
}

enum nfsstat4 nfs4_getxattr(struct nfs4_compound *c, const struct nfs_argop4 *a,
			    struct nfs_resop4 *r)
{
	const struct export_obj *o = &c->cur.o;
	struct rpc_req *rq = c->req;
	char name[XA_NAME_MAX + 1];
	uint8_t *head;
	enum nfsstat4 st;
	size_t at;
	ssize_t n;

	st = xa_obj(c, false);
	if (st == NFS4_OK)
		st = xa_name(&a->u.opgetxattr.gxa_name, name);
	if (st != NFS4_OK)
		return r->u.opgetxattr.gxr_status = st;
	at = xdr_enc_len(&rq->enc);
	/* resop, status, length, then the value and its padding: into the
	 * room the reply has, and only when the value is longer (ERANGE)
	 * into room grown for the longest */
	n = -ERANGE;
	if (xdr_enc_room(&rq->enc) >= 12 + 4 + 256) {
		head = xdr_enc_reserve(&rq->enc, 12);
		n = o->vexp->ops->getxattr(o->vexp, &o->obj, name, head + 12,
					   (xdr_enc_room(&rq->enc) - 4) & ~(size_t)3);
		rq->enc.p = rq->enc.start + at;
	}
	if (n == -ERANGE) {
		if (rpc_req_reply_reserve(rq, at + 12 + XA_SIZE_MAX + 4) < 0 ||
		    !(head = xdr_enc_reserve(&rq->enc, 12)))
			return r->u.opgetxattr.gxr_status = NFS4ERR_RESOURCE;
		n = o->vexp->ops->getxattr(o->vexp, &o->obj, name, head + 12, XA_SIZE_MAX);
		rq->enc.p = rq->enc.start + at;
	}
	if (n < 0)
		return r->u.opgetxattr.gxr_status = xa_errno((int)n);
	xdr_enc_u32(&rq->enc, OP_GETXATTR);
	xdr_enc_u32(&rq->enc, NFS4_OK);
	xdr_enc_u32(&rq->enc, (uint32_t)n);
	rq->enc.p += n;
	memset(rq->enc.p, 0, xdr_pad((uint32_t)n) - (size_t)n);
	rq->enc.p += xdr_pad((uint32_t)n) - (size_t)n;
	c->encoded = true;
	return r->u.opgetxattr.gxr_status = NFS4_OK;
}

/* What SETXATTR and REMOVEXATTR share after their own checks: the
 * recall of delegations, then @change (1: set @sa, 0: remove @name),
 * with the file's change attribute around it into @ci. */
static enum nfsstat4 xa_change(struct nfs4_compound *c, const char *name,
			       const struct SETXATTR4args *sa, struct change_info4 *ci)
{
	const struct export_obj *o = &c->cur.o;
	const struct vfs_export *v = o->vexp;
	enum nfsstat4 st;
	uint64_t before;
	int err;

	st = nfs4_break_obj(c, o, 0);
	if (st != NFS4_OK)
		return st;
	before = nfs4_change_of(o);
	if (sa) {
		int flags = sa->sxa_option == SETXATTR4_CREATE	? XATTR_CREATE :
			    sa->sxa_option == SETXATTR4_REPLACE ? XATTR_REPLACE :
								  0;

		err = v->ops->setxattr(v, &o->obj, name, sa->sxa_value.data, sa->sxa_value.len,
				       flags);
	} else {
		err = v->ops->removexattr(v, &o->obj, name);
	}
	if (err < 0)
		return xa_errno(err);
	vfs_dir_changed();
	ci->atomic = false;
	ci->before = before;
	ci->after = nfs4_change_of(o);
	return NFS4_OK;
}

enum nfsstat4 nfs4_setxattr(struct nfs4_compound *c, const struct nfs_argop4 *a,
			    struct nfs_resop4 *r)
{
	const struct SETXATTR4args *sa = &a->u.opsetxattr;
	struct SETXATTR4res *res = &r->u.opsetxattr;
	char name[XA_NAME_MAX + 1];
	enum nfsstat4 st;

	st = xa_obj(c, true);
	if (st == NFS4_OK && sa->sxa_option != SETXATTR4_EITHER &&
	    sa->sxa_option != SETXATTR4_CREATE && sa->sxa_option != SETXATTR4_REPLACE)
		st = NFS4ERR_INVAL;
	if (st == NFS4_OK)
		st = xa_name(&sa->sxa_key, name);
	if (st == NFS4_OK && sa->sxa_value.len > XA_SIZE_MAX)
		st = NFS4ERR_XATTR2BIG;
	if (st == NFS4_OK)
		st = xa_change(c, name, sa, &res->u.sxr_info);
	return res->sxr_status = st;
}

enum nfsstat4 nfs4_removexattr(struct nfs4_compound *c, const struct nfs_argop4 *a,
			       struct nfs_resop4 *r)
{
	struct REMOVEXATTR4res *res = &r->u.opremovexattr;
	char name[XA_NAME_MAX + 1];
	enum nfsstat4 st;

	st = xa_obj(c, true);
	if (st == NFS4_OK)
		st = xa_name(&a->u.opremovexattr.rxa_name, name);
	if (st == NFS4_OK)
		st = xa_change(c, name, NULL, &res->u.rxr_info);
	return res->rxr_status = st;
}

/*
 * The names of @list (@len bytes, NUL-separated) from index @cookie on,
 * encoded as a LISTXATTRS4resok of at most @maxcount bytes.
 * Return values: NFS4_OK; BAD_COOKIE; TOOSMALL; RESOURCE.
 */
static enum nfsstat4 enc_list(struct xdr_enc *e, const char *list, size_t len, uint64_t cookie,
			      uint32_t maxcount)
{
	/* cookie, array length, eof */
	uint64_t used = 8 + 4 + 4, i = 0;
	uint32_t count = 0;
	size_t off = 0, first;
	uint8_t *count_at;

	for (; off < len && i < cookie; i++)
		off += strnlen(list + off, len - off) + 1;
	if (i < cookie)
		return NFS4ERR_BAD_COOKIE;
	first = off;
	/* how many fit */
	while (off < len) {
		size_t l = strnlen(list + off, len - off);

		if (used + 4 + xdr_pad((uint32_t)l) > maxcount)
			break;
		used += 4 + xdr_pad((uint32_t)l);
		off += l + 1;
		count++;
	}
	if (count == 0 && off < len)
		return NFS4ERR_TOOSMALL;
	if (!xdr_enc_u64(e, cookie + count) || !(count_at = xdr_enc_reserve(e, 4)))
		return NFS4ERR_RESOURCE;
	xdr__put32(count_at, count);
	for (off = first; count > 0; count--) {
		size_t l = strnlen(list + off, len - off);

		if (!xdr_enc_bytes(e, list + off, (uint32_t)l, XA_NAME_MAX))
			return NFS4ERR_RESOURCE;
		off += l + 1;
	}
	if (!xdr_enc_bool(e, off >= len))
		return NFS4ERR_RESOURCE;
	return NFS4_OK;
}

enum nfsstat4 nfs4_listxattrs(struct nfs4_compound *c, const struct nfs_argop4 *a,
			      struct nfs_resop4 *r)
{
	const struct LISTXATTRS4args *la = &a->u.oplistxattrs;
	const struct export_obj *o = &c->cur.o;
	struct rpc_req *rq = c->req;
	enum nfsstat4 st;
	char *list = NULL;
	ssize_t n = 0;
	size_t at;

	st = xa_obj(c, false);
	if (st == NFS4_OK && !(list = malloc(XA_LIST_MAX)))
		st = NFS4ERR_DELAY;
	if (st == NFS4_OK && (n = o->vexp->ops->listxattr(o->vexp, &o->obj, list, XA_LIST_MAX)) < 0)
		st = nfs4_errno((int)n);
	if (st != NFS4_OK) {
		free(list);
		return r->u.oplistxattrs.lxr_status = st;
	}
	at = xdr_enc_len(&rq->enc);
	/* never more than maxcount, nor than the names themselves and
	 * their XDR (each at least 4 + 4 bytes for 1 + NUL) */
	if (rpc_req_reply_reserve(rq, at + 8 + 16 + (la->lxa_maxcount < 4u * XA_LIST_MAX ?
						      la->lxa_maxcount : 4u * XA_LIST_MAX)) < 0) {
		free(list);
		return r->u.oplistxattrs.lxr_status = NFS4ERR_RESOURCE;
	}
	xdr_enc_u32(&rq->enc, OP_LISTXATTRS);
	xdr_enc_u32(&rq->enc, NFS4_OK);
	st = enc_list(&rq->enc, list, (size_t)n, la->lxa_cookie, la->lxa_maxcount);
	free(list);
	if (st != NFS4_OK) {
		rq->enc.p = rq->enc.start + at;
		return r->u.oplistxattrs.lxr_status = st;
	}
	c->encoded = true;
	return r->u.oplistxattrs.lxr_status = NFS4_OK;
}
