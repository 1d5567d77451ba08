/* SPDX-License-Identifier: MIT */
/* NFSv4 callbacks: see callback.h. */
#include "nfs4/callback.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rpc/backchan.h"
#include "rpc/callout.h"
#include "util/log.h"

/* Calls at once on the callout thread: one probe per confirming client
 * and the recalls; past it a call ends BUSY (the path is then down). */
#define CALLOUT_MAX 1024u
/* A CB_COMPOUND call message at most: header, AUTH_SYS, a CB_RECALL. */
#define CB_CALL_MAX 1024u

struct nfs4_cb {
	struct nfs4_clients *t;
	struct rpc_callout *co;
	unsigned int reply_ms;
	atomic_uint xid;
	char machine[RPC_AUTHSYS_MACHINE_MAX + 1];
};

/* One call of ours, until its done function. */
struct cb_call {
	struct nfs4_cb *cb;
	clientid4 clientid;
	uint32_t gen;
	uint32_t nops;
	uint32_t ops[NFS4_CB_OPS_MAX];
	nfs4_cb_done_fn *done;     /* NULL: a probe */
	void *arg;
};

static uint64_t now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec;
}

struct nfs4_cb *nfs4_cb_new(struct nfs4_clients *t, unsigned int lease_s)
{
	struct nfs4_cb *cb = calloc(1, sizeof(*cb));
	struct timespec ts;

	if (!cb)
		return NULL;
	cb->t = t;
	cb->reply_ms = lease_s >= 10 ? lease_s * 100u : 1000u;
	clock_gettime(CLOCK_REALTIME, &ts);
	atomic_init(&cb->xid, (uint32_t)ts.tv_nsec ^ (uint32_t)ts.tv_sec);
	if (gethostname(cb->machine, sizeof(cb->machine) - 1) < 0)
		strcpy(cb->machine, "nfsxd");
	cb->co = rpc_callout_start(CALLOUT_MAX);
	if (!cb->co) {
		free(cb);
		return NULL;
	}
	return cb;
}

const char *nfs4_cb_machine(const struct nfs4_cb *cb)
{
	return cb ? cb->machine : "nfsxd";
}

void nfs4_cb_free(struct nfs4_cb *cb)
{
	if (!cb)
		return;
	rpc_callout_stop(cb->co);
	free(cb);
}

static void set_path(struct cb_call *k, enum nfs4_cb_path p, enum rpc_call_status st)
{
	log_debug("NFSv4 callback path of client %016" PRIx64 ": %s (%s)", k->clientid,
		  p == NFS4_CB_PATH_UP ? "up" : "down", rpc_call_status_str(st));
	nfs4_clients_cb_set(k->cb->t, k->clientid, k->gen, p);
}

/* The credential knfsd sends on a 4.0 callback (see callback.h). */
static void cred_for(const struct nfs4_cb *cb, const struct nfs4_principal *who,
		     struct rpc_out_cred *cred)
{
	memset(cred, 0, sizeof(*cred));
	cred->flavor = who->flavor == RPC_AUTH_SYS ? RPC_AUTH_SYS : RPC_AUTH_NONE;
	cred->machine = cb->machine;
}

/* The target of @clientid with its address. Return values: 0; -1 no
 * client; -2 an unusable address (the path is then marked down). */
static int target(struct nfs4_cb *cb, clientid4 clientid, struct nfs4_cb_target *tg,
		  struct sockaddr_storage *ss, socklen_t *sl)
{
	if (!nfs4_clients_cb_target(cb->t, clientid, now_sec(), tg))
		return -1;
	if (nfs4_cb_addr_parse(tg->cb.netid, tg->cb.addr, ss, sl) < 0) {
		log_debug("NFSv4 callback path of client %016" PRIx64
			  ": down (netid \"%s\", address \"%s\" refused)",
			  clientid, tg->cb.netid, tg->cb.addr);
		nfs4_clients_cb_set(cb->t, clientid, tg->gen, NFS4_CB_PATH_DOWN);
		return -2;
	}
	return 0;
}

static void probe_done(void *arg, enum rpc_call_status st, const uint8_t *res, size_t len)
{
	struct cb_call *k = arg;

	/* CB_NULL has no results: anything more is not its reply. */
	if (st == RPC_CALL_OK && len)
		st = RPC_CALL_BADREPLY;
	set_path(k, st == RPC_CALL_OK ? NFS4_CB_PATH_UP : NFS4_CB_PATH_DOWN, st);
	(void)res;
	free(k);
}

/* A call to a 4.0 client's callback service being made: where it goes
 * and its message, the RPC header first. */
struct out_call {
	struct nfs4_cb_target tg;
	struct sockaddr_storage ss;
	socklen_t sl;
	uint32_t xid;
	struct xdr_enc e;
	uint8_t msg[CB_CALL_MAX];
};

/* Look up @clientid's callback target and encode the call header of
 * @proc into @c. Return values: true; false with no client, an unusable
 * address (see target()) or a header that does not fit. */
static bool out_begin(struct nfs4_cb *cb, clientid4 clientid, uint32_t proc,
		      struct out_call *c)
{
	struct rpc_out_cred cred;

