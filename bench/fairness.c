/*
 * fairness.c - rpc-fairness: does one greedy connection starve another?
 *
 * A "victim" connection makes calls one at a time (depth 1) and records
 * each call's latency, with the server otherwise idle ("alone") and while
 * a "hog" connection keeps (by default) 1024 calls in flight, refilling
 * as replies arrive ("with hog").  The figure of merit is
 * p99(with hog) / p99(alone).
 *
 * The two conditions are measured in short interleaved phases (alone,
 * with, alone, with, ...; the hog is paused and drained for the alone
 * phases), so that a change in the machine's load during a run, which
 * on a shared VM moves the victim's p99 alone from 16 to 230 us between
 * runs, falls on both conditions alike.  With --control-port every run
 * is repeated against a second server (the echo server, which has no
 * fair queueing), so its figure is printed beside the server's from the
 * same minutes: a setup where the control meets the goal too does not
 * tell a fair server from an unfair one.
 *
 * The calls are NULL (answered on nfsxd's event loops) or, with --proc
 * fsinfo, NFSv3 FSINFO of an export's root (a procedure nfsxd always runs
 * on its worker threads), to measure the fairness of the worker queue.
 *
 * The hog is a non-blocking socket driven by poll(): it always reads
 * replies while it has unsent calls, so it keeps its calls outstanding
 * even if the server stops reading its socket for a while (which a server
 * enforcing a per-connection limit is entitled to do).
 */
#include "benchutil.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

struct opts {
	const char *host;
	int port;
	unsigned calls;
	unsigned warmup_calls;
	unsigned hog_depth;
	unsigned runs;
	double ramp;
	double max_seconds;
	double connect_timeout;
	int hog_cpu;                /* -1: inherit the process's CPUs */
	int hog_nice;               /* the hog thread's nice value (0: as the process) */
	unsigned phases;            /* alone/with phase pairs per run */
	int control_port;           /* -1, or a second server run alike */
	const char *proc;           /* "null" or "fsinfo" */
	const char *export_path;    /* for fsinfo: MNT this path */
};

/* The call both connections send (xid patched per call). */
static uint8_t call_rec[512];
static size_t call_len;

/* ---- hog --------------------------------------------------------------- */

struct hog {
	pthread_t tid;
	struct bu_pipe p;
	struct bu_stats st;
	atomic_bool stop;
	atomic_bool paused;         /* no new calls; replies still read */
	atomic_bool dead;
	_Atomic uint64_t replies;   /* good replies so far */
	_Atomic unsigned inflight;  /* calls written, reply not yet seen */
	int cpu;                    /* -1 or the CPU the hog runs on */
	int nice;                   /* 0 or the hog thread's nice value */
};

static void *hog_thread(void *arg)
{
	struct hog *h = arg;
	int r;

	if (h->cpu >= 0) {
		/* The hog's client where a remote client's CPU would be. */
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(h->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}

	if (h->nice &&
	    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), h->nice) < 0)
		fprintf(stderr, "rpc-fairness: hog nice %d: %s\n", h->nice, strerror(errno));
	if (!atomic_load(&h->paused)) {
		bu_pipe_fill(&h->p, bu_now_ns());
		if (bu_pipe_flush(&h->p) < 0)
			goto dead;
	}
	atomic_store(&h->inflight, bu_pipe_inflight(&h->p));

	while (!atomic_load_explicit(&h->stop, memory_order_relaxed)) {
		struct pollfd pfd = {
			.fd = h->p.fd,
			.events = (short)(POLLIN | (bu_pipe_pending(&h->p) ? POLLOUT : 0)),
		};

		r = poll(&pfd, 1, 1);
		if (r < 0 && errno != EINTR)
			goto dead;
		if (r <= 0) {
			/* Unpaused with nothing in flight: start again. */
			if (!atomic_load_explicit(&h->paused, memory_order_relaxed) &&
			    bu_pipe_fill(&h->p, bu_now_ns()) &&
			    bu_pipe_flush(&h->p) < 0)
				goto dead;
			continue;
		}
		if (pfd.revents & (POLLIN | POLLERR | POLLHUP)) {
			long n = bu_pipe_read(&h->p, &h->st, 0, UINT64_MAX);

			if (n < 0)
				goto dead;
			if (n > 0 && !atomic_load_explicit(&h->paused,
							      memory_order_relaxed))
				bu_pipe_fill(&h->p, bu_now_ns());
		}
		if (bu_pipe_pending(&h->p) && bu_pipe_flush(&h->p) < 0)
			goto dead;
		atomic_store_explicit(&h->replies, h->st.calls, memory_order_relaxed);
		atomic_store_explicit(&h->inflight, bu_pipe_inflight(&h->p),
				      memory_order_relaxed);
	}
	return NULL;
