/* SPDX-License-Identifier: MIT */
/*
 * A new session without blocking: CREATE_SESSION with the client id,
 * EXCHANGE_ID first when it is gone, then for a new client id the
 * reclaims of what the context held (the server restarted, and keeps
 * our state for us in its grace period; RFC 8881 8.4.2.1) and
 * RECLAIM_COMPLETE, each step retried after DELAY from nc4_tick while
 * the context's COMPOUNDs wait.
 *
 * The reclaims go one at a time on slot 0, in the order of the state
 * table (state4.h): per file OPEN CLAIM_PREVIOUS by handle with the
 * modes and delegation held, then LOCK reclaim of each byte range (the
 * first with open_to_lock_owner4 from the new open stateid, the next
 * with the new lock stateid). One at a time because nothing is waiting
 * on them but the context's own queue, and a server refusing one (no
 * grace for us: NO_GRACE, RECLAIM_BAD) answers at once, so no count of
 * files makes this long. What is refused is marked lost: its stateids
 * then fail with -EIO (state4.c), rather than go out and write with
 * state the server never gave back. A reclaim cut short by a lost
 * session starts the recovery again, and a recovery that failed leaves
 * the reclaim pending for the next one (RECLAIM_COMPLETE only after
 * every entry was tried).
 */
#include "client/session4_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "client/state4.h"
#include "client/sync.h"

enum { REC_CREATE_SESSION = 1, REC_EXCHANGE_ID, REC_RECLAIM };

static void rec_step(struct nfsx_ctx *ctx, int step);
static void rec_reclaim_next(struct nfsx_ctx *ctx);



/* Recovery failed: what waits fails, the next sync call tries again. */
static void recover_fail(struct nfsx_ctx *ctx, int err)
{
	struct nc4_session *s = ctx->v4;

	nc_set_error(ctx, "NFSv4.1 session: %s", nfsx_strerror(err));
	s->rec_err = err;
	s->recovering = false;
	s->up = false;
	nc4_fail_waiting(ctx, &s->waitq, -ENOTCONN);
	nc4_fail_waiting(ctx, &s->delayq, -ENOTCONN);
}

/* A step answered: true when it is to be retried after a DELAY. */
static bool rec_delay(struct nfsx_ctx *ctx, int step, int r)
{
	struct nc4_session *s = ctx->v4;
	uint64_t now = nc_now();

	if (r != NFS4ERR_DELAY || now >= s->rec_give_up)
		return false;
	s->rec_step = step;
	s->rec_due = now + (uint64_t)s->rec_backoff * 1000000u;
	s->rec_backoff = nc4_backoff_next(s->rec_backoff);
	return true;
}

static void rec_reclaim_done(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct nc4_session *s = ctx->v4;
	const struct nfsx4_res *r = res;

	(void)priv;
	if (!s || !s->recovering)
		return;
	if (!err && r->status != NFS4_OK && r->status != NFS4ERR_COMPLETE_ALREADY)
		err = (int)r->status;
	if (err) {
		recover_fail(ctx, err);
		return;
	}
	if (s->state)
		s->state->reclaiming = false;
	s->recovering = false;
	/* nc4_dispatch() runs when req_done returns */
}

/* A request on slot 0 of the new session, before anything else.
 * Return values: the request with @nops operations after SEQUENCE to
 * fill at q->ops + 1, or NULL (the recovery failed). */
static struct nc4_req *rec_req(struct nfsx_ctx *ctx, uint32_t nops)
{
	struct nc4_req *q = nc4_req_get(ctx->v4);

	if (!q) {
		recover_fail(ctx, -ENOMEM);
		return NULL;
	}
	memset(&q->ops[1], 0, nops * sizeof(q->ops[1]));
	q->args.minorversion = NC4_MINOR;
	q->args.nops = nops + 1;
	q->args.ops = q->ops;
	return q;
}

static void rec_send(struct nfsx_ctx *ctx, struct nc4_req *q, nfsx_cb cb)
{
	int r;

	q->cb = cb;
	q->priv = NULL;
	r = nc4_req_send(ctx, q, 0);
	if (r < 0) {
		nc4_req_put(ctx, q);
		recover_fail(ctx, r);
	}
}

/* A reclaim answered: false when the recovery went elsewhere (failed,
 * started again, or waits out a DELAY), true to look at the result. */
static bool rec_reclaim_answer(struct nfsx_ctx *ctx, int err, const struct nfsx4_res *r)
{
	struct nc4_session *s = ctx->v4;

	if (err) {
		recover_fail(ctx, err);
		return false;
	}
	if (nc4_verdict(r) == NC4_V_LOST) {
		/* the new session died too (another restart): from the start */
		s->recovering = false;
		nc4_recover_start(ctx);
		return false;
	}
	/* DELAY, or a sequence id the server had done (its reply lost):
	 * the same reclaim again after the back-off, until rec_give_up */
	return !rec_delay(ctx, REC_RECLAIM,
			  nc4_verdict(r) == NC4_V_AGAIN ? NFS4ERR_DELAY : (int)r->status);
}

