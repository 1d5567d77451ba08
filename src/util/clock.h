/* SPDX-License-Identifier: MIT */
/*
 * The server's clock for intervals: per-call times (queue, execute,
 * send, each NFSv4 operation), idle and reply time-outs, deadlines of
 * calls out. Monotonic nanoseconds, compared only with one another.
 *
 * DESIGN
 * - A call reads the clock about six times (received, started, one per
 *   NFSv4 operation, sent). On the 2-vCPU test machine (2.6 GHz, a
 *   loop of reads) clock_gettime(CLOCK_MONOTONIC) through the vDSO takes
 *   25 ns, the time stamp counter 20 ns ordered (clock_now_ns) and 10 ns
 *   not (clock_lap_ns). The four reads an NFSv4.1 READ makes only for
 *   the statistics took 100 ns with the vDSO, 50 with the counter:
 *   against about 5.9 us of server CPU a call, 1.7 % and 0.8 %.
 * - The counter is used only where the kernel uses it for its own clock
 *   (current clocksource "tsc": the kernel found it constant-rate and
 *   synchronised across CPUs); elsewhere, and before clock_init(), the
 *   clock is CLOCK_MONOTONIC.
 * - clock_init() measures the counter's rate against CLOCK_MONOTONIC over
 *   CLOCK_CALIBRATE_NS (each end a pair read back to back, the tightest
 *   of several), so an interval is exact to a few parts per million: far
 *   below a histogram bucket or a time-out's need. Values start near
 *   CLOCK_MONOTONIC's and drift from it by that much: nothing compares
 *   the two.
 */
#ifndef NFSX_UTIL_CLOCK_H
#define NFSX_UTIL_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/* How long clock_init() measures the counter's rate. */
#define CLOCK_CALIBRATE_NS 5000000u

struct clock_tsc {
	bool on;
	uint64_t tsc0, ns0;
	uint64_t mult;		/* nanoseconds per tick, << 32 */
};
extern struct clock_tsc clock_tsc;

/*
 * clock_init - use the time stamp counter when the kernel does (see
 * DESIGN), after measuring its rate. Call once, before threads read the
 * clock. Return values: true when the counter is used.
 */
bool clock_init(void);

/* Monotonic nanoseconds (CLOCK_MONOTONIC, always). */
static inline uint64_t clock_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
static inline uint64_t clock__tsc_ns(uint64_t tsc)
{
	return clock_tsc.ns0 + (uint64_t)(((unsigned __int128)(tsc - clock_tsc.tsc0) *
					  clock_tsc.mult) >> 32);
}
#endif

/*
 * Monotonic nanoseconds, for intervals (see DESIGN): ordered as the
 * kernel orders its own reads of the counter (after the instructions
 * before it), so that a time another thread published and this thread
 * has seen is never later than this read.
 */
static inline uint64_t clock_now_ns(void)
{
#if defined(__x86_64__)
	if (clock_tsc.on) {
		_mm_lfence();
		return clock__tsc_ns(__rdtsc());
	}
#endif
	return clock_mono_ns();
}

/*
 * The same for an interval whose two ends one thread reads (an NFSv4
 * operation's execution): not ordered, so it may be taken up to the
 * processor's reordering window early (tens of nanoseconds), and costs
 * half of clock_now_ns() (10 ns against 20 here). Never to compare with
 * another thread's time.
 */
static inline uint64_t clock_lap_ns(void)
{
#if defined(__x86_64__)
	if (clock_tsc.on)
		return clock__tsc_ns(__rdtsc());
#endif
	return clock_mono_ns();
}

#endif
