/* SPDX-License-Identifier: MIT */
/* Raw NFSv3/MOUNT v3 calls for the wire-level tests: see nfs3_raw.h. */
#include "nfs3_raw.h"

#include <stdio.h>
#include <string.h>

#define MNTPROC_MNT 1
#define MNT3_OK 0
#define NFSPROC3_LOOKUP 3
#define NFS3_OK 0

int raw_timeout_ms = 5000;
uint32_t raw_flavor = AUTH_SYS;

void raw_call(int fd, uint32_t prog, uint32_t proc, const struct rpc_buf *args,
	      struct raw_res *out)
{
	struct rpc_buf cred;
	struct rpc_call c;

	rpc_buf_init(&cred);
	rpc_call_init(&c, rpc_next_xid(), prog, 3, proc);
	if (raw_flavor == AUTH_SYS) {
		rpc_authsys_encode(&cred, 0, "nfsx-test", 0, 0, NULL, 0);
		c.cred_flavor = AUTH_SYS;
		c.cred_body = cred.data;
		c.cred_len = cred.len;
	}
	c.args = args ? args->data : NULL;
	c.args_len = args ? args->len : 0;
	rpc_buf_reset(&out->store);
	memset(&out->r, 0, sizeof(out->r));
	out->rc = rpc_call_simple(fd, &c, &out->r, &out->store, raw_timeout_ms);
	rpc_buf_free(&cred);
}

bool raw_accepted(const struct raw_res *s)
{
	return s->rc == 1 && s->r.reply_stat == RPC_MSG_ACCEPTED &&
	       s->r.accept_stat == RPC_SUCCESS;
}

void raw_diag(const struct raw_res *s)
{
	char b[256];

	if (s->rc != 1)
		printf("#   no reply (rc %d)\n", s->rc);
	else
		printf("#   reply: %s\n", rpc_reply_str(&s->r, b, sizeof(b)));
}

struct rpc_cur raw_cur(const struct raw_res *s)
{
	struct rpc_cur c = { s->r.body, s->r.body_len, false };

	if (!raw_accepted(s))
		c.bad = true, c.n = 0;
	return c;
}

/* A reply of a status and, when it is @ok, a handle first: the status (or
 * -1 on no or odd reply); fills @out if given. */
static long status_fh(struct raw_res *s, long ok, struct raw_fh *out)
{
	struct rpc_cur c = raw_cur(s);
	long st = rpc_cur_u32(&c);

	if (!c.bad && st == ok) {
		uint32_t l;
		const uint8_t *p = rpc_cur_opaque(&c, &l, 64);

		if (p && out) {
			out->len = l;
			memcpy(out->d, p, l);
		}
	}
	if (c.bad) {
		raw_diag(s);
		st = -1;
	}
	return st;
}

long raw_mnt(int fd, const char *path, struct raw_fh *fh)
{
	struct rpc_buf a;
	struct raw_res s = { 0 };
	long st;

	rpc_buf_init(&a);
	rpc_buf_init(&s.store);
	rpc_buf_put_string(&a, path);
	raw_call(fd, PROG_MOUNT, MNTPROC_MNT, &a, &s);
	st = status_fh(&s, MNT3_OK, fh);
	rpc_buf_free(&a);
	rpc_buf_free(&s.store);
	return st;
}

long raw_mnt_flavors(int fd, const char *path, struct raw_fh *fh, uint32_t *fl,
		     uint32_t max, uint32_t *n)
{
	struct rpc_buf a;
	struct raw_res s = { 0 };
	struct rpc_cur c;
	long st;

	*n = 0;
	rpc_buf_init(&a);
	rpc_buf_init(&s.store);
	rpc_buf_put_string(&a, path);
	raw_call(fd, PROG_MOUNT, MNTPROC_MNT, &a, &s);
	c = raw_cur(&s);
	st = rpc_cur_u32(&c);
	if (!c.bad && st == MNT3_OK) {
		uint32_t l, i, k;
		const uint8_t *p = rpc_cur_opaque(&c, &l, 64);

		if (p && fh) {
			fh->len = l;
			memcpy(fh->d, p, l);
		}
		k = rpc_cur_u32(&c);
		for (i = 0; i < k && !c.bad; i++) {
			uint32_t f = rpc_cur_u32(&c);

			if (i < max)
				fl[i] = f;
		}
		*n = k;
	}
	if (c.bad || (st == MNT3_OK && c.n != 0)) {
		raw_diag(&s);
		st = -1;
	}
	rpc_buf_free(&a);
	rpc_buf_free(&s.store);
	return st;
}

