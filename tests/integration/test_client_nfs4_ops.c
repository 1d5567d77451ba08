/* SPDX-License-Identifier: MIT */
/*
 * libnfsx's typed NFSv4.1 wrappers of attributes, open modes, locks and
 * names against nfsxd (started by run-client-nfs4-ops.sh), each result
 * checked against the exported tree on disk: SETATTR of size, mode,
 * owner and times (stat(2)); ACCESS of a read-only and a writable file
 * for a caller who owns neither; OPEN_DOWNGRADE from BOTH to READ, after
 * which a WRITE is refused with NFS4ERR_OPENMODE; LOCK with a new
 * lock-owner and then with its lock stateid, a conflict between two
 * contexts giving NFS4ERR_DENIED with the holder's range and owner,
 * LOCKT, LOCKU and the LOCK that then succeeds (the locks seen, or not,
 * by a local OFD lock of the file); RENAME, LINK (the same inode,
 * NFS4ERR_EXIST over a name), READLINK (readlink(2)'s target), LOOKUPP;
 * each counted under its operation's statistics. Then the synchronous
 * nfsx_setattr, nfsx_rename, nfsx_link and nfsx_readlink over NFSv4.1
 * and NFSv3 alike.
 *
 * Usage: test_client_nfs4_ops PORT BASE
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "client/internal.h"
#include "client/nfs4.h"
#include "local_lock.h"
#include "tap.h"

static uint16_t port;
static char rw[4096];

static struct nfsx_ctx *mk(unsigned version, uint32_t uid)
{
	struct nfsx_opts o;
	char err[256];
	struct nfsx_ctx *c;

	nfsx_opts_init(&o);
	o.host = "127.0.0.1";
	o.port = port;
	o.mount_port = port;
	o.timeo_ms = 10000;
	o.version = version;
	if (uid) {
		o.uid = o.gid = uid;
		o.ngids = 0;
	}
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
	snprintf(path[k], sizeof(path[k]), "%s/%s", rw, rel);
	return path[k];
}

static nfs_fh4 fh4(const struct nfsx_fh *fh)
{
	nfs_fh4 f = { .data = fh->data, .len = fh->len };

	return f;
}

static component4 comp(const char *s)
{
	component4 c = { (const uint8_t *)s, (uint32_t)strlen(s) };

	return c;
}

/* One wrapper's outcome: its result copied out of the reply. */
struct res {
	int done, err;
	enum nfsstat4 st;
	union {
		struct SETATTR4res setattr;
		struct ACCESS4res access;
		struct OPEN4res open;
		struct OPEN_DOWNGRADE4res downgrade;
		struct LOCK4res lock;
		struct LOCKT4res lockt;
		struct LOCKU4res locku;
		struct WRITE4res write;
		struct READ4res read;
		struct GETFH4res getfh;
	} u;
	char text[1024];           /* READLINK's target, DENIED's owner, GETFH's handle */
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
	/* every result starts with its status; the union is the result */
	r->st = *(const enum nfsstat4 *)res;
	op = (const struct nfs_resop4 *)((const char *)res - offsetof(struct nfs_resop4, u));
	memcpy(&r->u, res, sizeof(r->u) < sizeof(op->u) ? sizeof(r->u) : sizeof(op->u));
}

static void readlink_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct res *r = priv;
	const struct READLINK4res *x = res;

	res_cb(ctx, err, res, priv);
	if (!err && x->status == NFS4_OK && x->u.resok4.link.len < sizeof(r->text)) {
		memcpy(r->text, x->u.resok4.link.data, x->u.resok4.link.len);
		r->text_len = x->u.resok4.link.len;
	}
}

static void lock_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct res *r = priv;
	const struct LOCK4res *x = res;   /* LOCKT4res: the same layout for DENIED */

	res_cb(ctx, err, res, priv);
	if (!err && x->status == NFS4ERR_DENIED && x->u.denied.owner.owner.len < sizeof(r->text)) {
		memcpy(r->text, x->u.denied.owner.owner.data, x->u.denied.owner.owner.len);
		r->text_len = x->u.denied.owner.owner.len;
	}
}

