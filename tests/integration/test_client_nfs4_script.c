/* SPDX-License-Identifier: MIT */
/*
 * libnfsx's NFSv4.1 session rules against a scripted server: a thread
 * of the test on 127.0.0.1 (an ephemeral port) that answers EXCHANGE_ID,
 * CREATE_SESSION (4 slots) and the setup COMPOUNDs, then answers each
 * later COMPOUND as the test's script says, logging the SEQUENCE slot
 * and sequence id of every COMPOUND it received. Checked:
 * - NFS4ERR_DELAY from an operation after SEQUENCE: sent again with the
 *   slot's next sequence id (the first one was used, RFC 8881 2.10.6),
 *   after a back-off (10 ms, then 20 ms);
 * - NFS4ERR_DELAY from SEQUENCE itself: sent again with the same one;
 * - DELAY without end: the call gives up after the context's timeo;
 * - DELAY to EXCHANGE_ID (outside the session): sent again;
 * - the same for the typed asynchronous wrappers (nfsx4_getattr): the
 *   call returns at once, waits out its back-off on the session's timed
 *   list (nothing in the RPC layer meanwhile), is sent again with the
 *   sequence ids above, and its callback runs once with the outcome:
 *   the GETATTR4res, or NFS4ERR_DELAY in it after timeo;
 * - the server's target highest slot id: 0 makes the client use slot 0
 *   only, however many COMPOUNDs it has queued;
 * - a 128-byte handle (NFSv4's largest, NFS-Ganesha's size) is taken;
 * - session recovery, one way for the blocking and the asynchronous
 *   calls: the server loses the session (and the client id) while
 *   nfsx4_getattr calls wait out a DELAY back-off and a blocking call
 *   gets BADSESSION first: one new session, RECLAIM_COMPLETE first on
 *   it, every call done once with success (none failed while the new
 *   session was made, which takes a second here);
 * - DELAY to CREATE_SESSION during a recovery: sent again;
 * - an nfsx4_open sent again after a recovery that made a new client id
 *   carries the new one;
 * - a BADSESSION reply of an old session, read after the new session
 *   is made (the server answers out of order): sent again without using
 *   up the call's one resend after a lost session, so that when the new
 *   session is lost as well the call recovers again and succeeds.
 * - DESTROY_SESSION and DESTROY_CLIENTID when the context is freed.
 * - the minor version: the server speaks 4.1 only (COMPOUNDs of another
 *   answered NFS4ERR_MINOR_VERS_MISMATCH with no result): a context
 *   asking for the highest (version 4, minor 0) sends 4.2 once, then
 *   4.1 for everything; one asking for 4.2 fails with that status and
 *   says so; once the server speaks 4.2, every COMPOUND of a 4.2
 *   context carries minor version 2.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client/internal.h"
#include "client/nfs4.h"
#include "tap.h"
#include "xdr/nfs4_compound.h"

enum script {
	S_OK,             /* every operation succeeds */
	S_OP_DELAY,       /* the operation after SEQUENCE: DELAY (delays left) */
	S_SEQ_DELAY,      /* SEQUENCE: DELAY (delays left) */
};

#define LOG_MAX 1024

struct seqlog {
	uint32_t slot, seq, highest, first_op, sess;
};

static struct {
	pthread_mutex_t lock;
	int lfd;
	uint16_t port;
	enum script script;
	int delays;                /* DELAYs left to give */
	uint32_t target;           /* sr_target_highest_slotid */
	unsigned nlog;
	struct seqlog log[LOG_MAX];
	unsigned destroy_session, destroy_clientid;
	unsigned exchange_ids, exid_delays;
	uint8_t sess;              /* the live session: SID with this last byte */
	uint64_t clientid;         /* the live client id */
	unsigned create_sessions, cs_delays, cs_sleep_ms;
	int kill_after_cs;         /* > 0: kill_after set by the next CREATE_SESSION */
	int kill_after;            /* > 0: the session dies after this many SEQUENCEs */
	bool hold_bad;             /* hold the next BADSESSION reply ... */
	bool hold_now;             /* ... (this one) until a CREATE_SESSION is answered */
	uint32_t max_minor;        /* higher minor versions: MINOR_VERS_MISMATCH */
	unsigned mismatches;       /* COMPOUNDs so refused */
	unsigned minor_counts[3];  /* COMPOUNDs answered, by minor version (0-2) */
} srv = { .max_minor = 1, .lock = PTHREAD_MUTEX_INITIALIZER, .target = 3, .exid_delays = 1, .sess = 1,
	  .clientid = 0x1234, .kill_after_cs = -1 };

