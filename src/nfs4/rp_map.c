/* SPDX-License-Identifier: MIT */
/*
 * READ_PLUS's map of a byte range (rp_map.h).
 *
 * DESIGN
 * - Two passes: the seeks find the range's extents as the file system
 *   reports them (SEEK_DATA from where a hole may start, SEEK_HOLE from
 *   where data starts), then the short holes are merged into the data
 *   beside them. Linux's server first sent every hole it found and was
 *   measured slower than READ on files of 4 KiB stripes; here the number
 *   of seeks is bounded per call and a hole must be worth its segment;
 *   a file whose first seeks find only short holes (fine stripes) is not
 *   mapped further, its zeros cost less than the seeks would.
 * - A seek's answer past the range is cut to the range; one that goes
 *   backwards (the file changed between two seeks) ends the mapping with
 *   the rest as data: the data read is then the truth, at worst zeros
 *   that could have been a hole.
 */
#include <errno.h>

#include "nfs4/rp_map.h"

/* Append [@off, @off + @len) as @hole to @segs (@n of them so far),
 * joined to the last one when that is of the same kind. */
static unsigned int add(struct nfs4_rp_seg *segs, unsigned int n, uint64_t off, uint64_t len,
			bool hole)
{
	if (!len)
		return n;
	if (n && segs[n - 1].hole == hole) {
		segs[n - 1].len += len;
		return n;
	}
	segs[n] = (struct nfs4_rp_seg){ .off = off, .len = len, .hole = hole };
	return n + 1;
}

unsigned int nfs4_rp_map(uint64_t off, uint64_t end, nfs4_rp_seek_fn *seek, void *ctx,
			 struct nfs4_rp_seg *segs)
{
	struct nfs4_rp_seg raw[NFS4_RP_SEGS_MAX];
	unsigned int n = 0, m = 0, seeks = 0, kept = 0, i;
	uint64_t pos = off, d, h;
	int e;

	while (pos < end && seeks + 2 <= NFS4_RP_SEEKS_MAX &&
	       (kept || seeks < NFS4_RP_SEEKS_FUTILE)) {
		seeks++;
		e = seek(ctx, pos, true, &d);
		if (e == -ENXIO)
			d = end;        /* a hole to the end of the file */
		else if (e < 0 || d < pos)
			break;
		if (d > end)
			d = end;
		if (d - pos >= NFS4_RP_HOLE_MIN || d == end)
			kept++;
		n = add(raw, n, pos, d - pos, true);
		pos = d;
		if (pos == end)
			break;
		seeks++;
		e = seek(ctx, pos, false, &h);
		if (e < 0 || h <= pos) {
			/* no hole after data (the file shrank, or an odd
			 * answer): the rest is data */
			h = end;
		}
		if (h > end)
			h = end;
		n = add(raw, n, pos, h - pos, false);
		pos = h;
	}
	n = add(raw, n, pos, end - pos, false);
	/* short holes beside data become data */
	for (i = 0; i < n; i++) {
		bool hole = raw[i].hole && (n == 1 || raw[i].len >= NFS4_RP_HOLE_MIN);

		m = add(segs, m, raw[i].off, raw[i].len, hole);
	}
	return m;
}
