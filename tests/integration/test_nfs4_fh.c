/* SPDX-License-Identifier: MIT */
/*
 * NFSv4.0 (RFC 7530) first operations of nfsxd on the wire: the pseudo
 * file system, the filehandle rules, COMPOUND's envelope, GETATTR,
 * VERIFY/NVERIFY, ACCESS, READLINK and READDIR, each reply decoded as a
 * whole with the generated codec (nfs4_raw.c). Run by run-nfs4-fh.sh,
 * which builds the tree and starts the servers:
 *
 *   test_nfs4_fh PORT PORT0 BASE
 *
 * PORT serves BASE/a/exp1 (rw), BASE/b/exp2 (ro) and BASE/c/hidden (a
 * client rule 127.0.0.1 does not match); PORT0 serves BASE/a/exp1 with
 * fsid=0, the root of its pseudo file system. The program runs on the
 * server's machine, as root, and compares with stat(2) there.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nfs4_raw.h"
#include "tap.h"

static const char *base;
static int fd;

static char *path_of(const char *rel)
{
	static char b[4][1024];
	static int i;

	i = (i + 1) % 4;
	snprintf(b[i], sizeof(b[i]), "%s/%s", base, rel);
	return b[i];
}

static bool fh_eq(const struct v4_fh *a, const struct v4_fh *b)
{
	return a->len == b->len && memcmp(a->d, b->d, a->len) == 0;
}

/* COMPOUND of @n ops: the reply decoded, its status @st and @nres results. */
static bool expect(struct v4_res *s, const struct nfs_argop4 *ops, uint32_t n,
		   long st, uint32_t nres)
{
	bool r = v4_call(fd, ops, n, s) && s->status == st && s->nops == nres;

	if (!r) {
		printf("#   expected status %ld with %u results\n", st, nres);
		v4_diag(s);
	}
	return r;
}

/* PUTFH @fh then @op: the second result's status (-1 on odd reply). */
static long on_fh(const struct v4_fh *fh, const struct nfs_argop4 *op)
{
	struct nfs_argop4 ops[2];
	struct v4_res s;
	long st = -1;

	v4op_putfh(&ops[0], fh);
	ops[1] = *op;
	v4_res_init(&s);
	if (v4_call(fd, ops, 2, &s))
		st = s.nops == 2 ? v4_op_status(&s, 1) : s.status;
	else
		v4_diag(&s);
	v4_res_free(&s);
	return st;
}

/* PUTFH @fh, GETATTR of @words into @s: the attributes (a view into @s),
 * or NULL when the call failed. */
static const struct fattr4 *getattr_in(const struct v4_fh *fh, uint32_t *w, uint32_t nw,
				       struct v4_res *s)
{
	struct nfs_argop4 ops[2];

	v4op_putfh(&ops[0], fh);
	v4op_getattr(&ops[1], w, nw);
	if (!expect(s, ops, 2, NFS4_OK, 2) || s->ops[1].resop != OP_GETATTR)
		return NULL;
	return &s->ops[1].u.opgetattr.u.resok4.obj_attributes;
}

/* GETATTR of @words on @fh into @a. */
static bool getattr_fh(const struct v4_fh *fh, uint32_t *w, uint32_t nw,
		       struct v4_attrs *a)
{
	struct v4_res s;
	const struct fattr4 *f;
	bool r;

	v4_res_init(&s);
	f = getattr_in(fh, w, nw, &s);
	r = f && v4_attrs_decode(f, a);
	v4_res_free(&s);
	return r;
}

/* ---- READDIR ---------------------------------------------------------- */

struct listing {
	char (*names)[256];
	uint64_t *fileid, *mofid;       /* fileid, mounted_on_fileid */
	uint32_t *type;
	uint32_t n, cap, calls;
	bool bad_cookie, eof_early, attrs_bad, dots;
};

/* List @fh fully with READDIR of @maxcount, attributes type and fileid.
 * Return values: the status of the first call that failed, or NFS4_OK. */
static long list_dir(const struct v4_fh *fh, uint32_t maxcount, struct listing *l)
{
	uint64_t cookie = 0;
	uint32_t w[3], nw = v4_bits(w, FATTR4_TYPE, FATTR4_FILEID,
				    FATTR4_MOUNTED_ON_FILEID, -1);

	memset(l, 0, sizeof(*l));
	for (;;) {
		struct nfs_argop4 ops[2];
		struct v4_res s;
		struct entry4 *e;
		bool eof;
		uint32_t got = 0;

		v4op_putfh(&ops[0], fh);
		v4op_readdir(&ops[1], cookie, maxcount, w, nw);
		v4_res_init(&s);
		if (!v4_call(fd, ops, 2, &s) || s.status != NFS4_OK || s.nops != 2) {
			long st = s.xdr_ok ? (long)s.status : -1;

			v4_diag(&s);
			v4_res_free(&s);
			return st;
		}
		l->calls++;
		for (e = s.ops[1].u.opreaddir.u.resok4.reply.entries; e; e = e->nextentry) {
			struct v4_attrs a;

			if (l->n == l->cap) {
				l->cap = l->cap ? l->cap * 2 : 256;
				l->names = realloc(l->names, l->cap * sizeof(*l->names));
				l->fileid = realloc(l->fileid, l->cap * sizeof(*l->fileid));
				l->mofid = realloc(l->mofid, l->cap * sizeof(*l->mofid));
				l->type = realloc(l->type, l->cap * sizeof(*l->type));
			}
			if (e->cookie <= 2)
				l->bad_cookie = true;
			if (e->name.len > 255) {
				l->attrs_bad = true;
				continue;
			}
			memcpy(l->names[l->n], e->name.data, e->name.len);
			l->names[l->n][e->name.len] = 0;
			if (!strcmp(l->names[l->n], ".") || !strcmp(l->names[l->n], ".."))
				l->dots = true;
			if (!v4_attrs_decode(&e->attrs, &a) || !v4_has(a.mask, FATTR4_TYPE) ||
			    !v4_has(a.mask, FATTR4_FILEID) ||
			    !v4_has(a.mask, FATTR4_MOUNTED_ON_FILEID))
				l->attrs_bad = true;
			l->fileid[l->n] = a.fileid;
			l->mofid[l->n] = a.mounted_on_fileid;
			l->type[l->n] = a.type;
			l->n++;
			got++;
			cookie = e->cookie;
		}
		eof = s.ops[1].u.opreaddir.u.resok4.reply.eof;
		v4_res_free(&s);
		if (eof)
			return NFS4_OK;
		if (!got) {
			l->eof_early = true;    /* no progress and no eof */
			return NFS4_OK;
		}
		if (l->calls > 100000)
			return -1;
	}
}

