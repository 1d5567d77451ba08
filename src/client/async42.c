/* SPDX-License-Identifier: MIT */
/*
 * NFSv4.2 typed asynchronous wrappers (RFC 7862, RFC 8276): READ_PLUS,
 * SEEK, ALLOCATE, DEALLOCATE, CLONE, COPY and the four xattr
 * operations, each one COMPOUND built as async4.c builds NFSv4.1's
 * (SEQUENCE, PUTFH, the operation; CLONE and COPY with the source saved
 * first), under the operation's descriptor for statistics and with the
 * session's retries. The callback gets the operation's own result.
 *
 * DESIGN
 * - A session of minor version 1 sends none of them (a 4.1 server would
 *   answer OP_ILLEGAL): -EOPNOTSUPP before anything is queued, so that a
 *   caller that asked for "the highest version" learns at once.
 * - READ_PLUS's result is a list of data and hole segments; the generic
 *   decoder leaves the data as views into the reply, and
 *   nfsx4_read_plus_fill puts them at their place in the caller's buffer
 *   and zeros for the holes: one copy, as READ's data take. It checks the
 *   list as the server wrote it (in order, contiguous from the offset
 *   asked, data within the range), since a caller trusts the byte count
 *   it returns; holes are cut to the range (a server may describe the
 *   whole hole it found, RFC 7862 15.10.3).
 * - nfsx4_copy is synchronous (ca_synchronous): the server answers when
 *   the copy is done; a server that answers it with a callback id anyway
 *   leaves that to the caller (wr_callback_id is in the result).
 *   nfsx4_copy_async (copy42.c) is the asynchronous one, finished by
 *   CB_OFFLOAD.
 */
#include "client/nfs4.h"

#include <errno.h>
#include <string.h>

/* Only on a session that speaks minor version 2. */
static int need42(const struct nfsx_ctx *c)
{
	if (!c->v4)
		return -ENOTCONN;
	return c->v4->minor >= 2 ? 0 : -EOPNOTSUPP;
}

int nfsx4_read_plus(struct nfsx_ctx *c, const struct nfsx4_read_plus_args *a, nfsx_cb cb,
		    void *priv)
{
	int r = need42(c);

	return r ? r : nc4_send_op(c, &a->fh, OP_READ_PLUS, &a->args, sizeof(a->args), cb, priv);
}

int nfsx4_seek(struct nfsx_ctx *c, const struct nfsx4_seek_args *a, nfsx_cb cb, void *priv)
{
	int r = need42(c);

	return r ? r : nc4_send_op(c, &a->fh, OP_SEEK, &a->args, sizeof(a->args), cb, priv);
}

int nfsx4_allocate(struct nfsx_ctx *c, const struct nfsx4_allocate_args *a, nfsx_cb cb,
		   void *priv)
{
	int r = need42(c);

	return r ? r : nc4_send_op(c, &a->fh, OP_ALLOCATE, &a->args, sizeof(a->args), cb, priv);
}

int nfsx4_deallocate(struct nfsx_ctx *c, const struct nfsx4_deallocate_args *a, nfsx_cb cb,
		     void *priv)
{
	int r = need42(c);

	return r ? r : nc4_send_op(c, &a->fh, OP_DEALLOCATE, &a->args, sizeof(a->args), cb, priv);
}

int nfsx4_clone(struct nfsx_ctx *c, const struct nfsx4_clone_args *a, nfsx_cb cb, void *priv)
{
	int r = need42(c);

	return r ? r : nc4_send_two_fh(c, &a->src, &a->dst, OP_CLONE, &a->args, sizeof(a->args),
				       cb, priv);
}

int nfsx4_copy(struct nfsx_ctx *c, const struct nfsx4_copy_args *a, nfsx_cb cb, void *priv)
{
	struct COPY4args x;
	int r = need42(c);

	if (r)
		return r;
	memset(&x, 0, sizeof(x));
	x.ca_src_stateid = a->src_stateid;
	x.ca_dst_stateid = a->dst_stateid;
	x.ca_src_offset = a->src_offset;
	x.ca_dst_offset = a->dst_offset;
	x.ca_count = a->count;
	x.ca_consecutive = true;
	x.ca_synchronous = true;
	return nc4_send_two_fh(c, &a->src, &a->dst, OP_COPY, &x, sizeof(x), cb, priv);
}

