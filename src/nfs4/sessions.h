/* SPDX-License-Identifier: MIT */
/*
 * NFSv4.1 sessions (RFC 8881 section 2.10): what EXCHANGE_ID,
 * CREATE_SESSION, SEQUENCE, DESTROY_SESSION, BIND_CONN_TO_SESSION and
 * DESTROY_CLIENTID do to the server's table of sessions, with no RPC in
 * sight so that a unit test drives it with its own clock.
 *
 * DESIGN
 * - The client records of 4.1 are clients.c's (one clientid space and
 *   one lease clock with 4.0); a session holds its client's clientid,
 *   not a pointer, and a session whose client is gone (its lease ran
 *   out, DESTROY_CLIENTID, a newer incarnation confirmed) is dead: the
 *   next SEQUENCE on it answers NFS4ERR_BADSESSION and frees it, and
 *   CREATE_SESSION frees a few such sessions, oldest first, when the
 *   table is full. SEQUENCE renews the client's lease.
 * - One mutex over the table, taken before the client table's own (never
 *   the other way): every 4.1 change of the client records goes through
 *   here, so EXCHANGE_ID cannot drop a record between CREATE_SESSION's
 *   check of it and its confirmation.
 * - A session's channel attributes are the client's, clamped to the
 *   server's: requests and replies to the record limit, at most
 *   NFS4_SESSION_SLOTS slots, a cached reply of at most
 *   NFS4_SLOT_CACHE_MAX bytes and NFS4_SESSION_CACHE_MAX bytes of cached
 *   replies a session (slots are cut to fit), no header padding, no RDMA.
 *   Sizes below what a SEQUENCE needs answer NFS4ERR_TOOSMALL.
 * - At most NFS4_SESSIONS_PER_CLIENT sessions a client (NFS4ERR_NOSPC
 *   past it) and the table's bound in all (NFS4ERR_DELAY when full of
 *   live ones): with the bounds above, memory is bounded.
 * - Slots: a request's seqid is the slot's + 1; the same seqid is a
 *   retransmission, answered with the slot's cached reply (the COMPOUND
 *   reply's bytes after the RPC header, kept when the client asked with
 *   sa_cachethis) or, when nothing was cached, SEQUENCE then
 *   NFS4ERR_RETRY_UNCACHED_REP; anything else NFS4ERR_SEQ_MISORDERED. A
 *   slot is busy from SEQUENCE until its COMPOUND's reply is kept
 *   (nfs4_sessions_done()): a call on a busy slot answers NFS4ERR_DELAY.
 *   A busy slot holds a reference on its session, so DESTROY_SESSION
 *   while a COMPOUND runs on it never frees memory in use.
 * - The CREATE_SESSION reply cache of RFC 8881 18.36.4 is the client
 *   record's (clients.h): the same seqid again gets the same reply.
 * - Back channel: CREATE_SESSION4_FLAG_CONN_BACK_CHAN or
 *   BIND_CONN_TO_SESSION for the back channel records the connection (an
 *   rpc_req_conn_id()) and then its handle (nfs4_sessions_set_back_ref:
 *   opaque here, an rpc_backchan to the caller). The path is taken as up
 *   while the session has a handle, as knfsd takes a 4.1 back channel
 *   without probing it for delegations; a callback that gets no answer
 *   marks it down until the client binds a connection again, and only
 *   then does SEQUENCE say CB_PATH_DOWN_SESSION (and CB_PATH_DOWN when
 *   no session of the client has a working one): a Linux client answers
 *   those with BIND_CONN_TO_SESSION, so they are never set before a
 *   callback was needed. The back channel's slots (at most the client's
 *   ca_maxrequests, NFS4_BACK_SLOTS) each carry a seqid; a callback
 *   takes a free one (nfs4_sessions_cb_begin) and gives it back.
 */
#ifndef NFSX_NFS4_SESSIONS_H
#define NFSX_NFS4_SESSIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "nfs4/clients.h"
#include "xdr/gen/nfs4.h"

