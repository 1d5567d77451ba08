/* SPDX-License-Identifier: MIT */
/*
 * Byte-range locks of the open state (state.h): lock-owners, lock
 * stateids and their ranges, conflicts between owners.
 *
 * DESIGN
 * - A lock stateid is (lock-owner, file), made by the first LOCK of an
 *   owner on the file from an open stateid (open_to_lock_owner4), whose
 *   access it carries for READ and WRITE; it goes when that open is
 *   closed (knfsd releases them the same way).
 * - Its ranges are a list in order of start, without overlaps, merged
 *   with neighbours of the same type: POSIX semantics for one owner. A
 *   conflict check walks the other lock stateids of the file.
 * - Which seqid a LOCK checks: the open-owner's (open_seqid) for a new
 *   lock-owner, the lock-owner's (lock_seqid) otherwise; that owner
 *   holds the result for a replay. A new lock-owner starts at the
 *   lock_seqid it is given.
 * - On the file system (state.h, nfs4_fslocks): a range is granted
 *   here first, between clients; then held by the stateid's holder,
 *   whose failure (a local process's lock: DENIED) leaves the table as
 *   it was; only then is it added to the ranges, with memory taken
 *   before, so that the two never disagree. A holder is opened for the
 *   first range and dropped with the last one (LOCKU of the whole) or
 *   with the stateid (state_ranges_free): descriptors are held only by
 *   stateids holding locks, within the stateid bounds. A holder opened
 *   for reading that must take a write lock (the open was upgraded, or
 *   it only had read locks so far) is replaced by one opened for
 *   writing, which takes the old one's ranges before the old one lets
 *   go, so that no local process can slip in between.
 */
#include <stdlib.h>
#include <string.h>

#include "nfs4/state_internal.h"

/* @offset/@length as an inclusive range. Return values: false for a
 * length of 0 or a range past 2^64 - 1 (INVAL, as knfsd). */
static bool range_of(uint64_t offset, uint64_t length, uint64_t *start, uint64_t *end)
{
	if (length == 0)
		return false;
	*start = offset;
	if (length == NFS4_UINT64_MAX) {
		*end = NFS4_UINT64_MAX;
		return true;
	}
	if (length - 1 > NFS4_UINT64_MAX - offset)
		return false;
	*end = offset + length - 1;
	return true;
}

static uint32_t nranges(const struct stid *s)
{
	const struct range *r;
	uint32_t n = 0;

	for (r = s->ranges; r; r = r->next)
		n++;
	return n;
}

static void fs_drop(struct nfs4_state *t, struct stid *s)
{
	if (s->fsl && t->fs)
		t->fs->drop(s->fsl);
	s->fsl = NULL;
}

void state_ranges_free(struct nfs4_state *t, struct stid *s)
{
	while (s->ranges) {
		struct range *r = s->ranges;

		s->ranges = r->next;
		free(r);
	}
	fs_drop(t, s);
}

void nfs4_state_set_fslocks(struct nfs4_state *t, const struct nfs4_fslocks *ops)
{
	pthread_mutex_lock(&t->lock);
	t->fs = ops;
	pthread_mutex_unlock(&t->lock);
}

/* Take [@start, @end] out of @s's ranges; @spare is used for a split
 * (and set to NULL then). */
static void range_cut(struct stid *s, uint64_t start, uint64_t end, struct range **spare)
{
	struct range **pp = &s->ranges, *r;

	while ((r = *pp)) {
		if (r->end < start) {
			pp = &r->next;
			continue;
		}
		if (r->start > end)
			break;
		if (r->start < start && r->end > end) {
			struct range *n = *spare;

			*spare = NULL;
			n->start = end + 1;
			n->end = r->end;
			n->type = r->type;
			n->next = r->next;
			r->end = start - 1;
			r->next = n;
			return;
		}
		if (r->start < start) {
			r->end = start - 1;
			pp = &r->next;
			continue;
		}
		if (r->end > end) {
			r->start = end + 1;
			break;
		}
		*pp = r->next;
		free(r);
	}
}

