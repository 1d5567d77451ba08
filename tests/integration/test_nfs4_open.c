/* SPDX-License-Identifier: MIT */
/*
 * NFSv4.0 open state and I/O on the wire (RFC 7530 sections 9, 16.2,
 * 16.3, 16.16-16.19, 16.23, 16.32, 16.36): SETCLIENTID, OPEN with every
 * create mode, OPEN_CONFIRM, OPEN_DOWNGRADE, CLOSE, READ, WRITE, COMMIT
 * and SETATTR of the size with a stateid, against nfsxd
 * (src/nfs4/open_ops.c, io_ops.c, state.c). Every reply is decoded whole
 * (nfs4_raw.c); what a call did to a file is checked with stat(2) and
 * read(2) on the server's machine. Where RFC 7530 leaves a choice the
 * test expects what knfsd does.
 *
 * The test keeps each open-owner's next seqid itself, by RFC 7530 9.1.7
 * (the statuses that do not count it), so that a server counting
 * differently fails a later call visibly.
 *
 * Run by run-nfs4-open.sh:   test_nfs4_open PORT BASE
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nfs4_state_raw.h"
#include "tap.h"

static const char *base;
static int fd;
static struct v4_fh fh_rw, fh_ro;
static clientid4 cid1, cid2;

static char *path_of(const char *rel)
{
	return v4_path(base, rel);
}

/* The content of the server's file @rel (at most @cap bytes): its length, or -1. */
static long disk(const char *rel, char *buf, size_t cap)
{
	int f = open(path_of(rel), O_RDONLY);
	ssize_t n;

	if (f < 0)
		return -1;
	n = read(f, buf, cap);
	close(f);
	return n;
}

static off_t disk_size(const char *rel)
{
	struct stat st;

	return stat(path_of(rel), &st) == 0 ? st.st_size : -1;
}

static bool same_fh(const struct v4_fh *a, const struct v4_fh *b)
{
	return a->len && a->len == b->len && memcmp(a->d, b->d, a->len) == 0;
}

/* ---- open-owners ----------------------------------------------------- */

static void open_args(struct nfs_argop4 *a, const struct v4_owner *o, uint32_t access,
		      uint32_t deny, const char *name)
{
	v4op_open(a, o->seqid, access, deny, o->cid, o->name, name);
}

/* A plain OPEN (no create) of @name in the rw export, confirmed. */
static long open_name(struct v4_owner *o, uint32_t uid, const char *name, uint32_t access,
		      uint32_t deny, struct v4_opened *r)
{
	struct nfs_argop4 op;

	open_args(&op, o, access, deny, name);
	return v4_open_conf(fd, o, uid, &fh_rw, &op, r);
}

/* ---- I/O ------------------------------------------------------------- */

struct rd {
	long st;
	bool eof;
	uint32_t len;
	char data[4096];
};

static struct rd do_read(uint32_t uid, const struct v4_fh *fh, const struct stateid4 *sid,
			 uint64_t off, uint32_t count)
{
	struct nfs_argop4 op;
	struct v4_res s;
	struct rd r;

	memset(&r, 0, sizeof(r));
	v4op_read(&op, sid, off, count);
	v4_res_init(&s);
	r.st = v4_on_fh(fd, uid, fh, &op, &s);
	if (r.st == NFS4_OK) {
		const struct READ4resok *k = &s.ops[1].u.opread.u.resok4;

		r.eof = k->eof;
		r.len = k->data.len;
		memcpy(r.data, k->data.data, k->data.len < sizeof(r.data) ? k->data.len :
		       sizeof(r.data));
	}
	v4_res_free(&s);
	return r;
}

static long do_write(uint32_t uid, const struct v4_fh *fh, const struct stateid4 *sid,
		     uint64_t off, enum stable_how4 stable, const char *data,
		     struct WRITE4resok *out)
{
	struct nfs_argop4 op;
	struct v4_res s;
	long st;

	v4op_write(&op, sid, off, stable, data, (uint32_t)strlen(data));
	v4_res_init(&s);
	st = v4_on_fh(fd, uid, fh, &op, &s);
	if (st == NFS4_OK && out)
		*out = s.ops[1].u.opwrite.u.resok4;
	v4_res_free(&s);
	return st;
}

/* SETATTR of the size @size with @sid on @fh: its status. */
static long set_size(const struct v4_fh *fh, const struct stateid4 *sid, uint64_t size)
{
	struct nfs_argop4 op;
	struct v4_fattr f;
	struct v4_res s;
	long st;

	v4f_init(&f);
	v4f_u64(&f, FATTR4_SIZE, size);
	v4op_setattr(&op, sid->seqid, sid->other, &f);
	v4_res_init(&s);
	st = v4_on_fh(fd, 0, fh, &op, &s);
	v4_res_free(&s);
	return st;
}

static bool bit(const uint32_t w[3], unsigned int n)
{
	return v4_has(w, n);
}

/* ---- the checks ------------------------------------------------------ */

static struct v4_owner own_a;
static struct v4_fh fh_data;

#define TEXT1 "The quick brown fox "
#define TEXT2 "jumps over the lazy dog."

