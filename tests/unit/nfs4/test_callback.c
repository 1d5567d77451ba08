// SPDX-License-Identifier: MIT
/*
 * NFSv4.0 callbacks (src/nfs4/callback.c, cb_msg.c, rpc/callout.c) against
 * fake callback services on 127.0.0.1 played by this test: the CB_NULL
 * probe of a confirmed client (program, version, credential), the path
 * it records (up, down when refused, silent, answering too much or
 * garbage), a silent client not holding up another's probe, CB_RECALL
 * with the client's callback_ident and its reply decoded, and the
 * universal address rules. The callout thread runs for real; the client
 * table is driven with the test's clock, the lease set to 30 s so that a
 * reply is waited for 3 s (long enough that a loaded machine does not time
 * out the calls that are answered).
 */
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

#include "nfs4/callback.h"
#include "tap.h"
#include "xdr/nfs4_compound.h"

#define CB_PROG 0x40000123u

static struct nfs4_clients *t;
static struct nfs4_cb *cb;

static uint64_t mono_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A listening socket on 127.0.0.1, its port in *port. */
static int listen_lo(uint16_t *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 || listen(fd, 8) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sin, &sl) < 0)
		abort();
	*port = ntohs(sin.sin_port);
	return fd;
}

static int accept_ms(int lfd, int ms)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };

	if (poll(&p, 1, ms) != 1)
		return -1;
	return accept(lfd, NULL, NULL);
}

/* One record (single or several fragments) into buf; its length, or -1. */
static ssize_t read_record(int fd, uint8_t *buf, size_t cap, int ms)
{
	size_t have = 0;
	bool last = false;

	while (!last) {
		uint8_t m[4];
		uint32_t len;
		size_t got = 0;

		while (got < 4) {
			struct pollfd p = { .fd = fd, .events = POLLIN };
			ssize_t n;

			if (poll(&p, 1, ms) != 1)
				return -1;
			n = read(fd, m + got, 4 - got);
			if (n <= 0)
				return -1;
			got += (size_t)n;
		}
		len = (uint32_t)m[0] << 24 | (uint32_t)m[1] << 16 | (uint32_t)m[2] << 8 | m[3];
		last = len & 0x80000000u;
		len &= 0x7fffffffu;
		if (have + len > cap)
			return -1;
		for (got = 0; got < len;) {
			struct pollfd p = { .fd = fd, .events = POLLIN };
			ssize_t n;

			if (poll(&p, 1, ms) != 1)
				return -1;
			n = read(fd, buf + have + got, len - got);
			if (n <= 0)
				return -1;
			got += (size_t)n;
		}
		have += len;
	}
	return (ssize_t)have;
}

static void send_record(int fd, const uint8_t *p, size_t len)
{
	uint8_t m[4];

	xdr__put32(m, 0x80000000u | (uint32_t)len);
	if (write(fd, m, 4) != 4 || write(fd, p, len) != (ssize_t)len)
		abort();
}

/* True when the peer closes @fd within @ms (bytes meanwhile are read). */
static bool closed_within(int fd, int ms)
{
	long long end = now_ms() + ms;
	uint8_t b[512];

	while (now_ms() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 50) == 1 && read(fd, b, sizeof(b)) <= 0)
			return true;
	}
	return false;
}

/* An accepted SUCCESS reply to @xid followed by @res of @len bytes. */
static size_t reply(uint8_t *out, uint32_t xid, const uint8_t *res, size_t len)
{
	xdr__put32(out, xid);
	xdr__put32(out + 4, 1);     /* REPLY */
	xdr__put32(out + 8, 0);     /* MSG_ACCEPTED */
	xdr__put32(out + 12, 0);    /* AUTH_NONE verifier */
	xdr__put32(out + 16, 0);
	xdr__put32(out + 20, 0);    /* SUCCESS */
	if (len)
		memcpy(out + 24, res, len);
	return 24 + len;
}

