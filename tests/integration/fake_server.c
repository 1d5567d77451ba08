/* SPDX-License-Identifier: MIT */
/* The misbehaving test server: see fake_server.h. */
#include "fake_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "xdr/gen/nfs3.h"
#include "xdr/xdr.h"

#define RBUF (64u << 10)
#define MAX_HELD 4096

struct held {
	int conn;
	uint8_t *rec;
	size_t len;
};

struct fconn {
	int fd;
	unsigned idx;
	uint8_t buf[RBUF];
	size_t len;
	uint64_t skip;           /* bytes of an early-answered call still to discard */
	struct timespec pause;   /* not read until then (after an early reply) */
	bool closed;
};

struct fake_server {
	int lfd;
	uint16_t port;
	pthread_t thr;
	pthread_mutex_t mu;
	bool stop, release;
	unsigned flags, close_after;
	uint32_t getport;
	struct fconn *c[FAKE_MAX_CONNS];
	struct fake_stats st;
	struct held held[MAX_HELD];
	unsigned nheld;
	uint32_t seen[4096];      /* xids answered once already (DROP_FIRST) */
	unsigned nseen;
};

static void put32(uint8_t *p, uint32_t v)
{
	xdr__put32(p, v);
}

static void send_all(struct fconn *c, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len && !c->closed) {
		ssize_t n = send(c->fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pf = { .fd = c->fd, .events = POLLOUT };

			poll(&pf, 1, 100);
			continue;
		}
		if (n <= 0) {
			c->closed = true;
			return;
		}
		p += n;
		len -= (size_t)n;
	}
}

/* Reply record (marker included) for a call: returns its length. */
static size_t make_reply(struct fake_server *fs, uint8_t *out, size_t cap, uint32_t xid,
			 uint32_t prog, uint32_t vers, uint32_t proc)
{
	struct xdr_enc e;

	xdr_enc_init(&e, out + 4, cap - 4);
	xdr_enc_u32(&e, xid);
	xdr_enc_u32(&e, 1);   /* REPLY */
	xdr_enc_u32(&e, 0);   /* MSG_ACCEPTED */
	xdr_enc_u32(&e, 0);   /* verifier AUTH_NONE */
	xdr_enc_u32(&e, 0);
	if (fs->flags & FAKE_GARBAGE_REPLY) {
		xdr_enc_u32(&e, 0);          /* SUCCESS */
		xdr_enc_u32(&e, 0);          /* NFS3_OK ... */
		xdr_enc_u32(&e, 0x7fffffff); /* ... and a bogus ftype, then nothing */
	} else if (prog == 100003 && vers == 3 && proc == 0) {
		xdr_enc_u32(&e, 0);
	} else if (prog == 100003 && vers == 3 && proc == 1) {
		struct GETATTR3res r = { .status = NFS3_OK };

		r.u.resok.obj_attributes.type = NF3REG;
		r.u.resok.obj_attributes.mode = 0644;
		r.u.resok.obj_attributes.fileid = xid;
		xdr_enc_u32(&e, 0);
		xdr_enc_GETATTR3res(&e, &r);
	} else if (prog == 100000 && vers == 2 && proc == 3) {
		xdr_enc_u32(&e, 0);
		xdr_enc_u32(&e, fs->getport);
	} else if (prog == 100003 && vers == 3 && proc == 7) {
		struct WRITE3res r = { .status = NFS3_OK };

		r.u.resok.count = 1;
		r.u.resok.committed = FILE_SYNC;
		xdr_enc_u32(&e, 0);
		xdr_enc_WRITE3res(&e, &r);
	} else {
		xdr_enc_u32(&e, 3);  /* PROC_UNAVAIL */
	}
	put32(out, 0x80000000u | (uint32_t)xdr_enc_len(&e));
	return 4 + xdr_enc_len(&e);
}

static bool seen_before(struct fake_server *fs, uint32_t xid)
{
	unsigned i;

	for (i = 0; i < fs->nseen; i++)
		if (fs->seen[i] == xid)
			return true;
	if (fs->nseen < 4096)
		fs->seen[fs->nseen++] = xid;
	return false;
}

static void close_conn(struct fake_server *fs, struct fconn *c)
{
	(void)fs;
	if (!c->closed)
		shutdown(c->fd, SHUT_RDWR);
	c->closed = true;
}

