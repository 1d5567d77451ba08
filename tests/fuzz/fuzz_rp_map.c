/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: READ_PLUS's map (src/nfs4/rp_map.c) over a made-up
 * file whose extents and seek answers come from the input, answers that
 * a file changing between two seeks could give included (backwards,
 * past the end, errors). Input: u32 offset (in 16-byte units), u32
 * count, u32 size, then per seek one byte (0: answer from the extents;
 * 1: -EIO; 2: -ENXIO; 3: an answer before the offset asked; 4: past the
 * size; else from the extents) and the extents as u16 lengths, holes
 * and data alternating from a hole. Whatever the answers, the map must
 * cover [offset, end) exactly, in order, with alternating, non-empty
 * segments inside it (none wrapping around 2^64), at
 * most NFS4_RP_SEGS_MAX of them after at most NFS4_RP_SEEKS_MAX seeks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nfs4/rp_map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fake {
	const uint8_t *how;        /* NFS4_RP_SEEKS_MAX bytes */
	const uint8_t *ext;
	size_t next;
	uint64_t size;
	unsigned int seeks;
};

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int fake_seek(void *ctx, uint64_t off, bool want_data, uint64_t *out)
{
	struct fake *f = ctx;
	uint8_t how = f->how[f->seeks % NFS4_RP_SEEKS_MAX];
	uint64_t at = 0;
	size_t i = 0;
	bool hole = true;

	if (++f->seeks > NFS4_RP_SEEKS_MAX)
		abort();
	if (how == 1)
		return -EIO;
	if (how == 2)
		return -ENXIO;
	if (how == 3) {
		*out = off ? off - 1 : 0;
		return 0;
	}
	if (how == 4) {
		*out = f->size + 4096;
		return 0;
	}
	if (off >= f->size)
		return -ENXIO;
	/* the extent holding off, then the first of the kind asked */
	for (i = 0; i + 1 < f->next && at + ((uint64_t)f->ext[i] << 8 | f->ext[i + 1]) <= off; i += 2) {
		at += (uint64_t)f->ext[i] << 8 | f->ext[i + 1];
		hole = !hole;
	}
	if (hole != want_data) {
		*out = off;
		return 0;
	}
	at += i + 1 < f->next ? ((uint64_t)f->ext[i] << 8 | f->ext[i + 1]) : f->size;
	if (at >= f->size) {
		if (want_data)
			return -ENXIO;
		at = f->size;
	}
	*out = at;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nfs4_rp_seg segs[NFS4_RP_SEGS_MAX];
	struct fake f = { 0 };
	uint64_t off, end, at;
	unsigned int n, i;

	if (size < 12 + NFS4_RP_SEEKS_MAX)
		return 0;
	off = (uint64_t)get32(data) * 16;
	end = off + (get32(data + 4) & 0x1fffff);
	f.size = get32(data + 8);
	f.how = data + 12;
	f.ext = data + 12 + NFS4_RP_SEEKS_MAX;
	f.next = size - 12 - NFS4_RP_SEEKS_MAX;
	n = nfs4_rp_map(off, end, fake_seek, &f, segs);
	if (n > NFS4_RP_SEGS_MAX || (off < end) != (n > 0))
		abort();
	for (at = off, i = 0; i < n; i++) {
		if (segs[i].off != at || segs[i].len == 0 || segs[i].len > end - at ||
		    (i && segs[i].hole == segs[i - 1].hole))
			abort();
		if (segs[i].hole && n > 1 && segs[i].len < NFS4_RP_HOLE_MIN)
			abort();
		at += segs[i].len;
	}
	if (at != end)
		abort();
	return 0;
}
