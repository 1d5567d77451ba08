/* SPDX-License-Identifier: MIT */
/*
 * The RPC server in-process, on a loopback port of its own, with a test
 * program whose "slow" procedure is RPC_PROC_BLOCKING (it waits, as a
 * file system call may): slow calls run on the worker pool while the
 * event loop keeps answering fast calls, replies of one connection may
 * overtake each other, a connection closed while its call is on a worker
 * is cleaned up once the call returns (ASan checks the use-after-free
 * that would be), a retransmitted non-idempotent blocking call is run
 * once, and stopping the server waits for calls on workers and sends
 * their replies.
 * The slow procedures wait at a gate the test opens rather than for a
 * time, and the test waits for them to reach it: what is checked holds
 * however late threads are scheduled on a loaded machine (a fast call
 * timed against a 200 ms sleep, or a call assumed on a worker 20 ms
 * after it was sent, did not).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rpc/drc.h"
#include "rpc/program.h"
#include "rpc/req.h"
#include "rpc/svc.h"
#include "rpc/workers.h"
#include "tap.h"

#define TEST_PROG 0x20000010u
#define LONG_MS 10000     /* waits that end early unless something is wrong */

enum { P_NULL, P_SLOW, P_FAST, P_SLOW_ONCE };

static atomic_int slow_once_runs;

static enum rpc_accept_stat echo_arg(struct rpc_req *req)
{
	uint32_t v;

	if (!xdr_dec_u32(&req->args, &v) || xdr_dec_left(&req->args))
		return RPC_GARBAGE_ARGS;
	return xdr_enc_u32(&req->enc, v) ? RPC_SUCCESS : RPC_SYSTEM_ERR;
}

static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static bool gate_open;
static unsigned int gate_waiting;        /* slow procedures at the gate now */

static void deadline_in(struct timespec *ts, int ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/* A slow procedure's body: wait until the test opens the gate (or, if
 * the test went wrong, a while: the server must still stop). */
static void gate_pass(void)
{
	struct timespec ts;

	deadline_in(&ts, 2 * LONG_MS);
	pthread_mutex_lock(&gate_lock);
	gate_waiting++;
	pthread_cond_broadcast(&gate_cond);
	while (!gate_open && pthread_cond_timedwait(&gate_cond, &gate_lock, &ts) == 0)
		;
	gate_waiting--;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
}

static void gate_set(bool open)
{
	pthread_mutex_lock(&gate_lock);
	gate_open = open;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
}

/* Return values: true once @n slow procedures are at the gate together. */
static bool gate_reached(unsigned int n)
{
	struct timespec ts;
	bool reached;

	deadline_in(&ts, LONG_MS);
	pthread_mutex_lock(&gate_lock);
	while (gate_waiting < n && pthread_cond_timedwait(&gate_cond, &gate_lock, &ts) == 0)
		;
	reached = gate_waiting >= n;
	pthread_mutex_unlock(&gate_lock);
	return reached;
}

static enum rpc_accept_stat proc_slow(struct rpc_req *req)
{
	gate_pass();
	return echo_arg(req);
}

static enum rpc_accept_stat proc_slow_once(struct rpc_req *req)
{
	atomic_fetch_add(&slow_once_runs, 1);
	gate_pass();
	return echo_arg(req);
}

static const struct rpc_proc test_procs[] = {
	[P_NULL] = RPC_PROC("NULL", rpc_proc_null, 0, 0),
	[P_SLOW] = RPC_PROC("SLOW", proc_slow, RPC_PROC_BLOCKING, 4),
	[P_FAST] = RPC_PROC("FAST", echo_arg, 0, 4),
	[P_SLOW_ONCE] = RPC_PROC("SLOW_ONCE", proc_slow_once,
			  RPC_PROC_BLOCKING | RPC_PROC_NONIDEMPOTENT, 4),
};

static const struct rpc_version test_versions[] = {
	{ 1, 4, test_procs },
};

static const struct rpc_program test_program = {
	.prog = TEST_PROG, .name = "test", .nvers = 1, .versions = test_versions,
};

static uint16_t port;

static int connect_server(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* One call with a u32 argument, AUTH_NONE, as one record. */
static int send_call(int fd, uint32_t xid, uint32_t proc, uint32_t arg)
{
	uint32_t w[12] = { 0x80000000u | 44, xid, 0, 2, TEST_PROG, 1, proc,
			   0, 0, 0, 0, arg };
	unsigned int i;

	for (i = 0; i < 12; i++)
		w[i] = htonl(w[i]);
	return send(fd, w, sizeof(w), MSG_NOSIGNAL) == sizeof(w) ? 0 : -1;
}

static int read_full(int fd, void *buf, size_t len, int timeout_ms)
{
	uint8_t *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, timeout_ms) <= 0)
			return -1;
		n = recv(fd, p, len, 0);
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Read one reply: xid, REPLY, ACCEPTED, verf, SUCCESS and a u32 result.
 * Return values: 0 with *xid and *val set, -1 on anything else or timeout.
 */
static int read_reply(int fd, uint32_t *xid, uint32_t *val, int timeout_ms)
{
	uint32_t w[8];
	unsigned int i;

	if (read_full(fd, w, sizeof(w), timeout_ms) < 0)
		return -1;
	for (i = 0; i < 8; i++)
		w[i] = ntohl(w[i]);
	if (w[0] != (0x80000000u | 28) || w[2] != 1 || w[3] != 0 || w[6] != 0)
		return -1;
	*xid = w[1];
	*val = w[7];
	return 0;
}

static bool nothing_within(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, ms) == 0;
}

