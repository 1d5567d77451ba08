// SPDX-License-Identifier: MIT
/*
 * NFSv4.2's extended attributes (RFC 8276), CLONE and COPY (RFC 7862
 * 15.13, 15.2) on the wire, in COMPOUNDs of minor version 2, against a
 * tmpfs export and an ext4 (the scratch directory's file system) one:
 * - GETXATTR, SETXATTR (EITHER, CREATE on an existing name: EXIST,
 *   REPLACE of an absent one: NOXATTR), LISTXATTRS (whole, paged one
 *   name a call with a tiny maxcount, TOOSMALL, BAD_COOKIE),
 *   REMOVEXATTR; the longest name (250 bytes: 255 with "user.", Linux's
 *   XATTR_NAME_MAX) and one more (NAMETOOLONG), a 64 KiB value and one
 *   byte more (XATTR2BIG); change_info4 moving and matching GETATTR's
 *   change; write access needed to set; xattr_support; every value read
 *   back on the exported file with getxattr(2) as user.NAME, and a
 *   trusted.* one set there never listed;
 * - CLONE on tmpfs and ext4: NOTSUPP (neither shares blocks);
 * - COPY of a whole file, of a range into the middle of another, with
 *   count 0 (to the source's end), past the source's end (INVAL), from
 *   another server (NOTSUPP), within one file, between two exports, the
 *   destination's bytes compared to the source read directly;
 * - asynchronous COPY: a copy stateid, CB_OFFLOAD on B's back channel
 *   (read by hand, not with the server's codec), OFFLOAD_STATUS; a
 *   256 MiB copy seen running, cancelled midway (OFFLOAD_CANCEL: no
 *   CB_OFFLOAD, the file short, the stateid gone); one left running
 *   when the server stops;
 * - a SETXATTR and a COPY by client B recall client S's read delegation
 *   of the file they change (DELAY, then CB_RECALL on S's back channel,
 *   then OK once S returned it).
 *
 * Usage: test_nfs4_v42xc PORT TMPFS_DIR EXT_DIR
 * (run-nfs4-v42xc.sh: both exported rw,no_root_squash to 127.0.0.1,
 * holding the files named below.)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "nfs4_state_raw.h"
#include "tap.h"

#define CB_PROG 0x40000002u
#define OP_CB_SEQUENCE_NUM 11
#define OP_CB_RECALL_NUM 4
#define SRC_LEN 100000u

static uint16_t port;
static const char *dirs[2];
static const char *fsname[2] = { "tmpfs", "ext4" };
static struct v4_fh dirfh[2];
static uint8_t srcdata[SRC_LEN];

/* A 4.2 client on its own connection, its back channel too. */
struct cl {
	int fd;
	uint32_t uid;
	struct v4_session ses;
	struct rpc_buf cbq[4];  /* calls that came amid replies */
	int ncbq;
};

static struct cl B = { .fd = -1 }, S = { .fd = -1 };

/* COMPOUND (minor version 2, AUTH_SYS k->uid) @ops on k's connection;
 * calls nfsxd sends before the reply are kept. Return values: as
 * v4_compound(). */
static void k_keep(void *arg, const struct rpc_buf *rec)
{
	struct cl *k = arg;

	if (k->ncbq < 4) {
		rpc_buf_init(&k->cbq[k->ncbq]);
		rpc_buf_put_bytes(&k->cbq[k->ncbq++], rec->data, rec->len);
	}
}

static bool k_call(struct cl *k, const struct nfs_argop4 *ops, uint32_t n, struct v4_res *out)
{
	return v4_call_cb(k->fd, "t", 2, k->uid, ops, n, out, k_keep, k);
}

/* EXCHANGE_ID, CREATE_SESSION (a back channel on the connection, 1 MiB
 * replies), RECLAIM_COMPLETE, all of minor version 2. */
static bool k_open(struct cl *k, const char *owner)
{
	struct callback_sec_parms4 none = { .cb_secflavor = AUTH_NONE };
	struct nfs_argop4 ops[2];
	struct v4_res s;
	long st = -1;

	k->fd = rpc_connect(port, 5000);
	if (k->fd < 0)
		return ok(0, "connect");
	v4_res_init(&s);
	v4op_exchange_id(&ops[0], owner, 9, 0);
	if (k_call(k, ops, 1, &s) && s.status == NFS4_OK) {
		k->ses.clientid = s.ops[0].u.opexchange_id.u.eir_resok4.eir_clientid;
		k->ses.cs_seq = s.ops[0].u.opexchange_id.u.eir_resok4.eir_sequenceid;
		v4op_create_session(&ops[0], k->ses.clientid, k->ses.cs_seq,
				    CREATE_SESSION4_FLAG_CONN_BACK_CHAN, 1u << 20, 1u << 20, 4096, 8);
		ops[0].u.opcreate_session.csa_back_chan_attrs.ca_maxrequests = 1;
		ops[0].u.opcreate_session.csa_cb_program = CB_PROG;
		ops[0].u.opcreate_session.csa_sec_parms.len = 1;
		ops[0].u.opcreate_session.csa_sec_parms.val = &none;
		if (k_call(k, ops, 1, &s) && (st = s.status) == NFS4_OK) {
			k->ses.sid = s.ops[0].u.opcreate_session.u.csr_resok4.csr_sessionid;
			v4op_seq_next(&ops[0], &k->ses, 0, false);
			v4op_reclaim_complete(&ops[1], false);
			st = k_call(k, ops, 2, &s) ? (long)s.status : -1;
		}
	}
	v4_res_free(&s);
	return ok(st == NFS4_OK, "client %s: EXCHANGE_ID, CREATE_SESSION, RECLAIM_COMPLETE "
		  "at minor version 2 (%ld)", owner, st);
}

/*
 * SEQUENCE, PUTFH @fh, @ops[0..n-1] by @k: the status of the last
 * operation, or the COMPOUND's when it stopped before it; -1 on no reply.
 */
static long k_on(struct cl *k, const struct v4_fh *fh, const struct nfs_argop4 *ops, uint32_t n,
		 struct v4_res *s)
{
	struct nfs_argop4 all[8];
	uint32_t i;

	v4op_seq_next(&all[0], &k->ses, 0, false);
	v4op_putfh(&all[1], fh);
	for (i = 0; i < n; i++)
		all[2 + i] = ops[i];
	if (!k_call(k, all, n + 2, s))
		return -1;
	return s->nops == n + 2 ? v4_op_status(s, n + 1) : (long)s->status;
}

/* The handle of @name in export @d (B's LOOKUP). */
static bool fh_of(int d, const char *name, struct v4_fh *fh)
{
	struct nfs_argop4 ops[2];
	struct v4_res s;
	long st;

	v4op_lookup(&ops[0], name);
	v4op_simple(&ops[1], OP_GETFH);
	v4_res_init(&s);
	st = k_on(&B, &dirfh[d], ops, 2, &s);
	if (st == NFS4_OK)
		st = v4_fh_of_res(&s, 3, fh) ? NFS4_OK : -1;
	v4_res_free(&s);
	return st == NFS4_OK;
}

