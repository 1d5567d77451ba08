// SPDX-License-Identifier: MIT
/*
 * The back channel (src/rpc/backchan.c): an RPC server runs in this
 * process on 127.0.0.1 with a test program whose TRIGGER procedure makes
 * the server call back the client over the connection the call came on
 * (rpc_req_backchan, rpc_conn_call: from a worker, and from the loop);
 * the test plays the client with a raw socket and answers, or not. It
 * checks the call as it arrives, the reply matched by xid, a reply to no
 * call dropped (the connection keeps serving), a reply larger than the
 * call allows, the timeout, the bound of calls waiting, a closed
 * connection ending its calls, and a handle outliving its connection.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rpc/backchan.h"
#include "rpc/drc.h"
#include "rpc/req.h"
#include "rpc/svc.h"
#include "tap.h"
#include "unit/rpc/lo_server.h"

#define PROG 0x20000099u
#define CB_PROG 0x40000001u
#define CB_PROC 7u
#define P_TRIGGER 1u       /* on a worker */
#define P_TRIGGER_LOOP 2u  /* on the event loop */
#define P_KEEP 3u          /* keep a handle of the connection */
#define P_CALL_KEPT 4u     /* a call on the kept handle */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static unsigned int ndone;
static enum rpc_call_status last_st;
static uint32_t last_res;
static size_t last_len;
static unsigned int count_st[RPC_CALL_SHUTDOWN + 1];
static struct rpc_backchan *kept;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void cb_done(void *arg, enum rpc_call_status st, const uint8_t *res, size_t len)
{
	pthread_mutex_lock(&lock);
	last_st = st;
	last_len = len;
	last_res = len >= 4 ? xdr__get32(res) : 0;
	count_st[st]++;
	ndone++;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	(void)arg;
}

/* Wait until @n calls have ended in total (or @ms pass). */
static bool wait_ndone(unsigned int n, int ms)
{
	struct timespec ts;
	bool ok_ = true;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&lock);
	while (ndone < n && ok_)
		ok_ = pthread_cond_timedwait(&cond, &lock, &ts) == 0;
	ok_ = ndone >= n;
	pthread_mutex_unlock(&lock);
	return ok_;
}

static unsigned int get_ndone(void)
{
	unsigned int n;

	pthread_mutex_lock(&lock);
	n = ndone;
	pthread_mutex_unlock(&lock);
	return n;
}

static bool enc_u32(struct xdr_enc *e, const void *p)
{
	return xdr_enc_u32(e, *(const uint32_t *)p);
}

/* Arguments: value, timeout_ms, max_reply. Result: rpc_conn_call's. */
static int call_back(struct rpc_backchan *bc, struct xdr_dec *d)
{
	uint32_t v, tmo, max;
	struct rpc_bc_call c = {
		.prog = CB_PROG, .vers = 1, .proc = CB_PROC, .encode = enc_u32,
		.max_args = 4, .done = cb_done,
	};

	if (!xdr_dec_u32(d, &v) || !xdr_dec_u32(d, &tmo) || !xdr_dec_u32(d, &max))
		return -2;
	c.args = &v;
	c.timeout_ms = tmo;
	c.max_reply = max;
	return bc ? rpc_conn_call(bc, &c) : -1;
}

static enum rpc_accept_stat p_trigger(struct rpc_req *req)
{
	struct rpc_backchan *bc = rpc_req_backchan(req);
	int r = call_back(bc, &req->args);

	rpc_backchan_put(bc);
	if (r == -2 || xdr_dec_left(&req->args))
		return RPC_GARBAGE_ARGS;
	xdr_enc_u32(&req->enc, (uint32_t)r);
	return RPC_SUCCESS;
}

static enum rpc_accept_stat p_keep(struct rpc_req *req)
{
	pthread_mutex_lock(&lock);
	rpc_backchan_put(kept);
	kept = rpc_req_backchan(req);
	pthread_mutex_unlock(&lock);
	return RPC_SUCCESS;
}

static enum rpc_accept_stat p_call_kept(struct rpc_req *req)
{
	int r;

