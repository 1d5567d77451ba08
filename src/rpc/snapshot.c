/* SPDX-License-Identifier: MIT */
/*
 * What the connections are doing, for statistics (rpc_server_conns).
 *
 * DESIGN
 * A loop owns its connections and their fields are plain, written by it
 * alone: rather than make every field shared (atomics, a lock per call),
 * the reader asks each loop, through its inbox, to copy them. A loop
 * answers at the top of its next pass (within a pass: well under a
 * second even under load), off the hot path. The request is reference
 * counted: a reader that stops waiting (a loop stuck, the server
 * stopping) leaves it to the last loop holding it to free.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rpc/svc_internal.h"

#define SNAP_WAIT_MS 2000

struct rpc__snap {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int refs;
	unsigned int pending;      /* loops yet to answer */
	uint64_t now;
	struct rpc_conn_info *out;
	size_t max, n, total;
};

static void snap_put(struct rpc__snap *s)
{
	bool last;

	pthread_mutex_lock(&s->lock);
	last = --s->refs == 0;
	pthread_mutex_unlock(&s->lock);
	if (!last)
		return;
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	free(s->out);
	free(s);
}

static void fill(struct rpc_loop *loop, struct rpc__snap *s)
{
	unsigned int idx = (unsigned int)(loop - loop->srv->loops);
	struct rpc_conn *c;

	for (c = loop->all.all_next; c != &loop->all; c = c->all_next) {
		struct rpc_conn_info *i;

		s->total++;
		if (s->n >= s->max)
			continue;
		i = &s->out[s->n++];
		i->id = c->id;
		i->loop = idx;
		i->peer = c->peer;
		i->calls = c->ncalls;
		i->bytes_in = c->bytes_in;
		i->bytes_out = c->bytes_out;
		i->inflight = c->inflight;
		i->held = c->held;
		i->unsent = c->tx_bytes;
		i->age_ns = s->now > c->born_ns ? s->now - c->born_ns : 0;
		i->idle_ns = s->now > c->last_ns ? s->now - c->last_ns : 0;
	}
}

void rpc__snap_serve(struct rpc_loop *loop)
{
	struct rpc__snap *s;

	pthread_mutex_lock(&loop->inbox_lock);
	s = loop->snap;
	loop->snap = NULL;
	pthread_mutex_unlock(&loop->inbox_lock);
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	fill(loop, s);
	if (--s->pending == 0)
		pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	snap_put(s);
}

/* Take @s back from the loops that have not taken it yet. */
static void withdraw(struct rpc_server *srv, struct rpc__snap *s)
{
	unsigned int i;

	for (i = 0; i < srv->nstarted; i++) {
		struct rpc_loop *loop = &srv->loops[i];
		bool had;

		pthread_mutex_lock(&loop->inbox_lock);
		had = loop->snap == s;
		if (had)
			loop->snap = NULL;
		pthread_mutex_unlock(&loop->inbox_lock);
		if (had) {
			pthread_mutex_lock(&s->lock);
			s->pending--;
			pthread_mutex_unlock(&s->lock);
			snap_put(s);
		}
	}
}

ssize_t rpc_server_conns(struct rpc_server *srv, struct rpc_conn_info *out, size_t max,
			 size_t *total)
{
	struct rpc__snap *s = calloc(1, sizeof(*s));
	struct timespec until;
	uint64_t one = 1;
	unsigned int i;
	ssize_t ret = -1;
	int err = 0;

	if (!s || !(s->out = calloc(max ? max : 1, sizeof(*s->out)))) {
		free(s);
		errno = ENOMEM;
		return -1;
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	s->refs = 1;
	s->max = max;
	s->now = rpc__now_ns();
	/* one reader at a time: a loop holds one request */
	pthread_mutex_lock(&srv->snap_lock);
	for (i = 0; i < srv->nstarted; i++) {
		struct rpc_loop *loop = &srv->loops[i];

		pthread_mutex_lock(&loop->inbox_lock);
		if (!loop->inbox_closed) {
			loop->snap = s;
			pthread_mutex_lock(&s->lock);
			s->refs++;
			s->pending++;
			pthread_mutex_unlock(&s->lock);
		}
		pthread_mutex_unlock(&loop->inbox_lock);
		if (write(loop->wakefd, &one, sizeof(one)) < 0)
			continue;
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += SNAP_WAIT_MS / 1000;
	pthread_mutex_lock(&s->lock);
	while (s->pending && err != ETIMEDOUT)
		err = pthread_cond_timedwait(&s->cond, &s->lock, &until);
	if (!s->pending) {
		memcpy(out, s->out, s->n * sizeof(*out));
		*total = s->total;
		ret = (ssize_t)s->n;
	}
	pthread_mutex_unlock(&s->lock);
	if (ret < 0) {
		withdraw(srv, s);
		errno = ETIMEDOUT;
	}
	pthread_mutex_unlock(&srv->snap_lock);
	snap_put(s);
	return ret;
}

void rpc_server_totals(struct rpc_server *srv, struct rpc_server_totals *t)
{
	t->connections = atomic_load_explicit(&srv->nconns, memory_order_relaxed);
	t->held = atomic_load_explicit(&srv->held, memory_order_relaxed);
	t->max_total_bytes = srv->cfg.max_total_bytes;
	t->max_conns = srv->cfg.max_conns;
	t->loops = srv->nstarted;
	t->workers = srv->cfg.workers;
}
