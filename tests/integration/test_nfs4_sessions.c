// SPDX-License-Identifier: MIT
/*
 * NFSv4.1 sessions on the wire against nfsxd: EXCHANGE_ID,
 * CREATE_SESSION and SEQUENCE before other operations; a retransmitted
 * SEQUENCE answered from the slot's cache byte for byte; an uncached
 * one; the position rules of a 4.1 COMPOUND; the session's size limits
 * (REP_TOO_BIG, REP_TOO_BIG_TO_CACHE, REQ_TOO_BIG); two sessions;
 * DESTROY_SESSION, DESTROY_CLIENTID, BIND_CONN_TO_SESSION,
 * RECLAIM_COMPLETE and SECINFO_NO_NAME.
 *
 * Usage: test_nfs4_sessions PORT EXPORT_PATH
 * (run-nfs4-sessions.sh starts nfsxd with EXPORT_PATH, a directory of
 * 300 files, exported to 127.0.0.1.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nfs4_raw.h"
#include "rpc_client.h"
#include "../tap.h"

static int fd = -1;
static uint16_t port;
static struct v4_fh exp_fh;

/* A copy of a reply's bytes after the RPC header. */
struct bytes {
	uint8_t *p;
	size_t n;
};

static struct bytes keep(const struct v4_res *r)
{
	struct bytes b = { NULL, 0 };

	if (r->rc == 1 && r->r.body) {
		b.p = malloc(r->r.body_len);
		if (b.p) {
			memcpy(b.p, r->r.body, r->r.body_len);
			b.n = r->r.body_len;
		}
	}
	return b;
}

static bool seq_ok(const struct v4_res *r)
{
	return r->nops >= 1 && r->ops[0].resop == OP_SEQUENCE &&
	       r->ops[0].u.opsequence.sr_status == NFS4_OK;
}

static void test_happy(struct v4_session *s)
{
	struct nfs_argop4 ops[4];
	struct v4_res r;
	uint32_t w[3], nw;
	const struct EXCHANGE_ID4resok *x;
	long st;

	v4_res_init(&r);
	v4op_exchange_id(&ops[0], "sessions-a", 1, 0);
	ok(v4_call41(fd, ops, 1, &r) && r.status == NFS4_OK && r.nops == 1,
	   "EXCHANGE_ID alone: OK");
	x = &r.ops[0].u.opexchange_id.u.eir_resok4;
	ok(r.nops == 1 && (x->eir_flags & EXCHGID4_FLAG_USE_NON_PNFS) &&
	   !(x->eir_flags & EXCHGID4_FLAG_CONFIRMED_R) && x->eir_sequenceid == 1 &&
	   x->eir_state_protect.spr_how == SP4_NONE &&
	   x->eir_server_owner.so_major_id.len > 0 && x->eir_server_scope.len > 0,
	   "a new client: USE_NON_PNFS, unconfirmed, seqid 1, SP4_NONE, an owner and a scope");
	v4_diag(&r);
	st = v4_session_open(fd, "sessions-a", 1, 65536, 65536, 4096, 8, s);
	ok(st == NFS4_OK && s->fore.ca_maxrequests == 8 && s->fore.ca_maxresponsesize_cached == 4096,
	   "EXCHANGE_ID, CREATE_SESSION: OK, 8 slots (%ld)", st);
	v4op_exchange_id(&ops[0], "sessions-a", 1, 0);
	ok(v4_call41(fd, ops, 1, &r) && r.status == NFS4_OK &&
	   (r.ops[0].u.opexchange_id.u.eir_resok4.eir_flags & EXCHGID4_FLAG_CONFIRMED_R) &&
	   r.ops[0].u.opexchange_id.u.eir_resok4.eir_clientid == s->clientid,
	   "EXCHANGE_ID again: the same clientid, CONFIRMED_R");
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_simple(&ops[1], OP_PUTROOTFH);
	nw = v4_bits(w, FATTR4_TYPE, FATTR4_LEASE_TIME, -1);
	v4op_getattr(&ops[2], w, nw);
	ok(v4_call41(fd, ops, 3, &r) && r.status == NFS4_OK && r.nops == 3 && seq_ok(&r) &&
	   r.ops[0].u.opsequence.u.sr_resok4.sr_highest_slotid == 7 &&
	   r.ops[0].u.opsequence.u.sr_resok4.sr_status_flags == 0,
	   "SEQUENCE, PUTROOTFH, GETATTR: OK, highest slot 7, no status flags");
	v4_diag(&r);
	v4_res_free(&r);
}

