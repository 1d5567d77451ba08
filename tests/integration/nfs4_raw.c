/* SPDX-License-Identifier: MIT */
/* Raw NFSv4 COMPOUND calls for the wire-level tests: see nfs4_raw.h. */
#include "nfs4_raw.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xdr/nfs4_compound.h"

#define NFSPROC4_COMPOUND_NUM 1

int v4_timeout_ms = 10000;
uint32_t v4_flavor = AUTH_SYS;

void v4_res_init(struct v4_res *s)
{
	memset(s, 0, sizeof(*s));
	rpc_buf_init(&s->store);
}

void v4_res_free(struct v4_res *s)
{
	rpc_buf_free(&s->store);
	free(s->arena.base);
	memset(s, 0, sizeof(*s));
	rpc_buf_init(&s->store);
}

/* The reply's results: head, then every nfs_resop4 into an array taken
 * from an arena sized by the reply (a result never decodes to more than
 * a few times its wire size), and nothing left over. */
static bool decode_reply(struct v4_res *s)
{
	struct nfs4_res_head h;
	struct xdr_dec d;
	size_t cap;
	uint32_t i;

	if (s->rc != 1 || s->r.reply_stat != RPC_MSG_ACCEPTED ||
	    s->r.accept_stat != RPC_SUCCESS)
		return false;
	/* at most one result per 4 bytes, each a struct nfs_resop4 */
	cap = 4096 + s->r.body_len * 16 + s->r.body_len / 4 * sizeof(struct nfs_resop4);
	s->arena.base = NULL;
	xdr_arena_init(&s->arena, calloc(1, cap), cap);
	if (!s->arena.base)
		return false;
	xdr_dec_init(&d, s->r.body, s->r.body_len, &s->arena);
	if (!nfs4_dec_compound_res_head(&d, &h))
		return false;
	s->status = h.status;
	s->tag = h.tag;
	s->ops = xdr_arena_array(&s->arena, h.nops ? h.nops : 1, sizeof(*s->ops));
	if (!s->ops)
		return false;
	for (i = 0; i < h.nops; i++) {
		if (!xdr_dec_nfs_resop4(&d, &s->ops[i]))
			return false;
		s->nops = i + 1;
	}
	s->xdr_ok = xdr_dec_left(&d) == 0;
	return s->xdr_ok;
}

static bool send_args_xid(int fd, uint32_t xid, uint32_t uid, uint32_t gid,
			  const struct rpc_buf *args, struct v4_res *out)
{
	struct rpc_buf cred;
	struct rpc_call c;

	v4_res_free(out);
	rpc_buf_init(&cred);
	rpc_call_init(&c, xid, PROG_NFS, 4, NFSPROC4_COMPOUND_NUM);
	if (v4_flavor == AUTH_SYS) {
		rpc_authsys_encode(&cred, 0, "nfsx-test", uid, gid, &gid, 1);
		c.cred_flavor = AUTH_SYS;
		c.cred_body = cred.data;
		c.cred_len = cred.len;
	}
	c.args = args->data;
	c.args_len = args->len;
	out->rc = rpc_call_simple(fd, &c, &out->r, &out->store, v4_timeout_ms);
	rpc_buf_free(&cred);
	return decode_reply(out);
}

static bool send_args(int fd, uint32_t uid, uint32_t gid, const struct rpc_buf *args,
		      struct v4_res *out)
{
	return send_args_xid(fd, rpc_next_xid(), uid, gid, args, out);
}

bool v4_res_take(struct v4_res *out, const struct rpc_buf *rec)
{
	v4_res_free(out);
	rpc_buf_put_bytes(&out->store, rec->data, rec->len);
	out->rc = rpc_parse_reply(out->store.data, out->store.len, &out->r) ? 1 : -3;
	return decode_reply(out);
}

bool v4_encode(struct rpc_buf *out, const void *tag, uint32_t taglen,
	       uint32_t minor, const struct nfs_argop4 *ops, uint32_t nops)
{
	struct nfs4_args_head h = { { tag, taglen }, minor, 0, nops };
	size_t cap = 4096 + (size_t)nops * 512 + taglen;
	struct xdr_enc e;
	uint8_t *buf;
	bool ok;
	uint32_t i;

	/* room for the operations that carry data */
	for (i = 0; i < nops; i++) {
		if (ops[i].argop == OP_WRITE)
			cap += ops[i].u.opwrite.data.len;
		else if (ops[i].argop == OP_SETXATTR)
			cap += ops[i].u.opsetxattr.sxa_value.len;
	}
	buf = malloc(cap);
	if (!buf)
		return false;
	xdr_enc_init(&e, buf, cap);
	ok = nfs4_enc_compound_args_head(&e, &h);
	for (i = 0; ok && i < nops; i++)
		ok = xdr_enc_nfs_argop4(&e, &ops[i]);
	if (ok)
		rpc_buf_put_bytes(out, buf, xdr_enc_len(&e));
	free(buf);
	return ok;
}

bool v4_call_record(struct rpc_buf *rec, uint32_t xid, const char *tag, uint32_t minor,
		    uint32_t uid, const struct nfs_argop4 *ops, uint32_t nops)
{
	struct rpc_buf args, cred, msg;
	struct rpc_call c;
	bool good;

	rpc_buf_init(&args);
	rpc_buf_init(&cred);
	rpc_buf_init(&msg);
	good = v4_encode(&args, tag, (uint32_t)strlen(tag), minor, ops, nops);
	if (good) {
		rpc_authsys_encode(&cred, 0, "nfsx-test", uid, uid, NULL, 0);
		rpc_call_init(&c, xid, PROG_NFS, 4, NFSPROC4_COMPOUND);
		c.cred_flavor = AUTH_SYS;
		c.cred_body = cred.data;
		c.cred_len = cred.len;
		c.args = args.data;
		c.args_len = args.len;
		rpc_call_encode(&msg, &c);
		rpc_buf_put_record(rec, msg.data, msg.len);
	}
	rpc_buf_free(&args);
	rpc_buf_free(&cred);
	rpc_buf_free(&msg);
	return good;
}

