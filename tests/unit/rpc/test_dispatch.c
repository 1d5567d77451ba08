/* SPDX-License-Identifier: MIT */
/*
 * rpc_dispatch (src/rpc/program.c) driven with hand-built requests
 * against a test program 0x20000001 (versions 1 and 3): SUCCESS with a
 * result, PROG_UNAVAIL, PROG_MISMATCH with the version range,
 * PROC_UNAVAIL (empty slot and out-of-range procedure), GARBAGE_ARGS
 * with the handler's partial output discarded, NULL with arguments,
 * RPC_MISMATCH, AUTH_ERROR and dropped replies, checked byte for byte.
 * With a duplicate request cache, a non-idempotent call retransmitted
 * (same xid, address, port and arguments) runs once and gets a
 * byte-identical reply, while any difference runs it again, and a
 * retransmission of a call still in progress is dropped. A 100000-byte
 * reply grows the reply buffer and rpc_req_release frees it (the
 * sanitizer build checks the leak); rpc_req_finish writes the marker.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "rpc/drc.h"
#include "rpc/program.h"
#include "rpc/record.h"
#include "rpc/req.h"
#include "tap.h"
#include "testutil.h"

#define TPROG 0x20000001u
#define BIG 100000u

static unsigned int counter;
static unsigned int big_runs;

static enum rpc_accept_stat p_echo(struct rpc_req *req)
{
	uint32_t v;

	if (!xdr_dec_u32(&req->args, &v) || xdr_dec_left(&req->args))
		return RPC_GARBAGE_ARGS;
	return xdr_enc_u32(&req->enc, v) ? RPC_SUCCESS : RPC_SYSTEM_ERR;
}

/* Version 3's echo answers the complement, to tell versions apart. */
static enum rpc_accept_stat p_echo3(struct rpc_req *req)
{
	uint32_t v;

	if (!xdr_dec_u32(&req->args, &v) || xdr_dec_left(&req->args))
		return RPC_GARBAGE_ARGS;
	return xdr_enc_u32(&req->enc, ~v) ? RPC_SUCCESS : RPC_SYSTEM_ERR;
}

/* Writes results, then changes its mind. */
static enum rpc_accept_stat p_garbage(struct rpc_req *req)
{
	xdr_enc_u32(&req->enc, 0x11111111);
	xdr_enc_u32(&req->enc, 0x22222222);
	return RPC_GARBAGE_ARGS;
}

static enum rpc_accept_stat p_count(struct rpc_req *req)
{
	counter++;
	return xdr_enc_u32(&req->enc, counter) ? RPC_SUCCESS : RPC_SYSTEM_ERR;
}

static uint8_t big_pat[BIG];

static enum rpc_accept_stat p_big(struct rpc_req *req)
{
	uint32_t n;

	big_runs++;
	if (!xdr_dec_u32(&req->args, &n) || n > BIG)
		return RPC_GARBAGE_ARGS;
	if (xdr_enc_room(&req->enc) < n)
		return RPC_SYSTEM_ERR;
	return xdr_enc_opaque_fixed(&req->enc, big_pat, n) ? RPC_SUCCESS
							   : RPC_SYSTEM_ERR;
}

static enum rpc_accept_stat p_syserr(struct rpc_req *req)
{
	xdr_enc_u32(&req->enc, 0x33333333);
	return RPC_SYSTEM_ERR;
}

/* Cached when its argument's first word is 1; leaves args as they were
 * (it reads a copy), as rpc_cache_this_fn must. */
static bool cache_first_one(struct rpc_req *req)
{
	struct xdr_dec d = req->args;
	uint32_t v;

	return xdr_dec_u32(&d, &v) && v == 1;
}

static const struct rpc_proc v1_procs[] = {
	[0] = RPC_PROC("NULL", rpc_proc_null, 0, 0),
	[1] = RPC_PROC("ECHO", p_echo, 0, 4),
	[2] = RPC_PROC("GARBAGE", p_garbage, 0, 8),
	[3] = RPC_PROC("COUNT", p_count, RPC_PROC_NONIDEMPOTENT, 4),
	[4] = RPC_PROC("EMPTY", NULL, 0, 0),
	[5] = RPC_PROC("BIG", p_big, 0, BIG),
	[6] = RPC_PROC("BIGCOUNT", p_big, RPC_PROC_NONIDEMPOTENT, BIG),
	[7] = RPC_PROC("SYSERR", p_syserr, 0, 4),
};

