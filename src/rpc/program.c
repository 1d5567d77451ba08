/* SPDX-License-Identifier: MIT */
/* Program registry and call dispatch: see program.h. */
#include "rpc/program.h"

#include "rpc/drc.h"
#include "rpc/req.h"
#include "util/stats.h"

/* Rows of one program's procedures, versions in order; -1 when rows
 * can no longer be added. */
static int add_rows(const struct rpc_program *p)
{
	int first = -1, row;
	uint32_t v, i;

	for (v = 0; v < p->nvers; v++)
		for (i = 0; i < p->versions[v].nprocs; i++) {
			const struct rpc_proc *pr = &p->versions[v].procs[i];

			row = stats_row_add(p->name, p->versions[v].vers,
					    pr->handler ? pr->name : NULL, p->status_name);
			if (row < 0)
				return -1;
			if (first < 0)
				first = row;
		}
	return first;
}

int rpc_registry_add(struct rpc_registry *reg, const struct rpc_program *p)
{
	uint32_t i;

	if (reg->n >= RPC_MAX_PROGRAMS || rpc_registry_find(reg, p->prog))
		return -1;
	for (i = 1; i < p->nvers; i++)
		if (p->versions[i].vers <= p->versions[i - 1].vers)
			return -1;
	reg->stat_row[reg->n] = add_rows(p);
	reg->progs[reg->n++] = p;
	return 0;
}

static int reject_row = -1;

void rpc_stats_rows_add(void)
{
	static const char *const names[RPC_REJ_NROWS] = {
		[RPC_REJ_PROG_UNAVAIL] = "PROG_UNAVAIL",
		[RPC_REJ_PROG_MISMATCH] = "PROG_MISMATCH",
		[RPC_REJ_PROC_UNAVAIL] = "PROC_UNAVAIL",
		[RPC_REJ_RPC_MISMATCH] = "RPC_MISMATCH",
		[RPC_REJ_AUTH_ERROR] = "AUTH_ERROR",
		[RPC_REJ_DROP_GARBAGE] = "DROPPED_UNDECODABLE",
		[RPC_REJ_DROP_IN_PROGRESS] = "DROPPED_IN_PROGRESS",
	};
	int i, row;

	if (reject_row >= 0)
		return;
	for (i = 0; i < RPC_REJ_NROWS; i++) {
		row = stats_row_add("rpc", 0, names[i], NULL);
		if (row < 0)
			return;
		if (!i)
			reject_row = row;
	}
}

static void rejected(struct rpc_req *req, enum rpc_reject_row why)
{
	req->stat_row = reject_row < 0 ? -1 : reject_row + (int)why;
}

/* The row of procedure @proc of version @ver of the @pi-th program. */
static int proc_row(const struct rpc_registry *reg, unsigned int pi,
		    const struct rpc_version *ver, uint32_t proc)
{
	const struct rpc_program *p = reg->progs[pi];
	int row = reg->stat_row[pi];
	const struct rpc_version *v;

	if (row < 0)
		return -1;
	for (v = p->versions; v < ver; v++)
		row += (int)v->nprocs;
	return row + (int)proc;
}

int rpc_registry_add_flavor(struct rpc_registry *reg, const struct rpc_flavor *f)
{
	unsigned int i;

	if (reg->nflavors >= RPC_MAX_FLAVORS || f->flavor == RPC_AUTH_NONE ||
	    f->flavor == RPC_AUTH_SYS)
		return -1;
	for (i = 0; i < reg->nflavors; i++)
		if (reg->flavor_ids[i] == f->flavor)
			return -1;
	reg->flavor_ids[reg->nflavors] = f->flavor;
	reg->flavors[reg->nflavors++] = f;
	return 0;
}

const struct rpc_program *rpc_registry_find(const struct rpc_registry *reg,
					    uint32_t prog)
{
	unsigned int i;

	for (i = 0; i < reg->n; i++)
		if (reg->progs[i]->prog == prog)
			return reg->progs[i];
	return NULL;
}

enum rpc_accept_stat rpc_proc_null(struct rpc_req *req)
{
	return xdr_dec_left(&req->args) ? RPC_GARBAGE_ARGS : RPC_SUCCESS;
}

static const struct rpc_version *find_version(const struct rpc_program *p,
					      uint32_t vers)
{
	uint32_t i;

	for (i = 0; i < p->nvers; i++)
		if (p->versions[i].vers == vers)
			return &p->versions[i];
	return NULL;
}

