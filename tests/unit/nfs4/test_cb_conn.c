// SPDX-License-Identifier: MIT
/*
 * nfs4_cb_send_on_conn (src/nfs4/callback.c) over the RPC core's back
 * channel: an RPC server in this process on 127.0.0.1 whose test
 * procedure sends CB_COMPOUND(CB_SEQUENCE, CB_RECALL) of minor version 2
 * back on the connection its call came on, as a 4.2 session's back
 * channel will; the test plays the client, checks the call (program,
 * AUTH_SYS credential as given, minor version 2, callback_ident 0, the
 * operations) and answers, and the results come back decoded: both
 * statuses and CB_SEQUENCE's result. A reply whose results are for other
 * operations is BADREPLY.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nfs4/callback.h"
#include "rpc/backchan.h"
#include "rpc/drc.h"
#include "rpc/req.h"
#include "rpc/svc.h"
#include "tap.h"
#include "unit/rpc/lo_server.h"
#include "xdr/nfs4_compound.h"

#define PROG 0x20000098u
#define CB_PROG 0x40000077u

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static bool done;
static enum rpc_call_status got_st;
static struct nfs4_cb_res got;

static void cb_done(void *arg, enum rpc_call_status st, const struct nfs4_cb_res *res)
{
	pthread_mutex_lock(&lock);
	got_st = st;
	if (res)
		got = *res;
	done = true;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	(void)arg;
}

static bool wait_done(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 3;
	pthread_mutex_lock(&lock);
	while (!done && pthread_cond_timedwait(&cond, &lock, &ts) == 0)
		;
	pthread_mutex_unlock(&lock);
	return done;
}

/* The session's CB_SEQUENCE and a CB_RECALL, sent back on the call's connection. */
static enum rpc_accept_stat p_recall(struct rpc_req *req)
{
	static const struct rpc_out_cred cred = { RPC_AUTH_SYS, 4, 5, "srv" };
	struct nfs_cb_argop4 ops[2];
	struct rpc_backchan *bc = rpc_req_backchan(req);
	uint8_t fh[4] = { 9, 8, 7, 6 };
	int r = -1;

	memset(ops, 0, sizeof(ops));
	ops[0].argop = OP_CB_SEQUENCE;
	memset(ops[0].u.opcbsequence.csa_sessionid.val, 0x33, NFS4_SESSIONID_SIZE);
	ops[0].u.opcbsequence.csa_sequenceid = 1;
	ops[1].argop = OP_CB_RECALL;
	ops[1].u.opcbrecall.stateid.seqid = 2;
	ops[1].u.opcbrecall.fh.len = sizeof(fh);
	ops[1].u.opcbrecall.fh.data = fh;
	if (bc)
		r = nfs4_cb_send_on_conn(bc, CB_PROG, 2, &cred, ops, 2, 3000, cb_done, NULL);
	rpc_backchan_put(bc);
	xdr_enc_u32(&req->enc, (uint32_t)r);
	return RPC_SUCCESS;
}

static const struct rpc_proc procs[] = {
	[0] = RPC_PROC("NULL", rpc_proc_null, 0, 0),
	[1] = RPC_PROC("RECALL", p_recall, RPC_PROC_BLOCKING, 4),
};
static const struct rpc_version vers[] = { { 1, 2, procs } };
static const struct rpc_program prog = { PROG, "cb-conn-test", 1, vers, NULL };

/* Trigger the callback; check the call; answer with CB_SEQUENCE's
 * status and @second_op's result. Return values: the call was right. */
