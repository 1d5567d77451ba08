/* SPDX-License-Identifier: MIT */
/*
 * Open-object cache: client handles to open descriptors, shared by all
 * threads.
 *
 * DESIGN
 * - Resolving a handle costs open_by_handle_at(2) (as root, so two
 *   identity switches for a squashed caller) and an I/O call used to
 *   reopen the object through /proc/self/fd: four to ten system calls
 *   around one pread. Linux's nfsd keeps an open-file cache (nfsd_file)
 *   for the same reason. Here a node keeps the O_PATH descriptor of an
 *   object and, once asked for, a read and a write descriptor opened as
 *   root; the caller's permission is checked on every call instead
 *   (faccessat(2) under the caller's identity, see export_open_io), as
 *   nfsd checks nfsd_permission() against its cached files.
 * - A hit costs no system call, so an event loop may resolve a handle
 *   without blocking; a miss may read an inode from disk and is left to
 *   a worker thread (vfs_node_get with may_block false says -EWOULDBLOCK).
 * - Removed objects: callers check st_nlink on every use (0 means
 *   removed: the node is forgotten and the client gets STALE), and
 *   REMOVE/RMDIR/RENAME forget the victim's node so a cached descriptor
 *   never keeps a deleted file's blocks allocated for long; objects
 *   removed behind the server's back are closed by a sweep
 *   (vfs_nodes_sweep_removed) once unused.
 * - Pinned nodes (vfs_node_pin): NFSv4's open state holds the node of
 *   each open file, as knfsd's nfs4_file holds an nfsd_file, so the file
 *   stays reachable through its handle after its last link goes, until
 *   its last open does (callers then skip the st_nlink check). A pinned
 *   node stays cached: forgetting it by name or node, eviction and the
 *   sweep pass it by (a reload's vfs_nodes_forget_export does not).
 *   At most half the capacity is pinned at a time.
 * - Bounded: at most @capacity unpinned nodes (each up to three
 *   descriptors), least recently used first out, plus the pinned ones
 *   (at most capacity / 2 more, on a list of their own, which eviction
 *   does not walk); a node in use is closed when its last user puts it.
 *   Up to 64 shards, each with its own mutex and LRU, no
 *   other lock taken while one is held. Each shard holds at least 32
 *   nodes (fewer shards for a smaller cache), so that its LRU stays close
 *   to the whole cache's; a cache of fewer than 64 nodes is one shard,
 *   evicted in exact LRU order.
 */
#ifndef NFSX_VFS_NODE_H
#define NFSX_VFS_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vfs/fh.h"

struct vfs_export;
struct vfs_node;

/*
 * vfs_nodes_init - size the cache for @capacity nodes (0: a default that
 * fits RLIMIT_NOFILE, which is raised to its hard limit).
 * Return values: the capacity chosen.
 */
unsigned int vfs_nodes_init(unsigned int capacity);
/* Close every node; no node may be in use. */
void vfs_nodes_fini(void);

/*
 * vfs_node_get - the node of a decoded handle, referenced.
 * On a miss, @may_block false returns -EWOULDBLOCK; true opens the
 * object (the caller must be root).
 * Return values: 0 with *@out set, -EWOULDBLOCK, -ESTALE, other -errno.
 */
int vfs_node_get(const struct vfs_export *e, const struct fh_parts *p,
		 bool may_block, struct vfs_node **out);
void vfs_node_put(struct vfs_node *n);

/* The O_PATH descriptor of @n. */
int vfs_node_fd(const struct vfs_node *n);

/*
 * vfs_node_io_fd - @n's descriptor for O_RDONLY or O_WRONLY I/O, or -1
 * when not opened yet. vfs_node_open_io opens it with the thread's
 * current identity (root, so that one descriptor serves every caller).
 * Return values: fd, or -errno.
 */
int vfs_node_io_fd(const struct vfs_node *n, int acc);
int vfs_node_open_io(struct vfs_node *n, int acc);

/*
 * vfs_node_map - a shared mapping of regular file @n for reading
 * (@acc O_RDONLY: PROT_READ) or writing (O_WRONLY: PROT_READ|PROT_WRITE),
 * made on the first call with the thread's identity (nfs3: the caller's,
 * which must be able to open the file for reading, or reading and
 * writing) and kept until the node is closed: I/O through it costs no
 * mmap, munmap, page fault or page lock per call once its pages are
 * mapped (nfs3_attr.c, nfs3_write.c). It covers the file's size when it
 * was made; the caller must keep within the file's current size (beyond
 * it an access faults: SIGBUS in user code, EFAULT in a system call's
 * copy) and hold the node while the mapping is in use.
 * Return values: the base, with *@len the mapped length, when @end bytes
 * are covered; NULL when they are not, or the file is larger than
 * VFS_MAP_MAX, or every node's mappings together would pass
 * VFS_MAP_BUDGET bytes or VFS_MAP_COUNT mappings. A node whose mapping
 * could not be made for a reason that lasts (size, bounds, mmap) is not
 * tried again while it is cached.
 */
