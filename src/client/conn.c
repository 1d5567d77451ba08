/* SPDX-License-Identifier: MIT */
/*
 * One TCP connection: nonblocking connect (optionally from a reserved
 * port), batched sends, the receive buffer with record reassembly, and
 * failure handling (replay of its calls, back-off).
 *
 * DESIGN
 * - Send: the send list is turned into one iovec array (marker+header+
 *   arguments, then a WRITE payload straight from the caller's buffer,
 *   then padding) and handed to one sendmsg; a partial write resumes at
 *   the same byte when epoll reports the socket writable.
 * - A call that completes while it is the partly written head of the
 *   send list (its reply raced a retransmission, or a hostile server
 *   answered early) leaves its unsent bytes behind as a copy, so the
 *   stream stays well-formed and the caller's buffer is not touched
 *   after its callback.
 * - Receive: reads go into one buffer (64 KiB, doubling up to max_reply
 *   plus 64 KiB) in large chunks; src/rpc/record.c (shared with the
 *   server) gathers fragments in place and refuses a marker beyond
 *   max_reply before anything of that size exists. Replies are decoded
 *   where they lie: READ data reaches the callback as a view into it.
 * - Replies of ours to the server's calls (the NFSv4.1 back channel) wait
 *   in their own list and become the "unsent tail" above when the stream
 *   is at a record boundary (nothing of the head call written): no
 *   record is ever cut. While one waits, a partly written head call is
 *   finished alone first, so a busy send list cannot hold it back.
 * - Failure: calls on the connection go back to the front of the
 *   transmit queue with their xids (replay). The first reconnect is
 *   immediate, then 100 ms doubling up to max_backoff_ms; the count
 *   resets only on a well-formed reply, so a server that accepts and
 *   then talks garbage is backed off too.
 */
#include "client/internal.h"
#include "client/nfs4.h"

#include <errno.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define RX_MIN_ROOM (16u << 10)
#define NC_LOWAT_MIN (64u << 10)   /* below this, wake for every segment */
#define NC_LOWAT_MAX (2048u << 10)

static const uint8_t zeros[4];

/* A reply of ours to a call of the server's, waiting to be sent. */
struct nc_oob {
	struct nc_list link;
	uint8_t *buf;
	size_t len;
};

int nc_conn_init(struct nc_conn *c, struct nfsx_ctx *ctx, struct nc_chan *ch,
		 unsigned idx, unsigned slots)
{
	memset(c, 0, sizeof(*c));
	c->src.kind = NC_SRC_CONN;
	c->ctx = ctx;
	c->ch = ch;
	c->idx = idx;
	c->fd = -1;
	nc_list_init(&c->sendq);
	nc_list_init(&c->inflight);
	nc_list_init(&c->oob);
	rpc_record_init(&c->rec, ctx->o.max_reply);
	return nc_slots_init(&c->slots, slots);
}

static void close_socket(struct nc_conn *c)
{
	if (c->fd >= 0)
		close(c->fd); /* also leaves the epoll set */
	c->fd = -1;
	c->events = 0;
	free(c->rem);
	c->rem = NULL;
	c->rem_len = c->rem_off = 0;
	c->send_off = 0;
	free(c->rbuf);
	c->rbuf = NULL;
	c->rlen = c->rcap = 0;
	rpc_record_init(&c->rec, c->ctx->o.max_reply);
	c->broken = false;
	while (!nc_list_empty(&c->oob)) {
		struct nc_oob *o = nc_container_of(c->oob.next, struct nc_oob, link);

		nc_list_del(&o->link);
		free(o->buf);
		free(o);
	}
}

void nc_conn_send_raw(struct nc_conn *c, uint8_t *buf, size_t len)
{
	struct nc_oob *o = malloc(sizeof(*o));

	if (!o || c->state != NC_UP) {
		free(o);
		free(buf);
		return;
	}
	o->buf = buf;
	o->len = len;
	nc_list_add_tail(&c->oob, &o->link);
	c->ctx->dirty = true;
}

/* At a record boundary, the next reply of ours becomes the tail to send. */
static void take_oob(struct nc_conn *c)
{
	struct nc_oob *o;

	if (c->rem || c->send_off || nc_list_empty(&c->oob))
		return;
	o = nc_container_of(c->oob.next, struct nc_oob, link);
	nc_list_del(&o->link);
	c->rem = o->buf;
	c->rem_len = o->len;
	c->rem_off = 0;
	free(o);
}

