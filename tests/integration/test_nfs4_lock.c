/* SPDX-License-Identifier: MIT */
/*
 * NFSv4.0 byte-range locks and leases on the wire (RFC 7530 sections
 * 9.1.7, 9.4, 9.5, 16.10-16.12, 16.37): LOCK (new and existing
 * lock-owners), LOCKT, LOCKU and RELEASE_LOCKOWNER between two clients,
 * the holder a denial names, ranges split and merged, the limits of a
 * range, replays and seqids, lock stateids for I/O, CLOSE releasing an
 * open's locks; then the lease of a client that stops renewing, against
 * a server run with --lease-time 10 (src/nfs4/lock_ops.c, state_lock.c,
 * clients.c). Where RFC 7530 leaves a choice the test expects what knfsd
 * does.
 *
 * The test keeps every open- and lock-owner's next seqid itself, by RFC
 * 7530 9.1.7 (the statuses that do not count it), so that a server
 * counting differently fails a later call visibly.
 *
 * Run by run-nfs4-lock.sh:   test_nfs4_lock PORT BASE STATE_DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nfs4_state_raw.h"
#include "tap.h"

#define U64MAX NFS4_UINT64_MAX

static const char *base;
static int fd;
static struct v4_fh fh_rw;
static clientid4 cid_a, cid_b;

static char *path_of(const char *rel)
{
	return v4_path(base, rel);
}

/* ---- owners and their seqids ----------------------------------------- */

/* @o1 and then @o2 OPEN @name (read and write, deny none): the first
 * failure's status. */
static long open_both(struct v4_owner *o1, struct v4_opened *r1, struct v4_owner *o2,
		      struct v4_opened *r2, const char *name)
{
	long n = v4_open_name(fd, o1, &fh_rw, name, OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE,
			      r1);

	return n == NFS4_OK ? v4_open_name(fd, o2, &fh_rw, name, OPEN4_SHARE_ACCESS_BOTH,
					   OPEN4_SHARE_DENY_NONE, r2) : n;
}

/* ---- LOCK, LOCKT, LOCKU ---------------------------------------------- */

static const char *state_dir;

/* Does STATE_DIR/nfs4-clients, replayed ("+HEX" a client recorded,
 * "-HEX" its record gone), list the client with the id string @id? */
static bool recorded(const char *id)
{
	char hex[600], line[1200], path[1024];
	size_t i, n = 0;
	bool in = false;
	FILE *f;

	for (i = 0; id[i] && n < sizeof(hex) - 3; i++)
		n += (size_t)snprintf(hex + n, sizeof(hex) - n, "%02x", (unsigned char)id[i]);
	snprintf(path, sizeof(path), "%s/nfs4-clients", state_dir);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line + 1, hex, n) == 0 && line[1 + n] == '\n')
			in = line[0] == '+';
	fclose(f);
	return in;
}

/* Is @r a denial naming exactly the holder (@cid, @owner) of
 * [@off, @off + @len) as @type? */
static bool denied_by(const struct v4_lk *r, uint64_t off, uint64_t len, enum nfs_lock_type4 type,
		      clientid4 cid, const char *owner)
{
	size_t n = strlen(owner);

	if (r->st != NFS4ERR_DENIED) {
		printf("#   status %ld, not DENIED\n", r->st);
		return false;
	}
	if (r->den.offset == off && r->den.length == len && r->den.locktype == type &&
	    r->den.owner.clientid == cid && r->den.owner.owner.len == n &&
	    memcmp(r->downer, owner, n) == 0)
		return true;
	printf("#   denied: offset %llu length %llu type %u clientid %llx owner '%.*s'\n",
	       (unsigned long long)r->den.offset, (unsigned long long)r->den.length,
	       r->den.locktype, (unsigned long long)r->den.owner.clientid,
	       (int)(r->den.owner.owner.len < 200 ? r->den.owner.owner.len : 200), r->downer);
	printf("#   expected: offset %llu length %llu type %u clientid %llx owner '%s'\n",
	       (unsigned long long)off, (unsigned long long)len, type,
	       (unsigned long long)cid, owner);
	return false;
}

/* ---- I/O ------------------------------------------------------------- */

static long do_write(const struct v4_fh *fh, const struct stateid4 *sid, uint64_t off,
		     const char *data)
{
	struct nfs_argop4 ops[2];
	struct v4_res s;
	long st;

	v4op_putfh(&ops[0], fh);
	v4op_write(&ops[1], sid, off, FILE_SYNC4, data, (uint32_t)strlen(data));
	v4_res_init(&s);
	st = v4_call_as(fd, 0, ops, 2, &s) >= 0 && s.nops == 2 ? v4_op_status(&s, 1) : -1;
	if (st == NFS4_OK && s.ops[1].u.opwrite.u.resok4.count != strlen(data))
		st = -2;
	v4_res_free(&s);
	return st;
}

/* ---- the checks ------------------------------------------------------ */

static struct v4_owner oa, ob;
static struct v4_opened fa, fb;            /* "f", opened BOTH by each client */

