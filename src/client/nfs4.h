/* SPDX-License-Identifier: MIT */
/*
 * NFSv4.1 inside the library: the session of a context and what the
 * synchronous API over NFSv4.1 shares (not installed).
 *
 * DESIGN
 * - One session per context, made by nfsx4_session_open() (EXCHANGE_ID
 *   with an owner unique to the context, CREATE_SESSION, RECLAIM_COMPLETE)
 *   and destroyed by nfsx_ctx_free() (DESTROY_SESSION, DESTROY_CLIENTID).
 * - The fore channel's slot table: a COMPOUND takes the lowest free slot
 *   below the server's target (sr_target_highest_slotid + 1, never above
 *   what CREATE_SESSION granted) and waits in a FIFO when there is none.
 *   A slot's sequence id moves on only when SEQUENCE succeeded: after a
 *   SEQUENCE error (NFS4ERR_DELAY included) or a transport failure the
 *   same sequence id is used again (RFC 8881 2.10.6.1).
 * - A retry after a transport failure reuses the slot's sequence id; when
 *   the server had done it (NFS4ERR_RETRY_UNCACHED_REP: we never ask it
 *   to cache replies; or SEQ_FALSE_RETRY) the slot moves on and the sync
 *   layer sends again.
 * - Retries (NC4_RETRY), the same for the synchronous calls and the
 *   typed asynchronous wrappers (async4.c: OPEN, CLOSE, READ, WRITE,
 *   COMMIT, GETATTR, SETATTR, ACCESS, OPEN_DOWNGRADE, LOCK, LOCKT,
 *   LOCKU, READLINK, LOOKUPP by handle, RENAME and LINK by two, each
 *   under the operation's descriptor, for statistics): NFS4ERR_DELAY
 *   puts the COMPOUND on a timed list (10 ms doubling to 1 s, for up to
 *   timeo), resent from nfsx_service when due; a synchronous call runs
 *   the loop meanwhile.
 * - Recovery, one way for every call: a SEQUENCE of the current session
 *   answered NFS4ERR_BADSESSION or DEADSESSION (the server restarted,
 *   or dropped the session), or SEQ_MISORDERED (a slot out of step with
 *   the server's), starts an asynchronous recovery: CREATE_SESSION with
 *   the client id it has, EXCHANGE_ID first when CREATE_SESSION says
 *   the client id is gone (STALE_CLIENTID, or anything but success), and
 *   then RECLAIM_COMPLETE on slot 0 before anything else. The COMPOUNDs
 *   wait in the slot queue meanwhile and are sent again, once; such a
 *   reply of an older session is only sent again (the current session
 *   may be fine). The first session is made by the same steps
 *   (nfsx4_session_open waits for them). A failed recovery fails what
 *   waits with -ENOTCONN and leaves the next sync call to try again.
 * - Open and lock state is reclaimed after a recovery that needed a new
 *   client id (state4.h, session4_recover.c); the sync API's I/O opens
 *   and closes in one COMPOUND. NFS4ERR_GRACE is retried as DELAY. A
 *   context has one open-owner: two nfsx4_open of a file share a
 *   stateid, and one close ends both. It has one lock-owner too
 *   (lock_owner, made by async4.c on the first LOCK or LOCKT).
 * - Lease: renewed while idle by a SEQUENCE alone, a third of the lease
 *   (the root's lease_time, read after CREATE_SESSION) after the last
 *   SEQUENCE that succeeded.
 * - Back channel on the fore connection: CREATE_SESSION asks for it
 *   (CREATE_SESSION4_FLAG_CONN_BACK_CHAN, program NC4_CB_PROG, AUTH_SYS
 *   as the context's calls, NC4_CB_SLOTS slots sized for CB_SEQUENCE +
 *   CB_RECALL), so the server's calls arrive among the replies on the
 *   connection that carried CREATE_SESSION. The receive path hands a
 *   record whose msg_type is CALL to nc4_cb_record (deleg4.c), which
 *   answers it with nc4_cb_serve (cb4.c, no I/O: decode, slot table
 *   with a reply cached per slot, encode) and queues the reply on that
 *   connection at the next record boundary (nc_conn_send_raw).
 * - Delegations: an OPEN asks for none unless its share_access carries
 *   a WANT_*_DELEG bit of the caller's. Whatever sends an OPEN, a
 *   delegation in its result is kept in the session's list by stateid
 *   (nc4_check_reply -> nc4_deleg_note); CB_RECALL of one held answers
 *   NFS4_OK and queues PUTFH + DELEGRETURN just after the reply, or
 *   when the last WRITE of the file queued or in flight in the session
 *   ends (sentq holds the requests in flight); of one not held,
 *   NFS4ERR_BAD_STATEID (a recall that overtook its OPEN's
 *   reply too: the server sends it again). nfsx_ctx_free returns what
 *   is still held before DESTROY_SESSION. A new client id forgets them.
 * - A connection of the NFS channel lost, or SEQUENCE saying
 *   CB_PATH_DOWN(_SESSION): BIND_CONN_TO_SESSION (BACK_OR_BOTH), one at
 *   a time, queued as any call, so an idle context reconnects at once
 *   and recalls reach it again (nc4_cb_rebind).
 * - CB_OFFLOAD: the outcome of an asynchronous COPY, kept by the back
 *   channel's answer and delivered after it (copy42.c).
 * - Not done: CB_RECALL_ANY, CB_GETATTR, referring call lists.
 */
