// SPDX-License-Identifier: MIT
/*
 * Unit tests of the NFSv4.0 client records (src/nfs4/clients.c): every
 * case of SETCLIENTID (RFC 7530 16.33.5), SETCLIENTID_CONFIRM (16.34)
 * and RENEW (16.26) on a table driven with a clock of the test's own,
 * leases running out included; the bound on records; clientids of
 * another server instance; SETCLIENTIDs from several threads at once.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfs4/clients.h"
#include "../../tap.h"

#define BOOT 1700000000u
#define T0 1000u

static const struct nfs4_principal sys1 = { 1, 1000 };    /* AUTH_SYS uid 1000 */
static const struct nfs4_principal sys2 = { 1, 2000 };
static const struct nfs4_principal none = { 0, 0 };

static verifier4 verf(uint8_t b)
{
	verifier4 v;

	memset(v.val, b, sizeof(v.val));
	return v;
}

struct sc {
	enum nfsstat4 st;
	clientid4 cid;
	verifier4 confirm;
};

static struct sc setcid(struct nfs4_clients *t, const char *id, uint8_t v,
			const struct nfs4_principal *who, uint64_t now)
{
	struct sc r = { 0 };
	verifier4 vv = verf(v);
	struct nfs4_callback cb = { .program = 0x40000000, .netid = "tcp",
				    .addr = "127.0.0.1.3.4" };

	r.st = nfs4_clients_setclientid(t, (const uint8_t *)id, (uint32_t)strlen(id), &vv,
					who, &cb, now, &r.cid, &r.confirm);
	return r;
}

static bool same(const verifier4 *a, const verifier4 *b)
{
	return memcmp(a->val, b->val, sizeof(a->val)) == 0;
}

/* A new client: SETCLIENTID, CONFIRM, RENEW; a retransmitted CONFIRM. */
static void test_new_client(void)
{
	struct nfs4_clients *t = nfs4_clients_new(BOOT, 16);
	struct sc a = setcid(t, "client-a", 1, &sys1, T0);
	verifier4 bad = a.confirm;

	ok(a.st == NFS4_OK, "new client: SETCLIENTID OK");
	ok(a.cid >> 32 == BOOT, "clientid's high half is the boot time");
	ok(nfs4_clients_renew(t, a.cid, T0) == NFS4ERR_STALE_CLIENTID,
	   "RENEW of an unconfirmed client: STALE_CLIENTID");
	bad.val[0] ^= 1;
	ok(nfs4_clients_confirm(t, a.cid, &bad, &sys1, T0) == NFS4ERR_STALE_CLIENTID,
	   "CONFIRM with the wrong verifier: STALE_CLIENTID");
	ok(nfs4_clients_confirm(t, a.cid + 1, &a.confirm, &sys1, T0) == NFS4ERR_STALE_CLIENTID,
	   "CONFIRM of an unknown clientid: STALE_CLIENTID");
	ok(nfs4_clients_confirm(t, a.cid, &a.confirm, &sys2, T0) == NFS4ERR_CLID_INUSE,
	   "CONFIRM by another uid: CLID_INUSE");
	ok(nfs4_clients_confirm(t, a.cid, &a.confirm, &none, T0) == NFS4ERR_CLID_INUSE,
	   "CONFIRM by AUTH_NONE of an AUTH_SYS client: CLID_INUSE");
	ok(nfs4_clients_confirm(t, a.cid, &a.confirm, &sys1, T0 + 1) == NFS4_OK,
	   "CONFIRM: OK");
	ok(nfs4_clients_confirm(t, a.cid, &a.confirm, &sys1, T0 + 2) == NFS4_OK,
	   "retransmitted CONFIRM: OK");
	ok(nfs4_clients_confirm(t, a.cid, &bad, &sys1, T0 + 2) == NFS4ERR_STALE_CLIENTID,
	   "CONFIRM of a confirmed client with another verifier: STALE_CLIENTID");
	ok(nfs4_clients_renew(t, a.cid, T0 + 3) == NFS4_OK, "RENEW: OK");
	ok(nfs4_clients_count(t) == 1, "one record");
	nfs4_clients_free(t);
}

