// SPDX-License-Identifier: MIT
/*
 * TAP integration test: an export confines its clients, however the tree
 * under it was built or moved (the raw RPC client, as root with a
 * privileged port, so that only the server's confinement is tested).
 * - A mount point inside an export without crossmnt (a bind mount of a
 *   directory outside the export, on the same file system; a tmpfs) shows
 *   the directory it covers: LOOKUP, READDIRPLUS and MNT give the covered
 *   directory's inode, fsid and contents, and nothing of the mounted tree
 *   is reachable.
 * - ".." never leaves the export: at its root, from a bind mount's root,
 *   from an export whose root is itself a bind mount, and from a directory
 *   a local process moved out of the export while the client held its
 *   handle (the handle still names that directory and what is below it,
 *   but ".." from it, or from anything below it, fails instead of
 *   reaching its new parent).
 * - An exported file system is still busy for umount(2).
 * - crossmnt: the file systems mounted below the export (a tmpfs, a tmpfs
 *   inside it, a bind mount of the same file system) are served, each with
 *   an fsid of its own, ".." from their roots back to the mount point's
 *   parent; their handles work; READDIRPLUS leaves the mount point to
 *   LOOKUP; MNT walks across them.
 * - nohide: LOOKUP of a child export's mount point gives that export's
 *   root (its handle, as MNT gives it); ".." from it comes back; a child
 *   export without nohide stays hidden behind its covered directory.
 *
 * Usage: test_nfs3_confine PORT BASE; run-nfs3-confine.sh builds BASE
 * (described there), mounts and starts the server. Must run as root.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nfs3_raw.h"
#include "rpc_client.h"
#include "tap.h"

#define NFSPROC3_GETATTR 1
#define NFSPROC3_READDIRPLUS 17
#define NFS3_OK 0
#define NFS3ERR_NOENT 2
#define MNT3_OK 0
#define MNT3ERR_NOENT 2

static const char *base;
static int fd;

static const char *lp(const char *rel)
{
	static char buf[4][4096];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", base, rel);
	return buf[i];
}

/* Inode of a local path, seen through every mount (0 on error). */
static uint64_t lino(const char *rel)
{
	struct stat st;

	return stat(lp(rel), &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* Inode of what a directory entry names below any mount on it: the
 * entry's d_ino, which is the covered directory's. */
static uint64_t covered_ino(const char *dir, const char *name)
{
	DIR *d = opendir(lp(dir));
	struct dirent *de;
	uint64_t ino = 0;

	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, name) == 0)
			ino = de->d_ino;
	if (d)
		closedir(d);
	return ino;
}

struct attr {
	bool ok;
	uint32_t type;
	uint64_t fsid, fileid;
};

/* fattr3: type mode nlink uid gid (5 x 4), size used rdev (3 x 8), fsid,
 * fileid, then three times. */
static struct attr read_fattr(struct rpc_cur *c)
{
	struct attr a = { 0 };

	a.type = rpc_cur_u32(c);
	rpc_cur_skip(c, 16 + 24);
	a.fsid = rpc_cur_u64(c);
	a.fileid = rpc_cur_u64(c);
	rpc_cur_skip(c, 24);
	a.ok = !c->bad;
	return a;
}

static struct attr getattr(const struct raw_fh *fh)
{
	struct rpc_buf b;
	struct raw_res s = { 0 };
	struct rpc_cur c;
	struct attr a = { 0 };

	rpc_buf_init(&b);
	rpc_buf_init(&s.store);
	rpc_buf_put_opaque(&b, fh->d, fh->len);
	raw_call(fd, PROG_NFS, NFSPROC3_GETATTR, &b, &s);
	c = raw_cur(&s);
	if (rpc_cur_u32(&c) == NFS3_OK && !c.bad)
		a = read_fattr(&c);
	rpc_buf_free(&b);
	rpc_buf_free(&s.store);
	return a;
}

