/* SPDX-License-Identifier: MIT */
/* ONC RPC call header decoding and reply header encoding: see msg.h. */
#include "rpc/msg.h"

#include "xdr/gen/rpc.h"

/* msg.h names the wire values with a prefix; they must be proto/rpc.x's. */
_Static_assert((int)RPC_VERSION == (int)RPC_MSG_VERSION, "rpc version");
_Static_assert((int)RPC_AUTH_MAX == (int)MAX_AUTH_BYTES, "auth body bound");
_Static_assert((int)RPC_AUTHSYS_MACHINE_MAX == (int)AUTHSYS_MAX_MACHINENAME, "machine");
_Static_assert((int)RPC_AUTHSYS_NGROUPS == (int)AUTHSYS_MAX_GIDS, "gids");
_Static_assert((int)RPC_MSG_CALL == (int)CALL && (int)RPC_MSG_REPLY == (int)REPLY, "msg_type");
_Static_assert((int)RPC_REPLY_ACCEPTED == (int)MSG_ACCEPTED &&
	       (int)RPC_REPLY_DENIED == (int)MSG_DENIED, "reply_stat");
_Static_assert((int)RPC_DENIED_MISMATCH == (int)RPC_MISMATCH &&
	       (int)RPC_DENIED_AUTH == (int)AUTH_ERROR, "reject_stat");
_Static_assert((int)RPC_SUCCESS == (int)SUCCESS && (int)RPC_PROG_UNAVAIL == (int)PROG_UNAVAIL &&
	       (int)RPC_PROG_MISMATCH == (int)PROG_MISMATCH &&
	       (int)RPC_PROC_UNAVAIL == (int)PROC_UNAVAIL &&
	       (int)RPC_GARBAGE_ARGS == (int)GARBAGE_ARGS && (int)RPC_SYSTEM_ERR == (int)SYSTEM_ERR,
	       "accept_stat");
_Static_assert((int)RPC_AUTH_BADCRED == (int)AUTH_BADCRED &&
	       (int)RPC_AUTH_REJECTEDCRED == (int)AUTH_REJECTEDCRED &&
	       (int)RPC_AUTH_BADVERF == (int)AUTH_BADVERF &&
	       (int)RPC_AUTH_REJECTEDVERF == (int)AUTH_REJECTEDVERF &&
	       (int)RPC_AUTH_TOOWEAK == (int)AUTH_TOOWEAK, "auth_stat");
_Static_assert((int)RPC_AUTH_NONE == (int)AUTH_NONE && (int)RPC_AUTH_SYS == (int)AUTH_SYS,
	       "auth_flavor");

bool rpc_decode_authsys(const uint8_t *body, uint32_t len,
			struct rpc_cred *cred)
{
	struct xdr_dec d;
	uint32_t i;

	xdr_dec_init(&d, body, len, NULL);
	if (!xdr_dec_u32(&d, &cred->stamp) ||
	    !xdr_dec_bytes(&d, &cred->machine, RPC_AUTHSYS_MACHINE_MAX) ||
	    !xdr_dec_u32(&d, &cred->uid) || !xdr_dec_u32(&d, &cred->gid) ||
	    !xdr_dec_u32(&d, &cred->ngids) ||
	    cred->ngids > RPC_AUTHSYS_NGROUPS)
		return false;
	for (i = 0; i < cred->ngids; i++)
		if (!xdr_dec_u32(&d, &cred->gids[i]))
			return false;
	/* The body length is the client's claim: it must be exact. */
	return xdr_dec_left(&d) == 0;
}

static bool flavor_listed(uint32_t flavor, const uint32_t *flavors,
			  unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (flavors[i] == flavor)
			return true;
	return false;
}

enum rpc_hdr_result rpc_decode_call(struct xdr_dec *d, struct rpc_call *call,
				    enum rpc_auth_stat *auth_stat)
{
	return rpc_decode_call_flavors(d, call, auth_stat, NULL, 0);
}

