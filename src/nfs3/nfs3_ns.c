/* SPDX-License-Identifier: MIT */
/*
 * NFSv3 procedures that change the name space: MKDIR, SYMLINK, MKNOD,
 * REMOVE, RMDIR, RENAME, LINK (RFC 1813 3.3.9-3.3.15).
 *
 * DESIGN
 * - The parent directories are the objects nfs3_resolve() gives, with
 *   the caller's (squashed) identity already in effect on this thread:
 *   the backend's operations (vfs/ops.h) run as the caller, so the file
 *   system decides permissions (write and search on the directory, the
 *   sticky bit, protected_hardlinks, CAP_MKNOD for devices, which
 *   setfsuid to a non-root uid drops).
 * - Names are used as one component (vfs_check_name) and never
 *   followed: the backend acts on directory entries, and LINK links the
 *   file's own object.
 * - Order of checks, as Linux's nfsd (fs/nfsd/vfs.c): the handle, then
 *   "is a directory" (NOTDIR), then the export's write permission
 *   (ROFS), then the name, then the operation. Every reply carries the
 *   directory's wcc_data once the directory is resolved, on success and
 *   on failure.
 * - "." and ".." as the name to act on, answered as nfsd does:
 *   MKDIR/SYMLINK/MKNOD/LINK -> NFS3ERR_EXIST (nfsd_create,
 *   nfsd_symlink, nfsd_link: "err = nfserr_exist; if (isdotent(...))"),
 *   REMOVE/RMDIR -> NFS3ERR_ACCES (nfsd_unlink: nfserr_acces),
 *   RENAME -> NFS3ERR_PERM (nfsd_rename: nfserr_perm), for either name.
 * - The mode a client gives is applied as asked (nfsd runs with umask 0;
 *   the backend restores what a process umask takes away).
 * - sattr3 uid/gid at creation are applied only when the caller acts as
 *   root after squashing and silently ignored otherwise, as nfsd's
 *   nfsd_create_setattr() does (some clients send their own gid).
 *   atime/mtime are applied (not on symlinks); size is ignored.
 * - A delegation an NFSv4 client holds is recalled before REMOVE takes
 *   a name of its file, RENAME moves it or replaces it, or LINK gives it
 *   a new name (vfs/lease.h; what Linux's vfs_unlink, vfs_rename and
 *   vfs_link do with try_break_deleg): the call changes nothing and
 *   answers NFS3ERR_JUKEBOX. REMOVE and RENAME mark the name space as
 *   changing before they read the count (nfs3_changes_mark_names), so
 *   that a grant racing them declines. Directories get no delegation and are not
 *   asked about. REMOVE and RENAME know only names: the objects are
 *   looked up (name_stat) only while some delegation exists
 *   (vfs_leases_held), so that NFSv3 pays no system call for it
 *   otherwise. What is looked up may be replaced before the change (no
 *   directory lock is held, unlike the kernel's), a window of one
 *   system call.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "nfs3/nfs3.h"
#include "nfs3/procs.h"


/* A directory a call changes, and the name in it. */
struct dirop {
	struct export_obj d;
	struct pre_op_attr pre;
	char name[NAME_MAX + 1];
};

static bool is_dot(const char *n)
{
	return strcmp(n, ".") == 0 || strcmp(n, "..") == 0;
}

/*
 * dirop_begin - resolve @da's directory, note its pre-op attributes,
 * check it is a directory of a writable export, and copy and check the
 * name. @dots is the answer for "." and "..".
 */
static enum nfsstat3 dirop_begin(struct rpc_req *req, const struct diropargs3 *da,
				 enum nfsstat3 dots, struct dirop *op)
{
	enum nfsstat3 st;
	int err;

	op->pre.attributes_follow = false;
	op->name[0] = 0;
	st = nfs3_resolve(req, &da->dir, &op->d);
	if (st != NFS3_OK)
		return st;
	nfs3_pre_op(&op->d, &op->pre);
	if (!op->d.have_st)
		return NFS3ERR_IO;
	if (!S_ISDIR(op->d.st.st_mode))
		return NFS3ERR_NOTDIR;
	st = nfs3_writable(&op->d);
	if (st != NFS3_OK)
		return st;
	err = vfs_check_name(da->name.data, da->name.len);
	if (err)
		return nfs3_errno(-err); /* "", "/", NUL: ACCES; > NAME_MAX: NAMETOOLONG */
	memcpy(op->name, da->name.data, da->name.len);
	op->name[da->name.len] = 0;
	return is_dot(op->name) ? dots : NFS3_OK;
}

