// SPDX-License-Identifier: MIT
/*
 * TAP integration test of nfsxd's WRITE, COMMIT, SETATTR and CREATE,
 * with libnfs (its synchronous API) and with the raw RPC client where the
 * reply itself matters (stable_how, verifiers, status codes, the
 * duplicate request cache):
 *   - writes read back byte for byte over NFS and from the local file:
 *     small, 5 MiB random in 1 MiB and in odd chunks, beyond 4 GiB;
 *     UNSTABLE + COMMIT, O_SYNC (FILE_SYNC), committed as asked on the wire;
 *   - SETATTR: truncation up and down, chmod, chown, utimes (client and
 *     server time) as the local lstat(2) sees them, the ctime guard, a
 *     non-owner chmod (PERM), a write by uid 1000 to a root 0644 file
 *     (ACCES), the owner writing its own 0444 file (owner override);
 *   - CREATE: EXCLUSIVE twice with one verifier (both OK, one file), with
 *     another verifier (EXIST); GUARDED on an existing name (EXIST); a
 *     retransmitted GUARDED (same xid, same connection) answered twice
 *     identically from the duplicate request cache;
 *   - NFS3ERR_ROFS on a ro export for all four procedures.
 * Durability (phases): "main" ends by writing UNSTABLE + COMMIT to
 * BASE/rw/durable and saving the write verifier in BASE/verf; the wrapper
 * kills nfsxd with SIGKILL and restarts it with the same state directory;
 * "after" reads the file back over NFS and checks that a WRITE reply
 * carries another verifier.
 *
 * Usage: test_nfs3_write PORT BASE main|after FIRST_TAP_NUMBER. Only
 * "after" prints the TAP plan; "main" writes its count to BASE/tapcount.
 * run-nfs3-write.sh builds BASE:
 *   rw/  (--export rw:rw,no_root_squash,insecure) root644 (root 0644),
 *        exists (root 0644), u1000/ (dir owned by 1000)
 *   ro/  (--export ro:ro,no_root_squash,insecure) public644 (root 0644)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <nfsc/libnfs.h>

#include "rpc_client.h"
#include "tap.h"

#define GIB (1024ull * 1024 * 1024)
#define MIB (1024ull * 1024)
#define TMO 10000

#define MNTPROC_MNT 1
#define NFSPROC_SETATTR 2
#define NFSPROC_LOOKUP 3
#define NFSPROC_WRITE 7
#define NFSPROC_CREATE 8
#define NFSPROC_COMMIT 21

#define NFS3_OK 0
#define NFS3ERR_PERM 1
#define NFS3ERR_ACCES 13
#define NFS3ERR_EXIST 17
#define NFS3ERR_ROFS 30
#define NFS3ERR_NOT_SYNC 10002

#define UNCHECKED 0
#define GUARDED 1
#define EXCLUSIVE 2
#define UNSTABLE 0
#define DATA_SYNC 1
#define FILE_SYNC 2

static unsigned int port;
static const char *base;

/* ---- libnfs -------------------------------------------------------------- */

static struct nfs_context *mount_as(const char *exp, int uid, int gid)
{
	struct nfs_context *nfs = nfs_init_context();
	struct nfs_url *u;
	char url[8192];
	int r;

	if (!nfs)
		return NULL;
	snprintf(url, sizeof(url), "nfs://127.0.0.1%s/%s?nfsport=%u&mountport=%u&version=3",
		 base, exp, port, port);
	u = nfs_parse_url_dir(nfs, url);
	if (!u) {
		printf("#   bad url %s: %s\n", url, nfs_get_error(nfs));
		nfs_destroy_context(nfs);
		return NULL;
	}
	if (uid >= 0) {
		nfs_set_uid(nfs, uid);
		nfs_set_gid(nfs, gid);
	}
	nfs_set_timeout(nfs, 20000);
	nfs_set_dircache(nfs, 0);
	r = nfs_mount(nfs, u->server, u->path);
	nfs_destroy_url(u);
	if (r < 0) {
		printf("#   mount %s/%s: %d %s\n", base, exp, r, nfs_get_error(nfs));
		nfs_destroy_context(nfs);
		return NULL;
	}
	return nfs;
}

static void lpath(char *out, size_t len, const char *rel)
{
	snprintf(out, len, "%s/rw/%s", base, rel);
}

/* Deterministic "random" bytes (xorshift), so phases agree without files. */
static void fill(uint8_t *p, size_t n, uint64_t seed)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (uint8_t)(x >> 24);
	}
}

/* Write @n bytes at @off in chunks of @chunk; true when every call wrote all. */
static bool put(struct nfs_context *nfs, struct nfsfh *fh, uint64_t off,
		const uint8_t *p, size_t n, size_t chunk)
{
	for (size_t done = 0; done < n;) {
		size_t c = n - done < chunk ? n - done : chunk;
		int r = nfs_pwrite(nfs, fh, off + done, c, p + done);

		if (r != (int)c) {
			printf("#   pwrite at %llu of %zu: %d %s\n",
			       (unsigned long long)(off + done), c, r, nfs_get_error(nfs));
			return false;
		}
		done += c;
	}
	return true;
}