static void test_replay(struct v4_session *s)
{
	struct nfs_argop4 ops[3];
	struct v4_res r;
	struct bytes first;
	sequenceid4 sq;

	v4_res_init(&r);
	v4op_seq_next(&ops[0], s, 1, true);
	v4op_simple(&ops[1], OP_PUTROOTFH);
	v4op_simple(&ops[2], OP_GETFH);
	ok(v4_compound(fd, 0, 0, "first", 5, 1, ops, 3, &r) && r.status == NFS4_OK && r.nops == 3,
	   "SEQUENCE (cache this), PUTROOTFH, GETFH on slot 1");
	first = keep(&r);
	/* the same request again, but for its tag: a reply run again
	 * would echo the new tag, the cached one has the first's */
	ok(v4_compound(fd, 0, 0, "again", 5, 1, ops, 3, &r) && r.status == NFS4_OK &&
	   r.r.body_len == first.n && !memcmp(r.r.body, first.p, first.n) &&
	   r.tag.len == 5 && !memcmp(r.tag.data, "first", 5),
	   "its retransmission: the cached reply, byte for byte (%zu bytes)", first.n);
	free(first.p);
	ok(v4_compound(fd, 0, 0, "again", 5, 1, ops, 3, &r) && r.tag.len == 5 &&
	   !memcmp(r.tag.data, "first", 5), "and again");

	v4op_seq_next(&ops[0], s, 2, false);
	ok(v4_call41(fd, ops, 3, &r) && r.status == NFS4_OK, "slot 2, not cached: OK");
	ok(v4_call41(fd, ops, 3, &r) && r.status == NFS4ERR_RETRY_UNCACHED_REP && r.nops == 2 &&
	   seq_ok(&r) && r.ops[1].resop == OP_PUTROOTFH &&
	   r.ops[1].u.opputrootfh.status == NFS4ERR_RETRY_UNCACHED_REP,
	   "its retransmission: SEQUENCE OK, then RETRY_UNCACHED_REP");
	v4_diag(&r);

	sq = s->slot_seq[2] + 2;
	v4op_sequence(&ops[0], &s->sid, sq, 2, false);
	ok(v4_call41(fd, ops, 1, &r) && r.status == NFS4ERR_SEQ_MISORDERED && r.nops == 1,
	   "seqid + 2: SEQ_MISORDERED");
	v4op_sequence(&ops[0], &s->sid, 1, 8, false);
	ok(v4_call41(fd, ops, 1, &r) && r.status == NFS4ERR_BADSLOT, "slot 8 of 8: BADSLOT");
	v4_res_free(&r);
}

static void test_positions(struct v4_session *s)
{
	struct nfs_argop4 ops[3];
	struct v4_res r;

	v4_res_init(&r);
	v4op_simple(&ops[0], OP_PUTROOTFH);
	v4op_simple(&ops[1], OP_GETFH);
	ok(v4_call41(fd, ops, 2, &r) && r.status == NFS4ERR_OP_NOT_IN_SESSION && r.nops == 1 &&
	   r.ops[0].resop == OP_PUTROOTFH, "PUTROOTFH first: OP_NOT_IN_SESSION");
	v4op_exchange_id(&ops[0], "sessions-x", 1, 0);
	ok(v4_call41(fd, ops, 2, &r) && r.status == NFS4ERR_NOT_ONLY_OP && r.nops == 1,
	   "EXCHANGE_ID then PUTROOTFH: NOT_ONLY_OP");
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_simple(&ops[1], OP_PUTROOTFH);
	v4op_seq_next(&ops[2], s, 3, false);
	ok(v4_call41(fd, ops, 3, &r) && r.status == NFS4ERR_SEQUENCE_POS && r.nops == 3 &&
	   r.ops[2].resop == OP_SEQUENCE, "SEQUENCE third: SEQUENCE_POS");
	s->slot_seq[3]--;
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_simple(&ops[1], OP_RENEW);
	ok(v4_call41(fd, ops, 2, &r) && r.status == NFS4ERR_NOTSUPP && r.nops == 2,
	   "RENEW in 4.1: NOTSUPP");
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_simple(&ops[1], OP_PUTROOTFH);
	ok(v4_compound(fd, 0, 0, "t", 1, 3, ops, 2, &r) &&
	   r.status == NFS4ERR_MINOR_VERS_MISMATCH && r.nops == 0,
	   "minor version 3: MINOR_VERS_MISMATCH");
	s->slot_seq[0]--;
	/* 4.2 shares 4.1's sessions (RFC 7862 changes none of them) */
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_simple(&ops[1], OP_PUTROOTFH);
	ok(v4_compound(fd, 0, 0, "t", 1, 2, ops, 2, &r) && r.status == NFS4_OK && r.nops == 2,
	   "minor version 2: SEQUENCE and PUTROOTFH in the 4.1 session");
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_simple(&ops[1], OP_RENEW);
	ok(v4_compound(fd, 0, 0, "t", 1, 2, ops, 2, &r) && r.status == NFS4ERR_NOTSUPP && r.nops == 2,
	   "RENEW in 4.2: NOTSUPP");
	v4_res_free(&r);
}