/*
 * name_stat - the attributes of @name in @op's directory, not followed,
 * through the backend (lookup, getattr). Return values: true, or false
 * when there is no such name (or it cannot be read: the change itself
 * will say why).
 */
static bool name_stat(const struct dirop *op, const char *name, struct stat *st)
{
	const struct vfs_export *e = op->d.vexp;
	struct vfs_obj c;
	bool ok;

	if (e->ops->lookup(e, &op->d.obj, name, &c) < 0)
		return false;
	ok = e->ops->getattr(e, &c, st) == 0;
	e->ops->release(&c);
	return ok;
}

/* The directory's wcc_data after the call (nothing when unresolved). */
static void dirop_wcc(const struct dirop *op, struct wcc_data *w)
{
	nfs3_wcc(&op->d, &op->d.obj, &op->pre, w);
}

static struct timespec nfs_time(enum time_how how, const struct nfstime3 *t)
{
	struct timespec ts = { 0, UTIME_OMIT };

	if (how == SET_TO_SERVER_TIME) {
		ts.tv_nsec = UTIME_NOW;
	} else if (how == SET_TO_CLIENT_TIME) {
		ts.tv_sec = t->seconds;
		ts.tv_nsec = t->nseconds < 1000000000u ? t->nseconds : 999999999;
	}
	return ts;
}

/*
 * created - after MKDIR/SYMLINK/MKNOD made @op->name of type @type:
 * apply @sa (see DESIGN), and fill the handle and attributes of the new
 * object. Return values: NFS3_OK, or the error of applying @sa (the
 * object then exists, as with nfsd).
 */
static enum nfsstat3 created(struct rpc_req *req, struct dirop *op, mode_t type,
			     const struct sattr3 *sa, struct nfsx_fh *fhbuf,
			     struct post_op_fh3 *ofh, struct post_op_attr *oattr)
{
	const struct vfs_export *e = op->d.vexp;
	struct vfs_sattr set = { 0 };
	enum nfsstat3 status = NFS3_OK;
	struct vfs_cred cred;
	struct vfs_obj c;
	struct stat st;
	int err;

	ofh->handle_follows = false;
	oattr->attributes_follow = false;
	if (e->ops->lookup(e, &op->d.obj, op->name, &c) < 0)
		return NFS3_OK; /* made, then gone: no handle to give */
	if (e->ops->getattr(e, &c, &st) < 0 || (st.st_mode & S_IFMT) != type)
		goto out; /* replaced meanwhile: leave it alone */
	export_cred(req, op->d.client, &cred);
	if (cred.uid == 0 && sa->uid.set_it) {
		set.mask |= VFS_SET_UID;
		set.uid = sa->uid.u.uid;
	}
	if (cred.uid == 0 && sa->gid.set_it) {
		set.mask |= VFS_SET_GID;
		set.gid = sa->gid.u.gid;
	}
	if (type != S_IFLNK && sa->atime.set_it != DONT_CHANGE) {
		set.mask |= VFS_SET_ATIME;
		set.atime = nfs_time(sa->atime.set_it, &sa->atime.u.atime);
	}
	if (type != S_IFLNK && sa->mtime.set_it != DONT_CHANGE) {
		set.mask |= VFS_SET_MTIME;
		set.mtime = nfs_time(sa->mtime.set_it, &sa->mtime.u.mtime);
	}
	if (set.mask && (err = e->ops->setattr(e, &c, &st, &set, &op->d.cred)) < 0)
		status = nfs3_errno(-err);
out:
	if (nfs3_handle(&op->d, &c, fhbuf, &ofh->u.handle) == NFS3_OK)
		ofh->handle_follows = true;
	nfs3_post_op(&op->d, &c, oattr);
	e->ops->release(&c);
	return status;
}

/* The mode bits a creation starts with: the client's, or 0 when it gave
 * none (nfsd_create_locked: "if (!(iap->ia_valid & ATTR_MODE)) ia_mode = 0"). */
static mode_t create_mode(const struct sattr3 *sa)
{
	return sa->mode.set_it ? (mode_t)(sa->mode.u.mode & 07777) : 0;
}

enum rpc_accept_stat nfs3_mkdir(struct rpc_req *req)
{
	struct MKDIR3args a;
	struct MKDIR3res r = { 0 };
	struct nfsx_fh fh;
	struct dirop op;
	int err;

