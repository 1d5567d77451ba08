/* SPDX-License-Identifier: MIT */
/*
 * A new session without blocking: CREATE_SESSION with the client id,
 * EXCHANGE_ID first when it is gone, RECLAIM_COMPLETE for a new client,
 * each step retried after DELAY from nc4_tick while COMPOUNDs wait.
 */
#include "client/session4_int.h"

#include <errno.h>
#include <string.h>

#include "client/sync.h"

enum { REC_CREATE_SESSION = 1, REC_EXCHANGE_ID };

static void rec_step(struct nfsx_ctx *ctx, int step);



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
	s->recovering = false;
	/* nc4_dispatch() runs when req_done returns */
}

static void rec_cs_done(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct nc4_session *s = ctx->v4;
	struct nc4_req *q;
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
	if (r == 0)
		r = nc4_session_install(s);
	if (r != 0) {
		recover_fail(ctx, r);
		return;
	}
	s->up = true;
	if (!s->rec_fresh) {
		s->recovering = false;
		nc4_dispatch(ctx);
		return;
	}
	/* A new client reclaims nothing (RFC 8881 18.51), before anything
	 * else is sent on the session. */
	q = nc4_req_get(s);
	if (!q) {
		recover_fail(ctx, -ENOMEM);
		return;
	}
	q->ops[1].argop = OP_RECLAIM_COMPLETE;
	q->ops[1].u.opreclaim_complete.rca_one_fs = false;
	q->args.minorversion = NC4_MINOR;
	q->args.nops = 2;
	q->args.ops = q->ops;
	q->cb = rec_reclaim_done;
	q->priv = NULL;
	r = nc4_req_send(ctx, q, 0);
	if (r < 0) {
		nc4_req_put(ctx, q);
		recover_fail(ctx, r);
	}
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
