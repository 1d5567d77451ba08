// SPDX-License-Identifier: MIT
/*
 * NFSv4.2's I/O operations on the wire (src/nfs4/io42_ops.c): SEEK,
 * ALLOCATE, DEALLOCATE, READ_PLUS, IO_ADVISE, and WRITE_SAME, LAYOUTSTATS
 * and LAYOUTERROR answered NOTSUPP. The files are made and checked
 * through the exported directory itself (pwrite, ftruncate, fallocate,
 * pread, lseek, fstat): READ_PLUS's bytes, its holes read as zeros, are
 * compared with pread's, and SEEK's answers with lseek's, so the checks
 * hold whatever the file system's hole granularity is. A second client,
 * H, with a back channel on its connection, holds read delegations that
 * ALLOCATE and DEALLOCATE (as WRITE) must recall before they change the
 * file; H answers the CB_RECALLs by hand.
 *
 * Usage: test_nfs4_v42io PORT DIR...
 *        test_nfs4_v42io --holemap PORT DIR
 *        test_nfs4_v42io --bench PORT DIR NFSXD_PID
 * (run-nfs4-v42io.sh: each DIR exported rw,no_root_squash to 127.0.0.1,
 * the first on tmpfs, a second on a disk when the scratch directory is
 * on one. --bench: READ against READ_PLUS of 64 MiB files, all data, all
 * hole and 4 KiB stripes, 1 MiB per call (V42IO_BENCH_CALL=bytes), wall
 * and server CPU time, as TAP comments; V42IO_BENCH_ONLY=bench-data (or
 * -hole, -4d, -4h): that file only; V42IO_BENCH_STRIPE=bytes: the
 * stripes of -4d and -4h. --holemap: a sparse file read twice
 * only, for the wrapper to count nfsxd's seeks.)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nfs4_raw.h"
#include "rpc_client.h"
#include "../tap.h"

#define KIB 1024u
#define MIB (1024u * 1024u)

static int fd = -1;
static struct v4_session sess;
static const char *dir;      /* the export's directory, here */
static const char *tag;      /* "tmpfs" or "disk", in the messages */
static struct v4_fh dir_fh;
static unsigned int owner_n;

/* COMPOUND of minor version 2, as root. */
static bool call42(const struct nfs_argop4 *ops, uint32_t n, struct v4_res *r)
{
	return v4_compound(fd, 0, 0, "t", 1, 2, ops, n, r);
}