static void listing_free(struct listing *l)
{
	free(l->names);
	free(l->fileid);
	free(l->mofid);
	free(l->type);
	memset(l, 0, sizeof(*l));
}

static int count_name(const struct listing *l, const char *name)
{
	uint32_t i;
	int c = 0;

	for (i = 0; i < l->n; i++)
		c += !strcmp(l->names[i], name);
	return c;
}

/* ---- the tests --------------------------------------------------------- */

static struct v4_fh root, fh_a, fh_tree, fh_e1, fh_e2, fh_f, fh_d, fh_l;

static void test_pseudo(void)
{
	struct nfs_argop4 ops[4];
	struct v4_res s;
	struct listing l = { 0 };
	struct v4_fh x, y;
	struct v4_attrs a, b;
	uint32_t w[3], nw;
	long st;
	bool got;
	char first[256];
	const char *p = base + strspn(base, "/");
	size_t n = strcspn(p, "/");

	snprintf(first, sizeof(first), "%.*s", (int)n, p);
	v4_res_init(&s);
	ok(v4_walk(fd, "/", &root) == NFS4_OK, "PUTROOTFH+GETFH");
	st = list_dir(&root, 8192, &l);
	ok(st == NFS4_OK && l.n == 1 && count_name(&l, first) == 1 &&
	   !l.attrs_bad && l.type[0] == NF4DIR,
	   "READDIR of / lists only \"%s\", a directory (%u entries)", first, l.n);
	listing_free(&l);

	ok(v4_walk(fd, path_of(""), &fh_tree) == NFS4_OK, "LOOKUP through pseudo directories to the tree");
	st = list_dir(&fh_tree, 8192, &l);
	ok(st == NFS4_OK && l.n == 2 && count_name(&l, "a") == 1 &&
	   count_name(&l, "b") == 1 && count_name(&l, "c") == 0,
	   "READDIR of the tree: a and b, not c (the invisible export's branch), %u entries", l.n);
	listing_free(&l);

	ok(v4_walk(fd, path_of("a/exp1"), &fh_e1) == NFS4_OK, "LOOKUP to exp1 (rw)");
	ok(v4_walk(fd, path_of("b/exp2"), &fh_e2) == NFS4_OK, "LOOKUP to exp2 (ro)");
	ok(v4_walk(fd, path_of("c/hidden"), &x) == NFS4ERR_NOENT, "the export whose rule does not match: NOENT");
	ok(v4_walk(fd, path_of("c"), &x) == NFS4ERR_NOENT, "its pseudo parent: NOENT");
	ok(v4_walk(fd, path_of("a/other"), &x) == NFS4ERR_NOENT, "a real directory beside exp1, not an export: NOENT");
	ok(v4_walk(fd, path_of("zzz"), &x) == NFS4ERR_NOENT, "a missing name in a pseudo directory: NOENT");

	ok(v4_walk(fd, path_of("a"), &fh_a) == NFS4_OK && v4_walk(fd, path_of("a"), &x) == NFS4_OK &&
	   fh_eq(&fh_a, &x), "GETFH of a pseudo directory is the same in two COMPOUNDs");
	v4op_putfh(&ops[0], &fh_a);
	v4op_lookup(&ops[1], "exp1");
	v4op_simple(&ops[2], OP_GETFH);
	ok(expect(&s, ops, 3, NFS4_OK, 3) && v4_fh_of_res(&s, 2, &y) && fh_eq(&y, &fh_e1),
	   "PUTFH of a pseudo directory's handle, LOOKUP exp1: exp1's handle");

	v4op_putfh(&ops[0], &fh_e1);
	v4op_simple(&ops[1], OP_LOOKUPP);
	v4op_simple(&ops[2], OP_GETFH);
	ok(expect(&s, ops, 3, NFS4_OK, 3) && v4_fh_of_res(&s, 2, &y) && fh_eq(&y, &fh_a),
	   "LOOKUPP from exp1's root: the pseudo parent's handle");
	v4op_simple(&ops[0], OP_PUTROOTFH);
	v4op_simple(&ops[1], OP_LOOKUPP);
	ok(expect(&s, ops, 2, NFS4ERR_NOENT, 2), "LOOKUPP at the root: NOENT");

	nw = v4_bits(w, FATTR4_TYPE, FATTR4_FSID, FATTR4_FILEID, FATTR4_MODE, -1);
	got = getattr_fh(&fh_a, w, nw, &a);
	ok(got && a.type == NF4DIR && a.fsid.major == 0 &&
	   a.fsid.minor == 0 && a.fileid != 0,
	   "GETATTR of a pseudo directory: NF4DIR, fsid 0,0, fileid %llu", (unsigned long long)a.fileid);
	nw = v4_bits(w, FATTR4_FILEID, FATTR4_MOUNTED_ON_FILEID, -1);
	v4op_putfh(&ops[0], &fh_a);
	v4op_lookup(&ops[1], "exp1");
	v4op_getattr(&ops[2], w, nw);
	/* RFC 7530 5.8.2.19: an export's root has as mounted_on_fileid the
	 * fileid of the directory it covers, here the pseudo file system's
	 * node "exp1" in "a", which a client sees only in a's listing */
	got = expect(&s, ops, 3, NFS4_OK, 3) && v4_attrs_of_res(&s, 2, &b);
	st = list_dir(&fh_a, 8192, &l);
	ok(got && v4_has(b.mask, FATTR4_MOUNTED_ON_FILEID) && b.mounted_on_fileid != 0 &&
	   st == NFS4_OK && l.n == 1 && count_name(&l, "exp1") == 1 &&
	   l.mofid[0] == b.mounted_on_fileid && l.fileid[0] == b.fileid &&
	   b.mounted_on_fileid != a.fileid,
	   "exp1's root: mounted_on_fileid %llu, as a's READDIR entry exp1 shows it (fileid the root's)",
	   (unsigned long long)b.mounted_on_fileid);
	listing_free(&l);

	v4_res_free(&s);
}

