/* SPDX-License-Identifier: MIT */
/*
 * COMPOUND and CB_COMPOUND one operation at a time (proto/nfs4.x).
 *
 * The generated xdr_dec_COMPOUND4args() decodes a whole request, and
 * fails as a whole on an operation number it does not know. A server
 * must do otherwise (RFC 7530 section 15.2, RFC 8881 section 16.2): run
 * the operations in order, and answer an unknown one with
 * NFS4ERR_OP_ILLEGAL after the earlier ones ran; and it should hold one
 * decoded operation at a time, not an array sized by the client. So the
 * envelope is split here:
 * - the head (tag, minorversion, [callback_ident,] the count of
 *   operations) decodes and encodes apart from the operations. The
 *   count is checked against the bytes left (an operation takes at
 *   least 4), so a loop over it is bounded by the message size;
 * - nfs4_dec_argop() / nfs4_dec_cb_argop() decode the next operation
 *   with the generated codec, but first tell an operation number that
 *   is unknown to the minor version (NFS4_OP_ILLEGAL) apart from a
 *   malformed operation (NFS4_OP_BADXDR);
 * - results go out with the generated xdr_enc_nfs_resop4() (one per
 *   operation) after nfs4_enc_compound_res_head(); the head's status
 *   and count are known last, so a server encodes the head into room
 *   it reserved (nfs4_compound_res_head_size()).
 * The callback side is the same with nfs_cb_argop4 / nfs_cb_resop4; a
 * client decodes replies with the generated xdr_dec_nfs_resop4() or
 * xdr_dec_nfs_cb_resop4() after the result head.
 *
 * Like the generated codecs, every function returns false (or
 * NFS4_OP_BADXDR) on short or malformed input or lack of room, and the
 * tag is a view into the message.
 */
#ifndef NFSX_XDR_NFS4_COMPOUND_H
#define NFSX_XDR_NFS4_COMPOUND_H

#include "xdr/gen/nfs4.h"

/* COMPOUND4args / CB_COMPOUND4args without argarray's elements. */
struct nfs4_args_head {
	struct xdr_bytes tag;
	uint32_t minorversion;
	uint32_t callback_ident;	/* CB_COMPOUND only */
	uint32_t nops;			/* argarray's count */
};

/* COMPOUND4res / CB_COMPOUND4res without resarray's elements. */
struct nfs4_res_head {
	enum nfsstat4 status;
	struct xdr_bytes tag;
	uint32_t nops;			/* resarray's count */
};

/* What nfs4_dec_argop() and nfs4_dec_cb_argop() found. */
enum nfs4_op_dec {
	NFS4_OP_DECODED,	/* op holds the operation */
	NFS4_OP_ILLEGAL,	/* unknown to the minor version, or OP_ILLEGAL */
	NFS4_OP_BADXDR,		/* short or malformed */
};

/*
 * nfs4_dec_compound_args_head - tag, minorversion and argarray's count
 * of a COMPOUND4args; h->callback_ident is set to 0. The count is
 * refused when the operations could not fit in what is left.
 * Return values: true, or false on short or malformed input.
 */
bool nfs4_dec_compound_args_head(struct xdr_dec *d, struct nfs4_args_head *h);

/*
 * nfs4_enc_compound_args_head - the head of a COMPOUND4args (a client
 * then encodes h->nops nfs_argop4 with xdr_enc_nfs_argop4()).
 * Return values: true, or false when @e lacks room.
 */
bool nfs4_enc_compound_args_head(struct xdr_enc *e,
				 const struct nfs4_args_head *h);

/*
 * nfs4_dec_cb_compound_args_head / nfs4_enc_cb_compound_args_head - the
 * same for CB_COMPOUND4args, whose head has callback_ident too.
 * Return values: as nfs4_dec_compound_args_head() / ..._enc_...().
 */
bool nfs4_dec_cb_compound_args_head(struct xdr_dec *d,
				    struct nfs4_args_head *h);
bool nfs4_enc_cb_compound_args_head(struct xdr_enc *e,
				    const struct nfs4_args_head *h);