static char *path_of(const char *name)
{
	static char p[4096];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

/* A new local file @name of @size bytes, nothing written. */
static int mkfile(const char *name, uint64_t size)
{
	int f = open(path_of(name), O_RDWR | O_CREAT | O_TRUNC, 0666);

	if (f < 0 || ftruncate(f, (off_t)size) < 0) {
		printf("Bail out! cannot make %s: %s\n", path_of(name), strerror(errno));
		exit(1);
	}
	return f;
}

/* [@off, @off + @len) of local file @f written with its pattern. */
static void fill(int f, uint64_t off, uint64_t len)
{
	static uint8_t buf[64 * KIB];
	uint64_t done = 0;

	while (done < len) {
		uint32_t n = len - done > sizeof(buf) ? sizeof(buf) : (uint32_t)(len - done);
		uint32_t i;

		for (i = 0; i < n; i++)
			buf[i] = (uint8_t)((off + done + i) * 7 % 251 + 1);
		if (pwrite(f, buf, n, (off_t)(off + done)) != (ssize_t)n) {
			printf("Bail out! pwrite: %s\n", strerror(errno));
			exit(1);
		}
		done += n;
	}
}

/* Stripes of @stripe bytes of data and hole over @size bytes, data
 * first when @data_first. */
static void stripes(int f, uint64_t size, uint64_t stripe, bool data_first)
{
	uint64_t at;

	for (at = data_first ? 0 : stripe; at < size; at += 2 * stripe)
		fill(f, at, at + stripe < size ? stripe : size - at);
}

/* OPEN @name in the export for @access: handle and stateid. */
static bool open_file(const char *name, uint32_t access, struct v4_fh *fh, struct stateid4 *sid)
{
	struct nfs_argop4 ops[4];
	char owner[32];
	struct v4_res r;
	bool good;

	snprintf(owner, sizeof(owner), "owner-%u", owner_n++);
	v4_res_init(&r);
	v4op_seq_next(&ops[0], &sess, 0, false);
	v4op_putfh(&ops[1], &dir_fh);
	v4op_open(&ops[2], 0, access, OPEN4_SHARE_DENY_NONE, sess.clientid, owner, name);
	v4op_simple(&ops[3], OP_GETFH);
	good = call42(ops, 4, &r) && r.status == NFS4_OK && v4_fh_of_res(&r, 3, fh);
	if (good)
		*sid = r.ops[2].u.opopen.u.resok4.stateid;
	else
		v4_diag(&r);
	v4_res_free(&r);
	return good;
}

/* SEQUENCE, PUTFH @fh, @op: its status (-1: no reply), the result into *@out. */
static long one_op(const struct v4_fh *fh, struct nfs_argop4 *op, struct v4_res *r)
{
	struct nfs_argop4 ops[3];

	v4op_seq_next(&ops[0], &sess, 0, false);
	v4op_putfh(&ops[1], fh);
	ops[2] = *op;
	if (!call42(ops, 3, r) || r->nops < 2) {
		v4_diag(r);
		return -1;
	}
	return r->nops == 3 ? v4_op_status(r, 2) : (long)r->status;
}

static long seek_op(const struct v4_fh *fh, const struct stateid4 *sid, uint64_t off, bool data,
		    uint64_t *at, bool *eof)
{
	struct nfs_argop4 op;
	struct v4_res r;
	long s;

	memset(&op, 0, sizeof(op));
	op.argop = OP_SEEK;
	op.u.opseek.sa_stateid = *sid;
	op.u.opseek.sa_offset = off;
	op.u.opseek.sa_what = data ? NFS4_CONTENT_DATA : NFS4_CONTENT_HOLE;
	v4_res_init(&r);
	s = one_op(fh, &op, &r);
	if (s == NFS4_OK) {
		*at = r.ops[2].u.opseek.u.resok4.sr_offset;
		*eof = r.ops[2].u.opseek.u.resok4.sr_eof;
	}
	v4_res_free(&r);
	return s;
}

static long falloc_op(const struct v4_fh *fh, const struct stateid4 *sid, uint64_t off,
		      uint64_t len, bool punch)
{
	struct nfs_argop4 op;
	struct v4_res r;
	long s;

	memset(&op, 0, sizeof(op));
	op.argop = punch ? OP_DEALLOCATE : OP_ALLOCATE;
	if (punch) {
		op.u.opdeallocate.da_stateid = *sid;
		op.u.opdeallocate.da_offset = off;
		op.u.opdeallocate.da_length = len;
	} else {
		op.u.opallocate.aa_stateid = *sid;
		op.u.opallocate.aa_offset = off;
		op.u.opallocate.aa_length = len;
	}
	v4_res_init(&r);
	s = one_op(fh, &op, &r);
	v4_res_free(&r);
	return s;
}

/* What one READ_PLUS answered. */
struct rp {
	long status;
	bool eof;
	unsigned int nseg, nhole, ndata;
	uint64_t covered;        /* bytes of the file its segments describe */
	bool contiguous;         /* from the offset on, no gap nor overlap */
};

/* READ_PLUS @off/@count of @fh; the bytes it describes (holes as zeros)
 * into @buf. */
static struct rp read_plus(const struct v4_fh *fh, const struct stateid4 *sid, uint64_t off,
			   uint32_t count, uint8_t *buf)
{
	struct rp o = { .status = -1, .contiguous = true };
	const struct read_plus_res4 *k;
	struct nfs_argop4 op;
	struct v4_res r;
	uint32_t i;

	memset(&op, 0, sizeof(op));
	op.argop = OP_READ_PLUS;
	op.u.opread_plus.rpa_stateid = *sid;
	op.u.opread_plus.rpa_offset = off;
	op.u.opread_plus.rpa_count = count;
	v4_res_init(&r);
	o.status = one_op(fh, &op, &r);
	if (o.status != NFS4_OK) {
		v4_res_free(&r);
		return o;
	}
	k = &r.ops[2].u.opread_plus.u.rp_resok4;
	o.eof = k->rpr_eof;
	o.nseg = k->rpr_contents.len;
	for (i = 0; i < o.nseg; i++) {
		const struct read_plus_content *s = &k->rpr_contents.val[i];
		uint64_t so, sl;

		if (s->rpc_content == NFS4_CONTENT_HOLE) {
			so = s->u.rpc_hole.di_offset;
			sl = s->u.rpc_hole.di_length;
			o.nhole++;
		} else {
			so = s->u.rpc_data.d_offset;
			sl = s->u.rpc_data.d_data.len;
			o.ndata++;
		}
		if (so != off + o.covered || sl == 0 || o.covered + sl > count) {
			o.contiguous = false;
			break;
		}
		if (buf && s->rpc_content == NFS4_CONTENT_HOLE)
			memset(buf + o.covered, 0, sl);
		else if (buf)
			memcpy(buf + o.covered, s->u.rpc_data.d_data.data, sl);
		o.covered += sl;
	}
	v4_res_free(&r);
	return o;
}

static uint64_t local_size(const char *name)
{
	struct stat st;

	return stat(path_of(name), &st) == 0 ? (uint64_t)st.st_size : 0;
}

/*
 * Read all of @name with READ_PLUS, @count per call, and compare with
 * the local file's bytes: every reply contiguous from its offset, eof
 * exactly when it reaches the end, bytes equal. The segment counts into
 * *@holes and *@datas (may be NULL).
 */
static void whole(const char *name, const struct v4_fh *fh, const struct stateid4 *sid,
		  uint32_t count, unsigned int *holes, unsigned int *datas)
{
	uint64_t size = local_size(name), off = 0;
	uint8_t *got = malloc(count), *want = malloc(count);
	int lf = open(path_of(name), O_RDONLY);
	bool good = got && want && lf >= 0;
	unsigned int calls = 0, h = 0, d = 0;
	struct rp o = { 0 };

	while (good && calls++ < 100000) {
		ssize_t n;

		o = read_plus(fh, sid, off, count, got);
		n = pread(lf, want, count, (off_t)off);
		good = o.status == NFS4_OK && o.contiguous && n >= 0 &&
		       o.covered == (uint64_t)n && memcmp(got, want, (size_t)n) == 0 &&
		       o.eof == (off + o.covered >= size) && (o.eof || o.covered > 0);
		h += o.nhole;
		d += o.ndata;
		off += o.covered;
		if (o.eof)
			break;
	}
	ok(good && off == size,
	   "%s: READ_PLUS of %s (%llu bytes) by %u: %u call(s), %u hole and %u data segment(s), "
	   "bytes as pread's, eof exact", tag, name, (unsigned long long)size, count, calls, h, d);
	if (!good)
		printf("# at %llu: status %ld, contiguous %d, covered %llu, eof %d, %u segments\n",
		       (unsigned long long)off, o.status, o.contiguous,
		       (unsigned long long)o.covered, o.eof, o.nseg);
	if (holes)
		*holes = h;
	if (datas)
		*datas = d;
	free(got);
	free(want);
	if (lf >= 0)
		close(lf);
}

static void test_seek(void)
{
	struct v4_fh fh;
	struct stateid4 sid;
	uint64_t at;
	bool eof;
	off_t want;
	int f;

	/* dense */
	f = mkfile("dense", 0);
	fill(f, 0, 64 * KIB);
	ok(open_file("dense", OPEN4_SHARE_ACCESS_READ, &fh, &sid), "%s: OPEN dense", tag);
	ok(seek_op(&fh, &sid, 0, true, &at, &eof) == NFS4_OK && at == 0 && !eof,
	   "%s: SEEK data at 0 of a dense file: 0, not eof", tag);
	ok(seek_op(&fh, &sid, 100, false, &at, &eof) == NFS4_OK && at == 64 * KIB && eof,
	   "%s: SEEK hole at 100 of a dense file: its end, eof", tag);
	ok(seek_op(&fh, &sid, 64 * KIB, true, &at, &eof) == NFS4ERR_NXIO,
	   "%s: SEEK data at the end: NXIO", tag);
	ok(seek_op(&fh, &sid, 64 * KIB + 5000, false, &at, &eof) == NFS4ERR_NXIO,
	   "%s: SEEK hole past the end: NXIO", tag);
	ok(seek_op(&fh, &sid, UINT64_MAX - 5, true, &at, &eof) == NFS4ERR_NXIO,
	   "%s: SEEK data at 2^64 - 6: NXIO", tag);
	close(f);

	/* sparse: data in [256K, 320K) of 1 MiB */
	f = mkfile("sparse", MIB);
	fill(f, 256 * KIB, 64 * KIB);
	ok(open_file("sparse", OPEN4_SHARE_ACCESS_READ, &fh, &sid), "%s: OPEN sparse", tag);
	want = lseek(f, 0, SEEK_DATA);
	ok(seek_op(&fh, &sid, 0, true, &at, &eof) == NFS4_OK && at == (uint64_t)want && !eof &&
	   at <= 256 * KIB,
	   "%s: SEEK data at 0 of a sparse file: %lld as lseek's, not eof", tag, (long long)want);
	want = lseek(f, 256 * KIB, SEEK_HOLE);
	ok(seek_op(&fh, &sid, 256 * KIB, false, &at, &eof) == NFS4_OK && at == (uint64_t)want &&
	   at >= 320 * KIB && !eof,
	   "%s: SEEK hole in the data: %lld as lseek's, not eof", tag, (long long)want);
	ok(seek_op(&fh, &sid, 0, false, &at, &eof) == NFS4_OK && at == 0 && !eof,
	   "%s: SEEK hole at 0 of a sparse file: 0", tag);
	ok(seek_op(&fh, &sid, 512 * KIB, true, &at, &eof) == NFS4ERR_NXIO,
	   "%s: SEEK data after the last data: NXIO", tag);
	close(f);
}

/* ALLOCATE, DEALLOCATE, and their stateids as WRITE's */
static void test_falloc(void)
{
	struct stateid4 sid, rsid, bad;
	struct v4_fh fh;
	struct nfs_argop4 op;
	struct v4_res r;
	struct stat st;
	uint8_t buf[64 * KIB], zero[64 * KIB];
	uint64_t at;
	bool eof, good;
	long ws, s1, s2;
	int f;

	f = mkfile("alloc", MIB);
	ok(open_file("alloc", OPEN4_SHARE_ACCESS_BOTH, &fh, &sid), "%s: OPEN alloc", tag);
	fstat(f, &st);
	ok((uint64_t)st.st_blocks * 512 < 256 * KIB, "%s: a new sparse file holds %llu bytes",
	   tag, (unsigned long long)st.st_blocks * 512);
	ok(falloc_op(&fh, &sid, 0, 256 * KIB, false) == NFS4_OK, "%s: ALLOCATE 256 KiB: OK", tag);
	fstat(f, &st);
	ok((uint64_t)st.st_blocks * 512 >= 256 * KIB && st.st_size == MIB,
	   "%s: then it holds %llu bytes, its size as it was", tag,
	   (unsigned long long)st.st_blocks * 512);
	ok(falloc_op(&fh, &sid, MIB, 64 * KIB, false) == NFS4_OK, "%s: ALLOCATE past the end: OK",
	   tag);
	fstat(f, &st);
	ok(st.st_size == MIB + 64 * KIB, "%s: the size grows to the range's end", tag);
	ok(falloc_op(&fh, &sid, 0, 0, false) == NFS4ERR_INVAL, "%s: ALLOCATE of nothing: INVAL",
	   tag);
	ok(falloc_op(&fh, &sid, 1, UINT64_MAX - 10, false) == NFS4ERR_FBIG,
	   "%s: ALLOCATE to past 2^63: FBIG", tag);
	close(f);

	/* DEALLOCATE 64 KiB in a dense file of 256 KiB */
	f = mkfile("punch", 0);
	fill(f, 0, 256 * KIB);
	fsync(f);
	ok(open_file("punch", OPEN4_SHARE_ACCESS_BOTH, &fh, &sid), "%s: OPEN punch", tag);
	ok(falloc_op(&fh, &sid, 64 * KIB, 64 * KIB, true) == NFS4_OK,
	   "%s: DEALLOCATE [64K, 128K): OK", tag);
	memset(zero, 0, sizeof(zero));
	good = pread(f, buf, sizeof(buf), 64 * KIB) == (ssize_t)sizeof(buf) &&
	       memcmp(buf, zero, sizeof(buf)) == 0;
	fstat(f, &st);
	ok(good && st.st_size == 256 * KIB, "%s: the range reads zeros, the size is kept", tag);
	v4_res_init(&r);
	memset(&op, 0, sizeof(op));
	v4op_read(&op, &sid, 60 * KIB, 72 * KIB);
	good = one_op(&fh, &op, &r) == NFS4_OK &&
	       r.ops[2].u.opread.u.resok4.data.len == 72 * KIB &&
	       memcmp(r.ops[2].u.opread.u.resok4.data.data + 4 * KIB, zero, 64 * KIB) == 0 &&
	       r.ops[2].u.opread.u.resok4.data.data[0] != 0 &&
	       r.ops[2].u.opread.u.resok4.data.data[68 * KIB] != 0;
	ok(good, "%s: READ over it: data, zeros, data", tag);
	v4_res_free(&r);
	ok(seek_op(&fh, &sid, 0, false, &at, &eof) == NFS4_OK && at == 64 * KIB && !eof,
	   "%s: SEEK hole finds it at 64K", tag);
	ok(seek_op(&fh, &sid, 64 * KIB, true, &at, &eof) == NFS4_OK && at == 128 * KIB,
	   "%s: SEEK data after it: 128K", tag);

	/* stateids: a read-only open's and a made-up one, as WRITE answers */
	ok(open_file("punch", OPEN4_SHARE_ACCESS_READ, &fh, &rsid), "%s: OPEN punch for reading",
	   tag);
	v4_res_init(&r);
	v4op_write(&op, &rsid, 0, UNSTABLE4, "x", 1);
	ws = one_op(&fh, &op, &r);
	v4_res_free(&r);
	s1 = falloc_op(&fh, &rsid, 0, 4096, false);
	s2 = falloc_op(&fh, &rsid, 0, 4096, true);
	ok(ws == NFS4ERR_OPENMODE && s1 == ws && s2 == ws,
	   "%s: with a read-only stateid WRITE, ALLOCATE, DEALLOCATE: %ld, %ld, %ld (OPENMODE)",
	   tag, ws, s1, s2);
	bad = sid;
	bad.other[0] ^= 0x5a;
	bad.other[11] ^= 0xa5;
	v4_res_init(&r);
	v4op_write(&op, &bad, 0, UNSTABLE4, "x", 1);
	ws = one_op(&fh, &op, &r);
	v4_res_free(&r);
	s1 = falloc_op(&fh, &bad, 0, 4096, false);
	s2 = falloc_op(&fh, &bad, 0, 4096, true);
	ok((ws == NFS4ERR_BAD_STATEID || ws == NFS4ERR_STALE_STATEID) && s1 == ws && s2 == ws,
	   "%s: with a made-up stateid WRITE, ALLOCATE, DEALLOCATE: %ld, %ld, %ld (all one)",
	   tag, ws, s1, s2);
	ok(pread(f, buf, 4096, 0) == 4096 && buf[0] == 1 && memcmp(buf + 1, zero, 4095) != 0,
	   "%s: and the file is as it was", tag);
	close(f);
}

static void test_read_plus(void)
{
	static uint8_t buf[MIB];
	struct stateid4 sid;
	struct v4_fh fh;
	unsigned int h, d;
	struct rp o;
	int f;

	/* all data, an odd size */
	f = mkfile("rp-data", 0);
	fill(f, 0, MIB + 123);
	close(f);
	ok(open_file("rp-data", OPEN4_SHARE_ACCESS_READ, &fh, &sid), "%s: OPEN rp-data", tag);
	whole("rp-data", &fh, &sid, MIB, &h, &d);
	ok(h == 0 && d == 2, "%s: all data: one data segment a call, no hole", tag);
	whole("rp-data", &fh, &sid, 5000, NULL, NULL);
	o = read_plus(&fh, &sid, MIB + 123, 4096, buf);
	ok(o.status == NFS4_OK && o.eof && o.nseg == 0,
	   "%s: READ_PLUS at the end: eof, no segment", tag);
	o = read_plus(&fh, &sid, 10 * MIB, 4096, buf);
	ok(o.status == NFS4_OK && o.eof && o.nseg == 0,
	   "%s: READ_PLUS past the end: eof, no segment", tag);
	o = read_plus(&fh, &sid, 100, 0, buf);
	ok(o.status == NFS4_OK && !o.eof && o.nseg == 0,
	   "%s: READ_PLUS of 0 bytes: no segment, not eof", tag);
	o = read_plus(&fh, &sid, (uint64_t)INT64_MAX + 1, 10, buf);
	ok(o.status == NFS4ERR_INVAL, "%s: READ_PLUS at 2^63: INVAL (as READ)", tag);

	/* all hole */
	close(mkfile("rp-hole", MIB));
	ok(open_file("rp-hole", OPEN4_SHARE_ACCESS_READ, &fh, &sid), "%s: OPEN rp-hole", tag);
	whole("rp-hole", &fh, &sid, MIB, &h, &d);
	ok(h == 1 && d == 0, "%s: all hole: one hole segment, no data", tag);
	o = read_plus(&fh, &sid, 1000, 100, buf);
	ok(o.status == NFS4_OK && !o.eof && o.nhole == 1 && o.covered == 100,
	   "%s: READ_PLUS of 100 bytes in a hole: a hole of 100, not eof", tag);
	o = read_plus(&fh, &sid, MIB - 100, 100, buf);
	ok(o.status == NFS4_OK && o.eof && o.nhole == 1 && o.covered == 100,
	   "%s: ... of its last 100 bytes: eof", tag);

	/* 4 KiB stripes, from data and from a hole */
	f = mkfile("rp-4d", MIB);
	stripes(f, MIB, 4 * KIB, true);
	close(f);
	ok(open_file("rp-4d", OPEN4_SHARE_ACCESS_READ, &fh, &sid), "%s: OPEN rp-4d", tag);
	whole("rp-4d", &fh, &sid, MIB, NULL, NULL);
	whole("rp-4d", &fh, &sid, 64 * KIB, NULL, NULL);
	whole("rp-4d", &fh, &sid, 6000, NULL, NULL);
	f = mkfile("rp-4h", MIB);
	stripes(f, MIB, 4 * KIB, false);
	close(f);
	ok(open_file("rp-4h", OPEN4_SHARE_ACCESS_READ, &fh, &sid), "%s: OPEN rp-4h", tag);
	whole("rp-4h", &fh, &sid, MIB, NULL, NULL);
	whole("rp-4h", &fh, &sid, 10000, NULL, NULL);
	/* 64 KiB stripes from a hole: holes worth their segment */
	f = mkfile("rp-64h", 4 * MIB);
	stripes(f, 4 * MIB, 64 * KIB, false);
	close(f);
	ok(open_file("rp-64h", OPEN4_SHARE_ACCESS_READ, &fh, &sid), "%s: OPEN rp-64h", tag);
	whole("rp-64h", &fh, &sid, MIB, &h, &d);
	ok(h == 32 && d == 32, "%s: 64 KiB stripes: 32 holes and 32 data segments", tag);
	/* a count smaller than one segment, in data and in a hole */
	o = read_plus(&fh, &sid, 100, 50, buf);
	ok(o.status == NFS4_OK && o.nhole == 1 && o.ndata == 0 && o.covered == 50 && !o.eof,
	   "%s: 50 bytes inside a hole: one hole of 50", tag);
	o = read_plus(&fh, &sid, 64 * KIB + 7, 50, buf);
	ok(o.status == NFS4_OK && o.ndata == 1 && o.nhole == 0 && o.covered == 50 && !o.eof,
	   "%s: 50 bytes inside data: one data segment of 50", tag);
	/* data then a hole to eof */
	f = mkfile("rp-tail", MIB);
	fill(f, 0, 8 * KIB);
	close(f);
	ok(open_file("rp-tail", OPEN4_SHARE_ACCESS_READ, &fh, &sid), "%s: OPEN rp-tail", tag);
	o = read_plus(&fh, &sid, 0, MIB, buf);
	ok(o.status == NFS4_OK && o.eof && o.nseg == 2 && o.ndata == 1 && o.nhole == 1 &&
	   o.covered == MIB,
	   "%s: data then a hole to the end: two segments, the hole reaching eof", tag);

	/* a file growing between calls */
	f = mkfile("rp-grow", 0);
	fill(f, 0, 64 * KIB);
	ok(open_file("rp-grow", OPEN4_SHARE_ACCESS_READ, &fh, &sid), "%s: OPEN rp-grow", tag);
	o = read_plus(&fh, &sid, 0, MIB, buf);
	ok(o.status == NFS4_OK && o.eof && o.covered == 64 * KIB, "%s: 64 KiB, eof", tag);
	fill(f, MIB, 4 * KIB);
	o = read_plus(&fh, &sid, 64 * KIB, MIB, buf);
	ok(o.status == NFS4_OK && o.eof && o.covered == MIB + 4 * KIB - 64 * KIB &&
	   o.nhole == 1 && o.ndata == 1,
	   "%s: grown: a hole to the new data, the data, eof at the new end", tag);
	whole("rp-grow", &fh, &sid, MIB, NULL, NULL);
	/* punched between calls */
	f = mkfile("rp-punch", 0);
	fill(f, 0, 256 * KIB);
	fsync(f);
	ok(open_file("rp-punch", OPEN4_SHARE_ACCESS_READ, &fh, &sid), "%s: OPEN rp-punch", tag);
	whole("rp-punch", &fh, &sid, MIB, &h, &d);
	ok(h == 0 && d == 1, "%s: dense: one data segment", tag);
	ok(fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 64 * KIB, 64 * KIB) == 0,
	   "%s: punched [64K, 128K) here", tag);
	whole("rp-punch", &fh, &sid, MIB, &h, &d);
	ok(h == 1 && d == 2, "%s: then data, the hole, data", tag);
	close(f);

	/* grown by a WRITE of the same COMPOUND: READ_PLUS sees the new end */
	f = mkfile("rp-wgrow", 0);
	fill(f, 0, 64 * KIB);
	close(f);
	if (!open_file("rp-wgrow", OPEN4_SHARE_ACCESS_BOTH, &fh, &sid)) {
		ok(0, "%s: OPEN rp-wgrow for writing", tag);
		return;
	}
	{
		struct nfs_argop4 ops[4];
		const struct read_plus_res4 *k;
		struct v4_res r;
		bool good;

		memset(buf, 'w', 4096);
		v4_res_init(&r);
		v4op_seq_next(&ops[0], &sess, 0, false);
		v4op_putfh(&ops[1], &fh);
		v4op_write(&ops[2], &sid, 128 * KIB, UNSTABLE4, buf, 4096);
		memset(&ops[3], 0, sizeof(ops[3]));
		ops[3].argop = OP_READ_PLUS;
		ops[3].u.opread_plus.rpa_stateid = sid;
		ops[3].u.opread_plus.rpa_offset = 64 * KIB;
		ops[3].u.opread_plus.rpa_count = MIB;
		good = call42(ops, 4, &r) && r.status == NFS4_OK && r.nops == 4;
		k = good ? &r.ops[3].u.opread_plus.u.rp_resok4 : NULL;
		good = good && k->rpr_eof && k->rpr_contents.len == 2 &&
		       k->rpr_contents.val[0].rpc_content == NFS4_CONTENT_HOLE &&
		       k->rpr_contents.val[0].u.rpc_hole.di_length == 64 * KIB &&
		       k->rpr_contents.val[1].rpc_content == NFS4_CONTENT_DATA &&
		       k->rpr_contents.val[1].u.rpc_data.d_offset == 128 * KIB &&
		       k->rpr_contents.val[1].u.rpc_data.d_data.len == 4096 &&
		       memcmp(k->rpr_contents.val[1].u.rpc_data.d_data.data, buf, 4096) == 0;
		ok(good, "%s: WRITE past the end then READ_PLUS in one COMPOUND: the hole, the "
		   "data written, eof at the new end", tag);
		if (!good)
			v4_diag(&r);
		v4_res_free(&r);
	}
}

