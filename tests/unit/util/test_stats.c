/* SPDX-License-Identifier: MIT */
/* Statistics shards (src/util/stats.c): the histogram's buckets, the
 * status slots, rows frozen at the start, and sums over threads exact. */
#include <pthread.h>
#include <string.h>

#include "tap.h"
#include "util/stats.h"

#define THREADS 4
#define PER_THREAD 100000u

static int row_a, row_b;

static void *recorder(void *arg)
{
	uintptr_t t = (uintptr_t)arg;
	struct stats_rec r;
	uint32_t i;

	for (i = 0; i < PER_THREAD; i++) {
		stats_rec_init(&r);
		r.bytes_in = 10;
		r.bytes_out = t + 1;
		r.ns[STATS_EXEC] = 1500;       /* bucket 1 */
		r.status = (i % 10 == 0) ? 10001u : 0;
		stats_record(row_a, &r);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[THREADS];
	struct stats_row s;
	struct stats_rec r;
	uintptr_t t;
	unsigned int k;
	bool mono = true;

	ok(stats_bucket(0) == 0 && stats_bucket(999) == 0, "bucket 0: under 1 us");
	ok(stats_bucket(1000) == 1 && stats_bucket(1999) == 1 && stats_bucket(2000) == 2 &&
	   stats_bucket(3999) == 2 && stats_bucket(4000) == 3, "bucket k: 2^(k-1) to 2^k us");
	ok(stats_bucket(UINT64_MAX) == STATS_NBUCKETS - 1 &&
	   stats_bucket(16777216000ull) == STATS_NBUCKETS - 1 &&
	   stats_bucket(16777215999ull) == STATS_NBUCKETS - 2, "the last bucket: 2^24 us on");
	for (k = 0; k + 1 < STATS_NBUCKETS; k++)
		if (stats_bucket(stats_bucket_limit_ns(k) - 1) != k ||
		    stats_bucket(stats_bucket_limit_ns(k)) != k + 1)
			mono = false;
	ok(mono && stats_bucket_limit_ns(STATS_NBUCKETS - 1) == UINT64_MAX,
	   "bucket limits: the first time of the next bucket");
	ok(stats_status_slot(0) == 0 && stats_status_slot(70) == 70 &&
	   stats_status_slot(10001) == 100 && stats_status_slot(10127) == 226 &&
	   stats_status_slot(10128) == STATS_STATUS_OTHER &&
	   stats_status_slot(5000) == STATS_STATUS_OTHER, "status slots");
	ok(stats_slot_status(100) == 10001 && stats_slot_status(226) == 10127 &&
	   stats_slot_status(STATS_STATUS_OTHER) == UINT32_MAX, "slots back to statuses");

	/* before the start: nothing counts */
	row_a = stats_row_add("t", 1, "A", NULL);
	row_b = stats_row_add("t", 1, "B", NULL);
	stats_rec_init(&r);
	stats_record(row_a, &r);
	ok(row_a == 0 && row_b == 1 && stats_rows() == 0, "rows numbered, none live before start");
	stats_start();
	ok(stats_rows() == 2 && stats_row_add("t", 1, "C", NULL) < 0,
	   "started: 2 rows, no more added");
	ok(!strcmp(stats_row_info(1)->name, "B") && !stats_row_info(2), "row info");
	stats_sum(0, &s);
	ok(atomic_load(&s.calls) == 0, "the record before the start was not counted");

	for (t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, recorder, (void *)t);
	for (t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	stats_sum((uint32_t)row_a, &s);
	ok(atomic_load(&s.calls) == THREADS * PER_THREAD, "calls summed over %d threads", THREADS);
	ok(atomic_load(&s.bytes_in) == 10ull * THREADS * PER_THREAD &&
	   atomic_load(&s.bytes_out) == (1 + 2 + 3 + 4) * (uint64_t)PER_THREAD, "bytes summed");
	ok(atomic_load(&s.errors) == THREADS * PER_THREAD / 10 &&
	   stats_status_count((uint32_t)row_a, 100) == THREADS * PER_THREAD / 10,
	   "errors and their status counted");
	ok(atomic_load(&s.timed[STATS_EXEC]) == THREADS * PER_THREAD &&
	   atomic_load(&s.hist[STATS_EXEC][1]) == THREADS * PER_THREAD &&
	   atomic_load(&s.ns_sum[STATS_EXEC]) == 1500ull * THREADS * PER_THREAD &&
	   atomic_load(&s.timed[STATS_QUEUE]) == 0, "times: only those measured, in bucket 1");
	stats_sum((uint32_t)row_b, &s);
	ok(atomic_load(&s.calls) == 0, "the other row untouched");
	stats_record(7, &r);
	stats_record(-1, &r);
	stats_sum(7, &s);
	ok(atomic_load(&s.calls) == 0, "rows out of range ignored");
	return tap_done();
}
