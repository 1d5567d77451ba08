/* SPDX-License-Identifier: MIT */
/*
 * Opens on the state table (state.h): OPEN's owner and reservation,
 * OPEN_CONFIRM, OPEN_DOWNGRADE, CLOSE, the stateid checks of READ and
 * WRITE, and a new file's id reused.
 */
#include <stdlib.h>
#include <string.h>

#include "nfs4/state_internal.h"

enum nfsstat4 nfs4_state_open_begin(struct nfs4_state *t, clientid4 clientid,
				    const uint8_t *owner, uint32_t len, uint32_t seqid,
				    bool minor0, struct nfs4_seq *q)
{
	enum nfsstat4 st = NFS4_OK;
	struct nfs4_owner *o;

	state_seq_reset(q);
	pthread_mutex_lock(&t->lock);
	o = state_owner_get(t, clientid, OWNER_OPEN, owner, len, true, &st);
	if (!o)
		goto out;
	st = NFS4_OK;
	if (state_busy(o, minor0)) {
		st = NFS4ERR_DELAY;
		goto out;
	}
	if (minor0 && !o->confirmed && !o->fresh) {
		/* An owner never confirmed is replaced by the next OPEN,
		 * replay or not, its opens gone (RFC 7530 16.16.5; knfsd's
		 * nfsd4_process_open1). */
		while (o->stids)
			state_stid_drop(t, o->stids);
		o->fresh = true;
		o->reply_len = 0;
	}
	if (minor0)
		st = state_seq_check(o, seqid, q);
	if (st == NFS4_OK)
		state_hold(t, o, q, seqid, minor0);
out:
	pthread_mutex_unlock(&t->lock);
	return st;
}

/* An open of @f in the way of @access/@deny, or NULL. The owner's own
 * opens count too: knfsd checks against the file's whole access and
 * deny (nfs4_file_check_deny, nfs4_file_get_access), so an owner that
 * denies writes cannot upgrade itself to writing. */
static const struct stid *share_conflict(const struct file *f, uint32_t access, uint32_t deny)
{
	const struct stid *s;

	for (s = f->opens; s; s = s->fnext)
		if ((s->deny & access) || (s->access & deny))
			return s;
	return NULL;
}

enum nfsstat4 nfs4_state_open(struct nfs4_state *t, struct nfs4_seq *q,
			      const struct nfs4_file_id *fid, uint32_t access, uint32_t deny,
			      bool reclaim, struct stateid4 *sid, bool *confirm)
{
	struct nfs4_owner *o = q->ow;
	enum nfsstat4 st = NFS4_OK;
	const struct stid *x;
	struct stid *s;
	struct file *f;

	pthread_mutex_lock(&t->lock);
	if (!o->cl) {
		/* the client was purged while the OPEN ran */
		st = NFS4ERR_STALE_CLIENTID;
		goto out;
	}
again:
	f = state_file_get(t, fid, true);
	if (!f) {
		st = NFS4ERR_SERVERFAULT;
		goto out;
	}
	for (s = o->stids; s && s->f != f; s = s->snext)
		;
	x = share_conflict(f, access, deny);
	if (x) {
		/* a client whose lease ran out gives way (@f may go with it) */
		if (x->ow->cl != o->cl && state_reap(t, x->ow))
			goto again;
		st = NFS4ERR_SHARE_DENIED;
		goto out_file;
	}
	if (!s) {
		s = state_stid_new(t, o, f, &st);
		if (!s && st == NFS4ERR_RESOURCE && state_reap_all(t))
			goto again;
		if (!s)
			goto out_file;
		s->fnext = f->opens;
		f->opens = s;
		t->nopens++;
	}
	s->seqid++;
	s->access |= (uint8_t)access;
	s->deny |= (uint8_t)deny;
	s->access_bmap |= (uint8_t)(1u << access);
	s->deny_bmap |= (uint8_t)(1u << deny);
	state_stid_out(t, s, sid);
	if (reclaim)
		o->confirmed = true;
	*confirm = q->check && !o->confirmed;
	goto out;
out_file:
	state_file_put(t, f);
out:
	pthread_mutex_unlock(&t->lock);
	return st;
}

