// SPDX-License-Identifier: MIT
/*
 * nfs4_stats_get (src/nfs4/client_ops.c) over the server's own tables:
 * all zero before nfs4_init, after it and after nfs4_fini; in between,
 * each count is the one its table keeps (a client record, a session, an
 * open, a lock, a delegation, a SEQUENCE replay from the slot cache and
 * one not kept, a 4.0 seqid replay), driven through the tables'
 * calls without RPC. The tables' own tests (test_state.c,
 * test_sessions.c) check how each count moves.
 */
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include "nfs4/internal.h"
#include "nfs4/nfs4.h"
#include "../../tap.h"

static struct nfs4_stats stats(void)
{
	struct nfs4_stats st;

	memset(&st, 0xa5, sizeof(st));
	nfs4_stats_get(&st);
	return st;
}

static bool zero(const struct nfs4_stats *st)
{
	static const struct nfs4_stats z;

	return memcmp(st, &z, sizeof(z)) == 0;
}

static bool is(const struct nfs4_stats *st, uint64_t clients, uint64_t sessions,
	       uint64_t opens, uint64_t locks, uint64_t delegs, uint64_t replays,
	       uint64_t uncached, uint64_t seqid_replays)
{
	if (st->clients == clients && st->sessions == sessions && st->opens == opens &&
	    st->locks == locks && st->delegations == delegs && st->slot_replays == replays &&
	    st->slot_uncached == uncached && st->seqid_replays == seqid_replays)
		return true;
	printf("# clients %llu sessions %llu opens %llu locks %llu delegations %llu "
	       "slot replays %llu uncached %llu seqid replays %llu\n",
	       (unsigned long long)st->clients, (unsigned long long)st->sessions,
	       (unsigned long long)st->opens, (unsigned long long)st->locks,
	       (unsigned long long)st->delegations, (unsigned long long)st->slot_replays,
	       (unsigned long long)st->slot_uncached, (unsigned long long)st->seqid_replays);
	return false;
}

/* SEQUENCE on slot 0 with @sq, ended with @reply kept when not NULL. */
static enum nfsstat4 sequence(const sessionid4 *id, sequenceid4 sq, const char *reply)
{
	struct SEQUENCE4args a = { .sa_sessionid = *id, .sa_sequenceid = sq,
				   .sa_cachethis = reply != NULL };
	struct iovec iov = { (void *)reply, reply ? strlen(reply) : 0 };
	struct nfs4_sessions *t = nfs4_sessions_table();
	struct SEQUENCE4resok res;
	struct nfs4_slot_use q;
	enum nfsstat4 st;

	st = nfs4_sessions_sequence(t, &a, 200, 2, 100, nfs4_now_sec(), &res, &q);
	if (st == NFS4_OK)
		nfs4_sessions_done(t, &q, reply ? &iov : NULL, reply ? 1 : 0);
	return st;
}

/* OPEN of @f by @owner of @cid with @seqid (4.0 when @minor0), whole. */
static enum nfsstat4 open_(clientid4 cid, const char *owner, uint32_t seqid, bool minor0,
			   const struct nfs4_file_id *f, struct stateid4 *sid, bool deleg,
			   bool *replay)
{
	static struct nfs4_seq q;
	static const uint8_t fh[] = "FILEHANDLE";
	struct stateid4 dsid;
	enum nfsstat4 st;
	bool confirm;

	st = nfs4_state_open_begin(nfs4_states, cid, (const uint8_t *)owner,
				   (uint32_t)strlen(owner), seqid, minor0, &q);
	if (st != NFS4_OK)
		return st;
	*replay = q.replay;
	if (!q.replay) {
		st = nfs4_state_open(nfs4_states, &q, f, OPEN4_SHARE_ACCESS_READ, 0, false, sid,
				     &confirm);
		if (st == NFS4_OK && deleg &&
		    nfs4_state_deleg_grant(nfs4_states, &q, f, nfs4_now_sec(), !minor0, false, fh,
					   sizeof(fh), &dsid) != NFS4_DELEG_GRANTED)
			st = NFS4ERR_SERVERFAULT;
	}
	nfs4_state_seq_end(nfs4_states, &q, st, (const uint8_t *)"OPENRES!", 8);
	return st;
}

/* OPEN_CONFIRM of @sid with @seqid (4.0), whole. Return values: the
 * status; *@replay: answered from the owner's kept reply. */