static bool recall_round(uint16_t port, uint32_t second_op)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	uint8_t b[2048], out[512];
	uint64_t mem[512];
	struct xdr_arena arena;
	struct nfs4_args_head h;
	struct nfs_cb_argop4 op0, op1;
	struct xdr_dec d;
	struct xdr_enc e;
	uint32_t w[16], cb_xid = 0;
	bool call_ok = false, replied = false;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	unsigned int i, k;

	done = false;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		return false;
	xdr_enc_init(&e, b, sizeof(b));
	rpc_encode_call(&e, 77, PROG, 1, 1, NULL);
	lo_send_rec(fd, b, xdr_enc_len(&e));
	for (k = 0; k < 2; k++) {
		ssize_t n = lo_recv_rec(fd, b, sizeof(b), 3000);

		if (n < 8)
			break;
		if (xdr__get32(b + 4) == 1) {
			replied = xdr__get32(b) == 77 && n == 28 && xdr__get32(b + 24) == 0;
			continue;
		}
		xdr_arena_init(&arena, mem, sizeof(mem));
		xdr_dec_init(&d, b, (size_t)n, &arena);
		for (i = 0; i < 15; i++)   /* header, AUTH_SYS srv 4 5, no gids, verifier */
			if (!xdr_dec_u32(&d, &w[i]))
				w[i] = 0;
		cb_xid = w[0];
		call_ok = w[1] == 0 && w[3] == CB_PROG && w[4] == 1 && w[5] == 1 && w[6] == 1 &&
			  w[9] == 3 && w[11] == 4 && w[12] == 5 && w[13] == 0 && w[14] == 0 &&
			  xdr_dec_u32(&d, &w[15]) && w[15] == 0 &&
			  nfs4_dec_cb_compound_args_head(&d, &h) && h.minorversion == 2 &&
			  h.callback_ident == 0 && h.nops == 2 &&
			  nfs4_dec_cb_argop(&d, 2, &op0) == NFS4_OP_DECODED &&
			  nfs4_dec_cb_argop(&d, 2, &op1) == NFS4_OP_DECODED &&
			  op0.argop == OP_CB_SEQUENCE && op1.argop == OP_CB_RECALL &&
			  op0.u.opcbsequence.csa_sessionid.val[0] == 0x33 &&
			  op1.u.opcbrecall.fh.len == 4 && xdr_dec_left(&d) == 0;
	}
	/* reply: header, CB_COMPOUND4res(OK, "", [CB_SEQUENCE ok, op]) */
	xdr_enc_init(&e, out, sizeof(out));
	xdr_enc_u32(&e, cb_xid);
	xdr_enc_u32(&e, 1);
	for (i = 0; i < 4; i++)
		xdr_enc_u32(&e, 0);
	xdr_enc_u32(&e, 0);
	xdr_enc_u32(&e, 0);
	xdr_enc_u32(&e, 2);
	xdr_enc_u32(&e, OP_CB_SEQUENCE);
	xdr_enc_u32(&e, 0);
	memset(xdr_enc_reserve(&e, NFS4_SESSIONID_SIZE), 0x33, NFS4_SESSIONID_SIZE);
	xdr_enc_u32(&e, 1);
	xdr_enc_u32(&e, 0);
	xdr_enc_u32(&e, 0);
	xdr_enc_u32(&e, 0);
	xdr_enc_u32(&e, second_op);
	xdr_enc_u32(&e, 0);
	lo_send_rec(fd, out, xdr_enc_len(&e));
	wait_done();
	close(fd);
	return call_ok && replied;
}

int main(void)
{
	struct rpc_registry reg = { 0 };
	struct rpc_server *srv;
	struct rpc_drc *drc;
	uint16_t port;
	bool r;

	rpc_registry_add(&reg, &prog);
	srv = lo_server_start(&reg, 1, &drc, &port);
	if (!srv)
		return 1;
	r = recall_round(port, OP_CB_RECALL);
	ok(r, "CB_COMPOUND on the call's connection: program, AUTH_SYS as given, minor "
	   "version 2 as asked, callback_ident 0, CB_SEQUENCE then CB_RECALL");
	ok(done && got_st == RPC_CALL_OK && got.status == NFS4_OK && got.nops == 2 &&
	   got.opstatus[0] == NFS4_OK && got.opstatus[1] == NFS4_OK &&
	   got.seq.csr_sessionid.val[15] == 0x33 && got.seq.csr_sequenceid == 1,
	   "the reply decoded: both results and CB_SEQUENCE's (%s)", rpc_call_status_str(got_st));
	r = recall_round(port, OP_CB_GETATTR);
	ok(r && done && got_st == RPC_CALL_BADREPLY,
	   "a result for another operation than sent: %s", rpc_call_status_str(got_st));
	rpc_server_stop(srv, 1000);
	rpc_server_destroy(srv);
	rpc_drc_destroy(drc);
	return tap_done();
}
