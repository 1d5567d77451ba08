/* SPDX-License-Identifier: MIT */
/*
 * Tests of the committed codecs generated from proto/nfs3.x and
 * proto/mount3.x (RFC 1813):
 * - byte arrays computed by hand from the RFC for LOOKUP3args,
 *   GETATTR3res, SETATTR3args, READDIR3res, mountres3, the MNT argument
 *   and an exports list, so that the codecs are checked against the
 *   RFC and not only against themselves;
 * - round trips of the arguments and results (OK and failure arms) of
 *   every NFS v3 and MOUNT v3 procedure, every set_* arm, createhow3
 *   arm, ftype3 arm of mknoddata3 and stable_how, each with every strict
 *   prefix of its encoding refused (inputs end at a guard page) and the
 *   decoded value re-encoding to the same bytes;
 * - bounds: file handles of 65 bytes, MOUNT paths and names one byte
 *   too long, enum values and bools that are not members, lengths that
 *   claim more than was received;
 * - READDIR/READDIRPLUS/EXPORT lists of 100,000 entries encoded and
 *   decoded on a thread with a 64 KiB stack (lists are loops).
 * rpc.h and rpcbind.h are included too: the four generated headers must
 * compile together.
 */
#include <pthread.h>
#include <stdint.h>

#include "../../tap.h"
#include "xdrtest.h"
#include "xdr/gen/mount3.h"
#include "xdr/gen/nfs3.h"
#include "xdr/gen/rpc.h"
#include "xdr/gen/rpcbind.h"

static struct guard g;

#define BYTES(s) ((struct xdr_bytes){ (const uint8_t *)(s), sizeof(s) - 1 })

typedef bool (*enc_fn)(struct xdr_enc *e, const void *v);

#define CODEC(name, ctype)						\
	DEC_FN(name, ctype)						\
	__attribute__((unused))						\
	static bool enc_##name(struct xdr_enc *e, const void *v)	\
	{								\
		return xdr_enc_##name(e, (const ctype *)v);		\
	}

CODEC(nfs_fh3, struct nfs_fh3)
CODEC(fattr3, struct fattr3)
CODEC(post_op_attr, struct post_op_attr)
CODEC(sattr3, struct sattr3)
CODEC(GETATTR3args, struct GETATTR3args)
CODEC(GETATTR3res, struct GETATTR3res)
CODEC(SETATTR3args, struct SETATTR3args)
CODEC(SETATTR3res, struct SETATTR3res)
CODEC(LOOKUP3args, struct LOOKUP3args)
CODEC(LOOKUP3res, struct LOOKUP3res)
CODEC(ACCESS3args, struct ACCESS3args)
CODEC(ACCESS3res, struct ACCESS3res)
CODEC(READLINK3args, struct READLINK3args)
CODEC(READLINK3res, struct READLINK3res)
CODEC(READ3args, struct READ3args)
CODEC(READ3res, struct READ3res)
CODEC(WRITE3args, struct WRITE3args)
CODEC(WRITE3res, struct WRITE3res)
CODEC(CREATE3args, struct CREATE3args)
CODEC(CREATE3res, struct CREATE3res)
CODEC(MKDIR3args, struct MKDIR3args)
CODEC(MKDIR3res, struct MKDIR3res)
CODEC(SYMLINK3args, struct SYMLINK3args)
CODEC(SYMLINK3res, struct SYMLINK3res)
CODEC(MKNOD3args, struct MKNOD3args)
CODEC(MKNOD3res, struct MKNOD3res)
CODEC(REMOVE3args, struct REMOVE3args)
CODEC(REMOVE3res, struct REMOVE3res)
CODEC(RMDIR3args, struct RMDIR3args)
CODEC(RMDIR3res, struct RMDIR3res)
CODEC(RENAME3args, struct RENAME3args)
CODEC(RENAME3res, struct RENAME3res)
CODEC(LINK3args, struct LINK3args)
CODEC(LINK3res, struct LINK3res)
CODEC(READDIR3args, struct READDIR3args)
CODEC(READDIR3res, struct READDIR3res)
CODEC(READDIRPLUS3args, struct READDIRPLUS3args)
CODEC(READDIRPLUS3res, struct READDIRPLUS3res)
CODEC(FSSTAT3args, struct FSSTAT3args)
CODEC(FSSTAT3res, struct FSSTAT3res)
CODEC(FSINFO3args, struct FSINFO3args)
CODEC(FSINFO3res, struct FSINFO3res)
CODEC(PATHCONF3args, struct PATHCONF3args)
CODEC(PATHCONF3res, struct PATHCONF3res)
CODEC(COMMIT3args, struct COMMIT3args)
CODEC(COMMIT3res, struct COMMIT3res)
CODEC(dirpath3, dirpath3)
CODEC(mntname3, mntname3)
CODEC(fhandle3, fhandle3)
CODEC(mountres3, struct mountres3)
CODEC(mountlist3, mountlist3)
CODEC(exports3, exports3)

static uint8_t enc_a[16384], enc_b[16384];

/*
 * Encode @v, check every strict prefix fails and the whole decodes,
 * and that the decoded value re-encodes to the same bytes. Quiet:
 * returns whether all of that held (@len: the encoded length).
 */
static bool trip(enc_fn enc, dec_fn dec, const void *v, size_t *len)
{
	struct xdr_enc e;

	xdr_enc_init(&e, enc_a, sizeof(enc_a));
	if (!enc(&e, v)) {
		printf("# encoding failed\n");
		return false;
	}
	*len = xdr_enc_len(&e);
	if (check_prefixes(&g, enc_a, *len, dec))
		return false;
	/* check_obj holds the whole decode, its views still valid */
	xdr_enc_init(&e, enc_b, sizeof(enc_b));
	if (!enc(&e, check_obj) || !bytes_eq(enc_b, xdr_enc_len(&e), enc_a, *len)) {
		printf("# decoded value does not re-encode to the same bytes\n");
		return false;
	}
	return true;
}

/* trip() as one assertion, plus the bytes computed by hand if given. */
static void round_trip(const char *what, enc_fn enc, dec_fn dec, const void *v,
		       const uint8_t *want, size_t want_len)
{
	size_t len = 0;
	bool good = trip(enc, dec, v, &len);

	ok(good, "%s: round trip, all %zu strict prefixes refused", what, len);
	if (want)
		ok(bytes_eq(enc_a, len, want, want_len),
		   "%s: bytes as computed by hand from RFC 1813", what);
}

