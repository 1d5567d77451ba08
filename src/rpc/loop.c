/* SPDX-License-Identifier: MIT */
/*
 * The event loop thread: accepting, reading, the round-robin scheduler
 * and flushing. See svc.h for the model.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rpc/backchan.h"
#include "rpc/svc_internal.h"
#include "rpc/workers.h"
#include "util/log.h"
#include "util/stats.h"

#define EVENTS_MAX 128
#define RUN_BUDGET 256          /* cost units per pass before polling again */
#define RUN_MAX_NS 5000u        /* and at most this long */
#define CHECK_EVERY 16          /* calls between clock reads */
#define COST_UNIT 4096u         /* a call costs 1 + reply bytes / COST_UNIT */
#define FLUSH_AT (64u << 10)    /* unsent bytes that trigger a send */
#define ACCEPTS_PER_EVENT 32
#define TAG_WAKE 63u            /* epoll data below 64: not a pointer */
#define IDLE_SCAN_MS 1000       /* idle connections looked for this often */

struct rpc_req *rpc__req_get(struct rpc_loop *loop)
{
	struct rpc_req *r = loop->free_reqs;

	if (r) {
		loop->free_reqs = r->next;
		return r;
	}
	if (loop->nreqs >= loop->srv->cfg.max_requests)
		return NULL;
	r = malloc(sizeof(*r));
	if (!r)
		return NULL;
	loop->nreqs++;
	r->held = 0;
	r->conn = NULL;
	r->rec = r->rec_inline;
	r->rec_big = NULL;
	r->pool = &loop->srv->bigpool;
	r->reply = r->reply_inline;
	r->reply_cap = sizeof(r->reply_inline);
	r->reply_big = false;
	r->ext = NULL;
	r->ext_len = 0;
	r->ext_put = NULL;
	return r;
}

void rpc__req_put(struct rpc_loop *loop, struct rpc_req *req)
{
	rpc__budget_drop(req);
	rpc_req_release(req);
	req->conn = NULL;
	req->next = loop->free_reqs;
	loop->free_reqs = req;
}

void rpc__mark_ready(struct rpc_conn *c)
{
	struct rpc_loop *loop = c->loop;

	if (c->in_ready)
		return;
	c->in_ready = true;
	c->ready_next = NULL;
	if (loop->ready_tail)
		loop->ready_tail->ready_next = c;
	else
		loop->ready_head = c;
	loop->ready_tail = c;
}

void rpc__mark_dirty(struct rpc_conn *c)
{
	if (c->in_dirty)
		return;
	c->in_dirty = true;
	c->dirty_next = c->loop->dirty;
	c->loop->dirty = c;
}

void rpc__mark_starved(struct rpc_conn *c)
{
	if (c->in_starved)
		return;
	c->in_starved = true;
	c->starved_next = c->loop->starved;
	c->loop->starved = c;
}

static struct rpc_conn *pop_ready(struct rpc_loop *loop)
{
	struct rpc_conn *c = loop->ready_head;

	if (!c)
		return NULL;
	loop->ready_head = c->ready_next;
	if (!loop->ready_head)
		loop->ready_tail = NULL;
	c->in_ready = false;
	return c;
}

/*
 * The status @req's reply carries, for statistics: its accept_stat when
 * not SUCCESS (STATS_STATUS_RPC), else the procedure's status when its
 * results start with one (RPC_PROC_STATUS).
 */
static void reply_status(struct rpc_req *req)
{
	uint32_t hdr, accept;
	size_t len;

	if (req->stat_row < 0 || !req->proc)
		return;
	hdr = rpc_req_hdr_len(req);
	len = xdr_enc_len(&req->enc);
	if (len < hdr)
		return;
	accept = xdr__get32(req->enc.start + hdr - 4);
	if (accept != RPC_SUCCESS)
		req->stat_status = STATS_STATUS_RPC(accept);
	else if ((req->proc->flags & RPC_PROC_STATUS) && len >= hdr + 4)
		req->stat_status = xdr__get32(req->enc.start + hdr);
}

