/* SPDX-License-Identifier: MIT */
/*
 * libnfsx's NFSv4.1 back channel against nfsxd (started by
 * run-client-nfs4-cb.sh with a lease of an hour, so that no delegation
 * can be revoked while this runs: only a return lets a conflict
 * through). Two contexts in one process, both loops run by the test:
 * - the back channel is bound (CREATE_SESSION's reply);
 * - an OPEN without a want gets no delegation (the default);
 * - A opens a file for reading asking for a read delegation and gets
 *   OPEN_DELEGATE_READ; B opens it for writing: nfsxd recalls A's
 *   delegation over A's back channel, A answers and returns it
 *   (DELEGRETURN, counted), and B's OPEN (DELAY meanwhile) and a WRITE
 *   with its stateid succeed in far less than the lease; nfsxd's log
 *   shows the recall, and no recall that failed;
 * - the same for a write delegation (OPEN for reading and writing with
 *   WANT_WRITE_DELEG) recalled by B's OPEN for reading;
 * - a delegation still held when its context is freed is returned
 *   (B's OPEN for writing then needs no recall answer and no lease);
 * - A's connection cut while A is idle: A reconnects and binds its back
 *   channel again (BIND_CONN_TO_SESSION) on its own, so a recall then
 *   reaches it and B's conflicting OPEN goes through as fast.
 *
 * Usage: test_client_nfs4_cb PORT BASE LOG
 */
#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client/internal.h"
#include "tap.h"

static uint16_t port;
static char rw[4096];
static const char *logpath;

static struct nfsx_ctx *mk(void)
{
	struct nfsx_opts o;
	char err[256];
	struct nfsx_ctx *c;
	struct nfsx_fh root;
	int r;

	nfsx_opts_init(&o);
	o.host = "127.0.0.1";
	o.port = port;
	o.timeo_ms = 20000;
	o.version = 4;
	c = nfsx_ctx_new(&o, err, sizeof(err));
	if (!c) {
		printf("# nfsx_ctx_new: %s\n", err);
		return NULL;
	}
	r = nfsx_mount(c, rw, &root);
	if (r != 0) {
		printf("# mount %s: %s\n", rw, nfsx_strerror(r));
		nfsx_ctx_free(c);
		return NULL;
	}
	return c;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct op {
	int done, err;
	enum nfsstat4 st;
	struct stateid4 sid;
	enum open_delegation_type4 deleg;
	double t_done;
};

static void open_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct op *o = priv;
	const struct OPEN4res *r = res;

	(void)ctx;
	o->done++;
	o->err = err;
	o->t_done = now_s();
	if (err || (o->st = r->status) != NFS4_OK)
		return;
	o->sid = r->u.resok4.stateid;
	o->deleg = r->u.resok4.delegation.delegation_type;
}

static void status_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct op *o = priv;

	(void)ctx;
	o->done++;
	o->err = err;
	o->t_done = now_s();
	/* every result starts with its status */
	if (!err)
		o->st = *(const enum nfsstat4 *)res;
}

/* Run both loops until @o is done or @secs passed. */
static bool run(struct nfsx_ctx *a, struct nfsx_ctx *b, struct op *o, double secs)
{
	double end = now_s() + secs;

	while (!o->done && now_s() < end) {
		if (a)
			nfsx_run_once(a, 5);
		if (b)
			nfsx_run_once(b, 5);
	}
	return o->done;
}

static bool fh_of(struct nfsx_ctx *c, const char *name, struct nfsx_fh *fh)
{
	int r = nfsx_resolve(c, name, fh, NULL);

	if (r)
		printf("# resolve %s: %s\n", name, nfsx_strerror(r));
	return r == 0;
}

static int open_async(struct nfsx_ctx *c, const struct nfsx_fh *fh, uint32_t access,
		      struct nfsx4_open_args *oa, struct op *o)
{
	memset(oa, 0, sizeof(*oa));
	memset(o, 0, sizeof(*o));
	oa->fh.data = fh->data;
	oa->fh.len = fh->len;
	oa->share_access = access;
	oa->share_deny = OPEN4_SHARE_DENY_NONE;
	return nfsx4_open(c, oa, open_cb, o);
}

static void close_sid(struct nfsx_ctx *a, struct nfsx_ctx *c, const struct nfsx_fh *fh,
		      const struct stateid4 *sid)
{
	struct nfsx4_close_args ca = { .fh = { .data = fh->data, .len = fh->len }, .stateid = *sid };
	struct op o = { 0 };

	if (nfsx4_close(c, &ca, status_cb, &o) == 0)
		run(a, c, &o, 10);
}

static unsigned log_count(const char *what)
{
	char line[1024];
	unsigned n = 0;
	FILE *f = fopen(logpath, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, what))
			n++;
	fclose(f);
	return n;
}

