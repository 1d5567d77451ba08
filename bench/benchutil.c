/*
 * benchutil.c - helpers shared by the nfsx benchmarks (see benchutil.h).
 */
#include "benchutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/*
 * Largest reply record we accept before declaring the stream broken; must
 * stay below the pipe's read buffer size so a whole record always fits.
 */
#define BU_MAX_RECORD (64u * 1024u)

/* RPC constants (RFC 5531). */
#define RPC_CALL 0u
#define RPC_REPLY 1u
#define RPC_VERS 2u
#define RPC_MSG_ACCEPTED 0u
#define RPC_SUCCESS 0u
#define RPC_AUTH_NONE 0u
#define RPC_LAST_FRAG 0x80000000u

/* ---- time -------------------------------------------------------------- */

uint64_t bu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- histogram ----------------------------------------------------------- */

static unsigned hist_index(uint64_t v)
{
	unsigned msb, shift;

	if (v < 2u * BU_HIST_SUB)
		return (unsigned)v;
	msb = 63u - (unsigned)__builtin_clzll(v);
	shift = msb - BU_HIST_SUB_BITS;
	return 2u * BU_HIST_SUB + (shift - 1u) * BU_HIST_SUB +
	       (unsigned)((v >> shift) - BU_HIST_SUB);
}

/* Representative value (middle of the bucket). */
static double hist_value(unsigned idx)
{
	unsigned k, shift, sub;
	double low, width;

	if (idx < 2u * BU_HIST_SUB)
		return (double)idx;
	k = idx - 2u * BU_HIST_SUB;
	shift = k / BU_HIST_SUB + 1u;
	sub = k % BU_HIST_SUB;
	low = ldexp((double)(BU_HIST_SUB + sub), (int)shift);
	width = ldexp(1.0, (int)shift);
	return low + (width - 1.0) / 2.0;
}

void bu_hist_add(struct bu_hist *h, uint64_t ns)
{
	h->bucket[hist_index(ns)]++;
	h->count++;
}

void bu_hist_merge(struct bu_hist *dst, const struct bu_hist *src)
{
	for (unsigned i = 0; i < BU_HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
	dst->count += src->count;
}

double bu_hist_quantile_us(const struct bu_hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (h->count == 0)
		return 0.0;
	rank = (uint64_t)ceil(q * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < BU_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank)
			return hist_value(i) / 1000.0;
	}
	return hist_value(BU_HIST_BUCKETS - 1) / 1000.0;
}

/* ---- sockets ------------------------------------------------------------- */

int bu_set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -1;
	return 0;
}

int bu_connect(const char *host, int port, double timeout_s)
{
	struct sockaddr_in sa;
	uint64_t deadline = bu_now_ns() + (uint64_t)(timeout_s * 1e9);
	int one = 1;
	int last_err = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
		fprintf(stderr, "bad host address '%s' (numeric IPv4 expected)\n", host);
		return -1;
	}
	for (;;) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0) {
			perror("socket");
			return -1;
		}
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			return fd;
		}
		last_err = errno;
		close(fd);
		if (last_err != ECONNREFUSED && last_err != EINTR && last_err != EAGAIN &&
		    last_err != ETIMEDOUT)
			break;
		if (bu_now_ns() >= deadline)
			break;
		usleep(20000);
	}
	fprintf(stderr, "connect %s:%d: %s\n", host, port, strerror(last_err));
	return -1;
}

