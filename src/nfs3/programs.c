/* SPDX-License-Identifier: MIT */
/*
 * NFSv3 and MOUNTv3 procedure tables. Slots left empty answer
 * PROC_UNAVAIL. WRITE, SETATTR, CREATE, MKDIR, SYMLINK, MKNOD, REMOVE,
 * RMDIR, RENAME and LINK go through the duplicate request cache (a
 * retransmitted CREATE GUARDED must get its original reply, not EXIST;
 * a retransmitted REMOVE not NOENT), as in Linux's nfsd; COMMIT is
 * idempotent.
 *
 * Only the version tables are here: the programs (NFS 100003 with every
 * version the server has, MOUNT 100005) are assembled in src/server.
 */
#include "nfs3/programs.h"

#include "nfs3/nfs3.h"
#include "nfs3/procs.h"
#include "xdr/gen/mount3.h"
#include "xdr/gen/nfs3.h"

/* Every procedure but NULL, UMNT, UMNTALL, DUMP and EXPORT (no status) is
 * B or I: their results start with a status (RPC_PROC_STATUS). */
#define B (RPC_PROC_BLOCKING | RPC_PROC_STATUS)
/* Tried on the event loop first; see RPC_PROC_TRY_INLINE. */
#define I (B | RPC_PROC_TRY_INLINE)
/* Worst-case result sizes, beyond which a handler reserves its own. */
#define ATTR 88u
#define FH (4u + NFS3_FHSIZE)
/* MKDIR..LINK change the name space: a retransmission must get the
 * original reply (a repeated REMOVE would otherwise answer NOENT). */
#define N RPC_PROC_NONIDEMPOTENT
#define WCC (28u + ATTR) /* pre_op_attr + post_op_attr */

/* A procedure that may change a file: its marks (nfs3_changes_end,
 * nfs3.h) end when its handler returns, on the thread it ran on. */
#define CHANGING(fn) \
	static enum rpc_accept_stat changing_##fn(struct rpc_req *req) \
	{ \
		enum rpc_accept_stat st = fn(req); \
		nfs3_changes_end(); \
		return st; \
	}
CHANGING(nfs3_setattr)
CHANGING(nfs3_write)
CHANGING(nfs3_create)
CHANGING(nfs3_remove)
CHANGING(nfs3_rename)
CHANGING(nfs3_link)

static const struct rpc_proc nfs3_procs[22] = {
	[NFSPROC3_NULL] = RPC_PROC("NULL", rpc_proc_null, 0, 0),
	[NFSPROC3_GETATTR] = RPC_PROC("GETATTR", nfs3_getattr, I, 4 + 84),
	[NFSPROC3_SETATTR] = RPC_PROC("SETATTR", changing_nfs3_setattr, B | RPC_PROC_NONIDEMPOTENT,
			       4 + 28 + ATTR),
	[NFSPROC3_LOOKUP] = RPC_PROC("LOOKUP", nfs3_lookup, I, 4 + FH + 2 * ATTR),
	[NFSPROC3_ACCESS] = RPC_PROC("ACCESS", nfs3_access, I, 4 + ATTR + 4),
	[NFSPROC3_READLINK] = RPC_PROC("READLINK", nfs3_readlink, B, 4 + ATTR + 4 + 4096),
	[NFSPROC3_READ] = RPC_PROC("READ", nfs3_read, I, 4 + ATTR + 12),
	[NFSPROC3_WRITE] = { .name = "WRITE", .handler = changing_nfs3_write,
			     .flags = I | RPC_PROC_NONIDEMPOTENT,
			     .max_reply = 4 + 28 + ATTR + 16,
			     .bulk_begin = nfs3_write_bulk_begin,
			     .bulk_end = nfs3_write_bulk_end },
	[NFSPROC3_CREATE] = RPC_PROC("CREATE", changing_nfs3_create, B | RPC_PROC_NONIDEMPOTENT,
			      4 + 4 + FH + ATTR + 28 + ATTR),
	[NFSPROC3_MKDIR] = RPC_PROC("MKDIR", nfs3_mkdir, B | N, 4 + 4 + FH + ATTR + WCC),
	[NFSPROC3_SYMLINK] = RPC_PROC("SYMLINK", nfs3_symlink, B | N, 4 + 4 + FH + ATTR + WCC),
	[NFSPROC3_MKNOD] = RPC_PROC("MKNOD", nfs3_mknod, B | N, 4 + 4 + FH + ATTR + WCC),
	[NFSPROC3_REMOVE] = RPC_PROC("REMOVE", changing_nfs3_remove, B | N, 4 + WCC),
	[NFSPROC3_RMDIR] = RPC_PROC("RMDIR", nfs3_rmdir, B | N, 4 + WCC),
	[NFSPROC3_RENAME] = RPC_PROC("RENAME", changing_nfs3_rename, B | N, 4 + 2 * WCC),
	[NFSPROC3_LINK] = RPC_PROC("LINK", changing_nfs3_link, B | N, 4 + ATTR + WCC),
	[NFSPROC3_READDIR] = RPC_PROC("READDIR", nfs3_readdir, I, NFS3_DIRMAX + 256),
	[NFSPROC3_READDIRPLUS] = RPC_PROC("READDIRPLUS", nfs3_readdirplus, I,
				   NFS3_DIRMAX + 256),
	[NFSPROC3_FSSTAT] = RPC_PROC("FSSTAT", nfs3_fsstat, B, 4 + ATTR + 52),
	[NFSPROC3_FSINFO] = RPC_PROC("FSINFO", nfs3_fsinfo, B, 4 + ATTR + 48),
	[NFSPROC3_PATHCONF] = RPC_PROC("PATHCONF", nfs3_pathconf, B, 4 + ATTR + 24),
	[NFSPROC3_COMMIT] = RPC_PROC("COMMIT", nfs3_commit, B, 4 + 28 + ATTR + 8),
};

static const struct rpc_proc mount3_procs[6] = {
	[MOUNTPROC3_NULL] = RPC_PROC("NULL", rpc_proc_null, 0, 0),
	[MOUNTPROC3_MNT] = RPC_PROC("MNT", mount3_mnt, B, 4 + FH + 8),
	[MOUNTPROC3_DUMP] = RPC_PROC("DUMP", mount3_dump, 0, 1024u * (12 + 64 + 1028) + 4),
	[MOUNTPROC3_UMNT] = RPC_PROC("UMNT", mount3_umnt, 0, 0),
	[MOUNTPROC3_UMNTALL] = RPC_PROC("UMNTALL", mount3_umntall, 0, 0),
	[MOUNTPROC3_EXPORT] = RPC_PROC("EXPORT", mount3_export, 0, 1u << 20),
};

#define NPROCS(t) (uint32_t)(sizeof(t) / sizeof((t)[0]))

const struct rpc_version nfs3_version = {
	.vers = 3, .nprocs = NPROCS(nfs3_procs), .procs = nfs3_procs,
};

const struct rpc_version mount3_version = {
	.vers = 3, .nprocs = NPROCS(mount3_procs), .procs = mount3_procs,
};
