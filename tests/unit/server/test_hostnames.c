/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of host name client rules: the wildcard matcher (through
 * exports_match), when a rule needs the peer's name at all
 * (exports_match_needs_name), the verified-name cache of
 * src/server/hostnames.c (time to live for names and for "no name", the
 * size bound and its least-recently-used eviction, one lookup for
 * concurrent callers, IPv4-mapped addresses), the forward confirmation,
 * and the real resolver on 127.0.0.1 -- only when /etc/hosts names it,
 * so that no test ever sends a DNS query.
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/exports.h"
#include "server/hostnames.h"
#include "tap.h"

static char err[1024];

static struct sockaddr_storage addr(const char *text, uint16_t port)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, text, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
	} else if (inet_pton(AF_INET6, text, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
	} else {
		abort();
	}
	return ss;
}

/* ---- the wildcard matcher ------------------------------------------- */

/* Does the one-rule export "/x PATTERN" admit a peer named @name? */
static bool pat(const char *pattern, const char *name)
{
	char text[512];
	struct nfsx_exports *ex;
	struct sockaddr_storage peer = addr("192.0.2.7", 700);
	bool hit;

	snprintf(text, sizeof(text), "/x %s(rw)\n", pattern);
	ex = exports_parse_string(text, "t", err, sizeof(err));
	if (!ex) {
		printf("# parse of '%s' failed: %s\n", pattern, err);
		return false;
	}
	hit = exports_match(exports_next(ex, NULL), &peer, name) != NULL;
	exports_free(ex);
	return hit;
}

static void test_wildcards(void)
{
	ok(pat("*.example.com", "a.example.com") &&
	   pat("*.example.com", "a.b.example.com") &&
	   pat("*.example.com", "A.EXAMPLE.Com"),
	   "*.example.com: any depth below, case-insensitive");
	ok(!pat("*.example.com", "example.com") &&
	   !pat("*.example.com", "a.example.com.evil") &&
	   !pat("*.example.com", "aexample.com") &&
	   !pat("*.example.com", NULL),
	   "*.example.com: not the domain itself, a longer name, a look-alike, or no name");
	ok(pat("web?.lan", "web1.lan") && !pat("web?.lan", "web.lan") &&
	   !pat("web?.lan", "web12.lan"), "? is exactly one character");
	ok(pat("n[0-9][a-c].lan", "n7b.lan") && !pat("n[0-9][a-c].lan", "nxb.lan") &&
	   !pat("n[0-9][a-c].lan", "n7d.lan"), "ranges in brackets");
	ok(pat("[!a]x", "bx") && !pat("[!a]x", "ax") && pat("[^a-c]x", "dx") &&
	   !pat("[^a-c]x", "Bx"), "negated brackets ([!...] and [^...]), case-folded");
	ok(pat("a*b*c", "aXbYbZc") && pat("a*b*c", "abc") && !pat("a*b*c", "abcb") &&
	   !pat("a*b*c", "acb"), "several stars: backtracking to the last one");
	ok(pat("**.lan", "x.lan") && pat("h*", "h") && !pat("h*", "xh"),
	   "stars that match nothing");
	ok(pat("LocalHost", "localhost") && !pat("localhost", "localhos") &&
	   !pat("localhost", "localhostx") && !pat("localhost", NULL),
	   "an exact name: whole and case-insensitive");
	{
		/* a* repeated against a long run of a's without the final b:
		 * a backtracking matcher without the single-star rule would
		 * take exponential time here; this must return at once. */
		char name[250], p[64];

		memset(name, 'a', sizeof(name) - 1);
		name[sizeof(name) - 1] = 0;
		snprintf(p, sizeof(p), "*a*a*a*a*a*a*a*a*a*a*b");
		ok(!pat(p, name) && pat(p, "aaaaaaaaaaab"),
		   "pathological pattern over a 249-byte name: answered, right");
	}
}

/* ---- when is the name needed ----------------------------------------- */