static void getfh_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct res *r = priv;
	const struct GETFH4res *x = res;

	res_cb(ctx, err, res, priv);
	if (!err && x->status == NFS4_OK && x->u.resok4.object.len <= sizeof(r->text)) {
		memcpy(r->text, x->u.resok4.object.data, x->u.resok4.object.len);
		r->text_len = x->u.resok4.object.len;
	}
}

/* Wait for @r (queued when @q is 0), up to 30 s. */
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

static int64_t ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static struct stateid4 do_open(struct nfsx_ctx *c, const struct nfsx_fh *fh, uint32_t access,
			       const char *what)
{
	bool w;
	struct nfsx4_open_args a = { fh4(fh), access, OPEN4_SHARE_DENY_NONE };
	struct res r = { 0 };
	struct stateid4 none = { 0, { 0 } };

	w = wait_res(c, nfsx4_open(c, &a, res_cb, &r), &r);
	ok(w && r.st == NFS4_OK, "%s: OPEN (%d)",
	   what, (int)r.st);
	return r.st == NFS4_OK ? r.u.open.u.resok4.stateid : none;
}

static void do_close(struct nfsx_ctx *c, const struct nfsx_fh *fh, const struct stateid4 *sid)
{
	struct nfsx4_close_args a = { fh4(fh), *sid };
	struct res r = { 0 };

	wait_res(c, nfsx4_close(c, &a, res_cb, &r), &r);
}

static uint64_t op_count(struct nfsx_ctx *c, enum nfs_opnum4 op, uint64_t *trans)
{
	const struct nfsx_op_stats *s = nfsx_stats_get(c, &nfsx_nfs4_ops[op]);

	if (trans)
		*trans = s ? s->trans : 0;
	return s ? s->ops : 0;
}

/* ---- SETATTR ----------------------------------------------------------- */

static void test_setattr(struct nfsx_ctx *c)
{
	bool w;
	struct nfsx_fh fh;
	struct nfsx_sattr s = { 0 };
	struct nfsx4_sattr_buf b;
	struct nfsx4_setattr_args a;
	struct res r = { 0 };
	struct stat st;
	uint64_t trans;
	int e;

	e = nfsx_resolve(c, "set.txt", &fh, NULL);
	ok(e == 0, "resolve set.txt: %s", nfsx_strerror(e));
	memset(&a, 0, sizeof(a));   /* the anonymous stateid */
	a.fh = fh4(&fh);
	s.set = NFSX_SET_SIZE | NFSX_SET_MODE | NFSX_SET_UID | NFSX_SET_GID | NFSX_SET_ATIME |
		NFSX_SET_MTIME;
	s.size = 3;
	s.mode = 04751;
	s.uid = 4321;
	s.gid = 5432;
	s.atime_ns = 1234567890123456789;
	s.mtime_ns = 987654321000000001;
	e = nfsx4_sattr_encode(&s, &b, &a.args.obj_attributes);
	ok(e == 0 && a.args.obj_attributes.attrmask.len == 2 &&
	   b.mask[0] == 1u << FATTR4_SIZE &&
	   b.mask[1] == (1u << (FATTR4_MODE - 32) | 1u << (FATTR4_OWNER - 32) |
			 1u << (FATTR4_OWNER_GROUP - 32) | 1u << (FATTR4_TIME_ACCESS_SET - 32) |
			 1u << (FATTR4_TIME_MODIFY_SET - 32)) &&
	   a.args.obj_attributes.attr_vals.len == 8 + 4 + 8 + 8 + 16 + 16,
	   "the fattr4 of six attributes: bitmap and %u bytes of values",
	   a.args.obj_attributes.attr_vals.len);
	w = wait_res(c, nfsx4_setattr(c, &a, res_cb, &r), &r);
	ok(w && r.st == NFS4_OK,
	   "nfsx4_setattr: size, mode, owner, group, atime, mtime (%d)", (int)r.st);
	e = stat(on_disk("set.txt"), &st);
	ok(e == 0 && st.st_size == 3 && (st.st_mode & 07777) == 04751 &&
	   st.st_uid == 4321 && st.st_gid == 5432 && ts_ns(&st.st_atim) == s.atime_ns &&
	   ts_ns(&st.st_mtim) == s.mtime_ns,
	   "on disk: size %lld mode %o uid %u gid %u atime %lld mtime %lld", (long long)st.st_size,
	   st.st_mode & 07777, st.st_uid, st.st_gid, (long long)ts_ns(&st.st_atim),
	   (long long)ts_ns(&st.st_mtim));
	ok(op_count(c, OP_SETATTR, &trans) == 1 && trans == 1,
	   "SETATTR counted under its own descriptor");

	/* the server's clock, and a mode alone */
	s.set = NFSX_SET_MTIME | NFSX_SET_MTIME_NOW | NFSX_SET_MODE;
	s.mode = 0600;
	e = nfsx4_sattr_encode(&s, &b, &a.args.obj_attributes);
	memset(&r, 0, sizeof(r));
	w = wait_res(c, nfsx4_setattr(c, &a, res_cb, &r), &r);
	ok(e == 0 && w && r.st == NFS4_OK,
	   "nfsx4_setattr: mode and mtime to the server's time (%d)", (int)r.st);
	e = stat(on_disk("set.txt"), &st);
	ok(e == 0 && (st.st_mode & 07777) == 0600 &&
	   st.st_mtim.tv_sec >= time(NULL) - 60 && st.st_mtim.tv_sec <= time(NULL) + 1 &&
	   ts_ns(&st.st_atim) == 1234567890123456789, "on disk: mode 0600, mtime now, atime kept");

	s.set = NFSX_SET_MODE;
	s.mode = 010000;
	ok(nfsx4_sattr_encode(&s, &b, &a.args.obj_attributes) == -EINVAL,
	   "a mode over 07777 is refused by the encoder");

	/* a missing file's handle: the stand-in result */
	{
		struct nfsx_fh gone;

		e = nfsx_resolve(c, "gone.txt", &gone, NULL);
		if (e == 0)
			e = unlink(on_disk("gone.txt")) == 0 ? 0 : -errno;
		a.fh = fh4(&gone);
		s.set = NFSX_SET_SIZE;
		s.size = 0;
		nfsx4_sattr_encode(&s, &b, &a.args.obj_attributes);
		memset(&r, 0, sizeof(r));
		w = wait_res(c, nfsx4_setattr(c, &a, res_cb, &r), &r);
		ok(e == 0 && w &&
		   r.st == NFS4ERR_STALE, "SETATTR of a removed file: NFS4ERR_STALE (%d)", (int)r.st);
	}
}

