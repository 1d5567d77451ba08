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
	struct entry *qnext;		/* resolver queue */
	struct hkey key;
	uint64_t expires;		/* clock ms; meaningless while pending */
	uint64_t deadline;		/* clock ms: a pending answer is "no name" */
	bool pending;			/* waiting for an answer: not evicted */
	bool resolving;			/* queued or with a resolver: not evicted */
	bool queued;			/* on the resolver queue, not taken yet */
	bool named;
	struct hostnames_waiter *waiters;	/* told when it stops pending */
	char name[HOSTNAMES_NAME_MAX];
};

struct hostnames {
	struct hostnames_config cfg;
	pthread_mutex_t lock;
	pthread_cond_t work;		/* the queue has an entry, or stop */
	pthread_cond_t tick;		/* for the warden: a deadline, or stop */
	pthread_cond_t fired;		/* firing went to 0 */
	struct entry **buckets;
	unsigned int nbuckets;		/* a power of two */
	unsigned int n;
	unsigned int npending;
	unsigned int firing;		/* threads calling waiters */
	unsigned int refs;		/* the owner and each thread */
	bool stop;
	struct entry *head, *tail;	/* recency list */
	struct entry *qhead, *qtail;	/* entries for the resolvers */
	unsigned int nqueued;
};

/*
 * Lookups waiting for a resolver, at most. Peers whose reverse zones
 * never answer each hold a resolver for the resolver's own timeout; a
 * flood of new addresses (an IPv6 prefix) must not make every later
 * peer wait behind it or fill the cache with entries that cannot be
 * evicted. Past this, a new address gets "no name" at once (cached for
 * timeout_ttl_ms), as if its lookup had timed out.
 */
#define QUEUE_MAX 256u

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
	c->timeout_ms = HOSTNAMES_DEFAULT_TIMEOUT_MS;
	c->timeout_ttl_ms = HOSTNAMES_DEFAULT_TIMEOUT_TTL_MS;
	c->resolvers = HOSTNAMES_DEFAULT_RESOLVERS;
	c->resolve = hostnames_resolve;
	c->clock = monotonic_ms;
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
 * A new entry for @k, evicting the least recently used idle entry at the
 * bound. Return values: the entry, or NULL (every entry is being
 * resolved, or memory is short): the caller answers "no name".
 */
static struct entry *insert(struct hostnames *h, const struct hkey *k)
{
	struct entry *e;
	unsigned int b;

	if (h->n >= h->cfg.max_entries) {
		for (e = h->tail; e && (e->pending || e->resolving); e = e->prev)
			;
		if (!e)
			return NULL;
		evict(h, e);
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->key = *k;
	b = key_hash(k) & (h->nbuckets - 1);
	e->hnext = h->buckets[b];
	h->buckets[b] = e;
	list_push_front(h, e);
	h->n++;
	return e;
}

/*
 * Queue @e for a resolver; its askers wait until the answer or deadline.
 * Return values: false when the queue is full (@e then says "no name").
 */
static bool start(struct hostnames *h, struct entry *e, uint64_t now)
{
	if (h->nqueued >= QUEUE_MAX) {
		e->named = false;
		e->expires = now + h->cfg.timeout_ttl_ms;
		return false;
	}
	e->pending = true;
	e->resolving = true;
	e->queued = true;
	e->deadline = now + h->cfg.timeout_ms;
	e->qnext = NULL;
	if (h->qtail)
		h->qtail->qnext = e;
	else
		h->qhead = e;
	h->qtail = e;
	h->nqueued++;
	h->npending++;
	pthread_cond_signal(&h->work);
	pthread_cond_signal(&h->tick);
	return true;
}

/* Take @e off the resolver queue (it is on it). */
static void unqueue(struct hostnames *h, struct entry *e)
{
	struct entry **pp = &h->qhead, *prev = NULL;

	while (*pp && *pp != e) {
		prev = *pp;
		pp = &(*pp)->qnext;
	}
	if (*pp) {
		*pp = e->qnext;
		if (h->qtail == e)
			h->qtail = prev;
	}
	e->qnext = NULL;
	e->queued = false;
	h->nqueued--;
}

/*
 * @e has its answer (or its deadline passed): it stops pending. Return
 * values: its waiters, for fire() once the lock is dropped (firing is
 * counted, so that hostnames_stop() can wait for them).
 */
static struct hostnames_waiter *settle(struct hostnames *h, struct entry *e)
{
	struct hostnames_waiter *w = e->waiters;

