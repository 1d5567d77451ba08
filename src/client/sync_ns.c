/* SPDX-License-Identifier: MIT */
/*
 * Synchronous SETATTR, RENAME, LINK and READLINK (nfsx.h): NFSv3 here,
 * NFSv4.1 in sync4_ns.c, as sync.c divides the other calls.
 */
#include "client/sync.h"
#include "client/sync4.h"

#include <errno.h>
#include <string.h>

#include "xdr/gen/nfs3.h"

#define PROC(n) (&nfsx_nfs3_procs[NFSPROC3_##n])

static struct diropargs3 dirop(const struct nfsx_fh *dir, const char *name)
{
	struct diropargs3 d = { nc_fh3(dir), { (const uint8_t *)name, (uint32_t)strlen(name) } };

	return d;
}

/* NFSv3's times are unsigned 32-bit seconds: -EINVAL outside them. */
static bool time3(int64_t ns, struct nfstime3 *t)
{
	if (ns < 0 || ns / 1000000000 > UINT32_MAX)
		return false;
	t->seconds = (uint32_t)(ns / 1000000000);
	t->nseconds = (uint32_t)(ns % 1000000000);
	return true;
}

static int x_setattr(void *res, void *out)
{
	(void)out;
	return (int)((struct SETATTR3res *)res)->status;
}

int nfsx_setattr(struct nfsx_ctx *c, const struct nfsx_fh *fh, const struct nfsx_sattr *s)
{
	struct SETATTR3args a;

	if (nc_is_v4(c))
		return nc4_setattr(c, fh, s);
	memset(&a, 0, sizeof(a));
	a.object = nc_fh3(fh);
	if (s->set & NFSX_SET_MODE) {
		if (s->mode > 07777)
			return -EINVAL;
		a.new_attributes.mode.set_it = true;
		a.new_attributes.mode.u.mode = s->mode;
	}
	if (s->set & NFSX_SET_UID) {
		a.new_attributes.uid.set_it = true;
		a.new_attributes.uid.u.uid = s->uid;
	}
	if (s->set & NFSX_SET_GID) {
		a.new_attributes.gid.set_it = true;
		a.new_attributes.gid.u.gid = s->gid;
	}
	if (s->set & NFSX_SET_SIZE) {
		a.new_attributes.size.set_it = true;
		a.new_attributes.size.u.size = s->size;
	}
	if (s->set & NFSX_SET_ATIME_NOW) {
		a.new_attributes.atime.set_it = SET_TO_SERVER_TIME;
	} else if (s->set & NFSX_SET_ATIME) {
		a.new_attributes.atime.set_it = SET_TO_CLIENT_TIME;
		if (!time3(s->atime_ns, &a.new_attributes.atime.u.atime))
			return -EINVAL;
	}
	if (s->set & NFSX_SET_MTIME_NOW) {
		a.new_attributes.mtime.set_it = SET_TO_SERVER_TIME;
	} else if (s->set & NFSX_SET_MTIME) {
		a.new_attributes.mtime.set_it = SET_TO_CLIENT_TIME;
		if (!time3(s->mtime_ns, &a.new_attributes.mtime.u.mtime))
			return -EINVAL;
	}
	return nc_sync_call(c, PROC(SETATTR), &a, x_setattr, NULL);
}

static int x_rename(void *res, void *out)
{
	(void)out;
	return (int)((struct RENAME3res *)res)->status;
}

int nfsx_rename(struct nfsx_ctx *c, const struct nfsx_fh *from_dir, const char *from_name,
		const struct nfsx_fh *to_dir, const char *to_name)
{
	struct RENAME3args a = { dirop(from_dir, from_name), dirop(to_dir, to_name) };

	if (nc_is_v4(c))
		return nc4_rename(c, from_dir, from_name, to_dir, to_name);
	return nc_sync_call(c, PROC(RENAME), &a, x_rename, NULL);
}

static int x_link(void *res, void *out)
{
	(void)out;
	return (int)((struct LINK3res *)res)->status;
}

int nfsx_link(struct nfsx_ctx *c, const struct nfsx_fh *fh, const struct nfsx_fh *dir,
	      const char *name)
{
	struct LINK3args a = { nc_fh3(fh), dirop(dir, name) };

	if (nc_is_v4(c))
		return nc4_link(c, fh, dir, name);
	return nc_sync_call(c, PROC(LINK), &a, x_link, NULL);
}

struct link_out {
	char *buf;
	size_t len;
};

/* sync.h; an empty target's data may be NULL */
int nc_link_copy(const struct xdr_bytes *t, char *buf, size_t len)
{
	if (t->len && memchr(t->data, '\0', t->len))
		return -EPROTO;
	if (t->len >= len)
		return -ENAMETOOLONG;
	if (t->len)
		memcpy(buf, t->data, t->len);
	buf[t->len] = '\0';
	return 0;
}

static int x_readlink(void *res, void *out)
{
	struct READLINK3res *r = res;
	struct link_out *o = out;

	if (r->status != NFS3_OK)
		return (int)r->status;
	return nc_link_copy(&r->u.resok.data, o->buf, o->len);
}

int nfsx_readlink(struct nfsx_ctx *c, const struct nfsx_fh *fh, char *buf, size_t len)
{
	struct READLINK3args a = { nc_fh3(fh) };
	struct link_out o = { buf, len };

	if (!len)
		return -ENAMETOOLONG;
	if (nc_is_v4(c))
		return nc4_readlink(c, fh, buf, len);
	return nc_sync_call(c, PROC(READLINK), &a, x_readlink, &o);
}
