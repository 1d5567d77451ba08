// SPDX-License-Identifier: MIT
/*
 * Unit tests of the NFSv4 attribute codec (src/nfs4/attr.c) and the
 * owner strings (src/nfs4/owner.c). What the server encodes is read back
 * with the decoders generated from proto/nfs4.x, value by value in bitmap
 * order; what a client sends is built by hand, byte by byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "nfs4/attr.h"
#include "nfs4/owner.h"
#include "../../tap.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                              */

static uint32_t req_buf[8];

/* A bitmap4 with the given attribute numbers set (list ends with -1). */
static bitmap4 mask_of(const int *attrs, uint32_t words)
{
	bitmap4 bm = { .len = words, .val = req_buf };

	memset(req_buf, 0, sizeof(req_buf));
	for (; *attrs >= 0; attrs++)
		req_buf[*attrs / 32] |= 1u << (*attrs % 32);
	return bm;
}

#define MASK(...) mask_of((const int[]){ __VA_ARGS__, -1 }, 3)

static bool bit(const bitmap4 *bm, unsigned int n)
{
	return n / 32 < bm->len && (bm->val[n / 32] >> (n % 32)) & 1u;
}

static struct stat the_st;
static struct vfs_statfs the_sf;
static struct nfsx_fh the_fh;

static struct nfs4_attr_src src_for(uint32_t minor)
{
	struct nfs4_attr_src s = {
		.st = &the_st, .sf = &the_sf, .fsid_major = 0x1122334455667788ull,
		.fsid_minor = 42, .change = 0xabcdef0012345678ull, .mounted_on_fileid = 77,
		.maxfilesize = 1ull << 44, .fh = &the_fh, .lease_time = 90,
		.minorversion = minor, .rdattr_error = NFS4_OK, .maxread = 1u << 20,
		.maxwrite = 1u << 19, .time_delta_ns = 1,
		.xattr_support = true, .numeric_ids = true, .id_domain = "example.org",
	};
	return s;
}

static void setup(void)
{
	memset(&the_st, 0, sizeof(the_st));
	the_st.st_mode = S_IFCHR | 04751;
	the_st.st_ino = 0x123456789ull;
	the_st.st_size = (1ll << 40) + 5;
	the_st.st_nlink = 3;
	the_st.st_uid = 1000;
	the_st.st_gid = 100;
	the_st.st_rdev = makedev(4, 64);
	the_st.st_blocks = 16;
	the_st.st_atim = (struct timespec){ 1700000000, 123 };
	the_st.st_mtim = (struct timespec){ 1700000001, 999999999 };
	the_st.st_ctim = (struct timespec){ 1700000002, 0 };
	the_sf = (struct vfs_statfs){ .bsize = 4096, .blocks = 1000, .bfree = 600, .bavail = 500,
				      .files = 9000, .ffree = 8000, .favail = 7000,
				      .link_max = 65000, .name_max = 255 };
	the_fh.len = 20;
	for (uint32_t i = 0; i < the_fh.len; i++)
		the_fh.data[i] = (uint8_t)(0xa0 + i);
}

static uint8_t out[8192];
static uint8_t arena_mem[8192];

/* Encode @req for @s, then decode the fattr4 back. */
static bool encode_decode(const bitmap4 *req, const struct nfs4_attr_src *s, struct fattr4 *f,
			  struct xdr_arena *a)
{
	struct xdr_enc e;
	struct xdr_dec d;

	xdr_enc_init(&e, out, sizeof(out));
	if (!nfs4_attr_encode(&e, req, s))
		return false;
	xdr_arena_init(a, arena_mem, sizeof(arena_mem));
	xdr_dec_init(&d, out, xdr_enc_len(&e), a);
	return xdr_dec_fattr4(&d, f) && xdr_dec_left(&d) == 0;
}

static bool words_eq(const bitmap4 *bm, const uint32_t w[3])
{
	uint32_t i;

	for (i = 0; i < 3; i++)
		if ((i < bm->len ? bm->val[i] : 0) != w[i])
			return false;
	return bm->len <= 3;
}

static bool nft(const struct nfstime4 *t, int64_t sec, uint32_t nsec)
{
	return t->seconds == sec && t->nseconds == nsec;
}

/* ------------------------------------------------------------------ */
/* Encoding                                                             */

