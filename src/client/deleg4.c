/* SPDX-License-Identifier: MIT */
/*
 * Delegations of a context and the back channel's glue: which
 * delegations the session holds (kept from OPEN results, whatever sent
 * the OPEN), a call arriving on a connection answered on it (cb4.c),
 * and a recall's DELEGRETURN. See nfs4.h for the design.
 *
 * - A delegation is known by its stateid's "other" field (the seqid of
 *   a recall's stateid may differ); its handle is the OPEN's (the PUTFH
 *   before a CLAIM_FH OPEN, or a GETFH after it), else the recall's.
 * - CB_RECALL of a delegation held is answered NFS4_OK and the
 *   DELEGRETURN (PUTFH + DELEGRETURN, DELAY retried as every typed
 *   call) queued just after the reply, or, while WRITEs of the file
 *   (a PUTFH of its handle, then WRITE) are queued or in flight in the
 *   session, when the last of them ends: the server sees the answer
 *   first, and the writes the caller had handed to the library before
 *   the return. libnfsx caches no data: data the caller has not handed
 *   over yet is its own to write before it may lose the delegation (it
 *   is not told of the recall).
 * - A DELEGRETURN of the library's own owns its entry (it names the
 *   handle inside it) until its callback, even when the session goes
 *   (the entry is then unlinked and freed by the callback).
 */
#include "client/session4_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client/sync.h"

static struct nc4_deleg *find(struct nc4_session *s, const struct stateid4 *sid)
{
	struct nc_list *l;

	for (l = s->delegs.next; l != &s->delegs; l = l->next) {
		struct nc4_deleg *d = nc_container_of(l, struct nc4_deleg, link);

		if (!memcmp(d->sid.other, sid->other, sizeof(sid->other)))
			return d;
	}
	return NULL;
}

static void set_fh(struct nc4_deleg *d, const nfs_fh4 *fh)
{
	if (fh && fh->len && fh->len <= sizeof(d->fh)) {
		memcpy(d->fh, fh->data, fh->len);
		d->fh_len = fh->len;
	}
}

static void keep(struct nc4_session *s, const struct stateid4 *sid, bool write, const nfs_fh4 *fh)
{
	struct nc4_deleg *d = find(s, sid);

	if (!d) {
		d = calloc(1, sizeof(*d));
		if (!d)
			return; /* a recall of it then answers BAD_STATEID: revoked in time */
		nc_list_add_tail(&s->delegs, &d->link);
		s->delegs_got++;
	}
	d->sid = *sid;
	d->write = write;
	if (!d->fh_len)
		set_fh(d, fh);
}

void nc4_deleg_note(struct nfsx_ctx *ctx, const struct nfs_argop4 *ops, uint32_t nops,
		    const struct nfsx4_res *r)
{
	struct nc4_session *s = ctx->v4;
	uint32_t i;

	if (!s)
		return;
	for (i = 0; i < r->nops && i < nops; i++) {
		const struct nfs_resop4 *res = &r->ops[i];

		if (res->resop == OP_OPEN && nc4_op_status(res) == NFS4_OK) {
			const struct open_delegation4 *od = &res->u.opopen.u.resok4.delegation;
			const nfs_fh4 *fh = NULL;

			if (od->delegation_type != OPEN_DELEGATE_READ &&
			    od->delegation_type != OPEN_DELEGATE_WRITE)
				continue;
			/* by handle: CLAIM_FH, or a reclaim (CLAIM_PREVIOUS) */
			if ((ops[i].u.opopen.claim.claim == CLAIM_FH ||
			     ops[i].u.opopen.claim.claim == CLAIM_PREVIOUS) && i > 0 &&
			    ops[i - 1].argop == OP_PUTFH)
				fh = &ops[i - 1].u.opputfh.object;
			else if (i + 1 < r->nops && r->ops[i + 1].resop == OP_GETFH &&
				 nc4_op_status(&r->ops[i + 1]) == NFS4_OK)
				fh = &r->ops[i + 1].u.opgetfh.u.resok4.object;
			if (od->delegation_type == OPEN_DELEGATE_READ)
				keep(s, &od->u.read.stateid, false, fh);
			else
				keep(s, &od->u.write.stateid, true, fh);
		} else if (res->resop == OP_DELEGRETURN) {
			/* the caller's own DELEGRETURN (ours own their entry) */
			struct nc4_deleg *d = find(s, &ops[i].u.opdelegreturn.deleg_stateid);

			if (!d || d->recalled)
				continue;
			if (nc4_op_status(res) == NFS4_OK)
				s->delegs_returned++;
			else if (nc4_op_status(res) != NFS4ERR_DELAY)
				s->delegs_return_failed++;
			else
				continue;
			nc_list_del(&d->link);
			free(d);
		}
	}
}

