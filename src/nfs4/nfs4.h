/* SPDX-License-Identifier: MIT */
/*
 * NFSv4 (RFC 7530, RFC 8881): program 100003 version 4, one procedure
 * that matters, COMPOUND, whose operations run one after the other on
 * a worker thread against the exports (export/export.h) joined in one
 * name space by the pseudo file system (export/pseudo.h).
 *
 * What exists so far (minor version 0): the COMPOUND engine
 * (compound.c), the filehandle operations and SECINFO (fh_ops.c),
 * GETATTR, VERIFY, NVERIFY, ACCESS, READLINK (attr_ops.c), READDIR
 * (readdir.c), CREATE, REMOVE, RENAME, LINK, SETATTR (ns_ops.c), the
 * client records (clients.c, client_ops.c) and the callbacks to them
 * (callback.c: CB_NULL probes, CB_RECALL for the delegations to come). Every other operation of the
 * minor version answers NFS4ERR_NOTSUPP until it is written (OPEN and
 * its state, I/O, locks). Minor versions 1 and 2 answer
 * NFS4ERR_MINOR_VERS_MISMATCH until sessions exist (a 4.1 COMPOUND must
 * start with SEQUENCE).
 */
#ifndef NFSX_NFS4_NFS4_H
#define NFSX_NFS4_NFS4_H

#include "rpc/program.h"

/* Version 4 of program 100003, for src/server to register. */
extern const struct rpc_version nfs4_version;

/*
 * nfs4_init - make the server's NFSv4 state (the table of clients),
 * before version 4 is served; nfs4_fini frees it once no call runs.
 * Return values: 0, or -1 when memory is short.
 */
int nfs4_init(void);
void nfs4_fini(void);

/*
 * nfs4_callbacks_start - start calling clients back (the callout
 * thread, nfs4/callback.h), after nfs4_init and once signals are
 * blocked; nfs4_fini stops it. Without it no client is ever contacted
 * (every callback path stays unknown).
 * Return values: 0, or -1 (errno set).
 */
int nfs4_callbacks_start(void);

#endif