int bu_write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len > 0) {
		ssize_t r = send(fd, p, len, MSG_NOSIGNAL);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

/* ---- RPC encoding ---------------------------------------------------------- */

static inline void put32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static inline uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

void bu_encode_null_call(uint8_t *p, uint32_t xid, uint32_t prog, uint32_t vers)
{
	put32(p + 0, RPC_LAST_FRAG | (BU_CALL_LEN - 4u));
	put32(p + 4, xid);
	put32(p + 8, RPC_CALL);
	put32(p + 12, RPC_VERS);
	put32(p + 16, prog);
	put32(p + 20, vers);
	put32(p + 24, 0);             /* procedure 0: NULL */
	put32(p + 28, RPC_AUTH_NONE); /* cred flavor */
	put32(p + 32, 0);             /* cred length */
	put32(p + 36, RPC_AUTH_NONE); /* verf flavor */
	put32(p + 40, 0);             /* verf length */
}

long bu_parse_reply(const uint8_t *p, size_t n, uint32_t *xid, enum bu_reply_status *st)
{
	uint32_t mark, len, verf_len, off;

	if (n < 4)
		return 0;
	mark = get32(p);
	len = mark & ~RPC_LAST_FRAG;
	if (!(mark & RPC_LAST_FRAG) || len > BU_MAX_RECORD)
		return -1;
	if (n < 4u + (size_t)len)
		return 0;
	p += 4;
	*xid = len >= 4 ? get32(p) : 0;
	*st = BU_REPLY_MALFORMED;
	if (len < 8)
		goto out;
	if (get32(p + 4) != RPC_REPLY) {
		*st = BU_REPLY_NOT_REPLY;
		goto out;
	}
	if (len < 12)
		goto out;
	if (get32(p + 8) != RPC_MSG_ACCEPTED) {
		*st = BU_REPLY_DENIED;
		goto out;
	}
	if (len < 20)
		goto out;
	verf_len = get32(p + 16);
	if (verf_len > 400)
		goto out;
	off = 20u + ((verf_len + 3u) & ~3u);
	if (len < off + 4u)
		goto out;
	*st = get32(p + off) == RPC_SUCCESS ? BU_REPLY_OK : BU_REPLY_NOT_SUCCESS;
out:
	return 4L + (long)len;
}

const char *bu_reply_status_name(enum bu_reply_status st)
{
	switch (st) {
	case BU_REPLY_OK: return "ok";
	case BU_REPLY_NOT_REPLY: return "not-a-reply";
	case BU_REPLY_DENIED: return "msg-denied";
	case BU_REPLY_NOT_SUCCESS: return "accept-stat-not-success";
	case BU_REPLY_MALFORMED: return "malformed";
	case BU_REPLY_NSTATUS: break;
	}
	return "?";
}

/* ---- stats ------------------------------------------------------------------ */

uint64_t bu_stats_errors(const struct bu_stats *s)
{
	uint64_t n = s->bad_xid;

	for (unsigned i = 1; i < BU_REPLY_NSTATUS; i++)
		n += s->err[i];
	return n;
}

void bu_stats_merge(struct bu_stats *dst, const struct bu_stats *src)
{
	dst->calls += src->calls;
	dst->replies += src->replies;
	dst->bad_xid += src->bad_xid;
	for (unsigned i = 0; i < BU_REPLY_NSTATUS; i++)
		dst->err[i] += src->err[i];
	if (dst->hist && src->hist)
		bu_hist_merge(dst->hist, src->hist);
}

void bu_stats_print_errors(const struct bu_stats *s, const char *prefix)
{
	if (s->bad_xid)
		fprintf(stdout, "%serrors: %llu replies with unknown xid\n", prefix,
			(unsigned long long)s->bad_xid);
	for (unsigned i = 1; i < BU_REPLY_NSTATUS; i++)
		if (s->err[i])
			fprintf(stdout, "%serrors: %llu replies %s\n", prefix,
				(unsigned long long)s->err[i],
				bu_reply_status_name((enum bu_reply_status)i));
}

/* ---- pipelined connection ------------------------------------------------------ */

int bu_pipe_init(struct bu_pipe *c, int fd, unsigned depth, uint32_t seed)
{
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->depth = depth;
	c->prog = BU_NFS_PROG;
	c->vers = BU_NFS_VERS;
	while ((1u << c->slot_bits) < depth)
		c->slot_bits++;
	c->gen = seed;
	c->slots = calloc(depth, sizeof(*c->slots));
	c->free_slots = calloc(depth, sizeof(*c->free_slots));
	c->rcap = 256u * 1024u;
	c->rbuf = malloc(c->rcap);
	c->wcap = (size_t)depth * BU_CALL_LEN;
	c->wbuf = malloc(c->wcap);
	if (!c->slots || !c->free_slots || !c->rbuf || !c->wbuf) {
		bu_pipe_destroy(c);
		return -1;
	}
	/* Hand out low slots first (pop from the end). */
	for (unsigned i = 0; i < depth; i++)
		c->free_slots[i] = depth - 1u - i;
	c->nfree = depth;
	if (bu_set_nonblock(fd) < 0) {
		bu_pipe_destroy(c);
		return -1;
	}
	return 0;
}

int bu_pipe_set_call(struct bu_pipe *c, const uint8_t *rec, size_t len)
{
	uint8_t *nb;

	if (len < 8)
		return -1;
	nb = realloc(c->wbuf, (size_t)c->depth * len);
	if (!nb)
		return -1;
	c->wbuf = nb;
	c->wcap = (size_t)c->depth * len;
	c->call = rec;
	c->call_len = len;
	return 0;
}

void bu_pipe_destroy(struct bu_pipe *c)
{
	free(c->slots);
	free(c->free_slots);
	free(c->rbuf);
	free(c->wbuf);
	c->slots = NULL;
	c->free_slots = NULL;
	c->rbuf = NULL;
	c->wbuf = NULL;
}

unsigned bu_pipe_fill(struct bu_pipe *c, uint64_t now)
{
	unsigned n = c->nfree;

	if (n == 0)
		return 0;
	/* Unsent bytes never exceed depth calls, so compacting always makes room. */
	if (c->woff > 0) {
		memmove(c->wbuf, c->wbuf + c->woff, c->wlen - c->woff);
		c->wlen -= c->woff;
		c->woff = 0;
	}
	while (c->nfree > 0) {
		uint32_t slot = c->free_slots[--c->nfree];
		uint32_t xid = (c->gen++ << c->slot_bits) | slot;
		struct bu_slot *s = &c->slots[slot];

		s->xid = xid;
		s->busy = true;
		s->t_send = now;
		if (c->call) {
			memcpy(c->wbuf + c->wlen, c->call, c->call_len);
			put32(c->wbuf + c->wlen + 4, xid);
			c->wlen += c->call_len;
		} else {
			bu_encode_null_call(c->wbuf + c->wlen, xid, c->prog, c->vers);
			c->wlen += BU_CALL_LEN;
		}
	}
	c->queued += n;
	return n;
}

int bu_pipe_flush(struct bu_pipe *c)
{
	while (c->woff < c->wlen) {
		ssize_t r = send(c->fd, c->wbuf + c->woff, c->wlen - c->woff, MSG_NOSIGNAL);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -1;
		}
		c->woff += (size_t)r;
		c->written_bytes += (uint64_t)r;
	}
	c->woff = c->wlen = 0;
	return 1;
}

