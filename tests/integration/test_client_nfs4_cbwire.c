/* SPDX-License-Identifier: MIT */
/*
 * libnfsx's NFSv4.1 back channel on the wire, against a scripted server
 * in a thread of the test (127.0.0.1, an ephemeral port) that binds the
 * back channel at CREATE_SESSION and then sends calls of its own on the
 * client's connection, among its replies, as the test says:
 * - CB_NULL: answered SUCCESS, nothing after the header;
 * - CB_SEQUENCE + CB_RECALL of a stateid the client does not hold:
 *   NFS4ERR_BAD_STATEID; the same call again (same slot and sequence id,
 *   another xid): the same reply bytes from the slot's cache;
 * - an OPEN asking for a read delegation gets one (the server grants
 *   it); CB_RECALL of it: NFS4_OK, then DELEGRETURN of that stateid
 *   arrives on the fore channel after the recall's reply;
 * - a recall while a WRITE of the file is in flight (the server holds
 *   its reply): NFS4_OK at once, the DELEGRETURN only after the WRITE's
 *   reply;
 * - a call of another program: PROG_UNAVAIL;
 * - SEQUENCE saying CB_PATH_DOWN_SESSION: BIND_CONN_TO_SESSION for the
 *   back channel, once;
 * - the client's own calls keep working meanwhile;
 * - NFSv4.2 asynchronous COPY (nfsx4_copy_async): a COPY done at once
 *   (no callback id) completes from its reply; one answered with a
 *   callback id completes when CB_OFFLOAD (a CB_COMPOUND of minor
 *   version 2) brings its outcome, after the reply or before it; the
 *   callback runs once with the count and verifier CB_OFFLOAD carried;
 *   CB_OFFLOADs of ids no COPY named are kept up to a bound, then
 *   answered NFS4ERR_DELAY.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "client/nfsx.h"
#include "tap.h"
#include "xdr/gen/rpc.h"
#include "xdr/nfs4_compound.h"

#define REPLIES_MAX 64
#define REPLY_BYTES 2048

static const uint8_t SID[16] = "nfsx-cbwire-sess";
static const struct stateid4 DSID = { 1, { 0xd1, 0xd2, 0xd3, 4, 5, 6, 7, 8, 9, 10, 11, 12 } };

static struct {
	pthread_mutex_t lock;
	int lfd, fd;
	uint16_t port;
	unsigned events;           /* every record in or out, in order */
	unsigned nreplies;
	struct {
		uint32_t xid;
		unsigned event;
		size_t len;
		uint8_t data[REPLY_BYTES];
	} replies[REPLIES_MAX];
	unsigned delegreturns, delegreturn_event;
	bool delegreturn_sid_ok;
	uint32_t cb_program;
	bool back_chan_asked;
	bool path_down;            /* the next SEQUENCE says CB_PATH_DOWN_SESSION */
	bool hold_writes;          /* keep the reply to a WRITE until released */
	size_t held_len;
	uint8_t held[4096];
	unsigned writes;
	unsigned binds;            /* BIND_CONN_TO_SESSION for the back channel */
	int offload;               /* COPY: 0 done at once, 1 CB_OFFLOAD after the
				    * reply, 2 before it */
	unsigned copies;
	bool copy_async_asked;     /* the last COPY had ca_synchronous false */
	struct stateid4 cbid;      /* the last COPY's callback id */
	uint32_t cb_seq;           /* the back channel slot 0's last sequence id */
	uint32_t cb_minor;         /* minor version of the server's CB_COMPOUNDs (1) */
} srv = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

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

