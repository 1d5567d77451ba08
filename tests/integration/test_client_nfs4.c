/* SPDX-License-Identifier: MIT */
/*
 * libnfsx over NFSv4.1 against nfsxd (started by run-client-nfs4.sh):
 * each call of the synchronous API checked against the file system
 * underneath (stat fields, a 1000-entry listing in several pages, a
 * multi-MiB file read back, a file written and committed, mkdir,
 * remove, a walk longer than one COMPOUND), the session (two contexts
 * in one process hold two client ids at once, both usable; a context
 * freed destroys its session and client id; a session or client id
 * destroyed behind a context's back is made again; the lease renewed
 * while a context is idle in its loop), the slot table (many
 * COMPOUNDs queued on a session of few slots), statistics per COMPOUND
 * and per operation; the typed asynchronous wrappers (OPEN, READs and
 * WRITEs queued beyond the slots and checked against the disk, a 1 MiB
 * WRITE, COMMIT, CLOSE, GETATTR, a refused handle's stand-in result,
 * statistics of whole COMPOUNDs per operation, a lost session and client
 * id made again without blocking while calls are queued).
 *
 * Usage: test_client_nfs4 PORT BASE
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "client/attr4.h"
#include "client/internal.h"
#include "client/nfs4.h"
#include "tap.h"

static uint16_t port;
static char rw[4096];

static struct nfsx_ctx *mk(unsigned slots)
{
	struct nfsx_opts o;
	char err[256];
	struct nfsx_ctx *c;

	nfsx_opts_init(&o);
	o.host = "127.0.0.1";
	o.port = port;
	o.timeo_ms = 10000;
	o.version = 4;
	o.slots = slots;
	c = nfsx_ctx_new(&o, err, sizeof(err));
	if (!c)
		printf("# nfsx_ctx_new: %s\n", err);
	return c;
}

static int64_t ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static void check_stat(struct nfsx_ctx *c, const char *rel)
{
	char path[8192];
	struct nfsx_attr a;
	struct stat st;
	int r;

	snprintf(path, sizeof(path), "%s/%s", rw, rel);
	r = nfsx_resolve(c, rel, NULL, &a);
	ok(r == 0 && stat(path, &st) == 0, "resolve %s: %s", rel, nfsx_strerror(r));
	ok(a.type == (S_ISDIR(st.st_mode) ? NF3DIR : NF3REG) && a.mode == (st.st_mode & 07777) &&
	   a.nlink == st.st_nlink && a.uid == st.st_uid && a.gid == st.st_gid &&
	   a.size == (uint64_t)st.st_size && a.used == (uint64_t)st.st_blocks * 512 &&
	   a.fileid == st.st_ino,
	   "%s: type %u mode %o nlink %u uid %u gid %u size %llu used %llu fileid %llu as on disk",
	   rel, a.type, a.mode, a.nlink, a.uid, a.gid, (unsigned long long)a.size,
	   (unsigned long long)a.used, (unsigned long long)a.fileid);
	ok(a.mtime_ns == ts_ns(&st.st_mtim) && a.atime_ns == ts_ns(&st.st_atim) &&
	   a.ctime_ns == ts_ns(&st.st_ctim), "%s: atime, mtime, ctime to the nanosecond", rel);
}

/* ---- listing ----------------------------------------------------------- */

struct listing {
	unsigned n, bad, dots;
	unsigned char seen[1000];
	bool attrs_ok;
};

static int count_entry(const struct nfsx_dirent *e, void *priv)
{
	struct listing *l = priv;
	unsigned i;

	if (!strcmp(e->name, ".") || !strcmp(e->name, "..")) {
		l->dots++;
		if (!e->has_attr || e->attr.type != NF3DIR || !e->fh.len)
			l->bad++;
		return 0;
	}
	if (sscanf(e->name, "f%3u", &i) != 1 || i >= 1000 || strlen(e->name) != 4 || l->seen[i]++) {
		l->bad++;
		return 0;
	}
	l->n++;
	if (l->attrs_ok && (!e->has_attr || e->attr.type != NF3REG || !e->fh.len || !e->fileid))
		l->attrs_ok = false;
	return 0;
}

static void test_listing(struct nfsx_ctx *c)
{
	const struct nfsx_op_stats *st;
	struct listing l = { .attrs_ok = true };
	struct nfsx_fh dir;
	uint64_t before;
	int r;

	r = nfsx_resolve(c, "many", &dir, NULL);
	ok(r == 0, "resolve many: %s", nfsx_strerror(r));
	st = nfsx_stats_get(c, &nfsx_nfs4_ops[OP_READDIR]);
	before = st ? st->ops : 0;
	r = nfsx_readdir(c, &dir, true, count_entry, &l);
	st = nfsx_stats_get(c, &nfsx_nfs4_ops[OP_READDIR]);
	ok(r == 0 && l.n == 1000 && l.bad == 0 && l.dots == 2,
	   "READDIR with attributes lists \".\", \"..\" and the 1000 names once each (%u, %u odd): %s",
	   l.n, l.bad, nfsx_strerror(r));
	ok(l.attrs_ok, "every entry has its attributes and handle");
	ok(st && st->ops - before >= 2, "the listing took several pages (%llu READDIRs)",
	   st ? (unsigned long long)(st->ops - before) : 0ull);
	memset(&l, 0, sizeof(l));
	r = nfsx_readdir(c, &dir, false, count_entry, &l);
	ok(r == 0 && l.n == 1000 && l.bad == 0, "READDIR without attributes: the same 1000 names (%u): %s",
	   l.n, nfsx_strerror(r));
}