#define VFS_MAP_MAX (16ull << 30)
#define VFS_MAP_BUDGET ((size_t)32 << 30)
#define VFS_MAP_COUNT 4096u
uint8_t *vfs_node_map(struct vfs_node *n, int acc, uint64_t end, size_t *len);

/*
 * vfs_node_map_populate - map the pages of [@off, @off + @len) of @n's
 * write mapping in one call (MADV_POPULATE_WRITE), unless this mapping
 * has done so for each of them already: a copy into a populated mapping
 * takes no fault per page, and populating pages already mapped still
 * walks them (a tenth of nfsxd's time in a 1 MiB sequential write).
 * Return values: 0; -EFAULT when a page is past the end of the file (it
 * was truncated); -EINVAL when the write mapping does not cover the range.
 */
int vfs_node_map_populate(struct vfs_node *n, uint64_t off, size_t len);

/*
 * vfs_map_resident - is every page of [@p, @p + @len), in a mapping
 * vfs_node_map gave, in memory (mincore)? A read fault in a tmpfs hole
 * would allocate the page (read(2) uses the zero page), so sparse and
 * swapped-out ranges are read the ordinary way.
 */
bool vfs_map_resident(const uint8_t *p, size_t len);

/* Another reference to @n, held by a caller that already holds one. */
void vfs_node_hold(struct vfs_node *n);

/*
 * vfs_node_pin - keep @n (held by the caller) cached and reachable by
 * its handle until vfs_node_unpin, removed or not: a reference of its
 * own, and vfs_node_pinned() true. Pins nest.
 * Return values: true; false when @n is no longer cached or half the
 * cache's capacity is pinned already (nothing taken).
 */
bool vfs_node_pin(struct vfs_node *n);
/* Let go of one pin of @n and its reference. Never closes anything: the
 * last close of a file whose last link went frees its blocks, which
 * takes as long as the file is big, and the caller (the NFSv4 state
 * table) holds its lock; a node the cache no longer holds is closed by
 * the next vfs_nodes_sweep_removed(). A pinned node is off the LRU list
 * and outside the shard's capacity (the pin budget bounds it). */
void vfs_node_unpin(struct vfs_node *n);
/* Return values: is @n pinned (may its object be reached after its last
 * link went)? */
bool vfs_node_pinned(const struct vfs_node *n);
/* Nodes pinned now (for tests and statistics). */
unsigned int vfs_nodes_pinned(void);

/* Drop @n from the cache (it stays usable by whoever holds it). */
void vfs_node_forget(struct vfs_node *n);

/* Drop the node of @name in @dirfd, if cached (called before it is removed). */
void vfs_node_forget_name(const struct vfs_export *e, int dirfd, const char *name);

/* Drop every node of export @id (removed or reopened by a reload). */
void vfs_nodes_forget_export(uint32_t id);

/*
 * Close the unused nodes of objects removed since they were cached
 * (st_nlink 0): removed by someone other than this server's clients,
 * whose REMOVE and RMDIR forget the node at once, or unpinned after their
 * removal. A cached node keeps its object's blocks allocated, as an open
 * file does; nfsxd sweeps every 2 s, as nfsd's file cache closes idle
 * files. Also closes the nodes vfs_node_unpin left for it.
 * Return values: the nodes closed.
 */
unsigned int vfs_nodes_sweep_removed(void);

/* Nodes cached now, pinned ones aside (for tests and statistics). */
unsigned int vfs_nodes_count(void);

/* The open-object (node) cache, for statistics. */
struct vfs_node_stats {
	uint64_t hits;       /* vfs_node_get found the node cached */
	uint64_t misses;     /* ... had to open it */
	uint64_t evictions;  /* nodes closed to make room */
	uint64_t nodes;      /* cached now */
	uint64_t pinned;     /* of those, pinned (NFSv4 opens) */
	uint64_t map_bytes;  /* bytes of file mappings kept */
};

/*
 * vfs_node_stats_get - the cache's counts now into @st (all zero
 * before vfs_nodes_init). A hit or a miss costs its shard a relaxed
 * store inside the lock section vfs_node_get takes anyway; reading
 * sums them over the shards without a lock and takes each shard's lock
 * for a moment for @nodes and @pinned (no walk). @misses counts the
 * calls that opened the object (may_block), whether or not another
 * thread's open won the race; a call without may_block that would have
 * had to open it is neither (its caller tries again on a worker, which
 * counts). Pinned nodes a reload took out of the table are not
 * @pinned. The counts restart at vfs_nodes_fini.
 */
void vfs_node_stats_get(struct vfs_node_stats *st);

#endif
