/* SPDX-License-Identifier: MIT */
/*
 * The fore channel's slot table and SEQUENCE: a COMPOUND takes a free
 * slot or waits in the FIFO, a reply moves the slot on, and under
 * NC4_RETRY a DELAY or a lost session keeps the COMPOUND to send again.
 */
#include "client/session4_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client/state4.h"
#include "client/sync.h"

/* Requests are reused: nothing is allocated per COMPOUND once warm. */
struct nc4_req *nc4_req_get(struct nc4_session *s)
{
	struct nc4_req *q;

	if (!nc_list_empty(&s->freeq)) {
		q = nc_container_of(s->freeq.next, struct nc4_req, link);
		nc_list_del(&q->link);
	} else {
		q = malloc(sizeof(*q));
		if (!q)
			return NULL;
	}
	/* Not the operations, which the caller fills (nor stand_in). */
	memset(q, 0, offsetof(struct nc4_req, ops));
	nc_list_init(&q->link);
	return q;
}

void nc4_req_put(struct nfsx_ctx *ctx, struct nc4_req *q)
{
	if (ctx->v4)
		nc_list_add_tail(&ctx->v4->freeq, &q->link);
	else
		free(q);
}

/* Complete every request of @list with @err (callbacks may queue more:
 * they go on other lists, or on this one only while the session is up). */
void nc4_fail_waiting(struct nfsx_ctx *ctx, struct nc_list *list, int err)
{
	while (!nc_list_empty(list)) {
		struct nc4_req *q = nc_container_of(list->next, struct nc4_req, link);

		nc_list_del(&q->link);
		ctx->in_cb++;
		q->cb(ctx, err, NULL, q->priv);
		ctx->in_cb--;
		nc4_req_put(ctx, q);
	}
}

int nc4_free_slot(const struct nc4_session *s)
{
	uint32_t n = s->target < s->nslots ? s->target : s->nslots;
	uint32_t w;

	for (w = 0; w * 64 < n; w++) {
		if (~s->busy[w]) {
			uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(~s->busy[w]);

			return i < n ? (int)i : -1;
		}
	}
	return -1;
}

static uint32_t highest_busy(const struct nc4_session *s)
{
	uint32_t w;

	for (w = (s->nslots + 63) / 64; w-- > 0;)
		if (s->busy[w])
			return w * 64 + 63 - (uint32_t)__builtin_clzll(s->busy[w]);
	return 0;
}

static void set_busy(struct nc4_session *s, uint32_t slot, bool busy)
{
	uint64_t bit = 1ull << (slot % 64);

	if (busy)
		s->busy[slot / 64] |= bit;
	else
		s->busy[slot / 64] &= ~bit;
}

static void req_done(struct nfsx_ctx *ctx, int err, void *res, void *priv);

int nc4_req_send(struct nfsx_ctx *ctx, struct nc4_req *q, uint32_t slot)
{
	struct nc4_session *s = ctx->v4;
	struct SEQUENCE4args *sa = &q->ops[0].u.opsequence;
	uint32_t i;
	int r;

	/* The caller's stateids of reclaimed state: the server's of now
	 * (after SEQUENCE, which is filled below). */
	r = nc4_state_map(s, q->ops + 1, q->args.nops - 1);
	if (r < 0)
		return r;
	q->slot = slot;
	q->gen = s->gen;
	q->args.minorversion = s->minor;
	q->t_sent = nc_now();
	/* NC4_RETRY's deadline, from submission: read here once, by the
	 * first send (nc4_call_end reads the clock only to queue) */
	if (!q->give_up)
		q->give_up = q->t_sent + (uint64_t)ctx->o.timeo_ms * 1000000u;
	set_busy(s, slot, true);
	memset(&q->ops[0], 0, sizeof(q->ops[0]));
	q->ops[0].argop = OP_SEQUENCE;
	sa->sa_sessionid = s->sid;
	sa->sa_sequenceid = s->slots[slot].seq + 1;
	sa->sa_slotid = slot;
	sa->sa_highest_slotid = highest_busy(s);
	sa->sa_cachethis = false;
	/* The client id of now: a recovery since the submission may have
	 * made a new one. */
	for (i = 1; i < q->args.nops; i++)
		if (q->ops[i].argop == OP_OPEN)
			q->ops[i].u.opopen.owner.clientid = s->clientid;
	r = nfsx_call(ctx, q->as ? q->as : &nfsx_nfs4_compound, &q->args, req_done, q);
	if (r < 0)
		set_busy(s, slot, false);
	else
		nc_list_add_tail(&s->sentq, &q->link);
	return r;
}