/* Read back @n bytes at @off over NFS and compare. */
static bool nfs_same(struct nfs_context *nfs, struct nfsfh *fh, uint64_t off,
		     const uint8_t *want, size_t n)
{
	uint8_t *b = malloc(n ? n : 1);
	size_t got = 0;
	bool same;

	while (b && got < n) {
		size_t c = n - got < MIB ? n - got : MIB;
		int r = nfs_pread(nfs, fh, off + got, c, b + got);

		if (r <= 0)
			break;
		got += (size_t)r;
	}
	same = b && got == n && memcmp(b, want, n) == 0;
	free(b);
	return same;
}

/* Compare the local file's bytes at @off. */
static bool local_same(const char *rel, uint64_t off, const uint8_t *want, size_t n)
{
	char p[4200];
	uint8_t *b = malloc(n ? n : 1);
	ssize_t r = -1;
	int fd;

	lpath(p, sizeof(p), rel);
	fd = open(p, O_RDONLY);
	if (fd >= 0 && b)
		r = pread(fd, b, n, (off_t)off);
	if (fd >= 0)
		close(fd);
	r = r == (ssize_t)n && memcmp(b, want, n) == 0;
	free(b);
	return r;
}

static bool lst(const char *rel, struct stat *st)
{
	char p[4200];

	lpath(p, sizeof(p), rel);
	return lstat(p, st) == 0;
}

static void test_writes(struct nfs_context *nfs)
{
	static const char small[] = "hello, nfsx: written over NFS\n";
	const size_t big = 5 * MIB;
	uint8_t *data = malloc(big);
	struct nfsfh *fh = NULL;
	struct stat st;
	int r;

	if (!data)
		return;
	r = nfs_creat(nfs, "/small", 0644, &fh);
	ok(r == 0, "CREATE small (%d %s)", r, r ? nfs_get_error(nfs) : "");
	if (r == 0) {
		ok(put(nfs, fh, 0, (const uint8_t *)small, sizeof(small) - 1, 4096),
		   "WRITE small: all bytes accepted");
		ok(nfs_fsync(nfs, fh) == 0, "COMMIT small");
		ok(nfs_same(nfs, fh, 0, (const uint8_t *)small, sizeof(small) - 1),
		   "small: read back over NFS byte for byte");
		nfs_close(nfs, fh);
		ok(local_same("small", 0, (const uint8_t *)small, sizeof(small) - 1) &&
		   lst("small", &st) && st.st_size == (off_t)sizeof(small) - 1 &&
		   (st.st_mode & 07777) == 0644 && S_ISREG(st.st_mode),
		   "small: the local file has the bytes, size and mode 0644");
	}

	fill(data, big, 1);
	r = nfs_creat(nfs, "/rand5m", 0600, &fh);
	ok(r == 0, "CREATE rand5m");
	if (r == 0) {
		ok(put(nfs, fh, 0, data, big, MIB), "5 MiB written in 1 MiB chunks");
		ok(nfs_fsync(nfs, fh) == 0, "COMMIT rand5m");
		ok(nfs_same(nfs, fh, 0, data, big), "rand5m: read back byte for byte");
		nfs_close(nfs, fh);
		ok(local_same("rand5m", 0, data, big) && lst("rand5m", &st) &&
		   st.st_size == (off_t)big, "rand5m: local file identical, 5 MiB");
	}

	fill(data, big, 2);
	r = nfs_creat(nfs, "/odd", 0644, &fh);
	ok(r == 0, "CREATE odd");
	if (r == 0) {
		bool good = put(nfs, fh, 0, data, 3 * MIB, 131071) &&
			    put(nfs, fh, 3 * MIB, data + 3 * MIB, MIB, 4097) &&
			    put(nfs, fh, 4 * MIB, data + 4 * MIB, 1000, 1) &&
			    put(nfs, fh, 4 * MIB + 1000, data + 4 * MIB + 1000,
				big - 4 * MIB - 1000, 65537);

		ok(good, "5 MiB written in chunks of 131071, 4097, 1 and 65537 bytes");
		ok(nfs_fsync(nfs, fh) == 0, "COMMIT odd");
		ok(nfs_same(nfs, fh, 0, data, big), "odd: read back byte for byte");
		nfs_close(nfs, fh);
		ok(local_same("odd", 0, data, big), "odd: local file identical");
	}

	fill(data, 200000, 3);
	r = nfs_creat(nfs, "/beyond4g", 0644, &fh);
	ok(r == 0, "CREATE beyond4g");
	if (r == 0) {
		uint64_t off = 4 * GIB + 123;

		ok(put(nfs, fh, off, data, 200000, 65536) &&
		   put(nfs, fh, 5 * GIB - 7, data, 7, 7),
		   "writes at 4 GiB + 123 and at 5 GiB - 7");
		ok(nfs_fsync(nfs, fh) == 0, "COMMIT beyond4g");
		ok(nfs_same(nfs, fh, off, data, 200000) &&
		   nfs_same(nfs, fh, 5 * GIB - 7, data, 7),
		   "beyond4g: both ranges read back over NFS");
		nfs_close(nfs, fh);
		ok(local_same("beyond4g", off, data, 200000) &&
		   local_same("beyond4g", 5 * GIB - 7, data, 7) && lst("beyond4g", &st) &&
		   st.st_size == (off_t)(5 * GIB) && st.st_blocks * 512 < 16 * (off_t)MIB,
		   "beyond4g: local file has both ranges, size 5 GiB, still sparse");
	}

	/* O_SYNC: libnfs sends FILE_SYNC writes (committed is checked on the wire). */
	fill(data, 300000, 4);
	r = nfs_open(nfs, "/small", O_RDWR | O_SYNC, &fh);
	ok(r == 0, "open small O_SYNC");
	if (r == 0) {
		ok(put(nfs, fh, 10, data, 300000, 100000), "FILE_SYNC writes at offset 10");
		nfs_close(nfs, fh);
		ok(local_same("small", 0, (const uint8_t *)small, 10) &&
		   local_same("small", 10, data, 300000),
		   "small after FILE_SYNC writes: head kept, new data in place");
	}
	free(data);
}

