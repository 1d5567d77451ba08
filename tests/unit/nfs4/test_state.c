// SPDX-License-Identifier: MIT
/*
 * Unit tests of the NFSv4 open state (src/nfs4/state.c): open-owner
 * seqids and their replay cache (RFC 7530 9.1.7), OPEN_CONFIRM, share
 * reservations and deny modes (9.9), upgrades and OPEN_DOWNGRADE's rule
 * (16.19.4), CLOSE, the stateid checks of READ and WRITE (special,
 * stale, old, bad, open mode), minor version 1's seqid 0, unconfirmed
 * owners replaced, purging a client, the per-client bound; byte-range
 * locks and their holders on the file system (nfs4_fslocks, here fake
 * ones over a map of 64 bytes): opened with the first range, dropped
 * with the last or with the stateid by every path, a local conflict's
 * DENIED leaving the table as it was, the upgrade to a writable holder,
 * RESOURCE undoing a new lock-owner's seqid; read
 * delegations (state_deleg.c): grants, conflicts and recalls, returns,
 * revocation (4.0 dropped, 4.1 kept revoked), the recall hold; the
 * table's counts for statistics (opens, locks, delegations, 4.0 replays).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfs4/state.h"
#include "vfs/lease.h"
#include "../../tap.h"

#define TAG 0x5eed1234u

static struct nfs4_state *t;
static const struct nfs4_file_id F1 = { 1, 100 }, F2 = { 1, 200 }, F3 = { 1, 300 };

/* OPEN by @owner of client @cid with @seqid (minor version 0 unless
 * @m1): the whole bracket, result bytes @res kept. */
static enum nfsstat4 open_(clientid4 cid, const char *owner, uint32_t seqid, bool m1,
			   const struct nfs4_file_id *f, uint32_t acc, uint32_t deny,
			   struct stateid4 *sid, bool *confirm, bool *replayed)
{
	static struct nfs4_seq q;
	enum nfsstat4 st;
	bool c = false;

	*replayed = false;
	st = nfs4_state_open_begin(t, cid, (const uint8_t *)owner, (uint32_t)strlen(owner),
				   seqid, !m1, &q);
	if (st != NFS4_OK)
		return st;
	if (q.replay) {
		*replayed = true;
		nfs4_state_seq_end(t, &q, NFS4_OK, NULL, 0);
		return NFS4_OK;
	}
	st = nfs4_state_open(t, &q, f, acc, deny, false, sid, &c);
	if (confirm)
		*confirm = c;
	nfs4_state_seq_end(t, &q, st, (const uint8_t *)"OPENRES!", 8);
	return st;
}

/* A seqid-bearing call on @sid: OPEN_CONFIRM (@what 'c'), CLOSE ('x') or
 * OPEN_DOWNGRADE ('d' to @acc/@deny). @replay gets the kept bytes. */
static enum nfsstat4 seqop(char what, const struct stateid4 *sid, uint32_t seqid, bool m1,
			   uint32_t acc, uint32_t deny, struct stateid4 *out, char *replay)
{
	static struct nfs4_seq q;
	enum nfsstat4 st;
	char res[16];

	replay[0] = 0;
	st = nfs4_state_seqid_begin(t, sid, &F1, seqid, !m1, what == 'c', &q);
	if (st != NFS4_OK) {
		nfs4_state_seq_end(t, &q, st, NULL, 0);
		return st;
	}
	if (q.replay) {
		memcpy(replay, q.reply, q.reply_len);
		replay[q.reply_len] = 0;
		nfs4_state_seq_end(t, &q, NFS4_OK, NULL, 0);
		return NFS4_OK;
	}
	if (what == 'c')
		st = nfs4_state_confirm(t, sid, out);
	else if (what == 'x')
		st = nfs4_state_close(t, sid, !m1, out);
	else
		st = nfs4_state_downgrade(t, sid, acc, deny, out);
	snprintf(res, sizeof(res), "%c%u", what, (unsigned)seqid);
	nfs4_state_seq_end(t, &q, st, (const uint8_t *)res, (uint32_t)strlen(res));
	return st;
}

static bool anon_write_locked(const struct nfs4_file_id *f)
{
	struct stateid4 anon = { 0 };
	clientid4 cid;

	return nfs4_state_check_io(t, &anon, f, true, false, &cid) == NFS4ERR_LOCKED;
}

static enum nfsstat4 io(const struct stateid4 *sid, const struct nfs4_file_id *f, bool w,
			bool m1)
{
	clientid4 cid;

	return nfs4_state_check_io(t, sid, f, w, !m1, &cid);
}


/* LOCK (minor version 1 unless @m0): a new lock-owner @lo from open
 * stateid @open, or (@lo NULL) the lock stateid @open. */
static enum nfsstat4 lock_(clientid4 cid, const char *lo, const struct stateid4 *open,
			   uint32_t seqid, bool m0, uint32_t type, uint64_t off, uint64_t len,
			   struct stateid4 *out, struct nfs4_lock_denied *d, bool *replayed)
{
	static struct nfs4_seq q;
	struct nfs4_lock_args a = {
		.type = type, .offset = off, .length = len, .new_owner = lo != NULL,
		.sid = open, .seqid = seqid, .lock_seqid = 0, .clientid = cid,
		.owner = (const uint8_t *)lo, .owner_len = lo ? (uint32_t)strlen(lo) : 0,
	};
	enum nfsstat4 st = nfs4_state_lock(t, &F1, &a, m0, &q, out, d);

	*replayed = q.replay;
	nfs4_state_seq_end(t, &q, st, (const uint8_t *)"LOCKRES!", 8);
	return st;
}

static enum nfsstat4 locku_(const struct stateid4 *sid, uint64_t off, uint64_t len,
			    struct stateid4 *out)
{
	static struct nfs4_seq q;
	enum nfsstat4 st = nfs4_state_locku(t, &F1, sid, 0, off, len, false, &q, out, NULL);

	nfs4_state_seq_end(t, &q, st, NULL, 0);
	return st;
}

static enum nfsstat4 lockt_(clientid4 cid, const char *lo, uint32_t type, uint64_t off,
			    uint64_t len, struct nfs4_lock_denied *d)
{
	return nfs4_state_lockt(t, &F1, cid, (const uint8_t *)lo, (uint32_t)strlen(lo), type,
				off, len, d, NULL);
}

