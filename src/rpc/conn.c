/* SPDX-License-Identifier: MIT */
/*
 * One TCP connection: reading records into requests, sending replies,
 * and the back-pressure rules (see svc.h). Runs only on its loop's
 * thread.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "xdr/xdr.h"

#include "rpc/backchan.h"
#include "rpc/svc_internal.h"
#include "util/log.h"

#define READS_PER_EVENT 4       /* then let other connections in */
#define TX_IOV_MAX 256
#define POOLED_RBUFS_MAX 64
/* Records taken from the buffer at a time: the rest wait for their turn. */
#define PARSE_BATCH 32

static uint8_t *rbuf_get(struct rpc_loop *loop)
{
	uint8_t *b = loop->free_rbufs;

	if (b) {
		loop->free_rbufs = *(uint8_t **)(void *)b;
		loop->nfree_rbufs--;
		return b;
	}
	return malloc(RPC_RBUF_SIZE);
}

static void rbuf_put(struct rpc_loop *loop, uint8_t *b, size_t cap)
{
	if (b == loop->scratch)
		return; /* lent for one small call (read_small) */
	if (cap == loop->srv->bigpool.cap) {
		rpc_big_put(&loop->srv->bigpool, b);
		return;
	}
	if (cap != RPC_RBUF_SIZE || loop->nfree_rbufs >= POOLED_RBUFS_MAX) {
		free(b);
		return;
	}
	*(uint8_t **)(void *)b = loop->free_rbufs;
	loop->free_rbufs = b;
	loop->nfree_rbufs++;
}

/* Connection ids: from 1, so 0 is no connection. */
static _Atomic uint64_t conn_ids;

struct rpc_conn *rpc__conn_new(struct rpc_loop *loop, int fd,
			       const struct sockaddr_storage *peer)
{
	struct rpc_conn *c = calloc(1, sizeof(*c));
	struct epoll_event ev = { .events = EPOLLIN };

	if (!c)
		return NULL;
	c->fd = fd;
	c->id = atomic_fetch_add(&conn_ids, 1) + 1;
	c->loop = loop;
	c->peer = *peer;
	rpc_record_init(&c->rec, loop->srv->cfg.max_record);
	rpc_pending_init(&c->calls, RPC_BC_MAX_CALLS);
	ev.data.ptr = c;
	if (epoll_ctl(loop->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		free(c);
		return NULL;
	}
	c->events = EPOLLIN;
	c->last_ns = c->rx_ns = c->born_ns = rpc__now_ns();
	c->all_next = loop->all.all_next;
	c->all_prev = &loop->all;
	loop->all.all_next->all_prev = c;
	loop->all.all_next = c;
	return c;
}

void rpc__conn_set_events(struct rpc_conn *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = c };

	if (c->closed || events == c->events)
		return;
	if (epoll_ctl(c->loop->epfd, EPOLL_CTL_MOD, c->fd, &ev) == 0)
		c->events = events;
}

static bool under_limits(const struct rpc_conn *c)
{
	const struct rpc_server_config *cfg = &c->loop->srv->cfg;

	return c->inflight < cfg->max_inflight && c->tx_bytes < cfg->max_unsent &&
	       c->held < cfg->max_conn_bytes;
}

/* Read while under the limits; write interest while replies wait. */
static void update_interest(struct rpc_conn *c, bool tx_blocked)
{
	uint32_t ev = 0;

	/* A bulk call in progress reads on whatever the limits say: its
	 * data is what stands between it and its reply. */
	if (c->bulk || (under_limits(c) && !c->in_starved && !c->wait_total &&
			!c->loop->stopping))
		ev |= EPOLLIN;
	if (tx_blocked)
		ev |= EPOLLOUT;
	rpc__conn_set_events(c, ev);
}

void rpc__conn_update_interest(struct rpc_conn *c)
{
	if (!c->closed)
		update_interest(c, c->events & EPOLLOUT);
}

/* An idle connection gives its receive buffer back. */
static void maybe_release_rbuf(struct rpc_conn *c)
{
	size_t dead = rpc_record_dead(&c->rec);

	if (!c->rbuf || dead != c->rlen)
		return;
	rpc_record_shift(&c->rec, dead);
	c->rlen = 0;
	if (!c->rec.started) {
		rbuf_put(c->loop, c->rbuf, c->rcap);
		c->rbuf = NULL;
		c->rcap = 0;
		rpc__budget_rx(c);
	}
}

bool rpc__conn_buffered(const struct rpc_conn *c)
{
	return c->backlog;
}

