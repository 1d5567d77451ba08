/* SPDX-License-Identifier: MIT */
/*
 * One RPC request from record to reply.
 *
 * DESIGN
 * A request owns its call record, a small arena for decoded arguments
 * and its reply buffer; all three are inline for the common small call
 * and the whole request is recycled through a per-loop free list, so
 * the hot path does not allocate. A record or reply too big for the
 * inline space gets a heap buffer that is freed with the request.
 */
#ifndef NFSX_RPC_REQ_H
#define NFSX_RPC_REQ_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "rpc/bigbuf.h"
#include "rpc/drc.h"
#include "rpc/msg.h"
#include "rpc/program.h"
#include "xdr/xdr.h"

#define RPC_REQ_INLINE_REC 1024u
#define RPC_REQ_INLINE_REPLY 1024u
#define RPC_REQ_ARENA 2048u
/* Replies above this take a pool buffer (bigbuf.h). */
#define RPC_REQ_BIG_REPLY (128u << 10)

struct rpc_conn;
struct rpc_proc;

typedef void rpc_ext_put_fn(void *hold, size_t len);

struct rpc_req {
	struct rpc_req *next;          /* queue link (pending or tx) */
	struct rpc_conn *conn;
	const struct sockaddr_storage *peer;
	size_t held;                   /* bytes counted against the budgets (budget.c) */

	/* Statistics (util/stats.h): the call's row (-1: none), the
	 * status its reply carries, and the times it was received, its
	 * handler started and ended (0: not measured; a handler that reads
	 * the clock at its end may set t_done itself). */
	int stat_row;
	uint32_t stat_status;
	uint32_t stat_in;              /* call bytes, record marker included */
	uint64_t t_rx, t_start, t_done;

	/* Set by rpc_dispatch_begin() for a call that runs on a worker. */
	const struct rpc_proc *proc;
	struct rpc_drc_key drc_key;
	bool drc_keyed;                /* drc_key is in the DRC, in progress */
	bool on_loop;                  /* handler runs on an event loop: must not block */
	struct rpc_workers *workers;   /* the pool running it, once submitted */
	_Atomic int park;              /* rpc_workers_park() state (workers.c) */

	struct rpc_bulk bulk;          /* a call taking bulk data (program.h) */

	uint8_t *rec;                  /* the call record */
	size_t rec_len;
	struct rpc_bigpool *pool;      /* large buffers, or NULL: malloc */
	uint8_t *rec_big;              /* pool buffer holding rec, or NULL */
	bool reply_big;                /* reply is a pool buffer */
	struct rpc_call call;
	/* The verifier of an accepted reply: AUTH_NONE unless the call's
	 * credential check chose one (rpc_req_set_verf()). */
	struct rpc_verf verf;
	struct xdr_dec args;           /* positioned at the arguments */
	struct xdr_arena arena;

	uint8_t *reply;                /* 4-byte marker, then the reply */
	size_t reply_cap;
	struct xdr_enc enc;            /* writes the reply after the marker */
	size_t tx_len;                 /* marker + reply bytes to send */
	size_t tx_done;                /* bytes of it already sent */

	/* Reply bytes sent from outside the reply buffer (a READ's file
	 * mapping, see rpc_req_set_ext()): ext_len bytes at ext, inserted
	 * after the first ext_at bytes of the encoded reply. */
	const uint8_t *ext;
	size_t ext_len;
	size_t ext_at;
	rpc_ext_put_fn *ext_put;       /* called with ext_hold when the request is released */
	void *ext_hold;
	size_t ext_hold_len;

	uint8_t rec_inline[RPC_REQ_INLINE_REC];
	uint8_t reply_inline[RPC_REQ_INLINE_REPLY];
	uint64_t arena_mem[RPC_REQ_ARENA / 8];
};

/* Prepare @req for the record @rec (already in req->rec). */
void rpc_req_reset(struct rpc_req *req);