/* Every attribute the server knows, read back with the generated decoders. */
static void test_encode_all(void)
{
	struct nfs4_attr_src s = src_for(2);
	uint32_t supp[3], want[3];
	struct xdr_arena a;
	struct fattr4 f;
	struct xdr_dec d;
	bitmap4 req = { .len = 4, .val = req_buf };
	unsigned int n, checked = 0, bad = 0;

	s.numeric_ids = true;
	s.change_type_known = true;
	s.change_type = NFS4_CHANGE_TYPE_IS_VERSION_COUNTER;
	memset(req_buf, 0xff, sizeof(req_buf));
	ok(encode_decode(&req, &s, &f, &a), "encode: every bit asked, 4 words");
	nfs4_attr_supported(2, supp);
	memcpy(want, supp, sizeof(want));
	want[FATTR4_TIME_ACCESS_SET / 32] &= ~(1u << (FATTR4_TIME_ACCESS_SET % 32));
	want[FATTR4_TIME_MODIFY_SET / 32] &= ~(1u << (FATTR4_TIME_MODIFY_SET % 32));
	ok(f.attrmask.len == 3 && words_eq(&f.attrmask, want),
	   "encode: the mask is supported minus write-only (%08x %08x %08x)",
	   f.attrmask.len > 0 ? f.attrmask.val[0] : 0, f.attrmask.len > 1 ? f.attrmask.val[1] : 0,
	   f.attrmask.len > 2 ? f.attrmask.val[2] : 0);

	xdr_dec_init(&d, f.attr_vals.data, f.attr_vals.len, &a);
	for (n = 0; n < 96; n++) {
		bool good;

		if (!bit(&f.attrmask, n))
			continue;
		checked++;
		switch (n) {
		case FATTR4_SUPPORTED_ATTRS: {
			bitmap4 v;
			good = xdr_dec_fattr4_supported_attrs(&d, &v) && words_eq(&v, supp);
			break;
		}
		case FATTR4_TYPE: {
			fattr4_type v;
			good = xdr_dec_fattr4_type(&d, &v) && v == NF4CHR;
			break;
		}
		case FATTR4_FH_EXPIRE_TYPE: {
			fattr4_fh_expire_type v;
			good = xdr_dec_fattr4_fh_expire_type(&d, &v) && v == FH4_PERSISTENT;
			break;
		}
		case FATTR4_CHANGE: {
			fattr4_change v;
			good = xdr_dec_fattr4_change(&d, &v) && v == s.change;
			break;
		}
		case FATTR4_SIZE: {
			fattr4_size v;
			good = xdr_dec_fattr4_size(&d, &v) && v == (1ull << 40) + 5;
			break;
		}
		case FATTR4_LINK_SUPPORT:
		case FATTR4_SYMLINK_SUPPORT:
		case FATTR4_UNIQUE_HANDLES:
		case FATTR4_CANSETTIME:
		case FATTR4_CASE_PRESERVING:
		case FATTR4_CHOWN_RESTRICTED:
		case FATTR4_HOMOGENEOUS:
		case FATTR4_NO_TRUNC:
		case FATTR4_XATTR_SUPPORT: {
			bool v;
			good = xdr_dec_bool(&d, &v) && v;
			break;
		}
		case FATTR4_NAMED_ATTR:
		case FATTR4_CASE_INSENSITIVE: {
			bool v;
			good = xdr_dec_bool(&d, &v) && !v;
			break;
		}
		case FATTR4_FSID: {
			fattr4_fsid v;
			good = xdr_dec_fattr4_fsid(&d, &v) && v.major == s.fsid_major && v.minor == 42;
			break;
		}
		case FATTR4_LEASE_TIME: {
			fattr4_lease_time v;
			good = xdr_dec_fattr4_lease_time(&d, &v) && v == 90;
			break;
		}
		case FATTR4_RDATTR_ERROR: {
			fattr4_rdattr_error v;
			good = xdr_dec_fattr4_rdattr_error(&d, &v) && v == NFS4_OK;
			break;
		}
		case FATTR4_ACLSUPPORT: {
			fattr4_aclsupport v;
			good = xdr_dec_fattr4_aclsupport(&d, &v) && v == 0;
			break;
		}
		case FATTR4_FILEHANDLE: {
			fattr4_filehandle v;
			good = xdr_dec_fattr4_filehandle(&d, &v) && v.len == the_fh.len &&
			       memcmp(v.data, the_fh.data, v.len) == 0;
			break;
		}
		case FATTR4_FILEID: {
			fattr4_fileid v;
			good = xdr_dec_fattr4_fileid(&d, &v) && v == 0x123456789ull;
			break;
		}
		case FATTR4_FILES_AVAIL: {
			fattr4_files_avail v;
			good = xdr_dec_fattr4_files_avail(&d, &v) && v == 7000;
			break;
		}
		case FATTR4_FILES_FREE: {
			fattr4_files_free v;
			good = xdr_dec_fattr4_files_free(&d, &v) && v == 8000;
			break;
		}
		case FATTR4_FILES_TOTAL: {
			fattr4_files_total v;
			good = xdr_dec_fattr4_files_total(&d, &v) && v == 9000;
			break;
		}
		case FATTR4_FS_LOCATIONS: {
			fattr4_fs_locations v;
			good = xdr_dec_fattr4_fs_locations(&d, &v) && v.fs_root.len == 0 &&
			       v.locations.len == 0;
			break;
		}
		case FATTR4_MAXFILESIZE: {
			fattr4_maxfilesize v;
			good = xdr_dec_fattr4_maxfilesize(&d, &v) && v == 1ull << 44;
			break;
		}
		case FATTR4_MAXLINK: {
			fattr4_maxlink v;
			good = xdr_dec_fattr4_maxlink(&d, &v) && v == 65000;
			break;
		}
		case FATTR4_MAXNAME: {
			fattr4_maxname v;
			good = xdr_dec_fattr4_maxname(&d, &v) && v == 255;
			break;
		}
		case FATTR4_MAXREAD: {
			fattr4_maxread v;
			good = xdr_dec_fattr4_maxread(&d, &v) && v == 1u << 20;
			break;
		}
		case FATTR4_MAXWRITE: {
			fattr4_maxwrite v;
			good = xdr_dec_fattr4_maxwrite(&d, &v) && v == 1u << 19;
			break;
		}
		case FATTR4_MODE: {
			fattr4_mode v;
			good = xdr_dec_fattr4_mode(&d, &v) && v == 04751;
			break;
		}
		case FATTR4_NUMLINKS: {
			fattr4_numlinks v;
			good = xdr_dec_fattr4_numlinks(&d, &v) && v == 3;
			break;
		}
		case FATTR4_OWNER: {
			fattr4_owner v;
			good = xdr_dec_fattr4_owner(&d, &v) && v.len == 4 &&
			       memcmp(v.data, "1000", 4) == 0;
			break;
		}
		case FATTR4_OWNER_GROUP: {
			fattr4_owner_group v;
			good = xdr_dec_fattr4_owner_group(&d, &v) && v.len == 3 &&
			       memcmp(v.data, "100", 3) == 0;
			break;
		}
		case FATTR4_RAWDEV: {
			fattr4_rawdev v;
			good = xdr_dec_fattr4_rawdev(&d, &v) && v.specdata1 == 4 && v.specdata2 == 64;
			break;
		}
		case FATTR4_SPACE_AVAIL: {
			fattr4_space_avail v;
			good = xdr_dec_fattr4_space_avail(&d, &v) && v == 500ull * 4096;
			break;
		}
		case FATTR4_SPACE_FREE: {
			fattr4_space_free v;
			good = xdr_dec_fattr4_space_free(&d, &v) && v == 600ull * 4096;
			break;
		}
		case FATTR4_SPACE_TOTAL: {
			fattr4_space_total v;
			good = xdr_dec_fattr4_space_total(&d, &v) && v == 1000ull * 4096;
			break;
		}
		case FATTR4_SPACE_USED: {
			fattr4_space_used v;
			good = xdr_dec_fattr4_space_used(&d, &v) && v == 16 * 512;
			break;
		}
		case FATTR4_TIME_ACCESS: {
			fattr4_time_access v;
			good = xdr_dec_fattr4_time_access(&d, &v) && nft(&v, 1700000000, 123);
			break;
		}
		case FATTR4_TIME_DELTA: {
			fattr4_time_delta v;
			good = xdr_dec_fattr4_time_delta(&d, &v) && nft(&v, 0, 1);
			break;
		}
		case FATTR4_TIME_METADATA: {
			fattr4_time_metadata v;
			good = xdr_dec_fattr4_time_metadata(&d, &v) && nft(&v, 1700000002, 0);
			break;
		}
		case FATTR4_TIME_MODIFY: {
			fattr4_time_modify v;
			good = xdr_dec_fattr4_time_modify(&d, &v) && nft(&v, 1700000001, 999999999);
			break;
		}
		case FATTR4_MOUNTED_ON_FILEID: {
			fattr4_mounted_on_fileid v;
			good = xdr_dec_fattr4_mounted_on_fileid(&d, &v) && v == 77;
			break;
		}
		case FATTR4_SUPPATTR_EXCLCREAT: {
			bitmap4 v;
			const uint32_t w[3] = { 1u << FATTR4_SIZE,
				1u << (FATTR4_MODE - 32) | 1u << (FATTR4_OWNER - 32) |
				1u << (FATTR4_OWNER_GROUP - 32), 0 };
			good = xdr_dec_fattr4_suppattr_exclcreat(&d, &v) && v.len == 2 &&
			       words_eq(&v, w);
			break;
		}
		case FATTR4_CLONE_BLKSIZE: {
			fattr4_clone_blksize v;
			good = xdr_dec_fattr4_clone_blksize(&d, &v) && v == 4096;
			break;
		}
		case FATTR4_CHANGE_ATTR_TYPE: {
			fattr4_change_attr_type v;
			good = xdr_dec_fattr4_change_attr_type(&d, &v) &&
			       v == NFS4_CHANGE_TYPE_IS_VERSION_COUNTER;
			break;
		}
		default:
			good = false;
			break;
		}
		if (!good) {
			bad++;
			ok(0, "encode: attribute %u decodes to its value", n);
			break;
		}
	}
	ok(bad == 0 && checked == 48, "encode: %u attributes decoded, all as set", checked);
	ok(bad == 0 && xdr_dec_left(&d) == 0, "encode: attr_vals holds exactly those values");
}