static void test_setattr(struct nfs_context *nfs)
{
	uint8_t head[64], zero[4096] = { 0 };
	struct nfsfh *fh;
	struct timeval tv[2];
	struct stat st;
	time_t t0;
	bool good;
	int r;

	fill(head, sizeof(head), 5);
	r = nfs_creat(nfs, "/trunc", 0644, &fh);
	ok(r == 0, "CREATE trunc");
	if (r != 0)
		return;
	put(nfs, fh, 0, head, sizeof(head), 64);
	r = nfs_ftruncate(nfs, fh, 3 * MIB + 5);
	ok(r == 0 && lst("trunc", &st) && st.st_size == (off_t)(3 * MIB + 5) &&
	   local_same("trunc", 0, head, sizeof(head)) &&
	   local_same("trunc", 3 * MIB + 5 - sizeof(zero), zero, sizeof(zero)),
	   "SETATTR size up to 3 MiB + 5: data kept, zeros after (%d)", r);
	r = nfs_ftruncate(nfs, fh, 10);
	ok(r == 0 && lst("trunc", &st) && st.st_size == 10 && local_same("trunc", 0, head, 10),
	   "SETATTR size down to 10: first 10 bytes kept (%d)", r);
	r = nfs_ftruncate(nfs, fh, 0);
	ok(r == 0 && lst("trunc", &st) && st.st_size == 0, "SETATTR size 0");
	nfs_close(nfs, fh);

	r = nfs_chmod(nfs, "/trunc", 0640);
	good = r == 0 && lst("trunc", &st) && (st.st_mode & 07777) == 0640;
	ok(good,
	   "SETATTR mode 0640 (local %o, %d)", st.st_mode & 07777, r);
	r = nfs_chmod(nfs, "/trunc", 04711);
	good = r == 0 && lst("trunc", &st) && (st.st_mode & 07777) == 04711;
	ok(good,
	   "SETATTR mode 04711 (set-uid kept: root asked) (local %o)", st.st_mode & 07777);
	r = nfs_chown(nfs, "/trunc", 1000, 1001);
	good = r == 0 && lst("trunc", &st) && st.st_uid == 1000 && st.st_gid == 1001;
	ok(good,
	   "SETATTR uid 1000 gid 1001 (local %u:%u, %d)", st.st_uid, st.st_gid, r);
	tv[0].tv_sec = 1000000000;
	tv[0].tv_usec = 250000;
	tv[1].tv_sec = 1234567890;
	tv[1].tv_usec = 123456;
	r = nfs_utimes(nfs, "/trunc", tv);
	good = r == 0 && lst("trunc", &st) && st.st_atim.tv_sec == 1000000000 &&
	       st.st_atim.tv_nsec == 250000000 && st.st_mtim.tv_sec == 1234567890 &&
	       st.st_mtim.tv_nsec == 123456000;
	ok(good,
	   "SETATTR atime/mtime to client times (local %lld.%09ld / %lld.%09ld)",
	   (long long)st.st_atim.tv_sec, st.st_atim.tv_nsec,
	   (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	t0 = time(NULL);
	r = nfs_utimes(nfs, "/trunc", NULL);
	good = r == 0 && lst("trunc", &st) && st.st_mtim.tv_sec >= t0 - 2 &&
	       st.st_mtim.tv_sec <= t0 + 2 && st.st_atim.tv_sec >= t0 - 2;
	ok(good,
	   "SETATTR times to server time (mtime %lld, now %lld)",
	   (long long)st.st_mtim.tv_sec, (long long)t0);
}

/* As uid 1000: a chmod of a root file is PERM; opening a root 0644 file to write fails. */
static void test_identity(void)
{
	struct nfs_context *n = mount_as("rw", 1000, 1000);
	struct nfsfh *fh = NULL;
	struct stat st;
	int r;

	ok(n != NULL, "mount rw as uid 1000");
	if (!n)
		return;
	r = nfs_chmod(n, "/root644", 0666);
	ok(r == -EPERM && lst("root644", &st) && (st.st_mode & 07777) == 0644,
	   "chmod of a root file by uid 1000: EPERM, mode unchanged (%d %s)", r,
	   r ? nfs_get_error(n) : "");
	r = nfs_open(n, "/root644", O_WRONLY, &fh);
	if (r == 0) {
		/* libnfs may not check ACCESS at open; then the WRITE must fail. */
		r = nfs_pwrite(n, fh, 0, 5, "XXXXX");
		nfs_close(n, fh);
	}
	ok(r == -EACCES && local_same("root644", 0, (const uint8_t *)"root\n", 5),
	   "write by uid 1000 to a root 0644 file: EACCES, file unchanged (%d)", r);
	nfs_umount(n);
	nfs_destroy_context(n);
}

/* ---- raw wire ------------------------------------------------------------ */

struct fh {
	uint32_t len;
	uint8_t d[64];
};

struct res {
	int rc;
	struct rpc_reply r;
	struct rpc_buf store;
};

static void auth(struct rpc_buf *cred, struct rpc_call *c, uint32_t uid)
{
	rpc_authsys_encode(cred, 0, "nfsx-test", uid, uid, NULL, 0);
	c->cred_flavor = AUTH_SYS;
	c->cred_body = cred->data;
	c->cred_len = cred->len;
}

/* Call as @uid with @xid (0: a fresh one). */
static void call_x(int fd, uint32_t prog, uint32_t proc, const struct rpc_buf *args,
		   uint32_t uid, uint32_t xid, struct res *out)
{
	struct rpc_buf cred;
	struct rpc_call c;

	rpc_buf_init(&cred);
	rpc_call_init(&c, xid ? xid : rpc_next_xid(), prog, 3, proc);
	auth(&cred, &c, uid);
	c.args = args->data;
	c.args_len = args->len;
	rpc_buf_reset(&out->store);
	memset(&out->r, 0, sizeof(out->r));
	out->rc = rpc_call_simple(fd, &c, &out->r, &out->store, TMO);
	rpc_buf_free(&cred);
}

static struct rpc_cur cur_of(const struct res *s)
{
	struct rpc_cur c = { s->r.body, s->r.body_len, false };

	if (s->rc != 1 || s->r.reply_stat != RPC_MSG_ACCEPTED ||
	    s->r.accept_stat != RPC_SUCCESS) {
		char b[256];

		printf("#   reply: %s (rc %d)\n",
		       s->rc == 1 ? rpc_reply_str(&s->r, b, sizeof(b)) : "none", s->rc);
		c.bad = true;
		c.n = 0;
	}
	return c;
}

/* fattr3 fields the tests look at. */
struct attr {
	uint32_t mode;
	uint64_t size;
	uint32_t ctime_s, ctime_ns;
};

static bool post_op(struct rpc_cur *c, struct attr *a)
{
	const uint8_t *p;

	if (!rpc_cur_u32(c))
		return false;
	p = c->p;
	rpc_cur_skip(c, 84);
	if (c->bad)
		return false;
	if (a) {
		a->mode = rpc_get_u32(p + 4);
		a->size = (uint64_t)rpc_get_u32(p + 20) << 32 | rpc_get_u32(p + 24);
		a->ctime_s = rpc_get_u32(p + 76);
		a->ctime_ns = rpc_get_u32(p + 80);
	}
	return true;
}

/* wcc_data: true when both sides carried attributes. */
static bool wcc(struct rpc_cur *c, struct attr *after)
{
	bool before = rpc_cur_u32(c) != 0;

	if (before)
		rpc_cur_skip(c, 24);
	return post_op(c, after) && before;
}

static void put_fh(struct rpc_buf *b, const struct fh *f)
{
	rpc_buf_put_opaque(b, f->d, f->len);
}

static long mnt(int fd, const char *rel, struct fh *fh)
{
	char path[4200];
	struct rpc_buf a;
	struct res s = { 0 };
	struct rpc_cur c;
	long st;

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	rpc_buf_init(&a);
	rpc_buf_init(&s.store);
	rpc_buf_put_string(&a, path);
	call_x(fd, PROG_MOUNT, MNTPROC_MNT, &a, 0, 0, &s);
	c = cur_of(&s);
	st = rpc_cur_u32(&c);
	if (!c.bad && st == 0) {
		uint32_t l = rpc_cur_u32(&c);

		if (l <= 64 && c.n >= l) {
			fh->len = l;
			memcpy(fh->d, c.p, l);
		} else {
			c.bad = true;
		}
	}
	rpc_buf_free(&a);
	rpc_buf_free(&s.store);
	return c.bad ? -1 : st;
}

static long lookup(int fd, const struct fh *dir, const char *name, struct fh *out)
{
	struct rpc_buf a;
	struct res s = { 0 };
	struct rpc_cur c;
	long st;

	rpc_buf_init(&a);
	rpc_buf_init(&s.store);
	put_fh(&a, dir);
	rpc_buf_put_string(&a, name);
	call_x(fd, PROG_NFS, NFSPROC_LOOKUP, &a, 0, 0, &s);
	c = cur_of(&s);
	st = rpc_cur_u32(&c);
	if (!c.bad && st == NFS3_OK) {
		uint32_t l = rpc_cur_u32(&c);

		if (l <= 64 && c.n >= l) {
			out->len = l;
			memcpy(out->d, c.p, l);
		} else {
			c.bad = true;
		}
	}
	rpc_buf_free(&a);
	rpc_buf_free(&s.store);
	return c.bad ? -1 : st;
}

/* sattr3 with only a mode (or nothing when mode < 0). */
static void put_sattr_mode(struct rpc_buf *b, long mode)
{
	rpc_buf_put_u32(b, mode >= 0);
	if (mode >= 0)
		rpc_buf_put_u32(b, (uint32_t)mode);
	for (int i = 0; i < 6 - 1; i++)
		rpc_buf_put_u32(b, 0); /* uid gid size: false; atime mtime: DONT_CHANGE */
}

/* CREATE args: UNCHECKED/GUARDED with a mode, or EXCLUSIVE with @verf. */
static void create_args(struct rpc_buf *a, const struct fh *dir, const char *name,
			uint32_t how, long mode, const char *verf)
{
	put_fh(a, dir);
	rpc_buf_put_string(a, name);
	rpc_buf_put_u32(a, how);
	if (how == EXCLUSIVE)
		rpc_buf_put_bytes(a, verf, 8);
	else
		put_sattr_mode(a, mode);
}

/* CREATE: status (-1 bad reply); the new handle in *out on OK. */
static long create(int fd, const struct fh *dir, const char *name, uint32_t how,
		   long mode, const char *verf, uint32_t uid, struct fh *out)
{
	struct rpc_buf a;
	struct res s = { 0 };
	struct rpc_cur c;
	long st;

	rpc_buf_init(&a);
	rpc_buf_init(&s.store);
	create_args(&a, dir, name, how, mode, verf);
	call_x(fd, PROG_NFS, NFSPROC_CREATE, &a, uid, 0, &s);
	c = cur_of(&s);
	st = rpc_cur_u32(&c);
	if (!c.bad && st == NFS3_OK) {
		if (rpc_cur_u32(&c)) {
			uint32_t l = rpc_cur_u32(&c);

			if (l <= 64 && c.n >= ((l + 3) & ~3u)) {
				if (out) {
					out->len = l;
					memcpy(out->d, c.p, l);
				}
				rpc_cur_skip(&c, (l + 3) & ~3u);
			} else {
				c.bad = true;
			}
		}
		post_op(&c, NULL);
	}
	if (!c.bad && !wcc(&c, NULL))
		printf("#   CREATE: dir_wcc without attributes\n");
	if (!c.bad && c.n)
		c.bad = true;
	rpc_buf_free(&a);
	rpc_buf_free(&s.store);
	return c.bad ? -1 : st;
}

struct wres {
	long status;
	uint32_t count, committed;
	uint8_t verf[8];
	bool wcc_ok;
};

static void write_raw(int fd, const struct fh *f, uint64_t off, uint32_t stable,
		      const void *data, uint32_t n, uint32_t uid, struct wres *w)
{
	struct rpc_buf a;
	struct res s = { 0 };
	struct rpc_cur c;

	memset(w, 0, sizeof(*w));
	rpc_buf_init(&a);
	rpc_buf_init(&s.store);
	put_fh(&a, f);
	rpc_buf_put_u32(&a, (uint32_t)(off >> 32));
	rpc_buf_put_u32(&a, (uint32_t)off);
	rpc_buf_put_u32(&a, n);
	rpc_buf_put_u32(&a, stable);
	rpc_buf_put_opaque(&a, data, n);
	call_x(fd, PROG_NFS, NFSPROC_WRITE, &a, uid, 0, &s);
	c = cur_of(&s);
	w->status = rpc_cur_u32(&c);
	w->wcc_ok = wcc(&c, NULL);
	if (!c.bad && w->status == NFS3_OK) {
		w->count = rpc_cur_u32(&c);
		w->committed = rpc_cur_u32(&c);
		if (c.n >= 8)
			memcpy(w->verf, c.p, 8);
		rpc_cur_skip(&c, 8);
	}
	if (c.bad || c.n)
		w->status = -1;
	rpc_buf_free(&a);
	rpc_buf_free(&s.store);
}

/* COMMIT: status; the verifier in @verf on OK. */
static long commit_raw(int fd, const struct fh *f, uint8_t verf[8], bool *wcc_ok)
{
	struct rpc_buf a;
	struct res s = { 0 };
	struct rpc_cur c;
	long st;

	rpc_buf_init(&a);
	rpc_buf_init(&s.store);
	put_fh(&a, f);
	rpc_buf_put_u32(&a, 0);
	rpc_buf_put_u32(&a, 0);
	rpc_buf_put_u32(&a, 0);
	call_x(fd, PROG_NFS, NFSPROC_COMMIT, &a, 0, 0, &s);
	c = cur_of(&s);
	st = rpc_cur_u32(&c);
	*wcc_ok = wcc(&c, NULL);
	if (!c.bad && st == NFS3_OK) {
		if (c.n >= 8)
			memcpy(verf, c.p, 8);
		rpc_cur_skip(&c, 8);
	}
	rpc_buf_free(&a);
	rpc_buf_free(&s.store);
	return c.bad || c.n ? -1 : st;
}

/* SETATTR of a mode, with a ctime guard when @guard: status, attrs after. */
static long setattr_raw(int fd, const struct fh *f, long mode, const struct attr *guard,
			uint32_t uid, struct attr *after)
{
	struct rpc_buf a;
	struct res s = { 0 };
	struct rpc_cur c;
	long st;

	rpc_buf_init(&a);
	rpc_buf_init(&s.store);
	put_fh(&a, f);
	put_sattr_mode(&a, mode);
	rpc_buf_put_u32(&a, guard != NULL);
	if (guard) {
		rpc_buf_put_u32(&a, guard->ctime_s);
		rpc_buf_put_u32(&a, guard->ctime_ns);
	}
	call_x(fd, PROG_NFS, NFSPROC_SETATTR, &a, uid, 0, &s);
	c = cur_of(&s);
	st = rpc_cur_u32(&c);
	if (!wcc(&c, after) && !c.bad)
		printf("#   SETATTR: wcc without attributes\n");
	rpc_buf_free(&a);
	rpc_buf_free(&s.store);
	return c.bad || c.n ? -1 : st;
}

static void test_wire(int fd)
{
	struct fh root, ro, pub, f1, f2, f3, own;
	struct attr at, at2;
	struct wres w;
	struct stat st;
	uint8_t verf[8];
	bool wok;
	long r;

	ok(mnt(fd, "rw", &root) == 0 && mnt(fd, "ro", &ro) == 0, "MNT rw and ro");

	/* EXCLUSIVE */
	r = create(fd, &root, "excl", EXCLUSIVE, -1, "VERF-one", 0, &f1);
	ok(r == NFS3_OK, "CREATE EXCLUSIVE excl: OK (%ld)", r);
	r = create(fd, &root, "excl", EXCLUSIVE, -1, "VERF-one", 0, &f2);
	ok(r == NFS3_OK && f1.len == f2.len && memcmp(f1.d, f2.d, f1.len) == 0,
	   "CREATE EXCLUSIVE excl again, same verifier: OK with the same handle (%ld)", r);
	r = create(fd, &root, "excl", EXCLUSIVE, -1, "VERF-two", 0, NULL);
	ok(r == NFS3ERR_EXIST, "CREATE EXCLUSIVE excl, another verifier: EXIST (%ld)", r);
	r = setattr_raw(fd, &f1, 0640, NULL, 0, &at);
	ok(r == NFS3_OK && (at.mode & 07777) == 0640 && lst("excl", &st) &&
	   (st.st_mode & 07777) == 0640 && S_ISREG(st.st_mode),
	   "SETATTR after EXCLUSIVE: mode 0640 in the reply and on disk (%ld)", r);

	/* GUARDED, UNCHECKED */
	r = create(fd, &root, "exists", GUARDED, 0644, NULL, 0, NULL);
	ok(r == NFS3ERR_EXIST && local_same("exists", 0, (const uint8_t *)"exists\n", 7),
	   "CREATE GUARDED of an existing name: EXIST, file untouched (%ld)", r);
	r = create(fd, &root, "exists", UNCHECKED, 0600, NULL, 0, &f3);
	ok(r == NFS3_OK && lst("exists", &st) && (st.st_mode & 07777) == 0644 &&
	   st.st_size == 7,
	   "CREATE UNCHECKED of an existing file: OK, mode and data kept (%ld)", r);
	r = create(fd, &root, "u1000", UNCHECKED, 0644, NULL, 0, NULL);
	ok(r == NFS3ERR_EXIST, "CREATE UNCHECKED over a directory: EXIST (%ld)", r);
	r = create(fd, &root, "new0755", GUARDED, 0755, NULL, 0, NULL);
	ok(r == NFS3_OK && lst("new0755", &st) && (st.st_mode & 07777) == 0755,
	   "CREATE GUARDED new0755: mode 0755 exactly (umask not applied) (%ld)", r);
	r = create(fd, &root, "a/b", GUARDED, 0644, NULL, 0, NULL);
	ok(r == NFS3ERR_ACCES, "CREATE of \"a/b\": ACCES (%ld)", r);

	/* WRITE stable_how on the wire */
	write_raw(fd, &f3, 0, UNSTABLE, "unstable", 8, 0, &w);
	ok(w.status == NFS3_OK && w.count == 8 && w.committed == UNSTABLE && w.wcc_ok,
	   "WRITE UNSTABLE: count 8, committed UNSTABLE, wcc (%ld %u %u)", w.status,
	   w.count, w.committed);
	memcpy(verf, w.verf, 8);
	write_raw(fd, &f3, 8, DATA_SYNC, "datasync", 8, 0, &w);
	ok(w.status == NFS3_OK && w.committed == DATA_SYNC && !memcmp(verf, w.verf, 8),
	   "WRITE DATA_SYNC: committed DATA_SYNC, same verifier");
	write_raw(fd, &f3, 16, FILE_SYNC, "filesync", 8, 0, &w);
	ok(w.status == NFS3_OK && w.committed == FILE_SYNC && !memcmp(verf, w.verf, 8),
	   "WRITE FILE_SYNC: committed FILE_SYNC, same verifier");
	{
		uint8_t v2[8] = { 0 };

		r = commit_raw(fd, &f3, v2, &wok);
		ok(r == NFS3_OK && !memcmp(v2, verf, 8) && wok,
		   "COMMIT: OK with the write verifier and wcc (%ld)", r);
	}
	ok(local_same("exists", 0, (const uint8_t *)"unstabledatasyncfilesync", 24),
	   "the local file holds the three writes");
	write_raw(fd, &root, 0, UNSTABLE, "x", 1, 0, &w);
	ok(w.status == 21, "WRITE to a directory: ISDIR (%ld)", w.status);
	write_raw(fd, &f3, 0x8000000000000000ull, UNSTABLE, "x", 1, 0, &w);
	ok(w.status == 27, "WRITE at offset 2^63: FBIG (%ld)", w.status);

	/* identities */
	{
		struct fh rf;

		r = lookup(fd, &root, "root644", &rf);
		write_raw(fd, &rf, 0, FILE_SYNC, "XXXX", 4, 1000, &w);
		ok(r == NFS3_OK && w.status == NFS3ERR_ACCES && w.wcc_ok &&
		   local_same("root644", 0, (const uint8_t *)"root\n", 5),
		   "WRITE as uid 1000 to root's 0644 file: ACCES with wcc, unchanged (%ld)",
		   w.status);
		r = setattr_raw(fd, &rf, 0666, NULL, 1000, NULL);
		ok(r == NFS3ERR_PERM, "SETATTR mode by a non-owner: PERM (%ld)", r);
	}
	{
		struct fh dir;

		r = lookup(fd, &root, "u1000", &dir);
		r = r == NFS3_OK ? create(fd, &dir, "ro0444", GUARDED, 0444, NULL, 1000, &own)
				 : r;
		ok(r == NFS3_OK && lst("u1000/ro0444", &st) && st.st_uid == 1000 &&
		   (st.st_mode & 07777) == 0444,
		   "CREATE as uid 1000 of a 0444 file: owned by 1000, mode 0444 (%ld)", r);
		write_raw(fd, &own, 0, FILE_SYNC, "owner", 5, 1000, &w);
		ok(w.status == NFS3_OK && w.count == 5 &&
		   local_same("u1000/ro0444", 0, (const uint8_t *)"owner", 5),
		   "WRITE by the owner to its 0444 file: OK (owner override, as Linux) (%ld)",
		   w.status);
		write_raw(fd, &own, 0, FILE_SYNC, "other", 5, 1001, &w);
		ok(w.status == NFS3ERR_ACCES, "the same WRITE by uid 1001: ACCES (%ld)",
		   w.status);
	}

	/* guard */
	r = setattr_raw(fd, &f3, 0600, NULL, 0, &at);
	ok(r == NFS3_OK, "SETATTR mode 0600, no guard");
	at2 = at;
	at2.ctime_ns ^= 1;
	r = setattr_raw(fd, &f3, 0644, &at2, 0, NULL);
	ok(r == NFS3ERR_NOT_SYNC && lst("exists", &st) && (st.st_mode & 07777) == 0600,
	   "SETATTR with a wrong ctime guard: NOT_SYNC, nothing changed (%ld)", r);
	r = setattr_raw(fd, &f3, 0644, &at, 0, NULL);
	ok(r == NFS3_OK && lst("exists", &st) && (st.st_mode & 07777) == 0644,
	   "SETATTR with the right ctime guard: OK (%ld)", r);

	/* read-only export */
	r = lookup(fd, &ro, "public644", &pub);
	ok(r == NFS3_OK, "LOOKUP ro/public644");
	write_raw(fd, &pub, 0, FILE_SYNC, "X", 1, 0, &w);
	ok(w.status == NFS3ERR_ROFS && w.wcc_ok, "WRITE on a ro export: ROFS with wcc (%ld)",
	   w.status);
	r = commit_raw(fd, &pub, verf, &wok);
	ok(r == NFS3ERR_ROFS && wok, "COMMIT on a ro export: ROFS with wcc (%ld)", r);
	r = setattr_raw(fd, &pub, 0666, NULL, 0, NULL);
	ok(r == NFS3ERR_ROFS, "SETATTR on a ro export: ROFS (%ld)", r);
	r = create(fd, &ro, "new", GUARDED, 0644, NULL, 0, NULL);
	ok(r == NFS3ERR_ROFS, "CREATE on a ro export: ROFS (%ld)", r);
	{
		char p[4200];

		snprintf(p, sizeof(p), "%s/ro/public644", base);
		ok(stat(p, &st) == 0 && (st.st_mode & 07777) == 0644 && st.st_size == 7,
		   "ro/public644 unchanged");
		snprintf(p, sizeof(p), "%s/ro/new", base);
		ok(lstat(p, &st) < 0 && errno == ENOENT, "nothing created on the ro export");
	}
}

/* The same CREATE GUARDED, same xid, twice on one connection: the cached reply. */
static void test_drc(int fd)
{
	struct rpc_buf a, cred, rec1, rec2;
	struct rpc_reply r1, r2;
	struct rpc_call c;
	struct fh root;
	uint32_t xid = rpc_next_xid() ^ 0x5a5a0000u;
	int g1, g2;
	long r;

	ok(mnt(fd, "rw", &root) == 0, "MNT rw (for the DRC test)");
	rpc_buf_init(&a);
	rpc_buf_init(&cred);
	rpc_buf_init(&rec1);
	rpc_buf_init(&rec2);
	create_args(&a, &root, "drc-guarded", GUARDED, 0644, NULL);
	rpc_call_init(&c, xid, PROG_NFS, 3, NFSPROC_CREATE);
	auth(&cred, &c, 0);
	c.args = a.data;
	c.args_len = a.len;
	g1 = rpc_call_simple(fd, &c, &r1, &rec1, TMO);
	g2 = rpc_call_simple(fd, &c, &r2, &rec2, TMO);
	ok(g1 == 1 && g2 == 1 && r1.accept_stat == RPC_SUCCESS && r1.body_len >= 4 &&
	   rpc_get_u32(r1.body) == NFS3_OK,
	   "CREATE GUARDED drc-guarded: OK");
	ok(g2 == 1 && rec1.len == rec2.len && memcmp(rec1.data, rec2.data, rec1.len) == 0,
	   "the same call again (same xid): the identical OK reply, not EXIST "
	   "(%zu/%zu bytes, status %u)", rec1.len, rec2.len,
	   g2 == 1 && r2.body_len >= 4 ? rpc_get_u32(r2.body) : 0);
	r = create(fd, &root, "drc-guarded", GUARDED, 0644, NULL, 0, NULL);
	ok(r == NFS3ERR_EXIST, "the same CREATE with a new xid: EXIST (%ld)", r);
	rpc_buf_free(&a);
	rpc_buf_free(&cred);
	rpc_buf_free(&rec1);
	rpc_buf_free(&rec2);
}

/* ---- durability ---------------------------------------------------------- */

#define DUR_LEN (256 * 1024)

static void verf_path(char *p, size_t len)
{
	snprintf(p, len, "%s/verf", base);
}

static void durable_write(int fd)
{
	uint8_t *data = malloc(DUR_LEN), v2[8] = { 0 };
	struct fh root, f;
	struct wres w = { 0 };
	bool all = true, wok;
	char p[4200];
	long r;
	FILE *out;

	fill(data, DUR_LEN, 9);
	r = mnt(fd, "rw", &root);
	if (r == 0)
		r = create(fd, &root, "durable", GUARDED, 0644, NULL, 0, &f);
	ok(r == NFS3_OK, "CREATE durable (%ld)", r);
	for (uint32_t off = 0; off < DUR_LEN && r == NFS3_OK; off += 65536) {
		write_raw(fd, &f, off, UNSTABLE, data + off, 65536, 0, &w);
		all = all && w.status == NFS3_OK && w.count == 65536 && w.committed == UNSTABLE;
	}
	ok(r == NFS3_OK && all, "256 KiB written UNSTABLE in 64 KiB WRITEs");
	r = commit_raw(fd, &f, v2, &wok);
	ok(r == NFS3_OK && memcmp(v2, w.verf, 8) == 0, "COMMIT: OK, the same verifier");
	verf_path(p, sizeof(p));
	out = fopen(p, "w");
	if (out) {
		for (int i = 0; i < 8; i++)
			fprintf(out, "%02x", w.verf[i]);
		fclose(out);
	}
	ok(out != NULL, "write verifier saved for after the restart");
	free(data);
}

static void durable_check(int fd)
{
	uint8_t *data = malloc(DUR_LEN), old[8] = { 0 };
	struct nfs_context *nfs;
	struct nfsfh *fh;
	struct fh root, f;
	struct wres w;
	char p[4200];
	FILE *in;
	long r;

	fill(data, DUR_LEN, 9);
	nfs = mount_as("rw", -1, -1);
	ok(nfs != NULL, "after kill -9 and restart: mount rw");
	if (nfs) {
		r = nfs_open(nfs, "/durable", O_RDONLY, &fh);
		ok(r == 0 && nfs_same(nfs, fh, 0, data, DUR_LEN),
		   "after the restart: durable reads back intact over NFS (%ld)", r);
		if (r == 0)
			nfs_close(nfs, fh);
		nfs_umount(nfs);
		nfs_destroy_context(nfs);
	}
	ok(local_same("durable", 0, data, DUR_LEN), "after the restart: local file intact");
	verf_path(p, sizeof(p));
	in = fopen(p, "r");
	for (int i = 0; in && i < 8; i++) {
		unsigned int x = 0;

		if (fscanf(in, "%2x", &x) == 1)
			old[i] = (uint8_t)x;
	}
	if (in)
		fclose(in);
	r = mnt(fd, "rw", &root);
	if (r == 0)
		r = lookup(fd, &root, "durable", &f);
	ok(r == NFS3_OK, "the handle of durable from before still works after restart (LOOKUP)");
	write_raw(fd, &f, DUR_LEN, UNSTABLE, "tail", 4, 0, &w);
	ok(in != NULL && w.status == NFS3_OK && memcmp(w.verf, old, 8) != 0,
	   "WRITE after the restart: another write verifier (clients resend uncommitted data)");
	free(data);
}

int main(int argc, char **argv)
{
	struct nfs_context *nfs;
	const char *phase;
	char p[4200];
	FILE *f;
	int fd;

	if (argc < 5) {
		fprintf(stderr, "usage: test_nfs3_write PORT BASE main|after FIRST\n");
		return 2;
	}
	port = (unsigned int)atoi(argv[1]);
	base = argv[2];
	phase = argv[3];
	tap__n = atoi(argv[4]);
	setvbuf(stdout, NULL, _IOLBF, 0);

	fd = rpc_connect((uint16_t)port, 5000);
	if (fd < 0) {
		printf("Bail out! cannot connect\n");
		return 1;
	}
	if (strcmp(phase, "after") == 0) {
		durable_check(fd);
		close(fd);
		return tap_done();
	}

	nfs = mount_as("rw", -1, -1);
	ok(nfs != NULL, "mount rw (rw,no_root_squash) as root with libnfs");
	if (!nfs) {
		printf("Bail out! cannot mount\n");
		return 1;
	}
	test_writes(nfs);
	test_setattr(nfs);
	nfs_umount(nfs);
	nfs_destroy_context(nfs);
	test_identity();
	test_wire(fd);
	test_drc(fd);
	durable_write(fd);
	close(fd);

	snprintf(p, sizeof(p), "%s/tapcount", base);
	f = fopen(p, "w");
	if (f) {
		fprintf(f, "%d %d\n", tap__n, tap__failed);
		fclose(f);
	}
	return tap__failed ? 1 : 0;
}
