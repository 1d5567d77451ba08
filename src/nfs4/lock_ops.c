/* SPDX-License-Identifier: MIT */
/*
 * LOCK, LOCKT, LOCKU, RELEASE_LOCKOWNER (RFC 7530 sections 16.10-16.12,
 * 16.37; RFC 8881 18.10-18.12) on the lock state of state.h.
 *
 * DESIGN
 * - Conflicts between NFS clients are decided by the state table; what
 *   it grants is then held on the file system through the export's
 *   backend (vfs/ops.h lock_*: the POSIX backend's OFD locks), one
 *   holder per lock stateid, so that processes on the server see the
 *   locks and theirs are seen: a local process's conflicting lock makes
 *   LOCK and LOCKT answer DENIED, with clientid 0 and the owner "local
 *   process" (its pid after it when the file system tells it: a POSIX
 *   lock's; knfsd says nothing, an empty owner). This file gives the
 *   state table its hooks (nfs4_fslocks_vfs) on the backend. A backend
 *   without lock operations keeps the locks in nfsxd only.
 * - Running out of descriptors (the backend's budget of holders,
 *   EMFILE, ENFILE) or lock records is RESOURCE in minor version 0
 *   (the seqid not counted: the client sends the same call again) and
 *   DELAY in 4.1, which has no RESOURCE for it; a local lease that an
 *   open for writing would have to break is DELAY.
 * - A reclaim (LOCK's reclaim flag) is taken only in the grace period
 *   after a restart from a client of the previous run (recovery.h);
 *   other LOCKs and LOCKTs then answer GRACE, as knfsd's.
 * - LOCK and LOCKU are seqid-bearing: their results are kept for a
 *   replay by the COMPOUND, as OPEN's (c->seq). A DENIED result carries
 *   the conflicting owner, copied into the request's arena until the
 *   result is encoded.
 * - In minor version 1 the lock-owner's client is the session's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfs4/internal.h"
#include "vfs/ops.h"

/* The hooks' context: the file of a LOCK, LOCKU or LOCKT. */
struct fs_ctx {
	const struct export_obj *o;
	uint32_t minor;
};

/* A lock stateid's holder: the backend's, with the table it came from
 * (the export may be reloaded away while the stateid lives). */
struct nfs4_fslock {
	const struct vfs_ops *ops;
	struct vfs_lockh h;
};

/* The hooks' context for @c's current file, or NULL when its backend
 * has no locks. */
static struct fs_ctx *fs_ctx_of(struct nfs4_compound *c, struct fs_ctx *x)
{
	if (c->cur.kind != NFS4_FH_OBJ || !c->cur.o.vexp->ops->lock_open)
		return NULL;
	x->o = &c->cur.o;
	x->minor = c->minorversion;
	return x;
}

static enum nfsstat4 fs_status(const struct fs_ctx *x, int err)
{
	switch (-err) {
	case EMFILE:
	case ENFILE:
	case ENOLCK:
	case ENOMEM:
		return x && x->minor == 0 ? NFS4ERR_RESOURCE : NFS4ERR_DELAY;
	default:
		return nfs4_errno(-err);
	}
}

/* A local process's lock @l as LOCK4denied tells it. */
static enum nfsstat4 local_denied(const struct vfs_lock *l, struct nfs4_lock_denied *d)
{
	int n;

	if (!d)
		return NFS4ERR_DENIED;
	d->offset = l->start;
	d->length = l->end == VFS_LOCK_END ? NFS4_UINT64_MAX : l->end - l->start + 1;
	d->type = l->type == VFS_LOCK_READ ? READ_LT : WRITE_LT;
	d->clientid = 0;
	n = l->pid > 0 ? snprintf((char *)d->owner, sizeof(d->owner), "local process %d", (int)l->pid) :
	    snprintf((char *)d->owner, sizeof(d->owner), "local process");
	d->owner_len = n > 0 ? (uint32_t)n : 0;
	return NFS4ERR_DENIED;
}

static enum nfsstat4 fsl_open(void *ctx, bool write, struct nfs4_fslock **out)
{
	const struct fs_ctx *x = ctx;
	const struct vfs_ops *ops = x->o->vexp->ops;
	struct nfs4_fslock *h = malloc(sizeof(*h));
	int err;

	if (!h)
		return fs_status(x, -ENOMEM);
	err = ops->lock_open(x->o->vexp, &x->o->obj, write, &x->o->cred, &h->h);
	if (err < 0) {
		free(h);
		return err == -EWOULDBLOCK ? NFS4ERR_DELAY : fs_status(x, err);
	}
	h->ops = ops;
	*out = h;
	return NFS4_OK;
}

