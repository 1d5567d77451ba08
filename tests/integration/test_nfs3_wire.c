// SPDX-License-Identifier: MIT
/*
 * TAP integration test of nfsxd's MOUNT v3 and NFSv3 procedures on the
 * wire, with the raw RPC client (no libnfs): file handle integrity
 * (every byte altered, truncated, oversize, a removed file), LOOKUP of
 * odd names ("..", ".", "", "a/b", 255 and 256 bytes), MNT of paths that
 * are and are not exported, EXPORT and DUMP contents, the `secure`
 * privileged-port rule, READDIR TOOSMALL and paging, READ at and past
 * EOF, and PROC_UNAVAIL for a procedure number past the NFSv3 table.
 *
 * Usage: test_nfs3_wire PORT BASE. run-nfs3-wire.sh starts nfsxd with
 * --no-rpcbind and an exports file:
 *   BASE/exp  127.0.0.1(ro,insecure) 10.0.0.0/8(rw)
 *   BASE/sec  *(ro)
 * and fills BASE/exp with: f ("hello nfsx\n"), a/ holding a file b,
 * victim (removed by this test), big/ with 2000 entries.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nfs3_raw.h"
#include "rpc_client.h"
#include "tap.h"

#define TMO 5000

/* MOUNT v3 */
#define MNTPROC_MNT 1
#define MNTPROC_DUMP 2
#define MNTPROC_UMNT 3
#define MNTPROC_UMNTALL 4
#define MNTPROC_EXPORT 5
#define MNT3_OK 0
#define MNT3ERR_NOENT 2
#define MNT3ERR_ACCES 13

/* NFSv3 */
#define NFSPROC_GETATTR 1
#define NFSPROC_LOOKUP 3
#define NFSPROC_READ 6
#define NFSPROC_READDIR 16
#define NFS3_OK 0
#define NFS3ERR_PERM 1
#define NFS3ERR_NOENT 2
#define NFS3ERR_ACCES 13
#define NFS3ERR_ISDIR 21
#define NFS3ERR_NAMETOOLONG 63
#define NFS3ERR_STALE 70
#define NFS3ERR_BADHANDLE 10001
#define NFS3ERR_TOOSMALL 10005

#define BIG_N 2000

static uint16_t port;
static const char *base;
static char exp_path[4096], sec_path[4096];

/* ---- calls ------------------------------------------------------------- */

/* fattr3 is 84 bytes; fileid is at offset 52, size at 20, type at 0. */
struct attr {
	uint32_t type;
	uint64_t size;
	uint64_t fileid;
};

static void fattr(struct rpc_cur *c, struct attr *a)
{
	const uint8_t *p = c->p;

	rpc_cur_skip(c, 84);
	if (c->bad)
		return;
	a->type = rpc_get_u32(p);
	a->size = (uint64_t)rpc_get_u32(p + 20) << 32 | rpc_get_u32(p + 24);
	a->fileid = (uint64_t)rpc_get_u32(p + 52) << 32 | rpc_get_u32(p + 56);
}

/* post_op_attr: true if attributes followed (then *a is filled). */
static bool post_op(struct rpc_cur *c, struct attr *a)
{
	struct attr dummy;

	if (!rpc_cur_u32(c))
		return false;
	fattr(c, a ? a : &dummy);
	return !c->bad;
}

static void put_fh(struct rpc_buf *b, const uint8_t *d, uint32_t len)
{
	rpc_buf_put_opaque(b, d, len);
}

/* ---- MOUNT ------------------------------------------------------------- */

static bool umnt(int fd, const char *path)
{
	struct rpc_buf a;
	struct raw_res s = { 0 };
	bool ok;

	rpc_buf_init(&a);
	rpc_buf_init(&s.store);
	rpc_buf_put_string(&a, path);
	raw_call(fd, PROG_MOUNT, MNTPROC_UMNT, &a, &s);
	ok = raw_accepted(&s) && s.r.body_len == 0;
	rpc_buf_free(&a);
	rpc_buf_free(&s.store);
	return ok;
}

