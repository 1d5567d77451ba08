/* SPDX-License-Identifier: MIT */
/*
 * The exports(5) syntax: lines (continuations, comments, quotes),
 * options, client specifications, and the --export DIR[:OPTIONS] form,
 * which goes through the same option and path code.
 *
 * Memory is bounded by the input limits: one line buffer of
 * EXPORTS_MAX_LINE bytes, whatever the file's size, and every loop is
 * over bytes already read, so nothing here recurses.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "export/exports_internal.h"
#include "util/num.h"

/* Linux's defaults (exports(5)); no_subtree_check since nfs-utils 1.1. */
static const struct nfsx_export_opts default_opts = {
	.rw = false,
	.async = false,
	.root_squash = true,
	.all_squash = false,
	.secure = true,
	.subtree_check = false,
	.wdelay = true,
	.nohide = false,
	.crossmnt = false,
	.insecure_locks = false,
	.anonuid = EXPORTS_ANON_ID,
	.anongid = EXPORTS_ANON_ID,
};

/* ---- lines ---------------------------------------------------------- */

/* The input: a FILE, or a NUL-terminated string. */
struct reader {
	FILE *f;
	const char *s;
	unsigned int line;	/* physical lines consumed */
};

static int get_byte(struct reader *r)
{
	if (r->f)
		return getc(r->f);
	return *r->s ? (unsigned char)*r->s++ : EOF;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/*
 * The next logical line into @buf (EXPORTS_MAX_LINE + 1 bytes). A
 * backslash ending a physical line (trailing blanks allowed) joins the
 * next one; the backslash becomes '\n', a blank the lexer counts, so
 * tokens on continuation lines are reported with their own line number.
 * Return values: 1 a line, *@first its first line number; 0 the end;
 * -1 error (message set).
 */
static int read_line(const struct exports_ctx *ctx, struct reader *r,
		     char *buf, unsigned int *first)
{
	size_t len = 0, phys = 0, k;
	bool any = false;
	int c;

	*first = r->line + 1;
	for (;;) {
		c = get_byte(r);
		if (c == EOF && r->f && ferror(r->f)) {
			exports_error(ctx, r->line + 1, "read error: %s",
				      strerror(errno));
			return -1;
		}
		if (c == EOF && !any)
			return 0;
		any = true;
		if (c == 0) {
			exports_error(ctx, r->line + 1, "NUL byte in the file");
			return -1;
		}
		if (c == '\n' || c == EOF) {
			r->line++;
			k = len;
			while (k > phys && is_blank(buf[k - 1]))
				k--;
			if (k > phys && buf[k - 1] == '\\') {
				buf[k - 1] = '\n';
				len = phys = k;
				if (c == '\n')
					continue;
			}
			break;
		}
		if (len >= EXPORTS_MAX_LINE) {
			exports_error(ctx, r->line + 1,
				      "line longer than %d bytes",
				      EXPORTS_MAX_LINE);
			return -1;
		}
		buf[len++] = (char)c;
	}
	buf[len] = 0;
	return 1;
}

/* ---- words ---------------------------------------------------------- */

struct lexer {
	char *p;		/* next byte to read */
	unsigned int line;	/* the line *p is on */
};

/*
 * The next word of the line, in place: quotes ("...") removed, blanks
 * inside them kept. '#' starting a word comments out the rest.
 * Return values: 1 a word in *@tok, on line *@tline; 0 no more words;
 * -1 an unterminated quote (on line *@tline).
 */
static int next_word(struct lexer *lx, char **tok, unsigned int *tline)
{
	char *r = lx->p, *w;
	bool quoted = false;
	char delim;

	for (; is_blank(*r); r++)
		if (*r == '\n')
			lx->line++;
	if (!*r || *r == '#') {
		lx->p = r + strlen(r);
		return 0;
	}
	*tok = w = r;
	*tline = lx->line;
	for (; *r; r++) {
		if (*r == '"') {
			quoted = !quoted;
			continue;
		}
		if (!quoted && is_blank(*r))
			break;
		if (*r == '\n')
			lx->line++;
		*w++ = *r;
	}
	if (quoted)
		return -1;
	delim = *r;		/* read before the NUL may overwrite it */
	*w = 0;
	if (delim) {
		if (delim == '\n')
			lx->line++;
		r++;
	}
	lx->p = r;
	return 1;
}

/* ---- options -------------------------------------------------------- */

struct flag_opt {
	const char *name;
	size_t off;		/* of a bool in struct nfsx_export_opts */
	bool val;
	bool ignored;		/* accepted, no effect: warn */
};

#define OPT(f) offsetof(struct nfsx_export_opts, f)

static const struct flag_opt flag_opts[] = {
	{ "rw", OPT(rw), true, false },
	{ "ro", OPT(rw), false, false },
	/* Every WRITE honours its stable_how and COMMIT syncs, as with
	 * sync; nfsxd never answers before the data is where the client
	 * asked, so async changes nothing (and is warned about). */
	{ "async", OPT(async), true, true },
	{ "sync", OPT(async), false, false },
	{ "root_squash", OPT(root_squash), true, false },
	{ "no_root_squash", OPT(root_squash), false, false },
	{ "all_squash", OPT(all_squash), true, false },
	{ "no_all_squash", OPT(all_squash), false, false },
	{ "secure", OPT(secure), true, false },
	{ "insecure", OPT(secure), false, false },
	{ "subtree_check", OPT(subtree_check), true, false },
	{ "no_subtree_check", OPT(subtree_check), false, false },
	/* nfsxd never holds a write back to gather it with others, as
	 * no_wdelay; an explicit wdelay changes nothing. */
	{ "wdelay", OPT(wdelay), true, true },
	{ "no_wdelay", OPT(wdelay), false, false },
	{ "nohide", OPT(nohide), true, false },
	{ "hide", OPT(nohide), false, false },
	{ "crossmnt", OPT(crossmnt), true, false },
	/* NLM options (and their old names): accepted so that Linux
	 * exports files load; they change nothing here. */
	{ "insecure_locks", OPT(insecure_locks), true, true },
	{ "no_auth_nlm", OPT(insecure_locks), true, true },
	{ "secure_locks", OPT(insecure_locks), false, true },
	{ "auth_nlm", OPT(insecure_locks), false, true },
};

/* 32 hex digits, dashes anywhere between them ignored. */
static bool parse_uuid(const char *s, size_t n, uint8_t uuid[16])
{
	unsigned int digits = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		int v = util_hexval(s[i]);

		if (s[i] == '-')
			continue;
		if (v < 0 || digits == 32)
			return false;
		if (digits % 2 == 0)
			uuid[digits / 2] = (uint8_t)(v << 4);
		else
			uuid[digits / 2] |= (uint8_t)v;
		digits++;
	}
	return digits == 32;
}

