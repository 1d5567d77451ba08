/* SPDX-License-Identifier: MIT */
/*
 * Read and write delegations on the state table (state.h): grants,
 * conflicts and recalls, returns, revocation.
 *
 * DESIGN
 * - A delegation is a stateid of the client's one OWNER_DELEG owner, on
 *   its file's list of delegations; the file handle rides along for the
 *   CB_RECALL. At most one per client and file (knfsd's rule).
 * - Grants follow knfsd's nfs4_open_delegation and nfs4_set_delegation:
 *   none while one of the file is being recalled, none to a 4.0 owner
 *   not yet confirmed, one per client and file (no upgrade of a read
 *   delegation to a write one: it is returned first). A read delegation
 *   not while any open of the file has write access (the client caches
 *   what a writer would make stale); a write delegation not while another
 *   client has the file open at all (knfsd checks other clients' write
 *   opens, and its lease code any other lease; a reader beside a write
 *   delegation would be recalled at its first READ anyway) or holds a
 *   delegation of it. The caller decides the rest (the kind, the
 *   callback path, the claim, grace).
 * - A grant counts its delegation, then looks for a change of the file in
 *   flight (vfs_change_busy) and takes itself back if there is one: a
 *   change that passed its recall check just before the count would
 *   otherwise land after the grant unseen (vfs/lease.h).
 * - Conflicts: a change by another client recalls every delegation of
 *   the file; a read of it (its data, size or change, an OPEN for
 *   reading) only write delegations, whose holder may have written what
 *   the server has not seen.
 * - A conflict never waits here: it marks the delegation recalled, hands
 *   the recall to the caller and answers DELAY; the conflicting client
 *   retries. A recall not answered, or refused, is handed out again at a
 *   later try; a delegation recalled a lease ago is revoked at the next
 *   try, so that no client waits longer than a lease for another (the
 *   issue's "no hang"). Revocation is lazy for that reason: nothing needs
 *   to happen before somebody else wants the file.
 */
#include <stdlib.h>
#include <string.h>

#include "nfs4/state_internal.h"
#include "vfs/lease.h"

void nfs4_state_set_deleg_count(struct nfs4_state *t,
				void (*count)(int held, int revoked, int write))
{
	pthread_mutex_lock(&t->lock);
	t->deleg_count = count;
	pthread_mutex_unlock(&t->lock);
}

/* The counts change by @held and @revoked for delegation @d (a write
 * one's count moves with @held). */
static void count(struct nfs4_state *t, const struct deleg *d, int held, int revoked)
{
	t->ndelegs = (uint32_t)((int)t->ndelegs + held);
	if (t->deleg_count)
		t->deleg_count(held, revoked, d->write ? held : 0);
}

void state_deleg_gone(struct nfs4_state *t, struct stid *s)
{
	if (s->deleg->state == DELEG_REVOKED)
		count(t, s->deleg, 0, -1);
	else
		count(t, s->deleg, -1, 0);
}

uint32_t nfs4_state_delegs(struct nfs4_state *t)
{
	uint32_t n;

	pthread_mutex_lock(&t->lock);
	n = t->ndelegs;
	pthread_mutex_unlock(&t->lock);
	return n;
}

static struct recalled *recalled_slot(struct nfs4_state *t, const struct nfs4_file_id *f)
{
	return &t->recalled[state_hash((uint64_t)f->ino * 31u + (uint64_t)f->dev) %
			    RECALLED_SLOTS];
}

/* Was @f recalled within the hold before @now? (A slot another file took
 * since forgets it: the hold is a courtesy, not a rule.) */
static bool recalled_lately(struct nfs4_state *t, const struct nfs4_file_id *f, uint64_t now)
{
	const struct recalled *r = recalled_slot(t, f);

	return r->when && r->id.dev == f->dev && r->id.ino == f->ino &&
	       now < r->when + NFS4_DELEG_RECALL_HOLD;
}

enum nfs4_deleg_why nfs4_state_deleg_grant(struct nfs4_state *t, const struct nfs4_seq *q,
					   const struct nfs4_file_id *fid, uint64_t now, bool minor1,
					   bool write, const uint8_t *fh, uint32_t fh_len,
					   struct stateid4 *out)
{
	static const uint8_t no_name[1];
	enum nfs4_deleg_why why = NFS4_DELEG_CONTENTION;
	struct nfs4_owner *o = q->ow, *dow;
	struct deleg *d;
	enum nfsstat4 err;
	struct stid *s;
	struct file *f;