static const uint8_t SID[16] = "nfsx-test-sessn";

/* The server drops its session (a restart), and its client id with it
 * when @forget. */
static void srv_restart(bool forget)
{
	pthread_mutex_lock(&srv.lock);
	srv.sess++;
	if (forget)
		srv.clientid++;
	pthread_mutex_unlock(&srv.lock);
}
static uint8_t fh128[128];

static bool read_full(int fd, void *buf, size_t n)
{
	uint8_t *p = buf;

	while (n) {
		ssize_t r = read(fd, p, n);

		if (r <= 0)
			return false;
		p += r;
		n -= (size_t)r;
	}
	return true;
}

static void chan(struct channel_attrs4 *c, uint32_t slots)
{
	memset(c, 0, sizeof(*c));
	c->ca_maxrequestsize = 1u << 20;
	c->ca_maxresponsesize = 1u << 20;
	c->ca_maxresponsesize_cached = 4096;
	c->ca_maxoperations = 16;
	c->ca_maxrequests = slots;
}

/* The results of @ops (@n of them), as the script says. */
static uint32_t answer(const struct nfs_argop4 *ops, uint32_t n, struct nfs_resop4 *res,
		       uint32_t *attrw, uint8_t *attrv)
{
	uint32_t i, status = NFS4_OK;

	pthread_mutex_lock(&srv.lock);
	if (n && ops[0].argop == OP_SEQUENCE && srv.nlog < LOG_MAX) {
		const struct SEQUENCE4args *sa = &ops[0].u.opsequence;

		srv.log[srv.nlog++] = (struct seqlog){ sa->sa_slotid, sa->sa_sequenceid,
						       sa->sa_highest_slotid,
						       n > 1 ? ops[1].argop : 0,
						       sa->sa_sessionid.val[15] };
	}
	srv.hold_now = false;
	for (i = 0; i < n && status == NFS4_OK; i++) {
		struct nfs_resop4 *r = &res[i];

		memset(r, 0, sizeof(*r));
		r->resop = ops[i].argop;
		switch (ops[i].argop) {
		case OP_EXCHANGE_ID:
			srv.exchange_ids++;
			if (srv.exid_delays > 0) {
				srv.exid_delays--;
				status = r->u.opexchange_id.eir_status = NFS4ERR_DELAY;
				break;
			}
			r->u.opexchange_id.u.eir_resok4.eir_clientid = srv.clientid;
			r->u.opexchange_id.u.eir_resok4.eir_sequenceid = 1;
			r->u.opexchange_id.u.eir_resok4.eir_flags = EXCHGID4_FLAG_USE_NON_PNFS;
			break;
		case OP_CREATE_SESSION:
			srv.create_sessions++;
			if (srv.cs_sleep_ms) {
				usleep(srv.cs_sleep_ms * 1000u);
				srv.cs_sleep_ms = 0;
			}
			if (srv.cs_delays > 0) {
				srv.cs_delays--;
				status = r->u.opcreate_session.csr_status = NFS4ERR_DELAY;
				break;
			}
			if (ops[i].u.opcreate_session.csa_clientid != srv.clientid) {
				status = r->u.opcreate_session.csr_status = NFS4ERR_STALE_CLIENTID;
				break;
			}
			srv.sess++;
			if (srv.kill_after_cs >= 0) {
				srv.kill_after = srv.kill_after_cs;
				srv.kill_after_cs = -1;
			}
			memcpy(r->u.opcreate_session.u.csr_resok4.csr_sessionid.val, SID, 16);
			r->u.opcreate_session.u.csr_resok4.csr_sessionid.val[15] = srv.sess;
			r->u.opcreate_session.u.csr_resok4.csr_sequence =
				ops[i].u.opcreate_session.csa_sequence;
			chan(&r->u.opcreate_session.u.csr_resok4.csr_fore_chan_attrs, 4);
			chan(&r->u.opcreate_session.u.csr_resok4.csr_back_chan_attrs, 1);
			break;
		case OP_SEQUENCE: {
			struct SEQUENCE4resok *ok = &r->u.opsequence.u.sr_resok4;

			if (memcmp(ops[i].u.opsequence.sa_sessionid.val, SID, 15) != 0 ||
			    ops[i].u.opsequence.sa_sessionid.val[15] != srv.sess) {
				status = r->u.opsequence.sr_status = NFS4ERR_BADSESSION;
				srv.hold_now = srv.hold_bad;
				srv.hold_bad = false;
				break;
			}
			if (srv.kill_after > 0 && --srv.kill_after == 0)
				srv.sess++; /* after this reply */
			if (srv.script == S_SEQ_DELAY && srv.delays > 0) {
				srv.delays--;
				status = r->u.opsequence.sr_status = NFS4ERR_DELAY;
				break;
			}
			memcpy(ok->sr_sessionid.val, ops[i].u.opsequence.sa_sessionid.val, 16);
			ok->sr_sequenceid = ops[i].u.opsequence.sa_sequenceid;
			ok->sr_slotid = ops[i].u.opsequence.sa_slotid;
			ok->sr_highest_slotid = 3;
			ok->sr_target_highest_slotid = srv.target;
			break;
		}
		case OP_GETATTR:
			/* type and size: a regular file of 4242 bytes */
			attrw[0] = 1u << FATTR4_TYPE | 1u << FATTR4_SIZE;
			xdr__put32(attrv, NF4REG);
			xdr__put32(attrv + 4, 0);
			xdr__put32(attrv + 8, 4242);
			r->u.opgetattr.u.resok4.obj_attributes.attrmask.len = 1;
			r->u.opgetattr.u.resok4.obj_attributes.attrmask.val = attrw;
			r->u.opgetattr.u.resok4.obj_attributes.attr_vals.data = attrv;
			r->u.opgetattr.u.resok4.obj_attributes.attr_vals.len = 12;
			if (ops[0].argop == OP_PUTROOTFH) /* the lease: none given */
				r->u.opgetattr.u.resok4.obj_attributes.attrmask.len = 0,
				r->u.opgetattr.u.resok4.obj_attributes.attr_vals.len = 0;
			break;
		case OP_GETFH:
			/* NFSv4's largest handle, as NFS-Ganesha's all are */
			memset(fh128, 0xab, sizeof(fh128));
			r->u.opgetfh.u.resok4.object.data = fh128;
			r->u.opgetfh.u.resok4.object.len = sizeof(fh128);
			break;
		case OP_OPEN:
			if (ops[i].u.opopen.owner.clientid != srv.clientid)
				status = r->u.opopen.status = NFS4ERR_STALE_CLIENTID;
			break;
		case OP_DESTROY_SESSION:
			srv.destroy_session++;
			break;
		case OP_DESTROY_CLIENTID:
			srv.destroy_clientid++;
			break;
		default:
			break;
		}
		if (i == 1 && srv.script == S_OP_DELAY && srv.delays > 0) {
			srv.delays--;
			status = r->u.opillegal.status = NFS4ERR_DELAY;
		}
	}
	pthread_mutex_unlock(&srv.lock);
	return status;
}

