/* SPDX-License-Identifier: MIT */
/*
 * The duplicate request cache (src/rpc/drc.c) on its own: MISS, then
 * IN_PROGRESS for a retransmission before the reply is stored, HIT with
 * the exact reply bytes after; abandon forgets an in-progress entry but
 * not a completed one; the key tells apart xid, program, version,
 * procedure, address, port, family and arguments; the memory bound
 * holds while 10,000 replies go through a 64 KiB cache (least recently
 * used completed entries are evicted, in-progress ones never); and
 * four threads hammering overlapping keys leave consistent statistics
 * (this file is also meant to be built with -fsanitize=thread); the
 * hash is keyed per cache (two caches place the same keys apart) and
 * entries are still found by their key.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpc/drc.h"
#include "tap.h"

struct copied {
	int calls;
	size_t len;
	uint8_t buf[2048];
};

static void copy_cb(void *arg, const uint8_t *reply, size_t len)
{
	struct copied *c = arg;

	c->calls++;
	c->len = len;
	if (len <= sizeof(c->buf))
		memcpy(c->buf, reply, len);
}

static struct sockaddr_storage peer4, peer4b, peer6;

static void mkpeer4(struct sockaddr_storage *ss, const char *ip, uint16_t port)
{
	struct sockaddr_in *s = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	s->sin_family = AF_INET;
	s->sin_port = htons(port);
	inet_pton(AF_INET, ip, &s->sin_addr);
}

static void mkpeer6(struct sockaddr_storage *ss, const char *ip, uint16_t port)
{
	struct sockaddr_in6 *s = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	s->sin6_family = AF_INET6;
	s->sin6_port = htons(port);
	inet_pton(AF_INET6, ip, &s->sin6_addr);
}

static const uint8_t args[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

static void key(struct rpc_drc_key *k, uint32_t xid,
		const struct sockaddr_storage *peer)
{
	rpc_drc_make_key(k, xid, 100003, 3, 2, peer, args, sizeof(args));
}

static enum rpc_drc_result look(struct rpc_drc *drc,
				const struct rpc_drc_key *k,
				struct copied *c)
{
	memset(c, 0, sizeof(*c));
	return rpc_drc_lookup(drc, k, copy_cb, c);
}

static void test_basic(void)
{
	struct rpc_drc *drc = rpc_drc_create(1u << 20);
	struct rpc_drc_stats st;
	struct rpc_drc_key k, k2;
	struct copied c;
	uint8_t reply[37];
	enum rpc_drc_result r;
	size_t i;

	for (i = 0; i < sizeof(reply); i++)
		reply[i] = (uint8_t)(0x40 + i);
	key(&k, 1, &peer4);
	r = look(drc, &k, &c);
	ok(r == RPC_DRC_MISS && c.calls == 0, "first lookup: MISS, no copy");
	r = look(drc, &k, &c);
	ok(r == RPC_DRC_IN_PROGRESS && c.calls == 0,
	   "second lookup before store: IN_PROGRESS (got %d)", r);
	rpc_drc_store(drc, &k, reply, sizeof(reply));
	r = look(drc, &k, &c);
	ok(r == RPC_DRC_HIT && c.calls == 1 && c.len == sizeof(reply) &&
	   memcmp(c.buf, reply, sizeof(reply)) == 0,
	   "after store: HIT with the exact 37 bytes (r %d len %zu)", r, c.len);
	r = look(drc, &k, &c);
	ok(r == RPC_DRC_HIT && c.len == sizeof(reply), "HIT again");
	rpc_drc_get_stats(drc, &st);
	ok(st.misses == 1 && st.hits == 2 && st.in_progress_drops == 1 &&
	   st.entries == 1 && st.evictions == 0,
	   "stats: 1 miss, 2 hits, 1 drop, 1 entry (m %llu h %llu d %llu e %zu)",
	   (unsigned long long)st.misses, (unsigned long long)st.hits,
	   (unsigned long long)st.in_progress_drops, st.entries);
	ok(st.bytes >= sizeof(reply) + sizeof(k) && st.bytes < 4096,
	   "stats: bytes account the entry and its reply (%zu)", st.bytes);

	/* Abandon. */
	key(&k2, 2, &peer4);
	ok(look(drc, &k2, &c) == RPC_DRC_MISS, "new key: MISS");
	rpc_drc_abandon(drc, &k2);
	rpc_drc_get_stats(drc, &st);
	ok(st.entries == 1, "abandon removed the in-progress entry (%zu)",
	   st.entries);
	ok(look(drc, &k2, &c) == RPC_DRC_MISS,
	   "after abandon: MISS again, not IN_PROGRESS");
	rpc_drc_abandon(drc, &k2);
	rpc_drc_abandon(drc, &k);
	ok(look(drc, &k, &c) == RPC_DRC_HIT,
	   "abandon does not remove a completed entry");
	rpc_drc_abandon(drc, &k2);

	/* Store without a lookup: nothing is entered. */
	key(&k2, 3, &peer4);
	rpc_drc_store(drc, &k2, reply, sizeof(reply));
	ok(look(drc, &k2, &c) == RPC_DRC_MISS,
	   "store of a key never looked up is ignored");
	rpc_drc_abandon(drc, &k2);

	/* Empty reply. */
	key(&k2, 4, &peer4);
	look(drc, &k2, &c);
	rpc_drc_store(drc, &k2, reply, 0);
	r = look(drc, &k2, &c);
	ok(r == RPC_DRC_HIT && c.calls == 1 && c.len == 0,
	   "zero-length reply: HIT with len 0");
	rpc_drc_destroy(drc);
}

