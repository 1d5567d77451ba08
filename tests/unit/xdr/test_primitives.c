/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the XDR runtime in src/xdr/xdr.h: every primitive, with
 * inputs and encode buffers right against a PROT_NONE guard page, every
 * truncation point of every input, bounds, padding and the arena.
 */
#include <stdint.h>

#include "../../tap.h"
#include "xdrtest.h"

static struct guard g;

/* ---------------------------------------------------------------- */
/* Decoding                                                          */

static uint32_t arg_len, arg_max;	/* fixed arguments of the wrappers */

static bool w_u32(struct xdr_dec *d, void *o) { return xdr_dec_u32(d, o); }
static bool w_i32(struct xdr_dec *d, void *o) { return xdr_dec_i32(d, o); }
static bool w_u64(struct xdr_dec *d, void *o) { return xdr_dec_u64(d, o); }
static bool w_i64(struct xdr_dec *d, void *o) { return xdr_dec_i64(d, o); }
static bool w_bool(struct xdr_dec *d, void *o) { return xdr_dec_bool(d, o); }
static bool w_skip(struct xdr_dec *d, void *o) { return xdr_dec_skip(d, arg_len); }

static bool w_fixed(struct xdr_dec *d, void *o)
{
	return xdr_dec_opaque_fixed(d, o, arg_len);
}

static bool w_bytes(struct xdr_dec *d, void *o)
{
	return xdr_dec_bytes(d, o, arg_max);
}

/* Decode the whole of @in placed against the guard page. */
static bool dec_whole(const void *in, size_t len, dec_fn fn, void *out,
		      size_t *left, const uint8_t **start)
{
	struct xdr_dec d;
	bool r;

	*start = guard_put(&g, in, len);
	xdr_dec_init(&d, *start, len, NULL);
	r = fn(&d, out);
	*left = xdr_dec_left(&d);
	return r;
}

