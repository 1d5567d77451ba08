/* SPDX-License-Identifier: MIT */
/*
 * NFSv4.0 COMPOUNDs in the duplicate request cache (src/nfs4/cacheme.c,
 * src/rpc/drc.c) on the wire: a COMPOUND holding an operation knfsd
 * flags OP_CACHEME (CREATE, REMOVE, RENAME, LINK, SETATTR, WRITE,
 * SETCLIENTID, SETCLIENTID_CONFIRM), sent again with its xid as a
 * client that lost the reply does, gets the first reply back byte for
 * byte, not EXIST or NOENT from a second run; a SETATTR(size) or a
 * WRITE sent again is not run again over a local change made in
 * between (CREATE, REMOVE, RENAME, LINK, SETATTR and WRITE are tested
 * here; the SETCLIENTID pair by pynfs). One without such an operation
 * runs again (a GETATTR sees the file as it is now), and so does
 * another COMPOUND that carries a used xid. A
 * COMPOUND of an OPEN (whose owner keeps its own replay) and a CREATE
 * is answered from the cache whole, and the owner's seqid was counted
 * once. What each call did is checked with stat(2) on the server's
 * machine.
 *
 * Run by run-nfs4-drc.sh:   test_nfs4_drc PORT BASE
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
static struct v4_fh fh_rw;

static bool exists(const char *rel)
{
	struct stat st;

	return lstat(v4_path(base, rel), &st) == 0;
}

/* The same reply body (results after accept_stat)? */
static bool same_reply(const struct v4_res *a, const struct v4_res *b)
{
	return a->rc == 1 && b->rc == 1 && a->r.body_len == b->r.body_len &&
	       memcmp(a->r.body, b->r.body, a->r.body_len) == 0;
}

/* @ops twice with one xid: the first reply's status; -1 when either did
 * not decode. Whether the second is the first is the caller's check. */
static long twice(const struct nfs_argop4 *ops, uint32_t n, struct v4_res *s1,
		  struct v4_res *s2)
{
	v4_twice(fd, true, ops, n, s1, s2);
	return s1->xdr_ok && s2->xdr_ok ? (long)s1->status : -1;
}

/* PUTFH of the rw export, then @op: twice with one xid. */
static long twice_in_rw(const struct nfs_argop4 *op, struct v4_res *s1, struct v4_res *s2)
{
	struct nfs_argop4 ops[2];

	v4op_putfh(&ops[0], &fh_rw);
	ops[1] = *op;
	return twice(ops, 2, s1, s2);
}

static void test_create(void)
{
	struct nfs_argop4 op, ops[2];
	struct v4_res s1, s2;
	long n;

	v4_res_init(&s1);
	v4_res_init(&s2);
	v4op_create(&op, NF4DIR, "newdir", NULL, 0, 0, NULL);
	n = twice_in_rw(&op, &s1, &s2);
	ok(n == NFS4_OK && exists("rw/newdir"), "CREATE of a directory: OK (%ld)", n);
	ok(s2.status == NFS4_OK && same_reply(&s1, &s2),
	   "CREATE again with its xid: the first reply, byte for byte, not EXIST (%u)",
	   s2.status);
	/* a third copy too (pynfs RPLY14 sends two) */
	v4op_putfh(&ops[0], &fh_rw);
	ops[1] = op;
	if (!v4_call_xid(fd, s1.r.xid, ops, 2, &s2))
		v4_diag(&s2);
	ok(s2.status == NFS4_OK && same_reply(&s1, &s2), "and again: the same reply (%u)",
	   s2.status);
	n = v4_call_as(fd, 0, ops, 2, &s2);
	ok(n == NFS4ERR_EXIST, "CREATE with a new xid runs: EXIST (%ld)", n);
	v4_res_free(&s1);
	v4_res_free(&s2);
}

static void test_remove_rename_link(void)
{
	struct nfs_argop4 op, ops[4];
	struct v4_res s1, s2;
	long n;

	v4_res_init(&s1);
	v4_res_init(&s2);
	v4op_remove(&op, "rmme");
	n = twice_in_rw(&op, &s1, &s2);
	ok(n == NFS4_OK && !exists("rw/rmme"), "REMOVE: OK, the file is gone (%ld)", n);
	ok(s2.status == NFS4_OK && same_reply(&s1, &s2),
	   "REMOVE again with its xid: the first reply, not NOENT (%u)", s2.status);

	v4op_putfh(&ops[0], &fh_rw);
	v4op_simple(&ops[1], OP_SAVEFH);
	v4op_rename(&ops[2], "mvfrom", "mvto");
	n = twice(ops, 3, &s1, &s2);
	ok(n == NFS4_OK && !exists("rw/mvfrom") && exists("rw/mvto"),
	   "RENAME: OK, moved (%ld)", n);
	ok(s2.status == NFS4_OK && same_reply(&s1, &s2),
	   "RENAME again with its xid: the first reply, not NOENT (%u)", s2.status);

	v4op_putfh(&ops[0], &fh_rw);
	v4op_lookup(&ops[1], "mvto");
	v4op_simple(&ops[2], OP_SAVEFH);
	v4op_putfh(&ops[3], &fh_rw);
	{
		struct nfs_argop4 all[5];

		memcpy(all, ops, sizeof(ops));
		v4op_link(&all[4], "linked");
		n = twice(all, 5, &s1, &s2);
	}
	ok(n == NFS4_OK && exists("rw/linked"), "LINK: OK (%ld)", n);
	ok(s2.status == NFS4_OK && same_reply(&s1, &s2),
	   "LINK again with its xid: the first reply, not EXIST (%u)", s2.status);
	v4_res_free(&s1);
	v4_res_free(&s2);
}