/* fsid=... belongs to the export: every client list must agree. */
static int parse_fsid(const struct exports_ctx *ctx, unsigned int line,
		      const char *opt, size_t n, struct nfsx_export *e)
{
	const char *v = opt + 5;
	size_t vn = n - 5;
	struct nfsx_export f = { .fsid_kind = NFSX_FSID_NUM };

	if (word_is(v, vn, "root"))
		f.fsid = 0;
	else if (!util_parse_u32(v, vn, 0, UINT32_MAX, &f.fsid)) {
		f.fsid_kind = NFSX_FSID_UUID;
		if (!parse_uuid(v, vn, f.uuid)) {
			exports_error(ctx, line,
				      "bad fsid \"%.*s\": give 0, root, a number up to 4294967295 or a UUID of 32 hex digits",
				      (int)n, opt);
			return -1;
		}
	}
	if (e->fsid_kind != NFSX_FSID_NONE &&
	    (e->fsid_kind != f.fsid_kind ||
	     (f.fsid_kind == NFSX_FSID_NUM ? e->fsid != f.fsid :
	      memcmp(e->uuid, f.uuid, 16) != 0))) {
		exports_error(ctx, line,
			      "conflicting \"%.*s\": this export has another fsid already",
			      (int)n, opt);
		return -1;
	}
	e->fsid_kind = f.fsid_kind;
	e->fsid = f.fsid;
	memcpy(e->uuid, f.uuid, 16);
	return 0;
}

