/* SPDX-License-Identifier: MIT */
/* Locks of short sections: see lock.h. */
#include "util/lock.h"

int lock_init_short(pthread_mutex_t *m)
{
	pthread_mutexattr_t a;
	int err;

	err = pthread_mutexattr_init(&a);
	if (err)
		return err;
#ifdef PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP
	/* glibc: spin before sleeping (elsewhere a plain mutex) */
	(void)pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
	err = pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	return err;
}
