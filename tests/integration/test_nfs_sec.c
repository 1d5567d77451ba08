/* SPDX-License-Identifier: MIT */
/*
 * sec= per export on the wire, with AUTH_SYS and AUTH_NONE callers: what
 * MOUNT lists, what NFSv3 answers a flavour an export does not allow
 * (ACCES, as knfsd), and NFSv4's WRONGSEC rules (RFC 8881 2.6.3.1.1, as
 * knfsd applies them) and SECINFO / SECINFO_NO_NAME lists, in 4.0 and
 * 4.1. Run by run-nfs-sec.sh, which builds the tree and starts the
 * servers:
 *
 *   test_nfs_sec PORT PORT2 BASE REFUSED RELOAD_KEPT CHILD
 *
 * PORT serves BASE/sys (sec=sys), BASE/none (sec=none), BASE/both
 * (sec=sys:none), BASE/nsys (sec=none:sys) and BASE/dflt (no sec=);
 * PORT2 serves BASE/only (sec=sys) alone. REFUSED and RELOAD_KEPT are
 * 1 when the script saw nfsxd refuse sec=krb5p at start and at reload;
 * CHILD 1 when BASE/sys/child is a tmpfs exported nohide with sec=none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nfs3_raw.h"
#include "nfs4_state_raw.h"
#include "tap.h"

#define MNT3_OK 0
#define NFS3ERR_ACCES 13
#define NFSPROC3_GETATTR 1

static const char *base;
static int fd;

static void secinfo_op(struct nfs_argop4 *a, const char *name)
{
	v4op_simple(a, OP_SECINFO);
	a->u.opsecinfo.name.data = (const uint8_t *)name;
	a->u.opsecinfo.name.len = (uint32_t)strlen(name);
}

/* Does @k list exactly the @n flavours of @want, in that order? */
static bool flavours_are(const SECINFO4resok *k, const uint32_t *want, uint32_t n)
{
	uint32_t i;

	if (k->len != n) {
		printf("#   %u flavours:", k->len);
		for (i = 0; i < k->len; i++)
			printf(" %u", k->val[i].flavor);
		printf("\n");
		return false;
	}
	for (i = 0; i < n; i++)
		if (k->val[i].flavor != want[i])
			return false;
	return true;
}

/* COMPOUND (4.0) of @n ops as @flavor: its status, and @nres results. */
static long call_as(uint32_t flavor, const struct nfs_argop4 *ops, uint32_t n,
		    struct v4_res *s, uint32_t *nres)
{
	long st = v4_call_flavor(fd, flavor, 0, ops, n, s);

	*nres = s->nops;
	return st;
}

static long walk_as(uint32_t flavor, const char *rel, struct v4_fh *fh)
{
	return v4_walk_flavor(fd, flavor, v4_path(base, rel), fh);
}

static const uint32_t L_SYS[] = { AUTH_SYS };
static const uint32_t L_NONE[] = { AUTH_NONE };
static const uint32_t L_SYS_NONE[] = { AUTH_SYS, AUTH_NONE };
static const uint32_t L_NONE_SYS[] = { AUTH_NONE, AUTH_SYS };

static struct v4_fh fh_sys, fh_none, fh_both, fh_dflt;

/* ---- MOUNT and NFSv3 ---------------------------------------------------- */

/* NFSv3 GETATTR of @fh as @flavor: the nfsstat3, or -1 on no or odd reply. */
static long getattr3_as(uint32_t flavor, const struct raw_fh *fh)
{
	struct rpc_buf a;
	struct raw_res s = { 0 };
	struct rpc_cur c;
	long st;

	rpc_buf_init(&a);
	rpc_buf_init(&s.store);
	rpc_buf_put_opaque(&a, fh->d, fh->len);
	raw_flavor = flavor;
	raw_call(fd, PROG_NFS, NFSPROC3_GETATTR, &a, &s);
	raw_flavor = AUTH_SYS;
	c = raw_cur(&s);
	st = rpc_cur_u32(&c);
	if (c.bad) {
		raw_diag(&s);
		st = -1;
	}
	rpc_buf_free(&a);
	rpc_buf_free(&s.store);
	return st;
}

