/* SPDX-License-Identifier: MIT */
/*
 * NFSv4.1 typed asynchronous wrappers: the I/O path by handle (OPEN,
 * CLOSE, READ, WRITE, COMMIT, GETATTR), attributes and open modes
 * (SETATTR, ACCESS, OPEN_DOWNGRADE), byte-range locks (LOCK, LOCKT,
 * LOCKU) and names (RENAME, LINK, READLINK, LOOKUPP), each one COMPOUND
 * of SEQUENCE + PUTFH + the operation (RENAME and LINK: PUTFH, SAVEFH,
 * PUTFH, the operation; LOOKUPP: GETFH after it), as the NFSv3 wrappers
 * are one call each.
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
#include <stdio.h>
#include <string.h>

int nc4_send_op(struct nfsx_ctx *c, const nfs_fh4 *fh, enum nfs_opnum4 op, const void *args,
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
	if (size)
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

	return nc4_send_op(c, &a->fh, OP_CLOSE, &x, sizeof(x), cb, priv);
}

int nfsx4_read(struct nfsx_ctx *c, const struct nfsx4_read_args *a, nfsx_cb cb, void *priv)
{
	return nc4_send_op(c, &a->fh, OP_READ, &a->args, sizeof(a->args), cb, priv);
}

int nfsx4_write(struct nfsx_ctx *c, const struct nfsx4_write_args *a, nfsx_cb cb, void *priv)
{
	return nc4_send_op(c, &a->fh, OP_WRITE, &a->args, sizeof(a->args), cb, priv);
}

int nfsx4_commit(struct nfsx_ctx *c, const struct nfsx4_commit_args *a, nfsx_cb cb, void *priv)
{
	return nc4_send_op(c, &a->fh, OP_COMMIT, &a->args, sizeof(a->args), cb, priv);
}

int nfsx4_getattr(struct nfsx_ctx *c, const struct nfsx4_getattr_args *a, nfsx_cb cb, void *priv)
{
	return nc4_send_op(c, &a->fh, OP_GETATTR, &a->args, sizeof(a->args), cb, priv);
}

/* ---- attributes, access, open modes ------------------------------------ */

int nfsx4_setattr(struct nfsx_ctx *c, const struct nfsx4_setattr_args *a, nfsx_cb cb,
		  void *priv)
{
	return nc4_send_op(c, &a->fh, OP_SETATTR, &a->args, sizeof(a->args), cb, priv);
}

int nfsx4_access(struct nfsx_ctx *c, const struct nfsx4_access_args *a, nfsx_cb cb, void *priv)
{
	return nc4_send_op(c, &a->fh, OP_ACCESS, &a->args, sizeof(a->args), cb, priv);
}

int nfsx4_open_downgrade(struct nfsx_ctx *c, const struct nfsx4_open_downgrade_args *a,
			 nfsx_cb cb, void *priv)
{
	return nc4_send_op(c, &a->fh, OP_OPEN_DOWNGRADE, &a->args, sizeof(a->args), cb, priv);
}

/* ---- byte-range locks --------------------------------------------------- */

/*
 * The context's lock-owner, made on first use beside its open-owner and
 * kept as long as the session struct (the context): one owner for all
 * locks of the context, so that the server sees them as one process's.
 * Its client id is the session's of now (a reclaim after a new client
 * id sends the same owner string, session4_recover.c), and an NFSv4.1
 * server takes the client id of the session in any case.
 */
static lock_owner4 lock_owner(struct nc4_session *s)
{
	lock_owner4 o;

	if (!s->lock_owner[0])
		snprintf(s->lock_owner, sizeof(s->lock_owner), "%s-lock", s->open_owner);
	o.clientid = s->clientid;
	o.owner.data = (const uint8_t *)s->lock_owner;
	o.owner.len = (uint32_t)strlen(s->lock_owner);
	return o;
}