/* A session with a small ca_maxresponsesize: READ_PLUS cuts its reply
 * to it rather than answer REP_TOO_BIG. */
static void test_small_session(void)
{
	struct v4_session big = sess;
	struct stateid4 sid;
	struct v4_fh fh;
	struct rp o;

	struct nfs_argop4 ops[2];
	struct v4_res r;

	memset(&sess, 0, sizeof(sess));
	ok(v4_session_open(fd, "v42io-small", 2, 1u << 20, 8192, 4096, 2, &sess) == NFS4_OK,
	   "%s: a session answering 8 KiB at most", tag);
	v4_res_init(&r);
	v4op_seq_next(&ops[0], &sess, 0, false);
	v4op_reclaim_complete(&ops[1], false);
	call42(ops, 2, &r);
	v4_res_free(&r);
	ok(open_file("rp-64h", OPEN4_SHARE_ACCESS_READ, &fh, &sid), "%s: OPEN rp-64h", tag);
	o = read_plus(&fh, &sid, 56 * KIB, MIB, NULL);
	ok(o.status == NFS4_OK && !o.eof && o.nhole == 1 && o.ndata == 1 && o.covered > 8192 &&
	   o.covered < 16384,
	   "%s: READ_PLUS of 1 MiB there: a hole and the data that fits, not eof (%llu bytes)",
	   tag, (unsigned long long)o.covered);
	sess = big;
}

