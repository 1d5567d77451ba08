/* SPDX-License-Identifier: MIT */
/*
 * NFSv4.0 client records (RFC 7530 section 9.1): what SETCLIENTID,
 * SETCLIENTID_CONFIRM and RENEW do to the server's table of clients,
 * with no RPC in sight so that a unit test drives it with its own clock.
 *
 * DESIGN
 * - A record is the client's id string and verifier, the principal that
 *   set it, its callback (probed at confirmation), its clientid and
 *   confirm verifier, and the time of its last renewal. A record is
 *   unconfirmed until SETCLIENTID_CONFIRM; the same clientid may have a
 *   confirmed and an unconfirmed record at once (a callback update).
 * - Clientids: the high 32 bits the server's boot time in seconds, the
 *   low 32 a counter from a random start, so a clientid of an earlier
 *   instance is unknown here (STALE_CLIENTID, RFC 7530 9.1.2) even when
 *   two instances start within the same second.
 * - Leases last NFS4_LEASE_TIME seconds unless the table is told
 *   another lease (nfs4_clients_set_lease). A record whose lease ran out
 *   is treated as gone by every lookup: with no state yet there is no
 *   courtesy client, so RENEW answers STALE_CLIENTID after expiry, as
 *   knfsd does for a client without state (it answers EXPIRED only for
 *   courtesy clients, which hold state). Dead records are freed lazily:
 *   records are kept in order of last renewal and each call frees at
 *   most a few expired ones from the old end.
 * - At most the table's bound of records (NFS4_CLIENTS_MAX in the
 *   server): a SETCLIENTID needing one more answers NFS4ERR_RESOURCE.
 * - One mutex over the table: its calls are short and the clients few
 *   compared to the operations that will use their state.
 * - The callback path (callback.h) is a state of the confirmed record:
 *   unknown from each confirmation that sets a callback until its probe
 *   ends, then up or down. Each such confirmation starts a generation,
 *   and a probe's result is taken only for the generation it probed,
 *   so a late answer about an old address never marks the new one.
 */
#ifndef NFSX_NFS4_CLIENTS_H
#define NFSX_NFS4_CLIENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "xdr/gen/nfs4.h"

/* The default lease (seconds), also the lease_time attribute's value. */
#define NFS4_LEASE_TIME 90u
/* The leases nfsxd --lease-time accepts (seconds). */
#define NFS4_LEASE_MIN 10u
#define NFS4_LEASE_MAX 3600u
/* Records (confirmed and unconfirmed) the server keeps at most. */
#define NFS4_CLIENTS_MAX 65536u
/* Longest callback netid and universal address kept; longer ones are
 * kept empty (no callback path: never probed, stays unknown). */
#define NFS4_CB_NETID_MAX 8u
#define NFS4_CB_ADDR_MAX 64u

/*
 * Who set a record: the RPC flavour and, for AUTH_SYS, the uid (as
 * knfsd's same_creds(); the peer's address is not part of it). Every
 * AUTH_NONE caller is the same principal.
 */
struct nfs4_principal {
	uint32_t flavor;
	uint32_t uid;
};

struct nfs4_callback {
	uint32_t program;
	uint32_t ident;
	char netid[NFS4_CB_NETID_MAX + 1];
	char addr[NFS4_CB_ADDR_MAX + 1];
};

/* What the server knows of a confirmed client's callback path. */
enum nfs4_cb_path {
	NFS4_CB_PATH_UNKNOWN = 0,   /* not probed yet, or the probe runs */
	NFS4_CB_PATH_UP,
	NFS4_CB_PATH_DOWN,
};

/* A confirmed client's callback, to call it (callback.c). */
struct nfs4_cb_target {
	struct nfs4_callback cb;
	struct nfs4_principal who;  /* the flavour of the client's calls */
	uint32_t gen;               /* of the callback's confirmation */
};

struct nfs4_clients;

/*
 * nfs4_clients_new - an empty table of at most @max records whose
 * clientids start with @boot (the server's start time, seconds).
 * Return values: the table, or NULL when memory is short.
 */
struct nfs4_clients *nfs4_clients_new(uint32_t boot, uint32_t max);

/* Leases of @t last @seconds from now on (before any call runs). */
void nfs4_clients_set_lease(struct nfs4_clients *t, uint32_t seconds);

/* Free @t and every record in it (no call may be running on it). */
void nfs4_clients_free(struct nfs4_clients *t);

/*
 * nfs4_clients_setclientid - SETCLIENTID (RFC 7530 16.33.5): client id
 * @id of @id_len bytes with @verf, set by @who, callback @cb (NULL: none)
 * at time @now (monotonic seconds). On NFS4_OK the new unconfirmed
 * record's clientid and confirm verifier are in @clientid and @confirm.
 * Return values: NFS4_OK; NFS4ERR_CLID_INUSE when a live confirmed
 * record of that id belongs to another principal; NFS4ERR_INVAL for an
 * id longer than NFS4_OPAQUE_LIMIT; NFS4ERR_RESOURCE when the table is
 * full; NFS4ERR_SERVERFAULT when memory is short.
 */
