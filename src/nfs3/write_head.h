/* SPDX-License-Identifier: MIT */
/*
 * The head of WRITE3args: everything before the data bytes. The bulk path
 * (nfs3_write_bulk_begin) decodes it from a record whose data has not all
 * arrived; the rest of WRITE3args is the data's bytes and padding.
 * fuzz-nfs3-args checks that it agrees with the generated WRITE3args
 * decoder wherever that decodes.
 */
#ifndef NFSX_NFS3_WRITE_HEAD_H
#define NFSX_NFS3_WRITE_HEAD_H

#include <stdbool.h>
#include <stdint.h>

#include "xdr/gen/nfs3.h"

struct nfs3_write_head {
	struct nfs_fh3 file;
	offset3 offset;
	count3 count;
	enum stable_how stable;
	uint32_t len;          /* of the data that follows */
};

static inline bool nfs3_write_head_dec(struct xdr_dec *d, struct nfs3_write_head *h)
{
	return xdr_dec_nfs_fh3(d, &h->file) && xdr_dec_offset3(d, &h->offset) &&
	       xdr_dec_count3(d, &h->count) && xdr_dec_stable_how(d, &h->stable) &&
	       xdr_dec_u32(d, &h->len);
}

#endif
