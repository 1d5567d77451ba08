/* SPDX-License-Identifier: MIT */
/*
 * Operations that change the name space or attributes without open
 * state: CREATE, REMOVE, RENAME, LINK, SETATTR (RFC 7530 sections 16.4,
 * 16.25-16.28, 16.9, 16.32).
 *
 * DESIGN
 * - Through the export's operations (vfs/ops.h), as the caller, so the
 *   file system decides permissions; a read-only export or a pseudo
 *   directory is ROFS before anything is touched.
 * - change_info4 is the directory's change attribute (its ctime, see
 *   attr_ops.c) read before and after; not atomic (nothing holds the
 *   directory between the reads), which the client learns from
 *   atomic = false and handles by revalidating.
 * - Names as LOOKUP checks them; "." and ".." are BADNAME.
 * - CREATE makes directories, symlinks, devices, sockets and FIFOs (a
 *   regular file is OPEN's: BADTYPE); the mode is applied at creation
 *   (0 when none is given, as knfsd), the other attributes after, and the
 *   new object becomes the current filehandle. Owners are applied only
 *   for a caller acting as root, as NFSv3's MKDIR does.
 * - SETATTR of a regular file's size takes a stateid, checked as
 *   WRITE's (nfs4_check_change).
 * - Before a regular file changes (SETATTR), loses a name (REMOVE, the
 *   source or the replaced target of RENAME) or gains one (LINK), other
 *   clients' read delegations of it are recalled and the operation
 *   answers DELAY meanwhile (deleg.c), as Linux breaks delegations in
 *   notify_change, vfs_unlink, vfs_rename and vfs_link.
 * - REMOVE and RENAME wait with GRACE during the grace period after a
 *   restart (a client may still reclaim what they would touch).
 * - Every change drops the cached attributes of directory listings
 *   (vfs_dir_changed), as NFSv3's wcc_data does.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "nfs4/attr.h"
#include "nfs4/internal.h"
#include "vfs/dir.h"

/* The current filehandle as a directory of a writable export. */
static enum nfsstat4 change_dir(const struct nfs4_fh *f)
{
	if (f->kind == NFS4_FH_NONE)
		return NFS4ERR_NOFILEHANDLE;
	if (f->kind == NFS4_FH_PSEUDO)
		return NFS4ERR_ROFS;
	if (!f->o.have_st)
		return NFS4ERR_IO;
	if (!S_ISDIR(f->o.st.st_mode))
		return S_ISLNK(f->o.st.st_mode) ? NFS4ERR_SYMLINK : NFS4ERR_NOTDIR;
	return f->o.client->opts.rw ? NFS4_OK : NFS4ERR_ROFS;
}

uint64_t nfs4_change_of(const struct export_obj *o)
{
	struct stat st;

	if (o->vexp->ops->getattr(o->vexp, &o->obj, &st) < 0)
		return 0;
	return (uint64_t)st.st_ctim.tv_sec << 32 | (uint64_t)st.st_ctim.tv_nsec;
}

enum nfsstat4 nfs4_name_of(const component4 *n, char buf[NAME_MAX + 1])
{
	enum nfsstat4 st = nfs4_check_name(n);

	if (st != NFS4_OK)
		return st;
	memcpy(buf, n->data, n->len);
	buf[n->len] = 0;
	return NFS4_OK;
}

/* ---- CREATE ---- */

static enum nfsstat4 make(struct nfs4_compound *c, const struct CREATE4args *a,
			  const char *name, mode_t mode)
{
	const struct export_obj *d = &c->cur.o;
	const struct vfs_ops *ops = d->vexp->ops;
	char target[PATH_MAX];
	int r;

	switch (a->objtype.type) {
	case NF4DIR:
		r = ops->mkdir(d->vexp, &d->obj, name, mode);
		break;
	case NF4LNK:
		/* as NFSv3's SYMLINK: empty or holding a NUL is INVAL */
		if (a->objtype.u.linkdata.len == 0 ||
		    memchr(a->objtype.u.linkdata.data, 0, a->objtype.u.linkdata.len))
			return NFS4ERR_INVAL;
		if (a->objtype.u.linkdata.len >= sizeof(target))
			return NFS4ERR_NAMETOOLONG;
		memcpy(target, a->objtype.u.linkdata.data, a->objtype.u.linkdata.len);
		target[a->objtype.u.linkdata.len] = 0;
		r = ops->symlink(d->vexp, &d->obj, name, target);
		break;
	case NF4BLK:
	case NF4CHR:
		/* the kernel's dev_t: 12-bit major, 20-bit minor (as NFSv3) */
		if (a->objtype.u.devdata.specdata1 > 0xfffu ||
		    a->objtype.u.devdata.specdata2 > 0xfffffu)
			return NFS4ERR_INVAL;
		r = ops->mknod(d->vexp, &d->obj, name,
			       (a->objtype.type == NF4BLK ? S_IFBLK : S_IFCHR) | mode,
			       makedev(a->objtype.u.devdata.specdata1,
				       a->objtype.u.devdata.specdata2));
		break;
	case NF4SOCK:
	case NF4FIFO:
		r = ops->mknod(d->vexp, &d->obj, name,
			       (a->objtype.type == NF4SOCK ? S_IFSOCK : S_IFIFO) | mode, 0);
		break;
	default:
		return NFS4ERR_BADTYPE;   /* a regular file is OPEN's */
	}
	return r < 0 ? nfs4_errno(r) : NFS4_OK;
}