/* Only supported bits come back; unknown bits and words are ignored. */
static void test_encode_unsupported(void)
{
	struct nfs4_attr_src s = src_for(2);
	struct xdr_arena a;
	struct fattr4 f;
	/* acl, archive, hidden, mimetype, quota_used, time_create, 95, word 3 */
	bitmap4 req = mask_of((const int[]){ FATTR4_TYPE, FATTR4_ACL, FATTR4_ARCHIVE,
					     FATTR4_HIDDEN, FATTR4_MIMETYPE, FATTR4_QUOTA_USED,
					     FATTR4_TIME_CREATE, FATTR4_TIME_ACCESS_SET, 95, 96,
					     127, -1 }, 4);

	ok(encode_decode(&req, &s, &f, &a), "unsupported: encodes");
	ok(f.attrmask.len == 1 && f.attrmask.val[0] == 1u << FATTR4_TYPE,
	   "unsupported: only type is returned (len %u)", f.attrmask.len);
	ok(f.attr_vals.len == 4, "unsupported: one value");

	req = mask_of((const int[]){ 95, 96, -1 }, 4);
	ok(encode_decode(&req, &s, &f, &a) && f.attrmask.len == 0 && f.attr_vals.len == 0,
	   "unsupported: only unknown bits -> empty bitmap, empty attrlist");
}

