// SPDX-License-Identifier: MIT
/*
 * NFSv4.2's CLONE (RFC 7862 15.13) succeeding, on an export on a file
 * system that shares blocks (XFS made with reflink=1 by
 * run-nfs4-clone-xfs.sh), with a tmpfs export beside it; through the
 * raw COMPOUND client (nfs4_raw.h) and through libnfsx (nfsx4_clone).
 * The files are made and checked through the exported directories
 * themselves: the bytes with pread, the sharing with FIEMAP. A clone
 * leaves the destination's extents flagged FIEMAP_EXTENT_SHARED; a copy
 * of the bytes (read and write) does not. copy_file_range on XFS shares
 * aligned blocks as well, so what tells CLONE from nfsxd's COPY is the
 * flag together with CLONE's refusals below (COPY takes any alignment
 * and copies across file systems).
 * - a whole file (count 0: to the source's end), an aligned range into
 *   the middle of another file (only that range shared), a count that
 *   is not aligned but ends at the source's end (the kernel allows it);
 * - offsets or a count not aligned to the block: INVAL (FICLONERANGE's
 *   EINVAL, knfsd's nfserr_inval), the destination untouched; a range
 *   past the source's end: INVAL; overlapping ranges of one file: INVAL;
 * - between the XFS and the tmpfs export, either way: XDEV (two file
 *   systems; knfsd answers nfserrno(-EXDEV));
 * - clone_blksize of the XFS export: its block size (statvfs's f_bsize;
 *   knfsd tells the superblock's s_blocksize, the same number);
 * - a WRITE to the source after the clone changes the source only
 *   (copy on write): both read back, on disk and by READ.
 *
 * Usage: test_nfs4_clone PORT XFS_DIR TMPFS_DIR
 * (run-nfs4-clone-xfs.sh: both exported rw,no_root_squash to 127.0.0.1;
 * runs as root, as it makes the files directly.)
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "client/nfsx.h"
#include "nfs4_raw.h"
#include "rpc_client.h"
#include "../tap.h"

static uint16_t port;
static const char *xfs, *shm;   /* the exports' directories, here */
static int fd = -1;
static struct v4_session sess;
static struct v4_fh xfs_fh, shm_fh;
static uint64_t blk;            /* the XFS block size (statvfs f_bsize) */
static uint64_t src_len;        /* 256 blocks */
static uint8_t *srcdata;        /* what "src" holds */

static const struct stateid4 anon;

static char *path_of(const char *d, const char *name)
{
	static char p[4][4096];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", d, name);
	return p[i];
}

/* A new local file @name in @d holding @data (@len bytes), synced, so
 * that its blocks are allocated before anything clones them. */
static void mkfile(const char *d, const char *name, const uint8_t *data, size_t len)
{
	int f = open(path_of(d, name), O_RDWR | O_CREAT | O_TRUNC, 0666);

	if (f < 0 || (len && pwrite(f, data, len, 0) != (ssize_t)len) || fsync(f) < 0) {
		printf("Bail out! cannot make %s: %s\n", path_of(d, name), strerror(errno));
		exit(1);
	}
	close(f);
}

/* The bytes of @path (its size too) equal @want[0..@len)? */
static bool file_is(const char *path, const uint8_t *want, size_t len)
{
	uint8_t *got = malloc(len + 1);
	int f = open(path, O_RDONLY);
	ssize_t n = -1;

	if (f >= 0 && got)
		n = pread(f, got, len + 1, 0);
	if (f >= 0)
		close(f);
	n = n == (ssize_t)len && (!len || !memcmp(got, want, len));
	free(got);
	return n;
}

/*
 * Of [@off, @off + @len) of @path, the bytes FIEMAP maps (*@mapped) and
 * those of them in extents flagged FIEMAP_EXTENT_SHARED (*@shared),
 * after the file's dirty data is written (FIEMAP_FLAG_SYNC).
 * Return values: false when FIEMAP fails.
 */
