// SPDX-License-Identifier: MIT
/*
 * READ_PLUS's remembered hole map (src/nfs4/rp_cache.c) over a made-up
 * file, as test_rp_map.c's: answers from known extents as lseek would,
 * learning from the real seeks, the extents' bound, the table's bound,
 * and a map used only for the file as it was when made (size, blocks,
 * ctime, nfsxd's change count), never when untrusted.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nfs4/rp_cache.h"
#include "nfs4/rp_map.h"
#include "../../tap.h"
#include "fake_sparse.h"

#define MIB (1ull << 20)

/* the data extents every @stripe bytes, data first when @data_first */
static void stripes(struct fake *f, uint64_t size, uint64_t stripe, bool data_first)
{
	fake_stripes(f, size, stripe, data_first, 1024u);
}

static struct nfs4_rp_ver ver_of(const struct fake *f, uint64_t ino)
{
	return (struct nfs4_rp_ver){ .dev = 7, .ino = ino, .size = f->size, .blocks = 100,
				     .ctime_ns = 1000, .seq = 3 };
}

/* Map [@off, @end) through the cache; the map must equal the uncached
 * one. *@real: the real seeks made. Return values: the seeks answered. */
static unsigned int cmap(struct fake *f, const struct nfs4_rp_ver *v, bool trusted, uint64_t off,
			 uint64_t end, unsigned int *real, bool *same)
{
	static struct nfs4_rp_known k;
	struct nfs4_rp_seg a[NFS4_RP_SEGS_MAX], b[NFS4_RP_SEGS_MAX];
	unsigned int n, m, i;

	m = nfs4_rp_map(off, end, fake_seek, f, b);
	f->seeks = 0;
	nfs4_rp_cache_begin(&k, v, trusted, off, fake_seek, f);
	n = nfs4_rp_map(off, end, nfs4_rp_cache_seek, &k, a);
	nfs4_rp_cache_end(&k);
	*real = f->seeks;
	*same = n == m;
	for (i = 0; *same && i < n; i++)
		*same = a[i].off == b[i].off && a[i].len == b[i].len && a[i].hole == b[i].hole;
	return k.answered;
}

/* The whole file at 1 MiB a call. Return values: the real seeks. */
static unsigned int whole(struct fake *f, const struct nfs4_rp_ver *v, bool *same)
{
	unsigned int seeks = 0, r;
	uint64_t off;
	bool s;

	*same = true;
	for (off = 0; off < f->size; off += MIB) {
		cmap(f, v, true, off, off + MIB < f->size ? off + MIB : f->size, &r, &s);
		seeks += r;
		*same = *same && s;
	}
	return seeks;
}

