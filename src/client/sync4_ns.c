/* SPDX-License-Identifier: MIT */
/*
 * Synchronous SETATTR, RENAME, LINK and READLINK over NFSv4.1 (see
 * sync_ns.c): the COMPOUNDs of the typed wrappers of async4.c, waited
 * for by nc4_sync (which makes the session first). SETATTR goes with the
 * anonymous stateid: no open of ours covers the change, and a size
 * change then conflicts only with other clients' share reservations.
 */
#include "client/sync4.h"

#include <errno.h>
#include <string.h>

#include "client/nfs4.h"
#include "client/sync.h"

static void op_putfh(struct nfs_argop4 *o, const struct nfsx_fh *fh)
{
	nfs_fh4 f = { .data = fh->data, .len = fh->len };

	nc4_op_putfh(o, &f);
}

static void op_simple(struct nfs_argop4 *o, enum nfs_opnum4 op)
{
	memset(o, 0, sizeof(*o));
	o->argop = op;
}

static component4 comp(const char *name)
{
	component4 c = { (const uint8_t *)name, (uint32_t)strlen(name) };

	return c;
}

static int status_only(const struct nfsx4_res *r, void *out)
{
	(void)out;
	return (int)r->status;
}

int nc4_setattr(struct nfsx_ctx *c, const struct nfsx_fh *fh, const struct nfsx_sattr *s)
{
	struct nfs_argop4 ops[2];
	struct nfsx4_sattr_buf b;
	int r;

	op_putfh(&ops[0], fh);
	op_simple(&ops[1], OP_SETATTR);
	r = nfsx4_sattr_encode(s, &b, &ops[1].u.opsetattr.obj_attributes);
	if (r < 0)
		return r;
	return nc4_sync(c, ops, 2, status_only, NULL);
}

/* PUTFH @from, SAVEFH, PUTFH @to, @op4 (filled by the caller). */
static void two_fh(struct nfs_argop4 ops[4], const struct nfsx_fh *from, const struct nfsx_fh *to,
		   enum nfs_opnum4 op)
{
	op_putfh(&ops[0], from);
	op_simple(&ops[1], OP_SAVEFH);
	op_putfh(&ops[2], to);
	op_simple(&ops[3], op);
}

int nc4_rename(struct nfsx_ctx *c, const struct nfsx_fh *from_dir, const char *from_name,
	       const struct nfsx_fh *to_dir, const char *to_name)
{
	struct nfs_argop4 ops[4];

	if (strlen(from_name) > 255 || strlen(to_name) > 255)
		return NFS4ERR_NAMETOOLONG;
	two_fh(ops, from_dir, to_dir, OP_RENAME);
	ops[3].u.oprename.oldname = comp(from_name);
	ops[3].u.oprename.newname = comp(to_name);
	return nc4_sync(c, ops, 4, status_only, NULL);
}

int nc4_link(struct nfsx_ctx *c, const struct nfsx_fh *fh, const struct nfsx_fh *dir,
	     const char *name)
{
	struct nfs_argop4 ops[4];

	if (strlen(name) > 255)
		return NFS4ERR_NAMETOOLONG;
	two_fh(ops, fh, dir, OP_LINK);
	ops[3].u.oplink.newname = comp(name);
	return nc4_sync(c, ops, 4, status_only, NULL);
}

struct link_out {
	char *buf;
	size_t len;
};

static int x_readlink(const struct nfsx4_res *r, void *out)
{
	struct link_out *o = out;

	if (r->status != NFS4_OK)
		return (int)r->status;
	if (r->nops != 3)
		return -EPROTO;
	return nc_link_copy(&r->ops[2].u.opreadlink.u.resok4.link, o->buf, o->len);
}

int nc4_readlink(struct nfsx_ctx *c, const struct nfsx_fh *fh, char *buf, size_t len)
{
	struct nfs_argop4 ops[2];
	struct link_out o = { buf, len };

	op_putfh(&ops[0], fh);
	op_simple(&ops[1], OP_READLINK);
	return nc4_sync(c, ops, 2, x_readlink, &o);
}
