/* SPDX-License-Identifier: MIT */
/*
 * NFSv4.1 sessions: see sessions.h. The table, CREATE_SESSION, the
 * DESTROYs, BIND_CONN_TO_SESSION and the back channel; the fore
 * channel's slots (SEQUENCE) are sessions_seq.c's.
 */
#include <pthread.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "nfs4/sessions.h"
#include "nfs4/sessions_internal.h"
#include "util/lock.h"

/* Dead sessions freed at most by one CREATE_SESSION on a full table. */
#define SWEEP_MAX 16u

/*
 * The ids are the server's (clientid, counter, random bytes): the two
 * halves folded and mixed once spread them, in a few instructions, as
 * every SEQUENCE looks one up.
 */
static uint32_t hash_id(const sessionid4 *id)
{
	uint64_t lo, hi, h;

	_Static_assert(sizeof(id->val) == 16, "a session id is 16 bytes");
	memcpy(&lo, id->val, 8);
	memcpy(&hi, id->val + 8, 8);
	h = (lo ^ hi * 0x9e3779b97f4a7c15ull) * 0xff51afd7ed558ccdull;
	return (uint32_t)(h >> 32) % BUCKETS;
}

struct nfs4_sessions *nfs4_sessions_new(struct nfs4_clients *clients, uint32_t max)
{
	struct nfs4_sessions *t = calloc(1, sizeof(*t));

	if (!t || sodium_init() < 0 || lock_init_short(&t->lock) != 0) {
		free(t);
		return NULL;
	}
	t->clients = clients;
	t->max = max;
	t->counter = randombytes_random();
	return t;
}

static void session_free(struct nfs4_session *s)
{
	uint32_t i;

	for (i = 0; i < s->nslots; i++)
		free(s->slots[i].reply);
	if (s->back_ref)
		s->back_put(s->back_ref);
	free(s);
}

void nfs4_sessions_free(struct nfs4_sessions *t)
{
	struct nfs4_session *s, *next;

	if (!t)
		return;
	for (s = t->oldest; s; s = next) {
		next = s->newer;
		session_free(s);
	}
	pthread_mutex_destroy(&t->lock);
	free(t);
}

void ss_lru_unlink(struct nfs4_sessions *t, struct nfs4_session *s)
{
	if (s->older)
		s->older->newer = s->newer;
	else
		t->oldest = s->newer;
	if (s->newer)
		s->newer->older = s->older;
	else
		t->newest = s->older;
	s->older = s->newer = NULL;
}

void ss_lru_append(struct nfs4_sessions *t, struct nfs4_session *s)
{
	s->older = t->newest;
	s->newer = NULL;
	if (t->newest)
		t->newest->newer = s;
	else
		t->oldest = s;
	t->newest = s;
}

void ss_put(struct nfs4_session *s)
{
	if (--s->refs == 0)
		session_free(s);
}

/* Take @s out of the table; it is freed once no slot of it is busy. */
void ss_unlink(struct nfs4_sessions *t, struct nfs4_session *s)
{
	struct nfs4_session **p;

	for (p = &t->by_id[hash_id(&s->id)]; *p != s; p = &(*p)->hnext)
		;
	*p = s->hnext;
	ss_lru_unlink(t, s);
	s->linked = false;
	t->count--;
	nfs4_clients_sessions(t->clients, s->clientid, -1);
	ss_put(s);
}

struct nfs4_session *ss_find(struct nfs4_sessions *t, const sessionid4 *id)
{
	struct nfs4_session *s;

	for (s = t->by_id[hash_id(id)]; s; s = s->hnext)
		if (memcmp(s->id.val, id->val, sizeof(id->val)) == 0)
			return s;
	return NULL;
}

/* A live session @id, or NULL; a session whose client is gone is freed. */
struct nfs4_session *ss_find_live(struct nfs4_sessions *t, const sessionid4 *id,
				      uint64_t now)
{
	struct nfs4_session *s = ss_find(t, id);

	/* a courtesy client's call on its session revives it */
	if (s && !nfs4_clients_alive(t->clients, s->clientid, now) &&
	    !nfs4_clients_revive(t->clients, s->clientid, now)) {
		ss_unlink(t, s);
		s = NULL;
	}
	return s;
}