enum nfsstat4 nfs4_clients_setclientid(struct nfs4_clients *t, const uint8_t *id,
				       uint32_t id_len, const verifier4 *verf,
				       const struct nfs4_principal *who,
				       const struct nfs4_callback *cb, uint64_t now,
				       clientid4 *clientid, verifier4 *confirm);

/*
 * nfs4_clients_confirm - SETCLIENTID_CONFIRM of @clientid with @confirm
 * by @who at @now.
 * Return values: NFS4_OK (also for a retransmission after the record
 * was confirmed); NFS4ERR_STALE_CLIENTID for an unknown clientid or a
 * confirm verifier matching no record of it; NFS4ERR_CLID_INUSE when
 * @who is not the principal of the record(s), or another principal holds
 * a live confirmed record of the same id.
 */
enum nfsstat4 nfs4_clients_confirm(struct nfs4_clients *t, clientid4 clientid,
				   const verifier4 *confirm,
				   const struct nfs4_principal *who, uint64_t now);

/*
 * nfs4_clients_renew - renew the lease of confirmed client @clientid at
 * @now: RENEW, and the implicit renewal of every stateful operation.
 * Return values: NFS4_OK; NFS4ERR_STALE_CLIENTID when no live confirmed
 * record has that clientid (unknown, unconfirmed, or its lease ran out).
 */
enum nfsstat4 nfs4_clients_renew(struct nfs4_clients *t, clientid4 clientid, uint64_t now);

/*
 * nfs4_clients_renew_nowait - what nfs4_clients_alive() (then, with
 * @renew, nfs4_clients_renew()) finds for 4.1 client @clientid, on an
 * event loop: without waiting for the lock and without dropping any
 * record (which writes the restart record). A courtesy client counts as
 * live, and is revived (as nfs4_clients_revive() does) with @renew.
 * Return values: 0 when the client is live (renewed with @renew); -1
 * when the lock is busy, the record is gone or would be dropped: the
 * caller changes nothing and leaves the call to a worker.
 */
int nfs4_clients_renew_nowait(struct nfs4_clients *t, clientid4 clientid, bool renew,
			       uint64_t now);

/* nfs4_clients_drops - how many records have gone from the table so far:
 * while it is unchanged, a client found live is still there (a caller's
 * cache of that answer, read without the lock). */
uint64_t nfs4_clients_drops(struct nfs4_clients *t);

/* Return values: true when @clientid has a confirmed record whose lease
 * has not run out at @now (nothing renewed). */
bool nfs4_clients_live(struct nfs4_clients *t, clientid4 clientid, uint64_t now);

/*
 * nfs4_clients_set_state - the state table holds state of confirmed
 * client @clientid (@holds), or no longer does. A record whose lease ran
 * out while it holds state is a courtesy client (as Linux 5.19+): not
 * live (nfs4_clients_live: a conflict takes its state), skipped by the
 * other lookups, but revived by its own next call (nfs4_clients_renew,
 * nfs4_clients_revive) as if its lease had never run out. Courtesy
 * records are freed only when the table is full. Called with the state
 * table's lock held (that order only).
 */
void nfs4_clients_set_state(struct nfs4_clients *t, clientid4 clientid, bool holds);

/* The sessions table made (@delta +1) or freed (-1) a session of
 * confirmed client @clientid: a client with a session keeps its name
 * from another principal (EXCHANGE_ID's case 3). Called with the
 * sessions table's lock held (that order only). */
void nfs4_clients_sessions(struct nfs4_clients *t, clientid4 clientid, int delta);

/* A courtesy client's own call at @now: its lease starts again.
 * Return values: true when @clientid was a courtesy client. */
bool nfs4_clients_revive(struct nfs4_clients *t, clientid4 clientid, uint64_t now);

/*
 * nfs4_clients_set_record - @record(id, len, add) is told, under the
 * table's lock, when a client is confirmed (add) and when a confirmed
 * record goes (its lease ran out, or a new instance replaced it); not
 * when the table is freed. The restart record (recovery.h) listens.
 */
void nfs4_clients_set_record(struct nfs4_clients *t,
			     void (*record)(const uint8_t *id, uint32_t len, bool add));

/*
 * nfs4_clients_name - the id string of live confirmed client @clientid
 * into @buf (room NFS4_OPAQUE_LIMIT), its length into @len.
 * Return values: false when there is no such client.
 */
bool nfs4_clients_name(struct nfs4_clients *t, clientid4 clientid, uint64_t now,
		       uint8_t *buf, uint32_t *len);

/* What nfs4_clients_exchange_id() answers on NFS4_OK. */
struct nfs4_exid {
	clientid4 clientid;
	sequenceid4 seqid;          /* for the next CREATE_SESSION */
	bool confirmed;             /* EXCHGID4_FLAG_CONFIRMED_R */
};

