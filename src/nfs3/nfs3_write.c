/* SPDX-License-Identifier: MIT */
/*
 * NFSv3 procedures that change a file: WRITE, COMMIT, SETATTR, CREATE.
 *
 * DESIGN
 * - As everywhere in nfs3/, the object comes from nfs3_resolve and the
 *   worker thread already acts as the (squashed) caller, so the
 *   backend's permission checks decide; data goes through the object
 *   opened for I/O (export_open_io), attributes through the backend's
 *   setattr (vfs/ops.h).
 * - Owner override, as Linux's nfsd (NFSD_MAY_OWNER_OVERRIDE): the owner
 *   of a file may write and truncate it even when its mode forbids it. A
 *   client that creates a file 0444 (tar, cp -p) then writes it through
 *   the descriptor its open(2) returned; the server must let it.
 * - Every change is refused on a read-only export (NFS3ERR_ROFS) before
 *   the file system is touched; results carry wcc_data taken around the
 *   change, on success and on failure.
 * - WRITE and COMMIT share the per-boot verifier nfs3->write_verf: a
 *   restart changes it, so clients resend what they wrote UNSTABLE and
 *   had not committed.
 * - A delegation an NFSv4 client holds on the file is recalled before
 *   WRITE, SETATTR and CREATE's truncation of an existing file change it
 *   (nfs3_lease_break, as Linux's break_lease and try_break_deleg in
 *   nfsd_open and notify_change): the call changes nothing and answers
 *   NFS3ERR_JUKEBOX, after the checks that answer other errors.
 *   COMMIT changes no data and does not ask.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nfs3/nfs3.h"
#include "nfs3/procs.h"
#include "nfs3/write_head.h"
#include "util/log.h"


/* ISDIR for a directory, INVAL for anything else that is not a regular file. */
static enum nfsstat3 not_regular(const struct stat *st)
{
	return S_ISDIR(st->st_mode) ? NFS3ERR_ISDIR : NFS3ERR_INVAL;
}

/*
 * What WRITE and COMMIT check first, with the pre-op attributes taken:
 * a writable export, then a regular file.
 */
static enum nfsstat3 data_change_begin(const struct export_obj *o, struct pre_op_attr *pre)
{
	enum nfsstat3 st;

	nfs3_pre_op(o, pre);
	st = nfs3_writable(o);
	if (st != NFS3_OK)
		return st;
	return S_ISREG(o->st.st_mode) ? NFS3_OK : not_regular(&o->st);
}

/* ---- WRITE --------------------------------------------------------------- */

/*
 * WRITE. The data is a view into the request record (no copy). count
 * larger than the opaque data is GARBAGE_ARGS, as Linux's nfsd answers
 * (its decoder refuses count != length); a count smaller than the data
 * writes count bytes, which is what RFC 1813 says count means. Counts
 * above NFS3_WTMAX are cut to it and the reply says how much was written,
 * as Linux does. UNSTABLE writes are not synced; DATA_SYNC ends with
 * fdatasync(2), FILE_SYNC with fsync(2), and the reply says so.
 */
/*
 * The end of a WRITE whose data is written: @done bytes, @err the first
 * error. A short write that wrote something is a short count, as
 * pwrite's. Encodes the reply; @o stays held.
 */
static enum rpc_accept_stat write_reply(struct rpc_req *req, const struct export_obj *o,
					const struct vfs_obj *io, const struct pre_op_attr *pre,
					enum stable_how stable, uint32_t done, int err)
{
	struct WRITE3res r = { 0 };
	int e;