unsigned bu_pipe_inflight(const struct bu_pipe *c)
{
	return (unsigned)(c->written_bytes / (c->call ? c->call_len : BU_CALL_LEN) -
			  c->answered);
}

long bu_pipe_read(struct bu_pipe *c, struct bu_stats *st, uint64_t win_start, uint64_t win_end)
{
	ssize_t r;
	size_t off = 0;
	long nrep = 0;
	uint64_t now;
	bool in_win;

	for (;;) {
		r = recv(c->fd, c->rbuf + c->rlen, c->rcap - c->rlen, 0);
		if (r > 0)
			break;
		if (r == 0) {
			errno = 0;
			return -1;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		return -1;
	}
	now = bu_now_ns();
	in_win = now >= win_start && now < win_end;
	c->rlen += (size_t)r;

	while (off < c->rlen) {
		uint32_t xid, slot;
		enum bu_reply_status rs;
		long used = bu_parse_reply(c->rbuf + off, c->rlen - off, &xid, &rs);
		struct bu_slot *s;

		if (used == 0)
			break;
		if (used < 0) {
			errno = EPROTO;
			return -1;
		}
		off += (size_t)used;
		nrep++;
		st->replies++;
		slot = c->slot_bits ? (xid & ((1u << c->slot_bits) - 1u)) : 0;
		if (slot >= c->depth || !c->slots[slot].busy || c->slots[slot].xid != xid) {
			st->bad_xid++;
			continue;
		}
		s = &c->slots[slot];
		s->busy = false;
		c->free_slots[c->nfree++] = slot;
		c->answered++;
		if (rs != BU_REPLY_OK) {
			st->err[rs]++;
			continue;
		}
		if (in_win) {
			st->calls++;
			if (st->hist)
				bu_hist_add(st->hist, now - s->t_send);
		}
	}
	if (off > 0) {
		memmove(c->rbuf, c->rbuf + off, c->rlen - off);
		c->rlen -= off;
	}
	return nrep;
}

/* ---- misc ---------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bu_median(double *v, size_t n)
{
	if (n == 0)
		return 0.0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

bool bu_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end != '\0' || !isfinite(v) || v < 0)
		return false;
	*out = v;
	return true;
}

bool bu_parse_int(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end != '\0' || v < min || v > max)
		return false;
	*out = v;
	return true;
}
