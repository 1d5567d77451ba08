/* SPDX-License-Identifier: MIT */
/*
 * What the files of the NFSv4.1 session share (not installed):
 * session4.c        client id and session lifetime
 * session4_slots.c  the slot table, SEQUENCE, NC4_RETRY's retries
 * session4_recover.c  making a new session without blocking
 * session4_timer.c  lease renewal and the timed list
 * session4_wait.c   the synchronous waits
 * See nfs4.h for the design.
 */
#ifndef NFSX_CLIENT_SESSION4_INT_H
#define NFSX_CLIENT_SESSION4_INT_H

#include "client/nfs4.h"

#define DELAY_MIN_MS 10u
#define DELAY_MAX_MS 1000u

/* What a reply's status asks of the sender. */
enum nc4_verdict {
	NC4_V_DONE,   /* an outcome for the caller */
	NC4_V_AGAIN,  /* send again after a back-off */
	NC4_V_LOST,   /* the session is gone: a new one, then send again */
};

static inline enum nc4_verdict nc4_verdict(const struct nfsx4_res *r)
{
	/* A retried sequence id the server had done (answered by SEQUENCE,
	 * see seq_result, or by the operation after it): the slot has moved
	 * on, send again as after a DELAY. */
	if (r->status == NFS4ERR_DELAY || r->status == NFS4ERR_RETRY_UNCACHED_REP ||
	    r->status == NFS4ERR_SEQ_FALSE_RETRY)
		return NC4_V_AGAIN;
	/* The server's grace period after a restart: what is not a reclaim
	 * waits for its end (reclaims are never sent under NC4_RETRY). */
	if (r->status == NFS4ERR_GRACE)
		return NC4_V_AGAIN;
	/* The session is gone, or a slot's sequence id is out of step with
	 * the server's (nothing tells by how much): a new session. */
	if (r->nops == 1 && r->ops[0].resop == OP_SEQUENCE &&
	    (r->status == NFS4ERR_BADSESSION || r->status == NFS4ERR_DEADSESSION ||
	     r->status == NFS4ERR_SEQ_MISORDERED))
		return NC4_V_LOST;
	return NC4_V_DONE;
}

/* The wait after @ms of back-off: doubled, up to DELAY_MAX_MS. */
static inline unsigned nc4_backoff_next(unsigned ms)
{
	return ms * 2 > DELAY_MAX_MS ? DELAY_MAX_MS : ms * 2;
}

struct nc4_req {
	/* nc4_req_get clears everything up to ops */
	struct nc_list link;         /* waitq, delayq or freeq */
	struct nfsx4_args args;
	const struct nfsx_proc *as;  /* submitted under (statistics) */
	unsigned flags;              /* NC4_RETRY, NC4_LAST */
	uint32_t slot, gen;
	uint64_t t_sent;
	uint64_t due, give_up;       /* NC4_RETRY: resend at, stop retrying at */
	unsigned backoff;            /* NC4_RETRY: the next wait after DELAY, ms */
	bool recovered;              /* NC4_RETRY: sent again after a lost session */
	nfsx_cb cb;
	void *priv;
	/* filled before use */
	struct nfs_argop4 ops[NFSX4_MAX_OPS];
	struct nfs_resop4 stand_in;  /* NC4_LAST: when the server stopped before */
};

/* ---- session4_slots.c ---- */

/* A request to fill: everything zero but @ops (the caller's); none is
 * allocated per COMPOUND once warm. Return values: NULL without memory. */
struct nc4_req *nc4_req_get(struct nc4_session *s);
void nc4_req_put(struct nfsx_ctx *ctx, struct nc4_req *q);
/* Return values: the lowest free slot below the target, or -1. */
int nc4_free_slot(const struct nc4_session *s);
/* SEQUENCE on @slot, sent. Return values: 0, or as nfsx_call. */
int nc4_req_send(struct nfsx_ctx *ctx, struct nc4_req *q, uint32_t slot);
/* Send what waits for a slot, as long as slots last. */
void nc4_dispatch(struct nfsx_ctx *ctx);
/* Complete every request of @list with @err. */
void nc4_fail_waiting(struct nfsx_ctx *ctx, struct nc_list *list, int err);

/* ---- session4.c ---- */

/* EXCHANGE_ID and CREATE_SESSION, as a recovery sends them, and their
 * replies kept in @out (the session). Return values of nc4_x_*: 0, a
 * positive nfsstat4, or -EPROTO. */
void nc4_eid_op(const struct nc4_session *s, struct nfs_argop4 *op);
void nc4_cs_op(const struct nfsx_ctx *ctx, const struct nc4_session *s, struct nfs_argop4 *op);
int nc4_x_exchange_id(const struct nfsx4_res *r, void *out);
int nc4_x_create_session(const struct nfsx4_res *r, void *out);
/* A session CREATE_SESSION granted: its slot table, from scratch.
 * Return values: 0, or -ENOMEM. */
int nc4_session_install(struct nc4_session *s);

/* ---- session4_recover.c ---- */

/* Start making a new session (the first, or after one was lost). */
void nc4_recover_start(struct nfsx_ctx *ctx);
/* Send its step waiting out a DELAY when due at @now. */
void nc4_recover_tick(struct nfsx_ctx *ctx, uint64_t now);

/* ---- session4_wait.c ---- */

/* A COMPOUND outside the session, waited for, DELAY retried for up to
 * timeo. Return values: as nc4_sync. */
int nc4_sync_raw(struct nfsx_ctx *ctx, const struct nfs_argop4 *ops, uint32_t nops,
		 nc4_extract_fn extract, void *out);

#endif
