/* SPDX-License-Identifier: MIT */
/*
 * nfsx bench jobs, the parts shared by the job's phases (bench_job.c:
 * setup, layout, verify, threads, progress) and its I/O pump
 * (bench_pump.c: slots, the next call of each mode, completions and
 * accounting). Not used outside these two files.
 */
#ifndef NFSX_TOOL_BENCH_JOB_INTERNAL_H
#define NFSX_TOOL_BENCH_JOB_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"

struct bench_file {
	char name[96];
	struct nfsx_fh fh;
	uint64_t seq_off;           /* next sequential offset */
	uint32_t *gen;              /* verify: generation of each block */
	unsigned writes;            /* writes completed since the last COMMIT */
	bool commit_want, dirty, wrote;
	bool opened;                /* NFSv4.1: open, sid its stateid */
	struct stateid4 sid;
};

enum slot_kind { K_READ, K_WRITE, K_COMMIT };

struct bench_slot {
	struct bench_job *job;
	enum slot_kind kind;
	bool busy;
	unsigned file;
	uint64_t off;
	uint32_t len, gen;
	uint64_t t0;
	uint8_t *buf;               /* verify: this slot's write data; read_plus:
				     * where READ_PLUS puts what it read */
	union {
		struct READ3args r;
		struct WRITE3args w;
		struct COMMIT3args c;
		struct nfsx4_read_args r4;
		struct nfsx4_write_args w4;
		struct nfsx4_commit_args c4;
		struct nfsx4_read_plus_args rp4;
	} a;
};

/* What the pump is doing; decides how slots are filled. */
enum pump_mode { M_LAYOUT, M_MAIN, M_END_COMMIT, M_VERIFY };

struct pump {
	enum pump_mode mode;
	unsigned depth;
	uint32_t chunk;             /* layout/verify: bytes per call */
	unsigned file;              /* layout/verify: position */
	uint64_t off;
	unsigned *todo;             /* layout: files to write; end commit: files */
	unsigned ntodo, itodo;
	uint64_t deadline;          /* ramp end or run end (ns), 0: none */
};

/* Stop the job with the first error (@err, a message). */
void job_fail(struct bench_job *j, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* xorshift64*: random offsets and data. */
uint64_t rng_next(uint64_t *s);
/* The job's per-procedure statistics now (to subtract the ramp). */
void snapshot_ops(struct bench_job *j, struct nfsx_op_stats *dst);
/* Ramp over: counts start from @now. */
void start_measuring(struct bench_job *j, uint64_t now);
/* Keep @p->depth calls in flight in @p->mode until the mode's work ends. */
void pump_run(struct bench_job *j, struct pump *p);

#endif
