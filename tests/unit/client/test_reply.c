/* SPDX-License-Identifier: MIT */
/*
 * Reply headers (src/client/reply.c): every accept and reject case,
 * verifiers, truncation at every length; and the decode arena bound
 * (NC_ARENA_RATIO) against the densest list replies.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client/reply.h"
#include "tap.h"
#include "xdr/gen/mount3.h"
#include "xdr/gen/nfs3.h"

static uint8_t buf[2048];
static size_t len;

static void put(uint32_t v)
{
	xdr__put32(buf + len, v);
	len += 4;
}

/* xid 0x1234, REPLY, then @n words. */
static void msg(unsigned n, const uint32_t *w)
{
	len = 0;
	put(0x1234);
	put(1);
	for (unsigned i = 0; i < n; i++)
		put(w[i]);
}

static enum nc_reply_result dec(struct nc_reply *r, size_t n)
{
	struct xdr_dec d;

	xdr_dec_init(&d, buf, n, NULL);
	return nc_reply_decode(&d, r);
}

#define W(...) (const uint32_t[]){ __VA_ARGS__ }, sizeof((const uint32_t[]){ __VA_ARGS__ }) / 4

static void words(const uint32_t *w, size_t n)
{
	msg((unsigned)n, w);
}

static struct nc_reply last; /* of the latest check() */

static void check(const char *what, const uint32_t *w, size_t n, enum nc_reply_result want,
		  int err)
{
	struct nc_reply r;
	enum nc_reply_result got;

	words(w, n);
	got = dec(&r, len);
	last = r;
	ok(got == want && r.err == err && r.xid == 0x1234, "%s: result %d err %d", what, got,
	   r.err);
}

/* Densest list replies must decode within the arena the client sizes. */
static bool decodes_in(const uint8_t *p, size_t n, size_t arena_size,
		       bool (*fn)(struct xdr_dec *, void *), void *res)
{
	uint8_t *mem = malloc(arena_size ? arena_size : 1);
	struct xdr_arena a;
	struct xdr_dec d;
	bool r;

	xdr_arena_init(&a, mem, arena_size);
	xdr_dec_init(&d, p, n, &a);
	r = fn(&d, res);
	free(mem);
	return r;
}

static bool dec_rdp(struct xdr_dec *d, void *r)
{
	return xdr_dec_READDIRPLUS3res(d, r);
}

static bool dec_rd(struct xdr_dec *d, void *r)
{
	return xdr_dec_READDIR3res(d, r);
}

static bool dec_exports(struct xdr_dec *d, void *r)
{
	return xdr_dec_exports3(d, r);
}

static bool dec_mountlist(struct xdr_dec *d, void *r)
{
	return xdr_dec_mountlist3(d, r);
}

static void arena_bounds(void)
{
	enum { N = 2000 };
	static struct entryplus3 ep[N];
	static struct entry3 e[N];
	static struct exportnode ex[N];
	static struct groupnode gr[N];
	static struct mountbody mb[N];
	static uint8_t wire[256 << 10];
	struct xdr_enc enc;
	size_t n, need;
	unsigned i;

	{
		struct READDIRPLUS3res res = { .status = NFS3_OK }, out;

		for (i = 0; i < N; i++) {
			ep[i].fileid = i;
			ep[i].cookie = i + 1;
			ep[i].nextentry = i + 1 < N ? &ep[i + 1] : NULL;
		}
		res.u.resok.reply.entries = ep;
		res.u.resok.reply.eof = true;
		xdr_enc_init(&enc, wire, sizeof(wire));
		ok(xdr_enc_READDIRPLUS3res(&enc, &res), "encode %d empty READDIRPLUS entries", N);
		n = xdr_enc_len(&enc);
		need = nc_arena_size(n);
		ok(decodes_in(wire, n, need, dec_rdp, &out), "READDIRPLUS: %zu bytes decode in %zu",
		   n, need);
		ok(!decodes_in(wire, n, need * 9 / 10, dec_rdp, &out),
		   "READDIRPLUS: and not in 90%% of that (the ratio is tight)");
	}
	{
		struct READDIR3res res = { .status = NFS3_OK }, out;

		for (i = 0; i < N; i++) {
			e[i].fileid = i;
			e[i].nextentry = i + 1 < N ? &e[i + 1] : NULL;
		}
		res.u.resok.reply.entries = e;
		xdr_enc_init(&enc, wire, sizeof(wire));
		xdr_enc_READDIR3res(&enc, &res);
		n = xdr_enc_len(&enc);
		ok(decodes_in(wire, n, nc_arena_size(n), dec_rd, &out),
		   "READDIR: %d empty entries decode", N);
	}
	{
		exports3 res = ex, out;

		for (i = 0; i < N; i++) {
			ex[i].ex_groups = &gr[i];
			ex[i].ex_next = i + 1 < N ? &ex[i + 1] : NULL;
			gr[i].gr_next = NULL;
		}
		xdr_enc_init(&enc, wire, sizeof(wire));
		ok(xdr_enc_exports3(&enc, &res), "encode %d exports with one group each", N);
		n = xdr_enc_len(&enc);
		ok(decodes_in(wire, n, nc_arena_size(n), dec_exports, &out),
		   "EXPORT: decodes within the bound");
		for (i = 0; i < N; i++)
			gr[i].gr_next = i + 1 < N ? &gr[i + 1] : NULL;
		ex[0].ex_groups = gr;
		ex[0].ex_next = NULL;
		xdr_enc_init(&enc, wire, sizeof(wire));
		xdr_enc_exports3(&enc, &res);
		n = xdr_enc_len(&enc);
		ok(decodes_in(wire, n, nc_arena_size(n), dec_exports, &out),
		   "EXPORT: one export with %d groups decodes within the bound", N);
	}
	{
		mountlist3 res = mb, out;

		for (i = 0; i < N; i++)
			mb[i].ml_next = i + 1 < N ? &mb[i + 1] : NULL;
		xdr_enc_init(&enc, wire, sizeof(wire));
		xdr_enc_mountlist3(&enc, &res);
		n = xdr_enc_len(&enc);
		ok(decodes_in(wire, n, nc_arena_size(n), dec_mountlist, &out),
		   "DUMP: %d empty mount entries decode within the bound", N);
	}
}