/* ---- ACCESS ------------------------------------------------------------ */

static void test_access(void)
{
	bool w;
	struct nfsx_ctx *u = mk(4, 1000);
	const uint32_t want = ACCESS4_READ | ACCESS4_MODIFY | ACCESS4_EXTEND | ACCESS4_EXECUTE;
	struct nfsx4_access_args a;
	struct nfsx_fh fh;
	struct res r = { 0 };
	int e;

	e = u ? nfsx_mount(u, rw, NULL) : -ENOMEM;
	if (e == 0)
		e = nfsx_resolve(u, "ro.txt", &fh, NULL);
	ok(e == 0, "uid 1000: ro.txt resolved: %s", nfsx_strerror(e));
	if (e)
		goto out;
	a.fh = fh4(&fh);
	a.args.access = want;
	w = wait_res(u, nfsx4_access(u, &a, res_cb, &r), &r);
	ok(w && r.st == NFS4_OK &&
	   r.u.access.u.resok4.supported == want && r.u.access.u.resok4.access == ACCESS4_READ,
	   "ACCESS of a 0444 file not ours: READ only (supported %#x, access %#x)",
	   r.u.access.u.resok4.supported, r.u.access.u.resok4.access);
	e = nfsx_resolve(u, "open.txt", &fh, NULL);
	a.fh = fh4(&fh);
	memset(&r, 0, sizeof(r));
	w = wait_res(u, nfsx4_access(u, &a, res_cb, &r), &r);
	ok(e == 0 && w && r.st == NFS4_OK &&
	   r.u.access.u.resok4.access == (ACCESS4_READ | ACCESS4_MODIFY | ACCESS4_EXTEND),
	   "ACCESS of a 0666 file: READ, MODIFY, EXTEND, not EXECUTE (%#x)",
	   r.u.access.u.resok4.access);
	ok(op_count(u, OP_ACCESS, NULL) == 2, "ACCESS counted twice");
out:
	nfsx_ctx_free(u);
}

