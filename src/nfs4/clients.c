/* SPDX-License-Identifier: MIT */
/*
 * NFSv4 client records: see clients.h. This file holds the table
 * (hashes, lease order, sweep, courtesy records) and NFSv4.0's
 * SETCLIENTID/SETCLIENTID_CONFIRM/RENEW, following RFC 7530 16.33.5 and
 * 16.34.5 case by case, with knfsd's nfsd4_setclientid() and
 * nfsd4_setclientid_confirm() as the reference where the RFC leaves a
 * choice; clients41.c holds NFSv4.1's part.
 */
#include <pthread.h>
#include <sodium.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nfs4/clients.h"
#include "nfs4/clients_internal.h"
#include "util/lock.h"

/* Expired records freed per call at most, so no call pays for many. */
#define SWEEP_MAX 8u

static uint32_t hash_name(const uint8_t *id, uint32_t len)
{
	uint32_t h = 2166136261u;   /* FNV-1a */
	uint32_t i;

	for (i = 0; i < len; i++)
		h = (h ^ id[i]) * 16777619u;
	return h;
}

static uint32_t hash_cid(clientid4 cid)
{
	uint64_t x = cid * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(x >> 32);
}

struct nfs4_clients *nfs4_clients_new(uint32_t boot, uint32_t max)
{
	struct nfs4_clients *t = calloc(1, sizeof(*t));
	uint32_t n = 64;

	/* randombytes_* need it; it may run more than once. */
	if (!t || sodium_init() < 0) {
		free(t);
		return NULL;
	}
	/* about four records a chain when full */
	while (n < max / 4 && n < (1u << 20))
		n <<= 1;
	t->by_name = calloc(n, sizeof(*t->by_name));
	t->by_cid = calloc(n, sizeof(*t->by_cid));
	if (!t->by_name || !t->by_cid || lock_init_short(&t->lock) != 0) {
		free(t->by_name);
		free(t->by_cid);
		free(t);
		return NULL;
	}
	t->mask = n - 1;
	t->boot = boot;
	t->max = max;
	t->lease = NFS4_LEASE_TIME;
	t->counter = randombytes_random();
	return t;
}

