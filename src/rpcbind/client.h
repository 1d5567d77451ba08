/* SPDX-License-Identifier: MIT */
/*
 * Registration with a system rpcbind (or any portmapper) that already
 * owns the rpcbind port: RPCBIND v4 SET/UNSET, falling back to PMAP v2
 * for a portmapper that only speaks version 2. Blocking, with a short
 * timeout: it runs at start-up and shut-down only.
 */
#ifndef NFSX_RPCBIND_CLIENT_H
#define NFSX_RPCBIND_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * rpcb_client_set - register (@prog, @vers) as reachable over TCP at
 * @ip:@port with the rpcbind at @rpcb_ip:@rpcb_port; @unset removes it.
 * Return values: 1 registered (or removed), 0 refused by rpcbind (for
 * SET: someone else has the mapping), -1 no answer (@err says why).
 */
int rpcb_client_set(const char *rpcb_ip, uint16_t rpcb_port, uint32_t prog,
		    uint32_t vers, const char *ip, uint16_t port, bool unset,
		    char *err, size_t errlen);

#endif
