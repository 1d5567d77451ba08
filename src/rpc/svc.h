/* SPDX-License-Identifier: MIT */
/*
 * The RPC server: listeners, event loops, limits.
 *
 * DESIGN (docs/architecture.md has the longer version)
 * - One event loop per core, each a thread with its own epoll set. Every
 *   loop waits on every listener (EPOLLEXCLUSIVE, so one loop wakes per
 *   connection) and owns the connections it accepts for their lifetime:
 *   no connection state is shared between threads.
 * - A connection's complete records become requests in its own pending
 *   queue. The loop's scheduler serves connections round-robin, one
 *   request per turn, so a client with 1024 calls queued delays another
 *   client's single call by at most one call, not 1024.
 * - Replies go to the connection's transmit queue and leave in as few
 *   sendmsg(2) calls as possible, each reply's record marker in the same
 *   buffer as the reply. A connection that reaches its limit of requests
 *   in flight or unsent reply bytes is not read until it drains, so
 *   memory stays bounded whatever a client does.
 * - Bytes received and not yet answered are counted per connection and
 *   in total (budget.c); past a budget nfsxd stops reading (TCP pushes
 *   back), it never drops a call it has read.
 */
#ifndef NFSX_RPC_SVC_H
#define NFSX_RPC_SVC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "rpc/program.h"

struct rpc_server;
struct rpc_drc;

struct rpc_server_config {
	unsigned int threads;       /* event loops; 0: one per online CPU */
	uint32_t max_record;        /* bytes of one call record */
	unsigned int max_inflight;  /* requests per connection */
	size_t max_unsent;          /* reply bytes per connection */
	unsigned int max_requests;  /* requests per loop, all connections */
	unsigned int max_conns;     /* connections, all loops */
	unsigned int workers;       /* threads for blocking procedures */
	unsigned int slice_us;      /* loop threads' scheduler slice; 0: kernel's */
	unsigned int busy_poll_us;  /* poll this long before sleeping; 0: never */
	size_t max_conn_bytes;      /* bytes held per connection (budget.c) */
	size_t max_total_bytes;     /* bytes held by all connections */
	unsigned int idle_timeout_s; /* close idle connections; 0: never */
	unsigned int max_conns_per_client; /* per peer address; 0: no limit */
};

#define RPC_DEFAULT_MAX_RECORD (1048576u + 4096u)
#define RPC_DEFAULT_MAX_INFLIGHT 256u
#define RPC_DEFAULT_MAX_UNSENT (4u << 20)
#define RPC_DEFAULT_MAX_REQUESTS 16384u
#define RPC_DEFAULT_MAX_CONNS 4096u
#define RPC_DEFAULT_WORKERS 8u
#define RPC_DEFAULT_SLICE_US 100u
#define RPC_DEFAULT_MAX_CONN_BYTES (8u << 20)
#define RPC_DEFAULT_MAX_TOTAL_BYTES (256u << 20)
#define RPC_DEFAULT_IDLE_TIMEOUT_S 360u  /* as knfsd */

void rpc_server_config_defaults(struct rpc_server_config *cfg);

/* Return values: the server, or NULL (errno set). */
struct rpc_server *rpc_server_create(const struct rpc_server_config *cfg,
				     const struct rpc_registry *reg,
				     struct rpc_drc *drc);

/*
 * rpc_listen_tcp - open a listening TCP socket on @addr:@port.
 * Return values: the fd, or -1 with errno set (EADDRINUSE when taken).
 */
int rpc_listen_tcp(const char *addr, uint16_t port);

/* Serve @fd (a listening socket; the server closes it at the end). */
int rpc_server_add_listener(struct rpc_server *srv, int fd);

/* Start the loops. Return values: 0, or -1 with errno set. */
int rpc_server_start(struct rpc_server *srv);

/*
 * Stop accepting and reading, finish the requests already received,
 * send their replies (for at most @grace_ms), close every connection
 * and join the loops. Safe to call once, from a thread that is not a
 * loop.
 */
void rpc_server_stop(struct rpc_server *srv, int grace_ms);

void rpc_server_destroy(struct rpc_server *srv);

/* One connection's figures (rpc_server_conns). */
struct rpc_conn_info {
	uint64_t id;                 /* as rpc_req_conn_id */
	unsigned int loop;           /* the event loop that owns it */
	struct sockaddr_storage peer;
	uint64_t calls;              /* answered (or dropped) */
	uint64_t bytes_in, bytes_out; /* of those calls and their replies */
	unsigned int inflight;       /* received, reply not yet sent */
	size_t held;                 /* bytes held for it (budget.c) */
	size_t unsent;               /* reply bytes queued */
	uint64_t age_ns, idle_ns;    /* since accepted, since its last traffic */
};

/*
 * rpc_server_conns - the figures of at most @max of the server's
 * connections into @out, *@total set to how many there are. Each loop
 * copies its own connections' figures when asked (it owns them): this
 * waits for every loop, at most 2 s. One caller at a time runs; others
 * wait. Not from a loop thread.
 * Return values: the number filled, or -1 (errno ENOMEM, or ETIMEDOUT
 * when a loop did not answer).
 */
ssize_t rpc_server_conns(struct rpc_server *srv, struct rpc_conn_info *out, size_t max,
			 size_t *total);

struct rpc_server_totals {
	unsigned int connections, max_conns;
	size_t held, max_total_bytes;   /* bytes received and not yet answered */
	unsigned int loops, workers;
};
void rpc_server_totals(struct rpc_server *srv, struct rpc_server_totals *t);

#endif
