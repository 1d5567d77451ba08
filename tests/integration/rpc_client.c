// SPDX-License-Identifier: MIT
/*
 * Raw ONC RPC test client: byte buffers with XDR encoders, call header
 * construction with arbitrary (even invalid) credentials and verifiers,
 * record-marked sends in any fragmentation, timed record reads and a
 * strict reply parser. Everything is deliberately independent of the
 * server sources so that the tests check the wire, not shared code.
 */
#include "rpc_client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* ---- buffers ----------------------------------------------------------- */

void rpc_buf_init(struct rpc_buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

void rpc_buf_free(struct rpc_buf *b)
{
	free(b->data);
	rpc_buf_init(b);
}

void rpc_buf_reset(struct rpc_buf *b)
{
	b->len = 0;
}

static void buf_reserve(struct rpc_buf *b, size_t extra)
{
	size_t need = b->len + extra;
	size_t cap = b->cap ? b->cap : 256;
	uint8_t *p;

	if (need <= b->cap)
		return;
	while (cap < need)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p) {
		perror("realloc");
		abort();
	}
	b->data = p;
	b->cap = cap;
}

void rpc_buf_put_bytes(struct rpc_buf *b, const void *p, size_t n)
{
	if (!n)
		return;
	buf_reserve(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void rpc_buf_put_u32(struct rpc_buf *b, uint32_t v)
{
	uint8_t w[4] = { v >> 24, v >> 16, v >> 8, v };

	rpc_buf_put_bytes(b, w, 4);
}

void rpc_buf_put_opaque(struct rpc_buf *b, const void *p, size_t n)
{
	static const uint8_t zero[4];

	rpc_buf_put_u32(b, (uint32_t)n);
	rpc_buf_put_bytes(b, p, n);
	rpc_buf_put_bytes(b, zero, (4 - (n & 3)) & 3);
}

void rpc_buf_put_string(struct rpc_buf *b, const char *s)
{
	rpc_buf_put_opaque(b, s, strlen(s));
}

uint32_t rpc_get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* ---- call construction -------------------------------------------------- */

uint32_t rpc_next_xid(void)
{
	/* Start away from 0 and small values so a zeroed reply is obvious;
	 * atomic: tests call from several threads. */
	static _Atomic uint32_t xid = 0x5a000000;

	return atomic_fetch_add(&xid, 1) + 1;
}

void rpc_call_init(struct rpc_call *c, uint32_t xid, uint32_t prog,
		   uint32_t vers, uint32_t proc)
{
	memset(c, 0, sizeof(*c));
	c->xid = xid;
	c->msg_type = RPC_CALL;
	c->rpcvers = 2;
	c->prog = prog;
	c->vers = vers;
	c->proc = proc;
	c->cred_flavor = AUTH_NONE;
	c->verf_flavor = AUTH_NONE;
}

/* Opaque auth with an optional lie in the length word. */
static void put_auth(struct rpc_buf *out, uint32_t flavor, const void *body,
		     size_t len, bool override, uint32_t len_word)
{
	static const uint8_t zero[4];

	rpc_buf_put_u32(out, flavor);
	rpc_buf_put_u32(out, override ? len_word : (uint32_t)len);
	rpc_buf_put_bytes(out, body, len);
	rpc_buf_put_bytes(out, zero, (4 - (len & 3)) & 3);
}

void rpc_call_encode(struct rpc_buf *out, const struct rpc_call *c)
{
	rpc_buf_put_u32(out, c->xid);
	rpc_buf_put_u32(out, c->msg_type);
	rpc_buf_put_u32(out, c->rpcvers);
	rpc_buf_put_u32(out, c->prog);
	rpc_buf_put_u32(out, c->vers);
	rpc_buf_put_u32(out, c->proc);
	put_auth(out, c->cred_flavor, c->cred_body, c->cred_len,
		 c->cred_len_override, c->cred_len_word);
	put_auth(out, c->verf_flavor, c->verf_body, c->verf_len,
		 c->verf_len_override, c->verf_len_word);
	rpc_buf_put_bytes(out, c->args, c->args_len);
}

void rpc_authsys_encode(struct rpc_buf *out, uint32_t stamp,
			const char *machinename, uint32_t uid, uint32_t gid,
			const uint32_t *gids, uint32_t ngids)
{
	rpc_buf_put_u32(out, stamp);
	rpc_buf_put_string(out, machinename);
	rpc_buf_put_u32(out, uid);
	rpc_buf_put_u32(out, gid);
	rpc_buf_put_u32(out, ngids);
	for (uint32_t i = 0; i < ngids; i++)
		rpc_buf_put_u32(out, gids[i]);
}

/* ---- time --------------------------------------------------------------- */

long long rpc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int ms_left(long long deadline)
{
	long long left = deadline - rpc_now_ms();

	if (left < 0)
		return 0;
	return left > 1000000 ? 1000000 : (int)left;
}

/* ---- sockets ------------------------------------------------------------ */

void rpc_set_nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

void rpc_set_nonblock(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return;
	fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

int rpc_connect_once(uint16_t port, int timeout_ms)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct pollfd pfd;
	int fd, err = 0;
	socklen_t elen = sizeof(err);

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (errno != EINPROGRESS)
			goto fail;
		pfd.fd = fd;
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, timeout_ms) != 1)
			goto fail;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0 ||
		    err) {
			errno = err;
			goto fail;
		}
	}
	rpc_set_nonblock(fd, false);
	return fd;
fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

int rpc_listen_lo(uint16_t *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 || listen(fd, 8) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sin, &sl) < 0) {
		printf("Bail out! cannot listen on 127.0.0.1\n");
		exit(1);
	}
	*port = ntohs(sin.sin_port);
	return fd;
}

void rpc_uaddr_lo(char *buf, size_t len, uint16_t port)
{
	snprintf(buf, len, "127.0.0.1.%u.%u", port >> 8, port & 255);
}

int rpc_accept_ms(int lfd, int ms)
{
	struct pollfd pf = { .fd = lfd, .events = POLLIN };

	return poll(&pf, 1, ms) == 1 ? accept4(lfd, NULL, NULL, SOCK_CLOEXEC) : -1;
}

int rpc_connect(uint16_t port, int timeout_ms)
{
	long long deadline = rpc_now_ms() + timeout_ms;
	int fd;

	for (;;) {
		fd = rpc_connect_once(port, ms_left(deadline) + 1);
		if (fd >= 0 || rpc_now_ms() >= deadline)
			return fd;
		usleep(20000);
	}
}

int rpc_send_raw(int fd, const void *p, size_t n, int timeout_ms)
{
	const uint8_t *q = p;
	long long deadline = rpc_now_ms() + timeout_ms;
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	ssize_t w;

	while (n) {
		w = send(fd, q, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w > 0) {
			q += w;
			n -= (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return -1;
		if (poll(&pfd, 1, ms_left(deadline)) <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
	}
	return 0;
}

void rpc_buf_put_record(struct rpc_buf *b, const void *p, size_t n)
{
	rpc_buf_put_u32(b, RM_LAST | (uint32_t)n);
	rpc_buf_put_bytes(b, p, n);
}

int rpc_send_fragment(int fd, const void *p, size_t n, bool last)
{
	struct rpc_buf b;
	int rc;

	rpc_buf_init(&b);
	rpc_buf_put_u32(&b, (last ? RM_LAST : 0) | (uint32_t)n);
	rpc_buf_put_bytes(&b, p, n);
	rc = rpc_send_raw(fd, b.data, b.len, 10000);
	rpc_buf_free(&b);
	return rc;
}

int rpc_send_record(int fd, const void *p, size_t n)
{
	return rpc_send_fragment(fd, p, n, true);
}

/* Read exactly n bytes by the deadline: 1 ok, 0 timeout, -1 closed/error. */
static int read_exact(int fd, void *p, size_t n, long long deadline)
{
	uint8_t *q = p;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t r;
	int pr;

	while (n) {
		pr = poll(&pfd, 1, ms_left(deadline));
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			return 0;
		r = recv(fd, q, n, MSG_DONTWAIT);
		if (r == 0)
			return -1;
		if (r < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -1;
		}
		q += r;
		n -= (size_t)r;
	}
	return 1;
}

int rpc_recv_record(int fd, struct rpc_buf *out, int timeout_ms,
		    size_t max_len)
{
	long long deadline = rpc_now_ms() + timeout_ms;
	uint8_t m[4];
	uint32_t marker, flen;
	int rc;

	rpc_buf_reset(out);
	for (;;) {
		rc = read_exact(fd, m, 4, deadline);
		if (rc <= 0)
			return rc;
		marker = rpc_get_u32(m);
		flen = marker & ~RM_LAST;
		if (flen > max_len || out->len + flen > max_len)
			return -2;
		buf_reserve(out, flen);
		rc = read_exact(fd, out->data + out->len, flen, deadline);
		if (rc <= 0)
			return rc;
		out->len += flen;
		if (marker & RM_LAST)
			return 1;
	}
}

bool rpc_peer_closed(int fd, int timeout_ms)
{
	long long deadline = rpc_now_ms() + timeout_ms;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	static uint8_t sink[65536];
	ssize_t r;

	for (;;) {
		if (poll(&pfd, 1, ms_left(deadline)) <= 0) {
			if (rpc_now_ms() >= deadline)
				return false;
			continue;
		}
		r = recv(fd, sink, sizeof(sink), MSG_DONTWAIT);
		if (r == 0)
			return true;
		if (r < 0 && errno != EAGAIN && errno != EINTR)
			return true;	/* ECONNRESET and friends */
	}
}

bool rpc_nothing_arrives(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, timeout_ms) == 0;
}

/* ---- replies ------------------------------------------------------------ */

struct cursor {
	const uint8_t *p;
	size_t left;
};

static bool cur_u32(struct cursor *c, uint32_t *v)
{
	if (c->left < 4)
		return false;
	*v = rpc_get_u32(c->p);
	c->p += 4;
	c->left -= 4;
	return true;
}

bool rpc_parse_reply(const uint8_t *p, size_t n, struct rpc_reply *r)
{
	struct cursor c = { p, n };
	uint32_t pad;

	memset(r, 0, sizeof(*r));
	r->total_len = n;
	r->accept_stat = r->reject_stat = r->auth_stat = 0xffffffffu;
	if (!cur_u32(&c, &r->xid) || !cur_u32(&c, &r->msg_type) ||
	    r->msg_type != RPC_REPLY || !cur_u32(&c, &r->reply_stat))
		return false;
	if (r->reply_stat == RPC_MSG_DENIED) {
		if (!cur_u32(&c, &r->reject_stat))
			return false;
		if (r->reject_stat == RPC_MISMATCH) {
			if (!cur_u32(&c, &r->mismatch_low) ||
			    !cur_u32(&c, &r->mismatch_high))
				return false;
		} else if (r->reject_stat == RPC_AUTH_ERROR) {
			if (!cur_u32(&c, &r->auth_stat))
				return false;
		} else {
			return false;
		}
		return c.left == 0;
	}
	if (r->reply_stat != RPC_MSG_ACCEPTED)
		return false;
	if (!cur_u32(&c, &r->verf_flavor) || !cur_u32(&c, &r->verf_len))
		return false;
	pad = (r->verf_len + 3) & ~3u;
	if (r->verf_len > 400 || c.left < pad)
		return false;
	c.p += pad;
	c.left -= pad;
	if (!cur_u32(&c, &r->accept_stat))
		return false;
	switch (r->accept_stat) {
	case RPC_SUCCESS:
		r->body = c.p;
		r->body_len = c.left;
		return true;
	case RPC_PROG_MISMATCH:
		if (!cur_u32(&c, &r->mismatch_low) ||
		    !cur_u32(&c, &r->mismatch_high))
			return false;
		return c.left == 0;
	case RPC_PROG_UNAVAIL:
	case RPC_PROC_UNAVAIL:
	case RPC_GARBAGE_ARGS:
	case RPC_SYSTEM_ERR:
		return c.left == 0;
	default:
		return false;
	}
}

const char *rpc_reply_str(const struct rpc_reply *r, char *buf, size_t len)
{
	if (r->reply_stat == RPC_MSG_DENIED)
		snprintf(buf, len,
			 "xid=%#x DENIED reject=%u auth=%u mismatch=%u..%u len=%zu",
			 r->xid, r->reject_stat, r->auth_stat,
			 r->mismatch_low, r->mismatch_high, r->total_len);
	else
		snprintf(buf, len,
			 "xid=%#x mtype=%u stat=%u verf=%u/%u accept=%u mismatch=%u..%u body=%zu len=%zu",
			 r->xid, r->msg_type, r->reply_stat, r->verf_flavor,
			 r->verf_len, r->accept_stat, r->mismatch_low,
			 r->mismatch_high, r->body_len, r->total_len);
	return buf;
}

int rpc_call_simple(int fd, const struct rpc_call *c, struct rpc_reply *r,
		    struct rpc_buf *store, int timeout_ms)
{
	struct rpc_buf msg;
	int rc;

	rpc_buf_init(&msg);
	rpc_call_encode(&msg, c);
	rc = rpc_send_record(fd, msg.data, msg.len);
	rpc_buf_free(&msg);
	if (rc < 0)
		return -1;
	rc = rpc_recv_record(fd, store, timeout_ms, 16u << 20);
	if (rc <= 0)
		return rc == 0 ? 0 : -1;
	return rpc_parse_reply(store->data, store->len, r) ? 1 : -3;
}

long rpc_proc_rss_kib(int pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

int rpc_connect_privileged(uint16_t port, int timeout_ms)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct sockaddr_in la = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct pollfd pfd;
	int fd, err = 0, lp;
	socklen_t elen = sizeof(err);

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	for (lp = 1023; lp >= 600; lp--) {
		la.sin_port = htons((uint16_t)lp);
		if (bind(fd, (struct sockaddr *)&la, sizeof(la)) == 0)
			break;
		if (errno != EADDRINUSE)
			goto fail;
	}
	if (lp < 600) {
		errno = EADDRINUSE;
		goto fail;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (errno != EINPROGRESS)
			goto fail;
		pfd.fd = fd;
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, timeout_ms) != 1)
			goto fail;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0 ||
		    err) {
			errno = err;
			goto fail;
		}
	}
	rpc_set_nonblock(fd, false);
	return fd;
fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

uint16_t rpc_local_port(int fd)
{
	struct sockaddr_in la;
	socklen_t len = sizeof(la);

	if (getsockname(fd, (struct sockaddr *)&la, &len) < 0 ||
	    la.sin_family != AF_INET)
		return 0;
	return ntohs(la.sin_port);
}

uint32_t rpc_cur_u32(struct rpc_cur *c)
{
	uint32_t v;

	if (c->bad || c->n < 4) {
		c->bad = true;
		return 0;
	}
	v = rpc_get_u32(c->p);
	c->p += 4;
	c->n -= 4;
	return v;
}

uint64_t rpc_cur_u64(struct rpc_cur *c)
{
	uint64_t hi = rpc_cur_u32(c);

	return hi << 32 | rpc_cur_u32(c);
}

void rpc_cur_skip(struct rpc_cur *c, size_t n)
{
	if (c->bad || c->n < n) {
		c->bad = true;
		return;
	}
	c->p += n;
	c->n -= n;
}

const uint8_t *rpc_cur_opaque(struct rpc_cur *c, uint32_t *len, uint32_t max)
{
	uint32_t l = rpc_cur_u32(c), padded = (l + 3) & ~3u;
	const uint8_t *p;

	if (c->bad || l > max || c->n < padded) {
		c->bad = true;
		*len = 0;
		return NULL;
	}
	p = c->p;
	c->p += padded;
	c->n -= padded;
	*len = l;
	return p;
}