static void locks(void)
{
	struct stateid4 o1, o2, l1, l2, x;
	struct nfs4_lock_denied d;
	enum nfsstat4 st;
	bool confirm, rep;

	ok(open_(10, "open10", 0, true, &F1, OPEN4_SHARE_ACCESS_BOTH, 0, &o1, &confirm, &rep) ==
	   NFS4_OK && open_(11, "open11", 0, true, &F1, OPEN4_SHARE_ACCESS_READ, 0, &o2,
			    &confirm, &rep) == NFS4_OK, "two clients open one file");
	st = lock_(10, "lk1", &o1, 0, false, WRITE_LT, 0, 100, &l1, &d, &rep);
	ok(st == NFS4_OK && l1.seqid == 1, "LOCK write [0, 100) by a new lock-owner: seqid 1");
	memset(&d, 0, sizeof(d));
	st = lock_(11, "lk2", &o2, 0, false, READ_LT, 50, 10, &l2, &d, &rep);
	ok(st == NFS4ERR_DENIED && d.offset == 0 && d.length == 100 && d.type == WRITE_LT &&
	   d.clientid == 10 && d.owner_len == 3 && memcmp(d.owner, "lk1", 3) == 0,
	   "another client's read lock inside it: DENIED, with the holder's range and owner");
	ok(lockt_(11, "lk2", READ_LT, 100, 10, &d) == NFS4_OK,
	   "LOCKT just past the range: OK");
	ok(lockt_(11, "lk2", WRITE_LT, 99, 1, &d) == NFS4ERR_DENIED, "LOCKT of its last byte: DENIED");
	ok(lockt_(10, "lk1", WRITE_LT, 0, 100, &d) == NFS4_OK, "LOCKT by the holder itself: OK");
	ok(lockt_(11, "lk2", READ_LT, 0, 0, &d) == NFS4ERR_INVAL, "length 0: INVAL");
	ok(lockt_(11, "lk2", READ_LT, 10, NFS4_UINT64_MAX - 5, &d) == NFS4ERR_INVAL,
	   "a range past 2^64 - 1: INVAL");
	ok(io(&l1, &F1, true, true) == NFS4_OK, "WRITE with the lock stateid (a read/write open)");
	st = locku_(&l1, 0, 50, &x);
	ok(st == NFS4_OK && x.seqid == 2, "LOCKU of [0, 50): seqid 2");
	ok(lockt_(11, "lk2", WRITE_LT, 0, 50, &d) == NFS4_OK &&
	   lockt_(11, "lk2", READ_LT, 50, 1, &d) == NFS4ERR_DENIED,
	   "[0, 50) free, [50, 100) still held");
	st = lock_(10, NULL, &x, 0, false, READ_LT, 60, 10, &l1, &d, &rep);
	ok(st == NFS4_OK, "the holder turns [60, 70) into a read lock (a split)");
	ok(lockt_(11, "lk2", READ_LT, 60, 10, &d) == NFS4_OK &&
	   lockt_(11, "lk2", READ_LT, 59, 2, &d) == NFS4ERR_DENIED &&
	   lockt_(11, "lk2", READ_LT, 70, 1, &d) == NFS4ERR_DENIED,
	   "... reads of [60, 70) pass, its write neighbours still conflict");
	st = lock_(11, "lk2", &o2, 0, false, READ_LT, 62, 5, &l2, &d, &rep);
	ok(st == NFS4_OK, "the other client's read lock there: OK (the owner sent as new again)");
	ok(io(&l2, &F1, true, true) == NFS4ERR_OPENMODE,
	   "WRITE with a lock stateid of a read-only open: OPENMODE");
	ok(nfs4_state_release_lockowner(t, 10, (const uint8_t *)"lk1", 3) == NFS4ERR_LOCKS_HELD,
	   "RELEASE_LOCKOWNER while it holds locks: LOCKS_HELD");
	ok(locku_(&l1, 0, NFS4_UINT64_MAX, &x) == NFS4_OK,
	   "unlocked to the end: OK");
	ok(nfs4_state_free_stateid(t, 10, &x) == NFS4_OK && nfs4_state_test(t, 10, &x) ==
	   NFS4ERR_BAD_STATEID, "FREE_STATEID of the lock stateid without locks: gone");
	ok(nfs4_state_release_lockowner(t, 10, (const uint8_t *)"lk1", 3) == NFS4_OK,
	   "then released: OK");
	ok(io(&x, &F1, false, true) == NFS4ERR_BAD_STATEID, "its lock stateid is gone");
	st = lock_(10, "lk3", &o1, 0, false, WRITE_LT, 0, NFS4_UINT64_MAX, &l1, &d, &rep);
	ok(st == NFS4ERR_DENIED && d.offset == 62 && d.length == 5 && d.type == READ_LT,
	   "a write lock of the whole file: DENIED by the read lock [62, 67)");
	{
		static struct nfs4_seq q;

		ok(nfs4_state_seqid_begin(t, &o2, &F1, 0, false, false, &q) == NFS4_OK &&
		   nfs4_state_close(t, &o2, false, &x) == NFS4_OK, "CLOSE of the read open ...");
		nfs4_state_seq_end(t, &q, NFS4_OK, NULL, 0);
	}
	ok(lockt_(10, "lk3", WRITE_LT, 0, NFS4_UINT64_MAX, &d) == NFS4_OK &&
	   io(&l2, &F1, false, true) == NFS4ERR_BAD_STATEID,
	   "... takes its locks and their stateid with it");
	nfs4_state_purge_client(t, 10);
	nfs4_state_purge_client(t, 11);
	ok(nfs4_state_client_count(t, 10) + nfs4_state_client_count(t, 11) == 0,
	   "both clients purged");
}

/* Minor version 0: a LOCK's replay, and its seqid rules. */
static void locks40(void)
{
	struct stateid4 o, l, x;
	struct nfs4_lock_denied d;
	enum nfsstat4 st;
	bool confirm, rep;
	char replay[64];

	st = open_(20, "o40", 1, false, &F1, OPEN4_SHARE_ACCESS_BOTH, 0, &o, &confirm, &rep);
	ok(st == NFS4_OK && seqop('c', &o, 2, false, 0, 0, &o, replay) == NFS4_OK,
	   "4.0: open and confirm");
	st = lock_(20, "l40", &o, 3, true, WRITE_LT, 0, 10, &l, &d, &rep);
	ok(st == NFS4_OK && !rep, "4.0 LOCK by a new lock-owner (open seqid 3)");
	st = lock_(20, "l40", &o, 3, true, WRITE_LT, 0, 10, &x, &d, &rep);
	ok(st == NFS4_OK && rep, "the same LOCK again: a replay");
	st = lock_(20, NULL, &l, 1, true, WRITE_LT, 20, 10, &x, &d, &rep);
	ok(st == NFS4_OK && !rep && x.seqid == 2, "the lock-owner's next LOCK (lock seqid 1)");
	st = lock_(20, NULL, &x, 5, true, WRITE_LT, 40, 10, &x, &d, &rep);
	ok(st == NFS4ERR_BAD_SEQID, "a lock seqid ahead: BAD_SEQID");
	st = lock_(21, "l40", &o, 4, true, WRITE_LT, 0, 10, &x, &d, &rep);
	ok(st == NFS4ERR_BAD_STATEID, "4.0: a lock-owner of another client than the open's: "
	   "BAD_STATEID");
	nfs4_state_purge_client(t, 20);
}

/* ---- fake holders on the file system ---- */

#define FSB 64u                 /* bytes of the fake file */

struct nfs4_fslock {
	bool write;
	uint8_t map[FSB];       /* 0, READ_LT or WRITE_LT per byte */
};

static int fs_open_n, fs_live;
static uint8_t fs_local[FSB];   /* a local process's locks, per byte */
static enum nfsstat4 fs_open_fails; /* NFS4_OK: opens succeed */
static const struct nfs4_fslock *fs_tested;  /* test's holder, last call */

static enum nfsstat4 fk_open(void *ctx, bool write, struct nfs4_fslock **out)
{
	if (fs_open_fails != NFS4_OK)
		return fs_open_fails;
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return NFS4ERR_SERVERFAULT;
	(*out)->write = write;
	fs_open_n++;
	fs_live++;
	return NFS4_OK;
}

static bool fk_writable(const struct nfs4_fslock *h)
{
	return h->write;
}

/* Does a local lock meet [@start, @end] as @type? The first such byte in @d. */
static bool fk_local(uint32_t type, uint64_t start, uint64_t end, struct nfs4_lock_denied *d)
{
	uint64_t i;

	for (i = start; i <= end && i < FSB; i++)
		if (fs_local[i] && (type == WRITE_LT || fs_local[i] == WRITE_LT)) {
			d->offset = i;
			d->length = 1;
			d->type = fs_local[i];
			d->clientid = 0;
			d->owner_len = 5;
			memcpy(d->owner, "local", 5);
			return true;
		}
	return false;
}

static enum nfsstat4 fk_set(void *ctx, struct nfs4_fslock *h, uint32_t type, uint64_t start,
			    uint64_t end, struct nfs4_lock_denied *d)
{
	uint64_t i;

	if (type == WRITE_LT && !h->write)
		return NFS4ERR_SERVERFAULT;
	if (type && fk_local(type, start, end, d))
		return NFS4ERR_DENIED;
	for (i = start; i <= end && i < FSB; i++)
		h->map[i] = (uint8_t)type;
	return NFS4_OK;
}

static enum nfsstat4 fk_test(void *ctx, const struct nfs4_fslock *h, uint32_t type,
			     uint64_t start, uint64_t end, struct nfs4_lock_denied *d)
{
	fs_tested = h;
	return fk_local(type, start, end, d) ? NFS4ERR_DENIED : NFS4_OK;
}

static void fk_drop(struct nfs4_fslock *h)
{
	fs_live--;
	free(h);
}

static const struct nfs4_fslocks fake_fs = {
	.open = fk_open, .writable = fk_writable, .set = fk_set, .test = fk_test,
	.drop = fk_drop,
};

static int fs_ctx;              /* a non-NULL context: "this backend has locks" */

/* LOCK of file @f with the hooks' context: a new lock-owner @lo (its
 * first seqid @lseq) from open stateid @sid, or (@lo NULL) lock
 * stateid @sid; minor version 0 with @m0. */
static enum nfsstat4 fslock_(const struct nfs4_file_id *f, clientid4 cid, const char *lo,
			     uint32_t lseq, const struct stateid4 *sid, uint32_t seqid, bool m0,
			     uint32_t type, uint64_t off, uint64_t len, struct stateid4 *out,
			     struct nfs4_lock_denied *d)
{
	static struct nfs4_seq q;
	struct nfs4_lock_args a = {
		.type = type, .offset = off, .length = len, .new_owner = lo != NULL,
		.sid = sid, .seqid = seqid, .lock_seqid = lseq, .clientid = cid,
		.owner = (const uint8_t *)lo, .owner_len = lo ? (uint32_t)strlen(lo) : 0,
		.fs = &fs_ctx,
	};
	enum nfsstat4 st = nfs4_state_lock(t, f, &a, m0, &q, out, d);

	nfs4_state_seq_end(t, &q, st, NULL, 0);
	return st;
}

static enum nfsstat4 fslocku_(const struct nfs4_file_id *f, const struct stateid4 *sid,
			      uint64_t off, uint64_t len, struct stateid4 *out)
{
	static struct nfs4_seq q;
	enum nfsstat4 st = nfs4_state_locku(t, f, sid, 0, off, len, false, &q, out, &fs_ctx);

	nfs4_state_seq_end(t, &q, st, NULL, 0);
	return st;
}

static enum nfsstat4 fslockt_(const struct nfs4_file_id *f, clientid4 cid, const char *lo,
			      uint32_t type, uint64_t off, uint64_t len, struct nfs4_lock_denied *d)
{
	return nfs4_state_lockt(t, f, cid, (const uint8_t *)lo, (uint32_t)strlen(lo), type, off,
				len, d, &fs_ctx);
}

