/* SPDX-License-Identifier: MIT */
/*
 * libnfsx - an asynchronous NFS client library (public interface).
 *
 * DESIGN
 * - Three layers, each usable on its own:
 *   1. the version-independent RPC core: a context owning one or more
 *      TCP connections to one server, a slot table per connection, a
 *      transmit queue fair between callers, retransmission, reconnection
 *      and per-procedure statistics (nfsx_call);
 *   2. per-version operation modules built on it: MOUNT v3 and NFSv3
 *      (nfsx_mnt3_*, nfsx3_*), and NFSv4.1 (nfsx4_*): one COMPOUND
 *      procedure, a session with its slot table on top of it, nothing
 *      in the core changing, and typed wrappers for I/O by handle
 *      (nfsx4_read ...) shaped as NFSv3's;
 *   3. a synchronous, path-oriented API on top (nfsx_mount, nfsx_stat,
 *      nfsx_read, ...), which runs the context's own loop until its
 *      call completes.
 * - Event-loop integration as libnfs does it, but with one descriptor
 *   whatever the number of connections: nfsx_get_fd() returns an epoll
 *   descriptor that becomes readable whenever nfsx_service() has work
 *   (socket readable or writable, a timer due). Poll it for POLLIN and
 *   call nfsx_service() when it fires; nothing else is needed.
 * - Threads: a context is not thread-safe and is used by one thread at
 *   a time. Several threads each with their own context need no locking:
 *   the library has no global mutable state (procedure tables are const).
 * - Results: a callback receives the decoded result (e.g. READ3res *),
 *   whose strings, opaques and lists point into the reply buffer. They
 *   are valid only until the callback returns; copy what you keep.
 * - Errors: functions return 0 on success, a negative errno for local,
 *   transport or RPC-level failures (-ETIMEDOUT, -ECONNREFUSED, -EPROTO
 *   for an undecodable reply, -EACCES for an AUTH_ERROR reply,
 *   -EPROTONOSUPPORT for PROG_UNAVAIL/PROG_MISMATCH, -EOPNOTSUPP for
 *   PROC_UNAVAIL), and the sync API returns a positive nfsstat3 /
 *   mountstat3 (nfsstat4 on a version 4 context, the same numbers where
 *   they agree) when the server answered with an NFS error.
 *   nfsx_strerror() names them.
 * - NFSv4.1: a context with opts.version 4 serves the same synchronous
 *   API over a session (one per context, made on first use, destroyed
 *   by nfsx_ctx_free); nfsx_mount walks the path from the server's
 *   pseudo root, nfsx_mount_path takes for the export the deepest
 *   directory of the path where the file system (fsid) changes.
 */
#ifndef NFSX_CLIENT_NFSX_H
#define NFSX_CLIENT_NFSX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xdr/gen/mount3.h"
#include "xdr/gen/nfs3.h"
#include "xdr/gen/nfs4.h"