void nc_conn_fini(struct nc_conn *c)
{
	close_socket(c);
	nc_slots_fini(&c->slots);
}

static uint64_t backoff_ns(const struct nc_conn *c)
{
	uint64_t ms;

	if (c->backoff_n <= 1)
		return 0;
	ms = NC_BACKOFF_BASE_MS;
	for (unsigned i = 2; i < c->backoff_n && ms < c->ctx->o.max_backoff_ms; i++)
		ms *= 2;
	if (ms > c->ctx->o.max_backoff_ms)
		ms = c->ctx->o.max_backoff_ms;
	return ms * 1000000u;
}

/* After a failure: reconnect now (IDLE) or after the back-off. */
static void schedule_reconnect(struct nc_conn *c)
{
	uint64_t d = backoff_ns(c);

	c->state = d ? NC_BACKOFF : NC_IDLE;
	c->deadline = d ? nc_now() + d : 0;
}

static const char *chan_name(const struct nc_chan *ch)
{
	static const char *const names[NC_NCHAN] = { "NFS", "MOUNT", "rpcbind" };

	return names[ch->id];
}

static void connect_failed(struct nc_conn *c, int err)
{
	struct nc_chan *ch = c->ch;
	unsigned i;

	nc_set_error(c->ctx, "connect to %s port %u (%s): %s", c->ctx->host, ch->port,
		     chan_name(ch), strerror(-err));
	close_socket(c);
	c->state = NC_IDLE;
	c->backoff_n++;
	if (c->ctx->ever_up) {
		schedule_reconnect(c);
		return;
	}
	/*
	 * Never reached the server (on any port): fail what waits rather than retry
	 * forever, once no other connection of the channel may still make
	 * it (until then this one waits, so it does not spin).
	 */
	for (i = 0; i < ch->nconn; i++) {
		if (&ch->conns[i] != c &&
		    (ch->conns[i].state == NC_CONNECTING || ch->conns[i].state == NC_UP)) {
			c->backoff_n = 2;
			schedule_reconnect(c);
			return;
		}
	}
	c->state = NC_IDLE;
	c->deadline = 0;
	c->backoff_n = 0;
	nc_chan_fail_queued(ch, err);
}

void nc_conn_check_broken(struct nc_conn *c)
{
	if (!c->broken)
		return;
	if (c->state == NC_UP)
		nc_conn_fail(c, -ENOMEM, false);
	else if (c->state == NC_CONNECTING)
		connect_failed(c, -ENOMEM);
	else
		c->broken = false;
}

static void conn_up(struct nc_conn *c)
{
	c->state = NC_UP;
	c->deadline = 0;
	c->nconnects++;
	c->ctx->ever_up = true;
	nc_epoll_mod(c->ctx, c, EPOLLIN | (nc_list_empty(&c->sendq) ? 0u : EPOLLOUT));
}

/* Bind a source port below 1024, as bindresvport(3) does. */
static int bind_reserved(int fd, int family)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t sl;
	int port;

	for (port = 1023; port >= 512; port--) {
		if (family == AF_INET6) {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

			s6->sin6_family = AF_INET6;
			s6->sin6_port = htons((uint16_t)port);
			sl = sizeof(*s6);
		} else {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

			s4->sin_family = AF_INET;
			s4->sin_port = htons((uint16_t)port);
			sl = sizeof(*s4);
		}
		if (bind(fd, (struct sockaddr *)&ss, sl) == 0)
			return 0;
		if (errno != EADDRINUSE)
			return -errno;
	}
	return -EADDRINUSE;
}

void nc_conn_start(struct nc_conn *c)
{
	struct nfsx_ctx *ctx = c->ctx;
	struct sockaddr_storage ss = ctx->addr;
	int one = 1, fd, r;

	if (ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(c->ch->port);
	else
		((struct sockaddr_in *)&ss)->sin_port = htons(c->ch->port);
	c->nattempts++;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		connect_failed(c, -errno);
		return;
	}
	c->fd = fd;
	c->rcvlowat = 0;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (ctx->o.privileged_port && (r = bind_reserved(fd, ss.ss_family)) < 0) {
		connect_failed(c, r);
		return;
	}
	c->deadline = nc_now() + (uint64_t)ctx->o.timeo_ms * 1000000u;
	if (connect(fd, (struct sockaddr *)&ss, ctx->addrlen) == 0) {
		conn_up(c);
		return;
	}
	if (errno != EINPROGRESS) {
		connect_failed(c, -errno);
		return;
	}
	c->state = NC_CONNECTING;
	nc_epoll_mod(ctx, c, EPOLLOUT);
}