static void test_basic(void)
{
	struct nfs_argop4 op;
	struct v4_fattr f;
	struct v4_opened o;
	struct stateid4 first;
	struct WRITE4resok w1, w2;
	struct v4_res s;
	struct stat st;
	struct rd r;
	char buf[256];
	long n, len = (long)strlen(TEXT1 TEXT2);

	ok(v4_client(fd, 0, "nfsx-open-client-1", true, &cid1) == NFS4_OK,
	   "SETCLIENTID + SETCLIENTID_CONFIRM: client 1 confirmed");
	own_a = (struct v4_owner){ cid1, "owner-a", 100 };

	v4f_init(&f);
	v4f_u32(&f, FATTR4_MODE, 0640);
	open_args(&op, &own_a, OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, "data");
	v4op_open_create(&op, UNCHECKED4, &f, NULL);
	n = v4_open_in(fd, &own_a, 0, &fh_rw, &op, &o);
	ok(n == NFS4_OK && o.fh.len > 0,
	   "OPEN UNCHECKED4 of a new file, then GETFH: OK and its handle (%ld)", n);
	fh_data = o.fh;
	ok((o.rflags & OPEN4_RESULT_CONFIRM) && (o.rflags & OPEN4_RESULT_LOCKTYPE_POSIX),
	   "rflags of a new owner's first OPEN: CONFIRM and LOCKTYPE_POSIX (0x%x)", o.rflags);
	ok(bit(o.attrset, FATTR4_MODE), "attrset of the create has the mode");
	if (stat(path_of("rw/data"), &st) != 0)
		memset(&st, 0, sizeof(st));
	ok(S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0640 && st.st_size == 0,
	   "the file exists on the server: regular, mode 0640 (0%o), empty",
	   (unsigned int)(st.st_mode & 07777));
	ok(o.sid.seqid == 1, "the new open stateid's seqid is 1 (%u)", o.sid.seqid);
	first = o.sid;

	r = do_read(0, &fh_data, &o.sid, 0, 10);
	ok(r.st == NFS4ERR_BAD_STATEID,
	   "READ with the stateid before OPEN_CONFIRM: BAD_STATEID (%ld)", r.st);
	n = v4_confirm(fd, &own_a, &o);
	ok(n == NFS4_OK && o.sid.seqid == 2 && v4_same_other(&o.sid, &first),
	   "OPEN_CONFIRM with the next seqid: OK, the same stateid with seqid 2 (%ld, %u)",
	   n, o.sid.seqid);
	r = do_read(0, &fh_data, &first, 0, 10);
	ok(r.st == NFS4ERR_OLD_STATEID,
	   "READ with the stateid from before OPEN_CONFIRM after it: OLD_STATEID (%ld)", r.st);

	memset(&w1, 0, sizeof(w1));
	memset(&w2, 0xee, sizeof(w2));
	n = do_write(0, &fh_data, &o.sid, 0, UNSTABLE4, TEXT1, &w1);
	ok(n == NFS4_OK && w1.count == strlen(TEXT1) && w1.committed == UNSTABLE4,
	   "WRITE UNSTABLE4: OK, whole count, committed UNSTABLE4 (%ld, %u, %u)", n,
	   w1.count, w1.committed);
	n = do_write(0, &fh_data, &o.sid, strlen(TEXT1), FILE_SYNC4, TEXT2, &w2);
	ok(n == NFS4_OK && w2.count == strlen(TEXT2) && w2.committed == FILE_SYNC4,
	   "WRITE FILE_SYNC4: OK, whole count, committed FILE_SYNC4 (%ld, %u)", n,
	   w2.committed);
	ok(memcmp(w1.writeverf.val, w2.writeverf.val, 8) == 0,
	   "the write verifier is the same across the two WRITEs");
	n = do_write(0, &fh_data, &o.sid, 4, DATA_SYNC4, "quick", &w2);
	ok(n == NFS4_OK && w2.count == 5 &&
	   (w2.committed == DATA_SYNC4 || w2.committed == FILE_SYNC4) &&
	   memcmp(w1.writeverf.val, w2.writeverf.val, 8) == 0,
	   "WRITE DATA_SYNC4 (the same bytes again): OK, committed DATA_SYNC4 or FILE_SYNC4, "
	   "the same verifier (%ld, %u)", n, w2.committed);

	r = do_read(0, &fh_data, &o.sid, 0, 1000);
	ok(r.st == NFS4_OK && r.len == (uint32_t)len && memcmp(r.data, TEXT1 TEXT2, len) == 0 &&
	   r.eof, "READ of all: the bytes written, eof (%ld, %u, %d)", r.st, r.len, r.eof);
	r = do_read(0, &fh_data, &o.sid, 0, 10);
	ok(r.st == NFS4_OK && r.len == 10 && memcmp(r.data, TEXT1, 10) == 0 && !r.eof,
	   "READ of the first 10 bytes: those, not eof (%u, %d)", r.len, r.eof);
	r = do_read(0, &fh_data, &o.sid, 30, (uint32_t)len - 30);
	ok(r.st == NFS4_OK && r.len == (uint32_t)len - 30 &&
	   memcmp(r.data, (TEXT1 TEXT2) + 30, len - 30) == 0 && r.eof,
	   "READ ending right at the end of the file: eof (%u, %d)", r.len, r.eof);
	r = do_read(0, &fh_data, &o.sid, len + 10, 100);
	ok(r.st == NFS4_OK && r.len == 0 && r.eof,
	   "READ past the end: 0 bytes, eof (%ld, %u, %d)", r.st, r.len, r.eof);

	v4op_commit(&op, 0, 0);
	v4_res_init(&s);
	n = v4_on_fh(fd, 0, &fh_data, &op, &s);
	ok(n == NFS4_OK && memcmp(s.ops[1].u.opcommit.u.resok4.writeverf.val,
				  w1.writeverf.val, 8) == 0,
	   "COMMIT: OK, the WRITEs' verifier (%ld)", n);
	v4_res_free(&s);

	v4op_close(&op, own_a.seqid, &o.sid);
	n = v4_seq_op(fd, &own_a, &fh_data, &op, &first);
	ok(n == NFS4_OK && first.seqid == 3 && v4_same_other(&first, &o.sid),
	   "CLOSE: OK, the stateid with its seqid up (%ld, %u)", n, first.seqid);
	n = disk("rw/data", buf, sizeof(buf));
	ok(n == len && memcmp(buf, TEXT1 TEXT2, len) == 0,
	   "the file on the server's disk holds what was written (%ld bytes)", n);
}

