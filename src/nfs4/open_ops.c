/* SPDX-License-Identifier: MIT */
/*
 * OPEN, OPEN_CONFIRM, OPEN_DOWNGRADE, CLOSE (RFC 7530 sections 16.16-16.19,
 * 16.2; RFC 8881 18.16-18.18, 18.2) on the open state of state.h.
 *
 * DESIGN
 * - OPEN checks the owner's seqid first (a replay must not create
 *   twice), then does the file system's part (look up or create, the
 *   permission, a truncation), then takes the share reservation. A
 *   reservation refused after a create leaves the file, as knfsd does.
 * - Creates as NFSv3's CREATE: looked up, then created exclusively, so
 *   the kind of create is decided without a race. UNCHECKED applies only
 *   a size to an existing file; GUARDED refuses it; EXCLUSIVE4 keeps the
 *   verifier in the new file's atime and mtime seconds (as knfsd and
 *   NFSv3), EXCLUSIVE4_1 too, with the other attributes applied.
 * - Permission: a file this OPEN created is not checked (its creator
 *   may write a file made with mode 0444); otherwise the caller must be
 *   allowed the access asked, or own the file (knfsd's
 *   NFSD_MAY_OWNER_OVERRIDE).
 * - Delegations (deleg.c): an OPEN that would write, deny reads or
 *   truncate first recalls other clients' (DELAY meanwhile), before the
 *   file changes; any other OPEN recalls other clients' write
 *   delegations (knfsd breaks a write lease at any open); its result may
 *   carry one. CLAIM_DELEGATE_CUR and
 *   CLAIM_DELEG_CUR_FH open by a delegation of the client's, held or
 *   being recalled; the PREV claims (delegations across a client's
 *   restart) answer NOTSUPP, as knfsd. CLAIM_PREVIOUS reopens the
 *   current file in the grace period after a restart, for a client of
 *   the previous run (recovery.h); every other claim then waits with
 *   GRACE.
 * - An open file's state holds the file's node (vfs_node_pin; one per
 *   file, not per open, let go of with the file's last stateid), as
 *   knfsd's nfs4_file holds an nfsd_file: a file whose last link goes
 *   while it is open (removed, or renamed over) stays readable, writable
 *   and closable through its handle and stateids, and its inode number
 *   cannot be reused under that state. Past the cache's pin budget an
 *   open holds nothing, and such a file's handle is STALE at its last
 *   link, as before.
 * - The seqid-bearing results are kept for a replay by the COMPOUND
 *   (c->seq, nfs4_state_seq_end) once encoded; a replay writes the kept
 *   bytes as they are, and OPEN's also restores the file it opened as
 *   the current filehandle.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>

#include "nfs4/attr.h"
#include "nfs4/internal.h"
#include "vfs/dir.h"

struct nfs4_state *nfs4_states;

void nfs4_file_id_of(const struct export_obj *o, struct nfs4_file_id *f)
{
	f->dev = o->st.st_dev;
	f->ino = o->st.st_ino;
}

void nfs4_unpin_file(void *node)
{
	vfs_node_unpin(node);
}

/* The state of open file @fid holds @n, unless it holds a node already. */
static void pin_file(const struct nfs4_file_id *fid, struct vfs_node *n)
{
	if (n && vfs_node_pin(n) && !nfs4_state_file_pin(nfs4_states, fid, n))
		vfs_node_unpin(n);
}

/* Minor version 0: the client of a stateful call must be confirmed and
 * live; the call renews its lease. 4.1's SEQUENCE did both. */
static enum nfsstat4 client_of(struct nfs4_compound *c, clientid4 cid, clientid4 *out)
{
	if (c->minorversion > 0) {
		if (!c->sequenced)
			return NFS4ERR_OP_NOT_IN_SESSION;
		*out = c->clientid;
		return NFS4_OK;
	}
	*out = cid;
	return nfs4_client_renew(cid);
}

