/* SPDX-License-Identifier: MIT */
/* Verified peer host names and their cache: see hostnames.h. */
#include "server/hostnames.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* An address as the cache keys it: IPv4-mapped IPv6 is IPv4. */
struct hkey {
	int family;		/* AF_INET, AF_INET6, or 0: not an address */
	uint8_t a[16];		/* 4 bytes for AF_INET */
};

struct entry {
	struct entry *hnext;		/* hash chain */
	struct entry *prev, *next;	/* recency list, most recent first */
	struct hkey key;
	uint64_t expires;		/* clock ms; meaningless while pending */
	bool pending;			/* a lookup is filling it: not evicted */
	bool named;
	char name[HOSTNAMES_NAME_MAX];
};

struct hostnames {
	struct hostnames_config cfg;
	pthread_mutex_t lock;
	pthread_cond_t done;		/* a pending entry was filled */
	struct entry **buckets;
	unsigned int nbuckets;		/* a power of two */
	unsigned int n;
	struct entry *head, *tail;	/* recency list */
};

static void key_of(const struct sockaddr_storage *ss, struct hkey *k)
{
	memset(k, 0, sizeof(*k));
	if (!ss)
		return;
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;

		k->family = AF_INET;
		memcpy(k->a, &sin->sin_addr, 4);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;

		if (IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr)) {
			k->family = AF_INET;
			memcpy(k->a, sin6->sin6_addr.s6_addr + 12, 4);
		} else {
			k->family = AF_INET6;
			memcpy(k->a, sin6->sin6_addr.s6_addr, 16);
		}
	}
}

/* The address of @k as a socket address, port 0. */
static socklen_t addr_of(const struct hkey *k, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (k->family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		memcpy(&sin->sin_addr, k->a, 4);
		return sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		memcpy(&sin6->sin6_addr, k->a, 16);
		return sizeof(*sin6);
	}
}

static bool key_eq(const struct hkey *x, const struct hkey *y)
{
	return x->family == y->family && memcmp(x->a, y->a, 16) == 0;
}

static unsigned int key_hash(const struct hkey *k)
{
	uint32_t h = 2166136261u ^ (uint32_t)k->family;
	int i;

	for (i = 0; i < 16; i++) {
		h ^= k->a[i];
		h *= 16777619u;
	}
	return h ^ (h >> 15);
}

/* ---- the real resolver ------------------------------------------------ */

bool hostnames_confirm(const struct sockaddr_storage *peer,
		       const struct addrinfo *ai)
{
	struct hkey want, got;

	key_of(peer, &want);
	if (!want.family)
		return false;
	for (; ai; ai = ai->ai_next) {
		struct sockaddr_storage ss;

		if (!ai->ai_addr || ai->ai_addrlen > sizeof(ss))
			continue;
		memset(&ss, 0, sizeof(ss));
		memcpy(&ss, ai->ai_addr, ai->ai_addrlen);
		key_of(&ss, &got);
		if (got.family && key_eq(&want, &got))
			return true;
	}
	return false;
}

bool hostnames_resolve(const struct sockaddr_storage *peer,
		       char name[HOSTNAMES_NAME_MAX], void *arg)
{
	char host[NI_MAXHOST];
	struct addrinfo hints, *ai = NULL;
	struct sockaddr_storage ss;
	struct hkey k;
	uint8_t scratch[16];
	socklen_t len;
	size_t n;
	bool ok;

	(void)arg;
	key_of(peer, &k);
	if (!k.family)
		return false;
	len = addr_of(&k, &ss);
	if (getnameinfo((const struct sockaddr *)&ss, len, host, sizeof(host),
			NULL, 0, NI_NAMEREQD) != 0)
		return false;
	n = strlen(host);
	if (n && host[n - 1] == '.')	/* fully qualified form */
		host[--n] = 0;
	if (n == 0 || n >= HOSTNAMES_NAME_MAX)
		return false;
	/* A PTR record holding an address text would pass for any rule. */
	if (inet_pton(AF_INET, host, scratch) == 1 ||
	    inet_pton(AF_INET6, host, scratch) == 1)
		return false;
	/* Forward confirmation, in the peer's family only. */
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = k.family;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, NULL, &hints, &ai) != 0)
		return false;
	ok = hostnames_confirm(&ss, ai);
	freeaddrinfo(ai);
	if (ok)
		memcpy(name, host, n + 1);
	return ok;
}

