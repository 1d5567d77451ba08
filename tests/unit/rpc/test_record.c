/* SPDX-License-Identifier: MIT */
/*
 * TCP record marking reassembly (src/rpc/record.c, RFC 5531 section 11):
 * single- and multi-fragment records (zero-length non-final and final
 * fragments, an empty record), several records back-to-back, the same
 * stream delivered at every split point and byte by byte, with and
 * without the dead-prefix compaction that src/rpc/conn.c performs
 * (rpc_record_dead + memmove + rpc_record_shift), and the size limit:
 * a fragment or a record over the maximum is refused as soon as its
 * 4-byte marker has been read, exactly the maximum is accepted. Every
 * parse call sees its bytes ending right at a PROT_NONE page, so an
 * over-read faults.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpc/record.h"
#include "tap.h"
#include "testutil.h"

#define MAX_RECS 16
#define STREAM_MAX 8192

struct recs {
	int status;   /* status of the last parse call */
	size_t n;
	size_t len[MAX_RECS];
	uint8_t data[MAX_RECS][STREAM_MAX];
	bool off_bad; /* a record was reported outside the buffer */
};

static struct guard g;

static void w_frag(struct wbuf *w, const uint8_t *p, uint32_t n, bool last)
{
	w_u32(w, (last ? RPC_RM_LAST : 0) | n);
	w_raw(w, p, n);
}

/* Parse what is in buf[0, len) until MORE or TOOBIG, collecting records. */
static int drain(struct rpc_record *r, uint8_t *buf, size_t len,
		 struct recs *out)
{
	size_t off, rlen;
	int st;

	for (;;) {
		st = rpc_record_parse(r, buf, len, &off, &rlen);
		if (st != RPC_RECORD_DONE)
			return st;
		if (off > len || rlen > len - off || out->n >= MAX_RECS) {
			out->off_bad = true;
			return -2;
		}
		memcpy(out->data[out->n], buf + off, rlen);
		out->len[out->n++] = rlen;
		rpc_record_consumed(r);
	}
}

/*
 * Deliver @s in chunks ending at the offsets in @cuts (the last one must
 * be s->n). Before every delivery the buffer is moved so that its end is
 * at the guard page. With @compact, the dead prefix is dropped before
 * every delivery as conn.c's make_room() does.
 */
static void feed(const struct wbuf *s, const size_t *cuts, size_t ncuts,
		 uint32_t max, bool compact, struct recs *out)
{
	struct rpc_record r;
	uint8_t *buf = g.end; /* current buffer, [buf, buf + have) */
	size_t have = 0, fed = 0, i;

	memset(out, 0, sizeof(*out));
	rpc_record_init(&r, max);
	for (i = 0; i < ncuts; i++) {
		size_t add = cuts[i] - fed;
		uint8_t *nb;

		if (compact) {
			size_t dead = rpc_record_dead(&r);

			if (dead > have) {
				out->off_bad = true;
				out->status = -3;
				return;
			}
			memmove(buf, buf + dead, have - dead);
			have -= dead;
			rpc_record_shift(&r, dead);
		}
		nb = g.end - (have + add);
		memmove(nb, buf, have);
		memcpy(nb + have, s->b + fed, add);
		buf = nb;
		have += add;
		fed += add;
		out->status = drain(&r, buf, have, out);
		if (out->status < 0)
			return;
	}
}

static bool recs_eq(const struct recs *a, const struct recs *b)
{
	size_t i;

	if (a->status != b->status || a->n != b->n || a->off_bad || b->off_bad)
		return false;
	for (i = 0; i < a->n; i++)
		if (a->len[i] != b->len[i] ||
		    memcmp(a->data[i], b->data[i], a->len[i]) != 0)
			return false;
	return true;
}

static uint8_t pat[STREAM_MAX];

/* The reference stream: five records, see build_stream(). */
static struct wbuf stream;
static const size_t want_len[] = { 12, 14, 10, 0, 100 };

static void build_stream(void)
{
	stream.n = 0;
	/* R1: one fragment of 12 bytes. */
	w_frag(&stream, pat, 12, true);
	/* R2: 5 bytes, an empty non-final fragment, 9 bytes final. */
	w_frag(&stream, pat + 100, 5, false);
	w_frag(&stream, NULL, 0, false);
	w_frag(&stream, pat + 105, 9, true);
	/* R3: 7 bytes, 3 bytes, then an empty final fragment. */
	w_frag(&stream, pat + 200, 7, false);
	w_frag(&stream, pat + 207, 3, false);
	w_frag(&stream, NULL, 0, true);
	/* R4: an empty record. */
	w_frag(&stream, NULL, 0, true);
	/* R5: one fragment of 100 bytes. */
	w_frag(&stream, pat + 300, 100, true);
}

