/* SPDX-License-Identifier: MIT */
/*
 * libnfsx against the misbehaving fake server (fake_server.c), all on
 * 127.0.0.1: matching of replies to calls, the slot bound and transmit
 * fairness on the wire, retransmission after a dropped reply, timeouts,
 * replay on a new connection after the server closes mid-reply, replies
 * to unknown xids, garbage replies and streams, a 2 GiB record marker
 * (bounded memory), a reply arriving while its call is still being sent,
 * connection refused, rpcbind lookup, reconnection after a restart,
 * nconnect, cancellation and the callback rules.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client/internal.h"
#include "fake_server.h"
#include "tap.h"

static struct fake_stats fst;
static uint8_t fhdata[8] = "fakefh!";
static struct GETATTR3args ga = { { { fhdata, 8 } } };

struct res {
	int done;
	int err;
	uint64_t fileid;
	int order;
};

static int completions;

static void cb_getattr(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct res *r = priv;

	(void)ctx;
	r->done++;
	r->err = err;
	r->order = ++completions;
	if (!err && res) /* NULL's result is void */
		r->fileid = ((struct GETATTR3res *)res)->u.resok.obj_attributes.fileid;
}

static uint64_t ms_now(void)
{
	return nc_now() / 1000000u;
}

static struct nfsx_ctx *mk(uint16_t port, unsigned timeo, unsigned retrans, unsigned slots,
			   unsigned nconnect)
{
	struct nfsx_opts o;
	char err[256];
	struct nfsx_ctx *c;

	nfsx_opts_init(&o);
	o.host = "127.0.0.1";
	o.port = port;
	o.timeo_ms = timeo;
	o.retrans = retrans;
	o.slots = slots;
	o.nconnect = nconnect;
	o.max_backoff_ms = 400;
	c = nfsx_ctx_new(&o, err, sizeof(err));
	if (!c)
		printf("# nfsx_ctx_new: %s\n", err);
	return c;
}

/* Run the loop until @n of @r are done or @max_ms pass. */
static bool wait_done(struct nfsx_ctx *c, struct res *r, int n, int max_ms)
{
	uint64_t end = ms_now() + (uint64_t)max_ms;

	for (;;) {
		int i, done = 0;

		for (i = 0; i < n; i++)
			done += r[i].done ? 1 : 0;
		if (done == n)
			return true;
		if (ms_now() > end)
			return false;
		nfsx_run_once(c, 10);
	}
}

static void spin(struct nfsx_ctx *c, int ms)
{
	uint64_t end = ms_now() + (uint64_t)ms;

	while (ms_now() < end)
		nfsx_run_once(c, 5);
}

static bool logged(uint32_t xid, unsigned conn, int *count)
{
	unsigned i;

	*count = 0;
	for (i = 0; i < fst.nlog; i++)
		if (fst.log[i].xid == xid && fst.log[i].conn == conn)
			(*count)++;
	return *count > 0;
}

static void test_basic(void)
{
	struct fake_server *fs = fake_start(0, 0);
	struct nfsx_ctx *c = mk(fake_port(fs), 5000, 1, 16, 1);
	static struct res r[200];
	const struct nfsx_op_stats *st;
	bool match = true;
	int i, cnt;
	uint64_t hq = 0, hr = 0, he = 0;

	for (i = 0; i < 200; i++)
		nfsx3_getattr(c, &ga, cb_getattr, &r[i]);
	ok(nfsx_pending(c) == 200, "200 calls pending before the loop runs");
	ok(wait_done(c, r, 200, 5000), "200 GETATTRs complete");
	fake_get_stats(fs, &fst);
	for (i = 0; i < 200; i++) {
		if (r[i].err || !logged((uint32_t)r[i].fileid, 0, &cnt) || cnt != 1)
			match = false;
		if (i && r[i].fileid == r[i - 1].fileid)
			match = false;
	}
	ok(match, "each callback got the reply to its own xid (fileid = xid, all distinct)");
	ok(fst.conns == 1 && fst.calls[0] == 200, "one connection, 200 calls on the wire");
	st = nfsx_stats_get(c, &nfsx_nfs3_procs[NFSPROC3_GETATTR]);
	ok(st && st->ops == 200 && st->trans == 200 && st->timeouts == 0 && st->errors == 0,
	   "stats: 200 ops, 200 transmissions, no timeouts or errors");
	for (i = 0; st && i < NFSX_HIST_BUCKETS; i++) {
		hq += st->hist_queue[i];
		hr += st->hist_rtt[i];
		he += st->hist_exec[i];
	}
	ok(hq == 200 && hr == 200 && he == 200, "200 samples in each histogram");
	ok(st && st->bytes_sent > 200 * 40 && st->bytes_recv > 200 * 100 && st->rtt_ns > 0 &&
	   st->exec_ns >= st->rtt_ns && st->name && !strcmp(st->name, "GETATTR"),
	   "bytes and times counted, name GETATTR");
	ok(nfsx_stats_get(c, &nfsx_nfs3_procs[NFSPROC3_READ]) == NULL,
	   "no stats for a procedure never called");
	ok(nfsx_pending(c) == 0, "nothing pending afterwards");
	nfsx_ctx_free(c);
	fake_stop(fs);
}

