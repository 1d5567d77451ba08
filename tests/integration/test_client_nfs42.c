/* SPDX-License-Identifier: MIT */
/*
 * libnfsx over NFSv4.2 against a server started by run-client-nfs42.sh,
 * each result checked against the exported directory on disk:
 * - sessions of minor version 2 (asked, and by version 4 = the
 *   highest), NFSv4.1's operations inside them (the sync API's lookup,
 *   read and write, compared with the disk), a 4.2 operation refused
 *   with -EOPNOTSUPP on a 4.1 session;
 * - READ_PLUS of a sparse file in 256 KiB pieces: the buffer equals the
 *   file's bytes read directly, and the hole bytes reported are those
 *   lseek(SEEK_HOLE/SEEK_DATA) finds on disk (or, for a server that
 *   answers holes as data, zero: said per server);
 * - SEEK of data and holes as lseek(2) finds them; ALLOCATE (blocks
 *   on disk); DEALLOCATE (zeros and fewer blocks on disk); CLONE (the
 *   bytes, where the filesystem clones: FICLONE tried locally); COPY
 *   (the count and the bytes); SETXATTR, GETXATTR, LISTXATTRS,
 *   REMOVEXATTR (getxattr(2) of "user.NAME" on disk);
 * - each counted in its operation's statistics.
 * What each server answers is its row of expect[] below: an operation
 * it does not do must answer exactly NFS4ERR_NOTSUPP, and its data
 * checks are then TAP SKIPs that say why.
 *
 * Usage: test_client_nfs42 PORT DISKDIR MOUNTPATH SERVER
 * SERVER: ganesha, nfsxd (every operation expected to work).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "client/internal.h"
#include "client/nfs4.h"
#include "tap.h"

/* The next TAP number, for a SKIP line printed by hand. */
static unsigned tap_next(void)
{
	return (unsigned)++tap__n;
}

static uint16_t port;
static const char *disk, *mpath, *server;

enum { X_RP, X_SEEK, X_ALLOC, X_DEALLOC, X_CLONE, X_COPY, X_XATTR, X_N };
static const char *const xname[X_N] = { "READ_PLUS", "SEEK", "ALLOCATE", "DEALLOCATE",
					"CLONE", "COPY", "xattrs" };
/* Does the server do it: 1 yes, 0 it answers NFS4ERR_NOTSUPP; for
 * READ_PLUS, RP_EMPTY: NFS4_OK with one DATA segment at offset 0 of 0
 * bytes and no eof, whatever the offset asked and the file (measured of
 * NFS-Ganesha 4.3 with FSAL VFS). */
static int does[X_N];
enum { RP_EMPTY = 2 };
/* READ_PLUS: does the server report holes as holes. */
static int rp_holes;

static struct nfsx_ctx *mk(unsigned minor)
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
	o.minor = minor;
	c = nfsx_ctx_new(&o, err, sizeof(err));
	if (!c)
		printf("# nfsx_ctx_new: %s\n", err);
	return c;
}

static const char *on_disk(const char *rel)
{
	static char path[2][8192];
	static int k;

	k ^= 1;
	snprintf(path[k], sizeof(path[k]), "%s/%s", disk, rel);
	return path[k];
}

static nfs_fh4 fh4(const struct nfsx_fh *fh)
{
	nfs_fh4 f = { .data = fh->data, .len = fh->len };

	return f;
}

/* One wrapper's outcome; @buf/@off/@count for READ_PLUS. */
struct res {
	int done, err, fill;
	enum nfsstat4 st;
	union {
		struct SEEK4res seek;
		struct COPY4res copy;
		struct OPEN4res open;
	} u;
	uint8_t *buf;
	uint64_t off;
	uint32_t count;
	struct nfsx4_read_plus_out rp;
	struct read_plus_content seg0;     /* READ_PLUS: its first segment */
	char text[1024];
	uint32_t text_len;
};

static void res_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct res *r = priv;
	const struct nfs_resop4 *op;

	(void)ctx;
	r->done++;
	r->err = err;
	if (err)
		return;
	r->st = *(const enum nfsstat4 *)res;
	op = (const struct nfs_resop4 *)((const char *)res - offsetof(struct nfs_resop4, u));
	memcpy(&r->u, res, sizeof(r->u) < sizeof(op->u) ? sizeof(r->u) : sizeof(op->u));
}

