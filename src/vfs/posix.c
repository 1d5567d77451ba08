/* SPDX-License-Identifier: MIT */
/* POSIX backend of the vfs interface: see vfs.h. */
#include "vfs/vfs.h"

#include <linux/mount.h>
#include <linux/openat2.h>
#include <stdlib.h>

#include "vfs/hmap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <sys/syscall.h>
#include <unistd.h>

static bool privileged = true;

static int open_child(const struct vfs_export *e, int dirfd, const char *c);

void vfs_set_unprivileged(void)
{
	privileged = false;
}

bool vfs_privileged(void)
{
	return privileged;
}

/*
 * The export's private view of its file system: a detached copy of the
 * mount at @path whose root is the export directory, without the mounts
 * below it (open_tree(2) OPEN_TREE_CLONE, not recursive). Everything the
 * server reaches of the export is reached through it, which gives two
 * guarantees from the kernel's own path walk rather than from checks of
 * ours:
 * - a mount point under the export shows the directory it covers, and
 *   nothing of the mounted file system is reachable (no crossmnt);
 * - ".." never climbs above the export root: at the root of a detached
 *   mount it stays there, and from a directory whose parent is not under
 *   the root (a bind mount's outside, a directory moved out of the export
 *   by a local process and reached through a handle) it fails with ENOENT
 *   (path_connected() in fs/namei.c).
 * Needs CAP_SYS_ADMIN; without it, -errno and the caller falls back.
 */
