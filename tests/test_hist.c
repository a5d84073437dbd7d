/* SPDX-License-Identifier: MIT */
/*
 * test_hist — the histogram against exact answers: percentiles of synthetic distributions
 * compared with the sorted values (within the 1/256 relative bound hist.h states, exact below
 * 256 ns), exact merge, the empty histogram, clamping, and the bucket layout at every boundary.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "hist.h"
#include "rng.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define NVAL 200000

static const double pcts[] = {
	0.0001, 1, 5, 10, 25, 33.3, 50, 66.7, 75, 90, 95, 99, 99.5, 99.9, 99.99, 99.999, 99.9999,
	100,
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Records v[0..n) into h and checks every percentile, the exact stats and the counts. */
static void check_against_sorted(uint64_t *v, size_t n)
{
	struct iom_hist *h = malloc(sizeof(*h));
	long double sum = 0, mean, ss = 0, sd;
	size_t i;

	assert_non_null(h);
	iom_hist_init(h);
	for (i = 0; i < n; i++)
		iom_hist_record(h, v[i]);
	qsort(v, n, sizeof(*v), cmp_u64);
	assert_int_equal(h->count, n);
	assert_int_equal(h->clamped, 0);
	assert_int_equal(h->min, v[0]);
	assert_int_equal(h->max, v[n - 1]);
	for (i = 0; i < ARRAY_LEN(pcts); i++) {
		uint64_t want = v[iom_hist_rank(n, pcts[i]) - 1];
		uint64_t got = iom_hist_percentile(h, pcts[i]);
		uint64_t diff = got > want ? got - want : want - got;

		if (want < 2 * IOM_HIST_SUB)
			assert_int_equal(got, want);
		if (diff * 256 > want)
			fail_msg("p%g: got %llu, exact %llu", pcts[i], (unsigned long long)got,
				 (unsigned long long)want);
	}
	assert_int_equal(iom_hist_percentile(h, 100), v[n - 1]);
	for (i = 0; i < n; i++)
		sum += v[i];
	mean = sum / n;
	for (i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	sd = n > 1 ? sqrtl(ss / (n - 1)) : 0;
	assert_true(fabsl(iom_hist_mean(h) - mean) <= mean * 1e-14L);
	if (fabsl(iom_hist_stddev(h) - sd) > sd * 1e-12L + 1e-12L)
		fail_msg("stddev %.17g, exact %.17Lg", iom_hist_stddev(h), sd);
	free(h);
}

static double uniform01(struct iom_rng *r)
{
	return ((double)(iom_rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

enum dist { UNIFORM, EXPONENTIAL, BIMODAL, CONSTANT, SINGLE, SMALL, HUGE, WIDE, NEAR_MEAN };

static void fill(enum dist d, uint64_t *v, size_t *n)
{
	struct iom_rng r;
	size_t i;

	iom_rng_seed(&r, 1000 + d);
	*n = NVAL;
	for (i = 0; i < NVAL; i++) {
		switch (d) {
		case UNIFORM:       /* 10 µs … 1 ms */
			v[i] = 10000 + iom_rng_below(&r, 990000);
			break;
		case EXPONENTIAL:   /* mean 80 µs */
			v[i] = (uint64_t)(-80000.0 * log(uniform01(&r)));
			break;
		case BIMODAL:       /* cache hits near 3 µs, misses near 9 ms */
			if (iom_rng_below(&r, 10) < 7)
				v[i] = 2500 + iom_rng_below(&r, 1000);
			else
				v[i] = 8500000 + iom_rng_below(&r, 1000000);
			break;
		case CONSTANT:
			v[i] = 123457;
			break;
		case SINGLE:
			v[i] = 987654321;
			*n = 1;
			return;
		case SMALL:         /* the exact region and just above */
			v[i] = iom_rng_below(&r, 600);
			break;
		case HUGE:          /* the top of the range: 10 minutes … IOM_HIST_MAX_NS */
			v[i] = 600000000000ull + iom_rng_below(&r, IOM_HIST_MAX_NS - 600000000000ull + 1);
			if (i < 10)
				v[i] = IOM_HIST_MAX_NS - i;
			break;
		case WIDE:          /* log-uniform over 1 ns … 1 hour */
			v[i] = (uint64_t)exp(uniform01(&r) * log(3.6e12));
			break;
		case NEAR_MEAN:     /* large mean, tiny spread: stddev without cancellation */
			v[i] = 4000000000000ull + iom_rng_below(&r, 7);
			break;
		}
	}
}

static void test_hist_percentiles_exact(void **state)
{
	static const enum dist dists[] = {
		UNIFORM, EXPONENTIAL, BIMODAL, CONSTANT, SINGLE, SMALL, HUGE, WIDE, NEAR_MEAN,
	};
	uint64_t *v = malloc(NVAL * sizeof(*v));
	size_t i, n;

	(void)state;
	assert_non_null(v);
	for (i = 0; i < ARRAY_LEN(dists); i++) {
		fill(dists[i], v, &n);
		check_against_sorted(v, n);
	}
	free(v);
}

static void test_hist_small_values_exact(void **state)
{
	struct iom_hist *h = malloc(sizeof(*h));
	uint64_t v;

	(void)state;
	assert_non_null(h);
	for (v = 0; v < 2 * IOM_HIST_SUB; v++) {
		iom_hist_init(h);
		iom_hist_record(h, v);
		iom_hist_record(h, v);
		assert_int_equal(iom_hist_percentile(h, 50), v);
		assert_int_equal(iom_hist_bucket_of(v), v);
	}
	/* Two distinct values in one bucket: the median is kept within [min, max]. */
	iom_hist_init(h);
	iom_hist_record(h, 1000000);
	iom_hist_record(h, 1000001);
	assert_in_range(iom_hist_percentile(h, 50), 1000000, 1000001);
	free(h);
}

static void test_hist_merge_equals_single(void **state)
{
	struct iom_hist *all = malloc(sizeof(*all)), *a = malloc(sizeof(*a));
	struct iom_hist *b = malloc(sizeof(*b)), *empty = malloc(sizeof(*empty));
	struct iom_rng r;
	unsigned i;

	(void)state;
	assert_true(all && a && b && empty);
	iom_hist_init(all);
	iom_hist_init(a);
	iom_hist_init(b);
	iom_hist_init(empty);
	iom_rng_seed(&r, 3);
	for (i = 0; i < 100000; i++) {
		uint64_t v = iom_rng_below(&r, 1ull << (iom_rng_below(&r, 44) + 1));

		iom_hist_record(all, v);
		iom_hist_record(v & 1 ? a : b, v);
	}
	assert_true(all->clamped > 0);
	iom_hist_merge(empty, b);       /* into an empty one: takes min from src */
	iom_hist_merge(empty, a);
	iom_hist_merge(a, b);
	iom_hist_init(b);
	iom_hist_merge(a, b);         /* merging an empty one changes nothing */
	assert_int_equal(a->count, all->count);
	assert_int_equal(a->min, all->min);
	assert_int_equal(a->max, all->max);
	assert_true(a->sum == all->sum);
	assert_true(a->sumsq == all->sumsq);
	assert_int_equal(a->clamped, all->clamped);
	assert_memory_equal(a->bucket, all->bucket, sizeof(all->bucket));
	assert_int_equal(empty->count, all->count);
	assert_int_equal(empty->min, all->min);
	assert_int_equal(empty->max, all->max);
	assert_memory_equal(empty->bucket, all->bucket, sizeof(all->bucket));
	for (i = 0; i < ARRAY_LEN(pcts); i++)
		assert_int_equal(iom_hist_percentile(a, pcts[i]), iom_hist_percentile(all, pcts[i]));
	free(all);
	free(a);
	free(b);
	free(empty);
}

static void test_hist_empty(void **state)
{
	struct iom_hist *h = malloc(sizeof(*h)), *e = malloc(sizeof(*e));
	unsigned i;

	(void)state;
	assert_true(h && e);
	iom_hist_init(h);
	iom_hist_init(e);
	assert_int_equal(h->count, 0);
	assert_int_equal(h->min, 0);
	assert_int_equal(h->max, 0);
	for (i = 0; i < ARRAY_LEN(pcts); i++)
		assert_int_equal(iom_hist_percentile(h, pcts[i]), 0);
	assert_true(iom_hist_mean(h) == 0);
	assert_true(iom_hist_stddev(h) == 0);
	assert_int_equal(iom_hist_rank(0, 50), 0);
	iom_hist_merge(h, e);
	assert_int_equal(h->count, 0);
	assert_int_equal(h->min, 0);
	/* One value: stddev 0, min = max = every percentile. */
	iom_hist_record(h, 77777);
	assert_true(iom_hist_stddev(h) == 0);
	assert_true(iom_hist_mean(h) == 77777);
	assert_int_equal(iom_hist_percentile(h, 0.001), 77777);
	assert_int_equal(iom_hist_percentile(h, 0), 77777);
	assert_int_equal(iom_hist_percentile(h, 100), 77777);
	free(h);
	free(e);
}

static void test_hist_rank(void **state)
{
	static const struct { uint64_t count; double pct; uint64_t rank; } cases[] = {
		{ 1000, 99.9, 999 }, { 1000, 99.99, 1000 }, { 1000, 50, 500 }, { 1001, 50, 501 },
		{ 10, 0.0001, 1 }, { 10, 100, 10 }, { 10, 150, 10 }, { 10, -1, 1 }, { 3, 33.3, 1 },
		{ 100, 1, 1 }, { 100, 1.01, 2 }, { 1000000, 99.9999, 999999 },
	};
	unsigned i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(cases); i++)
		assert_int_equal(iom_hist_rank(cases[i].count, cases[i].pct), cases[i].rank);
}

static void test_hist_pct100_is_max(void **state)
{
	struct iom_hist *h = malloc(sizeof(*h));

	(void)state;
	assert_non_null(h);
	iom_hist_init(h);
	iom_hist_record(h, 100);
	iom_hist_record(h, 123456789);   /* bucket midpoint differs from the value */
	assert_int_equal(iom_hist_percentile(h, 100), 123456789);
	assert_int_equal(iom_hist_percentile(h, 99.999), 123456789);
	assert_int_equal(iom_hist_percentile(h, 50), 100);
	free(h);
}

static void test_hist_range_and_clamp(void **state)
{
	struct iom_hist *h = malloc(sizeof(*h));
	uint64_t lo, hi;

	(void)state;
	assert_non_null(h);
	/* Ten minutes is far inside the range; the range ends after ~73 minutes. */
	assert_true(IOM_HIST_MAX_NS >= 600000000000ull);
	assert_true(IOM_HIST_MAX_NS >= 4398000000000ull);
	assert_true(iom_hist_bucket_of(600000000000ull) < IOM_HIST_BUCKETS - 1);
	iom_hist_init(h);
	iom_hist_record(h, 600000000000ull);
	assert_int_equal(h->clamped, 0);
	assert_int_equal(h->max, 600000000000ull);
	iom_hist_record(h, IOM_HIST_MAX_NS);
	assert_int_equal(h->clamped, 0);
	iom_hist_record(h, IOM_HIST_MAX_NS + 1);
	iom_hist_record(h, UINT64_MAX);
	assert_int_equal(h->clamped, 2);
	assert_int_equal(h->count, 4);
	assert_int_equal(h->max, IOM_HIST_MAX_NS);
	assert_int_equal(h->bucket[IOM_HIST_BUCKETS - 1], 3);
	assert_int_equal(iom_hist_percentile(h, 100), IOM_HIST_MAX_NS);
	/* The bucket's midpoint lies below the smallest value: the percentile is kept ≥ min. */
	iom_hist_bucket_range(iom_hist_bucket_of(600000000000ull), &lo, &hi);
	assert_true(lo + (hi - lo + 1) / 2 < 600000000000ull);
	assert_int_equal(iom_hist_percentile(h, 25), 600000000000ull);
	assert_int_equal(iom_hist_bucket_of(UINT64_MAX), IOM_HIST_BUCKETS - 1);
	assert_true(iom_hist_mean(h) == (600000000000.0 + 3.0 * IOM_HIST_MAX_NS) / 4);
	free(h);
}

static void test_hist_bucket_boundaries(void **state)
{
	uint64_t lo, hi, prev_hi = 0;
	unsigned b;

	(void)state;
	for (b = 0; b < IOM_HIST_BUCKETS; b++) {
		iom_hist_bucket_range(b, &lo, &hi);
		assert_true(lo <= hi);
		if (b == 0)
			assert_int_equal(lo, 0);
		else
			assert_int_equal(lo, prev_hi + 1);
		assert_int_equal(iom_hist_bucket_of(lo), b);
		assert_int_equal(iom_hist_bucket_of(hi), b);
		assert_int_equal(iom_hist_bucket_of(lo + (hi - lo) / 2), b);
		if (b + 1 < IOM_HIST_BUCKETS)
			assert_int_equal(iom_hist_bucket_of(hi + 1), b + 1);
		/* Width at most 1/IOM_HIST_SUB of the lower bound, or one nanosecond. */
		assert_true(hi - lo + 1 == 1 || (hi - lo + 1) * IOM_HIST_SUB <= lo);
		prev_hi = hi;
	}
	assert_int_equal(prev_hi, IOM_HIST_MAX_NS);
}

/* The kept form: non-empty buckets only, merged back into the same histogram; the checks a
 * file's bins must pass. */
static void test_hist_sparse(void **state)
{
	struct iom_hist *h = calloc(2, sizeof(*h)), *back = h + 1;
	struct iom_hist_sparse s;
	struct iom_hist_bin swap;

	(void)state;
	assert_non_null(h);
	iom_hist_init(h);
	for (uint64_t v = 3; v < 100000000; v = v * 5 / 2)
		iom_hist_record(h, v);
	iom_hist_record(h, 3);
	iom_hist_sparse_of(&s, h);
	assert_true(s.nbins > 10 && s.nbins < 40);
	assert_null(iom_hist_sparse_invalid(&s));
	iom_hist_init(back);
	iom_hist_sparse_merge(back, &s);
	iom_hist_sparse_merge(back, &s);
	assert_int_equal(back->count, 2 * h->count);
	assert_true(back->sum == 2 * h->sum && back->min == h->min && back->max == h->max);
	for (unsigned b = 0; b < IOM_HIST_BUCKETS; b++)
		assert_int_equal(back->bucket[b], 2 * h->bucket[b]);
	swap = s.bins[0];
	s.bins[0] = s.bins[1];
	s.bins[1] = swap;
	assert_string_equal(iom_hist_sparse_invalid(&s), "has buckets out of order");
	s.bins[1] = s.bins[0];
	s.bins[0] = swap;
	s.count++;
	assert_string_equal(iom_hist_sparse_invalid(&s),
			    "has buckets that do not add up to its count");
	s.count--;
	s.bins[0].b = IOM_HIST_BUCKETS;
	assert_string_equal(iom_hist_sparse_invalid(&s), "has a bucket beyond the histogram's range");
	iom_hist_sparse_release(&s);
	assert_int_equal(s.nbins, 0);
	free(h);
}

/* One interval's latencies from two reads of a histogram being recorded into: the difference
 * holds exactly what was recorded between them. */
static void test_hist_delta(void **state)
{
	static const double at[3] = { 50, 99, 100 };
	struct iom_hist *h = calloc(3, sizeof(*h)), *a = h + 1, *b = h + 2;
	uint64_t out[3], count, max;

	(void)state;
	assert_non_null(h);
	iom_hist_init(h);
	iom_hist_init(a);
	for (int i = 0; i < 1000; i++)
		iom_hist_record(h, 1000000); /* 1 ms: the second before */
	iom_hist_add_live(a, h);
	assert_int_equal(a->count, 1000);
	for (int i = 0; i < 980; i++)
		iom_hist_record(h, 100000);  /* then 980 at 100 µs and 20 at 5 ms */
	for (int i = 0; i < 20; i++)
		iom_hist_record(h, 5000000);
	iom_hist_init(b);
	iom_hist_add_live(b, h);
	assert_int_equal(b->count, 2000);
	iom_hist_delta(b, a, at, 3, out, &count, &max);
	assert_int_equal(count, 1000);
	assert_true(out[0] > 99000 && out[0] < 101000);
	assert_true(out[1] > 4960000 && out[1] < 5040000); /* rank 990: past the 980 */
	assert_true(max >= 5000000 && max <= 5000000 + 5000000 / 128);
	assert_true(out[2] == max);
	iom_hist_delta(b, b, at, 3, out, &count, &max);
	assert_true(count == 0 && max == 0 && out[0] == 0);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_percentiles_exact),
		cmocka_unit_test(test_hist_small_values_exact),
		cmocka_unit_test(test_hist_merge_equals_single),
		cmocka_unit_test(test_hist_empty),
		cmocka_unit_test(test_hist_rank),
		cmocka_unit_test(test_hist_pct100_is_max),
		cmocka_unit_test(test_hist_range_and_clamp),
		cmocka_unit_test(test_hist_bucket_boundaries),
		cmocka_unit_test(test_hist_sparse),
		cmocka_unit_test(test_hist_delta),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