/* LOOKUP a '/'-separated path from @dir: the first failing status (or
 * NFS3_OK with @out filled). */
static long walk(const struct raw_fh *dir, const char *path, struct raw_fh *out)
{
	char buf[1024], *save = NULL, *name;
	struct raw_fh cur = *dir, next;
	long st = NFS3_OK;

	snprintf(buf, sizeof(buf), "%s", path);
	for (name = strtok_r(buf, "/", &save); name; name = strtok_r(NULL, "/", &save)) {
		st = raw_lookup(fd, &cur, name, &next);
		if (st != NFS3_OK)
			return st;
		cur = next;
	}
	*out = cur;
	return st;
}

/* The fileid of what @path names from @dir, 0 if the walk fails. */
static uint64_t walk_ino(const struct raw_fh *dir, const char *path)
{
	struct raw_fh fh;

	if (walk(dir, path, &fh) != NFS3_OK)
		return 0;
	return getattr(&fh).fileid;
}

struct plus_entry {
	bool found, attrs, handle;
	uint64_t fileid;       /* the entry's own */
	struct attr a;         /* its attributes, when given */
	struct raw_fh fh;
};

/* READDIRPLUS of @dir (one big page) looking for @name. */
static struct plus_entry readdirplus_find(const struct raw_fh *dir, const char *name)
{
	struct plus_entry pe = { 0 };
	struct rpc_buf b;
	struct raw_res s = { 0 };
	struct rpc_cur c;

	rpc_buf_init(&b);
	rpc_buf_init(&s.store);
	rpc_buf_put_opaque(&b, dir->d, dir->len);
	rpc_buf_put_u32(&b, 0);     /* cookie */
	rpc_buf_put_u32(&b, 0);
	rpc_buf_put_u32(&b, 0);     /* cookieverf */
	rpc_buf_put_u32(&b, 0);
	rpc_buf_put_u32(&b, 32768); /* dircount */
	rpc_buf_put_u32(&b, 65536); /* maxcount */
	raw_call(fd, PROG_NFS, NFSPROC3_READDIRPLUS, &b, &s);
	c = raw_cur(&s);
	if (rpc_cur_u32(&c) == NFS3_OK && !c.bad) {
		if (rpc_cur_u32(&c))
			read_fattr(&c);
		rpc_cur_skip(&c, 8);
		while (rpc_cur_u32(&c) && !c.bad) {
			uint32_t nl, hl;
			uint64_t ino = rpc_cur_u64(&c);
			const uint8_t *nm = rpc_cur_opaque(&c, &nl, 255);
			bool this = nm && nl == strlen(name) && memcmp(nm, name, nl) == 0;
			struct plus_entry e = { .found = true, .fileid = ino };

			rpc_cur_u64(&c);   /* cookie */
			if ((e.attrs = rpc_cur_u32(&c)))
				e.a = read_fattr(&c);
			if ((e.handle = rpc_cur_u32(&c))) {
				const uint8_t *h = rpc_cur_opaque(&c, &hl, 64);

				if (h) {
					e.fh.len = hl;
					memcpy(e.fh.d, h, hl);
				}
			}
			if (this && !c.bad)
				pe = e;
		}
	}
	if (c.bad)
		raw_diag(&s);
	rpc_buf_free(&b);
	rpc_buf_free(&s.store);
	return pe;
}

static bool same_fh(const struct raw_fh *a, const struct raw_fh *b)
{
	return a->len == b->len && memcmp(a->d, b->d, a->len) == 0;
}

/* ---- an export with mount points under it (no crossmnt) ------------- */

