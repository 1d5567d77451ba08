/* SPDX-License-Identifier: MIT */
/* The latency histogram against exact values: nearest-rank percentiles
 * of sorted random data must be within HIST_REL_ERR; count, min, max,
 * mean and standard deviation exact; merging equals adding everything
 * to one histogram; bucket bounds tile the range without gaps. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_hist.h"
#include "tap.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t exact_pct(const uint64_t *sorted, size_t n, double p)
{
	uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)n - 1e-9);

	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

static const double pcts[] = { 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 100 };

/* All percentiles within the bound; returns the worst relative error seen. */
static int check_pcts(const char *what, const struct hist *h, const uint64_t *sorted, size_t n,
		      double *worst)
{
	int good = 1;

	*worst = 0;
	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		uint64_t e = exact_pct(sorted, n, pcts[i]), g = hist_percentile(h, pcts[i]);
		double rel = e ? fabs((double)g - (double)e) / (double)e : (double)g;

		if (rel > *worst)
			*worst = rel;
		if (rel > HIST_REL_ERR) {
			printf("# %s: p%g exact %llu hist %llu rel %.6f\n", what, pcts[i],
			       (unsigned long long)e, (unsigned long long)g, rel);
			good = 0;
		}
	}
	return good;
}

static void exact_stats(const uint64_t *v, size_t n, double *mean, double *sd)
{
	long double s = 0, q = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	*mean = (double)(s / n);
	for (size_t i = 0; i < n; i++)
		q += ((long double)v[i] - *mean) * ((long double)v[i] - *mean);
	*sd = (double)sqrtl(q / n);
}