/* Past NFS4_RP_CACHE_SETTLE_NS (1 s) after the file's last change: a
 * hole map made now is remembered and used. */
static void settle(void)
{
	usleep(1100 * 1000);
}

/*
 * READ_PLUS's remembered hole map (src/nfs4/rp_cache.c): a file of 1 MiB
 * data and hole stripes read whole twice at 1 MiB a call (the second time
 * from the map; run-nfs4-v42io.sh counts the seeks in nfsxd's log of a
 * server that ran this alone: @count_only), then changed under it, the
 * map made before each change remembered: by a local write filling part
 * of a hole (and growing the file), and by a DEALLOCATE through NFS.
 * Every read's bytes compared with pread's: never a stale hole.
 */
static void test_hole_map(bool count_only)
{
	unsigned int h1, d1, h2, d2;
	struct stateid4 sid;
	struct v4_fh fh;
	int f;

	f = mkfile("holemap", 8 * MIB);
	stripes(f, 8 * MIB, MIB, true);
	ok(open_file("holemap", OPEN4_SHARE_ACCESS_BOTH, &fh, &sid), "%s: OPEN holemap", tag);
	settle();
	whole("holemap", &fh, &sid, MIB, &h1, &d1);
	whole("holemap", &fh, &sid, MIB, &h2, &d2);
	ok(h1 == 4 && d1 == 4 && h2 == h1 && d2 == d1,
	   "%s: the second read's segments as the first's (%u holes, %u data)", tag, h2, d2);
	if (count_only) {
		close(f);
		return;
	}
	/* a local write into a hole, after the map was made: new data, and
	 * a map made again */
	fill(f, MIB + 64 * KIB, 128 * KIB);
	whole("holemap", &fh, &sid, MIB, &h1, &d1);
	ok(d1 == 5, "%s: a local write into a hole read at once: its data (%u data segments)",
	   tag, d1);
	settle();
	fill(f, 3 * MIB + 512 * KIB, 4 * KIB);
	settle();
	whole("holemap", &fh, &sid, MIB, &h1, &d1);
	whole("holemap", &fh, &sid, MIB, &h2, &d2);
	ok(d1 == 6 && d2 == 6, "%s: a local write into a hole a second before: its data (%u, %u)",
	   tag, d1, d2);
	/* the file grown locally, its new end a hole */
	settle();
	if (ftruncate(f, 9 * MIB) < 0)
		printf("# ftruncate: %s\n", strerror(errno));
	settle();
	whole("holemap", &fh, &sid, MIB, &h1, &d1);
	/* a hole punched through NFS */
	ok(falloc_op(&fh, &sid, 4 * MIB + 256 * KIB, 256 * KIB, true) == NFS4_OK,
	   "%s: DEALLOCATE in data: OK", tag);
	whole("holemap", &fh, &sid, MIB, &h1, &d1);
	settle();
	whole("holemap", &fh, &sid, MIB, &h2, &d2);
	ok(h2 == h1 && h2 >= 6, "%s: the punched hole read as one (%u, %u holes)", tag, h1, h2);
	close(f);
	unlink(path_of("holemap"));
}