static const struct rpc_proc v3_procs[] = {
	[0] = RPC_PROC("NULL", rpc_proc_null, 0, 0),
	[1] = RPC_PROC("ECHO", p_echo3, 0, 4),
};

static const struct rpc_version tvers[] = {
	{ 1, sizeof(v1_procs) / sizeof(v1_procs[0]), v1_procs },
	{ 3, sizeof(v3_procs) / sizeof(v3_procs[0]), v3_procs },
};

static const struct rpc_program tprog = {
	.prog = TPROG,
	.name = "test",
	.nvers = 2,
	.versions = tvers,
};

static const struct rpc_program tprog_dup = {
	.prog = TPROG,
	.name = "dup",
	.nvers = 2,
	.versions = tvers,
};

static struct rpc_registry reg;
static struct wbuf w;
static struct test_req t;
static struct sockaddr_storage peer_a, peer_b, peer_c;

static void mkpeer(struct sockaddr_storage *ss, const char *ip, uint16_t port)
{
	struct sockaddr_in *s = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	s->sin_family = AF_INET;
	s->sin_port = htons(port);
	inet_pton(AF_INET, ip, &s->sin_addr);
}

static void test_registry(void)
{
	struct rpc_registry r2 = { 0 };
	static struct rpc_program many[RPC_MAX_PROGRAMS + 1];
	int i, fails = 0;

	ok(rpc_registry_add(&reg, &tprog) == 0, "registry: add test program");
	ok(rpc_registry_add(&reg, &tprog_dup) == -1,
	   "registry: same program number refused");
	ok(rpc_registry_find(&reg, TPROG) == &tprog, "registry: find");
	ok(rpc_registry_find(&reg, TPROG + 1) == NULL,
	   "registry: unknown program not found");
	for (i = 0; i < RPC_MAX_PROGRAMS + 1; i++) {
		int want = i < RPC_MAX_PROGRAMS ? 0 : -1;

		many[i].prog = 1000u + (uint32_t)i;
		if (rpc_registry_add(&r2, &many[i]) != want)
			fails++;
	}
	ok(fails == 0 && r2.n == RPC_MAX_PROGRAMS,
	   "registry: %d programs fit, one more is refused", RPC_MAX_PROGRAMS);
}