static int open_view(const char *path)
{
	int fd = (int)syscall(SYS_open_tree, AT_FDCWD, path,
			      OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/*
 * File systems whose every change passes through this kernel, so that
 * inotify reports it, and whose listing is the same for every caller:
 * the listing cache (dir.h) is kept for these only. A network or FUSE
 * file system changes under it unreported.
 */
static bool local_fs(long type)
{
	switch ((unsigned long)type) {
	case TMPFS_MAGIC:
	case RAMFS_MAGIC:
	case EXT4_SUPER_MAGIC:   /* also ext2 and ext3 */
	case XFS_SUPER_MAGIC:
	case BTRFS_SUPER_MAGIC:
	case F2FS_SUPER_MAGIC:
		return true;
	default:
		return false;
	}
}

int vfs_export_open(struct vfs_export *e, uint32_t id, const char *path)
{
	struct statfs sf;
	struct stat st;
	int r;

	memset(e, 0, sizeof(*e));
	e->id = id;
	e->ops = &vfs_ops_posix;
	if (strlen(path) >= sizeof(e->path))
		return -ENAMETOOLONG;
	strcpy(e->path, path);
	e->mount_fd = e->pin_fd = -1;
	r = privileged ? open_view(path) : -EPERM;
	e->private_view = r >= 0;
	e->view_err = r < 0 && privileged ? -r : 0;
	e->root_fd = r >= 0 ? r : open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (e->root_fd < 0)
		return -errno;
	e->mount_fd = openat(e->root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* The view does not keep the mount it copies busy: this does, so
	 * that umount of an exported file system fails (EBUSY) as it did
	 * before, instead of detaching it while it is served. */
	if (e->private_view)
		e->pin_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (e->mount_fd < 0 || (e->private_view && e->pin_fd < 0) ||
	    fstat(e->root_fd, &st) < 0) {
		int err = -errno;

		vfs_export_close(e);
		return err;
	}
	e->root_dev = st.st_dev;
	e->root_ino = st.st_ino;
	if (!realpath(path, e->canon) || strlen(e->canon) >= sizeof(e->canon)) {
		int err = -errno;

		vfs_export_close(e);
		return err ? err : -ENAMETOOLONG;
	}
	if (fstatfs(e->root_fd, &sf) == 0) {
		e->mem_backed = sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC;
		e->blocks_counted = sf.f_type != RAMFS_MAGIC;
		e->local_fs = local_fs(sf.f_type);
		e->fs_type = sf.f_type;
	}
	return 0;
}

void vfs_export_close(struct vfs_export *e)
{
	if (e->root_fd >= 0)
		close(e->root_fd);
	if (e->mount_fd >= 0)
		close(e->mount_fd);
	if (e->pin_fd >= 0)
		close(e->pin_fd);
	e->root_fd = e->mount_fd = e->pin_fd = -1;
}

/*
 * Capabilities while acting as a client. setfsuid(2) to a non-zero uid
 * drops only the file-system capabilities (CAP_CHOWN, CAP_DAC_*,
 * CAP_FOWNER, CAP_FSETID, ...); the rest would stay in force for every
 * system call made on the client's behalf: CAP_SYS_RESOURCE lets a write
 * use ext4's reserved blocks and pass disk quotas, CAP_SYS_ADMIN and
 * CAP_LEASE other limits. So the effective set follows the identity, per
 * thread (capset(2) on the calling thread only):
 * - acting as the server (vfs_become(NULL)): everything permitted;
 * - as a client's root that is not squashed: what Linux's nfsd gives it
 *   (nfsd_setuser: the file-system capabilities and CAP_SYS_RESOURCE);
 * - as any other client: nothing.
 * The permitted set is never touched, so the thread can take the others
 * back; switching between two clients raises them only for the switch
 * (setgroups and setfsuid need CAP_SETGID and CAP_SETUID). Raw system
 * calls: two of them do not justify a library.
 */
#define CAP_BIT(c) (1ull << (c))
#define CAPS_CLIENT_ROOT                                                         \
	(CAP_BIT(0) /* CHOWN */ | CAP_BIT(1) /* DAC_OVERRIDE */ |               \
	 CAP_BIT(2) /* DAC_READ_SEARCH */ | CAP_BIT(3) /* FOWNER */ |           \
	 CAP_BIT(4) /* FSETID */ | CAP_BIT(9) /* LINUX_IMMUTABLE */ |           \
	 CAP_BIT(24) /* SYS_RESOURCE */ | CAP_BIT(27) /* MKNOD */ |             \
	 CAP_BIT(32) /* MAC_OVERRIDE */)

struct caps_hdr {
	uint32_t version;
	int pid;
};
struct caps_data {
	uint32_t effective, permitted, inheritable;
};
#define CAPS_V3 0x20080522

/* The thread's effective set to @eff, within its permitted set (read once
 * per thread: nothing here changes it). */
static int caps_set_effective(uint64_t eff)
{
	static __thread struct caps_data d[2];
	static __thread bool have;
	struct caps_hdr h = { CAPS_V3, 0 };

	if (!have) {
		if (syscall(SYS_capget, &h, d) < 0)
			return -errno;
		have = true;
	}
	eff &= (uint64_t)d[0].permitted | (uint64_t)d[1].permitted << 32;
	d[0].effective = (uint32_t)eff;
	d[1].effective = (uint32_t)(eff >> 32);
	return syscall(SYS_capset, &h, d) < 0 ? -errno : 0;
}

/* The identity this thread acts with now; uid ~0 means not yet set. */
static __thread struct vfs_cred current = { .uid = ~0u };
/* ... as the server itself (vfs_become(NULL)), or as a client. */
static __thread bool current_server;

int vfs_become(const struct vfs_cred *c)
{
	static const struct vfs_cred root = { 0, 0, 0, { 0 } };
	bool server = !c;
	gid_t gids[16];
	uint32_t i;
	int r;

	if (!privileged)
		return 0;   /* one identity, the server's own: see vfs_set_unprivileged */
	if (!c)
		c = &root;
	if (current.uid == c->uid && current.gid == c->gid &&
	    current.ngids == c->ngids && current_server == server &&
	    memcmp(current.gids, c->gids, c->ngids * sizeof(c->gids[0])) == 0)
		return 0;
	current.uid = ~0u;   /* unknown until the switch is complete */
	/* Everything back, first: the switch itself needs some of it. */
	r = caps_set_effective(~0ull);
	if (r < 0)
		return r;
	for (i = 0; i < c->ngids; i++)
		gids[i] = c->gids[i];
	/* Raw system call: glibc's setgroups() changes every thread. */
	if (syscall(SYS_setgroups, (size_t)c->ngids, gids) < 0) {
		r = -errno;
		goto fail;
	}
	setfsgid(c->gid);
	setfsuid(c->uid);
	if ((uint32_t)setfsuid((uid_t)-1) != c->uid ||
	    (uint32_t)setfsgid((gid_t)-1) != c->gid) {
		r = -EPERM;
		goto fail;
	}
	if (!server) {
		r = caps_set_effective(c->uid == 0 ? CAPS_CLIENT_ROOT : 0);
		if (r < 0)
			return r;
	}
	current = *c;
	current_server = server;
	return 0;
fail:
	/* a half-made switch must not keep every capability */
	caps_set_effective(0);
	return r;
}

int vfs_reopen_as_server(int fd, int flags, const struct vfs_cred *c)
{
	int nfd;

	if (vfs_become(NULL) < 0)
		return -EPERM;
	nfd = vfs_reopen(fd, flags);
	if (vfs_become(c) < 0) {
		/* never go on as root */
		if (nfd >= 0)
			close(nfd);
		return -EPERM;
	}
	return nfd;
}

/* The path of @fd relative to its export root ("" for the root itself). */
static int rel_path(const struct vfs_export *e, int fd, char *out, size_t cap)
{
	char link[64], target[PATH_MAX];
	size_t rl = strlen(e->canon);
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = 0;
	if (strcmp(e->canon, "/") == 0)
		rl = 0;
	/* A removed object reads "... (deleted)", and never lies outside. */
	if (strncmp(target, e->canon, rl) != 0 || (target[rl] != 0 && target[rl] != '/'))
		return -ESTALE;
	if (strlen(target + rl) >= cap)
		return -ENAMETOOLONG;
	strcpy(out, target[rl] == '/' ? target + rl + 1 : target + rl);
	return 0;
}

/*
 * Unprivileged resolution: the object at the path the map remembers,
 * opened beneath the export root without following any symlink, and
 * only if it still has the handle's kernel handle.
 */
static int open_by_path(const struct vfs_export *e, const struct fh_parts *p)
{
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
			   RESOLVE_NO_XDEV,
	};
	union {
		struct file_handle h;
		uint8_t buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} u;
	char rel[PATH_MAX];
	int fd, mnt, r;

	r = vfs_hmap_get(e->id, p->kernel_type, p->kernel, p->kernel_len, rel, sizeof(rel));
	if (r < 0)
		return r == -ENOENT ? -ESTALE : r;
	fd = (int)syscall(SYS_openat2, e->root_fd, rel[0] ? rel : ".", &how, sizeof(how));
	if (fd < 0)
		return errno == ENOENT || errno == ELOOP || errno == EXDEV ? -ESTALE : -errno;
	u.h.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(fd, "", &u.h, &mnt, AT_EMPTY_PATH) < 0 ||
	    u.h.handle_type != p->kernel_type || u.h.handle_bytes != p->kernel_len ||
	    memcmp(u.h.f_handle, p->kernel, p->kernel_len) != 0) {
		close(fd);
		return -ESTALE;   /* the path now names another object */
	}
	return fd;
}

void vfs_renamed(const struct vfs_export *e, int fdir, const char *fname, int tdir,
		 const char *tname)
{
	char from[PATH_MAX], to[PATH_MAX];
	size_t fl, tl;

	if (privileged || rel_path(e, fdir, from, sizeof(from)) < 0 ||
	    rel_path(e, tdir, to, sizeof(to)) < 0)
		return;
	fl = strlen(from);
	tl = strlen(to);
	if (fl + strlen(fname) + 2 > sizeof(from) || tl + strlen(tname) + 2 > sizeof(to))
		return;
	snprintf(from + fl, sizeof(from) - fl, "%s%s", fl ? "/" : "", fname);
	snprintf(to + tl, sizeof(to) - tl, "%s%s", tl ? "/" : "", tname);
	vfs_hmap_rename(e->id, from, to);
}

/* The parts of our handle for the kernel's handle @h of an object of @e.
 * Return values: 0, or -1 when @h is too long for FH_MAX. */
static int kernel_parts(const struct vfs_export *e, const struct file_handle *h,
			struct fh_parts *p)
{
	if (h->handle_bytes > FH_KERNEL_MAX)
		return -1;
	p->export_id = e->id;
	p->kernel_type = h->handle_type;
	p->kernel_len = h->handle_bytes;
	memcpy(p->kernel, h->f_handle, h->handle_bytes);
	return 0;
}

int vfs_handle_of(const uint8_t key[FH_KEY_LEN], const struct vfs_export *e,
		  int fd, struct nfsx_fh *fh)
{
	union {
		struct file_handle h;
		uint8_t buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} u;
	struct fh_parts p;
	int mnt;

	u.h.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(fd, "", &u.h, &mnt, AT_EMPTY_PATH) < 0)
		return -errno;
	if (kernel_parts(e, &u.h, &p) < 0)
		return -EOVERFLOW;
	if (!privileged) {
		char rel[PATH_MAX];
		int r = rel_path(e, fd, rel, sizeof(rel));

		if (r == 0)
			r = vfs_hmap_put(e->id, p.kernel_type, p.kernel, p.kernel_len, rel);
		if (r < 0)
			return r;
	}
	return fh_encode(key, &p, fh) < 0 ? -EOVERFLOW : 0;
}