static void test_ints(void)
{
	static const struct { uint8_t b[4]; uint32_t v; } u32s[] = {
		{ { 0, 0, 0, 0 }, 0 },
		{ { 0, 0, 0, 1 }, 1 },
		{ { 0x12, 0x34, 0x56, 0x78 }, 0x12345678 },
		{ { 0xff, 0xff, 0xff, 0xff }, 0xffffffff },
	};
	static const struct { uint8_t b[4]; int32_t v; } i32s[] = {
		{ { 0xff, 0xff, 0xff, 0xff }, -1 },
		{ { 0x80, 0, 0, 0 }, INT32_MIN },
		{ { 0x7f, 0xff, 0xff, 0xff }, INT32_MAX },
		{ { 0, 0, 0, 5 }, 5 },
	};
	static const struct { uint8_t b[8]; uint64_t v; } u64s[] = {
		{ { 1, 2, 3, 4, 5, 6, 7, 8 }, 0x0102030405060708ull },
		{ { 0, 0, 0, 0, 0, 0, 0, 1 }, 1 },
		{ { 0, 0, 0, 1, 0, 0, 0, 0 }, 1ull << 32 },
		{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, UINT64_MAX },
	};
	static const struct { uint8_t b[8]; int64_t v; } i64s[] = {
		{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, -1 },
		{ { 0x80, 0, 0, 0, 0, 0, 0, 0 }, INT64_MIN },
		{ { 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, INT64_MAX },
		{ { 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0 }, -(1ll << 32) },
	};
	const uint8_t *at;
	size_t i, left;

	for (i = 0; i < sizeof(u32s) / sizeof(u32s[0]); i++) {
		uint32_t v = 0;

		ok(check_prefixes(&g, u32s[i].b, 4, w_u32) == 0,
		   "u32 %#x: every prefix fails, whole decodes", u32s[i].v);
		ok(dec_whole(u32s[i].b, 4, w_u32, &v, &left, &at) &&
		   v == u32s[i].v && !left, "u32 %#x: value", u32s[i].v);
	}
	for (i = 0; i < sizeof(i32s) / sizeof(i32s[0]); i++) {
		int32_t v = 0;

		ok(check_prefixes(&g, i32s[i].b, 4, w_i32) == 0,
		   "i32 %d: every prefix fails, whole decodes", i32s[i].v);
		ok(dec_whole(i32s[i].b, 4, w_i32, &v, &left, &at) &&
		   v == i32s[i].v && !left, "i32 %d: value", i32s[i].v);
	}
	for (i = 0; i < sizeof(u64s) / sizeof(u64s[0]); i++) {
		uint64_t v = 0;

		ok(check_prefixes(&g, u64s[i].b, 8, w_u64) == 0,
		   "u64 %#llx: every prefix fails, whole decodes",
		   (unsigned long long)u64s[i].v);
		ok(dec_whole(u64s[i].b, 8, w_u64, &v, &left, &at) &&
		   v == u64s[i].v && !left, "u64 %#llx: value",
		   (unsigned long long)u64s[i].v);
	}
	for (i = 0; i < sizeof(i64s) / sizeof(i64s[0]); i++) {
		int64_t v = 0;

		ok(check_prefixes(&g, i64s[i].b, 8, w_i64) == 0,
		   "i64 %lld: every prefix fails, whole decodes",
		   (long long)i64s[i].v);
		ok(dec_whole(i64s[i].b, 8, w_i64, &v, &left, &at) &&
		   v == i64s[i].v && !left, "i64 %lld: value",
		   (long long)i64s[i].v);
	}
}

static void test_bool(void)
{
	static const uint8_t f[4] = { 0, 0, 0, 0 }, t[4] = { 0, 0, 0, 1 };
	static const uint8_t bad[][4] = {
		{ 0, 0, 0, 2 }, { 0xff, 0xff, 0xff, 0xff }, { 0, 0, 1, 0 },
		{ 1, 0, 0, 0 }, { 0x80, 0, 0, 1 },
	};
	const uint8_t *at;
	size_t i, left;
	bool v;

	ok(check_prefixes(&g, f, 4, w_bool) == 0, "bool FALSE: every prefix fails");
	ok(check_prefixes(&g, t, 4, w_bool) == 0, "bool TRUE: every prefix fails");
	v = true;
	ok(dec_whole(f, 4, w_bool, &v, &left, &at) && !v && !left, "bool 0 is false");
	v = false;
	ok(dec_whole(t, 4, w_bool, &v, &left, &at) && v && !left, "bool 1 is true");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(!dec_whole(bad[i], 4, w_bool, &v, &left, &at),
		   "bool %02x%02x%02x%02x rejected", bad[i][0], bad[i][1],
		   bad[i][2], bad[i][3]);
}

static void test_skip(void)
{
	static const uint8_t eight[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	const uint8_t *at;
	size_t left;

	arg_len = 5;
	ok(check_prefixes(&g, eight, 8, w_skip) == 0,
	   "skip 5 needs 8 bytes (padding): every shorter input fails");
	arg_len = 4;
	ok(check_prefixes(&g, eight, 4, w_skip) == 0, "skip 4 needs exactly 4");
	ok(dec_whole(eight, 8, w_skip, NULL, &left, &at) && left == 4,
	   "skip 4 of 8 leaves 4");
	arg_len = 0;
	ok(dec_whole(eight, 0, w_skip, NULL, &left, &at), "skip 0 of nothing");
	arg_len = 1;
	ok(!dec_whole(eight, 3, w_skip, NULL, &left, &at),
	   "skip 1 needs its 3 bytes of padding");
	arg_len = 0xffffffff;
	ok(!dec_whole(eight, 8, w_skip, NULL, &left, &at) && left == 8,
	   "skip 0xffffffff: no wrap-around, cursor unmoved");
	arg_len = 0xfffffffd;
	ok(!dec_whole(eight, 8, w_skip, NULL, &left, &at),
	   "skip 0xfffffffd: padding does not wrap to 0");
}

static void test_opaque_fixed(void)
{
	static const uint8_t abc[4] = { 'a', 'b', 'c', 0 };
	static const uint8_t abcd[4] = { 'a', 'b', 'c', 'd' };
	static const uint8_t five_then_u32[12] = {
		'h', 'e', 'l', 'l', 'o', 0, 0, 0, 0, 0, 0x30, 0x39,
	};
	const uint8_t *at;
	uint8_t out[8];
	size_t left;

	arg_len = 3;
	ok(check_prefixes(&g, abc, 4, w_fixed) == 0,
	   "opaque[3]: every prefix of 4 bytes fails");
	memset(out, 0xee, sizeof(out));
	ok(dec_whole(abc, 4, w_fixed, out, &left, &at) && !left &&
	   !memcmp(out, "abc", 3) && out[3] == 0xee,
	   "opaque[3]: copies 3 bytes, consumes 4, padding not copied");
	arg_len = 4;
	ok(check_prefixes(&g, abcd, 4, w_fixed) == 0, "opaque[4]: no padding");
	ok(dec_whole(abcd, 4, w_fixed, out, &left, &at) && !memcmp(out, "abcd", 4),
	   "opaque[4]: value");
	arg_len = 0;
	ok(dec_whole(abc, 0, w_fixed, out, &left, &at), "opaque[0] of nothing");

	{
		struct xdr_dec d;
		uint32_t v = 0;

		xdr_dec_init(&d, guard_put(&g, five_then_u32, 12), 12, NULL);
		ok(xdr_dec_opaque_fixed(&d, out, 5) && xdr_dec_left(&d) == 4 &&
		   xdr_dec_u32(&d, &v) && v == 12345 && !xdr_dec_left(&d),
		   "opaque[5] then u32: the 3 padding bytes are skipped");
	}
}

static void test_bytes(void)
{
	static const uint8_t hello[12] = {
		0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o', 0, 0, 0,
	};
	static const uint8_t four[8] = { 0, 0, 0, 4, 'a', 'b', 'c', 'd' };
	static const uint8_t empty[4] = { 0, 0, 0, 0 };
	static const uint8_t huge[8] = { 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4 };
	static const uint8_t huge2[8] = { 0xff, 0xff, 0xff, 0xfd, 1, 2, 3, 4 };
	struct xdr_bytes b;
	const uint8_t *at;
	size_t left;

	arg_max = 5;
	ok(check_prefixes(&g, hello, 12, w_bytes) == 0,
	   "opaque<5> \"hello\": every prefix of 12 bytes fails");
	memset(&b, 0, sizeof(b));
	ok(dec_whole(hello, 12, w_bytes, &b, &left, &at) && b.len == 5 &&
	   b.data == at + 4 && !memcmp(b.data, "hello", 5) && !left,
	   "opaque<5>: zero-copy view into the message, padding consumed");
	arg_max = 4;
	ok(!dec_whole(hello, 12, w_bytes, &b, &left, &at),
	   "opaque<4>: length 5 rejected");
	ok(check_prefixes(&g, four, 8, w_bytes) == 0, "opaque<4> \"abcd\": no pad");
	arg_max = 0;
	ok(check_prefixes(&g, empty, 4, w_bytes) == 0, "opaque<0>: empty");
	ok(dec_whole(empty, 4, w_bytes, &b, &left, &at) && b.len == 0,
	   "opaque<0>: length 0");
	arg_max = UINT32_MAX;
	ok(!dec_whole(huge, 8, w_bytes, &b, &left, &at),
	   "opaque<>: length 0xffffffff with 4 bytes present rejected");
	ok(!dec_whole(huge2, 8, w_bytes, &b, &left, &at),
	   "opaque<>: length 0xfffffffd, padding does not wrap");
}

static void test_count_ok(void)
{
	static const uint8_t twelve[12];
	struct xdr_dec d;

	xdr_dec_init(&d, guard_put(&g, twelve, 12), 12, NULL);
	ok(xdr_dec_left(&d) == 12 && d.arena == NULL, "dec_init: left, arena");
	ok(xdr_dec_count_ok(&d, 3, 3, 4), "count 3 x 4 bytes in 12: ok");
	ok(!xdr_dec_count_ok(&d, 4, 4, 4), "count 4 x 4 bytes in 12: too many");
	ok(!xdr_dec_count_ok(&d, 3, 2, 4), "count 3 > max 2");
	ok(xdr_dec_count_ok(&d, 0, 0, 4), "count 0, max 0");
	ok(xdr_dec_count_ok(&d, 1000, 1000, 0), "min_wire 0: only max applies");
	ok(!xdr_dec_count_ok(&d, 0xffffffff, 0xffffffff, 0xffffffff),
	   "count x min_wire near 2^64 does not overflow");
	xdr_dec_init(&d, guard_put(&g, twelve, 0), 0, NULL);
	ok(xdr_dec_count_ok(&d, 0, 10, 8) && !xdr_dec_count_ok(&d, 1, 10, 8),
	   "nothing left: only count 0");
}

/* ---------------------------------------------------------------- */
/* Arena                                                             */

static void test_arena(void)
{
	static alignas(8) uint8_t mem[64];
	struct xdr_arena a;
	uint8_t *p, *q;
	size_t i;
	bool zero = true;

	memset(mem, 0xaa, sizeof(mem));
	xdr_arena_init(&a, mem, sizeof(mem));
	ok(a.used == 0 && a.cap == 64 && a.base == mem, "arena_init");
	p = xdr_arena_alloc(&a, 1);
	q = xdr_arena_alloc(&a, 3);
	ok(p == mem && q == mem + 8 && a.used == 11, "allocations are 8-aligned");
	for (i = 0; i < 3; i++)
		zero &= q[i] == 0;
	ok(zero && p[0] == 0, "allocations are zeroed");
	ok(xdr_arena_alloc(&a, 48) == mem + 16 && a.used == 64, "fill to cap");
	ok(xdr_arena_alloc(&a, 1) == NULL && a.used == 64, "exhausted: NULL");
	xdr_arena_reset(&a);
	ok(a.used == 0, "arena_reset");
	ok(xdr_arena_alloc(&a, 65) == NULL && a.used == 0, "over cap: NULL");
	ok(xdr_arena_alloc(&a, SIZE_MAX) == NULL, "SIZE_MAX: NULL, no wrap");
	ok(xdr_arena_alloc(NULL, 1) == NULL, "no arena: NULL");
	ok(xdr_arena_array(&a, SIZE_MAX / 2 + 1, 2) == NULL && a.used == 0,
	   "arena_array: count x size overflow refused");
	ok(xdr_arena_array(&a, 4, 8) == mem && a.used == 32, "arena_array 4 x 8");
	ok(xdr_arena_array(&a, 5, 8) == NULL && a.used == 32,
	   "arena_array past cap: NULL");

	{
		static const uint8_t four[4];
		struct xdr_dec d;

		xdr_arena_reset(&a);
		xdr_dec_init(&d, guard_put(&g, four, 3), 3, &a);
		ok(xdr_dec_alloc(&d, 16, 4) == NULL && a.used == 0,
		   "dec_alloc: 3 bytes left, needs 4: refused before allocating");
		xdr_dec_init(&d, guard_put(&g, four, 4), 4, &a);
		ok(xdr_dec_alloc(&d, 16, 4) == mem && a.used == 16,
		   "dec_alloc: 4 bytes left: allocated");
		xdr_dec_init(&d, guard_put(&g, four, 4), 4, NULL);
		ok(xdr_dec_alloc(&d, 16, 4) == NULL, "dec_alloc without arena");
	}
}

static void test_pad(void)
{
	ok(xdr_pad(0) == 0 && xdr_pad(1) == 4 && xdr_pad(3) == 4 &&
	   xdr_pad(4) == 4 && xdr_pad(5) == 8 && xdr_pad(0xfffffffc) == 0xfffffffc,
	   "xdr_pad rounds up to 4");
}

/* ---------------------------------------------------------------- */
/* Encoding                                                          */

struct enc_arg {
	uint32_t u32;
	uint64_t u64;
	bool b;
	const void *src;
	uint32_t len, max;
};

typedef bool (*enc_fn)(struct xdr_enc *e, const struct enc_arg *a);

static bool e_u32(struct xdr_enc *e, const struct enc_arg *a) { return xdr_enc_u32(e, a->u32); }
static bool e_i32(struct xdr_enc *e, const struct enc_arg *a) { return xdr_enc_i32(e, (int32_t)a->u32); }
static bool e_u64(struct xdr_enc *e, const struct enc_arg *a) { return xdr_enc_u64(e, a->u64); }
static bool e_i64(struct xdr_enc *e, const struct enc_arg *a) { return xdr_enc_i64(e, (int64_t)a->u64); }
static bool e_bool(struct xdr_enc *e, const struct enc_arg *a) { return xdr_enc_bool(e, a->b); }

static bool e_fixed(struct xdr_enc *e, const struct enc_arg *a)
{
	return xdr_enc_opaque_fixed(e, a->src, a->len);
}

static bool e_bytes(struct xdr_enc *e, const struct enc_arg *a)
{
	return xdr_enc_bytes(e, a->src, a->len, a->max);
}

/*
 * Encode into every capacity below the size needed (must fail, leave
 * the position alone and, when @untouched, write nothing), then into the
 * exact size (must produce @want). Buffers end at the guard page.
 */
static void enc_case(const char *what, enc_fn fn, const struct enc_arg *a,
		     const uint8_t *want, size_t n, bool untouched)
{
	struct xdr_enc e;
	size_t cap, i;
	int wrong = 0;

	for (cap = 0; cap < n; cap++) {
		uint8_t *buf = guard_room(&g, cap);
		bool clean = true;

		memset(buf, 0xee, cap);
		xdr_enc_init(&e, buf, cap);
		if (fn(&e, a) || e.p != buf)
			wrong++;
		for (i = 0; i < cap; i++)
			clean &= buf[i] == 0xee;
		if (untouched && !clean)
			wrong++;
	}
	ok(!wrong, "%s: every capacity below %zu bytes refused", what, n);
	{
		uint8_t *buf = guard_room(&g, n);

		memset(buf, 0xee, n);
		xdr_enc_init(&e, buf, n);
		ok(fn(&e, a) && xdr_enc_len(&e) == n && xdr_enc_room(&e) == 0 &&
		   bytes_eq(buf, n, want, n), "%s: encodes exactly", what);
	}
}

static void test_encoders(void)
{
	static const uint8_t w_12345678[] = { 0x12, 0x34, 0x56, 0x78 };
	static const uint8_t w_m2[] = { 0xff, 0xff, 0xff, 0xfe };
	static const uint8_t w_u64[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint8_t w_m1[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t w_true[] = { 0, 0, 0, 1 }, w_false[] = { 0, 0, 0, 0 };
	static const uint8_t w_abcde[] = { 'a', 'b', 'c', 'd', 'e', 0, 0, 0 };
	static const uint8_t w_abcd[] = { 'a', 'b', 'c', 'd' };
	static const uint8_t w_hello[] = { 0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o', 0, 0, 0 };
	static const uint8_t w_empty[] = { 0, 0, 0, 0 };
	struct enc_arg a = { 0 };
	struct xdr_enc e;
	uint8_t *buf;

	a.u32 = 0x12345678;
	enc_case("enc_u32", e_u32, &a, w_12345678, 4, true);
	a.u32 = (uint32_t)-2;
	enc_case("enc_i32 -2", e_i32, &a, w_m2, 4, true);
	a.u64 = 0x0102030405060708ull;
	enc_case("enc_u64", e_u64, &a, w_u64, 8, true);
	a.u64 = (uint64_t)-1;
	enc_case("enc_i64 -1", e_i64, &a, w_m1, 8, true);
	a.b = true;
	enc_case("enc_bool true", e_bool, &a, w_true, 4, true);
	a.b = false;
	enc_case("enc_bool false", e_bool, &a, w_false, 4, true);
	a.src = "abcde";
	a.len = 5;
	enc_case("enc_opaque_fixed 5 (zero padding)", e_fixed, &a, w_abcde, 8, true);
	a.len = 4;
	enc_case("enc_opaque_fixed 4", e_fixed, &a, w_abcd, 4, true);
	a.len = 0;
	enc_case("enc_opaque_fixed 0", e_fixed, &a, w_abcd, 0, true);
	a.src = "hello";
	a.len = 5;
	a.max = 5;
	/* A short buffer may get the length word before the refusal. */
	enc_case("enc_bytes \"hello\"", e_bytes, &a, w_hello, 12, false);
	a.len = 0;
	enc_case("enc_bytes empty", e_bytes, &a, w_empty, 4, true);

	buf = guard_room(&g, 16);
	memset(buf, 0xee, 16);
	xdr_enc_init(&e, buf, 16);
	ok(!xdr_enc_bytes(&e, "hello", 5, 4) && e.p == buf && buf[0] == 0xee,
	   "enc_bytes: length 5 over max 4 refused, nothing written");
	ok(!xdr_enc_opaque_fixed(&e, "x", 0xfffffffd) && e.p == buf,
	   "enc_opaque_fixed: padded length wrap-around refused");
	ok(xdr_enc_len(&e) == 0 && xdr_enc_room(&e) == 16, "enc_len/room");

	buf = guard_room(&g, 8);
	xdr_enc_init(&e, buf, 8);
	ok(xdr_enc_reserve(&e, 4) == buf && xdr_enc_reserve(&e, 4) == buf + 4 &&
	   xdr_enc_reserve(&e, 4) == NULL && xdr_enc_len(&e) == 8,
	   "enc_reserve: up to capacity, then NULL");
	ok(xdr_enc_reserve(&e, 0) == buf + 8, "enc_reserve 0 at the end");
}

int main(void)
{
	guard_init(&g, 4096);
	test_pad();
	test_ints();
	test_bool();
	test_skip();
	test_opaque_fixed();
	test_bytes();
	test_count_ok();
	test_arena();
	test_encoders();
	guard_free(&g);
	return tap_done();
}