void nc4_deleg_clear(struct nc4_session *s)
{
	while (!nc_list_empty(&s->delegs)) {
		struct nc4_deleg *d = nc_container_of(s->delegs.next, struct nc4_deleg, link);

		nc_list_del(&d->link);
		if (!d->returning)
			free(d);
		/* else its DELEGRETURN's callback frees it */
	}
}

/* The end of a DELEGRETURN of ours: @res its DELEGRETURN4res (NC4_LAST). */
static void returned(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct nc4_deleg *d = priv;
	const struct DELEGRETURN4res *r = res;
	struct nc4_session *s = ctx->v4;

	if (s && nc_list_linked(&d->link)) {
		if (!err && r->status == NFS4_OK)
			s->delegs_returned++;
		else
			s->delegs_return_failed++;
	}
	nc_list_del(&d->link);
	free(d);
}

/* Is a WRITE of @d's file (after a PUTFH of its handle) in a request of @list? */
static bool writes_in(const struct nc_list *list, const struct nc4_deleg *d)
{
	const struct nc_list *l;
	uint32_t i;

	for (l = list->next; l != list; l = l->next) {
		const struct nc4_req *q = nc_container_of(l, struct nc4_req, link);
		const nfs_fh4 *fh = NULL;

		for (i = 0; i < q->args.nops; i++) {
			if (q->ops[i].argop == OP_PUTFH)
				fh = &q->ops[i].u.opputfh.object;
			else if (q->ops[i].argop == OP_WRITE && fh && fh->len == d->fh_len &&
				 !memcmp(fh->data, d->fh, d->fh_len))
				return true;
		}
	}
	return false;
}

/* Queue the DELEGRETURN of every delegation recalled and not yet on its
 * way whose file has no WRITE of ours pending. */
static void send_returns(struct nfsx_ctx *ctx)
{
	struct nc4_session *s = ctx->v4;
	struct nc_list *l, *next;

	for (l = s->delegs.next; l != &s->delegs; l = next) {
		struct nc4_deleg *d = nc_container_of(l, struct nc4_deleg, link);
		struct nfs_argop4 *ops;
		struct nc4_req *q;
		nfs_fh4 fh;

		next = l->next;
		if (!d->recalled || d->returning || writes_in(&s->sentq, d) ||
		    writes_in(&s->waitq, d) || writes_in(&s->delayq, d))
			continue;
		if (nc4_call_begin(ctx, 2, &q, &ops) < 0) {
			/* no session: the server revokes it in time */
			s->delegs_return_failed++;
			nc_list_del(&d->link);
			free(d);
			continue;
		}
		fh.data = d->fh;
		fh.len = d->fh_len;
		nc4_op_putfh(&ops[0], &fh);
		memset(&ops[1], 0, sizeof(ops[1]));
		ops[1].argop = OP_DELEGRETURN;
		ops[1].u.opdelegreturn.deleg_stateid = d->sid;
		d->returning = true;
		if (nc4_call_end(ctx, q, &nfsx_nfs4_ops[OP_DELEGRETURN], NC4_RETRY | NC4_LAST,
				 returned, d) < 0) {
			s->delegs_return_failed++;
			nc_list_del(&d->link);
			free(d);
		}
	}
}

void nc4_deleg_kick(struct nfsx_ctx *ctx)
{
	send_returns(ctx);
}

static enum nfsstat4 on_recall(void *priv, const struct CB_RECALL4args *a)
{
	struct nfsx_ctx *ctx = priv;
	struct nc4_deleg *d = find(ctx->v4, &a->stateid);

	if (!d)
		return NFS4ERR_BAD_STATEID;
	if (!d->fh_len)
		set_fh(d, &a->fh);
	if (!d->fh_len)
		return NFS4ERR_BADHANDLE;
	d->recalled = true;
	return NFS4_OK;
}

/* CB_OFFLOAD: the outcome of an asynchronous COPY (copy42.c). */
static enum nfsstat4 on_offload(void *priv, const struct CB_OFFLOAD4args *a)
{
	return nc4_copy_offload(priv, a);
}