/* DUMP: does the list hold (host, dir)? -1 if the reply is bad. */
static int dump_has(int fd, const char *host, const char *dir, int *count)
{
	struct raw_res s = { 0 };
	struct rpc_cur c;
	int found = 0, n = 0;

	rpc_buf_init(&s.store);
	raw_call(fd, PROG_MOUNT, MNTPROC_DUMP, NULL, &s);
	c = raw_cur(&s);
	while (rpc_cur_u32(&c) && !c.bad) {
		uint32_t hl, dl;
		const uint8_t *h = rpc_cur_opaque(&c, &hl, 255);
		const uint8_t *d = rpc_cur_opaque(&c, &dl, 1024);

		if (c.bad)
			break;
		n++;
		if (hl == strlen(host) && !memcmp(h, host, hl) && dl == strlen(dir) &&
		    !memcmp(d, dir, dl))
			found = 1;
	}
	if (c.bad || c.n) {
		raw_diag(&s);
		found = -1;
	}
	if (count)
		*count = n;
	rpc_buf_free(&s.store);
	return found;
}

/* ---- NFS --------------------------------------------------------------- */

/* GETATTR: status, or -1 on a bad reply / a GARBAGE_ARGS (-4). */
static long getattr(int fd, const uint8_t *h, uint32_t hl, struct attr *a)
{
	struct rpc_buf b;
	struct raw_res s = { 0 };
	struct rpc_cur c;
	long st;

	rpc_buf_init(&b);
	rpc_buf_init(&s.store);
	put_fh(&b, h, hl);
	raw_call(fd, PROG_NFS, NFSPROC_GETATTR, &b, &s);
	if (s.rc == 1 && s.r.reply_stat == RPC_MSG_ACCEPTED &&
	    s.r.accept_stat == RPC_GARBAGE_ARGS) {
		st = -4;
		goto out;
	}
	c = raw_cur(&s);
	st = rpc_cur_u32(&c);
	if (!c.bad && st == NFS3_OK) {
		struct attr dummy;

		fattr(&c, a ? a : &dummy);
	}
	if (c.bad || c.n) {
		raw_diag(&s);
		st = -1;
	}
out:
	rpc_buf_free(&b);
	rpc_buf_free(&s.store);
	return st;
}

/* LOOKUP dir/name (name of nlen bytes): status; on OK, fh and attr. */
static long lookup(int fd, const struct raw_fh *dir, const char *name, size_t nlen,
		   struct raw_fh *out, struct attr *a)
{
	struct rpc_buf b;
	struct raw_res s = { 0 };
	struct rpc_cur c;
	long st;

	rpc_buf_init(&b);
	rpc_buf_init(&s.store);
	put_fh(&b, dir->d, dir->len);
	rpc_buf_put_opaque(&b, name, nlen);
	raw_call(fd, PROG_NFS, NFSPROC_LOOKUP, &b, &s);
	if (s.rc == 1 && s.r.reply_stat == RPC_MSG_ACCEPTED &&
	    s.r.accept_stat == RPC_GARBAGE_ARGS) {
		st = -4;
		goto out;
	}
	c = raw_cur(&s);
	st = rpc_cur_u32(&c);
	if (!c.bad && st == NFS3_OK) {
		uint32_t l;
		const uint8_t *p = rpc_cur_opaque(&c, &l, 64);
		struct attr dummy;

		if (p && out) {
			out->len = l;
			memcpy(out->d, p, l);
		}
		if (!post_op(&c, a ? a : &dummy) && a)
			a->fileid = ~0ull;
		post_op(&c, NULL);
	} else {
		post_op(&c, NULL);
	}
	if (c.bad || c.n) {
		raw_diag(&s);
		st = -1;
	}
out:
	rpc_buf_free(&b);
	rpc_buf_free(&s.store);
	return st;
}

/* ---- tests ------------------------------------------------------------- */

static int conn(void)
{
	int fd = rpc_connect(port, 5000);

	if (fd < 0)
		printf("# connect to 127.0.0.1:%u failed: %s\n", port, strerror(errno));
	return fd;
}

/*
 * Status of @proc called with the handle @fh followed by each procedure's
 * other arguments (fixed, small), or -1 without a reply.
 */
/* The second handle of RENAME and LINK in status_with(). */
static const struct raw_fh *second_fh;