bool v4_call_cb(int fd, const char *tag, uint32_t minor, uint32_t uid,
		const struct nfs_argop4 *ops, uint32_t nops, struct v4_res *out,
		void (*on_call)(void *arg, const struct rpc_buf *rec), void *arg)
{
	struct rpc_buf call, rec;
	uint32_t xid = rpc_next_xid();
	bool done = false;

	rpc_buf_init(&call);
	rpc_buf_init(&rec);
	v4_res_free(out);
	if (!v4_call_record(&call, xid, tag, minor, uid, ops, nops) ||
	    rpc_send_raw(fd, call.data, call.len, v4_timeout_ms) < 0)
		goto out;
	while (rpc_recv_record(fd, &rec, v4_timeout_ms, 1u << 21) == 1 && rec.len >= 8) {
		if (rpc_get_u32(rec.data + 4) == RPC_CALL) {
			if (on_call)
				on_call(arg, &rec);
		} else if (rpc_get_u32(rec.data) == xid) {
			done = v4_res_take(out, &rec);
			break;
		}
		rpc_buf_reset(&rec);
	}
out:
	if (!done)
		v4_diag(out);
	rpc_buf_free(&call);
	rpc_buf_free(&rec);
	return done;
}

bool v4_compound(int fd, uint32_t uid, uint32_t gid, const void *tag,
		 uint32_t taglen, uint32_t minor, const struct nfs_argop4 *ops,
		 uint32_t nops, struct v4_res *out)
{
	struct rpc_buf a;
	bool ok;

	rpc_buf_init(&a);
	if (!v4_encode(&a, tag, taglen, minor, ops, nops)) {
		rpc_buf_free(&a);
		v4_res_free(out);
		out->rc = -9;
		return false;
	}
	ok = send_args(fd, uid, gid, &a, out);
	rpc_buf_free(&a);
	return ok;
}

bool v4_call(int fd, const struct nfs_argop4 *ops, uint32_t nops,
	     struct v4_res *out)
{
	return v4_compound(fd, 0, 0, "t", 1, 0, ops, nops, out);
}

bool v4_call_xid(int fd, uint32_t xid, const struct nfs_argop4 *ops, uint32_t nops,
		 struct v4_res *out)
{
	struct rpc_buf a;
	bool ok;

	rpc_buf_init(&a);
	if (!v4_encode(&a, "t", 1, 0, ops, nops)) {
		rpc_buf_free(&a);
		v4_res_free(out);
		out->rc = -9;
		return false;
	}
	ok = send_args_xid(fd, xid, 0, 0, &a, out);
	rpc_buf_free(&a);
	return ok;
}

bool v4_twice(int fd, bool same_xid, const struct nfs_argop4 *ops, uint32_t nops,
	      struct v4_res *s1, struct v4_res *s2)
{
	uint32_t xid = rpc_next_xid();

	if (!v4_call_xid(fd, xid, ops, nops, s1)) {
		v4_diag(s1);
		return false;
	}
	if (!v4_call_xid(fd, same_xid ? xid : rpc_next_xid(), ops, nops, s2)) {
		v4_diag(s2);
		return false;
	}
	return s1->r.body_len == s2->r.body_len &&
	       memcmp(s1->r.body, s2->r.body, s1->r.body_len) == 0;
}

bool v4_compound_raw(int fd, const struct rpc_buf *args, struct v4_res *out)
{
	return send_args(fd, 0, 0, args, out);
}

void v4_diag(const struct v4_res *s)
{
	char b[256];
	uint32_t i;

	if (s->rc != 1) {
		printf("#   no reply (rc %d)\n", s->rc);
		return;
	}
	printf("#   reply: %s\n", rpc_reply_str(&s->r, b, sizeof(b)));
	printf("#   xdr_ok %d status %u nops %u:", s->xdr_ok, s->status, s->nops);
	for (i = 0; i < s->nops && i < 16; i++)
		printf(" %u=%u", s->ops[i].resop, s->ops[i].u.opillegal.status);
	printf("\n");
}

long v4_op_status(const struct v4_res *s, uint32_t i)
{
	if (i >= s->nops)
		return -1;
	/* every result starts with its status */
	return s->ops[i].u.opillegal.status;
}

void v4op_simple(struct nfs_argop4 *a, enum nfs_opnum4 op)
{
	memset(a, 0, sizeof(*a));
	a->argop = op;
}

void v4op_putfh(struct nfs_argop4 *a, const struct v4_fh *fh)
{
	v4op_simple(a, OP_PUTFH);
	a->u.opputfh.object.data = fh->d;
	a->u.opputfh.object.len = fh->len;
}

void v4op_lookup_bytes(struct nfs_argop4 *a, const void *name, uint32_t len)
{
	v4op_simple(a, OP_LOOKUP);
	a->u.oplookup.objname.data = name;
	a->u.oplookup.objname.len = len;
}

void v4op_lookup(struct nfs_argop4 *a, const char *name)
{
	v4op_lookup_bytes(a, name, (uint32_t)strlen(name));
}