static void test_mount_v3(void)
{
	static const struct {
		const char *dir;
		uint32_t n;
		uint32_t fl[2];
		const char *what;
	} m[] = {
		{ "sys", 1, { AUTH_SYS }, "sec=sys: AUTH_SYS" },
		{ "none", 1, { AUTH_NONE }, "sec=none: AUTH_NONE" },
		{ "both", 1, { AUTH_SYS }, "sec=sys:none: AUTH_SYS (AUTH_NONE left out, as mountd)" },
		{ "nsys", 1, { AUTH_SYS }, "sec=none:sys: AUTH_SYS" },
		{ "dflt", 1, { AUTH_SYS }, "no sec=: AUTH_SYS" },
	};
	struct raw_fh fh[5], x;
	uint32_t fl[8], n;
	size_t i;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		long st = raw_mnt_flavors(fd, v4_path(base, m[i].dir), &fh[i], fl, 8, &n);

		ok(st == MNT3_OK && n == m[i].n && fl[0] == m[i].fl[0],
		   "MNT lists the export's flavours, %s (status %ld, %u: %u)", m[i].what, st, n,
		   n ? fl[0] : 99);
	}
	/* MNT itself answers whatever the flavour, as mountd */
	raw_flavor = AUTH_NONE;
	ok(raw_mnt_flavors(fd, v4_path(base, "sys"), &x, fl, 8, &n) == MNT3_OK && n == 1 &&
	   fl[0] == AUTH_SYS, "MNT of a sec=sys export as AUTH_NONE: OK, listing AUTH_SYS");
	raw_flavor = AUTH_SYS;

	ok(getattr3_as(AUTH_SYS, &fh[0]) == 0, "NFSv3 GETATTR, sec=sys, AUTH_SYS: OK");
	ok(getattr3_as(AUTH_NONE, &fh[0]) == NFS3ERR_ACCES,
	   "NFSv3 GETATTR, sec=sys, AUTH_NONE: ACCES (knfsd's wrongsec for NFSv3)");
	ok(getattr3_as(AUTH_NONE, &fh[1]) == 0, "NFSv3 GETATTR, sec=none, AUTH_NONE: OK");
	ok(getattr3_as(AUTH_SYS, &fh[1]) == NFS3ERR_ACCES,
	   "NFSv3 GETATTR, sec=none, AUTH_SYS: ACCES");
	ok(getattr3_as(AUTH_SYS, &fh[2]) == 0 && getattr3_as(AUTH_NONE, &fh[2]) == 0,
	   "NFSv3 GETATTR, sec=sys:none: AUTH_SYS and AUTH_NONE OK");
	ok(getattr3_as(AUTH_SYS, &fh[4]) == 0 && getattr3_as(AUTH_NONE, &fh[4]) == 0,
	   "NFSv3 GETATTR, no sec=: AUTH_SYS and AUTH_NONE OK (knfsd's default)");
	raw_flavor = AUTH_NONE;
	ok(raw_lookup(fd, &fh[0], "f", &x) == NFS3ERR_ACCES,
	   "NFSv3 LOOKUP in a sec=sys export as AUTH_NONE: ACCES");
	ok(raw_lookup(fd, &fh[1], "f", &x) == 0,
	   "NFSv3 LOOKUP in a sec=none export as AUTH_NONE: OK");
	raw_flavor = AUTH_SYS;
}

/* ---- NFSv4.0 ------------------------------------------------------------ */

static void test_walks(void)
{
	struct v4_fh fh;

	ok(walk_as(AUTH_SYS, "sys", &fh_sys) == NFS4_OK, "AUTH_SYS walks into sec=sys");
	ok(walk_as(AUTH_NONE, "none", &fh_none) == NFS4_OK, "AUTH_NONE walks into sec=none");
	ok(walk_as(AUTH_SYS, "both", &fh_both) == NFS4_OK &&
	   walk_as(AUTH_NONE, "both", &fh) == NFS4_OK,
	   "AUTH_SYS and AUTH_NONE walk into sec=sys:none");
	ok(walk_as(AUTH_NONE, "dflt", &fh_dflt) == NFS4_OK &&
	   walk_as(AUTH_SYS, "dflt", &fh) == NFS4_OK,
	   "AUTH_SYS and AUTH_NONE walk into an export without sec=");
	ok(walk_as(AUTH_NONE, "sys", &fh) == NFS4ERR_WRONGSEC,
	   "AUTH_NONE crossing from the pseudo file system into sec=sys: WRONGSEC");
	ok(walk_as(AUTH_SYS, "none", &fh) == NFS4ERR_WRONGSEC,
	   "AUTH_SYS crossing into sec=none: WRONGSEC");
	ok(walk_as(AUTH_NONE, "", &fh) == NFS4_OK && walk_as(AUTH_SYS, "", &fh) == NFS4_OK,
	   "the pseudo root allows both flavours some export allows");
}

