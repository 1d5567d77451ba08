/* SPDX-License-Identifier: MIT */
/*
 * Calls: submission (encode once), the xid table, completion, the
 * retransmission timers and the decoding of replies.
 *
 * DESIGN
 * - Call structs come from a per-context pool (chunks of 32, never
 *   returned to malloc before nfsx_ctx_free): no malloc per call.
 * - The header is a template built once per context (AUTH_SYS
 *   credential included); a call copies it, patches xid, program,
 *   version and procedure, and encodes its arguments after it, behind a
 *   4-byte slot for the record marker: marker and call leave as one
 *   buffer, kept for retransmission.
 * - Every deadline is "now + timeo" when it is set, so the timer list is
 *   kept in deadline order by appending: O(1) per call. The timerfd is
 *   armed lazily (only earlier, never for each call), so completing calls
 *   costs no system call; an early expiry just finds nothing due.
 * - A reply whose xid nobody waits for, or that comes on another
 *   connection than its call went out on, is dropped silently (counted).
 */
#include "client/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>

#include "client/nfs4.h"
#include "client/reply.h"

#define POOL_CHUNK 32u

static uint32_t xid_hash(uint32_t xid)
{
	return (xid * 2654435761u) >> 7;
}

struct nc_call *nc_xid_find(struct nfsx_ctx *ctx, uint32_t xid)
{
	struct nc_call *c;

	if (!ctx->xtab)
		return NULL;
	for (c = ctx->xtab[xid_hash(xid) & ctx->xmask]; c; c = c->hnext)
		if (c->xid == xid)
			return c;
	return NULL;
}

