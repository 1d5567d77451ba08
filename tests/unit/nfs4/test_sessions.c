// SPDX-License-Identifier: MIT
/*
 * Unit tests of the NFSv4.1 sessions (src/nfs4/sessions.c) over the
 * client records (src/nfs4/clients.c), driven with a clock of the
 * test's own: the cases of EXCHANGE_ID (RFC 8881 18.35.5), CREATE_SESSION
 * with its sequence id and reply cache (18.36.4) and its clamped channel
 * attributes, SEQUENCE's slot rules (2.10.6.1), leases, the bounds on
 * sessions, DESTROY_SESSION, DESTROY_CLIENTID, BIND_CONN_TO_SESSION, the
 * back channel hook, RECLAIM_COMPLETE; SEQUENCEs from several threads;
 * the table's counts for statistics (sessions, replays answered).
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfs4/clients_internal.h"
#include "nfs4/sessions.h"
#include "../../tap.h"

#define BOOT 1700000000u
#define T0 1000u
#define RECORD (1048576u + 4096u)

static const struct nfs4_principal sys1 = { 1, 1000 };
static const struct nfs4_principal sys2 = { 1, 2000 };

struct world {
	struct nfs4_clients *c;
	struct nfs4_sessions *s;
};

static struct world mk(uint32_t max_sessions)
{
	struct world w;

	w.c = nfs4_clients_new(BOOT, 1024);
	w.s = nfs4_sessions_new(w.c, max_sessions);
	return w;
}

static void rm(struct world *w)
{
	nfs4_sessions_free(w->s);
	nfs4_clients_free(w->c);
}

static verifier4 verf(uint8_t b)
{
	verifier4 v;

	memset(v.val, b, sizeof(v.val));
	return v;
}

struct ex {
	enum nfsstat4 st;
	struct nfs4_exid x;
};

static struct ex exid(struct world *w, const char *id, uint8_t v,
		      const struct nfs4_principal *who, bool update, uint64_t now)
{
	struct ex r;
	verifier4 vv = verf(v);

	memset(&r, 0, sizeof(r));
	r.st = nfs4_sessions_exchange_id(w->s, (const uint8_t *)id, (uint32_t)strlen(id), &vv,
					 who, update, now, &r.x);
	return r;
}

static struct channel_attrs4 attrs(uint32_t req, uint32_t resp, uint32_t cached,
				   uint32_t slots)
{
	struct channel_attrs4 a;

	memset(&a, 0, sizeof(a));
	a.ca_maxrequestsize = req;
	a.ca_maxresponsesize = resp;
	a.ca_maxresponsesize_cached = cached;
	a.ca_maxoperations = 16;
	a.ca_maxrequests = slots;
	return a;
}

static struct CREATE_SESSION4res cs_attrs(struct world *w, clientid4 cid, sequenceid4 seq,
					  const struct nfs4_principal *who, uint32_t flags,
					  struct channel_attrs4 fore, uint64_t conn,
					  uint64_t now)
{
	struct CREATE_SESSION4args a;
	struct CREATE_SESSION4res r;

	memset(&a, 0, sizeof(a));
	a.csa_clientid = cid;
	a.csa_sequence = seq;
	a.csa_flags = flags;
	a.csa_fore_chan_attrs = fore;
	a.csa_back_chan_attrs = attrs(4096, 4096, 0, 2);
	a.csa_cb_program = 0x40000000;
	nfs4_sessions_create(w->s, &a, who, conn, RECORD, now, &r);
	return r;
}

static struct CREATE_SESSION4res cs(struct world *w, clientid4 cid, sequenceid4 seq,
				    const struct nfs4_principal *who, uint64_t now)
{
	return cs_attrs(w, cid, seq, who, 0, attrs(65536, 65536, 4096, 8), 1, now);
}

static enum nfsstat4 seq(struct world *w, const sessionid4 *id, uint32_t slot,
			 sequenceid4 sq, bool cachethis, uint64_t now, struct nfs4_slot_use *q,
			 struct SEQUENCE4resok *ok)
{
	struct SEQUENCE4args a = { .sa_sessionid = *id, .sa_sequenceid = sq,
				   .sa_slotid = slot, .sa_cachethis = cachethis };
	struct SEQUENCE4resok dummy;

	return nfs4_sessions_sequence(w->s, &a, 200, 2, 100, now, ok ? ok : &dummy, q);
}

/* SEQUENCE then done with @reply kept (when asked). */
static enum nfsstat4 seq_run(struct world *w, const sessionid4 *id, uint32_t slot,
			     sequenceid4 sq, const char *reply, uint64_t now)
{
	struct nfs4_slot_use q;
	struct iovec iov = { (void *)reply, reply ? strlen(reply) : 0 };
	enum nfsstat4 st = seq(w, id, slot, sq, reply != NULL, now, &q, NULL);

	if (st == NFS4_OK)
		nfs4_sessions_done(w->s, &q, reply ? &iov : NULL, reply ? 1 : 0);
	return st;
}

/* @w's counts are exactly @n sessions, @r cached and @u uncached replays. */
static bool counts_are(struct world *w, uint64_t n, uint64_t r, uint64_t u)
{
	struct nfs4_sessions_counts c;

	memset(&c, 0xa5, sizeof(c));
	nfs4_sessions_get_counts(w->s, &c);
	if (c.sessions == n && c.slot_replays == r && c.slot_uncached == u)
		return true;
	printf("# counts: sessions %llu, slot replays %llu, uncached %llu\n",
	       (unsigned long long)c.sessions, (unsigned long long)c.slot_replays,
	       (unsigned long long)c.slot_uncached);
	return false;
}

