/* SPDX-License-Identifier: MIT */
/*
 * SETCLIENTID, SETCLIENTID_CONFIRM and RENEW (RFC 7530 16.33, 16.34,
 * 16.26) on the server's one table of client records (clients.h), which
 * nfs4_init() makes; and the implicit renewal every stateful operation
 * of minor version 0 will do (nfs4_client_renew).
 *
 * DESIGN
 * - The principal of a call is its credential's flavour and, for
 *   AUTH_SYS, its uid: not the peer's address, which changes with
 *   NAT and reconnections while the client stays the same.
 * - A CLID_INUSE answer's client_using is empty (as knfsd's): the
 *   callback address of another principal's client is not told.
 * - None of these needs a current filehandle.
 * - A confirmation that sets a callback probes it (callback.h) once the
 *   callbacks are started (nfs4_callbacks_start: nfsxd does, the fuzz
 *   target does not, so that it never connects anywhere); the probe
 *   runs on the callout thread, the CONFIRM does not wait for it.
 */
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "nfs4/callback.h"
#include "nfs4/clients.h"
#include "nfs4/internal.h"
#include "nfs4/recovery.h"
#include "nfs4/nfs4.h"

static struct nfs4_clients *clients;
static struct nfs4_cb *callbacks;
uint32_t nfs4_lease_time = NFS4_LEASE_TIME;



/* The state table's question: does @clientid still hold its lease? */
static bool client_live(clientid4 clientid)
{
	return nfs4_clients_live(clients, clientid, nfs4_now_sec());
}

/* The state table's news: @clientid holds state now, or no longer. */
static void client_holds(clientid4 clientid, bool holds)
{
	nfs4_clients_set_state(clients, clientid, holds);
}

bool nfs4_in_grace(void)
{
	return nfs4_recov_in_grace(nfs4_now_sec());
}

enum nfsstat4 nfs4_may_reclaim(clientid4 clientid)
{
	uint8_t id[NFS4_OPAQUE_LIMIT];
	uint32_t len;

	if (!nfs4_in_grace())
		return NFS4ERR_NO_GRACE;
	if (!nfs4_clients_name(clients, clientid, nfs4_now_sec(), id, &len))
		return NFS4ERR_STALE_CLIENTID;
	return nfs4_recov_may_reclaim(id, len) ? NFS4_OK : NFS4ERR_RECLAIM_BAD;
}

void nfs4_client_reclaimed(clientid4 clientid)
{
	uint8_t id[NFS4_OPAQUE_LIMIT];
	uint32_t len;

	if (nfs4_clients_name(clients, clientid, nfs4_now_sec(), id, &len))
		nfs4_recov_reclaim_complete(id, len);
}

bool nfs4_client_reclaim_done(clientid4 clientid)
{
	return nfs4_clients_reclaimed(clients, clientid, nfs4_now_sec());
}

int nfs4_init(uint32_t lease, const char *state_dir, char *err, size_t errlen)
{
	uint32_t boot;

	snprintf(err, errlen, "out of memory");
	nfs4_stats_rows_add();
	boot = (uint32_t)time(NULL);
	clients = nfs4_clients_new(boot, NFS4_CLIENTS_MAX);
	if (!clients)
		return -1;
	nfs4_lease_time = lease;
	nfs4_clients_set_lease(clients, lease);
	if (nfs4_recov_open(state_dir, nfs4_now_sec(), lease, err, errlen) < 0) {
		nfs4_fini();
		return -1;
	}
	nfs4_clients_set_record(clients, nfs4_recov_note);
	/* stateids of an earlier instance must be unknown here (STALE) */
	nfs4_states = nfs4_state_new(randombytes_random());
	if (!nfs4_states) {
		nfs4_fini();
		return -1;
	}
	nfs4_state_set_live(nfs4_states, client_live, boot);
	nfs4_state_set_holds(nfs4_states, client_holds);
	nfs4_state_set_fslocks(nfs4_states, &nfs4_fslocks_vfs);
	nfs4_state_set_unpin(nfs4_states, nfs4_unpin_file);
	nfs4_deleg_init();
	randombytes_buf(nfs4_write_verf.val, sizeof(nfs4_write_verf.val));
	if (nfs4_sessions_init(clients) < 0) {
		nfs4_fini();
		return -1;
	}
	return 0;
}

int nfs4_callbacks_start(void)
{
	if (!clients)
		return -1;
	callbacks = nfs4_cb_new(clients, nfs4_lease_time);
	return callbacks ? 0 : -1;
}

static void callbacks_stop(void)
{
	nfs4_cb_free(callbacks);
	callbacks = NULL;
}

struct nfs4_cb *nfs4_callbacks(void)
{
	return callbacks;
}

bool nfs4_cb_path_up(clientid4 clientid)
{
	return clients &&
	       nfs4_clients_cb_path(clients, clientid, nfs4_now_sec()) == NFS4_CB_PATH_UP;
}

void nfs4_sweep(void)
{
	nfs4_recov_sync();
}

void nfs4_fini(void)
{
	nfs4_copies_stop();
	nfs4_compound_log_counts();
	nfs4_io_log_counts();
	nfs4_rp_log_counts();
	nfs4_write_bulk_log_counts();
	/* the open-object cache may be gone already (nfsxd stops NFSv3 and
	 * the exports first): pinned nodes are closed, not to be let go of */
	if (nfs4_states)
		nfs4_state_set_unpin(nfs4_states, NULL);
	callbacks_stop();
	if (nfs4_states)
		nfs4_deleg_fini();
	nfs4_sessions_fini();
	nfs4_recov_close();
	nfs4_state_free(nfs4_states);
	nfs4_states = NULL;
	nfs4_clients_free(clients);
	clients = NULL;
}

