/* SPDX-License-Identifier: MIT */
/* Request buffers: see req.h. */
#include "rpc/req.h"

#include <stdlib.h>

#include "rpc/record.h"

void rpc_req_reset(struct rpc_req *req)
{
	xdr_arena_init(&req->arena, req->arena_mem, sizeof(req->arena_mem));
	xdr_dec_init(&req->args, req->rec, req->rec_len, &req->arena);
	req->reply = req->reply_inline;
	req->reply_cap = sizeof(req->reply_inline);
	xdr_enc_init(&req->enc, req->reply + 4, req->reply_cap - 4);
	req->tx_len = req->tx_done = 0;
	req->on_loop = false;
	req->next = NULL;
}

int rpc_req_reply_reserve(struct rpc_req *req, size_t len)
{
	size_t used = xdr_enc_len(&req->enc);
	uint8_t *nb;

	if (len + 4 <= req->reply_cap)
		return 0;
	if (req->reply == req->reply_inline) {
		nb = malloc(len + 4);
		if (nb)
			memcpy(nb, req->reply, used + 4);
	} else {
		nb = realloc(req->reply, len + 4);
	}
	if (!nb)
		return -1;
	req->reply = nb;
	req->reply_cap = len + 4;
	xdr_enc_init(&req->enc, nb + 4, len);
	req->enc.p += used;
	return 0;
}

void rpc_req_finish(struct rpc_req *req)
{
	size_t len = xdr_enc_len(&req->enc);

	xdr__put32(req->reply, RPC_RM_LAST | (uint32_t)len);
	req->tx_len = len + 4;
	req->tx_done = 0;
}

void rpc_req_release(struct rpc_req *req)
{
	if (req->rec != req->rec_inline)
		free(req->rec);
	if (req->reply != req->reply_inline)
		free(req->reply);
	req->rec = req->rec_inline;
	req->reply = req->reply_inline;
	req->reply_cap = sizeof(req->reply_inline);
}