void rpc__stats_done(struct rpc_conn *c, struct rpc_req *req, uint64_t sent_ns)
{
	struct stats_rec r;

	c->ncalls++;
	c->bytes_in += req->stat_in;
	c->bytes_out += req->tx_len;
	if (!stats_on || req->stat_row < 0)
		return;
	stats_rec_init(&r);
	r.bytes_in = req->stat_in;
	r.bytes_out = req->tx_len;
	r.status = req->stat_status;
	if (req->t_start) {
		r.ns[STATS_QUEUE] = req->t_start > req->t_rx ? req->t_start - req->t_rx : 0;
		if (req->t_done >= req->t_start)
			r.ns[STATS_EXEC] = req->t_done - req->t_start;
	}
	if (sent_ns && req->t_done)
		r.ns[STATS_SEND] = sent_ns > req->t_done ? sent_ns - req->t_done : 0;
	stats_record(req->stat_row, &r);
}

void rpc__queue_reply(struct rpc_conn *c, struct rpc_req *req)
{
	reply_status(req);
	rpc_req_finish(req);
	/* The call has run: its record goes, its reply counts instead. */
	rpc_req_release_record(req);
	rpc__budget_set(c, req, sizeof(*req) +
			(req->reply != req->reply_inline ? req->reply_cap : 0));
	if (c->tx_tail) {
		c->tx_tail->next = req;
	} else {
		c->tx_head = req;
		/* The idle timeout's send clock, from the last traffic: no
		 * clock read per reply (a send that progresses sets it). */
		c->tx_ns = c->last_ns;
	}
	c->tx_tail = req;
	c->tx_bytes += req->tx_len;
	rpc__mark_dirty(c);
}

/* Run one call of @c; queue its reply. Return values: its cost. */
static int run_one(struct rpc_loop *loop, struct rpc_conn *c)
{
	struct rpc_req *req = c->pend_head;

	c->pend_head = req->next;
	if (!c->pend_head)
		c->pend_tail = NULL;
	req->next = NULL;
	switch (rpc_dispatch_begin(loop->srv->reg, loop->srv->drc, req)) {
	case RPC_DISPATCH_DROP:
		c->inflight--;
		rpc__stats_done(c, req, 0);
		rpc__req_put(loop, req);
		return 1;
	case RPC_DISPATCH_DEFER:
		c->busy++;
		rpc_workers_submit(loop->srv->workers, req);
		return 1;
	case RPC_DISPATCH_REPLY:
		break;
	}
	rpc__queue_reply(c, req);
	return 1 + (int)(req->tx_len / COST_UNIT);
}

/* On a worker: hand the finished request back to its connection's loop. */
void rpc__work_done(struct rpc_req *req)
{
	struct rpc_loop *loop = req->conn->loop;
	uint64_t one = 1;

	pthread_mutex_lock(&loop->inbox_lock);
	if (loop->done_tail)
		loop->done_tail->next = req;
	else
		loop->done_head = req;
	loop->done_tail = req;
	pthread_mutex_unlock(&loop->inbox_lock);
	if (write(loop->wakefd, &one, sizeof(one)) < 0)
		log_warn("cannot wake loop: %s", strerror(errno));
}

static void take_done(struct rpc_loop *loop)
{
	struct rpc_bcall *calls;
	struct rpc_req *req;

	pthread_mutex_lock(&loop->inbox_lock);
	req = loop->done_head;
	loop->done_head = loop->done_tail = NULL;
	/* Calls of ours posted by other threads, under the same lock. */
	calls = loop->out_head;
	loop->out_head = loop->out_tail = NULL;
	pthread_mutex_unlock(&loop->inbox_lock);
	rpc__bc_send(loop, calls);
	while (req) {
		struct rpc_req *next = req->next;
		struct rpc_conn *c = req->conn;

		req->next = NULL;
		c->busy--;
		if (c->closed) {
			reply_status(req);
			rpc__stats_done(c, req, 0);
			rpc__req_put(loop, req); /* nobody to answer */
		} else
			rpc__queue_reply(c, req);
		req = next;
	}
}

/*
 * Round-robin over the connections with calls waiting, one call per
 * turn. A connection whose queue empties is flushed at once, so a
 * client with one call outstanding gets its reply without waiting for
 * the busy ones. The pass ends after RUN_BUDGET cost units (a call is
 * one unit plus one per 4 KiB of reply) or RUN_MAX_NS, whichever comes
 * first, and the loop polls for new arrivals. That interval bounds how
 * long a new call on a quiet connection waits behind busy ones on the
 * same loop (bench/fairness -p isolate -t 1: victim p99 54 us with
 * 1 ms passes, 25 us with 5 us passes), while NULL throughput with 8
 * connections does not change down to 5 us and drops below it.
 */