/*
 * Make sure the reply buffer can hold @len bytes of reply (marker not
 * included), keeping what was encoded so far.
 * Return values: 0, or -1 when memory is short.
 */
int rpc_req_reply_reserve(struct rpc_req *req, size_t len);

/*
 * rpc_req_set_verf - make @flavor with the @len bytes at @body the
 * verifier of every accepted reply to @req's call, copied into the
 * request's arena. For a credential flavour's check (struct rpc_flavor),
 * before the header of the reply is written.
 * Return values: 0, or -1 when @len exceeds RPC_AUTH_MAX or the arena
 * has no room (the verifier is then left as it was).
 */
int rpc_req_set_verf(struct rpc_req *req, uint32_t flavor, const uint8_t *body,
		     uint32_t len);

/* Back to the AUTH_NONE verifier (stores of constants: once per call). */
static inline void rpc_req_verf_none(struct rpc_req *req)
{
	req->verf.flavor = RPC_AUTH_NONE;
	req->verf.len = 0;
	req->verf.body = NULL;
}

/* Return values: bytes of @req's accepted reply header, the offset of its
 * results in req->enc. */
static inline uint32_t rpc_req_hdr_len(const struct rpc_req *req)
{
	return rpc_accepted_hdr_len(&req->verf);
}

/*
 * Give back the call record's heap or pool buffer once the call has been
 * run: the reply no longer needs it (a DRC entry keeps a copy of the
 * reply, never views into the record).
 */
void rpc_req_release_record(struct rpc_req *req);

/* Release heap buffers so the request can go back to a free list. */
void rpc_req_release(struct rpc_req *req);

/* Local address of the connection the call came on. Return values: 0 or -1. */
int rpc_req_local_addr(const struct rpc_req *req, struct sockaddr_storage *ss);

/*
 * rpc_req_conn_id - the connection @req came on, as an id no other
 * connection of this process ever has (an NFSv4.1 session keeps its back
 * channel's connection by it, and finds it gone when no connection has
 * it any more).
 * Return values: the id, or 0 for a request with no connection.
 */
uint64_t rpc_req_conn_id(const struct rpc_req *req);

/* Return values: the longest call record the server takes (its
 * max_record), which bounds what an NFSv4.1 session may negotiate. */
uint32_t rpc_req_max_record(const struct rpc_req *req);

/* Write the record marker before the reply; the reply is complete. */
void rpc_req_finish(struct rpc_req *req);

/*
 * Send @len bytes at @data as part of the reply, at the current end of
 * the encoded reply, without copying them into the reply buffer; the
 * caller encodes what follows them (the XDR padding) as usual. @put, if
 * not NULL, is called with @hold and @hold_len when the request is
 * released: what keeps @data valid until then (rpc_ext_munmap for a
 * mapping of its own). Not for replies the DRC keeps, which must be one
 * buffer.
 * Return values: 0, or -1 (drc-kept request, or an ext segment already
 * set): the caller copies the data instead, and keeps @hold.
 */
int rpc_req_set_ext(struct rpc_req *req, const uint8_t *data, size_t len,
		    rpc_ext_put_fn *put, void *hold, size_t hold_len);
/* An rpc_ext_put_fn: munmap(@map, @len). */
void rpc_ext_munmap(void *map, size_t len);

/*
 * The ext segment's memory failed while it was being sent (sendmsg:
 * EFAULT, a mapped file truncated under it): send zeros for the rest of
 * it, so the record keeps its length and the stream stays in step; to
 * the client it is a READ that raced a truncate.
 * Return values: true, or false when the unsent bytes are not in the ext
 * segment (or it is larger than the zero area).
 */
#define RPC_REQ_ZERO_AREA (4u << 20)
bool rpc_req_ext_lost(struct rpc_req *req);

/*
 * The unsent bytes of the finished reply as at most 3 iovecs (reply
 * head, ext segment, reply tail).
 * Return values: the number of iovecs filled.
 */
int rpc_req_tx_iov(const struct rpc_req *req, struct iovec *iov);

#endif
