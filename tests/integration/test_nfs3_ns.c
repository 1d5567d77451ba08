// SPDX-License-Identifier: MIT
/*
 * TAP integration test of nfsxd's name-space procedures: MKDIR, SYMLINK,
 * MKNOD, REMOVE, RMDIR, RENAME, LINK.
 *
 * With libnfs (synchronous API, as root and as uid 1000): each
 * operation's effect checked with the local lstat(2) (type, mode, owner,
 * symlink target, rdev, nlink, inode), error paths (EXIST, NOENT,
 * NOTEMPTY, NOTDIR, ISDIR, ROFS, ACCES, PERM, NAMETOOLONG), the sticky
 * bit, root_squash ownership.
 * On the raw wire (rpc_client.c, handles from MOUNT MNT and LOOKUP): odd
 * names ("", "a/b", 256 bytes, ".", ".."), BADTYPE, wcc_data on failure,
 * XDEV between two exports, the reply of MKDIR (handle = LOOKUP's), and
 * the duplicate request cache: the same REMOVE (and RENAME) sent twice
 * with one xid gets two identical NFS3_OK replies.
 *
 * Usage: test_nfs3_ns PORT BASE; run-nfs3-ns.sh builds BASE (described
 * there) and starts the server. Must run as root.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <nfsc/libnfs.h>

#include "nfs3_raw.h"
#include "rpc_client.h"
#include "tap.h"

#define TMO 5000

static unsigned int port;
static const char *base;

/* ---- local checks ------------------------------------------------------ */

static const char *lp(const char *rel)
{
	static char buf[4][8192];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", base, rel);
	return buf[i];
}

static bool lexists(const char *rel)
{
	struct stat st;

	return lstat(lp(rel), &st) == 0;
}

static struct stat lst(const char *rel)
{
	struct stat st;

	if (lstat(lp(rel), &st) < 0)
		memset(&st, 0, sizeof(st));
	return st;
}

/* ---- libnfs ------------------------------------------------------------ */

static struct nfs_context *mount_as(const char *exp, int uid, int gid)
{
	struct nfs_context *nfs = nfs_init_context();
	struct nfs_url *u;
	char url[8192];
	int r;

	if (!nfs)
		return NULL;
	snprintf(url, sizeof(url),
		 "nfs://127.0.0.1%s/%s?nfsport=%u&mountport=%u&version=3", base, exp, port,
		 port);
	u = nfs_parse_url_dir(nfs, url);
	if (!u) {
		printf("#   bad url %s: %s\n", url, nfs_get_error(nfs));
		nfs_destroy_context(nfs);
		return NULL;
	}
	nfs_set_uid(nfs, uid);
	nfs_set_gid(nfs, gid);
	nfs_set_timeout(nfs, 20000);
	nfs_set_dircache(nfs, 0);
	r = nfs_mount(nfs, u->server, u->path);
	nfs_destroy_url(u);
	if (r < 0) {
		printf("#   mount %s (uid %d): %d %s\n", exp, uid, r, nfs_get_error(nfs));
		nfs_destroy_context(nfs);
		return NULL;
	}
	return nfs;
}

/* "expect r == want": prints libnfs's message when not. */
static int is(struct nfs_context *nfs, int r, int want, const char *what)
{
	if (r != want)
		printf("#   %s: got %d (%s), want %d\n", what, r,
		       r < 0 ? nfs_get_error(nfs) : "", want);
	return r == want;
}

