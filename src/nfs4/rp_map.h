/* SPDX-License-Identifier: MIT */
/*
 * READ_PLUS's map of a byte range (RFC 7862 15.10): which parts go out as
 * data and which as holes. Pure: the file is asked through a seek
 * callback, so the rules are tested without a file system (tests/unit).
 */
#ifndef NFSX_NFS4_RP_MAP_H
#define NFSX_NFS4_RP_MAP_H

#include <stdbool.h>
#include <stdint.h>

/* A hole shorter than this between data goes out as data (zeros): its
 * segment would save less than the seek pair that found it costs. */
#define NFS4_RP_HOLE_MIN 4096u
/* The most seeks one call makes; what is left of the range after them
 * goes out as data. Two per data/hole pair. */
#define NFS4_RP_SEEKS_MAX 32u
/* Seeks after which a map that found no hole worth a segment stops: the
 * file's holes are all short (the rest goes out as data). */
#define NFS4_RP_SEEKS_FUTILE 8u
/* The most segments a map holds: a hole and a data segment per seek
 * pair, and the rest as data. */
#define NFS4_RP_SEGS_MAX (NFS4_RP_SEEKS_MAX + 1u)

struct nfs4_rp_seg {
	uint64_t off, len;
	bool hole;
};

/*
 * The first offset >= @off in data (@data) or in a hole (!@data) into
 * *@out, as lseek's SEEK_DATA and SEEK_HOLE. Return values: 0; -ENXIO
 * when there is none (past the end, or no data after @off); another
 * -errno.
 */
typedef int nfs4_rp_seek_fn(void *ctx, uint64_t off, bool data, uint64_t *out);

/*
 * nfs4_rp_map - the segments of [@off, @end) of a sparse file, into
 * @segs (room for NFS4_RP_SEGS_MAX): contiguous, covering the range
 * exactly, data and holes alternating, holes shorter than
 * NFS4_RP_HOLE_MIN merged into the data beside them (a range that is one
 * hole stays one), at most NFS4_RP_SEEKS_MAX calls of @seek, and
 * NFS4_RP_SEEKS_FUTILE when they find no hole that long. A seek that
 * fails otherwise than with -ENXIO ends the mapping: the rest is data,
 * whose read then says what is there.
 * Return values: the number of segments (0 when @off >= @end).
 */
unsigned int nfs4_rp_map(uint64_t off, uint64_t end, nfs4_rp_seek_fn *seek, void *ctx,
			 struct nfs4_rp_seg *segs);

#endif