/* ---- extended attributes (RFC 8276) ------------------------------------- */

static int xattr_name_ok(const xattrkey4 *k)
{
	return k->len >= 1 && k->len <= 255 ? 0 : -EINVAL;
}

int nfsx4_getxattr(struct nfsx_ctx *c, const struct nfsx4_getxattr_args *a, nfsx_cb cb,
		   void *priv)
{
	struct GETXATTR4args x = { a->name };
	int r = need42(c);

	if (!r)
		r = xattr_name_ok(&a->name);
	return r ? r : nc4_send_op(c, &a->fh, OP_GETXATTR, &x, sizeof(x), cb, priv);
}

int nfsx4_setxattr(struct nfsx_ctx *c, const struct nfsx4_setxattr_args *a, nfsx_cb cb,
		   void *priv)
{
	int r = need42(c);

	if (!r)
		r = xattr_name_ok(&a->args.sxa_key);
	return r ? r : nc4_send_op(c, &a->fh, OP_SETXATTR, &a->args, sizeof(a->args), cb, priv);
}

int nfsx4_listxattrs(struct nfsx_ctx *c, const struct nfsx4_listxattrs_args *a, nfsx_cb cb,
		     void *priv)
{
	int r = need42(c);

	return r ? r : nc4_send_op(c, &a->fh, OP_LISTXATTRS, &a->args, sizeof(a->args), cb, priv);
}

int nfsx4_removexattr(struct nfsx_ctx *c, const struct nfsx4_removexattr_args *a, nfsx_cb cb,
		      void *priv)
{
	struct REMOVEXATTR4args x = { a->name };
	int r = need42(c);

	if (!r)
		r = xattr_name_ok(&a->name);
	return r ? r : nc4_send_op(c, &a->fh, OP_REMOVEXATTR, &x, sizeof(x), cb, priv);
}

/* ---- READ_PLUS's contents into the caller's buffer ---------------------- */

int nfsx4_read_plus_fill(const struct READ_PLUS4res *res, uint64_t offset, uint32_t count,
			 void *buf, struct nfsx4_read_plus_out *out)
{
	const struct read_plus_res4 *ok = &res->u.rp_resok4;
	uint64_t pos = offset, end = offset + count;
	uint8_t *b = buf;
	uint32_t i;

	memset(out, 0, sizeof(*out));
	if (res->rp_status != NFS4_OK)
		return (int)res->rp_status;
	if (end < offset)
		return -EINVAL;
	for (i = 0; i < ok->rpr_contents.len; i++) {
		const struct read_plus_content *rc = &ok->rpr_contents.val[i];

		if (rc->rpc_content == NFS4_CONTENT_DATA) {
			const struct data4 *d = &rc->u.rpc_data;

			/* where the last one ended, and within the range */
			if (d->d_offset != pos || d->d_data.len > end - pos)
				return -EPROTO;
			if (d->d_data.len && b)
				memcpy(b + (pos - offset), d->d_data.data, d->d_data.len);
			pos += d->d_data.len;
		} else if (rc->rpc_content == NFS4_CONTENT_HOLE) {
			const struct data_info4 *h = &rc->u.rpc_hole;
			uint64_t hend = h->di_offset + h->di_length;

			/* it covers from where the last one ended, onwards */
			if (h->di_offset > pos || hend < h->di_offset || hend <= pos)
				return -EPROTO;
			/* the first one may start before the range (the
			 * hole as the server found it), any may end after */
			if (h->di_offset < pos && i > 0)
				return -EPROTO;
			if (hend > end)
				hend = end;
			if (hend > pos && b)
				memset(b + (pos - offset), 0, hend - pos);
			out->hole_bytes += (uint32_t)(hend - pos);
			pos = hend;
		} else {
			return -EPROTO;
		}
	}
	out->count = (uint32_t)(pos - offset);
	out->segments = ok->rpr_contents.len;
	out->eof = ok->rpr_eof;
	return 0;
}
