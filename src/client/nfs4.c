/* SPDX-License-Identifier: MIT */
/*
 * NFSv4 (RFC 8881): the COMPOUND procedure on the RPC core.
 *
 * The arguments are encoded with the generated codecs after the head
 * (xdr/nfs4_compound.h). The reply is decoded whole into a result
 * struct holding at most NFSX4_MAX_OPS results inline, so that a
 * hostile count costs nothing: the core sizes the decode arena from the
 * reply's length, the nested lists (directory entries, bitmaps) come
 * from it, and a reply that is not consumed to its last byte is -EPROTO.
 *
 * Statistics: the core counts a COMPOUND (transmissions, times, bytes)
 * under the descriptor it was submitted under: nfsx_nfs4_compound, or
 * for the typed wrappers their operation's entry of nfsx_nfs4_ops.
 * nc4_check_reply adds one op to the entry of each other result inside
 * the reply (ops only). All are keys of the same per-context table, so
 * nfsx_stats_get() serves both.
 */
#include "client/nfs4.h"
#include "client/state4.h"
#include "client/procs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xdr/nfs4_compound.h"

#define NFSPROC4_COMPOUND 1

/*
 * WRITE as the last operation: everything up to the data length is
 * encoded, the data go from the caller's buffer (zero copy, as NFSv3's
 * WRITE), so a 1 MiB WRITE is not copied nor bounded by the call buffer.
 */
static bool enc_last_write(struct nc_enc *ne, const struct nfs_argop4 *op)
{
	const struct WRITE4args *w = &op->u.opwrite;

	if (!xdr_enc_nfs_opnum4(&ne->x, &op->argop) || !xdr_enc_stateid4(&ne->x, &w->stateid) ||
	    !xdr_enc_offset4(&ne->x, &w->offset) || !xdr_enc_stable_how4(&ne->x, &w->stable) ||
	    !xdr_enc_u32(&ne->x, w->data.len))
		return false;
	ne->payload = w->data.data;
	ne->payload_len = w->data.len;
	return true;
}

static bool enc_compound(void *e, const void *a)
{
	const struct nfsx4_args *args = a;
	struct nc_enc *ne = e;
	struct nfs4_args_head h = { args->tag, args->minorversion, 0, args->nops };
	uint32_t i;

	if (args->nops > NFSX4_MAX_OPS || !nfs4_enc_compound_args_head(&ne->x, &h))
		return false;
	for (i = 0; i < args->nops; i++) {
		if (i + 1 == args->nops && args->ops[i].argop == OP_WRITE)
			return enc_last_write(ne, &args->ops[i]);
		if (!xdr_enc_nfs_argop4(&ne->x, &args->ops[i]))
			return false;
	}
	return true;
}

bool nfsx4_decode_res(void *dec, void *res)
{
	struct xdr_dec *d = dec;
	struct nfsx4_res *r = res;
	struct nfs4_res_head h;
	uint32_t i;

	if (!nfs4_dec_compound_res_head(d, &h) || h.nops > NFSX4_MAX_OPS)
		return false;
	r->status = h.status;
	r->tag = h.tag;
	r->nops = 0;
	/* Only the results the reply holds are zeroed, each before it is
	 * decoded (fields of an arm not taken read zero); the entries past
	 * nops are not to be read (decode_inits), which spares every reply
	 * zeroing the whole 2.6 KB result. */
	for (i = 0; i < h.nops; i++) {
		memset(&r->ops[i], 0, sizeof(r->ops[i]));
		if (!xdr_dec_nfs_resop4(d, &r->ops[i]))
			return false;
		r->nops = i + 1;
	}
	return xdr_dec_left(d) == 0;
}

const struct nfsx_proc nfsx_nfs4_compound = {
	.prog = NFS4_PROGRAM, .vers = NFS_V4, .proc = NFSPROC4_COMPOUND,
	.name = "COMPOUND", .encode = enc_compound, .decode = nfsx4_decode_res,
	.res_size = sizeof(struct nfsx4_res), .idempotent = false, .decode_inits = true,
	.res_status = true,
};