enum nfsstat4 nfs4_state_seqid_begin(struct nfs4_state *t, const struct stateid4 *sid,
				     const struct nfs4_file_id *f, uint32_t seqid, bool minor0,
				     bool confirming, struct nfs4_seq *q)
{
	struct stid *s = NULL;
	enum nfsstat4 st;

	state_seq_reset(q);
	pthread_mutex_lock(&t->lock);
	st = state_stid_lookup(t, sid, &s);
	if (st != NFS4_OK)
		goto out;
	if (s->lock || s->deleg ||
	    (!s->closed && (s->f->id.dev != f->dev || s->f->id.ino != f->ino))) {
		st = NFS4ERR_BAD_STATEID;
		goto out;
	}
	/* a client whose record went (a new instance of it confirmed, or
	 * its lease ran out) keeps nothing it could close: EXPIRED (knfsd;
	 * pynfs CID1) */
	if (t->live && !t->live(s->ow->cl->id)) {
		state_purge(t, s->ow->cl);
		st = NFS4ERR_EXPIRED;
		goto out;
	}
	if (state_busy(s->ow, minor0)) {
		st = NFS4ERR_DELAY;
		goto out;
	}
	if (minor0) {
		st = state_seq_check(s->ow, seqid, q);
		if (st != NFS4_OK)
			goto out;
		if (q->replay) {
			state_hold(t, s->ow, q, seqid, minor0);
			goto out;
		}
	}
	if (s->closed) {
		st = NFS4ERR_BAD_STATEID;   /* only its CLOSE's replay */
		goto out;
	}
	st = state_stid_seqid(s, sid, minor0);
	if (st == NFS4_OK && minor0 && !confirming && !s->ow->confirmed)
		st = NFS4ERR_BAD_STATEID;
	/* A seqid error of the stateid still counts the owner's seqid. */
	if (st == NFS4_OK || st == NFS4ERR_OLD_STATEID)
		state_hold(t, s->ow, q, seqid, minor0);
out:
	pthread_mutex_unlock(&t->lock);
	return st;
}

/* @sid as an open stateid in force (OPEN_CONFIRM, OPEN_DOWNGRADE, CLOSE). */
static enum nfsstat4 open_stid(struct nfs4_state *t, const struct stateid4 *sid,
			       struct stid **s)
{
	enum nfsstat4 st = state_stid_open(t, sid, s);

	return st == NFS4_OK && (*s)->lock ? NFS4ERR_BAD_STATEID : st;
}

enum nfsstat4 nfs4_state_confirm(struct nfs4_state *t, const struct stateid4 *sid, struct stateid4 *out)
{
	enum nfsstat4 st;
	struct stid *s;

	pthread_mutex_lock(&t->lock);
	st = open_stid(t, sid, &s);
	if (st == NFS4_OK && s->ow->confirmed)
		st = NFS4ERR_BAD_STATEID;
	if (st == NFS4_OK) {
		s->ow->confirmed = true;
		s->seqid++;
		state_stid_out(t, s, out);
	}
	pthread_mutex_unlock(&t->lock);
	return st;
}

enum nfsstat4 nfs4_state_downgrade(struct nfs4_state *t, const struct stateid4 *sid,
				   uint32_t access, uint32_t deny, struct stateid4 *out)
{
	enum nfsstat4 st;
	struct stid *s;

	pthread_mutex_lock(&t->lock);
	st = open_stid(t, sid, &s);
	if (st == NFS4_OK &&
	    (access > 3 || deny > 3 || !(s->access_bmap & (1u << access)) ||
	     !(s->deny_bmap & (1u << deny))))
		st = NFS4ERR_INVAL;
	if (st == NFS4_OK) {
		s->access = (uint8_t)access;
		s->deny = (uint8_t)deny;
		s->access_bmap = (uint8_t)(1u << access);
		s->deny_bmap = (uint8_t)(1u << deny);
		s->seqid++;
		state_stid_out(t, s, out);
	}
	pthread_mutex_unlock(&t->lock);
	return st;
}

