/* SPDX-License-Identifier: MIT */
/*
 * The NFSv4.1 session of a context, its lifetime: the client owner,
 * EXCHANGE_ID and CREATE_SESSION as sent and read, the first session,
 * the lease, DESTROY_SESSION and DESTROY_CLIENTID. See nfs4.h.
 *
 * The client owner must differ between contexts, even two in one
 * process (a server takes two contexts with one owner for one client
 * rebooting, and the second EXCHANGE_ID then destroys the first one's
 * state): it is the host name, the process id, a process-wide counter
 * and 64 random bits. The counter is the library's only process-wide
 * mutable state, an atomic.
 */
#include "client/session4_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "client/attr4.h"
#include "client/state4.h"
#include "client/sync.h"
#include "xdr/gen/rpc.h"

#define CS_MAXOPS NFSX4_MAX_OPS

static atomic_uint owner_counter;

static void make_owner(struct nfsx_ctx *ctx, struct nc4_session *s)
{
	unsigned n = atomic_fetch_add(&owner_counter, 1);
	uint64_t rnd;
	char host[64];

	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd = nc_now() ^ (uint64_t)(uintptr_t)ctx;
	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	snprintf(s->owner, sizeof(s->owner), "nfsx/%s/%ld/%u/%016" PRIx64, host, (long)getpid(),
		 n, rnd);
	snprintf(s->open_owner, sizeof(s->open_owner), "nfsx-open-%u", n);
	if (getrandom(s->verf.val, sizeof(s->verf.val), 0) != sizeof(s->verf.val))
		memcpy(s->verf.val, &rnd, sizeof(s->verf.val));
}

int nc4_x_exchange_id(const struct nfsx4_res *r, void *out)
{
	struct nc4_session *s = out;
	const struct EXCHANGE_ID4resok *ok;

	if (r->status != NFS4_OK)
		return (int)r->status;
	ok = &r->ops[0].u.opexchange_id.u.eir_resok4;
	s->clientid = ok->eir_clientid;
	s->cs_seq = ok->eir_sequenceid;
	return 0;
}

int nc4_x_create_session(const struct nfsx4_res *r, void *out)
{
	struct nc4_session *s = out;
	const struct CREATE_SESSION4resok *ok;
	const struct channel_attrs4 *f;

	if (r->status != NFS4_OK)
		return (int)r->status;
	ok = &r->ops[0].u.opcreate_session.u.csr_resok4;
	f = &ok->csr_fore_chan_attrs;
	if (f->ca_maxrequests == 0 || f->ca_maxoperations < 2)
		return -EPROTO;
	s->sid = ok->csr_sessionid;
	s->back_chan = (ok->csr_flags & CREATE_SESSION4_FLAG_CONN_BACK_CHAN) != 0;
	s->nslots = f->ca_maxrequests;
	s->maxops = f->ca_maxoperations;
	s->maxreq = f->ca_maxrequestsize;
	s->maxresp = f->ca_maxresponsesize;
	return 0;
}

static void chan_attrs(struct channel_attrs4 *c, uint32_t req, uint32_t resp, uint32_t slots)
{
	memset(c, 0, sizeof(*c));
	c->ca_maxrequestsize = req;
	c->ca_maxresponsesize = resp;
	c->ca_maxresponsesize_cached = 4096;
	c->ca_maxoperations = CS_MAXOPS;
	c->ca_maxrequests = slots;
}

static int x_status(const struct nfsx4_res *r, void *out)
{
	(void)out;
	return (int)r->status;
}

/* A session CREATE_SESSION granted: its slot table, from scratch. */
int nc4_session_install(struct nc4_session *s)
{
	s->cs_seq++;
	s->gen++;
	if (s->nslots > NC_SLOTS_MAX)
		s->nslots = NC_SLOTS_MAX;
	free(s->slots);
	free(s->busy);
	s->slots = calloc(s->nslots, sizeof(*s->slots));
	s->busy = calloc((s->nslots + 63) / 64, sizeof(*s->busy));
	if (!s->slots || !s->busy)
		return -ENOMEM;
	s->target = s->nslots;
	s->renewed = nc_now();
	s->renewing = false;
	nc4_cb_reset(s->cb, &s->sid);
	/* A new client id holds no delegation (none is reclaimed). */
	if (s->rec_fresh)
		nc4_deleg_clear(s);
	return 0;
}

