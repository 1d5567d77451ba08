/* SPDX-License-Identifier: MIT */
/*
 * nfsx bench over NFSv4.1: what a job does around its I/O (open and
 * close each file once, so that every READ and WRITE carries that open
 * stateid, as a kernel client's do), the latency mode's waited calls,
 * and which procedures the report lists per version.
 */
#ifndef NFSX_TOOL_BENCH_IO4_H
#define NFSX_TOOL_BENCH_IO4_H

#include <stdbool.h>
#include <stdint.h>

#include "client/nfsx.h"

/*
 * bench_open4 - OPEN @fh for reading and writing (by handle), waited.
 * bench_close4 - CLOSE it.
 * Return values: 0, a positive nfsstat4, or a negative errno.
 */
int bench_open4(struct nfsx_ctx *c, const struct nfsx_fh *fh, struct stateid4 *sid);
int bench_close4(struct nfsx_ctx *c, const struct nfsx_fh *fh, const struct stateid4 *sid);

/*
 * bench_write4 / bench_commit4 - one WRITE (with @sid) or COMMIT through
 * the asynchronous wrappers, waited: the latency mode's calls.
 * Return values: as bench_open4.
 */
int bench_write4(struct nfsx_ctx *c, const struct nfsx_fh *fh, const struct stateid4 *sid,
		 uint64_t off, const void *buf, uint32_t len, enum stable_how how,
		 uint32_t *written, uint8_t verf[NFS3_WRITEVERFSIZE]);
int bench_commit4(struct nfsx_ctx *c, const struct nfsx_fh *fh, uint8_t verf[NFS3_WRITEVERFSIZE]);

/*
 * bench_proc - the @i-th procedure the report lists for NFS version
 * @vers (3, or 4 for NFSv4: the COMPOUNDs named by their operation,
 * READ_PLUS in READ's place when @read_plus, then COMPOUND for the
 * others).
 * Return values: the descriptor, or NULL past the last.
 */
const struct nfsx_proc *bench_proc(unsigned vers, bool read_plus, unsigned i);

#endif
