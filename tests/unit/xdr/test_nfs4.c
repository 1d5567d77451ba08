/* SPDX-License-Identifier: MIT */
/*
 * Tests of the committed codecs generated from proto/nfs4.x (RFC 7531,
 * RFC 5662, RFC 7863, RFC 8276) and of the op-by-op COMPOUND helpers (src/xdr/nfs4_compound):
 * - byte arrays computed by hand from the RFCs' XDR for a COMPOUND of
 *   SEQUENCE+PUTFH+GETATTR and its reply, an OPEN with CLAIM_NULL and
 *   createhow4 EXCLUSIVE4_1, a READDIR4res of 3 entries, EXCHANGE_ID
 *   arguments and reply, and a CB_COMPOUND of CB_SEQUENCE+CB_RECALL and
 *   its reply: encoding the values gives those bytes, every strict
 *   prefix of them is refused (inputs end at a guard page) and the
 *   whole decodes to a value that re-encodes to the same bytes;
 * - the same for a READ_PLUS result (RFC 7863) and a SETXATTR (RFC 8276);
 * - the arguments and results (an OK and an error arm) of every
 *   operation 3..75 and callback operation 3..15 round-trip the same way;
 * - op by op: the heads, an operation unknown to the minor version (or
 *   OP_ILLEGAL) reported as illegal after the earlier operations
 *   decoded, malformed operations as BADXDR, operation counts larger
 *   than the message refused before any loop, results encoded one by
 *   one equal to the whole COMPOUND4res;
 * - bounds: file handles of 129 bytes, owners of 1025 bytes, bools and
 *   enums that are not members;
 * - a READDIR4res of 100,000 entries encoded and decoded on a thread with
 *   a 64 KiB stack (entry4 is a list: a loop, not recursion).
 * All five generated headers are included: they must compile together.
 */
#include <pthread.h>
#include <stdint.h>

#include "../../tap.h"
#include "xdrtest.h"
#include "xdr/gen/mount3.h"
#include "xdr/gen/nfs3.h"
#include "xdr/gen/nfs4.h"
#include "xdr/gen/rpc.h"
#include "xdr/gen/rpcbind.h"
#include "xdr/nfs4_compound.h"

static struct guard g;

#define BYTES(s) ((struct xdr_bytes){ (const uint8_t *)(s), sizeof(s) - 1 })

typedef bool (*enc_fn)(struct xdr_enc *e, const void *v);

#define CODEC(name, ctype)						\
	DEC_FN(name, ctype)						\
	static bool enc_##name(struct xdr_enc *e, const void *v)	\
	{								\
		return xdr_enc_##name(e, (const ctype *)v);		\
	}

CODEC(COMPOUND4args, struct COMPOUND4args)
CODEC(COMPOUND4res, struct COMPOUND4res)
CODEC(nfs_argop4, struct nfs_argop4)
CODEC(nfs_resop4, struct nfs_resop4)
CODEC(READDIR4res, struct READDIR4res)
CODEC(EXCHANGE_ID4args, struct EXCHANGE_ID4args)
CODEC(EXCHANGE_ID4res, struct EXCHANGE_ID4res)
CODEC(CB_COMPOUND4args, struct CB_COMPOUND4args)
CODEC(CB_COMPOUND4res, struct CB_COMPOUND4res)
CODEC(nfs_cb_argop4, struct nfs_cb_argop4)
CODEC(nfs_cb_resop4, struct nfs_cb_resop4)
CODEC(PUTFH4args, struct PUTFH4args)
CODEC(OPEN4args, struct OPEN4args)

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
		   "%s: bytes as computed by hand from the RFC", what);
}

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

static bool enc_ok(enc_fn fn, const void *v)
{
	struct xdr_enc e;

	xdr_enc_init(&e, enc_a, sizeof(enc_a));
	return fn(&e, v);
}

/* ---------------------------------------------------------------- */
/* Values                                                            */

static const uint8_t fh10[10] = { 0xfa, 0xce, 0, 1, 2, 3, 4, 5, 6, 7 };
static const uint8_t big[2048];

static sessionid4 sessid(uint8_t first)
{
	sessionid4 s;
	int i;

	for (i = 0; i < NFS4_SESSIONID_SIZE; i++)
		s.val[i] = (uint8_t)(first + i);
	return s;
}

static const nfs_fh4 FH10 = { fh10, sizeof(fh10) };

/* ---------------------------------------------------------------- */
/* Byte arrays computed by hand from RFC 5662 / RFC 7531             */

#define SESSID_10 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, \
		  0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f
#define SESSID_20 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, \
		  0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f

/* COMPOUND4args: SEQUENCE, PUTFH, GETATTR (a Linux client's bitmap) */
static const uint8_t w_compound[] = {
	0, 0, 0, 4, 'n', 'f', 's', 'x',		/* tag "nfsx" */
	0, 0, 0, 1,				/* minorversion 1 */
	0, 0, 0, 3,				/* argarray: 3 ops */
	0, 0, 0, 53,				/* OP_SEQUENCE */
	SESSID_10,				/* sa_sessionid */
	0, 0, 0, 7,				/* sa_sequenceid */
	0, 0, 0, 2,				/* sa_slotid */
	0, 0, 0, 15,				/* sa_highest_slotid */
	0, 0, 0, 0,				/* sa_cachethis FALSE */
	0, 0, 0, 22,				/* OP_PUTFH */
	0, 0, 0, 10,				/* object: 10 bytes */
	0xfa, 0xce, 0, 1, 2, 3, 4, 5, 6, 7, 0, 0,	/* + 2 of padding */
	0, 0, 0, 9,				/* OP_GETATTR */
	0, 0, 0, 2,				/* attr_request: 2 words */
	0x00, 0x10, 0x01, 0x1a,			/* type change size fsid fileid */
	0x00, 0xb0, 0xa2, 0x3a,			/* mode numlinks owner group rawdev
						 * space_used atime ctime mtime
						 * mounted_on_fileid */
};

/* COMPOUND4res answering it: change and size in GETATTR's fattr4 */
static const uint8_t w_compound_res[] = {
	0, 0, 0, 0,				/* status NFS4_OK */
	0, 0, 0, 4, 'n', 'f', 's', 'x',		/* tag */
	0, 0, 0, 3,				/* resarray: 3 results */
	0, 0, 0, 53,				/* OP_SEQUENCE */
	0, 0, 0, 0,				/* sr_status NFS4_OK */
	SESSID_10,				/* sr_sessionid */
	0, 0, 0, 7,				/* sr_sequenceid */
	0, 0, 0, 2,				/* sr_slotid */
	0, 0, 0, 15,				/* sr_highest_slotid */
	0, 0, 0, 15,				/* sr_target_highest_slotid */
	0, 0, 0, 0,				/* sr_status_flags */
	0, 0, 0, 22, 0, 0, 0, 0,		/* OP_PUTFH, NFS4_OK */
	0, 0, 0, 9, 0, 0, 0, 0,			/* OP_GETATTR, NFS4_OK */
	0, 0, 0, 1, 0, 0, 0, 0x18,		/* attrmask: change, size */
	0, 0, 0, 16,				/* attr_vals: 16 bytes */
	0, 0, 0, 0, 0, 0, 0, 5,			/* change 5 */
	0, 0, 0, 0, 0, 0, 0x10, 0,		/* size 4096 */
};

