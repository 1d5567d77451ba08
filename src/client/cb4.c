/* SPDX-License-Identifier: MIT */
/*
 * The NFSv4.1 back channel's calls, decoded and answered (no I/O here:
 * the transport hands a record in and sends the reply out, deleg4.c
 * does what a recall asks). See nfs4.h for the design.
 *
 * - RPC level (RFC 5531): a call of another RPC version is denied
 *   RPC_MISMATCH; of another program PROG_UNAVAIL, version
 *   PROG_MISMATCH (1 to 1), procedure PROC_UNAVAIL; a credential
 *   other than AUTH_NONE or AUTH_SYS (the security CREATE_SESSION
 *   offered) AUTH_ERROR AUTH_TOOWEAK; a header that does not decode
 *   gets no reply at all (nothing to answer to). Arguments that do not
 *   decode are GARBAGE_ARGS.
 * - CB_COMPOUND (RFC 8881 20.9): minor versions 1 and 2
 *   (NFS4ERR_MINOR_VERS_MISMATCH, no results); CB_SEQUENCE first
 *   (NFS4ERR_OP_NOT_IN_SESSION), nowhere else (NFS4ERR_SEQUENCE_POS);
 *   at most NC4_CB_MAXOPS operations (NFS4ERR_TOO_MANY_OPS). The
 *   session id must be the session's (NFS4ERR_BADSESSION), the slot
 *   one of ours (NFS4ERR_BADSLOT); the sequence id one past the slot's
 *   is new, the slot's own a retry answered with the slot's reply as it
 *   was sent (whether cachethis asked or not: every reply fits in the
 *   cache), anything else NFS4ERR_SEQ_MISORDERED. CB_RECALL asks the
 *   caller's function, CB_OFFLOAD the back channel's offload hook
 *   (NFS4ERR_NOTSUPP without one); the other callback operations are
 *   NFS4ERR_NOTSUPP, a number that is none NFS4ERR_OP_ILLEGAL
 *   (OP_CB_ILLEGAL), and the COMPOUND stops at the first error.
 * - Bounded: the request is decoded op by op from the record in place,
 *   arrays into a fixed arena (NC4_CB_ARENA); a request over
 *   NC4_CB_MAXREQ bytes is NFS4ERR_REQ_TOO_BIG and a tag too long to
 *   echo within NC4_CB_MAXRESP NFS4ERR_REP_TOO_BIG, both before
 *   anything is done. Every reply fits NC4_CB_OUT_MAX.
 */
#include "client/nfs4.h"

#include <string.h>

#include "xdr/gen/rpc.h"

/* The tag echoed at most: the results besides it fit in 128 bytes
 * (CB_SEQUENCE's 40 and 8 for each other operation, NC4_CB_MAXOPS). */
#define TAG_MAX (NC4_CB_MAXRESP - 128u)

void nc4_cb_reset(struct nc4_cb *cb, const sessionid4 *sid)
{
	cb->sid = *sid;
	memset(cb->slots, 0, sizeof(cb->slots));
}

struct hdr {
	uint32_t xid, prog, vers, proc;
	uint32_t flavor;
	bool rpc_bad;                /* another RPC version */
};

/* The call header; the credential and verifier are skipped (bounded). */
static bool dec_hdr(struct xdr_dec *d, struct hdr *h)
{
	uint32_t mtype, rpcvers, vflavor, len;

	if (!xdr_dec_u32(d, &h->xid) || !xdr_dec_u32(d, &mtype) || mtype != CALL ||
	    !xdr_dec_u32(d, &rpcvers))
		return false;
	h->rpc_bad = rpcvers != 2;
	if (h->rpc_bad)
		return true;
	if (!xdr_dec_u32(d, &h->prog) || !xdr_dec_u32(d, &h->vers) ||
	    !xdr_dec_u32(d, &h->proc) || !xdr_dec_u32(d, &h->flavor) ||
	    !xdr_dec_u32(d, &len) || len > MAX_AUTH_BYTES || !xdr_dec_skip(d, len) ||
	    !xdr_dec_u32(d, &vflavor) || !xdr_dec_u32(d, &len) || len > MAX_AUTH_BYTES ||
	    !xdr_dec_skip(d, len))
		return false;
	return true;
}

