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

int vfs_export_open(struct vfs_export *e, uint32_t id, const char *path)
{
	struct statfs sf;
	struct stat st;
	int r;

	memset(e, 0, sizeof(*e));
	e->id = id;
	if (strlen(path) >= sizeof(e->path))
		return -ENAMETOOLONG;
	strcpy(e->path, path);
	e->mount_fd = -1;
	r = privileged ? open_view(path) : -EPERM;
	e->private_view = r >= 0;
	e->view_err = r < 0 && privileged ? -r : 0;
	e->root_fd = r >= 0 ? r : open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (e->root_fd < 0)
		return -errno;
	e->mount_fd = openat(e->root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (e->mount_fd < 0 || fstat(e->root_fd, &st) < 0) {
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
	if (fstatfs(e->root_fd, &sf) == 0)
		e->mem_backed = sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC;
	return 0;
}

void vfs_export_close(struct vfs_export *e)
{
	if (e->root_fd >= 0)
		close(e->root_fd);
	if (e->mount_fd >= 0)
		close(e->mount_fd);
	e->root_fd = e->mount_fd = -1;
}

/* The identity this thread acts with now; uid ~0 means not yet set. */
static __thread struct vfs_cred current = { .uid = ~0u };

int vfs_become(const struct vfs_cred *c)
{
	static const struct vfs_cred root = { 0, 0, 0, { 0 } };
	gid_t gids[16];
	uint32_t i;

	if (!privileged)
		return 0;   /* one identity, the server's own: see vfs_set_unprivileged */
	if (!c)
		c = &root;
	if (current.uid == c->uid && current.gid == c->gid &&
	    current.ngids == c->ngids &&
	    memcmp(current.gids, c->gids, c->ngids * sizeof(c->gids[0])) == 0)
		return 0;
	for (i = 0; i < c->ngids; i++)
		gids[i] = c->gids[i];
	/* Raw system call: glibc's setgroups() changes every thread. */
	if (syscall(SYS_setgroups, (size_t)c->ngids, gids) < 0)
		return -errno;
	setfsgid(c->gid);
	setfsuid(c->uid);
	if ((uint32_t)setfsuid((uid_t)-1) != c->uid ||
	    (uint32_t)setfsgid((gid_t)-1) != c->gid) {
		current.uid = ~0u;
		return -EPERM;
	}
	current = *c;
	return 0;
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
	if (u.h.handle_bytes > FH_KERNEL_MAX)
		return -EOVERFLOW;
	p.export_id = e->id;
	p.kernel_type = u.h.handle_type;
	p.kernel_len = u.h.handle_bytes;
	memcpy(p.kernel, u.h.f_handle, u.h.handle_bytes);
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

static bool is_root(const struct vfs_export *e, int fd)
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
	int fd;

	if (e->private_view)
		fd = openat(dirfd, c, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	else
		fd = (int)syscall(SYS_openat2, dirfd, c, &how, sizeof(how));
	if (fd < 0)
		return errno == EXDEV ? -EACCES : -errno;
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
	if (strcmp(c, "..") == 0 && is_root(e, dirfd))
		strcpy(c, ".");
	return open_child(e, dirfd, c);
}

int vfs_lookup_entry(const struct vfs_export *e, int dirfd, const char *name)
{
	return open_child(e, dirfd, name);
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
