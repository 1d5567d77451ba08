/* SPDX-License-Identifier: MIT */
/* Worker pool for blocking procedures: see workers.h. */
#include "rpc/workers.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
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

struct rpc_workers {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct rpc_req *head, *tail;   /* guarded by lock */
	bool stop;                     /* guarded by lock */
	struct rpc_drc *drc;
	rpc_workers_done_fn *done;
	unsigned int n;
	pthread_t threads[];
};

static void *worker_main(void *arg)
{
	struct rpc_workers *w = arg;

	for (;;) {
		struct rpc_req *req;
		bool parked;

		pthread_mutex_lock(&w->lock);
		while (!w->stop && !w->head)
			pthread_cond_wait(&w->cond, &w->lock);
		if (w->stop) {
			pthread_mutex_unlock(&w->lock);
			return NULL;
		}
		req = w->head;
		w->head = req->next;
		if (!w->head)
			w->tail = NULL;
		pthread_mutex_unlock(&w->lock);

		req->next = NULL;
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
	atomic_store(&req->park, PARK_NONE);
	rpc_workers_submit(req->workers, req);
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
	req->next = NULL;
	req->workers = w;
	pthread_mutex_lock(&w->lock);
	if (w->tail)
		w->tail->next = req;
	else
		w->head = req;
	w->tail = req;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
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
	while (w->head) {
		struct rpc_req *req = w->head;

		w->head = req->next;
		rpc_req_release(req);
		free(req);
	}
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
