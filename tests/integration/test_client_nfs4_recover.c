/* SPDX-License-Identifier: MIT */
/*
 * libnfsx reclaiming its state after nfsxd is killed with SIGKILL and
 * started again (run-client-nfs4-recover.sh does the killing when asked
 * on its FIFO).
 *
 * A and D speak NFSv4.1, B and C 4.2 (the same session rules).
 *
 * Reclaim: context A opens data for writing and rd for reading, holds
 * a write lock on data's first 4 KiB; context B is only mounted (a
 * second client the server recorded). A writes 16 MiB of a pattern to
 * data in 64 KiB FILE_SYNC WRITEs, up to 8 in flight, paced, and asks
 * for the restart a quarter of the way (then slower, and holding at
 * three quarters until nfsxd is back). Checked: every WRITE succeeded
 * with the stateid A had before, several were in flight across the
 * restart (sent before the reclaim, answered after it), the
 * file on disk is the pattern byte for byte, rd reads back with its old
 * stateid, the counters say two opens and one lock reclaimed, a local
 * OFD lock of the range conflicts (nfsxd holds A's lock again), a new
 * OPEN by A waits with NFS4ERR_GRACE retries while B has not reclaimed
 * and goes through once B's recovery ends the grace period, B's LOCKT
 * then meets A's lock (DENIED), LOCKU and CLOSE with the old stateids
 * work.
 *
 * Lost state: context C opens and locks lost; nfsxd restarts without
 * its client record (it never heard of C: no grace, reclaims refused
 * with NO_GRACE). A WRITE with C's old stateid then fails with -EIO within
 * seconds, and nothing reaches the file; READ, LOCKU and CLOSE of the
 * lost state fail with -EIO too; a new OPEN of the file works.
 *
 * A lock lost, its open kept: context D opens and locks lk; after a
 * restart a local process takes the range before D reclaims. D's open is
 * reclaimed, its LOCK reclaim refused: a WRITE and a READ on the file
 * fail with -EIO (nothing written while the lock is not held), so does
 * LOCKU; CLOSE works.
 *
 * Usage: test_client_nfs4_recover PORT BASE CTL ACK
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "client/nfsx.h"
#include "local_lock.h"
#include "tap.h"

#define FILE_SIZE (16u << 20)
#define CHUNK (64u << 10)
#define QD 8
#define PACE_NS 4000000u           /* a WRITE submitted every 4 ms at most */
#define SLOW_PACE_NS 8000000u      /* ... every 8 ms between asking and the answer */
#define RD_SIZE (64u << 10)

static uint16_t port;
static char rw[4096];
static const char *ctl_path;
static int ackfd = -1;

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* A context of NFSv4.@minor (0: the highest both speak, 4.2 with nfsxd). */
static struct nfsx_ctx *mk(unsigned timeo_ms, unsigned minor)
{
	struct nfsx_opts o;
	char err[256];
	struct nfsx_ctx *c;

	nfsx_opts_init(&o);
	o.host = "127.0.0.1";
	o.port = port;
	o.mount_port = port;
	o.timeo_ms = timeo_ms;
	o.version = 4;
	o.minor = minor;
	c = nfsx_ctx_new(&o, err, sizeof(err));
	if (!c)
		printf("# nfsx_ctx_new: %s\n", err);
	return c;
}

static const char *on_disk(const char *rel)
{
	static char path[8192];

	snprintf(path, sizeof(path), "%s/%s", rw, rel);
	return path;
}

static uint8_t pat(uint64_t i)
{
	return (uint8_t)(((i * 2654435761u) >> 13) ^ (i >> 16));
}

static uint8_t pat_rd(uint64_t i)
{
	return (uint8_t)((i * 13 + 7) % 251);
}

static nfs_fh4 fh4(const struct nfsx_fh *fh)
{
	nfs_fh4 f = { .data = fh->data, .len = fh->len };

	return f;
}

/* ---- the runner's FIFOs ------------------------------------------------- */

