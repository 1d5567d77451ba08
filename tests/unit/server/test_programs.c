/* SPDX-License-Identifier: MIT */
/*
 * The programs nfsxd serves (src/server/programs.c): NFS (100003) and
 * MOUNT (100005) are assembled from the protocol modules' version tables,
 * in order, and dispatch answers from them: NULL of NFSv3 and MOUNTv3
 * succeeds, NFS versions 2 and 4 and MOUNT version 1 get PROG_MISMATCH
 * with low 3 high 3, the range of the table.
 */
#include <netinet/in.h>
#include <string.h>

#include "nfs3/programs.h"
#include "server/programs.h"
#include "tap.h"
#include "unit/rpc/testutil.h"

static bool versions_in_order(const struct rpc_program *p)
{
	uint32_t i;

	for (i = 1; i < p->nvers; i++)
		if (p->versions[i].vers <= p->versions[i - 1].vers)
			return false;
	return p->nvers > 0;
}

int main(void)
{
	static struct wbuf w;
	struct rpc_registry reg = { 0 }, reg2 = { 0 };
	const struct rpc_program *nfs, *mnt;
	struct sockaddr_storage peer;
	struct test_req t;
	uint32_t bad[] = { 2, 4 };
	unsigned int i;

	ok(server_programs_add(&reg) == 0 && reg.n == 2, "NFS and MOUNT registered");
	nfs = rpc_registry_find(&reg, NFS_PROGRAM);
	mnt = rpc_registry_find(&reg, MOUNT_PROGRAM);
	ok(nfs && nfs->nvers == 1 && nfs->versions[0].vers == 3 &&
	   nfs->versions[0].procs == nfs3_version.procs &&
	   nfs->versions[0].nprocs == nfs3_version.nprocs && versions_in_order(nfs),
	   "program 100003: NFSv3's table, the only version");
	ok(mnt && mnt->nvers == 1 && mnt->versions[0].vers == 3 &&
	   mnt->versions[0].procs == mount3_version.procs && versions_in_order(mnt),
	   "program 100005: MOUNTv3's table");
	ok(server_programs_add(&reg) == -1, "registered twice: refused");
	ok(server_programs_add(&reg2) == 0 &&
	   rpc_registry_find(&reg2, NFS_PROGRAM) == nfs,
	   "another registry gets the same program tables");

	memset(&peer, 0, sizeof(peer));
	peer.ss_family = AF_INET;
	treq_init(&t);
	w_call(&w, 1, NFS_PROGRAM, 3, 0);
	treq_run(&t, &reg, NULL, &w, &peer);
	ok(rep_accepted(&t, 1, RPC_SUCCESS) && t.rep_len == 24, "NFSv3 NULL: SUCCESS");
	w_call(&w, 2, MOUNT_PROGRAM, 3, 0);
	treq_run(&t, &reg, NULL, &w, &peer);
	ok(rep_accepted(&t, 2, RPC_SUCCESS) && t.rep_len == 24, "MOUNTv3 NULL: SUCCESS");
	for (i = 0; i < 2; i++) {
		w_call(&w, 10 + i, NFS_PROGRAM, bad[i], 0);
		treq_run(&t, &reg, NULL, &w, &peer);
		ok(rep_accepted(&t, 10 + i, RPC_PROG_MISMATCH) && t.rep_len == 32 &&
		   get32(t.rep + 24) == 3 && get32(t.rep + 28) == 3,
		   "NFS version %u: PROG_MISMATCH low 3 high 3", bad[i]);
	}
	w_call(&w, 20, MOUNT_PROGRAM, 1, 0);
	treq_run(&t, &reg, NULL, &w, &peer);
	ok(rep_accepted(&t, 20, RPC_PROG_MISMATCH) && t.rep_len == 32 &&
	   get32(t.rep + 24) == 3 && get32(t.rep + 28) == 3,
	   "MOUNT version 1: PROG_MISMATCH low 3 high 3");
	treq_fini(&t);
	return tap_done();
}
