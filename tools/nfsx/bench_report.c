/* SPDX-License-Identifier: MIT */
/*
 * nfsx bench reports: the text report laid out like fio's (a block per
 * group, or per job with --verbose, then "Run status"), the per-operation
 * table as /proc/self/mountstats reports it (from the libnfsx statistics
 * of every job's context, merged with nfsx_stats_add), and the same
 * figures as JSON.
 */
#include "bench.h"
#include "bench_io4.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "json.h"

static const double pct_list[] = {
	1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99,
};
#define NPCT (sizeof(pct_list) / sizeof(pct_list[0]))

static void fmt_scaled(char *out, size_t n, double v, double base, const char *const *units)
{
	int u = 0;

	while (v >= base && units[u + 1]) {
		v /= base;
		u++;
	}
	if (v < 10 && u)
		snprintf(out, n, "%.2f%s", v, units[u]);
	else if (v < 100 && u)
		snprintf(out, n, "%.1f%s", v, units[u]);
	else
		snprintf(out, n, "%.0f%s", v, units[u]);
}

void fmt_bytes_iec(char *out, size_t n, double bytes)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", NULL };

	fmt_scaled(out, n, bytes, 1024, u);
}

void fmt_bytes_si(char *out, size_t n, double bytes)
{
	static const char *const u[] = { "B", "kB", "MB", "GB", "TB", "PB", NULL };

	fmt_scaled(out, n, bytes, 1000, u);
}

void fmt_count(char *out, size_t n, double v)
{
	static const char *const u[] = { "", "k", "M", "G", NULL };

	if (v < 10000)
		snprintf(out, n, "%.0f", v);
	else
		fmt_scaled(out, n, v, 1000, u);
}

void bench_ops_sub(struct nfsx_op_stats *dst, const struct nfsx_op_stats *a,
		   const struct nfsx_op_stats *b)
{
	dst->name = a->name ? a->name : b->name;
	dst->ops = a->ops - b->ops;
	dst->trans = a->trans - b->trans;
	dst->timeouts = a->timeouts - b->timeouts;
	dst->errors = a->errors - b->errors;
	dst->bytes_sent = a->bytes_sent - b->bytes_sent;
	dst->bytes_recv = a->bytes_recv - b->bytes_recv;
	dst->queue_ns = a->queue_ns - b->queue_ns;
	dst->rtt_ns = a->rtt_ns - b->rtt_ns;
	dst->exec_ns = a->exec_ns - b->exec_ns;
	for (unsigned i = 0; i < NFSX_HIST_BUCKETS; i++) {
		dst->hist_queue[i] = a->hist_queue[i] - b->hist_queue[i];
		dst->hist_rtt[i] = a->hist_rtt[i] - b->hist_rtt[i];
		dst->hist_exec[i] = a->hist_exec[i] - b->hist_exec[i];
	}
}

/* Figures of a job or of the group, computed once for both formats. */
struct figs {
	struct bench_dir rd, wr, sync;
	uint64_t run_min_ns, run_max_ns;
	uint64_t verify_blocks, verify_bad, errors;
	unsigned jobs;
};

static void figs_of_job(struct figs *g, const struct bench_job *j)
{
	memset(g, 0, sizeof(*g));
	g->rd = j->rd;
	g->wr = j->wr;
	g->sync = j->sync;
	g->run_min_ns = g->run_max_ns = j->t_end - j->t_measure;
	g->verify_blocks = j->verify_blocks;
	g->verify_bad = j->verify_bad;
	g->errors = j->err != 0;
	g->jobs = 1;
}

static void figs_of_group(struct figs *g, const struct bench_job *jobs, unsigned n)
{
	memset(g, 0, sizeof(*g));
	hist_init(&g->rd.clat);
	hist_init(&g->wr.clat);
	hist_init(&g->sync.clat);
	g->run_min_ns = UINT64_MAX;
	for (unsigned i = 0; i < n; i++) {
		const struct bench_job *j = &jobs[i];
		uint64_t run = j->t_end - j->t_measure;

		g->rd.ios += j->rd.ios;
		g->rd.bytes += j->rd.bytes;
		hist_merge(&g->rd.clat, &j->rd.clat);
		g->wr.ios += j->wr.ios;
		g->wr.bytes += j->wr.bytes;
		hist_merge(&g->wr.clat, &j->wr.clat);
		g->sync.ios += j->sync.ios;
		hist_merge(&g->sync.clat, &j->sync.clat);
		if (run < g->run_min_ns)
			g->run_min_ns = run;
		if (run > g->run_max_ns)
			g->run_max_ns = run;
		g->verify_blocks += j->verify_blocks;
		g->verify_bad += j->verify_bad;
		g->errors += j->err != 0;
	}
	if (!n)
		g->run_min_ns = 0;
	g->jobs = n;
}