/* nfs_argop4 OPEN: CLAIM_NULL "a.txt", OPEN4_CREATE EXCLUSIVE4_1 */
static const uint8_t w_open[] = {
	0, 0, 0, 18,				/* OP_OPEN */
	0, 0, 0, 0,				/* seqid (0 in 4.1) */
	0, 0, 0, 2,				/* share_access WRITE */
	0, 0, 0, 0,				/* share_deny NONE */
	1, 2, 3, 4, 5, 6, 7, 8,			/* owner.clientid */
	0, 0, 0, 7, 'o', 'p', 'e', 'n', '-', 'i', 'd', 0,	/* owner.owner */
	0, 0, 0, 1,				/* OPEN4_CREATE */
	0, 0, 0, 3,				/* EXCLUSIVE4_1 */
	'v', 'e', 'r', 'f', '1', '2', '3', '4',	/* cva_verf */
	0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 2,	/* attrmask: mode (33) */
	0, 0, 0, 4, 0, 0, 0x01, 0xa4,		/* attr_vals: mode 0644 */
	0, 0, 0, 0,				/* CLAIM_NULL */
	0, 0, 0, 5, 'a', '.', 't', 'x', 't', 0, 0, 0,	/* file */
};

/* READDIR4res, NFS4_OK: three entries, the last without attributes */
static const uint8_t w_readdir_res[] = {
	0, 0, 0, 0,				/* NFS4_OK */
	0xc0, 0xff, 0xee, 0, 0, 0, 0, 1,	/* cookieverf */
	0, 0, 0, 1,				/* entries follow */
	0, 0, 0, 0, 0, 0, 0, 3,			/* cookie 3 */
	0, 0, 0, 1, 'a', 0, 0, 0,		/* name "a" */
	0, 0, 0, 1, 0, 0x10, 0, 0,		/* attrmask: fileid (20) */
	0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 1, 1,	/* fileid 0x101 */
	0, 0, 0, 1,				/* nextentry follows */
	0, 0, 0, 0, 0, 0, 0, 4,			/* cookie 4 */
	0, 0, 0, 2, 'b', 'c', 0, 0,		/* name "bc" */
	0, 0, 0, 1, 0, 0x10, 0, 0,
	0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 1, 2,	/* fileid 0x102 */
	0, 0, 0, 1,				/* nextentry follows */
	0, 0, 0, 0, 0, 0, 0, 5,			/* cookie 5 */
	0, 0, 0, 3, 'd', 'e', 'f', 0,		/* name "def" */
	0, 0, 0, 0, 0, 0, 0, 0,			/* no attrmask, no values */
	0, 0, 0, 0,				/* no nextentry */
	0, 0, 0, 1,				/* eof TRUE */
};

/* EXCHANGE_ID4args: SP4_NONE, one implementation id */
static const uint8_t w_exchange_id[] = {
	0x5f, 0, 0, 0, 0x12, 0x34, 0x56, 0x78,	/* co_verifier */
	0, 0, 0, 8, 'h', 'o', 's', 't', '-', 'a', '/', '1',	/* co_ownerid */
	0, 0, 0x01, 0x01,			/* SUPP_MOVED_REFER|BIND_PRINC */
	0, 0, 0, 0,				/* SP4_NONE */
	0, 0, 0, 1,				/* eia_client_impl_id: 1 */
	0, 0, 0, 10, 'k', 'e', 'r', 'n', 'e', 'l', '.', 'o', 'r', 'g', 0, 0,
	0, 0, 0, 4, 'n', 'f', 's', 'x',		/* nii_name */
	0, 0, 0, 0, 0x65, 0x53, 0xf1, 0x00,	/* nii_date 1700000000 s */
	0, 0, 0, 0,				/* 0 ns */
};

/* EXCHANGE_ID4res, NFS4_OK */
static const uint8_t w_exchange_id_res[] = {
	0, 0, 0, 0,				/* NFS4_OK */
	0xca, 0xfe, 0, 0, 0, 0, 0, 1,		/* eir_clientid */
	0, 0, 0, 1,				/* eir_sequenceid */
	0, 0x01, 0, 0x01,			/* USE_NON_PNFS|SUPP_MOVED_REFER */
	0, 0, 0, 0,				/* SP4_NONE */
	0, 0, 0, 0, 0, 0, 0, 0,			/* so_minor_id */
	0, 0, 0, 4, 'n', 'f', 's', 'x',		/* so_major_id */
	0, 0, 0, 4, 'n', 'f', 's', 'x',		/* eir_server_scope */
	0, 0, 0, 0,				/* no eir_server_impl_id */
};

/* CB_COMPOUND4args: CB_SEQUENCE with one referring call, CB_RECALL */
static const uint8_t w_cb_compound[] = {
	0, 0, 0, 0,				/* tag "" */
	0, 0, 0, 1,				/* minorversion 1 */
	0, 0, 0, 0,				/* callback_ident */
	0, 0, 0, 2,				/* argarray: 2 ops */
	0, 0, 0, 11,				/* OP_CB_SEQUENCE */
	SESSID_20,				/* csa_sessionid */
	0, 0, 0, 1,				/* csa_sequenceid */
	0, 0, 0, 0,				/* csa_slotid */
	0, 0, 0, 0,				/* csa_highest_slotid */
	0, 0, 0, 0,				/* csa_cachethis FALSE */
	0, 0, 0, 1,				/* referring call lists: 1 */
	SESSID_10,				/* rcl_sessionid */
	0, 0, 0, 1,				/* referring calls: 1 */
	0, 0, 0, 7, 0, 0, 0, 2,			/* sequenceid 7, slot 2 */
	0, 0, 0, 4,				/* OP_CB_RECALL */
	0, 0, 0, 1,				/* stateid.seqid */
	0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5,	/* stateid.other */
	0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab,
	0, 0, 0, 0,				/* truncate FALSE */
	0, 0, 0, 10,				/* fh */
	0xfa, 0xce, 0, 1, 2, 3, 4, 5, 6, 7, 0, 0,
};

/* CB_COMPOUND4res answering it */
static const uint8_t w_cb_compound_res[] = {
	0, 0, 0, 0,				/* NFS4_OK */
	0, 0, 0, 0,				/* tag "" */
	0, 0, 0, 2,				/* 2 results */
	0, 0, 0, 11, 0, 0, 0, 0,		/* OP_CB_SEQUENCE, NFS4_OK */
	SESSID_20,				/* csr_sessionid */
	0, 0, 0, 1,				/* csr_sequenceid */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* slot, highest, target */
	0, 0, 0, 4, 0, 0, 0, 0,			/* OP_CB_RECALL, NFS4_OK */
};

