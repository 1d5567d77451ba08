/* SPDX-License-Identifier: MIT */
/*
 * Slot table: bounds the calls in flight on one connection and gives
 * each a small slot id, lowest free first.
 *
 * DESIGN
 * A bitmap of 64-bit words; get finds the first free bit. Lowest-first
 * is what NFSv4.1 sessions want (the slot id and the highest slot in
 * use travel in SEQUENCE), so the same table serves a later v4.1 module.
 * The table never allocates after init.
 */
#ifndef NFSX_CLIENT_SLOTS_H
#define NFSX_CLIENT_SLOTS_H

#include <stdbool.h>
#include <stdint.h>

#define NC_SLOTS_MAX 4096u

struct nc_slots {
	uint32_t n;       /* slots in the table */
	uint32_t used;    /* slots taken */
	uint64_t *map;    /* bit set = slot taken */
};

/* Return values: 0, -EINVAL for n == 0 or n > NC_SLOTS_MAX, -ENOMEM. */
int nc_slots_init(struct nc_slots *s, uint32_t n);
void nc_slots_fini(struct nc_slots *s);

/* Return values: the lowest free slot id, or -1 when all are taken. */
int32_t nc_slots_get(struct nc_slots *s);

/* Return values: true, or false for a slot that was not taken. */
bool nc_slots_put(struct nc_slots *s, uint32_t id);

static inline bool nc_slots_full(const struct nc_slots *s)
{
	return s->used >= s->n;
}

#endif
