/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a COMPOUND4res as libnfsx decodes it. The input is
 * the reply's results (after the RPC header): nfsx4_decode_res()
 * decodes it with an arena sized from its length as the core sizes it
 * (nc_arena_size), then every fattr4 in the results (GETATTR's,
 * READDIR's entries) goes through the NFSv4.1 sync API's bitmap-driven
 * decoder, READ_PLUS's contents go through nfsx4_read_plus_fill into
 * a buffer of its range, and the views of the results are walked so that
 * any pointing outside the input is caught by the sanitizers. Seeds:
 * make-client-seeds.py.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "client/attr4.h"
#include "client/nfs4.h"
#include "client/reply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void touch(const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		sink += b[i];
}

static void attrs(const struct fattr4 *f)
{
	struct nc4_attrs a;

	touch(f->attrmask.val, f->attrmask.len * sizeof(uint32_t));
	touch(f->attr_vals.data, f->attr_vals.len);
	if (nc4_attr_decode(f, &a) == 0)
		sink += a.a.fileid + a.a.size + a.fh.len + a.a.uid;
}

/* READ_PLUS as a caller asks for it: the range from the first
 * segment's offset (the caller's offset), as long as the buffer. */
static void read_plus(const struct READ_PLUS4res *rp)
{
	static uint8_t buf[1u << 16];
	const struct read_plus_res4 *ok = &rp->u.rp_resok4;
	struct nfsx4_read_plus_out o;
	uint64_t off = 0;
	uint32_t count = sizeof(buf);

	if (ok->rpr_contents.len) {
		const struct read_plus_content *c = &ok->rpr_contents.val[0];

		off = c->rpc_content == NFS4_CONTENT_DATA ? c->u.rpc_data.d_offset :
							     c->u.rpc_hole.di_offset;
		/* the caller's range may start inside a first hole */
		if (c->rpc_content == NFS4_CONTENT_HOLE && c->u.rpc_hole.di_length > 1)
			off += 1;
	}
	if (off > UINT64_MAX - count)
		count = (uint32_t)(UINT64_MAX - off);
	if (nfsx4_read_plus_fill(rp, off, count, buf, &o) == 0) {
		if (o.count > count || o.hole_bytes > o.count)
			abort();
		touch(buf, o.count);
	}
}

static void walk(const struct nfs_resop4 *r)
{
	const struct entry4 *e;

	if (nc4_op_status(r) != NFS4_OK)
		return;
	switch (r->resop) {
	case OP_GETATTR:
		attrs(&r->u.opgetattr.u.resok4.obj_attributes);
		break;
	case OP_READDIR:
		for (e = r->u.opreaddir.u.resok4.reply.entries; e; e = e->nextentry) {
			touch(e->name.data, e->name.len);
			attrs(&e->attrs);
		}
		break;
	case OP_READ:
		touch(r->u.opread.u.resok4.data.data, r->u.opread.u.resok4.data.len);
		break;
	case OP_READ_PLUS:
		read_plus(&r->u.opread_plus);
		break;
	case OP_GETXATTR:
		touch(r->u.opgetxattr.u.gxr_value.data, r->u.opgetxattr.u.gxr_value.len);
		break;
	case OP_LISTXATTRS: {
		const struct LISTXATTRS4resok *l = &r->u.oplistxattrs.u.lxr_value;
		uint32_t i;

		for (i = 0; i < l->lxr_names.len; i++)
			touch(l->lxr_names.val[i].data, l->lxr_names.val[i].len);
		break;
	}
	case OP_GETFH:
		touch(r->u.opgetfh.u.resok4.object.data, r->u.opgetfh.u.resok4.object.len);
		break;
	case OP_EXCHANGE_ID:
		touch(r->u.opexchange_id.u.eir_resok4.eir_server_scope.data,
		      r->u.opexchange_id.u.eir_resok4.eir_server_scope.len);
		break;
	case OP_OPEN:
		touch(r->u.opopen.u.resok4.attrset.val,
		      r->u.opopen.u.resok4.attrset.len * sizeof(uint32_t));
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cap = nc_arena_size(size);
	/* not zeroed, as the library's is not (decode_inits) */
	struct nfsx4_res *res = malloc(sizeof(*res));
	void *mem = malloc(cap);
	struct xdr_arena a;
	struct xdr_dec d;
	uint8_t *copy = malloc(size ? size : 1);
	uint32_t i;

	if (!res || !mem || !copy)
		goto out;
	/* a copy of exactly @size bytes: reads past it are caught */
	memcpy(copy, data, size);
	xdr_arena_init(&a, mem, cap);
	xdr_dec_init(&d, copy, size, &a);
	if (nfsx4_decode_res(&d, res)) {
		touch(res->tag.data, res->tag.len);
		for (i = 0; i < res->nops; i++)
			walk(&res->ops[i]);
	}
out:
	free(copy);
	free(mem);
	free(res);
	return 0;
}
