/* SPDX-License-Identifier: MIT */
/*
 * A made-up sparse file for READ_PLUS's map and its cache (test_rp_map.c,
 * test_rp_cache.c): a size and a list of data extents, asked through a
 * seek callback (nfs4_rp_seek_fn) as lseek's SEEK_DATA and SEEK_HOLE
 * answer, counting the seeks; the seek numbered @fail_at fails with EIO.
 */
#ifndef NFSX_TESTS_FAKE_SPARSE_H
#define NFSX_TESTS_FAKE_SPARSE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define FAKE_EXTENTS 1024u

struct fake {
	uint64_t size;
	unsigned int n;
	uint64_t ext[FAKE_EXTENTS][2];  /* data [start, end), ascending */
	unsigned int seeks;
	int fail_at;                    /* the seek that fails with EIO (0: none) */
};

static inline int fake_seek(void *ctx, uint64_t off, bool data, uint64_t *out)
{
	struct fake *f = ctx;
	unsigned int i;

	f->seeks++;
	if (f->fail_at && (int)f->seeks == f->fail_at)
		return -EIO;
	if (off >= f->size)
		return -ENXIO;
	for (i = 0; i < f->n; i++) {
		if (off < f->ext[i][1]) {
			if (data) {
				*out = off > f->ext[i][0] ? off : f->ext[i][0];
				return 0;
			}
			*out = off >= f->ext[i][0] ? f->ext[i][1] : off;
			return 0;
		}
	}
	if (data)
		return -ENXIO;
	*out = off;
	return 0;
}

/* Data extents every @stripe bytes of @size (at most @max of them), data
 * first when @data_first. */
static inline void fake_stripes(struct fake *f, uint64_t size, uint64_t stripe, bool data_first,
				unsigned int max)
{
	uint64_t at;

	memset(f, 0, sizeof(*f));
	f->size = size;
	for (at = data_first ? 0 : stripe; at < size && f->n < max; at += 2 * stripe) {
		f->ext[f->n][0] = at;
		f->ext[f->n][1] = at + stripe < size ? at + stripe : size;
		f->n++;
	}
}

#endif
