/* SPDX-License-Identifier: MIT */
/*
 * Reply verifiers chosen per call (struct rpc_flavor, rpc_req_set_verf),
 * as RPCSEC_GSS will choose them: a test flavour whose credential
 * carries a sequence number and a verifier length, and whose check sets
 * a verifier of that length derived from the sequence number. Through
 * rpc_dispatch, every accepted reply is checked byte for byte (header,
 * verifier with its padding, then the results intact): a normal reply,
 * a reply whose handler restarts its results (rpc_req_hdr_len), a
 * 100000-byte reply behind a 400-byte verifier (the reply buffer is
 * grown for header and verifier too), a DRC replay (the retransmission
 * gets its own verifier and the cached results, without running again),
 * and the error replies PROG_MISMATCH, PROG_UNAVAIL, PROC_UNAVAIL,
 * GARBAGE_ARGS (a program without versions: PROG_UNAVAIL). Also: a
 * failed check is an AUTH_ERROR, the registry refuses AUTH_NONE,
 * AUTH_SYS and duplicate flavours and programs whose versions are not in
 * order, and rpc_req_set_verf refuses a body over 400 bytes.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "rpc/drc.h"
#include "rpc/program.h"
#include "rpc/req.h"
#include "tap.h"
#include "testutil.h"

#define TPROG 0x20000002u
#define TFLAVOR 0x7e570001u
#define BIG 100000u

static unsigned int counter;
static uint8_t big_pat[BIG];

static enum rpc_accept_stat p_echo(struct rpc_req *req)
{
	uint32_t v;

	if (!xdr_dec_u32(&req->args, &v) || xdr_dec_left(&req->args))
		return RPC_GARBAGE_ARGS;
	return xdr_enc_u32(&req->enc, v) ? RPC_SUCCESS : RPC_SYSTEM_ERR;
}

static enum rpc_accept_stat p_garbage(struct rpc_req *req)
{
	xdr_enc_u32(&req->enc, 0x11111111);
	return RPC_GARBAGE_ARGS;
}

static enum rpc_accept_stat p_count(struct rpc_req *req)
{
	counter++;
	return xdr_enc_u32(&req->enc, counter) && xdr_enc_u32(&req->enc, 0xc0ffee)
	       ? RPC_SUCCESS : RPC_SYSTEM_ERR;
}

/* Encodes, then starts its results again, as a READDIR that fails late. */
static enum rpc_accept_stat p_restart(struct rpc_req *req)
{
	xdr_enc_u32(&req->enc, 0x11111111);
	xdr_enc_u32(&req->enc, 0x22222222);
	req->enc.p = req->enc.start + rpc_req_hdr_len(req);
	return xdr_enc_u32(&req->enc, 0x33333333) ? RPC_SUCCESS : RPC_SYSTEM_ERR;
}

/* Needs all of max_reply: fails if the header took some of it. */
static enum rpc_accept_stat p_big(struct rpc_req *req)
{
	if (xdr_enc_room(&req->enc) < BIG)
		return RPC_SYSTEM_ERR;
	return xdr_enc_opaque_fixed(&req->enc, big_pat, BIG) ? RPC_SUCCESS
							     : RPC_SYSTEM_ERR;
}

static const struct rpc_proc v1_procs[] = {
	[0] = RPC_PROC("NULL", rpc_proc_null, 0, 0),
	[1] = RPC_PROC("ECHO", p_echo, 0, 4),
	[2] = RPC_PROC("GARBAGE", p_garbage, 0, 4),
	[3] = RPC_PROC("COUNT", p_count, RPC_PROC_NONIDEMPOTENT | RPC_PROC_BLOCKING, 8),
	[4] = RPC_PROC("EMPTY", NULL, 0, 0),
	[5] = RPC_PROC("RESTART", p_restart, 0, 8),
	[6] = RPC_PROC("BIG", p_big, 0, BIG),
};