static void test_loop_not_blocked(void)
{
	int slow = connect_server(), fast = connect_server();
	uint32_t xid, val, i, got = 0, good = 0;

	if (slow < 0 || fast < 0) {
		ok(0, "connect");
		return;
	}
	gate_set(false);
	for (i = 0; i < 8; i++)
		send_call(slow, 100 + i, P_SLOW, 1000 + i);
	send_call(fast, 7, P_FAST, 77);
	ok(read_reply(fast, &xid, &val, LONG_MS) == 0 && xid == 7 && val == 77,
	   "fast call answered while slow calls wait on workers");
	/* 8 workers: the 8 slow calls run side by side, not one after another. */
	ok(gate_reached(8) && nothing_within(slow, 0),
	   "8 slow calls wait on workers at once, none answered");
	gate_set(true);
	for (i = 0; i < 8; i++) {
		if (read_reply(slow, &xid, &val, LONG_MS) < 0)
			break;
		got++;
		good += xid >= 100 && xid < 108 && val == xid - 100 + 1000;
	}
	ok(got == 8 && good == 8, "8 slow replies, each with its own result (%u/%u)",
	   good, got);
	close(slow);
	close(fast);
}

static void test_overtaking(void)
{
	int fd = connect_server();
	uint32_t xid = 0, val = 0;

	gate_set(false);
	send_call(fd, 201, P_SLOW, 1);
	send_call(fd, 202, P_FAST, 2);
	ok(read_reply(fd, &xid, &val, LONG_MS) == 0 && xid == 202 && val == 2,
	   "on one connection, a fast call's reply overtakes a slow one");
	gate_set(true);
	ok(read_reply(fd, &xid, &val, LONG_MS) == 0 && xid == 201 && val == 1,
	   "then the slow reply arrives");
	close(fd);
}

static void test_close_while_busy(void)
{
	int fd = connect_server(), probe;
	uint32_t xid, val;

	gate_set(false);
	send_call(fd, 301, P_SLOW, 3);
	send_call(fd, 302, P_SLOW, 4);
	ok(gate_reached(2), "two calls on workers");
	close(fd);
	gate_set(true);          /* they return after their connection closed */
	ok(gate_reached(0), "and return");
	probe = connect_server();
	send_call(probe, 303, P_FAST, 5);
	ok(read_reply(probe, &xid, &val, LONG_MS) == 0 && xid == 303 && val == 5,
	   "server answers after a connection closed with calls on workers");
	close(probe);
}

static void test_drc_blocking(void)
{
	int fd = connect_server(), fd2;
	uint32_t xid = 0, val = 0, xid2 = 0, val2 = 0;

	atomic_store(&slow_once_runs, 0);
	gate_set(false);
	send_call(fd, 401, P_SLOW_ONCE, 9);
	ok(gate_reached(1), "non-idempotent blocking call on a worker");
	send_call(fd, 401, P_SLOW_ONCE, 9); /* retransmission while running */
	/* The calls of a connection are read in order: once this one is
	 * answered, the retransmission was seen while the call still waited. */
	send_call(fd, 402, P_FAST, 10);
	ok(read_reply(fd, &xid, &val, LONG_MS) == 0 && xid == 402 && val == 10,
	   "a fast call after the retransmission answered");
	gate_set(true);
	ok(read_reply(fd, &xid, &val, LONG_MS) == 0 && xid == 401 && val == 9,
	   "non-idempotent blocking call answered");
	ok(nothing_within(fd, 300),
	   "the retransmission sent while it ran got no second reply");
	send_call(fd, 401, P_SLOW_ONCE, 9); /* retransmission after */
	ok(read_reply(fd, &xid2, &val2, LONG_MS) == 0 && xid2 == 401 && val2 == 9,
	   "a retransmission after it finished gets the cached reply");
	ok(atomic_load(&slow_once_runs) == 1, "the procedure ran once (%d)",
	   atomic_load(&slow_once_runs));
	close(fd);
	/* Same xid from another connection (another port): a new call. */
	fd2 = connect_server();
	send_call(fd2, 401, P_SLOW_ONCE, 9);
	ok(read_reply(fd2, &xid, &val, LONG_MS) == 0 &&
	   atomic_load(&slow_once_runs) == 2,
	   "the same xid from another client port runs again");
	close(fd2);
}

