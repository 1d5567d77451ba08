/* SPDX-License-Identifier: MIT */
/*
 * Lease (delegation) breaking: every protocol asks here, before it
 * changes a file or one of its names, or reads a file's data or size
 * (which a write delegation's holder may have changed without telling),
 * whether a delegation on that file must first be recalled. NFSv4
 * installs the one breaker; NFSv3 (and NFSv4 itself, for another
 * client's change) calls vfs_lease_break.
 *
 * DESIGN
 * - Why in vfs: NFSv3 may not include NFSv4 (no layer calls sideways or
 *   up), yet an NFSv3 WRITE must recall an NFSv4 client's read
 *   delegation, and an NFSv3 READ or GETATTR a write delegation. The
 *   hook lives below both protocols, as Linux's break_lease() and
 *   try_break_deleg() live in its VFS: every protocol
 *   that changes files (and local processes, there) must ask, and only
 *   the lease code knows what conflicts.
 * - The file is named by (st_dev, st_ino) of the resolved object as the
 *   kernel reports them (struct stat of the export's getattr): the same
 *   pair NFSv3 and NFSv4 see for the same file, whatever handle or name
 *   led to it.
 * - Cheap when nothing is delegated: the delegation code counts what it
 *   holds (vfs_lease_count), write delegations apart; while the count
 *   that matters is 0 (all delegations for a change, write delegations
 *   for a read), vfs_lease_break is one atomic load and returns (a
 *   change also marks itself, below: one atomic add and one subtract):
 *   reads pay nothing while only read delegations are held. Callers that would need a system
 *   call only to name the file (REMOVE and RENAME know a name, not an
 *   inode) look it up only when vfs_leases_held() is true.
 * - Never blocks: the breaker only marks the delegation recalled and
 *   sends the recall asynchronously, so event-loop paths (an inline
 *   WRITE) may call it. The change itself is not made: the caller answers
 *   "try later" (NFS3ERR_JUKEBOX, NFS4ERR_DELAY) and the client retries.
 * - A change that passed its check just before a grant must not land
 *   after it unseen. So a change is marked in flight (vfs_change_mark)
 *   before it asks, until it is made (vfs_change_end); a grant counts its
 *   delegation first and then looks for a mark on its file
 *   (vfs_change_busy), and takes the grant back if it finds one. Both
 *   sides are sequentially consistent (an atomic add, then a load), so
 *   at least one sees the other: the change finds the delegation and
 *   recalls it, or the grant finds the change and is not made. This is
 *   Linux's order too: generic_add_lease inserts the lease, then checks
 *   again for a conflicting open and cancels the lease if it finds one,
 *   because break_lease is lockless. The marks
 *   are counters in a table hashed by file, one cache line each, so that
 *   changes of different files by different threads do not share a line;
 *   a hash collision only makes a grant decline, which is always allowed.
 *   A change known only by a name (REMOVE, RENAME, when no delegation is
 *   held nothing looks the name up) marks the one name-space counter
 *   instead, which every grant also looks at.
 * - One breaker, installed at server start before any handler runs and
 *   removed after the last has run: a pointer store, no lock.
 */
#ifndef NFSX_VFS_LEASE_H
#define NFSX_VFS_LEASE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Why a file is about to change (the delegation code decides which ones conflict). */
enum vfs_break_why {
	VFS_BREAK_WRITE,     /* its data (WRITE; COMMIT does not count) */
	VFS_BREAK_ATTR,      /* its attributes (SETATTR, size included) */
	VFS_BREAK_REMOVE,    /* a name of it goes (REMOVE, RENAME's replaced target;
			      * not RMDIR: directories get no delegation) */
	VFS_BREAK_RENAME,    /* it is renamed (RENAME's source) */
	VFS_BREAK_LINK,      /* a new name for it (LINK's source) */
	/* the rest only read: only a write delegation conflicts */
	VFS_BREAK_READ,      /* its data is read (READ) */
	VFS_BREAK_GETATTR,   /* its size and change are looked at (GETATTR) */
};

/*
 * The breaker: @breaker is who asks, 0 for a caller that holds no
 * delegations (NFSv3, local), else an NFSv4 clientid, whose own
 * delegations never break. Must not block.
 * Return values: 0 (no conflict) or -EAGAIN (a delegation is being
 * recalled: change nothing).
 */
typedef int vfs_lease_break_fn(void *arg, dev_t dev, ino_t ino, uint64_t breaker,
			       enum vfs_break_why why);

/**
 * vfs_lease_set_breaker() - install or remove the one breaker.
 * @fn: the breaker, or NULL to remove it.
 * @arg: passed to @fn on every call.
 *
 * Called at server start before any handler runs, and at stop after the
 * last one has: not concurrently with vfs_lease_break.
 */
