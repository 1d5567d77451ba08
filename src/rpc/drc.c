/* SPDX-License-Identifier: MIT */
/* Duplicate request cache: see drc.h. */
#include "rpc/drc.h"

#include <netinet/in.h>
#include <pthread.h>
#include <sodium.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define DRC_SHARDS 16u
/* Buckets per shard: a power of two sized for the entries the memory
 * bound allows (a WRITE's entry is about 300 bytes), so chains stay
 * about one long; a fixed 1024 made them ~8 long at the default bound. */
#define DRC_ENTRY_GUESS 300u
#define DRC_BUCKETS_MIN 64u
#define DRC_BUCKETS_MAX (1u << 18)

struct drc_link {
	struct drc_link *prev, *next;
};

struct drc_entry {
	struct drc_link lru;                 /* first: entries are cast from it */
	struct drc_entry *hnext;             /* hash chain */
	struct rpc_drc_key key;
	uint32_t hash;                       /* rpc_drc_hash(key) */
	bool done;
	size_t len;
	uint8_t reply[];
};

struct drc_shard {
	pthread_mutex_t lock;
	struct drc_entry **buckets;
	uint32_t mask;                       /* buckets - 1 */
	struct drc_link lru;                 /* head: lru.next is the oldest */
	size_t bytes, entries;
	uint64_t hits, misses, in_progress_drops, evictions;
};

struct rpc_drc {
	size_t shard_max;
	/* SipHash key of this cache, random per start: see rpc_drc_hash. */
	unsigned char hash_key[crypto_shorthash_KEYBYTES];
	struct drc_shard shards[DRC_SHARDS];
};

static uint32_t fnv1a(uint32_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--) {
		h ^= *b++;
		h *= 16777619u;
	}
	return h;
}

void rpc_drc_make_key(struct rpc_drc_key *k, uint32_t xid, uint32_t prog,
		      uint32_t vers, uint32_t proc,
		      const struct sockaddr_storage *peer, const uint8_t *args,
		      size_t args_len)
{
	memset(k, 0, sizeof(*k));
	k->xid = xid;
	k->prog = prog;
	k->vers = vers;
	k->proc = proc;
	k->args_len = (uint32_t)args_len;
	k->args_sum = fnv1a(2166136261u, args,
			    args_len < RPC_DRC_SUM_BYTES ? args_len : RPC_DRC_SUM_BYTES);
	if (!peer)
		return;
	k->family = peer->ss_family;
	if (peer->ss_family == AF_INET) {
		const struct sockaddr_in *s = (const void *)peer;

		k->port = s->sin_port;
		memcpy(k->addr, &s->sin_addr, 4);
	} else if (peer->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const void *)peer;

		k->port = s->sin6_port;
		memcpy(k->addr, &s->sin6_addr, 16);
	}
}

/*
 * The key's fields are the client's choice (xid, port, arguments), so an
 * unkeyed hash would let a client pick xids that all land in one bucket
 * and make every lookup walk a chain as long as the cache. SipHash-2-4
 * (crypto_shorthash) under a key drawn at each start makes the buckets
 * unpredictable; it costs about as much as the byte-wise FNV-1a it
 * replaced over the 44-byte key, as it takes 8 bytes per round.
 */
uint32_t rpc_drc_hash(const struct rpc_drc *drc, const struct rpc_drc_key *k)
{
	unsigned char out[crypto_shorthash_BYTES];
	uint32_t h;

	crypto_shorthash(out, (const unsigned char *)k, sizeof(*k),
			 drc->hash_key);
	memcpy(&h, out, sizeof(h));
	return h;
}

struct rpc_drc *rpc_drc_create(size_t max_bytes)
{
	struct rpc_drc *drc;
	uint32_t nb = DRC_BUCKETS_MIN;
	unsigned int i;

	/* randombytes_buf needs it; it may run more than once. */
	if (sodium_init() < 0)
		return NULL;
	drc = calloc(1, sizeof(*drc));
	if (!drc)
		return NULL;
	randombytes_buf(drc->hash_key, sizeof(drc->hash_key));
	drc->shard_max = max_bytes / DRC_SHARDS;
	while (nb < DRC_BUCKETS_MAX && nb < drc->shard_max / DRC_ENTRY_GUESS)
		nb *= 2;
	for (i = 0; i < DRC_SHARDS; i++) {
		struct drc_shard *s = &drc->shards[i];

		s->buckets = calloc(nb, sizeof(*s->buckets));
		if (!s->buckets) {
			while (i--)
				free(drc->shards[i].buckets);
			free(drc);
			return NULL;
		}
		s->mask = nb - 1;
		pthread_mutex_init(&s->lock, NULL);
		s->lru.next = s->lru.prev = &s->lru;
	}
	return drc;
}

static void lru_unlink(struct drc_entry *e)
{
	e->lru.prev->next = e->lru.next;
	e->lru.next->prev = e->lru.prev;
}

static void lru_push(struct drc_shard *s, struct drc_entry *e)
{
	e->lru.prev = s->lru.prev;
	e->lru.next = &s->lru;
	s->lru.prev->next = &e->lru;
	s->lru.prev = &e->lru;
}

static size_t entry_cost(const struct drc_entry *e)
{
	return sizeof(*e) + e->len;
}