/* Free up to SWEEP_MAX sessions of clients that are gone, oldest first;
 * live ones met are moved to the new end, so the next sweep goes on. */
static void sweep(struct nfs4_sessions *t, uint64_t now)
{
	uint32_t i;

	for (i = 0; i < SWEEP_MAX && t->oldest; i++) {
		struct nfs4_session *s = t->oldest;

		if (nfs4_clients_alive(t->clients, s->clientid, now)) {
			ss_lru_unlink(t, s);
			ss_lru_append(t, s);
		} else {
			ss_unlink(t, s);
		}
	}
}

enum nfsstat4 nfs4_sessions_exchange_id(struct nfs4_sessions *t, const uint8_t *id,
					uint32_t id_len, const verifier4 *verf,
					const struct nfs4_principal *who, bool update,
					uint64_t now, struct nfs4_exid *out)
{
	enum nfsstat4 st;

	pthread_mutex_lock(&t->lock);
	st = nfs4_clients_exchange_id(t->clients, id, id_len, verf, who, update, now, out);
	pthread_mutex_unlock(&t->lock);
	return st;
}

static uint32_t min32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* The fore channel's attributes from the client's @in. */
static enum nfsstat4 fore_attrs(const struct channel_attrs4 *in, uint32_t max_record,
				struct channel_attrs4 *out)
{
	uint32_t per;

	memset(out, 0, sizeof(*out));
	out->ca_maxrequestsize = min32(in->ca_maxrequestsize, max_record);
	out->ca_maxresponsesize = min32(in->ca_maxresponsesize, max_record);
	if (out->ca_maxrequestsize < NFS4_SESSION_MIN_REQ ||
	    out->ca_maxresponsesize < NFS4_SESSION_MIN_RESP ||
	    in->ca_maxoperations == 0 || in->ca_maxrequests == 0)
		return NFS4ERR_TOOSMALL;
	out->ca_maxresponsesize_cached = min32(min32(in->ca_maxresponsesize_cached,
						     NFS4_SLOT_CACHE_MAX),
					       out->ca_maxresponsesize);
	out->ca_maxoperations = min32(in->ca_maxoperations, NFS4_SESSION_OPS_MAX);
	/* slots cut so that their caches fit the session's bound */
	per = out->ca_maxresponsesize_cached ? out->ca_maxresponsesize_cached : 1;
	out->ca_maxrequests = min32(min32(in->ca_maxrequests, NFS4_SESSION_SLOTS),
				    NFS4_SESSION_CACHE_MAX / per);
	return NFS4_OK;
}

/* The back channel's: the client's limits for the server's callbacks,
 * kept as asked but for the slots. */
static enum nfsstat4 back_attrs(const struct channel_attrs4 *in, struct channel_attrs4 *out)
{
	memset(out, 0, sizeof(*out));
	if (in->ca_maxrequests == 0 || in->ca_maxoperations < NFS4_BACK_MIN_OPS ||
	    in->ca_maxrequestsize < NFS4_BACK_MIN_REQ || in->ca_maxresponsesize < NFS4_BACK_MIN_RESP)
		return NFS4ERR_TOOSMALL;
	out->ca_maxrequestsize = in->ca_maxrequestsize;
	out->ca_maxresponsesize = in->ca_maxresponsesize;
	out->ca_maxresponsesize_cached = in->ca_maxresponsesize_cached;
	out->ca_maxoperations = in->ca_maxoperations;
	out->ca_maxrequests = min32(in->ca_maxrequests, NFS4_BACK_SLOTS);
	return NFS4_OK;
}

/* RFC 5531's flavour numbers (no RPC header is written here). */
#define AUTH_NONE_FLAVOR 0u
#define AUTH_SYS_FLAVOR 1u

/* The credential of the callbacks: the first of the client's choices
 * the server can send (AUTH_NONE or AUTH_SYS; RPCSEC_GSS is not). */