	e->waiters = NULL;
	if (e->pending) {
		e->pending = false;
		h->npending--;
	}
	if (w)
		h->firing++;
	return w;
}

/* Call with the lock held; drops and retakes it. */
static void fire(struct hostnames *h, struct hostnames_waiter *w)
{
	if (!w)
		return;
	pthread_mutex_unlock(&h->lock);
	while (w) {
		struct hostnames_waiter *next = w->next;

		w->fn(w);	/* may free w */
		w = next;
	}
	pthread_mutex_lock(&h->lock);
	if (--h->firing == 0)
		pthread_cond_broadcast(&h->fired);
}

static void free_all(struct hostnames *h)
{
	struct entry *e, *next;

	for (e = h->head; e; e = next) {
		next = e->next;
		free(e);
	}
	pthread_cond_destroy(&h->work);
	pthread_cond_destroy(&h->tick);
	pthread_cond_destroy(&h->fired);
	pthread_mutex_unlock(&h->lock);
	pthread_mutex_destroy(&h->lock);
	free(h->buckets);
	free(h);
}

/* Drop a reference, with the lock held; the last one frees everything. */
static void put(struct hostnames *h)
{
	if (--h->refs == 0)
		free_all(h);
	else
		pthread_mutex_unlock(&h->lock);
}

/*
 * A resolver: takes queued entries and resolves them, one at a time. A
 * lookup that never returns keeps its thread (and its entry, which is
 * marked resolving so that no other thread starts on the same address);
 * the others carry on, and the warden answers for the stuck one.
 */
static void *resolver_main(void *arg)
{
	struct hostnames *h = arg;
	char got[HOSTNAMES_NAME_MAX];
	struct sockaddr_storage ss;
	struct entry *e;
	bool ok;

	pthread_mutex_lock(&h->lock);
	for (;;) {
		while (!h->stop && !h->qhead)
			pthread_cond_wait(&h->work, &h->lock);
		if (h->stop)
			break;
		e = h->qhead;
		unqueue(h, e);
		addr_of(&e->key, &ss);
		pthread_mutex_unlock(&h->lock);

		ok = h->cfg.resolve(&ss, got, h->cfg.arg);
		got[HOSTNAMES_NAME_MAX - 1] = 0;

		pthread_mutex_lock(&h->lock);
		e->resolving = false;
		e->named = ok;
		if (ok)
			memcpy(e->name, got, strlen(got) + 1);
		e->expires = h->cfg.clock(h->cfg.arg) +
			     (ok ? h->cfg.ttl_ms : h->cfg.negative_ttl_ms);
		list_unlink(h, e);
		list_push_front(h, e);
		fire(h, settle(h, e));
	}
	put(h);
	return NULL;
}

/*
 * The warden gives "no name" to entries pending past their deadline,
 * cached for timeout_ttl_ms, so that a resolver that hangs costs each
 * asker at most timeout_ms. It polls every 50 ms while entries are
 * pending (the clock may be a test's, so a timed wait on it is not
 * possible), and sleeps otherwise.
 */
static void *warden_main(void *arg)
{
	struct hostnames *h = arg;

	pthread_mutex_lock(&h->lock);
	while (!h->stop) {
		struct entry *e;
		uint64_t now;

		if (!h->npending) {
			pthread_cond_wait(&h->tick, &h->lock);
			continue;
		}
		now = h->cfg.clock(h->cfg.arg);
		for (e = h->head; e; e = e->next) {
			if (!e->pending || now < e->deadline)
				continue;
			e->named = false;
			e->expires = now + h->cfg.timeout_ttl_ms;
			/* Not taken by a resolver yet: it never will be (the
			 * answer is given), and it may be evicted again. */
			if (e->queued) {
				unqueue(h, e);
				e->resolving = false;
			}
			fire(h, settle(h, e));
			break;	/* the list may have changed meanwhile */
		}
		if (!e) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 50 * 1000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&h->tick, &h->lock, &ts);
		}
	}
	put(h);
	return NULL;
}

struct hostnames *hostnames_new(const struct hostnames_config *c)
{
	struct hostnames *h = calloc(1, sizeof(*h));
	unsigned int i, nb = 16;
	pthread_attr_t attr;
	pthread_t t;