void nfs4_stats_get(struct nfs4_stats *st)
{
	struct nfs4_sessions *sessions = nfs4_sessions_table();

	memset(st, 0, sizeof(*st));
	if (clients)
		st->clients = nfs4_clients_count(clients);
	if (sessions) {
		struct nfs4_sessions_counts sc;

		nfs4_sessions_get_counts(sessions, &sc);
		st->sessions = sc.sessions;
		st->slot_replays = sc.slot_replays;
		st->slot_uncached = sc.slot_uncached;
	}
	if (nfs4_states) {
		struct nfs4_state_counts tc;

		nfs4_state_get_counts(nfs4_states, &tc);
		st->opens = tc.opens;
		st->locks = tc.locks;
		st->delegations = tc.delegations;
		st->seqid_replays = tc.seqid_replays;
	}
}

uint64_t nfs4_now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec;
}

void nfs4_principal_of(const struct rpc_req *req, struct nfs4_principal *who)
{
	who->flavor = req->call.cred.flavor;
	who->uid = who->flavor == RPC_AUTH_SYS ? req->call.cred.uid : 0;
}

/* Copy @b into @dst of room @max + 1 as a string; one too long (or with
 * a NUL in it) is kept empty. */
static void bounded(char *dst, uint32_t max, const struct xdr_bytes *b)
{
	dst[0] = '\0';
	/* an empty string may come with no data pointer at all */
	if (b->len == 0 || b->len > max || memchr(b->data, '\0', b->len))
		return;
	memcpy(dst, b->data, b->len);
	dst[b->len] = '\0';
}

enum nfsstat4 nfs4_client_renew(clientid4 clientid)
{
	enum nfsstat4 st;

	if (!clients)
		return NFS4ERR_SERVERFAULT;
	st = nfs4_clients_renew(clients, clientid, nfs4_now_sec());
	/* A client whose record went (its lease ran out, or a new instance
	 * of it was confirmed) while it still held state, kept for it as
	 * a courtesy: the state goes now, and the client learns EXPIRED
	 * (RFC 7530 9.6.3; knfsd's answer to a courtesy client). */
	if (st == NFS4ERR_STALE_CLIENTID && nfs4_states &&
	    nfs4_state_client_count(nfs4_states, clientid)) {
		nfs4_state_purge_client(nfs4_states, clientid);
		st = NFS4ERR_EXPIRED;
	} else if (st == NFS4ERR_STALE_CLIENTID && nfs4_states &&
		   nfs4_state_reaped(nfs4_states, clientid)) {
		/* ... or whose state another client's conflict took */
		st = NFS4ERR_EXPIRED;
	}
	return st;
}

enum nfsstat4 nfs4_setclientid(struct nfs4_compound *c, const struct nfs_argop4 *a,
			       struct nfs_resop4 *r)
{
	const struct SETCLIENTID4args *args = &a->u.opsetclientid;
	struct SETCLIENTID4res *res = &r->u.opsetclientid;
	struct nfs4_principal who;
	struct nfs4_callback cb = {
		.program = args->callback.cb_program,
		.ident = args->callback_ident,
	};

	if (!clients)
		return res->status = NFS4ERR_SERVERFAULT;
	nfs4_principal_of(c->req, &who);
	bounded(cb.netid, NFS4_CB_NETID_MAX, &args->callback.cb_location.na_r_netid);
	bounded(cb.addr, NFS4_CB_ADDR_MAX, &args->callback.cb_location.na_r_addr);
	res->status = nfs4_clients_setclientid(clients, args->client.id.data,
					       args->client.id.len, &args->client.verifier,
					       &who, &cb, nfs4_now_sec(), &res->u.resok4.clientid,
					       &res->u.resok4.setclientid_confirm);
	return res->status;
}

enum nfsstat4 nfs4_setclientid_confirm(struct nfs4_compound *c, const struct nfs_argop4 *a,
				       struct nfs_resop4 *r)
{
	const struct SETCLIENTID_CONFIRM4args *args = &a->u.opsetclientid_confirm;
	struct nfs4_principal who;

	if (!clients)
		return r->u.opsetclientid_confirm.status = NFS4ERR_SERVERFAULT;
	nfs4_principal_of(c->req, &who);
	r->u.opsetclientid_confirm.status =
		nfs4_clients_confirm(clients, args->clientid, &args->setclientid_confirm,
				     &who, nfs4_now_sec());
	if (r->u.opsetclientid_confirm.status == NFS4_OK)
		nfs4_cb_probe(callbacks, args->clientid);
	return r->u.opsetclientid_confirm.status;
}

enum nfsstat4 nfs4_renew(struct nfs4_compound *c, const struct nfs_argop4 *a,
			 struct nfs_resop4 *r)
{
	clientid4 cid = a->u.oprenew.clientid;
	enum nfsstat4 st = nfs4_client_renew(cid);
	uint32_t held, revoked;

	(void)c;
	/* renewed, but the client must learn that its delegations cannot
	 * be recalled (RFC 7530 16.29.4) */
	if (st == NFS4_OK && nfs4_delegs_held() &&
	    nfs4_clients_cb_path(clients, cid, nfs4_now_sec()) == NFS4_CB_PATH_DOWN) {
		nfs4_state_client_delegs(nfs4_states, cid, &held, &revoked);
		if (held)
			st = NFS4ERR_CB_PATH_DOWN;
	}
	return r->u.oprenew.status = st;
}