static bool ask(const char *cmd)
{
	int fd = open(ctl_path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	char line[32];
	int n = snprintf(line, sizeof(line), "%s\n", cmd);
	bool w;

	if (fd < 0)
		return false;
	w = write(fd, line, (size_t)n) == n;
	close(fd);
	return w;
}

/* The runner's answer when there is one: 1 "ok", -1 anything else, 0 none yet. */
static int answer(int wait_ms)
{
	struct pollfd p = { ackfd, POLLIN, 0 };
	char buf[32];
	ssize_t n;

	if (poll(&p, 1, wait_ms) <= 0)
		return 0;
	n = read(ackfd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strncmp(buf, "ok", 2) == 0 ? 1 : -1;
}

/* ---- one call's outcome ----------------------------------------------- */

struct res {
	int done, err;
	enum nfsstat4 st;
	struct stateid4 sid;        /* OPEN's or LOCK's */
	uint8_t data[RD_SIZE];      /* READ's */
	uint32_t len;
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

static void open_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct res *r = priv;

	res_cb(ctx, err, res, priv);
	if (!err && r->st == NFS4_OK)
		r->sid = ((const struct OPEN4res *)res)->u.resok4.stateid;
}

static void lock_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct res *r = priv;

	res_cb(ctx, err, res, priv);
	if (!err && r->st == NFS4_OK)
		r->sid = ((const struct LOCK4res *)res)->u.resok4.lock_stateid;
}

static void read_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct res *r = priv;
	const struct READ4res *x = res;

	res_cb(ctx, err, res, priv);
	if (!err && x->status == NFS4_OK && x->u.resok4.data.len <= sizeof(r->data)) {
		memcpy(r->data, x->u.resok4.data.data, x->u.resok4.data.len);
		r->len = x->u.resok4.data.len;
	}
}

/* Wait for @r (queued when @q is 0, else @q is its error) up to @s seconds.
 * Return values: 0 with a reply, else the error (-ETIMEDOUT). */
static int wait_res(struct nfsx_ctx *c, int q, struct res *r, int s)
{
	uint64_t end = now_ns() + (uint64_t)s * 1000000000u;

	if (q != 0)
		return q;
	while (!r->done && now_ns() < end)
		nfsx_run_once(c, 50);
	if (!r->done)
		return -ETIMEDOUT;
	return r->err;
}

static int do_open(struct nfsx_ctx *c, const struct nfsx_fh *fh, uint32_t access,
		   struct stateid4 *sid)
{
	struct nfsx4_open_args a = { fh4(fh), access, OPEN4_SHARE_DENY_NONE };
	struct res r = { 0 };
	int e = wait_res(c, nfsx4_open(c, &a, open_cb, &r), &r, 30);

	*sid = r.sid;
	return e ? e : (int)r.st;
}

static int do_close(struct nfsx_ctx *c, const struct nfsx_fh *fh, const struct stateid4 *sid)
{
	struct nfsx4_close_args a = { fh4(fh), *sid };
	struct res r = { 0 };
	int e = wait_res(c, nfsx4_close(c, &a, res_cb, &r), &r, 30);

	return e ? e : (int)r.st;
}

static int do_lock(struct nfsx_ctx *c, const struct nfsx_fh *fh, const struct stateid4 *open_sid,
		   uint64_t off, uint64_t len, struct stateid4 *lock_sid)
{
	struct nfsx4_lock_args a = { fh4(fh), WRITE_LT, off, len, true, *open_sid };
	struct res r = { 0 };
	int e = wait_res(c, nfsx4_lock(c, &a, lock_cb, &r), &r, 30);

	*lock_sid = r.sid;
	return e ? e : (int)r.st;
}

static int do_locku(struct nfsx_ctx *c, const struct nfsx_fh *fh, const struct stateid4 *sid,
		    uint64_t off, uint64_t len)
{
	struct nfsx4_locku_args a;
	struct res r = { 0 };
	int e;

	memset(&a, 0, sizeof(a));
	a.fh = fh4(fh);
	a.args.locktype = WRITE_LT;
	a.args.lock_stateid = *sid;
	a.args.offset = off;
	a.args.length = len;
	e = wait_res(c, nfsx4_locku(c, &a, res_cb, &r), &r, 30);
	return e ? e : (int)r.st;
}

