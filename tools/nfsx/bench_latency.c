/* SPDX-License-Identifier: MIT */
/*
 * nfsx bench latency: the per-call latency of sequential writes at queue
 * depth 1, as iozone -N reports it (microseconds per operation). Each run
 * writes a fresh file (NAME.latency, truncated) from offset 0 to size in
 * bs-sized WRITE calls (512 KiB unless bs= says otherwise), one at a time,
 * timing every call, then COMMITs it (timed apart). The report gives each
 * run's mean and standard deviation, the mean of the run means with their
 * sample standard deviation over the runs, and percentiles of all calls.
 * Over NFSv4.1 the file is opened once and the calls are the typed
 * wrappers' (SEQUENCE + PUTFH + WRITE with the open stateid), as an
 * application's writes to an open file.
 */
#include "bench.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_io4.h"
#include "json.h"

struct lat_run {
	struct hist calls;
	uint64_t commit_ns;
};

static int fail(const char *what, int rc)
{
	fprintf(stderr, "nfsx bench latency: %s: %s\n", what, nfsx_strerror(rc));
	return 1;
}

int bench_latency(const struct bench_opts *o, FILE *out)
{
	static const char *const stable[] = { "UNSTABLE", "DATA_SYNC", "FILE_SYNC" };
	struct nfsx_url *u = calloc(1, sizeof(*u));
	struct lat_run *runs = calloc(o->runs, sizeof(*runs));
	struct nfsx_ctx *ctx = NULL;
	struct nfsx_fh root, dir, fh;
	struct nfsx_op_stats snap[BENCH_NPROCS], ops[BENCH_NPROCS];
	const char *rest = "";
	char err[256], name[96];
	uint8_t *buf = NULL, verf[NFS3_WRITEVERFSIZE];
	uint32_t rtmax, wtmax, dtpref;
	struct stateid4 sid;
	bool opened = false;
	unsigned vers, minor = 0;
	uint64_t fsize = o->size / o->bs * o->bs, x = 0x9e3779b97f4a7c15ull ^ o->randseed;
	struct hist all;
	double mean = 0, sd = 0;
	int rc, status = 1;

	hist_init(&all);
	if (!u || !runs)
		goto out;
	if (nfsx_url_parse(o->url, u, err, sizeof(err))) {
		fprintf(stderr, "nfsx bench: %s: %s\n", o->url, err);
		status = 2;
		goto out;
	}
	/* nfs_version= over the URL's version= */
	if (o->nfs_version) {
		u->version = u->opts.version = o->nfs_version;
		u->opts.minor = o->nfs_minor;
	}
	vers = u->opts.version == 4 ? 4 : 3;
	if (geteuid() == 0)
		u->opts.privileged_port = true;    /* "secure" exports, as in bench_job.c */
	ctx = nfsx_ctx_new(&u->opts, err, sizeof(err));
	if (!ctx) {
		fprintf(stderr, "nfsx bench latency: %s\n", err);
		goto out;
	}
	rc = nfsx_mount_path(ctx, u->path, &root, &rest);
	minor = nfsx4_minor(ctx);
	if (rc) {
		status = fail(u->path, rc);
		goto out;
	}
	while (*rest == '/')
		rest++;
	dir = root;
	if (*rest && (rc = nfsx_mkdir_p(ctx, rest, 0755, &dir))) {
		status = fail(rest, rc);
		goto out;
	}
	rc = nfsx_fsinfo(ctx, &root, &rtmax, &wtmax, &dtpref);
	if (rc) {
		status = fail("FSINFO", rc);
		goto out;
	}
	if (o->bs > wtmax) {
		fprintf(stderr, "nfsx bench latency: bs=%" PRIu32 " is larger than the server's "
			"largest WRITE (FSINFO wtmax %" PRIu32 ")\n", o->bs, wtmax);
		goto out;
	}
	buf = malloc(o->bs);
	if (!buf)
		goto out;
	for (uint32_t i = 0; i + 8 <= o->bs; i += 8) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		memcpy(buf + i, &x, 8);
	}
	snprintf(name, sizeof(name), "%s.latency", o->name);
	rc = nfsx_create(ctx, &dir, name, 0644, false, &fh);
	if (rc) {
		status = fail(name, rc);
		goto out;
	}
	if (vers == 4) {
		rc = bench_open4(ctx, &fh, &sid);
		if (rc) {
			status = fail(name, rc);
			goto out;
		}
		opened = true;
	}
	for (unsigned p = 0; p < BENCH_NPROCS; p++) {
		const struct nfsx_proc *d = bench_proc(vers, false, p);
		const struct nfsx_op_stats *s = d ? nfsx_stats_get(ctx, d) : NULL;

		if (s)
			snap[p] = *s;
		else
			memset(&snap[p], 0, sizeof(snap[p]));
		snap[p].name = d ? d->name : NULL;
	}
	for (unsigned r = 0; r < o->runs; r++) {
		uint64_t t0;

		hist_init(&runs[r].calls);
		rc = nfsx_truncate(ctx, &fh, 0);
		if (rc) {
			status = fail("truncate", rc);
			goto out;
		}
		for (uint64_t off = 0; off < fsize; off += o->bs) {
			uint32_t written = 0;

			t0 = bench_now_ns();
			if (vers == 4)
				rc = bench_write4(ctx, &fh, &sid, off, buf, o->bs,
						  (enum stable_how)o->stable, &written, verf);
			else
				rc = nfsx_write(ctx, &fh, off, buf, o->bs, (enum stable_how)o->stable,
						&written, verf);
			hist_add(&runs[r].calls, bench_now_ns() - t0);
			if (rc) {
				status = fail("WRITE", rc);
				goto out;
			}
			if (written != o->bs) {
				fprintf(stderr, "nfsx bench latency: short WRITE at offset %" PRIu64
					": %u of %u bytes\n", off, written, o->bs);
				goto out;
			}
		}
		t0 = bench_now_ns();
		rc = vers == 4 ? bench_commit4(ctx, &fh, verf) : nfsx_commit(ctx, &fh, verf);
		runs[r].commit_ns = bench_now_ns() - t0;
		if (rc) {
			status = fail("COMMIT", rc);
			goto out;
		}
		hist_merge(&all, &runs[r].calls);
	}
	for (unsigned p = 0; p < BENCH_NPROCS; p++) {
		const struct nfsx_proc *d = bench_proc(vers, false, p);
		const struct nfsx_op_stats *s = d ? nfsx_stats_get(ctx, d) : NULL;
		struct nfsx_op_stats cur;

		if (s)
			cur = *s;
		else
			memset(&cur, 0, sizeof(cur));
		cur.name = d ? d->name : NULL;
		bench_ops_sub(&ops[p], &cur, &snap[p]);
	}
	if (opened) {
		opened = false;
		rc = bench_close4(ctx, &fh, &sid);
		if (rc)
			fprintf(stderr, "nfsx bench latency: CLOSE %s: %s\n", name, nfsx_strerror(rc));
	}
	rc = nfsx_remove(ctx, &dir, name);
	if (rc)
		fprintf(stderr, "nfsx bench latency: removing %s: %s\n", name, nfsx_strerror(rc));

	for (unsigned r = 0; r < o->runs; r++)
		mean += hist_mean(&runs[r].calls);
	mean /= o->runs;
	for (unsigned r = 0; r < o->runs; r++)
		sd += (hist_mean(&runs[r].calls) - mean) * (hist_mean(&runs[r].calls) - mean);
	sd = o->runs > 1 ? sqrt(sd / (o->runs - 1)) : 0.0;

	if (o->fmt == FMT_JSON) {
		struct json_w w;

		json_init(&w, out);
		json_obj(&w, NULL);
		json_str(&w, "nfsx_version", NFSX_VERSION);
		json_str(&w, "mode", "latency");
		json_obj(&w, "options");
		json_str(&w, "url", o->url);
		json_u64(&w, "bs", o->bs);
		json_u64(&w, "size", fsize);
		json_u64(&w, "runs", o->runs);
		json_u64(&w, "iodepth", 1);
		if (vers == 4)
			json_dbl(&w, "nfs_version", minor == 2 ? 4.2 : 4.1);
		else
			json_u64(&w, "nfs_version", 3);
		json_str(&w, "stable", stable[o->stable]);
		json_end(&w);
		json_arr(&w, "runs");
		for (unsigned r = 0; r < o->runs; r++) {
			const struct hist *h = &runs[r].calls;

			json_obj(&w, NULL);
			json_u64(&w, "run", r + 1);
			json_u64(&w, "calls", h->count);
			json_dbl(&w, "mean_us", hist_mean(h) / 1e3);
			json_dbl(&w, "stddev_us", hist_stddev(h) / 1e3);
			json_dbl(&w, "p50_us", (double)hist_percentile(h, 50) / 1e3);
			json_dbl(&w, "p99_us", (double)hist_percentile(h, 99) / 1e3);
			json_dbl(&w, "max_us", (double)h->max / 1e3);
			json_dbl(&w, "commit_us", (double)runs[r].commit_ns / 1e3);
			json_end(&w);
		}
		json_end(&w);
		json_dbl(&w, "mean_us", mean / 1e3);
		json_dbl(&w, "stddev_us", sd / 1e3);
		json_obj(&w, "all_calls");
		json_u64(&w, "calls", all.count);
		json_dbl(&w, "mean_us", hist_mean(&all) / 1e3);
		json_dbl(&w, "stddev_us", hist_stddev(&all) / 1e3);
		json_dbl(&w, "p50_us", (double)hist_percentile(&all, 50) / 1e3);
		json_dbl(&w, "p90_us", (double)hist_percentile(&all, 90) / 1e3);
		json_dbl(&w, "p99_us", (double)hist_percentile(&all, 99) / 1e3);
		json_dbl(&w, "p99_9_us", (double)hist_percentile(&all, 99.9) / 1e3);
		json_dbl(&w, "min_us", (double)all.min / 1e3);
		json_dbl(&w, "max_us", (double)all.max / 1e3);
		json_end(&w);
		bench_ops_json(&w, ops, BENCH_NPROCS);
		json_end(&w);
		json_finish(&w);
	} else {
		char bsz[32], fsz[32];

		fmt_bytes_iec(bsz, sizeof(bsz), o->bs);
		fmt_bytes_iec(fsz, sizeof(fsz), (double)fsize);
		fprintf(out, "nfsx latency (as iozone -N): sequential %s %s WRITEs at queue depth 1, "
			"%s per run, %u runs\n", bsz, stable[o->stable], fsz, o->runs);
		fprintf(out, "%5s %8s %12s %12s %12s %12s %12s %12s\n", "run", "calls", "mean us",
			"stdev us", "p50 us", "p99 us", "max us", "COMMIT us");
		for (unsigned r = 0; r < o->runs; r++) {
			const struct hist *h = &runs[r].calls;

			fprintf(out, "%5u %8" PRIu64 " %12.1f %12.1f %12.1f %12.1f %12.1f %12.1f\n", r + 1,
				h->count, hist_mean(h) / 1e3, hist_stddev(h) / 1e3,
				(double)hist_percentile(h, 50) / 1e3,
				(double)hist_percentile(h, 99) / 1e3, (double)h->max / 1e3,
				(double)runs[r].commit_ns / 1e3);
		}
		fprintf(out, "per-call latency: mean %.1f us, standard deviation over %u runs %.1f us"
			" (%.1f%%)\n", mean / 1e3, o->runs, sd / 1e3, mean > 0 ? 100 * sd / mean : 0.0);
		fprintf(out, "all %" PRIu64 " calls: mean %.1f us, stdev %.1f us, p50 %.1f, p90 %.1f, "
			"p99 %.1f, p99.9 %.1f us\n", all.count, hist_mean(&all) / 1e3,
			hist_stddev(&all) / 1e3, (double)hist_percentile(&all, 50) / 1e3,
			(double)hist_percentile(&all, 90) / 1e3, (double)hist_percentile(&all, 99) / 1e3,
			(double)hist_percentile(&all, 99.9) / 1e3);
		fprintf(out, "\nNFS operations (%s, all runs; per-op statistics as in "
			"/proc/self/mountstats):\n",
			vers != 4 ? "NFSv3" : minor == 2 ? "NFSv4.2" : "NFSv4.1");
		bench_ops_table(out, ops, BENCH_NPROCS);
	}
	status = 0;
out:
	if (ctx && opened)
		bench_close4(ctx, &fh, &sid);
	if (ctx)
		nfsx_ctx_free(ctx);
	free(buf);
	free(runs);
	free(u);
	return status;
}
