// SPDX-License-Identifier: MIT
/*
 * NFSv4 attributes: see attr.h. Values go on the wire with the codecs
 * generated from proto/nfs4.x (xdr_enc_fattr4_*, xdr_dec_fattr4_*); this
 * file decides which attributes exist, in what order, and what they say.
 */
#include "nfs4/attr.h"

#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "nfs4/owner.h"

/* The highest attribute number the server knows (xattr_support). */
#define ATTR_LAST FATTR4_XATTR_SUPPORT

enum {
	A_STATFS = 1u << 0,     /* needs nfs4_attr_src.sf */
	A_SETTABLE = 1u << 1,   /* SETATTR, CREATE, OPEN may set it */
	A_WRITEONLY = 1u << 2,  /* no value to read (the *_set times) */
};

struct attr_def {
	uint8_t supported;      /* 1 + the first minor version that has it; 0: not supported */
	uint8_t flags;
	/* the server's value (NULL for write-only attributes) */
	bool (*enc)(struct xdr_enc *e, const struct nfs4_attr_src *s);
	/* a client's value: checks its layout and moves past it */
	bool (*skip)(struct xdr_dec *d);
};

static inline bool bm_test(const uint32_t *w, unsigned int n)
{
	return (w[n / 32] >> (n % 32)) & 1u;
}

static inline void bm_set(uint32_t *w, unsigned int n)
{
	w[n / 32] |= 1u << (n % 32);
}

/* ------------------------------------------------------------------ */
/* The server's values                                                  */

static bool enc_u32(struct xdr_enc *e, uint32_t v)
{
	return xdr_enc_u32(e, v);
}

static bool enc_u64(struct xdr_enc *e, uint64_t v)
{
	return xdr_enc_u64(e, v);
}

static bool enc_time(struct xdr_enc *e, const struct timespec *ts)
{
	struct nfstime4 t = { .seconds = (int64_t)ts->tv_sec, .nseconds = (uint32_t)ts->tv_nsec };

	return xdr_enc_nfstime4(e, &t);
}

/* A bitmap as short as its last non-zero word (an empty one has none). */
static bool enc_words(struct xdr_enc *e, const uint32_t w[NFS4_ATTR_WORDS])
{
	uint32_t n = NFS4_ATTR_WORDS;
	bitmap4 bm;

	while (n && !w[n - 1])
		n--;
	bm.len = n;
	bm.val = (uint32_t *)w;
	return xdr_enc_bitmap4(e, &bm);
}

static bool enc_supported_attrs(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	uint32_t w[NFS4_ATTR_WORDS];

	nfs4_attr_supported(s->minorversion, w);
	return enc_words(e, w);
}

static bool enc_type(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	enum nfs_ftype4 t;

	switch (s->st->st_mode & S_IFMT) {
	case S_IFDIR: t = NF4DIR; break;
	case S_IFLNK: t = NF4LNK; break;
	case S_IFBLK: t = NF4BLK; break;
	case S_IFCHR: t = NF4CHR; break;
	case S_IFSOCK: t = NF4SOCK; break;
	case S_IFIFO: t = NF4FIFO; break;
	default: t = NF4REG; break;
	}
	return xdr_enc_nfs_ftype4(e, &t);
}

/* Handles survive restarts and renames (vfs/fh.h). */
static bool enc_fh_expire_type(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u32(e, FH4_PERSISTENT);
}

static bool enc_change(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u64(e, s->change);
}

static bool enc_size(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u64(e, (uint64_t)s->st->st_size);
}

static bool enc_true(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return xdr_enc_bool(e, true);
}

static bool enc_false(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return xdr_enc_bool(e, false);
}

static bool enc_fsid(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	struct fsid4 f = { .major = s->fsid_major, .minor = s->fsid_minor };

	return xdr_enc_fsid4(e, &f);
}

static bool enc_lease_time(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u32(e, s->lease_time);
}

static bool enc_rdattr_error(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u32(e, s->rdattr_error);
}

