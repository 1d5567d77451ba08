/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: every generated decoder of proto/rpc.x and
 * proto/rpcbind.x (the first input byte picks the type). A decode must
 * stay inside the input and the arena; whatever decodes must re-encode
 * to exactly as many bytes as were consumed, and decoding that encoding
 * must give the same encoding again (the codecs agree with each other).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xdr/gen/rpc.h"
#include "xdr/gen/rpcbind.h"

#define ARENA_SIZE (256u << 10)
#define OUT_SIZE (512u << 10)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t arena_mem[2][ARENA_SIZE / 8];
static uint8_t out[2][OUT_SIZE];

#define CODEC(T, CT)                                                    \
	static size_t roundtrip_##T(const uint8_t *in, size_t len, int n) \
	{                                                               \
		struct xdr_arena a;                                     \
		struct xdr_dec d;                                       \
		struct xdr_enc e;                                       \
		CT v;                                                   \
                                                                        \
		memset(&v, 0, sizeof(v));                               \
		xdr_arena_init(&a, arena_mem[n], ARENA_SIZE);           \
		xdr_dec_init(&d, in, len, &a);                          \
		if (!xdr_dec_##T(&d, &v))                               \
			return 0;                                       \
		xdr_enc_init(&e, out[n], OUT_SIZE);                     \
		if (!xdr_enc_##T(&e, &v))                               \
			abort(); /* decoded values must encode */       \
		if (xdr_enc_len(&e) != len - xdr_dec_left(&d))          \
			abort();                                        \
		return xdr_enc_len(&e);                                 \
	}

CODEC(rpc_msg, struct rpc_msg)
CODEC(call_body, struct call_body)
CODEC(opaque_auth, struct opaque_auth)
CODEC(authsys_parms, struct authsys_parms)
CODEC(accepted_reply, struct accepted_reply)
CODEC(rejected_reply, struct rejected_reply)
CODEC(mapping, struct mapping)
CODEC(pmaplist_ptr, pmaplist_ptr)
CODEC(call_args, struct call_args)
CODEC(call_result, struct call_result)
CODEC(rpcb, struct rpcb)
CODEC(rpcblist_ptr, rpcblist_ptr)
CODEC(rpcb_entry_list_ptr, rpcb_entry_list_ptr)
CODEC(rpcb_rmtcallargs, struct rpcb_rmtcallargs)
CODEC(rpcb_rmtcallres, struct rpcb_rmtcallres)
CODEC(rpcb_stat_byvers, rpcb_stat_byvers)
CODEC(netbuf, struct netbuf)

typedef size_t roundtrip_fn(const uint8_t *in, size_t len, int n);

static roundtrip_fn *const codecs[] = {
	roundtrip_rpc_msg,	    roundtrip_call_body,
	roundtrip_opaque_auth,	    roundtrip_authsys_parms,
	roundtrip_accepted_reply,   roundtrip_rejected_reply,
	roundtrip_mapping,	    roundtrip_pmaplist_ptr,
	roundtrip_call_args,	    roundtrip_call_result,
	roundtrip_rpcb,		    roundtrip_rpcblist_ptr,
	roundtrip_rpcb_entry_list_ptr, roundtrip_rpcb_rmtcallargs,
	roundtrip_rpcb_rmtcallres,  roundtrip_rpcb_stat_byvers,
	roundtrip_netbuf,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	roundtrip_fn *fn;
	uint8_t *copy;
	size_t n1, n2;

	if (size < 1)
		return 0;
	fn = codecs[data[0] % (sizeof(codecs) / sizeof(codecs[0]))];
	/* Exact-size heap copy so that ASan sees any over-read. */
	copy = malloc(size - 1 ? size - 1 : 1);
	memcpy(copy, data + 1, size - 1);
	n1 = fn(copy, size - 1, 0);
	if (n1) {
		n2 = fn(out[0], n1, 1);
		if (n2 != n1 || memcmp(out[0], out[1], n1) != 0)
			abort();
	}
	free(copy);
	return 0;
}