static void test_exchange_id(void)
{
	struct world w = mk(64);
	struct ex a, b, c;
	struct CREATE_SESSION4res r;

	a = exid(&w, "c1", 1, &sys1, false, T0);
	ok(a.st == NFS4_OK && !a.x.confirmed && a.x.seqid == 1,
	   "case 1: a new owner gets an unconfirmed record, seqid 1");
	b = exid(&w, "c1", 1, &sys1, false, T0);
	ok(b.st == NFS4_OK && b.x.clientid != a.x.clientid && !b.x.confirmed,
	   "case 5: an unconfirmed record is replaced, with a new clientid");
	r = cs(&w, a.x.clientid, 1, &sys1, T0);
	ok(r.csr_status == NFS4ERR_STALE_CLIENTID, "the replaced clientid is stale");
	ok(exid(&w, "c1", 1, &sys1, true, T0).st == NFS4ERR_NOENT,
	   "case 9: an update with no confirmed record: NOENT");
	r = cs(&w, b.x.clientid, 1, &sys1, T0);
	ok(r.csr_status == NFS4_OK && r.u.csr_resok4.csr_sequence == 1,
	   "CREATE_SESSION confirms the record");
	c = exid(&w, "c1", 1, &sys1, false, T0 + 1);
	ok(c.st == NFS4_OK && c.x.clientid == b.x.clientid && c.x.confirmed && c.x.seqid == 2,
	   "case 2: the same owner, verifier, principal: the same clientid, CONFIRMED_R, next seqid");
	ok(exid(&w, "c1", 1, &sys2, false, T0 + 1).st == NFS4ERR_CLID_INUSE,
	   "case 3: another principal, live record: CLID_INUSE");
	c = exid(&w, "c1", 1, &sys1, true, T0 + 1);
	ok(c.st == NFS4_OK && c.x.clientid == b.x.clientid && c.x.confirmed,
	   "case 6: an update of the confirmed record");
	ok(exid(&w, "c1", 1, &sys2, true, T0 + 1).st == NFS4ERR_PERM,
	   "case 7: an update by another principal: PERM");
	ok(exid(&w, "c1", 2, &sys1, true, T0 + 1).st == NFS4ERR_NOT_SAME,
	   "case 8: an update with another verifier: NOT_SAME");
	{
		char big[NFS4_OPAQUE_LIMIT + 2];
		verifier4 v = verf(1);
		struct nfs4_exid x;

		memset(big, 'x', sizeof(big));
		ok(nfs4_sessions_exchange_id(w.s, (uint8_t *)big, sizeof(big), &v, &sys1, false,
					     T0, &x) == NFS4ERR_INVAL, "an owner too long: INVAL");
	}
	/* a lease run out: the owner is free for another principal */
	c = exid(&w, "c1", 1, &sys2, false, T0 + 1 + NFS4_LEASE_TIME + 1);
	ok(c.st == NFS4_OK && c.x.clientid != b.x.clientid && !c.x.confirmed,
	   "after the lease ran out, another principal gets a new record");
	rm(&w);
}

/* Case 4: the client rebooted; its old sessions die when the new
 * record is confirmed. */
static void test_reboot(void)
{
	struct world w = mk(64);
	struct ex a = exid(&w, "c1", 1, &sys1, false, T0), b;
	struct CREATE_SESSION4res r1 = cs(&w, a.x.clientid, 1, &sys1, T0), r2;

	b = exid(&w, "c1", 2, &sys1, false, T0 + 1);
	ok(b.st == NFS4_OK && b.x.clientid != a.x.clientid && !b.x.confirmed && b.x.seqid == 1,
	   "case 4: a new verifier gets a new unconfirmed record");
	ok(seq_run(&w, &r1.u.csr_resok4.csr_sessionid, 0, 1, NULL, T0 + 1) == NFS4_OK,
	   "the old session works until the new record is confirmed");
	r2 = cs(&w, b.x.clientid, 1, &sys1, T0 + 2);
	ok(r2.csr_status == NFS4_OK, "the new record confirmed");
	ok(seq_run(&w, &r1.u.csr_resok4.csr_sessionid, 0, 2, NULL, T0 + 2) == NFS4ERR_BADSESSION,
	   "the old incarnation's session is gone: BADSESSION");
	ok(nfs4_sessions_count(w.s) == 1, "and freed");
	rm(&w);
}