static void test_fh_rules(void)
{
	static const enum nfs_opnum4 need[] = { OP_GETFH, OP_GETATTR, OP_LOOKUP, OP_LOOKUPP,
		OP_SAVEFH, OP_ACCESS, OP_READDIR, OP_READLINK };
	struct nfs_argop4 ops[6];
	struct v4_res s;
	struct v4_fh x, y;
	struct v4_attrs a;
	uint32_t w[3], nw, i;
	char name[300];

	v4_res_init(&s);
	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		uint32_t bw[3];

		v4op_simple(&ops[0], need[i]);
		if (need[i] == OP_LOOKUP)
			v4op_lookup(&ops[0], "x");
		if (need[i] == OP_GETATTR)
			v4op_getattr(&ops[0], bw, v4_bits(bw, FATTR4_TYPE, -1));
		if (need[i] == OP_ACCESS)
			v4op_access(&ops[0], ACCESS4_READ);
		if (need[i] == OP_READDIR)
			v4op_readdir(&ops[0], 0, 4096, bw, v4_bits(bw, FATTR4_TYPE, -1));
		ok(expect(&s, ops, 1, NFS4ERR_NOFILEHANDLE, 1) && s.ops[0].resop == need[i],
		   "op %u without a current filehandle: NOFILEHANDLE", need[i]);
	}
	v4op_simple(&ops[0], OP_PUTROOTFH);
	v4op_simple(&ops[1], OP_RESTOREFH);
	ok(expect(&s, ops, 2, NFS4ERR_RESTOREFH, 2), "RESTOREFH without SAVEFH: RESTOREFH");

	ok(v4_walk(fd, path_of("a/exp1/f"), &fh_f) == NFS4_OK, "LOOKUP exp1/f");
	ok(v4_walk(fd, path_of("a/exp1/d"), &fh_d) == NFS4_OK, "LOOKUP exp1/d");
	v4op_putfh(&ops[0], &fh_e1);
	v4op_simple(&ops[1], OP_SAVEFH);
	v4op_lookup(&ops[2], "f");
	v4op_simple(&ops[3], OP_RESTOREFH);
	v4op_simple(&ops[4], OP_GETFH);
	ok(expect(&s, ops, 5, NFS4_OK, 5) && v4_fh_of_res(&s, 4, &x) && fh_eq(&x, &fh_e1),
	   "SAVEFH, LOOKUP, RESTOREFH: the saved object again");
	v4op_putfh(&ops[0], &fh_f);
	v4op_simple(&ops[1], OP_SAVEFH);
	v4op_simple(&ops[2], OP_PUTROOTFH);
	v4op_simple(&ops[3], OP_RESTOREFH);
	v4op_simple(&ops[4], OP_GETFH);
	ok(expect(&s, ops, 5, NFS4_OK, 5) && v4_fh_of_res(&s, 4, &x) && fh_eq(&x, &fh_f),
	   "SAVEFH of a file, PUTROOTFH, RESTOREFH: the file");

	memset(&x, 0x5a, sizeof(x));
	x.len = 32;
	v4op_putfh(&ops[0], &x);
	ok(expect(&s, ops, 1, NFS4ERR_BADHANDLE, 1), "PUTFH of a garbage handle: BADHANDLE");
	x = fh_f;
	x.d[x.len - 1] ^= 0x01;
	v4op_putfh(&ops[0], &x);
	ok(expect(&s, ops, 1, NFS4ERR_BADHANDLE, 1), "PUTFH of an altered handle: BADHANDLE");
	x = fh_f;
	x.d[x.len / 2] ^= 0x80;
	v4op_putfh(&ops[0], &x);
	ok(expect(&s, ops, 1, NFS4ERR_BADHANDLE, 1), "PUTFH of a handle altered in its middle: BADHANDLE");
	x.len = 0;
	v4op_putfh(&ops[0], &x);
	ok(expect(&s, ops, 1, NFS4ERR_BADHANDLE, 1), "PUTFH of an empty handle: BADHANDLE");

	ok(v4_walk(fd, path_of("a/exp1/gone"), &x) == NFS4_OK && unlink(path_of("a/exp1/gone")) == 0,
	   "handle of exp1/gone taken, the file removed on the server");
	v4op_putfh(&ops[0], &x);
	v4op_simple(&ops[1], OP_GETFH);
	ok(expect(&s, ops, 2, NFS4ERR_STALE, 1), "PUTFH of a removed file's handle: STALE");

	/* names */
	v4op_putfh(&ops[0], &fh_e1);
	v4op_lookup(&ops[1], "");
	ok(expect(&s, ops, 2, NFS4ERR_INVAL, 2), "LOOKUP \"\": INVAL (RFC 7530 16.13.5)");
	v4op_lookup(&ops[1], ".");
	ok(expect(&s, ops, 2, NFS4ERR_BADNAME, 2), "LOOKUP \".\": BADNAME");
	v4op_lookup(&ops[1], "..");
	ok(expect(&s, ops, 2, NFS4ERR_BADNAME, 2), "LOOKUP \"..\": BADNAME");
	v4op_lookup(&ops[1], "d/x");
	ok(expect(&s, ops, 2, NFS4ERR_BADNAME, 2), "LOOKUP \"d/x\": BADNAME");
	memset(name, 'n', 256);
	name[256] = 0;
	v4op_lookup(&ops[1], name);
	ok(expect(&s, ops, 2, NFS4ERR_NAMETOOLONG, 2), "LOOKUP of a 256-byte name: NAMETOOLONG");
	name[255] = 0;
	v4op_lookup(&ops[1], name);
	ok(expect(&s, ops, 2, NFS4ERR_NOENT, 2), "LOOKUP of a missing 255-byte name: NOENT");
	v4op_putfh(&ops[0], &fh_f);
	v4op_lookup(&ops[1], "x");
	ok(expect(&s, ops, 2, NFS4ERR_NOTDIR, 2), "LOOKUP in a file: NOTDIR");

	nw = v4_bits(w, FATTR4_TYPE, FATTR4_FILEID, -1);
	v4op_putfh(&ops[0], &fh_e1);
	v4op_lookup(&ops[1], "l");
	v4op_getattr(&ops[2], w, nw);
	v4op_simple(&ops[3], OP_GETFH);
	ok(expect(&s, ops, 4, NFS4_OK, 4) && v4_attrs_of_res(&s, 2, &a) && a.type == NF4LNK &&
	   v4_fh_of_res(&s, 3, &fh_l), "LOOKUP of a symlink does not follow it: NF4LNK");
	v4op_lookup(&ops[0], "x");
	ok(on_fh(&fh_l, &ops[0]) == NFS4ERR_SYMLINK, "LOOKUP in a symlink: SYMLINK");
	v4op_putfh(&ops[0], &fh_l);
	v4op_simple(&ops[1], OP_READLINK);
	ok(expect(&s, ops, 2, NFS4_OK, 2) &&
	   s.ops[1].u.opreadlink.u.resok4.link.len == 1 &&
	   !memcmp(s.ops[1].u.opreadlink.u.resok4.link.data, "f", 1), "READLINK: the target \"f\"");
	v4op_simple(&ops[0], OP_READLINK);
	ok(on_fh(&fh_f, &ops[0]) == NFS4ERR_INVAL, "READLINK of a file: INVAL");
	/* RFC 7530 16.25.5: "The READLINK operation is only allowed on
	 * objects of type NF4LNK. The server should return the error
	 * NFS4ERR_INVAL if the object is not of type NF4LNK." (knfsd maps
	 * its ISDIR to INVAL for this reason.) */
	{
		long st = on_fh(&fh_d, &ops[0]);

		ok(st == NFS4ERR_INVAL, "READLINK of a directory: INVAL (RFC 7530 16.25.5), got %ld", st);
	}
	(void)y;
	v4_res_free(&s);
}