	if (err && done == 0) {
		r.status = nfs3_errno(err);
		goto fail;
	}
	r.u.resok.committed = UNSTABLE;
	if (stable == DATA_SYNC || stable == FILE_SYNC) {
		e = o->vexp->ops->commit(o->vexp, io, stable == DATA_SYNC);
		if (e < 0) {
			r.status = nfs3_errno(-e);
			goto fail;
		}
		r.u.resok.committed = stable;
	}
	r.u.resok.count = done;
	memcpy(r.u.resok.verf.val, nfs3->write_verf, sizeof(r.u.resok.verf.val));
	nfs3_wcc(o, io, pre, &r.u.resok.file_wcc);
	return REPLY(xdr_enc_WRITE3res, &r);
fail:
	nfs3_wcc(o, io, pre, &r.u.resfail.file_wcc);
	return REPLY(xdr_enc_WRITE3res, &r);
}

enum rpc_accept_stat nfs3_write(struct rpc_req *req)
{
	struct WRITE3args a;
	struct WRITE3res r = { 0 };
	struct pre_op_attr pre = { 0 };
	struct export_obj o;
	enum rpc_accept_stat st;
	struct vfs_obj io = VFS_OBJ_NONE;
	const uint8_t *p;
	uint32_t count, done = 0;
	int e, err = 0;

	if (!ARGS_OK(xdr_dec_WRITE3args, &a) || a.count > a.data.len)
		return RPC_GARBAGE_ARGS;
	/* On a loop only to a memory-backed file (buffered writes have no
	 * dependable RWF_NOWAIT: tmpfs and ext4 refuse it). */
	r.status = nfs3_resolve_mem(req, &a.file, &o);
	if (o.would_block)
		return RPC_WOULD_BLOCK;
	if (r.status != NFS3_OK)
		goto out;
	r.status = data_change_begin(&o, &pre);
	if (r.status != NFS3_OK)
		goto fail;
	count = a.count < NFS3_WTMAX ? a.count : NFS3_WTMAX;
	if (a.offset > (uint64_t)INT64_MAX ||
	    a.offset + count > (uint64_t)INT64_MAX) {
		r.status = NFS3ERR_FBIG;
		goto fail;
	}
	e = export_open_io(&o, O_WRONLY, &io);
	if (e < 0) {
		r.status = nfs3_errno(-e);
		goto fail;
	}
	/* After the permission check (export_open_io), as nfsd breaks the
	 * lease when it opens the file for the write. */
	r.status = nfs3_lease_break(&o.st, VFS_BREAK_WRITE);
	if (r.status != NFS3_OK)
		goto fail;
	p = a.data.data;
	while (done < count) {
		ssize_t n = o.vexp->ops->write(o.vexp, &io, p + done, count - done,
					       a.offset + done);

		if (n == -EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? (int)-n : ENOSPC;
			break;
		}
		done += (uint32_t)n;
	}
	st = write_reply(req, &o, &io, &pre, a.stable, done, err);
	export_release(&o);
	return st;
fail:
	nfs3_wcc(&o, vfs_obj_ok(&io) ? &io : &o.obj, &pre, &r.u.resfail.file_wcc);
out:
	export_release(&o);
	return REPLY(xdr_enc_WRITE3res, &r);
}

/*
 * WRITE with its data taken from the socket (struct rpc_bulk): begin takes
 * the call only when the ordinary handler would succeed on the event loop
 * (a memory-backed export, writable, a regular file, count equal to the
 * data, which ends the record) and leaves every other case, errors
 * included, to it. The data that came with the header is written here;
 * the loop splices the rest into the same descriptor, held with the
 * object until end.
 */
struct write_bulk {
	struct export_obj o;
	struct vfs_obj io;
	struct pre_op_attr pre;
	enum stable_how stable;
	struct vfs_change changes; /* the file marked changing (nfs3.h) */
};

/* Before the loop writes spliced data: as the caller, as pwrite would
 * (the kernel strips set-id bits for a writer without CAP_FSETID). */
static int write_bulk_enter(struct rpc_bulk *b)
{
	struct write_bulk *w = b->priv;

	return vfs_become(&w->o.cred);
}

