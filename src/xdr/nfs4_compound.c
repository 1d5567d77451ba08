/* SPDX-License-Identifier: MIT */
/*
 * COMPOUND and CB_COMPOUND heads and one operation at a time: see
 * nfs4_compound.h for why the envelope is split.
 */
#include "xdr/nfs4_compound.h"

/*
 * Least wire size of one element of argarray / resarray: the operation
 * number, then for a result at least its status (as xdrgen computes for
 * the generated COMPOUND decoders).
 */
#define ARGOP_MIN_WIRE 4u
#define RESOP_MIN_WIRE 8u

/*
 * The last operation of each minor version (the extended attribute
 * operations of RFC 8276 extend 4.2); a new minor version adds its own.
 */
static const uint32_t last_op[] = {
	OP_RELEASE_LOCKOWNER, OP_RECLAIM_COMPLETE, OP_REMOVEXATTR,
};
static const uint32_t last_cb_op[] = {
	OP_CB_RECALL, OP_CB_NOTIFY_DEVICEID, OP_CB_OFFLOAD,
};

#define NMINOR (sizeof(last_op) / sizeof(last_op[0]))

static bool dec_args_head(struct xdr_dec *d, struct nfs4_args_head *h,
			  bool cb)
{
	h->callback_ident = 0;
	return xdr_dec_utf8str_cs(d, &h->tag) &&
	       xdr_dec_u32(d, &h->minorversion) &&
	       (!cb || xdr_dec_u32(d, &h->callback_ident)) &&
	       xdr_dec_u32(d, &h->nops) &&
	       xdr_dec_count_ok(d, h->nops, UINT32_MAX, ARGOP_MIN_WIRE);
}

static bool enc_args_head(struct xdr_enc *e, const struct nfs4_args_head *h,
			  bool cb)
{
	return xdr_enc_utf8str_cs(e, &h->tag) &&
	       xdr_enc_u32(e, h->minorversion) &&
	       (!cb || xdr_enc_u32(e, h->callback_ident)) &&
	       xdr_enc_u32(e, h->nops);
}

bool nfs4_dec_compound_args_head(struct xdr_dec *d, struct nfs4_args_head *h)
{
	return dec_args_head(d, h, false);
}

bool nfs4_enc_compound_args_head(struct xdr_enc *e,
				 const struct nfs4_args_head *h)
{
	return enc_args_head(e, h, false);
}

bool nfs4_dec_cb_compound_args_head(struct xdr_dec *d,
				    struct nfs4_args_head *h)
{
	return dec_args_head(d, h, true);
}

bool nfs4_enc_cb_compound_args_head(struct xdr_enc *e,
				    const struct nfs4_args_head *h)
{
	return enc_args_head(e, h, true);
}

bool nfs4_dec_compound_res_head(struct xdr_dec *d, struct nfs4_res_head *h)
{
	return xdr_dec_nfsstat4(d, &h->status) &&
	       xdr_dec_utf8str_cs(d, &h->tag) &&
	       xdr_dec_u32(d, &h->nops) &&
	       xdr_dec_count_ok(d, h->nops, UINT32_MAX, RESOP_MIN_WIRE);
}

bool nfs4_enc_compound_res_head(struct xdr_enc *e,
				const struct nfs4_res_head *h)
{
	return xdr_enc_nfsstat4(e, &h->status) &&
	       xdr_enc_utf8str_cs(e, &h->tag) &&
	       xdr_enc_u32(e, h->nops);
}

size_t nfs4_compound_res_head_size(uint32_t tag_len)
{
	return 4 + 4 + ((size_t)tag_len + 3u) / 4u * 4u + 4;
}

/* Minor versions past the last one known here have its operations. */
static uint32_t minor_index(uint32_t minorversion)
{
	return minorversion < NMINOR ? minorversion : NMINOR - 1;
}

bool nfs4_op_known(uint32_t op, uint32_t minorversion)
{
	return op >= OP_ACCESS && op <= last_op[minor_index(minorversion)];
}

bool nfs4_cb_op_known(uint32_t op, uint32_t minorversion)
{
	return op >= OP_CB_GETATTR && op <= last_cb_op[minor_index(minorversion)];
}

/*
 * The operation number is read before the generated decoder runs, so
 * that an unknown one is not mistaken for garbage: the generated
 * decoders refuse a discriminant without an arm just as they refuse a
 * short message.
 */
enum nfs4_op_dec nfs4_dec_argop(struct xdr_dec *d, uint32_t minorversion,
				struct nfs_argop4 *op)
{
	uint32_t num;

	if (xdr_dec_left(d) < 4)
		return NFS4_OP_BADXDR;
	num = xdr__get32(d->p);
	if (!nfs4_op_known(num, minorversion)) {
		d->p += 4;
		op->argop = OP_ILLEGAL;
		return NFS4_OP_ILLEGAL;
	}
	return xdr_dec_nfs_argop4(d, op) ? NFS4_OP_DECODED : NFS4_OP_BADXDR;
}

enum nfs4_op_dec nfs4_dec_cb_argop(struct xdr_dec *d, uint32_t minorversion,
				   struct nfs_cb_argop4 *op)
{
	uint32_t num;

	if (xdr_dec_left(d) < 4)
		return NFS4_OP_BADXDR;
	num = xdr__get32(d->p);
	if (!nfs4_cb_op_known(num, minorversion)) {
		d->p += 4;
		op->argop = OP_CB_ILLEGAL;
		return NFS4_OP_ILLEGAL;
	}
	return xdr_dec_nfs_cb_argop4(d, op) ? NFS4_OP_DECODED : NFS4_OP_BADXDR;
}
