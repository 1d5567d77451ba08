// SPDX-License-Identifier: MIT
/*
 * TAP integration test of nfsxd's memory budgets (src/rpc/budget.c) and
 * connection limits.
 *
 * test_rpc_memory load PORT PID TOTAL EXPORT
 *   nfsxd runs with --max-total-bytes TOTAL and an export EXPORT holding
 *   a file "f" on a disk file system (so WRITE records are received
 *   whole, not spliced). 1000 idle connections: nfsxd's RSS is reported
 *   and must stay under 64 MiB. Then each of them sends half of a 1 MiB
 *   WRITE record, and 50 more connections pipeline 1 MiB WRITEs without
 *   reading a reply. Meanwhile a well-behaved client's NULL and GETATTR
 *   must be answered within PROBE_MS, and nfsxd's RSS must stay under
 *   TOTAL plus FIXED_OVERHEAD. Once the half-record connections close,
 *   every WRITE the pipelining clients sent must be answered (no stall).
 *
 * test_rpc_memory drain PORT EXPORT
 *   nfsxd runs with --max-total-bytes 8 MiB: 200 connections each send
 *   the first 60 KiB of a 1 MiB WRITE, then the rest. The first bytes
 *   alone would fill the total with receive buffers, none of which could
 *   then grow into a pool buffer; the reserve kept for one (budget.c)
 *   lets the records complete one after another: every WRITE is taken
 *   and answered.
 *
 * test_rpc_memory limits PORT
 *   nfsxd runs with --idle-timeout 2 --max-conns-per-client 3: a fourth
 *   connection from 127.0.0.1 is closed at once, a slot freed is usable
 *   again, a quiet connection (with or without half a record) is closed
 *   within the timeout and a margin, a chatty one is not.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bulk_wire.h"
#include "tap.h"

#define IDLE_CONNS 1000
#define PIPELINERS 50
#define PROBE_MS 2000           /* a well-behaved call is answered within */
#define LOAD_MS 6000            /* hostile load, probes meanwhile */
#define IDLE_RSS_GOAL (64u << 20)
/*
 * What nfsxd holds besides the budget (docs/architecture.md, "Memory
 * budgets"): its baseline, the pool buffers kept for reuse (2 x (loops +
 * workers) of 1.06 MiB: 21 MiB with 2 loops and 8 workers), each loop's
 * 64 free receive buffers (4 MiB a loop) and the connections themselves.
 */
#define FIXED_OVERHEAD (40u << 20)
#define NFSPROC_GETATTR 1
#define NFSPROC_READ 6

static const char *sanitized; /* why RSS is not checked, or NULL */
static int server_pid;  /* port, cred_uid and cred_gid are bulk_wire.c's */

static long rss_bytes(void)
{
	long kib = rpc_proc_rss_kib(server_pid);

	return kib < 0 ? -1 : kib * 1024;
}

