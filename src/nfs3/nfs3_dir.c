/* SPDX-License-Identifier: MIT */
/*
 * READDIR and READDIRPLUS. The entries come from vfs_readdir (vfs/dir.h:
 * the listing, its cache and its cookies) and are encoded one at a time
 * straight into the reply, rather than built as the generated linked
 * list: the reply is bounded by the client's count, and a directory of
 * 1,000,000 entries must cost time linear in its size.
 *
 * Cookies are the file system's own directory offsets, valid while the
 * directory changes, so the cookie verifier is always zero and is not
 * checked (as Linux's nfsd does). tests/integration/test_nfs3_readdir.c
 * checks tmpfs and ext4.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "nfs3/nfs3.h"
#include "nfs3/procs.h"
#include "vfs/dir.h"

#define POST_OP_MAX 88u      /* post_op_attr with attributes */

struct dir_args {
	struct nfs_fh3 *dir;
	uint64_t cookie;
	uint32_t dircount;   /* entry bytes (READDIRPLUS), or = maxcount */
	uint32_t maxcount;   /* the whole result */
	bool plus;
};

static uint32_t entry_bytes(uint32_t namelen)
{
	return 4 + 8 + 4 + xdr_pad(namelen) + 8; /* more, fileid, name, cookie */
}

/* Encode the failure result: status and the directory's attributes. */
static enum rpc_accept_stat dir_fail(struct rpc_req *req, enum nfsstat3 st,
				     const struct export_obj *o)
{
	struct post_op_attr pa = { .attributes_follow = false };

	if (o && vfs_obj_ok(&o->obj))
		nfs3_post_op(o, &o->obj, &pa);
	return xdr_enc_u32(&req->enc, st) && xdr_enc_post_op_attr(&req->enc, &pa)
	       ? RPC_SUCCESS : RPC_SYSTEM_ERR;
}

/* The reply being filled: the result's size as the client counts it. */
struct dir_reply {
	struct xdr_enc *e;
	const struct export_obj *o;
	const struct dir_args *a;
	uint32_t used, dirused, nent;
};

/* A mount point the client may cross gets neither the covered directory's
 * attributes nor the far side's; LOOKUP decides (as nfsd's READDIRPLUS). */
static bool with_attrs(const struct dir_reply *r, const struct vfs_dirent *d)
{
	return d->st && !export_crossing_point(r->o, d->st);
}

/* The bytes of the entry in the result: entryplus3 with its attributes
 * and handle counted exactly (the handle's length varies by file system). */
static uint32_t plus_bytes(const struct dir_reply *r, const struct vfs_dirent *d)
{
	if (!r->a->plus)
		return 0;
	return with_attrs(r, d) ? 4 + 84 + 4 + 4 + xdr_pad(d->fhlen) : 4 + 4;
}

static bool dir_room(void *arg, const struct vfs_dirent *d)
{
	struct dir_reply *r = arg;
	uint32_t eb = entry_bytes(d->namelen);

	return r->used + eb + plus_bytes(r, d) <= r->a->maxcount &&
	       (!r->a->plus || r->dirused + eb <= r->a->dircount);
}

static void dir_put(void *arg, const struct vfs_dirent *d)
{
	struct dir_reply *r = arg;
	struct xdr_enc *e = r->e;

	xdr_enc_bool(e, true);
	xdr_enc_u64(e, d->ino);
	xdr_enc_bytes(e, d->name, d->namelen, NAME_MAX);
	xdr_enc_u64(e, d->cookie);
	if (r->a->plus) {
		struct post_op_attr ea = { .attributes_follow = false };
		struct post_op_fh3 eh = { .handle_follows = false };

		if (with_attrs(r, d)) {
			nfs3_fattr(r->o, d->st, &ea.u.attributes);
			ea.attributes_follow = true;
			eh.handle_follows = true;
			eh.u.handle.data.data = (uint8_t *)d->fh;
			eh.u.handle.data.len = d->fhlen;
		}
		xdr_enc_post_op_attr(e, &ea);
		xdr_enc_post_op_fh3(e, &eh);
	}
	r->used += entry_bytes(d->namelen) + plus_bytes(r, d);
	r->dirused += entry_bytes(d->namelen);
	r->nent++;
}

static enum rpc_accept_stat readdir_common(struct rpc_req *req,
					   struct dir_args *a)
{
	static const uint8_t zero_verf[NFS3_COOKIEVERFSIZE];
	struct xdr_enc *e = &req->enc;
	struct dir_reply r = { .e = e, .a = a };
	struct vfs_dir_sink sink = { .plus = a->plus, .room = dir_room, .put = dir_put,
				     .arg = &r };
	struct post_op_attr pa;
	struct export_obj o;
	enum nfsstat3 st;
	bool eof = false;
	int err;