static void cb_sec(struct nfs4_session *s, const struct callback_sec_parms4 *p, uint32_t n)
{
	uint32_t i;

	s->cb_flavor = AUTH_NONE_FLAVOR;
	for (i = 0; i < n; i++) {
		if (p[i].cb_secflavor == AUTH_NONE_FLAVOR)
			return;
		if (p[i].cb_secflavor == AUTH_SYS_FLAVOR) {
			s->cb_flavor = AUTH_SYS_FLAVOR;
			s->cb_uid = p[i].u.cbsp_sys_cred.uid;
			s->cb_gid = p[i].u.cbsp_sys_cred.gid;
			return;
		}
	}
}

static uint32_t client_sessions(struct nfs4_sessions *t, clientid4 cid)
{
	struct nfs4_session *s;
	uint32_t n = 0;

	for (s = t->oldest; s; s = s->newer)
		n += s->clientid == cid;
	return n;
}

/* The session of @cid whose back channel was bound last and works. */
static struct nfs4_session *back_of(struct nfs4_sessions *t, clientid4 cid)
{
	struct nfs4_session *s, *best = NULL;

	for (s = t->oldest; s; s = s->newer)
		if (s->clientid == cid && s->back_ref && !s->back_down &&
		    (!best || s->back_seq > best->back_seq))
			best = s;
	return best;
}

bool ss_cb_up(struct nfs4_sessions *t, clientid4 cid)
{
	return back_of(t, cid) != NULL;
}

enum nfsstat4 nfs4_sessions_create(struct nfs4_sessions *t, const struct CREATE_SESSION4args *a,
				   const struct nfs4_principal *who, uint64_t conn,
				   uint32_t max_record, uint64_t now,
				   struct CREATE_SESSION4res *res)
{
	struct CREATE_SESSION4resok *ok = &res->u.csr_resok4;
	struct nfs4_session *s = NULL, **b;
	enum nfsstat4 st;
	bool replay;
	uint32_t r;

	memset(res, 0, sizeof(*res));
	pthread_mutex_lock(&t->lock);
	st = nfs4_clients_cs_check(t->clients, a->csa_clientid, a->csa_sequence, who, now,
				   &replay, res);
	if (st != NFS4_OK || replay)
		goto out;
	memset(res, 0, sizeof(*res));
	st = fore_attrs(&a->csa_fore_chan_attrs, max_record, &ok->csr_fore_chan_attrs);
	if (st == NFS4_OK)
		st = back_attrs(&a->csa_back_chan_attrs, &ok->csr_back_chan_attrs);
	if (st != NFS4_OK)
		goto out;
	if (client_sessions(t, a->csa_clientid) >= NFS4_SESSIONS_PER_CLIENT) {
		st = NFS4ERR_NOSPC;
		goto out;
	}
	if (t->count >= t->max)
		sweep(t, now);
	if (t->count >= t->max) {
		st = NFS4ERR_DELAY;
		goto out;
	}
	s = calloc(1, sizeof(*s) + ok->csr_fore_chan_attrs.ca_maxrequests * sizeof(s->slots[0]));
	if (!s) {
		st = NFS4ERR_SERVERFAULT;
		goto out;
	}
	/* The id: the clientid (so that it says whose it is in a trace),
	 * a counter and random bytes (a guess of another's fails). */
	memcpy(s->id.val, &a->csa_clientid, 8);
	memcpy(s->id.val + 8, &t->counter, 4);
	t->counter++;
	do {
		r = randombytes_random();
		memcpy(s->id.val + 12, &r, 4);
	} while (ss_find(t, &s->id));
	s->clientid = a->csa_clientid;
	s->fore = ok->csr_fore_chan_attrs;
	s->back = ok->csr_back_chan_attrs;
	s->nslots = s->fore.ca_maxrequests;
	s->cb_program = a->csa_cb_program;
	cb_sec(s, a->csa_sec_parms.val, a->csa_sec_parms.len);
	/* persistence and RDMA are not offered */
	s->flags = a->csa_flags & CREATE_SESSION4_FLAG_CONN_BACK_CHAN;
	if (s->flags) {
		s->back_conn = conn;
		s->back_seq = ++t->back_seq;
	}
	s->used = now;
	s->renewed = UINT64_MAX; /* the first SEQUENCE renews */
	ok->csr_sessionid = s->id;
	ok->csr_sequence = a->csa_sequence;
	ok->csr_flags = s->flags;
	st = nfs4_clients_cs_done(t->clients, a->csa_clientid, a->csa_sequence, res, now);
	if (st != NFS4_OK) {
		free(s);
		goto out;
	}
	s->refs = 1;
	nfs4_clients_sessions(t->clients, s->clientid, +1);
	s->linked = true;
	b = &t->by_id[hash_id(&s->id)];
	s->hnext = *b;
	*b = s;
	ss_lru_append(t, s);
	t->count++;
out:
	if (st != NFS4_OK)
		memset(res, 0, sizeof(*res));
	res->csr_status = st;
	pthread_mutex_unlock(&t->lock);
	return st;
}