/* ---- data -------------------------------------------------------------- */

static unsigned char *slurp(const char *path, size_t *len)
{
	struct stat st;
	unsigned char *b;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) < 0)
		return NULL;
	b = malloc((size_t)st.st_size + 1);
	if (b && read(fd, b, (size_t)st.st_size) != st.st_size) {
		free(b);
		b = NULL;
	}
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

static void test_read(struct nfsx_ctx *c)
{
	char path[8192];
	struct nfsx_fh fh;
	struct nfsx_attr a;
	uint32_t rtmax = 0, wtmax = 0;
	unsigned char *want, *got;
	size_t len, off = 0;
	bool eof = false;
	unsigned calls = 0;
	int r;

	snprintf(path, sizeof(path), "%s/big", rw);
	want = slurp(path, &len);
	r = nfsx_fsinfo(c, &c->root, &rtmax, &wtmax, NULL);
	ok(r == 0 && rtmax >= 4096 && wtmax >= 4096, "fsinfo: rtmax %u wtmax %u: %s", rtmax, wtmax,
	   nfsx_strerror(r));
	if (rtmax > 256 * 1024)
		rtmax = 256 * 1024; /* many READs, each its own OPEN and CLOSE */
	r = nfsx_resolve(c, "big", &fh, &a);
	ok(r == 0 && want && a.size == len, "big: %llu bytes", (unsigned long long)a.size);
	got = calloc(1, len + 1);
	while (r == 0 && !eof && off <= len) {
		uint32_t n = 0;

		r = nfsx_read(c, &fh, off, got + off, off + rtmax > len ? (uint32_t)(len - off + 1) : rtmax,
			      &n, &eof);
		off += n;
		calls++;
	}
	ok(r == 0 && eof && off == len && want && !memcmp(want, got, len),
	   "big read back in %u READs, byte for byte (%zu of %zu): %s", calls, off, len,
	   nfsx_strerror(r));
	free(want);
	free(got);
}

static void test_write(struct nfsx_ctx *c)
{
	char path[8192], data[200000];
	uint8_t verf[8], verf2[8];
	struct nfsx_fh dir, fh, d2;
	uint32_t done = 0, w = 0;
	unsigned char *back;
	struct stat st;
	size_t len = 0;
	unsigned i;
	int r;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 7 + i / 251);
	r = nfsx_resolve(c, "dir", &dir, NULL);
	ok(r == 0, "resolve dir");
	r = nfsx_create(c, &dir, "new.bin", 0640, false, &fh);
	snprintf(path, sizeof(path), "%s/dir/new.bin", rw);
	ok(r == 0 && stat(path, &st) == 0 && (st.st_mode & 07777) == 0640,
	   "create (OPEN4_CREATE) makes dir/new.bin mode 0640: %s", nfsx_strerror(r));
	while (r == 0 && done < sizeof(data)) {
		r = nfsx_write(c, &fh, done, data + done, 65536 < sizeof(data) - done ? 65536 :
			       (uint32_t)(sizeof(data) - done), UNSTABLE, &w, verf);
		done += w;
		if (w == 0)
			break;
	}
	ok(r == 0 && done == sizeof(data), "%u bytes written: %s", done, nfsx_strerror(r));
	r = nfsx_commit(c, &fh, verf2);
	ok(r == 0 && !memcmp(verf, verf2, 8), "COMMIT: the write verifier holds: %s",
	   nfsx_strerror(r));
	back = slurp(path, &len);
	ok(back && len == sizeof(data) && !memcmp(back, data, len), "the file on disk is what was written");
	free(back);
	r = nfsx_truncate(c, &fh, 1000);
	ok(r == 0 && stat(path, &st) == 0 && st.st_size == 1000, "truncate to 1000: %s",
	   nfsx_strerror(r));
	r = nfsx_create(c, &dir, "new.bin", 0600, true, NULL);
	ok(r == NFS4ERR_EXIST, "an exclusive create of an existing name: NFS4ERR_EXIST (%d)", r);
	r = nfsx_remove(c, &dir, "new.bin");
	ok(r == 0 && stat(path, &st) < 0 && errno == ENOENT, "remove: %s", nfsx_strerror(r));
	r = nfsx_mkdir(c, &dir, "sub", 0750, &d2);
	snprintf(path, sizeof(path), "%s/dir/sub", rw);
	ok(r == 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0750,
	   "mkdir dir/sub 0750: %s", nfsx_strerror(r));
	r = nfsx_rmdir(c, &dir, "sub");
	ok(r == 0 && stat(path, &st) < 0, "rmdir: %s", nfsx_strerror(r));
}

/* ---- sessions -------------------------------------------------------- */

