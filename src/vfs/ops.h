/* SPDX-License-Identifier: MIT */
/*
 * The backend's operations: what a protocol (NFSv3, MOUNT, NFSv4) asks of
 * the file system, through the table of its export (vfs_export.ops),
 * never with a system call of its own. The POSIX backend (posix_ops.c)
 * is the one implementation today; a CephFS backend (libcephfs) would be
 * another table, and neither protocol would change.
 *
 * DESIGN
 * - An object is a struct vfs_obj, the backend's own reference, which
 *   protocol code passes on and never looks into: the POSIX backend's is
 *   an O_PATH descriptor (see vfs.h), a CephFS one would be its Inode.
 *   Data operations take an object opened for I/O (export_open_io).
 * - Every operation runs as the caller (vfs_become has been called), so
 *   the backend's own permission checks decide; results are 0 (or a
 *   count) or -errno, which each protocol maps to its status.
 * - Names are single components already checked (vfs_check_name), NUL
 *   terminated; symlinks are never followed.
 * - Operations a backend cannot do are NULL: the protocol answers
 *   NOTSUPP (NFSv4.2) or falls back (a copy by reads and writes).
 *   vfs_ops_posix fills every one.
 * - Byte-range locks (lock_open, lock, lock_test, lock_close) are how a
 *   protocol's locks become visible to processes on the server: NFSv4
 *   decides conflicts between its clients itself, then holds what it
 *   granted here for the lock holder (one NFSv4 lock stateid). A
 *   holder is the backend's own claim on the object, self-contained
 *   (the export may be reloaded away while it is held). The POSIX
 *   backend's is an open file description of its own, whose open file
 *   description (OFD) locks local processes see and conflict with.
 *   Nothing here ever waits for a lock. Without these operations a
 *   protocol's locks live only in nfsxd.
 */
#ifndef NFSX_VFS_OPS_H
#define NFSX_VFS_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "vfs/fh.h"

struct vfs_export;
struct vfs_cred;
struct vfs_dir_sink;

struct vfs_obj {
	int fd;
};

/* No object (vfs_obj_ok false). */
#define VFS_OBJ_NONE ((struct vfs_obj){ .fd = -1 })

static inline bool vfs_obj_ok(const struct vfs_obj *o)
{
	return o->fd >= 0;
}

/* What SETATTR (and a creation's attributes) change. */
enum {
	VFS_SET_MODE = 1u << 0,
	VFS_SET_UID = 1u << 1,
	VFS_SET_GID = 1u << 2,
	VFS_SET_SIZE = 1u << 3,
	VFS_SET_ATIME = 1u << 4,
	VFS_SET_MTIME = 1u << 5,
};

struct vfs_sattr {
	uint32_t mask;
	mode_t mode;              /* permission bits, 07777 */
	uid_t uid;
	gid_t gid;
	uint64_t size;
	/* tv_nsec UTIME_NOW: the server's time */
	struct timespec atime, mtime;
};

struct vfs_statfs {
	uint64_t bsize;           /* the unit of the counts below */
	uint64_t blocks, bfree, bavail;
	uint64_t files, ffree, favail;
	uint32_t link_max;        /* 0: not known */
	uint32_t name_max;
};

/* read flags */
#define VFS_IO_NOWAIT 1u   /* only what is cached: -EAGAIN otherwise */

/* seek whence */
enum vfs_seek { VFS_SEEK_DATA, VFS_SEEK_HOLE };

/* advise: how a range of a file will be used (posix_fadvise's advice) */
enum vfs_advice {
	VFS_ADV_NORMAL, VFS_ADV_SEQUENTIAL, VFS_ADV_RANDOM, VFS_ADV_WILLNEED,
	VFS_ADV_DONTNEED, VFS_ADV_NOREUSE
};

/* A byte range lock: [@start, @end], @end inclusive; VFS_LOCK_END: to
 * the end of the file, whatever its size. */
enum vfs_lock_type { VFS_LOCK_UNLOCK, VFS_LOCK_READ, VFS_LOCK_WRITE };
#define VFS_LOCK_END UINT64_MAX

struct vfs_lock {
	enum vfs_lock_type type;
	uint64_t start, end;
	/* a conflict's holder: its process (a process-owned POSIX lock),
	 * or -1 (an OFD lock, or not known) */
	int32_t pid;
};

/* A lock holder (see DESIGN): the POSIX backend's open file description
 * (@fd) and whether it was opened for writing. */
struct vfs_lockh {
	int fd;
	bool write;
};

#define VFS_LOCKH_NONE ((struct vfs_lockh){ .fd = -1, .write = false })

static inline bool vfs_lockh_ok(const struct vfs_lockh *h)
{
	return h->fd >= 0;
}

/* An I/O object kept past its call (copy_keep): the POSIX backend's
 * duplicate of the descriptor opened for I/O. */
struct vfs_ioh {
	int fd;
};

#define VFS_IOH_NONE ((struct vfs_ioh){ .fd = -1 })

struct vfs_ops {
	const char *name;

