/* SPDX-License-Identifier: MIT */
/*
 * NFS version 3 and MOUNT version 3 procedure tables (RFC 1813), one
 * struct rpc_version each. Program 100003 is not this module's: it holds
 * every NFS version the server has (NFSv4 comes from its own module), so
 * src/server builds the programs from these tables.
 */
#ifndef NFSX_NFS3_PROGRAMS_H
#define NFSX_NFS3_PROGRAMS_H

#include "rpc/program.h"

extern const struct rpc_version nfs3_version;
extern const struct rpc_version mount3_version;

#endif