static void test_basic(void)
{
	static const uint32_t pu[] = { 1, 1, 0, 0, 0, RPC_PROG_UNAVAIL };
	static const uint32_t pm[] = { 2, 1, 0, 0, 0, RPC_PROG_MISMATCH, 1, 3 };
	static const uint32_t rm[] = { 3, 1, 1, 0, 2, 2 };
	static const uint32_t ae[] = { 4, 1, 1, 1, RPC_AUTH_BADCRED };
	static const uint32_t ae2[] = { 5, 1, 1, 1, RPC_AUTH_BADVERF };
	static const uint32_t echo[] = { 6, 1, 0, 0, 0, 0, 0xfeedface };
	static const uint32_t echo3[] = { 7, 1, 0, 0, 0, 0, ~0xfeedfaceu };
	static const uint32_t null[] = { 8, 1, 0, 0, 0, 0 };
	uint32_t pcu[] = { 0, 1, 0, 0, 0, RPC_PROC_UNAVAIL };
	uint32_t ga[] = { 0, 1, 0, 0, 0, RPC_GARBAGE_ARGS };
	uint32_t se[] = { 0, 1, 0, 0, 0, RPC_SYSTEM_ERR };

	w_call(&w, 6, TPROG, 1, 1);
	w_u32(&w, 0xfeedface);
	treq_run(&t, &reg, NULL, &w, &peer_a);
	ok(t.sent && words_eq(t.rep, t.rep_len, echo, 7),
	   "echo v1: SUCCESS + result (sent %d len %zu)", t.sent, t.rep_len);
	w_call(&w, 7, TPROG, 3, 1);
	w_u32(&w, 0xfeedface);
	treq_run(&t, &reg, NULL, &w, &peer_a);
	ok(t.sent && words_eq(t.rep, t.rep_len, echo3, 7),
	   "echo v3: version 3's handler ran");
	w_call(&w, 8, TPROG, 3, 0);
	treq_run(&t, &reg, NULL, &w, &peer_a);
	ok(t.sent && words_eq(t.rep, t.rep_len, null, 6),
	   "NULL: SUCCESS, 24 bytes");

	w_call(&w, 1, TPROG + 1, 1, 0);
	treq_run(&t, &reg, NULL, &w, &peer_a);
	ok(t.sent && words_eq(t.rep, t.rep_len, pu, 6), "PROG_UNAVAIL");

	w_call(&w, 2, TPROG, 2, 0);
	treq_run(&t, &reg, NULL, &w, &peer_a);
	ok(t.sent && words_eq(t.rep, t.rep_len, pm, 8),
	   "version 2: PROG_MISMATCH low 1 high 3");
	w_call(&w, 2, TPROG, 4, 0);
	treq_run(&t, &reg, NULL, &w, &peer_a);
	ok(t.sent && words_eq(t.rep, t.rep_len, pm, 8),
	   "version 4: PROG_MISMATCH low 1 high 3");

	pcu[0] = 9;
	w_call(&w, 9, TPROG, 1, 4);
	treq_run(&t, &reg, NULL, &w, &peer_a);
	ok(t.sent && words_eq(t.rep, t.rep_len, pcu, 6),
	   "empty slot: PROC_UNAVAIL");
	pcu[0] = 10;
	w_call(&w, 10, TPROG, 1, 8);
	treq_run(&t, &reg, NULL, &w, &peer_a);
	ok(t.sent && words_eq(t.rep, t.rep_len, pcu, 6),
	   "proc == nprocs: PROC_UNAVAIL");
	pcu[0] = 11;
	w_call(&w, 11, TPROG, 3, 2);
	treq_run(&t, &reg, NULL, &w, &peer_a);
	ok(t.sent && words_eq(t.rep, t.rep_len, pcu, 6),
	   "proc 2 of version 3 (2 procs): PROC_UNAVAIL");
	pcu[0] = 12;
	w_call(&w, 12, TPROG, 1, 0xffffffffu);
	treq_run(&t, &reg, NULL, &w, &peer_a);
	ok(t.sent && words_eq(t.rep, t.rep_len, pcu, 6),
	   "proc 0xFFFFFFFF: PROC_UNAVAIL");

	ga[0] = 13;
	w_call(&w, 13, TPROG, 1, 2);
	treq_run(&t, &reg, NULL, &w, &peer_a);
	ok(t.sent && words_eq(t.rep, t.rep_len, ga, 6),
	   "GARBAGE_ARGS: header only, handler output discarded (len %zu)",
	   t.rep_len);
	ga[0] = 14;
	w_call(&w, 14, TPROG, 1, 0);
	w_u32(&w, 0);
	treq_run(&t, &reg, NULL, &w, &peer_a);
	ok(t.sent && words_eq(t.rep, t.rep_len, ga, 6),
	   "NULL with 4 bytes of arguments: GARBAGE_ARGS");
	ga[0] = 15;
	w_call(&w, 15, TPROG, 1, 1);
	treq_run(&t, &reg, NULL, &w, &peer_a);
	ok(t.sent && words_eq(t.rep, t.rep_len, ga, 6),
	   "echo without its argument: GARBAGE_ARGS");
	ga[0] = 16;
	w_call(&w, 16, TPROG, 1, 1);
	w.b[w.n++] = 1;
	w.b[w.n++] = 2;
	treq_run(&t, &reg, NULL, &w, &peer_a);
	ok(t.sent && words_eq(t.rep, t.rep_len, ga, 6),
	   "echo with 2 bytes of argument: GARBAGE_ARGS");
	se[0] = 17;
	w_call(&w, 17, TPROG, 1, 7);
	treq_run(&t, &reg, NULL, &w, &peer_a);
	ok(t.sent && words_eq(t.rep, t.rep_len, se, 6),
	   "SYSTEM_ERR: header only, handler output discarded");

	w_call(&w, 3, TPROG, 1, 0);
	w.b[11] = 3; /* rpcvers */
	treq_run(&t, &reg, NULL, &w, &peer_a);
	ok(t.sent && words_eq(t.rep, t.rep_len, rm, 6), "rpcvers 3: RPC_MISMATCH");

	w_call(&w, 4, TPROG, 1, 0);
	w.b[27] = 7; /* credential flavor */
	treq_run(&t, &reg, NULL, &w, &peer_a);
	ok(t.sent && words_eq(t.rep, t.rep_len, ae, 5),
	   "cred flavor 7: AUTH_ERROR BADCRED");
	w_call(&w, 5, TPROG, 1, 0);
	w.b[35] = 1; /* verifier flavor */
	treq_run(&t, &reg, NULL, &w, &peer_a);
	ok(t.sent && words_eq(t.rep, t.rep_len, ae2, 5),
	   "verifier flavor 1: AUTH_ERROR BADVERF");
	w_call(&w, 5, TPROG + 1, 1, 0);
	w.b[35] = 1;
	treq_run(&t, &reg, NULL, &w, &peer_a);
	ok(t.sent && words_eq(t.rep, t.rep_len, ae2, 5),
	   "bad verifier is reported before an unknown program");

	w_call(&w, 6, TPROG, 1, 0);
	w.b[7] = RPC_MSG_REPLY;
	ok(!treq_run(&t, &reg, NULL, &w, &peer_a), "mtype REPLY: dropped");
	w.n = 20;
	ok(!treq_run(&t, &reg, NULL, &w, &peer_a),
	   "header cut before the credential: dropped");
	w.n = 0;
	ok(!treq_run(&t, &reg, NULL, &w, &peer_a), "empty record: dropped");
}

