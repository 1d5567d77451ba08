/* SPDX-License-Identifier: MIT */
/*
 * RPC program table and dispatch.
 *
 * DESIGN
 * Each program is a static const table of versions, each version a
 * table of procedures (like nfsd_procedures3): handler, flags, the
 * worst-case reply size and the name. Dispatch reads only these tables,
 * so the registry is built once at start-up and is read-only after, and
 * every event-loop thread reads it without locks.
 */
#ifndef NFSX_RPC_PROGRAM_H
#define NFSX_RPC_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpc/msg.h"

struct rpc_req;

/* The procedure changes state: a retransmission must not run it twice. */
#define RPC_PROC_NONIDEMPOTENT 0x1u
/* The handler may block (file system calls): it runs on a worker thread. */
#define RPC_PROC_BLOCKING 0x2u
/*
 * A blocking procedure that is first tried on the event loop with
 * req->on_loop set: the handler does what it can without waiting (cached
 * objects, memory-backed files, RWF_NOWAIT) and returns RPC_WOULD_BLOCK,
 * with no side effect, when it cannot; the call then goes to a worker.
 * A worker's context switch costs more than most calls it would run.
 */
#define RPC_PROC_TRY_INLINE 0x4u
/* The results start with the procedure's status (nfsstat3, mountstat3,
 * nfsstat4): statistics count the replies by it. */
#define RPC_PROC_STATUS 0x8u

/*
 * A handler decodes its arguments from req->args, and on success
 * encodes its results at req->enc (after the accepted header, which
 * dispatch has written: rpc_req_hdr_len() bytes, which vary with the
 * call's verifier).
 * Return values: %RPC_SUCCESS, or %RPC_GARBAGE_ARGS / %RPC_SYSTEM_ERR,
 * in which case dispatch discards whatever was encoded.
 */
typedef enum rpc_accept_stat rpc_handler_fn(struct rpc_req *req);

/*
 * Bulk data received straight into a file: a procedure whose arguments
 * end with opaque data to store (NFSv3 WRITE) may take a call whose record
 * is only partly received. begin runs on the event loop with the first
 * bytes of the record in req->args (header, fixed arguments, the start of
 * the data) and @rest more bytes still in the socket; it checks everything
 * the call needs, writes the data it was given and fills @b, or returns
 * false, with nothing changed, and the record is received whole and run
 * by the ordinary handler (which also answers every error). The loop then
 * splices the rest of the data from the socket into b->fd (bulk.c) and
 * calls end, which encodes the results like a handler; with b->aborted
 * set (the connection closed) end only releases what begin took.
 */
struct rpc_bulk {
	int fd;             /* where the data goes */
	uint64_t off;       /* file offset of the next byte */
	uint32_t left;      /* data bytes still in the socket */
	uint32_t pad;       /* XDR padding bytes after them */
	uint32_t done;      /* data bytes written */
	/* Where the next data byte goes in a mapping of the file that stays
	 * valid until bulk_end, received there directly; NULL: spliced
	 * into fd. The last data byte is always spliced (a real write, as
	 * the caller, after the data). Cleared when a receive into it
	 * faults (the file was truncated under it): the rest is spliced. */
	uint8_t *dst;
	int err;            /* first write error (errno): later data is discarded */
	bool aborted;
	void *priv;         /* the procedure's state, in req->arena */
	/* Called before each write of spliced data (the identity to write
	 * as, say): non-zero stops writing, as a write error would. */
	int (*enter)(struct rpc_bulk *b);
};
typedef bool rpc_bulk_begin_fn(struct rpc_req *req, size_t rest, struct rpc_bulk *b);
typedef enum rpc_accept_stat rpc_bulk_end_fn(struct rpc_req *req, struct rpc_bulk *b);

/*
 * Whether this call of a procedure not flagged RPC_PROC_NONIDEMPOTENT
 * goes to the duplicate request cache all the same, decided from its
 * arguments (NFSv4.0's COMPOUND: by the operations in it, as knfsd sets
 * rq_cachetype while decoding). Runs on the event loop before the
 * handler, and must not block; it reads req->args, whole, and must leave
 * req->args and req->arena as it found them. Not for procedures with bulk
 * hooks (their arguments are not all there).
 * Return values: true to key the call in the cache.
 */
typedef bool rpc_cache_this_fn(struct rpc_req *req);

struct rpc_proc {
	const char *name;
	rpc_handler_fn *handler;
	uint32_t flags;
	uint32_t max_reply; /* results, bytes, not counting the header */
	rpc_bulk_begin_fn *bulk_begin;  /* optional, with bulk_end */
	rpc_bulk_end_fn *bulk_end;
	rpc_cache_this_fn *cache_this;  /* optional */
};

/* A table entry without bulk hooks; designated, so that fields added
 * later start as zero. */
#define RPC_PROC(nm, fn, fl, mr) \
	{ .name = (nm), .handler = (fn), .flags = (fl), .max_reply = (mr) }

struct rpc_version {
	uint32_t vers;
	uint32_t nprocs;
	const struct rpc_proc *procs;
};

struct rpc_program {
	uint32_t prog;
	const char *name;
	uint32_t nvers;
	const struct rpc_version *versions; /* sorted by vers */
	/* The name of a status of RPC_PROC_STATUS results, or NULL. */
	const char *(*status_name)(uint32_t vers, int32_t status);
};