dead:
	fprintf(stderr, "rpc-fairness: hog connection: %s\n",
		errno == 0 ? "closed by server" : strerror(errno));
	atomic_store(&h->dead, true);
	return NULL;
}

/* ---- victim ------------------------------------------------------------ */

struct victim {
	int fd;
	uint32_t xid;
	uint8_t buf[4096];
	size_t len;
	uint64_t errors;
};

/* One call, waiting for its reply.  Returns latency in ns, 0 on failure. */
static uint64_t victim_call(struct victim *v)
{
	uint8_t call[sizeof(call_rec)];
	uint64_t t0, t1;
	uint32_t xid = ++v->xid;

	memcpy(call, call_rec, call_len);
	call[4] = (uint8_t)(xid >> 24);
	call[5] = (uint8_t)(xid >> 16);
	call[6] = (uint8_t)(xid >> 8);
	call[7] = (uint8_t)xid;
	t0 = bu_now_ns();
	if (bu_write_all(v->fd, call, call_len) < 0) {
		fprintf(stderr, "rpc-fairness: victim send: %s\n", strerror(errno));
		return 0;
	}
	for (;;) {
		uint32_t rxid;
		enum bu_reply_status st;
		long used = bu_parse_reply(v->buf, v->len, &rxid, &st);
		ssize_t r;

		if (used < 0) {
			fprintf(stderr, "rpc-fairness: victim: bad record framing\n");
			return 0;
		}
		if (used > 0) {
			t1 = bu_now_ns();
			memmove(v->buf, v->buf + used, v->len - (size_t)used);
			v->len -= (size_t)used;
			if (rxid != xid) {
				v->errors++;
				continue; /* not ours: keep waiting for our reply */
			}
			if (st != BU_REPLY_OK)
				v->errors++;
			return t1 > t0 ? t1 - t0 : 1;
		}
		if (v->len == sizeof(v->buf)) {
			fprintf(stderr, "rpc-fairness: victim: oversized reply\n");
			return 0;
		}
		r = recv(v->fd, v->buf + v->len, sizeof(v->buf) - v->len, 0);
		if (r > 0) {
			v->len += (size_t)r;
		} else if (r == 0) {
			fprintf(stderr, "rpc-fairness: victim: connection closed by server\n");
			return 0;
		} else if (errno != EINTR) {
			fprintf(stderr, "rpc-fairness: victim recv: %s\n",
				errno == EAGAIN ? "no reply within 5 s" : strerror(errno));
			return 0;
		}
	}
}

struct hog_sample {
	uint64_t sum;
	unsigned min;
	uint64_t n;
};

/*
 * Warm up with @warmup calls, then time @calls calls (or stop once
 * @deadline, ns, has passed).  If hog is non-NULL, sample its in-flight
 * count before every timed call.  Returns 0 on success.
 */
static int victim_phase(struct victim *v, unsigned warmup, unsigned calls,
			uint64_t deadline, struct bu_hist *h, struct hog *hog,
			struct hog_sample *hs)
{
	for (unsigned i = 0; i < warmup; i++)
		if (victim_call(v) == 0)
			return -1;
	for (unsigned i = 0; i < calls; i++) {
		uint64_t lat;

		if (hog) {
			unsigned inf = atomic_load_explicit(&hog->inflight, memory_order_relaxed);

			hs->sum += inf;
			hs->min = hs->n == 0 || inf < hs->min ? inf : hs->min;
			hs->n++;
		}
		lat = victim_call(v);
		if (lat == 0)
			return -1;
		bu_hist_add(h, lat);
		if ((i & 63) == 0 && bu_now_ns() > deadline)
			return 1;
	}
	return 0;
}

