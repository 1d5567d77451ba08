/*
 * fairness.c - rpc-fairness: does one greedy connection starve another?
 *
 * A "victim" connection makes ONC RPC NULL calls one at a time (depth 1)
 * and records each call's latency: first with the server otherwise idle,
 * then while a "hog" connection keeps (by default) 1024 NULL calls in
 * flight, refilling as replies arrive.  The figure of merit is
 * p99(with hog) / p99(alone).
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
};

/* ---- hog --------------------------------------------------------------- */

struct hog {
	pthread_t tid;
	struct bu_pipe p;
	struct bu_stats st;
	atomic_bool stop;
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
	bu_pipe_fill(&h->p, bu_now_ns());
	if (bu_pipe_flush(&h->p) < 0)
		goto dead;
	atomic_store(&h->inflight, bu_pipe_inflight(&h->p));

	while (!atomic_load_explicit(&h->stop, memory_order_relaxed)) {
		struct pollfd pfd = {
			.fd = h->p.fd,
			.events = (short)(POLLIN | (bu_pipe_pending(&h->p) ? POLLOUT : 0)),
		};

		r = poll(&pfd, 1, 50);
		if (r < 0 && errno != EINTR)
			goto dead;
		if (r <= 0)
			continue;
		if (pfd.revents & (POLLIN | POLLERR | POLLHUP)) {
			long n = bu_pipe_read(&h->p, &h->st, 0, UINT64_MAX);

			if (n < 0)
				goto dead;
			if (n > 0)
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

/* One NULL call, waiting for its reply.  Returns latency in ns, 0 on failure. */
static uint64_t victim_call(struct victim *v)
{
	uint8_t call[BU_CALL_LEN];
	uint64_t t0, t1;
	uint32_t xid = ++v->xid;

	bu_encode_null_call(call, xid, BU_NFS_PROG, BU_NFS_VERS);
	t0 = bu_now_ns();
	if (bu_write_all(v->fd, call, sizeof(call)) < 0) {
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
 * Warm up, then time `calls` calls (or stop after max_seconds).  If hog is
 * non-NULL, sample its in-flight count before every timed call.
 * Returns 0 on success.
 */
static int victim_phase(struct victim *v, const struct opts *o, struct bu_hist *h,
			struct hog *hog, struct hog_sample *hs)
{
	uint64_t deadline;

	for (unsigned i = 0; i < o->warmup_calls; i++)
		if (victim_call(v) == 0)
			return -1;
	deadline = bu_now_ns() + (uint64_t)(o->max_seconds * 1e9);
	for (unsigned i = 0; i < o->calls; i++) {
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
		if ((i & 63) == 0 && bu_now_ns() > deadline) {
			fprintf(stderr, "rpc-fairness: phase capped at %.1f s after %u calls\n",
				o->max_seconds, i + 1);
			break;
		}
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

static int one_run(const struct opts *o, unsigned run, struct run_result *res)
{
	struct bu_hist *alone = calloc(1, sizeof(*alone));
	struct bu_hist *with = calloc(1, sizeof(*with));
	struct hog *hog = calloc(1, sizeof(*hog));
	struct victim v = { .fd = -1, .xid = run << 24 };
	struct hog_sample hs = { 0 };
	struct timeval tv = { .tv_sec = 5 };
	uint64_t r0, r1, t0, t1;
	int hog_fd = -1, rc = -1, e;
	bool hog_started = false;

	if (!alone || !with || !hog)
		goto out;
	v.fd = bu_connect(o->host, o->port, o->connect_timeout);
	if (v.fd < 0)
		goto out;
	setsockopt(v.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	/* 1. victim alone */
	if (victim_phase(&v, o, alone, NULL, NULL) < 0)
		goto out;

	/* 2. start the hog and let it reach its steady state */
	hog_fd = bu_connect(o->host, o->port, o->connect_timeout);
	if (hog_fd < 0 || bu_pipe_init(&hog->p, hog_fd, o->hog_depth, run * 0x9e3779b9u) < 0)
		goto out;
	hog->cpu = o->hog_cpu;
	hog->nice = o->hog_nice;
	e = pthread_create(&hog->tid, NULL, hog_thread, hog);
	if (e) {
		fprintf(stderr, "pthread_create: %s\n", strerror(e));
		goto out;
	}
	hog_started = true;
	sleep_s(o->ramp);
	if (atomic_load(&hog->dead) || atomic_load(&hog->replies) == 0) {
		fprintf(stderr, "rpc-fairness: hog got no replies during %.1f s ramp-up\n",
			o->ramp);
		goto out;
	}

	/* 3. victim with the hog running */
	r0 = atomic_load(&hog->replies);
	t0 = bu_now_ns();
	if (victim_phase(&v, o, with, hog, &hs) < 0)
		goto out;
	r1 = atomic_load(&hog->replies);
	t1 = bu_now_ns();
	if (atomic_load(&hog->dead))
		goto out;

	res->alone_p50 = bu_hist_quantile_us(alone, 0.50);
	res->alone_p99 = bu_hist_quantile_us(alone, 0.99);
	res->with_p50 = bu_hist_quantile_us(with, 0.50);
	res->with_p99 = bu_hist_quantile_us(with, 0.99);
	res->hog_rate = (double)(r1 - r0) / ((double)(t1 - t0) / 1e9);
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

/* ---- main -------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rpc-fairness --port P [--host 127.0.0.1] [--calls N] [--runs R]\n"
		"                    [--hog-depth D] [--ramp S] [--warmup-calls N] [--hog-cpu N]\n"
		"                    [--hog-nice N] [--max-seconds S] [--connect-timeout S]\n"
		"\n"
		"Times N (default 3000) NULL calls made one at a time on a victim connection,\n"
		"first alone and then while a hog connection keeps D (default 1024) NULL calls\n"
		"in flight (after S seconds of ramp-up, default 0.5).  Repeats R times (default\n"
		"3) and prints p50/p99 alone and with the hog, the hog's calls/s and\n"
		"p99(with hog)/p99(alone), with medians over the runs.  Goal: ratio <= 3.\n"
		"--hog-cpu pins the hog's thread to a CPU, --hog-nice sets its nice value\n"
		"(1 to 19), so that it takes less CPU from the victim's thread, as if the\n"
		"hog ran on another machine.\n");
}

int main(int argc, char **argv)
{
	enum { OPT_WARMUP = 256, OPT_MAXSEC, OPT_CTIMEOUT, OPT_HOGDEPTH, OPT_RAMP, OPT_HOGCPU,
	       OPT_HOGNICE };
	static const struct option longopts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "host", required_argument, NULL, 'H' },
		{ "calls", required_argument, NULL, 'n' },
		{ "runs", required_argument, NULL, 'r' },
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
		.max_seconds = 30.0,
		.connect_timeout = 5.0,
		.hog_cpu = -1,
	};
	struct run_result *res;
	double *col;
	double med[7];
	unsigned ok = 0;
	uint64_t errors = 0;
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
	if (optind != argc || o.port < 0) {
		usage(stderr);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);

	res = calloc(o.runs, sizeof(*res));
	col = calloc(o.runs, sizeof(*col));
	if (!res || !col)
		return 2;

	printf("rpc-fairness: %s:%d, victim %u NULL calls at depth 1 (after %u warmup), "
	       "hog %u in flight, %u run(s)\n",
	       o.host, o.port, o.calls, o.warmup_calls, o.hog_depth, o.runs);
	printf("%4s  %21s  %21s  %12s  %21s  %9s\n", "run", "alone p50/p99 us",
	       "with hog p50/p99 us", "hog calls/s", "hog in flight mean/min", "p99 ratio");
	fflush(stdout);
	for (unsigned i = 0; i < o.runs; i++) {
		struct run_result r = { 0 };

		if (one_run(&o, i, &r) < 0) {
			printf("%4u  failed\n", i + 1);
			fflush(stdout);
			errors += r.errors;
			continue;
		}
		errors += r.errors;
		res[ok++] = r;
		printf("%4u  %10.1f / %8.1f  %10.1f / %8.1f  %12.0f  %12.1f / %6u  %9.2f\n",
		       i + 1, r.alone_p50, r.alone_p99, r.with_p50, r.with_p99, r.hog_rate,
		       r.hog_inflight_mean, r.hog_inflight_min, r.ratio);
		fflush(stdout);
	}
	if (ok == 0) {
		printf("no successful run\n");
		return 1;
	}
	for (unsigned k = 0; k < 7; k++) {
		for (unsigned i = 0; i < ok; i++) {
			const struct run_result *r = &res[i];
			const double f[7] = { r->alone_p50, r->alone_p99, r->with_p50, r->with_p99,
					      r->hog_rate, r->hog_inflight_mean, r->ratio };

			col[i] = f[k];
		}
		med[k] = bu_median(col, ok);
	}
	printf("%4s  %10.1f / %8.1f  %10.1f / %8.1f  %12.0f  %12.1f %8s  %9.2f\n", "med",
	       med[0], med[1], med[2], med[3], med[4], med[5], "", med[6]);
	if (errors)
		printf("errors: %llu bad replies\n", (unsigned long long)errors);
	printf("goal: p99(with hog) / p99(alone) <= 3  ->  median ratio %.2f: %s\n", med[6],
	       med[6] <= 3.0 ? "met" : "NOT met");
	printf("RESULT alone_p50_us=%.1f alone_p99_us=%.1f with_p50_us=%.1f with_p99_us=%.1f "
	       "hog_calls_per_s=%.0f hog_inflight_mean=%.1f ratio=%.2f runs_ok=%u errors=%llu\n",
	       med[0], med[1], med[2], med[3], med[4], med[5], med[6], ok,
	       (unsigned long long)errors);
	free(res);
	free(col);
	return ok == o.runs ? 0 : 1;
}