static bool all(const struct nfs4_fslock *h, uint64_t from, uint64_t to, uint8_t v)
{
	uint64_t i;

	for (i = from; i <= to; i++)
		if (h->map[i] != v)
			return false;
	return true;
}

static clientid4 dead_client;

static bool live(clientid4 cid);

/* Locks held on the file system through the hooks. */
static void fslocks(void)
{
	static const struct nfs4_file_id G = { 2, 1 }, H = { 2, 2 };
	struct stateid4 o1, o2, o3, l1, l2, l3, x;
	struct nfs4_lock_denied d;
	bool confirm, rep;
	enum nfsstat4 st;

	nfs4_state_set_fslocks(t, &fake_fs);
	ok(open_(60, "o60", 0, true, &G, OPEN4_SHARE_ACCESS_BOTH, 0, &o1, &confirm, &rep) ==
	   NFS4_OK && open_(61, "o61", 0, true, &G, OPEN4_SHARE_ACCESS_BOTH, 0, &o2, &confirm,
			   &rep) == NFS4_OK, "fs: two clients open a file");
	st = fslock_(&G, 60, "fl60", 0, &o1, 0, false, WRITE_LT, 0, 10, &l1, &d);
	ok(st == NFS4_OK && fs_open_n == 1 && fs_live == 1,
	   "fs: a LOCK opens one holder for its stateid (%d)", (int)st);
	st = fslock_(&G, 60, NULL, 0, &l1, 0, false, WRITE_LT, 20, 10, &l1, &d);
	ok(st == NFS4_OK && fs_open_n == 1, "fs: its next LOCK uses the same holder");
	st = fslocku_(&G, &l1, 0, 10, &l1);
	ok(st == NFS4_OK && fs_live == 1, "fs: a LOCKU of one of two ranges keeps the holder");
	st = fslocku_(&G, &l1, 0, NFS4_UINT64_MAX, &l1);
	ok(st == NFS4_OK && fs_live == 0, "fs: a LOCKU of the rest drops it");

	/* a local process's lock */
	fs_local[40] = READ_LT;
	st = fslock_(&G, 60, NULL, 0, &l1, 0, false, WRITE_LT, 30, 20, &l1, &d);
	ok(st == NFS4ERR_DENIED && d.clientid == 0 && d.offset == 40 && fs_live == 0,
	   "fs: a local conflict: DENIED as the hook said, the holder opened for it dropped");
	ok(fslockt_(&G, 61, "fl61", READ_LT, 30, 20, &d) == NFS4_OK,
	   "fs: the table holds nothing of the denied range (another client's LOCKT: OK)");
	st = fslock_(&G, 61, "fl61", 0, &o2, 0, false, READ_LT, 30, 20, &l2, &d);
	ok(st == NFS4_OK && fs_live == 1 && fs_open_n == 3,
	   "fs: another client's READ lock there shares the local one");
	ok(fslockt_(&G, 61, "fl61", WRITE_LT, 40, 1, &d) == NFS4ERR_DENIED && d.clientid == 0 &&
	   fs_tested != NULL, "fs: its LOCKT of a write lock: the local lock, asked with "
	   "its own holder");
	ok(fslockt_(&G, 60, "nobody", READ_LT, 0, 5, &d) == NFS4_OK && fs_tested == NULL,
	   "fs: a LOCKT by an owner without a stateid there: asked with none");
	fs_local[40] = 0;

	/* the upgrade of a holder opened for reading */
	st = fslock_(&G, 61, NULL, 0, &l2, 0, false, WRITE_LT, 0, 5, &l2, &d);
	ok(st == NFS4_OK && fs_open_n == 4 && fs_live == 1,
	   "fs: a WRITE lock on a read holder: a writable one replaces it (%d opened)",
	   fs_open_n);
	ok(fslockt_(&G, 60, "fl60", READ_LT, 0, 5, &d) == NFS4ERR_DENIED &&
	   fslockt_(&G, 60, "fl60", WRITE_LT, 30, 1, &d) == NFS4ERR_DENIED,
	   "fs: the table holds both ranges");
	fs_local[45] = WRITE_LT;
	ok(fslockt_(&G, 61, "fl61", READ_LT, 45, 1, &d) == NFS4ERR_DENIED && fs_tested &&
	   fs_tested->write && all(fs_tested, 0, 4, WRITE_LT) && all(fs_tested, 30, 39, READ_LT) &&
	   all(fs_tested, 5, 29, 0), "fs: the new holder took the old one's read range over");
	fs_local[45] = 0;

	/* CLOSE, purge, a courtesy client's reap, forget_file */
	{
		static struct nfs4_seq q;

		ok(nfs4_state_seqid_begin(t, &o2, &G, 0, false, false, &q) == NFS4_OK &&
		   nfs4_state_close(t, &o2, false, &x) == NFS4_OK && fs_live == 0,
		   "fs: CLOSE of the open drops its lock stateid's holder");
		nfs4_state_seq_end(t, &q, NFS4_OK, NULL, 0);
	}
	st = fslock_(&G, 60, NULL, 0, &l1, 0, false, WRITE_LT, 0, 1, &l1, &d);
	ok(st == NFS4_OK && fs_live == 1, "fs: a client holds a lock again");
	nfs4_state_purge_client(t, 60);
	ok(fs_live == 0, "fs: purging the client drops its holder");
	ok(open_(62, "o62", 0, true, &H, OPEN4_SHARE_ACCESS_BOTH, 0, &o3, &confirm, &rep) ==
	   NFS4_OK && fslock_(&H, 62, "fl62", 0, &o3, 0, false, WRITE_LT, 0, 10, &l3, &d) ==
	   NFS4_OK && fs_live == 1, "fs: client 62 locks file H");
	nfs4_state_set_live(t, live, 0);
	dead_client = 62;
	ok(open_(63, "o63", 0, true, &H, OPEN4_SHARE_ACCESS_BOTH, 0, &x, &confirm, &rep) ==
	   NFS4_OK && fslockt_(&H, 63, "fl63", WRITE_LT, 0, 1, &d) == NFS4_OK && fs_live == 0,
	   "fs: its lease runs out, another client's LOCKT meets its lock: the holder goes");
	dead_client = 0;
	nfs4_state_set_live(t, NULL, 0);
	ok(fslock_(&H, 63, "fl63", 0, &x, 0, false, WRITE_LT, 0, 10, &l3, &d) == NFS4_OK &&
	   fs_live == 1, "fs: client 63 locks H");
	nfs4_state_forget_file(t, &H);
	ok(fs_live == 0, "fs: the file forgotten (its inode number reused): the holder goes");

	/* 4.0: a holder that cannot be opened; the owner's seqid undone */
	{
		static struct nfs4_seq q;

		st = open_(64, "o64", 1, false, &H, OPEN4_SHARE_ACCESS_BOTH, 0, &o3, &confirm,
			   &rep);
		st = st == NFS4_OK ? nfs4_state_seqid_begin(t, &o3, &H, 2, true, true, &q) : st;
		st = st == NFS4_OK ? nfs4_state_confirm(t, &o3, &o3) : st;
		nfs4_state_seq_end(t, &q, st, NULL, 0);
		ok(st == NFS4_OK, "fs: 4.0 open and confirm");
	}
	fs_open_fails = NFS4ERR_RESOURCE;
	st = fslock_(&H, 64, "fl64", 7, &o3, 3, true, WRITE_LT, 0, 10, &l3, &d);
	ok(st == NFS4ERR_RESOURCE && fs_live == 0, "fs: no holder to open: RESOURCE");
	fs_open_fails = NFS4_OK;
	st = fslock_(&H, 64, "fl64", 7, &o3, 3, true, WRITE_LT, 0, 10, &l3, &d);
	ok(st == NFS4_OK && fs_live == 1,
	   "fs: the same LOCK again (open and lock seqids not counted): OK (%d)", (int)st);
	st = fslock_(&H, 64, NULL, 0, &l3, 8, true, READ_LT, 20, 1, &x, &d);
	ok(st == NFS4_OK, "fs: the lock-owner's next seqid is the one after (%d)", (int)st);
	ok(nfs4_state_release_lockowner(t, 64, (const uint8_t *)"fl64", 4) ==
	   NFS4ERR_LOCKS_HELD && fs_live == 1, "fs: RELEASE_LOCKOWNER with locks: nothing dropped");
	nfs4_state_purge_client(t, 64);
	nfs4_state_purge_client(t, 61);
	nfs4_state_purge_client(t, 63);
	ok(fs_live == 0, "fs: every holder dropped");
	/* one left for nfs4_state_free */
	ok(open_(65, "o65", 0, true, &H, OPEN4_SHARE_ACCESS_BOTH, 0, &o3, &confirm, &rep) ==
	   NFS4_OK && fslock_(&H, 65, "fl65", 0, &o3, 0, false, READ_LT, 0, 10, &l3, &d) ==
	   NFS4_OK && fs_live == 1, "fs: a holder left for the table's end");
}

