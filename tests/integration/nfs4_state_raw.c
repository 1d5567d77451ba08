/* SPDX-License-Identifier: MIT */
/*
 * Open state on the wire for the NFSv4.0 state tests (nfs4_state_raw.h).
 */
#include <stdio.h>
#include <string.h>

#include "nfs4_state_raw.h"

char *v4_path(const char *base, const char *rel)
{
	static char b[8][1024];
	static int i;

	i = (i + 1) % 8;
	snprintf(b[i], sizeof(b[i]), "%s/%s", base, rel);
	return b[i];
}

/*
 * The test's own copy of RFC 7530 9.1.7's list, on purpose: were it
 * shared with the server's, a wrong entry would count alike on both
 * sides and no test would see it.
 */
bool v4_seqid_counted(long st)
{
	switch (st) {
	case NFS4ERR_STALE_CLIENTID:
	case NFS4ERR_STALE_STATEID:
	case NFS4ERR_BAD_STATEID:
	case NFS4ERR_BAD_SEQID:
	case NFS4ERR_BADXDR:
	case NFS4ERR_RESOURCE:
	case NFS4ERR_NOFILEHANDLE:
	case NFS4ERR_MOVED:
		return false;
	default:
		return st >= 0;
	}
}

static void count(struct v4_owner *o, long st)
{
	if (v4_seqid_counted(st))
		o->seqid++;
}

long v4_call_flavor(int fd, uint32_t flavor, uint32_t uid, const struct nfs_argop4 *ops,
		    uint32_t n, struct v4_res *s)
{
	uint32_t was = v4_flavor;
	long st = -1;

	v4_flavor = flavor;
	if (v4_compound(fd, uid, uid, "t", 1, 0, ops, n, s))
		st = s->status;
	else
		v4_diag(s);
	v4_flavor = was;
	return st;
}

long v4_call_as(int fd, uint32_t uid, const struct nfs_argop4 *ops, uint32_t n,
		struct v4_res *s)
{
	return v4_call_flavor(fd, AUTH_SYS, uid, ops, n, s);
}

long v4_walk_flavor(int fd, uint32_t flavor, const char *path, struct v4_fh *fh)
{
	uint32_t was = v4_flavor;
	long st;

	v4_flavor = flavor;
	st = v4_walk(fd, path, fh);
	v4_flavor = was;
	return st;
}

long v4_on_fh(int fd, uint32_t uid, const struct v4_fh *fh, const struct nfs_argop4 *op,
	      struct v4_res *s)
{
	struct nfs_argop4 ops[2];

	v4op_putfh(&ops[0], fh);
	ops[1] = *op;
	if (v4_call_as(fd, uid, ops, 2, s) < 0)
		return -1;
	return s->nops == 2 ? v4_op_status(s, 1) : (long)s->status;
}

long v4_open_in(int fd, struct v4_owner *o, uint32_t uid, const struct v4_fh *dir,
		const struct nfs_argop4 *op, struct v4_opened *r)
{
	struct nfs_argop4 ops[3];
	struct v4_res s;
	uint32_t i;

	memset(r, 0, sizeof(*r));
	r->st = -1;
	v4op_putfh(&ops[0], dir);
	ops[1] = *op;
	v4op_simple(&ops[2], OP_GETFH);
	v4_res_init(&s);
	if (v4_call_as(fd, uid, ops, 3, &s) >= 0 && s.nops >= 2 && s.ops[1].resop == OP_OPEN) {
		r->st = v4_op_status(&s, 1);
		if (r->st == NFS4_OK) {
			const struct OPEN4resok *k = &s.ops[1].u.opopen.u.resok4;

			r->sid = k->stateid;
			r->rflags = k->rflags;
			for (i = 0; i < k->attrset.len && i < 3; i++)
				r->attrset[i] = k->attrset.val[i];
			v4_fh_of_res(&s, 2, &r->fh);
		}
	}
	v4_res_free(&s);
	count(o, r->st);
	return r->st;
}

