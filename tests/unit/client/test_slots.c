/* SPDX-License-Identifier: MIT */
/* Slot table (src/client/slots.c): bounds, lowest-first ids, reuse, misuse. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "client/slots.h"
#include "tap.h"

int main(void)
{
	struct nc_slots s;
	bool seen[200] = { false }, unique = true, lowest = true;
	int32_t id;
	int i;

	ok(nc_slots_init(&s, 0) == -EINVAL, "zero slots refused");
	ok(nc_slots_init(&s, NC_SLOTS_MAX + 1) == -EINVAL, "more than %u slots refused",
	   NC_SLOTS_MAX);

	/* 130 slots span three bitmap words. */
	ok(nc_slots_init(&s, 130) == 0, "130 slots");
	for (i = 0; i < 130; i++) {
		id = nc_slots_get(&s);
		if (id < 0 || id >= 130 || seen[id])
			unique = false;
		else
			seen[id] = true;
		if (id != i)
			lowest = false;
	}
	ok(unique, "130 gets give 130 distinct ids in range");
	ok(lowest, "ids come lowest first (0, 1, 2, ...)");
	ok(nc_slots_full(&s) && s.used == 130, "table is full");
	ok(nc_slots_get(&s) == -1, "a get on a full table fails");

	ok(nc_slots_put(&s, 77), "put slot 77");
	ok(nc_slots_put(&s, 5), "put slot 5");
	ok(!nc_slots_full(&s) && s.used == 128, "two free after two puts");
	ok(nc_slots_get(&s) == 5, "next get returns the lowest free id (5)");
	ok(nc_slots_get(&s) == 77, "then 77");
	ok(nc_slots_get(&s) == -1, "then full again");

	ok(nc_slots_put(&s, 129), "put the last slot (third word)");
	ok(!nc_slots_put(&s, 129), "a second put of the same slot is refused");
	ok(!nc_slots_put(&s, 130), "put of an id past the table is refused");
	ok(s.used == 129, "refused puts do not change the count");
	ok(nc_slots_get(&s) == 129, "slot 129 is reused");

	for (i = 0; i < 130; i++)
		nc_slots_put(&s, (uint32_t)i);
	ok(s.used == 0 && nc_slots_get(&s) == 0, "all put back: empty, get gives 0");
	nc_slots_fini(&s);

	/* A table of one: the smallest bound. */
	ok(nc_slots_init(&s, 1) == 0 && nc_slots_get(&s) == 0 && nc_slots_get(&s) == -1,
	   "one slot: one get succeeds, the second fails");
	nc_slots_fini(&s);
	return tap_done();
}