/*
 * Apply the comma-separated @list (@n bytes, not NUL-terminated) to @o;
 * fsid= goes to @e. Later options override earlier ones, as in Linux.
 * Return values: 0, or -1 with the message set.
 */
static int parse_options(const struct exports_ctx *ctx, unsigned int line,
			 const char *list, size_t n,
			 struct nfsx_export_opts *o, struct nfsx_export *e)
{
	const char *p = list, *end = list + n;
	size_t i;

	if (n == 0)
		return 0;
	while (p <= end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		size_t len = c ? (size_t)(c - p) : (size_t)(end - p);
		uint32_t *num = NULL;

		if (len == 0) {
			exports_error(ctx, line,
				      "empty option in \"%.*s\" (a stray comma?)",
				      (int)n, list);
			return -1;
		}
		for (i = 0; i < sizeof(flag_opts) / sizeof(flag_opts[0]); i++)
			if (word_is(p, len, flag_opts[i].name))
				break;
		if (i < sizeof(flag_opts) / sizeof(flag_opts[0])) {
			*(bool *)((char *)o + flag_opts[i].off) = flag_opts[i].val;
			if (flag_opts[i].ignored)
				exports_warn(ctx, line,
					     "option \"%s\" is accepted but has no effect",
					     flag_opts[i].name);
		} else if (len >= 8 && memcmp(p, "anonuid=", 8) == 0) {
			num = &o->anonuid;
		} else if (len >= 8 && memcmp(p, "anongid=", 8) == 0) {
			num = &o->anongid;
		} else if (len >= 5 && memcmp(p, "fsid=", 5) == 0) {
			if (parse_fsid(ctx, line, p, len, e))
				return -1;
		} else if (len >= 4 && memcmp(p, "sec=", 4) == 0) {
			if (exports_parse_sec(ctx, line, p, len, o))
				return -1;
		} else {
			exports_error(ctx, line, "unknown option \"%.*s\"",
				      (int)len, p);
			return -1;
		}
		/* (uint32_t)-1 is no id: setfsuid() would ignore it. */
		if (num && !util_parse_u32(p + 8, len - 8, 0, UINT32_MAX - 1, num)) {
			exports_error(ctx, line,
				      "bad number in \"%.*s\": give 0 to 4294967294",
				      (int)len, p);
			return -1;
		}
		p += len + 1;
	}
	return 0;
}

/* ---- clients -------------------------------------------------------- */

/* Append a parsed rule to @e; @c->spec is taken over on success. */
static int append_client(const struct exports_ctx *ctx, struct nfsx_export *e,
			 struct nfsx_export_client *c)
{
	unsigned int i;

	if (e->nclients >= EXPORTS_MAX_CLIENTS) {
		exports_error(ctx, c->line,
			      "too many clients for \"%s\" (at most %d)",
			      e->path, EXPORTS_MAX_CLIENTS);
		return -1;
	}
	for (i = 0; i < e->nclients; i++) {
		if (strcasecmp(e->clients[i].spec, c->spec) == 0) {
			exports_warn(ctx, c->line,
				     "client \"%s\" is listed twice for \"%s\": the first one wins",
				     c->spec, e->path);
			break;
		}
	}
	/* Grow by doubling: the cap keeps this at most 9 reallocs. */
	if ((e->nclients & (e->nclients - 1)) == 0) {
		unsigned int cap = e->nclients ? e->nclients * 2 : 1;
		struct nfsx_export_client *v;

		v = realloc(e->clients, cap * sizeof(*v));
		if (!v) {
			exports_error(ctx, c->line, "out of memory");
			return -1;
		}
		e->clients = v;
	}
	e->clients[e->nclients++] = *c;
	return 0;
}