/* The entry @name of a READDIR result: NULL when not listed. */
static const struct entry4 *entry_of(const struct v4_res *s, const char *name)
{
	const struct entry4 *x;
	size_t l = strlen(name);

	if (s->nops != 2 || s->status != NFS4_OK)
		return NULL;
	for (x = s->ops[1].u.opreaddir.u.resok4.reply.entries; x; x = x->nextentry)
		if (x->name.len == l && memcmp(x->name.data, name, l) == 0)
			return x;
	printf("#   %s: not listed\n", name);
	return NULL;
}

/* Does entry @x carry rdattr_error WRONGSEC and nothing else? */
static bool only_wrongsec(const struct entry4 *x)
{
	const uint8_t *v = x ? x->attrs.attr_vals.data : NULL;

	return x && x->attrs.attrmask.len >= 1 &&
	       x->attrs.attrmask.val[0] == 1u << FATTR4_RDATTR_ERROR &&
	       (x->attrs.attrmask.len < 2 || x->attrs.attrmask.val[1] == 0) &&
	       x->attrs.attr_vals.len == 4 &&
	       ((uint32_t)v[0] << 24 | (uint32_t)v[1] << 16 | (uint32_t)v[2] << 8 | v[3]) ==
		       NFS4ERR_WRONGSEC;
}

/* Does entry @x carry its type and rdattr_error OK (as asked)? */
static bool has_type(const struct entry4 *x)
{
	const uint8_t *v = x ? x->attrs.attr_vals.data : NULL;

	if (x && !(x->attrs.attrmask.len >= 1 &&
		   x->attrs.attrmask.val[0] == (1u << 1 | 1u << FATTR4_RDATTR_ERROR) &&
		   x->attrs.attr_vals.len == 8 && !v[4] && !v[5] && !v[6] && !v[7]))
		printf("#   %.*s: mask %u words, %x, %u bytes\n", (int)x->name.len,
		       (const char *)x->name.data, x->attrs.attrmask.len,
		       x->attrs.attrmask.len ? x->attrs.attrmask.val[0] : 0, x->attrs.attr_vals.len);
	/* type (bit 1) first, then rdattr_error (bit 11): NFS4_OK */
	return x && x->attrs.attrmask.len >= 1 &&
	       x->attrs.attrmask.val[0] == (1u << 1 | 1u << FATTR4_RDATTR_ERROR) &&
	       x->attrs.attr_vals.len == 8 && !v[4] && !v[5] && !v[6] && !v[7];
}

/* READDIR of the pseudo directory above the exports: an export the
 * caller's flavour may not use gives no attributes (knfsd's READDIR
 * checks each export it crosses into). */
