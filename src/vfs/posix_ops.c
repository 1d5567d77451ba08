/* SPDX-License-Identifier: MIT */
/*
 * The POSIX (Linux) backend's operations table: see ops.h. Objects are
 * O_PATH descriptors (vfs.h), which cannot be read, written, fchmod()ed
 * or futimens()ed: data goes through a descriptor opened for I/O
 * (export_open_io), mode, times, links and extended attributes through
 * the /proc/self/fd/N magic link (it names the object itself, even a
 * symlink, without following anything further), ownership through
 * fchownat(AT_EMPTY_PATH).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "vfs/dir.h"
#include "vfs/node.h"
#include "vfs/ops.h"
#include "vfs/vfs.h"

static void proc_path(char *buf, size_t len, int fd)
{
	snprintf(buf, len, "/proc/self/fd/%d", fd);
}

/* ---- objects and attributes ---- */

static int px_root(const struct vfs_export *e, struct vfs_obj *out)
{
	int fd = fcntl(e->root_fd, F_DUPFD_CLOEXEC, 0);

	*out = VFS_OBJ_NONE;
	if (fd < 0)
		return -errno;
	out->fd = fd;
	return 0;
}

static int px_handle(const uint8_t key[FH_KEY_LEN], const struct vfs_export *e,
		     const struct vfs_obj *o, struct nfsx_fh *fh)
{
	return vfs_handle_of(key, e, o->fd, fh);
}

static int px_lookup(const struct vfs_export *e, const struct vfs_obj *dir, const char *name,
		     struct vfs_obj *out)
{
	int fd = vfs_lookup(e, dir->fd, (const uint8_t *)name, (uint32_t)strlen(name));

	*out = VFS_OBJ_NONE;
	if (fd < 0)
		return fd;
	out->fd = fd;
	return 0;
}

static void px_release(struct vfs_obj *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
}

static int px_getattr(const struct vfs_export *e, const struct vfs_obj *o, struct stat *st)
{
	(void)e;
	return vfs_stat(o->fd, st);
}

/*
 * @fd reopened O_WRONLY as the caller @c, with the owner override of
 * Linux's nfsd (NFSD_MAY_OWNER_OVERRIDE): the owner may truncate a file
 * whatever its mode (a client that creates a file 0444, as tar and
 * cp -p do, then writes it through the descriptor open(2) returned).
 * Return values: fd to close, or -errno.
 */
static int reopen_write(const struct vfs_cred *c, int fd, uid_t owner)
{
	int wfd = vfs_reopen(fd, O_WRONLY);

	if (wfd != -EACCES || !c || c->uid != owner)
		return wfd;
	return vfs_reopen_as_server(fd, O_WRONLY, c);
}

