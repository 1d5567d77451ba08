/* SPDX-License-Identifier: MIT */
/*
 * nfsx stats' output: the nfsstat-like report of one snapshot and the
 * blocks of the live view (rates between two snapshots), as text or
 * JSON (one object; JSON Lines in the live view).
 */
#ifndef NFSX_TOOL_STATS_REPORT_H
#define NFSX_TOOL_STATS_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "stats_snap.h"

/* @now: Unix time of the read, for the uptime. */
void stats_report_text(FILE *f, const struct snap *s, double now);
void stats_report_json(FILE *f, const struct snap *s, double now, const char *socket);

/*
 * stats_restarted - true when @cur cannot follow @prev: another start
 * time, or a counter that went down (a row gone or fewer calls).
 */
bool stats_restarted(const struct snap *prev, const struct snap *cur);

/* One block of rates over @dt seconds from @prev to @cur (when
 * @restarted, a line saying so instead of rates). */
void stats_interval_text(FILE *f, const struct snap *prev, const struct snap *cur, double dt,
			 double now, bool restarted);
void stats_interval_json(FILE *f, const struct snap *prev, const struct snap *cur, double dt,
			 double now, bool restarted);

#endif