static const char *on_disk(int d, const char *name)
{
	return v4_path(dirs[d], name);
}

/* ---- xattrs ------------------------------------------------------------ */

static void op_setxattr(struct nfs_argop4 *a, enum setxattr_option4 how, const char *name,
			uint32_t nlen, const void *val, uint32_t vlen)
{
	v4op_simple(a, OP_SETXATTR);
	a->u.opsetxattr.sxa_option = how;
	a->u.opsetxattr.sxa_key.data = (const uint8_t *)name;
	a->u.opsetxattr.sxa_key.len = nlen;
	a->u.opsetxattr.sxa_value.data = val;
	a->u.opsetxattr.sxa_value.len = vlen;
}

/* SETXATTR @how of @name = @val (a string) on @fh by @k; its cinfo into @ci. */
static long setxa(struct cl *k, const struct v4_fh *fh, enum setxattr_option4 how,
		  const char *name, const void *val, uint32_t vlen, struct change_info4 *ci)
{
	struct nfs_argop4 op;
	struct v4_res s;
	long st;

	op_setxattr(&op, how, name, (uint32_t)strlen(name), val, vlen);
	v4_res_init(&s);
	st = k_on(k, fh, &op, 1, &s);
	if (st == NFS4_OK && ci)
		*ci = s.ops[2].u.opsetxattr.u.sxr_info;
	v4_res_free(&s);
	return st;
}

static long getxa(const struct v4_fh *fh, const char *name, uint8_t *buf, uint32_t cap,
		  uint32_t *len)
{
	struct nfs_argop4 op;
	struct v4_res s;
	long st;

	v4op_simple(&op, OP_GETXATTR);
	op.u.opgetxattr.gxa_name.data = (const uint8_t *)name;
	op.u.opgetxattr.gxa_name.len = (uint32_t)strlen(name);
	v4_res_init(&s);
	*len = 0;
	st = k_on(&B, fh, &op, 1, &s);
	if (st == NFS4_OK) {
		const xattrvalue4 *v = &s.ops[2].u.opgetxattr.u.gxr_value;

		*len = v->len;
		if (v->len <= cap)
			memcpy(buf, v->data, v->len);
	}
	v4_res_free(&s);
	return st;
}

static long removexa(struct cl *k, const struct v4_fh *fh, const char *name,
		     struct change_info4 *ci)
{
	struct nfs_argop4 op;
	struct v4_res s;
	long st;

	v4op_simple(&op, OP_REMOVEXATTR);
	op.u.opremovexattr.rxa_name.data = (const uint8_t *)name;
	op.u.opremovexattr.rxa_name.len = (uint32_t)strlen(name);
	v4_res_init(&s);
	st = k_on(k, fh, &op, 1, &s);
	if (st == NFS4_OK && ci)
		*ci = s.ops[2].u.opremovexattr.u.rxr_info;
	v4_res_free(&s);
	return st;
}

/* One LISTXATTRS: the names joined with ',' into @out, the cookie and eof. */
static long listxa(const struct v4_fh *fh, uint64_t cookie, uint32_t maxcount, char *out,
		   size_t cap, uint64_t *next, bool *eof, uint32_t *count)
{
	struct nfs_argop4 op;
	struct v4_res s;
	long st;

	v4op_simple(&op, OP_LISTXATTRS);
	op.u.oplistxattrs.lxa_cookie = cookie;
	op.u.oplistxattrs.lxa_maxcount = maxcount;
	v4_res_init(&s);
	st = k_on(&B, fh, &op, 1, &s);
	if (st == NFS4_OK) {
		const struct LISTXATTRS4resok *r = &s.ops[2].u.oplistxattrs.u.lxr_value;
		uint32_t i;

		*next = r->lxr_cookie;
		*eof = r->lxr_eof;
		*count = r->lxr_names.len;
		for (i = 0; i < r->lxr_names.len; i++) {
			size_t at = strlen(out);

			snprintf(out + at, cap - at, "%.*s,", (int)r->lxr_names.val[i].len,
				 (const char *)r->lxr_names.val[i].data);
		}
	}
	v4_res_free(&s);
	return st;
}

/* GETATTR change and xattr_support of @fh: -1 when it did not decode. */
static long attrs42(const struct v4_fh *fh, uint64_t *change, bool *xs)
{
	uint32_t w[3] = { 1u << FATTR4_CHANGE, 0, 1u << (FATTR4_XATTR_SUPPORT - 64) };
	struct nfs_argop4 op;
	struct v4_res s;
	long st;

	v4op_getattr(&op, w, 3);
	v4_res_init(&s);
	st = k_on(&B, fh, &op, 1, &s);
	if (st == NFS4_OK) {
		const struct fattr4 *f = &s.ops[2].u.opgetattr.u.resok4.obj_attributes;
		const uint8_t *p = f->attr_vals.data;

		if (f->attrmask.len < 3 || f->attrmask.val[0] != w[0] ||
		    f->attrmask.val[2] != w[2] || f->attr_vals.len != 12)
			st = -1;
		else {
			*change = (uint64_t)rpc_get_u32(p) << 32 | rpc_get_u32(p + 4);
			*xs = rpc_get_u32(p + 8) != 0;
		}
	}
	v4_res_free(&s);
	return st;
}

/* The user.@name of file @path read directly: its length, or -errno. */
static long disk_get(const char *path, const char *name, char *buf, size_t cap)
{
	char full[300];
	ssize_t n;

	snprintf(full, sizeof(full), "user.%s", name);
	n = getxattr(path, full, buf, cap);
	return n < 0 ? -errno : (long)n;
}

/* ACCESS of the three xattr bits of @fh by B: supported and access. */
static long xaccess(const struct v4_fh *fh, uint32_t *supp, uint32_t *acc)
{
	struct nfs_argop4 op;
	struct v4_res s;
	long st;

	v4op_access(&op, ACCESS4_XAREAD | ACCESS4_XAWRITE | ACCESS4_XALIST);
	v4_res_init(&s);
	*supp = *acc = 0;
	st = k_on(&B, fh, &op, 1, &s);
	if (st == NFS4_OK) {
		*supp = s.ops[2].u.opaccess.u.resok4.supported;
		*acc = s.ops[2].u.opaccess.u.resok4.access;
	}
	v4_res_free(&s);
	return st;
}

