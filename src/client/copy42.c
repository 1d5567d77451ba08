/* SPDX-License-Identifier: MIT */
/*
 * NFSv4.2 asynchronous COPY (RFC 7862 15.2, 16.1.3): COPY with
 * ca_synchronous false, whose outcome comes later in CB_OFFLOAD on the
 * back channel.
 *
 * DESIGN
 * - One record per COPY in the session's list (struct nc4_copy) from
 *   the call until its outcome is delivered. The COPY's reply says
 *   either that the copy is done (no callback id: the server did it at
 *   once, which it may) or names the callback id that CB_OFFLOAD will
 *   carry.
 * - CB_OFFLOAD may overtake the COPY's reply (the server sends it as
 *   soon as the copy ends, RFC 7862 15.2.3): one whose id no record
 *   holds yet is kept as an "early" record (at most NC4_COPY_EARLY_MAX,
 *   beyond which the server is told NFS4ERR_DELAY and sends it again),
 *   matched when the reply comes.
 * - The back channel answers from the receive path, where no callback
 *   of the caller's may run: CB_OFFLOAD only records the outcome
 *   (nc4_copy_offload); nc4_copy_kick, called after the callback's
 *   reply is queued, delivers what is done.
 * - The caller's callback gets a struct nfsx4_copy_done (the status,
 *   the bytes copied, how they are committed and the verifier) however
 *   the outcome came. A session closed while a copy is under way fails
 *   it with -ECANCELED; a new client id makes the server forget it, and
 *   the callback waits until the context is freed (no OFFLOAD_STATUS
 *   polling).
 */
#include "client/nfs4.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NC4_COPY_EARLY_MAX 16

struct nc4_copy {
	struct nc_list link;         /* nc4_session.copies */
	struct stateid4 id;          /* the callback id (have_id) */
	bool have_id;                /* the COPY's reply named it */
	bool done;                   /* the outcome is in res */
	bool early;                  /* a CB_OFFLOAD before its COPY's reply */
	struct nfsx4_copy_done res;
	nfsx_cb cb;                  /* NULL for an early record */
	void *priv;
};

static bool same_id(const struct stateid4 *a, const struct stateid4 *b)
{
	return memcmp(a->other, b->other, sizeof(a->other)) == 0;
}

static void deliver(struct nfsx_ctx *ctx, struct nc4_copy *k, int err)
{
	nc_list_del(&k->link);
	ctx->in_cb++;
	k->cb(ctx, err, err ? NULL : &k->res, k->priv);
	ctx->in_cb--;
	free(k);
}

void nc4_copy_kick(struct nfsx_ctx *ctx)
{
	struct nc4_session *s = ctx->v4;
	struct nc_list *l, *next;

	if (!s)
		return;
	for (l = s->copies.next; l != &s->copies; l = next) {
		struct nc4_copy *k = nc_container_of(l, struct nc4_copy, link);

		next = l->next;
		if (k->done && k->cb) {
			deliver(ctx, k, 0);
			/* the callback may have started or ended copies */
			next = s->copies.next;
		}
	}
}

enum nfsstat4 nc4_copy_offload(struct nfsx_ctx *ctx, const struct CB_OFFLOAD4args *a)
{
	struct nc4_session *s = ctx->v4;
	struct nc4_copy *k = NULL;
	struct nc_list *l;
	unsigned early = 0;

	if (!s)
		return NFS4ERR_BAD_STATEID;
	for (l = s->copies.next; l != &s->copies; l = l->next) {
		struct nc4_copy *x = nc_container_of(l, struct nc4_copy, link);

		if (x->early)
			early++;
		if (x->have_id && !x->done && same_id(&x->id, &a->coa_stateid))
			k = x;
	}
	if (!k) {
		/* before its COPY's reply, or of nothing we sent: kept,
		 * within a bound */
		if (early >= NC4_COPY_EARLY_MAX)
			return NFS4ERR_DELAY;
		k = calloc(1, sizeof(*k));
		if (!k)
			return NFS4ERR_DELAY;
		k->id = a->coa_stateid;
		k->have_id = true;
		k->early = true;
		nc_list_add_tail(&s->copies, &k->link);
	}
	k->done = true;
	k->res.offloaded = true;
	k->res.status = a->coa_offload_info.coa_status;
	if (k->res.status == NFS4_OK) {
		const struct write_response4 *w = &a->coa_offload_info.u.coa_resok4;

		k->res.count = w->wr_count;
		k->res.committed = w->wr_committed;
		k->res.verf = w->wr_writeverf;
	} else {
		k->res.count = a->coa_offload_info.u.coa_bytes_copied;
	}
	return NFS4_OK;
}

void nc4_copy_clear(struct nfsx_ctx *ctx)
{
	struct nc4_session *s = ctx->v4;

	while (s && !nc_list_empty(&s->copies)) {
		struct nc4_copy *k = nc_container_of(s->copies.next, struct nc4_copy, link);

		if (k->cb) {
			deliver(ctx, k, -ECANCELED);
		} else {
			nc_list_del(&k->link);
			free(k);
		}
	}
}

/* The COPY's reply: done now, or the callback id to wait for. */
static void copy_replied(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct nc4_copy *k = priv;
	struct nc4_session *s = ctx->v4;
	const struct COPY4res *r = res;
	const struct COPY4resok *ok;
	struct nc_list *l;

	if (err || !s) {
		deliver(ctx, k, err ? err : -ECANCELED);
		return;
	}
	k->res.status = r->cr_status;
	if (r->cr_status != NFS4_OK) {
		deliver(ctx, k, 0);
		return;
	}
	ok = &r->u.cr_resok4;
	if (ok->cr_response.wr_callback_id.len == 0) {
		/* done at once (RFC 7862 15.2.3) */
		k->res.count = ok->cr_response.wr_count;
		k->res.committed = ok->cr_response.wr_committed;
		k->res.verf = ok->cr_response.wr_writeverf;
		deliver(ctx, k, 0);
		return;
	}
	k->id = ok->cr_response.wr_callback_id.val[0];
	k->have_id = true;
	/* its CB_OFFLOAD came first */
	for (l = s->copies.next; l != &s->copies; l = l->next) {
		struct nc4_copy *x = nc_container_of(l, struct nc4_copy, link);

		if (x->early && same_id(&x->id, &k->id)) {
			k->res = x->res;
			k->done = true;
			nc_list_del(&x->link);
			free(x);
			deliver(ctx, k, 0);
			return;
		}
	}
}

int nfsx4_copy_async(struct nfsx_ctx *c, const struct nfsx4_copy_args *a, nfsx_cb cb,
		     void *priv)
{
	struct COPY4args x;
	struct nc4_copy *k;
	int r;

	if (!c->v4)
		return -ENOTCONN;
	if (c->v4->minor < 2)
		return -EOPNOTSUPP;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->cb = cb;
	k->priv = priv;
	memset(&x, 0, sizeof(x));
	x.ca_src_stateid = a->src_stateid;
	x.ca_dst_stateid = a->dst_stateid;
	x.ca_src_offset = a->src_offset;
	x.ca_dst_offset = a->dst_offset;
	x.ca_count = a->count;
	x.ca_consecutive = true;
	x.ca_synchronous = false;
	nc_list_add_tail(&c->v4->copies, &k->link);
	r = nc4_send_two_fh(c, &a->src, &a->dst, OP_COPY, &x, sizeof(x), copy_replied, k);
	if (r < 0) {
		nc_list_del(&k->link);
		free(k);
	}
	return r;
}