static void test_minor_versions(void)
{
	uint32_t w0[3], w1[3], w2[3];
	struct xdr_arena a;
	struct fattr4 f;
	bitmap4 req;
	struct nfs4_attr_src s;

	nfs4_attr_supported(0, w0);
	nfs4_attr_supported(1, w1);
	nfs4_attr_supported(2, w2);
	ok(w0[2] == 0, "4.0: nothing in word 2 (%08x)", w0[2]);
	ok(w1[2] == 1u << (FATTR4_SUPPATTR_EXCLCREAT - 64), "4.1: suppattr_exclcreat only (%08x)",
	   w1[2]);
	ok(w2[2] == (1u << (FATTR4_SUPPATTR_EXCLCREAT - 64) | 1u << (FATTR4_CLONE_BLKSIZE - 64) |
		     1u << (FATTR4_CHANGE_ATTR_TYPE - 64) | 1u << (FATTR4_XATTR_SUPPORT - 64)),
	   "4.2: + clone_blksize, change_attr_type, xattr_support (%08x)", w2[2]);
	ok(w0[0] == w1[0] && w1[0] == w2[0] && w0[1] == w1[1] && w1[1] == w2[1],
	   "words 0 and 1 the same in every minor version");
	ok(w0[0] == 0xfdffaffful, "word 0: knfsd's set without acl (%08x)", w0[0]);
	ok(w0[1] == 0x00f9be3eul, "word 1: mode..mounted_on_fileid (%08x)", w0[1]);
	nfs4_attr_supported(7, w0);
	ok(memcmp(w0, w2, sizeof(w0)) == 0, "a minor version above 2 is taken as 2");

	req = MASK(FATTR4_SUPPORTED_ATTRS, FATTR4_SUPPATTR_EXCLCREAT, FATTR4_CLONE_BLKSIZE,
		   FATTR4_XATTR_SUPPORT);
	s = src_for(0);
	ok(encode_decode(&req, &s, &f, &a) && f.attrmask.len == 1 && f.attrmask.val[0] == 1,
	   "4.0: only supported_attrs returned");
	{
		struct xdr_dec d;
		bitmap4 v;

		xdr_dec_init(&d, f.attr_vals.data, f.attr_vals.len, &a);
		ok(xdr_dec_bitmap4(&d, &v) && v.len == 2, "4.0: supported_attrs is 2 words");
	}
	s = src_for(1);
	ok(encode_decode(&req, &s, &f, &a) && f.attrmask.len == 3 &&
	   f.attrmask.val[2] == 1u << (FATTR4_SUPPATTR_EXCLCREAT - 64),
	   "4.1: + suppattr_exclcreat, not clone_blksize or xattr_support");
}

static void test_need_statfs(void)
{
	bitmap4 bm;

	bm = MASK(FATTR4_SPACE_AVAIL);
	ok(nfs4_attr_need_statfs(&bm), "need_statfs: space_avail");
	bm = MASK(FATTR4_FILES_FREE);
	ok(nfs4_attr_need_statfs(&bm), "need_statfs: files_free");
	bm = MASK(FATTR4_MAXNAME);
	ok(nfs4_attr_need_statfs(&bm), "need_statfs: maxname");
	bm = MASK(FATTR4_CLONE_BLKSIZE);
	ok(nfs4_attr_need_statfs(&bm), "need_statfs: clone_blksize (the file system's block)");
	bm = MASK(FATTR4_SIZE, FATTR4_MODE, FATTR4_SPACE_USED, FATTR4_CHANGE, FATTR4_FILEID);
	ok(!nfs4_attr_need_statfs(&bm), "need_statfs: not for size, mode, space_used...");
	bm = mask_of((const int[]){ -1 }, 0);
	ok(!nfs4_attr_need_statfs(&bm), "need_statfs: not for an empty bitmap");
}

static void test_missing_inputs(void)
{
	struct nfs4_attr_src s = src_for(1);
	struct xdr_arena a;
	struct fattr4 f;
	bitmap4 req = MASK(FATTR4_SIZE, FATTR4_FILEHANDLE, FATTR4_SPACE_TOTAL);

	s.sf = NULL;
	s.fh = NULL;
	ok(encode_decode(&req, &s, &f, &a) && f.attrmask.len == 1 &&
	   f.attrmask.val[0] == 1u << FATTR4_SIZE && f.attr_vals.len == 8,
	   "no statfs, no handle: those attributes left out");
}

/* Block counts that overflow in bytes say 2^64 - 1, not a small number. */
static void test_space_saturates(void)
{
	struct nfs4_attr_src s = src_for(0);
	struct vfs_statfs sf = the_sf;
	bitmap4 req = MASK(FATTR4_SPACE_TOTAL);
	struct xdr_arena a;
	struct fattr4 f;
	struct xdr_dec d;
	uint64_t v = 0;

	sf.blocks = (1ull << 53) + 1;
	s.sf = &sf;
	ok(encode_decode(&req, &s, &f, &a), "space: encodes");
	xdr_dec_init(&d, f.attr_vals.data, f.attr_vals.len, NULL);
	ok(xdr_dec_u64(&d, &v) && v == UINT64_MAX, "space: 2^53 blocks of 4 KiB -> 2^64 - 1");
}

static void test_no_room(void)
{
	struct nfs4_attr_src s = src_for(2);
	bitmap4 req = MASK(FATTR4_SIZE, FATTR4_OWNER, FATTR4_TIME_MODIFY);
	uint8_t small[24];
	struct xdr_enc e;

	xdr_enc_init(&e, small, sizeof(small));
	xdr_enc_u32(&e, 7);
	ok(!nfs4_attr_encode(&e, &req, &s) && xdr_enc_len(&e) == 4,
	   "no room: false, the encoder where it was");
}