static bool live(clientid4 cid)
{
	return cid != dead_client;
}

/* A courteous table: a client whose lease ran out keeps its state until
 * another one conflicts with it. */
static void courtesy(void)
{
	struct stateid4 a, b, l = { 0 }, x;
	struct nfs4_lock_denied d;
	bool confirm, rep;

	nfs4_state_set_live(t, live, 0);
	ok(open_(30, "o30", 0, true, &F3, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_WRITE, &a,
		 &confirm, &rep) == NFS4_OK &&
	   open_(31, "o31", 0, true, &F3, OPEN4_SHARE_ACCESS_WRITE, 0, &b, &confirm, &rep) ==
	   NFS4ERR_SHARE_DENIED, "a live client's deny holds another client off");
	dead_client = 30;
	ok(io(&a, &F3, false, true) == NFS4_OK,
	   "its lease runs out: its stateid still works while nobody conflicts");
	ok(open_(31, "o31", 0, true, &F3, OPEN4_SHARE_ACCESS_WRITE, 0, &b, &confirm, &rep) ==
	   NFS4_OK, "a conflicting OPEN of another client: the expired client gives way");
	ok(io(&a, &F3, false, true) == NFS4ERR_EXPIRED &&
	   nfs4_state_client_count(t, 30) == 0,
	   "... and its state is gone: its stateid is EXPIRED (its client lost its lease)");
	ok(nfs4_state_reaped(t, 30) && !nfs4_state_reaped(t, 30) && !nfs4_state_reaped(t, 31),
	   "the table remembers that client 30 lost its state, until asked once");
	ok(!nfs4_state_reaped(t, 0), "clientid 0 (no client's) never lost state");
	dead_client = 0;
	ok(open_(32, "o32", 0, true, &F1, OPEN4_SHARE_ACCESS_BOTH, 0, &a, &confirm, &rep) ==
	   NFS4_OK && lock_(32, "l32", &a, 0, false, WRITE_LT, 0, 10, &l, &d, &rep) == NFS4_OK,
	   "a client holds a write lock");
	ok(lockt_(33, "l33", READ_LT, 0, 1, &d) == NFS4ERR_DENIED, "... which another client's "
	   "LOCKT meets");
	ok(anon_write_locked(&F1) == false, "(no deny on that file)");
	dead_client = 32;
	ok(lockt_(33, "l33", READ_LT, 0, 1, &d) == NFS4_OK && nfs4_state_client_count(t, 32) == 0,
	   "its lease runs out: the conflict drops its state");
	x = l;
	ok(io(&x, &F1, false, true) == NFS4ERR_EXPIRED, "its lock stateid is gone (EXPIRED)");
	x.other[11] ^= 1;
	dead_client = 0;
	ok(io(&x, &F1, false, true) == NFS4ERR_BAD_STATEID,
	   "a stateid never given, of a live client: BAD_STATEID");
	nfs4_state_purge_client(t, 31);
	nfs4_state_set_live(t, NULL, 0);
	dead_client = 0;
}

/* A write lock [0, 10) on file { 1, 400 } from open @o (minor version 1). */
static bool lock_f4(const struct stateid4 *o, struct stateid4 *l,
				    struct nfs4_lock_denied *d)
{
	static const struct nfs4_file_id f4 = { 1, 400 };
	static struct nfs4_seq q;
	struct nfs4_lock_args a = {
		.type = WRITE_LT, .offset = 0, .length = 10, .new_owner = true, .sid = o,
		.owner = (const uint8_t *)"l40", .owner_len = 3,
	};
	enum nfsstat4 st = nfs4_state_lock(t, &f4, &a, false, &q, l, d);

	nfs4_state_seq_end(t, &q, st, NULL, 0);
	return st == NFS4_OK;
}

/* ---- read delegations ---- */

static int held_count, revoked_count, write_count;

static void deleg_count(int held, int revoked, int write)
{
	held_count += held;
	revoked_count += revoked;
	write_count += write;
}

/* OPEN by @owner of @cid (minor version 1 when @m1) of @f for @acc, then
 * a delegation asked at @now (a write one when @acc has write access):
 * *@why says how that went. */
static enum nfsstat4 open_deleg(clientid4 cid, const char *owner, uint32_t seqid, bool m1,
				const struct nfs4_file_id *f, uint32_t acc, uint64_t now,
				struct stateid4 *osid, struct stateid4 *dsid,
				enum nfs4_deleg_why *why)
{
	static struct nfs4_seq q;
	static const uint8_t fh[] = "FILEHANDLE";
	enum nfsstat4 st;
	bool c = false;

	*why = NFS4_DELEG_RESOURCE;
	st = nfs4_state_open_begin(t, cid, (const uint8_t *)owner, (uint32_t)strlen(owner),
				   seqid, !m1, &q);
	if (st != NFS4_OK)
		return st;
	st = nfs4_state_open(t, &q, f, acc, 0, false, osid, &c);
	if (st == NFS4_OK)
		*why = nfs4_state_deleg_grant(t, &q, f, now, m1,
					      (acc & OPEN4_SHARE_ACCESS_WRITE) != 0, fh, sizeof(fh),
					      dsid);
	nfs4_state_seq_end(t, &q, st, (const uint8_t *)"OPENRES!", 8);
	return st;
}

static bool same_sid(const struct stateid4 *a, const struct stateid4 *b)
{
	return a->seqid == b->seqid && memcmp(a->other, b->other, sizeof(a->other)) == 0;
}