static const struct rpc_version tvers[] = {
	{ 1, sizeof(v1_procs) / sizeof(v1_procs[0]), v1_procs },
	{ 3, sizeof(v1_procs) / sizeof(v1_procs[0]), v1_procs },
};

static const struct rpc_program tprog = {
	.prog = TPROG, .name = "test", .nvers = 2, .versions = tvers,
};

/* The verifier of sequence number @seq: @len bytes seq, seq + 1, ... */
static void verf_bytes(uint32_t seq, uint32_t len, uint8_t *out)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		out[i] = (uint8_t)(seq + i);
}

static unsigned int checks;

/* Credential body: seq (not 0), verifier length. The call's verifier
 * must be of the flavour too. */
static enum rpc_auth_stat tflavor_check(struct rpc_req *req)
{
	const struct rpc_opaque_auth *c = &req->call.raw_cred;
	uint8_t body[RPC_AUTH_MAX + 1];
	uint32_t seq, len;

	checks++;
	if (c->flavor != TFLAVOR || c->body.len != 8)
		return RPC_AUTH_BADCRED;
	seq = get32(c->body.data);
	if (seq == 0)
		return RPC_AUTH_BADCRED; /* as a sequence number out of the window */
	if (req->call.raw_verf.flavor != TFLAVOR)
		return RPC_AUTH_BADVERF;
	len = get32(c->body.data + 4);
	if (len > RPC_AUTH_MAX + 1)
		return RPC_AUTH_BADCRED;
	verf_bytes(seq, len, body);
	if (rpc_req_set_verf(req, TFLAVOR, body, len) < 0)
		return RPC_AUTH_TOOWEAK; /* only the 401 case asks for this */
	req->call.cred.uid = seq;
	return RPC_AUTH_OK;
}

static const struct rpc_flavor tflavor = { TFLAVOR, tflavor_check };

static struct rpc_registry reg;
static struct wbuf w;
static struct test_req t;
static struct sockaddr_storage peer;

/* Call header with the test flavour: sequence number @seq, and the
 * verifier of the reply @vlen bytes long. */
static void w_tcall(uint32_t xid, uint32_t vers, uint32_t proc, uint32_t seq,
		    uint32_t vlen)
{
	w.n = 0;
	w_u32(&w, xid);
	w_u32(&w, RPC_MSG_CALL);
	w_u32(&w, RPC_VERSION);
	w_u32(&w, TPROG);
	w_u32(&w, vers);
	w_u32(&w, proc);
	w_u32(&w, TFLAVOR);
	w_u32(&w, 8);
	w_u32(&w, seq);
	w_u32(&w, vlen);
	w_u32(&w, TFLAVOR);
	w_u32(&w, 4);
	w_u32(&w, 0x5eed);
}

/*
 * The reply is xid, REPLY, ACCEPTED, TFLAVOR, @vlen, the verifier of
 * @seq padded with zeros, @stat, then the @nres words of @res.
 */
static bool rep_is(uint32_t xid, uint32_t seq, uint32_t vlen, uint32_t stat,
		   const uint32_t *res, size_t nres)
{
	uint8_t want[RPC_AUTH_MAX + 4];
	uint32_t pad = xdr_pad(vlen), i;
	const uint8_t *p = t.rep;

	memset(want, 0, sizeof(want));
	verf_bytes(seq, vlen, want);
	if (!t.sent || t.rep_len != 24 + pad + 4 * nres)
		return false;
	if (get32(p) != xid || get32(p + 4) != RPC_MSG_REPLY ||
	    get32(p + 8) != RPC_REPLY_ACCEPTED || get32(p + 12) != TFLAVOR ||
	    get32(p + 16) != vlen || memcmp(p + 20, want, pad) != 0 ||
	    get32(p + 20 + pad) != stat)
		return false;
	for (i = 0; i < nres; i++)
		if (get32(p + 24 + pad + 4 * i) != res[i])
			return false;
	return true;
}