/* ---- OPEN_DOWNGRADE ---------------------------------------------------- */

static void test_downgrade(struct nfsx_ctx *c)
{
	bool w;
	struct nfsx_fh fh;
	struct stateid4 sid, down;
	struct nfsx4_write_args wr;
	struct nfsx4_read_args rd;
	struct nfsx4_open_downgrade_args d;
	struct res r = { 0 };
	char buf[16] = { 0 };
	ssize_t n;
	int fd, e;

	e = nfsx_resolve(c, "down.txt", &fh, NULL);
	ok(e == 0, "resolve down.txt: %s", nfsx_strerror(e));
	/* RFC 8881 18.18.3: the modes downgraded to are the union of some
	 * of the owner's OPENs: one for READ, then one for BOTH (the same
	 * open stateid, upgraded) */
	sid = do_open(c, &fh, OPEN4_SHARE_ACCESS_READ, "down.txt for READ");
	sid = do_open(c, &fh, OPEN4_SHARE_ACCESS_BOTH, "down.txt again for BOTH");
	memset(&wr, 0, sizeof(wr));
	wr.fh = fh4(&fh);
	wr.args.stateid = sid;
	wr.args.stable = FILE_SYNC4;
	wr.args.data.data = (const uint8_t *)"BOTH";
	wr.args.data.len = 4;
	w = wait_res(c, nfsx4_write(c, &wr, res_cb, &r), &r);
	ok(w && r.st == NFS4_OK,
	   "a WRITE with the BOTH stateid (%d)", (int)r.st);

	memset(&d, 0, sizeof(d));
	d.fh = fh4(&fh);
	d.args.open_stateid = sid;
	d.args.share_access = OPEN4_SHARE_ACCESS_READ;
	d.args.share_deny = OPEN4_SHARE_DENY_NONE;
	memset(&r, 0, sizeof(r));
	w = wait_res(c, nfsx4_open_downgrade(c, &d, res_cb, &r), &r);
	ok(w && r.st == NFS4_OK,
	   "nfsx4_open_downgrade to READ (%d)", (int)r.st);
	down = r.u.downgrade.u.resok4.open_stateid;
	ok(!memcmp(down.other, sid.other, sizeof(sid.other)) && down.seqid == sid.seqid + 1,
	   "the same open stateid, its seqid moved on (%u -> %u)", sid.seqid, down.seqid);

	memset(&rd, 0, sizeof(rd));
	rd.fh = fh4(&fh);
	rd.args.stateid = down;
	rd.args.count = 4;
	memset(&r, 0, sizeof(r));
	w = wait_res(c, nfsx4_read(c, &rd, res_cb, &r), &r);
	ok(w && r.st == NFS4_OK &&
	   r.u.read.u.resok4.data.len == 4, "a READ with it (%d)", (int)r.st);
	wr.args.stateid = down;
	wr.args.data.data = (const uint8_t *)"READ";
	memset(&r, 0, sizeof(r));
	w = wait_res(c, nfsx4_write(c, &wr, res_cb, &r), &r);
	ok(w && r.st == NFS4ERR_OPENMODE,
	   "a WRITE with it: NFS4ERR_OPENMODE (%d)", (int)r.st);
	fd = open(on_disk("down.txt"), O_RDONLY);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	ok(n == 8 && !strcmp(buf, "BOTHxxxx"),
	   "on disk: only the first WRITE landed (%s)", buf);
	if (fd >= 0)
		close(fd);

	/* downgrading to what was never opened is refused */
	d.args.open_stateid = down;
	d.args.share_access = OPEN4_SHARE_ACCESS_WRITE;
	memset(&r, 0, sizeof(r));
	w = wait_res(c, nfsx4_open_downgrade(c, &d, res_cb, &r), &r);
	ok(w && r.st == NFS4ERR_INVAL,
	   "OPEN_DOWNGRADE from READ to WRITE: NFS4ERR_INVAL (%d)", (int)r.st);
	do_close(c, &fh, &down);
}

/* ---- LOCK, LOCKT, LOCKU ------------------------------------------------ */