static void test_slots_and_fairness(void)
{
	struct fake_server *fs = fake_start(FAKE_HOLD, 0);
	struct nfsx_ctx *c = mk(fake_port(fs), 10000, 1, 4, 1);
	static struct res r[51];
	int i, pos_null = 0;
	unsigned held;

	for (i = 0; i < 20; i++)
		nfsx3_getattr(c, &ga, cb_getattr, &r[i]);
	spin(c, 300);
	fake_get_stats(fs, &fst);
	held = fst.held;
	ok(fst.calls[0] == 4 && held == 4, "slots=4: 4 of 20 calls on the wire while unanswered (%u)",
	   fst.calls[0]);
	fake_set_flags(fs, 0);
	fake_release(fs);
	ok(wait_done(c, r, 20, 5000), "after the replies, all 20 complete");
	fake_get_stats(fs, &fst);
	ok(fst.calls[0] == 20, "20 calls in all");
	nfsx_ctx_free(c);
	fake_stop(fs);

	/* One slot: the wire order is the transmit queue's order. */
	completions = 0;
	fs = fake_start(0, 0);
	c = mk(fake_port(fs), 10000, 1, 1, 1);
	memset(r, 0, sizeof(r));
	for (i = 0; i < 50; i++)
		nfsx_call_owner(c, 1, &nfsx_nfs3_procs[NFSPROC3_GETATTR], &ga, cb_getattr, &r[i]);
	nfsx_call_owner(c, 2, &nfsx_nfs3_procs[NFSPROC3_NULL], NULL, cb_getattr, &r[50]);
	ok(wait_done(c, r, 51, 5000), "owner 1: 50 calls, owner 2: 1 call, all complete");
	fake_get_stats(fs, &fst);
	for (i = 0; i < (int)fst.nlog; i++)
		if (fst.log[i].proc == 0)
			pos_null = i + 1;
	ok(pos_null >= 1 && pos_null <= 2,
	   "owner 2's call went out as call %d of 51, not behind owner 1's 50", pos_null);
	ok(r[50].order <= 2, "and completed as number %d", r[50].order);
	nfsx_ctx_free(c);
	fake_stop(fs);
}