struct stopper {
	struct rpc_server *srv;
};

static void *stop_thread(void *arg)
{
	struct stopper *s = arg;

	rpc_server_stop(s->srv, 3000);
	return NULL;
}

static void test_stop_waits(struct rpc_server *srv)
{
	int fd = connect_server();
	struct stopper s = { srv };
	uint32_t xid = 0, val = 0;
	pthread_t t;

	gate_set(false);
	send_call(fd, 501, P_SLOW, 11);
	ok(gate_reached(1), "a call on a worker");
	pthread_create(&t, NULL, stop_thread, &s);
	gate_set(true);
	ok(read_reply(fd, &xid, &val, LONG_MS) == 0 && xid == 501 && val == 11,
	   "stopping the server still sends the reply of a call on a worker");
	pthread_join(t, NULL);
	close(fd);
}

/* ---- fairness between connections, on a pool of its own ------------- */

/*
 * One worker: the order calls start in is then the order the pool takes
 * them in. With two, a worker descheduled between taking a call and
 * starting it lets the other start more of the hog's calls first (seen
 * under TSan), so start order would measure the scheduler, not the ring.
 */
#define FAIR_WORKERS 1
#define FAIR_HOG 256

static pthread_mutex_t fair_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fair_cond = PTHREAD_COND_INITIALIZER;
static bool fair_open;
static unsigned int started, finished;
static uint32_t start_order[FAIR_HOG + 1];

/* Records the order calls start in; waits at the gate until it opens. */
static enum rpc_accept_stat proc_gated(struct rpc_req *req)
{
	pthread_mutex_lock(&fair_lock);
	if (started < FAIR_HOG + 1)
		start_order[started] = req->call.xid;
	started++;
	pthread_cond_broadcast(&fair_cond);
	while (!fair_open)
		pthread_cond_wait(&fair_cond, &fair_lock);
	pthread_mutex_unlock(&fair_lock);
	return RPC_SUCCESS;
}

static const struct rpc_proc gated_proc =
	RPC_PROC("GATED", proc_gated, RPC_PROC_BLOCKING, 0);

static void gated_done(struct rpc_req *req)
{
	rpc_req_release(req);
	free(req);
	pthread_mutex_lock(&fair_lock);
	finished++;
	pthread_cond_broadcast(&fair_cond);
	pthread_mutex_unlock(&fair_lock);
}

/* A call of connection @conn (never dereferenced: a queue key). */
static struct rpc_req *gated_req(uintptr_t conn, uint32_t xid)
{
	struct rpc_req *req = calloc(1, sizeof(*req));

	if (!req)
		abort();
	req->rec = req->rec_inline;
	rpc_req_reset(req);
	req->conn = (struct rpc_conn *)conn;
	req->proc = &gated_proc;
	req->call.xid = xid;
	return req;
}

/*
 * A connection with 256 calls queued for the worker, then another
 * connection's single call: the single call starts right after the
 * hog's next one (round-robin between connections), not after the 256
 * (one FIFO).
 */
static void test_fair_between_connections(void)
{
	struct rpc_workers *w = rpc_workers_start(FAIR_WORKERS, NULL, gated_done);
	unsigned int i, pos = FAIR_HOG + 1;

	if (!w) {
		ok(0, "pool started");
		return;
	}
	/* The worker takes the hog's first call and waits at the gate... */
	for (i = 0; i < FAIR_WORKERS; i++)
		rpc_workers_submit(w, gated_req(1, i));
	pthread_mutex_lock(&fair_lock);
	while (started < FAIR_WORKERS)
		pthread_cond_wait(&fair_cond, &fair_lock);
	pthread_mutex_unlock(&fair_lock);
	/* ...while the rest of its 256 and then the victim's call queue. */
	for (; i < FAIR_HOG; i++)
		rpc_workers_submit(w, gated_req(1, i));
	rpc_workers_submit(w, gated_req(2, 9999));
	pthread_mutex_lock(&fair_lock);
	fair_open = true;
	pthread_cond_broadcast(&fair_cond);
	while (finished < FAIR_HOG + 1)
		pthread_cond_wait(&fair_cond, &fair_lock);
	pthread_mutex_unlock(&fair_lock);
	for (i = 0; i < FAIR_HOG + 1; i++)
		if (start_order[i] == 9999)
			pos = i;
	ok(pos == FAIR_WORKERS + 1,
	   "the other connection's call started %u calls after the hog's first (%u: the hog's running call, then its next in turn)",
	   pos, FAIR_WORKERS + 1);
	ok(started == FAIR_HOG + 1, "every call ran once (%u)", started);
	rpc_workers_stop(w);
}