/* Marker slot, xid, REPLY, then MSG_ACCEPTED with an AUTH_NONE verifier
 * and @stat (or MSG_DENIED when @denied, @stat the reject_stat). */
static void enc_reply_hdr(struct xdr_enc *e, uint32_t xid, bool denied, uint32_t stat)
{
	xdr_enc_u32(e, 0); /* the record marker, set at the end */
	xdr_enc_u32(e, xid);
	xdr_enc_u32(e, REPLY);
	if (denied) {
		xdr_enc_u32(e, MSG_DENIED);
		xdr_enc_u32(e, stat);
		return;
	}
	xdr_enc_u32(e, MSG_ACCEPTED);
	xdr_enc_u32(e, AUTH_NONE);
	xdr_enc_u32(e, 0);
	xdr_enc_u32(e, stat);
}

/* The record marker of a reply of @n bytes at @out (marker included). */
static size_t mark(uint8_t *out, size_t n)
{
	xdr__put32(out, RPC_RM_LAST | (uint32_t)(n - 4));
	return n;
}

static size_t finish(struct xdr_enc *e, uint8_t *out)
{
	return mark(out, xdr_enc_len(e));
}

/* A result of operation @op: its status only (every callback result
 * that is an error is just that). */
static void enc_status_res(struct xdr_enc *e, uint32_t op, enum nfsstat4 st)
{
	xdr_enc_u32(e, op);
	xdr_enc_u32(e, (uint32_t)st);
}

static bool known_op(uint32_t op)
{
	return op >= OP_CB_GETATTR && op <= OP_CB_OFFLOAD;
}

struct body {
	struct xdr_enc e;            /* the CB_COMPOUND4res */
	bool begun;                  /* status and tag written */
	uint8_t *status_at;
	uint8_t *count_at;
	uint32_t nres;
};

static void body_begin(struct body *b, uint8_t *buf, size_t cap, const struct xdr_bytes *tag)
{
	xdr_enc_init(&b->e, buf, cap);
	b->status_at = xdr_enc_reserve(&b->e, 4);
	xdr__put32(b->status_at, NFS4_OK);
	xdr_enc_bytes(&b->e, tag->data, tag->len, TAG_MAX);
	b->count_at = xdr_enc_reserve(&b->e, 4);
	b->nres = 0;
	b->begun = true;
}

static void body_end(struct body *b, enum nfsstat4 st)
{
	xdr__put32(b->status_at, (uint32_t)st);
	xdr__put32(b->count_at, b->nres);
}

/*
 * CB_SEQUENCE, the first operation: *@slot is the slot named, *@replay
 * tells a retry of the slot's last request (its reply then goes again).
 * Return values: NFS4_OK, or the error of CB_SEQUENCE's result.
 */
static enum nfsstat4 cb_sequence(struct nc4_cb *cb, const struct CB_SEQUENCE4args *a,
				 struct nc4_cb_slot **slot, bool *replay)
{
	struct nc4_cb_slot *sl;

	*replay = false;
	if (memcmp(a->csa_sessionid.val, cb->sid.val, sizeof(cb->sid.val)) != 0)
		return NFS4ERR_BADSESSION;
	if (a->csa_slotid >= NC4_CB_SLOTS)
		return NFS4ERR_BADSLOT;
	sl = &cb->slots[a->csa_slotid];
	*slot = sl;
	if (a->csa_sequenceid == sl->seq && sl->cache_len) {
		*replay = true;
		return NFS4_OK;
	}
	if (a->csa_sequenceid != sl->seq + 1)
		return NFS4ERR_SEQ_MISORDERED;
	return NFS4_OK;
}

static void enc_sequence_ok(struct xdr_enc *e, const struct CB_SEQUENCE4args *a)
{
	xdr_enc_u32(e, OP_CB_SEQUENCE);
	xdr_enc_u32(e, NFS4_OK);
	xdr_enc_opaque_fixed(e, a->csa_sessionid.val, sizeof(a->csa_sessionid.val));
	xdr_enc_u32(e, a->csa_sequenceid);
	xdr_enc_u32(e, a->csa_slotid);
	xdr_enc_u32(e, NC4_CB_SLOTS - 1);
	xdr_enc_u32(e, NC4_CB_SLOTS - 1);
}

