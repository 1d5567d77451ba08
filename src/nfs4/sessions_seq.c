/* SPDX-License-Identifier: MIT */
/*
 * NFSv4.1 sessions, the fore channel's slots: SEQUENCE takes a slot or
 * answers a retransmission, and the end of the COMPOUND keeps its reply
 * in the slot and frees it. The slot rules follow RFC 8881 2.10.6.1 and
 * 18.46.3, with knfsd's nfsd4_sequence() and check_slot_seqid() as the
 * reference where the RFC leaves a choice. Every 4.1 COMPOUND passes
 * here twice, on an event loop as often as on a worker (sessions.h).
 */
#include <stdlib.h>
#include <string.h>

#include "nfs4/sessions_internal.h"
#include "util/lock.h"

/* nfs4_sessions_sequence(); with @busy, on an event loop: a lock to
 * wait for, or a record to drop, sets *busy and changes nothing. */
static enum nfsstat4 sequence(struct nfs4_sessions *t, const struct SEQUENCE4args *a,
			      uint32_t req_len, uint32_t nops, uint32_t reply_len,
			      uint64_t now, struct SEQUENCE4resok *res,
			      struct nfs4_slot_use *q, bool *busy)
{
	struct nfs4_session *s;
	struct slot *sl;
	enum nfsstat4 st = NFS4_OK;
	uint64_t drops;

	memset(q, 0, sizeof(*q));
	if (!busy) {
		pthread_mutex_lock(&t->lock);
		s = ss_find_live(t, &a->sa_sessionid, now);
	} else {
		/* the lock is held across nfs4_clients_*(), whose lock a
		 * worker may hold across a write of the restart record.
		 * Whether the client lives is asked once: with the renewal
		 * when every check passes, else at out: before an error is
		 * answered here (a gone client's is a worker's to answer). */
		if (!lock_try_short(&t->lock)) {
			*busy = true;
			return NFS4ERR_DELAY;
		}
		s = ss_find(t, &a->sa_sessionid);
	}
	if (!s) {
		st = NFS4ERR_BADSESSION;
		goto out;
	}
	if (nops > s->fore.ca_maxoperations) {
		st = NFS4ERR_TOO_MANY_OPS;
		goto out;
	}
	if (req_len > s->fore.ca_maxrequestsize) {
		st = NFS4ERR_REQ_TOO_BIG;
		goto out;
	}
	if (a->sa_slotid >= s->nslots) {
		st = NFS4ERR_BADSLOT;
		goto out;
	}
	sl = &s->slots[a->sa_slotid];
	if (a->sa_sequenceid == (sequenceid4)(sl->seqid + 1)) {
		q->replay = NFS4_SEQ_NEW;
	} else if (sl->used && a->sa_sequenceid == sl->seqid) {
		q->replay = sl->cached ? NFS4_SEQ_CACHED : NFS4_SEQ_UNCACHED;
	} else {
		st = NFS4ERR_SEQ_MISORDERED;
		goto out;
	}
	if (sl->busy) {
		/* the request, or the one before, still runs */
		st = NFS4ERR_DELAY;
		goto out;
	}
	/* A new request whose reply cannot hold even SEQUENCE's result
	 * fails before it takes the slot (as knfsd's). */
	if (q->replay == NFS4_SEQ_NEW && reply_len > s->fore.ca_maxresponsesize) {
		st = NFS4ERR_REP_TOO_BIG;
		goto out;
	}
	if (q->replay == NFS4_SEQ_NEW && a->sa_cachethis &&
	    reply_len > s->fore.ca_maxresponsesize_cached) {
		st = NFS4ERR_REP_TOO_BIG_TO_CACHE;
		goto out;
	}
	/* the client's lease, which the session's life is: renewed (and
	 * the client's life asked) once a second, the lease's unit */
	drops = nfs4_clients_drops(t->clients);
	if (s->renewed != now || s->drops != drops) {
		if (busy && nfs4_clients_renew_nowait(t->clients, s->clientid, true, now) < 0) {
			*busy = true;
			st = NFS4ERR_DELAY;
			goto out;
		}
		if (!busy && nfs4_clients_renew(t->clients, s->clientid, now) != NFS4_OK) {
			ss_unlink(t, s);
			st = NFS4ERR_BADSESSION;
			goto out;
		}
		s->renewed = now;
		s->drops = drops;
	}
	if (q->replay == NFS4_SEQ_NEW) {
		sl->seqid = a->sa_sequenceid;
		sl->used = true;
		sl->cached = false;
		sl->len = 0;
	}
	sl->busy = true;
	/* counted once the replay is answered (nothing failed above) */
	if (q->replay == NFS4_SEQ_CACHED)
		t->replays++;
	else if (q->replay == NFS4_SEQ_UNCACHED)
		t->uncached++;
	s->refs++;
	if (s->used != now) {
		/* the order of last use, in seconds as the sweep reads it */
		s->used = now;
		ss_lru_unlink(t, s);
		ss_lru_append(t, s);
	}
	q->s = s;
	q->sid = s->id;
	q->slot = a->sa_slotid;
	q->clientid = s->clientid;
	q->cachethis = a->sa_cachethis;
	q->max_resp = s->fore.ca_maxresponsesize;
	q->max_resp_cached = s->fore.ca_maxresponsesize_cached;
	res->sr_sessionid = s->id;
	res->sr_sequenceid = a->sa_sequenceid;
	res->sr_slotid = a->sa_slotid;
	res->sr_highest_slotid = s->nslots - 1;
	res->sr_target_highest_slotid = s->nslots - 1;
	/* only once a callback failed on it (see sessions.h); revoked
	 * state is the caller's to say */
	res->sr_status_flags = s->back_down ? SEQ4_STATUS_CB_PATH_DOWN_SESSION : 0;
	if (s->back_down && !ss_cb_up(t, s->clientid))
		res->sr_status_flags |= SEQ4_STATUS_CB_PATH_DOWN;
out:
	if (busy && st != NFS4_OK && !*busy && s &&
	    nfs4_clients_renew_nowait(t->clients, s->clientid, false, now) < 0) {
		*busy = true;
		st = NFS4ERR_DELAY;
	}
	pthread_mutex_unlock(&t->lock);
	return st;
}

