/* SPDX-License-Identifier: MIT */
/*
 * test_dist — the distributions of random offsets: the code reads and writes back every form,
 * refuses bad ones with a message; the table's draws are in range, deterministic per seed, and
 * skewed as each distribution says (zipf:1.2 puts at least half the draws on the hottest 10 %
 * of the slots, uniform about 10 %; pareto:0.2 about 80 % on 20 %; zoned its shares exactly).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "util.h"

static void test_dist_round_trip(void **state)
{
	static const char *const forms[] = {
		"uniform", "zipf:1.2", "zipf:0.001", "zipf:10", "pareto:0.2", "pareto:0.999",
		"normal:5%", "normal:0.5%", "normal:100%", "zoned:60/10:30/20:8/30:2/40",
		"zoned:100/100", "zoned:0/50:100/50",
	};

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(forms); i++) {
		char err[IOM_ERRLEN] = "", buf[80];
		int64_t v = -1;

		assert_int_equal(iom_dist_parse(forms[i], &v, err, sizeof(err)), 0);
		assert_true(v >= 0);
		iom_dist_format(v, buf, sizeof(buf));
		assert_string_equal(buf, forms[i]);
	}
	{
		int64_t v;

		assert_int_equal(iom_dist_parse("normal:5", &v, NULL, 0), 0); /* % optional */
		assert_int_equal(iom_dist_kind(v), IOM_DIST_NORMAL);
		assert_int_equal(iom_dist_parse("uniform", &v, NULL, 0), 0);
		assert_int_equal(v, 0); /* the default leaves seeds as they were */
	}
}

static void test_dist_refusals(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "zipf:0", "want theta above 0" },
		{ "zipf:11", "want theta above 0, at most 10" },
		{ "zipf:1.2345", "at most three decimals" },
		{ "zipf:", "is not a number" },
		{ "zipf:-1", "is not a number" },
		{ "pareto:1", "want h between 0 and 1" },
		{ "pareto:0", "want h between 0 and 1" },
		{ "normal:0%", "want sigma above 0 %" },
		{ "normal:101%", "at most 100 %" },
		{ "normal:5%%", "is not a number" },
		{ "zoned:60/10:30/20", "the accesses add up to 90 % and the region to 30 %" },
		{ "zoned:50/50:50/40", "the region to 90 %" },
		{ "zoned:100/0", "a zone of 0 % of the region" },
		{ "zoned:10/10:10/10:10/10:10/10:60/60", "at most 4 zones" },
		{ "zoned:60-10", "each zone is A/S" },
		{ "zoned:60/10;40/90", "separated by ':'" },
		{ "zoned:101/100", "each zone is A/S" },
		{ "gauss:5", "is not one of uniform, zipf:THETA" },
		{ "Uniform", "is not one of" },
	};

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		char err[IOM_ERRLEN] = "";
		int64_t v = 7;

		assert_true(iom_dist_parse(cases[i].text, &v, err, sizeof(err)) < 0);
		assert_int_equal(v, 7);
		if (!strstr(err, cases[i].msg))
			fail_msg("%s: '%s' lacks '%s'", cases[i].text, err, cases[i].msg);
		assert_non_null(strstr(err, cases[i].text));
	}
}

/* Draws n slots of spec over slots slots; hits[i] counts slot i. */
static void draw(const char *spec, uint64_t slots, unsigned n, uint64_t seed, unsigned *hits)
{
	struct iom_dist d;
	struct iom_rng r;
	char err[IOM_ERRLEN] = "";
	int64_t v;

	assert_int_equal(iom_dist_parse(spec, &v, err, sizeof(err)), 0);
	assert_int_equal(iom_dist_build(&d, v, slots, err, sizeof(err)), 0);
	iom_rng_seed(&r, seed);
	memset(hits, 0, slots * sizeof(*hits));
	for (unsigned i = 0; i < n; i++) {
		uint64_t s = d.n ? iom_dist_draw(&d, &r) : iom_rng_below(&r, slots);

		assert_true(s < slots);
		hits[s]++;
	}
	iom_dist_release(&d);
}

