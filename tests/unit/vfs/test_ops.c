/* SPDX-License-Identifier: MIT */
/*
 * The POSIX backend's operations table (src/vfs/posix_ops.c), called as
 * the protocols call it (e->ops): every operation does what ops.h says
 * on a real file system, and answers the errno it documents where it
 * must refuse. Run on tmpfs (/dev/shm) where there is one, which has
 * holes, user xattrs (Linux >= 6.6) and no block sharing; elsewhere on
 * /tmp. Steps a file system cannot do are reported, never passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "tap.h"
#include "vfs/node.h"
#include "vfs/ops.h"
#include "vfs/vfs.h"

static char dir[64];
static const uint8_t key[FH_KEY_LEN] = { 1, 2, 3 };

static int io_open(const char *name, int flags)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/export/%s", dir, name);
	return open(p, flags | O_CLOEXEC);
}

static void test_names(const struct vfs_export *e, const struct vfs_obj *root)
{
	const struct vfs_ops *ops = e->ops;
	struct vfs_obj a, b, c;
	struct stat st, st2;
	char buf[64];
	ssize_t n;
	int r;

	ok(ops->mkdir(e, root, "d", 0775) == 0, "mkdir");
	memset(&st, 0, sizeof(st));
	r = ops->lookup(e, root, "d", &a) == 0 && ops->getattr(e, &a, &st) == 0;
	ok(r && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0775,
	   "the directory has the mode asked, 0775, under umask 022 (%o)", st.st_mode & 07777);
	ops->release(&a);
	ok(ops->mkdir(e, root, "d", 0755) == -EEXIST, "mkdir of an existing name: -EEXIST");

	memset(&st, 0, sizeof(st));
	r = ops->create(e, root, "f", 0664, &a) == 0 && ops->getattr(e, &a, &st) == 0;
	ok(r && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0664,
	   "create: a regular file with mode 0664 (%o)", st.st_mode & 07777);
	ops->release(&a);
	ok(!vfs_obj_ok(&a), "release leaves no object");
	ok(ops->create(e, root, "f", 0644, &b) == -EEXIST && !vfs_obj_ok(&b),
	   "create is exclusive: -EEXIST, no object");
	ok(ops->lookup(e, root, "missing", &b) == -ENOENT, "lookup of a missing name: -ENOENT");

	ok(ops->symlink(e, root, "l", "f") == 0, "symlink");
	ok(ops->lookup(e, root, "l", &a) == 0 && ops->getattr(e, &a, &st) == 0 &&
	   S_ISLNK(st.st_mode), "lookup does not follow a symlink");
	n = ops->readlink(e, &a, buf, sizeof(buf));
	ok(n == 1 && buf[0] == 'f', "readlink gives the target (%zd)", n);
	ops->release(&a);
	ok(ops->lookup(e, root, "f", &a) == 0 &&
	   ops->readlink(e, &a, buf, sizeof(buf)) == -EINVAL, "readlink of a file: -EINVAL");

	ok(ops->mknod(e, root, "p", S_IFIFO | 0640, 0) == 0 && ops->lookup(e, root, "p", &b) == 0 &&
	   ops->getattr(e, &b, &st) == 0 && S_ISFIFO(st.st_mode) &&
	   (st.st_mode & 07777) == 0640, "mknod: a FIFO 0640");
	ops->release(&b);

	r = ops->link(e, &a, root, "f2");
	ok(r == 0 && ops->getattr(e, &a, &st) == 0 && st.st_nlink == 2, "link: two names (%d)", r);
	ok(ops->rename(e, root, "f2", root, "f3") == 0 && ops->lookup(e, root, "f3", &b) == 0 &&
	   ops->getattr(e, &b, &st2) == 0 && st2.st_ino == st.st_ino &&
	   ops->lookup(e, root, "f2", &c) == -ENOENT, "rename moves the name");
	ops->release(&b);
	ok(ops->remove(e, root, "f3", false) == 0 && ops->getattr(e, &a, &st) == 0 &&
	   st.st_nlink == 1, "remove drops a name");
	ok(ops->remove(e, root, "f", true) == -ENOTDIR, "rmdir of a file: -ENOTDIR");
	ok(ops->remove(e, root, "d", false) == -EISDIR, "remove of a directory: -EISDIR");
	ok(ops->lookup(e, root, "d", &b) == 0 && ops->create(e, &b, "x", 0600, &c) == 0,
	   "a file in the directory");
	ops->release(&c);
	ok(ops->remove(e, root, "d", true) == -ENOTEMPTY, "rmdir of a non-empty one: -ENOTEMPTY");
	ok(ops->remove(e, &b, "x", false) == 0 && ops->remove(e, root, "d", true) == 0,
	   "rmdir once empty");
	ops->release(&b);
	ops->release(&a);
}

static void test_attrs(const struct vfs_export *e, const struct vfs_obj *root)
{
	const struct vfs_ops *ops = e->ops;
	struct vfs_sattr sa = { 0 };
	struct vfs_statfs sf;
	struct vfs_obj a;
	struct stat st;
	int r;

	ok(ops->lookup(e, root, "f", &a) == 0 && ops->getattr(e, &a, &st) == 0, "the file");
	sa.mask = VFS_SET_SIZE | VFS_SET_MODE | VFS_SET_MTIME | VFS_SET_ATIME;
	sa.size = 10;
	sa.mode = 0600;
	sa.mtime.tv_sec = 1000000000;
	sa.atime.tv_sec = 999999999;
	ok(ops->setattr(e, &a, &st, &sa, NULL) == 0 && ops->getattr(e, &a, &st) == 0 &&
	   st.st_size == 10 && (st.st_mode & 07777) == 0600 && st.st_mtim.tv_sec == 1000000000 &&
	   st.st_atim.tv_sec == 999999999, "setattr: size, mode and times, the times last");
	sa.mask = VFS_SET_UID | VFS_SET_GID;
	sa.uid = 4242;
	sa.gid = 4343;
	ok(ops->setattr(e, &a, &st, &sa, NULL) == 0 && ops->getattr(e, &a, &st) == 0 &&
	   st.st_uid == 4242 && st.st_gid == 4343, "setattr: owner and group (as root)");
	sa.mask = VFS_SET_SIZE;
	sa.size = 0;
	ok(ops->setattr(e, root, &(struct stat){ .st_mode = S_IFDIR }, &sa, NULL) == -EISDIR,
	   "a size on a directory: -EISDIR");
	ok(ops->setattr(e, &a, &st, &(struct vfs_sattr){ .mask = VFS_SET_SIZE,
							  .size = (uint64_t)INT64_MAX + 1 },
			NULL) == -EFBIG, "a size past what a file can hold: -EFBIG");
	ok(ops->access(e, &a, R_OK | W_OK) == 0, "access as root: read and write");
	memset(&sf, 0, sizeof(sf));
	r = ops->statfs(e, root, &sf);
	ok(r == 0 && sf.blocks > 0 && sf.bsize > 0 &&
	   sf.name_max == NAME_MAX, "statfs: %llu blocks of %llu, names to %u",
	   (unsigned long long)sf.blocks, (unsigned long long)sf.bsize, sf.name_max);
	ops->release(&a);
}

static void test_data(const struct vfs_export *e, const struct vfs_obj *root)
{
	const struct vfs_ops *ops = e->ops;
	enum { MB = 1 << 20 };
	static char big[MB], back[MB];
	struct vfs_obj io = { io_open("data", O_RDWR | O_CREAT) }, io2, ro;
	char buf[16] = "";
	uint64_t at = 0;
	struct stat st;
	ssize_t n;
	int64_t c;
	int r;

	(void)root;
	ok(ops->write(e, &io, "hello", 5, 5) == 5, "write 5 bytes at 5");
	n = ops->read(e, &io, buf, sizeof(buf), 0, 0);
	ok(n == 10 && memcmp(buf, "\0\0\0\0\0hello", 10) == 0, "read them back after a gap (%zd)", n);
	n = ops->read(e, &io, buf, sizeof(buf), 5, VFS_IO_NOWAIT);
	ok(n == 5 || n == -EOPNOTSUPP, "a read of cached data without waiting (%zd)", n);
	ok(ops->read(e, &io, buf, sizeof(buf), (uint64_t)INT64_MAX + 1, 0) == 0,
	   "a read past what a file can hold: the end");
	ok(ops->commit(e, &io, false) == 0 && ops->commit(e, &io, true) == 0, "commit");

	memset(big, 'x', sizeof(big));
	ok(ops->write(e, &io, big, sizeof(big), 0) == MB, "1 MiB written");
	r = ops->deallocate(e, &io, 4096, 8192);
	if (r == -EOPNOTSUPP) {
		ok(1, "# SKIP deallocate: not on this file system");
	} else {
		ok(r == 0 && fstat(io.fd, &st) == 0 && st.st_size == MB,
		   "deallocate: the size stays");
		n = ops->read(e, &io, back, 8192, 4096, 0);
		ok(n == 8192 && back[0] == 0 && back[8191] == 0 && !memchr(back, 'x', 8192),
		   "deallocate: the range reads as zeros");
		ok(ops->seek(e, &io, 0, VFS_SEEK_HOLE, &at) == 0 && at == 4096,
		   "seek hole from 0: 4096 (%llu)", (unsigned long long)at);
		ok(ops->seek(e, &io, 4096, VFS_SEEK_DATA, &at) == 0 && at == 12288,
		   "seek data from 4096: 12288 (%llu)", (unsigned long long)at);
	}
	ok(ops->seek(e, &io, MB + 1, VFS_SEEK_DATA, &at) == -ENXIO, "seek past the end: -ENXIO");
	r = ops->allocate(e, &io, 0, 2 * MB);
	ok(r == 0 && fstat(io.fd, &st) == 0 && st.st_size == 2 * MB &&
	   st.st_blocks * 512 >= 2 * MB, "allocate: 2 MiB, blocks behind them (%lld)",
	   (long long)st.st_blocks);
	ok(ops->allocate(e, &io, (uint64_t)INT64_MAX, 2) == -EFBIG,
	   "allocate past what a file can hold: -EFBIG");

	io2.fd = io_open("copy", O_RDWR | O_CREAT);
	c = ops->copy(e, &io, 0, &io2, 0, 0);
	n = pread(io2.fd, back, MB, 0);
	ok(c == 2 * MB && n == MB && memcmp(back, "xxxx", 4) == 0 && back[4096] == 0 &&
	   back[MB - 1] == 'x', "copy to the end: 2 MiB, holes and data as they were (%lld)",
	   (long long)c);
	ok(ops->copy(e, &io, 2 * MB, &io2, 0, 100) == 0, "copy from the end: nothing");
	ok(ops->copy(e, &io, 10, &io2, 3 * MB, 5) == 5 && pread(io2.fd, buf, 5, 3 * MB) == 5 &&
	   memcmp(buf, "xxxxx", 5) == 0, "copy of 5 bytes to 3 MiB");
	r = ops->clone(e, &io, 0, &io2, 0, MB);
	ok(r == 0 || r == -EOPNOTSUPP || r == -EXDEV || r == -EINVAL,
	   "clone: done, or refused as the file system cannot (%d)", r);
	ro.fd = io_open("data", O_RDONLY);
	ok(ops->write(e, &ro, "x", 1, 0) == -EBADF, "a write through a read-only open: -EBADF");
	close(ro.fd);
	close(io2.fd);
	close(io.fd);
}

static void test_xattrs(const struct vfs_export *e, const struct vfs_obj *root)
{
	const struct vfs_ops *ops = e->ops;
	struct vfs_obj a;
	char buf[64];
	ssize_t n;
	int r;

	ok(ops->lookup(e, root, "f", &a) == 0, "the file");
	r = ops->setxattr(e, &a, "k", "value", 5, 0);
	if (r == -EOPNOTSUPP) {
		ok(1, "# SKIP xattrs: no user xattrs on this file system");
		ops->release(&a);
		return;
	}
	ok(r == 0, "setxattr (%d)", r);
	n = ops->getxattr(e, &a, "k", buf, sizeof(buf));
	ok(n == 5 && memcmp(buf, "value", 5) == 0, "getxattr gives it back");
	ok(ops->getxattr(e, &a, "k", buf, 2) == -ERANGE, "a buffer too small: -ERANGE");
	ok(ops->setxattr(e, &a, "k", "v", 1, XATTR_CREATE) == -EEXIST,
	   "XATTR_CREATE of an existing one: -EEXIST");
	ok(ops->setxattr(e, &a, "new", "v", 1, XATTR_REPLACE) == -ENODATA,
	   "XATTR_REPLACE of a missing one: -ENODATA");
	ok(ops->setxattr(e, &a, "k2", "", 0, XATTR_CREATE) == 0, "an empty value");
	n = ops->listxattr(e, &a, NULL, 0);
	ok(n == 5, "listxattr's length: \"k\" and \"k2\" without their prefix (%zd)", n);
	n = ops->listxattr(e, &a, buf, sizeof(buf));
	ok(n == 5 && (memcmp(buf, "k\0k2\0", 5) == 0 || memcmp(buf, "k2\0k\0", 5) == 0),
	   "listxattr names them");
	ok(ops->listxattr(e, &a, buf, 3) == -ERANGE, "a list buffer too small: -ERANGE");
	ok(ops->removexattr(e, &a, "k") == 0 &&
	   ops->getxattr(e, &a, "k", buf, sizeof(buf)) == -ENODATA, "removexattr");
	ok(ops->removexattr(e, &a, "k") == -ENODATA, "removexattr of a missing one: -ENODATA");
	ok(ops->getxattr(e, &a, "", buf, sizeof(buf)) == -EINVAL, "an empty name: -EINVAL");
	ops->release(&a);
}

/* A local process's view: an OFD lock of ours on a descriptor of its own
 * (-EAGAIN: a conflict). */