/* A confirmed client of flavour @flavor whose callback is 127.0.0.1:@port. */
static clientid4 client(const char *name, uint32_t flavor, const char *netid, uint16_t port,
			uint32_t ident)
{
	struct nfs4_principal who = { flavor, flavor == 1 ? 1000 : 0 };
	struct nfs4_callback c = { .program = CB_PROG, .ident = ident };
	verifier4 v = { { 1 } }, confirm;
	clientid4 id;

	snprintf(c.netid, sizeof(c.netid), "%s", netid);
	if (strcmp(netid, "tcp6") == 0)
		snprintf(c.addr, sizeof(c.addr), "::1.%u.%u", port >> 8, port & 255);
	else
		snprintf(c.addr, sizeof(c.addr), "127.0.0.1.%u.%u", port >> 8, port & 255);
	if (nfs4_clients_setclientid(t, (const uint8_t *)name, (uint32_t)strlen(name), &v, &who,
				     &c, mono_sec(), &id, &confirm) != NFS4_OK ||
	    nfs4_clients_confirm(t, id, &confirm, &who, mono_sec()) != NFS4_OK)
		abort();
	return id;
}

/* The path of @id once it is no longer unknown (or after @ms). */
static enum nfs4_cb_path path_after(clientid4 id, int ms)
{
	long long end = now_ms() + ms;
	enum nfs4_cb_path p;

	while ((p = nfs4_clients_cb_path(t, id, mono_sec())) == NFS4_CB_PATH_UNKNOWN &&
	       now_ms() < end)
		usleep(10000);
	return p;
}

static void test_addr(void)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	static const char *const bad[][2] = {
		{ "udp", "127.0.0.1.8.1" }, { "tcp", "::1.8.1" }, { "tcp6", "127.0.0.1.8.1" },
		{ "tcp", "127.0.0.1.0.0" }, { "tcp", "127.0.0.1.256.1" }, { "tcp", "127.0.0.1.8" },
		{ "tcp", "127.0.0.1.8.a" }, { "tcp", "127.0.0.1.8.+1" }, { "tcp", "127.0.0.1.8." },
		{ "tcp", ".8.1" }, { "tcp", "" }, { "tcp", "127.0.1.8.1" }, { "rdma", "127.0.0.1.8.1" },
		{ "tcp", "localhost.8.1" }, { "tcp", "127.0.0.1.1234.1" }, { "local", "/x" },
	};
	socklen_t sl;
	unsigned int i, nbad = 0;

	ok(nfs4_cb_addr_parse("tcp", "127.0.0.1.8.1", &ss, &sl) == 0 && sl == sizeof(*s4) &&
	   s4->sin_family == AF_INET && ntohs(s4->sin_port) == 2049 &&
	   ntohl(s4->sin_addr.s_addr) == 0x7f000001u,
	   "tcp 127.0.0.1.8.1 is 127.0.0.1 port 2049");
	ok(nfs4_cb_addr_parse("tcp6", "::1.255.255", &ss, &sl) == 0 && sl == sizeof(*s6) &&
	   s6->sin6_family == AF_INET6 && ntohs(s6->sin6_port) == 65535 &&
	   IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr),
	   "tcp6 ::1.255.255 is ::1 port 65535");
	ok(nfs4_cb_addr_parse("tcp6", "::ffff:127.0.0.1.4.1", &ss, &sl) == 0 &&
	   ntohs(s6->sin6_port) == 1025 && IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr),
	   "tcp6 with an IPv4-mapped address (dots in the address part)");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		nbad += nfs4_cb_addr_parse(bad[i][0], bad[i][1], &ss, &sl) < 0;
	ok(nbad == sizeof(bad) / sizeof(bad[0]),
	   "%u of %zu malformed or foreign netid/address pairs refused", nbad,
	   sizeof(bad) / sizeof(bad[0]));
}