enum nfsstat4 nfs4_sessions_destroy(struct nfs4_sessions *t, const sessionid4 *id,
				    const struct nfs4_slot_use *q, uint64_t now)
{
	struct nfs4_session *s;
	enum nfsstat4 st = NFS4_OK;
	uint32_t i;

	pthread_mutex_lock(&t->lock);
	s = ss_find_live(t, id, now);
	if (!s) {
		st = NFS4ERR_BADSESSION;
		goto out;
	}
	for (i = 0; i < s->nslots; i++) {
		if (s->slots[i].busy && !(q && q->s == s && q->slot == i)) {
			st = NFS4ERR_DELAY;
			goto out;
		}
	}
	ss_unlink(t, s);
out:
	pthread_mutex_unlock(&t->lock);
	return st;
}

enum nfsstat4 nfs4_sessions_bind_conn(struct nfs4_sessions *t, const sessionid4 *id,
				      enum channel_dir_from_client4 dir, uint64_t conn,
				      uint64_t now, enum channel_dir_from_server4 *granted)
{
	struct nfs4_session *s;
	enum nfsstat4 st = NFS4_OK;

	switch (dir) {
	case CDFC4_FORE: *granted = CDFS4_FORE; break;
	case CDFC4_BACK: *granted = CDFS4_BACK; break;
	case CDFC4_FORE_OR_BOTH:
	case CDFC4_BACK_OR_BOTH: *granted = CDFS4_BOTH; break;
	default: return NFS4ERR_INVAL;
	}
	pthread_mutex_lock(&t->lock);
	s = ss_find_live(t, id, now);
	if (!s) {
		st = NFS4ERR_BADSESSION;
	} else if (*granted != CDFS4_FORE) {
		s->back_conn = conn;
		s->back_seq = ++t->back_seq;
		s->back_down = false;
		s->flags |= CREATE_SESSION4_FLAG_CONN_BACK_CHAN;
	}
	pthread_mutex_unlock(&t->lock);
	return st;
}

enum nfsstat4 nfs4_sessions_destroy_client(struct nfs4_sessions *t, clientid4 clientid,
					   uint64_t now)
{
	enum nfsstat4 st;

	pthread_mutex_lock(&t->lock);
	if (!nfs4_clients_alive(t->clients, clientid, now))
		st = nfs4_clients_destroy(t->clients, clientid, now);  /* unconfirmed, or none */
	else if (client_sessions(t, clientid))
		st = NFS4ERR_CLIENTID_BUSY;
	else
		st = nfs4_clients_destroy(t->clients, clientid, now);
	pthread_mutex_unlock(&t->lock);
	return st;
}

enum nfsstat4 nfs4_sessions_reclaim_complete(struct nfs4_sessions *t, clientid4 clientid,
					     uint64_t now)
{
	enum nfsstat4 st;

	pthread_mutex_lock(&t->lock);
	st = nfs4_clients_reclaim_complete(t->clients, clientid, now);
	pthread_mutex_unlock(&t->lock);
	return st;
}