/*
 * nfs4_dec_compound_res_head - status, tag and resarray's count of a
 * COMPOUND4res or CB_COMPOUND4res (the same layout); the count is
 * checked against the bytes left as for the arguments.
 * Return values: true, or false on short or malformed input (a status
 * that is not an nfsstat4 included).
 */
bool nfs4_dec_compound_res_head(struct xdr_dec *d, struct nfs4_res_head *h);

/*
 * nfs4_enc_compound_res_head - the head of a COMPOUND4res or
 * CB_COMPOUND4res; the nfs_resop4 (nfs_cb_resop4) follow it.
 * Return values: true, or false when @e lacks room or h->status is not
 * an nfsstat4.
 */
bool nfs4_enc_compound_res_head(struct xdr_enc *e,
				const struct nfs4_res_head *h);

/* CB_COMPOUND4res has the same layout as COMPOUND4res. */
static inline bool nfs4_dec_cb_compound_res_head(struct xdr_dec *d,
						 struct nfs4_res_head *h)
{
	return nfs4_dec_compound_res_head(d, h);
}

static inline bool nfs4_enc_cb_compound_res_head(struct xdr_enc *e,
						 const struct nfs4_res_head *h)
{
	return nfs4_enc_compound_res_head(e, h);
}

/*
 * nfs4_compound_res_head_size - bytes nfs4_enc_compound_res_head()
 * writes for a tag of @tag_len bytes, so that a server can reserve
 * them before it knows the status and the count.
 * Return values: the size.
 */
size_t nfs4_compound_res_head_size(uint32_t tag_len);

/*
 * nfs4_op_known - whether @op is an operation of minor version
 * @minorversion: 3..39 in 4.0, 3..58 in 4.1, 3..75 in 4.2 (with the
 * extended attribute operations of RFC 8276); a later minor version
 * than those is taken as 4.2 (the server refuses minor versions it does
 * not serve before it decodes any operation). OP_ILLEGAL is not known
 * (its only meaning is to be answered as illegal). The 4.0 operations
 * stay known in 4.1: RFC 8881 makes them "MUST NOT implement", answered
 * with NFS4ERR_NOTSUPP, not with OP_ILLEGAL.
 * Return values: true when known.
 */
bool nfs4_op_known(uint32_t op, uint32_t minorversion);

/*
 * nfs4_cb_op_known - the same for callback operations: 3..4 in 4.0,
 * 3..14 in 4.1, 3..15 in 4.2; OP_CB_ILLEGAL is not known.
 * Return values: true when known.
 */
bool nfs4_cb_op_known(uint32_t op, uint32_t minorversion);

/*
 * nfs4_dec_argop - decode the next nfs_argop4 of a COMPOUND whose head
 * said @minorversion. An operation number that is not known to the
 * minor version (nfs4_op_known()) is consumed and reported, with
 * op->argop set to OP_ILLEGAL: the server answers it with an OP_ILLEGAL
 * result of status NFS4ERR_OP_ILLEGAL and stops the COMPOUND there.
 * Arrays in the arguments take memory from d->arena.
 * Return values: %NFS4_OP_DECODED, %NFS4_OP_ILLEGAL, or %NFS4_OP_BADXDR
 * (short or malformed: NFS4ERR_BADXDR).
 */
enum nfs4_op_dec nfs4_dec_argop(struct xdr_dec *d, uint32_t minorversion,
				struct nfs_argop4 *op);

/*
 * nfs4_dec_cb_argop - the same for the next nfs_cb_argop4 of a
 * CB_COMPOUND (a client's callback service), with nfs4_cb_op_known();
 * op->argop is set to OP_CB_ILLEGAL for an unknown operation.
 * Return values: as nfs4_dec_argop().
 */
enum nfs4_op_dec nfs4_dec_cb_argop(struct xdr_dec *d, uint32_t minorversion,
				   struct nfs_cb_argop4 *op);

#endif /* NFSX_XDR_NFS4_COMPOUND_H */
