/* SPDX-License-Identifier: MIT */
/* Calls of the server on its clients' connections: see backchan.h. */
#include "rpc/backchan.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rpc/svc_internal.h"
#include "util/log.h"

struct rpc_backchan {
	atomic_uint refs;
	atomic_uint next_xid;
	struct rpc_loop *loop;
	struct rpc_conn *conn;     /* read and cleared on the loop only */
};

/* A call on its way from its caller to the connection's loop. */
struct rpc_bcall {
	struct rpc_bcall *next;
	struct rpc_backchan *bc;   /* a reference */
	uint32_t xid;
	unsigned int timeout_ms;
	size_t max_reply;
	rpc_call_done_fn *done;
	void *arg;
	size_t len;
	uint8_t msg[];
};

/* What a closed connection's handle pointer becomes: no new handle. */
static struct rpc_backchan closed_mark;

struct rpc_backchan *rpc_req_backchan(struct rpc_req *req)
{
	struct rpc_conn *c = req->conn;
	struct rpc_backchan *bc, *expect = NULL;

	if (!c)
		return NULL;
	bc = atomic_load(&c->bc);
	if (!bc) {
		/* The handler runs on a worker or on the loop; the
		 * connection cannot be freed meanwhile (its loop waits for
		 * calls on workers), but it may close: the loop swaps in
		 * closed_mark, and then this publication fails. */
		bc = calloc(1, sizeof(*bc));
		if (!bc)
			return NULL;
		atomic_init(&bc->refs, 1);  /* the connection's */
		atomic_init(&bc->next_xid, (uint32_t)rpc__now_ns() ^ (uint32_t)(uintptr_t)bc);
		bc->loop = c->loop;
		bc->conn = c;
		if (!atomic_compare_exchange_strong(&c->bc, &expect, bc)) {
			free(bc);
			bc = expect;
		}
	}
	if (bc == &closed_mark)
		return NULL;
	/* The connection's reference keeps it alive: the loop drops it
	 * when it frees the connection, which waits for this call. */
	atomic_fetch_add(&bc->refs, 1);
	return bc;
}

void rpc_backchan_get(struct rpc_backchan *bc)
{
	atomic_fetch_add(&bc->refs, 1);
}

void rpc_backchan_put(struct rpc_backchan *bc)
{
	if (bc && atomic_fetch_sub(&bc->refs, 1) == 1)
		free(bc);
}

int rpc_conn_call(struct rpc_backchan *bc, const struct rpc_bc_call *call)
{
	struct rpc_loop *loop = bc->loop;
	struct rpc_bcall *b;
	struct xdr_enc e;
	uint64_t one = 1;
	/* xid to proc, AUTH_SYS credential with a 255-byte name, verifier */
	size_t cap = 24 + 8 + 4 + 4 + 256 + 12 + 8 + call->max_args;

	b = malloc(sizeof(*b) + cap);
	if (!b) {
		errno = ENOMEM;
		return -1;
	}
	b->xid = atomic_fetch_add(&bc->next_xid, 1);
	xdr_enc_init(&e, b->msg, cap);
	if (!rpc_encode_call(&e, b->xid, call->prog, call->vers, call->proc, call->cred) ||
	    (call->encode && !call->encode(&e, call->args))) {
		free(b);
		errno = EINVAL;
		return -1;
	}
	b->len = xdr_enc_len(&e);
	b->next = NULL;
	b->timeout_ms = call->timeout_ms;
	b->max_reply = call->max_reply;
	b->done = call->done;
	b->arg = call->arg;
	b->bc = bc;
	rpc_backchan_get(bc);

	pthread_mutex_lock(&loop->inbox_lock);
	if (loop->inbox_closed) {
		pthread_mutex_unlock(&loop->inbox_lock);
		rpc_backchan_put(bc);
		free(b);
		errno = ESHUTDOWN;
		return -1;
	}
	if (loop->out_tail)
		loop->out_tail->next = b;
	else
		loop->out_head = b;
	loop->out_tail = b;
	pthread_mutex_unlock(&loop->inbox_lock);
	if (write(loop->wakefd, &one, sizeof(one)) < 0)
		log_warn("cannot wake loop: %s", strerror(errno));
	return 0;
}

