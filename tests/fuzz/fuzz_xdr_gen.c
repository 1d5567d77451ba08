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

#define ROUNDTRIP_ARENA (256u << 10)
#include "roundtrip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	return roundtrip_run(codecs, sizeof(codecs) / sizeof(codecs[0]), data,
			     size);
}
