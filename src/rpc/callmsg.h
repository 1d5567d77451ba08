/* SPDX-License-Identifier: MIT */
/*
 * The server as a caller: RPC call headers it encodes, the replies it
 * takes back, and the table of its calls waiting for one. Shared by the
 * two ways nfsxd calls its clients: over a connection of its own
 * (callout.h, NFSv4.0 callbacks) and over a connection a client opened
 * (backchan.h, the NFSv4.1 back channel).
 *
 * DESIGN
 * - Credentials are AUTH_NONE or AUTH_SYS with no groups: what knfsd
 *   sends on callbacks (NFSv4.0: the client's flavour with the machine
 *   credential, uid and gid 0; NFSv4.1: CREATE_SESSION's cb_sec_parms).
 * - A reply is decoded by hand in wire order, bounded like a call
 *   (verifier body at most 400 bytes); only an accepted SUCCESS gives
 *   results, everything else is an error status for the caller.
 * - struct rpc_pending is owned by one thread (the callout thread, or
 *   a connection's event loop): no lock. It holds at most its bound of
 *   calls, each with a deadline and the size its reply may have; a
 *   reply that matches no call is dropped, one larger than its call
 *   allows fails the call. Every call's done function runs exactly once.
 */
#ifndef NFSX_RPC_CALLMSG_H
#define NFSX_RPC_CALLMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpc/msg.h"
#include "xdr/xdr.h"

/* How a call of the server's ended. */
enum rpc_call_status {
	RPC_CALL_OK = 0,        /* accepted, SUCCESS: results given */
	RPC_CALL_REFUSED,       /* no connection (refused, unreachable, connect timeout) */
	RPC_CALL_TIMEDOUT,      /* sent, no reply in time */
	RPC_CALL_CLOSED,        /* the connection closed before the reply */
	RPC_CALL_TOOBIG,        /* the reply was larger than the call allows */
	RPC_CALL_BADREPLY,      /* a reply that does not decode */
	RPC_CALL_REJECTED,      /* denied, or accepted with another accept_stat */
	RPC_CALL_BUSY,          /* too many calls outstanding: not sent */
	RPC_CALL_SHUTDOWN,      /* the server stops: not sent or not answered */
};

/* Return values: a short name of @st, for logs. */
const char *rpc_call_status_str(enum rpc_call_status st);

/*
 * The end of a call: on %RPC_CALL_OK, @res holds the @len bytes of
 * results that follow the accept_stat (valid during the call only);
 * otherwise @res is NULL and @len 0.
 */
typedef void rpc_call_done_fn(void *arg, enum rpc_call_status st, const uint8_t *res,
			      size_t len);

/* The credential of a call the server makes. */
struct rpc_out_cred {
	uint32_t flavor;           /* RPC_AUTH_NONE or RPC_AUTH_SYS */
	uint32_t uid, gid;         /* AUTH_SYS */
	const char *machine;       /* AUTH_SYS; NULL: empty; cut at 255 bytes */
};

/*
 * rpc_encode_call - a CALL header for @xid, @prog, @vers, @proc with
 * credential @cred (NULL: AUTH_NONE) and an AUTH_NONE verifier; the
 * arguments follow in @e.
 * Return values: false when @e has no room.
 */
bool rpc_encode_call(struct xdr_enc *e, uint32_t xid, uint32_t prog, uint32_t vers,
		     uint32_t proc, const struct rpc_out_cred *cred);

/*
 * rpc_record_is_reply - does the record @rec of @len bytes say REPLY
 * (its second word)? A server connection sends those to its table of
 * calls, never to dispatch.
 */
static inline bool rpc_record_is_reply(const uint8_t *rec, size_t len)
{
	return len >= 8 && xdr__get32(rec + 4) == RPC_MSG_REPLY;
}

/*
 * rpc_decode_reply - the reply header of record @rec (@len bytes).
 * Return values: %RPC_CALL_OK with *@res and *@res_len the results;
 * %RPC_CALL_REJECTED for a well-formed reply that is not an accepted
 * SUCCESS; %RPC_CALL_BADREPLY for anything else (truncated, not a
 * REPLY, an unknown reply_stat, a verifier past 400 bytes). *@xid is set
 * whenever @len >= 4.
 */
enum rpc_call_status rpc_decode_reply(const uint8_t *rec, size_t len, uint32_t *xid,
				      const uint8_t **res, size_t *res_len);

/* A call waiting for its reply. */
struct rpc_pcall {
	struct rpc_pcall *next;
	uint32_t xid;
	uint64_t deadline_ns;      /* util/clock.h's clock_now_ns() */
	size_t max_reply;          /* bytes of the whole reply record */
	rpc_call_done_fn *done;
	void *arg;
};

struct rpc_pending {
	struct rpc_pcall *head;
	unsigned int n, max;
};

static inline void rpc_pending_init(struct rpc_pending *p, unsigned int max)
{
	p->head = NULL;
	p->n = 0;
	p->max = max;
}

/*
 * rpc_pending_add - wait for the reply to @pc (filled by the caller,
 * kept by the table until its done function has run; then freed with
 * free()).
 * Return values: true; false when the table is full (@pc untouched).
 */
bool rpc_pending_add(struct rpc_pending *p, struct rpc_pcall *pc);

/*
 * rpc_pending_reply - a REPLY record arrived: the call with its xid ends
 * (OK, REJECTED, BADREPLY or TOOBIG).
 * Return values: true when it answered a call; false when it matches
 * none (dropped: a late reply, or a peer's invention).
 */
bool rpc_pending_reply(struct rpc_pending *p, const uint8_t *rec, size_t len);

/* End the calls whose deadline is before @now_ns with %RPC_CALL_TIMEDOUT. */
void rpc_pending_expire(struct rpc_pending *p, uint64_t now_ns);

/* End every call with @st (the connection closed, the server stops). */
void rpc_pending_fail_all(struct rpc_pending *p, enum rpc_call_status st);

/* Return values: the earliest deadline, or UINT64_MAX when empty. */
uint64_t rpc_pending_next(const struct rpc_pending *p);

#endif
