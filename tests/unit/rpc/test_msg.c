/* SPDX-License-Identifier: MIT */
/*
 * RPC message headers (src/rpc/msg.c, RFC 5531 sections 8-9): decoding
 * of good AUTH_NONE and AUTH_SYS calls (every AUTH_SYS field checked),
 * every truncation of both (DROP before the credential, AUTH_ERROR with
 * AUTH_BADCRED inside it, AUTH_BADVERF inside the verifier), wrong RPC
 * version, replies, and malformed credentials and verifiers; and the
 * exact bytes of the four reply headers, each of which must fail
 * without writing past the end when the buffer is one byte short.
 * Every decode reads a buffer ending at a PROT_NONE page, and every
 * encode writes into one, so an overrun faults.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "rpc/msg.h"
#include "tap.h"
#include "testutil.h"

static struct guard g;
static struct wbuf w;

#define XID 0x12345678u
#define PROG 100003u
#define VERS 3u
#define PROC 7u

static enum rpc_hdr_result decode(const struct wbuf *m, size_t n,
				  struct rpc_call *call,
				  enum rpc_auth_stat *as, size_t *left)
{
	struct xdr_dec d;
	enum rpc_hdr_result r;

	xdr_dec_init(&d, guard_place(&g, m->b, n), n, NULL);
	memset(call, 0xa5, sizeof(*call));
	*as = (enum rpc_auth_stat)77;
	r = rpc_decode_call(&d, call, as);
	if (left)
		*left = xdr_dec_left(&d);
	return r;
}

static void w_head(struct wbuf *m, uint32_t mtype, uint32_t rpcvers)
{
	m->n = 0;
	w_u32(m, XID);
	w_u32(m, mtype);
	w_u32(m, rpcvers);
	w_u32(m, PROG);
	w_u32(m, VERS);
	w_u32(m, PROC);
}

static void w_verf_none(struct wbuf *m)
{
	w_u32(m, RPC_AUTH_NONE);
	w_u32(m, 0);
}

static char machine[256];

/* An authsys_parms body with @mlen bytes of name and @ngids gids. */
static void w_authsys_body(struct wbuf *b, uint32_t mlen, uint32_t ngids)
{
	uint32_t i;

	b->n = 0;
	w_u32(b, 0x01020304);          /* stamp */
	w_bytes(b, machine, mlen);
	w_u32(b, 1000);                 /* uid */
	w_u32(b, 100);                  /* gid */
	w_u32(b, ngids);
	for (i = 0; i < ngids; i++)
		w_u32(b, 2000 + i);
}

static struct wbuf body;

static void w_cred_sys(struct wbuf *m, const struct wbuf *b)
{
	w_u32(m, RPC_AUTH_SYS);
	w_bytes(m, b->b, b->n);
}

/*
 * Every prefix of a good call: DROP before offset 24 (the credential),
 * BADCRED up to the verifier at @verf_off, BADVERF up to @n.
 */
static void truncations(const char *what, const struct wbuf *m,
			size_t verf_off)
{
	struct rpc_call call;
	enum rpc_auth_stat as;
	size_t k;
	int bad = 0;

	for (k = 0; k < m->n; k++) {
		enum rpc_hdr_result r = decode(m, k, &call, &as, NULL);
		bool good;

		if (k < 24)
			good = r == RPC_HDR_DROP;
		else if (k < verf_off)
			good = r == RPC_HDR_AUTHERR && as == RPC_AUTH_BADCRED &&
			       call.xid == XID;
		else
			good = r == RPC_HDR_AUTHERR && as == RPC_AUTH_BADVERF &&
			       call.xid == XID;
		if (!good) {
			if (bad++ < 5)
				printf("# %s prefix %zu: result %d auth_stat %d\n",
				       what, k, r, as);
		}
	}
	ok(bad == 0, "%s: every prefix 0..%zu gives DROP / BADCRED / BADVERF "
	   "as expected (%d wrong)", what, m->n - 1, bad);
}

static void test_good_none(void)
{
	struct rpc_call call;
	enum rpc_auth_stat as;
	enum rpc_hdr_result r;
	size_t left;

	w_head(&w, RPC_MSG_CALL, 2);
	w_u32(&w, RPC_AUTH_NONE);
	w_u32(&w, 0);
	w_verf_none(&w);
	ok(w.n == 40, "AUTH_NONE call is 40 bytes");
	r = decode(&w, w.n, &call, &as, &left);
	ok(r == RPC_HDR_OK && as == RPC_AUTH_OK, "AUTH_NONE: OK (r %d as %d)",
	   r, as);
	ok(call.xid == XID && call.prog == PROG && call.vers == VERS &&
	   call.proc == PROC, "AUTH_NONE: xid prog vers proc");
	ok(call.cred.flavor == RPC_AUTH_NONE && call.cred.ngids == 0 &&
	   call.cred.machine.len == 0,
	   "AUTH_NONE: flavor 0, no gids, no machine name");
	ok(left == 0, "AUTH_NONE: nothing left (%zu)", left);
	truncations("AUTH_NONE", &w, 32);

	/* With arguments: the cursor stops at them. */
	w_u32(&w, 0xdeadbeef);
	w_u32(&w, 42);
	r = decode(&w, w.n, &call, &as, &left);
	ok(r == RPC_HDR_OK && left == 8, "AUTH_NONE with 8 bytes of args: OK, "
	   "8 left (r %d left %zu)", r, left);
}

