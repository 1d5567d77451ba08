/* SPDX-License-Identifier: MIT */
/*
 * NFSv4.1 typed asynchronous wrappers: the I/O path by handle (OPEN,
 * CLOSE, READ, WRITE, COMMIT, GETATTR), each one COMPOUND of SEQUENCE +
 * PUTFH + the operation, as the NFSv3 wrappers are one call each.
 *
 * The callback gets the operation's own result (READ4res * ...), so a
 * caller handles NFSv3 and NFSv4.1 alike; when the server stopped
 * before the operation (PUTFH failed: a stale handle), a stand-in
 * result carries the COMPOUND's status. Each COMPOUND is submitted
 * under its operation's descriptor in nfsx_nfs4_ops, whose statistics
 * then read as NFSv3's do per procedure. DELAY and a lost session are
 * handled by the session (nfs4.h, NC4_RETRY): the callback sees the
 * outcome once, after the retries.
 */
#include "client/nfs4.h"

#include <errno.h>
#include <string.h>

static void op_putfh(struct nfs_argop4 *o, const nfs_fh4 *fh)
{
	memset(o, 0, sizeof(*o));
	o->argop = OP_PUTFH;
	o->u.opputfh.object = *fh;
}

/* PUTFH @fh + @op (argop and arguments filled by the caller). */
static int send2(struct nfsx_ctx *c, const nfs_fh4 *fh, struct nfs_argop4 *ops, nfsx_cb cb,
		 void *priv)
{
	enum nfs_opnum4 op = ops[1].argop;

	op_putfh(&ops[0], fh);
	return nc4_call_as(c, &nfsx_nfs4_ops[op], NC4_RETRY | NC4_LAST, ops, 2, cb, priv);
}

int nfsx4_open(struct nfsx_ctx *c, const struct nfsx4_open_args *a, nfsx_cb cb, void *priv)
{
	struct nfs_argop4 ops[2];
	struct OPEN4args *o = &ops[1].u.opopen;

	if (!c->v4 || (!c->v4->up && !c->v4->recovering))
		return -ENOTCONN;
	memset(&ops[1], 0, sizeof(ops[1]));
	ops[1].argop = OP_OPEN;
	o->share_access = a->share_access | OPEN4_SHARE_ACCESS_WANT_NO_DELEG;
	o->share_deny = a->share_deny;
	/* The session's open-owner lives as long as the context; its
	 * client id is filled when the COMPOUND is sent. */
	o->owner.owner.data = (const uint8_t *)c->v4->open_owner;
	o->owner.owner.len = (uint32_t)strlen(c->v4->open_owner);
	o->openhow.opentype = OPEN4_NOCREATE;
	o->claim.claim = CLAIM_FH;
	return send2(c, &a->fh, ops, cb, priv);
}

int nfsx4_close(struct nfsx_ctx *c, const struct nfsx4_close_args *a, nfsx_cb cb, void *priv)
{
	struct nfs_argop4 ops[2];

	memset(&ops[1], 0, sizeof(ops[1]));
	ops[1].argop = OP_CLOSE;
	ops[1].u.opclose.open_stateid = a->stateid;
	return send2(c, &a->fh, ops, cb, priv);
}

int nfsx4_read(struct nfsx_ctx *c, const struct nfsx4_read_args *a, nfsx_cb cb, void *priv)
{
	struct nfs_argop4 ops[2];

	memset(&ops[1], 0, sizeof(ops[1]));
	ops[1].argop = OP_READ;
	ops[1].u.opread = a->args;
	return send2(c, &a->fh, ops, cb, priv);
}

int nfsx4_write(struct nfsx_ctx *c, const struct nfsx4_write_args *a, nfsx_cb cb, void *priv)
{
	struct nfs_argop4 ops[2];

	memset(&ops[1], 0, sizeof(ops[1]));
	ops[1].argop = OP_WRITE;
	ops[1].u.opwrite = a->args;
	return send2(c, &a->fh, ops, cb, priv);
}

int nfsx4_commit(struct nfsx_ctx *c, const struct nfsx4_commit_args *a, nfsx_cb cb, void *priv)
{
	struct nfs_argop4 ops[2];

	memset(&ops[1], 0, sizeof(ops[1]));
	ops[1].argop = OP_COMMIT;
	ops[1].u.opcommit = a->args;
	return send2(c, &a->fh, ops, cb, priv);
}

int nfsx4_getattr(struct nfsx_ctx *c, const struct nfsx4_getattr_args *a, nfsx_cb cb, void *priv)
{
	struct nfs_argop4 ops[2];

	memset(&ops[1], 0, sizeof(ops[1]));
	ops[1].argop = OP_GETATTR;
	ops[1].u.opgetattr = a->args;
	return send2(c, &a->fh, ops, cb, priv);
}