static int x_lease(const struct nfsx4_res *r, void *out)
{
	struct nc4_session *s = out;
	struct nc4_attrs a;

	if (r->status != NFS4_OK || r->nops != 3 ||
	    nc4_attr_decode(&r->ops[2].u.opgetattr.u.resok4.obj_attributes, &a) < 0)
		return 0; /* keep the default */
	if (a.lease_time >= 1 && a.lease_time <= 86400)
		s->lease_s = a.lease_time;
	return 0;
}

/* The lease, for renewal: lease_time of the pseudo root (RFC 8881 5.8.1.11). */
static void read_lease(struct nfsx_ctx *ctx, struct nc4_session *s)
{
	struct nfs_argop4 ops[2];
	uint32_t w[1] = { 1u << FATTR4_LEASE_TIME };

	memset(ops, 0, sizeof(ops));
	ops[0].argop = OP_PUTROOTFH;
	ops[1].argop = OP_GETATTR;
	ops[1].u.opgetattr.attr_request.len = 1;
	ops[1].u.opgetattr.attr_request.val = w;
	nc4_sync(ctx, ops, 2, x_lease, s);
}

/* The back channel's security: AUTH_SYS, the context's own identity
 * (what a server's callbacks then carry; nothing of ours checks it). */
static void cb_security(struct nfsx_ctx *ctx, struct nc4_session *s)
{
	struct authsys_parms4 *a = &s->cb_sec.u.cbsp_sys_cred;

	s->cb_sec.cb_secflavor = AUTH_SYS;
	a->machinename.data = (const uint8_t *)ctx->machine;
	a->machinename.len = (uint32_t)strlen(ctx->machine);
	a->uid = ctx->o.uid;
	a->gid = ctx->o.gid;
	a->gids.len = ctx->o.ngids;
	a->gids.val = ctx->o.gids;
}

/*
 * The first session, or a new one after a recovery failed, is made by
 * the recovery's steps (one way to make a session), waited for here.
 */
int nfsx4_session_open(struct nfsx_ctx *ctx)
{
	struct nc4_session *s = ctx->v4;
	bool first;

	if (nc_sync_forbidden(ctx))
		return -EDEADLK;
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
		nc_list_init(&s->waitq);
		nc_list_init(&s->delayq);
		nc_list_init(&s->freeq);
		nc_list_init(&s->sentq);
		nc_list_init(&s->delegs);
		nc_list_init(&s->copies);
		s->cb = calloc(1, sizeof(*s->cb));
		if (!s->cb) {
			free(s);
			return -ENOMEM;
		}
		s->lease_s = 90;
		s->minor_auto = ctx->o.minor == 0;
		s->minor = s->minor_auto ? NC4_MINOR_MAX : ctx->o.minor;
		make_owner(ctx, s);
		cb_security(ctx, s);
		ctx->v4 = s;
	}
	first = s->gen == 0;
	for (;;) {
		if (!s->up && !s->recovering)
			nc4_recover_start(ctx);
		while (s->recovering)
			nfsx_run_once(ctx, -1);
		/* The highest minor version both sides speak: one lower
		 * while the server refuses ours (before any session). */
		if (s->up || s->rec_err != NFS4ERR_MINOR_VERS_MISMATCH || !first ||
		    !s->minor_auto || s->minor <= NC4_MINOR_MIN)
			break;
		s->minor--;
	}
	if (!s->up && s->rec_err == NFS4ERR_MINOR_VERS_MISMATCH)
		nc_set_error(ctx, "NFSv4.%u refused by the server (NFS4ERR_MINOR_VERS_MISMATCH)%s",
			     s->minor, s->minor == NC4_MINOR_MIN ?
			     "; libnfsx speaks NFSv4.1 and 4.2, not 4.0" : "");
	if (!s->up)
		return s->rec_err ? s->rec_err : -ENOTCONN;
	if (first)
		read_lease(ctx, s);
	return 0;
}

/* EXCHANGE_ID and CREATE_SESSION as the sync open and the asynchronous
 * recovery send them. */
void nc4_eid_op(const struct nc4_session *s, struct nfs_argop4 *op)
{
	memset(op, 0, sizeof(*op));
	op->argop = OP_EXCHANGE_ID;
	op->u.opexchange_id.eia_clientowner.co_verifier = s->verf;
	op->u.opexchange_id.eia_clientowner.co_ownerid.data = (const uint8_t *)s->owner;
	op->u.opexchange_id.eia_clientowner.co_ownerid.len = (uint32_t)strlen(s->owner);
	op->u.opexchange_id.eia_flags = EXCHGID4_FLAG_USE_NON_PNFS;
	op->u.opexchange_id.eia_state_protect.spa_how = SP4_NONE;
}