static void test_advise_notsupp(void)
{
	struct stateid4 sid;
	struct v4_fh fh;
	struct nfs_argop4 op;
	struct v4_res r;
	uint32_t hints;
	long s;

	ok(open_file("rp-data", OPEN4_SHARE_ACCESS_READ, &fh, &sid), "%s: OPEN rp-data", tag);
	memset(&op, 0, sizeof(op));
	op.argop = OP_IO_ADVISE;
	op.u.opio_advise.iaa_stateid = sid;
	op.u.opio_advise.iaa_hints.len = 1;
	op.u.opio_advise.iaa_hints.val = &hints;
	hints = 1u << IO_ADVISE4_SEQUENTIAL | 1u << IO_ADVISE4_WILLNEED | 1u << IO_ADVISE4_READ;
	v4_res_init(&r);
	s = one_op(&fh, &op, &r);
	ok(s == NFS4_OK && r.ops[2].u.opio_advise.u.resok4.ior_hints.len == 1 &&
	   r.ops[2].u.opio_advise.u.resok4.ior_hints.val[0] ==
		   (1u << IO_ADVISE4_SEQUENTIAL | 1u << IO_ADVISE4_WILLNEED),
	   "%s: IO_ADVISE SEQUENTIAL, WILLNEED, READ: the first two applied", tag);
	hints = 1u << IO_ADVISE4_SEQUENTIAL | 1u << IO_ADVISE4_RANDOM | 1u << IO_ADVISE4_DONTNEED;
	s = one_op(&fh, &op, &r);
	ok(s == NFS4_OK && r.ops[2].u.opio_advise.u.resok4.ior_hints.len == 1 &&
	   r.ops[2].u.opio_advise.u.resok4.ior_hints.val[0] == 1u << IO_ADVISE4_DONTNEED,
	   "%s: IO_ADVISE SEQUENTIAL, RANDOM, DONTNEED: the contradiction left out", tag);
	memset(&op, 0, sizeof(op));
	op.argop = OP_WRITE_SAME;
	op.u.opwrite_same.wsa_stateid = sid;
	ok(one_op(&fh, &op, &r) == NFS4ERR_NOTSUPP, "%s: WRITE_SAME: NOTSUPP", tag);
	memset(&op, 0, sizeof(op));
	op.argop = OP_LAYOUTSTATS;
	op.u.oplayoutstats.lsa_layoutupdate.lou_type = LAYOUT4_NFSV4_1_FILES;
	ok(one_op(&fh, &op, &r) == NFS4ERR_NOTSUPP, "%s: LAYOUTSTATS: NOTSUPP", tag);
	memset(&op, 0, sizeof(op));
	op.argop = OP_LAYOUTERROR;
	ok(one_op(&fh, &op, &r) == NFS4ERR_NOTSUPP, "%s: LAYOUTERROR: NOTSUPP", tag);
	v4_res_free(&r);
}