/* The same id and verifier again: a callback update. */
static void test_callback_update(void)
{
	struct nfs4_clients *t = nfs4_clients_new(BOOT, 16);
	struct sc a = setcid(t, "client-a", 1, &sys1, T0), b;

	nfs4_clients_confirm(t, a.cid, &a.confirm, &sys1, T0);
	b = setcid(t, "client-a", 1, &sys1, T0 + 1);
	ok(b.st == NFS4_OK && b.cid == a.cid, "callback update keeps the clientid");
	ok(!same(&b.confirm, &a.confirm), "callback update: a new confirm verifier");
	ok(nfs4_clients_renew(t, a.cid, T0 + 2) == NFS4_OK,
	   "the confirmed record still renews before the update is confirmed");
	ok(nfs4_clients_count(t) == 2, "confirmed and unconfirmed records");
	ok(nfs4_clients_confirm(t, b.cid, &b.confirm, &sys1, T0 + 3) == NFS4_OK,
	   "callback update confirmed");
	ok(nfs4_clients_count(t) == 1, "one record after the update");
	ok(nfs4_clients_confirm(t, b.cid, &b.confirm, &sys1, T0 + 4) == NFS4_OK,
	   "retransmitted CONFIRM of the update: OK");
	ok(nfs4_clients_confirm(t, a.cid, &a.confirm, &sys1, T0 + 4) == NFS4ERR_STALE_CLIENTID,
	   "the old confirm verifier: STALE_CLIENTID");
	ok(nfs4_clients_renew(t, a.cid, T0 + 5) == NFS4_OK, "RENEW after the update: OK");
	nfs4_clients_free(t);
}

/* The same id with a new verifier: the client rebooted. */
static void test_reboot(void)
{
	struct nfs4_clients *t = nfs4_clients_new(BOOT, 16);
	struct sc a = setcid(t, "client-a", 1, &sys1, T0), b;

	nfs4_clients_confirm(t, a.cid, &a.confirm, &sys1, T0);
	b = setcid(t, "client-a", 2, &sys1, T0 + 1);
	ok(b.st == NFS4_OK && b.cid != a.cid, "reboot: a new clientid");
	ok(nfs4_clients_renew(t, a.cid, T0 + 2) == NFS4_OK,
	   "the old incarnation lives until the new one is confirmed");
	ok(nfs4_clients_confirm(t, b.cid, &b.confirm, &sys1, T0 + 3) == NFS4_OK,
	   "reboot confirmed");
	ok(nfs4_clients_renew(t, a.cid, T0 + 4) == NFS4ERR_STALE_CLIENTID,
	   "the old clientid is gone: STALE_CLIENTID");
	ok(nfs4_clients_renew(t, b.cid, T0 + 4) == NFS4_OK, "the new one renews");
	ok(nfs4_clients_count(t) == 1, "one record");
	nfs4_clients_free(t);
}

/* An unconfirmed record replaced by a second SETCLIENTID. */
static void test_unconfirmed_replaced(void)
{
	struct nfs4_clients *t = nfs4_clients_new(BOOT, 16);
	struct sc a = setcid(t, "client-a", 1, &sys1, T0);
	struct sc b = setcid(t, "client-a", 2, &sys1, T0 + 1);
	struct sc c = setcid(t, "client-a", 2, &sys2, T0 + 1);

	ok(b.st == NFS4_OK && b.cid != a.cid, "second SETCLIENTID: another clientid");
	ok(c.st == NFS4_OK && c.cid != b.cid,
	   "an unconfirmed record is replaced whoever asks");
	ok(nfs4_clients_count(t) == 1, "one record");
	ok(nfs4_clients_confirm(t, a.cid, &a.confirm, &sys1, T0 + 2) == NFS4ERR_STALE_CLIENTID,
	   "the first is gone");
	ok(nfs4_clients_confirm(t, b.cid, &b.confirm, &sys1, T0 + 2) == NFS4ERR_STALE_CLIENTID,
	   "the second is gone");
	ok(nfs4_clients_confirm(t, c.cid, &c.confirm, &sys2, T0 + 2) == NFS4_OK,
	   "the last is confirmed");
	nfs4_clients_free(t);
}