int main(void)
{
	struct nc_reply r;
	struct xdr_dec d;
	size_t full, i;
	bool trunc_ok = true;
	uint32_t auth;

	/* SUCCESS, AUTH_NONE verifier, then 2 result words. */
	msg(6, (const uint32_t[]){ 0, 0, 0, 0, 0xaaaa, 0xbbbb });
	xdr_dec_init(&d, buf, len, NULL);
	ok(nc_reply_decode(&d, &r) == NC_REPLY_OK && r.xid == 0x1234 && r.err == 0 &&
	   xdr_dec_left(&d) == 8 && xdr__get32(d.p) == 0xaaaa,
	   "SUCCESS: cursor left at the results");

	/* AUTH_SHORT verifier with 8 body bytes: skipped. */
	check("SUCCESS with an AUTH_SHORT verifier", W(0, 2, 8, 1, 2, 0), NC_REPLY_OK, 0);
	check("verifier claiming 400 absent bytes", W(0, 1, 400), NC_REPLY_ERR, -EPROTO);
	{
		uint32_t w[3 + 100 + 1] = { 0, 1, 400 };

		w[103] = 0;
		words(w, 104);
		ok(dec(&r, len) == NC_REPLY_OK, "verifier of 400 bytes then SUCCESS");
		w[2] = 401;
		words(w, 104);
		ok(dec(&r, len) == NC_REPLY_ERR && r.err == -EPROTO,
		   "verifier of 401 bytes: -EPROTO");
	}
	check("PROG_UNAVAIL", W(0, 0, 0, 1), NC_REPLY_ERR, -EPROTONOSUPPORT);
	check("PROG_MISMATCH 2-3", W(0, 0, 0, 2, 2, 3), NC_REPLY_ERR, -EPROTONOSUPPORT);
	ok(last.low == 2 && last.high == 3, "PROG_MISMATCH: low and high kept");
	check("PROG_MISMATCH without versions", W(0, 0, 0, 2, 2), NC_REPLY_ERR, -EPROTO);
	check("PROC_UNAVAIL", W(0, 0, 0, 3), NC_REPLY_ERR, -EOPNOTSUPP);
	check("GARBAGE_ARGS", W(0, 0, 0, 4), NC_REPLY_ERR, -EINVAL);
	check("SYSTEM_ERR", W(0, 0, 0, 5), NC_REPLY_ERR, -EREMOTEIO);
	check("unknown accept_stat 6", W(0, 0, 0, 6), NC_REPLY_ERR, -EPROTO);
	check("accept_stat missing", W(0, 0, 0), NC_REPLY_ERR, -EPROTO);
	check("RPC_MISMATCH 2-2", W(1, 0, 2, 2), NC_REPLY_ERR, -EPROTONOSUPPORT);
	ok(last.reply_stat == 1 && last.low == 2 && last.high == 2, "RPC_MISMATCH: versions kept");
	check("RPC_MISMATCH truncated", W(1, 0, 2), NC_REPLY_ERR, -EPROTO);
	for (auth = 1; auth <= 7; auth++) {
		check("AUTH_ERROR", (const uint32_t[]){ 1, 1, auth }, 3, NC_REPLY_ERR, -EACCES);
		ok(last.auth_stat == auth, "AUTH_ERROR: auth_stat %u kept", auth);
	}
	check("AUTH_ERROR without auth_stat", W(1, 1), NC_REPLY_ERR, -EPROTO);
	check("unknown reject_stat 2", W(1, 2), NC_REPLY_ERR, -EPROTO);
	check("reject_stat missing", W(1), NC_REPLY_ERR, -EPROTO);
	check("unknown reply_stat 2", W(2), NC_REPLY_ERR, -EPROTO);

	/* A call (mtype 0) and records too short for xid and type: dropped. */
	len = 0;
	put(0x1234);
	put(0);
	put(2);
	ok(dec(&r, len) == NC_REPLY_DROP, "a CALL message is dropped");
	for (i = 0; i < 8; i++) {
		msg(4, (const uint32_t[]){ 0, 0, 0, 0 });
		if (dec(&r, i) != NC_REPLY_DROP)
			trunc_ok = false;
	}
	ok(trunc_ok, "records of 0-7 bytes are dropped");
	msg(4, (const uint32_t[]){ 0, 0, 0, 0 });
	len = 0;
	put(0x1234);
	put(7);
	ok(dec(&r, len) == NC_REPLY_DROP, "an unknown message type is dropped");

	/* Truncated at every byte of a full PROG_MISMATCH reply: never OK. */
	msg(6, (const uint32_t[]){ 0, 0, 0, 2, 3, 3 });
	full = len;
	trunc_ok = true;
	for (i = 8; i < full; i++)
		if (dec(&r, i) != NC_REPLY_ERR || r.err != -EPROTO)
			trunc_ok = false;
	ok(trunc_ok, "every truncation of a reply after the type is -EPROTO");
	ok(dec(&r, full) == NC_REPLY_ERR && r.err == -EPROTONOSUPPORT, "the whole one decodes");

	arena_bounds();
	return tap_done();
}
