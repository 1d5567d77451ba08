/* SPDX-License-Identifier: MIT */
/*
 * Pool of large buffers for records and replies bigger than a request's
 * inline space (WRITE and READ of up to 1 MiB).
 *
 * DESIGN
 * - Every buffer has the same capacity, enough for the largest record
 *   (--max-record) plus a read's worth of the next one, and for the
 *   largest reply. A connection receiving a large record moves to one
 *   such buffer at once instead of doubling its buffer (and copying what
 *   it holds at each step); the complete record is then handed to its
 *   request with the buffer, not copied, and the connection carries on
 *   in a fresh buffer with the few bytes that followed the record.
 * - Buffers are anonymous mappings: a peer that announces 1 MiB and
 *   sends 64 KiB makes 64 KiB resident, not 1 MiB (pages are committed
 *   as they are written), so memory still follows what peers send.
 * - A few free buffers are kept for reuse (malloc would trim and refault
 *   them); the rest are unmapped. One mutex: taken once per large
 *   record or reply, whose copy costs far more.
 */
#ifndef NFSX_RPC_BIGBUF_H
#define NFSX_RPC_BIGBUF_H

#include <pthread.h>
#include <stddef.h>

struct rpc_bigpool {
	pthread_mutex_t lock;
	void *free;          /* singly linked through each buffer's first word */
	unsigned int nfree;
	unsigned int keep;   /* free buffers kept at most */
	size_t cap;
};

void rpc_bigpool_init(struct rpc_bigpool *p, size_t cap, unsigned int keep);
void rpc_bigpool_fini(struct rpc_bigpool *p);

/* A buffer of p->cap bytes, or NULL. */
void *rpc_big_get(struct rpc_bigpool *p);
void rpc_big_put(struct rpc_bigpool *p, void *b);

#endif