static void test_xattrs(int d)
{
	const char *fs = fsname[d];
	struct change_info4 ci, ci2;
	struct v4_fh fh, fl;
	char buf[256], name[260], list[2048];
	static uint8_t big[65537], back[65537];
	uint64_t ch0 = 0, ch1 = 0, next = 0;
	uint32_t len = 0, count = 0, maxv;
	bool xs = false, eof = false;
	long st;
	int i, n, seen;

	if (!ok(fh_of(d, "xa", &fh) && fh_of(d, "xl", &fl), "%s: LOOKUP xa, xl", fs))
		return;
	st = attrs42(&fh, &ch0, &xs);
	ok(st == NFS4_OK && xs, "%s: GETATTR xattr_support of a file: true (%ld)", fs, st);
	st = getxa(&fh, "a", (uint8_t *)buf, sizeof(buf), &len);
	ok(st == NFS4ERR_NOXATTR, "%s: GETXATTR of an absent name: NOXATTR (%ld)", fs, st);
	st = setxa(&B, &fh, SETXATTR4_EITHER, "a", "hello", 5, &ci);
	ok(st == NFS4_OK, "%s: SETXATTR4_EITHER a=hello: OK (%ld)", fs, st);
	st = attrs42(&fh, &ch1, &xs);
	ok(st == NFS4_OK && ci.before != ci.after && ci.after == ch1 && ch1 != ch0,
	   "%s: its change_info4 moved (%#llx -> %#llx) and after is GETATTR's change (%#llx, "
	   "was %#llx)", fs, (unsigned long long)ci.before, (unsigned long long)ci.after,
	   (unsigned long long)ch1, (unsigned long long)ch0);
	memset(buf, 0, sizeof(buf));
	st = disk_get(on_disk(d, "xa"), "a", buf, sizeof(buf));
	ok(st == 5 && !memcmp(buf, "hello", 5), "%s: getxattr(2) of user.a on the file: hello "
	   "(%ld)", fs, st);
	memset(buf, 0, sizeof(buf));
	st = getxa(&fh, "a", (uint8_t *)buf, sizeof(buf), &len);
	ok(st == NFS4_OK && len == 5 && !memcmp(buf, "hello", 5),
	   "%s: GETXATTR a: hello (%ld, %u bytes)", fs, st, len);
	st = setxa(&B, &fh, SETXATTR4_CREATE, "a", "x", 1, NULL);
	ok(st == NFS4ERR_EXIST, "%s: SETXATTR4_CREATE of an existing name: EXIST (%ld)", fs, st);
	st = setxa(&B, &fh, SETXATTR4_REPLACE, "nope", "x", 1, NULL);
	ok(st == NFS4ERR_NOXATTR, "%s: SETXATTR4_REPLACE of an absent name: NOXATTR (%ld)", fs,
	   st);
	st = disk_get(on_disk(d, "xa"), "nope", buf, sizeof(buf));
	ok(st == -ENODATA, "%s: ... and user.nope is not on the file (%ld)", fs, st);
	st = setxa(&B, &fh, SETXATTR4_REPLACE, "a", "world", 5, NULL);
	memset(buf, 0, sizeof(buf));
	ok(st == NFS4_OK && disk_get(on_disk(d, "xa"), "a", buf, sizeof(buf)) == 5 &&
	   !memcmp(buf, "world", 5), "%s: SETXATTR4_REPLACE a=world: OK, on the file (%ld)", fs,
	   st);
	st = setxa(&B, &fh, SETXATTR4_CREATE, "b", "", 0, NULL);
	ok(st == NFS4_OK && disk_get(on_disk(d, "xa"), "b", buf, sizeof(buf)) == 0,
	   "%s: SETXATTR4_CREATE b (empty value): OK, on the file (%ld)", fs, st);
	/* the longest name Linux holds: 250 + "user." = XATTR_NAME_MAX */
	memset(name, 'n', 250);
	name[250] = '\0';
	st = setxa(&B, &fh, SETXATTR4_EITHER, name, "long", 4, NULL);
	ok(st == NFS4_OK && disk_get(on_disk(d, "xa"), name, buf, sizeof(buf)) == 4,
	   "%s: SETXATTR of a 250-byte name: OK, user.<250 n> on the file (%ld)", fs, st);
	st = getxa(&fh, name, (uint8_t *)buf, sizeof(buf), &len);
	ok(st == NFS4_OK && len == 4 && !memcmp(buf, "long", 4),
	   "%s: GETXATTR of it: long (%ld)", fs, st);
	name[250] = 'n';
	name[251] = '\0';
	st = setxa(&B, &fh, SETXATTR4_EITHER, name, "x", 1, NULL);
	ok(st == NFS4ERR_NAMETOOLONG, "%s: SETXATTR of a 251-byte name: NAMETOOLONG (%ld)", fs,
	   st);
	st = setxa(&B, &fh, SETXATTR4_EITHER, "", "x", 1, NULL);
	ok(st == NFS4ERR_INVAL, "%s: SETXATTR of an empty name: INVAL (%ld)", fs, st);
	/* values: 64 KiB on tmpfs; ext4 holds one block's worth */
	maxv = d == 0 ? 65536 : 1000;
	for (i = 0; i < 65537; i++)
		big[i] = (uint8_t)(i * 7 + 3);
	st = setxa(&B, &fh, SETXATTR4_EITHER, "big", big, maxv, NULL);
	ok(st == NFS4_OK, "%s: SETXATTR of a %u-byte value: OK (%ld)", fs, maxv, st);
	st = getxa(&fh, "big", back, sizeof(back), &len);
	ok(st == NFS4_OK && len == maxv && !memcmp(back, big, maxv),
	   "%s: GETXATTR of it: the same %u bytes (%ld, %u)", fs, maxv, st, len);
	st = disk_get(on_disk(d, "xa"), "big", (char *)back, sizeof(back));
	ok(st == (long)maxv && !memcmp(back, big, maxv), "%s: ... and on the file (%ld)", fs, st);
	st = setxa(&B, &fh, SETXATTR4_EITHER, "big2", big, 65537, NULL);
	ok(st == NFS4ERR_XATTR2BIG, "%s: SETXATTR of 65537 bytes: XATTR2BIG (%ld)", fs, st);
	/* a name of another namespace, set on the file: never listed */
	ok(setxattr(on_disk(d, "xa"), "trusted.hidden", "t", 1, 0) == 0,
	   "%s: trusted.hidden set on the file directly", fs);
	list[0] = '\0';
	st = listxa(&fh, 0, 65536, list, sizeof(list), &next, &eof, &count);
	ok(st == NFS4_OK && eof && count == 4 &&
	   (strncmp(list, "a,", 2) == 0 || strstr(list, ",a,") != NULL),
	   "%s: LISTXATTRS from 0: 4 names, a among them, eof (%ld, %u)", fs, st, count);
	ok(strstr(list, "b,") && strstr(list, "big,") && strstr(list, "nnnnn") &&
	   !strstr(list, "hidden") && !strstr(list, "user."),
	   "%s: ... a, b, big and the long name, no prefix, not trusted.hidden", fs);
	/* paging: xl holds x0..x4; 8 + 4 + (4 + 4) + 4 bytes fit one name */
	list[0] = '\0';
	next = 0;
	eof = false;
	for (n = 0; n < 10 && !eof; n++) {
		uint64_t at = next;

		st = listxa(&fl, at, 24, list, sizeof(list), &next, &eof, &count);
		if (st != NFS4_OK || count != 1 || next != at + 1)
			break;
	}
	for (seen = 0, i = 0; i < 5; i++) {
		char want[8];

		snprintf(want, sizeof(want), "x%d,", i);
		seen += strstr(list, want) != NULL;
	}
	ok(st == NFS4_OK && eof && n == 5 && seen == 5 && strlen(list) == 15,
	   "%s: LISTXATTRS with maxcount 24: one name a call, cookies 1..5, eof on the 5th, "
	   "each of x0..x4 once (%ld, %d calls, %s)", fs, st, n, list);
	st = listxa(&fl, 0, 20, list, sizeof(list), &next, &eof, &count);
	ok(st == NFS4ERR_TOOSMALL, "%s: LISTXATTRS with maxcount 20 (no name fits): TOOSMALL "
	   "(%ld)", fs, st);
	st = listxa(&fl, 5, 16, list, sizeof(list), &next, &eof, &count);
	ok(st == NFS4_OK && eof && count == 0, "%s: LISTXATTRS at the end (cookie 5): none, "
	   "eof (%ld)", fs, st);
	st = listxa(&fl, 6, 4096, list, sizeof(list), &next, &eof, &count);
	ok(st == NFS4ERR_BAD_COOKIE, "%s: LISTXATTRS past the end: BAD_COOKIE (%ld)", fs, st);
	/* removal */
	st = removexa(&B, &fh, "a", &ci2);
	ok(st == NFS4_OK && ci2.before != ci2.after,
	   "%s: REMOVEXATTR a: OK, change_info4 moved (%ld)", fs, st);
	st = disk_get(on_disk(d, "xa"), "a", buf, sizeof(buf));
	ok(st == -ENODATA, "%s: ... user.a gone from the file (%ld)", fs, st);
	st = removexa(&B, &fh, "a", NULL);
	ok(st == NFS4ERR_NOXATTR, "%s: REMOVEXATTR a again: NOXATTR (%ld)", fs, st);
	/* access: uid 4242 may read xa (0644) but not change it */
	{
		const uint32_t all = ACCESS4_XAREAD | ACCESS4_XAWRITE | ACCESS4_XALIST;
		uint32_t supp, acc;

		st = xaccess(&fh, &supp, &acc);
		ok(st == NFS4_OK && supp == all && acc == all,
		   "%s: ACCESS of XAREAD, XAWRITE, XALIST as root: all supported and allowed "
		   "(%ld, %#x, %#x)", fs, st, supp, acc);
		B.uid = 4242;
		st = xaccess(&fh, &supp, &acc);
		ok(st == NFS4_OK && supp == all && acc == (ACCESS4_XAREAD | ACCESS4_XALIST),
		   "%s: ... as another uid: XAREAD and XALIST, not XAWRITE (%ld, %#x, %#x)", fs,
		   st, supp, acc);
	}
	st = getxa(&fh, "b", (uint8_t *)buf, sizeof(buf), &len);
	ok(st == NFS4_OK, "%s: GETXATTR as another uid of a 0644 file: OK (%ld)", fs, st);
	st = setxa(&B, &fh, SETXATTR4_EITHER, "c", "x", 1, NULL);
	ok(st == NFS4ERR_ACCESS, "%s: SETXATTR as another uid: ACCESS (%ld)", fs, st);
	st = removexa(&B, &fh, "b", NULL);
	ok(st == NFS4ERR_ACCESS, "%s: REMOVEXATTR as another uid: ACCESS (%ld)", fs, st);
	B.uid = 0;
}