int nfsx4_lock(struct nfsx_ctx *c, const struct nfsx4_lock_args *a, nfsx_cb cb, void *priv)
{
	struct LOCK4args x;

	if (!c->v4 || !c->v4->up)
		return -ENOTCONN;
	memset(&x, 0, sizeof(x));
	x.locktype = a->locktype;
	x.offset = a->offset;
	x.length = a->length;
	x.locker.new_lock_owner = a->new_owner;
	/* seqids are 0: NFSv4.1 servers ignore them (RFC 8881 8.13) */
	if (a->new_owner) {
		x.locker.u.open_owner.open_stateid = a->stateid;
		x.locker.u.open_owner.lock_owner = lock_owner(c->v4);
	} else {
		x.locker.u.lock_owner.lock_stateid = a->stateid;
	}
	return nc4_send_op(c, &a->fh, OP_LOCK, &x, sizeof(x), cb, priv);
}

int nfsx4_lockt(struct nfsx_ctx *c, const struct nfsx4_lockt_args *a, nfsx_cb cb, void *priv)
{
	struct LOCKT4args x;

	if (!c->v4 || !c->v4->up)
		return -ENOTCONN;
	memset(&x, 0, sizeof(x));
	x.locktype = a->locktype;
	x.offset = a->offset;
	x.length = a->length;
	x.owner = lock_owner(c->v4);
	return nc4_send_op(c, &a->fh, OP_LOCKT, &x, sizeof(x), cb, priv);
}

int nfsx4_locku(struct nfsx_ctx *c, const struct nfsx4_locku_args *a, nfsx_cb cb, void *priv)
{
	return nc4_send_op(c, &a->fh, OP_LOCKU, &a->args, sizeof(a->args), cb, priv);
}

/* ---- names: RENAME, LINK, READLINK, LOOKUPP ----------------------------- */

int nc4_send_two_fh(struct nfsx_ctx *c, const nfs_fh4 *from, const nfs_fh4 *to,
		       enum nfs_opnum4 op, const void *args, size_t size, nfsx_cb cb, void *priv)
{
	struct nfs_argop4 *ops;
	struct nc4_req *q;
	int r;

	r = nc4_call_begin(c, 4, &q, &ops);
	if (r < 0)
		return r;
	nc4_op_putfh(&ops[0], from);
	memset(&ops[1], 0, sizeof(ops[1]));
	ops[1].argop = OP_SAVEFH;
	nc4_op_putfh(&ops[2], to);
	memset(&ops[3], 0, sizeof(ops[3]));
	ops[3].argop = op;
	memcpy(&ops[3].u, args, size);
	return nc4_call_end(c, q, &nfsx_nfs4_ops[op], NC4_RETRY | NC4_LAST, cb, priv);
}

int nfsx4_rename(struct nfsx_ctx *c, const struct nfsx4_rename_args *a, nfsx_cb cb, void *priv)
{
	struct RENAME4args x = { a->oldname, a->newname };

	if (x.oldname.len > 255 || x.newname.len > 255)
		return -EINVAL;
	return nc4_send_two_fh(c, &a->src_dir, &a->dst_dir, OP_RENAME, &x, sizeof(x), cb, priv);
}

int nfsx4_link(struct nfsx_ctx *c, const struct nfsx4_link_args *a, nfsx_cb cb, void *priv)
{
	struct LINK4args x = { a->newname };

	if (x.newname.len > 255)
		return -EINVAL;
	return nc4_send_two_fh(c, &a->fh, &a->dir, OP_LINK, &x, sizeof(x), cb, priv);
}

int nfsx4_readlink(struct nfsx_ctx *c, const struct nfsx4_readlink_args *a, nfsx_cb cb,
		   void *priv)
{
	return nc4_send_op(c, &a->fh, OP_READLINK, NULL, 0, cb, priv);
}

/* LOOKUPP alone changes only the current handle: GETFH after it gives
 * the caller the parent's handle, counted under LOOKUPP. */
int nfsx4_lookupp(struct nfsx_ctx *c, const struct nfsx4_lookupp_args *a, nfsx_cb cb,
		  void *priv)
{
	struct nfs_argop4 *ops;
	struct nc4_req *q;
	int r;

	r = nc4_call_begin(c, 3, &q, &ops);
	if (r < 0)
		return r;
	nc4_op_putfh(&ops[0], &a->fh);
	memset(&ops[1], 0, 2 * sizeof(ops[1]));
	ops[1].argop = OP_LOOKUPP;
	ops[2].argop = OP_GETFH;
	return nc4_call_end(c, q, &nfsx_nfs4_ops[OP_LOOKUPP], NC4_RETRY | NC4_LAST, cb, priv);
}
