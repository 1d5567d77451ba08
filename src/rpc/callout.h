/* SPDX-License-Identifier: MIT */
/*
 * The server calls out: one RPC call over a TCP connection the server
 * opens to an address it was given (NFSv4.0 callbacks: CB_NULL, and
 * CB_COMPOUND for delegation recalls).
 *
 * DESIGN
 * - One thread of its own with its own epoll set runs every call, from
 *   connect to reply: a client whose callback address never answers
 *   holds no worker and no event loop, so it stalls nobody else (knfsd
 *   likewise runs callbacks asynchronously, in rpciod). Callers hand a
 *   call over and return at once; its done function runs later on the
 *   callout thread, exactly once, and must not block.
 * - One connection per call, closed when the call ends: callbacks are
 *   rare (a probe per SETCLIENTID_CONFIRM, a recall per conflicting
 *   open), and a connection that is never kept holds no state between
 *   them. knfsd keeps one connection per client; that can come later
 *   behind the same interface.
 * - Bounded: at most the engine's bound of calls at once (more end with
 *   %RPC_CALL_BUSY), a connect timeout and a reply timeout per call, a
 *   reply record at most max_reply bytes (record marking through
 *   record.c, checked at each fragment marker: a larger one ends the
 *   call with %RPC_CALL_TOOBIG and closes the connection). Records
 *   that are not the call's reply (another xid, a CALL) are dropped.
 * - The engine connects only to the address in the request: choosing
 *   and checking it (netid, universal address) is the caller's part.
 */
#ifndef NFSX_RPC_CALLOUT_H
#define NFSX_RPC_CALLOUT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "rpc/callmsg.h"

struct rpc_callout;

struct rpc_callout_req {
	const struct sockaddr *addr;  /* AF_INET or AF_INET6 */
	socklen_t addrlen;
	const uint8_t *msg;           /* the call message, no record marker (copied) */
	size_t len;
	uint32_t xid;                 /* the call's, as encoded in @msg */
	unsigned int connect_ms;      /* connection established within */
	unsigned int reply_ms;        /* then the reply within */
	size_t max_reply;             /* reply record bytes at most */
	rpc_call_done_fn *done;
	void *arg;
};

/*
 * rpc_callout_start - start the callout thread (all signals blocked in
 * it), running at most @max_calls calls at once.
 * Return values: the engine, or NULL (errno set).
 */
struct rpc_callout *rpc_callout_start(unsigned int max_calls);

/*
 * rpc_callout_call - make the call @r (copied: nothing of it need live
 * after the return).
 * Return values: 0, and r->done will run once on the callout thread;
 * -1 with errno (ENOMEM, EINVAL for an address of another family or
 * size, ESHUTDOWN when the engine stops), and r->done never runs.
 */
int rpc_callout_call(struct rpc_callout *co, const struct rpc_callout_req *r);

/*
 * rpc_callout_stop - end every call still running or queued with
 * %RPC_CALL_SHUTDOWN (their done functions run before it returns), stop
 * the thread and free the engine. No call may be made after or during it.
 */
void rpc_callout_stop(struct rpc_callout *co);

#endif