/* The worst case fits in NFS4_ATTR_ENCODED_MAX, and needs most of it. */
static void test_encoded_max(void)
{
	struct nfs4_attr_src s = src_for(2);
	static uint8_t buf[NFS4_ATTR_ENCODED_MAX];
	char domain[NFS4_OWNER_MAX];
	bitmap4 req = { .len = 3, .val = req_buf };
	struct nfsx_fh big = { .len = FH_MAX };
	struct xdr_enc e;

	/* root@ and 507 bytes: an owner string of NFS4_OWNER_MAX */
	memset(domain, 'd', sizeof(domain));
	domain[NFS4_OWNER_MAX - 5] = '\0';
	s.numeric_ids = false;
	s.id_domain = domain;
	s.fh = &big;
	the_st.st_uid = 0;
	the_st.st_gid = 0;
	memset(req_buf, 0xff, sizeof(req_buf));
	xdr_enc_init(&e, buf, sizeof(buf));
	ok(nfs4_attr_encode(&e, &req, &s), "encoded_max: every attribute fits");
	/* the handle is FH_MAX (64) here, NFS4_FHSIZE (128) at most */
	ok(xdr_enc_len(&e) + (NFS4_FHSIZE - FH_MAX) == 1492,
	   "encoded_max: %zu bytes with a %u-byte handle", xdr_enc_len(&e), FH_MAX);
	the_st.st_uid = 1000;
	the_st.st_gid = 100;
}

static void test_check_request(void)
{
	bitmap4 bm;

	bm = MASK(FATTR4_TYPE, FATTR4_SIZE);
	ok(nfs4_attr_check_request(&bm) == NFS4_OK, "check_request: type, size ok");
	bm = MASK(FATTR4_TYPE, FATTR4_TIME_MODIFY_SET);
	ok(nfs4_attr_check_request(&bm) == NFS4ERR_INVAL, "check_request: time_modify_set INVAL");
	bm = MASK(FATTR4_TIME_ACCESS_SET);
	ok(nfs4_attr_check_request(&bm) == NFS4ERR_INVAL, "check_request: time_access_set INVAL");
}

/* ------------------------------------------------------------------ */
/* SETATTR                                                              */

static uint8_t vals[2048];
static uint32_t vlen;

static void v_reset(void)
{
	vlen = 0;
}

static void v32(uint32_t x)
{
	xdr__put32(vals + vlen, x);
	vlen += 4;
}

static void v64(uint64_t x)
{
	v32((uint32_t)(x >> 32));
	v32((uint32_t)x);
}

static void vstr(const char *str)
{
	uint32_t n = (uint32_t)strlen(str);

	v32(n);
	memcpy(vals + vlen, str, n);
	memset(vals + vlen + n, 0, xdr_pad(n) - n);
	vlen += xdr_pad(n);
}

static struct fattr4 fattr(bitmap4 bm)
{
	static uint32_t words[8];
	struct fattr4 f;

	memcpy(words, bm.val, bm.len * sizeof(uint32_t));
	f.attrmask.len = bm.len;
	f.attrmask.val = words;
	f.attr_vals.data = vals;
	f.attr_vals.len = vlen;
	return f;
}

static uint32_t set(bitmap4 bm, uint32_t minor, struct vfs_sattr *sa, uint32_t as[3])
{
	struct fattr4 f = fattr(bm);

	return nfs4_attr_decode_set(&f, minor, "example.org", sa, as);
}

static void test_decode_set(void)
{
	struct vfs_sattr sa;
	uint32_t as[3], st;
	bitmap4 bm;

	/* every settable attribute, in bitmap order */
	v_reset();
	v64(4096);                 /* size */
	v32(02755);                /* mode */
	vstr("1000");              /* owner */
	vstr("100");               /* owner_group */
	v32(SET_TO_CLIENT_TIME4);  /* time_access_set */
	v64(1600000000);
	v32(5);
	v32(SET_TO_SERVER_TIME4);  /* time_modify_set */
	bm = MASK(FATTR4_SIZE, FATTR4_MODE, FATTR4_OWNER, FATTR4_OWNER_GROUP,
		  FATTR4_TIME_ACCESS_SET, FATTR4_TIME_MODIFY_SET);
	st = set(bm, 0, &sa, as);
	ok(st == NFS4_OK, "set: all six (%u)", st);
	ok(sa.mask == (VFS_SET_SIZE | VFS_SET_MODE | VFS_SET_UID | VFS_SET_GID | VFS_SET_ATIME |
		       VFS_SET_MTIME), "set: mask %#x", sa.mask);
	ok(sa.size == 4096 && sa.mode == 02755 && sa.uid == 1000 && sa.gid == 100,
	   "set: size, mode, uid, gid");
	ok(sa.atime.tv_sec == 1600000000 && sa.atime.tv_nsec == 5, "set: atime from the client");
	ok(sa.mtime.tv_nsec == UTIME_NOW, "set: SET_TO_SERVER_TIME4 -> UTIME_NOW");
	ok(as[0] == bm.val[0] && as[1] == bm.val[1] && as[2] == 0, "set: attrsset as asked");

	/* one attribute alone, 4.2 */
	v_reset();
	v32(0644);
	st = set(MASK(FATTR4_MODE), 2, &sa, as);
	ok(st == NFS4_OK && sa.mask == VFS_SET_MODE && sa.mode == 0644, "set: mode alone");

	/* an owner by name */
	v_reset();
	vstr("root@Example.ORG");
	st = set(MASK(FATTR4_OWNER_GROUP), 1, &sa, as);
	ok(st == NFS4_OK && sa.mask == VFS_SET_GID && sa.gid == 0,
	   "set: owner_group root@Example.ORG -> gid 0 (%u)", st);
}