/* A confirmed id of another principal; leases running out. */
static void test_inuse_and_leases(void)
{
	struct nfs4_clients *t = nfs4_clients_new(BOOT, 16);
	struct sc a = setcid(t, "client-a", 1, &sys1, T0), b, n;
	uint64_t at = T0;

	nfs4_clients_confirm(t, a.cid, &a.confirm, &sys1, T0);
	b = setcid(t, "client-a", 1, &sys2, T0 + 10);
	ok(b.st == NFS4_OK && b.cid != a.cid,
	   "another uid's SETCLIENTID of a live id holding no state: OK, a new clientid "
	   "(knfsd; pynfs CID2)");
	ok(nfs4_clients_renew(t, a.cid, T0 + 10) == NFS4_OK, "the first stays until that is confirmed");
	nfs4_clients_set_state(t, a.cid, true);
	b = setcid(t, "client-a", 1, &sys2, T0 + 10);
	ok(b.st == NFS4ERR_CLID_INUSE, "another uid's SETCLIENTID of a live id with state: "
	   "CLID_INUSE");
	b = setcid(t, "client-a", 1, &none, T0 + 10);
	ok(b.st == NFS4ERR_CLID_INUSE, "AUTH_NONE's SETCLIENTID of an AUTH_SYS id: CLID_INUSE");
	ok(nfs4_clients_renew(t, a.cid, at += NFS4_LEASE_TIME) == NFS4_OK,
	   "RENEW a whole lease later: OK");
	ok(nfs4_clients_renew(t, a.cid, at += NFS4_LEASE_TIME) == NFS4_OK,
	   "the lease counts from the last renewal");
	b = setcid(t, "client-a", 1, &sys2, at + NFS4_LEASE_TIME);
	ok(b.st == NFS4ERR_CLID_INUSE, "CLID_INUSE still at the end of the lease");
	nfs4_clients_set_state(t, a.cid, false);
	ok(nfs4_clients_renew(t, a.cid, at + NFS4_LEASE_TIME + 1) == NFS4ERR_STALE_CLIENTID,
	   "RENEW after the lease ran out: STALE_CLIENTID (no state, no courtesy client)");
	b = setcid(t, "client-a", 1, &sys2, at + NFS4_LEASE_TIME + 1);
	ok(b.st == NFS4_OK, "another uid may take an expired id");
	ok(nfs4_clients_confirm(t, b.cid, &b.confirm, &sys2, at + NFS4_LEASE_TIME + 2) == NFS4_OK,
	   "and confirm it");

	/* An unconfirmed record lasts one lease too. */
	n = setcid(t, "client-n", 1, &none, 5000);
	ok(nfs4_clients_confirm(t, n.cid, &n.confirm, &none, 5000 + NFS4_LEASE_TIME + 1) ==
	   NFS4ERR_STALE_CLIENTID, "CONFIRM after the lease: STALE_CLIENTID");
	n = setcid(t, "client-n", 1, &none, 6000);
	ok(nfs4_clients_confirm(t, n.cid, &n.confirm, &none, 6000 + NFS4_LEASE_TIME) == NFS4_OK,
	   "CONFIRM within the lease: OK (AUTH_NONE)");
	nfs4_clients_free(t);
}

/* Clientids of an earlier instance of the server. */
static void test_restart(void)
{
	struct nfs4_clients *t1 = nfs4_clients_new(BOOT, 16);
	struct nfs4_clients *t2 = nfs4_clients_new(BOOT + 1, 16);
	struct nfs4_clients *t3 = nfs4_clients_new(BOOT + 1, 16);
	struct sc a = setcid(t1, "client-a", 1, &sys1, T0), b, c;

	nfs4_clients_confirm(t1, a.cid, &a.confirm, &sys1, T0);
	ok(nfs4_clients_renew(t2, a.cid, T0) == NFS4ERR_STALE_CLIENTID,
	   "after a restart the clientid is STALE_CLIENTID");
	ok(nfs4_clients_confirm(t2, a.cid, &a.confirm, &sys1, T0) == NFS4ERR_STALE_CLIENTID,
	   "and so is its CONFIRM");
	b = setcid(t2, "client-a", 1, &sys1, T0);
	c = setcid(t3, "client-a", 1, &sys1, T0);
	ok(b.cid != a.cid, "the new instance gives another clientid");
	ok(b.cid != c.cid, "two instances started in the same second too");
	ok(!same(&b.confirm, &c.confirm), "confirm verifiers differ");
	nfs4_clients_free(t1);
	nfs4_clients_free(t2);
	nfs4_clients_free(t3);
}