static void rp_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct res *r = priv;

	const struct READ_PLUS4res *x = res;

	res_cb(ctx, err, res, priv);
	if (err)
		return;
	r->fill = nfsx4_read_plus_fill(res, r->off, r->count, r->buf, &r->rp);
	if (x->rp_status != NFS4_OK)
		return;
	if (x->u.rp_resok4.rpr_contents.len)
		r->seg0 = x->u.rp_resok4.rpr_contents.val[0];
	/* what the server sent, when it is not what was asked for */
	if (r->fill != 0 || r->rp.count == 0) {
		const struct read_plus_content *v = x->u.rp_resok4.rpr_contents.val;
		uint32_t i;

		printf("# READ_PLUS of %u at %llu: eof %d, %u segments\n", r->count,
		       (unsigned long long)r->off, x->u.rp_resok4.rpr_eof,
		       x->u.rp_resok4.rpr_contents.len);
		for (i = 0; i < x->u.rp_resok4.rpr_contents.len && i < 8; i++)
			printf("#   %s at %llu, %llu bytes\n",
			       v[i].rpc_content == NFS4_CONTENT_DATA ? "DATA" : "HOLE",
			       (unsigned long long)(v[i].rpc_content == NFS4_CONTENT_DATA ?
						    v[i].u.rpc_data.d_offset : v[i].u.rpc_hole.di_offset),
			       (unsigned long long)(v[i].rpc_content == NFS4_CONTENT_DATA ?
						    v[i].u.rpc_data.d_data.len : v[i].u.rpc_hole.di_length));
	}
}

static void getxattr_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct res *r = priv;
	const struct GETXATTR4res *x = res;

	res_cb(ctx, err, res, priv);
	if (!err && x->gxr_status == NFS4_OK && x->u.gxr_value.len < sizeof(r->text)) {
		memcpy(r->text, x->u.gxr_value.data, x->u.gxr_value.len);
		r->text_len = x->u.gxr_value.len;
	}
}

static void listxattrs_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct res *r = priv;
	const struct LISTXATTRS4res *x = res;
	uint32_t i;

	res_cb(ctx, err, res, priv);
	if (err || x->lxr_status != NFS4_OK)
		return;
	/* the names, each followed by '\n' */
	for (i = 0; i < x->u.lxr_value.lxr_names.len; i++) {
		const xattrkey4 *k = &x->u.lxr_value.lxr_names.val[i];

		if (r->text_len + k->len + 1 >= sizeof(r->text))
			break;
		memcpy(r->text + r->text_len, k->data, k->len);
		r->text_len += k->len;
		r->text[r->text_len++] = '\n';
	}
	r->text[r->text_len] = '\0';
}

static bool wait_res(struct nfsx_ctx *c, int q, struct res *r)
{
	time_t end = time(NULL) + 30;

	if (q != 0) {
		printf("# queueing failed: %s\n", nfsx_strerror(q));
		return false;
	}
	while (!r->done && time(NULL) <= end)
		nfsx_run_once(c, 100);
	if (r->done && r->err)
		printf("# call failed: %s\n", nfsx_strerror(r->err));
	return r->done == 1 && r->err == 0;
}

static uint64_t trans_of(struct nfsx_ctx *c, enum nfs_opnum4 op)
{
	const struct nfsx_op_stats *s = nfsx_stats_get(c, &nfsx_nfs4_ops[op]);

	return s ? s->trans : 0;
}

/*
 * The server's answer @st to operation @x: success where it does it,
 * exactly NFS4ERR_NOTSUPP where it does not. True when the data checks
 * that follow are to run.
 */
static bool answered(int x, bool w, enum nfsstat4 st, const char *what)
{
	if (does[x]) {
		ok(w && st == NFS4_OK, "%s: %s (%s)", server, what, nfsx_strerror((int)st));
		return w && st == NFS4_OK;
	}
	ok(w && st == NFS4ERR_NOTSUPP, "%s: %s answers NFS4ERR_NOTSUPP, as this server "
	   "does not do %s yet (got %s)", server, what, xname[x], nfsx_strerror((int)st));
	return false;
}

static void skip(int x, const char *what)
{
	printf("ok %u - %s # SKIP %s answers %s %s%s\n", tap_next(), what, server,
	       xname[x], does[x] == RP_EMPTY ? "with no byte" : "NFS4ERR_NOTSUPP",
	       !strcmp(server, "nfsxd") ?
	       " (its row in this test)" : "");
}

static struct stateid4 do_open(struct nfsx_ctx *c, const struct nfsx_fh *fh, uint32_t access)
{
	struct nfsx4_open_args a = { fh4(fh), access, OPEN4_SHARE_DENY_NONE };
	struct res r = { 0 };
	struct stateid4 none = { 0, { 0 } };

	if (!wait_res(c, nfsx4_open(c, &a, res_cb, &r), &r) || r.st != NFS4_OK) {
		printf("# OPEN failed: %s\n", nfsx_strerror((int)r.st));
		return none;
	}
	return r.u.open.u.resok4.stateid;
}

static void do_close(struct nfsx_ctx *c, const struct nfsx_fh *fh, const struct stateid4 *sid)
{
	struct nfsx4_close_args a = { fh4(fh), *sid };
	struct res r = { 0 };

	wait_res(c, nfsx4_close(c, &a, res_cb, &r), &r);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	uint8_t *b;

	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	b = malloc((size_t)st.st_size + 1);
	if (b && pread(fd, b, (size_t)st.st_size, 0) != st.st_size) {
		free(b);
		b = NULL;
	}
	*len = (size_t)st.st_size;
	close(fd);
	return b;
}