static void test_create_root(struct nfs_context *nfs)
{
	struct stat st;
	char buf[256];
	ssize_t n;
	char name[300];

	/* MKDIR: the mode as given, not masked by nfsxd's umask 022. */
	ok(is(nfs, nfs_mkdir2(nfs, "/d777", 0777), 0, "mkdir d777"),
	   "MKDIR mode 0777: OK");
	st = lst("rw/d777");
	ok(S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0777 && st.st_uid == 0,
	   "MKDIR: a directory, mode 0777 despite the server's umask 022, owner root "
	   "(mode %o uid %u)", st.st_mode & 07777, st.st_uid);
	ok(is(nfs, nfs_mkdir2(nfs, "/d1700", 01700), 0, "mkdir d1700"), "MKDIR mode 01700: OK");
	st = lst("rw/d1700");
	ok((st.st_mode & 07777) == 01700, "MKDIR mode 01700: sticky bit kept (mode %o)",
	   st.st_mode & 07777);
	ok(is(nfs, nfs_mkdir2(nfs, "/d777", 0755), -EEXIST, "mkdir existing"),
	   "MKDIR of an existing name: NFS3ERR_EXIST");
	ok(is(nfs, nfs_mkdir2(nfs, "/plain/sub", 0755), -ENOTDIR, "mkdir under a file"),
	   "MKDIR in a regular file: NFS3ERR_NOTDIR");
	ok(is(nfs, nfs_mkdir2(nfs, "/nosuch/sub", 0755), -ENOENT, "mkdir in missing"),
	   "MKDIR in a missing directory: NOENT");
	memset(name, 'n', 256);
	name[0] = '/';
	name[256] = 0;
	ok(is(nfs, nfs_mkdir2(nfs, name, 0755), 0, "mkdir 255-byte name"),
	   "MKDIR with a 255-byte name: OK");
	{
		char rel[sizeof(name) + 3];

		snprintf(rel, sizeof(rel), "rw%s", name);
		ok(S_ISDIR(lst(rel).st_mode), "MKDIR with a 255-byte name: made");
	}
	name[256] = 'n';
	name[257] = 0;
	ok(is(nfs, nfs_mkdir2(nfs, name, 0755), -ENAMETOOLONG, "mkdir 256-byte name"),
	   "MKDIR with a 256-byte name: NFS3ERR_NAMETOOLONG");

	/* SYMLINK */
	ok(is(nfs, nfs_symlink(nfs, "no/such/../target", "/sl"), 0, "symlink"),
	   "SYMLINK: OK");
	n = readlink(lp("rw/sl"), buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	st = lst("rw/sl");
	ok(S_ISLNK(st.st_mode) && strcmp(buf, "no/such/../target") == 0,
	   "SYMLINK: a symlink whose target is the bytes given (\"%s\")", buf);
	ok(is(nfs, nfs_symlink(nfs, "x", "/sl"), -EEXIST, "symlink existing"),
	   "SYMLINK onto an existing name: NFS3ERR_EXIST");
	ok(is(nfs, nfs_symlink(nfs, "plain", "/sl2plain"), 0, "symlink to plain"),
	   "SYMLINK to an existing file: OK");

	/* MKNOD */
	ok(is(nfs, nfs_mknod(nfs, "/fifo", S_IFIFO | 0640, 0), 0, "mknod fifo"),
	   "MKNOD NF3FIFO: OK");
	st = lst("rw/fifo");
	ok(S_ISFIFO(st.st_mode) && (st.st_mode & 07777) == 0640,
	   "MKNOD NF3FIFO mode 0640: a FIFO, mode 0640 (mode %o)", st.st_mode & 07777);
	ok(is(nfs, nfs_mknod(nfs, "/chr", S_IFCHR | 0600, (int)makedev(1, 3)), 0,
	      "mknod chr"),
	   "MKNOD NF3CHR 1,3: OK");
	st = lst("rw/chr");
	ok(S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 3 &&
	   (st.st_mode & 07777) == 0600,
	   "MKNOD NF3CHR: a character device 1,3 mode 0600 (rdev %u,%u mode %o)",
	   major(st.st_rdev), minor(st.st_rdev), st.st_mode & 07777);
	ok(is(nfs, nfs_mknod(nfs, "/blk", S_IFBLK | 0660, (int)makedev(7, 200)), 0,
	      "mknod blk"),
	   "MKNOD NF3BLK 7,200: OK");
	st = lst("rw/blk");
	ok(S_ISBLK(st.st_mode) && major(st.st_rdev) == 7 && minor(st.st_rdev) == 200 &&
	   (st.st_mode & 07777) == 0660,
	   "MKNOD NF3BLK: a block device 7,200 mode 0660 (rdev %u,%u mode %o)",
	   major(st.st_rdev), minor(st.st_rdev), st.st_mode & 07777);
	ok(is(nfs, nfs_mknod(nfs, "/sock", S_IFSOCK | 0777, 0), 0, "mknod sock"),
	   "MKNOD NF3SOCK: OK");
	st = lst("rw/sock");
	ok(S_ISSOCK(st.st_mode) && (st.st_mode & 07777) == 0777,
	   "MKNOD NF3SOCK mode 0777: a socket, mode 0777 despite umask 022 (mode %o)",
	   st.st_mode & 07777);
	ok(is(nfs, nfs_mknod(nfs, "/fifo", S_IFIFO | 0640, 0), -EEXIST, "mknod existing"),
	   "MKNOD onto an existing name: NFS3ERR_EXIST");
}

static void test_link_rename_remove_root(struct nfs_context *nfs)
{
	struct stat a, b;

	/* LINK */
	a = lst("rw/plain");
	ok(is(nfs, nfs_link(nfs, "/plain", "/plain.hard"), 0, "link"), "LINK: OK");
	b = lst("rw/plain.hard");
	ok(b.st_ino == a.st_ino && b.st_nlink == 2 && lst("rw/plain").st_nlink == 2,
	   "LINK: the same inode, nlink 2 (nlink %lu)", (unsigned long)b.st_nlink);
	ok(is(nfs, nfs_link(nfs, "/plain", "/plain.hard"), -EEXIST, "link existing"),
	   "LINK onto an existing name: NFS3ERR_EXIST");
	ok(is(nfs, nfs_link(nfs, "/empty", "/empty.hard"), -EPERM, "link dir"),
	   "LINK of a directory: NFS3ERR_PERM (the kernel's EPERM)");
	/* (libnfs follows a symlink named as LINK's source: the LINK of a
	 * symlink's own handle is tested on the wire.) */

	/* RENAME */
	a = lst("rw/plain.hard");
	ok(is(nfs, nfs_rename(nfs, "/plain.hard", "/d777/moved"), 0, "rename"),
	   "RENAME into another directory: OK");
	ok(!lexists("rw/plain.hard") && lst("rw/d777/moved").st_ino == a.st_ino,
	   "RENAME: the old name is gone, the new one is the same inode");
	ok(is(nfs, nfs_rename(nfs, "/d777/moved", "/d777/moved"), 0, "rename onto itself") &&
	   lexists("rw/d777/moved"),
	   "RENAME onto itself: OK, nothing lost");
	ok(is(nfs, nfs_rename(nfs, "/nosuch", "/x"), -ENOENT, "rename missing"),
	   "RENAME of a missing name: NFS3ERR_NOENT");
	ok(is(nfs, nfs_rename(nfs, "/empty", "/full"), -ENOTEMPTY, "rename onto full"),
	   "RENAME of a directory onto a non-empty one: NFS3ERR_NOTEMPTY");
	ok(is(nfs, nfs_rename(nfs, "/plain", "/empty"), -EISDIR, "rename file onto dir"),
	   "RENAME of a file onto a directory: NFS3ERR_ISDIR");
	ok(is(nfs, nfs_rename(nfs, "/empty", "/plain"), -ENOTDIR, "rename dir onto file"),
	   "RENAME of a directory onto a file: NFS3ERR_NOTDIR");
	a = lst("rw/plain");
	ok(is(nfs, nfs_rename(nfs, "/d777/moved", "/sl2plain"), 0, "rename replace") &&
	   lst("rw/sl2plain").st_ino == a.st_ino && S_ISREG(lst("rw/sl2plain").st_mode),
	   "RENAME onto an existing symlink replaces the symlink (not its target)");
	ok(lst("rw/plain").st_ino == a.st_ino && lst("rw/plain").st_nlink == 2,
	   "RENAME: the symlink's target was not touched");

	/* REMOVE */
	ok(is(nfs, nfs_unlink(nfs, "/sl"), 0, "unlink symlink") && !lexists("rw/sl"),
	   "REMOVE of a symlink: gone");
	ok(is(nfs, nfs_symlink(nfs, "plain", "/sl2"), 0, "symlink sl2") &&
	   is(nfs, nfs_unlink(nfs, "/sl2"), 0, "unlink symlink 2") &&
	   !lexists("rw/sl2") && lst("rw/plain").st_nlink == 2,
	   "REMOVE of a symlink to a file removes the symlink, not the file");
	ok(is(nfs, nfs_unlink(nfs, "/sl2plain"), 0, "unlink hard link") &&
	   lst("rw/plain").st_nlink == 1,
	   "REMOVE of one of two hard links: nlink back to 1");
	ok(is(nfs, nfs_unlink(nfs, "/nosuch"), -ENOENT, "unlink missing"),
	   "REMOVE of a missing name: NFS3ERR_NOENT");
	ok(is(nfs, nfs_unlink(nfs, "/empty"), -EISDIR, "unlink dir") && lexists("rw/empty"),
	   "REMOVE of a directory: NFS3ERR_ISDIR, still there");
	ok(is(nfs, nfs_unlink(nfs, "/fifo"), 0, "unlink fifo") && !lexists("rw/fifo"),
	   "REMOVE of a FIFO: gone");

	/* RMDIR */
	ok(is(nfs, nfs_rmdir(nfs, "/full"), -ENOTEMPTY, "rmdir full") && lexists("rw/full/x"),
	   "RMDIR of a non-empty directory: NFS3ERR_NOTEMPTY");
	ok(is(nfs, nfs_rmdir(nfs, "/plain"), -ENOTDIR, "rmdir file") && lexists("rw/plain"),
	   "RMDIR of a file: NFS3ERR_NOTDIR");
	ok(is(nfs, nfs_rmdir(nfs, "/nosuch"), -ENOENT, "rmdir missing"),
	   "RMDIR of a missing name: NFS3ERR_NOENT");
	ok(is(nfs, nfs_rmdir(nfs, "/d1700"), 0, "rmdir") && !lexists("rw/d1700"),
	   "RMDIR of an empty directory: gone");
}

/* As uid 1000 (no_root_squash keeps it 1000) on the rw export. */
static void test_user(void)
{
	struct nfs_context *nfs = mount_as("rw", 1000, 1000);
	struct stat a, st;

	ok(nfs != NULL, "mount rw as uid 1000");
	if (!nfs)
		return;
	ok(is(nfs, nfs_mkdir2(nfs, "/pub/u", 0750), 0, "mkdir as 1000"),
	   "uid 1000: MKDIR in a 0777 directory: OK");
	st = lst("rw/pub/u");
	ok(st.st_uid == 1000 && st.st_gid == 1000 && (st.st_mode & 07777) == 0750,
	   "uid 1000: the directory is 1000:1000 mode 0750 (%u:%u %o)", st.st_uid,
	   st.st_gid, st.st_mode & 07777);
	ok(is(nfs, nfs_symlink(nfs, "t", "/pub/usl"), 0, "symlink as 1000") &&
	   lst("rw/pub/usl").st_uid == 1000,
	   "uid 1000: SYMLINK: owned by 1000");
	ok(is(nfs, nfs_mknod(nfs, "/pub/uchr", S_IFCHR | 0600, (int)makedev(1, 3)), -EPERM,
	      "mknod chr as 1000") && !lexists("rw/pub/uchr"),
	   "uid 1000: MKNOD of a character device: NFS3ERR_PERM (no CAP_MKNOD)");
	ok(is(nfs, nfs_mknod(nfs, "/pub/ufifo", S_IFIFO | 0600, 0), 0, "mknod fifo as 1000"),
	   "uid 1000: MKNOD of a FIFO: OK");

	/* LINK as a non-root fsuid: through /proc/self/fd, not AT_EMPTY_PATH. */
	a = lst("rw/pub/own1000");
	ok(is(nfs, nfs_link(nfs, "/pub/own1000", "/pub/own1000.hard"), 0, "link as 1000") &&
	   lst("rw/pub/own1000.hard").st_ino == a.st_ino &&
	   lst("rw/pub/own1000").st_nlink == 2,
	   "uid 1000: LINK of its own file: OK, same inode, nlink 2");

	/* ACCES in a root 0755 directory */
	ok(is(nfs, nfs_mkdir2(nfs, "/rootdir/x", 0755), -EACCES, "mkdir in rootdir"),
	   "uid 1000: MKDIR in root's 0755 directory: NFS3ERR_ACCES");
	ok(is(nfs, nfs_symlink(nfs, "t", "/rootdir/x"), -EACCES, "symlink in rootdir"),
	   "uid 1000: SYMLINK there: NFS3ERR_ACCES");
	ok(is(nfs, nfs_mknod(nfs, "/rootdir/x", S_IFIFO | 0600, 0), -EACCES,
	      "mknod in rootdir"),
	   "uid 1000: MKNOD there: NFS3ERR_ACCES");
	ok(is(nfs, nfs_unlink(nfs, "/rootdir/f"), -EACCES, "unlink in rootdir") &&
	   lexists("rw/rootdir/f"),
	   "uid 1000: REMOVE there: NFS3ERR_ACCES, the file stays");
	ok(is(nfs, nfs_rename(nfs, "/rootdir/f", "/pub/f"), -EACCES, "rename from rootdir") &&
	   lexists("rw/rootdir/f"),
	   "uid 1000: RENAME out of it: NFS3ERR_ACCES");
	ok(is(nfs, nfs_link(nfs, "/pub/own1000", "/rootdir/x"), -EACCES, "link into rootdir"),
	   "uid 1000: LINK into it: NFS3ERR_ACCES");
	ok(!lexists("rw/rootdir/x"), "uid 1000: nothing was created in root's directory");

	/* sticky: 1000 may not remove or rename 2000's file, may its own */
	ok(is(nfs, nfs_unlink(nfs, "/sticky/his"), -EPERM, "unlink his") &&
	   lexists("rw/sticky/his"),
	   "uid 1000: REMOVE of uid 2000's file in a sticky directory: NFS3ERR_PERM");
	ok(is(nfs, nfs_rename(nfs, "/sticky/his", "/sticky/stolen"), -EPERM, "rename his") &&
	   lexists("rw/sticky/his"),
	   "uid 1000: RENAME of uid 2000's file in a sticky directory: NFS3ERR_PERM");
	ok(is(nfs, nfs_unlink(nfs, "/sticky/mine"), 0, "unlink mine") &&
	   !lexists("rw/sticky/mine"),
	   "uid 1000: REMOVE of its own file in the sticky directory: OK");
	ok(is(nfs, nfs_rmdir(nfs, "/pub/u"), 0, "rmdir as 1000") && !lexists("rw/pub/u"),
	   "uid 1000: RMDIR of its own directory: OK");
	nfs_destroy_context(nfs);
}

static void test_ro(void)
{
	struct nfs_context *nfs = mount_as("ro", 0, 0);

	ok(nfs != NULL, "mount ro as root");
	if (!nfs)
		return;
	ok(is(nfs, nfs_mkdir2(nfs, "/x", 0755), -EROFS, "ro mkdir"), "ro: MKDIR: NFS3ERR_ROFS");
	ok(is(nfs, nfs_symlink(nfs, "t", "/x"), -EROFS, "ro symlink"),
	   "ro: SYMLINK: NFS3ERR_ROFS");
	ok(is(nfs, nfs_mknod(nfs, "/x", S_IFIFO | 0600, 0), -EROFS, "ro mknod"),
	   "ro: MKNOD: NFS3ERR_ROFS");
	ok(is(nfs, nfs_unlink(nfs, "/f"), -EROFS, "ro unlink"), "ro: REMOVE: NFS3ERR_ROFS");
	ok(is(nfs, nfs_rmdir(nfs, "/d"), -EROFS, "ro rmdir"), "ro: RMDIR: NFS3ERR_ROFS");
	ok(is(nfs, nfs_rename(nfs, "/f", "/g"), -EROFS, "ro rename"),
	   "ro: RENAME: NFS3ERR_ROFS");
	ok(is(nfs, nfs_link(nfs, "/f", "/g"), -EROFS, "ro link"), "ro: LINK: NFS3ERR_ROFS");
	ok(lexists("ro/f") && lexists("ro/d") && !lexists("ro/x") && !lexists("ro/g"),
	   "ro: nothing changed");
	nfs_destroy_context(nfs);
}

static void test_squash(void)
{
	struct nfs_context *nfs = mount_as("sq", 0, 0);
	struct stat st;

	ok(nfs != NULL, "mount sq (root_squash) as root");
	if (!nfs)
		return;
	ok(is(nfs, nfs_mkdir2(nfs, "/r", 0700), 0, "sq mkdir"), "root_squash: MKDIR: OK");
	st = lst("sq/r");
	ok(st.st_uid == 65534 && st.st_gid == 65534 && (st.st_mode & 07777) == 0700,
	   "root_squash: made by the anonymous identity 65534:65534 (%u:%u %o)",
	   st.st_uid, st.st_gid, st.st_mode & 07777);
	ok(is(nfs, nfs_mknod(nfs, "/c", S_IFCHR | 0600, (int)makedev(1, 3)), -EPERM,
	      "sq mknod chr"),
	   "root_squash: squashed root may not MKNOD a device: NFS3ERR_PERM");
	nfs_destroy_context(nfs);
}

/* ---- raw wire ---------------------------------------------------------- */

#define NFSPROC3_LOOKUP 3
#define NFSPROC3_MKDIR 9
#define NFSPROC3_SYMLINK 10
#define NFSPROC3_MKNOD 11
#define NFSPROC3_REMOVE 12
#define NFSPROC3_RMDIR 13
#define NFSPROC3_RENAME 14
#define NFSPROC3_LINK 15

struct fh {
	uint32_t len;
	uint8_t d[64];
};

static bool get_fh(struct rpc_cur *c, struct fh *fh)
{
	uint32_t l = rpc_cur_u32(c);

	if (c->bad || l > 64 || c->n < ((l + 3u) & ~3u)) {
		c->bad = true;
		return false;
	}
	if (fh) {
		fh->len = l;
		memcpy(fh->d, c->p, l);
	}
	rpc_cur_skip(c, (l + 3u) & ~3u);
	return true;
}

/* post_op_attr: returns attributes_follow; *type gets fattr3.type. */
static bool post_op(struct rpc_cur *c, uint32_t *type)
{
	if (!rpc_cur_u32(c))
		return false;
	if (type)
		*type = rpc_get_u32(c->p);
	rpc_cur_skip(c, 84);
	return !c->bad;
}

/* wcc_data: true when both before and after attributes are present. */
static bool wcc(struct rpc_cur *c)
{
	bool before = rpc_cur_u32(c);

	if (before)
		rpc_cur_skip(c, 24);
	return post_op(c, NULL) && before && !c->bad;
}

static void put_name(struct rpc_buf *b, const char *n, size_t len)
{
	rpc_buf_put_opaque(b, n, len);
}

static void put_fh(struct rpc_buf *b, const struct fh *fh)
{
	rpc_buf_put_opaque(b, fh->d, fh->len);
}

/* sattr3 with only the mode set */
static void put_sattr_mode(struct rpc_buf *b, uint32_t mode)
{
	rpc_buf_put_u32(b, 1);
	rpc_buf_put_u32(b, mode);
	for (int i = 0; i < 5; i++)
		rpc_buf_put_u32(b, 0);
}

/* One call as AUTH_SYS root with @xid (0: a fresh one); the reply record
 * stays in @store. Returns the parsed reply's body cursor. */
static struct rpc_cur call_xid(int fd, uint32_t prog, uint32_t proc, const struct rpc_buf *args,
			   uint32_t xid, struct rpc_buf *store)
{
	struct rpc_buf cred;
	struct rpc_call c;
	struct rpc_reply r;
	struct rpc_cur cur = { NULL, 0, true };
	char s[256];
	int rc;

	rpc_buf_init(&cred);
	rpc_authsys_encode(&cred, 0, "nfsx-test", 0, 0, NULL, 0);
	rpc_call_init(&c, xid ? xid : rpc_next_xid(), prog, 3, proc);
	c.cred_flavor = AUTH_SYS;
	c.cred_body = cred.data;
	c.cred_len = cred.len;
	c.args = args ? args->data : NULL;
	c.args_len = args ? args->len : 0;
	rpc_buf_reset(store);
	memset(&r, 0, sizeof(r));
	rc = rpc_call_simple(fd, &c, &r, store, TMO);
	rpc_buf_free(&cred);
	if (rc == 1 && r.reply_stat == RPC_MSG_ACCEPTED && r.accept_stat == RPC_SUCCESS) {
		cur.p = r.body;
		cur.n = r.body_len;
		cur.bad = false;
	} else if (rc == 1) {
		printf("#   reply: %s\n", rpc_reply_str(&r, s, sizeof(s)));
	} else {
		printf("#   no reply (rc %d)\n", rc);
	}
	return cur;
}

static struct rpc_cur call(int fd, uint32_t proc, const struct rpc_buf *args,
		       struct rpc_buf *store)
{
	return call_xid(fd, PROG_NFS, proc, args, 0, store);
}

static bool mnt(int fd, const char *path, struct fh *fh)
{
	struct rpc_buf a, st;
	struct rpc_cur c;
	bool good;

	rpc_buf_init(&a);
	rpc_buf_init(&st);
	rpc_buf_put_string(&a, path);
	c = call_xid(fd, PROG_MOUNT, 1, &a, 0, &st);
	good = rpc_cur_u32(&c) == 0 && get_fh(&c, fh);
	rpc_buf_free(&a);
	rpc_buf_free(&st);
	return good;
}

static long lookup(int fd, const struct fh *dir, const char *name, struct fh *out)
{
	struct rpc_buf a, st;
	struct rpc_cur c;
	long s;

	rpc_buf_init(&a);
	rpc_buf_init(&st);
	put_fh(&a, dir);
	put_name(&a, name, strlen(name));
	c = call(fd, NFSPROC3_LOOKUP, &a, &st);
	s = rpc_cur_u32(&c);
	if (s == 0)
		get_fh(&c, out);
	if (c.bad)
		s = -1;
	rpc_buf_free(&a);
	rpc_buf_free(&st);
	return s;
}

/*
 * A directory operation with @args: returns its nfsstat3 (-1: no or bad
 * reply) and checks the failure reply shape: wcc_data with attributes
 * (two for RENAME, file attributes first for LINK) and nothing more.
 */
static long dirop(int fd, uint32_t proc, const struct rpc_buf *args, bool *shape_ok)
{
	struct rpc_buf st;
	struct rpc_cur c;
	long s;

	rpc_buf_init(&st);
	c = call(fd, proc, args, &st);
	s = rpc_cur_u32(&c);
	if (c.bad) {
		rpc_buf_free(&st);
		*shape_ok = false;
		return -1;
	}
	if (s != 0) {
		bool w = true;

		if (proc == NFSPROC3_LINK)
			post_op(&c, NULL);
		w = wcc(&c);
		if (proc == NFSPROC3_RENAME)
			w = wcc(&c) && w;
		*shape_ok = w && !c.bad && c.n == 0;
	} else {
		*shape_ok = true;
	}
	rpc_buf_free(&st);
	return s;
}

static long mkdir_named(int fd, const struct fh *dir, const char *n, size_t len, bool *shape)
{
	struct rpc_buf a;
	long s;

	rpc_buf_init(&a);
	put_fh(&a, dir);
	put_name(&a, n, len);
	put_sattr_mode(&a, 0755);
	s = dirop(fd, NFSPROC3_MKDIR, &a, shape);
	rpc_buf_free(&a);
	return s;
}

static long remove_named(int fd, uint32_t proc, const struct fh *dir, const char *n,
			 bool *shape)
{
	struct rpc_buf a;
	long s;

	rpc_buf_init(&a);
	put_fh(&a, dir);
	put_name(&a, n, strlen(n));
	s = dirop(fd, proc, &a, shape);
	rpc_buf_free(&a);
	return s;
}

static long rename_named(int fd, const struct fh *d1, const char *n1, const struct fh *d2,
			 const char *n2, bool *shape)
{
	struct rpc_buf a;
	long s;

	rpc_buf_init(&a);
	put_fh(&a, d1);
	put_name(&a, n1, strlen(n1));
	put_fh(&a, d2);
	put_name(&a, n2, strlen(n2));
	s = dirop(fd, NFSPROC3_RENAME, &a, shape);
	rpc_buf_free(&a);
	return s;
}

static long link_named(int fd, const struct fh *file, const struct fh *dir, const char *n,
		       bool *shape)
{
	struct rpc_buf a;
	long s;

	rpc_buf_init(&a);
	put_fh(&a, file);
	put_fh(&a, dir);
	put_name(&a, n, strlen(n));
	s = dirop(fd, NFSPROC3_LINK, &a, shape);
	rpc_buf_free(&a);
	return s;
}

static void test_wire_names(int fd, const struct fh *root)
{
	char n256[257];
	bool sh;
	long s;

	s = mkdir_named(fd, root, "", 0, &sh);
	ok(s == 13 && sh, "wire MKDIR \"\": NFS3ERR_ACCES with dir_wcc (got %ld)", s);
	s = mkdir_named(fd, root, "a/b", 3, &sh);
	ok(s == 13 && sh, "wire MKDIR \"a/b\": NFS3ERR_ACCES with dir_wcc (got %ld)", s);
	s = mkdir_named(fd, root, "a\0b", 3, &sh);
	ok(s == 13 && sh, "wire MKDIR \"a\\0b\": NFS3ERR_ACCES (got %ld)", s);
	memset(n256, 'x', sizeof(n256));
	s = mkdir_named(fd, root, n256, 256, &sh);
	ok(s == 63 && sh, "wire MKDIR of a 256-byte name: NFS3ERR_NAMETOOLONG (got %ld)", s);
	s = mkdir_named(fd, root, ".", 1, &sh);
	ok(s == 17 && sh, "wire MKDIR \".\": NFS3ERR_EXIST, as nfsd (got %ld)", s);
	s = mkdir_named(fd, root, "..", 2, &sh);
	ok(s == 17 && sh, "wire MKDIR \"..\": NFS3ERR_EXIST (got %ld)", s);
	s = remove_named(fd, NFSPROC3_REMOVE, root, ".", &sh);
	ok(s == 13 && sh, "wire REMOVE \".\": NFS3ERR_ACCES, as nfsd_unlink (got %ld)", s);
	s = remove_named(fd, NFSPROC3_RMDIR, root, "..", &sh);
	ok(s == 13 && sh, "wire RMDIR \"..\": NFS3ERR_ACCES (got %ld)", s);
	s = remove_named(fd, NFSPROC3_REMOVE, root, "", &sh);
	ok(s == 13 && sh, "wire REMOVE \"\": NFS3ERR_ACCES (got %ld)", s);
	s = rename_named(fd, root, ".", root, "z", &sh);
	ok(s == 1 && sh, "wire RENAME from \".\": NFS3ERR_PERM, as nfsd_rename, two wcc "
	   "(got %ld)", s);
	s = rename_named(fd, root, "plain", root, "..", &sh);
	ok(s == 1 && sh && lexists("rw/plain"), "wire RENAME to \"..\": NFS3ERR_PERM (got %ld)",
	   s);
	{
		struct fh plain;

		ok(lookup(fd, root, "plain", &plain) == 0, "wire LOOKUP plain");
		s = link_named(fd, &plain, root, ".", &sh);
		ok(s == 17 && sh, "wire LINK to \".\": NFS3ERR_EXIST with file attributes and "
		   "wcc (got %ld)", s);
		/* a file handle as the directory */
		s = remove_named(fd, NFSPROC3_REMOVE, &plain, "x", &sh);
		ok(s == 20 && sh, "wire REMOVE in a file handle: NFS3ERR_NOTDIR (got %ld)", s);
	}
	ok(!lexists("rw/z") && !lexists("rw/a"), "wire: odd names created nothing");
}

static void test_wire_create(int fd, const struct fh *root)
{
	struct rpc_buf a, st;
	struct fh made, looked;
	struct rpc_cur c;
	uint32_t type = 0;
	bool sh;
	long s;

	rpc_buf_init(&a);
	rpc_buf_init(&st);
	/* MKDIR: full reply */
	put_fh(&a, root);
	put_name(&a, "wdir", 4);
	put_sattr_mode(&a, 0711);
	c = call(fd, NFSPROC3_MKDIR, &a, &st);
	s = rpc_cur_u32(&c);
	{
		bool hf = rpc_cur_u32(&c) == 1 && get_fh(&c, &made);
		bool af = post_op(&c, &type);
		bool w = wcc(&c);

		ok(!c.bad && s == 0 && hf && af && type == 2 && w && c.n == 0,
		   "wire MKDIR: OK, handle, attributes (NF3DIR), dir_wcc before and after "
		   "(status %ld type %u)", s, type);
	}
	ok(lookup(fd, root, "wdir", &looked) == 0 && looked.len == made.len &&
	   memcmp(looked.d, made.d, made.len) == 0,
	   "wire MKDIR: the handle is the one LOOKUP gives");
	ok((lst("rw/wdir").st_mode & 07777) == 0711, "wire MKDIR: mode 0711");

	/* MKNOD of the types it does not make: BADTYPE */
	for (uint32_t t = 1; t <= 5; t += 1) {
		if (t != 1 && t != 2 && t != 5)
			continue; /* NF3REG, NF3DIR, NF3LNK */
		rpc_buf_reset(&a);
		put_fh(&a, root);
		put_name(&a, "wnod", 4);
		rpc_buf_put_u32(&a, t);
		s = dirop(fd, NFSPROC3_MKNOD, &a, &sh);
		ok(s == 10007 && sh && !lexists("rw/wnod"),
		   "wire MKNOD type %u: NFS3ERR_BADTYPE, nothing made (got %ld)", t, s);
	}
	/* MKNOD of a device number the kernel cannot hold: INVAL */
	rpc_buf_reset(&a);
	put_fh(&a, root);
	put_name(&a, "wnod", 4);
	rpc_buf_put_u32(&a, 4); /* NF3CHR */
	put_sattr_mode(&a, 0600);
	rpc_buf_put_u32(&a, 0x1000);
	rpc_buf_put_u32(&a, 1);
	s = dirop(fd, NFSPROC3_MKNOD, &a, &sh);
	ok(s == 22 && sh && !lexists("rw/wnod"), "wire MKNOD NF3CHR major 4096: NFS3ERR_INVAL "
	   "(got %ld)", s);

	/* SYMLINK with an empty target: INVAL */
	rpc_buf_reset(&a);
	put_fh(&a, root);
	put_name(&a, "wsl", 3);
	put_sattr_mode(&a, 0777);
	put_name(&a, "", 0);
	s = dirop(fd, NFSPROC3_SYMLINK, &a, &sh);
	ok(s == 22 && sh && !lexists("rw/wsl"), "wire SYMLINK to \"\": NFS3ERR_INVAL (got %ld)",
	   s);
	rpc_buf_free(&a);
	rpc_buf_free(&st);
}

static void test_wire_xdev(int fd, const struct fh *root, const struct fh *root2)
{
	struct fh g;
	bool sh;
	long s;

	s = rename_named(fd, root, "plain", root2, "plain", &sh);
	ok(s == 18 && sh && lexists("rw/plain") && !lexists("rw2/plain"),
	   "wire RENAME between two exports: NFS3ERR_XDEV, two wcc (got %ld)", s);
	ok(lookup(fd, root2, "g", &g) == 0, "wire LOOKUP rw2/g");
	s = link_named(fd, &g, root, "g", &sh);
	ok(s == 18 && sh && !lexists("rw/g"),
	   "wire LINK between two exports: NFS3ERR_XDEV (got %ld)", s);
}

/* LINK of a symlink's handle (LOOKUP does not follow) links the symlink. */
static void test_wire_link_symlink(int fd, const struct fh *root)
{
	struct fh sl;
	struct stat a, b;
	bool sh;
	long s;

	if (symlink("plain", lp("rw/wsl-t")) < 0)
		printf("#   symlink: %s\n", strerror(errno));
	ok(lookup(fd, root, "wsl-t", &sl) == 0, "wire LOOKUP of a symlink");
	s = link_named(fd, &sl, root, "wsl-hard", &sh);
	a = lst("rw/wsl-t");
	b = lst("rw/wsl-hard");
	ok(s == 0 && S_ISLNK(b.st_mode) && b.st_ino == a.st_ino && a.st_nlink == 2 &&
	   lst("rw/plain").st_nlink == 1,
	   "wire LINK of a symlink: the symlink itself gets a second name, its target "
	   "is untouched (status %ld, nlink %lu)", s, (unsigned long)a.st_nlink);
}

/*
 * Listings after changes made through the server. The listing cache
 * (vfs/dir.h) hears of most changes from inotify, but not of a LINK
 * made in another directory: the file's link count and ctime change,
 * and only watches on the file itself are told, not its directory's.
 * READDIRPLUS stays right there because every change answered with
 * wcc_data drops the cached attributes (vfs_dir_changed). Then names
 * created, renamed and removed through the server, each listed at once.
 */
static struct raw_fh raw_of(const struct fh *f)
{
	struct raw_fh r = { .len = f->len };

	memcpy(r.d, f->d, f->len);
	return r;
}

static void test_wire_listing(int fd, const struct fh *root)
{
	struct fh da, db, f;
	struct raw_fh ra;
	struct raw_fattr a;
	struct stat st;
	bool sh;
	int in, fdl;

	ok(mkdir_named(fd, root, "lsa", 3, &sh) == 0 && mkdir_named(fd, root, "lsb", 3, &sh) == 0 &&
	   lookup(fd, root, "lsa", &da) == 0 && lookup(fd, root, "lsb", &db) == 0,
	   "wire MKDIR lsa, lsb");
	fdl = open(lp("rw/lsa/f"), O_CREAT | O_WRONLY, 0644);
	if (fdl >= 0)
		close(fdl);
	ra = raw_of(&da);
	ok(lookup(fd, &da, "f", &f) == 0, "wire LOOKUP lsa/f");
	in = raw_plus_find(fd, &ra, "f", &a);
	ok(in == 1 && a.have && a.nlink == 1,
	   "READDIRPLUS lsa: f, nlink 1 (listed %d, nlink %u)", in, a.nlink);

	ok(link_named(fd, &f, &db, "g", &sh) == 0, "wire LINK lsa/f as lsb/g");
	st = lst("rw/lsa/f");
	in = raw_plus_find(fd, &ra, "f", &a);
	ok(in == 1 && a.have && a.nlink == 2 && a.ctime_s == (uint32_t)st.st_ctim.tv_sec &&
	   a.ctime_ns == (uint32_t)st.st_ctim.tv_nsec,
	   "READDIRPLUS lsa after the LINK: f's nlink 2 and new ctime, which no watch on lsa "
	   "heard of (listed %d, nlink %u)", in, a.nlink);

	ok(mkdir_named(fd, &da, "new", 3, &sh) == 0, "wire MKDIR lsa/new");
	in = raw_plus_find(fd, &ra, "new", &a);
	ok(in == 1 && a.have && a.type == 2, "READDIRPLUS lsa: new listed, a directory (%d)", in);
	ok(rename_named(fd, &da, "f", &da, "f2", &sh) == 0, "wire RENAME lsa/f lsa/f2");
	in = raw_plus_find(fd, &ra, "f2", &a);
	ok(in == 1 && a.have && a.nlink == 2 && raw_plus_find(fd, &ra, "f", &a) == 0,
	   "READDIRPLUS lsa: f2 listed (nlink 2), f not (%d)", in);
	ok(remove_named(fd, NFSPROC3_REMOVE, &db, "g", &sh) == 0, "wire REMOVE lsb/g");
	in = raw_plus_find(fd, &ra, "f2", &a);
	ok(in == 1 && a.have && a.nlink == 1,
	   "READDIRPLUS lsa: f2 back to nlink 1 (listed %d, nlink %u)", in, a.nlink);
	ok(remove_named(fd, NFSPROC3_REMOVE, &da, "f2", &sh) == 0 &&
	   remove_named(fd, NFSPROC3_RMDIR, &da, "new", &sh) == 0, "wire REMOVE lsa/f2, RMDIR lsa/new");
	ok(raw_plus_find(fd, &ra, "f2", &a) == 0 && raw_plus_find(fd, &ra, "new", &a) == 0,
	   "READDIRPLUS lsa: f2 and new no longer listed");
}

/* The same call twice with one xid: both replies must be byte-identical. */
static void twice(int fd, uint32_t proc, const struct rpc_buf *args, const char *what)
{
	struct rpc_buf s1, s2, s3;
	struct rpc_cur c1, c2, c3;
	uint32_t xid = rpc_next_xid();
	long st1, st2, st3;
	bool same;

	rpc_buf_init(&s1);
	rpc_buf_init(&s2);
	rpc_buf_init(&s3);
	c1 = call_xid(fd, PROG_NFS, proc, args, xid, &s1);
	c2 = call_xid(fd, PROG_NFS, proc, args, xid, &s2);
	same = s1.len == s2.len && s1.len > 0 && memcmp(s1.data, s2.data, s1.len) == 0;
	st1 = rpc_cur_u32(&c1);
	st2 = rpc_cur_u32(&c2);
	ok(!c1.bad && !c2.bad && st1 == 0 && st2 == 0 && same,
	   "DRC: %s sent twice with xid %#x: two identical NFS3_OK replies (%ld, %ld, %s)",
	   what, xid, st1, st2, same ? "same bytes" : "different bytes");
	/* The control: a new xid really is executed again. */
	c3 = call_xid(fd, PROG_NFS, proc, args, 0, &s3);
	st3 = rpc_cur_u32(&c3);
	ok(!c3.bad && st3 == 2, "DRC: the same %s with a new xid is executed: NFS3ERR_NOENT "
	   "(got %ld)", what, st3);
	rpc_buf_free(&s1);
	rpc_buf_free(&s2);
	rpc_buf_free(&s3);
}

static void test_wire_drc(int fd, const struct fh *root)
{
	struct rpc_buf a;
	int f;

	f = open(lp("rw/drc1"), O_CREAT | O_WRONLY, 0644);
	if (f >= 0)
		close(f);
	rpc_buf_init(&a);
	put_fh(&a, root);
	put_name(&a, "drc1", 4);
	put_fh(&a, root);
	put_name(&a, "drc2", 4);
	twice(fd, NFSPROC3_RENAME, &a, "RENAME drc1 -> drc2");
	ok(!lexists("rw/drc1") && lexists("rw/drc2"), "DRC: drc1 was renamed once to drc2");
	rpc_buf_reset(&a);
	put_fh(&a, root);
	put_name(&a, "drc2", 4);
	twice(fd, NFSPROC3_REMOVE, &a, "REMOVE drc2");
	ok(!lexists("rw/drc2"), "DRC: drc2 is gone");
	rpc_buf_free(&a);
}

static void test_wire(void)
{
	struct fh root = { 0 }, root2 = { 0 };
	char p[8192];
	int fd = rpc_connect_privileged((uint16_t)port, TMO);

	ok(fd >= 0, "wire: connected from a privileged port");
	if (fd < 0)
		return;
	snprintf(p, sizeof(p), "%s/rw", base);
	ok(mnt(fd, p, &root), "wire: MNT rw");
	snprintf(p, sizeof(p), "%s/rw2", base);
	ok(mnt(fd, p, &root2), "wire: MNT rw2");
	test_wire_names(fd, &root);
	test_wire_create(fd, &root);
	test_wire_xdev(fd, &root, &root2);
	test_wire_link_symlink(fd, &root);
	test_wire_listing(fd, &root);
	test_wire_drc(fd, &root);
	close(fd);
}

int main(int argc, char **argv)
{
	struct nfs_context *nfs;

	if (argc < 3) {
		fprintf(stderr, "usage: test_nfs3_ns PORT BASE\n");
		return 2;
	}
	port = (unsigned int)atoi(argv[1]);
	base = argv[2];
	nfs = mount_as("rw", 0, 0);
	ok(nfs != NULL, "mount rw (no_root_squash) as root");
	if (!nfs) {
		printf("Bail out! cannot mount\n");
		return 1;
	}
	test_create_root(nfs);
	test_link_rename_remove_root(nfs);
	nfs_destroy_context(nfs);
	test_user();
	test_ro();
	test_squash();
	test_wire();
	return tap_done();
}