static void test_default(struct nfsx_ctx *a)
{
	struct nfsx4_open_args oa;
	struct nfsx_fh fh;
	struct op o;
	bool done;

	if (!fh_of(a, "plain", &fh))
		return;
	done = open_async(a, &fh, OPEN4_SHARE_ACCESS_READ, &oa, &o) == 0 && run(a, NULL, &o, 10);
	ok(done && o.st == NFS4_OK && o.deleg != OPEN_DELEGATE_READ && o.deleg != OPEN_DELEGATE_WRITE,
	   "an OPEN with no want gets no delegation (type %d)", o.deleg);
	close_sid(NULL, a, &fh, &o.sid);
}

/*
 * A opens @name with @a_access (a delegation of type @want asked), B
 * with @b_access: A's delegation recalled and returned, B's OPEN done
 * in less than 5 s of a lease of 3600, then B writes or reads with it.
 */
static void test_recall(struct nfsx_ctx *a, struct nfsx_ctx *b, const char *name,
			uint32_t a_access, enum open_delegation_type4 want, uint32_t b_access)
{
	struct nfsx4_cb_stats s0, s1;
	struct nfsx4_open_args oa, ob;
	struct nfsx_fh fa, fb;
	struct op o1, o2, o3;
	const char *kind = want == OPEN_DELEGATE_READ ? "read" : "write";
	unsigned recalls_logged = log_count("recalled (4.1)");
	static const char data[] = "written by B\n";
	double t0;
	bool done;

	if (!fh_of(a, name, &fa) || !fh_of(b, name, &fb))
		return;
	nfsx4_cb_stats_get(a, &s0);
	done = open_async(a, &fa, a_access, &oa, &o1) == 0 && run(a, NULL, &o1, 10);
	ok(done && o1.st == NFS4_OK && o1.deleg == want,
	   "A's OPEN asking a %s delegation gets OPEN_DELEGATE_%s (type %d, status %d)", kind,
	   want == OPEN_DELEGATE_READ ? "READ" : "WRITE", o1.deleg, o1.st);
	nfsx4_cb_stats_get(a, &s1);
	ok(s1.delegs_got == s0.delegs_got + 1 && s1.delegs_held == s0.delegs_held + 1,
	   "A's library holds it (%u held)", s1.delegs_held);
	t0 = now_s();
	done = open_async(b, &fb, b_access, &ob, &o2) == 0 && run(a, b, &o2, 30);
	ok(done && o2.st == NFS4_OK && o2.t_done - t0 < 5.0,
	   "B's conflicting OPEN succeeds in %.2f s (< 5 s; lease 3600 s): status %d err %d",
	   o2.t_done - t0, o2.st, o2.err);
	nfsx4_cb_stats_get(a, &s1);
	ok(s1.recalls == s0.recalls + 1 && s1.compounds > s0.compounds,
	   "A answered nfsxd's CB_SEQUENCE + CB_RECALL (%llu recalls)",
	   (unsigned long long)s1.recalls);
	/* the DELEGRETURN may land just after B's OPEN went through */
	for (double end = now_s() + 5;
	     now_s() < end && s1.delegs_returned == s0.delegs_returned; nfsx4_cb_stats_get(a, &s1))
		run(a, b, &(struct op){ 0 }, 0.05);
	ok(s1.delegs_returned == s0.delegs_returned + 1 &&
	   s1.delegs_return_failed == s0.delegs_return_failed && s1.delegs_held == s0.delegs_held,
	   "A returned it (DELEGRETURN succeeded: %llu returned, %llu failed, %u held)",
	   (unsigned long long)s1.delegs_returned, (unsigned long long)s1.delegs_return_failed,
	   s1.delegs_held);
	ok(log_count("recalled (4.1)") == recalls_logged + 1 &&
	   log_count("NFSv4 recall of a delegation of client") == 0,
	   "nfsxd logged one recall over the back channel, and no recall that failed");
	memset(&o3, 0, sizeof(o3));
	if (b_access & OPEN4_SHARE_ACCESS_WRITE) {
		struct nfsx4_write_args wa;

		memset(&wa, 0, sizeof(wa));
		wa.fh.data = fb.data;
		wa.fh.len = fb.len;
		wa.args.stateid = o2.sid;
		wa.args.stable = FILE_SYNC4;
		wa.args.data.data = (const uint8_t *)data;
		wa.args.data.len = sizeof(data) - 1;
		done = nfsx4_write(b, &wa, status_cb, &o3) == 0 && run(a, b, &o3, 10);
		ok(done && o3.st == NFS4_OK, "B's WRITE with its open stateid: status %d", o3.st);
	} else {
		struct nfsx4_read_args ra;

		memset(&ra, 0, sizeof(ra));
		ra.fh.data = fb.data;
		ra.fh.len = fb.len;
		ra.args.stateid = o2.sid;
		ra.args.count = 100;
		done = nfsx4_read(b, &ra, status_cb, &o3) == 0 && run(a, b, &o3, 10);
		ok(done && o3.st == NFS4_OK, "B's READ with its open stateid: status %d", o3.st);
	}
	close_sid(a, b, &fb, &o2.sid);
	close_sid(b, a, &fa, &o1.sid);
}

