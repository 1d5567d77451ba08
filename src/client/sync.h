/* SPDX-License-Identifier: MIT */
/*
 * The synchronous layer: run the context's loop until one call is done.
 *
 * Results live in the receive buffer only during the completion
 * callback, so each synchronous operation passes an extract function
 * that copies what it returns (handles, attributes, data) while the
 * callback runs. Anything the application's own callbacks see (readdir
 * entries, walk) is handed out after the loop has returned, so they
 * may use the synchronous API themselves.
 */
#ifndef NFSX_CLIENT_SYNC_H
#define NFSX_CLIENT_SYNC_H

#include "client/internal.h"

/* Return values: an NFS/MOUNT status (>= 0) or a negative errno. */
typedef int (*nc_extract_fn)(void *res, void *out);

/*
 * nc_sync_call - one call, waited for.
 * Return values: a negative errno (local, transport, RPC), else what
 * @extract returned (0 when @extract is NULL).
 */
int nc_sync_call(struct nfsx_ctx *ctx, const struct nfsx_proc *p, const void *args,
		 nc_extract_fn extract, void *out);

void nc_attr_from_fattr3(struct nfsx_attr *a, const struct fattr3 *f);
/* Copy a handle from the wire. Return values: 0, or -EPROTO if over 64 bytes. */
int nc_fh_copy(struct nfsx_fh *dst, const struct xdr_bytes *src);

/* A symbolic link's target into @buf of @len bytes, NUL-terminated.
 * Return values: 0, -ENAMETOOLONG, or -EPROTO (a NUL inside). */
int nc_link_copy(const struct xdr_bytes *t, char *buf, size_t len);

static inline struct nfs_fh3 nc_fh3(const struct nfsx_fh *fh)
{
	struct nfs_fh3 f = { { fh->data, fh->len } };

	return f;
}

static inline bool nc_sync_forbidden(const struct nfsx_ctx *ctx)
{
	return ctx->in_cb || ctx->in_service;
}

#endif
