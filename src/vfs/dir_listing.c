/* SPDX-License-Identifier: MIT */
/* One directory's listing: entries, names and handles, cookie and name
 * tables, the ends of recent replies. See dir.h and dir_internal.h. */
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <time.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vfs/dir_internal.h"

uint32_t dc_now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &t);   /* vDSO: no system call */
	return (uint32_t)t.tv_sec;
}

static uint64_t dc_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static uint64_t dc_name_hash(const char *s, uint32_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
	return dc_mix64(h);
}

unsigned int dc_key_bucket(uint32_t id, dev_t dev, ino_t ino)
{
	return (unsigned int)(dc_mix64((uint64_t)ino ^ dc_mix64((uint64_t)dev ^ id)) % HASH_BUCKETS);
}

/* ---- memory of a listing ---- */

/*
 * A listing's arrays grow by doubling. From DC_MAP_MIN on they are maps
 * of their own that mremap moves without copying; malloc would serve
 * them from its heap after the first large one is freed (its mmap
 * threshold rises), and every doubling would copy the whole array: 13%
 * of nfsxd's time building a 100,000-entry listing of tmpfs for READDIR.
 */
#define DC_MAP_MIN ((size_t)256 << 10)

static void *dc_grow(void *p, size_t old, size_t new)
{
	void *q;

	if (new < DC_MAP_MIN)
		return realloc(p, new);
	if (old >= DC_MAP_MIN) {
		q = mremap(p, old, new, MREMAP_MAYMOVE);
		return q == MAP_FAILED ? NULL : q;
	}
	q = mmap(NULL, new, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q == MAP_FAILED)
		return NULL;
	if (old)
		memcpy(q, p, old);
	free(p);
	return q;
}

/* @bytes of zeros (a fresh map is zeroed by the kernel). */
static void *dc_zalloc(size_t bytes)
{
	void *q;

	if (bytes < DC_MAP_MIN)
		return calloc(1, bytes);
	q = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return q == MAP_FAILED ? NULL : q;
}

static void dc_release(void *p, size_t bytes)
{
	if (p && bytes >= DC_MAP_MIN)
		munmap(p, bytes);
	else
		free(p);
}

/* ---- one directory's listing (its lock held) ---- */

void dc_set_complete(struct dc_dir *d, bool v)
{
	d->complete = v;
}

/* The directory's descriptor a build reads on with: kept from call to
 * call, it spares each an open through /proc/self/fd and a close. */
void dc_build_end(struct dc_dir *d)
{
	d->building = false;
	if (d->bfd >= 0)
		close(d->bfd);
	d->bfd = -1;
}

void dc_listing_reset(struct dc_dir *d)
{
	dc_set_complete(d, false);
	dc_build_end(d);
	d->nhints = 0;
	d->n = 0;
	d->names_len = 0;
}

void dc_listing_free(struct dc_dir *d)
{
	dc_release(d->ent, (size_t)d->cap * sizeof(*d->ent));
	dc_release(d->attr, (size_t)d->acap * sizeof(*d->attr));
	dc_release(d->names, d->names_cap);
	dc_release(d->ctab, (size_t)d->tcap * sizeof(*d->ctab));
	dc_release(d->ntab, (size_t)d->tcap * sizeof(*d->ntab));
	d->ent = NULL;
	d->attr = NULL;
	d->names = NULL;
	d->ctab = d->ntab = NULL;
	d->n = d->cap = d->acap = d->names_len = d->names_cap = d->tcap = 0;
	dc_set_complete(d, false);
	dc_build_end(d);
	d->nhints = 0;
	d->size = 0;
}

static void dc_tab_put(uint32_t *tab, uint32_t cap, uint64_t h, uint32_t idx)
{
	uint32_t i = (uint32_t)h & (cap - 1);

	while (tab[i])
		i = (i + 1) & (cap - 1);
	tab[i] = idx + 1;
}

