/* SPDX-License-Identifier: MIT */
/* Per-procedure statistics: see stats.h. */
#include "client/stats.h"

#include <stdlib.h>
#include <string.h>

void nc_stats_init(struct nc_stats *st)
{
	st->tab = NULL;
	st->cap = st->n = 0;
}

void nc_stats_fini(struct nc_stats *st)
{
	unsigned i;

	for (i = 0; i < st->cap; i++)
		free(st->tab[i]);
	free(st->tab);
	nc_stats_init(st);
}

static unsigned slot_of(const struct nfsx_proc *p, unsigned cap)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;

	return (unsigned)(h >> 32) & (cap - 1);
}

const struct nfsx_op_stats *nc_stats_find(const struct nc_stats *st,
					  const struct nfsx_proc *p)
{
	unsigned i;

	if (!st->cap)
		return NULL;
	for (i = slot_of(p, st->cap);; i = (i + 1) & (st->cap - 1)) {
		if (!st->tab[i])
			return NULL;
		if (st->tab[i]->proc == p)
			return &st->tab[i]->s;
	}
}

static int grow(struct nc_stats *st)
{
	unsigned cap = st->cap ? st->cap * 2 : 32, i;
	struct nc_stats_entry **tab = calloc(cap, sizeof(*tab));

	if (!tab)
		return -1;
	for (i = 0; i < st->cap; i++) {
		struct nc_stats_entry *e = st->tab[i];
		unsigned j;

		if (!e)
			continue;
		for (j = slot_of(e->proc, cap); tab[j]; j = (j + 1) & (cap - 1))
			;
		tab[j] = e;
	}
	free(st->tab);
	st->tab = tab;
	st->cap = cap;
	return 0;
}

struct nfsx_op_stats *nc_stats_for(struct nc_stats *st, const struct nfsx_proc *p)
{
	struct nc_stats_entry *e;
	unsigned i;

	if (st->cap) {
		for (i = slot_of(p, st->cap); st->tab[i]; i = (i + 1) & (st->cap - 1))
			if (st->tab[i]->proc == p)
				return &st->tab[i]->s;
	}
	/* Keep the table at most half full so probes stay short. */
	if ((st->n + 1) * 2 > st->cap && grow(st) < 0)
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->proc = p;
	e->s.name = p->name;
	for (i = slot_of(p, st->cap); st->tab[i]; i = (i + 1) & (st->cap - 1))
		;
	st->tab[i] = e;
	st->n++;
	return &e->s;
}

unsigned nc_hist_bucket(uint64_t ns)
{
	uint64_t us = ns / 1000;
	unsigned b;

	if (us < 2)
		return 0;
	b = 63u - (unsigned)__builtin_clzll(us);
	return b < NFSX_HIST_BUCKETS ? b : NFSX_HIST_BUCKETS - 1;
}

void nfsx_stats_add(struct nfsx_op_stats *dst, const struct nfsx_op_stats *src)
{
	unsigned i;

	if (!dst->name)
		dst->name = src->name;
	dst->ops += src->ops;
	dst->trans += src->trans;
	dst->timeouts += src->timeouts;
	dst->errors += src->errors;
	dst->bytes_sent += src->bytes_sent;
	dst->bytes_recv += src->bytes_recv;
	dst->queue_ns += src->queue_ns;
	dst->rtt_ns += src->rtt_ns;
	dst->exec_ns += src->exec_ns;
	for (i = 0; i < NFSX_HIST_BUCKETS; i++) {
		dst->hist_queue[i] += src->hist_queue[i];
		dst->hist_rtt[i] += src->hist_rtt[i];
		dst->hist_exec[i] += src->hist_exec[i];
	}
}