#ifdef __cplusplus
extern "C" {
#endif

struct nfsx_ctx;

/* ------------------------------------------------------------------ */
/* Context                                                              */

#define NFSX_MAX_GIDS 16

struct nfsx_opts {
	const char *host;        /* numeric IPv4/IPv6 address or host name */
	uint16_t port;           /* NFS port; 0: ask rpcbind on port 111 */
	uint16_t mount_port;     /* MOUNT port; 0: @port if set, else rpcbind */
	unsigned nconnect;       /* TCP connections, calls spread across them (1) */
	unsigned slots;          /* calls in flight per connection (64) */
	unsigned timeo_ms;       /* retransmit after this long without a reply (60000) */
	unsigned retrans;        /* retransmissions before -ETIMEDOUT (2) */
	unsigned max_backoff_ms; /* reconnect back-off ceiling (10000) */
	uint32_t uid, gid;       /* AUTH_SYS identity (geteuid/getegid) */
	uint32_t ngids;
	uint32_t gids[NFSX_MAX_GIDS];
	const char *machine;     /* AUTH_SYS machine name (gethostname) */
	bool privileged_port;    /* bind a source port < 1024 (needs root) */
	uint16_t rpcbind_port;   /* where to ask for ports (111) */
	uint32_t max_reply;      /* largest reply record accepted (4 MiB + 64 KiB) */
	unsigned version;        /* NFS version of the sync API: 3, or 4 (NFSv4.1/4.2) (3) */
	unsigned minor;          /* NFSv4 minor version: 1, 2, or 0 for the highest both
				  * sides speak (2, else 1 when the server answers
				  * NFS4ERR_MINOR_VERS_MISMATCH) (0) */
};

/*
 * nfsx_opts_init - fill @o with the defaults given above (supplementary
 * groups: the first 16 of getgroups()). In nfsx_ctx_new, zero nconnect,
 * slots, timeo_ms, max_backoff_ms, rpcbind_port and max_reply also mean
 * the default; nconnect is at most 16, slots at most 4096.
 */
void nfsx_opts_init(struct nfsx_opts *o);

/*
 * nfsx_ctx_new - create a context for one server. Connects lazily: the
 * first call (or nfsx_connect) starts the connections.
 * Return values: the context, or NULL with a message in @err.
 */
struct nfsx_ctx *nfsx_ctx_new(const struct nfsx_opts *o, char *err, size_t errlen);

/* nfsx_ctx_free - close connections; pending calls complete with -ECANCELED. */
void nfsx_ctx_free(struct nfsx_ctx *ctx);

/* Last error message of the context (human-readable, never NULL). */
const char *nfsx_ctx_error(const struct nfsx_ctx *ctx);

/* ------------------------------------------------------------------ */
/* Event-loop integration                                               */

/* A descriptor to poll for POLLIN; stable for the context's lifetime. */
int nfsx_get_fd(const struct nfsx_ctx *ctx);

/*
 * nfsx_service - do all I/O and timer work that is ready, without
 * blocking, running completion callbacks.
 * Return values: 0, or a negative errno if the context is unusable.
 */
int nfsx_service(struct nfsx_ctx *ctx);

/*
 * nfsx_run_once - wait up to @timeout_ms (-1: until something happens)
 * for work, then service it. Used by the sync API and simple programs.
 */
int nfsx_run_once(struct nfsx_ctx *ctx, int timeout_ms);

/* Calls queued or in flight on the context. */
unsigned nfsx_pending(const struct nfsx_ctx *ctx);

/* ------------------------------------------------------------------ */
/* RPC core                                                             */

/*
 * Completion callback. @err is 0 and @res the decoded result (type given
 * by the procedure, e.g. READ3res *) on a successful RPC, whatever the
 * NFS status inside; otherwise @err < 0 and @res is NULL. @res is also
 * NULL for procedures whose result is void (NULL, UMNT, UMNTALL).
 * A callback may queue new calls; it must not call nfsx_ctx_free,
 * nfsx_service/nfsx_run_once or the synchronous API (-EDEADLK).
 */
typedef void (*nfsx_cb)(struct nfsx_ctx *ctx, int err, void *res, void *priv);

/*
 * @enc points to a struct xdr_enc (the first member of the library's own
 * encoder, which can also carry a WRITE payload sent from the caller's
 * buffer); @dec to a struct xdr_dec whose arena is sized for the reply.
 */
typedef bool (*nfsx_encode_fn)(void *enc, const void *args);  /* struct xdr_enc * */
typedef bool (*nfsx_decode_fn)(void *dec, void *res);         /* struct xdr_dec * */

/* One remote procedure: what the core needs to call it and count it. */
struct nfsx_proc {
	uint32_t prog, vers, proc;
	const char *name;           /* "READ", "GETATTR", ... as mountstats prints */
	nfsx_encode_fn encode;
	nfsx_decode_fn decode;
	size_t res_size;            /* sizeof the result struct */
	bool idempotent;            /* informational; retransmission is by xid anyway */
	/* @decode sets every field a caller may read (the COMPOUND's: its
	 * head and the results it holds), so the core does not zero the
	 * result first; otherwise the result starts zeroed */
	bool decode_inits;
	/* the result starts with its status (nfsstat3, nfsstat4,
	 * mountstat3): a call whose status is not 0 counts in errors, as
	 * mountstats counts a call the server answered with an error */
	bool res_status;
};

/*
 * nfsx_call - queue a call of @p with @args. @args (and any buffer it
 * points to, such as WRITE data) must stay valid until @cb runs.
 * @cb runs from nfsx_service()/nfsx_run_once(), never from inside
 * nfsx_call().
 * Calls are retransmitted with the same xid after timeo_ms without a
 * reply, fail with -ETIMEDOUT after @retrans retransmissions, and are
 * replayed on a new connection when theirs breaks. While the context has
 * never reached the server, a refused connection fails the queued calls
 * at once (-ECONNREFUSED); afterwards it is retried with back-off and
 * calls wait for their timeouts.
 * Return values: 0 queued, -ENOMEM, -ESHUTDOWN (context being freed),
 * -EINVAL (@args cannot be encoded, e.g. a name over 255 bytes).
 */
int nfsx_call(struct nfsx_ctx *ctx, const struct nfsx_proc *p, const void *args,
	      nfsx_cb cb, void *priv);

/*
 * A caller identity for fairness: calls submitted under different
 * owners are transmitted round-robin, so one owner with 1000 queued
 * calls does not delay another owner's one call behind all of them.
 * Owner 0 is the default. (nfsx bench gives each job its own context;
 * owners are for callers sharing one context.)
 */
int nfsx_call_owner(struct nfsx_ctx *ctx, unsigned owner, const struct nfsx_proc *p,
		    const void *args, nfsx_cb cb, void *priv);

/* ------------------------------------------------------------------ */
/* MOUNT v3 and NFSv3 (raw, asynchronous)                               */

/* Procedure tables, indexed by procedure number. */
extern const struct nfsx_proc nfsx_mnt3_procs[MOUNTPROC3_EXPORT + 1];
extern const struct nfsx_proc nfsx_nfs3_procs[NFSPROC3_COMMIT + 1];

/* Typed wrappers: res is GETATTR3res * etc. in the callback. */
int nfsx3_null(struct nfsx_ctx *c, nfsx_cb cb, void *priv);
int nfsx3_getattr(struct nfsx_ctx *c, const struct GETATTR3args *a, nfsx_cb cb, void *priv);
int nfsx3_setattr(struct nfsx_ctx *c, const struct SETATTR3args *a, nfsx_cb cb, void *priv);
int nfsx3_lookup(struct nfsx_ctx *c, const struct LOOKUP3args *a, nfsx_cb cb, void *priv);
int nfsx3_access(struct nfsx_ctx *c, const struct ACCESS3args *a, nfsx_cb cb, void *priv);
int nfsx3_readlink(struct nfsx_ctx *c, const struct READLINK3args *a, nfsx_cb cb, void *priv);
int nfsx3_read(struct nfsx_ctx *c, const struct READ3args *a, nfsx_cb cb, void *priv);
int nfsx3_write(struct nfsx_ctx *c, const struct WRITE3args *a, nfsx_cb cb, void *priv);
int nfsx3_create(struct nfsx_ctx *c, const struct CREATE3args *a, nfsx_cb cb, void *priv);
int nfsx3_mkdir(struct nfsx_ctx *c, const struct MKDIR3args *a, nfsx_cb cb, void *priv);
int nfsx3_symlink(struct nfsx_ctx *c, const struct SYMLINK3args *a, nfsx_cb cb, void *priv);
int nfsx3_mknod(struct nfsx_ctx *c, const struct MKNOD3args *a, nfsx_cb cb, void *priv);
int nfsx3_remove(struct nfsx_ctx *c, const struct REMOVE3args *a, nfsx_cb cb, void *priv);
int nfsx3_rmdir(struct nfsx_ctx *c, const struct RMDIR3args *a, nfsx_cb cb, void *priv);
int nfsx3_rename(struct nfsx_ctx *c, const struct RENAME3args *a, nfsx_cb cb, void *priv);
int nfsx3_link(struct nfsx_ctx *c, const struct LINK3args *a, nfsx_cb cb, void *priv);
int nfsx3_readdir(struct nfsx_ctx *c, const struct READDIR3args *a, nfsx_cb cb, void *priv);
int nfsx3_readdirplus(struct nfsx_ctx *c, const struct READDIRPLUS3args *a, nfsx_cb cb, void *priv);
int nfsx3_fsstat(struct nfsx_ctx *c, const struct FSSTAT3args *a, nfsx_cb cb, void *priv);
int nfsx3_fsinfo(struct nfsx_ctx *c, const struct FSINFO3args *a, nfsx_cb cb, void *priv);
int nfsx3_pathconf(struct nfsx_ctx *c, const struct PATHCONF3args *a, nfsx_cb cb, void *priv);
int nfsx3_commit(struct nfsx_ctx *c, const struct COMMIT3args *a, nfsx_cb cb, void *priv);

int nfsx_mnt3_null(struct nfsx_ctx *c, nfsx_cb cb, void *priv);
int nfsx_mnt3_mnt(struct nfsx_ctx *c, const dirpath3 *path, nfsx_cb cb, void *priv);
int nfsx_mnt3_dump(struct nfsx_ctx *c, nfsx_cb cb, void *priv);
int nfsx_mnt3_umnt(struct nfsx_ctx *c, const dirpath3 *path, nfsx_cb cb, void *priv);
int nfsx_mnt3_umntall(struct nfsx_ctx *c, nfsx_cb cb, void *priv);
int nfsx_mnt3_export(struct nfsx_ctx *c, nfsx_cb cb, void *priv);

/* ------------------------------------------------------------------ */
/* NFSv4.1 (raw, asynchronous)                                          */

/*
 * A COMPOUND (procedure 1 of program 100003 version 4). Replies carry at
 * most NFSX4_MAX_OPS results: a reply with more, with results that do
 * not answer the operations sent in order, or that does not decode
 * exactly to its last byte fails with -EPROTO. In a struct nfsx4_res,
 * ops[0] to ops[nops - 1] are the results; the entries after them are
 * undefined.
 */
#define NFSX4_MAX_OPS 16

struct nfsx4_args {
	struct xdr_bytes tag;
	uint32_t minorversion;
	uint32_t nops;
	const struct nfs_argop4 *ops;
};

struct nfsx4_res {
	enum nfsstat4 status;
	struct xdr_bytes tag;
	uint32_t nops;
	struct nfs_resop4 ops[NFSX4_MAX_OPS];
};

/* The COMPOUND procedure; statistics per COMPOUND are kept under it. */
extern const struct nfsx_proc nfsx_nfs4_compound;
/*
 * One descriptor per operation number, the key of the per-operation
 * statistics: nfsx_stats_get(c, &nfsx_nfs4_ops[OP_READ]) counts READ
 * results received inside COMPOUNDs. A COMPOUND sent by a typed wrapper
 * (nfsx4_read ...) is submitted under its operation's descriptor (each
 * is the COMPOUND procedure), so that entry also holds its
 * transmissions, bytes and queue/RTT/execute times, as mountstats
 * counts NFSv4 calls; other results add to ops only (their times and
 * bytes are their COMPOUND's).
 */
extern const struct nfsx_proc nfsx_nfs4_ops[OP_REMOVEXATTR + 1];

/*
 * nfsx4_decode_res - decode a COMPOUND4res (@dec a struct xdr_dec *),
 * bounded as described above (the fuzz target's entry point).
 * Return values: true when it decoded exactly.
 */
bool nfsx4_decode_res(void *dec, void *res);

/*
 * nfsx4_compound - queue a COMPOUND of @nops operations outside any
 * session (EXCHANGE_ID, CREATE_SESSION, DESTROY_*); @ops must stay
 * valid until @cb. @res in @cb is a struct nfsx4_res *.
 * Return values: as nfsx_call(); -E2BIG over NFSX4_MAX_OPS operations.
 */
int nfsx4_compound(struct nfsx_ctx *c, uint32_t minor, const struct nfs_argop4 *ops,
		   uint32_t nops, nfsx_cb cb, void *priv);

/*
 * nfsx4_session_open - EXCHANGE_ID (an owner unique to this context),
 * CREATE_SESSION, RECLAIM_COMPLETE; waits (synchronous). The sync API
 * calls it on its first use of a version 4 context. With a session up
 * it does nothing; while the library recovers a lost one it waits for
 * that; after a recovery failed it tries again.
 * Return values: 0, a negative errno, or the nfsstat4 that failed.
 */
int nfsx4_session_open(struct nfsx_ctx *c);

/*
 * nfsx4_call - queue @ops (at most NFSX4_MAX_OPS - 1) in a COMPOUND of
 * the context's session, behind a SEQUENCE on a free slot of the fore
 * channel; the COMPOUND waits in the context for a slot when all are
 * busy. @res in @cb is the struct nfsx4_res with SEQUENCE's result
 * first. The slot's sequence id moves on only when SEQUENCE succeeded.
 * Return values: 0, -ENOTCONN without a session, or as nfsx4_compound.
 */
int nfsx4_call(struct nfsx_ctx *c, const struct nfs_argop4 *ops, uint32_t nops,
	       nfsx_cb cb, void *priv);

/*
 * Typed wrappers over the session, the NFSv4.1 counterparts of nfsx3_*
 * for I/O by handle: each is one COMPOUND of SEQUENCE, PUTFH @fh and the
 * operation, and @res in @cb is that operation's result (OPEN4res *,
 * CLOSE4res *, READ4res *, WRITE4res *, COMMIT4res *, GETATTR4res *),
 * with the COMPOUND's status in it when the server stopped before the
 * operation (PUTFH failed). As many are in flight as the session has
 * slots; the rest wait in the context for a slot (never blocking).
 * NFS4ERR_DELAY is retried with back-off (10 ms doubling to 1 s, for up
 * to timeo) and a lost session (BADSESSION, DEADSESSION,
 * SEQ_MISORDERED) is made again, without blocking, and the COMPOUND sent
 * again once: @cb sees the outcome after that, or -ENOTCONN if no new
 * session could be made. Statistics: each is counted, transmissions,
 * bytes and times included, under &nfsx_nfs4_ops[OP_READ] etc.
 * @a and what it points to (handle, WRITE data, attribute bitmap) must
 * stay valid until @cb; WRITE data are sent from the caller's buffer.
 * The session must exist (nfsx4_session_open, or any synchronous call).
 * Return values: 0 queued, -ENOTCONN without a session, -ENOMEM, or as
 * nfsx_call().
 */
struct nfsx4_open_args {
	nfs_fh4 fh;
	uint32_t share_access;     /* OPEN4_SHARE_ACCESS_READ/WRITE/BOTH */
	uint32_t share_deny;       /* OPEN4_SHARE_DENY_NONE ... */
};
struct nfsx4_close_args {
	nfs_fh4 fh;
	struct stateid4 stateid;
};
struct nfsx4_read_args {
	nfs_fh4 fh;
	struct READ4args args;
};
struct nfsx4_write_args {
	nfs_fh4 fh;
	struct WRITE4args args;
};
struct nfsx4_commit_args {
	nfs_fh4 fh;
	struct COMMIT4args args;
};
struct nfsx4_getattr_args {
	nfs_fh4 fh;
	struct GETATTR4args args;
};
/*
 * OPEN of an existing file by handle (CLAIM_FH), no delegation wanted
 * unless share_access carries a want (see nfsx4_cb_stats below);
 * close it with nfsx4_close. A context has one open-owner: two opens of
 * a file share one stateid, and one close ends both. After the server
 * restarted the open is reclaimed and its stateid stays good (see
 * nfsx4_recover_stats below).
 */
int nfsx4_open(struct nfsx_ctx *c, const struct nfsx4_open_args *a, nfsx_cb cb, void *priv);
int nfsx4_close(struct nfsx_ctx *c, const struct nfsx4_close_args *a, nfsx_cb cb, void *priv);
int nfsx4_read(struct nfsx_ctx *c, const struct nfsx4_read_args *a, nfsx_cb cb, void *priv);
int nfsx4_write(struct nfsx_ctx *c, const struct nfsx4_write_args *a, nfsx_cb cb, void *priv);
int nfsx4_commit(struct nfsx_ctx *c, const struct nfsx4_commit_args *a, nfsx_cb cb, void *priv);
int nfsx4_getattr(struct nfsx_ctx *c, const struct nfsx4_getattr_args *a, nfsx_cb cb,
		  void *priv);

/*
 * nfsx4_clientid - the session's client id, for diagnostics.
 * Return values: the client id, or 0 without a session.
 */
uint64_t nfsx4_clientid(const struct nfsx_ctx *c);

/*
 * nfsx4_minor - the minor version of the context's session (1 or 2,
 * after a negotiation when the options asked for 0), or 0 while there is
 * no session.
 */
unsigned nfsx4_minor(const struct nfsx_ctx *c);

/*
 * Recovery of state after the server restarted. When a session recovery
 * needed a new client id (the old one STALE), the library reclaims in
 * the server's grace period every open nfsx4_open made and the context
 * has not closed (OPEN CLAIM_PREVIOUS with the same modes and the
 * delegation held), then every byte-range lock (LOCK reclaim), then
 * RECLAIM_COMPLETE, before any other COMPOUND of the context goes out.
 * The caller keeps its stateids: the library sends the server's new
 * ones in their place. An open or lock the server refuses to give back
 * (NO_GRACE, RECLAIM_BAD: no grace for this client) is lost: a call
 * with its stateids fails with -EIO without being sent (a CLOSE too,
 * which forgets it). NFS4ERR_GRACE on any other operation is retried
 * with back-off for up to timeo, like NFS4ERR_DELAY.
 */
struct nfsx4_recover_stats {
	uint64_t reclaims;           /* recoveries that reclaimed state */
	uint64_t opens_reclaimed;    /* OPEN CLAIM_PREVIOUS that succeeded */
	uint64_t locks_reclaimed;    /* byte ranges LOCK reclaim took again */
	uint64_t opens_lost;         /* opens the server refused to give back */
	uint64_t locks_lost;         /* byte ranges likewise */
	uint64_t grace_retries;      /* COMPOUNDs sent again after NFS4ERR_GRACE */
	uint64_t lost_io;            /* calls failed with -EIO for lost state */
	uint64_t opens_held;         /* files open in the context now */
};

/*
 * nfsx4_recover_stats_get - the context's recovery counters into @st.
 * Return values: 0, or -ENOTCONN (zeros) without an NFSv4 session.
 */
int nfsx4_recover_stats_get(const struct nfsx_ctx *c, struct nfsx4_recover_stats *st);

/*
 * The back channel and delegations. The session is made with a back
 * channel on the connection that carries CREATE_SESSION; the library
 * answers the server's calls on it itself, from nfsx_service: CB_NULL,
 * and CB_COMPOUND of CB_SEQUENCE and CB_RECALL. An OPEN asks for a
 * delegation only when its share_access carries a want
 * (OPEN4_SHARE_ACCESS_WANT_READ_DELEG, _WANT_WRITE_DELEG or
 * _WANT_ANY_DELEG; nfsx4_open, nfsx4_call); without one it asks for none
 * (WANT_NO_DELEG). A delegation granted (OPEN4res's delegation, which
 * the caller sees) is tracked by the library by its stateid: a recall
 * is answered NFS4_OK and the delegation returned (DELEGRETURN) at once;
 * a recall of a stateid the library does not hold is answered
 * NFS4ERR_BAD_STATEID. The DELEGRETURN waits for the WRITEs of that file
 * the caller has handed to the library (queued or in flight); libnfsx
 * caches no data, so data not handed over yet is the caller's to write
 * first (it is not told of the recall). Delegations still held are returned
 * by nfsx_ctx_free. A caller may DELEGRETURN one itself (nfsx4_call).
 * When a connection is lost (or SEQUENCE says the callback path is
 * down) the library binds the back channel again with
 * BIND_CONN_TO_SESSION, which reconnects at once even while idle.
 */
struct nfsx4_cb_stats {
	bool back_chan;              /* the server bound the back channel */
	uint64_t calls;              /* RPC calls received on it */
	uint64_t nulls;              /* CB_NULL answered */
	uint64_t compounds;          /* CB_COMPOUND answered, retries included */
	uint64_t replays;            /* CB_SEQUENCE retries answered from the slot's cache */
	uint64_t rpc_errors;         /* answered with an RPC-level error */
	uint64_t dropped;            /* not answered: not a decodable call header */
	uint64_t recalls;            /* CB_RECALL of a delegation held (NFS4_OK) */
	uint64_t recalls_unknown;    /* CB_RECALL answered NFS4ERR_BAD_STATEID */
	uint64_t offloads;           /* CB_OFFLOAD of an asynchronous COPY taken */
	uint64_t delegs_got;         /* delegations granted to the context */
	uint64_t delegs_returned;    /* DELEGRETURN succeeded (recall or caller) */
	uint64_t delegs_return_failed; /* DELEGRETURN refused or never sent */
	uint32_t delegs_held;        /* held now, a return under way included */
	uint64_t rebinds;            /* BIND_CONN_TO_SESSION after a connection was lost */
};

/*
 * nfsx4_cb_stats_get - the back channel's counters into @st.
 * Return values: 0, or -ENOTCONN before the context had a session.
 */
int nfsx4_cb_stats_get(const struct nfsx_ctx *c, struct nfsx4_cb_stats *st);

/* ------------------------------------------------------------------ */
/* Synchronous, path-oriented API                                       */

/* The largest handle: NFSv4's limit, NFS4_FHSIZE (128; NFSv3's is 64). */
#define NFSX_FH_MAX NFS4_FHSIZE

struct nfsx_fh {
	uint32_t len;
	uint8_t data[NFSX_FH_MAX];
};

/* File attributes, decoded from fattr3 (and later fattr4). */
struct nfsx_attr {
	uint32_t type;          /* ftype3 values: NF3REG, NF3DIR, ... */
	uint32_t mode, nlink, uid, gid;
	uint64_t size, used, fsid, fileid;
	uint32_t rdev_major, rdev_minor;
	int64_t atime_ns, mtime_ns, ctime_ns;   /* since the epoch */
};

/*
 * nfsx_url_parse - split "nfs://host[:port]/path[?opt=v&...]" into
 * options and a path. Options: uid, gid, version (3; 4.1 or 4.2: that
 * NFSv4 minor version; 4: the highest both sides speak; u->version 4
 * and u->opts.minor 1, 2 or 0 for those), nconnect,
 * mountport, timeo (ms), retrans. Unknown options are an error. The
 * path is percent-decoded; host may be [IPv6]. u->opts.host points to
 * u->host: re-point it if the struct is copied.
 * Return values: 0, or -EINVAL with a message in @err.
 */
struct nfsx_url {
	char host[256];
	uint16_t port;
	char path[4096];
	unsigned version;
	struct nfsx_opts opts;   /* filled from nfsx_opts_init + the URL */
};
int nfsx_url_parse(const char *url, struct nfsx_url *u, char *err, size_t errlen);

/*
 * nfsx_mount - MNT @exp and remember its root handle in the context.
 * nfsx_mount_path - find the export that is the longest prefix of @path
 * (from the server's EXPORT list), mount it and return the rest of the
 * path in @rest (pointing into @path).
 */
int nfsx_mount(struct nfsx_ctx *c, const char *exp, struct nfsx_fh *root);
int nfsx_mount_path(struct nfsx_ctx *c, const char *path, struct nfsx_fh *root,
		    const char **rest);
int nfsx_umount(struct nfsx_ctx *c);

/*
 * Path helpers; paths are relative to the mounted root, '/'-separated;
 * empty components and "." are skipped, ".." is looked up like any name,
 * symlinks are not followed. -ENOTCONN when nothing is mounted.
 */
int nfsx_resolve(struct nfsx_ctx *c, const char *path, struct nfsx_fh *fh,
		 struct nfsx_attr *attr);
int nfsx_mkdir_p(struct nfsx_ctx *c, const char *path, uint32_t mode, struct nfsx_fh *fh);

struct nfsx_dirent {
	const char *name;        /* valid during the callback */
	uint64_t fileid, cookie;
	bool has_attr;
	struct nfsx_attr attr;
	struct nfsx_fh fh;       /* len 0 when the server gave none */
};
/*
 * Called per entry ("." and ".." included), after each page was copied
 * out of the reply, so it may use the synchronous API; return non-zero
 * to stop (nfsx_readdir/nfsx_walk then return that value).
 */
typedef int (*nfsx_dirent_fn)(const struct nfsx_dirent *e, void *priv);
int nfsx_readdir(struct nfsx_ctx *c, const struct nfsx_fh *dir, bool plus,
		 nfsx_dirent_fn fn, void *priv);

/* Depth-first walk below @path; @fn gets the path relative to @path. */
typedef int (*nfsx_walk_fn)(const char *relpath, const struct nfsx_dirent *e, void *priv);
int nfsx_walk(struct nfsx_ctx *c, const char *path, nfsx_walk_fn fn, void *priv);

/*
 * One call each. nfsx_read/nfsx_write issue a single READ/WRITE: *got or
 * *written may be less than @len (at most the server's rtmax/wtmax).
 * nfsx_create with @exclusive uses EXCLUSIVE (a random verifier) and
 * sets @mode with a SETATTR afterwards, else UNCHECKED. Handles and
 * attributes are copied out; out-pointers may be NULL.
 */
int nfsx_getattr(struct nfsx_ctx *c, const struct nfsx_fh *fh, struct nfsx_attr *attr);
int nfsx_lookup(struct nfsx_ctx *c, const struct nfsx_fh *dir, const char *name,
		struct nfsx_fh *fh, struct nfsx_attr *attr);
int nfsx_read(struct nfsx_ctx *c, const struct nfsx_fh *fh, uint64_t off, void *buf,
	      uint32_t len, uint32_t *got, bool *eof);
int nfsx_write(struct nfsx_ctx *c, const struct nfsx_fh *fh, uint64_t off, const void *buf,
	       uint32_t len, enum stable_how how, uint32_t *written, uint8_t verf[NFS3_WRITEVERFSIZE]);
/*
 * nfsx_read_plus - nfsx_read by READ_PLUS (NFSv4.2: PUTFH, OPEN, READ_PLUS,
 * CLOSE): data at its place in @buf, holes as zeros, @hole_bytes of
 * them (nfsx4_read_plus_fill). -EOPNOTSUPP on NFSv3 or an NFSv4.1
 * session, nothing sent; a server without it answers NFS4ERR_NOTSUPP.
 */
int nfsx_read_plus(struct nfsx_ctx *c, const struct nfsx_fh *fh, uint64_t off, void *buf,
		   uint32_t len, uint32_t *got, bool *eof, uint32_t *hole_bytes);
int nfsx_commit(struct nfsx_ctx *c, const struct nfsx_fh *fh, uint8_t verf[NFS3_WRITEVERFSIZE]);
int nfsx_create(struct nfsx_ctx *c, const struct nfsx_fh *dir, const char *name,
		uint32_t mode, bool exclusive, struct nfsx_fh *fh);
int nfsx_truncate(struct nfsx_ctx *c, const struct nfsx_fh *fh, uint64_t size);
int nfsx_mkdir(struct nfsx_ctx *c, const struct nfsx_fh *dir, const char *name,
	       uint32_t mode, struct nfsx_fh *fh);
int nfsx_remove(struct nfsx_ctx *c, const struct nfsx_fh *dir, const char *name);
int nfsx_rmdir(struct nfsx_ctx *c, const struct nfsx_fh *dir, const char *name);
int nfsx_fsinfo(struct nfsx_ctx *c, const struct nfsx_fh *root, uint32_t *rtmax,
		uint32_t *wtmax, uint32_t *dtpref);

/*
 * MOUNT's status values overlap NFS's (MNT3ERR_ACCES == NFS3ERR_ACCES), so
 * the sync API returns a MOUNT failure as NFSX_MNT3ERR(status), above
 * every nfsstat3, and nfsx_strerror names it "MNT3ERR_...".
 */
#define NFSX_MNT3ERR_BASE 0x100000
#define NFSX_MNT3ERR(s) (NFSX_MNT3ERR_BASE + (int)(s))

/* "NFS3ERR_NOENT (2): no such file or directory", or strerror for < 0. */
const char *nfsx_strerror(int err);

/* ------------------------------------------------------------------ */
/* Attributes, names, links and locks                                   */

/* What nfsx_setattr and nfsx4_sattr_encode set: NFSX_SET_* bits. */
#define NFSX_SET_MODE 0x01
#define NFSX_SET_UID 0x02
#define NFSX_SET_GID 0x04
#define NFSX_SET_SIZE 0x08
#define NFSX_SET_ATIME 0x10        /* to atime_ns */
#define NFSX_SET_MTIME 0x20        /* to mtime_ns */
#define NFSX_SET_ATIME_NOW 0x40    /* to the server's clock (over NFSX_SET_ATIME) */
#define NFSX_SET_MTIME_NOW 0x80

struct nfsx_sattr {
	uint32_t set;              /* NFSX_SET_* */
	uint32_t mode;             /* permission bits, 07777 at most */
	uint32_t uid, gid;         /* sent over NFSv4 as numeric owner strings */
	uint64_t size;
	int64_t atime_ns, mtime_ns;   /* since the epoch */
};

/*
 * nfsx4_sattr_encode - @s as a fattr4 for SETATTR (or a create's
 * attributes): the bitmap of what @s->set names (FATTR4_SIZE, MODE,
 * OWNER, OWNER_GROUP, TIME_ACCESS_SET, TIME_MODIFY_SET) and the values
 * in ascending attribute order (RFC 8881 5.7), into @b, to which @out
 * then points (@b must outlive its use).
 * Return values: 0, or -EINVAL (a mode over 07777 or an unknown
 * NFSX_SET_* bit).
 */
struct nfsx4_sattr_buf {
	uint32_t mask[2];
	uint8_t vals[96];
};
int nfsx4_sattr_encode(const struct nfsx_sattr *s, struct nfsx4_sattr_buf *b,
		       struct fattr4 *out);

/*
 * More typed NFSv4.1 wrappers, in the shape of nfsx4_read above: one
 * COMPOUND each, NC4-style retries and recovery, the operation's own
 * result in @cb (with the COMPOUND's status in a stand-in when the
 * server stopped before it) and statistics under its operation's
 * descriptor (&nfsx_nfs4_ops[OP_SETATTR] ...). @a and what it points
 * to stay valid until @cb.
 * - nfsx4_setattr: PUTFH, SETATTR (SETATTR4res *). args.stateid: the
 *   anonymous stateid (all zeros) or an open or lock stateid that covers
 *   a change of size; args.obj_attributes from nfsx4_sattr_encode.
 * - nfsx4_access: PUTFH, ACCESS (ACCESS4res *).
 * - nfsx4_open_downgrade: PUTFH, OPEN_DOWNGRADE (OPEN_DOWNGRADE4res *);
 *   args.seqid is ignored by NFSv4.1 servers (0).
 * - nfsx4_lock: PUTFH, LOCK (LOCK4res *). The context has one
 *   lock-owner, as it has one open-owner, for all its files and as long
 *   as it lives: the first LOCK of a file passes @new_owner with the
 *   open stateid (open_to_lock_owner4), later ones the lock stateid the
 *   first returned (exist_lock_owner4). NFS4ERR_DENIED's result holds
 *   the conflicting lock (range, type, owner). Two locks of the context
 *   never conflict with each other (one owner): conflicts are between
 *   contexts or clients.
 * - nfsx4_lockt: PUTFH, LOCKT with the context's lock-owner (LOCKT4res *,
 *   NFS4ERR_DENIED with the conflicting lock).
 * - nfsx4_locku: PUTFH, LOCKU (LOCKU4res *).
 * - nfsx4_rename: PUTFH @src_dir, SAVEFH, PUTFH @dst_dir, RENAME
 *   (RENAME4res *); nfsx4_link: PUTFH @fh, SAVEFH, PUTFH @dir, LINK
 *   (LINK4res *).
 * - nfsx4_readlink: PUTFH, READLINK (READLINK4res *, the target not
 *   NUL-terminated).
 * - nfsx4_lookupp: PUTFH, LOOKUPP, GETFH: the parent's handle in the
 *   GETFH4res * (NFS4ERR_NOENT at the server's root, in the stand-in).
 * Return values: as nfsx4_read; -EINVAL for a name over 255 bytes.
 */
struct nfsx4_setattr_args {
	nfs_fh4 fh;
	struct SETATTR4args args;
};
struct nfsx4_access_args {
	nfs_fh4 fh;
	struct ACCESS4args args;
};
struct nfsx4_open_downgrade_args {
	nfs_fh4 fh;
	struct OPEN_DOWNGRADE4args args;
};
struct nfsx4_lock_args {
	nfs_fh4 fh;
	enum nfs_lock_type4 locktype;   /* READ_LT, WRITE_LT (or the _W kinds) */
	uint64_t offset, length;        /* length NFS4_UINT64_MAX: to the end */
	bool new_owner;                 /* the first LOCK of the file by the context */
	struct stateid4 stateid;        /* the open stateid if new_owner, else the lock stateid */
};
struct nfsx4_lockt_args {
	nfs_fh4 fh;
	enum nfs_lock_type4 locktype;
	uint64_t offset, length;
};
struct nfsx4_locku_args {
	nfs_fh4 fh;
	struct LOCKU4args args;
};
struct nfsx4_rename_args {
	nfs_fh4 src_dir;
	component4 oldname;
	nfs_fh4 dst_dir;
	component4 newname;
};
struct nfsx4_link_args {
	nfs_fh4 fh;                     /* the existing file */
	nfs_fh4 dir;
	component4 newname;
};
struct nfsx4_readlink_args {
	nfs_fh4 fh;
};
struct nfsx4_lookupp_args {
	nfs_fh4 fh;
};
int nfsx4_setattr(struct nfsx_ctx *c, const struct nfsx4_setattr_args *a, nfsx_cb cb,
		  void *priv);
int nfsx4_access(struct nfsx_ctx *c, const struct nfsx4_access_args *a, nfsx_cb cb, void *priv);
int nfsx4_open_downgrade(struct nfsx_ctx *c, const struct nfsx4_open_downgrade_args *a,
			 nfsx_cb cb, void *priv);
int nfsx4_lock(struct nfsx_ctx *c, const struct nfsx4_lock_args *a, nfsx_cb cb, void *priv);
int nfsx4_lockt(struct nfsx_ctx *c, const struct nfsx4_lockt_args *a, nfsx_cb cb, void *priv);
int nfsx4_locku(struct nfsx_ctx *c, const struct nfsx4_locku_args *a, nfsx_cb cb, void *priv);
int nfsx4_rename(struct nfsx_ctx *c, const struct nfsx4_rename_args *a, nfsx_cb cb, void *priv);
int nfsx4_link(struct nfsx_ctx *c, const struct nfsx4_link_args *a, nfsx_cb cb, void *priv);
int nfsx4_readlink(struct nfsx_ctx *c, const struct nfsx4_readlink_args *a, nfsx_cb cb,
		   void *priv);
int nfsx4_lookupp(struct nfsx_ctx *c, const struct nfsx4_lookupp_args *a, nfsx_cb cb,
		  void *priv);

/* NFSv4.2 (RFC 7862, RFC 8276), asynchronous                          */

/*
 * The NFSv4.2 operations, each one COMPOUND as the wrappers above
 * (SEQUENCE, PUTFH, the operation; CLONE and COPY: PUTFH of the source,
 * SAVEFH, PUTFH of the destination, the operation), under the
 * operation's descriptor of nfsx_nfs4_ops (statistics), with the same
 * retries. The callback gets the operation's result (READ_PLUS4res *,
 * SEEK4res *, ...; a stand-in with the COMPOUND's status when the server
 * stopped before it). A session of minor version 1 sends none of them:
 * -EOPNOTSUPP at once; a server that does not do one answers
 * NFS4ERR_NOTSUPP (10004) in the result.
 *
 * nfsx4_read_plus: READ_PLUS; its result is read with
 * nfsx4_read_plus_fill. nfsx4_copy: COPY, synchronous (ca_synchronous,
 * ca_consecutive; no source server: an intra-server copy); the result's
 * cr_response.wr_count is what was copied. The xattr names are the
 * "user." namespace's without the prefix (RFC 8276 3).
 */
struct nfsx4_read_plus_args {
	nfs_fh4 fh;
	struct READ_PLUS4args args;
};
struct nfsx4_seek_args {
	nfs_fh4 fh;
	struct SEEK4args args;
};
struct nfsx4_allocate_args {
	nfs_fh4 fh;
	struct ALLOCATE4args args;
};
struct nfsx4_deallocate_args {
	nfs_fh4 fh;
	struct DEALLOCATE4args args;
};
struct nfsx4_clone_args {
	nfs_fh4 src, dst;
	struct CLONE4args args;
};
struct nfsx4_copy_args {
	nfs_fh4 src, dst;
	struct stateid4 src_stateid, dst_stateid;
	uint64_t src_offset, dst_offset, count;
};
struct nfsx4_getxattr_args {
	nfs_fh4 fh;
	xattrkey4 name;
};
struct nfsx4_setxattr_args {
	nfs_fh4 fh;
	struct SETXATTR4args args;
};
struct nfsx4_listxattrs_args {
	nfs_fh4 fh;
	struct LISTXATTRS4args args;
};
struct nfsx4_removexattr_args {
	nfs_fh4 fh;
	xattrkey4 name;
};
int nfsx4_read_plus(struct nfsx_ctx *c, const struct nfsx4_read_plus_args *a, nfsx_cb cb,
		    void *priv);
int nfsx4_seek(struct nfsx_ctx *c, const struct nfsx4_seek_args *a, nfsx_cb cb, void *priv);
int nfsx4_allocate(struct nfsx_ctx *c, const struct nfsx4_allocate_args *a, nfsx_cb cb,
		   void *priv);
int nfsx4_deallocate(struct nfsx_ctx *c, const struct nfsx4_deallocate_args *a, nfsx_cb cb,
		     void *priv);
int nfsx4_clone(struct nfsx_ctx *c, const struct nfsx4_clone_args *a, nfsx_cb cb, void *priv);
int nfsx4_copy(struct nfsx_ctx *c, const struct nfsx4_copy_args *a, nfsx_cb cb, void *priv);
int nfsx4_getxattr(struct nfsx_ctx *c, const struct nfsx4_getxattr_args *a, nfsx_cb cb,
		   void *priv);
int nfsx4_setxattr(struct nfsx_ctx *c, const struct nfsx4_setxattr_args *a, nfsx_cb cb,
		   void *priv);
int nfsx4_listxattrs(struct nfsx_ctx *c, const struct nfsx4_listxattrs_args *a, nfsx_cb cb,
		     void *priv);
int nfsx4_removexattr(struct nfsx_ctx *c, const struct nfsx4_removexattr_args *a, nfsx_cb cb,
		      void *priv);

/*
 * nfsx4_copy_async - COPY without ca_synchronous: the server may answer
 * at once or later by CB_OFFLOAD on the back channel (which may even come
 * before the COPY's reply); either way the callback gets, once, a
 * struct nfsx4_copy_done. A session that ends first fails it with
 * -ECANCELED.
 */
struct nfsx4_copy_done {
	enum nfsstat4 status;        /* COPY's, or CB_OFFLOAD's coa_status */
	uint64_t count;              /* bytes copied (also on failure by CB_OFFLOAD) */
	enum stable_how4 committed;
	verifier4 verf;
	bool offloaded;              /* the outcome came by CB_OFFLOAD */
};
int nfsx4_copy_async(struct nfsx_ctx *c, const struct nfsx4_copy_args *a, nfsx_cb cb,
		     void *priv);

/* What nfsx4_read_plus_fill found in a READ_PLUS result. */
struct nfsx4_read_plus_out {
	uint32_t count;      /* bytes of the range answered from @offset, data and holes */
	uint32_t hole_bytes; /* of them, holes (written as zeros) */
	uint32_t segments;   /* contents in the result */
	bool eof;
};

/*
 * nfsx4_read_plus_fill - the contents of a READ_PLUS result, for the
 * READ_PLUS of @count bytes at @offset, into @buf (@count bytes): each
 * data segment's bytes at its place, each hole as zeros (a hole that
 * starts before @offset or runs past the range is cut to it). The
 * segments must follow one another from @offset without a gap or an
 * overlap, data within the range; else -EPROTO and @buf's contents are
 * undefined. @buf NULL: the same checks and counts, nothing written (a
 * caller that reads the data segments where they are, in the reply, as
 * READ's data are read). Call it from the callback (the data are views
 * into the reply).
 * Return values: 0, the result's nfsstat4 when not NFS4_OK, or -EPROTO.
 */
int nfsx4_read_plus_fill(const struct READ_PLUS4res *res, uint64_t offset, uint32_t count,
			 void *buf, struct nfsx4_read_plus_out *out);

/*
 * The synchronous counterparts, over NFSv3 (SETATTR, RENAME, LINK,
 * READLINK) or NFSv4.1 (the wrappers above), waited for:
 * nfsx_setattr - set what @s names on @fh (NFSv4.1: the anonymous
 * stateid).
 * nfsx_rename - @from_name in @from_dir to @to_name in @to_dir.
 * nfsx_link - a new name @name in @dir for the file @fh.
 * nfsx_readlink - a symbolic link's target into @buf (NUL-terminated;
 * -ENAMETOOLONG when @len is too small).
 * Return values: 0, a positive NFS status, or a negative errno.
 */
int nfsx_setattr(struct nfsx_ctx *c, const struct nfsx_fh *fh, const struct nfsx_sattr *s);
int nfsx_rename(struct nfsx_ctx *c, const struct nfsx_fh *from_dir, const char *from_name,
		const struct nfsx_fh *to_dir, const char *to_name);
int nfsx_link(struct nfsx_ctx *c, const struct nfsx_fh *fh, const struct nfsx_fh *dir,
	      const char *name);
int nfsx_readlink(struct nfsx_ctx *c, const struct nfsx_fh *fh, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* Statistics (as /proc/self/mountstats reports them)                   */

#define NFSX_HIST_BUCKETS 32    /* bucket i: [2^i, 2^(i+1)) microseconds; 0 holds < 2 */

struct nfsx_op_stats {
	const char *name;
	uint64_t ops;            /* calls completed (with any result) */
	uint64_t trans;          /* transmissions, retransmissions included */
	uint64_t timeouts;       /* retransmit timer expiries */
	uint64_t errors;         /* calls completed with err < 0 or an error status */
	uint64_t bytes_sent;     /* call records incl. marker, per transmission */
	uint64_t bytes_recv;     /* reply records incl. marker */
	uint64_t queue_ns;       /* submitted -> first byte handed to the socket */
	uint64_t rtt_ns;         /* last transmission -> reply received */
	uint64_t exec_ns;        /* submitted -> callback invoked */
	uint32_t hist_queue[NFSX_HIST_BUCKETS];
	uint32_t hist_rtt[NFSX_HIST_BUCKETS];
	uint32_t hist_exec[NFSX_HIST_BUCKETS];
};

/*
 * nfsx_stats_get - statistics of procedure @p on this context.
 * Return values: pointer valid until nfsx_ctx_free (counters keep
 * moving), or NULL if @p was never called.
 */
const struct nfsx_op_stats *nfsx_stats_get(const struct nfsx_ctx *c, const struct nfsx_proc *p);

/* Add @src into @dst (to merge the contexts of several threads). */
void nfsx_stats_add(struct nfsx_op_stats *dst, const struct nfsx_op_stats *src);

#ifdef __cplusplus
}
#endif

#endif
