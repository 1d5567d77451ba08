/* SPDX-License-Identifier: MIT */
/*
 * The programs nfsxd serves, built from the protocol modules' version
 * tables.
 *
 * DESIGN
 * A program number is the server's, not a protocol module's: NFS
 * (100003) has version 3 from src/nfs3 and will have version 4 from
 * src/nfs4, each module exporting only its struct rpc_version. The
 * versions are put in order here, so that PROG_MISMATCH (lowest and
 * highest of the table) and rpcbind (every version of the table, to the
 * embedded portmapper and to a system rpcbind alike) follow from what
 * the server has.
 */
#ifndef NFSX_SERVER_PROGRAMS_H
#define NFSX_SERVER_PROGRAMS_H

#include <stdbool.h>

#include "rpc/program.h"

#define NFS_PROGRAM 100003u
#define MOUNT_PROGRAM 100005u

/*
 * server_programs_add - register NFS and MOUNT with every version the
 * server has. Builds the tables on first use; call before any thread
 * reads @reg.
 * Return values: 0, or -1 when @reg refuses one of them.
 */
int server_programs_add(struct rpc_registry *reg);

/* Serve NFS version 4 too (nfsxd --nfs-vers 3,4); before the first
 * server_programs_add. */
void server_programs_nfs4(bool on);

#endif
