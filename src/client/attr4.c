/* SPDX-License-Identifier: MIT */
/* fattr4 of the NFSv4.1 sync API: see attr4.h. */
#include "client/attr4.h"

#include <errno.h>
#include <grp.h>
#include <stdint.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/sync.h"

static void set(uint32_t w[3], unsigned bit)
{
	w[bit / 32] |= 1u << (bit % 32);
}

void nc4_attr_request(uint32_t w[3], bool fh)
{
	static const unsigned bits[] = {
		FATTR4_TYPE, FATTR4_SIZE, FATTR4_FSID, FATTR4_FILEID, FATTR4_MODE,
		FATTR4_NUMLINKS, FATTR4_OWNER, FATTR4_OWNER_GROUP, FATTR4_RAWDEV,
		FATTR4_SPACE_USED, FATTR4_TIME_ACCESS, FATTR4_TIME_METADATA,
		FATTR4_TIME_MODIFY,
	};
	size_t i;

	w[0] = w[1] = w[2] = 0;
	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		set(w, bits[i]);
	if (fh) {
		set(w, FATTR4_FILEHANDLE);
		set(w, FATTR4_RDATTR_ERROR);
	}
}

/* "1000", or "name@domain" looked up locally; 65534 when unknown. */
static uint32_t owner_id(const struct xdr_bytes *s, bool group)
{
	char buf[256], *at, *end;
	unsigned long v;
	size_t n = s->len < sizeof(buf) - 1 ? s->len : sizeof(buf) - 1;

	memcpy(buf, s->data, n);
	buf[n] = '\0';
	if (n && buf[0] >= '0' && buf[0] <= '9') {
		v = strtoul(buf, &end, 10);
		if (*end == '\0' && v <= UINT32_MAX)
			return (uint32_t)v;
	}
	at = strchr(buf, '@');
	if (at)
		*at = '\0';
	if (group) {
		struct group g, *res = NULL;
		char tmp[1024];

		if (getgrnam_r(buf, &g, tmp, sizeof(tmp), &res) == 0 && res)
			return (uint32_t)g.gr_gid;
	} else {
		struct passwd p, *res = NULL;
		char tmp[1024];

		if (getpwnam_r(buf, &p, tmp, sizeof(tmp), &res) == 0 && res)
			return (uint32_t)p.pw_uid;
	}
	return 65534;
}

/* Nanoseconds since the epoch, saturated: a time of the server's beyond
 * about 292 years from 1970 does not fit (nseconds is checked < 1e9). */
static int64_t ns(const struct nfstime4 *t)
{
	if (t->seconds > INT64_MAX / 1000000000 - 1)
		return INT64_MAX;
	if (t->seconds < INT64_MIN / 1000000000 + 1)
		return INT64_MIN;
	return t->seconds * 1000000000 + (int64_t)t->nseconds;
}

/* nfs_ftype4 to ftype3 (the values agree up to NF4FIFO). */
static uint32_t ftype(enum nfs_ftype4 t)
{
	if (t == NF4ATTRDIR)
		return NF3DIR;
	if (t == NF4NAMEDATTR)
		return NF3REG;
	return (uint32_t)t;
}

static bool one(struct xdr_dec *d, unsigned bit, struct nc4_attrs *o)
{
	struct nfsx_attr *a = &o->a;

	switch (bit) {
	case FATTR4_TYPE: {
		fattr4_type t;

		if (!xdr_dec_fattr4_type(d, &t))
			return false;
		a->type = ftype(t);
		return true;
	}
	case FATTR4_CHANGE: {
		fattr4_change c;

		return xdr_dec_fattr4_change(d, &c);
	}
	case FATTR4_SIZE:
		return xdr_dec_fattr4_size(d, &a->size);
	case FATTR4_FSID: {
		fattr4_fsid f;

		if (!xdr_dec_fattr4_fsid(d, &f))
			return false;
		a->fsid = f.major ^ (f.minor << 32 | f.minor >> 32);
		return true;
	}
	case FATTR4_LEASE_TIME:
		return xdr_dec_fattr4_lease_time(d, &o->lease_time);
	case FATTR4_RDATTR_ERROR: {
		fattr4_rdattr_error e;

		if (!xdr_dec_fattr4_rdattr_error(d, &e))
			return false;
		o->rdattr_error = (uint32_t)e;
		return true;
	}
	case FATTR4_FILEHANDLE: {
		fattr4_filehandle fh;

		return xdr_dec_fattr4_filehandle(d, &fh) && nc_fh_copy(&o->fh, &fh) == 0;
	}
	case FATTR4_FILEID:
		return xdr_dec_fattr4_fileid(d, &a->fileid);
	case FATTR4_MAXREAD:
		return xdr_dec_fattr4_maxread(d, &o->maxread);
	case FATTR4_MAXWRITE:
		return xdr_dec_fattr4_maxwrite(d, &o->maxwrite);
	case FATTR4_MODE:
		return xdr_dec_fattr4_mode(d, &a->mode);
	case FATTR4_NUMLINKS:
		return xdr_dec_fattr4_numlinks(d, &a->nlink);
	case FATTR4_OWNER:
	case FATTR4_OWNER_GROUP: {
		fattr4_owner s;

		if (!xdr_dec_fattr4_owner(d, &s))
			return false;
		if (bit == FATTR4_OWNER)
			a->uid = owner_id(&s, false);
		else
			a->gid = owner_id(&s, true);
		return true;
	}
	case FATTR4_RAWDEV: {
		fattr4_rawdev r;

		if (!xdr_dec_fattr4_rawdev(d, &r))
			return false;
		a->rdev_major = r.specdata1;
		a->rdev_minor = r.specdata2;
		return true;
	}
	case FATTR4_SPACE_USED:
		return xdr_dec_fattr4_space_used(d, &a->used);
	case FATTR4_TIME_ACCESS:
	case FATTR4_TIME_METADATA:
	case FATTR4_TIME_MODIFY: {
		struct nfstime4 t;

		if (!xdr_dec_fattr4_time_access(d, &t) || t.nseconds >= 1000000000u)
			return false;
		if (bit == FATTR4_TIME_ACCESS)
			a->atime_ns = ns(&t);
		else if (bit == FATTR4_TIME_METADATA)
			a->ctime_ns = ns(&t);
		else
			a->mtime_ns = ns(&t);
		return true;
	}
	case FATTR4_MOUNTED_ON_FILEID: {
		uint64_t v;

		return xdr_dec_fattr4_mounted_on_fileid(d, &v);
	}
	default:
		return false; /* its size is unknown: nothing after it can be read */
	}
}