/* Probe of an AUTH_SYS client answered: CB_NULL as knfsd sends it. */
static void test_probe_up(uint32_t flavor, const char *netid)
{
	uint8_t rec[2048], out[64];
	struct xdr_dec d;
	uint32_t w[12], bodylen;
	uint16_t port;
	int lfd, fd = -1;
	clientid4 id;
	ssize_t n;
	unsigned int i;
	bool hdr_ok;

	if (strcmp(netid, "tcp6") == 0) {
		struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_addr = in6addr_loopback };
		socklen_t sl = sizeof(s6);

		lfd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (lfd < 0 || bind(lfd, (struct sockaddr *)&s6, sizeof(s6)) < 0 ||
		    listen(lfd, 4) < 0 || getsockname(lfd, (struct sockaddr *)&s6, &sl) < 0) {
			ok(1, "# SKIP no IPv6 loopback");
			if (lfd >= 0)
				close(lfd);
			return;
		}
		port = ntohs(s6.sin6_port);
	} else {
		lfd = listen_lo(&port);
	}
	id = client(flavor == 1 ? "sys-client" : "none-client", flavor, netid, port, 77);
	ok(nfs4_clients_cb_path(t, id, mono_sec()) == NFS4_CB_PATH_UNKNOWN,
	   "%s: path unknown before the probe", netid);
	nfs4_cb_probe(cb, id);
	fd = accept_ms(lfd, 5000);
	n = fd >= 0 ? read_record(fd, rec, sizeof(rec), 5000) : -1;
	xdr_dec_init(&d, rec, n > 0 ? (size_t)n : 0, NULL);
	for (i = 0; i < 6; i++)
		if (!xdr_dec_u32(&d, &w[i]))
			w[i] = 0xffffffffu;
	hdr_ok = w[1] == 0 && w[2] == 2 && w[3] == CB_PROG && w[4] == 1 && w[5] == 0;
	ok(hdr_ok, "%s: CB_NULL call: program %#x version %u procedure %u", netid, w[3], w[4],
	   w[5]);
	if (flavor == 1) {
		struct xdr_bytes machine;

		ok(xdr_dec_u32(&d, &w[6]) && w[6] == 1 && xdr_dec_u32(&d, &bodylen) &&
		   xdr_dec_u32(&d, &w[7]) && xdr_dec_bytes(&d, &machine, 255) &&
		   xdr_dec_u32(&d, &w[8]) && xdr_dec_u32(&d, &w[9]) && xdr_dec_u32(&d, &w[10]) &&
		   w[8] == 0 && w[9] == 0 && w[10] == 0 && machine.len > 0,
		   "AUTH_SYS client: called back with AUTH_SYS uid 0 gid 0, no groups (knfsd)");
	} else {
		ok(xdr_dec_u32(&d, &w[6]) && w[6] == 0 && xdr_dec_u32(&d, &w[7]) && w[7] == 0,
		   "AUTH_NONE client: called back with AUTH_NONE");
	}
	ok(xdr_dec_u32(&d, &w[0]) && xdr_dec_u32(&d, &w[1]) && w[0] == 0 && w[1] == 0 &&
	   xdr_dec_left(&d) == 0, "%s: AUTH_NONE verifier, no arguments", netid);
	if (fd >= 0 && n >= 4)
		send_record(fd, out, reply(out, xdr__get32(rec), NULL, 0));
	ok(path_after(id, 5000) == NFS4_CB_PATH_UP, "%s: path up after the reply", netid);
	ok(fd >= 0 && closed_within(fd, 2000), "%s: the server closes the connection after it",
	   netid);
	if (fd >= 0)
		close(fd);
	close(lfd);
}