static void remove_entry(struct drc_shard *s, struct drc_entry *e)
{
	struct drc_entry **pp = &s->buckets[e->hash & s->mask];

	while (*pp != e)
		pp = &(*pp)->hnext;
	*pp = e->hnext;
	lru_unlink(e);
	s->bytes -= entry_cost(e);
	s->entries--;
	free(e);
}

void rpc_drc_destroy(struct rpc_drc *drc)
{
	unsigned int i;

	if (!drc)
		return;
	for (i = 0; i < DRC_SHARDS; i++) {
		struct drc_shard *s = &drc->shards[i];

		while (s->lru.next != &s->lru) {
			struct drc_entry *e = (struct drc_entry *)s->lru.next;

			remove_entry(s, e);
		}
		free(s->buckets);
		pthread_mutex_destroy(&s->lock);
	}
	free(drc);
}

static struct drc_entry **find(struct drc_shard *s, const struct rpc_drc_key *k,
			       uint32_t h)
{
	struct drc_entry **pp = &s->buckets[h & s->mask];

	while (*pp && memcmp(&(*pp)->key, k, sizeof(*k)) != 0)
		pp = &(*pp)->hnext;
	return pp;
}

static struct drc_shard *shard_of(struct rpc_drc *drc, uint32_t h)
{
	return &drc->shards[(h >> 16) % DRC_SHARDS];
}

/* Evict the oldest completed entries until @s fits its share. */
static void trim(struct rpc_drc *drc, struct drc_shard *s)
{
	struct drc_link *l = s->lru.next;

	while (s->bytes > drc->shard_max && l != &s->lru) {
		struct drc_entry *e = (struct drc_entry *)l;

		l = l->next;
		if (e->done) {
			remove_entry(s, e);
			s->evictions++;
		}
	}
}

enum rpc_drc_result rpc_drc_lookup(struct rpc_drc *drc,
				   const struct rpc_drc_key *k,
				   void (*copy)(void *arg, const uint8_t *reply,
						size_t len),
				   void *arg)
{
	uint32_t h = rpc_drc_hash(drc, k);
	struct drc_shard *s = shard_of(drc, h);
	struct drc_entry **pp, *e;
	enum rpc_drc_result res;

	pthread_mutex_lock(&s->lock);
	pp = find(s, k, h);
	e = *pp;
	if (e) {
		if (e->done) {
			copy(arg, e->reply, e->len);
			lru_unlink(e);
			lru_push(s, e);
			s->hits++;
			res = RPC_DRC_HIT;
		} else {
			s->in_progress_drops++;
			res = RPC_DRC_IN_PROGRESS;
		}
		pthread_mutex_unlock(&s->lock);
		return res;
	}
	e = calloc(1, sizeof(*e));
	if (e) {
		e->key = *k;
		e->hash = h;
		e->hnext = s->buckets[h & s->mask];
		s->buckets[h & s->mask] = e;
		lru_push(s, e);
		s->bytes += entry_cost(e);
		s->entries++;
		trim(drc, s);
	}
	/* Out of memory: run the call uncached rather than refuse it. */
	s->misses++;
	pthread_mutex_unlock(&s->lock);
	return RPC_DRC_MISS;
}

void rpc_drc_store(struct rpc_drc *drc, const struct rpc_drc_key *k,
		   const uint8_t *reply, size_t len)
{
	uint32_t h = rpc_drc_hash(drc, k);
	struct drc_shard *s = shard_of(drc, h);
	struct drc_entry **pp, *e, *ne;

	pthread_mutex_lock(&s->lock);
	pp = find(s, k, h);
	e = *pp;
	if (!e)
		goto out; /* evicted meanwhile, or never entered */
	ne = malloc(sizeof(*ne) + len);
	if (!ne) {
		remove_entry(s, e);
		goto out;
	}
	*ne = *e;
	ne->done = true;
	ne->len = len;
	memcpy(ne->reply, reply, len);
	*pp = ne;
	ne->lru.prev->next = &ne->lru;
	ne->lru.next->prev = &ne->lru;
	s->bytes += len;
	free(e);
	/* Most recently used now. */
	lru_unlink(ne);
	lru_push(s, ne);
	trim(drc, s);
out:
	pthread_mutex_unlock(&s->lock);
}

void rpc_drc_abandon(struct rpc_drc *drc, const struct rpc_drc_key *k)
{
	uint32_t h = rpc_drc_hash(drc, k);
	struct drc_shard *s = shard_of(drc, h);
	struct drc_entry *e;

	pthread_mutex_lock(&s->lock);
	e = *find(s, k, h);
	if (e && !e->done)
		remove_entry(s, e);
	pthread_mutex_unlock(&s->lock);
}

void rpc_drc_get_stats(struct rpc_drc *drc, struct rpc_drc_stats *st)
{
	unsigned int i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < DRC_SHARDS; i++) {
		struct drc_shard *s = &drc->shards[i];

		pthread_mutex_lock(&s->lock);
		st->hits += s->hits;
		st->misses += s->misses;
		st->in_progress_drops += s->in_progress_drops;
		st->evictions += s->evictions;
		st->bytes += s->bytes;
		st->entries += s->entries;
		pthread_mutex_unlock(&s->lock);
	}
}