static void test_misc_ops(struct v4_session *s)
{
	struct nfs_argop4 ops[4];
	struct v4_res r;

	v4_res_init(&r);
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_reclaim_complete(&ops[1], false);
	ok(v4_call41(fd, ops, 2, &r) && r.status == NFS4_OK, "RECLAIM_COMPLETE: OK");
	v4op_seq_next(&ops[0], s, 0, false);
	ok(v4_call41(fd, ops, 2, &r) && r.status == NFS4ERR_COMPLETE_ALREADY,
	   "RECLAIM_COMPLETE again: COMPLETE_ALREADY");
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_putfh(&ops[1], &exp_fh);
	v4op_secinfo_no_name(&ops[2], SECINFO_STYLE4_CURRENT_FH);
	v4op_simple(&ops[3], OP_GETFH);
	ok(v4_call41(fd, ops, 4, &r) && r.nops == 4 &&
	   r.ops[2].u.opsecinfo_no_name.status == NFS4_OK &&
	   r.ops[2].u.opsecinfo_no_name.u.resok4.len == 2 &&
	   r.ops[2].u.opsecinfo_no_name.u.resok4.val[0].flavor == 1 &&
	   r.ops[2].u.opsecinfo_no_name.u.resok4.val[1].flavor == 0 &&
	   r.status == NFS4ERR_NOFILEHANDLE,
	   "SECINFO_NO_NAME (no sec=): AUTH_SYS, AUTH_NONE as knfsd, and the current filehandle is consumed");
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_simple(&ops[1], OP_PUTROOTFH);
	v4op_secinfo_no_name(&ops[2], SECINFO_STYLE4_PARENT);
	ok(v4_call41(fd, ops, 3, &r) && r.status == NFS4ERR_NOENT,
	   "SECINFO_NO_NAME of the root's parent: NOENT");
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_putfh(&ops[1], &exp_fh);
	v4op_secinfo_no_name(&ops[2], SECINFO_STYLE4_PARENT);
	ok(v4_call41(fd, ops, 3, &r) && r.status == NFS4_OK,
	   "SECINFO_NO_NAME of the export's parent: OK");
	v4_res_free(&r);
}

/* The current stateid (RFC 8881 16.2.3.1.2): seqid 1, other all zeros,
 * stands for the one the COMPOUND's OPEN returned (after
 * RECLAIM_COMPLETE, which test_misc_ops sent). */
static void test_current_stateid(struct v4_session *s)
{
	const struct stateid4 cur = { .seqid = 1 };
	struct nfs_argop4 ops[8];
	struct v4_res r;

	v4_res_init(&r);
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_putfh(&ops[1], &exp_fh);
	v4op_open(&ops[2], 0, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, 0, "cs-owner",
		  "file-with-a-long-name-007");
	v4op_read(&ops[3], &cur, 0, 16);
	v4op_simple(&ops[4], OP_SAVEFH);
	v4op_simple(&ops[5], OP_PUTROOTFH);
	v4op_simple(&ops[6], OP_RESTOREFH);
	v4op_close(&ops[7], 0, &cur);
	ok(v4_call41(fd, ops, 8, &r) && r.status == NFS4_OK && r.nops == 8,
	   "OPEN, then READ and (after SAVEFH, PUTROOTFH, RESTOREFH) CLOSE with the current "
	   "stateid: OK (%u results, status %u)", r.nops, r.status);
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_putfh(&ops[1], &exp_fh);
	v4op_lookup(&ops[2], "file-with-a-long-name-007");
	v4op_read(&ops[3], &cur, 0, 16);
	ok(v4_call41(fd, ops, 4, &r) && r.status == NFS4ERR_BAD_STATEID && r.nops == 4,
	   "the current stateid where no operation of the COMPOUND set one: BAD_STATEID");
	v4_res_free(&r);
}