static void test_decode_set_errors(void)
{
	struct vfs_sattr sa;
	uint32_t as[3], st;
	bitmap4 bm;

	/* not supported: acl, a bit the server does not know, a later minor version's */
	v_reset();
	v32(0);
	st = set(MASK(FATTR4_ACL), 2, &sa, as);
	ok(st == NFS4ERR_ATTRNOTSUPP, "set: acl -> ATTRNOTSUPP (%u)", st);
	v_reset();
	v32(0644);
	bm = mask_of((const int[]){ FATTR4_MODE, 96, -1 }, 4);
	st = set(bm, 2, &sa, as);
	ok(st == NFS4ERR_ATTRNOTSUPP, "set: a bit in word 3 -> ATTRNOTSUPP (%u)", st);
	bm = mask_of((const int[]){ FATTR4_MODE, 95, -1 }, 3);
	st = set(bm, 2, &sa, as);
	ok(st == NFS4ERR_ATTRNOTSUPP, "set: bit 31 of word 2 -> ATTRNOTSUPP (%u)", st);
	v_reset();
	v32(1);
	v32(0);
	st = set(MASK(FATTR4_SUPPATTR_EXCLCREAT), 0, &sa, as);
	ok(st == NFS4ERR_ATTRNOTSUPP, "set: suppattr_exclcreat in 4.0 -> ATTRNOTSUPP (%u)", st);
	st = set(MASK(FATTR4_SUPPATTR_EXCLCREAT), 1, &sa, as);
	ok(st == NFS4ERR_INVAL, "set: suppattr_exclcreat in 4.1 -> INVAL (%u)", st);

	/* read-only */
	v_reset();
	v32(NF4REG);
	st = set(MASK(FATTR4_TYPE), 0, &sa, as);
	ok(st == NFS4ERR_INVAL, "set: type -> INVAL (%u)", st);
	v_reset();
	v64(5);
	v32(0644);
	st = set(MASK(FATTR4_FILEID, FATTR4_MODE), 0, &sa, as);
	ok(st == NFS4ERR_INVAL && sa.mask == 0 && as[0] == 0 && as[1] == 0,
	   "set: fileid -> INVAL, nothing set (%u)", st);

	/* values */
	v_reset();
	v32(010644);
	st = set(MASK(FATTR4_MODE), 0, &sa, as);
	ok(st == NFS4ERR_INVAL, "set: mode 010644 -> INVAL (%u)", st);
	v_reset();
	v32(SET_TO_CLIENT_TIME4);
	v64(1);
	v32(1000000000);
	st = set(MASK(FATTR4_TIME_MODIFY_SET), 0, &sa, as);
	ok(st == NFS4ERR_INVAL, "set: nseconds 10^9 -> INVAL (%u)", st);

	/* layout */
	v_reset();
	v32(0);
	st = set(MASK(FATTR4_SIZE), 0, &sa, as);
	ok(st == NFS4ERR_BADXDR, "set: size of 4 bytes -> BADXDR (%u)", st);
	v_reset();
	v64(1);
	v32(0);
	st = set(MASK(FATTR4_SIZE), 0, &sa, as);
	ok(st == NFS4ERR_BADXDR, "set: 4 bytes past the values -> BADXDR (%u)", st);
	v_reset();
	st = set(MASK(FATTR4_MODE), 0, &sa, as);
	ok(st == NFS4ERR_BADXDR, "set: no value -> BADXDR (%u)", st);
	v_reset();
	v32(2);
	st = set(MASK(FATTR4_TIME_ACCESS_SET), 0, &sa, as);
	ok(st == NFS4ERR_BADXDR, "set: time_how4 2 -> BADXDR (%u)", st);
	v_reset();
	v32(100);
	v32(0x31313131);
	st = set(MASK(FATTR4_OWNER), 0, &sa, as);
	ok(st == NFS4ERR_BADXDR, "set: owner longer than the bytes -> BADXDR (%u)", st);
	v_reset();
	v32(0);
	st = set(mask_of((const int[]){ -1 }, 0), 0, &sa, as);
	ok(st == NFS4ERR_BADXDR, "set: values with an empty bitmap -> BADXDR (%u)", st);

	/* owners */
	v_reset();
	vstr("nfsx-no-such-user-q7@example.org");
	st = set(MASK(FATTR4_OWNER), 0, &sa, as);
	ok(st == NFS4ERR_BADOWNER, "set: unknown user -> BADOWNER (%u)", st);
	v_reset();
	vstr("root@other.org");
	st = set(MASK(FATTR4_OWNER), 0, &sa, as);
	ok(st == NFS4ERR_BADOWNER, "set: another domain -> BADOWNER (%u)", st);
	v_reset();
	vstr("root");
	st = set(MASK(FATTR4_OWNER), 0, &sa, as);
	ok(st == NFS4ERR_BADOWNER, "set: no domain -> BADOWNER (%u)", st);
	v_reset();
	vstr("");
	st = set(MASK(FATTR4_OWNER_GROUP), 0, &sa, as);
	ok(st == NFS4ERR_INVAL, "set: empty group -> INVAL, as knfsd (%u)", st);
	/* a malformed tail wins over a bad owner */
	v_reset();
	vstr("root@other.org");
	v32(0);
	st = set(MASK(FATTR4_OWNER), 0, &sa, as);
	ok(st == NFS4ERR_BADXDR, "set: bad owner + trailing bytes -> BADXDR (%u)", st);
}

/* ------------------------------------------------------------------ */
/* VERIFY                                                               */

static uint32_t verify_mask(bitmap4 bm, const struct nfs4_attr_src *s, bool *same)
{
	struct fattr4 f = fattr(bm);

	return nfs4_attr_verify(&f, s, same);
}