/* Do @a and @b touch or overlap (so that ranges of one type merge)? */
static bool adjacent(const struct range *a, const struct range *b)
{
	return a->end == NFS4_UINT64_MAX || a->end + 1 >= b->start;
}

/* Lock [@start, @end] as @type in @s, with @n and @spare, taken before
 * (and freed here when not used). */
static void range_set(struct stid *s, uint64_t start, uint64_t end, uint32_t type,
		      struct range *n, struct range *spare)
{
	struct range **pp, *prev = NULL;

	range_cut(s, start, end, &spare);
	free(spare);
	n->start = start;
	n->end = end;
	n->type = type;
	for (pp = &s->ranges; *pp && (*pp)->start < start; pp = &(*pp)->next)
		prev = *pp;
	n->next = *pp;
	*pp = n;
	if (n->next && n->next->type == type && adjacent(n, n->next)) {
		struct range *x = n->next;

		if (x->end > n->end)
			n->end = x->end;
		n->next = x->next;
		free(x);
	}
	if (prev && prev->type == type && adjacent(prev, n)) {
		if (n->end > prev->end)
			prev->end = n->end;
		prev->next = n->next;
		free(n);
	}
}

/* @s's holder replaced by one opened for writing (see DESIGN). */
static enum nfsstat4 fs_upgrade(struct nfs4_state *t, void *ctx, struct stid *s,
				struct nfs4_lock_denied *d)
{
	const struct range *r;
	struct nfs4_fslock *h = NULL;
	enum nfsstat4 st;

	st = t->fs->open(ctx, true, &h);
	for (r = s->ranges; r && st == NFS4_OK; r = r->next)
		st = t->fs->set(ctx, h, r->type, r->start, r->end, d);
	if (st != NFS4_OK) {
		if (h)
			t->fs->drop(h);
		return st;
	}
	t->fs->drop(s->fsl);
	s->fsl = h;
	return NFS4_OK;
}

/* [@start, @end] as @type held on the file system by @s's holder (@ctx:
 * the call's, NULL when the backend has no locks). */
static enum nfsstat4 fs_lock(struct nfs4_state *t, void *ctx, struct stid *s, uint32_t type,
			     uint64_t start, uint64_t end, struct nfs4_lock_denied *d)
{
	enum nfsstat4 st = NFS4_OK;

	if (!t->fs || !ctx)
		return NFS4_OK;
	if (!s->fsl) {
		st = t->fs->open(ctx, type == WRITE_LT, &s->fsl);
		if (st != NFS4_OK)
			s->fsl = NULL;
	} else if (type == WRITE_LT && !t->fs->writable(s->fsl)) {
		st = fs_upgrade(t, ctx, s, d);
	}
	if (st == NFS4_OK)
		st = t->fs->set(ctx, s->fsl, type, start, end, d);
	/* a holder only while there are ranges */
	if (st != NFS4_OK && !s->ranges)
		fs_drop(t, s);
	return st;
}

/* LOCKU of [@start, @end] on the file system: the holder goes when no
 * range is left, else the range is released. */
static enum nfsstat4 fs_unlock(struct nfs4_state *t, void *ctx, struct stid *s,
			       uint64_t start, uint64_t end)
{
	const struct range *last;

	if (!s->fsl || !t->fs)
		return NFS4_OK;
	for (last = s->ranges; last && last->next; last = last->next)
		;
	if (!last || (s->ranges->start >= start && last->end <= end)) {
		fs_drop(t, s);
		return NFS4_OK;
	}
	return t->fs->set(ctx, s->fsl, 0, start, end, NULL);
}

/* Does another owner than @lo (of client @cid) hold a lock on file @fid
 * conflicting with [@start, @end] as @type? Which one goes into @d. A
 * holder of another client whose lease ran out gives way. */