/* COMPOUND arguments by hand: tag "r", minor 0, @nops, then @words. */
static void raw_args(struct rpc_buf *b, uint32_t nops, const uint32_t *words, uint32_t n)
{
	uint32_t i;

	rpc_buf_reset(b);
	rpc_buf_put_opaque(b, "r", 1);
	rpc_buf_put_u32(b, 0);
	rpc_buf_put_u32(b, nops);
	for (i = 0; i < n; i++)
		rpc_buf_put_u32(b, words[i]);
}

static void test_compound(void)
{
	static const uint8_t odd_tag[] = { 0xff, 0xfe, 0x80, 0x00, 'x' };
	struct nfs_argop4 ops[4], *many;
	struct v4_res s;
	struct rpc_buf b;
	uint32_t i, m;
	bool all;

	v4_res_init(&s);
	rpc_buf_init(&b);
	v4op_simple(&ops[0], OP_PUTROOTFH);
	ok(v4_compound(fd, 0, 0, "hello-tag", 9, 0, ops, 1, &s) && s.status == NFS4_OK &&
	   s.tag.len == 9 && !memcmp(s.tag.data, "hello-tag", 9), "the tag echoed");
	ok(v4_compound(fd, 0, 0, "", 0, 0, ops, 1, &s) && s.status == NFS4_OK && s.tag.len == 0,
	   "a 0-length tag echoed");
	ok(v4_compound(fd, 0, 0, odd_tag, sizeof(odd_tag), 0, ops, 1, &s) && s.status == NFS4_OK &&
	   s.tag.len == sizeof(odd_tag) && !memcmp(s.tag.data, odd_tag, sizeof(odd_tag)),
	   "a non-UTF-8 tag echoed byte for byte");
	for (m = 3; m <= 4; m++)
		ok(v4_compound(fd, 0, 0, "mv", 2, m, ops, 1, &s) &&
		   s.status == NFS4ERR_MINOR_VERS_MISMATCH && s.nops == 0 && s.tag.len == 2,
		   "minor version %u: MINOR_VERS_MISMATCH, 0 results", m);
	/* 4.1 is served: PUTROOTFH alone is not in a session */
	ok(v4_compound(fd, 0, 0, "mv", 2, 1, ops, 1, &s) &&
	   s.status == NFS4ERR_OP_NOT_IN_SESSION && s.nops == 1 && s.tag.len == 2,
	   "minor version 1: PUTROOTFH without SEQUENCE is OP_NOT_IN_SESSION");
	ok(v4_compound(fd, 0, 0, "mv", 2, 2, ops, 1, &s) &&
	   s.status == NFS4ERR_OP_NOT_IN_SESSION && s.nops == 1 && s.tag.len == 2,
	   "minor version 2: PUTROOTFH without SEQUENCE is OP_NOT_IN_SESSION");

	{
		const uint32_t w1[] = { OP_PUTROOTFH, 99, OP_GETFH };
		const uint32_t w2[] = { OP_PUTROOTFH, OP_ILLEGAL, OP_GETFH };

		raw_args(&b, 3, w1, 3);
		ok(v4_compound_raw(fd, &b, &s) && s.status == NFS4ERR_OP_ILLEGAL && s.nops == 2 &&
		   v4_op_status(&s, 0) == NFS4_OK && s.ops[1].resop == OP_ILLEGAL &&
		   v4_op_status(&s, 1) == NFS4ERR_OP_ILLEGAL,
		   "op 99 after PUTROOTFH: OP_ILLEGAL, 2 results, the second OP_ILLEGAL");
		if (s.status != NFS4ERR_OP_ILLEGAL)
			v4_diag(&s);
		raw_args(&b, 3, w2, 3);
		ok(v4_compound_raw(fd, &b, &s) && s.status == NFS4ERR_OP_ILLEGAL && s.nops == 2 &&
		   s.ops[1].resop == OP_ILLEGAL && v4_op_status(&s, 1) == NFS4ERR_OP_ILLEGAL,
		   "OP_ILLEGAL itself: likewise");
	}
	v4op_simple(&ops[0], OP_PUTROOTFH);
	v4op_simple(&ops[1], OP_DELEGPURGE);
	v4op_simple(&ops[2], OP_GETFH);
	ok(expect(&s, ops, 3, NFS4ERR_NOTSUPP, 2) && s.ops[1].resop == OP_DELEGPURGE,
	   "DELEGPURGE (not written yet): NOTSUPP and the COMPOUND stops there");
	v4op_simple(&ops[1], OP_OPENATTR);
	ok(expect(&s, ops, 3, NFS4ERR_NOTSUPP, 2) && s.ops[1].resop == OP_OPENATTR,
	   "OPENATTR (named attributes are not served): NOTSUPP and the COMPOUND stops there");
	ok(expect(&s, ops, 0, NFS4_OK, 0), "0 operations: OK, 0 results");

	{
		/* LOOKUP whose name says 100 bytes, 4 sent */
		const uint32_t w[] = { OP_PUTROOTFH, OP_LOOKUP, 100, 0x61626364 };

		raw_args(&b, 2, w, 4);
		ok(v4_compound_raw(fd, &b, &s) && s.status == NFS4ERR_BADXDR && s.nops == 2 &&
		   s.ops[1].resop == OP_LOOKUP && v4_op_status(&s, 1) == NFS4ERR_BADXDR,
		   "a truncated last operation: BADXDR");
		if (s.status != NFS4ERR_BADXDR)
			v4_diag(&s);
	}
	{
		const uint32_t w[] = { OP_PUTROOTFH };

		raw_args(&b, 100, w, 1);
		ok(!v4_compound_raw(fd, &b, &s) && s.rc == 1 &&
		   s.r.reply_stat == RPC_MSG_ACCEPTED && s.r.accept_stat == RPC_GARBAGE_ARGS,
		   "numops 100 with one operation's bytes: GARBAGE_ARGS");
	}
	many = calloc(1000, sizeof(*many));
	for (i = 0; i < 1000; i++)
		v4op_simple(&many[i], OP_PUTROOTFH);
	all = v4_call(fd, many, 1000, &s) && s.status == NFS4_OK && s.nops == 1000;
	for (i = 0; all && i < 1000; i++)
		all = s.ops[i].resop == OP_PUTROOTFH && v4_op_status(&s, i) == NFS4_OK;
	if (!ok(all, "1000 PUTROOTFH in one COMPOUND: 1000 OK results"))
		v4_diag(&s);
	free(many);
	{
		/* 30000 GETATTRs of every attribute (600 KB asked): their
		 * answers would pass the record limit (1 MiB + 4 KiB) */
		uint32_t w[3] = { 0xffffffffu, 0xffffffffu, 0xffffffffu };

		/* but the write-only ones, which GETATTR refuses */
		w[1] &= ~(1u << (FATTR4_TIME_ACCESS_SET - 32) | 1u << (FATTR4_TIME_MODIFY_SET - 32));
		w[2] = 0;

		many = calloc(30000, sizeof(*many));
		v4op_simple(&many[0], OP_PUTROOTFH);
		for (i = 1; i < 30000; i++)
			v4op_getattr(&many[i], w, 3);
		all = v4_call(fd, many, 30000, &s);
		ok(all && s.status == NFS4ERR_RESOURCE && s.nops > 1 && s.nops < 30000 &&
		   s.ops[s.nops - 1].resop == OP_GETATTR &&
		   v4_op_status(&s, s.nops - 1) == NFS4ERR_RESOURCE &&
		   s.store.len <= 1048576u + 4096u,   /* nfsxd's default --max-record */
		   "a COMPOUND whose reply would outgrow the record limit: RESOURCE at the result "
		   "that would (%u results, %zu bytes)", s.nops, (size_t)s.store.len);
		free(many);
	}
	v4op_simple(&ops[0], OP_PUTROOTFH);
	ok(expect(&s, ops, 1, NFS4_OK, 1), "the server answers after that");
	rpc_buf_free(&b);
	v4_res_free(&s);
}