static bool extents(const char *path, uint64_t off, uint64_t len, uint64_t *mapped,
		    uint64_t *shared)
{
	enum { N = 64 };
	union {
		struct fiemap f;
		uint8_t room[sizeof(struct fiemap) + N * sizeof(struct fiemap_extent)];
	} u;
	uint64_t at = off, end = off + len;
	int f = open(path, O_RDONLY);
	bool good = f >= 0;

	*mapped = *shared = 0;
	while (good && at < end) {
		uint32_t i;

		memset(&u, 0, sizeof(u));
		u.f.fm_start = at;
		u.f.fm_length = end - at;
		u.f.fm_flags = FIEMAP_FLAG_SYNC;
		u.f.fm_extent_count = N;
		if (ioctl(f, FS_IOC_FIEMAP, &u.f) < 0) {
			printf("# FIEMAP of %s: %s\n", path, strerror(errno));
			good = false;
			break;
		}
		if (!u.f.fm_mapped_extents)
			break;
		for (i = 0; i < u.f.fm_mapped_extents; i++) {
			const struct fiemap_extent *e = &u.f.fm_extents[i];
			uint64_t a = e->fe_logical > at ? e->fe_logical : at;
			uint64_t b = e->fe_logical + e->fe_length < end ?
				     e->fe_logical + e->fe_length : end;

			if (b > a) {
				*mapped += b - a;
				if (e->fe_flags & FIEMAP_EXTENT_SHARED)
					*shared += b - a;
			}
			at = e->fe_logical + e->fe_length;
		}
		if (u.f.fm_extents[u.f.fm_mapped_extents - 1].fe_flags & FIEMAP_EXTENT_LAST)
			break;
	}
	if (f >= 0)
		close(f);
	return good;
}

/* Is all of [@off, @off + @len) of @path mapped in shared extents? */
static bool all_shared(const char *path, uint64_t off, uint64_t len)
{
	uint64_t m, s;

	if (!extents(path, off, len, &m, &s))
		return false;
	if (m != len || s != len)
		printf("# %s [%llu, +%llu): %llu bytes mapped, %llu shared\n", path,
		       (unsigned long long)off, (unsigned long long)len, (unsigned long long)m,
		       (unsigned long long)s);
	return m == len && s == len;
}

/* ---- the raw COMPOUND client ---------------------------------------------- */

/* COMPOUND of minor version 2, as root. */
static bool call42(const struct nfs_argop4 *ops, uint32_t n, struct v4_res *r)
{
	return v4_compound(fd, 0, 0, "t", 1, 2, ops, n, r);
}

/* SEQUENCE, PUTFH @fh, @ops: the last one's status, or the COMPOUND's
 * when it stopped before it; -1 on no reply. */
static long on(const struct v4_fh *fh, const struct nfs_argop4 *ops, uint32_t n,
	       struct v4_res *r)
{
	struct nfs_argop4 all[6];
	uint32_t i;

	v4op_seq_next(&all[0], &sess, 0, false);
	v4op_putfh(&all[1], fh);
	for (i = 0; i < n; i++)
		all[2 + i] = ops[i];
	if (!call42(all, n + 2, r) || r->nops < 2) {
		v4_diag(r);
		return -1;
	}
	return r->nops == n + 2 ? v4_op_status(r, n + 1) : (long)r->status;
}

/* The handle of @name in the export whose root is @dir. */
static bool fh_of(const struct v4_fh *dir, const char *name, struct v4_fh *fh)
{
	struct nfs_argop4 ops[2];
	struct v4_res r;
	bool good;

	v4op_lookup(&ops[0], name);
	v4op_simple(&ops[1], OP_GETFH);
	v4_res_init(&r);
	good = on(dir, ops, 2, &r) == NFS4_OK && v4_fh_of_res(&r, 3, fh);
	v4_res_free(&r);
	return good;
}