/* Bytes of the holes of @path below its size, as lseek finds them. */
static uint64_t disk_holes(const char *path)
{
	int fd = open(path, O_RDONLY);
	off_t size, pos = 0, h, d;
	uint64_t n = 0;

	if (fd < 0)
		return 0;
	size = lseek(fd, 0, SEEK_END);
	while (pos < size) {
		h = lseek(fd, pos, SEEK_HOLE);
		if (h < 0 || h >= size)
			break;
		d = lseek(fd, h, SEEK_DATA);
		if (d < 0)
			d = size;
		n += (uint64_t)(d - h);
		pos = d;
	}
	close(fd);
	return n;
}

static int lookup(struct nfsx_ctx *c, const struct nfsx_fh *root, const char *name,
		  struct nfsx_fh *fh)
{
	int r = nfsx_lookup(c, root, name, fh, NULL);

	if (r)
		printf("# lookup %s: %s\n", name, nfsx_strerror(r));
	return r;
}

/* ---- READ_PLUS ------------------------------------------------------ */

static void test_read_plus(struct nfsx_ctx *c, const struct nfsx_fh *root)
{
	struct nfsx_fh fh;
	size_t len = 0;
	uint8_t *want = slurp(on_disk("sparse.bin"), &len), *got;
	uint64_t holes = disk_holes(on_disk("sparse.bin")), hole_bytes = 0, off = 0, t0;
	struct stateid4 sid;
	bool all = true, first = true, eof = false;
	const uint32_t piece = 256u << 10;

	if (!want || lookup(c, root, "sparse.bin", &fh)) {
		ok(0, "sparse.bin on disk and over NFS");
		free(want);
		return;
	}
	got = calloc(1, len + piece);
	memset(got, 0x5a, len + piece); /* holes must be written as zeros */
	sid = do_open(c, &fh, OPEN4_SHARE_ACCESS_READ);
	t0 = trans_of(c, OP_READ_PLUS);
	while (off < len + 1 && !eof) {
		struct nfsx4_read_plus_args a = { fh4(&fh), { sid, off, piece } };
		struct res r = { 0 };
		bool w;

		r.buf = got + off;
		r.off = off;
		r.count = piece;
		w = wait_res(c, nfsx4_read_plus(c, &a, rp_cb, &r), &r);
		if (first && does[X_RP] == RP_EMPTY) {
			ok(w && r.st == NFS4_OK && r.fill == 0 && r.rp.segments == 1 &&
			   r.rp.count == 0 && !r.rp.eof && r.seg0.rpc_content == NFS4_CONTENT_DATA &&
			   r.seg0.u.rpc_data.d_offset == 0 && r.seg0.u.rpc_data.d_data.len == 0,
			   "%s: READ_PLUS of a sparse file at 0: NFS4_OK, one data segment at 0 "
			   "of 0 bytes, no eof, as measured of this server (%s, %u segments, "
			   "content %d, %u bytes)", server, nfsx_strerror((int)r.st), r.rp.segments,
			   (int)r.seg0.rpc_content, r.rp.count);
			all = false;
			break;
		}
		if (first) {
			first = false;
			if (!answered(X_RP, w, r.st, "READ_PLUS of a sparse file")) {
				all = false;
				break;
			}
		}
		if (!w || r.st != NFS4_OK || r.fill != 0 || (r.rp.count == 0 && !r.rp.eof)) {
			printf("# READ_PLUS at %llu: %s, fill %d, count %u\n",
			       (unsigned long long)off, nfsx_strerror((int)r.st), r.fill, r.rp.count);
			all = false;
			break;
		}
		hole_bytes += r.rp.hole_bytes;
		off += r.rp.count;
		eof = r.rp.eof;
	}
	do_close(c, &fh, &sid);
	if (does[X_RP] != 1) {
		skip(X_RP, "READ_PLUS: the file's bytes, holes as zeros");
		skip(X_RP, "READ_PLUS: hole bytes as on disk");
		skip(X_RP, "READ_PLUS counted in its statistics");
	} else {
		ok(all && eof && off == len && memcmp(got, want, len) == 0,
		   "%s: READ_PLUS of %zu bytes in 256 KiB pieces: the file's bytes, holes as "
		   "zeros (%llu read, eof %d)", server, len, (unsigned long long)off, eof);
		if (rp_holes)
			ok(hole_bytes == holes && holes >= (1u << 20),
			   "%s: hole bytes reported %llu, lseek on disk finds %llu", server,
			   (unsigned long long)hole_bytes, (unsigned long long)holes);
		else
			ok(hole_bytes == 0 && holes >= (1u << 20),
			   "%s: hole bytes reported %llu: this server sends holes as data "
			   "(lseek on disk finds %llu)", server, (unsigned long long)hole_bytes,
			   (unsigned long long)holes);
		ok(trans_of(c, OP_READ_PLUS) - t0 >= 5, "READ_PLUS counted in its statistics (%llu)",
		   (unsigned long long)(trans_of(c, OP_READ_PLUS) - t0));
	}
	free(got);
	free(want);
}