static void test_finish(void)
{
	static const uint32_t echo[] = { 0x55, 1, 0, 0, 0, 0, 77 };
	struct rpc_req *req = t.req;

	w_call(&w, 0x55, TPROG, 1, 1);
	w_u32(&w, 77);
	treq_run(&t, &reg, NULL, &w, &peer_a);
	rpc_req_finish(req);
	ok(req->tx_len == 32 && get32(req->reply) == (RPC_RM_LAST | 28u) &&
	   words_eq(req->reply + 4, 28, echo, 7) && req->tx_done == 0,
	   "rpc_req_finish: marker 0x8000001C then the reply (tx_len %zu)",
	   req->tx_len);
}

/* Retransmissions through rpc_dispatch with a duplicate request cache. */
static void test_drc(void)
{
	struct rpc_drc *drc = rpc_drc_create(1u << 20);
	struct rpc_drc_stats st;
	struct rpc_drc_key key;
	uint8_t first[64];
	size_t first_len;
	struct rpc_call call;
	enum rpc_auth_stat as;
	struct xdr_dec d;
	uint32_t want[] = { 0x100, 1, 0, 0, 0, 0, 1 };

	ok(drc != NULL, "rpc_drc_create(1 MiB)");
	counter = 0;

	/* Without a cache, a non-idempotent call simply runs each time. */
	w_call(&w, 0x99, TPROG, 1, 3);
	treq_run(&t, &reg, NULL, &w, &peer_a);
	treq_run(&t, &reg, NULL, &w, &peer_a);
	ok(counter == 2, "no DRC: the handler runs twice (%u)", counter);
	counter = 0;

	w_call(&w, 0x100, TPROG, 1, 3);
	w_u32(&w, 0xabcdef01); /* ignored by the handler, part of the key */
	treq_run(&t, &reg, drc, &w, &peer_a);
	ok(t.sent && words_eq(t.rep, t.rep_len, want, 7) && counter == 1,
	   "DRC: first call runs (counter %u)", counter);
	first_len = t.rep_len;
	memcpy(first, t.rep, first_len);
	treq_run(&t, &reg, drc, &w, &peer_a);
	ok(t.sent && counter == 1, "DRC: retransmission does not run again "
	   "(counter %u)", counter);
	ok(t.rep_len == first_len && memcmp(t.rep, first, first_len) == 0,
	   "DRC: retransmission's reply is byte-identical");
	treq_run(&t, &reg, drc, &w, &peer_a);
	ok(t.sent && counter == 1 && t.rep_len == first_len &&
	   memcmp(t.rep, first, first_len) == 0,
	   "DRC: a third copy also gets the cached reply");

	w.b[3] = 0x01; /* xid 0x101 */
	treq_run(&t, &reg, drc, &w, &peer_a);
	ok(t.sent && counter == 2 && get32(t.rep) == 0x101 &&
	   get32(t.rep + 24) == 2, "DRC: different xid runs again (counter %u)",
	   counter);
	w.b[3] = 0x00;

	treq_run(&t, &reg, drc, &w, &peer_b);
	ok(t.sent && counter == 3 && get32(t.rep + 24) == 3,
	   "DRC: same xid from another port runs again (counter %u)", counter);
	treq_run(&t, &reg, drc, &w, &peer_c);
	ok(t.sent && counter == 4 && get32(t.rep + 24) == 4,
	   "DRC: same xid from another address runs again (counter %u)",
	   counter);

	w.b[w.n - 1] ^= 0xff;
	treq_run(&t, &reg, drc, &w, &peer_a);
	ok(t.sent && counter == 5 && get32(t.rep + 24) == 5,
	   "DRC: same xid with different arguments runs again (counter %u)",
	   counter);
	w_u32(&w, 0);
	treq_run(&t, &reg, drc, &w, &peer_a);
	ok(t.sent && counter == 6,
	   "DRC: same xid with longer arguments runs again (counter %u)",
	   counter);
	w.n -= 4;
	w.b[w.n - 1] ^= 0xff;

	/* An idempotent procedure is not cached. */
	w_call(&w, 0x100, TPROG, 1, 1);
	w_u32(&w, 5);
	treq_run(&t, &reg, drc, &w, &peer_a);
	ok(t.sent && get32(t.rep + 24) == 5 && counter == 6,
	   "DRC: idempotent echo with a cached xid runs normally");

	/* A retransmission while the original is still running: dropped. */
	w_call(&w, 0x200, TPROG, 1, 3);
	xdr_dec_init(&d, w.b, w.n, NULL);
	rpc_decode_call(&d, &call, &as);
	rpc_drc_make_key(&key, 0x200, TPROG, 1, 3, &peer_a, d.p,
			 xdr_dec_left(&d));
	ok(rpc_drc_lookup(drc, &key, NULL, NULL) == RPC_DRC_MISS,
	   "DRC: the original enters the cache");
	ok(!treq_run(&t, &reg, drc, &w, &peer_a) && counter == 6,
	   "DRC: retransmission while in progress is dropped");
	rpc_drc_abandon(drc, &key);
	ok(treq_run(&t, &reg, drc, &w, &peer_a) && counter == 7,
	   "DRC: after abandon the call runs (counter %u)", counter);

	rpc_drc_get_stats(drc, &st);
	ok(st.hits == 2 && st.in_progress_drops == 1,
	   "DRC stats: 2 hits, 1 in-progress drop (hits %llu drops %llu)",
	   (unsigned long long)st.hits,
	   (unsigned long long)st.in_progress_drops);

	/* A big non-idempotent reply comes back from the cache intact. */
	big_runs = 0;
	w_call(&w, 0x300, TPROG, 1, 6);
	w_u32(&w, 5000);
	treq_run(&t, &reg, drc, &w, &peer_a);
	ok(t.sent && t.rep_len == 24 + 5000 && big_runs == 1,
	   "DRC: 5000-byte reply (len %zu)", t.rep_len);
	treq_run(&t, &reg, drc, &w, &peer_a);
	ok(t.sent && big_runs == 1 && t.rep_len == 24 + 5000 &&
	   get32(t.rep) == 0x300 && get32(t.rep + 20) == 0 &&
	   memcmp(t.rep + 24, big_pat, 5000) == 0,
	   "DRC: its retransmission gets all 5000 bytes from the cache "
	   "(runs %u len %zu)", big_runs, t.rep_len);
	rpc_drc_destroy(drc);
}