/*
 * The operations' descriptors are COMPOUND procedures too (procedure 1,
 * the same codecs), so that a COMPOUND sent for one operation (a typed
 * wrapper's SEQUENCE + PUTFH + READ) is submitted under that
 * operation's descriptor and the core counts all of it there:
 * transmissions, bytes and times, as mountstats names NFSv4 calls by
 * their main operation.
 */
#define O(NUM, NAME) [NUM] = { .prog = NFS4_PROGRAM, .vers = NFS_V4, \
			       .proc = NFSPROC4_COMPOUND, .name = (NAME), \
			       .encode = enc_compound, .decode = nfsx4_decode_res, \
			       .res_size = sizeof(struct nfsx4_res), .idempotent = false, \
			       .decode_inits = true, .res_status = true }

const struct nfsx_proc nfsx_nfs4_ops[OP_REMOVEXATTR + 1] = {
	O(OP_ACCESS, "ACCESS"), O(OP_CLOSE, "CLOSE"), O(OP_COMMIT, "COMMIT"),
	O(OP_CREATE, "CREATE"), O(OP_DELEGPURGE, "DELEGPURGE"),
	O(OP_DELEGRETURN, "DELEGRETURN"), O(OP_GETATTR, "GETATTR"), O(OP_GETFH, "GETFH"),
	O(OP_LINK, "LINK"), O(OP_LOCK, "LOCK"), O(OP_LOCKT, "LOCKT"), O(OP_LOCKU, "LOCKU"),
	O(OP_LOOKUP, "LOOKUP"), O(OP_LOOKUPP, "LOOKUPP"), O(OP_NVERIFY, "NVERIFY"),
	O(OP_OPEN, "OPEN"), O(OP_OPENATTR, "OPENATTR"), O(OP_OPEN_CONFIRM, "OPEN_CONFIRM"),
	O(OP_OPEN_DOWNGRADE, "OPEN_DOWNGRADE"), O(OP_PUTFH, "PUTFH"),
	O(OP_PUTPUBFH, "PUTPUBFH"), O(OP_PUTROOTFH, "PUTROOTFH"), O(OP_READ, "READ"),
	O(OP_READDIR, "READDIR"), O(OP_READLINK, "READLINK"), O(OP_REMOVE, "REMOVE"),
	O(OP_RENAME, "RENAME"), O(OP_RENEW, "RENEW"), O(OP_RESTOREFH, "RESTOREFH"),
	O(OP_SAVEFH, "SAVEFH"), O(OP_SECINFO, "SECINFO"), O(OP_SETATTR, "SETATTR"),
	O(OP_SETCLIENTID, "SETCLIENTID"), O(OP_SETCLIENTID_CONFIRM, "SETCLIENTID_CONFIRM"),
	O(OP_VERIFY, "VERIFY"), O(OP_WRITE, "WRITE"),
	O(OP_RELEASE_LOCKOWNER, "RELEASE_LOCKOWNER"),
	O(OP_BACKCHANNEL_CTL, "BACKCHANNEL_CTL"),
	O(OP_BIND_CONN_TO_SESSION, "BIND_CONN_TO_SESSION"),
	O(OP_EXCHANGE_ID, "EXCHANGE_ID"), O(OP_CREATE_SESSION, "CREATE_SESSION"),
	O(OP_DESTROY_SESSION, "DESTROY_SESSION"), O(OP_FREE_STATEID, "FREE_STATEID"),
	O(OP_GET_DIR_DELEGATION, "GET_DIR_DELEGATION"), O(OP_GETDEVICEINFO, "GETDEVICEINFO"),
	O(OP_GETDEVICELIST, "GETDEVICELIST"), O(OP_LAYOUTCOMMIT, "LAYOUTCOMMIT"),
	O(OP_LAYOUTGET, "LAYOUTGET"), O(OP_LAYOUTRETURN, "LAYOUTRETURN"),
	O(OP_SECINFO_NO_NAME, "SECINFO_NO_NAME"), O(OP_SEQUENCE, "SEQUENCE"),
	O(OP_SET_SSV, "SET_SSV"), O(OP_TEST_STATEID, "TEST_STATEID"),
	O(OP_WANT_DELEGATION, "WANT_DELEGATION"), O(OP_DESTROY_CLIENTID, "DESTROY_CLIENTID"),
	O(OP_RECLAIM_COMPLETE, "RECLAIM_COMPLETE"), O(OP_ALLOCATE, "ALLOCATE"),
	O(OP_COPY, "COPY"), O(OP_COPY_NOTIFY, "COPY_NOTIFY"), O(OP_DEALLOCATE, "DEALLOCATE"),
	O(OP_IO_ADVISE, "IO_ADVISE"), O(OP_LAYOUTERROR, "LAYOUTERROR"),
	O(OP_LAYOUTSTATS, "LAYOUTSTATS"), O(OP_OFFLOAD_CANCEL, "OFFLOAD_CANCEL"),
	O(OP_OFFLOAD_STATUS, "OFFLOAD_STATUS"), O(OP_READ_PLUS, "READ_PLUS"),
	O(OP_SEEK, "SEEK"), O(OP_WRITE_SAME, "WRITE_SAME"), O(OP_CLONE, "CLONE"),
	O(OP_GETXATTR, "GETXATTR"), O(OP_SETXATTR, "SETXATTR"),
	O(OP_LISTXATTRS, "LISTXATTRS"), O(OP_REMOVEXATTR, "REMOVEXATTR"),
};