int main(void)
{
	static struct fake f;
	static struct nfs4_rp_known k;
	struct nfs4_rp_ver v, w;
	unsigned int real, ans, first, i;
	uint64_t x;
	bool same;
	int r;

	/* learnt once, answered the second time */
	stripes(&f, 8 * MIB, MIB, true);
	v = ver_of(&f, 1);
	first = whole(&f, &v, &same);
	ok(first > 0 && same, "first pass over 1 MiB stripes: %u real seek(s), the map unchanged",
	   first);
	real = whole(&f, &v, &same);
	ok(real == 0 && same, "second pass: %u real seek(s), the same map", real);

	/* asked whether a range is all hole, as the event loop's plan asks
	 * (data at 0, 2, 4 and 6 MiB, a MiB each) */
	ok(nfs4_rp_cache_hole(&v, MIB, 2 * MIB) && nfs4_rp_cache_hole(&v, MIB + 5, 2 * MIB - 1),
	   "a range inside a known hole: all hole");
	ok(!nfs4_rp_cache_hole(&v, MIB, 2 * MIB + 1) && !nfs4_rp_cache_hole(&v, 0, 10) &&
	   !nfs4_rp_cache_hole(&v, MIB - 1, 2 * MIB), "a range with data in it: not");
	ok(nfs4_rp_cache_hole(&v, 7 * MIB, 9 * MIB) && nfs4_rp_cache_hole(&v, 8 * MIB, 9 * MIB),
	   "the last hole to past the end, and past the end: all hole");
	w = v;
	w.ctime_ns++;
	ok(!nfs4_rp_cache_hole(&w, MIB, 2 * MIB), "another ctime: not known");
	w = ver_of(&f, 2);
	ok(!nfs4_rp_cache_hole(&w, MIB, 2 * MIB), "a file never mapped: not known");

	/* answers as lseek gives them, from the known extents */
	nfs4_rp_cache_begin(&k, &v, true, 0, fake_seek, &f);
	f.seeks = 0;
	ok(k.n == 8, "the file's 8 extents known (%u)", k.n);
	r = nfs4_rp_cache_seek(&k, MIB + 5, true, &x);
	ok(r == 0 && x == 2 * MIB, "SEEK_DATA in a hole: the hole's end");
	r = nfs4_rp_cache_seek(&k, 5, true, &x);
	ok(r == 0 && x == 5, "SEEK_DATA in data: the offset");
	r = nfs4_rp_cache_seek(&k, 5, false, &x);
	ok(r == 0 && x == MIB, "SEEK_HOLE in data: the data's end");
	r = nfs4_rp_cache_seek(&k, MIB + 5, false, &x);
	ok(r == 0 && x == MIB + 5, "SEEK_HOLE in a hole: the offset");
	r = nfs4_rp_cache_seek(&k, 7 * MIB + 5, true, &x);
	ok(r == -ENXIO, "SEEK_DATA in the last hole: ENXIO");
	r = nfs4_rp_cache_seek(&k, 8 * MIB, false, &x);
	ok(r == -ENXIO, "SEEK_HOLE at the size: ENXIO");
	ok(f.seeks == 0 && k.answered == 6, "all answered without a real seek");
	nfs4_rp_cache_end(&k);

	/* the file as it was only */
	w = v;
	w.ctime_ns++;
	cmap(&f, &w, true, 0, MIB, &real, &same);
	ok(real > 0 && same, "another ctime: not used (%u real seeks)", real);
	w = v;
	w.blocks++;
	cmap(&f, &w, true, 0, MIB, &real, &same);
	ok(real > 0 && same, "other st_blocks: not used");
	w = v;
	w.seq++;
	cmap(&f, &w, true, 0, MIB, &real, &same);
	ok(real > 0 && same, "a change by nfsxd since: not used");
	w = v;
	w.size += 4096;
	cmap(&f, &w, true, 0, MIB, &real, &same);
	ok(real > 0, "another size: not used");
	/* the entry now holds w's map (the size grown): v's is gone */
	cmap(&f, &v, true, 0, MIB, &real, &same);
	ok(real > 0 && same, "the map of the older version replaced");

	/* untrusted: neither answered nor kept */
	nfs4_rp_cache_clear();
	ans = cmap(&f, &v, false, 0, 4 * MIB, &real, &same);
	ok(ans == 0 && real > 0 && same, "untrusted: every seek real");
	cmap(&f, &v, true, 0, 4 * MIB, &real, &same);
	ok(real > 0, "untrusted: nothing kept");

	/* sequential reading learns the extent that crosses into the next call */
	nfs4_rp_cache_clear();
	stripes(&f, 16 * MIB, 3 * MIB / 2, true);
	v = ver_of(&f, 2);
	cmap(&f, &v, true, 0, MIB, &real, &same);
	ans = cmap(&f, &v, true, MIB, 2 * MIB, &real, &same);
	ok(ans >= 1 && same, "the next call's first seek answered (%u)", ans);

	/* the extents' bound: the first found kept, no more learnt */
	nfs4_rp_cache_clear();
	stripes(&f, 4 * MIB, 16384, true);   /* 256 extents */
	v = ver_of(&f, 3);
	for (x = 0; x < f.size; x += 64 * 1024)
		cmap(&f, &v, true, x, x + 64 * 1024, &real, &same);
	nfs4_rp_cache_begin(&k, &v, true, 0, fake_seek, &f);
	ok(k.n == NFS4_RP_CACHE_EXTENTS, "at most %u extents kept (%u)", NFS4_RP_CACHE_EXTENTS,
	   k.n);
	for (i = 1, same = true; i < k.n; i++)
		same = same && k.ext[i].off == k.ext[i - 1].end && k.ext[i].hole != k.ext[i - 1].hole;
	ok(same && k.ext[0].off == 0 && k.ext[k.n - 1].end == NFS4_RP_CACHE_EXTENTS * 16384,
	   "the first found kept, contiguous and alternating (to %llu)",
	   (unsigned long long)k.ext[k.n - 1].end);
	nfs4_rp_cache_end(&k);
	cmap(&f, &v, true, 0, 64 * 1024, &real, &same);
	ok(real == 0 && same, "the start answered from what is kept");
	ans = cmap(&f, &v, true, f.size - 64 * 1024, f.size, &real, &same);
	ok(real > 0 && ans == 0 && same, "the end sought again (%u seeks)", real);
	nfs4_rp_cache_begin(&k, &v, true, f.size - 64 * 1024, fake_seek, &f);
	ok(!k.use, "a map from past the full map's end: the cache not used");
	k.use = false;
	nfs4_rp_cache_end(&k);

	/* a known extent grows when a seek from before it ends at its end */
	nfs4_rp_cache_clear();
	stripes(&f, 8 * MIB, MIB, true);
	v = ver_of(&f, 5);
	nfs4_rp_cache_begin(&k, &v, true, 0, fake_seek, &f);
	r = nfs4_rp_cache_seek(&k, 3 * MIB / 2, true, &x);   /* hole [1.5, 2) MiB */
	r = nfs4_rp_cache_seek(&k, MIB, true, &x);           /* hole [1, 2) MiB */
	ok(r == 0 && x == 2 * MIB && k.n == 1 && k.ext[0].off == MIB && k.ext[0].end == 2 * MIB &&
	   k.ext[0].hole, "a hole found from further back: the known one grows");
	nfs4_rp_cache_end(&k);

	/* a file that changes under the seeks: not kept */
	nfs4_rp_cache_clear();
	stripes(&f, 8 * MIB, MIB, true);
	v = ver_of(&f, 4);
	nfs4_rp_cache_begin(&k, &v, true, 0, fake_seek, &f);
	r = nfs4_rp_cache_seek(&k, 0, false, &x);    /* data [0, 1 MiB) */
	f.ext[0][1] = 2 * MIB;                        /* the hole filled */
	r = nfs4_rp_cache_seek(&k, 512 * 1024, false, &x);
	ok(r == 0 && x == MIB, "a seek inside a known extent answered from it");
	/* real: data [1 MiB, 2 MiB), touching the data known to end at 1 MiB */
	r = nfs4_rp_cache_seek(&k, MIB, false, &x);
	ok(!k.use && r == 0 && x == 2 * MIB, "a contradiction: the real seeks answer (%d)", r);
	nfs4_rp_cache_end(&k);
	nfs4_rp_cache_begin(&k, &v, true, 0, fake_seek, &f);
	ok(k.n == 0, "and nothing kept");
	nfs4_rp_cache_end(&k);

	/* the table's bound: the least recently used files go */
	nfs4_rp_cache_clear();
	stripes(&f, 2 * MIB, MIB, true);
	for (i = 0; i < 4 * NFS4_RP_CACHE_FILES; i++) {
		v = ver_of(&f, 100 + i);
		cmap(&f, &v, true, 0, f.size, &real, &same);
	}
	v = ver_of(&f, 100 + 4 * NFS4_RP_CACHE_FILES - 1);
	cmap(&f, &v, true, 0, f.size, &real, &same);
	ok(real == 0, "the last file's map kept");
	for (i = 0, ans = 0; i < 4 * NFS4_RP_CACHE_FILES; i++) {
		v = ver_of(&f, 100 + i);
		nfs4_rp_cache_begin(&k, &v, true, 0, fake_seek, &f);
		ans += k.n > 0;
		k.use = false;
		nfs4_rp_cache_end(&k);
	}
	ok(ans <= NFS4_RP_CACHE_FILES && ans > NFS4_RP_CACHE_FILES / 2,
	   "at most %u files kept (%u of %u)", NFS4_RP_CACHE_FILES, ans, 4 * NFS4_RP_CACHE_FILES);
	v = ver_of(&f, 100);
	nfs4_rp_cache_begin(&k, &v, true, 0, fake_seek, &f);
	ok(k.n == 0, "the first file's gone");
	nfs4_rp_cache_end(&k);
	return tap_done();
}