	pthread_mutex_lock(&lock);
	r = call_back(kept, &req->args);
	pthread_mutex_unlock(&lock);
	if (r == -2 || xdr_dec_left(&req->args))
		return RPC_GARBAGE_ARGS;
	xdr_enc_u32(&req->enc, (uint32_t)r);
	return RPC_SUCCESS;
}

static const struct rpc_proc procs[] = {
	[0] = RPC_PROC("NULL", rpc_proc_null, 0, 0),
	[P_TRIGGER] = RPC_PROC("TRIGGER", p_trigger, RPC_PROC_BLOCKING, 4),
	[P_TRIGGER_LOOP] = RPC_PROC("TRIGGER_LOOP", p_trigger, 0, 4),
	[P_KEEP] = RPC_PROC("KEEP", p_keep, 0, 0),
	[P_CALL_KEPT] = RPC_PROC("CALL_KEPT", p_call_kept, RPC_PROC_BLOCKING, 4),
};
static const struct rpc_version vers[] = { { 1, 5, procs } };
static const struct rpc_program prog = { PROG, "backchan-test", 1, vers, NULL };

static uint16_t port;

static int connect_lo(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		abort();
	return fd;
}

static uint32_t xid_seq = 100;

/* Send a call of ours to the server: @proc with @n argument words. */
static uint32_t call(int fd, uint32_t proc, const uint32_t *args, unsigned int n)
{
	uint8_t b[128];
	struct xdr_enc e;
	uint32_t xid = xid_seq++;
	unsigned int i;

	xdr_enc_init(&e, b, sizeof(b));
	rpc_encode_call(&e, xid, PROG, 1, proc, NULL);
	for (i = 0; i < n; i++)
		xdr_enc_u32(&e, args[i]);
	lo_send_rec(fd, b, xdr_enc_len(&e));
	return xid;
}

/*
 * Read records until both the server's reply to @xid (its result word
 * in *@res) and a call of the server's (its xid in *@cb_xid, its one
 * argument in *@cb_arg) came. Checks the call's header.
 * Return values: true when both came and the call was as sent.
 */
static bool expect_reply_and_call(int fd, uint32_t xid, uint32_t *res, uint32_t *cb_xid,
				  uint32_t *cb_arg)
{
	bool got_reply = false, got_call = false, hdr = true;
	uint8_t b[1024];

	while (!got_reply || !got_call) {
		ssize_t n = lo_recv_rec(fd, b, sizeof(b), 3000);

		if (n < 8)
			return false;
		if (xdr__get32(b + 4) == 1) {
			if (xdr__get32(b) != xid || n < 28)
				return false;
			*res = xdr__get32(b + 24);
			got_reply = true;
		} else {
			/* xid CALL 2 prog vers proc AUTH_NONE 0 AUTH_NONE 0 arg */
			hdr = n == 44 && xdr__get32(b + 8) == 2 && xdr__get32(b + 12) == CB_PROG &&
			      xdr__get32(b + 16) == 1 && xdr__get32(b + 20) == CB_PROC &&
			      xdr__get32(b + 24) == 0 && xdr__get32(b + 32) == 0;
			*cb_xid = xdr__get32(b);
			*cb_arg = n >= 44 ? xdr__get32(b + 40) : 0;
			got_call = true;
		}
	}
	return hdr;
}

/* Our reply to the server's call @xid: SUCCESS and @nres result words. */
static void answer(int fd, uint32_t xid, uint32_t first, unsigned int nres)
{
	uint8_t *b = calloc(1, 24 + 4 * (size_t)nres);
	unsigned int i;

	xdr__put32(b, xid);
	xdr__put32(b + 4, 1);
	for (i = 0; i < nres; i++)
		xdr__put32(b + 24 + 4 * i, first + i);
	lo_send_rec(fd, b, 24 + 4 * (size_t)nres);
	free(b);
}

/* A NULL call answered: the connection still serves. */
static bool still_serves(int fd)
{
	uint8_t b[256];
	uint32_t xid = call(fd, 0, NULL, 0);
	ssize_t n = lo_recv_rec(fd, b, sizeof(b), 3000);

	return n == 24 && xdr__get32(b) == xid && xdr__get32(b + 4) == 1;
}