/*
 * hand_off - give @req the pool buffer holding its record at @off; the
 * connection goes on in a new buffer holding the bytes after the record.
 * Return values: false (nothing changed) when no buffer is available.
 */
static bool hand_off(struct rpc_conn *c, struct rpc_req *req, size_t off)
{
	struct rpc_bigpool *pool = &c->loop->srv->bigpool;
	size_t end = c->rec.rd, tail = c->rlen - end;
	uint8_t *nb;
	size_t ncap;

	if (!tail) {
		/* Reads into a pool buffer stop at the record's end
		 * (rpc__conn_readable): the usual case. */
		nb = NULL;
		ncap = 0;
	} else if (tail <= RPC_RBUF_SIZE - 4096) {
		nb = rbuf_get(c->loop);
		ncap = RPC_RBUF_SIZE;
	} else {
		nb = rpc_big_get(pool);
		ncap = pool->cap;
	}
	if (!nb && tail)
		return false;
	if (tail)
		memcpy(nb, c->rbuf + end, tail);
	req->rec = c->rbuf + off;
	req->rec_big = c->rbuf;
	c->rbuf = nb;
	c->rcap = ncap;
	c->rlen = tail;
	rpc_record_consumed(&c->rec);
	rpc_record_shift(&c->rec, end);
	/* The pool buffer is the request's now (counted in parse). */
	rpc__budget_rx(c);
	return true;
}

void rpc__conn_parse(struct rpc_conn *c)
{
	struct rpc_loop *loop = c->loop;
	size_t off, len;
	int st, n = 0;

	c->backlog = false;
	while (!c->closed && c->rbuf && under_limits(c)) {
		struct rpc_req *req;

		if (n++ == PARSE_BATCH) {
			c->backlog = true; /* maybe more complete records */
			break;
		}
		/* Past the total, a connection with calls in flight waits
		 * for them (they need no budget to finish) before its next
		 * record becomes a request. */
		if (c->inflight && c->rec.rd < c->rlen && rpc__budget_over(loop->srv)) {
			rpc__budget_wait(c, false);
			break;
		}
		req = rpc__req_get(loop);

		if (!req) {
			rpc__mark_starved(c);
			break;
		}
		st = rpc_record_parse(&c->rec, c->rbuf, c->rlen, &off, &len);
		if (st != RPC_RECORD_DONE) {
			rpc__req_put(loop, req);
			if (st == RPC_RECORD_TOOBIG) {
				rpc__conn_close(c, "record larger than the limit");
				return;
			}
			rpc__bulk_try(c);
			break;
		}
		c->bulk_tried = false;
		/* A client's reply to a call of ours (the back channel):
		 * never a request. */
		if (rpc_record_is_reply(c->rbuf + off, len)) {
			rpc__req_put(loop, req);
			rpc__bc_reply(c, c->rbuf + off, len);
			rpc_record_consumed(&c->rec);
			continue;
		}
		if (len > sizeof(req->rec_inline) && c->rcap == loop->srv->bigpool.cap &&
		    hand_off(c, req, off)) {
			/* the record stays where it is: no copy */
		} else if (len > sizeof(req->rec_inline)) {
			req->rec = malloc(len);
			if (!req->rec) {
				req->rec = req->rec_inline;
				rpc__req_put(loop, req);
				rpc__conn_close(c, "out of memory for a record");
				return;
			}
		}
		if (!req->rec_big) {
			memcpy(req->rec, c->rbuf + off, len);
			rpc_record_consumed(&c->rec);
		}
		req->rec_len = len;
		rpc_req_reset(req);
		req->conn = c;
		req->peer = &c->peer;
		req->t_rx = c->rx_ns; /* when its last bytes were read */
		req->stat_in = (uint32_t)len + 4;
		rpc__budget_add(c, req, sizeof(*req) +
				(req->rec_big ? loop->srv->bigpool.cap :
				 req->rec != req->rec_inline ? len : 0));
		if (c->pend_tail)
			c->pend_tail->next = req;
		else
			c->pend_head = req;
		c->pend_tail = req;
		c->inflight++;
		rpc__mark_ready(c);
	}
	if (!c->closed)
		maybe_release_rbuf(c);
}

enum room { ROOM_OK, ROOM_WAIT, ROOM_FAIL };

/*
 * Room to read into: compact, or grow towards the record limit, within
 * the total budget (budget.c).
 * Return values: ROOM_OK; ROOM_WAIT: the budget has no room now (c->rbuf
 * unchanged); ROOM_FAIL: out of memory.
 */
