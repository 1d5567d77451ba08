/* SPDX-License-Identifier: MIT */
/* Connection and loop internals shared by conn.c and loop.c only. */
#ifndef NFSX_RPC_SVC_INTERNAL_H
#define NFSX_RPC_SVC_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "rpc/record.h"
#include "rpc/bigbuf.h"
#include "rpc/callmsg.h"
#include "rpc/req.h"
#include "rpc/svc.h"
#include "util/clock.h"

#define RPC_RBUF_SIZE (64u << 10)
/* Smallest pool buffer: a 1 MiB READ reply with its headers. */
#define RPC_BIG_MIN ((1u << 20) + (64u << 10))
#define RPC_MAX_LISTENERS 16

struct rpc_loop;

struct rpc_conn {
	int fd;
	uint64_t id;                           /* never reused (rpc_req_conn_id) */
	struct rpc_loop *loop;
	struct sockaddr_storage peer;

	uint8_t *rbuf;
	size_t rcap, rlen;
	struct rpc_record rec;

	struct rpc_req *pend_head, *pend_tail; /* records not yet run */
	struct rpc_req *tx_head, *tx_tail;     /* replies not yet sent */
	size_t tx_bytes;
	unsigned int inflight;                 /* from record to reply sent */
	unsigned int busy;                     /* of those, on a worker now */

	uint32_t events;                       /* epoll interest now */
	bool in_ready, in_dirty, in_starved, closed;
	bool backlog;                          /* parse stopped at its batch */
	struct rpc_req *bulk;                  /* a call taking its data from the socket (bulk.c) */
	bool bulk_tried;                       /* for the record in progress */
	bool bulk_peek;                        /* next read small: maybe another bulk call */
	int rcvlowat;                          /* SO_RCVLOWAT set for bulk data, or 0 */
	size_t held;                           /* bytes counted against the budgets */
	size_t rx_held;                        /* of those, the receive buffer's */
	bool wait_total;                       /* stopped by the total budget */
	bool wait_big;                         /* ... for a record larger than a small one */
	uint64_t last_ns;                      /* last traffic, for the idle timeout */
	uint64_t ncalls, bytes_in, bytes_out;  /* calls answered (statistics) */
	uint64_t rx_ns;                        /* last read */
	uint64_t born_ns;                      /* accepted */
	uint64_t tx_ns;                        /* replies queued or sent last */
	struct rpc_conn *ready_next, *dirty_next, *starved_next, *wait_next;
	struct rpc_conn *all_prev, *all_next;
	/* The back channel (backchan.c): the handle, once a handler asked
	 * for one, and the server's calls waiting for their replies. */
	_Atomic(struct rpc_backchan *) bc;
	struct rpc_backchan *bc_closed;        /* put when the conn is freed */
	struct rpc_pending calls;
};

/* A connection accepted by one loop for another (see accept_conns). */
struct rpc_handoff {
	int fd;
	struct sockaddr_storage peer;
};

#define RPC_INBOX 64
#define RPC_STAGE_SIZE (64u << 10)
#define RPC_STAGE_SMALL 512u      /* replies up to this are gathered */

struct rpc_loop {
	struct rpc_server *srv;
	pthread_t thread;
	int epfd;
	int wakefd;                     /* eventfd: stop, or inbox not empty */

	/* Connections handed over by other loops and requests finished by
	 * workers; inbox_lock guards them and is never held with another
	 * lock. */
	pthread_mutex_t inbox_lock;
	struct rpc_handoff inbox[RPC_INBOX];
	unsigned int ninbox;
	bool inbox_closed;
	struct rpc_req *done_head, *done_tail; /* back from the workers */
	struct rpc_bcall *out_head, *out_tail; /* calls to send (backchan.c) */
	struct rpc__snap *snap;          /* a reader's request (snapshot.c) */

	uint8_t *stage;                  /* small replies gathered for one send */

	struct rpc_conn *ready_head, *ready_tail; /* conns with pending calls */
	struct rpc_conn *dirty;          /* conns with unflushed replies */
	struct rpc_conn *starved;        /* waiting for a free request */
	struct rpc_conn *wait_head, *wait_tail; /* waiting for the total budget */
	uint8_t *scratch;                /* a small call read past the budget */
	uint64_t next_retry;             /* ns: next rpc__budget_retry */
	ssize_t held_pending;            /* counted here, not yet in srv->held */
	uint64_t next_idle_scan;         /* ns: next look for idle connections */
	struct rpc_conn all;             /* list head of every conn */
	struct rpc_conn *graveyard;      /* closed, freed after the pass */

	struct rpc_req *free_reqs;
	unsigned int nreqs;              /* allocated, free or in use */
	uint8_t *free_rbufs;             /* pool of RPC_RBUF_SIZE buffers */
	unsigned int nfree_rbufs;
	int reserve_fd;                  /* dropped to accept past EMFILE */
	unsigned int ncalls;             /* back channel calls waiting, all conns */
	uint64_t next_call_scan;         /* ns: next look for their timeouts */
	int bulk_pipe[2];                /* socket -> pipe -> file, empty between uses */
	size_t bulk_pipe_cap;
	bool stopping;
};

