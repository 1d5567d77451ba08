/* SPDX-License-Identifier: MIT */
/*
 * The session operations of NFSv4.1 (RFC 8881): EXCHANGE_ID (18.35),
 * CREATE_SESSION (18.36), DESTROY_SESSION (18.37), SEQUENCE (18.46),
 * BIND_CONN_TO_SESSION (18.34), DESTROY_CLIENTID (18.50)
 * and RECLAIM_COMPLETE (18.51), on the server's
 * one table of sessions (sessions.h) over its client records.
 *
 * DESIGN
 * - Where each may stand in a COMPOUND, the replay of a SEQUENCE and the
 *   response size limits are compound.c's; here each operation is its
 *   table call and its result.
 * - State protection: SP4_NONE only. SP4_MACH_CRED needs an integrity
 *   protected flavour, which the server does not have (NFS4ERR_INVAL, as
 *   knfsd answers it over AUTH_SYS); SP4_SSV NFS4ERR_ENCR_ALG_UNSUPP.
 * - The server owner's major id and the server scope: the host name
 *   (the scope, as knfsd's: stable across restarts) and, for the major
 *   id, random bytes of this instance too, so that two servers on one
 *   host (tests run several) are never taken for one by a client that
 *   detects trunking.
 * - No grace period exists yet: RECLAIM_COMPLETE only records that it
 *   was done, once per client.
 */
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "nfs4/internal.h"
#include "nfs4/sessions.h"

/* The eia_flags a client may send (RFC 8881 18.35.3), knfsd's
 * EXCHGID4_FLAG_MASK_A: SUPP_FENCE_OPS (0x4) is INVAL there, as pynfs
 * EID4 expects; CONFIRMED_R is the server's. */
#define EXID_FLAGS_A (EXCHGID4_FLAG_SUPP_MOVED_REFER | EXCHGID4_FLAG_SUPP_MOVED_MIGR | \
		      EXCHGID4_FLAG_BIND_PRINC_STATEID | EXCHGID4_FLAG_MASK_PNFS | \
		      EXCHGID4_FLAG_UPD_CONFIRMED_REC_A)

static struct nfs4_sessions *sessions;
static char scope[80];          /* the host name */
static char major[128];         /* the host name and this instance's bytes */

int nfs4_sessions_init(struct nfs4_clients *clients)
{
	uint8_t inst[8];
	char host[64] = "";
	size_t i, n;

	sessions = nfs4_sessions_new(clients, NFS4_SESSIONS_MAX);
	if (!sessions)
		return -1;
	if (gethostname(host, sizeof(host) - 1) < 0 || !host[0])
		strcpy(host, "localhost");
	host[sizeof(host) - 1] = '\0';
	snprintf(scope, sizeof(scope), "nfsxd:%s", host);
	randombytes_buf(inst, sizeof(inst));
	n = (size_t)snprintf(major, sizeof(major), "%s:", scope);
	for (i = 0; i < sizeof(inst) && n + 2 < sizeof(major); i++, n += 2)
		snprintf(major + n, sizeof(major) - n, "%02x", inst[i]);
	return 0;
}

void nfs4_sessions_fini(void)
{
	nfs4_sessions_free(sessions);
	sessions = NULL;
}

struct nfs4_sessions *nfs4_sessions_table(void)
{
	return sessions;
}

enum nfsstat4 nfs4_exchange_id(struct nfs4_compound *c, const struct nfs_argop4 *a,
			       struct nfs_resop4 *r)
{
	const struct EXCHANGE_ID4args *args = &a->u.opexchange_id;
	struct EXCHANGE_ID4res *res = &r->u.opexchange_id;
	struct EXCHANGE_ID4resok *ok = &res->u.eir_resok4;
	struct nfs4_principal who;
	struct nfs4_exid x;
	enum nfsstat4 st;

	if (!sessions)
		return res->eir_status = NFS4ERR_SERVERFAULT;
	if (args->eia_flags & ~(uint32_t)EXID_FLAGS_A)
		return res->eir_status = NFS4ERR_INVAL;
	switch (args->eia_state_protect.spa_how) {
	case SP4_NONE:
		break;
	case SP4_MACH_CRED:
		return res->eir_status = NFS4ERR_INVAL;
	default:
		return res->eir_status = NFS4ERR_ENCR_ALG_UNSUPP;
	}
	nfs4_principal_of(c->req, &who);
	st = nfs4_sessions_exchange_id(sessions, args->eia_clientowner.co_ownerid.data,
				       args->eia_clientowner.co_ownerid.len,
				       &args->eia_clientowner.co_verifier, &who,
				       args->eia_flags & EXCHGID4_FLAG_UPD_CONFIRMED_REC_A,
				       nfs4_now_sec(), &x);
	if (st != NFS4_OK)
		return res->eir_status = st;
	ok->eir_clientid = x.clientid;
	ok->eir_sequenceid = x.seqid;
	ok->eir_flags = EXCHGID4_FLAG_USE_NON_PNFS | (x.confirmed ? EXCHGID4_FLAG_CONFIRMED_R : 0);
	ok->eir_state_protect.spr_how = SP4_NONE;
	ok->eir_server_owner.so_minor_id = 0;
	ok->eir_server_owner.so_major_id.data = (const uint8_t *)major;
	ok->eir_server_owner.so_major_id.len = (uint32_t)strlen(major);
	ok->eir_server_scope.data = (const uint8_t *)scope;
	ok->eir_server_scope.len = (uint32_t)strlen(scope);
	ok->eir_server_impl_id.len = 0;
	return res->eir_status = NFS4_OK;
}

