/* SPDX-License-Identifier: MIT */
#include "bench_hist.h"

#include <math.h>
#include <string.h>

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

unsigned hist_index(uint64_t v)
{
	unsigned e, shift;

	if (v >= (1ull << HIST_MAX_BITS))
		v = (1ull << HIST_MAX_BITS) - 1;
	if (v < 2 * HIST_SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);     /* >= HIST_SUB_BITS + 1 */
	shift = e - HIST_SUB_BITS;                  /* >= 1 */
	return 2 * HIST_SUB + (shift - 1) * HIST_SUB + (unsigned)((v >> shift) - HIST_SUB);
}

void hist_bounds(unsigned i, uint64_t *lo, uint64_t *hi)
{
	unsigned shift;
	uint64_t top;

	if (i < 2 * HIST_SUB) {
		*lo = *hi = i;
		return;
	}
	shift = (i - 2 * HIST_SUB) / HIST_SUB + 1;
	top = HIST_SUB + (i - 2 * HIST_SUB) % HIST_SUB;
	*lo = top << shift;
	*hi = ((top + 1) << shift) - 1;
}

void hist_add(struct hist *h, uint64_t v)
{
	double d;

	h->count++;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	d = (double)v - h->mean;
	h->mean += d / (double)h->count;
	h->m2 += d * ((double)v - h->mean);
	h->b[hist_index(v)]++;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	double n1 = (double)dst->count, n2 = (double)src->count, d;

	if (!src->count)
		return;
	if (!dst->count) {
		memcpy(dst, src, sizeof(*dst));
		return;
	}
	d = src->mean - dst->mean;
	dst->mean += d * n2 / (n1 + n2);
	dst->m2 += src->m2 + d * d * n1 * n2 / (n1 + n2);
	dst->count += src->count;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t rank, seen = 0, lo, hi, v;

	if (!h->count)
		return 0;
	if (p <= 0)
		return h->min;
	if (p >= 100)
		return h->max;
	/* nearest rank; the epsilon keeps e.g. 0.9 * 1000 from rounding up to 901 */
	rank = (uint64_t)ceil(p / 100.0 * (double)h->count - 1e-9);
	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen < rank)
			continue;
		hist_bounds(i, &lo, &hi);
		v = lo + (hi - lo) / 2;
		if (v < h->min)
			v = h->min;
		if (v > h->max)
			v = h->max;
		return v;
	}
	return h->max;
}

double hist_mean(const struct hist *h)
{
	return h->count ? h->mean : 0.0;
}

double hist_stddev(const struct hist *h)
{
	return h->count ? sqrt(h->m2 / (double)h->count) : 0.0;
}
