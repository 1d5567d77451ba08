/* SPDX-License-Identifier: MIT */
/*
 * Path-oriented helpers of the synchronous API: mounting (MNT, or the
 * export that is the longest prefix of a path from EXPORT), resolving a
 * path one LOOKUP at a time, mkdir -p, paged directory listing and a
 * depth-first walk.
 *
 * Directory pages are copied out of the reply before the application
 * sees them, so its callback may use the synchronous API (walk does).
 * The walk keeps an explicit stack, never recursion: a server
 * presenting endless nesting ends at the 4096-byte path limit.
 */
#include "client/sync.h"
#include "client/sync4.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xdr/gen/mount3.h"
#include "xdr/gen/nfs3.h"

#define WALK_PATH_MAX 4096u
#define READDIR_COUNT (32u << 10)
#define READDIRPLUS_MAX (128u << 10)

/* MNT / UMNT / EXPORT */

static int x_mnt(void *res, void *out)
{
	struct mountres3 *r = res;

	if (r->fhs_status != MNT3_OK)
		return NFSX_MNT3ERR(r->fhs_status);
	return nc_fh_copy(out, &r->u.mountinfo.fhandle);
}

int nfsx_mount(struct nfsx_ctx *c, const char *export, struct nfsx_fh *root)
{
	dirpath3 p = { (const uint8_t *)export, (uint32_t)strlen(export) };
	struct nfsx_fh fh;
	int r;

	if (nc_is_v4(c))
		return nc4_mount(c, export, root);

	if (p.len > MNTPATHLEN)
		return -ENAMETOOLONG;
	r = nc_sync_call(c, &nfsx_mnt3_procs[MOUNTPROC3_MNT], &p, x_mnt, &fh);
	if (r != 0)
		return r;
	c->root = fh;
	c->mounted = true;
	memcpy(c->mnt_path, export, p.len + 1);
	if (root)
		*root = fh;
	return 0;
}

int nfsx_umount(struct nfsx_ctx *c)
{
	dirpath3 p = { (const uint8_t *)c->mnt_path, (uint32_t)strlen(c->mnt_path) };
	int r;

	if (!c->mounted)
		return -ENOTCONN;
	if (nc_is_v4(c)) {
		/* NFSv4 has no mount protocol: nothing to tell the server. */
		c->mounted = false;
		return 0;
	}
	r = nc_sync_call(c, &nfsx_mnt3_procs[MOUNTPROC3_UMNT], &p, NULL, NULL);
	if (r == 0)
		c->mounted = false;
	return r;
}

struct best_export {
	const char *path;
	char dir[MNTPATHLEN + 1];
	size_t len;
	bool found;
};