/* No ACL type is supported: mode bits only. */
static bool enc_aclsupport(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u32(e, 0);
}

static bool enc_cansettime(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return xdr_enc_bool(e, !s->read_only);
}

static bool enc_filehandle(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return xdr_enc_bytes(e, s->fh->data, s->fh->len, NFS4_FHSIZE);
}

static bool enc_fileid(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u64(e, (uint64_t)s->st->st_ino);
}

static bool enc_files_avail(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u64(e, s->sf->favail);
}

static bool enc_files_free(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u64(e, s->sf->ffree);
}

static bool enc_files_total(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u64(e, s->sf->files);
}

/*
 * No file system here is replicated or has moved (no referrals, no
 * migration), so there is no other location to name: an fs_root of no
 * components and no locations. Supported anyway, as knfsd does: RFC 7530
 * makes it REQUIRED of a server that ever answers NFS4ERR_MOVED, and a
 * client asking (Linux probes it for migration and trunking) gets "here
 * only" rather than having to guess from its absence.
 */
static bool enc_fs_locations(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u32(e, 0) && enc_u32(e, 0);
}

static bool enc_maxfilesize(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u64(e, s->maxfilesize ? s->maxfilesize : (uint64_t)INT64_MAX);
}

/* The file system's link limit when known, else the 255 knfsd announces. */
static bool enc_maxlink(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u32(e, s->sf->link_max ? s->sf->link_max : 255);
}

static bool enc_maxname(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u32(e, s->sf->name_max);
}

static bool enc_maxread(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u64(e, s->maxread);
}

static bool enc_maxwrite(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u64(e, s->maxwrite);
}

static bool enc_mode(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u32(e, (uint32_t)(s->st->st_mode & 07777));
}

static bool enc_numlinks(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u32(e, s->st->st_nlink > UINT32_MAX ? UINT32_MAX : (uint32_t)s->st->st_nlink);
}

static bool enc_owner_string(struct xdr_enc *e, const struct nfs4_attr_src *s,
			     enum nfs4_id_kind kind, uint32_t id)
{
	char buf[NFS4_OWNER_MAX];
	uint32_t len = nfs4_owner_from_id(kind, id, s->numeric_ids, s->id_domain, buf);

	return xdr_enc_bytes(e, buf, len, NFS4_OWNER_MAX);
}

static bool enc_owner(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_owner_string(e, s, NFS4_ID_USER, (uint32_t)s->st->st_uid);
}

static bool enc_owner_group(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_owner_string(e, s, NFS4_ID_GROUP, (uint32_t)s->st->st_gid);
}

static bool enc_rawdev(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	struct specdata4 d = {
		.specdata1 = major(s->st->st_rdev),
		.specdata2 = minor(s->st->st_rdev),
	};

	return xdr_enc_specdata4(e, &d);
}

/* Blocks to bytes, at most 2^64 - 1 (a file system that large cannot be). */
static uint64_t bytes(uint64_t count, uint64_t unit)
{
	uint64_t r;

	return __builtin_mul_overflow(count, unit, &r) ? UINT64_MAX : r;
}

static bool enc_space_avail(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u64(e, bytes(s->sf->bavail, s->sf->bsize));
}

static bool enc_space_free(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u64(e, bytes(s->sf->bfree, s->sf->bsize));
}

static bool enc_space_total(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u64(e, bytes(s->sf->blocks, s->sf->bsize));
}

/* st_blocks counts 512-byte units whatever the file system's block size. */
static bool enc_space_used(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u64(e, (uint64_t)s->st->st_blocks * 512u);
}

static bool enc_time_access(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_time(e, &s->st->st_atim);
}

static bool enc_time_delta(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	struct nfstime4 t = {
		.seconds = s->time_delta_ns / 1000000000u,
		.nseconds = s->time_delta_ns % 1000000000u,
	};

	return xdr_enc_nfstime4(e, &t);
}

static bool enc_time_metadata(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_time(e, &s->st->st_ctim);
}

static bool enc_time_modify(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_time(e, &s->st->st_mtim);
}