static void test_getattr(void)
{
	struct nfs_argop4 ops[3];
	struct v4_res s;
	struct v4_attrs a;
	struct stat st;
	uint32_t w[4], nw;
	char own[32], grp[32];
	bool got;
	uint8_t vals[8];
	uint64_t sz;
	int i;

	v4_res_init(&s);
	nw = v4_bits(w, FATTR4_SUPPORTED_ATTRS, -1);
	got = getattr_fh(&fh_f, w, nw, &a);
	ok(got &&
	   (a.supp[0] & 0x00080fffu) == 0x00080fffu,
	   "supported_attrs has the 4.0 mandatory attributes 0-11 and 19 (word0 %#x)", a.supp[0]);

	ok(chmod(path_of("a/exp1/f"), 0640) == 0 && stat(path_of("a/exp1/f"), &st) == 0, "stat exp1/f");
	nw = v4_bits(w, FATTR4_TYPE, FATTR4_CHANGE, FATTR4_SIZE, FATTR4_FILEID, FATTR4_MODE,
		     FATTR4_NUMLINKS, FATTR4_OWNER, FATTR4_OWNER_GROUP, FATTR4_TIME_MODIFY,
		     FATTR4_FILEHANDLE, FATTR4_FSID, -1);
	snprintf(own, sizeof(own), "%u", (unsigned)st.st_uid);
	snprintf(grp, sizeof(grp), "%u", (unsigned)st.st_gid);
	ok(getattr_fh(&fh_f, w, nw, &a), "GETATTR of exp1/f decodes");
	ok(a.type == NF4REG, "type NF4REG");
	ok(a.size == (uint64_t)st.st_size, "size %llu", (unsigned long long)a.size);
	ok(a.fileid == (uint64_t)st.st_ino, "fileid is st_ino");
	ok(a.mode == (st.st_mode & 07777) && a.mode == 0640, "mode %o", a.mode);
	ok(a.numlinks == st.st_nlink, "numlinks %u", a.numlinks);
	ok(!strcmp(a.owner, own) && !strcmp(a.owner, "0") && !strcmp(a.owner_group, grp),
	   "owner \"%s\", owner_group \"%s\" (numbers)", a.owner, a.owner_group);
	ok(a.change == ((uint64_t)st.st_ctim.tv_sec << 32 | (uint64_t)st.st_ctim.tv_nsec),
	   "change is the ctime");
	ok(a.mtime.seconds == st.st_mtim.tv_sec && a.mtime.nseconds == st.st_mtim.tv_nsec,
	   "time_modify is the mtime");
	ok(fh_eq(&a.fh, &fh_f), "the filehandle attribute equals GETFH");
	ok(a.fsid.major != 0 || a.fsid.minor != 0, "an export's fsid is not the pseudo file system's");

	nw = v4_bits(w, FATTR4_TYPE, FATTR4_TIME_MODIFY_SET, -1);
	v4op_putfh(&ops[0], &fh_f);
	v4op_getattr(&ops[1], w, nw);
	ok(expect(&s, ops, 2, NFS4ERR_INVAL, 2), "GETATTR of time_modify_set: INVAL");
	nw = v4_bits(w, FATTR4_TYPE, 95, -1);
	w[3] = 0x10;
	v4op_getattr(&ops[1], w, 4);
	ok(expect(&s, ops, 2, NFS4_OK, 2) && v4_attrs_of_res(&s, 1, &a) &&
	   a.mask[0] == (1u << FATTR4_TYPE) && a.mask[1] == 0 && a.mask[2] == 0 &&
	   s.ops[1].u.opgetattr.u.resok4.obj_attributes.attrmask.len <= 3,
	   "bits the server does not know are left out of the answer");

	/* VERIFY/NVERIFY of size */
	sz = (uint64_t)st.st_size;
	for (i = 0; i < 2; i++) {
		uint64_t v = i ? sz + 1 : sz;
		int k;

		for (k = 0; k < 8; k++)
			vals[k] = (uint8_t)(v >> (56 - 8 * k));
		nw = v4_bits(w, FATTR4_SIZE, -1);
		v4op_verify(&ops[1], OP_VERIFY, w, nw, vals, 8);
		ok(expect(&s, ops, 2, i ? NFS4ERR_NOT_SAME : NFS4_OK, 2),
		   "VERIFY of %s size: %s", i ? "another" : "the same", i ? "NOT_SAME" : "OK");
		v4op_verify(&ops[1], OP_NVERIFY, w, nw, vals, 8);
		ok(expect(&s, ops, 2, i ? NFS4_OK : NFS4ERR_SAME, 2),
		   "NVERIFY of %s size: %s", i ? "another" : "the same", i ? "OK" : "SAME");
	}
	v4_res_free(&s);
}