long v4_seq_op(int fd, struct v4_owner *o, const struct v4_fh *fh, const struct nfs_argop4 *op,
	       struct stateid4 *out)
{
	struct nfs_argop4 ops[2];
	struct v4_res s;
	long st = -1;

	v4op_putfh(&ops[0], fh);
	ops[1] = *op;
	v4_res_init(&s);
	if (v4_call_as(fd, 0, ops, 2, &s) >= 0 && s.nops == 2) {
		st = v4_op_status(&s, 1);
		if (st == NFS4_OK && out) {
			if (op->argop == OP_OPEN_CONFIRM)
				*out = s.ops[1].u.opopen_confirm.u.resok4.open_stateid;
			else if (op->argop == OP_OPEN_DOWNGRADE)
				*out = s.ops[1].u.opopen_downgrade.u.resok4.open_stateid;
			else if (op->argop == OP_CLOSE)
				*out = s.ops[1].u.opclose.u.open_stateid;
		}
	}
	v4_res_free(&s);
	count(o, st);
	return st;
}

long v4_confirm(int fd, struct v4_owner *o, struct v4_opened *r)
{
	struct nfs_argop4 op;

	v4op_open_confirm(&op, &r->sid, o->seqid);
	return v4_seq_op(fd, o, &r->fh, &op, &r->sid);
}

long v4_open_conf(int fd, struct v4_owner *o, uint32_t uid, const struct v4_fh *dir,
		  const struct nfs_argop4 *op, struct v4_opened *r)
{
	long st = v4_open_in(fd, o, uid, dir, op, r);

	if (st == NFS4_OK && (r->rflags & OPEN4_RESULT_CONFIRM))
		st = v4_confirm(fd, o, r);
	return st;
}

long v4_close(int fd, struct v4_owner *o, const struct v4_opened *r)
{
	struct nfs_argop4 op;

	v4op_close(&op, o->seqid, &r->sid);
	return v4_seq_op(fd, o, &r->fh, &op, NULL);
}

long v4_read_str(int fd, const struct v4_fh *fh, const struct stateid4 *sid, uint64_t off,
		 uint32_t count, char *buf, size_t cap)
{
	struct nfs_argop4 op;
	struct v4_res s;
	long st;

	buf[0] = 0;
	v4op_read(&op, sid, off, count);
	v4_res_init(&s);
	st = v4_on_fh(fd, 0, fh, &op, &s);
	if (st == NFS4_OK) {
		const struct READ4resok *k = &s.ops[1].u.opread.u.resok4;
		size_t n = k->data.len < cap - 1 ? k->data.len : cap - 1;

		memcpy(buf, k->data.data, n);
		buf[n] = 0;
	}
	v4_res_free(&s);
	return st;
}

long v4_renew(int fd, clientid4 cid)
{
	struct nfs_argop4 op;
	struct v4_res s;
	long st;

	v4op_renew(&op, cid);
	v4_res_init(&s);
	st = v4_call_as(fd, 0, &op, 1, &s) >= 0 && s.nops == 1 ? v4_op_status(&s, 0) : -1;
	v4_res_free(&s);
	return st;
}

long v4_open_name(int fd, struct v4_owner *o, const struct v4_fh *dir, const char *name,
		  uint32_t access, uint32_t deny, struct v4_opened *r)
{
	struct nfs_argop4 op;

	v4op_open(&op, o->seqid, access, deny, o->cid, o->name, name);
	return v4_open_conf(fd, o, 0, dir, &op, r);
}

long v4_lock_call(int fd, const struct v4_fh *fh, const struct nfs_argop4 *op,
		  struct v4_lk *r, struct v4_res *s)
{
	const struct LOCK4denied *d = NULL;
	struct nfs_argop4 ops[2];

