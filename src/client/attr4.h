/* SPDX-License-Identifier: MIT */
/*
 * fattr4 of the NFSv4.1 sync API: the bitmap the client asks for and a
 * decoder driven by the bitmap that came back (RFC 8881 5.7: values in
 * ascending attribute order). An attribute the decoder does not know,
 * or bytes left over, make the whole list -EPROTO: without knowing an
 * attribute's size, nothing after it could be found.
 */
#ifndef NFSX_CLIENT_ATTR4_H
#define NFSX_CLIENT_ATTR4_H

#include "client/internal.h"

struct nc4_attrs {
	uint32_t mask[3];          /* what the list held */
	struct nfsx_attr a;        /* type (ftype3 values), mode, ..., times */
	struct nfsx_fh fh;         /* FATTR4_FILEHANDLE (len 0 without) */
	uint64_t maxread, maxwrite;
	uint32_t lease_time;
	uint32_t rdattr_error;
};

/* The attributes nfsx_attr holds (type, mode, nlink, owner, group, size,
 * space_used, fsid, fileid, rawdev, atime, mtime, ctime) into @w[3];
 * with @fh also FATTR4_FILEHANDLE and FATTR4_RDATTR_ERROR (READDIR). */
void nc4_attr_request(uint32_t w[3], bool fh);

/*
 * nc4_attr_decode - the values of @f into @out (zeroed first).
 * Owners are "N" (numeric) or "user@domain" (the local user's id, else
 * 65534, nobody).
 * Return values: 0, or -EPROTO.
 */
int nc4_attr_decode(const struct fattr4 *f, struct nc4_attrs *out);

#endif