/* ---- parking ---------------------------------------------------------- */

static atomic_int park_runs, park_done;
static atomic_int runs_of[4];
static struct rpc_req *parked_req;

/*
 * xids 1 and 2 park on their first run. xid 1 is resumed at once, from
 * inside the handler (the answer came before the handler returned);
 * xid 2 is left for the test to resume. xid 3 never parks.
 */
static enum rpc_accept_stat proc_park(struct rpc_req *req)
{
	uint32_t x = req->call.xid & 3;

	atomic_fetch_add(&park_runs, 1);
	if (x != 3 && atomic_fetch_add(&runs_of[x], 1) == 0) {
		rpc_workers_park(req);
		if (x == 1)
			rpc_workers_resume(req);
		else
			parked_req = req;
		return RPC_SYSTEM_ERR;	/* discarded */
	}
	return RPC_SUCCESS;
}

static const struct rpc_proc park_proc =
	RPC_PROC("PARK", proc_park, RPC_PROC_BLOCKING, 0);

static void park_finished(struct rpc_req *req)
{
	/* The reply of the second run: accepted, SUCCESS. */
	if (xdr_enc_len(&req->enc) >= 24 && req->enc.start[23] == 0)
		atomic_fetch_add(&park_done, 1);
	rpc_req_release(req);
	free(req);
}

/* Until *@v reaches @want, polling, for at most 10 s: a bound for a
 * stalled pool, not a timing the test relies on. */
static bool wait_for(atomic_int *v, int want)
{
	struct timespec ts = { 0, 10 * 1000000L };
	int i;

	for (i = 0; i < 1000 && atomic_load(v) < want; i++)
		nanosleep(&ts, NULL);
	return atomic_load(v) == want;
}

static void test_park_resume(void)
{
	struct rpc_workers *w = rpc_workers_start(1, NULL, park_finished);
	struct rpc_req *req;
	bool done;

	if (!w) {
		ok(0, "pool started");
		return;
	}
	req = gated_req(3, 1);
	req->proc = &park_proc;
	rpc_workers_submit(w, req);
	done = wait_for(&park_done, 1);
	ok(done && atomic_load(&park_runs) == 2,
	   "a call resumed before its handler returned runs again on its worker, answered once (%d runs)",
	   atomic_load(&park_runs));

	req = gated_req(3, 2);
	req->proc = &park_proc;
	rpc_workers_submit(w, req);
	ok(wait_for(&park_runs, 3) && atomic_load(&park_done) == 1,
	   "a parked call is not answered while parked");
	req = gated_req(4, 3);
	req->proc = &park_proc;
	rpc_workers_submit(w, req);
	ok(wait_for(&park_done, 2), "the only worker serves another call meanwhile");
	rpc_workers_resume(parked_req);
	done = wait_for(&park_done, 3);
	ok(done && atomic_load(&park_runs) == 5,
	   "once resumed, the parked call runs again and is answered (%d runs)",
	   atomic_load(&park_runs));
	rpc_workers_stop(w);
}

int main(void)
{
	struct rpc_registry reg = { 0 };
	struct rpc_server_config cfg;
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	struct rpc_server *srv;
	struct rpc_drc *drc;
	int lfd;

	rpc_registry_add(&reg, &test_program);
	drc = rpc_drc_create(1u << 20);
	rpc_server_config_defaults(&cfg);
	cfg.threads = 2;
	cfg.workers = 8;
	srv = rpc_server_create(&cfg, &reg, drc);
	lfd = rpc_listen_tcp("127.0.0.1", 0);
	if (!srv || lfd < 0 || getsockname(lfd, (struct sockaddr *)&sin, &sl) < 0 ||
	    rpc_server_add_listener(srv, lfd) < 0 || rpc_server_start(srv) < 0) {
		ok(0, "server starts: %s", strerror(errno));
		return tap_done();
	}
	port = ntohs(sin.sin_port);

	test_loop_not_blocked();
	test_overtaking();
	test_close_while_busy();
	test_drc_blocking();
	test_stop_waits(srv);
	test_fair_between_connections();
	test_park_resume();

	rpc_server_destroy(srv);
	rpc_drc_destroy(drc);
	return tap_done();
}
