/* SPDX-License-Identifier: MIT */
/*
 * libnfsx's NFSv4.1 decoders without a server: the COMPOUND reply
 * decoder's bounds (at most NFSX4_MAX_OPS results, the whole reply
 * consumed, an arena of nc_arena_size() enough for a dense READDIR) and
 * the bitmap-driven fattr4 decoder (values in bit order, owners,
 * unknown attributes and left-over bytes refused, times saturated).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client/attr4.h"
#include "client/nfs4.h"
#include "client/reply.h"
#include "tap.h"

struct buf {
	uint8_t b[65536];
	size_t n;
};

static void u32(struct buf *b, uint32_t v)
{
	xdr__put32(b->b + b->n, v);
	b->n += 4;
}

static void u64(struct buf *b, uint64_t v)
{
	u32(b, (uint32_t)(v >> 32));
	u32(b, (uint32_t)v);
}

static void str(struct buf *b, const char *s)
{
	size_t n = strlen(s);

	u32(b, (uint32_t)n);
	memcpy(b->b + b->n, s, n);
	memset(b->b + b->n + n, 0, (4 - n % 4) % 4);
	b->n += (n + 3) & ~(size_t)3;
}

static struct nfsx4_res res;
static void *arena_mem;        /* the last decode's lists, until the next */

static bool decode(const struct buf *b)
{
	size_t cap = nc_arena_size(b->n);
	struct xdr_arena a;
	struct xdr_dec d;
	bool ok;

	free(arena_mem);
	arena_mem = malloc(cap);
	xdr_arena_init(&a, arena_mem, cap);
	xdr_dec_init(&d, b->b, b->n, &a);
	memset(&res, 0, sizeof(res));
	ok = nfsx4_decode_res(&d, &res);
	return ok;
}

static void head(struct buf *b, uint32_t status, uint32_t nops)
{
	b->n = 0;
	u32(b, status);
	str(b, "");
	u32(b, nops);
}

static void test_compound(void)
{
	struct buf *b = calloc(1, sizeof(*b));
	unsigned i;

	head(b, 0, 2);
	u32(b, OP_PUTROOTFH);
	u32(b, 0);
	u32(b, OP_GETFH);
	u32(b, 0);
	str(b, "0123456789abcdef");
	ok(decode(b) && res.nops == 2 && res.ops[1].u.opgetfh.u.resok4.object.len == 16,
	   "PUTROOTFH + GETFH decodes");
	u32(b, 0);
	ok(!decode(b), "a byte left over: refused");
	b->n -= 8;
	ok(!decode(b), "a short reply: refused");

	head(b, 0, NFSX4_MAX_OPS);
	for (i = 0; i < NFSX4_MAX_OPS; i++) {
		u32(b, OP_PUTROOTFH);
		u32(b, 0);
	}
	ok(decode(b) && res.nops == NFSX4_MAX_OPS, "%u results decode", NFSX4_MAX_OPS);
	head(b, 0, NFSX4_MAX_OPS + 1);
	for (i = 0; i <= NFSX4_MAX_OPS; i++) {
		u32(b, OP_PUTROOTFH);
		u32(b, 0);
	}
	ok(!decode(b), "%u results: refused (no room is made for them)", NFSX4_MAX_OPS + 1);

	/* READDIR of the densest entries: empty names, no attributes */
	head(b, 0, 1);
	u32(b, OP_READDIR);
	u32(b, 0);
	u64(b, 0);
	for (i = 0; i < 2000; i++) {
		u32(b, 1);
		u64(b, i + 3);
		str(b, "");
		u32(b, 0);
		u32(b, 0);
	}
	u32(b, 0);
	u32(b, 1);
	ok(decode(b), "2000 densest READDIR entries decode within nc_arena_size()");
	free(b);
}

/* An fattr4 of @w[0..2] with @vals. */
static struct fattr4 mk(uint32_t *w, const struct buf *vals)
{
	struct fattr4 f;

	f.attrmask.len = 3;
	f.attrmask.val = w;
	f.attr_vals.data = vals->b;
	f.attr_vals.len = (uint32_t)vals->n;
	return f;
}

static void test_attrs(void)
{
	struct buf *v = calloc(1, sizeof(*v));
	uint32_t w[3];
	struct nc4_attrs a;
	struct fattr4 f;

	nc4_attr_request(w, false);
	u32(v, NF4DIR);           /* type */
	u64(v, 4096);             /* size */
	u64(v, 7);                /* fsid major */
	u64(v, 0);                /* minor */
	u64(v, 1234567);          /* fileid */
	u32(v, 0755);             /* mode */
	u32(v, 3);                /* numlinks */
	str(v, "1000");           /* owner */
	str(v, "nosuchgroup-xyz@example.org");
	u32(v, 0);                /* rawdev */
	u32(v, 0);
	u64(v, 8192);             /* space_used */
	u64(v, 1700000000);       /* atime */
	u32(v, 5);
	u64(v, 1700000001);       /* ctime (time_metadata) */
	u32(v, 6);
	u64(v, 1700000002);       /* mtime */
	u32(v, 7);
	f = mk(w, v);
	ok(nc4_attr_decode(&f, &a) == 0, "the attributes nfsx_attr holds decode");
	ok(a.a.type == NF3DIR && a.a.size == 4096 && a.a.fileid == 1234567 && a.a.mode == 0755 &&
	   a.a.nlink == 3 && a.a.uid == 1000 && a.a.gid == 65534 && a.a.used == 8192,
	   "type, size, fileid, mode, nlink, owner 1000, unknown group as 65534, used");
	ok(a.a.atime_ns == 1700000000000000005ll && a.a.ctime_ns == 1700000001000000006ll &&
	   a.a.mtime_ns == 1700000002000000007ll, "atime, ctime, mtime to the nanosecond");

	v->n -= 4;
	f = mk(w, v);
	ok(nc4_attr_decode(&f, &a) == -EPROTO, "a value cut short: -EPROTO");
	v->n += 8;
	f = mk(w, v);
	ok(nc4_attr_decode(&f, &a) == -EPROTO, "bytes left over: -EPROTO");

	v->n = 0;
	w[0] = 1u << FATTR4_ACL;
	w[1] = w[2] = 0;
	u32(v, 0);
	f = mk(w, v);
	ok(nc4_attr_decode(&f, &a) == -EPROTO, "an attribute the decoder does not know: -EPROTO");

	v->n = 0;
	w[0] = 0;
	w[1] = 1u << (FATTR4_TIME_MODIFY - 32);
	u64(v, (uint64_t)INT64_MAX);
	u32(v, 0);
	f = mk(w, v);
	ok(nc4_attr_decode(&f, &a) == 0 && a.a.mtime_ns == INT64_MAX,
	   "a time past what int64 nanoseconds hold saturates");
	v->n = 0;
	u64(v, 1);
	u32(v, 1000000000);
	f = mk(w, v);
	ok(nc4_attr_decode(&f, &a) == -EPROTO, "nseconds of 10^9: -EPROTO");
	free(v);
}

int main(void)
{
	test_compound();
	test_attrs();
	free(arena_mem);
	return tap_done();
}