	if (!ARGS_OK(xdr_dec_MKDIR3args, &a))
		return RPC_GARBAGE_ARGS;
	r.status = dirop_begin(req, &a.where, NFS3ERR_EXIST, &op);
	if (r.status == NFS3_OK) {
		err = op.d.vexp->ops->mkdir(op.d.vexp, &op.d.obj, op.name,
					    create_mode(&a.attributes));
		if (err < 0)
			r.status = nfs3_errno(-err);
		else
			r.status = created(req, &op, S_IFDIR, &a.attributes, &fh,
					   &r.u.resok.obj, &r.u.resok.obj_attributes);
	}
	/* resok and resfail both hold dir_wcc, at different places */
	dirop_wcc(&op, r.status == NFS3_OK ? &r.u.resok.dir_wcc : &r.u.resfail.dir_wcc);
	export_release(&op.d);
	return REPLY(xdr_enc_MKDIR3res, &r);
}

enum rpc_accept_stat nfs3_symlink(struct rpc_req *req)
{
	struct SYMLINK3args a;
	struct SYMLINK3res r = { 0 };
	const nfspath3 *t;
	char target[PATH_MAX];
	struct nfsx_fh fh;
	struct dirop op;
	int err;

	if (!ARGS_OK(xdr_dec_SYMLINK3args, &a))
		return RPC_GARBAGE_ARGS;
	t = &a.symlink.symlink_data;
	r.status = dirop_begin(req, &a.where, NFS3ERR_EXIST, &op);
	if (r.status != NFS3_OK)
		goto out;
	/* As nfsd3_proc_symlink: an empty target or one holding a NUL is
	 * INVAL; longer than the kernel takes (PATH_MAX - 1) NAMETOOLONG. */
	if (t->len == 0 || memchr(t->data, 0, t->len)) {
		r.status = NFS3ERR_INVAL;
		goto out;
	}
	if (t->len >= sizeof(target)) {
		r.status = NFS3ERR_NAMETOOLONG;
		goto out;
	}
	memcpy(target, t->data, t->len);
	target[t->len] = 0;
	err = op.d.vexp->ops->symlink(op.d.vexp, &op.d.obj, op.name, target);
	if (err < 0)
		r.status = nfs3_errno(-err);
	else
		r.status = created(req, &op, S_IFLNK, &a.symlink.symlink_attributes, &fh,
				   &r.u.resok.obj, &r.u.resok.obj_attributes);
out:
	dirop_wcc(&op, r.status == NFS3_OK ? &r.u.resok.dir_wcc : &r.u.resfail.dir_wcc);
	export_release(&op.d);
	return REPLY(xdr_enc_SYMLINK3res, &r);
}

enum rpc_accept_stat nfs3_mknod(struct rpc_req *req)
{
	struct MKNOD3args a;
	struct MKNOD3res r = { 0 };
	const struct sattr3 *sa = NULL;
	struct nfsx_fh fh;
	struct dirop op;
	mode_t type = 0;
	dev_t dev = 0;
	int err;

	if (!ARGS_OK(xdr_dec_MKNOD3args, &a))
		return RPC_GARBAGE_ARGS;
	r.status = dirop_begin(req, &a.where, NFS3ERR_EXIST, &op);
	if (r.status != NFS3_OK)
		goto out;
	switch (a.what.type) {
	case NF3CHR:
	case NF3BLK:
		type = a.what.type == NF3CHR ? S_IFCHR : S_IFBLK;
		sa = &a.what.u.device.dev_attributes;
		/* The kernel's dev_t: 12-bit major, 20-bit minor; nfsd answers
		 * INVAL when MKDEV does not give the numbers back. */
		if (a.what.u.device.spec.specdata1 > 0xfffu ||
		    a.what.u.device.spec.specdata2 > 0xfffffu) {
			r.status = NFS3ERR_INVAL;
			goto out;
		}
		dev = makedev(a.what.u.device.spec.specdata1,
			      a.what.u.device.spec.specdata2);
		break;
	case NF3SOCK:
	case NF3FIFO:
		type = a.what.type == NF3SOCK ? S_IFSOCK : S_IFIFO;
		sa = &a.what.u.pipe_attributes;
		break;
	default: /* NF3REG, NF3DIR, NF3LNK: CREATE, MKDIR, SYMLINK do those */
		r.status = NFS3ERR_BADTYPE;
		goto out;
	}
	/* Devices need CAP_MKNOD, which a non-root fsuid does not have:
	 * EPERM -> NFS3ERR_PERM, as with nfsd. */
	err = op.d.vexp->ops->mknod(op.d.vexp, &op.d.obj, op.name, type | create_mode(sa), dev);
	if (err < 0)
		r.status = nfs3_errno(-err);
	else
		r.status = created(req, &op, type, sa, &fh, &r.u.resok.obj,
				   &r.u.resok.obj_attributes);
out:
	dirop_wcc(&op, r.status == NFS3_OK ? &r.u.resok.dir_wcc : &r.u.resfail.dir_wcc);
	export_release(&op.d);
	return REPLY(xdr_enc_MKNOD3res, &r);
}