static int xid_grow(struct nfsx_ctx *ctx)
{
	uint32_t cap = ctx->xtab ? (ctx->xmask + 1) * 2 : 256, i;
	struct nc_call **tab = calloc(cap, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	for (i = 0; ctx->xtab && i <= ctx->xmask; i++) {
		struct nc_call *c = ctx->xtab[i], *next;

		for (; c; c = next) {
			uint32_t b = xid_hash(c->xid) & (cap - 1);

			next = c->hnext;
			c->hnext = tab[b];
			tab[b] = c;
		}
	}
	free(ctx->xtab);
	ctx->xtab = tab;
	ctx->xmask = cap - 1;
	return 0;
}

static int xid_insert(struct nfsx_ctx *ctx, struct nc_call *c)
{
	uint32_t b;

	if ((!ctx->xtab || ctx->xcount > ctx->xmask) && xid_grow(ctx) < 0)
		return -ENOMEM;
	b = xid_hash(c->xid) & ctx->xmask;
	c->hnext = ctx->xtab[b];
	ctx->xtab[b] = c;
	ctx->xcount++;
	return 0;
}

static void xid_remove(struct nfsx_ctx *ctx, struct nc_call *c)
{
	struct nc_call **pp = &ctx->xtab[xid_hash(c->xid) & ctx->xmask];

	for (; *pp; pp = &(*pp)->hnext) {
		if (*pp == c) {
			*pp = c->hnext;
			ctx->xcount--;
			return;
		}
	}
}

static struct nc_call *pool_get(struct nfsx_ctx *ctx)
{
	struct nc_call *c;

	if (!ctx->free_calls) {
		void **chunks = realloc(ctx->chunks, (ctx->nchunks + 1) * sizeof(*chunks));
		struct nc_call *chunk;
		unsigned i;

		if (!chunks)
			return NULL;
		ctx->chunks = chunks;
		chunk = malloc(POOL_CHUNK * sizeof(*chunk));
		if (!chunk)
			return NULL;
		ctx->chunks[ctx->nchunks++] = chunk;
		for (i = 0; i < POOL_CHUNK; i++) {
			chunk[i].free_next = ctx->free_calls;
			ctx->free_calls = &chunk[i];
		}
	}
	c = ctx->free_calls;
	ctx->free_calls = c->free_next;
	return c;
}

static void pool_put(struct nfsx_ctx *ctx, struct nc_call *c)
{
	if (c->buf != c->inline_buf)
		free(c->buf);
	c->buf = NULL;
	c->free_next = ctx->free_calls;
	ctx->free_calls = c;
}

size_t nc_call_reclen(const struct nc_call *call)
{
	return (size_t)call->len + xdr_pad(call->payload_len);
}

/* Marker + header + arguments into the call's buffer (heap if large). */
static int encode(struct nfsx_ctx *ctx, struct nc_call *call, const struct nfsx_proc *p,
		  const void *args)
{
	size_t cap = NC_CALL_INLINE, reclen;
	uint8_t *buf = call->inline_buf;
	struct nc_enc e;

	for (;;) {
		memcpy(buf + 4, ctx->hdr, ctx->hdr_len);
		xdr__put32(buf + 4 + 12, p->prog);
		xdr__put32(buf + 4 + 16, p->vers);
		xdr__put32(buf + 4 + 20, p->proc);
		xdr_enc_init(&e.x, buf + 4 + ctx->hdr_len, cap - 4 - ctx->hdr_len);
		e.payload = NULL;
		e.payload_len = 0;
		if (!p->encode || p->encode(&e, args))
			break;
		if (buf != call->inline_buf)
			free(buf);
		if (cap >= NC_CALL_MAX)
			return -EINVAL;
		cap = cap < (64u << 10) ? (64u << 10) : NC_CALL_MAX;
		buf = malloc(cap);
		if (!buf)
			return -ENOMEM;
	}
	call->buf = buf;
	call->len = 4 + ctx->hdr_len + (uint32_t)xdr_enc_len(&e.x);
	call->payload = e.payload;
	call->payload_len = e.payload_len;
	reclen = (size_t)call->len - 4 + e.payload_len + (xdr_pad(e.payload_len) - e.payload_len);
	if (e.payload_len > RPC_RM_LEN || reclen > RPC_RM_LEN) {
		if (buf != call->inline_buf)
			free(buf);
		call->buf = NULL;
		return -EMSGSIZE;
	}
	xdr__put32(buf, RPC_RM_LAST | (uint32_t)reclen);
	return 0;
}

int nc_call_submit(struct nfsx_ctx *ctx, unsigned owner, const struct nfsx_proc *p,
		   const void *args, nfsx_cb cb, void *priv)
{
	struct nfsx_op_stats *st;
	struct nc_call *call;
	uint32_t xid;
	int r;

	if (ctx->dying)
		return -ESHUTDOWN;
	if (!p)
		return -EINVAL;
	st = nc_stats_for(&ctx->stats, p);
	call = st ? pool_get(ctx) : NULL;
	if (!call)
		return -ENOMEM;
	memset(call, 0, offsetof(struct nc_call, inline_buf));
	nc_list_init(&call->qi.link);
	nc_list_init(&call->link);
	nc_list_init(&call->tlink);
	call->buf = call->inline_buf;
	r = encode(ctx, call, p, args);
	if (r < 0) {
		call->buf = call->inline_buf;
		pool_put(ctx, call);
		return r;
	}
	do
		xid = ctx->next_xid++;
	while (nc_xid_find(ctx, xid));
	call->xid = xid;
	xdr__put32(call->buf + 4, xid);
	call->proc = p;
	call->st = st;
	call->cb = cb;
	call->priv = priv;
	call->owner = owner;
	call->slot = -1;
	call->retries = ctx->o.retrans;
	call->ch = nc_chan_for(ctx, p->prog);
	if (xid_insert(ctx, call) < 0) {
		pool_put(ctx, call);
		return -ENOMEM;
	}
	if (nc_xq_push(&call->ch->queue, &call->qi, owner) < 0) {
		xid_remove(ctx, call);
		pool_put(ctx, call);
		return -ENOMEM;
	}
	call->state = NC_QUEUED;
	call->t_submit = nc_now();
	call->deadline = call->t_submit + (uint64_t)ctx->o.timeo_ms * 1000000u;
	nc_list_add_tail(&ctx->timers, &call->tlink);
	ctx->pending++;
	nc_queued(ctx);
	return 0;
}

int nfsx_call(struct nfsx_ctx *ctx, const struct nfsx_proc *p, const void *args,
	      nfsx_cb cb, void *priv)
{
	return nc_call_submit(ctx, 0, p, args, cb, priv);
}

int nfsx_call_owner(struct nfsx_ctx *ctx, unsigned owner, const struct nfsx_proc *p,
		    const void *args, nfsx_cb cb, void *priv)
{
	return nc_call_submit(ctx, owner, p, args, cb, priv);
}

/* The status a result starts with (nfsx_proc.res_status): an enum, as
 * wide as a uint32_t in every generated result. */
static uint32_t res_status_of(const void *res)
{
	uint32_t v;

	_Static_assert(sizeof(enum nfsstat3) == sizeof(v) && sizeof(enum nfsstat4) == sizeof(v) &&
		       sizeof(enum mountstat3) == sizeof(v), "statuses are 32-bit enums");
	memcpy(&v, res, sizeof(v));
	return v;
}

void nc_call_complete(struct nfsx_ctx *ctx, struct nc_call *call, int err, void *res,
		      uint64_t t_reply)
{
	struct nfsx_op_stats *st = call->st;
	uint64_t now = t_reply ? t_reply : nc_now();

	if (call->state == NC_QUEUED)
		nc_xq_remove(&call->ch->queue, &call->qi);
	else if (call->conn)
		nc_conn_detach(call->conn, call);
	call->state = 0;
	nc_list_del(&call->tlink);
	xid_remove(ctx, call);
	ctx->pending--;
	st->ops++;
	if (err < 0 || (res && call->proc->res_status && res_status_of(res) != 0))
		st->errors++;
	if (t_reply && call->t_tx)
		nc_stats_time(&st->rtt_ns, st->hist_rtt, now - call->t_tx);
	nc_stats_time(&st->exec_ns, st->hist_exec, now - call->t_submit);
	if (call->cb) {
		ctx->in_cb++;
		call->cb(ctx, err, res, call->priv);
		ctx->in_cb--;
	}
	pool_put(ctx, call);
}

void nc_call_release_all(struct nfsx_ctx *ctx)
{
	uint32_t i;

	while (ctx->xcount) {
		for (i = 0; i <= ctx->xmask; i++) {
			if (ctx->xtab[i]) {
				nc_call_complete(ctx, ctx->xtab[i], -ECANCELED, NULL, 0);
				break;
			}
		}
	}
}

void nc_timers_run(struct nfsx_ctx *ctx, uint64_t now)
{
	uint64_t timeo = (uint64_t)ctx->o.timeo_ms * 1000000u;
	unsigned i, j;

	while (!nc_list_empty(&ctx->timers)) {
		struct nc_call *call = nc_container_of(ctx->timers.next, struct nc_call, tlink);

		if (call->deadline > now)
			break;
		nc_list_del(&call->tlink);
		call->st->timeouts++;
		if (call->retries == 0) {
			nc_call_complete(ctx, call, call->last_err ? call->last_err : -ETIMEDOUT,
					 NULL, 0);
			continue;
		}
		call->retries--;
		/* A fresh clock keeps the list sorted behind calls queued since. */
		call->deadline = nc_now() + timeo;
		nc_list_add_tail(&ctx->timers, &call->tlink);
		if (call->state == NC_SENT)
			nc_conn_retransmit(call->conn, call);
	}
	for (i = 0; i < NC_NCHAN; i++)
		for (j = 0; j < ctx->chan[i].nconn; j++) {
			struct nc_conn *c = &ctx->chan[i].conns[j];

			if (c->deadline && c->deadline <= now)
				nc_conn_timer(c, now);
		}
}

void nc_timer_arm(struct nfsx_ctx *ctx)
{
	uint64_t when = 0;
	struct itimerspec its = { 0 };
	unsigned i, j;

	if (!nc_list_empty(&ctx->timers))
		when = nc_container_of(ctx->timers.next, struct nc_call, tlink)->deadline;
	for (i = 0; i < NC_NCHAN; i++)
		for (j = 0; j < ctx->chan[i].nconn; j++) {
			uint64_t d = ctx->chan[i].conns[j].deadline;

			if (d && (!when || d < when))
				when = d;
		}
	if (ctx->v4) {
		uint64_t d = nc4_deadline(ctx);

		if (d && (!when || d < when))
			when = d;
	}
	if (!when || (ctx->armed && ctx->armed <= when))
		return;
	its.it_value.tv_sec = (time_t)(when / 1000000000u);
	its.it_value.tv_nsec = (long)(when % 1000000000u);
	if (timerfd_settime(ctx->tfd, TFD_TIMER_ABSTIME, &its, NULL) == 0)
		ctx->armed = when;
}

/* Grow a context buffer to at least @need bytes. */
static bool reserve(void **buf, size_t *cap, size_t need)
{
	void *p;

	if (*cap >= need)
		return true;
	p = realloc(*buf, need);
	if (!p)
		return false;
	*buf = p;
	*cap = need;
	return true;
}

/*
 * Decode the results at @d. The arena is sized from the reply length
 * only if the arena at hand was too small: most replies (READ, GETATTR)
 * need none, so they never make the context allocate.
 */
static int decode_results(struct nfsx_ctx *ctx, const struct nfsx_proc *p,
			  const struct xdr_dec *at, size_t reclen)
{
	size_t need = nc_arena_size(reclen);
	struct xdr_arena a;
	struct xdr_dec d;
	int tries;

	if (!reserve(&ctx->res, &ctx->res_cap, p->res_size))
		return -ENOMEM;
	for (tries = 0; tries < 2; tries++) {
		xdr_arena_init(&a, ctx->arena, ctx->arena_cap < need ? ctx->arena_cap : need);
		d = *at;
		d.arena = &a;
		if (!p->decode_inits)
			memset(ctx->res, 0, p->res_size);
		if (p->decode(&d, ctx->res))
			return 0;
		if (ctx->arena_cap >= need)
			break;
		if (!reserve((void **)&ctx->arena, &ctx->arena_cap, need))
			return -ENOMEM;
	}
	return -EPROTO;
}

void nc_handle_record(struct nc_conn *c, uint8_t *rec, size_t len, uint64_t now)
{
	struct nfsx_ctx *ctx = c->ctx;
	const struct nfsx_proc *p;
	struct nc_call *call;
	struct nc_reply r;
	struct xdr_dec d;
	int err;

	/* A call of the server's (msg_type CALL): the NFSv4.1 back channel. */
	if (len >= 8 && xdr__get32(rec + 4) == 0) {
		nc4_cb_record(c, rec, len);
		return;
	}
	xdr_dec_init(&d, rec, len, NULL);
	/* Only the connection the call went out on may answer it: a reply on
	 * another (nconnect) connection, or to a call not sent yet, is stray. */
	if (nc_reply_decode(&d, &r) == NC_REPLY_DROP ||
	    !(call = nc_xid_find(ctx, r.xid)) || call->conn != c ||
	    (call->state != NC_SENDING && call->state != NC_SENT)) {
		ctx->stray_replies++;
		return;
	}
	call->st->bytes_recv += len + 4;
	c->backoff_n = 0; /* a well-formed reply: the server is sane again */
	if (r.err) {
		nc_call_complete(ctx, call, r.err, NULL, now);
		return;
	}
	p = call->proc;
	if (!p->decode) {
		nc_call_complete(ctx, call, 0, NULL, now);
		return;
	}
	err = decode_results(ctx, p, &d, len);
	nc_call_complete(ctx, call, err, err ? NULL : (p->res_size ? ctx->res : NULL), now);
	/* Big arenas (hostile or huge listings) are not kept. */
	if (ctx->arena_cap > (1u << 20)) {
		free(ctx->arena);
		ctx->arena = NULL;
		ctx->arena_cap = 0;
	}
}