/* The cookie and name tables of the whole listing. */
int dc_tabs_build(struct dc_dir *d)
{
	uint32_t cap = 256, i;

	while (cap < 2 * d->n)
		cap *= 2;
	if (cap != d->tcap) {
		size_t bytes = (size_t)cap * sizeof(uint32_t);
		uint32_t *ct = dc_zalloc(bytes), *nt = dc_zalloc(bytes);

		if (!ct || !nt) {
			dc_release(ct, bytes);
			dc_release(nt, bytes);
			return -ENOMEM;
		}
		dc_release(d->ctab, (size_t)d->tcap * sizeof(*d->ctab));
		dc_release(d->ntab, (size_t)d->tcap * sizeof(*d->ntab));
		d->ctab = ct;
		d->ntab = nt;
		d->tcap = cap;
	} else {
		memset(d->ctab, 0, cap * sizeof(*d->ctab));
		memset(d->ntab, 0, cap * sizeof(*d->ntab));
	}
	for (i = 0; i < d->n; i++) {
		dc_tab_put(d->ctab, cap, dc_mix64(d->ent[i].cookie), i);
		dc_tab_put(d->ntab, cap, dc_name_hash(d->names + d->ent[i].name_off, d->ent[i].namelen), i);
	}
	return 0;
}

size_t dc_listing_size(const struct dc_dir *d)
{
	return sizeof(*d) + (size_t)d->cap * sizeof(*d->ent) +
	       (size_t)d->acap * sizeof(*d->attr) + d->names_cap +
	       2 * (size_t)d->tcap * sizeof(uint32_t);
}

/* Index of the entry whose cookie is @c, or -1. */
static long dc_by_cookie(const struct dc_dir *d, uint64_t c)
{
	uint32_t i, v;

	if (!d->tcap)
		return -1;
	for (i = (uint32_t)dc_mix64(c) & (d->tcap - 1); (v = d->ctab[i]); i = (i + 1) & (d->tcap - 1))
		if (d->ent[v - 1].cookie == c)
			return (long)v - 1;
	return -1;
}

void dc_hint_set(struct dc_dir *d, uint64_t cookie, uint32_t next)
{
	d->hint[d->nhints % HINTS].cookie = cookie;
	d->hint[d->nhints % HINTS].next = next;
	d->nhints++;
}

/* Index of the first entry after @cookie in the listing (whole or being
 * read), or -1 when it is not known. */
long dc_position(const struct dc_dir *d, uint64_t cookie)
{
	unsigned int i;
	long at;

	if (!d->complete && !d->building)
		return -1;
	if (cookie == 0)
		return 0;
	if (d->complete && (at = dc_by_cookie(d, cookie)) >= 0)
		return at + 1;
	for (i = 0; i < HINTS && i < d->nhints; i++)
		if (d->hint[i].cookie == cookie && d->hint[i].next <= d->n)
			return d->hint[i].next;
	return -1;
}

long dc_by_name(const struct dc_dir *d, const char *name)
{
	uint32_t len = (uint32_t)strlen(name), i, v;

	if (!d->tcap)
		return -1;
	for (i = (uint32_t)dc_name_hash(name, len) & (d->tcap - 1); (v = d->ntab[i]); i = (i + 1) & (d->tcap - 1)) {
		const struct dc_entry *x = &d->ent[v - 1];

		if (x->namelen == len && memcmp(d->names + x->name_off, name, len) == 0)
			return (long)v - 1;
	}
	return -1;
}

/* Room for attributes beside every entry the listing has room for. */
static bool dc_attr_room(struct dc_dir *d)
{
	struct dc_attr *na;

	if (d->acap >= d->cap)
		return true;
	na = dc_grow(d->attr, (size_t)d->acap * sizeof(*na), (size_t)d->cap * sizeof(*na));
	if (!na)
		return false;
	d->attr = na;
	d->acap = d->cap;
	return true;
}

/*
 * Keep @st as entry @i's attributes, taken at @now; @keep_st: they may
 * be served again (see dir.h). Return values: false when there is no
 * memory for them (the entry stays without).
 */