static void test_conflicts(void)
{
	struct v4_lowner la = { .name = "lock-a", .seqid = 10 },
			 lb1 = { .name = "lock-b1", .seqid = 20 },
		      lb2 = { .name = "lock-b2", .seqid = 30 };
	struct v4_lk r, t;
	uint32_t seq;
	long n;

	ok(v4_client(fd, 0, "nfsx-lock-client-a", true, &cid_a) == NFS4_OK &&
	   v4_client(fd, 0, "nfsx-lock-client-b", true, &cid_b) == NFS4_OK && cid_a != cid_b,
	   "two clients confirmed (two SETCLIENTIDs)");
	oa = (struct v4_owner){ cid_a, "open-a", 1 };
	ob = (struct v4_owner){ cid_b, "open-b", 1 };
	la.cid = cid_a;
	lb1.cid = lb2.cid = cid_b;
	n = v4_open_name(fd, &oa, &fh_rw, "f", OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, &fa);
	ok(n == NFS4_OK, "client A opens 'f' for BOTH (%ld)", n);
	n = v4_open_name(fd, &ob, &fh_rw, "f", OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, &fb);
	ok(n == NFS4_OK, "client B opens 'f' for BOTH (%ld)", n);

	n = v4_lock_new(fd, &oa, &fa, &la, WRITE_LT, 0, 100, &r);
	ok(n == NFS4_OK && r.sid.seqid == 1 && !v4_same_other(&r.sid, &fa.sid),
	   "LOCK WRITE [0,100) by a new lock-owner (open_to_lock_owner4): OK, a new lock "
	   "stateid with seqid 1 (%ld, %u)", n, r.sid.seqid);

	n = v4_lock_new(fd, &ob, &fb, &lb1, WRITE_LT, 50, 10, &r);
	ok(denied_by(&r, 0, 100, WRITE_LT, cid_a, "lock-a"),
	   "client B's LOCK WRITE [50,60): DENIED, naming A's lock exactly: offset 0, length "
	   "100, WRITE_LT, A's clientid and owner bytes");
	n = v4_lockt(fd, &fb.fh, cid_b, "lock-b1", WRITE_LT, 99, 1, &t);
	ok(denied_by(&t, 0, 100, WRITE_LT, cid_a, "lock-a"),
	   "LOCKT WRITE [99,100) by B: DENIED, naming the same holder");
	n = v4_lockt(fd, &fb.fh, cid_b, "lock-b1", READ_LT, 0, 1, &t);
	ok(denied_by(&t, 0, 100, WRITE_LT, cid_a, "lock-a"),
	   "LOCKT READ [0,1) by B: DENIED (a write lock holds it)");
	n = v4_lockt(fd, &fb.fh, cid_b, "lock-b1", WRITE_LT, 100, U64MAX, &t);
	ok(n == NFS4_OK, "LOCKT WRITE [100,end) by B, just past A's lock: OK (%ld)", n);
	n = v4_lockt(fd, &fb.fh, cid_b, "nobody-yet", WRITE_LT, 10, 5, &t);
	ok(denied_by(&t, 0, 100, WRITE_LT, cid_a, "lock-a"),
	   "LOCKT by a lock-owner the server never saw: DENIED the same");
	n = v4_lockt(fd, &fa.fh, cid_a, "lock-a", WRITE_LT, 0, 100, &t);
	ok(n == NFS4_OK, "LOCKT by the holder itself: OK, its own lock is no conflict (%ld)", n);

	/*
	 * The new lock-owner that was denied exists now with its seqid
	 * counted: knfsd keeps it and bumps its seqid (nfsd4_lock: "Bump
	 * seqid manually if the 4.0 replay owner is openowner"), and
	 * lookup_or_create_lock_state() then wants the same owner sent as
	 * new again with that next seqid, which is what the Linux client
	 * sends (its lock seqid counted the DENIED).
	 */
	n = v4_lock_new(fd, &ob, &fb, &lb1, READ_LT, 200, 10, &r);
	ok(n == NFS4_OK,
	   "the denied lock-owner sent as new again with its next lock_seqid (RFC 7530 "
	   "9.1.7, knfsd): OK (%ld)", n);
	n = v4_lock_new(fd, &ob, &fb, &lb2, READ_LT, 300, 10, &r);
	ok(n == NFS4_OK, "a second lock-owner of B takes READ [300,310): OK (%ld)", n);

	n = v4_unlock(fd, &la, &fa.fh, WRITE_LT, 0, 100, &r);
	ok(n == NFS4_OK && r.sid.seqid == 2 && v4_same_other(&r.sid, &la.sid),
	   "LOCKU [0,100) by A: OK, the same lock stateid with seqid 2 (%ld, %u)", n,
	   r.sid.seqid);
	n = v4_lock_ex(fd, &lb2, &fb.fh, WRITE_LT, 0, 100, &r);
	ok(n == NFS4_OK && v4_same_other(&r.sid, &lb2.sid) && r.sid.seqid == 2,
	   "then B's LOCK WRITE [0,100) (existing lock-owner): OK, its stateid's seqid 2 "
	   "(%ld, %u)", n, r.sid.seqid);
	n = v4_lockt(fd, &fa.fh, cid_a, "lock-a", READ_LT, 0, U64MAX, &t);
	ok(denied_by(&t, 0, 100, WRITE_LT, cid_b, "lock-b2"),
	   "LOCKT READ [0,end) by A: DENIED, naming B's lock-b2 [0,100) (the first in range)");
	n = v4_unlock(fd, &lb2, &fb.fh, WRITE_LT, 0, 100, &r);
	ok(n == NFS4_OK, "LOCKU by B: OK (%ld)", n);

	/* read locks are shared; a write lock meets them */
	n = v4_lock_ex(fd, &la, &fa.fh, READ_LT, 0, 50, &r);
	ok(n == NFS4_OK, "A: LOCK READ [0,50): OK (%ld)", n);
	n = v4_lock_ex(fd, &lb2, &fb.fh, READ_LT, 0, 100, &r);
	ok(n == NFS4_OK, "B: LOCK READ [0,100) over A's read lock: OK, read locks share (%ld)",
	   n);
	n = v4_lockt(fd, &fa.fh, cid_a, "lock-a", WRITE_LT, 60, 1, &t);
	ok(denied_by(&t, 0, 100, READ_LT, cid_b, "lock-b2"),
	   "LOCKT WRITE [60,61) by A: DENIED by B's READ_LT [0,100)");
	n = v4_lockt(fd, &fa.fh, cid_a, "lock-a", READ_LT, 60, 1, &t);
	ok(n == NFS4_OK, "LOCKT READ [60,61) by A: OK (%ld)", n);

	/* a DENIED counts the lock-owner's seqid (RFC 7530 9.1.7) */
	seq = la.seqid;
	n = v4_lock_ex(fd, &la, &fa.fh, WRITE_LT, 0, 10, &r);
	ok(denied_by(&r, 0, 100, READ_LT, cid_b, "lock-b2"),
	   "A's LOCK WRITE [0,10) (an upgrade of its read lock): DENIED by B's read lock");
	n = v4_lock_ex(fd, &la, &fa.fh, READ_LT, 400, 1, &r);
	ok(n == NFS4_OK && la.seqid == seq + 2,
	   "A's next LOCK with the seqid after the DENIED one's: OK, DENIED was counted (%ld)",
	   n);
	n = v4_unlock(fd, &lb2, &fb.fh, READ_LT, 0, 100, &r);
	ok(n == NFS4_OK, "B unlocks: OK (%ld)", n);
	n = v4_lock_ex(fd, &la, &fa.fh, WRITE_LT, 0, 50, &r);
	ok(n == NFS4_OK, "A's upgrade to WRITE [0,50) now: OK (%ld)", n);
	n = v4_lockt(fd, &fb.fh, cid_b, "lock-b2", READ_LT, 49, 2, &t);
	ok(denied_by(&t, 0, 50, WRITE_LT, cid_a, "lock-a"),
	   "LOCKT by B: DENIED by A's WRITE [0,50), the upgraded range");
	n = v4_unlock(fd, &la, &fa.fh, WRITE_LT, 0, U64MAX, &r);
	ok(n == NFS4_OK, "A: LOCKU [0,end): OK (%ld)", n);
	if (lb1.have)
		v4_unlock(fd, &lb1, &fb.fh, READ_LT, 0, U64MAX, &r);
	n = v4_lockt(fd, &fb.fh, cid_b, "lock-b2", WRITE_LT, 0, U64MAX, &t);
	ok(n == NFS4_OK, "then nothing of A's is left: LOCKT WRITE [0,end) by B OK (%ld)", n);

	/* the blocking types are the plain ones in 4.0 (no callback) */
	n = v4_lock_ex(fd, &la, &fa.fh, WRITE_LT, 0, 10, &r);
	n = n == NFS4_OK ? v4_lock_ex(fd, &lb2, &fb.fh, WRITEW_LT, 5, 1, &r) : n;
	ok(denied_by(&r, 0, 10, WRITE_LT, cid_a, "lock-a"),
	   "B's LOCK WRITEW_LT over A's lock: DENIED at once, the holder's type WRITE_LT");
	n = v4_lockt(fd, &fb.fh, cid_b, "lock-b2", READW_LT, 9, 1, &t);
	ok(denied_by(&t, 0, 10, WRITE_LT, cid_a, "lock-a"), "LOCKT READW_LT: DENIED likewise");
	n = v4_unlock(fd, &la, &fa.fh, WRITE_LT, 0, 10, &r);
	n = n == NFS4_OK ? v4_lock_ex(fd, &lb2, &fb.fh, READW_LT, 5, 1, &r) : n;
	ok(n == NFS4_OK, "after A's LOCKU, B's LOCK READW_LT: OK (%ld)", n);
	n = v4_unlock(fd, &lb2, &fb.fh, READ_LT, 0, U64MAX, &r);
	ok(n == NFS4_OK, "LOCKU of [0,end), most of it not locked: OK (%ld)", n);
	n = v4_unlock(fd, &lb2, &fb.fh, WRITE_LT, 1000, 10, &r);
	ok(n == NFS4_OK, "LOCKU of a range the owner does not hold: OK, as POSIX (%ld)", n);

	/* what LOCKT refuses before it looks for a conflict */
	{
		struct nfs_argop4 a;
		struct v4_res s;

		v4op_lockt(&a, WRITE_LT, 0, 1, cid_a, "lock-a");
		v4_res_init(&s);
		n = v4_lock_call(fd, &fh_rw, &a, &t, &s);
		v4_res_free(&s);
		ok(n == NFS4ERR_ISDIR, "LOCKT on a directory: ISDIR (%ld)", n);
	}
	n = v4_lockt(fd, &fa.fh, 0x1234567800000002ull, "lock-a", WRITE_LT, 0, 1, &t);
	ok(n == NFS4ERR_STALE_CLIENTID, "LOCKT with a clientid of no client: STALE_CLIENTID (%ld)",
	   n);

	/* a write lock needs an open for writing (knfsd's nfs4_check_openmode) */
	{
		struct v4_owner orr = { cid_a, "open-a-ro", 1 };
		struct v4_lowner lw = { .cid = cid_a, .name = "lock-a-ro-w", .seqid = 1 },
			      lr = { .cid = cid_a, .name = "lock-a-ro-r", .seqid = 1 };
		struct v4_opened ro;

		n = v4_open_name(fd, &orr, &fh_rw, "f", OPEN4_SHARE_ACCESS_READ,
				 OPEN4_SHARE_DENY_NONE, &ro);
		ok(n == NFS4_OK, "A opens 'f' for READ only with another owner (%ld)", n);
		n = v4_lock_new(fd, &orr, &ro, &lw, WRITE_LT, 0, 1, &r);
		ok(n == NFS4ERR_OPENMODE, "LOCK WRITE_LT from an open for READ only: OPENMODE "
		   "(RFC 7530 13.1, NFS4ERR_OPENMODE; knfsd) (%ld)", n);
		n = v4_lock_new(fd, &orr, &ro, &lr, READ_LT, 0, 1, &r);
		ok(n == NFS4_OK, "LOCK READ_LT from it: OK, the open-owner's seqid counted the "
		   "OPENMODE (%ld)", n);
		v4_unlock(fd, &lr, &ro.fh, READ_LT, 0, 1, &r);
		v4_close(fd, &orr, &ro);
	}

	/* the lock stateid for I/O */
	n = v4_lock_ex(fd, &la, &fa.fh, WRITE_LT, 0, 10, &r);
	n = n == NFS4_OK ? do_write(&fa.fh, &la.sid, 0, "LOCKED") : n;
	ok(n == NFS4_OK, "WRITE with the lock stateid: OK (%ld)", n);
	{
		char buf[64];

		n = v4_read_str(fd, &fa.fh, &la.sid, 0, 6, buf, sizeof(buf));
		ok(n == NFS4_OK && strcmp(buf, "LOCKED") == 0,
		   "READ with the lock stateid: OK, what was written (%ld, '%s')", n, buf);
	}
	v4_unlock(fd, &la, &fa.fh, WRITE_LT, 0, 10, &r);
}

