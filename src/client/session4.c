/* SPDX-License-Identifier: MIT */
/*
 * The NFSv4.1 session of a context: client id, session, the fore
 * channel's slot table and SEQUENCE, the synchronous wait with
 * NFS4ERR_DELAY back-off. See nfs4.h.
 *
 * The client owner must differ between contexts, even two in one
 * process (a server takes two contexts with one owner for one client
 * rebooting, and the second EXCHANGE_ID then destroys the first one's
 * state): it is the host name, the process id, a process-wide counter
 * and 64 random bits. The counter is the library's only process-wide
 * mutable state, an atomic.
 */
#include "client/nfs4.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "client/attr4.h"
#include "client/sync.h"

#define CS_MAXOPS NFSX4_MAX_OPS
#define DELAY_MIN_MS 10u
#define DELAY_MAX_MS 1000u

static atomic_uint owner_counter;

/* What a reply's status asks of the sender. */
enum verdict {
	V_DONE,   /* an outcome for the caller */
	V_AGAIN,  /* send again after a back-off */
	V_LOST,   /* the session is gone: a new one, then send again */
};

static enum verdict verdict(const struct nfsx4_res *r)
{
	/* A retried sequence id the server had done (answered by SEQUENCE,
	 * see seq_result, or by the operation after it): the slot has moved
	 * on, send again as after a DELAY. */
	if (r->status == NFS4ERR_DELAY || r->status == NFS4ERR_RETRY_UNCACHED_REP ||
	    r->status == NFS4ERR_SEQ_FALSE_RETRY)
		return V_AGAIN;
	/* The session is gone, or a slot's sequence id is out of step with
	 * the server's (nothing tells by how much): a new session. */
	if (r->nops == 1 && r->ops[0].resop == OP_SEQUENCE &&
	    (r->status == NFS4ERR_BADSESSION || r->status == NFS4ERR_DEADSESSION ||
	     r->status == NFS4ERR_SEQ_MISORDERED))
		return V_LOST;
	return V_DONE;
}

/* The wait after @ms of back-off: doubled, up to DELAY_MAX_MS. */
static unsigned backoff_next(unsigned ms)
{
	return ms * 2 > DELAY_MAX_MS ? DELAY_MAX_MS : ms * 2;
}

struct nc4_req {
	struct nc_list link;         /* waitq, delayq or freeq */
	struct nfsx4_args args;
	struct nfs_argop4 ops[NFSX4_MAX_OPS];
	const struct nfsx_proc *as;  /* submitted under (statistics) */
	unsigned flags;              /* NC4_RETRY, NC4_LAST */
	uint32_t slot, gen;
	uint64_t t_sent;
	uint64_t due, give_up;       /* NC4_RETRY: resend at, stop retrying at */
	unsigned backoff;            /* NC4_RETRY: the next wait after DELAY, ms */
	bool recovered;              /* NC4_RETRY: sent again after a lost session */
	struct nfs_resop4 stand_in;  /* NC4_LAST: when the server stopped before */
	nfsx_cb cb;
	void *priv;
};

/* Requests are reused: nothing is allocated per COMPOUND once warm. */
static struct nc4_req *req_get(struct nc4_session *s)
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
	/* Everything but the operations, which the caller fills. */
	memset(q, 0, offsetof(struct nc4_req, ops));
	memset((char *)q + offsetof(struct nc4_req, as), 0,
	       offsetof(struct nc4_req, stand_in) - offsetof(struct nc4_req, as));
	nc_list_init(&q->link);
	return q;
}

static void req_put(struct nfsx_ctx *ctx, struct nc4_req *q)
{
	if (ctx->v4)
		nc_list_add_tail(&ctx->v4->freeq, &q->link);
	else
		free(q);
}

/* ---- synchronous waits ------------------------------------------------ */

struct wait4 {
	bool done;
	int err;
	bool again;                /* sync_raw: send again after a back-off */
	nc4_extract_fn extract;
	void *out;
};

/* The outcome; under NC4_RETRY an AGAIN or LOST verdict comes only when
 * the session gave up retrying, and is the call's status. */
static void wait4_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct wait4 *w = priv;
	const struct nfsx4_res *r = res;
	enum verdict v;

	(void)ctx;
	w->done = true;
	w->err = err;
	w->again = false;
	if (err)
		return;
	v = verdict(r);
	w->again = v == V_AGAIN;
	w->err = v == V_DONE && w->extract ? w->extract(r, w->out) : (int)r->status;
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
	return backoff_next(ms);
}