static void test_good_sys(void)
{
	struct rpc_call call;
	enum rpc_auth_stat as;
	enum rpc_hdr_result r;
	struct xdr_dec d;
	uint32_t i, v = 0;
	bool gids_ok = true;
	const uint8_t *rec;

	w_authsys_body(&body, 255, 16);
	ok(body.n == 340, "AUTH_SYS body with 255-byte name, 16 gids: 340 bytes");
	w_head(&w, RPC_MSG_CALL, 2);
	w_cred_sys(&w, &body);
	w_verf_none(&w);
	w_u32(&w, 0xcafef00d);
	rec = guard_place(&g, w.b, w.n);
	xdr_dec_init(&d, rec, w.n, NULL);
	memset(&call, 0xa5, sizeof(call));
	r = rpc_decode_call(&d, &call, &as);
	ok(r == RPC_HDR_OK && as == RPC_AUTH_OK, "AUTH_SYS: OK (r %d as %d)", r,
	   as);
	ok(call.xid == XID && call.prog == PROG && call.vers == VERS &&
	   call.proc == PROC, "AUTH_SYS: xid prog vers proc");
	ok(call.cred.flavor == RPC_AUTH_SYS, "AUTH_SYS: flavor 1");
	ok(call.cred.stamp == 0x01020304, "AUTH_SYS: stamp");
	ok(call.cred.machine.len == 255 &&
	   call.cred.machine.data == rec + 24 + 8 + 8 &&
	   memcmp(call.cred.machine.data, machine, 255) == 0,
	   "AUTH_SYS: machine name is a 255-byte view into the record");
	ok(call.cred.uid == 1000 && call.cred.gid == 100,
	   "AUTH_SYS: uid 1000 gid 100 (%u %u)", call.cred.uid, call.cred.gid);
	for (i = 0; i < 16; i++)
		if (call.cred.gids[i] != 2000 + i)
			gids_ok = false;
	ok(call.cred.ngids == 16 && gids_ok, "AUTH_SYS: 16 gids 2000..2015");
	ok(xdr_dec_u32(&d, &v) && v == 0xcafef00d && xdr_dec_left(&d) == 0,
	   "AUTH_SYS: cursor at the arguments");

	/* Truncations of the header alone. */
	w.n -= 4;
	truncations("AUTH_SYS", &w, 24 + 8 + 340);
}

static void expect(const char *what, enum rpc_hdr_result want_r,
		   enum rpc_auth_stat want_as)
{
	struct rpc_call call;
	enum rpc_auth_stat as;
	enum rpc_hdr_result r = decode(&w, w.n, &call, &as, NULL);

	if (want_r == RPC_HDR_AUTHERR)
		ok(r == want_r && as == want_as && call.xid == XID,
		   "%s: AUTH_ERROR %d (r %d as %d)", what, want_as, r, as);
	else if (want_r == RPC_HDR_MISMATCH)
		ok(r == want_r && call.xid == XID, "%s: MISMATCH (r %d)", what,
		   r);
	else
		ok(r == want_r, "%s: result %d (got %d)", what, want_r, r);
}

