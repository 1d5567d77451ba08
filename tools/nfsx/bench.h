/* SPDX-License-Identifier: MIT */
/*
 * nfsx bench: jobs (bench_job.c), the report (bench_report.c), the
 * latency mode (bench_latency.c) and the progress line.
 */
#ifndef NFSX_TOOL_BENCH_H
#define NFSX_TOOL_BENCH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bench_hist.h"
#include "bench_opts.h"
#include "client/nfsx.h"
#include "json.h"

/* Entries of a job's procedure table: NFSv3's procedures, or fewer
 * NFSv4.1 ones (bench_proc in bench_io4.h names them). */
#define BENCH_NPROCS (NFSPROC3_COMMIT + 1)

/* Figures of one direction (read, write, or sync = COMMIT). */
struct bench_dir {
	uint64_t ios, bytes;
	struct hist clat;          /* submit -> completion, ns */
};

struct bench_file;
struct bench_slot;

struct pump;

struct bench_job {
	unsigned id;
	const struct bench_opts *o;
	struct nfsx_url url;
	pthread_barrier_t *start;   /* all jobs start measuring together */
	pthread_t thread;

	struct nfsx_ctx *ctx;
	unsigned vers;              /* 3, or 4: NFSv4 */
	unsigned minor;             /* NFSv4: the session's minor version (1 or 2) */
	struct nfsx_fh dir;
	uint32_t rtmax, wtmax;
	struct bench_file *files;
	struct bench_slot *slots;
	unsigned nslots, inflight;
	unsigned *free_slots, nfree;    /* stack of free slot indices */
	int mode;                       /* what the slots are doing (bench_job.c) */
	struct pump *pump;              /* the pump running (completions refill) */
	uint8_t *shared_buf;        /* write data without verify (read-only) */
	uint64_t file_size;         /* per file, a multiple of bs */
	uint64_t rng;
	uint32_t gen_next;          /* verify: generation of the next write */
	unsigned next_file;
	uint64_t issued;            /* bytes issued in the main phase */
	uint64_t io_limit;
	bool measuring, stopping;
	uint64_t t_measure, t_end;  /* CLOCK_MONOTONIC ns */
	bool have_verf;
	uint8_t verf[NFS3_WRITEVERFSIZE];

	/* results */
	struct bench_dir rd, wr, sync;
	uint64_t layout_bytes;
	uint64_t verify_blocks, verify_bad;
	uint64_t rp_hole_bytes;     /* read_plus: hole bytes received, every phase */
	int err;                    /* 0, or the first error (nfsstat3 > 0, errno < 0, or 1) */
	char errmsg[512];
	struct nfsx_op_stats ops[BENCH_NPROCS];      /* measured period, bench_proc order */
	struct nfsx_op_stats ops_snap[BENCH_NPROCS]; /* at the start of it */

	/* progress, read by the main thread */
	_Atomic uint64_t p_rd_ios, p_wr_ios, p_rd_bytes, p_wr_bytes;
	_Atomic int p_phase;        /* enum bench_phase */
};

enum bench_phase { PH_SETUP, PH_LAYOUT, PH_RAMP, PH_RUN, PH_VERIFY, PH_DONE };

/* Run all jobs of @o (after the options were checked); fills @jobs. */
int bench_run(const struct bench_opts *o, struct bench_job **jobs_out);
void bench_free(struct bench_job *jobs, unsigned n);

/* Reports (bench_report.c). */
void bench_report_text(FILE *f, const struct bench_opts *o, const struct bench_job *jobs,
		       unsigned n);
void bench_report_json(FILE *f, const struct bench_opts *o, const struct bench_job *jobs,
		       unsigned n);
/* The mountstats-style table of @ops (one entry per NFSv3 procedure). */
void bench_ops_table(FILE *f, const struct nfsx_op_stats *ops, unsigned nops);
void bench_ops_json(struct json_w *w, const struct nfsx_op_stats *ops, unsigned nops);
/* @dst = @a - @b for every counter (a later minus an earlier snapshot). */
void bench_ops_sub(struct nfsx_op_stats *dst, const struct nfsx_op_stats *a,
		   const struct nfsx_op_stats *b);

/* Human-readable sizes and rates as fio prints them. */
void fmt_bytes_iec(char *out, size_t n, double bytes);     /* 48.0MiB */
void fmt_bytes_si(char *out, size_t n, double bytes);      /* 50.3MB */
void fmt_count(char *out, size_t n, double v);             /* 12.3k */

/* The latency mode (bench_latency.c). */
int bench_latency(const struct bench_opts *o, FILE *out);

/* nfsx bench entry point (bench_main.c). */
int cmd_bench(int argc, char **argv);

uint64_t bench_now_ns(void);

#endif