static bool needs(const char *text, const char *peer)
{
	struct nfsx_exports *ex = exports_parse_string(text, "t", err, sizeof(err));
	struct sockaddr_storage ss = addr(peer, 700);
	bool r;

	if (!ex) {
		printf("# parse failed: %s\n", err);
		return false;
	}
	r = exports_match_needs_name(exports_next(ex, NULL), &ss);
	exports_free(ex);
	return r;
}

static void test_needs_name(void)
{
	ok(!needs("/a 10.0.0.0/8(rw) *.lan\n", "10.1.1.1"),
	   "an address rule before the host rules matches: no lookup");
	ok(needs("/a 10.0.0.0/8(rw) *.lan\n", "192.168.1.1"),
	   "no address rule matches and a host rule follows: lookup");
	ok(needs("/a localhost(rw) 127.0.0.1(ro)\n", "127.0.0.1"),
	   "a host rule before the matching address rule: lookup (it may win)");
	ok(!needs("/a 127.0.0.1(ro) localhost(rw)\n", "127.0.0.1"),
	   "the address rule first: no lookup");
	ok(!needs("/a *(rw) h.lan\n", "192.0.2.1"), "* first: no lookup");
	ok(!needs("/a 10.0.0.0/8 2001:db8::/32\n", "192.0.2.1"),
	   "no host rule at all: never a lookup");
	ok(needs("/a ::1 h.lan\n", "::ffff:127.0.0.1") &&
	   !needs("/a 127.0.0.1 h.lan\n", "::ffff:127.0.0.1"),
	   "IPv4-mapped peers are IPv4 here too");
}

/* ---- the cache -------------------------------------------------------- */

struct fake {
	pthread_mutex_t lock;
	uint64_t now;			/* ms */
	unsigned int calls;
	unsigned int delay_ms;		/* the resolver sleeps this long */
	struct sockaddr_storage last;	/* what the resolver was given */
	bool hang;			/* 192.0.2.99 hangs while set */
	pthread_cond_t unhang;
};

static uint64_t fake_clock(void *arg)
{
	struct fake *f = arg;
	uint64_t t;

	pthread_mutex_lock(&f->lock);
	t = f->now;
	pthread_mutex_unlock(&f->lock);
	return t;
}

/* 10.x.y.z is named "hZ.lan"; 192.0.2.0/24 has no name. */
static bool fake_resolve(const struct sockaddr_storage *peer,
			 char name[HOSTNAMES_NAME_MAX], void *arg)
{
	struct fake *f = arg;
	const struct sockaddr_in *sin = (const struct sockaddr_in *)peer;
	uint32_t a;

	pthread_mutex_lock(&f->lock);
	f->calls++;
	f->last = *peer;
	pthread_mutex_unlock(&f->lock);
	if (f->delay_ms)
		usleep(f->delay_ms * 1000u);
	if (peer->ss_family != AF_INET)
		return false;
	a = ntohl(sin->sin_addr.s_addr);
	if (a == 0xc0000263u) {	/* 192.0.2.99 */
		pthread_mutex_lock(&f->lock);
		while (f->hang)
			pthread_cond_wait(&f->unhang, &f->lock);
		pthread_mutex_unlock(&f->lock);
	}
	if ((a >> 24) != 10)
		return false;
	snprintf(name, HOSTNAMES_NAME_MAX, "h%u.lan", a & 0xff);
	return true;
}

static unsigned int calls(struct fake *f)
{
	unsigned int n;

	pthread_mutex_lock(&f->lock);
	n = f->calls;
	pthread_mutex_unlock(&f->lock);
	return n;
}

static void advance(struct fake *f, uint64_t ms)
{
	pthread_mutex_lock(&f->lock);
	f->now += ms;
	pthread_mutex_unlock(&f->lock);
}

static struct hostnames *cache(struct fake *f, unsigned int max)
{
	struct hostnames_config c;

	hostnames_config_defaults(&c);
	c.max_entries = max;
	c.ttl_ms = 1000;
	c.negative_ttl_ms = 100;
	c.resolve = fake_resolve;
	c.clock = fake_clock;
	c.arg = f;
	return hostnames_new(&c);
}

