/* SPDX-License-Identifier: MIT */
/*
 * The client table's insides, shared by clients.c (the table and
 * NFSv4.0) and clients41.c (NFSv4.1). Every function here is called
 * with the table's lock held.
 */
#ifndef NFSX_NFS4_CLIENTS_INTERNAL_H
#define NFSX_NFS4_CLIENTS_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "nfs4/clients.h"

struct client {
	struct client *name_next;   /* chain of the id's hash */
	struct client *cid_next;    /* chain of the clientid's hash */
	struct client *older, *newer;  /* order of last renewal */
	clientid4 clientid;
	verifier4 verf;
	verifier4 confirm;
	struct nfs4_principal who;
	struct nfs4_callback cb;
	uint64_t renewed;
	enum nfs4_cb_path cb_path;
	uint32_t cb_gen;
	bool confirmed;
	bool v41;                   /* made by EXCHANGE_ID */
	bool reclaimed;             /* 4.1: RECLAIM_COMPLETE done */
	bool cs_cached;             /* 4.1: cs_res holds the last CREATE_SESSION's reply */
	bool holds_state;           /* the state table holds state of it (courtesy) */
	uint32_t sessions;          /* 4.1: sessions the sessions table holds of it */
	sequenceid4 cs_seqid;       /* 4.1: the last CREATE_SESSION's seqid */
	struct CREATE_SESSION4res cs_res;
	uint32_t id_len;
	uint8_t id[];
};

struct nfs4_clients {
	pthread_mutex_t lock;
	uint32_t boot;
	uint32_t counter;           /* low half of the next clientid */
	uint32_t max, count;
	uint32_t lease;             /* seconds */
	void (*record)(const uint8_t *id, uint32_t len, bool add);
	uint32_t mask;              /* buckets - 1 */
	uint32_t cb_gen;            /* last callback generation given */
	/* records dropped so far (nfs4_clients_drops), written under lock */
	atomic_uint_fast64_t drops;
	struct client *oldest, *newest;
	struct client **by_name;
	struct client **by_cid;
};

/* Which records cl_find_cid() looks at: of one minor version, or both
 * (clientids are unique across them). */
enum which { V40, V41, ANY };

bool cl_same_principal(const struct nfs4_principal *a, const struct nfs4_principal *b);
bool cl_same_verf(const verifier4 *a, const verifier4 *b);
void cl_touch(struct nfs4_clients *t, struct client *c, uint64_t now);
void cl_insert(struct nfs4_clients *t, struct client *c);
void cl_drop(struct nfs4_clients *t, struct client *c);
bool cl_in_use(const struct client *c);
void cl_sweep(struct nfs4_clients *t, uint64_t now);
bool cl_full(struct nfs4_clients *t, uint64_t now);
struct client *cl_find_name(struct nfs4_clients *t, const uint8_t *id, uint32_t len,
			    bool confirmed, bool v41, uint64_t now);
struct client *cl_find_cid(struct nfs4_clients *t, clientid4 cid, bool confirmed,
			   enum which w, uint64_t now);
struct client *cl_find_courtesy(struct nfs4_clients *t, clientid4 cid, uint64_t now);
clientid4 cl_new_clientid(struct nfs4_clients *t);

#endif
