/* SPDX-License-Identifier: MIT */
/*
 * Connections per client address (--max-conns-per-client): a count per
 * address, shared by the loops (any loop may accept, any may close).
 *
 * DESIGN
 * A chained hash of the addresses with connections open, under one
 * mutex: it is taken once per accept and once per close, never on the
 * data path, and never with another lock held. Entries are freed when
 * their count falls to zero, so the table holds at most one entry per
 * open connection. The port is not part of the key; an IPv4-mapped IPv6
 * address counts as its IPv4 address.
 */
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rpc/svc_internal.h"

#define NBUCKETS 1024u

struct client {
	struct client *next;
	uint8_t addr[16];
	unsigned int n;
};

struct rpc_clients {
	pthread_mutex_t lock;
	unsigned int limit;
	struct client *buckets[NBUCKETS];
};

/* The peer's address as 16 bytes (IPv4 as mapped IPv6). */
static void key_of(const struct sockaddr_storage *ss, uint8_t k[16])
{
	memset(k, 0, 16);
	if (ss->ss_family == AF_INET) {
		k[10] = k[11] = 0xff;
		memcpy(k + 12, &((const struct sockaddr_in *)ss)->sin_addr, 4);
	} else if (ss->ss_family == AF_INET6) {
		memcpy(k, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
	}
}

static struct client **slot(struct rpc_clients *cl, const uint8_t k[16])
{
	uint32_t h = 2166136261u;
	struct client **pp;
	int i;

	for (i = 0; i < 16; i++)
		h = (h ^ k[i]) * 16777619u;
	for (pp = &cl->buckets[h % NBUCKETS]; *pp; pp = &(*pp)->next)
		if (!memcmp((*pp)->addr, k, 16))
			break;
	return pp;
}

/* Return values: the table, or NULL when memory is short. */
struct rpc_clients *rpc__clients_new(unsigned int limit)
{
	struct rpc_clients *cl = calloc(1, sizeof(*cl));

	if (!cl)
		return NULL;
	pthread_mutex_init(&cl->lock, NULL);
	cl->limit = limit;
	return cl;
}

void rpc__clients_free(struct rpc_clients *cl)
{
	unsigned int i;

	if (!cl)
		return;
	for (i = 0; i < NBUCKETS; i++) {
		while (cl->buckets[i]) {
			struct client *e = cl->buckets[i];

			cl->buckets[i] = e->next;
			free(e);
		}
	}
	pthread_mutex_destroy(&cl->lock);
	free(cl);
}

/*
 * rpc__clients_add - count a new connection from @peer.
 * Return values: true when counted; false when @peer is at the limit (or
 * memory is short): refuse the connection.
 */
bool rpc__clients_add(struct rpc_clients *cl, const struct sockaddr_storage *peer)
{
	struct client **pp, *e;
	uint8_t k[16];
	bool ok = true;

	key_of(peer, k);
	pthread_mutex_lock(&cl->lock);
	pp = slot(cl, k);
	e = *pp;
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (e) {
			memcpy(e->addr, k, 16);
			*pp = e;
		}
	}
	if (!e || e->n >= cl->limit)
		ok = false;
	else
		e->n++;
	pthread_mutex_unlock(&cl->lock);
	return ok;
}

/* A connection from @peer counted by rpc__clients_add() is gone. */
void rpc__clients_del(struct rpc_clients *cl, const struct sockaddr_storage *peer)
{
	struct client **pp, *e;
	uint8_t k[16];

	key_of(peer, k);
	pthread_mutex_lock(&cl->lock);
	pp = slot(cl, k);
	e = *pp;
	if (e && e->n && --e->n == 0) {
		*pp = e->next;
		free(e);
	}
	pthread_mutex_unlock(&cl->lock);
}
