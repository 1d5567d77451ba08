/* SPDX-License-Identifier: MIT */
/*
 * Read and write delegations on the wire (RFC 7530 10.2, 10.4; RFC 8881
 * 10.2, 10.4, 20.2): offered in OPEN's result, recalled with CB_RECALL
 * before another client (or NFSv3) changes the file, or for a write
 * delegation reads it, returned with DELEGRETURN. The decisions are the
 * state table's (state.h, state_deleg.c); this file asks it and sends
 * what it hands out.
 *
 * DESIGN
 * - Offered only when the client's callback path works: a 4.0 client's
 *   CB_NULL probe succeeded (callback.h), a 4.1 client has a session
 *   with a back channel that did not fail (sessions.h). Never during
 *   grace, never for an OPEN that creates, never for CLAIM_PREVIOUS or a
 *   delegation claim. The kind follows the access asked, as knfsd's
 *   nfs4_set_delegation (Linux 6.16+): an OPEN with write access (WRITE
 *   or BOTH) gets a write delegation or none, a read-only one a read
 *   delegation; a 4.1 client's WANT_READ_DELEG or WANT_WRITE_DELEG
 *   asks for that kind only. A 4.0 client gets no write delegation (an
 *   OPEN of it with write access none at all), as from knfsd: a 4.0
 *   GETATTR does not say whose it is, so a holder's own GETATTR of size
 *   or change would recall its write delegation, and the Linux client's
 *   PUTFH, GETATTR, DELEGRETURN would stop at the GETATTR for ever. A
 *   write delegation's space_limit is NFS_LIMIT_SIZE 0, as knfsd's: no
 *   space is promised, so a Linux client writes back at close rather
 *   than holding dirty pages.
 * - A change of a file (nfs4_deleg_break) first asks the table; each
 *   recall it hands out goes at once, asynchronously: CB_COMPOUND with
 *   CB_RECALL to a 4.0 client's callback address (the callout thread), or
 *   CB_SEQUENCE + CB_RECALL on a 4.1 client's back channel (its
 *   connection's event loop). The caller answers DELAY meanwhile; no
 *   thread waits. A recall that gets no answer, or not NFS4_OK, is marked
 *   unsent and goes again at the caller's next try (the Linux client
 *   answers BAD_STATEID to a recall that overtook the OPEN reply granting
 *   the delegation).
 * - Whether any delegation exists is one atomic load, so that WRITE,
 *   SETATTR, REMOVE and RENAME pay no lock and no extra lookup of a name
 *   while none is held (only their change mark, vfs/lease.h, which a
 *   grant racing them looks at); READ, GETATTR of the size or
 *   change and read-only OPENs ask another load, of the write
 *   delegations held, and pay nothing while only read ones exist.
 * - GETATTR of a write-delegated file's size or change by another client
 *   recalls the delegation (DELAY meanwhile) rather than asking the
 *   holder with CB_GETATTR as knfsd does: the answer is right either
 *   way, the recall only costs the holder its cache.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "nfs4/callback.h"
#include "nfs4/internal.h"
#include "nfs4/nfs4.h"
#include "rpc/backchan.h"
#include "util/log.h"
#include "vfs/lease.h"

static atomic_int held, revoked, wheld;
/* --delegations: written before version 4 is served (nfs4.h) */
static bool offer = true;

void nfs4_set_delegations(bool on)
{
	offer = on;
}

static void count(int held_delta, int revoked_delta, int write_delta)
{
	atomic_fetch_add_explicit(&held, held_delta, memory_order_relaxed);
	atomic_fetch_add_explicit(&revoked, revoked_delta, memory_order_relaxed);
	atomic_fetch_add_explicit(&wheld, write_delta, memory_order_relaxed);
	if (held_delta)
		vfs_lease_count(held_delta);
	if (write_delta)
		vfs_lease_count_write(write_delta);
}