/* nfs_resop4 READ_PLUS (RFC 7863): a data segment, then a hole */
static const uint8_t w_read_plus_res[] = {
	0, 0, 0, 68,				/* OP_READ_PLUS */
	0, 0, 0, 0,				/* NFS4_OK */
	0, 0, 0, 0,				/* rpr_eof FALSE */
	0, 0, 0, 2,				/* rpr_contents: 2 */
	0, 0, 0, 0,				/* NFS4_CONTENT_DATA */
	0, 0, 0, 0, 0, 0, 0x10, 0,		/* d_offset 4096 */
	0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o', 0, 0, 0,	/* d_data */
	0, 0, 0, 1,				/* NFS4_CONTENT_HOLE */
	0, 0, 0, 0, 0, 0, 0x20, 0,		/* di_offset 8192 */
	0, 0, 0, 0, 0, 1, 0, 0,			/* di_length 65536 */
};

/* nfs_argop4 SETXATTR (RFC 8276) */
static const uint8_t w_setxattr[] = {
	0, 0, 0, 73,				/* OP_SETXATTR */
	0, 0, 0, 1,				/* SETXATTR4_CREATE */
	0, 0, 0, 10, 'u', 's', 'e', 'r', '.', 'c', 'o', 'l', 'o', 'r', 0, 0,
	0, 0, 0, 4, 'b', 'l', 'u', 'e',		/* sxa_value */
};

/* The values that encode to the arrays above. */
static uint32_t getattr_words[2] = { 0x0010011a, 0x00b0a23a };
static struct nfs_argop4 compound_ops[3];
static struct COMPOUND4args compound;
static uint32_t change_size_word = 0x18;
static const uint8_t change_size_vals[16] = { [7] = 5, [14] = 0x10 };
static struct nfs_resop4 compound_res_ops[3];
static struct COMPOUND4res compound_res;

static void build_compound(void)
{
	struct SEQUENCE4resok *sr;

	compound_ops[0].argop = OP_SEQUENCE;
	compound_ops[0].u.opsequence = (struct SEQUENCE4args){
		sessid(0x10), 7, 2, 15, false };
	compound_ops[1].argop = OP_PUTFH;
	compound_ops[1].u.opputfh.object = FH10;
	compound_ops[2].argop = OP_GETATTR;
	compound_ops[2].u.opgetattr.attr_request.len = 2;
	compound_ops[2].u.opgetattr.attr_request.val = getattr_words;
	compound.tag = BYTES("nfsx");
	compound.minorversion = 1;
	compound.argarray.len = 3;
	compound.argarray.val = compound_ops;

	compound_res_ops[0].resop = OP_SEQUENCE;
	compound_res_ops[0].u.opsequence.sr_status = NFS4_OK;
	sr = &compound_res_ops[0].u.opsequence.u.sr_resok4;
	*sr = (struct SEQUENCE4resok){ sessid(0x10), 7, 2, 15, 15, 0 };
	compound_res_ops[1].resop = OP_PUTFH;
	compound_res_ops[2].resop = OP_GETATTR;
	compound_res_ops[2].u.opgetattr.u.resok4.obj_attributes =
		(struct fattr4){ { 1, &change_size_word },
				 { change_size_vals, sizeof(change_size_vals) } };
	compound_res.status = NFS4_OK;
	compound_res.tag = BYTES("nfsx");
	compound_res.resarray.len = 3;
	compound_res.resarray.val = compound_res_ops;
}

static uint32_t mode_words[2] = { 0, 2 };
static const uint8_t mode_644[4] = { 0, 0, 0x01, 0xa4 };

static struct nfs_argop4 open_op(void)
{
	struct nfs_argop4 op = { .argop = OP_OPEN };
	struct OPEN4args *a = &op.u.opopen;
	struct creatverfattr *both;

	a->share_access = OPEN4_SHARE_ACCESS_WRITE;
	a->share_deny = OPEN4_SHARE_DENY_NONE;
	a->owner.clientid = 0x0102030405060708ull;
	a->owner.owner = BYTES("open-id");
	a->openhow.opentype = OPEN4_CREATE;
	a->openhow.u.how.mode = EXCLUSIVE4_1;
	both = &a->openhow.u.how.u.ch_createboth;
	memcpy(both->cva_verf.val, "verf1234", 8);
	both->cva_attrs = (struct fattr4){ { 2, mode_words },
					   { mode_644, sizeof(mode_644) } };
	a->claim.claim = CLAIM_NULL;
	a->claim.u.file = BYTES("a.txt");
	return op;
}

static uint32_t fileid_word = 0x00100000;
static const uint8_t fileid_101[8] = { [6] = 1, [7] = 1 };
static const uint8_t fileid_102[8] = { [6] = 1, [7] = 2 };

static struct READDIR4res readdir_res(struct entry4 e[3])
{
	struct READDIR4res r = { .status = NFS4_OK };
	struct READDIR4resok *ok4 = &r.u.resok4;
	static const uint8_t verf[8] = { 0xc0, 0xff, 0xee, 0, 0, 0, 0, 1 };

	memcpy(ok4->cookieverf.val, verf, 8);
	e[0] = (struct entry4){ 3, BYTES("a"), { { 1, &fileid_word },
			       { fileid_101, 8 } }, &e[1] };
	e[1] = (struct entry4){ 4, BYTES("bc"), { { 1, &fileid_word },
			       { fileid_102, 8 } }, &e[2] };
	e[2] = (struct entry4){ 5, BYTES("def"), { { 0, NULL }, { NULL, 0 } },
				NULL };
	ok4->reply.entries = &e[0];
	ok4->reply.eof = true;
	return r;
}

static struct nfs_impl_id4 impl_id;

static struct EXCHANGE_ID4args exchange_id(void)
{
	struct EXCHANGE_ID4args a = { 0 };

	memcpy(a.eia_clientowner.co_verifier.val,
	       "\x5f\0\0\0\x12\x34\x56\x78", 8);
	a.eia_clientowner.co_ownerid = BYTES("host-a/1");
	a.eia_flags = EXCHGID4_FLAG_SUPP_MOVED_REFER |
		      EXCHGID4_FLAG_BIND_PRINC_STATEID;
	a.eia_state_protect.spa_how = SP4_NONE;
	impl_id = (struct nfs_impl_id4){ BYTES("kernel.org"), BYTES("nfsx"),
					 { 1700000000, 0 } };
	a.eia_client_impl_id.len = 1;
	a.eia_client_impl_id.val = &impl_id;
	return a;
}

static struct EXCHANGE_ID4res exchange_id_res(void)
{
	struct EXCHANGE_ID4res r = { .eir_status = NFS4_OK };
	struct EXCHANGE_ID4resok *ok4 = &r.u.eir_resok4;

	ok4->eir_clientid = 0xcafe000000000001ull;
	ok4->eir_sequenceid = 1;
	ok4->eir_flags = EXCHGID4_FLAG_USE_NON_PNFS |
			 EXCHGID4_FLAG_SUPP_MOVED_REFER;
	ok4->eir_state_protect.spr_how = SP4_NONE;
	ok4->eir_server_owner.so_major_id = BYTES("nfsx");
	ok4->eir_server_scope = BYTES("nfsx");
	return r;
}

static struct referring_call4 ref_call = { 7, 2 };
static struct referring_call_list4 ref_list;
static struct nfs_cb_argop4 cb_ops[2];
static struct CB_COMPOUND4args cb_compound;
static struct nfs_cb_resop4 cb_res_ops[2];
static struct CB_COMPOUND4res cb_compound_res;