enum rpc_hdr_result rpc_decode_call_flavors(struct xdr_dec *d, struct rpc_call *call,
					    enum rpc_auth_stat *auth_stat,
					    const uint32_t *flavors, unsigned int n)
{
	uint32_t mtype, rpcvers, flavor;
	struct xdr_bytes body;

	if (!xdr_dec_u32(d, &call->xid) || !xdr_dec_u32(d, &mtype) ||
	    mtype != RPC_MSG_CALL)
		return RPC_HDR_DROP;
	if (!xdr_dec_u32(d, &rpcvers))
		return RPC_HDR_DROP;
	if (rpcvers != RPC_VERSION)
		return RPC_HDR_MISMATCH;
	if (!xdr_dec_u32(d, &call->prog) || !xdr_dec_u32(d, &call->vers) ||
	    !xdr_dec_u32(d, &call->proc))
		return RPC_HDR_DROP;

	*auth_stat = RPC_AUTH_BADCRED;
	if (!xdr_dec_u32(d, &flavor) ||
	    !xdr_dec_bytes(d, &body, RPC_AUTH_MAX))
		return RPC_HDR_AUTHERR;
	call->cred.flavor = flavor;
	switch (flavor) {
	case RPC_AUTH_NONE:
		/* RFC 5531: the body of AUTH_NONE is empty. */
		if (body.len != 0)
			return RPC_HDR_AUTHERR;
		call->cred.uid = call->cred.gid = 65534;
		call->cred.ngids = 0;
		call->cred.machine.len = 0;
		call->cred.machine.data = NULL;
		break;
	case RPC_AUTH_SYS:
		if (!rpc_decode_authsys(body.data, body.len, &call->cred))
			return RPC_HDR_AUTHERR;
		break;
	default:
		/* Unsupported flavors are a bad credential, as in Linux. */
		if (!flavor_listed(flavor, flavors, n))
			return RPC_HDR_AUTHERR;
		/* The flavour's own check reads both, in the caller, and
		 * maps the caller to an identity: until then, nobody. */
		call->cred.uid = call->cred.gid = 65534;
		call->cred.ngids = 0;
		call->cred.machine.len = 0;
		call->cred.machine.data = NULL;
		call->raw_cred.flavor = flavor;
		call->raw_cred.body = body;
		*auth_stat = RPC_AUTH_BADVERF;
		if (!xdr_dec_u32(d, &call->raw_verf.flavor) ||
		    !xdr_dec_bytes(d, &call->raw_verf.body, RPC_AUTH_MAX))
			return RPC_HDR_AUTHERR;
		*auth_stat = RPC_AUTH_OK;
		return RPC_HDR_FLAVOR;
	}

	*auth_stat = RPC_AUTH_BADVERF;
	if (!xdr_dec_u32(d, &flavor) ||
	    !xdr_dec_bytes(d, &body, RPC_AUTH_MAX))
		return RPC_HDR_AUTHERR;
	if (flavor != RPC_AUTH_NONE || body.len != 0)
		return RPC_HDR_AUTHERR;
	*auth_stat = RPC_AUTH_OK;
	return RPC_HDR_OK;
}

static bool encode_reply_start(struct xdr_enc *e, uint32_t xid, uint32_t stat)
{
	return xdr_enc_u32(e, xid) && xdr_enc_u32(e, RPC_MSG_REPLY) &&
	       xdr_enc_u32(e, stat);
}

const struct rpc_verf rpc_verf_none = { .flavor = RPC_AUTH_NONE };

/* An accepted header whose verifier has a body: RPCSEC_GSS's. Apart, so
 * that the common AUTH_NONE header is written by a leaf function that
 * saves no registers. */
static __attribute__((noinline)) bool
encode_accepted_body(struct xdr_enc *e, uint32_t xid, const struct rpc_verf *v,
		     enum rpc_accept_stat stat)
{
	uint32_t vlen = xdr_pad(v->len);
	uint8_t *p = xdr_enc_reserve(e, RPC_ACCEPTED_HDR_MIN + vlen);

	if (!p)
		return false;
	xdr__put32(p, xid);
	xdr__put32(p + 4, RPC_MSG_REPLY);
	xdr__put32(p + 8, RPC_REPLY_ACCEPTED);
	xdr__put32(p + 12, v->flavor);
	xdr__put32(p + 16, v->len);
	memcpy(p + 20, v->body, v->len);
	memset(p + 20 + v->len, 0, vlen - v->len);
	xdr__put32(p + 20 + vlen, stat);
	return true;
}

bool rpc_encode_accepted(struct xdr_enc *e, uint32_t xid,
			 const struct rpc_verf *v, enum rpc_accept_stat stat)
{
	uint8_t *p;

	if (v->len)
		return encode_accepted_body(e, xid, v, stat);
	p = xdr_enc_reserve(e, RPC_ACCEPTED_HDR_MIN);
	if (!p)
		return false;
	xdr__put32(p, xid);
	xdr__put32(p + 4, RPC_MSG_REPLY);
	xdr__put32(p + 8, RPC_REPLY_ACCEPTED);
	xdr__put32(p + 12, v->flavor);
	xdr__put32(p + 16, 0);
	xdr__put32(p + 20, stat);
	return true;
}

bool rpc_encode_prog_mismatch(struct xdr_enc *e, uint32_t xid,
			      const struct rpc_verf *v, uint32_t low,
			      uint32_t high)
{
	return rpc_encode_accepted(e, xid, v, RPC_PROG_MISMATCH) &&
	       xdr_enc_u32(e, low) && xdr_enc_u32(e, high);
}

bool rpc_encode_rpc_mismatch(struct xdr_enc *e, uint32_t xid)
{
	return encode_reply_start(e, xid, RPC_REPLY_DENIED) &&
	       xdr_enc_u32(e, RPC_DENIED_MISMATCH) &&
	       xdr_enc_u32(e, RPC_VERSION) && xdr_enc_u32(e, RPC_VERSION);
}

bool rpc_encode_auth_error(struct xdr_enc *e, uint32_t xid,
			   enum rpc_auth_stat stat)
{
	return encode_reply_start(e, xid, RPC_REPLY_DENIED) &&
	       xdr_enc_u32(e, RPC_DENIED_AUTH) && xdr_enc_u32(e, stat);
}
