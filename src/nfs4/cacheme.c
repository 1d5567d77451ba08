/* SPDX-License-Identifier: MIT */
/*
 * Which NFSv4.0 COMPOUNDs go to the duplicate request cache (rpc/drc.h).
 *
 * DESIGN
 * - Minor version 0 has no sessions: a COMPOUND retransmitted with its
 *   xid (a client reconnecting after a lost reply) would run again, and
 *   a CREATE, REMOVE or RENAME that succeeded the first time answers
 *   EXIST or NOENT the second. knfsd keeps the reply of a 4.0 COMPOUND
 *   in its DRC when any operation in it carries OP_CACHEME (CREATE,
 *   LINK, REMOVE, RENAME, SETATTR, SETCLIENTID, SETCLIENTID_CONFIRM,
 *   WRITE): the same list here. The seqid-bearing operations (OPEN,
 *   CLOSE, LOCK, ...) are not in it: their owner's replay cache answers a
 *   retransmission, whatever its xid (state.h). A COMPOUND with both
 *   kinds is answered from the DRC whole (the bytes first sent), so a
 *   retransmission never gets two different answers; one the DRC has
 *   evicted runs again, its seqid-bearing operation answered by its
 *   owner's cache, as with knfsd.
 * - The decision is made before the COMPOUND runs (rpc_proc.cache_this,
 *   on the event loop): the operations are decoded once more, one at a
 *   time, into the request's arena, given back after each, so the cost
 *   is one more decode of a 4.0 COMPOUND and no memory. Decoding stops at
 *   the first operation the COMPOUND would answer OP_ILLEGAL or BADXDR,
 *   as the COMPOUND stops there.
 * - Minor version 1 and later: never (the session's slot replays).
 */
#include "nfs4/internal.h"
#include "xdr/nfs4_compound.h"

/* knfsd's OP_CACHEME operations of minor version 0. */
static bool cacheme(enum nfs_opnum4 op)
{
	switch (op) {
	case OP_CREATE:
	case OP_LINK:
	case OP_REMOVE:
	case OP_RENAME:
	case OP_SETATTR:
	case OP_SETCLIENTID:
	case OP_SETCLIENTID_CONFIRM:
	case OP_WRITE:
		return true;
	default:
		return false;
	}
}

bool nfs4_compound_cache_this(struct rpc_req *req)
{
	struct xdr_dec d = req->args;
	size_t arena_at = req->arena.used;
	struct nfs4_args_head h;
	bool want = false;
	uint32_t i;

	if (!nfs4_dec_compound_args_head(&d, &h) || h.minorversion != 0)
		return false;
	for (i = 0; i < h.nops && !want; i++) {
		struct nfs_argop4 a;

		req->arena.used = arena_at;
		if (nfs4_dec_argop(&d, 0, &a) != NFS4_OP_DECODED)
			break;
		want = cacheme(a.argop);
	}
	req->arena.used = arena_at;
	return want;
}