static void build_cb_compound(void)
{
	struct CB_SEQUENCE4args *s = &cb_ops[0].u.opcbsequence;
	struct CB_RECALL4args *r = &cb_ops[1].u.opcbrecall;
	int i;

	ref_list.rcl_sessionid = sessid(0x10);
	ref_list.rcl_referring_calls.len = 1;
	ref_list.rcl_referring_calls.val = &ref_call;
	cb_ops[0].argop = OP_CB_SEQUENCE;
	s->csa_sessionid = sessid(0x20);
	s->csa_sequenceid = 1;
	s->csa_referring_call_lists.len = 1;
	s->csa_referring_call_lists.val = &ref_list;
	cb_ops[1].argop = OP_CB_RECALL;
	r->stateid.seqid = 1;
	for (i = 0; i < NFS4_OTHER_SIZE; i++)
		r->stateid.other[i] = (uint8_t)(0xa0 + i);
	r->truncate = false;
	r->fh = FH10;
	cb_compound.tag = (struct xdr_bytes){ NULL, 0 };
	cb_compound.minorversion = 1;
	cb_compound.argarray.len = 2;
	cb_compound.argarray.val = cb_ops;

	cb_res_ops[0].resop = OP_CB_SEQUENCE;
	cb_res_ops[0].u.opcbsequence.u.csr_resok4 =
		(struct CB_SEQUENCE4resok){ sessid(0x20), 1, 0, 0, 0 };
	cb_res_ops[1].resop = OP_CB_RECALL;
	cb_compound_res.resarray.len = 2;
	cb_compound_res.resarray.val = cb_res_ops;
}

static void test_hand_bytes(void)
{
	struct nfs_argop4 open = open_op();
	struct entry4 entries[3];
	struct READDIR4res rd = readdir_res(entries);
	struct EXCHANGE_ID4args ei = exchange_id();
	struct EXCHANGE_ID4res eir = exchange_id_res();

	build_compound();
	build_cb_compound();
	RT_BYTES(COMPOUND4args, &compound, "COMPOUND SEQUENCE+PUTFH+GETATTR",
		 w_compound);
	RT_BYTES(COMPOUND4res, &compound_res, "its COMPOUND4res", w_compound_res);
	RT_BYTES(nfs_argop4, &open, "OPEN CLAIM_NULL EXCLUSIVE4_1", w_open);
	RT_BYTES(READDIR4res, &rd, "READDIR4res of 3 entries", w_readdir_res);
	RT_BYTES(EXCHANGE_ID4args, &ei, "EXCHANGE_ID4args", w_exchange_id);
	RT_BYTES(EXCHANGE_ID4res, &eir, "EXCHANGE_ID4res", w_exchange_id_res);
	RT_BYTES(CB_COMPOUND4args, &cb_compound, "CB_COMPOUND CB_SEQUENCE+CB_RECALL",
		 w_cb_compound);
	RT_BYTES(CB_COMPOUND4res, &cb_compound_res, "its CB_COMPOUND4res",
		 w_cb_compound_res);
	{
		struct read_plus_content parts[2] = {
			{ .rpc_content = NFS4_CONTENT_DATA,
			  .u.rpc_data = { 4096, BYTES("hello") } },
			{ .rpc_content = NFS4_CONTENT_HOLE,
			  .u.rpc_hole = { 8192, 65536 } },
		};
		struct nfs_resop4 rp = { .resop = OP_READ_PLUS };
		struct nfs_argop4 sx = { .argop = OP_SETXATTR };

		rp.u.opread_plus.u.rp_resok4.rpr_contents.len = 2;
		rp.u.opread_plus.u.rp_resok4.rpr_contents.val = parts;
		RT_BYTES(nfs_resop4, &rp, "READ_PLUS data and hole", w_read_plus_res);
		sx.u.opsetxattr = (struct SETXATTR4args){ SETXATTR4_CREATE,
			BYTES("user.color"), BYTES("blue") };
		RT_BYTES(nfs_argop4, &sx, "SETXATTR", w_setxattr);
	}
}

/* ---------------------------------------------------------------- */
/* Every operation                                                   */

/* Arguments of @op: zero, but for the enums that have no zero member. */
static struct nfs_argop4 any_argop(uint32_t op)
{
	struct nfs_argop4 a;

	memset(&a, 0, sizeof(a));
	a.argop = (enum nfs_opnum4)op;
	switch (op) {
	case OP_CREATE:
		a.u.opcreate.objtype.type = NF4LNK;
		a.u.opcreate.objtype.u.linkdata = BYTES("target");
		a.u.opcreate.objname = BYTES("link");
		break;
	case OP_LOCK:
		a.u.oplock.locktype = WRITEW_LT;
		a.u.oplock.locker.new_lock_owner = true;
		a.u.oplock.locker.u.open_owner.lock_owner.owner = BYTES("lo");
		break;
	case OP_LOCKT:
		a.u.oplockt.locktype = READ_LT;
		break;
	case OP_LOCKU:
		a.u.oplocku.locktype = READW_LT;
		break;
	case OP_BIND_CONN_TO_SESSION:
		a.u.opbind_conn_to_session.bctsa_dir = CDFC4_BACK_OR_BOTH;
		break;
	case OP_GETDEVICEINFO:
		a.u.opgetdeviceinfo.gdia_layout_type = LAYOUT4_NFSV4_1_FILES;
		break;
	case OP_GETDEVICELIST:
		a.u.opgetdevicelist.gdla_layout_type = LAYOUT4_BLOCK_VOLUME;
		break;
	case OP_LAYOUTCOMMIT:
		a.u.oplayoutcommit.loca_layoutupdate.lou_type = LAYOUT4_OSD2_OBJECTS;
		a.u.oplayoutcommit.loca_time_modify.nt_timechanged = true;
		break;
	case OP_LAYOUTGET:
		a.u.oplayoutget.loga_layout_type = LAYOUT4_NFSV4_1_FILES;
		a.u.oplayoutget.loga_iomode = LAYOUTIOMODE4_RW;
		break;
	case OP_LAYOUTRETURN:
		a.u.oplayoutreturn.lora_layout_type = LAYOUT4_NFSV4_1_FILES;
		a.u.oplayoutreturn.lora_iomode = LAYOUTIOMODE4_ANY;
		a.u.oplayoutreturn.lora_layoutreturn.lr_returntype =
			LAYOUTRETURN4_FILE;
		break;
	case OP_WANT_DELEGATION:
		a.u.opwant_delegation.wda_claim.dc_claim = CLAIM_PREVIOUS;
		a.u.opwant_delegation.wda_claim.u.dc_delegate_type =
			OPEN_DELEGATE_WRITE;
		break;
	case OP_EXCHANGE_ID:
		a.u.opexchange_id = exchange_id();
		break;
	case OP_CREATE_SESSION:
		a.u.opcreate_session.csa_sec_parms.len = 0;
		break;
	case OP_OPEN:
		a = open_op();
		break;
	case OP_COPY_NOTIFY:
		a.u.opcopy_notify.cna_destination_server.nl_type = NL4_URL;
		a.u.opcopy_notify.cna_destination_server.u.nl_url =
			BYTES("nfs://b/x");
		break;
	case OP_LAYOUTSTATS:
		a.u.oplayoutstats.lsa_layoutupdate.lou_type = LAYOUT4_NFSV4_1_FILES;
		break;
	case OP_SETXATTR:
		a.u.opsetxattr.sxa_option = SETXATTR4_REPLACE;
		break;
	}
	return a;
}