static bool want_ok(const struct recs *rs)
{
	static const size_t src[] = { 0, 100, 200, 0, 300 };
	size_t i;

	if (rs->status != RPC_RECORD_MORE || rs->n != 5 || rs->off_bad)
		return false;
	for (i = 0; i < 5; i++)
		if (rs->len[i] != want_len[i] ||
		    memcmp(rs->data[i], pat + src[i], want_len[i]) != 0)
			return false;
	return true;
}

static struct recs ref, got;

static void test_single(void)
{
	struct rpc_record r;
	struct wbuf *w = malloc(sizeof(*w));
	size_t off = 99, len = 99;
	uint8_t *buf;
	int st;

	w->n = 0;
	w_frag(w, pat, 40, true);
	buf = guard_place(&g, w->b, w->n);
	rpc_record_init(&r, 1000);
	st = rpc_record_parse(&r, buf, w->n, &off, &len);
	ok(st == RPC_RECORD_DONE, "single fragment: DONE (got %d)", st);
	ok(off == 4 && len == 40, "single fragment: in place at 4, 40 bytes "
	   "(off %zu len %zu)", off, len);
	ok(memcmp(buf + off, pat, 40) == 0, "single fragment: payload intact");
	rpc_record_consumed(&r);
	st = rpc_record_parse(&r, buf, w->n, &off, &len);
	ok(st == RPC_RECORD_MORE, "after the record: MORE (got %d)", st);
	ok(rpc_record_dead(&r) == w->n, "everything is dead after consumed "
	   "(%zu)", rpc_record_dead(&r));

	/* Marker only, then marker and part of the payload. */
	rpc_record_init(&r, 1000);
	buf = guard_place(&g, w->b, 4);
	st = rpc_record_parse(&r, buf, 4, &off, &len);
	ok(st == RPC_RECORD_MORE && rpc_record_need(&r) == 40,
	   "marker alone: MORE, need 40 (st %d need %u)", st,
	   rpc_record_need(&r));
	buf = guard_place(&g, w->b, 30);
	st = rpc_record_parse(&r, buf, 30, &off, &len);
	ok(st == RPC_RECORD_MORE && rpc_record_need(&r) == 14,
	   "26 payload bytes: MORE, need 14 (st %d need %u)", st,
	   rpc_record_need(&r));
	free(w);
}

static void test_multi(void)
{
	struct rpc_record r;
	struct wbuf *w = malloc(sizeof(*w));
	size_t off = 0, len = 0;
	uint8_t *buf;
	int st;

	w->n = 0;
	w_frag(w, pat, 10, false);
	w_frag(w, NULL, 0, false);
	w_frag(w, pat + 10, 6, true);
	buf = guard_place(&g, w->b, w->n);
	rpc_record_init(&r, 1000);
	st = rpc_record_parse(&r, buf, w->n, &off, &len);
	ok(st == RPC_RECORD_DONE, "3 fragments (10, 0, 6): DONE (got %d)", st);
	ok(len == 16 && off == 4, "3 fragments: 16 bytes at 4 (off %zu len %zu)",
	   off, len);
	ok(memcmp(buf + off, pat, 16) == 0, "3 fragments: payload gathered");

	w->n = 0;
	w_frag(w, pat, 8, false);
	w_frag(w, pat + 8, 4, false);
	w_frag(w, NULL, 0, true);
	buf = guard_place(&g, w->b, w->n);
	rpc_record_init(&r, 1000);
	st = rpc_record_parse(&r, buf, w->n, &off, &len);
	ok(st == RPC_RECORD_DONE && len == 12 &&
	   memcmp(buf + off, pat, 12) == 0,
	   "3 fragments ending with an empty final one: 12 bytes (st %d len %zu)",
	   st, len);

	w->n = 0;
	w_frag(w, NULL, 0, true);
	buf = guard_place(&g, w->b, w->n);
	rpc_record_init(&r, 1000);
	len = 99;
	st = rpc_record_parse(&r, buf, w->n, &off, &len);
	ok(st == RPC_RECORD_DONE && len == 0, "empty record: DONE, 0 bytes "
	   "(st %d len %zu)", st, len);
	free(w);
}