static long status_with(int fd, uint32_t proc, const struct raw_fh *fh)
{
	struct rpc_buf b;
	struct raw_res s = { 0 };
	struct rpc_cur c;
	long st;

	rpc_buf_init(&b);
	rpc_buf_init(&s.store);
	put_fh(&b, fh->d, fh->len);
	switch (proc) {
	case 3:  /* LOOKUP: name */
		rpc_buf_put_string(&b, "x");
		break;
	case 4:  /* ACCESS: mask */
		rpc_buf_put_u32(&b, 0x3f);
		break;
	case 6:  /* READ: offset, count */
		rpc_buf_put_u32(&b, 0);
		rpc_buf_put_u32(&b, 0);
		rpc_buf_put_u32(&b, 4096);
		break;
	case 7:  /* WRITE: offset, count, stable, data */
		rpc_buf_put_u32(&b, 0);
		rpc_buf_put_u32(&b, 0);
		rpc_buf_put_u32(&b, 4);
		rpc_buf_put_u32(&b, 0);
		rpc_buf_put_opaque(&b, "data", 4);
		break;
	case 14: /* RENAME: from name, then to (a good directory) and name */
		rpc_buf_put_string(&b, "x");
		put_fh(&b, second_fh->d, second_fh->len);
		rpc_buf_put_string(&b, "y");
		break;
	case 15: /* LINK: link (a good directory) and name */
		put_fh(&b, second_fh->d, second_fh->len);
		rpc_buf_put_string(&b, "y");
		break;
	}
	raw_call(fd, PROG_NFS, proc, &b, &s);
	c = raw_cur(&s);
	st = rpc_cur_u32(&c);
	if (c.bad)
		st = -1;
	rpc_buf_free(&b);
	rpc_buf_free(&s.store);
	return st;
}

static void test_handles(int fd, const struct raw_fh *root)
{
	struct stat st;
	struct attr a = { 0 };
	struct raw_fh bad, vf;
	uint32_t i, k;
	long r;
	static const uint8_t flips[] = { 0x01, 0x80, 0xff };

	r = getattr(fd, root->d, root->len, &a);
	ok(r == NFS3_OK, "GETATTR of the MNT handle: NFS3_OK (got %ld)", r);
	ok(stat(exp_path, &st) == 0 && a.type == 2 && a.fileid == st.st_ino,
	   "GETATTR: a directory with the export root's inode number (%llu)",
	   (unsigned long long)a.fileid);

	for (i = 0; i < root->len; i++) {
		bool good = true;

		for (k = 0; k < sizeof(flips); k++) {
			bad = *root;
			bad.d[i] ^= flips[k];
			r = getattr(fd, bad.d, bad.len, NULL);
			if (r != NFS3ERR_BADHANDLE && r != NFS3ERR_STALE) {
				printf("#   byte %u ^ 0x%02x: status %ld\n", i, flips[k], r);
				good = false;
			}
		}
		ok(good, "handle byte %u altered (^01, ^80, ^ff): BADHANDLE or STALE", i);
	}

	/* Every procedure first tried on the event loop (RPC_PROC_TRY_INLINE)
	 * answers an altered handle there, without touching the export. */
	{
		static const uint32_t procs[] = { 1, 3, 4, 6, 7 };
		static const char *const names[] = { "GETATTR", "LOOKUP", "ACCESS", "READ",
						      "WRITE" };

		bad = *root;
		bad.d[bad.len - 1] ^= 0x5a;
		for (k = 0; k < 5; k++) {
			r = status_with(fd, procs[k], &bad);
			ok(r == NFS3ERR_BADHANDLE, "%s with an altered handle: BADHANDLE (got %ld)",
			   names[k], r);
		}
		r = getattr(fd, root->d, root->len, NULL);
		ok(r == NFS3_OK, "and the server still answers (GETATTR: %ld)", r);
		/* Two handles, the first altered: the second object is never
		 * resolved and must still be released as such (it was left
		 * uninitialised on the stack: found by fuzz-rpc-stream). */
		second_fh = root;
		for (k = 0; k < 50; k++) {
			long r1 = status_with(fd, 14, &bad), r2 = status_with(fd, 15, &bad);

			if (r1 != NFS3ERR_BADHANDLE || r2 != NFS3ERR_BADHANDLE) {
				printf("#   round %u: RENAME %ld, LINK %ld\n", k, r1, r2);
				break;
			}
			getattr(fd, root->d, root->len, NULL);
		}
		ok(k == 50, "RENAME and LINK with an altered first handle: BADHANDLE, 50 times");
		r = getattr(fd, root->d, root->len, NULL);
		ok(r == NFS3_OK, "and the server still answers (GETATTR: %ld)", r);
	}

	r = getattr(fd, root->d, 0, NULL);
	ok(r == NFS3ERR_BADHANDLE, "empty handle: BADHANDLE (got %ld)", r);
	r = getattr(fd, root->d, 1, NULL);
	ok(r == NFS3ERR_BADHANDLE, "1-byte handle: BADHANDLE (got %ld)", r);
	r = getattr(fd, root->d, root->len - 1, NULL);
	ok(r == NFS3ERR_BADHANDLE, "handle truncated by one byte: BADHANDLE (got %ld)", r);
	bad = *root;
	bad.d[bad.len] = 0;
	r = getattr(fd, bad.d, bad.len + 1, NULL);
	ok(r == NFS3ERR_BADHANDLE, "handle with one byte appended: BADHANDLE (got %ld)", r);
	memset(bad.d, 0, sizeof(bad.d));
	memcpy(bad.d, root->d, root->len);
	r = getattr(fd, bad.d, 64, NULL);
	ok(r == NFS3ERR_BADHANDLE || root->len == 64,
	   "handle zero-padded to 64 bytes: BADHANDLE (got %ld)", r);
	r = getattr(fd, bad.d, 65, NULL);
	ok(r == NFS3ERR_BADHANDLE || r == -4,
	   "65-byte handle (over NFS3_FHSIZE): GARBAGE_ARGS or BADHANDLE (got %ld)", r);

	/* A handle of a file removed afterwards is stale. */
	r = lookup(fd, root, "victim", 6, &vf, NULL);
	ok(r == NFS3_OK, "LOOKUP victim: OK (got %ld)", r);
	r = getattr(fd, vf.d, vf.len, NULL);
	ok(r == NFS3_OK, "GETATTR victim before removal: OK (got %ld)", r);
	{
		char p[4200];

		snprintf(p, sizeof(p), "%s/victim", exp_path);
		ok(unlink(p) == 0, "victim removed locally");
	}
	r = getattr(fd, vf.d, vf.len, NULL);
	ok(r == NFS3ERR_STALE, "GETATTR victim after removal: NFS3ERR_STALE (got %ld)", r);
	r = lookup(fd, root, "victim", 6, NULL, NULL);
	ok(r == NFS3ERR_NOENT, "LOOKUP victim after removal: NOENT (got %ld)", r);
}

