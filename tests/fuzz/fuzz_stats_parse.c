/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: nfsx stats' reading of nfsxd's control socket
 * (tools/nfsx/stats_parse.c, stats_snap.c, stats_report.c). The input is
 * the text the socket would answer. The parser must either fail with a
 * message naming a line, or give samples within its caps: at most
 * STATS_PARSE_MAX_SERIES, each with a well-formed name, at most
 * STATS_PARSE_MAX_LABELS labels of bounded length, every string inside
 * the parser's one buffer. What parses is then gathered into nfsxd's
 * rows and rendered as every report (text, JSON, the live view against
 * itself and against an empty snapshot), whatever the values (NaN,
 * infinities, counters going down): none may crash or read out of
 * bounds. The corpus replays in the normal test suite too
 * (replay_main.c, test tool-stats-corpus).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/nfsx/stats_parse.h"
#include "../../tools/nfsx/stats_report.h"
#include "../../tools/nfsx/stats_snap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

static void check_name(const struct prom_set *set, const char *s, size_t len_max, bool metric)
{
	size_t n, i;

	if (!s || s < set->strs)
		abort();
	n = strlen(s);
	if (!n || n > len_max)
		abort();
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
		      (c >= '0' && c <= '9' && i) || (metric && c == ':')))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prom_set set;
	struct snap s, empty;
	char err[256];
	size_t i;
	uint32_t k, last_line = 0;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	err[0] = 'x';
	if (prom_parse((const char *)data, size, &set, err, sizeof(err)) < 0) {
		if (strncmp(err, "line ", 5) != 0 || !memchr(err, '\0', sizeof(err)))
			abort();
		prom_free(&set);
		return 0;
	}
	if (set.n > STATS_PARSE_MAX_SERIES)
		abort();
	for (i = 0; i < set.n; i++) {
		const struct prom_sample *p = &set.s[i];

		check_name(&set, p->name, STATS_PARSE_MAX_NAME, true);
		if (p->nlabels > STATS_PARSE_MAX_LABELS || p->line <= last_line ||
		    p->name + strlen(p->name) >= set.strs + size + 1)
			abort();
		last_line = p->line;
		for (k = 0; k < p->nlabels; k++) {
			check_name(&set, p->labels[k].name, STATS_PARSE_MAX_NAME, false);
			if (strlen(p->labels[k].value) > STATS_PARSE_MAX_VALUE ||
			    p->labels[k].value < set.strs ||
			    p->labels[k].value + strlen(p->labels[k].value) >= set.strs + size + 1)
				abort();
			if (prom_label(p, p->labels[k].name) != p->labels[k].value &&
			    strcmp(prom_label(p, p->labels[k].name), p->labels[k].value))
				abort();
		}
	}
	if (snap_build(&set, &s, err, sizeof(err)) == 0) {
		memset(&empty, 0, sizeof(empty));
		for (i = 0; i < S_NSCALARS; i++)
			empty.sc[i] = NAN;
		stats_report_text(devnull, &s, 1e9);
		stats_report_json(devnull, &s, 1e9, "fuzz");
		stats_interval_text(devnull, &s, &s, 1.0, 1e9, stats_restarted(&s, &s));
		stats_interval_json(devnull, &empty, &s, 0.5, 1e9, stats_restarted(&empty, &s));
		stats_interval_text(devnull, &s, &empty, 2.0, 1e9, false);
	}
	snap_free(&s);
	prom_free(&set);
	return 0;
}