void nfs4_clients_free(struct nfs4_clients *t)
{
	struct client *c, *next;

	if (!t)
		return;
	for (c = t->oldest; c; c = next) {
		next = c->newer;
		free(c);
	}
	free(t->by_name);
	free(t->by_cid);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static bool expired(const struct nfs4_clients *t, const struct client *c, uint64_t now)
{
	return now > c->renewed && now - c->renewed > t->lease;
}

void nfs4_clients_set_lease(struct nfs4_clients *t, uint32_t seconds)
{
	t->lease = seconds;
}

bool cl_same_principal(const struct nfs4_principal *a, const struct nfs4_principal *b)
{
	if (a->flavor != b->flavor)
		return false;
	return a->flavor != 1 /* AUTH_SYS */ || a->uid == b->uid;
}

bool cl_same_verf(const verifier4 *a, const verifier4 *b)
{
	return memcmp(a->val, b->val, sizeof(a->val)) == 0;
}

static void lru_unlink(struct nfs4_clients *t, struct client *c)
{
	if (c->older)
		c->older->newer = c->newer;
	else
		t->oldest = c->newer;
	if (c->newer)
		c->newer->older = c->older;
	else
		t->newest = c->older;
	c->older = c->newer = NULL;
}

static void lru_append(struct nfs4_clients *t, struct client *c)
{
	c->older = t->newest;
	c->newer = NULL;
	if (t->newest)
		t->newest->newer = c;
	else
		t->oldest = c;
	t->newest = c;
}

/* @c's lease starts again at @now; it becomes the newest. */
void cl_touch(struct nfs4_clients *t, struct client *c, uint64_t now)
{
	/* Callers' clocks are read before the lock is taken: never let a
	 * renewal move a record's time backwards. */
	if (now > c->renewed)
		c->renewed = now;
	lru_unlink(t, c);
	lru_append(t, c);
}

void cl_insert(struct nfs4_clients *t, struct client *c)
{
	struct client **nb = &t->by_name[hash_name(c->id, c->id_len) & t->mask];
	struct client **cb = &t->by_cid[hash_cid(c->clientid) & t->mask];

	c->name_next = *nb;
	*nb = c;
	c->cid_next = *cb;
	*cb = c;
	lru_append(t, c);
	t->count++;
}

/*
 * Take @c out of the table and free it. When state exists, a client's
 * state goes with its record here.
 */
void cl_drop(struct nfs4_clients *t, struct client *c)
{
	struct client **p;

	for (p = &t->by_name[hash_name(c->id, c->id_len) & t->mask]; *p != c; p = &(*p)->name_next)
		;
	*p = c->name_next;
	for (p = &t->by_cid[hash_cid(c->clientid) & t->mask]; *p != c; p = &(*p)->cid_next)
		;
	*p = c->cid_next;
	lru_unlink(t, c);
	t->count--;
	atomic_fetch_add_explicit(&t->drops, 1, memory_order_release);
	if (c->confirmed && t->record)
		t->record(c->id, c->id_len, false);
	free(c);
}

/* A confirmed record whose lease ran out while the state table holds
 * state of it: kept (a courteous server, as Linux 5.19+), not live (a
 * conflict takes its state), revived by its own next call. */
static bool courtesy(const struct nfs4_clients *t, const struct client *c, uint64_t now)
{
	return c->confirmed && c->holds_state && expired(t, c, now);
}

/* What keeps another principal from taking a client's name: state, or
 * (4.1) a session (knfsd's client_has_state). */
bool cl_in_use(const struct client *c)
{
	return c->holds_state || c->sessions;
}

/* Records a sweep looks at past the courtesy ones, at most. */
#define SWEEP_WALK 64u

/* Free up to SWEEP_MAX records whose lease ran out, oldest first; the
 * courtesy ones too when @force (the table is full: their state goes
 * when another client conflicts, or they hear EXPIRED). */
static void sweep_some(struct nfs4_clients *t, uint64_t now, bool force)
{
	struct client *c, *next;
	uint32_t i = 0, walked = 0;

	for (c = t->oldest; c && i < SWEEP_MAX && walked < SWEEP_WALK && expired(t, c, now);
	     c = next, walked++) {
		next = c->newer;
		if (force || !courtesy(t, c, now)) {
			cl_drop(t, c);
			i++;
		}
	}
}

void cl_sweep(struct nfs4_clients *t, uint64_t now)
{
	sweep_some(t, now, false);
}

/* Is the table full, even once courtesy records made room? */
bool cl_full(struct nfs4_clients *t, uint64_t now)
{
	if (t->count >= t->max)
		sweep_some(t, now, true);
	return t->count >= t->max;
}

/* The live record of id @id with confirmation @confirmed of minor
 * version 1 (@v41) or 0, or NULL; dead ones met on the way are freed. */
struct client *cl_find_name(struct nfs4_clients *t, const uint8_t *id, uint32_t len,
				bool confirmed, bool v41, uint64_t now)
{
	struct client *c = t->by_name[hash_name(id, len) & t->mask], *next;

	for (; c; c = next) {
		next = c->name_next;
		if (c->id_len != len || memcmp(c->id, id, len) != 0)
			continue;
		if (courtesy(t, c, now))
			continue;
		if (expired(t, c, now)) {
			cl_drop(t, c);
			continue;
		}
		if (c->confirmed == confirmed && c->v41 == v41)
			return c;
	}
	return NULL;
}

/* The live record of clientid @cid with confirmation @confirmed, or NULL. */
/* cl_find_cid(), but a dead record met on the way sets *@dead instead
 * of being dropped when @dead is given. */
static struct client *find_cid(struct nfs4_clients *t, clientid4 cid, bool confirmed,
			       enum which w, uint64_t now, bool *dead)
{
	struct client *c = t->by_cid[hash_cid(cid) & t->mask], *next;

	for (; c; c = next) {
		next = c->cid_next;
		if (c->clientid != cid)
			continue;
		if (courtesy(t, c, now))
			continue;
		if (expired(t, c, now)) {
			if (dead)
				*dead = true;
			else
				cl_drop(t, c);
			continue;
		}
		if (c->confirmed == confirmed && (w == ANY || c->v41 == (w == V41)))
			return c;
	}
	return NULL;
}

struct client *cl_find_cid(struct nfs4_clients *t, clientid4 cid, bool confirmed,
			       enum which w, uint64_t now)
{
	return find_cid(t, cid, confirmed, w, now, NULL);
}

/* The courtesy record of @cid, or NULL. */
struct client *cl_find_courtesy(struct nfs4_clients *t, clientid4 cid, uint64_t now)
{
	struct client *c;

	for (c = t->by_cid[hash_cid(cid) & t->mask]; c; c = c->cid_next)
		if (c->clientid == cid && courtesy(t, c, now))
			return c;
	return NULL;
}

/* A clientid no record has: the counter may have wrapped round. */
clientid4 cl_new_clientid(struct nfs4_clients *t)
{
	struct client *c;
	clientid4 cid;

again:
	cid = (clientid4)t->boot << 32 | t->counter++;
	for (c = t->by_cid[hash_cid(cid) & t->mask]; c; c = c->cid_next)
		if (c->clientid == cid)
			goto again;
	return cid;
}

enum nfsstat4 nfs4_clients_setclientid(struct nfs4_clients *t, const uint8_t *id,
				       uint32_t id_len, const verifier4 *verf,
				       const struct nfs4_principal *who,
				       const struct nfs4_callback *cb, uint64_t now,
				       clientid4 *clientid, verifier4 *confirm)
{
	struct client *conf, *unconf, *c;
	enum nfsstat4 st = NFS4_OK;

	if (id_len > NFS4_OPAQUE_LIMIT)
		return NFS4ERR_INVAL;
	if (id_len == 0)
		id = (const uint8_t *)"";  /* a decoded empty opaque may have no data */
	c = calloc(1, sizeof(*c) + id_len);
	if (!c)
		return NFS4ERR_SERVERFAULT;
	memcpy(c->id, id, id_len);
	c->id_len = id_len;
	c->verf = *verf;
	c->who = *who;
	if (cb)
		c->cb = *cb;
	c->renewed = now;
	randombytes_buf(c->confirm.val, sizeof(c->confirm.val));

	pthread_mutex_lock(&t->lock);
	cl_sweep(t, now);
	conf = cl_find_name(t, id, id_len, true, false, now);
	if (conf && !cl_same_principal(&conf->who, who)) {
		/* another principal's live client of that name: INUSE while
		 * it holds state, else this one takes the name (a new
		 * clientid; the old record goes at the confirmation), as
		 * knfsd (pynfs CID2) */
		if (cl_in_use(conf)) {
			st = NFS4ERR_CLID_INUSE;
			goto out;
		}
		conf = NULL;
	}
	/* Any unconfirmed record of the name is replaced by this one. */
	unconf = cl_find_name(t, id, id_len, false, false, now);
	if (unconf)
		cl_drop(t, unconf);
	if (cl_full(t, now)) {
		st = NFS4ERR_RESOURCE;
		goto out;
	}
	/* Same verifier: a callback update of the confirmed client, which
	 * keeps its clientid. A new verifier (the client rebooted) or a
	 * new name: a new clientid; a confirmed record of the old
	 * incarnation goes when this one is confirmed. */
	if (conf && cl_same_verf(&conf->verf, verf)) {
		c->clientid = conf->clientid;
		/* a new confirm verifier, never the one in use */
		while (cl_same_verf(&c->confirm, &conf->confirm))
			randombytes_buf(c->confirm.val, sizeof(c->confirm.val));
	} else {
		c->clientid = cl_new_clientid(t);
	}
	cl_insert(t, c);
	*clientid = c->clientid;
	*confirm = c->confirm;
	c = NULL;
out:
	pthread_mutex_unlock(&t->lock);
	free(c);
	return st;
}

enum nfsstat4 nfs4_clients_confirm(struct nfs4_clients *t, clientid4 clientid,
				   const verifier4 *confirm,
				   const struct nfs4_principal *who, uint64_t now)
{
	struct client *conf, *unconf, *old;
	enum nfsstat4 st = NFS4_OK;

	pthread_mutex_lock(&t->lock);
	cl_sweep(t, now);
	conf = cl_find_cid(t, clientid, true, V40, now);
	unconf = cl_find_cid(t, clientid, false, V40, now);
	/* RFC 7530 16.34.5 recommends CLID_INUSE for a confirm by another
	 * principal than the SETCLIENTID's. */
	if ((unconf && !cl_same_principal(&unconf->who, who)) ||
	    (conf && !cl_same_principal(&conf->who, who))) {
		st = NFS4ERR_CLID_INUSE;
		goto out;
	}
	if (!unconf || !cl_same_verf(&unconf->confirm, confirm)) {
		/* A retransmitted confirm of a record already confirmed
		 * is answered as the first one was. */
		if (conf && cl_same_verf(&conf->confirm, confirm))
			cl_touch(t, conf, now);
		else
			st = NFS4ERR_STALE_CLIENTID;
		goto out;
	}
	if (conf) {
		/* Callback update: the confirmed record takes the new
		 * callback and confirm verifier (so that a retransmission
		 * of this confirm is answered OK too) and keeps its state. */
		conf->cb = unconf->cb;
		conf->cb_path = NFS4_CB_PATH_UNKNOWN;
		conf->cb_gen = ++t->cb_gen;
		conf->confirm = unconf->confirm;
		cl_drop(t, unconf);
		cl_touch(t, conf, now);
		goto out;
	}
	old = cl_find_name(t, unconf->id, unconf->id_len, true, false, now);
	if (old) {
		/* A confirmed record of the same name under another
		 * clientid: the client's earlier incarnation, replaced now
		 * (with its state), unless another principal holds it
		 * alive. */
		if (!cl_same_principal(&old->who, &unconf->who) && cl_in_use(old)) {
			st = NFS4ERR_CLID_INUSE;
			goto out;
		}
		cl_drop(t, old);
	}
	unconf->confirmed = true;
	unconf->cb_path = NFS4_CB_PATH_UNKNOWN;
	unconf->cb_gen = ++t->cb_gen;
	if (t->record)
		t->record(unconf->id, unconf->id_len, true);
	cl_touch(t, unconf, now);
out:
	pthread_mutex_unlock(&t->lock);
	return st;
}

enum nfsstat4 nfs4_clients_renew(struct nfs4_clients *t, clientid4 clientid, uint64_t now)
{
	struct client *c;
	enum nfsstat4 st = NFS4_OK;

	pthread_mutex_lock(&t->lock);
	cl_sweep(t, now);
	/* either version: a stateful operation of 4.1 may renew too */
	c = cl_find_cid(t, clientid, true, ANY, now);
	if (!c)
		c = cl_find_courtesy(t, clientid, now);
	if (c)
		cl_touch(t, c, now);
	else
		st = NFS4ERR_STALE_CLIENTID;
	pthread_mutex_unlock(&t->lock);
	return st;
}

uint64_t nfs4_clients_drops(struct nfs4_clients *t)
{
	return atomic_load_explicit(&t->drops, memory_order_acquire);
}

int nfs4_clients_renew_nowait(struct nfs4_clients *t, clientid4 clientid, bool renew,
			       uint64_t now)
{
	struct client *c;
	bool dead = false;

	/* A worker may hold the lock across the record's write (cl_drop):
	 * never wait for it on a loop. */
	if (!lock_try_short(&t->lock))
		return -1;
	/* a record to be dropped (which writes the restart record) is a
	 * worker's */
	c = find_cid(t, clientid, true, V41, now, &dead);
	if (!c && !dead)
		c = cl_find_courtesy(t, clientid, now);
	if (c && renew)
		cl_touch(t, c, now);
	pthread_mutex_unlock(&t->lock);
	return c ? 0 : -1;
}

void nfs4_clients_set_record(struct nfs4_clients *t,
			     void (*record)(const uint8_t *id, uint32_t len, bool add))
{
	t->record = record;
}

bool nfs4_clients_name(struct nfs4_clients *t, clientid4 clientid, uint64_t now,
		       uint8_t *buf, uint32_t *len)
{
	struct client *c;

	pthread_mutex_lock(&t->lock);
	c = cl_find_cid(t, clientid, true, ANY, now);
	if (c) {
		memcpy(buf, c->id, c->id_len);
		*len = c->id_len;
	}
	pthread_mutex_unlock(&t->lock);
	return c != NULL;
}

bool nfs4_clients_reclaimed(struct nfs4_clients *t, clientid4 clientid, uint64_t now)
{
	struct client *c;
	bool done;

	pthread_mutex_lock(&t->lock);
	c = cl_find_cid(t, clientid, true, ANY, now);
	done = c && c->reclaimed;
	pthread_mutex_unlock(&t->lock);
	return done;
}

bool nfs4_clients_live(struct nfs4_clients *t, clientid4 clientid, uint64_t now)
{
	bool live;

	pthread_mutex_lock(&t->lock);
	live = cl_find_cid(t, clientid, true, ANY, now) != NULL;
	pthread_mutex_unlock(&t->lock);
	return live;
}

bool nfs4_clients_cb_target(struct nfs4_clients *t, clientid4 clientid, uint64_t now,
			    struct nfs4_cb_target *out)
{
	struct client *c;

	pthread_mutex_lock(&t->lock);
	c = cl_find_cid(t, clientid, true, ANY, now);
	if (c) {
		out->cb = c->cb;
		out->who = c->who;
		out->gen = c->cb_gen;
	}
	pthread_mutex_unlock(&t->lock);
	return c != NULL;
}

void nfs4_clients_cb_set(struct nfs4_clients *t, clientid4 clientid, uint32_t gen,
			 enum nfs4_cb_path path)
{
	struct client *c;

	pthread_mutex_lock(&t->lock);
	/* Expired or not: a lookup by time is not needed to record this. */
	for (c = t->by_cid[hash_cid(clientid) & t->mask]; c; c = c->cid_next)
		if (c->clientid == clientid && c->confirmed && c->cb_gen == gen)
			c->cb_path = path;
	pthread_mutex_unlock(&t->lock);
}

enum nfs4_cb_path nfs4_clients_cb_path(struct nfs4_clients *t, clientid4 clientid,
				       uint64_t now)
{
	enum nfs4_cb_path p = NFS4_CB_PATH_UNKNOWN;
	struct client *c;

	pthread_mutex_lock(&t->lock);
	c = cl_find_cid(t, clientid, true, ANY, now);
	if (c)
		p = c->cb_path;
	pthread_mutex_unlock(&t->lock);
	return p;
}

uint32_t nfs4_clients_count(struct nfs4_clients *t)
{
	uint32_t n;

	pthread_mutex_lock(&t->lock);
	n = t->count;
	pthread_mutex_unlock(&t->lock);
	return n;
}

void nfs4_clients_set_state(struct nfs4_clients *t, clientid4 clientid, bool holds)
{
	struct client *c;

	pthread_mutex_lock(&t->lock);
	for (c = t->by_cid[hash_cid(clientid) & t->mask]; c; c = c->cid_next)
		if (c->clientid == clientid && c->confirmed)
			c->holds_state = holds;
	pthread_mutex_unlock(&t->lock);
}

bool nfs4_clients_revive(struct nfs4_clients *t, clientid4 clientid, uint64_t now)
{
	struct client *c;

	pthread_mutex_lock(&t->lock);
	c = cl_find_courtesy(t, clientid, now);
	if (c)
		cl_touch(t, c, now);
	pthread_mutex_unlock(&t->lock);
	return c != NULL;
}

void nfs4_clients_sessions(struct nfs4_clients *t, clientid4 clientid, int delta)
{
	struct client *c;

	pthread_mutex_lock(&t->lock);
	for (c = t->by_cid[hash_cid(clientid) & t->mask]; c; c = c->cid_next)
		if (c->clientid == clientid && c->confirmed)
			c->sessions = (uint32_t)((int)c->sessions + delta);
	pthread_mutex_unlock(&t->lock);
}
