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

#include <string.h>

/* PUTFH @fh + @op with @args (@size bytes, the operation's own
 * arguments struct), under @op's descriptor. */
static int send_op(struct nfsx_ctx *c, const nfs_fh4 *fh, enum nfs_opnum4 op, const void *args,
		   size_t size, nfsx_cb cb, void *priv)
{
	struct nfs_argop4 *ops;
	struct nc4_req *q;
	int r;

	r = nc4_call_begin(c, 2, &q, &ops);
	if (r < 0)
		return r;
	nc4_op_putfh(&ops[0], fh);
	memset(&ops[1], 0, sizeof(ops[1]));
	ops[1].argop = op;
	memcpy(&ops[1].u, args, size);
	return nc4_call_end(c, q, &nfsx_nfs4_ops[op], NC4_RETRY | NC4_LAST, cb, priv);
}

int nfsx4_open(struct nfsx_ctx *c, const struct nfsx4_open_args *a, nfsx_cb cb, void *priv)
{
	struct nfs_argop4 *ops;
	struct nc4_req *q;
	int r;

	r = nc4_call_begin(c, 2, &q, &ops);
	if (r < 0)
		return r;
	nc4_op_putfh(&ops[0], &a->fh);
	nc4_op_open_fh(&ops[1], c->v4, a->share_access, a->share_deny);
	return nc4_call_end(c, q, &nfsx_nfs4_ops[OP_OPEN], NC4_RETRY | NC4_LAST, cb, priv);
}

int nfsx4_close(struct nfsx_ctx *c, const struct nfsx4_close_args *a, nfsx_cb cb, void *priv)
{
	struct CLOSE4args x = { .open_stateid = a->stateid };

	return send_op(c, &a->fh, OP_CLOSE, &x, sizeof(x), cb, priv);
}

int nfsx4_read(struct nfsx_ctx *c, const struct nfsx4_read_args *a, nfsx_cb cb, void *priv)
{
	return send_op(c, &a->fh, OP_READ, &a->args, sizeof(a->args), cb, priv);
}

int nfsx4_write(struct nfsx_ctx *c, const struct nfsx4_write_args *a, nfsx_cb cb, void *priv)
{
	return send_op(c, &a->fh, OP_WRITE, &a->args, sizeof(a->args), cb, priv);
}

int nfsx4_commit(struct nfsx_ctx *c, const struct nfsx4_commit_args *a, nfsx_cb cb, void *priv)
{
	return send_op(c, &a->fh, OP_COMMIT, &a->args, sizeof(a->args), cb, priv);
}

int nfsx4_getattr(struct nfsx_ctx *c, const struct nfsx4_getattr_args *a, nfsx_cb cb, void *priv)
{
	return send_op(c, &a->fh, OP_GETATTR, &a->args, sizeof(a->args), cb, priv);
}