static void test_replay(void)
{
	struct nfs_argop4 ops[3];
	struct v4_res s1, s2;
	struct v4_fh fh;
	struct stateid4 bad;
	struct v4_opened o, c;
	struct rd r;
	bool same;
	long n;

	/* an OPEN_CONFIRM sent again, by a new owner */
	{
		struct v4_owner p = { cid1, "owner-confirm", 5000 };
		struct v4_opened q;

		open_args(&ops[0], &p, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, "data");
		n = v4_open_in(fd, &p, 0, &fh_rw, &ops[0], &q);
		v4op_putfh(&ops[0], &q.fh);
		v4op_open_confirm(&ops[1], &q.sid, p.seqid);
		v4_res_init(&s1);
		v4_res_init(&s2);
		same = n == NFS4_OK && v4_twice(fd, false, ops, 2, &s1, &s2);
		ok(same && s1.status == NFS4_OK,
		   "OPEN_CONFIRM sent twice with the same seqid: OK, the same reply byte for byte "
		   "(%u, %u)", s1.status, s2.status);
		p.seqid++;
		if (s1.nops == 2 && s1.status == NFS4_OK)
			q.sid = s1.ops[1].u.opopen_confirm.u.resok4.open_stateid;
		v4_res_free(&s1);
		v4_res_free(&s2);
		v4op_open_confirm(&ops[1], &q.sid, p.seqid);
		n = v4_seq_op(fd, &p, &q.fh, &ops[1], NULL);
		ok(n == NFS4ERR_BAD_STATEID,
		   "OPEN_CONFIRM of a confirmed owner's stateid: BAD_STATEID (%ld)", n);
		v4op_close(&ops[1], p.seqid - 2, &q.sid);
		n = v4_seq_op(fd, &p, &q.fh, &ops[1], NULL);
		ok(n == NFS4ERR_BAD_SEQID, "CLOSE with an older seqid: BAD_SEQID (%ld)", n);
		n = v4_close(fd, &p, &q);
		ok(n == NFS4_OK, "CLOSE with the right one: OK (%ld)", n);
	}

	/* an owner that never confirmed is replaced by its next OPEN */
	{
		struct v4_owner p = { cid1, "owner-never-confirmed", 77 };
		struct v4_opened q1, q2;

		open_args(&ops[0], &p, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, "data");
		n = v4_open_in(fd, &p, 0, &fh_rw, &ops[0], &q1);
		open_args(&ops[0], &p, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, "data");
		n = n == NFS4_OK ? v4_open_in(fd, &p, 0, &fh_rw, &ops[0], &q2) : n;
		ok(n == NFS4_OK && (q2.rflags & OPEN4_RESULT_CONFIRM) && !v4_same_other(&q1.sid, &q2.sid),
		   "the next OPEN of an owner never confirmed: OK, a new stateid, CONFIRM asked "
		   "again (%ld)", n);
		v4op_open_confirm(&ops[1], &q1.sid, p.seqid);
		n = v4_seq_op(fd, &p, &q1.fh, &ops[1], NULL);
		ok(n == NFS4ERR_BAD_STATEID,
		   "OPEN_CONFIRM of the replaced open's stateid: BAD_STATEID (%ld)", n);
		n = v4_confirm(fd, &p, &q2);
		ok(n == NFS4_OK, "OPEN_CONFIRM of the new one: OK (%ld)", n);
		v4_close(fd, &p, &q2);
	}

	/* a CLOSE sent again */
	n = open_name(&own_a, 0, "data", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, &c);
	ok(n == NFS4_OK && !(c.rflags & OPEN4_RESULT_CONFIRM),
	   "a confirmed owner's next OPEN: OK, no CONFIRM asked (%ld, 0x%x)", n, c.rflags);
	v4op_putfh(&ops[0], &fh_data);
	v4op_close(&ops[1], own_a.seqid, &c.sid);
	v4_res_init(&s1);
	v4_res_init(&s2);
	same = v4_twice(fd, false, ops, 2, &s1, &s2);
	ok(same && s1.status == NFS4_OK,
	   "CLOSE sent twice with the same seqid: OK, the same reply byte for byte (%u, %u)",
	   s1.status, s2.status);
	own_a.seqid++;
	r = do_read(0, &fh_data, &c.sid, 0, 10);
	ok(r.st == NFS4ERR_BAD_STATEID, "READ with a closed stateid: BAD_STATEID (%ld)", r.st);
	r = same ? do_read(0, &fh_data, &s1.ops[1].u.opclose.u.open_stateid, 0, 10) :
		   (struct rd){ .st = -1 };
	ok(r.st == NFS4ERR_BAD_STATEID,
	   "READ with the stateid CLOSE returned: BAD_STATEID (%ld)", r.st);

	/* an OPEN sent again: its result and the file it left current */
	v4op_putfh(&ops[0], &fh_rw);
	open_args(&ops[1], &own_a, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, "data");
	v4op_simple(&ops[2], OP_GETFH);
	same = v4_twice(fd, false, ops, 3, &s1, &s2);
	ok(same && s1.status == NFS4_OK && s1.nops == 3,
	   "OPEN sent twice with the same seqid: OK, the same reply byte for byte (%u, %u)",
	   s1.status, s2.status);
	ok(v4_fh_of_res(&s2, 2, &fh) && same_fh(&fh, &fh_data),
	   "GETFH after the replayed OPEN: the file opened");
	own_a.seqid++;
	o.sid = s1.nops >= 2 && v4_op_status(&s1, 1) == NFS4_OK ?
		s1.ops[1].u.opopen.u.resok4.stateid : c.sid;
	o.fh = fh_data;
	v4_res_free(&s1);
	v4_res_free(&s2);

	open_args(&ops[1], &own_a, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, "data");
	ops[1].u.opopen.seqid = own_a.seqid + 1;
	n = v4_open_in(fd, &own_a, 0, &fh_rw, &ops[1], &c);
	ok(n == NFS4ERR_BAD_SEQID, "OPEN skipping a seqid: BAD_SEQID (%ld)", n);

	/* stateids through a read-only open */
	r = do_read(0, &fh_data, &o.sid, 0, 5);
	ok(r.st == NFS4_OK && r.len == 5 && memcmp(r.data, TEXT1, 5) == 0,
	   "READ with the open stateid: OK (%ld)", r.st);
	n = do_write(0, &fh_data, &o.sid, 0, UNSTABLE4, "x", NULL);
	ok(n == NFS4ERR_OPENMODE, "WRITE through a read-only open: OPENMODE (%ld)", n);
	bad = o.sid;
	bad.other[NFS4_OTHER_SIZE - 1] ^= 0x5a;
	r = do_read(0, &fh_data, &bad, 0, 5);
	ok(r.st == NFS4ERR_BAD_STATEID,
	   "READ with a stateid whose 'other' was altered: BAD_STATEID (%ld)", r.st);
	bad = o.sid;
	bad.seqid++;
	r = do_read(0, &fh_data, &bad, 0, 5);
	ok(r.st == NFS4ERR_BAD_STATEID,
	   "READ with a stateid seqid never given out: BAD_STATEID (%ld)", r.st);
	{
		struct v4_fh ex;

		n = v4_walk(fd, path_of("rw/exist"), &ex);
		r = n == NFS4_OK ? do_read(0, &ex, &o.sid, 0, 5) : (struct rd){ .st = n };
		ok(r.st == NFS4ERR_BAD_STATEID,
		   "READ of another file with this file's stateid: BAD_STATEID (%ld)", r.st);
	}
	r = do_read(0, &fh_rw, &o.sid, 0, 5);
	ok(r.st == NFS4ERR_ISDIR || r.st == NFS4ERR_BAD_STATEID,
	   "READ of a directory with a file's stateid: ISDIR or BAD_STATEID (%ld)", r.st);

	/* the anonymous stateid, no deny in force */
	r = do_read(0, &fh_data, NULL, 4, 5);
	ok(r.st == NFS4_OK && r.len == 5 && memcmp(r.data, "quick", 5) == 0,
	   "READ with the anonymous stateid: OK (%ld)", r.st);
	n = do_write(0, &fh_data, NULL, 4, FILE_SYNC4, "QUICK", NULL);
	ok(n == NFS4_OK, "WRITE with the anonymous stateid: OK (%ld)", n);
	{
		char b[16];

		ok(disk("rw/data", b, 9) == 9 && memcmp(b, "The QUICK", 9) == 0,
		   "and the server's file has the bytes");
	}
	n = v4_close(fd, &own_a, &o);
	ok(n == NFS4_OK, "CLOSE of the read-only open: OK (%ld)", n);
}