bool nfs3_write_bulk_begin(struct rpc_req *req, size_t rest, struct rpc_bulk *b)
{
	struct xdr_dec *d = &req->args;
	struct nfs3_write_head h;
	struct write_bulk *w;
	uint64_t off;
	uint32_t count, len, avail;
	int fd;

	if (!nfs3_write_head_dec(d, &h))
		return false;
	off = h.offset;
	count = h.count;
	len = h.len;
	avail = (uint32_t)xdr_dec_left(d);
	if (len != count || count > NFS3_WTMAX || avail > len ||
	    (uint64_t)avail + rest != xdr_pad(len) || off > (uint64_t)INT64_MAX ||
	    off + count > (uint64_t)INT64_MAX)
		return false;
	w = xdr_arena_alloc(&req->arena, sizeof(*w));
	if (!w)
		return false;
	if (nfs3_resolve_mem(req, &h.file, &w->o) != NFS3_OK || w->o.would_block)
		return false;
	if (!w->o.vexp->mem_backed || data_change_begin(&w->o, &w->pre) != NFS3_OK)
		goto release;
	/* A delegation to recall: the ordinary handler answers JUKEBOX. */
	if (export_open_io(&w->o, O_WRONLY, &w->io) < 0 ||
	    nfs3_lease_break(&w->o.st, VFS_BREAK_WRITE) != NFS3_OK ||
	    !w->o.vexp->ops->splice_fd ||
	    (fd = w->o.vexp->ops->splice_fd(w->o.vexp, &w->io)) < 0 ||
	    !export_obj_detach(&w->o))
		goto release;
	/* the mark lasts until the data is written (bulk end) */
	nfs3_changes_take(&w->changes);
	w->stable = h.stable;
	b->fd = fd;
	b->priv = w;
	b->enter = write_bulk_enter;
	b->left = len - avail;
	b->pad = xdr_pad(len) - len;
	export_bulk_head(&w->o, &w->io, d->p, avail, off, b);
	return true;
release:
	nfs3_changes_end();
	export_release(&w->o);
	return false;
}

enum rpc_accept_stat nfs3_write_bulk_end(struct rpc_req *req, struct rpc_bulk *b)
{
	struct write_bulk *w = b->priv;
	enum rpc_accept_stat st = RPC_SUCCESS;

	if (!b->aborted && write_bulk_enter(b) < 0)
		st = RPC_SYSTEM_ERR; /* never go on as someone else */
	else if (!b->aborted)
		st = write_reply(req, &w->o, &w->io, &w->pre, w->stable, b->done, b->err);
	vfs_change_end(&w->changes);
	export_release(&w->o);
	return st;
}

/* ---- COMMIT -------------------------------------------------------------- */

/*
 * COMMIT. offset and count are not used: the whole file is synced with
 * fsync(2), which covers any range asked (Linux's nfsd syncs a range, and
 * the whole file when count is 0). An offset beyond what a file can hold
 * is NFS3ERR_INVAL, as in Linux. The file is opened as for WRITE (write
 * permission, owner override), as Linux's nfsd asks NFSD_MAY_WRITE.
 */
enum rpc_accept_stat nfs3_commit(struct rpc_req *req)
{
	struct COMMIT3args a;
	struct COMMIT3res r = { 0 };
	struct pre_op_attr pre = { 0 };
	struct export_obj o;
	struct vfs_obj io = VFS_OBJ_NONE;
	int err;

	if (!ARGS_OK(xdr_dec_COMMIT3args, &a))
		return RPC_GARBAGE_ARGS;
	r.status = nfs3_resolve(req, &a.file, &o);
	if (r.status != NFS3_OK)
		goto out;
	r.status = data_change_begin(&o, &pre);
	if (r.status != NFS3_OK)
		goto fail;
	if (a.offset > (uint64_t)INT64_MAX) {
		r.status = NFS3ERR_INVAL;
		goto fail;
	}
	err = export_open_io(&o, O_WRONLY, &io);
	if (err < 0) {
		r.status = nfs3_errno(-err);
		goto fail;
	}
	err = o.vexp->ops->commit(o.vexp, &io, false);
	if (err < 0) {
		r.status = nfs3_errno(-err);
		goto fail;
	}
	memcpy(r.u.resok.verf.val, nfs3->write_verf, sizeof(r.u.resok.verf.val));
	nfs3_wcc(&o, &io, &pre, &r.u.resok.file_wcc);
	goto out;
fail:
	nfs3_wcc(&o, vfs_obj_ok(&io) ? &io : &o.obj, &pre, &r.u.resfail.file_wcc);
out:
	export_release(&o);
	return REPLY(xdr_enc_COMMIT3res, &r);
}