static void delegs(void)
{
	const struct nfs4_file_id G = { 2, 100 }, H = { 2, 200 }, K = { 2, 300 };
	struct nfs4_recall r[NFS4_RECALLS_MAX];
	struct stateid4 oa, ob, oc, da, db, dc, x, y;
	enum nfs4_deleg_why why;
	uint32_t n, held, revoked;

	nfs4_state_set_deleg_count(t, deleg_count);
	ok(open_deleg(50, "o50", 7, false, &G, OPEN4_SHARE_ACCESS_READ, 100, &oa, &da, &why) ==
	   NFS4_OK && why == NFS4_DELEG_CONTENTION,
	   "4.0: no delegation to an open-owner not yet confirmed (knfsd's rule)");
	ok(nfs4_state_confirm(t, &oa, &oa) == NFS4_OK, "its OPEN_CONFIRM");
	ok(open_deleg(50, "o50", 8, false, &G, OPEN4_SHARE_ACCESS_READ, 100, &x, &da, &why) ==
	   NFS4_OK && why == NFS4_DELEG_GRANTED && !same_sid(&x, &da) && da.seqid == 1,
	   "its next read OPEN: a read delegation, a stateid of its own (seqid 1)");
	ok(held_count == 1 && nfs4_state_delegs(t) == 1, "counted: 1 held");
	ok(io(&da, &G, false, false) == NFS4_OK, "READ with the delegation stateid");
	ok(io(&da, &G, true, false) == NFS4ERR_OPENMODE, "WRITE with it: OPENMODE");
	ok(io(&da, &H, false, false) == NFS4ERR_BAD_STATEID, "READ of another file with it: BAD_STATEID");
	ok(nfs4_state_seqid_begin(t, &da, &G, 9, true, false, &(struct nfs4_seq){ 0 }) ==
	   NFS4ERR_BAD_STATEID, "CLOSE or OPEN_DOWNGRADE of a delegation stateid: BAD_STATEID");
	ok(open_deleg(50, "o50b", 1, true, &G, OPEN4_SHARE_ACCESS_READ, 100, &x, &y, &why) ==
	   NFS4_OK && why == NFS4_DELEG_CONTENTION, "the same client again: it has one already");
	ok(open_deleg(51, "o51", 0, true, &G, OPEN4_SHARE_ACCESS_READ, 100, &ob, &db, &why) ==
	   NFS4_OK && why == NFS4_DELEG_GRANTED, "another client reading: a delegation too");

	ok(nfs4_state_deleg_break(t, &G, 50, false, 100, 15, r, &n) == NFS4ERR_DELAY && n == 1 &&
	   r[0].clientid == 51 && r[0].minor1 && same_sid(&r[0].sid, &db) && r[0].fh_len == 11 &&
	   memcmp(r[0].fh, "FILEHANDLE", 11) == 0,
	   "a change by client 50: DELAY, client 51's delegation recalled (with its handle)");
	ok(nfs4_state_deleg_break(t, &G, 50, false, 101, 15, r, &n) == NFS4ERR_DELAY && n == 0,
	   "again: DELAY, the recall is not sent twice");
	nfs4_state_deleg_unsent(t, &db);
	ok(nfs4_state_deleg_break(t, &G, 50, false, 102, 15, r, &n) == NFS4ERR_DELAY && n == 1,
	   "a recall that failed goes again at the next try");
	ok(open_deleg(52, "o52", 0, true, &G, OPEN4_SHARE_ACCESS_READ, 102, &oc, &dc, &why) ==
	   NFS4_OK && why == NFS4_DELEG_CONTENTION, "no new delegation while one is recalled");
	ok(nfs4_state_deleg_check(t, 51, &db, &G, false) == NFS4_OK &&
	   nfs4_state_deleg_check(t, 50, &db, &G, false) == NFS4ERR_BAD_STATEID,
	   "CLAIM_DELEG_CUR by the holder while it is recalled: OK; by another client: BAD_STATEID");
	ok(nfs4_state_delegreturn(t, 52, &db, &G, false) == NFS4ERR_BAD_STATEID &&
	   nfs4_state_delegreturn(t, 51, &db, &H, false) == NFS4ERR_BAD_STATEID,
	   "DELEGRETURN by another client, or of another file: BAD_STATEID");
	ok(nfs4_state_delegreturn(t, 51, &db, &G, false) == NFS4_OK && held_count == 1,
	   "DELEGRETURN by its holder: OK, 1 held");
	ok(nfs4_state_delegreturn(t, 51, &db, &G, false) == NFS4ERR_BAD_STATEID,
	   "... a second time: BAD_STATEID");
	ok(nfs4_state_deleg_break(t, &G, 50, false, 103, 15, r, &n) == NFS4_OK && n == 0,
	   "client 50's own change now: its own delegation does not conflict");
	ok(open_deleg(52, "o52", 1, true, &G, OPEN4_SHARE_ACCESS_READ, 100 + NFS4_DELEG_RECALL_HOLD - 1,
		      &oc, &dc, &why) == NFS4_OK && why == NFS4_DELEG_CONTENTION,
	   "a file recalled lately gets no delegation within the hold");
	ok(open_deleg(52, "o52", 2, true, &G, OPEN4_SHARE_ACCESS_READ, 100 + NFS4_DELEG_RECALL_HOLD,
		      &oc, &dc, &why) == NFS4_OK && why == NFS4_DELEG_GRANTED && held_count == 2,
	   "... and gets one after it");

	/* revocation a lease after the recall */
	ok(nfs4_state_deleg_break(t, &G, 0, false, 200, 15, r, &n) == NFS4ERR_DELAY && n == 2,
	   "a change by NFSv3 (no client): both delegations recalled");
	ok(nfs4_state_deleg_break(t, &G, 0, false, 214, 15, r, &n) == NFS4ERR_DELAY && n == 0,
	   "still DELAY a second before the lease is over");
	ok(nfs4_state_deleg_break(t, &G, 0, false, 215, 15, r, &n) == NFS4_OK && n == 0,
	   "a lease after the recall: revoked, the change goes on");
	ok(held_count == 0 && revoked_count == 1, "counted: 0 held, 1 revoked (4.1's)");
	ok(nfs4_state_delegreturn(t, 0, &da, &G, true) == NFS4ERR_BAD_STATEID,
	   "4.0: the revoked delegation is gone (BAD_STATEID)");
	ok(io(&dc, &G, false, true) == NFS4ERR_DELEG_REVOKED &&
	   nfs4_state_test(t, 52, &dc) == NFS4ERR_DELEG_REVOKED &&
	   nfs4_state_delegreturn(t, 52, &dc, &G, false) == NFS4ERR_DELEG_REVOKED,
	   "4.1: READ, TEST_STATEID and DELEGRETURN with it: DELEG_REVOKED");
	nfs4_state_client_delegs(t, 52, &held, &revoked);
	ok(held == 0 && revoked == 1, "client 52 has 1 revoked (SEQUENCE's flag)");
	ok(nfs4_state_free_stateid(t, 52, &dc) == NFS4_OK && revoked_count == 0 &&
	   nfs4_state_test(t, 52, &dc) == NFS4ERR_BAD_STATEID,
	   "FREE_STATEID: it goes");
	nfs4_state_client_delegs(t, 52, &held, &revoked);
	ok(held == 0 && revoked == 0, "... and client 52 has none");

	/* writers, courtesy, purge */
	ok(open_deleg(53, "o53", 0, true, &H, OPEN4_SHARE_ACCESS_BOTH, 300, &x, &dc, &why) ==
	   NFS4_OK && why == NFS4_DELEG_GRANTED && open_deleg(54, "o54", 0, true, &H,
	   OPEN4_SHARE_ACCESS_READ, 300, &x, &y, &why) == NFS4_OK && why == NFS4_DELEG_CONTENTION,
	   "no delegation while another open has write access");
	ok(nfs4_state_delegreturn(t, 53, &dc, &H, false) == NFS4_OK && held_count == 0,
	   "(the writer's write delegation returned)");
	ok(open_deleg(55, "o55", 0, true, &K, OPEN4_SHARE_ACCESS_READ, 300, &x, &y, &why) ==
	   NFS4_OK && why == NFS4_DELEG_GRANTED && nfs4_state_free_stateid(t, 55, &y) ==
	   NFS4ERR_LOCKS_HELD, "FREE_STATEID of a delegation in force: LOCKS_HELD");
	nfs4_state_set_live(t, live, 0);
	dead_client = 55;
	ok(nfs4_state_deleg_break(t, &K, 0, false, 300, 15, r, &n) == NFS4_OK && n == 0 &&
	   held_count == 0, "the holder's lease ran out: it gives way, no recall, no wait");
	dead_client = 0;
	nfs4_state_set_live(t, NULL, 0);
	ok(open_deleg(56, "o56", 0, true, &K, OPEN4_SHARE_ACCESS_READ, 400, &x, &y, &why) ==
	   NFS4_OK && why == NFS4_DELEG_GRANTED && held_count == 1, "a delegation held");
	nfs4_state_purge_client(t, 56);
	ok(held_count == 0 && nfs4_state_delegs(t) == 0, "purged with its client: none held");

	/* a change in flight (vfs/lease.h): it passed its recall check
	 * before the grant counted, so the grant is taken back */
	{
		const struct nfs4_file_id L = { 2, 500 }, M = { 2, 501 };
		struct vfs_change ch = { 0 };

		vfs_change_mark(&ch, L.dev, L.ino);
		ok(open_deleg(57, "o57", 0, true, &L, OPEN4_SHARE_ACCESS_READ, 500, &x, &y, &why) ==
		   NFS4_OK && why == NFS4_DELEG_CONTENTION && held_count == 0 &&
		   nfs4_state_delegs(t) == 0,
		   "a change of the file in flight: no delegation, nothing left counted");
		ok(open_deleg(58, "o58", 0, true, &M, OPEN4_SHARE_ACCESS_READ, 500, &x, &y, &why) ==
		   NFS4_OK && why == NFS4_DELEG_GRANTED && held_count == 1,
		   "... another file's OPEN meanwhile: a delegation");
		vfs_change_end(&ch);
		ok(open_deleg(57, "o57", 1, true, &L, OPEN4_SHARE_ACCESS_READ, 500, &x, &y, &why) ==
		   NFS4_OK && why == NFS4_DELEG_GRANTED && held_count == 2,
		   "the change made (its mark ended): a delegation");
		ok(nfs4_state_delegreturn(t, 57, &y, &L, false) == NFS4_OK, "(returned)");
		vfs_change_mark_names(&ch);
		ok(open_deleg(57, "o57", 2, true, &L, OPEN4_SHARE_ACCESS_READ, 500, &x, &y, &why) ==
		   NFS4_OK && why == NFS4_DELEG_CONTENTION,
		   "a change by name in flight (REMOVE, RENAME): no delegation of any file");
		vfs_change_end(&ch);
		ok(!vfs_change_busy(L.dev, L.ino) && !vfs_change_busy(M.dev, M.ino),
		   "every mark ended: nothing busy");
		for (n = 0; n < VFS_CHANGE_FILES + 2; n++)
			vfs_change_mark(&ch, 3, 1000 + n);
		ok(ch.n == VFS_CHANGE_FILES && ch.names == 2 && vfs_change_busy(L.dev, L.ino),
		   "marks past the set's room go to the name-space counter");
		vfs_change_end(&ch);
		ok(ch.n == 0 && ch.names == 0 && !vfs_change_busy(3, 1000) &&
		   !vfs_change_busy(L.dev, L.ino), "... and end with the rest");
	}
	for (n = 50; n <= 58; n++)
		nfs4_state_purge_client(t, n);
}

/* Write delegations: granted to an OPEN with write access while no other
 * client has the file open; recalled by another client's read as well as
 * its change; the holder writes with it. */
