/* SPDX-License-Identifier: MIT */
/*
 * The file system backend: exported directories, handles to and from
 * open files, name resolution that never leaves an export, and the
 * caller's identity. POSIX (Linux) implementation; another backend
 * (CephFS) would implement the same functions.
 *
 * DESIGN
 * - Objects are named by O_PATH file descriptors, resolved from client
 *   handles with open_by_handle_at(2) (needs CAP_DAC_READ_SEARCH, so it
 *   runs as root) and turned into handles with name_to_handle_at(2).
 * - Every operation after that runs with the caller's fsuid, fsgid and
 *   groups (per thread: setfsuid/setfsgid and the raw setgroups system
 *   call, as glibc's setgroups() would change every thread), so the
 *   kernel's own permission checks decide; a file is opened for I/O by
 *   reopening its O_PATH descriptor through /proc/self/fd, which checks
 *   the caller's permission on it.
 * - A name is one path component: never "/" or NUL inside, never empty,
 *   at most NAME_MAX bytes; symlinks are never followed; ".." at an
 *   export's root stays at the root.
 * - An export is reached through a private view of its mount that holds
 *   none of the mounts below it (open_view in posix.c): a mount point
 *   inside an export shows the directory it covers, and ".." cannot
 *   leave the export however the tree was built or moved.
 */
#ifndef NFSX_VFS_VFS_H
#define NFSX_VFS_VFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "vfs/fh.h"
#include "vfs/ops.h"

struct vfs_export {
	uint32_t id;
	const struct vfs_ops *ops;   /* what protocols call (ops.h) */
	char path[4096];
	char canon[4096];  /* realpath of path: what /proc/self/fd links show */
	int root_fd;      /* O_PATH | O_DIRECTORY */
	int mount_fd;     /* O_RDONLY: open_by_handle_at refuses O_PATH */
	int pin_fd;       /* O_PATH of the real path: keeps its mount busy */
	dev_t root_dev;
	ino_t root_ino;
	/* tmpfs/ramfs: I/O never waits for a device, so it may run on an
	 * event loop like any other work of bounded cost. */
	bool mem_backed;
	/* st_blocks counts what a file has allocated (ramfs leaves it 0):
	 * a READ_PLUS's data may be bounded by it (nfs4/compound.c). */
	bool blocks_counted;
	/* Changed only through this kernel (ext4, XFS, btrfs, f2fs, tmpfs):
	 * directory listings may be cached (dir.h). */
	bool local_fs;
	long fs_type;       /* statfs f_type of the root */
	/* preadv2(RWF_NOWAIT) answered EOPNOTSUPP here once (atomic). */
	bool no_nowait_read;
	/* root_fd is the export's private view of its mount (posix.c,
	 * open_view); else view_err says why not (0: unprivileged). */
	bool private_view;
	int view_err;
	/* An fsid set by the protocol layer (a crossed mount), else its own
	 * rule applies. */
	bool fsid_fixed;
	uint64_t fsid;
};

struct vfs_cred {
	uint32_t uid;
	uint32_t gid;
	uint32_t ngids;
	uint32_t gids[16];
};

/*
 * Unprivileged mode (nfsxd not root): handles are resolved through the
 * handle map (hmap.h) instead of open_by_handle_at, and the thread never
 * changes identity (vfs_become accepts any request and does nothing: the
 * caller squashes every client to the server's own uid, export_cred).
 */
void vfs_set_unprivileged(void);
bool vfs_privileged(void);

/*
 * vfs_renamed - @fname in @fdir was renamed to @tname in @tdir: keep the
 * handle map's paths (unprivileged mode; nothing to do otherwise).
 */
void vfs_renamed(const struct vfs_export *e, int fdir, const char *fname, int tdir,
		 const char *tname);

/* Return values: 0, or -errno. */
int vfs_export_open(struct vfs_export *e, uint32_t id, const char *path);
void vfs_export_close(struct vfs_export *e);

/*
 * vfs_become - act as @c (NULL: root) on this thread; a no-op when the
 * thread already does. Return values: 0, or -errno.
 */
int vfs_become(const struct vfs_cred *c);

/* Handle of the object @fd (an O_PATH descriptor). Return values: 0 or -errno. */
int vfs_handle_of(const uint8_t key[FH_KEY_LEN], const struct vfs_export *e,
		  int fd, struct nfsx_fh *fh);

/*
 * vfs_handle_at - handle of the entry @name of directory @dirfd (not
 * followed if a symlink), without opening it when the server is
 * privileged; *@ino gets the inode number the handle names where the
 * file system's handle layout is known (tmpfs, ext4, f2fs, XFS, btrfs),
 * else 0. Return values: 0 or -errno.
 */
int vfs_handle_at(const uint8_t key[FH_KEY_LEN], const struct vfs_export *e,
		  int dirfd, const char *name, struct nfsx_fh *fh, uint64_t *ino);

/*
 * vfs_open_handle - the object a decoded handle names, as an O_PATH
 * descriptor (resolved as root; the caller then becomes the client).
 * Return values: fd, or -ESTALE when the object no longer exists, or
 * another -errno.
 */
int vfs_open_handle(const struct vfs_export *e, const struct fh_parts *p);

/* Name check of one component. Return values: 0, -EINVAL, -ENAMETOOLONG, -EACCES. */
int vfs_check_name(const uint8_t *name, uint32_t len);

/*
 * vfs_lookup - the child @name of directory @dirfd, as an O_PATH
 * descriptor, without following a symlink. Return values: fd or -errno.
 */
int vfs_lookup(const struct vfs_export *e, int dirfd, const uint8_t *name,
	       uint32_t len);

/* Is @fd the root of @e? */
bool vfs_is_root(const struct vfs_export *e, int fd);

/* lstat of @fd. Return values: 0 or -errno. */
int vfs_stat(int fd, struct stat *st);

/* Reopen @fd for I/O with @flags, checking the caller's permission. */
int vfs_reopen(int fd, int flags);

/*
 * vfs_reopen_as_server - vfs_reopen() as the server, for what the
 * protocol has already allowed the caller @c, who is acted as again
 * afterwards. Return values: fd to close, or -errno (-EPERM when the
 * identity could not be switched: the thread never goes on as root).
 */
int vfs_reopen_as_server(int fd, int flags, const struct vfs_cred *c);

/* The POSIX backend's byte-range locks (posix_lock.c; ops.h's lock_*). */
int vfs_px_lock_open(const struct vfs_export *e, const struct vfs_obj *o, bool write,
		     const struct vfs_cred *c, struct vfs_lockh *h);
int vfs_px_lock(struct vfs_lockh *h, const struct vfs_lock *l, struct vfs_lock *held);
int vfs_px_lock_test(const struct vfs_export *e, const struct vfs_obj *o,
		     const struct vfs_lockh *h, const struct vfs_lock *l,
		     const struct vfs_cred *c, struct vfs_lock *held);
void vfs_px_lock_close(struct vfs_lockh *h);

/*
 * vfs_lock_budget - lock holders (one descriptor each) the POSIX backend
 * keeps open at once: @max, or (@max 0) the budget in force, decided at
 * the first call as a quarter of RLIMIT_NOFILE, at least 64 (nfsxd
 * raises the limit to its hard limit first, vfs_nodes_init).
 * Return values: the budget.
 */
unsigned int vfs_lock_budget(unsigned int max);
/* Return values: lock holders open now. */
unsigned int vfs_lock_holders(void);

#endif