/* SEQUENCE, PUTFH @src, SAVEFH, PUTFH @dst, CLONE: CLONE's status. */
static long clone_(const struct v4_fh *src, const struct v4_fh *dst, uint64_t so, uint64_t d,
		   uint64_t n)
{
	struct nfs_argop4 ops[3];
	struct v4_res r;
	long st;

	v4op_simple(&ops[0], OP_SAVEFH);
	v4op_putfh(&ops[1], dst);
	v4op_simple(&ops[2], OP_CLONE);
	ops[2].u.opclone.cl_src_stateid = anon;
	ops[2].u.opclone.cl_dst_stateid = anon;
	ops[2].u.opclone.cl_src_offset = so;
	ops[2].u.opclone.cl_dst_offset = d;
	ops[2].u.opclone.cl_count = n;
	v4_res_init(&r);
	st = on(src, ops, 3, &r);
	v4_res_free(&r);
	return st;
}

static bool setup(void)
{
	struct nfs_argop4 ops[2];
	struct v4_res r;
	bool good;

	fd = rpc_connect(port, 5000);
	if (fd < 0)
		return false;
	if (v4_session_open(fd, "clone-xfs", 1, 2u << 20, 2u << 20, 4096, 4, &sess) != NFS4_OK)
		return false;
	v4_res_init(&r);
	v4op_seq_next(&ops[0], &sess, 0, false);
	v4op_reclaim_complete(&ops[1], false);
	good = call42(ops, 2, &r) && r.status == NFS4_OK;
	v4_res_free(&r);
	return good && v4_walk(fd, xfs, &xfs_fh) == NFS4_OK &&
	       v4_walk(fd, shm, &shm_fh) == NFS4_OK;
}

/* GETATTR clone_blksize of the XFS export's root. */
static void test_blksize(void)
{
	uint32_t w[3] = { 0, 0, 1u << (FATTR4_CLONE_BLKSIZE - 64) };
	struct nfs_argop4 op;
	struct v4_res r;
	long st, v = -1;

	v4op_getattr(&op, w, 3);
	v4_res_init(&r);
	st = on(&xfs_fh, &op, 1, &r);
	if (st == NFS4_OK) {
		const struct fattr4 *f = &r.ops[2].u.opgetattr.u.resok4.obj_attributes;

		if (f->attrmask.len == 3 && f->attrmask.val[2] == w[2] && f->attr_vals.len == 4)
			v = rpc_get_u32(f->attr_vals.data);
	}
	v4_res_free(&r);
	ok(st == NFS4_OK && v == (long)blk, "xfs: GETATTR clone_blksize: the file system's block, "
	   "%llu bytes (%ld, %ld)", (unsigned long long)blk, st, v);
}

static void test_whole(void)
{
	struct v4_fh src, dst;
	long st;

	if (!ok(fh_of(&xfs_fh, "src", &src) && fh_of(&xfs_fh, "whole", &dst),
		"xfs: LOOKUP src, whole"))
		return;
	st = clone_(&src, &dst, 0, 0, 0);
	ok(st == NFS4_OK, "xfs: CLONE of a whole file (%llu bytes), count 0: OK (%ld)",
	   (unsigned long long)src_len, st);
	ok(file_is(path_of(xfs, "whole"), srcdata, src_len),
	   "xfs: ... the destination's bytes and size are the source's (pread)");
	ok(all_shared(path_of(xfs, "whole"), 0, src_len),
	   "xfs: ... every extent of the destination is shared (FIEMAP_EXTENT_SHARED): a clone, "
	   "not a copy");
	ok(all_shared(path_of(xfs, "src"), 0, src_len),
	   "xfs: ... and so is every extent of the source");
}