static void test_retransmit(void)
{
	struct fake_server *fs = fake_start(FAKE_DROP_FIRST, 0);
	struct nfsx_ctx *c = mk(fake_port(fs), 400, 3, 16, 1);
	const struct nfsx_op_stats *st;
	struct res r = { 0 };
	uint64_t t0 = ms_now(), dt;
	int cnt = 0;

	nfsx3_getattr(c, &ga, cb_getattr, &r);
	ok(wait_done(c, &r, 1, 3000) && r.err == 0, "GETATTR whose first reply is dropped succeeds");
	dt = ms_now() - t0;
	ok(dt >= 390 && dt < 3000, "after one retransmission timeout (%llu ms)",
	   (unsigned long long)dt);
	fake_get_stats(fs, &fst);
	ok(logged((uint32_t)r.fileid, 0, &cnt) && cnt == 2 && fst.conns == 1,
	   "the same xid was sent twice on the same connection");
	st = nfsx_stats_get(c, &nfsx_nfs3_procs[NFSPROC3_GETATTR]);
	ok(st->ops == 1 && st->trans == 2 && st->timeouts == 1 && st->errors == 0,
	   "stats: 1 op, 2 transmissions, 1 timeout (%llu/%llu/%llu)",
	   (unsigned long long)st->ops, (unsigned long long)st->trans,
	   (unsigned long long)st->timeouts);
	ok(st->rtt_ns < 300000000ull && st->exec_ns >= 390000000ull,
	   "RTT is measured from the retransmission, execute time from submission");
	nfsx_ctx_free(c);
	fake_stop(fs);

	/* No reply at all: -ETIMEDOUT after retrans + 1 expiries. */
	fs = fake_start(FAKE_HOLD, 0);
	c = mk(fake_port(fs), 100, 1, 16, 1);
	memset(&r, 0, sizeof(r));
	t0 = ms_now();
	nfsx3_getattr(c, &ga, cb_getattr, &r);
	ok(wait_done(c, &r, 1, 3000) && r.err == -ETIMEDOUT, "unanswered call: -ETIMEDOUT (%d)",
	   r.err);
	dt = ms_now() - t0;
	ok(dt >= 190 && dt < 3000, "after 2 x timeo (%llu ms)", (unsigned long long)dt);
	st = nfsx_stats_get(c, &nfsx_nfs3_procs[NFSPROC3_GETATTR]);
	ok(st->ops == 1 && st->trans == 2 && st->timeouts == 2 && st->errors == 1,
	   "stats: 2 transmissions, 2 timeouts, 1 error");
	fake_get_stats(fs, &fst);
	ok(fst.calls[0] == 2, "the server saw the call twice");
	/* A late reply to it is dropped silently. */
	fake_set_flags(fs, 0);
	fake_release(fs);
	spin(c, 100);
	ok(c->stray_replies == 2 && nfsx_pending(c) == 0, "late replies dropped (%llu)",
	   (unsigned long long)c->stray_replies);
	nfsx_ctx_free(c);
	fake_stop(fs);
}

static void test_replay(void)
{
	struct fake_server *fs = fake_start(FAKE_CLOSE_MID, 0);
	struct nfsx_ctx *c = mk(fake_port(fs), 10000, 1, 16, 1);
	const struct nfsx_op_stats *st;
	static struct res r[5];
	bool same = true, ok_all = true;
	int i;

	fake_set_close_after(fs, 5);
	for (i = 0; i < 5; i++)
		nfsx3_getattr(c, &ga, cb_getattr, &r[i]);
	ok(wait_done(c, r, 5, 5000), "5 calls pending when the server closes mid-reply complete");
	for (i = 0; i < 5; i++)
		if (r[i].err)
			ok_all = false;
	ok(ok_all, "all successfully");
	fake_get_stats(fs, &fst);
	ok(fst.conns == 2 && fst.calls[0] == 5 && fst.calls[1] == 5,
	   "replayed on a second connection (%u connections, %u + %u calls)", fst.conns,
	   fst.calls[0], fst.calls[1]);
	for (i = 0; i < 5 && fst.nlog >= 10; i++)
		if (fst.log[i].xid != fst.log[5 + i].xid || fst.log[5 + i].conn != 1)
			same = false;
	ok(same && fst.nlog == 10, "with the same xids, in the same order");
	st = nfsx_stats_get(c, &nfsx_nfs3_procs[NFSPROC3_GETATTR]);
	ok(st->ops == 5 && st->trans == 10 && st->timeouts == 0,
	   "stats: 5 ops, 10 transmissions, no timeout");
	nfsx_ctx_free(c);
	fake_stop(fs);
}

