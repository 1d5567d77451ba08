/* SPDX-License-Identifier: MIT */
/* The NFSv3 and MOUNTv3 procedure handlers, for the tables in programs.c. */
#ifndef NFSX_NFS3_PROCS_H
#define NFSX_NFS3_PROCS_H

#include "rpc/program.h"

#define NFS3_RTMAX (1024u * 1024u)  /* READ and WRITE sizes offered */
/* READs above this run on a worker even when they could run on the loop:
 * the copies of one connection's READs then spread over CPUs while its
 * loop sends (1 MiB sequential read, 1 x 4: 2.19 -> 2.7 GiB/s). Not for
 * WRITE: there the hand-off cost more than it gave (3.0 -> 2.1 GiB/s). */
#define NFS3_INLINE_IO_MAX (128u * 1024u)
/* READs from this size up on a memory-backed export are sent from a
 * mapping of the file (nfs3_attr.c, read_mapped). */
#define NFS3_MAP_READ_MIN (64u * 1024u)
#define NFS3_WTMAX (1024u * 1024u)
#define NFS3_DIRMAX (64u * 1024u)   /* READDIR(PLUS) reply bytes served */

rpc_handler_fn nfs3_getattr, nfs3_lookup, nfs3_access, nfs3_readlink,
	nfs3_read, nfs3_readdir, nfs3_readdirplus, nfs3_fsstat, nfs3_fsinfo,
	nfs3_pathconf;
rpc_handler_fn nfs3_write, nfs3_commit, nfs3_setattr, nfs3_create;
rpc_bulk_begin_fn nfs3_write_bulk_begin;
rpc_bulk_end_fn nfs3_write_bulk_end;
rpc_handler_fn nfs3_mkdir, nfs3_symlink, nfs3_mknod, nfs3_remove, nfs3_rmdir,
	nfs3_rename, nfs3_link;

rpc_handler_fn mount3_mnt, mount3_dump, mount3_umnt, mount3_umntall,
	mount3_export;

#endif