static bool look(struct hostnames *h, const char *a, const char *want)
{
	struct sockaddr_storage ss = addr(a, 900);
	char name[HOSTNAMES_NAME_MAX] = "unset";
	bool got = hostnames_lookup(h, &ss, name);

	if (!want)
		return !got;
	return got && strcmp(name, want) == 0;
}

static void test_cache_ttl(void)
{
	struct fake f = { .lock = PTHREAD_MUTEX_INITIALIZER, .now = 5000 };
	struct hostnames *h = cache(&f, 16);
	const struct sockaddr_in *sin = (const struct sockaddr_in *)&f.last;

	ok(h != NULL, "cache created");
	if (!h)
		return;
	ok(look(h, "10.0.0.1", "h1.lan") && calls(&f) == 1, "first lookup resolves");
	ok(f.last.ss_family == AF_INET && sin->sin_port == 0 &&
	   ntohl(sin->sin_addr.s_addr) == 0x0a000001u,
	   "the resolver gets the address without the peer's port");
	advance(&f, 999);
	ok(look(h, "10.0.0.1", "h1.lan") && calls(&f) == 1,
	   "a name is served from the cache within its time to live");
	ok(look(h, "::ffff:10.0.0.1", "h1.lan") && calls(&f) == 1,
	   "the IPv4-mapped form shares the IPv4 entry");
	advance(&f, 1);
	ok(look(h, "10.0.0.1", "h1.lan") && calls(&f) == 2,
	   "at its time to live the name is resolved again");

	ok(look(h, "192.0.2.5", NULL) && calls(&f) == 3, "no name: resolved once");
	advance(&f, 99);
	ok(look(h, "192.0.2.5", NULL) && calls(&f) == 3,
	   "\"no name\" is cached too, for the shorter time");
	advance(&f, 1);
	ok(look(h, "192.0.2.5", NULL) && calls(&f) == 4,
	   "after the negative time to live: asked again");
	ok(hostnames_count(h) == 2, "two addresses cached (got %u)", hostnames_count(h));

	{
		struct sockaddr_storage un = { .ss_family = AF_UNIX };
		char name[HOSTNAMES_NAME_MAX];

		ok(!hostnames_lookup(h, &un, name) && !hostnames_lookup(h, NULL, name) &&
		   calls(&f) == 4, "no address, no name, no lookup");
	}
	hostnames_free(h);
}

static void test_cache_bound(void)
{
	struct fake f = { .lock = PTHREAD_MUTEX_INITIALIZER, .now = 1 };
	struct hostnames *h = cache(&f, 3);
	unsigned int c;

	if (!h) {
		ok(0, "cache created");
		return;
	}
	look(h, "10.0.0.1", "h1.lan");
	look(h, "10.0.0.2", "h2.lan");
	look(h, "10.0.0.3", "h3.lan");
	look(h, "10.0.0.1", "h1.lan");	/* 1 is now the most recent, 2 the least */
	ok(calls(&f) == 3 && hostnames_count(h) == 3, "three addresses, three lookups");
	ok(look(h, "10.0.0.4", "h4.lan") && hostnames_count(h) == 3,
	   "a fourth address: the cache stays at its bound (%u)", hostnames_count(h));
	c = calls(&f);
	ok(look(h, "10.0.0.1", "h1.lan") && look(h, "10.0.0.3", "h3.lan") &&
	   calls(&f) == c, "recently used entries stayed");
	ok(look(h, "10.0.0.2", "h2.lan") && calls(&f) == c + 1,
	   "the least recently used one was evicted (resolved again)");
	ok(hostnames_count(h) == 3, "still 3 after that");
	hostnames_free(h);

	{
		/* A bound of 1000 under 5000 distinct addresses. */
		struct fake g = { .lock = PTHREAD_MUTEX_INITIALIZER, .now = 1 };
		struct hostnames *big = cache(&g, 1000);
		unsigned int i;
		bool all = true;

		for (i = 0; big && i < 5000; i++) {
			char a[32], want[32];

			snprintf(a, sizeof(a), "10.0.%u.%u", i / 256, i % 256);
			snprintf(want, sizeof(want), "h%u.lan", i % 256);
			all = all && look(big, a, want);
		}
		ok(big && all && hostnames_count(big) == 1000 && calls(&g) == 5000,
		   "5000 addresses through a 1000-entry cache: right names, 1000 kept");
		hostnames_free(big);
	}
}