/* Copy the bytes of @call's record from offset @off into @dst. */
static void copy_record(const struct nc_call *call, size_t off, uint8_t *dst)
{
	const uint8_t *seg[3] = { call->buf, call->payload, zeros };
	size_t len[3] = { call->len, call->payload_len,
			  xdr_pad(call->payload_len) - call->payload_len };
	int i;

	for (i = 0; i < 3; i++) {
		if (off >= len[i]) {
			off -= len[i];
			continue;
		}
		memcpy(dst, seg[i] + off, len[i] - off);
		dst += len[i] - off;
		off = 0;
	}
}

void nc_conn_detach(struct nc_conn *c, struct nc_call *call)
{
	if (call->state == NC_SENDING && c->sendq.next == &call->link && !c->rem &&
	    c->send_off > 0) {
		size_t left = nc_call_reclen(call) - c->send_off;

		c->rem = malloc(left);
		if (c->rem) {
			copy_record(call, c->send_off, c->rem);
			c->ctx->remnants++;
			c->rem_len = left;
			c->rem_off = 0;
		} else {
			c->broken = true; /* the stream is cut: reconnect */
		}
		c->send_off = 0;
	}
	nc_list_del(&call->link);
	nc_slots_put(&c->slots, (uint32_t)call->slot);
	call->slot = -1;
	call->conn = NULL;
}

void nc_conn_assign(struct nc_conn *c, struct nc_call *call)
{
	call->slot = nc_slots_get(&c->slots);
	call->conn = c;
	call->state = NC_SENDING;
	nc_list_add_tail(&c->sendq, &call->link);
}

void nc_conn_retransmit(struct nc_conn *c, struct nc_call *call)
{
	nc_list_del(&call->link);
	nc_list_add_tail(&c->sendq, &call->link);
	call->state = NC_SENDING;
}

void nc_conn_fail(struct nc_conn *c, int err, bool proto)
{
	struct nc_chan *ch = c->ch;
	struct nc_list *lists[2] = { &c->sendq, &c->inflight };
	int i;

	close_socket(c);
	/*
	 * Back to the front of the queue with the same xid, oldest first:
	 * pushing at the front in reverse leaves in-flight calls, then those
	 * not yet (fully) sent, in their original order.
	 */
	for (i = 0; i < 2; i++) {
		while (!nc_list_empty(lists[i])) {
			struct nc_call *call = nc_container_of(lists[i]->prev, struct nc_call, link);

			nc_list_del(&call->link);
			nc_slots_put(&c->slots, (uint32_t)call->slot);
			call->slot = -1;
			call->conn = NULL;
			call->state = NC_QUEUED;
			if (proto)
				call->last_err = err;
			if (nc_xq_push_front(&ch->queue, &call->qi, call->owner) < 0)
				nc_call_complete(c->ctx, call, -ENOMEM, NULL, 0);
		}
	}
	c->backoff_n++;
	schedule_reconnect(c);
	c->ctx->dirty = true;
	/* the NFSv4.1 back channel may have been this connection */
	if (ch->id == NC_CH_NFS && c->ctx->v4)
		nc4_cb_rebind(c->ctx);
}

/* Move the send position forward by @n bytes written at time @now. */
static void sent(struct nc_conn *c, size_t n, uint64_t now)
{
	if (c->rem) {
		size_t take = c->rem_len - c->rem_off;

		if (take > n)
			take = n;
		c->rem_off += take;
		n -= take;
		if (c->rem_off < c->rem_len)
			return;
		free(c->rem);
		c->rem = NULL;
	}
	while (n > 0 && !nc_list_empty(&c->sendq)) {
		struct nc_call *call = nc_container_of(c->sendq.next, struct nc_call, link);
		size_t total = nc_call_reclen(call), left = total - c->send_off;

		if (!call->tx_started) {
			call->tx_started = true;
			nc_stats_time(&call->st->queue_ns, call->st->hist_queue,
				      now - call->t_submit);
		}
		if (n < left) {
			c->send_off += n;
			return;
		}
		n -= left;
		c->send_off = 0;
		nc_list_del(&call->link);
		nc_list_add_tail(&c->inflight, &call->link);
		call->state = NC_SENT;
		call->t_tx = now;
		call->st->trans++;
		call->st->bytes_sent += total;
		c->ncalls++;
	}
}