/* A COMPOUND outside the session, DELAY retried as in nc4_sync. */
static int sync_raw(struct nfsx_ctx *ctx, const struct nfs_argop4 *ops, uint32_t nops,
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

/* ---- client id and session ------------------------------------------ */

static void make_owner(struct nfsx_ctx *ctx, struct nc4_session *s)
{
	unsigned n = atomic_fetch_add(&owner_counter, 1);
	uint64_t rnd;
	char host[64];

	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd = nc_now() ^ (uint64_t)(uintptr_t)ctx;
	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	snprintf(s->owner, sizeof(s->owner), "nfsx/%s/%ld/%u/%016" PRIx64, host, (long)getpid(),
		 n, rnd);
	snprintf(s->open_owner, sizeof(s->open_owner), "nfsx-open-%u", n);
	if (getrandom(s->verf.val, sizeof(s->verf.val), 0) != sizeof(s->verf.val))
		memcpy(s->verf.val, &rnd, sizeof(s->verf.val));
}

static int x_exchange_id(const struct nfsx4_res *r, void *out)
{
	struct nc4_session *s = out;
	const struct EXCHANGE_ID4resok *ok;

	if (r->status != NFS4_OK)
		return (int)r->status;
	ok = &r->ops[0].u.opexchange_id.u.eir_resok4;
	s->clientid = ok->eir_clientid;
	s->cs_seq = ok->eir_sequenceid;
	return 0;
}

static int x_create_session(const struct nfsx4_res *r, void *out)
{
	struct nc4_session *s = out;
	const struct CREATE_SESSION4resok *ok;
	const struct channel_attrs4 *f;

	if (r->status != NFS4_OK)
		return (int)r->status;
	ok = &r->ops[0].u.opcreate_session.u.csr_resok4;
	f = &ok->csr_fore_chan_attrs;
	if (f->ca_maxrequests == 0 || f->ca_maxoperations < 2)
		return -EPROTO;
	s->sid = ok->csr_sessionid;
	s->nslots = f->ca_maxrequests;
	s->maxops = f->ca_maxoperations;
	s->maxreq = f->ca_maxrequestsize;
	s->maxresp = f->ca_maxresponsesize;
	return 0;
}

static void chan_attrs(struct channel_attrs4 *c, uint32_t req, uint32_t resp, uint32_t slots)
{
	memset(c, 0, sizeof(*c));
	c->ca_maxrequestsize = req;
	c->ca_maxresponsesize = resp;
	c->ca_maxresponsesize_cached = 4096;
	c->ca_maxoperations = CS_MAXOPS;
	c->ca_maxrequests = slots;
}

static int x_status(const struct nfsx4_res *r, void *out)
{
	(void)out;
	return (int)r->status;
}

/* A session CREATE_SESSION granted: its slot table, from scratch. */
static int session_install(struct nc4_session *s)
{
	s->cs_seq++;
	s->gen++;
	if (s->nslots > NC_SLOTS_MAX)
		s->nslots = NC_SLOTS_MAX;
	free(s->slots);
	s->slots = calloc(s->nslots, sizeof(*s->slots));
	if (!s->slots)
		return -ENOMEM;
	s->target = s->nslots;
	s->renewed = nc_now();
	s->renewing = false;
	return 0;
}
static void read_lease(struct nfsx_ctx *ctx, struct nc4_session *s);
static void dispatch(struct nfsx_ctx *ctx);
static int free_slot(const struct nc4_session *s);
static void recover_start(struct nfsx_ctx *ctx);

/*
 * The first session, or a new one after a recovery failed, is made by
 * the recovery's steps (one way to make a session), waited for here.
 */
int nfsx4_session_open(struct nfsx_ctx *ctx)
{
	struct nc4_session *s = ctx->v4;
	bool first;

	if (nc_sync_forbidden(ctx))
		return -EDEADLK;
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
		nc_list_init(&s->waitq);
		nc_list_init(&s->delayq);
		nc_list_init(&s->freeq);
		s->lease_s = 90;
		make_owner(ctx, s);
		ctx->v4 = s;
	}
	first = s->gen == 0;
	if (!s->up && !s->recovering)
		recover_start(ctx);
	while (s->recovering)
		nfsx_run_once(ctx, -1);
	if (!s->up)
		return s->rec_err ? s->rec_err : -ENOTCONN;
	if (first)
		read_lease(ctx, s);
	return 0;
}