/* ---- SETATTR ------------------------------------------------------------- */

static bool sattr_empty(const struct sattr3 *s)
{
	return !s->mode.set_it && !s->uid.set_it && !s->gid.set_it &&
	       !s->size.set_it && s->atime.set_it == DONT_CHANGE &&
	       s->mtime.set_it == DONT_CHANGE;
}

static struct timespec nfs_ts(enum time_how how, const struct nfstime3 *t)
{
	struct timespec ts = { 0, UTIME_NOW };

	if (how == SET_TO_CLIENT_TIME) {
		ts.tv_sec = (time_t)t->seconds;
		ts.tv_nsec = t->nseconds;
	}
	return ts;
}

/*
 * apply_sattr - make the object @obj of @o, whose stat is @st, have the
 * attributes @s asks for, as the caller (the backend's setattr: Linux
 * nfsd's order, not atomic). Return values: NFS3_OK or the error.
 */
static enum nfsstat3 apply_sattr(const struct export_obj *o, const struct vfs_obj *obj,
				 const struct stat *st, const struct sattr3 *s)
{
	struct vfs_sattr sa = { 0 };
	int err;

	if (s->size.set_it) {
		sa.mask |= VFS_SET_SIZE;
		sa.size = s->size.u.size;
	}
	if (s->uid.set_it) {
		sa.mask |= VFS_SET_UID;
		sa.uid = (uid_t)s->uid.u.uid;
	}
	if (s->gid.set_it) {
		sa.mask |= VFS_SET_GID;
		sa.gid = (gid_t)s->gid.u.gid;
	}
	if (s->mode.set_it) {
		sa.mask |= VFS_SET_MODE;
		sa.mode = (mode_t)(s->mode.u.mode & 07777);
	}
	if (s->atime.set_it != DONT_CHANGE) {
		sa.mask |= VFS_SET_ATIME;
		sa.atime = nfs_ts(s->atime.set_it, &s->atime.u.atime);
	}
	if (s->mtime.set_it != DONT_CHANGE) {
		sa.mask |= VFS_SET_MTIME;
		sa.mtime = nfs_ts(s->mtime.set_it, &s->mtime.u.mtime);
	}
	err = o->vexp->ops->setattr(o->vexp, obj, st, &sa, &o->cred);
	return err < 0 ? nfs3_errno(-err) : NFS3_OK;
}

/*
 * SETATTR. The guard compares the object's ctime (seconds and
 * nanoseconds) with the client's: a difference is NFS3ERR_NOT_SYNC and
 * nothing changes. A size on a directory is NFS3ERR_ISDIR, on another
 * non-regular object NFS3ERR_INVAL (Linux's nfsd answers the same).
 * Permission is the kernel's: a chmod by a non-owner is EPERM, hence
 * NFS3ERR_PERM.
 */
enum rpc_accept_stat nfs3_setattr(struct rpc_req *req)
{
	struct SETATTR3args a;
	struct SETATTR3res r = { 0 };
	struct pre_op_attr pre = { 0 };
	struct export_obj o;