/* Sessions a client may have at once. */
#define NFS4_SESSIONS_PER_CLIENT 16u
/* Sessions the server keeps at most. */
#define NFS4_SESSIONS_MAX 512u
/* Slots of a session's fore channel at most. */
#define NFS4_SESSION_SLOTS 64u
/* Bytes of one slot's cached reply at most, and of all of a session's. */
#define NFS4_SLOT_CACHE_MAX 8192u
#define NFS4_SESSION_CACHE_MAX (128u << 10)
/* Operations of a COMPOUND at most. */
#define NFS4_SESSION_OPS_MAX 128u
/* The smallest request and reply sizes a session may have: a COMPOUND of
 * SEQUENCE alone after the RPC header's verifier (knfsd's
 * NFSD_MIN_REQ_HDR_SEQ_SZ and NFSD_MIN_RESP_HDR_SEQ_SZ; pynfs CSESS26
 * asks for 400 bytes and must get them). */
#define NFS4_SESSION_MIN_REQ 60u
#define NFS4_SESSION_MIN_RESP 64u
/* The back channel must carry nfsxd's largest callback (CB_SEQUENCE and
 * CB_RECALL with the largest handle, AUTH_SYS with a long host name)
 * and its reply, and two operations a COMPOUND (knfsd's
 * check_backchannel_attrs; pynfs CSESS29). */
#define NFS4_BACK_MIN_REQ 1024u
#define NFS4_BACK_MIN_RESP 128u
#define NFS4_BACK_MIN_OPS 2u
/* Back channel slots at most (the server's callbacks). */
#define NFS4_BACK_SLOTS 16u

struct nfs4_sessions;
struct nfs4_session;

/*
 * nfs4_sessions_new - an empty table of at most @max sessions over the
 * client records @clients (which outlive it).
 * Return values: the table, or NULL when memory is short.
 */
struct nfs4_sessions *nfs4_sessions_new(struct nfs4_clients *clients, uint32_t max);

/* Free @t and every session in it (no call may be running on it). */
void nfs4_sessions_free(struct nfs4_sessions *t);

/*
 * nfs4_sessions_exchange_id - EXCHANGE_ID's client record part
 * (nfs4_clients_exchange_id()), in the table's order of 4.1 changes.
 * Return values: as nfs4_clients_exchange_id().
 */
enum nfsstat4 nfs4_sessions_exchange_id(struct nfs4_sessions *t, const uint8_t *id,
					uint32_t id_len, const verifier4 *verf,
					const struct nfs4_principal *who, bool update,
					uint64_t now, struct nfs4_exid *out);

/*
 * nfs4_sessions_create - CREATE_SESSION (RFC 8881 18.36) of @a by @who
 * on connection @conn at @now; @max_record is the server's record
 * limit. @res is the whole result (a replay's cached one included).
 * Return values: res->csr_status: NFS4_OK; the errors of
 * nfs4_clients_cs_check(); NFS4ERR_TOOSMALL for channel sizes below the
 * minimum or no slots; NFS4ERR_NOSPC for a client at its bound;
 * NFS4ERR_DELAY for a full table; NFS4ERR_SERVERFAULT when memory is
 * short.
 */
enum nfsstat4 nfs4_sessions_create(struct nfs4_sessions *t, const struct CREATE_SESSION4args *a,
				   const struct nfs4_principal *who, uint64_t conn,
				   uint32_t max_record, uint64_t now,
				   struct CREATE_SESSION4res *res);

/* What a replayed SEQUENCE is answered with. */
enum nfs4_seq_replay {
	NFS4_SEQ_NEW,           /* not a replay: run the COMPOUND */
	NFS4_SEQ_CACHED,        /* the slot's cached reply: nfs4_seq_cached() */
	NFS4_SEQ_UNCACHED,      /* SEQUENCE, then NFS4ERR_RETRY_UNCACHED_REP */
};

/* A SEQUENCE that succeeded: its slot is busy until nfs4_sessions_done(). */
struct nfs4_slot_use {
	struct nfs4_session *s;         /* NULL: no SEQUENCE (yet) */
	sessionid4 sid;                 /* its id */
	uint32_t slot;
	clientid4 clientid;
	bool cachethis;
	enum nfs4_seq_replay replay;
	uint32_t max_resp;              /* the session's ca_maxresponsesize */
	uint32_t max_resp_cached;       /* and ca_maxresponsesize_cached */
};

