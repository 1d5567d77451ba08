/* SPDX-License-Identifier: MIT */
/*
 * NFSv4.0 and 4.1 client records: see clients.h. The behaviour follows
 * RFC 7530 16.33.5 and 16.34.5, and RFC 8881 18.35.5 and 18.36.4, case
 * by case, with knfsd's nfsd4_setclientid(), nfsd4_setclientid_confirm(),
 * nfsd4_exchange_id() and nfsd4_create_session() as the reference where
 * the RFCs leave a choice.
 */
#include <pthread.h>
#include <sodium.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nfs4/clients.h"

/* Expired records freed per call at most, so no call pays for many. */
#define SWEEP_MAX 8u

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
	struct client *oldest, *newest;
	struct client **by_name;
	struct client **by_cid;
};

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
	if (!t->by_name || !t->by_cid || pthread_mutex_init(&t->lock, NULL) != 0) {
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

static bool same_principal(const struct nfs4_principal *a, const struct nfs4_principal *b)
{
	if (a->flavor != b->flavor)
		return false;
	return a->flavor != 1 /* AUTH_SYS */ || a->uid == b->uid;
}

static bool same_verf(const verifier4 *a, const verifier4 *b)
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
static void touch(struct nfs4_clients *t, struct client *c, uint64_t now)
{
	/* Callers' clocks are read before the lock is taken: never let a
	 * renewal move a record's time backwards. */
	if (now > c->renewed)
		c->renewed = now;
	lru_unlink(t, c);
	lru_append(t, c);
}

static void insert(struct nfs4_clients *t, struct client *c)
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
static void drop(struct nfs4_clients *t, struct client *c)
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
static bool in_use(const struct client *c)
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
			drop(t, c);
			i++;
		}
	}
}

static void sweep(struct nfs4_clients *t, uint64_t now)
{
	sweep_some(t, now, false);
}

/* Is the table full, even once courtesy records made room? */
static bool full(struct nfs4_clients *t, uint64_t now)
{
	if (t->count >= t->max)
		sweep_some(t, now, true);
	return t->count >= t->max;
}

/* The live record of id @id with confirmation @confirmed of minor
 * version 1 (@v41) or 0, or NULL; dead ones met on the way are freed. */
static struct client *find_name(struct nfs4_clients *t, const uint8_t *id, uint32_t len,
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
			drop(t, c);
			continue;
		}
		if (c->confirmed == confirmed && c->v41 == v41)
			return c;
	}
	return NULL;
}

/* Which records find_cid() looks at: of one minor version, or both
 * (clientids are unique across them). */
enum which { V40, V41, ANY };

/* The live record of clientid @cid with confirmation @confirmed, or NULL. */
static struct client *find_cid(struct nfs4_clients *t, clientid4 cid, bool confirmed,
			       enum which w, uint64_t now)
{
	struct client *c = t->by_cid[hash_cid(cid) & t->mask], *next;

	for (; c; c = next) {
		next = c->cid_next;
		if (c->clientid != cid)
			continue;
		if (courtesy(t, c, now))
			continue;
		if (expired(t, c, now)) {
			drop(t, c);
			continue;
		}
		if (c->confirmed == confirmed && (w == ANY || c->v41 == (w == V41)))
			return c;
	}
	return NULL;
}

/* The courtesy record of @cid, or NULL. */
static struct client *find_courtesy(struct nfs4_clients *t, clientid4 cid, uint64_t now)
{
	struct client *c;

	for (c = t->by_cid[hash_cid(cid) & t->mask]; c; c = c->cid_next)
		if (c->clientid == cid && courtesy(t, c, now))
			return c;
	return NULL;
}