/* The range arithmetic: a split, to the end, bad lengths. */
static void test_ranges(void)
{
	struct v4_owner o1 = { 0, "open-g-a", 1 }, o2 = { 0, "open-g-b", 1 };
	struct v4_lowner la = { .name = "lock-g-a", .seqid = 1 },
			 lb = { .name = "lock-g-b", .seqid = 1 };
	struct v4_opened ga, gb;
	struct v4_lk r, t;
	uint32_t seq;
	long n;

	o1.cid = la.cid = cid_a;
	o2.cid = lb.cid = cid_b;
	n = open_both(&o1, &ga, &o2, &gb, "g");
	ok(n == NFS4_OK, "both clients open 'g' (%ld)", n);
	n = v4_lock_new(fd, &o1, &ga, &la, WRITE_LT, 0, 100, &r);
	ok(n == NFS4_OK, "A: LOCK WRITE [0,100): OK (%ld)", n);
	n = v4_unlock(fd, &la, &ga.fh, WRITE_LT, 40, 20, &r);
	ok(n == NFS4_OK, "A: LOCKU [40,60), the middle: OK (%ld)", n);
	n = v4_lock_new(fd, &o2, &gb, &lb, WRITE_LT, 40, 20, &r);
	ok(n == NFS4_OK, "B: LOCK WRITE [40,60), the hole: OK (%ld)", n);
	n = v4_lock_ex(fd, &lb, &gb.fh, WRITE_LT, 30, 10, &r);
	ok(denied_by(&r, 0, 40, WRITE_LT, cid_a, "lock-g-a"),
	   "B: LOCK WRITE [30,40): DENIED by A's left piece, offset 0 length 40");
	n = v4_lockt(fd, &gb.fh, cid_b, "lock-g-b", READ_LT, 55, 10, &t);
	ok(denied_by(&t, 60, 40, WRITE_LT, cid_a, "lock-g-a"),
	   "B: LOCKT READ [55,65): DENIED by A's right piece, offset 60 length 40");
	n = v4_lockt(fd, &ga.fh, cid_a, "lock-g-a", WRITE_LT, 45, 1, &t);
	ok(denied_by(&t, 40, 20, WRITE_LT, cid_b, "lock-g-b"),
	   "A: LOCKT [45,46): DENIED by B's [40,60)");
	n = v4_unlock(fd, &lb, &gb.fh, WRITE_LT, 40, 20, &r);
	ok(n == NFS4_OK, "B: LOCKU [40,60): OK (%ld)", n);
	n = v4_lock_ex(fd, &la, &ga.fh, WRITE_LT, 40, 20, &r);
	n = n == NFS4_OK ? v4_lockt(fd, &gb.fh, cid_b, "lock-g-b", WRITE_LT, 99, 1, &t) : n;
	ok(denied_by(&t, 0, 100, WRITE_LT, cid_a, "lock-g-a"),
	   "A locks the hole again: its three pieces merge, a denial names [0,100)");
	n = v4_unlock(fd, &la, &ga.fh, WRITE_LT, 0, 100, &r);
	ok(n == NFS4_OK, "A: LOCKU [0,100): OK (%ld)", n);

	/* length all ones: to the end of the file, whatever its size */
	n = v4_lock_ex(fd, &la, &ga.fh, WRITE_LT, 1000, U64MAX, &r);
	ok(n == NFS4_OK, "A: LOCK WRITE [1000, length NFS4_UINT64_MAX): OK (%ld)", n);
	n = v4_lockt(fd, &gb.fh, cid_b, "lock-g-b", READ_LT, 1ull << 62, 1, &t);
	ok(denied_by(&t, 1000, U64MAX, WRITE_LT, cid_a, "lock-g-a"),
	   "B: LOCKT at 2^62: DENIED, offset 1000 length NFS4_UINT64_MAX");
	n = v4_lockt(fd, &gb.fh, cid_b, "lock-g-b", WRITE_LT, U64MAX, 1, &t);
	ok(denied_by(&t, 1000, U64MAX, WRITE_LT, cid_a, "lock-g-a"),
	   "B: LOCKT of the last byte (offset 2^64-1, length 1): DENIED");
	n = v4_lockt(fd, &gb.fh, cid_b, "lock-g-b", WRITE_LT, 0, 1000, &t);
	ok(n == NFS4_OK, "B: LOCKT [0,1000): OK (%ld)", n);
	n = v4_unlock(fd, &la, &ga.fh, WRITE_LT, 1000, U64MAX, &r);
	ok(n == NFS4_OK, "A: LOCKU [1000,end): OK (%ld)", n);

	/*
	 * Bad ranges: INVAL. knfsd answers them before it looks at the
	 * seqid (nfsd4_lock's check_lock_length() comes first), so the
	 * seqid is not counted; the next call with the same seqid shows it.
	 */
	seq = la.seqid;
	n = v4_lock_ex(fd, &la, &ga.fh, WRITE_LT, 0, 0, &r);
	ok(n == NFS4ERR_INVAL, "LOCK of length 0: INVAL (%ld)", n);
	la.seqid = seq;
	n = v4_lock_ex(fd, &la, &ga.fh, WRITE_LT, U64MAX - 9, 20, &r);
	ok(n == NFS4ERR_INVAL, "LOCK of offset 2^64-10, length 20 (past 2^64): INVAL (%ld)", n);
	la.seqid = seq;
	n = v4_lock_ex(fd, &la, &ga.fh, WRITE_LT, U64MAX - 9, 10, &r);
	ok(n == NFS4_OK && la.seqid == seq + 1,
	   "LOCK of offset 2^64-10, length 10 (to the last byte) with the same seqid: OK, "
	   "the INVALs did not count it, as knfsd (%ld)", n);
	n = v4_unlock(fd, &la, &ga.fh, WRITE_LT, 0, 0, &r);
	ok(n == NFS4ERR_INVAL, "LOCKU of length 0: INVAL (%ld)", n);
	la.seqid = seq + 1;
	n = v4_unlock(fd, &la, &ga.fh, WRITE_LT, 5, U64MAX - 3, &r);
	ok(n == NFS4ERR_INVAL, "LOCKU of offset 5, length 2^64-4 (past 2^64): INVAL (%ld)", n);
	la.seqid = seq + 1;
	n = v4_lockt(fd, &gb.fh, cid_b, "lock-g-b", WRITE_LT, 0, 0, &t);
	ok(n == NFS4ERR_INVAL, "LOCKT of length 0: INVAL (%ld)", n);
	n = v4_lockt(fd, &gb.fh, cid_b, "lock-g-b", WRITE_LT, 10, U64MAX - 5, &t);
	ok(n == NFS4ERR_INVAL, "LOCKT past 2^64: INVAL (%ld)", n);
	n = v4_unlock(fd, &la, &ga.fh, WRITE_LT, 0, U64MAX, &r);
	ok(n == NFS4_OK, "LOCKU [0,end) with the seqid after the OK: OK (%ld)", n);
	v4_close(fd, &o1, &ga);
	v4_close(fd, &o2, &gb);
}