static void test_registry(void)
{
	static const struct rpc_version unsorted[] = {
		{ 3, 1, v1_procs }, { 1, 1, v1_procs },
	};
	static const struct rpc_version twice[] = {
		{ 3, 1, v1_procs }, { 3, 1, v1_procs },
	};
	static const struct rpc_program p_unsorted = {
		.prog = 0x20000010u, .name = "unsorted", .nvers = 2, .versions = unsorted,
	};
	static const struct rpc_program p_twice = {
		.prog = 0x20000011u, .name = "twice", .nvers = 2, .versions = twice,
	};
	static const struct rpc_program p_empty = {
		.prog = 0x20000012u, .name = "empty", .nvers = 0, .versions = NULL,
	};
	static const struct rpc_flavor f_none = { RPC_AUTH_NONE, tflavor_check };
	static const struct rpc_flavor f_sys = { RPC_AUTH_SYS, tflavor_check };
	struct rpc_registry r2 = { 0 };

	ok(rpc_registry_add(&r2, &p_unsorted) == -1 &&
	   rpc_registry_add(&r2, &p_twice) == -1 && r2.n == 0,
	   "registry: versions out of order or repeated are refused");
	ok(rpc_registry_add(&reg, &tprog) == 0, "registry: test program added");
	ok(rpc_registry_add(&reg, &p_empty) == 0, "registry: a program without versions");
	ok(rpc_registry_add_flavor(&r2, &f_none) == -1 &&
	   rpc_registry_add_flavor(&r2, &f_sys) == -1,
	   "flavours: AUTH_NONE and AUTH_SYS cannot be replaced");
	ok(rpc_registry_add_flavor(&reg, &tflavor) == 0 &&
	   rpc_registry_add_flavor(&reg, &tflavor) == -1,
	   "flavours: the test flavour is added, once");
}