	memset(r, 0, sizeof(*r));
	r->st = -1;
	v4op_putfh(&ops[0], fh);
	ops[1] = *op;
	if (v4_call_as(fd, 0, ops, 2, s) < 0 || s->nops != 2)
		return r->st;
	r->st = v4_op_status(s, 1);
	if (op->argop == OP_LOCK && r->st == NFS4_OK)
		r->sid = s->ops[1].u.oplock.u.resok4.lock_stateid;
	else if (op->argop == OP_LOCK && r->st == NFS4ERR_DENIED)
		d = &s->ops[1].u.oplock.u.denied;
	else if (op->argop == OP_LOCKT && r->st == NFS4ERR_DENIED)
		d = &s->ops[1].u.oplockt.u.denied;
	else if (op->argop == OP_LOCKU && r->st == NFS4_OK)
		r->sid = s->ops[1].u.oplocku.u.lock_stateid;
	if (d) {
		/* the owner's bytes copied out of the reply, which the
		 * caller may free; one longer than the limit is cut */
		r->den = *d;
		if (r->den.owner.owner.len > sizeof(r->downer))
			r->den.owner.owner.len = sizeof(r->downer);
		memcpy(r->downer, d->owner.owner.data, r->den.owner.owner.len);
		r->den.owner.owner.data = r->downer;
	}
	return r->st;
}

/* v4_lock_call() with the reply freed at once. */
static long lock_call_free(int fd, const struct v4_fh *fh, const struct nfs_argop4 *op,
			   struct v4_lk *r)
{
	struct v4_res s;
	long st;

	v4_res_init(&s);
	st = v4_lock_call(fd, fh, op, r, &s);
	v4_res_free(&s);
	return st;
}

long v4_lowner_call(int fd, struct v4_lowner *lo, const struct v4_fh *fh,
		    const struct nfs_argop4 *a, struct v4_lk *r)
{
	long st = lock_call_free(fd, fh, a, r);

	if (v4_seqid_counted(st))
		lo->seqid++;
	if (st == NFS4_OK)
		lo->sid = r->sid;
	return st;
}

long v4_lock_new(int fd, struct v4_owner *o, const struct v4_opened *op, struct v4_lowner *lo,
		 enum nfs_lock_type4 type, uint64_t off, uint64_t len, struct v4_lk *r)
{
	struct nfs_argop4 a;
	long st;

	v4op_lock_new(&a, type, false, off, len, o->seqid, &op->sid, lo->seqid, lo->cid,
		      lo->name);
	st = lock_call_free(fd, &op->fh, &a, r);
	if (v4_seqid_counted(st)) {
		o->seqid++;
		lo->seqid++;
	}
	if (st == NFS4_OK) {
		lo->have = true;
		lo->sid = r->sid;
	}
	return st;
}

long v4_lock_ex(int fd, struct v4_lowner *lo, const struct v4_fh *fh, enum nfs_lock_type4 type,
		uint64_t off, uint64_t len, struct v4_lk *r)
{
	struct nfs_argop4 a;

	v4op_lock(&a, type, false, off, len, &lo->sid, lo->seqid);
	return v4_lowner_call(fd, lo, fh, &a, r);
}

long v4_unlock(int fd, struct v4_lowner *lo, const struct v4_fh *fh, enum nfs_lock_type4 type,
	       uint64_t off, uint64_t len, struct v4_lk *r)
{
	struct nfs_argop4 a;
	struct v4_lk ignored;

	v4op_locku(&a, type, lo->seqid, &lo->sid, off, len);
	return v4_lowner_call(fd, lo, fh, &a, r ? r : &ignored);
}

long v4_lockt(int fd, const struct v4_fh *fh, clientid4 cid, const char *owner,
	      enum nfs_lock_type4 type, uint64_t off, uint64_t len, struct v4_lk *r)
{
	struct nfs_argop4 a;

	v4op_lockt(&a, type, off, len, cid, owner);
	return lock_call_free(fd, fh, &a, r);
}

long v4_release(int fd, clientid4 cid, const char *owner)
{
	struct nfs_argop4 a;
	struct v4_res s;
	long st;

	v4op_release_lockowner(&a, cid, owner);
	v4_res_init(&s);
	st = v4_call_as(fd, 0, &a, 1, &s) >= 0 && s.nops == 1 ? v4_op_status(&s, 0) : -1;
	v4_res_free(&s);
	return st;
}
