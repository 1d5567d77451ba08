/* SPDX-License-Identifier: MIT */
/* The Prometheus text format parser: see stats_parse.h. */
#include "stats_parse.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	const char *p, *end;      /* the current line: [p, end) */
	char *out;                /* next free byte of set->strs */
	struct prom_set *set;
	size_t scap, lcap;
	uint32_t line;
	char *err;
	size_t errlen;
};

static int fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(ps->err, ps->errlen, "line %u: ", ps->line);

	if (n >= 0 && (size_t)n < ps->errlen) {
		va_start(ap, fmt);
		vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static bool is_name_start(char c, bool colon)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (colon && c == ':');
}

static bool is_name_char(char c, bool colon)
{
	return is_name_start(c, colon) || (c >= '0' && c <= '9');
}

static void skip_blanks(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t'))
		ps->p++;
}

/* A metric name (@colon) or label name into the string buffer.
 * Return values: the string, or NULL (error set). */
static const char *name(struct parser *ps, bool colon, const char *what)
{
	const char *start = ps->p;
	char *s = ps->out;
	size_t n;

	if (ps->p >= ps->end || !is_name_start(*ps->p, colon)) {
		fail(ps, "%s expected", what);
		return NULL;
	}
	while (ps->p < ps->end && is_name_char(*ps->p, colon))
		ps->p++;
	n = (size_t)(ps->p - start);
	if (n > STATS_PARSE_MAX_NAME) {
		fail(ps, "%s longer than %u bytes", what, STATS_PARSE_MAX_NAME);
		return NULL;
	}
	memcpy(s, start, n);
	s[n] = '\0';
	ps->out += n + 1;
	return s;
}

/* A quoted label value, unescaped. */
static const char *quoted(struct parser *ps)
{
	char *s = ps->out, *o = s;

	if (ps->p >= ps->end || *ps->p != '"') {
		fail(ps, "label value must be quoted");
		return NULL;
	}
	ps->p++;
	for (;;) {
		char c;

		if (ps->p >= ps->end) {
			fail(ps, "unterminated label value");
			return NULL;
		}
		c = *ps->p++;
		if (c == '"')
			break;
		if (c == '\\') {
			if (ps->p >= ps->end) {
				fail(ps, "unterminated label value");
				return NULL;
			}
			c = *ps->p++;
			if (c == 'n') {
				c = '\n';
			} else if (c != '\\' && c != '"') {
				fail(ps, "bad escape \\%c in a label value", c);
				return NULL;
			}
		}
		if ((size_t)(o - s) >= STATS_PARSE_MAX_VALUE) {
			fail(ps, "label value longer than %u bytes", STATS_PARSE_MAX_VALUE);
			return NULL;
		}
		*o++ = c;
	}
	*o = '\0';
	ps->out = o + 1;
	return s;
}

/* The next blank-delimited token: [*tok, return). */
static const char *token(struct parser *ps, const char **tok)
{
	*tok = ps->p;
	while (ps->p < ps->end && *ps->p != ' ' && *ps->p != '\t')
		ps->p++;
	return ps->p;
}

/* A sample value: what Go's ParseFloat takes, as the format says, but
 * only in the spellings a writer uses (decimal or hex, Inf, NaN). */
static int value(struct parser *ps, double *v)
{
	const char *t, *e = token(ps, &t);
	size_t n = (size_t)(e - t);
	char buf[64], *stop;
	size_t i;

	if (!n)
		return fail(ps, "value expected");
	if (n >= sizeof(buf))
		return fail(ps, "value too long");
	memcpy(buf, t, n);
	buf[n] = '\0';
	if (!strcmp(buf, "+Inf") || !strcmp(buf, "Inf")) {
		*v = INFINITY;
		return 0;
	}
	if (!strcmp(buf, "-Inf")) {
		*v = -INFINITY;
		return 0;
	}
	if (!strcmp(buf, "NaN")) {
		*v = NAN;
		return 0;
	}
	for (i = 0; i < n; i++) {
		char c = buf[i];

		/* strtod would also take "inf", "nan(...)", "infinity" */
		if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' ||
		      c == '-' || c == 'x' || c == 'X' || (c >= 'a' && c <= 'f') ||
		      (c >= 'A' && c <= 'F') || c == 'p' || c == 'P'))
			return fail(ps, "bad value '%s'", buf);
	}
	errno = 0;
	*v = strtod(buf, &stop);
	if (stop != buf + n || stop == buf)
		return fail(ps, "bad value '%s'", buf);
	return 0;
}

static int timestamp(struct parser *ps, int64_t *ts)
{
	const char *t, *e = token(ps, &t);
	const char *q = t;
	bool neg = false;
	int64_t v = 0;

	if (q < e && *q == '-') {
		neg = true;
		q++;
	}
	if (q == e)
		return fail(ps, "bad timestamp");
	for (; q < e; q++) {
		if (*q < '0' || *q > '9')
			return fail(ps, "bad timestamp");
		if (v > (INT64_MAX - 9) / 10)
			return fail(ps, "timestamp out of range");
		v = v * 10 + (*q - '0');
	}
	*ts = neg ? -v : v;
	return 0;
}

static int add_label(struct parser *ps, const char *n, const char *v)
{
	struct prom_set *set = ps->set;

	if (set->nlbl == ps->lcap) {
		size_t cap = ps->lcap ? ps->lcap * 2 : 256;
		struct prom_label *l;

		if (cap > (size_t)STATS_PARSE_MAX_SERIES * STATS_PARSE_MAX_LABELS)
			cap = (size_t)STATS_PARSE_MAX_SERIES * STATS_PARSE_MAX_LABELS;
		l = realloc(set->lbl, cap * sizeof(*l));
		if (!l)
			return fail(ps, "out of memory");
		set->lbl = l;
		ps->lcap = cap;
	}
	set->lbl[set->nlbl].name = n;
	set->lbl[set->nlbl].value = v;
	set->nlbl++;
	return 0;
}