static void test_lookup(int fd, const struct raw_fh *root)
{
	struct attr ra = { 0 }, a = { 0 }, a2 = { 0 };
	struct raw_fh h, sub;
	char name[300];
	long r;

	getattr(fd, root->d, root->len, &ra);

	r = lookup(fd, root, "..", 2, &h, &a);
	ok(r == NFS3_OK && a.fileid == ra.fileid,
	   "LOOKUP .. at the export root: OK, the root itself (status %ld, fileid %llu vs %llu)",
	   r, (unsigned long long)a.fileid, (unsigned long long)ra.fileid);
	r = r == NFS3_OK ? getattr(fd, h.d, h.len, &a2) : -1;
	ok(r == NFS3_OK && a2.fileid == ra.fileid,
	   "GETATTR of the handle LOOKUP .. gave: the root (status %ld)", r);

	r = lookup(fd, root, ".", 1, &h, &a);
	ok(r == NFS3_OK && a.fileid == ra.fileid,
	   "LOOKUP . at the root: OK, the root (status %ld)", r);

	r = lookup(fd, root, "a", 1, &sub, &a);
	ok(r == NFS3_OK && a.type == 2, "LOOKUP a: a directory (status %ld)", r);
	r = lookup(fd, &sub, "..", 2, &h, &a);
	ok(r == NFS3_OK && a.fileid == ra.fileid,
	   "LOOKUP .. in a/: the root (status %ld)", r);
	r = lookup(fd, &sub, "b", 1, &h, &a);
	ok(r == NFS3_OK && a.type == 1, "LOOKUP b in a/: a regular file (status %ld)", r);

	r = lookup(fd, root, "", 0, NULL, NULL);
	ok(r == NFS3ERR_ACCES, "LOOKUP \"\": NFS3ERR_ACCES as Linux (got %ld)", r);

	r = lookup(fd, root, "a/b", 3, NULL, NULL);
	printf("# LOOKUP \"a/b\" (a/b exists as a path) answered %ld\n", r);
	ok(r == NFS3ERR_ACCES || r == NFS3ERR_NOENT,
	   "LOOKUP \"a/b\": ACCES or NOENT, never the file a/b (got %ld)", r);
	r = lookup(fd, root, "a\0b", 3, NULL, NULL);
	ok(r == NFS3ERR_ACCES || r == NFS3ERR_NOENT || r == -4,
	   "LOOKUP of a name with a NUL byte: refused (got %ld)", r);

	memset(name, 'n', sizeof(name));
	r = lookup(fd, root, name, 255, NULL, NULL);
	ok(r == NFS3ERR_NOENT, "LOOKUP of a missing 255-byte name: NOENT (got %ld)", r);
	r = lookup(fd, root, name, 256, NULL, NULL);
	ok(r == NFS3ERR_NAMETOOLONG, "LOOKUP of a 256-byte name: NFS3ERR_NAMETOOLONG (got %ld)",
	   r);
	r = lookup(fd, root, "no-such-name", 12, NULL, NULL);
	ok(r == NFS3ERR_NOENT, "LOOKUP of a missing name: NOENT (got %ld)", r);
}