/* The pseudo root: no xattrs. */
static void test_pseudo(void)
{
	struct nfs_argop4 ops[3];
	struct v4_res s;
	uint64_t ch;
	bool xs = true;
	long st;

	v4_res_init(&s);
	v4op_seq_next(&ops[0], &B.ses, 0, false);
	v4op_simple(&ops[1], OP_PUTROOTFH);
	v4op_simple(&ops[2], OP_GETXATTR);
	ops[2].u.opgetxattr.gxa_name.data = (const uint8_t *)"a";
	ops[2].u.opgetxattr.gxa_name.len = 1;
	st = k_call(&B, ops, 3, &s) ? v4_op_status(&s, 2) : -1;
	ok(st == NFS4ERR_NOTSUPP, "pseudo root: GETXATTR: NOTSUPP (%ld)", st);
	v4_res_free(&s);
	st = attrs42(&dirfh[0], &ch, &xs);
	ok(st == NFS4_OK && xs, "tmpfs export's root: xattr_support true (%ld)", st);
}

/* ---- CLONE and COPY ------------------------------------------------------- */

static const struct stateid4 anon;

/* SEQUENCE, PUTFH @src, SAVEFH, PUTFH @dst, @op: @op's status. */
static long two(struct cl *k, const struct v4_fh *src, const struct v4_fh *dst,
		const struct nfs_argop4 *op, struct v4_res *s)
{
	struct nfs_argop4 ops[3];

	v4op_simple(&ops[0], OP_SAVEFH);
	v4op_putfh(&ops[1], dst);
	ops[2] = *op;
	return k_on(k, src, ops, 3, s);
}

static long clone_(const struct v4_fh *src, const struct v4_fh *dst, uint64_t so, uint64_t d,
		   uint64_t n)
{
	struct nfs_argop4 op;
	struct v4_res s;
	long st;

	v4op_simple(&op, OP_CLONE);
	op.u.opclone.cl_src_stateid = anon;
	op.u.opclone.cl_dst_stateid = anon;
	op.u.opclone.cl_src_offset = so;
	op.u.opclone.cl_dst_offset = d;
	op.u.opclone.cl_count = n;
	v4_res_init(&s);
	st = two(&B, src, dst, &op, &s);
	v4_res_free(&s);
	return st;
}

struct copied {
	uint64_t count;
	uint32_t ncb;
	struct stateid4 cb;     /* wr_callback_id[0] */
	bool consecutive, synchronous;
	uint32_t committed;
};

static long copy_(struct cl *k, const struct v4_fh *src, const struct v4_fh *dst, uint64_t so,
		  uint64_t d, uint64_t n, bool sync, bool other_server, struct copied *r)
{
	struct netloc4 loc = { .nl_type = NL4_NAME };
	struct nfs_argop4 op;
	struct v4_res s;
	long st;

	v4op_simple(&op, OP_COPY);
	op.u.opcopy.ca_src_stateid = anon;
	op.u.opcopy.ca_dst_stateid = anon;
	op.u.opcopy.ca_src_offset = so;
	op.u.opcopy.ca_dst_offset = d;
	op.u.opcopy.ca_count = n;
	op.u.opcopy.ca_consecutive = true;
	op.u.opcopy.ca_synchronous = sync;
	if (other_server) {
		loc.u.nl_name.data = (const uint8_t *)"elsewhere";
		loc.u.nl_name.len = 9;
		op.u.opcopy.ca_source_server.len = 1;
		op.u.opcopy.ca_source_server.val = &loc;
	}
	v4_res_init(&s);
	memset(r, 0, sizeof(*r));
	st = two(k, src, dst, &op, &s);
	if (st == NFS4_OK) {
		const struct COPY4resok *k2 = &s.ops[4].u.opcopy.u.cr_resok4;

		r->count = k2->cr_response.wr_count;
		r->ncb = k2->cr_response.wr_callback_id.len;
		if (r->ncb)
			r->cb = k2->cr_response.wr_callback_id.val[0];
		r->committed = k2->cr_response.wr_committed;
		r->consecutive = k2->cr_requirements.cr_consecutive;
		r->synchronous = k2->cr_requirements.cr_synchronous;
	}
	v4_res_free(&s);
	return st;
}

