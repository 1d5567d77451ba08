/* SPDX-License-Identifier: MIT */
/*
 * READ_PLUS's remembered hole map (rp_cache.h).
 *
 * DESIGN
 * - What a seek says, kept exactly: SEEK_DATA from @off answering d > @off
 *   says [@off, d) is a hole and data starts at d; SEEK_HOLE answering
 *   h > @off says [@off, h) is data and a hole (or the end) starts at h;
 *   SEEK_DATA's ENXIO says [@off, size) is a hole to the end. So every
 *   extent ends where the other kind starts, and a seek from inside one
 *   is answered by its end or by its own offset, as lseek would. A seek
 *   at or past the size is ENXIO without asking (the size is the one the
 *   map is valid for).
 * - Extents sorted by offset, never overlapping; two that overlap must be
 *   of one kind and end at one place, and two of one kind may not touch
 *   (each says the kind changes at its end): anything else is the file
 *   changing under the seeks.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "nfs4/rp_cache.h"

struct entry {
	bool valid;
	struct nfs4_rp_ver ver;
	uint64_t stamp;          /* last use, for the set's LRU */
	unsigned int n;
	struct nfs4_rp_ext ext[NFS4_RP_CACHE_EXTENTS];
};

static struct entry table[NFS4_RP_CACHE_SETS][NFS4_RP_CACHE_WAYS];
static pthread_mutex_t locks[NFS4_RP_CACHE_SETS];
static uint64_t stamps[NFS4_RP_CACHE_SETS];  /* under the set's lock */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static atomic_uint_least64_t n_seeks, n_answered;

static void init(void)
{
	unsigned int i;

	for (i = 0; i < NFS4_RP_CACHE_SETS; i++)
		pthread_mutex_init(&locks[i], NULL);
}

static unsigned int set_of(uint64_t dev, uint64_t ino)
{
	uint64_t h = (ino ^ (dev << 32 | dev >> 32)) * 0x9e3779b97f4a7c15ull;

	return (unsigned int)(h >> 40) % NFS4_RP_CACHE_SETS;
}

static bool same_file(const struct nfs4_rp_ver *a, const struct nfs4_rp_ver *b)
{
	return a->dev == b->dev && a->ino == b->ino;
}

static bool same_ver(const struct nfs4_rp_ver *a, const struct nfs4_rp_ver *b)
{
	return same_file(a, b) && a->size == b->size && a->blocks == b->blocks &&
	       a->ctime_ns == b->ctime_ns && a->seq == b->seq;
}

void nfs4_rp_cache_begin(struct nfs4_rp_known *k, const struct nfs4_rp_ver *v, bool trusted,
			 uint64_t off, nfs4_rp_seek_fn *seek, void *ctx)
{
	unsigned int s = set_of(v->dev, v->ino), w;

	k->ver = *v;
	k->use = trusted;
	k->learnt = false;
	k->n = 0;
	k->seek = seek;
	k->ctx = ctx;
	k->seeks = k->answered = 0;
	if (!trusted)
		return;
	pthread_once(&once, init);
	pthread_mutex_lock(&locks[s]);
	for (w = 0; w < NFS4_RP_CACHE_WAYS; w++) {
		struct entry *e = &table[s][w];

		if (e->valid && same_ver(&e->ver, v)) {
			e->stamp = ++stamps[s];
			if (e->n == NFS4_RP_CACHE_EXTENTS && e->ext[e->n - 1].end <= off) {
				k->use = false;
				break;
			}
			k->n = e->n;
			memcpy(k->ext, e->ext, e->n * sizeof(e->ext[0]));
			break;
		}
	}
	pthread_mutex_unlock(&locks[s]);
}

bool nfs4_rp_cache_hole(const struct nfs4_rp_ver *v, uint64_t off, uint64_t end)
{
	unsigned int s = set_of(v->dev, v->ino), w, i;
	bool hole = false;

	if (off >= v->size)
		return true;
	if (end > v->size)
		end = v->size;
	pthread_once(&once, init);
	pthread_mutex_lock(&locks[s]);
	for (w = 0; w < NFS4_RP_CACHE_WAYS; w++) {
		const struct entry *e = &table[s][w];

		if (!e->valid || !same_ver(&e->ver, v))
			continue;
		/* the extent holding @off: each ends where the other kind
		 * starts, so one hole reaching @end is all of the range */
		for (i = 0; i < e->n && e->ext[i].end <= off; i++)
			;
		hole = i < e->n && e->ext[i].off <= off && e->ext[i].hole && e->ext[i].end >= end;
		break;
	}
	pthread_mutex_unlock(&locks[s]);
	return hole;
}