static void run_ready(struct rpc_loop *loop)
{
	int budget = RUN_BUDGET, next_check = RUN_BUDGET - CHECK_EVERY;
	uint64_t until = rpc__now_ns() + RUN_MAX_NS;
	struct rpc_conn *c;

	while (budget > 0 && (c = pop_ready(loop))) {
		if (c->closed || !c->pend_head)
			continue;
		budget -= run_one(loop, c);
		if (budget <= next_check) {
			if (rpc__now_ns() >= until)
				budget = 0;
			next_check = budget - CHECK_EVERY;
		}
		/* Records wait in the receive buffer until their turn. */
		if (!c->pend_head && !c->closed && rpc__conn_buffered(c))
			rpc__conn_parse(c);
		if (c->closed)
			continue;
		if (c->pend_head)
			rpc__mark_ready(c);
		if (!c->pend_head || c->tx_bytes >= FLUSH_AT)
			rpc__conn_flush(c);
	}
}

static void flush_dirty(struct rpc_loop *loop)
{
	while (loop->dirty) {
		struct rpc_conn *c = loop->dirty;

		loop->dirty = c->dirty_next;
		c->in_dirty = false;
		if (!c->closed && c->tx_head)
			rpc__conn_flush(c);
	}
}

/* Connections that waited for a free request may go on reading. */
static void feed_starved(struct rpc_loop *loop)
{
	while (loop->starved && loop->free_reqs) {
		struct rpc_conn *c = loop->starved;

		loop->starved = c->starved_next;
		c->in_starved = false;
		if (c->closed)
			continue;
		rpc__conn_parse(c);
		if (!c->closed && !c->in_starved)
			rpc__conn_readable(c);
	}
}

/* Drop closed connections from the ready list and free them. */
static void bury(struct rpc_loop *loop)
{
	struct rpc_conn **pp, *c;

	if (!loop->graveyard)
		return;
	loop->ready_tail = NULL;
	for (pp = &loop->ready_head; (c = *pp);) {
		if (c->closed) {
			*pp = c->ready_next;
		} else {
			loop->ready_tail = c;
			pp = &c->ready_next;
		}
	}
	for (pp = &loop->starved; (c = *pp);) {
		if (c->closed)
			*pp = c->starved_next;
		else
			pp = &c->starved_next;
	}
	loop->wait_tail = NULL;
	for (pp = &loop->wait_head; (c = *pp);) {
		if (c->closed) {
			*pp = c->wait_next;
		} else {
			loop->wait_tail = c;
			pp = &c->wait_next;
		}
	}
	/* A connection with calls on workers is freed once they are back. */
	for (pp = &loop->graveyard; (c = *pp);) {
		if (c->busy) {
			pp = &c->all_next;
			continue;
		}
		*pp = c->all_next;
		rpc__conn_free(c);
	}
}

static void adopt(struct rpc_loop *loop, int fd,
		  const struct sockaddr_storage *peer)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (!rpc__conn_new(loop, fd, peer)) {
		atomic_fetch_sub(&loop->srv->nconns, 1);
		if (loop->srv->clients)
			rpc__clients_del(loop->srv->clients, peer);
		close(fd);
	}
}

/*
 * New connections are dealt to the loops in turn. Whichever loop epoll
 * wakes accepts, so without this a burst of connections would all land
 * on the first loop to wake and leave the other cores idle.
 */
static void deal(struct rpc_loop *loop, int fd,
		 const struct sockaddr_storage *peer)
{
	struct rpc_server *srv = loop->srv;
	struct rpc_loop *to;
	uint64_t one = 1;

	/*
	 * nloops, not nstarted: nloops is fixed before the first loop runs,
	 * and a loop that has not started yet takes its inbox when it does
	 * (the listener accepts connections before every loop is running).
	 */
	to = &srv->loops[atomic_fetch_add(&srv->next_loop, 1) % srv->nloops];
	if (to != loop) {
		pthread_mutex_lock(&to->inbox_lock);
		if (to->ninbox < RPC_INBOX && !to->inbox_closed) {
			to->inbox[to->ninbox].fd = fd;
			to->inbox[to->ninbox].peer = *peer;
			to->ninbox++;
			pthread_mutex_unlock(&to->inbox_lock);
			if (write(to->wakefd, &one, sizeof(one)) < 0)
				log_warn("cannot wake loop: %s", strerror(errno));
			return;
		}
		pthread_mutex_unlock(&to->inbox_lock);
	}
	adopt(loop, fd, peer);
}