static void test_back_to_back(void)
{
	size_t cut = stream.n;

	feed(&stream, &cut, 1, 1000, false, &ref);
	ok(want_ok(&ref), "5 records back-to-back in one buffer (n %zu st %d)",
	   ref.n, ref.status);
	feed(&stream, &cut, 1, 1000, true, &got);
	ok(recs_eq(&ref, &got), "same with compaction");
}

static void test_splits(void)
{
	size_t k, cuts[2], *bytes;
	int bad = 0, bad_c = 0;

	for (k = 0; k <= stream.n; k++) {
		cuts[0] = k;
		cuts[1] = stream.n;
		feed(&stream, cuts, 2, 1000, false, &got);
		if (!recs_eq(&ref, &got))
			bad++;
		feed(&stream, cuts, 2, 1000, true, &got);
		if (!recs_eq(&ref, &got))
			bad_c++;
	}
	ok(bad == 0, "every split point (%zu) gives the same records (%d differ)",
	   stream.n + 1, bad);
	ok(bad_c == 0, "every split point with compaction (%d differ)", bad_c);

	bytes = malloc(stream.n * sizeof(*bytes));
	for (k = 0; k < stream.n; k++)
		bytes[k] = k + 1;
	feed(&stream, bytes, stream.n, 1000, false, &got);
	ok(recs_eq(&ref, &got), "byte by byte gives the same records");
	feed(&stream, bytes, stream.n, 1000, true, &got);
	ok(recs_eq(&ref, &got), "byte by byte with compaction");

	/* Two split points everywhere (a marker split, payload split, ...). */
	bad = 0;
	for (k = 0; k <= stream.n; k++) {
		size_t j, c3[3];

		for (j = k; j <= stream.n; j += 3) {
			c3[0] = k;
			c3[1] = j;
			c3[2] = stream.n;
			feed(&stream, c3, 3, 1000, true, &got);
			if (!recs_eq(&ref, &got))
				bad++;
		}
	}
	ok(bad == 0, "pairs of split points with compaction (%d differ)", bad);
	free(bytes);
}

static int parse_once(const struct wbuf *w, size_t n, uint32_t max,
		      size_t *len)
{
	struct rpc_record r;
	size_t off;
	uint8_t *buf = guard_place(&g, w->b, n);

	rpc_record_init(&r, max);
	*len = 0;
	return rpc_record_parse(&r, buf, n, &off, len);
}

static void test_limits(void)
{
	struct wbuf *w = malloc(sizeof(*w));
	size_t len;
	int st;

	/* One fragment over the limit: refused on its marker alone. */
	w->n = 0;
	w_frag(w, pat, 101, true);
	st = parse_once(w, 4, 100, &len);
	ok(st == RPC_RECORD_TOOBIG, "final fragment 101 > max 100: TOOBIG "
	   "after the marker (got %d)", st);
	w->n = 0;
	w_frag(w, pat, 101, false);
	st = parse_once(w, 4, 100, &len);
	ok(st == RPC_RECORD_TOOBIG, "non-final fragment 101 > max 100: TOOBIG "
	   "after the marker (got %d)", st);
	st = parse_once(w, 3, 100, &len);
	ok(st == RPC_RECORD_MORE, "3 marker bytes: MORE (got %d)", st);

	/* The sum of fragments over the limit. */
	w->n = 0;
	w_frag(w, pat, 60, false);
	w_frag(w, pat, 41, true);
	st = parse_once(w, 64, 100, &len);
	ok(st == RPC_RECORD_MORE, "first fragment 60 of max 100: MORE (got %d)",
	   st);
	st = parse_once(w, 68, 100, &len);
	ok(st == RPC_RECORD_TOOBIG, "60 + 41 > 100: TOOBIG after the second "
	   "marker (got %d)", st);

	/* Exactly the limit. */
	w->n = 0;
	w_frag(w, pat, 60, false);
	w_frag(w, pat + 60, 40, true);
	st = parse_once(w, w->n, 100, &len);
	ok(st == RPC_RECORD_DONE && len == 100, "60 + 40 == max 100: DONE "
	   "(st %d len %zu)", st, len);
	w->n = 0;
	w_frag(w, pat, 100, true);
	st = parse_once(w, w->n, 100, &len);
	ok(st == RPC_RECORD_DONE && len == 100, "one fragment == max: DONE "
	   "(st %d len %zu)", st, len);
	w->n = 0;
	w_frag(w, pat, 100, false);
	w_frag(w, NULL, 0, true);
	st = parse_once(w, w->n, 100, &len);
	ok(st == RPC_RECORD_DONE && len == 100, "max then an empty final "
	   "fragment: DONE (st %d len %zu)", st, len);
	w->n = 0;
	w_frag(w, pat, 100, false);
	w_frag(w, pat, 1, true);
	st = parse_once(w, w->n, 100, &len);
	ok(st == RPC_RECORD_TOOBIG, "max then one more byte: TOOBIG (got %d)",
	   st);

	/* Huge markers against a 1 MiB limit. */
	w->n = 0;
	w_u32(w, 0xffffffffu);
	st = parse_once(w, 4, 1u << 20, &len);
	ok(st == RPC_RECORD_TOOBIG, "marker 0xFFFFFFFF, max 1 MiB: TOOBIG "
	   "(got %d)", st);
	w->n = 0;
	w_u32(w, 0x7fffffffu);
	st = parse_once(w, 4, 1u << 20, &len);
	ok(st == RPC_RECORD_TOOBIG, "marker 0x7FFFFFFF, max 1 MiB: TOOBIG "
	   "(got %d)", st);
	w->n = 0;
	w_u32(w, RPC_RM_LAST | (1u << 20));
	st = parse_once(w, 4, 1u << 20, &len);
	ok(st == RPC_RECORD_MORE, "marker of exactly 1 MiB: MORE (got %d)", st);
	w->n = 0;
	w_u32(w, RPC_RM_LAST | ((1u << 20) + 1));
	st = parse_once(w, 4, 1u << 20, &len);
	ok(st == RPC_RECORD_TOOBIG, "marker of 1 MiB + 1: TOOBIG (got %d)", st);

	/* Limit applies per record: a second record of max is fine. */
	w->n = 0;
	w_frag(w, pat, 100, true);
	w_frag(w, pat + 1, 100, true);
	{
		size_t cut = w->n;

		feed(w, &cut, 1, 100, true, &got);
		ok(got.status == RPC_RECORD_MORE && got.n == 2 &&
		   got.len[0] == 100 && got.len[1] == 100 &&
		   memcmp(got.data[1], pat + 1, 100) == 0,
		   "two records of exactly max back-to-back (n %zu)", got.n);
	}
	free(w);
}