void v4op_access(struct nfs_argop4 *a, uint32_t access)
{
	v4op_simple(a, OP_ACCESS);
	a->u.opaccess.access = access;
}

void v4op_getattr(struct nfs_argop4 *a, uint32_t *words, uint32_t nw)
{
	v4op_simple(a, OP_GETATTR);
	a->u.opgetattr.attr_request.len = nw;
	a->u.opgetattr.attr_request.val = words;
}

void v4op_readdir(struct nfs_argop4 *a, uint64_t cookie, uint32_t maxcount,
		  uint32_t *words, uint32_t nw)
{
	v4op_simple(a, OP_READDIR);
	a->u.opreaddir.cookie = cookie;
	a->u.opreaddir.dircount = maxcount;
	a->u.opreaddir.maxcount = maxcount;
	a->u.opreaddir.attr_request.len = nw;
	a->u.opreaddir.attr_request.val = words;
}

void v4op_verify(struct nfs_argop4 *a, enum nfs_opnum4 op, uint32_t *words,
		 uint32_t nw, const void *vals, uint32_t vlen)
{
	struct fattr4 *f;

	v4op_simple(a, op);
	f = op == OP_VERIFY ? &a->u.opverify.obj_attributes
			    : &a->u.opnverify.obj_attributes;
	f->attrmask.len = nw;
	f->attrmask.val = words;
	f->attr_vals.data = vals;
	f->attr_vals.len = vlen;
}

uint32_t v4_bits(uint32_t w[3], ...)
{
	va_list ap;
	int n;

	w[0] = w[1] = w[2] = 0;
	va_start(ap, w);
	while ((n = va_arg(ap, int)) >= 0)
		if (n < 96)
			w[n / 32] |= 1u << (n % 32);
	va_end(ap);
	return w[2] ? 3 : w[1] ? 2 : 1;
}

long v4_walk(int fd, const char *path, struct v4_fh *fh)
{
	struct nfs_argop4 ops[66];
	char comp[64][256];
	uint32_t n = 0, k = 0;
	const char *p = path;
	struct v4_res s;
	long st = -1;

	v4op_simple(&ops[n++], OP_PUTROOTFH);
	while (*p) {
		size_t l;

		while (*p == '/')
			p++;
		l = strcspn(p, "/");
		if (!l)
			break;
		if (k == 64 || l > 255)
			return -1;
		memcpy(comp[k], p, l);
		comp[k][l] = 0;
		v4op_lookup(&ops[n++], comp[k++]);
		p += l;
	}
	v4op_simple(&ops[n++], OP_GETFH);
	v4_res_init(&s);
	if (v4_call(fd, ops, n, &s)) {
		st = s.status;
		if (st == NFS4_OK && s.nops == n)
			v4_fh_of_res(&s, n - 1, fh);
	} else {
		v4_diag(&s);
	}
	v4_res_free(&s);
	return st;
}

static void copy_str(char *dst, size_t cap, const struct xdr_bytes *b)
{
	size_t l = b->len < cap - 1 ? b->len : cap - 1;

	memcpy(dst, b->data, l);
	dst[l] = 0;
}