/* Slots freed: send what waits, as long as slots last (not while a
 * recovery holds the queue until its RECLAIM_COMPLETE is done). */
void nc4_dispatch(struct nfsx_ctx *ctx)
{
	struct nc4_session *s = ctx->v4;
	int slot;

	while (s->up && !s->recovering && !nc_list_empty(&s->waitq) &&
	       (slot = nc4_free_slot(s)) >= 0) {
		struct nc4_req *q = nc_container_of(s->waitq.next, struct nc4_req, link);
		int r;

		nc_list_del(&q->link);
		r = nc4_req_send(ctx, q, (uint32_t)slot);
		if (r < 0) {
			q->cb(ctx, r, NULL, q->priv);
			nc4_req_put(ctx, q);
		}
	}
}

/* What the reply's SEQUENCE says about the slot and the table. */
static int seq_result(struct nc4_session *s, struct nc4_req *q, const struct nfsx4_res *r)
{
	const struct SEQUENCE4res *sr;
	const struct SEQUENCE4resok *ok;

	if (r->nops < 1)
		return -EPROTO;
	sr = &r->ops[0].u.opsequence;
	/* The server has done that sequence id already (the call we retried
	 * after a transport failure had reached it, or the slot was used
	 * behind our back: a "false retry"): it is used up. */
	if (sr->sr_status == NFS4ERR_RETRY_UNCACHED_REP ||
	    sr->sr_status == NFS4ERR_SEQ_FALSE_RETRY)
		s->slots[q->slot].seq = q->ops[0].u.opsequence.sa_sequenceid;
	if (sr->sr_status != NFS4_OK)
		return 0;
	ok = &sr->u.sr_resok4;
	if (ok->sr_slotid != q->slot ||
	    ok->sr_sequenceid != q->ops[0].u.opsequence.sa_sequenceid ||
	    memcmp(ok->sr_sessionid.val, s->sid.val, sizeof(s->sid.val)) != 0)
		return -EPROTO;
	s->slots[q->slot].seq = ok->sr_sequenceid;
	if (q->t_sent > s->renewed)
		s->renewed = q->t_sent;
	/* Use no slot above the server's target, nor above its highest. */
	s->target = ok->sr_target_highest_slotid + 1;
	if (ok->sr_highest_slotid + 1 < s->target)
		s->target = ok->sr_highest_slotid + 1;
	if (s->target > s->nslots || s->target == 0)
		s->target = s->nslots;
	return 0;
}

/*
 * NC4_RETRY: what the sync layer's loop does, without waiting. A DELAY
 * (or a retried sequence id the server had done) puts @q on the timed
 * list; a lost session puts it back in the slot queue behind a recovery.
 * Return values: true when @q was kept for sending again.
 */
static bool retry(struct nfsx_ctx *ctx, struct nc4_session *s, struct nc4_req *q, int err,
		  const struct nfsx4_res *r)
{
	uint64_t now;

	if (err || ctx->dying)
		return false;
	switch (nc4_verdict(r)) {
	case NC4_V_AGAIN:
		now = nc_now();
		if (now >= q->give_up)
			return false;
		if (r->status == NFS4ERR_GRACE && nc4_state_of(s))
			s->state->grace_retries++;
		q->due = now + (uint64_t)q->backoff * 1000000u;
		q->backoff = nc4_backoff_next(q->backoff);
		nc_list_add_tail(&s->delayq, &q->link);
		return true;
	case NC4_V_LOST:
		/* A reply of an older session says nothing of the current
		 * one: sent again, without using up the one resend. */
		if (q->gen == s->gen) {
			if (q->recovered)
				return false;
			q->recovered = true;
			if (s->up && !s->recovering)
				nc4_recover_start(ctx);
		}
		if (!s->up && !s->recovering)
			return false;
		nc_list_add_head(&s->waitq, &q->link);
		return true;
	case NC4_V_DONE:
		break;
	}
	return false;
}