/* "part": 128 blocks of 'z'; 32 blocks of src from block 16 land at block 64 */
static void test_range(void)
{
	uint64_t plen = 128 * blk, m = 0, s = 0, m2 = 0, s2 = 0, m3 = 0, s3 = 0;
	uint8_t *want = malloc(plen);
	struct v4_fh src, dst, s2fh, tail;
	bool good;
	long st;

	if (!want || !ok(fh_of(&xfs_fh, "src", &src) && fh_of(&xfs_fh, "part", &dst) &&
			 fh_of(&xfs_fh, "src2", &s2fh) && fh_of(&xfs_fh, "tail", &tail),
			 "xfs: LOOKUP src, part, src2, tail")) {
		free(want);
		return;
	}
	memset(want, 'z', plen);
	memcpy(want + 64 * blk, srcdata + 16 * blk, 32 * blk);
	st = clone_(&src, &dst, 16 * blk, 64 * blk, 32 * blk);
	ok(st == NFS4_OK, "xfs: CLONE of blocks [16, 48) of src to block 64 of a 128-block file: "
	   "OK (%ld)", st);
	ok(file_is(path_of(xfs, "part"), want, plen),
	   "xfs: ... that range holds the source's bytes, the rest its own, the size unchanged");
	good = extents(path_of(xfs, "part"), 64 * blk, 32 * blk, &m, &s) &&
	       extents(path_of(xfs, "part"), 0, 64 * blk, &m2, &s2) &&
	       extents(path_of(xfs, "part"), 96 * blk, 32 * blk, &m3, &s3);
	ok(good && m == 32 * blk && s == m && m2 == 64 * blk && s2 == 0 && m3 == 32 * blk &&
	   s3 == 0, "xfs: ... the cloned range's extents are shared, the rest's not (FIEMAP: %llu of %llu "
	   "bytes shared in the range, %llu before it, %llu after it)", (unsigned long long)s,
	   (unsigned long long)m, (unsigned long long)s2, (unsigned long long)s3);

	st = clone_(&src, &dst, 1000, 0, blk);
	ok(st == NFS4ERR_INVAL, "xfs: CLONE from an unaligned source offset (1000): INVAL (%ld)",
	   st);
	st = clone_(&src, &dst, 0, 1000, blk);
	ok(st == NFS4ERR_INVAL, "xfs: CLONE to an unaligned destination offset (1000): INVAL (%ld)",
	   st);
	st = clone_(&src, &dst, 0, 0, blk + 1);
	ok(st == NFS4ERR_INVAL, "xfs: CLONE of an unaligned count (a block and a byte, not to the "
	   "source's end): INVAL (%ld)", st);
	ok(file_is(path_of(xfs, "part"), want, plen) &&
	   extents(path_of(xfs, "part"), 0, 64 * blk, &m2, &s2) && s2 == 0,
	   "xfs: ... the destination untouched by the three (bytes, no new shared extent)");
	st = clone_(&src, &dst, src_len + blk, 0, 0);
	ok(st == NFS4ERR_INVAL, "xfs: CLONE from past the source's end: INVAL (%ld)", st);
	st = clone_(&src, &dst, 0, 0, src_len + blk);
	ok(st == NFS4ERR_INVAL, "xfs: CLONE of a range ending past the source's end: INVAL (%ld)",
	   st);
	st = clone_(&src, &src, 0, blk, 2 * blk);
	ok(st == NFS4ERR_INVAL, "xfs: CLONE within one file, overlapping ranges: INVAL (%ld)", st);

	/* src2: 10000 bytes; the kernel lets a clone that ends at the
	 * source's end take its partial last block */
	st = clone_(&s2fh, &tail, 0, 0, 10000);
	ok(st == NFS4_OK && file_is(path_of(xfs, "tail"), srcdata, 10000) &&
	   all_shared(path_of(xfs, "tail"), 0, 10000),
	   "xfs: CLONE of a 10000-byte file, count 10000 (unaligned, to the source's end): OK, "
	   "the bytes, shared (%ld)", st);
	free(want);
}

static void test_xdev(void)
{
	struct v4_fh src, t, tsrc, whole;
	long st;

	if (!ok(fh_of(&xfs_fh, "src", &src) && fh_of(&xfs_fh, "whole", &whole) &&
		fh_of(&shm_fh, "t", &t) && fh_of(&shm_fh, "tsrc", &tsrc),
		"LOOKUP xfs src, whole; tmpfs t, tsrc"))
		return;
	st = clone_(&src, &t, 0, 0, 0);
	ok(st == NFS4ERR_XDEV, "CLONE from the XFS export into the tmpfs one: XDEV (%ld)", st);
	st = clone_(&tsrc, &whole, 0, 0, 0);
	ok(st == NFS4ERR_XDEV, "CLONE from the tmpfs export into the XFS one: XDEV (%ld)", st);
	ok(file_is(path_of(shm, "t"), NULL, 0) && file_is(path_of(xfs, "whole"), srcdata, src_len),
	   "... neither destination changed");
}

