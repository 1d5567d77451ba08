/* SPDX-License-Identifier: MIT */
/*
 * nfsxd's statistics as nfsx stats reports them: the samples of one
 * read of the control socket (stats_parse.h) gathered into rows per RPC
 * procedure, per NFSv4 operation and per client, and the scalars of the
 * caches and of the NFSv4 state.
 *
 * DESIGN
 * - The names are nfsxd's (src/server/metrics.c); a series this version
 *   does not know is ignored and one nfsxd does not write (an older
 *   server, a figure added later) is absent, not zero: scalars are NaN
 *   until seen, and the report leaves out what is absent.
 * - A histogram is kept as nfsxd writes it, cumulative counts per upper
 *   bound; its p99 is the upper bound of the bucket that holds the 99th
 *   percentile (all that log2 buckets can tell).
 * - Rows are matched by their labels; the snapshot has no pointers into
 *   the parsed text, so two snapshots (nfsx stats -i) outlive it.
 */
#ifndef NFSX_TOOL_STATS_SNAP_H
#define NFSX_TOOL_STATS_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats_parse.h"

#define SNAP_NBUCKETS 32u
#define SNAP_NAME_LEN 96u

enum snap_time { SNAP_QUEUE, SNAP_EXEC, SNAP_SEND, SNAP_NTIMES };

struct snap_hist {
	unsigned int nb;
	double le[SNAP_NBUCKETS];        /* seconds; +Inf last */
	double cum[SNAP_NBUCKETS];
	double sum, count;               /* seconds, observations */
};

/* An RPC procedure (program/version/procedure) or an NFSv4 operation. */
struct snap_row {
	char program[32], version[8], name[48];
	double calls, errors, bytes_in, bytes_out;
	struct snap_hist t[SNAP_NTIMES];  /* operations: SNAP_EXEC only */
};

struct snap_err {
	bool op;                 /* an NFSv4 operation's, else a procedure's */
	char program[32], version[8], name[48], status[48];
	double count;
};

struct snap_client {
	char addr[64];
	double conns, calls, bytes_in, bytes_out, inflight, memory;
};

struct snap_named {
	char name[SNAP_NAME_LEN];
	double value;
};

/* Scalars, NaN when nfsxd did not write them. */
enum snap_scalar {
	S_START_TIME, S_CONNECTIONS, S_CONN_LIMIT, S_MEM_HELD, S_MEM_LIMIT,
	S_DRC_HITS, S_DRC_MISSES, S_DRC_INPROG, S_DRC_EVICT, S_DRC_ENTRIES, S_DRC_BYTES,
	S_DIR_HITS, S_DIR_MISSES, S_DIR_DIRS, S_DIR_BYTES,
	S_OC_HITS, S_OC_MISSES, S_OC_EVICT, S_OC_OBJECTS, S_OC_PINNED, S_OC_MAPPED,
	S_V4_CLIENTS, S_V4_SESSIONS, S_V4_OPENS, S_V4_LOCKS, S_V4_DELEGS,
	S_V4_SLOT_REPLAYS, S_V4_SLOT_UNCACHED, S_V4_SEQID_REPLAYS,
	S_NSCALARS
};

struct snap {
	char version[64];
	double sc[S_NSCALARS];
	struct snap_row *procs, *ops;
	size_t nprocs, nops;
	struct snap_err *errs;
	size_t nerrs;
	struct snap_client *clients;
	size_t nclients;
	struct snap_named *rejected;   /* by reason */
	size_t nrejected;
	struct snap_named *listen;     /* "ADDR:PORT" */
	size_t nlisten;
};

/* The metric name of scalar @i (for JSON keys and tests). */
const char *snap_scalar_metric(enum snap_scalar i);

/*
 * snap_build - gather @set into @out (freed with snap_free() whatever the
 * result). Return values: 0, or -1 with a message in @err (out of memory,
 * or a series whose labels are not nfsxd's).
 */
int snap_build(const struct prom_set *set, struct snap *out, char *err, size_t errlen);
void snap_free(struct snap *s);

/* Return values: the row of @rows like @key (same labels), or NULL. */
const struct snap_row *snap_find(const struct snap_row *rows, size_t n,
				 const struct snap_row *key);

/* Mean of @h in microseconds (NaN without observations). */
double snap_mean_us(const struct snap_hist *h);
/* p99 of @h in microseconds: the upper bound of its bucket (+Inf when in
 * the last; NaN without observations). */
double snap_p99_us(const struct snap_hist *h);

#endif