/* A clientid no record has: the counter may have wrapped round. */
static clientid4 new_clientid(struct nfs4_clients *t)
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
	sweep(t, now);
	conf = find_name(t, id, id_len, true, false, now);
	if (conf && !same_principal(&conf->who, who)) {
		/* another principal's live client of that name: INUSE while
		 * it holds state, else this one takes the name (a new
		 * clientid; the old record goes at the confirmation), as
		 * knfsd (pynfs CID2) */
		if (in_use(conf)) {
			st = NFS4ERR_CLID_INUSE;
			goto out;
		}
		conf = NULL;
	}
	/* Any unconfirmed record of the name is replaced by this one. */
	unconf = find_name(t, id, id_len, false, false, now);
	if (unconf)
		drop(t, unconf);
	if (full(t, now)) {
		st = NFS4ERR_RESOURCE;
		goto out;
	}
	/* Same verifier: a callback update of the confirmed client, which
	 * keeps its clientid. A new verifier (the client rebooted) or a
	 * new name: a new clientid; a confirmed record of the old
	 * incarnation goes when this one is confirmed. */
	if (conf && same_verf(&conf->verf, verf)) {
		c->clientid = conf->clientid;
		/* a new confirm verifier, never the one in use */
		while (same_verf(&c->confirm, &conf->confirm))
			randombytes_buf(c->confirm.val, sizeof(c->confirm.val));
	} else {
		c->clientid = new_clientid(t);
	}
	insert(t, c);
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
	sweep(t, now);
	conf = find_cid(t, clientid, true, V40, now);
	unconf = find_cid(t, clientid, false, V40, now);
	/* RFC 7530 16.34.5 recommends CLID_INUSE for a confirm by another
	 * principal than the SETCLIENTID's. */
	if ((unconf && !same_principal(&unconf->who, who)) ||
	    (conf && !same_principal(&conf->who, who))) {
		st = NFS4ERR_CLID_INUSE;
		goto out;
	}
	if (!unconf || !same_verf(&unconf->confirm, confirm)) {
		/* A retransmitted confirm of a record already confirmed
		 * is answered as the first one was. */
		if (conf && same_verf(&conf->confirm, confirm))
			touch(t, conf, now);
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
		drop(t, unconf);
		touch(t, conf, now);
		goto out;
	}
	old = find_name(t, unconf->id, unconf->id_len, true, false, now);
	if (old) {
		/* A confirmed record of the same name under another
		 * clientid: the client's earlier incarnation, replaced now
		 * (with its state), unless another principal holds it
		 * alive. */
		if (!same_principal(&old->who, &unconf->who) && in_use(old)) {
			st = NFS4ERR_CLID_INUSE;
			goto out;
		}
		drop(t, old);
	}
	unconf->confirmed = true;
	unconf->cb_path = NFS4_CB_PATH_UNKNOWN;
	unconf->cb_gen = ++t->cb_gen;
	if (t->record)
		t->record(unconf->id, unconf->id_len, true);
	touch(t, unconf, now);
out:
	pthread_mutex_unlock(&t->lock);
	return st;
}

enum nfsstat4 nfs4_clients_renew(struct nfs4_clients *t, clientid4 clientid, uint64_t now)
{
	struct client *c;
	enum nfsstat4 st = NFS4_OK;

	pthread_mutex_lock(&t->lock);
	sweep(t, now);
	/* either version: a stateful operation of 4.1 may renew too */
	c = find_cid(t, clientid, true, ANY, now);
	if (!c)
		c = find_courtesy(t, clientid, now);
	if (c)
		touch(t, c, now);
	else
		st = NFS4ERR_STALE_CLIENTID;
	pthread_mutex_unlock(&t->lock);
	return st;
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
	c = find_cid(t, clientid, true, ANY, now);
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
	c = find_cid(t, clientid, true, ANY, now);
	done = c && c->reclaimed;
	pthread_mutex_unlock(&t->lock);
	return done;
}

bool nfs4_clients_live(struct nfs4_clients *t, clientid4 clientid, uint64_t now)
{
	bool live;

	pthread_mutex_lock(&t->lock);
	live = find_cid(t, clientid, true, ANY, now) != NULL;
	pthread_mutex_unlock(&t->lock);
	return live;
}

