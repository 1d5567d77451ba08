/* SPDX-License-Identifier: MIT */
/* Calls the server makes, their replies, the table of calls: see callmsg.h. */
#include "rpc/callmsg.h"

#include <stdlib.h>
#include <string.h>

const char *rpc_call_status_str(enum rpc_call_status st)
{
	switch (st) {
	case RPC_CALL_OK: return "ok";
	case RPC_CALL_REFUSED: return "no connection";
	case RPC_CALL_TIMEDOUT: return "timed out";
	case RPC_CALL_CLOSED: return "connection closed";
	case RPC_CALL_TOOBIG: return "reply too large";
	case RPC_CALL_BADREPLY: return "malformed reply";
	case RPC_CALL_REJECTED: return "rejected";
	case RPC_CALL_BUSY: return "too many calls";
	case RPC_CALL_SHUTDOWN: return "server stopping";
	}
	return "?";
}

bool rpc_encode_call(struct xdr_enc *e, uint32_t xid, uint32_t prog, uint32_t vers,
		     uint32_t proc, const struct rpc_out_cred *cred)
{
	uint32_t flavor = cred ? cred->flavor : RPC_AUTH_NONE;

	if (!xdr_enc_u32(e, xid) || !xdr_enc_u32(e, RPC_MSG_CALL) ||
	    !xdr_enc_u32(e, RPC_VERSION) || !xdr_enc_u32(e, prog) ||
	    !xdr_enc_u32(e, vers) || !xdr_enc_u32(e, proc))
		return false;
	if (flavor == RPC_AUTH_SYS) {
		const char *m = cred->machine ? cred->machine : "";
		size_t mlen = strnlen(m, RPC_AUTHSYS_MACHINE_MAX);
		uint32_t body = 4 + 4 + xdr_pad((uint32_t)mlen) + 4 + 4 + 4;

		if (!xdr_enc_u32(e, RPC_AUTH_SYS) || !xdr_enc_u32(e, body) ||
		    !xdr_enc_u32(e, 0) /* stamp */ ||
		    !xdr_enc_bytes(e, m, (uint32_t)mlen, RPC_AUTHSYS_MACHINE_MAX) || !xdr_enc_u32(e, cred->uid) ||
		    !xdr_enc_u32(e, cred->gid) || !xdr_enc_u32(e, 0) /* gids */)
			return false;
	} else if (!xdr_enc_u32(e, RPC_AUTH_NONE) || !xdr_enc_u32(e, 0)) {
		return false;
	}
	return xdr_enc_u32(e, RPC_AUTH_NONE) && xdr_enc_u32(e, 0);
}

enum rpc_call_status rpc_decode_reply(const uint8_t *rec, size_t len, uint32_t *xid,
				      const uint8_t **res, size_t *res_len)
{
	struct xdr_dec d;
	uint32_t type, stat, v, vlen;

	*res = NULL;
	*res_len = 0;
	xdr_dec_init(&d, rec, len, NULL);
	if (!xdr_dec_u32(&d, xid) || !xdr_dec_u32(&d, &type) || type != RPC_MSG_REPLY ||
	    !xdr_dec_u32(&d, &stat))
		return RPC_CALL_BADREPLY;
	if (stat == RPC_REPLY_DENIED) {
		/* MISMATCH low, high; AUTH_ERROR auth_stat: whole, no more */
		if (!xdr_dec_u32(&d, &v))
			return RPC_CALL_BADREPLY;
		if (v == RPC_DENIED_MISMATCH)
			return xdr_dec_skip(&d, 8) && !xdr_dec_left(&d) ? RPC_CALL_REJECTED :
									RPC_CALL_BADREPLY;
		if (v == RPC_DENIED_AUTH)
			return xdr_dec_skip(&d, 4) && !xdr_dec_left(&d) ? RPC_CALL_REJECTED :
									RPC_CALL_BADREPLY;
		return RPC_CALL_BADREPLY;
	}
	if (stat != RPC_REPLY_ACCEPTED)
		return RPC_CALL_BADREPLY;
	/* verifier: flavour, body<400> */
	if (!xdr_dec_u32(&d, &v) || !xdr_dec_u32(&d, &vlen) || vlen > RPC_AUTH_MAX ||
	    !xdr_dec_skip(&d, xdr_pad(vlen)) || !xdr_dec_u32(&d, &stat))
		return RPC_CALL_BADREPLY;
	if (stat != RPC_SUCCESS)
		return stat <= RPC_SYSTEM_ERR ? RPC_CALL_REJECTED : RPC_CALL_BADREPLY;
	*res_len = xdr_dec_left(&d);
	*res = rec + (len - *res_len);
	return RPC_CALL_OK;
}

bool rpc_pending_add(struct rpc_pending *p, struct rpc_pcall *pc)
{
	if (p->n >= p->max)
		return false;
	pc->next = p->head;
	p->head = pc;
	p->n++;
	return true;
}

static struct rpc_pcall *take(struct rpc_pending *p, struct rpc_pcall **pp)
{
	struct rpc_pcall *pc = *pp;

	*pp = pc->next;
	p->n--;
	return pc;
}

static void end(struct rpc_pcall *pc, enum rpc_call_status st, const uint8_t *res, size_t len)
{
	pc->done(pc->arg, st, res, len);
	free(pc);
}

bool rpc_pending_reply(struct rpc_pending *p, const uint8_t *rec, size_t len)
{
	struct rpc_pcall **pp, *pc;
	enum rpc_call_status st;
	const uint8_t *res;
	size_t res_len;
	uint32_t xid;

	if (len < 4)
		return false;
	xid = xdr__get32(rec);
	for (pp = &p->head; *pp && (*pp)->xid != xid; pp = &(*pp)->next)
		;
	if (!*pp)
		return false;
	pc = take(p, pp);
	if (len > pc->max_reply) {
		end(pc, RPC_CALL_TOOBIG, NULL, 0);
		return true;
	}
	st = rpc_decode_reply(rec, len, &xid, &res, &res_len);
	end(pc, st, res, res_len);
	return true;
}

void rpc_pending_expire(struct rpc_pending *p, uint64_t now_ns)
{
	struct rpc_pcall **pp = &p->head;

	while (*pp) {
		if ((*pp)->deadline_ns <= now_ns)
			end(take(p, pp), RPC_CALL_TIMEDOUT, NULL, 0);
		else
			pp = &(*pp)->next;
	}
}

void rpc_pending_fail_all(struct rpc_pending *p, enum rpc_call_status st)
{
	while (p->head)
		end(take(p, &p->head), st, NULL, 0);
}

uint64_t rpc_pending_next(const struct rpc_pending *p)
{
	const struct rpc_pcall *pc;
	uint64_t t = UINT64_MAX;

	for (pc = p->head; pc; pc = pc->next)
		if (pc->deadline_ns < t)
			t = pc->deadline_ns;
	return t;
}
