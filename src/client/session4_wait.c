/* SPDX-License-Identifier: MIT */
/*
 * The synchronous waits: nc4_sync over the session (the session's
 * retries do the work while the loop runs) and nc4_sync_raw outside
 * it, with its own DELAY back-off.
 */
#include "client/session4_int.h"

#include <errno.h>

#include "client/sync.h"

struct wait4 {
	bool done;
	int err;
	bool again;                /* nc4_sync_raw: send again after a back-off */
	nc4_extract_fn extract;
	void *out;
};

/* The outcome; under NC4_RETRY an AGAIN or LOST verdict comes only when
 * the session gave up retrying, and is the call's status. */
static void wait4_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct wait4 *w = priv;
	const struct nfsx4_res *r = res;
	enum nc4_verdict v;

	(void)ctx;
	w->done = true;
	w->err = err;
	w->again = false;
	if (err)
		return;
	v = nc4_verdict(r);
	w->again = v == NC4_V_AGAIN;
	w->err = v == NC4_V_DONE && w->extract ? w->extract(r, w->out) : (int)r->status;
}

static int wait4_run(struct nfsx_ctx *ctx, struct wait4 *w)
{
	while (!w->done)
		nfsx_run_once(ctx, -1);
	return w->err;
}

/* Run the loop for @ms without a call of ours in flight. */
static void pause_ms(struct nfsx_ctx *ctx, unsigned ms)
{
	uint64_t end = nc_now() + (uint64_t)ms * 1000000u;
	uint64_t now;

	while ((now = nc_now()) < end)
		nfsx_run_once(ctx, (int)((end - now) / 1000000u) + 1);
}

/* Wait @ms after a DELAY; the next wait, doubled up to DELAY_MAX_MS. */
static unsigned delay_wait(struct nfsx_ctx *ctx, unsigned ms)
{
	pause_ms(ctx, ms);
	return nc4_backoff_next(ms);
}

/* A COMPOUND outside the session, DELAY retried as in nc4_sync. */
int nc4_sync_raw(struct nfsx_ctx *ctx, const struct nfs_argop4 *ops, uint32_t nops,
		    nc4_extract_fn extract, void *out)
{
	uint64_t give_up = nc_now() + (uint64_t)ctx->o.timeo_ms * 1000000u;
	unsigned backoff = DELAY_MIN_MS;
	int r;

	if (nc_sync_forbidden(ctx))
		return -EDEADLK;
	for (;;) {
		struct wait4 w = { .extract = extract, .out = out };

		r = nfsx4_compound(ctx, NC4_MINOR, ops, nops, wait4_cb, &w);
		if (r < 0)
			return r;
		r = wait4_run(ctx, &w);
		if (!w.again)
			return r;
		if (nc_now() >= give_up)
			return r;
		backoff = delay_wait(ctx, backoff);
	}
}

/*
 * The session's own retries (NC4_RETRY) do the work: the DELAY back-off
 * on its timed list and a lost session's recovery, the one the
 * asynchronous wrappers get, while this call runs the loop.
 */
int nc4_sync(struct nfsx_ctx *ctx, const struct nfs_argop4 *ops, uint32_t nops,
	     nc4_extract_fn extract, void *out)
{
	struct wait4 w = { .extract = extract, .out = out };
	int r;

	if (nc_sync_forbidden(ctx))
		return -EDEADLK;
	if ((!ctx->v4 || !ctx->v4->up) && (r = nfsx4_session_open(ctx)) != 0)
		return r;
	r = nc4_call_as(ctx, NULL, NC4_RETRY, ops, nops, wait4_cb, &w);
	if (r < 0)
		return r;
	return wait4_run(ctx, &w);
}
