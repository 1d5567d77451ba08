/* SPDX-License-Identifier: MIT */
/*
 * Per-procedure statistics of a context, as /proc/self/mountstats
 * reports them (operations, transmissions, timeouts, bytes, cumulative
 * queue/RTT/execute times) plus log2 histograms of the three times.
 *
 * DESIGN
 * A small open-addressing table keyed by the address of the procedure's
 * const descriptor; each entry is allocated once, the first time the
 * procedure is called, so its address stays valid for nfsx_stats_get
 * until the context is freed. The hot path is one hash probe at submit
 * time; the call keeps the entry pointer.
 */
#ifndef NFSX_CLIENT_STATS_H
#define NFSX_CLIENT_STATS_H

#include <stdint.h>

#include "client/nfsx.h"

struct nc_stats_entry {
	const struct nfsx_proc *proc;
	struct nfsx_op_stats s;
};

struct nc_stats {
	struct nc_stats_entry **tab;
	unsigned cap;   /* power of two, or 0 */
	unsigned n;
};

void nc_stats_init(struct nc_stats *st);
void nc_stats_fini(struct nc_stats *st);

/* Entry of @p, created on first use. Return values: entry or NULL (ENOMEM). */
struct nfsx_op_stats *nc_stats_for(struct nc_stats *st, const struct nfsx_proc *p);
const struct nfsx_op_stats *nc_stats_find(const struct nc_stats *st,
					  const struct nfsx_proc *p);

/* Histogram bucket of a duration: i for [2^i, 2^(i+1)) us, 0 for < 2 us. */
unsigned nc_hist_bucket(uint64_t ns);

/* Add one sample of @ns to a cumulative time and its histogram. */
static inline void nc_stats_time(uint64_t *sum, uint32_t *hist, uint64_t ns)
{
	*sum += ns;
	hist[nc_hist_bucket(ns)]++;
}

#endif