/*
 * The CB_COMPOUND at @d into @b. Return values: the COMPOUND's status;
 * *@replay_of set to a slot whose cached reply answers it instead.
 */
static enum nfsstat4 compound(struct nc4_cb *cb, struct xdr_dec *d, size_t len, struct body *b,
			      struct nc4_cb_slot **done_slot, struct nc4_cb_slot **replay_of,
			      nc4_cb_recall_fn recall, void *priv)
{
	struct xdr_bytes tag = { (const uint8_t *)"", 0 };
	uint32_t minor, ident, nops, i;
	struct xdr_arena arena;
	enum nfsstat4 st = NFS4_OK;

	*done_slot = *replay_of = NULL;
	if (!xdr_dec_bytes(d, &tag, NC4_CB_MAXREQ) || !xdr_dec_u32(d, &minor) ||
	    !xdr_dec_u32(d, &ident) || !xdr_dec_u32(d, &nops))
		return NFS4ERR_BADXDR;
	if (tag.len > TAG_MAX) {
		tag.len = 0;
		body_begin(b, b->e.p, xdr_enc_room(&b->e), &tag);
		return NFS4ERR_REP_TOO_BIG;
	}
	body_begin(b, b->e.p, xdr_enc_room(&b->e), &tag);
	if (len > NC4_CB_MAXREQ)
		return NFS4ERR_REQ_TOO_BIG;
	/* The server calls with its session's minor version (RFC 7862
	 * 1.4: 4.2 keeps 4.1's back channel); either is answered alike. */
	if (minor < NC4_MINOR_MIN || minor > NC4_MINOR_MAX)
		return NFS4ERR_MINOR_VERS_MISMATCH;
	if (nops > NC4_CB_MAXOPS)
		return NFS4ERR_TOO_MANY_OPS;
	xdr_arena_init(&arena, cb->arena, sizeof(cb->arena));
	d->arena = &arena;
	for (i = 0; i < nops && st == NFS4_OK; i++) {
		struct nfs_cb_argop4 op;
		struct xdr_dec peek = *d;
		uint32_t num;
		bool replay;

		if (!xdr_dec_u32(&peek, &num))
			return NFS4ERR_BADXDR;
		if (!known_op(num)) {
			/* nothing of it decodes: the COMPOUND ends here */
			st = NFS4ERR_OP_ILLEGAL;
			enc_status_res(&b->e, OP_CB_ILLEGAL, st);
			b->nres++;
			break;
		}
		memset(&op, 0, sizeof(op));
		if (!xdr_dec_nfs_cb_argop4(d, &op)) {
			st = NFS4ERR_BADXDR;
			enc_status_res(&b->e, num, st);
			b->nres++;
			break;
		}
		if (i == 0 && num != OP_CB_SEQUENCE) {
			st = NFS4ERR_OP_NOT_IN_SESSION;
		} else if (i > 0 && num == OP_CB_SEQUENCE) {
			st = NFS4ERR_SEQUENCE_POS;
		} else if (num == OP_CB_SEQUENCE) {
			st = cb_sequence(cb, &op.u.opcbsequence, done_slot, &replay);
			if (st == NFS4_OK && replay) {
				*replay_of = *done_slot;
				*done_slot = NULL;
				return NFS4_OK;
			}
			if (st != NFS4_OK) {
				*done_slot = NULL;
			} else {
				enc_sequence_ok(&b->e, &op.u.opcbsequence);
				b->nres++;
				/* the slot is used up now, whatever follows */
				(*done_slot)->seq = op.u.opcbsequence.csa_sequenceid;
				continue;
			}
		} else if (num == OP_CB_RECALL) {
			st = recall ? recall(priv, &op.u.opcbrecall) : NFS4ERR_BAD_STATEID;
			if (st == NFS4_OK)
				cb->n.recalls++;
			else if (st == NFS4ERR_BAD_STATEID)
				cb->n.recalls_unknown++;
		} else if (num == OP_CB_OFFLOAD && cb->offload) {
			st = cb->offload(cb->offload_priv, &op.u.opcboffload);
			if (st == NFS4_OK)
				cb->n.offloads++;
		} else {
			st = NFS4ERR_NOTSUPP;
		}
		enc_status_res(&b->e, num, st);
		b->nres++;
	}
	return st;
}