static void test_verify(void)
{
	struct nfs4_attr_src s = src_for(1);
	bitmap4 req = MASK(FATTR4_SUPPORTED_ATTRS, FATTR4_TYPE, FATTR4_SIZE, FATTR4_FSID,
			   FATTR4_FILEHANDLE, FATTR4_FS_LOCATIONS, FATTR4_MODE, FATTR4_OWNER,
			   FATTR4_SPACE_TOTAL, FATTR4_TIME_MODIFY, FATTR4_SUPPATTR_EXCLCREAT);
	struct xdr_arena a;
	struct fattr4 f, g;
	uint32_t st;
	bool same = false;

	s.numeric_ids = false; /* root@example.org, if the test runs with such a uid */
	ok(encode_decode(&req, &s, &f, &a), "verify: the server's own attributes");
	memcpy(vals, f.attr_vals.data, f.attr_vals.len);
	vlen = f.attr_vals.len;
	g = fattr(f.attrmask);
	st = nfs4_attr_verify(&g, &s, &same);
	ok(st == NFS4_OK && same, "verify: equal (%u)", st);

	/* size differs in its last byte: size follows bitmap(3 words)+type */
	vals[4 + 12 + 4 + 7] ^= 1;
	st = nfs4_attr_verify(&g, &s, &same);
	ok(st == NFS4_OK && !same, "verify: a size one off -> not same (%u)", st);
	vals[4 + 12 + 4 + 7] ^= 1;

	/* a string of another length: the same layout, not the same bytes */
	the_st.st_uid = 4000000000u;
	st = nfs4_attr_verify(&g, &s, &same);
	ok(st == NFS4_OK && !same, "verify: another owner -> not same (%u)", st);
	the_st.st_uid = 1000;

	g.attr_vals.len -= 4;
	st = nfs4_attr_verify(&g, &s, &same);
	ok(st == NFS4ERR_BADXDR, "verify: 4 bytes short -> BADXDR (%u)", st);
	g.attr_vals.len += 8;
	st = nfs4_attr_verify(&g, &s, &same);
	ok(st == NFS4ERR_BADXDR, "verify: 4 bytes over -> BADXDR (%u)", st);
	g.attr_vals.len -= 4;

	s.sf = NULL;
	st = nfs4_attr_verify(&g, &s, &same);
	ok(st == NFS4ERR_SERVERFAULT, "verify: no statfs given -> SERVERFAULT (%u)", st);
	s.sf = &the_sf;

	v_reset();
	v32(NFS4_OK);
	st = verify_mask(MASK(FATTR4_RDATTR_ERROR), &s, &same);
	ok(st == NFS4ERR_INVAL, "verify: rdattr_error -> INVAL (%u)", st);
	v_reset();
	v32(SET_TO_SERVER_TIME4);
	st = verify_mask(MASK(FATTR4_TIME_MODIFY_SET), &s, &same);
	ok(st == NFS4ERR_INVAL, "verify: time_modify_set -> INVAL (%u)", st);
	v_reset();
	v32(0);
	st = verify_mask(MASK(FATTR4_ACL), &s, &same);
	ok(st == NFS4ERR_ATTRNOTSUPP, "verify: acl -> ATTRNOTSUPP (%u)", st);
	v_reset();
	v32(4096);
	st = verify_mask(MASK(FATTR4_CLONE_BLKSIZE), &s, &same);
	ok(st == NFS4ERR_ATTRNOTSUPP, "verify: clone_blksize in 4.1 -> ATTRNOTSUPP (%u)", st);
	s.minorversion = 2;
	st = verify_mask(MASK(FATTR4_CLONE_BLKSIZE), &s, &same);
	ok(st == NFS4_OK && same, "verify: clone_blksize 4096 in 4.2 -> same (%u)", st);
	v_reset();
	v32(2);
	st = verify_mask(MASK(FATTR4_NAMED_ATTR), &s, &same);
	ok(st == NFS4ERR_BADXDR, "verify: a bool of 2 -> BADXDR (%u)", st);
	v_reset();
	v32(1);
	v32(1000); /* fs_locations: 1 component of 1000 bytes that are not there */
	st = verify_mask(MASK(FATTR4_FS_LOCATIONS), &s, &same);
	ok(st == NFS4ERR_BADXDR, "verify: a truncated fs_locations -> BADXDR (%u)", st);
	v_reset();
	v32(0);
	v32(0xffffffffu); /* 2^32 - 1 locations announced, none there */
	st = verify_mask(MASK(FATTR4_FS_LOCATIONS), &s, &same);
	ok(st == NFS4ERR_BADXDR, "verify: 2^32-1 locations announced -> BADXDR (%u)", st);
}

/* ------------------------------------------------------------------ */
/* Owner strings                                                        */

static bool from_id_is(enum nfs4_id_kind k, uint32_t id, bool numeric, const char *dom,
		       const char *want)
{
	char buf[NFS4_OWNER_MAX];
	uint32_t n = nfs4_owner_from_id(k, id, numeric, dom, buf);

	return n == strlen(want) && memcmp(buf, want, n) == 0;
}

static uint32_t to_id(enum nfs4_id_kind k, const char *s, uint32_t *id)
{
	*id = 12345;
	return nfs4_owner_to_id(k, (const uint8_t *)s, (uint32_t)strlen(s), "example.org", id);
}

