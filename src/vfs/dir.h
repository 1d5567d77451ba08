/* SPDX-License-Identifier: MIT */
/*
 * Directory listing for every protocol (NFSv3 READDIR and READDIRPLUS,
 * NFSv4 READDIR): the entries of a directory from a cookie on, each with
 * its attributes and handle when asked for, and a cache of whole listings.
 *
 * DESIGN
 * - Cookies are the file system's own directory offsets (d_off): ext4's
 *   hash positions and tmpfs's stable offsets (Linux 6.6 and later) stay
 *   valid while the directory changes, so the cache may be dropped at any
 *   moment and a listing goes on from the same cookie by lseek(2).
 * - Cost: on this project's test machine (a paravirtualised VM) one
 *   system call costs about 1 µs and a statx(2) by name about 2.2 µs
 *   (a 50,000-entry tmpfs directory). Opening each entry, fstat, handle
 *   and close cost 4 calls, 10-14 µs an entry. A first listing now costs
 *   two calls an entry (statx and name_to_handle_at, both by name
 *   relative to the directory), a repeated one none: names, cookies,
 *   handles and attributes come from the cache.
 * - The cache is kept correct by inotify(7): a watch on each cached
 *   directory reports, synchronously within the system call that made
 *   the change, a name created, removed or moved (the listing is dropped)
 *   and an entry's attributes or data changed (that entry's attributes
 *   are dropped). Events are read before every use of the cache, so a
 *   change completed before a call is always seen by it. What inotify
 *   does not report is bounded in time instead: attributes are at most
 *   VFS_DIR_ATTR_AGE seconds old (an atime set by a read, data written
 *   through a shared mapping); attributes of directories (their mtime
 *   follows changes inside them, reported to their own watch, not the
 *   parent's) and of files with several links (changed through another
 *   name, reported to another directory) are never cached.
 * - Bounded: all listings together hold at most the budget set by
 *   vfs_dir_init (nfsxd --dir-cache-mb); least recently used ones are
 *   dropped first, a directory that does not fit is listed without the
 *   cache, and an unused listing is dropped (with its watch) after
 *   VFS_DIR_IDLE seconds so that watches do not tax writes for ever.
 *   Without inotify (no instance, watch limit reached) nothing is cached.
 */
#ifndef NFSX_VFS_DIR_H
#define NFSX_VFS_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "vfs/fh.h"

struct vfs_export;

#define VFS_DIR_ATTR_AGE 5   /* seconds */
#define VFS_DIR_IDLE 60      /* seconds */

struct vfs_dirent {
	const char *name;
	uint32_t namelen;
	uint64_t ino;
	uint64_t cookie;          /* d_off: where the next entry starts */
	const struct stat *st;    /* NULL: not asked for, or not available */
	const struct nfsx_fh *fh; /* likewise */
};

/* Where the entries go: @room says whether the entry still fits the
 * reply (false: stop before it; it comes first in the next call), @put
 * takes it. */
struct vfs_dir_sink {
	bool plus;   /* attributes and handles wanted */
	/* Only a listing the cache holds whole, on a memory-backed export:
	 * no call that may wait for a device (an event loop's call). */
	bool nonblock;
	uint32_t want;   /* about the getdents64 bytes that fill the reply */
	bool (*room)(void *arg, const struct vfs_dirent *d);
	void (*put)(void *arg, const struct vfs_dirent *d);
	void *arg;
};

/*
 * vfs_dir_init - set the cache's budget to @bytes (0: no cache).
 * Return values: 0, or -errno when inotify cannot be had (then nothing
 * is cached and listings still work).
 */
int vfs_dir_init(size_t bytes);
void vfs_dir_fini(void);

/*
 * vfs_readdir - the entries of directory @fd (any descriptor of it,
 * O_PATH will do) of export @e from @cookie (0: the start), for the
 * identity the thread acts as (it must be allowed to read the directory,
 * and to search it for attributes and handles). @dst is the directory's
 * stat, taken for this call. Handles are made with @key.
 * Return values: 0 with *@eof set (the last entry was given);
 * -EWOULDBLOCK (@s->nonblock, before any entry was given); -errno.
 * An entry whose attributes or handle cannot be had (a mount point
 * outside a private view, a name removed meanwhile) comes without them.
 */
int vfs_readdir(const uint8_t key[FH_KEY_LEN], const struct vfs_export *e,
		int fd, const struct stat *dst, uint64_t cookie,
		const struct vfs_dir_sink *s, bool *eof);

/* What the cache holds now, for tests and statistics. */
struct vfs_dir_stats {
	size_t bytes, budget;
	unsigned int dirs;
	uint64_t hits, misses;   /* calls served from a cache / by getdents */
	uint64_t stats;          /* statx calls made for entries */
};
void vfs_dir_stats(struct vfs_dir_stats *out);

#endif