/*
 * REMOVE and RMDIR: the backend's remove of the name. REMOVE of a
 * directory gets EISDIR from the kernel -> NFS3ERR_ISDIR (nfsd calls vfs_unlink for
 * REMOVE whatever the type and answers the same); RMDIR of a
 * non-directory ENOTDIR -> NFS3ERR_NOTDIR; RMDIR of a non-empty one
 * ENOTEMPTY (or EEXIST on some file systems) -> NFS3ERR_NOTEMPTY.
 */
static enum nfsstat3 remove_common(struct rpc_req *req, const struct diropargs3 *da,
				   bool dir, struct wcc_data *ok, struct wcc_data *fail)
{
	enum nfsstat3 st;
	struct dirop op;
	struct stat vst;
	int err;

	st = dirop_begin(req, da, NFS3ERR_ACCES, &op);
	/* REMOVE of a file (a directory is ISDIR, below) with delegations about. */
	if (st == NFS3_OK && !dir)
		nfs3_changes_mark_names(); /* before the count is read */
	if (st == NFS3_OK && !dir && vfs_leases_held() && name_stat(&op, op.name, &vst) &&
	    !S_ISDIR(vst.st_mode))
		st = nfs3_lease_break(&vst, VFS_BREAK_REMOVE);
	if (st == NFS3_OK &&
	    (err = op.d.vexp->ops->remove(op.d.vexp, &op.d.obj, op.name, dir)) < 0)
		st = nfs3_errno(-err);
	dirop_wcc(&op, st == NFS3_OK ? ok : fail);
	export_release(&op.d);
	return st;
}

enum rpc_accept_stat nfs3_remove(struct rpc_req *req)
{
	struct REMOVE3args a;
	struct REMOVE3res r = { 0 };

	if (!ARGS_OK(xdr_dec_REMOVE3args, &a))
		return RPC_GARBAGE_ARGS;
	r.status = remove_common(req, &a.object, false, &r.u.resok.dir_wcc,
				 &r.u.resfail.dir_wcc);
	return REPLY(xdr_enc_REMOVE3res, &r);
}

enum rpc_accept_stat nfs3_rmdir(struct rpc_req *req)
{
	struct RMDIR3args a;
	struct RMDIR3res r = { 0 };

	if (!ARGS_OK(xdr_dec_RMDIR3args, &a))
		return RPC_GARBAGE_ARGS;
	r.status = remove_common(req, &a.object, true, &r.u.resok.dir_wcc,
				 &r.u.resfail.dir_wcc);
	return REPLY(xdr_enc_RMDIR3res, &r);
}

/*
 * rename_break - before RENAME, while some delegation exists: the source
 * is renamed (VFS_BREAK_RENAME), an existing target is replaced
 * (VFS_BREAK_REMOVE); directories are not asked about, and two names of
 * one file change nothing (rename(2) then does nothing), as in Linux's
 * vfs_rename. Return values: NFS3_OK or NFS3ERR_JUKEBOX.
 */
static enum nfsstat3 rename_break(const struct dirop *from, const struct dirop *to)
{
	struct stat fst, tst;
	bool have_to = name_stat(to, to->name, &tst);
	enum nfsstat3 st;

	if (!name_stat(from, from->name, &fst))
		return NFS3_OK; /* no source: the rename says NOENT */
	if (have_to && fst.st_dev == tst.st_dev && fst.st_ino == tst.st_ino)
		return NFS3_OK;
	if (!S_ISDIR(fst.st_mode)) {
		st = nfs3_lease_break(&fst, VFS_BREAK_RENAME);
		if (st != NFS3_OK)
			return st;
	}
	if (have_to && !S_ISDIR(tst.st_mode))
		return nfs3_lease_break(&tst, VFS_BREAK_REMOVE);
	return NFS3_OK;
}

