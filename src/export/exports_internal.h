/* SPDX-License-Identifier: MIT */
/*
 * What exports.c (the set), exports_parse.c (the syntax) and
 * exports_match.c (client rules: parsed and checked) share; not for
 * other modules.
 */
#ifndef NFSX_EXPORT_EXPORTS_INTERNAL_H
#define NFSX_EXPORT_EXPORTS_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "export/exports.h"

#define EXPORTS_PATH_MAX PATH_MAX	/* with the NUL */

/* Is the @n bytes at @s the word @word? */
static inline bool word_is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && memcmp(s, word, n) == 0;
}

struct nfsx_exports {
	struct nfsx_export **v;	/* each export allocated alone: stable */
	unsigned int n, cap;
	char *name;		/* the file name exports point their source at */
	char *warnings[EXPORTS_MAX_WARNINGS];
	unsigned int nwarnings;
};

/* Where a message comes from, and where an error goes. */
struct exports_ctx {
	struct nfsx_exports *ex;
	const char *name;	/* file name, or "--export" */
	const char *arg;	/* the --export argument, or NULL for a file */
	char *err;
	size_t errlen;
};

/* Record "NAME:LINE: message" (or the --export form) in ctx->err. */
__attribute__((format(printf, 3, 4)))
void exports_error(const struct exports_ctx *ctx, unsigned int line,
		   const char *fmt, ...);

/* Keep a warning with the set; quietly dropped when memory is short. */
__attribute__((format(printf, 3, 4)))
void exports_warn(const struct exports_ctx *ctx, unsigned int line,
		  const char *fmt, ...);

/*
 * exports_normalize_path - lexical normalisation of an absolute path:
 * repeated slashes, "." components and a trailing slash go. No I/O, so
 * symbolic links are not resolved, and ".." (which needs them) is
 * refused.
 * Return values: 0, @out holding the path; -1 with *@why set.
 */
int exports_normalize_path(const char *in, char *out, size_t outlen,
			   const char **why);

/*
 * exports_parse_client - what the client word @s (options removed)
 * names: kind and address of @c.
 * Return values: 0, or -1 with ctx->err set.
 */
int exports_parse_client(const struct exports_ctx *ctx, unsigned int line,
			 const char *s, struct nfsx_export_client *c);

/* Free an export that is not (or no longer) in a set; NULL is ignored. */
void exports_export_free(struct nfsx_export *e);

/*
 * exports_insert - give @e (path, clients, fsid filled) its id and add
 * it to the set, after checking the limits, that its path is not
 * exported yet and that its id is not taken.
 * Return values: 0 (the set owns @e); -1, ctx->err set, @e untouched.
 */
int exports_insert(const struct exports_ctx *ctx, struct nfsx_export *e);

/*
 * exports_parse_sec - the option @opt (@n bytes, "sec=..."), a
 * colon-separated list of flavours, into @o (exports_sec.c).
 * Return values: 0, or -1 with ctx->err set.
 */
int exports_parse_sec(const struct exports_ctx *ctx, unsigned int line, const char *opt,
		      size_t n, struct nfsx_export_opts *o);

#endif