static void *serve(void *arg)
{
	int fd = accept(srv.lfd, NULL, NULL);
	static uint8_t in[1 << 21], out[1 << 16], arena_mem[1 << 20], held[1 << 12];
	size_t held_len = 0;

	(void)arg;
	for (;;) {
		struct nfs_argop4 ops[NFSX4_MAX_OPS];
		struct nfs_resop4 res[NFSX4_MAX_OPS];
		struct nfs4_args_head h;
		struct nfs4_res_head rh;
		struct xdr_arena a;
		struct xdr_dec d;
		struct xdr_enc e;
		struct xdr_bytes cred, verf;
		uint32_t marker, len, xid, v, n = 0, i, attrw[1];
		uint8_t attrv[12];
		uint32_t status;

		if (fd < 0 || !read_full(fd, &marker, 4))
			break;
		len = ntohl(marker) & 0x7fffffffu;
		if (len > sizeof(in) || !read_full(fd, in, len))
			break;
		xdr_arena_init(&a, arena_mem, sizeof(arena_mem));
		xdr_dec_init(&d, in, len, &a);
		if (!xdr_dec_u32(&d, &xid) || !xdr_dec_u32(&d, &v) || !xdr_dec_u32(&d, &v) ||
		    !xdr_dec_u32(&d, &v) || !xdr_dec_u32(&d, &v) || !xdr_dec_u32(&d, &v) ||
		    !xdr_dec_u32(&d, &v) || !xdr_dec_bytes(&d, &cred, 400) ||
		    !xdr_dec_u32(&d, &v) || !xdr_dec_bytes(&d, &verf, 400) ||
		    !nfs4_dec_compound_args_head(&d, &h) || h.nops > NFSX4_MAX_OPS)
			break;
		for (i = 0; i < h.nops; i++)
			if (nfs4_dec_argop(&d, h.minorversion, &ops[i]) != NFS4_OP_DECODED)
				break;
		if (i < h.nops)
			break;
		pthread_mutex_lock(&srv.lock);
		if (h.minorversion > srv.max_minor) {
			/* RFC 8881 16.2.3: no result at all */
			srv.mismatches++;
			pthread_mutex_unlock(&srv.lock);
			status = NFS4ERR_MINOR_VERS_MISMATCH;
			goto reply;
		}
		srv.minor_counts[h.minorversion < 3 ? h.minorversion : 0]++;
		pthread_mutex_unlock(&srv.lock);
		status = answer(ops, h.nops, res, attrw, attrv);
reply:
		for (n = 0; status != NFS4ERR_MINOR_VERS_MISMATCH && n < h.nops; n++)
			if (res[n].u.opillegal.status != NFS4_OK || n + 1 == h.nops) {
				n++;
				break;
			}
		xdr_enc_init(&e, out + 4, sizeof(out) - 4);
		xdr_enc_u32(&e, xid);
		xdr_enc_u32(&e, 1);        /* REPLY */
		xdr_enc_u32(&e, 0);        /* MSG_ACCEPTED */
		xdr_enc_u32(&e, 0);        /* AUTH_NONE */
		xdr_enc_u32(&e, 0);
		xdr_enc_u32(&e, 0);        /* SUCCESS */
		rh.status = (enum nfsstat4)status;
		rh.tag = h.tag;
		rh.nops = n;
		nfs4_enc_compound_res_head(&e, &rh);
		for (i = 0; i < n; i++)
			xdr_enc_nfs_resop4(&e, &res[i]);
		xdr__put32(out, 0x80000000u | (uint32_t)xdr_enc_len(&e));
		if (srv.hold_now && 4 + xdr_enc_len(&e) <= sizeof(held)) {
			/* answered later, after a CREATE_SESSION's reply */
			held_len = 4 + xdr_enc_len(&e);
			memcpy(held, out, held_len);
			continue;
		}
		if (write(fd, out, 4 + xdr_enc_len(&e)) != (ssize_t)(4 + xdr_enc_len(&e)))
			break;
		if (held_len && h.nops && ops[0].argop == OP_CREATE_SESSION && status == NFS4_OK) {
			if (write(fd, held, held_len) != (ssize_t)held_len)
				break;
			held_len = 0;
		}
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

static struct nfsx_ctx *mk(unsigned timeo_ms)
{
	struct nfsx_opts o;
	char err[256];
	struct nfsx_ctx *c;

	nfsx_opts_init(&o);
	o.host = "127.0.0.1";
	o.port = srv.port;
	o.timeo_ms = timeo_ms;
	o.version = 4;
	c = nfsx_ctx_new(&o, err, sizeof(err));
	if (!c)
		printf("# nfsx_ctx_new: %s\n", err);
	return c;
}

static void script(enum script s, int delays)
{
	pthread_mutex_lock(&srv.lock);
	srv.script = s;
	srv.delays = delays;
	pthread_mutex_unlock(&srv.lock);
}

static unsigned log_len(void)
{
	unsigned n;

	pthread_mutex_lock(&srv.lock);
	n = srv.nlog;
	pthread_mutex_unlock(&srv.lock);
	return n;
}

struct aget {
	int calls, err;
	enum nfsstat4 st;
	uint64_t size;
};

static void aget_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct aget *g = priv;
	const struct GETATTR4res *r = res;

	(void)ctx;
	g->calls++;
	g->err = err;
	if (err)
		return;
	g->st = r->status;
	if (r->status == NFS4_OK && r->u.resok4.obj_attributes.attr_vals.len == 12)
		g->size = xdr__get32(r->u.resok4.obj_attributes.attr_vals.data + 8);
}

static void open_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct aget *g = priv;

	(void)ctx;
	g->calls++;
	g->err = err;
	if (!err)
		g->st = ((const struct OPEN4res *)res)->status;
}

