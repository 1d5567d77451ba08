/* SPDX-License-Identifier: MIT */
/* RPC reply header decoding: see reply.h. */
#include "client/reply.h"

#include <errno.h>
#include <string.h>

#include "xdr/gen/rpc.h"

static enum nc_reply_result fail(struct nc_reply *r, int err)
{
	r->err = err;
	return NC_REPLY_ERR;
}

static enum nc_reply_result accepted(struct xdr_dec *d, struct nc_reply *r)
{
	uint32_t len;

	/* Verifier: flavor and body<400>, whatever the flavor. */
	if (!xdr_dec_u32(d, &r->verf_flavor) || !xdr_dec_u32(d, &len) ||
	    len > MAX_AUTH_BYTES || !xdr_dec_skip(d, len))
		return fail(r, -EPROTO);
	if (!xdr_dec_u32(d, &r->stat))
		return fail(r, -EPROTO);
	switch (r->stat) {
	case SUCCESS:
		return NC_REPLY_OK;
	case PROG_MISMATCH:
		if (!xdr_dec_u32(d, &r->low) || !xdr_dec_u32(d, &r->high))
			return fail(r, -EPROTO);
		return fail(r, -EPROTONOSUPPORT);
	case PROG_UNAVAIL:
		return fail(r, -EPROTONOSUPPORT);
	case PROC_UNAVAIL:
		return fail(r, -EOPNOTSUPP);
	case GARBAGE_ARGS:
		return fail(r, -EINVAL);
	case SYSTEM_ERR:
		return fail(r, -EREMOTEIO);
	default:
		return fail(r, -EPROTO);
	}
}

static enum nc_reply_result denied(struct xdr_dec *d, struct nc_reply *r)
{
	if (!xdr_dec_u32(d, &r->stat))
		return fail(r, -EPROTO);
	switch (r->stat) {
	case RPC_MISMATCH:
		if (!xdr_dec_u32(d, &r->low) || !xdr_dec_u32(d, &r->high))
			return fail(r, -EPROTO);
		return fail(r, -EPROTONOSUPPORT);
	case AUTH_ERROR:
		if (!xdr_dec_u32(d, &r->auth_stat))
			return fail(r, -EPROTO);
		return fail(r, -EACCES);
	default:
		return fail(r, -EPROTO);
	}
}

enum nc_reply_result nc_reply_decode(struct xdr_dec *d, struct nc_reply *r)
{
	uint32_t mtype;

	memset(r, 0, sizeof(*r));
	if (!xdr_dec_u32(d, &r->xid) || !xdr_dec_u32(d, &mtype) || mtype != REPLY)
		return NC_REPLY_DROP;
	if (!xdr_dec_u32(d, &r->reply_stat))
		return fail(r, -EPROTO);
	switch (r->reply_stat) {
	case MSG_ACCEPTED:
		return accepted(d, r);
	case MSG_DENIED:
		return denied(d, r);
	default:
		return fail(r, -EPROTO);
	}
}