struct rpc_server {
	struct rpc_server_config cfg;
	const struct rpc_registry *reg;
	struct rpc_drc *drc;
	int listeners[RPC_MAX_LISTENERS];
	unsigned int nlisteners;
	unsigned int nloops;             /* initialised */
	unsigned int nstarted;           /* threads running */
	struct rpc_loop *loops;
	atomic_uint nconns;
	atomic_uint next_loop;           /* round-robin of new connections */
	struct rpc_workers *workers;
	struct rpc_bigpool bigpool;      /* large records and replies */
	atomic_size_t held;              /* bytes held by all connections (budget.c) */
	size_t rx_limit;                 /* receive buffers are taken below this */
	struct rpc_clients *clients;     /* connections per address, or NULL */
	atomic_bool stop;
	int grace_ms;
	pthread_mutex_t snap_lock;       /* one snapshot at a time (snapshot.c) */
};

/* conn.c */
struct rpc_conn *rpc__conn_new(struct rpc_loop *loop, int fd,
			       const struct sockaddr_storage *peer);
void rpc__conn_readable(struct rpc_conn *c);
void rpc__conn_parse(struct rpc_conn *c);
bool rpc__conn_buffered(const struct rpc_conn *c);
void rpc__conn_flush(struct rpc_conn *c);
void rpc__conn_close(struct rpc_conn *c, const char *why);
void rpc__conn_free(struct rpc_conn *c);
void rpc__conn_set_events(struct rpc_conn *c, uint32_t events);
void rpc__conn_update_interest(struct rpc_conn *c);
void rpc__conn_close_idle(struct rpc_loop *loop, uint64_t now);

/* budget.c: bytes received and not yet answered (see budget.c). */
#define RPC_SMALL_CALL RPC_REQ_INLINE_REC /* read past the total, one at a time */
void rpc__budget_init(struct rpc_server *srv);
void rpc__budget_flush(struct rpc_loop *loop);
bool rpc__budget_take(struct rpc_conn *c, size_t n, size_t limit);
void rpc__budget_add(struct rpc_conn *c, struct rpc_req *req, size_t n);
void rpc__budget_set(struct rpc_conn *c, struct rpc_req *req, size_t n);
void rpc__budget_drop(struct rpc_req *req);
void rpc__budget_rx(struct rpc_conn *c);
bool rpc__budget_over(const struct rpc_server *srv);
void rpc__budget_wait(struct rpc_conn *c, bool big);
void rpc__budget_retry(struct rpc_loop *loop);
int rpc__budget_timeout(const struct rpc_loop *loop);

/* clients.c: connections per client address (--max-conns-per-client). */
struct rpc_clients *rpc__clients_new(unsigned int limit);
void rpc__clients_free(struct rpc_clients *cl);
bool rpc__clients_add(struct rpc_clients *cl, const struct sockaddr_storage *peer);
void rpc__clients_del(struct rpc_clients *cl, const struct sockaddr_storage *peer);

/* bulk.c: calls whose data is spliced from the socket into a file. */
#define RPC_BULK_MIN_REST (64u << 10)  /* bytes still to come, at least */
#define RPC_BULK_PEEK 4096u            /* first read after a bulk call */
bool rpc__bulk_try(struct rpc_conn *c);
bool rpc__bulk_pump(struct rpc_conn *c);
void rpc__bulk_abort(struct rpc_conn *c);
void rpc__bulk_fini(struct rpc_loop *loop);
void rpc__queue_reply(struct rpc_conn *c, struct rpc_req *req);

/* backchan.c: the server's calls on client connections. */
struct rpc_bcall;
void rpc__bc_take(struct rpc_loop *loop);
void rpc__bc_send(struct rpc_loop *loop, struct rpc_bcall *list);
void rpc__bc_reply(struct rpc_conn *c, const uint8_t *rec, size_t len);
void rpc__bc_close(struct rpc_conn *c);
void rpc__bc_free(struct rpc_conn *c);
void rpc__bc_expire(struct rpc_loop *loop, uint64_t now);

/* snapshot.c: answer a reader's request for the connections' figures. */
void rpc__snap_serve(struct rpc_loop *loop);

/* loop.c */
struct rpc_req *rpc__req_get(struct rpc_loop *loop);
void rpc__req_put(struct rpc_loop *loop, struct rpc_req *req);
void rpc__mark_ready(struct rpc_conn *c);
void rpc__mark_dirty(struct rpc_conn *c);
void rpc__mark_starved(struct rpc_conn *c);
/* The clock of every time the rpc layer keeps (util/clock.h). */
static inline uint64_t rpc__now_ns(void)
{
	return clock_now_ns();
}
int rpc__loop_init(struct rpc_loop *loop, struct rpc_server *srv);
int rpc__loop_start(struct rpc_loop *loop);
void rpc__loop_fini(struct rpc_loop *loop);
void rpc__work_done(struct rpc_req *req);
void rpc__stats_done(struct rpc_conn *c, struct rpc_req *req, uint64_t sent_ns);

#endif