static bool write_rec(const uint8_t *buf, size_t n)
{
	bool ok;

	pthread_mutex_lock(&srv.lock);
	ok = srv.fd >= 0 && write(srv.fd, buf, n) == (ssize_t)n;
	srv.events++;
	pthread_mutex_unlock(&srv.lock);
	return ok;
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

static uint32_t answer(const struct nfs_argop4 *ops, uint32_t n, struct nfs_resop4 *res)
{
	uint32_t i;

	pthread_mutex_lock(&srv.lock);
	for (i = 0; i < n; i++) {
		struct nfs_resop4 *r = &res[i];

		memset(r, 0, sizeof(*r));
		r->resop = ops[i].argop;
		switch (ops[i].argop) {
		case OP_EXCHANGE_ID:
			r->u.opexchange_id.u.eir_resok4.eir_clientid = 0x77;
			r->u.opexchange_id.u.eir_resok4.eir_sequenceid = 1;
			r->u.opexchange_id.u.eir_resok4.eir_flags = EXCHGID4_FLAG_USE_NON_PNFS;
			break;
		case OP_CREATE_SESSION: {
			struct CREATE_SESSION4resok *ok = &r->u.opcreate_session.u.csr_resok4;

			srv.back_chan_asked = ops[i].u.opcreate_session.csa_flags &
					      CREATE_SESSION4_FLAG_CONN_BACK_CHAN;
			srv.cb_program = ops[i].u.opcreate_session.csa_cb_program;
			memcpy(ok->csr_sessionid.val, SID, 16);
			ok->csr_sequence = ops[i].u.opcreate_session.csa_sequence;
			ok->csr_flags = ops[i].u.opcreate_session.csa_flags &
					CREATE_SESSION4_FLAG_CONN_BACK_CHAN;
			chan(&ok->csr_fore_chan_attrs, 4);
			ok->csr_back_chan_attrs = ops[i].u.opcreate_session.csa_back_chan_attrs;
			break;
		}
		case OP_SEQUENCE: {
			struct SEQUENCE4resok *ok = &r->u.opsequence.u.sr_resok4;

			memcpy(ok->sr_sessionid.val, SID, 16);
			ok->sr_sequenceid = ops[i].u.opsequence.sa_sequenceid;
			ok->sr_slotid = ops[i].u.opsequence.sa_slotid;
			ok->sr_highest_slotid = 3;
			ok->sr_target_highest_slotid = 3;
			if (srv.path_down)
				ok->sr_status_flags = SEQ4_STATUS_CB_PATH_DOWN_SESSION;
			srv.path_down = false;
			break;
		}
		case OP_BIND_CONN_TO_SESSION:
			if (!memcmp(ops[i].u.opbind_conn_to_session.bctsa_sessid.val, SID, 16) &&
			    ops[i].u.opbind_conn_to_session.bctsa_dir == CDFC4_BACK_OR_BOTH)
				srv.binds++;
			memcpy(r->u.opbind_conn_to_session.u.bctsr_resok4.bctsr_sessid.val, SID, 16);
			r->u.opbind_conn_to_session.u.bctsr_resok4.bctsr_dir = CDFS4_BOTH;
			break;
		case OP_OPEN: {
			struct OPEN4resok *ok = &r->u.opopen.u.resok4;

			ok->stateid.seqid = 1;
			memset(ok->stateid.other, 0x0e, sizeof(ok->stateid.other));
			if (ops[i].u.opopen.share_access & OPEN4_SHARE_ACCESS_WANT_READ_DELEG) {
				ok->delegation.delegation_type = OPEN_DELEGATE_READ;
				ok->delegation.u.read.stateid = DSID;
				ok->delegation.u.read.permissions.who.data = (const uint8_t *)"";
			} else {
				ok->delegation.delegation_type = OPEN_DELEGATE_NONE;
			}
			break;
		}
		case OP_WRITE:
			srv.writes++;
			r->u.opwrite.u.resok4.count = ops[i].u.opwrite.data.len;
			r->u.opwrite.u.resok4.committed = FILE_SYNC4;
			break;
		case OP_COPY: {
			struct COPY4resok *ok = &r->u.opcopy.u.cr_resok4;

			srv.copies++;
			srv.copy_async_asked = !ops[i].u.opcopy.ca_synchronous;
			ok->cr_requirements.cr_consecutive = true;
			if (srv.offload == 0) {
				ok->cr_response.wr_count = ops[i].u.opcopy.ca_count;
				ok->cr_response.wr_committed = FILE_SYNC4;
				ok->cr_requirements.cr_synchronous = true;
				break;
			}
			srv.cbid.seqid = 1;
			memset(srv.cbid.other, 0xc0 + (int)srv.copies, sizeof(srv.cbid.other));
			ok->cr_response.wr_callback_id.len = 1;
			ok->cr_response.wr_callback_id.val = &srv.cbid;
			ok->cr_response.wr_committed = UNSTABLE4;
			break;
		}
		case OP_DELEGRETURN:
			srv.delegreturns++;
			srv.delegreturn_event = srv.events;
			srv.delegreturn_sid_ok =
				!memcmp(ops[i].u.opdelegreturn.deleg_stateid.other, DSID.other, 12);
			break;
		default:
			break; /* PUTFH, PUTROOTFH, GETATTR (nothing), RECLAIM_COMPLETE, DESTROY_* */
		}
	}
	srv.events++;
	pthread_mutex_unlock(&srv.lock);
	return NFS4_OK;
}

static bool cb_send(uint32_t xid, uint32_t prog, uint32_t proc, struct nfs_cb_argop4 *ops,
		    uint32_t n);

/* The last CB_SEQUENCE id sent on slot 0. */
static uint32_t cb_seq_now(void)
{
	uint32_t seq;

	pthread_mutex_lock(&srv.lock);
	seq = srv.cb_seq;
	pthread_mutex_unlock(&srv.lock);
	return seq;
}

/* CB_SEQUENCE + CB_OFFLOAD of callback id @id: 4242 bytes copied,
 * FILE_SYNC4, verifier "offload!" (xid 300 + sequence id). */

static bool send_offload(const struct stateid4 *id)
{
	static uint8_t fh[4] = { 5, 6, 7, 8 };
	struct nfs_cb_argop4 ops[2];
	struct write_response4 *w;
	uint32_t seq;

	memset(ops, 0, sizeof(ops));
	/* sent by the server thread and by the test's own */
	pthread_mutex_lock(&srv.lock);
	seq = ++srv.cb_seq;
	pthread_mutex_unlock(&srv.lock);
	ops[0].argop = OP_CB_SEQUENCE;
	memcpy(ops[0].u.opcbsequence.csa_sessionid.val, SID, 16);
	ops[0].u.opcbsequence.csa_sequenceid = seq;
	ops[1].argop = OP_CB_OFFLOAD;
	ops[1].u.opcboffload.coa_fh.data = fh;
	ops[1].u.opcboffload.coa_fh.len = sizeof(fh);
	ops[1].u.opcboffload.coa_stateid = *id;
	ops[1].u.opcboffload.coa_offload_info.coa_status = NFS4_OK;
	w = &ops[1].u.opcboffload.coa_offload_info.u.coa_resok4;
	w->wr_count = 4242;
	w->wr_committed = FILE_SYNC4;
	memcpy(w->wr_writeverf.val, "offload!", 8);
	return cb_send(300 + seq, 0x40000000, CB_COMPOUND, ops, 2);
}

static void *serve(void *arg)
{
	static uint8_t in[1 << 20], out[1 << 16], arena_mem[1 << 20];
	int fd = accept(srv.lfd, NULL, NULL);

	(void)arg;
	pthread_mutex_lock(&srv.lock);
	srv.fd = fd;
	pthread_mutex_unlock(&srv.lock);
	for (;;) {
		struct nfs_argop4 ops[NFSX4_MAX_OPS];
		struct nfs_resop4 res[NFSX4_MAX_OPS];
		struct nfs4_args_head h;
		struct nfs4_res_head rh;
		struct xdr_arena a;
		struct xdr_dec d;
		struct xdr_enc e;
		struct xdr_bytes cred, verf;
		uint32_t marker, len, xid, mtype, v, i;
		int offload;

		if (fd < 0 || !read_full(fd, &marker, 4))
			break;
		len = ntohl(marker) & 0x7fffffffu;
		if (len > sizeof(in) || len < 8 || !read_full(fd, in, len))
			break;
		xid = xdr__get32(in);
		mtype = xdr__get32(in + 4);
		if (mtype == REPLY) {
			pthread_mutex_lock(&srv.lock);
			if (srv.nreplies < REPLIES_MAX && len <= REPLY_BYTES) {
				srv.replies[srv.nreplies].xid = xid;
				srv.replies[srv.nreplies].event = srv.events;
				srv.replies[srv.nreplies].len = len;
				memcpy(srv.replies[srv.nreplies].data, in, len);
				srv.nreplies++;
			}
			srv.events++;
			pthread_mutex_unlock(&srv.lock);
			continue;
		}
		xdr_arena_init(&a, arena_mem, sizeof(arena_mem));
		xdr_dec_init(&d, in + 8, len - 8, &a);
		if (!xdr_dec_u32(&d, &v) || !xdr_dec_u32(&d, &v) || !xdr_dec_u32(&d, &v) ||
		    !xdr_dec_u32(&d, &v) || !xdr_dec_u32(&d, &v) || !xdr_dec_bytes(&d, &cred, 400) ||
		    !xdr_dec_u32(&d, &v) || !xdr_dec_bytes(&d, &verf, 400) ||
		    !nfs4_dec_compound_args_head(&d, &h) || h.nops > NFSX4_MAX_OPS)
			break;
		for (i = 0; i < h.nops; i++)
			if (nfs4_dec_argop(&d, h.minorversion, &ops[i]) != NFS4_OP_DECODED)
				break;
		if (i < h.nops)
			break;
		answer(ops, h.nops, res);
		pthread_mutex_lock(&srv.lock);
		offload = srv.offload;
		pthread_mutex_unlock(&srv.lock);
		xdr_enc_init(&e, out + 4, sizeof(out) - 4);
		xdr_enc_u32(&e, xid);
		xdr_enc_u32(&e, REPLY);
		xdr_enc_u32(&e, MSG_ACCEPTED);
		xdr_enc_u32(&e, AUTH_NONE);
		xdr_enc_u32(&e, 0);
		xdr_enc_u32(&e, SUCCESS);
		rh.status = NFS4_OK;
		rh.tag = h.tag;
		rh.nops = h.nops;
		nfs4_enc_compound_res_head(&e, &rh);
		for (i = 0; i < h.nops; i++)
			xdr_enc_nfs_resop4(&e, &res[i]);
		xdr__put32(out, 0x80000000u | (uint32_t)xdr_enc_len(&e));
		if (h.nops == 5 && ops[4].argop == OP_COPY && offload == 2 &&
		    !send_offload(&srv.cbid))
			break;
		pthread_mutex_lock(&srv.lock);
		if (srv.hold_writes && h.nops == 3 && ops[2].argop == OP_WRITE &&
		    4 + xdr_enc_len(&e) <= sizeof(srv.held)) {
			srv.held_len = 4 + xdr_enc_len(&e);
			memcpy(srv.held, out, srv.held_len);
			pthread_mutex_unlock(&srv.lock);
			continue;
		}
		pthread_mutex_unlock(&srv.lock);
		if (!write_rec(out, 4 + xdr_enc_len(&e)))
			break;
		if (h.nops == 5 && ops[4].argop == OP_COPY && offload == 1 &&
		    !send_offload(&srv.cbid))
			break;
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* A call of the server's: CB_NULL (@ops NULL) or a CB_COMPOUND of @n
 * operations, to program @prog, with @xid; sent on the client's
 * connection. */
static bool cb_send(uint32_t xid, uint32_t prog, uint32_t proc, struct nfs_cb_argop4 *ops,
		    uint32_t n)
{
	static uint8_t buf[4096];
	struct CB_COMPOUND4args a;
	struct xdr_enc e;

	xdr_enc_init(&e, buf + 4, sizeof(buf) - 4);
	xdr_enc_u32(&e, xid);
	xdr_enc_u32(&e, CALL);
	xdr_enc_u32(&e, 2);
	xdr_enc_u32(&e, prog);
	xdr_enc_u32(&e, 1);
	xdr_enc_u32(&e, proc);
	xdr_enc_u32(&e, AUTH_NONE);
	xdr_enc_u32(&e, 0);
	xdr_enc_u32(&e, AUTH_NONE);
	xdr_enc_u32(&e, 0);
	if (proc == CB_COMPOUND) {
		memset(&a, 0, sizeof(a));
		a.tag.data = (const uint8_t *)"";
		pthread_mutex_lock(&srv.lock);
		a.minorversion = srv.cb_minor ? srv.cb_minor : 1;
		pthread_mutex_unlock(&srv.lock);
		a.argarray.len = n;
		a.argarray.val = ops;
		if (!xdr_enc_CB_COMPOUND4args(&e, &a))
			return false;
	}
	xdr__put32(buf, 0x80000000u | (uint32_t)xdr_enc_len(&e));
	return write_rec(buf, 4 + xdr_enc_len(&e));
}

static void seq_recall(struct nfs_cb_argop4 *ops, uint32_t seq, const struct stateid4 *sid)
{
	static uint8_t fh[4] = { 1, 2, 3, 4 };

	memset(ops, 0, 2 * sizeof(*ops));
	ops[0].argop = OP_CB_SEQUENCE;
	memcpy(ops[0].u.opcbsequence.csa_sessionid.val, SID, 16);
	ops[0].u.opcbsequence.csa_sequenceid = seq;
	ops[0].u.opcbsequence.csa_slotid = 0;
	ops[1].argop = OP_CB_RECALL;
	ops[1].u.opcbrecall.stateid = *sid;
	ops[1].u.opcbrecall.fh.data = fh;
	ops[1].u.opcbrecall.fh.len = sizeof(fh);
}

/* Run the client's loop until the server holds the reply to @xid (5 s). */
static int reply_of(struct nfsx_ctx *c, uint32_t xid)
{
	time_t end = time(NULL) + 5;

	while (time(NULL) <= end) {
		pthread_mutex_lock(&srv.lock);
		for (unsigned i = 0; i < srv.nreplies; i++) {
			if (srv.replies[i].xid == xid) {
				pthread_mutex_unlock(&srv.lock);
				return (int)i;
			}
		}
		pthread_mutex_unlock(&srv.lock);
		nfsx_run_once(c, 10);
	}
	return -1;
}

/* The accept_stat of reply @i (MSG_ACCEPTED, AUTH_NONE verifier), or -1. */
static int64_t accept_stat(int i)
{
	const uint8_t *p = srv.replies[i].data;

	if (i < 0 || srv.replies[i].len < 24 || xdr__get32(p + 8) != MSG_ACCEPTED)
		return -1;
	return xdr__get32(p + 20);
}

/* CB_COMPOUND4res's status in reply @i (no tag), or -1. */
static int64_t cb_status(int i)
{
	if (accept_stat(i) != SUCCESS || srv.replies[i].len < 32)
		return -1;
	return xdr__get32(srv.replies[i].data + 24);
}

struct open_out {
	int done, err;
	enum nfsstat4 st;
	enum open_delegation_type4 deleg;
};

static void open_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct open_out *o = priv;
	const struct OPEN4res *r = res;

	(void)ctx;
	o->done = 1;
	o->err = err;
	if (!err && (o->st = r->status) == NFS4_OK)
		o->deleg = r->u.resok4.delegation.delegation_type;
}

static void write_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	int *done = priv;

	(void)ctx;
	(void)res;
	*done = err ? -1 : 1;
}

static unsigned delegreturns(void)
{
	unsigned n;

	pthread_mutex_lock(&srv.lock);
	n = srv.delegreturns;
	pthread_mutex_unlock(&srv.lock);
	return n;
}

static size_t held_len(void)
{
	size_t n;

	pthread_mutex_lock(&srv.lock);
	n = srv.held_len;
	pthread_mutex_unlock(&srv.lock);
	return n;
}

/* A recall while a WRITE of the file is in flight. */
static void test_write_then_return(struct nfsx_ctx *c)
{
	static const uint8_t data[] = "data";
	struct nfs_cb_argop4 ops[2];
	struct nfsx4_open_args oa;
	struct nfsx4_write_args wa;
	struct open_out oo = { 0 };
	unsigned n0 = delegreturns();
	int i, wdone = 0, k;
	time_t end;

	memset(&oa, 0, sizeof(oa));
	oa.fh.data = (const uint8_t *)"\1\2\3\4";
	oa.fh.len = 4;
	oa.share_access = OPEN4_SHARE_ACCESS_READ | OPEN4_SHARE_ACCESS_WANT_READ_DELEG;
	if (nfsx4_open(c, &oa, open_cb, &oo) == 0)
		for (end = time(NULL) + 5; !oo.done && time(NULL) <= end;)
			nfsx_run_once(c, 10);
	pthread_mutex_lock(&srv.lock);
	srv.hold_writes = true;
	pthread_mutex_unlock(&srv.lock);
	memset(&wa, 0, sizeof(wa));
	wa.fh = oa.fh;
	wa.args.stable = FILE_SYNC4;
	wa.args.data.data = data;
	wa.args.data.len = 4;
	ok(oo.deleg == OPEN_DELEGATE_READ && nfsx4_write(c, &wa, write_cb, &wdone) == 0,
	   "a delegation again, and a WRITE of its file sent");
	for (k = 0; k < 50 && !held_len(); k++)
		nfsx_run_once(c, 10);
	seq_recall(ops, 3, &DSID);
	i = cb_send(106, 0x40000000, CB_COMPOUND, ops, 2) ? reply_of(c, 106) : -1;
	for (k = 0; k < 30; k++)
		nfsx_run_once(c, 10);
	ok(held_len() && i >= 0 && cb_status(i) == NFS4_OK && delegreturns() == n0 && !wdone,
	   "recalled while the WRITE is in flight: NFS4_OK at once, no DELEGRETURN yet");
	pthread_mutex_lock(&srv.lock);
	srv.hold_writes = false;
	pthread_mutex_unlock(&srv.lock);
	write_rec(srv.held, srv.held_len);
	for (end = time(NULL) + 5; time(NULL) <= end && delegreturns() == n0;)
		nfsx_run_once(c, 10);
	ok(wdone == 1 && delegreturns() == n0 + 1,
	   "the WRITE's reply, then the DELEGRETURN");
}

struct copy_out {
	int calls, err;
	struct nfsx4_copy_done d;
};

static void copy_cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct copy_out *o = priv;

	(void)ctx;
	o->calls++;
	o->err = err;
	if (!err)
		o->d = *(const struct nfsx4_copy_done *)res;
}