/* ---- one run ----------------------------------------------------------- */

struct run_result {
	double alone_p50, alone_p99, with_p50, with_p99;
	double hog_rate, hog_inflight_mean, ratio;
	unsigned hog_inflight_min;
	uint64_t errors;
};

static void sleep_s(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s,
			       .tv_nsec = (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Pause the hog and wait until it has no call in flight (at most 5 s). */
static int hog_pause(struct hog *hog)
{
	uint64_t until = bu_now_ns() + 5000000000ull;

	atomic_store(&hog->paused, true);
	while (atomic_load(&hog->inflight) != 0 || bu_pipe_pending(&hog->p)) {
		if (atomic_load(&hog->dead) || bu_now_ns() > until) {
			fprintf(stderr, "rpc-fairness: the hog did not drain within 5 s\n");
			return -1;
		}
		sleep_s(0.0005);
	}
	return 0;
}

/*
 * Phases alone and with the hog alternate, @o->phases of each, each
 * @o->calls / @o->phases victim calls; a short ramp (a tenth of
 * o->ramp, at least 20 ms) lets the hog fill its pipe again before each
 * phase with it.
 */
static int one_run(const struct opts *o, int port, unsigned run, struct run_result *res)
{
	struct bu_hist *alone = calloc(1, sizeof(*alone));
	struct bu_hist *with = calloc(1, sizeof(*with));
	struct hog *hog = calloc(1, sizeof(*hog));
	struct victim v = { .fd = -1, .xid = run << 24 };
	struct hog_sample hs = { 0 };
	struct timeval tv = { .tv_sec = 5 };
	unsigned per = o->calls / o->phases ? o->calls / o->phases : 1;
	double ramp = o->ramp / 10 > 0.02 ? o->ramp / 10 : 0.02;
	uint64_t with_replies = 0, with_ns = 0, deadline;
	int hog_fd = -1, rc = -1, e;
	bool hog_started = false;

	if (!alone || !with || !hog)
		goto out;
	v.fd = bu_connect(o->host, port, o->connect_timeout);
	if (v.fd < 0)
		goto out;
	setsockopt(v.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	hog_fd = bu_connect(o->host, port, o->connect_timeout);
	if (hog_fd < 0 || bu_pipe_init(&hog->p, hog_fd, o->hog_depth, run * 0x9e3779b9u) < 0 ||
	    bu_pipe_set_call(&hog->p, call_rec, call_len) < 0)
		goto out;
	hog->cpu = o->hog_cpu;
	hog->nice = o->hog_nice;
	atomic_store(&hog->paused, true);
	e = pthread_create(&hog->tid, NULL, hog_thread, hog);
	if (e) {
		fprintf(stderr, "pthread_create: %s\n", strerror(e));
		goto out;
	}
	hog_started = true;

	/* Warm both connections up (the hog: one ramp, then drained). */
	if (victim_phase(&v, o->warmup_calls, 0, UINT64_MAX, alone, NULL, NULL) < 0)
		goto out;
	atomic_store(&hog->paused, false);
	sleep_s(o->ramp);
	if (atomic_load(&hog->dead) || atomic_load(&hog->replies) == 0) {
		fprintf(stderr, "rpc-fairness: hog got no replies during %.1f s ramp-up\n",
			o->ramp);
		goto out;
	}

	deadline = bu_now_ns() + (uint64_t)(o->max_seconds * 1e9);
	for (unsigned ph = 0; ph < o->phases; ph++) {
		uint64_t r0, t0;
		int r;

		if (hog_pause(hog) < 0)
			goto out;
		r = victim_phase(&v, 10, per, deadline, alone, NULL, NULL);
		if (r < 0)
			goto out;
		atomic_store(&hog->paused, false);
		sleep_s(ramp);
		r0 = atomic_load(&hog->replies);
		t0 = bu_now_ns();
		r = victim_phase(&v, 0, per, deadline, with, hog, &hs);
		if (r < 0 || atomic_load(&hog->dead))
			goto out;
		with_replies += atomic_load(&hog->replies) - r0;
		with_ns += bu_now_ns() - t0;
		if (r > 0) {
			fprintf(stderr, "rpc-fairness: run capped at %.1f s after %u phase pair(s)\n",
				o->max_seconds, ph + 1);
			break;
		}
	}

	res->alone_p50 = bu_hist_quantile_us(alone, 0.50);
	res->alone_p99 = bu_hist_quantile_us(alone, 0.99);
	res->with_p50 = bu_hist_quantile_us(with, 0.50);
	res->with_p99 = bu_hist_quantile_us(with, 0.99);
	res->hog_rate = with_ns ? (double)with_replies / ((double)with_ns / 1e9) : 0.0;
	res->hog_inflight_mean = hs.n ? (double)hs.sum / (double)hs.n : 0.0;
	res->hog_inflight_min = hs.min;
	res->ratio = res->alone_p99 > 0 ? res->with_p99 / res->alone_p99 : 0.0;
	rc = 0;
out:
	if (hog_started) {
		atomic_store(&hog->stop, true);
		pthread_join(hog->tid, NULL);
	}
	if (hog) {
		res->errors = v.errors + bu_stats_errors(&hog->st);
		if (bu_stats_errors(&hog->st))
			bu_stats_print_errors(&hog->st, "  hog ");
	}
	if (hog_fd >= 0) {
		close(hog_fd);
		bu_pipe_destroy(&hog->p);
	}
	if (v.fd >= 0)
		close(v.fd);
	free(alone);
	free(with);
	free(hog);
	return rc;
}

/* ---- the call ---------------------------------------------------------- */

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Call header with AUTH_NONE after a marker slot; returns its length. */
static size_t call_header(uint8_t *p, uint32_t prog, uint32_t vers, uint32_t proc)
{
	const uint32_t w[10] = { 0, 0, 2, prog, vers, proc, 0, 0, 0, 0 };

	for (unsigned i = 0; i < 10; i++)
		put32(p + 4 + 4 * i, w[i]);
	return 44;
}

/*
 * MNT @path on @port (MOUNT v3, AUTH_NONE) and build the FSINFO call of
 * the handle it gives.  Returns 0, or -1 after a message.
 */
static int make_fsinfo_call(const struct opts *o)
{
	uint8_t buf[1024];
	size_t n, plen = strlen(o->export_path), got = 0;
	uint32_t len, fhlen, off;
	int fd;

	if (plen > 1024 - 64) {
		fprintf(stderr, "rpc-fairness: export path too long\n");
		return -1;
	}
	n = call_header(buf, 100005, 3, 1);
	put32(buf + n, (uint32_t)plen);
	memset(buf + n + 4, 0, (plen + 3) & ~3u);
	memcpy(buf + n + 4, o->export_path, plen);
	n += 4 + ((plen + 3) & ~3u);
	put32(buf, 0x80000000u | (uint32_t)(n - 4));
	put32(buf + 4, 1);
	fd = bu_connect(o->host, o->port, o->connect_timeout);
	if (fd < 0)
		return -1;
	if (bu_write_all(fd, buf, n) < 0)
		goto bad;
	/* marker, xid, REPLY, ACCEPTED, verf (flavour, length 0), SUCCESS,
	 * mountstat3, fhandle3 */
	while (got < 4 || got < 4 + (get32(buf) & 0x7fffffffu)) {
		ssize_t r = recv(fd, buf + got, sizeof(buf) - got, 0);

		if (r <= 0 || (got += (size_t)r) == sizeof(buf))
			goto bad;
	}
	len = get32(buf) & 0x7fffffffu;
	off = 4 + 28;
	if (len < 32 || get32(buf + 12) != 0 || get32(buf + 20) != 0 ||
	    get32(buf + 24) != 0 || get32(buf + 28) != 0) {
		fprintf(stderr, "rpc-fairness: MNT %s refused (is it exported to 127.0.0.1, insecure?)\n",
			o->export_path);
		close(fd);
		return -1;
	}
	fhlen = get32(buf + off);
	if (fhlen == 0 || fhlen > 64 || off + 4 + fhlen > 4 + len)
		goto bad;
	close(fd);
	/* FSINFO3args: the root's handle. */
	n = call_header(call_rec, BU_NFS_PROG, BU_NFS_VERS, 19);
	put32(call_rec + n, fhlen);
	memset(call_rec + n + 4, 0, (fhlen + 3) & ~3u);
	memcpy(call_rec + n + 4, buf + off + 4, fhlen);
	n += 4 + ((fhlen + 3) & ~3u);
	put32(call_rec, 0x80000000u | (uint32_t)(n - 4));
	call_len = n;
	return 0;
bad:
	fprintf(stderr, "rpc-fairness: MNT %s: no usable reply\n", o->export_path);
	close(fd);
	return -1;
}

/* Median of field @k of @n results. */
static double med_of(const struct run_result *res, unsigned n, unsigned k, double *col)
{
	for (unsigned i = 0; i < n; i++) {
		const struct run_result *r = &res[i];
		const double f[7] = { r->alone_p50, r->alone_p99, r->with_p50, r->with_p99,
				      r->hog_rate, r->hog_inflight_mean, r->ratio };

		col[i] = f[k];
	}
	return bu_median(col, n);
}

static void print_row(const char *run, const char *who, const struct run_result *r)
{
	printf("%4s  %-7s  %10.1f / %8.1f  %10.1f / %8.1f  %12.0f  %12.1f / %6u  %9.2f\n",
	       run, who, r->alone_p50, r->alone_p99, r->with_p50, r->with_p99, r->hog_rate,
	       r->hog_inflight_mean, r->hog_inflight_min, r->ratio);
}

/* ---- main -------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rpc-fairness --port P [--host 127.0.0.1] [--calls N] [--runs R]\n"
		"                    [--phases K] [--control-port Q] [--proc null|fsinfo]\n"
		"                    [--export PATH] [--hog-depth D] [--ramp S] [--warmup-calls N]\n"
		"                    [--hog-cpu N] [--hog-nice N] [--max-seconds S]\n"
		"                    [--connect-timeout S]\n"
		"\n"
		"Times N (default 3000) calls made one at a time on a victim connection\n"
		"alone and N while a hog connection keeps D (default 1024) calls in flight,\n"
		"in K (default 10) interleaved phases of each (the hog drained for the\n"
		"phases alone).  Repeats R times (default 3) and prints p50/p99 alone and\n"
		"with the hog, the hog's calls/s and p99(with hog)/p99(alone), with medians\n"
		"over the runs.  Goal: ratio <= 3.  --control-port Q runs every run against\n"
		"the server on port Q too (e.g. the echo server) and prints its figures\n"
		"beside.  --proc fsinfo sends NFSv3 FSINFO of the root of --export PATH\n"
		"(MNT first) instead of NULL: nfsxd runs it on a worker thread.  --hog-cpu\n"
		"pins the hog's thread to a CPU, --hog-nice sets its nice value (1 to 19),\n"
		"so that it takes less CPU from the victim's thread, as if the hog ran on\n"
		"another machine.\n");
}

int main(int argc, char **argv)
{
	enum { OPT_WARMUP = 256, OPT_MAXSEC, OPT_CTIMEOUT, OPT_HOGDEPTH, OPT_RAMP, OPT_HOGCPU,
	       OPT_HOGNICE, OPT_PHASES, OPT_CONTROL, OPT_PROC, OPT_EXPORT };
	static const struct option longopts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "host", required_argument, NULL, 'H' },
		{ "calls", required_argument, NULL, 'n' },
		{ "runs", required_argument, NULL, 'r' },
		{ "phases", required_argument, NULL, OPT_PHASES },
		{ "control-port", required_argument, NULL, OPT_CONTROL },
		{ "proc", required_argument, NULL, OPT_PROC },
		{ "export", required_argument, NULL, OPT_EXPORT },
		{ "hog-depth", required_argument, NULL, OPT_HOGDEPTH },
		{ "ramp", required_argument, NULL, OPT_RAMP },
		{ "hog-cpu", required_argument, NULL, OPT_HOGCPU },
		{ "hog-nice", required_argument, NULL, OPT_HOGNICE },
		{ "warmup-calls", required_argument, NULL, OPT_WARMUP },
		{ "max-seconds", required_argument, NULL, OPT_MAXSEC },
		{ "connect-timeout", required_argument, NULL, OPT_CTIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = {
		.host = "127.0.0.1",
		.port = -1,
		.calls = 3000,
		.warmup_calls = 200,
		.hog_depth = 1024,
		.runs = 3,
		.ramp = 0.5,
		.max_seconds = 60.0,
		.connect_timeout = 5.0,
		.hog_cpu = -1,
		.phases = 10,
		.control_port = -1,
		.proc = "null",
	};
	struct run_result *res, *ctl;
	double *col;
	double med[7], cmed[7] = { 0 };
	unsigned ok = 0, cok = 0;
	uint64_t errors = 0;
	bool control;
	long v;
	int ch;

	while ((ch = getopt_long(argc, argv, "p:H:n:r:h", longopts, NULL)) != -1) {
		bool good = true;

		switch (ch) {
		case 'p':
			good = bu_parse_int(optarg, 1, 65535, &v);
			o.port = (int)v;
			break;
		case 'H':
			o.host = optarg;
			break;
		case 'n':
			good = bu_parse_int(optarg, 1, 100000000, &v);
			o.calls = (unsigned)v;
			break;
		case 'r':
			good = bu_parse_int(optarg, 1, 1000, &v);
			o.runs = (unsigned)v;
			break;
		case OPT_PHASES:
			good = bu_parse_int(optarg, 1, 10000, &v);
			o.phases = (unsigned)v;
			break;
		case OPT_CONTROL:
			good = bu_parse_int(optarg, 1, 65535, &v);
			o.control_port = (int)v;
			break;
		case OPT_PROC:
			o.proc = optarg;
			good = strcmp(optarg, "null") == 0 || strcmp(optarg, "fsinfo") == 0;
			break;
		case OPT_EXPORT:
			o.export_path = optarg;
			break;
		case OPT_HOGDEPTH:
			good = bu_parse_int(optarg, 1, 1 << 20, &v);
			o.hog_depth = (unsigned)v;
			break;
		case OPT_HOGCPU:
			good = bu_parse_int(optarg, 0, CPU_SETSIZE - 1, &v);
			o.hog_cpu = (int)v;
			break;
		case OPT_HOGNICE:
			good = bu_parse_int(optarg, 0, 19, &v);
			o.hog_nice = (int)v;
			break;
		case OPT_RAMP:
			good = bu_parse_double(optarg, &o.ramp);
			break;
		case OPT_WARMUP:
			good = bu_parse_int(optarg, 0, 100000000, &v);
			o.warmup_calls = (unsigned)v;
			break;
		case OPT_MAXSEC:
			good = bu_parse_double(optarg, &o.max_seconds) && o.max_seconds > 0;
			break;
		case OPT_CTIMEOUT:
			good = bu_parse_double(optarg, &o.connect_timeout);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
		if (!good) {
			fprintf(stderr, "rpc-fairness: bad value for option: '%s'\n", optarg);
			return 2;
		}
	}
	if (optind != argc || o.port < 0 ||
	    (strcmp(o.proc, "fsinfo") == 0 && !o.export_path)) {
		usage(stderr);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	control = o.control_port > 0;

	if (strcmp(o.proc, "fsinfo") == 0) {
		if (make_fsinfo_call(&o) < 0)
			return 1;
	} else {
		bu_encode_null_call(call_rec, 0, BU_NFS_PROG, BU_NFS_VERS);
		call_len = BU_CALL_LEN;
	}

	res = calloc(o.runs, sizeof(*res));
	ctl = calloc(o.runs, sizeof(*ctl));
	col = calloc(o.runs, sizeof(*col));
	if (!res || !ctl || !col)
		return 2;

	printf("rpc-fairness: %s:%d%s, victim %u %s calls at depth 1 alone and %u with the hog, "
	       "in %u interleaved phases of each, hog %u in flight, %u run(s)\n",
	       o.host, o.port, control ? " (control: the server on the control port)" : "",
	       o.calls, strcmp(o.proc, "null") ? "FSINFO" : "NULL", o.calls, o.phases,
	       o.hog_depth, o.runs);
	printf("%4s  %-7s  %21s  %21s  %12s  %21s  %9s\n", "run", "server", "alone p50/p99 us",
	       "with hog p50/p99 us", "hog calls/s", "hog in flight mean/min", "p99 ratio");
	fflush(stdout);
	for (unsigned i = 0; i < o.runs; i++) {
		struct run_result r = { 0 };
		char run[16];

		snprintf(run, sizeof(run), "%u", i + 1);
		if (one_run(&o, o.port, i, &r) < 0) {
			printf("%4s  %-7s  failed\n", run, "server");
		} else {
			res[ok++] = r;
			print_row(run, "server", &r);
		}
		errors += r.errors;
		fflush(stdout);
		if (!control)
			continue;
		memset(&r, 0, sizeof(r));
		if (one_run(&o, o.control_port, i, &r) < 0) {
			printf("%4s  %-7s  failed\n", run, "control");
		} else {
			ctl[cok++] = r;
			print_row(run, "control", &r);
		}
		errors += r.errors;
		fflush(stdout);
	}
	if (ok == 0) {
		printf("no successful run\n");
		return 1;
	}
	for (unsigned k = 0; k < 7; k++) {
		med[k] = med_of(res, ok, k, col);
		if (cok)
			cmed[k] = med_of(ctl, cok, k, col);
	}
	printf("%4s  %-7s  %10.1f / %8.1f  %10.1f / %8.1f  %12.0f  %12.1f %8s  %9.2f\n", "med",
	       "server", med[0], med[1], med[2], med[3], med[4], med[5], "", med[6]);
	if (cok)
		printf("%4s  %-7s  %10.1f / %8.1f  %10.1f / %8.1f  %12.0f  %12.1f %8s  %9.2f\n",
		       "med", "control", cmed[0], cmed[1], cmed[2], cmed[3], cmed[4], cmed[5], "",
		       cmed[6]);
	if (errors)
		printf("errors: %llu bad replies\n", (unsigned long long)errors);
	printf("goal: p99(with hog) / p99(alone) <= 3  ->  median ratio %.2f: %s", med[6],
	       med[6] <= 3.0 ? "met" : "NOT met");
	if (cok)
		printf("; control %.2f (%s)", cmed[6],
		       cmed[6] <= 3.0 ? "the control meets it too: this setup does not discriminate"
				      : "the control does not meet it");
	printf("\n");
	printf("RESULT alone_p50_us=%.1f alone_p99_us=%.1f with_p50_us=%.1f with_p99_us=%.1f "
	       "hog_calls_per_s=%.0f hog_inflight_mean=%.1f ratio=%.2f runs_ok=%u errors=%llu",
	       med[0], med[1], med[2], med[3], med[4], med[5], med[6], ok,
	       (unsigned long long)errors);
	if (cok)
		printf(" control_alone_p99_us=%.1f control_with_p99_us=%.1f control_ratio=%.2f "
		       "control_runs_ok=%u", cmed[1], cmed[3], cmed[6], cok);
	printf("\n");
	free(res);
	free(ctl);
	free(col);
	return ok == o.runs && (!control || cok == o.runs) ? 0 : 1;
}