static void test_refused(void)
{
	uint16_t port;
	int lfd = listen_lo(&port);
	clientid4 id;
	long long t0;
	bool down;

	close(lfd);   /* nothing listens there now */
	id = client("refused", 1, "tcp", port, 1);
	t0 = now_ms();
	nfs4_cb_probe(cb, id);
	down = path_after(id, 5000) == NFS4_CB_PATH_DOWN;
	t0 = now_ms() - t0;
	ok(down && t0 < 1000, "connection refused: path down at once (%lld ms)", t0);
}

/* A client whose callback accepts and never answers: down after the
 * reply timeout, and meanwhile another client's probe completes. */
static void test_silent(void)
{
	uint8_t rec[2048], out[64];
	uint16_t p1, p2;
	int l1 = listen_lo(&p1), l2 = listen_lo(&p2), f1, f2;
	clientid4 slow = client("silent", 1, "tcp", p1, 1), fast;
	long long t0 = now_ms(), ms;
	bool up, down;
	ssize_t n;

	nfs4_cb_probe(cb, slow);
	f1 = accept_ms(l1, 5000);
	ok(f1 >= 0 && read_record(f1, rec, sizeof(rec), 5000) > 0,
	   "silent client: its CB_NULL arrives, and is not answered");
	fast = client("fast", 1, "tcp", p2, 2);
	nfs4_cb_probe(cb, fast);
	f2 = accept_ms(l2, 5000);
	n = f2 >= 0 ? read_record(f2, rec, sizeof(rec), 5000) : -1;
	if (n >= 4)
		send_record(f2, out, reply(out, xdr__get32(rec), NULL, 0));
	up = path_after(fast, 5000) == NFS4_CB_PATH_UP &&
	     nfs4_clients_cb_path(t, slow, mono_sec()) == NFS4_CB_PATH_UNKNOWN;
	ms = now_ms() - t0;
	ok(up, "another client's probe is answered and up while the silent one waits (%lld ms)",
	   ms);
	down = path_after(slow, 8000) == NFS4_CB_PATH_DOWN;
	ms = now_ms() - t0;
	ok(down && ms >= 2900, "silent client: down after the reply timeout (lease/10 = 3 s; %lld ms)",
	   ms);
	ok(f1 >= 0 && closed_within(f1, 2000), "silent client: its connection closed");
	if (f1 >= 0)
		close(f1);
	if (f2 >= 0)
		close(f2);
	close(l1);
	close(l2);
}

/* Replies that are not CB_NULL's: the call fails, the path is down. */
static void test_bad_reply(const char *what, const uint8_t *raw, size_t len, bool as_record)
{
	uint8_t rec[2048], out[64];
	uint16_t port;
	int lfd = listen_lo(&port), fd;
	clientid4 id = client(what, 1, "tcp", port, 3);
	long long t0;
	bool down;

	nfs4_cb_probe(cb, id);
	fd = accept_ms(lfd, 5000);
	if (fd >= 0 && read_record(fd, rec, sizeof(rec), 5000) >= 4) {
		if (as_record) {
			memcpy(out, raw, len);
			xdr__put32(out, xdr__get32(rec)); /* the call's xid */
			send_record(fd, out, len);
		} else if (write(fd, raw, len) != (ssize_t)len) {
			abort();
		}
	}
	t0 = now_ms();
	down = path_after(id, 5000) == NFS4_CB_PATH_DOWN;
	t0 = now_ms() - t0;
	/* at once, not by the reply timeout (3 s) */
	ok(down && t0 < 2000, "%s: path down (%lld ms after the reply)", what, t0);
	ok(fd >= 0 && closed_within(fd, 2000), "%s: connection closed", what);
	if (fd >= 0)
		close(fd);
	close(lfd);
}