static void wdelegs(void)
{
	const struct nfs4_file_id W = { 3, 100 }, V = { 3, 200 }, U = { 3, 300 };
	struct nfs4_recall r[NFS4_RECALLS_MAX];
	struct stateid4 o1, o2, d1, d2, x;
	enum nfs4_deleg_why why;
	uint32_t n;

	held_count = revoked_count = write_count = 0;
	nfs4_state_set_deleg_count(t, deleg_count);
	ok(open_deleg(60, "w60", 0, true, &W, OPEN4_SHARE_ACCESS_BOTH, 1000, &o1, &d1, &why) ==
	   NFS4_OK && why == NFS4_DELEG_GRANTED && !same_sid(&o1, &d1) && held_count == 1 &&
	   write_count == 1, "an OPEN for read and write, no other opener: a write delegation "
	   "(counted as one)");
	ok(io(&d1, &W, true, true) == NFS4_OK && io(&d1, &W, false, true) == NFS4_OK,
	   "WRITE and READ with the write delegation stateid: OK");
	ok(nfs4_state_deleg_break(t, &W, 60, true, 1000, 15, r, &n) == NFS4_OK && n == 0 &&
	   nfs4_state_deleg_break(t, &W, 60, false, 1000, 15, r, &n) == NFS4_OK && n == 0,
	   "the holder's own reads and changes: no conflict");
	ok(open_deleg(60, "w60b", 0, true, &W, OPEN4_SHARE_ACCESS_WRITE, 1000, &x, &x, &why) ==
	   NFS4_OK && why == NFS4_DELEG_CONTENTION, "the same client again: it has one already");
	ok(nfs4_state_deleg_break(t, &W, 61, true, 1001, 15, r, &n) == NFS4ERR_DELAY && n == 1 &&
	   r[0].clientid == 60 && same_sid(&r[0].sid, &d1),
	   "another client's read (READ, GETATTR of size, OPEN for reading): DELAY, recalled");
	ok(io(&d1, &W, true, true) == NFS4_OK, "the holder writes back with it while recalled");
	ok(nfs4_state_delegreturn(t, 60, &d1, &W, false) == NFS4_OK && held_count == 0 &&
	   write_count == 0, "DELEGRETURN: none held, no write one");
	ok(nfs4_state_deleg_break(t, &W, 61, true, 1002, 15, r, &n) == NFS4_OK,
	   "then the read goes on");

	ok(open_deleg(62, "w62", 0, true, &V, OPEN4_SHARE_ACCESS_READ, 1000, &o2, &d2, &why) ==
	   NFS4_OK && why == NFS4_DELEG_GRANTED && write_count == 0, "a read delegation on V");
	ok(nfs4_state_deleg_break(t, &V, 63, true, 1000, 15, r, &n) == NFS4_OK && n == 0,
	   "another client's read leaves a read delegation alone");
	ok(open_deleg(63, "w63", 0, true, &V, OPEN4_SHARE_ACCESS_WRITE, 1000, &x, &x, &why) ==
	   NFS4_OK && why == NFS4_DELEG_CONTENTION,
	   "no write delegation while another client opened the file (and holds a read one)");
	ok(nfs4_state_delegreturn(t, 62, &d2, &V, false) == NFS4_OK, "(returned)");

	ok(open_deleg(64, "w64", 0, true, &U, OPEN4_SHARE_ACCESS_READ, 1000, &x, &d2, &why) ==
	   NFS4_OK && nfs4_state_delegreturn(t, 64, &d2, &U, false) == NFS4_OK &&
	   open_deleg(65, "w65", 0, true, &U, OPEN4_SHARE_ACCESS_WRITE, 1000, &x, &x, &why) ==
	   NFS4_OK && why == NFS4_DELEG_CONTENTION,
	   "no write delegation while another client has it open for reading");
	ok(open_deleg(64, "w64", 1, true, &U, OPEN4_SHARE_ACCESS_READ, 1000, &x, &x, &why) ==
	   NFS4_OK && why == NFS4_DELEG_CONTENTION,
	   "nor a read one while another client has it open for writing");

	nfs4_state_purge_client(t, 60);
	nfs4_state_purge_client(t, 61);
	ok(open_deleg(66, "w66", 0, false, &W, OPEN4_SHARE_ACCESS_BOTH, 1100, &o1, &d1, &why) ==
	   NFS4_OK && why == NFS4_DELEG_CONTENTION && nfs4_state_confirm(t, &o1, &o1) == NFS4_OK &&
	   open_deleg(66, "w66", 1, false, &W, OPEN4_SHARE_ACCESS_BOTH, 1100, &x, &d1, &why) ==
	   NFS4_OK && why == NFS4_DELEG_GRANTED,
	   "none to a new 4.0 open-owner; its next OPEN, the file open for write by itself "
	   "already: a write delegation (the table's rule; deleg.c offers none to 4.0)");
	ok(nfs4_state_deleg_break(t, &W, 0, true, 1100, 15, r, &n) == NFS4ERR_DELAY && n == 1,
	   "an NFSv3 READ or GETATTR: recalled");
	ok(nfs4_state_deleg_break(t, &W, 0, true, 1115, 15, r, &n) == NFS4_OK && n == 0 &&
	   held_count == 0 && write_count == 0 &&
	   nfs4_state_delegreturn(t, 0, &d1, &W, true) == NFS4ERR_BAD_STATEID,
	   "not returned: revoked a lease after the recall (4.0: gone)");
	for (n = 60; n <= 66; n++)
		nfs4_state_purge_client(t, n);
	ok(nfs4_state_delegs(t) == 0 && held_count == 0, "none left");
}

/* CLOSE (minor version 1) of open @sid of file @f. */
static enum nfsstat4 close_(const struct stateid4 *sid, const struct nfs4_file_id *f)
{
	static struct nfs4_seq q;
	struct stateid4 out;
	enum nfsstat4 st;

	st = nfs4_state_seqid_begin(t, sid, f, 0, false, false, &q);
	if (st == NFS4_OK)
		st = nfs4_state_close(t, sid, false, &out);
	nfs4_state_seq_end(t, &q, st, NULL, 0);
	return st;
}

static void *unpinned;
static int unpins;

static void unpin(void *obj)
{
	unpinned = obj;
	unpins++;
}

/* A file's pinned object (the server's open node) is let go of with its
 * last stateid, whatever takes that: CLOSE, a purge, a new file with its
 * number. */
static void pins(void)
{
	static const struct nfs4_file_id F5 = { 5, 500 };
	int obj1, obj2;
	struct stateid4 o1, o2;
	bool confirm, rep;

	ok(!nfs4_state_file_pin(t, &F5, &obj1), "no pin of a file without state");
	ok(open_(50, "p50", 0, true, &F5, OPEN4_SHARE_ACCESS_READ, 0, &o1, &confirm, &rep) ==
	   NFS4_OK && !nfs4_state_file_pin(t, &F5, &obj1),
	   "no pin without an unpin function");
	nfs4_state_set_unpin(t, unpin);
	ok(nfs4_state_file_pin(t, &F5, &obj1), "a file with an open keeps an object");
	ok(!nfs4_state_file_pin(t, &F5, &obj2), "one object a file");
	ok(open_(51, "p51", 0, true, &F5, OPEN4_SHARE_ACCESS_READ, 0, &o2, &confirm, &rep) ==
	   NFS4_OK && close_(&o1, &F5) == NFS4_OK && unpins == 0,
	   "a second client's open, the first one's CLOSE: still kept");
	nfs4_state_purge_client(t, 51);
	ok(unpins == 1 && unpinned == &obj1, "the last stateid gone (a purge): let go of, once");
	ok(!nfs4_state_file_pin(t, &F5, &obj2), "and no pin once the file has no open");
	ok(open_(52, "p52", 0, true, &F5, OPEN4_SHARE_ACCESS_READ, 0, &o1, &confirm, &rep) ==
	   NFS4_OK && nfs4_state_file_pin(t, &F5, &obj2), "opened again: pinned again");
	nfs4_state_forget_file(t, &F5);
	ok(unpins == 2 && unpinned == &obj2, "a new file with its number: let go of");
	ok(open_(53, "p53", 0, true, &F5, OPEN4_SHARE_ACCESS_READ, 0, &o1, &confirm, &rep) ==
	   NFS4_OK && nfs4_state_file_pin(t, &F5, &obj1) &&
	   close_(&o1, &F5) == NFS4_OK && unpins == 3 && unpinned == &obj1, "its only open's CLOSE: let go of");
	nfs4_state_purge_client(t, 50);
	nfs4_state_purge_client(t, 52);
	nfs4_state_purge_client(t, 53);
	nfs4_state_set_unpin(t, NULL);
}

/* @t's counts are exactly @o opens, @l locks, @d delegations, @r replays. */
static bool counts_are(uint64_t o, uint64_t l, uint64_t d, uint64_t r)
{
	struct nfs4_state_counts c;

	memset(&c, 0xa5, sizeof(c));
	nfs4_state_get_counts(t, &c);
	if (c.opens == o && c.locks == l && c.delegations == d && c.seqid_replays == r)
		return true;
	printf("# counts: opens %llu, locks %llu, delegations %llu, seqid replays %llu\n",
	       (unsigned long long)c.opens, (unsigned long long)c.locks,
	       (unsigned long long)c.delegations, (unsigned long long)c.seqid_replays);
	return false;
}