static bool fsl_writable(const struct nfs4_fslock *h)
{
	return h->h.write;
}

static struct vfs_lock fs_range(uint32_t type, uint64_t start, uint64_t end)
{
	return (struct vfs_lock){
		.type = type == READ_LT ? VFS_LOCK_READ : type == WRITE_LT ? VFS_LOCK_WRITE :
		VFS_LOCK_UNLOCK,
		.start = start,
		.end = end,
		.pid = -1,
	};
}

static enum nfsstat4 fsl_set(void *ctx, struct nfs4_fslock *h, uint32_t type, uint64_t start,
			     uint64_t end, struct nfs4_lock_denied *d)
{
	struct vfs_lock l = fs_range(type, start, end), held;
	int err = h->ops->lock(&h->h, &l, &held);

	if (err == -EAGAIN)
		return local_denied(&held, d);
	return err < 0 ? fs_status(ctx, err) : NFS4_OK;
}

static enum nfsstat4 fsl_test(void *ctx, const struct nfs4_fslock *h, uint32_t type,
			      uint64_t start, uint64_t end, struct nfs4_lock_denied *d)
{
	const struct fs_ctx *x = ctx;
	const struct vfs_ops *ops = x->o->vexp->ops;
	struct vfs_lockh none = VFS_LOCKH_NONE;
	struct vfs_lock l = fs_range(type, start, end), held;
	int err;

	err = ops->lock_test(x->o->vexp, &x->o->obj, h ? &h->h : &none, &l, &x->o->cred, &held);
	if (err == -EAGAIN)
		return local_denied(&held, d);
	return err < 0 ? fs_status(x, err) : NFS4_OK;
}

static void fsl_drop(struct nfs4_fslock *h)
{
	h->ops->lock_close(&h->h);
	free(h);
}

const struct nfs4_fslocks nfs4_fslocks_vfs = {
	.open = fsl_open,
	.writable = fsl_writable,
	.set = fsl_set,
	.test = fsl_test,
	.drop = fsl_drop,
};

/* @d into LOCK4denied @out, its owner kept in the request's arena. */
static enum nfsstat4 denied_out(struct nfs4_compound *c, const struct nfs4_lock_denied *d,
				struct LOCK4denied *out)
{
	uint8_t *owner = xdr_arena_alloc(&c->req->arena, d->owner_len ? d->owner_len : 1);

	if (!owner)
		return NFS4ERR_RESOURCE;
	memcpy(owner, d->owner, d->owner_len);
	out->offset = d->offset;
	out->length = d->length;
	out->locktype = (enum nfs_lock_type4)d->type;
	out->owner.clientid = d->clientid;
	out->owner.owner.data = owner;
	out->owner.owner.len = d->owner_len;
	return NFS4ERR_DENIED;
}

/* The client of a lock-owner named in the arguments (LOCKT,
 * RELEASE_LOCKOWNER): minor version 0's must be confirmed and live (its
 * lease renewed); 4.1's is the session's. */
static enum nfsstat4 owner_client(struct nfs4_compound *c, clientid4 given, clientid4 *out)
{
	if (c->minorversion > 0) {
		*out = c->clientid;
		return c->sequenced ? NFS4_OK : NFS4ERR_OP_NOT_IN_SESSION;
	}
	*out = given;
	return nfs4_client_renew(given);
}

enum nfsstat4 nfs4_lock(struct nfs4_compound *c, const struct nfs_argop4 *a,
			struct nfs_resop4 *r)
{
	const struct LOCK4args *la = &a->u.oplock;
	struct LOCK4res *res = &r->u.oplock;
	struct nfs4_lock_args args = {
		.type = la->locktype, .offset = la->offset, .length = la->length,
		.new_owner = la->locker.new_lock_owner,
	};
	struct nfs4_lock_denied *d;
	struct nfs4_file_id f;
	struct fs_ctx x;
	enum nfsstat4 st;