static void test_locks(struct nfsx_ctx *a)
{
	bool w;
	struct nfsx_ctx *b = mk(4, 0);
	const char *path = on_disk("lock.bin");
	struct nfsx_fh fh;
	struct stateid4 oa, ob, la = { 0, { 0 } }, lb;
	struct nfsx4_lock_args l;
	struct nfsx4_lockt_args t;
	struct nfsx4_locku_args u;
	struct res r = { 0 };
	int e;

	e = b ? nfsx_mount(b, rw, NULL) : -ENOMEM;
	if (e == 0)
		e = nfsx_resolve(a, "lock.bin", &fh, NULL);
	ok(e == 0, "a second context; lock.bin resolved: %s", nfsx_strerror(e));
	if (e)
		goto out;
	oa = do_open(a, &fh, OPEN4_SHARE_ACCESS_BOTH, "A opens lock.bin");
	ob = do_open(b, &fh, OPEN4_SHARE_ACCESS_BOTH, "B opens lock.bin");

	memset(&l, 0, sizeof(l));
	l.fh = fh4(&fh);
	l.locktype = WRITE_LT;
	l.offset = 100;
	l.length = 100;
	l.new_owner = true;
	l.stateid = oa;
	w = wait_res(a, nfsx4_lock(a, &l, lock_cb, &r), &r);
	ok(w && r.st == NFS4_OK,
	   "A: LOCK [100, 200) for writing, a new lock-owner from the open stateid (%d)",
	   (int)r.st);
	la = r.u.lock.u.resok4.lock_stateid;
	ok(local_lock_try(path, F_RDLCK, 150, 1) == -EAGAIN && local_lock_try(path, F_WRLCK, 200, 50) == 0,
	   "on the server: [100, 200) is locked, [200, 250) is not");

	l.offset = 300;
	l.length = NFS4_UINT64_MAX;
	l.locktype = READ_LT;
	l.new_owner = false;
	l.stateid = la;
	memset(&r, 0, sizeof(r));
	w = wait_res(a, nfsx4_lock(a, &l, lock_cb, &r), &r);
	ok(w && r.st == NFS4_OK &&
	   !memcmp(r.u.lock.u.resok4.lock_stateid.other, la.other, sizeof(la.other)),
	   "A: LOCK [300, end) for reading with the lock stateid (exist_lock_owner4) (%d)",
	   (int)r.st);
	la = r.u.lock.u.resok4.lock_stateid;
	ok(local_lock_try(path, F_WRLCK, 1000000, 1) == -EAGAIN &&
	   local_lock_try(path, F_RDLCK, 1000000, 1) == 0, "on the server: a read lock to the end");

	/* B's write lock over A's range */
	l.offset = 150;
	l.length = 100;
	l.locktype = WRITE_LT;
	l.new_owner = true;
	l.stateid = ob;
	memset(&r, 0, sizeof(r));
	w = wait_res(b, nfsx4_lock(b, &l, lock_cb, &r), &r);
	ok(w && r.st == NFS4ERR_DENIED,
	   "B: LOCK [150, 250): NFS4ERR_DENIED (%d)", (int)r.st);
	ok(r.st == NFS4ERR_DENIED && r.u.lock.u.denied.offset == 100 &&
	   r.u.lock.u.denied.length == 100 && r.u.lock.u.denied.locktype == WRITE_LT &&
	   r.text_len == strlen(a->v4->lock_owner) && !memcmp(r.text, a->v4->lock_owner, r.text_len),
	   "DENIED holds A's lock: [%llu, +%llu), type %d, owner %.*s",
	   (unsigned long long)r.u.lock.u.denied.offset,
	   (unsigned long long)r.u.lock.u.denied.length, (int)r.u.lock.u.denied.locktype,
	   (int)r.text_len, r.text);

	memset(&t, 0, sizeof(t));
	t.fh = fh4(&fh);
	t.locktype = WRITE_LT;
	t.offset = 0;
	t.length = 100;
	memset(&r, 0, sizeof(r));
	w = wait_res(b, nfsx4_lockt(b, &t, lock_cb, &r), &r);
	ok(w && r.st == NFS4_OK,
	   "B: LOCKT [0, 100) for writing: free (%d)", (int)r.st);
	t.offset = 120;
	t.length = 10;
	memset(&r, 0, sizeof(r));
	w = wait_res(b, nfsx4_lockt(b, &t, lock_cb, &r), &r);
	ok(w && r.st == NFS4ERR_DENIED &&
	   r.u.lockt.u.denied.offset == 100 && r.u.lockt.u.denied.length == 100 &&
	   r.text_len == strlen(a->v4->lock_owner),
	   "B: LOCKT [120, 130): DENIED with A's [%llu, +%llu) (%d)",
	   (unsigned long long)r.u.lockt.u.denied.offset,
	   (unsigned long long)r.u.lockt.u.denied.length, (int)r.st);
	t.locktype = READ_LT;
	t.offset = 400;
	memset(&r, 0, sizeof(r));
	w = wait_res(b, nfsx4_lockt(b, &t, lock_cb, &r), &r);
	ok(w && r.st == NFS4_OK,
	   "B: LOCKT for reading inside A's read lock: free (%d)", (int)r.st);
	memset(&r, 0, sizeof(r));
	w = wait_res(a, nfsx4_lockt(a, &t, lock_cb, &r), &r);
	ok(w && r.st == NFS4_OK,
	   "A: LOCKT over its own write lock: its own, so free (%d)", (int)r.st);

	memset(&u, 0, sizeof(u));
	u.fh = fh4(&fh);
	u.args.locktype = WRITE_LT;
	u.args.lock_stateid = la;
	u.args.offset = 100;
	u.args.length = 100;
	memset(&r, 0, sizeof(r));
	w = wait_res(a, nfsx4_locku(a, &u, res_cb, &r), &r);
	ok(w && r.st == NFS4_OK &&
	   r.u.locku.u.lock_stateid.seqid == la.seqid + 1,
	   "A: LOCKU [100, 200) (%d, seqid %u)", (int)r.st, r.u.locku.u.lock_stateid.seqid);
	ok(local_lock_try(path, F_WRLCK, 100, 100) == 0, "on the server: [100, 200) is free");

	memset(&r, 0, sizeof(r));
	w = wait_res(b, nfsx4_lock(b, &l, lock_cb, &r), &r);
	ok(w && r.st == NFS4_OK,
	   "B: the same LOCK [150, 250) now succeeds (%d)", (int)r.st);
	lb = r.u.lock.u.resok4.lock_stateid;
	ok(local_lock_try(path, F_RDLCK, 249, 1) == -EAGAIN, "on the server: B's lock is held");
	t.locktype = WRITE_LT;
	t.offset = 0;
	t.length = 160;
	memset(&r, 0, sizeof(r));
	w = wait_res(a, nfsx4_lockt(a, &t, lock_cb, &r), &r);
	ok(w && r.st == NFS4ERR_DENIED &&
	   r.u.lockt.u.denied.offset == 150 && r.text_len == strlen(b->v4->lock_owner) &&
	   !memcmp(r.text, b->v4->lock_owner, r.text_len) &&
	   strcmp(a->v4->lock_owner, b->v4->lock_owner) != 0,
	   "A: LOCKT now DENIED by B's lock, another lock-owner (%d)", (int)r.st);
	ok(op_count(a, OP_LOCK, NULL) == 2 && op_count(a, OP_LOCKU, NULL) == 1 &&
	   op_count(b, OP_LOCKT, NULL) == 3, "LOCK, LOCKU, LOCKT counted under their descriptors");

	u.args.lock_stateid = lb;
	u.args.offset = 150;
	memset(&r, 0, sizeof(r));
	wait_res(b, nfsx4_locku(b, &u, res_cb, &r), &r);
	do_close(a, &fh, &oa);
	do_close(b, &fh, &ob);
	ok(local_lock_try(path, F_WRLCK, 0, 0) == 0, "after LOCKU and CLOSE nothing is locked");
out:
	nfsx_ctx_free(b);
}