static int px_setattr(const struct vfs_export *e, const struct vfs_obj *o, const struct stat *st,
		      const struct vfs_sattr *sa, const struct vfs_cred *c)
{
	char path[64];

	(void)e;
	proc_path(path, sizeof(path), o->fd);
	if (sa->mask & VFS_SET_SIZE) {
		int wfd, r = 0;

		if (!S_ISREG(st->st_mode))
			return S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
		if (sa->size > (uint64_t)INT64_MAX)
			return -EFBIG;
		wfd = reopen_write(c, o->fd, st->st_uid);
		if (wfd < 0)
			return wfd;
		/* Linux skips a truncation to the current size (no mtime change). */
		if ((uint64_t)st->st_size != sa->size)
			r = ftruncate(wfd, (off_t)sa->size) < 0 ? -errno : 0;
		close(wfd);
		if (r)
			return r;
	}
	if (sa->mask & (VFS_SET_UID | VFS_SET_GID)) {
		uid_t uid = sa->mask & VFS_SET_UID ? sa->uid : (uid_t)-1;
		gid_t gid = sa->mask & VFS_SET_GID ? sa->gid : (gid_t)-1;

		if (fchownat(o->fd, "", uid, gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
	}
	/* Linux has no mode change for a symlink (EOPNOTSUPP): knfsd drops
	 * the mode of a symlink's SETATTR (nfsd_setattr), and so do we */
	if ((sa->mask & VFS_SET_MODE) && !S_ISLNK(st->st_mode) && chmod(path, sa->mode & 07777) < 0)
		return -errno;
	if (sa->mask & (VFS_SET_ATIME | VFS_SET_MTIME)) {
		struct timespec ts[2] = { { 0, UTIME_OMIT }, { 0, UTIME_OMIT } };

		if (sa->mask & VFS_SET_ATIME)
			ts[0] = sa->atime;
		if (sa->mask & VFS_SET_MTIME)
			ts[1] = sa->mtime;
		if (utimensat(AT_FDCWD, path, ts, 0) < 0)
			return -errno;
	}
	return 0;
}

static int px_access(const struct vfs_export *e, const struct vfs_obj *o, int mode)
{
	(void)e;
	return faccessat(o->fd, "", mode, AT_EACCESS | AT_EMPTY_PATH) < 0 ? -errno : 0;
}

static ssize_t px_readlink(const struct vfs_export *e, const struct vfs_obj *o, char *buf,
			   size_t len)
{
	ssize_t n;

	struct stat st;

	(void)e;
	n = readlinkat(o->fd, "", buf, len);
	/* an empty name on anything but a symlink says ENOENT */
	if (n < 0 && errno == ENOENT && vfs_stat(o->fd, &st) == 0 && !S_ISLNK(st.st_mode))
		return -EINVAL;
	return n < 0 ? -errno : n;
}

static int px_statfs(const struct vfs_export *e, const struct vfs_obj *o, struct vfs_statfs *out)
{
	struct statvfs sv;
	long lm;

	(void)e;
	if (fstatvfs(o->fd, &sv) < 0)
		return -errno;
	lm = fpathconf(o->fd, _PC_LINK_MAX);
	out->bsize = sv.f_frsize;
	out->blocks = sv.f_blocks;
	out->bfree = sv.f_bfree;
	out->bavail = sv.f_bavail;
	out->files = sv.f_files;
	out->ffree = sv.f_ffree;
	out->favail = sv.f_favail;
	out->link_max = lm > 0 && lm < UINT32_MAX ? (uint32_t)lm : 0;
	out->name_max = sv.f_namemax ? (uint32_t)sv.f_namemax : NAME_MAX;
	return 0;
}

/* ---- names ---- */

/* The process umask, read once from /proc (umask(2) would change it). */
static mode_t process_umask(void)
{
	static int cached = -1;
	int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
	char line[128];
	FILE *f;

	if (v >= 0)
		return (mode_t)v;
	v = 022; /* conservative guess if /proc says nothing */
	f = fopen("/proc/self/status", "re");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			unsigned int u;

			if (sscanf(line, "Umask: %o", &u) == 1) {
				v = (int)(u & 0777);
				break;
			}
		}
		fclose(f);
	}
	__atomic_store_n(&cached, v, __ATOMIC_RELAXED);
	return (mode_t)v;
}

/*
 * nfsd creates with umask 0; the umask is process-wide state shared by
 * every thread, so it is not changed here: when the new object @fd (of
 * type @type) lacks permission bits that were asked for (@mode) and that
 * the umask alone explains, they are restored with chmod(2) through
 * /proc/self/fd (the object is the caller's, so the caller may). A parent
 * with a default ACL makes the kernel skip the umask; bits the ACL
 * withheld are restored only when they are also in the umask (rare).
 * Best effort: the object exists whatever this says.
 */
static void umask_fixup(int fd, mode_t type, mode_t mode)
{
	mode_t want = mode & 0777, missing;
	struct stat st;
	char p[64];

	if (!(want & process_umask()) || vfs_stat(fd, &st) < 0 ||
	    (st.st_mode & S_IFMT) != type)
		return;
	missing = want & ~st.st_mode;
	if (!missing || (missing & ~process_umask()))
		return;
	proc_path(p, sizeof(p), fd);
	(void)chmod(p, (st.st_mode & 07000) | want);
}

/* The same for @name in @dirfd, not followed (replaced meanwhile: left alone). */
static void umask_fixup_at(int dirfd, const char *name, mode_t type, mode_t mode)
{
	int fd;

	if (!(mode & 0777 & process_umask()))
		return;
	fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	umask_fixup(fd, type, mode);
	close(fd);
}