static void test_access(void)
{
	const uint32_t six = ACCESS4_READ | ACCESS4_LOOKUP | ACCESS4_MODIFY | ACCESS4_EXTEND |
			     ACCESS4_DELETE | ACCESS4_EXECUTE;
	const uint32_t rw = ACCESS4_READ | ACCESS4_LOOKUP | ACCESS4_MODIFY | ACCESS4_EXTEND |
			    ACCESS4_DELETE;
	struct nfs_argop4 ops[2];
	struct v4_res s;
	struct ACCESS4resok *r;

	v4_res_init(&s);
	v4op_putfh(&ops[0], &fh_d);
	v4op_access(&ops[1], rw);
	ok(expect(&s, ops, 2, NFS4_OK, 2) &&
	   (r = &s.ops[1].u.opaccess.u.resok4)->access == rw && r->supported == rw,
	   "ACCESS as root on a rw export's directory: read/lookup/modify/extend/delete");
	v4op_putfh(&ops[0], &fh_e2);
	v4op_access(&ops[1], rw);
	ok(expect(&s, ops, 2, NFS4_OK, 2) &&
	   !((r = &s.ops[1].u.opaccess.u.resok4)->access & (ACCESS4_MODIFY | ACCESS4_EXTEND |
							   ACCESS4_DELETE)) &&
	   (r->access & (ACCESS4_READ | ACCESS4_LOOKUP)) == (ACCESS4_READ | ACCESS4_LOOKUP),
	   "ACCESS on the ro export: read and lookup, not modify/extend/delete");
	v4op_putfh(&ops[0], &fh_a);
	v4op_access(&ops[1], six);
	ok(expect(&s, ops, 2, NFS4_OK, 2) &&
	   (r = &s.ops[1].u.opaccess.u.resok4)->access == (ACCESS4_READ | ACCESS4_LOOKUP) &&
	   r->supported == (six & ~(uint32_t)ACCESS4_EXECUTE),
	   "ACCESS on a pseudo directory: READ|LOOKUP only, EXECUTE not supported on a "
	   "directory (knfsd)");
	v4op_putfh(&ops[0], &fh_f);
	v4op_access(&ops[1], ACCESS4_READ | ACCESS4_XAREAD | ACCESS4_XAWRITE | ACCESS4_XALIST);
	ok(expect(&s, ops, 2, NFS4_OK, 2) &&
	   s.ops[1].u.opaccess.u.resok4.supported == ACCESS4_READ,
	   "supported is what was asked without the xattr bits");
	v4op_putfh(&ops[0], &fh_f);
	v4op_access(&ops[1], six);
	ok(expect(&s, ops, 2, NFS4_OK, 2) &&
	   s.ops[1].u.opaccess.u.resok4.supported ==
	   (ACCESS4_READ | ACCESS4_MODIFY | ACCESS4_EXTEND | ACCESS4_EXECUTE),
	   "ACCESS of all six on a regular file: LOOKUP and DELETE not supported there (knfsd)");
	v4_res_free(&s);
}

