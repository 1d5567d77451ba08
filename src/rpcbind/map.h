/* SPDX-License-Identifier: MIT */
/*
 * The embedded rpcbind's table of registrations: (program, version,
 * netid) → universal address, owner. Bounded, shared by all loops
 * under one mutex (lookups are rare: once per client mount).
 */
#ifndef NFSX_RPCBIND_MAP_H
#define NFSX_RPCBIND_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpcbind/uaddr.h"

#define RPCB_MAP_MAX 256
#define RPCB_NETID_MAX 32
#define RPCB_OWNER_MAX 64
/* rpcbind's name for the owner of what root registered. */
#define RPCB_OWNER_ROOT "superuser"

struct rpcb_mapping {
	uint32_t prog, vers;
	char netid[RPCB_NETID_MAX];
	char uaddr[UADDR_MAX];
	char owner[RPCB_OWNER_MAX];
};

/*
 * rpcb_map_set - register; an existing (prog, vers, netid) is refused.
 * Return values: true when added.
 */
bool rpcb_map_set(const struct rpcb_mapping *m);

/*
 * rpcb_map_unset - remove (prog, vers) for @netid, or for every netid
 * when @netid is NULL or empty; only @owner's when @owner is given.
 * Return values: true when something was removed.
 */
bool rpcb_map_unset(uint32_t prog, uint32_t vers, const char *netid,
		    const char *owner);

/*
 * rpcb_map_find - the mapping of (prog, vers, netid); with @any_vers,
 * any version of @prog when that exact version is not registered (as
 * rpcbind's GETADDR does, so the client then learns the version range
 * from PROG_MISMATCH).
 * Return values: true when found (copied to *out).
 */
bool rpcb_map_find(uint32_t prog, uint32_t vers, const char *netid,
		   bool any_vers, struct rpcb_mapping *out);

/* Copy up to @max mappings. Return values: how many. */
size_t rpcb_map_snapshot(struct rpcb_mapping *out, size_t max);

void rpcb_map_clear(void);

#endif