bool v4_attrs_decode(const struct fattr4 *f, struct v4_attrs *a)
{
	uint8_t mem[16384];
	struct xdr_arena ar;
	struct xdr_dec d;
	uint32_t n, i;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < f->attrmask.len; i++) {
		if (i >= 3) {
			if (f->attrmask.val[i])
				return false;
			continue;
		}
		a->mask[i] = f->attrmask.val[i];
	}
	xdr_arena_init(&ar, mem, sizeof(mem));
	xdr_dec_init(&d, f->attr_vals.data, f->attr_vals.len, &ar);
	for (n = 0; n < 96; n++) {
		union {
			fattr4_supported_attrs bm;
			fattr4_acl acl;
			fattr4_fs_locations loc;
			struct xdr_bytes b;
			struct fsid4 fsid;
			struct nfstime4 t;
			struct specdata4 sd;
			struct settime4 st;
			uint64_t u64;
			uint32_t u32;
			bool bl;
			enum nfs_ftype4 type;
			enum nfsstat4 err;
		} v;
		bool ok;

		if (!v4_has(a->mask, n))
			continue;
		memset(&v, 0, sizeof(v));
		switch (n) {
#define D(num, fn, field) case num: ok = xdr_dec_fattr4_##fn(&d, &v.field); break
		D(FATTR4_SUPPORTED_ATTRS, supported_attrs, bm);
		D(FATTR4_TYPE, type, type);
		D(FATTR4_FH_EXPIRE_TYPE, fh_expire_type, u32);
		D(FATTR4_CHANGE, change, u64);
		D(FATTR4_SIZE, size, u64);
		D(FATTR4_LINK_SUPPORT, link_support, bl);
		D(FATTR4_SYMLINK_SUPPORT, symlink_support, bl);
		D(FATTR4_NAMED_ATTR, named_attr, bl);
		D(FATTR4_FSID, fsid, fsid);
		D(FATTR4_UNIQUE_HANDLES, unique_handles, bl);
		D(FATTR4_LEASE_TIME, lease_time, u32);
		D(FATTR4_RDATTR_ERROR, rdattr_error, err);
		D(FATTR4_ACL, acl, acl);
		D(FATTR4_ACLSUPPORT, aclsupport, u32);
		D(FATTR4_ARCHIVE, archive, bl);
		D(FATTR4_CANSETTIME, cansettime, bl);
		D(FATTR4_CASE_INSENSITIVE, case_insensitive, bl);
		D(FATTR4_CASE_PRESERVING, case_preserving, bl);
		D(FATTR4_CHOWN_RESTRICTED, chown_restricted, bl);
		D(FATTR4_FILEHANDLE, filehandle, b);
		D(FATTR4_FILEID, fileid, u64);
		D(FATTR4_FILES_AVAIL, files_avail, u64);
		D(FATTR4_FILES_FREE, files_free, u64);
		D(FATTR4_FILES_TOTAL, files_total, u64);
		D(FATTR4_FS_LOCATIONS, fs_locations, loc);
		D(FATTR4_HIDDEN, hidden, bl);
		D(FATTR4_HOMOGENEOUS, homogeneous, bl);
		D(FATTR4_MAXFILESIZE, maxfilesize, u64);
		D(FATTR4_MAXLINK, maxlink, u32);
		D(FATTR4_MAXNAME, maxname, u32);
		D(FATTR4_MAXREAD, maxread, u64);
		D(FATTR4_MAXWRITE, maxwrite, u64);
		D(FATTR4_MIMETYPE, mimetype, b);
		D(FATTR4_MODE, mode, u32);
		D(FATTR4_NO_TRUNC, no_trunc, bl);
		D(FATTR4_NUMLINKS, numlinks, u32);
		D(FATTR4_OWNER, owner, b);
		D(FATTR4_OWNER_GROUP, owner_group, b);
		D(FATTR4_QUOTA_AVAIL_HARD, quota_avail_hard, u64);
		D(FATTR4_QUOTA_AVAIL_SOFT, quota_avail_soft, u64);
		D(FATTR4_QUOTA_USED, quota_used, u64);
		D(FATTR4_RAWDEV, rawdev, sd);
		D(FATTR4_SPACE_AVAIL, space_avail, u64);
		D(FATTR4_SPACE_FREE, space_free, u64);
		D(FATTR4_SPACE_TOTAL, space_total, u64);
		D(FATTR4_SPACE_USED, space_used, u64);
		D(FATTR4_SYSTEM, system, bl);
		D(FATTR4_TIME_ACCESS, time_access, t);
		D(FATTR4_TIME_BACKUP, time_backup, t);
		D(FATTR4_TIME_CREATE, time_create, t);
		D(FATTR4_TIME_DELTA, time_delta, t);
		D(FATTR4_TIME_METADATA, time_metadata, t);
		D(FATTR4_TIME_MODIFY, time_modify, t);
		D(FATTR4_MOUNTED_ON_FILEID, mounted_on_fileid, u64);
#undef D
		default:
			/* not a GETATTR-able 4.0 attribute: cannot be read */
			return false;
		}
		if (!ok)
			return false;
		switch (n) {
		case FATTR4_SUPPORTED_ATTRS:
			for (i = 0; i < v.bm.len && i < 3; i++)
				a->supp[i] = v.bm.val[i];
			break;
		case FATTR4_TYPE: a->type = v.type; break;
		case FATTR4_CHANGE: a->change = v.u64; break;
		case FATTR4_SIZE: a->size = v.u64; break;
		case FATTR4_FSID: a->fsid = v.fsid; break;
		case FATTR4_RDATTR_ERROR: a->rdattr_error = v.err; break;
		case FATTR4_FILEHANDLE:
			if (v.b.len > NFS4_FHSIZE)
				return false;
			a->fh.len = v.b.len;
			memcpy(a->fh.d, v.b.data, v.b.len);
			break;
		case FATTR4_FILEID: a->fileid = v.u64; break;
		case FATTR4_MODE: a->mode = v.u32; break;
		case FATTR4_NUMLINKS: a->numlinks = v.u32; break;
		case FATTR4_OWNER: copy_str(a->owner, sizeof(a->owner), &v.b); break;
		case FATTR4_OWNER_GROUP:
			copy_str(a->owner_group, sizeof(a->owner_group), &v.b);
			break;
		case FATTR4_TIME_MODIFY: a->mtime = v.t; break;
		case FATTR4_MOUNTED_ON_FILEID: a->mounted_on_fileid = v.u64; break;
		default: break;
		}
	}
	return xdr_dec_left(&d) == 0;
}

/* ---- attributes to set, and the operations that change things --------- */

void v4f_init(struct v4_fattr *f)
{
	memset(f, 0, sizeof(*f));
	f->last = -1;
}