/* @dir is a whole-component prefix of @path ("/" matches everything). */
static bool is_prefix(const char *path, const uint8_t *dir, size_t len)
{
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (len == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(path, (const char *)dir, len) == 0 &&
	       memchr(dir, '\0', len) == NULL && (path[len] == '\0' || path[len] == '/');
}

static int x_export(void *res, void *out)
{
	struct best_export *b = out;
	const struct exportnode *e;

	for (e = *(exports3 *)res; e; e = e->ex_next) {
		size_t len = e->ex_dir.len;

		if (len == 0 || len > MNTPATHLEN || (b->found && len <= b->len) ||
		    !is_prefix(b->path, e->ex_dir.data, len))
			continue;
		memcpy(b->dir, e->ex_dir.data, len);
		b->dir[len] = '\0';
		b->len = len;
		b->found = true;
	}
	return 0;
}

int nfsx_mount_path(struct nfsx_ctx *c, const char *path, struct nfsx_fh *root,
		    const char **rest)
{
	struct best_export b = { .path = path };
	size_t skip;
	int r;

	if (nc_is_v4(c))
		return nc4_mount_path(c, path, root, rest);

	r = nc_sync_call(c, &nfsx_mnt3_procs[MOUNTPROC3_EXPORT], NULL, x_export, &b);
	if (r != 0)
		return r;
	if (!b.found)
		return NFSX_MNT3ERR(MNT3ERR_NOENT);
	r = nfsx_mount(c, b.dir, root);
	if (r != 0)
		return r;
	/* The matched part of @path, without trailing slashes of the export. */
	skip = b.len;
	while (skip > 1 && b.dir[skip - 1] == '/')
		skip--;
	if (skip == 1 && b.dir[0] == '/')
		skip = 0;
	path += skip;
	while (*path == '/')
		path++;
	if (rest)
		*rest = path;
	return 0;
}

/* Paths */

size_t nc_next_component(const char **p)
{
	for (;;) {
		size_t n;

		while (**p == '/')
			(*p)++;
		n = strcspn(*p, "/");
		if (n == 1 && (*p)[0] == '.') {
			*p += 1;
			continue;
		}
		return n;
	}
}

static int copy_name(char *dst, const char *src, size_t n)
{
	if (n > 255)
		return NFS3ERR_NAMETOOLONG;
	memcpy(dst, src, n);
	dst[n] = '\0';
	return 0;
}

int nfsx_resolve(struct nfsx_ctx *c, const char *path, struct nfsx_fh *fh,
		 struct nfsx_attr *attr)
{
	struct nfsx_fh cur;
	char name[256];
	size_t n;
	int r;

	if (nc_is_v4(c))
		return nc4_resolve(c, path, fh, attr);

	if (!c->mounted)
		return -ENOTCONN;
	cur = c->root;
	while ((n = nc_next_component(&path)) > 0) {
		if ((r = copy_name(name, path, n)) != 0)
			return r;
		path += n;
		r = nfsx_lookup(c, &cur, name, &cur, NULL);
		if (r != 0)
			return r;
	}
	if (attr && (r = nfsx_getattr(c, &cur, attr)) != 0)
		return r;
	if (fh)
		*fh = cur;
	return 0;
}

int nfsx_mkdir_p(struct nfsx_ctx *c, const char *path, uint32_t mode, struct nfsx_fh *fh)
{
	struct nfsx_fh cur, next;
	struct nfsx_attr a;
	char name[256];
	size_t n;
	int r;

	if (!c->mounted)
		return -ENOTCONN;
	cur = c->root;
	while ((n = nc_next_component(&path)) > 0) {
		if ((r = copy_name(name, path, n)) != 0)
			return r;
		path += n;
		r = nfsx_lookup(c, &cur, name, &next, &a);
		if (r == NFS3ERR_NOENT) {
			r = nfsx_mkdir(c, &cur, name, mode, &next);
			if (r == NFS3ERR_EXIST) /* made by someone else meanwhile */
				r = nfsx_lookup(c, &cur, name, &next, &a);
			else if (r == 0)
				a.type = NF3DIR;
		}
		if (r != 0)
			return r;
		if (a.type != NF3DIR)
			return NFS3ERR_NOTDIR;
		cur = next;
	}
	if (fh)
		*fh = cur;
	return 0;
}

/* READDIR / READDIRPLUS, one page copied out of the reply */

struct page {
	struct nfsx_dirent *e;
	size_t n;
	char *names;
	bool eof;
	cookieverf3 verf;
};

static void page_free(struct page *pg)
{
	free(pg->e);
	free(pg->names);
	memset(pg, 0, sizeof(*pg));
}

/* Room for @n entries with @bytes of names. */
static int page_alloc(struct page *pg, size_t n, size_t bytes)
{
	pg->e = calloc(n ? n : 1, sizeof(*pg->e));
	pg->names = malloc(bytes ? bytes : 1);
	if (!pg->e || !pg->names)
		return -ENOMEM;
	return 0;
}

static void put_name(struct page *pg, size_t *used, struct nfsx_dirent *d,
		     const struct xdr_bytes *name)
{
	d->name = pg->names + *used;
	memcpy(pg->names + *used, name->data, name->len);
	pg->names[*used + name->len] = '\0';
	*used += name->len + 1;
}

static int x_readdir(void *res, void *out)
{
	struct READDIR3res *r = res;
	struct page *pg = out;
	const struct entry3 *e;
	size_t n = 0, bytes = 0, used = 0;

	if (r->status != NFS3_OK)
		return (int)r->status;
	for (e = r->u.resok.reply.entries; e; e = e->nextentry) {
		n++;
		bytes += e->name.len + 1;
	}
	if (page_alloc(pg, n, bytes) < 0)
		return -ENOMEM;
	for (e = r->u.resok.reply.entries; e; e = e->nextentry) {
		struct nfsx_dirent *d = &pg->e[pg->n++];

		put_name(pg, &used, d, &e->name);
		d->fileid = e->fileid;
		d->cookie = e->cookie;
	}
	pg->eof = r->u.resok.reply.eof;
	pg->verf = r->u.resok.cookieverf;
	return 0;
}

static int x_readdirplus(void *res, void *out)
{
	struct READDIRPLUS3res *r = res;
	struct page *pg = out;
	const struct entryplus3 *e;
	size_t n = 0, bytes = 0, used = 0;

	if (r->status != NFS3_OK)
		return (int)r->status;
	for (e = r->u.resok.reply.entries; e; e = e->nextentry) {
		n++;
		bytes += e->name.len + 1;
	}
	if (page_alloc(pg, n, bytes) < 0)
		return -ENOMEM;
	for (e = r->u.resok.reply.entries; e; e = e->nextentry) {
		struct nfsx_dirent *d = &pg->e[pg->n++];

		put_name(pg, &used, d, &e->name);
		d->fileid = e->fileid;
		d->cookie = e->cookie;
		if (e->name_attributes.attributes_follow) {
			d->has_attr = true;
			nc_attr_from_fattr3(&d->attr, &e->name_attributes.u.attributes);
		}
		if (e->name_handle.handle_follows &&
		    nc_fh_copy(&d->fh, &e->name_handle.u.handle.data) < 0)
			return -EPROTO;
	}
	pg->eof = r->u.resok.reply.eof;
	pg->verf = r->u.resok.cookieverf;
	return 0;
}

int nfsx_readdir(struct nfsx_ctx *c, const struct nfsx_fh *dir, bool plus,
		 nfsx_dirent_fn fn, void *priv)
{
	uint64_t cookie = 0;
	cookieverf3 verf = { { 0 } };

	if (nc_is_v4(c))
		return nc4_readdir(c, dir, plus, fn, priv);

	for (;;) {
		struct page pg = { 0 };
		size_t i;
		int r;

		if (plus) {
			struct READDIRPLUS3args a = { nc_fh3(dir), cookie, verf, READDIR_COUNT,
						      READDIRPLUS_MAX };

			r = nc_sync_call(c, &nfsx_nfs3_procs[NFSPROC3_READDIRPLUS], &a,
					 x_readdirplus, &pg);
		} else {
			struct READDIR3args a = { nc_fh3(dir), cookie, verf, READDIR_COUNT };

			r = nc_sync_call(c, &nfsx_nfs3_procs[NFSPROC3_READDIR], &a, x_readdir, &pg);
		}
		for (i = 0; r == 0 && i < pg.n; i++)
			r = fn(&pg.e[i], priv);
		/* A page that does not move the cookie would loop forever. */
		if (r == 0 && !pg.eof && (pg.n == 0 || pg.e[pg.n - 1].cookie == cookie))
			r = -EPROTO;
		if (r == 0 && !pg.eof) {
			cookie = pg.e[pg.n - 1].cookie;
			verf = pg.verf;
		}
		if (r != 0 || pg.eof) {
			page_free(&pg);
			return r;
		}
		page_free(&pg);
	}
}

/* Walk */

struct walk_dir {
	struct nfsx_fh fh;
	char *rel;
};

struct walk_stack {
	struct walk_dir *d;
	size_t n, cap;
};

static int push(struct walk_stack *s, const struct nfsx_fh *fh, char *rel)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct walk_dir *d = realloc(s->d, cap * sizeof(*d));

		if (!d)
			return -ENOMEM;
		s->d = d;
		s->cap = cap;
	}
	s->d[s->n].fh = *fh;
	s->d[s->n++].rel = rel;
	return 0;
}

