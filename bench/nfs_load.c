/*
 * nfs-load - NFS read/write load generator on libnfs's async API.
 *
 * One thread per connection (own nfs_context, own TCP connection); each
 * keeps --iodepth READ/WRITE calls in flight on one pre-created file.
 * Prints a single line:
 *   RESULT iops=N mibps=N p50_us=N p99_us=N errors=N ops=N reads=N writes=N all_ops=N
 * (all_ops also counts the warmup and the calls completed after the end).
 *
 * usage: nfs-load --url 'nfs://127.0.0.1/EXPORT?nfsport=P&mountport=P&version=3'
 *                 --file NAME --size BYTES [--rw randread|randrw|read|write]
 *                 [--bs BYTES] [--iodepth D] [--conns C] [--rwmixread PCT]
 *                 [--seconds S] [--warmup S]
 * Sizes accept k/m/g suffixes (powers of 1024).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nfsc/libnfs.h>

#define HIST_US 1000000 /* 1 us buckets up to 1 s, then one overflow bucket */

enum rw_mode { RW_RANDREAD, RW_RANDRW, RW_READ, RW_WRITE };

static const char *opt_url;
static const char *opt_file;
static uint64_t opt_size;
static enum rw_mode opt_rw = RW_RANDREAD;
static uint64_t opt_bs = 4096;
static int opt_depth = 16;
static int opt_conns = 1;
static int opt_mixread = 70;
static double opt_seconds = 10;
static double opt_warmup = 1;

static uint64_t t_measure_start, t_measure_end; /* ns, CLOCK_MONOTONIC */

struct worker;

struct slot {
	struct worker *w;
	uint64_t t_issue;
	int is_write;
};

struct worker {
	int idx;
	pthread_t tid;
	struct nfs_context *nfs;
	struct nfsfh *fh;
	struct slot *slots;
	char *wbuf;
	uint64_t rng;
	uint64_t seq_off;
	int inflight;
	int stop_issuing;
	int fatal;
	/* results (measurement window only) */
	uint64_t ops, reads, writes, bytes, errors;
	uint64_t all_ops; /* completions incl. warmup and drain */
	uint32_t *hist; /* HIST_US + 1 buckets */
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

static uint64_t parse_size(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	switch (*end) {
	case 'k': case 'K': v *= 1024; break;
	case 'm': case 'M': v *= 1024 * 1024; break;
	case 'g': case 'G': v *= 1024.0 * 1024 * 1024; break;
	case '\0': break;
	default:
		fprintf(stderr, "nfs-load: bad size '%s'\n", s);
		exit(2);
	}
	return (uint64_t)v;
}

static void issue(struct slot *sl);

static void io_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
	struct slot *sl = priv;
	struct worker *w = sl->w;
	uint64_t t = now_ns();

	(void)nfs;
	w->inflight--;
	w->all_ops++;
	if (t >= t_measure_start && t < t_measure_end) {
		if (err < 0) {
			w->errors++;
			if (w->errors <= 3)
				fprintf(stderr, "nfs-load: conn %d: %s: %s\n", w->idx,
				        sl->is_write ? "write" : "read",
				        data ? (const char *)data : "error");
		} else {
			uint64_t us = (t - sl->t_issue) / 1000;
			w->hist[us < HIST_US ? us : HIST_US]++;
			w->ops++;
			w->bytes += (uint64_t)err;
			if (sl->is_write)
				w->writes++;
			else
				w->reads++;
		}
	} else if (err < 0 && t < t_measure_start) {
		fprintf(stderr, "nfs-load: conn %d (warmup): %s: %s\n", w->idx,
		        sl->is_write ? "write" : "read",
		        data ? (const char *)data : "error");
		w->fatal = 1;
	}
	if (t >= t_measure_end)
		w->stop_issuing = 1;
	if (!w->stop_issuing && !w->fatal)
		issue(sl);
}