/*
 * RENAME: both directories resolved (each handle with its own export's
 * client rules), both must be in the same export (else XDEV, as nfsd),
 * then the backend's rename (renameat(2)), which replaces a target of a compatible type
 * atomically (EISDIR, ENOTDIR, ENOTEMPTY otherwise) and never follows
 * either name.
 */
enum rpc_accept_stat nfs3_rename(struct rpc_req *req)
{
	struct RENAME3args a;
	struct RENAME3res r = { 0 };
	struct dirop from, to = { 0 };
	struct wcc_data *fw, *tw;
	enum nfsstat3 st;
	int err;

	if (!ARGS_OK(xdr_dec_RENAME3args, &a))
		return RPC_GARBAGE_ARGS;
	/* Released at out: whether or not it is resolved (node NULL). */
	to.d.obj = VFS_OBJ_NONE;
	r.status = dirop_begin(req, &a.from, NFS3ERR_PERM, &from);
	if (!vfs_obj_ok(&from.d.obj))
		goto out;
	/* Both directories are resolved whatever the checks of the first
	 * said, so that both wcc_data can be given. */
	st = dirop_begin(req, &a.to, NFS3ERR_PERM, &to);
	if (r.status == NFS3_OK)
		r.status = st;
	if (r.status != NFS3_OK)
		goto out;
	if (from.d.exp != to.d.exp) {
		r.status = NFS3ERR_XDEV;
		goto out;
	}
	nfs3_changes_mark_names(); /* before the count is read */
	if (vfs_leases_held()) {
		r.status = rename_break(&from, &to);
		if (r.status != NFS3_OK)
			goto out;
	}
	err = from.d.vexp->ops->rename(from.d.vexp, &from.d.obj, from.name, &to.d.obj, to.name);
	if (err < 0)
		r.status = nfs3_errno(-err);
out:
	fw = r.status == NFS3_OK ? &r.u.resok.fromdir_wcc : &r.u.resfail.fromdir_wcc;
	tw = r.status == NFS3_OK ? &r.u.resok.todir_wcc : &r.u.resfail.todir_wcc;
	dirop_wcc(&from, fw);
	dirop_wcc(&to, tw);
	export_release(&to.d);
	export_release(&from.d);
	return REPLY(xdr_enc_RENAME3res, &r);
}

/*
 * LINK: the file's inode linked into the directory by the backend, as
 * the caller (posix_ops.c says how, and why not AT_EMPTY_PATH). A
 * directory: EPERM -> NFS3ERR_PERM. File and directory in different
 * exports: XDEV.
 */
enum rpc_accept_stat nfs3_link(struct rpc_req *req)
{
	struct LINK3args a;
	struct LINK3res r = { 0 };
	struct export_obj f;
	struct dirop op = { 0 };
	int err;

	if (!ARGS_OK(xdr_dec_LINK3args, &a))
		return RPC_GARBAGE_ARGS;
	/* Released at out: whether or not it is resolved (node NULL). */
	op.d.obj = VFS_OBJ_NONE;
	r.status = nfs3_resolve(req, &a.file, &f);
	if (r.status != NFS3_OK)
		goto out;
	r.status = dirop_begin(req, &a.link, NFS3ERR_EXIST, &op);
	if (r.status != NFS3_OK)
		goto out;
	if (f.exp != op.d.exp) {
		r.status = NFS3ERR_XDEV;
		goto out;
	}
	if (f.have_st && !S_ISDIR(f.st.st_mode)) {
		r.status = nfs3_lease_break(&f.st, VFS_BREAK_LINK);
		if (r.status != NFS3_OK)
			goto out;
	}
	err = op.d.vexp->ops->link(op.d.vexp, &f.obj, &op.d.obj, op.name);
	if (err < 0)
		r.status = nfs3_errno(-err);
out:
	if (r.status == NFS3_OK) {
		nfs3_post_op(&f, &f.obj, &r.u.resok.file_attributes);
		dirop_wcc(&op, &r.u.resok.linkdir_wcc);
	} else {
		nfs3_post_op(&f, &f.obj, &r.u.resfail.file_attributes);
		dirop_wcc(&op, &r.u.resfail.linkdir_wcc);
	}
	export_release(&op.d);
	export_release(&f);
	return REPLY(xdr_enc_LINK3res, &r);
}