	if (!h)
		return NULL;
	h->cfg = *c;
	if (!h->cfg.max_entries)
		h->cfg.max_entries = 1;
	if (!h->cfg.resolvers)
		h->cfg.resolvers = 1;
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
	pthread_cond_init(&h->work, NULL);
	pthread_cond_init(&h->tick, NULL);
	pthread_cond_init(&h->fired, NULL);
	h->refs = 1;
	/* Detached: a thread stuck in a lookup must not hold up the exit. */
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_mutex_lock(&h->lock);
	for (i = 0; i <= h->cfg.resolvers; i++) {
		if (pthread_create(&t, &attr, i ? resolver_main : warden_main, h))
			break;
		h->refs++;
	}
	pthread_mutex_unlock(&h->lock);
	pthread_attr_destroy(&attr);
	if (i <= h->cfg.resolvers) {
		hostnames_free(h);
		return NULL;
	}
	return h;
}

void hostnames_stop(struct hostnames *h)
{
	struct entry *e;

	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	h->stop = true;
	pthread_cond_broadcast(&h->work);
	pthread_cond_broadcast(&h->tick);
	/* fire() drops the lock: the list may change, so start over. */
	for (e = h->head; e;) {
		if (e->pending) {
			fire(h, settle(h, e));
			e = h->head;
		} else {
			e = e->next;
		}
	}
	while (h->firing)
		pthread_cond_wait(&h->fired, &h->lock);
	pthread_mutex_unlock(&h->lock);
}

void hostnames_free(struct hostnames *h)
{
	if (!h)
		return;
	hostnames_stop(h);
	pthread_mutex_lock(&h->lock);
	put(h);
}

unsigned int hostnames_count(struct hostnames *h)
{
	unsigned int n;

	pthread_mutex_lock(&h->lock);
	n = h->n;
	pthread_mutex_unlock(&h->lock);
	return n;
}

enum hostnames_answer hostnames_get(struct hostnames *h,
				    const struct sockaddr_storage *peer,
				    char name[HOSTNAMES_NAME_MAX],
				    struct hostnames_waiter *w)
{
	enum hostnames_answer a = HOSTNAMES_NONE;
	struct entry *e;
	struct hkey k;
	uint64_t now;

	key_of(peer, &k);
	if (!k.family)
		return HOSTNAMES_NONE;
	pthread_mutex_lock(&h->lock);
	now = h->cfg.clock(h->cfg.arg);
	e = find(h, &k);
	if (e && !e->pending && now < e->expires) {
		list_unlink(h, e);
		list_push_front(h, e);
		if (e->named) {
			memcpy(name, e->name, strlen(e->name) + 1);
			a = HOSTNAMES_NAMED;
		}
		goto out;
	}
	if (h->stop)
		goto out;	/* nobody would answer */
	if (!e) {
		e = insert(h, &k);
		if (!e)
			goto out;
	}
	if (!e->pending) {
		if (e->resolving) {
			/* Expired while its lookup still hangs: another
			 * thread would hang on it too. No name, for now. */
			e->named = false;
			e->expires = now + h->cfg.timeout_ttl_ms;
			goto out;
		}
		if (!start(h, e, now))
			goto out;
	}
	if (w) {
		w->next = e->waiters;
		e->waiters = w;
	}
	a = HOSTNAMES_PENDING;
out:
	pthread_mutex_unlock(&h->lock);
	return a;
}

struct sync_wait {
	struct hostnames_waiter w;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
};

static void sync_done(struct hostnames_waiter *w)
{
	struct sync_wait *s = (struct sync_wait *)w;

	pthread_mutex_lock(&s->lock);
	s->done = true;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

bool hostnames_lookup(struct hostnames *h, const struct sockaddr_storage *peer,
		      char name[HOSTNAMES_NAME_MAX])
{
	struct sync_wait s = { .w.fn = sync_done };
	enum hostnames_answer a;

	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.cond, NULL);
	/* Once told, the entry holds its answer (a cache of one entry
	 * under other askers may have let it go: then ask again). */
	while ((a = hostnames_get(h, peer, name, &s.w)) == HOSTNAMES_PENDING) {
		pthread_mutex_lock(&s.lock);
		while (!s.done)
			pthread_cond_wait(&s.cond, &s.lock);
		s.done = false;
		pthread_mutex_unlock(&s.lock);
	}
	pthread_cond_destroy(&s.cond);
	pthread_mutex_destroy(&s.lock);
	return a == HOSTNAMES_NAMED;
}