static void test_readdir(void)
{
	struct nfs_argop4 ops[2];
	struct v4_res s;
	struct listing l = { 0 };
	struct v4_fh big, churn;
	uint32_t w[3], nw, i;
	bool each = true, attrs = true;
	int started[2];
	pid_t pid;

	v4_res_init(&s);
	ok(v4_walk(fd, path_of("a/exp1/big"), &big) == NFS4_OK, "LOOKUP exp1/big");
	ok(list_dir(&big, 1024, &l) == NFS4_OK, "READDIR of 1000 files, maxcount 1024, to eof");
	for (i = 0; i < 1000; i++) {
		char n[32];

		snprintf(n, sizeof(n), "file%04u", i);
		if (count_name(&l, n) != 1)
			each = false;
	}
	ok(each && l.n == 1000, "every name exactly once (%u entries in %u calls)", l.n, l.calls);
	ok(l.calls > 10, "listed in pieces (%u calls)", l.calls);
	ok(!l.dots, "no \".\" or \"..\"");
	ok(!l.bad_cookie, "no cookie 0, 1 or 2");
	ok(!l.eof_early, "no empty reply without eof");
	for (i = 0; i < l.n; i++) {
		struct stat st;
		char p[64];

		snprintf(p, sizeof(p), "a/exp1/big/%s", l.names[i]);
		if (stat(path_of(p), &st) || st.st_ino != l.fileid[i] || l.type[i] != NF4REG ||
		    l.mofid[i] != st.st_ino)
			attrs = false;
	}
	ok(attrs && !l.attrs_bad, "each entry's type, fileid and mounted_on_fileid match stat");
	listing_free(&l);

	nw = v4_bits(w, FATTR4_TYPE, -1);
	v4op_putfh(&ops[0], &big);
	v4op_readdir(&ops[1], 1, 8192, w, nw);
	ok(expect(&s, ops, 2, NFS4ERR_BAD_COOKIE, 2), "cookie 1: BAD_COOKIE");
	v4op_readdir(&ops[1], 2, 8192, w, nw);
	ok(expect(&s, ops, 2, NFS4ERR_BAD_COOKIE, 2), "cookie 2: BAD_COOKIE");
	v4op_readdir(&ops[1], 0, 16, w, nw);
	ok(expect(&s, ops, 2, NFS4ERR_TOOSMALL, 2), "maxcount too small for one entry: TOOSMALL");
	v4op_putfh(&ops[0], &fh_f);
	v4op_readdir(&ops[1], 0, 8192, w, nw);
	ok(expect(&s, ops, 2, NFS4ERR_NOTDIR, 2), "READDIR of a file: NOTDIR");
	{
		/* the last call of a listing: entries and eof together, or an
		 * empty eof reply; never eof before the end */
		v4op_putfh(&ops[0], &fh_d);
		v4op_readdir(&ops[1], 0, 8192, w, nw);
		ok(expect(&s, ops, 2, NFS4_OK, 2) &&
		   s.ops[1].u.opreaddir.u.resok4.reply.entries == NULL &&
		   s.ops[1].u.opreaddir.u.resok4.reply.eof,
		   "READDIR of an empty directory: no entry, eof");
	}

	/* churn: files keep%03u exist throughout, tmp%03u come and go */
	ok(v4_walk(fd, path_of("a/exp1/churn"), &churn) == NFS4_OK, "LOOKUP exp1/churn");
	/* the listings start once the churn has: on a loaded machine the
	 * child may otherwise not run at all during ten quick listings */
	if (pipe(started)) {
		perror("pipe");
		exit(1);
	}
	pid = fork();
	if (pid == 0) {
		char p[1100];
		int k, r;

		close(started[0]);
		/* until the parent kills it */
		for (r = 0;; r++)
			for (k = 0; k < 300; k++) {
				snprintf(p, sizeof(p), "%s/a/exp1/churn/tmp%03d", base, k);
				if (r % 2 == 0)
					close(open(p, O_CREAT | O_WRONLY, 0644));
				else
					unlink(p);
				if (r == 0 && k == 0 && (write(started[1], "x", 1) != 1 ||
							 close(started[1])))
					_exit(1);
			}
		_exit(0);
	}
	close(started[1]);
	{
		int rounds, bad = 0, st, tmps = 0;
		char c;

		if (pid < 0 || read(started[0], &c, 1) != 1)
			bad++;
		close(started[0]);
		/* ten listings, and more (a bounded number) until one has met
		 * a passing file: the check that the churn was seen at all */
		for (rounds = 0; rounds < 10 || (tmps == 0 && rounds < 500); rounds++) {
			if (list_dir(&churn, 1024, &l) != NFS4_OK) {
				bad++;
				continue;
			}
			for (i = 0; i < l.n; i++)
				tmps += !strncmp(l.names[i], "tmp", 3);
			for (i = 0; i < 300; i++) {
				char n[32];

				snprintf(n, sizeof(n), "keep%03u", i);
				if (count_name(&l, n) != 1)
					bad++;
			}
			for (i = 0; i < l.n; i++)
				if (count_name(&l, l.names[i]) != 1)
					bad++;
			listing_free(&l);
		}
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		ok(bad == 0 && tmps > 0,
		   "listings while files are created and removed: each lasting file once, "
		   "no name twice (%d listings, %d faults, %d passing files seen)", rounds, bad,
		   tmps);
	}
	v4_res_free(&s);
}

/* ---- READDIR's file system attributes ---------------------------------- */

enum { NSF = 6 };

static const char *const sf_name[NSF] = {
	"files_avail", "files_free", "files_total", "space_avail", "space_free", "space_total",
};

/* The six in the order of their attribute numbers, as sf_name. */
static uint32_t sf_bits(uint32_t w[3])
{
	return v4_bits(w, FATTR4_FILES_AVAIL, FATTR4_FILES_FREE, FATTR4_FILES_TOTAL,
		       FATTR4_SPACE_AVAIL, FATTR4_SPACE_FREE, FATTR4_SPACE_TOTAL, -1);
}

/* What nfsxd should say: statvfs(3) of the server's directory @rel. */
static bool sf_statvfs(const char *rel, uint64_t v[NSF])
{
	struct statvfs sv;

	if (statvfs(path_of(rel), &sv) < 0)
		return false;
	v[0] = sv.f_favail;
	v[1] = sv.f_ffree;
	v[2] = sv.f_files;
	v[3] = (uint64_t)sv.f_bavail * sv.f_frsize;
	v[4] = (uint64_t)sv.f_bfree * sv.f_frsize;
	v[5] = (uint64_t)sv.f_blocks * sv.f_frsize;
	return true;
}

/* The six from @f, which must hold exactly the attributes @w asks. */
static bool sf_fattr(const struct fattr4 *f, const uint32_t w[3], uint64_t v[NSF])
{
	uint32_t i;

	for (i = 0; i < 3 || i < f->attrmask.len; i++)
		if ((i < f->attrmask.len ? f->attrmask.val[i] : 0) != (i < 3 ? w[i] : 0))
			return false;
	return v4_attrs_u64s(f, v, NSF);
}

static bool sf_getattr(const struct v4_fh *fh, uint32_t w[3], uint32_t nw, uint64_t v[NSF])
{
	struct v4_res s;
	const struct fattr4 *f;
	bool r;

	v4_res_init(&s);
	f = getattr_in(fh, w, nw, &s);
	r = f && sf_fattr(f, w, v);
	v4_res_free(&s);
	return r;
}

static bool sf_readdir(const struct v4_fh *dir, const char *name, uint32_t w[3], uint32_t nw,
		       uint64_t v[NSF])
{
	const struct entry4 *e;
	struct v4_res s;
	bool r;

	v4_res_init(&s);
	r = v4_readdir_find(fd, dir, w, nw, name, &s, &e) == 1 && sf_fattr(&e->attrs, w, v);
	v4_res_free(&s);
	return r;
}

/*
 * READDIR of @dir asking for the six, the entry @name (@obj), against
 * GETATTR of @obj and statvfs of the file system (@rel). Other work on
 * the machine may change the free counts at any moment, so the three are
 * read between two statvfs and two GETATTRs, again until those agree (the
 * file system did not change meanwhile); then all must be equal.
 */
