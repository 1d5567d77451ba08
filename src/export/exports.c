/* SPDX-License-Identifier: MIT */
/*
 * The export set: building it (limits, duplicate paths, ids), looking
 * exports up, and the messages parsing leaves. The syntax is in
 * exports_parse.c, the per-peer checks in exports_match.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/exports_internal.h"

#define MSG_MAX 512

/* Tokens in messages come from the file: keep control bytes out of logs. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

static void vformat(const struct exports_ctx *ctx, unsigned int line,
		    char *buf, size_t len, const char *fmt, va_list ap)
{
	int n;

	if (!buf || !len)
		return;
	if (ctx->arg)	/* a long argument would crowd out the message */
		n = snprintf(buf, len, "%s \"%.200s%s\": ", ctx->name, ctx->arg,
			     strlen(ctx->arg) > 200 ? "..." : "");
	else if (line)
		n = snprintf(buf, len, "%s:%u: ", ctx->name, line);
	else
		n = snprintf(buf, len, "%s: ", ctx->name);
	if (n < 0)
		n = 0;
	if ((size_t)n < len)
		vsnprintf(buf + n, len - (size_t)n, fmt, ap);
	sanitize(buf);
}

void exports_error(const struct exports_ctx *ctx, unsigned int line,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vformat(ctx, line, ctx->err, ctx->errlen, fmt, ap);
	va_end(ap);
}

void exports_warn(const struct exports_ctx *ctx, unsigned int line,
		  const char *fmt, ...)
{
	struct nfsx_exports *ex = ctx->ex;
	char buf[MSG_MAX];
	va_list ap;

	if (ex->nwarnings >= EXPORTS_MAX_WARNINGS)
		return;
	if (ex->nwarnings == EXPORTS_MAX_WARNINGS - 1) {
		snprintf(buf, sizeof(buf), "%s: more warnings not shown",
			 ctx->name);
	} else {
		va_start(ap, fmt);
		vformat(ctx, line, buf, sizeof(buf), fmt, ap);
		va_end(ap);
	}
	ex->warnings[ex->nwarnings] = strdup(buf);
	if (ex->warnings[ex->nwarnings])
		ex->nwarnings++;
}

int exports_normalize_path(const char *in, char *out, size_t outlen,
			   const char **why)
{
	const char *p = in;
	size_t o = 0, i;

	if (*p != '/') {
		*why = "is not an absolute path";
		return -1;
	}
	while (*p) {
		const char *c;
		size_t n;

		while (*p == '/')
			p++;
		c = p;
		while (*p && *p != '/')
			p++;
		n = (size_t)(p - c);
		if (n == 0 || (n == 1 && c[0] == '.'))
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			*why = "contains \"..\" (symbolic links are not resolved: write the real path)";
			return -1;
		}
		if (o + 1 + n + 1 > outlen) {
			*why = "is too long";
			return -1;
		}
		out[o++] = '/';
		memcpy(out + o, c, n);
		o += n;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = 0;
	for (i = 0; i < o; i++) {
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f) {
			*why = "contains a control character";
			return -1;
		}
	}
	return 0;
}

/* 32-bit FNV-1a: fixed forever, ids end up in clients' file handles. */
static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

static uint32_t derive_id(const struct nfsx_export *e)
{
	uint32_t w = 0;
	int i;

	switch (e->fsid_kind) {
	case NFSX_FSID_NUM:
		return e->fsid;
	case NFSX_FSID_UUID:
		for (i = 0; i < 16; i += 4)
			w ^= (uint32_t)e->uuid[i] << 24 |
			     (uint32_t)e->uuid[i + 1] << 16 |
			     (uint32_t)e->uuid[i + 2] << 8 | e->uuid[i + 3];
		return 0x80000000u | w;
	case NFSX_FSID_NONE:
	default:
		return 0x80000000u | (fnv1a(e->path) & 0x7fffffffu);
	}
}

static void describe_origin(const struct nfsx_export *e, char *buf, size_t len)
{
	if (e->line)
		snprintf(buf, len, "%s:%u", e->source, e->line);
	else
		snprintf(buf, len, "%s", e->source);
}

#define FSID_TEXT_MAX (5 + 32 + 1)	/* "fsid=" and a UUID in hex */

static void describe_fsid(const struct nfsx_export *e, char buf[FSID_TEXT_MAX])
{
	static const char hex[] = "0123456789abcdef";
	int i;

	if (e->fsid_kind == NFSX_FSID_NUM) {
		snprintf(buf, FSID_TEXT_MAX, "fsid=%u", e->fsid);
		return;
	}
	memcpy(buf, "fsid=", 5);
	for (i = 0; i < 16; i++) {
		buf[5 + 2 * i] = hex[e->uuid[i] >> 4];
		buf[6 + 2 * i] = hex[e->uuid[i] & 15];
	}
	buf[5 + 32] = 0;
}