/* ---- RENAME, LINK, READLINK, LOOKUPP ----------------------------------- */

static void test_names(struct nfsx_ctx *c)
{
	bool w;
	struct nfsx_fh root, sub, file;
	struct nfsx4_rename_args rn;
	struct nfsx4_link_args ln;
	struct nfsx4_readlink_args rl;
	struct nfsx4_lookupp_args lp;
	struct stat st0, st;
	struct res r = { 0 };
	char target[256];
	ssize_t n;
	int e;

	e = nfsx_resolve(c, "", &root, NULL);
	if (e == 0)
		e = nfsx_resolve(c, "sub", &sub, NULL);
	ok(e == 0 && stat(on_disk("a.txt"), &st0) == 0, "root and sub resolved: %s",
	   nfsx_strerror(e));

	rn.src_dir = fh4(&root);
	rn.oldname = comp("a.txt");
	rn.dst_dir = fh4(&sub);
	rn.newname = comp("b.txt");
	w = wait_res(c, nfsx4_rename(c, &rn, res_cb, &r), &r);
	ok(w && r.st == NFS4_OK,
	   "nfsx4_rename a.txt -> sub/b.txt (%d)", (int)r.st);
	ok(stat(on_disk("a.txt"), &st) < 0 && errno == ENOENT && stat(on_disk("sub/b.txt"), &st) == 0 &&
	   st.st_ino == st0.st_ino, "on disk: a.txt gone, sub/b.txt the same inode");
	memset(&r, 0, sizeof(r));
	w = wait_res(c, nfsx4_rename(c, &rn, res_cb, &r), &r);
	ok(w && r.st == NFS4ERR_NOENT,
	   "RENAME of a missing name: NFS4ERR_NOENT (%d)", (int)r.st);

	e = nfsx_resolve(c, "c.txt", &file, NULL);
	ln.fh = fh4(&file);
	ln.dir = fh4(&sub);
	ln.newname = comp("c2.txt");
	memset(&r, 0, sizeof(r));
	w = wait_res(c, nfsx4_link(c, &ln, res_cb, &r), &r);
	ok(e == 0 && w && r.st == NFS4_OK,
	   "nfsx4_link c.txt as sub/c2.txt (%d)", (int)r.st);
	ok(stat(on_disk("c.txt"), &st0) == 0 && stat(on_disk("sub/c2.txt"), &st) == 0 &&
	   st.st_ino == st0.st_ino && st.st_nlink == 2, "on disk: one inode, two links");
	ln.newname = comp("b.txt");
	memset(&r, 0, sizeof(r));
	w = wait_res(c, nfsx4_link(c, &ln, res_cb, &r), &r);
	ok(w && r.st == NFS4ERR_EXIST,
	   "LINK over an existing name: NFS4ERR_EXIST (%d)", (int)r.st);
	ok(op_count(c, OP_RENAME, NULL) == 2 && op_count(c, OP_LINK, NULL) == 2 &&
	   op_count(c, OP_SAVEFH, NULL) == 4, "RENAME and LINK counted, each after a SAVEFH");

	e = nfsx_resolve(c, "lnk", &file, NULL);
	rl.fh = fh4(&file);
	n = readlink(on_disk("lnk"), target, sizeof(target));
	memset(&r, 0, sizeof(r));
	w = wait_res(c, nfsx4_readlink(c, &rl, readlink_cb, &r), &r);
	ok(e == 0 && n > 0 && w &&
	   r.st == NFS4_OK && r.text_len == (uint32_t)n && !memcmp(r.text, target, (size_t)n),
	   "nfsx4_readlink: \"%.*s\" as readlink(2) says", (int)r.text_len, r.text);
	e = nfsx_resolve(c, "c.txt", &file, NULL);
	rl.fh = fh4(&file);
	memset(&r, 0, sizeof(r));
	w = wait_res(c, nfsx4_readlink(c, &rl, readlink_cb, &r), &r);
	ok(e == 0 && w &&
	   r.st == NFS4ERR_INVAL, "READLINK of a regular file: NFS4ERR_INVAL (%d)", (int)r.st);

	lp.fh = fh4(&sub);
	memset(&r, 0, sizeof(r));
	w = wait_res(c, nfsx4_lookupp(c, &lp, getfh_cb, &r), &r);
	ok(w && r.st == NFS4_OK &&
	   r.text_len == root.len && !memcmp(r.text, root.data, root.len),
	   "nfsx4_lookupp of sub: the export root's handle (%d)", (int)r.st);
	lp.fh = fh4(&file);
	memset(&r, 0, sizeof(r));
	w = wait_res(c, nfsx4_lookupp(c, &lp, getfh_cb, &r), &r);
	ok(w && r.st == NFS4ERR_NOTDIR,
	   "LOOKUPP of a file: NFS4ERR_NOTDIR in the stand-in (%d)", (int)r.st);
	ok(op_count(c, OP_LOOKUPP, NULL) == 2 && op_count(c, OP_READLINK, NULL) == 2,
	   "LOOKUPP and READLINK counted");
}