static bool conflict(struct nfs4_state *t, const struct nfs4_file_id *fid, clientid4 cid,
		     const struct nfs4_owner *lo, uint64_t start, uint64_t end, uint32_t type,
		     struct nfs4_lock_denied *d)
{
	const struct stid *s;
	const struct range *r;
	struct file *f;

again:
	f = state_file_get(t, fid, false);
	for (s = f ? f->locks : NULL; s; s = s->fnext) {
		if (s->ow == lo)
			continue;
		for (r = s->ranges; r && r->start <= end; r = r->next) {
			if (r->end < start || (type == READ_LT && r->type == READ_LT))
				continue;
			if (s->ow->cl->id != cid && state_reap(t, s->ow))
				goto again;
			d->offset = r->start;
			d->length = r->end == NFS4_UINT64_MAX ? NFS4_UINT64_MAX :
				    r->end - r->start + 1;
			d->type = r->type;
			d->clientid = s->ow->cl->id;
			d->owner_len = s->ow->len;
			memcpy(d->owner, s->ow->data, s->ow->len);
			return true;
		}
	}
	return false;
}

static uint32_t plain_type(uint32_t type)
{
	return type == READW_LT ? READ_LT : type == WRITEW_LT ? WRITE_LT : type;
}

/* The open stateid @sid names for a new lock-owner's LOCK: checked and
 * its owner's seqid with it, held in @q. */
static enum nfsstat4 from_open(struct nfs4_state *t, const struct nfs4_file_id *fid,
			       const struct nfs4_lock_args *a, bool minor0, struct nfs4_seq *q,
			       struct stid **open)
{
	enum nfsstat4 st;
	struct stid *s;

	st = state_stid_lookup(t, a->sid, &s);
	if (st != NFS4_OK)
		return st;
	if (s->lock || s->closed || s->deleg || s->f->id.dev != fid->dev || s->f->id.ino != fid->ino)
		return NFS4ERR_BAD_STATEID;
	if (state_busy(s->ow, minor0))
		return NFS4ERR_DELAY;
	if (minor0) {
		st = state_seq_check(s->ow, a->seqid, q);
		if (st != NFS4_OK)
			return st;
		state_hold(t, s->ow, q, a->seqid, minor0);
		if (q->replay)
			return NFS4_OK;
	} else {
		state_hold(t, s->ow, q, a->seqid, minor0);
	}
	st = state_stid_seqid(s, a->sid, minor0);
	if (st == NFS4_OK && minor0 && !s->ow->confirmed)
		st = NFS4ERR_BAD_STATEID;
	/* minor version 1 ignores the clientid given (RFC 8881 18.10.3) */
	if (st == NFS4_OK && minor0 && a->clientid != s->ow->cl->id)
		st = NFS4ERR_BAD_STATEID;
	*open = s;
	return st;
}

/* What a new lock-owner's LOCK changed of its owner, undone when the
 * LOCK ends in RESOURCE, which does not count the seqid (RFC 7530
 * 9.1.7): the client sends the same lock_seqid again. */
struct owner_undo {
	struct nfs4_owner *lo;
	bool made;
	uint32_t seqid;
};

/* The lock stateid of lock-owner (@a's) on @open's file, found or made. */
static enum nfsstat4 new_owner_stid(struct nfs4_state *t, const struct nfs4_lock_args *a,
				    bool minor0, struct stid *open, struct stid **out,
				    struct owner_undo *u)
{
	struct nfs4_owner *lo;
	enum nfsstat4 st = NFS4_OK;
	struct stid *s;

	lo = state_owner_get(t, open->ow->cl->id, OWNER_LOCK, a->owner, a->owner_len, false,
			     &st);
	if (lo) {
		/* an existing owner sent as new (its first LOCK was denied,
		 * which counted that seqid): the next one (knfsd) */
		if (minor0 && a->lock_seqid != lo->seqid + 1)
			return NFS4ERR_BAD_SEQID;
		*u = (struct owner_undo){ lo, false, lo->seqid };
		lo->seqid = a->lock_seqid;
	} else {
		lo = state_owner_get(t, open->ow->cl->id, OWNER_LOCK, a->owner, a->owner_len,
				     true, &st);
		if (!lo)
			return st;
		*u = (struct owner_undo){ lo, true, 0 };
		lo->seqid = a->lock_seqid;
		lo->fresh = false;
		lo->confirmed = true;
	}
	for (s = lo->stids; s && s->f != open->f; s = s->snext)
		;
	if (!s) {
		s = state_stid_new(t, lo, open->f, &st);
		if (!s)
			return st;
		s->lock = true;
		t->nlocks++;
		s->open = open;
		s->fnext = open->f->locks;
		open->f->locks = s;
	}
	*out = s;
	return NFS4_OK;
}

