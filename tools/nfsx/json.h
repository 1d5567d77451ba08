/* SPDX-License-Identifier: MIT */
/*
 * A small streaming JSON writer: objects and arrays nest, commas and
 * indentation are placed by the writer, strings are escaped (quote,
 * backslash, control characters as \uXXXX; bytes that are not valid
 * UTF-8 become U+FFFD), non-finite numbers are written as null.
 */
#ifndef NFSX_TOOL_JSON_H
#define NFSX_TOOL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json_w {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];
	char close[JSON_MAX_DEPTH];  /* '}' or ']' per open level */
	bool err;                  /* nesting misused: too deep, or end without begin */
	bool compact;              /* all on one line (JSON Lines); set after json_init */
};

void json_init(struct json_w *w, FILE *f);
/* @key is NULL for array elements and the top-level value. */
void json_obj(struct json_w *w, const char *key);
void json_arr(struct json_w *w, const char *key);
void json_end(struct json_w *w);             /* closes the innermost object/array */
void json_str(struct json_w *w, const char *key, const char *val);   /* NULL: null */
void json_u64(struct json_w *w, const char *key, uint64_t v);
void json_i64(struct json_w *w, const char *key, int64_t v);
void json_dbl(struct json_w *w, const char *key, double v);
void json_bool(struct json_w *w, const char *key, bool v);
/* Finish: a newline after the top-level value; false on misuse. */
bool json_finish(struct json_w *w);

/* Write @s as a quoted, escaped JSON string. */
void json_escape(FILE *f, const char *s);

#endif