struct done {
	int n, err, bad;
};

static void getattr_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct done *d = priv;
	const struct nfsx4_res *r = res;

	(void)ctx;
	d->n++;
	if (err)
		d->err++;
	else if (r->status != NFS4_OK || r->nops != 3)
		d->bad++;
}

static void raw_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	long *st = priv;

	(void)ctx;
	*st = err ? err : (long)((struct nfsx4_res *)res)->status;
}

static long raw(struct nfsx_ctx *c, const struct nfs_argop4 *ops, uint32_t n, bool session)
{
	long st = 1L << 40;
	int r = session ? nfsx4_call(c, ops, n, raw_cb, &st) : nfsx4_compound(c, 1, ops, n, raw_cb, &st);

	if (r < 0)
		return r;
	while (st == 1L << 40)
		nfsx_run_once(c, -1);
	return st;
}

static void test_sessions(void)
{
	struct nfsx_ctx *a = mk(0), *b = mk(4);
	struct nfs_argop4 ops[3];
	struct nfsx_attr at;
	struct done d = { 0 };
	uint32_t w[3] = { 1u << FATTR4_TYPE, 0, 0 };
	sessionid4 sid_a;
	clientid4 cid_a;
	int i, r;

	ok(a && b, "two contexts");
	if (!a || !b)
		return;
	r = nfsx_mount(a, rw, NULL);
	ok(r == 0, "context A mounts %s: %s", rw, nfsx_strerror(r));
	r = nfsx_mount(b, rw, NULL);
	ok(r == 0, "context B mounts it too: %s", nfsx_strerror(r));
	ok(nfsx4_clientid(a) && nfsx4_clientid(b) && nfsx4_clientid(a) != nfsx4_clientid(b),
	   "two client ids (%llx, %llx)", (unsigned long long)nfsx4_clientid(a),
	   (unsigned long long)nfsx4_clientid(b));
	ok(strcmp(a->v4->owner, b->v4->owner) != 0, "owners differ: %s / %s", a->v4->owner,
	   b->v4->owner);
	/* A colliding owner would have made B's EXCHANGE_ID end A's client. */
	r = nfsx_resolve(a, "dir/inner.txt", NULL, &at);
	ok(r == 0 && at.size == 6, "A's session still works after B's was made: %s",
	   nfsx_strerror(r));
	r = nfsx_resolve(b, "dir/inner.txt", NULL, &at);
	ok(r == 0 && at.size == 6, "and B's: %s", nfsx_strerror(r));

	ok(b->v4->nslots >= 1 && b->v4->nslots <= 4, "B asked for 4 slots, got %u", b->v4->nslots);
	memset(ops, 0, sizeof(ops));
	ops[0].argop = OP_PUTFH;
	ops[0].u.opputfh.object.data = b->root.data;
	ops[0].u.opputfh.object.len = b->root.len;
	ops[1].argop = OP_GETATTR;
	ops[1].u.opgetattr.attr_request.len = 3;
	ops[1].u.opgetattr.attr_request.val = w;
	for (i = 0; i < 200; i++)
		if (nfsx4_call(b, ops, 2, getattr_cb, &d) < 0)
			break;
	ok(i == 200, "200 COMPOUNDs queued on B's session");
	while (d.n < i)
		nfsx_run_once(b, -1);
	ok(d.err == 0 && d.bad == 0, "all 200 done through %u slots (%d errors, %d odd)",
	   b->v4->nslots, d.err, d.bad);
	{
		const struct nfsx_op_stats *cs = nfsx_stats_get(b, &nfsx_nfs4_compound);
		const struct nfsx_op_stats *ss = nfsx_stats_get(b, &nfsx_nfs4_ops[OP_SEQUENCE]);
		const struct nfsx_op_stats *gs = nfsx_stats_get(b, &nfsx_nfs4_ops[OP_GETATTR]);

		ok(cs && ss && gs && cs->ops >= 200 && ss->ops >= 200 && gs->ops >= 200 &&
		   !strcmp(gs->name, "GETATTR") && !strcmp(cs->name, "COMPOUND"),
		   "statistics: COMPOUND %llu, SEQUENCE %llu, GETATTR %llu",
		   cs ? (unsigned long long)cs->ops : 0ull, ss ? (unsigned long long)ss->ops : 0ull,
		   gs ? (unsigned long long)gs->ops : 0ull);
	}

	/* A freed context leaves neither session nor client id behind. */
	sid_a = a->v4->sid;
	cid_a = a->v4->clientid;
	nfsx_ctx_free(a);
	memset(ops, 0, sizeof(ops));
	ops[0].argop = OP_SEQUENCE;
	ops[0].u.opsequence.sa_sessionid = sid_a;
	ops[0].u.opsequence.sa_sequenceid = 1000;
	ops[1].argop = OP_PUTROOTFH;
	ok(raw(b, ops, 2, false) == NFS4ERR_BADSESSION, "A's session is destroyed (BADSESSION)");
	memset(ops, 0, sizeof(ops));
	ops[0].argop = OP_DESTROY_CLIENTID;
	ops[0].u.opdestroy_clientid.dca_clientid = cid_a;
	ok(raw(b, ops, 1, false) == NFS4ERR_STALE_CLIENTID, "A's client id is destroyed (STALE_CLIENTID)");
	memset(ops, 0, sizeof(ops));
	ops[0].argop = OP_PUTROOTFH;
	ok(raw(b, ops, 1, true) == NFS4_OK, "B's session goes on");

	/* Recovery: B's session destroyed under it, then its client id too. */
	{
		clientid4 cid_b = nfsx4_clientid(b);
		sessionid4 sid_b = b->v4->sid;

		memset(ops, 0, sizeof(ops));
		ops[0].argop = OP_DESTROY_SESSION;
		ops[0].u.opdestroy_session.dsa_sessionid = sid_b;
		ok(raw(b, ops, 1, false) == NFS4_OK, "B's session destroyed behind its back");
		r = nfsx_resolve(b, "dir/inner.txt", NULL, &at);
		ok(r == 0 && at.size == 6, "B's next call makes a new session and succeeds: %s",
		   nfsx_strerror(r));
		ok(nfsx4_clientid(b) == cid_b && memcmp(b->v4->sid.val, sid_b.val, 16) != 0,
		   "a new session of the same client id");
		sid_b = b->v4->sid;
		ops[0].u.opdestroy_session.dsa_sessionid = sid_b;
		ok(raw(b, ops, 1, false) == NFS4_OK, "B's session destroyed again");
		memset(ops, 0, sizeof(ops));
		ops[0].argop = OP_DESTROY_CLIENTID;
		ops[0].u.opdestroy_clientid.dca_clientid = cid_b;
		ok(raw(b, ops, 1, false) == NFS4_OK, "and its client id");
		r = nfsx_resolve(b, "dir/inner.txt", NULL, &at);
		ok(r == 0 && at.size == 6, "B's next call makes a new client id and session: %s",
		   nfsx_strerror(r));
		ok(nfsx4_clientid(b) && nfsx4_clientid(b) != cid_b, "a new client id (%llx)",
		   (unsigned long long)nfsx4_clientid(b));
	}
	/* Slot 0 moved on behind the table's back: by one (the table's next
	 * SEQUENCE is a retry of a call done and not cached), then by two
	 * (the table's next is misordered). */
	{
		uint32_t gen = b->v4->gen, base, k, steps;

		for (steps = 1; steps <= 2; steps++) {
			base = b->v4->slots[0].seq;
			for (k = 1; k <= steps; k++) {
				memset(ops, 0, sizeof(ops));
				ops[0].argop = OP_SEQUENCE;
				ops[0].u.opsequence.sa_sessionid = b->v4->sid;
				ops[0].u.opsequence.sa_sequenceid = base + k;
				ops[1].argop = OP_PUTROOTFH;
				ok(raw(b, ops, 2, false) == NFS4_OK, "slot 0 used outside the table (%u/%u)",
				   k, steps);
			}
			r = nfsx_resolve(b, "dir/inner.txt", NULL, &at);
			if (steps == 1)
				ok(r == 0 && b->v4->gen == gen,
				   "a sequence id the server had done: the slot moves on, the call goes through: %s",
				   nfsx_strerror(r));
			else
				ok(r == 0 && b->v4->gen == gen + 1,
				   "a slot out of step (SEQ_MISORDERED): a new session, the call goes through: %s",
				   nfsx_strerror(r));
		}
	}
	nfsx_ctx_free(b);
}

