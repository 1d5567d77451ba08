/* SPDX-License-Identifier: MIT */
/*
 * The table of open and lock state (state.h): owners, stateids and
 * their seqids, clients' state dropped and remembered. The open
 * operations on it are state_open.c's, the locks state_lock.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "nfs4/state_internal.h"
#include "util/lock.h"

uint32_t state_hash(uint64_t x)
{
	x *= 0x9e3779b97f4a7c15ull;
	return (uint32_t)(x >> 40) & (BUCKETS - 1);
}

static uint32_t hash_owner(clientid4 cid, uint8_t kind, const uint8_t *d, uint32_t len)
{
	uint32_t h = 2166136261u;   /* FNV-1a */
	uint32_t i;

	for (i = 0; i < len; i++)
		h = (h ^ d[i]) * 16777619u;
	return state_hash(cid ^ h ^ kind);
}

static uint32_t hash_file(const struct nfs4_file_id *f)
{
	return state_hash((uint64_t)f->ino * 31u + (uint64_t)f->dev);
}

bool nfs4_stateid_anonymous(const struct stateid4 *sid)
{
	static const uint8_t zero[NFS4_OTHER_SIZE];

	return sid->seqid == 0 && memcmp(sid->other, zero, sizeof(zero)) == 0;
}

bool nfs4_stateid_bypass(const struct stateid4 *sid)
{
	static const uint8_t ones[NFS4_OTHER_SIZE] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};

	return sid->seqid == 0xffffffffu && memcmp(sid->other, ones, sizeof(ones)) == 0;
}

struct nfs4_state *nfs4_state_new(uint32_t tag)
{
	struct nfs4_state *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	if (lock_init_short(&t->lock) != 0) {
		free(t);
		return NULL;
	}
	t->tag = tag;
	t->next_id = 1;
	return t;
}

void state_seq_reset(struct nfs4_seq *q)
{
	q->ow = NULL;
	q->replay = false;
	q->reply_len = 0;
	q->fh_len = 0;
}

static void owner_free(struct nfs4_owner *o)
{
	free(o->reply);
	free(o);
}