/* At most max records; expired ones make room again. */
static void test_bound(void)
{
	struct nfs4_clients *t = nfs4_clients_new(BOOT, 4);
	uint8_t id[NFS4_OPAQUE_LIMIT + 1];
	verifier4 v = verf(1);
	clientid4 cid;
	verifier4 cf;
	struct sc s;
	char name[16];
	int i, good = 0;

	memset(id, 'x', sizeof(id));
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "c%d", i);
		good += setcid(t, name, 1, &sys1, T0).st == NFS4_OK;
	}
	ok(good == 4, "four records fit");
	ok(setcid(t, "c4", 1, &sys1, T0).st == NFS4ERR_RESOURCE, "a fifth: RESOURCE");
	s = setcid(t, "c0", 2, &sys1, T0 + 1);
	ok(s.st == NFS4_OK, "replacing an unconfirmed record needs no more room");
	ok(setcid(t, "c4", 1, &sys1, T0 + NFS4_LEASE_TIME).st == NFS4ERR_RESOURCE,
	   "still full while the leases last");
	ok(setcid(t, "c4", 1, &sys1, T0 + NFS4_LEASE_TIME + 1).st == NFS4_OK,
	   "expired records make room");
	ok(nfs4_clients_count(t) == 2, "dead records freed lazily (the ones of T0)");
	ok(nfs4_clients_setclientid(t, id, sizeof(id), &v, &sys1, NULL, T0, &cid, &cf) ==
	   NFS4ERR_INVAL, "an id over NFS4_OPAQUE_LIMIT: INVAL");
	ok(nfs4_clients_setclientid(t, id, NFS4_OPAQUE_LIMIT, &v, &sys1, NULL, T0 + 100,
				    &cid, &cf) == NFS4_OK, "an id of NFS4_OPAQUE_LIMIT bytes");
	ok(nfs4_clients_setclientid(t, NULL, 0, &v, &sys1, NULL, T0 + 100, &cid, &cf) == NFS4_OK &&
	   nfs4_clients_confirm(t, cid, &cf, &sys1, T0 + 100) == NFS4_OK,
	   "an empty id (no data pointer)");
	nfs4_clients_free(t);
}

#define THREADS 4
#define PER_THREAD 2000

struct worker {
	pthread_t th;
	struct nfs4_clients *t;
	int n;
	clientid4 cids[PER_THREAD];
	int failed;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	char name[32];
	int i;

	for (i = 0; i < PER_THREAD; i++) {
		struct sc s;

		snprintf(name, sizeof(name), "t%d-%d", w->n, i);
		s = setcid(w->t, name, 1, &sys1, T0);
		if (s.st != NFS4_OK ||
		    nfs4_clients_confirm(w->t, s.cid, &s.confirm, &sys1, T0) != NFS4_OK)
			w->failed++;
		w->cids[i] = s.cid;
	}
	return NULL;
}

static int cmp_cid(const void *a, const void *b)
{
	clientid4 x = *(const clientid4 *)a, y = *(const clientid4 *)b;

	return x < y ? -1 : x > y;
}

/* Concurrent SETCLIENTIDs: none lost, no clientid given twice. */
static void test_concurrent(void)
{
	static struct worker w[THREADS];
	static clientid4 all[THREADS * PER_THREAD];
	struct nfs4_clients *t = nfs4_clients_new(BOOT, NFS4_CLIENTS_MAX);
	int i, failed = 0, dup = 0, renewed = 0;

	for (i = 0; i < THREADS; i++) {
		w[i].t = t;
		w[i].n = i;
		pthread_create(&w[i].th, NULL, work, &w[i]);
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(w[i].th, NULL);
		failed += w[i].failed;
		memcpy(all + i * PER_THREAD, w[i].cids, sizeof(w[i].cids));
	}
	ok(failed == 0, "concurrent SETCLIENTID and CONFIRM: all OK");
	ok(nfs4_clients_count(t) == THREADS * PER_THREAD, "no record lost");
	qsort(all, THREADS * PER_THREAD, sizeof(all[0]), cmp_cid);
	for (i = 1; i < THREADS * PER_THREAD; i++)
		dup += all[i] == all[i - 1];
	ok(dup == 0, "no clientid given twice");
	for (i = 0; i < THREADS * PER_THREAD; i++)
		renewed += nfs4_clients_renew(t, all[i], T0 + 1) == NFS4_OK;
	ok(renewed == THREADS * PER_THREAD, "every clientid renews");
	nfs4_clients_free(t);
}