/* READ_PLUS of a file without holes at 0 and at 64 KiB, for the record
 * of what a server answers (the bytes checked where it does READ_PLUS). */
static void test_read_plus_dense(struct nfsx_ctx *c, const struct nfsx_fh *root)
{
	static const uint64_t offs[] = { 0, 65536 };
	struct nfsx_fh fh;
	size_t len = 0;
	uint8_t *want = slurp(on_disk("src.bin"), &len), got[65536];
	struct stateid4 sid;
	unsigned i, good = 0;

	if (!want || lookup(c, root, "src.bin", &fh)) {
		ok(0, "src.bin for READ_PLUS");
		free(want);
		return;
	}
	sid = do_open(c, &fh, OPEN4_SHARE_ACCESS_READ);
	for (i = 0; i < 2; i++) {
		struct nfsx4_read_plus_args a = { fh4(&fh), { sid, offs[i], sizeof(got) } };
		struct res r = { 0 };
		bool w;

		r.buf = got;
		r.off = offs[i];
		r.count = sizeof(got);
		w = wait_res(c, nfsx4_read_plus(c, &a, rp_cb, &r), &r);
		if (w && r.st == NFS4_OK && r.fill == 0 && r.rp.count == sizeof(got) &&
		    r.rp.hole_bytes == 0 && !memcmp(got, want + offs[i], sizeof(got)))
			good |= 1u << i;
		else if (does[X_RP] == RP_EMPTY && w && r.st == NFS4_OK &&
			 r.seg0.rpc_content == NFS4_CONTENT_DATA &&
			 r.seg0.u.rpc_data.d_offset == 0 && r.seg0.u.rpc_data.d_data.len == 0 &&
			 (i == 0 ? r.fill == 0 && r.rp.segments == 1 : r.fill == -EPROTO))
			good |= 1u << i;
	}
	do_close(c, &fh, &sid);
	if (does[X_RP] == RP_EMPTY)
		ok(good == 3, "%s: READ_PLUS of a file without holes, 64 KiB at 0 and at 64 KiB: "
		   "one DATA segment at 0 of 0 bytes whatever the offset asked (at 64 KiB "
		   "nfsx4_read_plus_fill refuses it: -EPROTO), as measured of this server",
		   server);
	else if (does[X_RP])
		ok(good == 3, "%s: READ_PLUS of a file without holes, 64 KiB at 0 and at 64 KiB: "
		   "its bytes, no hole", server);
	else
		skip(X_RP, "READ_PLUS of a file without holes: its bytes");
	free(want);
}

/* The synchronous nfsx_read_plus: the same file in 1 MiB calls. */
static void test_read_plus_sync(struct nfsx_ctx *c, const struct nfsx_fh *root)
{
	struct nfsx_fh fh;
	size_t len = 0;
	uint8_t *want = slurp(on_disk("sparse.bin"), &len), *got;
	uint64_t holes = disk_holes(on_disk("sparse.bin")), hole_sum = 0, off = 0;
	uint32_t n = 0, h = 0;
	bool eof = false;
	int r = 0;

	if (!want || lookup(c, root, "sparse.bin", &fh)) {
		ok(0, "sparse.bin for nfsx_read_plus");
		free(want);
		return;
	}
	got = malloc(len + (1u << 20));
	memset(got, 0x5a, len + (1u << 20));
	while (!eof && off <= len) {
		r = nfsx_read_plus(c, &fh, off, got + off, 1u << 20, &n, &eof, &h);
		if (r || (n == 0 && !eof))
			break;
		off += n;
		hole_sum += h;
	}
	if (does[X_RP] == 1)
		ok(r == 0 && eof && off == len && !memcmp(got, want, len) &&
		   (rp_holes ? hole_sum == holes : hole_sum == 0),
		   "%s: nfsx_read_plus in 1 MiB calls: the file's bytes, %llu hole bytes (disk: %llu)",
		   server, (unsigned long long)hole_sum, (unsigned long long)holes);
	else if (does[X_RP] == RP_EMPTY)
		ok(r == 0 && off == 0 && n == 0 && !eof,
		   "%s: nfsx_read_plus gets no byte and no eof at 0, as READ_PLUS above (%s)",
		   server, nfsx_strerror(r));
	else
		ok(r == NFS4ERR_NOTSUPP && n == 0, "%s: nfsx_read_plus returns NFS4ERR_NOTSUPP (%s)",
		   server, nfsx_strerror(r));
	free(got);
	free(want);
}

/* ---- SEEK ----------------------------------------------------------- */