static int do_read(struct nfsx_ctx *c, const struct nfsx_fh *fh, const struct stateid4 *sid,
		   struct res *r)
{
	struct nfsx4_read_args a;

	memset(&a, 0, sizeof(a));
	memset(r, 0, sizeof(*r));
	a.fh = fh4(fh);
	a.args.stateid = *sid;
	a.args.count = RD_SIZE;
	int e = wait_res(c, nfsx4_read(c, &a, read_cb, r), r, 30);

	return e ? e : (int)r->st;
}

static int do_write(struct nfsx_ctx *c, const struct nfsx_fh *fh, const struct stateid4 *sid,
		    uint64_t off, const uint8_t *buf, uint32_t len)
{
	struct nfsx4_write_args a;
	struct res r = { 0 };
	int e;

	memset(&a, 0, sizeof(a));
	a.fh = fh4(fh);
	a.args.stateid = *sid;
	a.args.offset = off;
	a.args.stable = FILE_SYNC4;
	a.args.data.data = buf;
	a.args.data.len = len;
	e = wait_res(c, nfsx4_write(c, &a, res_cb, &r), &r, 30);
	return e ? e : (int)r.st;
}

static struct nfsx4_recover_stats rstats(struct nfsx_ctx *c)
{
	struct nfsx4_recover_stats st;

	nfsx4_recover_stats_get(c, &st);
	return st;
}

/* ---- the paced writer ----------------------------------------------- */

struct writer {
	struct nfsx_ctx *c;
	const struct nfsx_fh *fh;
	struct stateid4 sid;
	const uint8_t *buf;
	uint64_t next;               /* the offset of the next WRITE */
	unsigned inflight, ok, failed, crossed;
	int first_err;
	enum nfsstat4 first_st;
};

struct wreq {
	struct writer *w;
	uint64_t reclaims;           /* the context's reclaims when it was sent */
};

static void write_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct wreq *q = priv;
	struct writer *w = q->w;
	const struct WRITE4res *x = res;

	(void)ctx;
	w->inflight--;
	if (err || x->status != NFS4_OK || x->u.resok4.count != CHUNK) {
		if (!w->failed++) {
			w->first_err = err;
			w->first_st = err ? NFS4_OK : x->status;
		}
	} else {
		w->ok++;
		/* submitted before the reclaim, answered after it */
		if (rstats(ctx).reclaims > q->reclaims)
			w->crossed++;
	}
	free(q);
}

static bool submit(struct writer *w)
{
	struct nfsx4_write_args a;
	struct wreq *q = malloc(sizeof(*q));
	int r;

	if (!q)
		return false;
	q->w = w;
	q->reclaims = rstats(w->c).reclaims;
	memset(&a, 0, sizeof(a));
	a.fh = fh4(w->fh);
	a.args.stateid = w->sid;
	a.args.offset = w->next;
	a.args.stable = FILE_SYNC4;
	a.args.data.data = w->buf + w->next;
	a.args.data.len = CHUNK;
	r = nfsx4_write(w->c, &a, write_cb, q);
	if (r < 0) {
		free(q);
		if (!w->failed++)
			w->first_err = r;
	} else {
		w->inflight++;
	}
	w->next += CHUNK;
	return r == 0;
}

/* ---- reclaim ------------------------------------------------------------ */

static bool file_is(const char *path, const uint8_t *want, size_t len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *got = malloc(len + 1);
	size_t n = 0;
	bool same;

	if (!f || !got) {
		if (f)
			fclose(f);
		free(got);
		return false;
	}
	n = fread(got, 1, len + 1, f);
	fclose(f);
	same = n == len && memcmp(got, want, len) == 0;
	if (!same && n == len) {
		size_t i = 0;

		while (got[i] == want[i])
			i++;
		printf("#   first difference at byte %zu\n", i);
	} else if (!same) {
		printf("#   %zu bytes on disk, %zu expected\n", n, len);
	}
	free(got);
	return same;
}