enum nfsstat4 nfs4_state_close(struct nfs4_state *t, const struct stateid4 *sid, bool minor0,
			       struct stateid4 *out)
{
	struct stid **pp;
	enum nfsstat4 st;
	struct stid *s;

	pthread_mutex_lock(&t->lock);
	st = open_stid(t, sid, &s);
	if (st == NFS4_OK) {
		s->seqid++;
		state_stid_out(t, s, out);
		if (!minor0) {
			state_stid_drop(t, s);
			goto out;
		}
		/* kept, off its file, until the owner's next call */
		for (pp = &s->ow->stids; *pp != s; pp = &(*pp)->snext)
			;
		*pp = s->snext;
		state_locks_of_open_drop(t, s);
		state_stid_unfile(t, s);
		if (s->ow->closed)
			state_stid_drop(t, s->ow->closed);
		s->closed = true;
		t->nopens--;
		s->ow->closed = s;
	}
out:
	pthread_mutex_unlock(&t->lock);
	return st;
}

enum nfsstat4 nfs4_state_check_io(struct nfs4_state *t, const struct stateid4 *sid,
				  const struct nfs4_file_id *fid, bool write, bool minor0,
				  clientid4 *clientid)
{
	enum nfsstat4 st = NFS4_OK;
	const struct stid *os;
	struct stid *s;
	struct file *f;

	*clientid = 0;
	if (nfs4_stateid_bypass(sid) && !write)
		return NFS4_OK;
	pthread_mutex_lock(&t->lock);
	if (nfs4_stateid_anonymous(sid) || nfs4_stateid_bypass(sid)) {
		/* knfsd's check_special_stateids: a deny of that access by
		 * any open is LOCKED */
		const struct stid *x;

		while ((f = state_file_get(t, fid, false)) &&
		       (x = share_conflict(f, write ? OPEN4_SHARE_ACCESS_WRITE :
						       OPEN4_SHARE_ACCESS_READ, 0))) {
			if (!state_reap(t, x->ow)) {
				st = NFS4ERR_LOCKED;
				break;
			}
		}
		goto out;
	}
	st = state_stid_lookup(t, sid, &s);
	if (st == NFS4_OK && s->deleg) {
		st = state_deleg_check_io(t, s, sid, fid, write, minor0);
		*clientid = s->ow->cl->id;
		goto out;
	}
	if (st == NFS4_OK && s->closed)
		st = NFS4ERR_BAD_STATEID;
	if (st != NFS4_OK)
		goto out;
	*clientid = s->ow->cl->id;
	/* a lock stateid carries its open's access */
	os = s->lock ? s->open : s;
	if (s->f->id.dev != fid->dev || s->f->id.ino != fid->ino)
		st = NFS4ERR_BAD_STATEID;
	else if ((st = state_stid_seqid(s, sid, minor0)) != NFS4_OK)
		;
	else if (minor0 && !os->ow->confirmed)
		st = NFS4ERR_BAD_STATEID;
	else if (write && !(os->access & OPEN4_SHARE_ACCESS_WRITE))
		st = NFS4ERR_OPENMODE;
	/* a READ through a write-only open is allowed, as knfsd does */
out:
	pthread_mutex_unlock(&t->lock);
	return st;
}

void nfs4_state_forget_file(struct nfs4_state *t, const struct nfs4_file_id *fid)
{
	struct file *f;

	pthread_mutex_lock(&t->lock);
	/* each drop may free the file with its last stateid */
	while ((f = state_file_get(t, fid, false)) && (f->opens || f->locks || f->delegs))
		state_stid_drop(t, f->locks ? f->locks : f->delegs ? f->delegs : f->opens);
	pthread_mutex_unlock(&t->lock);
}