static void drain_inbox(struct rpc_loop *loop)
{
	struct rpc_handoff in[RPC_INBOX];
	unsigned int i, n;

	pthread_mutex_lock(&loop->inbox_lock);
	n = loop->ninbox;
	memcpy(in, loop->inbox, n * sizeof(in[0]));
	loop->ninbox = 0;
	pthread_mutex_unlock(&loop->inbox_lock);
	for (i = 0; i < n; i++) {
		if (loop->stopping) {
			atomic_fetch_sub(&loop->srv->nconns, 1);
			if (loop->srv->clients)
				rpc__clients_del(loop->srv->clients, &in[i].peer);
			close(in[i].fd);
			continue;
		}
		adopt(loop, in[i].fd, &in[i].peer);
	}
}

static void accept_conns(struct rpc_loop *loop, int lfd)
{
	struct rpc_server *srv = loop->srv;
	int i;

	for (i = 0; i < ACCEPTS_PER_EVENT; i++) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		int fd;

		fd = accept4(lfd, (struct sockaddr *)&ss, &sl,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if ((errno == EMFILE || errno == ENFILE) &&
			    loop->reserve_fd >= 0) {
				/* Take the connection and refuse it, or the
				 * listener stays readable and the loop spins. */
				close(loop->reserve_fd);
				fd = accept(lfd, NULL, NULL);
				if (fd >= 0)
					close(fd);
				loop->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
				log_warn("out of file descriptors: connection refused");
			}
			return;
		}
		if (atomic_fetch_add(&srv->nconns, 1) >= srv->cfg.max_conns) {
			atomic_fetch_sub(&srv->nconns, 1);
			log_warn("connection limit (%u) reached: connection refused",
				 srv->cfg.max_conns);
			close(fd);
			continue;
		}
		if (srv->clients && !rpc__clients_add(srv->clients, &ss)) {
			atomic_fetch_sub(&srv->nconns, 1);
			log_debug("connection limit per client (%u) reached: connection refused",
				  srv->cfg.max_conns_per_client);
			close(fd);
			continue;
		}
		deal(loop, fd, &ss);
	}
}

static void begin_stop(struct rpc_loop *loop)
{
	struct rpc_conn *c;
	unsigned int i;

	loop->stopping = true;
	for (i = 0; i < loop->srv->nlisteners; i++)
		epoll_ctl(loop->epfd, EPOLL_CTL_DEL, loop->srv->listeners[i], NULL);
	/* A bulk call reads on: its data is what its reply waits for. */
	for (c = loop->all.all_next; c != &loop->all; c = c->all_next)
		rpc__conn_set_events(c, (c->events & EPOLLOUT) | (c->bulk ? EPOLLIN : 0));
}

/* At the stop deadline: say what was still unfinished (for diagnosis). */
static void log_stuck(struct rpc_loop *loop)
{
	unsigned int conns = 0, tx = 0, busy = 0, pend = 0;
	struct rpc_conn *c;

	for (c = loop->all.all_next; c != &loop->all; c = c->all_next) {
		conns++;
		tx += c->tx_head != NULL;
		busy += c->busy;
		pend += c->pend_head != NULL;
	}
	log_warn("stop deadline reached: %u connections, %u with unsent replies, "
		 "%u calls on workers, %u with calls not run, ready list %s, graveyard %s",
		 conns, tx, busy, pend, loop->ready_head ? "not empty" : "empty",
		 loop->graveyard ? "not empty" : "empty");
}

static bool loop_idle(struct rpc_loop *loop)
{
	struct rpc_conn *c;

	/* Not the graveyard: calls on workers for connections already
	 * closed have nobody to answer, and the loop's memory outlives the
	 * workers (rpc__loop_fini frees them after they stop). */
	if (loop->ready_head)
		return false;
	for (c = loop->all.all_next; c != &loop->all; c = c->all_next)
		if (c->tx_head || c->busy || c->bulk)
			return false;
	return true;
}