/* The status is the first member of every operation's result. */
static struct nfs_resop4 any_resop(uint32_t op, enum nfsstat4 status)
{
	struct nfs_resop4 r;

	memset(&r, 0, sizeof(r));
	r.resop = (enum nfs_opnum4)op;
	memcpy(&r.u, &status, sizeof(status));
	if (status != NFS4_OK)
		return r;
	switch (op) {
	case OP_BIND_CONN_TO_SESSION:
		r.u.opbind_conn_to_session.u.bctsr_resok4.bctsr_dir = CDFS4_BOTH;
		break;
	case OP_GETDEVICEINFO:
		r.u.opgetdeviceinfo.u.gdir_resok4.gdir_device_addr.da_layout_type =
			LAYOUT4_BLOCK_VOLUME;
		break;
	case OP_EXCHANGE_ID:
		r.u.opexchange_id = exchange_id_res();
		break;
	case OP_ILLEGAL:
		r.u.opillegal.status = NFS4ERR_OP_ILLEGAL;
		break;
	}
	return r;
}

static struct nfs_cb_argop4 any_cb_argop(uint32_t op)
{
	struct nfs_cb_argop4 a;

	memset(&a, 0, sizeof(a));
	a.argop = op;
	if (op == OP_CB_LAYOUTRECALL) {
		a.u.opcblayoutrecall.clora_type = LAYOUT4_NFSV4_1_FILES;
		a.u.opcblayoutrecall.clora_iomode = LAYOUTIOMODE4_READ;
		a.u.opcblayoutrecall.clora_recall.lor_recalltype =
			LAYOUTRECALL4_FSID;
	}
	return a;
}

static void test_every_op(void)
{
	static const uint32_t extra[] = { OP_ILLEGAL };
	int bad_args = 0, bad_res = 0, bad_cb = 0;
	uint32_t op;
	size_t i, len;

	for (op = OP_ACCESS; op <= OP_REMOVEXATTR + 1; op++) {
		uint32_t o = op > OP_REMOVEXATTR ? extra[0] : op;
		struct nfs_argop4 a = any_argop(o);
		struct nfs_resop4 r_ok = any_resop(o, NFS4_OK);
		struct nfs_resop4 r_err = any_resop(o, NFS4ERR_IO);

		if (!trip(enc_nfs_argop4, dec_nfs_argop4, &a, &len)) {
			printf("# arguments of op %u\n", o);
			bad_args++;
		}
		if (!trip(enc_nfs_resop4, dec_nfs_resop4, &r_ok, &len) ||
		    !trip(enc_nfs_resop4, dec_nfs_resop4, &r_err, &len)) {
			printf("# results of op %u\n", o);
			bad_res++;
		}
	}
	ok(!bad_args, "arguments of ops 3..75 and ILLEGAL round-trip, prefixes refused");
	ok(!bad_res, "OK and error results of ops 3..75 and ILLEGAL round-trip");
	for (i = 0; i <= OP_CB_OFFLOAD - OP_CB_GETATTR + 1; i++) {
		uint32_t o = OP_CB_GETATTR + (uint32_t)i;
		struct nfs_cb_argop4 a;
		struct nfs_cb_resop4 r;

		if (o > OP_CB_OFFLOAD)
			o = OP_CB_ILLEGAL;
		a = any_cb_argop(o);
		memset(&r, 0, sizeof(r));
		r.resop = o;
		if (!trip(enc_nfs_cb_argop4, dec_nfs_cb_argop4, &a, &len) ||
		    !trip(enc_nfs_cb_resop4, dec_nfs_cb_resop4, &r, &len)) {
			printf("# callback op %u\n", o);
			bad_cb++;
		}
	}
	ok(!bad_cb, "callback ops 3..15 and CB_ILLEGAL round-trip, prefixes refused");
}

/* The special arms of results: LOCK denied, CLID_INUSE, TOOSMALL... */
static void test_result_arms(void)
{
	struct nfs_resop4 r;
	size_t len = 0;

	r = any_resop(OP_LOCK, NFS4ERR_DENIED);
	r.u.oplock.u.denied = (struct LOCK4denied){ 1, 2, WRITE_LT,
						    { 3, BYTES("owner") } };
	/* op, status, offset, length, locktype, clientid, owner "owner" */
	ok(trip(enc_nfs_resop4, dec_nfs_resop4, &r, &len) &&
	   len == 4 + 4 + 8 + 8 + 4 + 8 + 12,
	   "LOCK4res NFS4ERR_DENIED carries LOCK4denied");
	r = any_resop(OP_SETCLIENTID, NFS4ERR_CLID_INUSE);
	r.u.opsetclientid.u.client_using =
		(struct netaddr4){ BYTES("tcp"), BYTES("127.0.0.1.8.1") };
	ok(trip(enc_nfs_resop4, dec_nfs_resop4, &r, &len) && len == 8 + 8 + 20,
	   "SETCLIENTID4res NFS4ERR_CLID_INUSE carries clientaddr4");
	r = any_resop(OP_GETDEVICEINFO, NFS4ERR_TOOSMALL);
	r.u.opgetdeviceinfo.u.gdir_mincount = 4096;
	ok(trip(enc_nfs_resop4, dec_nfs_resop4, &r, &len) && len == 12,
	   "GETDEVICEINFO4res NFS4ERR_TOOSMALL carries gdir_mincount");
	r = any_resop(OP_LAYOUTGET, NFS4ERR_LAYOUTTRYLATER);
	r.u.oplayoutget.u.logr_will_signal_layout_avail = true;
	ok(trip(enc_nfs_resop4, dec_nfs_resop4, &r, &len) && len == 12,
	   "LAYOUTGET4res NFS4ERR_LAYOUTTRYLATER carries a bool");
	r = any_resop(OP_LOCKT, NFS4ERR_IO);
	ok(trip(enc_nfs_resop4, dec_nfs_resop4, &r, &len) && len == 8,
	   "LOCKT4res error: status only");
}

/* ---------------------------------------------------------------- */
/* Op by op                                                          */

static uint8_t msg[4096];

struct wr {
	uint8_t *p;
	size_t n;
};

static void put32(struct wr *w, uint32_t v)
{
	xdr__put32(w->p + w->n, v);
	w->n += 4;
}

static void put_bytes(struct wr *w, const void *src, size_t len)
{
	memcpy(w->p + w->n, src, len);
	w->n += len;
}

/* A COMPOUND4args head with an empty tag. */
static struct wr head(uint32_t minor, uint32_t nops)
{
	struct wr w = { msg, 0 };

	put32(&w, 0);
	put32(&w, minor);
	put32(&w, nops);
	return w;
}

/*
 * Decode the COMPOUND in @w op by op as a server would, writing what
 * each op gave into @got (at most @max); stops at the first op not
 * decoded. Return values: the number of ops looked at, -1 when the
 * head is refused.
 */