/* ---- typed asynchronous wrappers ---------------------------------------- */

#define AIO_MAX 48

/* One wrapper call's outcome, copied out in its callback. */
struct aio {
	int done, err;
	enum nfsstat4 st;
	uint32_t len;               /* READ data, WRITE count */
	bool eof;
	uint8_t verf[8];
	struct stateid4 sid;        /* OPEN */
	uint64_t size;              /* GETATTR */
	unsigned char *dst;         /* READ: copy the data here */
};

static void read_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct aio *a = priv;
	const struct READ4res *r = res;

	(void)ctx;
	a->done++;
	a->err = err;
	if (err)
		return;
	a->st = r->status;
	if (r->status != NFS4_OK)
		return;
	a->len = r->u.resok4.data.len;
	a->eof = r->u.resok4.eof;
	if (a->dst)
		memcpy(a->dst, r->u.resok4.data.data, a->len);
}

static void write_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct aio *a = priv;
	const struct WRITE4res *r = res;

	(void)ctx;
	a->done++;
	a->err = err;
	if (err)
		return;
	a->st = r->status;
	if (r->status != NFS4_OK)
		return;
	a->len = r->u.resok4.count;
	memcpy(a->verf, r->u.resok4.writeverf.val, 8);
}

static void commit_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct aio *a = priv;
	const struct COMMIT4res *r = res;

	(void)ctx;
	a->done++;
	a->err = err;
	if (!err && (a->st = r->status) == NFS4_OK)
		memcpy(a->verf, r->u.resok4.writeverf.val, 8);
}

static void open_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct aio *a = priv;
	const struct OPEN4res *r = res;

	(void)ctx;
	a->done++;
	a->err = err;
	if (!err && (a->st = r->status) == NFS4_OK)
		a->sid = r->u.resok4.stateid;
}

