/* SPDX-License-Identifier: MIT */
/* Request buffers: see req.h. */
#include "rpc/req.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "rpc/record.h"

void rpc_req_reset(struct rpc_req *req)
{
	xdr_arena_init(&req->arena, req->arena_mem, sizeof(req->arena_mem));
	xdr_dec_init(&req->args, req->rec, req->rec_len, &req->arena);
	req->reply = req->reply_inline;
	req->reply_cap = sizeof(req->reply_inline);
	xdr_enc_init(&req->enc, req->reply + 4, req->reply_cap - 4);
	req->tx_len = req->tx_done = 0;
	req->ext = NULL;
	req->ext_len = req->ext_at = 0;
	rpc_req_verf_none(req);
	req->on_loop = false;
	req->workers = NULL;
	atomic_store(&req->park, 0);
	req->next = NULL;
}

static void release_ext(struct rpc_req *req)
{
	if (req->ext_put)
		req->ext_put(req->ext_hold, req->ext_hold_len);
	req->ext_put = NULL;
	req->ext_hold = NULL;
	req->ext = NULL;
	req->ext_len = 0;
}

static void release_reply(struct rpc_req *req)
{
	if (req->reply_big)
		rpc_big_put(req->pool, req->reply);
	else if (req->reply != req->reply_inline)
		free(req->reply);
	req->reply = req->reply_inline;
	req->reply_cap = sizeof(req->reply_inline);
	req->reply_big = false;
}

int rpc_req_reply_reserve(struct rpc_req *req, size_t len)
{
	size_t used = xdr_enc_len(&req->enc), cap = len + 4;
	bool big = false;
	uint8_t *nb;

	if (len + 4 <= req->reply_cap)
		return 0;
	/* Pool buffers for the large (READ) replies; malloc is cheaper
	 * for a READDIR's 64 KiB. */
	if (req->pool && len + 4 > RPC_REQ_BIG_REPLY && len + 4 <= req->pool->cap) {
		nb = rpc_big_get(req->pool);
		big = nb != NULL;
		cap = req->pool->cap;
	} else {
		nb = malloc(len + 4);
	}
	if (!nb)
		return -1;
	memcpy(nb, req->reply, used + 4);
	release_reply(req);
	req->reply = nb;
	req->reply_cap = cap;
	req->reply_big = big;
	xdr_enc_init(&req->enc, nb + 4, cap - 4);
	req->enc.p += used;
	return 0;
}

int rpc_req_set_verf(struct rpc_req *req, uint32_t flavor, const uint8_t *body,
		     uint32_t len)
{
	uint8_t *copy = NULL;

	if (len > RPC_AUTH_MAX)
		return -1;
	if (len) {
		copy = xdr_arena_alloc(&req->arena, len);
		if (!copy)
			return -1;
		memcpy(copy, body, len);
	}
	req->verf.flavor = flavor;
	req->verf.len = len;
	req->verf.body = copy;
	return 0;
}

void rpc_req_finish(struct rpc_req *req)
{
	size_t len = xdr_enc_len(&req->enc) + req->ext_len;

	xdr__put32(req->reply, RPC_RM_LAST | (uint32_t)len);
	req->tx_len = len + 4;
	req->tx_done = 0;
}

int rpc_req_set_ext(struct rpc_req *req, const uint8_t *data, size_t len,
		    rpc_ext_put_fn *put, void *hold, size_t hold_len)
{
	if (req->drc_keyed || req->ext || req->ext_put)
		return -1;
	req->ext = data;
	req->ext_len = len;
	req->ext_at = 4 + xdr_enc_len(&req->enc); /* marker included */
	req->ext_put = put;
	req->ext_hold = hold;
	req->ext_hold_len = hold_len;
	return 0;
}

void rpc_ext_munmap(void *map, size_t len)
{
	munmap(map, len);
}

/* Zeros to send in place of lost ext data: one read-only anonymous
 * mapping, all of it the zero page, for every thread. */
static const uint8_t *zero_area;
static pthread_once_t zero_once = PTHREAD_ONCE_INIT;

static void zero_init(void)
{
	void *m = mmap(NULL, RPC_REQ_ZERO_AREA, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	zero_area = m == MAP_FAILED ? NULL : m;
}

bool rpc_req_ext_lost(struct rpc_req *req)
{
	size_t head = req->ext_at;

	if (!req->ext_len || req->tx_done < head || req->tx_done >= head + req->ext_len ||
	    req->ext_len > RPC_REQ_ZERO_AREA)
		return false;
	pthread_once(&zero_once, zero_init);
	if (!zero_area)
		return false;
	req->ext = zero_area;
	return true;
}

int rpc_req_tx_iov(const struct rpc_req *req, struct iovec *iov)
{
	size_t done = req->tx_done, head, tail;
	int n = 0;

	if (!req->ext_len) {
		iov[0].iov_base = req->reply + done;
		iov[0].iov_len = req->tx_len - done;
		return 1;
	}
	head = req->ext_at;
	tail = req->tx_len - head - req->ext_len;
	if (done < head) {
		iov[n].iov_base = req->reply + done;
		iov[n++].iov_len = head - done;
		done = head;
	}
	done -= head;
	if (done < req->ext_len) {
		iov[n].iov_base = (void *)(req->ext + done);
		iov[n++].iov_len = req->ext_len - done;
		done = req->ext_len;
	}
	done -= req->ext_len;
	if (done < tail) {
		iov[n].iov_base = req->reply + head + done;
		iov[n++].iov_len = tail - done;
	}
	return n;
}

void rpc_req_release_record(struct rpc_req *req)
{
	if (req->rec_big)
		rpc_big_put(req->pool, req->rec_big);
	else if (req->rec != req->rec_inline)
		free(req->rec);
	req->rec = req->rec_inline;
	req->rec_big = NULL;
	req->rec_len = 0;
	xdr_dec_init(&req->args, req->rec, 0, &req->arena);
	req->call.cred.machine.data = NULL;
	req->call.cred.machine.len = 0;
}

void rpc_req_release(struct rpc_req *req)
{
	rpc_req_release_record(req);
	release_ext(req);
	release_reply(req);
}