static void test_unknown_and_garbage(void)
{
	struct fake_server *fs = fake_start(FAKE_UNKNOWN_XID, 0);
	struct nfsx_ctx *c = mk(fake_port(fs), 10000, 1, 16, 1);
	static struct res r[50];
	struct res n = { 0 }, g = { 0 };
	bool good = true;
	int i, cnt;

	for (i = 0; i < 50; i++)
		nfsx3_getattr(c, &ga, cb_getattr, &r[i]);
	ok(wait_done(c, r, 50, 5000), "50 calls with a stray reply before each complete");
	fake_get_stats(fs, &fst);
	for (i = 0; i < 50; i++)
		if (r[i].err || !logged((uint32_t)r[i].fileid, 0, &cnt))
			good = false;
	ok(good, "each with its own reply");
	ok(c->stray_replies == 50, "50 replies to unknown xids dropped silently (%llu)",
	   (unsigned long long)c->stray_replies);

	fake_set_flags(fs, FAKE_GARBAGE_REPLY);
	nfsx3_getattr(c, &ga, cb_getattr, &g);
	nfsx3_null(c, cb_getattr, &n);
	ok(wait_done(c, &g, 1, 3000) && g.err == -EPROTO, "undecodable GETATTR result: -EPROTO");
	ok(wait_done(c, &n, 1, 3000) && n.err == 0, "NULL with trailing bytes: success");
	fake_set_flags(fs, 0);
	memset(&g, 0, sizeof(g));
	nfsx3_getattr(c, &ga, cb_getattr, &g);
	ok(wait_done(c, &g, 1, 3000) && g.err == 0, "the connection is still usable");
	fake_get_stats(fs, &fst);
	ok(fst.conns == 1, "and was never closed");
	nfsx_ctx_free(c);
	fake_stop(fs);
}

static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

static void test_hostile_stream(unsigned flag, const char *what)
{
	struct fake_server *fs = fake_start(flag, 0);
	struct nfsx_ctx *c = mk(fake_port(fs), 300, 1, 16, 1);
	static struct res r[8];
	long rss0 = rss_kib(), rss1;
	bool failed = true;
	int i;

	for (i = 0; i < 8; i++)
		nfsx3_getattr(c, &ga, cb_getattr, &r[i]);
	ok(wait_done(c, r, 8, 5000), "%s: 8 calls end", what);
	for (i = 0; i < 8; i++)
		if (r[i].err != -EPROTO)
			failed = false;
	ok(failed, "%s: all with -EPROTO (first: %d)", what, r[0].err);
	ok(c->rbuf_peak <= (size_t)c->o.max_reply + NC_RBUF_SLACK,
	   "%s: receive buffer stayed within max_reply + 64 KiB (%zu)", what, c->rbuf_peak);
	rss1 = rss_kib();
	ok(rss0 > 0 && rss1 - rss0 < 64 * 1024, "%s: RSS grew by %ld KiB only", what, rss1 - rss0);
	fake_get_stats(fs, &fst);
	ok(fst.conns >= 2, "%s: the connection was dropped and retried (%u)", what, fst.conns);
	fake_set_flags(fs, 0);
	memset(r, 0, sizeof(r));
	nfsx3_getattr(c, &ga, cb_getattr, &r[0]);
	ok(wait_done(c, r, 1, 5000) && r[0].err == 0, "%s: later calls work again", what);
	nfsx_ctx_free(c);
	fake_stop(fs);
}

static uint8_t *wbuf;

static void cb_write(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct res *r = priv;

	(void)ctx;
	r->done++;
	r->err = err;
	if (!err)
		r->fileid = ((struct WRITE3res *)res)->status;
	/* The caller's buffer is gone after the callback (ASan would see a use). */
	free(wbuf);
	wbuf = NULL;
}

static void test_early_reply(void)
{
	struct fake_server *fs = fake_start(FAKE_EARLY_REPLY, 0);
	struct nfsx_ctx *c = mk(fake_port(fs), 10000, 1, 16, 1);
	const uint32_t size = 32u << 20;
	struct WRITE3args wa = { { { fhdata, 8 } }, 0, size, FILE_SYNC, { NULL, size } };
	struct res w = { 0 }, n = { 0 };

	wbuf = malloc(size);
	memset(wbuf, 0x5a, size);
	wa.data.data = wbuf;
	nfsx3_write(c, &wa, cb_write, &w);
	nfsx3_null(c, cb_getattr, &n);
	ok(wait_done(c, &w, 1, 10000) && w.err == 0 && w.fileid == NFS3_OK,
	   "32 MiB WRITE answered after its first 4 KiB completes");
	ok(c->remnants == 1, "its unsent tail was copied before the callback (%llu)",
	   (unsigned long long)c->remnants);
	ok(wait_done(c, &n, 1, 10000) && n.err == 0,
	   "the next call on the connection is still framed right");
	fake_get_stats(fs, &fst);
	ok(fst.conns == 1 && fst.calls[0] == 2, "one connection, 2 calls seen");
	nfsx_ctx_free(c);
	fake_stop(fs);
}

