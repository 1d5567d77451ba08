/* SPDX-License-Identifier: MIT */
/* The server's clock for intervals (src/util/clock.c): before clock_init
 * it is CLOCK_MONOTONIC; after, with or without the time stamp counter,
 * it measures what CLOCK_MONOTONIC measures and never goes back, on one
 * thread or (ordered) across threads. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "tap.h"
#include "util/clock.h"

#define THREADS 2
#define READS 2000000u

static uint64_t last[THREADS];
static _Atomic uint64_t shared;
static _Atomic int went_back;

/* Each read is at least every value another thread published before. */
static void *reader(void *arg)
{
	uintptr_t t = (uintptr_t)arg;
	uint64_t prev = 0;
	uint32_t i;

	for (i = 0; i < READS; i++) {
		uint64_t seen = atomic_load(&shared), now = clock_now_ns(), lap = clock_lap_ns();

		if (now < prev || now < seen || lap < now)
			atomic_store(&went_back, 1);
		prev = lap;
		if (!(i & 63))
			atomic_store(&shared, now);
	}
	last[t] = prev;
	return NULL;
}

/* Both clocks at one moment: CLOCK_MONOTONIC read between two reads of
 * ours, the tightest of a few (the first read after a sleep can take
 * microseconds). */
static void both(uint64_t *ours, uint64_t *mono)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < 16; i++) {
		uint64_t a = clock_now_ns(), m = clock_mono_ns(), b = clock_now_ns();

		if (b >= a && b - a < best) {
			best = b - a;
			*ours = a + (b - a) / 2;
			*mono = m;
		}
	}
}

/* A sleep of @ms measured by both clocks: their relative difference. */
static double interval_error(unsigned int ms)
{
	struct timespec nap = { 0, (long)ms * 1000000l };
	uint64_t a = 0, m0 = 0, b = 0, m1 = 0;

	both(&a, &m0);
	nanosleep(&nap, NULL);
	both(&b, &m1);
	return ((double)(b - a) - (double)(m1 - m0)) / (double)(m1 - m0);
}

int main(void)
{
	pthread_t th[THREADS];
	uint64_t m, c, m2;
	uintptr_t t;
	double e;
	bool tsc;

	m = clock_mono_ns();
	c = clock_now_ns();
	m2 = clock_mono_ns();
	ok(!clock_tsc.on && c >= m && c <= m2, "before clock_init: CLOCK_MONOTONIC");

	tsc = clock_init();
	printf("# time stamp counter %s\n", tsc ? "in use" : "not used (the kernel's clock is not on it)");
	ok(clock_init() == tsc, "a second clock_init changes nothing");
	m = clock_mono_ns();
	c = clock_now_ns();
	/* starts near CLOCK_MONOTONIC: within a millisecond */
	ok(c + 1000000u > m && c < m + 1000000u, "after clock_init: near CLOCK_MONOTONIC (%lld ns)",
	   (long long)(c - m));
	e = interval_error(50);
	/* a clock read's cost (tens of ns) is 1e-6 of 50 ms; the rate is
	 * measured to a few parts per million */
	ok(e > -2e-5 && e < 2e-5, "a 50 ms interval as CLOCK_MONOTONIC measures it (%.2e)", e);
	e = interval_error(1);
	ok(e > -1e-3 && e < 1e-3, "a 1 ms interval too (%.2e)", e);

	for (t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, reader, (void *)t);
	for (t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	ok(!atomic_load(&went_back) && last[0] && last[1],
	   "%d threads, %u reads each: never behind an earlier read of the thread (ordered or "
	   "not), nor behind another thread's time seen (ordered)", THREADS, READS);
	return tap_done();
}