static int px_create(const struct vfs_export *e, const struct vfs_obj *dir, const char *name,
		     mode_t mode, struct vfs_obj *out)
{
	int fd = openat(dir->fd, name, O_CREAT | O_EXCL | O_RDONLY | O_NOFOLLOW | O_CLOEXEC,
			mode & 07777);

	(void)e;
	*out = VFS_OBJ_NONE;
	if (fd < 0)
		return -errno;
	umask_fixup(fd, S_IFREG, mode);
	out->fd = fd;
	return 0;
}

static int px_mkdir(const struct vfs_export *e, const struct vfs_obj *dir, const char *name,
		    mode_t mode)
{
	(void)e;
	if (mkdirat(dir->fd, name, mode & 07777) < 0)
		return -errno;
	umask_fixup_at(dir->fd, name, S_IFDIR, mode);
	return 0;
}

static int px_symlink(const struct vfs_export *e, const struct vfs_obj *dir, const char *name,
		      const char *target)
{
	(void)e;
	return symlinkat(target, dir->fd, name) < 0 ? -errno : 0;
}

static int px_mknod(const struct vfs_export *e, const struct vfs_obj *dir, const char *name,
		    mode_t mode, dev_t dev)
{
	(void)e;
	if (mknodat(dir->fd, name, mode, dev) < 0)
		return -errno;
	umask_fixup_at(dir->fd, name, mode & S_IFMT, mode);
	return 0;
}

/* Some file systems say EEXIST for a directory that is not empty. */
static int px_remove(const struct vfs_export *e, const struct vfs_obj *dir, const char *name,
		     bool dir_only)
{
	/* A cached descriptor would keep a removed file's blocks. */
	vfs_node_forget_name(e, dir->fd, name);
	if (unlinkat(dir->fd, name, dir_only ? AT_REMOVEDIR : 0) == 0)
		return 0;
	return dir_only && errno == EEXIST ? -ENOTEMPTY : -errno;
}

static int px_rename(const struct vfs_export *e, const struct vfs_obj *fdir, const char *fname,
		     const struct vfs_obj *tdir, const char *tname)
{
	vfs_node_forget_name(e, tdir->fd, tname);   /* a replaced target */
	if (renameat(fdir->fd, fname, tdir->fd, tname) < 0)
		return errno == EEXIST ? -ENOTEMPTY : -errno;
	vfs_renamed(e, fdir->fd, fname, tdir->fd, tname);
	return 0;
}

/*
 * Not linkat(fd, "", ..., AT_EMPTY_PATH): that needs CAP_DAC_READ_SEARCH,
 * which a non-root fsuid does not have (ENOENT on Linux < 6.10). The
 * magic link with AT_SYMLINK_FOLLOW names the same inode (a symlink is
 * linked itself, not its target) and the kernel checks the caller's
 * rights, fs.protected_hardlinks included (which nfsd, calling vfs_link
 * directly, does not).
 */
static int px_link(const struct vfs_export *e, const struct vfs_obj *o,
		   const struct vfs_obj *dir, const char *name)
{
	char p[64];

	(void)e;
	proc_path(p, sizeof(p), o->fd);
	return linkat(AT_FDCWD, p, dir->fd, name, AT_SYMLINK_FOLLOW) < 0 ? -errno : 0;
}

/* ---- data ---- */

static ssize_t px_read(const struct vfs_export *e, const struct vfs_obj *io, void *buf,
		       size_t len, uint64_t off, unsigned int flags)
{
	ssize_t n;

	if (off > (uint64_t)INT64_MAX)
		return 0;
	if (flags & VFS_IO_NOWAIT) {
		struct iovec iov = { buf, len };

		n = preadv2(io->fd, &iov, 1, (off_t)off, RWF_NOWAIT);
		/* Remembered so that later calls go straight to a worker:
		 * a hint, written atomically into the otherwise constant
		 * export. */
		if (n < 0 && errno == EOPNOTSUPP)
			__atomic_store_n(&((struct vfs_export *)e)->no_nowait_read, true,
					 __ATOMIC_RELAXED);
	} else {
		n = pread(io->fd, buf, len, (off_t)off);
	}
	return n < 0 ? -errno : n;
}

