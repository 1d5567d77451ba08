/* SPDX-License-Identifier: MIT */
#include "json.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

void json_init(struct json_w *w, FILE *f)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->first[0] = true;
}

/* Length of the valid UTF-8 sequence at @s, or 0 if it is not one. */
static int utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	int n;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;      /* overlong, out of range, or a surrogate */
	return n;
}

void json_escape(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		int n;

		switch (*s) {
		case '"': fputs("\\\"", f); s++; continue;
		case '\\': fputs("\\\\", f); s++; continue;
		case '\b': fputs("\\b", f); s++; continue;
		case '\f': fputs("\\f", f); s++; continue;
		case '\n': fputs("\\n", f); s++; continue;
		case '\r': fputs("\\r", f); s++; continue;
		case '\t': fputs("\\t", f); s++; continue;
		default: break;
		}
		if (*s < 0x20 || *s == 0x7f) {
			fprintf(f, "\\u%04x", *s);
			s++;
			continue;
		}
		n = utf8_len(s);
		if (!n) {
			fputs("\\ufffd", f);
			s++;
			continue;
		}
		fwrite(s, 1, (size_t)n, f);
		s += n;
	}
	fputc('"', f);
}

static void sep(struct json_w *w, const char *key)
{
	if (w->depth > 0) {
		if (!w->first[w->depth])
			fputc(',', w->f);
		if (!w->compact) {
			fputc('\n', w->f);
			for (int i = 0; i < w->depth; i++)
				fputs("  ", w->f);
		}
	} else if (!w->first[0]) {
		w->err = true;           /* a second top-level value */
	}
	w->first[w->depth] = false;
	if (key) {
		json_escape(w->f, key);
		fputs(w->compact ? ":" : ": ", w->f);
	}
}

static void open_(struct json_w *w, const char *key, char c)
{
	sep(w, key);
	fputc(c, w->f);
	if (w->depth + 1 >= JSON_MAX_DEPTH) {
		w->err = true;
		return;
	}
	w->close[w->depth] = c == '{' ? '}' : ']';
	w->depth++;
	w->first[w->depth] = true;
}

void json_obj(struct json_w *w, const char *key)
{
	open_(w, key, '{');
}

void json_arr(struct json_w *w, const char *key)
{
	open_(w, key, '[');
}

void json_end(struct json_w *w)
{
	if (w->depth <= 0) {
		w->err = true;
		return;
	}
	if (!w->first[w->depth] && !w->compact) {
		fputc('\n', w->f);
		for (int i = 0; i < w->depth - 1; i++)
			fputs("  ", w->f);
	}
	w->depth--;
	fputc(w->close[w->depth], w->f);
}

void json_str(struct json_w *w, const char *key, const char *val)
{
	sep(w, key);
	if (val)
		json_escape(w->f, val);
	else
		fputs("null", w->f);
}

void json_u64(struct json_w *w, const char *key, uint64_t v)
{
	sep(w, key);
	fprintf(w->f, "%" PRIu64, v);
}

void json_i64(struct json_w *w, const char *key, int64_t v)
{
	sep(w, key);
	fprintf(w->f, "%" PRId64, v);
}

void json_dbl(struct json_w *w, const char *key, double v)
{
	sep(w, key);
	if (isfinite(v))
		fprintf(w->f, "%.15g", v);
	else
		fputs("null", w->f);
}

void json_bool(struct json_w *w, const char *key, bool v)
{
	sep(w, key);
	fputs(v ? "true" : "false", w->f);
}

bool json_finish(struct json_w *w)
{
	if (w->depth != 0)
		w->err = true;
	fputc('\n', w->f);
	return !w->err;
}