bool dc_attr_store(struct dc_dir *d, uint32_t i, const struct stat *st, bool keep_st,
		   uint32_t now)
{
	struct dc_entry *x = &d->ent[i];
	struct dc_attr *a;

	x->flags &= (uint8_t)~(E_ST | E_KEEP_ST);
	if (!dc_attr_room(d))
		return false;
	a = &d->attr[i];
	a->dev = st->st_dev;
	a->rdev = st->st_rdev;
	a->size = (uint64_t)st->st_size;
	a->blocks = (uint64_t)st->st_blocks;
	a->atime = st->st_atim.tv_sec;
	a->mtime = st->st_mtim.tv_sec;
	a->ctime = st->st_ctim.tv_sec;
	a->atime_ns = (uint32_t)st->st_atim.tv_nsec;
	a->mtime_ns = (uint32_t)st->st_mtim.tv_nsec;
	a->ctime_ns = (uint32_t)st->st_ctim.tv_nsec;
	a->mode = st->st_mode;
	a->nlink = (uint32_t)st->st_nlink;
	a->uid = st->st_uid;
	a->gid = st->st_gid;
	x->st_at = now;
	x->flags |= E_ST | (keep_st ? E_KEEP_ST : 0);
	return true;
}

/* Entry @i's attributes (it has E_ST). */
void dc_attr_load(const struct dc_dir *d, uint32_t i, struct stat *st)
{
	const struct dc_attr *a = &d->attr[i];

	memset(st, 0, sizeof(*st));
	st->st_dev = (dev_t)a->dev;
	st->st_ino = (ino_t)d->ent[i].ino;
	st->st_rdev = (dev_t)a->rdev;
	st->st_size = (off_t)a->size;
	st->st_blocks = (blkcnt_t)a->blocks;
	st->st_atim.tv_sec = a->atime;
	st->st_mtim.tv_sec = a->mtime;
	st->st_ctim.tv_sec = a->ctime;
	st->st_atim.tv_nsec = a->atime_ns;
	st->st_mtim.tv_nsec = a->mtime_ns;
	st->st_ctim.tv_nsec = a->ctime_ns;
	st->st_mode = a->mode;
	st->st_nlink = a->nlink;
	st->st_uid = a->uid;
	st->st_gid = a->gid;
}

/* Append @len bytes to the names; false when out of memory. */
bool dc_arena_put(struct dc_dir *d, const void *p, uint32_t len, uint32_t *off)
{
	if (d->names_len + len > d->names_cap) {
		uint32_t cap = d->names_cap ? d->names_cap : 1024;
		char *nn;

		while (cap < d->names_len + len) {
			if (cap > UINT32_MAX / 2)
				return false;
			cap *= 2;
		}
		nn = dc_grow(d->names, d->names_cap, cap);
		if (!nn)
			return false;
		d->names = nn;
		d->names_cap = cap;
	}
	memcpy(d->names + d->names_len, p, len);
	*off = d->names_len;
	d->names_len += len;
	return true;
}

/* Append an entry; false when it does not fit the budget (or memory). */
bool dc_listing_add(struct dc_dir *d, size_t limit, const struct linux_dirent64 *de,
			uint32_t nl, const struct stat *st, const struct nfsx_fh *fh,
			bool keep_st, uint32_t now)
{
	struct dc_entry *x;

	if (d->n == d->cap) {
		size_t per = sizeof(struct dc_entry) + (d->acap || st ? sizeof(struct dc_attr) : 0);
		size_t room = limit > sizeof(*d) + d->names_cap ?
			      (limit - sizeof(*d) - d->names_cap) / per : 0;
		uint32_t cap = d->cap ? d->cap * 2 : 16;
		struct dc_entry *ne;

		/* doubling past the limit: take what is left of it */
		if (cap > room)
			cap = (uint32_t)(room < UINT32_MAX ? room : UINT32_MAX);
		if (cap <= d->cap)
			return false;
		ne = dc_grow(d->ent, (size_t)d->cap * sizeof(*ne), (size_t)cap * sizeof(*ne));
		if (!ne)
			return false;
		d->ent = ne;
		d->cap = cap;
	}
	x = &d->ent[d->n];
	x->cookie = (uint64_t)de->d_off;
	x->ino = de->d_ino;
	x->namelen = (uint16_t)nl;
	x->flags = 0;
	if (!dc_arena_put(d, de->d_name, nl, &x->name_off))
		return false;
	if (fh && dc_arena_put(d, fh->data, fh->len, &x->fh_off)) {
		x->fhlen = (uint8_t)fh->len;
		x->flags |= E_FH;
	}
	if (st)
		dc_attr_store(d, d->n, st, keep_st, now);
	d->size = dc_listing_size(d);
	if (d->size > limit)
		return false;
	d->n++;
	return true;
}