static void stack_free(struct walk_stack *s)
{
	while (s->n)
		free(s->d[--s->n].rel);
	free(s->d);
	s->d = NULL;
	s->cap = 0;
}

struct walk_state {
	struct nfsx_ctx *c;
	nfsx_walk_fn fn;
	void *priv;
	struct nfsx_fh dir;        /* the directory being listed */
	const char *rel;           /* its path relative to the walk's start */
	struct walk_stack kids;    /* its subdirectories, in listing order */
};

static int walk_entry(const struct nfsx_dirent *e, void *priv)
{
	struct walk_state *w = priv;
	struct nfsx_dirent copy = *e;
	size_t rl = strlen(w->rel), nl = strlen(e->name);
	char *rel;
	int r;

	if (!strcmp(e->name, ".") || !strcmp(e->name, ".."))
		return 0;
	if (rl + 1 + nl + 1 > WALK_PATH_MAX)
		return -ENAMETOOLONG;
	rel = malloc(rl + 1 + nl + 1);
	if (!rel)
		return -ENOMEM;
	memcpy(rel, w->rel, rl);
	if (rl)
		rel[rl++] = '/';
	memcpy(rel + rl, e->name, nl + 1);
	if (!copy.has_attr || !copy.fh.len) {
		/* The server left something out: ask for it. */
		r = nfsx_lookup(w->c, &w->dir, e->name, &copy.fh, &copy.attr);
		if (r != 0) {
			free(rel);
			return r;
		}
		copy.has_attr = true;
	}
	r = w->fn(rel, &copy, w->priv);
	if (r == 0 && copy.attr.type == NF3DIR) {
		r = push(&w->kids, &copy.fh, rel);
		if (r == 0)
			return 0;
	}
	free(rel);
	return r;
}

int nfsx_walk(struct nfsx_ctx *c, const char *path, nfsx_walk_fn fn, void *priv)
{
	struct walk_state w = { .c = c, .fn = fn, .priv = priv };
	struct walk_stack todo = { 0 };
	struct nfsx_attr a;
	struct nfsx_fh fh;
	char *top;
	int r;

	r = nfsx_resolve(c, path, &fh, &a);
	if (r != 0)
		return r;
	if (a.type != NF3DIR)
		return NFS3ERR_NOTDIR;
	top = strdup("");
	if (!top || push(&todo, &fh, top) < 0) {
		free(top);
		return -ENOMEM;
	}
	while (r == 0 && todo.n) {
		struct walk_dir d = todo.d[--todo.n];

		w.dir = d.fh;
		w.rel = d.rel;
		r = nfsx_readdir(c, &d.fh, true, walk_entry, &w);
		free(d.rel);
		/* Children go on the stack last-first, so the first is next. */
		while (r == 0 && w.kids.n) {
			struct walk_dir k = w.kids.d[--w.kids.n];

			r = push(&todo, &k.fh, k.rel);
			if (r < 0)
				free(k.rel);
		}
		stack_free(&w.kids);
	}
	stack_free(&todo);
	return r;
}
