/* SPDX-License-Identifier: MIT */
/* Fair transmit queue: see xprt_queue.h. */
#include "client/xprt_queue.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

struct nc_xq_owner {
	unsigned id;
	struct nc_list items;
	struct nc_list ring;          /* linked while it has items */
	struct nc_xq_owner *hnext;
};

static unsigned bucket_of(unsigned id)
{
	return (id * 2654435761u) >> 26; /* top 6 bits: 64 buckets */
}

void nc_xq_init(struct nc_xq *q)
{
	unsigned i;

	for (i = 0; i < NC_XQ_BUCKETS; i++)
		q->buckets[i] = NULL;
	nc_list_init(&q->ring);
	q->count = 0;
	q->nowners = 0;
}

void nc_xq_fini(struct nc_xq *q)
{
	unsigned i;

	for (i = 0; i < NC_XQ_BUCKETS; i++) {
		struct nc_xq_owner *o = q->buckets[i], *next;

		for (; o; o = next) {
			next = o->hnext;
			free(o);
		}
		q->buckets[i] = NULL;
	}
	nc_list_init(&q->ring);
	q->count = 0;
	q->nowners = 0;
}

static struct nc_xq_owner *owner_get(struct nc_xq *q, unsigned id)
{
	unsigned b = bucket_of(id);
	struct nc_xq_owner *o;

	for (o = q->buckets[b]; o; o = o->hnext)
		if (o->id == id)
			return o;
	o = malloc(sizeof(*o));
	if (!o)
		return NULL;
	o->id = id;
	nc_list_init(&o->items);
	nc_list_init(&o->ring);
	o->hnext = q->buckets[b];
	q->buckets[b] = o;
	q->nowners++;
	return o;
}

/* An owner left with nothing queued leaves the ring; maybe freed. */
static void owner_emptied(struct nc_xq *q, struct nc_xq_owner *o)
{
	struct nc_xq_owner **pp;

	nc_list_del(&o->ring);
	if (q->nowners <= NC_XQ_KEEP_OWNERS)
		return;
	for (pp = &q->buckets[bucket_of(o->id)]; *pp; pp = &(*pp)->hnext) {
		if (*pp == o) {
			*pp = o->hnext;
			free(o);
			q->nowners--;
			return;
		}
	}
}

static int push(struct nc_xq *q, struct nc_xq_item *it, unsigned id, bool front)
{
	struct nc_xq_owner *o = owner_get(q, id);

	if (!o)
		return -ENOMEM;
	if (front)
		nc_list_add_head(&o->items, &it->link);
	else
		nc_list_add_tail(&o->items, &it->link);
	it->owner = o;
	if (front) {
		nc_list_del(&o->ring);
		nc_list_add_head(&q->ring, &o->ring);
	} else if (!nc_list_linked(&o->ring)) {
		nc_list_add_tail(&q->ring, &o->ring);
	}
	q->count++;
	return 0;
}

int nc_xq_push(struct nc_xq *q, struct nc_xq_item *it, unsigned owner)
{
	return push(q, it, owner, false);
}

int nc_xq_push_front(struct nc_xq *q, struct nc_xq_item *it, unsigned owner)
{
	return push(q, it, owner, true);
}

struct nc_xq_item *nc_xq_peek(const struct nc_xq *q)
{
	struct nc_xq_owner *o;

	if (nc_list_empty(&q->ring))
		return NULL;
	o = nc_container_of(q->ring.next, struct nc_xq_owner, ring);
	return nc_container_of(o->items.next, struct nc_xq_item, link);
}

struct nc_xq_item *nc_xq_pop(struct nc_xq *q)
{
	struct nc_xq_item *it = nc_xq_peek(q);
	struct nc_xq_owner *o;

	if (!it)
		return NULL;
	o = it->owner;
	nc_list_del(&it->link);
	it->owner = NULL;
	q->count--;
	if (nc_list_empty(&o->items)) {
		owner_emptied(q, o);
	} else {
		/* Served: go to the back of the line. */
		nc_list_del(&o->ring);
		nc_list_add_tail(&q->ring, &o->ring);
	}
	return it;
}

void nc_xq_remove(struct nc_xq *q, struct nc_xq_item *it)
{
	struct nc_xq_owner *o = it->owner;

	if (!o)
		return;
	nc_list_del(&it->link);
	it->owner = NULL;
	q->count--;
	if (nc_list_empty(&o->items))
		owner_emptied(q, o);
}

unsigned nc_xq_item_owner(const struct nc_xq_item *it)
{
	return it->owner ? it->owner->id : 0;
}