enum nfsstat4 nfs4_create(struct nfs4_compound *c, const struct nfs_argop4 *a,
			  struct nfs_resop4 *r)
{
	const struct CREATE4args *ca = &a->u.opcreate;
	struct CREATE4res *res = &r->u.opcreate;
	struct export_obj *d = &c->cur.o;
	struct vfs_sattr sa;
	char name[NAME_MAX + 1];
	struct vfs_obj nobj;
	struct stat nst;
	struct nfsx_fh fh;
	struct export_obj no;
	uint64_t before;
	enum nfsstat4 st;
	int err;

	st = change_dir(&c->cur);
	if (st == NFS4_OK)
		st = nfs4_name_of(&ca->objname, name);
	if (st == NFS4_OK)
		st = nfs4_attr_decode_set(&ca->createattrs, c->minorversion, NULL, &sa, c->attrset);
	if (st == NFS4_OK && (sa.mask & VFS_SET_SIZE))
		st = NFS4ERR_INVAL;   /* a size means nothing to what CREATE makes */
	if (st != NFS4_OK)
		return res->status = st;
	before = nfs4_change_of(d);
	st = make(c, ca, name, sa.mask & VFS_SET_MODE ? sa.mode : 0);
	if (st != NFS4_OK)
		return res->status = st;
	vfs_dir_changed();
	res->u.resok4.cinfo.before = before;
	res->u.resok4.cinfo.after = nfs4_change_of(d);
	/* the rest of the attributes, then the new object becomes current */
	err = d->vexp->ops->lookup(d->vexp, &d->obj, name, &nobj);
	if (err < 0)
		return res->status = nfs4_errno(err);
	/* what is not applied is not in attrset either (RFC 7530 16.4.4) */
	sa.mask &= ~(uint32_t)VFS_SET_MODE;
	if (d->cred.uid != 0) {
		sa.mask &= ~(uint32_t)(VFS_SET_UID | VFS_SET_GID);
		c->attrset[1] &= ~(1u << (FATTR4_OWNER - 32) | 1u << (FATTR4_OWNER_GROUP - 32));
	}
	if (ca->objtype.type == NF4LNK) {
		sa.mask &= ~(uint32_t)(VFS_SET_ATIME | VFS_SET_MTIME);
		c->attrset[1] &= ~(1u << (FATTR4_TIME_ACCESS_SET - 32) |
				   1u << (FATTR4_TIME_MODIFY_SET - 32));
	}
	err = 0;
	if (sa.mask && (err = d->vexp->ops->getattr(d->vexp, &nobj, &nst)) == 0)
		err = d->vexp->ops->setattr(d->vexp, &nobj, &nst, &sa, &d->cred);
	if (err == 0)
		err = d->vexp->ops->handle(export_fh_key, d->vexp, &nobj, &fh);
	d->vexp->ops->release(&nobj);
	if (err < 0)
		return res->status = nfs4_errno(err);
	err = export_resolve(c->req, fh.data, fh.len, false, &no);
	if (err < 0)
		return res->status = nfs4_errno(err);
	nfs4_fh_clear(&c->cur);
	c->cur.kind = NFS4_FH_OBJ;
	c->cur.o = no;
	res->u.resok4.attrset.len = NFS4_ATTR_WORDS;
	res->u.resok4.attrset.val = c->attrset;
	return res->status = NFS4_OK;
}