/*
 * nfs4_clients_exchange_id - the client record part of EXCHANGE_ID (RFC
 * 8881 18.35.5, its nine cases) for owner @id of @id_len bytes with
 * verifier @verf, by @who; @update is EXCHGID4_FLAG_UPD_CONFIRMED_REC_A.
 * Return values: NFS4_OK with @out filled; NFS4ERR_CLID_INUSE when a
 * live confirmed record of the owner is another principal's;
 * NFS4ERR_NOENT, NFS4ERR_PERM, NFS4ERR_NOT_SAME for an update of no
 * confirmed record, of another principal's, with another verifier;
 * NFS4ERR_INVAL for an id longer than NFS4_OPAQUE_LIMIT;
 * NFS4ERR_DELAY when the table is full or memory is short.
 */
enum nfsstat4 nfs4_clients_exchange_id(struct nfs4_clients *t, const uint8_t *id,
				       uint32_t id_len, const verifier4 *verf,
				       const struct nfs4_principal *who, bool update,
				       uint64_t now, struct nfs4_exid *out);

/*
 * nfs4_clients_cs_check - the client record part of CREATE_SESSION
 * (RFC 8881 18.36.4) before a session is made: @seqid against the
 * record's, @who against its principal. A retransmission of the last
 * CREATE_SESSION of a confirmed record is answered from its cache: *@replay
 * set and @cached holding the reply to send again.
 * Return values: NFS4_OK (a new request, or *@replay); NFS4ERR_STALE_CLIENTID
 * for no live 4.1 record of @clientid; NFS4ERR_CLID_INUSE for another
 * principal; NFS4ERR_SEQ_MISORDERED for any other seqid.
 */
enum nfsstat4 nfs4_clients_cs_check(struct nfs4_clients *t, clientid4 clientid,
				    sequenceid4 seqid, const struct nfs4_principal *who,
				    uint64_t now, bool *replay,
				    struct CREATE_SESSION4res *cached);

/*
 * nfs4_clients_cs_done - CREATE_SESSION @seqid of @clientid succeeded
 * with reply @res (kept for a retransmission; its rdma arrays are not
 * kept): an unconfirmed record is confirmed, and a confirmed record of
 * the same owner under another clientid (the client's earlier
 * incarnation) goes; the lease is renewed.
 * Return values: NFS4_OK, or NFS4ERR_STALE_CLIENTID when the record is gone.
 */
enum nfsstat4 nfs4_clients_cs_done(struct nfs4_clients *t, clientid4 clientid,
				   sequenceid4 seqid, const struct CREATE_SESSION4res *res,
				   uint64_t now);

/*
 * nfs4_clients_alive - whether a live confirmed 4.1 record has @clientid
 * (its lease not run out at @now); nothing is renewed.
 * Return values: true or false.
 */
bool nfs4_clients_alive(struct nfs4_clients *t, clientid4 clientid, uint64_t now);

/*
 * nfs4_clients_reclaim_complete - RECLAIM_COMPLETE (RFC 8881 18.51) of
 * confirmed 4.1 client @clientid.
 * Return values: NFS4_OK the first time; NFS4ERR_COMPLETE_ALREADY after;
 * NFS4ERR_STALE_CLIENTID for no such live client.
 */
enum nfsstat4 nfs4_clients_reclaim_complete(struct nfs4_clients *t, clientid4 clientid,
					    uint64_t now);

/*
 * nfs4_clients_destroy - DESTROY_CLIENTID's part here (RFC 8881 18.50):
 * the 4.1 records of @clientid, confirmed or not, go (the caller checked
 * that no session or state is left).
 * Return values: NFS4_OK; NFS4ERR_STALE_CLIENTID for no live 4.1 record.
 */
enum nfsstat4 nfs4_clients_destroy(struct nfs4_clients *t, clientid4 clientid, uint64_t now);

/* Return values: true when live confirmed 4.1 client @clientid has sent
 * RECLAIM_COMPLETE. */
bool nfs4_clients_reclaimed(struct nfs4_clients *t, clientid4 clientid, uint64_t now);

/*
 * nfs4_clients_cb_target - the callback of live confirmed client
 * @clientid at @now, into @out.
 * Return values: true; false when there is no such client.
 */
bool nfs4_clients_cb_target(struct nfs4_clients *t, clientid4 clientid, uint64_t now,
			    struct nfs4_cb_target *out);

/*
 * nfs4_clients_cb_set - the callback path of confirmed client @clientid
 * is @path, as found by a call made for generation @gen: ignored when
 * the client is gone or confirmed a callback since.
 */
void nfs4_clients_cb_set(struct nfs4_clients *t, clientid4 clientid, uint32_t gen,
			 enum nfs4_cb_path path);

/* Return values: the callback path of live confirmed client @clientid at
 * @now; NFS4_CB_PATH_UNKNOWN when there is no such client. */
enum nfs4_cb_path nfs4_clients_cb_path(struct nfs4_clients *t, clientid4 clientid,
				       uint64_t now);

/* Return values: records in @t, dead ones not yet freed included. */
uint32_t nfs4_clients_count(struct nfs4_clients *t);

#endif
