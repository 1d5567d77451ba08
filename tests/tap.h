/* SPDX-License-Identifier: MIT */
/*
 * Minimal TAP producer for unit tests (meson runs them with protocol 'tap').
 * ok() records one assertion; tap_done() prints the plan and returns the
 * exit status, non-zero when any assertion failed.
 */
#ifndef NFSX_TAP_H
#define NFSX_TAP_H

#include <stdarg.h>
#include <stdio.h>

/* Weak, not static: a test made of several files counts in one place. */
__attribute__((weak)) int tap__n, tap__failed;

__attribute__((format(printf, 4, 5), unused))
static int tap__ok(int cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	tap__n++;
	printf("%s %d - ", cond ? "ok" : "not ok", tap__n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond) {
		tap__failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return cond;
}

#define ok(cond, ...) tap__ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

__attribute__((unused))
static int tap_done(void)
{
	printf("1..%d\n", tap__n);
	if (tap__failed)
		printf("# %d of %d assertions failed\n", tap__failed, tap__n);
	return tap__failed ? 1 : 0;
}

#endif