static bool same_fsid(const struct nfsx_export *a, const struct nfsx_export *b)
{
	if (a->fsid_kind != b->fsid_kind || a->fsid_kind == NFSX_FSID_NONE)
		return false;
	if (a->fsid_kind == NFSX_FSID_NUM)
		return a->fsid == b->fsid;
	return memcmp(a->uuid, b->uuid, 16) == 0;
}

int exports_insert(const struct exports_ctx *ctx, struct nfsx_export *e)
{
	struct nfsx_exports *ex = ctx->ex;
	char origin[EXPORTS_PATH_MAX + 32], fsid[FSID_TEXT_MAX];
	unsigned int i;

	if (ex->n >= EXPORTS_MAX) {
		exports_error(ctx, e->line, "too many exports (at most %d)",
			      EXPORTS_MAX);
		return -1;
	}
	e->id = derive_id(e);
	for (i = 0; i < ex->n; i++) {
		const struct nfsx_export *o = ex->v[i];

		if (strcmp(o->path, e->path) == 0) {
			describe_origin(o, origin, sizeof(origin));
			exports_error(ctx, e->line,
				      "\"%s\" is already exported (%s); give all its clients on one line",
				      e->path, origin);
			return -1;
		}
		if (same_fsid(o, e)) {
			describe_origin(o, origin, sizeof(origin));
			describe_fsid(e, fsid);
			exports_error(ctx, e->line,
				      "%s of \"%s\" is already used by \"%s\" (%s)",
				      fsid, e->path, o->path, origin);
			return -1;
		}
		if (o->id == e->id) {
			describe_origin(o, origin, sizeof(origin));
			exports_error(ctx, e->line,
				      "\"%s\" would have the same id (%#x) as \"%s\" (%s): give one of them an fsid= option",
				      e->path, e->id, o->path, origin);
			return -1;
		}
	}
	if (ex->n == ex->cap) {
		unsigned int cap = ex->cap ? ex->cap * 2 : 16;
		struct nfsx_export **v = realloc(ex->v, cap * sizeof(*v));

		if (!v) {
			exports_error(ctx, e->line, "out of memory");
			return -1;
		}
		ex->v = v;
		ex->cap = cap;
	}
	e->source = ctx->arg ? "--export" : ex->name;
	e->index = ex->n;
	ex->v[ex->n++] = e;
	return 0;
}

void exports_export_free(struct nfsx_export *e)
{
	unsigned int i;

	if (!e)
		return;
	for (i = 0; i < e->nclients; i++)
		free(e->clients[i].spec);
	free(e->clients);
	free(e->path);
	free(e);
}

struct nfsx_exports *exports_new(void)
{
	return calloc(1, sizeof(struct nfsx_exports));
}

void exports_free(struct nfsx_exports *ex)
{
	unsigned int i;

	if (!ex)
		return;
	for (i = 0; i < ex->n; i++)
		exports_export_free(ex->v[i]);
	for (i = 0; i < ex->nwarnings; i++)
		free(ex->warnings[i]);
	free(ex->v);
	free(ex->name);
	free(ex);
}

unsigned int exports_count(const struct nfsx_exports *ex)
{
	return ex->n;
}

const struct nfsx_export *exports_next(const struct nfsx_exports *ex,
				       const struct nfsx_export *prev)
{
	unsigned int i = prev ? prev->index + 1 : 0;

	return i < ex->n ? ex->v[i] : NULL;
}

const struct nfsx_export *exports_find_path(const struct nfsx_exports *ex,
					    const char *path)
{
	char norm[EXPORTS_PATH_MAX];
	const char *why;
	unsigned int i;

	if (!path || exports_normalize_path(path, norm, sizeof(norm), &why))
		return NULL;
	for (i = 0; i < ex->n; i++)
		if (strcmp(ex->v[i]->path, norm) == 0)
			return ex->v[i];
	return NULL;
}

const struct nfsx_export *exports_find_id(const struct nfsx_exports *ex,
					  uint32_t id)
{
	unsigned int i;

	for (i = 0; i < ex->n; i++)
		if (ex->v[i]->id == id)
			return ex->v[i];
	return NULL;
}

unsigned int exports_warning_count(const struct nfsx_exports *ex)
{
	return ex->nwarnings;
}

const char *exports_warning(const struct nfsx_exports *ex, unsigned int i)
{
	return i < ex->nwarnings ? ex->warnings[i] : NULL;
}