static void test_refused_and_rpcbind(void)
{
	struct fake_server *fs = fake_start(0, 0), *rb;
	uint16_t dead = fake_port(fs);
	struct nfsx_opts o;
	struct nfsx_ctx *c;
	struct res r = { 0 };
	char err[256];
	uint64_t t0;
	unsigned i;
	bool asked = false;

	fake_stop(fs); /* nothing listens on @dead now */
	c = mk(dead, 10000, 2, 16, 2);
	t0 = ms_now();
	nfsx3_getattr(c, &ga, cb_getattr, &r);
	ok(wait_done(c, &r, 1, 3000) && r.err == -ECONNREFUSED,
	   "nothing listening: -ECONNREFUSED (%d)", r.err);
	ok(ms_now() - t0 < 1000, "at once, not after the timeouts");
	ok(strstr(nfsx_ctx_error(c), "refused") != NULL, "error message: %s", nfsx_ctx_error(c));
	nfsx_ctx_free(c);

	/* rpcbind lookup: rb answers GETPORT with fs's port. */
	fs = fake_start(0, 0);
	rb = fake_start(0, 0);
	fake_set_getport(rb, fake_port(fs));
	nfsx_opts_init(&o);
	o.host = "127.0.0.1";
	o.rpcbind_port = fake_port(rb);
	c = nfsx_ctx_new(&o, err, sizeof(err));
	memset(&r, 0, sizeof(r));
	nfsx3_getattr(c, &ga, cb_getattr, &r);
	ok(wait_done(c, &r, 1, 3000) && r.err == 0, "port 0: looked up through rpcbind, call works");
	fake_get_stats(rb, &fst);
	for (i = 0; i < fst.nlog; i++)
		if (fst.log[i].prog == 100000 && fst.log[i].proc == 3)
			asked = true;
	ok(asked && fst.nlog == 1, "rpcbind got one PMAP GETPORT");
	fake_get_stats(fs, &fst);
	ok(fst.nlog == 1 && fst.log[0].prog == 100003 && fst.log[0].proc == 1,
	   "the NFS server got the GETATTR");
	nfsx_ctx_free(c);

	fake_set_getport(rb, 0);
	c = nfsx_ctx_new(&o, err, sizeof(err));
	memset(&r, 0, sizeof(r));
	nfsx3_getattr(c, &ga, cb_getattr, &r);
	ok(wait_done(c, &r, 1, 3000) && r.err == -EPROTONOSUPPORT,
	   "program not registered: -EPROTONOSUPPORT (%d)", r.err);
	nfsx_ctx_free(c);
	fake_stop(rb);
	fake_stop(fs);
}

static void test_restart_and_nconnect(void)
{
	struct fake_server *fs = fake_start(0, 0);
	uint16_t port = fake_port(fs);
	struct nfsx_ctx *c = mk(port, 10000, 1, 16, 1);
	static struct res r[400];
	bool even = true;
	uint64_t attempts;
	unsigned i;

	nfsx3_getattr(c, &ga, cb_getattr, &r[0]);
	ok(wait_done(c, r, 1, 3000) && r[0].err == 0, "call before the restart");
	fake_stop(fs);
	attempts = c->chan[NC_CH_NFS].conns[0].nattempts;
	nfsx3_getattr(c, &ga, cb_getattr, &r[1]);
	spin(c, 700); /* reconnects are refused and backed off meanwhile */
	ok(!r[1].done, "a call made while the server is down waits");
	attempts = c->chan[NC_CH_NFS].conns[0].nattempts - attempts;
	/* 0, 100, 200, 400 (max_backoff) ms: about 4, never a busy loop. */
	ok(attempts >= 2 && attempts <= 6, "reconnects backed off: %llu attempts in 700 ms",
	   (unsigned long long)attempts);
	fs = fake_start(0, port);
	ok(fs != NULL, "server back on port %u", port);
	ok(fs && wait_done(c, &r[1], 1, 5000) && r[1].err == 0, "and completes after reconnection");
	nfsx_ctx_free(c);
	if (fs)
		fake_stop(fs);

	fs = fake_start(0, 0);
	c = mk(fake_port(fs), 10000, 1, 16, 4);
	memset(r, 0, sizeof(r));
	for (i = 0; i < 400; i++)
		nfsx3_getattr(c, &ga, cb_getattr, &r[i]);
	ok(wait_done(c, r, 400, 5000), "nconnect=4: 400 calls complete");
	fake_get_stats(fs, &fst);
	for (i = 0; i < 4; i++)
		if (fst.calls[i] < 50)
			even = false;
	ok(fst.conns == 4 && even, "spread over 4 connections: %u %u %u %u", fst.calls[0],
	   fst.calls[1], fst.calls[2], fst.calls[3]);
	nfsx_ctx_free(c);
	fake_stop(fs);
}