/* A new unconfirmed 4.1 record, not yet in the table, or NULL. */
static struct client *new41(const uint8_t *id, uint32_t id_len, const verifier4 *verf,
			    const struct nfs4_principal *who, uint64_t now)
{
	struct client *c = calloc(1, sizeof(*c) + id_len);

	if (!c)
		return NULL;
	if (id_len)
		memcpy(c->id, id, id_len);
	c->id_len = id_len;
	c->verf = *verf;
	c->who = *who;
	c->renewed = now;
	c->v41 = true;
	/* the first CREATE_SESSION's seqid is 1 (as knfsd's) */
	c->cs_seqid = 0;
	return c;
}

enum nfsstat4 nfs4_clients_exchange_id(struct nfs4_clients *t, const uint8_t *id,
				       uint32_t id_len, const verifier4 *verf,
				       const struct nfs4_principal *who, bool update,
				       uint64_t now, struct nfs4_exid *out)
{
	struct client *conf, *unconf, *c = NULL;
	enum nfsstat4 st = NFS4_OK;

	if (id_len > NFS4_OPAQUE_LIMIT)
		return NFS4ERR_INVAL;
	pthread_mutex_lock(&t->lock);
	sweep(t, now);
	conf = find_name(t, id, id_len, true, true, now);
	if (update) {
		/* cases 6 to 9: an update of the confirmed record only */
		if (!conf)
			st = NFS4ERR_NOENT;
		else if (!same_principal(&conf->who, who))
			st = NFS4ERR_PERM;
		else if (!same_verf(&conf->verf, verf))
			st = NFS4ERR_NOT_SAME;
		else
			c = conf;
		goto out;
	}
	if (conf && !same_principal(&conf->who, who)) {
		/* case 3: another principal's live client of that owner:
		 * INUSE while it has state or a session, else it is
		 * replaced at once (knfsd; pynfs EID5e, EID5g) */
		if (in_use(conf)) {
			st = NFS4ERR_CLID_INUSE;
			goto out;
		}
		drop(t, conf);
		conf = NULL;
	}
	if (conf && same_verf(&conf->verf, verf)) {
		/* case 2: the client asks again, its record stays */
		c = conf;
		goto out;
	}
	/* Cases 1, 4 and 5: a new unconfirmed record with a new clientid
	 * replaces any unconfirmed one; a confirmed record of an earlier
	 * verifier (the client rebooted) stays until the new one is
	 * confirmed by CREATE_SESSION. */
	unconf = find_name(t, id, id_len, false, true, now);
	if (unconf)
		drop(t, unconf);
	/* 4.1 has no RESOURCE: DELAY, as knfsd, until leases run out */
	if (full(t, now)) {
		st = NFS4ERR_DELAY;
		goto out;
	}
	c = new41(id, id_len, verf, who, now);
	if (!c) {
		st = NFS4ERR_DELAY;
		goto out;
	}
	c->clientid = new_clientid(t);
	insert(t, c);
out:
	if (c) {
		out->clientid = c->clientid;
		out->seqid = c->cs_seqid + 1;
		out->confirmed = c->confirmed;
	}
	pthread_mutex_unlock(&t->lock);
	return st;
}

enum nfsstat4 nfs4_clients_cs_check(struct nfs4_clients *t, clientid4 clientid,
				    sequenceid4 seqid, const struct nfs4_principal *who,
				    uint64_t now, bool *replay,
				    struct CREATE_SESSION4res *cached)
{
	struct client *c;
	enum nfsstat4 st = NFS4_OK;

	*replay = false;
	pthread_mutex_lock(&t->lock);
	sweep(t, now);
	c = find_cid(t, clientid, false, V41, now);
	if (!c)
		c = find_cid(t, clientid, true, V41, now);
	if (!c)
		st = NFS4ERR_STALE_CLIENTID;
	/* another principal: refused before the confirmation only, as
	 * knfsd checks a confirmed client's machine credential alone
	 * (pynfs CSESS9, CSESS10) */
	else if (!c->confirmed && !same_principal(&c->who, who))
		st = NFS4ERR_CLID_INUSE;
	else if (seqid == (sequenceid4)(c->cs_seqid + 1))
		st = NFS4_OK;
	else if (c->confirmed && c->cs_cached && seqid == c->cs_seqid)
		*replay = true;
	else
		/* an unconfirmed record has no reply to replay: as knfsd */
		st = NFS4ERR_SEQ_MISORDERED;
	if (*replay)
		*cached = c->cs_res;
	pthread_mutex_unlock(&t->lock);
	return st;
}