/*
 * Ask the scheduler for a short slice (EEVDF, Linux 6.12+: sched_runtime
 * of a SCHED_OTHER thread is its slice). A loop sleeps between bursts of
 * work; with a short slice its deadline comes early when a call wakes
 * it, so it preempts a busy thread at once instead of waiting for that
 * thread's (3 ms) slice to end. Without it, a client sharing the CPUs
 * with another connection's busy threads sees its calls wait. Best
 * effort: older kernels ignore or refuse it.
 */
static void set_slice(unsigned int us)
{
	struct {
		uint32_t size, policy;
		uint64_t flags;
		int32_t nice;
		uint32_t priority;
		uint64_t runtime, deadline, period;
	} attr = { .size = sizeof(attr), .policy = 0 /* SCHED_OTHER */ };

	if (!us)
		return;
	attr.runtime = (uint64_t)us * 1000u;
	if (syscall(SYS_sched_setattr, 0, &attr, 0) < 0)
		log_debug("sched_setattr(slice %u us): %s", us, strerror(errno));
}

/*
 * Wait for events. After a turn that had work, a loop with
 * busy_poll_us polls for that long before it sleeps: a call answered
 * at queue depth 1 is followed by the next one within a round trip, and
 * waking a sleeping thread (an IPI, and in a VM a halted vCPU) costs
 * tens of microseconds each time. *@busy says whether this turn had
 * events.
 */
static int poll_events(struct rpc_loop *loop, struct epoll_event *evs, int timeout,
		       bool *busy)
{
	unsigned int us = loop->srv->cfg.busy_poll_us;
	int n;

	if (timeout == -1 && us && *busy) {
		uint64_t until = rpc__now_ns() + (uint64_t)us * 1000u;

		do {
			n = epoll_wait(loop->epfd, evs, EVENTS_MAX, 0);
		} while (n == 0 && rpc__now_ns() < until);
		if (n != 0) {
			*busy = n > 0;
			return n;
		}
	}
	n = epoll_wait(loop->epfd, evs, EVENTS_MAX, timeout);
	*busy = n > 0;
	return n;
}

static void *loop_main(void *arg)
{
	struct rpc_loop *loop = arg;
	struct epoll_event evs[EVENTS_MAX];
	uint64_t deadline = 0;

	bool busy = false;

	set_slice(loop->srv->cfg.slice_us);

	for (;;) {
		int i, n, timeout = -1;

		if (loop->ready_head || (loop->starved && loop->free_reqs))
			timeout = 0;
		else if (loop->stopping)
			timeout = 50;
		else if (loop->wait_head)
			timeout = rpc__budget_timeout(loop);
		else if (loop->srv->cfg.idle_timeout_s && loop->all.all_next != &loop->all)
			timeout = IDLE_SCAN_MS;
		/* Calls of ours waiting for replies: their timeouts. */
		if (loop->ncalls && (timeout < 0 || timeout > (int)RPC_BC_SCAN_MS))
			timeout = RPC_BC_SCAN_MS;
		n = poll_events(loop, evs, timeout, &busy);
		if (n < 0 && errno != EINTR) {
			log_error("epoll_wait: %s", strerror(errno));
			break;
		}
		for (i = 0; i < n; i++) {
			uint64_t tag = evs[i].data.u64;
			struct rpc_conn *c;

			if (tag == TAG_WAKE) {
				uint64_t v;

				if (read(loop->wakefd, &v, sizeof(v)) < 0)
					v = 0;
				drain_inbox(loop);
				take_done(loop);
				rpc__snap_serve(loop);
				if (atomic_load(&loop->srv->stop) && !loop->stopping) {
					begin_stop(loop);
					deadline = rpc__now_ns() +
						   (uint64_t)loop->srv->grace_ms * 1000000u;
				}
				continue;
			}
			if (tag < TAG_WAKE) {
				if (!loop->stopping)
					accept_conns(loop, loop->srv->listeners[tag]);
				continue;
			}
			c = evs[i].data.ptr;
			if (c->closed)
				continue;
			if (evs[i].events & (EPOLLERR | EPOLLHUP)) {
				if (!(evs[i].events & EPOLLIN)) {
					rpc__conn_close(c, "socket error or hang-up");
					continue;
				}
			}
			if (evs[i].events & EPOLLOUT)
				rpc__conn_flush(c);
			if (!c->closed && (evs[i].events & (EPOLLIN | EPOLLHUP)))
				rpc__conn_readable(c);
		}
		run_ready(loop);
		flush_dirty(loop);
		feed_starved(loop);
		rpc__budget_flush(loop);
		rpc__budget_retry(loop);
		if (loop->srv->cfg.idle_timeout_s && !loop->stopping) {
			uint64_t now = rpc__now_ns();

			if (now >= loop->next_idle_scan) {
				rpc__conn_close_idle(loop, now);
				loop->next_idle_scan = now + IDLE_SCAN_MS * 1000000ull;
			}
		}
		if (loop->ncalls)  /* no clock read on the common path */
			rpc__bc_expire(loop, rpc__now_ns());
		bury(loop);
		if (loop->stopping && loop_idle(loop))
			break;
		if (loop->stopping && rpc__now_ns() > deadline) {
			log_stuck(loop);
			break;
		}
	}
	pthread_mutex_lock(&loop->inbox_lock);
	loop->inbox_closed = true;
	pthread_mutex_unlock(&loop->inbox_lock);
	drain_inbox(loop);
	rpc__snap_serve(loop); /* a reader waiting: answer before going */
	while (loop->all.all_next != &loop->all)
		rpc__conn_close(loop->all.all_next, "server stopping");
	/* Calls posted before the inbox closed: their connections are gone. */
	rpc__bc_take(loop);
	bury(loop);
	return NULL;
}