/* NFSv3's way in (vfs/lease.h): its calls name no NFSv4 client. */
static int vfs_breaker(void *arg, dev_t dev, ino_t ino, uint64_t breaker,
		       enum vfs_break_why why)
{
	struct nfs4_file_id f = { .dev = dev, .ino = ino };
	enum nfsstat4 st;

	(void)arg;
	/* every change conflicts with any delegation, a read only with a
	 * write one */
	if (why == VFS_BREAK_READ || why == VFS_BREAK_GETATTR)
		st = nfs4_deleg_break_read(&f, breaker);
	else
		st = nfs4_deleg_break(&f, breaker);
	return st == NFS4_OK ? 0 : -EAGAIN;
}

void nfs4_deleg_init(void)
{
	atomic_store(&held, 0);
	atomic_store(&revoked, 0);
	atomic_store(&wheld, 0);
	nfs4_state_set_deleg_count(nfs4_states, count);
	vfs_lease_set_breaker(vfs_breaker, NULL);
}

void nfs4_deleg_fini(void)
{
	vfs_lease_set_breaker(NULL, NULL);
	vfs_lease_count(-atomic_exchange(&held, 0));
	vfs_lease_count_write(-atomic_exchange(&wheld, 0));
}

bool nfs4_delegs_held(void)
{
	return atomic_load_explicit(&held, memory_order_relaxed) > 0;
}

bool nfs4_wdelegs_held(void)
{
	return atomic_load_explicit(&wheld, memory_order_relaxed) > 0;
}

bool nfs4_delegs_revoked(clientid4 clientid)
{
	uint32_t h, r;

	if (atomic_load_explicit(&revoked, memory_order_relaxed) <= 0 || !nfs4_states)
		return false;
	nfs4_state_client_delegs(nfs4_states, clientid, &h, &r);
	return r > 0;
}

static void bc_get(void *ref)
{
	rpc_backchan_get(ref);
}

static void bc_put(void *ref)
{
	rpc_backchan_put(ref);
}

void nfs4_deleg_bind(struct nfs4_compound *c, const sessionid4 *id)
{
	struct rpc_backchan *bc = rpc_req_backchan(c->req);

	if (bc && nfs4_sessions_table())
		nfs4_sessions_set_back_ref(nfs4_sessions_table(), id, rpc_req_conn_id(c->req), bc,
					   bc_put);
	else if (bc)
		rpc_backchan_put(bc);
}

/* ---- recalls ---- */

#define RECALL_ROUNDS 64u

struct recall_call {
	struct nfs4_recall r;
	bool minor1;
	struct nfs4_cb_slot slot;   /* 4.1: the back channel slot taken */
};

static void recall_done(void *arg, enum rpc_call_status st, const struct nfs4_cb_res *res)
{
	struct recall_call *k = arg;
	bool ok = st == RPC_CALL_OK && res && res->status == NFS4_OK;

	if (k->minor1) {
		nfs4_sessions_cb_end(nfs4_sessions_table(), &k->slot, st == RPC_CALL_OK);
		rpc_backchan_put(k->slot.ref);
	}
	if (!ok) {
		log_debug("NFSv4 recall of a delegation of client %016" PRIx64 ": %s, status %d",
			  k->r.clientid, rpc_call_status_str(st), res ? (int)res->status : -1);
		nfs4_state_deleg_unsent(nfs4_states, &k->r.sid);
	}
	free(k);
}

/* The reply wait of a callback: a tenth of the lease, as 4.0's (callback.h). */
static unsigned int reply_ms(void)
{
	return nfs4_lease_time >= 10 ? nfs4_lease_time * 100u : 1000u;
}