static void test_share(void)
{
	struct v4_owner b;
	struct v4_opened oa, ob, ob2;
	long n;

	ok(v4_client(fd, 0, "nfsx-open-client-2", true, &cid2) == NFS4_OK && cid2 != cid1,
	   "SETCLIENTID + CONFIRM of a second client id: another clientid");
	b = (struct v4_owner){ cid2, "owner-b", 7 };

	n = open_name(&own_a, 0, "shared", OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_WRITE, &oa);
	ok(n == NFS4_OK, "client 1 opens 'shared' for both, denying WRITE: OK (%ld)", n);
	n = open_name(&b, 0, "shared", OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_NONE, &ob);
	ok(n == NFS4ERR_SHARE_DENIED, "client 2's OPEN of it for WRITE: SHARE_DENIED (%ld)", n);
	n = open_name(&b, 0, "shared", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, &ob);
	ok(n == NFS4_OK, "client 2's OPEN of it for READ: OK (%ld)", n);
	{
		struct v4_owner a2 = { cid1, "owner-a2", 1 };
		struct v4_opened x;

		n = open_name(&a2, 0, "shared", OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_NONE, &x);
		ok(n == NFS4ERR_SHARE_DENIED,
		   "another owner of client 1 opening it for WRITE: SHARE_DENIED (%ld)", n);
	}
	n = do_write(0, &oa.fh, NULL, 0, UNSTABLE4, "anon", NULL);
	ok(n == NFS4ERR_LOCKED,
	   "a WRITE with the anonymous stateid while WRITE is denied: LOCKED (%ld)", n);
	n = do_read(0, &oa.fh, NULL, 0, 4).st;
	ok(n == NFS4_OK, "a READ with the anonymous stateid (READ not denied): OK (%ld)", n);
	n = v4_close(fd, &own_a, &oa);
	ok(n == NFS4_OK, "client 1's CLOSE: OK (%ld)", n);
	n = open_name(&b, 0, "shared", OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_NONE, &ob2);
	ok(n == NFS4_OK && v4_same_other(&ob.sid, &ob2.sid) && ob2.sid.seqid == ob.sid.seqid + 1,
	   "then client 2's OPEN for WRITE: OK, its open upgraded (%ld, seqid %u)", n,
	   ob2.sid.seqid);
	n = do_write(0, &ob2.fh, &ob2.sid, 0, UNSTABLE4, "b-wr", NULL);
	ok(n == NFS4_OK, "client 2's WRITE through it: OK (%ld)", n);
	n = do_write(0, &ob2.fh, NULL, 4, UNSTABLE4, "anon", NULL);
	ok(n == NFS4_OK, "a WRITE with the anonymous stateid: OK (%ld)", n);
	{
		char buf[16];

		ok(disk("rw/shared", buf, sizeof(buf)) == 8 && memcmp(buf, "b-wranon", 8) == 0,
		   "the server's file has both WRITEs");
	}
	n = open_name(&own_a, 0, "shared", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_WRITE, &oa);
	ok(n == NFS4ERR_SHARE_DENIED,
	   "client 1's OPEN denying WRITE while client 2 writes: SHARE_DENIED (%ld)", n);
	n = v4_close(fd, &b, &ob2);
	ok(n == NFS4_OK, "client 2's CLOSE: OK (%ld)", n);

	/* deny BOTH: the anonymous stateid is refused both ways, the READ
	 * bypass stateid (all ones) still reads (knfsd) */
	n = open_name(&own_a, 0, "shared", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_BOTH, &oa);
	ok(n == NFS4_OK, "client 1 opens 'shared' denying BOTH: OK (%ld)", n);
	n = do_read(0, &oa.fh, NULL, 0, 4).st;
	ok(n == NFS4ERR_LOCKED, "a READ with the anonymous stateid: LOCKED (%ld)", n);
	{
		struct stateid4 ones;
		struct rd r;

		memset(&ones, 0xff, sizeof(ones));
		r = do_read(0, &oa.fh, &ones, 0, 4);
		ok(r.st == NFS4_OK && r.len == 4 && memcmp(r.data, "b-wr", 4) == 0,
		   "a READ with the bypass stateid (all ones): OK, the data (%ld)", r.st);
	}
	n = open_name(&b, 0, "shared", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, &ob);
	ok(n == NFS4ERR_SHARE_DENIED, "client 2's OPEN for READ: SHARE_DENIED (%ld)", n);
	n = v4_close(fd, &own_a, &oa);
	ok(n == NFS4_OK, "client 1's CLOSE: OK (%ld)", n);
	n = do_read(0, &oa.fh, NULL, 0, 4).st;
	ok(n == NFS4_OK, "then a READ with the anonymous stateid: OK (%ld)", n);
}

