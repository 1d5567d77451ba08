/* SPDX-License-Identifier: MIT */
/*
 * The session's timed work (nc4_deadline, nc4_tick): lease renewal,
 * COMPOUNDs due after DELAY, a recovery step due after DELAY.
 */
#include "client/session4_int.h"

#include <errno.h>

#include "client/sync.h"

static uint64_t renew_deadline(const struct nc4_session *s)
{
	/* With every slot busy, the replies on the way renew the lease: no
	 * deadline then (one in the past would spin the loop). */
	if (!s || !s->up || s->renewing || nc4_free_slot(s) < 0)
		return 0;
	return s->renewed + (uint64_t)s->lease_s * 1000000000u / 3;
}

static uint64_t earliest(uint64_t a, uint64_t b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

uint64_t nc4_deadline(const struct nfsx_ctx *ctx)
{
	const struct nc4_session *s = ctx->v4;
	const struct nc_list *l;
	uint64_t d;

	if (!s)
		return 0;
	d = renew_deadline(s);
	for (l = s->delayq.next; l != &s->delayq; l = l->next)
		d = earliest(d, nc_container_of(l, struct nc4_req, link)->due);
	if (s->recovering)
		d = earliest(d, s->rec_due);
	return d;
}

static void renew_done(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	const struct nfsx4_res *r = res;

	(void)priv;
	if (!ctx->v4)
		return;
	ctx->v4->renewing = false;
	/* A failure shows in the next call (BADSESSION: recovery); until then
	 * the next try is a third of the lease away, not at once. */
	if (err || r->status != NFS4_OK)
		ctx->v4->renewed = nc_now();
}

static void renew(struct nfsx_ctx *ctx, uint64_t now)
{
	struct nc4_session *s = ctx->v4;
	uint64_t due = renew_deadline(s);

	if (!due || now < due)
		return;
	/* No room for the SEQUENCE: the next reply moves the deadline on. */
	if (nfsx4_call(ctx, NULL, 0, renew_done, NULL) == 0)
		s->renewing = true;
	else
		s->renewed = now;
}

void nc4_tick(struct nfsx_ctx *ctx, uint64_t now)
{
	struct nc4_session *s = ctx->v4;
	struct nc_list *l, *next;

	if (!s)
		return;
	nc4_recover_tick(ctx, now);
	for (l = s->delayq.next; ctx->v4 && l != &s->delayq; l = next) {
		struct nc4_req *q = nc_container_of(l, struct nc4_req, link);

		next = l->next;
		if (q->due > now)
			continue;
		nc_list_del(&q->link);
		if (!s->up && !s->recovering) {
			ctx->in_cb++;
			q->cb(ctx, -ENOTCONN, NULL, q->priv);
			ctx->in_cb--;
			nc4_req_put(ctx, q);
		} else {
			nc_list_add_tail(&s->waitq, &q->link);
		}
	}
	if (ctx->v4 && s->up)
		nc4_dispatch(ctx);
	if (ctx->v4)
		renew(ctx, now);
}