/* ---- a delegation holder: H, a 4.1 client with a back channel ---- */

static int fd_h = -1;
static uint16_t port;
static struct v4_session hs;
static unsigned int h_recalls;    /* CB_RECALLs H answered */

/* Answer the callback @rec (a CB_COMPOUND of CB_SEQUENCE, CB_RECALL):
 * every operation OK, CB_SEQUENCE echoing its session, seqid and slot.
 * Return values: false when @rec is not such a call. */
static bool h_answer(const struct rpc_buf *rec)
{
	struct rpc_cur c = { rec->data, rec->len, false };
	uint32_t xid, len, nops, i, op[4], seq = 0, slot = 0, taglen = 0;
	uint8_t csid[NFS4_SESSIONID_SIZE] = { 0 };
	const uint8_t *ctag;
	struct rpc_buf b;

	xid = rpc_cur_u32(&c);
	if (rpc_cur_u32(&c) != RPC_CALL)
		return false;
	rpc_cur_skip(&c, 16);                   /* rpcvers, prog, vers, proc */
	rpc_cur_u32(&c);
	rpc_cur_opaque(&c, &len, 400);          /* credential */
	rpc_cur_u32(&c);
	rpc_cur_opaque(&c, &len, 400);          /* verifier */
	ctag = rpc_cur_opaque(&c, &taglen, 64);
	rpc_cur_skip(&c, 8);                    /* minor, callback_ident */
	nops = rpc_cur_u32(&c);
	if (c.bad || nops > 4)
		return false;
	for (i = 0; i < nops; i++) {
		op[i] = rpc_cur_u32(&c);
		if (op[i] == 11) {              /* CB_SEQUENCE */
			if (c.n >= sizeof(csid))
				memcpy(csid, c.p, sizeof(csid));
			rpc_cur_skip(&c, sizeof(csid));
			seq = rpc_cur_u32(&c);
			slot = rpc_cur_u32(&c);
			rpc_cur_skip(&c, 8);    /* highest slot, cachethis */
			if (rpc_cur_u32(&c))    /* referring calls: none expected */
				return false;
		} else if (op[i] == 4) {        /* CB_RECALL */
			rpc_cur_skip(&c, 20);   /* stateid, truncate */
			rpc_cur_opaque(&c, &len, NFS4_FHSIZE);
			h_recalls++;
		} else {
			return false;
		}
	}
	if (c.bad)
		return false;
	rpc_buf_init(&b);
	rpc_buf_put_u32(&b, xid);
	rpc_buf_put_u32(&b, RPC_REPLY);
	rpc_buf_put_u32(&b, RPC_MSG_ACCEPTED);
	rpc_buf_put_u32(&b, AUTH_NONE);
	rpc_buf_put_u32(&b, 0);
	rpc_buf_put_u32(&b, RPC_SUCCESS);
	rpc_buf_put_u32(&b, NFS4_OK);
	rpc_buf_put_opaque(&b, ctag, taglen);
	rpc_buf_put_u32(&b, nops);
	for (i = 0; i < nops; i++) {
		rpc_buf_put_u32(&b, op[i]);
		rpc_buf_put_u32(&b, NFS4_OK);
		if (op[i] == 11) {
			rpc_buf_put_bytes(&b, csid, sizeof(csid));
			rpc_buf_put_u32(&b, seq);
			rpc_buf_put_u32(&b, slot);
			rpc_buf_put_u32(&b, 0);
			rpc_buf_put_u32(&b, 0);
		}
	}
	rpc_send_record(fd_h, b.data, b.len);
	rpc_buf_free(&b);
	return true;
}