static double per_sec(uint64_t v, uint64_t ns)
{
	return ns ? (double)v * 1e9 / (double)ns : 0.0;
}

/* The NFS version the jobs spoke: 3, or 4 (NFSv4.1); all speak one. */
static unsigned vers_of(const struct bench_job *jobs, unsigned n)
{
	return n && jobs[0].vers == 4 ? 4 : 3;
}

/* "NFSv3", "NFSv4.1" or "NFSv4.2": what the jobs spoke. */
static const char *vers_name(const struct bench_job *jobs, unsigned n)
{
	if (vers_of(jobs, n) != 4)
		return "NFSv3";
	return jobs[0].minor == 2 ? "NFSv4.2" : "NFSv4.1";
}

static uint64_t rp_holes(const struct bench_job *jobs, unsigned n)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < n; i++)
		sum += jobs[i].rp_hole_bytes;
	return sum;
}

static void ops_merge(struct nfsx_op_stats *sum, const struct bench_job *jobs, unsigned n)
{
	unsigned vers = vers_of(jobs, n);

	memset(sum, 0, sizeof(*sum) * BENCH_NPROCS);
	for (unsigned p = 0; p < BENCH_NPROCS; p++) {
		const struct nfsx_proc *d = bench_proc(vers, n && jobs[0].o->read_plus, p);

		for (unsigned i = 0; i < n; i++)
			nfsx_stats_add(&sum[p], &jobs[i].ops[p]);
		sum[p].name = d ? d->name : NULL;
	}
}

/* ------------------------------------------------------------------ */
/* Text                                                                 */

static void text_dir(FILE *f, const char *label, const struct bench_dir *d, uint64_t run_ns,
		     bool bytes)
{
	const struct hist *h = &d->clat;
	double div;
	const char *unit;
	char iops[32], bw[32], bws[32], io[32];

	if (!d->ios)
		return;
	fmt_count(iops, sizeof(iops), per_sec(d->ios, run_ns));
	if (bytes) {
		fmt_bytes_iec(bw, sizeof(bw), per_sec(d->bytes, run_ns));
		fmt_bytes_si(bws, sizeof(bws), per_sec(d->bytes, run_ns));
		fmt_bytes_iec(io, sizeof(io), (double)d->bytes);
		fprintf(f, "  %s: IOPS=%s, BW=%s/s (%s/s)(%s/%" PRIu64 "msec)\n", label, iops, bw, bws,
			io, run_ns / 1000000);
	} else {
		fprintf(f, "  %s: IOPS=%s (%" PRIu64 " calls/%" PRIu64 "msec)\n", label, iops, d->ios,
			run_ns / 1000000);
	}
	if (h->min >= 10000000) {
		div = 1e6;
		unit = "msec";
	} else {
		div = 1e3;
		unit = "usec";
	}
	fprintf(f, "    clat (%s): min=%.0f, max=%.0f, avg=%.2f, stdev=%.2f\n", unit,
		(double)h->min / div, (double)h->max / div, hist_mean(h) / div,
		hist_stddev(h) / div);
	fprintf(f, "    clat percentiles (%s):\n", unit);
	for (size_t i = 0; i < NPCT; i++) {
		fprintf(f, "%s%5.2fth=[%5.0f]%s", i % 4 ? " " : "     | ", pct_list[i],
			(double)hist_percentile(h, pct_list[i]) / div,
			i + 1 == NPCT ? "\n" : i % 4 == 3 ? ",\n" : ",");
	}
}