static void test_mount(int fd, const struct raw_fh *root)
{
	struct raw_fh h;
	char p[4200];
	long r;
	int n = 0, found;

	snprintf(p, sizeof(p), "%s/", exp_path);
	r = raw_mnt(fd, p, &h);
	ok(r == MNT3_OK, "MNT of the export with a trailing slash: OK (got %ld)", r);
	ok(r == MNT3_OK && h.len == root->len && !memcmp(h.d, root->d, h.len),
	   "... and the same handle as without it");
	r = raw_mnt(fd, "/nonexistent-nfsx-export", NULL);
	ok(r == MNT3ERR_NOENT, "MNT of a path that is not exported: MNT3ERR_NOENT (got %ld)",
	   r);
	snprintf(p, sizeof(p), "%s/a", exp_path);
	r = raw_mnt(fd, p, NULL);
	printf("# MNT of a subdirectory of the export (%s) answered %ld "
	       "(Linux's rpc.mountd: OK)\n", p, r);
	if (r == MNT3_OK)
		umnt(fd, p);
	r = raw_mnt(fd, base, NULL);
	ok(r == MNT3ERR_NOENT, "MNT of the parent of the exports: MNT3ERR_NOENT (got %ld)", r);

	/* DUMP / UMNT */
	found = dump_has(fd, "127.0.0.1", exp_path, &n);
	ok(found == 1, "DUMP after MNT lists 127.0.0.1 %s (%d entries)", exp_path, n);
	ok(umnt(fd, exp_path), "UMNT: an empty SUCCESS reply");
	found = dump_has(fd, "127.0.0.1", exp_path, &n);
	ok(found == 0, "DUMP after UMNT does not list it (%d entries)", n);
	r = raw_mnt(fd, exp_path, NULL);
	ok(r == MNT3_OK && dump_has(fd, "127.0.0.1", exp_path, NULL) == 1,
	   "MNT again: listed again");
	{
		struct raw_res s = { 0 };

		rpc_buf_init(&s.store);
		raw_call(fd, PROG_MOUNT, MNTPROC_UMNTALL, NULL, &s);
		ok(raw_accepted(&s) && s.r.body_len == 0, "UMNTALL: an empty SUCCESS reply");
		rpc_buf_free(&s.store);
	}
	found = dump_has(fd, "127.0.0.1", exp_path, &n);
	ok(found == 0 && n == 0, "DUMP after UMNTALL: empty (%d entries)", n);
}

static void test_export(int fd)
{
	struct raw_res s = { 0 };
	struct rpc_cur c;
	bool exp_seen = false, sec_seen = false, exp_groups = false, sec_groups = false;
	int nexp = 0;

	rpc_buf_init(&s.store);
	raw_call(fd, PROG_MOUNT, MNTPROC_EXPORT, NULL, &s);
	c = raw_cur(&s);
	while (rpc_cur_u32(&c) && !c.bad) {
		uint32_t dl, gl;
		const uint8_t *d = rpc_cur_opaque(&c, &dl, 1024);
		char groups[512] = "";
		size_t gn = 0;

		while (rpc_cur_u32(&c) && !c.bad) {
			const uint8_t *g = rpc_cur_opaque(&c, &gl, 255);

			if (c.bad)
				break;
			gn += (size_t)snprintf(groups + gn, sizeof(groups) - gn, "%s%.*s",
					       gn ? "," : "", (int)gl, (const char *)g);
			if (gn >= sizeof(groups))
				gn = sizeof(groups) - 1;
		}
		if (c.bad)
			break;
		nexp++;
		printf("# EXPORT: %.*s  [%s]\n", (int)dl, (const char *)d, groups);
		if (dl == strlen(exp_path) && !memcmp(d, exp_path, dl)) {
			exp_seen = true;
			exp_groups = !strcmp(groups, "127.0.0.1,10.0.0.0/8");
		}
		if (dl == strlen(sec_path) && !memcmp(d, sec_path, dl)) {
			sec_seen = true;
			sec_groups = !strcmp(groups, "*");
		}
	}
	ok(!c.bad && c.n == 0, "EXPORT: a well-formed exports list");
	if (c.bad || c.n)
		raw_diag(&s);
	ok(nexp == 2, "EXPORT: two exports (got %d)", nexp);
	ok(exp_seen && exp_groups, "EXPORT: %s with groups 127.0.0.1, 10.0.0.0/8", exp_path);
	ok(sec_seen && sec_groups, "EXPORT: %s with group *", sec_path);
	rpc_buf_free(&s.store);
}