static void test_bad(void)
{
	static uint8_t junk[404];

	w_head(&w, RPC_MSG_CALL, 3);
	w_u32(&w, RPC_AUTH_NONE);
	w_u32(&w, 0);
	w_verf_none(&w);
	expect("rpcvers 3", RPC_HDR_MISMATCH, 0);
	w.n = 12;
	expect("rpcvers 3, header cut after it", RPC_HDR_MISMATCH, 0);
	w_head(&w, RPC_MSG_CALL, 1);
	w_u32(&w, RPC_AUTH_NONE);
	w_u32(&w, 0);
	w_verf_none(&w);
	expect("rpcvers 1", RPC_HDR_MISMATCH, 0);

	w_head(&w, RPC_MSG_REPLY, 2);
	w_u32(&w, RPC_AUTH_NONE);
	w_u32(&w, 0);
	w_verf_none(&w);
	expect("mtype REPLY", RPC_HDR_DROP, 0);
	w_head(&w, 2, 2);
	w_u32(&w, RPC_AUTH_NONE);
	w_u32(&w, 0);
	w_verf_none(&w);
	expect("mtype 2", RPC_HDR_DROP, 0);

	/* Credential body of 401 bytes, all present. */
	w_head(&w, RPC_MSG_CALL, 2);
	w_u32(&w, RPC_AUTH_SYS);
	w_bytes(&w, junk, 401);
	w_verf_none(&w);
	expect("cred body 401", RPC_HDR_AUTHERR, RPC_AUTH_BADCRED);
	w_head(&w, RPC_MSG_CALL, 2);
	w_u32(&w, RPC_AUTH_NONE);
	w_bytes(&w, junk, 401);
	w_verf_none(&w);
	expect("AUTH_NONE cred body 401", RPC_HDR_AUTHERR, RPC_AUTH_BADCRED);
	w_head(&w, RPC_MSG_CALL, 2);
	w_u32(&w, RPC_AUTH_SYS);
	w_u32(&w, 0xffffffffu);
	w_verf_none(&w);
	expect("cred body length 0xFFFFFFFF", RPC_HDR_AUTHERR,
	       RPC_AUTH_BADCRED);

	w_authsys_body(&body, 256, 1);
	w_head(&w, RPC_MSG_CALL, 2);
	w_cred_sys(&w, &body);
	w_verf_none(&w);
	expect("machinename 256", RPC_HDR_AUTHERR, RPC_AUTH_BADCRED);

	w_authsys_body(&body, 8, 17);
	w_head(&w, RPC_MSG_CALL, 2);
	w_cred_sys(&w, &body);
	w_verf_none(&w);
	expect("17 gids", RPC_HDR_AUTHERR, RPC_AUTH_BADCRED);

	w_authsys_body(&body, 8, 2);
	w_u32(&body, 0);
	w_head(&w, RPC_MSG_CALL, 2);
	w_cred_sys(&w, &body);
	w_verf_none(&w);
	expect("AUTH_SYS body with an extra trailing word", RPC_HDR_AUTHERR,
	       RPC_AUTH_BADCRED);

	w_authsys_body(&body, 8, 2);
	body.n -= 4;
	w_head(&w, RPC_MSG_CALL, 2);
	w_cred_sys(&w, &body);
	w_verf_none(&w);
	expect("AUTH_SYS body one gid short", RPC_HDR_AUTHERR,
	       RPC_AUTH_BADCRED);

	/* Body length 1 byte more than the parms: padded to the next word. */
	w_authsys_body(&body, 8, 2);
	w_head(&w, RPC_MSG_CALL, 2);
	w_u32(&w, RPC_AUTH_SYS);
	w_u32(&w, (uint32_t)body.n + 1);
	w_raw(&w, body.b, body.n);
	w_u32(&w, 0);
	w_verf_none(&w);
	expect("AUTH_SYS body length 1 byte longer than its parms",
	       RPC_HDR_AUTHERR, RPC_AUTH_BADCRED);

	w_authsys_body(&body, 8, 0);
	w_head(&w, RPC_MSG_CALL, 2);
	w_cred_sys(&w, &body);
	w_verf_none(&w);
	expect("AUTH_SYS with 0 gids and an 8-byte name", RPC_HDR_OK, 0);

	w_head(&w, RPC_MSG_CALL, 2);
	w_u32(&w, RPC_AUTH_NONE);
	w_bytes(&w, junk, 4);
	w_verf_none(&w);
	expect("AUTH_NONE cred with a 4-byte body", RPC_HDR_AUTHERR,
	       RPC_AUTH_BADCRED);

	w_head(&w, RPC_MSG_CALL, 2);
	w_u32(&w, 7);
	w_u32(&w, 0);
	w_verf_none(&w);
	expect("cred flavor 7", RPC_HDR_AUTHERR, RPC_AUTH_BADCRED);
	w_head(&w, RPC_MSG_CALL, 2);
	w_u32(&w, 6);
	w_bytes(&w, junk, 20);
	w_verf_none(&w);
	expect("cred flavor RPCSEC_GSS (6)", RPC_HDR_AUTHERR, RPC_AUTH_BADCRED);

	w_head(&w, RPC_MSG_CALL, 2);
	w_u32(&w, RPC_AUTH_NONE);
	w_u32(&w, 0);
	w_u32(&w, RPC_AUTH_SYS);
	w_u32(&w, 0);
	expect("verifier flavor 1", RPC_HDR_AUTHERR, RPC_AUTH_BADVERF);
	w_head(&w, RPC_MSG_CALL, 2);
	w_u32(&w, RPC_AUTH_NONE);
	w_u32(&w, 0);
	w_u32(&w, RPC_AUTH_NONE);
	w_bytes(&w, junk, 4);
	expect("verifier length 4", RPC_HDR_AUTHERR, RPC_AUTH_BADVERF);
	w_head(&w, RPC_MSG_CALL, 2);
	w_u32(&w, RPC_AUTH_NONE);
	w_u32(&w, 0);
	w_u32(&w, RPC_AUTH_NONE);
	w_bytes(&w, junk, 401);
	expect("verifier length 401", RPC_HDR_AUTHERR, RPC_AUTH_BADVERF);

	/* A bad credential is reported before a bad verifier. */
	w_head(&w, RPC_MSG_CALL, 2);
	w_u32(&w, 7);
	w_u32(&w, 0);
	w_u32(&w, 7);
	w_u32(&w, 0);
	expect("bad cred and bad verf", RPC_HDR_AUTHERR, RPC_AUTH_BADCRED);
}