static void test_create_session(void)
{
	struct world w = mk(64);
	struct ex a = exid(&w, "c1", 1, &sys1, false, T0);
	struct CREATE_SESSION4res r, r2;
	const struct channel_attrs4 *f = &r.u.csr_resok4.csr_fore_chan_attrs;

	ok(cs(&w, a.x.clientid, 1, &sys2, T0).csr_status == NFS4ERR_CLID_INUSE,
	   "CREATE_SESSION by another principal: CLID_INUSE");
	ok(cs(&w, a.x.clientid, 2, &sys1, T0).csr_status == NFS4ERR_SEQ_MISORDERED,
	   "an unconfirmed record's CREATE_SESSION with a wrong seqid: SEQ_MISORDERED");
	ok(cs(&w, a.x.clientid + 99, 1, &sys1, T0).csr_status == NFS4ERR_STALE_CLIENTID,
	   "an unknown clientid: STALE_CLIENTID");
	ok(cs_attrs(&w, a.x.clientid, 1, &sys1, 0, attrs(56, 65536, 0, 8), 1, T0).csr_status ==
	   NFS4ERR_TOOSMALL, "a maxrequestsize below a SEQUENCE's: TOOSMALL");
	ok(cs_attrs(&w, a.x.clientid, 1, &sys1, 0, attrs(65536, 65536, 0, 0), 1, T0).csr_status ==
	   NFS4ERR_TOOSMALL, "no slots: TOOSMALL");
	{
		struct CREATE_SESSION4args b;
		struct CREATE_SESSION4res br;

		memset(&b, 0, sizeof(b));
		b.csa_clientid = a.x.clientid;
		b.csa_sequence = 1;
		b.csa_fore_chan_attrs = attrs(400, 400, 400, 8);
		b.csa_back_chan_attrs = attrs(10, 8192, 8192, 8);
		nfs4_sessions_create(w.s, &b, &sys1, 1, RECORD, T0, &br);
		ok(br.csr_status == NFS4ERR_TOOSMALL,
		   "a back channel too small for a CB_RECALL: TOOSMALL (pynfs CSESS29)");
		b.csa_back_chan_attrs = attrs(8192, 8192, 8192, 8);
		b.csa_back_chan_attrs.ca_maxoperations = 1;
		nfs4_sessions_create(w.s, &b, &sys1, 1, RECORD, T0, &br);
		ok(br.csr_status == NFS4ERR_TOOSMALL,
		   "a back channel of one operation a COMPOUND (no CB_SEQUENCE + CB_RECALL): TOOSMALL");
	}
	r = cs_attrs(&w, a.x.clientid, 1, &sys1, CREATE_SESSION4_FLAG_PERSIST,
		     attrs(1u << 30, 1u << 30, 1u << 30, 1000), 1, T0);
	ok(r.csr_status == NFS4_OK && f->ca_maxrequestsize == RECORD &&
	   f->ca_maxresponsesize == RECORD && f->ca_maxresponsesize_cached == NFS4_SLOT_CACHE_MAX &&
	   f->ca_maxrequests == NFS4_SESSION_CACHE_MAX / NFS4_SLOT_CACHE_MAX &&
	   f->ca_headerpadsize == 0 && r.u.csr_resok4.csr_flags == 0,
	   "attributes clamped to the server's (%u %u %u %u slots), no persistence",
	   f->ca_maxrequestsize, f->ca_maxresponsesize, f->ca_maxresponsesize_cached,
	   f->ca_maxrequests);
	r2 = cs(&w, a.x.clientid, 1, &sys1, T0 + 1);
	ok(r2.csr_status == NFS4_OK && !memcmp(&r2, &r, sizeof(r)),
	   "the same seqid again: the same reply (the same session)");
	ok(nfs4_sessions_count(w.s) == 1, "and no second session");
	ok(cs(&w, a.x.clientid, 3, &sys1, T0).csr_status == NFS4ERR_SEQ_MISORDERED,
	   "seqid + 2: SEQ_MISORDERED");
	r2 = cs_attrs(&w, a.x.clientid, 2, &sys1, 0, attrs(4096, 4096, 0, 1000), 1, T0);
	ok(r2.csr_status == NFS4_OK &&
	   r2.u.csr_resok4.csr_fore_chan_attrs.ca_maxrequests == NFS4_SESSION_SLOTS &&
	   memcmp(&r2.u.csr_resok4.csr_sessionid, &r.u.csr_resok4.csr_sessionid,
		  sizeof(sessionid4)) != 0,
	   "seqid + 1: a second session, %u slots when nothing is cached",
	   r2.u.csr_resok4.csr_fore_chan_attrs.ca_maxrequests);
	rm(&w);
}