static void mount_points(void)
{
	struct raw_fh root, sub, tm, fh, mfh;
	struct attr ra, a;
	struct plus_entry pe;
	uint64_t sub_cov = covered_ino("x", "sub"), tm_cov = covered_ino("x", "tm");

	ok(sub_cov && sub_cov != lino("x/sub") && tm_cov && tm_cov != lino("x/tm"),
	   "the test's mounts are in place (covered inodes %llu, %llu)",
	   (unsigned long long)sub_cov, (unsigned long long)tm_cov);
	if (!ok(raw_mnt(fd, lp("x"), &root) == MNT3_OK, "MNT x"))
		return;
	ra = getattr(&root);
	ok(ra.ok && ra.fileid == lino("x"), "the root is x");

	/* A bind mount of a directory outside the export, same file system. */
	ok(raw_lookup(fd, &root, "sub", &sub) == NFS3_OK, "LOOKUP sub");
	a = getattr(&sub);
	ok(a.ok && a.fileid == sub_cov,
	   "LOOKUP of a bind mount point gives the covered directory (fileid %llu, want %llu)",
	   (unsigned long long)a.fileid, (unsigned long long)sub_cov);
	ok(a.fsid == ra.fsid, "with the export's fsid");
	ok(raw_lookup(fd, &sub, "covered", &fh) == NFS3_OK, "the covered directory's file is there");
	ok(raw_lookup(fd, &sub, "secret", &fh) == NFS3ERR_NOENT,
	   "a file of the bind-mounted directory is not reachable");
	ok(raw_lookup(fd, &sub, "inner", &fh) == NFS3ERR_NOENT,
	   "nor a directory of it");
	ok(walk_ino(&root, "sub/..") == ra.fileid, "sub/.. is the export root");
	ok(walk_ino(&root, "sub/../..") == ra.fileid, "sub/../.. is still the export root");
	ok(walk_ino(&root, "..") == ra.fileid, ".. at the root stays at the root");

	/* A tmpfs mounted under the export. */
	ok(raw_lookup(fd, &root, "tm", &tm) == NFS3_OK, "LOOKUP tm");
	a = getattr(&tm);
	ok(a.ok && a.fileid == tm_cov && a.fsid == ra.fsid,
	   "LOOKUP of a tmpfs mount point gives the covered directory, same fsid");
	ok(raw_lookup(fd, &tm, "t", &fh) == NFS3ERR_NOENT, "the tmpfs's file is not reachable");
	ok(raw_lookup(fd, &tm, "covered", &fh) == NFS3_OK, "the covered file is");

	/* READDIRPLUS sees the same as LOOKUP. */
	pe = readdirplus_find(&root, "sub");
	ok(pe.found && pe.fileid == sub_cov, "READDIRPLUS: sub's fileid is the covered one");
	ok(pe.attrs && pe.a.fileid == sub_cov && pe.a.fsid == ra.fsid,
	   "READDIRPLUS: sub's attributes are the covered directory's");
	ok(pe.handle && same_fh(&pe.fh, &sub), "READDIRPLUS: sub's handle is LOOKUP's");
	pe = readdirplus_find(&root, "tm");
	ok(pe.found && pe.attrs && pe.a.fileid == tm_cov, "READDIRPLUS: tm is the covered directory");
	pe = readdirplus_find(&sub, "secret");
	ok(!pe.found, "READDIRPLUS of sub does not list the bind mount's files");

	/* MNT walks the same way. */
	ok(raw_mnt(fd, lp("x/sub"), &mfh) == MNT3_OK && same_fh(&mfh, &sub),
	   "MNT x/sub gives the covered directory");
	ok(raw_mnt(fd, lp("x/sub/inner"), &mfh) == MNT3ERR_NOENT,
	   "MNT of a directory below the bind mount: NOENT");
	ok(raw_mnt(fd, lp("x/tm/.."), &mfh) == MNT3_OK && same_fh(&mfh, &root),
	   "MNT x/tm/.. is the root");
}

/* ---- directories moved out of an export ------------------------------ */

/* @dir of export @exp is @local on the server (under no mount: a rename
 * cannot cross one), moved by the test to @to. */