static void sf_check(const char *what, const struct v4_fh *dir, const char *name,
		     const struct v4_fh *obj, const char *rel)
{
	uint64_t pre[NSF], g1[NSF], rd[NSF], g2[NSF], post[NSF];
	uint32_t w[3], nw = sf_bits(w), i;
	bool got = false, still = false, same = true;
	int tries;

	for (tries = 0; tries < 200 && !still; tries++) {
		got = sf_statvfs(rel, pre) && sf_getattr(obj, w, nw, g1) &&
		      sf_readdir(dir, name, w, nw, rd) && sf_getattr(obj, w, nw, g2) &&
		      sf_statvfs(rel, post);
		if (!got)
			break;
		still = !memcmp(pre, post, sizeof(pre)) && !memcmp(g1, g2, sizeof(g1));
	}
	ok(got, "%s: READDIR's entry %s carries the six file system attributes asked, and "
	   "nothing else; GETATTR too", what, name);
	if (!got)
		return;
	if (still) {
		for (i = 0; i < NSF; i++)
			if (rd[i] != g1[i] || g1[i] != pre[i]) {
				printf("#   %s: READDIR %llu, GETATTR %llu, statvfs %llu\n", sf_name[i],
				       (unsigned long long)rd[i], (unsigned long long)g1[i],
				       (unsigned long long)pre[i]);
				same = false;
			}
		ok(same, "%s: each equal to GETATTR's and to statvfs's of the export (%d tries "
		   "to find the file system still)", what, tries);
	} else {
		/* never still: the totals exactly, the rest within 1% */
		for (i = 0; i < NSF; i++) {
			uint64_t tol = i < 3 ? pre[2] / 100 : pre[5] / 100;
			uint64_t d1 = rd[i] > g1[i] ? rd[i] - g1[i] : g1[i] - rd[i];
			uint64_t d2 = rd[i] > pre[i] ? rd[i] - pre[i] : pre[i] - rd[i];

			if ((i == 2 || i == 5) ? rd[i] != pre[i] || rd[i] != g1[i] :
			    d1 > tol || d2 > tol)
				same = false;
		}
		ok(same, "%s: the file system never kept still over %d tries: totals equal, free "
		   "and available counts within 1%% of GETATTR's and statvfs's", what, tries);
	}
}

static void test_readdir_statfs(void)
{
	sf_check("READDIR of exp1", &fh_e1, "f", &fh_f, "a/exp1");
	sf_check("READDIR of the pseudo directory a", &fh_a, "exp1", &fh_e1, "a/exp1");
}

/* The server on PORT0 exports exp1 with fsid=0: it is the root. */
/* SECINFO (RFC 7530 16.31): the flavors of a name; the current
 * filehandle stays (minor version 0). */
static void secinfo_op(struct nfs_argop4 *a, const char *name)
{
	v4op_simple(a, OP_SECINFO);
	a->u.opsecinfo.name.data = (const uint8_t *)name;
	a->u.opsecinfo.name.len = (uint32_t)strlen(name);
}

static void test_secinfo(void)
{
	struct nfs_argop4 ops[3];
	struct v4_res s;
	struct v4_fh y;
	const SECINFO4resok *k;

	v4_res_init(&s);
	v4op_putfh(&ops[0], &fh_a);
	secinfo_op(&ops[1], "exp1");
	v4op_simple(&ops[2], OP_GETFH);
	ok(expect(&s, ops, 3, NFS4_OK, 3) && s.ops[1].resop == OP_SECINFO &&
	   (k = &s.ops[1].u.opsecinfo.u.resok4, k->len == 2 && k->val[0].flavor == 1 &&
	    k->val[1].flavor == 0) &&
	   v4_fh_of_res(&s, 2, &y) && fh_eq(&y, &fh_a),
	   "SECINFO of an export in a pseudo directory (no sec=): AUTH_SYS, AUTH_NONE as knfsd, the current filehandle kept");
	v4_res_free(&s);
	v4_res_init(&s);
	v4op_putfh(&ops[0], &fh_e1);
	secinfo_op(&ops[1], "f");
	ok(expect(&s, ops, 2, NFS4_OK, 2) && s.ops[1].u.opsecinfo.u.resok4.len == 2 &&
	   s.ops[1].u.opsecinfo.u.resok4.val[0].flavor == 1,
	   "SECINFO of a file in an export: its export's flavours");
	v4_res_free(&s);
	secinfo_op(&ops[1], "nope");
	ok(on_fh(&fh_a, &ops[1]) == NFS4ERR_NOENT, "SECINFO of a missing name: NOENT");
	secinfo_op(&ops[1], "");
	ok(on_fh(&fh_e1, &ops[1]) == NFS4ERR_INVAL, "SECINFO of the empty name: INVAL");
	secinfo_op(&ops[1], "x");
	ok(on_fh(&fh_f, &ops[1]) == NFS4ERR_NOTDIR, "SECINFO in a file: NOTDIR");
}

static void test_fsid0(uint16_t port0)
{
	struct nfs_argop4 ops[3];
	struct v4_res s;
	struct v4_attrs a;
	struct stat st;
	uint32_t w[3], nw = v4_bits(w, FATTR4_TYPE, FATTR4_FILEID, -1);
	int fd0 = rpc_connect(port0, 5000), save = fd;

	v4_res_init(&s);
	if (!ok(fd0 >= 0, "connect to the fsid=0 server"))
		return;
	fd = fd0;
	v4op_simple(&ops[0], OP_PUTROOTFH);
	v4op_getattr(&ops[1], w, nw);
	ok(stat(path_of("a/exp1"), &st) == 0 && expect(&s, ops, 2, NFS4_OK, 2) &&
	   v4_attrs_of_res(&s, 1, &a) && a.type == NF4DIR && a.fileid == (uint64_t)st.st_ino,
	   "with an fsid=0 export, PUTROOTFH is that export's root (fileid is its inode)");
	v4op_lookup(&ops[1], "f");
	v4op_simple(&ops[2], OP_GETFH);
	ok(expect(&s, ops, 3, NFS4_OK, 3), "LOOKUP f from that root");
	v4op_simple(&ops[1], OP_LOOKUPP);
	ok(expect(&s, ops, 2, NFS4ERR_NOENT, 2), "LOOKUPP at that root: NOENT");
	v4_res_free(&s);
	close(fd0);
	fd = save;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s PORT PORT0 BASE\n", argv[0]);
		return 2;
	}
	base = argv[3];
	fd = rpc_connect((uint16_t)atoi(argv[1]), 5000);
	if (fd < 0) {
		printf("Bail out! cannot connect\n");
		return 1;
	}
	test_pseudo();
	test_fh_rules();
	test_compound();
	test_getattr();
	test_access();
	test_readdir();
	test_readdir_statfs();
	test_secinfo();
	test_fsid0((uint16_t)atoi(argv[2]));
	close(fd);
	return tap_done();
}
