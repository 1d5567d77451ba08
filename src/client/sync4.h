/* SPDX-License-Identifier: MIT */
/*
 * The synchronous API over NFSv4.1 (sync4.c): what nfsx_getattr,
 * nfsx_resolve, ... call on a version 4 context. Same arguments and
 * results as the nfsx_* functions, statuses are nfsstat4.
 */
#ifndef NFSX_CLIENT_SYNC4_H
#define NFSX_CLIENT_SYNC4_H

#include "client/internal.h"

static inline bool nc_is_v4(const struct nfsx_ctx *c)
{
	return c->o.version == 4;
}

int nc4_getattr(struct nfsx_ctx *c, const struct nfsx_fh *fh, struct nfsx_attr *attr);
int nc4_lookup(struct nfsx_ctx *c, const struct nfsx_fh *dir, const char *name,
	       struct nfsx_fh *fh, struct nfsx_attr *attr);
int nc4_mount(struct nfsx_ctx *c, const char *exp, struct nfsx_fh *root);
int nc4_mount_path(struct nfsx_ctx *c, const char *path, struct nfsx_fh *root,
		   const char **rest);
int nc4_resolve(struct nfsx_ctx *c, const char *path, struct nfsx_fh *fh,
		struct nfsx_attr *attr);
int nc4_fsinfo(struct nfsx_ctx *c, const struct nfsx_fh *root, uint32_t *rtmax,
	       uint32_t *wtmax, uint32_t *dtpref);
int nc4_readdir(struct nfsx_ctx *c, const struct nfsx_fh *dir, bool plus, nfsx_dirent_fn fn,
		void *priv);
int nc4_read(struct nfsx_ctx *c, const struct nfsx_fh *fh, uint64_t off, void *buf,
	     uint32_t len, uint32_t *got, bool *eof);
int nc4_write(struct nfsx_ctx *c, const struct nfsx_fh *fh, uint64_t off, const void *buf,
	      uint32_t len, enum stable_how how, uint32_t *written, uint8_t *verf);
int nc4_commit(struct nfsx_ctx *c, const struct nfsx_fh *fh, uint8_t *verf);
int nc4_create(struct nfsx_ctx *c, const struct nfsx_fh *dir, const char *name,
	       uint32_t mode, bool exclusive, struct nfsx_fh *fh);
int nc4_truncate(struct nfsx_ctx *c, const struct nfsx_fh *fh, uint64_t size);
int nc4_mkdir(struct nfsx_ctx *c, const struct nfsx_fh *dir, const char *name, uint32_t mode,
	      struct nfsx_fh *fh);
/* REMOVE: files and empty directories alike (nfsx_remove, nfsx_rmdir). */
int nc4_remove(struct nfsx_ctx *c, const struct nfsx_fh *dir, const char *name);
/* SETATTR (the anonymous stateid), RENAME, LINK, READLINK (sync4_ns.c). */
int nc4_setattr(struct nfsx_ctx *c, const struct nfsx_fh *fh, const struct nfsx_sattr *s);
int nc4_rename(struct nfsx_ctx *c, const struct nfsx_fh *from_dir, const char *from_name,
	       const struct nfsx_fh *to_dir, const char *to_name);
int nc4_link(struct nfsx_ctx *c, const struct nfsx_fh *fh, const struct nfsx_fh *dir,
	     const char *name);
int nc4_readlink(struct nfsx_ctx *c, const struct nfsx_fh *fh, char *buf, size_t len);

#endif