#ifndef NFSX_CLIENT_NFS4_H
#define NFSX_CLIENT_NFS4_H

#include <string.h>

#include "client/internal.h"

/*
 * Minor versions spoken: 1 and 2 (RFC 7862: 4.2 is 4.1's sessions and
 * operations plus its own). A context's options ask for one, or for 0:
 * the highest both sides speak, found at EXCHANGE_ID (4.2 first; a
 * server that answers NFS4ERR_MINOR_VERS_MISMATCH gets 4.1).
 * NC4_MINOR, passed where a minor version is wanted (nfsx4_compound,
 * the session's requests), stands for "the session's": resolved when
 * the COMPOUND is submitted (nc4_minor_of), so that EXCHANGE_ID,
 * CREATE_SESSION and every COMPOUND of a session carry its version.
 */
#define NC4_MINOR_MIN 1u
#define NC4_MINOR_MAX 2u
#define NC4_MINOR 0xffffffffu
#define NC4_IO_MAX (1u << 20)        /* largest READ/WRITE asked of the server */
#define NC4_HEADROOM (16u << 10)     /* request/reply bytes around the data */
/*
 * What a READ or WRITE COMPOUND of ours holds besides the data, at most:
 * the RPC header with an AUTH_SYS credential at its largest (RFC 5531:
 * a 255-byte machine name and 16 groups), SEQUENCE, PUTFH of an
 * NFS4_FHSIZE handle, and OPEN and CLOSE around the sync API's I/O.
 * The I/O sizes are the session's sizes less this, so that a server
 * that grants a little over 1 MiB (room for the headers) still gets
 * 1 MiB READs and WRITEs.
 */
#define NC4_IO_SLACK (2u << 10)

struct nc4_slot {
	uint32_t seq;                /* last sequence id the server accepted */
};

struct nc4_req;
struct nc4_state;

struct nc4_session {
	bool up;
	bool have_clientid;          /* EXCHANGE_ID done, the client id not lost */
	uint32_t gen;                /* sessions made: replies of an older one free no slot */
	clientid4 clientid;
	sequenceid4 cs_seq;
	sessionid4 sid;
	uint32_t minor;              /* minor version of the session (1 or 2) */
	bool minor_auto;             /* the options left it to negotiation */
	uint32_t nslots;             /* granted by CREATE_SESSION */
	uint32_t target;             /* slots usable now (server's target + 1) */
	uint32_t maxops;             /* operations per COMPOUND granted */
	uint32_t maxreq, maxresp;    /* bytes granted */
	struct nc4_slot *slots;
	/* one bit a slot, set while a COMPOUND holds it: a free slot and
	 * the highest busy one are found a word at a time */
	uint64_t *busy;
	struct nc_list waitq;        /* nc4_req waiting for a slot */
	struct nc_list delayq;       /* nc4_req waiting to be resent after DELAY */
	struct nc_list freeq;        /* nc4_req to reuse: none allocated per call */
	struct nc_list sentq;        /* nc4_req sent, until their reply */
	bool recovering;             /* an asynchronous recovery is under way */
	bool rec_fresh;              /* it asked for a new client id */
	int rec_step;                /* its step waiting for rec_due (DELAY) */
	uint64_t rec_due, rec_give_up;
	unsigned rec_backoff;
	int rec_err;                 /* why the last one failed */
	char owner[160];             /* EXCHANGE_ID's co_ownerid */
	char open_owner[32];         /* the open-owner of the sync API */
	char lock_owner[40];         /* the lock-owner of nfsx4_lock/lockt (async4.c) */
	verifier4 verf;
	uint32_t lease_s;            /* the server's lease_time (90 until known) */
	uint64_t renewed;            /* when the last successful SEQUENCE was sent */
	bool renewing;               /* a SEQUENCE of lease renewal in flight */
	/* the back channel and delegations (cb4.c, deleg4.c) */
	bool back_chan;              /* CREATE_SESSION bound the back channel */
	struct callback_sec_parms4 cb_sec; /* AUTH_SYS as the context's calls */
	struct nc4_cb *cb;
	struct nc_list delegs;       /* struct nc4_deleg */
	struct nc_list copies;       /* struct nc4_copy: asynchronous COPYs (copy42.c) */
	uint64_t delegs_got, delegs_returned, delegs_return_failed;
	bool binding;                /* a BIND_CONN_TO_SESSION in flight */
	uint64_t rebinds;            /* back channels bound again */
	struct nc4_state *state;     /* open and lock state held (state4.h) */
};