enum nfsstat4 nfs4_clients_cs_done(struct nfs4_clients *t, clientid4 clientid,
				   sequenceid4 seqid, const struct CREATE_SESSION4res *res,
				   uint64_t now)
{
	struct client *c, *old;
	enum nfsstat4 st = NFS4_OK;

	pthread_mutex_lock(&t->lock);
	c = find_cid(t, clientid, true, V41, now);
	if (!c) {
		c = find_cid(t, clientid, false, V41, now);
		if (c) {
			/* the earlier incarnation goes, with its state
			 * (its sessions die when next used) */
			old = find_name(t, c->id, c->id_len, true, true, now);
			if (old)
				drop(t, old);
			c->confirmed = true;
			if (t->record)
				t->record(c->id, c->id_len, true);
		}
	}
	if (c) {
		c->cs_seqid = seqid;
		c->cs_res = *res;
		c->cs_res.u.csr_resok4.csr_fore_chan_attrs.ca_rdma_ird.len = 0;
		c->cs_res.u.csr_resok4.csr_fore_chan_attrs.ca_rdma_ird.val = NULL;
		c->cs_res.u.csr_resok4.csr_back_chan_attrs.ca_rdma_ird.len = 0;
		c->cs_res.u.csr_resok4.csr_back_chan_attrs.ca_rdma_ird.val = NULL;
		c->cs_cached = true;
		touch(t, c, now);
	} else {
		st = NFS4ERR_STALE_CLIENTID;
	}
	pthread_mutex_unlock(&t->lock);
	return st;
}

bool nfs4_clients_alive(struct nfs4_clients *t, clientid4 clientid, uint64_t now)
{
	bool alive;

	pthread_mutex_lock(&t->lock);
	alive = find_cid(t, clientid, true, V41, now) != NULL;
	pthread_mutex_unlock(&t->lock);
	return alive;
}

enum nfsstat4 nfs4_clients_reclaim_complete(struct nfs4_clients *t, clientid4 clientid,
					    uint64_t now)
{
	struct client *c;
	enum nfsstat4 st = NFS4_OK;

	pthread_mutex_lock(&t->lock);
	c = find_cid(t, clientid, true, V41, now);
	if (!c)
		st = NFS4ERR_STALE_CLIENTID;
	else if (c->reclaimed)
		st = NFS4ERR_COMPLETE_ALREADY;
	else
		c->reclaimed = true;
	pthread_mutex_unlock(&t->lock);
	return st;
}

enum nfsstat4 nfs4_clients_destroy(struct nfs4_clients *t, clientid4 clientid, uint64_t now)
{
	struct client *c;
	enum nfsstat4 st = NFS4ERR_STALE_CLIENTID;

	pthread_mutex_lock(&t->lock);
	sweep(t, now);
	while ((c = find_cid(t, clientid, true, V41, now)) ||
	       (c = find_cid(t, clientid, false, V41, now))) {
		drop(t, c);
		st = NFS4_OK;
	}
	pthread_mutex_unlock(&t->lock);
	return st;
}

bool nfs4_clients_cb_target(struct nfs4_clients *t, clientid4 clientid, uint64_t now,
			    struct nfs4_cb_target *out)
{
	struct client *c;

	pthread_mutex_lock(&t->lock);
	c = find_cid(t, clientid, true, ANY, now);
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
	c = find_cid(t, clientid, true, ANY, now);
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
	c = find_courtesy(t, clientid, now);
	if (c)
		touch(t, c, now);
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