static void test_limits(void)
{
	struct v4_session s = { 0 }, t = { 0 };
	struct nfs_argop4 ops[3];
	struct v4_res r;
	uint32_t w[3], nw = v4_bits(w, FATTR4_TYPE, -1);
	char longname[700];
	long st;

	v4_res_init(&r);
	st = v4_session_open(fd, "sessions-small", 1, 1024, 512, 512, 2, &s);
	ok(st == NFS4_OK && s.fore.ca_maxresponsesize == 512 && s.fore.ca_maxrequestsize == 1024,
	   "a session of 1024-byte requests and 512-byte replies (%ld)", st);
	v4op_seq_next(&ops[0], &s, 0, false);
	v4op_putfh(&ops[1], &exp_fh);
	v4op_readdir(&ops[2], 0, 32768, w, nw);
	ok(v4_call41(fd, ops, 3, &r) && r.status == NFS4ERR_REP_TOO_BIG && r.nops == 3 &&
	   seq_ok(&r) && r.ops[2].resop == OP_READDIR &&
	   r.ops[2].u.opreaddir.status == NFS4ERR_REP_TOO_BIG && r.rc == 1 &&
	   r.r.body_len + 24 <= 512,
	   "READDIR of 300 entries: REP_TOO_BIG, the reply within 512 bytes (%zu + header)",
	   r.r.body_len);
	v4_diag(&r);
	v4op_seq_next(&ops[0], &s, 1, false);
	v4op_putfh(&ops[1], &exp_fh);
	v4op_getattr(&ops[2], w, nw);
	ok(v4_call41(fd, ops, 3, &r) && r.status == NFS4_OK, "a small reply fits");
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	{
		struct nfs_argop4 big[4];

		v4op_seq_next(&big[0], &s, 1, false);
		v4op_putfh(&big[1], &exp_fh);
		v4op_lookup(&big[2], longname);
		v4op_lookup(&big[3], longname);
		ok(v4_call41(fd, big, 4, &r) && r.status == NFS4ERR_REQ_TOO_BIG && r.nops == 1,
		   "a request over 1024 bytes: REQ_TOO_BIG");
	}
	s.slot_seq[1]--;

	st = v4_session_open(fd, "sessions-cache", 1, 65536, 65536, 512, 2, &t);
	ok(st == NFS4_OK && t.fore.ca_maxresponsesize_cached == 512, "a session caching 512 bytes");
	v4op_seq_next(&ops[0], &t, 0, true);
	v4op_putfh(&ops[1], &exp_fh);
	v4op_readdir(&ops[2], 0, 32768, w, nw);
	ok(v4_call41(fd, ops, 3, &r) && r.status == NFS4ERR_REP_TOO_BIG_TO_CACHE &&
	   r.ops[2].u.opreaddir.status == NFS4ERR_REP_TOO_BIG_TO_CACHE,
	   "READDIR with cache this: REP_TOO_BIG_TO_CACHE");
	v4op_seq_next(&ops[0], &t, 0, false);
	ok(v4_call41(fd, ops, 3, &r) && r.status == NFS4_OK && r.nops == 3 &&
	   r.ops[2].u.opreaddir.u.resok4.reply.entries != NULL,
	   "the same without: OK, the whole listing");

	/* nothing may be cached: SEQUENCE asking for it fails before it
	 * takes the slot, whose seqid is then still the next one */
	memset(&t, 0, sizeof(t));
	st = v4_session_open(fd, "sessions-nocache", 1, 65536, 65536, 0, 2, &t);
	ok(st == NFS4_OK && t.fore.ca_maxresponsesize_cached == 0, "a session caching nothing");
	v4op_seq_next(&ops[0], &t, 0, true);
	ok(v4_call41(fd, ops, 1, &r) && r.status == NFS4ERR_REP_TOO_BIG_TO_CACHE && r.nops == 1,
	   "SEQUENCE with cache this: REP_TOO_BIG_TO_CACHE");
	v4op_sequence(&ops[0], &t.sid, t.slot_seq[0], 0, false);
	v4op_simple(&ops[1], OP_PUTROOTFH);
	ok(v4_call41(fd, ops, 2, &r) && r.status == NFS4_OK,
	   "the same seqid without: OK (the slot was not taken)");
	v4_res_free(&r);
}