/*
 * The session's timed work, done from nfsx_service; the context's timer
 * wakes the application's poll for it: lease renewal while idle (when
 * nothing succeeded on the session for a third of the lease, a COMPOUND
 * of SEQUENCE alone renews it, RFC 8881 8.3), COMPOUNDs due to be resent
 * after NFS4ERR_DELAY, a recovery step retried after DELAY.
 * nc4_deadline - when the next of these is due.
 * Return values: a CLOCK_MONOTONIC time in ns, or 0 for none.
 * nc4_tick - do what is due at @now.
 */
uint64_t nc4_deadline(const struct nfsx_ctx *ctx);
void nc4_tick(struct nfsx_ctx *ctx, uint64_t now);

/* The minor version a COMPOUND of the context carries: the session's,
 * or the options' before there is one (2 when they ask for the highest). */
static inline uint32_t nc4_minor_of(const struct nfsx_ctx *ctx)
{
	if (ctx->v4)
		return ctx->v4->minor;
	return ctx->o.minor ? ctx->o.minor : NC4_MINOR_MAX;
}

/* How nc4_call_as treats a COMPOUND. */
enum {
	NC4_RETRY = 1,  /* DELAY back-off and session recovery in the library */
	NC4_LAST = 2,   /* the callback gets the last operation's result (a
			 * stand-in holding the COMPOUND's status when the
			 * server stopped before it), not the struct nfsx4_res */
};

/*
 * nc4_call_as - nfsx4_call with @flags, submitted under @as (a
 * descriptor of nfsx_nfs4_ops, whose entry then counts the COMPOUND's
 * transmissions, bytes and times). While a recovery is under way the
 * COMPOUND waits for it.
 * Return values: as nfsx4_call.
 */
int nc4_call_as(struct nfsx_ctx *c, const struct nfsx_proc *as, unsigned flags,
		const struct nfs_argop4 *ops, uint32_t nops, nfsx_cb cb, void *priv);

/*
 * nc4_call_as in two steps, the operations written in place:
 * nc4_call_begin - a request for @nops operations after SEQUENCE, which
 * the caller fills at *@ops (not zeroed), then passes to nc4_call_end
 * (nothing may run the loop in between).
 * Return values: 0, or as nc4_call_as (nothing to end then).
 * nc4_call_end - send or queue the request.
 * Return values: as nc4_call_as.
 */
int nc4_call_begin(struct nfsx_ctx *c, uint32_t nops, struct nc4_req **qp,
		   struct nfs_argop4 **ops);
int nc4_call_end(struct nfsx_ctx *c, struct nc4_req *q, const struct nfsx_proc *as,
		 unsigned flags, nfsx_cb cb, void *priv);

/*
 * nc4_check_reply - results answer @ops in order, no more of them than
 * were sent, and a short list ends with an error; counts each result in
 * its operation's statistics, but for @as (the descriptor the COMPOUND
 * was submitted under, which the core counted; NULL for COMPOUND).
 * Return values: 0, or -EPROTO.
 */
int nc4_check_reply(struct nfsx_ctx *ctx, const struct nfs_argop4 *ops, uint32_t nops,
		    const struct nfsx4_res *r, const struct nfsx_proc *as);

/* Destroy the session and the client id (nfsx_ctx_free, synchronous);
 * pending COMPOUNDs waiting for a slot complete with -ECANCELED. */
void nc4_session_close(struct nfsx_ctx *ctx);

/*
 * Copy what is kept out of a reply while the callback runs.
 * Return values: 0, a positive nfsstat4, or a negative errno.
 */
typedef int (*nc4_extract_fn)(const struct nfsx4_res *r, void *out);

