/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: bytes a server sends to libnfsx. A context is made
 * with one call of every NFSv3 procedure (xids 1-22), every MOUNT
 * procedure (23-28) and a PMAP GETPORT (29) in flight on one
 * connection, as if sent; the input then goes through the receive path
 * in chunks whose size is the input's first byte (0: all at once):
 * record reassembly with the max_reply bound, the reply header, the
 * xid table and every result decoder with its arena. Completed results
 * are walked in the callbacks, so views pointing outside the buffer
 * are caught by the sanitizers. No socket is ever opened.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "client/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void touch(const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		sink += b[i];
}

static void attr(const struct post_op_attr *a)
{
	if (a->attributes_follow)
		sink += a->u.attributes.fileid;
}

static void cb(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	const struct nfsx_proc *p = priv;

	(void)ctx;
	if (err || !res)
		return;
	if (p->prog == MOUNT3_PROGRAM) {
		if (p->proc == MOUNTPROC3_MNT && ((struct mountres3 *)res)->fhs_status == MNT3_OK) {
			struct mountres3_ok *m = &((struct mountres3 *)res)->u.mountinfo;

			touch(m->fhandle.data, m->fhandle.len);
			touch(m->auth_flavors.val, m->auth_flavors.len * sizeof(int32_t));
		} else if (p->proc == MOUNTPROC3_EXPORT) {
			const struct exportnode *e;
			const struct groupnode *g;

			for (e = *(exports3 *)res; e; e = e->ex_next) {
				touch(e->ex_dir.data, e->ex_dir.len);
				for (g = e->ex_groups; g; g = g->gr_next)
					touch(g->gr_name.data, g->gr_name.len);
			}
		} else if (p->proc == MOUNTPROC3_DUMP) {
			const struct mountbody *m;

			for (m = *(mountlist3 *)res; m; m = m->ml_next) {
				touch(m->ml_hostname.data, m->ml_hostname.len);
				touch(m->ml_directory.data, m->ml_directory.len);
			}
		}
		return;
	}
	if (p->prog != NFS3_PROGRAM || *(uint32_t *)res != NFS3_OK)
		return;
	switch (p->proc) {
	case NFSPROC3_READ:
		touch(((struct READ3res *)res)->u.resok.data.data,
		      ((struct READ3res *)res)->u.resok.data.len);
		break;
	case NFSPROC3_READLINK:
		touch(((struct READLINK3res *)res)->u.resok.data.data,
		      ((struct READLINK3res *)res)->u.resok.data.len);
		break;
	case NFSPROC3_LOOKUP:
		touch(((struct LOOKUP3res *)res)->u.resok.object.data.data,
		      ((struct LOOKUP3res *)res)->u.resok.object.data.len);
		break;
	case NFSPROC3_READDIR: {
		const struct entry3 *e;

		for (e = ((struct READDIR3res *)res)->u.resok.reply.entries; e; e = e->nextentry)
			touch(e->name.data, e->name.len);
		break;
	}
	case NFSPROC3_READDIRPLUS: {
		const struct entryplus3 *e;

		for (e = ((struct READDIRPLUS3res *)res)->u.resok.reply.entries; e;
		     e = e->nextentry) {
			touch(e->name.data, e->name.len);
			attr(&e->name_attributes);
			if (e->name_handle.handle_follows)
				touch(e->name_handle.u.handle.data.data,
				      e->name_handle.u.handle.data.len);
		}
		break;
	}
	default:
		break;
	}
}

/* Arguments: all zero (a valid encoding for every type), except MKNOD's type. */
static _Alignas(16) const uint8_t zero_args[1024];
static struct MKNOD3args mknod_args = { .what = { .type = NF3FIFO } };

static void in_flight(struct nfsx_ctx *ctx, struct nc_conn *c)
{
	unsigned i;

	for (i = 0; i < NC_NCHAN; i++) {
		struct nc_xq_item *it;

		while ((it = nc_xq_pop(&ctx->chan[i].queue))) {
			struct nc_call *call = nc_container_of(it, struct nc_call, qi);

			nc_conn_assign(c, call);
			nc_list_del(&call->link);
			nc_list_add_tail(&c->inflight, &call->link);
			call->state = NC_SENT;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nfsx_opts o;
	struct nfsx_ctx *ctx;
	struct nc_conn *c;
	char err[256];
	size_t chunk;
	unsigned i;

	if (size < 1)
		return 0;
	nfsx_opts_init(&o);
	o.host = "127.0.0.1";
	o.port = o.mount_port = o.rpcbind_port = 9; /* never contacted */
	o.max_reply = 32u << 10;
	ctx = nfsx_ctx_new(&o, err, sizeof(err));
	if (!ctx)
		abort();
	ctx->next_xid = 1;
	for (i = 0; i <= NFSPROC3_COMMIT; i++)
		if (nfsx_call(ctx, &nfsx_nfs3_procs[i],
			      i == NFSPROC3_MKNOD ? (const void *)&mknod_args : zero_args, cb,
			      (void *)&nfsx_nfs3_procs[i]))
			abort();
	for (i = 0; i <= MOUNTPROC3_EXPORT; i++)
		if (nfsx_call(ctx, &nfsx_mnt3_procs[i], zero_args, cb, (void *)&nfsx_mnt3_procs[i]))
			abort();
	if (nfsx_call(ctx, &nc_pmap_getport, zero_args, cb, (void *)&nc_pmap_getport))
		abort();
	c = &ctx->chan[NC_CH_NFS].conns[0];
	c->state = NC_UP;
	in_flight(ctx, c);

	chunk = data[0] ? data[0] : size;
	data++;
	size--;
	while (size && c->state == NC_UP) {
		size_t n = size < chunk ? size : chunk;

		nc_conn_feed(c, data, n, nc_now());
		data += n;
		size -= n;
	}
	nfsx_ctx_free(ctx);
	return 0;
}