/*
 * nfs4_sessions_sequence - SEQUENCE (RFC 8881 18.46) of @a, in a COMPOUND
 * whose call record has @req_len bytes and @nops operations, whose reply
 * will have @reply_len bytes with SEQUENCE's result, at @now.
 * On NFS4_OK @res is filled and @q holds the busy slot; on an error the
 * slot is left as it was.
 * Return values: NFS4_OK; NFS4ERR_BADSESSION (unknown or dead session);
 * NFS4ERR_TOO_MANY_OPS; NFS4ERR_REQ_TOO_BIG; NFS4ERR_BADSLOT;
 * NFS4ERR_SEQ_MISORDERED; NFS4ERR_DELAY (slot busy); NFS4ERR_REP_TOO_BIG
 * (or _TO_CACHE with sa_cachethis) when not even SEQUENCE's reply fits
 * the session's sizes.
 */
enum nfsstat4 nfs4_sessions_sequence(struct nfs4_sessions *t, const struct SEQUENCE4args *a,
				     uint32_t req_len, uint32_t nops, uint32_t reply_len,
				     uint64_t now, struct SEQUENCE4resok *res,
				     struct nfs4_slot_use *q);

/*
 * nfs4_sessions_sequence_nowait - nfs4_sessions_sequence() on an event
 * loop: it waits for no lock held elsewhere and drops no record of a
 * gone client (which writes the restart record).
 * Return values: as nfs4_sessions_sequence(); with *@busy set (status
 * NFS4ERR_DELAY) nothing changed: run the call again on a worker.
 */
enum nfsstat4 nfs4_sessions_sequence_nowait(struct nfs4_sessions *t,
					    const struct SEQUENCE4args *a, uint32_t req_len,
					    uint32_t nops, uint32_t reply_len, uint64_t now,
					    struct SEQUENCE4resok *res, struct nfs4_slot_use *q,
					    bool *busy);

/*
 * nfs4_seq_cached - the cached reply of @q's slot (NFS4_SEQ_CACHED),
 * valid until nfs4_sessions_done().
 * Return values: the bytes, their count in @len.
 */
const uint8_t *nfs4_seq_cached(const struct nfs4_slot_use *q, uint32_t *len);

/*
 * nfs4_sessions_done - the COMPOUND of @q ended with the reply @iov
 * (@iovcnt pieces, the COMPOUND4res's bytes; NULL when there is none):
 * kept in the slot when the client asked for it and it fits; the slot is
 * free again and @q empty. For a replay the slot's cache is left as it
 * was. Nothing happens for an empty @q.
 */
void nfs4_sessions_done(struct nfs4_sessions *t, struct nfs4_slot_use *q,
			const struct iovec *iov, int iovcnt);

/*
 * nfs4_sessions_abandon - let go of @q's slot as if its request had never
 * come: a new request's seqid is taken back (its retransmission runs as
 * new), nothing is kept. For a call whose client went away before the
 * call was whole (a bulk WRITE's connection closed in its data), which
 * the client sends again with the same seqid.
 */
void nfs4_sessions_abandon(struct nfs4_sessions *t, struct nfs4_slot_use *q);

/*
 * nfs4_sessions_destroy - DESTROY_SESSION (RFC 8881 18.37) of @id at
 * @now; @q is the COMPOUND's own SEQUENCE (may be empty), whose slot may
 * be busy.
 * Return values: NFS4_OK; NFS4ERR_BADSESSION; NFS4ERR_DELAY while
 * another COMPOUND runs on the session.
 */
enum nfsstat4 nfs4_sessions_destroy(struct nfs4_sessions *t, const sessionid4 *id,
				    const struct nfs4_slot_use *q, uint64_t now);

/*
 * nfs4_sessions_bind_conn - BIND_CONN_TO_SESSION (RFC 8881 18.34) of
 * connection @conn to session @id in direction @dir at @now; the back
 * channel's connection is recorded when the direction includes it.
 * Return values: NFS4_OK with the direction granted in @granted;
 * NFS4ERR_BADSESSION; NFS4ERR_INVAL for an unknown direction.
 */
enum nfsstat4 nfs4_sessions_bind_conn(struct nfs4_sessions *t, const sessionid4 *id,
				      enum channel_dir_from_client4 dir, uint64_t conn,
				      uint64_t now, enum channel_dir_from_server4 *granted);