/* A procedure whose arguments decide (rpc_proc.cache_this, NFSv4.0's
 * COMPOUND): cached when it says so, run every time when it does not. */
static void test_cache_this(void)
{
	static const struct rpc_proc procs[] = {
		[0] = RPC_PROC("NULL", rpc_proc_null, 0, 0),
		[1] = { .name = "MAYBE", .handler = p_count, .max_reply = 4,
			.cache_this = cache_first_one },
	};
	static const struct rpc_version vers[] = { { 1, 2, procs } };
	static const struct rpc_program prog = {
		.prog = TPROG + 1, .name = "maybe", .nvers = 1, .versions = vers,
	};
	struct rpc_drc *drc = rpc_drc_create(1u << 20);
	struct rpc_registry reg2 = { 0 };
	uint8_t first[64];
	size_t first_len;

	ok(rpc_registry_add(&reg2, &prog) == 0, "a program with a cache_this procedure");

	counter = 0;
	w_call(&w, 0x400, TPROG + 1, 1, 1);
	w_u32(&w, 1);
	treq_run(&t, &reg2, drc, &w, &peer_a);
	ok(t.sent && counter == 1 && get32(t.rep + 24) == 1,
	   "cache_this true: the first call runs (counter %u)", counter);
	first_len = t.rep_len;
	memcpy(first, t.rep, first_len);
	treq_run(&t, &reg2, drc, &w, &peer_a);
	ok(t.sent && counter == 1 && t.rep_len == first_len &&
	   memcmp(t.rep, first, first_len) == 0,
	   "cache_this true: the retransmission gets the cached reply (counter %u)",
	   counter);

	w_call(&w, 0x401, TPROG + 1, 1, 1);
	w_u32(&w, 0);
	treq_run(&t, &reg2, drc, &w, &peer_a);
	treq_run(&t, &reg2, drc, &w, &peer_a);
	ok(t.sent && counter == 3 && get32(t.rep + 24) == 3,
	   "cache_this false: the retransmission runs again (counter %u)", counter);
	treq_run(&t, &reg2, NULL, &w, &peer_a);
	ok(t.sent && counter == 4, "no DRC: cache_this is not asked, the call runs");
	rpc_drc_destroy(drc);
}

