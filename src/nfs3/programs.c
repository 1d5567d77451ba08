/* SPDX-License-Identifier: MIT */
/* NFSv3 and MOUNTv3 procedure tables: see programs.h. */
#include "nfs3/programs.h"

/*
 * Slots 1..21 (NFS) and 1..5 (MOUNT) stay empty until implemented:
 * dispatch answers PROC_UNAVAIL for an empty slot.
 */
static const struct rpc_proc nfs3_procs[22] = {
	[0] = { "NULL", rpc_proc_null, 0, 0 },
};

static const struct rpc_proc mount3_procs[6] = {
	[0] = { "NULL", rpc_proc_null, 0, 0 },
};

static const struct rpc_version nfs3_versions[] = {
	{ 3, 22, nfs3_procs },
};

static const struct rpc_version mount3_versions[] = {
	{ 3, 6, mount3_procs },
};

const struct rpc_program nfs3_program = {
	.prog = NFS_PROGRAM,
	.name = "nfs",
	.nvers = 1,
	.versions = nfs3_versions,
};

const struct rpc_program mount3_program = {
	.prog = MOUNT_PROGRAM,
	.name = "mountd",
	.nvers = 1,
	.versions = mount3_versions,
};
