/* SPDX-License-Identifier: MIT */
/* Worker pool for blocking procedures: see workers.h. */
#include "rpc/workers.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "rpc/program.h"
#include "rpc/req.h"

/* req->park */
enum {
	PARK_NONE,	/* not parked */
	PARK_PARKING,	/* parked by its handler, still on its worker */
	PARK_PARKED,	/* off the workers until resumed */
	PARK_RESUMED,	/* resumed while PARKING: its worker runs it again */
};

/*
 * The calls of one connection waiting for a worker. Queues with calls
 * are on the ring in turn; a queue that empties leaves the hash and the
 * ring and goes to the free list (it holds no memory of its connection,
 * only its address as a key).
 */
struct wq {
	struct wq *hnext;		/* hash chain, or free list */
	struct wq *rnext;		/* ring: the queue served after it */
	const void *key;		/* req->conn */
	struct rpc_req *head, *tail;
};

#define WQ_BUCKETS 256u

struct rpc_workers {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* guarded by lock: */
	struct wq *buckets[WQ_BUCKETS];
	struct wq *ring_head, *ring_tail;	/* queues with calls, in turn */
	struct wq *free;
	struct wq spare;		/* for when malloc fails */
	bool spare_idle;
	bool stop;
	struct rpc_drc *drc;
	rpc_workers_done_fn *done;
	unsigned int n;
	pthread_t threads[];
};

static unsigned int wq_hash(const void *key)
{
	uintptr_t k = (uintptr_t)key;

	k ^= k >> 17;
	k *= 0x9e3779b97f4a7c15ull;
	return (unsigned int)(k >> 32) & (WQ_BUCKETS - 1);
}

static struct wq **wq_slot(struct rpc_workers *w, const void *key)
{
	struct wq **pp = &w->buckets[wq_hash(key)];

	while (*pp && (*pp)->key != key)
		pp = &(*pp)->hnext;
	return pp;
}

/*
 * The next call in turn: the first call of the queue at the head of the
 * ring, which then goes to the tail (or leaves, emptied), so each
 * connection with calls waiting gets one worker turn per round, as the
 * event loop serves connections.
 */
/* @q's turn comes after every queue now on the ring. */
static void ring_append(struct rpc_workers *w, struct wq *q)
{
	if (w->ring_tail)
		w->ring_tail->rnext = q;
	else
		w->ring_head = q;
	w->ring_tail = q;
}

static struct rpc_req *take(struct rpc_workers *w)
{
	struct wq *q = w->ring_head;
	struct rpc_req *req;

	if (!q)
		return NULL;
	req = q->head;
	q->head = req->next;
	req->next = NULL;
	w->ring_head = q->rnext;
	if (!w->ring_head)
		w->ring_tail = NULL;
	q->rnext = NULL;
	if (q->head) {
		ring_append(w, q);
	} else {
		*wq_slot(w, q->key) = q->hnext;
		q->tail = NULL;
		if (q == &w->spare) {
			w->spare_idle = true;
		} else {
			q->hnext = w->free;
			w->free = q;
		}
	}
	return req;
}

static void *worker_main(void *arg)
{
	struct rpc_workers *w = arg;

	for (;;) {
		struct rpc_req *req;
		bool parked;

		pthread_mutex_lock(&w->lock);
		while (!w->stop && !w->ring_head)
			pthread_cond_wait(&w->cond, &w->lock);
		if (w->stop) {
			pthread_mutex_unlock(&w->lock);
			return NULL;
		}
		req = take(w);
		pthread_mutex_unlock(&w->lock);

		parked = false;
		while (!rpc_dispatch_finish(w->drc, req)) {
			int st = PARK_PARKING;

			/* Parked, unless resumed while the handler returned.
			 * Once PARKED, @req is another thread's. */
			if (atomic_compare_exchange_strong(&req->park, &st,
							   PARK_PARKED)) {
				parked = true;
				break;
			}
			atomic_store(&req->park, PARK_NONE);
		}
		if (!parked)
			w->done(req);
	}
}

struct rpc_workers *rpc_workers_start(unsigned int n, struct rpc_drc *drc,
				      rpc_workers_done_fn *done)
{
	struct rpc_workers *w = calloc(1, sizeof(*w) + n * sizeof(pthread_t));
	unsigned int i;

	if (!w)
		return NULL;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	w->drc = drc;
	w->done = done;
	w->spare_idle = true;
	for (i = 0; i < n; i++) {
		errno = pthread_create(&w->threads[i], NULL, worker_main, w);
		if (errno) {
			w->n = i;
			rpc_workers_stop(w);
			return NULL;
		}
	}
	w->n = n;
	return w;
}

void rpc_workers_submit(struct rpc_workers *w, struct rpc_req *req)
{
	struct wq **pp, *q;

	req->next = NULL;
	req->workers = w;
	pthread_mutex_lock(&w->lock);
	pp = wq_slot(w, req->conn);
	q = *pp;
	if (!q) {
		q = w->free;
		if (q)
			w->free = q->hnext;
		else
			q = malloc(sizeof(*q));
		if (!q && w->spare_idle) {
			q = &w->spare;
			w->spare_idle = false;
		}
		if (q) {
			q->key = req->conn;
			q->hnext = NULL;
			q->rnext = NULL;
			q->head = q->tail = NULL;
			*pp = q;
			ring_append(w, q);
		} else {
			/* No memory, the spare taken: share its turns. */
			q = &w->spare;
		}
	}
	if (q->tail)
		q->tail->next = req;
	else
		q->head = req;
	q->tail = req;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

void rpc_workers_park(struct rpc_req *req)
{
	atomic_store(&req->park, PARK_PARKING);
}

void rpc_workers_unpark(struct rpc_req *req)
{
	atomic_store(&req->park, PARK_NONE);
}

void rpc_workers_resume(struct rpc_req *req)
{
	int st = PARK_PARKING;

	/* Still on its worker: that worker runs it again. */
	if (atomic_compare_exchange_strong(&req->park, &st, PARK_RESUMED))
		return;
	/* Off the workers: queue it again, once. Anything else (not parked,
	 * already resumed) is a stray resume: queueing the call a second
	 * time would run and free it twice. */
	st = PARK_PARKED;
	if (atomic_compare_exchange_strong(&req->park, &st, PARK_NONE))
		rpc_workers_submit(req->workers, req);
}

bool rpc_workers_parked(struct rpc_req *req)
{
	return atomic_load(&req->park) != PARK_NONE;
}

void rpc_workers_stop(struct rpc_workers *w)
{
	unsigned int i;

	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	for (i = 0; i < w->n; i++)
		pthread_join(w->threads[i], NULL);
	/* Never started: the loops are gone, so nobody wants their replies. */
	for (;;) {
		struct rpc_req *req = take(w);

		if (!req)
			break;
		rpc_req_release(req);
		free(req);
	}
	while (w->free) {
		struct wq *q = w->free;

		w->free = q->hnext;
		free(q);
	}
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