static void test_sequence(void)
{
	struct world w = mk(64);
	struct ex a = exid(&w, "c1", 1, &sys1, false, T0);
	struct CREATE_SESSION4res r = cs(&w, a.x.clientid, 1, &sys1, T0);
	const sessionid4 *id = &r.u.csr_resok4.csr_sessionid;
	struct SEQUENCE4resok ok1;
	struct nfs4_slot_use q, q2;
	const uint8_t *b;
	uint32_t len;
	sessionid4 bad = *id;

	ok(seq(&w, id, 0, 1, true, T0, &q, &ok1) == NFS4_OK && q.replay == NFS4_SEQ_NEW &&
	   q.clientid == a.x.clientid && ok1.sr_sequenceid == 1 && ok1.sr_slotid == 0 &&
	   ok1.sr_highest_slotid == 7 && ok1.sr_target_highest_slotid == 7 &&
	   ok1.sr_status_flags == 0 && !memcmp(&ok1.sr_sessionid, id, sizeof(*id)),
	   "a new request on slot 0: OK, 8 slots, no status flags");
	ok(seq(&w, id, 0, 1, true, T0, &q2, NULL) == NFS4ERR_DELAY,
	   "its retransmission while it runs: DELAY");
	ok(counts_are(&w, 1, 0, 0), "counts: 1 session, no replay (not the DELAY)");
	{
		struct iovec iov[2] = { { (void *)"hello ", 6 }, { (void *)"world", 5 } };

		nfs4_sessions_done(w.s, &q, iov, 2);
	}
	ok(q.s == NULL, "done empties the SEQUENCE");
	ok(seq(&w, id, 0, 1, true, T0, &q, NULL) == NFS4_OK && q.replay == NFS4_SEQ_CACHED &&
	   (b = nfs4_seq_cached(&q, &len)) && len == 11 && !memcmp(b, "hello world", 11),
	   "a retransmission: the cached reply");
	nfs4_sessions_done(w.s, &q, NULL, 0);
	ok(seq(&w, id, 0, 1, true, T0, &q, NULL) == NFS4_OK && q.replay == NFS4_SEQ_CACHED &&
	   (b = nfs4_seq_cached(&q, &len)) && len == 11,
	   "a replay's end leaves the cache as it was");
	nfs4_sessions_done(w.s, &q, NULL, 0);
	ok(counts_are(&w, 1, 2, 0), "counts: 2 replays from the cache");
	ok(seq_run(&w, id, 0, 3, NULL, T0) == NFS4ERR_SEQ_MISORDERED, "seqid + 2: SEQ_MISORDERED");
	ok(seq_run(&w, id, 0, 0, NULL, T0) == NFS4ERR_SEQ_MISORDERED, "seqid - 1: SEQ_MISORDERED");
	ok(seq_run(&w, id, 1, 2, NULL, T0) == NFS4ERR_SEQ_MISORDERED,
	   "a fresh slot's first seqid must be 1");
	ok(seq_run(&w, id, 1, 0, NULL, T0) == NFS4ERR_SEQ_MISORDERED,
	   "seqid 0 on a fresh slot is no replay");
	ok(seq_run(&w, id, 8, 1, NULL, T0) == NFS4ERR_BADSLOT, "slot 8 of 8: BADSLOT");
	ok(seq_run(&w, id, 0, 2, NULL, T0) == NFS4_OK, "seqid + 1, not cached: OK");
	ok(seq(&w, id, 0, 2, false, T0, &q, NULL) == NFS4_OK && q.replay == NFS4_SEQ_UNCACHED,
	   "its retransmission: nothing cached (RETRY_UNCACHED_REP)");
	nfs4_sessions_done(w.s, &q, NULL, 0);
	ok(counts_are(&w, 1, 2, 1), "counts: 1 uncached, the misordered and bad slot ones none");
	{
		char big[NFS4_SLOT_CACHE_MAX];
		struct iovec iov = { big, 4097 };

		memset(big, 'b', sizeof(big));
		ok(seq(&w, id, 0, 3, true, T0, &q, NULL) == NFS4_OK, "seqid 3");
		nfs4_sessions_done(w.s, &q, &iov, 1);
		ok(seq(&w, id, 0, 3, true, T0, &q, NULL) == NFS4_OK &&
		   q.replay == NFS4_SEQ_UNCACHED,
		   "a reply over the session's cached size is not kept");
		nfs4_sessions_done(w.s, &q, NULL, 0);
	}
	{
		struct SEQUENCE4args sa = { .sa_sessionid = *id, .sa_sequenceid = 4 };
		struct SEQUENCE4resok o;

		ok(nfs4_sessions_sequence(w.s, &sa, 65537, 2, 100, T0, &o, &q) == NFS4ERR_REQ_TOO_BIG,
		   "a request over maxrequestsize: REQ_TOO_BIG");
		ok(nfs4_sessions_sequence(w.s, &sa, 200, 17, 100, T0, &o, &q) == NFS4ERR_TOO_MANY_OPS,
		   "more operations than maxoperations: TOO_MANY_OPS");
		ok(nfs4_sessions_sequence(w.s, &sa, 200, 2, 65537, T0, &o, &q) == NFS4ERR_REP_TOO_BIG,
		   "SEQUENCE's own reply over maxresponsesize: REP_TOO_BIG");
		sa.sa_cachethis = true;
		ok(nfs4_sessions_sequence(w.s, &sa, 200, 2, 4097, T0, &o, &q) ==
		   NFS4ERR_REP_TOO_BIG_TO_CACHE,
		   "over maxresponsesize_cached with cache this: REP_TOO_BIG_TO_CACHE");
		ok(nfs4_sessions_sequence(w.s, &sa, 200, 2, 4096, T0, &o, &q) == NFS4_OK &&
		   q.replay == NFS4_SEQ_NEW, "the slot was not taken: the same seqid is new");
		nfs4_sessions_done(w.s, &q, NULL, 0);
		ok(nfs4_sessions_sequence(w.s, &sa, 200, 2, 65537, T0, &o, &q) == NFS4_OK &&
		   q.replay == NFS4_SEQ_UNCACHED, "a replay is not held to the sizes");
		nfs4_sessions_done(w.s, &q, NULL, 0);
		ok(counts_are(&w, 1, 2, 3), "counts: 3 uncached, the refused new ones none");
	}
	bad.val[15] ^= 1;
	ok(seq_run(&w, &bad, 0, 4, NULL, T0) == NFS4ERR_BADSESSION, "an unknown session: BADSESSION");
	/* SEQUENCE renews the lease: alive after 3 leases of use */
	ok(seq_run(&w, id, 0, 5, NULL, T0 + 60) == NFS4_OK &&
	   seq_run(&w, id, 0, 6, NULL, T0 + 120) == NFS4_OK &&
	   seq_run(&w, id, 0, 7, NULL, T0 + 180) == NFS4_OK &&
	   seq_run(&w, id, 0, 8, NULL, T0 + 240) == NFS4_OK,
	   "SEQUENCE every 60 s keeps the session for 4 minutes");
	ok(seq_run(&w, id, 0, 9, NULL, T0 + 240 + NFS4_LEASE_TIME + 1) == NFS4ERR_BADSESSION,
	   "after the lease ran out: BADSESSION");
	ok(nfs4_sessions_count(w.s) == 0, "the dead session is freed");
	ok(counts_are(&w, 0, 2, 3), "counts: no session, the replays stay");
	ok(exid(&w, "c1", 1, &sys1, false, T0 + 400).x.confirmed == false,
	   "and its client is gone");
	rm(&w);
}

static enum nfsstat4 seq_nowait(struct world *w, const sessionid4 *id, uint32_t slot,
				sequenceid4 sq, uint64_t now, struct nfs4_slot_use *q, bool *busy)
{
	struct SEQUENCE4args a = { .sa_sessionid = *id, .sa_sequenceid = sq, .sa_slotid = slot };
	struct SEQUENCE4resok o;

	return nfs4_sessions_sequence_nowait(w->s, &a, 200, 2, 100, now, &o, q, busy);
}

