/* SPDX-License-Identifier: MIT */
/*
 * The NFSv4.1 back channel's calls (src/client/cb4.c) answered without
 * a server: CB_NULL; RPC-level refusals (RPC version, program, version,
 * procedure, credential flavour, arguments); CB_COMPOUND of CB_SEQUENCE
 * and CB_RECALL, a retried sequence id answered from the slot's cache
 * (the recall not done twice), a sequence id out of order, another
 * session, a slot beyond ours; CB_SEQUENCE missing or misplaced,
 * operations not supported or not operations at all, another minor
 * version, too many operations; and every truncation of a call.
 */
#include <stdlib.h>
#include <string.h>

#include "client/nfs4.h"
#include "tap.h"
#include "xdr/gen/rpc.h"

static uint8_t call[8192], out[NC4_CB_OUT_MAX];
static size_t clen;
static struct nc4_cb *cb;
static sessionid4 sess = { { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 } };
static struct stateid4 held = { 1, { 0xde, 0x1e, 0x9a, 0x7e, 1, 2, 3, 4, 5, 6, 7, 8 } };
static unsigned recalls;

static enum nfsstat4 on_recall(void *priv, const struct CB_RECALL4args *a)
{
	(void)priv;
	recalls++;
	return memcmp(a->stateid.other, held.other, sizeof(held.other)) ? NFS4ERR_BAD_STATEID :
									   NFS4_OK;
}

/* A call header: xid 7, rpcvers, prog, vers, proc, @flavor with an empty body. */
static struct xdr_enc hdr(uint32_t rpcvers, uint32_t prog, uint32_t vers, uint32_t proc,
			  uint32_t flavor)
{
	struct xdr_enc e;

	xdr_enc_init(&e, call, sizeof(call));
	xdr_enc_u32(&e, 7);
	xdr_enc_u32(&e, CALL);
	xdr_enc_u32(&e, rpcvers);
	xdr_enc_u32(&e, prog);
	xdr_enc_u32(&e, vers);
	xdr_enc_u32(&e, proc);
	xdr_enc_u32(&e, flavor);
	xdr_enc_u32(&e, 0);
	xdr_enc_u32(&e, AUTH_NONE);
	xdr_enc_u32(&e, 0);
	return e;
}

static size_t serve(void)
{
	return nc4_cb_serve(cb, call, clen, out, on_recall, NULL);
}

/* The reply's header: xid 7, REPLY; @reply_stat and @stat (accept or
 * reject); the offset of what follows, or 0 when it is not that. */
static size_t reply_is(size_t n, uint32_t reply_stat, uint32_t stat)
{
	if (n < 20 || (xdr__get32(out) & 0x7fffffffu) != n - 4 || xdr__get32(out + 4) != 7 ||
	    xdr__get32(out + 8) != REPLY || xdr__get32(out + 12) != reply_stat)
		return 0;
	if (reply_stat == MSG_DENIED)
		return xdr__get32(out + 16) == stat ? 20 : 0;
	if (n < 28 || xdr__get32(out + 16) != AUTH_NONE || xdr__get32(out + 20) != 0 ||
	    xdr__get32(out + 24) != stat)
		return 0;
	return 28;
}

static struct nfs_cb_argop4 seq_op(uint32_t slot, uint32_t seq)
{
	struct nfs_cb_argop4 o;

	memset(&o, 0, sizeof(o));
	o.argop = OP_CB_SEQUENCE;
	o.u.opcbsequence.csa_sessionid = sess;
	o.u.opcbsequence.csa_sequenceid = seq;
	o.u.opcbsequence.csa_slotid = slot;
	return o;
}

static struct nfs_cb_argop4 recall_op(const struct stateid4 *sid)
{
	static uint8_t fh[8] = { 'h', 'a', 'n', 'd', 'l', 'e' };
	struct nfs_cb_argop4 o;

	memset(&o, 0, sizeof(o));
	o.argop = OP_CB_RECALL;
	o.u.opcbrecall.stateid = *sid;
	o.u.opcbrecall.fh.data = fh;
	o.u.opcbrecall.fh.len = sizeof(fh);
	return o;
}

static void compound(uint32_t minor, struct nfs_cb_argop4 *ops, uint32_t n)
{
	struct xdr_enc e = hdr(2, NC4_CB_PROG, 1, CB_COMPOUND, AUTH_SYS);
	struct CB_COMPOUND4args a;

	memset(&a, 0, sizeof(a));
	a.tag.data = (const uint8_t *)"tag";
	a.tag.len = 3;
	a.minorversion = minor;
	a.argarray.len = n;
	a.argarray.val = ops;
	if (!xdr_enc_CB_COMPOUND4args(&e, &a))
		abort();
	clen = xdr_enc_len(&e);
}

static uint8_t arena_mem[1 << 16];