/* After the whole-file clone: a WRITE to src changes src only. */
static void test_cow(void)
{
	uint8_t *wb = malloc(blk), *was = malloc(src_len);
	struct v4_fh src, whole;
	struct nfs_argop4 op;
	struct v4_res r;
	long st;

	if (!wb || !was || !ok(fh_of(&xfs_fh, "src", &src) && fh_of(&xfs_fh, "whole", &whole),
			       "xfs: LOOKUP src, whole")) {
		free(wb);
		free(was);
		return;
	}
	memset(wb, 'W', blk);
	v4_res_init(&r);
	v4op_write(&op, &anon, blk, FILE_SYNC4, wb, (uint32_t)blk);
	st = on(&src, &op, 1, &r);
	ok(st == NFS4_OK, "xfs: WRITE of block 1 of the cloned source: OK (%ld)", st);
	memcpy(was, srcdata, src_len);
	memcpy(srcdata + blk, wb, blk);
	ok(file_is(path_of(xfs, "src"), srcdata, src_len),
	   "xfs: ... the source holds the new block (pread)");
	ok(file_is(path_of(xfs, "whole"), was, src_len),
	   "xfs: ... the clone still holds the old bytes (pread): copy on write");
	v4op_read(&op, &anon, 0, (uint32_t)(2 * blk));
	st = on(&whole, &op, 1, &r);
	ok(st == NFS4_OK && r.ops[2].u.opread.u.resok4.data.len == 2 * blk &&
	   !memcmp(r.ops[2].u.opread.u.resok4.data.data, was, 2 * blk),
	   "xfs: ... and READ of the clone's first two blocks answers the old bytes (%ld)", st);
	v4_res_free(&r);
	free(wb);
	free(was);
}

/* ---- libnfsx ----------------------------------------------------------- */

struct res {
	int done, err;
	enum nfsstat4 st;
};

static void res_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct res *r = priv;

	(void)ctx;
	r->done++;
	r->err = err;
	if (!err)
		r->st = *(const enum nfsstat4 *)res;
}

static struct nfsx_ctx *mk(void)
{
	struct nfsx_opts o;
	char err[256];
	struct nfsx_ctx *c;

	nfsx_opts_init(&o);
	o.host = "127.0.0.1";
	o.port = port;
	o.mount_port = port;
	o.timeo_ms = 15000;
	o.version = 4;
	o.minor = 2;
	c = nfsx_ctx_new(&o, err, sizeof(err));
	if (!c)
		printf("# nfsx_ctx_new: %s\n", err);
	return c;
}

/* nfsx4_clone of [@so, @so + @n) of @src to @d of @dst: CLONE's status,
 * -1 when the call failed. */
static long lclone(struct nfsx_ctx *c, const struct nfsx_fh *src, const struct nfsx_fh *dst,
		   uint64_t so, uint64_t d, uint64_t n)
{
	struct nfsx4_clone_args a = {
		.src = { .data = src->data, .len = src->len },
		.dst = { .data = dst->data, .len = dst->len },
		.args = { anon, anon, so, d, n },
	};
	struct res r = { 0 };
	time_t end = time(NULL) + 30;
	int q = nfsx4_clone(c, &a, res_cb, &r);

	if (q) {
		printf("# nfsx4_clone: %s\n", nfsx_strerror(q));
		return -1;
	}
	while (!r.done && time(NULL) <= end)
		nfsx_run_once(c, 100);
	if (r.done && r.err)
		printf("# nfsx4_clone: %s\n", nfsx_strerror(r.err));
	return r.done == 1 && !r.err ? (long)r.st : -1;
}