static enum nfsstat4 confirm(const struct stateid4 *sid, const struct nfs4_file_id *f,
			     uint32_t seqid, bool *replay)
{
	static struct nfs4_seq q;
	struct stateid4 out;
	enum nfsstat4 st;

	st = nfs4_state_seqid_begin(nfs4_states, sid, f, seqid, true, true, &q);
	*replay = q.replay;
	if (st == NFS4_OK && !q.replay)
		st = nfs4_state_confirm(nfs4_states, sid, &out);
	nfs4_state_seq_end(nfs4_states, &q, st, (const uint8_t *)"CONFIRM!", 8);
	return st;
}

int main(void)
{
	const struct nfs4_principal who = { 1, 1000 };
	const struct nfs4_file_id f1 = { 1, 100 }, f2 = { 1, 200 };
	struct CREATE_SESSION4args ca;
	struct CREATE_SESSION4res cr;
	struct nfs4_lock_denied d;
	struct stateid4 o1, l1;
	struct nfs4_stats st;
	struct nfs4_exid x;
	verifier4 v;
	char err[256];
	bool rep;

	st = stats();
	ok(zero(&st), "before nfs4_init: all zero");
	ok(nfs4_init(90, NULL, err, sizeof(err)) == 0, "nfs4_init");
	st = stats();
	ok(zero(&st), "after it: all zero");

	memset(v.val, 1, sizeof(v.val));
	ok(nfs4_sessions_exchange_id(nfs4_sessions_table(), (const uint8_t *)"c1", 2, &v, &who,
				     false, nfs4_now_sec(), &x) == NFS4_OK,
	   "EXCHANGE_ID");
	st = stats();
	ok(is(&st, 1, 0, 0, 0, 0, 0, 0, 0), "1 client record");
	memset(&ca, 0, sizeof(ca));
	ca.csa_clientid = x.clientid;
	ca.csa_sequence = x.seqid;
	ca.csa_fore_chan_attrs.ca_maxrequestsize = 65536;
	ca.csa_fore_chan_attrs.ca_maxresponsesize = 65536;
	ca.csa_fore_chan_attrs.ca_maxresponsesize_cached = 4096;
	ca.csa_fore_chan_attrs.ca_maxoperations = 16;
	ca.csa_fore_chan_attrs.ca_maxrequests = 4;
	ca.csa_back_chan_attrs = ca.csa_fore_chan_attrs;
	ca.csa_back_chan_attrs.ca_maxresponsesize_cached = 0;
	ok(nfs4_sessions_create(nfs4_sessions_table(), &ca, &who, 1, 1u << 20, nfs4_now_sec(),
				&cr) == NFS4_OK, "CREATE_SESSION");
	st = stats();
	ok(is(&st, 1, 1, 0, 0, 0, 0, 0, 0), "1 session");

	ok(sequence(&cr.u.csr_resok4.csr_sessionid, 1, "reply") == NFS4_OK &&
	   sequence(&cr.u.csr_resok4.csr_sessionid, 1, "reply") == NFS4_OK &&
	   sequence(&cr.u.csr_resok4.csr_sessionid, 2, NULL) == NFS4_OK &&
	   sequence(&cr.u.csr_resok4.csr_sessionid, 2, NULL) == NFS4_OK,
	   "SEQUENCE 1 twice (cached), 2 twice (not)");
	st = stats();
	ok(is(&st, 1, 1, 0, 0, 0, 1, 1, 0), "1 slot replay, 1 uncached");

	ok(open_(x.clientid, "o1", 0, false, &f1, &o1, true, &rep) == NFS4_OK,
	   "a 4.1 OPEN with a delegation");
	{
		static struct nfs4_seq q;
		struct nfs4_lock_args a = {
			.type = READ_LT, .offset = 0, .length = 10, .new_owner = true,
			.sid = &o1, .owner = (const uint8_t *)"l1", .owner_len = 2,
		};

		ok(nfs4_state_lock(nfs4_states, &f1, &a, false, &q, &l1, &d) == NFS4_OK,
		   "a LOCK");
		nfs4_state_seq_end(nfs4_states, &q, NFS4_OK, NULL, 0);
	}
	/* 4.0 calls on the 4.1 client's id: the table asks only that
	 * the client's lease holds */
	ok(open_(x.clientid, "o40", 5, true, &f2, &o1, false, &rep) == NFS4_OK && !rep &&
	   confirm(&o1, &f2, 6, &rep) == NFS4_OK && !rep &&
	   confirm(&o1, &f2, 6, &rep) == NFS4_OK && rep,
	   "a 4.0 OPEN, its OPEN_CONFIRM and the OPEN_CONFIRM's replay");
	st = stats();
	ok(is(&st, 1, 1, 2, 1, 1, 1, 1, 1),
	   "2 opens, 1 lock, 1 delegation, 1 seqid replay");

	nfs4_fini();
	st = stats();
	ok(zero(&st), "after nfs4_fini: all zero");
	return tap_done();
}