static void test_bad_replies(void)
{
	static const uint8_t huge[] = { 0x80, 0x10, 0x00, 0x00 };   /* 1 MiB record */
	static const uint8_t denied[] = { 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1,
					  0, 0, 0, 1, 0, 0, 0, 1 };  /* AUTH_ERROR BADCRED */
	static const uint8_t unavail[] = { 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,
					   0, 0, 0, 0, 0, 0, 0, 1 };  /* PROG_UNAVAIL */
	static const uint8_t shortrec[] = { 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0 };
	uint8_t extra[28] = { 0 };

	test_bad_reply("oversized reply (1 MiB record marker)", huge, sizeof(huge), false);
	test_bad_reply("AUTH_ERROR reply", denied, sizeof(denied), true);
	test_bad_reply("PROG_UNAVAIL reply", unavail, sizeof(unavail), true);
	test_bad_reply("truncated reply", shortrec, sizeof(shortrec), true);
	xdr__put32(extra + 4, 1);
	test_bad_reply("CB_NULL reply with results", extra, sizeof(extra), true);
}

static void test_foreign_netid(void)
{
	uint16_t port;
	int lfd = listen_lo(&port), fd;
	clientid4 id = client("udp-client", 1, "udp", port, 4);

	nfs4_cb_probe(cb, id);
	ok(nfs4_clients_cb_path(t, id, mono_sec()) == NFS4_CB_PATH_DOWN,
	   "netid udp: path down at once");
	fd = accept_ms(lfd, 500);
	ok(fd < 0, "netid udp: no connection made to its address");
	if (fd >= 0)
		close(fd);
	close(lfd);
}

struct recall_out {
	pthread_mutex_t lock;
	bool done;
	enum rpc_call_status st;
	struct nfs4_cb_res res;
};

static void recall_done(void *arg, enum rpc_call_status st, const struct nfs4_cb_res *res)
{
	struct recall_out *o = arg;

	pthread_mutex_lock(&o->lock);
	o->st = st;
	if (res)
		o->res = *res;
	o->done = true;
	pthread_mutex_unlock(&o->lock);
}

static bool wait_done(struct recall_out *o, int ms)
{
	long long end = now_ms() + ms;
	bool d;

	do {
		pthread_mutex_lock(&o->lock);
		d = o->done;
		pthread_mutex_unlock(&o->lock);
		if (!d)
			usleep(10000);
	} while (!d && now_ms() < end);
	return d;
}

/* CB_RECALL: the arguments as sent, the reply's status as received. */
static void test_recall(uint32_t op_status)
{
	uint8_t rec[2048], res[64], out[128], fhb[] = { 1, 2, 3, 4, 5, 6, 7 };
	uint64_t mem[256];
	struct xdr_arena arena;
	struct recall_out o = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct stateid4 sid = { .seqid = 9 };
	nfs_fh4 fh = { .len = sizeof(fhb), .data = fhb };
	struct nfs4_args_head h;
	struct nfs_cb_argop4 op;
	struct xdr_dec d;
	struct xdr_enc e;
	uint16_t port;
	int lfd = listen_lo(&port), fd;
	clientid4 id = client(op_status ? "recall-err" : "recall", 1, "tcp", port, 0xabcd);
	uint32_t w[6];
	ssize_t n = -1;
	unsigned int i;
	bool args_ok = false;

	memset(sid.other, 0x5a, sizeof(sid.other));
	ok(nfs4_cb_recall(cb, id, &sid, true, &fh, recall_done, &o) == 0, "CB_RECALL sent");
	fd = accept_ms(lfd, 5000);
	if (fd >= 0)
		n = read_record(fd, rec, sizeof(rec), 5000);
	xdr_arena_init(&arena, mem, sizeof(mem));
	xdr_dec_init(&d, rec, n > 0 ? (size_t)n : 0, &arena);
	for (i = 0; i < 6; i++)
		if (!xdr_dec_u32(&d, &w[i]))
			w[i] = 0;
	/* credential and verifier */
	if (xdr_dec_u32(&d, &w[0]) && xdr_dec_u32(&d, &w[1]) && xdr_dec_skip(&d, w[1]) &&
	    xdr_dec_skip(&d, 8) && nfs4_dec_cb_compound_args_head(&d, &h) &&
	    nfs4_dec_cb_argop(&d, h.minorversion, &op) == NFS4_OP_DECODED)
		args_ok = h.minorversion == 0 && h.callback_ident == 0xabcd && h.nops == 1 &&
			  op.argop == OP_CB_RECALL && op.u.opcbrecall.stateid.seqid == 9 &&
			  memcmp(op.u.opcbrecall.stateid.other, sid.other, 12) == 0 &&
			  op.u.opcbrecall.truncate && op.u.opcbrecall.fh.len == sizeof(fhb) &&
			  memcmp(op.u.opcbrecall.fh.data, fhb, sizeof(fhb)) == 0 &&
			  xdr_dec_left(&d) == 0;
	ok(args_ok, "CB_COMPOUND minor version 0, callback_ident, CB_RECALL stateid/truncate/fh");
	xdr_enc_init(&e, res, sizeof(res));
	xdr_enc_u32(&e, op_status);  /* status */
	xdr_enc_u32(&e, 0);          /* tag */
	xdr_enc_u32(&e, 1);
	xdr_enc_u32(&e, OP_CB_RECALL);
	xdr_enc_u32(&e, op_status);
	if (fd >= 0 && n >= 4)
		send_record(fd, out, reply(out, xdr__get32(rec), res, xdr_enc_len(&e)));
	args_ok = wait_done(&o, 5000);
	ok(args_ok && o.st == RPC_CALL_OK && o.res.status == op_status && o.res.nops == 1 &&
	   o.res.opstatus[0] == op_status,
	   "CB_RECALL reply decoded: status %u (%s)", o.res.status, rpc_call_status_str(o.st));
	if (fd >= 0)
		close(fd);
	close(lfd);
}

