/* SPDX-License-Identifier: MIT */
/* The server's clock for intervals: see clock.h. */
#include "util/clock.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct clock_tsc clock_tsc;

#if defined(__x86_64__)
/* Does the kernel keep its own clock on the counter? */
static bool kernel_uses_tsc(void)
{
	char name[32] = "";
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
	bool yes;

	if (!f)
		return false;
	yes = fgets(name, sizeof(name), f) && strcmp(name, "tsc\n") == 0;
	fclose(f);
	return yes;
}

/* One (counter, CLOCK_MONOTONIC) pair: of a few tries, the one whose
 * clock read the counter reads bracket most tightly. */
static void pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < 16; i++) {
		uint64_t a = __rdtsc(), n = clock_mono_ns(), b = __rdtsc();

		if (b > a && b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = n;
		}
	}
}
#endif

bool clock_init(void)
{
#if defined(__x86_64__)
	struct timespec nap = { 0, CLOCK_CALIBRATE_NS };
	uint64_t t0 = 0, n0 = 0, t1 = 0, n1 = 0;

	if (clock_tsc.on || !kernel_uses_tsc())
		return clock_tsc.on;
	pair(&t0, &n0);
	while (nanosleep(&nap, &nap) != 0 && errno == EINTR)
		;
	pair(&t1, &n1);
	if (t1 <= t0 || n1 <= n0 || n1 - n0 < CLOCK_CALIBRATE_NS / 2)
		return false;
	clock_tsc.mult = (uint64_t)((((unsigned __int128)(n1 - n0)) << 32) / (t1 - t0));
	clock_tsc.tsc0 = t1;
	clock_tsc.ns0 = n1;
	clock_tsc.on = clock_tsc.mult != 0;
	return clock_tsc.on;
#else
	return false;
#endif
}
