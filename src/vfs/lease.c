/* SPDX-License-Identifier: MIT */
/* Lease (delegation) breaking: see lease.h. */
#include "vfs/lease.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* Delegations held in all, as the delegation code counts them. */
static atomic_int lease_n;
/* Write delegations among them: what a read must ask about. */
static atomic_int lease_w;
/* The breaker and its argument: written only while no handler runs
 * (lease.h), atomics so that readers on other threads see a whole pointer. */
static _Atomic(vfs_lease_break_fn *) lease_fn;
static _Atomic(void *) lease_arg;

/* Changes in flight by file hash (vfs_change_mark), a cache line each,
 * with the count of those ended (vfs_change_seq); and the name-space
 * counter. 256 lines: 16 KiB. */
#define MARK_SLOTS 256u
static struct {
	atomic_uint n;
	atomic_uint ended;
	char pad[64 - 2 * sizeof(atomic_uint)];
} marks[MARK_SLOTS] __attribute__((aligned(64)));
static struct {
	atomic_uint n;
	char pad[64 - sizeof(atomic_uint)];
} names __attribute__((aligned(64)));

void vfs_lease_set_breaker(vfs_lease_break_fn *fn, void *arg)
{
	/* The argument first: a reader that sees the new breaker sees it. */
	atomic_store_explicit(&lease_arg, fn ? arg : NULL, memory_order_relaxed);
	atomic_store_explicit(&lease_fn, fn, memory_order_release);
}

void vfs_lease_count(int delta)
{
	/* sequentially consistent: a grant's count, then its
	 * vfs_change_busy, against a change's mark, then its load (lease.h) */
	atomic_fetch_add_explicit(&lease_n, delta, memory_order_seq_cst);
}

void vfs_lease_count_write(int delta)
{
	atomic_fetch_add_explicit(&lease_w, delta, memory_order_relaxed);
}

bool vfs_leases_held(void)
{
	return atomic_load_explicit(&lease_n, memory_order_seq_cst) > 0;
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
	} else if (!vfs_leases_held()) { /* after the caller's mark */
		return 0;
	}
	fn = atomic_load_explicit(&lease_fn, memory_order_acquire);
	if (!fn)
		return 0;
	return fn(atomic_load_explicit(&lease_arg, memory_order_relaxed), dev, ino, breaker,
		  why);
}

static unsigned int slot_of(dev_t dev, ino_t ino)
{
	uint64_t h = ((uint64_t)ino ^ ((uint64_t)dev << 32 | (uint64_t)dev >> 32)) *
		     0x9e3779b97f4a7c15ull;

	return (unsigned int)(h >> 56) % MARK_SLOTS;
}

void vfs_change_mark(struct vfs_change *ch, dev_t dev, ino_t ino)
{
	unsigned int s;

	if (ch->n >= VFS_CHANGE_FILES) {
		vfs_change_mark_names(ch);
		return;
	}
	s = slot_of(dev, ino);
	ch->slot[ch->n++] = (uint16_t)s;
	atomic_fetch_add_explicit(&marks[s].n, 1, memory_order_seq_cst);
}

void vfs_change_mark_names(struct vfs_change *ch)
{
	ch->names++;
	atomic_fetch_add_explicit(&names.n, 1, memory_order_seq_cst);
}

void vfs_change_end(struct vfs_change *ch)
{
	unsigned int i;

	/* release: the change is made before a grant sees its mark gone;
	 * counted ended before the mark goes, so that vfs_change_seq sees
	 * one or the other */
	for (i = 0; i < ch->n; i++) {
		atomic_fetch_add_explicit(&marks[ch->slot[i]].ended, 1, memory_order_seq_cst);
		atomic_fetch_sub_explicit(&marks[ch->slot[i]].n, 1, memory_order_release);
	}
	if (ch->names)
		atomic_fetch_sub_explicit(&names.n, ch->names, memory_order_release);
	ch->n = 0;
	ch->names = 0;
}

bool vfs_change_busy(dev_t dev, ino_t ino)
{
	return atomic_load_explicit(&marks[slot_of(dev, ino)].n, memory_order_seq_cst) > 0 ||
	       atomic_load_explicit(&names.n, memory_order_seq_cst) > 0;
}

bool vfs_change_seq(dev_t dev, ino_t ino, uint32_t *seq)
{
	unsigned int s = slot_of(dev, ino);

	if (atomic_load_explicit(&marks[s].n, memory_order_seq_cst) > 0)
		return false;
	*seq = atomic_load_explicit(&marks[s].ended, memory_order_seq_cst);
	return true;
}

unsigned int vfs_changes_held(void)
{
	unsigned int i, n = atomic_load(&names.n);

	for (i = 0; i < MARK_SLOTS; i++)
		n += atomic_load(&marks[i].n);
	return n;
}