static void test_reclaim(void)
{
	struct nfsx_ctx *a = mk(60000, 1), *b = mk(60000, 2);
	struct nfsx_fh root, data, rd, nw;
	struct stateid4 sd, sr, sn, lk;
	struct nfsx4_recover_stats st;
	struct writer w;
	struct res r;
	uint8_t *buf;
	uint64_t i, t0, end, k0 = 0, pace = PACE_NS;
	int e, acked = 0;
	FILE *f;

	e = a && b ? nfsx_mount(a, rw, &root) : -ENOMEM;
	if (!e)
		e = nfsx_mount(b, rw, NULL);
	ok(e == 0 && nfsx4_minor(a) == 1 && nfsx4_minor(b) == 2,
	   "two contexts mount %s, A over NFSv4.1, B over 4.2: %s", rw, nfsx_strerror(e));
	e = e ? e : nfsx_lookup(a, &root, "data", &data, NULL);
	e = e ? e : nfsx_lookup(a, &root, "rd", &rd, NULL);
	e = e ? e : nfsx_lookup(a, &root, "new", &nw, NULL);
	buf = malloc(FILE_SIZE);
	f = fopen(on_disk("rd"), "wb");
	for (i = 0; f && i < RD_SIZE; i++)
		fputc(pat_rd(i), f);
	if (!f || fclose(f) != 0 || !buf || e) {
		ok(0, "files looked up, rd written: %s", nfsx_strerror(e));
		goto out;
	}
	for (i = 0; i < FILE_SIZE; i++)
		buf[i] = pat(i);

	e = do_open(a, &data, OPEN4_SHARE_ACCESS_BOTH, &sd);
	ok(e == 0, "A opens data for reading and writing (%d)", e);
	e = e ? e : do_open(a, &rd, OPEN4_SHARE_ACCESS_READ, &sr);
	ok(e == 0, "A opens rd for reading (%d)", e);
	e = e ? e : do_lock(a, &data, &sd, 0, 4096, &lk);
	ok(e == 0, "A write-locks data's first 4 KiB (%d)", e);
	ok(local_lock_try(on_disk("data"), F_WRLCK, 0, 4096) == -EAGAIN,
	   "a local lock of that range conflicts");
	if (e)
		goto out;

	/* the writer, paced so that the restart falls in the middle */
	memset(&w, 0, sizeof(w));
	w.c = a;
	w.fh = &data;
	w.sid = sd;
	w.buf = buf;
	/*
	 * Paced from @t0 at @pace a WRITE, from the @k0-th on: slower once
	 * the restart is asked for (a loaded machine may take a while to
	 * kill), and none past three quarters before the answer, so that
	 * WRITEs are in flight when nfsxd dies and go on after it is back.
	 */
	t0 = now_ns();
	end = t0 + 60 * 1000000000ull;
	while ((w.next < FILE_SIZE || w.inflight) && now_ns() < end) {
		uint64_t k = w.next / CHUNK;

		if (w.next < FILE_SIZE && w.inflight < QD && now_ns() >= t0 + (k - k0) * pace &&
		    !(acked == -2 && w.next >= FILE_SIZE / 4 * 3))
			submit(&w);
		if (!acked && w.next >= FILE_SIZE / 4) {
			ok(ask("restart"), "asked for nfsxd to be killed and started again");
			acked = -2;  /* asked */
			t0 = now_ns();
			k0 = w.next / CHUNK;
			pace = SLOW_PACE_NS;
		}
		nfsx_run_once(a, 2);
		if (acked == -2 && (e = answer(0)) != 0) {
			acked = e;
			printf("# nfsxd back after %u WRITEs answered, %u in flight\n", w.ok,
			       w.inflight);
			t0 = now_ns();
			k0 = w.next / CHUNK;
			pace = PACE_NS;
		}
	}
	while (acked == -2 && now_ns() < end)
		if ((e = answer(100)) != 0)
			acked = e;
	ok(acked == 1, "nfsxd was killed with SIGKILL and started again on its state directory");
	ok(w.ok == FILE_SIZE / CHUNK && w.failed == 0,
	   "all %u WRITEs with A's old stateid succeeded across the restart (%u did, %u failed; "
	   "first: %s, status %d)", FILE_SIZE / CHUNK, w.ok, w.failed,
	   nfsx_strerror(w.first_err), (int)w.first_st);
	ok(w.crossed >= 2, "%u WRITEs were in flight across the restart (sent before the reclaim, "
	   "answered after it)", w.crossed);
	ok(file_is(on_disk("data"), buf, FILE_SIZE),
	   "data on the server's disk is the 16 MiB written, byte for byte");
	st = rstats(a);
	ok(st.reclaims == 1 && st.opens_reclaimed == 2 && st.opens_lost == 0,
	   "A reclaimed its 2 opens (reclaims %llu, opens %llu, lost %llu)",
	   (unsigned long long)st.reclaims, (unsigned long long)st.opens_reclaimed,
	   (unsigned long long)st.opens_lost);
	ok(st.locks_reclaimed == 1 && st.locks_lost == 0,
	   "A reclaimed its lock (%llu, lost %llu)", (unsigned long long)st.locks_reclaimed,
	   (unsigned long long)st.locks_lost);
	e = do_read(a, &rd, &sr, &r);
	for (i = 0; e == 0 && i < r.len && r.data[i] == pat_rd(i); i++)
		;
	ok(e == 0 && r.len == RD_SIZE && i == RD_SIZE,
	   "READ of rd with A's old stateid gives its 64 KiB (%d, %u bytes, %llu good)", e, r.len,
	   (unsigned long long)i);
	ok(local_lock_try(on_disk("data"), F_WRLCK, 0, 4096) == -EAGAIN,
	   "nfsxd holds A's lock again: a local lock of the range conflicts");
	ok(local_lock_try(on_disk("data"), F_WRLCK, 8192, 4096) == 0,
	   "... and only that range");

	/* grace: B has not reclaimed, so a new OPEN of A's waits */
	{
		struct nfsx4_open_args oa = { fh4(&nw), OPEN4_SHARE_ACCESS_BOTH,
					      OPEN4_SHARE_DENY_NONE };
		struct nfsx4_lockt_args la = { fh4(&data), WRITE_LT, 0, 4096 };
		struct res ro = { 0 }, rl = { 0 };
		uint64_t t1 = now_ns();

		e = nfsx4_open(a, &oa, open_cb, &ro);
		while (!e && !ro.done && now_ns() < t1 + 1500000000ull)
			nfsx_run_once(a, 50);
		st = rstats(a);
		ok(!e && !ro.done && st.grace_retries > 0,
		   "a new OPEN by A waits in nfsxd's grace period (%llu NFS4ERR_GRACE retries)",
		   (unsigned long long)st.grace_retries);
		e = e ? e : nfsx4_lockt(b, &la, res_cb, &rl);
		end = now_ns() + 30 * 1000000000ull;
		while (!e && (!ro.done || !rl.done) && now_ns() < end) {
			nfsx_run_once(a, 5);
			nfsx_run_once(b, 5);
		}
		ok(ro.done && !ro.err && ro.st == NFS4_OK,
		   "... and is granted once B's recovery ended the grace period (%s, %d) after %.1f s",
		   nfsx_strerror(ro.err), (int)ro.st, (double)(now_ns() - t1) / 1e9);
		ok(rl.done && !rl.err && rl.st == NFS4ERR_DENIED,
		   "B's LOCKT of the range meets A's reclaimed lock (NFS4ERR_DENIED: %s, %d)",
		   nfsx_strerror(rl.err), (int)rl.st);
		sn = ro.sid;
	}
	e = do_locku(a, &data, &lk, 0, 4096);
	ok(e == 0 && local_lock_try(on_disk("data"), F_WRLCK, 0, 4096) == 0,
	   "LOCKU with A's old lock stateid lets the range go (%d)", e);
	e = do_close(a, &data, &sd);
	ok(e == 0, "CLOSE of data with the old stateid (%d)", e);
	e = do_close(a, &rd, &sr);
	ok(e == 0, "CLOSE of rd with the old stateid (%d)", e);
	e = do_close(a, &nw, &sn);
	st = rstats(a);
	ok(e == 0 && st.opens_held == 0, "CLOSE of new; nothing left open (%d, %llu)", e,
	   (unsigned long long)st.opens_held);
out:
	free(buf);
	if (a)
		nfsx_ctx_free(a);
	if (b)
		nfsx_ctx_free(b);
}

