/* SPDX-License-Identifier: MIT */
/*
 * Memory budgets: bytes received and not yet answered, per connection
 * (--max-conn-bytes) and in total (--max-total-bytes).
 *
 * DESIGN
 * - What is counted is what a peer makes nfsxd hold: a connection's
 *   receive buffer at its capacity (a reused buffer's pages are resident
 *   whatever it holds; a pool buffer is counted whole from the moment a
 *   record moves into it), and every request from record to reply sent:
 *   the request itself, its record until the call has run, then its
 *   reply if that is not inline. Reply data sent from a file's mapping
 *   is the file's, not counted.
 * - Past a budget nfsxd stops reading (EPOLLIN off): the bytes stay in
 *   the socket, kernel memory that TCP bounds and pushes back on. An
 *   accepted call is never dropped.
 * - One counter for the whole server, an atomic shared by the loops,
 *   rather than a share per loop: a connection lands on a loop by turn,
 *   so per-loop shares would stall one loop's clients while another
 *   loop's share sits unused. Each loop adds its changes up and moves
 *   the shared counter once they pass 64 KiB and at the end of each pass
 *   (rpc__budget_flush): a small call adds and removes the same 4 KiB,
 *   so it costs no atomic operation. Taking a buffer flushes first and
 *   takes with a compare-and-swap.
 * - No stall: a receive buffer is taken only while the total stays below
 *   --max-total-bytes minus one pool buffer (rx_limit); a record that
 *   outgrows its receive buffer takes a whole pool buffer, which is
 *   allowed up to the total itself. When nothing but receive buffers is
 *   held, the total is at most rx_limit, so the next pool buffer fits:
 *   some record can always be completed, and a complete record is run
 *   whatever the budget. A connection with nothing in flight may always
 *   turn a complete record into a request, and may read one small call
 *   (RPC_SMALL_CALL) into the loop's scratch buffer when it cannot have
 *   a receive buffer: it reads it only once the whole call is in the
 *   socket (FIONREAD), so a well-behaved client is answered even while
 *   half-sent records hold the whole budget.
 */
#include <errno.h>

#include "rpc/svc_internal.h"

#define RETRY_NS 10000000u   /* waiting connections retried this often */

void rpc__budget_init(struct rpc_server *srv)
{
	struct rpc_server_config *cfg = &srv->cfg;
	size_t big = srv->bigpool.cap;
	size_t min_conn = 2 * big + 2 * RPC_RBUF_SIZE;
	size_t min_total = 2 * big + 4 * RPC_RBUF_SIZE;

	/* A connection can always hold one large record in a pool buffer
	 * and read the next into another; the total has room for at least
	 * a receive buffer below its reserve of a pool buffer. */
	if (cfg->max_conn_bytes < min_conn)
		cfg->max_conn_bytes = min_conn;
	if (cfg->max_total_bytes < min_total)
		cfg->max_total_bytes = min_total;
	srv->rx_limit = cfg->max_total_bytes - big;
	atomic_init(&srv->held, 0);
}

#define FLUSH_AT (64 << 10)  /* a loop's uncounted bytes, at most */

/* Give the loop's pending count to the server's counter. */
void rpc__budget_flush(struct rpc_loop *loop)
{
	if (!loop->held_pending)
		return;
	atomic_fetch_add_explicit(&loop->srv->held, (size_t)loop->held_pending,
				  memory_order_relaxed);
	loop->held_pending = 0;
}

/*
 * Count @n bytes (negative: given back) for @c, exactly, and for the
 * server through its loop: a small call adds and removes the same 4 KiB,
 * so a busy loop moves the shared counter about once a pass, not twice a
 * call. The total lags by at most FLUSH_AT per loop.
 */
static void count(struct rpc_conn *c, ssize_t n)
{
	struct rpc_loop *loop = c->loop;

	c->held += (size_t)n;
	loop->held_pending += n;
	if (loop->held_pending >= FLUSH_AT || loop->held_pending <= -FLUSH_AT)
		rpc__budget_flush(loop);
}

