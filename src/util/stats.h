/* SPDX-License-Identifier: MIT */
/*
 * Server statistics: per operation, calls, errors by status, bytes in and
 * out, and log2 histograms of three times (queue, execute, send).
 *
 * DESIGN
 * - Operations are the rows of one table numbered at start-up: each RPC
 *   program version registers a row per procedure, NFSv4 a row per
 *   operation inside COMPOUNDs (stats_row_add()), all before
 *   stats_start(); a row added later, or a record before the start, is
 *   ignored, so code that runs without a server (unit tests) records
 *   nothing.
 * - Every thread that records has a shard of its own, made on its first
 *   record and never freed (nfsxd's threads live as long as the process;
 *   a shard left by a thread that ended keeps its counts). A record is a
 *   relaxed load and store of counters no other thread writes: no lock,
 *   no locked instruction, no cache line shared with another thread on
 *   the hot path. Readers sum the shards: each counter is monotonic, so a
 *   sum read while threads record is a sum of values each true at some
 *   moment, which is what a scrape needs (not a snapshot).
 * - Errors by status are rarer than calls: one shared table of relaxed
 *   atomic adds per row and status, the status compacted (stats_status_slot).
 * - Times are nanoseconds; a histogram has one bucket per power of two
 *   of microseconds: bucket 0 is under 1 us, bucket k (1..24) from
 *   2^(k-1) us to under 2^k us, the last everything from 2^24 us (16.8 s).
 */
#ifndef NFSX_UTIL_STATS_H
#define NFSX_UTIL_STATS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/clock.h"

enum stats_time {
	STATS_QUEUE,	/* call received -> its handler started */
	STATS_EXEC,	/* handler started -> reply encoded */
	STATS_SEND,	/* reply encoded -> its last byte given to the socket */
	STATS_NTIMES,
};

#define STATS_NBUCKETS 26u
#define STATS_MAX_ROWS 512u

/* Statuses kept apart: 0..99 (NFSv3's and NFSv4's small ones, MOUNT's)
 * and 10001..10127 (NFS3ERR_/NFS4ERR_ from 10001); any other is counted
 * in the last slot. */
#define STATS_NSTATUS 228u
#define STATS_STATUS_OTHER (STATS_NSTATUS - 1u)
/* A reply whose accept_stat was not SUCCESS (GARBAGE_ARGS, SYSTEM_ERR),
 * counted as status 90 + accept_stat: no NFS or MOUNT status is there. */
#define STATS_STATUS_RPC_BASE 90u
#define STATS_STATUS_RPC(accept) (STATS_STATUS_RPC_BASE + (accept))

/* Counters of one row in one shard; one thread writes them. */
struct stats_row {
	_Atomic uint64_t calls;
	_Atomic uint64_t errors;	/* replies whose status was not 0 */
	_Atomic uint64_t bytes_in;	/* call bytes, record markers included */
	_Atomic uint64_t bytes_out;
	_Atomic uint64_t ns_sum[STATS_NTIMES];
	/* records with that time: the sum of its buckets (stats_sum) */
	_Atomic uint64_t hist[STATS_NTIMES][STATS_NBUCKETS];
	/* filled by stats_sum only: the records of each time */
	_Atomic uint64_t timed[STATS_NTIMES];
};

/* What a row is, for the reader. */
struct stats_row_info {
	const char *group;	/* "nfs", "mount", "nfs4_op", ... */
	uint32_t vers;
	const char *name;	/* "READ" */
	/* Name of a status of this row's replies, or NULL. */
	const char *(*status_name)(uint32_t vers, int32_t status);
};

/* One record. Fields a caller does not know stay 0 or UINT64_MAX (time). */
struct stats_rec {
	uint64_t bytes_in, bytes_out;
	uint64_t ns[STATS_NTIMES];	/* UINT64_MAX: not measured */
	uint32_t status;		/* 0: success */
};

/* Statistics are on by default; stats_set_enabled(false) before
 * stats_start() turns recording and the clock reads for it off. */
void stats_set_enabled(bool on);
extern bool stats_on;

/*
 * stats_row_add - a row for the operation @name of @group version @vers.
 * Return values: its number, or -1 (too many rows, or called after
 * stats_start()).
 */
int stats_row_add(const char *group, uint32_t vers, const char *name,
		  const char *(*status_name)(uint32_t vers, int32_t status));

/* No more rows: records count from now on. */
void stats_start(void);

/* Return values: the rows added (0 before stats_start()). */
uint32_t stats_rows(void);
const struct stats_row_info *stats_row_info(uint32_t row);

/* Add @r to row @row (ignored when out of range or off). */
void stats_record(int row, const struct stats_rec *r);
/* The same for a record with an execute time only (@ns), the common
 * case of an NFSv4 operation: fewer stores. */
void stats_record_exec(int row, uint32_t status, uint64_t ns, uint64_t in, uint64_t out);

static inline void stats_rec_init(struct stats_rec *r)
{
	r->bytes_in = r->bytes_out = 0;
	r->ns[STATS_QUEUE] = r->ns[STATS_EXEC] = r->ns[STATS_SEND] = UINT64_MAX;
	r->status = 0;
}

/* Return values: the histogram bucket of @ns (inline: every record). */
static inline unsigned int stats_bucket(uint64_t ns)
{
	uint64_t us = ns / 1000u;
	unsigned int k;

	if (!us)
		return 0;
	k = 64u - (unsigned int)__builtin_clzll(us);
	return k < STATS_NBUCKETS - 1 ? k : STATS_NBUCKETS - 1;
}
/* Return values: the upper bound of bucket @k in nanoseconds (exclusive),
 * or UINT64_MAX for the last. */
uint64_t stats_bucket_limit_ns(unsigned int k);

/* Return values: the slot of @status in the status table. */
unsigned int stats_status_slot(uint32_t status);
/* Return values: the status of @slot (STATS_STATUS_OTHER: UINT32_MAX). */
uint32_t stats_slot_status(unsigned int slot);

/* Sum row @row over every shard into @out. */
void stats_sum(uint32_t row, struct stats_row *out);
/* Return values: replies of row @row with status slot @slot. */
uint64_t stats_status_count(uint32_t row, unsigned int slot);

/* Monotonic nanoseconds: the server's clock for intervals (clock.h). */
static inline uint64_t stats_now_ns(void)
{
	return clock_now_ns();
}
/* The same for an interval one thread measures (clock_lap_ns). */
static inline uint64_t stats_lap_ns(void)
{
	return clock_lap_ns();
}

#endif