struct racer {
	struct hostnames *h;
	bool ok;
};

static void *race(void *arg)
{
	struct racer *r = arg;

	r->ok = look(r->h, "10.9.9.42", "h42.lan");
	return NULL;
}

static void test_cache_concurrent(void)
{
	struct fake f = { .lock = PTHREAD_MUTEX_INITIALIZER, .now = 1, .delay_ms = 200 };
	struct hostnames *h = cache(&f, 16);
	struct racer r[8];
	pthread_t t[8];
	bool all = true;
	int i;

	if (!h) {
		ok(0, "cache created");
		return;
	}
	for (i = 0; i < 8; i++) {
		r[i].h = h;
		r[i].ok = false;
		pthread_create(&t[i], NULL, race, &r[i]);
	}
	for (i = 0; i < 8; i++) {
		pthread_join(t[i], NULL);
		all = all && r[i].ok;
	}
	ok(all, "8 threads asking at once all get the name");
	ok(calls(&f) == 1, "and the address was resolved once (%u)", calls(&f));
	hostnames_free(h);
}

/* ---- forward confirmation ---------------------------------------------- */

static void test_confirm(void)
{
	struct sockaddr_storage p4 = addr("192.0.2.1", 1000), p6 = addr("2001:db8::1", 1000),
				a1 = addr("192.0.2.2", 0), a2 = addr("192.0.2.1", 0),
				m = addr("::ffff:192.0.2.1", 0), a6 = addr("2001:db8::1", 0);
	struct addrinfo i1 = { .ai_family = AF_INET, .ai_addr = (struct sockaddr *)&a1,
			       .ai_addrlen = sizeof(struct sockaddr_in) };
	struct addrinfo i2 = { .ai_family = AF_INET, .ai_addr = (struct sockaddr *)&a2,
			       .ai_addrlen = sizeof(struct sockaddr_in) };
	struct addrinfo im = { .ai_family = AF_INET6, .ai_addr = (struct sockaddr *)&m,
			       .ai_addrlen = sizeof(struct sockaddr_in6) };
	struct addrinfo i6 = { .ai_family = AF_INET6, .ai_addr = (struct sockaddr *)&a6,
			       .ai_addrlen = sizeof(struct sockaddr_in6) };

	ok(!hostnames_confirm(&p4, NULL), "an empty forward answer confirms nothing");
	ok(!hostnames_confirm(&p4, &i1), "another address: not confirmed");
	i1.ai_next = &i2;
	ok(hostnames_confirm(&p4, &i1), "the address among others: confirmed (port ignored)");
	ok(hostnames_confirm(&p4, &im), "an IPv4-mapped answer confirms the IPv4 peer");
	ok(!hostnames_confirm(&p6, &i1) && hostnames_confirm(&p6, &i6),
	   "IPv6: only the same IPv6 address confirms");
}

/* ---- the real resolver, only on what /etc/hosts answers ---------------- */

/* The first name /etc/hosts gives 127.0.0.1, or "" (then no lookup is made). */
static void hosts_name_of_loopback(char *out, size_t len)
{
	FILE *f = fopen("/etc/hosts", "r");
	char line[512];

	out[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char a[64], n[256];

		if (sscanf(line, "%63s %255s", a, n) == 2 && strcmp(a, "127.0.0.1") == 0) {
			snprintf(out, len, "%s", n);
			break;
		}
	}
	fclose(f);
}