static void test_readdir(void)
{
	struct nfs_argop4 ops[2];
	uint32_t with_err[1] = { 1u << FATTR4_RDATTR_ERROR | 1u << 1 /* type */ };
	uint32_t type_only[1] = { 1u << 1 };
	struct v4_res s;
	struct v4_fh p;
	uint32_t n;

	v4_res_init(&s);
	if (walk_as(AUTH_NONE, "", &p) != NFS4_OK) {
		ok(false, "the pseudo directory above the exports: no handle");
		return;
	}
	v4op_putfh(&ops[0], &p);
	v4op_readdir(&ops[1], 0, 32768, with_err, 1);
	ok(call_as(AUTH_NONE, ops, 2, &s, &n) == NFS4_OK && only_wrongsec(entry_of(&s, "sys")) &&
	   has_type(entry_of(&s, "none")) && has_type(entry_of(&s, "both")) &&
	   has_type(entry_of(&s, "dflt")),
	   "READDIR as AUTH_NONE: sec=sys's entry carries only rdattr_error WRONGSEC, the others their type");
	ok(call_as(AUTH_SYS, ops, 2, &s, &n) == NFS4_OK && only_wrongsec(entry_of(&s, "none")) &&
	   has_type(entry_of(&s, "sys")) && has_type(entry_of(&s, "nsys")),
	   "READDIR as AUTH_SYS: sec=none's entry WRONGSEC, sec=sys's its type");
	v4op_readdir(&ops[1], 0, 32768, type_only, 1);
	ok(call_as(AUTH_NONE, ops, 2, &s, &n) == NFS4ERR_WRONGSEC && n == 2,
	   "READDIR as AUTH_NONE without rdattr_error asked: WRONGSEC (RFC 7530 16.24.4)");
	v4_res_free(&s);
}

static void test_putfh_rules(void)
{
	struct nfs_argop4 ops[4];
	uint32_t words[1] = { 1u << 1 /* type */ };
	struct v4_res s;
	uint32_t n;

	v4_res_init(&s);
	v4op_putfh(&ops[0], &fh_sys);
	v4op_getattr(&ops[1], words, 1);
	ok(call_as(AUTH_NONE, ops, 2, &s, &n) == NFS4ERR_WRONGSEC && n == 1,
	   "PUTFH (sec=sys) + GETATTR as AUTH_NONE: WRONGSEC on the PUTFH");
	ok(call_as(AUTH_SYS, ops, 2, &s, &n) == NFS4_OK && n == 2,
	   "... as AUTH_SYS: OK");
	ok(call_as(AUTH_NONE, ops, 1, &s, &n) == NFS4_OK && n == 1,
	   "PUTFH (sec=sys) alone, last: no check");
	v4op_putfh(&ops[0], &fh_none);
	ok(call_as(AUTH_SYS, ops, 2, &s, &n) == NFS4ERR_WRONGSEC && n == 1,
	   "PUTFH (sec=none) + GETATTR as AUTH_SYS: WRONGSEC");

	/* the next operation checks for itself */
	v4op_putfh(&ops[0], &fh_sys);
	v4op_lookup(&ops[1], "f");
	ok(call_as(AUTH_NONE, ops, 2, &s, &n) == NFS4ERR_WRONGSEC && n == 2 &&
	   v4_op_status(&s, 0) == NFS4_OK,
	   "PUTFH (sec=sys) + LOOKUP as AUTH_NONE: the LOOKUP answers WRONGSEC");
	v4op_putfh(&ops[0], &fh_sys);
	v4op_simple(&ops[1], OP_SAVEFH);
	v4op_simple(&ops[2], OP_RESTOREFH);
	v4op_getattr(&ops[3], words, 1);
	ok(call_as(AUTH_NONE, ops, 4, &s, &n) == NFS4ERR_WRONGSEC && n == 3 &&
	   v4_op_status(&s, 1) == NFS4_OK,
	   "PUTFH + SAVEFH + RESTOREFH + GETATTR as AUTH_NONE: SAVEFH passes, RESTOREFH WRONGSEC");
	v4op_putfh(&ops[0], &fh_sys);
	v4op_simple(&ops[1], OP_LOOKUPP);
	v4op_getattr(&ops[2], words, 1);
	ok(call_as(AUTH_NONE, ops, 3, &s, &n) == NFS4_OK && n == 3,
	   "PUTFH (sec=sys) + LOOKUPP into the pseudo file system as AUTH_NONE: OK");
	v4op_putfh(&ops[0], &fh_none);
	v4op_lookup(&ops[1], "d");
	v4op_simple(&ops[2], OP_LOOKUPP);
	ok(call_as(AUTH_NONE, ops, 3, &s, &n) == NFS4_OK && n == 3,
	   "LOOKUP and LOOKUPP inside sec=none as AUTH_NONE: OK");
	v4_res_free(&s);
}

