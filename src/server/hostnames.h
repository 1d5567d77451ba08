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
 * - Lookups block (they may wait on DNS): only worker threads ask, never
 *   an event loop. Answers are cached per address: a name for ttl_ms
 *   (default 5 min), "no name" for negative_ttl_ms (default 30 s), at
 *   most max_entries addresses (default 4096, the least recently used
 *   finished entry goes first).
 * - One mutex guards the cache and is never held during a lookup. A
 *   lookup in progress for an address is waited for, not repeated, so a
 *   burst of calls from a new client costs one lookup. IPv4-mapped IPv6
 *   addresses are the IPv4 address they hold.
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
	hostnames_resolve_fn *resolve;	/* hostnames_resolve() unless tests say */
	hostnames_clock_fn *clock;	/* CLOCK_MONOTONIC unless tests say */
	void *arg;			/* passed to resolve and clock */
};

struct hostnames;

/* The defaults above, the real resolver and clock. */
void hostnames_config_defaults(struct hostnames_config *c);

/* Return values: the cache, or NULL when memory is short. */
struct hostnames *hostnames_new(const struct hostnames_config *c);

/* Free the cache; no lookup may be running. NULL is ignored. */
void hostnames_free(struct hostnames *h);

/**
 * hostnames_lookup() - the verified name of a peer, from the cache or
 * resolved now (blocking: worker threads only).
 * @h: the cache.
 * @peer: the peer's address (AF_INET or AF_INET6; others have no name).
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