/* The file named @name in @d is about to lose that name (REMOVE, RENAME):
 * other clients' delegations of it are recalled first. Looked up only
 * while any delegation exists. Return values: NFS4_OK (also when there
 * is no such name: the operation tells); NFS4ERR_DELAY. */
static enum nfsstat4 break_of(struct nfs4_compound *c, const struct export_obj *d,
			      const char *name)
{
	struct nfs4_file_id f;
	enum nfsstat4 st = NFS4_OK;
	struct vfs_obj x;
	struct stat xs;

	vfs_change_mark_names(&c->changes); /* before the count is read */
	if (!vfs_leases_held())
		return NFS4_OK;
	if (d->vexp->ops->lookup(d->vexp, &d->obj, name, &x) < 0)
		return NFS4_OK;
	if (d->vexp->ops->getattr(d->vexp, &x, &xs) == 0 && S_ISREG(xs.st_mode)) {
		f.dev = xs.st_dev;
		f.ino = xs.st_ino;
		st = nfs4_deleg_break(&f, nfs4_breaker(c, 0));
	}
	d->vexp->ops->release(&x);
	return st;
}

enum nfsstat4 nfs4_break_obj(struct nfs4_compound *c, const struct export_obj *o,
			     clientid4 named)
{
	struct nfs4_file_id f;

	if (!o->have_st || !S_ISREG(o->st.st_mode))
		return NFS4_OK;
	nfs4_file_id_of(o, &f);
	vfs_change_mark(&c->changes, f.dev, f.ino);
	return nfs4_deleg_break(&f, nfs4_breaker(c, named));
}

/* ---- REMOVE ---- */

enum nfsstat4 nfs4_remove(struct nfs4_compound *c, const struct nfs_argop4 *a,
			  struct nfs_resop4 *r)
{
	struct REMOVE4res *res = &r->u.opremove;
	const struct export_obj *d = &c->cur.o;
	char name[NAME_MAX + 1];
	enum nfsstat4 st;
	uint64_t before;
	int err;

	st = change_dir(&c->cur);
	if (st == NFS4_OK)
		st = nfs4_name_of(&a->u.opremove.target, name);
	/* a file a client may still reclaim stays until grace ends (knfsd) */
	if (st == NFS4_OK && nfs4_in_grace())
		st = NFS4ERR_GRACE;
	if (st == NFS4_OK)
		st = break_of(c, d, name);
	if (st != NFS4_OK)
		return res->status = st;
	before = nfs4_change_of(d);
	/* REMOVE takes files and directories alike */
	err = d->vexp->ops->remove(d->vexp, &d->obj, name, false);
	if (err == -EISDIR || err == -EPERM) {
		struct vfs_obj x;
		struct stat xs;

		if (d->vexp->ops->lookup(d->vexp, &d->obj, name, &x) == 0) {
			if (d->vexp->ops->getattr(d->vexp, &x, &xs) == 0 && S_ISDIR(xs.st_mode))
				err = d->vexp->ops->remove(d->vexp, &d->obj, name, true);
			d->vexp->ops->release(&x);
		}
	}
	if (err < 0)
		return res->status = nfs4_errno(err);
	vfs_dir_changed();
	res->u.resok4.cinfo.before = before;
	res->u.resok4.cinfo.after = nfs4_change_of(d);
	return res->status = NFS4_OK;
}

/* ---- RENAME and LINK: the saved filehandle and the current one ---- */

enum nfsstat4 nfs4_rename(struct nfs4_compound *c, const struct nfs_argop4 *a,
			  struct nfs_resop4 *r)
{
	struct RENAME4res *res = &r->u.oprename;
	const struct export_obj *from = &c->saved.o, *to = &c->cur.o;
	char oldname[NAME_MAX + 1], newname[NAME_MAX + 1];
	uint64_t fb, tb;
	enum nfsstat4 st;
	int err;