static bool enc_mounted_on_fileid(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u64(e, s->mounted_on_fileid);
}

static bool enc_suppattr_exclcreat(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	uint32_t w[NFS4_ATTR_WORDS];

	nfs4_attr_exclcreat(w);
	return enc_words(e, w);
}

/* The file system's block (statfs f_bsize), as knfsd tells its
 * s_blocksize: the unit the kernel's clone checks alignment against. */
static bool enc_clone_blksize(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u32(e, s->sf->bsize > UINT32_MAX ? 0 : (uint32_t)s->sf->bsize);
}

static bool enc_change_attr_type(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return enc_u32(e, s->change_type_known ? s->change_type : NFS4_CHANGE_TYPE_IS_UNDEFINED);
}

static bool enc_xattr_support(struct xdr_enc *e, const struct nfs4_attr_src *s)
{
	return xdr_enc_bool(e, s->xattr_support);
}

/* ------------------------------------------------------------------ */
/* A client's values: layout only                                       */

#define SKIP(name)                                          \
	static bool skip_##name(struct xdr_dec *d)          \
	{                                                   \
		fattr4_##name v;                            \
		return xdr_dec_fattr4_##name(d, &v);        \
	}

SKIP(type)
SKIP(fh_expire_type)
SKIP(change)
SKIP(size)
SKIP(link_support)
SKIP(fsid)
SKIP(lease_time)
SKIP(rdattr_error)
SKIP(aclsupport)
SKIP(filehandle)
SKIP(fileid)
SKIP(maxlink)
SKIP(mode)
SKIP(owner)
SKIP(rawdev)
SKIP(time_access)
SKIP(time_access_set)
SKIP(change_attr_type)

/*
 * Bitmaps and fs_locations4 are walked by hand rather than decoded: the
 * generated decoders would take arena memory for their arrays, and a
 * comparison needs none. Every element read is at least one XDR unit,
 * so a walk ends after at most as many steps as there are bytes.
 */
static bool skip_bitmap(struct xdr_dec *d)
{
	uint32_t n;

	return xdr_dec_u32(d, &n) && n <= xdr_dec_left(d) / 4 && xdr_dec_skip(d, n * 4);
}

static bool skip_pathname(struct xdr_dec *d)
{
	uint32_t n, i;
	struct xdr_bytes c;

	if (!xdr_dec_u32(d, &n))
		return false;
	for (i = 0; i < n; i++)
		if (!xdr_dec_bytes(d, &c, UINT32_MAX))
			return false;
	return true;
}

static bool skip_fs_locations(struct xdr_dec *d)
{
	uint32_t n, i, servers, j;
	struct xdr_bytes c;

	if (!skip_pathname(d) || !xdr_dec_u32(d, &n))
		return false;
	for (i = 0; i < n; i++) {
		if (!xdr_dec_u32(d, &servers))
			return false;
		for (j = 0; j < servers; j++)
			if (!xdr_dec_bytes(d, &c, UINT32_MAX))
				return false;
		if (!skip_pathname(d))
			return false;
	}
	return true;
}

/* Same layouts under other names. */
#define skip_bool skip_link_support
#define skip_u32 skip_lease_time
#define skip_u64 skip_change
#define skip_time skip_time_access

/* ------------------------------------------------------------------ */
/* The table                                                            */

#define V40 1
#define V41 2
#define V42 3

#define ATTR(n, v, fl, e, sk) [n] = { .supported = (v), .flags = (fl), .enc = (e), .skip = (sk) }

