/* SPDX-License-Identifier: MIT */
/*
 * Transmit queue fair between owners (the callers sharing a channel).
 *
 * DESIGN
 * One FIFO per owner; owners with queued items sit in a ring and are
 * served round-robin, one item per turn. An owner with 1000 queued
 * calls therefore delays another owner's single call by at most one
 * call, not 1000. Items are intrusive (embedded in the call), so push,
 * pop and remove are O(1) and allocate nothing except the first time
 * an owner id is seen. Replayed calls go back to the front of their
 * owner's queue and that owner to the front of the ring. Pure data
 * structure: no sockets, unit-tested on its own.
 */
#ifndef NFSX_CLIENT_XPRT_QUEUE_H
#define NFSX_CLIENT_XPRT_QUEUE_H

#include <stddef.h>

#include "client/list.h"

struct nc_xq_owner;

struct nc_xq_item {
	struct nc_list link;          /* in its owner's FIFO */
	struct nc_xq_owner *owner;    /* NULL when not queued */
};

#define NC_XQ_BUCKETS 64u
/* Empty owner records beyond this many are freed, not cached. */
#define NC_XQ_KEEP_OWNERS 32u

struct nc_xq {
	struct nc_xq_owner *buckets[NC_XQ_BUCKETS];
	struct nc_list ring;          /* owners with queued items */
	size_t count;                 /* items queued */
	unsigned nowners;             /* owner records allocated */
};

void nc_xq_init(struct nc_xq *q);
/* Frees the owner records; items still queued are simply forgotten. */
void nc_xq_fini(struct nc_xq *q);

/* Return values: 0, or -ENOMEM (a new owner record could not be made). */
int nc_xq_push(struct nc_xq *q, struct nc_xq_item *it, unsigned owner);
/* Push at the front of @owner's FIFO and put the owner first in line. */
int nc_xq_push_front(struct nc_xq *q, struct nc_xq_item *it, unsigned owner);

/* Next item in round-robin order, or NULL when empty. */
struct nc_xq_item *nc_xq_pop(struct nc_xq *q);
/* The item nc_xq_pop would return, left in place. */
struct nc_xq_item *nc_xq_peek(const struct nc_xq *q);
/* Unlink a queued item (a call completing or timing out while queued). */
void nc_xq_remove(struct nc_xq *q, struct nc_xq_item *it);

/* Owner id of a queued item. */
unsigned nc_xq_item_owner(const struct nc_xq_item *it);

static inline size_t nc_xq_len(const struct nc_xq *q)
{
	return q->count;
}

#endif