/* nfsx4_getattr of @fh under the current script, submitted. */
static int aget_start(struct nfsx_ctx *c, const struct nfsx_fh *fh, struct aget *g)
{
	static uint32_t w[2] = { 1u << FATTR4_TYPE | 1u << FATTR4_SIZE, 0 };
	struct nfsx4_getattr_args a;

	memset(g, 0, sizeof(*g));
	a.fh.data = fh->data;
	a.fh.len = fh->len;
	a.args.attr_request.len = 2;
	a.args.attr_request.val = w;
	return nfsx4_getattr(c, &a, aget_cb, g);
}

/* Run the loop until the @n calls of @g are done, for at most 20 s. */
static void aget_wait(struct nfsx_ctx *c, struct aget *g, unsigned n)
{
	uint64_t end = nc_now() + 20000000000ull;
	unsigned i;

	for (;;) {
		for (i = 0; i < n && g[i].calls; i++)
			;
		if (i == n || nc_now() >= end)
			return;
		nfsx_run_once(c, 5);
	}
}

static bool aget_all_ok(const struct aget *g, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (g[i].calls != 1 || g[i].err != 0 || g[i].st != NFS4_OK || g[i].size != 4242)
			return false;
	return true;
}

/* nfsx4_getattr of @fh under the current script, run to its callback. */
static int aget(struct nfsx_ctx *c, const struct nfsx_fh *fh, struct aget *g,
		unsigned *pending_while_waiting)
{
	uint64_t end = nc_now() + 20000000000ull;
	int r;

	r = aget_start(c, fh, g);
	if (r < 0 || g->calls)
		return r < 0 ? r : -EINPROGRESS; /* a callback from inside the call */
	*pending_while_waiting = 0;
	while (!g->calls && nc_now() < end) {
		nfsx_run_once(c, 5);
		/* between sends: nothing of ours in the RPC layer */
		if (!g->calls && nfsx_pending(c) == 0)
			(*pending_while_waiting)++;
	}
	return 0;
}