/* The callback, with the last operation's result under NC4_LAST. */
static void deliver(struct nfsx_ctx *ctx, struct nc4_req *q, int err, struct nfsx4_res *r)
{
	void *res = r;

	if (!err && (q->flags & NC4_LAST)) {
		uint32_t last = q->args.nops - 1;

		if (r->nops == q->args.nops) {
			res = &r->ops[last].u;
		} else {
			/* nc4_check_reply: a short list ends with an error */
			memset(&q->stand_in, 0, sizeof(q->stand_in));
			q->stand_in.resop = q->ops[last].argop;
			q->stand_in.u.opillegal.status = r->status;
			res = &q->stand_in.u;
		}
	}
	q->cb(ctx, err, err ? NULL : res, q->priv);
}

/* SEQUENCE says the server cannot reach our back channel. */
static bool cb_path_down(const struct nfsx4_res *r)
{
	const struct SEQUENCE4res *sr = &r->ops[0].u.opsequence;

	return r->nops >= 1 && sr->sr_status == NFS4_OK &&
	       (sr->u.sr_resok4.sr_status_flags &
		(SEQ4_STATUS_CB_PATH_DOWN | SEQ4_STATUS_CB_PATH_DOWN_SESSION));
}

static void req_done(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct nc4_req *q = priv;
	struct nc4_session *s = ctx->v4, *cur = s;

	nc_list_del(&q->link); /* off sentq */
	/* A reply from a session replaced since frees no slot of this one. */
	if (cur && q->gen != cur->gen)
		cur = NULL;
	if (cur)
		set_busy(cur, q->slot, false);
	if (!err)
		err = nc4_check_reply(ctx, q->ops, q->args.nops, res, q->as);
	if (!err && cur)
		err = seq_result(cur, q, res);
	if (!err && cur && cb_path_down(res))
		nc4_cb_rebind(ctx);
	if (s && (q->flags & NC4_RETRY) && retry(ctx, s, q, err, res)) {
		nc4_dispatch(ctx);
		return;
	}
	deliver(ctx, q, err, res);
	nc4_req_put(ctx, q);
	if (ctx->v4)
		nc4_dispatch(ctx);
	if (ctx->v4 && !nc_list_empty(&ctx->v4->delegs))
		nc4_deleg_kick(ctx);
}

int nc4_call_begin(struct nfsx_ctx *c, uint32_t nops, struct nc4_req **qp,
		   struct nfs_argop4 **ops)
{
	struct nc4_session *s = c->v4;
	struct nc4_req *q;

	if (!s || (!s->up && !s->recovering))
		return -ENOTCONN;
	if (nops + 1 > NFSX4_MAX_OPS || nops + 1 > s->maxops)
		return -E2BIG;
	q = nc4_req_get(s);
	if (!q)
		return -ENOMEM;
	q->args.minorversion = NC4_MINOR;
	q->args.nops = nops + 1;
	q->args.ops = q->ops;
	*qp = q;
	*ops = &q->ops[1];
	return 0;
}

int nc4_call_end(struct nfsx_ctx *c, struct nc4_req *q, const struct nfsx_proc *as,
		 unsigned flags, nfsx_cb cb, void *priv)
{
	struct nc4_session *s = c->v4;
	int slot, r;

	q->as = as;
	q->flags = flags;
	q->backoff = DELAY_MIN_MS;
	q->give_up = 0;
	q->cb = cb;
	q->priv = priv;
	slot = s->up && !s->recovering && nc_list_empty(&s->waitq) ? nc4_free_slot(s) : -1;
	if (slot < 0) {
		q->give_up = nc_now() + (uint64_t)c->o.timeo_ms * 1000000u;
		nc_list_add_tail(&s->waitq, &q->link);
		return 0;
	}
	r = nc4_req_send(c, q, (uint32_t)slot);
	if (r < 0)
		nc4_req_put(c, q);
	return r;
}

int nc4_call_as(struct nfsx_ctx *c, const struct nfsx_proc *as, unsigned flags,
		const struct nfs_argop4 *ops, uint32_t nops, nfsx_cb cb, void *priv)
{
	struct nfs_argop4 *o;
	struct nc4_req *q;
	int r;

	r = nc4_call_begin(c, nops, &q, &o);
	if (r < 0)
		return r;
	if (nops)
		memcpy(o, ops, nops * sizeof(*ops));
	return nc4_call_end(c, q, as, flags, cb, priv);
}

int nfsx4_call(struct nfsx_ctx *c, const struct nfs_argop4 *ops, uint32_t nops,
	       nfsx_cb cb, void *priv)
{
	return nc4_call_as(c, NULL, 0, ops, nops, cb, priv);
}