/* One call (header at least 24 bytes in @rec). */
static void on_call(struct fake_server *fs, struct fconn *c, const uint8_t *rec, size_t len)
{
	uint32_t xid, prog, vers, proc;
	uint8_t out[1024];
	size_t n;

	if (len < 24)
		return;
	xid = xdr__get32(rec);
	prog = xdr__get32(rec + 12);
	vers = xdr__get32(rec + 16);
	proc = xdr__get32(rec + 20);
	if (c->idx < FAKE_MAX_CONNS)
		fs->st.calls[c->idx]++;
	if (fs->st.nlog < FAKE_LOG)
		fs->st.log[fs->st.nlog++] = (struct fake_call){ c->idx, xid, prog, proc };

	if ((fs->flags & FAKE_CLOSE_MID) && c->idx == 0) {
		if (fs->st.calls[0] < fs->close_after)
			return; /* unanswered, will be replayed */
		n = make_reply(fs, out, sizeof(out), xid, prog, vers, proc);
		send_all(c, out, n / 2);
		close_conn(fs, c);
		return;
	}
	if (fs->flags & FAKE_GARBAGE_STREAM) {
		static uint8_t junk[64 << 10];

		memset(junk, 'A', sizeof(junk));
		send_all(c, junk, sizeof(junk));
		return;
	}
	if (fs->flags & FAKE_HUGE_MARKER) {
		static uint8_t junk[64 << 10];

		memset(junk, 0, sizeof(junk));
		put32(junk, 0xffffffffu);
		send_all(c, junk, sizeof(junk));
		return;
	}
	if ((fs->flags & FAKE_DROP_FIRST) && !seen_before(fs, xid))
		return;
	if (fs->flags & FAKE_UNKNOWN_XID) {
		n = make_reply(fs, out, sizeof(out), xid ^ 0x5a5a5a5au, prog, vers, proc);
		send_all(c, out, n);
	}
	n = make_reply(fs, out, sizeof(out), xid, prog, vers, proc);
	if ((fs->flags & FAKE_HOLD) && fs->nheld < MAX_HELD) {
		struct held *h = &fs->held[fs->nheld];

		h->rec = malloc(n);
		if (h->rec) {
			memcpy(h->rec, out, n);
			h->len = n;
			h->conn = (int)c->idx;
			fs->nheld++;
			fs->st.held = fs->nheld;
			return;
		}
	}
	if (fs->flags & FAKE_CROSS_REPLY) {
		unsigned i;

		for (i = 1; i < FAKE_MAX_CONNS; i++) {
			struct fconn *o = fs->c[(c->idx + i) % FAKE_MAX_CONNS];

			if (o && !o->closed) {
				c = o;
				break;
			}
		}
	}
	send_all(c, out, n);
}

/* Records in the connection's buffer; big early-answered ones are skipped. */
static void on_data(struct fake_server *fs, struct fconn *c)
{
	size_t off = 0;

	while (!c->closed) {
		uint32_t mark, flen;

		if (c->skip) {
			size_t k = c->len - off < c->skip ? c->len - off : (size_t)c->skip;

			off += k;
			c->skip -= k;
			if (c->skip)
				break;
			continue;
		}
		if (c->len - off < 4)
			break;
		mark = xdr__get32(c->buf + off);
		flen = mark & 0x7fffffffu;
		if (flen + 4 > RBUF) {
			/* Too big to buffer: answer from its start if allowed. */
			if (!(fs->flags & FAKE_EARLY_REPLY)) {
				close_conn(fs, c);
				break;
			}
			if (c->len - off < 4 + 4096)
				break;
			on_call(fs, c, c->buf + off + 4, 4096);
			off += 4;
			c->skip = flen;
			/* Let the reply arrive while the client still has the call to send. */
			clock_gettime(CLOCK_MONOTONIC, &c->pause);
			c->pause.tv_nsec += 300000000;
			if (c->pause.tv_nsec >= 1000000000) {
				c->pause.tv_sec++;
				c->pause.tv_nsec -= 1000000000;
			}
			continue;
		}
		if (c->len - off < 4 + flen)
			break;
		on_call(fs, c, c->buf + off + 4, flen);
		off += 4 + flen;
	}
	memmove(c->buf, c->buf + off, c->len - off);
	c->len -= off;
}

static void release_held(struct fake_server *fs)
{
	unsigned i;

	for (i = 0; i < fs->nheld; i++) {
		struct fconn *c = fs->held[i].conn < FAKE_MAX_CONNS ? fs->c[fs->held[i].conn] : NULL;

		if (c)
			send_all(c, fs->held[i].rec, fs->held[i].len);
		free(fs->held[i].rec);
	}
	fs->nheld = 0;
	fs->st.held = 0;
}

static bool paused(const struct fconn *c)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec < c->pause.tv_sec ||
	       (now.tv_sec == c->pause.tv_sec && now.tv_nsec < c->pause.tv_nsec);
}