static void close_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct aio *a = priv;

	(void)ctx;
	a->done++;
	a->err = err;
	if (!err)
		a->st = ((const struct CLOSE4res *)res)->status;
}

static void getattr4_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct aio *a = priv;
	const struct GETATTR4res *r = res;
	struct nc4_attrs at;

	(void)ctx;
	a->done++;
	a->err = err;
	if (err || (a->st = r->status) != NFS4_OK)
		return;
	if (nc4_attr_decode(&r->u.resok4.obj_attributes, &at) == 0)
		a->size = at.a.size;
	else
		a->err = -EPROTO;
}

/* Run @c's loop until @n calls of @a are done (or 30 s passed). */
static bool aio_wait(struct nfsx_ctx *c, struct aio *a, int n)
{
	time_t end = time(NULL) + 30;
	int i, d;

	for (;;) {
		for (i = 0, d = 0; i < n; i++)
			d += a[i].done;
		if (d >= n)
			return true;
		if (time(NULL) > end)
			return false;
		nfsx_run_once(c, 100);
	}
}

static nfs_fh4 fh4(const struct nfsx_fh *fh)
{
	nfs_fh4 f = { .data = fh->data, .len = fh->len };

	return f;
}

static void test_async(void)
{
	struct nfsx_ctx *c = mk(4), *none = mk(0);
	static struct aio a[AIO_MAX];
	static struct nfsx4_read_args ra[AIO_MAX];
	static struct nfsx4_write_args wa[AIO_MAX];
	char path[8192];
	unsigned char *want = NULL, *got = NULL, *data = NULL;
	struct nfsx_fh big, dir, nf;
	struct nfsx4_open_args oa;
	struct nfsx4_close_args ca;
	struct nfsx4_commit_args cma;
	struct nfsx4_getattr_args ga;
	struct stateid4 sid;
	uint32_t w[3] = { 1u << FATTR4_SIZE, 0, 0 };
	size_t len = 0;
	const unsigned chunk = 64 << 10, nread = 40, nwrite = 8, wchunk = 128 << 10;
	const size_t wlen = nwrite * wchunk + (1u << 20);
	unsigned i, queued_ok = 0, max_pending = 0, bad = 0;
	int r;

	ok(c && none, "two contexts for the asynchronous wrappers");
	if (!c || !none)
		return;
	memset(&ra[0], 0, sizeof(ra[0]));
	r = nfsx4_read(none, &ra[0], read_cb, &a[0]);
	ok(r == -ENOTCONN, "a wrapper without a session: -ENOTCONN (%d)", r);
	nfsx_ctx_free(none);

	r = nfsx_mount(c, rw, NULL);
	ok(r == 0 && c->v4 && c->v4->nslots <= 4, "mount over a session of %u slots: %s",
	   c->v4 ? c->v4->nslots : 0, nfsx_strerror(r));
	snprintf(path, sizeof(path), "%s/big", rw);
	want = slurp(path, &len);
	r = nfsx_resolve(c, "big", &big, NULL);
	ok(r == 0 && want && len >= nread * chunk, "big resolved: %s", nfsx_strerror(r));
	if (r != 0 || !want)
		goto out;

	/* OPEN by handle, then READs with its stateid, all queued at once */
	memset(a, 0, sizeof(a));
	oa.fh = fh4(&big);
	oa.share_access = OPEN4_SHARE_ACCESS_READ;
	oa.share_deny = OPEN4_SHARE_DENY_NONE;
	r = nfsx4_open(c, &oa, open_cb, &a[0]);
	r = r == 0 && aio_wait(c, a, 1) ? 0 : -ETIMEDOUT;
	ok(r == 0 && a[0].err == 0 && a[0].st == NFS4_OK,
	   "nfsx4_open (CLAIM_FH): OPEN4res ok: %s", nfsx_strerror(a[0].err ? a[0].err : (int)a[0].st));
	sid = a[0].sid;
	got = calloc(1, len);
	memset(a, 0, sizeof(a));
	for (i = 0; i < nread; i++) {
		ra[i].fh = fh4(&big);
		ra[i].args.stateid = sid;
		ra[i].args.offset = (uint64_t)i * chunk;
		ra[i].args.count = chunk;
		a[i].dst = got + (size_t)i * chunk;
		queued_ok += nfsx4_read(c, &ra[i], read_cb, &a[i]) == 0;
		if (nfsx_pending(c) > max_pending)
			max_pending = nfsx_pending(c);
	}
	/* nothing ran yet: the calls beyond the slots wait in the session */
	ok(queued_ok == nread && max_pending <= c->v4->nslots && a[0].done == 0,
	   "%u READs queued without blocking, %u at most in the RPC layer (slots %u)", queued_ok,
	   max_pending, c->v4->nslots);
	ok(aio_wait(c, a, (int)nread), "all READs completed");
	for (i = 0; i < nread; i++)
		bad += a[i].done != 1 || a[i].err || a[i].st != NFS4_OK || a[i].len != chunk;
	ok(bad == 0 && !memcmp(got, want, (size_t)nread * chunk),
	   "each READ4res has its 64 KiB, byte for byte as on disk (%u bad)", bad);
	{
		const struct nfsx_op_stats *st = nfsx_stats_get(c, &nfsx_nfs4_ops[OP_READ]);
		const struct nfsx_op_stats *sq = nfsx_stats_get(c, &nfsx_nfs4_ops[OP_SEQUENCE]);

		ok(st && st->ops == nread && st->trans >= nread && st->errors == 0 && st->rtt_ns > 0 &&
		   st->exec_ns >= st->rtt_ns && st->bytes_recv >= (uint64_t)nread * chunk &&
		   st->bytes_sent > 0 && sq && sq->ops >= nread,
		   "statistics: READ counts its COMPOUNDs whole (%llu ops, %llu trans, %llu bytes in)",
		   st ? (unsigned long long)st->ops : 0ull, st ? (unsigned long long)st->trans : 0ull,
		   st ? (unsigned long long)st->bytes_recv : 0ull);
	}

	/* GETATTR and a handle the server refuses: the stand-in result */
	memset(a, 0, sizeof(a));
	ga.fh = fh4(&big);
	ga.args.attr_request.len = 3;
	ga.args.attr_request.val = w;
	r = nfsx4_getattr(c, &ga, getattr4_cb, &a[0]);
	r = r == 0 && aio_wait(c, a, 1) ? 0 : -ETIMEDOUT;
	ok(r == 0 && a[0].err == 0 && a[0].st == NFS4_OK && a[0].size == len,
	   "nfsx4_getattr: size %llu", (unsigned long long)a[0].size);
	{
		struct nfsx_fh junk = big;

		junk.data[junk.len - 1] ^= 0x5a;
		junk.data[0] ^= 0xa5;
		ra[0].fh = fh4(&junk);
		ra[0].args.stateid = sid;
		ra[0].args.offset = 0;
		ra[0].args.count = 4096;
		memset(a, 0, sizeof(a));
		r = nfsx4_read(c, &ra[0], read_cb, &a[0]);
		r = r == 0 && aio_wait(c, a, 1) ? 0 : -ETIMEDOUT;
		ok(r == 0 && a[0].done == 1 && a[0].err == 0 && a[0].st == NFS4ERR_BADHANDLE,
		   "PUTFH of a bad handle: the stand-in READ4res carries the COMPOUND's "
		   "NFS4ERR_BADHANDLE (%d)", (int)a[0].st);
	}
	ca.fh = fh4(&big);
	ca.stateid = sid;
	memset(a, 0, sizeof(a));
	r = nfsx4_close(c, &ca, close_cb, &a[0]);
	r = r == 0 && aio_wait(c, a, 1) ? 0 : -ETIMEDOUT;
	ok(r == 0 && a[0].err == 0 && a[0].st == NFS4_OK, "nfsx4_close");
	ra[0].fh = fh4(&big);
	memset(a, 0, sizeof(a));
	r = nfsx4_read(c, &ra[0], read_cb, &a[0]);
	r = r == 0 && aio_wait(c, a, 1) ? 0 : -ETIMEDOUT;
	ok(r == 0 && a[0].err == 0 && a[0].st != NFS4_OK,
	   "a READ with the closed stateid is refused (%d): the wrappers send the stateid given",
	   (int)a[0].st);

	/* WRITEs in flight, one of 1 MiB from the caller's buffer, COMMIT */
	r = nfsx_resolve(c, "dir", &dir, NULL);
	if (r == 0)
		r = nfsx_create(c, &dir, "async.bin", 0644, false, &nf);
	ok(r == 0, "create dir/async.bin: %s", nfsx_strerror(r));
	data = malloc(wlen);
	for (i = 0; data && i < wlen; i++)
		data[i] = (unsigned char)(i * 13 + i / 4093);
	memset(a, 0, sizeof(a));
	oa.fh = fh4(&nf);
	oa.share_access = OPEN4_SHARE_ACCESS_BOTH;
	r = nfsx4_open(c, &oa, open_cb, &a[0]);
	r = r == 0 && aio_wait(c, a, 1) ? 0 : -ETIMEDOUT;
	ok(r == 0 && a[0].st == NFS4_OK && data, "open it for writing");
	sid = a[0].sid;
	memset(a, 0, sizeof(a));
	for (i = 0; i <= nwrite; i++) {
		wa[i].fh = fh4(&nf);
		wa[i].args.stateid = sid;
		wa[i].args.offset = (uint64_t)i * wchunk;
		wa[i].args.stable = UNSTABLE4;
		wa[i].args.data.data = data + (size_t)i * wchunk;
		wa[i].args.data.len = i < nwrite ? wchunk : 1u << 20;
		r = nfsx4_write(c, &wa[i], write_cb, &a[i]);
		if (r)
			break;
	}
	ok(i == nwrite + 1 && aio_wait(c, a, (int)nwrite + 1), "%u WRITEs queued and done", i);
	for (i = 0, bad = 0; i <= nwrite; i++)
		bad += a[i].err || a[i].st != NFS4_OK || a[i].len != wa[i].args.data.len ||
		       memcmp(a[i].verf, a[0].verf, 8);
	ok(bad == 0, "each WRITE4res counts its bytes (the last 1 MiB), one verifier (%u bad)", bad);
	cma.fh = fh4(&nf);
	cma.args.offset = 0;
	cma.args.count = 0;
	memset(&a[AIO_MAX - 1], 0, sizeof(a[0]));
	r = nfsx4_commit(c, &cma, commit_cb, &a[AIO_MAX - 1]);
	r = r == 0 && aio_wait(c, &a[AIO_MAX - 1], 1) ? 0 : -ETIMEDOUT;
	ok(r == 0 && a[AIO_MAX - 1].st == NFS4_OK &&
	   !memcmp(a[AIO_MAX - 1].verf, a[0].verf, 8), "nfsx4_commit: the write verifier holds");
	ca.fh = fh4(&nf);
	ca.stateid = sid;
	memset(a, 0, sizeof(a));
	r = nfsx4_close(c, &ca, close_cb, &a[0]);
	r = r == 0 && aio_wait(c, a, 1) ? 0 : -ETIMEDOUT;
	ok(r == 0 && a[0].st == NFS4_OK, "and closed");
	{
		unsigned char *back;
		size_t blen = 0;

		snprintf(path, sizeof(path), "%s/dir/async.bin", rw);
		back = slurp(path, &blen);
		ok(back && data && blen == wlen && !memcmp(back, data, wlen),
		   "dir/async.bin on disk is what was written (%zu bytes)", blen);
		free(back);
	}
	nfsx_remove(c, &dir, "async.bin");

	/* Recovery without blocking: the session destroyed behind the
	 * context's back, then its client id too; GETATTRs in flight. */
	{
		struct nfs_argop4 op;
		clientid4 cid = nfsx4_clientid(c);
		uint32_t gen = c->v4->gen;
		int step;

		for (step = 0; step < 2; step++) {
			memset(&op, 0, sizeof(op));
			op.argop = OP_DESTROY_SESSION;
			op.u.opdestroy_session.dsa_sessionid = c->v4->sid;
			r = (int)raw(c, &op, 1, false);
			if (step == 1 && r == NFS4_OK) {
				memset(&op, 0, sizeof(op));
				op.argop = OP_DESTROY_CLIENTID;
				op.u.opdestroy_clientid.dca_clientid = cid;
				r = (int)raw(c, &op, 1, false);
			}
			ok(r == NFS4_OK, "%s destroyed behind the context's back",
			   step ? "session and client id" : "session");
			memset(a, 0, sizeof(a));
			for (i = 0, queued_ok = 0; i < 12; i++)
				queued_ok += nfsx4_getattr(c, &ga, getattr4_cb, &a[i]) == 0;
			ok(queued_ok == 12 && aio_wait(c, a, 12), "12 GETATTRs queued and done");
			for (i = 0, bad = 0; i < 12; i++)
				bad += a[i].done != 1 || a[i].err || a[i].st != NFS4_OK || a[i].size != len;
			ok(bad == 0 && c->v4->up && !c->v4->recovering && c->v4->gen == gen + 1 + step,
			   "all succeed on a new session made without blocking (%u bad, gen %u)", bad,
			   c->v4->gen);
			if (step == 0)
				ok(nfsx4_clientid(c) == cid, "of the same client id");
			else
				ok(nfsx4_clientid(c) && nfsx4_clientid(c) != cid,
				   "of a new client id (RECLAIM_COMPLETE done: an OPEN works)");
		}
		memset(a, 0, sizeof(a));
		oa.fh = fh4(&big);
		oa.share_access = OPEN4_SHARE_ACCESS_READ;
		r = nfsx4_open(c, &oa, open_cb, &a[0]);
		r = r == 0 && aio_wait(c, a, 1) ? 0 : -ETIMEDOUT;
		ok(r == 0 && a[0].st == NFS4_OK, "an OPEN on the new client: %d",
		   (int)a[0].st);
		ca.fh = fh4(&big);
		ca.stateid = a[0].sid;
		memset(a, 0, sizeof(a));
		nfsx4_close(c, &ca, close_cb, &a[0]);
		aio_wait(c, a, 1);
	}
out:
	free(want);
	free(got);
	free(data);
	nfsx_ctx_free(c);
}