	/* ---- objects and attributes ---- */
	/* A new reference to the export's root, to release. */
	int (*root)(const struct vfs_export *e, struct vfs_obj *out);
	/* The client handle of @o (fh.h: sealed with @key). */
	int (*handle)(const uint8_t key[FH_KEY_LEN], const struct vfs_export *e,
		      const struct vfs_obj *o, struct nfsx_fh *fh);
	/* The child @name of directory @dir, not followed: *@out to release. */
	int (*lookup)(const struct vfs_export *e, const struct vfs_obj *dir, const char *name,
		      struct vfs_obj *out);
	/* Let go of an object lookup, create or a handle gave. */
	void (*release)(struct vfs_obj *o);
	int (*getattr)(const struct vfs_export *e, const struct vfs_obj *o, struct stat *st);
	/*
	 * Apply @sa to @o, whose attributes were @st, in Linux nfsd's
	 * order: size, owner, mode, times (a chown clears set-id bits and
	 * the mode asked must win; a truncation changes mtime and the times
	 * asked must win). The owner @c may truncate whatever the mode
	 * (nfsd's owner override). A size on anything but a regular file:
	 * -EISDIR or -EINVAL. Not atomic: a failure keeps earlier changes.
	 */
	int (*setattr)(const struct vfs_export *e, const struct vfs_obj *o, const struct stat *st,
		       const struct vfs_sattr *sa, const struct vfs_cred *c);
	/* May the caller do @mode (R_OK, W_OK, X_OK) to @o? 0 or -errno. */
	int (*access)(const struct vfs_export *e, const struct vfs_obj *o, int mode);
	/* The target of symlink @o into @buf. Returns its length or -errno
	 * (-EINVAL: not a symlink). */
	ssize_t (*readlink)(const struct vfs_export *e, const struct vfs_obj *o, char *buf,
			    size_t len);
	int (*statfs)(const struct vfs_export *e, const struct vfs_obj *o, struct vfs_statfs *out);

	/* ---- names ----
	 * A new object gets @mode's permission bits as asked: nfsd creates
	 * with umask 0, so bits a process umask took away are restored (a
	 * parent's default ACL still decides). */
	/* A new regular file (exclusive: -EEXIST when @name exists), *@out
	 * to release. */
	int (*create)(const struct vfs_export *e, const struct vfs_obj *dir, const char *name,
		      mode_t mode, struct vfs_obj *out);
	int (*mkdir)(const struct vfs_export *e, const struct vfs_obj *dir, const char *name,
		     mode_t mode);
	int (*symlink)(const struct vfs_export *e, const struct vfs_obj *dir, const char *name,
		       const char *target);
	/* @mode holds the type (S_IFCHR, S_IFBLK, S_IFIFO, S_IFSOCK). */
	int (*mknod)(const struct vfs_export *e, const struct vfs_obj *dir, const char *name,
		     mode_t mode, dev_t dev);
	/* @dir_only: rmdir (a non-directory -ENOTDIR); else a directory is -EISDIR. */
	int (*remove)(const struct vfs_export *e, const struct vfs_obj *dir, const char *name,
		      bool dir_only);
	int (*rename)(const struct vfs_export *e, const struct vfs_obj *fdir, const char *fname,
		      const struct vfs_obj *tdir, const char *tname);
	int (*link)(const struct vfs_export *e, const struct vfs_obj *o,
		    const struct vfs_obj *dir, const char *name);
	/* Entries of directory @dir (attributes @dst) from @cookie on, to
	 * @s: see vfs_readdir in dir.h. */
	int (*readdir)(const uint8_t key[FH_KEY_LEN], const struct vfs_export *e,
		       const struct vfs_obj *dir, const struct stat *dst, uint64_t cookie,
		       const struct vfs_dir_sink *s, bool *eof);

	/* ---- data, on an object opened for I/O ---- */
	/* Returns bytes read (0 at the end) or -errno; -EAGAIN with
	 * VFS_IO_NOWAIT when the data is not cached. */
	ssize_t (*read)(const struct vfs_export *e, const struct vfs_obj *io, void *buf,
			size_t len, uint64_t off, unsigned int flags);
	ssize_t (*write)(const struct vfs_export *e, const struct vfs_obj *io, const void *buf,
			 size_t len, uint64_t off);
	/* Make what was written stable (@data_only: fdatasync). */
	int (*commit)(const struct vfs_export *e, const struct vfs_obj *io, bool data_only);
	/* The first offset >= @off in data (or a hole) into *@out; -ENXIO
	 * past the end. */
	int (*seek)(const struct vfs_export *e, const struct vfs_obj *io, uint64_t off,
		    enum vfs_seek what, uint64_t *out);
	int (*allocate)(const struct vfs_export *e, const struct vfs_obj *io, uint64_t off,
			uint64_t len);
	/* A hole in place of [@off, @off + @len), the size unchanged. */
	int (*deallocate)(const struct vfs_export *e, const struct vfs_obj *io, uint64_t off,
			  uint64_t len);
	/* Advice @adv on [@off, @off + @len) (@len 0: to the end), for
	 * the page cache of the file behind @io. */
	int (*advise)(const struct vfs_export *e, const struct vfs_obj *io, uint64_t off,
		      uint64_t len, enum vfs_advice adv);
	/* Copy @len bytes (0: to the source's end) within the server,
	 * between file systems too (POSIX: copy_file_range, else reads and
	 * writes). Returns bytes copied (short at the source's end) or
	 * -errno. */
	int64_t (*copy)(const struct vfs_export *e, const struct vfs_obj *src, uint64_t soff,
			const struct vfs_obj *dst, uint64_t doff, uint64_t len);
	/* Share the blocks of the range (-EOPNOTSUPP where the file
	 * system cannot; @len 0: to the source's end). */
	int (*clone)(const struct vfs_export *e, const struct vfs_obj *src, uint64_t soff,
		     const struct vfs_obj *dst, uint64_t doff, uint64_t len);