/* A delegation held when its context is freed is given back then. */
static void test_free_returns(struct nfsx_ctx *b)
{
	struct nfsx_ctx *a = mk();
	struct nfsx4_open_args oa, ob;
	struct nfsx_fh fa, fb;
	struct op o1, o2;
	double t0;
	bool done;

	if (!a || !fh_of(a, "onfree", &fa) || !fh_of(b, "onfree", &fb)) {
		ok(0, "context A2");
		return;
	}
	done = open_async(a, &fa, OPEN4_SHARE_ACCESS_READ | OPEN4_SHARE_ACCESS_WANT_READ_DELEG,
			  &oa, &o1) == 0 && run(a, NULL, &o1, 10);
	ok(done && o1.st == NFS4_OK && o1.deleg == OPEN_DELEGATE_READ,
	   "A2 holds a read delegation (type %d)", o1.deleg);
	nfsx_ctx_free(a);
	t0 = now_s();
	done = open_async(b, &fb, OPEN4_SHARE_ACCESS_WRITE, &ob, &o2) == 0 && run(NULL, b, &o2, 30);
	ok(done && o2.st == NFS4_OK && o2.t_done - t0 < 2.0,
	   "freeing A2 returned it: B's OPEN for writing in %.2f s, status %d",
	   o2.t_done - t0, o2.st);
	close_sid(NULL, b, &fb, &o2.sid);
}

/* A's connection cut under it while A holds a delegation and is idle. */
static void test_rebind(struct nfsx_ctx *b)
{
	struct nfsx_ctx *a = mk();
	struct nfsx4_open_args oa, ob;
	struct nfsx4_cb_stats st;
	struct nfsx_fh fa, fb;
	struct op o1, o2;
	double t0, end;
	bool done;

	if (!a || !fh_of(a, "rebind", &fa) || !fh_of(b, "rebind", &fb)) {
		ok(0, "context A3");
		return;
	}
	done = open_async(a, &fa, OPEN4_SHARE_ACCESS_READ | OPEN4_SHARE_ACCESS_WANT_READ_DELEG,
			  &oa, &o1) == 0 && run(a, NULL, &o1, 10);
	ok(done && o1.st == NFS4_OK && o1.deleg == OPEN_DELEGATE_READ,
	   "A3 holds a read delegation (type %d)", o1.deleg);
	shutdown(a->chan[NC_CH_NFS].conns[0].fd, SHUT_RDWR);
	t0 = now_s();
	for (end = t0 + 5; now_s() < end; nfsx_run_once(a, 10))
		if (nfsx4_cb_stats_get(a, &st) == 0 && st.rebinds == 1)
			break;
	ok(st.rebinds == 1 && st.back_chan,
	   "its connection cut, idle A3 reconnected and bound its back channel again in %.2f s",
	   now_s() - t0);
	t0 = now_s();
	done = open_async(b, &fb, OPEN4_SHARE_ACCESS_WRITE, &ob, &o2) == 0 && run(a, b, &o2, 30);
	nfsx4_cb_stats_get(a, &st);
	ok(done && o2.st == NFS4_OK && o2.t_done - t0 < 5.0 && st.delegs_returned == 1,
	   "a recall then reaches it: B's OPEN in %.2f s, status %d, %llu returned",
	   o2.t_done - t0, o2.st, (unsigned long long)st.delegs_returned);
	close_sid(a, b, &fb, &o2.sid);
	close_sid(b, a, &fa, &o1.sid);
	nfsx_ctx_free(a);
}

int main(int argc, char **argv)
{
	struct nfsx_ctx *a, *b;
	struct nfsx4_cb_stats st;

	if (argc != 4) {
		fprintf(stderr, "usage: %s PORT BASE LOG\n", argv[0]);
		return 2;
	}
	port = (uint16_t)atoi(argv[1]);
	snprintf(rw, sizeof(rw), "%s/rw", argv[2]);
	logpath = argv[3];
	a = mk();
	b = mk();
	ok(a && b, "two contexts, two sessions");
	if (!a || !b)
		return tap_done();
	ok(nfsx4_cb_stats_get(a, &st) == 0 && st.back_chan,
	   "CREATE_SESSION bound the back channel to A's connection");
	test_default(a);
	test_recall(a, b, "rdeleg", OPEN4_SHARE_ACCESS_READ | OPEN4_SHARE_ACCESS_WANT_READ_DELEG,
		    OPEN_DELEGATE_READ, OPEN4_SHARE_ACCESS_WRITE);
	test_recall(a, b, "wdeleg", OPEN4_SHARE_ACCESS_BOTH | OPEN4_SHARE_ACCESS_WANT_WRITE_DELEG,
		    OPEN_DELEGATE_WRITE, OPEN4_SHARE_ACCESS_READ);
	test_free_returns(b);
	test_rebind(b);
	nfsx_ctx_free(a);
	nfsx_ctx_free(b);
	return tap_done();
}