int nc4_attr_decode(const struct fattr4 *f, struct nc4_attrs *out)
{
	struct xdr_dec d;
	uint32_t w, bit;

	memset(out, 0, sizeof(*out));
	xdr_dec_init(&d, f->attr_vals.data, f->attr_vals.len, NULL);
	for (w = 0; w < f->attrmask.len; w++) {
		uint32_t word = f->attrmask.val[w];

		if (word && w >= 3)
			return -EPROTO;
		if (w < 3)
			out->mask[w] = word;
		for (bit = 0; bit < 32; bit++)
			if ((word >> bit & 1) && !one(&d, w * 32 + bit, out))
				return -EPROTO;
	}
	return xdr_dec_left(&d) == 0 ? 0 : -EPROTO;
}

/* ---- the encoder of SETATTR's fattr4 ----------------------------------- */

/* NFSX_SET_* bits and the attribute each sets, in ascending attribute order. */
static const struct {
	uint32_t set;
	unsigned bit;
} settable[] = {
	{ NFSX_SET_SIZE, FATTR4_SIZE },
	{ NFSX_SET_MODE, FATTR4_MODE },
	{ NFSX_SET_UID, FATTR4_OWNER },
	{ NFSX_SET_GID, FATTR4_OWNER_GROUP },
	{ NFSX_SET_ATIME | NFSX_SET_ATIME_NOW, FATTR4_TIME_ACCESS_SET },
	{ NFSX_SET_MTIME | NFSX_SET_MTIME_NOW, FATTR4_TIME_MODIFY_SET },
};

static bool enc_time(struct xdr_enc *e, bool now, int64_t t)
{
	struct settime4 st = { SET_TO_SERVER_TIME4, { { 0, 0 } } };

	if (!now) {
		st.set_it = SET_TO_CLIENT_TIME4;
		st.u.time.seconds = t / 1000000000;
		st.u.time.nseconds = (uint32_t)(t % 1000000000);
		/* nseconds counts up from the second below */
		if (t % 1000000000 < 0) {
			st.u.time.seconds--;
			st.u.time.nseconds = (uint32_t)(t % 1000000000 + 1000000000);
		}
	}
	return xdr_enc_settime4(e, &st);
}

/* The value of attribute @bit, from @s. */
static bool enc_one(struct xdr_enc *e, unsigned bit, const struct nfsx_sattr *s)
{
	char id[16];
	int n;

	switch (bit) {
	case FATTR4_SIZE:
		return xdr_enc_fattr4_size(e, &s->size);
	case FATTR4_MODE:
		return xdr_enc_fattr4_mode(e, &s->mode);
	case FATTR4_OWNER:
	case FATTR4_OWNER_GROUP:
		/* numeric owners (RFC 8881 5.9): no name mapping on the way */
		n = snprintf(id, sizeof(id), "%u", bit == FATTR4_OWNER ? s->uid : s->gid);
		return xdr_enc_bytes(e, id, (uint32_t)n, sizeof(id));
	case FATTR4_TIME_ACCESS_SET:
		return enc_time(e, s->set & NFSX_SET_ATIME_NOW, s->atime_ns);
	case FATTR4_TIME_MODIFY_SET:
		return enc_time(e, s->set & NFSX_SET_MTIME_NOW, s->mtime_ns);
	default:
		return false;
	}
}

int nfsx4_sattr_encode(const struct nfsx_sattr *s, struct nfsx4_sattr_buf *b,
		       struct fattr4 *out)
{
	const uint32_t known = NFSX_SET_MODE | NFSX_SET_UID | NFSX_SET_GID | NFSX_SET_SIZE |
			       NFSX_SET_ATIME | NFSX_SET_MTIME | NFSX_SET_ATIME_NOW |
			       NFSX_SET_MTIME_NOW;
	uint32_t w[3] = { 0, 0, 0 };
	struct xdr_enc e;
	unsigned bit;
	size_t i;

	if ((s->set & ~known) || ((s->set & NFSX_SET_MODE) && s->mode > 07777))
		return -EINVAL;
	for (i = 0; i < sizeof(settable) / sizeof(settable[0]); i++)
		if (s->set & settable[i].set)
			set(w, settable[i].bit);
	/* The bitmap drives the values: ascending order whatever the table's. */
	xdr_enc_init(&e, b->vals, sizeof(b->vals));
	for (bit = 0; bit < 64; bit++)
		if ((w[bit / 32] >> (bit % 32) & 1) && !enc_one(&e, bit, s))
			return -EINVAL;
	b->mask[0] = w[0];
	b->mask[1] = w[1];
	out->attrmask.len = w[1] ? 2 : 1;
	out->attrmask.val = b->mask;
	out->attr_vals.data = b->vals;
	out->attr_vals.len = (uint32_t)xdr_enc_len(&e);
	return 0;
}