/* One "client" or "client(options)" word. */
static int add_client(const struct exports_ctx *ctx, struct nfsx_export *e,
		      char *word, unsigned int line,
		      const struct nfsx_export_opts *defaults)
{
	struct nfsx_export_client c = { .line = line, .opts = *defaults };
	char *open = strchr(word, '(');
	size_t n = strlen(word);

	if (word[0] == '-') {
		exports_error(ctx, line,
			      "default options \"%s\" must come right after the path",
			      word);
		return -1;
	}
	if (open == word) {
		exports_error(ctx, line,
			      "no client before \"%s\" (write \"*%s\" to export to everyone)",
			      word, word);
		return -1;
	}
	if (open) {
		if (word[n - 1] != ')' || strpbrk(open + 1, "()") != word + n - 1) {
			exports_error(ctx, line,
				      "bad parentheses in \"%s\" (a blank inside the option list?)",
				      word);
			return -1;
		}
		*open = 0;
		if (parse_options(ctx, line, open + 1,
				  (size_t)(word + n - 1 - (open + 1)), &c.opts, e))
			return -1;
	} else if (strchr(word, ')')) {
		exports_error(ctx, line, "bad parentheses in \"%s\"", word);
		return -1;
	}
	if (exports_parse_client(ctx, line, word, &c))
		return -1;
	c.spec = strdup(word);
	if (!c.spec) {
		exports_error(ctx, line, "out of memory");
		return -1;
	}
	if (append_client(ctx, e, &c)) {
		free(c.spec);
		return -1;
	}
	return 0;
}

/* ---- exports -------------------------------------------------------- */

/* \NNN octal escapes (exports(5)), decoded in place; other '\' stay. */
static int unescape_path(const struct exports_ctx *ctx, unsigned int line,
			 char *s)
{
	char *r = s, *w = s;

	while (*r) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '7' &&
		    r[2] >= '0' && r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
			unsigned int v = (unsigned int)(r[1] - '0') << 6 |
					 (unsigned int)(r[2] - '0') << 3 |
					 (unsigned int)(r[3] - '0');

			if (v == 0 || v > 255) {
				exports_error(ctx, line,
					      "bad escape \"%.4s\" in the path", r);
				return -1;
			}
			*w++ = (char)v;
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = 0;
	return 0;
}