static void test_two_sessions_and_destroy(struct v4_session *a)
{
	struct v4_session b = { 0 };
	struct nfs_argop4 ops[2];
	struct v4_res r;
	int fd2;

	v4_res_init(&r);
	b.clientid = a->clientid;
	b.cs_seq = a->cs_seq;
	ok(v4_session_open(fd, NULL, 0, 65536, 65536, 0, 4, &b) == NFS4_OK &&
	   memcmp(&b.sid, &a->sid, sizeof(b.sid)) != 0, "a second session of the client");
	a->cs_seq = b.cs_seq;
	v4op_seq_next(&ops[0], &b, 0, false);
	v4op_simple(&ops[1], OP_PUTROOTFH);
	ok(v4_call41(fd, ops, 2, &r) && r.status == NFS4_OK, "its slot 0 starts at seqid 1");
	v4op_seq_next(&ops[0], a, 0, false);
	ok(v4_call41(fd, ops, 2, &r) && r.status == NFS4_OK, "the first session's goes on");

	fd2 = rpc_connect(port, 5000);
	v4op_bind_conn(&ops[0], &b.sid, CDFC4_BACK_OR_BOTH);
	ok(fd2 >= 0 && v4_call41(fd2, ops, 1, &r) && r.status == NFS4_OK &&
	   r.ops[0].u.opbind_conn_to_session.u.bctsr_resok4.bctsr_dir == CDFS4_BOTH &&
	   !memcmp(&r.ops[0].u.opbind_conn_to_session.u.bctsr_resok4.bctsr_sessid, &b.sid,
		   sizeof(b.sid)),
	   "BIND_CONN_TO_SESSION from a second connection: BOTH");
	v4op_seq_next(&ops[0], &b, 1, false);
	v4op_simple(&ops[1], OP_PUTROOTFH);
	ok(fd2 >= 0 && v4_call41(fd2, ops, 2, &r) && r.status == NFS4_OK,
	   "the session's SEQUENCE on that connection");
	if (fd2 >= 0)
		close(fd2);

	v4op_destroy_clientid(&ops[0], a->clientid);
	ok(v4_call41(fd, ops, 1, &r) && r.status == NFS4ERR_CLIENTID_BUSY,
	   "DESTROY_CLIENTID with sessions: CLIENTID_BUSY");
	v4op_destroy_session(&ops[0], &b.sid);
	ok(v4_call41(fd, ops, 1, &r) && r.status == NFS4_OK, "DESTROY_SESSION alone: OK");
	v4op_seq_next(&ops[0], &b, 0, false);
	ok(v4_call41(fd, ops, 1, &r) && r.status == NFS4ERR_BADSESSION,
	   "SEQUENCE on it: BADSESSION");
	{
		struct nfs_argop4 three[3];

		v4op_seq_next(&three[0], a, 0, false);
		v4op_destroy_session(&three[1], &a->sid);
		v4op_simple(&three[2], OP_PUTROOTFH);
		ok(v4_call41(fd, three, 3, &r) && r.status == NFS4ERR_NOT_ONLY_OP && r.nops == 2,
		   "DESTROY_SESSION of its own session not last: NOT_ONLY_OP");
		v4op_seq_next(&three[0], a, 0, false);
		v4op_bind_conn(&three[1], &a->sid, CDFC4_FORE);
		ok(v4_call41(fd, three, 2, &r) && r.status == NFS4ERR_NOT_ONLY_OP,
		   "BIND_CONN_TO_SESSION after SEQUENCE: NOT_ONLY_OP");
	}
	v4op_seq_next(&ops[0], a, 0, false);
	v4op_destroy_session(&ops[1], &a->sid);
	ok(v4_call41(fd, ops, 2, &r) && r.status == NFS4_OK,
	   "DESTROY_SESSION of its own session after SEQUENCE: OK");
	v4op_seq_next(&ops[0], a, 0, false);
	ok(v4_call41(fd, ops, 1, &r) && r.status == NFS4ERR_BADSESSION, "BADSESSION after");
	v4op_destroy_clientid(&ops[0], a->clientid);
	ok(v4_call41(fd, ops, 1, &r) && r.status == NFS4_OK,
	   "DESTROY_CLIENTID with no session: OK");
	ok(v4_call41(fd, ops, 1, &r) && r.status == NFS4ERR_STALE_CLIENTID,
	   "again: STALE_CLIENTID");
	v4op_exchange_id(&ops[0], "sessions-a", 1, 0);
	ok(v4_call41(fd, ops, 1, &r) && r.status == NFS4_OK &&
	   !(r.ops[0].u.opexchange_id.u.eir_resok4.eir_flags & EXCHGID4_FLAG_CONFIRMED_R),
	   "EXCHANGE_ID after: a new unconfirmed client");
	v4_res_free(&r);
}