	if (!cb || target(cb, clientid, &c->tg, &c->ss, &c->sl) < 0)
		return false;
	cred_for(cb, &c->tg.who, &cred);
	c->xid = atomic_fetch_add(&cb->xid, 1);
	xdr_enc_init(&c->e, c->msg, sizeof(c->msg));
	return rpc_encode_call(&c->e, c->xid, c->tg.cb.program, 1, proc, &cred);
}

/* The record of a call to @c's client, for its done function. */
static struct cb_call *out_record(struct nfs4_cb *cb, clientid4 clientid,
				  const struct out_call *c)
{
	struct cb_call *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->cb = cb;
	k->clientid = clientid;
	k->gen = c->tg.gen;
	return k;
}

/* Hand @c to the callout thread; @done gets @k. Return values: 0; -1
 * with @k freed (done never runs). */
static int out_send(struct nfs4_cb *cb, struct out_call *c, struct cb_call *k,
		    size_t max_reply, rpc_call_done_fn *done)
{
	struct rpc_callout_req r = { 0 };

	r.xid = c->xid;
	r.addr = (struct sockaddr *)&c->ss;
	r.addrlen = c->sl;
	r.msg = c->msg;
	r.len = xdr_enc_len(&c->e);
	r.connect_ms = NFS4_CB_CONNECT_MS;
	r.reply_ms = cb->reply_ms;
	r.max_reply = max_reply;
	r.done = done;
	r.arg = k;
	if (rpc_callout_call(cb->co, &r) < 0) {
		free(k);
		return -1;
	}
	return 0;
}

void nfs4_cb_probe(struct nfs4_cb *cb, clientid4 clientid)
{
	struct out_call c;
	struct cb_call *k;

	if (!out_begin(cb, clientid, CB_NULL, &c))
		return;
	k = out_record(cb, clientid, &c);
	if (k)
		out_send(cb, &c, k, NFS4_CB_NULL_REPLY_MAX, probe_done);
}

/* A CB_COMPOUND's reply, on whichever thread saw it. */
static void compound_done(void *arg, enum rpc_call_status st, const uint8_t *res, size_t len)
{
	struct cb_call *k = arg;
	struct nfs4_cb_res out;

	if (st == RPC_CALL_OK && !nfs4_cb_dec_compound_res(res, len, k->ops, k->nops, &out))
		st = RPC_CALL_BADREPLY;
	/* 4.0: the transport failed, as knfsd's nfsd4_cb_done marks it. */
	if (k->cb && st != RPC_CALL_OK && st != RPC_CALL_REJECTED)
		set_path(k, NFS4_CB_PATH_DOWN, st);
	k->done(k->arg, st, st == RPC_CALL_OK ? &out : NULL);
	free(k);
}

int nfs4_cb_recall(struct nfs4_cb *cb, clientid4 clientid, const struct stateid4 *stateid,
		   bool truncate, const nfs_fh4 *fh, nfs4_cb_done_fn *done, void *arg)
{
	struct nfs_cb_argop4 op = { .argop = OP_CB_RECALL };
	struct out_call c;
	struct cb_call *k;

	if (!out_begin(cb, clientid, CB_COMPOUND, &c))
		return -1;
	op.u.opcbrecall.stateid = *stateid;
	op.u.opcbrecall.truncate = truncate;
	op.u.opcbrecall.fh = *fh;
	if (!nfs4_cb_enc_compound(&c.e, 0, c.tg.cb.ident, &op, 1))
		return -1;
	k = out_record(cb, clientid, &c);
	if (!k)
		return -1;
	k->nops = 1;
	k->ops[0] = OP_CB_RECALL;
	k->done = done;
	k->arg = arg;
	return out_send(cb, &c, k, NFS4_CB_REPLY_MAX, compound_done);
}

struct conn_args {
	uint32_t minor;
	const struct nfs_cb_argop4 *ops;
	uint32_t n;
};

static bool enc_conn_args(struct xdr_enc *e, const void *p)
{
	const struct conn_args *a = p;

	return nfs4_cb_enc_compound(e, a->minor, 0, a->ops, a->n);
}

int nfs4_cb_send_on_conn(struct rpc_backchan *bc, uint32_t cb_program, uint32_t minor,
			 const struct rpc_out_cred *cred, const struct nfs_cb_argop4 *ops,
			 uint32_t n, unsigned int timeout_ms, nfs4_cb_done_fn *done, void *arg)
{
	struct conn_args a = { minor, ops, n };
	struct rpc_bc_call call = {
		.prog = cb_program,
		.vers = 1,
		.proc = CB_COMPOUND,
		.cred = cred,
		.encode = enc_conn_args,
		.args = &a,
		.max_args = CB_CALL_MAX,
		.max_reply = NFS4_CB_REPLY_MAX,
		.timeout_ms = timeout_ms,
		.done = compound_done,
	};
	struct cb_call *k;
	uint32_t i;

	if (n > NFS4_CB_OPS_MAX) {
		errno = E2BIG;
		return -1;
	}
	k = calloc(1, sizeof(*k));
	if (!k) {
		errno = ENOMEM;
		return -1;
	}
	/* No 4.0 client record: the session keeps the back channel's state. */
	k->nops = n;
	for (i = 0; i < n; i++)
		k->ops[i] = ops[i].argop;
	k->done = done;
	k->arg = arg;
	call.arg = k;
	if (rpc_conn_call(bc, &call) < 0) {
		free(k);
		return -1;
	}
	return 0;
}