/* On the loop: queue @b's message on its connection, or end it. */
static void send_one(struct rpc_loop *loop, struct rpc_bcall *b)
{
	struct rpc_conn *c = b->bc->conn;
	struct rpc_pcall *pc = NULL;
	struct rpc_req *req = NULL;
	enum rpc_call_status st;
	uint8_t *p;

	if (loop->stopping) {
		st = RPC_CALL_SHUTDOWN;
		goto fail;
	}
	st = RPC_CALL_CLOSED;
	if (!c || c->closed)
		goto fail;
	st = RPC_CALL_BUSY;
	if (c->calls.n >= c->calls.max)
		goto fail;
	pc = malloc(sizeof(*pc));
	req = rpc__req_get(loop);
	if (!pc || !req)
		goto fail;
	req->rec = req->rec_inline;
	req->rec_len = 0;
	rpc_req_reset(req);
	req->conn = c;
	req->peer = &c->peer;
	/* Ours, not a call received: no procedure, no statistics row. A
	 * request from the loop's pool still holds its last call's (or, new,
	 * nothing defined), which the reply's accounting reads. */
	req->proc = NULL;
	req->stat_row = -1;
	req->stat_status = 0;
	req->stat_in = 0;
	req->t_rx = req->t_start = req->t_done = 0;
	if (rpc_req_reply_reserve(req, b->len) < 0)
		goto fail;
	p = xdr_enc_reserve(&req->enc, b->len);
	if (!p)
		goto fail;
	memcpy(p, b->msg, b->len);
	pc->xid = b->xid;
	pc->deadline_ns = rpc__now_ns() + (uint64_t)b->timeout_ms * 1000000u;
	pc->max_reply = b->max_reply;
	pc->done = b->done;
	pc->arg = b->arg;
	rpc_pending_add(&c->calls, pc);
	loop->ncalls++;
	/* A message to send like a reply: counted in flight until sent. */
	c->inflight++;
	rpc__queue_reply(c, req);
	rpc_backchan_put(b->bc);
	free(b);
	return;
fail:
	if (req)
		rpc__req_put(loop, req);
	free(pc);
	b->done(b->arg, st, NULL, 0);
	rpc_backchan_put(b->bc);
	free(b);
}

void rpc__bc_take(struct rpc_loop *loop)
{
	struct rpc_bcall *b;

	pthread_mutex_lock(&loop->inbox_lock);
	b = loop->out_head;
	loop->out_head = loop->out_tail = NULL;
	pthread_mutex_unlock(&loop->inbox_lock);
	rpc__bc_send(loop, b);
}

void rpc__bc_send(struct rpc_loop *loop, struct rpc_bcall *b)
{
	while (b) {
		struct rpc_bcall *next = b->next;

		send_one(loop, b);
		b = next;
	}
}

void rpc__bc_reply(struct rpc_conn *c, const uint8_t *rec, size_t len)
{
	unsigned int n = c->calls.n;

	if (!n || !rpc_pending_reply(&c->calls, rec, len)) {
		log_debug("connection %d: a reply to no call of ours (%zu bytes): dropped",
			  c->fd, len);
		return;
	}
	c->loop->ncalls -= n - c->calls.n;
}

void rpc__bc_close(struct rpc_conn *c)
{
	struct rpc_backchan *bc = atomic_exchange(&c->bc, &closed_mark);
	unsigned int n = c->calls.n;

	c->loop->ncalls -= n;
	rpc_pending_fail_all(&c->calls, c->loop->stopping ? RPC_CALL_SHUTDOWN :
							    RPC_CALL_CLOSED);
	if (bc && bc != &closed_mark) {
		bc->conn = NULL;
		/* A handler that read the pointer before the swap may be
		 * about to take a reference: keep ours until the connection
		 * is freed, after its calls on workers are back. */
		c->bc_closed = bc;
	}
}

void rpc__bc_free(struct rpc_conn *c)
{
	rpc_backchan_put(c->bc_closed);
	c->bc_closed = NULL;
}

void rpc__bc_expire(struct rpc_loop *loop, uint64_t now)
{
	struct rpc_conn *c;

	if (now < loop->next_call_scan)
		return;
	loop->next_call_scan = now + RPC_BC_SCAN_MS * 1000000ull;
	for (c = loop->all.all_next; c != &loop->all; c = c->all_next) {
		unsigned int n = c->calls.n;

		if (!n)
			continue;
		rpc_pending_expire(&c->calls, now);
		loop->ncalls -= n - c->calls.n;
	}
}
