/* SPDX-License-Identifier: MIT */
/* MOUNT v3 (RFC 1813 appendix I): procedure table and typed wrappers. */
#include "client/procs.h"

NC_ENC(dirpath3, dirpath3)
NC_DEC(mountres3, struct mountres3)
NC_DEC(mountlist3, mountlist3)
NC_DEC(exports3, exports3)

/* of MOUNT's results only MNT's starts with a status */
#define P(NUM, NAME, ENC, DEC, RES, IDEM) \
	NC_PROC(MOUNT3_PROGRAM, MOUNT_V3, NUM, NAME, ENC, DEC, RES, IDEM, (NUM) == MOUNTPROC3_MNT)

const struct nfsx_proc nfsx_mnt3_procs[MOUNTPROC3_EXPORT + 1] = {
	P(MOUNTPROC3_NULL, "NULL", nc_enc_void, NULL, 0, true),
	P(MOUNTPROC3_MNT, "MNT", enc_dirpath3, dec_mountres3, sizeof(struct mountres3), false),
	P(MOUNTPROC3_DUMP, "DUMP", nc_enc_void, dec_mountlist3, sizeof(mountlist3), true),
	P(MOUNTPROC3_UMNT, "UMNT", enc_dirpath3, NULL, 0, false),
	P(MOUNTPROC3_UMNTALL, "UMNTALL", nc_enc_void, NULL, 0, false),
	P(MOUNTPROC3_EXPORT, "EXPORT", nc_enc_void, dec_exports3, sizeof(exports3), true),
};

int nfsx_mnt3_null(struct nfsx_ctx *c, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_mnt3_procs[MOUNTPROC3_NULL], NULL, cb, priv);
}

int nfsx_mnt3_mnt(struct nfsx_ctx *c, const dirpath3 *path, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_mnt3_procs[MOUNTPROC3_MNT], path, cb, priv);
}

int nfsx_mnt3_dump(struct nfsx_ctx *c, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_mnt3_procs[MOUNTPROC3_DUMP], NULL, cb, priv);
}

int nfsx_mnt3_umnt(struct nfsx_ctx *c, const dirpath3 *path, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_mnt3_procs[MOUNTPROC3_UMNT], path, cb, priv);
}

int nfsx_mnt3_umntall(struct nfsx_ctx *c, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_mnt3_procs[MOUNTPROC3_UMNTALL], NULL, cb, priv);
}

int nfsx_mnt3_export(struct nfsx_ctx *c, nfsx_cb cb, void *priv)
{
	return nfsx_call(c, &nfsx_mnt3_procs[MOUNTPROC3_EXPORT], NULL, cb, priv);
}