/* SEQUENCE on an event loop (nfs4_sessions_sequence_nowait): the same
 * answers, but a gone client's record is left for a worker to drop,
 * with nothing changed. */
static void test_sequence_nowait(void)
{
	struct world w = mk(64);
	struct ex a = exid(&w, "c1", 1, &sys1, false, T0);
	struct CREATE_SESSION4res r = cs(&w, a.x.clientid, 1, &sys1, T0);
	const sessionid4 *id = &r.u.csr_resok4.csr_sessionid;
	struct nfs4_slot_use q, q2;
	sessionid4 bad = *id;
	bool busy = true;

	ok(seq_nowait(&w, id, 0, 1, T0, &q, &busy) == NFS4_OK && !busy &&
	   q.replay == NFS4_SEQ_NEW && q.s, "a new request: OK, the slot taken");
	ok(seq_nowait(&w, id, 0, 1, T0, &q2, &busy) == NFS4ERR_DELAY && !busy,
	   "its retransmission while it runs: DELAY, answered here");
	nfs4_sessions_done(w.s, &q, NULL, 0);
	ok(seq_nowait(&w, id, 0, 3, T0, &q, &busy) == NFS4ERR_SEQ_MISORDERED && !busy,
	   "seqid + 2: SEQ_MISORDERED, answered here");
	bad.val[15] ^= 1;
	ok(seq_nowait(&w, &bad, 0, 2, T0, &q, &busy) == NFS4ERR_BADSESSION && !busy,
	   "an unknown session: BADSESSION, answered here");
	ok(seq_nowait(&w, id, 0, 2, T0 + 60, &q, &busy) == NFS4_OK && !busy, "seqid 2 at +60 s");
	nfs4_sessions_done(w.s, &q, NULL, 0);
	ok(seq_nowait(&w, id, 0, 3, T0 + 120, &q, &busy) == NFS4_OK && !busy, "seqid 3 at +120 s");
	nfs4_sessions_done(w.s, &q, NULL, 0);
	ok(seq_run(&w, id, 0, 4, NULL, T0 + 120 + NFS4_LEASE_TIME - 1) == NFS4_OK,
	   "it renewed the lease (a worker's SEQUENCE a lease later: OK)");
	ok(seq_nowait(&w, id, 0, 5, T0 + 240 + 2 * NFS4_LEASE_TIME, &q, &busy) ==
	   NFS4ERR_DELAY && busy && q.s == NULL,
	   "the lease ran out: left to a worker (busy), no slot taken");
	ok(nfs4_sessions_count(w.s) == 1, "the session is still there");
	ok(seq_run(&w, id, 0, 5, NULL, T0 + 240 + 2 * NFS4_LEASE_TIME) == NFS4ERR_BADSESSION &&
	   nfs4_sessions_count(w.s) == 0,
	   "the worker's SEQUENCE with the same seqid: BADSESSION, the session freed");
	rm(&w);

	/* a courtesy client (its lease ran out while it holds state) is
	 * revived on the loop: no record to drop */
	w = mk(64);
	a = exid(&w, "c2", 1, &sys1, false, T0);
	r = cs(&w, a.x.clientid, 1, &sys1, T0);
	id = &r.u.csr_resok4.csr_sessionid;
	nfs4_clients_set_state(w.c, a.x.clientid, true);
	ok(seq_nowait(&w, id, 0, 1, T0 + NFS4_LEASE_TIME + 5, &q, &busy) == NFS4_OK && !busy &&
	   q.s, "a courtesy client's SEQUENCE on the loop: OK, the slot taken");
	nfs4_sessions_done(w.s, &q, NULL, 0);
	nfs4_clients_set_state(w.c, a.x.clientid, false);
	ok(seq_run(&w, id, 0, 2, NULL, T0 + 2 * NFS4_LEASE_TIME) == NFS4_OK,
	   "revived: its lease runs from that SEQUENCE (a worker's a lease later: OK)");
	rm(&w);
}

/* Another thread holding the clients' table's lock (as a worker may)
 * until released: the test's own thread never holds it, so the lock
 * order stays the server's (sessions, then clients). */
struct holder {
	pthread_mutex_t *m;
	sem_t held, release;
	pthread_t th;
};

static void *hold_main(void *arg)
{
	struct holder *h = arg;

	pthread_mutex_lock(h->m);
	sem_post(&h->held);
	sem_wait(&h->release);
	pthread_mutex_unlock(h->m);
	return NULL;
}

static void hold(struct holder *h, pthread_mutex_t *m)
{
	h->m = m;
	sem_init(&h->held, 0, 0);
	sem_init(&h->release, 0, 0);
	pthread_create(&h->th, NULL, hold_main, h);
	sem_wait(&h->held);
}

static void let_go(struct holder *h)
{
	sem_post(&h->release);
	pthread_join(h->th, NULL);
	sem_destroy(&h->held);
	sem_destroy(&h->release);
}

/* A SEQUENCE renews its client's lease once a second, the lease's unit:
 * in the second of the last renewal it does not ask the clients' table,
 * unless a client record has gone since. */