static const struct attr_def attrs[ATTR_LAST + 1] = {
	ATTR(FATTR4_SUPPORTED_ATTRS, V40, 0, enc_supported_attrs, skip_bitmap),
	ATTR(FATTR4_TYPE, V40, 0, enc_type, skip_type),
	ATTR(FATTR4_FH_EXPIRE_TYPE, V40, 0, enc_fh_expire_type, skip_fh_expire_type),
	ATTR(FATTR4_CHANGE, V40, 0, enc_change, skip_change),
	ATTR(FATTR4_SIZE, V40, A_SETTABLE, enc_size, skip_size),
	ATTR(FATTR4_LINK_SUPPORT, V40, 0, enc_true, skip_bool),
	ATTR(FATTR4_SYMLINK_SUPPORT, V40, 0, enc_true, skip_bool),
	ATTR(FATTR4_NAMED_ATTR, V40, 0, enc_false, skip_bool),
	ATTR(FATTR4_FSID, V40, 0, enc_fsid, skip_fsid),
	ATTR(FATTR4_UNIQUE_HANDLES, V40, 0, enc_true, skip_bool),
	ATTR(FATTR4_LEASE_TIME, V40, 0, enc_lease_time, skip_lease_time),
	ATTR(FATTR4_RDATTR_ERROR, V40, 0, enc_rdattr_error, skip_rdattr_error),
	ATTR(FATTR4_ACLSUPPORT, V40, 0, enc_aclsupport, skip_aclsupport),
	ATTR(FATTR4_CANSETTIME, V40, 0, enc_cansettime, skip_bool),
	ATTR(FATTR4_CASE_INSENSITIVE, V40, 0, enc_false, skip_bool),
	ATTR(FATTR4_CASE_PRESERVING, V40, 0, enc_true, skip_bool),
	ATTR(FATTR4_CHOWN_RESTRICTED, V40, 0, enc_true, skip_bool),
	ATTR(FATTR4_FILEHANDLE, V40, 0, enc_filehandle, skip_filehandle),
	ATTR(FATTR4_FILEID, V40, 0, enc_fileid, skip_fileid),
	ATTR(FATTR4_FILES_AVAIL, V40, A_STATFS, enc_files_avail, skip_u64),
	ATTR(FATTR4_FILES_FREE, V40, A_STATFS, enc_files_free, skip_u64),
	ATTR(FATTR4_FILES_TOTAL, V40, A_STATFS, enc_files_total, skip_u64),
	ATTR(FATTR4_FS_LOCATIONS, V40, 0, enc_fs_locations, skip_fs_locations),
	ATTR(FATTR4_HOMOGENEOUS, V40, 0, enc_true, skip_bool),
	ATTR(FATTR4_MAXFILESIZE, V40, 0, enc_maxfilesize, skip_u64),
	ATTR(FATTR4_MAXLINK, V40, A_STATFS, enc_maxlink, skip_maxlink),
	ATTR(FATTR4_MAXNAME, V40, A_STATFS, enc_maxname, skip_u32),
	ATTR(FATTR4_MAXREAD, V40, 0, enc_maxread, skip_u64),
	ATTR(FATTR4_MAXWRITE, V40, 0, enc_maxwrite, skip_u64),
	ATTR(FATTR4_MODE, V40, A_SETTABLE, enc_mode, skip_mode),
	ATTR(FATTR4_NO_TRUNC, V40, 0, enc_true, skip_bool),
	ATTR(FATTR4_NUMLINKS, V40, 0, enc_numlinks, skip_u32),
	ATTR(FATTR4_OWNER, V40, A_SETTABLE, enc_owner, skip_owner),
	ATTR(FATTR4_OWNER_GROUP, V40, A_SETTABLE, enc_owner_group, skip_owner),
	ATTR(FATTR4_RAWDEV, V40, 0, enc_rawdev, skip_rawdev),
	ATTR(FATTR4_SPACE_AVAIL, V40, A_STATFS, enc_space_avail, skip_u64),
	ATTR(FATTR4_SPACE_FREE, V40, A_STATFS, enc_space_free, skip_u64),
	ATTR(FATTR4_SPACE_TOTAL, V40, A_STATFS, enc_space_total, skip_u64),
	ATTR(FATTR4_SPACE_USED, V40, 0, enc_space_used, skip_u64),
	ATTR(FATTR4_TIME_ACCESS, V40, 0, enc_time_access, skip_time),
	ATTR(FATTR4_TIME_ACCESS_SET, V40, A_SETTABLE | A_WRITEONLY, NULL, skip_time_access_set),
	ATTR(FATTR4_TIME_DELTA, V40, 0, enc_time_delta, skip_time),
	ATTR(FATTR4_TIME_METADATA, V40, 0, enc_time_metadata, skip_time),
	ATTR(FATTR4_TIME_MODIFY, V40, 0, enc_time_modify, skip_time),
	ATTR(FATTR4_TIME_MODIFY_SET, V40, A_SETTABLE | A_WRITEONLY, NULL, skip_time_access_set),
	ATTR(FATTR4_MOUNTED_ON_FILEID, V40, 0, enc_mounted_on_fileid, skip_u64),
	ATTR(FATTR4_SUPPATTR_EXCLCREAT, V41, 0, enc_suppattr_exclcreat, skip_bitmap),
	ATTR(FATTR4_CLONE_BLKSIZE, V42, A_STATFS, enc_clone_blksize, skip_u32),
	ATTR(FATTR4_CHANGE_ATTR_TYPE, V42, 0, enc_change_attr_type, skip_change_attr_type),
	ATTR(FATTR4_XATTR_SUPPORT, V42, 0, enc_xattr_support, skip_bool),
};