static void issue(struct slot *sl)
{
	struct worker *w = sl->w;
	uint64_t nblocks = opt_size / opt_bs;
	uint64_t off;
	int is_write;
	int rc;

	switch (opt_rw) {
	case RW_RANDREAD:
		is_write = 0;
		off = (xorshift(&w->rng) % nblocks) * opt_bs;
		break;
	case RW_RANDRW:
		is_write = (int)(xorshift(&w->rng) % 100) >= opt_mixread;
		off = (xorshift(&w->rng) % nblocks) * opt_bs;
		break;
	default:
		is_write = opt_rw == RW_WRITE;
		off = w->seq_off;
		w->seq_off += opt_bs;
		if (w->seq_off + opt_bs > opt_size)
			w->seq_off = 0;
		break;
	}
	sl->is_write = is_write;
	sl->t_issue = now_ns();
	if (is_write)
		rc = nfs_pwrite_async(w->nfs, w->fh, off, opt_bs, w->wbuf, io_cb, sl);
	else
		rc = nfs_pread_async(w->nfs, w->fh, off, opt_bs, io_cb, sl);
	if (rc != 0) {
		fprintf(stderr, "nfs-load: conn %d: queueing failed: %s\n", w->idx,
		        nfs_get_error(w->nfs));
		w->fatal = 1;
		return;
	}
	w->inflight++;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < opt_depth; i++)
		issue(&w->slots[i]);
	while (w->inflight > 0) {
		struct pollfd pfd = {
			.fd = nfs_get_fd(w->nfs),
			.events = (short)nfs_which_events(w->nfs),
		};
		int n = poll(&pfd, 1, 100);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("poll");
			w->fatal = 1;
			break;
		}
		if (nfs_service(w->nfs, n > 0 ? pfd.revents : 0) < 0) {
			fprintf(stderr, "nfs-load: conn %d: nfs_service: %s\n", w->idx,
			        nfs_get_error(w->nfs));
			w->fatal = 1;
			break;
		}
		if (now_ns() >= t_measure_end + 30ull * 1000000000ull) {
			fprintf(stderr, "nfs-load: conn %d: %d calls still in flight 30 s after the end\n",
			        w->idx, w->inflight);
			w->fatal = 1;
			break;
		}
	}
	return NULL;
}