static void test_seek(struct nfsx_ctx *c, const struct nfsx_fh *root)
{
	static const struct { uint64_t from; enum data_content4 what; } q[] = {
		{ 0, NFS4_CONTENT_HOLE }, { 0, NFS4_CONTENT_DATA },
		{ 100000, NFS4_CONTENT_DATA }, { 100000, NFS4_CONTENT_HOLE },
	};
	struct nfsx_fh fh;
	struct stateid4 sid;
	int fd = open(on_disk("sparse.bin"), O_RDONLY);
	unsigned i, good = 0;
	bool run = true;

	if (fd < 0 || lookup(c, root, "sparse.bin", &fh)) {
		ok(0, "sparse.bin for SEEK");
		if (fd >= 0)
			close(fd);
		return;
	}
	sid = do_open(c, &fh, OPEN4_SHARE_ACCESS_READ);
	for (i = 0; i < sizeof(q) / sizeof(q[0]) && run; i++) {
		struct nfsx4_seek_args a = { fh4(&fh), { sid, q[i].from, q[i].what } };
		struct res r = { 0 };
		off_t want = lseek(fd, (off_t)q[i].from,
				   q[i].what == NFS4_CONTENT_DATA ? SEEK_DATA : SEEK_HOLE);
		bool w = wait_res(c, nfsx4_seek(c, &a, res_cb, &r), &r);

		if (i == 0 && !answered(X_SEEK, w, r.st, "SEEK of the first hole"))
			run = false;
		else if (w && r.st == NFS4_OK && r.u.seek.u.resok4.sr_offset == (uint64_t)want)
			good++;
		else
			printf("# SEEK %s from %llu: %s, %llu (lseek: %lld)\n",
			       q[i].what == NFS4_CONTENT_DATA ? "data" : "hole",
			       (unsigned long long)q[i].from, nfsx_strerror((int)r.st),
			       (unsigned long long)r.u.seek.u.resok4.sr_offset, (long long)want);
	}
	do_close(c, &fh, &sid);
	close(fd);
	if (run)
		ok(good == 4, "%s: SEEK of holes and data: the offsets lseek(2) finds (%u of 4)",
		   server, good);
	else
		skip(X_SEEK, "SEEK: the offsets lseek(2) finds");
}

/* ---- ALLOCATE, DEALLOCATE ----------------------------------------------- */

static void test_alloc(struct nfsx_ctx *c, const struct nfsx_fh *root)
{
	struct nfsx_fh fh;
	struct stateid4 sid;
	struct stat st0, st1;
	struct res r = { 0 };
	bool w;

	if (lookup(c, root, "alloc.bin", &fh) || stat(on_disk("alloc.bin"), &st0) < 0) {
		ok(0, "alloc.bin");
		return;
	}
	sid = do_open(c, &fh, OPEN4_SHARE_ACCESS_BOTH);
	{
		struct nfsx4_allocate_args a = { fh4(&fh), { sid, 0, 1u << 20 } };

		w = wait_res(c, nfsx4_allocate(c, &a, res_cb, &r), &r);
	}
	if (answered(X_ALLOC, w, r.st, "ALLOCATE of 1 MiB of a sparse file")) {
		stat(on_disk("alloc.bin"), &st1);
		ok((uint64_t)st1.st_blocks * 512 >= (1u << 20) && st0.st_blocks == 0 &&
		   st1.st_size == st0.st_size,
		   "%s: ALLOCATE: blocks on disk %lld -> %lld, size %lld", server,
		   (long long)st0.st_blocks, (long long)st1.st_blocks, (long long)st1.st_size);
	} else {
		skip(X_ALLOC, "ALLOCATE: blocks on disk");
	}
	do_close(c, &fh, &sid);

	if (lookup(c, root, "dealloc.bin", &fh) || stat(on_disk("dealloc.bin"), &st0) < 0) {
		ok(0, "dealloc.bin");
		return;
	}
	sid = do_open(c, &fh, OPEN4_SHARE_ACCESS_BOTH);
	memset(&r, 0, sizeof(r));
	{
		struct nfsx4_deallocate_args a = { fh4(&fh), { sid, 0, 512u << 10 } };

		w = wait_res(c, nfsx4_deallocate(c, &a, res_cb, &r), &r);
	}
	if (answered(X_DEALLOC, w, r.st, "DEALLOCATE of the first 512 KiB")) {
		size_t len = 0, i, zeros = 0;
		uint8_t *b = slurp(on_disk("dealloc.bin"), &len);

		for (i = 0; b && i < len && b[i] == 0; i++)
			zeros++;
		stat(on_disk("dealloc.bin"), &st1);
		ok(b && zeros == (512u << 10) && len == (1u << 20) && b[len - 1] == 'a' &&
		   st1.st_blocks < st0.st_blocks,
		   "%s: DEALLOCATE: %zu leading zeros on disk, the rest kept, blocks %lld -> %lld",
		   server, zeros, (long long)st0.st_blocks, (long long)st1.st_blocks);
		free(b);
	} else {
		skip(X_DEALLOC, "DEALLOCATE: zeros and fewer blocks on disk");
	}
	do_close(c, &fh, &sid);
}

