/* SPDX-License-Identifier: MIT */
/* The programs nfsxd serves: see programs.h. */
#include "server/programs.h"

#include <stdbool.h>

#include "nfs3/programs.h"
#include "nfs4/nfs4.h"
#include "xdr/gen/mount3.h"
#include "xdr/gen/nfs3.h"
#include "xdr/gen/nfs4.h"

/* Versions a program can have here: NFS 3 and 4. */
#define MAX_VERS 4

struct assembled {
	struct rpc_program prog;
	struct rpc_version vers[MAX_VERS];
};

/* Insert @v into @a's versions, keeping them sorted by number. */
static int add_version(struct assembled *a, const struct rpc_version *v)
{
	uint32_t i;

	if (a->prog.nvers >= MAX_VERS)
		return -1;
	for (i = a->prog.nvers; i > 0 && a->vers[i - 1].vers > v->vers; i--)
		a->vers[i] = a->vers[i - 1];
	a->vers[i] = *v;
	a->prog.nvers++;
	return 0;
}

/* Statuses by name, for statistics. */
static const char *nfs_status_name(uint32_t vers, int32_t st)
{
	return vers == 3 ? xdr_name_nfsstat3(st) : xdr_name_nfsstat4(st);
}

static const char *mount_status_name(uint32_t vers, int32_t st)
{
	(void)vers;
	return xdr_name_mountstat3(st);
}

/* Built once; read-only after, by every loop and worker. */
static struct assembled nfs = {
	.prog = { .prog = NFS_PROGRAM, .name = "nfs", .versions = nfs.vers,
		  .status_name = nfs_status_name },
};
static struct assembled mount = {
	.prog = { .prog = MOUNT_PROGRAM, .name = "mountd", .versions = mount.vers,
		  .status_name = mount_status_name },
};
static bool built, with_nfs4;

void server_programs_nfs4(bool on)
{
	with_nfs4 = on;
}

int server_programs_add(struct rpc_registry *reg)
{
	if (!built) {
		if (add_version(&nfs, &nfs3_version) < 0 ||
		    (with_nfs4 && add_version(&nfs, &nfs4_version) < 0) ||
		    add_version(&mount, &mount3_version) < 0)
			return -1;
		built = true;
	}
	if (rpc_registry_add(reg, &nfs.prog) < 0 ||
	    rpc_registry_add(reg, &mount.prog) < 0)
		return -1;
	return 0;
}