int main(void)
{
	static struct hist h, h1, h2, empty;
	enum { N = 200000 };
	uint64_t *v = malloc(N * sizeof(*v)), lo, hi, plo = 0, phi = 0;
	double worst, mean, sd;
	int tiles = 1, idx_ok = 1, good;

	/* bucket geometry */
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		hist_bounds(i, &lo, &hi);
		if (i && lo != phi + 1)
			tiles = 0;
		if (hist_index(lo) != i || hist_index(hi) != i)
			idx_ok = 0;
		if (lo > 2 * HIST_SUB && (double)(hi - lo + 1) / (double)lo > 1.0 / HIST_SUB)
			tiles = 0;
		plo = lo;
		phi = hi;
	}
	(void)plo;
	ok(tiles, "buckets tile [0, 2^48) without gaps, each at most 1/128 of its value wide");
	ok(idx_ok, "hist_index maps both bounds of every bucket to that bucket");
	ok(phi == (1ull << HIST_MAX_BITS) - 1, "last bucket ends at 2^48 - 1");
	ok(hist_index(UINT64_MAX) == HIST_BUCKETS - 1, "huge values clamp into the last bucket");

	/* empty */
	hist_init(&empty);
	ok(empty.count == 0 && hist_percentile(&empty, 50) == 0 && hist_mean(&empty) == 0 &&
	   hist_stddev(&empty) == 0, "empty histogram reports zeros");

	/* small exact values */
	hist_init(&h);
	for (uint64_t x = 1; x <= 100; x++)
		hist_add(&h, x);
	ok(hist_percentile(&h, 50) == 50 && hist_percentile(&h, 90) == 90 &&
	   hist_percentile(&h, 99) == 99 && hist_percentile(&h, 99.9) == 100 &&
	   hist_percentile(&h, 1) == 1, "values below 256 ns are exact (1..100)");
	ok(h.min == 1 && h.max == 100 && fabs(hist_mean(&h) - 50.5) < 1e-9,
	   "min, max, mean of 1..100");
	ok(fabs(hist_stddev(&h) - sqrt((100.0 * 100.0 - 1) / 12)) < 1e-9,
	   "population stddev of 1..100");

	/* log-uniform from 100 ns to 10 s, as latencies spread */
	hist_init(&h);
	for (size_t i = 0; i < N; i++) {
		double u = (double)(next() >> 11) / 9007199254740992.0;

		v[i] = (uint64_t)(100.0 * pow(1e8, u));
		hist_add(&h, v[i]);
	}
	qsort(v, N, sizeof(*v), cmp_u64);
	ok(h.count == N && h.min == v[0] && h.max == v[N - 1], "count, min, max exact");
	good = check_pcts("log-uniform", &h, v, N, &worst);
	ok(good,
	   "log-uniform: 13 percentiles within 1/256 (worst %.5f)", worst);
	exact_stats(v, N, &mean, &sd);
	ok(fabs(hist_mean(&h) - mean) / mean < 1e-9, "mean exact (%.1f vs %.1f)", hist_mean(&h), mean);
	ok(fabs(hist_stddev(&h) - sd) / sd < 1e-6, "stddev exact (%.1f vs %.1f)", hist_stddev(&h), sd);

	/* a tight cluster (what a busy server looks like): 40-60 us */
	hist_init(&h);
	for (size_t i = 0; i < N; i++) {
		v[i] = 40000 + next() % 20000;
		hist_add(&h, v[i]);
	}
	qsort(v, N, sizeof(*v), cmp_u64);
	good = check_pcts("cluster", &h, v, N, &worst);
	ok(good,
	   "40-60 us cluster: percentiles within 1/256 (worst %.5f)", worst);

	/* bimodal with a far tail: p99.9 lands in the tail */
	hist_init(&h);
	for (size_t i = 0; i < N; i++) {
		uint64_t r = next();

		v[i] = (r % 1000 < 995) ? 20000 + (r >> 20) % 5000 : 5000000 + (r >> 20) % 50000000;
		hist_add(&h, v[i]);
	}
	qsort(v, N, sizeof(*v), cmp_u64);
	good = check_pcts("bimodal", &h, v, N, &worst);
	ok(good,
	   "bimodal with 0.5%% tail: percentiles within 1/256 (worst %.5f)", worst);
	ok(hist_percentile(&h, 99.9) > 5000000, "p99.9 is in the tail (%llu ns)",
	   (unsigned long long)hist_percentile(&h, 99.9));

	/* small n: every rank */
	{
		uint64_t s[7] = { 900, 100, 500, 300, 700, 200, 1000000 };
		struct hist hs;

		hist_init(&hs);
		for (int i = 0; i < 7; i++)
			hist_add(&hs, s[i]);
		qsort(s, 7, sizeof(s[0]), cmp_u64);
		good = check_pcts("n=7", &hs, s, 7, &worst);
	ok(good, "n=7: nearest rank (worst %.5f)", worst);
		ok(hist_percentile(&hs, 50) >= 497 && hist_percentile(&hs, 50) <= 503,
		   "n=7: median ~500 (%llu)", (unsigned long long)hist_percentile(&hs, 50));
	}

	/* merge == one histogram of everything */
	hist_init(&h);
	hist_init(&h1);
	hist_init(&h2);
	for (size_t i = 0; i < N; i++) {
		uint64_t x = 1000 + next() % (i < N / 3 ? 100000 : 3000000);

		hist_add(&h, x);
		hist_add(i % 3 ? &h2 : &h1, x);
	}
	hist_merge(&h1, &h2);
	hist_merge(&h1, &empty);
	ok(h1.count == h.count && h1.min == h.min && h1.max == h.max &&
	   !memcmp(h1.b, h.b, sizeof(h.b)), "merged buckets, count, min, max equal");
	ok(fabs(hist_mean(&h1) - hist_mean(&h)) / hist_mean(&h) < 1e-9 &&
	   fabs(hist_stddev(&h1) - hist_stddev(&h)) / hist_stddev(&h) < 1e-9,
	   "merged mean and stddev equal (Chan's formula)");
	hist_init(&h2);
	hist_merge(&h2, &h);
	ok(h2.count == h.count && hist_percentile(&h2, 99) == hist_percentile(&h, 99),
	   "merge into empty copies");

	free(v);
	return tap_done();
}