/*
 * nfs4_sessions_destroy_client - DESTROY_CLIENTID (RFC 8881 18.50) of
 * @clientid at @now.
 * Return values: NFS4_OK; NFS4ERR_CLIENTID_BUSY while it has sessions;
 * NFS4ERR_STALE_CLIENTID for no live 4.1 record.
 */
enum nfsstat4 nfs4_sessions_destroy_client(struct nfs4_sessions *t, clientid4 clientid,
					   uint64_t now);

/*
 * nfs4_sessions_reclaim_complete - RECLAIM_COMPLETE of the whole client
 * @clientid (nfs4_clients_reclaim_complete()).
 * Return values: as nfs4_clients_reclaim_complete().
 */
enum nfsstat4 nfs4_sessions_reclaim_complete(struct nfs4_sessions *t, clientid4 clientid,
					     uint64_t now);

/*
 * nfs4_sessions_set_back_ref - @ref, a handle of connection @conn, is
 * session @id's back channel if @conn is the one it recorded last;
 * @put(ref) lets go of it (at once when it is not taken, else when the
 * session goes or another handle replaces it). A bound connection's
 * path is up again.
 */
void nfs4_sessions_set_back_ref(struct nfs4_sessions *t, const sessionid4 *id, uint64_t conn,
				void *ref, void (*put)(void *ref));

/* Return values: has live client @clientid a session whose back channel
 * has a handle and did not fail (what a delegation needs)? */
bool nfs4_sessions_cb_up(struct nfs4_sessions *t, clientid4 clientid, uint64_t now);

/* A back channel slot taken for one CB_COMPOUND. */
struct nfs4_cb_slot {
	sessionid4 session;
	uint32_t slot, seqid, highest;   /* CB_SEQUENCE's */
	uint32_t cb_program;
	uint32_t minor;                  /* the CB_COMPOUND's minor version */
	uint32_t flavor, uid, gid;       /* the credential the client asked for */
	void *ref;                       /* the back channel's handle: a reference */
};

/*
 * nfs4_sessions_cb_begin - a free slot of the back channel of
 * @clientid's session bound last (a working one), its seqid counted,
 * and @get(ref) taken on its handle.
 * Return values: true with @out; false when there is no such session or
 * every slot is busy (try later).
 */
bool nfs4_sessions_cb_begin(struct nfs4_sessions *t, clientid4 clientid, uint64_t now,
			    void (*get)(void *ref), struct nfs4_cb_slot *out);

/* Session @id was made by a CREATE_SESSION of minor version @minor: its
 * callbacks go in CB_COMPOUNDs of that minor version (a 4.2 client's
 * back channel may refuse 1, as pynfs's does; knfsd sends the client's). */
void nfs4_sessions_set_minor(struct nfs4_sessions *t, const sessionid4 *id, uint32_t minor);

/* The slot of @q is free again; @answered false (no reply came): its
 * seqid is not used up and the back channel is down. */
void nfs4_sessions_cb_end(struct nfs4_sessions *t, const struct nfs4_cb_slot *q, bool answered);

/* BACKCHANNEL_CTL (RFC 8881 18.33) on session @id: the callbacks'
 * program and credential (the first of @parms the server can send).
 * Return values: NFS4_OK; NFS4ERR_BADSESSION. */
enum nfsstat4 nfs4_sessions_backchannel_ctl(struct nfs4_sessions *t, const sessionid4 *id,
					    uint32_t program,
					    const struct callback_sec_parms4 *parms, uint32_t n);

/* Return values: sessions in @t, dead ones not yet freed included. */
uint32_t nfs4_sessions_count(struct nfs4_sessions *t);

/* The table's counts, for statistics (nfs4_stats_get). */
struct nfs4_sessions_counts {
	uint64_t sessions;          /* nfs4_sessions_count's */
	uint64_t slot_replays;      /* SEQUENCEs answered from the slot's cached reply */
	uint64_t slot_uncached;     /* retransmissions answered RETRY_UNCACHED_REP */
};

/* nfs4_sessions_get_counts - @t's counts into @out: kept as SEQUENCE
 * decides, read under the table's lock (no walk). */
void nfs4_sessions_get_counts(struct nfs4_sessions *t, struct nfs4_sessions_counts *out);

#endif
