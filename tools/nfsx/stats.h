/* SPDX-License-Identifier: MIT */
/* nfsx stats: nfsxd's statistics from its control socket (stats_main.c). */
#ifndef NFSX_TOOL_STATS_H
#define NFSX_TOOL_STATS_H

extern const char stats_usage[];

/* argv[0] is "stats". Return values: the exit status. */
int cmd_stats(int argc, char **argv);

#endif