/* Compaction in the middle of a multi-fragment record, by hand. */
static void test_compaction(void)
{
	struct rpc_record r;
	struct wbuf *w = malloc(sizeof(*w));
	uint8_t *buf = malloc(4096);
	size_t off = 0, len = 0, dead, have;
	int st;

	w->n = 0;
	w_frag(w, pat, 20, true);         /* record A */
	w_frag(w, pat + 500, 10, false);  /* record B, fragment 1 */
	w_frag(w, pat + 510, 30, true);   /* record B, fragment 2 */
	rpc_record_init(&r, 1000);

	/* Deliver A and B's first fragment plus 2 bytes of the next marker. */
	have = 24 + 14 + 2;
	memcpy(buf, w->b, have);
	st = rpc_record_parse(&r, buf, have, &off, &len);
	ok(st == RPC_RECORD_DONE && off == 4 && len == 20,
	   "record A (st %d off %zu len %zu)", st, off, len);
	ok(rpc_record_dead(&r) == 4,
	   "A still in use: only its marker is dead (%zu)", rpc_record_dead(&r));
	rpc_record_consumed(&r);
	ok(rpc_record_dead(&r) == 24, "A consumed: 24 bytes dead (%zu)",
	   rpc_record_dead(&r));
	st = rpc_record_parse(&r, buf, have, &off, &len);
	ok(st == RPC_RECORD_MORE, "B incomplete: MORE (got %d)", st);
	dead = rpc_record_dead(&r);
	ok(dead == 28, "B started: dead prefix ends at B's payload (%zu)", dead);
	memmove(buf, buf + dead, have - dead);
	have -= dead;
	rpc_record_shift(&r, dead);
	memcpy(buf + have, w->b + 40, w->n - 40);
	have += w->n - 40;
	st = rpc_record_parse(&r, buf, have, &off, &len);
	ok(st == RPC_RECORD_DONE && off == 0 && len == 40 &&
	   memcmp(buf, pat + 500, 40) == 0,
	   "B after compaction: 40 bytes at 0 (st %d off %zu len %zu)", st, off,
	   len);
	free(buf);
	free(w);
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(pat); i++)
		pat[i] = (uint8_t)(i * 7 + 3);
	guard_init(&g, 2 * WBUF_MAX);
	build_stream();

	test_single();
	test_multi();
	test_back_to_back();
	test_splits();
	test_limits();
	test_compaction();

	guard_free(&g);
	return tap_done();
}