/*
 * rpc__budget_take - count @n more receive-buffer bytes for @c if the
 * total stays at most @limit.
 * Return values: true when counted.
 */
bool rpc__budget_take(struct rpc_conn *c, size_t n, size_t limit)
{
	struct rpc_server *srv = c->loop->srv;
	size_t cur;

	rpc__budget_flush(c->loop);
	cur = atomic_load_explicit(&srv->held, memory_order_relaxed);

	do {
		if (cur + n > limit)
			return false;
	} while (!atomic_compare_exchange_weak_explicit(&srv->held, &cur, cur + n,
							memory_order_relaxed,
							memory_order_relaxed));
	c->held += n;
	c->rx_held += n;
	return true;
}

/* Count @n more bytes for @req (on its connection @c). */
void rpc__budget_add(struct rpc_conn *c, struct rpc_req *req, size_t n)
{
	req->held += n;
	count(c, (ssize_t)n);
}

/* @req now holds @n bytes: one move of the difference, none for a small
 * call, whose record and reply are both inline. */
void rpc__budget_set(struct rpc_conn *c, struct rpc_req *req, size_t n)
{
	if (n == req->held)
		return;
	count(c, (ssize_t)(n - req->held));
	req->held = n;
}

/* Whatever @req holds is given back (its connection may be closed). */
void rpc__budget_drop(struct rpc_req *req)
{
	struct rpc_conn *c = req->conn;

	if (!req->held || !c)
		return;
	count(c, -(ssize_t)req->held);
	req->held = 0;
}

/* The receive buffer changed: count its capacity, unconditionally. */
void rpc__budget_rx(struct rpc_conn *c)
{
	size_t want = c->rbuf && c->rbuf != c->loop->scratch ? c->rcap : 0;

	if (want == c->rx_held)
		return;
	count(c, (ssize_t)(want - c->rx_held));
	c->rx_held = want;
}

/* Return values: true when the total budget is used up. */
bool rpc__budget_over(const struct rpc_server *srv)
{
	return atomic_load_explicit(&srv->held, memory_order_relaxed) >=
	       srv->cfg.max_total_bytes;
}

/*
 * Stop reading @c until the loop retries it (rpc__budget_retry). @big:
 * what it waits to read is larger than a small call, so a retry need not
 * look at the socket before a receive buffer can be had.
 */
void rpc__budget_wait(struct rpc_conn *c, bool big)
{
	struct rpc_loop *loop = c->loop;

	c->wait_big = big;
	if (!c->wait_total) {
		c->wait_total = true;
		c->wait_next = NULL;
		if (loop->wait_tail)
			loop->wait_tail->wait_next = c;
		else
			loop->wait_head = c;
		loop->wait_tail = c;
	}
	rpc__conn_update_interest(c);
}

/*
 * Every RETRY_NS, let the waiting connections try again, oldest first.
 * Budget freed on another loop raises no event here, hence the polling;
 * it only happens while connections wait, that is under overload. A
 * retry that still finds no room costs a compare, no system call.
 */
void rpc__budget_retry(struct rpc_loop *loop)
{
	struct rpc_conn *c, *list = loop->wait_head;
	uint64_t now;

	if (!list)
		return;
	now = rpc__now_ns();
	if (now < loop->next_retry)
		return;
	loop->next_retry = now + RETRY_NS;
	loop->wait_head = loop->wait_tail = NULL;
	while ((c = list)) {
		list = c->wait_next;
		c->wait_next = NULL;
		c->wait_total = false;
		if (c->closed)
			continue;
		if (c->rbuf)
			rpc__conn_parse(c);
		if (!c->closed && !c->wait_total)
			rpc__conn_readable(c);
		if (!c->closed && !c->wait_total)
			rpc__conn_update_interest(c);
	}
}

/* The loop's poll timeout while connections wait: milliseconds. */
int rpc__budget_timeout(const struct rpc_loop *loop)
{
	return loop->wait_head ? (int)(RETRY_NS / 1000000u) : -1;
}