/* The counts for statistics, on a table of their own. */
static void counts(void)
{
	const struct nfs4_file_id G = { 3, 100 };
	struct nfs4_state *saved = t;
	struct stateid4 o1, o0, l1, l0, x, dl;
	struct nfs4_lock_denied d;
	enum nfs4_deleg_why why;
	bool confirm, rep;
	char replay[64];

	t = nfs4_state_new(TAG);
	ok(t && counts_are(0, 0, 0, 0), "counts: a new table counts nothing");
	ok(open_(70, "c70", 0, true, &F1, OPEN4_SHARE_ACCESS_BOTH, 0, &o1, &confirm, &rep) ==
	   NFS4_OK && counts_are(1, 0, 0, 0), "counts: a 4.1 OPEN, 1 open");
	ok(open_(70, "c70", 0, true, &F1, OPEN4_SHARE_ACCESS_READ, 0, &o1, &confirm, &rep) ==
	   NFS4_OK && counts_are(1, 0, 0, 0), "counts: its upgrade, still 1");
	ok(open_(71, "c71", 1, false, &F1, OPEN4_SHARE_ACCESS_READ, 0, &o0, &confirm, &rep) ==
	   NFS4_OK && seqop('c', &o0, 2, false, 0, 0, &o0, replay) == NFS4_OK &&
	   counts_are(2, 0, 0, 0), "counts: a 4.0 OPEN and its OPEN_CONFIRM, 2 opens");
	ok(seqop('c', &o0, 2, false, 0, 0, &x, replay) == NFS4_OK && strcmp(replay, "c2") == 0 &&
	   counts_are(2, 0, 0, 1), "counts: the OPEN_CONFIRM again is 1 seqid replay");
	ok(lock_(70, "k70", &o1, 0, false, WRITE_LT, 0, 10, &l1, &d, &rep) == NFS4_OK &&
	   lock_(70, NULL, &l1, 0, false, WRITE_LT, 20, 10, &l1, &d, &rep) == NFS4_OK &&
	   counts_are(2, 1, 0, 1), "counts: two 4.1 LOCKs of one lock-owner, 1 lock stateid");
	ok(lock_(71, "k71", &o0, 3, true, READ_LT, 50, 10, &l0, &d, &rep) == NFS4_OK && !rep &&
	   counts_are(2, 2, 0, 1), "counts: a 4.0 LOCK, 2 lock stateids");
	ok(lock_(71, "k71", &o0, 3, true, READ_LT, 50, 10, &x, &d, &rep) == NFS4_OK && rep &&
	   counts_are(2, 2, 0, 2), "counts: the same LOCK again is the 2nd seqid replay");
	ok(lock_(71, "k72", &o0, 9, true, READ_LT, 70, 10, &x, &d, &rep) == NFS4ERR_BAD_SEQID &&
	   counts_are(2, 2, 0, 2), "counts: a LOCK with a bad seqid, none");
	ok(locku_(&l1, 0, NFS4_UINT64_MAX, &x) == NFS4_OK &&
	   nfs4_state_free_stateid(t, 70, &x) == NFS4_OK && counts_are(2, 1, 0, 2),
	   "counts: the 4.1 lock stateid unlocked and freed, 1 lock");
	ok(seqop('x', &o0, 4, false, 0, 0, &x, replay) == NFS4_OK && counts_are(1, 0, 0, 2),
	   "counts: a 4.0 CLOSE (its stateid kept for a replay is no open), its lock with it");
	ok(seqop('x', &o0, 4, false, 0, 0, &x, replay) == NFS4_OK && strcmp(replay, "x4") == 0 &&
	   counts_are(1, 0, 0, 3), "counts: the CLOSE again is the 3rd seqid replay");
	ok(seqop('x', &o1, 0, true, 0, 0, &x, replay) == NFS4_OK && counts_are(0, 0, 0, 3),
	   "counts: a 4.1 CLOSE, no open");
	ok(open_deleg(72, "c72", 0, true, &G, OPEN4_SHARE_ACCESS_READ, 100, &x, &dl, &why) ==
	   NFS4_OK && why == NFS4_DELEG_GRANTED && counts_are(1, 0, 1, 3),
	   "counts: an OPEN with a delegation, 1 open, 1 delegation");
	ok(nfs4_state_delegreturn(t, 72, &dl, &G, false) == NFS4_OK && counts_are(1, 0, 0, 3),
	   "counts: DELEGRETURN, none");
	ok(open_deleg(73, "c73", 0, true, &G, OPEN4_SHARE_ACCESS_READ,
		      100 + NFS4_DELEG_RECALL_HOLD, &x, &dl, &why) == NFS4_OK &&
	   why == NFS4_DELEG_GRANTED && counts_are(2, 0, 1, 3),
	   "counts: another client's open and delegation");
	ok(open_(73, "c73b", 0, true, &F1, OPEN4_SHARE_ACCESS_BOTH, 0, &o1, &confirm, &rep) ==
	   NFS4_OK && lock_(73, "k73", &o1, 0, false, WRITE_LT, 0, 10, &l1, &d, &rep) == NFS4_OK &&
	   counts_are(3, 1, 1, 3), "counts: its open and lock of another file");
	nfs4_state_purge_client(t, 72);
	nfs4_state_purge_client(t, 73);
	nfs4_state_purge_client(t, 70);
	nfs4_state_purge_client(t, 71);
	ok(counts_are(0, 0, 0, 3), "counts: every client purged, only the replays stay");
	nfs4_state_free(t);
	t = saved;
}

