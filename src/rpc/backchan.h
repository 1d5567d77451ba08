/* SPDX-License-Identifier: MIT */
/*
 * The back channel: calls the server sends to a client over a
 * connection the client opened (NFSv4.1 sessions, RFC 8881 2.10.3.1),
 * whose replies come back on the same connection among the client's
 * calls, as knfsd's and Ganesha's back channels work.
 *
 * DESIGN
 * - A handle (struct rpc_backchan) names a connection from outside its
 *   event loop: taken from a call that came on it (rpc_req_backchan),
 *   kept by whoever records the back channel (a session), reference
 *   counted. It outlives the connection: once the connection closes,
 *   calls on it end with %RPC_CALL_CLOSED. It must not outlive the
 *   server (rpc_server_destroy).
 * - rpc_conn_call() may be called from any thread. It encodes the call
 *   on the caller's thread and posts it to the connection's loop (its
 *   inbox and eventfd, as workers post their replies); the loop queues
 *   it among the replies and waits for the reply. Everything about a
 *   connection's calls then happens on its loop: no lock but the inbox's.
 * - The reader of a server connection looks at each record's message
 *   type: a REPLY goes to the connection's table of calls (callmsg.h),
 *   matched by xid; one that matches nothing is dropped, never
 *   dispatched. At most RPC_BC_MAX_CALLS calls wait per connection;
 *   each has a timeout (the loop looks every RPC_BC_SCAN_MS while any
 *   wait) and a largest reply. A connection that closes ends its calls.
 * - The done function runs on the connection's loop, exactly once, and
 *   must not block (it may call rpc_conn_call or rpc_backchan_put).
 */
#ifndef NFSX_RPC_BACKCHAN_H
#define NFSX_RPC_BACKCHAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpc/callmsg.h"

#define RPC_BC_MAX_CALLS 16u   /* calls waiting per connection */
#define RPC_BC_SCAN_MS 100u    /* timeouts looked for this often */

struct rpc_req;
struct rpc_backchan;

/*
 * rpc_req_backchan - a handle of the connection @req came on, from its
 * handler (on a worker or on the loop).
 * Return values: a new reference (rpc_backchan_put), or NULL when the
 * call came on no connection, the connection has closed, or memory is
 * short.
 */
struct rpc_backchan *rpc_req_backchan(struct rpc_req *req);

/* Another reference to @bc. */
void rpc_backchan_get(struct rpc_backchan *bc);
/* Drop a reference (any thread). */
void rpc_backchan_put(struct rpc_backchan *bc);

struct rpc_bc_call {
	uint32_t prog, vers, proc;
	const struct rpc_out_cred *cred;   /* NULL: AUTH_NONE */
	/* Encode the arguments (NULL: none) into at most max_args bytes. */
	bool (*encode)(struct xdr_enc *e, const void *args);
	const void *args;
	size_t max_args;
	size_t max_reply;                  /* reply record bytes at most */
	unsigned int timeout_ms;
	rpc_call_done_fn *done;
	void *arg;
};

/*
 * rpc_conn_call - send the call @call to the client at the other end of
 * @bc. @call and its arguments need not live after the return.
 * Return values: 0, and call->done will run once on the connection's
 * loop (%RPC_CALL_CLOSED when the connection is gone, %RPC_CALL_BUSY
 * past RPC_BC_MAX_CALLS); -1 with errno (ENOMEM, EINVAL when the
 * arguments do not encode within max_args, ESHUTDOWN when the loop has
 * stopped), and call->done never runs.
 */
int rpc_conn_call(struct rpc_backchan *bc, const struct rpc_bc_call *call);

#endif