/*
 * Lease renewal while idle: nfsxd runs with a 10 s lease and expires a
 * client without state after it. Context C runs its loop and nothing
 * else for 25 s; D, beside it, is not serviced at all.
 */
static void test_lease(void)
{
	struct nfsx_ctx *c = mk(0), *d = mk(0);
	const struct nfsx_op_stats *st;
	struct nfsx_attr at;
	uint32_t gen_c, gen_d;
	uint64_t seq0, end;
	int r;

	ok(c && d && nfsx_mount(c, rw, NULL) == 0 && nfsx_mount(d, rw, NULL) == 0,
	   "two more contexts, mounted");
	if (!c || !d)
		return;
	ok(c->v4->lease_s == 10, "the server's lease_time read: %u s", c->v4->lease_s);
	gen_c = c->v4->gen;
	gen_d = d->v4->gen;
	st = nfsx_stats_get(c, &nfsx_nfs4_ops[OP_SEQUENCE]);
	seq0 = st ? st->ops : 0;
	end = nc_now() + 25000000000ull;
	while (nc_now() < end)
		nfsx_run_once(c, 1000);
	st = nfsx_stats_get(c, &nfsx_nfs4_ops[OP_SEQUENCE]);
	ok(st && st->ops - seq0 >= 5 && st->ops - seq0 <= 12,
	   "25 s idle in the loop: %llu SEQUENCEs renewed the lease",
	   st ? (unsigned long long)(st->ops - seq0) : 0ull);
	r = nfsx_resolve(c, "dir/inner.txt", NULL, &at);
	ok(r == 0 && c->v4->gen == gen_c, "C's session lived through it (no new session): %s",
	   nfsx_strerror(r));
	r = nfsx_resolve(d, "dir/inner.txt", NULL, &at);
	ok(r == 0 && d->v4->gen == gen_d + 1,
	   "D, never serviced, lost its session and made a new one: %s", nfsx_strerror(r));
	nfsx_ctx_free(c);
	nfsx_ctx_free(d);
}