static void test_downgrade(void)
{
	struct v4_opened r1, r2, r3;
	struct stateid4 d;
	struct nfs_argop4 op;
	long n;

	n = open_name(&own_a, 0, "dg", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, &r1);
	ok(n == NFS4_OK, "OPEN 'dg' for READ: OK (%ld)", n);
	n = open_name(&own_a, 0, "dg", OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_NONE, &r2);
	ok(n == NFS4_OK && v4_same_other(&r1.sid, &r2.sid) && r2.sid.seqid == r1.sid.seqid + 1,
	   "OPEN of it for WRITE by the same owner: the same stateid, seqid up (%ld)", n);
	n = do_read(0, &r1.fh, &r1.sid, 0, 1).st;
	ok(n == NFS4ERR_OLD_STATEID, "READ with the stateid's older seqid: OLD_STATEID (%ld)", n);
	n = do_write(0, &r2.fh, &r2.sid, 0, UNSTABLE4, "both", NULL);
	ok(n == NFS4_OK, "WRITE through the upgraded open: OK (%ld)", n);

	v4op_open_downgrade(&op, &r2.sid, own_a.seqid, OPEN4_SHARE_ACCESS_READ,
			    OPEN4_SHARE_DENY_WRITE);
	n = v4_seq_op(fd, &own_a, &r2.fh, &op, NULL);
	ok(n == NFS4ERR_INVAL, "OPEN_DOWNGRADE to a deny never asked: INVAL (%ld)", n);
	v4op_open_downgrade(&op, &r2.sid, own_a.seqid, OPEN4_SHARE_ACCESS_READ,
			    OPEN4_SHARE_DENY_NONE);
	memset(&d, 0, sizeof(d));
	n = v4_seq_op(fd, &own_a, &r2.fh, &op, &d);
	ok(n == NFS4_OK && v4_same_other(&d, &r2.sid) && d.seqid == r2.sid.seqid + 1,
	   "OPEN_DOWNGRADE from BOTH to READ: OK, seqid up (%ld, %u)", n, d.seqid);
	n = do_write(0, &r2.fh, &d, 0, UNSTABLE4, "x", NULL);
	ok(n == NFS4ERR_OPENMODE, "WRITE after the downgrade: OPENMODE (%ld)", n);
	n = do_read(0, &r2.fh, &d, 0, 4).st;
	ok(n == NFS4_OK, "READ after the downgrade: OK (%ld)", n);
	r2.sid = d;
	n = v4_close(fd, &own_a, &r2);
	ok(n == NFS4_OK, "CLOSE: OK (%ld)", n);

	n = open_name(&own_a, 0, "dg", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, &r3);
	v4op_open_downgrade(&op, &r3.sid, own_a.seqid, OPEN4_SHARE_ACCESS_WRITE,
			    OPEN4_SHARE_DENY_NONE);
	n = n == NFS4_OK ? v4_seq_op(fd, &own_a, &r3.fh, &op, NULL) : n;
	ok(n == NFS4ERR_INVAL, "OPEN_DOWNGRADE of a READ open to WRITE: INVAL (%ld)", n);
	v4_close(fd, &own_a, &r3);
}

static void test_create(void)
{
	static const uint8_t v1[8] = "verf-one", v2[8] = "verf-two";
	struct nfs_argop4 op;
	struct v4_fattr f;
	struct v4_opened o, o2;
	struct stat st;
	char buf[64];
	long n;

	open_args(&op, &own_a, OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, "exist");
	v4f_init(&f);
	v4op_open_create(&op, GUARDED4, &f, NULL);
	n = v4_open_in(fd, &own_a, 0, &fh_rw, &op, &o);
	ok(n == NFS4ERR_EXIST && disk("rw/exist", buf, sizeof(buf)) == 6,
	   "OPEN GUARDED4 of an existing file: EXIST, the file untouched (%ld)", n);

	open_args(&op, &own_a, OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, "excl");
	v4op_open_create(&op, EXCLUSIVE4, NULL, v1);
	n = v4_open_conf(fd, &own_a, 0, &fh_rw, &op, &o);
	ok(n == NFS4_OK && stat(path_of("rw/excl"), &st) == 0 && S_ISREG(st.st_mode),
	   "OPEN EXCLUSIVE4 of a new file: OK, made (%ld)", n);
	n = bit(o.attrset, FATTR4_TIME_ACCESS) && bit(o.attrset, FATTR4_TIME_MODIFY);
	ok(n, "its attrset names time_access and time_modify, which hold the verifier "
	   "(RFC 7530 16.16.5, knfsd) (0x%x 0x%x)", o.attrset[0], o.attrset[1]);
	open_args(&op, &own_a, OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, "excl");
	v4op_open_create(&op, EXCLUSIVE4, NULL, v1);
	n = v4_open_in(fd, &own_a, 0, &fh_rw, &op, &o2);
	ok(n == NFS4_OK && same_fh(&o.fh, &o2.fh),
	   "OPEN EXCLUSIVE4 again with the same verifier: OK, the same file (%ld)", n);
	open_args(&op, &own_a, OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, "excl");
	v4op_open_create(&op, EXCLUSIVE4, NULL, v2);
	n = v4_open_in(fd, &own_a, 0, &fh_rw, &op, &o2);
	ok(n == NFS4ERR_EXIST, "OPEN EXCLUSIVE4 with another verifier: EXIST (%ld)", n);
	v4_close(fd, &own_a, &o);

	/* UNCHECKED4 on an existing file: only a size of 0, and only for writing */
	v4f_init(&f);
	v4f_u64(&f, FATTR4_SIZE, 0);
	v4f_u32(&f, FATTR4_MODE, 0600);
	open_args(&op, &own_a, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, "trunc");
	v4op_open_create(&op, UNCHECKED4, &f, NULL);
	n = v4_open_in(fd, &own_a, 0, &fh_rw, &op, &o);
	ok(n == NFS4ERR_INVAL && disk_size("rw/trunc") == 10,
	   "OPEN UNCHECKED4 size 0 of a file with data, for READ only: INVAL, not truncated (%ld)",
	   n);
	open_args(&op, &own_a, OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_NONE, "trunc");
	v4op_open_create(&op, UNCHECKED4, &f, NULL);
	n = v4_open_in(fd, &own_a, 0, &fh_rw, &op, &o);
	ok(n == NFS4_OK && disk_size("rw/trunc") == 0,
	   "OPEN UNCHECKED4 size 0 of a file with data, for WRITE: OK, truncated (%ld)", n);
	if (stat(path_of("rw/trunc"), &st) != 0)
		memset(&st, 0, sizeof(st));
	ok((st.st_mode & 07777) == 0644,
	   "its mode is not changed (createattrs of an existing file are not used) (0%o)",
	   (unsigned int)(st.st_mode & 07777));
	ok(bit(o.attrset, FATTR4_SIZE) && !bit(o.attrset, FATTR4_MODE),
	   "attrset: the size, not the mode (0x%x 0x%x)", o.attrset[0], o.attrset[1]);
	v4_close(fd, &own_a, &o);

	v4f_init(&f);
	v4f_u32(&f, FATTR4_MODE, 0600);
	open_args(&op, &own_a, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, "exist");
	v4op_open_create(&op, UNCHECKED4, &f, NULL);
	n = v4_open_in(fd, &own_a, 0, &fh_rw, &op, &o);
	ok(n == NFS4_OK && disk("rw/exist", buf, sizeof(buf)) == 6 &&
	   stat(path_of("rw/exist"), &st) == 0 && (st.st_mode & 07777) == 0644,
	   "OPEN UNCHECKED4 with a mode of an existing file: OK, its data and mode as they "
	   "were (%ld)", n);
	ok(!bit(o.attrset, FATTR4_MODE),
	   "attrset does not name the mode, which was not set (0x%x 0x%x)", o.attrset[0],
	   o.attrset[1]);
	v4_close(fd, &own_a, &o);
}