/* Serve, decode the CB_COMPOUND4res into *@r (SUCCESS expected). */
static bool answer(struct CB_COMPOUND4res *r)
{
	size_t n = serve(), at = reply_is(n, MSG_ACCEPTED, SUCCESS);
	struct xdr_arena a;
	struct xdr_dec d;

	if (!at)
		return false;
	xdr_arena_init(&a, arena_mem, sizeof(arena_mem));
	xdr_dec_init(&d, out + at, n - at, &a);
	memset(r, 0, sizeof(*r));
	return xdr_dec_CB_COMPOUND4res(&d, r) && xdr_dec_left(&d) == 0 && r->tag.len == 3 &&
	       !memcmp(r->tag.data, "tag", 3);
}

static enum nfsstat4 res_status(const struct nfs_cb_resop4 *r)
{
	return r->u.opcbillegal.status;
}

static void test_rpc(void)
{
	struct xdr_enc e;
	size_t n, at;

	e = hdr(2, NC4_CB_PROG, 1, CB_NULL, AUTH_NONE);
	clen = xdr_enc_len(&e);
	n = serve();
	ok(reply_is(n, MSG_ACCEPTED, SUCCESS) == n && cb->n.nulls == 1, "CB_NULL: SUCCESS, no results");
	e = hdr(2, NC4_CB_PROG, 1, CB_NULL, AUTH_SYS);
	xdr_enc_u32(&e, 1);
	clen = xdr_enc_len(&e);
	ok(reply_is(serve(), MSG_ACCEPTED, GARBAGE_ARGS), "CB_NULL with arguments: GARBAGE_ARGS");
	e = hdr(2, 100003, 4, 1, AUTH_NONE);
	clen = xdr_enc_len(&e);
	ok(reply_is(serve(), MSG_ACCEPTED, PROG_UNAVAIL), "another program: PROG_UNAVAIL");
	e = hdr(2, NC4_CB_PROG, 4, 1, AUTH_NONE);
	clen = xdr_enc_len(&e);
	n = serve();
	at = reply_is(n, MSG_ACCEPTED, PROG_MISMATCH);
	ok(at && n == at + 8 && xdr__get32(out + at) == 1 && xdr__get32(out + at + 4) == 1,
	   "version 4: PROG_MISMATCH 1 to 1");
	e = hdr(2, NC4_CB_PROG, 1, 2, AUTH_NONE);
	clen = xdr_enc_len(&e);
	ok(reply_is(serve(), MSG_ACCEPTED, PROC_UNAVAIL), "procedure 2: PROC_UNAVAIL");
	e = hdr(3, NC4_CB_PROG, 1, 1, AUTH_NONE);
	clen = xdr_enc_len(&e);
	n = serve();
	at = reply_is(n, MSG_DENIED, RPC_MISMATCH);
	ok(at && n == at + 8, "RPC version 3: RPC_MISMATCH");
	e = hdr(2, NC4_CB_PROG, 1, 1, 6);
	clen = xdr_enc_len(&e);
	n = serve();
	at = reply_is(n, MSG_DENIED, AUTH_ERROR);
	ok(at && xdr__get32(out + at) == AUTH_TOOWEAK, "RPCSEC_GSS: AUTH_ERROR TOOWEAK");
	e = hdr(2, NC4_CB_PROG, 1, CB_COMPOUND, AUTH_NONE);
	xdr_enc_u32(&e, 0);
	clen = xdr_enc_len(&e);
	ok(reply_is(serve(), MSG_ACCEPTED, GARBAGE_ARGS), "CB_COMPOUND cut in its header: GARBAGE_ARGS");
	/* a reply, or a header cut short, gets nothing */
	xdr__put32(call + 4, REPLY);
	ok(serve() == 0, "a REPLY: no answer");
	clen = 10;
	ok(serve() == 0, "a header cut short: no answer");
}

