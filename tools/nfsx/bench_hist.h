/* SPDX-License-Identifier: MIT */
/*
 * Latency histogram with bounded relative error (log-linear buckets, as
 * HdrHistogram lays them out): values below 256 ns are counted exactly;
 * above, each power of two is cut into 128 equal buckets, so a bucket is
 * at most 1/128 of its lower bound wide. A percentile is reported as the
 * middle of the bucket that holds it (clamped to the exact min and max),
 * hence within HIST_REL_ERR (1/256) of the exact nearest-rank value.
 * Values are nanoseconds, up to 2^48 (78 hours; larger ones are clamped).
 * Count, min, max, mean and standard deviation are exact.
 */
#ifndef NFSX_TOOL_BENCH_HIST_H
#define NFSX_TOOL_BENCH_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 7
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_MAX_BITS 48
#define HIST_BUCKETS (2 * HIST_SUB + (HIST_MAX_BITS - HIST_SUB_BITS - 1) * HIST_SUB)
#define HIST_REL_ERR (1.0 / (2 * HIST_SUB))

struct hist {
	uint64_t count;
	uint64_t min, max;
	double mean, m2;          /* Welford: running mean and sum of squared deviations */
	uint64_t b[HIST_BUCKETS];
};

void hist_init(struct hist *h);
void hist_add(struct hist *h, uint64_t v);
/* Merge @src into @dst (exact for count, min, max, mean, stddev, buckets). */
void hist_merge(struct hist *dst, const struct hist *src);
/* Nearest-rank percentile @p (0 < p <= 100); 0 when empty. */
uint64_t hist_percentile(const struct hist *h, double p);
double hist_mean(const struct hist *h);
/* Population standard deviation (as fio reports it). */
double hist_stddev(const struct hist *h);

/* Bucket index of @v and the bounds [lo, hi] of bucket @i (for tests). */
unsigned hist_index(uint64_t v);
void hist_bounds(unsigned i, uint64_t *lo, uint64_t *hi);

#endif