/* The bytes of @path equal @want (@len of them, and the file's size)? */
static bool file_is(const char *path, const uint8_t *want, size_t len)
{
	static uint8_t got[SRC_LEN + 32768];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return false;
	n = pread(fd, got, sizeof(got), 0);
	close(fd);
	return n == (ssize_t)len && !memcmp(got, want, len);
}

/* The next call nfsxd sends on @k's connection within @ms (kept ones
 * first) into @rec. */
static bool next_cb(struct cl *k, int ms, struct rpc_buf *rec)
{
	rpc_buf_init(rec);
	if (k->ncbq > 0) {
		*rec = k->cbq[0];
		memmove(&k->cbq[0], &k->cbq[1], (size_t)(k->ncbq - 1) * sizeof(k->cbq[0]));
		k->ncbq--;
		return true;
	}
	if (rpc_recv_record(k->fd, rec, ms, 1u << 20) == 1 && rec->len >= 8 &&
	    rpc_get_u32(rec->data + 4) == RPC_CALL)
		return true;
	rpc_buf_free(rec);
	return false;
}

/* A CB_COMPOUND call as read by hand. */
struct cbc {
	uint32_t xid, prog, proc, nops, op0, op1, taglen, seq, slot;
	uint8_t sess[NFS4_SESSIONID_SIZE], tag[64];
	struct rpc_cur c;       /* at op1's arguments */
};

static bool cb_head(const struct rpc_buf *rec, struct cbc *k)
{
	struct rpc_cur *c = &k->c;
	const uint8_t *p;
	uint32_t len;

	memset(k, 0, sizeof(*k));
	*c = (struct rpc_cur){ rec->data, rec->len, false };
	k->xid = rpc_cur_u32(c);
	rpc_cur_u32(c);                         /* CALL */
	rpc_cur_u32(c);                         /* rpcvers */
	k->prog = rpc_cur_u32(c);
	rpc_cur_u32(c);                         /* vers */
	k->proc = rpc_cur_u32(c);
	rpc_cur_u32(c);
	rpc_cur_opaque(c, &len, 400);
	rpc_cur_u32(c);
	rpc_cur_opaque(c, &len, 400);
	p = rpc_cur_opaque(c, &k->taglen, sizeof(k->tag));
	if (p)
		memcpy(k->tag, p, k->taglen);
	rpc_cur_u32(c);                         /* minor */
	rpc_cur_u32(c);                         /* callback_ident */
	k->nops = rpc_cur_u32(c);
	k->op0 = rpc_cur_u32(c);
	if (c->n >= sizeof(k->sess))
		memcpy(k->sess, c->p, sizeof(k->sess));
	rpc_cur_skip(c, sizeof(k->sess));
	k->seq = rpc_cur_u32(c);
	k->slot = rpc_cur_u32(c);
	rpc_cur_u32(c);                         /* highest slot */
	rpc_cur_u32(c);                         /* cachethis */
	rpc_cur_u32(c);                         /* referring call lists: none */
	if (k->nops == 2)
		k->op1 = rpc_cur_u32(c);
	return !c->bad && k->prog == CB_PROG && k->proc == 1 && k->op0 == OP_CB_SEQUENCE_NUM;
}

/* Answer @k on @fd: OK to both operations. */
static void cb_ok(int fd, const struct cbc *k)
{
	struct rpc_buf b;

	rpc_buf_init(&b);
	rpc_buf_put_u32(&b, k->xid);
	rpc_buf_put_u32(&b, RPC_REPLY);
	rpc_buf_put_u32(&b, RPC_MSG_ACCEPTED);
	rpc_buf_put_u32(&b, AUTH_NONE);
	rpc_buf_put_u32(&b, 0);
	rpc_buf_put_u32(&b, RPC_SUCCESS);
	rpc_buf_put_u32(&b, NFS4_OK);
	rpc_buf_put_opaque(&b, k->tag, k->taglen);
	rpc_buf_put_u32(&b, k->nops);
	rpc_buf_put_u32(&b, k->op0);
	rpc_buf_put_u32(&b, NFS4_OK);
	rpc_buf_put_bytes(&b, k->sess, sizeof(k->sess));
	rpc_buf_put_u32(&b, k->seq);
	rpc_buf_put_u32(&b, k->slot);
	rpc_buf_put_u32(&b, 0);
	rpc_buf_put_u32(&b, 0);
	if (k->nops == 2) {
		rpc_buf_put_u32(&b, k->op1);
		rpc_buf_put_u32(&b, NFS4_OK);
	}
	rpc_send_record(fd, b.data, b.len);
	rpc_buf_free(&b);
}

/* B's asynchronous copy @sid into @dst: OFFLOAD_STATUS, then the
 * CB_OFFLOAD on B's back channel saying @count bytes, answered. */
static void offloaded(const char *fs, const struct v4_fh *dst, const struct stateid4 *sid,
		      uint64_t count)
{
	struct nfs_argop4 op;
	struct v4_res s;
	struct rpc_buf rec;
	struct cbc k;
	struct stateid4 got = { 0 };
	uint32_t fhlen = 0, st4 = 99, ncb = 99, committed = 99;
	const uint8_t *fh;
	uint64_t n = 0;
	bool call, parsed = false;
	long st;

	call = next_cb(&B, 5000, &rec);
	if (call && cb_head(&rec, &k) && k.nops == 2 && k.op1 == OP_CB_OFFLOAD) {
		fh = rpc_cur_opaque(&k.c, &fhlen, NFS4_FHSIZE);
		got.seqid = rpc_cur_u32(&k.c);
		if (k.c.n >= sizeof(got.other))
			memcpy(got.other, k.c.p, sizeof(got.other));
		rpc_cur_skip(&k.c, sizeof(got.other));
		st4 = rpc_cur_u32(&k.c);
		if (st4 == NFS4_OK) {
			ncb = rpc_cur_u32(&k.c);
			n = rpc_cur_u64(&k.c);
			committed = rpc_cur_u32(&k.c);
			rpc_cur_skip(&k.c, 8);
		}
		parsed = !k.c.bad && k.c.n == 0 && fh && fhlen == dst->len &&
			 !memcmp(fh, dst->d, fhlen) && !memcmp(k.sess, B.ses.sid.val, sizeof(k.sess));
	}
	ok(parsed && v4_same_other(&got, sid) && st4 == NFS4_OK && ncb == 0 && n == count &&
	   committed == UNSTABLE4,
	   "%s: CB_SEQUENCE, CB_OFFLOAD on B's back channel: the destination's handle, the "
	   "copy stateid, OK, %llu bytes, UNSTABLE4 (status %u, %llu bytes)", fs,
	   (unsigned long long)count, st4, (unsigned long long)n);
	/* the copy is done; its stateid lives until CB_OFFLOAD is answered */
	v4op_simple(&op, OP_OFFLOAD_STATUS);
	op.u.opoffload_status.osa_stateid = *sid;
	v4_res_init(&s);
	st = k_on(&B, dst, &op, 1, &s);
	ok(st == NFS4_OK && s.ops[2].u.opoffload_status.u.osr_resok4.osr_count == count &&
	   s.ops[2].u.opoffload_status.u.osr_resok4.osr_complete.len == 1 &&
	   s.ops[2].u.opoffload_status.u.osr_resok4.osr_complete.val[0] == NFS4_OK,
	   "%s: OFFLOAD_STATUS before answering it: %llu bytes, complete OK (%ld)", fs,
	   (unsigned long long)count, st);
	v4_res_free(&s);
	if (call) {
		if (parsed)
			cb_ok(B.fd, &k);
		rpc_buf_free(&rec);
	}
}