/*
 * Decode the call header and check its credential.
 * Return values: %RPC_HDR_OK (req->verf chosen), or what to answer
 * (*auth set for %RPC_HDR_AUTHERR).
 */
static enum rpc_hdr_result check_call(const struct rpc_registry *reg,
				      struct rpc_req *req, enum rpc_auth_stat *auth)
{
	enum rpc_hdr_result r;
	unsigned int i;

	rpc_req_verf_none(req);
	r = rpc_decode_call_flavors(&req->args, &req->call, auth,
				    reg->flavor_ids, reg->nflavors);
	if (r != RPC_HDR_FLAVOR)
		return r;
	for (i = 0; i < reg->nflavors; i++)
		if (reg->flavor_ids[i] == req->call.cred.flavor)
			break;
	*auth = i < reg->nflavors ? reg->flavors[i]->check(req) : RPC_AUTH_BADCRED;
	return *auth == RPC_AUTH_OK ? RPC_HDR_OK : RPC_HDR_AUTHERR;
}

/*
 * The DRC keeps a reply from its accept_stat on: the header before it
 * carries the verifier, which is this call's (a retransmission checked
 * by RPCSEC_GSS has a sequence number of its own and so a verifier of
 * its own), written anew for each copy.
 */
static void drc_copy(void *arg, const uint8_t *body, size_t len)
{
	struct rpc_req *req = arg;
	uint32_t hdr = rpc_req_hdr_len(req);

	if (len < 4 || rpc_req_reply_reserve(req, hdr - 4 + len) < 0)
		return;
	req->enc.p = req->enc.start;
	rpc_encode_accepted(&req->enc, req->call.xid, &req->verf,
			    (enum rpc_accept_stat)xdr__get32(body));
	memcpy(req->enc.p, body + 4, len - 4);
	req->enc.p += len - 4;
}

/*
 * Run the handler; leaves req->enc holding the whole reply.
 * Return values: false when the handler, on a loop, would block (the
 * request is then as before the call, ready for a worker).
 */
static bool run_proc(struct rpc_req *req, const struct rpc_proc *proc)
{
	uint32_t xid = req->call.xid, hdr = rpc_req_hdr_len(req);
	struct xdr_dec args = req->args;
	size_t arena_used = req->arena.used;
	enum rpc_accept_stat stat;

	if (proc->max_reply + hdr > req->reply_cap - 4 - xdr_enc_len(&req->enc) &&
	    rpc_req_reply_reserve(req, proc->max_reply + hdr) < 0) {
		rpc_encode_accepted(&req->enc, xid, &req->verf, RPC_SYSTEM_ERR);
		return true;
	}
	rpc_encode_accepted(&req->enc, xid, &req->verf, RPC_SUCCESS);
	if (stats_on)
		req->t_start = stats_now_ns();
	req->t_done = 0;
	stat = proc->handler(req);
	/* (a handler that read the clock last may have set it: NFSv4's) */
	if (stats_on && !req->t_done)
		req->t_done = stats_now_ns();
	/* Parked (waiting for something no thread should block on): the
	 * answer is discarded, the call runs again when resumed. */
	if ((stat == RPC_WOULD_BLOCK && req->on_loop) ||
	    atomic_load(&req->park)) {
		req->enc.p = req->enc.start;
		req->args = args;
		req->arena.used = arena_used;
		return false;
	}
	if (stat != RPC_SUCCESS) {
		req->enc.p = req->enc.start;
		rpc_encode_accepted(&req->enc, xid, &req->verf,
				    stat == RPC_WOULD_BLOCK ? RPC_SYSTEM_ERR : stat);
	}
	return true;
}

/* Keep the reply, from its accept_stat on (see drc_copy). */
static void store(struct rpc_drc *drc, struct rpc_req *req)
{
	uint32_t skip = rpc_req_hdr_len(req) - 4;
	size_t len = xdr_enc_len(&req->enc);

	if (!req->drc_keyed)
		return;
	/* Every reply here is an accepted one; anything else is not kept. */
	if (len < skip + 4)
		rpc_drc_abandon(drc, &req->drc_key);
	else
		rpc_drc_store(drc, &req->drc_key, req->enc.start + skip, len - skip);
}

enum rpc_dispatch_result rpc_dispatch_begin(const struct rpc_registry *reg,
					    struct rpc_drc *drc,
					    struct rpc_req *req)
{
	enum rpc_auth_stat auth = RPC_AUTH_OK;
	const struct rpc_program *prog;
	const struct rpc_version *ver;
	const struct rpc_proc *proc;
	struct xdr_enc *e = &req->enc;
	unsigned int pi;
	bool ok;