static void test_replay(void)
{
	struct v4_owner o1 = { 0, "open-r-a", 1 }, o2 = { 0, "open-r-b", 1 };
	struct v4_lowner la = { .name = "lock-r-a", .seqid = 7 },
		      lb = { .name = "lock-r-b", .seqid = 1u << 31 };
	struct nfs_argop4 ops[2];
	struct v4_res s1, s2;
	struct v4_opened ra, rb;
	struct v4_lk r;
	bool same;
	long n;

	o1.cid = la.cid = cid_a;
	o2.cid = lb.cid = cid_b;
	n = open_both(&o1, &ra, &o2, &rb, "r");
	ok(n == NFS4_OK, "both clients open 'r' (%ld)", n);

	/* a new lock-owner's LOCK sent twice */
	v4op_putfh(&ops[0], &ra.fh);
	v4op_lock_new(&ops[1], WRITE_LT, false, 0, 10, o1.seqid, &ra.sid, la.seqid, la.cid,
		      la.name);
	v4_res_init(&s1);
	v4_res_init(&s2);
	same = v4_twice(fd, false, ops, 2, &s1, &s2);
	ok(same && s1.status == NFS4_OK,
	   "LOCK of a new lock-owner sent twice with the same seqids: OK, the same reply byte "
	   "for byte (%u, %u)", s1.status, s2.status);
	if (s1.nops == 2 && s1.status == NFS4_OK) {
		la.sid = s1.ops[1].u.oplock.u.resok4.lock_stateid;
		la.have = true;
	}
	o1.seqid++;
	la.seqid++;
	v4_res_free(&s1);
	v4_res_free(&s2);

	/* an existing lock-owner's LOCK sent twice */
	v4op_lock(&ops[1], WRITE_LT, false, 20, 10, &la.sid, la.seqid);
	same = v4_twice(fd, false, ops, 2, &s1, &s2);
	ok(same && s1.status == NFS4_OK && s1.ops[1].u.oplock.u.resok4.lock_stateid.seqid == 2,
	   "LOCK of an existing lock-owner sent twice: OK, the same reply byte for byte, "
	   "the stateid's seqid 2 once (%u, %u)", s1.status, s2.status);
	if (s1.nops == 2 && s1.status == NFS4_OK)
		la.sid = s1.ops[1].u.oplock.u.resok4.lock_stateid;
	la.seqid++;
	v4_res_free(&s1);
	v4_res_free(&s2);

	/* B's denied LOCK sent twice: the denial, its owner too */
	n = v4_lock_new(fd, &o2, &rb, &lb, READ_LT, 100, 10, &r);
	ok(n == NFS4_OK, "B: LOCK READ [100,110) with lock_seqid 2^31 (%ld)", n);
	v4op_putfh(&ops[0], &rb.fh);
	v4op_lock(&ops[1], READ_LT, false, 5, 1, &lb.sid, lb.seqid);
	same = v4_twice(fd, false, ops, 2, &s1, &s2);
	ok(same && s1.status == NFS4ERR_DENIED && s1.nops == 2 &&
	   s1.ops[1].u.oplock.u.denied.owner.owner.len == strlen("lock-r-a"),
	   "B's conflicting LOCK sent twice: DENIED, the same reply byte for byte, A's owner "
	   "in it (%u, %u)", s1.status, s2.status);
	lb.seqid++;
	v4_res_free(&s1);
	v4_res_free(&s2);

	/* a LOCKU sent twice */
	v4op_putfh(&ops[0], &ra.fh);
	v4op_locku(&ops[1], WRITE_LT, la.seqid, &la.sid, 20, 10);
	same = v4_twice(fd, false, ops, 2, &s1, &s2);
	ok(same && s1.status == NFS4_OK,
	   "LOCKU sent twice with the same seqid: OK, the same reply byte for byte (%u, %u)",
	   s1.status, s2.status);
	if (s1.nops == 2 && s1.status == NFS4_OK)
		la.sid = s1.ops[1].u.oplocku.u.lock_stateid;
	la.seqid++;
	v4_res_free(&s1);
	v4_res_free(&s2);
	n = v4_lockt(fd, &rb.fh, cid_b, "lock-r-b", WRITE_LT, 20, 10, &r);
	ok(n == NFS4_OK, "the range that LOCKU freed is free once (%ld)", n);

	/* seqids out of order */
	la.seqid += 1;
	n = v4_lock_ex(fd, &la, &ra.fh, WRITE_LT, 40, 1, &r);
	ok(n == NFS4ERR_BAD_SEQID, "LOCK with the lock-owner's seqid + 1 too far: BAD_SEQID (%ld)",
	   n);
	la.seqid -= 3;
	n = v4_lock_ex(fd, &la, &ra.fh, WRITE_LT, 40, 1, &r);
	ok(n == NFS4ERR_BAD_SEQID, "LOCK with a seqid two back: BAD_SEQID (%ld)", n);
	la.seqid += 2;
	n = v4_unlock(fd, &la, &ra.fh, WRITE_LT, 40, 1, &r);
	ok(n == NFS4_OK, "the right seqid after them: OK, BAD_SEQID was not counted (%ld)", n);
	{
		struct v4_lowner lx = { .name = "lock-r-x", .seqid = 1 };
		struct v4_owner bad = o1;

		lx.cid = cid_a;
		bad.seqid = o1.seqid + 3;
		n = v4_lock_new(fd, &bad, &ra, &lx, WRITE_LT, 50, 1, &r);
		ok(n == NFS4ERR_BAD_SEQID,
		   "a new lock-owner's LOCK with a wrong open_seqid: BAD_SEQID (%ld)", n);
		n = v4_lock_new(fd, &o1, &ra, &lx, WRITE_LT, 50, 1, &r);
		ok(n == NFS4_OK, "... with the right one: OK (%ld)", n);
		v4_unlock(fd, &lx, &ra.fh, WRITE_LT, 50, 1, &r);
	}
	{
		struct stateid4 old = la.sid;

		old.seqid = 1;
		v4op_lock(&ops[1], WRITE_LT, false, 60, 1, &old, la.seqid);
		v4_res_init(&s1);
		n = v4_lock_call(fd, &ra.fh, &ops[1], &r, &s1);
		v4_res_free(&s1);
		ok(n == NFS4ERR_OLD_STATEID, "LOCK with an old seqid of the lock stateid: "
		   "OLD_STATEID (%ld)", n);
		if (v4_seqid_counted(n))
			la.seqid++;
		memset(old.other, 0x5a, sizeof(old.other));
		v4op_lock(&ops[1], WRITE_LT, false, 60, 1, &old, la.seqid);
		v4_res_init(&s1);
		n = v4_lock_call(fd, &ra.fh, &ops[1], &r, &s1);
		v4_res_free(&s1);
		ok(n == NFS4ERR_BAD_STATEID || n == NFS4ERR_STALE_STATEID,
		   "LOCK with a lock stateid the server never gave: BAD_STATEID or "
		   "STALE_STATEID (%ld)", n);
	}

	/* the lock stateid of another file */
	n = v4_lock_ex(fd, &la, &fa.fh, WRITE_LT, 0, 1, &r);
	ok(n == NFS4ERR_BAD_STATEID, "LOCK on 'f' with the lock stateid of 'r': BAD_STATEID (%ld)",
	   n);
	v4_unlock(fd, &la, &ra.fh, WRITE_LT, 0, U64MAX, &r);
	v4_unlock(fd, &lb, &rb.fh, READ_LT, 0, U64MAX, &r);
	v4_close(fd, &o1, &ra);
	v4_close(fd, &o2, &rb);
}