static ssize_t px_write(const struct vfs_export *e, const struct vfs_obj *io, const void *buf,
			size_t len, uint64_t off)
{
	ssize_t n;

	(void)e;
	if (off > (uint64_t)INT64_MAX)
		return -EFBIG;
	n = pwrite(io->fd, buf, len, (off_t)off);
	return n < 0 ? -errno : n;
}

static int px_commit(const struct vfs_export *e, const struct vfs_obj *io, bool data_only)
{
	(void)e;
	return (data_only ? fdatasync(io->fd) : fsync(io->fd)) < 0 ? -errno : 0;
}

static int px_seek(const struct vfs_export *e, const struct vfs_obj *io, uint64_t off,
		   enum vfs_seek what, uint64_t *out)
{
	off_t r;

	(void)e;
	if (off > (uint64_t)INT64_MAX)
		return -ENXIO;
	r = lseek(io->fd, (off_t)off, what == VFS_SEEK_DATA ? SEEK_DATA : SEEK_HOLE);
	if (r < 0)
		return -errno;
	*out = (uint64_t)r;
	return 0;
}

static bool range_ok(uint64_t off, uint64_t len)
{
	return off <= (uint64_t)INT64_MAX && len <= (uint64_t)INT64_MAX - off;
}

static int px_allocate(const struct vfs_export *e, const struct vfs_obj *io, uint64_t off,
		       uint64_t len)
{
	(void)e;
	if (!range_ok(off, len))
		return -EFBIG;
	return fallocate(io->fd, 0, (off_t)off, (off_t)len) < 0 ? -errno : 0;
}

static int px_deallocate(const struct vfs_export *e, const struct vfs_obj *io, uint64_t off,
			 uint64_t len)
{
	(void)e;
	if (!range_ok(off, len))
		return -EFBIG;
	return fallocate(io->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
			 (off_t)len) < 0 ? -errno : 0;
}

static int px_advise(const struct vfs_export *e, const struct vfs_obj *io, uint64_t off,
		     uint64_t len, enum vfs_advice adv)
{
	static const int fadv[] = {
		[VFS_ADV_NORMAL] = POSIX_FADV_NORMAL, [VFS_ADV_SEQUENTIAL] = POSIX_FADV_SEQUENTIAL,
		[VFS_ADV_RANDOM] = POSIX_FADV_RANDOM, [VFS_ADV_WILLNEED] = POSIX_FADV_WILLNEED,
		[VFS_ADV_DONTNEED] = POSIX_FADV_DONTNEED, [VFS_ADV_NOREUSE] = POSIX_FADV_NOREUSE,
	};

	(void)e;
	if ((unsigned int)adv >= sizeof(fadv) / sizeof(fadv[0]))
		return -EINVAL;
	/* a range past what a file can hold advises nothing */
	if (off > (uint64_t)INT64_MAX)
		return 0;
	if (len > (uint64_t)INT64_MAX - off)
		len = 0;
	/* returns the error itself, not in errno */
	return -posix_fadvise(io->fd, (off_t)off, (off_t)len, fadv[adv]);
}

/* @len 0: to the end of @fd from @off. */
static int whole(int fd, uint64_t off, uint64_t *len)
{
	struct stat st;

	if (*len)
		return 0;
	if (fstat(fd, &st) < 0)
		return -errno;
	*len = (uint64_t)st.st_size > off ? (uint64_t)st.st_size - off : 0;
	return 0;
}

/*
 * [@soff, @soff + @len) of @in to @doff of @out by reads and writes, for
 * what copy_file_range refuses (two file systems of different types:
 * EXDEV). Returns bytes copied (short at the source's end) or -errno.
 */