long raw_lookup(int fd, const struct raw_fh *dir, const char *name, struct raw_fh *out)
{
	struct rpc_buf b;
	struct raw_res s = { 0 };
	long st;

	rpc_buf_init(&b);
	rpc_buf_init(&s.store);
	rpc_buf_put_opaque(&b, dir->d, dir->len);
	rpc_buf_put_string(&b, name);
	raw_call(fd, PROG_NFS, NFSPROC3_LOOKUP, &b, &s);
	st = status_fh(&s, NFS3_OK, out);
	rpc_buf_free(&b);
	rpc_buf_free(&s.store);
	return st;
}

/* ---- READDIRPLUS ------------------------------------------------------- */

#define NFSPROC3_READDIRPLUS 17

static void get_fattr(struct rpc_cur *c, struct raw_fattr *a)
{
	a->have = true;
	a->type = rpc_cur_u32(c);
	a->mode = rpc_cur_u32(c);
	a->nlink = rpc_cur_u32(c);
	a->uid = rpc_cur_u32(c);
	a->gid = rpc_cur_u32(c);
	a->size = rpc_cur_u64(c);
	rpc_cur_skip(c, 8 + 8 + 8);     /* used, rdev, fsid */
	a->fileid = rpc_cur_u64(c);
	rpc_cur_skip(c, 8);             /* atime */
	a->mtime_s = rpc_cur_u32(c);
	a->mtime_ns = rpc_cur_u32(c);
	a->ctime_s = rpc_cur_u32(c);
	a->ctime_ns = rpc_cur_u32(c);
}

int raw_plus_find(int fd, const struct raw_fh *dir, const char *name, struct raw_fattr *a)
{
	static const uint8_t zero[8];
	struct raw_res r = { 0 };
	struct rpc_buf b;
	struct rpc_cur c;
	int found = 0;

	memset(a, 0, sizeof(*a));
	rpc_buf_init(&b);
	rpc_buf_init(&r.store);
	rpc_buf_put_opaque(&b, dir->d, dir->len);
	rpc_buf_put_u32(&b, 0);         /* cookie */
	rpc_buf_put_u32(&b, 0);
	rpc_buf_put_bytes(&b, zero, 8); /* cookieverf */
	rpc_buf_put_u32(&b, 8192);      /* dircount */
	rpc_buf_put_u32(&b, 32768);     /* maxcount */
	raw_call(fd, PROG_NFS, NFSPROC3_READDIRPLUS, &b, &r);
	c = raw_cur(&r);
	if (rpc_cur_u32(&c) != NFS3_OK || c.bad) {
		found = -1;
		goto out;
	}
	if (rpc_cur_u32(&c))
		rpc_cur_skip(&c, 84);   /* the directory's fattr3 */
	rpc_cur_skip(&c, 8);            /* cookieverf */
	while (!c.bad && rpc_cur_u32(&c)) {
		struct raw_fattr x = { 0 };
		const uint8_t *nm;
		uint32_t nl, fl;

		rpc_cur_u64(&c);        /* fileid */
		nm = rpc_cur_opaque(&c, &nl, 255);
		rpc_cur_u64(&c);        /* cookie */
		if (rpc_cur_u32(&c))
			get_fattr(&c, &x);
		if (rpc_cur_u32(&c))
			rpc_cur_opaque(&c, &fl, 64);   /* the handle */
		if (!c.bad && nm && nl == strlen(name) && !memcmp(nm, name, nl)) {
			found = 1;
			*a = x;
		}
	}
	rpc_cur_u32(&c);                /* eof */
	if (c.bad || c.n)
		found = -1;
out:
	if (found < 0)
		raw_diag(&r);
	rpc_buf_free(&b);
	rpc_buf_free(&r.store);
	return found;
}