/* iovecs of @call from byte @skip on; returns the bytes added. */
static size_t add_iov(struct iovec *iov, int *n, const struct nc_call *call, size_t skip)
{
	const uint8_t *seg[3] = { call->buf, call->payload, zeros };
	size_t len[3] = { call->len, call->payload_len,
			  xdr_pad(call->payload_len) - call->payload_len };
	size_t added = 0;
	int i;

	for (i = 0; i < 3; i++) {
		if (skip >= len[i]) {
			skip -= len[i];
			continue;
		}
		iov[*n].iov_base = (void *)(seg[i] + skip);
		iov[*n].iov_len = len[i] - skip;
		added += len[i] - skip;
		(*n)++;
		skip = 0;
	}
	return added;
}

void nc_conn_flush(struct nc_conn *c)
{
	struct iovec iov[NC_SEND_IOV];

	while (c->state == NC_UP && !c->broken &&
	       (c->rem || !nc_list_empty(&c->sendq) || !nc_list_empty(&c->oob))) {
		struct msghdr msg = { .msg_iov = iov };
		size_t total = 0, skip;
		struct nc_list *l;
		int n = 0;
		ssize_t w;

		take_oob(c);
		skip = c->send_off;
		if (c->rem) {
			iov[n].iov_base = c->rem + c->rem_off;
			iov[n].iov_len = c->rem_len - c->rem_off;
			total += iov[n++].iov_len;
		}
		for (l = c->sendq.next; l != &c->sendq; l = l->next) {
			if (n > (int)NC_SEND_IOV - 3 || total >= NC_SEND_BYTES)
				break;
			total += add_iov(iov, &n, nc_container_of(l, struct nc_call, link), skip);
			/* a partly written head alone, when a reply waits behind it */
			if (skip && !nc_list_empty(&c->oob))
				break;
			skip = 0;
		}
		msg.msg_iovlen = (size_t)n;
		w = sendmsg(c->fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				nc_epoll_mod(c->ctx, c, EPOLLIN | EPOLLOUT);
				return;
			}
			nc_set_error(c->ctx, "send to %s port %u: %s", c->ctx->host, c->ch->port,
				     strerror(errno));
			nc_conn_fail(c, -errno, false);
			return;
		}
		sent(c, (size_t)w, nc_now());
		if ((size_t)w < total) {
			nc_epoll_mod(c->ctx, c, EPOLLIN | EPOLLOUT);
			return;
		}
	}
	if (c->broken && c->state == NC_UP) {
		nc_conn_fail(c, -ENOMEM, false);
		return;
	}
	if (c->state == NC_UP)
		nc_epoll_mod(c->ctx, c, EPOLLIN);
}

/* Room for at least RX_MIN_ROOM more bytes: compact, then grow. */
static bool rx_reserve(struct nc_conn *c)
{
	size_t dead = rpc_record_dead(&c->rec);
	size_t limit = (size_t)c->ctx->o.max_reply + NC_RBUF_SLACK, cap;
	uint8_t *p;

	if (dead && (dead == c->rlen || c->rcap - c->rlen < RX_MIN_ROOM)) {
		memmove(c->rbuf, c->rbuf + dead, c->rlen - dead);
		c->rlen -= dead;
		rpc_record_shift(&c->rec, dead);
	}
	if (c->rcap - c->rlen >= RX_MIN_ROOM)
		return true;
	cap = c->rcap ? c->rcap * 2 : NC_RBUF_MIN;
	if (cap > limit)
		cap = limit;
	if (cap <= c->rcap)
		return false;
	p = realloc(c->rbuf, cap);
	if (!p)
		return false;
	c->rbuf = p;
	c->rcap = cap;
	if (cap > c->ctx->rbuf_peak)
		c->ctx->rbuf_peak = cap;
	return true;
}