void nc4_cs_op(const struct nfsx_ctx *ctx, const struct nc4_session *s, struct nfs_argop4 *op)
{
	uint32_t resp;

	memset(op, 0, sizeof(*op));
	op->argop = OP_CREATE_SESSION;
	op->u.opcreate_session.csa_clientid = s->clientid;
	op->u.opcreate_session.csa_sequence = s->cs_seq;
	/* The back channel on the connection that carries this: callbacks
	 * come among the replies (cb4.c). */
	op->u.opcreate_session.csa_flags = CREATE_SESSION4_FLAG_CONN_BACK_CHAN;
	resp = NC4_IO_MAX + NC4_HEADROOM;
	if (resp > ctx->o.max_reply)
		resp = ctx->o.max_reply;
	chan_attrs(&op->u.opcreate_session.csa_fore_chan_attrs, NC4_IO_MAX + NC4_HEADROOM, resp,
		   ctx->o.slots);
	chan_attrs(&op->u.opcreate_session.csa_back_chan_attrs, NC4_CB_MAXREQ, NC4_CB_MAXRESP,
		   NC4_CB_SLOTS);
	op->u.opcreate_session.csa_back_chan_attrs.ca_maxresponsesize_cached = NC4_CB_MAXRESP;
	op->u.opcreate_session.csa_back_chan_attrs.ca_maxoperations = NC4_CB_MAXOPS;
	op->u.opcreate_session.csa_cb_program = NC4_CB_PROG;
	/* encoded, never written through */
	op->u.opcreate_session.csa_sec_parms.len = 1;
	op->u.opcreate_session.csa_sec_parms.val = (struct callback_sec_parms4 *)&s->cb_sec;
}

void nc4_op_open_fh(struct nfs_argop4 *o, const struct nc4_session *s, uint32_t access,
		    uint32_t deny)
{
	struct OPEN4args *a = &o->u.opopen;

	memset(o, 0, sizeof(*o));
	o->argop = OP_OPEN;
	/* Without a want of the caller's, no delegation (nfsx.h). */
	a->share_access = access & OPEN4_SHARE_ACCESS_WANT_DELEG_MASK ?
			  access : access | OPEN4_SHARE_ACCESS_WANT_NO_DELEG;
	a->share_deny = deny;
	/* The session's open-owner lives as long as the context. */
	a->owner.owner.data = (const uint8_t *)s->open_owner;
	a->owner.owner.len = (uint32_t)strlen(s->open_owner);
	a->openhow.opentype = OPEN4_NOCREATE;
	a->claim.claim = CLAIM_FH;
}

uint64_t nfsx4_clientid(const struct nfsx_ctx *c)
{
	return c->v4 && c->v4->up ? c->v4->clientid : 0;
}

unsigned nfsx4_minor(const struct nfsx_ctx *c)
{
	return c->v4 && c->v4->up ? c->v4->minor : 0;
}

void nc4_session_close(struct nfsx_ctx *ctx)
{
	struct nc4_session *s = ctx->v4;
	struct nfs_argop4 op;

	if (!s)
		return;
	if (s->up && !nc_sync_forbidden(ctx) && !ctx->dying) {
		nc4_deleg_return_all(ctx);
		/* DESTROY_SESSION may be alone in its COMPOUND (RFC 8881 18.37.3). */
		memset(&op, 0, sizeof(op));
		op.argop = OP_DESTROY_SESSION;
		op.u.opdestroy_session.dsa_sessionid = s->sid;
		nc4_sync_raw(ctx, &op, 1, x_status, NULL);
		memset(&op, 0, sizeof(op));
		op.argop = OP_DESTROY_CLIENTID;
		op.u.opdestroy_clientid.dca_clientid = s->clientid;
		nc4_sync_raw(ctx, &op, 1, x_status, NULL);
	}
	s->up = false;
	s->recovering = false;
	nc4_copy_clear(ctx);
	nc4_fail_waiting(ctx, &s->waitq, -ECANCELED);
	nc4_fail_waiting(ctx, &s->delayq, -ECANCELED);
	/* their replies (or -ECANCELED) come after the session is gone */
	while (!nc_list_empty(&s->sentq))
		nc_list_del(s->sentq.next);
	while (!nc_list_empty(&s->freeq)) {
		struct nc4_req *q = nc_container_of(s->freeq.next, struct nc4_req, link);

		nc_list_del(&q->link);
		free(q);
	}
	nc4_deleg_clear(s);
	nc4_state_free(s);
	free(s->cb);
	free(s->slots);
	free(s->busy);
	free(s);
	ctx->v4 = NULL;
}