static void rec_open_done(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct nc4_session *s = ctx->v4;
	const struct nfsx4_res *r = res;
	struct nc4_open *o;

	(void)priv;
	if (!s || !s->recovering || !rec_reclaim_answer(ctx, err, r))
		return;
	o = nc4_state_find_open(s, &s->state->rec_sid);
	if (o && r->status == NFS4_OK && r->nops == 3) {
		o->cur = r->ops[2].u.opopen.u.resok4.stateid;
		o->rec_opened = true;
		o->rec_range = 0;
		o->todo = o->nranges > 0;
		s->state->opens_reclaimed++;
	} else if (o) {
		/* NO_GRACE, RECLAIM_BAD, or the file is gone: lost */
		nc_set_error(ctx, "NFSv4 reclaim of an open: %s",
			     nfsx_strerror((int)r->status));
		o->lost = true;
		o->todo = false;
		s->state->opens_lost++;
		if (o->nranges) {
			o->lk_lost = true;
			s->state->locks_lost += o->nranges;
		}
	}
	rec_reclaim_next(ctx);
}

static void rec_lock_done(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct nc4_session *s = ctx->v4;
	const struct nfsx4_res *r = res;
	struct nc4_open *o;

	(void)priv;
	if (!s || !s->recovering || !rec_reclaim_answer(ctx, err, r))
		return;
	o = nc4_state_find_open(s, &s->state->rec_sid);
	if (o && r->status == NFS4_OK && r->nops == 3) {
		o->lk_cur = r->ops[2].u.oplock.u.resok4.lock_stateid;
		s->state->locks_reclaimed++;
		if (++o->rec_range >= o->nranges)
			o->todo = false;
	} else if (o) {
		nc_set_error(ctx, "NFSv4 reclaim of a lock: %s", nfsx_strerror((int)r->status));
		o->lk_lost = true;
		o->todo = false;
		s->state->locks_lost += o->nranges - o->rec_range;
	}
	rec_reclaim_next(ctx);
}

/* OPEN CLAIM_PREVIOUS of @o's file: the modes it had, and the
 * delegation it had, which the server may give again. */
static void rec_send_open(struct nfsx_ctx *ctx, struct nc4_open *o)
{
	struct nc4_session *s = ctx->v4;
	struct nc4_req *q = rec_req(ctx, 2);
	uint32_t access = o->access;
	struct OPEN4args *a;
	nfs_fh4 fh;

	if (!q)
		return;
	if (o->deleg == OPEN_DELEGATE_READ)
		access |= OPEN4_SHARE_ACCESS_WANT_READ_DELEG;
	else if (o->deleg == OPEN_DELEGATE_WRITE)
		access |= OPEN4_SHARE_ACCESS_WANT_WRITE_DELEG;
	/* the request lives on in the session: the handle is its copy */
	memcpy(s->state->rec_fh, o->fh, o->fh_len);
	fh.len = o->fh_len;
	fh.data = s->state->rec_fh;
	nc4_op_putfh(&q->ops[1], &fh);
	nc4_op_open_fh(&q->ops[2], s, access, o->deny);
	a = &q->ops[2].u.opopen;
	a->claim.claim = CLAIM_PREVIOUS;
	a->claim.u.delegate_type = o->deleg;
	rec_send(ctx, q, rec_open_done);
}

/* LOCK reclaim of @o's next byte range. */
static void rec_send_lock(struct nfsx_ctx *ctx, struct nc4_open *o)
{
	struct nc4_session *s = ctx->v4;
	const struct nc4_lrange *g = &o->ranges[o->rec_range];
	struct nc4_req *q = rec_req(ctx, 2);
	struct LOCK4args *a;
	nfs_fh4 fh;

	if (!q)
		return;
	memcpy(s->state->rec_fh, o->fh, o->fh_len);
	fh.len = o->fh_len;
	fh.data = s->state->rec_fh;
	nc4_op_putfh(&q->ops[1], &fh);
	q->ops[2].argop = OP_LOCK;
	a = &q->ops[2].u.oplock;
	a->locktype = g->type;
	a->reclaim = true;
	a->offset = g->start;
	a->length = g->end == UINT64_MAX ? UINT64_MAX : g->end - g->start;
	if (!s->lock_owner[0])
		snprintf(s->lock_owner, sizeof(s->lock_owner), "%s-lock", s->open_owner);
	if (o->rec_range == 0) {
		/* the lock-owner is new to the new client id */
		a->locker.new_lock_owner = true;
		a->locker.u.open_owner.open_stateid = o->cur;
		a->locker.u.open_owner.lock_owner.clientid = s->clientid;
		a->locker.u.open_owner.lock_owner.owner.data = (const uint8_t *)s->lock_owner;
		a->locker.u.open_owner.lock_owner.owner.len = (uint32_t)strlen(s->lock_owner);
	} else {
		a->locker.u.lock_owner.lock_stateid = o->lk_cur;
	}
	rec_send(ctx, q, rec_lock_done);
}