/* COMPOUND (minor version 1) @ops on H's connection; callbacks arriving
 * before the reply are answered (h_answer). */
static void h_on_call(void *arg, const struct rpc_buf *rec)
{
	(void)arg;
	h_answer(rec);
}

static bool h_call(const struct nfs_argop4 *ops, uint32_t n, struct v4_res *out)
{
	return v4_call_cb(fd_h, "h", 1, 0, ops, n, out, h_on_call, NULL);
}

/* Wait up to @ms for a callback on H's connection and answer it.
 * Return values: true when one came. */
static bool h_wait_cb(int ms)
{
	struct rpc_buf rec;
	bool got = false;

	rpc_buf_init(&rec);
	if (rpc_recv_record(fd_h, &rec, ms, 1u << 20) == 1 && rec.len >= 8 &&
	    rpc_get_u32(rec.data + 4) == RPC_CALL)
		got = h_answer(&rec);
	rpc_buf_free(&rec);
	return got;
}

/* H: EXCHANGE_ID, CREATE_SESSION with a back channel on its connection,
 * RECLAIM_COMPLETE. */
static bool h_session(void)
{
	struct callback_sec_parms4 none = { .cb_secflavor = AUTH_NONE };
	struct nfs_argop4 ops[2];
	struct v4_res r;
	bool good = false;

	char owner[64];

	/* one client per export's run: a second RECLAIM_COMPLETE would be
	 * COMPLETE_ALREADY */
	snprintf(owner, sizeof(owner), "v42io-holder-%s", tag);
	v4_res_init(&r);
	v4op_exchange_id(&ops[0], owner, 1, 0);
	if (!h_call(ops, 1, &r) || r.status != NFS4_OK)
		goto out;
	hs.clientid = r.ops[0].u.opexchange_id.u.eir_resok4.eir_clientid;
	hs.cs_seq = r.ops[0].u.opexchange_id.u.eir_resok4.eir_sequenceid;
	v4op_create_session(&ops[0], hs.clientid, hs.cs_seq, CREATE_SESSION4_FLAG_CONN_BACK_CHAN,
			    65536, 65536, 4096, 4);
	ops[0].u.opcreate_session.csa_back_chan_attrs.ca_maxrequests = 1;
	ops[0].u.opcreate_session.csa_cb_program = 0x40000002u;
	ops[0].u.opcreate_session.csa_sec_parms.len = 1;
	ops[0].u.opcreate_session.csa_sec_parms.val = &none;
	if (!h_call(ops, 1, &r) || r.status != NFS4_OK)
		goto out;
	hs.sid = r.ops[0].u.opcreate_session.u.csr_resok4.csr_sessionid;
	v4op_seq_next(&ops[0], &hs, 0, false);
	v4op_reclaim_complete(&ops[1], false);
	good = h_call(ops, 2, &r) && r.status == NFS4_OK;
out:
	v4_res_free(&r);
	return good;
}

/* H opens @name for reading: a read delegation, its stateid into @dsid. */
static bool h_deleg(const char *name, struct v4_fh *fh, struct stateid4 *dsid)
{
	const struct OPEN4resok *k;
	struct nfs_argop4 ops[4];
	struct v4_res r;
	bool good;

	v4_res_init(&r);
	v4op_seq_next(&ops[0], &hs, 0, false);
	v4op_putfh(&ops[1], &dir_fh);
	v4op_open(&ops[2], 0, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, hs.clientid,
		  name, name);
	v4op_simple(&ops[3], OP_GETFH);
	good = h_call(ops, 4, &r) && r.status == NFS4_OK && v4_fh_of_res(&r, 3, fh);
	k = good ? &r.ops[2].u.opopen.u.resok4 : NULL;
	good = good && k->delegation.delegation_type == OPEN_DELEGATE_READ;
	if (good)
		*dsid = k->delegation.u.read.stateid;
	else if (k)
		printf("#   H's OPEN of %s: delegation type %u\n", name,
		       k->delegation.delegation_type);
	v4_res_free(&r);
	return good;
}

static long h_delegreturn(const struct v4_fh *fh, const struct stateid4 *dsid)
{
	struct nfs_argop4 ops[3];
	struct v4_res r;
	long st = -1;

	v4_res_init(&r);
	v4op_seq_next(&ops[0], &hs, 0, false);
	v4op_putfh(&ops[1], fh);
	v4op_simple(&ops[2], OP_DELEGRETURN);
	ops[2].u.opdelegreturn.deleg_stateid = *dsid;
	if (h_call(ops, 3, &r))
		st = r.status;
	v4_res_free(&r);
	return st;
}

/* ALLOCATE and DEALLOCATE recall another client's read delegation as
 * WRITE does: DELAY, a CB_RECALL to the holder, OK once it returned it. */
static void test_deleg(void)
{
	static const struct stateid4 anon;
	static const char *const names[] = { "dl-alloc", "dl-punch", "dl-write" };
	unsigned int i;

	fd_h = rpc_connect(port, 5000);
	ok(fd_h >= 0 && h_session(), "%s: H: a session with a back channel", tag);
	for (i = 0; i < 3; i++) {
		struct stateid4 dsid;
		struct nfs_argop4 op;
		struct v4_fh fh;
		struct v4_res r;
		unsigned int before;
		long st;
		int f = mkfile(names[i], 0);

		fill(f, 0, 64 * KIB);
		close(f);
		ok(h_deleg(names[i], &fh, &dsid), "%s: H holds a read delegation of %s", tag,
		   names[i]);
		before = h_recalls;
		memset(&op, 0, sizeof(op));
		if (i == 2)
			v4op_write(&op, &anon, 0, UNSTABLE4, "w", 1);
		v4_res_init(&r);
		st = i == 2 ? one_op(&fh, &op, &r) : falloc_op(&fh, &anon, 4096, 4096, i == 1);
		ok(st == NFS4ERR_DELAY, "%s: %s with the anonymous stateid: DELAY (%ld)", tag,
		   i == 0 ? "ALLOCATE" : i == 1 ? "DEALLOCATE" : "WRITE", st);
		ok(h_wait_cb(5000) && h_recalls == before + 1,
		   "%s: the CB_RECALL reaches H, answered", tag);
		ok(h_delegreturn(&fh, &dsid) == NFS4_OK, "%s: H returns it", tag);
		st = i == 2 ? one_op(&fh, &op, &r) : falloc_op(&fh, &anon, 4096, 4096, i == 1);
		ok(st == NFS4_OK, "%s: then the same call: OK (%ld)", tag, st);
		v4_res_free(&r);
	}
	close(fd_h);
	fd_h = -1;
	memset(&hs, 0, sizeof(hs));
}