#define RT(T, v, what) round_trip(what, enc_##T, dec_##T, (v), NULL, 0)
#define RT_BYTES(T, v, what, want) \
	round_trip(what, enc_##T, dec_##T, (v), (want), sizeof(want))

/* Decode @len bytes at the guard page with a fresh arena. */
static bool dec_at(const void *buf, size_t len, dec_fn fn, void *out)
{
	struct xdr_arena a;
	struct xdr_dec d;

	xdr_arena_init(&a, check_arena_mem, sizeof(check_arena_mem));
	xdr_dec_init(&d, guard_put(&g, buf, len), len, &a);
	return fn(&d, out) && !xdr_dec_left(&d);
}

/* ---------------------------------------------------------------- */
/* Values                                                            */

static uint8_t fh_mem[NFS3_FHSIZE + 4];

static struct nfs_fh3 fh(uint32_t len)
{
	return (struct nfs_fh3){ { fh_mem, len } };
}

#define T1700 0x6553f100u	/* 1700000000: 2023-11-14T22:13:20Z */

static struct fattr3 attr(enum ftype3 type)
{
	return (struct fattr3){
		.type = type, .mode = 0644, .nlink = 2, .uid = 1000, .gid = 100,
		.size = 0x100000002ull, .used = 4096, .rdev = { 0, 0 },
		.fsid = 0x1122334455667788ull, .fileid = 42,
		.atime = { T1700, 1 }, .mtime = { T1700 + 1, 2 },
		.ctime = { T1700 + 2, 999999999 },
	};
}

static struct post_op_attr post(bool follow)
{
	struct post_op_attr p = { .attributes_follow = follow };

	if (follow)
		p.u.attributes = attr(NF3DIR);
	return p;
}

static struct wcc_data wcc(bool before, bool after)
{
	struct wcc_data w = { .before = { .attributes_follow = before },
			      .after = post(after) };

	if (before)
		w.before.u.attributes = (struct wcc_attr){
			4096, { T1700, 5 }, { T1700, 6 } };
	return w;
}

static struct post_op_fh3 post_fh(bool follow)
{
	struct post_op_fh3 p = { .handle_follows = follow };

	if (follow)
		p.u.handle = fh(NFS3_FHSIZE);
	return p;
}

/* A sattr3 setting every attribute, the times to the client's. */
static struct sattr3 sattr_all(void)
{
	struct sattr3 s = { 0 };

	s.mode.set_it = true;
	s.mode.u.mode = 04755;
	s.uid.set_it = true;
	s.uid.u.uid = 0;
	s.gid.set_it = true;
	s.gid.u.gid = 65534;
	s.size.set_it = true;
	s.size.u.size = UINT64_MAX;
	s.atime.set_it = SET_TO_CLIENT_TIME;
	s.atime.u.atime = (struct nfstime3){ 1, 2 };
	s.mtime.set_it = SET_TO_CLIENT_TIME;
	s.mtime.u.mtime = (struct nfstime3){ 3, 4 };
	return s;
}

static struct diropargs3 dirop(uint32_t fhlen, struct xdr_bytes name)
{
	return (struct diropargs3){ fh(fhlen), name };
}

/* ---------------------------------------------------------------- */
/* Byte arrays computed by hand from RFC 1813                        */

static const uint8_t fh10[10] = { 0xfa, 0xce, 0, 1, 2, 3, 4, 5, 6, 7 };

/* LOOKUP3args: diropargs3 { nfs_fh3 dir; filename3 name; } */
static const uint8_t w_lookup_args[] = {
	0, 0, 0, 10,				/* dir.data: 10 bytes */
	0xfa, 0xce, 0, 1, 2, 3, 4, 5, 6, 7, 0, 0,	/* + 2 of padding */
	0, 0, 0, 7,				/* name: 7 bytes */
	'f', 'o', 'o', '.', 't', 'x', 't', 0,	/* + 1 of padding */
};

/* GETATTR3res, NFS3_OK: the fattr3 of section 2.5 */
static const uint8_t w_getattr_ok[] = {
	0, 0, 0, 0,				/* status NFS3_OK */
	0, 0, 0, 1,				/* type NF3REG */
	0, 0, 0x01, 0xa4,			/* mode 0644 */
	0, 0, 0, 2,				/* nlink */
	0, 0, 0x03, 0xe8,			/* uid 1000 */
	0, 0, 0, 100,				/* gid */
	0, 0, 0, 1, 0, 0, 0, 2,			/* size 0x100000002 */
	0, 0, 0, 0, 0, 0, 0x10, 0,		/* used 4096 */
	0, 0, 0, 0, 0, 0, 0, 0,			/* rdev: specdata1, 2 */
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,	/* fsid */
	0, 0, 0, 0, 0, 0, 0, 42,		/* fileid */
	0x65, 0x53, 0xf1, 0x00, 0, 0, 0, 1,	/* atime 1700000000 s, 1 ns */
	0x65, 0x53, 0xf1, 0x01, 0, 0, 0, 2,	/* mtime */
	0x65, 0x53, 0xf1, 0x02, 0x3b, 0x9a, 0xc9, 0xff,	/* ctime, 999999999 ns */
};

static const uint8_t w_getattr_stale[] = { 0, 0, 0, 70 };	/* NFS3ERR_STALE */

/* SETATTR3args: handle, sattr3 (one arm of each kind), guard */
static const uint8_t w_setattr_args[] = {
	0, 0, 0, 4, 1, 2, 3, 4,			/* object: 4 bytes */
	0, 0, 0, 1, 0, 0, 0x01, 0xed,		/* mode: set_it TRUE, 0755 */
	0, 0, 0, 0,				/* uid: set_it FALSE */
	0, 0, 0, 1, 0, 0, 0, 100,		/* gid: TRUE, 100 */
	0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,	/* size: TRUE, 0 */
	0, 0, 0, 1,				/* atime: SET_TO_SERVER_TIME */
	0, 0, 0, 2, 0x65, 0x53, 0xf1, 0x00, 0, 0, 0, 5,	/* mtime: CLIENT */
	0, 0, 0, 1, 0x65, 0x53, 0xf1, 0x02, 0, 0, 0, 0,	/* guard: check ctime */
};

/* READDIR3res, NFS3_OK, two entries */
static const uint8_t w_readdir_res[] = {
	0, 0, 0, 0,				/* NFS3_OK */
	0, 0, 0, 0,				/* dir_attributes: none */
	1, 2, 3, 4, 5, 6, 7, 8,			/* cookieverf */
	0, 0, 0, 1,				/* entries: one follows */
	0, 0, 0, 0, 0, 0, 0, 2,			/* fileid 2 */
	0, 0, 0, 1, '.', 0, 0, 0,		/* name "." */
	0, 0, 0, 0, 0, 0, 0, 1,			/* cookie 1 */
	0, 0, 0, 1,				/* nextentry follows */
	0, 0, 0, 0, 0, 0, 0, 99,		/* fileid 99 */
	0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o', 0, 0, 0,	/* name "hello" */
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,	/* cookie */
	0, 0, 0, 0,				/* no nextentry */
	0, 0, 0, 1,				/* eof TRUE */
};

/* mountres3, MNT3_OK: fhandle3 and auth_flavors<> */
static const uint8_t w_mountres_ok[] = {
	0, 0, 0, 0,				/* MNT3_OK */
	0, 0, 0, 8, 0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 1,	/* fhandle */
	0, 0, 0, 3,				/* 3 flavors */
	0, 0, 0, 1,				/* AUTH_SYS */
	0, 0, 0, 0,				/* AUTH_NONE */
	0, 0x05, 0xf3, 0x73,			/* 390003 (RPCSEC_GSS krb5) */
};

static const uint8_t w_mountres_acces[] = { 0, 0, 0, 13 };	/* MNT3ERR_ACCES */

/* MNT argument: dirpath */
static const uint8_t w_mnt_args[] = {
	0, 0, 0, 7, '/', 'e', 'x', 'p', 'o', 'r', 't', 0,
};

/* EXPORT result: exports, two nodes, the first with two groups */
static const uint8_t w_exports[] = {
	0, 0, 0, 1,				/* an exportnode follows */
	0, 0, 0, 7, '/', 'e', 'x', 'p', 'o', 'r', 't', 0,	/* ex_dir */
	0, 0, 0, 1,				/* ex_groups: one follows */
	0, 0, 0, 5, 'h', 'o', 's', 't', '1', 0, 0, 0,
	0, 0, 0, 1,				/* gr_next follows */
	0, 0, 0, 5, '*', '.', 'l', 'a', 'n', 0, 0, 0,
	0, 0, 0, 0,				/* end of groups */
	0, 0, 0, 1,				/* ex_next follows */
	0, 0, 0, 4, '/', 's', 'r', 'v',
	0, 0, 0, 0,				/* no groups */
	0, 0, 0, 0,				/* end of exports */
};

static void test_hand_bytes(void)
{
	struct LOOKUP3args la = { { { { fh10, 10 } }, BYTES("foo.txt") } };
	struct GETATTR3res gr = { .status = NFS3_OK };
	static const uint8_t fh4[] = { 1, 2, 3, 4 };
	struct SETATTR3args sa = { .object = { { fh4, 4 } } };
	struct entry3 e2 = { 99, BYTES("hello"), 0xfffffffffffffffeull, NULL };
	struct entry3 e1 = { 2, BYTES("."), 1, &e2 };
	struct READDIR3res rr = { .status = NFS3_OK };
	int32_t flavors[] = { AUTH_SYS, AUTH_NONE, 390003 };
	static const uint8_t mfh[] = { 0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 1 };
	struct mountres3 mr = { .fhs_status = MNT3_OK };
	dirpath3 path = BYTES("/export");
	struct groupnode g2 = { BYTES("*.lan"), NULL };
	struct groupnode g1 = { BYTES("host1"), &g2 };
	struct exportnode x2 = { BYTES("/srv"), NULL, NULL };
	struct exportnode x1 = { BYTES("/export"), &g1, &x2 };
	exports3 ex = &x1, exout;
	struct LOOKUP3args lgot;
	struct GETATTR3res ggot;
	struct READDIR3res rgot;
	struct mountres3 mgot;
	const struct fattr3 *f;
	const struct entry3 *en;

	RT_BYTES(LOOKUP3args, &la, "LOOKUP3args", w_lookup_args);
	ok(dec_at(w_lookup_args, sizeof(w_lookup_args), dec_LOOKUP3args, &lgot) &&
	   lgot.what.dir.data.len == 10 && !memcmp(lgot.what.dir.data.data, fh10, 10) &&
	   lgot.what.name.len == 7 && !memcmp(lgot.what.name.data, "foo.txt", 7),
	   "LOOKUP3args decodes: 10-byte handle, name foo.txt");

	gr.u.resok.obj_attributes = attr(NF3REG);
	RT_BYTES(GETATTR3res, &gr, "GETATTR3res NFS3_OK", w_getattr_ok);
	f = &ggot.u.resok.obj_attributes;
	ok(dec_at(w_getattr_ok, sizeof(w_getattr_ok), dec_GETATTR3res, &ggot) &&
	   ggot.status == NFS3_OK && f->type == NF3REG && f->mode == 0644 &&
	   f->nlink == 2 && f->uid == 1000 && f->gid == 100 &&
	   f->size == 0x100000002ull && f->used == 4096 && f->fsid == 0x1122334455667788ull &&
	   f->fileid == 42 && f->atime.seconds == 1700000000u && f->atime.nseconds == 1 &&
	   f->ctime.nseconds == 999999999u,
	   "GETATTR3res decodes: every fattr3 field");
	gr.status = NFS3ERR_STALE;
	RT_BYTES(GETATTR3res, &gr, "GETATTR3res NFS3ERR_STALE (void arm)", w_getattr_stale);

	sa.new_attributes.mode.set_it = true;
	sa.new_attributes.mode.u.mode = 0755;
	sa.new_attributes.gid.set_it = true;
	sa.new_attributes.gid.u.gid = 100;
	sa.new_attributes.size.set_it = true;
	sa.new_attributes.atime.set_it = SET_TO_SERVER_TIME;
	sa.new_attributes.mtime.set_it = SET_TO_CLIENT_TIME;
	sa.new_attributes.mtime.u.mtime = (struct nfstime3){ T1700, 5 };
	sa.guard.check = true;
	sa.guard.u.obj_ctime = (struct nfstime3){ T1700 + 2, 0 };
	RT_BYTES(SETATTR3args, &sa, "SETATTR3args", w_setattr_args);

	rr.u.resok.dir_attributes.attributes_follow = false;
	memcpy(rr.u.resok.cookieverf.val, "\1\2\3\4\5\6\7\10", 8);
	rr.u.resok.reply.entries = &e1;
	rr.u.resok.reply.eof = true;
	RT_BYTES(READDIR3res, &rr, "READDIR3res, 2 entries", w_readdir_res);
	ok(dec_at(w_readdir_res, sizeof(w_readdir_res), dec_READDIR3res, &rgot) &&
	   (en = rgot.u.resok.reply.entries) && en->fileid == 2 && en->name.len == 1 && en->cookie == 1 &&
	   en->nextentry && en->nextentry->fileid == 99 &&
	   en->nextentry->name.len == 5 &&
	   en->nextentry->cookie == 0xfffffffffffffffeull &&
	   !en->nextentry->nextentry && rgot.u.resok.reply.eof,
	   "READDIR3res decodes: entries in order, eof");

	mr.u.mountinfo.fhandle = (fhandle3){ mfh, sizeof(mfh) };
	mr.u.mountinfo.auth_flavors.len = 3;
	mr.u.mountinfo.auth_flavors.val = flavors;
	RT_BYTES(mountres3, &mr, "mountres3 MNT3_OK", w_mountres_ok);
	ok(dec_at(w_mountres_ok, sizeof(w_mountres_ok), dec_mountres3, &mgot) &&
	   mgot.fhs_status == MNT3_OK && mgot.u.mountinfo.fhandle.len == 8 &&
	   mgot.u.mountinfo.auth_flavors.len == 3 &&
	   mgot.u.mountinfo.auth_flavors.val[0] == AUTH_SYS &&
	   mgot.u.mountinfo.auth_flavors.val[2] == 390003,
	   "mountres3 decodes: handle, flavors AUTH_SYS, AUTH_NONE, 390003");
	mr.fhs_status = MNT3ERR_ACCES;
	RT_BYTES(mountres3, &mr, "mountres3 MNT3ERR_ACCES", w_mountres_acces);
	RT_BYTES(dirpath3, &path, "MNT argument (dirpath)", w_mnt_args);
	RT_BYTES(exports3, &ex, "exports, 2 nodes, groups", w_exports);
	ok(dec_at(w_exports, sizeof(w_exports), dec_exports3, &exout) && exout &&
	   exout->ex_dir.len == 7 && exout->ex_groups &&
	   exout->ex_groups->gr_next && exout->ex_groups->gr_next->gr_name.len == 5 &&
	   !exout->ex_groups->gr_next->gr_next && exout->ex_next &&
	   exout->ex_next->ex_dir.len == 4 && !exout->ex_next->ex_groups &&
	   !exout->ex_next->ex_next, "exports decode: nodes and groups in order");
}

/* ---------------------------------------------------------------- */
/* Arguments of every procedure                                      */

static void test_setattr_arms(void)
{
	static const enum time_how hows[] = {
		DONT_CHANGE, SET_TO_SERVER_TIME, SET_TO_CLIENT_TIME };
	struct SETATTR3args sa = { .object = fh(32) };
	struct sattr3 *s = &sa.new_attributes;
	unsigned int bits, at, mt, n = 0, bad = 0;
	size_t len, min = SIZE_MAX, max = 0;

	/* mode, uid, gid, size, guard set or not x 3 atime x 3 mtime arms */
	for (bits = 0; bits < 32; bits++)
		for (at = 0; at < 3; at++)
			for (mt = 0; mt < 3; mt++) {
				memset(s, 0, sizeof(*s));
				s->mode.set_it = bits & 1;
				s->mode.u.mode = 0640;
				s->uid.set_it = bits & 2;
				s->uid.u.uid = 1001;
				s->gid.set_it = bits & 4;
				s->gid.u.gid = 1002;
				s->size.set_it = bits & 8;
				s->size.u.size = 1ull << 40;
				s->atime.set_it = hows[at];
				s->atime.u.atime = (struct nfstime3){ 7, 8 };
				s->mtime.set_it = hows[mt];
				s->mtime.u.mtime = (struct nfstime3){ 9, 10 };
				sa.guard.check = bits & 16;
				sa.guard.u.obj_ctime = (struct nfstime3){ 11, 12 };
				n++;
				if (!trip(enc_SETATTR3args, dec_SETATTR3args, &sa, &len))
					bad++;
				min = len < min ? len : min;
				max = len > max ? len : max;
			}
	/* fh 4+32, 6 discriminants + guard; all set: +4+4+4+8+8+8+8 */
	ok(n == 288 && bad == 0 && min == 36 + 28 && max == 36 + 28 + 44,
	   "SETATTR3args: all %u combinations of set_* arms and guard round-trip "
	   "(%zu..%zu bytes)", n, min, max);
	*s = sattr_all();
	RT(sattr3, s, "sattr3 setting everything");
}

static void test_args(void)
{
	static const uint8_t data[] = "0123456789abcdefghij";
	static const enum stable_how stables[] = { UNSTABLE, DATA_SYNC, FILE_SYNC };
	static const enum ftype3 types[] = {
		NF3REG, NF3DIR, NF3BLK, NF3CHR, NF3LNK, NF3SOCK, NF3FIFO };
	struct GETATTR3args ga = { fh(NFS3_FHSIZE) };
	struct ACCESS3args aa = { fh(8), ACCESS3_READ | ACCESS3_LOOKUP |
		ACCESS3_MODIFY | ACCESS3_EXTEND | ACCESS3_DELETE | ACCESS3_EXECUTE };
	struct READLINK3args rla = { fh(1) };
	struct READ3args ra = { fh(28), UINT64_MAX - 4095, 1048576 };
	struct WRITE3args wa = { fh(28), 8192, 0, UNSTABLE, { NULL, 0 } };
	struct CREATE3args ca = { dirop(16, BYTES("new file")), { .mode = UNCHECKED } };
	struct MKDIR3args mda = { dirop(16, BYTES("d")), sattr_all() };
	struct SYMLINK3args sla = { dirop(16, BYTES("link")),
				    { sattr_all(), BYTES("../target/path") } };
	struct MKNOD3args mna = { .where = dirop(16, BYTES("node")) };
	struct REMOVE3args rma = { dirop(0, BYTES("x")) };
	struct RMDIR3args rda = { dirop(64, BYTES("some directory")) };
	struct RENAME3args rna = { dirop(8, BYTES("from")), dirop(12, BYTES("to name")) };
	struct LINK3args lka = { fh(20), dirop(24, BYTES("hard")) };
	struct READDIR3args rdd = { fh(32), 12345, { { 1, 2, 3, 4, 5, 6, 7, 8 } }, 4096 };
	struct READDIRPLUS3args rdp = { fh(32), 0, { { 0 } }, 8192, 32768 };
	struct FSSTAT3args fsa = { fh(32) };
	struct FSINFO3args fia = { fh(32) };
	struct PATHCONF3args pca = { fh(32) };
	struct COMMIT3args cma = { fh(32), 0, 0 };
	struct WRITE3args wgot;
	const uint8_t *in;
	unsigned int i, n, bad;
	size_t len, dlen;
	char what[64];

	RT(GETATTR3args, &ga, "GETATTR3args (64-byte handle)");
	test_setattr_arms();
	RT(ACCESS3args, &aa, "ACCESS3args (every ACCESS3_* bit)");
	RT(READLINK3args, &rla, "READLINK3args");
	RT(READ3args, &ra, "READ3args");

	for (i = 0; i < 3; i++)
		for (dlen = 0; dlen <= 5; dlen++) {
			wa.stable = stables[i];
			wa.count = (uint32_t)dlen;
			wa.data = (struct xdr_bytes){ data, (uint32_t)dlen };
			snprintf(what, sizeof(what), "WRITE3args stable %d, %zu bytes",
				 (int)stables[i], dlen);
			RT(WRITE3args, &wa, what);
		}
	wa.data = (struct xdr_bytes){ data, 20 };
	{
		struct xdr_enc e;

		xdr_enc_init(&e, enc_a, sizeof(enc_a));
		len = xdr_enc_WRITE3args(&e, &wa) ? xdr_enc_len(&e) : 0;
	}
	in = guard_put(&g, enc_a, len);
	{
		struct xdr_arena a;
		struct xdr_dec d;

		xdr_arena_init(&a, check_arena_mem, sizeof(check_arena_mem));
		xdr_dec_init(&d, in, len, &a);
		ok(len == 4 + 28 + 8 + 4 + 4 + 4 + 20 && xdr_dec_WRITE3args(&d, &wgot) &&
		   wgot.data.len == 20 && wgot.data.data == in + len - 20 &&
		   !memcmp(wgot.data.data, data, 20) && a.used == 0,
		   "WRITE3args data decodes as a view into the message, nothing allocated");
	}

	ca.how.u.obj_attributes = sattr_all();
	RT(CREATE3args, &ca, "CREATE3args UNCHECKED");
	ca.how.mode = GUARDED;
	ca.how.u.obj_attributes.mode.set_it = false;
	RT(CREATE3args, &ca, "CREATE3args GUARDED");
	ca.how.mode = EXCLUSIVE;
	memcpy(ca.how.u.verf.val, "\x01\x23\x45\x67\x89\xab\xcd\xef", 8);
	RT(CREATE3args, &ca, "CREATE3args EXCLUSIVE (verifier)");
	{
		static const uint8_t tail[] = {
			0, 0, 0, 2, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
		struct xdr_enc e;

		xdr_enc_init(&e, enc_a, sizeof(enc_a));
		ok(xdr_enc_CREATE3args(&e, &ca) && xdr_enc_len(&e) == 20 + 12 + 12 &&
		   !memcmp(enc_a + 32, tail, sizeof(tail)),
		   "CREATE3args EXCLUSIVE: mode 2 then the 8 verifier bytes, unpadded");
	}

	RT(MKDIR3args, &mda, "MKDIR3args");
	RT(SYMLINK3args, &sla, "SYMLINK3args");
	for (i = n = bad = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		mna.what.type = types[i];
		if (types[i] == NF3CHR || types[i] == NF3BLK)
			mna.what.u.device = (struct devicedata3){
				sattr_all(), { 8, (uint32_t)i } };
		else
			mna.what.u.pipe_attributes = sattr_all();
		snprintf(what, sizeof(what), "MKNOD3args ftype3 %d", (int)types[i]);
		RT(MKNOD3args, &mna, what);
		/* handle 20 + name 8 + type 4, then the arm (sattr3: 60) */
		{
			struct xdr_enc e;
			size_t arm;

			xdr_enc_init(&e, enc_a, sizeof(enc_a));
			arm = types[i] == NF3CHR || types[i] == NF3BLK ? 60 + 8 :
			      types[i] == NF3SOCK || types[i] == NF3FIFO ? 60 : 0;
			n++;
			if (!xdr_enc_MKNOD3args(&e, &mna) || xdr_enc_len(&e) != 32 + arm)
				bad++;
		}
	}
	ok(n == 7 && bad == 0,
	   "MKNOD3args: devicedata3 for CHR/BLK, sattr3 for SOCK/FIFO, void otherwise");
	RT(REMOVE3args, &rma, "REMOVE3args (empty handle)");
	RT(RMDIR3args, &rda, "RMDIR3args");
	RT(RENAME3args, &rna, "RENAME3args");
	RT(LINK3args, &lka, "LINK3args");
	RT(READDIR3args, &rdd, "READDIR3args");
	RT(READDIRPLUS3args, &rdp, "READDIRPLUS3args");
	RT(FSSTAT3args, &fsa, "FSSTAT3args");
	RT(FSINFO3args, &fia, "FSINFO3args");
	RT(PATHCONF3args, &pca, "PATHCONF3args");
	RT(COMMIT3args, &cma, "COMMIT3args");
}

/* ---------------------------------------------------------------- */
/* Results of every procedure                                        */

static void test_results(void)
{
	static const uint8_t data[] = "file contents";
	static const enum stable_how stables[] = { UNSTABLE, DATA_SYNC, FILE_SYNC };
	struct SETATTR3res sr = { NFS3_OK, { .resok = { wcc(true, true) } } };
	struct LOOKUP3res lr = { .status = NFS3_OK };
	struct ACCESS3res ar = { .status = NFS3_OK };
	struct READLINK3res rlr = { .status = NFS3_OK };
	struct READ3res rr = { .status = NFS3_OK };
	struct WRITE3res wr = { .status = NFS3_OK };
	struct CREATE3res cr = { .status = NFS3_OK };
	struct MKDIR3res mdr = { .status = NFS3_OK };
	struct SYMLINK3res slr = { .status = NFS3_OK };
	struct MKNOD3res mnr = { .status = NFS3_OK };
	struct REMOVE3res rmr = { NFS3_OK, { .resok = { wcc(true, false) } } };
	struct RMDIR3res rdr = { NFS3_OK, { .resok = { wcc(false, true) } } };
	struct RENAME3res rnr = { .status = NFS3_OK };
	struct LINK3res lkr = { .status = NFS3_OK };
	struct FSSTAT3res fsr = { .status = NFS3_OK };
	struct FSINFO3res fir = { .status = NFS3_OK };
	struct PATHCONF3res pcr = { .status = NFS3_OK };
	struct COMMIT3res cmr = { .status = NFS3_OK };
	unsigned int i;
	char what[64];

	RT(SETATTR3res, &sr, "SETATTR3res OK");
	sr.status = NFS3ERR_NOT_SYNC;
	sr.u.resfail.obj_wcc = wcc(true, false);
	RT(SETATTR3res, &sr, "SETATTR3res NFS3ERR_NOT_SYNC");

	lr.u.resok = (struct LOOKUP3resok){ fh(40), post(true), post(true) };
	RT(LOOKUP3res, &lr, "LOOKUP3res OK");
	lr.u.resok.obj_attributes = post(false);
	RT(LOOKUP3res, &lr, "LOOKUP3res OK, no object attributes");
	lr.status = NFS3ERR_NOENT;
	lr.u.resfail.dir_attributes = post(true);
	RT(LOOKUP3res, &lr, "LOOKUP3res NFS3ERR_NOENT");

	ar.u.resok = (struct ACCESS3resok){ post(true), ACCESS3_READ | ACCESS3_LOOKUP };
	RT(ACCESS3res, &ar, "ACCESS3res OK");
	ar.status = NFS3ERR_JUKEBOX;
	ar.u.resfail.obj_attributes = post(false);
	RT(ACCESS3res, &ar, "ACCESS3res NFS3ERR_JUKEBOX");

	rlr.u.resok = (struct READLINK3resok){ post(true), BYTES("/a/b/c") };
	RT(READLINK3res, &rlr, "READLINK3res OK");
	rlr.status = NFS3ERR_INVAL;
	rlr.u.resfail.symlink_attributes = post(false);
	RT(READLINK3res, &rlr, "READLINK3res NFS3ERR_INVAL");

	rr.u.resok = (struct READ3resok){ post(true), 13, true, BYTES("file contents") };
	RT(READ3res, &rr, "READ3res OK, 13 bytes, eof");
	rr.u.resok = (struct READ3resok){ post(false), 0, false, { data, 0 } };
	RT(READ3res, &rr, "READ3res OK, empty");
	rr.status = NFS3ERR_IO;
	rr.u.resfail.file_attributes = post(true);
	RT(READ3res, &rr, "READ3res NFS3ERR_IO");

	for (i = 0; i < 3; i++) {
		wr.u.resok = (struct WRITE3resok){ wcc(true, true), 4096, stables[i],
			{ { 8, 7, 6, 5, 4, 3, 2, 1 } } };
		snprintf(what, sizeof(what), "WRITE3res OK, committed %d", (int)stables[i]);
		RT(WRITE3res, &wr, what);
	}
	wr.status = NFS3ERR_NOSPC;
	wr.u.resfail.file_wcc = wcc(false, false);
	RT(WRITE3res, &wr, "WRITE3res NFS3ERR_NOSPC");

	cr.u.resok = (struct CREATE3resok){ post_fh(true), post(true), wcc(true, true) };
	RT(CREATE3res, &cr, "CREATE3res OK");
	cr.u.resok.obj = post_fh(false);
	RT(CREATE3res, &cr, "CREATE3res OK, no handle");
	cr.status = NFS3ERR_EXIST;
	cr.u.resfail.dir_wcc = wcc(true, true);
	RT(CREATE3res, &cr, "CREATE3res NFS3ERR_EXIST");

	mdr.u.resok = (struct MKDIR3resok){ post_fh(true), post(true), wcc(false, true) };
	RT(MKDIR3res, &mdr, "MKDIR3res OK");
	mdr.status = NFS3ERR_DQUOT;
	mdr.u.resfail.dir_wcc = wcc(true, false);
	RT(MKDIR3res, &mdr, "MKDIR3res NFS3ERR_DQUOT");

	slr.u.resok = (struct SYMLINK3resok){ post_fh(true), post(false), wcc(true, true) };
	RT(SYMLINK3res, &slr, "SYMLINK3res OK");
	slr.status = NFS3ERR_NAMETOOLONG;
	slr.u.resfail.dir_wcc = wcc(false, false);
	RT(SYMLINK3res, &slr, "SYMLINK3res NFS3ERR_NAMETOOLONG");

	mnr.u.resok = (struct MKNOD3resok){ post_fh(true), post(true), wcc(true, true) };
	RT(MKNOD3res, &mnr, "MKNOD3res OK");
	mnr.status = NFS3ERR_BADTYPE;
	mnr.u.resfail.dir_wcc = wcc(true, true);
	RT(MKNOD3res, &mnr, "MKNOD3res NFS3ERR_BADTYPE");

	RT(REMOVE3res, &rmr, "REMOVE3res OK");
	rmr.status = NFS3ERR_ACCES;
	RT(REMOVE3res, &rmr, "REMOVE3res NFS3ERR_ACCES");
	RT(RMDIR3res, &rdr, "RMDIR3res OK");
	rdr.status = NFS3ERR_NOTEMPTY;
	RT(RMDIR3res, &rdr, "RMDIR3res NFS3ERR_NOTEMPTY");

	rnr.u.resok = (struct RENAME3resok){ wcc(true, true), wcc(false, true) };
	RT(RENAME3res, &rnr, "RENAME3res OK");
	rnr.status = NFS3ERR_XDEV;
	rnr.u.resfail = (struct RENAME3resfail){ wcc(true, false), wcc(true, true) };
	RT(RENAME3res, &rnr, "RENAME3res NFS3ERR_XDEV");

	lkr.u.resok = (struct LINK3resok){ post(true), wcc(true, true) };
	RT(LINK3res, &lkr, "LINK3res OK");
	lkr.status = NFS3ERR_MLINK;
	lkr.u.resfail = (struct LINK3resfail){ post(false), wcc(false, false) };
	RT(LINK3res, &lkr, "LINK3res NFS3ERR_MLINK");

	fsr.u.resok = (struct FSSTAT3resok){ post(true), 1ull << 40, 1ull << 39,
		1ull << 38, 1000000, 500000, 400000, 0 };
	RT(FSSTAT3res, &fsr, "FSSTAT3res OK");
	fsr.status = NFS3ERR_SERVERFAULT;
	fsr.u.resfail.obj_attributes = post(false);
	RT(FSSTAT3res, &fsr, "FSSTAT3res NFS3ERR_SERVERFAULT");

	fir.u.resok = (struct FSINFO3resok){ post(true), 1048576, 1048576, 4096,
		1048576, 1048576, 4096, 65536, INT64_MAX, { 0, 1 },
		FSF3_LINK | FSF3_SYMLINK | FSF3_HOMOGENEOUS | FSF3_CANSETTIME };
	RT(FSINFO3res, &fir, "FSINFO3res OK");
	{
		struct xdr_enc e;

		xdr_enc_init(&e, enc_a, sizeof(enc_a));
		ok(xdr_enc_FSINFO3res(&e, &fir) &&
		   xdr_enc_len(&e) == 4 + 4 + 84 + 7 * 4 + 8 + 8 + 4 &&
		   !memcmp(enc_a + xdr_enc_len(&e) - 4, "\0\0\0\x1b", 4),
		   "FSINFO3res: 140 bytes, properties 0x1b last");
	}
	fir.status = NFS3ERR_STALE;
	fir.u.resfail.obj_attributes = post(true);
	RT(FSINFO3res, &fir, "FSINFO3res NFS3ERR_STALE");

	pcr.u.resok = (struct PATHCONF3resok){ post(true), 32000, 255, true, true,
		false, true };
	RT(PATHCONF3res, &pcr, "PATHCONF3res OK");
	pcr.status = NFS3ERR_BADHANDLE;
	pcr.u.resfail.obj_attributes = post(false);
	RT(PATHCONF3res, &pcr, "PATHCONF3res NFS3ERR_BADHANDLE");

	cmr.u.resok = (struct COMMIT3resok){ wcc(true, true), { { 0xca, 0xfe, 0xba,
		0xbe, 0, 0, 0, 1 } } };
	RT(COMMIT3res, &cmr, "COMMIT3res OK");
	cmr.status = NFS3ERR_IO;
	cmr.u.resfail.file_wcc = wcc(false, true);
	RT(COMMIT3res, &cmr, "COMMIT3res NFS3ERR_IO");
}

/* READDIR and READDIRPLUS results with several entries, and MOUNT lists. */
static void test_lists(void)
{
	static const char *names[] = { ".", "..", "a", "bb", "ccc", "dddd", "eeeee" };
	struct entry3 e[7];
	struct entryplus3 p[7];
	struct READDIR3res rr = { .status = NFS3_OK };
	struct READDIRPLUS3res pr = { .status = NFS3_OK };
	struct mountbody m3 = { BYTES("c"), BYTES("/c"), NULL };
	struct mountbody m2 = { BYTES("host-b.example.org"), BYTES("/srv/b"), &m3 };
	struct mountbody m1 = { BYTES("10.0.0.1"), BYTES("/export"), &m2 };
	mountlist3 ml = &m1, none = NULL;
	exports3 xnone = NULL;
	struct READDIRPLUS3res got;
	const struct entryplus3 *q;
	unsigned int i, n;
	bool in_order;

	for (i = 0; i < 7; i++) {
		struct xdr_bytes nm = { (const uint8_t *)names[i], (uint32_t)strlen(names[i]) };

		e[i] = (struct entry3){ 100 + i, nm, 1000 + i, i < 6 ? &e[i + 1] : NULL };
		p[i] = (struct entryplus3){ 100 + i, nm, 1000 + i, post(i % 2),
					    post_fh(i % 3 != 0), i < 6 ? &p[i + 1] : NULL };
	}
	rr.u.resok.dir_attributes = post(true);
	rr.u.resok.reply = (struct dirlist3){ e, false };
	RT(READDIR3res, &rr, "READDIR3res, 7 entries, not eof");
	rr.u.resok.reply = (struct dirlist3){ NULL, true };
	RT(READDIR3res, &rr, "READDIR3res, no entries, eof");
	rr.status = NFS3ERR_BAD_COOKIE;
	rr.u.resfail.dir_attributes = post(true);
	RT(READDIR3res, &rr, "READDIR3res NFS3ERR_BAD_COOKIE");

	pr.u.resok.dir_attributes = post(true);
	memcpy(pr.u.resok.cookieverf.val, "verifier", 8);
	pr.u.resok.reply = (struct dirlistplus3){ p, true };
	RT(READDIRPLUS3res, &pr, "READDIRPLUS3res, 7 entries with and without attributes/handles");
	{
		struct xdr_enc e1;
		size_t len;

		xdr_enc_init(&e1, enc_a, sizeof(enc_a));
		len = xdr_enc_READDIRPLUS3res(&e1, &pr) ? xdr_enc_len(&e1) : 0;
		n = 0;
		in_order = dec_at(enc_a, len, dec_READDIRPLUS3res, &got);
		for (q = got.u.resok.reply.entries; in_order && q; q = q->nextentry, n++)
			in_order = q->fileid == 100 + n && q->cookie == 1000 + n &&
				   q->name.len == strlen(names[n]) &&
				   q->name_attributes.attributes_follow == (n % 2 == 1) &&
				   q->name_handle.handle_follows == (n % 3 != 0);
		ok(in_order && n == 7 && got.u.resok.reply.eof,
		   "READDIRPLUS3res decodes: 7 entries in order, attributes and handles");
	}
	pr.u.resok.reply = (struct dirlistplus3){ NULL, false };
	RT(READDIRPLUS3res, &pr, "READDIRPLUS3res, no entries");
	pr.status = NFS3ERR_TOOSMALL;
	pr.u.resfail.dir_attributes = post(false);
	RT(READDIRPLUS3res, &pr, "READDIRPLUS3res NFS3ERR_TOOSMALL");

	RT(mountlist3, &ml, "mountlist (DUMP), 3 entries");
	RT(mountlist3, &none, "mountlist (DUMP), empty");
	RT(exports3, &xnone, "exports, empty");
}

/* ---------------------------------------------------------------- */
/* Bounds and malformed input                                        */

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void test_bounds(void)
{
	static uint8_t m[2048];
	struct nfs_fh3 f;
	struct LOOKUP3args la;
	fhandle3 mf;
	dirpath3 dp;
	mntname3 mn;
	struct fattr3 fa;
	struct GETATTR3res gr;
	struct WRITE3args wa;
	struct CREATE3args ca;
	struct READDIR3res rr;
	struct post_op_attr pa;
	struct mountres3 mr;
	struct xdr_enc e;
	size_t n;

	/* nfs_fh3: opaque data<NFS3_FHSIZE = 64> */
	memset(m, 0, sizeof(m));
	put32(m, 64);
	ok(dec_at(m, 4 + 64, dec_nfs_fh3, &f) && f.data.len == 64,
	   "nfs_fh3 of 64 bytes decodes");
	put32(m, 65);
	ok(!dec_at(m, 4 + 68, dec_nfs_fh3, &f), "nfs_fh3 of 65 bytes refused");
	put32(m, 0xffffffffu);
	ok(!dec_at(m, 4 + 68, dec_nfs_fh3, &f), "nfs_fh3 of 2^32-1 bytes refused");
	f = fh(65);
	xdr_enc_init(&e, enc_a, sizeof(enc_a));
	ok(!xdr_enc_nfs_fh3(&e, &f), "nfs_fh3 of 65 bytes not encoded");
	f = fh(64);
	xdr_enc_init(&e, enc_a, sizeof(enc_a));
	ok(xdr_enc_nfs_fh3(&e, &f) && xdr_enc_len(&e) == 68, "nfs_fh3 of 64 bytes encodes");
	/* ... inside LOOKUP3args */
	memset(m, 0, sizeof(m));
	put32(m, 65);
	put32(m + 4 + 68, 1);
	m[4 + 68 + 4] = 'x';
	ok(!dec_at(m, 4 + 68 + 8, dec_LOOKUP3args, &la),
	   "LOOKUP3args with a 65-byte directory handle refused");
	memset(m, 0, sizeof(m));
	put32(m, 64);
	put32(m + 4 + 64, 1);
	m[4 + 64 + 4] = 'x';
	ok(dec_at(m, 4 + 64 + 8, dec_LOOKUP3args, &la) && la.what.name.len == 1,
	   "LOOKUP3args with a 64-byte directory handle decodes");

	/* MOUNT: fhandle3<64>, dirpath<1024>, name<255> */
	memset(m, 0, sizeof(m));
	put32(m, 64);
	ok(dec_at(m, 4 + 64, dec_fhandle3, &mf) && mf.len == 64, "fhandle3 of 64 bytes decodes");
	put32(m, 65);
	ok(!dec_at(m, 4 + 68, dec_fhandle3, &mf), "fhandle3 of 65 bytes refused");
	put32(m, 1024);
	ok(dec_at(m, 4 + 1024, dec_dirpath3, &dp) && dp.len == 1024,
	   "dirpath of 1024 bytes decodes");
	put32(m, 1025);
	ok(!dec_at(m, 4 + 1028, dec_dirpath3, &dp), "dirpath of 1025 bytes refused");
	put32(m, 255);
	ok(dec_at(m, 4 + 256, dec_mntname3, &mn) && mn.len == 255,
	   "name of 255 bytes decodes");
	put32(m, 256);
	ok(!dec_at(m, 4 + 256, dec_mntname3, &mn), "name of 256 bytes refused");
	xdr_enc_init(&e, enc_a, sizeof(enc_a));
	dp = (dirpath3){ m, 1025 };
	ok(!xdr_enc_dirpath3(&e, &dp), "dirpath of 1025 bytes not encoded");

	/* enums and bools must be members */
	xdr_enc_init(&e, m, sizeof(m));
	fa = attr(NF3REG);
	ok(xdr_enc_fattr3(&e, &fa), "fattr3 encodes");
	n = xdr_enc_len(&e);
	put32(m, 0);
	ok(!dec_at(m, n, dec_fattr3, &fa), "fattr3 type 0 refused");
	put32(m, 8);
	ok(!dec_at(m, n, dec_fattr3, &fa), "fattr3 type 8 refused");
	put32(m, 7);
	ok(dec_at(m, n, dec_fattr3, &fa) && fa.type == NF3FIFO, "fattr3 type 7 (NF3FIFO) decodes");
	fa.type = (enum ftype3)9;
	xdr_enc_init(&e, enc_a, sizeof(enc_a));
	ok(!xdr_enc_fattr3(&e, &fa), "fattr3 type 9 not encoded");
	put32(m, 3);
	ok(!dec_at(m, 4, dec_GETATTR3res, &gr), "nfsstat3 3 refused");
	put32(m, 10008);
	ok(dec_at(m, 4, dec_GETATTR3res, &gr) && gr.status == NFS3ERR_JUKEBOX,
	   "nfsstat3 10008 (JUKEBOX) decodes");
	put32(m, 10009);
	ok(!dec_at(m, 4, dec_GETATTR3res, &gr), "nfsstat3 10009 refused");
	put32(m, 2);
	ok(!dec_at(m, 4, dec_post_op_attr, &pa), "post_op_attr attributes_follow 2 refused");
	put32(m, 0);
	ok(dec_at(m, 4, dec_post_op_attr, &pa) && !pa.attributes_follow,
	   "post_op_attr FALSE decodes (void arm)");
	put32(m, 3);
	ok(!dec_at(m, 4, dec_mountres3, &mr), "mountstat3 3 refused");

	/* stable_how, createmode3 and time_how values beyond the enum */
	wa = (struct WRITE3args){ fh(8), 0, 4, FILE_SYNC, { (const uint8_t *)"data", 4 } };
	xdr_enc_init(&e, m, sizeof(m));
	ok(xdr_enc_WRITE3args(&e, &wa) && xdr_enc_len(&e) == 12 + 8 + 4 + 4 + 8,
	   "WRITE3args FILE_SYNC encodes");
	n = xdr_enc_len(&e);
	put32(m + 24, 3);
	ok(!dec_at(m, n, dec_WRITE3args, &wa), "stable_how 3 refused");
	put32(m + 24, 2);
	put32(m + 28, 0xffffffffu);
	ok(!dec_at(m, n, dec_WRITE3args, &wa),
	   "WRITE3args data length 2^32-1 with 4 bytes present refused");
	put32(m + 28, 8);
	ok(!dec_at(m, n, dec_WRITE3args, &wa),
	   "WRITE3args data length 8 with 4 bytes present refused");
	put32(m + 28, 4);
	ok(dec_at(m, n, dec_WRITE3args, &wa) && wa.stable == FILE_SYNC && wa.data.len == 4,
	   "WRITE3args restored decodes");
	wa.stable = (enum stable_how)3;
	xdr_enc_init(&e, enc_a, sizeof(enc_a));
	ok(!xdr_enc_WRITE3args(&e, &wa), "stable_how 3 not encoded");

	ca = (struct CREATE3args){ dirop(4, BYTES("f")), { .mode = EXCLUSIVE } };
	xdr_enc_init(&e, m, sizeof(m));
	ok(xdr_enc_CREATE3args(&e, &ca), "CREATE3args EXCLUSIVE encodes");
	n = xdr_enc_len(&e);
	put32(m + 16, 3);	/* handle 8, name 8, then the mode */
	ok(!dec_at(m, n, dec_CREATE3args, &ca), "createmode3 3 refused");
	ca = (struct CREATE3args){ dirop(4, BYTES("f")), { .mode = GUARDED } };
	xdr_enc_init(&e, m, sizeof(m));
	ok(xdr_enc_CREATE3args(&e, &ca), "CREATE3args GUARDED, nothing set, encodes");
	n = xdr_enc_len(&e);
	ok(n == 16 + 4 + 24 && dec_at(m, n, dec_CREATE3args, &ca), "and decodes");
	put32(m + 16 + 4 + 16, 3);	/* sattr3: 4 bools, then atime's how */
	ok(!dec_at(m, n, dec_CREATE3args, &ca), "time_how 3 refused");

	/* a directory list that claims more than was received */
	memset(m, 0, sizeof(m));
	put32(m + 16, 1);	/* status 0, no attributes, verifier 0, then: entry */
	put32(m + 28, 0x7fffffffu);	/* after fileid: the name's length */
	ok(!dec_at(m, 64, dec_READDIR3res, &rr),
	   "READDIR3res entry name longer than the input refused");
	put32(m + 28, 0);
	put32(m + 40, 1);	/* after cookie: another entry follows, then nothing */
	ok(!dec_at(m, 44, dec_READDIR3res, &rr),
	   "READDIR3res list cut after value_follows refused");
	put32(m + 40, 0);
	put32(m + 44, 1);	/* eof */
	ok(dec_at(m, 48, dec_READDIR3res, &rr) && rr.u.resok.reply.entries &&
	   !rr.u.resok.reply.entries->nextentry && rr.u.resok.reply.eof,
	   "READDIR3res with one empty-named entry decodes");
	put32(m + 44, 2);
	ok(!dec_at(m, 48, dec_READDIR3res, &rr), "READDIR3res eof 2 refused");
}

/* ---------------------------------------------------------------- */
/* 100,000-entry lists on a 64 KiB stack                             */

#define BIG 100000

struct big_job {
	struct entry3 *e;
	struct entryplus3 *p;
	struct exportnode *x;
	struct groupnode *gn;
	uint8_t *buf;
	size_t cap;
	uint8_t *arena;
	size_t arena_cap;
	bool results[6];
};

static void *big_lists(void *arg)
{
	struct big_job *j = arg;
	struct READDIR3res rr = { .status = NFS3_OK }, rgot;
	struct READDIRPLUS3res pr = { .status = NFS3_OK }, pgot;
	exports3 xh = &j->x[0], xgot = NULL;
	const struct entry3 *e;
	const struct entryplus3 *p;
	const struct exportnode *x;
	struct xdr_arena a;
	struct xdr_enc en;
	struct xdr_dec d;
	size_t n;
	bool good;

	rr.u.resok.reply.entries = j->e;
	xdr_enc_init(&en, j->buf, j->cap);
	good = xdr_enc_READDIR3res(&en, &rr);
	xdr_arena_init(&a, j->arena, j->arena_cap);
	xdr_dec_init(&d, j->buf, xdr_enc_len(&en), &a);
	good = good && xdr_dec_READDIR3res(&d, &rgot) && !xdr_dec_left(&d);
	j->results[0] = good;
	for (n = 0, e = rgot.u.resok.reply.entries; good && e; e = e->nextentry, n++)
		good = e->fileid == n && e->cookie == n + 1;
	j->results[1] = good && n == BIG;

	pr.u.resok.reply.entries = j->p;
	xdr_enc_init(&en, j->buf, j->cap);
	good = xdr_enc_READDIRPLUS3res(&en, &pr);
	xdr_arena_init(&a, j->arena, j->arena_cap);
	xdr_dec_init(&d, j->buf, xdr_enc_len(&en), &a);
	good = good && xdr_dec_READDIRPLUS3res(&d, &pgot) && !xdr_dec_left(&d);
	j->results[2] = good;
	for (n = 0, p = pgot.u.resok.reply.entries; good && p; p = p->nextentry, n++)
		good = p->fileid == n && p->name_handle.handle_follows == (n % 2 == 1);
	j->results[3] = good && n == BIG;

	xdr_enc_init(&en, j->buf, j->cap);
	good = xdr_enc_exports3(&en, &xh);
	xdr_arena_init(&a, j->arena, j->arena_cap);
	xdr_dec_init(&d, j->buf, xdr_enc_len(&en), &a);
	good = good && xdr_dec_exports3(&d, &xgot) && !xdr_dec_left(&d);
	j->results[4] = good;
	for (n = 0, x = xgot; good && x; x = x->ex_next, n++)
		good = x->ex_groups && x->ex_groups->gr_name.len == 3 &&
		       !x->ex_groups->gr_next;
	j->results[5] = good && n == BIG;
	return NULL;
}

static void test_big_lists(void)
{
	struct big_job j = { 0 };
	pthread_attr_t attr;
	pthread_t th;
	size_t i;
	int rc;

	j.e = calloc(BIG, sizeof(*j.e));
	j.p = calloc(BIG, sizeof(*j.p));
	j.x = calloc(BIG, sizeof(*j.x));
	j.gn = calloc(BIG, sizeof(*j.gn));
	j.cap = (size_t)BIG * (36 + 4 + NFS3_FHSIZE) + 64;
	j.buf = malloc(j.cap);
	j.arena_cap = (size_t)BIG * (sizeof(struct entryplus3) + 8);
	j.arena = malloc(j.arena_cap);
	if (!j.e || !j.p || !j.x || !j.gn || !j.buf || !j.arena)
		exit(99);
	for (i = 0; i < BIG; i++) {
		bool last = i + 1 == BIG;

		j.e[i] = (struct entry3){ i, BYTES("name"), i + 1, last ? NULL : &j.e[i + 1] };
		j.p[i] = (struct entryplus3){ i, BYTES("name"), i + 1, post(false),
					      post_fh(i % 2), last ? NULL : &j.p[i + 1] };
		j.gn[i] = (struct groupnode){ BYTES("*.a"), NULL };
		j.x[i] = (struct exportnode){ BYTES("/x"), &j.gn[i], last ? NULL : &j.x[i + 1] };
	}
	pthread_attr_init(&attr);
	rc = pthread_attr_setstacksize(&attr, 64 * 1024);
	ok(rc == 0, "thread stack set to 64 KiB");
	rc = pthread_create(&th, &attr, big_lists, &j);
	ok(rc == 0 && pthread_join(th, NULL) == 0, "small-stack thread ran");
	ok(j.results[0] && j.results[1],
	   "64 KiB stack: READDIR3res with %d entries round-trips, in order", BIG);
	ok(j.results[2] && j.results[3],
	   "64 KiB stack: READDIRPLUS3res with %d entries round-trips, in order", BIG);
	ok(j.results[4] && j.results[5],
	   "64 KiB stack: exports with %d nodes (and groups) round-trip", BIG);
	pthread_attr_destroy(&attr);
	free(j.e);
	free(j.p);
	free(j.x);
	free(j.gn);
	free(j.buf);
	free(j.arena);
}

static void test_numbers(void)
{
	ok(NFS3_PROGRAM == 100003 && NFS_V3 == 3 && NFSPROC3_NULL == 0 &&
	   NFSPROC3_GETATTR == 1 && NFSPROC3_SETATTR == 2 && NFSPROC3_LOOKUP == 3 &&
	   NFSPROC3_ACCESS == 4 && NFSPROC3_READLINK == 5 && NFSPROC3_READ == 6 &&
	   NFSPROC3_WRITE == 7 && NFSPROC3_CREATE == 8 && NFSPROC3_MKDIR == 9 &&
	   NFSPROC3_SYMLINK == 10 && NFSPROC3_MKNOD == 11 && NFSPROC3_REMOVE == 12 &&
	   NFSPROC3_RMDIR == 13 && NFSPROC3_RENAME == 14 && NFSPROC3_LINK == 15 &&
	   NFSPROC3_READDIR == 16 && NFSPROC3_READDIRPLUS == 17 &&
	   NFSPROC3_FSSTAT == 18 && NFSPROC3_FSINFO == 19 &&
	   NFSPROC3_PATHCONF == 20 && NFSPROC3_COMMIT == 21,
	   "NFS program 100003, version 3, procedures 0..21");
	ok(MOUNT3_PROGRAM == 100005 && MOUNT_V3 == 3 && MOUNTPROC3_NULL == 0 &&
	   MOUNTPROC3_MNT == 1 && MOUNTPROC3_DUMP == 2 && MOUNTPROC3_UMNT == 3 &&
	   MOUNTPROC3_UMNTALL == 4 && MOUNTPROC3_EXPORT == 5,
	   "MOUNT program 100005, version 3, procedures 0..5");
	ok(NFS3_FHSIZE == 64 && FHSIZE3 == 64 && MNTPATHLEN == 1024 && MNTNAMLEN == 255 &&
	   NFS3_COOKIEVERFSIZE == 8 && NFS3_CREATEVERFSIZE == 8 &&
	   NFS3_WRITEVERFSIZE == 8, "sizes of section 2.5 and 5");
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(fh_mem); i++)
		fh_mem[i] = (uint8_t)(i * 7 + 1);
	guard_init(&g, sizeof(enc_a));
	test_hand_bytes();
	test_args();
	test_results();
	test_lists();
	test_bounds();
	test_big_lists();
	test_numbers();
	guard_free(&g);
	return tap_done();
}
