/* SPDX-License-Identifier: MIT */
/*
 * The lease-break hook (src/vfs/lease.c): while no delegation is counted
 * the breaker is never called; once one is, the breaker gets the file,
 * the breaker id and the reason, and its answer is passed through;
 * without a breaker the answer is 0. READ and GETATTR ask only while a
 * write delegation is counted. Change marks: busy while any call that
 * marked the file (or the name space) has not ended.
 */
#include <errno.h>

#include "tap.h"
#include "vfs/lease.h"

struct seen {
	int calls;
	void *arg;
	dev_t dev;
	ino_t ino;
	uint64_t breaker;
	enum vfs_break_why why;
	int answer;
};

static struct seen seen;

static int breaker(void *arg, dev_t dev, ino_t ino, uint64_t who, enum vfs_break_why why)
{
	seen.calls++;
	seen.arg = arg;
	seen.dev = dev;
	seen.ino = ino;
	seen.breaker = who;
	seen.why = why;
	return seen.answer;
}

int main(void)
{
	static int cookie;
	static const enum vfs_break_why whys[] = {
		VFS_BREAK_WRITE, VFS_BREAK_ATTR, VFS_BREAK_REMOVE, VFS_BREAK_RENAME,
		VFS_BREAK_LINK,
	};
	unsigned int i;
	bool all;

	ok(!vfs_leases_held(), "at start: no delegation held");
	ok(vfs_lease_break(1, 2, 0, VFS_BREAK_WRITE) == 0, "no breaker, no count: 0");

	vfs_lease_set_breaker(breaker, &cookie);
	seen.answer = -EAGAIN;
	ok(vfs_lease_break(7, 42, 0, VFS_BREAK_WRITE) == 0 && seen.calls == 0,
	   "count 0: 0, breaker not called (even one that would say -EAGAIN)");

	vfs_lease_count(+1);
	ok(vfs_leases_held(), "count 1: held");
	ok(vfs_lease_break(7, 42, 0, VFS_BREAK_WRITE) == -EAGAIN && seen.calls == 1,
	   "count 1: the breaker's -EAGAIN passed through");
	ok(seen.arg == &cookie && seen.dev == 7 && seen.ino == 42 && seen.breaker == 0 &&
	   seen.why == VFS_BREAK_WRITE,
	   "the breaker got its argument, dev 7, ino 42, breaker 0, WRITE");

	seen.answer = 0;
	ok(vfs_lease_break(9, (ino_t)1 << 40, 0x1234567890abcdefull, VFS_BREAK_RENAME) == 0 &&
	   seen.calls == 2, "the breaker's 0 passed through");
	ok(seen.dev == 9 && seen.ino == (ino_t)1 << 40 &&
	   seen.breaker == 0x1234567890abcdefull && seen.why == VFS_BREAK_RENAME,
	   "64-bit inode and clientid reach the breaker whole; RENAME");

	all = true;
	for (i = 0; i < sizeof(whys) / sizeof(whys[0]); i++) {
		seen.why = (enum vfs_break_why)-1;
		vfs_lease_break(1, 1, 0, whys[i]);
		all = all && seen.why == whys[i];
	}
	ok(all && seen.calls == 7, "every reason reaches the breaker as given");

	vfs_lease_count(+1);
	vfs_lease_count(-1);
	ok(vfs_leases_held(), "+1 +1 -1: still held");
	vfs_lease_count(-1);
	ok(!vfs_leases_held(), "back to 0: not held");
	seen.answer = -EAGAIN;
	ok(vfs_lease_break(7, 42, 0, VFS_BREAK_ATTR) == 0 && seen.calls == 7,
	   "back to 0: breaker not called again");

	vfs_lease_count(+1);
	vfs_lease_set_breaker(NULL, NULL);
	ok(vfs_lease_break(7, 42, 0, VFS_BREAK_ATTR) == 0 && seen.calls == 7,
	   "breaker removed, count 1: 0, nothing called");
	vfs_lease_set_breaker(breaker, &cookie);
	ok(vfs_lease_break(7, 42, 0, VFS_BREAK_ATTR) == -EAGAIN && seen.calls == 8,
	   "installed again: asked again");
	seen.answer = -EAGAIN;
	ok(vfs_lease_break(7, 42, 0, VFS_BREAK_READ) == 0 &&
	   vfs_lease_break(7, 42, 0, VFS_BREAK_GETATTR) == 0 && seen.calls == 8,
	   "a delegation counted, no write one: READ and GETATTR not asked");
	vfs_lease_count_write(+1);
	ok(vfs_lease_break(7, 42, 5, VFS_BREAK_READ) == -EAGAIN && seen.calls == 9 &&
	   seen.why == VFS_BREAK_READ && seen.breaker == 5 &&
	   vfs_lease_break(7, 42, 0, VFS_BREAK_GETATTR) == -EAGAIN && seen.calls == 10 &&
	   seen.why == VFS_BREAK_GETATTR, "a write one counted: READ and GETATTR asked");
	vfs_lease_count_write(-1);
	ok(vfs_lease_break(7, 42, 0, VFS_BREAK_READ) == 0 && seen.calls == 10,
	   "write count back to 0: READ not asked again");
	vfs_lease_set_breaker(NULL, NULL);
	vfs_lease_count(-1);

	/* changes in flight: what a grant looks at after it counted */
	{
		struct vfs_change a = { 0 }, b = { 0 };

		ok(!vfs_change_busy(7, 42) && vfs_changes_held() == 0, "no mark: nothing busy");
		vfs_change_mark(&a, 7, 42);
		vfs_change_mark(&b, 7, 42);
		ok(vfs_change_busy(7, 42) && vfs_changes_held() == 2,
		   "two calls change one file: busy, 2 marks");
		vfs_change_end(&a);
		ok(vfs_change_busy(7, 42) && vfs_changes_held() == 1,
		   "one ends: still busy (the other's)");
		vfs_change_end(&b);
		vfs_change_end(&b);
		ok(!vfs_change_busy(7, 42) && vfs_changes_held() == 0,
		   "both end (an empty end does nothing): not busy");
		vfs_change_mark_names(&a);
		ok(vfs_change_busy(7, 42) && vfs_change_busy(1, 2),
		   "a change by name: every file busy");
		vfs_change_end(&a);
		ok(!vfs_change_busy(1, 2) && vfs_changes_held() == 0, "ended: none");
	}

	/* the count of changes ended, for what is remembered of a file */
	{
		struct vfs_change a = { 0 };
		uint32_t s0 = 0, s1 = 0, s2 = 0;
		bool r0, r1, r2;

		r0 = vfs_change_seq(7, 43, &s0);
		r1 = vfs_change_seq(7, 43, &s1);
		ok(r0 && r1 && s0 == s1, "no change: the count stays");
		vfs_change_mark(&a, 7, 43);
		ok(!vfs_change_seq(7, 43, &s1), "a change in flight: no count");
		vfs_change_end(&a);
		r1 = vfs_change_seq(7, 43, &s1);
		ok(r1 && s1 != s0, "the change ended: the count moved");
		vfs_change_mark_names(&a);
		vfs_change_end(&a);
		r2 = vfs_change_seq(7, 43, &s2);
		ok(r2 && s2 == s1, "a change by name: no file's count moves");
	}
	return tap_done();
}