/* A new export of @raw, checked and normalised. */
static struct nfsx_export *new_export(const struct exports_ctx *ctx,
				      unsigned int line, const char *raw)
{
	char norm[EXPORTS_PATH_MAX];
	struct nfsx_export *e;
	const char *why;

	if (exports_normalize_path(raw, norm, sizeof(norm), &why)) {
		size_t n = strlen(raw);

		/* a path of 4 KiB would crowd out the reason */
		exports_error(ctx, line, "path \"%.*s%s\" %s",
			      n > 200 ? 200 : (int)n, raw, n > 200 ? "..." : "",
			      why);
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	if (e)
		e->path = strdup(norm);
	if (!e || !e->path) {
		free(e);
		exports_error(ctx, line, "out of memory");
		return NULL;
	}
	e->line = line;
	return e;
}

/* No client list: everyone, as exportfs does, but say so. */
static int add_everyone(const struct exports_ctx *ctx, struct nfsx_export *e,
			const struct nfsx_export_opts *opts)
{
	struct nfsx_export_client c = {
		.kind = NFSX_CLIENT_ANY, .opts = *opts, .line = e->line,
	};

	c.spec = strdup("*");
	if (!c.spec) {
		exports_error(ctx, e->line, "out of memory");
		return -1;
	}
	if (append_client(ctx, e, &c)) {
		free(c.spec);
		return -1;
	}
	return 0;
}

/* PATH [-DEFAULTS] [CLIENT[(OPTIONS)]]... ; blank and comment lines too. */
static int parse_line(const struct exports_ctx *ctx, char *buf,
		      unsigned int first)
{
	struct nfsx_export_opts defaults = default_opts;
	struct lexer lx = { .p = buf, .line = first };
	struct nfsx_export *e;
	unsigned int line;
	char *word;
	int r;

	r = next_word(&lx, &word, &line);
	if (r < 0) {
		exports_error(ctx, line, "unterminated quote");
		return -1;
	}
	if (r == 0)
		return 0;	/* blank or comment */
	if (unescape_path(ctx, line, word))
		return -1;
	e = new_export(ctx, line, word);
	if (!e)
		return -1;
	r = next_word(&lx, &word, &line);
	if (r > 0 && word[0] == '-') {
		if (parse_options(ctx, line, word + 1, strlen(word + 1),
				  &defaults, e))
			goto fail;
		r = next_word(&lx, &word, &line);
	}
	for (; r > 0; r = next_word(&lx, &word, &line))
		if (add_client(ctx, e, word, line, &defaults))
			goto fail;
	if (r < 0) {
		exports_error(ctx, line, "unterminated quote");
		goto fail;
	}
	if (e->nclients == 0) {
		exports_warn(ctx, e->line,
			     "\"%s\" has no client list: exported to everyone (*)",
			     e->path);
		if (add_everyone(ctx, e, &defaults))
			goto fail;
	}
	if (exports_insert(ctx, e))
		goto fail;
	return 0;
fail:
	exports_export_free(e);
	return -1;
}

static struct nfsx_exports *parse_all(struct reader *r, const char *name,
				      char *err, size_t errlen)
{
	struct exports_ctx ctx = {
		.name = name ? name : "exports", .err = err, .errlen = errlen,
	};
	unsigned int first;
	char *buf;
	int got;

	ctx.ex = exports_new();
	buf = malloc(EXPORTS_MAX_LINE + 1);
	if (ctx.ex)
		ctx.ex->name = strdup(ctx.name);
	if (!ctx.ex || !ctx.ex->name || !buf) {
		exports_error(&ctx, 0, "out of memory");
		goto fail;
	}
	while ((got = read_line(&ctx, r, buf, &first)) > 0)
		if (parse_line(&ctx, buf, first))
			goto fail;
	if (got < 0)
		goto fail;
	free(buf);
	return ctx.ex;
fail:
	free(buf);
	exports_free(ctx.ex);
	return NULL;
}

struct nfsx_exports *exports_parse_string(const char *text, const char *name,
					  char *err, size_t errlen)
{
	struct reader r = { .s = text ? text : "" };

	return parse_all(&r, name, err, errlen);
}

struct nfsx_exports *exports_parse_file(const char *path, char *err,
					size_t errlen)
{
	struct reader r = { 0 };
	struct nfsx_exports *ex;

	r.f = fopen(path, "re");
	if (!r.f) {
		if (err && errlen)
			snprintf(err, errlen, "cannot open %s: %s", path,
				 strerror(errno));
		return NULL;
	}
	ex = parse_all(&r, path, err, errlen);
	fclose(r.f);
	return ex;
}

int exports_add_quick(struct nfsx_exports *ex, const char *arg, char *err,
		      size_t errlen)
{
	struct exports_ctx ctx = {
		.ex = ex, .name = "--export", .arg = arg, .err = err,
		.errlen = errlen,
	};
	struct nfsx_export_opts opts = default_opts;
	unsigned int nwarnings = ex->nwarnings;
	const char *colon = strchr(arg, ':');
	size_t n = colon ? (size_t)(colon - arg) : strlen(arg);
	char path[EXPORTS_PATH_MAX];
	struct nfsx_export *e;

	if (n >= sizeof(path)) {
		exports_error(&ctx, 0, "the path is too long");
		return -1;
	}
	memcpy(path, arg, n);
	path[n] = 0;
	e = new_export(&ctx, 0, path);
	if (!e)
		return -1;
	if ((colon && parse_options(&ctx, 0, colon + 1, strlen(colon + 1),
				    &opts, e)) ||
	    add_everyone(&ctx, e, &opts) || exports_insert(&ctx, e)) {
		exports_export_free(e);
		/* leave @ex as it was: no warnings about what was refused */
		while (ex->nwarnings > nwarnings)
			free(ex->warnings[--ex->nwarnings]);
		return -1;
	}
	return 0;
}