static void moved_out(const char *exp, const char *dir, const char *local, const char *to)
{
	struct raw_fh root, d, child, fh;
	struct attr ra;

	if (!ok(raw_mnt(fd, lp(exp), &root) == MNT3_OK, "MNT %s", exp))
		return;
	ra = getattr(&root);
	ok(walk(&root, dir, &d) == NFS3_OK && walk(&d, "child", &child) == NFS3_OK,
	   "%s: handles of %s and %s/child", exp, dir, dir);
	ok(walk_ino(&d, "..") == ra.fileid, "%s: %s/.. is the root before the move", exp, dir);
	if (!ok(rename(lp(local), lp(to)) == 0,
		"a local process moves %s out of the export", dir))
		return;
	ok(getattr(&d).fileid == lino(to),
	   "%s: the moved directory's handle still names it", exp);
	ok(raw_lookup(fd, &d, "..", &fh) == NFS3ERR_NOENT,
	   "%s: .. from the moved directory fails (NOENT), not its new parent", exp);
	/* Its parent is not under the export root either: the kernel's
	 * check is that the parent is connected to the root. */
	ok(raw_lookup(fd, &child, "..", &fh) == NFS3ERR_NOENT,
	   "%s: .. from below the moved directory fails too", exp);
	ok(raw_lookup(fd, &d, "child", &fh) == NFS3_OK,
	   "%s: what is below the moved directory is still reachable from it", exp);
	ok(raw_lookup(fd, &root, dir, &fh) == NFS3ERR_NOENT, "%s: it is gone from the export", exp);
}

/* ---- an export whose root is a bind mount ---------------------------- */

static void bind_root(void)
{
	struct raw_fh root;
	uint64_t real = lino("real");

	if (!ok(raw_mnt(fd, lp("bx"), &root) == MNT3_OK, "MNT bx"))
		return;
	ok(getattr(&root).fileid == real, "bx's root is the bind-mounted directory");
	ok(walk_ino(&root, "..") == real, "bx: .. at the root stays");
	ok(walk_ino(&root, "rd/../..") == real, "bx: rd/../.. stays at the root");
	ok(walk_ino(&root, "rd/child/../../..") == real, "bx: rd/child/../../.. too");
}

/* ---- crossmnt and nohide ------------------------------------------- */

static void crossmnt(void)
{
	struct raw_fh root, tm, nest, sub, fh, mfh;
	struct attr ra, ta, na, sa;
	struct plus_entry pe;

	if (!ok(raw_mnt(fd, lp("xc"), &root) == MNT3_OK, "MNT xc (crossmnt)"))
		return;
	ra = getattr(&root);
	ok(raw_lookup(fd, &root, "tm", &tm) == NFS3_OK, "xc: LOOKUP tm");
	ta = getattr(&tm);
	ok(ta.ok && ta.fileid == lino("xc/tm") && ta.fsid != ra.fsid,
	   "xc: tm is the tmpfs's root, with an fsid of its own (%llx, %llx)",
	   (unsigned long long)ta.fsid, (unsigned long long)ra.fsid);
	ok(raw_lookup(fd, &tm, "t", &fh) == NFS3_OK, "xc: the tmpfs's file is reachable");
	ok(walk_ino(&tm, "..") == ra.fileid && getattr(&fh).fsid == ta.fsid,
	   "xc: tm/.. is the export root; the tmpfs's file has the tmpfs's fsid");
	ok(raw_lookup(fd, &tm, "nest", &nest) == NFS3_OK, "xc: LOOKUP tm/nest");
	na = getattr(&nest);
	ok(na.ok && na.fileid == lino("xc/tm/nest") && na.fsid != ta.fsid && na.fsid != ra.fsid,
	   "xc: nest, a tmpfs inside the tmpfs, is crossed too, with its own fsid");
	ok(walk_ino(&nest, "..") == ta.fileid && walk_ino(&nest, "../..") == ra.fileid,
	   "xc: nest/.. is tm, nest/../.. the export root");
	ok(raw_lookup(fd, &root, "sub", &sub) == NFS3_OK, "xc: LOOKUP sub");
	sa = getattr(&sub);
	ok(sa.ok && sa.fileid == lino("xc/sub") && sa.fsid != ra.fsid,
	   "xc: sub, a bind mount of the same file system, is crossed, with its own fsid");
	ok(raw_lookup(fd, &sub, "secret2", &fh) == NFS3_OK, "xc: its file is reachable");
	ok(walk_ino(&sub, "..") == ra.fileid && walk_ino(&sub, "../..") == ra.fileid,
	   "xc: sub/.. is the export root, and no further");
	pe = readdirplus_find(&root, "tm");
	ok(pe.found && !pe.handle && !pe.attrs,
	   "xc: READDIRPLUS leaves the mount point tm to LOOKUP (no handle, no attributes)");
	pe = readdirplus_find(&tm, "t");
	ok(pe.found && pe.handle && pe.attrs && pe.a.fsid == ta.fsid,
	   "xc: READDIRPLUS inside the tmpfs gives its entries with its fsid");
	ok(raw_mnt(fd, lp("xc/tm/nest"), &mfh) == MNT3_OK && same_fh(&mfh, &nest),
	   "xc: MNT xc/tm/nest walks across both mounts to LOOKUP's handle");
}