static void test_keys(void)
{
	struct rpc_drc_key a, b;
	uint8_t big1[600], big2[600];
	int diff = 0;

	key(&a, 7, &peer4);
	key(&b, 7, &peer4);
	ok(memcmp(&a, &b, sizeof(a)) == 0, "same call: same key");
	ok(a.xid == 7 && a.prog == 100003 && a.vers == 3 && a.proc == 2 &&
	   a.args_len == 8 && a.family == AF_INET && a.port == htons(900) &&
	   a.addr[0] == 198 && a.addr[3] == 1,
	   "key fields: xid prog vers proc args_len family port addr");
#define DIFFERS(expr)                                                        \
	do {                                                                 \
		expr;                                                        \
		if (memcmp(&a, &b, sizeof(a)) == 0)                          \
			diff++;                                              \
	} while (0)
	DIFFERS(key(&b, 8, &peer4));
	DIFFERS(key(&b, 7, &peer4b));
	DIFFERS(key(&b, 7, &peer6));
	DIFFERS(rpc_drc_make_key(&b, 7, 100005, 3, 2, &peer4, args, 8));
	DIFFERS(rpc_drc_make_key(&b, 7, 100003, 4, 2, &peer4, args, 8));
	DIFFERS(rpc_drc_make_key(&b, 7, 100003, 3, 1, &peer4, args, 8));
	DIFFERS(rpc_drc_make_key(&b, 7, 100003, 3, 2, &peer4, args, 7));
	DIFFERS(rpc_drc_make_key(&b, 7, 100003, 3, 2, &peer4, args + 1, 7));
	DIFFERS(rpc_drc_make_key(&b, 7, 100003, 3, 2, NULL, args, 8));
	ok(diff == 0, "xid, port, family, prog, vers, proc, args length and "
	   "bytes, peer all change the key (%d do not)", diff);

	key(&a, 7, &peer6);
	ok(a.family == AF_INET6 && a.port == htons(900) && a.addr[0] == 0x20 &&
	   a.addr[15] == 0x01, "IPv6 key: family, port, 16 address bytes");

	/* Checksum over the first 256 bytes of the arguments. */
	memset(big1, 9, sizeof(big1));
	memcpy(big2, big1, sizeof(big2));
	big2[255] ^= 1;
	rpc_drc_make_key(&a, 7, 1, 1, 1, &peer4, big1, sizeof(big1));
	rpc_drc_make_key(&b, 7, 1, 1, 1, &peer4, big2, sizeof(big2));
	ok(memcmp(&a, &b, sizeof(a)) != 0 && a.args_len == 600,
	   "argument byte 255 is covered by the key");
}

/*
 * Rough size of one entry plus a 100-byte reply: the key, two list
 * links, a chain link, flag and length: well under 256 bytes.
 */
#define ENTRY_SLACK (256u + 100u)