int rpc__loop_init(struct rpc_loop *loop, struct rpc_server *srv)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = TAG_WAKE };
	unsigned int i;

	memset(loop, 0, sizeof(*loop));
	loop->srv = srv;
	loop->epfd = loop->wakefd = loop->reserve_fd = -1;
	loop->bulk_pipe[0] = loop->bulk_pipe[1] = -1;
	pthread_mutex_init(&loop->inbox_lock, NULL);
	loop->all.all_next = loop->all.all_prev = &loop->all;
	loop->epfd = epoll_create1(EPOLL_CLOEXEC);
	loop->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	loop->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	loop->stage = malloc(RPC_STAGE_SIZE);
	loop->scratch = malloc(RPC_RBUF_SIZE);
	if (!loop->stage || !loop->scratch || loop->epfd < 0 || loop->wakefd < 0 ||
	    epoll_ctl(loop->epfd, EPOLL_CTL_ADD, loop->wakefd, &ev) < 0)
		return -1;
	for (i = 0; i < srv->nlisteners; i++) {
		struct epoll_event lev = { .events = EPOLLIN | EPOLLEXCLUSIVE,
					   .data.u64 = i };

		if (epoll_ctl(loop->epfd, EPOLL_CTL_ADD, srv->listeners[i], &lev) < 0)
			return -1;
	}
	return 0;
}

int rpc__loop_start(struct rpc_loop *loop)
{
	errno = pthread_create(&loop->thread, NULL, loop_main, loop);
	return errno ? -1 : 0;
}

void rpc__loop_fini(struct rpc_loop *loop)
{
	/* The workers have stopped: what they handed back is unanswerable. */
	while (loop->done_head) {
		struct rpc_req *r = loop->done_head;

		loop->done_head = r->next;
		rpc_req_release(r);
		free(r);
	}
	while (loop->graveyard) {
		struct rpc_conn *c = loop->graveyard;

		loop->graveyard = c->all_next;
		rpc__conn_free(c);
	}
	while (loop->free_reqs) {
		struct rpc_req *r = loop->free_reqs;

		loop->free_reqs = r->next;
		free(r);
	}
	while (loop->free_rbufs) {
		uint8_t *b = loop->free_rbufs;

		loop->free_rbufs = *(uint8_t **)(void *)b;
		free(b);
	}
	if (loop->epfd >= 0)
		close(loop->epfd);
	if (loop->wakefd >= 0)
		close(loop->wakefd);
	if (loop->reserve_fd >= 0)
		close(loop->reserve_fd);
	rpc__bulk_fini(loop);
	pthread_mutex_destroy(&loop->inbox_lock);
	free(loop->stage);
	free(loop->scratch);
}