static void test_real_resolver(void)
{
	struct sockaddr_storage lo = addr("127.0.0.1", 1234), lom = addr("::ffff:127.0.0.1", 1);
	char want[256], name[HOSTNAMES_NAME_MAX];

	hosts_name_of_loopback(want, sizeof(want));
	if (strcmp(want, "localhost") != 0) {
		printf("ok %d - # SKIP /etc/hosts does not name 127.0.0.1 localhost first\n",
		       ++tap__n);
		return;
	}
	ok(hostnames_resolve(&lo, name, NULL) && strcmp(name, "localhost") == 0,
	   "127.0.0.1 resolves to localhost, confirmed forward (from /etc/hosts)");
	ok(hostnames_resolve(&lom, name, NULL) && strcmp(name, "localhost") == 0,
	   "::ffff:127.0.0.1 too");
}

struct told {
	struct hostnames_waiter w;
	atomic_int n;
};

static void tell(struct hostnames_waiter *w)
{
	atomic_fetch_add(&((struct told *)w)->n, 1);
}

/* Up to 3 s of real time for @t to be told. */
static bool wait_told(struct told *t)
{
	int i;

	for (i = 0; i < 300 && !atomic_load(&t->n); i++)
		usleep(10000);
	return atomic_load(&t->n) == 1;
}

static enum hostnames_answer get(struct hostnames *h, const char *a,
				 char name[HOSTNAMES_NAME_MAX], struct told *t)
{
	struct sockaddr_storage ss = addr(a, 900);

	return hostnames_get(h, &ss, name, t ? &t->w : NULL);
}

static void unhang(struct fake *f)
{
	pthread_mutex_lock(&f->lock);
	f->hang = false;
	pthread_cond_broadcast(&f->unhang);
	pthread_mutex_unlock(&f->lock);
}

/* A resolver that never answers for one address costs its askers the
 * time bound, and nothing else. */
static void test_cache_hang(void)
{
	static struct fake f = { .lock = PTHREAD_MUTEX_INITIALIZER,
				 .unhang = PTHREAD_COND_INITIALIZER,
				 .now = 1, .hang = true };
	static struct fake g = { .lock = PTHREAD_MUTEX_INITIALIZER,
				 .unhang = PTHREAD_COND_INITIALIZER,
				 .now = 1, .hang = true };
	struct told t1 = { .w.fn = tell }, t2 = { .w.fn = tell },
		    t3 = { .w.fn = tell };
	char name[HOSTNAMES_NAME_MAX];
	struct hostnames_config c;
	struct hostnames *h;
	unsigned int n;

	hostnames_config_defaults(&c);
	c.ttl_ms = 60000;
	c.negative_ttl_ms = 10000;
	c.timeout_ms = 1000;
	c.timeout_ttl_ms = 500;
	c.resolvers = 2;
	c.resolve = fake_resolve;
	c.clock = fake_clock;
	c.arg = &f;
	h = hostnames_new(&c);
	if (!h) {
		ok(0, "cache created");
		return;
	}
	ok(get(h, "192.0.2.99", name, &t1) == HOSTNAMES_PENDING,
	   "an address whose lookup hangs: pending, at once");
	ok(get(h, "10.0.0.7", name, &t2) == HOSTNAMES_PENDING,
	   "another new address: pending");
	ok(wait_told(&t2) && get(h, "10.0.0.7", name, NULL) == HOSTNAMES_NAMED &&
	   strcmp(name, "h7.lan") == 0,
	   "the other address is resolved meanwhile, its asker told");
	usleep(100000);
	ok(atomic_load(&t1.n) == 0 &&
	   get(h, "192.0.2.99", name, &t3) == HOSTNAMES_PENDING,
	   "the hanging one is still pending before its bound");
	advance(&f, 1000);
	ok(wait_told(&t1) && wait_told(&t3),
	   "at the bound both of its askers are told, once");
	n = calls(&f);
	ok(get(h, "192.0.2.99", name, NULL) == HOSTNAMES_NONE,
	   "and find \"no name\" cached");
	advance(&f, 500);
	ok(get(h, "192.0.2.99", name, NULL) == HOSTNAMES_NONE && calls(&f) == n,
	   "after that: still no name, and no second lookup of a hanging address");
	unhang(&f);
	usleep(100000);
	ok(get(h, "192.0.2.99", name, NULL) == HOSTNAMES_NONE && calls(&f) == n,
	   "the late answer is cached");
	hostnames_free(h);

	/* Freed while a lookup hangs: returns, and the stuck thread
	 * cleans up when its lookup ends. */
	c.arg = &g;
	h = hostnames_new(&c);
	if (h) {
		struct told t4 = { .w.fn = tell };

		ok(get(h, "192.0.2.99", name, &t4) == HOSTNAMES_PENDING,
		   "pending lookup");
		usleep(50000);
		hostnames_stop(h);
		ok(atomic_load(&t4.n) == 1 &&
		   get(h, "192.0.2.99", name, NULL) == HOSTNAMES_NONE &&
		   get(h, "10.0.0.8", name, NULL) == HOSTNAMES_NONE,
		   "stop tells the waiters; afterwards uncached addresses have no name");
		hostnames_free(h);
		ok(1, "freed while a resolver hangs");
		unhang(&g);
		usleep(100000);
	}
}