/* Complete records in the buffer. Return values: 0, or -1 if the connection failed. */
static int rx_records(struct nc_conn *c, uint64_t now)
{
	for (;;) {
		size_t off, len;
		int r = rpc_record_parse(&c->rec, c->rbuf, c->rlen, &off, &len);

		if (r == RPC_RECORD_MORE)
			return 0;
		if (r == RPC_RECORD_TOOBIG) {
			nc_set_error(c->ctx, "%s port %u: reply record over %u bytes",
				     c->ctx->host, c->ch->port, c->ctx->o.max_reply);
			nc_conn_fail(c, -EPROTO, true);
			return -1;
		}
		nc_handle_record(c, c->rbuf + off, len, now);
		rpc_record_consumed(&c->rec);
	}
}

/*
 * Wake for a large reply only when much of it has arrived: SO_RCVLOWAT
 * is set to what the record still lacks (up to NC_LOWAT_MAX). Waking once
 * per 64 KiB segment of a 1 MiB READ reply cost the sender (over
 * loopback, the server) a fifth of its CPU in wakeups.
 */
static void rx_lowat(struct nc_conn *c)
{
	uint32_t need = rpc_record_need(&c->rec);
	int want = need > NC_LOWAT_MAX ? (int)NC_LOWAT_MAX : need < NC_LOWAT_MIN ? 0 : (int)need;

	if (want == c->rcvlowat)
		return;
	if (setsockopt(c->fd, SOL_SOCKET, SO_RCVLOWAT, &(int){ want ? want : 1 },
		       sizeof(int)) == 0)
		c->rcvlowat = want;
}

static void conn_read(struct nc_conn *c)
{
	size_t budget = NC_READ_BUDGET;

	while (c->state == NC_UP) {
		size_t room;
		ssize_t n;

		if (!rx_reserve(c)) {
			nc_set_error(c->ctx, "receive buffer: out of memory");
			nc_conn_fail(c, -ENOMEM, false);
			return;
		}
		room = c->rcap - c->rlen;
		n = recv(c->fd, c->rbuf + c->rlen, room, MSG_DONTWAIT);
		if (n == 0) {
			nc_set_error(c->ctx, "%s port %u: connection closed by the server",
				     c->ctx->host, c->ch->port);
			nc_conn_fail(c, -ECONNRESET, false);
			return;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK) {
				nc_set_error(c->ctx, "receive from %s port %u: %s", c->ctx->host,
					     c->ch->port, strerror(errno));
				nc_conn_fail(c, -errno, false);
			}
			break;
		}
		c->rlen += (size_t)n;
		if (rx_records(c, nc_now()) < 0)
			return;
		if ((size_t)n < room || (size_t)n >= budget)
			break;
		budget -= (size_t)n;
	}
	/* On every way out: a mark left from an earlier record could exceed
	 * what is still to come, and nothing would wake us for it. */
	if (c->state == NC_UP)
		rx_lowat(c);
	if (c->broken && c->state == NC_UP)
		nc_conn_fail(c, -ENOMEM, false);
}

void nc_conn_feed(struct nc_conn *c, const uint8_t *data, size_t len, uint64_t now)
{
	while (len && c->state == NC_UP) {
		size_t room, n;

		if (!rx_reserve(c)) {
			nc_conn_fail(c, -ENOMEM, false);
			return;
		}
		room = c->rcap - c->rlen;
		n = len < room ? len : room;
		memcpy(c->rbuf + c->rlen, data, n);
		c->rlen += n;
		data += n;
		len -= n;
		if (rx_records(c, now) < 0)
			return;
	}
}

void nc_conn_event(struct nc_conn *c, uint32_t events)
{
	if (c->state == NC_CONNECTING) {
		int err = 0;
		socklen_t sl = sizeof(err);

		if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
			return;
		if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &sl) < 0)
			err = errno;
		if (err)
			connect_failed(c, -err);
		else
			conn_up(c);
		return;
	}
	if (c->state != NC_UP)
		return;
	if (events & (EPOLLIN | EPOLLERR | EPOLLHUP))
		conn_read(c);
	if (c->state == NC_UP && (events & EPOLLOUT))
		nc_conn_flush(c);
}

void nc_conn_timer(struct nc_conn *c, uint64_t now)
{
	if (c->state == NC_CONNECTING) {
		connect_failed(c, -ETIMEDOUT);
	} else if (c->state == NC_BACKOFF) {
		c->state = NC_IDLE; /* the pump reconnects if calls wait */
		c->deadline = 0;
		c->ctx->dirty = true;
	} else {
		c->deadline = 0;
	}
}