static enum nfsstat4 check_stateid(struct nfs4_compound *c, const struct stateid4 *sid,
				   bool write, clientid4 *cidp)
{
	struct nfs4_file_id f;
	enum nfsstat4 st;
	clientid4 cid = 0;

	/* the special stateids wait for the reclaims (knfsd's
	 * check_special_stateids); a READ bypass does not */
	if ((nfs4_stateid_anonymous(sid) || (write && nfs4_stateid_bypass(sid))) &&
	    nfs4_in_grace())
		return NFS4ERR_GRACE;

	nfs4_file_id_of(&c->cur.o, &f);
	st = nfs4_state_check_io(nfs4_states, sid, &f, write, c->minorversion == 0, &cid);
	if (st == NFS4_OK && cid && c->minorversion == 0)
		st = nfs4_client_renew(cid);
	if (st == NFS4_OK && cid)
		c->named = cid;
	*cidp = cid;
	return st;
}

enum nfsstat4 nfs4_check_stateid(struct nfs4_compound *c, const struct stateid4 *sid, bool write)
{
	clientid4 cid;

	return check_stateid(c, sid, write, &cid);
}

clientid4 nfs4_breaker(const struct nfs4_compound *c, clientid4 named)
{
	if (c->minorversion > 0)
		return c->clientid;
	return named ? named : c->named;
}

enum nfsstat4 nfs4_check_change(struct nfs4_compound *c, const struct stateid4 *sid)
{
	struct nfs4_file_id f;
	enum nfsstat4 st;
	clientid4 cid;

	st = check_stateid(c, sid, true, &cid);
	if (st != NFS4_OK)
		return st;
	c->changed_data = true;
	nfs4_file_id_of(&c->cur.o, &f);
	vfs_change_mark(&c->changes, f.dev, f.ino);
	/* a delegation granted since nfs4_inline_plan() looked: a recall is a
	 * worker's, and SEQUENCE has run, so the client is asked to send
	 * the call again (marked first, as the grant counts first) */
	if (c->req->on_loop && vfs_leases_held())
		return NFS4ERR_DELAY;
	return nfs4_deleg_break(&f, nfs4_breaker(c, cid));
}

enum nfsstat4 nfs4_check_read(struct nfs4_compound *c, const struct stateid4 *sid)
{
	struct nfs4_file_id f;
	enum nfsstat4 st;
	clientid4 cid;

	st = check_stateid(c, sid, false, &cid);
	if (st != NFS4_OK || !nfs4_wdelegs_held())
		return st;
	/* granted since nfs4_inline_plan() looked: a recall is a worker's, and
	 * SEQUENCE has run, so the client is asked to send it again */
	if (c->req->on_loop)
		return NFS4ERR_DELAY;
	nfs4_file_id_of(&c->cur.o, &f);
	return nfs4_deleg_break_read(&f, nfs4_breaker(c, cid));
}

enum nfsstat4 nfs4_replay(struct nfs4_compound *c)
{
	struct rpc_req *rq = c->req;
	size_t at = xdr_enc_len(&rq->enc);
	enum nfsstat4 st;
	uint8_t *p;

