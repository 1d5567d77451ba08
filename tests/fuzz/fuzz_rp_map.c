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
 * The same map is then made twice through the remembered map of the file
 * (src/nfs4/rp_cache.c: learnt, then answered from): the same promises,
 * and, when every answer came from the extents, the same segments.
 */
#include <errno.h>
#include <stdlib.h>

#include "nfs4/rp_cache.h"
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

/* The promises of nfs4_rp_map's segments for [@off, @end). */
static void check(uint64_t off, uint64_t end, const struct nfs4_rp_seg *segs, unsigned int n)
{
	uint64_t at;
	unsigned int i;

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
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nfs4_rp_seg segs[NFS4_RP_SEGS_MAX], again[NFS4_RP_SEGS_MAX];
	struct nfs4_rp_ver v = { .dev = 1, .ino = 1, .blocks = 1 };
	struct fake f = { 0 };
	struct nfs4_rp_known k;
	uint64_t off, end;
	unsigned int n, n2, pass, i;
	bool plain = true;

	if (size < 12 + NFS4_RP_SEEKS_MAX)
		return 0;
	off = (uint64_t)get32(data) * 16;
	end = off + (get32(data + 4) & 0x1fffff);
	f.size = get32(data + 8);
	f.how = data + 12;
	f.ext = data + 12 + NFS4_RP_SEEKS_MAX;
	f.next = size - 12 - NFS4_RP_SEEKS_MAX;
	n = nfs4_rp_map(off, end, fake_seek, &f, segs);
	check(off, end, segs, n);
	/* The same through the remembered map (rp_cache.c), twice: learnt,
	 * then answered from. Whatever the seeks said, the map keeps its
	 * promises; when they told the truth of one layout (no error, no
	 * answer behind the offset or past the end), it is the same map. */
	for (pass = 0; pass < NFS4_RP_SEEKS_MAX && f.how; pass++)
		if (f.how[pass] >= 1 && f.how[pass] <= 4)
			plain = false;
	v.size = f.size;
	for (pass = 0; pass < 2; pass++) {
		f.seeks = 0;
		nfs4_rp_cache_begin(&k, &v, true, off, fake_seek, &f);
		n2 = nfs4_rp_map(off, end, nfs4_rp_cache_seek, &k, again);
		nfs4_rp_cache_end(&k);
		check(off, end, again, n2);
		if (plain && n2 != n)
			abort();
		for (i = 0; plain && i < n; i++)
			if (again[i].off != segs[i].off || again[i].len != segs[i].len ||
			    again[i].hole != segs[i].hole)
				abort();
	}
	nfs4_rp_cache_clear();
	return 0;
}