static int x_lease(const struct nfsx4_res *r, void *out)
{
	struct nc4_session *s = out;
	struct nc4_attrs a;

	if (r->status != NFS4_OK || r->nops != 3 ||
	    nc4_attr_decode(&r->ops[2].u.opgetattr.u.resok4.obj_attributes, &a) < 0)
		return 0; /* keep the default */
	if (a.lease_time >= 1 && a.lease_time <= 86400)
		s->lease_s = a.lease_time;
	return 0;
}

/* The lease, for renewal: lease_time of the pseudo root (RFC 8881 5.8.1.11). */
static void read_lease(struct nfsx_ctx *ctx, struct nc4_session *s)
{
	struct nfs_argop4 ops[2];
	uint32_t w[1] = { 1u << FATTR4_LEASE_TIME };

	memset(ops, 0, sizeof(ops));
	ops[0].argop = OP_PUTROOTFH;
	ops[1].argop = OP_GETATTR;
	ops[1].u.opgetattr.attr_request.len = 1;
	ops[1].u.opgetattr.attr_request.val = w;
	nc4_sync(ctx, ops, 2, x_lease, s);
}

static uint64_t renew_deadline(const struct nc4_session *s)
{
	/* With every slot busy, the replies on the way renew the lease: no
	 * deadline then (one in the past would spin the loop). */
	if (!s || !s->up || s->renewing || free_slot(s) < 0)
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

/* EXCHANGE_ID and CREATE_SESSION as the sync open and the asynchronous
 * recovery send them. */
static void eid_op(const struct nc4_session *s, struct nfs_argop4 *op)
{
	memset(op, 0, sizeof(*op));
	op->argop = OP_EXCHANGE_ID;
	op->u.opexchange_id.eia_clientowner.co_verifier = s->verf;
	op->u.opexchange_id.eia_clientowner.co_ownerid.data = (const uint8_t *)s->owner;
	op->u.opexchange_id.eia_clientowner.co_ownerid.len = (uint32_t)strlen(s->owner);
	op->u.opexchange_id.eia_flags = EXCHGID4_FLAG_USE_NON_PNFS;
	op->u.opexchange_id.eia_state_protect.spa_how = SP4_NONE;
}

static void cs_op(const struct nfsx_ctx *ctx, const struct nc4_session *s, struct nfs_argop4 *op)
{
	uint32_t resp;

	memset(op, 0, sizeof(*op));
	op->argop = OP_CREATE_SESSION;
	op->u.opcreate_session.csa_clientid = s->clientid;
	op->u.opcreate_session.csa_sequence = s->cs_seq;
	/* No back channel yet: no CREATE_SESSION4_FLAG_CONN_BACK_CHAN. */
	op->u.opcreate_session.csa_flags = 0;
	resp = NC4_IO_MAX + NC4_HEADROOM;
	if (resp > ctx->o.max_reply)
		resp = ctx->o.max_reply;
	chan_attrs(&op->u.opcreate_session.csa_fore_chan_attrs, NC4_IO_MAX + NC4_HEADROOM, resp,
		   ctx->o.slots);
	chan_attrs(&op->u.opcreate_session.csa_back_chan_attrs, 4096, 4096, 1);
	op->u.opcreate_session.csa_cb_program = 0x40000000;
}

uint64_t nfsx4_clientid(const struct nfsx_ctx *c)
{
	return c->v4 && c->v4->up ? c->v4->clientid : 0;
}

/* Complete every request of @list with @err (callbacks may queue more:
 * they go on other lists, or on this one only while the session is up). */
static void fail_waiting(struct nfsx_ctx *ctx, struct nc_list *list, int err)
{
	while (!nc_list_empty(list)) {
		struct nc4_req *q = nc_container_of(list->next, struct nc4_req, link);

		nc_list_del(&q->link);
		ctx->in_cb++;
		q->cb(ctx, err, NULL, q->priv);
		ctx->in_cb--;
		req_put(ctx, q);
	}
}

void nc4_session_close(struct nfsx_ctx *ctx)
{
	struct nc4_session *s = ctx->v4;
	struct nfs_argop4 op;

	if (!s)
		return;
	if (s->up && !nc_sync_forbidden(ctx) && !ctx->dying) {
		/* DESTROY_SESSION may be alone in its COMPOUND (RFC 8881 18.37.3). */
		memset(&op, 0, sizeof(op));
		op.argop = OP_DESTROY_SESSION;
		op.u.opdestroy_session.dsa_sessionid = s->sid;
		sync_raw(ctx, &op, 1, x_status, NULL);
		memset(&op, 0, sizeof(op));
		op.argop = OP_DESTROY_CLIENTID;
		op.u.opdestroy_clientid.dca_clientid = s->clientid;
		sync_raw(ctx, &op, 1, x_status, NULL);
	}
	s->up = false;
	s->recovering = false;
	fail_waiting(ctx, &s->waitq, -ECANCELED);
	fail_waiting(ctx, &s->delayq, -ECANCELED);
	while (!nc_list_empty(&s->freeq)) {
		struct nc4_req *q = nc_container_of(s->freeq.next, struct nc4_req, link);

		nc_list_del(&q->link);
		free(q);
	}
	free(s->slots);
	free(s);
	ctx->v4 = NULL;
}

/* ---- SEQUENCE and the slot table --------------------------------------- */

static int free_slot(const struct nc4_session *s)
{
	uint32_t i;

	for (i = 0; i < s->target && i < s->nslots; i++)
		if (!s->slots[i].busy)
			return (int)i;
	return -1;
}

static uint32_t highest_busy(const struct nc4_session *s)
{
	uint32_t i, h = 0;

	for (i = 0; i < s->nslots; i++)
		if (s->slots[i].busy)
			h = i;
	return h;
}

static void req_done(struct nfsx_ctx *ctx, int err, void *res, void *priv);

static int req_send(struct nfsx_ctx *ctx, struct nc4_req *q, uint32_t slot)
{
	struct nc4_session *s = ctx->v4;
	struct SEQUENCE4args *sa = &q->ops[0].u.opsequence;
	int r;

	q->slot = slot;
	q->gen = s->gen;
	q->t_sent = nc_now();
	s->slots[slot].busy = true;
	memset(&q->ops[0], 0, sizeof(q->ops[0]));
	q->ops[0].argop = OP_SEQUENCE;
	sa->sa_sessionid = s->sid;
	sa->sa_sequenceid = s->slots[slot].seq + 1;
	sa->sa_slotid = slot;
	sa->sa_highest_slotid = highest_busy(s);
	sa->sa_cachethis = false;
	r = nfsx_call(ctx, q->as ? q->as : &nfsx_nfs4_compound, &q->args, req_done, q);
	if (r < 0)
		s->slots[slot].busy = false;
	return r;
}

/* Slots freed: send what waits, as long as slots last (not while a
 * recovery holds the queue until its RECLAIM_COMPLETE is done). */
static void dispatch(struct nfsx_ctx *ctx)
{
	struct nc4_session *s = ctx->v4;
	int slot;

	while (s->up && !s->recovering && !nc_list_empty(&s->waitq) &&
	       (slot = free_slot(s)) >= 0) {
		struct nc4_req *q = nc_container_of(s->waitq.next, struct nc4_req, link);
		int r;

		nc_list_del(&q->link);
		r = req_send(ctx, q, (uint32_t)slot);
		if (r < 0) {
			q->cb(ctx, r, NULL, q->priv);
			req_put(ctx, q);
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
	uint64_t now = nc_now();

	if (err || ctx->dying)
		return false;
	switch (verdict(r)) {
	case V_AGAIN:
		if (now >= q->give_up)
			return false;
		q->due = now + (uint64_t)q->backoff * 1000000u;
		q->backoff = backoff_next(q->backoff);
		nc_list_add_tail(&s->delayq, &q->link);
		return true;
	case V_LOST:
		/* A reply of an older session says nothing of the current
		 * one: sent again, without using up the one resend. */
		if (q->gen == s->gen) {
			if (q->recovered)
				return false;
			q->recovered = true;
			if (s->up && !s->recovering)
				recover_start(ctx);
		}
		if (!s->up && !s->recovering)
			return false;
		nc_list_add_head(&s->waitq, &q->link);
		return true;
	case V_DONE:
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

static void req_done(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct nc4_req *q = priv;
	struct nc4_session *s = ctx->v4, *cur = s;

	/* A reply from a session replaced since frees no slot of this one. */
	if (cur && q->gen != cur->gen)
		cur = NULL;
	if (cur)
		cur->slots[q->slot].busy = false;
	if (!err)
		err = nc4_check_reply(ctx, q->ops, q->args.nops, res, q->as);
	if (!err && cur)
		err = seq_result(cur, q, res);
	if (s && (q->flags & NC4_RETRY) && retry(ctx, s, q, err, res)) {
		dispatch(ctx);
		return;
	}
	deliver(ctx, q, err, res);
	req_put(ctx, q);
	if (ctx->v4)
		dispatch(ctx);
}

int nc4_call_as(struct nfsx_ctx *c, const struct nfsx_proc *as, unsigned flags,
		const struct nfs_argop4 *ops, uint32_t nops, nfsx_cb cb, void *priv)
{
	struct nc4_session *s = c->v4;
	struct nc4_req *q;
	int slot, r;

	if (!s || (!s->up && !s->recovering))
		return -ENOTCONN;
	if (nops + 1 > NFSX4_MAX_OPS || nops + 1 > s->maxops)
		return -E2BIG;
	q = req_get(s);
	if (!q)
		return -ENOMEM;
	if (nops)
		memcpy(&q->ops[1], ops, nops * sizeof(*ops));
	q->args.minorversion = NC4_MINOR;
	q->args.nops = nops + 1;
	q->args.ops = q->ops;
	q->as = as;
	q->flags = flags;
	q->backoff = DELAY_MIN_MS;
	q->give_up = nc_now() + (uint64_t)c->o.timeo_ms * 1000000u;
	q->cb = cb;
	q->priv = priv;
	slot = s->up && !s->recovering && nc_list_empty(&s->waitq) ? free_slot(s) : -1;
	if (slot < 0) {
		nc_list_add_tail(&s->waitq, &q->link);
		return 0;
	}
	r = req_send(c, q, (uint32_t)slot);
	if (r < 0)
		req_put(c, q);
	return r;
}

int nfsx4_call(struct nfsx_ctx *c, const struct nfs_argop4 *ops, uint32_t nops,
	       nfsx_cb cb, void *priv)
{
	return nc4_call_as(c, NULL, 0, ops, nops, cb, priv);
}

/* ---- asynchronous recovery --------------------------------------------- */

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
	fail_waiting(ctx, &s->waitq, -ENOTCONN);
	fail_waiting(ctx, &s->delayq, -ENOTCONN);
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
	s->rec_backoff = backoff_next(s->rec_backoff);
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
	/* dispatch() runs when req_done returns */
}

static void rec_cs_done(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct nc4_session *s = ctx->v4;
	struct nc4_req *q;
	int r;

	(void)priv;
	if (!s || !s->recovering)
		return;
	r = err ? err : x_create_session(res, s);
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
		r = session_install(s);
	if (r != 0) {
		recover_fail(ctx, r);
		return;
	}
	s->up = true;
	if (!s->rec_fresh) {
		s->recovering = false;
		dispatch(ctx);
		return;
	}
	/* A new client reclaims nothing (RFC 8881 18.51), before anything
	 * else is sent on the session. */
	q = req_get(s);
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
	r = req_send(ctx, q, 0);
	if (r < 0) {
		req_put(ctx, q);
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
	r = err ? err : x_exchange_id(res, s);
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
		eid_op(s, &op);
		r = nfsx4_compound(ctx, NC4_MINOR, &op, 1, rec_eid_done, NULL);
	} else {
		cs_op(ctx, s, &op);
		r = nfsx4_compound(ctx, NC4_MINOR, &op, 1, rec_cs_done, NULL);
	}
	if (r < 0)
		recover_fail(ctx, r);
}

/* No session yet, or it is gone (BADSESSION, DEADSESSION) or out of
 * step (SEQ_MISORDERED): a new one, with the client id while it lives. */
static void recover_start(struct nfsx_ctx *ctx)
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

void nc4_tick(struct nfsx_ctx *ctx, uint64_t now)
{
	struct nc4_session *s = ctx->v4;
	struct nc_list *l, *next;

	if (!s)
		return;
	if (s->recovering && s->rec_due && now >= s->rec_due) {
		s->rec_due = 0;
		rec_step(ctx, s->rec_step);
	}
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
			req_put(ctx, q);
		} else {
			nc_list_add_tail(&s->waitq, &q->link);
		}
	}
	if (ctx->v4 && s->up)
		dispatch(ctx);
	if (ctx->v4)
		renew(ctx, now);
}