	if (c->seq.reply_len < 8 || rpc_req_reply_reserve(rq, at + c->seq.reply_len) < 0 ||
	    !(p = xdr_enc_reserve(&rq->enc, c->seq.reply_len)))
		return NFS4ERR_RESOURCE;
	memcpy(p, c->seq.reply, c->seq.reply_len);
	st = (enum nfsstat4)((uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 |
			     (uint32_t)p[6] << 8 | p[7]);
	c->encoded = true;
	return st;
}

/* ---- OPEN ---- */

struct open_job {
	const struct OPEN4args *a;
	clientid4 cid;
	uint32_t access, deny;
	struct export_obj file;     /* the file opened, resolved */
	bool have_file;
	bool created;
	bool truncate;
	struct nfsx_fh fh;
};

/* The verifier as two times in seconds, 31 bits each (knfsd's and NFSv3's). */
static void verf_times(const verifier4 *v, struct vfs_sattr *sa)
{
	const uint8_t *b = v->val;

	sa->mtime.tv_sec = (time_t)(((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
				     (uint32_t)b[2] << 8 | b[3]) & 0x7fffffffu);
	sa->atime.tv_sec = (time_t)(((uint32_t)b[4] << 24 | (uint32_t)b[5] << 16 |
				     (uint32_t)b[6] << 8 | b[7]) & 0x7fffffffu);
	sa->mtime.tv_nsec = sa->atime.tv_nsec = 0;
}

static bool is_exclusive(enum createmode4 m)
{
	return m == EXCLUSIVE4 || m == EXCLUSIVE4_1;
}

/* The file system's part of a create in the current directory: @obj is
 * the file (made or found). */
static enum nfsstat4 create_in(struct nfs4_compound *c, struct open_job *j, const char *name,
			       struct vfs_obj *obj)
{
	const struct createhow4 *how = &j->a->openhow.u.how;
	const struct export_obj *d = &c->cur.o;
	const struct vfs_ops *ops = d->vexp->ops;
	struct vfs_sattr sa = { 0 }, ex = { 0 };
	const struct fattr4 *attrs = NULL;
	enum nfsstat4 st;
	struct stat st_;
	int e, tries;

	memset(c->attrset, 0, sizeof(c->attrset));
	if (how->mode == UNCHECKED4 || how->mode == GUARDED4)
		attrs = &how->u.createattrs;
	else if (how->mode == EXCLUSIVE4_1)
		attrs = &how->u.ch_createboth.cva_attrs;
	else if (how->mode != EXCLUSIVE4)
		return NFS4ERR_INVAL;
	if (how->mode == EXCLUSIVE4_1 && c->minorversion == 0)
		return NFS4ERR_INVAL;
	if (attrs) {
		st = nfs4_attr_decode_set(attrs, c->minorversion, NULL, &sa, c->attrset);
		if (st != NFS4_OK)
			return st;
		/* the verifier lives in the times (RFC 8881 18.16.3) */
		if (how->mode == EXCLUSIVE4_1 && (sa.mask & (VFS_SET_ATIME | VFS_SET_MTIME)))
			return NFS4ERR_INVAL;
	}
	if (is_exclusive(how->mode)) {
		verf_times(how->mode == EXCLUSIVE4 ? &how->u.createverf :
			   &how->u.ch_createboth.cva_verf, &ex);
		ex.mask = VFS_SET_ATIME | VFS_SET_MTIME;
	}
	if (!d->client->opts.rw)
		return NFS4ERR_ROFS;
	for (tries = 0; tries < 3; tries++) {
		e = ops->lookup(d->vexp, &d->obj, name, obj);
		if (e == 0)
			break;
		if (e != -ENOENT)
			return nfs4_errno(e);
		e = ops->create(d->vexp, &d->obj, name, sa.mask & VFS_SET_MODE ? sa.mode : 0, obj);
		if (e == 0) {
			j->created = true;
			vfs_dir_changed();
			break;
		}
		if (e != -EEXIST || how->mode == GUARDED4)
			return nfs4_errno(e);
	}
	if (tries == 3)
		return NFS4ERR_EXIST;
	if (ops->getattr(d->vexp, obj, &st_) < 0)
		return NFS4ERR_IO;
	if (!j->created) {
		memset(c->attrset, 0, sizeof(c->attrset));
		if (how->mode == GUARDED4)
			return NFS4ERR_EXIST;
		if (is_exclusive(how->mode)) {
			/* the same create again, or somebody else's file */
			if (!S_ISREG(st_.st_mode) || st_.st_mtim.tv_sec != ex.mtime.tv_sec ||
			    st_.st_atim.tv_sec != ex.atime.tv_sec)
				return NFS4ERR_EXIST;
			goto exclusive_bits;
		}
		/* UNCHECKED on an existing file: only a size of 0 (a
		 * truncation), any other attribute ignored (knfsd) */
		if ((sa.mask & VFS_SET_SIZE) && sa.size == 0 && S_ISREG(st_.st_mode)) {
			j->truncate = true;
			c->attrset[0] |= 1u << FATTR4_SIZE;
		}
		return NFS4_OK;
	}
	/* the mode went in with the create; owners only for root (as CREATE) */
	sa.mask &= ~(uint32_t)VFS_SET_MODE;
	if (d->cred.uid != 0) {
		sa.mask &= ~(uint32_t)(VFS_SET_UID | VFS_SET_GID);
		c->attrset[1] &= ~(1u << (FATTR4_OWNER - 32) | 1u << (FATTR4_OWNER_GROUP - 32));
	}
	/* a new file is empty: a size of 0 is already so */
	if ((sa.mask & VFS_SET_SIZE) && sa.size == 0)
		sa.mask &= ~(uint32_t)VFS_SET_SIZE;
	if (is_exclusive(how->mode)) {
		sa.mask |= ex.mask;
		sa.atime = ex.atime;
		sa.mtime = ex.mtime;
	}
	if (sa.mask) {
		e = ops->setattr(d->vexp, obj, &st_, &sa, &d->cred);
		if (e < 0)
			return nfs4_errno(e);
	}
	if (!is_exclusive(how->mode))
		return NFS4_OK;
exclusive_bits:
	/* the times hold the verifier: named in attrset (RFC 7530 16.16.5,
	 * knfsd's do_open_lookup) */
	c->attrset[1] |= 1u << (FATTR4_TIME_ACCESS - 32) | 1u << (FATTR4_TIME_MODIFY - 32);
	return NFS4_OK;
}

/* The file of the OPEN, by claim: resolved into j->file. */
static enum nfsstat4 open_target(struct nfs4_compound *c, struct open_job *j)
{
	const struct OPEN4args *a = j->a;
	bool create = a->openhow.opentype == OPEN4_CREATE;
	char name[NAME_MAX + 1];
	struct vfs_obj obj = VFS_OBJ_NONE;
	const struct export_obj *d;
	enum nfsstat4 st;
	int e;

	const component4 *file = &a->claim.u.file;

	switch (a->claim.claim) {
	case CLAIM_NULL:
		break;
	case CLAIM_DELEGATE_CUR:
		file = &a->claim.u.delegate_cur_info.file;
		break;
	case CLAIM_FH:
	case CLAIM_DELEG_CUR_FH:
		/* not in minor version 0's XDR (knfsd's decoder refuses it) */
		if (c->minorversion == 0)
			return NFS4ERR_BADXDR;
		if (create)
			return NFS4ERR_INVAL;
		if (c->cur.kind != NFS4_FH_OBJ)
			return c->cur.kind == NFS4_FH_NONE ? NFS4ERR_NOFILEHANDLE : NFS4ERR_ISDIR;
		export_obj_dup(&j->file, &c->cur.o);
		j->have_file = true;
		return NFS4_OK;
	case CLAIM_PREVIOUS:
		/* a reclaim after a restart: the file is the current one */
		st = nfs4_may_reclaim(j->cid);
		if (st != NFS4_OK)
			return st;
		if (c->cur.kind != NFS4_FH_OBJ)
			return c->cur.kind == NFS4_FH_NONE ? NFS4ERR_NOFILEHANDLE : NFS4ERR_ISDIR;
		export_obj_dup(&j->file, &c->cur.o);
		j->have_file = true;
		return NFS4_OK;
	case CLAIM_DELEG_PREV_FH:
		if (c->minorversion == 0)
			return NFS4ERR_BADXDR;
		/* fall through */
	case CLAIM_DELEGATE_PREV:
		return NFS4ERR_NOTSUPP;   /* delegations do not outlive a client's restart */
	default:
		return NFS4ERR_INVAL;
	}
	if (c->cur.kind == NFS4_FH_NONE)
		return NFS4ERR_NOFILEHANDLE;
	if (c->cur.kind == NFS4_FH_PSEUDO) {
		/* only directories there: an existing name is one */
		uint32_t i;

		st = nfs4_name_of(file, name);
		if (st != NFS4_OK)
			return st;
		if (create)
			return NFS4ERR_ROFS;
		i = export_pseudo_lookup(&c->snap->pseudo, c->cur.node, name,
					 (uint32_t)strlen(name));
		return i == PSEUDO_NONE ? NFS4ERR_NOENT : NFS4ERR_ISDIR;
	}
	d = &c->cur.o;
	if (!d->have_st)
		return NFS4ERR_IO;
	if (!S_ISDIR(d->st.st_mode))
		return S_ISLNK(d->st.st_mode) ? NFS4ERR_SYMLINK : NFS4ERR_NOTDIR;
	st = nfs4_name_of(file, name);
	if (st != NFS4_OK)
		return st;
	if (create) {
		st = create_in(c, j, name, &obj);
	} else {
		e = d->vexp->ops->lookup(d->vexp, &d->obj, name, &obj);
		st = e < 0 ? nfs4_errno(e) : NFS4_OK;
	}
	if (st == NFS4_OK) {
		e = d->vexp->ops->handle(export_fh_key, d->vexp, &obj, &j->fh);
		if (e == 0)
			e = export_resolve(c->req, j->fh.data, j->fh.len, false, &j->file);
		st = e < 0 ? nfs4_errno(e) : NFS4_OK;
		j->have_file = e == 0;
	}
	if (vfs_obj_ok(&obj))
		d->vexp->ops->release(&obj);
	return st;
}

/* The opened object must be a regular file the caller may open so. */
static enum nfsstat4 open_check(struct nfs4_compound *c, struct open_job *j)
{
	struct export_obj *o = &j->file;
	const struct stat *s = &o->st;
	int e;

	if (!o->have_st)
		return NFS4ERR_IO;
	if (!S_ISREG(s->st_mode)) {
		if (S_ISDIR(s->st_mode))
			return NFS4ERR_ISDIR;
		if (S_ISLNK(s->st_mode))
			return NFS4ERR_SYMLINK;
		/* RFC 7530 16.16.5: SYMLINK for anything else; RFC 8881
		 * 18.16.3: WRONG_TYPE */
		return c->minorversion ? NFS4ERR_WRONG_TYPE : NFS4ERR_SYMLINK;
	}
	if ((j->access & OPEN4_SHARE_ACCESS_WRITE) && !o->client->opts.rw)
		return NFS4ERR_ROFS;
	if (j->truncate && !(j->access & OPEN4_SHARE_ACCESS_WRITE))
		return NFS4ERR_INVAL;
	if (j->created || o->cred.uid == 0 || s->st_uid == o->cred.uid)
		return NFS4_OK;
	if ((j->access & OPEN4_SHARE_ACCESS_READ) &&
	    (e = o->vexp->ops->access(o->vexp, &o->obj, R_OK)) < 0)
		return nfs4_errno(e);
	if ((j->access & OPEN4_SHARE_ACCESS_WRITE) &&
	    (e = o->vexp->ops->access(o->vexp, &o->obj, W_OK)) < 0)
		return nfs4_errno(e);
	return NFS4_OK;
}

static enum nfsstat4 open_truncate(struct open_job *j)
{
	struct export_obj *o = &j->file;
	struct vfs_sattr sa = { .mask = VFS_SET_SIZE, .size = 0 };
	int e;

	if (!j->truncate || o->st.st_size == 0)
		return NFS4_OK;
	e = o->vexp->ops->setattr(o->vexp, &o->obj, &o->st, &sa, &o->cred);
	if (e < 0)
		return nfs4_errno(e);
	o->st.st_size = 0;
	vfs_dir_changed();
	return NFS4_OK;
}

enum nfsstat4 nfs4_open(struct nfs4_compound *c, const struct nfs_argop4 *a,
			struct nfs_resop4 *r)
{
	const struct OPEN4args *oa = &a->u.opopen;
	struct OPEN4res *res = &r->u.opopen;
	struct OPEN4resok *ok = &res->u.resok4;
	struct open_job j = { .a = oa };
	struct nfs4_file_id fid;
	uint64_t before = 0;
	enum nfsstat4 st;
	clientid4 cid;
	bool confirm = false;

	j.access = oa->share_access & ~(uint32_t)(OPEN4_SHARE_ACCESS_WANT_DELEG_MASK |
						  OPEN4_SHARE_ACCESS_WANT_SIGNAL_DELEG_WHEN_RESRC_AVAIL |
						  OPEN4_SHARE_ACCESS_WANT_PUSH_DELEG_WHEN_UNCONTENDED);
	if (c->minorversion == 0)
		j.access = oa->share_access;
	j.deny = oa->share_deny;
	if (j.access == 0 || j.access > OPEN4_SHARE_ACCESS_BOTH ||
	    j.deny > OPEN4_SHARE_DENY_BOTH)
		return res->status = NFS4ERR_INVAL;
	if (c->cur.kind == NFS4_FH_NONE)
		return res->status = NFS4ERR_NOFILEHANDLE;
	st = client_of(c, oa->owner.clientid, &cid);
	if (st != NFS4_OK)
		return res->status = st;
	st = nfs4_state_open_begin(nfs4_states, cid, oa->owner.owner.data, oa->owner.owner.len,
				   oa->seqid, c->minorversion == 0, &c->seq);
	if (st != NFS4_OK)
		return res->status = st;
	if (c->seq.replay) {
		struct export_obj o;
		int e;

		st = nfs4_replay(c);
		if (c->seq.fh_len) {
			e = export_resolve(c->req, c->seq.fh, c->seq.fh_len, false, &o);
			if (e == 0) {
				nfs4_fh_clear(&c->cur);
				c->cur.kind = NFS4_FH_OBJ;
				c->cur.o = o;
			}
		}
		return res->status = st;
	}
	j.cid = cid;
	/* no new state during grace, nor (4.1) before the client said it
	 * has reclaimed what it will (knfsd's nfsd4_open) */
	if (oa->claim.claim != CLAIM_PREVIOUS &&
	    (nfs4_in_grace() || (c->minorversion > 0 && !nfs4_client_reclaim_done(cid))))
		return res->status = NFS4ERR_GRACE;
	/* the flavour, which OPEN checks itself (sec.c) */
	st = nfs4_sec_check(c, &c->cur);
	if (st != NFS4_OK)
		return res->status = st;
	if (c->cur.kind == NFS4_FH_OBJ && oa->claim.claim == CLAIM_NULL)
		before = nfs4_change_of(&c->cur.o);
	st = open_target(c, &j);
	if (st == NFS4_OK)
		st = open_check(c, &j);
	if (st == NFS4_OK)
		nfs4_file_id_of(&j.file, &fid);
	if (st == NFS4_OK && (oa->claim.claim == CLAIM_DELEGATE_CUR ||
			      oa->claim.claim == CLAIM_DELEG_CUR_FH))
		st = nfs4_state_deleg_check(nfs4_states, cid,
					    oa->claim.claim == CLAIM_DELEGATE_CUR ?
					    &oa->claim.u.delegate_cur_info.delegate_stateid :
					    &oa->claim.u.oc_delegate_stateid, &fid,
					    c->minorversion == 0);
	/* what a read delegation of another client cannot stay with; a
	 * write one, with no open of another client at all */
	if (st == NFS4_OK && !j.created) {
		if ((j.access & OPEN4_SHARE_ACCESS_WRITE) || (j.deny & OPEN4_SHARE_DENY_READ) ||
		    j.truncate) {
			vfs_change_mark(&c->changes, fid.dev, fid.ino);
			st = nfs4_deleg_break(&fid, cid);
		}
		else
			st = nfs4_deleg_break_read(&fid, cid);
	}
	if (st == NFS4_OK)
		c->named = cid;
	if (st == NFS4_OK)
		st = open_truncate(&j);
	if (st == NFS4_OK) {
		if (j.created)
			nfs4_state_forget_file(nfs4_states, &fid);
		st = nfs4_state_open(nfs4_states, &c->seq, &fid, j.access, j.deny,
				     oa->claim.claim == CLAIM_PREVIOUS, &ok->stateid, &confirm);
	}
	if (st != NFS4_OK) {
		if (j.have_file)
			export_release(&j.file);
		return res->status = st;
	}
	pin_file(&fid, j.file.node);
	ok->cinfo.atomic = false;
	ok->cinfo.before = before;
	ok->cinfo.after = oa->claim.claim == CLAIM_NULL ? nfs4_change_of(&c->cur.o) : 0;
	if (!j.created)
		ok->cinfo.after = ok->cinfo.before;
	ok->rflags = OPEN4_RESULT_LOCKTYPE_POSIX | (confirm ? OPEN4_RESULT_CONFIRM : 0u);
	ok->attrset.len = oa->openhow.opentype == OPEN4_CREATE ? NFS4_ATTR_WORDS : 0;
	ok->attrset.val = c->attrset;
	/* the file becomes current, and is kept for a replay */
	if (!j.fh.len) {
		int e = j.file.vexp->ops->handle(export_fh_key, j.file.vexp, &j.file.obj, &j.fh);

		if (e < 0)
			j.fh.len = 0;
	}
	/* this OPEN's own change (a truncation) is made: its mark must not
	 * keep its own delegation away */
	vfs_change_end(&c->changes);
	nfs4_deleg_offer(c, oa, cid, j.access, &fid, &j.fh, &ok->delegation);
	if (j.fh.len <= sizeof(c->seq.fh)) {
		memcpy(c->seq.fh, j.fh.data, j.fh.len);
		c->seq.fh_len = j.fh.len;
	}
	nfs4_fh_clear(&c->cur);
	c->cur.kind = NFS4_FH_OBJ;
	c->cur.o = j.file;
	nfs4_set_sid(c, &ok->stateid);
	return res->status = NFS4_OK;
}

/* ---- DELEGRETURN ---- */

static enum nfsstat4 state_file(const struct nfs4_compound *c, struct nfs4_file_id *f);

/* The delegation of the current file goes; 4.1's must be the session's
 * client's, 4.0's names its client (whose lease it renews). */
enum nfsstat4 nfs4_delegreturn(struct nfs4_compound *c, const struct nfs_argop4 *a,
			       struct nfs_resop4 *r)
{
	const struct stateid4 *sid = nfs4_sid(c, &a->u.opdelegreturn.deleg_stateid);
	struct nfs4_file_id f;
	enum nfsstat4 st;

	if (c->minorversion > 0 && !c->sequenced)
		return r->u.opdelegreturn.status = NFS4ERR_OP_NOT_IN_SESSION;
	st = state_file(c, &f);
	if (st == NFS4_OK)
		st = nfs4_state_delegreturn(nfs4_states, c->minorversion ? c->clientid : 0, sid, &f,
					    c->minorversion == 0);
	return r->u.opdelegreturn.status = st;
}

/* ---- TEST_STATEID, FREE_STATEID (4.1) ---- */

enum nfsstat4 nfs4_test_stateid(struct nfs4_compound *c, const struct nfs_argop4 *a,
				struct nfs_resop4 *r)
{
	const struct TEST_STATEID4args *ta = &a->u.optest_stateid;
	struct TEST_STATEID4res *res = &r->u.optest_stateid;
	enum nfsstat4 *codes;
	uint32_t i;

	if (!c->sequenced)
		return res->tsr_status = NFS4ERR_OP_NOT_IN_SESSION;
	/* bounded by the request: its stateids came from the arena too */
	codes = xdr_arena_array(&c->req->arena, ta->ts_stateids.len ? ta->ts_stateids.len : 1,
				sizeof(*codes));
	if (!codes)
		return res->tsr_status = NFS4ERR_RESOURCE;
	for (i = 0; i < ta->ts_stateids.len; i++)
		codes[i] = nfs4_state_test(nfs4_states, c->clientid, &ta->ts_stateids.val[i]);
	res->u.tsr_resok4.tsr_status_codes.len = ta->ts_stateids.len;
	res->u.tsr_resok4.tsr_status_codes.val = codes;
	return res->tsr_status = NFS4_OK;
}

enum nfsstat4 nfs4_free_stateid(struct nfs4_compound *c, const struct nfs_argop4 *a,
				struct nfs_resop4 *r)
{
	if (!c->sequenced)
		return r->u.opfree_stateid.fsr_status = NFS4ERR_OP_NOT_IN_SESSION;
	return r->u.opfree_stateid.fsr_status =
		nfs4_state_free_stateid(nfs4_states, c->clientid,
					nfs4_sid(c, &a->u.opfree_stateid.fsa_stateid));
}

/* ---- OPEN_CONFIRM, OPEN_DOWNGRADE, CLOSE ---- */

/* The current filehandle as a file with state, and its id. */
static enum nfsstat4 state_file(const struct nfs4_compound *c, struct nfs4_file_id *f)
{
	if (c->cur.kind == NFS4_FH_NONE)
		return NFS4ERR_NOFILEHANDLE;
	if (c->cur.kind == NFS4_FH_PSEUDO)
		return NFS4ERR_ISDIR;
	if (!c->cur.o.have_st)
		return NFS4ERR_IO;
	if (S_ISDIR(c->cur.o.st.st_mode))
		return NFS4ERR_ISDIR;
	nfs4_file_id_of(&c->cur.o, f);
	return NFS4_OK;
}

/* The common start: the file, the stateid, the seqid (or a replay, *@done). */
static enum nfsstat4 seqid_op(struct nfs4_compound *c, const struct stateid4 *sid, uint32_t seqid,
			      bool confirming, bool *done)
{
	struct nfs4_file_id f;
	enum nfsstat4 st;

	*done = false;
	st = state_file(c, &f);
	if (st != NFS4_OK)
		return st;
	st = nfs4_state_seqid_begin(nfs4_states, sid, &f, seqid, c->minorversion == 0,
				    confirming, &c->seq);
	if (st == NFS4_OK && c->seq.replay) {
		*done = true;
		return nfs4_replay(c);
	}
	return st;
}

enum nfsstat4 nfs4_open_confirm(struct nfs4_compound *c, const struct nfs_argop4 *a,
				struct nfs_resop4 *r)
{
	const struct OPEN_CONFIRM4args *oa = &a->u.opopen_confirm;
	struct OPEN_CONFIRM4res *res = &r->u.opopen_confirm;
	enum nfsstat4 st;
	bool done;

	st = seqid_op(c, &oa->open_stateid, oa->seqid, true, &done);
	if (st != NFS4_OK || done)
		return res->status = st;
	return res->status = nfs4_state_confirm(nfs4_states, &oa->open_stateid,
						&res->u.resok4.open_stateid);
}

enum nfsstat4 nfs4_open_downgrade(struct nfs4_compound *c, const struct nfs_argop4 *a,
				  struct nfs_resop4 *r)
{
	const struct OPEN_DOWNGRADE4args *oa = &a->u.opopen_downgrade;
	struct OPEN_DOWNGRADE4res *res = &r->u.opopen_downgrade;
	uint32_t access = oa->share_access;
	enum nfsstat4 st;
	bool done;

	const struct stateid4 *sid = nfs4_sid(c, &oa->open_stateid);

	st = seqid_op(c, sid, oa->seqid, false, &done);
	if (st != NFS4_OK || done)
		return res->status = st;
	if (c->minorversion > 0)
		access &= ~(uint32_t)OPEN4_SHARE_ACCESS_WANT_DELEG_MASK;
	st = nfs4_state_downgrade(nfs4_states, sid, access, oa->share_deny,
				  &res->u.resok4.open_stateid);
	if (st == NFS4_OK)
		nfs4_set_sid(c, &res->u.resok4.open_stateid);
	return res->status = st;
}

enum nfsstat4 nfs4_close(struct nfs4_compound *c, const struct nfs_argop4 *a,
			 struct nfs_resop4 *r)
{
	const struct CLOSE4args *ca = &a->u.opclose;
	struct CLOSE4res *res = &r->u.opclose;
	enum nfsstat4 st;
	bool done;

	const struct stateid4 *sid = nfs4_sid(c, &ca->open_stateid);

	st = seqid_op(c, sid, ca->seqid, false, &done);
	if (st != NFS4_OK || done)
		return res->status = st;
	st = nfs4_state_close(nfs4_states, sid, c->minorversion == 0, &res->u.open_stateid);
	/* RFC 8881 18.2.4: 4.1 clients get the invalid special stateid */
	if (st == NFS4_OK && c->minorversion > 0) {
		memset(&res->u.open_stateid, 0, sizeof(res->u.open_stateid));
		res->u.open_stateid.seqid = 0xffffffffu;
	}
	return res->status = st;
}