size_t nc4_cb_serve(struct nc4_cb *cb, const uint8_t *rec, size_t len, uint8_t *out,
		    nc4_cb_recall_fn recall, void *priv)
{
	struct nc4_cb_slot *slot, *replay_of;
	struct xdr_enc e;
	struct xdr_dec d;
	struct body b;
	enum nfsstat4 st;
	struct hdr h;
	size_t hdr_len, body_len;

	cb->n.calls++;
	memset(&h, 0, sizeof(h));
	xdr_dec_init(&d, rec, len, NULL);
	if (!dec_hdr(&d, &h)) {
		cb->n.dropped++;
		return 0;
	}
	xdr_enc_init(&e, out, NC4_CB_OUT_MAX);
	if (h.rpc_bad) {
		enc_reply_hdr(&e, h.xid, true, RPC_MISMATCH);
		xdr_enc_u32(&e, 2);
		xdr_enc_u32(&e, 2);
		cb->n.rpc_errors++;
		return finish(&e, out);
	}
	if (h.flavor != AUTH_NONE && h.flavor != AUTH_SYS) {
		enc_reply_hdr(&e, h.xid, true, AUTH_ERROR);
		xdr_enc_u32(&e, AUTH_TOOWEAK);
		cb->n.rpc_errors++;
		return finish(&e, out);
	}
	if (h.prog != NC4_CB_PROG || h.vers != NC4_CB_VERS ||
	    (h.proc != CB_NULL && h.proc != CB_COMPOUND)) {
		uint32_t stat = h.prog != NC4_CB_PROG ? PROG_UNAVAIL :
				h.vers != NC4_CB_VERS ? PROG_MISMATCH : PROC_UNAVAIL;

		enc_reply_hdr(&e, h.xid, false, stat);
		if (stat == PROG_MISMATCH) {
			xdr_enc_u32(&e, NC4_CB_VERS);
			xdr_enc_u32(&e, NC4_CB_VERS);
		}
		cb->n.rpc_errors++;
		return finish(&e, out);
	}
	if (h.proc == CB_NULL) {
		enc_reply_hdr(&e, h.xid, false, xdr_dec_left(&d) ? GARBAGE_ARGS : SUCCESS);
		if (xdr_dec_left(&d))
			cb->n.rpc_errors++;
		else
			cb->n.nulls++;
		return finish(&e, out);
	}
	enc_reply_hdr(&e, h.xid, false, SUCCESS);
	hdr_len = xdr_enc_len(&e);
	memset(&b, 0, sizeof(b));
	b.e = e;
	st = compound(cb, &d, len, &b, &slot, &replay_of, recall, priv);
	if (!replay_of && (!b.begun || (st == NFS4ERR_BADXDR && b.nres == 0))) {
		/* the arguments' header itself: an RPC-level error */
		xdr_enc_init(&e, out, NC4_CB_OUT_MAX);
		enc_reply_hdr(&e, h.xid, false, GARBAGE_ARGS);
		cb->n.rpc_errors++;
		return finish(&e, out);
	}
	cb->n.compounds++;
	if (replay_of) {
		cb->n.replays++;
		memcpy(out + hdr_len, replay_of->cache, replay_of->cache_len);
		return mark(out, hdr_len + replay_of->cache_len);
	}
	body_end(&b, st);
	body_len = xdr_enc_len(&b.e);
	if (slot && body_len <= sizeof(slot->cache)) {
		memcpy(slot->cache, out + hdr_len, body_len);
		slot->cache_len = (uint32_t)body_len;
	}
	return mark(out, hdr_len + body_len);
}