static void test_secure(int fd)
{
	struct raw_fh h = { 0 };
	long r;
	int pfd;

	r = raw_mnt(fd, sec_path, NULL);
	printf("# unprivileged source port %u\n", rpc_local_port(fd));
	ok(r == MNT3ERR_ACCES,
	   "MNT of a secure export from an unprivileged port: MNT3ERR_ACCES (got %ld)", r);

	pfd = rpc_connect_privileged(port, 5000);
	if (pfd < 0) {
		int e = errno;

		printf("# cannot bind a port below 1024: %s\n", strerror(e));
		for (int i = 0; i < 4; i++)
			printf("ok %d - privileged-port check # SKIP not root\n", ++tap__n);
		return;
	}
	printf("# privileged source port %u\n", rpc_local_port(pfd));
	r = raw_mnt(pfd, sec_path, &h);
	ok(r == MNT3_OK, "MNT of a secure export from port < 1024: OK (got %ld)", r);
	r = getattr(pfd, h.d, h.len, NULL);
	ok(r == NFS3_OK, "GETATTR with its handle from port < 1024: OK (got %ld)", r);
	r = getattr(fd, h.d, h.len, NULL);
	ok(r == NFS3ERR_PERM,
	   "the same GETATTR from an unprivileged port: NFS3ERR_PERM (got %ld)", r);
	umnt(pfd, sec_path);
	close(pfd);
	/* A fresh unprivileged connection too (not only the old one). */
	pfd = conn();
	r = getattr(pfd, h.d, h.len, NULL);
	ok(r == NFS3ERR_PERM, "... and from a new unprivileged connection: PERM (got %ld)",
	   r);
	close(pfd);
}

/* READDIR: status; fills names (appending) and cookie/eof. */
struct dirpage {
	long status;
	bool eof;
	uint64_t cookie;
	int nent;
	size_t body_len;
};

static void readdir_page(int fd, const struct raw_fh *dir, uint64_t cookie, uint32_t count,
			 struct dirpage *pg, void (*each)(const char *, uint32_t, void *),
			 void *arg)
{
	struct rpc_buf b;
	struct raw_res s = { 0 };
	struct rpc_cur c;
	uint8_t verf[8] = { 0 };

	memset(pg, 0, sizeof(*pg));
	rpc_buf_init(&b);
	rpc_buf_init(&s.store);
	put_fh(&b, dir->d, dir->len);
	rpc_buf_put_u32(&b, (uint32_t)(cookie >> 32));
	rpc_buf_put_u32(&b, (uint32_t)cookie);
	rpc_buf_put_bytes(&b, verf, 8);
	rpc_buf_put_u32(&b, count);
	raw_call(fd, PROG_NFS, NFSPROC_READDIR, &b, &s);
	c = raw_cur(&s);
	pg->body_len = s.r.body_len;
	pg->status = rpc_cur_u32(&c);
	post_op(&c, NULL);
	if (!c.bad && pg->status == NFS3_OK) {
		rpc_cur_skip(&c, 8);
		while (rpc_cur_u32(&c) && !c.bad) {
			uint32_t nl;
			const uint8_t *nm;

			rpc_cur_u64(&c);
			nm = rpc_cur_opaque(&c, &nl, 255);
			pg->cookie = rpc_cur_u64(&c);
			if (c.bad)
				break;
			pg->nent++;
			if (each) {
				char name[256];

				memcpy(name, nm, nl);
				name[nl] = 0;
				each(name, nl, arg);
			}
		}
		pg->eof = rpc_cur_u32(&c) != 0;
	}
	if (c.bad || c.n) {
		raw_diag(&s);
		pg->status = -1;
	}
	rpc_buf_free(&b);
	rpc_buf_free(&s.store);
}

struct seen {
	unsigned char big[BIG_N];
	int dot, dotdot, other, dup;
};

static void count_name(const char *name, uint32_t nl, void *arg)
{
	struct seen *s = arg;
	int i;
	char tail;

	(void)nl;
	if (!strcmp(name, ".")) {
		s->dot++;
		return;
	}
	if (!strcmp(name, "..")) {
		s->dotdot++;
		return;
	}
	if (sscanf(name, "entry-%d%c", &i, &tail) >= 1 && i >= 0 && i < BIG_N) {
		if (s->big[i]++)
			s->dup++;
		return;
	}
	s->other++;
	printf("#   unexpected name '%s'\n", name);
}

