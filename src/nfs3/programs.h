/* SPDX-License-Identifier: MIT */
/*
 * NFS version 3 and MOUNT version 3 program tables (RFC 1813).
 * Only NULL is implemented so far; the other procedures answer
 * PROC_UNAVAIL until the NFSv3 work lands (issue 3).
 */
#ifndef NFSX_NFS3_PROGRAMS_H
#define NFSX_NFS3_PROGRAMS_H

#include "rpc/program.h"

#define NFS_PROGRAM 100003u
#define MOUNT_PROGRAM 100005u

extern const struct rpc_program nfs3_program;
extern const struct rpc_program mount3_program;

#endif