static void test_bound(void)
{
	const size_t max = 64u * 1024;
	struct rpc_drc *drc = rpc_drc_create(max);
	struct rpc_drc_stats st;
	struct rpc_drc_key k, pin;
	struct copied c;
	uint8_t reply[100];
	size_t i, peak = 0, bad_miss = 0;

	key(&pin, 0xfffffff0u, &peer4);
	ok(look(drc, &pin, &c) == RPC_DRC_MISS, "bound: an entry kept in progress");
	for (i = 0; i < 10000; i++) {
		memset(reply, (int)(i & 0xff), sizeof(reply));
		memcpy(reply, &i, sizeof(i));
		key(&k, (uint32_t)i, &peer4);
		if (rpc_drc_lookup(drc, &k, copy_cb, &c) != RPC_DRC_MISS)
			bad_miss++;
		rpc_drc_store(drc, &k, reply, sizeof(reply));
		rpc_drc_get_stats(drc, &st);
		if (st.bytes > peak)
			peak = st.bytes;
	}
	rpc_drc_get_stats(drc, &st);
	ok(bad_miss == 0, "bound: 10,000 new keys all MISS (%zu did not)",
	   bad_miss);
	ok(peak <= max + 16 * ENTRY_SLACK,
	   "bound: bytes stay <= 64 KiB + slack (peak %zu, now %zu)", peak,
	   st.bytes);
	ok(st.bytes <= max, "bound: settled bytes <= 64 KiB (%zu)", st.bytes);
	ok(st.evictions > 0 && st.entries + st.evictions == 10001,
	   "bound: evictions (%llu) + entries (%zu) == 10,001",
	   (unsigned long long)st.evictions, st.entries);
	ok(st.entries > 100, "bound: the cache is not emptied (%zu entries)",
	   st.entries);

	key(&k, 9999, &peer4);
	i = 9999;
	ok(look(drc, &k, &c) == RPC_DRC_HIT && c.len == 100 &&
	   memcmp(c.buf, &i, sizeof(i)) == 0,
	   "bound: the most recent entry is a HIT with its own reply");
	key(&k, 0, &peer4);
	ok(look(drc, &k, &c) == RPC_DRC_MISS, "bound: the oldest entry is a MISS");
	rpc_drc_abandon(drc, &k);
	ok(look(drc, &pin, &c) == RPC_DRC_IN_PROGRESS,
	   "bound: the in-progress entry survived all evictions");

	/* A reply bigger than a shard's share does not stay. */
	{
		static uint8_t huge[16384];

		key(&k, 0x7777, &peer4b);
		look(drc, &k, &c);
		rpc_drc_store(drc, &k, huge, sizeof(huge));
		rpc_drc_get_stats(drc, &st);
		ok(st.bytes <= max, "bound: a 16 KiB reply does not break the "
		   "bound (%zu)", st.bytes);
	}
	rpc_drc_destroy(drc);
}

/* Recently hit entries are kept over older ones (LRU, not FIFO). */
static void test_lru(void)
{
	struct rpc_drc *drc = rpc_drc_create(64u * 1024);
	struct rpc_drc_key k;
	struct copied c;
	uint8_t reply[100] = { 0 };
	uint32_t i;
	int hot_lost = 0;

	for (i = 0; i < 10000; i++) {
		key(&k, i, &peer4);
		look(drc, &k, &c);
		rpc_drc_store(drc, &k, reply, sizeof(reply));
		/* Keep xid 0 hot. */
		key(&k, 0, &peer4);
		if (look(drc, &k, &c) != RPC_DRC_HIT)
			hot_lost++;
	}
	ok(hot_lost == 0, "LRU: an entry hit after every store is never "
	   "evicted (lost %d times)", hot_lost);
	rpc_drc_destroy(drc);
}

/* ------------------------------------------------------------------ */
/* Threads                                                              */

#define THREADS 4
#define OPS 10000
#define KEYS 1000

struct worker {
	pthread_t th;
	struct rpc_drc *drc;
	unsigned int seed;
	bool abandon; /* abandon some instead of storing */
	unsigned long miss, hit, drop, wrong;
};

static void reply_for(uint32_t xid, uint8_t *r, size_t *len)
{
	*len = 8 + xid % 64;
	memset(r, (int)(xid * 31), *len);
	memcpy(r, &xid, 4);
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	uint8_t r[80], want[80];
	size_t len, wlen;
	struct copied c;
	int i;

	for (i = 0; i < OPS; i++) {
		uint32_t xid = (uint32_t)rand_r(&wk->seed) % KEYS;
		struct rpc_drc_key k;

		key(&k, xid, &peer4);
		switch (look(wk->drc, &k, &c)) {
		case RPC_DRC_MISS:
			wk->miss++;
			if (wk->abandon && xid % 3 == 0) {
				rpc_drc_abandon(wk->drc, &k);
				break;
			}
			reply_for(xid, r, &len);
			rpc_drc_store(wk->drc, &k, r, len);
			break;
		case RPC_DRC_HIT:
			wk->hit++;
			reply_for(xid, want, &wlen);
			if (c.calls != 1 || c.len != wlen ||
			    memcmp(c.buf, want, wlen) != 0)
				wk->wrong++;
			break;
		case RPC_DRC_IN_PROGRESS:
			wk->drop++;
			break;
		}
	}
	return NULL;
}