void nfs4_state_free(struct nfs4_state *t)
{
	uint32_t i;

	if (!t)
		return;
	for (i = 0; i < BUCKETS; i++) {
		while (t->stids[i]) {
			struct stid *s = t->stids[i];

			t->stids[i] = s->hnext;
			state_ranges_free(t, s);
			free(s->deleg);
			free(s);
		}
		/* pins are not let go of: at shutdown the open-object
		 * cache has closed their nodes already (export_fini) */
		while (t->files[i]) {
			struct file *f = t->files[i];

			t->files[i] = f->hnext;
			free(f);
		}
		while (t->owners[i]) {
			struct nfs4_owner *o = t->owners[i];

			t->owners[i] = o->hnext;
			owner_free(o);
		}
		while (t->clients[i]) {
			struct client *c = t->clients[i];

			t->clients[i] = c->hnext;
			free(c);
		}
	}
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* ---- lookups (the lock held) ---- */

struct client *state_client_get(struct nfs4_state *t, clientid4 id, bool make)
{
	struct client **pp = &t->clients[state_hash(id)], *c;

	for (c = *pp; c; c = c->hnext)
		if (c->id == id)
			return c;
	if (!make || !(c = calloc(1, sizeof(*c))))
		return NULL;
	c->id = id;
	c->hnext = *pp;
	*pp = c;
	return c;
}

/* The parts of a stateid's "other": the table's tag, the low half of
 * the client's clientid, the stateid's own id (knfsd's layout: a
 * stateid no longer known still says whose it was). */
static void other_parts(const struct stateid4 *sid, uint32_t *tag, uint32_t *client,
			uint32_t *id)
{
	memcpy(tag, sid->other, 4);
	memcpy(client, sid->other + 4, 4);
	memcpy(id, sid->other + 8, 4);
}

static struct stid *stid_find(struct nfs4_state *t, uint32_t client, uint32_t id)
{
	struct stid *s;

	for (s = t->stids[state_hash(id)]; s; s = s->hnext)
		if (s->id == id)
			return (uint32_t)s->ow->cl->id == client ? s : NULL;
	return NULL;
}

void state_stid_out(const struct nfs4_state *t, const struct stid *s, struct stateid4 *out)
{
	uint32_t client = (uint32_t)s->ow->cl->id, id = (uint32_t)s->id;

	out->seqid = s->seqid;
	memcpy(out->other, &t->tag, 4);
	memcpy(out->other + 4, &client, 4);
	memcpy(out->other + 8, &id, 4);
}

struct file *state_file_get(struct nfs4_state *t, const struct nfs4_file_id *id, bool make)
{
	struct file **pp = &t->files[hash_file(id)], *f;

	for (f = *pp; f; f = f->hnext)
		if (f->id.dev == id->dev && f->id.ino == id->ino)
			return f;
	if (!make || !(f = calloc(1, sizeof(*f))))
		return NULL;
	f->id = *id;
	f->hnext = *pp;
	*pp = f;
	return f;
}

void state_file_put(struct nfs4_state *t, struct file *f)
{
	struct file **pp;

	if (f->opens || f->locks || f->delegs)
		return;
	for (pp = &t->files[hash_file(&f->id)]; *pp != f; pp = &(*pp)->hnext)
		;
	*pp = f->hnext;
	if (f->pin && t->unpin)
		t->unpin(f->pin);
	free(f);
}

/* Take stateid @s off its file (its reservation or locks end). */
void state_stid_unfile(struct nfs4_state *t, struct stid *s)
{
	struct stid **pp;

	pp = s->deleg ? &s->f->delegs : s->lock ? &s->f->locks : &s->f->opens;
	for (; *pp != s; pp = &(*pp)->fnext)
		;
	*pp = s->fnext;
	state_file_put(t, s->f);
	s->f = NULL;
}

/* Unlink stateid @s from everything and free it. */
void state_stid_drop(struct nfs4_state *t, struct stid *s)
{
	struct stid **pp;

	for (pp = &t->stids[state_hash(s->id)]; *pp != s; pp = &(*pp)->hnext)
		;
	*pp = s->hnext;
	if (s->closed) {
		s->ow->closed = NULL;
	} else {
		for (pp = &s->ow->stids; *pp != s; pp = &(*pp)->snext)
			;
		*pp = s->snext;
		if (!s->lock && !s->deleg) {
			state_locks_of_open_drop(t, s);
			t->nopens--;
		}
		if (s->lock)
			t->nlocks--;
		if (s->deleg)
			state_deleg_gone(t, s);
		if (s->f)
			state_stid_unfile(t, s);
	}
	state_ranges_free(t, s);
	free(s->deleg);
	if (--s->ow->cl->nstids == 0 && t->holds)
		t->holds(s->ow->cl->id, false);
	t->nstids--;
	free(s);
}

static void owner_unhash(struct nfs4_state *t, struct nfs4_owner *o)
{
	struct nfs4_owner **pp;

	for (pp = &t->owners[hash_owner(o->cl->id, o->kind, o->data, o->len)]; *pp != o;
	     pp = &(*pp)->hnext)
		;
	*pp = o->hnext;
	for (pp = &o->cl->owners; *pp != o; pp = &(*pp)->cnext)
		;
	*pp = o->cnext;
	o->cl->nowners--;
	t->nowners--;
}

void state_owner_free(struct nfs4_state *t, struct nfs4_owner *o)
{
	while (o->stids)
		state_stid_drop(t, o->stids);
	if (o->closed)
		state_stid_drop(t, o->closed);
	owner_unhash(t, o);
	owner_free(o);
}

/* Make room for one more owner of @c: drop its oldest idle ones. */
static bool owner_room(struct nfs4_state *t, struct client *c)
{
	struct nfs4_owner **pp, *o, *victim;

	while (c->nowners >= NFS4_STATE_CLIENT_MAX || t->nowners >= NFS4_STATE_MAX) {
		victim = NULL;
		for (pp = &c->owners; (o = *pp); pp = &o->cnext)
			if (!o->stids && !o->refs)
				victim = o;   /* the last idle one is the oldest */
		if (!victim)
			return false;
		if (victim->closed)
			state_stid_drop(t, victim->closed);
		owner_unhash(t, victim);
		owner_free(victim);
	}
	return true;
}

struct nfs4_owner *state_owner_get(struct nfs4_state *t, clientid4 cid, uint8_t kind,
				   const uint8_t *d, uint32_t len, bool make, enum nfsstat4 *err)
{
	uint32_t h = hash_owner(cid, kind, d, len);
	struct nfs4_owner *o;
	struct client *c;

	for (o = t->owners[h]; o; o = o->hnext)
		if (o->cl->id == cid && o->kind == kind && o->len == len &&
		    memcmp(o->data, d, len) == 0)
			return o;
	*err = NFS4ERR_SERVERFAULT;
	if (!make || !(c = state_client_get(t, cid, true)))
		return NULL;
	if (!owner_room(t, c)) {
		*err = NFS4ERR_RESOURCE;
		return NULL;
	}
	o = calloc(1, sizeof(*o) + len);
	if (!o)
		return NULL;
	o->cl = c;
	o->kind = kind;
	o->fresh = true;
	o->len = len;
	memcpy(o->data, d, len);
	o->hnext = t->owners[h];
	t->owners[h] = o;
	o->cnext = c->owners;
	c->owners = o;
	c->nowners++;
	t->nowners++;
	return o;
}

/*
 * Check @seqid against @o (RFC 7530 9.1.7): the next one goes on, the
 * last one is a replay (q->replay, with the result kept), anything else
 * is BAD_SEQID. A fresh owner takes whatever seqid comes first.
 */
enum nfsstat4 state_seq_check(struct nfs4_owner *o, uint32_t seqid, struct nfs4_seq *q)
{
	if (o->fresh || seqid == o->seqid + 1)
		return NFS4_OK;
	if (seqid == o->seqid && o->reply_len) {
		q->replay = true;
		q->reply_len = o->reply_len;
		memcpy(q->reply, o->reply, o->reply_len);
		q->fh_len = o->fh_len;
		memcpy(q->fh, o->reply + NFS4_REPLAY_MAX, o->fh_len);
		return NFS4_OK;
	}
	return NFS4ERR_BAD_SEQID;
}

void state_hold(struct nfs4_state *t, struct nfs4_owner *o, struct nfs4_seq *q,
		 uint32_t seqid, bool minor0)
{
	/* a new seqid-bearing call: the last CLOSE can no longer be replayed */
	if (!q->replay && o->closed)
		state_stid_drop(t, o->closed);
	/* every replay state_seq_check finds is held here, once */
	if (q->replay)
		t->seqid_replays++;
	o->refs++;
	q->ow = o;
	q->check = minor0;
	q->seqid = seqid;
}

/* Minor version 0 runs one seqid-bearing call of an owner at a time
 * (clients send them in order; a retransmission racing its original
 * waits): knfsd's so_replay mutex, answered DELAY instead of waiting. */
bool state_busy(const struct nfs4_owner *o, bool minor0)
{
	return minor0 && o->refs > 0;
}

struct stid *state_stid_new(struct nfs4_state *t, struct nfs4_owner *o, struct file *f,
			    enum nfsstat4 *err)
{
	struct stid *s;

	if (o->cl->nstids >= NFS4_STATE_CLIENT_MAX || t->nstids >= NFS4_STATE_MAX) {
		*err = NFS4ERR_RESOURCE;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		*err = NFS4ERR_SERVERFAULT;
		return NULL;
	}
	/* ids are 32 bits on the wire; 0 is never one */
	s->id = (uint32_t)t->next_id++;
	if (s->id == 0)
		s->id = (uint32_t)t->next_id++;
	s->ow = o;
	s->f = f;
	s->hnext = t->stids[state_hash(s->id)];
	t->stids[state_hash(s->id)] = s;
	s->snext = o->stids;
	o->stids = s;
	if (o->cl->nstids++ == 0 && t->holds)
		t->holds(o->cl->id, true);
	t->nstids++;
	return s;
}

/* @sid as a stateid of this table: found, or why not. */
enum nfsstat4 state_stid_lookup(struct nfs4_state *t, const struct stateid4 *sid, struct stid **out)
{
	static const uint8_t zero[NFS4_OTHER_SIZE];
	uint8_t ones[NFS4_OTHER_SIZE];
	uint32_t tag, client, id;

	/* a special "other" with another seqid (RFC 7530 9.1.4.3) */
	memset(ones, 0xff, sizeof(ones));
	*out = NULL;
	if (memcmp(sid->other, zero, sizeof(zero)) == 0 ||
	    memcmp(sid->other, ones, sizeof(ones)) == 0)
		return NFS4ERR_BAD_STATEID;
	other_parts(sid, &tag, &client, &id);
	if (tag != t->tag)
		return NFS4ERR_STALE_STATEID;
	*out = stid_find(t, client, id);
	if (*out)
		return NFS4_OK;
	/* gone with its client's lease: EXPIRED, as knfsd answers */
	if (t->live && !t->live((clientid4)t->boot << 32 | client))
		return NFS4ERR_EXPIRED;
	return NFS4ERR_BAD_STATEID;
}

/* ... and an open or lock stateid in force (not kept only for its
 * CLOSE's replay, not a delegation). */
enum nfsstat4 state_stid_open(struct nfs4_state *t, const struct stateid4 *sid,
			       struct stid **out)
{
	enum nfsstat4 st = state_stid_lookup(t, sid, out);

	return st == NFS4_OK && ((*out)->closed || (*out)->deleg) ? NFS4ERR_BAD_STATEID : st;
}

/* The stateid's own seqid (RFC 8881 8.2.2: 0 means the current one in 4.1). */
enum nfsstat4 state_stid_seqid(const struct stid *s, const struct stateid4 *sid, bool minor0)
{
	if (sid->seqid == 0 && !minor0)
		return NFS4_OK;
	if (sid->seqid == s->seqid)
		return NFS4_OK;
	/* wrapped or ahead: never given out */
	return sid->seqid > s->seqid ? NFS4ERR_BAD_STATEID : NFS4ERR_OLD_STATEID;
}

/* Statuses after which the owner's seqid does not count (RFC 7530 9.1.7). */
static bool seqid_exempt(enum nfsstat4 st)
{
	switch (st) {
	case NFS4ERR_STALE_CLIENTID:
	case NFS4ERR_STALE_STATEID:
	case NFS4ERR_BAD_STATEID:
	case NFS4ERR_BAD_SEQID:
	case NFS4ERR_BADXDR:
	case NFS4ERR_RESOURCE:
	case NFS4ERR_NOFILEHANDLE:
	case NFS4ERR_MOVED:
		return true;
	default:
		return false;
	}
}

void nfs4_state_seq_end(struct nfs4_state *t, struct nfs4_seq *q, enum nfsstat4 status,
			const uint8_t *res, uint32_t len)
{
	struct nfs4_owner *o = q->ow;

	if (!o)
		return;
	pthread_mutex_lock(&t->lock);
	if (q->check && !q->replay && !seqid_exempt(status) && o->cl) {
		o->seqid = q->seqid;
		o->fresh = false;
		o->reply_len = 0;
		if (res && len <= NFS4_REPLAY_MAX) {
			if (!o->reply)
				o->reply = malloc(NFS4_REPLAY_MAX + NFS4_FHSIZE);
			if (o->reply && q->fh_len <= NFS4_FHSIZE) {
				memcpy(o->reply, res, len);
				o->reply_len = len;
				memcpy(o->reply + NFS4_REPLAY_MAX, q->fh, q->fh_len);
				o->fh_len = q->fh_len;
			}
		}
	}
	/* an owner purged while held is freed by its last holder */
	if (--o->refs == 0 && !o->cl)
		owner_free(o);
	pthread_mutex_unlock(&t->lock);
	q->ow = NULL;
}

/* Drop client @c's state (the lock held). */
void state_purge(struct nfs4_state *t, struct client *c)
{
	struct client **pp;
	struct nfs4_owner *o;

	for (pp = &t->clients[state_hash(c->id)]; *pp != c; pp = &(*pp)->hnext)
		;
	while ((o = c->owners)) {
		while (o->stids)
			state_stid_drop(t, o->stids);
		if (o->closed)
			state_stid_drop(t, o->closed);
		owner_unhash(t, o);
		/* a call holding it still ends on it: keep it until then
		 * (it is no longer reachable) */
		if (o->refs) {
			o->cl = NULL;
			continue;
		}
		owner_free(o);
	}
	*pp = c->hnext;
	free(c);
}

/* @sid as a usable stateid of @clientid (the lock held); a revoked
 * delegation is DELEG_REVOKED (RFC 8881 18.48.3). */
static enum nfsstat4 own_stid(struct nfs4_state *t, clientid4 clientid,
			      const struct stateid4 *sid, struct stid **s)
{
	enum nfsstat4 st = state_stid_lookup(t, sid, s);

	if (st == NFS4_OK && ((*s)->closed || (*s)->ow->cl->id != clientid))
		st = NFS4ERR_BAD_STATEID;
	if (st == NFS4_OK)
		st = state_stid_seqid(*s, sid, false);
	if (st == NFS4_OK && (*s)->deleg && (*s)->deleg->state == DELEG_REVOKED)
		st = NFS4ERR_DELEG_REVOKED;
	return st;
}

/* TEST_STATEID (@free false) or FREE_STATEID of @sid by @clientid: a
 * lock stateid without locks goes, and a revoked delegation (RFC 8881
 * 18.38.3); an open stateid or a delegation in force is LOCKS_HELD. */
static enum nfsstat4 own_op(struct nfs4_state *t, clientid4 clientid,
			    const struct stateid4 *sid, bool free_it)
{
	enum nfsstat4 st;
	struct stid *s;

	pthread_mutex_lock(&t->lock);
	st = own_stid(t, clientid, sid, &s);
	if (free_it && st == NFS4ERR_DELEG_REVOKED) {
		state_stid_drop(t, s);
		st = NFS4_OK;
	} else if (free_it && st == NFS4_OK && (!s->lock || s->ranges)) {
		st = NFS4ERR_LOCKS_HELD;
	} else if (free_it && st == NFS4_OK) {
		state_stid_drop(t, s);
	}
	pthread_mutex_unlock(&t->lock);
	return st;
}

enum nfsstat4 nfs4_state_test(struct nfs4_state *t, clientid4 clientid,
			      const struct stateid4 *sid)
{
	return own_op(t, clientid, sid, false);
}

enum nfsstat4 nfs4_state_free_stateid(struct nfs4_state *t, clientid4 clientid,
				      const struct stateid4 *sid)
{
	return own_op(t, clientid, sid, true);
}

enum nfsstat4 nfs4_state_known(struct nfs4_state *t, const struct stateid4 *sid)
{
	enum nfsstat4 st;
	struct stid *s;

	pthread_mutex_lock(&t->lock);
	st = state_stid_lookup(t, sid, &s);
	pthread_mutex_unlock(&t->lock);
	return st;
}

void nfs4_state_purge_client(struct nfs4_state *t, clientid4 clientid)
{
	struct client *c;

	pthread_mutex_lock(&t->lock);
	c = state_client_get(t, clientid, false);
	if (c)
		state_purge(t, c);
	pthread_mutex_unlock(&t->lock);
}

void nfs4_state_set_holds(struct nfs4_state *t, void (*holds)(clientid4 clientid, bool holds))
{
	pthread_mutex_lock(&t->lock);
	t->holds = holds;
	pthread_mutex_unlock(&t->lock);
}

void nfs4_state_set_unpin(struct nfs4_state *t, void (*unpin)(void *obj))
{
	pthread_mutex_lock(&t->lock);
	t->unpin = unpin;
	pthread_mutex_unlock(&t->lock);
}

bool nfs4_state_file_pin(struct nfs4_state *t, const struct nfs4_file_id *fid, void *obj)
{
	struct file *f;
	bool took = false;

	pthread_mutex_lock(&t->lock);
	f = state_file_get(t, fid, false);
	if (f && f->opens && !f->pin && t->unpin) {
		f->pin = obj;
		took = true;
	}
	pthread_mutex_unlock(&t->lock);
	return took;
}

void nfs4_state_set_live(struct nfs4_state *t, bool (*live)(clientid4 clientid),
			 uint32_t boot)
{
	pthread_mutex_lock(&t->lock);
	t->live = live;
	t->boot = boot;
	pthread_mutex_unlock(&t->lock);
}

/* Drop client @c's state, lost to its lease: remembered so that its
 * next call hears EXPIRED (the oldest forgotten past REAPED_MAX). */
static void reap(struct nfs4_state *t, struct client *c)
{
	t->reaped[t->nreaped++ % REAPED_MAX] = c->id;
	state_purge(t, c);
}

bool state_reap(struct nfs4_state *t, const struct nfs4_owner *holder)
{
	if (!t->live || !holder->cl || t->live(holder->cl->id))
		return false;
	reap(t, holder->cl);
	return true;
}

bool nfs4_state_reaped(struct nfs4_state *t, clientid4 clientid)
{
	bool found = false;
	uint32_t i, n;

	/* 0 marks a slot already heard; no client has it (pynfs RENEW2) */
	if (!clientid)
		return false;
	pthread_mutex_lock(&t->lock);
	n = t->nreaped < REAPED_MAX ? t->nreaped : REAPED_MAX;
	for (i = 0; i < n && !found; i++)
		if (t->reaped[i] == clientid) {
			t->reaped[i] = 0;
			found = true;
		}
	pthread_mutex_unlock(&t->lock);
	return found;
}

bool state_reap_all(struct nfs4_state *t)
{
	struct client *c, *next;
	bool any = false;
	uint32_t i;

	if (!t->live)
		return false;
	for (i = 0; i < BUCKETS; i++)
		for (c = t->clients[i]; c; c = next) {
			next = c->hnext;
			if (!t->live(c->id)) {
				reap(t, c);
				any = true;
			}
		}
	return any;
}

uint32_t nfs4_state_client_count(struct nfs4_state *t, clientid4 clientid)
{
	struct client *c;
	uint32_t n;

	pthread_mutex_lock(&t->lock);
	c = state_client_get(t, clientid, false);
	n = c ? c->nstids : 0;
	pthread_mutex_unlock(&t->lock);
	return n;
}

void nfs4_state_get_counts(struct nfs4_state *t, struct nfs4_state_counts *out)
{
	pthread_mutex_lock(&t->lock);
	out->opens = t->nopens;
	out->locks = t->nlocks;
	out->delegations = t->ndelegs;
	out->seqid_replays = t->seqid_replays;
	pthread_mutex_unlock(&t->lock);
}