static void test_answered(uint32_t proc, const char *where)
{
	uint32_t args[3] = { 41, 3000, 256 }, res = 9, cbx = 0, cba = 0;
	unsigned int n0 = get_ndone();
	int fd = connect_lo();
	uint32_t xid = call(fd, proc, args, 3);

	bool got = expect_reply_and_call(fd, xid, &res, &cbx, &cba);

	ok(got && res == 0 && cba == 41,
	   "%s: the handler's call arrives on the client's connection (program, version, "
	   "procedure, AUTH_NONE, argument %u), rpc_conn_call returned %d", where, cba, (int)res);
	answer(fd, cbx, 42, 1);
	got = wait_ndone(n0 + 1, 3000);
	ok(got && last_st == RPC_CALL_OK && last_len == 4 && last_res == 42,
	   "%s: the client's reply matched by xid, results handed over (%s, %u)", where,
	   rpc_call_status_str(last_st), last_res);
	ok(still_serves(fd), "%s: the connection serves calls after it", where);
	close(fd);
}

static void test_stray(void)
{
	uint32_t args[3] = { 5, 3000, 256 }, res, cbx = 0, cba;
	unsigned int n0 = get_ndone();
	int fd = connect_lo();
	uint32_t xid = call(fd, P_TRIGGER, args, 3);
	uint8_t junk[8] = { 0, 0, 0, 9, 0, 0, 0, 1 };

	ok(expect_reply_and_call(fd, xid, &res, &cbx, &cba), "stray: the call arrives");
	answer(fd, cbx + 1000, 1, 1);             /* a reply to no call */
	answer(fd, 0x7fffffff, 1, 300);           /* nor this, larger */
	lo_send_rec(fd, junk, sizeof(junk));         /* nor this: a bare REPLY header */
	ok(still_serves(fd) && get_ndone() == n0,
	   "replies with unknown xids dropped: no call ended, the connection serves");
	answer(fd, cbx, 6, 1);
	ok(wait_ndone(n0 + 1, 3000) && last_st == RPC_CALL_OK && last_res == 6,
	   "then the right reply ends the call");
	answer(fd, cbx, 7, 1);                    /* a second reply to it */
	ok(still_serves(fd) && get_ndone() == n0 + 1, "a second reply to it is dropped");
	close(fd);
}

static void test_toobig(void)
{
	uint32_t args[3] = { 5, 3000, 64 }, res, cbx = 0, cba;
	unsigned int n0 = get_ndone();
	int fd = connect_lo();
	uint32_t xid = call(fd, P_TRIGGER, args, 3);

	ok(expect_reply_and_call(fd, xid, &res, &cbx, &cba), "too big: the call arrives");
	answer(fd, cbx, 1, 100);                  /* 424 bytes for a call allowing 64 */

	bool got = wait_ndone(n0 + 1, 3000);

	ok(got && last_st == RPC_CALL_TOOBIG,
	   "a reply larger than the call allows ends it: %s", rpc_call_status_str(last_st));
	ok(still_serves(fd), "and the connection serves on");
	close(fd);
}

static void test_timeout(void)
{
	uint32_t args[3] = { 5, 300, 256 }, res, cbx = 0, cba;
	unsigned int n0 = get_ndone();
	int fd = connect_lo();
	uint32_t xid = call(fd, P_TRIGGER, args, 3);
	long long t0 = now_ms(), ms;
	bool done;

	ok(expect_reply_and_call(fd, xid, &res, &cbx, &cba), "timeout: the call arrives");
	done = wait_ndone(n0 + 1, 3000);
	ms = now_ms() - t0;
	ok(done && last_st == RPC_CALL_TIMEDOUT && ms >= 250,
	   "not answered: timed out after %lld ms (300 asked)", ms);
	answer(fd, cbx, 1, 1);                    /* too late */
	ok(still_serves(fd) && get_ndone() == n0 + 1, "a late reply is dropped");
	close(fd);
}