uint32_t nfs4_sessions_count(struct nfs4_sessions *t)
{
	uint32_t n;

	pthread_mutex_lock(&t->lock);
	n = t->count;
	pthread_mutex_unlock(&t->lock);
	return n;
}

void nfs4_sessions_get_counts(struct nfs4_sessions *t, struct nfs4_sessions_counts *out)
{
	pthread_mutex_lock(&t->lock);
	out->sessions = t->count;
	out->slot_replays = t->replays;
	out->slot_uncached = t->uncached;
	pthread_mutex_unlock(&t->lock);
}

void nfs4_sessions_set_back_ref(struct nfs4_sessions *t, const sessionid4 *id, uint64_t conn,
				void *ref, void (*ref_put)(void *ref))
{
	struct nfs4_session *s;

	pthread_mutex_lock(&t->lock);
	s = ss_find(t, id);
	if (s && s->back_conn == conn) {
		if (s->back_ref)
			s->back_put(s->back_ref);
		s->back_ref = ref;
		s->back_put = ref_put;
		s->back_down = false;
		ref = NULL;
	}
	pthread_mutex_unlock(&t->lock);
	if (ref)
		ref_put(ref);
}

bool nfs4_sessions_cb_up(struct nfs4_sessions *t, clientid4 clientid, uint64_t now)
{
	bool up;

	pthread_mutex_lock(&t->lock);
	up = nfs4_clients_alive(t->clients, clientid, now) && ss_cb_up(t, clientid);
	pthread_mutex_unlock(&t->lock);
	return up;
}

bool nfs4_sessions_cb_begin(struct nfs4_sessions *t, clientid4 clientid, uint64_t now,
			    void (*get)(void *ref), struct nfs4_cb_slot *out)
{
	struct nfs4_session *s = NULL;
	uint32_t i, n;
	bool found = false;

	pthread_mutex_lock(&t->lock);
	if (nfs4_clients_alive(t->clients, clientid, now))
		s = back_of(t, clientid);
	n = s ? s->back.ca_maxrequests : 0;
	for (i = 0; i < n && s->back_busy[i]; i++)
		;
	if (i < n) {
		s->back_busy[i] = true;
		out->session = s->id;
		out->slot = i;
		out->seqid = ++s->back_seqid[i];
		out->highest = n - 1;
		out->cb_program = s->cb_program;
		out->minor = s->cb_minor ? s->cb_minor : 1;
		out->flavor = s->cb_flavor;
		out->uid = s->cb_uid;
		out->gid = s->cb_gid;
		out->ref = s->back_ref;
		get(out->ref);
		found = true;
	}
	pthread_mutex_unlock(&t->lock);
	return found;
}

void nfs4_sessions_set_minor(struct nfs4_sessions *t, const sessionid4 *id, uint32_t minor)
{
	struct nfs4_session *s;

	pthread_mutex_lock(&t->lock);
	s = ss_find(t, id);
	if (s)
		s->cb_minor = minor;
	pthread_mutex_unlock(&t->lock);
}

void nfs4_sessions_cb_end(struct nfs4_sessions *t, const struct nfs4_cb_slot *q, bool answered)
{
	struct nfs4_session *s;

	pthread_mutex_lock(&t->lock);
	s = ss_find(t, &q->session);
	if (s && q->slot < NFS4_BACK_SLOTS && s->back_busy[q->slot]) {
		s->back_busy[q->slot] = false;
		/* never seen by the client: the seqid is still the next one */
		if (!answered) {
			s->back_seqid[q->slot]--;
			s->back_down = true;
		}
	}
	pthread_mutex_unlock(&t->lock);
}

enum nfsstat4 nfs4_sessions_backchannel_ctl(struct nfs4_sessions *t, const sessionid4 *id,
					    uint32_t program,
					    const struct callback_sec_parms4 *parms, uint32_t n)
{
	struct nfs4_session *s;

	pthread_mutex_lock(&t->lock);
	s = ss_find(t, id);
	if (s) {
		s->cb_program = program;
		cb_sec(s, parms, n);
	}
	pthread_mutex_unlock(&t->lock);
	return s ? NFS4_OK : NFS4ERR_BADSESSION;
}