	/* On an event loop only for a memory-backed export, and only for a
	 * listing the cache holds (vfs_readdir says -EWOULDBLOCK before any
	 * entry otherwise): the context switch to a worker and back cost
	 * more than such a whole call. */
	st = nfs3_resolve_mem(req, a->dir, &o);
	if (o.would_block)
		return RPC_WOULD_BLOCK;
	if (st != NFS3_OK)
		return dir_fail(req, st, NULL);
	if (!o.have_st) {
		enum rpc_accept_stat ret = dir_fail(req, NFS3ERR_IO, &o);

		export_release(&o);
		return ret;
	}
	if (!S_ISDIR(o.st.st_mode)) {
		enum rpc_accept_stat ret = dir_fail(req, NFS3ERR_NOTDIR, &o);

		export_release(&o);
		return ret;
	}
	if (a->maxcount > NFS3_DIRMAX)
		a->maxcount = NFS3_DIRMAX;
	if (a->dircount > a->maxcount)
		a->dircount = a->maxcount;
	r.o = &o;
	/* A getdents64 record (19 bytes, the name, a NUL, 8-aligned) is at
	 * most 3 bytes longer than the entry's part of dircount, and an
	 * entry with attributes and handle takes at least 4 times its
	 * directory part of maxcount: that many records (+1 KiB) fill the
	 * reply; if they do not, vfs_readdir reads on. */
	sink.want = (a->plus && a->maxcount / 4 < a->dircount ? a->maxcount / 4
							    : a->dircount) + 1024;
	sink.nonblock = req->on_loop;

	/* The directory's attributes, taken by nfs3_resolve in this call:
	 * sent, and checked against, so that the cache is never used for a
	 * directory changed since it was read. */
	pa.attributes_follow = o.have_st;
	if (pa.attributes_follow)
		nfs3_fattr(&o, &o.st, &pa.u.attributes);
	xdr_enc_u32(e, NFS3_OK);
	xdr_enc_post_op_attr(e, &pa);
	xdr_enc_opaque_fixed(e, zero_verf, sizeof(zero_verf));
	/* the result's size as the client counts it, with the list's end */
	r.used = 4 + POST_OP_MAX + NFS3_COOKIEVERFSIZE + 8;
	/* A count that cannot hold even an empty list: TOOSMALL, also at
	 * the end of the directory, rather than a result beyond count. */
	if (r.used > a->maxcount) {
		st = NFS3ERR_TOOSMALL;
	} else {
		err = o.vexp->ops->readdir(export_fh_key, o.vexp, &o.obj, &o.st, a->cookie,
					   &sink, &eof);
		if (err == -EWOULDBLOCK) {
			export_release(&o);
			return RPC_WOULD_BLOCK;
		}
		if (err < 0)
			st = nfs3_errno(-err);
		else if (r.nent == 0 && !eof)
			st = NFS3ERR_TOOSMALL;
	}
	if (st != NFS3_OK) {
		/* Start again: the failure result replaces what was encoded. */
		e->p = e->start + rpc_req_hdr_len(req);
		enum rpc_accept_stat ret = dir_fail(req, st, &o);

		export_release(&o);
		return ret;
	}
	export_release(&o);
	return xdr_enc_bool(e, false) && xdr_enc_bool(e, eof) ? RPC_SUCCESS
							       : RPC_SYSTEM_ERR;
}

enum rpc_accept_stat nfs3_readdir(struct rpc_req *req)
{
	struct READDIR3args ra;
	struct dir_args a;

	if (!xdr_dec_READDIR3args(&req->args, &ra) || xdr_dec_left(&req->args))
		return RPC_GARBAGE_ARGS;
	a.dir = &ra.dir;
	a.cookie = ra.cookie;
	a.dircount = a.maxcount = ra.count;
	a.plus = false;
	return readdir_common(req, &a);
}

enum rpc_accept_stat nfs3_readdirplus(struct rpc_req *req)
{
	struct READDIRPLUS3args ra;
	struct dir_args a;

	if (!xdr_dec_READDIRPLUS3args(&req->args, &ra) || xdr_dec_left(&req->args))
		return RPC_GARBAGE_ARGS;
	a.dir = &ra.dir;
	a.cookie = ra.cookie;
	a.dircount = ra.dircount;
	a.maxcount = ra.maxcount;
	a.plus = true;
	return readdir_common(req, &a);
}