static int run_ops(const struct wr *w, enum nfs4_op_dec *got, int max,
		   struct nfs_argop4 *ops)
{
	struct nfs4_args_head h;
	struct xdr_arena a;
	struct xdr_dec d;
	int i;

	xdr_arena_init(&a, check_arena_mem, sizeof(check_arena_mem));
	xdr_dec_init(&d, guard_put(&g, w->p, w->n), w->n, &a);
	if (!nfs4_dec_compound_args_head(&d, &h))
		return -1;
	for (i = 0; i < (int)h.nops && i < max; i++) {
		got[i] = nfs4_dec_argop(&d, h.minorversion, &ops[i]);
		if (got[i] != NFS4_OP_DECODED)
			return i + 1;
	}
	return i;
}

/* Decode a whole COMPOUND op by op: a dec_fn for check_prefixes(). */
static bool dec_op_by_op(struct xdr_dec *d, void *out)
{
	struct nfs4_args_head h;
	struct nfs_argop4 *op = out;
	uint32_t i;

	if (!nfs4_dec_compound_args_head(d, &h))
		return false;
	for (i = 0; i < h.nops; i++)
		if (nfs4_dec_argop(d, h.minorversion, op) != NFS4_OP_DECODED)
			return false;
	return true;
}

static bool dec_cb_op_by_op(struct xdr_dec *d, void *out)
{
	struct nfs4_args_head h;
	struct nfs_cb_argop4 *op = out;
	uint32_t i;

	if (!nfs4_dec_cb_compound_args_head(d, &h))
		return false;
	for (i = 0; i < h.nops; i++)
		if (nfs4_dec_cb_argop(d, h.minorversion, op) != NFS4_OP_DECODED)
			return false;
	return true;
}

static bool dec_res_op_by_op(struct xdr_dec *d, void *out)
{
	struct nfs4_res_head h;
	struct nfs_resop4 *op = out;
	uint32_t i;

	if (!nfs4_dec_compound_res_head(d, &h))
		return false;
	for (i = 0; i < h.nops; i++)
		if (!xdr_dec_nfs_resop4(d, op))
			return false;
	return true;
}

static bool dec_cb_res_op_by_op(struct xdr_dec *d, void *out)
{
	struct nfs4_res_head h;
	struct nfs_cb_resop4 *op = out;
	uint32_t i;

	if (!nfs4_dec_cb_compound_res_head(d, &h))
		return false;
	for (i = 0; i < h.nops; i++)
		if (!xdr_dec_nfs_cb_resop4(d, op))
			return false;
	return true;
}

static void test_op_by_op_decode(void)
{
	struct nfs_argop4 ops[8];
	enum nfs4_op_dec got[8];
	struct nfs4_args_head h;
	struct xdr_enc e;
	struct wr w;
	uint32_t i;
	int n;

	ok(!check_prefixes(&g, w_compound, sizeof(w_compound), dec_op_by_op),
	   "COMPOUND op by op: decodes whole, every strict prefix refused");
	ok(!check_prefixes(&g, w_cb_compound, sizeof(w_cb_compound),
			   dec_cb_op_by_op),
	   "CB_COMPOUND op by op: decodes whole, every strict prefix refused");
	ok(!check_prefixes(&g, w_compound_res, sizeof(w_compound_res),
			   dec_res_op_by_op),
	   "COMPOUND4res head then nfs_resop4: whole, prefixes refused");
	ok(!check_prefixes(&g, w_cb_compound_res, sizeof(w_cb_compound_res),
			   dec_cb_res_op_by_op),
	   "CB_COMPOUND4res head then nfs_cb_resop4: whole, prefixes refused");

	/* the ops decoded one by one re-encode to the message */
	w = (struct wr){ (uint8_t *)w_compound, sizeof(w_compound) };
	n = run_ops(&w, got, 8, ops);
	xdr_enc_init(&e, enc_a, sizeof(enc_a));
	h = (struct nfs4_args_head){ BYTES("nfsx"), 1, 0, 3 };
	ok(n == 3 && nfs4_enc_compound_args_head(&e, &h) &&
	   xdr_enc_nfs_argop4(&e, &ops[0]) && xdr_enc_nfs_argop4(&e, &ops[1]) &&
	   xdr_enc_nfs_argop4(&e, &ops[2]) &&
	   bytes_eq(enc_a, xdr_enc_len(&e), w_compound, sizeof(w_compound)),
	   "head + 3 ops decoded one by one re-encode to the COMPOUND");

	/* minor version 0: SEQUENCE is illegal, after two ops decoded */
	w = head(0, 4);
	put32(&w, OP_PUTROOTFH);
	put32(&w, OP_GETFH);
	put32(&w, OP_SEQUENCE);
	put_bytes(&w, w_compound + 20, 32);	/* SEQUENCE4args */
	put32(&w, OP_GETFH);
	n = run_ops(&w, got, 8, ops);
	ok(n == 3 && got[0] == NFS4_OP_DECODED && got[1] == NFS4_OP_DECODED &&
	   got[2] == NFS4_OP_ILLEGAL && ops[2].argop == OP_ILLEGAL &&
	   ops[0].argop == OP_PUTROOTFH && ops[1].argop == OP_GETFH,
	   "4.0 COMPOUND: PUTROOTFH, GETFH decoded, then SEQUENCE illegal");
	xdr__put32(msg + 4, 1);			/* the same in 4.1 */
	n = run_ops(&w, got, 8, ops);
	ok(n == 4 && got[2] == NFS4_OP_DECODED && got[3] == NFS4_OP_DECODED &&
	   ops[2].u.opsequence.sa_sequenceid == 7,
	   "4.1 COMPOUND: the same SEQUENCE decodes");

	/* numbers known to no minor version */
	{
		static const uint32_t unknown[] = { 0, 1, 2, 59, 10043,
			OP_ILLEGAL, 10045, 0xffffffffu };
		int bad = 0;

		for (i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
			w = head(1, 2);
			put32(&w, OP_SAVEFH);
			put32(&w, unknown[i]);
			n = run_ops(&w, got, 8, ops);
			bad += !(n == 2 && got[0] == NFS4_OP_DECODED &&
				 got[1] == NFS4_OP_ILLEGAL);
		}
		ok(!bad, "ops 0, 1, 2, 59, 10043, OP_ILLEGAL, 10045, 2^32-1: illegal");
	}
	for (i = 0, n = 0; i < 100; i++)
		n += nfs4_op_known(i, 0) != (i >= 3 && i <= 39) ||
		     nfs4_op_known(i, 1) != (i >= 3 && i <= 58) ||
		     nfs4_op_known(i, 2) != (i >= 3 && i <= 75) ||
		     nfs4_op_known(i, 9) != (i >= 3 && i <= 75);
	ok(!n && !nfs4_op_known(OP_ILLEGAL, 1) && !nfs4_op_known(OP_ILLEGAL, 2),
	   "known ops: 3..39 in 4.0, 3..58 in 4.1 (4.0-only ops stay known), 3..75 in 4.2");
	for (i = 0, n = 0; i < 20; i++)
		n += nfs4_cb_op_known(i, 0) != (i == 3 || i == 4) ||
		     nfs4_cb_op_known(i, 1) != (i >= 3 && i <= 14) ||
		     nfs4_cb_op_known(i, 2) != (i >= 3 && i <= 15);
	ok(!n && !nfs4_cb_op_known(OP_CB_ILLEGAL, 1),
	   "known callback ops: 3..4 in 4.0, 3..14 in 4.1, 3..15 in 4.2");
	w = head(2, 3);
	put32(&w, OP_SAVEFH);
	put32(&w, OP_SEEK);
	put_bytes(&w, big, 16 + 8);		/* stateid, offset */
	put32(&w, NFS4_CONTENT_HOLE);
	put32(&w, 76);
	n = run_ops(&w, got, 8, ops);
	ok(n == 3 && got[1] == NFS4_OP_DECODED && ops[1].argop == OP_SEEK &&
	   ops[1].u.opseek.sa_what == NFS4_CONTENT_HOLE && got[2] == NFS4_OP_ILLEGAL,
	   "4.2 COMPOUND: SEEK decodes, op 76 illegal");
	xdr__put32(msg + 4, 1);
	n = run_ops(&w, got, 8, ops);
	ok(n == 2 && got[1] == NFS4_OP_ILLEGAL, "4.1 COMPOUND: SEEK illegal");

	/* malformed: not illegal, BADXDR */
	w = head(1, 2);
	put32(&w, OP_PUTFH);
	put32(&w, NFS4_FHSIZE + 1);
	put_bytes(&w, big, NFS4_FHSIZE + 4);
	put32(&w, OP_GETFH);
	n = run_ops(&w, got, 8, ops);
	ok(n == 1 && got[0] == NFS4_OP_BADXDR, "PUTFH of a 129-byte handle: BADXDR");
	w = head(1, 2);
	put32(&w, OP_GETFH);
	put32(&w, OP_PUTFH);			/* and nothing after */
	n = run_ops(&w, got, 8, ops);
	ok(n == 2 && got[0] == NFS4_OP_DECODED && got[1] == NFS4_OP_BADXDR,
	   "PUTFH cut short: BADXDR after GETFH decoded");
	w = head(1, 1);
	put32(&w, OP_OPEN);
	put_bytes(&w, w_open + 4, 40);
	put32(&w, 4);				/* createmode4 4: no such */
	n = run_ops(&w, got, 8, ops);
	ok(n == 1 && got[0] == NFS4_OP_BADXDR, "OPEN with createmode4 4: BADXDR");

	/* counts that cannot fit are refused in the head */
	w = head(1, 4);
	for (i = 0; i < 3; i++)
		put32(&w, OP_GETFH);
	ok(run_ops(&w, got, 8, ops) == -1, "4 ops announced, 12 bytes left: refused");
	w.n -= 4;
	ok(run_ops(&w, got, 8, ops) == -1, "4 ops announced, 8 bytes left: refused");
	w = head(1, 0xffffffffu);
	put32(&w, OP_GETFH);
	ok(run_ops(&w, got, 8, ops) == -1, "2^32-1 ops announced: refused");
	w = head(1, 3);
	for (i = 0; i < 3; i++)
		put32(&w, OP_GETFH);
	ok(run_ops(&w, got, 8, ops) == 3, "3 ops announced, 3 GETFH: decoded");
	w = head(1, 0);
	ok(run_ops(&w, got, 8, ops) == 0, "an empty COMPOUND: decoded");
}