static void nohide(void)
{
	struct raw_fh root, child, mchild, hid, mhid, fh;
	struct attr ra, ca;

	if (!ok(raw_mnt(fd, lp("xn"), &root) == MNT3_OK, "MNT xn"))
		return;
	ra = getattr(&root);
	ok(raw_mnt(fd, lp("xn/child"), &mchild) == MNT3_OK, "MNT xn/child (nohide)");
	ok(raw_lookup(fd, &root, "child", &child) == NFS3_OK && same_fh(&child, &mchild),
	   "xn: LOOKUP child gives the nohide child export's root (MNT's handle)");
	ca = getattr(&child);
	ok(ca.ok && ca.fileid == lino("xn/child") && ca.fsid != ra.fsid,
	   "xn: the child export's own file system and fsid");
	ok(raw_lookup(fd, &child, "c", &fh) == NFS3_OK, "xn: its file is reachable");
	ok(walk_ino(&child, "..") == ra.fileid, "xn: child/.. is the parent export's root");
	ok(raw_lookup(fd, &root, "hid", &hid) == NFS3_OK &&
	   getattr(&hid).fileid == covered_ino("xn", "hid"),
	   "xn: a child export without nohide stays hidden (the covered directory)");
	ok(raw_lookup(fd, &hid, "h", &fh) == NFS3ERR_NOENT, "xn: nothing of it is reachable");
	ok(raw_mnt(fd, lp("xn/hid"), &mhid) == MNT3_OK && getattr(&mhid).fileid == lino("xn/hid") &&
	   walk_ino(&mhid, "..") == lino("xn/hid"),
	   "xn/hid mounted itself: its root, and .. stays there (hide)");
}

/* The server's private views do not hide that a file system is in use. */
static void busy(void)
{
	int r = umount2(lp("tx"), 0);

	ok(r < 0 && errno == EBUSY, "an exported file system stays busy: umount fails (%s)",
	   r < 0 ? strerror(errno) : "it succeeded");
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_nfs3_confine PORT BASE\n");
		return 2;
	}
	base = argv[2];
	fd = rpc_connect_privileged((uint16_t)atoi(argv[1]), 5000);
	if (fd < 0) {
		printf("Bail out! cannot connect from a privileged port\n");
		return 1;
	}
	mount_points();
	bind_root();
	moved_out("x", "d", "x/d", "moved/d");
	moved_out("bx", "rd", "real/rd", "moved/rd");
	busy();
	crossmnt();
	nohide();
	close(fd);
	return tap_done();
}