/* ---- CLONE, COPY ---------------------------------------------------------- */

struct copy_res {
	int calls, err;
	struct nfsx4_copy_done d;
};

static void copy_async_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct copy_res *r = priv;

	(void)ctx;
	r->calls++;
	r->err = err;
	if (!err)
		r->d = *(const struct nfsx4_copy_done *)res;
}

/* Does the exported filesystem clone (FICLONE of two scratch files)? */
static bool fs_clones(void)
{
	int a = open(on_disk(".clone-a"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	int b = open(on_disk(".clone-b"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	bool yes = a >= 0 && b >= 0 && write(a, "x", 1) == 1 && ioctl(b, FICLONE, a) == 0;

	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
	unlink(on_disk(".clone-a"));
	unlink(on_disk(".clone-b"));
	return yes;
}

static void test_clone_copy(struct nfsx_ctx *c, const struct nfsx_fh *root)
{
	struct nfsx_fh src, dst, dst2;
	struct stateid4 s1, s2, s3;
	struct res r = { 0 };
	size_t la = 0, lb = 0;
	uint8_t *a, *b;
	bool w, clones = fs_clones();

	if (lookup(c, root, "src.bin", &src) || lookup(c, root, "clone.bin", &dst) ||
	    lookup(c, root, "copy.bin", &dst2)) {
		ok(0, "src.bin, clone.bin, copy.bin");
		return;
	}
	s1 = do_open(c, &src, OPEN4_SHARE_ACCESS_READ);
	s2 = do_open(c, &dst, OPEN4_SHARE_ACCESS_BOTH);
	s3 = do_open(c, &dst2, OPEN4_SHARE_ACCESS_BOTH);
	{
		struct nfsx4_clone_args x = { fh4(&src), fh4(&dst), { s1, s2, 0, 0, 0 } };

		w = wait_res(c, nfsx4_clone(c, &x, res_cb, &r), &r);
	}
	/* CLONE needs a filesystem that clones: NOTSUPP is right on others */
	if (does[X_CLONE] && !clones) {
		ok(w && r.st == NFS4ERR_NOTSUPP,
		   "%s: CLONE on a filesystem that does not clone (FICLONE fails here): "
		   "NFS4ERR_NOTSUPP (%s)", server, nfsx_strerror((int)r.st));
		printf("ok %u - CLONE: the bytes # SKIP the exported filesystem does not clone\n",
		       tap_next());
	} else if (answered(X_CLONE, w, r.st, "CLONE of a whole file")) {
		a = slurp(on_disk("src.bin"), &la);
		b = slurp(on_disk("clone.bin"), &lb);
		ok(a && b && la == lb && memcmp(a, b, la) == 0, "%s: CLONE: the bytes on disk",
		   server);
		free(a);
		free(b);
	} else {
		skip(X_CLONE, "CLONE: the bytes on disk");
	}
	memset(&r, 0, sizeof(r));
	{
		struct nfsx4_copy_args x = { fh4(&src), fh4(&dst2), s1, s3, 0, 0, 3u << 19 };

		w = wait_res(c, nfsx4_copy(c, &x, res_cb, &r), &r);
	}
	if (answered(X_COPY, w, r.st, "COPY of 1.5 MiB (synchronous)")) {
		a = slurp(on_disk("src.bin"), &la);
		b = slurp(on_disk("copy.bin"), &lb);
		ok(a && b && r.u.copy.u.cr_resok4.cr_response.wr_count == la && la == lb &&
		   memcmp(a, b, la) == 0, "%s: COPY: count %llu, the bytes on disk", server,
		   (unsigned long long)r.u.copy.u.cr_resok4.cr_response.wr_count);
		free(a);
		free(b);
	} else {
		skip(X_COPY, "COPY: the count and the bytes on disk");
	}
	/* the asynchronous COPY: the same outcome, by the reply or CB_OFFLOAD
	 * (nfsxd's: by CB_OFFLOAD) */
	{
		struct nfsx4_copy_args x = { fh4(&src), fh4(&dst2), s1, s3, 0, 0, 3u << 19 };
		struct copy_res cr = { 0 };
		time_t end = time(NULL) + 30;

		if (nfsx4_copy_async(c, &x, copy_async_cb, &cr) == 0)
			while (!cr.calls && time(NULL) <= end)
				nfsx_run_once(c, 100);
		if (does[X_COPY]) {
			a = slurp(on_disk("src.bin"), &la);
			b = slurp(on_disk("copy.bin"), &lb);
			/* nfsxd copies asynchronously on a thread of its own
			 * (at most 16 at once): its result comes by CB_OFFLOAD */
			ok(cr.calls == 1 && cr.err == 0 && cr.d.status == NFS4_OK && a && b &&
			   cr.d.count == la && la == lb && !memcmp(a, b, la) &&
			   (strcmp(server, "nfsxd") != 0 || cr.d.offloaded),
			   "%s: asynchronous COPY: count %llu%s, the bytes on disk", server,
			   (unsigned long long)cr.d.count, cr.d.offloaded ? " by CB_OFFLOAD" : "");
			free(a);
			free(b);
		} else {
			ok(cr.calls == 1 && cr.err == 0 && cr.d.status == NFS4ERR_NOTSUPP,
			   "%s: asynchronous COPY answers NFS4ERR_NOTSUPP, through its callback (%s)",
			   server, nfsx_strerror((int)cr.d.status));
		}
	}
	do_close(c, &src, &s1);
	do_close(c, &dst, &s2);
	do_close(c, &dst2, &s3);
}

/* ---- extended attributes ------------------------------------------------ */

static void test_xattrs(struct nfsx_ctx *c, const struct nfsx_fh *root)
{
	struct nfsx_fh fh;
	struct res r = { 0 };
	xattrkey4 name = { (const uint8_t *)"nfsx.test", 9 };
	char v[64];
	ssize_t n;
	bool w;

	if (lookup(c, root, "xattr.txt", &fh)) {
		ok(0, "xattr.txt");
		return;
	}
	{
		struct nfsx4_setxattr_args a = { fh4(&fh), { SETXATTR4_CREATE, name,
				{ (const uint8_t *)"value 42", 8 } } };

		w = wait_res(c, nfsx4_setxattr(c, &a, res_cb, &r), &r);
	}
	if (!answered(X_XATTR, w, r.st, "SETXATTR user.nfsx.test")) {
		skip(X_XATTR, "SETXATTR, GETXATTR, LISTXATTRS, REMOVEXATTR: getxattr(2) on disk");
		return;
	}
	n = getxattr(on_disk("xattr.txt"), "user.nfsx.test", v, sizeof(v));
	ok(n == 8 && memcmp(v, "value 42", 8) == 0, "SETXATTR: getxattr(2) on disk reads it (%zd)",
	   n);
	memset(&r, 0, sizeof(r));
	{
		struct nfsx4_getxattr_args a = { fh4(&fh), name };

		w = wait_res(c, nfsx4_getxattr(c, &a, getxattr_cb, &r), &r);
	}
	ok(w && r.st == NFS4_OK && r.text_len == 8 && memcmp(r.text, "value 42", 8) == 0,
	   "GETXATTR reads the value back (%s)", nfsx_strerror((int)r.st));
	memset(&r, 0, sizeof(r));
	{
		struct nfsx4_listxattrs_args a = { fh4(&fh), { 0, 4096 } };

		w = wait_res(c, nfsx4_listxattrs(c, &a, listxattrs_cb, &r), &r);
	}
	ok(w && r.st == NFS4_OK && strstr(r.text, "nfsx.test\n") && !strstr(r.text, "user."),
	   "LISTXATTRS names it, without the user. prefix (%s)", nfsx_strerror((int)r.st));
	memset(&r, 0, sizeof(r));
	{
		struct nfsx4_removexattr_args a = { fh4(&fh), name };

		w = wait_res(c, nfsx4_removexattr(c, &a, res_cb, &r), &r);
	}
	n = getxattr(on_disk("xattr.txt"), "user.nfsx.test", v, sizeof(v));
	ok(w && r.st == NFS4_OK && n < 0 && errno == ENODATA,
	   "REMOVEXATTR: gone from the disk (%s)", nfsx_strerror((int)r.st));
	memset(&r, 0, sizeof(r));
	{
		struct nfsx4_getxattr_args a = { fh4(&fh), name };

		w = wait_res(c, nfsx4_getxattr(c, &a, getxattr_cb, &r), &r);
	}
	ok(w && r.st == NFS4ERR_NOXATTR, "GETXATTR of it then: NFS4ERR_NOXATTR (%s)",
	   nfsx_strerror((int)r.st));
}

/* ---- sessions and NFSv4.1's operations over 4.2 --------------------------- */

static void test_session(struct nfsx_ctx *c, const struct nfsx_fh *root)
{
	struct nfsx_ctx *c0 = mk(0), *c1 = mk(1);
	struct nfsx_fh fh, r1;
	uint8_t buf[64];
	uint32_t got = 0, wrote = 0;
	bool eof = false;
	size_t len = 0;
	uint8_t *disk_bytes;
	int r;

	ok(nfsx4_minor(c) == 2, "%s: a session of minor version 2 (%u)", server, nfsx4_minor(c));
	r = c0 ? nfsx_mount(c0, mpath, NULL) : -ENOMEM;
	ok(r == 0 && nfsx4_minor(c0) == 2, "%s: version 4 (the highest) is 4.2: %s, minor %u",
	   server, nfsx_strerror(r), c0 ? nfsx4_minor(c0) : 0);
	r = lookup(c, root, "small.txt", &fh);
	if (!r)
		r = nfsx_read(c, &fh, 0, buf, sizeof(buf), &got, &eof);
	ok(r == 0 && got == 6 && memcmp(buf, "small\n", 6) == 0 && eof,
	   "%s: READ over 4.2: the file's bytes (%s)", server, nfsx_strerror(r));
	r = r ? r : nfsx_write(c, &fh, 6, "more\n", 5, FILE_SYNC, &wrote, NULL);
	disk_bytes = slurp(on_disk("small.txt"), &len);
	ok(r == 0 && wrote == 5 && disk_bytes && len == 11 && !memcmp(disk_bytes, "small\nmore\n", 11),
	   "%s: WRITE over 4.2: on disk (%s)", server, nfsx_strerror(r));
	free(disk_bytes);
	/* a 4.1 session sends no 4.2 operation */
	r = c1 ? nfsx_mount(c1, mpath, &r1) : -ENOMEM;
	if (r == 0) {
		struct nfsx4_seek_args a = { fh4(&fh), { { 0, { 0 } }, 0, NFS4_CONTENT_DATA } };
		struct res x = { 0 };

		r = nfsx4_seek(c1, &a, res_cb, &x);
	}
	ok(nfsx4_minor(c1) == 1 && r == -EOPNOTSUPP && trans_of(c1, OP_SEEK) == 0,
	   "%s: SEEK on a 4.1 session: -EOPNOTSUPP, nothing sent (%s)", server, nfsx_strerror(r));
	if (c1) {
		uint32_t n = 1, h = 1;

		r = nfsx_read_plus(c1, &fh, 0, buf, sizeof(buf), &n, &eof, &h);
		ok(r == -EOPNOTSUPP && n == 0 && h == 0,
		   "%s: nfsx_read_plus on a 4.1 session: -EOPNOTSUPP (%s)", server, nfsx_strerror(r));
	}
	nfsx_ctx_free(c0);
	nfsx_ctx_free(c1);
}

int main(int argc, char **argv)
{
	struct nfsx_ctx *c;
	struct nfsx_fh root;
	int r, i;

	if (argc != 5) {
		fprintf(stderr, "usage: %s PORT DISKDIR MOUNTPATH SERVER\n", argv[0]);
		return 2;
	}
	port = (uint16_t)atoi(argv[1]);
	disk = argv[2];
	mpath = argv[3];
	server = argv[4];
	/* What each server does (the rows of the design note). */
	if (!strcmp(server, "nfsxd")) {
		/* nfsxd does every one (src/nfs4/io42_ops.c, xattr_ops.c,
		 * copy_ops.c); CLONE's bytes where the file system clones */
		for (i = 0; i < X_N; i++)
			does[i] = 1;
		rp_holes = 1;
	} else if (!strcmp(server, "ganesha")) {
		/* NFS-Ganesha 4.3, FSAL VFS (Debian 12), as measured */
		does[X_RP] = RP_EMPTY;
		does[X_SEEK] = 1;
		does[X_ALLOC] = 1;
		does[X_DEALLOC] = 1;
		does[X_CLONE] = 0;
		does[X_COPY] = 0;
		does[X_XATTR] = 0;
		rp_holes = 1;
	} else {
		fprintf(stderr, "unknown server %s\n", server);
		return 2;
	}

	c = mk(2);
	r = c ? nfsx_mount(c, mpath, &root) : -ENOMEM;
	ok(r == 0, "%s: mount %s over NFSv4.2: %s", server, mpath, nfsx_strerror(r));
	if (r)
		return tap_done();
	test_session(c, &root);
	test_read_plus(c, &root);
	test_read_plus_sync(c, &root);
	test_read_plus_dense(c, &root);
	test_seek(c, &root);
	test_alloc(c, &root);
	test_clone_copy(c, &root);
	test_xattrs(c, &root);
	{
		static const enum nfs_opnum4 ops42[] = { OP_READ_PLUS, OP_SEEK, OP_ALLOCATE,
			OP_DEALLOCATE, OP_CLONE, OP_COPY, OP_SETXATTR };
		unsigned k, counted = 0;

		for (k = 0; k < sizeof(ops42) / sizeof(ops42[0]); k++)
			if (trans_of(c, ops42[k]) >= 1 && nfsx_stats_get(c, &nfsx_nfs4_ops[ops42[k]])->ops >= 1)
				counted++;
			else
				printf("# %s not counted\n", nfsx_nfs4_ops[ops42[k]].name);
		ok(counted == 7, "%s: each 4.2 operation sent is counted under its own name "
		   "(%u of 7), whatever the answer", server, counted);
	}
	nfsx_ctx_free(c);
	return tap_done();
}