static int send_on_session(struct recall_call *k, const nfs_fh4 *fh)
{
	struct nfs_cb_argop4 ops[2];
	struct rpc_out_cred cred = { 0 };
	struct CB_SEQUENCE4args *sq = &ops[0].u.opcbsequence;

	if (!nfs4_sessions_table() ||
	    !nfs4_sessions_cb_begin(nfs4_sessions_table(), k->r.clientid, nfs4_now_sec(), bc_get,
				    &k->slot))
		return -1;
	memset(ops, 0, sizeof(ops));
	ops[0].argop = OP_CB_SEQUENCE;
	sq->csa_sessionid = k->slot.session;
	sq->csa_sequenceid = k->slot.seqid;
	sq->csa_slotid = k->slot.slot;
	sq->csa_highest_slotid = k->slot.highest;
	sq->csa_cachethis = false;
	ops[1].argop = OP_CB_RECALL;
	ops[1].u.opcbrecall.stateid = k->r.sid;
	ops[1].u.opcbrecall.truncate = false;
	ops[1].u.opcbrecall.fh = *fh;
	cred.flavor = k->slot.flavor;
	cred.uid = k->slot.uid;
	cred.gid = k->slot.gid;
	cred.machine = nfs4_cb_machine(nfs4_callbacks());
	if (nfs4_cb_send_on_conn(k->slot.ref, k->slot.cb_program, k->slot.minor, &cred, ops, 2,
				 reply_ms(),
				 recall_done, k) < 0) {
		nfs4_sessions_cb_end(nfs4_sessions_table(), &k->slot, false);
		rpc_backchan_put(k->slot.ref);
		return -1;
	}
	return 0;
}

static void send_recall(const struct nfs4_recall *r)
{
	struct recall_call *k = calloc(1, sizeof(*k));
	nfs_fh4 fh;
	int rc;

	if (!k) {
		nfs4_state_deleg_unsent(nfs4_states, &r->sid);
		return;
	}
	k->r = *r;
	k->minor1 = r->minor1;
	/* the handle is k's copy: it outlives this call */
	fh.len = k->r.fh_len;
	fh.data = k->r.fh;
	if (k->minor1)
		rc = send_on_session(k, &fh);
	else
		rc = nfs4_cb_recall(nfs4_callbacks(), r->clientid, &r->sid, false, &fh,
				    recall_done, k);
	if (rc < 0) {
		/* done never runs: try again at the next conflict */
		nfs4_state_deleg_unsent(nfs4_states, &r->sid);
		free(k);
	}
}

static enum nfsstat4 deleg_break(const struct nfs4_file_id *f, clientid4 breaker, bool reading)
{
	struct nfs4_recall r[NFS4_RECALLS_MAX];
	uint32_t n, i, rounds = 0;
	enum nfsstat4 st;

	/* every conflicting delegation is recalled now, a batch at a time
	 * (each batch is marked sent: the next call hands out the rest),
	 * RECALL_ROUNDS batches at most (a send that failed at once is
	 * handed out again: the rest waits for the next try) */
	do {
		st = nfs4_state_deleg_break(nfs4_states, f, breaker, reading, nfs4_now_sec(),
					    nfs4_lease_time, r, &n);
		for (i = 0; i < n; i++) {
			log_debug("NFSv4 delegation of client %016" PRIx64 " recalled (4.%d)",
				  r[i].clientid, r[i].minor1 ? 1 : 0);
			send_recall(&r[i]);
		}
	} while (n == NFS4_RECALLS_MAX && ++rounds < RECALL_ROUNDS);
	return st;
}

enum nfsstat4 nfs4_deleg_break(const struct nfs4_file_id *f, clientid4 breaker)
{
	/* the count a grant adds before it looks for marks (vfs/lease.h),
	 * read after the caller's mark */
	if (!vfs_leases_held() || !nfs4_states)
		return NFS4_OK;
	return deleg_break(f, breaker, false);
}

enum nfsstat4 nfs4_deleg_break_read(const struct nfs4_file_id *f, clientid4 breaker)
{
	if (!nfs4_wdelegs_held() || !nfs4_states)
		return NFS4_OK;
	return deleg_break(f, breaker, true);
}

