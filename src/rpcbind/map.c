/* SPDX-License-Identifier: MIT */
/* The rpcbind registration table: see map.h. */
#include "rpcbind/map.h"

#include <pthread.h>
#include <string.h>

static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rpcb_mapping map[RPCB_MAP_MAX];
static size_t map_n;

static bool same(const struct rpcb_mapping *m, uint32_t prog, uint32_t vers,
		 const char *netid)
{
	return m->prog == prog && m->vers == vers &&
	       (!netid || !*netid || strcmp(m->netid, netid) == 0);
}

bool rpcb_map_set(const struct rpcb_mapping *m)
{
	bool ok = false;
	size_t i;

	pthread_mutex_lock(&map_lock);
	for (i = 0; i < map_n; i++)
		if (same(&map[i], m->prog, m->vers, m->netid))
			goto out;
	if (map_n < RPCB_MAP_MAX) {
		map[map_n++] = *m;
		ok = true;
	}
out:
	pthread_mutex_unlock(&map_lock);
	return ok;
}

bool rpcb_map_unset(uint32_t prog, uint32_t vers, const char *netid,
		    const char *owner)
{
	bool removed = false;
	size_t i = 0;

	pthread_mutex_lock(&map_lock);
	while (i < map_n) {
		if (same(&map[i], prog, vers, netid) &&
		    (!owner || !*owner || strcmp(map[i].owner, owner) == 0)) {
			map[i] = map[--map_n];
			removed = true;
		} else {
			i++;
		}
	}
	pthread_mutex_unlock(&map_lock);
	return removed;
}

bool rpcb_map_find(uint32_t prog, uint32_t vers, const char *netid,
		   bool any_vers, struct rpcb_mapping *out)
{
	const struct rpcb_mapping *hit = NULL;
	size_t i;

	pthread_mutex_lock(&map_lock);
	for (i = 0; i < map_n; i++) {
		const struct rpcb_mapping *m = &map[i];

		if (m->prog != prog || strcmp(m->netid, netid) != 0)
			continue;
		if (m->vers == vers) {
			hit = m;
			break;
		}
		if (any_vers && !hit)
			hit = m;
	}
	if (hit)
		*out = *hit;
	pthread_mutex_unlock(&map_lock);
	return hit != NULL;
}

size_t rpcb_map_snapshot(struct rpcb_mapping *out, size_t max)
{
	size_t n;

	pthread_mutex_lock(&map_lock);
	n = map_n < max ? map_n : max;
	memcpy(out, map, n * sizeof(*out));
	pthread_mutex_unlock(&map_lock);
	return n;
}

void rpcb_map_clear(void)
{
	pthread_mutex_lock(&map_lock);
	map_n = 0;
	pthread_mutex_unlock(&map_lock);
}