static void test_clone(int d)
{
	struct v4_fh src, dst, dir = dirfh[d];
	long st;

	if (!ok(fh_of(d, "src", &src) && fh_of(d, "cl", &dst), "%s: LOOKUP src, cl", fsname[d]))
		return;
	st = clone_(&src, &dst, 0, 0, 0);
	ok(st == NFS4ERR_NOTSUPP, "%s: CLONE of a whole file: NOTSUPP (%s shares no blocks) "
	   "(%ld)", fsname[d], fsname[d], st);
	st = clone_(&src, &dst, 0, 0, 4096);
	ok(st == NFS4ERR_NOTSUPP, "%s: CLONE of 4 KiB: NOTSUPP (%ld)", fsname[d], st);
	st = clone_(&dir, &dst, 0, 0, 0);
	ok(st == NFS4ERR_ISDIR, "%s: CLONE from a directory: ISDIR (%ld)", fsname[d], st);
}

static void test_copy(int d)
{
	static uint8_t want[SRC_LEN + 32768];
	const char *fs = fsname[d];
	struct v4_fh src, c1, c2, c3, c4;
	struct copied r;
	long st;

	if (!ok(fh_of(d, "src", &src) && fh_of(d, "c1", &c1) && fh_of(d, "c2", &c2) &&
		fh_of(d, "c3", &c3) && fh_of(d, "c4", &c4), "%s: LOOKUP src, c1..c4", fs))
		return;
	st = copy_(&B, &src, &c1, 0, 0, SRC_LEN, true, false, &r);
	ok(st == NFS4_OK && r.count == SRC_LEN && r.ncb == 0 && r.consecutive && r.synchronous,
	   "%s: COPY of the whole source (%u bytes) into an empty file: OK, wr_count %llu, no "
	   "callback id, consecutive and synchronous (%ld)", fs, SRC_LEN,
	   (unsigned long long)r.count, st);
	ok(file_is(on_disk(d, "c1"), srcdata, SRC_LEN), "%s: ... the destination's bytes are "
	   "the source's", fs);
	st = copy_(&B, &src, &c2, 0, 0, 0, true, false, &r);
	ok(st == NFS4_OK && r.count == SRC_LEN && file_is(on_disk(d, "c2"), srcdata, SRC_LEN),
	   "%s: COPY with count 0: to the source's end, %llu bytes, the same (%ld)", fs,
	   (unsigned long long)r.count, st);
	/* c3 holds 10000 'z': 3000 bytes from 1000 land at 5000 */
	memset(want, 'z', 10000);
	memcpy(want + 5000, srcdata + 1000, 3000);
	st = copy_(&B, &src, &c3, 1000, 5000, 3000, true, false, &r);
	ok(st == NFS4_OK && r.count == 3000 && file_is(on_disk(d, "c3"), want, 10000),
	   "%s: COPY of [1000, 4000) to 5000 of a 10000-byte file: the range only (%ld, %llu)",
	   fs, st, (unsigned long long)r.count);
	/* past the end: 3000 'z' then the source's tail from 2000 at 12000 */
	/* within one file: [0, 100) of c3 to 20000; overlapping ranges INVAL */
	memset(want + 10000, 0, 10000);
	memcpy(want + 20000, want, 100);
	st = copy_(&B, &c3, &c3, 0, 20000, 100, true, false, &r);
	ok(st == NFS4_OK && r.count == 100 && file_is(on_disk(d, "c3"), want, 20100),
	   "%s: COPY within one file, [0, 100) to 20000: OK, a hole then the bytes (%ld)", fs,
	   st);
	st = copy_(&B, &c3, &c3, 0, 50, 100, true, false, &r);
	ok(st == NFS4ERR_INVAL, "%s: COPY within one file, overlapping: INVAL (%ld)", fs, st);
	st = copy_(&B, &src, &c4, SRC_LEN + 1, 0, 0, true, false, &r);
	ok(st == NFS4ERR_INVAL, "%s: COPY from past the source's end: INVAL (%ld)", fs, st);
	st = copy_(&B, &src, &c4, SRC_LEN - 10, 0, 11, true, false, &r);
	ok(st == NFS4ERR_INVAL, "%s: COPY of a range ending past the source's end: INVAL (%ld)",
	   fs, st);
	st = copy_(&B, &src, &c4, SRC_LEN, 0, 0, true, false, &r);
	ok(st == NFS4_OK && r.count == 0, "%s: COPY from the source's end, count 0: OK, nothing "
	   "(%ld, %llu)", fs, st, (unsigned long long)r.count);
	st = copy_(&B, &src, &c4, 0, 0, 10, true, true, &r);
	ok(st == NFS4ERR_NOTSUPP, "%s: COPY from another server: NOTSUPP (%ld)", fs, st);
	memset(want, 'z', 3000);
	memcpy(want + 3000, srcdata + 100, 500);
	st = copy_(&B, &src, &c4, 100, 3000, 500, false, false, &r);
	ok(st == NFS4_OK && r.count == 0 && r.ncb == 1 && !r.synchronous,
	   "%s: COPY asked asynchronous: OK, a copy stateid, wr_count 0, not synchronous (%ld)",
	   fs, st);
	if (st == NFS4_OK && r.ncb == 1)
		offloaded(fs, &c4, &r.cb, 500);
	ok(file_is(on_disk(d, "c4"), want, 3500),
	   "%s: ... its 500 bytes appended at 3000", fs);
}

/* from the tmpfs export into the ext4 one */
static void test_copy_across(void)
{
	struct v4_fh src, dst;
	struct copied r;
	long st;

	if (!ok(fh_of(0, "src", &src) && fh_of(1, "cx", &dst), "LOOKUP tmpfs src, ext4 cx"))
		return;
	st = copy_(&B, &src, &dst, 0, 0, 0, true, false, &r);
	ok(st == NFS4_OK && r.count == SRC_LEN && file_is(on_disk(1, "cx"), srcdata, SRC_LEN),
	   "COPY from the tmpfs export into the ext4 one: OK, the same bytes (%ld, %llu)", st,
	   (unsigned long long)r.count);
}

/* An asynchronous copy of a 256 MiB sparse file cancelled at once:
 * it stops midway, no CB_OFFLOAD, its stateid gone. */