/* ---- the synchronous API, NFSv4.1 and NFSv3 ----------------------------- */

static void test_sync(unsigned version)
{
	struct nfsx_ctx *c = mk(version, 0);
	char dir[64], p[128], q[128], target[256];
	struct nfsx_fh d, f;
	struct nfsx_sattr s = { 0 };
	struct stat st0, st;
	int e;

	snprintf(dir, sizeof(dir), "v%u", version);
	e = c ? nfsx_mount(c, rw, NULL) : -ENOMEM;
	if (e == 0)
		e = nfsx_mkdir(c, &c->root, dir, 0755, &d);
	if (e == 0)
		e = nfsx_create(c, &d, "f", 0644, false, &f);
	ok(e == 0, "NFSv%u: %s/f made: %s", version, dir, nfsx_strerror(e));
	if (e)
		goto out;
	s.set = NFSX_SET_MODE | NFSX_SET_SIZE | NFSX_SET_MTIME;
	s.mode = 0612;
	s.size = 12345;
	s.mtime_ns = 1500000000123456000;
	e = nfsx_setattr(c, &f, &s);
	snprintf(p, sizeof(p), "%s/f", dir);
	ok(e == 0 && stat(on_disk(p), &st) == 0 && (st.st_mode & 07777) == 0612 &&
	   st.st_size == 12345 && ts_ns(&st.st_mtim) == s.mtime_ns,
	   "NFSv%u: nfsx_setattr mode, size, mtime as on disk: %s", version, nfsx_strerror(e));
	snprintf(q, sizeof(q), "g%u", version);
	e = nfsx_rename(c, &d, "f", &c->root, q);
	ok(e == 0 && stat(on_disk(p), &st0) < 0 && stat(on_disk(q), &st0) == 0,
	   "NFSv%u: nfsx_rename %s -> %s: %s", version, p, q, nfsx_strerror(e));
	e = nfsx_link(c, &f, &d, "h");
	snprintf(p, sizeof(p), "%s/h", dir);
	ok(e == 0 && stat(on_disk(p), &st) == 0 && st.st_ino == st0.st_ino && st.st_nlink == 2,
	   "NFSv%u: nfsx_link: the same inode twice: %s", version, nfsx_strerror(e));
	e = nfsx_link(c, &f, &d, "h");
	ok(e == NFS3ERR_EXIST, "NFSv%u: nfsx_link over a name: EXIST (%s)", version,
	   nfsx_strerror(e));
	e = nfsx_rename(c, &d, "none", &d, "other");
	ok(e == NFS3ERR_NOENT, "NFSv%u: nfsx_rename of a missing name: NOENT (%s)", version,
	   nfsx_strerror(e));
	e = nfsx_resolve(c, "lnk", &f, NULL);
	if (e == 0)
		e = nfsx_readlink(c, &f, target, sizeof(target));
	ok(e == 0 && !strcmp(target, "a.txt"), "NFSv%u: nfsx_readlink: %s (%s)", version,
	   e ? "" : target, nfsx_strerror(e));
	e = nfsx_readlink(c, &f, target, 5);
	ok(e == -ENAMETOOLONG, "NFSv%u: a buffer too small: -ENAMETOOLONG (%d)", version, e);
out:
	nfsx_ctx_free(c);
}

int main(int argc, char **argv)
{
	struct nfsx_ctx *c;
	int r;

	if (argc != 3) {
		fprintf(stderr, "usage: %s PORT BASE\n", argv[0]);
		return 2;
	}
	port = (uint16_t)atoi(argv[1]);
	snprintf(rw, sizeof(rw), "%s/rw", argv[2]);

	c = mk(4, 0);
	r = c ? nfsx_mount(c, rw, NULL) : -ENOMEM;
	ok(r == 0, "mount %s over NFSv4.1: %s", rw, nfsx_strerror(r));
	if (r)
		return tap_done();
	test_setattr(c);
	test_access();
	test_downgrade(c);
	test_locks(c);
	test_names(c);
	nfsx_ctx_free(c);
	test_sync(4);
	test_sync(3);
	return tap_done();
}