static void text_block(FILE *f, const struct bench_opts *o, const char *title,
		       const struct figs *g, const struct bench_job *j)
{
	fprintf(f, "%s: (groupid=0, jobs=%u): err=%2" PRIu64 ": rw=%s, bs=%" PRIu32 "B, iodepth=%u\n",
		title, g->jobs, g->errors, bench_rw_name(o->rw), o->bs, o->iodepth);
	text_dir(f, "read", &g->rd, g->run_max_ns, true);
	text_dir(f, "write", &g->wr, g->run_max_ns, true);
	text_dir(f, "sync (COMMIT)", &g->sync, g->run_max_ns, false);
	if (o->verify)
		fprintf(f, "  verify (crc32c): %" PRIu64 " blocks checked, %" PRIu64 " bad\n",
			g->verify_blocks, g->verify_bad);
	if (j && j->err)
		fprintf(f, "  error: %s\n", j->errmsg);
	if (!g->rd.ios && !g->wr.ios && !g->sync.ios)
		fprintf(f, "  (nothing measured%s)\n",
			o->ramp_ns && !g->errors ? ": the job ended within ramp_time" : "");
}

static void text_status(FILE *f, const char *label, const struct figs *g,
			const struct bench_job *jobs, unsigned n, bool rd)
{
	double lo = 1e300, hi = 0, agg;
	uint64_t bytes = rd ? g->rd.bytes : g->wr.bytes;
	char a[32], as[32], l[32], ls[32], h[32], hs[32], io[32], ios[32];

	if (!(rd ? g->rd.ios : g->wr.ios))
		return;
	for (unsigned i = 0; i < n; i++) {
		const struct bench_dir *d = rd ? &jobs[i].rd : &jobs[i].wr;
		double bw = per_sec(d->bytes, jobs[i].t_end - jobs[i].t_measure);

		if (bw < lo)
			lo = bw;
		if (bw > hi)
			hi = bw;
	}
	agg = per_sec(bytes, g->run_max_ns);
	fmt_bytes_iec(a, sizeof(a), agg);
	fmt_bytes_si(as, sizeof(as), agg);
	fmt_bytes_iec(l, sizeof(l), lo);
	fmt_bytes_si(ls, sizeof(ls), lo);
	fmt_bytes_iec(h, sizeof(h), hi);
	fmt_bytes_si(hs, sizeof(hs), hi);
	fmt_bytes_iec(io, sizeof(io), (double)bytes);
	fmt_bytes_si(ios, sizeof(ios), (double)bytes);
	fprintf(f, "  %5s: bw=%s/s (%s/s), %s/s-%s/s (%s/s-%s/s), io=%s (%s), run=%" PRIu64
		"-%" PRIu64 "msec\n", label, a, as, l, h, ls, hs, io, ios, g->run_min_ns / 1000000,
		g->run_max_ns / 1000000);
}

void bench_ops_table(FILE *f, const struct nfsx_op_stats *ops, unsigned nops)
{
	uint64_t total = 0;

	for (unsigned i = 0; i < nops; i++)
		total += ops[i].ops;
	fprintf(f, "%-12s %10s %6s %10s %8s %7s %12s %12s %9s %9s %9s %9s %9s\n", "op", "ops", "%ops",
		"trans", "timeouts", "errors", "bytes sent", "bytes recv", "sent/op", "recv/op",
		"queue ms", "rtt ms", "exec ms");
	for (unsigned i = 0; i < nops; i++) {
		const struct nfsx_op_stats *s = &ops[i];
		double n = (double)s->ops;

		if (!s->ops && !s->trans)
			continue;
		fprintf(f, "%-12s %10" PRIu64 " %5.1f%% %10" PRIu64 " %8" PRIu64 " %7" PRIu64
			" %12" PRIu64 " %12" PRIu64 " %9.0f %9.0f %9.3f %9.3f %9.3f\n",
			s->name ? s->name : "?", s->ops, total ? 100.0 * n / (double)total : 0.0,
			s->trans, s->timeouts, s->errors, s->bytes_sent, s->bytes_recv,
			n ? (double)s->bytes_sent / n : 0.0, n ? (double)s->bytes_recv / n : 0.0,
			n ? (double)s->queue_ns / n / 1e6 : 0.0, n ? (double)s->rtt_ns / n / 1e6 : 0.0,
			n ? (double)s->exec_ns / n / 1e6 : 0.0);
	}
}