	if (c->saved.kind == NFS4_FH_NONE)
		return res->status = NFS4ERR_NOFILEHANDLE;
	st = change_dir(&c->saved);
	if (st == NFS4_OK)
		st = change_dir(&c->cur);
	if (st == NFS4_OK)
		st = nfs4_name_of(&a->u.oprename.oldname, oldname);
	if (st == NFS4_OK)
		st = nfs4_name_of(&a->u.oprename.newname, newname);
	if (st == NFS4_OK && from->exp != to->exp)
		st = NFS4ERR_XDEV;
	if (st == NFS4_OK && nfs4_in_grace())
		st = NFS4ERR_GRACE;
	/* the file renamed, and one the new name replaces */
	if (st == NFS4_OK)
		st = break_of(c, from, oldname);
	if (st == NFS4_OK)
		st = break_of(c, to, newname);
	if (st != NFS4_OK)
		return res->status = st;
	fb = nfs4_change_of(from);
	tb = nfs4_change_of(to);
	err = to->vexp->ops->rename(to->vexp, &from->obj, oldname, &to->obj, newname);
	if (err < 0)
		return res->status = nfs4_errno(err);
	vfs_dir_changed();
	res->u.resok4.source_cinfo.before = fb;
	res->u.resok4.source_cinfo.after = nfs4_change_of(from);
	res->u.resok4.target_cinfo.before = tb;
	res->u.resok4.target_cinfo.after = nfs4_change_of(to);
	return res->status = NFS4_OK;
}

enum nfsstat4 nfs4_link(struct nfs4_compound *c, const struct nfs_argop4 *a,
			struct nfs_resop4 *r)
{
	struct LINK4res *res = &r->u.oplink;
	const struct export_obj *src = &c->saved.o, *d = &c->cur.o;
	char name[NAME_MAX + 1];
	enum nfsstat4 st;
	uint64_t before;
	int err;

	if (c->saved.kind == NFS4_FH_NONE)
		return res->status = NFS4ERR_NOFILEHANDLE;
	if (c->saved.kind == NFS4_FH_PSEUDO)
		return res->status = NFS4ERR_ISDIR;
	st = change_dir(&c->cur);
	if (st == NFS4_OK)
		st = nfs4_name_of(&a->u.oplink.newname, name);
	if (st == NFS4_OK && src->have_st && S_ISDIR(src->st.st_mode))
		st = NFS4ERR_ISDIR;
	if (st == NFS4_OK && src->exp != d->exp)
		st = NFS4ERR_XDEV;
	if (st == NFS4_OK)
		st = nfs4_break_obj(c, src, 0);
	if (st != NFS4_OK)
		return res->status = st;
	before = nfs4_change_of(d);
	err = d->vexp->ops->link(d->vexp, &src->obj, &d->obj, name);
	if (err < 0)
		return res->status = nfs4_errno(err);
	vfs_dir_changed();
	res->u.resok4.cinfo.before = before;
	res->u.resok4.cinfo.after = nfs4_change_of(d);
	return res->status = NFS4_OK;
}

/* ---- SETATTR ---- */

enum nfsstat4 nfs4_setattr(struct nfs4_compound *c, const struct nfs_argop4 *a,
			   struct nfs_resop4 *r)
{
	const struct SETATTR4args *sa4 = &a->u.opsetattr;
	struct SETATTR4res *res = &r->u.opsetattr;
	struct export_obj *o = &c->cur.o;
	struct vfs_sattr sa;
	struct stat st;
	enum nfsstat4 status;
	int err;

	/* the reply always carries attrsset: empty unless all was set */
	res->attrsset.len = 0;
	if (c->cur.kind == NFS4_FH_NONE)
		return res->status = NFS4ERR_NOFILEHANDLE;
	if (c->cur.kind == NFS4_FH_PSEUDO || !o->client->opts.rw)
		return res->status = NFS4ERR_ROFS;
	status = nfs4_attr_decode_set(&sa4->obj_attributes, c->minorversion, NULL, &sa,
				      c->attrset);
	if (status != NFS4_OK)
		return res->status = status;
	/* a size is a write: the stateid must allow one (an open for
	 * writing, or the anonymous one when no open denies writes) */
	if ((sa.mask & VFS_SET_SIZE) && o->have_st && S_ISREG(o->st.st_mode))
		status = nfs4_check_change(c, nfs4_sid(c, &sa4->stateid));
	/* any attribute recalls a read delegation (Linux's notify_change
	 * breaks them all) */
	else if (sa.mask)
		status = nfs4_break_obj(c, o, 0);
	if (status != NFS4_OK)
		return res->status = status;
	err = o->vexp->ops->getattr(o->vexp, &o->obj, &st);
	if (err == 0 && sa.mask)
		err = o->vexp->ops->setattr(o->vexp, &o->obj, &st, &sa, &o->cred);
	if (err < 0)
		return res->status = nfs4_errno(err);
	vfs_dir_changed();
	res->attrsset.len = NFS4_ATTR_WORDS;
	res->attrsset.val = c->attrset;
	return res->status = NFS4_OK;
}
