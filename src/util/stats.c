/* SPDX-License-Identifier: MIT */
/* Per-thread statistics shards: see stats.h. */
#include "util/stats.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

bool stats_on = true;

static struct stats_row_info infos[STATS_MAX_ROWS];
static uint32_t nrows;		/* rows added */
static uint32_t live_rows;	/* rows recorded: nrows once started */
static _Atomic uint64_t *status_counts; /* [live_rows][STATS_NSTATUS] */

struct shard {
	struct shard *next;
	struct stats_row rows[];
};

static pthread_mutex_t shards_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(struct shard *) shards;
static _Thread_local struct shard *mine;

void stats_set_enabled(bool on)
{
	stats_on = on;
}

int stats_row_add(const char *group, uint32_t vers, const char *name,
		  const char *(*status_name)(uint32_t vers, int32_t status))
{
	if (live_rows || nrows >= STATS_MAX_ROWS)
		return -1;
	infos[nrows].group = group;
	infos[nrows].vers = vers;
	infos[nrows].name = name;
	infos[nrows].status_name = status_name;
	return (int)nrows++;
}

void stats_start(void)
{
	if (live_rows || !nrows || !stats_on)
		return;
	status_counts = calloc((size_t)nrows * STATS_NSTATUS, sizeof(*status_counts));
	if (status_counts)
		live_rows = nrows;
}

uint32_t stats_rows(void)
{
	return live_rows;
}

const struct stats_row_info *stats_row_info(uint32_t row)
{
	return row < live_rows ? &infos[row] : NULL;
}

/* This thread's shard, made and linked on its first record. */
static struct shard *my_shard(void)
{
	struct shard *s = calloc(1, sizeof(*s) + (size_t)live_rows * sizeof(s->rows[0]));

	if (!s)
		return NULL;
	pthread_mutex_lock(&shards_lock);
	s->next = atomic_load_explicit(&shards, memory_order_relaxed);
	atomic_store_explicit(&shards, s, memory_order_release);
	pthread_mutex_unlock(&shards_lock);
	mine = s;
	return s;
}

/* Counters written by one thread: a load and a store, no locked add. */
static inline void bump(_Atomic uint64_t *c, uint64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

uint64_t stats_bucket_limit_ns(unsigned int k)
{
	return k >= STATS_NBUCKETS - 1 ? UINT64_MAX : (uint64_t)1000u << k;
}

unsigned int stats_status_slot(uint32_t status)
{
	if (status < 100u)
		return status;
	if (status >= 10001u && status < 10001u + (STATS_NSTATUS - 101u))
		return 100u + (status - 10001u);
	return STATS_STATUS_OTHER;
}

uint32_t stats_slot_status(unsigned int slot)
{
	if (slot < 100u)
		return slot;
	if (slot < STATS_STATUS_OTHER)
		return 10001u + (slot - 100u);
	return UINT32_MAX;
}

static void count_status(struct stats_row *w, int row, uint32_t status)
{
	bump(&w->errors, 1);
	atomic_fetch_add_explicit(&status_counts[(size_t)row * STATS_NSTATUS +
						 stats_status_slot(status)],
				  1, memory_order_relaxed);
}

void stats_record(int row, const struct stats_rec *r)
{
	struct shard *s = mine;
	struct stats_row *w;
	unsigned int t;

	if (row < 0 || (uint32_t)row >= live_rows)
		return;
	if (!s && !(s = my_shard()))
		return;
	w = &s->rows[row];
	bump(&w->calls, 1);
	bump(&w->bytes_in, r->bytes_in);
	bump(&w->bytes_out, r->bytes_out);
	for (t = 0; t < STATS_NTIMES; t++) {
		if (r->ns[t] == UINT64_MAX)
			continue;
		bump(&w->ns_sum[t], r->ns[t]);
		bump(&w->hist[t][stats_bucket(r->ns[t])], 1);
	}
	if (r->status)
		count_status(w, row, r->status);
}

void stats_record_exec(int row, uint32_t status, uint64_t ns, uint64_t in, uint64_t out)
{
	struct shard *s = mine;
	struct stats_row *w;

	if (row < 0 || (uint32_t)row >= live_rows)
		return;
	if (!s && !(s = my_shard()))
		return;
	w = &s->rows[row];
	bump(&w->calls, 1);
	bump(&w->bytes_in, in);
	bump(&w->bytes_out, out);
	if (ns != UINT64_MAX) {
		bump(&w->ns_sum[STATS_EXEC], ns);
		bump(&w->hist[STATS_EXEC][stats_bucket(ns)], 1);
	}
	if (status)
		count_status(w, row, status);
}

static inline void add_to(_Atomic uint64_t *sum, _Atomic uint64_t *c)
{
	bump(sum, atomic_load_explicit(c, memory_order_relaxed));
}

void stats_sum(uint32_t row, struct stats_row *out)
{
	struct shard *s;
	unsigned int t, k;

	*out = (struct stats_row){ 0 };
	if (row >= live_rows)
		return;
	for (s = atomic_load_explicit(&shards, memory_order_acquire); s; s = s->next) {
		struct stats_row *w = &s->rows[row];

		add_to(&out->calls, &w->calls);
		add_to(&out->errors, &w->errors);
		add_to(&out->bytes_in, &w->bytes_in);
		add_to(&out->bytes_out, &w->bytes_out);
		for (t = 0; t < STATS_NTIMES; t++) {
			add_to(&out->ns_sum[t], &w->ns_sum[t]);
			for (k = 0; k < STATS_NBUCKETS; k++) {
				/* one load: _count is the buckets' sum exactly */
				uint64_t v = atomic_load_explicit(&w->hist[t][k],
								  memory_order_relaxed);

				bump(&out->hist[t][k], v);
				bump(&out->timed[t], v);
			}
		}
	}
}

uint64_t stats_status_count(uint32_t row, unsigned int slot)
{
	if (row >= live_rows || slot >= STATS_NSTATUS)
		return 0;
	return atomic_load_explicit(&status_counts[(size_t)row * STATS_NSTATUS + slot],
				    memory_order_relaxed);
}