/* The size of @rel on the server's disk, or -1. */
static long long disk_size(const char *rel)
{
	struct stat st;

	return stat(v4_path(base, rel), &st) == 0 ? (long long)st.st_size : -1;
}

/*
 * PUTFH of the rw export, LOOKUP 'rw/@name', @op, sent with xid @xid;
 * then a local process sets the file's size to @local_size, which a
 * second run of @op would undo, and the same COMPOUND goes again with
 * @xid.
 * Return values: the first reply's status; -1 when a reply did not
 * decode or the local truncate failed.
 */
static long around_local(uint32_t xid, const char *name, const struct nfs_argop4 *op,
			 off_t local_size, struct v4_res *s1, struct v4_res *s2)
{
	struct nfs_argop4 ops[3];
	char rel[64];

	snprintf(rel, sizeof(rel), "rw/%s", name);
	v4op_putfh(&ops[0], &fh_rw);
	v4op_lookup(&ops[1], name);
	ops[2] = *op;
	if (!v4_call_xid(fd, xid, ops, 3, s1)) {
		v4_diag(s1);
		return -1;
	}
	if (truncate(v4_path(base, rel), local_size) < 0) {
		printf("#   truncate %s: %m\n", rel);
		return -1;
	}
	if (!v4_call_xid(fd, xid, ops, 3, s2)) {
		v4_diag(s2);
		return -1;
	}
	return s1->status;
}

/* SETATTR and WRITE change a file without naming anything: a second run
 * would not fail, it would do the change again over what happened in
 * between. */
static void test_setattr_write(void)
{
	static const char more[] = "def";
	struct nfs_argop4 op;
	struct v4_fattr f;
	struct v4_res s1, s2;
	long n;

	v4_res_init(&s1);
	v4_res_init(&s2);
	/* 'trunc' holds 10 bytes: cut to 4, a local writer makes it 8 */
	v4f_init(&f);
	v4f_u64(&f, FATTR4_SIZE, 4);
	v4op_setattr(&op, 0, NULL, &f);
	n = around_local(rpc_next_xid(), "trunc", &op, 8, &s1, &s2);
	ok(n == NFS4_OK, "SETATTR(size 4) of a 10-byte file: OK (%ld)", n);
	ok(n == NFS4_OK && s2.status == NFS4_OK && same_reply(&s1, &s2) &&
	   disk_size("rw/trunc") == 8,
	   "SETATTR again with its xid: the first reply, not run again (the local size 8 "
	   "stands: %lld)", disk_size("rw/trunc"));

	/* 'app' holds "abc": WRITE "def" at its end, a local writer cuts
	 * the file back to 3 bytes */
	v4op_write(&op, NULL, 3, FILE_SYNC4, more, (uint32_t)strlen(more));
	n = around_local(rpc_next_xid(), "app", &op, 3, &s1, &s2);
	ok(n == NFS4_OK, "WRITE of 3 bytes at the end of a 3-byte file: OK (%ld)", n);
	ok(n == NFS4_OK && s2.status == NFS4_OK && same_reply(&s1, &s2) &&
	   disk_size("rw/app") == 3,
	   "WRITE again with its xid: the first reply, not appended again (size %lld, 3)",
	   disk_size("rw/app"));
	v4_res_free(&s1);
	v4_res_free(&s2);
}

/* The cache is keyed by the call too, not by its xid alone: another
 * COMPOUND that happens to carry a used xid (a client that wrapped its
 * xids, or two clients behind one address) runs. */
