/* SPDX-License-Identifier: MIT */
/* Slot table: see slots.h. */
#include "client/slots.h"

#include <errno.h>
#include <stdlib.h>

int nc_slots_init(struct nc_slots *s, uint32_t n)
{
	s->n = s->used = 0;
	s->map = NULL;
	if (n == 0 || n > NC_SLOTS_MAX)
		return -EINVAL;
	s->map = calloc((n + 63) / 64, sizeof(*s->map));
	if (!s->map)
		return -ENOMEM;
	s->n = n;
	return 0;
}

void nc_slots_fini(struct nc_slots *s)
{
	free(s->map);
	s->map = NULL;
	s->n = s->used = 0;
}

int32_t nc_slots_get(struct nc_slots *s)
{
	uint32_t words = (s->n + 63) / 64, w;

	if (s->used >= s->n)
		return -1;
	for (w = 0; w < words; w++) {
		uint64_t freebits = ~s->map[w];
		uint32_t id;

		if (!freebits)
			continue;
		id = w * 64 + (uint32_t)__builtin_ctzll(freebits);
		if (id >= s->n)
			return -1;
		s->map[w] |= 1ull << (id % 64);
		s->used++;
		return (int32_t)id;
	}
	return -1;
}

bool nc_slots_put(struct nc_slots *s, uint32_t id)
{
	uint64_t bit;

	if (id >= s->n)
		return false;
	bit = 1ull << (id % 64);
	if (!(s->map[id / 64] & bit))
		return false;
	s->map[id / 64] &= ~bit;
	s->used--;
	return true;
}
