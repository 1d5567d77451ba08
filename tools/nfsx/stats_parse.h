/* SPDX-License-Identifier: MIT */
/*
 * A parser of the Prometheus text exposition format 0.0.4, as nfsxd's
 * control socket writes it, for nfsx stats.
 *
 * DESIGN
 * - Strict: a line that is not a comment, a blank line or a well-formed
 *   sample is an error naming its line number; nothing is guessed. What
 *   a sample may hold is the format's: a metric name, optional labels
 *   whose values are quoted with the escapes \\, \" and \n, a value (a
 *   decimal or hexadecimal float, +Inf, -Inf, NaN) and an optional
 *   integer timestamp. "# TYPE" lines are checked (a known type for a
 *   well-formed name); "# HELP" and other comments are skipped.
 * - Bounded whatever the input: at most STATS_PARSE_MAX_SERIES samples,
 *   STATS_PARSE_MAX_LABELS labels each, names and label values of at
 *   most STATS_PARSE_MAX_NAME / STATS_PARSE_MAX_VALUE bytes. The strings
 *   go to one buffer of the input's size (an unescaped string is never
 *   longer than its source), the samples and labels to arrays grown up
 *   to those caps, so memory is linear in the input and capped.
 * - The parser knows nothing of nfsxd's metric names: stats_snap.c does.
 */
#ifndef NFSX_TOOL_STATS_PARSE_H
#define NFSX_TOOL_STATS_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STATS_PARSE_MAX_SERIES 1000000u
#define STATS_PARSE_MAX_LABELS 16u
#define STATS_PARSE_MAX_NAME 256u
#define STATS_PARSE_MAX_VALUE 1024u

struct prom_label {
	const char *name;
	const char *value;
};

struct prom_sample {
	const char *name;
	const struct prom_label *labels;  /* [nlabels] */
	uint32_t nlabels;
	double value;
	bool has_ts;
	int64_t ts;       /* milliseconds since the epoch, when has_ts */
	uint32_t line;
	size_t lbl_first;  /* the parser's: index of the first label */
};

struct prom_set {
	struct prom_sample *s;
	size_t n;
	/* storage, the parser's */
	char *strs;
	struct prom_label *lbl;
	size_t nlbl;
};

/*
 * prom_parse - parse @len bytes of @text into @out (which the caller
 * frees with prom_free() whatever the result).
 * Return values: 0, or -1 with a message naming the line in @err.
 */
int prom_parse(const char *text, size_t len, struct prom_set *out, char *err, size_t errlen);

void prom_free(struct prom_set *set);

/* Return values: the value of label @name of @s, or NULL. */
const char *prom_label(const struct prom_sample *s, const char *name);

#endif
