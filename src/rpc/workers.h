/* SPDX-License-Identifier: MIT */
/*
 * Worker threads for procedures that may block (RPC_PROC_BLOCKING: file
 * system calls, fsync, large directories), so that they never stall an
 * event loop.
 *
 * DESIGN
 * A loop hands a request whose header, credential and DRC check are done
 * to the pool; a worker runs the handler and posts the request back to
 * the loop that owns its connection, which sends the reply. Waiting
 * calls are queued per connection (keyed by req->conn) and the
 * connections with calls waiting are served round-robin, one call per
 * turn, as the event loop serves them: a connection with 256 calls
 * waiting delays another connection's call by about one call per
 * worker, not by its 256 (one FIFO did). The pool's lock is never held
 * with another lock.
 */
#ifndef NFSX_RPC_WORKERS_H
#define NFSX_RPC_WORKERS_H

#include <stdbool.h>

struct rpc_drc;
struct rpc_req;
struct rpc_workers;

/* Called on the worker once the handler has run. */
typedef void rpc_workers_done_fn(struct rpc_req *req);

/* Return values: the pool, or NULL (errno set). */
struct rpc_workers *rpc_workers_start(unsigned int n, struct rpc_drc *drc,
				      rpc_workers_done_fn *done);

void rpc_workers_submit(struct rpc_workers *w, struct rpc_req *req);

/*
 * Parking: a handler running on a worker that needs something which may
 * take long (a host name lookup) and must not hold the worker calls
 * rpc_workers_park(req) before it arranges to be told, then returns
 * whatever it likes: its answer is discarded, the worker goes on with
 * other calls, and the call stays counted as on the workers. Whoever
 * tells it calls rpc_workers_resume(req) exactly once, from any thread,
 * even before the handler has returned: the call is then queued again
 * and its handler runs from the start. Every parked call must be resumed
 * before rpc_workers_stop(). rpc_workers_unpark() undoes a park when
 * nothing will call resume after all. A handler parks at most once per
 * run: once rpc_workers_parked() is true it must stop, before any side
 * effect, and arrange nothing more (one resume runs it again). A resume
 * of a call that is not parked does nothing.
 */
void rpc_workers_park(struct rpc_req *req);
void rpc_workers_unpark(struct rpc_req *req);
void rpc_workers_resume(struct rpc_req *req);
/* Has this run of the call parked it (resumed or not since)? */
bool rpc_workers_parked(struct rpc_req *req);

/*
 * Stop: workers finish the call they are running and exit; calls still
 * queued are released without running. Then frees the pool.
 */
void rpc_workers_stop(struct rpc_workers *w);

#endif