static void test_replies(void)
{
	static const uint32_t mism[] = { 1, 3 };
	static const uint32_t restarted[] = { 0x33333333 };
	uint32_t echo[] = { 0xfeedface };
	uint32_t vlens[] = { 0, 1, 4, 5, 399, 400 };
	uint8_t verf[400];
	size_t i;
	int bad = 0;

	for (i = 0; i < sizeof(vlens) / sizeof(vlens[0]); i++) {
		w_tcall(0x10 + (uint32_t)i, 1, 1, 1000 + (uint32_t)i, vlens[i]);
		w_u32(&w, 0xfeedface);
		treq_run(&t, &reg, NULL, &w, &peer);
		if (!rep_is(0x10 + (uint32_t)i, 1000 + (uint32_t)i, vlens[i],
			    RPC_SUCCESS, echo, 1)) {
			printf("# verifier of %u bytes: reply of %zu bytes wrong\n",
			     vlens[i], t.rep_len);
			bad++;
		}
	}
	ok(bad == 0, "SUCCESS: header, verifier of 0..400 bytes padded, result");
	ok(t.req->call.cred.uid == 1005, "the check set the caller's identity");

	w_tcall(0x20, 1, 5, 77, 13);
	treq_run(&t, &reg, NULL, &w, &peer);
	ok(rep_is(0x20, 77, 13, RPC_SUCCESS, restarted, 1),
	   "a handler restarting its results at rpc_req_hdr_len keeps the verifier");

	w_tcall(0x21, 1, 6, 78, 400);
	treq_run(&t, &reg, NULL, &w, &peer);
	verf_bytes(78, 400, verf);
	ok(t.sent && t.rep_len == 24 + 400 + BIG && get32(t.rep) == 0x21 &&
	   get32(t.rep + 12) == TFLAVOR && get32(t.rep + 16) == 400 &&
	   memcmp(t.rep + 20, verf, 400) == 0 &&
	   get32(t.rep + 420) == RPC_SUCCESS &&
	   memcmp(t.rep + 424, big_pat, BIG) == 0,
	   "max_reply %u behind a 400-byte verifier: all of it (len %zu)", BIG,
	   t.rep_len);

	w_tcall(0x30, 2, 0, 90, 6);
	treq_run(&t, &reg, NULL, &w, &peer);
	ok(rep_is(0x30, 90, 6, RPC_PROG_MISMATCH, mism, 2),
	   "PROG_MISMATCH: verifier, then low 1 high 3");
	w_tcall(0x31, 1, 2, 91, 7);
	treq_run(&t, &reg, NULL, &w, &peer);
	ok(rep_is(0x31, 91, 7, RPC_GARBAGE_ARGS, NULL, 0),
	   "GARBAGE_ARGS: verifier, handler's output discarded");
	w_tcall(0x32, 1, 1, 92, 8);
	treq_run(&t, &reg, NULL, &w, &peer);
	ok(rep_is(0x32, 92, 8, RPC_GARBAGE_ARGS, NULL, 0),
	   "echo without its argument: GARBAGE_ARGS with the verifier");
	w_tcall(0x33, 1, 4, 93, 9);
	treq_run(&t, &reg, NULL, &w, &peer);
	ok(rep_is(0x33, 93, 9, RPC_PROC_UNAVAIL, NULL, 0),
	   "PROC_UNAVAIL with the verifier");
	w_tcall(0x34, 1, 0, 94, 10);
	w.b[15] = 0x77; /* program 0x20000077 */
	treq_run(&t, &reg, NULL, &w, &peer);
	ok(rep_is(0x34, 94, 10, RPC_PROG_UNAVAIL, NULL, 0),
	   "PROG_UNAVAIL with the verifier");
	w_tcall(0x35, 1, 0, 95, 11);
	w.b[15] = 0x12; /* program 0x20000012, no versions */
	treq_run(&t, &reg, NULL, &w, &peer);
	ok(rep_is(0x35, 95, 11, RPC_PROG_UNAVAIL, NULL, 0),
	   "a program without versions: PROG_UNAVAIL, not a mismatch range");
}

static void test_auth_errors(void)
{
	static const uint32_t badcred[] = { 0x40, 1, 1, 1, RPC_AUTH_BADCRED };
	static const uint32_t badverf[] = { 0x41, 1, 1, 1, RPC_AUTH_BADVERF };
	static const uint32_t tooweak[] = { 0x42, 1, 1, 1, RPC_AUTH_TOOWEAK };
	static const uint32_t none[] = { 0x43, 1, 0, 0, 0, 0, 5 };
	unsigned int before;

	w_tcall(0x40, 1, 1, 0, 4);
	w_u32(&w, 5);
	treq_run(&t, &reg, NULL, &w, &peer);
	ok(t.sent && words_eq(t.rep, t.rep_len, badcred, 5),
	   "check refuses the credential: AUTH_ERROR BADCRED");
	w_tcall(0x41, 1, 1, 1, 4);
	w_u32(&w, 5);
	memset(w.b + 40, 0, 4); /* verifier flavour AUTH_NONE */
	treq_run(&t, &reg, NULL, &w, &peer);
	ok(t.sent && words_eq(t.rep, t.rep_len, badverf, 5),
	   "check refuses the verifier: AUTH_ERROR BADVERF");
	w_tcall(0x42, 1, 1, 1, RPC_AUTH_MAX + 1);
	w_u32(&w, 5);
	treq_run(&t, &reg, NULL, &w, &peer);
	ok(t.sent && words_eq(t.rep, t.rep_len, tooweak, 5),
	   "rpc_req_set_verf refuses 401 bytes (the check then fails)");
	w_tcall(0x44, 1, 1, 1, 4);
	w.n = 48; /* cut before the verifier's body */
	before = checks;
	treq_run(&t, &reg, NULL, &w, &peer);
	ok(t.sent && get32(t.rep) == 0x44 && get32(t.rep + 12) == RPC_DENIED_AUTH &&
	   get32(t.rep + 16) == RPC_AUTH_BADVERF && checks == before,
	   "verifier cut short: AUTH_ERROR BADVERF, before any check");

	/* The same request, next with AUTH_NONE: back to the empty verifier. */
	w_call(&w, 0x43, TPROG, 1, 1);
	w_u32(&w, 5);
	treq_run(&t, &reg, NULL, &w, &peer);
	ok(t.sent && words_eq(t.rep, t.rep_len, none, 7),
	   "AUTH_NONE call after one with a verifier: 24-byte header");
}

