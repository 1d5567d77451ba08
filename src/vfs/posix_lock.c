/* SPDX-License-Identifier: MIT */
/*
 * The POSIX backend's byte-range locks (ops.h: lock_open, lock,
 * lock_test, lock_close): open file description (OFD) locks, which local
 * processes see and conflict with, as their POSIX and OFD locks.
 *
 * DESIGN
 * - An OFD lock belongs to the open file description it was taken on,
 *   so a holder is a description of its own: the object's O_PATH
 *   descriptor reopened through /proc/self/fd, as the server (the
 *   protocol checked the caller when the file was opened), O_RDONLY or
 *   (write) O_RDWR: F_OFD_SETLK wants read access for a read lock and
 *   write access for a write lock, and a holder is never opened
 *   write-only, so one holder always takes both kinds once it has
 *   write. O_NONBLOCK: an open for writing that would have to break a
 *   local process's lease fails with EWOULDBLOCK instead of waiting.
 * - Only F_OFD_SETLK and F_OFD_GETLK, never F_OFD_SETLKW: nfsxd's
 *   threads must not wait for a local process.
 * - Ranges: off_t stops at 2^63 - 1 (OFFSET_MAX), where a lock "to the
 *   end" (l_len 0) stops too; the part of a range past it is not held
 *   here (no local process can name it) and a range wholly past it is
 *   not held at all, so two ranges never alias on the last offset.
 * - Budget: each holder is a descriptor, counted in one atomic counter
 *   against vfs_lock_budget (a quarter of RLIMIT_NOFILE unless set), so
 *   that locks never take the descriptors that connections and the
 *   open-object cache need; past it lock_open is -EMFILE, as it is when
 *   the process runs out of descriptors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "util/num.h"
#include "vfs/ops.h"
#include "vfs/vfs.h"

#define BUDGET_MIN 64u

static unsigned int budget;     /* 0: not decided yet */
static unsigned int holders;

unsigned int vfs_lock_budget(unsigned int max)
{
	unsigned int b = max ? 0 : __atomic_load_n(&budget, __ATOMIC_RELAXED);
	struct rlimit rl;

	if (b)
		return b;
	b = max;
	if (!b) {
		rlim_t n = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur / 4 : 0;

		b = n > 1u << 30 ? 1u << 30 : (unsigned int)n;
		if (b < BUDGET_MIN)
			b = BUDGET_MIN;
	}
	/* two first callers decide the same value */
	__atomic_store_n(&budget, b, __ATOMIC_RELAXED);
	return b;
}

unsigned int vfs_lock_holders(void)
{
	return __atomic_load_n(&holders, __ATOMIC_RELAXED);
}

static bool slot_take(void)
{
	return util_take(&holders, 1, vfs_lock_budget(0));
}

static void slot_put(void)
{
	util_give(&holders, 1);
}

int vfs_px_lock_open(const struct vfs_export *e, const struct vfs_obj *o, bool write,
		     const struct vfs_cred *c, struct vfs_lockh *h)
{
	int fd;

	(void)e;
	*h = VFS_LOCKH_NONE;
	if (!slot_take())
		return -EMFILE;
	fd = vfs_reopen_as_server(o->fd, (write ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_NOCTTY, c);
	if (fd < 0) {
		slot_put();
		return fd;
	}
	h->fd = fd;
	h->write = write;
	return 0;
}

void vfs_px_lock_close(struct vfs_lockh *h)
{
	if (!vfs_lockh_ok(h))
		return;
	/* closing the description releases its OFD locks */
	close(h->fd);
	slot_put();
	*h = VFS_LOCKH_NONE;
}

/* @l as a struct flock. Return values: 1, 0 when no offset of it is one
 * a local process can name (nothing to do), -EINVAL for a range that
 * ends before it starts. */
static int to_flock(const struct vfs_lock *l, struct flock *fl)
{
	memset(fl, 0, sizeof(*fl));
	fl->l_type = l->type == VFS_LOCK_READ ? F_RDLCK :
		     l->type == VFS_LOCK_WRITE ? F_WRLCK : F_UNLCK;
	fl->l_whence = SEEK_SET;
	if (l->end < l->start)
		return -EINVAL;
	if (l->start > (uint64_t)INT64_MAX)
		return 0;
	fl->l_start = (off_t)l->start;
	/* 0: to OFFSET_MAX, which is where a longer range stops too */
	fl->l_len = l->end >= (uint64_t)INT64_MAX ? 0 : (off_t)(l->end - l->start + 1);
	return 1;
}

static void from_flock(const struct flock *fl, struct vfs_lock *l)
{
	l->type = fl->l_type == F_RDLCK ? VFS_LOCK_READ : VFS_LOCK_WRITE;
	l->start = (uint64_t)fl->l_start;
	l->end = fl->l_len <= 0 ? VFS_LOCK_END : (uint64_t)fl->l_start + (uint64_t)fl->l_len - 1;
	/* F_OFD_GETLK says -1 for an OFD lock, which has no process */
	l->pid = fl->l_pid > 0 ? fl->l_pid : -1;
}

int vfs_px_lock(struct vfs_lockh *h, const struct vfs_lock *l, struct vfs_lock *held)
{
	struct flock fl, q;
	int tries;

	if (!vfs_lockh_ok(h) || (l->type == VFS_LOCK_WRITE && !h->write))
		return -EBADF;
	tries = to_flock(l, &fl);
	if (tries <= 0)
		return tries;
	/* the conflicting lock may go between the two calls: try again */
	for (tries = 0; tries < 3; tries++) {
		if (fcntl(h->fd, F_OFD_SETLK, &fl) == 0)
			return 0;
		if (errno != EAGAIN && errno != EACCES)
			return -errno;
		if (!held)
			return -EAGAIN;
		q = fl;
		if (fcntl(h->fd, F_OFD_GETLK, &q) < 0)
			return -errno;
		if (q.l_type != F_UNLCK) {
			from_flock(&q, held);
			return -EAGAIN;
		}
	}
	/* it keeps coming and going: the range asked, holder unknown */
	held->type = VFS_LOCK_WRITE;
	held->start = l->start;
	held->end = l->end;
	held->pid = -1;
	return -EAGAIN;
}

int vfs_px_lock_test(const struct vfs_export *e, const struct vfs_obj *o,
		     const struct vfs_lockh *h, const struct vfs_lock *l,
		     const struct vfs_cred *c, struct vfs_lock *held)
{
	struct flock fl;
	int fd, r;

	(void)e;
	(void)c;
	r = to_flock(l, &fl);
	if (r <= 0 || fl.l_type == F_UNLCK)
		return r;
	/* F_OFD_GETLK skips the locks of the description asked with: the
	 * holder's own, or (none yet) a new one's, which has none. That one
	 * is opened as the caller, who must be able to read the file (as
	 * knfsd's LOCKT), and closed at once, outside the budget. */
	fd = vfs_lockh_ok(h) ? h->fd : vfs_reopen(o->fd, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return fd;
	r = fcntl(fd, F_OFD_GETLK, &fl) < 0 ? -errno : 0;
	if (r == 0 && fl.l_type != F_UNLCK) {
		from_flock(&fl, held);
		r = -EAGAIN;
	}
	if (!vfs_lockh_ok(h))
		close(fd);
	return r;
}