void nc4_cb_record(struct nc_conn *c, const uint8_t *rec, size_t len)
{
	struct nfsx_ctx *ctx = c->ctx;
	struct nc4_session *s = ctx->v4;
	uint8_t *out;
	size_t n;

	/* No session asked for a back channel: nobody calls us. */
	if (!s || !s->cb) {
		ctx->stray_replies++;
		return;
	}
	out = malloc(NC4_CB_OUT_MAX);
	if (!out) {
		c->broken = true; /* the server sends it again on a new connection */
		return;
	}
	s->cb->offload = on_offload;
	s->cb->offload_priv = ctx;
	n = nc4_cb_serve(s->cb, rec, len, out, on_recall, ctx);
	if (n)
		nc_conn_send_raw(c, out, n);
	else
		free(out);
	send_returns(ctx);
	nc4_copy_kick(ctx);
}

static void bound(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct nc4_session *s = ctx->v4;
	const struct nfsx4_res *r = res;

	(void)priv;
	if (!s)
		return;
	s->binding = false;
	if (!err && r->status == NFS4_OK && r->nops == 1 &&
	    (r->ops[0].u.opbind_conn_to_session.u.bctsr_resok4.bctsr_dir & CDFS4_BACK)) {
		s->back_chan = true;
		s->rebinds++;
	}
	/* else a lost session is found by the next SEQUENCE, and a new one
	 * has its back channel from CREATE_SESSION */
}

void nc4_cb_rebind(struct nfsx_ctx *ctx)
{
	struct nc4_session *s = ctx->v4;
	struct nfs_argop4 op;

	if (!s || !s->up || s->recovering || s->binding || ctx->dying)
		return;
	memset(&op, 0, sizeof(op));
	op.argop = OP_BIND_CONN_TO_SESSION;
	op.u.opbind_conn_to_session.bctsa_sessid = s->sid;
	op.u.opbind_conn_to_session.bctsa_dir = CDFC4_BACK_OR_BOTH;
	op.u.opbind_conn_to_session.bctsa_use_conn_in_rdma_mode = false;
	/* alone in its COMPOUND, no SEQUENCE (RFC 8881 18.34.3) */
	if (nfsx4_compound(ctx, NC4_MINOR, &op, 1, bound, NULL) == 0)
		s->binding = true;
}

static int x_status(const struct nfsx4_res *r, void *out)
{
	(void)out;
	return (int)r->status;
}

void nc4_deleg_return_all(struct nfsx_ctx *ctx)
{
	struct nc4_session *s = ctx->v4;
	struct nc_list *l, *next;

	if (!s || !s->up)
		return;
	for (l = s->delegs.next; l != &s->delegs; l = next) {
		struct nc4_deleg *d = nc_container_of(l, struct nc4_deleg, link);
		struct nfs_argop4 ops[2];
		nfs_fh4 fh = { d->fh, d->fh_len };
		int r;

		next = l->next;
		if (d->recalled || !d->fh_len)
			continue;
		nc4_op_putfh(&ops[0], &fh);
		memset(&ops[1], 0, sizeof(ops[1]));
		ops[1].argop = OP_DELEGRETURN;
		ops[1].u.opdelegreturn.deleg_stateid = d->sid;
		/* nc4_deleg_note drops the entry when DELEGRETURN answered */
		r = nc4_sync(ctx, ops, 2, x_status, NULL);
		if (r < 0 || !s->up)
			return;
		next = s->delegs.next; /* the list changed under the loop */
		if (find(s, &ops[1].u.opdelegreturn.deleg_stateid))
			break; /* not dropped: the server would not take it */
	}
}

int nfsx4_cb_stats_get(const struct nfsx_ctx *c, struct nfsx4_cb_stats *st)
{
	const struct nc4_session *s = c->v4;
	const struct nc4_cb_counts *n;
	const struct nc_list *l;

	memset(st, 0, sizeof(*st));
	if (!s || !s->cb)
		return -ENOTCONN;
	n = &s->cb->n;
	st->back_chan = s->back_chan;
	st->calls = n->calls;
	st->nulls = n->nulls;
	st->compounds = n->compounds;
	st->replays = n->replays;
	st->rpc_errors = n->rpc_errors;
	st->dropped = n->dropped;
	st->recalls = n->recalls;
	st->recalls_unknown = n->recalls_unknown;
	st->offloads = n->offloads;
	st->delegs_got = s->delegs_got;
	st->delegs_returned = s->delegs_returned;
	st->delegs_return_failed = s->delegs_return_failed;
	st->rebinds = s->rebinds;
	for (l = s->delegs.next; l != &s->delegs; l = l->next)
		st->delegs_held++;
	return 0;
}