/*
 * The inode number inside a kernel handle, in the layouts of the file
 * systems whose listings are cached (local_fs); 0 for any other.
 */
static uint64_t handle_ino(long fs_type, const struct file_handle *h)
{
	uint32_t w[3] = { 0, 0, 0 };
	uint64_t ino = 0;

	memcpy(w, h->f_handle, h->handle_bytes < sizeof(w) ? h->handle_bytes : sizeof(w));
	switch ((unsigned long)fs_type) {
	case TMPFS_MAGIC:        /* shmem_encode_fh: generation, ino low, ino high */
		return h->handle_type == 1 && h->handle_bytes == 12 ?
		       w[1] | (uint64_t)w[2] << 32 : 0;
	case EXT4_SUPER_MAGIC:   /* FILEID_INO32_GEN(_PARENT): ino, generation */
	case F2FS_SUPER_MAGIC:
		return (h->handle_type == 1 || h->handle_type == 2) && h->handle_bytes >= 8 ?
		       w[0] : 0;
	case XFS_SUPER_MAGIC:    /* the same, or 64-bit inodes (0x81, 0x82) */
		if ((h->handle_type == 1 || h->handle_type == 2) && h->handle_bytes >= 8)
			return w[0];
		if ((h->handle_type == 0x81 || h->handle_type == 0x82) && h->handle_bytes >= 12)
			memcpy(&ino, h->f_handle, sizeof(ino));
		return ino;
	case BTRFS_SUPER_MAGIC:  /* objectid first (0x4d-0x4f) */
		if (h->handle_type >= 0x4d && h->handle_type <= 0x4f && h->handle_bytes >= 8)
			memcpy(&ino, h->f_handle, sizeof(ino));
		return ino;
	default:
		return 0;
	}
}