static bool attr_in(unsigned int n, uint32_t minorversion)
{
	if (minorversion > 2)
		minorversion = 2;
	return n <= ATTR_LAST && attrs[n].supported && attrs[n].supported - 1u <= minorversion;
}

void nfs4_attr_supported(uint32_t minorversion, uint32_t words[NFS4_ATTR_WORDS])
{
	unsigned int n;

	memset(words, 0, NFS4_ATTR_WORDS * sizeof(words[0]));
	for (n = 0; n <= ATTR_LAST; n++)
		if (attr_in(n, minorversion))
			bm_set(words, n);
}

void nfs4_attr_exclcreat(uint32_t words[NFS4_ATTR_WORDS])
{
	memset(words, 0, NFS4_ATTR_WORDS * sizeof(words[0]));
	bm_set(words, FATTR4_SIZE);
	bm_set(words, FATTR4_MODE);
	bm_set(words, FATTR4_OWNER);
	bm_set(words, FATTR4_OWNER_GROUP);
}

/* The first three words of @bm, missing ones zero. */
static void req_words(const bitmap4 *bm, uint32_t w[NFS4_ATTR_WORDS])
{
	uint32_t i;

	for (i = 0; i < NFS4_ATTR_WORDS; i++)
		w[i] = i < bm->len ? bm->val[i] : 0;
}

/* Any bit in words past the third? */
static bool req_beyond(const bitmap4 *bm)
{
	uint32_t i;

	for (i = NFS4_ATTR_WORDS; i < bm->len; i++)
		if (bm->val[i])
			return true;
	return false;
}

bool nfs4_attr_need_statfs(const bitmap4 *req)
{
	uint32_t w[NFS4_ATTR_WORDS];
	unsigned int n;

	req_words(req, w);
	for (n = 0; n <= ATTR_LAST; n++)
		if (bm_test(w, n) && attrs[n].supported && (attrs[n].flags & A_STATFS))
			return true;
	return false;
}

uint32_t nfs4_attr_check_request(const bitmap4 *req)
{
	uint32_t w[NFS4_ATTR_WORDS];

	req_words(req, w);
	if (bm_test(w, FATTR4_TIME_ACCESS_SET) || bm_test(w, FATTR4_TIME_MODIFY_SET))
		return NFS4ERR_INVAL;
	return NFS4_OK;
}

/* Can the server give attribute @n's value from @s? */
static bool attr_available(unsigned int n, const struct nfs4_attr_src *s)
{
	if (!attrs[n].enc)
		return false;
	if ((attrs[n].flags & A_STATFS) && !s->sf)
		return false;
	if (n == FATTR4_FILEHANDLE && !s->fh)
		return false;
	return true;
}