	if (fh_len > NFS4_FHSIZE || !(d = calloc(1, sizeof(*d))))
		return NFS4_DELEG_RESOURCE;
	d->minor1 = minor1;
	d->write = write;
	d->fh_len = fh_len;
	memcpy(d->fh, fh, fh_len);
	pthread_mutex_lock(&t->lock);
	if (!o || !o->cl || (q->check && !o->confirmed))
		goto out;
	f = state_file_get(t, fid, false);
	if (!f || recalled_lately(t, fid, now))
		goto out;
	for (s = f->opens; s; s = s->fnext)
		if (write ? s->ow->cl != o->cl : (s->access & OPEN4_SHARE_ACCESS_WRITE) != 0)
			goto out;
	for (s = f->delegs; s; s = s->fnext)
		if (s->deleg->state != DELEG_HELD || s->ow->cl == o->cl || write ||
		    s->deleg->write)
			goto out;
	why = NFS4_DELEG_RESOURCE;
	if (t->ndelegs >= NFS4_DELEG_MAX)
		goto out;
	dow = state_owner_get(t, o->cl->id, OWNER_DELEG, no_name, 0, true, &err);
	if (!dow)
		goto out;
	s = state_stid_new(t, dow, f, &err);
	if (!s)
		goto out;
	s->deleg = d;
	d = NULL;
	s->fnext = f->delegs;
	f->delegs = s;
	s->seqid = 1;
	count(t, s->deleg, +1, 0);
	/* counted first, then a change in flight looked for (vfs/lease.h):
	 * one that passed its check before the count is seen here */
	if (vfs_change_busy(fid->dev, fid->ino)) {
		state_stid_drop(t, s);
		why = NFS4_DELEG_CONTENTION;
		goto out;
	}
	state_stid_out(t, s, out);
	why = NFS4_DELEG_GRANTED;
out:
	pthread_mutex_unlock(&t->lock);
	free(d);
	return why;
}

static void recall_out(const struct nfs4_state *t, const struct stid *s, struct nfs4_recall *r)
{
	r->clientid = s->ow->cl->id;
	r->minor1 = s->deleg->minor1;
	state_stid_out(t, s, &r->sid);
	r->fh_len = s->deleg->fh_len;
	memcpy(r->fh, s->deleg->fh, s->deleg->fh_len);
}

/* Revoke @s (recalled a lease ago): a 4.1 client's stays known, off its
 * file, until FREE_STATEID; a 4.0 client's goes. */
static void revoke(struct nfs4_state *t, struct stid *s)
{
	if (!s->deleg->minor1) {
		state_stid_drop(t, s);
		return;
	}
	count(t, s->deleg, -1, +1);
	s->deleg->state = DELEG_REVOKED;
	state_stid_unfile(t, s);
}

enum nfsstat4 nfs4_state_deleg_break(struct nfs4_state *t, const struct nfs4_file_id *fid,
				     clientid4 breaker, bool reading, uint64_t now,
				     uint32_t lease, struct nfs4_recall *out, uint32_t *nout)
{
	enum nfsstat4 st = NFS4_OK;
	struct stid *s, *next;
	struct file *f;

	*nout = 0;
	pthread_mutex_lock(&t->lock);
again:
	f = state_file_get(t, fid, false);
	for (s = f ? f->delegs : NULL; s; s = next) {
		struct deleg *d = s->deleg;

		next = s->fnext;
		if ((breaker && s->ow->cl->id == breaker) || (reading && !d->write))
			continue;
		/* a client whose lease ran out gives way (@f may go with it) */
		if (state_reap(t, s->ow))
			goto again;
		if (d->state == DELEG_RECALLING && now >= d->recall_at + lease) {
			revoke(t, s);
			goto again;   /* @f may have gone with it */
		}
		st = NFS4ERR_DELAY;
		if (d->state == DELEG_HELD) {
			struct recalled *r = recalled_slot(t, fid);

			d->state = DELEG_RECALLING;
			d->recall_at = now;
			r->id = *fid;
			r->when = now ? now : 1;
		} else if (d->recall_sent) {
			continue;
		}
		if (*nout < NFS4_RECALLS_MAX) {
			d->recall_sent = true;
			recall_out(t, s, &out[(*nout)++]);
		}
	}
	pthread_mutex_unlock(&t->lock);
	return st;
}