/*
 * A credential flavour checked outside msg.c, which knows only AUTH_NONE
 * and AUTH_SYS (RPCSEC_GSS will be one). check runs on the event loop
 * for every call of the flavour, once its header is decoded
 * (req->call.raw_cred, raw_verf) and before its program is looked up, as
 * Linux's svc_authenticate: it sets the caller's identity in
 * req->call.cred and, with rpc_req_set_verf(), the verifier of every
 * accepted reply to the call (AUTH_NONE if it does not). It must not
 * block.
 * Return values: %RPC_AUTH_OK, or the auth_stat of an AUTH_ERROR reply.
 */
typedef enum rpc_auth_stat rpc_flavor_check_fn(struct rpc_req *req);

struct rpc_flavor {
	uint32_t flavor;
	rpc_flavor_check_fn *check;
};

#define RPC_MAX_PROGRAMS 16
#define RPC_MAX_FLAVORS 4

struct rpc_registry {
	unsigned int n;
	const struct rpc_program *progs[RPC_MAX_PROGRAMS];
	/* Statistics row (util/stats.h) of the first procedure of each
	 * program's first version; its versions' rows follow in order. */
	int stat_row[RPC_MAX_PROGRAMS];
	unsigned int nflavors;
	uint32_t flavor_ids[RPC_MAX_FLAVORS];   /* flavors[i]->flavor */
	const struct rpc_flavor *flavors[RPC_MAX_FLAVORS];
};

/*
 * rpc_registry_add - serve program @p, whose versions must be sorted
 * (the lowest and highest answer PROG_MISMATCH). Its procedures get
 * statistics rows when rows can still be added (before stats_start()).
 * Return values: 0, or -1 when the table is full, @p is there already
 * or its versions are not in increasing order.
 */
int rpc_registry_add(struct rpc_registry *reg, const struct rpc_program *p);
/*
 * rpc_registry_add_flavor - check credentials of flavour @f->flavor with
 * @f->check.
 * Return values: 0, or -1 when the table is full, the flavour is there
 * already or is AUTH_NONE or AUTH_SYS.
 */
int rpc_registry_add_flavor(struct rpc_registry *reg, const struct rpc_flavor *f);
const struct rpc_program *rpc_registry_find(const struct rpc_registry *reg,
					    uint32_t prog);

/* The NULL procedure, the same for every program: no arguments, no results. */
enum rpc_accept_stat rpc_proc_null(struct rpc_req *req);

struct rpc_drc;

/*
 * Statistics rows of the calls answered without a procedure: group
 * "rpc", one row per reason (program, version or procedure not served,
 * RPC version or credential refused, header undecodable, the
 * retransmission of a call still running). Made once, before
 * stats_start(), by the first server.
 */
enum rpc_reject_row {
	RPC_REJ_PROG_UNAVAIL,
	RPC_REJ_PROG_MISMATCH,
	RPC_REJ_PROC_UNAVAIL,
	RPC_REJ_RPC_MISMATCH,
	RPC_REJ_AUTH_ERROR,
	RPC_REJ_DROP_GARBAGE,
	RPC_REJ_DROP_IN_PROGRESS,
	RPC_REJ_NROWS,
};
void rpc_stats_rows_add(void);

enum rpc_dispatch_result {
	RPC_DISPATCH_REPLY,  /* req holds a reply to send */
	RPC_DISPATCH_DROP,   /* send nothing */
	RPC_DISPATCH_DEFER,  /* a blocking procedure: rpc_dispatch_finish() */
};

/*
 * rpc_dispatch_begin - decode and check the call in @req and answer it,
 * except for a procedure flagged RPC_PROC_BLOCKING, whose handler is
 * left for rpc_dispatch_finish() on another thread.
 * Return values: see enum rpc_dispatch_result. A call is dropped when its
 * header cannot be decoded, or when it is a retransmission of a call
 * still being executed.
 */
enum rpc_dispatch_result rpc_dispatch_begin(const struct rpc_registry *reg,
					    struct rpc_drc *drc,
					    struct rpc_req *req);

/* Run the handler of a deferred call; req then holds its reply. */
/*
 * rpc_dispatch_finish - run the handler of a deferred call (on a worker).
 * Return values: true: req holds the reply; false: the handler parked
 * the call (rpc_workers_park()), its answer was discarded and the call
 * runs again once resumed.
 */
bool rpc_dispatch_finish(struct rpc_drc *drc, struct rpc_req *req);

/*
 * rpc_dispatch_bulk_begin - start the call whose first bytes are in @req
 * (rec, rec_len) with @rest bytes of its record still to come, if its
 * procedure takes bulk data (struct rpc_bulk) and the call can run now:
 * header and credential good, not a retransmission, bulk_begin agreed.
 * Return values: true when the call is running (req->bulk filled; finish
 * with rpc_dispatch_bulk_end); false with nothing changed (no DRC entry
 * left behind): receive the record whole and dispatch it as usual.
 */
bool rpc_dispatch_bulk_begin(const struct rpc_registry *reg, struct rpc_drc *drc,
			     struct rpc_req *req, size_t rest);

/* All the data is in (or the call is aborted): encode the reply (unless
 * aborted) and keep it in the DRC; or forget the DRC entry. */
void rpc_dispatch_bulk_end(struct rpc_drc *drc, struct rpc_req *req);

/*
 * rpc_dispatch - both steps on the calling thread.
 * Return values: true when req holds a reply to send, false when the
 * call is dropped.
 */
bool rpc_dispatch(const struct rpc_registry *reg, struct rpc_drc *drc,
		  struct rpc_req *req);

#endif