static bool setup(const char *d, const char *what)
{
	struct nfs_argop4 ops[2];
	struct v4_res r;
	bool good;

	dir = d;
	tag = what;
	if (v4_walk(fd, d, &dir_fh) != NFS4_OK)
		return false;
	if (sess.clientid)
		return true;
	if (v4_session_open(fd, "v42io", 1, 2u << 20, 2u << 20, 4096, 4, &sess) != NFS4_OK)
		return false;
	v4_res_init(&r);
	v4op_seq_next(&ops[0], &sess, 0, false);
	v4op_reclaim_complete(&ops[1], false);
	good = call42(ops, 2, &r) && r.status == NFS4_OK;
	v4_res_free(&r);
	return good;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* the server's CPU seconds so far: the run time of all its threads
 * (/proc/PID/task/TID/schedstat, nanoseconds) */
static double cpu_s(const char *pid)
{
	char p[512];
	unsigned long long ns, sum = 0;
	struct dirent *e;
	DIR *d;

	snprintf(p, sizeof(p), "/proc/%s/task", pid);
	d = opendir(p);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "/proc/%s/task/%s/schedstat", pid, e->d_name);
		f = fopen(p, "r");
		if (f && fscanf(f, "%llu", &ns) == 1)
			sum += ns;
		if (f)
			fclose(f);
	}
	closedir(d);
	return (double)sum / 1e9;
}

/* --bench: READ against READ_PLUS, 64 MiB files (all data, all hole,
 * 4 KiB stripes from data and from a hole), V42IO_BENCH_CALL bytes a
 * call (default 1 MiB), 5 runs each, the best. */
static int bench(const char *pid)
{
	static const char *const names[] = { "bench-data", "bench-hole", "bench-4d", "bench-4h" };
	const char *only = getenv("V42IO_BENCH_ONLY"), *call = getenv("V42IO_BENCH_CALL");
	const char *stripe = getenv("V42IO_BENCH_STRIPE");
	uint32_t per = call ? (uint32_t)strtoul(call, NULL, 0) : MIB;
	uint64_t sw = stripe ? strtoull(stripe, NULL, 0) : 0;
	unsigned int i, k, run;
	int f;

	if (per == 0 || per > MIB)
		per = MIB;
	for (i = 0; i < 4; i++) {
		struct stateid4 sid;
		struct v4_fh fh;

		/* one file only (V42IO_BENCH_ONLY=bench-data): a profile of
		 * the server per layout */
		if (only && strcmp(only, names[i]) != 0)
			continue;
		f = mkfile(names[i], i == 0 ? 0 : 64 * MIB);
		if (i == 0)
			fill(f, 0, 64 * MIB);
		else if (i > 1)
			stripes(f, 64 * MIB, sw ? sw : 4 * KIB, i == 2);
		close(f);
		/* READ_PLUS's hole map trusted from the first run */
		settle();
		if (!open_file(names[i], OPEN4_SHARE_ACCESS_READ, &fh, &sid))
			return 1;
		for (k = 0; k < 2; k++) {
			double best = 1e9, best_cpu = 0;

			for (run = 0; run < 5; run++) {
				double t0 = now_s(), c0 = cpu_s(pid), t;
				uint64_t off;

				for (off = 0; off < 64 * MIB; off += per) {
					struct nfs_argop4 op;
					struct v4_res r;

					memset(&op, 0, sizeof(op));
					if (k == 0) {
						v4op_read(&op, &sid, off, per);
					} else {
						op.argop = OP_READ_PLUS;
						op.u.opread_plus.rpa_stateid = sid;
						op.u.opread_plus.rpa_offset = off;
						op.u.opread_plus.rpa_count = per;
					}
					v4_res_init(&r);
					if (one_op(&fh, &op, &r) != NFS4_OK)
						return 1;
					v4_res_free(&r);
				}
				t = now_s() - t0;
				if (t < best) {
					best = t;
					best_cpu = cpu_s(pid) - c0;
				}
			}
			printf("# %-10s %-9s 64 MiB by %u: %.4f s (%.0f MiB/s), server CPU %.4f s\n",
			       names[i], k ? "READ_PLUS" : "READ", per, best, 64 / best, best_cpu);
		}
		unlink(path_of(names[i]));
	}
	return 0;
}

int main(int argc, char **argv)
{
	bool bench_mode = argc == 5 && strcmp(argv[1], "--bench") == 0;
	bool holemap_mode = argc == 4 && strcmp(argv[1], "--holemap") == 0;
	int i, first = bench_mode || holemap_mode ? 3 : 2;

	if (argc < 3) {
		fprintf(stderr, "usage: %s PORT DIR... | --holemap PORT DIR | --bench PORT DIR NFSXD_PID\n",
			argv[0]);
		return 2;
	}
	port = (uint16_t)atoi(argv[first - 1]);
	fd = rpc_connect(port, 5000);
	if (fd < 0) {
		printf("Bail out! cannot connect to 127.0.0.1:%s\n", argv[first - 1]);
		return 1;
	}
	if (bench_mode) {
		if (!setup(argv[3], "tmpfs"))
			return 1;
		return bench(argv[4]);
	}
	if (holemap_mode) {
		if (!setup(argv[3], "tmpfs"))
			return 1;
		test_hole_map(true);
		close(fd);
		return tap_done();
	}
	for (i = first; i < argc; i++) {
		if (!setup(argv[i], i == first ? "tmpfs" : "disk")) {
			printf("Bail out! no session or handle of %s\n", argv[i]);
			return 1;
		}
		test_seek();
		test_falloc();
		test_read_plus();
		test_hole_map(false);
		test_advise_notsupp();
		test_small_session();
		test_deleg();
	}
	close(fd);
	return tap_done();
}
