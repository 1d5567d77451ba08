// SPDX-License-Identifier: MIT
/*
 * NFSv4.0 client records on the wire: SETCLIENTID, SETCLIENTID_CONFIRM
 * and RENEW COMPOUNDs against nfsxd, and after a restart of nfsxd the
 * clientid of the first instance answered STALE_CLIENTID.
 *
 * Usage: test_nfs4_clients PORT 1 STATEFILE   (first instance)
 *        test_nfs4_clients PORT 2 STATEFILE   (after the restart)
 * Phase 1 writes its clientid, confirm verifier and TAP count to
 * STATEFILE and prints no plan; phase 2 numbers on from there and
 * prints the plan of both (run-nfs4-clients.sh runs the two).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpc_client.h"
#include "tap.h"

#define OP_RENEW 30
#define OP_SETCLIENTID 35
#define OP_SETCLIENTID_CONFIRM 36

#define NFS4_OK 0
#define NFS4ERR_STALE_CLIENTID 10022
#define NFS4ERR_CLID_INUSE 10017

static int fd = -1;

struct res {
	int rpc;                  /* 1: a parsed SUCCESS reply */
	uint32_t status, nops;
	uint32_t op[4], st[4];
	uint64_t clientid;        /* SETCLIENTID's resok4 */
	uint8_t confirm[8];
	uint32_t using_len[2];    /* CLID_INUSE's netid and addr lengths */
};

static void put_u64(struct rpc_buf *b, uint64_t v)
{
	rpc_buf_put_u32(b, (uint32_t)(v >> 32));
	rpc_buf_put_u32(b, (uint32_t)v);
}

static void op_setclientid(struct rpc_buf *b, const char *id, uint8_t verf)
{
	uint8_t v[8];

	memset(v, verf, sizeof(v));
	rpc_buf_put_u32(b, OP_SETCLIENTID);
	rpc_buf_put_bytes(b, v, sizeof(v));
	rpc_buf_put_opaque(b, id, strlen(id));
	rpc_buf_put_u32(b, 0x40000000);          /* cb_program */
	rpc_buf_put_string(b, "tcp");
	rpc_buf_put_string(b, "127.0.0.1.3.4");
	rpc_buf_put_u32(b, 1);                   /* callback_ident */
}

static void op_confirm(struct rpc_buf *b, uint64_t cid, const uint8_t *confirm)
{
	rpc_buf_put_u32(b, OP_SETCLIENTID_CONFIRM);
	put_u64(b, cid);
	rpc_buf_put_bytes(b, confirm, 8);
}

static void op_renew(struct rpc_buf *b, uint64_t cid)
{
	rpc_buf_put_u32(b, OP_RENEW);
	put_u64(b, cid);
}

/* Run the COMPOUND of @nops operations @ops as AUTH_SYS @uid. */
static struct res compound(uint32_t uid, uint32_t nops, const struct rpc_buf *ops)
{
	struct rpc_buf args, cred, store;
	struct rpc_call c;
	struct rpc_reply r;
	struct res out = { 0 };
	const uint8_t *p, *end;
	uint32_t i;

	rpc_buf_init(&args);
	rpc_buf_init(&cred);
	rpc_buf_init(&store);
	rpc_buf_put_opaque(&args, "cl", 2);
	rpc_buf_put_u32(&args, 0);
	rpc_buf_put_u32(&args, nops);
	rpc_buf_put_bytes(&args, ops->data, ops->len);
	rpc_authsys_encode(&cred, 1, "client", uid, uid, NULL, 0);
	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 4, 1);
	c.cred_flavor = AUTH_SYS;
	c.cred_body = cred.data;
	c.cred_len = cred.len;
	c.args = args.data;
	c.args_len = args.len;
	if (rpc_call_simple(fd, &c, &r, &store, 5000) != 1 || r.reply_stat != RPC_MSG_ACCEPTED ||
	    r.accept_stat != RPC_SUCCESS || r.body_len < 12)
		goto done;
	p = r.body;
	end = r.body + r.body_len;
	out.status = rpc_get_u32(p);
	p += 4 + 4 + ((rpc_get_u32(p + 4) + 3) & ~3u);  /* tag */
	out.nops = rpc_get_u32(p);
	p += 4;
	for (i = 0; i < out.nops && i < 4; i++) {
		if (end - p < 8)
			goto done;
		out.op[i] = rpc_get_u32(p);
		out.st[i] = rpc_get_u32(p + 4);
		p += 8;
		if (out.op[i] == OP_SETCLIENTID && out.st[i] == NFS4_OK) {
			if (end - p < 16)
				goto done;
			out.clientid = (uint64_t)rpc_get_u32(p) << 32 | rpc_get_u32(p + 4);
			memcpy(out.confirm, p + 8, 8);
			p += 16;
		} else if (out.op[i] == OP_SETCLIENTID && out.st[i] == NFS4ERR_CLID_INUSE) {
			if (end - p < 8)
				goto done;
			out.using_len[0] = rpc_get_u32(p);
			p += 4 + ((out.using_len[0] + 3) & ~3u);
			if (end - p < 4)
				goto done;
			out.using_len[1] = rpc_get_u32(p);
			p += 4 + ((out.using_len[1] + 3) & ~3u);
		}
	}
	out.rpc = p == end;
done:
	rpc_buf_free(&args);
	rpc_buf_free(&cred);
	rpc_buf_free(&store);
	return out;
}

static struct res one(uint32_t uid, void (*build)(struct rpc_buf *, void *), void *arg)
{
	struct rpc_buf ops;
	struct res r;

