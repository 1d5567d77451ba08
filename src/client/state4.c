/* SPDX-License-Identifier: MIT */
/*
 * The table of open and lock state of a context (state4.h): what the
 * replies say is held, the caller's stateids mapped to the server's of
 * now, and what a reclaim after a server restart has to take again.
 */
#include "client/state4.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct nc4_state *nc4_state_of(struct nc4_session *s)
{
	if (!s->state)
		s->state = calloc(1, sizeof(*s->state));
	return s->state;
}

void nc4_state_free(struct nc4_session *s)
{
	uint32_t i;

	if (!s->state)
		return;
	for (i = 0; i < s->state->nopens; i++)
		free(s->state->opens[i].ranges);
	free(s->state->opens);
	free(s->state);
	s->state = NULL;
}

/* All zeros (anonymous, or the current stateid) or all ones (bypass):
 * no state of ours. */
static bool special(const struct stateid4 *sid)
{
	static const uint8_t zero[12], ones[12] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
						    0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	return memcmp(sid->other, zero, 12) == 0 || memcmp(sid->other, ones, 12) == 0;
}

static bool same(const struct stateid4 *a, const struct stateid4 *b)
{
	return memcmp(a->other, b->other, sizeof(a->other)) == 0;
}

/* The entry @sid names, as its open (*@lock false) or lock stateid. */
static struct nc4_open *find(struct nc4_state *st, const struct stateid4 *sid, bool *lock)
{
	uint32_t i;

	if (!st || special(sid))
		return NULL;
	for (i = 0; i < st->nopens; i++) {
		struct nc4_open *o = &st->opens[i];

		if (same(&o->orig, sid) || same(&o->cur, sid)) {
			*lock = false;
			return o;
		}
		if (o->have_lk && (same(&o->lk_orig, sid) || same(&o->lk_cur, sid))) {
			*lock = true;
			return o;
		}
	}
	return NULL;
}

static void drop(struct nc4_state *st, struct nc4_open *o)
{
	free(o->ranges);
	*o = st->opens[--st->nopens];
}

static struct nc4_open *add_open(struct nc4_state *st, const struct stateid4 *sid,
				 const nfs_fh4 *fh)
{
	struct nc4_open *o;

	if (fh->len == 0 || fh->len > NFS4_FHSIZE)
		return NULL;
	if (st->nopens == st->cap) {
		uint32_t cap = st->cap ? st->cap * 2 : 8;
		struct nc4_open *n = realloc(st->opens, cap * sizeof(*n));

		if (!n)
			return NULL;
		st->opens = n;
		st->cap = cap;
	}
	o = &st->opens[st->nopens++];
	memset(o, 0, sizeof(*o));
	o->orig = o->cur = *sid;
	o->fh_len = fh->len;
	memcpy(o->fh, fh->data, fh->len);
	return o;
}

/* ---- byte ranges -------------------------------------------------------- */

static uint64_t range_end(uint64_t off, uint64_t len)
{
	return len == UINT64_MAX || off + len < off ? UINT64_MAX : off + len;
}

