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
#include <string.h>
#include <time.h>

#include "nfs4/callback.h"
#include "nfs4/clients.h"
#include "nfs4/internal.h"
#include "nfs4/nfs4.h"

static struct nfs4_clients *clients;
static struct nfs4_cb *callbacks;

int nfs4_init(void)
{
	clients = nfs4_clients_new((uint32_t)time(NULL), NFS4_CLIENTS_MAX);
	return clients ? 0 : -1;
}

int nfs4_callbacks_start(void)
{
	if (!clients)
		return -1;
	callbacks = nfs4_cb_new(clients, NFS4_LEASE_TIME);
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

void nfs4_fini(void)
{
	callbacks_stop();
	nfs4_clients_free(clients);
	clients = NULL;
}

static uint64_t now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec;
}

static void principal(const struct rpc_req *req, struct nfs4_principal *who)
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

bool nfs4_cb_path_up(clientid4 clientid)
{
	return clients && nfs4_clients_cb_path(clients, clientid, now_sec()) == NFS4_CB_PATH_UP;
}

enum nfsstat4 nfs4_client_renew(clientid4 clientid)
{
	if (!clients)
		return NFS4ERR_SERVERFAULT;
	return nfs4_clients_renew(clients, clientid, now_sec());
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
	principal(c->req, &who);
	bounded(cb.netid, NFS4_CB_NETID_MAX, &args->callback.cb_location.na_r_netid);
	bounded(cb.addr, NFS4_CB_ADDR_MAX, &args->callback.cb_location.na_r_addr);
	res->status = nfs4_clients_setclientid(clients, args->client.id.data,
					       args->client.id.len, &args->client.verifier,
					       &who, &cb, now_sec(), &res->u.resok4.clientid,
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
	principal(c->req, &who);
	r->u.opsetclientid_confirm.status =
		nfs4_clients_confirm(clients, args->clientid, &args->setclientid_confirm,
				     &who, now_sec());
	if (r->u.opsetclientid_confirm.status == NFS4_OK)
		nfs4_cb_probe(callbacks, args->clientid);
	return r->u.opsetclientid_confirm.status;
}

enum nfsstat4 nfs4_renew(struct nfs4_compound *c, const struct nfs_argop4 *a,
			 struct nfs_resop4 *r)
{
	(void)c;
	return r->u.oprenew.status = nfs4_client_renew(a->u.oprenew.clientid);
}