/* One nfsx4_copy_async with the server's COPY in @mode; waits up to 5 s
 * for its callback and 100 ms more for a second one. */
static void copy_once(struct nfsx_ctx *c, int mode, struct copy_out *o)
{
	struct nfsx4_copy_args a;
	time_t end;
	int k;

	memset(o, 0, sizeof(*o));
	memset(&a, 0, sizeof(a));
	a.src.data = (const uint8_t *)"\1\2\3\4";
	a.src.len = 4;
	a.dst.data = (const uint8_t *)"\5\6\7\10";
	a.dst.len = 4;
	a.count = 1u << 20;
	pthread_mutex_lock(&srv.lock);
	srv.offload = mode;
	pthread_mutex_unlock(&srv.lock);
	if (nfsx4_copy_async(c, &a, copy_cb, o) != 0)
		return;
	for (end = time(NULL) + 5; !o->calls && time(NULL) <= end;)
		nfsx_run_once(c, 10);
	for (k = 0; k < 10; k++)
		nfsx_run_once(c, 10);
}

static void test_copy_async(struct nfsx_ctx *c)
{
	struct nfsx4_cb_stats st;
	struct copy_out o;
	struct nfs_cb_argop4 ops[2];
	unsigned k;
	int i;

	pthread_mutex_lock(&srv.lock);
	srv.cb_seq = 3;            /* slot 0's sequence ids so far: 1, 2, 3 */
	srv.cb_minor = 2;
	pthread_mutex_unlock(&srv.lock);
	copy_once(c, 0, &o);
	ok(o.calls == 1 && o.err == 0 && o.d.status == NFS4_OK && o.d.count == (1u << 20) &&
	   !o.d.offloaded && o.d.committed == FILE_SYNC4 && srv.copy_async_asked,
	   "asynchronous COPY done at once: its reply's count, not offloaded (%d calls)",
	   o.calls);
	copy_once(c, 1, &o);
	ok(o.calls == 1 && o.err == 0 && o.d.status == NFS4_OK && o.d.count == 4242 &&
	   o.d.offloaded && o.d.committed == FILE_SYNC4 && !memcmp(o.d.verf.val, "offload!", 8),
	   "COPY with a callback id, CB_OFFLOAD after the reply: one callback with its count "
	   "and verifier (%d calls, count %llu)", o.calls, (unsigned long long)o.d.count);
	i = reply_of(c, 300 + cb_seq_now());
	ok(i >= 0 && cb_status(i) == NFS4_OK && nfsx4_cb_stats_get(c, &st) == 0 &&
	   st.offloads == 1, "CB_OFFLOAD (minor version 2) answered NFS4_OK, counted (%lld)",
	   (long long)(i >= 0 ? cb_status(i) : -1));
	copy_once(c, 2, &o);
	ok(o.calls == 1 && o.err == 0 && o.d.status == NFS4_OK && o.d.count == 4242 &&
	   o.d.offloaded, "CB_OFFLOAD before the COPY's reply: kept, matched when the reply "
	   "came (%d calls)", o.calls);
	/* ids no COPY named: kept up to the bound, then DELAY */
	for (k = 0; k < 17; k++) {
		struct stateid4 id = { 1, { 0 } };

		id.other[0] = 0x55;
		id.other[1] = (uint8_t)k;
		send_offload(&id);
		i = reply_of(c, 300 + cb_seq_now());
		if (i < 0 || cb_status(i) != (k < 16 ? NFS4_OK : NFS4ERR_DELAY))
			break;
	}
	(void)ops;
	ok(k == 17, "CB_OFFLOAD of ids no COPY named: 16 kept, the 17th NFS4ERR_DELAY (%u)", k);
	pthread_mutex_lock(&srv.lock);
	srv.cb_minor = 1;
	srv.offload = 0;
	pthread_mutex_unlock(&srv.lock);
}