void bench_report_text(FILE *f, const struct bench_opts *o, const struct bench_job *jobs,
		       unsigned n)
{
	struct figs g;
	struct nfsx_op_stats ops[BENCH_NPROCS];
	char title[96];

	if (o->verbose) {
		for (unsigned i = 0; i < n; i++) {
			figs_of_job(&g, &jobs[i]);
			snprintf(title, sizeof(title), "%s.%u", o->name, i);
			text_block(f, o, title, &g, &jobs[i]);
		}
		fputc('\n', f);
	}
	figs_of_group(&g, jobs, n);
	text_block(f, o, o->name, &g, NULL);
	if (!o->verbose)
		for (unsigned i = 0; i < n; i++)
			if (jobs[i].err)
				fprintf(f, "  error (job %u): %s\n", i, jobs[i].errmsg);
	fprintf(f, "\nRun status group 0 (all jobs):\n");
	text_status(f, "READ", &g, jobs, n, true);
	text_status(f, "WRITE", &g, jobs, n, false);
	if (o->read_plus)
		fprintf(f, "  READ_PLUS: %" PRIu64 " hole bytes received (all phases; holes read "
			"as zeros)\n", rp_holes(jobs, n));
	ops_merge(ops, jobs, n);
	fprintf(f, "\nNFS operations (%s, measured period, %u job%s; per-op statistics as in "
		"/proc/self/mountstats%s):\n", vers_name(jobs, n), n,
		n == 1 ? "" : "s",
		vers_of(jobs, n) == 4 ? ", each COMPOUND under its operation" : "");
	bench_ops_table(f, ops, BENCH_NPROCS);
}

/* ------------------------------------------------------------------ */
/* JSON                                                                 */

static void json_hist(struct json_w *w, const char *key, const struct hist *h)
{
	char k[32];

	json_obj(w, key);
	json_u64(w, "min", h->count ? h->min : 0);
	json_u64(w, "max", h->max);
	json_dbl(w, "mean", hist_mean(h));
	json_dbl(w, "stddev", hist_stddev(h));
	json_u64(w, "N", h->count);
	json_obj(w, "percentile");
	for (size_t i = 0; i < NPCT; i++) {
		snprintf(k, sizeof(k), "%f", pct_list[i]);
		json_u64(w, k, hist_percentile(h, pct_list[i]));
	}
	json_end(w);
	json_end(w);
}

static void json_dir(struct json_w *w, const char *key, const struct bench_dir *d,
		     uint64_t run_ns)
{
	json_obj(w, key);
	json_u64(w, "io_bytes", d->bytes);
	json_u64(w, "io_kbytes", d->bytes / 1024);
	json_dbl(w, "bw_bytes", per_sec(d->bytes, run_ns));
	json_dbl(w, "bw", per_sec(d->bytes, run_ns) / 1024);
	json_dbl(w, "iops", per_sec(d->ios, run_ns));
	json_u64(w, "runtime", run_ns / 1000000);
	json_u64(w, "total_ios", d->ios);
	json_hist(w, "clat_ns", &d->clat);
	json_end(w);
}

static void json_figs(struct json_w *w, const struct bench_opts *o, const struct figs *g)
{
	json_u64(w, "runtime_ms", g->run_max_ns / 1000000);
	json_u64(w, "runtime_ms_min", g->run_min_ns / 1000000);
	json_dir(w, "read", &g->rd, g->run_max_ns);
	json_dir(w, "write", &g->wr, g->run_max_ns);
	json_dir(w, "sync", &g->sync, g->run_max_ns);
	json_obj(w, "verify");
	json_bool(w, "enabled", o->verify);
	json_u64(w, "blocks_checked", g->verify_blocks);
	json_u64(w, "bad_blocks", g->verify_bad);
	json_end(w);
}