static void test_secinfo40(void)
{
	struct nfs_argop4 ops[3];
	struct v4_res s;
	struct v4_fh dir, y;
	uint32_t n;
	static const struct {
		const char *name;
		const uint32_t *l;
		uint32_t n;
		const char *what;
	} e[] = {
		{ "sys", L_SYS, 1, "sec=sys: AUTH_SYS" },
		{ "none", L_NONE, 1, "sec=none: AUTH_NONE" },
		{ "both", L_SYS_NONE, 2, "sec=sys:none: AUTH_SYS, AUTH_NONE" },
		{ "nsys", L_NONE_SYS, 2, "sec=none:sys: AUTH_NONE, AUTH_SYS (the order written)" },
		{ "dflt", L_SYS_NONE, 2, "no sec=: AUTH_SYS, AUTH_NONE (knfsd's default)" },
	};
	size_t i;

	v4_res_init(&s);
	ok(v4_walk(fd, base, &dir) == NFS4_OK, "the pseudo directory above the exports");
	for (i = 0; i < sizeof(e) / sizeof(e[0]); i++) {
		v4op_putfh(&ops[0], &dir);
		secinfo_op(&ops[1], e[i].name);
		v4op_simple(&ops[2], OP_GETFH);
		ok(call_as(AUTH_NONE, ops, 3, &s, &n) == NFS4_OK && n == 3 &&
		   flavours_are(&s.ops[1].u.opsecinfo.u.resok4, e[i].l, e[i].n) &&
		   v4_fh_of_res(&s, 2, &y) && y.len == dir.len && memcmp(y.d, dir.d, y.len) == 0,
		   "SECINFO of an export, %s; 4.0 keeps the current filehandle", e[i].what);
	}
	/* PUTFH of an export the flavour may not use, then SECINFO: the
	 * exception (no WRONGSEC), so the client learns what to use */
	v4op_putfh(&ops[0], &fh_sys);
	secinfo_op(&ops[1], "f");
	ok(call_as(AUTH_NONE, ops, 2, &s, &n) == NFS4_OK && n == 2 &&
	   flavours_are(&s.ops[1].u.opsecinfo.u.resok4, L_SYS, 1),
	   "PUTFH (sec=sys) + SECINFO as AUTH_NONE: no WRONGSEC, AUTH_SYS listed");
	v4op_putfh(&ops[0], &fh_none);
	ok(call_as(AUTH_SYS, ops, 2, &s, &n) == NFS4_OK && n == 2 &&
	   flavours_are(&s.ops[1].u.opsecinfo.u.resok4, L_NONE, 1),
	   "PUTFH (sec=none) + SECINFO as AUTH_SYS: AUTH_NONE listed");
	v4op_simple(&ops[0], OP_PUTROOTFH);
	{
		/* the first component of BASE: a pseudo directory */
		char first[256];
		size_t l = strcspn(base + 1, "/");

		memcpy(first, base + 1, l);
		first[l] = 0;
		secinfo_op(&ops[1], first);
		ok(call_as(AUTH_SYS, ops, 2, &s, &n) == NFS4_OK && n == 2 &&
		   flavours_are(&s.ops[1].u.opsecinfo.u.resok4, L_SYS_NONE, 2),
		   "SECINFO of a pseudo directory: every flavour some export allows");
	}
	v4_res_free(&s);
}

/* OPEN checks the flavour itself (after PUTFH, which then does not). */
static void test_open(void)
{
	struct nfs_argop4 ops[2];
	struct v4_res s;
	clientid4 cid = 0;
	uint32_t n;

	v4_res_init(&s);
	ok(v4_client(fd, 0, "nfs-sec-open", true, &cid) == NFS4_OK, "a confirmed client");
	v4op_putfh(&ops[0], &fh_sys);
	v4op_open(&ops[1], 0, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, cid, "o1", "f");
	ok(call_as(AUTH_NONE, ops, 2, &s, &n) == NFS4ERR_WRONGSEC && n == 2 &&
	   v4_op_status(&s, 0) == NFS4_OK,
	   "PUTFH (sec=sys) + OPEN as AUTH_NONE: the OPEN answers WRONGSEC");
	v4op_putfh(&ops[0], &fh_none);
	v4op_open(&ops[1], 0, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, cid, "o2", "f");
	ok(call_as(AUTH_NONE, ops, 2, &s, &n) == NFS4_OK && n == 2,
	   "PUTFH (sec=none) + OPEN as AUTH_NONE: OK");
	v4_res_free(&s);
}