/* An OPEN by a new owner @name of client 1 as @uid, in @dir: its status. */
static long fresh_open(const char *name, uint32_t uid, const struct v4_fh *dir,
		       struct nfs_argop4 *op, struct v4_opened *r)
{
	struct v4_owner o = { cid1, name, 1 };

	op->u.opopen.owner.clientid = cid1;
	op->u.opopen.owner.owner.data = (const uint8_t *)name;
	op->u.opopen.owner.owner.len = (uint32_t)strlen(name);
	return v4_open_conf(fd, &o, uid, dir, op, r);
}

static void test_errors(void)
{
	struct nfs_argop4 ops[2], op;
	struct v4_owner o;
	struct v4_opened r;
	struct v4_res s;
	struct v4_fh root;
	struct stat st;
	clientid4 cid3 = 0;
	long n;

	v4op_open(&op, 1, OPEN4_SHARE_ACCESS_READ, 0, 0, "", "dir");
	n = fresh_open("err-dir", 0, &fh_rw, &op, &r);
	ok(n == NFS4ERR_ISDIR, "OPEN of a directory's name: ISDIR (%ld)", n);
	v4op_open(&op, 1, OPEN4_SHARE_ACCESS_READ, 0, 0, "", "link");
	n = fresh_open("err-link", 0, &fh_rw, &op, &r);
	ok(n == NFS4ERR_SYMLINK, "OPEN of a symbolic link's name: SYMLINK (%ld)", n);
	v4op_open(&op, 1, OPEN4_SHARE_ACCESS_READ, 0, 0, "", "fifo");
	n = fresh_open("err-fifo", 0, &fh_rw, &op, &r);
	ok(n == NFS4ERR_SYMLINK,
	   "OPEN of a FIFO's name: SYMLINK (RFC 7530 16.16.6, knfsd) (%ld)", n);
	v4op_open(&op, 1, OPEN4_SHARE_ACCESS_READ, 0, 0, "", "no-such");
	n = fresh_open("err-noent", 0, &fh_rw, &op, &r);
	ok(n == NFS4ERR_NOENT, "OPEN of a missing name without create: NOENT (%ld)", n);

	v4op_open(&ops[0], 1, OPEN4_SHARE_ACCESS_READ, 0, cid1, "err-nofh", "data");
	v4_res_init(&s);
	n = v4_call_as(fd, 0, ops, 1, &s);
	ok(n == NFS4ERR_NOFILEHANDLE && s.nops == 1,
	   "OPEN without a current filehandle: NOFILEHANDLE (%ld)", n);
	v4_res_free(&s);

	v4op_open(&op, 1, OPEN4_SHARE_ACCESS_BOTH, 0, 0, "", "new-in-ro");
	v4op_open_create(&op, UNCHECKED4, NULL, NULL);
	n = fresh_open("err-rocreate", 0, &fh_ro, &op, &r);
	ok(n == NFS4ERR_ROFS && stat(path_of("ro/new-in-ro"), &st) != 0,
	   "OPEN create in a read-only export: ROFS, nothing made (%ld)", n);
	v4op_open(&op, 1, OPEN4_SHARE_ACCESS_WRITE, 0, 0, "", "f");
	n = fresh_open("err-rowrite", 0, &fh_ro, &op, &r);
	ok(n == NFS4ERR_ROFS, "OPEN for WRITE in a read-only export: ROFS (%ld)", n);
	v4op_open(&op, 1, OPEN4_SHARE_ACCESS_READ, 0, 0, "", "f");
	n = fresh_open("err-roread", 0, &fh_ro, &op, &r);
	ok(n == NFS4_OK, "OPEN for READ there: OK (%ld)", n);
	if (v4_walk(fd, "/", &root) == NFS4_OK) {
		v4op_open(&op, 1, OPEN4_SHARE_ACCESS_BOTH, 0, 0, "", "new-in-pseudo");
		v4op_open_create(&op, UNCHECKED4, NULL, NULL);
		n = fresh_open("err-pseudo", 0, &root, &op, &r);
		ok(n == NFS4ERR_ROFS, "OPEN create in the pseudo root: ROFS (%ld)", n);
	} else {
		ok(0, "PUTROOTFH, GETFH");
	}

	v4op_open(&op, 1, OPEN4_SHARE_ACCESS_READ, 0, 0, "", "data");
	op.u.opopen.claim.claim = CLAIM_PREVIOUS;
	op.u.opopen.claim.u.delegate_type = OPEN_DELEGATE_NONE;
	n = fresh_open("err-prev", 0, &fh_data, &op, &r);
	ok(n == NFS4ERR_NO_GRACE, "OPEN CLAIM_PREVIOUS outside a grace period: NO_GRACE (%ld)", n);
	v4op_open(&op, 1, OPEN4_SHARE_ACCESS_READ, 0, 0, "", "data");
	op.u.opopen.claim.claim = CLAIM_FH;
	n = fresh_open("err-claimfh", 0, &fh_data, &op, &r);
	ok(n == NFS4ERR_BADXDR,
	   "OPEN CLAIM_FH in minor version 0 (not in RFC 7530's XDR): BADXDR, as knfsd "
	   "(%ld)", n);
	v4op_open(&op, 1, 0, 0, 0, "", "data");
	n = fresh_open("err-access0", 0, &fh_rw, &op, &r);
	ok(n == NFS4ERR_INVAL, "OPEN with share_access 0: INVAL (%ld)", n);

	o = (struct v4_owner){ cid1 ^ 0x5a5a5a5aull, "err-cid", 1 };
	v4op_open(&op, 1, OPEN4_SHARE_ACCESS_READ, 0, o.cid, o.name, "data");
	n = v4_open_in(fd, &o, 0, &fh_rw, &op, &r);
	ok(n == NFS4ERR_STALE_CLIENTID, "OPEN with an unknown clientid: STALE_CLIENTID (%ld)", n);
	n = v4_client(fd, 0, "nfsx-open-client-3", false, &cid3);
	o = (struct v4_owner){ cid3, "err-uncf", 1 };
	v4op_open(&op, 1, OPEN4_SHARE_ACCESS_READ, 0, o.cid, o.name, "data");
	n = n == NFS4_OK ? v4_open_in(fd, &o, 0, &fh_rw, &op, &r) : n;
	ok(n == NFS4ERR_STALE_CLIENTID,
	   "OPEN with a clientid never confirmed: STALE_CLIENTID (%ld)", n);

	/* permissions: uid 1000 and 2000; 'secret' is 0600 of uid 1001,
	 * 'r444' 0444 of uid 1000 */
	v4op_open(&op, 1, OPEN4_SHARE_ACCESS_READ, 0, 0, "", "secret");
	n = fresh_open("perm-1", 1000, &fh_rw, &op, &r);
	ok(n == NFS4ERR_ACCESS, "OPEN for READ of another uid's 0600 file: ACCESS (%ld)", n);
	v4op_open(&op, 1, OPEN4_SHARE_ACCESS_READ, 0, 0, "", "secret");
	n = fresh_open("perm-2", 1001, &fh_rw, &op, &r);
	ok(n == NFS4_OK, "... by its owner: OK (%ld)", n);
	v4op_open(&op, 1, OPEN4_SHARE_ACCESS_WRITE, 0, 0, "", "r444");
	n = fresh_open("perm-3", 1000, &fh_rw, &op, &r);
	ok(n == NFS4_OK, "OPEN for WRITE of a 0444 file by its owner: OK (owner override) (%ld)",
	   n);
	n = n == NFS4_OK ? do_write(1000, &r.fh, &r.sid, 0, FILE_SYNC4, "R444", NULL) : n;
	{
		char b[8];

		ok(n == NFS4_OK && disk("rw/r444", b, sizeof(b)) == 5 && memcmp(b, "R444", 4) == 0,
		   "and its WRITE through that open: OK, on the server's disk (%ld)", n);
	}
	v4op_open(&op, 1, OPEN4_SHARE_ACCESS_WRITE, 0, 0, "", "r444");
	n = fresh_open("perm-4", 2000, &fh_rw, &op, &r);
	ok(n == NFS4ERR_ACCESS, "OPEN for WRITE of that file by another uid: ACCESS (%ld)", n);
	v4op_open(&op, 1, OPEN4_SHARE_ACCESS_READ, 0, 0, "", "r444");
	n = fresh_open("perm-5", 2000, &fh_rw, &op, &r);
	ok(n == NFS4_OK, "... for READ: OK (%ld)", n);
}