static uint64_t monotonic_ms(void *arg)
{
	struct timespec ts;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ---- the cache -------------------------------------------------------- */

void hostnames_config_defaults(struct hostnames_config *c)
{
	memset(c, 0, sizeof(*c));
	c->max_entries = HOSTNAMES_DEFAULT_MAX;
	c->ttl_ms = HOSTNAMES_DEFAULT_TTL_MS;
	c->negative_ttl_ms = HOSTNAMES_DEFAULT_NEG_TTL_MS;
	c->resolve = hostnames_resolve;
	c->clock = monotonic_ms;
}

struct hostnames *hostnames_new(const struct hostnames_config *c)
{
	struct hostnames *h = calloc(1, sizeof(*h));
	unsigned int nb = 16;

	if (!h)
		return NULL;
	h->cfg = *c;
	if (!h->cfg.max_entries)
		h->cfg.max_entries = 1;
	if (!h->cfg.resolve)
		h->cfg.resolve = hostnames_resolve;
	if (!h->cfg.clock)
		h->cfg.clock = monotonic_ms;
	while (nb < h->cfg.max_entries && nb < (1u << 20))
		nb *= 2;
	h->nbuckets = nb;
	h->buckets = calloc(nb, sizeof(*h->buckets));
	if (!h->buckets) {
		free(h);
		return NULL;
	}
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->done, NULL);
	return h;
}

void hostnames_free(struct hostnames *h)
{
	struct entry *e, *next;

	if (!h)
		return;
	for (e = h->head; e; e = next) {
		next = e->next;
		free(e);
	}
	pthread_cond_destroy(&h->done);
	pthread_mutex_destroy(&h->lock);
	free(h->buckets);
	free(h);
}

unsigned int hostnames_count(struct hostnames *h)
{
	unsigned int n;

	pthread_mutex_lock(&h->lock);
	n = h->n;
	pthread_mutex_unlock(&h->lock);
	return n;
}

static struct entry *find(struct hostnames *h, const struct hkey *k)
{
	struct entry *e = h->buckets[key_hash(k) & (h->nbuckets - 1)];

	while (e && !key_eq(&e->key, k))
		e = e->hnext;
	return e;
}

static void list_unlink(struct hostnames *h, struct entry *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		h->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		h->tail = e->prev;
	e->prev = e->next = NULL;
}

static void list_push_front(struct hostnames *h, struct entry *e)
{
	e->prev = NULL;
	e->next = h->head;
	if (h->head)
		h->head->prev = e;
	h->head = e;
	if (!h->tail)
		h->tail = e;
}

static void evict(struct hostnames *h, struct entry *e)
{
	struct entry **pp = &h->buckets[key_hash(&e->key) & (h->nbuckets - 1)];

	while (*pp != e)
		pp = &(*pp)->hnext;
	*pp = e->hnext;
	list_unlink(h, e);
	h->n--;
	free(e);
}

/*
 * A new pending entry for @k, evicting the least recently used finished
 * entry at the bound. Return values: the entry, or NULL (every entry is
 * pending, or memory is short): the caller resolves without caching.
 */
static struct entry *insert(struct hostnames *h, const struct hkey *k)
{
	struct entry *e;
	unsigned int b;

	if (h->n >= h->cfg.max_entries) {
		for (e = h->tail; e && e->pending; e = e->prev)
			;
		if (!e)
			return NULL;
		evict(h, e);
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->key = *k;
	e->pending = true;
	b = key_hash(k) & (h->nbuckets - 1);
	e->hnext = h->buckets[b];
	h->buckets[b] = e;
	list_push_front(h, e);
	h->n++;
	return e;
}

static bool answer(const struct entry *e, char name[HOSTNAMES_NAME_MAX])
{
	if (e->named)
		memcpy(name, e->name, strlen(e->name) + 1);
	return e->named;
}

bool hostnames_lookup(struct hostnames *h, const struct sockaddr_storage *peer,
		      char name[HOSTNAMES_NAME_MAX])
{
	char got[HOSTNAMES_NAME_MAX];
	struct sockaddr_storage ss;
	struct entry *e;
	struct hkey k;
	bool ok;

	key_of(peer, &k);
	if (!k.family)
		return false;
	addr_of(&k, &ss);
	pthread_mutex_lock(&h->lock);
	for (;;) {
		e = find(h, &k);
		if (!e) {
			e = insert(h, &k);
			break;
		}
		if (e->pending) {
			/* Another thread resolves it: its answer is ours. The
			 * entry may be gone when we wake, so look again. */
			pthread_cond_wait(&h->done, &h->lock);
			continue;
		}
		if (h->cfg.clock(h->cfg.arg) < e->expires) {
			list_unlink(h, e);
			list_push_front(h, e);
			ok = answer(e, name);
			pthread_mutex_unlock(&h->lock);
			return ok;
		}
		e->pending = true;	/* expired: resolve again */
		break;
	}
	pthread_mutex_unlock(&h->lock);

	ok = h->cfg.resolve(&ss, got, h->cfg.arg);
	got[HOSTNAMES_NAME_MAX - 1] = 0;
	if (ok)
		memcpy(name, got, strlen(got) + 1);
	if (!e)
		return ok;

	pthread_mutex_lock(&h->lock);
	e->named = ok;
	if (ok)
		memcpy(e->name, got, strlen(got) + 1);
	e->expires = h->cfg.clock(h->cfg.arg) +
		     (ok ? h->cfg.ttl_ms : h->cfg.negative_ttl_ms);
	e->pending = false;
	list_unlink(h, e);
	list_push_front(h, e);
	pthread_cond_broadcast(&h->done);
	pthread_mutex_unlock(&h->lock);
	return ok;
}