/* rpc_decode_authsys on its own, exact-length buffers at the guard. */
static void test_authsys(void)
{
	struct rpc_cred cred;
	const uint8_t *p;

	w_authsys_body(&body, 3, 2);
	p = guard_place(&g, body.b, body.n);
	memset(&cred, 0, sizeof(cred));
	ok(rpc_decode_authsys(p, (uint32_t)body.n, &cred) &&
	   cred.machine.len == 3 && cred.ngids == 2 && cred.gids[1] == 2001,
	   "rpc_decode_authsys: exact body decodes");
	p = guard_place(&g, body.b, body.n - 1);
	ok(!rpc_decode_authsys(p, (uint32_t)body.n - 1, &cred),
	   "rpc_decode_authsys: one byte short fails");
	ok(!rpc_decode_authsys(p, 0, &cred), "rpc_decode_authsys: empty fails");
}

/* ------------------------------------------------------------------ */
/* Reply encoders                                                       */

enum { ENC_ACCEPTED, ENC_PROG_MISMATCH, ENC_RPC_MISMATCH, ENC_AUTH_ERROR };

static bool run_enc(int which, uint8_t *buf, size_t cap, size_t *len)
{
	struct xdr_enc e;
	bool r = false;

	xdr_enc_init(&e, buf, cap);
	switch (which) {
	case ENC_ACCEPTED:
		r = rpc_encode_accepted(&e, XID, &rpc_verf_none, RPC_SUCCESS);
		break;
	case ENC_PROG_MISMATCH:
		r = rpc_encode_prog_mismatch(&e, XID, &rpc_verf_none, 2, 4);
		break;
	case ENC_RPC_MISMATCH:
		r = rpc_encode_rpc_mismatch(&e, XID);
		break;
	case ENC_AUTH_ERROR:
		r = rpc_encode_auth_error(&e, XID, RPC_AUTH_BADVERF);
		break;
	}
	*len = xdr_enc_len(&e);
	return r;
}

static void test_encoders(void)
{
	static const uint32_t acc[] = { XID, 1, 0, 0, 0, 0 };
	static const uint32_t pm[] = { XID, 1, 0, 0, 0, 2, 2, 4 };
	static const uint32_t rm[] = { XID, 1, 1, 0, 2, 2 };
	static const uint32_t ae[] = { XID, 1, 1, 1, 3 };
	static const struct {
		const char *name;
		const uint32_t *w;
		size_t n;
	} t[] = {
		{ "accepted SUCCESS", acc, 6 },
		{ "PROG_MISMATCH 2..4", pm, 8 },
		{ "RPC_MISMATCH", rm, 6 },
		{ "AUTH_ERROR BADVERF", ae, 5 },
	};
	int i;

	ok(rpc_accepted_hdr_len(&rpc_verf_none) == 24,
	   "accepted header with an AUTH_NONE verifier: 24 bytes");
	for (i = 0; i < 4; i++) {
		size_t need = t[i].n * 4, len = 0;
		uint8_t *buf = g.end - need;
		bool r;

		memset(buf, 0xee, need);
		r = run_enc(i, buf, need, &len);
		ok(r && words_eq(buf, len, t[i].w, t[i].n),
		   "%s: exact %zu bytes (ret %d len %zu)", t[i].name, need, r,
		   len);
		/* One byte short, ending at the guard page. */
		buf = g.end - (need - 1);
		memset(buf, 0xee, need - 1);
		r = run_enc(i, buf, need - 1, &len);
		ok(!r && len <= need - 1, "%s: %zu-byte buffer fails (ret %d "
		   "len %zu)", t[i].name, need - 1, r, len);
		/* Empty buffer. */
		r = run_enc(i, g.end, 0, &len);
		ok(!r && len == 0, "%s: 0-byte buffer fails", t[i].name);
	}
}

int main(void)
{
	memset(machine, 'm', sizeof(machine));
	machine[0] = 'h';
	machine[254] = 'z';
	guard_init(&g, 2 * WBUF_MAX);

	test_good_none();
	test_good_sys();
	test_bad();
	test_authsys();
	test_encoders();

	guard_free(&g);
	return tap_done();
}