	if (!ARGS_OK(xdr_dec_SETATTR3args, &a))
		return RPC_GARBAGE_ARGS;
	r.status = nfs3_resolve(req, &a.object, &o);
	if (r.status != NFS3_OK)
		goto out;
	nfs3_pre_op(&o, &pre);
	r.status = nfs3_writable(&o);
	if (r.status != NFS3_OK)
		goto wcc;
	if (!o.have_st) {
		r.status = NFS3ERR_IO;
		goto wcc;
	}
	if (a.guard.check &&
	    ((uint32_t)o.st.st_ctim.tv_sec != a.guard.u.obj_ctime.seconds ||
	     (uint32_t)o.st.st_ctim.tv_nsec != a.guard.u.obj_ctime.nseconds)) {
		r.status = NFS3ERR_NOT_SYNC;
		goto wcc;
	}
	if (!sattr_empty(&a.new_attributes)) {
		r.status = nfs3_lease_break(&o.st, VFS_BREAK_ATTR);
		if (r.status == NFS3_OK)
			r.status = apply_sattr(&o, &o.obj, &o.st, &a.new_attributes);
	}
wcc:
	/* resok and resfail hold the same wcc_data. */
	nfs3_wcc(&o, &o.obj, &pre, &r.u.resok.obj_wcc);
out:
	export_release(&o);
	return REPLY(xdr_enc_SETATTR3res, &r);
}

/* ---- CREATE -------------------------------------------------------------- */

/* The EXCLUSIVE verifier as two times in seconds, masked to 31 bits as
 * Linux's nfsd does so that they stay positive on every file system. */