static void test_readdir(int fd, const struct raw_fh *root)
{
	struct dirpage pg;
	struct raw_fh big;
	struct seen *s = calloc(1, sizeof(*s));
	uint64_t cookie = 0;
	int pages = 0, missing = 0, i;
	bool sizes_ok = true, progress = true;
	long r;

	readdir_page(fd, root, 0, 0, &pg, NULL, NULL);
	ok(pg.status == NFS3ERR_TOOSMALL, "READDIR count 0: NFS3ERR_TOOSMALL (got %ld)",
	   pg.status);
	readdir_page(fd, root, 0, 100, &pg, NULL, NULL);
	ok(pg.status == NFS3ERR_TOOSMALL,
	   "READDIR count 100 (less than one entry with the header): TOOSMALL (got %ld)",
	   pg.status);
	readdir_page(fd, root, 0, 8192, &pg, NULL, NULL);
	ok(pg.status == NFS3_OK && pg.eof && pg.nent == 5,
	   "READDIR of the root, count 8192: OK, eof, 5 entries (. .. f a big) "
	   "(status %ld, eof %d, %d entries)", pg.status, pg.eof, pg.nent);

	r = lookup(fd, root, "big", 3, &big, NULL);
	ok(r == NFS3_OK, "LOOKUP big: OK (got %ld)", r);
	do {
		readdir_page(fd, &big, cookie, 1024, &pg, count_name, s);
		pages++;
		if (pg.status != NFS3_OK)
			break;
		if (pg.body_len > 1024) {
			sizes_ok = false;
			printf("#   page %d: %zu bytes of results for count 1024\n", pages,
			       pg.body_len);
		}
		if (pg.nent == 0 && !pg.eof) {
			progress = false;
			break;
		}
		cookie = pg.cookie;
	} while (!pg.eof && pages < 10000);
	ok(pg.status == NFS3_OK && pg.eof,
	   "READDIR paging with count 1024 over %d entries ends with eof (%d pages, status %ld)",
	   BIG_N, pages, pg.status);
	ok(progress, "every page but the last holds at least one entry");
	ok(sizes_ok, "no result larger than count (1024 bytes)");
	ok(pages > 40, "the listing really took many pages (%d)", pages);
	for (i = 0; i < BIG_N; i++)
		missing += !s->big[i];
	ok(missing == 0 && s->dup == 0 && s->other == 0,
	   "each of the %d names exactly once (%d missing, %d duplicates, %d unexpected)",
	   BIG_N, missing, s->dup, s->other);
	ok(s->dot == 1 && s->dotdot == 1, ". and .. once each (%d, %d)", s->dot, s->dotdot);
	free(s);
}