static void run_threads(size_t max, bool abandon, const char *what)
{
	struct rpc_drc *drc = rpc_drc_create(max);
	struct worker wk[THREADS];
	struct rpc_drc_stats st;
	unsigned long miss = 0, hit = 0, drop = 0, wrong = 0;
	int i, started = 0;

	memset(wk, 0, sizeof(wk));
	for (i = 0; i < THREADS; i++) {
		wk[i].drc = drc;
		wk[i].seed = 1234u + (unsigned int)i;
		wk[i].abandon = abandon;
		if (pthread_create(&wk[i].th, NULL, worker_main, &wk[i]) == 0)
			started++;
	}
	for (i = 0; i < started; i++) {
		pthread_join(wk[i].th, NULL);
		miss += wk[i].miss;
		hit += wk[i].hit;
		drop += wk[i].drop;
		wrong += wk[i].wrong;
	}
	rpc_drc_get_stats(drc, &st);
	ok(started == THREADS, "%s: %d threads ran", what, THREADS);
	ok(miss + hit + drop == (unsigned long)THREADS * OPS &&
	   st.misses == miss && st.hits == hit && st.in_progress_drops == drop,
	   "%s: stats match the threads' counts (m %llu/%lu h %llu/%lu "
	   "d %llu/%lu)", what, (unsigned long long)st.misses, miss,
	   (unsigned long long)st.hits, hit,
	   (unsigned long long)st.in_progress_drops, drop);
	ok(wrong == 0, "%s: every HIT returned that key's reply (%lu wrong)",
	   what, wrong);
	if (!abandon) {
		ok(st.misses == KEYS && st.entries == KEYS && st.evictions == 0,
		   "%s: exactly one MISS per key, %d entries (m %llu e %zu)",
		   what, KEYS, (unsigned long long)st.misses, st.entries);
	} else {
		ok(st.entries <= KEYS && st.bytes <= max,
		   "%s: bounded (entries %zu bytes %zu)", what, st.entries,
		   st.bytes);
	}
	rpc_drc_destroy(drc);
}

/*
 * Two caches draw their own SipHash keys: the same 64 keys hash to other
 * values (a 32-bit match by chance is 2^-32 per key) and mostly to other
 * buckets of 64; within a cache the hash is stable, and stored replies
 * are found in each.
 */
static void test_hash_keyed(void)
{
	struct rpc_drc *a = rpc_drc_create(1u << 20);
	struct rpc_drc *b = rpc_drc_create(1u << 20);
	static const uint8_t ra[] = "reply a", rb[] = "reply b";
	struct rpc_drc_key k;
	struct copied c;
	int differ = 0, other_bucket = 0, stable = 0;
	uint32_t x;

	if (!a || !b) {
		ok(0, "hash: two caches created");
		rpc_drc_destroy(a);
		rpc_drc_destroy(b);
		return;
	}
	for (x = 0; x < 64; x++) {
		uint32_t ha, hb;

		key(&k, x, &peer4);
		ha = rpc_drc_hash(a, &k);
		hb = rpc_drc_hash(b, &k);
		differ += ha != hb;
		other_bucket += (ha & 63) != (hb & 63);
		stable += rpc_drc_hash(a, &k) == ha;
	}
	ok(differ == 64, "hash: two caches hash 64 keys differently (%d)",
	   differ);
	ok(other_bucket >= 48,
	   "hash: most keys land in another bucket of 64 (%d)", other_bucket);
	ok(stable == 64, "hash: stable within a cache (%d)", stable);

	key(&k, 42, &peer4);
	ok(look(a, &k, &c) == RPC_DRC_MISS && look(b, &k, &c) == RPC_DRC_MISS,
	   "hash: MISS in both caches");
	rpc_drc_store(a, &k, ra, sizeof(ra));
	rpc_drc_store(b, &k, rb, sizeof(rb));
	ok(look(a, &k, &c) == RPC_DRC_HIT && c.len == sizeof(ra) &&
	   memcmp(c.buf, ra, sizeof(ra)) == 0,
	   "hash: cache a finds its reply");
	ok(look(b, &k, &c) == RPC_DRC_HIT && c.len == sizeof(rb) &&
	   memcmp(c.buf, rb, sizeof(rb)) == 0,
	   "hash: cache b finds its reply");
	key(&k, 43, &peer4);
	ok(look(a, &k, &c) == RPC_DRC_MISS, "hash: another xid is a MISS");
	rpc_drc_destroy(a);
	rpc_drc_destroy(b);
}

int main(void)
{
	mkpeer4(&peer4, "198.51.100.1", 900);
	mkpeer4(&peer4b, "198.51.100.1", 901);
	mkpeer6(&peer6, "2001:db8::1", 900);

	test_basic();
	test_keys();
	test_bound();
	test_lru();
	test_hash_keyed();
	run_threads(1u << 20, false, "threads, 1 MiB");
	run_threads(16u * 1024, true, "threads, 16 KiB with abandons");
	return tap_done();
}