static void test_drc(void)
{
	struct rpc_drc *drc = rpc_drc_create(1u << 20);
	uint32_t one[] = { 1, 0xc0ffee };

	counter = 0;
	w_tcall(0x50, 1, 3, 500, 12);
	w_u32(&w, 0xabcdef01);
	treq_run(&t, &reg, drc, &w, &peer);
	ok(rep_is(0x50, 500, 12, RPC_SUCCESS, one, 2) && counter == 1,
	   "DRC: first call runs, verifier of sequence 500");
	/* A retransmission is a new call to the flavour: new sequence
	 * number, new verifier; the results come from the cache. */
	w.b[35] = 0xf5; /* sequence 501 */
	w.b[39] = 20;   /* a 20-byte verifier */
	treq_run(&t, &reg, drc, &w, &peer);
	ok(rep_is(0x50, 501, 20, RPC_SUCCESS, one, 2) && counter == 1,
	   "DRC replay: the retransmission's own verifier, cached results "
	   "(counter %u, len %zu)", counter, t.rep_len);
	w.b[39] = 0;
	treq_run(&t, &reg, drc, &w, &peer);
	ok(rep_is(0x50, 501, 0, RPC_SUCCESS, one, 2) && counter == 1,
	   "DRC replay with an empty verifier: cached results right after it");
	/* The cache is keyed without the credential, as Linux's: the same
	 * call from AUTH_NONE gets the cached results behind AUTH_NONE. */
	{
		uint32_t want[] = { 0x50, 1, 0, 0, 0, 0, 1, 0xc0ffee };

		w_call(&w, 0x50, TPROG, 1, 3);
		w_u32(&w, 0xabcdef01);
		treq_run(&t, &reg, drc, &w, &peer);
		ok(t.sent && words_eq(t.rep, t.rep_len, want, 8) && counter == 1,
		   "DRC replay to AUTH_NONE: 24-byte header, cached results");
	}
	/* The first reply under AUTH_NONE, replayed with a verifier. */
	{
		uint32_t want[] = { 2, 0xc0ffee };

		w_call(&w, 0x51, TPROG, 1, 3);
		w_u32(&w, 0xabcdef02);
		treq_run(&t, &reg, drc, &w, &peer);
		w_tcall(0x51, 1, 3, 600, 33);
		w_u32(&w, 0xabcdef02);
		treq_run(&t, &reg, drc, &w, &peer);
		ok(rep_is(0x51, 600, 33, RPC_SUCCESS, want, 2) && counter == 2,
		   "DRC: a reply cached under AUTH_NONE replayed with a 33-byte "
		   "verifier (counter %u)", counter);
	}
	rpc_drc_destroy(drc);
}

int main(void)
{
	struct sockaddr_in *s = (struct sockaddr_in *)&peer;
	size_t i;

	for (i = 0; i < BIG; i++)
		big_pat[i] = (uint8_t)(i * 7 + 3);
	memset(&peer, 0, sizeof(peer));
	s->sin_family = AF_INET;
	s->sin_port = htons(800);
	inet_pton(AF_INET, "192.0.2.20", &s->sin_addr);
	treq_init(&t);

	test_registry();
	test_replies();
	test_auth_errors();
	test_drc();

	treq_fini(&t);
	return tap_done();
}