/*
 * A flood of new addresses while the resolvers are stuck: the queue is
 * bounded (past it, "no name" at once), and lookups given up at the
 * bound leave the queue (never run; their entries may be evicted), so
 * that later peers are looked up again.
 */
static void test_cache_flood(void)
{
	static struct fake f = { .lock = PTHREAD_MUTEX_INITIALIZER,
				 .unhang = PTHREAD_COND_INITIALIZER,
				 .now = 1, .hang = true };
	struct told t1 = { .w.fn = tell }, tlast = { .w.fn = tell }, tnew = { .w.fn = tell };
	char name[HOSTNAMES_NAME_MAX], a[32];
	unsigned int i, pending = 0, none = 0;
	struct hostnames_config c;
	struct hostnames *h;

	hostnames_config_defaults(&c);
	c.max_entries = 4096;
	c.timeout_ms = 1000;
	c.timeout_ttl_ms = 500;
	c.resolvers = 1;
	c.resolve = fake_resolve;
	c.clock = fake_clock;
	c.arg = &f;
	h = hostnames_new(&c);
	if (!h) {
		ok(0, "cache created");
		return;
	}
	ok(get(h, "192.0.2.99", name, &t1) == HOSTNAMES_PENDING, "the only resolver hangs");
	for (i = 0; i < 5 && calls(&f) == 0; i++)
		usleep(100000);
	for (i = 0; i < 400; i++) {
		enum hostnames_answer r;

		snprintf(a, sizeof(a), "10.1.%u.%u", i / 250, i % 250 + 1);
		r = get(h, a, name, i == 200 ? &tlast : NULL);
		pending += r == HOSTNAMES_PENDING;
		none += r == HOSTNAMES_NONE;
	}
	ok(pending == 256 && none == 144,
	   "400 new addresses behind it: 256 queued, the rest \"no name\" at once (%u, %u)",
	   pending, none);
	advance(&f, 1000);
	ok(wait_told(&tlast) && wait_told(&t1), "at the bound the queued askers are told");
	advance(&f, 500);
	ok(get(h, "10.9.9.9", name, &tnew) == HOSTNAMES_PENDING,
	   "a new address is queued again");
	unhang(&f);
	ok(wait_told(&tnew) && get(h, "10.9.9.9", name, NULL) == HOSTNAMES_NAMED,
	   "once the resolver is free it is looked up");
	ok(calls(&f) == 2,
	   "first: the lookups given up at the bound left the queue, never run (%u lookups)",
	   calls(&f));
	hostnames_free(h);
}

int main(void)
{
	test_wildcards();
	test_needs_name();
	test_cache_ttl();
	test_cache_bound();
	test_cache_concurrent();
	test_cache_hang();
	test_cache_flood();
	test_confirm();
	test_real_resolver();
	return tap_done();
}
