/* SPDX-License-Identifier: MIT */
/*
 * The embedded portmapper / rpcbind (RFC 1833): PMAP version 2 and
 * RPCBIND versions 3 and 4 over TCP, answered from the table in map.h.
 * SET and UNSET are taken only from root on this host (a loopback peer
 * on a privileged port); a refused one answers FALSE.
 */
#ifndef NFSX_RPCBIND_SERVICE_H
#define NFSX_RPCBIND_SERVICE_H

#include "rpc/program.h"
#include "xdr/gen/rpcbind.h"

#define RPCB_PROG RPCBPROG

extern const struct rpc_program rpcb_program;

#endif