static void verf_times(const createverf3 *v, time_t *mtime, time_t *atime)
{
	const uint8_t *b = v->val;

	*mtime = (time_t)(((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
			   (uint32_t)b[2] << 8 | b[3]) & 0x7fffffffu);
	*atime = (time_t)(((uint32_t)b[4] << 24 | (uint32_t)b[5] << 16 |
			   (uint32_t)b[6] << 8 | b[7]) & 0x7fffffffu);
}

/*
 * CREATE.
 * - UNCHECKED: an existing regular file is fine (only a size in the
 *   attributes is applied to it, as Linux does); another kind of object
 *   there is NFS3ERR_EXIST.
 * - GUARDED: anything existing is NFS3ERR_EXIST.
 * - EXCLUSIVE: the new file keeps the verifier in its mtime and atime
 *   seconds (Linux's nfsd: mtime = first word, atime = second, 31 bits);
 *   an existing regular file of size 0 whose times match is the same
 *   create retransmitted and succeeds, anything else is NFS3ERR_EXIST.
 *   The client then sets the real attributes with SETATTR.
 * New files get the mode asked (0 when none, as in Linux: the client
 * applies its umask and, for EXCLUSIVE, sets the mode afterwards); the
 * process umask is undone by a chmod when it took bits away. The final
 * component is never followed: a symlink there exists, so it is EXIST.
 * The file is created exclusively after a lookup, so the kind of create
 * is decided without a race that would truncate or reuse another file.
 */
enum rpc_accept_stat nfs3_create(struct rpc_req *req)
{
	struct CREATE3args a;
	struct CREATE3res r = { 0 };
	struct pre_op_attr pre = { 0 };
	const struct sattr3 *attrs = NULL;
	struct sattr3 rest;
	struct nfsx_fh fh;
	struct export_obj o;
	struct stat st;
	char name[NAME_MAX + 1];
	struct vfs_obj c = VFS_OBJ_NONE;
	const struct vfs_ops *ops;
	mode_t mode = 0;
	int e, tries;
	bool created = false;

	if (!ARGS_OK(xdr_dec_CREATE3args, &a))
		return RPC_GARBAGE_ARGS;
	r.status = nfs3_resolve(req, &a.where.dir, &o);
	if (r.status != NFS3_OK)
		goto out;
	ops = o.vexp->ops;
	nfs3_pre_op(&o, &pre);
	r.status = nfs3_writable(&o);
	if (r.status != NFS3_OK)
		goto fail;
	if (!S_ISDIR(o.st.st_mode)) {
		r.status = NFS3ERR_NOTDIR;
		goto fail;
	}
	e = vfs_check_name(a.where.name.data, a.where.name.len);
	if (e < 0) {
		r.status = nfs3_errno(-e);
		goto fail;
	}
	memcpy(name, a.where.name.data, a.where.name.len);
	name[a.where.name.len] = 0;
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		r.status = NFS3ERR_EXIST;
		goto fail;
	}
	if (a.how.mode != EXCLUSIVE) {
		attrs = &a.how.u.obj_attributes;
		if (attrs->mode.set_it)
			mode = (mode_t)(attrs->mode.u.mode & 07777);
	}

	/* Look, then create exclusively; a file appearing in between is looked at again. */
	for (tries = 0; tries < 3 && !vfs_obj_ok(&c); tries++) {
		e = ops->lookup(o.vexp, &o.obj, name, &c);
		if (e == 0)
			break;
		if (e != -ENOENT) {
			r.status = nfs3_errno(-e);
			goto fail;
		}
		e = ops->create(o.vexp, &o.obj, name, mode, &c);
		if (e == 0) {
			created = true;
			break;
		}
		if (e != -EEXIST || a.how.mode == GUARDED) {
			r.status = nfs3_errno(-e);
			goto fail;
		}
	}
	if (!vfs_obj_ok(&c)) {
		r.status = NFS3ERR_EXIST;
		goto fail;
	}
	if (ops->getattr(o.vexp, &c, &st) < 0) {
		r.status = NFS3ERR_IO;
		goto fail;
	}

	if (!created) {
		time_t vm, va;

		switch (a.how.mode) {
		case UNCHECKED:
			if (!S_ISREG(st.st_mode)) {
				r.status = NFS3ERR_EXIST;
				goto fail;
			}
			/* Only the size applies to an existing file (Linux):
			 * a truncation, which recalls a delegation on it. */
			memset(&rest, 0, sizeof(rest));
			rest.size = attrs->size;
			if (rest.size.set_it)
				r.status = nfs3_lease_break(&st, VFS_BREAK_ATTR);
			if (r.status == NFS3_OK)
				r.status = apply_sattr(&o, &c, &st, &rest);
			break;
		case EXCLUSIVE:
			verf_times(&a.how.u.verf, &vm, &va);
			if (!S_ISREG(st.st_mode) || st.st_mtim.tv_sec != vm ||
			    st.st_atim.tv_sec != va || st.st_size != 0)
				r.status = NFS3ERR_EXIST;
			break;
		default:
			r.status = NFS3ERR_EXIST;
			break;
		}
	} else if (a.how.mode == EXCLUSIVE) {
		struct vfs_sattr sa = { .mask = VFS_SET_ATIME | VFS_SET_MTIME };

		verf_times(&a.how.u.verf, &sa.mtime.tv_sec, &sa.atime.tv_sec);
		e = ops->setattr(o.vexp, &c, &st, &sa, &o.cred);
		if (e < 0)
			r.status = nfs3_errno(-e);
	} else {
		/* The mode went in with the create; the rest like SETATTR. */
		rest = *attrs;
		rest.mode.set_it = (st.st_mode & 07777) != mode;
		rest.mode.u.mode = mode;
		if (!sattr_empty(&rest))
			r.status = apply_sattr(&o, &c, &st, &rest);
	}
	if (r.status != NFS3_OK)
		goto fail;

	r.status = nfs3_handle(&o, &c, &fh, &r.u.resok.obj.u.handle);
	if (r.status != NFS3_OK)
		goto fail;
	r.u.resok.obj.handle_follows = true;
	nfs3_post_op(&o, &c, &r.u.resok.obj_attributes);
	nfs3_wcc(&o, &o.obj, &pre, &r.u.resok.dir_wcc);
	goto out;
fail:
	/* A file created here whose attributes could not be set stays: as in
	 * Linux, the client learns the error and may remove it. */
	nfs3_wcc(&o, &o.obj, &pre, &r.u.resfail.dir_wcc);
out:
	if (vfs_obj_ok(&c))
		o.vexp->ops->release(&c);
	export_release(&o);
	return REPLY(xdr_enc_CREATE3res, &r);
}