static enum room make_room(struct rpc_conn *c)
{
	struct rpc_server *srv = c->loop->srv;
	size_t dead, max = (size_t)srv->cfg.max_record + RPC_RBUF_SIZE;
	uint8_t *nb;

	if (!c->rbuf) {
		if (!rpc__budget_take(c, RPC_RBUF_SIZE, srv->rx_limit))
			return ROOM_WAIT;
		c->rbuf = rbuf_get(c->loop);
		if (!c->rbuf) {
			rpc__budget_rx(c);
			return ROOM_FAIL;
		}
		c->rcap = RPC_RBUF_SIZE;
		c->rlen = 0;
		c->wait_big = false;
	}
	if (c->rcap - c->rlen >= 4096)
		return ROOM_OK;
	dead = rpc_record_dead(&c->rec);
	if (dead) {
		memmove(c->rbuf, c->rbuf + dead, c->rlen - dead);
		c->rlen -= dead;
		rpc_record_shift(&c->rec, dead);
		if (c->rcap - c->rlen >= 4096)
			return ROOM_OK;
	}
	if (c->rcap >= max)
		return c->rlen < c->rcap ? ROOM_OK : ROOM_FAIL;
	/* Only a record in progress gets here: move it to a pool buffer,
	 * big enough for any record, once; counted whole, up to the total
	 * itself (the reserve that receive buffers leave). */
	if (!rpc__budget_take(c, srv->bigpool.cap - c->rcap, srv->cfg.max_total_bytes))
		return c->rlen < c->rcap ? ROOM_OK : ROOM_WAIT;
	nb = rpc_big_get(&srv->bigpool);
	if (!nb) {
		rpc__budget_rx(c);
		return c->rlen < c->rcap ? ROOM_OK : ROOM_FAIL;
	}
	memcpy(nb, c->rbuf, c->rlen);
	rbuf_put(c->loop, c->rbuf, c->rcap);
	c->rbuf = nb;
	c->rcap = srv->bigpool.cap;
	rpc__budget_rx(c);
	return ROOM_OK;
}

/* SO_RCVLOWAT for read_small: wake when @v bytes are there (0: any). */
static void small_lowat(struct rpc_conn *c, int v)
{
	if (v == c->rcvlowat)
		return;
	if (setsockopt(c->fd, SOL_SOCKET, SO_RCVLOWAT, &(int){ v ? v : 1 },
		       sizeof(int)) == 0)
		c->rcvlowat = v;
}

/*
 * No receive buffer can be had and nothing is in flight: read one small
 * call, whole, into the loop's scratch buffer and make it a request at
 * once, so that a well-behaved client is served while the budget is
 * held by others. Its marker is peeked at; the call is read only when
 * all of it is in the socket (until then SO_RCVLOWAT makes epoll wait
 * for it). Anything larger waits for the budget, in the socket.
 */
static void read_small(struct rpc_conn *c)
{
	struct rpc_loop *loop = c->loop;
	uint8_t mark[4];
	uint32_t m, len;
	int avail = 0;
	ssize_t n;

	n = recv(c->fd, mark, sizeof(mark), MSG_PEEK | MSG_DONTWAIT);
	if (n == 0) {
		rpc__conn_close(c, "closed by peer");
		return;
	}
	if (n < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			rpc__conn_close(c, strerror(errno));
		return;
	}
	if (n < 4) {
		small_lowat(c, 4);
		return;
	}
	m = xdr__get32(mark);
	len = m & RPC_RM_LEN;
	if (!(m & RPC_RM_LAST) || len > RPC_SMALL_CALL) {
		small_lowat(c, 0);
		rpc__budget_wait(c, true);
		return;
	}
	if (ioctl(c->fd, FIONREAD, &avail) < 0 || (size_t)avail < 4 + len) {
		small_lowat(c, (int)(4 + len));
		return;
	}
	small_lowat(c, 0);
	n = read(c->fd, loop->scratch, 4 + len);
	if (n <= 0) {
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			rpc__conn_close(c, n == 0 ? "closed by peer" : strerror(errno));
		return;
	}
	c->last_ns = c->rx_ns = rpc__now_ns();
	c->rbuf = loop->scratch;
	c->rcap = RPC_RBUF_SIZE;
	c->rlen = (size_t)n;
	rpc__conn_parse(c);
	if (c->closed || c->rbuf != loop->scratch)
		return;
	/* Not all taken (no free request, or short read): keep the bytes. */
	c->rbuf = rbuf_get(loop);
	if (!c->rbuf) {
		rpc__conn_close(c, "out of memory for receive buffer");
		return;
	}
	memcpy(c->rbuf, loop->scratch, c->rlen);
	rpc__budget_rx(c);
}