void vfs_lease_set_breaker(vfs_lease_break_fn *fn, void *arg);

/**
 * vfs_lease_count() - the delegation code's count of what it holds.
 * @delta: +1 at a grant, -1 at a return or revocation.
 *
 * Thread-safe (an atomic add). A count below 0 (a caller's bug) counts
 * as none held.
 */
void vfs_lease_count(int delta);

/**
 * vfs_lease_count_write() - the delegation code's count of write delegations.
 * @delta: +1 at a grant of one, -1 at its return or revocation (besides
 * vfs_lease_count's).
 *
 * Thread-safe (an atomic add).
 */
void vfs_lease_count_write(int delta);

/**
 * vfs_leases_held() - is any delegation held?
 *
 * One atomic load (sequentially consistent, as vfs_change_busy's
 * counterpart): for callers that must pay to learn which file
 * they change (a lookup by name) and should pay only when it can matter.
 *
 * Return values: true when the count is above 0.
 */
bool vfs_leases_held(void);

/**
 * vfs_wleases_held() - is any write delegation held (which a read breaks)?
 *
 * One atomic load. Return values: true when the count is above 0.
 */
bool vfs_wleases_held(void);

/**
 * vfs_lease_break() - ask before changing the file (@dev, @ino).
 * @dev: st_dev of the file.
 * @ino: st_ino of the file.
 * @breaker: 0, or the NFSv4 clientid making the change.
 * @why: what is about to change.
 *
 * While no delegation that @why can conflict with is held (none at all;
 * for VFS_BREAK_READ and VFS_BREAK_GETATTR no write delegation), or no
 * breaker is installed, returns 0 without calling anything (one atomic
 * load). Never blocks; thread-safe.
 *
 * Return values: 0: go on; -EAGAIN: a delegation is being recalled,
 * answer "try later" and change nothing.
 */
int vfs_lease_break(dev_t dev, ino_t ino, uint64_t breaker, enum vfs_break_why why);

/* How many files one call marks before it falls back to the name-space
 * counter (RENAME marks two, NFSv4 COMPOUNDs end their marks after each
 * operation). */
#define VFS_CHANGE_FILES 4

/* The changes a call has in flight; zero-initialised is empty. */
struct vfs_change {
	uint16_t n;                       /* files marked in slot[] */
	uint16_t names;                   /* marks on the name-space counter */
	uint16_t slot[VFS_CHANGE_FILES];
};

/**
 * vfs_change_mark() - before asking whether the file (@dev, @ino) may
 * change (vfs_lease_break, or the NFSv4 breaker directly): mark it in
 * flight in @ch.
 *
 * One atomic add (sequentially consistent); the mark stays until
 * vfs_change_end(@ch), whether or not the change is then made. Past
 * VFS_CHANGE_FILES files the mark goes to the name-space counter.
 */
void vfs_change_mark(struct vfs_change *ch, dev_t dev, ino_t ino);

/**
 * vfs_change_mark_names() - before a change known only by a name (REMOVE,
 * RENAME) asks vfs_leases_held() whether to look the name up: mark the
 * name-space counter in @ch, which every grant looks at.
 */
void vfs_change_mark_names(struct vfs_change *ch);

/**
 * vfs_change_end() - the changes of @ch are made (or given up): drop
 * their marks. @ch is empty again; ending an empty one does nothing.
 */
void vfs_change_end(struct vfs_change *ch);

/**
 * vfs_change_busy() - for a grant, after it counted its delegation with
 * vfs_lease_count(): is a change of (@dev, @ino) (or one by name) in
 * flight?
 *
 * Return values: true when the grant must be taken back.
 */
bool vfs_change_busy(dev_t dev, ino_t ino);

/**
 * vfs_change_seq() - for what is remembered of a file's contents while
 * this server does not change it (READ_PLUS's hole map): a count that
 * moves whenever a change of (@dev, @ino) marked with vfs_change_mark
 * ends, into *@seq.
 *
 * Two atomic loads. A change of another file of the same hash moves it
 * too (the remembered thing is dropped for nothing). Changes known only
 * by a name (REMOVE, RENAME) do not count: they change no file's data.
 *
 * Return values: true; false (nothing in *@seq) while such a change is in
 * flight, when nothing about the file can be remembered.
 */
bool vfs_change_seq(dev_t dev, ino_t ino, uint32_t *seq);

/**
 * vfs_changes_held() - marks not ended, in all: 0 once every call has
 * ended (nfsxd checks it at exit; more is a path that forgot its end).
 */
unsigned int vfs_changes_held(void);

#endif