int main(void)
{
	struct stateid4 a, a2, b, x, anon = { 0 }, bypass, stale, special;
	enum nfsstat4 st;
	bool confirm, rep;
	char replay[64];
	uint32_t i, n;

	t = nfs4_state_new(TAG);
	ok(t != NULL, "a table");
	memset(&bypass, 0xff, sizeof(bypass));

	/* ---- an owner's first OPEN, OPEN_CONFIRM, replays ---- */
	st = open_(1, "ownerA", 5, false, &F1, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE,
		   &a, &confirm, &rep);
	ok(st == NFS4_OK && !rep && confirm && a.seqid == 1,
	   "first OPEN of a new owner (any seqid): stateid seqid 1, OPEN_CONFIRM asked");
	ok(io(&a, &F1, false, false) == NFS4ERR_BAD_STATEID,
	   "READ with the stateid of an owner not confirmed: BAD_STATEID");
	st = seqop('c', &a, 6, false, 0, 0, &a2, replay);
	ok(st == NFS4_OK && a2.seqid == 2 && memcmp(a2.other, a.other, 12) == 0,
	   "OPEN_CONFIRM with seqid+1: the stateid's seqid goes to 2");
	st = seqop('c', &a, 6, false, 0, 0, &x, replay);
	ok(st == NFS4_OK && strcmp(replay, "c6") == 0,
	   "OPEN_CONFIRM again with the same seqid: the kept result, byte for byte");
	st = seqop('c', &a2, 8, false, 0, 0, &x, replay);
	ok(st == NFS4ERR_BAD_SEQID, "a seqid two ahead: BAD_SEQID");
	st = seqop('c', &a2, 7, false, 0, 0, &x, replay);
	ok(st == NFS4ERR_BAD_STATEID, "OPEN_CONFIRM of a confirmed owner: BAD_STATEID");
	st = seqop('c', &a2, 8, false, 0, 0, &x, replay);
	ok(st == NFS4ERR_BAD_SEQID, "... which did not count its seqid (8 is still ahead)");
	ok(io(&a2, &F1, false, false) == NFS4_OK, "READ with the confirmed stateid: OK");
	ok(io(&a, &F1, false, false) == NFS4ERR_OLD_STATEID, "READ with its seqid 1: OLD_STATEID");
	x = a2;
	x.seqid = 9;
	ok(io(&x, &F1, false, false) == NFS4ERR_BAD_STATEID,
	   "READ with a seqid never given: BAD_STATEID");
	ok(io(&a2, &F1, true, false) == NFS4ERR_OPENMODE,
	   "WRITE through a read-only open: OPENMODE");
	ok(io(&a2, &F2, false, false) == NFS4ERR_BAD_STATEID,
	   "READ of another file with it: BAD_STATEID");
	stale = a2;
	stale.other[0] ^= 0xff;
	ok(io(&stale, &F1, false, false) == NFS4ERR_STALE_STATEID,
	   "a stateid of another server instance: STALE_STATEID");
	x = a2;
	x.other[11] ^= 0x40;
	ok(io(&x, &F1, false, false) == NFS4ERR_BAD_STATEID,
	   "this instance's stateid never given: BAD_STATEID");
	memset(&special, 0, sizeof(special));
	special.seqid = 1;
	ok(io(&special, &F1, false, false) == NFS4ERR_BAD_STATEID,
	   "other all zeros with seqid 1: BAD_STATEID (RFC 7530 9.1.4.3)");

	ok(nfs4_state_known(t, &a2) == NFS4_OK && nfs4_state_known(t, &stale) ==
	   NFS4ERR_STALE_STATEID && nfs4_state_known(t, &anon) == NFS4ERR_BAD_STATEID,
	   "known: a stateid given, one of another instance, the anonymous one");

	/* ---- share reservations ---- */
	st = open_(1, "ownerB", 1, false, &F1, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_WRITE,
		   &b, &confirm, &rep);
	ok(st == NFS4_OK, "another owner: read, deny write, beside a read open: OK");
	st = seqop('c', &b, 2, false, 0, 0, &b, replay);
	ok(st == NFS4_OK, "... confirmed");
	st = open_(1, "ownerA", 7, false, &F1, OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_NONE,
		   &x, &confirm, &rep);
	ok(st == NFS4ERR_SHARE_DENIED, "the first owner's upgrade to write: SHARE_DENIED");
	ok(io(&a2, &F1, false, false) == NFS4_OK, "... its read open unchanged");
	ok(io(&anon, &F1, true, false) == NFS4ERR_LOCKED,
	   "WRITE with the anonymous stateid while an open denies writes: LOCKED");
	ok(io(&anon, &F1, false, false) == NFS4_OK, "READ with the anonymous stateid: OK");
	ok(io(&bypass, &F1, false, false) == NFS4_OK, "READ with the bypass stateid: OK");
	ok(io(&anon, &F2, true, false) == NFS4_OK,
	   "WRITE with the anonymous stateid to a file without opens: OK");
	st = open_(2, "ownerC", 1, false, &F1, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_READ,
		   &x, &confirm, &rep);
	ok(st == NFS4ERR_SHARE_DENIED, "another client denying reads of a file being read: "
	   "SHARE_DENIED");
	st = open_(2, "ownerC", 2, false, &F1, OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_NONE,
		   &x, &confirm, &rep);
	ok(st == NFS4ERR_SHARE_DENIED, "... writing a file whose opener denies writes: "
	   "SHARE_DENIED");

	/* ---- upgrade, downgrade ---- */
	st = seqop('x', &b, 3, false, 0, 0, &x, replay);
	ok(st == NFS4_OK && x.seqid == b.seqid + 1, "CLOSE: the stateid's seqid goes up");
	ok(io(&b, &F1, false, false) == NFS4ERR_BAD_STATEID, "the closed stateid: BAD_STATEID");
	st = seqop('x', &b, 3, false, 0, 0, &x, replay);
	ok(st == NFS4_OK && strcmp(replay, "x3") == 0, "CLOSE replayed: the kept result");
	st = seqop('c', &b, 4, false, 0, 0, &x, replay);
	ok(st == NFS4ERR_BAD_STATEID, "the closed stateid for anything but the replay: BAD_STATEID");
	st = open_(1, "ownerA", 8, false, &F1, OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_NONE,
		   &x, &confirm, &rep);
	ok(st == NFS4_OK && !confirm && memcmp(x.other, a.other, 12) == 0 && x.seqid == 3,
	   "the upgrade once the deny is gone: the same stateid, seqid 3");
	ok(io(&x, &F1, true, false) == NFS4_OK, "WRITE through the upgraded open: OK");
	st = seqop('d', &x, 9, false, OPEN4_SHARE_ACCESS_BOTH, 0, &a2, replay);
	ok(st == NFS4ERR_INVAL, "OPEN_DOWNGRADE to both (never asked as such): INVAL");
	st = seqop('d', &x, 10, false, OPEN4_SHARE_ACCESS_READ, 1, &a2, replay);
	ok(st == NFS4ERR_INVAL, "OPEN_DOWNGRADE to a deny never asked: INVAL");
	st = seqop('d', &x, 11, false, OPEN4_SHARE_ACCESS_READ, 0, &a2, replay);
	ok(st == NFS4_OK && a2.seqid == 4, "OPEN_DOWNGRADE to read: OK, seqid 4");
	ok(io(&a2, &F1, true, false) == NFS4ERR_OPENMODE, "... WRITE then: OPENMODE");

	/* ---- seqid exemptions ---- */
	st = seqop('x', &stale, 12, false, 0, 0, &x, replay);
	ok(st == NFS4ERR_STALE_STATEID, "CLOSE of a stale stateid: STALE_STATEID");
	st = seqop('c', &a2, 12, false, 0, 0, &x, replay);
	ok(st == NFS4ERR_BAD_STATEID && replay[0] == 0,
	   "the same seqid again is new, not a replay (BAD_STATEID does not count it)");

	/* ---- an unconfirmed owner is replaced by its next OPEN ---- */
	st = open_(1, "ownerD", 1, false, &F2, OPEN4_SHARE_ACCESS_READ, 0, &x, &confirm, &rep);
	ok(st == NFS4_OK && confirm, "a new owner's OPEN, not confirmed");
	st = open_(1, "ownerD", 40, false, &F2, OPEN4_SHARE_ACCESS_READ, 0, &b, &confirm, &rep);
	ok(st == NFS4_OK && confirm && memcmp(b.other, x.other, 12) != 0,
	   "its next OPEN (any seqid) starts it again: a new stateid");
	st = seqop('c', &x, 41, false, 0, 0, &a2, replay);
	ok(st == NFS4ERR_BAD_STATEID, "the first stateid is gone: BAD_STATEID");

	/* ---- minor version 1 ---- */
	st = open_(3, "owner41", 0, true, &F2, OPEN4_SHARE_ACCESS_BOTH, 0, &x, &confirm, &rep);
	ok(st == NFS4_OK && !confirm, "minor version 1: OPEN, no confirmation");
	ok(io(&x, &F2, true, true) == NFS4_OK, "WRITE with it at once");
	a2 = x;
	a2.seqid = 0;
	ok(io(&a2, &F2, true, true) == NFS4_OK, "seqid 0: the current one (RFC 8881 8.2.2)");
	st = open_(3, "owner41", 0, true, &F2, OPEN4_SHARE_ACCESS_BOTH, 0, &b, &confirm, &rep);
	ok(st == NFS4_OK && !rep && b.seqid == 2, "the same OPEN again: no replay, seqid 2");
	ok(io(&x, &F2, true, true) == NFS4ERR_OLD_STATEID, "seqid 1 then: OLD_STATEID");
	ok(nfs4_state_client_count(t, 3) == 1, "client 3 has one stateid");
	ok(nfs4_state_test(t, 3, &b) == NFS4_OK && nfs4_state_test(t, 4, &b) ==
	   NFS4ERR_BAD_STATEID && nfs4_state_test(t, 3, &x) == NFS4ERR_OLD_STATEID,
	   "TEST_STATEID: its own current one OK, another client's BAD, an old one OLD");
	ok(nfs4_state_free_stateid(t, 3, &b) == NFS4ERR_LOCKS_HELD,
	   "FREE_STATEID of an open stateid: LOCKS_HELD");

	/* ---- busy owner ---- */
	{
		struct nfs4_seq q1, q2;

		st = nfs4_state_open_begin(t, 1, (const uint8_t *)"ownerA", 6, 12, true, &q1);
		ok(st == NFS4_OK, "an OPEN of owner A running ...");
		ok(nfs4_state_open_begin(t, 1, (const uint8_t *)"ownerA", 6, 12, true, &q2) ==
		   NFS4ERR_DELAY, "... a second one meanwhile (minor version 0): DELAY");
		nfs4_state_seq_end(t, &q1, NFS4ERR_SHARE_DENIED, NULL, 0);
	}

	/* ---- purge ---- */
	nfs4_state_purge_client(t, 1);
	ok(nfs4_state_client_count(t, 1) == 0 && io(&a2, &F1, false, false) ==
	   NFS4ERR_BAD_STATEID, "purging client 1: its stateids are gone");
	ok(io(&anon, &F1, true, false) == NFS4_OK, "... and so are its denies");

	locks();
	delegs();
	wdelegs();
	locks40();
	courtesy();

	/* ---- a new file with a reused inode number ---- */
	{
		const struct nfs4_file_id F4 = { 1, 400 };
		struct stateid4 o4, l4, x4;
		struct nfs4_lock_denied d4;

		ok(open_(40, "o40x", 0, true, &F4, OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_WRITE,
			 &o4, &confirm, &rep) == NFS4_OK && lock_f4(&o4, &l4, &d4),
		   "an open denying writes and a lock on a file");
		nfs4_state_forget_file(t, &F4);
		ok(io(&o4, &F4, false, true) == NFS4ERR_BAD_STATEID &&
		   io(&l4, &F4, false, true) == NFS4ERR_BAD_STATEID,
		   "a file made anew with its inode number: its open and lock stateids are gone");
		ok(open_(41, "o41x", 0, true, &F4, OPEN4_SHARE_ACCESS_WRITE, 0, &x4, &confirm, &rep) ==
		   NFS4_OK, "... and its deny");
		nfs4_state_purge_client(t, 40);
		nfs4_state_purge_client(t, 41);
	}

	pins();
	counts();

	/* ---- the per-client bound ---- */
	for (i = 0, n = 0; i < NFS4_STATE_CLIENT_MAX + 10; i++) {
		struct nfs4_file_id f = { 9, 1000 + i };

		st = open_(4, "bulk", 0, true, &f, OPEN4_SHARE_ACCESS_READ, 0, &x, &confirm, &rep);
		if (st != NFS4_OK)
			break;
		n++;
	}
	ok(n == NFS4_STATE_CLIENT_MAX && st == NFS4ERR_RESOURCE,
	   "a client's opens stop at its bound (%u) with RESOURCE", n);
	nfs4_state_purge_client(t, 4);
	ok(nfs4_state_client_count(t, 4) == 0, "and are all freed with it");
	fslocks();
	nfs4_state_free(t);
	ok(fs_live == 0, "fs: the table's end drops the holder left");
	return tap_done();
}