/* The callback path: per generation, reset by a callback update. */
static void test_cb_path(void)
{
	struct nfs4_clients *t = nfs4_clients_new(BOOT, 16);
	struct sc a = setcid(t, "cb-client", 1, &sys1, T0), b;
	struct nfs4_cb_target tg, tg2;

	ok(!nfs4_clients_cb_target(t, a.cid, T0, &tg), "unconfirmed: no callback target");
	nfs4_clients_confirm(t, a.cid, &a.confirm, &sys1, T0);
	ok(nfs4_clients_cb_target(t, a.cid, T0, &tg) && tg.cb.program == 0x40000000 &&
	   strcmp(tg.cb.netid, "tcp") == 0 && strcmp(tg.cb.addr, "127.0.0.1.3.4") == 0 &&
	   tg.who.flavor == 1 && tg.who.uid == 1000,
	   "confirmed: the callback and the principal to call it as");
	ok(nfs4_clients_cb_path(t, a.cid, T0) == NFS4_CB_PATH_UNKNOWN, "path unknown at first");
	nfs4_clients_cb_set(t, a.cid, tg.gen, NFS4_CB_PATH_UP);
	ok(nfs4_clients_cb_path(t, a.cid, T0) == NFS4_CB_PATH_UP, "a probe's result recorded");
	nfs4_clients_confirm(t, a.cid, &a.confirm, &sys1, T0 + 1);
	ok(nfs4_clients_cb_path(t, a.cid, T0 + 1) == NFS4_CB_PATH_UP,
	   "a retransmitted CONFIRM keeps it");
	b = setcid(t, "cb-client", 1, &sys1, T0 + 2);
	nfs4_clients_confirm(t, b.cid, &b.confirm, &sys1, T0 + 2);
	ok(nfs4_clients_cb_target(t, a.cid, T0 + 2, &tg2) && tg2.gen != tg.gen &&
	   nfs4_clients_cb_path(t, a.cid, T0 + 2) == NFS4_CB_PATH_UNKNOWN,
	   "a callback update: a new generation, path unknown again");
	nfs4_clients_cb_set(t, a.cid, tg.gen, NFS4_CB_PATH_DOWN);
	ok(nfs4_clients_cb_path(t, a.cid, T0 + 2) == NFS4_CB_PATH_UNKNOWN,
	   "a late result of the old generation is ignored");
	nfs4_clients_cb_set(t, a.cid, tg2.gen, NFS4_CB_PATH_DOWN);
	ok(nfs4_clients_cb_path(t, a.cid, T0 + 2) == NFS4_CB_PATH_DOWN,
	   "the new generation's result counts");
	ok(nfs4_clients_cb_path(t, a.cid, T0 + 2 + NFS4_LEASE_TIME + 1) == NFS4_CB_PATH_UNKNOWN &&
	   !nfs4_clients_cb_target(t, a.cid, T0 + 3 + NFS4_LEASE_TIME, &tg),
	   "an expired client has no callback");
	nfs4_clients_free(t);
}

/* Courtesy clients: a record whose lease ran out while it holds state. */
static void test_courtesy(void)
{
	struct nfs4_clients *t = nfs4_clients_new(BOOT, 4);
	struct sc a = setcid(t, "client-a", 1, &sys1, T0), b, c;
	uint64_t late = T0 + NFS4_LEASE_TIME + 10;
	char name[16];
	int i;

	nfs4_clients_confirm(t, a.cid, &a.confirm, &sys1, T0);
	nfs4_clients_set_state(t, a.cid, true);
	ok(!nfs4_clients_live(t, a.cid, late),
	   "a client holding state whose lease ran out is not live (a conflict takes its state)");
	ok(nfs4_clients_renew(t, a.cid, late) == NFS4_OK && nfs4_clients_live(t, a.cid, late),
	   "its own RENEW revives it (a courteous server)");
	ok(!nfs4_clients_revive(t, a.cid, late + 1), "a live client is no courtesy client");
	ok(nfs4_clients_revive(t, a.cid, late + NFS4_LEASE_TIME + 2) &&
	   nfs4_clients_live(t, a.cid, late + NFS4_LEASE_TIME + 2),
	   "another lease later, a call on its session revives it too");
	nfs4_clients_set_state(t, a.cid, false);
	ok(nfs4_clients_renew(t, a.cid, late + 3 * NFS4_LEASE_TIME) == NFS4ERR_STALE_CLIENTID,
	   "without state its lease running out is the end (STALE_CLIENTID)");

	/* a full table takes the courtesy records' room */
	b = setcid(t, "client-b", 1, &sys1, T0);
	nfs4_clients_confirm(t, b.cid, &b.confirm, &sys1, T0);
	nfs4_clients_set_state(t, b.cid, true);
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		c = setcid(t, name, 1, &sys1, late);
		nfs4_clients_confirm(t, c.cid, &c.confirm, &sys1, late);
	}
	ok(c.st == NFS4_OK && nfs4_clients_count(t) == 4,
	   "three live clients beside the courtesy one: the table is full");
	c = setcid(t, "n9", 1, &sys1, late);
	ok(c.st == NFS4_OK && nfs4_clients_count(t) == 4 && !nfs4_clients_revive(t, b.cid, late),
	   "a new client takes the courtesy record's room (the table is full)");
	nfs4_clients_free(t);
}

int main(void)
{
	test_new_client();
	test_cb_path();
	test_callback_update();
	test_reboot();
	test_unconfirmed_replaced();
	test_inuse_and_leases();
	test_restart();
	test_bound();
	test_courtesy();
	test_concurrent();
	return tap_done();
}