/* The first extent of @k ending after @off (k->n when none). */
static unsigned int first_after(const struct nfs4_rp_known *k, uint64_t off)
{
	unsigned int lo = 0, hi = k->n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (k->ext[mid].end <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The file changed under the seeks: stop using the map for this call. */
static void contradiction(struct nfs4_rp_known *k)
{
	k->use = false;
	k->learnt = false;
}

/* Learn that [@off, @end) is all @hole and the other kind starts at @end. */
static void learn(struct nfs4_rp_known *k, uint64_t off, uint64_t end, bool hole)
{
	unsigned int i, j;

	/* Full: nothing more. The extents kept are the first found, which a
	 * client reading the file again from its start asks first; following
	 * a reader instead would cost a move of the extents per seek and pay
	 * back only for one that comes back to what it read last. (No check
	 * for contradictions either: a map kept is used only while the file
	 * is as its stat was, which a change during the seeks is not.) */
	if (k->n == NFS4_RP_CACHE_EXTENTS)
		return;
	i = first_after(k, off);

	/* the extent before ends at or before @off: of this kind, touching,
	 * it says the kind changes at @off */
	if (i > 0 && k->ext[i - 1].hole == hole && k->ext[i - 1].end == off)
		return contradiction(k);
	/* the ones it overlaps: of its kind and its end, else a contradiction */
	for (j = i; j < k->n && k->ext[j].off < end; j++)
		if (k->ext[j].hole != hole || k->ext[j].end != end)
			return contradiction(k);
	if (j < k->n && k->ext[j].hole == hole && k->ext[j].off == end)
		return contradiction(k);
	if (j > i) {
		/* known already, perhaps from further on: it grows */
		if (k->ext[i].off <= off)
			return;
		k->ext[i].off = off;
		k->learnt = true;
		return;
	}
	memmove(&k->ext[i + 1], &k->ext[i], (k->n - i) * sizeof(k->ext[0]));
	k->ext[i] = (struct nfs4_rp_ext){ off, end, hole };
	k->n++;
	k->learnt = true;
}

int nfs4_rp_cache_seek(void *ctx, uint64_t off, bool data, uint64_t *out)
{
	struct nfs4_rp_known *k = ctx;
	uint64_t size = k->ver.size, x;
	unsigned int i;
	int r;

	if (k->use) {
		if (off >= size) {
			k->answered++;
			return -ENXIO;
		}
		/* past the last known (a sequential reader's next seeks): no
		 * search */
		i = k->n && off < k->ext[k->n - 1].end ? first_after(k, off) : k->n;
		if (i < k->n && k->ext[i].off <= off) {
			const struct nfs4_rp_ext *e = &k->ext[i];

			k->answered++;
			if (e->hole == !data) {
				*out = off;
				return 0;
			}
			if (data && e->end >= size)
				return -ENXIO;
			*out = e->end;
			return 0;
		}
	}
	k->seeks++;
	r = k->seek(k->ctx, off, data, &x);
	if (r == 0)
		*out = x;
	if (!k->use)
		return r;
	if (r == 0 && x > size)
		contradiction(k);    /* past the size the map is for: it grew */
	else if (r == 0 && x > off)
		learn(k, off, x, data);
	else if (r == -ENXIO && data)
		learn(k, off, size, true);
	return r;
}

void nfs4_rp_cache_end(struct nfs4_rp_known *k)
{
	unsigned int s, w, victim = 0;

	atomic_fetch_add_explicit(&n_seeks, k->seeks, memory_order_relaxed);
	atomic_fetch_add_explicit(&n_answered, k->answered, memory_order_relaxed);
	if (!k->use || !k->learnt)
		return;
	s = set_of(k->ver.dev, k->ver.ino);
	pthread_mutex_lock(&locks[s]);
	for (w = 0; w < NFS4_RP_CACHE_WAYS; w++) {
		const struct entry *e = &table[s][w];

		if (e->valid && same_file(&e->ver, &k->ver)) {
			victim = w;
			break;
		}
		if (!e->valid || (table[s][victim].valid && e->stamp < table[s][victim].stamp))
			victim = w;
	}
	table[s][victim].valid = true;
	table[s][victim].ver = k->ver;
	table[s][victim].stamp = ++stamps[s];
	table[s][victim].n = k->n;
	memcpy(table[s][victim].ext, k->ext, k->n * sizeof(k->ext[0]));
	pthread_mutex_unlock(&locks[s]);
}

void nfs4_rp_cache_clear(void)
{
	unsigned int s;

	pthread_once(&once, init);
	for (s = 0; s < NFS4_RP_CACHE_SETS; s++) {
		pthread_mutex_lock(&locks[s]);
		memset(table[s], 0, sizeof(table[s]));
		pthread_mutex_unlock(&locks[s]);
	}
}

void nfs4_rp_cache_counts(uint64_t *seeks, uint64_t *answered)
{
	*seeks = atomic_load_explicit(&n_seeks, memory_order_relaxed);
	*answered = atomic_load_explicit(&n_answered, memory_order_relaxed);
}