	/* ---- a copy that outlives its call (NFSv4.2's asynchronous COPY;
	 * optional: all three or none) ---- */
	/* A claim of its own on I/O object @io into *@h, self-contained
	 * (valid after the export is reloaded away and the object's cache
	 * let go of), for copy_kept. 0 or -errno. */
	int (*copy_keep)(const struct vfs_export *e, const struct vfs_obj *io,
			 struct vfs_ioh *h);
	/* copy between two kept objects; @len 0 is nothing here. */
	int64_t (*copy_kept)(const struct vfs_ioh *src, uint64_t soff, const struct vfs_ioh *dst,
			     uint64_t doff, uint64_t len);
	/* Let go of @h (it becomes none). */
	void (*copy_drop)(struct vfs_ioh *h);

	/* The descriptor the RPC layer may splice a WRITE's data into
	 * straight from the socket (rpc_bulk): the memory-backed fast path.
	 * NULL or -1: the data is received whole and written with write. */
	int (*splice_fd)(const struct vfs_export *e, const struct vfs_obj *io);

	/* ---- extended attributes (RFC 8276: the user namespace) ---- */
	/* @name without its "user." prefix. Return the value's length or
	 * -errno (-ENODATA: none; -ERANGE: @len too small). */
	ssize_t (*getxattr)(const struct vfs_export *e, const struct vfs_obj *o,
			    const char *name, void *buf, size_t len);
	/* @flags: XATTR_CREATE, XATTR_REPLACE or 0. */
	int (*setxattr)(const struct vfs_export *e, const struct vfs_obj *o, const char *name,
			const void *val, size_t len, int flags);
	/* The user names, NUL-separated, without the prefix: total length
	 * or -errno (@len 0: only the length). */
	ssize_t (*listxattr)(const struct vfs_export *e, const struct vfs_obj *o, char *buf,
			     size_t len);
	int (*removexattr)(const struct vfs_export *e, const struct vfs_obj *o,
			   const char *name);

	/* ---- byte-range locks local processes see (optional: all four
	 * or none) ---- */
	/*
	 * A new lock holder on regular file @o, able to hold read locks and
	 * (@write) write locks, opened as the server (the protocol checked
	 * the caller's access when the file was opened), the thread acting
	 * as @c again after. Counted against the backend's budget of
	 * holders (the POSIX one: vfs_lock_budget). Never waits (a local
	 * lease to break is -EWOULDBLOCK). Return values: 0 with *@h;
	 * -EMFILE (the budget or the process's descriptors), -ENFILE;
	 * -EWOULDBLOCK; another -errno (-EROFS, -EACCES, -ETXTBSY).
	 */
	int (*lock_open)(const struct vfs_export *e, const struct vfs_obj *o, bool write,
			 const struct vfs_cred *c, struct vfs_lockh *h);
	/*
	 * Take @l for holder @h, or release it (VFS_LOCK_UNLOCK), never
	 * waiting, with POSIX semantics within the holder (its ranges
	 * merge, split, and change type). A range past the file offsets the
	 * backend has (2^63 - 1 for POSIX) is held only up to the last one:
	 * local processes cannot name the rest. Return values: 0; -EAGAIN
	 * with *@held (may be NULL) a conflicting lock of another holder or
	 * process; -EBADF (a write lock on a holder opened without @write);
	 * -ENOLCK.
	 */
	int (*lock)(struct vfs_lockh *h, const struct vfs_lock *l, struct vfs_lock *held);
	/*
	 * Would holder @h (or, when @h is none, a holder with no locks on
	 * @o) get @l? Return values: 0; -EAGAIN with *@held the first
	 * conflicting lock; another -errno (no holder could be opened).
	 */
	int (*lock_test)(const struct vfs_export *e, const struct vfs_obj *o,
			 const struct vfs_lockh *h, const struct vfs_lock *l,
			 const struct vfs_cred *c, struct vfs_lock *held);
	/* Release every lock of @h and let it go (it becomes none). */
	void (*lock_close)(struct vfs_lockh *h);
};

extern const struct vfs_ops vfs_ops_posix;

#endif