void nfs4_state_deleg_unsent(struct nfs4_state *t, const struct stateid4 *sid)
{
	struct stid *s;

	pthread_mutex_lock(&t->lock);
	if (state_stid_lookup(t, sid, &s) == NFS4_OK && s->deleg &&
	    s->deleg->state == DELEG_RECALLING)
		s->deleg->recall_sent = false;
	pthread_mutex_unlock(&t->lock);
}

/* @sid as a delegation of @clientid (0: any) on @fid (the lock held). */
static enum nfsstat4 find_deleg(struct nfs4_state *t, clientid4 clientid,
				const struct stateid4 *sid, const struct nfs4_file_id *fid,
				bool minor0, struct stid **out)
{
	enum nfsstat4 st = state_stid_lookup(t, sid, out);
	struct stid *s = *out;

	if (st != NFS4_OK)
		return st;
	if (!s->deleg || (clientid && s->ow->cl->id != clientid))
		return NFS4ERR_BAD_STATEID;
	st = state_stid_seqid(s, sid, minor0);
	if (st != NFS4_OK)
		return st;
	if (s->deleg->state == DELEG_REVOKED)
		return NFS4ERR_DELEG_REVOKED;
	if (s->f->id.dev != fid->dev || s->f->id.ino != fid->ino)
		return NFS4ERR_BAD_STATEID;
	return NFS4_OK;
}

/* find_deleg under the lock; the delegation goes when @drop. */
static enum nfsstat4 deleg_op(struct nfs4_state *t, clientid4 clientid,
			      const struct stateid4 *sid, const struct nfs4_file_id *fid,
			      bool minor0, bool drop)
{
	enum nfsstat4 st;
	struct stid *s;

	pthread_mutex_lock(&t->lock);
	st = find_deleg(t, clientid, sid, fid, minor0, &s);
	if (st == NFS4_OK && drop)
		state_stid_drop(t, s);
	pthread_mutex_unlock(&t->lock);
	return st;
}

enum nfsstat4 nfs4_state_delegreturn(struct nfs4_state *t, clientid4 clientid,
				     const struct stateid4 *sid, const struct nfs4_file_id *fid,
				     bool minor0)
{
	return deleg_op(t, clientid, sid, fid, minor0, true);
}

enum nfsstat4 nfs4_state_deleg_check(struct nfs4_state *t, clientid4 clientid,
				     const struct stateid4 *sid, const struct nfs4_file_id *fid,
				     bool minor0)
{
	return deleg_op(t, clientid, sid, fid, minor0, false);
}

enum nfsstat4 state_deleg_check_io(struct nfs4_state *t, const struct stid *s,
				   const struct stateid4 *sid, const struct nfs4_file_id *fid,
				   bool write, bool minor0)
{
	enum nfsstat4 st = state_stid_seqid(s, sid, minor0);

	(void)t;
	if (st != NFS4_OK)
		return st;
	if (s->deleg->state == DELEG_REVOKED)
		return NFS4ERR_DELEG_REVOKED;
	if (s->f->id.dev != fid->dev || s->f->id.ino != fid->ino)
		return NFS4ERR_BAD_STATEID;
	/* a read delegation gives no write (knfsd's nfs4_check_delegmode);
	 * a write one gives both, recalled or not: a recalled holder writes
	 * back what it cached before it returns the delegation */
	return write && !s->deleg->write ? NFS4ERR_OPENMODE : NFS4_OK;
}

void nfs4_state_client_delegs(struct nfs4_state *t, clientid4 clientid, uint32_t *held,
			      uint32_t *revoked)
{
	const struct nfs4_owner *o;
	const struct stid *s;
	struct client *c;

	*held = *revoked = 0;
	pthread_mutex_lock(&t->lock);
	c = state_client_get(t, clientid, false);
	for (o = c ? c->owners : NULL; o; o = o->cnext) {
		if (o->kind != OWNER_DELEG)
			continue;
		for (s = o->stids; s; s = s->snext) {
			if (s->deleg->state == DELEG_REVOKED)
				(*revoked)++;
			else
				(*held)++;
		}
	}
	pthread_mutex_unlock(&t->lock);
}