/* ---- lost state ----------------------------------------------------------- */

static void test_lost(void)
{
	struct nfsx_ctx *c = mk(20000, 0);
	struct nfsx_fh root, fh;
	struct stateid4 s, lk, s2;
	struct nfsx4_recover_stats st;
	static uint8_t buf[4096];
	struct res r;
	struct stat sb;
	uint64_t t0;
	int e, acked = 0;

	memset(buf, 'x', sizeof(buf));
	e = c ? nfsx_mount(c, rw, &root) : -ENOMEM;
	e = e ? e : nfsx_lookup(c, &root, "lost", &fh, NULL);
	e = e ? e : do_open(c, &fh, OPEN4_SHARE_ACCESS_BOTH, &s);
	e = e ? e : do_write(c, &fh, &s, 0, buf, sizeof(buf));
	e = e ? e : do_lock(c, &fh, &s, 0, 100, &lk);
	ok(e == 0 && nfsx4_minor(c) == 2,
	   "C (NFSv4.2) opens lost, writes 4 KiB, locks 100 bytes (%d)", e);
	if (e)
		goto out;
	ok(ask("fresh"), "asked for nfsxd to start again with an empty state directory");
	for (t0 = now_ns(); !acked && now_ns() < t0 + 30000000000ull;)
		acked = answer(100);
	ok(acked == 1, "nfsxd was killed and started again knowing no client");

	t0 = now_ns();
	e = do_write(c, &fh, &s, 4096, buf, sizeof(buf));
	ok(e == -EIO, "a WRITE with C's old stateid fails with EIO (%s)", nfsx_strerror(e));
	ok(now_ns() - t0 < 10000000000ull, "... within 10 s (%.2f s)",
	   (double)(now_ns() - t0) / 1e9);
	ok(strstr(nfsx_ctx_error(c), "reclaim") && strstr(nfsx_ctx_error(c), "NO_GRACE"),
	   "the context's error says why: %s", nfsx_ctx_error(c));
	e = stat(on_disk("lost"), &sb);
	ok(e == 0 && sb.st_size == 4096, "nothing reached the file without state (%lld bytes)",
	   (long long)sb.st_size);
	st = rstats(c);
	ok(st.opens_lost == 1 && st.locks_lost == 1 && st.opens_reclaimed == 0,
	   "the counters say 1 open and 1 lock lost (%llu, %llu)",
	   (unsigned long long)st.opens_lost, (unsigned long long)st.locks_lost);
	e = do_read(c, &fh, &s, &r);
	ok(e == -EIO, "a READ with it fails with EIO too (%s)", nfsx_strerror(e));
	e = do_locku(c, &fh, &lk, 0, 100);
	ok(e == -EIO, "LOCKU of the lost lock: EIO (%s)", nfsx_strerror(e));
	e = do_close(c, &fh, &s);
	st = rstats(c);
	ok(e == -EIO && st.opens_held == 0 && st.lost_io >= 4,
	   "CLOSE of the lost open: EIO, and it is forgotten (%s, %llu held, %llu lost I/O)",
	   nfsx_strerror(e), (unsigned long long)st.opens_held, (unsigned long long)st.lost_io);
	e = do_open(c, &fh, OPEN4_SHARE_ACCESS_BOTH, &s2);
	e = e ? e : do_write(c, &fh, &s2, 4096, buf, sizeof(buf));
	e = e ? e : stat(on_disk("lost"), &sb);
	ok(e == 0 && sb.st_size == 8192, "a new OPEN and WRITE of the file work (%d, %lld bytes)",
	   e, (long long)sb.st_size);
	if (e == 0)
		do_close(c, &fh, &s2);
out:
	if (c)
		nfsx_ctx_free(c);
}