static int setup_worker(struct worker *w)
{
	struct nfs_url *url;

	w->nfs = nfs_init_context();
	if (!w->nfs) {
		fprintf(stderr, "nfs-load: nfs_init_context failed\n");
		return -1;
	}
	url = nfs_parse_url_dir(w->nfs, opt_url);
	if (!url) {
		fprintf(stderr, "nfs-load: bad url %s: %s\n", opt_url, nfs_get_error(w->nfs));
		return -1;
	}
	if (nfs_mount(w->nfs, url->server, url->path) != 0) {
		fprintf(stderr, "nfs-load: mount %s:%s failed: %s\n", url->server, url->path,
		        nfs_get_error(w->nfs));
		nfs_destroy_url(url);
		return -1;
	}
	nfs_destroy_url(url);
	char path[4096];
	snprintf(path, sizeof path, "%s%s", opt_file[0] == '/' ? "" : "/", opt_file);
	int flags = opt_rw == RW_RANDREAD || opt_rw == RW_READ ? O_RDONLY : O_RDWR;
	if (nfs_open(w->nfs, path, flags, &w->fh) != 0) {
		fprintf(stderr, "nfs-load: open %s failed: %s\n", path, nfs_get_error(w->nfs));
		return -1;
	}
	w->slots = calloc((size_t)opt_depth, sizeof *w->slots);
	w->hist = calloc(HIST_US + 1, sizeof *w->hist);
	w->wbuf = malloc(opt_bs);
	if (!w->slots || !w->hist || !w->wbuf) {
		fprintf(stderr, "nfs-load: out of memory\n");
		return -1;
	}
	for (uint64_t i = 0; i < opt_bs; i++)
		w->wbuf[i] = (char)(i * 131 + (uint64_t)w->idx);
	for (int i = 0; i < opt_depth; i++)
		w->slots[i].w = w;
	w->rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)(w->idx + 1) * 0xbf58476d1ce4e5b9ull) ^ now_ns();
	if (w->rng == 0)
		w->rng = 1;
	/* sequential modes: each connection streams its own part of the file */
	w->seq_off = (opt_size / (uint64_t)opt_conns) * (uint64_t)w->idx / opt_bs * opt_bs;
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
	        "usage: nfs-load --url 'nfs://HOST/EXPORT?nfsport=P&mountport=P&version=3'\n"
	        "                --file NAME --size BYTES [--rw randread|randrw|read|write]\n"
	        "                [--bs BYTES] [--iodepth D] [--conns C] [--rwmixread PCT]\n"
	        "                [--seconds S] [--warmup S]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"url", required_argument, NULL, 'u'},
		{"file", required_argument, NULL, 'f'},
		{"size", required_argument, NULL, 'S'},
		{"rw", required_argument, NULL, 'r'},
		{"bs", required_argument, NULL, 'b'},
		{"iodepth", required_argument, NULL, 'd'},
		{"conns", required_argument, NULL, 'c'},
		{"rwmixread", required_argument, NULL, 'm'},
		{"seconds", required_argument, NULL, 's'},
		{"warmup", required_argument, NULL, 'w'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'u': opt_url = optarg; break;
		case 'f': opt_file = optarg; break;
		case 'S': opt_size = parse_size(optarg); break;
		case 'r':
			if (!strcmp(optarg, "randread")) opt_rw = RW_RANDREAD;
			else if (!strcmp(optarg, "randrw")) opt_rw = RW_RANDRW;
			else if (!strcmp(optarg, "read")) opt_rw = RW_READ;
			else if (!strcmp(optarg, "write")) opt_rw = RW_WRITE;
			else usage();
			break;
		case 'b': opt_bs = parse_size(optarg); break;
		case 'd': opt_depth = atoi(optarg); break;
		case 'c': opt_conns = atoi(optarg); break;
		case 'm': opt_mixread = atoi(optarg); break;
		case 's': opt_seconds = atof(optarg); break;
		case 'w': opt_warmup = atof(optarg); break;
		default: usage();
		}
	}
	if (!opt_url || !opt_file || opt_size == 0 || opt_bs == 0 || opt_size < opt_bs ||
	    opt_depth < 1 || opt_conns < 1 || opt_seconds <= 0 || opt_warmup < 0 ||
	    opt_mixread < 0 || opt_mixread > 100)
		usage();

	struct worker *ws = calloc((size_t)opt_conns, sizeof *ws);
	if (!ws)
		return 1;
	for (int i = 0; i < opt_conns; i++) {
		ws[i].idx = i;
		if (setup_worker(&ws[i]) != 0)
			return 1;
	}

	uint64_t t0 = now_ns();
	t_measure_start = t0 + (uint64_t)(opt_warmup * 1e9);
	t_measure_end = t_measure_start + (uint64_t)(opt_seconds * 1e9);
	for (int i = 0; i < opt_conns; i++)
		if (pthread_create(&ws[i].tid, NULL, worker_main, &ws[i]) != 0) {
			fprintf(stderr, "nfs-load: pthread_create failed\n");
			return 1;
		}
	uint64_t all_ops = 0, ops = 0, reads = 0, writes = 0, bytes = 0, errors = 0;
	int fatal = 0;
	uint32_t *hist = calloc(HIST_US + 1, sizeof *hist);
	if (!hist)
		return 1;
	for (int i = 0; i < opt_conns; i++) {
		pthread_join(ws[i].tid, NULL);
		ops += ws[i].ops;
		all_ops += ws[i].all_ops;
		reads += ws[i].reads;
		writes += ws[i].writes;
		bytes += ws[i].bytes;
		errors += ws[i].errors;
		fatal |= ws[i].fatal;
		for (size_t b = 0; b <= HIST_US; b++)
			hist[b] += ws[i].hist[b];
	}

	uint64_t p50 = 0, p99 = 0, acc = 0;
	int have50 = 0;
	for (size_t b = 0; b <= HIST_US && ops > 0; b++) {
		acc += hist[b];
		if (!have50 && acc * 100 >= ops * 50) {
			p50 = b;
			have50 = 1;
		}
		if (acc * 100 >= ops * 99) {
			p99 = b;
			break;
		}
	}
	double iops = (double)ops / opt_seconds;
	double mibps = (double)bytes / opt_seconds / (1024.0 * 1024.0);
	printf("RESULT iops=%.0f mibps=%.1f p50_us=%" PRIu64 " p99_us=%" PRIu64
	       " errors=%" PRIu64 " ops=%" PRIu64 " reads=%" PRIu64 " writes=%" PRIu64 " all_ops=%" PRIu64 "\n",
	       iops, mibps, p50, p99, errors + (uint64_t)fatal, ops, reads, writes, all_ops);
	fflush(stdout);

	for (int i = 0; i < opt_conns; i++) {
		if (ws[i].fh)
			nfs_close(ws[i].nfs, ws[i].fh);
		nfs_destroy_context(ws[i].nfs);
		free(ws[i].slots);
		free(ws[i].hist);
		free(ws[i].wbuf);
	}
	free(ws);
	free(hist);
	return fatal ? 1 : 0;
}