static void test_op_by_op_encode(void)
{
	struct nfs4_res_head h = { NFS4_OK, BYTES("nfsx"), 3 };
	struct nfs4_args_head cbh = { { NULL, 0 }, 1, 0, 2 };
	struct nfs4_res_head cbr = { NFS4_OK, { NULL, 0 }, 2 };
	struct xdr_enc e;
	uint8_t room[64];
	bool good;
	int i;

	build_compound();
	build_cb_compound();
	xdr_enc_init(&e, enc_a, sizeof(enc_a));
	good = nfs4_enc_compound_res_head(&e, &h);
	ok(good && xdr_enc_len(&e) == nfs4_compound_res_head_size(4) &&
	   nfs4_compound_res_head_size(4) == 16 &&
	   nfs4_compound_res_head_size(5) == 20 &&
	   nfs4_compound_res_head_size(0) == 12,
	   "COMPOUND4res head: size as nfs4_compound_res_head_size() says");
	for (i = 0; i < 3; i++)
		good = good && xdr_enc_nfs_resop4(&e, &compound_res_ops[i]);
	ok(good && bytes_eq(enc_a, xdr_enc_len(&e), w_compound_res,
			    sizeof(w_compound_res)),
	   "head + 3 nfs_resop4 encoded one by one = the COMPOUND4res");

	/* a head written last, into room reserved first */
	xdr_enc_init(&e, enc_a, sizeof(enc_a));
	good = xdr_enc_reserve(&e, nfs4_compound_res_head_size(4)) != NULL;
	for (i = 0; i < 3; i++)
		good = good && xdr_enc_nfs_resop4(&e, &compound_res_ops[i]);
	{
		struct xdr_enc he;

		xdr_enc_init(&he, enc_a, nfs4_compound_res_head_size(4));
		good = good && nfs4_enc_compound_res_head(&he, &h) &&
		       xdr_enc_room(&he) == 0;
	}
	ok(good && bytes_eq(enc_a, xdr_enc_len(&e), w_compound_res,
			    sizeof(w_compound_res)),
	   "COMPOUND4res head patched into reserved room: same bytes");

	xdr_enc_init(&e, enc_a, sizeof(enc_a));
	good = nfs4_enc_cb_compound_args_head(&e, &cbh) &&
	       xdr_enc_nfs_cb_argop4(&e, &cb_ops[0]) &&
	       xdr_enc_nfs_cb_argop4(&e, &cb_ops[1]);
	ok(good && bytes_eq(enc_a, xdr_enc_len(&e), w_cb_compound,
			    sizeof(w_cb_compound)),
	   "CB_COMPOUND head + 2 ops encoded one by one = the CB_COMPOUND");
	xdr_enc_init(&e, enc_a, sizeof(enc_a));
	good = nfs4_enc_cb_compound_res_head(&e, &cbr) &&
	       xdr_enc_nfs_cb_resop4(&e, &cb_res_ops[0]) &&
	       xdr_enc_nfs_cb_resop4(&e, &cb_res_ops[1]);
	ok(good && bytes_eq(enc_a, xdr_enc_len(&e), w_cb_compound_res,
			    sizeof(w_cb_compound_res)),
	   "CB_COMPOUND4res head + 2 results one by one = the CB_COMPOUND4res");

	/* no room, bad status: refused */
	xdr_enc_init(&e, room, 15);
	ok(!nfs4_enc_compound_res_head(&e, &h), "res head: 15 bytes of room refused");
	xdr_enc_init(&e, room, sizeof(room));
	h.status = (enum nfsstat4)19;
	ok(!nfs4_enc_compound_res_head(&e, &h), "res head: status 19 refused");
}

/* ---------------------------------------------------------------- */
/* Bounds                                                            */