/* A CB_RECALL whose reply never comes marks the path down. */
static void test_recall_timeout(void)
{
	struct recall_out o = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct stateid4 sid = { 0 };
	nfs_fh4 fh = { .len = 1, .data = (uint8_t *)"x" };
	uint8_t rec[2048], out[64];
	uint16_t port;
	int lfd = listen_lo(&port), fd;
	clientid4 id = client("recall-silent", 1, "tcp", port, 5);
	ssize_t n;

	nfs4_cb_probe(cb, id);
	fd = accept_ms(lfd, 5000);
	n = fd >= 0 ? read_record(fd, rec, sizeof(rec), 5000) : -1;
	if (n >= 4)
		send_record(fd, out, reply(out, xdr__get32(rec), NULL, 0));
	ok(path_after(id, 5000) == NFS4_CB_PATH_UP, "recall-silent: up after its probe");
	if (fd >= 0)
		close(fd);
	ok(nfs4_cb_recall(cb, id, &sid, false, &fh, recall_done, &o) == 0, "CB_RECALL sent");
	fd = accept_ms(lfd, 5000);
	ok(wait_done(&o, 8000) && o.st == RPC_CALL_TIMEDOUT &&
	   nfs4_clients_cb_path(t, id, mono_sec()) == NFS4_CB_PATH_DOWN,
	   "CB_RECALL not answered: timed out, path down");
	if (fd >= 0)
		close(fd);
	close(lfd);
}

int main(void)
{
	t = nfs4_clients_new((uint32_t)time(NULL), 64);
	cb = t ? nfs4_cb_new(t, 30) : NULL;
	if (!cb) {
		printf("Bail out! no callback engine\n");
		return 1;
	}
	test_addr();
	test_probe_up(1, "tcp");
	test_probe_up(0, "tcp");
	test_probe_up(1, "tcp6");
	test_refused();
	test_silent();
	test_bad_replies();
	test_foreign_netid();
	test_recall(0);
	test_recall(10001 /* NFS4ERR_BADHANDLE */);
	test_recall_timeout();
	nfs4_cb_free(cb);
	nfs4_clients_free(t);
	return tap_done();
}