static void test_renew_once_a_second(void)
{
	struct world w = mk(64);
	struct ex a = exid(&w, "c1", 1, &sys1, false, T0), b;
	struct CREATE_SESSION4res r = cs(&w, a.x.clientid, 1, &sys1, T0);
	const sessionid4 *id = &r.u.csr_resok4.csr_sessionid;
	struct nfs4_slot_use q;
	struct holder h;
	bool busy = true;

	ok(seq_nowait(&w, id, 0, 1, T0, &q, &busy) == NFS4_OK && !busy, "seqid 1: OK");
	nfs4_sessions_done(w.s, &q, NULL, 0);
	hold(&h, &w.c->lock);
	ok(seq_nowait(&w, id, 0, 2, T0, &q, &busy) == NFS4_OK && !busy,
	   "seqid 2 in the same second, the clients' table locked: OK (renewed already)");
	nfs4_sessions_done(w.s, &q, NULL, 0);
	ok(seq_nowait(&w, id, 0, 3, T0 + 1, &q, &busy) == NFS4ERR_DELAY && busy && !q.s,
	   "seqid 3 a second later: the renewal needs the table (left to a worker)");
	let_go(&h);
	ok(seq_nowait(&w, id, 0, 3, T0 + 1, &q, &busy) == NFS4_OK && !busy,
	   "seqid 3 with the table free: OK");
	nfs4_sessions_done(w.s, &q, NULL, 0);
	/* the client reboots and its new record is confirmed in that second:
	 * the old record goes */
	b = exid(&w, "c1", 2, &sys1, false, T0 + 1);
	ok(cs(&w, b.x.clientid, 1, &sys1, T0 + 1).csr_status == NFS4_OK,
	   "the client's new incarnation confirmed in the same second");
	ok(seq_nowait(&w, id, 0, 4, T0 + 1, &q, &busy) == NFS4ERR_DELAY && busy && !q.s,
	   "the old session's seqid 4 in that second: its client is asked again (gone: a worker's)");
	ok(seq_run(&w, id, 0, 4, NULL, T0 + 1) == NFS4ERR_BADSESSION,
	   "the worker answers BADSESSION");
	rm(&w);
}

static void test_destroy(void)
{
	struct world w = mk(64);
	struct ex a = exid(&w, "c1", 1, &sys1, false, T0);
	struct CREATE_SESSION4res r1 = cs(&w, a.x.clientid, 1, &sys1, T0);
	struct CREATE_SESSION4res r2 = cs(&w, a.x.clientid, 2, &sys1, T0);
	const sessionid4 *id1 = &r1.u.csr_resok4.csr_sessionid;
	const sessionid4 *id2 = &r2.u.csr_resok4.csr_sessionid;
	struct nfs4_slot_use q, q2;

	ok(nfs4_sessions_destroy_client(w.s, a.x.clientid, T0) == NFS4ERR_CLIENTID_BUSY,
	   "DESTROY_CLIENTID with sessions: CLIENTID_BUSY");
	ok(counts_are(&w, 2, 0, 0), "counts: 2 sessions");
	ok(seq(&w, id1, 0, 1, true, T0, &q, NULL) == NFS4_OK, "a COMPOUND runs on session 1");
	ok(seq(&w, id2, 0, 1, true, T0, &q2, NULL) == NFS4_OK, "and one on session 2");
	ok(nfs4_sessions_destroy(w.s, id1, &q2, T0) == NFS4ERR_DELAY,
	   "DESTROY_SESSION of a session another COMPOUND runs on: DELAY");
	ok(nfs4_sessions_destroy(w.s, id1, &q, T0) == NFS4_OK,
	   "DESTROY_SESSION in the session's own COMPOUND: OK");
	ok(counts_are(&w, 1, 0, 0), "counts: 1 session");
	{
		struct iovec iov = { (void *)"late", 4 };

		nfs4_sessions_done(w.s, &q, &iov, 1);   /* ASan: no use after free */
	}
	nfs4_sessions_done(w.s, &q2, NULL, 0);
	ok(seq_run(&w, id1, 0, 2, NULL, T0) == NFS4ERR_BADSESSION, "after it: BADSESSION");
	ok(nfs4_sessions_destroy(w.s, id1, NULL, T0) == NFS4ERR_BADSESSION,
	   "DESTROY_SESSION again: BADSESSION");
	ok(nfs4_sessions_destroy(w.s, id2, NULL, T0) == NFS4_OK, "the second destroyed alone");
	ok(counts_are(&w, 0, 0, 0), "counts: no session");
	ok(nfs4_sessions_destroy_client(w.s, a.x.clientid, T0) == NFS4_OK,
	   "DESTROY_CLIENTID with no session left: OK");
	ok(nfs4_sessions_destroy_client(w.s, a.x.clientid, T0) == NFS4ERR_STALE_CLIENTID,
	   "again: STALE_CLIENTID");
	ok(cs(&w, a.x.clientid, 3, &sys1, T0).csr_status == NFS4ERR_STALE_CLIENTID,
	   "CREATE_SESSION of the destroyed client: STALE_CLIENTID");
	a = exid(&w, "c2", 1, &sys1, false, T0);
	ok(nfs4_sessions_destroy_client(w.s, a.x.clientid, T0) == NFS4_OK &&
	   cs(&w, a.x.clientid, 1, &sys1, T0).csr_status == NFS4ERR_STALE_CLIENTID,
	   "an unconfirmed record destroyed");
	rm(&w);
}