static void test_sequence(void)
{
	struct nfs_cb_argop4 ops[NC4_CB_MAXOPS + 2];
	struct CB_COMPOUND4res r;
	uint8_t first[NC4_CB_OUT_MAX];
	size_t n1, n2;
	struct stateid4 other = held;

	ops[0] = seq_op(0, 1);
	ops[1] = recall_op(&held);
	compound(1, ops, 2);
	recalls = 0;
	ok(answer(&r) && r.status == NFS4_OK && r.resarray.len == 2 &&
	   r.resarray.val[0].resop == OP_CB_SEQUENCE &&
	   r.resarray.val[0].u.opcbsequence.csr_status == NFS4_OK &&
	   r.resarray.val[0].u.opcbsequence.u.csr_resok4.csr_sequenceid == 1 &&
	   !memcmp(r.resarray.val[0].u.opcbsequence.u.csr_resok4.csr_sessionid.val, sess.val, 16) &&
	   r.resarray.val[1].resop == OP_CB_RECALL && res_status(&r.resarray.val[1]) == NFS4_OK &&
	   recalls == 1, "CB_SEQUENCE + CB_RECALL of a delegation held: NFS4_OK, NFS4_OK");
	n1 = serve();
	memcpy(first, out, n1);
	/* the same again: answered from the slot, the recall not redone */
	recalls = 0;
	n2 = serve();
	ok(n2 == n1 && !memcmp(out, first, n1) && recalls == 0 && cb->n.replays == 2,
	   "a retried sequence id: the slot's reply again, the recall not done again");
	ops[0] = seq_op(0, 3);
	compound(1, ops, 2);
	ok(answer(&r) && r.status == NFS4ERR_SEQ_MISORDERED && r.resarray.len == 1 &&
	   r.resarray.val[0].u.opcbsequence.csr_status == NFS4ERR_SEQ_MISORDERED,
	   "sequence id 3 after 1: SEQ_MISORDERED");
	ops[0] = seq_op(NC4_CB_SLOTS, 1);
	compound(1, ops, 2);
	ok(answer(&r) && r.status == NFS4ERR_BADSLOT, "slot %u: BADSLOT", NC4_CB_SLOTS);
	ops[0] = seq_op(1, 1);
	ops[0].u.opcbsequence.csa_sessionid.val[0] ^= 1;
	compound(1, ops, 2);
	ok(answer(&r) && r.status == NFS4ERR_BADSESSION, "another session: BADSESSION");
	other.other[0] ^= 0xff;
	ops[0] = seq_op(0, 2);
	ops[1] = recall_op(&other);
	compound(1, ops, 2);
	ok(answer(&r) && r.status == NFS4ERR_BAD_STATEID && r.resarray.len == 2 &&
	   res_status(&r.resarray.val[1]) == NFS4ERR_BAD_STATEID && cb->n.recalls_unknown == 1,
	   "CB_RECALL of a stateid not held: BAD_STATEID");
	ops[0] = recall_op(&held);
	compound(1, ops, 1);
	ok(answer(&r) && r.status == NFS4ERR_OP_NOT_IN_SESSION && r.resarray.len == 1,
	   "no CB_SEQUENCE first: OP_NOT_IN_SESSION");
	ops[0] = seq_op(1, 1);
	ops[1] = seq_op(2, 1);
	compound(1, ops, 2);
	ok(answer(&r) && r.status == NFS4ERR_SEQUENCE_POS && r.resarray.len == 2,
	   "a second CB_SEQUENCE: SEQUENCE_POS");
	ops[0] = seq_op(1, 2);
	memset(&ops[1], 0, sizeof(ops[1]));
	ops[1].argop = OP_CB_RECALL_ANY;
	compound(1, ops, 2);
	ok(answer(&r) && r.status == NFS4ERR_NOTSUPP && r.resarray.len == 2 &&
	   r.resarray.val[1].resop == OP_CB_RECALL_ANY, "CB_RECALL_ANY: NOTSUPP");
	ops[0] = seq_op(1, 3);
	memset(&ops[1], 0, sizeof(ops[1]));
	ops[1].argop = OP_CB_ILLEGAL;
	compound(1, ops, 2);
	ok(answer(&r) && r.status == NFS4ERR_OP_ILLEGAL && r.resarray.len == 2 &&
	   r.resarray.val[1].resop == OP_CB_ILLEGAL, "OP_CB_ILLEGAL: OP_ILLEGAL");
	ops[0] = seq_op(1, 4);
	compound(1, ops, 2);
	xdr__put32(call + clen - 4, 99); /* CB_ILLEGAL has no arguments: now 99 */
	ok(answer(&r) && r.status == NFS4ERR_OP_ILLEGAL && r.resarray.len == 2 &&
	   r.resarray.val[1].resop == OP_CB_ILLEGAL, "operation 99: OP_ILLEGAL");
	ops[0] = seq_op(1, 5);
	compound(0, ops, 1);
	ok(answer(&r) && r.status == NFS4ERR_MINOR_VERS_MISMATCH && r.resarray.len == 0,
	   "minor version 0: MINOR_VERS_MISMATCH, no results");
	for (unsigned i = 0; i < NC4_CB_MAXOPS + 1; i++)
		ops[i] = i ? recall_op(&held) : seq_op(1, 5);
	compound(1, ops, NC4_CB_MAXOPS + 1);
	recalls = 0;
	ok(answer(&r) && r.status == NFS4ERR_TOO_MANY_OPS && recalls == 0,
	   "%u operations: TOO_MANY_OPS", NC4_CB_MAXOPS + 1);
}

static void test_cut(void)
{
	struct nfs_cb_argop4 ops[2];
	size_t full, i, bad = 0;

	ops[0] = seq_op(3, 1);
	ops[1] = recall_op(&held);
	compound(1, ops, 2);
	full = clen;
	for (i = 0; i < full; i++) {
		size_t n;

		clen = i;
		n = serve();
		if (n > NC4_CB_OUT_MAX || (n && (xdr__get32(out) & 0x7fffffffu) != n - 4))
			bad++;
	}
	ok(bad == 0, "every cut of a call: a well-formed reply or none");
	/* a cut after CB_SEQUENCE used the slot up: a new session's slots */
	nc4_cb_reset(cb, &sess);
	clen = full;
	ok(serve() && cb->slots[3].seq == 1, "the whole call uses the slot");
}

int main(void)
{
	cb = calloc(1, sizeof(*cb));
	if (!cb)
		return 1;
	nc4_cb_reset(cb, &sess);
	test_rpc();
	test_sequence();
	test_cut();
	free(cb);
	return tap_done();
}