/* A reply must come on the connection its call went out on. */
static void test_cross_reply(void)
{
	struct fake_server *fs = fake_start(0, 0);
	struct nfsx_ctx *c = mk(fake_port(fs), 300, 1, 16, 2);
	static struct res r[8];
	bool timed_out = true;
	int i;

	for (i = 0; i < 8; i++)
		nfsx3_getattr(c, &ga, cb_getattr, &r[i]);
	ok(wait_done(c, r, 8, 3000), "nconnect=2: 8 calls answered on their own connections");
	fake_get_stats(fs, &fst);
	ok(fst.conns == 2, "two connections (%u)", fst.conns);
	fake_set_flags(fs, FAKE_CROSS_REPLY);
	memset(r, 0, sizeof(r));
	for (i = 0; i < 8; i++)
		nfsx3_getattr(c, &ga, cb_getattr, &r[i]);
	ok(wait_done(c, r, 8, 5000), "8 calls answered only on the other connection end");
	for (i = 0; i < 8; i++)
		if (r[i].err != -ETIMEDOUT)
			timed_out = false;
	ok(timed_out, "each with -ETIMEDOUT: replies on the wrong connection are not taken");
	ok(c->stray_replies >= 8, "and counted as stray (%llu)",
	   (unsigned long long)c->stray_replies);
	nfsx_ctx_free(c);
	fake_stop(fs);
}

struct reent {
	int done, sync_r, svc_r, call_r;
	struct res inner;
};

static void cb_reent(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct reent *x = priv;
	struct nfsx_fh fh = { 8, "fakefh!" };
	struct nfsx_attr a;

	(void)err;
	(void)res;
	x->done = 1;
	x->sync_r = nfsx_getattr(ctx, &fh, &a);
	x->svc_r = nfsx_service(ctx);
	x->call_r = nfsx3_getattr(ctx, &ga, cb_getattr, &x->inner);
}

static int cancelled;

static void cb_cancel(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	(void)ctx;
	(void)res;
	(void)priv;
	if (err == -ECANCELED)
		cancelled++;
}

static void test_callbacks_and_cancel(void)
{
	struct fake_server *fs = fake_start(0, 0);
	struct nfsx_ctx *c = mk(fake_port(fs), 10000, 1, 16, 1);
	struct reent x = { 0 };
	int i;

	nfsx3_null(c, cb_reent, &x);
	while (!x.done)
		nfsx_run_once(c, 10);
	ok(x.sync_r == -EDEADLK && x.svc_r == -EDEADLK, "sync API and service refused in a callback");
	ok(x.call_r == 0 && wait_done(c, &x.inner, 1, 3000) && x.inner.err == 0,
	   "a call queued from a callback completes");
	fake_set_flags(fs, FAKE_HOLD);
	for (i = 0; i < 10; i++)
		nfsx3_null(c, cb_cancel, NULL);
	spin(c, 50);
	nfsx_ctx_free(c);
	ok(cancelled == 10, "freeing the context cancels its 10 pending calls (%d)", cancelled);
	fake_stop(fs);
}

int main(void)
{
	test_basic();
	test_slots_and_fairness();
	test_retransmit();
	test_replay();
	test_unknown_and_garbage();
	test_hostile_stream(FAKE_GARBAGE_STREAM, "garbage stream");
	test_hostile_stream(FAKE_HUGE_MARKER, "2 GiB record marker");
	test_early_reply();
	test_refused_and_rpcbind();
	test_restart_and_nconnect();
	test_cross_reply();
	test_callbacks_and_cancel();
	return tap_done();
}