static void test_cancel(void)
{
	struct v4_fh big, dst;
	struct nfs_argop4 op;
	struct v4_res s;
	struct rpc_buf rec;
	struct copied r;
	struct stat sb;
	uint64_t seen = 0;
	uint32_t complete = 0;
	long st, st2;
	bool cb;
	int i;

	if (!ok(fh_of(0, "big", &big) && fh_of(0, "cb", &dst), "tmpfs: LOOKUP big, cb"))
		return;
	st = copy_(&B, &big, &dst, 0, 0, 0, false, false, &r);
	if (!ok(st == NFS4_OK && r.ncb == 1, "tmpfs: asynchronous COPY of 256 MiB: a copy "
		"stateid (%ld)", st))
		return;
	/* OFFLOAD_STATUS until some bytes are copied (every 5 ms, 2 s at most) */
	v4_res_init(&s);
	for (i = 0; i < 400; i++) {
		v4op_simple(&op, OP_OFFLOAD_STATUS);
		op.u.opoffload_status.osa_stateid = r.cb;
		st = k_on(&B, &dst, &op, 1, &s);
		if (st != NFS4_OK)
			break;
		seen = s.ops[2].u.opoffload_status.u.osr_resok4.osr_count;
		complete = s.ops[2].u.opoffload_status.u.osr_resok4.osr_complete.len;
		if (seen > 0 || complete)
			break;
		usleep(5000);
	}
	ok(st == NFS4_OK && seen > 0 && seen < 256u * 1024 * 1024 && !complete,
	   "tmpfs: OFFLOAD_STATUS while it runs: %llu bytes copied, not complete (%ld)",
	   (unsigned long long)seen, st);
	v4op_simple(&op, OP_OFFLOAD_CANCEL);
	op.u.opoffload_cancel.oca_stateid = r.cb;
	st = k_on(&B, &dst, &op, 1, &s);
	ok(st == NFS4_OK, "tmpfs: OFFLOAD_CANCEL of it then: OK (%ld)", st);
	cb = next_cb(&B, 1500, &rec);
	if (cb)
		rpc_buf_free(&rec);
	ok(!cb, "tmpfs: no CB_OFFLOAD in 1.5 s");
	usleep(100000);
	if (stat(on_disk(0, "cb"), &sb) < 0)
		sb.st_size = -1;
	ok(sb.st_size >= 0 && sb.st_size < 256 * 1024 * 1024 &&
	   (uint64_t)sb.st_size >= seen,
	   "tmpfs: the copy stopped midway (%lld of %d bytes)", (long long)sb.st_size,
	   256 * 1024 * 1024);
	v4op_simple(&op, OP_OFFLOAD_STATUS);
	op.u.opoffload_status.osa_stateid = r.cb;
	st = k_on(&B, &dst, &op, 1, &s);
	v4op_simple(&op, OP_OFFLOAD_CANCEL);
	op.u.opoffload_cancel.oca_stateid = r.cb;
	st2 = k_on(&B, &dst, &op, 1, &s);
	ok(st == NFS4ERR_BAD_STATEID && st2 == NFS4ERR_BAD_STATEID,
	   "tmpfs: its stateid is gone: OFFLOAD_STATUS and OFFLOAD_CANCEL BAD_STATEID (%ld, %ld)",
	   st, st2);
	v4_res_free(&s);
}

static void test_offload(void)
{
	struct nfs_argop4 op;
	struct v4_fh f;
	struct v4_res s;
	long st;

	if (!fh_of(0, "c1", &f))
		return;
	v4_res_init(&s);
	v4op_simple(&op, OP_OFFLOAD_STATUS);
	memset(op.u.opoffload_status.osa_stateid.other, 7, 12);
	st = k_on(&B, &f, &op, 1, &s);
	ok(st == NFS4ERR_BAD_STATEID, "OFFLOAD_STATUS of a stateid no copy has: BAD_STATEID "
	   "(%ld)", st);
	v4op_simple(&op, OP_OFFLOAD_CANCEL);
	memset(op.u.opoffload_cancel.oca_stateid.other, 7, 12);
	st = k_on(&B, &f, &op, 1, &s);
	ok(st == NFS4ERR_BAD_STATEID, "OFFLOAD_CANCEL: BAD_STATEID (%ld)", st);
	v4_res_free(&s);
}

/* ---- delegations ------------------------------------------------------------ */

/* S's read-only OPEN of @name in the tmpfs export: its read delegation. */
static bool s_deleg(const char *name, struct stateid4 *d, struct v4_fh *fh)
{
	struct nfs_argop4 ops[2];
	struct v4_res s;
	long st;
	bool got = false;

	v4op_open(&ops[0], 0, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, S.ses.clientid,
		  "v42xc-s-owner", name);
	v4op_simple(&ops[1], OP_GETFH);
	v4_res_init(&s);
	st = k_on(&S, &dirfh[0], ops, 2, &s);
	if (st == NFS4_OK) {
		const struct OPEN4resok *k = &s.ops[2].u.opopen.u.resok4;

		got = k->delegation.delegation_type == OPEN_DELEGATE_READ &&
		      v4_fh_of_res(&s, 3, fh);
		if (got)
			*d = k->delegation.u.read.stateid;
	}
	v4_res_free(&s);
	return ok(got, "S's read-only OPEN of %s: a read delegation (%ld)", name, st);
}

/* The next call nfsxd sends on S's connection within @ms: is it a
 * CB_COMPOUND of CB_SEQUENCE and CB_RECALL of @d? Answered OK. */