/* RELEASE_LOCKOWNER; CLOSE with locks; a reclaim outside grace. */
static void test_release_close(void)
{
	struct v4_owner o1 = { 0, "open-c-a", 1 }, o2 = { 0, "open-c-b", 1 };
	struct v4_lowner la = { .name = "lock-c-a", .seqid = 1 },
			 lb = { .name = "lock-c-b", .seqid = 1 };
	struct v4_opened ca, cb;
	struct nfs_argop4 a;
	struct v4_res s;
	struct stateid4 gone;
	struct v4_lk r;
	char buf[16];
	long n;

	o1.cid = la.cid = cid_a;
	o2.cid = lb.cid = cid_b;
	n = open_both(&o1, &ca, &o2, &cb, "c");
	ok(n == NFS4_OK, "both clients open 'c' (%ld)", n);

	n = v4_lock_new(fd, &o1, &ca, &la, WRITE_LT, 0, 10, &r);
	ok(n == NFS4_OK, "A: LOCK WRITE [0,10) (%ld)", n);
	n = v4_release(fd, cid_a, "lock-c-a");
	ok(n == NFS4ERR_LOCKS_HELD, "RELEASE_LOCKOWNER of a lock-owner holding a lock: "
	   "LOCKS_HELD (%ld)", n);
	n = v4_lockt(fd, &cb.fh, cid_b, "lock-c-b", WRITE_LT, 0, 1, &r);
	ok(denied_by(&r, 0, 10, WRITE_LT, cid_a, "lock-c-a"), "the lock is still there");
	n = v4_unlock(fd, &la, &ca.fh, WRITE_LT, 0, 10, &r);
	ok(n == NFS4_OK, "A: LOCKU (%ld)", n);
	n = v4_release(fd, cid_a, "lock-c-a");
	ok(n == NFS4_OK, "RELEASE_LOCKOWNER after LOCKU: OK (%ld)", n);
	n = v4_read_str(fd, &ca.fh, &la.sid, 0, 1, buf, sizeof(buf));
	ok(n == NFS4ERR_BAD_STATEID, "READ with the released owner's lock stateid: "
	   "BAD_STATEID (%ld)", n);
	n = v4_release(fd, cid_a, "never-locked");
	ok(n == NFS4_OK, "RELEASE_LOCKOWNER of an owner the server does not know: OK (%ld)", n);
	n = v4_release(fd, 0x1234567800000001ull, "lock-c-a");
	ok(n == NFS4ERR_STALE_CLIENTID, "RELEASE_LOCKOWNER with a clientid of no client: "
	   "STALE_CLIENTID (%ld)", n);

	/* CLOSE of the open releases its locks */
	la = (struct v4_lowner){ .cid = cid_a, .name = "lock-c-a2", .seqid = 1 };
	n = v4_lock_new(fd, &o1, &ca, &la, WRITE_LT, 0, U64MAX, &r);
	ok(n == NFS4_OK, "A: LOCK WRITE [0,end) by a new lock-owner (%ld)", n);
	n = v4_lock_new(fd, &o2, &cb, &lb, READ_LT, 5, 1, &r);
	ok(denied_by(&r, 0, U64MAX, WRITE_LT, cid_a, "lock-c-a2"), "B: LOCK READ [5,6): DENIED");
	gone = la.sid;
	n = v4_close(fd, &o1, &ca);
	ok(n == NFS4_OK, "A: CLOSE of the open with the lock held: OK, as knfsd (%ld)", n);
	/* the denied owner sent as new again (see test_conflicts) */
	n = v4_lock_new(fd, &o2, &cb, &lb, READ_LT, 5, 1, &r);
	if (n == NFS4ERR_BAD_SEQID) {
		lb.seqid--;
		n = v4_lock_new(fd, &o2, &cb, &lb, READ_LT, 5, 1, &r);
	}
	ok(n == NFS4_OK, "then B's LOCK READ [5,6): OK, CLOSE released A's lock (%ld)", n);
	n = v4_read_str(fd, &ca.fh, &gone, 0, 1, buf, sizeof(buf));
	ok(n == NFS4ERR_BAD_STATEID, "READ with the lock stateid of the closed open: "
	   "BAD_STATEID (%ld)", n);

	/* a reclaim with no grace period */
	{
		struct v4_owner o3 = { 0, "open-c-c", 1 };
		struct v4_lowner lc = { .name = "lock-c-c", .seqid = 1 };
		struct v4_opened cc;

		o3.cid = lc.cid = cid_a;
		n = v4_open_name(fd, &o3, &fh_rw, "c", OPEN4_SHARE_ACCESS_BOTH,
				 OPEN4_SHARE_DENY_NONE, &cc);
		v4op_lock_new(&a, WRITE_LT, true, 100, 10, o3.seqid, &cc.sid, lc.seqid, lc.cid,
			      lc.name);
		v4_res_init(&s);
		n = n == NFS4_OK ? v4_lock_call(fd, &cc.fh, &a, &r, &s) : n;
		v4_res_free(&s);
		ok(n == NFS4ERR_NO_GRACE, "LOCK with reclaim set, no grace period: NO_GRACE (%ld)",
		   n);
		/* NO_GRACE is no exempt status; knfsd decides it after the
		 * seqid is checked and counts it */
		o3.seqid++;
		lc.seqid++;
		n = v4_lock_new(fd, &o3, &cc, &lc, WRITE_LT, 100, 10, &r);
		ok(n == NFS4_OK, "the next LOCK with the seqids after the NO_GRACE one's: OK, "
		   "NO_GRACE was counted (RFC 7530 9.1.7, knfsd) (%ld)", n);
		ok(n == NFS4_OK, "a plain LOCK by the owner then: OK (%ld)", n);
		v4_unlock(fd, &lc, &cc.fh, WRITE_LT, 100, 10, &r);
		v4_close(fd, &o3, &cc);
	}
	v4_unlock(fd, &lb, &cb.fh, READ_LT, 5, 1, &r);
	v4_close(fd, &o2, &cb);
}

