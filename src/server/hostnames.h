/* SPDX-License-Identifier: MIT */
/*
 * Peer host names, for the host name client rules of the exports
 * ("client.example.com(rw)", "*.example.com(ro)").
 *
 * DESIGN
 * - A name is trusted only when verified as Linux's mountd does: the
 *   reverse lookup of the address (getnameinfo, NI_NAMEREQD) gives a
 *   name, and the forward lookup of that name (getaddrinfo) gives the
 *   address back. Otherwise the peer has no name: host name rules do
 *   not match it (address rules still may). A PTR record holding an
 *   address text is not a name.
 * - Lookups block (they may wait on DNS, or forever on a broken
 *   resolver), so neither event loops nor workers make them: a few
 *   resolver threads of this module do. An asker that finds no answer
 *   gets HOSTNAMES_PENDING at once and, if it left a waiter, is told
 *   when the answer is there; the caller decides what to do meanwhile
 *   (nfsxd parks the call: see rpc_workers_park()). An answer not
 *   there within timeout_ms (default 5 s) is "no name", cached for
 *   timeout_ttl_ms (default 5 s); a lookup that hangs keeps its thread
 *   and its address (no second thread starts on it), the other
 *   resolvers serve other addresses.
 * - Answers are cached per address: a name for ttl_ms (default 5 min),
 *   "no name" for negative_ttl_ms (default 30 s), at most max_entries
 *   addresses (default 4096, the least recently used idle entry goes
 *   first).
 * - One mutex guards the cache and is never held during a lookup or
 *   while waiters are told. A lookup in progress for an address is
 *   waited for, not repeated, so a burst of calls from a new client
 *   costs one lookup. IPv4-mapped IPv6 addresses are the IPv4 address
 *   they hold.
 */
#ifndef NFSX_SERVER_HOSTNAMES_H
#define NFSX_SERVER_HOSTNAMES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

struct addrinfo;

#define HOSTNAMES_NAME_MAX 256	/* a name and its NUL: DNS names are <= 253 */

#define HOSTNAMES_DEFAULT_MAX 4096
#define HOSTNAMES_DEFAULT_TTL_MS (5u * 60 * 1000)
#define HOSTNAMES_DEFAULT_NEG_TTL_MS (30u * 1000)
#define HOSTNAMES_DEFAULT_TIMEOUT_MS (5u * 1000)
#define HOSTNAMES_DEFAULT_TIMEOUT_TTL_MS (5u * 1000)
#define HOSTNAMES_DEFAULT_RESOLVERS 4

/*
 * Resolve @peer (family AF_INET or AF_INET6, port 0) to a verified name.
 * Return values: true with the name in @name; false: no name.
 */
typedef bool hostnames_resolve_fn(const struct sockaddr_storage *peer,
				  char name[HOSTNAMES_NAME_MAX], void *arg);

/* Milliseconds of a monotonic clock. */
typedef uint64_t hostnames_clock_fn(void *arg);

struct hostnames_config {
	unsigned int max_entries;	/* at least 1 */
	uint32_t ttl_ms;		/* how long a name is kept */
	uint32_t negative_ttl_ms;	/* how long "no name" is kept */
	uint32_t timeout_ms;		/* no answer by then: "no name" */
	uint32_t timeout_ttl_ms;	/* how long that "no name" is kept */
	unsigned int resolvers;		/* threads making lookups, at least 1 */
	hostnames_resolve_fn *resolve;	/* hostnames_resolve() unless tests say */
	hostnames_clock_fn *clock;	/* CLOCK_MONOTONIC unless tests say */
	void *arg;			/* passed to resolve and clock */
};

struct hostnames;

/* The defaults above, the real resolver and clock. */
void hostnames_config_defaults(struct hostnames_config *c);

/* Return values: the cache (its threads started), or NULL. */
struct hostnames *hostnames_new(const struct hostnames_config *c);

/*
 * Stop answering: askers still waiting are told now (their entries stay
 * without an answer), later askers of an address not cached get
 * HOSTNAMES_NONE at once. When it returns no waiter is being told or
 * will be. NULL is ignored.
 */
void hostnames_stop(struct hostnames *h);

/*
 * Stop, then free the cache. Resolver threads still inside a lookup are
 * not waited for: the last one to leave frees what they share. NULL is
 * ignored.
 */
void hostnames_free(struct hostnames *h);

enum hostnames_answer {
	HOSTNAMES_NONE,		/* no verified name */
	HOSTNAMES_NAMED,	/* the name is in @name */
	HOSTNAMES_PENDING,	/* being resolved: ask again when told */
};

/* Told once, on a cache thread, when the answer (or the bound) came. */
struct hostnames_waiter {
	struct hostnames_waiter *next;		/* the cache's */
	void (*fn)(struct hostnames_waiter *w);	/* may free @w */
};

/**
 * hostnames_get() - the verified name of a peer, never blocking.
 * @h: the cache.
 * @peer: the peer's address (AF_INET or AF_INET6; others have no name).
 * @name: receives the name.
 * @w: NULL, or a waiter to tell when a pending answer is settled.
 *
 * An address not cached (or whose answer expired) is queued for the
 * resolvers. @w, when the answer is pending, is told exactly once, at
 * the latest timeout_ms later (or at hostnames_stop()); the caller then
 * asks again, and normally finds the answer cached.
 *
 * Return values:
 * see enum hostnames_answer; @w is kept only for HOSTNAMES_PENDING.
 */
enum hostnames_answer hostnames_get(struct hostnames *h,
				    const struct sockaddr_storage *peer,
				    char name[HOSTNAMES_NAME_MAX],
				    struct hostnames_waiter *w);

/**
 * hostnames_lookup() - hostnames_get() that waits for a pending answer
 * (at most about timeout_ms; for tools and tests, not for a server's
 * threads).
 * @h: the cache.
 * @peer: the peer's address.
 * @name: receives the name.
 *
 * Return values:
 * true with the name in @name; false when the peer has no verified name.
 */
bool hostnames_lookup(struct hostnames *h, const struct sockaddr_storage *peer,
		      char name[HOSTNAMES_NAME_MAX]);

/* How many addresses the cache holds (finished or being resolved). */
unsigned int hostnames_count(struct hostnames *h);

/**
 * hostnames_resolve() - the real resolver: reverse lookup, then forward
 * confirmation (see DESIGN). A hostnames_resolve_fn; @arg is unused.
 */
bool hostnames_resolve(const struct sockaddr_storage *peer,
		       char name[HOSTNAMES_NAME_MAX], void *arg);

/**
 * hostnames_confirm() - does a forward lookup's answer hold the peer?
 * @peer: the peer's address.
 * @ai: getaddrinfo's list for the peer's reverse name.
 *
 * Addresses compare by family and bytes, ports ignored, IPv4-mapped
 * IPv6 addresses as IPv4.
 *
 * Return values:
 * true when some entry of @ai is @peer's address.
 */
bool hostnames_confirm(const struct sockaddr_storage *peer,
		       const struct addrinfo *ai);

#endif