static void test_setattr(void)
{
	struct v4_owner b = { cid2, "owner-b-sz", 40 };
	struct v4_opened w, rd;
	struct rd r;
	long n;

	n = open_name(&own_a, 0, "sz", OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, &w);
	ok(n == NFS4_OK, "OPEN 'sz' for BOTH: OK (%ld)", n);
	n = set_size(&w.fh, &w.sid, 3);
	ok(n == NFS4_OK && disk_size("rw/sz") == 3,
	   "SETATTR size 3 with the write open's stateid: OK, truncated (%ld, %lld)", n,
	   (long long)disk_size("rw/sz"));
	n = open_name(&b, 0, "sz", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, &rd);
	ok(n == NFS4_OK, "another owner's OPEN of it for READ: OK (%ld)", n);
	n = set_size(&rd.fh, &rd.sid, 1);
	ok(n == NFS4ERR_OPENMODE && disk_size("rw/sz") == 3,
	   "SETATTR size with a read-only open's stateid: OPENMODE, size unchanged (%ld)", n);
	v4_close(fd, &b, &rd);
	n = v4_close(fd, &own_a, &w);
	ok(n == NFS4_OK, "CLOSE: OK (%ld)", n);

	/* knfsd lets a write-only open read (access_permit_read) */
	n = open_name(&b, 0, "sz", OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_NONE, &w);
	r = n == NFS4_OK ? do_read(0, &w.fh, &w.sid, 0, 10) : (struct rd){ .st = n };
	ok(r.st == NFS4_OK && r.len == 3 && memcmp(r.data, "012", 3) == 0,
	   "READ through a write-only open: OK, the data (%ld)", r.st);
	v4_close(fd, &b, &w);
}

/* Offsets past what a file can hold, a WRITE where nothing may be
 * written, a CLOSE of another file's stateid. */
static void test_limits(void)
{
	struct v4_opened w, x;
	struct v4_fh f_ro;
	struct nfs_argop4 op;
	long n;

	n = open_name(&own_a, 0, "sz", OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, &w);
	ok(n == NFS4_OK, "OPEN 'sz' for BOTH: OK (%ld)", n);
	n = do_write(0, &w.fh, &w.sid, 1ull << 63, UNSTABLE4, "x", NULL);
	ok(n == NFS4ERR_FBIG, "WRITE at offset 2^63: FBIG (%ld)", n);
	n = do_read(0, &w.fh, &w.sid, 1ull << 63, 10).st;
	ok(n == NFS4ERR_INVAL, "READ at offset 2^63: INVAL (%ld)", n);
	ok(disk_size("rw/sz") == 3, "the file is unchanged");

	n = open_name(&own_a, 0, "dg", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, &x);
	v4op_close(&op, own_a.seqid, &w.sid);
	n = n == NFS4_OK ? v4_seq_op(fd, &own_a, &x.fh, &op, NULL) : n;
	ok(n == NFS4ERR_BAD_STATEID,
	   "CLOSE with another file current than the stateid's: BAD_STATEID (%ld)", n);
	n = v4_close(fd, &own_a, &w);
	ok(n == NFS4_OK, "CLOSE on its own file: OK (%ld)", n);
	v4_close(fd, &own_a, &x);

	n = v4_walk(fd, path_of("ro/f"), &f_ro);
	n = n == NFS4_OK ? do_write(0, &f_ro, NULL, 0, FILE_SYNC4, "F", NULL) : n;
	{
		char b[4];

		ok(n == NFS4ERR_ROFS && disk("ro/f", b, sizeof(b)) == 2 && b[0] == 'f',
		   "WRITE with the anonymous stateid in a read-only export: ROFS, the file "
		   "unchanged (%ld)", n);
	}
}

/* A client that rebooted (a new verifier, confirmed) has lost its
 * state: its old stateid is EXPIRED once, as knfsd answers (pynfs
 * CID1), and its old clientid STALE after that. */