bool nfs4_attr_encode(struct xdr_enc *e, const bitmap4 *req, const struct nfs4_attr_src *s)
{
	uint8_t *start = e->p, *lenp;
	uint32_t w[NFS4_ATTR_WORDS], out[NFS4_ATTR_WORDS] = { 0 };
	unsigned int n;

	req_words(req, w);
	for (n = 0; n <= ATTR_LAST; n++)
		if (bm_test(w, n) && attr_in(n, s->minorversion) && attr_available(n, s))
			bm_set(out, n);
	if (!enc_words(e, out))
		goto fail;
	lenp = xdr_enc_reserve(e, 4);
	if (!lenp)
		goto fail;
	for (n = 0; n <= ATTR_LAST; n++)
		if (bm_test(out, n) && !attrs[n].enc(e, s))
			goto fail;
	xdr__put32(lenp, (uint32_t)(e->p - lenp - 4));
	return true;
fail:
	e->p = start;
	return false;
}

/*
 * The bitmap of a client's fattr4 against what the server supports in
 * @minorversion: any bit the server does not know or support, in any
 * word, is NFS4ERR_ATTRNOTSUPP. Returns NFS4_OK with @w set.
 */
static uint32_t check_mask(const bitmap4 *bm, uint32_t minorversion, uint32_t w[NFS4_ATTR_WORDS])
{
	uint32_t supp[NFS4_ATTR_WORDS], i;

	if (req_beyond(bm))
		return NFS4ERR_ATTRNOTSUPP;
	req_words(bm, w);
	nfs4_attr_supported(minorversion, supp);
	for (i = 0; i < NFS4_ATTR_WORDS; i++)
		if (w[i] & ~supp[i])
			return NFS4ERR_ATTRNOTSUPP;
	return NFS4_OK;
}

/* A client's time: an nfstime4 whose nseconds reach a second is invalid. */
static uint32_t set_time(const struct settime4 *t, struct timespec *ts)
{
	if (t->set_it == SET_TO_SERVER_TIME4) {
		ts->tv_sec = 0;
		ts->tv_nsec = UTIME_NOW;
		return NFS4_OK;
	}
	if (t->u.time.nseconds >= 1000000000u)
		return NFS4ERR_INVAL;
	if (sizeof(time_t) < sizeof(int64_t) &&
	    (t->u.time.seconds > INT32_MAX || t->u.time.seconds < INT32_MIN))
		return NFS4ERR_INVAL;
	ts->tv_sec = (time_t)t->u.time.seconds;
	ts->tv_nsec = (long)t->u.time.nseconds;
	return NFS4_OK;
}