static int desc(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The share (%) of n draws on the hottest pct % of the slots. */
static double hottest(unsigned *hits, uint64_t slots, unsigned n, double pct)
{
	uint64_t top = (uint64_t)(slots * pct / 100), sum = 0;

	qsort(hits, slots, sizeof(*hits), desc);
	for (uint64_t i = 0; i < top; i++)
		sum += hits[i];
	return 100.0 * (double)sum / n;
}

static void test_dist_skew(void **state)
{
	static const struct {
		const char *spec;
		uint64_t slots;
		double pct, lo, hi;    /* the hottest pct % of slots get lo..hi % of the draws */
	} cases[] = {
		{ "uniform", 1024, 10, 9, 12 },
		{ "zipf:1.2", 16384, 10, 50, 100 },
		{ "zipf:1.2", 262144, 10, 50, 100 },   /* more slots than ranges */
		{ "zipf:0.5", 16384, 10, 20, 50 },
		{ "pareto:0.2", 16384, 20, 75, 85 },
		{ "normal:5%", 16384, 20, 60, 100 },
		{ "zoned:90/10:10/90", 16384, 10, 89, 91 },
	};
	enum { N = 1000000 };

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		unsigned *hits = calloc(cases[i].slots, sizeof(*hits));
		double share;

		assert_non_null(hits);
		draw(cases[i].spec, cases[i].slots, N, 42, hits);
		share = hottest(hits, cases[i].slots, N, cases[i].pct);
		print_message("%s over %llu slots: %.1f %% of the draws on the hottest %g %%\n",
			      cases[i].spec, (unsigned long long)cases[i].slots, share,
			      cases[i].pct);
		assert_true(share >= cases[i].lo && share <= cases[i].hi);
		free(hits);
	}
}

static void test_dist_zoned_places(void **state)
{
	enum { SLOTS = 1000, N = 200000 };
	unsigned hits[SLOTS], zone[3] = { 0 };

	(void)state;
	/* 60 % to the first 10 %, 30 % to the next 20 %, 10 % to the last 70 % */
	draw("zoned:60/10:30/20:10/70", SLOTS, N, 3, hits);
	for (unsigned s = 0; s < SLOTS; s++)
		zone[s < 100 ? 0 : s < 300 ? 1 : 2] += hits[s];
	print_message("zones: %u %u %u\n", zone[0], zone[1], zone[2]);
	assert_true(zone[0] > N * 59 / 100 && zone[0] < N * 61 / 100);
	assert_true(zone[1] > N * 29 / 100 && zone[1] < N * 31 / 100);
	assert_true(zone[2] > N * 9 / 100 && zone[2] < N * 11 / 100);
}

static void test_dist_deterministic_and_edges(void **state)
{
	unsigned a[512], b[512], c[512];
	struct iom_dist d;
	char err[IOM_ERRLEN] = "";
	int64_t v;

	(void)state;
	draw("zipf:1.1", 512, 10000, 5, a);
	draw("zipf:1.1", 512, 10000, 5, b);
	draw("zipf:1.1", 512, 10000, 6, c);
	assert_memory_equal(a, b, sizeof(a));
	assert_memory_not_equal(a, c, sizeof(a));
	/* one slot: every draw is 0 */
	draw("pareto:0.3", 1, 1000, 1, a);
	assert_int_equal(a[0], 1000);
	/* a zone with no slot: a message, nothing held */
	assert_int_equal(iom_dist_parse("zoned:50/1:50/99", &v, NULL, 0), 0);
	assert_int_equal(iom_dist_build(&d, v, 50, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "too small for zone 1"));
	assert_null(d.lo);
	/* what check asks without building: the same answer at each size, the same words */
	assert_int_equal(iom_dist_fits(v, 50, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "the region of 50 random offsets is too small for zone 1 of the "
				 "distribution");
	assert_int_equal(iom_dist_fits(v, 99, err, sizeof(err)), -EINVAL);
	assert_int_equal(iom_dist_fits(v, 100, err, sizeof(err)), 0);
	assert_int_equal(iom_dist_build(&d, v, 100, err, sizeof(err)), 0);
	iom_dist_release(&d);
	/* zone 2 is 1 % of the region: [25, 25) of 50 slots, [49, 50) of 99 */
	assert_int_equal(iom_dist_parse("zoned:50/50:40/1:10/49", &v, NULL, 0), 0);
	assert_int_equal(iom_dist_fits(v, 50, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "too small for zone 2"));
	assert_int_equal(iom_dist_fits(v, 99, err, sizeof(err)), 0);
	assert_int_equal(iom_dist_fits(0, 1, err, sizeof(err)), 0); /* uniform */
	/* uniform builds nothing */
	assert_int_equal(iom_dist_build(&d, 0, 1000, err, sizeof(err)), 0);
	assert_int_equal(d.n, 0);
	iom_dist_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dist_round_trip),
		cmocka_unit_test(test_dist_refusals),
		cmocka_unit_test(test_dist_skew),
		cmocka_unit_test(test_dist_zoned_places),
		cmocka_unit_test(test_dist_deterministic_and_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