	st = nfs4_cur_file(c, &f);
	if (st != NFS4_OK)
		return res->status = st;
	args.fs = fs_ctx_of(c, &x);
	/* reclaims only in the grace period, and nothing else then;
	 * answered once the seqid is checked (args.refuse), as knfsd */
	if (la->reclaim) {
		clientid4 cid = c->minorversion ? c->clientid :
				la->locker.new_lock_owner ?
				la->locker.u.open_owner.lock_owner.clientid : 0;

		args.refuse = cid ? nfs4_may_reclaim(cid) :
			      nfs4_in_grace() ? NFS4_OK : NFS4ERR_NO_GRACE;
		if (args.refuse == NFS4ERR_STALE_CLIENTID)
			return res->status = args.refuse;
	} else if (nfs4_in_grace()) {
		args.refuse = NFS4ERR_GRACE;
	}
	if (args.new_owner) {
		const struct open_to_lock_owner4 *o = &la->locker.u.open_owner;

		args.sid = nfs4_sid(c, &o->open_stateid);
		args.seqid = o->open_seqid;
		args.lock_seqid = o->lock_seqid;
		args.clientid = o->lock_owner.clientid;
		args.owner = o->lock_owner.owner.data;
		args.owner_len = o->lock_owner.owner.len;
		if (c->minorversion == 0 && (st = nfs4_client_renew(args.clientid)) != NFS4_OK)
			return res->status = st;
	} else {
		args.sid = nfs4_sid(c, &la->locker.u.lock_owner.lock_stateid);
		args.seqid = la->locker.u.lock_owner.lock_seqid;
	}
	d = xdr_arena_alloc(&c->req->arena, sizeof(*d));
	if (!d)
		return res->status = NFS4ERR_RESOURCE;
	st = nfs4_state_lock(nfs4_states, &f, &args, c->minorversion == 0, &c->seq,
			     &res->u.resok4.lock_stateid, d);
	if (st == NFS4_OK && !c->seq.replay)
		nfs4_set_sid(c, &res->u.resok4.lock_stateid);
	if (st == NFS4_OK && c->seq.replay)
		return res->status = nfs4_replay(c);
	if (st == NFS4ERR_DENIED)
		st = denied_out(c, d, &res->u.denied);
	return res->status = st;
}

enum nfsstat4 nfs4_lockt(struct nfs4_compound *c, const struct nfs_argop4 *a,
			 struct nfs_resop4 *r)
{
	const struct LOCKT4args *la = &a->u.oplockt;
	struct LOCKT4res *res = &r->u.oplockt;
	struct nfs4_lock_denied *d;
	struct nfs4_file_id f;
	struct fs_ctx x;
	enum nfsstat4 st;
	clientid4 cid;

	st = nfs4_cur_file(c, &f);
	if (st == NFS4_OK)
		st = owner_client(c, la->owner.clientid, &cid);
	if (st == NFS4_OK && nfs4_in_grace())
		st = NFS4ERR_GRACE;
	if (st != NFS4_OK)
		return res->status = st;
	d = xdr_arena_alloc(&c->req->arena, sizeof(*d));
	if (!d)
		return res->status = NFS4ERR_RESOURCE;
	st = nfs4_state_lockt(nfs4_states, &f, cid, la->owner.owner.data, la->owner.owner.len,
			      la->locktype, la->offset, la->length, d, fs_ctx_of(c, &x));
	if (st == NFS4ERR_DENIED)
		st = denied_out(c, d, &res->u.denied);
	return res->status = st;
}

enum nfsstat4 nfs4_locku(struct nfs4_compound *c, const struct nfs_argop4 *a,
			 struct nfs_resop4 *r)
{
	const struct LOCKU4args *la = &a->u.oplocku;
	struct LOCKU4res *res = &r->u.oplocku;
	struct nfs4_file_id f;
	struct fs_ctx x;
	enum nfsstat4 st;

	st = nfs4_cur_file(c, &f);
	if (st == NFS4_OK && la->locktype != READ_LT && la->locktype != WRITE_LT &&
	    la->locktype != READW_LT && la->locktype != WRITEW_LT)
		st = NFS4ERR_INVAL;
	if (st != NFS4_OK)
		return res->status = st;
	st = nfs4_state_locku(nfs4_states, &f, nfs4_sid(c, &la->lock_stateid), la->seqid,
			      la->offset, la->length, c->minorversion == 0, &c->seq,
			      &res->u.lock_stateid, fs_ctx_of(c, &x));
	if (st == NFS4_OK && !c->seq.replay)
		nfs4_set_sid(c, &res->u.lock_stateid);
	if (st == NFS4_OK && c->seq.replay)
		return res->status = nfs4_replay(c);
	return res->status = st;
}

enum nfsstat4 nfs4_release_lockowner(struct nfs4_compound *c, const struct nfs_argop4 *a,
				     struct nfs_resop4 *r)
{
	const lock_owner4 *lo = &a->u.oprelease_lockowner.lock_owner;
	enum nfsstat4 st;

	if (c->minorversion > 0)
		return r->u.oprelease_lockowner.status = NFS4ERR_NOTSUPP;
	st = nfs4_client_renew(lo->clientid);
	if (st == NFS4_OK)
		st = nfs4_state_release_lockowner(nfs4_states, lo->clientid, lo->owner.data,
						  lo->owner.len);
	return r->u.oprelease_lockowner.status = st;
}