static void test_owner(void)
{
	char big[NFS4_OWNER_MAX + 2];
	uint32_t id;

	ok(from_id_is(NFS4_ID_USER, 1000, true, "example.org", "1000"), "owner: numeric 1000");
	ok(from_id_is(NFS4_ID_USER, 0, true, "example.org", "0"), "owner: numeric 0");
	ok(from_id_is(NFS4_ID_USER, 4294967294u, true, NULL, "4294967294"),
	   "owner: numeric 4294967294");
	ok(from_id_is(NFS4_ID_USER, 0, false, "example.org", "root@example.org"),
	   "owner: uid 0 -> root@example.org");
	ok(from_id_is(NFS4_ID_GROUP, 0, false, "example.org", "root@example.org"),
	   "owner_group: gid 0 -> root@example.org");
	ok(from_id_is(NFS4_ID_USER, 3987654321u, false, "example.org", "3987654321"),
	   "owner: a uid with no name -> numeric");
	ok(from_id_is(NFS4_ID_USER, 0, false, NULL, "0"), "owner: no domain -> numeric");
	ok(from_id_is(NFS4_ID_USER, 0, false, "", "0"), "owner: empty domain -> numeric");
	memset(big, 'd', sizeof(big));
	big[NFS4_OWNER_MAX - 4] = '\0'; /* root@ + 508 bytes: 513 */
	ok(from_id_is(NFS4_ID_USER, 0, false, big, "0"), "owner: name@domain too long -> numeric");

	ok(to_id(NFS4_ID_USER, "0", &id) == NFS4_OK && id == 0, "to_id: 0");
	ok(to_id(NFS4_ID_USER, "1000", &id) == NFS4_OK && id == 1000, "to_id: 1000");
	ok(to_id(NFS4_ID_GROUP, "0010", &id) == NFS4_OK && id == 10, "to_id: 0010 -> 10");
	ok(to_id(NFS4_ID_USER, "4294967294", &id) == NFS4_OK && id == 4294967294u,
	   "to_id: 4294967294");
	ok(to_id(NFS4_ID_USER, "4294967295", &id) == NFS4ERR_BADOWNER, "to_id: 4294967295 BADOWNER");
	ok(to_id(NFS4_ID_USER, "99999999999", &id) == NFS4ERR_BADOWNER, "to_id: 11 digits BADOWNER");
	ok(to_id(NFS4_ID_USER, "-1", &id) == NFS4ERR_BADOWNER, "to_id: -1 BADOWNER");
	ok(to_id(NFS4_ID_USER, "+5", &id) == NFS4ERR_BADOWNER, "to_id: +5 BADOWNER");
	ok(to_id(NFS4_ID_USER, " 5", &id) == NFS4ERR_BADOWNER, "to_id: ' 5' BADOWNER");
	ok(to_id(NFS4_ID_USER, "", &id) == NFS4ERR_INVAL, "to_id: empty INVAL (knfsd)");
	ok(to_id(NFS4_ID_USER, "root@example.org", &id) == NFS4_OK && id == 0,
	   "to_id: root@example.org -> 0");
	ok(to_id(NFS4_ID_GROUP, "root@EXAMPLE.org", &id) == NFS4_OK && id == 0,
	   "to_id: group root@EXAMPLE.org -> 0 (domain without case)");
	ok(to_id(NFS4_ID_USER, "root@example.org.", &id) == NFS4ERR_BADOWNER,
	   "to_id: root@example.org. BADOWNER");
	ok(to_id(NFS4_ID_USER, "root@example.com", &id) == NFS4ERR_BADOWNER,
	   "to_id: another domain BADOWNER");
	ok(to_id(NFS4_ID_USER, "root", &id) == NFS4ERR_BADOWNER, "to_id: no domain BADOWNER");
	ok(to_id(NFS4_ID_USER, "@example.org", &id) == NFS4ERR_BADOWNER, "to_id: no name BADOWNER");
	ok(to_id(NFS4_ID_USER, "nfsx-no-such-user-q7@example.org", &id) == NFS4ERR_BADOWNER,
	   "to_id: unknown user BADOWNER");
	ok(to_id(NFS4_ID_GROUP, "nfsx-no-such-group-q7@example.org", &id) == NFS4ERR_BADOWNER,
	   "to_id: unknown group BADOWNER");
	ok(to_id(NFS4_ID_USER, "1000@example.org", &id) == NFS4ERR_BADOWNER || id != 1000,
	   "to_id: 1000@example.org is a name, not the number");
	ok(nfs4_owner_to_id(NFS4_ID_USER, (const uint8_t *)"root\0@example.org", 17, "example.org",
			    &id) == NFS4ERR_BADOWNER, "to_id: a NUL inside BADOWNER");
	ok(nfs4_owner_to_id(NFS4_ID_USER, (const uint8_t *)"root@example.org", 16, NULL, &id) ==
	   NFS4ERR_BADOWNER, "to_id: a name when the server has no domain BADOWNER");
	memset(big, '1', sizeof(big));
	ok(nfs4_owner_to_id(NFS4_ID_USER, (const uint8_t *)big, NFS4_OWNER_MAX + 1, "example.org",
			    &id) == NFS4ERR_BADOWNER, "to_id: %u bytes BADOWNER", NFS4_OWNER_MAX + 1);
	memcpy(big + NFS4_OWNER_MAX + 1 - 12, "@example.org", 12);
	ok(nfs4_owner_to_id(NFS4_ID_USER, (const uint8_t *)big, NFS4_OWNER_MAX + 1, "example.org",
			    &id) == NFS4ERR_BADOWNER, "to_id: an over-long name@domain BADOWNER");
}

int main(void)
{
	setup();
	test_encode_all();
	test_encode_unsupported();
	test_minor_versions();
	test_need_statfs();
	test_missing_inputs();
	test_space_saturates();
	test_no_room();
	test_encoded_max();
	test_check_request();
	test_decode_set();
	test_decode_set_errors();
	test_verify();
	test_owner();
	return tap_done();
}