/* ---- NFSv4.1 ------------------------------------------------------------ */

static void test_v41(void)
{
	struct v4_session ses;
	struct nfs_argop4 ops[4];
	uint32_t words[1] = { 1u << 1 };
	struct v4_res r;

	memset(&ses, 0, sizeof(ses));
	v4_res_init(&r);
	ok(v4_session_open(fd, "nfs-sec-41", 1, 65536, 65536, 4096, 4, &ses) == NFS4_OK,
	   "4.1: a session");

	v4_flavor = AUTH_NONE;
	v4op_seq_next(&ops[0], &ses, 0, false);
	v4op_putfh(&ops[1], &fh_sys);
	v4op_secinfo_no_name(&ops[2], SECINFO_STYLE4_CURRENT_FH);
	v4op_simple(&ops[3], OP_GETFH);
	ok(v4_call41(fd, ops, 4, &r) && r.nops == 4 && v4_op_status(&r, 1) == NFS4_OK &&
	   v4_op_status(&r, 2) == NFS4_OK &&
	   flavours_are(&r.ops[2].u.opsecinfo_no_name.u.resok4, L_SYS, 1) &&
	   r.status == NFS4ERR_NOFILEHANDLE,
	   "4.1, AUTH_NONE: PUTFH (sec=sys) + SECINFO_NO_NAME lists AUTH_SYS, no WRONGSEC, and consumes the filehandle");
	v4op_seq_next(&ops[0], &ses, 0, false);
	v4op_putfh(&ops[1], &fh_sys);
	v4op_getattr(&ops[2], words, 1);
	ok(v4_call41(fd, ops, 3, &r) && r.nops == 2 && r.status == NFS4ERR_WRONGSEC,
	   "4.1, AUTH_NONE: PUTFH (sec=sys) + GETATTR: WRONGSEC on the PUTFH");
	v4op_seq_next(&ops[0], &ses, 0, false);
	v4op_putfh(&ops[1], &fh_both);
	v4op_secinfo_no_name(&ops[2], SECINFO_STYLE4_CURRENT_FH);
	ok(v4_call41(fd, ops, 3, &r) && r.status == NFS4_OK &&
	   flavours_are(&r.ops[2].u.opsecinfo_no_name.u.resok4, L_SYS_NONE, 2),
	   "4.1: SECINFO_NO_NAME of sec=sys:none lists AUTH_SYS, AUTH_NONE");
	v4op_seq_next(&ops[0], &ses, 0, false);
	v4op_putfh(&ops[1], &fh_none);
	v4op_secinfo_no_name(&ops[2], SECINFO_STYLE4_PARENT);
	ok(v4_call41(fd, ops, 3, &r) && r.status == NFS4_OK &&
	   flavours_are(&r.ops[2].u.opsecinfo_no_name.u.resok4, L_SYS_NONE, 2),
	   "4.1: SECINFO_NO_NAME of an export's parent lists the pseudo file system's flavours");
	v4op_seq_next(&ops[0], &ses, 0, false);
	v4op_putfh(&ops[1], &fh_dflt);
	secinfo_op(&ops[2], "f");
	v4op_simple(&ops[3], OP_GETFH);
	ok(v4_call41(fd, ops, 4, &r) && r.nops == 4 && v4_op_status(&r, 2) == NFS4_OK &&
	   flavours_are(&r.ops[2].u.opsecinfo.u.resok4, L_SYS_NONE, 2) &&
	   r.status == NFS4ERR_NOFILEHANDLE,
	   "4.1: SECINFO lists the flavours and consumes the current filehandle");
	v4_flavor = AUTH_SYS;
	v4op_seq_next(&ops[0], &ses, 0, false);
	v4op_putfh(&ops[1], &fh_none);
	v4op_getattr(&ops[2], words, 1);
	ok(v4_call41(fd, ops, 3, &r) && r.nops == 2 && r.status == NFS4ERR_WRONGSEC,
	   "4.1, AUTH_SYS: PUTFH (sec=none) + GETATTR: WRONGSEC");
	v4_res_free(&r);
}

