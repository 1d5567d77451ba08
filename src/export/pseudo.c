/* SPDX-License-Identifier: MIT */
/* The NFSv4 pseudo file system: see pseudo.h. */
#include "export/pseudo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* 64-bit FNV-1a of a path: the handle id of its pseudo directory. */
static uint64_t path_id(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 0x100000001b3ull;
	return h;
}

/* Is @path @dir itself or below it ("/" is above everything)? */
static bool at_or_below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == 0 || path[n] == '/');
}

/* Is @e below another export of @set (not the same path)? */
static bool nested(const struct nfsx_exports *set, const struct nfsx_export *e)
{
	const struct nfsx_export *o = NULL;

	while ((o = exports_next(set, o)))
		if (o != e && strcmp(o->path, e->path) != 0 && at_or_below(e->path, o->path))
			return true;
	return false;
}

static uint32_t add_node(struct export_pseudo *p, uint32_t *cap, uint32_t parent,
			 const char *path, size_t plen)
{
	struct export_pseudo_node *x;
	const char *slash;

	if (p->n == *cap) {
		uint32_t nc = *cap ? *cap * 2 : 16;
		struct export_pseudo_node *nn = realloc(p->nodes, nc * sizeof(*nn));

		if (!nn)
			return PSEUDO_NONE;
		p->nodes = nn;
		*cap = nc;
	}
	x = &p->nodes[p->n];
	memset(x, 0, sizeof(*x));
	x->path = strndup(path, plen);
	if (!x->path)
		return PSEUDO_NONE;
	slash = strrchr(x->path, '/');
	x->name = strdup(plen <= 1 ? "" : slash + 1);
	if (!x->name) {
		free(x->path);
		return PSEUDO_NONE;
	}
	x->id = path_id(x->path);
	x->parent = parent == PSEUDO_NONE ? p->n : parent;
	x->child = x->next = PSEUDO_NONE;
	if (parent != PSEUDO_NONE) {
		x->next = p->nodes[parent].child;
		p->nodes[parent].child = p->n;
	}
	return p->n++;
}

/* The node of @path (@plen bytes) under node @dir, made if missing. */
static uint32_t step(struct export_pseudo *p, uint32_t *cap, uint32_t dir, const char *path,
		     size_t plen)
{
	uint32_t i;

	for (i = p->nodes[dir].child; i != PSEUDO_NONE; i = p->nodes[i].next)
		if (strlen(p->nodes[i].path) == plen && memcmp(p->nodes[i].path, path, plen) == 0)
			return i;
	return add_node(p, cap, dir, path, plen);
}

int export_pseudo_build(const struct nfsx_exports *set, struct export_pseudo *p)
{
	const struct nfsx_export *e = NULL;
	uint32_t cap = 0;

	memset(p, 0, sizeof(*p));
	p->nsec = exports_sec_union(set, p->sec);
	while ((e = exports_next(set, e)))
		if (e->fsid_kind == NFSX_FSID_NUM && e->fsid == 0)
			p->root_exp = e;
	if (p->root_exp) {
		while ((e = exports_next(set, e)))
			if (!at_or_below(e->path, p->root_exp->path))
				p->unreachable++;
		return 0;
	}
	if (add_node(p, &cap, PSEUDO_NONE, "/", 1) == PSEUDO_NONE)
		goto nomem;
	while ((e = exports_next(set, e))) {
		const char *s = e->path;
		uint32_t at = 0;

		if (nested(set, e))
			continue;
		if (strcmp(s, "/") == 0) {
			p->nodes[0].exp = e;
			continue;
		}
		while (*s) {
			const char *end = strchr(s + 1, '/');
			size_t plen = end ? (size_t)(end - e->path) : strlen(e->path);

			at = step(p, &cap, at, e->path, plen);
			if (at == PSEUDO_NONE)
				goto nomem;
			s = e->path + plen;
		}
		/* two exports of one path: the first set's rules apply, as
		 * exports_find_path finds */
		if (!p->nodes[at].exp)
			p->nodes[at].exp = e;
	}
	return 0;
nomem:
	export_pseudo_free(p);
	return -ENOMEM;
}

void export_pseudo_free(struct export_pseudo *p)
{
	uint32_t i;

	for (i = 0; i < p->n; i++) {
		free(p->nodes[i].name);
		free(p->nodes[i].path);
	}
	free(p->nodes);
	memset(p, 0, sizeof(*p));
}

uint32_t export_pseudo_lookup(const struct export_pseudo *p, uint32_t dir, const char *name,
			      size_t len)
{
	uint32_t i;

	if (dir >= p->n)
		return PSEUDO_NONE;
	if (len == 1 && name[0] == '.')
		return dir;
	if (len == 2 && name[0] == '.' && name[1] == '.')
		return p->nodes[dir].parent;
	for (i = p->nodes[dir].child; i != PSEUDO_NONE; i = p->nodes[i].next)
		if (strlen(p->nodes[i].name) == len && memcmp(p->nodes[i].name, name, len) == 0)
			return i;
	return PSEUDO_NONE;
}

uint32_t export_pseudo_node_of(const struct export_pseudo *p, const struct nfsx_export *e)
{
	uint32_t i;

	for (i = 0; i < p->n; i++)
		if (p->nodes[i].exp == e)
			return i;
	return PSEUDO_NONE;
}

uint32_t export_pseudo_by_id(const struct export_pseudo *p, uint64_t id)
{
	uint32_t i;

	for (i = 0; i < p->n; i++)
		if (p->nodes[i].id == id)
			return i;
	return PSEUDO_NONE;
}

bool export_pseudo_visible(const struct export_pseudo *p, uint32_t i,
			   bool (*admits)(const struct nfsx_export *e, void *arg), void *arg)
{
	uint32_t c;

	if (i >= p->n)
		return false;
	if (p->nodes[i].exp && admits(p->nodes[i].exp, arg))
		return true;
	/* depth-first without recursion: the tree is at most PATH_MAX deep */
	c = p->nodes[i].child;
	while (c != PSEUDO_NONE) {
		if (p->nodes[c].exp && admits(p->nodes[c].exp, arg))
			return true;
		if (p->nodes[c].child != PSEUDO_NONE) {
			c = p->nodes[c].child;
			continue;
		}
		while (c != i && p->nodes[c].next == PSEUDO_NONE)
			c = p->nodes[c].parent;
		if (c == i)
			break;
		c = p->nodes[c].next;
	}
	return false;
}

int export_pseudo_handle(const uint8_t key[FH_KEY_LEN], const struct export_pseudo *p,
			 uint32_t i, struct nfsx_fh *fh)
{
	struct fh_parts parts = {
		.export_id = 0, .kernel_type = FH_PSEUDO_TYPE, .kernel_len = 8,
	};
	uint64_t id;
	int b;

	if (i >= p->n)
		return -1;
	id = p->nodes[i].id;
	for (b = 0; b < 8; b++)
		parts.kernel[b] = (uint8_t)(id >> (56 - 8 * b));
	return fh_encode(key, &parts, fh);
}

bool export_pseudo_parts(const struct fh_parts *parts, uint64_t *id)
{
	int b;

	if (parts->kernel_type != FH_PSEUDO_TYPE || parts->kernel_len != 8 ||
	    parts->export_id != 0)
		return false;
	*id = 0;
	for (b = 0; b < 8; b++)
		*id = *id << 8 | parts->kernel[b];
	return true;
}