/* Room for @n more bytes of attribute @attr, which must come after the last. */
static uint8_t *fattr_room(struct v4_fattr *f, unsigned int attr, uint32_t n)
{
	uint8_t *p;

	if (attr >= 96 || (int)attr <= f->last || f->len + n > sizeof(f->v)) {
		f->bad = true;
		return NULL;
	}
	f->last = (int)attr;
	f->w[attr / 32] |= 1u << (attr % 32);
	p = f->v + f->len;
	f->len += n;
	return p;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

void v4f_u32(struct v4_fattr *f, unsigned int attr, uint32_t val)
{
	uint8_t *p = fattr_room(f, attr, 4);

	if (p)
		put32(p, val);
}

void v4f_u64(struct v4_fattr *f, unsigned int attr, uint64_t val)
{
	uint8_t *p = fattr_room(f, attr, 8);

	if (p) {
		put32(p, (uint32_t)(val >> 32));
		put32(p + 4, (uint32_t)val);
	}
}

void v4f_str(struct v4_fattr *f, unsigned int attr, const char *s)
{
	uint32_t l = (uint32_t)strlen(s), pad = (4 - l % 4) % 4;
	uint8_t *p = fattr_room(f, attr, 4 + l + pad);

	if (p) {
		put32(p, l);
		memcpy(p + 4, s, l);
		memset(p + 4 + l, 0, pad);
	}
}

void v4f_time(struct v4_fattr *f, unsigned int attr, bool server, int64_t sec,
	      uint32_t nsec)
{
	uint8_t *p = fattr_room(f, attr, server ? 4 : 16);

	if (!p)
		return;
	put32(p, server ? SET_TO_SERVER_TIME4 : SET_TO_CLIENT_TIME4);
	if (!server) {
		put32(p + 4, (uint32_t)((uint64_t)sec >> 32));
		put32(p + 8, (uint32_t)sec);
		put32(p + 12, nsec);
	}
}

void v4_fattr(const struct v4_fattr *f, struct fattr4 *out)
{
	out->attrmask.val = (uint32_t *)f->w;
	out->attrmask.len = f->bad ? 0 : f->w[2] ? 3 : f->w[1] ? 2 : f->w[0] ? 1 : 0;
	out->attr_vals.data = f->v;
	out->attr_vals.len = f->bad ? 0 : f->len;
}

void v4op_create(struct nfs_argop4 *a, enum nfs_ftype4 type, const char *name,
		 const char *link, uint32_t maj, uint32_t min, const struct v4_fattr *f)
{
	struct CREATE4args *c;

	v4op_simple(a, OP_CREATE);
	c = &a->u.opcreate;
	c->objtype.type = type;
	if (type == NF4LNK) {
		c->objtype.u.linkdata.data = (const uint8_t *)link;
		c->objtype.u.linkdata.len = (uint32_t)strlen(link);
	} else if (type == NF4BLK || type == NF4CHR) {
		c->objtype.u.devdata.specdata1 = maj;
		c->objtype.u.devdata.specdata2 = min;
	}
	c->objname.data = (const uint8_t *)name;
	c->objname.len = (uint32_t)strlen(name);
	if (f)
		v4_fattr(f, &c->createattrs);
}

void v4op_remove(struct nfs_argop4 *a, const char *name)
{
	v4op_simple(a, OP_REMOVE);
	a->u.opremove.target.data = (const uint8_t *)name;
	a->u.opremove.target.len = (uint32_t)strlen(name);
}

void v4op_rename(struct nfs_argop4 *a, const char *from, const char *to)
{
	v4op_simple(a, OP_RENAME);
	a->u.oprename.oldname.data = (const uint8_t *)from;
	a->u.oprename.oldname.len = (uint32_t)strlen(from);
	a->u.oprename.newname.data = (const uint8_t *)to;
	a->u.oprename.newname.len = (uint32_t)strlen(to);
}

void v4op_link(struct nfs_argop4 *a, const char *name)
{
	v4op_simple(a, OP_LINK);
	a->u.oplink.newname.data = (const uint8_t *)name;
	a->u.oplink.newname.len = (uint32_t)strlen(name);
}

void v4op_setattr(struct nfs_argop4 *a, uint32_t seqid, const uint8_t *other,
		  const struct v4_fattr *f)
{
	v4op_simple(a, OP_SETATTR);
	a->u.opsetattr.stateid.seqid = seqid;
	if (other)
		memcpy(a->u.opsetattr.stateid.other, other,
		       sizeof(a->u.opsetattr.stateid.other));
	v4_fattr(f, &a->u.opsetattr.obj_attributes);
}

/* ---- results ----------------------------------------------------------- */

bool v4_fh_of_res(const struct v4_res *s, uint32_t i, struct v4_fh *fh)
{
	const nfs_fh4 *o;

	if (i >= s->nops || s->ops[i].resop != OP_GETFH ||
	    s->ops[i].u.opgetfh.status != NFS4_OK)
		return false;
	o = &s->ops[i].u.opgetfh.u.resok4.object;
	if (o->len > sizeof(fh->d))
		return false;
	fh->len = o->len;
	memcpy(fh->d, o->data, o->len);
	return true;
}

bool v4_attrs_of_res(const struct v4_res *s, uint32_t i, struct v4_attrs *a)
{
	if (i >= s->nops || s->ops[i].resop != OP_GETATTR ||
	    s->ops[i].u.opgetattr.status != NFS4_OK)
		return false;
	return v4_attrs_decode(&s->ops[i].u.opgetattr.u.resok4.obj_attributes, a);
}

int v4_readdir_find(int fd, const struct v4_fh *dir, uint32_t *words, uint32_t nw,
		    const char *name, struct v4_res *s, const struct entry4 **e)
{
	struct nfs_argop4 ops[2];
	const struct READDIR4res *r;
	const struct entry4 *x;
	size_t l = strlen(name);

	*e = NULL;
	v4op_putfh(&ops[0], dir);
	v4op_readdir(&ops[1], 0, 32768, words, nw);
	if (!v4_call(fd, ops, 2, s) || s->status != NFS4_OK || s->nops != 2) {
		v4_diag(s);
		return -1;
	}
	r = &s->ops[1].u.opreaddir;
	if (!r->u.resok4.reply.eof) {
		printf("#   READDIR: no eof in one reply\n");
		return -1;
	}
	for (x = r->u.resok4.reply.entries; x; x = x->nextentry)
		if (x->name.len == l && memcmp(x->name.data, name, l) == 0) {
			*e = x;
			return 1;
		}
	return 0;
}

bool v4_attrs_u64s(const struct fattr4 *f, uint64_t *vals, uint32_t n)
{
	const uint8_t *p = f->attr_vals.data;
	uint32_t i, k, bits = 0;

	for (i = 0; i < f->attrmask.len; i++)
		bits += (uint32_t)__builtin_popcount(f->attrmask.val[i]);
	if (bits != n || f->attr_vals.len != 8u * n)
		return false;
	for (i = 0; i < n; i++, p += 8)
		for (vals[i] = 0, k = 0; k < 8; k++)
			vals[i] = vals[i] << 8 | p[k];
	return true;
}

/* ---- client records and open state ----------------------------------- */

void v4op_setclientid(struct nfs_argop4 *a, const char *id, const uint8_t *verf)
{
	struct SETCLIENTID4args *s;

	v4op_simple(a, OP_SETCLIENTID);
	s = &a->u.opsetclientid;
	memcpy(s->client.verifier.val, verf, sizeof(s->client.verifier.val));
	s->client.id.data = (const uint8_t *)id;
	s->client.id.len = (uint32_t)strlen(id);
	s->callback.cb_program = 0x40000000;
	s->callback.cb_location.na_r_netid.data = (const uint8_t *)"tcp";
	s->callback.cb_location.na_r_netid.len = 3;
	s->callback.cb_location.na_r_addr.data = (const uint8_t *)"127.0.0.1.3.4";
	s->callback.cb_location.na_r_addr.len = 13;
	s->callback_ident = 1;
}

void v4op_setclientid_confirm(struct nfs_argop4 *a, clientid4 cid, const uint8_t *confirm)
{
	v4op_simple(a, OP_SETCLIENTID_CONFIRM);
	a->u.opsetclientid_confirm.clientid = cid;
	memcpy(a->u.opsetclientid_confirm.setclientid_confirm.val, confirm,
	       sizeof(a->u.opsetclientid_confirm.setclientid_confirm.val));
}

long v4_client(int fd, uint32_t uid, const char *id, bool confirm, clientid4 *cid)
{
	static const uint8_t verf[8] = { 'n', 'f', 's', 'x', 't', 'e', 's', 't' };

	return v4_client_verf(fd, uid, id, verf, confirm, cid);
}

void v4op_open(struct nfs_argop4 *a, uint32_t seqid, uint32_t access, uint32_t deny,
	       clientid4 cid, const char *owner, const char *name)
{
	struct OPEN4args *o;

	v4op_simple(a, OP_OPEN);
	o = &a->u.opopen;
	o->seqid = seqid;
	o->share_access = access;
	o->share_deny = deny;
	o->owner.clientid = cid;
	o->owner.owner.data = (const uint8_t *)owner;
	o->owner.owner.len = (uint32_t)strlen(owner);
	o->openhow.opentype = OPEN4_NOCREATE;
	o->claim.claim = CLAIM_NULL;
	o->claim.u.file.data = (const uint8_t *)name;
	o->claim.u.file.len = (uint32_t)strlen(name);
}

void v4op_open_create(struct nfs_argop4 *a, enum createmode4 mode, const struct v4_fattr *f,
		      const uint8_t *verf)
{
	struct createhow4 *h = &a->u.opopen.openhow.u.how;

	a->u.opopen.openhow.opentype = OPEN4_CREATE;
	memset(h, 0, sizeof(*h));
	h->mode = mode;
	if (mode == EXCLUSIVE4 && verf)
		memcpy(h->u.createverf.val, verf, sizeof(h->u.createverf.val));
	else if (f)
		v4_fattr(f, &h->u.createattrs);
}

static void stateid_or_anon(struct stateid4 *dst, const struct stateid4 *sid)
{
	if (sid)
		*dst = *sid;
	else
		memset(dst, 0, sizeof(*dst));
}

void v4op_open_confirm(struct nfs_argop4 *a, const struct stateid4 *sid, uint32_t seqid)
{
	v4op_simple(a, OP_OPEN_CONFIRM);
	a->u.opopen_confirm.open_stateid = *sid;
	a->u.opopen_confirm.seqid = seqid;
}

void v4op_open_downgrade(struct nfs_argop4 *a, const struct stateid4 *sid, uint32_t seqid,
			 uint32_t access, uint32_t deny)
{
	v4op_simple(a, OP_OPEN_DOWNGRADE);
	a->u.opopen_downgrade.open_stateid = *sid;
	a->u.opopen_downgrade.seqid = seqid;
	a->u.opopen_downgrade.share_access = access;
	a->u.opopen_downgrade.share_deny = deny;
}

void v4op_close(struct nfs_argop4 *a, uint32_t seqid, const struct stateid4 *sid)
{
	v4op_simple(a, OP_CLOSE);
	a->u.opclose.seqid = seqid;
	a->u.opclose.open_stateid = *sid;
}

void v4op_read(struct nfs_argop4 *a, const struct stateid4 *sid, uint64_t off, uint32_t count)
{
	v4op_simple(a, OP_READ);
	stateid_or_anon(&a->u.opread.stateid, sid);
	a->u.opread.offset = off;
	a->u.opread.count = count;
}

void v4op_read_plus(struct nfs_argop4 *a, const struct stateid4 *sid, uint64_t off,
		    uint32_t count)
{
	v4op_simple(a, OP_READ_PLUS);
	stateid_or_anon(&a->u.opread_plus.rpa_stateid, sid);
	a->u.opread_plus.rpa_offset = off;
	a->u.opread_plus.rpa_count = count;
}

void v4op_write(struct nfs_argop4 *a, const struct stateid4 *sid, uint64_t off,
		enum stable_how4 stable, const void *data, uint32_t len)
{
	v4op_simple(a, OP_WRITE);
	stateid_or_anon(&a->u.opwrite.stateid, sid);
	a->u.opwrite.offset = off;
	a->u.opwrite.stable = stable;
	a->u.opwrite.data.data = data;
	a->u.opwrite.data.len = len;
}

void v4op_commit(struct nfs_argop4 *a, uint64_t off, uint32_t count)
{
	v4op_simple(a, OP_COMMIT);
	a->u.opcommit.offset = off;
	a->u.opcommit.count = count;
}

/* ---- NFSv4.1 sessions ------------------------------------------------- */

bool v4_call41(int fd, const struct nfs_argop4 *ops, uint32_t nops, struct v4_res *out)
{
	return v4_compound(fd, 0, 0, "t", 1, 1, ops, nops, out);
}

void v4op_exchange_id(struct nfs_argop4 *a, const char *owner, uint8_t verf, uint32_t flags)
{
	struct EXCHANGE_ID4args *x;

	v4op_simple(a, OP_EXCHANGE_ID);
	x = &a->u.opexchange_id;
	memset(x->eia_clientowner.co_verifier.val, verf, sizeof(x->eia_clientowner.co_verifier.val));
	x->eia_clientowner.co_ownerid.data = (const uint8_t *)owner;
	x->eia_clientowner.co_ownerid.len = (uint32_t)strlen(owner);
	x->eia_flags = flags;
	x->eia_state_protect.spa_how = SP4_NONE;
}

static void chan(struct channel_attrs4 *c, uint32_t maxreq, uint32_t maxresp,
		 uint32_t maxcached, uint32_t slots)
{
	memset(c, 0, sizeof(*c));
	c->ca_maxrequestsize = maxreq;
	c->ca_maxresponsesize = maxresp;
	c->ca_maxresponsesize_cached = maxcached;
	c->ca_maxoperations = 16;
	c->ca_maxrequests = slots;
}

void v4op_create_session(struct nfs_argop4 *a, clientid4 cid, sequenceid4 seq, uint32_t flags,
			 uint32_t maxreq, uint32_t maxresp, uint32_t maxcached, uint32_t slots)
{
	struct CREATE_SESSION4args *c;

	v4op_simple(a, OP_CREATE_SESSION);
	c = &a->u.opcreate_session;
	c->csa_clientid = cid;
	c->csa_sequence = seq;
	c->csa_flags = flags;
	chan(&c->csa_fore_chan_attrs, maxreq, maxresp, maxcached, slots);
	chan(&c->csa_back_chan_attrs, 4096, 4096, 0, 2);
	c->csa_cb_program = 0x40000000;
}

void v4op_sequence(struct nfs_argop4 *a, const sessionid4 *sid, sequenceid4 seq,
		   uint32_t slot, bool cachethis)
{
	v4op_simple(a, OP_SEQUENCE);
	a->u.opsequence.sa_sessionid = *sid;
	a->u.opsequence.sa_sequenceid = seq;
	a->u.opsequence.sa_slotid = slot;
	a->u.opsequence.sa_highest_slotid = slot;
	a->u.opsequence.sa_cachethis = cachethis;
}

void v4op_destroy_session(struct nfs_argop4 *a, const sessionid4 *sid)
{
	v4op_simple(a, OP_DESTROY_SESSION);
	a->u.opdestroy_session.dsa_sessionid = *sid;
}

void v4op_destroy_clientid(struct nfs_argop4 *a, clientid4 cid)
{
	v4op_simple(a, OP_DESTROY_CLIENTID);
	a->u.opdestroy_clientid.dca_clientid = cid;
}

void v4op_bind_conn(struct nfs_argop4 *a, const sessionid4 *sid,
		    enum channel_dir_from_client4 dir)
{
	v4op_simple(a, OP_BIND_CONN_TO_SESSION);
	a->u.opbind_conn_to_session.bctsa_sessid = *sid;
	a->u.opbind_conn_to_session.bctsa_dir = dir;
}

void v4op_reclaim_complete(struct nfs_argop4 *a, bool one_fs)
{
	v4op_simple(a, OP_RECLAIM_COMPLETE);
	a->u.opreclaim_complete.rca_one_fs = one_fs;
}

void v4op_secinfo_no_name(struct nfs_argop4 *a, enum secinfo_style4 style)
{
	v4op_simple(a, OP_SECINFO_NO_NAME);
	a->u.opsecinfo_no_name = style;
}

long v4_session_open(int fd, const char *owner, uint8_t verf, uint32_t maxreq,
		     uint32_t maxresp, uint32_t maxcached, uint32_t slots,
		     struct v4_session *s)
{
	struct nfs_argop4 op;
	struct v4_res r;
	long st = -1;

	v4_res_init(&r);
	if (!s->clientid) {
		v4op_exchange_id(&op, owner, verf, 0);
		if (!v4_call41(fd, &op, 1, &r) || r.nops != 1)
			goto out;
		st = r.status;
		if (st != NFS4_OK)
			goto out;
		s->clientid = r.ops[0].u.opexchange_id.u.eir_resok4.eir_clientid;
		s->cs_seq = r.ops[0].u.opexchange_id.u.eir_resok4.eir_sequenceid;
	}
	st = -1;
	v4op_create_session(&op, s->clientid, s->cs_seq, 0, maxreq, maxresp, maxcached, slots);
	if (!v4_call41(fd, &op, 1, &r) || r.nops != 1)
		goto out;
	st = r.status;
	if (st == NFS4_OK) {
		const struct CREATE_SESSION4resok *ok = &r.ops[0].u.opcreate_session.u.csr_resok4;

		s->cs_seq++;
		s->sid = ok->csr_sessionid;
		s->fore = ok->csr_fore_chan_attrs;
		s->fore.ca_rdma_ird.len = 0;
		s->fore.ca_rdma_ird.val = NULL;
		memset(s->slot_seq, 0, sizeof(s->slot_seq));
	}
out:
	if (st == -1)
		v4_diag(&r);
	v4_res_free(&r);
	return st;
}

void v4op_seq_next(struct nfs_argop4 *a, struct v4_session *s, uint32_t slot, bool cachethis)
{
	v4op_sequence(a, &s->sid, ++s->slot_seq[slot % 64], slot, cachethis);
}

/* ---- locks, leases and reclaims -------------------------------------- */

long v4_client_verf(int fd, uint32_t uid, const char *id, const uint8_t *verf, bool confirm,
		    clientid4 *cid)
{
	struct nfs_argop4 op;
	struct v4_res s;
	uint8_t cfm[8];
	long st = -1;

	v4_res_init(&s);
	v4op_setclientid(&op, id, verf);
	if (!v4_compound(fd, uid, uid, "c", 1, 0, &op, 1, &s) || s.nops != 1)
		goto out;
	st = s.status;
	if (st != NFS4_OK || !confirm)
		goto out;
	*cid = s.ops[0].u.opsetclientid.u.resok4.clientid;
	memcpy(cfm, s.ops[0].u.opsetclientid.u.resok4.setclientid_confirm.val, sizeof(cfm));
	v4op_setclientid_confirm(&op, *cid, cfm);
	st = v4_compound(fd, uid, uid, "c", 1, 0, &op, 1, &s) ? (long)s.status : -1;
out:
	if (st == NFS4_OK && !confirm)
		*cid = s.ops[0].u.opsetclientid.u.resok4.clientid;
	if (st < 0)
		v4_diag(&s);
	v4_res_free(&s);
	return st;
}

static void lock_owner_of(lock_owner4 *o, clientid4 cid, const char *owner)
{
	o->clientid = cid;
	o->owner.data = (const uint8_t *)owner;
	o->owner.len = (uint32_t)strlen(owner);
}

/* A LOCK's arguments but its locker. */
static struct LOCK4args *lock_args(struct nfs_argop4 *a, enum nfs_lock_type4 type, bool reclaim,
				   uint64_t off, uint64_t len)
{
	v4op_simple(a, OP_LOCK);
	a->u.oplock.locktype = type;
	a->u.oplock.reclaim = reclaim;
	a->u.oplock.offset = off;
	a->u.oplock.length = len;
	return &a->u.oplock;
}

void v4op_lock_new(struct nfs_argop4 *a, enum nfs_lock_type4 type, bool reclaim,
		   uint64_t off, uint64_t len, uint32_t open_seqid,
		   const struct stateid4 *open_sid, uint32_t lock_seqid, clientid4 cid,
		   const char *owner)
{
	struct LOCK4args *l = lock_args(a, type, reclaim, off, len);

	l->locker.new_lock_owner = true;
	l->locker.u.open_owner.open_seqid = open_seqid;
	l->locker.u.open_owner.open_stateid = *open_sid;
	l->locker.u.open_owner.lock_seqid = lock_seqid;
	lock_owner_of(&l->locker.u.open_owner.lock_owner, cid, owner);
}

void v4op_lock(struct nfs_argop4 *a, enum nfs_lock_type4 type, bool reclaim, uint64_t off,
	       uint64_t len, const struct stateid4 *sid, uint32_t lock_seqid)
{
	struct LOCK4args *l = lock_args(a, type, reclaim, off, len);

	l->locker.new_lock_owner = false;
	l->locker.u.lock_owner.lock_stateid = *sid;
	l->locker.u.lock_owner.lock_seqid = lock_seqid;
}

void v4op_lockt(struct nfs_argop4 *a, enum nfs_lock_type4 type, uint64_t off, uint64_t len,
		clientid4 cid, const char *owner)
{
	v4op_simple(a, OP_LOCKT);
	a->u.oplockt.locktype = type;
	a->u.oplockt.offset = off;
	a->u.oplockt.length = len;
	lock_owner_of(&a->u.oplockt.owner, cid, owner);
}

void v4op_locku(struct nfs_argop4 *a, enum nfs_lock_type4 type, uint32_t seqid,
		const struct stateid4 *sid, uint64_t off, uint64_t len)
{
	v4op_simple(a, OP_LOCKU);
	a->u.oplocku.locktype = type;
	a->u.oplocku.seqid = seqid;
	a->u.oplocku.lock_stateid = *sid;
	a->u.oplocku.offset = off;
	a->u.oplocku.length = len;
}

void v4op_release_lockowner(struct nfs_argop4 *a, clientid4 cid, const char *owner)
{
	v4op_simple(a, OP_RELEASE_LOCKOWNER);
	lock_owner_of(&a->u.oprelease_lockowner.lock_owner, cid, owner);
}

void v4op_renew(struct nfs_argop4 *a, clientid4 cid)
{
	v4op_simple(a, OP_RENEW);
	a->u.oprenew.clientid = cid;
}

void v4op_open_previous(struct nfs_argop4 *a, uint32_t seqid, uint32_t access, uint32_t deny,
			clientid4 cid, const char *owner)
{
	v4op_open(a, seqid, access, deny, cid, owner, "");
	memset(&a->u.opopen.claim, 0, sizeof(a->u.opopen.claim));
	a->u.opopen.claim.claim = CLAIM_PREVIOUS;
	a->u.opopen.claim.u.delegate_type = OPEN_DELEGATE_NONE;
}