static int64_t copy_rw(int in, uint64_t soff, int out, uint64_t doff, uint64_t len)
{
	const size_t cap = 256 * 1024;
	uint8_t *buf = malloc(cap);
	uint64_t done = 0;
	int64_t ret;

	if (!buf)
		return -ENOMEM;
	while (done < len) {
		size_t want = len - done > cap ? cap : (size_t)(len - done);
		ssize_t n = pread(in, buf, want, (off_t)(soff + done)), w = 0;

		if (n <= 0) {
			ret = n < 0 && !done ? -errno : (int64_t)done;
			goto out;
		}
		while (w < n) {
			ssize_t k = pwrite(out, buf + w, (size_t)(n - w), (off_t)(doff + done) + w);

			if (k <= 0) {
				done += (uint64_t)w;
				ret = k < 0 && !done ? -errno : (int64_t)done;
				goto out;
			}
			w += k;
		}
		done += (uint64_t)n;
	}
	ret = (int64_t)done;
out:
	free(buf);
	return ret;
}

/* [@soff, @soff + @len) of @in to @doff of @out (@len > 0). */
static int64_t copy_fds(int in, uint64_t soff, int out, uint64_t doff, uint64_t len)
{
	uint64_t done = 0;

	if (!range_ok(soff, len) || !range_ok(doff, len))
		return -EFBIG;
	while (done < len) {
		loff_t si = (loff_t)(soff + done), di = (loff_t)(doff + done);
		size_t chunk = len - done > (1u << 30) ? (1u << 30) : (size_t)(len - done);
		ssize_t n = copy_file_range(in, &si, out, &di, chunk, 0);

		if (n < 0 && done == 0 &&
		    (errno == EXDEV || errno == EOPNOTSUPP || errno == ENOSYS))
			return copy_rw(in, soff, out, doff, len);
		if (n < 0)
			return done ? (int64_t)done : -errno;
		if (n == 0)
			break;   /* the source's end */
		done += (uint64_t)n;
	}
	return (int64_t)done;
}

static int64_t px_copy(const struct vfs_export *e, const struct vfs_obj *src, uint64_t soff,
		       const struct vfs_obj *dst, uint64_t doff, uint64_t len)
{
	int r;

	(void)e;
	if ((r = whole(src->fd, soff, &len)) < 0)
		return r;
	return len ? copy_fds(src->fd, soff, dst->fd, doff, len) : 0;
}

static int px_copy_keep(const struct vfs_export *e, const struct vfs_obj *io,
			struct vfs_ioh *h)
{
	(void)e;
	h->fd = fcntl(io->fd, F_DUPFD_CLOEXEC, 0);
	return h->fd < 0 ? -errno : 0;
}

static int64_t px_copy_kept(const struct vfs_ioh *src, uint64_t soff, const struct vfs_ioh *dst,
			    uint64_t doff, uint64_t len)
{
	return len ? copy_fds(src->fd, soff, dst->fd, doff, len) : 0;
}

static void px_copy_drop(struct vfs_ioh *h)
{
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
}

static int px_clone(const struct vfs_export *e, const struct vfs_obj *src, uint64_t soff,
		    const struct vfs_obj *dst, uint64_t doff, uint64_t len)
{
	struct file_clone_range r = {
		.src_fd = src->fd, .src_offset = soff, .src_length = len, .dest_offset = doff,
	};

	(void)e;
	if (!range_ok(soff, len) || !range_ok(doff, len))
		return -EFBIG;
	return ioctl(dst->fd, FICLONERANGE, &r) < 0 ? -errno : 0;
}

static int px_splice_fd(const struct vfs_export *e, const struct vfs_obj *io)
{
	return e->mem_backed ? io->fd : -1;
}

/* ---- extended attributes: user.* only ---- */

/* A user.* attribute of an object as the *xattr calls by path take it:
 * the object's /proc path (its descriptor is O_PATH, see above) and the
 * attribute's full name. One prologue for get, set and remove. */
struct user_xattr {
	char path[64];
	char name[XATTR_NAME_MAX + 1];
};

/* Return values: 0, -EINVAL for an empty @name, -ENAMETOOLONG. */
static int user_xattr(struct user_xattr *x, const struct vfs_obj *o, const char *name)
{
	int n = snprintf(x->name, sizeof(x->name), "user.%s", name);

	if (!*name)
		return -EINVAL;
	if (n < 0 || (size_t)n >= sizeof(x->name))
		return -ENAMETOOLONG;
	proc_path(x->path, sizeof(x->path), o->fd);
	return 0;
}

