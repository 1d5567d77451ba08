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
 * - Leases last NFS4_LEASE_TIME seconds. A record whose lease ran out
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

/* The lease (seconds), also the lease_time attribute's value. */
#define NFS4_LEASE_TIME 90u
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