static void test_bounds(void)
{
	struct world w = mk(20);
	struct ex a = exid(&w, "c1", 1, &sys1, false, T0), b, c;
	uint32_t i, n = 0;

	for (i = 1; i <= NFS4_SESSIONS_PER_CLIENT; i++)
		n += cs(&w, a.x.clientid, i, &sys1, T0).csr_status == NFS4_OK;
	ok(n == NFS4_SESSIONS_PER_CLIENT, "%u sessions for one client", n);
	ok(cs(&w, a.x.clientid, i, &sys1, T0).csr_status == NFS4ERR_NOSPC,
	   "one more: NOSPC");
	b = exid(&w, "c2", 1, &sys1, false, T0);
	for (i = 1, n = 0; i <= 8; i++)
		n += cs(&w, b.x.clientid, i, &sys1, T0).csr_status == NFS4_OK;
	ok(n == 4 && nfs4_sessions_count(w.s) == 20, "the table's bound of 20 in all");
	ok(cs(&w, b.x.clientid, 5, &sys1, T0).csr_status == NFS4ERR_DELAY,
	   "a full table of live sessions: DELAY");
	/* no SEQUENCE renews c1's and c2's leases: they run out */
	c = exid(&w, "c3", 1, &sys1, false, T0 + NFS4_LEASE_TIME + 5);
	ok(cs(&w, c.x.clientid, 1, &sys1, T0 + NFS4_LEASE_TIME + 5).csr_status == NFS4_OK,
	   "once the clients' leases ran out, their sessions make room");
	ok(nfs4_sessions_count(w.s) <= 20, "the bound holds (%u)", nfs4_sessions_count(w.s));
	rm(&w);
}

/* A full table of client records: EXCHANGE_ID waits (4.1 has no
 * RESOURCE) until leases run out. */
static void test_client_bound(void)
{
	struct world w;

	w.c = nfs4_clients_new(BOOT, 2);
	w.s = nfs4_sessions_new(w.c, 8);
	ok(exid(&w, "c1", 1, &sys1, false, T0).st == NFS4_OK &&
	   exid(&w, "c2", 1, &sys1, false, T0).st == NFS4_OK, "two records in a table of 2");
	ok(exid(&w, "c3", 1, &sys1, false, T0).st == NFS4ERR_DELAY, "a third: DELAY");
	ok(exid(&w, "c3", 1, &sys1, false, T0 + NFS4_LEASE_TIME + 1).st == NFS4_OK,
	   "once the others' leases ran out: OK");
	rm(&w);
}

/* A back channel handle for the tests: counts its references. */
struct ref {
	int held;
};

static void ref_get(void *r)
{
	((struct ref *)r)->held++;
}

static void ref_put(void *r)
{
	((struct ref *)r)->held--;
}

/* Bind @r as @id's back channel on connection @conn; did the table take
 * it (was @conn the session's back channel connection)? */
static bool bind_ref(struct world *w, const sessionid4 *id, uint64_t conn, struct ref *r)
{
	int before = r->held;

	r->held++;
	nfs4_sessions_set_back_ref(w->s, id, conn, r, ref_put);
	return r->held > before;
}

static void test_backchannel(void)
{
	struct world w = mk(64);
	struct ex a = exid(&w, "c1", 1, &sys1, false, T0);
	struct CREATE_SESSION4res r1, r2;
	struct ref h8 = { 0 }, h9 = { 0 }, h7 = { 0 };
	struct nfs4_cb_slot q;
	enum channel_dir_from_server4 dir;

	r1 = cs_attrs(&w, a.x.clientid, 1, &sys1, 0, attrs(4096, 4096, 0, 4), 7, T0);
	ok(!bind_ref(&w, &r1.u.csr_resok4.csr_sessionid, 7, &h7) && h7.held == 0 &&
	   !nfs4_sessions_cb_begin(w.s, a.x.clientid, T0, ref_get, &q),
	   "no back channel asked: none (a handle offered is let go at once)");
	r2 = cs_attrs(&w, a.x.clientid, 2, &sys1, CREATE_SESSION4_FLAG_CONN_BACK_CHAN,
		      attrs(4096, 4096, 0, 4), 8, T0);
	ok(r2.csr_status == NFS4_OK &&
	   r2.u.csr_resok4.csr_flags == CREATE_SESSION4_FLAG_CONN_BACK_CHAN &&
	   !bind_ref(&w, &r2.u.csr_resok4.csr_sessionid, 9, &h9) &&
	   bind_ref(&w, &r2.u.csr_resok4.csr_sessionid, 8, &h8) &&
	   nfs4_sessions_cb_begin(w.s, a.x.clientid, T0, ref_get, &q) && q.ref == &h8 &&
	   h8.held == 2 && q.cb_program == 0x40000000 && q.highest == 1 &&
	   !memcmp(&q.session, &r2.u.csr_resok4.csr_sessionid, sizeof(sessionid4)),
	   "CONN_BACK_CHAN: the back channel on the CREATE_SESSION's connection");
	nfs4_sessions_cb_end(w.s, &q, true);
	ref_put(q.ref);
	ok(nfs4_sessions_bind_conn(w.s, &r1.u.csr_resok4.csr_sessionid, CDFC4_FORE, 9, T0,
				   &dir) == NFS4_OK && dir == CDFS4_FORE &&
	   !bind_ref(&w, &r1.u.csr_resok4.csr_sessionid, 9, &h9) &&
	   nfs4_sessions_cb_begin(w.s, a.x.clientid, T0, ref_get, &q) && q.ref == &h8,
	   "BIND_CONN_TO_SESSION for the fore channel: no back channel change");
	nfs4_sessions_cb_end(w.s, &q, true);
	ref_put(q.ref);
	ok(nfs4_sessions_bind_conn(w.s, &r1.u.csr_resok4.csr_sessionid, CDFC4_BACK_OR_BOTH, 9,
				   T0, &dir) == NFS4_OK && dir == CDFS4_BOTH &&
	   bind_ref(&w, &r1.u.csr_resok4.csr_sessionid, 9, &h9) &&
	   nfs4_sessions_cb_begin(w.s, a.x.clientid, T0, ref_get, &q) && q.ref == &h9 &&
	   !memcmp(&q.session, &r1.u.csr_resok4.csr_sessionid, sizeof(sessionid4)),
	   "BIND_CONN_TO_SESSION BACK_OR_BOTH: BOTH, the latest back channel");
	nfs4_sessions_cb_end(w.s, &q, true);
	ref_put(q.ref);
	ok(nfs4_sessions_bind_conn(w.s, &r1.u.csr_resok4.csr_sessionid,
				   (enum channel_dir_from_client4)5, 9, T0, &dir) == NFS4ERR_INVAL,
	   "an unknown direction: INVAL");
	r1.u.csr_resok4.csr_sessionid.val[15] ^= 1;
	ok(nfs4_sessions_bind_conn(w.s, &r1.u.csr_resok4.csr_sessionid, CDFC4_FORE, 9, T0,
				   &dir) == NFS4ERR_BADSESSION, "an unknown session: BADSESSION");
	ok(!nfs4_sessions_cb_begin(w.s, a.x.clientid, T0 + NFS4_LEASE_TIME + 1, ref_get, &q),
	   "none once the lease ran out");
	rm(&w);
	ok(h8.held == 0 && h9.held == 0 && h7.held == 0,
	   "every handle let go once the sessions went");
}

