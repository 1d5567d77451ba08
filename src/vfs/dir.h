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
 *   (a 50,000-entry tmpfs directory), so opening each entry for fstat,
 *   its handle and close (4 calls) would cost 10-14 µs an entry. A first
 *   listing costs two calls an entry (statx and name_to_handle_at, both
 *   by name relative to the directory), a repeated one none: names,
 *   cookies, handles and attributes come from the cache.
 * - The cache is kept correct by inotify(7): a watch on each cached
 *   directory reports, synchronously within the system call that made
 *   the change, a name created, removed or moved (the listing is dropped)
 *   and an entry's attributes or data changed (that entry's attributes
 *   are dropped). Events are read before every use of the cache, so a
 *   change completed before a call is always seen by it. Every change
 *   made through nfsxd also drops every cached attribute
 *   (vfs_dir_changed, from the wcc_data of each changing call): a file
 *   nfsxd opened by handle may hang on a dentry with no parent, whose
 *   writes no directory watch hears. What is left is bounded in time:
 *   attributes are at most VFS_DIR_ATTR_AGE seconds old after a change
 *   by a local process that the watch does not hear (an atime set by a
 *   read, data written through a shared mapping, a link to the file
 *   made from another directory and changes through it). Attributes of
 *   directories (their mtime follows changes inside them, reported to
 *   their own watch, not the parent's) and of files with several links
 *   are never served from the cache. Only file systems that change
 *   through this kernel alone are cached (vfs_export.local_fs): a network
 *   or FUSE file system changes unreported.
 * - An entry's handle is taken before its attributes, and the attributes'
 *   inode must be the one the directory listed and the one inside the
 *   handle (vfs_handle_at reads it for the cached file systems' layouts):
 *   a rename over the name between the two calls leaves the entry without
 *   either, rather than with one file's handle and another's attributes,
 *   also when the inode number was reused at once (ext4).
 * - Bounded: listings are charged to the budget set by vfs_dir_init
 *   (nfsxd --dir-cache-bytes) at the end of each call; least recently
 *   used ones are dropped first, a directory over half the budget is
 *   listed without the cache, and an unused listing is dropped (with its
 *   watch) after VFS_DIR_IDLE seconds, at the next worker call, so that
 *   watches do not tax writes for ever. A listing being read may pass
 *   its share by what one call adds before it is charged, so the total
 *   may pass the budget by at most (workers) x half the budget while
 *   large directories are being read at once.
 *   Without inotify (no instance, watch limit reached) nothing is cached.
 * - An event loop (nonblock) never waits: it takes the table's and the
 *   listing's locks by trylock, evicts nothing, and hands the call to a
 *   worker when the cache cannot answer it whole.
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
	const uint8_t *fh;        /* the handle's bytes, with st */
	uint32_t fhlen;
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

/*
 * vfs_dir_changed - something was changed through the server (data,
 * attributes, links): cached attributes are taken again by the next
 * listing of each directory. Call after the change, before the reply.
 */
void vfs_dir_changed(void);

/* What the cache holds now, for tests and statistics. */
struct vfs_dir_stats {
	size_t bytes, budget;
	unsigned int dirs;
	uint64_t hits, misses;   /* calls served from a cache / by getdents */
	uint64_t stats;          /* statx calls made for entries */
};
void vfs_dir_stats(struct vfs_dir_stats *out);

#endif