/* ---- a lock lost, its open kept ------------------------------------------ */

static void test_lock_lost(void)
{
	struct nfsx_ctx *d = mk(20000, 1);
	struct nfsx_fh root, fh;
	struct stateid4 s, lk;
	struct nfsx4_recover_stats st;
	static uint8_t buf[4096];
	struct res r;
	struct stat sb;
	uint64_t t0;
	int e, acked = 0, held = -1;

	memset(buf, 'y', sizeof(buf));
	e = d ? nfsx_mount(d, rw, &root) : -ENOMEM;
	e = e ? e : nfsx_lookup(d, &root, "lk", &fh, NULL);
	e = e ? e : do_open(d, &fh, OPEN4_SHARE_ACCESS_BOTH, &s);
	e = e ? e : do_write(d, &fh, &s, 0, buf, sizeof(buf));
	e = e ? e : do_lock(d, &fh, &s, 0, 4096, &lk);
	ok(e == 0, "D (NFSv4.1) opens lk, writes 4 KiB, write-locks them (%d)", e);
	if (e)
		goto out;
	ok(ask("restart"), "asked for nfsxd to be killed and started again");
	for (t0 = now_ns(); !acked && now_ns() < t0 + 30000000000ull;)
		acked = answer(100);
	ok(acked == 1, "nfsxd was killed and started again on its state directory");
	/* a local process takes the range before D reclaims it */
	held = local_lock_hold(on_disk("lk"), F_WRLCK, 0, 4096);
	ok(held >= 0, "a local process write-locks the range in the grace period (%s)",
	   held >= 0 ? "held" : strerror(-held));

	e = do_write(d, &fh, &s, 4096, buf, sizeof(buf));
	st = rstats(d);
	ok(e == -EIO && st.opens_reclaimed == 1 && st.locks_lost == 1 && st.opens_lost == 0,
	   "the open is reclaimed, the lock is refused, and a WRITE on the file fails with EIO "
	   "(%s; opens %llu, locks lost %llu)", nfsx_strerror(e),
	   (unsigned long long)st.opens_reclaimed, (unsigned long long)st.locks_lost);
	ok(strstr(nfsx_ctx_error(d), "reclaim of a lock") != NULL, "the context's error: %s",
	   nfsx_ctx_error(d));
	e = stat(on_disk("lk"), &sb);
	ok(e == 0 && sb.st_size == 4096, "nothing reached the file (%lld bytes)",
	   (long long)sb.st_size);
	e = do_read(d, &fh, &s, &r);
	ok(e == -EIO, "a READ fails with EIO too (%s)", nfsx_strerror(e));
	e = do_locku(d, &fh, &lk, 0, 4096);
	ok(e == -EIO, "LOCKU of the lost lock: EIO (%s)", nfsx_strerror(e));
	e = do_close(d, &fh, &s);
	st = rstats(d);
	ok(e == 0 && st.opens_held == 0, "CLOSE of the reclaimed open works (%s, %llu held)",
	   nfsx_strerror(e), (unsigned long long)st.opens_held);
out:
	if (held >= 0)
		close(held);
	if (d)
		nfsx_ctx_free(d);
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: %s PORT BASE CTL ACK\n", argv[0]);
		return 2;
	}
	port = (uint16_t)atoi(argv[1]);
	snprintf(rw, sizeof(rw), "%s/rw", argv[2]);
	ctl_path = argv[3];
	/* read-write: never blocks, and the runner's writes never wait for us */
	ackfd = open(argv[4], O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (ackfd < 0) {
		printf("Bail out! %s: %s\n", argv[4], strerror(errno));
		return 1;
	}
	test_reclaim();
	test_lost();
	test_lock_lost();
	return tap_done();
}
