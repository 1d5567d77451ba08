/* SPDX-License-Identifier: MIT */
/*
 * NFSv3 (RFC 1813): procedure table and typed wrappers. Arguments and
 * results use the generated codecs; WRITE alone has its own encoder,
 * which encodes everything up to the data length with the generated
 * codecs and leaves the data to be sent from the caller's buffer.
 */
#include "client/procs.h"

#include "xdr/gen/nfs3.h"

NC_ENC(GETATTR3args, struct GETATTR3args)
NC_ENC(SETATTR3args, struct SETATTR3args)
NC_ENC(LOOKUP3args, struct LOOKUP3args)
NC_ENC(ACCESS3args, struct ACCESS3args)
NC_ENC(READLINK3args, struct READLINK3args)
NC_ENC(READ3args, struct READ3args)
NC_ENC(CREATE3args, struct CREATE3args)
NC_ENC(MKDIR3args, struct MKDIR3args)
NC_ENC(SYMLINK3args, struct SYMLINK3args)
NC_ENC(MKNOD3args, struct MKNOD3args)
NC_ENC(REMOVE3args, struct REMOVE3args)
NC_ENC(RMDIR3args, struct RMDIR3args)
NC_ENC(RENAME3args, struct RENAME3args)
NC_ENC(LINK3args, struct LINK3args)
NC_ENC(READDIR3args, struct READDIR3args)
NC_ENC(READDIRPLUS3args, struct READDIRPLUS3args)
NC_ENC(FSSTAT3args, struct FSSTAT3args)
NC_ENC(FSINFO3args, struct FSINFO3args)
NC_ENC(PATHCONF3args, struct PATHCONF3args)
NC_ENC(COMMIT3args, struct COMMIT3args)
NC_DEC(GETATTR3res, struct GETATTR3res)
NC_DEC(SETATTR3res, struct SETATTR3res)
NC_DEC(LOOKUP3res, struct LOOKUP3res)
NC_DEC(ACCESS3res, struct ACCESS3res)
NC_DEC(READLINK3res, struct READLINK3res)
NC_DEC(READ3res, struct READ3res)
NC_DEC(WRITE3res, struct WRITE3res)
NC_DEC(CREATE3res, struct CREATE3res)
NC_DEC(MKDIR3res, struct MKDIR3res)
NC_DEC(SYMLINK3res, struct SYMLINK3res)
NC_DEC(MKNOD3res, struct MKNOD3res)
NC_DEC(REMOVE3res, struct REMOVE3res)
NC_DEC(RMDIR3res, struct RMDIR3res)
NC_DEC(RENAME3res, struct RENAME3res)
NC_DEC(LINK3res, struct LINK3res)
NC_DEC(READDIR3res, struct READDIR3res)
NC_DEC(READDIRPLUS3res, struct READDIRPLUS3res)
NC_DEC(FSSTAT3res, struct FSSTAT3res)
NC_DEC(FSINFO3res, struct FSINFO3res)
NC_DEC(PATHCONF3res, struct PATHCONF3res)
NC_DEC(COMMIT3res, struct COMMIT3res)

/* WRITE3args up to and including the data length; data go zero-copy. */
static bool enc_WRITE3args(void *e, const void *a)
{
	const struct WRITE3args *w = a;
	struct nc_enc *ne = e;

	if (!xdr_enc_nfs_fh3(&ne->x, &w->file) || !xdr_enc_offset3(&ne->x, &w->offset) ||
	    !xdr_enc_count3(&ne->x, &w->count) || !xdr_enc_stable_how(&ne->x, &w->stable) ||
	    !xdr_enc_u32(&ne->x, w->data.len))
		return false;
	ne->payload = w->data.data;
	ne->payload_len = w->data.len;
	return true;
}

/* every result of NFSv3 starts with its nfsstat3 */
#define P(NUM, NAME, ENC, DEC, RES, IDEM) \
	NC_PROC(NFS3_PROGRAM, NFS_V3, NUM, NAME, ENC, DEC, RES, IDEM, (RES) != 0)