static int labels(struct parser *ps, struct prom_sample *s)
{
	ps->p++; /* '{' */
	for (;;) {
		const char *n, *v;
		uint32_t i;

		skip_blanks(ps);
		if (ps->p < ps->end && *ps->p == '}')
			break;
		n = name(ps, false, "label name");
		if (!n)
			return -1;
		skip_blanks(ps);
		if (ps->p >= ps->end || *ps->p != '=')
			return fail(ps, "'=' expected after label %s", n);
		ps->p++;
		skip_blanks(ps);
		v = quoted(ps);
		if (!v)
			return -1;
		if (s->nlabels >= STATS_PARSE_MAX_LABELS)
			return fail(ps, "more than %u labels", STATS_PARSE_MAX_LABELS);
		for (i = 0; i < s->nlabels; i++)
			if (!strcmp(ps->set->lbl[s->lbl_first + i].name, n))
				return fail(ps, "label %s given twice", n);
		if (add_label(ps, n, v) < 0)
			return -1;
		s->nlabels++;
		skip_blanks(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == '}')
			break;
		return fail(ps, "',' or '}' expected in the labels");
	}
	ps->p++; /* '}' */
	return 0;
}

static int sample(struct parser *ps)
{
	struct prom_set *set = ps->set;
	struct prom_sample *s;
	const char *mark;

	if (set->n == ps->scap) {
		size_t cap = ps->scap ? ps->scap * 2 : 256;
		struct prom_sample *ns;

		if (set->n >= STATS_PARSE_MAX_SERIES)
			return fail(ps, "more than %u samples", STATS_PARSE_MAX_SERIES);
		if (cap > STATS_PARSE_MAX_SERIES)
			cap = STATS_PARSE_MAX_SERIES;
		ns = realloc(set->s, cap * sizeof(*ns));
		if (!ns)
			return fail(ps, "out of memory");
		set->s = ns;
		ps->scap = cap;
	}
	s = &set->s[set->n];
	memset(s, 0, sizeof(*s));
	s->line = ps->line;
	s->lbl_first = set->nlbl;
	s->name = name(ps, true, "metric name");
	if (!s->name)
		return -1;
	mark = ps->p;
	skip_blanks(ps);
	if (ps->p < ps->end && *ps->p == '{') {
		if (labels(ps, s) < 0)
			return -1;
		mark = ps->p;
		skip_blanks(ps);
	}
	if (ps->p == mark || ps->p >= ps->end)
		return fail(ps, "blank and value expected after %s", s->name);
	if (value(ps, &s->value) < 0)
		return -1;
	skip_blanks(ps);
	if (ps->p < ps->end) {
		if (timestamp(ps, &s->ts) < 0)
			return -1;
		s->has_ts = true;
		skip_blanks(ps);
		if (ps->p < ps->end)
			return fail(ps, "text after the timestamp");
	}
	set->n++;
	return 0;
}

/* "# TYPE name type": checked; any other comment: skipped. */
static int comment(struct parser *ps)
{
	static const char *const types[] = { "counter", "gauge", "histogram", "summary",
					     "untyped" };
	const char *t, *e;
	char *mark = ps->out;
	size_t i, n;

	ps->p++;
	skip_blanks(ps);
	e = token(ps, &t);
	if ((size_t)(e - t) != 4 || memcmp(t, "TYPE", 4) != 0)
		return 0;
	skip_blanks(ps);
	if (!name(ps, true, "metric name in # TYPE"))
		return -1;
	ps->out = mark; /* not kept */
	skip_blanks(ps);
	e = token(ps, &t);
	n = (size_t)(e - t);
	skip_blanks(ps);
	if (ps->p < ps->end)
		return fail(ps, "text after the type in # TYPE");
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strlen(types[i]) == n && !memcmp(types[i], t, n))
			return 0;
	return fail(ps, "unknown type in # TYPE");
}

int prom_parse(const char *text, size_t len, struct prom_set *out, char *err, size_t errlen)
{
	struct parser ps = { .set = out, .err = err, .errlen = errlen };
	const char *p = text, *end = text + len;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (errlen)
		err[0] = '\0';
	out->strs = malloc(len + 1);
	if (!out->strs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	ps.out = out->strs;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		int r = 0;

		ps.line++;
		if (memchr(p, '\0', (size_t)(le - p)))
			return fail(&ps, "NUL byte");
		ps.p = p;
		ps.end = le;
		if (ps.end > ps.p && ps.end[-1] == '\r')
			return fail(&ps, "carriage return (lines end with \\n alone)");
		skip_blanks(&ps);
		if (ps.p == ps.end)
			r = 0;
		else if (*ps.p == '#')
			r = comment(&ps);
		else
			r = sample(&ps);
		if (r < 0)
			return -1;
		p = nl ? nl + 1 : end;
	}
	for (i = 0; i < out->n; i++)
		out->s[i].labels = out->nlbl ? &out->lbl[out->s[i].lbl_first] : NULL;
	return 0;
}

void prom_free(struct prom_set *set)
{
	free(set->s);
	free(set->lbl);
	free(set->strs);
	memset(set, 0, sizeof(*set));
}

const char *prom_label(const struct prom_sample *s, const char *name)
{
	uint32_t i;

	for (i = 0; i < s->nlabels; i++)
		if (!strcmp(s->labels[i].name, name))
			return s->labels[i].value;
	return NULL;
}
