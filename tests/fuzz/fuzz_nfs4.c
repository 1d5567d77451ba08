/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the decoders of proto/nfs4.x that take bytes from
 * the network, and the op-by-op COMPOUND helpers (src/xdr/nfs4_compound).
 * The first input byte picks one of the entries of codecs[] (modulo
 * their number):
 *   0..3   COMPOUND4args, nfs_argop4, COMPOUND4res, nfs_resop4;
 *   4..7   CB_COMPOUND4args, nfs_cb_argop4, CB_COMPOUND4res,
 *          nfs_cb_resop4;
 *   8..9   fs_locations4 and nfsacl41 (attribute values with arrays
 *          of arrays);
 *   10     a COMPOUND decoded as the server does: the head, then one
 *          nfs_argop4 at a time with the arena reset between them,
 *          until the count, an illegal op or a malformed one;
 *   11     the same for a CB_COMPOUND (a client's callback service).
 * tests/fuzz/make-seeds.py writes seeds for every entry in this order.
 * A decode must stay inside the input and the arena; whatever decodes
 * must re-encode to exactly as many bytes as were consumed (op by op:
 * each op to its own bytes), and decoding that encoding must give the
 * same encoding again.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xdr/gen/nfs4.h"
#include "xdr/nfs4_compound.h"

#define ROUNDTRIP_ARENA (1u << 20)
#include "roundtrip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

CODEC(COMPOUND4args, struct COMPOUND4args)
CODEC(nfs_argop4, struct nfs_argop4)
CODEC(COMPOUND4res, struct COMPOUND4res)
CODEC(nfs_resop4, struct nfs_resop4)
CODEC(CB_COMPOUND4args, struct CB_COMPOUND4args)
CODEC(nfs_cb_argop4, struct nfs_cb_argop4)
CODEC(CB_COMPOUND4res, struct CB_COMPOUND4res)
CODEC(nfs_cb_resop4, struct nfs_cb_resop4)
CODEC(fs_locations4, struct fs_locations4)
CODEC(nfsacl41, struct nfsacl41)

/*
 * One op-by-op decoder for both envelopes: @cb picks CB_COMPOUND.
 * Return values: the length re-encoded when every op decoded (equal to
 * what was consumed), else 0.
 */
static size_t op_by_op(const uint8_t *in, size_t len, int n, bool cb)
{
	struct nfs4_args_head h;
	struct xdr_arena a;
	struct xdr_dec d;
	struct xdr_enc e;
	uint32_t i;

	xdr_arena_init(&a, roundtrip_arena[n], ROUNDTRIP_ARENA);
	xdr_dec_init(&d, in, len, &a);
	if (cb ? !nfs4_dec_cb_compound_args_head(&d, &h) :
		 !nfs4_dec_compound_args_head(&d, &h))
		return 0;
	if ((uint64_t)h.nops * 4 > xdr_dec_left(&d))
		abort();	/* the head must bound the loop */
	xdr_enc_init(&e, roundtrip_out[n], ROUNDTRIP_OUT);
	if (cb ? !nfs4_enc_cb_compound_args_head(&e, &h) :
		 !nfs4_enc_compound_args_head(&e, &h))
		abort();
	if (xdr_enc_len(&e) != len - xdr_dec_left(&d))
		abort();
	for (i = 0; i < h.nops; i++) {
		const uint8_t *start = d.p;
		size_t before = xdr_enc_len(&e);
		enum nfs4_op_dec r;
		bool good;

		xdr_arena_reset(&a);	/* one op's memory at a time */
		if (cb) {
			struct nfs_cb_argop4 op;

			memset(&op, 0, sizeof(op));
			r = nfs4_dec_cb_argop(&d, h.minorversion, &op);
			good = r != NFS4_OP_DECODED || xdr_enc_nfs_cb_argop4(&e, &op);
		} else {
			struct nfs_argop4 op;

			memset(&op, 0, sizeof(op));
			r = nfs4_dec_argop(&d, h.minorversion, &op);
			good = r != NFS4_OP_DECODED || xdr_enc_nfs_argop4(&e, &op);
		}
		if (!good)
			abort();	/* decoded ops must encode */
		if (r == NFS4_OP_ILLEGAL && d.p != start + 4)
			abort();	/* an illegal op is its number only */
		if (r != NFS4_OP_DECODED)
			return 0;
		if (xdr_enc_len(&e) - before != (size_t)(d.p - start))
			abort();
	}
	return xdr_enc_len(&e);
}

static size_t roundtrip_op_by_op(const uint8_t *in, size_t len, int n)
{
	return op_by_op(in, len, n, false);
}

static size_t roundtrip_cb_op_by_op(const uint8_t *in, size_t len, int n)
{
	return op_by_op(in, len, n, true);
}

static roundtrip_fn *const codecs[] = {
	roundtrip_COMPOUND4args,    roundtrip_nfs_argop4,
	roundtrip_COMPOUND4res,	    roundtrip_nfs_resop4,
	roundtrip_CB_COMPOUND4args, roundtrip_nfs_cb_argop4,
	roundtrip_CB_COMPOUND4res,  roundtrip_nfs_cb_resop4,
	roundtrip_fs_locations4,    roundtrip_nfsacl41,
	roundtrip_op_by_op,	    roundtrip_cb_op_by_op,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return roundtrip_run(codecs, sizeof(codecs) / sizeof(codecs[0]), data,
			     size);
}