void bench_ops_json(struct json_w *w, const struct nfsx_op_stats *ops, unsigned nops)
{
	json_arr(w, "nfs_ops");
	for (unsigned i = 0; i < nops; i++) {
		const struct nfsx_op_stats *s = &ops[i];
		double n = (double)s->ops;

		if (!s->ops && !s->trans)
			continue;
		json_obj(w, NULL);
		json_str(w, "op", s->name);
		json_u64(w, "ops", s->ops);
		json_u64(w, "trans", s->trans);
		json_u64(w, "timeouts", s->timeouts);
		json_u64(w, "errors", s->errors);
		json_u64(w, "bytes_sent", s->bytes_sent);
		json_u64(w, "bytes_recv", s->bytes_recv);
		json_u64(w, "queue_ns", s->queue_ns);
		json_u64(w, "rtt_ns", s->rtt_ns);
		json_u64(w, "exec_ns", s->exec_ns);
		json_dbl(w, "queue_ms_avg", n ? (double)s->queue_ns / n / 1e6 : 0.0);
		json_dbl(w, "rtt_ms_avg", n ? (double)s->rtt_ns / n / 1e6 : 0.0);
		json_dbl(w, "exec_ms_avg", n ? (double)s->exec_ns / n / 1e6 : 0.0);
		json_arr(w, "rtt_hist_log2_us");
		for (unsigned b = 0; b < NFSX_HIST_BUCKETS; b++)
			json_u64(w, NULL, s->hist_rtt[b]);
		json_end(w);
		json_end(w);
	}
	json_end(w);
}

static void json_options(struct json_w *w, const struct bench_opts *o, unsigned vers,
			 unsigned minor)
{
	static const char *const stable[] = { "unstable", "data_sync", "file_sync" };

	json_obj(w, "options");
	json_str(w, "url", o->url);
	json_str(w, "name", o->name);
	json_str(w, "rw", bench_rw_name(o->rw));
	json_u64(w, "bs", o->bs);
	json_u64(w, "rwmixread", o->rwmixread);
	json_u64(w, "iodepth", o->iodepth);
	json_u64(w, "numjobs", o->numjobs);
	json_u64(w, "size", o->size);
	json_u64(w, "io_size", o->io_size);
	json_u64(w, "nrfiles", o->nrfiles);
	json_u64(w, "runtime_ms", o->runtime_ns / 1000000);
	json_u64(w, "ramp_time_ms", o->ramp_ns / 1000000);
	json_bool(w, "time_based", o->time_based);
	json_u64(w, "fsync", o->fsync);
	json_bool(w, "end_fsync", o->end_fsync);
	json_str(w, "sync", stable[o->stable]);
	json_str(w, "verify", o->verify ? "crc32c" : "none");
	json_u64(w, "randseed", o->randseed);
	/* 3, 4.1 or 4.2: what the jobs spoke */
	if (vers == 4)
		json_dbl(w, "nfs_version", minor == 2 ? 4.2 : 4.1);
	else
		json_u64(w, "nfs_version", 3);
	json_bool(w, "read_plus", o->read_plus);
	json_end(w);
}

void bench_report_json(FILE *f, const struct bench_opts *o, const struct bench_job *jobs,
		       unsigned n)
{
	struct json_w w;
	struct figs g;
	struct nfsx_op_stats ops[BENCH_NPROCS];
	uint64_t errors = 0;

	json_init(&w, f);
	json_obj(&w, NULL);
	json_str(&w, "nfsx_version", NFSX_VERSION);
	json_str(&w, "mode", "bench");
	json_i64(&w, "timestamp", (int64_t)time(NULL));
	json_options(&w, o, vers_of(jobs, n), n ? jobs[0].minor : 0);
	json_arr(&w, "jobs");
	for (unsigned i = 0; i < n; i++) {
		char name[96];

		figs_of_job(&g, &jobs[i]);
		snprintf(name, sizeof(name), "%s.%u", o->name, i);
		json_obj(&w, NULL);
		json_str(&w, "jobname", name);
		json_u64(&w, "jobid", i);
		json_i64(&w, "error", jobs[i].err);
		json_str(&w, "error_message", jobs[i].err ? jobs[i].errmsg : "");
		json_u64(&w, "layout_bytes", jobs[i].layout_bytes);
		if (o->read_plus)
			json_u64(&w, "read_plus_hole_bytes", jobs[i].rp_hole_bytes);
		json_figs(&w, o, &g);
		json_end(&w);
		errors += jobs[i].err != 0;
	}
	json_end(&w);
	figs_of_group(&g, jobs, n);
	json_obj(&w, "group");
	json_u64(&w, "jobs", n);
	json_u64(&w, "errors", errors);
	if (o->read_plus)
		json_u64(&w, "read_plus_hole_bytes", rp_holes(jobs, n));
	json_figs(&w, o, &g);
	json_end(&w);
	ops_merge(ops, jobs, n);
	bench_ops_json(&w, ops, BENCH_NPROCS);
	json_end(&w);
	json_finish(&w);
}