/* ---- offered in OPEN ---- */

/* Is the client's callback path up (what a delegation needs)? */
static bool path_up(const struct nfs4_compound *c, clientid4 cid)
{
	if (c->minorversion == 0)
		return nfs4_cb_path_up(cid);
	return nfs4_sessions_table() &&
	       nfs4_sessions_cb_up(nfs4_sessions_table(), cid, nfs4_now_sec());
}

/* The empty ACE a delegation carries: who may open the file without
 * asking is checked at each OPEN anyway (knfsd sends the same). */
static void no_ace(struct nfsace4 *ace)
{
	memset(ace, 0, sizeof(*ace));
	ace->type = ACE4_ACCESS_ALLOWED_ACE_TYPE;
}

void nfs4_deleg_offer(struct nfs4_compound *c, const struct OPEN4args *oa, clientid4 cid,
		      uint32_t access, const struct nfs4_file_id *f, const struct nfsx_fh *fh,
		      struct open_delegation4 *out)
{
	uint32_t want = c->minorversion ? oa->share_access & OPEN4_SHARE_ACCESS_WANT_DELEG_MASK : 0;
	enum nfs4_deleg_why why = NFS4_DELEG_CONTENTION;
	bool write = (access & OPEN4_SHARE_ACCESS_WRITE) != 0;
	struct stateid4 sid;

	memset(out, 0, sizeof(*out));
	if (want == OPEN4_SHARE_ACCESS_WANT_NO_DELEG || want == OPEN4_SHARE_ACCESS_WANT_CANCEL) {
		out->delegation_type = OPEN_DELEGATE_NONE_EXT;
		out->u.od_whynone.ond_why = want == OPEN4_SHARE_ACCESS_WANT_CANCEL ?
			WND4_CANCELLED : WND4_NOT_WANTED;
		return;
	}
	if (!offer)
		why = NFS4_DELEG_RESOURCE;
	/* none for a kind asked that this OPEN's access cannot have; no
	 * write delegation to a 4.0 client (see the top of this file) */
	else if ((oa->claim.claim == CLAIM_NULL || oa->claim.claim == CLAIM_FH) &&
	    oa->openhow.opentype == OPEN4_NOCREATE && fh->len &&
	    !(write && c->minorversion == 0) &&
	    !(want == OPEN4_SHARE_ACCESS_WANT_WRITE_DELEG && !write) &&
	    !(want == OPEN4_SHARE_ACCESS_WANT_READ_DELEG && write) &&
	    !nfs4_in_grace() && path_up(c, cid))
		why = nfs4_state_deleg_grant(nfs4_states, &c->seq, f, nfs4_now_sec(),
					     c->minorversion > 0, write,
					     fh->data, fh->len, &sid);
	if (why == NFS4_DELEG_GRANTED && write) {
		struct open_write_delegation4 *wd = &out->u.write;

		log_debug("NFSv4 write delegation to client %016" PRIx64, cid);
		out->delegation_type = OPEN_DELEGATE_WRITE;
		wd->stateid = sid;
		wd->recall = false;
		/* no space promised (knfsd's): the client writes back at close */
		wd->space_limit.limitby = NFS_LIMIT_SIZE;
		wd->space_limit.u.filesize = 0;
		no_ace(&wd->permissions);
		return;
	}
	if (why == NFS4_DELEG_GRANTED) {
		struct open_read_delegation4 *rd = &out->u.read;

		log_debug("NFSv4 read delegation to client %016" PRIx64, cid);
		out->delegation_type = OPEN_DELEGATE_READ;
		rd->stateid = sid;
		rd->recall = false;
		no_ace(&rd->permissions);
		return;
	}
	if (!want) {
		out->delegation_type = OPEN_DELEGATE_NONE;
		return;
	}
	out->delegation_type = OPEN_DELEGATE_NONE_EXT;
	out->u.od_whynone.ond_why = (enum why_no_delegation4)why;
}