/* The lock stateid @sid of file @fid, its owner's seqid checked and held in @q. */
static enum nfsstat4 from_lock(struct nfs4_state *t, const struct nfs4_file_id *fid,
			       const struct stateid4 *sid, uint32_t seqid, bool minor0,
			       struct nfs4_seq *q, struct stid **out)
{
	enum nfsstat4 st;
	struct stid *s;

	st = state_stid_lookup(t, sid, &s);
	if (st != NFS4_OK)
		return st;
	if (!s->lock || s->f->id.dev != fid->dev || s->f->id.ino != fid->ino)
		return NFS4ERR_BAD_STATEID;
	if (state_busy(s->ow, minor0))
		return NFS4ERR_DELAY;
	if (minor0) {
		st = state_seq_check(s->ow, seqid, q);
		if (st != NFS4_OK)
			return st;
	}
	state_hold(t, s->ow, q, seqid, minor0);
	if (q->replay)
		return NFS4_OK;
	*out = s;
	return state_stid_seqid(s, sid, minor0);
}

enum nfsstat4 nfs4_state_lock(struct nfs4_state *t, const struct nfs4_file_id *f,
			      const struct nfs4_lock_args *a, bool minor0, struct nfs4_seq *q,
			      struct stateid4 *out, struct nfs4_lock_denied *denied)
{
	uint32_t type = plain_type(a->type);
	struct stid *open = NULL, *s = NULL;
	struct owner_undo undo = { NULL, false, 0 };
	struct range *n, *spare;
	uint64_t start, end;
	enum nfsstat4 st;

	state_seq_reset(q);
	if (type != READ_LT && type != WRITE_LT)
		return NFS4ERR_INVAL;
	if (!range_of(a->offset, a->length, &start, &end))
		return NFS4ERR_INVAL;
	/* taken before anything is held on the file system, which then
	 * cannot be left holding what the table has not */
	n = malloc(sizeof(*n));
	spare = malloc(sizeof(*spare));
	if (!n || !spare) {
		free(n);
		free(spare);
		return NFS4ERR_SERVERFAULT;
	}
	pthread_mutex_lock(&t->lock);
	if (a->new_owner) {
		st = from_open(t, f, a, minor0, q, &open);
		if (st == NFS4_OK && !q->replay && a->refuse != NFS4_OK)
			st = a->refuse;
		if (st == NFS4_OK && !q->replay)
			st = new_owner_stid(t, a, minor0, open, &s, &undo);
	} else {
		st = from_lock(t, f, a->sid, a->seqid, minor0, q, &s);
		if (st == NFS4_OK && !q->replay && a->refuse != NFS4_OK)
			st = a->refuse;
	}
	if (st != NFS4_OK || q->replay)
		goto out;
	/* knfsd's nfs4_check_openmode: a write lock needs a write open */
	if (type == WRITE_LT && !(s->open->access & OPEN4_SHARE_ACCESS_WRITE)) {
		st = NFS4ERR_OPENMODE;
	} else if (conflict(t, f, s->ow->cl->id, s->ow, start, end, type, denied)) {
		st = NFS4ERR_DENIED;
	} else if (nranges(s) >= NFS4_LOCK_RANGES_MAX) {
		st = NFS4ERR_RESOURCE;
	} else if ((st = fs_lock(t, a->fs, s, type, start, end, denied)) == NFS4_OK) {
		range_set(s, start, end, type, n, spare);
		n = spare = NULL;
		s->seqid++;
		state_stid_out(t, s, out);
	}
	/* a lock stateid made for this LOCK and left without a lock goes */
	if (st != NFS4_OK && s && !s->ranges && s->seqid == 0)
		state_stid_drop(t, s);
	if (st == NFS4ERR_RESOURCE && undo.lo) {
		if (undo.made && !undo.lo->stids && !undo.lo->refs)
			state_owner_free(t, undo.lo);
		else
			undo.lo->seqid = undo.seqid;
	}
out:
	pthread_mutex_unlock(&t->lock);
	free(n);
	free(spare);
	return st;
}

