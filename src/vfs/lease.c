/* SPDX-License-Identifier: MIT */
/* Lease (delegation) breaking: see lease.h. */
#include "vfs/lease.h"

#include <stdatomic.h>
#include <stddef.h>

/* Delegations held in all, as the delegation code counts them. */
static atomic_int lease_n;
/* Write delegations among them: what a read must ask about. */
static atomic_int lease_w;
/* The breaker and its argument: written only while no handler runs
 * (lease.h), atomics so that readers on other threads see a whole pointer. */
static _Atomic(vfs_lease_break_fn *) lease_fn;
static _Atomic(void *) lease_arg;

void vfs_lease_set_breaker(vfs_lease_break_fn *fn, void *arg)
{
	/* The argument first: a reader that sees the new breaker sees it. */
	atomic_store_explicit(&lease_arg, fn ? arg : NULL, memory_order_relaxed);
	atomic_store_explicit(&lease_fn, fn, memory_order_release);
}

void vfs_lease_count(int delta)
{
	atomic_fetch_add_explicit(&lease_n, delta, memory_order_relaxed);
}

void vfs_lease_count_write(int delta)
{
	atomic_fetch_add_explicit(&lease_w, delta, memory_order_relaxed);
}

bool vfs_leases_held(void)
{
	return atomic_load_explicit(&lease_n, memory_order_relaxed) > 0;
}

bool vfs_wleases_held(void)
{
	return atomic_load_explicit(&lease_w, memory_order_relaxed) > 0;
}

int vfs_lease_break(dev_t dev, ino_t ino, uint64_t breaker, enum vfs_break_why why)
{
	vfs_lease_break_fn *fn;

	/* The fast path: nothing delegated that could conflict, nothing to ask. */
	if (why == VFS_BREAK_READ || why == VFS_BREAK_GETATTR) {
		if (!vfs_wleases_held())
			return 0;
	} else if (!vfs_leases_held()) {
		return 0;
	}
	fn = atomic_load_explicit(&lease_fn, memory_order_acquire);
	if (!fn)
		return 0;
	return fn(atomic_load_explicit(&lease_arg, memory_order_relaxed), dev, ino, breaker,
		  why);
}