static void test_big(void)
{
	struct rpc_req *req = t.req;

	w_call(&w, 0x400, TPROG, 1, 5);
	w_u32(&w, BIG);
	treq_run(&t, &reg, NULL, &w, &peer_a);
	ok(rep_accepted(&t, 0x400, RPC_SUCCESS) && t.rep_len == 24 + BIG &&
	   memcmp(t.rep + 24, big_pat, BIG) == 0,
	   "max_reply %u: SUCCESS with all %u bytes (len %zu)", BIG, BIG,
	   t.rep_len);
	ok(req->reply != req->reply_inline && req->reply_cap >= BIG + 28,
	   "the reply buffer grew to the heap (cap %zu)", req->reply_cap);
	ok(req->enc.start == req->reply + 4, "the reply starts after the "
	   "marker's 4 bytes");
	rpc_req_finish(req);
	ok(get32(req->reply) == (RPC_RM_LAST | (24u + BIG)) &&
	   req->tx_len == 28 + BIG, "finish: marker for %u bytes", 24 + BIG);
	req->rec = req->rec_inline;
	rpc_req_release(req);
	ok(req->reply == req->reply_inline &&
	   req->reply_cap == sizeof(req->reply_inline),
	   "rpc_req_release: back to the inline buffer");

	/* The next small call on the same request is inline again. */
	w_call(&w, 0x401, TPROG, 1, 1);
	w_u32(&w, 9);
	treq_run(&t, &reg, NULL, &w, &peer_a);
	ok(rep_accepted(&t, 0x401, RPC_SUCCESS) && t.rep_len == 28 &&
	   req->reply == req->reply_inline, "small call after: inline reply");

	/* rpc_req_reply_reserve keeps what was encoded. */
	rpc_req_reset(req);
	xdr_enc_u32(&req->enc, 0xa1b2c3d4);
	xdr_enc_u32(&req->enc, 0x01020304);
	ok(rpc_req_reply_reserve(req, 10) == 0 &&
	   req->reply == req->reply_inline, "reserve within inline space: 0");
	ok(rpc_req_reply_reserve(req, 5000) == 0 && xdr_enc_len(&req->enc) == 8 &&
	   get32(req->enc.start) == 0xa1b2c3d4 &&
	   get32(req->enc.start + 4) == 0x01020304 &&
	   xdr_enc_room(&req->enc) == 5000 - 8,
	   "reserve 5000: the 8 encoded bytes are kept, room 4992");
	ok(rpc_req_reply_reserve(req, 20000) == 0 && xdr_enc_len(&req->enc) == 8 &&
	   get32(req->enc.start + 4) == 0x01020304 &&
	   xdr_enc_room(&req->enc) == 20000 - 8,
	   "reserve 20000 (realloc): kept, room 19992");
	req->rec = req->rec_inline;
	rpc_req_release(req);
}

int main(void)
{
	size_t i;

	for (i = 0; i < BIG; i++)
		big_pat[i] = (uint8_t)(i * 13 + 1);
	mkpeer(&peer_a, "192.0.2.10", 800);
	mkpeer(&peer_b, "192.0.2.10", 801);
	mkpeer(&peer_c, "192.0.2.11", 800);
	treq_init(&t);

	test_registry();
	test_basic();
	test_finish();
	test_drc();
	test_cache_this();
	test_big();

	treq_fini(&t);
	return tap_done();
}
