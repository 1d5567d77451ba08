/* SPDX-License-Identifier: MIT */
/*
 * NFSv4 (RFC 7530, RFC 8881): program 100003 version 4, one procedure
 * that matters, COMPOUND, whose operations run one after the other on
 * a worker thread against the exports (export/export.h) joined in one
 * name space by the pseudo file system (export/pseudo.h).
 *
 * Minor versions 0 and 1: the COMPOUND engine (compound.c), the
 * filehandle operations and SECINFO (fh_ops.c), GETATTR, VERIFY,
 * NVERIFY, ACCESS, READLINK (attr_ops.c), READDIR (readdir.c), CREATE,
 * REMOVE, RENAME, LINK, SETATTR (ns_ops.c), the client records
 * (clients.c, client_ops.c) and their callbacks (callback.c), open and
 * lock state (state.c, state_lock.c; open_ops.c, io_ops.c, lock_ops.c),
 * the restart record and grace (recovery.c), minor version 1's sessions
 * (sessions.c, session_ops.c). Delegations are never offered; the
 * operations not written (OPENATTR, the pNFS ones, DELEGPURGE...)
 * answer NFS4ERR_NOTSUPP. Minor version 2 answers
 * NFS4ERR_MINOR_VERS_MISMATCH.
 */
#ifndef NFSX_NFS4_NFS4_H
#define NFSX_NFS4_NFS4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpc/program.h"

/* Version 4 of program 100003, for src/server to register. */
extern const struct rpc_version nfs4_version;

/*
 * nfs4_init - make the server's NFSv4 state (the tables of clients and
 * of open and lock state, and of sessions) with leases of @lease
 * seconds, and load the previous run's record of clients from
 * @state_dir (NULL: none; see recovery.h), before version 4 is served;
 * nfs4_fini frees it once no call runs.
 * Return values: 0, or -1 with @err (memory, or the record's file).
 */
int nfs4_init(uint32_t lease, const char *state_dir, char *err, size_t errlen);
void nfs4_fini(void);

/*
 * nfs4_set_delegations - offer delegations (@on, the default) or never
 * (OPEN answers OPEN_DELEGATE_NONE, and WND4_RESOURCE to a 4.1 client
 * that asked for one, as knfsd with leases disabled). Called after
 * nfs4_init, before version 4 is served.
 */
void nfs4_set_delegations(bool on);

/* Periodic work of the main thread (no NFSv4 lock held): writes what the
 * record of clients noted outside a COMPOUND's worker. */
void nfs4_sweep(void);

/* Counts of the NFSv4 server's state and caches, for statistics. */
struct nfs4_stats {
	uint64_t clients;        /* client records (confirmed or not) */
	uint64_t sessions;       /* NFSv4.1+ sessions */
	uint64_t opens;          /* open stateids */
	uint64_t locks;          /* lock stateids */
	uint64_t delegations;    /* held or being recalled */
	uint64_t slot_replays;   /* SEQUENCEs answered from the slot's reply cache (4.1+) */
	uint64_t slot_uncached;  /* retransmissions whose reply was not kept (RETRY_UNCACHED_REP) */
	uint64_t seqid_replays;  /* 4.0 seqid-bearing operations answered from the owner's last reply */
};

/*
 * nfs4_stats_get - the counts now into @st (all zero before nfs4_init
 * and after nfs4_fini; called from one thread with those, or between
 * them from any). Each table keeps its counts as it changes and hands
 * them over under its own lock, one short lock section a table, no
 * walk: cheap enough for every scrape, never in a call's way for long.
 * @opens are those in force: a 4.0 CLOSE's stateid kept for its replay
 * is not one; @clients and @sessions count those of clients whose
 * lease ran out until they are freed. The replay counts only go up.
 */
void nfs4_stats_get(struct nfs4_stats *st);

/*
 * nfs4_callbacks_start - start calling clients back (the callout
 * thread, nfs4/callback.h), after nfs4_init and once signals are
 * blocked; nfs4_fini stops it. Without it no client is ever contacted
 * (every callback path stays unknown).
 * Return values: 0, or -1 (errno set).
 */
int nfs4_callbacks_start(void);

#endif