static void test_bound_and_close(void)
{
	uint32_t args[3] = { 5, 30000, 256 }, b[256];
	unsigned int n0 = get_ndone(), i, calls = 0, replies = 0, busy0 = count_st[RPC_CALL_BUSY],
		     closed0 = count_st[RPC_CALL_CLOSED];
	int fd = connect_lo();

	for (i = 0; i < RPC_BC_MAX_CALLS + 1; i++)
		call(fd, P_TRIGGER, args, 3);
	/* 17 replies and 16 calls of the server's */
	while (replies < RPC_BC_MAX_CALLS + 1 || calls < RPC_BC_MAX_CALLS) {
		ssize_t n = lo_recv_rec(fd, (uint8_t *)b, sizeof(b), 3000);

		if (n < 8)
			break;
		if (xdr__get32((uint8_t *)b + 4) == 1)
			replies++;
		else
			calls++;
	}
	ok(wait_ndone(n0 + 1, 3000) && count_st[RPC_CALL_BUSY] == busy0 + 1 &&
	   calls == RPC_BC_MAX_CALLS,
	   "%u calls waiting at most: %u sent, one more ends BUSY", RPC_BC_MAX_CALLS, calls);
	close(fd);
	ok(wait_ndone(n0 + 1 + RPC_BC_MAX_CALLS, 3000) &&
	   count_st[RPC_CALL_CLOSED] == closed0 + RPC_BC_MAX_CALLS,
	   "the client closes: its %u waiting calls end CLOSED", RPC_BC_MAX_CALLS);
}

static void test_kept_handle(void)
{
	uint32_t args[3] = { 8, 3000, 256 }, res = 9, cbx, cba;
	uint8_t b[256];
	unsigned int n0 = get_ndone();
	int fd = connect_lo(), fd2 = connect_lo();
	uint32_t xid = call(fd, P_KEEP, NULL, 0);

	ok(lo_recv_rec(fd, b, sizeof(b), 3000) == 24 && xdr__get32(b) == xid, "KEEP answered");
	/* from another connection, a call on the kept one */
	xid = call(fd2, P_CALL_KEPT, args, 3);
	ok(lo_recv_rec(fd2, b, sizeof(b), 3000) == 28 && xdr__get32(b + 24) == 0 &&
	   lo_recv_rec(fd, b, sizeof(b), 3000) == 44 && xdr__get32(b + 40) == 8,
	   "a call made from another connection's handler goes to the kept connection");
	answer(fd, xdr__get32(b), 3, 1);
	ok(wait_ndone(n0 + 1, 3000) && last_st == RPC_CALL_OK && last_res == 3,
	   "and its reply ends it");
	close(fd);
	usleep(200000);  /* the loop sees the close */
	xid = call(fd2, P_CALL_KEPT, args, 3);
	ok(lo_recv_rec(fd2, b, sizeof(b), 3000) == 28 && xdr__get32(b + 24) == 0 &&
	   wait_ndone(n0 + 2, 3000) && last_st == RPC_CALL_CLOSED,
	   "the kept handle outlives its connection: a call on it ends CLOSED");
	(void)cbx;
	(void)cba;
	(void)res;
	close(fd2);
}

int main(void)
{
	struct rpc_registry reg = { 0 };
	struct rpc_server *srv;
	struct rpc_drc *drc;

	rpc_registry_add(&reg, &prog);
	srv = lo_server_start(&reg, 2, &drc, &port);
	if (!srv)
		return 1;
	test_answered(P_TRIGGER, "from a worker");
	test_answered(P_TRIGGER_LOOP, "from the loop");
	test_stray();
	test_toobig();
	test_timeout();
	test_bound_and_close();
	test_kept_handle();
	/* A call waiting when the server stops ends SHUTDOWN. */
	{
		uint32_t args[3] = { 5, 30000, 256 }, res, cbx, cba;
		unsigned int n0 = get_ndone();
		int fd = connect_lo();
		uint32_t xid = call(fd, P_TRIGGER, args, 3);
		bool got = expect_reply_and_call(fd, xid, &res, &cbx, &cba);

		rpc_server_stop(srv, 1000);
		ok(got && wait_ndone(n0 + 1, 3000) && last_st == RPC_CALL_SHUTDOWN,
		   "a call waiting when the server stops ends: %s", rpc_call_status_str(last_st));
		close(fd);
	}
	rpc_backchan_put(kept);
	rpc_server_destroy(srv);
	rpc_drc_destroy(drc);
	return tap_done();
}