int nc4_check_reply(struct nfsx_ctx *ctx, const struct nfs_argop4 *ops, uint32_t nops,
		    const struct nfsx4_res *r, const struct nfsx_proc *as)
{
	uint32_t i;

	/* Results answer the operations sent, in order, and no more. */
	if (r->nops > nops)
		return -EPROTO;
	for (i = 0; i < r->nops; i++)
		if (r->ops[i].resop != ops[i].argop)
			return -EPROTO;
	/* A result short of the operations sent ends with an error; a
	 * minor version the server does not speak has no result at all
	 * (RFC 8881 16.2.3: the reply's resarray is empty). */
	if (r->nops < nops && r->status == NFS4_OK)
		return -EPROTO;
	if (r->nops == 0 && nops > 0 && r->status != NFS4ERR_MINOR_VERS_MISMATCH)
		return -EPROTO;
	for (i = 0; i < r->nops; i++) {
		uint32_t op = r->ops[i].resop;
		struct nfsx_op_stats *st;

		/* The COMPOUND's own descriptor was counted by the core
		 * (its errors by the COMPOUND's status, res_status). */
		if (op < sizeof(nfsx_nfs4_ops) / sizeof(nfsx_nfs4_ops[0]) && nfsx_nfs4_ops[op].name &&
		    &nfsx_nfs4_ops[op] != as &&
		    (st = nc_stats_for(&ctx->stats, &nfsx_nfs4_ops[op])) != NULL) {
			st->ops++;
			if (nc4_op_status(&r->ops[i]) != NFS4_OK)
				st->errors++;
		}
	}
	nc4_deleg_note(ctx, ops, nops, r);
	nc4_state_note(ctx, ops, nops, r);
	return 0;
}

struct nc4_raw {
	struct nfsx4_args args;
	struct nfs_argop4 ops[NFSX4_MAX_OPS];
	nfsx_cb cb;
	void *priv;
};

static void raw_done(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct nc4_raw *w = priv;

	if (!err)
		err = nc4_check_reply(ctx, w->ops, w->args.nops, res, NULL);
	w->cb(ctx, err, err ? NULL : res, w->priv);
	free(w);
}

int nfsx4_compound(struct nfsx_ctx *c, uint32_t minor, const struct nfs_argop4 *ops,
		   uint32_t nops, nfsx_cb cb, void *priv)
{
	struct nc4_raw *w;
	int r;

	if (nops > NFSX4_MAX_OPS)
		return -E2BIG;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	memcpy(w->ops, ops, nops * sizeof(*ops));
	w->args.minorversion = minor == NC4_MINOR ? nc4_minor_of(c) : minor;
	w->args.nops = nops;
	w->args.ops = w->ops;
	w->cb = cb;
	w->priv = priv;
	r = nfsx_call(c, &nfsx_nfs4_compound, &w->args, raw_done, w);
	if (r < 0)
		free(w);
	return r;
}