static void test_libnfsx(void)
{
	struct nfsx_ctx *c = mk(), *c2 = mk();
	struct nfsx_fh root, root2, src, dst, t;
	long st;
	int e;

	e = c && c2 ? nfsx_mount(c, xfs, &root) : -ENOMEM;
	if (!e)
		e = nfsx_mount(c2, shm, &root2);
	if (!e)
		e = nfsx_lookup(c, &root, "src", &src, NULL);
	if (!e)
		e = nfsx_lookup(c, &root, "lwhole", &dst, NULL);
	if (!e)
		e = nfsx_lookup(c2, &root2, "t", &t, NULL);
	if (!ok(e == 0, "libnfsx: NFSv4.2 sessions, both exports mounted, src, lwhole and tmpfs "
		"t looked up (%s)", nfsx_strerror(e)))
		goto out;
	st = lclone(c, &src, &dst, 0, 0, 0);
	ok(st == NFS4_OK, "libnfsx: nfsx4_clone of a whole file, count 0: OK (%ld)", st);
	ok(file_is(path_of(xfs, "lwhole"), srcdata, src_len) &&
	   all_shared(path_of(xfs, "lwhole"), 0, src_len),
	   "libnfsx: ... the source's bytes, every extent shared (FIEMAP)");
	st = lclone(c, &src, &dst, blk, 3 * blk, 2 * blk);
	ok(st == NFS4_OK, "libnfsx: nfsx4_clone of blocks [1, 3) over blocks [3, 5) of the clone: "
	   "OK (%ld)", st);
	{
		uint8_t *want = malloc(src_len);

		if (want) {
			memcpy(want, srcdata, src_len);
			memcpy(want + 3 * blk, srcdata + blk, 2 * blk);
		}
		ok(want && file_is(path_of(xfs, "lwhole"), want, src_len) &&
		   all_shared(path_of(xfs, "lwhole"), 0, src_len),
		   "libnfsx: ... those blocks hold the source's blocks [1, 3), all still shared");
		free(want);
	}
	st = lclone(c, &src, &dst, 0, 0, blk + 1);
	ok(st == NFS4ERR_INVAL, "libnfsx: nfsx4_clone of an unaligned count: NFS4ERR_INVAL (%ld)",
	   st);
	st = lclone(c, &src, &t, 0, 0, 0);
	ok(st == NFS4ERR_XDEV, "libnfsx: nfsx4_clone into the tmpfs export: NFS4ERR_XDEV (%ld)",
	   st);
out:
	nfsx_ctx_free(c);
	nfsx_ctx_free(c2);
}

int main(int argc, char **argv)
{
	struct statvfs sv;
	uint64_t i;

	if (argc != 4) {
		fprintf(stderr, "usage: test_nfs4_clone PORT XFS_DIR TMPFS_DIR\n");
		return 2;
	}
	port = (uint16_t)atoi(argv[1]);
	xfs = argv[2];
	shm = argv[3];
	if (statvfs(xfs, &sv) < 0 || sv.f_bsize < 512) {
		printf("Bail out! statvfs %s: %s\n", xfs, strerror(errno));
		return 1;
	}
	blk = sv.f_bsize;
	src_len = 256 * blk;
	srcdata = malloc(src_len);
	if (!srcdata)
		return 1;
	for (i = 0; i < src_len; i++)
		srcdata[i] = (uint8_t)((i * 131 + i / blk) % 251 + 1);
	mkfile(xfs, "src", srcdata, src_len);
	mkfile(xfs, "src2", srcdata, 10000);
	mkfile(xfs, "whole", NULL, 0);
	mkfile(xfs, "tail", NULL, 0);
	mkfile(xfs, "lwhole", NULL, 0);
	{
		uint8_t *z = malloc(128 * blk);

		if (!z)
			return 1;
		memset(z, 'z', 128 * blk);
		mkfile(xfs, "part", z, 128 * blk);
		free(z);
	}
	mkfile(shm, "t", NULL, 0);
	mkfile(shm, "tsrc", srcdata, 8192);

	if (!setup()) {
		printf("Bail out! no session or no handle of %s or %s\n", xfs, shm);
		return 1;
	}
	test_blksize();
	test_whole();
	test_range();
	test_xdev();
	test_cow();
	test_libnfsx();
	close(fd);
	free(srcdata);
	return tap_done();
}
