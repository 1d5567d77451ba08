/* SPDX-License-Identifier: MIT */
/*
 * One TCP connection: reading records into requests, sending replies,
 * and the back-pressure rules (see svc.h). Runs only on its loop's
 * thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

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

struct rpc_conn *rpc__conn_new(struct rpc_loop *loop, int fd,
			       const struct sockaddr_storage *peer)
{
	struct rpc_conn *c = calloc(1, sizeof(*c));
	struct epoll_event ev = { .events = EPOLLIN };

	if (!c)
		return NULL;
	c->fd = fd;
	c->loop = loop;
	c->peer = *peer;
	rpc_record_init(&c->rec, loop->srv->cfg.max_record);
	ev.data.ptr = c;
	if (epoll_ctl(loop->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		free(c);
		return NULL;
	}
	c->events = EPOLLIN;
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

	return c->inflight < cfg->max_inflight && c->tx_bytes < cfg->max_unsent;
}

/* Read while under the limits; write interest while replies wait. */
static void update_interest(struct rpc_conn *c, bool tx_blocked)
{
	uint32_t ev = 0;

	/* A bulk call in progress reads on whatever the limits say: its
	 * data is what stands between it and its reply. */
	if (c->bulk || (under_limits(c) && !c->in_starved && !c->loop->stopping))
		ev |= EPOLLIN;
	if (tx_blocked)
		ev |= EPOLLOUT;
	rpc__conn_set_events(c, ev);
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

	if (tail <= RPC_RBUF_SIZE - 4096) {
		nb = rbuf_get(c->loop);
		ncap = RPC_RBUF_SIZE;
	} else {
		nb = rpc_big_get(pool);
		ncap = pool->cap;
	}
	if (!nb)
		return false;
	memcpy(nb, c->rbuf + end, tail);
	req->rec = c->rbuf + off;
	req->rec_big = c->rbuf;
	c->rbuf = nb;
	c->rcap = ncap;
	c->rlen = tail;
	rpc_record_consumed(&c->rec);
	rpc_record_shift(&c->rec, end);
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

/* Room to read into: compact, or grow towards the record limit. */
static bool make_room(struct rpc_conn *c)
{
	size_t dead, max = (size_t)c->loop->srv->cfg.max_record + RPC_RBUF_SIZE;
	uint8_t *nb;

	if (!c->rbuf) {
		c->rbuf = rbuf_get(c->loop);
		if (!c->rbuf)
			return false;
		c->rcap = RPC_RBUF_SIZE;
		c->rlen = 0;
	}
	if (c->rcap - c->rlen >= 4096)
		return true;
	dead = rpc_record_dead(&c->rec);
	if (dead) {
		memmove(c->rbuf, c->rbuf + dead, c->rlen - dead);
		c->rlen -= dead;
		rpc_record_shift(&c->rec, dead);
		if (c->rcap - c->rlen >= 4096)
			return true;
	}
	if (c->rcap >= max)
		return c->rlen < c->rcap;
	/* Only a record in progress gets here: move it to a pool buffer,
	 * big enough for any record, once. */
	nb = rpc_big_get(&c->loop->srv->bigpool);
	if (!nb)
		return c->rlen < c->rcap;
	memcpy(nb, c->rbuf, c->rlen);
	rbuf_put(c->loop, c->rbuf, c->rcap);
	c->rbuf = nb;
	c->rcap = c->loop->srv->bigpool.cap;
	return true;
}

void rpc__conn_readable(struct rpc_conn *c)
{
	int i;

	for (i = 0; i < READS_PER_EVENT && !c->closed; i++) {
		ssize_t n;
		size_t room;

		if (c->bulk) {
			if (!rpc__bulk_pump(c))
				break; /* waiting for its data, or closed */
			continue;
		}

		/* Complete records still wait in the buffer: let the socket
		 * hold the rest (TCP pushes back) rather than grow the buffer. */
		if (!under_limits(c) || c->in_starved || c->loop->stopping ||
		    rpc__conn_buffered(c))
			break;
		if (!make_room(c)) {
			rpc__conn_close(c, "out of memory for receive buffer");
			return;
		}
		room = c->rcap - c->rlen;
		if (c->bulk_peek) {
			c->bulk_peek = false;
			if (room > RPC_BULK_PEEK)
				room = RPC_BULK_PEEK;
		}
		n = read(c->fd, c->rbuf + c->rlen, room);
		if (n > 0) {
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

static void free_queue(struct rpc_loop *loop, struct rpc_req *r)
{
	while (r) {
		struct rpc_req *next = r->next;

		rpc__req_put(loop, r);
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
	free_queue(loop, c->pend_head);
	free_queue(loop, c->tx_head);
	c->pend_head = c->pend_tail = c->tx_head = c->tx_tail = NULL;
	c->inflight = 0;
	c->tx_bytes = 0;
	if (c->rbuf)
		rbuf_put(loop, c->rbuf, c->rcap);
	c->rbuf = NULL;
	c->all_prev->all_next = c->all_next;
	c->all_next->all_prev = c->all_prev;
	atomic_fetch_sub(&loop->srv->nconns, 1);
	/* Freed after this pass: the scheduler lists may still name it. */
	c->all_next = loop->graveyard;
	loop->graveyard = c;
}

void rpc__conn_free(struct rpc_conn *c)
{
	free(c);
}

int rpc_req_local_addr(const struct rpc_req *req, struct sockaddr_storage *ss)
{
	socklen_t sl = sizeof(*ss);

	if (!req->conn || req->conn->fd < 0)
		return -1;
	return getsockname(req->conn->fd, (struct sockaddr *)ss, &sl);
}