/* Crossing a mount point into a nested export whose sec= differs. */
static void test_child(bool mounted)
{
	struct nfs_argop4 ops[3];
	struct raw_fh f3, x;
	struct v4_res s;
	struct v4_fh fh;
	uint32_t fl[8], n;

	if (!mounted) {
		printf("ok %d - nested export # SKIP not root or cannot mount a tmpfs\n",
		       ++tap__n);
		return;
	}
	ok(raw_mnt_flavors(fd, v4_path(base, "sys"), &f3, fl, 8, &n) == MNT3_OK &&
	   raw_lookup(fd, &f3, "child", &x) == NFS3ERR_ACCES,
	   "NFSv3 LOOKUP from sec=sys into a nested sec=none export as AUTH_SYS: ACCES");
	ok(raw_mnt_flavors(fd, v4_path(base, "sys/child"), &x, fl, 8, &n) == MNT3_OK && n == 1 &&
	   fl[0] == AUTH_NONE, "MNT of the nested export lists its own flavour");
	ok(walk_as(AUTH_SYS, "sys/child", &fh) == NFS4ERR_WRONGSEC,
	   "NFSv4 LOOKUP from sec=sys into the nested sec=none export as AUTH_SYS: WRONGSEC");
	v4_res_init(&s);
	v4op_putfh(&ops[0], &fh_sys);
	v4op_lookup(&ops[1], "child");
	v4op_simple(&ops[2], OP_GETFH);
	ok(call_as(AUTH_NONE, ops, 3, &s, &n) == NFS4_OK && n == 3,
	   "PUTFH (sec=sys) + LOOKUP into the nested sec=none export as AUTH_NONE: OK "
	   "(the LOOKUP checks what it reaches)");
	v4_res_free(&s);
}

/* The second server: sec=sys exports only, so the pseudo file system
 * takes AUTH_SYS alone. */
static void test_sys_only(int port2)
{
	struct nfs_argop4 ops[2];
	uint32_t words[1] = { 1u << 1 };
	struct v4_res s;
	struct v4_fh fh;
	uint32_t n;
	int keep = fd;

	fd = rpc_connect((uint16_t)port2, 5000);
	ok(fd >= 0, "connect to the sec=sys-only server");
	if (fd < 0) {
		fd = keep;
		return;
	}
	v4_res_init(&s);
	v4op_simple(&ops[0], OP_PUTROOTFH);
	v4op_getattr(&ops[1], words, 1);
	ok(call_as(AUTH_NONE, ops, 2, &s, &n) == NFS4ERR_WRONGSEC && n == 1,
	   "only sec=sys exports: PUTROOTFH + GETATTR as AUTH_NONE: WRONGSEC");
	ok(call_as(AUTH_SYS, ops, 2, &s, &n) == NFS4_OK, "... as AUTH_SYS: OK");
	ok(walk_as(AUTH_SYS, "only", &fh) == NFS4_OK, "AUTH_SYS walks to the export");
	v4_res_free(&s);
	close(fd);
	fd = keep;
}

int main(int argc, char **argv)
{
	int port, port2;

	if (argc != 7) {
		fprintf(stderr, "usage: %s PORT PORT2 BASE REFUSED RELOAD_KEPT CHILD\n", argv[0]);
		return 2;
	}
	port = atoi(argv[1]);
	port2 = atoi(argv[2]);
	base = argv[3];
	ok(strcmp(argv[4], "1") == 0,
	   "nfsxd refuses to start on sec=krb5p, naming the line (exit status 1)");
	ok(strcmp(argv[5], "1") == 0,
	   "a reload asking for sec=krb5p is refused, naming the line; the exports in use stay");
	fd = rpc_connect((uint16_t)port, 5000);
	if (fd < 0) {
		printf("Bail out! cannot connect to 127.0.0.1:%d\n", port);
		return 1;
	}
	test_mount_v3();
	test_walks();
	test_readdir();
	test_putfh_rules();
	test_secinfo40();
	test_open();
	test_v41();
	test_child(strcmp(argv[6], "1") == 0);
	test_sys_only(port2);
	close(fd);
	return tap_done();
}