enum nfsstat4 nfs4_create_session(struct nfs4_compound *c, const struct nfs_argop4 *a,
				  struct nfs_resop4 *r)
{
	struct nfs4_principal who;
	enum nfsstat4 st;

	if (!sessions)
		return r->u.opcreate_session.csr_status = NFS4ERR_SERVERFAULT;
	/* flags RFC 8881 18.36.3 does not define: INVAL (knfsd) */
	if (a->u.opcreate_session.csa_flags &
	    ~(uint32_t)(CREATE_SESSION4_FLAG_PERSIST | CREATE_SESSION4_FLAG_CONN_BACK_CHAN |
			CREATE_SESSION4_FLAG_CONN_RDMA))
		return r->u.opcreate_session.csr_status = NFS4ERR_INVAL;
	nfs4_principal_of(c->req, &who);
	st = nfs4_sessions_create(sessions, &a->u.opcreate_session, &who,
				  rpc_req_conn_id(c->req), rpc_req_max_record(c->req),
				  nfs4_now_sec(), &r->u.opcreate_session);
	if (st == NFS4_OK)
		nfs4_sessions_set_minor(sessions, &r->u.opcreate_session.u.csr_resok4.csr_sessionid,
					c->minorversion);
	/* the back channel's handle, for the recalls (a replay's session
	 * keeps the connection it recorded first) */
	if (st == NFS4_OK && (r->u.opcreate_session.u.csr_resok4.csr_flags &
			      CREATE_SESSION4_FLAG_CONN_BACK_CHAN))
		nfs4_deleg_bind(c, &r->u.opcreate_session.u.csr_resok4.csr_sessionid);
	return st;
}

enum nfsstat4 nfs4_sequence(struct nfs4_compound *c, const struct nfs_argop4 *a,
			    struct nfs_resop4 *r)
{
	struct SEQUENCE4res *res = &r->u.opsequence;
	enum nfsstat4 st;
	/* the reply so far (RPC header, COMPOUND head) and this result:
	 * its number, status, sessionid and five words */
	size_t reply = xdr_enc_len(&c->req->enc) + 4 + 4 + NFS4_SESSIONID_SIZE + 5 * 4;

	if (!sessions)
		return res->sr_status = NFS4ERR_SERVERFAULT;
	if (c->req->on_loop) {
		st = nfs4_sessions_sequence_nowait(sessions, &a->u.opsequence,
						   (uint32_t)(c->req->rec_len + c->rec_rest), c->nops,
						   (uint32_t)reply, nfs4_now_sec(),
						   &res->u.sr_resok4, &c->slot, &c->would_block);
		if (c->would_block)
			return res->sr_status = st;
	} else {
		st = nfs4_sessions_sequence(sessions, &a->u.opsequence,
					    (uint32_t)c->req->rec_len, c->nops, (uint32_t)reply,
					    nfs4_now_sec(), &res->u.sr_resok4, &c->slot);
	}
	if (st == NFS4_OK) {
		c->clientid = c->slot.clientid;
		c->sequenced = true;
		/* a delegation revoked, until the client frees it (RFC
		 * 8881 18.46.3); asked only while any delegation exists */
		if (nfs4_delegs_revoked(c->clientid))
			res->u.sr_resok4.sr_status_flags |= SEQ4_STATUS_RECALLABLE_STATE_REVOKED;
	}
	return res->sr_status = st;
}

enum nfsstat4 nfs4_destroy_session(struct nfs4_compound *c, const struct nfs_argop4 *a,
				   struct nfs_resop4 *r)
{
	const sessionid4 *id = &a->u.opdestroy_session.dsa_sessionid;