static int ranges_grow(struct nc4_open *o)
{
	uint32_t cap;
	struct nc4_lrange *n;

	if (o->nranges < o->cap)
		return 0;
	cap = o->cap ? o->cap * 2 : 4;
	n = realloc(o->ranges, cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	o->ranges = n;
	o->cap = cap;
	return 0;
}

/* [@start, @end) unlocked: ranges inside go, those across are cut. */
static int lock_cut(struct nc4_open *o, uint64_t start, uint64_t end)
{
	uint32_t i = 0;

	while (i < o->nranges) {
		struct nc4_lrange *r = &o->ranges[i];

		if (r->end <= start || r->start >= end) {
			i++;
		} else if (r->start >= start && r->end <= end) {
			*r = o->ranges[--o->nranges];
		} else if (r->start < start && r->end > end) {
			struct nc4_lrange tail = { end, r->end, r->type };

			if (ranges_grow(o) < 0)
				return -ENOMEM;
			r = &o->ranges[i];
			r->end = start;
			o->ranges[o->nranges++] = tail;
			i++;
		} else if (r->start < start) {
			r->end = start;
			i++;
		} else {
			r->start = end;
			i++;
		}
	}
	return 0;
}

int nc4_state_lock_add(struct nc4_open *o, uint64_t start, uint64_t end, uint32_t type)
{
	if (type == READW_LT)
		type = READ_LT;
	else if (type == WRITEW_LT)
		type = WRITE_LT;
	if (lock_cut(o, start, end) < 0 || ranges_grow(o) < 0)
		return -ENOMEM;
	o->ranges[o->nranges].start = start;
	o->ranges[o->nranges].end = end;
	o->ranges[o->nranges].type = type;
	o->nranges++;
	return 0;
}

/* ---- replies ------------------------------------------------------------ */

static void note_open(struct nc4_state *st, const struct nfs_argop4 *op,
		      const struct OPEN4resok *ok, const nfs_fh4 *fh)
{
	const struct OPEN4args *a = &op->u.opopen;
	bool lk;
	struct nc4_open *o = find(st, &ok->stateid, &lk);

	if (o && lk)
		return;
	if (!o && (!fh || !(o = add_open(st, &ok->stateid, fh))))
		return;
	/* A second OPEN by the owner adds its modes to the stateid's. */
	o->access |= a->share_access & OPEN4_SHARE_ACCESS_BOTH;
	o->deny |= a->share_deny & OPEN4_SHARE_DENY_BOTH;
	o->cur = ok->stateid;
	if (same(&o->orig, &ok->stateid))
		o->orig = ok->stateid;
}

static void note_lock(struct nc4_state *st, const struct LOCK4args *a,
		      const struct stateid4 *got, const struct stateid4 *csid)
{
	const struct stateid4 *by = a->locker.new_lock_owner ?
				    &a->locker.u.open_owner.open_stateid :
				    &a->locker.u.lock_owner.lock_stateid;
	struct nc4_open *o;
	bool lk;

	if (special(by) && csid)
		by = csid;
	o = find(st, by, &lk);
	if (!o)
		return;
	if (!o->have_lk || (!same(&o->lk_orig, got) && !same(&o->lk_cur, got))) {
		o->lk_orig = *got;
		o->have_lk = true;
	}
	o->lk_cur = *got;
	nc4_state_lock_add(o, a->offset, range_end(a->offset, a->length), a->locktype);
}

void nc4_state_note(struct nfsx_ctx *ctx, const struct nfs_argop4 *ops, uint32_t nops,
		    const struct nfsx4_res *r)
{
	struct nc4_state *st;
	const nfs_fh4 *fh = NULL;
	const struct stateid4 *csid = NULL;
	uint32_t i;

	if (!ctx->v4)
		return;
	st = ctx->v4->state;
	for (i = 0; i < r->nops && i < nops; i++) {
		const struct nfs_resop4 *res = &r->ops[i];
		const struct nfs_argop4 *op = &ops[i];
		struct nc4_open *o;
		const struct stateid4 *sid;
		bool lk;

		if (nc4_op_status(res) != NFS4_OK)
			break;
		switch (res->resop) {
		case OP_PUTFH:
			fh = &op->u.opputfh.object;
			break;
		case OP_GETFH:
			fh = &res->u.opgetfh.u.resok4.object;
			break;
		case OP_OPEN:
			csid = &res->u.opopen.u.resok4.stateid;
			/* reclaims are the recovery's (session4_recover.c) */
			if (op->u.opopen.claim.claim == CLAIM_PREVIOUS)
				break;
			if (!st && !(st = nc4_state_of(ctx->v4)))
				return;
			/* by name: the handle is GETFH's after it */
			if (op->u.opopen.claim.claim != CLAIM_FH)
				fh = i + 1 < r->nops && r->ops[i + 1].resop == OP_GETFH &&
				     nc4_op_status(&r->ops[i + 1]) == NFS4_OK ?
				     &r->ops[i + 1].u.opgetfh.u.resok4.object : NULL;
			note_open(st, op, &res->u.opopen.u.resok4, fh);
			break;
		case OP_CLOSE:
			sid = &op->u.opclose.open_stateid;
			if (special(sid) && csid)
				sid = csid;
			if ((o = find(st, sid, &lk)) && !lk)
				drop(st, o);
			break;
		case OP_OPEN_DOWNGRADE:
			if ((o = find(st, &op->u.opopen_downgrade.open_stateid, &lk)) && !lk) {
				o->access = op->u.opopen_downgrade.share_access &
					    OPEN4_SHARE_ACCESS_BOTH;
				o->deny = op->u.opopen_downgrade.share_deny & OPEN4_SHARE_DENY_BOTH;
			}
			break;
		case OP_LOCK:
			if (!op->u.oplock.reclaim && st)
				note_lock(st, &op->u.oplock, &res->u.oplock.u.resok4.lock_stateid,
					  csid);
			break;
		case OP_LOCKU:
			if ((o = find(st, &op->u.oplocku.lock_stateid, &lk)) && lk)
				lock_cut(o, op->u.oplocku.offset,
					 range_end(op->u.oplocku.offset, op->u.oplocku.length));
			break;
		default:
			break;
		}
	}
}

/* ---- sending ------------------------------------------------------------ */

/* @sid replaced by the server's stateid of now for what it names. */
static int map_one(struct nc4_state *st, struct stateid4 *sid, bool closing)
{
	struct nc4_open *o;
	bool lk;

	o = find(st, sid, &lk);
	if (!o)
		return 0;
	if (o->lost || (lk && o->lk_lost) || (!closing && o->lk_lost)) {
		st->eio++;
		/* a lost open closed: nothing of it is left to send */
		if (closing && o->lost)
			drop(st, o);
		return -EIO;
	}
	if (lk && !same(&o->lk_orig, &o->lk_cur) && same(&o->lk_orig, sid)) {
		*sid = o->lk_cur;
		sid->seqid = 0;    /* the current one (RFC 8881 8.2.2) */
	} else if (!lk && !same(&o->orig, &o->cur) && same(&o->orig, sid)) {
		*sid = o->cur;
		sid->seqid = 0;
	}
	return 0;
}

int nc4_state_map(struct nc4_session *s, struct nfs_argop4 *ops, uint32_t nops)
{
	struct nc4_state *st = s->state;
	uint32_t i;
	int r = 0;

	/* Until a reclaim, every stateid is the server's: nothing to look up. */
	if (!st || !st->remapped || st->nopens == 0)
		return 0;
	for (i = 0; i < nops && r == 0; i++) {
		struct nfs_argop4 *op = &ops[i];

		switch (op->argop) {
		case OP_READ: r = map_one(st, &op->u.opread.stateid, false); break;
		case OP_WRITE: r = map_one(st, &op->u.opwrite.stateid, false); break;
		case OP_SETATTR: r = map_one(st, &op->u.opsetattr.stateid, false); break;
		case OP_CLOSE: r = map_one(st, &op->u.opclose.open_stateid, true); break;
		case OP_OPEN_DOWNGRADE:
			r = map_one(st, &op->u.opopen_downgrade.open_stateid, false);
			break;
		case OP_LOCK:
			if (op->u.oplock.reclaim)
				break;
			r = map_one(st, op->u.oplock.locker.new_lock_owner ?
				    &op->u.oplock.locker.u.open_owner.open_stateid :
				    &op->u.oplock.locker.u.lock_owner.lock_stateid, false);
			break;
		case OP_LOCKU: r = map_one(st, &op->u.oplocku.lock_stateid, false); break;
		case OP_READ_PLUS: r = map_one(st, &op->u.opread_plus.rpa_stateid, false); break;
		case OP_SEEK: r = map_one(st, &op->u.opseek.sa_stateid, false); break;
		case OP_ALLOCATE: r = map_one(st, &op->u.opallocate.aa_stateid, false); break;
		case OP_DEALLOCATE: r = map_one(st, &op->u.opdeallocate.da_stateid, false); break;
		case OP_COPY:
			r = map_one(st, &op->u.opcopy.ca_src_stateid, false);
			if (r == 0)
				r = map_one(st, &op->u.opcopy.ca_dst_stateid, false);
			break;
		case OP_CLONE:
			r = map_one(st, &op->u.opclone.cl_src_stateid, false);
			if (r == 0)
				r = map_one(st, &op->u.opclone.cl_dst_stateid, false);
			break;
		default:
			break;
		}
	}
	return r;
}

/* ---- reclaim ------------------------------------------------------------ */

uint32_t nc4_state_reclaim_prepare(struct nc4_session *s)
{
	struct nc4_state *st = s->state;
	uint32_t i, n = 0;
	struct nc_list *l;

	if (!st)
		return 0;
	for (i = 0; i < st->nopens; i++) {
		struct nc4_open *o = &st->opens[i];

		o->deleg = OPEN_DELEGATE_NONE;
		/* what is lost stays lost: its stateids are void anyway */
		o->todo = !o->lost;
		o->rec_opened = false;
		o->rec_range = 0;
		n += o->todo;
		for (l = s->delegs.next; l != &s->delegs; l = l->next) {
			const struct nc4_deleg *d = nc_container_of(l, struct nc4_deleg, link);

			if (d->fh_len == o->fh_len && memcmp(d->fh, o->fh, o->fh_len) == 0 &&
			    !d->recalled)
				o->deleg = d->write ? OPEN_DELEGATE_WRITE : OPEN_DELEGATE_READ;
		}
	}
	if (n) {
		st->reclaims++;
		st->remapped = true;
	}
	return n;
}

struct nc4_open *nc4_state_next_todo(struct nc4_session *s)
{
	uint32_t i;

	if (!s->state)
		return NULL;
	for (i = 0; i < s->state->nopens; i++)
		if (s->state->opens[i].todo)
			return &s->state->opens[i];
	return NULL;
}

struct nc4_open *nc4_state_find_open(struct nc4_session *s, const struct stateid4 *sid)
{
	bool lk;
	struct nc4_open *o = find(s->state, sid, &lk);

	return o && !lk ? o : NULL;
}

int nfsx4_recover_stats_get(const struct nfsx_ctx *c, struct nfsx4_recover_stats *st)
{
	const struct nc4_state *t;

	memset(st, 0, sizeof(*st));
	if (!c->v4)
		return -ENOTCONN;
	t = c->v4->state;
	if (!t)
		return 0;
	st->reclaims = t->reclaims;
	st->opens_reclaimed = t->opens_reclaimed;
	st->locks_reclaimed = t->locks_reclaimed;
	st->opens_lost = t->opens_lost;
	st->locks_lost = t->locks_lost;
	st->grace_retries = t->grace_retries;
	st->lost_io = t->eio;
	st->opens_held = t->nopens;
	return 0;
}