static void *run(void *arg)
{
	struct fake_server *fs = arg;

	for (;;) {
		struct pollfd pf[FAKE_MAX_CONNS + 1];
		struct fconn *map[FAKE_MAX_CONNS + 1];
		int n = 0, i;

		pthread_mutex_lock(&fs->mu);
		if (fs->stop) {
			pthread_mutex_unlock(&fs->mu);
			break;
		}
		if (fs->release) {
			release_held(fs);
			fs->release = false;
		}
		pf[n].fd = fs->lfd;
		pf[n].events = POLLIN;
		map[n++] = NULL;
		for (i = 0; i < FAKE_MAX_CONNS; i++) {
			if (fs->c[i] && !fs->c[i]->closed && !paused(fs->c[i])) {
				pf[n].fd = fs->c[i]->fd;
				pf[n].events = POLLIN;
				map[n++] = fs->c[i];
			}
		}
		pthread_mutex_unlock(&fs->mu);
		if (poll(pf, (nfds_t)n, 10) <= 0)
			continue;
		pthread_mutex_lock(&fs->mu);
		if ((pf[0].revents & POLLIN) && fs->st.conns < FAKE_MAX_CONNS) {
			int fd = accept(fs->lfd, NULL, NULL);
			struct fconn *c = fd >= 0 ? calloc(1, sizeof(*c)) : NULL;

			if (c) {
				c->fd = fd;
				c->idx = fs->st.conns++;
				fs->c[c->idx] = c;
			} else if (fd >= 0) {
				close(fd);
			}
		}
		for (i = 1; i < n; i++) {
			struct fconn *c = map[i];
			ssize_t r;

			if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			r = recv(c->fd, c->buf + c->len, RBUF - c->len, MSG_DONTWAIT);
			if (r <= 0) {
				if (r == 0 || (errno != EAGAIN && errno != EINTR))
					close_conn(fs, c);
				continue;
			}
			c->len += (size_t)r;
			on_data(fs, c);
		}
		pthread_mutex_unlock(&fs->mu);
	}
	return NULL;
}

struct fake_server *fake_start(unsigned flags, uint16_t port)
{
	struct fake_server *fs = calloc(1, sizeof(*fs));
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	socklen_t sl = sizeof(sin);
	int one = 1;

	if (!fs)
		return NULL;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fs->flags = flags;
	fs->close_after = 1;
	fs->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(fs->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fs->lfd < 0 || bind(fs->lfd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    listen(fs->lfd, 64) < 0 || getsockname(fs->lfd, (struct sockaddr *)&sin, &sl) < 0) {
		if (fs->lfd >= 0)
			close(fs->lfd);
		free(fs);
		return NULL;
	}
	fs->port = ntohs(sin.sin_port);
	pthread_mutex_init(&fs->mu, NULL);
	if (pthread_create(&fs->thr, NULL, run, fs) != 0) {
		close(fs->lfd);
		free(fs);
		return NULL;
	}
	return fs;
}

uint16_t fake_port(const struct fake_server *fs)
{
	return fs->port;
}

void fake_set_flags(struct fake_server *fs, unsigned flags)
{
	pthread_mutex_lock(&fs->mu);
	fs->flags = flags;
	pthread_mutex_unlock(&fs->mu);
}

void fake_set_close_after(struct fake_server *fs, unsigned n)
{
	pthread_mutex_lock(&fs->mu);
	fs->close_after = n;
	pthread_mutex_unlock(&fs->mu);
}

void fake_set_getport(struct fake_server *fs, uint32_t port)
{
	pthread_mutex_lock(&fs->mu);
	fs->getport = port;
	pthread_mutex_unlock(&fs->mu);
}

void fake_release(struct fake_server *fs)
{
	pthread_mutex_lock(&fs->mu);
	fs->release = true;
	pthread_mutex_unlock(&fs->mu);
}

void fake_get_stats(struct fake_server *fs, struct fake_stats *st)
{
	pthread_mutex_lock(&fs->mu);
	*st = fs->st;
	pthread_mutex_unlock(&fs->mu);
}

void fake_stop(struct fake_server *fs)
{
	unsigned i;

	pthread_mutex_lock(&fs->mu);
	fs->stop = true;
	pthread_mutex_unlock(&fs->mu);
	pthread_join(fs->thr, NULL);
	for (i = 0; i < fs->nheld; i++)
		free(fs->held[i].rec);
	for (i = 0; i < FAKE_MAX_CONNS; i++) {
		if (fs->c[i]) {
			close(fs->c[i]->fd);
			free(fs->c[i]);
		}
	}
	close(fs->lfd);
	pthread_mutex_destroy(&fs->mu);
	free(fs);
}
