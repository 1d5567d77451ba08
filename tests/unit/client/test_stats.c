/* SPDX-License-Identifier: MIT */
/* Statistics (src/client/stats.c): histogram buckets, the table, merging. */
#include <string.h>

#include "client/stats.h"
#include "tap.h"

int main(void)
{
	static const struct nfsx_proc procs[40];
	struct nc_stats st;
	struct nfsx_op_stats a = { 0 }, b = { 0 };
	uint64_t sum = 0;
	uint32_t hist[NFSX_HIST_BUCKETS] = { 0 };
	bool same = true, distinct = true;
	unsigned i;

	ok(nc_hist_bucket(0) == 0, "0 ns: bucket 0");
	ok(nc_hist_bucket(1999) == 0, "1.999 us: bucket 0 (< 2 us)");
	ok(nc_hist_bucket(2000) == 1, "2 us: bucket 1");
	ok(nc_hist_bucket(3999) == 1, "3.999 us: bucket 1");
	ok(nc_hist_bucket(4000) == 2, "4 us: bucket 2");
	ok(nc_hist_bucket(1023999) == 9, "1023.999 us: bucket 9");
	ok(nc_hist_bucket(1024000) == 10, "1024 us: bucket 10");
	ok(nc_hist_bucket(1000000000ull) == 19, "1 s = 10^6 us: bucket 19");
	ok(nc_hist_bucket((1ull << 31) * 1000) == 31, "2^31 us: bucket 31");
	ok(nc_hist_bucket(UINT64_MAX) == NFSX_HIST_BUCKETS - 1, "huge: last bucket");

	nc_stats_time(&sum, hist, 5000);
	nc_stats_time(&sum, hist, 6000);
	nc_stats_time(&sum, hist, 100);
	ok(sum == 11100, "cumulative time adds samples");
	ok(hist[2] == 2 && hist[0] == 1, "samples counted in their buckets");

	nc_stats_init(&st);
	ok(nc_stats_find(&st, &procs[0]) == NULL, "unknown procedure: no entry");
	for (i = 0; i < 40; i++) {
		struct nfsx_op_stats *s = nc_stats_for(&st, &procs[i]);

		if (!s) {
			distinct = false;
			break;
		}
		s->ops = i + 1;
	}
	for (i = 0; i < 40; i++) {
		const struct nfsx_op_stats *s = nc_stats_find(&st, &procs[i]);

		if (!s || s->ops != i + 1)
			distinct = false;
		if (s != nc_stats_for(&st, &procs[i]))
			same = false;
	}
	ok(distinct, "40 procedures (table grown) keep their own counters");
	ok(same, "the same entry is returned for the same procedure");
	nc_stats_fini(&st);

	a.name = "READ";
	a.ops = 3;
	a.trans = 4;
	a.timeouts = 1;
	a.errors = 1;
	a.bytes_sent = 100;
	a.bytes_recv = 200;
	a.queue_ns = a.rtt_ns = a.exec_ns = 7;
	a.hist_rtt[3] = 2;
	b.ops = 2;
	b.hist_rtt[3] = 1;
	b.hist_exec[31] = 5;
	nfsx_stats_add(&b, &a);
	ok(b.ops == 5 && b.trans == 4 && b.timeouts == 1 && b.errors == 1 &&
	   b.bytes_sent == 100 && b.bytes_recv == 200 && b.rtt_ns == 7,
	   "stats_add sums the counters");
	ok(b.hist_rtt[3] == 3 && b.hist_exec[31] == 5, "stats_add sums the histograms");
	ok(b.name && !strcmp(b.name, "READ"), "stats_add names an unnamed total");
	return tap_done();
}
