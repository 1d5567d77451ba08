/* SPDX-License-Identifier: MIT */
/*
 * stats-cost: what nfsxd's statistics cost a call, timed with the
 * server's own code (src/util/stats.c, src/util/clock.c): the clock
 * reads and records an NFSv3 call and an NFSv4.1 COMPOUND of SEQUENCE,
 * PUTFH and READ make when statistics are on, and nothing else. Where
 * nfsxd's CPU is the limit, IOPS with statistics on are about
 * 1 - (this cost / the server's CPU per call) of IOPS without:
 * bench/vs-ganesha PLAN=stats prints both.
 *
 * usage: stats-cost [--no-tsc] [MILLION_CALLS]
 * prints "v3_ns=N v41_ns=N tsc=0|1"; --no-tsc: with clock_gettime's clock
 * (what nfsxd uses where the kernel's clock is not the time stamp counter)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "util/stats.h"

static volatile uint64_t sink;

/* The received time, as the loop reads it when the call's bytes came. */
static uint64_t t_rx;

/* The call's record when its reply is sent (rpc/loop.c rpc__stats_done;
 * the send time from the loop's own clock read, made with or without
 * statistics). */
static void sent(int row, uint64_t in, uint64_t out, uint64_t t_start, uint64_t t_done)
{
	struct stats_rec r;

	stats_rec_init(&r);
	r.bytes_in = in;
	r.bytes_out = out;
	r.ns[STATS_QUEUE] = t_start > t_rx ? t_start - t_rx : 0;
	r.ns[STATS_EXEC] = t_done - t_start;
	r.ns[STATS_SEND] = 2500;
	stats_record(row, &r);
	sink += t_done;
}

/* An NFSv3 READ: started, done (rpc/program.c), sent. */
static void v3_call(int row)
{
	uint64_t t_start = stats_now_ns(), t_done = stats_now_ns();

	sent(row, 132, 4232, t_start, t_done);
}

/* An NFSv4.1 COMPOUND of three operations (nfs4/compound.c): one
 * clock read each, its record, then the COMPOUND's own. */
static void v41_call(int row, const int ops[3])
{
	static const uint64_t in[3] = { 36, 36, 20 }, out[3] = { 44, 8, 4112 };
	uint64_t t_start = stats_now_ns(), t = t_start;
	int i;

	for (i = 0; i < 3; i++) {
		uint64_t now = stats_lap_ns();

		stats_record_exec(ops[i], 0, now - t, in[i], out[i]);
		t = now;
	}
	sent(row, 220, 4260, t_start, t);
}

static double secs(void)
{
	return (double)clock_mono_ns() / 1e9;
}

int main(int argc, char **argv)
{
	bool no_tsc = argc > 1 && !strcmp(argv[1], "--no-tsc");
	long n = (argc > 1 + no_tsc ? atol(argv[1 + no_tsc]) : 10) * 1000000l, i;
	int v3 = stats_row_add("nfs", 3, "READ", NULL);
	int v4 = stats_row_add("nfs", 4, "COMPOUND", NULL);
	int ops[3] = { stats_row_add("nfs4_op", 4, "SEQUENCE", NULL),
		       stats_row_add("nfs4_op", 4, "PUTFH", NULL),
		       stats_row_add("nfs4_op", 4, "READ", NULL) };
	double a, b, c;
	bool tsc;

	if (n <= 0 || v3 < 0 || v4 < 0 || ops[2] < 0) {
		fprintf(stderr, "usage: stats-cost [--no-tsc] [MILLION_CALLS]\n");
		return 2;
	}
	tsc = !no_tsc && clock_init();	/* as nfsxd does at its start */
	stats_start();
	t_rx = stats_now_ns();
	a = secs();
	for (i = 0; i < n; i++)
		v3_call(v3);
	b = secs();
	for (i = 0; i < n; i++)
		v41_call(v4, ops);
	c = secs();
	printf("v3_ns=%.1f v41_ns=%.1f tsc=%d\n", (b - a) * 1e9 / (double)n,
	       (c - b) * 1e9 / (double)n, tsc);
	return 0;
}