enum nfsstat4 nfs4_sessions_sequence(struct nfs4_sessions *t, const struct SEQUENCE4args *a,
				     uint32_t req_len, uint32_t nops, uint32_t reply_len,
				     uint64_t now, struct SEQUENCE4resok *res,
				     struct nfs4_slot_use *q)
{
	return sequence(t, a, req_len, nops, reply_len, now, res, q, NULL);
}

enum nfsstat4 nfs4_sessions_sequence_nowait(struct nfs4_sessions *t,
					    const struct SEQUENCE4args *a, uint32_t req_len,
					    uint32_t nops, uint32_t reply_len, uint64_t now,
					    struct SEQUENCE4resok *res, struct nfs4_slot_use *q,
					    bool *busy)
{
	*busy = false;
	return sequence(t, a, req_len, nops, reply_len, now, res, q, busy);
}

const uint8_t *nfs4_seq_cached(const struct nfs4_slot_use *q, uint32_t *len)
{
	const struct slot *sl = &q->s->slots[q->slot];

	/* the slot is busy, so this thread alone reads or writes it */
	*len = sl->len;
	return sl->reply;
}

void nfs4_sessions_done(struct nfs4_sessions *t, struct nfs4_slot_use *q,
			const struct iovec *iov, int iovcnt)
{
	struct nfs4_session *s = q->s;
	struct slot *sl;
	size_t total = 0;
	int i;

	if (!s)
		return;
	sl = &s->slots[q->slot];
	if (q->replay == NFS4_SEQ_NEW && q->cachethis && iov) {
		for (i = 0; i < iovcnt; i++)
			total += iov[i].iov_len;
		/* Copied before the lock is taken: the busy slot is this
		 * thread's alone. */
		if (total <= s->fore.ca_maxresponsesize_cached) {
			if (!sl->reply && s->fore.ca_maxresponsesize_cached)
				sl->reply = malloc(s->fore.ca_maxresponsesize_cached);
			if (sl->reply || total == 0) {
				sl->len = 0;
				for (i = 0; i < iovcnt; i++) {
					if (iov[i].iov_len)
						memcpy(sl->reply + sl->len, iov[i].iov_base,
						       iov[i].iov_len);
					sl->len += (uint32_t)iov[i].iov_len;
				}
				sl->cached = true;
			}
		}
	}
	pthread_mutex_lock(&t->lock);
	sl->busy = false;
	ss_put(s);
	pthread_mutex_unlock(&t->lock);
	memset(q, 0, sizeof(*q));
}

void nfs4_sessions_abandon(struct nfs4_sessions *t, struct nfs4_slot_use *q)
{
	struct nfs4_session *s = q->s;

	if (!s)
		return;
	if (q->replay == NFS4_SEQ_NEW) {
		pthread_mutex_lock(&t->lock);
		s->slots[q->slot].seqid--;
		pthread_mutex_unlock(&t->lock);
	}
	nfs4_sessions_done(t, q, NULL, 0);
}