int vfs_handle_at(const uint8_t key[FH_KEY_LEN], const struct vfs_export *e,
		  int dirfd, const char *name, struct nfsx_fh *fh, uint64_t *ino)
{
	union {
		struct file_handle h;
		uint8_t buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} u;
	struct fh_parts p;
	int mnt, fd, r;

	*ino = 0;
	if (!privileged) {
		/* the handle map wants the object's path: open it */
		fd = open_child(e, dirfd, name);
		if (fd < 0)
			return fd;
		r = vfs_handle_of(key, e, fd, fh);
		close(fd);
		return r;
	}
	u.h.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(dirfd, name, &u.h, &mnt, 0) < 0)
		return -errno;
	if (kernel_parts(e, &u.h, &p) < 0)
		return -EOVERFLOW;
	*ino = handle_ino(e->fs_type, &u.h);
	return fh_encode(key, &p, fh) < 0 ? -EOVERFLOW : 0;
}

int vfs_open_handle(const struct vfs_export *e, const struct fh_parts *p)
{
	union {
		struct file_handle h;
		uint8_t buf[sizeof(struct file_handle) + FH_KERNEL_MAX];
	} u;
	int fd;

	if (!privileged)
		return open_by_path(e, p);
	u.h.handle_bytes = p->kernel_len;
	u.h.handle_type = p->kernel_type;
	memcpy(u.h.f_handle, p->kernel, p->kernel_len);
	fd = open_by_handle_at(e->mount_fd, &u.h, O_PATH | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? -ESTALE : -errno;
	return fd;
}

int vfs_check_name(const uint8_t *name, uint32_t len)
{
	if (len == 0)
		return -EACCES; /* as Linux's nfsd answers an empty name */
	if (len > NAME_MAX)
		return -ENAMETOOLONG;
	if (memchr(name, '/', len) || memchr(name, 0, len))
		return -EACCES;
	return 0;
}

bool vfs_is_root(const struct vfs_export *e, int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && st.st_dev == e->root_dev &&
	       st.st_ino == e->root_ino;
}

/*
 * Open @c in @dirfd without following a symlink or crossing into another
 * mount. In the export's private view no mount is below (open_view), so a
 * plain openat is enough; without one (unprivileged, or no CAP_SYS_ADMIN)
 * the kernel refuses the crossing (RESOLVE_NO_XDEV, also for ".." out of a
 * mount), and a mount point answers EACCES: the covered directory cannot
 * be shown from there.
 */
static int open_child(const struct vfs_export *e, int dirfd, const char *c)
{
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_NO_XDEV | RESOLVE_NO_MAGICLINKS,
	};
	struct statx a, b;
	int fd;

	if (e->private_view)
		fd = openat(dirfd, c, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	else
		fd = (int)syscall(SYS_openat2, dirfd, c, &how, sizeof(how));
	if (fd >= 0 || errno != ENOSYS)
		return fd < 0 ? (errno == EXDEV ? -EACCES : -errno) : fd;
	/* No openat2 (before Linux 5.6, or under valgrind): the same check
	 * by the mount ids of the directory and what the name opened. */
	fd = openat(dirfd, c, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (statx(dirfd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &a) < 0 ||
	    statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &b) < 0 ||
	    !(a.stx_mask & b.stx_mask & STATX_MNT_ID) || a.stx_mnt_id != b.stx_mnt_id) {
		close(fd);
		return -EACCES;
	}
	return fd;
}

int vfs_lookup(const struct vfs_export *e, int dirfd, const uint8_t *name,
	       uint32_t len)
{
	char c[NAME_MAX + 1];
	int err = vfs_check_name(name, len);

	if (err)
		return err;
	memcpy(c, name, len);
	c[len] = 0;
	/* ".." never climbs out of the export (and open_view's view makes
	 * it fail rather than climb from a directory whose parent is not
	 * under the root). */
	if (strcmp(c, "..") == 0 && vfs_is_root(e, dirfd))
		strcpy(c, ".");
	return open_child(e, dirfd, c);
}

int vfs_stat(int fd, struct stat *st)
{
	return fstatat(fd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

int vfs_reopen(int fd, int flags)
{
	char p[64];
	int nfd;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	nfd = open(p, flags | O_CLOEXEC); /* a magic link: it must be followed */
	return nfd < 0 ? -errno : nfd;
}