static void raise_nofile(unsigned int want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < want) {
		rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static void getattr_msg(struct rpc_buf *out, uint32_t xid, const struct raw_fh *f)
{
	struct rpc_buf args;
	struct rpc_call c;

	rpc_buf_init(&args);
	rpc_buf_put_opaque(&args, f->d, f->len);
	rpc_call_init(&c, xid, PROG_NFS, 3, NFSPROC_GETATTR);
	c.args = args.data;
	c.args_len = args.len;
	rpc_call_encode(out, &c);
	rpc_buf_free(&args);
}

/* One call on @fd, its reply awaited up to PROBE_MS: the milliseconds it
 * took, or -1 when no matching reply came. */
static long long probe(int fd, const struct rpc_buf *msg, uint32_t xid)
{
	static struct rpc_buf in;
	struct rpc_reply r;
	long long t0 = rpc_now_ms();

	if (rpc_send_record(fd, msg->data, msg->len) < 0)
		return -1;
	if (rpc_recv_record(fd, &in, PROBE_MS, 1u << 20) != 1 ||
	    !rpc_parse_reply(in.data, in.len, &r) || r.xid != xid ||
	    r.accept_stat != RPC_SUCCESS)
		return -1;
	return rpc_now_ms() - t0;
}

/* A record to send piecewise without blocking. */
struct out {
	int fd;
	const uint8_t *p;
	size_t len, done;
};

/* Push what the socket takes now. Return values: false on an error. */
static bool push(struct out *o)
{
	while (o->done < o->len) {
		ssize_t n = send(o->fd, o->p + o->done, o->len - o->done,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK;
		o->done += (size_t)n;
	}
	return true;
}

/* Start the next WRITE of a pipeline: a fresh xid in its copy. */
static void next_write(struct out *o)
{
	uint32_t x = rpc_next_xid();
	uint8_t *p = (uint8_t *)o->p + 4;

	p[0] = (uint8_t)(x >> 24);
	p[1] = (uint8_t)(x >> 16);
	p[2] = (uint8_t)(x >> 8);
	p[3] = (uint8_t)x;
	o->done = 0;
}

static int load(int argc, char **argv)
{
	static struct out half[IDLE_CONNS], pipe_out[PIPELINERS];
	static unsigned int pipe_sent[PIPELINERS];
	static struct rpc_buf pipe_rec[PIPELINERS];
	struct rpc_buf rec, halfrec, nullm, gam;
	size_t total = argc > 4 ? strtoull(argv[4], NULL, 10) : 0;
	long rss0, rss_idle, rss_max = 0, rss;
	long long worst = 0, t, until;
	unsigned int i, probes = 0, answered = 0, left;
	uint8_t *data = calloc(1, MIB);
	struct raw_fh exp, f;
	uint32_t xnull, xga;
	int fd, good;
	bool sent_ok = true;

	if (argc < 6)
		return 2;
	server_pid = atoi(argv[3]);
	/* A sanitizer's shadow memory and quarantine are most of the RSS of
	 * such a build: the RSS bounds are checked in plain builds only. */
	if (getenv("NFSX_TEST_SANITIZED") && *getenv("NFSX_TEST_SANITIZED"))
		sanitized = "nfsxd built with a sanitizer: its RSS is mostly the sanitizer's";
	raise_nofile(IDLE_CONNS + PIPELINERS + 64);
	fd = connect_or_bail();
	if (raw_mnt(fd, argv[5], &exp) != 0 || raw_lookup(fd, &exp, "f", &f) != 0) {
		printf("Bail out! MNT %s / LOOKUP f failed\n", argv[5]);
		return 1;
	}

	/* ---- 1000 idle connections ------------------------------------ */
	rss0 = rss_bytes();
	for (i = 0; i < IDLE_CONNS; i++) {
		half[i].fd = rpc_connect(port, 5000);
		if (half[i].fd < 0) {
			printf("Bail out! connection %u: %s\n", i, strerror(errno));
			return 1;
		}
	}
	ok(in_step(fd), "1000 connections open: a NULL is answered");
	usleep(200000);
	rss_idle = rss_bytes();
	printf("# nfsxd RSS: %ld KiB before, %ld KiB with %u idle connections\n",
	       rss0 / 1024, rss_idle / 1024, IDLE_CONNS);
	if (sanitized)
		ok(1, "RSS with %u idle connections # SKIP %s", IDLE_CONNS, sanitized);
	else
		ok(rss_idle > 0 && rss_idle < (long)IDLE_RSS_GOAL,
		   "RSS with %u idle connections under 64 MiB (%ld KiB)", IDLE_CONNS,
		   rss_idle / 1024);

	/* ---- half records and pipelined WRITEs -------------------------- */
	rpc_buf_init(&rec);
	rpc_buf_init(&halfrec);
	write_msg(&rec, 1, &f, 0, MIB, UNSTABLE, data, MIB);
	rpc_buf_put_record(&halfrec, rec.data, rec.len);
	halfrec.len = 4 + rec.len / 2; /* marker: the whole record; half of it */
	for (i = 0; i < IDLE_CONNS; i++) {
		half[i].p = halfrec.data;
		half[i].len = halfrec.len;
	}
	for (i = 0; i < PIPELINERS; i++) {
		/* each its own copy: a new xid per WRITE (the DRC would drop
		 * a retransmission still in progress) */
		rpc_buf_init(&pipe_rec[i]);
		rpc_buf_put_record(&pipe_rec[i], rec.data, rec.len);
		pipe_out[i].fd = connect_or_bail();
		pipe_out[i].p = pipe_rec[i].data;
		pipe_out[i].len = pipe_rec[i].len;
		next_write(&pipe_out[i]);
	}
	rpc_buf_init(&nullm);
	rpc_buf_init(&gam);
	xnull = rpc_next_xid();
	null_msg(&nullm, xnull);
	xga = rpc_next_xid();
	getattr_msg(&gam, xga, &f);

	until = rpc_now_ms() + LOAD_MS;
	while ((t = rpc_now_ms()) < until) {
		long long a, b;

		for (i = 0; i < IDLE_CONNS; i++)
			sent_ok &= push(&half[i]);
		for (i = 0; i < PIPELINERS; i++) {
			sent_ok &= push(&pipe_out[i]);
			if (pipe_out[i].done == pipe_out[i].len) {
				pipe_sent[i]++;
				next_write(&pipe_out[i]);
				sent_ok &= push(&pipe_out[i]);
			}
		}
		a = probe(fd, &nullm, xnull);
		b = probe(fd, &gam, xga);
		probes++;
		if (a >= 0 && b >= 0)
			answered++;
		if (a > worst)
			worst = a;
		if (b > worst)
			worst = b;
		if (a < 0 || b < 0)
			worst = PROBE_MS;
		rss = rss_bytes();
		if (rss > rss_max)
			rss_max = rss;
		usleep(50000);
	}
	for (i = 0, left = 0; i < IDLE_CONNS; i++)
		left += half[i].done < half[i].len;
	printf("# %u of %u half records not taken by TCP yet (the server stopped reading)\n",
	       left, IDLE_CONNS);
	ok(sent_ok, "the hostile load was sent without errors");
	printf("# %u probes in %u ms\n", probes, LOAD_MS);
	printf("# nfsxd RSS under load: %ld KiB at most (total budget %zu KiB)\n",
	       rss_max / 1024, total / 1024);
	if (sanitized)
		ok(1, "RSS under the total budget # SKIP %s", sanitized);
	else
		ok(rss_max > 0 && rss_max < (long)(total + FIXED_OVERHEAD),
		   "RSS stays under the total budget plus %u MiB (%ld KiB)",
		   FIXED_OVERHEAD >> 20, rss_max / 1024);
	ok(answered == probes && worst < PROBE_MS,
	   "a well-behaved client: %u of %u NULL+GETATTR pairs answered, slowest %lld ms",
	   answered, probes, worst);
	ok(in_step(fd), "a fresh NULL after the load");

	/* ---- the half records go; the pipelines drain -------------------- */
	for (i = 0; i < IDLE_CONNS; i++)
		close(half[i].fd);
	good = 0;
	for (i = 0; i < PIPELINERS; i++) {
		struct rpc_buf in;
		unsigned int want = pipe_sent[i], got = 0;

		/* finish the record in progress, then every reply */
		if (pipe_out[i].done) {
			if (rpc_send_raw(pipe_out[i].fd, pipe_out[i].p + pipe_out[i].done,
					 pipe_out[i].len - pipe_out[i].done, 20000) == 0)
				want++;
		}
		rpc_buf_init(&in);
		while (got < want && rpc_recv_record(pipe_out[i].fd, &in, 20000, 1u << 20) == 1)
			got++;
		rpc_buf_free(&in);
		good += got == want;
		if (got != want)
			printf("# pipeline %u: %u of %u replies\n", i, got, want);
		close(pipe_out[i].fd);
		rpc_buf_free(&pipe_rec[i]);
	}
	printf("# pipelines drained in %lld ms\n", rpc_now_ms() - until);
	ok(good == PIPELINERS, "each pipelining client gets every reply once the half records are gone (%d of %d)",
	   good, PIPELINERS);
	ok(in_step(fd), "the server still answers");
	close(fd);
	rpc_buf_free(&rec);
	rpc_buf_free(&halfrec);
	rpc_buf_free(&nullm);
	rpc_buf_free(&gam);
	free(data);
	return tap_done();
}

#define DRAIN_CONNS 200

static int drain(char **argv)
{
	static struct out o[DRAIN_CONNS];
	static struct rpc_buf recs[DRAIN_CONNS];
	struct rpc_buf one, in;
	uint8_t *data = calloc(1, MIB);
	struct raw_fh exp, f;
	unsigned int i, done = 0, good = 0;
	long long until;
	int fd;

	raise_nofile(DRAIN_CONNS + 64);
	fd = connect_or_bail();
	if (raw_mnt(fd, argv[3], &exp) != 0 || raw_lookup(fd, &exp, "f", &f) != 0) {
		printf("Bail out! MNT %s / LOOKUP f failed\n", argv[3]);
		return 1;
	}
	rpc_buf_init(&one);
	write_msg(&one, 1, &f, 0, MIB, UNSTABLE, data, MIB);
	for (i = 0; i < DRAIN_CONNS; i++) {
		rpc_buf_init(&recs[i]);
		rpc_buf_put_record(&recs[i], one.data, one.len);
		o[i].fd = connect_or_bail();
		o[i].p = recs[i].data;
		o[i].len = recs[i].len;
		next_write(&o[i]);
	}
	/* First 60 KiB each: receive buffers fill the total before any
	 * record needs a pool buffer. Then the rest. */
	for (i = 0; i < DRAIN_CONNS; i++) {
		o[i].len = 60u << 10;
		push(&o[i]);
		o[i].len = recs[i].len;
	}
	usleep(500000);
	until = rpc_now_ms() + 30000;
	while (done < DRAIN_CONNS && rpc_now_ms() < until) {
		for (i = 0, done = 0; i < DRAIN_CONNS; i++) {
			push(&o[i]);
			done += o[i].done == o[i].len;
		}
		usleep(2000);
	}
	ok(done == DRAIN_CONNS, "200 1 MiB WRITEs, 60 KiB of each first, 8 MiB total: all taken (%u)", done);
	rpc_buf_init(&in);
	until = rpc_now_ms() + 20000;
	for (i = 0; i < DRAIN_CONNS; i++) {
		long long left = until - rpc_now_ms();
		struct rpc_reply r;

		if (left > 0 && rpc_recv_record(o[i].fd, &in, (int)left, 1u << 20) == 1 &&
		    rpc_parse_reply(in.data, in.len, &r) && r.accept_stat == RPC_SUCCESS)
			good++;
		close(o[i].fd);
		rpc_buf_free(&recs[i]);
	}
	ok(good == DRAIN_CONNS, "and all answered within 20 s (%u)", good);
	ok(in_step(fd), "the server still answers");
	close(fd);
	rpc_buf_free(&in);
	rpc_buf_free(&one);
	free(data);
	return tap_done();
}

/*
 * A connection that the server serves, within @ms: the server takes a
 * moment to count a closed connection out, so a refused one is retried.
 * Return values: the fd, or -1.
 */
static int connect_served(int ms)
{
	long long until = rpc_now_ms() + ms;

	do {
		int fd = connect_or_bail();

		if (in_step(fd))
			return fd;
		close(fd);
		usleep(50000);
	} while (rpc_now_ms() < until);
	return -1;
}

static void read_msg(struct rpc_buf *out, uint32_t xid, const struct raw_fh *f,
		     uint32_t count)
{
	struct rpc_buf args;
	struct rpc_call c;

	rpc_buf_init(&args);
	rpc_buf_put_opaque(&args, f->d, f->len);
	rpc_buf_put_u32(&args, 0);   /* offset */
	rpc_buf_put_u32(&args, 0);
	rpc_buf_put_u32(&args, count);
	rpc_call_init(&c, xid, PROG_NFS, 3, NFSPROC_READ);
	c.args = args.data;
	c.args_len = args.len;
	rpc_call_encode(out, &c);
	rpc_buf_free(&args);
}

/*
 * A peer that sends calls and never reads their replies: once the socket
 * buffers are full the server holds its replies, and the connection is
 * closed when none of them has left for the idle timeout (its slot of
 * --max-conns-per-client comes free, while two chatty connections keep
 * theirs).
 */
static void deaf(const char *exp_dir)
{
	struct raw_fh exp, big;
	struct rpc_buf m;
	int fd = connect_or_bail(), c1, c2, extra = -1, i;
	long long until;
	bool chat_ok = true;

	if (raw_mnt(fd, exp_dir, &exp) != 0 || raw_lookup(fd, &exp, "big", &big) != 0) {
		ok(0, "MNT and LOOKUP of exp/big");
		close(fd);
		return;
	}
	/* 24 MiB of replies: more than the kernel buffers on both sides. */
	rpc_buf_init(&m);
	for (i = 0; i < 24; i++) {
		rpc_buf_reset(&m);
		read_msg(&m, rpc_next_xid(), &big, 1u << 20);
		rpc_send_record(fd, m.data, m.len);
	}
	rpc_buf_free(&m);
	c1 = connect_served(5000);
	c2 = connect_served(5000);
	ok(c1 >= 0 && c2 >= 0, "two more connections beside one that does not read");
	until = rpc_now_ms() + 15000;
	while (extra < 0 && rpc_now_ms() < until) {
		chat_ok &= in_step(c1) && in_step(c2);
		extra = connect_or_bail();
		if (!in_step(extra)) {
			close(extra);
			extra = -1;
			usleep(300000);
		}
	}
	ok(chat_ok, "the chatty two stay served");
	ok(extra >= 0, "the connection that does not read its replies is closed (its slot "
		       "is free within 15 s, idle timeout 2 s)");
	close(fd);
	close(c1);
	close(c2);
	if (extra >= 0)
		close(extra);
}

static int limits(const char *exp_dir)
{
	int fds[4], fd5, quiet, halfc, chatty, i;
	struct rpc_buf m;
	long long until;
	bool chat_ok = true;

	for (i = 0; i < 3; i++)
		fds[i] = connect_served(5000);
	ok(fds[0] >= 0 && fds[1] >= 0 && fds[2] >= 0, "three connections from 127.0.0.1 served");
	fds[3] = connect_or_bail();
	ok(rpc_peer_closed(fds[3], 2000), "a fourth is closed (--max-conns-per-client 3)");
	close(fds[3]);
	ok(in_step(fds[0]), "the first three are still served");
	close(fds[2]);
	fd5 = connect_served(5000);
	ok(fd5 >= 0, "a slot given back is usable again");
	close(fds[0]);
	close(fds[1]);
	close(fd5);

	/* idle timeout 2 s: checked once a second */
	quiet = connect_served(5000);
	halfc = connect_served(5000);
	chatty = connect_served(5000);
	ok(quiet >= 0 && halfc >= 0 && chatty >= 0, "a connection makes one call, then goes quiet");
	rpc_buf_init(&m);
	rpc_buf_put_u32(&m, RM_LAST | 1000);
	rpc_buf_put_u32(&m, 1);
	rpc_send_raw(halfc, m.data, m.len, 1000);
	until = rpc_now_ms() + 4500;
	while (rpc_now_ms() < until) {
		chat_ok &= in_step(chatty);
		usleep(300000);
	}
	ok(chat_ok && in_step(chatty), "a connection with a call every 300 ms stays open for 4.5 s");
	ok(rpc_peer_closed(quiet, 1000), "the quiet one is closed by then");
	ok(rpc_peer_closed(halfc, 1000), "so is one quiet in the middle of a record");
	close(quiet);
	close(halfc);
	close(chatty);
	rpc_buf_free(&m);
	deaf(exp_dir);
	return tap_done();
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc < 3) {
		fprintf(stderr, "usage: test_rpc_memory load PORT PID TOTAL EXPORT | drain PORT EXPORT | limits PORT EXPORT\n");
		return 2;
	}
	port = (uint16_t)atoi(argv[2]);
	if (!strcmp(argv[1], "load"))
		return load(argc, argv);
	if (!strcmp(argv[1], "drain") && argc > 3)
		return drain(argv);
	return limits(argc > 3 ? argv[3] : "");
}
