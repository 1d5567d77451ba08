// SPDX-License-Identifier: MIT
/*
 * READ_PLUS's map (src/nfs4/rp_map.c) over a made-up file: a size and a
 * list of data extents, asked through the seek callback as lseek's
 * SEEK_DATA and SEEK_HOLE answer. Checked on every map: the segments
 * cover the range exactly, alternate, and no hole beside data is shorter
 * than NFS4_RP_HOLE_MIN; and the seeks stay within NFS4_RP_SEEKS_MAX.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nfs4/rp_map.h"
#include "../../tap.h"
#include "fake_sparse.h"

/* the data extents every @stripe bytes, data first when @data_first */
static void stripes(struct fake *f, uint64_t size, uint64_t stripe, bool data_first)
{
	fake_stripes(f, size, stripe, data_first, 512u);
}

/* the map of [@off, @end): well formed. Return values: its count. */
static unsigned int map(struct fake *f, uint64_t off, uint64_t end, struct nfs4_rp_seg *s,
			const char *what)
{
	unsigned int n, i;
	uint64_t at = off;
	bool good = true;

	f->seeks = 0;
	n = nfs4_rp_map(off, end, fake_seek, f, s);
	for (i = 0; i < n; i++) {
		good = good && s[i].off == at && s[i].len > 0 && s[i].len <= end - at &&
		       (i == 0 || s[i].hole != s[i - 1].hole);
		good = good && (!s[i].hole || n == 1 || s[i].len >= NFS4_RP_HOLE_MIN);
		at += s[i].len;
	}
	good = good && at == end && n <= NFS4_RP_SEGS_MAX && f->seeks <= NFS4_RP_SEEKS_MAX;
	ok(good, "%s: %u segment(s) covering the range, %u seek(s)", what, n, f->seeks);
	return n;
}

int main(void)
{
	static struct fake f;
	struct nfs4_rp_seg s[NFS4_RP_SEGS_MAX];
	unsigned int n;

	/* one data extent in the middle */
	memset(&f, 0, sizeof(f));
	f.size = 1u << 20;
	f.n = 1;
	f.ext[0][0] = 65536;
	f.ext[0][1] = 131072;
	n = map(&f, 0, f.size, s, "hole, data, hole to eof");
	ok(n == 3 && s[0].hole && s[0].len == 65536 && !s[1].hole && s[1].len == 65536 &&
	   s[2].hole && s[2].off == 131072 && s[2].len == f.size - 131072,
	   "the hole, the data, the hole that reaches eof");
	n = map(&f, 70000, 80000, s, "inside the data");
	ok(n == 1 && !s[0].hole && f.seeks == 2, "one data segment after two seeks");
	n = map(&f, 200000, 300000, s, "inside the last hole");
	ok(n == 1 && s[0].hole && s[0].len == 100000, "one hole segment cut to the range");
	n = map(&f, 0, 1000, s, "a short range in a hole");
	ok(n == 1 && s[0].hole, "a range that is one short hole stays a hole");
	n = map(&f, 65536 - 100, 65536 + 100, s, "a short hole then data");
	ok(n == 1 && !s[0].hole && s[0].len == 200, "the hole under 4 KiB merged into the data");
	n = map(&f, 5, 5, s, "an empty range");
	ok(n == 0 && f.seeks == 0, "no segment, no seek");

	/* all hole */
	memset(&f, 0, sizeof(f));
	f.size = 1u << 20;
	n = map(&f, 0, f.size, s, "all hole");
	ok(n == 1 && s[0].hole && s[0].len == f.size && f.seeks == 1, "one hole, one seek");

	/* 4 KiB stripes: the seeks run out, the rest is data */
	stripes(&f, 1u << 20, 4096, true);
	n = map(&f, 0, f.size, s, "4 KiB stripes from data");
	ok(n == NFS4_RP_SEEKS_MAX - 1 && !s[n - 1].hole &&
	   s[n - 1].off == (NFS4_RP_SEEKS_MAX / 2 - 1) * 8192,
	   "holes as far as the seeks go, then one data segment to the end");
	stripes(&f, 1u << 20, 4096, false);
	n = map(&f, 0, f.size, s, "4 KiB stripes from a hole");
	ok(n >= 2 && s[0].hole && s[0].len == 4096 && !s[1].hole, "starts with the hole");
	/* 2 KiB stripes: every hole merged, one data segment */
	stripes(&f, 1u << 20, 2048, true);
	n = map(&f, 0, f.size, s, "2 KiB stripes");
	ok(n == 1 && !s[0].hole && f.seeks == NFS4_RP_SEEKS_FUTILE,
	   "holes under 4 KiB are data, the mapping given up early");
	/* 64 KiB stripes: all mapped */
	stripes(&f, 1u << 20, 65536, false);
	n = map(&f, 0, f.size, s, "64 KiB stripes from a hole");
	ok(n == 16 && s[0].hole && !s[15].hole, "16 segments, alternating");
	/* a seek fails: the rest is data */
	stripes(&f, 1u << 20, 65536, true);
	f.fail_at = 4;
	n = map(&f, 0, f.size, s, "a seek fails");
	ok(n == 3 && !s[0].hole && s[1].hole && !s[2].hole && s[2].off == 131072,
	   "data, the hole found, then the rest as data");
	/* a data extent past the range's end */
	memset(&f, 0, sizeof(f));
	f.size = 1u << 20;
	f.n = 1;
	f.ext[0][0] = 900000;
	f.ext[0][1] = 1u << 20;
	n = map(&f, 0, 500000, s, "a hole longer than the range");
	ok(n == 1 && s[0].hole && s[0].len == 500000, "the hole cut at the range's end");
	return tap_done();
}