/*
 * nc4_sync - @ops in a COMPOUND of the session (made first if there is
 * none), sent under NC4_RETRY and waited for: NFS4ERR_DELAY (from
 * SEQUENCE or any operation) is retried with back-off for up to the
 * context's timeo, a lost session recovered and the COMPOUND sent again.
 * @extract sees the reply that ends the call, whatever its status, but
 * for a DELAY or a lost session the retries gave up on.
 * Return values: a negative errno, the status the retries gave up on,
 * else what @extract returned.
 */
int nc4_sync(struct nfsx_ctx *ctx, const struct nfs_argop4 *ops, uint32_t nops,
	     nc4_extract_fn extract, void *out);

/*
 * The typed wrappers' COMPOUNDs (async4.c), under NC4_RETRY | NC4_LAST
 * and @op's descriptor: @args is the operation's own arguments struct
 * (@size bytes, copied; 0: none).
 * nc4_send_op - PUTFH @fh, @op.
 * nc4_send_two_fh - PUTFH @from, SAVEFH, PUTFH @to, @op (RENAME, LINK,
 * CLONE, COPY: the saved handle is the source).
 * Return values: as nc4_call_as.
 */
int nc4_send_op(struct nfsx_ctx *c, const nfs_fh4 *fh, enum nfs_opnum4 op, const void *args,
		size_t size, nfsx_cb cb, void *priv);
int nc4_send_two_fh(struct nfsx_ctx *c, const nfs_fh4 *from, const nfs_fh4 *to,
		    enum nfs_opnum4 op, const void *args, size_t size, nfsx_cb cb, void *priv);

/* PUTFH of @fh (the handle's bytes are not copied). */
static inline void nc4_op_putfh(struct nfs_argop4 *o, const nfs_fh4 *fh)
{
	memset(o, 0, sizeof(*o));
	o->argop = OP_PUTFH;
	o->u.opputfh.object = *fh;
}

/*
 * nc4_op_open_fh - OPEN of an existing file by the current handle
 * (CLAIM_FH), with the context's open-owner; no delegation wanted
 * unless @access carries a WANT_*_DELEG bit; owner.clientid is filled when the COMPOUND is sent (the client id of
 * then). @s must be the context's session.
 */
void nc4_op_open_fh(struct nfs_argop4 *o, const struct nc4_session *s, uint32_t access,
		    uint32_t deny);

/* The status every result starts with. */
static inline enum nfsstat4 nc4_op_status(const struct nfs_resop4 *r)
{
	return r->u.opillegal.status;
}

/* ---- the back channel (cb4.c) and delegations (deleg4.c) ---- */

#define NC4_CB_PROG 0x40000000u   /* csa_cb_program: NFS4_CALLBACK */
#define NC4_CB_VERS 1u            /* the callback version of NFSv4.1 */
#define NC4_CB_SLOTS 4u           /* back channel slots asked (ca_maxrequests) */
#define NC4_CB_MAXREQ 4096u       /* back channel request bytes asked */
#define NC4_CB_MAXRESP 1024u      /* back channel reply bytes asked (all cached) */
#define NC4_CB_MAXOPS 8u          /* operations of a CB_COMPOUND asked */
/* The decode arena of one CB_COMPOUND: its largest request, 8 times. */
#define NC4_CB_ARENA (8u * NC4_CB_MAXREQ)

/* A back channel slot: the last sequence id done and its reply, kept
 * for a retry of it (RFC 8881 2.10.6.1, 20.9.3). */
struct nc4_cb_slot {
	uint32_t seq;
	uint32_t cache_len;          /* 0: nothing done on the slot yet */
	uint8_t cache[NC4_CB_MAXRESP]; /* the CB_COMPOUND4res bytes */
};

struct nc4_cb_counts {
	uint64_t calls;              /* RPC calls received on the back channel */
	uint64_t nulls;              /* CB_NULL answered */
	uint64_t compounds;          /* CB_COMPOUND answered (replays included) */
	uint64_t replays;            /* CB_SEQUENCE retries answered from the cache */
	uint64_t rpc_errors;         /* answered with an RPC-level error */
	uint64_t dropped;            /* not answered (undecodable header) */
	uint64_t recalls;            /* CB_RECALL of a delegation held: NFS4_OK */
	uint64_t recalls_unknown;    /* CB_RECALL answered NFS4ERR_BAD_STATEID */
	uint64_t offloads;           /* CB_OFFLOAD taken (NFS4_OK) */
};

/* What CB_OFFLOAD does with an asynchronous COPY's outcome: the status
 * of its result (NFS4_OK when it was taken). */