static void cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	int *done = priv;

	(void)ctx;
	(void)res;
	if (!err)
		(*done)++;
	else
		(*done) += 1000;
}

int main(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	struct nfsx_fh fh = { 4, { 1, 2, 3, 4 } };
	struct nfsx_attr at;
	struct nfsx_ctx *c;
	pthread_t th;
	uint64_t t0, dt;
	unsigned n0, i;
	int r, done = 0;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	srv.lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (srv.lfd < 0 || bind(srv.lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(srv.lfd, 4) < 0 || getsockname(srv.lfd, (struct sockaddr *)&sa, &sl) < 0) {
		printf("Bail out! no listening socket: %s\n", strerror(errno));
		return 1;
	}
	srv.port = ntohs(sa.sin_port);
	pthread_create(&th, NULL, serve, NULL);

	c = mk(1500);
	ok(c && nfsx4_session_open(c) == 0 && nfsx4_clientid(c) == 0x1234,
	   "session with the scripted server");
	ok(c && nfsx4_minor(c) == 1 && srv.mismatches == 1 && srv.minor_counts[2] == 0,
	   "version 4: 4.2 tried once (MINOR_VERS_MISMATCH: %u), then NFSv4.%u",
	   srv.mismatches, c ? nfsx4_minor(c) : 0);
	ok(srv.exchange_ids == 2, "its EXCHANGE_ID answered DELAY once was sent again (%u)",
	   srv.exchange_ids);
	if (!c)
		return tap_done();

	/* DELAY from the operation after SEQUENCE */
	script(S_OP_DELAY, 2);
	n0 = log_len();
	t0 = nc_now();
	r = nfsx_getattr(c, &fh, &at);
	dt = nc_now() - t0;
	ok(r == 0 && at.size == 4242 && at.type == NF3REG, "GETATTR after two DELAYs: %s",
	   nfsx_strerror(r));
	ok(log_len() - n0 == 3 && srv.log[n0].slot == 0 && srv.log[n0 + 1].slot == 0 &&
	   srv.log[n0 + 1].seq == srv.log[n0].seq + 1 && srv.log[n0 + 2].seq == srv.log[n0].seq + 2,
	   "sent 3 times, each with the slot's next sequence id (%u, %u, %u)",
	   srv.log[n0].seq, srv.log[n0 + 1].seq, srv.log[n0 + 2].seq);
	ok(dt >= 30000000ull, "after a back-off of 10 + 20 ms (%llu ms)",
	   (unsigned long long)(dt / 1000000));

	/* DELAY from SEQUENCE */
	script(S_SEQ_DELAY, 2);
	n0 = log_len();
	r = nfsx_getattr(c, &fh, &at);
	ok(r == 0 && at.size == 4242, "GETATTR after two DELAYs of SEQUENCE: %s", nfsx_strerror(r));
	ok(log_len() - n0 == 3 && srv.log[n0].seq == srv.log[n0 + 1].seq &&
	   srv.log[n0 + 1].seq == srv.log[n0 + 2].seq && srv.log[n0].seq == srv.log[n0 - 1].seq + 1,
	   "sent 3 times with the same sequence id (%u, %u, %u): SEQUENCE did not use it",
	   srv.log[n0].seq, srv.log[n0 + 1].seq, srv.log[n0 + 2].seq);

	/* DELAY without end */
	script(S_OP_DELAY, 1 << 30);
	n0 = log_len();
	t0 = nc_now();
	r = nfsx_getattr(c, &fh, &at);
	dt = nc_now() - t0;
	ok(r == NFS4ERR_DELAY && dt >= 1500000000ull && dt < 6000000000ull && log_len() - n0 >= 4,
	   "DELAY without end: NFS4ERR_DELAY after timeo (%llu ms, %u tries)",
	   (unsigned long long)(dt / 1000000), log_len() - n0);

	/* The same through the asynchronous wrapper */
	{
		struct aget g;
		unsigned idle = 0;

		script(S_OP_DELAY, 2);
		n0 = log_len();
		t0 = nc_now();
		r = aget(c, &fh, &g, &idle);
		dt = nc_now() - t0;
		ok(r == 0 && g.calls == 1 && g.err == 0 && g.st == NFS4_OK && g.size == 4242,
		   "nfsx4_getattr after two DELAYs: one callback, GETATTR4res ok, size %llu",
		   (unsigned long long)g.size);
		ok(log_len() - n0 == 3 && srv.log[n0 + 1].seq == srv.log[n0].seq + 1 &&
		   srv.log[n0 + 2].seq == srv.log[n0].seq + 2 && dt >= 30000000ull && idle > 0,
		   "sent 3 times with the slot's next sequence ids, after 10 + 20 ms (%llu ms) "
		   "waited outside the RPC layer", (unsigned long long)(dt / 1000000));
		script(S_SEQ_DELAY, 2);
		n0 = log_len();
		r = aget(c, &fh, &g, &idle);
		ok(r == 0 && g.calls == 1 && g.st == NFS4_OK && log_len() - n0 == 3 &&
		   srv.log[n0].seq == srv.log[n0 + 1].seq && srv.log[n0 + 1].seq == srv.log[n0 + 2].seq,
		   "after two DELAYs of SEQUENCE: the same sequence id each time (%u, %u, %u)",
		   srv.log[n0].seq, srv.log[n0 + 1].seq, srv.log[n0 + 2].seq);
		script(S_OP_DELAY, 1 << 30);
		n0 = log_len();
		t0 = nc_now();
		r = aget(c, &fh, &g, &idle);
		dt = nc_now() - t0;
		ok(r == 0 && g.calls == 1 && g.err == 0 && g.st == NFS4ERR_DELAY &&
		   dt >= 1500000000ull && dt < 6000000000ull && log_len() - n0 >= 4,
		   "DELAY without end: the GETATTR4res says NFS4ERR_DELAY after timeo (%llu ms, %u tries)",
		   (unsigned long long)(dt / 1000000), log_len() - n0);
	}

	/* NFSv4's largest handle */
	script(S_OK, 0);
	{
		struct nfsx_fh got;

		memset(&got, 0, sizeof(got));
		r = nfsx_lookup(c, &fh, "f", &got, NULL);
		ok(r == 0 && got.len == 128 && got.data[0] == 0xab,
		   "a 128-byte handle from GETFH is taken (len %u): %s", got.len, nfsx_strerror(r));
	}

	/* The server's target: slot 0 only */
	script(S_OK, 0);
	pthread_mutex_lock(&srv.lock);
	srv.target = 0;
	pthread_mutex_unlock(&srv.lock);
	r = nfsx_getattr(c, &fh, &at); /* the reply tells the target */
	ok(r == 0, "a GETATTR tells the new target");
	n0 = log_len();
	{
		struct nfs_argop4 op;

		memset(&op, 0, sizeof(op));
		op.argop = OP_PUTROOTFH;
		for (i = 0; i < 20; i++)
			nfsx4_call(c, &op, 1, cb, &done);
		while (done < 20)
			nfsx_run_once(c, -1);
	}
	{
		bool slot0 = true;

		for (i = n0; i < log_len(); i++)
			if (srv.log[i].slot != 0 || srv.log[i].highest != 0)
				slot0 = false;
		ok(done == 20 && log_len() - n0 == 20 && slot0,
		   "20 COMPOUNDs queued at once went through slot 0 only (target 0)");
	}
	pthread_mutex_lock(&srv.lock);
	srv.target = 3;
	pthread_mutex_unlock(&srv.lock);
	r = nfsx_getattr(c, &fh, &at);
	n0 = log_len();
	done = 0;
	{
		struct nfs_argop4 op;
		bool above0 = false;

		memset(&op, 0, sizeof(op));
		op.argop = OP_PUTROOTFH;
		for (i = 0; i < 20; i++)
			nfsx4_call(c, &op, 1, cb, &done);
		while (done < 20)
			nfsx_run_once(c, -1);
		for (i = n0; i < log_len(); i++)
			if (srv.log[i].slot > 3)
				break;
			else if (srv.log[i].slot > 0)
				above0 = true;
		ok(r == 0 && done == 20 && i == log_len() && above0,
		   "target 3: slots 1 to 3 in use as well, none above");
	}

	/* The session and the client id lost while calls wait out a DELAY
	 * back-off; a blocking call gets BADSESSION first. */
	{
		struct aget g[3];
		unsigned cs0, sess0, rc = 0;

		script(S_OP_DELAY, 1 << 30);
		n0 = log_len();
		for (i = 0; i < 3; i++)
			aget_start(c, &fh, &g[i]);
		/* six DELAYs each: the next sends are 320 ms away */
		t0 = nc_now();
		while ((log_len() - n0 < 18 || nfsx_pending(c) != 0) &&
		       nc_now() - t0 < 10000000000ull)
			nfsx_run_once(c, 1);
		srv_restart(true);
		pthread_mutex_lock(&srv.lock);
		srv.script = S_OK;
		srv.cs_sleep_ms = 1000;
		cs0 = srv.create_sessions;
		sess0 = srv.sess;
		pthread_mutex_unlock(&srv.lock);
		n0 = log_len();
		r = nfsx_getattr(c, &fh, &at);
		aget_wait(c, g, 3);
		for (i = n0; i < log_len(); i++)
			if (srv.log[i].sess == srv.sess) {
				rc = srv.log[i].first_op;
				break;
			}
		ok(r == 0 && at.size == 4242 && aget_all_ok(g, 3),
		   "session lost while 3 nfsx4_getattr wait after DELAY, a blocking call first: "
		   "all done once with success (%s; %d %d %d)", nfsx_strerror(r), g[0].err,
		   g[1].err, g[2].err);
		ok(srv.create_sessions - cs0 == 2 && srv.sess - sess0 == 1 && rc == OP_RECLAIM_COMPLETE &&
		   nfsx4_clientid(c) == srv.clientid,
		   "one new session with a new client id, RECLAIM_COMPLETE first on it "
		   "(%u CREATE_SESSION, first op %u)", srv.create_sessions - cs0, rc);
	}

	/* DELAY to CREATE_SESSION during a recovery */
	{
		struct aget g;
		unsigned cs0, sess0;

		srv_restart(false);
		pthread_mutex_lock(&srv.lock);
		srv.cs_delays = 1;
		cs0 = srv.create_sessions;
		sess0 = srv.sess;
		pthread_mutex_unlock(&srv.lock);
		aget_start(c, &fh, &g);
		r = nfsx_getattr(c, &fh, &at);
		aget_wait(c, &g, 1);
		ok(r == 0 && aget_all_ok(&g, 1) && srv.create_sessions - cs0 == 2 &&
		   srv.sess - sess0 == 1,
		   "CREATE_SESSION answered DELAY during a recovery: sent again, one new session, "
		   "both calls done (%s, %d/%u)", nfsx_strerror(r), g.err, g.st);
	}

	/* nfsx4_open across a new client id */
	{
		struct nfsx4_open_args oa;
		struct aget g;
		int rc = -1;

		srv_restart(true);
		memset(&oa, 0, sizeof(oa));
		oa.fh.data = fh.data;
		oa.fh.len = fh.len;
		oa.share_access = OPEN4_SHARE_ACCESS_READ;
		oa.share_deny = OPEN4_SHARE_DENY_NONE;
		memset(&g, 0, sizeof(g));
		if (nfsx4_open(c, &oa, open_cb, &g) == 0) {
			aget_wait(c, &g, 1);
			rc = g.calls == 1 && g.err == 0 ? (int)g.st : -1;
		}
		ok(rc == NFS4_OK && nfsx4_clientid(c) == srv.clientid,
		   "nfsx4_open sent again after a new client id carries it (%d)", rc);
	}

	/* A BADSESSION of the old session read after the new one is made;
	 * the new session is lost in turn before that call is sent again. */
	{
		struct aget g[2];
		unsigned cs0;

		srv_restart(false);
		pthread_mutex_lock(&srv.lock);
		srv.hold_bad = true;
		srv.kill_after_cs = 1;
		cs0 = srv.create_sessions;
		pthread_mutex_unlock(&srv.lock);
		aget_start(c, &fh, &g[0]);
		aget_start(c, &fh, &g[1]);
		aget_wait(c, g, 2);
		ok(aget_all_ok(g, 2) && srv.create_sessions - cs0 == 2,
		   "a stale BADSESSION does not use up the resend: both calls done after two "
		   "recoveries (%d/%u, %d/%u; %u CREATE_SESSION)", g[0].err, g[0].st, g[1].err,
		   g[1].st, srv.create_sessions - cs0);
	}

	nfsx_ctx_free(c);
	pthread_join(th, NULL);
	ok(srv.destroy_session == 1 && srv.destroy_clientid == 1 && srv.minor_counts[2] == 0 &&
	   srv.minor_counts[1] > 0,
	   "freeing the context: DESTROY_SESSION and DESTROY_CLIENTID; every COMPOUND "
	   "was minor version 1 (%u)", srv.minor_counts[1]);
	/* An explicit 4.2 that the server refuses: the status, said. */
	{
		struct nfsx_opts o;
		char err[256];
		unsigned m0 = srv.mismatches, n1 = srv.minor_counts[1];

		nfsx_opts_init(&o);
		o.host = "127.0.0.1";
		o.port = srv.port;
		o.timeo_ms = 1500;
		o.version = 4;
		o.minor = 2;
		pthread_create(&th, NULL, serve, NULL);
		c = nfsx_ctx_new(&o, err, sizeof(err));
		r = c ? nfsx4_session_open(c) : -1;
		ok(r == NFS4ERR_MINOR_VERS_MISMATCH && srv.mismatches == m0 + 1 &&
		   srv.minor_counts[1] == n1 && strstr(nfsx_ctx_error(c), "NFSv4.2 refused"),
		   "minor 2 asked of a 4.1 server: %s (%s), nothing sent as 4.1",
		   nfsx_strerror(r), c ? nfsx_ctx_error(c) : "");
		nfsx_ctx_free(c);
		pthread_join(th, NULL);
		o.minor = 3;
		c = nfsx_ctx_new(&o, err, sizeof(err));
		ok(!c && strstr(err, "minor version 3"), "minor 3 refused by nfsx_ctx_new: %s", err);
		nfsx_ctx_free(c);
		/* The server speaks 4.2 now: every COMPOUND says 2. */
		srv.max_minor = 2;
		o.minor = 2;
		m0 = srv.mismatches;
		n1 = srv.minor_counts[1];
		pthread_create(&th, NULL, serve, NULL);
		c = nfsx_ctx_new(&o, err, sizeof(err));
		r = c ? nfsx4_session_open(c) : -1;
		if (r == 0)
			r = nfsx_getattr(c, &fh, &at);
		ok(r == 0 && nfsx4_minor(c) == 2 && srv.minor_counts[2] >= 4 &&
		   srv.minor_counts[1] == n1 && srv.mismatches == m0,
		   "a 4.2 context of a 4.2 server: EXCHANGE_ID, CREATE_SESSION and the rest "
		   "carry 2 (%u COMPOUNDs): %s", srv.minor_counts[2], nfsx_strerror(r));
		nfsx_ctx_free(c);
		pthread_join(th, NULL);
	}
	close(srv.lfd);
	return tap_done();
}