/* The next reclaim, or RECLAIM_COMPLETE once every entry was tried. */
static void rec_reclaim_next(struct nfsx_ctx *ctx)
{
	struct nc4_session *s = ctx->v4;
	struct nc4_open *o;
	struct nc4_req *q;

	/* (a range may have gone meanwhile: nothing left of it to take) */
	while ((o = nc4_state_next_todo(s)) && o->rec_opened && o->rec_range >= o->nranges)
		o->todo = false;
	if (o) {
		s->state->rec_sid = o->orig;
		if (!o->rec_opened)
			rec_send_open(ctx, o);
		else
			rec_send_lock(ctx, o);
		return;
	}
	/* RFC 8881 18.51: after the reclaims (none for a new client),
	 * before anything else is sent on the session. */
	q = rec_req(ctx, 1);
	if (!q)
		return;
	q->ops[1].argop = OP_RECLAIM_COMPLETE;
	q->ops[1].u.opreclaim_complete.rca_one_fs = false;
	rec_send(ctx, q, rec_reclaim_done);
}

static void rec_cs_done(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct nc4_session *s = ctx->v4;
	int r;

	(void)priv;
	if (!s || !s->recovering)
		return;
	r = err ? err : nc4_x_create_session(res, s);
	if (rec_delay(ctx, REC_CREATE_SESSION, r))
		return;
	if (r > 0 && !s->rec_fresh) {
		/* The client id went with the session: a new one. */
		s->rec_fresh = true;
		s->have_clientid = false;
		rec_step(ctx, REC_EXCHANGE_ID);
		return;
	}
	if (r == 0 && s->rec_fresh && nc4_state_reclaim_prepare(s) && s->state)
		s->state->reclaiming = true;
	if (r == 0)
		r = nc4_session_install(s);
	if (r != 0) {
		recover_fail(ctx, r);
		return;
	}
	s->up = true;
	if (!s->rec_fresh && !(s->state && s->state->reclaiming)) {
		s->recovering = false;
		nc4_dispatch(ctx);
		return;
	}
	rec_reclaim_next(ctx);
}

static void rec_eid_done(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct nc4_session *s = ctx->v4;
	int r;

	(void)priv;
	if (!s || !s->recovering)
		return;
	r = err ? err : nc4_x_exchange_id(res, s);
	if (rec_delay(ctx, REC_EXCHANGE_ID, r))
		return;
	if (r != 0) {
		recover_fail(ctx, r);
		return;
	}
	s->have_clientid = true;
	rec_step(ctx, REC_CREATE_SESSION);
}

static void rec_step(struct nfsx_ctx *ctx, int step)
{
	struct nc4_session *s = ctx->v4;
	struct nfs_argop4 op;
	int r;

	if (step == REC_RECLAIM) {
		rec_reclaim_next(ctx);
		return;
	}
	if (step == REC_EXCHANGE_ID) {
		nc4_eid_op(s, &op);
		r = nfsx4_compound(ctx, NC4_MINOR, &op, 1, rec_eid_done, NULL);
	} else {
		nc4_cs_op(ctx, s, &op);
		r = nfsx4_compound(ctx, NC4_MINOR, &op, 1, rec_cs_done, NULL);
	}
	if (r < 0)
		recover_fail(ctx, r);
}

/* No session yet, or it is gone (BADSESSION, DEADSESSION) or out of
 * step (SEQ_MISORDERED): a new one, with the client id while it lives. */
void nc4_recover_start(struct nfsx_ctx *ctx)
{
	struct nc4_session *s = ctx->v4;

	s->up = false;
	s->recovering = true;
	s->rec_fresh = !s->have_clientid;
	s->rec_err = 0;
	s->rec_due = 0;
	s->rec_backoff = DELAY_MIN_MS;
	s->rec_give_up = nc_now() + (uint64_t)ctx->o.timeo_ms * 1000000u;
	rec_step(ctx, s->have_clientid ? REC_CREATE_SESSION : REC_EXCHANGE_ID);
}

void nc4_recover_tick(struct nfsx_ctx *ctx, uint64_t now)
{
	struct nc4_session *s = ctx->v4;

	if (s->recovering && s->rec_due && now >= s->rec_due) {
		s->rec_due = 0;
		rec_step(ctx, s->rec_step);
	}
}
