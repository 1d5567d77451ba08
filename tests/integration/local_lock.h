/* SPDX-License-Identifier: MIT */
/*
 * A local process's view of the locks nfsxd holds: OFD locks taken
 * through a path of the exported tree, as another program on the
 * server's host would take them. A check must tell "held" from "could
 * not even try" (a missing file, a permission error), so the answers
 * are three-way and only -EAGAIN means a conflicting lock.
 */
#ifndef NFSX_TEST_LOCAL_LOCK_H
#define NFSX_TEST_LOCAL_LOCK_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/*
 * local_lock_hold - take an OFD lock of @type on [@start, @start + @len)
 * (@len 0: to the end) of @path, opened for reading and writing for a
 * write lock and for reading only for a read lock.
 *
 * Return values: the descriptor holding the lock (the caller closes it
 * to let go), -EAGAIN when a conflicting lock is held (F_OFD_SETLK's
 * EACCES counts as such), or another -errno when the file could not be
 * opened or locked.
 */
static inline int local_lock_hold(const char *path, short type, off_t start, off_t len)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };
	int lfd = open(path, (type == F_WRLCK ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	int e;

	if (lfd < 0)
		return -errno;
	if (fcntl(lfd, F_OFD_SETLK, &fl) == 0)
		return lfd;
	e = errno == EACCES ? EAGAIN : errno;
	close(lfd);
	return -e;
}

/*
 * local_lock_try - could a local process lock the range now? The lock
 * is taken and let go at once. Anything but a conflict is printed as a
 * TAP comment, so that a failing check says why.
 *
 * Return values: 0 the range is free, -EAGAIN a conflicting lock is
 * held, another -errno the question could not be asked.
 */
static inline int local_lock_try(const char *path, short type, off_t start, off_t len)
{
	int l = local_lock_hold(path, type, start, len);

	if (l >= 0) {
		close(l);
		return 0;
	}
	if (l != -EAGAIN)
		printf("#   local lock of %s: %s\n", path, strerror(-l));
	return l;
}

#endif