/* ---- leases ---------------------------------------------------------- */

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_until(double t)
{
	double now;

	while ((now = mono()) < t) {
		double d = t - now;
		struct timespec ts = { (time_t)d, (long)((d - (double)(time_t)d) * 1e9) };

		nanosleep(&ts, NULL);
	}
}

/*
 * Client C takes a share reservation and a lock and goes silent; client D
 * renews every 3 s. Within the lease C's state stands in D's way; after
 * it (lease 10 s, waited 12 s) the server keeps C's state only until D
 * conflicts with it (a courteous server, as knfsd since Linux 5.19), then
 * drops it with the client. Client E, silent as long, comes back before
 * anybody conflicts: its RENEW revives it with all its state.
 */
static void test_lease(void)
{
	struct v4_owner oc = { 0, "open-l-c", 1 }, od = { 0, "open-l-d", 1 };
	struct v4_lowner lc = { .name = "lock-l-c", .seqid = 1 },
			 ld = { .name = "lock-l-d", .seqid = 1 },
		      ld2 = { .name = "lock-l-d2", .seqid = 1 };
	struct v4_owner oe = { 0, "open-l-e", 1 };
	struct v4_lowner le = { .name = "lock-l-e", .seqid = 1 };
	clientid4 cid_c = 0, cid_d = 0, cid_e = 0;
	struct v4_opened c, d, d2, e;
	struct v4_lk r;
	double silent, t;
	char buf[16];
	bool renewed = true;
	long n;

	ok(v4_client(fd, 0, "nfsx-lock-client-c", true, &cid_c) == NFS4_OK &&
	   v4_client(fd, 0, "nfsx-lock-client-d", true, &cid_d) == NFS4_OK,
	   "lease: clients C and D confirmed");
	ok(recorded("nfsx-lock-client-c"), "STATE_DIR/nfs4-clients lists C once it is confirmed");
	oc.cid = lc.cid = cid_c;
	od.cid = ld.cid = ld2.cid = cid_d;
	n = v4_open_name(fd, &oc, &fh_rw, "lease", OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_WRITE,
			 &c);
	ok(n == NFS4_OK, "C opens 'lease' for BOTH, deny WRITE (%ld)", n);
	n = v4_lock_new(fd, &oc, &c, &lc, WRITE_LT, 0, 100, &r);
	ok(n == NFS4_OK, "C: LOCK WRITE [0,100) (%ld)", n);
	ok(v4_client(fd, 1000, "nfsx-lock-client-c", false, &cid_e) == NFS4ERR_CLID_INUSE,
	   "SETCLIENTID of C's id by another uid while C holds state: CLID_INUSE");
	ok(v4_client(fd, 0, "nfsx-lock-client-e", true, &cid_e) == NFS4_OK,
	   "client E confirmed");
	oe.cid = le.cid = cid_e;
	n = v4_open_name(fd, &oe, &fh_rw, "lease2", OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_WRITE,
			 &e);
	ok(n == NFS4_OK, "E opens 'lease2' for BOTH, deny WRITE (%ld)", n);
	n = v4_lock_new(fd, &oe, &e, &le, WRITE_LT, 0, 100, &r);
	ok(n == NFS4_OK, "E: LOCK WRITE [0,100) (%ld)", n);
	silent = mono();

	n = v4_open_name(fd, &od, &fh_rw, "lease", OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_NONE,
			 &d2);
	ok(n == NFS4ERR_SHARE_DENIED, "within C's lease: D's OPEN for WRITE is SHARE_DENIED (%ld)",
	   n);
	n = v4_open_name(fd, &od, &fh_rw, "lease", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE,
			 &d);
	ok(n == NFS4_OK, "D's OPEN for READ: OK (%ld)", n);
	n = v4_lock_new(fd, &od, &d, &ld, READ_LT, 10, 10, &r);
	ok(denied_by(&r, 0, 100, WRITE_LT, cid_c, "lock-l-c"),
	   "within C's lease: D's LOCK READ [10,20) is DENIED by C's lock");

	/* D renews every 3 s; C says nothing for 12 s (the lease is 10 s) */
	for (t = silent + 3; t < silent + 12.5; t += 3) {
		sleep_until(t);
		n = v4_renew(fd, cid_d);
		if (n != NFS4_OK) {
			renewed = false;
			printf("#   D's RENEW at +%.1f s: %ld\n", mono() - silent, n);
		}
	}
	sleep_until(silent + 12.5);
	ok(renewed, "D's RENEWs every 3 s: all OK");

	n = v4_open_name(fd, &od, &fh_rw, "lease", OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_NONE,
			 &d2);
	ok(n == NFS4_OK, "after C's lease ran out: D's OPEN for WRITE is OK (C's share "
	   "reservation dropped at the conflict) (%ld)", n);
	n = v4_lock_new(fd, &od, &d2, &ld2, WRITE_LT, 0, 100, &r);
	ok(n == NFS4_OK, "D: LOCK WRITE [0,100), C's range: OK (%ld)", n);
	n = do_write(&d2.fh, &ld2.sid, 0, "D was here");
	ok(n == NFS4_OK, "D writes with its lock stateid: OK (%ld)", n);
	n = v4_read_str(fd, &c.fh, &c.sid, 0, 4, buf, sizeof(buf));
	ok(n == NFS4ERR_BAD_STATEID || n == NFS4ERR_EXPIRED,
	   "C's open stateid now: BAD_STATEID (%ld)", n);
	n = v4_read_str(fd, &c.fh, &lc.sid, 0, 4, buf, sizeof(buf));
	ok(n == NFS4ERR_BAD_STATEID || n == NFS4ERR_EXPIRED,
	   "C's lock stateid now: BAD_STATEID (%ld)", n);
	n = v4_renew(fd, cid_c);
	ok(n == NFS4ERR_STALE_CLIENTID || n == NFS4ERR_EXPIRED,
	   "C's RENEW: STALE_CLIENTID, its client record went with its state (%ld)", n);
	ok(!recorded("nfsx-lock-client-c") && recorded("nfsx-lock-client-d"),
	   "STATE_DIR/nfs4-clients no longer lists C (a \"-\" line), still lists D: C may not "
	   "reclaim after a restart");
	n = v4_renew(fd, cid_d);
	ok(n == NFS4_OK, "D's RENEW: still OK (%ld)", n);

	n = v4_renew(fd, cid_e);
	ok(n == NFS4_OK, "E, silent as long but never in anybody's way: its RENEW is OK "
	   "(a courtesy client revived) (%ld)", n);
	n = v4_read_str(fd, &e.fh, &le.sid, 0, 4, buf, sizeof(buf));
	ok(n == NFS4_OK, "E's lock stateid still works for READ (%ld)", n);
	n = v4_open_name(fd, &od, &fh_rw, "lease2", OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_NONE,
			 &d2);
	ok(n == NFS4ERR_SHARE_DENIED, "D's OPEN for WRITE of 'lease2': SHARE_DENIED, E's deny "
	   "holds again (%ld)", n);
	ok(recorded("nfsx-lock-client-e"), "STATE_DIR/nfs4-clients still lists E");
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s PORT BASE STATE_DIR\n", argv[0]);
		return 2;
	}
	base = argv[2];
	state_dir = argv[3];
	fd = rpc_connect((uint16_t)atoi(argv[1]), 5000);
	if (fd < 0) {
		printf("Bail out! cannot connect\n");
		return 1;
	}
	if (v4_walk(fd, path_of("rw"), &fh_rw) != NFS4_OK) {
		printf("Bail out! cannot walk to the export\n");
		return 1;
	}
	test_conflicts();
	test_ranges();
	test_replay();
	test_release_close();
	test_lease();
	close(fd);
	return tap_done();
}