	req->proc = NULL;
	req->drc_keyed = false;
	req->stat_row = -1;
	req->stat_status = 0;
	req->t_start = req->t_done = 0;
	switch (check_call(reg, req, &auth)) {
	case RPC_HDR_OK:
	case RPC_HDR_FLAVOR:    /* not returned by check_call */
		break;
	case RPC_HDR_DROP:
		rejected(req, RPC_REJ_DROP_GARBAGE);
		return RPC_DISPATCH_DROP;
	case RPC_HDR_MISMATCH:
		rejected(req, RPC_REJ_RPC_MISMATCH);
		ok = rpc_encode_rpc_mismatch(e, req->call.xid);
		goto out;
	case RPC_HDR_AUTHERR:
		rejected(req, RPC_REJ_AUTH_ERROR);
		ok = rpc_encode_auth_error(e, req->call.xid, auth);
		goto out;
	}

	for (pi = 0; pi < reg->n && reg->progs[pi]->prog != req->call.prog; pi++)
		;
	prog = pi < reg->n ? reg->progs[pi] : NULL;
	if (!prog) {
		rejected(req, RPC_REJ_PROG_UNAVAIL);
		ok = rpc_encode_accepted(e, req->call.xid, &req->verf,
					 RPC_PROG_UNAVAIL);
		goto out;
	}
	ver = find_version(prog, req->call.vers);
	if (!ver && !prog->nvers) {
		/* No version at all: nothing to give as a range. */
		rejected(req, RPC_REJ_PROG_UNAVAIL);
		ok = rpc_encode_accepted(e, req->call.xid, &req->verf,
					 RPC_PROG_UNAVAIL);
		goto out;
	}
	if (!ver) {
		rejected(req, RPC_REJ_PROG_MISMATCH);
		ok = rpc_encode_prog_mismatch(e, req->call.xid, &req->verf,
					      prog->versions[0].vers,
					      prog->versions[prog->nvers - 1].vers);
		goto out;
	}
	if (req->call.proc >= ver->nprocs || !ver->procs[req->call.proc].handler) {
		rejected(req, RPC_REJ_PROC_UNAVAIL);
		ok = rpc_encode_accepted(e, req->call.xid, &req->verf,
					 RPC_PROC_UNAVAIL);
		goto out;
	}
	proc = &ver->procs[req->call.proc];
	req->proc = proc;
	req->stat_row = proc_row(reg, pi, ver, req->call.proc);

	if (drc && ((proc->flags & RPC_PROC_NONIDEMPOTENT) ||
		    (proc->cache_this && proc->cache_this(req)))) {
		rpc_drc_make_key(&req->drc_key, req->call.xid, req->call.prog,
				 req->call.vers, req->call.proc, req->peer,
				 req->args.p, xdr_dec_left(&req->args));
		switch (rpc_drc_lookup(drc, &req->drc_key, drc_copy, req)) {
		case RPC_DRC_HIT:
			ok = xdr_enc_len(e) != 0;
			goto out;
		case RPC_DRC_IN_PROGRESS:
			rejected(req, RPC_REJ_DROP_IN_PROGRESS);
			return RPC_DISPATCH_DROP;
		case RPC_DRC_MISS:
			req->drc_keyed = true;
			break;
		}
	}
	if (proc->flags & RPC_PROC_BLOCKING) {
		bool done;

		if (!(proc->flags & RPC_PROC_TRY_INLINE))
			return RPC_DISPATCH_DEFER;
		req->on_loop = true;
		done = run_proc(req, proc);
		req->on_loop = false;
		if (!done)
			return RPC_DISPATCH_DEFER;
		store(drc, req);
		return RPC_DISPATCH_REPLY;
	}
	rpc_dispatch_finish(drc, req);
	return RPC_DISPATCH_REPLY;
out:
	return ok ? RPC_DISPATCH_REPLY : RPC_DISPATCH_DROP;
}

static void drc_ignore(void *arg, const uint8_t *reply, size_t len)
{
	(void)arg;
	(void)reply;
	(void)len;
}

bool rpc_dispatch_bulk_begin(const struct rpc_registry *reg, struct rpc_drc *drc,
			     struct rpc_req *req, size_t rest)
{
	enum rpc_auth_stat auth = RPC_AUTH_OK;
	const struct rpc_program *prog;
	const struct rpc_version *ver;
	const struct rpc_proc *proc;
	size_t left;
	unsigned int pi;
	bool ok;