/* READ: status, count, eof. */
static void test_read(int fd, const struct raw_fh *root)
{
	static const char content[] = "hello nfsx\n";
	struct raw_fh f;
	struct rpc_buf b;
	struct raw_res s = { 0 };
	struct rpc_cur c;
	long r;
	static const struct {
		uint64_t off;
		uint32_t count;
		uint32_t want;
		bool eof;
		const char *what;
	} cases[] = {
		{ 0, 4096, 11, true, "whole file" },
		{ 0, 5, 5, false, "first 5 bytes" },
		{ 6, 5, 5, true, "last 5 bytes" },
		{ 11, 100, 0, true, "at EOF" },
		{ 1000, 100, 0, true, "past EOF" },
		{ 1ull << 40, 100, 0, true, "at 1 TiB" },
		{ ~0ull, 100, 0, true, "at 2^64-1" },
	};

	r = lookup(fd, root, "f", 1, &f, NULL);
	ok(r == NFS3_OK, "LOOKUP f: OK (got %ld)", r);
	rpc_buf_init(&b);
	rpc_buf_init(&s.store);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t st, cnt, eof, dl;
		const uint8_t *d;

		rpc_buf_reset(&b);
		put_fh(&b, f.d, f.len);
		rpc_buf_put_u32(&b, (uint32_t)(cases[i].off >> 32));
		rpc_buf_put_u32(&b, (uint32_t)cases[i].off);
		rpc_buf_put_u32(&b, cases[i].count);
		raw_call(fd, PROG_NFS, NFSPROC_READ, &b, &s);
		c = raw_cur(&s);
		st = rpc_cur_u32(&c);
		post_op(&c, NULL);
		cnt = rpc_cur_u32(&c);
		eof = rpc_cur_u32(&c);
		d = rpc_cur_opaque(&c, &dl, 1u << 20);
		ok(!c.bad && c.n == 0 && st == NFS3_OK && cnt == cases[i].want &&
		   dl == cnt && (bool)eof == cases[i].eof &&
		   (!cnt || !memcmp(d, content + cases[i].off, cnt)),
		   "READ %s (offset %llu count %u): OK, %u bytes, eof %d (got status %u, %u bytes, eof %u)",
		   cases[i].what, (unsigned long long)cases[i].off, cases[i].count,
		   cases[i].want, cases[i].eof, st, cnt, eof);
		if (c.bad)
			raw_diag(&s);
	}
	/* READ of a directory: NFS3ERR_ISDIR with the directory's attributes. */
	{
		uint32_t st;
		struct attr a = { 0 };
		bool attrs;

		rpc_buf_reset(&b);
		put_fh(&b, root->d, root->len);
		rpc_buf_put_u32(&b, 0);
		rpc_buf_put_u32(&b, 0);
		rpc_buf_put_u32(&b, 4096);
		raw_call(fd, PROG_NFS, NFSPROC_READ, &b, &s);
		c = raw_cur(&s);
		st = rpc_cur_u32(&c);
		attrs = post_op(&c, &a);
		ok(!c.bad && c.n == 0 && st == NFS3ERR_ISDIR && (!attrs || a.type == 2),
		   "READ of a directory: NFS3ERR_ISDIR and nothing but post_op_attr "
		   "(status %u, %zu bytes left)", st, c.n);
		if (c.bad)
			raw_diag(&s);
	}
	rpc_buf_free(&b);
	rpc_buf_free(&s.store);
}

static void test_unavail(int fd, const struct raw_fh *root)
{
	static const struct {
		uint32_t proc;
		const char *name;
	} procs[] = {
		/* Every NFSv3 procedure (0-21) is implemented now: only a
		 * number past the table is left. */
		{ 22, "(past the table)" },
	};
	struct rpc_buf b;
	struct raw_res s = { 0 };

	rpc_buf_init(&b);
	rpc_buf_init(&s.store);
	/* A plausible argument prefix: the root handle and a name. */
	put_fh(&b, root->d, root->len);
	rpc_buf_put_string(&b, "nfsx-new");
	for (size_t i = 0; i < sizeof(procs) / sizeof(procs[0]); i++) {
		raw_call(fd, PROG_NFS, procs[i].proc, &b, &s);
		ok(s.rc == 1 && s.r.reply_stat == RPC_MSG_ACCEPTED &&
		   s.r.accept_stat == RPC_PROC_UNAVAIL,
		   "NFS %s (%u): PROC_UNAVAIL", procs[i].name, procs[i].proc);
		if (!(s.rc == 1 && s.r.accept_stat == RPC_PROC_UNAVAIL))
			raw_diag(&s);
	}
	{
		char p[4200];
		struct stat st;

		snprintf(p, sizeof(p), "%s/nfsx-new", exp_path);
		ok(lstat(p, &st) < 0 && errno == ENOENT, "nothing was created");
	}
	rpc_buf_free(&b);
	rpc_buf_free(&s.store);
}

int main(int argc, char **argv)
{
	struct raw_fh root = { 0 };
	long r;
	int fd;

	raw_timeout_ms = TMO;
	if (argc < 3) {
		fprintf(stderr, "usage: test_nfs3_wire PORT BASE\n");
		return 2;
	}
	port = (uint16_t)atoi(argv[1]);
	base = argv[2];
	snprintf(exp_path, sizeof(exp_path), "%s/exp", base);
	snprintf(sec_path, sizeof(sec_path), "%s/sec", base);

	fd = conn();
	if (fd < 0) {
		printf("Bail out! cannot connect\n");
		return 1;
	}
	r = raw_mnt(fd, exp_path, &root);
	ok(r == MNT3_OK, "MNT %s: MNT3_OK (got %ld)", exp_path, r);
	ok(root.len >= 8 && root.len <= 64, "MNT: a handle of 8..64 bytes (%u)", root.len);
	if (r != MNT3_OK) {
		printf("Bail out! no root handle\n");
		return 1;
	}
	test_handles(fd, &root);
	test_lookup(fd, &root);
	test_read(fd, &root);
	test_readdir(fd, &root);
	test_export(fd);
	test_mount(fd, &root);
	test_secure(fd);
	test_unavail(fd, &root);
	close(fd);
	return tap_done();
}