typedef enum nfsstat4 (*nc4_cb_offload_fn)(void *priv, const struct CB_OFFLOAD4args *a);

/* The back channel of a session: what answering a call needs. */
struct nc4_cb {
	sessionid4 sid;              /* the session's (CB_SEQUENCE must name it) */
	struct nc4_cb_slot slots[NC4_CB_SLOTS];
	struct nc4_cb_counts n;
	nc4_cb_offload_fn offload;   /* NULL: CB_OFFLOAD answered NFS4ERR_NOTSUPP */
	void *offload_priv;
	uint8_t arena[NC4_CB_ARENA];
};

/*
 * What CB_RECALL does with the stateid and handle of a recall: the
 * status of the recall's result (NFS4_OK for a delegation held, which is
 * then returned after the reply; NFS4ERR_BAD_STATEID for one unknown).
 */
typedef enum nfsstat4 (*nc4_cb_recall_fn)(void *priv, const struct CB_RECALL4args *a);

/*
 * nc4_cb_serve - answer the RPC call record @rec (@len bytes, no
 * marker) of the back channel: CB_NULL, CB_COMPOUND of CB_SEQUENCE and
 * CB_RECALL; other operations NFS4ERR_NOTSUPP, unknown ones
 * NFS4ERR_OP_ILLEGAL; another program PROG_UNAVAIL, version
 * PROG_MISMATCH, procedure PROC_UNAVAIL. The reply (record marker
 * included) goes to @out, of at least NC4_CB_OUT_MAX bytes.
 * Return values: the reply's length, or 0 when the record gets none
 * (too short for a call header, or not a call).
 */
#define NC4_CB_OUT_MAX (NC4_CB_MAXRESP + 64u)
size_t nc4_cb_serve(struct nc4_cb *cb, const uint8_t *rec, size_t len, uint8_t *out,
		    nc4_cb_recall_fn recall, void *priv);

/* A new session (@sid): every back channel slot from scratch. */
void nc4_cb_reset(struct nc4_cb *cb, const sessionid4 *sid);

/* A delegation the context holds. */
struct nc4_deleg {
	struct nc_list link;
	struct stateid4 sid;
	bool write;
	bool recalled;               /* recalled: DELEGRETURN due */
	bool returning;              /* our DELEGRETURN sent: its callback frees this */
	uint32_t fh_len;             /* 0: handle unknown until a recall names it */
	uint8_t fh[NFS4_FHSIZE];
};

/*
 * nc4_cb_record - a call that came on connection @c of the context
 * (transport, call.c): answered on @c, then what a recall asks done.
 */
void nc4_cb_record(struct nc_conn *c, const uint8_t *rec, size_t len);

/*
 * nc4_deleg_note - a reply's results (as nc4_check_reply sees them):
 * delegations granted by OPEN kept, those DELEGRETURN gave back dropped.
 */
void nc4_deleg_note(struct nfsx_ctx *ctx, const struct nfs_argop4 *ops, uint32_t nops,
		    const struct nfsx4_res *r);

/* Forget every delegation (a new client id: the server has none). */
void nc4_deleg_clear(struct nc4_session *s);

/* Give back what is held, waited for (nfsx_ctx_free, before DESTROY_SESSION). */
void nc4_deleg_return_all(struct nfsx_ctx *ctx);

/*
 * nc4_cb_rebind - the back channel may be gone (a connection of the NFS
 * channel failed, or SEQUENCE said CB_PATH_DOWN/CB_PATH_DOWN_SESSION):
 * BIND_CONN_TO_SESSION for both directions, queued like any call, so
 * that it reconnects and goes out on the new connection. One at a time;
 * nothing while no session is up.
 */
void nc4_cb_rebind(struct nfsx_ctx *ctx);

/* A COMPOUND of the session ended: DELEGRETURNs that waited for the
 * context's WRITEs of their file go now. */
void nc4_deleg_kick(struct nfsx_ctx *ctx);

/* ---- asynchronous COPY (copy42.c) ---- */

/* CB_OFFLOAD (from the back channel's answer, no callback run): the
 * outcome kept for its COPY. Return values: the result's status. */
enum nfsstat4 nc4_copy_offload(struct nfsx_ctx *ctx, const struct CB_OFFLOAD4args *a);
/* Deliver the outcomes CB_OFFLOAD brought (outside the answer). */
void nc4_copy_kick(struct nfsx_ctx *ctx);
/* The session ends: copies under way fail with -ECANCELED. */
void nc4_copy_clear(struct nfsx_ctx *ctx);

#endif