	req->proc = NULL;
	req->drc_keyed = false;
	req->stat_row = -1;
	req->stat_status = 0;
	req->t_start = req->t_done = 0;
	rpc_req_verf_none(req);
	/* Only AUTH_NONE and AUTH_SYS calls: a flavour's check may have
	 * side effects (RPCSEC_GSS's sequence window) and must run once,
	 * but a call refused here is decoded again, whole. */
	if (rpc_decode_call(&req->args, &req->call, &auth) != RPC_HDR_OK)
		return false;
	for (pi = 0; pi < reg->n && reg->progs[pi]->prog != req->call.prog; pi++)
		;
	prog = pi < reg->n ? reg->progs[pi] : NULL;
	ver = prog ? find_version(prog, req->call.vers) : NULL;
	if (!ver || req->call.proc >= ver->nprocs)
		return false;
	proc = &ver->procs[req->call.proc];
	if (!proc->handler || !proc->bulk_begin || !proc->bulk_end)
		return false;
	left = xdr_dec_left(&req->args);
	if ((proc->flags & RPC_PROC_NONIDEMPOTENT) && drc) {
		/* The key sums the first bytes of the arguments: they must
		 * be here, and it counts the bytes still to come. */
		if (left < RPC_DRC_SUM_BYTES)
			return false;
		rpc_drc_make_key(&req->drc_key, req->call.xid, req->call.prog,
				 req->call.vers, req->call.proc, req->peer,
				 req->args.p, left + rest);
		if (rpc_drc_lookup(drc, &req->drc_key, drc_ignore, NULL) != RPC_DRC_MISS)
			return false; /* the whole record will find it again */
		req->drc_keyed = true;
	}
	req->proc = proc;
	memset(&req->bulk, 0, sizeof(req->bulk));
	req->bulk.fd = -1;
	req->on_loop = true;
	if (stats_on)
		req->t_start = stats_now_ns();
	ok = proc->bulk_begin(req, rest, &req->bulk);
	req->on_loop = false;
	if (!ok) {
		if (req->drc_keyed)
			rpc_drc_abandon(drc, &req->drc_key);
		req->drc_keyed = false;
		req->proc = NULL;
		req->t_start = 0;
	} else {
		req->stat_row = proc_row(reg, pi, ver, req->call.proc);
	}
	return ok;
}

void rpc_dispatch_bulk_end(struct rpc_drc *drc, struct rpc_req *req)
{
	const struct rpc_proc *proc = req->proc;
	uint32_t xid = req->call.xid;
	enum rpc_accept_stat stat;

	req->on_loop = true;
	if (req->bulk.aborted) {
		proc->bulk_end(req, &req->bulk);
		req->on_loop = false;
		if (req->drc_keyed)
			rpc_drc_abandon(drc, &req->drc_key);
		req->drc_keyed = false;
		return;
	}
	req->enc.p = req->enc.start;
	if (rpc_req_reply_reserve(req, proc->max_reply + rpc_req_hdr_len(req)) < 0) {
		/* end must still run to release what begin took */
		req->bulk.aborted = true;
		proc->bulk_end(req, &req->bulk);
		req->on_loop = false;
		rpc_encode_accepted(&req->enc, xid, &req->verf, RPC_SYSTEM_ERR);
		store(drc, req);
		return;
	}
	rpc_encode_accepted(&req->enc, xid, &req->verf, RPC_SUCCESS);
	stat = proc->bulk_end(req, &req->bulk);
	req->on_loop = false;
	if (stats_on)
		req->t_done = stats_now_ns();
	if (stat != RPC_SUCCESS) {
		req->enc.p = req->enc.start;
		rpc_encode_accepted(&req->enc, xid, &req->verf, stat);
	}
	store(drc, req);
}

bool rpc_dispatch_finish(struct rpc_drc *drc, struct rpc_req *req)
{
	if (!run_proc(req, req->proc))
		return false;
	store(drc, req);
	return true;
}

bool rpc_dispatch(const struct rpc_registry *reg, struct rpc_drc *drc,
		  struct rpc_req *req)
{
	switch (rpc_dispatch_begin(reg, drc, req)) {
	case RPC_DISPATCH_REPLY:
		return true;
	case RPC_DISPATCH_DEFER:
		/* No pool here: nothing parks (rpc_workers_park). */
		return rpc_dispatch_finish(drc, req);
	case RPC_DISPATCH_DROP:
		break;
	}
	return false;
}