static void test_reboot(void)
{
	static const uint8_t v1[8] = "reboot-1", v2[8] = "reboot-2";
	struct v4_owner o = { 0, "owner-reboot", 1 };
	struct v4_opened r;
	clientid4 old, now;
	char buf[16];
	long n;

	n = v4_client_verf(fd, 0, "nfs4-open-reboot", v1, true, &old);
	o.cid = old;
	if (n == NFS4_OK) {
		struct nfs_argop4 op;

		open_args(&op, &o, OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_WRITE, "reboot");
		v4op_open_create(&op, UNCHECKED4, NULL, NULL);
		n = v4_open_conf(fd, &o, 0, &fh_rw, &op, &r);
	}
	ok(n == NFS4_OK, "a client creates and opens 'reboot' denying writes (%ld)", n);
	n = v4_client_verf(fd, 0, "nfs4-open-reboot", v2, true, &now);
	ok(n == NFS4_OK && now != old, "the same client id with a new verifier, confirmed: a "
	   "new clientid (%ld)", n);
	{
		struct nfs_argop4 op;

		v4op_close(&op, o.seqid, &r.sid);
		n = v4_seq_op(fd, &o, &r.fh, &op, NULL);
	}
	ok(n == NFS4ERR_EXPIRED, "CLOSE with the earlier instance's stateid: EXPIRED (knfsd; "
	   "pynfs CID1) (%ld)", n);
	n = v4_read_str(fd, &r.fh, &r.sid, 0, 4, buf, sizeof(buf));
	ok(n == NFS4ERR_EXPIRED, "READ with it then: EXPIRED too (%ld)", n);
	n = v4_renew(fd, old);
	ok(n == NFS4ERR_STALE_CLIENTID, "RENEW of the earlier clientid then: STALE_CLIENTID "
	   "(its state is gone) (%ld)", n);
	n = do_write(0, &r.fh, NULL, 0, UNSTABLE4, "w", NULL);
	ok(n == NFS4_OK, "and its deny with it: an anonymous WRITE is OK (%ld)", n);
}

/* GETATTR (numlinks) of @fh: its status; *@links the count. */
static long links_of(const struct v4_fh *fh, uint32_t *links)
{
	struct nfs_argop4 op;
	struct v4_attrs a;
	struct v4_res s;
	uint32_t w[3];
	long st;

	v4_bits(w, FATTR4_NUMLINKS, -1);
	v4op_getattr(&op, w, 3);
	v4_res_init(&s);
	st = v4_on_fh(fd, 0, fh, &op, &s);
	*links = 99;
	if (st == NFS4_OK && v4_attrs_of_res(&s, 1, &a))
		*links = a.numlinks;
	v4_res_free(&s);
	return st;
}

/* An open file whose last link goes stays readable, writable and
 * closable through its handle and stateid, as with knfsd (its open file
 * holds the inode); its handle goes stale with its last open (pynfs
 * RNM21). */
static void test_unlinked(void)
{
	struct nfs_argop4 op, ops[3];
	struct v4_opened o;
	struct v4_res s;
	struct rd r;
	uint32_t links;
	FILE *f;
	long n;

	open_args(&op, &own_a, OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, "gone");
	v4op_open_create(&op, UNCHECKED4, NULL, NULL);
	n = v4_open_conf(fd, &own_a, 0, &fh_rw, &op, &o);
	if (n == NFS4_OK)
		n = do_write(0, &o.fh, &o.sid, 0, FILE_SYNC4, "before", NULL);
	ok(n == NFS4_OK, "OPEN 'gone' (create) and WRITE: OK (%ld)", n);
	v4op_remove(&op, "gone");
	v4_res_init(&s);
	n = v4_on_fh(fd, 0, &fh_rw, &op, &s);
	v4_res_free(&s);
	ok(n == NFS4_OK && disk_size("rw/gone") < 0, "REMOVE of it while open: OK, gone (%ld)", n);
	n = links_of(&o.fh, &links);
	ok(n == NFS4_OK && links == 0, "GETATTR through its handle: OK, no link (%ld, %u)", n,
	   links);
	r = do_read(0, &o.fh, &o.sid, 0, 100);
	ok(r.st == NFS4_OK && r.len == 6 && memcmp(r.data, "before", 6) == 0,
	   "READ with its open stateid: the data (%ld, %u)", r.st, r.len);
	n = do_write(0, &o.fh, &o.sid, 6, UNSTABLE4, "+after", NULL);
	r = do_read(0, &o.fh, &o.sid, 0, 100);
	ok(n == NFS4_OK && r.st == NFS4_OK && r.len == 12 && memcmp(r.data, "before+after", 12) == 0,
	   "WRITE with it, read back: OK (%ld, %ld, %u)", n, r.st, r.len);
	n = v4_close(fd, &own_a, &o);
	ok(n == NFS4_OK, "CLOSE: OK (%ld)", n);
	n = links_of(&o.fh, &links);
	ok(n == NFS4ERR_STALE, "after the last CLOSE its handle is STALE (%ld)", n);

	/* pynfs RNM21: RENAME over an open file, then CLOSE it */
	f = fopen(path_of("rw/mvsrc"), "w");
	if (f) {
		fputs("new", f);
		fclose(f);
	}
	f = fopen(path_of("rw/victim"), "w");
	if (f) {
		fputs("old", f);
		fclose(f);
	}
	n = open_name(&own_a, 0, "victim", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, &o);
	ok(n == NFS4_OK, "OPEN of 'victim' (%ld)", n);
	v4op_putfh(&ops[0], &fh_rw);
	v4op_simple(&ops[1], OP_SAVEFH);
	v4op_rename(&ops[2], "mvsrc", "victim");
	v4_res_init(&s);
	n = v4_call_as(fd, 0, ops, 3, &s);
	v4_res_free(&s);
	ok(n == NFS4_OK, "RENAME of another file over it: OK (%ld)", n);
	r = do_read(0, &o.fh, &o.sid, 0, 100);
	ok(r.st == NFS4_OK && r.len == 3 && memcmp(r.data, "old", 3) == 0,
	   "READ through the open file's handle: its own data, not the new file's (%ld)", r.st);
	n = v4_close(fd, &own_a, &o);
	ok(n == NFS4_OK, "CLOSE of it: OK, not STALE (%ld)", n);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s PORT BASE\n", argv[0]);
		return 2;
	}
	base = argv[2];
	fd = rpc_connect((uint16_t)atoi(argv[1]), 5000);
	if (fd < 0) {
		printf("Bail out! cannot connect\n");
		return 1;
	}
	if (v4_walk(fd, path_of("rw"), &fh_rw) != NFS4_OK ||
	    v4_walk(fd, path_of("ro"), &fh_ro) != NFS4_OK) {
		printf("Bail out! cannot walk to the exports\n");
		return 1;
	}
	test_basic();
	test_replay();
	test_share();
	test_downgrade();
	test_create();
	test_errors();
	test_setattr();
	test_limits();
	test_unlinked();
	test_reboot();
	close(fd);
	return tap_done();
}