enum nfsstat4 nfs4_state_locku(struct nfs4_state *t, const struct nfs4_file_id *f,
			       const struct stateid4 *sid, uint32_t seqid, uint64_t offset,
			       uint64_t length, bool minor0, struct nfs4_seq *q,
			       struct stateid4 *out, void *fs)
{
	struct range *spare = NULL;
	struct stid *s = NULL;
	uint64_t start, end;
	enum nfsstat4 st;

	state_seq_reset(q);
	if (!range_of(offset, length, &start, &end))
		return NFS4ERR_INVAL;
	spare = malloc(sizeof(*spare));
	if (!spare)
		return NFS4ERR_SERVERFAULT;
	pthread_mutex_lock(&t->lock);
	st = from_lock(t, f, sid, seqid, minor0, q, &s);
	if (st == NFS4_OK && !q->replay)
		st = fs_unlock(t, fs, s, start, end);
	if (st == NFS4_OK && !q->replay) {
		range_cut(s, start, end, &spare);
		s->seqid++;
		state_stid_out(t, s, out);
	}
	pthread_mutex_unlock(&t->lock);
	free(spare);
	return st;
}

enum nfsstat4 nfs4_state_lockt(struct nfs4_state *t, const struct nfs4_file_id *fid,
			       clientid4 clientid, const uint8_t *owner, uint32_t len,
			       uint32_t type, uint64_t offset, uint64_t length,
			       struct nfs4_lock_denied *denied, void *fs)
{
	const struct nfs4_fslock *h = NULL;
	enum nfsstat4 st = NFS4_OK;
	struct nfs4_owner *lo;
	const struct stid *s;
	uint64_t start, end;

	type = plain_type(type);
	if ((type != READ_LT && type != WRITE_LT) || !range_of(offset, length, &start, &end))
		return NFS4ERR_INVAL;
	pthread_mutex_lock(&t->lock);
	lo = state_owner_get(t, clientid, OWNER_LOCK, owner, len, false, &st);
	st = conflict(t, fid, clientid, lo, start, end, type, denied) ? NFS4ERR_DENIED : NFS4_OK;
	/* then local processes, skipping the owner's own locks on the file */
	if (st == NFS4_OK && t->fs && fs) {
		for (s = lo ? lo->stids : NULL; s; s = s->snext)
			if (s->f && s->f->id.dev == fid->dev && s->f->id.ino == fid->ino)
				h = s->fsl;
		st = t->fs->test(fs, h, type, start, end, denied);
	}
	pthread_mutex_unlock(&t->lock);
	return st;
}

enum nfsstat4 nfs4_state_release_lockowner(struct nfs4_state *t, clientid4 clientid,
					   const uint8_t *owner, uint32_t len)
{
	enum nfsstat4 st = NFS4_OK;
	struct nfs4_owner *lo;
	struct stid *s;

	pthread_mutex_lock(&t->lock);
	lo = state_owner_get(t, clientid, OWNER_LOCK, owner, len, false, &st);
	st = NFS4_OK;
	if (!lo)
		goto out;
	for (s = lo->stids; s; s = s->snext)
		if (s->ranges)
			st = NFS4ERR_LOCKS_HELD;
	if (st == NFS4_OK && lo->refs)
		st = NFS4ERR_DELAY;
	if (st == NFS4_OK)
		state_owner_free(t, lo);
out:
	pthread_mutex_unlock(&t->lock);
	return st;
}

void state_locks_of_open_drop(struct nfs4_state *t, struct stid *open)
{
	struct stid *s, *next;

	for (s = open->f->locks; s; s = next) {
		next = s->fnext;
		if (s->open == open)
			state_stid_drop(t, s);
	}
}