static int local_ofd(const char *name, short type, off_t start, off_t len)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };
	int lfd = io_open(name, O_RDWR), r;

	if (lfd < 0)
		return -errno;
	r = fcntl(lfd, F_OFD_SETLK, &fl) < 0 ? -(errno == EACCES ? EAGAIN : errno) : 0;
	close(lfd);
	return r;
}

static struct vfs_lock rng(enum vfs_lock_type type, uint64_t start, uint64_t end)
{
	return (struct vfs_lock){ .type = type, .start = start, .end = end, .pid = -1 };
}

/* The byte-range locks (lock_open, lock, lock_test, lock_close): OFD locks. */
static void test_locks(const struct vfs_export *e, const struct vfs_obj *root)
{
	const struct vfs_ops *ops = e->ops;
	struct vfs_lockh h1 = VFS_LOCKH_NONE, h2 = VFS_LOCKH_NONE, none = VFS_LOCKH_NONE;
	struct vfs_lock l, held;
	struct flock fl;
	struct vfs_obj o;
	unsigned int base = vfs_lock_holders();
	int r, pfd;

	ok(ops->create(e, root, "lk", 0644, &o) == 0, "locks: a file");
	r = ops->lock_open(e, &o, false, NULL, &h1);
	ok(r == 0 && vfs_lockh_ok(&h1) && !h1.write && vfs_lock_holders() == base + 1,
	   "lock_open for reading: a holder, counted (%d)", r);
	ok((fcntl(h1.fd, F_GETFL) & (O_ACCMODE | O_NONBLOCK)) == (O_RDONLY | O_NONBLOCK),
	   "... its own description, O_RDONLY | O_NONBLOCK");
	l = rng(VFS_LOCK_READ, 0, 99);
	ok(ops->lock(&h1, &l, &held) == 0, "a read lock of [0,99]");
	l = rng(VFS_LOCK_WRITE, 200, 299);
	ok(ops->lock(&h1, &l, &held) == -EBADF, "a write lock on a holder opened for reading: "
	   "-EBADF");
	ok(local_ofd("lk", F_RDLCK, 0, 100) == 0 && local_ofd("lk", F_WRLCK, 50, 1) == -EAGAIN,
	   "a local process shares the read lock, cannot write-lock under it");

	r = ops->lock_open(e, &o, true, NULL, &h2);
	ok(r == 0 && h2.write && h2.fd != h1.fd, "lock_open for writing: another holder (%d)", r);
	ok((fcntl(h2.fd, F_GETFL) & O_ACCMODE) == O_RDWR, "... O_RDWR (never write-only)");
	l = rng(VFS_LOCK_WRITE, 50, 59);
	memset(&held, 0, sizeof(held));
	r = ops->lock(&h2, &l, &held);
	ok(r == -EAGAIN && held.type == VFS_LOCK_READ && held.start == 0 && held.end == 99 &&
	   held.pid == -1, "a write lock over the other holder's read lock: -EAGAIN, naming it "
	   "(%d: %d [%llu,%llu] pid %d)", r, held.type, (unsigned long long)held.start,
	   (unsigned long long)held.end, (int)held.pid);
	l = rng(VFS_LOCK_WRITE, 100, VFS_LOCK_END);
	ok(ops->lock(&h2, &l, NULL) == 0, "a write lock of [100,end]");
	ok(local_ofd("lk", F_RDLCK, 1ll << 50, 1) == -EAGAIN, "held locally up to any offset");
	l = rng(VFS_LOCK_UNLOCK, 150, 199);
	ok(ops->lock(&h2, &l, NULL) == 0 && local_ofd("lk", F_WRLCK, 150, 50) == 0 &&
	   local_ofd("lk", F_WRLCK, 149, 1) == -EAGAIN && local_ofd("lk", F_WRLCK, 200, 1) ==
	   -EAGAIN, "an unlock of [150,199] splits it");
	l = rng(VFS_LOCK_READ, 120, 129);
	ok(ops->lock(&h2, &l, NULL) == 0 && local_ofd("lk", F_RDLCK, 120, 10) == 0 &&
	   local_ofd("lk", F_WRLCK, 120, 1) == -EAGAIN, "a write holder takes a read lock too "
	   "(a type change within the holder)");

	l = rng(VFS_LOCK_WRITE, 10, 10);
	r = ops->lock_test(e, &o, &h1, &l, NULL, &held);
	ok(r == 0, "lock_test by the holder of [0,99] of its own range: no conflict (%d)", r);
	r = ops->lock_test(e, &o, &none, &l, NULL, &held);
	ok(r == -EAGAIN && held.type == VFS_LOCK_READ && held.start == 0 && held.end == 99,
	   "lock_test with no holder: -EAGAIN, the read lock (%d)", r);
	ok(vfs_lock_holders() == base + 2, "... and its temporary holder is gone");

	/* a process-owned POSIX lock: the pid is told */
	pfd = io_open("lk", O_RDWR);
	fl = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 1000,
			     .l_len = 10 };
	ok(pfd >= 0 && fcntl(pfd, F_SETLK, &fl) == -1, "(our own POSIX lock there conflicts "
	   "with the holder's write lock)");
	fl.l_start = 5000;
	l = rng(VFS_LOCK_UNLOCK, 100, VFS_LOCK_END);
	ops->lock(&h2, &l, NULL);
	ok(pfd >= 0 && fcntl(pfd, F_SETLK, &fl) == 0, "a POSIX lock of [5000,5009] by this process");
	l = rng(VFS_LOCK_READ, 5005, 5005);
	memset(&held, 0, sizeof(held));
	r = ops->lock(&h1, &l, &held);
	ok(r == -EAGAIN && held.type == VFS_LOCK_WRITE && held.start == 5000 &&
	   held.end == 5009 && held.pid == getpid(),
	   "a read lock over it: -EAGAIN, with the process's pid (%d, pid %d)", r, (int)held.pid);
	if (pfd >= 0)
		close(pfd);

	/* past 2^63 - 1 */
	l = rng(VFS_LOCK_WRITE, (1ull << 63) + 5, (1ull << 63) + 9);
	ok(ops->lock(&h2, &l, NULL) == 0, "a range past 2^63 - 1: nothing to hold, 0");
	l = rng(VFS_LOCK_WRITE, (1ull << 63) - 10, (1ull << 63) + 9);
	ok(ops->lock(&h2, &l, NULL) == 0 && local_ofd("lk", F_WRLCK, INT64_MAX - 1, 0) == -EAGAIN,
	   "one across it: held up to the last offset");

	ops->lock_close(&h2);
	ok(!vfs_lockh_ok(&h2) && vfs_lock_holders() == base + 1 &&
	   local_ofd("lk", F_WRLCK, INT64_MAX - 1, 0) == 0,
	   "lock_close: its locks go with it, uncounted");
	ops->lock_close(&h1);
	ok(local_ofd("lk", F_WRLCK, 0, 0) == 0 && vfs_lock_holders() == base,
	   "both closed: the whole file free");

	/* the budget */
	vfs_lock_budget(base + 1);
	ok(ops->lock_open(e, &o, false, NULL, &h1) == 0 &&
	   ops->lock_open(e, &o, false, NULL, &h2) == -EMFILE && !vfs_lockh_ok(&h2),
	   "past vfs_lock_budget: -EMFILE, no holder");
	l = rng(VFS_LOCK_WRITE, 0, 0);
	ok(ops->lock_test(e, &o, &none, &l, NULL, &held) == 0 && vfs_lock_holders() == base + 1,
	   "lock_test with no holder past it: answered (its description is the caller's, "
	   "closed at once, outside the budget)");
	l = rng(VFS_LOCK_READ, 9, 3);
	ok(ops->lock_test(e, &o, &h1, &l, NULL, &held) == -EINVAL &&
	   ops->lock(&h1, &l, NULL) == -EINVAL,
	   "a range that ends before it starts: -EINVAL, not held or free");
	ops->lock_close(&h1);
	vfs_lock_budget(1u << 20);
	ops->release(&o);
}

int main(void)
{
	struct vfs_export e;
	struct vfs_obj root;
	struct nfsx_fh fh;
	char ep[PATH_MAX];

	umask(022);
	vfs_nodes_init(64);   /* remove and rename tell the open-object cache */
	snprintf(dir, sizeof(dir), "%s/nfsx-ops-XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return tap_done();
	}
	snprintf(ep, sizeof(ep), "%s/export", dir);
	mkdir(ep, 0755);
	ok(vfs_export_open(&e, 3, ep) == 0 && e.ops == &vfs_ops_posix,
	   "an export gets the POSIX table");
	ok(e.ops->root(&e, &root) == 0 && vfs_obj_ok(&root), "its root");
	ok(e.ops->handle(key, &e, &root, &fh) == 0 && fh.len > 0, "the root's handle");
	if (geteuid() != 0) {
		ok(1, "# SKIP the rest needs root (owners, devices)");
	} else {
		test_names(&e, &root);
		test_attrs(&e, &root);
		test_data(&e, &root);
		test_xattrs(&e, &root);
		test_locks(&e, &root);
	}
	e.ops->release(&root);
	vfs_nodes_fini();
	vfs_export_close(&e);
	{
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}
	return tap_done();
}