static void test_reclaim(void)
{
	struct world w = mk(64);
	struct ex a = exid(&w, "c1", 1, &sys1, false, T0);

	ok(nfs4_sessions_reclaim_complete(w.s, a.x.clientid, T0) == NFS4ERR_STALE_CLIENTID,
	   "RECLAIM_COMPLETE of an unconfirmed client: STALE_CLIENTID");
	cs(&w, a.x.clientid, 1, &sys1, T0);
	ok(nfs4_sessions_reclaim_complete(w.s, a.x.clientid, T0) == NFS4_OK,
	   "RECLAIM_COMPLETE: OK");
	ok(nfs4_sessions_reclaim_complete(w.s, a.x.clientid, T0) == NFS4ERR_COMPLETE_ALREADY,
	   "twice: COMPLETE_ALREADY");
	rm(&w);
}

/* 4.0 and 4.1 records share the clientid space but not the owner names. */
static void test_versions(void)
{
	struct world w = mk(64);
	verifier4 v = verf(1), confirm;
	clientid4 cid40;
	struct ex a;

	ok(nfs4_clients_setclientid(w.c, (const uint8_t *)"c1", 2, &v, &sys1, NULL, T0, &cid40,
				    &confirm) == NFS4_OK &&
	   nfs4_clients_confirm(w.c, cid40, &confirm, &sys1, T0) == NFS4_OK, "a 4.0 client c1");
	a = exid(&w, "c1", 1, &sys2, false, T0);
	ok(a.st == NFS4_OK && a.x.clientid != cid40, "a 4.1 client c1 of another principal");
	ok(cs(&w, cid40, 1, &sys1, T0).csr_status == NFS4ERR_STALE_CLIENTID,
	   "CREATE_SESSION of a 4.0 clientid: STALE_CLIENTID");
	ok(cs(&w, a.x.clientid, 1, &sys2, T0).csr_status == NFS4_OK &&
	   nfs4_clients_renew(w.c, cid40, T0) == NFS4_OK, "both live");
	rm(&w);
}

struct thr {
	struct world *w;
	const sessionid4 *id;
	uint32_t slot;
	int bad;
};

static void *hammer(void *arg)
{
	struct thr *t = arg;
	uint32_t i;
	char buf[32];

	for (i = 1; i <= 2000; i++) {
		struct nfs4_slot_use q;
		struct iovec iov = { buf, 0 };

		if (seq(t->w, t->id, t->slot, i, true, T0, &q, NULL) != NFS4_OK) {
			t->bad++;
			continue;
		}
		iov.iov_len = (size_t)snprintf(buf, sizeof(buf), "%u/%u", t->slot, i);
		nfs4_sessions_done(t->w->s, &q, &iov, 1);
	}
	return NULL;
}

static void test_threads(void)
{
	struct world w = mk(64);
	struct ex a = exid(&w, "c1", 1, &sys1, false, T0);
	struct CREATE_SESSION4res r = cs(&w, a.x.clientid, 1, &sys1, T0);
	struct thr t[4];
	pthread_t th[4];
	int i, bad = 0, good = 0;

	for (i = 0; i < 4; i++) {
		t[i] = (struct thr){ &w, &r.u.csr_resok4.csr_sessionid, (uint32_t)i, 0 };
		pthread_create(&th[i], NULL, hammer, &t[i]);
	}
	for (i = 0; i < 4; i++) {
		struct nfs4_slot_use q;
		const uint8_t *b;
		uint32_t len;
		char want[32];

		pthread_join(th[i], NULL);
		bad += t[i].bad;
		snprintf(want, sizeof(want), "%d/2000", i);
		if (seq(&w, &r.u.csr_resok4.csr_sessionid, (uint32_t)i, 2000, true, T0, &q, NULL) ==
		    NFS4_OK && q.replay == NFS4_SEQ_CACHED && (b = nfs4_seq_cached(&q, &len)) &&
		    len == strlen(want) && !memcmp(b, want, len))
			good++;
		nfs4_sessions_done(w.s, &q, NULL, 0);
	}
	ok(bad == 0 && good == 4, "4 threads x 2000 SEQUENCEs on their own slots, last replies kept");
	rm(&w);
}

int main(void)
{
	test_exchange_id();
	test_reboot();
	test_create_session();
	test_sequence();
	test_sequence_nowait();
	test_renew_once_a_second();
	test_destroy();
	test_bounds();
	test_client_bound();
	test_backchannel();
	test_reclaim();
	test_versions();
	test_threads();
	return tap_done();
}