static void test_xid_reused(void)
{
	struct nfs_argop4 op;
	struct v4_res s1, s2;
	uint32_t xid = rpc_next_xid();
	long n;

	v4_res_init(&s1);
	v4_res_init(&s2);
	/* names of one length: the arguments differ only in their bytes */
	v4op_create(&op, NF4DIR, "xid-a", NULL, 0, 0, NULL);
	{
		struct nfs_argop4 ops[2];

		v4op_putfh(&ops[0], &fh_rw);
		ops[1] = op;
		n = v4_call_xid(fd, xid, ops, 2, &s1) ? (long)s1.status : -1;
		ok(n == NFS4_OK && exists("rw/xid-a"), "CREATE 'xid-a' with xid X: OK (%ld)", n);
		v4op_create(&ops[1], NF4DIR, "xid-b", NULL, 0, 0, NULL);
		n = v4_call_xid(fd, xid, ops, 2, &s2) ? (long)s2.status : -1;
		ok(n == NFS4_OK && exists("rw/xid-b"),
		   "CREATE 'xid-b' with the same xid X: it runs, not the cached reply (%ld)", n);
	}
	v4_res_free(&s1);
	v4_res_free(&s2);
}

/* GETATTR (size) of 'grow' in the rw export, with xid @xid: its size,
 * or -1. */
static long long size_with_xid(uint32_t xid)
{
	struct nfs_argop4 ops[3];
	uint32_t w[3];
	struct v4_attrs a;
	struct v4_res s;
	long long size = -1;

	v4_bits(w, FATTR4_SIZE, -1);
	v4op_putfh(&ops[0], &fh_rw);
	v4op_lookup(&ops[1], "grow");
	v4op_getattr(&ops[2], w, 3);
	v4_res_init(&s);
	if (v4_call_xid(fd, xid, ops, 3, &s) && s.status == NFS4_OK &&
	    v4_attrs_of_res(&s, 2, &a))
		size = (long long)a.size;
	else
		v4_diag(&s);
	v4_res_free(&s);
	return size;
}

static void test_not_cached(void)
{
	uint32_t xid = rpc_next_xid();
	long long s1, s2;
	int f;

	s1 = size_with_xid(xid);
	f = open(v4_path(base, "rw/grow"), O_WRONLY | O_APPEND);
	if (f >= 0) {
		if (write(f, "more", 4) != 4)
			s1 = -2;
		close(f);
	}
	s2 = size_with_xid(xid);
	ok(s1 == 3 && s2 == 7, "LOOKUP and GETATTR sent again with their xid run again: "
	   "the new size (%lld then %lld)", s1, s2);
}

/* OPEN (whose owner keeps its own replay) and CREATE in one COMPOUND. */
static void test_with_open(void)
{
	struct v4_owner o = { .name = "drc-owner" };
	struct nfs_argop4 ops[5];
	struct v4_res s1, s2;
	struct v4_opened r;
	long n;

	n = v4_client(fd, 0, "nfs4-drc", true, &o.cid);
	ok(n == NFS4_OK, "a confirmed client (%ld)", n);
	/* the owner's first OPEN, confirmed, so that the next needs none */
	v4op_open(&ops[0], o.seqid, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, o.cid,
		  o.name, "grow");
	n = v4_open_conf(fd, &o, 0, &fh_rw, &ops[0], &r);
	ok(n == NFS4_OK, "the owner's first OPEN, confirmed (%ld)", n);

	v4_res_init(&s1);
	v4_res_init(&s2);
	v4op_putfh(&ops[0], &fh_rw);
	v4op_open(&ops[1], o.seqid, OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, o.cid,
		  o.name, "opened");
	v4op_open_create(&ops[1], UNCHECKED4, NULL, NULL);
	v4op_simple(&ops[2], OP_GETFH);
	v4op_putfh(&ops[3], &fh_rw);
	v4op_create(&ops[4], NF4DIR, "withopen", NULL, 0, 0, NULL);
	n = twice(ops, 5, &s1, &s2);
	ok(n == NFS4_OK && exists("rw/opened") && exists("rw/withopen"),
	   "OPEN (create) and CREATE in one COMPOUND: OK (%ld)", n);
	ok(s2.status == NFS4_OK && same_reply(&s1, &s2),
	   "sent again with its xid: the first reply whole, byte for byte (%u)", s2.status);
	o.seqid++;
	/* the owner counted one OPEN: the next seqid is the one after it */
	v4op_open(&ops[0], o.seqid, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, o.cid,
		  o.name, "grow");
	n = v4_open_in(fd, &o, 0, &fh_rw, &ops[0], &r);
	ok(n == NFS4_OK, "the owner's next seqid is the one after that OPEN's (%ld)", n);
	v4_res_free(&s1);
	v4_res_free(&s2);
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
	if (v4_walk(fd, v4_path(base, "rw"), &fh_rw) != NFS4_OK) {
		printf("Bail out! cannot walk to the export\n");
		return 1;
	}
	test_create();
	test_remove_rename_link();
	test_setattr_write();
	test_xid_reused();
	test_not_cached();
	test_with_open();
	close(fd);
	return tap_done();
}