static ssize_t px_getxattr(const struct vfs_export *e, const struct vfs_obj *o,
			   const char *name, void *buf, size_t len)
{
	struct user_xattr x;
	ssize_t r;
	int err;

	(void)e;
	if ((err = user_xattr(&x, o, name)) < 0)
		return err;
	r = getxattr(x.path, x.name, buf, len);
	return r < 0 ? -errno : r;
}

static int px_setxattr(const struct vfs_export *e, const struct vfs_obj *o, const char *name,
		       const void *val, size_t len, int flags)
{
	struct user_xattr x;
	int err;

	(void)e;
	if ((err = user_xattr(&x, o, name)) < 0)
		return err;
	return setxattr(x.path, x.name, val, len, flags) < 0 ? -errno : 0;
}

/* The kernel's list holds every namespace the caller may see: only the
 * user ones are kept, their prefix taken off. */
static ssize_t px_listxattr(const struct vfs_export *e, const struct vfs_obj *o, char *buf,
			    size_t len)
{
	char p[64], all[XATTR_LIST_MAX];
	ssize_t n, i, out = 0;

	(void)e;
	proc_path(p, sizeof(p), o->fd);
	n = listxattr(p, all, sizeof(all));
	if (n < 0)
		return -errno;
	for (i = 0; i < n; i += (ssize_t)strnlen(all + i, (size_t)(n - i)) + 1) {
		const char *x = all + i;
		size_t xl = strnlen(x, (size_t)(n - i)), l;

		/* names are NUL-terminated; a last one that is not is dropped */
		if (xl == (size_t)(n - i) || xl < 5 || memcmp(x, "user.", 5) != 0)
			continue;
		l = xl - 5 + 1;
		if (len) {
			if ((size_t)out + l > len)
				return -ERANGE;
			memcpy(buf + out, x + 5, l);
		}
		out += (ssize_t)l;
	}
	return out;
}

static int px_removexattr(const struct vfs_export *e, const struct vfs_obj *o,
			  const char *name)
{
	struct user_xattr x;
	int err;

	(void)e;
	if ((err = user_xattr(&x, o, name)) < 0)
		return err;
	return removexattr(x.path, x.name) < 0 ? -errno : 0;
}

/* ---- listings ---- */

static int px_readdir(const uint8_t key[FH_KEY_LEN], const struct vfs_export *e,
		      const struct vfs_obj *dir, const struct stat *dst, uint64_t cookie,
		      const struct vfs_dir_sink *s, bool *eof)
{
	return vfs_readdir(key, e, dir->fd, dst, cookie, s, eof);
}

const struct vfs_ops vfs_ops_posix = {
	.name = "posix",
	.root = px_root,
	.handle = px_handle,
	.lookup = px_lookup,
	.release = px_release,
	.getattr = px_getattr,
	.setattr = px_setattr,
	.access = px_access,
	.readlink = px_readlink,
	.statfs = px_statfs,
	.create = px_create,
	.mkdir = px_mkdir,
	.symlink = px_symlink,
	.mknod = px_mknod,
	.remove = px_remove,
	.rename = px_rename,
	.link = px_link,
	.readdir = px_readdir,
	.read = px_read,
	.write = px_write,
	.commit = px_commit,
	.seek = px_seek,
	.allocate = px_allocate,
	.deallocate = px_deallocate,
	.advise = px_advise,
	.copy = px_copy,
	.clone = px_clone,
	.copy_keep = px_copy_keep,
	.copy_kept = px_copy_kept,
	.copy_drop = px_copy_drop,
	.splice_fd = px_splice_fd,
	.getxattr = px_getxattr,
	.setxattr = px_setxattr,
	.listxattr = px_listxattr,
	.removexattr = px_removexattr,
	.lock_open = vfs_px_lock_open,
	.lock = vfs_px_lock,
	.lock_test = vfs_px_lock_test,
	.lock_close = vfs_px_lock_close,
};