uint32_t nfs4_attr_decode_set(const struct fattr4 *f, uint32_t minorversion,
			      const char *id_domain, struct vfs_sattr *sa,
			      uint32_t attrsset[NFS4_ATTR_WORDS])
{
	uint32_t w[NFS4_ATTR_WORDS], st = NFS4_OK, err;
	struct vfs_sattr out = { 0 };
	fattr4_owner owner = { 0 }, group = { 0 };
	struct settime4 atime, mtime;
	struct xdr_dec d;
	unsigned int n;

	memset(sa, 0, sizeof(*sa));
	memset(attrsset, 0, NFS4_ATTR_WORDS * sizeof(attrsset[0]));
	err = check_mask(&f->attrmask, minorversion, w);
	if (err)
		return err;
	for (n = 0; n <= ATTR_LAST; n++)
		if (bm_test(w, n) && !(attrs[n].flags & A_SETTABLE))
			return NFS4ERR_INVAL;

	/* the layout first: BADXDR before anything a value says */
	xdr_dec_init(&d, f->attr_vals.data, f->attr_vals.len, NULL);
	if (bm_test(w, FATTR4_SIZE)) {
		if (!xdr_dec_fattr4_size(&d, &out.size))
			return NFS4ERR_BADXDR;
		out.mask |= VFS_SET_SIZE;
	}
	if (bm_test(w, FATTR4_MODE)) {
		fattr4_mode m;

		if (!xdr_dec_fattr4_mode(&d, &m))
			return NFS4ERR_BADXDR;
		if (m & ~07777u)
			st = st ? st : NFS4ERR_INVAL;
		out.mode = (mode_t)(m & 07777u);
		out.mask |= VFS_SET_MODE;
	}
	if (bm_test(w, FATTR4_OWNER) && !xdr_dec_fattr4_owner(&d, &owner))
		return NFS4ERR_BADXDR;
	if (bm_test(w, FATTR4_OWNER_GROUP) && !xdr_dec_fattr4_owner_group(&d, &group))
		return NFS4ERR_BADXDR;
	if (bm_test(w, FATTR4_TIME_ACCESS_SET)) {
		if (!xdr_dec_fattr4_time_access_set(&d, &atime))
			return NFS4ERR_BADXDR;
		err = set_time(&atime, &out.atime);
		st = st ? st : err;
		out.mask |= VFS_SET_ATIME;
	}
	if (bm_test(w, FATTR4_TIME_MODIFY_SET)) {
		if (!xdr_dec_fattr4_time_modify_set(&d, &mtime))
			return NFS4ERR_BADXDR;
		err = set_time(&mtime, &out.mtime);
		st = st ? st : err;
		out.mask |= VFS_SET_MTIME;
	}
	if (xdr_dec_left(&d))
		return NFS4ERR_BADXDR;
	if (st)
		return st;

	/* then the owners, which may ask the user and group databases */
	if (bm_test(w, FATTR4_OWNER)) {
		uint32_t id;

		err = nfs4_owner_to_id(NFS4_ID_USER, owner.data, owner.len, id_domain, &id);
		if (err)
			return err;
		out.uid = (uid_t)id;
		out.mask |= VFS_SET_UID;
	}
	if (bm_test(w, FATTR4_OWNER_GROUP)) {
		uint32_t id;

		err = nfs4_owner_to_id(NFS4_ID_GROUP, group.data, group.len, id_domain, &id);
		if (err)
			return err;
		out.gid = (gid_t)id;
		out.mask |= VFS_SET_GID;
	}
	*sa = out;
	memcpy(attrsset, w, NFS4_ATTR_WORDS * sizeof(w[0]));
	return NFS4_OK;
}

/* One value of the server's, whatever attribute: an owner string is the largest. */
#define VALUE_MAX (4u + NFS4_OWNER_MAX)

uint32_t nfs4_attr_verify(const struct fattr4 *f, const struct nfs4_attr_src *s, bool *same)
{
	uint32_t w[NFS4_ATTR_WORDS], err;
	uint8_t buf[VALUE_MAX];
	bool differ = false;
	struct xdr_dec d;
	unsigned int n;

	*same = false;
	err = check_mask(&f->attrmask, s->minorversion, w);
	if (err)
		return err;
	for (n = 0; n <= ATTR_LAST; n++)
		if (bm_test(w, n) && (n == FATTR4_RDATTR_ERROR || (attrs[n].flags & A_WRITEONLY)))
			return NFS4ERR_INVAL;
	for (n = 0; n <= ATTR_LAST; n++)
		if (bm_test(w, n) && !attr_available(n, s))
			return NFS4ERR_SERVERFAULT;

	xdr_dec_init(&d, f->attr_vals.data, f->attr_vals.len, NULL);
	for (n = 0; n <= ATTR_LAST; n++) {
		const uint8_t *theirs = d.p;
		struct xdr_enc e;
		size_t len;

		if (!bm_test(w, n))
			continue;
		if (!attrs[n].skip(&d))
			return NFS4ERR_BADXDR;
		if (differ)
			continue;
		xdr_enc_init(&e, buf, sizeof(buf));
		if (!attrs[n].enc(&e, s))
			return NFS4ERR_SERVERFAULT;
		len = xdr_enc_len(&e);
		if (len != (size_t)(d.p - theirs) || memcmp(buf, theirs, len) != 0)
			differ = true;
	}
	if (xdr_dec_left(&d))
		return NFS4ERR_BADXDR;
	*same = !differ;
	return NFS4_OK;
}
