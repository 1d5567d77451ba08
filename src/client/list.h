/* SPDX-License-Identifier: MIT */
/*
 * Intrusive circular doubly linked list: a call moves between the
 * transmit queue, a connection's send and in-flight lists and the timer
 * list in O(1) without allocating.
 */
#ifndef NFSX_CLIENT_LIST_H
#define NFSX_CLIENT_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct nc_list {
	struct nc_list *prev, *next;
};

#define nc_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

static inline void nc_list_init(struct nc_list *h)
{
	h->prev = h->next = h;
}

static inline bool nc_list_empty(const struct nc_list *h)
{
	return h->next == h;
}

static inline void nc_list__insert(struct nc_list *n, struct nc_list *prev,
				   struct nc_list *next)
{
	n->prev = prev;
	n->next = next;
	prev->next = n;
	next->prev = n;
}

static inline void nc_list_add_tail(struct nc_list *h, struct nc_list *n)
{
	nc_list__insert(n, h->prev, h);
}

static inline void nc_list_add_head(struct nc_list *h, struct nc_list *n)
{
	nc_list__insert(n, h, h->next);
}

/* Unlink @n and leave it self-linked, so a second del is harmless. */
static inline void nc_list_del(struct nc_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->prev = n->next = n;
}

static inline bool nc_list_linked(const struct nc_list *n)
{
	return n->next != n;
}

#endif
