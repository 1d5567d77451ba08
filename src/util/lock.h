/* SPDX-License-Identifier: MIT */
/*
 * Locks of tables that every call touches for a few hundred
 * instructions (NFSv4 sessions, clients and state), taken by event loops
 * as well as workers.
 *
 * DESIGN
 * - Two event loops serving two connections meet on these locks on
 *   every COMPOUND. A plain mutex puts the loser to sleep in the kernel
 *   for a wait shorter than the sleep itself; an adaptive one
 *   (PTHREAD_MUTEX_ADAPTIVE_NP) spins a little first, as the kernel's own
 *   server spins on its session and state locks.
 * - A loop must never wait for a worker that holds such a lock across
 *   a disk write (the clients' restart record), so the loop's paths try
 *   the lock: lock_try_short() tries for about as long as the holder of
 *   a short section needs, then gives up (the call goes to a worker).
 */
#ifndef NFSX_UTIL_LOCK_H
#define NFSX_UTIL_LOCK_H

#include <pthread.h>
#include <stdbool.h>

/* Tries of lock_try_short(): about 2 us with the pause between them,
 * several times the longest short section. */
#define LOCK_TRY_SPINS 64

/* lock_init_short - initialise @m as a lock of short sections.
 * Return values: 0, or pthread_mutex_init()'s error. */
int lock_init_short(pthread_mutex_t *m);

/* lock_try_short - take @m if it comes free within LOCK_TRY_SPINS tries.
 * Return values: true when @m is now held. */
static inline bool lock_try_short(pthread_mutex_t *m)
{
	int i;

	for (i = 0; i < LOCK_TRY_SPINS; i++) {
		if (pthread_mutex_trylock(m) == 0)
			return true;
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#elif defined(__aarch64__)
		__asm__ __volatile__("yield");
#endif
	}
	return false;
}

#endif