	if (!sessions)
		return r->u.opdestroy_session.dsr_status = NFS4ERR_SERVERFAULT;
	/* RFC 8881 18.37.3: the COMPOUND's own session is destroyed by
	 * its last operation only (NOT_ONLY_OP, as knfsd) */
	if (c->slot.s && !memcmp(c->slot.sid.val, id->val, sizeof(id->val)) &&
	    c->op_index + 1 != c->nops)
		return r->u.opdestroy_session.dsr_status = NFS4ERR_NOT_ONLY_OP;
	return r->u.opdestroy_session.dsr_status =
		nfs4_sessions_destroy(sessions, id, &c->slot, nfs4_now_sec());
}

enum nfsstat4 nfs4_bind_conn_to_session(struct nfs4_compound *c, const struct nfs_argop4 *a,
					struct nfs_resop4 *r)
{
	const struct BIND_CONN_TO_SESSION4args *args = &a->u.opbind_conn_to_session;
	struct BIND_CONN_TO_SESSION4res *res = &r->u.opbind_conn_to_session;
	enum channel_dir_from_server4 dir = CDFS4_FORE;
	enum nfsstat4 st;

	if (!sessions)
		return res->bctsr_status = NFS4ERR_SERVERFAULT;
	/* alone, even after SEQUENCE (RFC 8881 18.34.3) */
	if (c->nops != 1)
		return res->bctsr_status = NFS4ERR_NOT_ONLY_OP;
	st = nfs4_sessions_bind_conn(sessions, &args->bctsa_sessid, args->bctsa_dir,
				     rpc_req_conn_id(c->req), nfs4_now_sec(), &dir);
	if (st == NFS4_OK) {
		res->u.bctsr_resok4.bctsr_sessid = args->bctsa_sessid;
		res->u.bctsr_resok4.bctsr_dir = dir;
		/* no RDMA */
		res->u.bctsr_resok4.bctsr_use_conn_in_rdma_mode = false;
		if (dir != CDFS4_FORE)
			nfs4_deleg_bind(c, &args->bctsa_sessid);
	}
	return res->bctsr_status = st;
}

/* The callbacks' program and credential of the COMPOUND's session from
 * now on (RFC 8881 18.33). */
enum nfsstat4 nfs4_backchannel_ctl(struct nfs4_compound *c, const struct nfs_argop4 *a,
				   struct nfs_resop4 *r)
{
	const struct BACKCHANNEL_CTL4args *args = &a->u.opbackchannel_ctl;

	if (!sessions)
		return r->u.opbackchannel_ctl.bcr_status = NFS4ERR_SERVERFAULT;
	if (!c->sequenced)
		return r->u.opbackchannel_ctl.bcr_status = NFS4ERR_OP_NOT_IN_SESSION;
	return r->u.opbackchannel_ctl.bcr_status =
		nfs4_sessions_backchannel_ctl(sessions, &c->slot.sid, args->bca_cb_program,
					      args->bca_sec_parms.val, args->bca_sec_parms.len);
}

enum nfsstat4 nfs4_destroy_clientid(struct nfs4_compound *c, const struct nfs_argop4 *a,
				    struct nfs_resop4 *r)
{
	(void)c;
	if (!sessions)
		return r->u.opdestroy_clientid.dcr_status = NFS4ERR_SERVERFAULT;
	/* opens and locks keep the client (knfsd's client_has_state) */
	if (nfs4_state_client_count(nfs4_states, a->u.opdestroy_clientid.dca_clientid))
		return r->u.opdestroy_clientid.dcr_status = NFS4ERR_CLIENTID_BUSY;
	return r->u.opdestroy_clientid.dcr_status =
		nfs4_sessions_destroy_client(sessions, a->u.opdestroy_clientid.dca_clientid,
					     nfs4_now_sec());
}

enum nfsstat4 nfs4_reclaim_complete(struct nfs4_compound *c, const struct nfs_argop4 *a,
				    struct nfs_resop4 *r)
{
	struct RECLAIM_COMPLETE4res *res = &r->u.opreclaim_complete;

	if (!sessions)
		return res->rcr_status = NFS4ERR_SERVERFAULT;
	if (!c->sequenced)
		return res->rcr_status = NFS4ERR_OP_NOT_IN_SESSION;
	/* One file system's reclaims done: with no migration there is
	 * nothing to record (as knfsd), but the operation needs the file
	 * system's handle. */
	if (a->u.opreclaim_complete.rca_one_fs)
		return res->rcr_status = c->cur.kind == NFS4_FH_NONE ? NFS4ERR_NOFILEHANDLE
								      : NFS4_OK;
	res->rcr_status = nfs4_sessions_reclaim_complete(sessions, c->clientid, nfs4_now_sec());
	/* grace may end once every client of the previous run is done */
	if (res->rcr_status == NFS4_OK)
		nfs4_client_reclaimed(c->clientid);
	return res->rcr_status;
}