void rpc__conn_readable(struct rpc_conn *c)
{
	int i;

	for (i = 0; i < READS_PER_EVENT && !c->closed; i++) {
		ssize_t n;
		size_t room;

		if (c->bulk) {
			c->last_ns = rpc__now_ns();
			if (!rpc__bulk_pump(c))
				break; /* waiting for its data, or closed */
			continue;
		}

		/* Complete records still wait in the buffer: let the socket
		 * hold the rest (TCP pushes back) rather than grow the buffer. */
		if (!under_limits(c) || c->in_starved || c->loop->stopping ||
		    c->wait_total || rpc__conn_buffered(c))
			break;
		if (c->rcvlowat)
			small_lowat(c, 0);
		switch (make_room(c)) {
		case ROOM_OK:
			break;
		case ROOM_FAIL:
			rpc__conn_close(c, "out of memory for receive buffer");
			return;
		case ROOM_WAIT:
			if (!c->rbuf && !c->inflight && !c->wait_big)
				read_small(c);
			else
				rpc__budget_wait(c, true);
			goto out;
		}
		room = c->rcap - c->rlen;
		/* In a pool buffer, read no further than the record's end,
		 * so that the buffer goes to the request whole (hand_off)
		 * and nothing of the next record is held with it. */
		if (c->rcap == c->loop->srv->bigpool.cap && c->rec.started) {
			size_t need = rpc_record_need(&c->rec) +
				      (c->rec.in_frag && c->rec.last ? 0 : 4);

			if (room > need)
				room = need;
		}
		if (c->bulk_peek) {
			c->bulk_peek = false;
			if (room > RPC_BULK_PEEK)
				room = RPC_BULK_PEEK;
		}
		n = read(c->fd, c->rbuf + c->rlen, room);
		if (n > 0) {
			c->last_ns = c->rx_ns = rpc__now_ns();
			c->rlen += (size_t)n;
			rpc__conn_parse(c);
			if (c->bulk)
				continue;
			if ((size_t)n < room)
				break;
			continue;
		}
		if (n == 0) {
			rpc__conn_close(c, "closed by peer");
			return;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			rpc__conn_close(c, strerror(errno));
		break;
	}
out:
	if (!c->closed) {
		maybe_release_rbuf(c);
		update_interest(c, c->events & EPOLLOUT);
	}
}

/*
 * The iovecs of the replies waiting on @c. Consecutive small replies are
 * copied side by side into the loop's staging buffer and sent as one
 * iovec: the kernel's per-segment cost is then paid once per batch, not
 * once per 28-byte NULL reply. The replies keep their own bytes, so a
 * partial send is accounted for exactly as without the copy.
 */
static int gather(struct rpc_conn *c, struct iovec *iov)
{
	uint8_t *stage = c->loop->stage;
	size_t staged = 0;
	struct rpc_req *r;
	int n = 0;

	for (r = c->tx_head; r && n < TX_IOV_MAX; r = r->next) {
		uint8_t *base = r->reply + r->tx_done;
		size_t len = r->tx_len - r->tx_done;

		if (r->ext_len) {
			if (n + 3 > TX_IOV_MAX)
				break;
			n += rpc_req_tx_iov(r, iov + n);
			continue;
		}
		if (len <= RPC_STAGE_SMALL && staged + len <= RPC_STAGE_SIZE) {
			if (!n || iov[n - 1].iov_base != stage + staged -
						   iov[n - 1].iov_len ||
			    !staged) {
				iov[n].iov_base = stage + staged;
				iov[n++].iov_len = 0;
			}
			memcpy(stage + staged, base, len);
			staged += len;
			iov[n - 1].iov_len += len;
			continue;
		}
		iov[n].iov_base = base;
		iov[n++].iov_len = len;
	}
	return n;
}

void rpc__conn_flush(struct rpc_conn *c)
{
	struct iovec iov[TX_IOV_MAX];
	struct msghdr msg = { .msg_iov = iov };
	bool blocked = false;

	while (c->tx_head && !c->closed) {
		struct rpc_req *r;
		int n = 0;
		ssize_t sent;

		n = gather(c, iov);
		msg.msg_iovlen = (size_t)n;
		sent = sendmsg(c->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (sent > 0)
			c->last_ns = c->tx_ns = rpc__now_ns();
		if (sent < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				blocked = true;
				break;
			}
			/* The first unsent byte is the head reply's: a
			 * mapped READ whose file shrank. */
			if (errno == EFAULT && rpc_req_ext_lost(c->tx_head)) {
				log_debug("connection %d: READ data gone (truncated?): zeros sent",
					  c->fd);
				continue;
			}
			rpc__conn_close(c, strerror(errno));
			return;
		}
		while (sent > 0) {
			size_t left;

			r = c->tx_head;
			left = r->tx_len - r->tx_done;
			if ((size_t)sent < left) {
				r->tx_done += (size_t)sent;
				c->tx_bytes -= (size_t)sent;
				sent = 0;
				blocked = true; /* the socket buffer is full */
				break;
			}
			sent -= (ssize_t)left;
			c->tx_bytes -= left;
			c->tx_head = r->next;
			if (!c->tx_head)
				c->tx_tail = NULL;
			c->inflight--;
			rpc__stats_done(c, r, c->tx_ns);
			rpc__req_put(c->loop, r);
		}
		if (blocked)
			break;
	}
	if (c->closed)
		return;
	/* Draining may have lifted a limit: take the records buffered meanwhile. */
	if (under_limits(c) && c->rbuf && !c->in_starved)
		rpc__conn_parse(c);
	if (!c->closed)
		update_interest(c, blocked);
}

/* Free the requests of a queue; @answered: replies never sent, counted
 * as calls all the same (they ran). */
static void free_queue(struct rpc_conn *c, struct rpc_req *r, bool answered)
{
	while (r) {
		struct rpc_req *next = r->next;

		if (answered)
			rpc__stats_done(c, r, 0);
		rpc__req_put(c->loop, r);
		r = next;
	}
}

void rpc__conn_close(struct rpc_conn *c, const char *why)
{
	struct rpc_loop *loop = c->loop;

	if (c->closed)
		return;
	log_debug("connection %d closed: %s", c->fd, why);
	c->closed = true;
	epoll_ctl(loop->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	rpc__bulk_abort(c);
	rpc__bc_close(c);
	free_queue(c, c->pend_head, false);
	free_queue(c, c->tx_head, true);
	c->pend_head = c->pend_tail = c->tx_head = c->tx_tail = NULL;
	c->inflight = 0;
	c->tx_bytes = 0;
	if (c->rbuf)
		rbuf_put(loop, c->rbuf, c->rcap);
	c->rbuf = NULL;
	rpc__budget_rx(c);
	if (loop->srv->clients)
		rpc__clients_del(loop->srv->clients, &c->peer);
	c->all_prev->all_next = c->all_next;
	c->all_next->all_prev = c->all_prev;
	atomic_fetch_sub(&loop->srv->nconns, 1);
	/* Freed after this pass: the scheduler lists may still name it. */
	c->all_next = loop->graveyard;
	loop->graveyard = c;
}

/*
 * Close the connections of @loop that have had no traffic for the idle
 * timeout and have nothing in flight (a partial record counts as
 * nothing: its sender went quiet), as knfsd closes idle sockets.
 */
void rpc__conn_close_idle(struct rpc_loop *loop, uint64_t now)
{
	uint64_t tmo = (uint64_t)loop->srv->cfg.idle_timeout_s * 1000000000u;
	struct rpc_conn *c, *next;

	for (c = loop->all.all_next; c != &loop->all; c = next) {
		next = c->all_next;
		/* Held back by the total budget: the server is the one not
		 * reading, however long it lasts. */
		if (c->wait_total)
			continue;
		/* Replies the peer does not take: no byte of them has left
		 * for the timeout. Such a connection holds its requests and
		 * replies (its whole budget), so it cannot be left to wait
		 * for traffic that will never come. */
		if (c->tx_head) {
			if (now - c->tx_ns >= tmo)
				rpc__conn_close(c, "replies not read for the idle timeout");
			continue;
		}
		if (c->inflight || c->busy || c->bulk || now - c->last_ns < tmo)
			continue;
		rpc__conn_close(c, "idle timeout");
	}
}

void rpc__conn_free(struct rpc_conn *c)
{
	rpc__bc_free(c);
	free(c);
}

int rpc_req_local_addr(const struct rpc_req *req, struct sockaddr_storage *ss)
{
	socklen_t sl = sizeof(*ss);

	if (!req->conn || req->conn->fd < 0)
		return -1;
	return getsockname(req->conn->fd, (struct sockaddr *)ss, &sl);
}

uint64_t rpc_req_conn_id(const struct rpc_req *req)
{
	return req->conn ? req->conn->id : 0;
}

uint32_t rpc_req_max_record(const struct rpc_req *req)
{
	return req->conn ? req->conn->loop->srv->cfg.max_record : RPC_DEFAULT_MAX_RECORD;
}