	rpc_buf_init(&ops);
	build(&ops, arg);
	r = compound(uid, 1, &ops);
	rpc_buf_free(&ops);
	return r;
}

struct cfm {
	uint64_t cid;
	uint8_t confirm[8];
};

static void b_setclientid(struct rpc_buf *b, void *arg)
{
	op_setclientid(b, arg, 1);
}

static void b_confirm(struct rpc_buf *b, void *arg)
{
	struct cfm *c = arg;

	op_confirm(b, c->cid, c->confirm);
}

static void b_renew(struct rpc_buf *b, void *arg)
{
	op_renew(b, *(uint64_t *)arg);
}

static void phase1(FILE *state)
{
	struct res r, s;
	struct cfm cf, bad;
	struct rpc_buf ops;
	int i;

	s = one(1000, b_setclientid, "nfsx-test-client");
	ok(s.rpc && s.status == NFS4_OK && s.nops == 1 && s.op[0] == OP_SETCLIENTID,
	   "SETCLIENTID: OK (status %u)", s.status);
	cf.cid = s.clientid;
	memcpy(cf.confirm, s.confirm, 8);
	r = one(1000, b_renew, &cf.cid);
	ok(r.rpc && r.status == NFS4ERR_STALE_CLIENTID && r.st[0] == NFS4ERR_STALE_CLIENTID,
	   "RENEW before CONFIRM: STALE_CLIENTID (%u)", r.status);
	bad = cf;
	bad.confirm[7] ^= 0xff;
	r = one(1000, b_confirm, &bad);
	ok(r.rpc && r.status == NFS4ERR_STALE_CLIENTID,
	   "CONFIRM with another verifier: STALE_CLIENTID (%u)", r.status);
	r = one(2000, b_confirm, &cf);
	ok(r.rpc && r.status == NFS4ERR_CLID_INUSE,
	   "CONFIRM by another uid: CLID_INUSE (%u)", r.status);

	rpc_buf_init(&ops);
	op_confirm(&ops, cf.cid, cf.confirm);
	op_renew(&ops, cf.cid);
	r = compound(1000, 2, &ops);
	rpc_buf_free(&ops);
	ok(r.rpc && r.status == NFS4_OK && r.nops == 2 && r.st[0] == NFS4_OK &&
	   r.op[1] == OP_RENEW && r.st[1] == NFS4_OK,
	   "SETCLIENTID_CONFIRM then RENEW in one COMPOUND: OK (%u)", r.status);
	r = one(1000, b_confirm, &cf);
	ok(r.rpc && r.status == NFS4_OK, "retransmitted CONFIRM: OK (%u)", r.status);

	r = one(2000, b_setclientid, "nfsx-test-client");
	ok(r.rpc && r.status == NFS4_OK && r.clientid != cf.cid,
	   "SETCLIENTID of that id by another uid while it holds no state: OK, another "
	   "clientid (knfsd; pynfs CID2) (%u)", r.status);
	r = one(1000, b_setclientid, "nfsx-test-client");
	ok(r.rpc && r.status == NFS4_OK && r.clientid == cf.cid &&
	   memcmp(r.confirm, cf.confirm, 8) != 0,
	   "SETCLIENTID again (callback update): same clientid, new confirm verifier");

	fprintf(state, "%016" PRIx64 " ", cf.cid);
	for (i = 0; i < 8; i++)
		fprintf(state, "%02x", cf.confirm[i]);
	fprintf(state, " %d\n", tap__n);
}

static void phase2(FILE *state)
{
	struct cfm cf;
	struct res r;
	char hex[17];
	unsigned int x;
	int i, n;

	if (fscanf(state, "%" SCNx64 " %16s %d", &cf.cid, hex, &n) != 3) {
		printf("Bail out! no state from phase 1\n");
		exit(1);
	}
	for (i = 0; i < 8; i++) {
		sscanf(hex + 2 * i, "%2x", &x);
		cf.confirm[i] = (uint8_t)x;
	}
	tap__n = n;
	r = one(1000, b_renew, &cf.cid);
	ok(r.rpc && r.status == NFS4ERR_STALE_CLIENTID,
	   "after a restart, RENEW of the old clientid: STALE_CLIENTID (%u)", r.status);
	r = one(1000, b_confirm, &cf);
	ok(r.rpc && r.status == NFS4ERR_STALE_CLIENTID,
	   "and its CONFIRM: STALE_CLIENTID (%u)", r.status);
	r = one(1000, b_setclientid, "nfsx-test-client");
	ok(r.rpc && r.status == NFS4_OK && r.clientid != cf.cid,
	   "SETCLIENTID after the restart: a new clientid");
	ok((r.clientid >> 32) >= (cf.cid >> 32),
	   "its high half (boot time) is not older than the first instance's");
}

int main(int argc, char **argv)
{
	FILE *state;
	int phase;

	if (argc != 4) {
		fprintf(stderr, "usage: %s PORT 1|2 STATEFILE\n", argv[0]);
		return 2;
	}
	phase = atoi(argv[2]);
	fd = rpc_connect((uint16_t)atoi(argv[1]), 5000);
	if (fd < 0) {
		printf("Bail out! cannot connect to 127.0.0.1:%s\n", argv[1]);
		return 1;
	}
	state = fopen(argv[3], phase == 1 ? "w" : "r");
	if (!state) {
		printf("Bail out! %s\n", argv[3]);
		return 1;
	}
	if (phase == 1) {
		phase1(state);
		fclose(state);
		return tap__failed ? 1 : 0;
	}
	phase2(state);
	fclose(state);
	return tap_done();
}