static void test_bounds(void)
{
	struct PUTFH4args putfh = { { big, NFS4_FHSIZE } };
	struct OPEN4args open = open_op().u.opopen;
	uint8_t bad[sizeof(w_compound)];
	uint8_t fh[4 + NFS4_FHSIZE + 4] = { 0 };

	ok(enc_ok(enc_PUTFH4args, &putfh), "PUTFH4args: 128-byte handle encodes");
	putfh.object.len = NFS4_FHSIZE + 1;
	ok(!enc_ok(enc_PUTFH4args, &putfh), "PUTFH4args: 129-byte handle refused");
	xdr__put32(fh, NFS4_FHSIZE + 1);
	ok(!dec_at(fh, 4 + NFS4_FHSIZE + 4, dec_PUTFH4args, check_obj),
	   "PUTFH4args: 129-byte handle does not decode");
	xdr__put32(fh, NFS4_FHSIZE);
	ok(dec_at(fh, 4 + NFS4_FHSIZE, dec_PUTFH4args, check_obj),
	   "PUTFH4args: 128-byte handle decodes");
	open.owner.owner = (struct xdr_bytes){ big, NFS4_OPAQUE_LIMIT + 1 };
	ok(!enc_ok(enc_OPEN4args, &open), "OPEN4args: 1025-byte owner refused");
	open.owner.owner.len = NFS4_OPAQUE_LIMIT;
	ok(enc_ok(enc_OPEN4args, &open), "OPEN4args: 1024-byte owner encodes");
	ok(dec_at(w_open + 4, sizeof(w_open) - 4, dec_OPEN4args, check_obj),
	   "OPEN4args: the OPEN above without its opnum decodes");

	memcpy(bad, w_compound, sizeof(bad));
	bad[20 + 16 + 12 + 3] = 2;		/* sa_cachethis */
	ok(!dec_at(bad, sizeof(bad), dec_COMPOUND4args, check_obj),
	   "COMPOUND4args: bool 2 refused");
	memcpy(bad, w_compound, sizeof(bad));
	bad[19] = 76;				/* first opnum: no such op */
	ok(!dec_at(bad, sizeof(bad), dec_COMPOUND4args, check_obj),
	   "COMPOUND4args (whole): an unknown op does not decode");
	memcpy(bad, w_compound, sizeof(bad));
	bad[15] = 4;				/* 4 ops announced */
	ok(!dec_at(bad, sizeof(bad), dec_COMPOUND4args, check_obj),
	   "COMPOUND4args (whole): more ops than sent refused");
}

/* ---------------------------------------------------------------- */
/* A long entry4 list on a small stack                               */

#define BIG 100000

struct big_job {
	struct entry4 *e;
	uint8_t *buf;
	size_t cap;
	void *arena;
	size_t arena_cap;
	bool results[2];
};

static void *big_list(void *arg)
{
	struct big_job *j = arg;
	struct READDIR4res r = { .status = NFS4_OK }, got;
	struct xdr_arena a;
	struct xdr_dec d;
	struct xdr_enc e;
	struct entry4 *x;
	uint64_t n;
	bool good;

	r.u.resok4.reply.entries = j->e;
	r.u.resok4.reply.eof = true;
	xdr_enc_init(&e, j->buf, j->cap);
	good = xdr_enc_READDIR4res(&e, &r);
	xdr_arena_init(&a, j->arena, j->arena_cap);
	xdr_dec_init(&d, j->buf, xdr_enc_len(&e), &a);
	memset(&got, 0, sizeof(got));
	j->results[0] = good && xdr_dec_READDIR4res(&d, &got) && !xdr_dec_left(&d);
	good = j->results[0] && got.u.resok4.reply.eof;
	for (n = 0, x = got.u.resok4.reply.entries; good && x; x = x->nextentry, n++)
		good = x->cookie == n + 3 && x->name.len == 4;
	j->results[1] = good && n == BIG;
	return NULL;
}

static void test_big_list(void)
{
	struct big_job j = { 0 };
	pthread_attr_t attr;
	pthread_t th;
	uint64_t i;
	int rc;

	j.e = calloc(BIG, sizeof(*j.e));
	j.cap = (size_t)BIG * 40 + 64;
	j.buf = malloc(j.cap);
	j.arena_cap = (size_t)BIG * (sizeof(struct entry4) + 8) + 4096;
	j.arena = malloc(j.arena_cap);
	if (!j.e || !j.buf || !j.arena) {
		perror("test_big_list");
		exit(99);
	}
	for (i = 0; i < BIG; i++)
		j.e[i] = (struct entry4){ i + 3, BYTES("name"), { { 0, NULL },
				{ NULL, 0 } }, i + 1 < BIG ? &j.e[i + 1] : NULL };
	pthread_attr_init(&attr);
	rc = pthread_attr_setstacksize(&attr, 64 * 1024);
	ok(rc == 0, "thread stack set to 64 KiB");
	rc = pthread_create(&th, &attr, big_list, &j);
	ok(rc == 0 && pthread_join(th, NULL) == 0, "small-stack thread ran");
	ok(j.results[0] && j.results[1],
	   "64 KiB stack: READDIR4res with %d entries round-trips, in order", BIG);
	pthread_attr_destroy(&attr);
	free(j.e);
	free(j.buf);
	free(j.arena);
}

static void test_numbers(void)
{
	ok(NFS4_PROGRAM == 100003 && NFS_V4 == 4 && NFSPROC4_NULL == 0 &&
	   NFSPROC4_COMPOUND == 1, "NFS program 100003, version 4, NULL and COMPOUND");
	ok(NFS4_CALLBACK == 0x40000000 && NFS_CB == 1 && CB_NULL == 0 &&
	   CB_COMPOUND == 1, "callback program: version 1, CB_NULL and CB_COMPOUND");
	ok(NFS4_FHSIZE == 128 && NFS4_VERIFIER_SIZE == 8 && NFS4_OTHER_SIZE == 12 &&
	   NFS4_OPAQUE_LIMIT == 1024 && NFS4_SESSIONID_SIZE == 16 &&
	   NFS4_DEVICEID4_SIZE == 16, "sizes");
	ok(OP_ACCESS == 3 && OP_RELEASE_LOCKOWNER == 39 && OP_RECLAIM_COMPLETE == 58 &&
	   OP_CLONE == 71 && OP_REMOVEXATTR == 75 && OP_ILLEGAL == 10044 &&
	   OP_CB_NOTIFY_DEVICEID == 14 && OP_CB_OFFLOAD == 15 && OP_CB_ILLEGAL == 10044,
	   "operation numbers at the ends of each minor version");
	ok(NFS4ERR_OP_ILLEGAL == 10044 && NFS4ERR_DELEG_REVOKED == 10087 &&
	   NFS4ERR_OFFLOAD_NO_REQS == 10094 && NFS4ERR_XATTR2BIG == 10096,
	   "error numbers");
}

int main(void)
{
	guard_init(&g, sizeof(enc_a));
	test_hand_bytes();
	test_every_op();
	test_result_arms();
	test_op_by_op_decode();
	test_op_by_op_encode();
	test_bounds();
	test_big_list();
	test_numbers();
	guard_free(&g);
	return tap_done();
}