int main(int argc, char **argv)
{
	struct nfsx_ctx *c;
	struct nfsx_attr a;
	struct nfsx_fh fh;
	const char *rest = NULL;
	int r;

	if (argc != 3) {
		fprintf(stderr, "usage: %s PORT BASE\n", argv[0]);
		return 2;
	}
	port = (uint16_t)atoi(argv[1]);
	snprintf(rw, sizeof(rw), "%s/rw", argv[2]);

	c = mk(0);
	ok(c != NULL, "context");
	if (!c)
		return tap_done();
	{
		char deep[8192];
		struct nfsx_fh exp;

		snprintf(deep, sizeof(deep), "%s/dir/new/file", rw);
		r = nfsx_mount_path(c, deep, &fh, &rest);
		ok(r == 0 && rest && !strcmp(rest, "dir/new/file"),
		   "mount_path: the export is where the fsid changes, rest %s: %s",
		   rest ? rest : "(null)", nfsx_strerror(r));
		r = nfsx_mount(c, rw, &exp);
		ok(r == 0 && exp.len == fh.len && !memcmp(exp.data, fh.data, fh.len),
		   "mount %s (PUTROOTFH + LOOKUPs): the same root: %s", rw, nfsx_strerror(r));
	}
	check_stat(c, "dir/inner.txt");
	check_stat(c, "dir");
	check_stat(c, "big");
	r = nfsx_resolve(c, "deep/a/b/c/d/e/f/g/h/i/j/k/l/leaf", &fh, &a);
	ok(r == 0 && a.size == 5, "a walk of 14 names over two COMPOUNDs: %s", nfsx_strerror(r));
	{
		const struct nfsx_op_stats *st = nfsx_stats_get(c, &nfsx_nfs4_ops[OP_LOOKUP]);
		const struct nfsx_op_stats *ps = nfsx_stats_get(c, &nfsx_nfs4_ops[OP_PUTFH]);
		uint64_t errs = st ? st->errors : 0, perrs = ps ? ps->errors : 0;

		r = nfsx_resolve(c, "dir/none", &fh, &a);
		ok(r == NFS4ERR_NOENT, "a missing name: NFS4ERR_NOENT (%d)", r);
		st = nfsx_stats_get(c, &nfsx_nfs4_ops[OP_LOOKUP]);
		ps = nfsx_stats_get(c, &nfsx_nfs4_ops[OP_PUTFH]);
		ok(st && st->errors == errs + 1 && ps && ps->errors == perrs,
		   "  one LOOKUP error counted, none for the PUTFH before it "
		   "(LOOKUP %" PRIu64 " -> %" PRIu64 ", PUTFH %" PRIu64 " -> %" PRIu64 ")",
		   errs, st ? st->errors : 0, perrs, ps ? ps->errors : 0);
	}
	r = nfsx_lookup(c, &c->root, "dir", &fh, &a);
	ok(r == 0 && a.type == NF3DIR, "lookup dir: %s", nfsx_strerror(r));
	test_listing(c);
	test_read(c);
	test_write(c);
	{
		const struct nfsx_op_stats *o = nfsx_stats_get(c, &nfsx_nfs4_ops[OP_OPEN]);
		const struct nfsx_op_stats *cl = nfsx_stats_get(c, &nfsx_nfs4_ops[OP_CLOSE]);

		/* every OPEN result but the exclusive create's NFS4ERR_EXIST */
		ok(o && cl && o->ops == cl->ops + 1 && o->ops > 20, "each OPEN was closed (%llu, %llu)",
		   o ? (unsigned long long)o->ops : 0ull, cl ? (unsigned long long)cl->ops : 0ull);
	}
	r = nfsx_umount(c);
	ok(r == 0 && !c->mounted && nfsx_resolve(c, "dir", NULL, NULL) == -ENOTCONN,
	   "umount: nothing mounted any more: %s", nfsx_strerror(r));
	nfsx_ctx_free(c);
	test_sessions();
	test_async();
	test_lease();
	return tap_done();
}