static void test_create_errors(void)
{
	struct nfs_argop4 op;
	struct v4_res r;
	clientid4 cid;

	v4_res_init(&r);
	v4op_exchange_id(&op, "sessions-e", 1, 0);
	ok(v4_call41(fd, &op, 1, &r) && r.status == NFS4_OK, "EXCHANGE_ID");
	cid = r.nops ? r.ops[0].u.opexchange_id.u.eir_resok4.eir_clientid : 0;
	v4op_create_session(&op, cid, 1, 0, 65536, 65536, 0, 0);
	ok(v4_call41(fd, &op, 1, &r) && r.status == NFS4ERR_TOOSMALL,
	   "CREATE_SESSION with no slots: TOOSMALL");
	v4op_create_session(&op, cid, 7, 0, 65536, 65536, 0, 4);
	ok(v4_call41(fd, &op, 1, &r) && r.status == NFS4ERR_SEQ_MISORDERED,
	   "CREATE_SESSION with a wrong seqid: SEQ_MISORDERED");
	v4op_create_session(&op, cid, 1, CREATE_SESSION4_FLAG_CONN_BACK_CHAN, 65536, 65536, 0, 4);
	ok(v4_call41(fd, &op, 1, &r) && r.status == NFS4_OK &&
	   r.ops[0].u.opcreate_session.u.csr_resok4.csr_flags == CREATE_SESSION4_FLAG_CONN_BACK_CHAN,
	   "CREATE_SESSION with a back channel: granted");
	{
		struct bytes b = keep(&r);

		ok(v4_call41(fd, &op, 1, &r) && r.status == NFS4_OK && r.r.body_len == b.n &&
		   !memcmp(r.r.body, b.p, b.n), "its retransmission: the same reply");
		free(b.p);
	}
	v4op_exchange_id(&op, "sessions-e", 1, EXCHGID4_FLAG_CONFIRMED_R);
	ok(v4_call41(fd, &op, 1, &r) && r.status == NFS4ERR_INVAL,
	   "EXCHANGE_ID with a reply flag: INVAL");
	v4op_exchange_id(&op, "sessions-e", 1, 0);
	op.u.opexchange_id.eia_state_protect.spa_how = SP4_SSV;
	ok(!v4_call41(fd, &op, 1, &r) || r.status != NFS4_OK,
	   "EXCHANGE_ID with SP4_SSV: refused");
	v4_res_free(&r);
}

int main(int argc, char **argv)
{
	struct v4_session s = { 0 };

	if (argc != 3) {
		fprintf(stderr, "usage: %s PORT EXPORT_PATH\n", argv[0]);
		return 2;
	}
	port = (uint16_t)atoi(argv[1]);
	fd = rpc_connect(port, 5000);
	if (fd < 0) {
		printf("Bail out! cannot connect to 127.0.0.1:%s\n", argv[1]);
		return 1;
	}
	if (v4_walk(fd, argv[2], &exp_fh) != NFS4_OK) {
		printf("Bail out! no handle of %s\n", argv[2]);
		return 1;
	}
	test_happy(&s);
	test_replay(&s);
	test_positions(&s);
	test_misc_ops(&s);
	test_current_stateid(&s);
	test_limits();
	test_create_errors();
	test_two_sessions_and_destroy(&s);
	close(fd);
	return tap_done();
}