const struct nfsx_proc nfsx_nfs3_procs[NFSPROC3_COMMIT + 1] = {
	P(NFSPROC3_NULL, "NULL", nc_enc_void, NULL, 0, true),
	P(NFSPROC3_GETATTR, "GETATTR", enc_GETATTR3args, dec_GETATTR3res, sizeof(struct GETATTR3res), true),
	P(NFSPROC3_SETATTR, "SETATTR", enc_SETATTR3args, dec_SETATTR3res, sizeof(struct SETATTR3res), false),
	P(NFSPROC3_LOOKUP, "LOOKUP", enc_LOOKUP3args, dec_LOOKUP3res, sizeof(struct LOOKUP3res), true),
	P(NFSPROC3_ACCESS, "ACCESS", enc_ACCESS3args, dec_ACCESS3res, sizeof(struct ACCESS3res), true),
	P(NFSPROC3_READLINK, "READLINK", enc_READLINK3args, dec_READLINK3res, sizeof(struct READLINK3res), true),
	P(NFSPROC3_READ, "READ", enc_READ3args, dec_READ3res, sizeof(struct READ3res), true),
	P(NFSPROC3_WRITE, "WRITE", enc_WRITE3args, dec_WRITE3res, sizeof(struct WRITE3res), false),
	P(NFSPROC3_CREATE, "CREATE", enc_CREATE3args, dec_CREATE3res, sizeof(struct CREATE3res), false),
	P(NFSPROC3_MKDIR, "MKDIR", enc_MKDIR3args, dec_MKDIR3res, sizeof(struct MKDIR3res), false),
	P(NFSPROC3_SYMLINK, "SYMLINK", enc_SYMLINK3args, dec_SYMLINK3res, sizeof(struct SYMLINK3res), false),
	P(NFSPROC3_MKNOD, "MKNOD", enc_MKNOD3args, dec_MKNOD3res, sizeof(struct MKNOD3res), false),
	P(NFSPROC3_REMOVE, "REMOVE", enc_REMOVE3args, dec_REMOVE3res, sizeof(struct REMOVE3res), false),
	P(NFSPROC3_RMDIR, "RMDIR", enc_RMDIR3args, dec_RMDIR3res, sizeof(struct RMDIR3res), false),
	P(NFSPROC3_RENAME, "RENAME", enc_RENAME3args, dec_RENAME3res, sizeof(struct RENAME3res), false),
	P(NFSPROC3_LINK, "LINK", enc_LINK3args, dec_LINK3res, sizeof(struct LINK3res), false),
	P(NFSPROC3_READDIR, "READDIR", enc_READDIR3args, dec_READDIR3res, sizeof(struct READDIR3res), true),
	P(NFSPROC3_READDIRPLUS, "READDIRPLUS", enc_READDIRPLUS3args, dec_READDIRPLUS3res, sizeof(struct READDIRPLUS3res), true),
	P(NFSPROC3_FSSTAT, "FSSTAT", enc_FSSTAT3args, dec_FSSTAT3res, sizeof(struct FSSTAT3res), true),
	P(NFSPROC3_FSINFO, "FSINFO", enc_FSINFO3args, dec_FSINFO3res, sizeof(struct FSINFO3res), true),
	P(NFSPROC3_PATHCONF, "PATHCONF", enc_PATHCONF3args, dec_PATHCONF3res, sizeof(struct PATHCONF3res), true),
	P(NFSPROC3_COMMIT, "COMMIT", enc_COMMIT3args, dec_COMMIT3res, sizeof(struct COMMIT3res), false),
};

int nfsx3_null(struct nfsx_ctx *c, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_nfs3_procs[NFSPROC3_NULL], NULL, cb, priv);
}

int nfsx3_getattr(struct nfsx_ctx *c, const struct GETATTR3args *a, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_nfs3_procs[NFSPROC3_GETATTR], a, cb, priv);
}

int nfsx3_setattr(struct nfsx_ctx *c, const struct SETATTR3args *a, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_nfs3_procs[NFSPROC3_SETATTR], a, cb, priv);
}

int nfsx3_lookup(struct nfsx_ctx *c, const struct LOOKUP3args *a, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_nfs3_procs[NFSPROC3_LOOKUP], a, cb, priv);
}

int nfsx3_access(struct nfsx_ctx *c, const struct ACCESS3args *a, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_nfs3_procs[NFSPROC3_ACCESS], a, cb, priv);
}

int nfsx3_readlink(struct nfsx_ctx *c, const struct READLINK3args *a, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_nfs3_procs[NFSPROC3_READLINK], a, cb, priv);
}

int nfsx3_read(struct nfsx_ctx *c, const struct READ3args *a, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_nfs3_procs[NFSPROC3_READ], a, cb, priv);
}

int nfsx3_write(struct nfsx_ctx *c, const struct WRITE3args *a, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_nfs3_procs[NFSPROC3_WRITE], a, cb, priv);
}

int nfsx3_create(struct nfsx_ctx *c, const struct CREATE3args *a, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_nfs3_procs[NFSPROC3_CREATE], a, cb, priv);
}

int nfsx3_mkdir(struct nfsx_ctx *c, const struct MKDIR3args *a, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_nfs3_procs[NFSPROC3_MKDIR], a, cb, priv);
}

int nfsx3_symlink(struct nfsx_ctx *c, const struct SYMLINK3args *a, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_nfs3_procs[NFSPROC3_SYMLINK], a, cb, priv);
}

int nfsx3_mknod(struct nfsx_ctx *c, const struct MKNOD3args *a, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_nfs3_procs[NFSPROC3_MKNOD], a, cb, priv);
}

int nfsx3_remove(struct nfsx_ctx *c, const struct REMOVE3args *a, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_nfs3_procs[NFSPROC3_REMOVE], a, cb, priv);
}

int nfsx3_rmdir(struct nfsx_ctx *c, const struct RMDIR3args *a, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_nfs3_procs[NFSPROC3_RMDIR], a, cb, priv);
}

int nfsx3_rename(struct nfsx_ctx *c, const struct RENAME3args *a, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_nfs3_procs[NFSPROC3_RENAME], a, cb, priv);
}

int nfsx3_link(struct nfsx_ctx *c, const struct LINK3args *a, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_nfs3_procs[NFSPROC3_LINK], a, cb, priv);
}

int nfsx3_readdir(struct nfsx_ctx *c, const struct READDIR3args *a, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_nfs3_procs[NFSPROC3_READDIR], a, cb, priv);
}

int nfsx3_readdirplus(struct nfsx_ctx *c, const struct READDIRPLUS3args *a, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_nfs3_procs[NFSPROC3_READDIRPLUS], a, cb, priv);
}

int nfsx3_fsstat(struct nfsx_ctx *c, const struct FSSTAT3args *a, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_nfs3_procs[NFSPROC3_FSSTAT], a, cb, priv);
}

int nfsx3_fsinfo(struct nfsx_ctx *c, const struct FSINFO3args *a, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_nfs3_procs[NFSPROC3_FSINFO], a, cb, priv);
}

int nfsx3_pathconf(struct nfsx_ctx *c, const struct PATHCONF3args *a, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_nfs3_procs[NFSPROC3_PATHCONF], a, cb, priv);
}

int nfsx3_commit(struct nfsx_ctx *c, const struct COMMIT3args *a, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_nfs3_procs[NFSPROC3_COMMIT], a, cb, priv);
}
