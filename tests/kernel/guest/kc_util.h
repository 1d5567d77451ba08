/* SPDX-License-Identifier: MIT */
/*
 * What the guest's test programs (kc_sp.c, kc_xc.c, kc_clone.c) share:
 * a failure said on stderr with the value and errno that made it, as
 * guest/test.sh shows a step's output when it fails.
 */
#ifndef KC_UTIL_H
#define KC_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The program's name, for its messages: main sets it first. */
static const char *kc_name = "kc";

/* Say that @what went wrong (@got: the value found). Return values: 1,
 * the exit status of a failed step. */
static inline int kc_fail(const char *what, long got)
{
	fprintf(stderr, "%s: %s (got %ld, errno %d %s)\n", kc_name, what, got, errno,
		strerror(errno));
	return 1;
}

#endif