int main(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	struct nfs_cb_argop4 ops[2];
	struct stateid4 unknown = DSID;
	struct nfsx4_cb_stats st;
	struct nfsx4_open_args oa;
	struct open_out oo = { 0 };
	struct nfsx_opts o;
	struct nfsx_ctx *c;
	pthread_t th;
	char err[256];
	int i1, i2, i3;
	time_t end;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	srv.lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (srv.lfd < 0 || bind(srv.lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(srv.lfd, 4) < 0 || getsockname(srv.lfd, (struct sockaddr *)&sa, &sl) < 0) {
		printf("Bail out! no listening socket: %s\n", strerror(errno));
		return 1;
	}
	srv.port = ntohs(sa.sin_port);
	pthread_create(&th, NULL, serve, NULL);

	nfsx_opts_init(&o);
	o.host = "127.0.0.1";
	o.port = srv.port;
	o.timeo_ms = 3000;
	o.version = 4;
	c = nfsx_ctx_new(&o, err, sizeof(err));
	ok(c && nfsx4_session_open(c) == 0, "session with the scripted server");
	if (!c)
		return tap_done();
	ok(srv.back_chan_asked && srv.cb_program == 0x40000000 &&
	   nfsx4_cb_stats_get(c, &st) == 0 && st.back_chan,
	   "CREATE_SESSION asked for the back channel (CONN_BACK_CHAN, program 0x40000000)");

	i1 = cb_send(100, 0x40000000, CB_NULL, NULL, 0) ? reply_of(c, 100) : -1;
	ok(i1 >= 0 && accept_stat(i1) == SUCCESS && srv.replies[i1].len == 24,
	   "CB_NULL: SUCCESS, nothing after the header");

	unknown.other[0] ^= 0xff;
	seq_recall(ops, 1, &unknown);
	i1 = cb_send(101, 0x40000000, CB_COMPOUND, ops, 2) ? reply_of(c, 101) : -1;
	ok(i1 >= 0 && cb_status(i1) == NFS4ERR_BAD_STATEID,
	   "CB_SEQUENCE + CB_RECALL of a stateid not held: BAD_STATEID (%lld)",
	   (long long)cb_status(i1));
	i2 = cb_send(102, 0x40000000, CB_COMPOUND, ops, 2) ? reply_of(c, 102) : -1;
	ok(i1 >= 0 && i2 >= 0 && srv.replies[i2].len == srv.replies[i1].len &&
	   !memcmp(srv.replies[i2].data + 4, srv.replies[i1].data + 4, srv.replies[i1].len - 4) &&
	   nfsx4_cb_stats_get(c, &st) == 0 && st.replays == 1 && st.recalls_unknown == 1,
	   "the same slot and sequence id again: the cached reply, the recall not redone");

	memset(&oa, 0, sizeof(oa));
	oa.fh.data = (const uint8_t *)"\1\2\3\4";
	oa.fh.len = 4;
	oa.share_access = OPEN4_SHARE_ACCESS_READ | OPEN4_SHARE_ACCESS_WANT_READ_DELEG;
	if (nfsx4_open(c, &oa, open_cb, &oo) == 0)
		for (end = time(NULL) + 5; !oo.done && time(NULL) <= end;)
			nfsx_run_once(c, 10);
	ok(oo.done && oo.st == NFS4_OK && oo.deleg == OPEN_DELEGATE_READ &&
	   nfsx4_cb_stats_get(c, &st) == 0 && st.delegs_held == 1,
	   "an OPEN asking for a read delegation: granted and held");
	seq_recall(ops, 2, &DSID);
	i3 = cb_send(103, 0x40000000, CB_COMPOUND, ops, 2) ? reply_of(c, 103) : -1;
	for (end = time(NULL) + 5; time(NULL) <= end; nfsx_run_once(c, 10)) {
		pthread_mutex_lock(&srv.lock);
		if (srv.delegreturns) {
			pthread_mutex_unlock(&srv.lock);
			break;
		}
		pthread_mutex_unlock(&srv.lock);
	}
	ok(i3 >= 0 && cb_status(i3) == NFS4_OK, "CB_RECALL of it: NFS4_OK");
	ok(srv.delegreturns == 1 && srv.delegreturn_sid_ok && i3 >= 0 &&
	   srv.delegreturn_event > srv.replies[i3].event,
	   "then DELEGRETURN of its stateid, after the recall's reply");
	for (end = time(NULL) + 5; time(NULL) <= end; nfsx_run_once(c, 10))
		if (nfsx4_cb_stats_get(c, &st) == 0 && st.delegs_returned == 1)
			break;
	ok(st.delegs_returned == 1 && st.delegs_held == 0, "counted returned, none held");

	i1 = cb_send(104, 100003, CB_NULL, NULL, 0) ? reply_of(c, 104) : -1;
	ok(i1 >= 0 && accept_stat(i1) == PROG_UNAVAIL, "another program: PROG_UNAVAIL");
	i1 = cb_send(105, 0x40000000, 7, NULL, 0) ? reply_of(c, 105) : -1;
	ok(i1 >= 0 && accept_stat(i1) == PROC_UNAVAIL, "procedure 7: PROC_UNAVAIL");

	test_write_then_return(c);
	test_copy_async(c);

	pthread_mutex_lock(&srv.lock);
	srv.path_down = true;
	pthread_mutex_unlock(&srv.lock);
	memset(&oo, 0, sizeof(oo));
	oa.share_access = OPEN4_SHARE_ACCESS_READ;
	if (nfsx4_open(c, &oa, open_cb, &oo) == 0)
		for (end = time(NULL) + 5; time(NULL) <= end; nfsx_run_once(c, 10))
			if (oo.done && nfsx4_cb_stats_get(c, &st) == 0 && st.rebinds == 1)
				break;
	for (int k = 0; k < 20; k++)
		nfsx_run_once(c, 10);
	ok(oo.done && oo.deleg == OPEN_DELEGATE_NONE && srv.binds == 1 &&
	   nfsx4_cb_stats_get(c, &st) == 0 && st.rebinds == 1,
	   "SEQUENCE saying CB_PATH_DOWN_SESSION: one BIND_CONN_TO_SESSION for the back channel "
	   "(%u), and an OPEN without a want asks for no delegation", srv.binds);

	nfsx_ctx_free(c);
	shutdown(srv.lfd, SHUT_RDWR);
	pthread_join(th, NULL);
	close(srv.lfd);
	return tap_done();
}