static bool s_recalled(int ms, const struct stateid4 *d)
{
	struct rpc_buf rec;
	struct rpc_cur c;
	uint32_t len, xid, prog, proc, nops, op0, op1 = 0, taglen, seq = 0, slot = 0;
	uint8_t sess[NFS4_SESSIONID_SIZE], tag[64];
	struct stateid4 got;
	const uint8_t *p;
	bool ok_ = false;

	rpc_buf_init(&rec);
	if (S.ncbq > 0) {
		rec = S.cbq[0];
		memmove(&S.cbq[0], &S.cbq[1], (size_t)(S.ncbq - 1) * sizeof(S.cbq[0]));
		S.ncbq--;
	} else if (rpc_recv_record(S.fd, &rec, ms, 1u << 20) != 1) {
		rpc_buf_free(&rec);
		return false;
	}
	c = (struct rpc_cur){ rec.data, rec.len, false };
	xid = rpc_cur_u32(&c);
	rpc_cur_u32(&c);                        /* CALL */
	rpc_cur_u32(&c);                        /* rpcvers */
	prog = rpc_cur_u32(&c);
	rpc_cur_u32(&c);                        /* vers */
	proc = rpc_cur_u32(&c);
	rpc_cur_u32(&c);
	rpc_cur_opaque(&c, &len, 400);
	rpc_cur_u32(&c);
	rpc_cur_opaque(&c, &len, 400);
	p = rpc_cur_opaque(&c, &taglen, sizeof(tag));
	if (p)
		memcpy(tag, p, taglen);
	rpc_cur_u32(&c);                        /* minor */
	rpc_cur_u32(&c);                        /* callback_ident */
	nops = rpc_cur_u32(&c);
	op0 = rpc_cur_u32(&c);
	if (c.n >= sizeof(sess))
		memcpy(sess, c.p, sizeof(sess));
	rpc_cur_skip(&c, sizeof(sess));
	seq = rpc_cur_u32(&c);
	slot = rpc_cur_u32(&c);
	rpc_cur_u32(&c);                        /* highest slot */
	rpc_cur_u32(&c);                        /* cachethis */
	rpc_cur_u32(&c);                        /* referring call lists: none */
	if (nops == 2) {
		op1 = rpc_cur_u32(&c);
		got.seqid = rpc_cur_u32(&c);
		if (c.n >= sizeof(got.other))
			memcpy(got.other, c.p, sizeof(got.other));
		rpc_cur_skip(&c, sizeof(got.other));
	}
	ok_ = !c.bad && prog == CB_PROG && proc == 1 && nops == 2 &&
	      op0 == OP_CB_SEQUENCE_NUM && op1 == OP_CB_RECALL_NUM &&
	      v4_same_other(&got, d) && !memcmp(sess, S.ses.sid.val, sizeof(sess));
	if (proc == 1 && !c.bad) {
		struct rpc_buf b;

		rpc_buf_init(&b);
		rpc_buf_put_u32(&b, xid);
		rpc_buf_put_u32(&b, RPC_REPLY);
		rpc_buf_put_u32(&b, RPC_MSG_ACCEPTED);
		rpc_buf_put_u32(&b, AUTH_NONE);
		rpc_buf_put_u32(&b, 0);
		rpc_buf_put_u32(&b, RPC_SUCCESS);
		rpc_buf_put_u32(&b, NFS4_OK);
		rpc_buf_put_opaque(&b, tag, taglen);
		rpc_buf_put_u32(&b, nops);
		rpc_buf_put_u32(&b, op0);
		rpc_buf_put_u32(&b, NFS4_OK);
		rpc_buf_put_bytes(&b, sess, sizeof(sess));
		rpc_buf_put_u32(&b, seq);
		rpc_buf_put_u32(&b, slot);
		rpc_buf_put_u32(&b, 0);
		rpc_buf_put_u32(&b, 0);
		if (nops == 2) {
			rpc_buf_put_u32(&b, op1);
			rpc_buf_put_u32(&b, NFS4_OK);
		}
		rpc_send_record(S.fd, b.data, b.len);
		rpc_buf_free(&b);
	}
	rpc_buf_free(&rec);
	return ok_;
}

static long s_delegreturn(const struct v4_fh *fh, const struct stateid4 *d)
{
	struct nfs_argop4 op;
	struct v4_res s;
	long st;

	v4op_simple(&op, OP_DELEGRETURN);
	op.u.opdelegreturn.deleg_stateid = *d;
	v4_res_init(&s);
	st = k_on(&S, fh, &op, 1, &s);
	v4_res_free(&s);
	return st;
}

static void test_deleg(void)
{
	struct stateid4 d;
	struct v4_fh fh, src;
	struct copied r;
	long st;

	if (!k_open(&S, "v42xc-client-s"))
		return;
	if (s_deleg("dg1", &d, &fh)) {
		st = setxa(&B, &fh, SETXATTR4_EITHER, "k", "v", 1, NULL);
		ok(st == NFS4ERR_DELAY, "B's SETXATTR of dg1: DELAY (%ld)", st);
		ok(s_recalled(5000, &d), "S gets CB_SEQUENCE, CB_RECALL of its delegation on its "
		   "back channel");
		st = s_delegreturn(&fh, &d);
		ok(st == NFS4_OK, "S returns it (%ld)", st);
		st = setxa(&B, &fh, SETXATTR4_EITHER, "k", "v", 1, NULL);
		ok(st == NFS4_OK, "B's SETXATTR of dg1 again: OK (%ld)", st);
	}
	if (fh_of(0, "src", &src) && s_deleg("dg2", &d, &fh)) {
		st = copy_(&B, &src, &fh, 0, 0, 100, true, false, &r);
		ok(st == NFS4ERR_DELAY, "B's COPY into dg2: DELAY (%ld)", st);
		ok(s_recalled(5000, &d), "S gets CB_RECALL of its delegation on dg2");
		st = s_delegreturn(&fh, &d);
		ok(st == NFS4_OK, "S returns it (%ld)", st);
		st = copy_(&B, &src, &fh, 0, 0, 100, true, false, &r);
		ok(st == NFS4_OK && r.count == 100, "B's COPY into dg2 again: OK (%ld)", st);
	}
	if (s_deleg("dg3", &d, &fh)) {
		st = setxa(&S, &fh, SETXATTR4_EITHER, "own", "v", 1, NULL);
		ok(st == NFS4_OK, "S's own SETXATTR of dg3, which it holds a delegation of: OK, "
		   "no recall (%ld)", st);
	}
}

int main(int argc, char **argv)
{
	int d, i;

	if (argc != 4) {
		fprintf(stderr, "usage: test_nfs4_v42xc PORT TMPFS_DIR EXT_DIR\n");
		return 2;
	}
	port = (uint16_t)atoi(argv[1]);
	dirs[0] = argv[2];
	dirs[1] = argv[3];
	for (i = 0; i < (int)SRC_LEN; i++)
		srcdata[i] = (uint8_t)(i * 131 + i / 256);
	if (!k_open(&B, "v42xc-client-b"))
		return tap_done();
	for (d = 0; d < 2; d++)
		ok(v4_walk(B.fd, dirs[d], &dirfh[d]) == NFS4_OK, "walk to %s", dirs[d]);
	test_pseudo();
	for (d = 0; d < 2; d++) {
		test_xattrs(d);
		test_clone(d);
		test_copy(d);
	}
	test_copy_across();
	test_offload();
	test_cancel();
	test_deleg();
	/* a copy left running: the server's stop (the run script checks
	 * its exit status and log) cancels it */
	{
		struct v4_fh big, dst;
		struct copied r;
		long st = -1;

		if (fh_of(0, "big", &big) && fh_of(0, "cb2", &dst))
			st = copy_(&B, &big, &dst, 0, 0, 0, false, false, &r);
		ok(st == NFS4_OK && r.ncb == 1, "tmpfs: an asynchronous COPY left running for the "
		   "server's stop (%ld)", st);
		if (st == NFS4_OK && r.ncb == 1 && S.fd >= 0) {
			struct nfs_argop4 op;
			struct v4_res s;

			v4op_simple(&op, OP_OFFLOAD_STATUS);
			op.u.opoffload_status.osa_stateid = r.cb;
			v4_res_init(&s);
			st = k_on(&S, &dst, &op, 1, &s);
			ok(st == NFS4ERR_BAD_STATEID, "another client's OFFLOAD_STATUS of it: "
			   "BAD_STATEID (%ld)", st);
			v4op_simple(&op, OP_OFFLOAD_CANCEL);
			op.u.opoffload_cancel.oca_stateid = r.cb;
			st = k_on(&S, &dst, &op, 1, &s);
			ok(st == NFS4ERR_BAD_STATEID, "another client's OFFLOAD_CANCEL of it: "
			   "BAD_STATEID (%ld)", st);
			v4_res_free(&s);
		}
	}
	return tap_done();
}
