/* SPDX-License-Identifier: MIT */
/*
 * test_stats — statistics against reference numbers. Every pinned value was computed
 * independently in Python with mpmath (40 digits): t quantiles by root-finding on the numerically
 * integrated t density, p-values and I_x(a, b) by mpmath.betainc; the textbook values agree with
 * R's qt/pt. The Welch example is Wikipedia's "Welch's t-test" example 3 (t = −2.22,
 * ν = 24.5, p = 0.036), recomputed to full precision.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include <cmocka.h>

#include "stats.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const double wx[] = { 19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0 };
static const double wy[] = {
	28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7,
	23.2, 17.5, 20.6, 18.0, 23.9, 21.6, 24.3, 20.4, 23.9, 13.3,
};

/* |got − want| ≤ rel·|want| (or ≤ rel when want is 0). */
static void assert_close(double got, double want, double rel, const char *what)
{
	double tol = want == 0 ? rel : rel * fabs(want);

	if (!(fabs(got - want) <= tol))
		fail_msg("%s: got %.17g, want %.17g", what, got, want);
}

/*
 * The interval of positive values on the log scale, from Python's statistics module and
 * scipy.stats.t.ppf(0.975, 2) = 4.302652729911275: exp(mean(ln x) ± t·stdev(ln x)/√3). The
 * linear interval of the same IOPS goes below zero (-235313.6).
 */
static void test_stats_ci95_log(void **state)
{
	const double x[] = { 20000, 250000, 18000 }, bad[] = { 3, 0, 5 };
	struct iom_stats_summary s;
	double lo = -1, hi = -1;

	(void)state;
	iom_stats_summarize(x, 3, &s);
	assert_close(s.mean - s.ci95, -235313.57317342126, 1e-9, "linear low");
	assert_close(s.ci95_lo, 1107.6132529413383, 1e-9, "log low");
	assert_close(s.ci95_hi, 1813176.9775355654, 1e-9, "log high");
	assert_false(iom_stats_ci95_log(bad, 3, &lo, &hi));
	assert_true(lo == -1 && hi == -1);
	assert_false(iom_stats_ci95_log(x, 1, &lo, &hi));
	iom_stats_summarize(bad, 3, &s);
	assert_close(s.ci95_lo, s.mean - s.ci95, 1e-15, "a zero: linear");
}

static void test_stats_t_quantile(void **state)
{
	/* Large df: the continued fraction needs ~√df steps and keeps ~1e-11 (stats.h). */
	static const struct { double p, df, q; } cases[] = {
		{ 0.975, 1, 12.7062047361747 },
		{ 0.975, 2, 4.30265272974946 },
		{ 0.975, 5, 2.57058183563632 },
		{ 0.975, 9, 2.26215716279820554 },
		{ 0.975, 10, 2.22813885198627 },
		{ 0.975, 30, 2.04227245630124 },
		{ 0.975, 26.8, 2.05254722622154 },          /* non-integer df, as Welch gives */
		{ 0.975, 1e6, 1.95996635681411 },
		{ 0.995, 3, 5.84090930973336 },
		{ 0.9, 4, 1.53320627405894 },
		{ 0.999999, 2, 707.105720515767 },
		{ 0.99, 0.5, 1028.4910104716219 },
		{ 0.025, 5, -2.57058183563632 },
		{ 1e-12, 5, -393.95695957760377 },
		{ 0.5, 7, 0 },
	};
	unsigned i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(cases); i++) {
		char what[64];

		snprintf(what, sizeof(what), "qt(%g, %g)", cases[i].p, cases[i].df);
		assert_close(iom_stats_t_quantile(cases[i].p, cases[i].df), cases[i].q,
			     cases[i].df > 1e4 ? 1e-10 : 1e-12, what);
	}
	assert_true(iom_stats_t_quantile(0, 5) == -INFINITY);
	assert_true(iom_stats_t_quantile(1, 5) == INFINITY);
	assert_true(isnan(iom_stats_t_quantile(0.9, 0)));
}

static void test_stats_t_cdf_and_p(void **state)
{
	static const struct { double t, df, cdf, p2; } cases[] = {
		{ 2.0, 10, 1 - 0.0733880347707404 / 2, 0.0733880347707404 },
		{ 50, 3, 1 - 1.7617152041272e-5 / 2, 1.7617152041272e-5 },
		{ 10, 30, 1 - 4.5752514082296132e-11 / 2, 4.5752514082296132e-11 },
		{ -1, 1, 0.25, 0.5 },
		{ 0.3, 2.5, 0.60632881425240139, 0.78734237149519721 },
		{ 0.001, 3, 0.50036755251526953, 0.99926489496946094 },
		{ 1.5, 1e6, 0.93319264088160362, 0.13361471823679277 },
		{ 1.5, 1e8, 0.93319279715264624, 0.13361440569470752 },
		{ 3, 1e10, 0.99865010196504602, 0.0026997960699079617 },
		{ 8, 1e6, 0.99999999999999938, 1.245506343320252e-15 },
	};
	unsigned i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(cases); i++) {
		char what[64];

		snprintf(what, sizeof(what), "pt(%g, %g)", cases[i].t, cases[i].df);
		assert_close(iom_stats_t_cdf(cases[i].t, cases[i].df), cases[i].cdf, 1e-12, what);
		snprintf(what, sizeof(what), "p2(%g, %g)", cases[i].t, cases[i].df);
		assert_close(iom_stats_t_p2(cases[i].t, cases[i].df), cases[i].p2, 1e-9, what);
		assert_close(iom_stats_t_p2(-cases[i].t, cases[i].df), cases[i].p2, 1e-9, what);
	}
	assert_true(iom_stats_t_p2(0, 4) == 1);
	assert_true(iom_stats_t_p2(INFINITY, 4) == 0);
	assert_true(iom_stats_t_cdf(-INFINITY, 4) == 0);
	assert_true(iom_stats_t_cdf(INFINITY, 4) == 1);
	assert_true(isnan(iom_stats_t_cdf(1, -1)));
}

static void test_stats_betai(void **state)
{
	static const struct { double a, b, x, want; } cases[] = {
		{ 2, 3, 0.5, 0.6875 },
		{ 1, 1, 0.3, 0.3 },
		{ 0.5, 0.5, 0.2, 0.29516723530086656 },
		{ 5, 0.5, 0.9, 0.31664291502001231 },
		{ 10, 20, 0.4, 0.78531838976282618 },
		{ 0.1, 10, 0.01, 0.82448967090669876 },
		{ 100, 100, 0.55, 0.9216120672877797 },
	};
	unsigned i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(cases); i++) {
		char what[64];

		snprintf(what, sizeof(what), "I_%g(%g, %g)", cases[i].x, cases[i].a, cases[i].b);
		assert_close(iom_stats_betai(cases[i].a, cases[i].b, cases[i].x), cases[i].want,
			     1e-12, what);
	}
	assert_true(iom_stats_betai(2, 3, 0) == 0);
	assert_true(iom_stats_betai(2, 3, -1) == 0);
	assert_true(iom_stats_betai(2, 3, 1) == 1);
	assert_true(isnan(iom_stats_betai(0, 3, 0.5)));
}

static void test_stats_welch_reference(void **state)
{
	struct iom_welch w;

	(void)state;
	assert_int_equal(iom_stats_welch(wx, ARRAY_LEN(wx), wy, ARRAY_LEN(wy), &w), 0);
	assert_close(w.t, -2.22551203996985, 1e-12, "t");
	assert_close(w.df, 24.5246349442573, 1e-12, "df");
	assert_close(w.p, 0.0354845308300103, 1e-10, "p");
	/* Swapping the samples flips t only. */
	assert_int_equal(iom_stats_welch(wy, ARRAY_LEN(wy), wx, ARRAY_LEN(wx), &w), 0);
	assert_close(w.t, 2.22551203996985, 1e-12, "t swapped");
	assert_close(w.p, 0.0354845308300103, 1e-10, "p swapped");
}

static void test_stats_welch_degenerate(void **state)
{
	static const double c5[] = { 5, 5, 5, 5 }, c5b[] = { 5, 5, 5 }, c6[] = { 6, 6, 6 };
	static const double tenth[] = { 0.1, 0.1, 0.1 }, tenth4[] = { 0.1, 0.1, 0.1, 0.1, 0.1 };
	static const double one[] = { 5 };
	static const double v[] = { 4, 5, 6 };
	struct iom_welch w;

	(void)state;
	assert_int_equal(iom_stats_welch(c5, 4, c5b, 3, &w), 0);
	assert_true(w.t == 0 && w.p == 1 && w.df == 5);
	/* Means of 0.1 computed by summing would differ in the last bit: still equal. */
	assert_int_equal(iom_stats_welch(tenth, 3, tenth4, 5, &w), 0);
	assert_true(w.t == 0 && w.p == 1);
	assert_int_equal(iom_stats_welch(c5b, 3, c6, 3, &w), 0);
	assert_true(w.t == -INFINITY && w.p == 0 && w.df == 4);
	assert_int_equal(iom_stats_welch(c6, 3, c5b, 3, &w), 0);
	assert_true(w.t == INFINITY && w.p == 0);
	/* One constant sample, one not: an ordinary test (df = ny − 1). */
	assert_int_equal(iom_stats_welch(c5b, 3, v, 3, &w), 0);
	assert_true(w.t == 0 && w.p == 1);
	assert_close(w.df, 2, 1e-15, "df");
	assert_int_equal(iom_stats_welch(c6, 3, v, 3, &w), 0);
	assert_close(w.t, 1 / sqrt(1.0 / 3), 1e-15, "t");
	assert_close(w.p, iom_stats_t_p2(sqrt(3.0), 2), 1e-15, "p");
	assert_false(isnan(w.p));
	/* Too few values. */
	assert_int_equal(iom_stats_welch(one, 1, v, 3, &w), -EINVAL);
	assert_true(w.t == 0 && w.df == 0 && w.p == 1);
	assert_int_equal(iom_stats_welch(v, 3, one, 0, &w), -EINVAL);
	assert_true(w.p == 1);
}

static void test_stats_descriptive(void **state)
{
	static const double odd[] = { 3, 1, 2 }, even[] = { 4, 1, 3, 2 }, zero_mean[] = { -1, 1 };
	static const double big[] = { 1e9 + 1, 1e9 + 2, 1e9 + 3 };
	struct iom_stats_summary s;

	(void)state;
	assert_close(iom_stats_mean(wx, ARRAY_LEN(wx)), 19.37, 1e-15, "mean");
	assert_close(iom_stats_stddev(wx, ARRAY_LEN(wx)), 1.2037441588643327, 1e-14, "sd x");
	assert_close(iom_stats_stddev(wy, ARRAY_LEN(wy)), 4.1234757949549, 1e-13, "sd y");
	assert_close(iom_stats_cv(wx, ARRAY_LEN(wx)), 0.06214476813961449, 1e-14, "cv");
	assert_close(iom_stats_ci_half(wx, ARRAY_LEN(wx), 0.95), 0.8611066970654495, 1e-12,
		     "ci95");
	assert_close(iom_stats_median(wx, ARRAY_LEN(wx)), 19.2, 1e-15, "median x");
	assert_close(iom_stats_median(wy, ARRAY_LEN(wy)), 21.85, 1e-15, "median y");
	assert_true(iom_stats_median(odd, 3) == 2);
	assert_true(iom_stats_median(even, 4) == 2.5);
	assert_true(odd[0] == 3 && even[0] == 4);         /* inputs untouched */
	/* Large mean, small spread: no cancellation. */
	assert_close(iom_stats_stddev(big, 3), 1, 1e-12, "sd big");
	/* Edge cases: no NaN. */
	assert_true(iom_stats_mean(wx, 0) == 0);
	assert_true(iom_stats_median(wx, 0) == 0);
	assert_true(iom_stats_stddev(wx, 1) == 0);
	assert_true(iom_stats_cv(wx, 1) == 0);
	assert_true(iom_stats_ci_half(wx, 1, 0.95) == 0);
	assert_true(iom_stats_ci_half(odd, 3, 0) == 0);
	assert_true(iom_stats_ci_half(odd, 3, 1) == INFINITY);
	assert_true(iom_stats_cv(zero_mean, 2) == INFINITY);
	assert_true(iom_stats_median(wx, 1) == 19.8);
	iom_stats_summarize(wx, ARRAY_LEN(wx), &s);
	assert_int_equal(s.n, 10);
	assert_close(s.mean, 19.37, 1e-15, "summary mean");
	assert_close(s.ci95, 0.8611066970654495, 1e-12, "summary ci95");
	assert_true(s.min == 17.8 && s.max == 22.0 && s.median == 19.2);
	iom_stats_summarize(wx, 0, &s);
	assert_true(s.n == 0 && s.mean == 0 && s.max == 0);
	iom_stats_summarize(wx, 1, &s);
	assert_true(s.mean == 19.8 && s.stddev == 0 && s.cv == 0 && s.ci95 == 0);
}

/*
 * TOST against scipy 1.x (Welch's one-sided tests on shifted samples, as statsmodels'
 * ttost_ind does), computed with:
 *
 *   from scipy import stats
 *   import numpy as np
 *   def tost(x, y, delta):
 *       lo = stats.ttest_ind(x, np.array(y) - delta, equal_var=False,
 *                            alternative='greater').pvalue
 *       hi = stats.ttest_ind(x, np.array(y) + delta, equal_var=False,
 *                            alternative='less').pvalue
 *       return max(lo, hi)
 */
static void test_stats_tost_reference(void **state)
{
	static const double s1x[] = { 100.0, 101.0, 99.5, 100.4, 99.8 };
	static const double s1y[] = { 100.3, 99.9, 100.8, 100.1, 99.6 };
	static const double u1x[] = { 100.0, 104.0, 97.0 };
	static const double u1y[] = { 101.0, 96.0, 103.0 };
	static const double d1x[] = { 10.0, 10.2, 9.9, 10.1 };
	static const double d1y[] = { 10.6, 10.5, 10.8, 10.4, 10.7 };
	static const double s2x[] = { 50.0, 50.5, 49.5, 50.2, 49.8, 50.1 };
	static const double s2y[] = { 51.0, 50.4, 50.9, 50.6 };
	static const struct {
		const double *x, *y;
		size_t nx, ny;
		double delta, p;
		int same; /* at alpha 0.05 */
	} cases[] = {
		{ s1x, s1y, 5, 5, 2.0, 0.00018808242301274352, 1 },   /* same */
		{ u1x, u1y, 3, 3, 2.0, 0.29850253395502363, 0 },      /* undecided: too noisy */
		{ d1x, d1y, 4, 5, 0.2, 0.9959219145858041, 0 },       /* clearly different */
		{ s2x, s2y, 6, 4, 1.5, 0.0021251348951287375, 1 },    /* same, though shifted */
		{ wx, wy, 10, 20, 5.0, 0.0050580192343673705, 1 },    /* Welch's example */
	};
	double p;

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		assert_int_equal(iom_stats_tost(cases[i].x, cases[i].nx, cases[i].y, cases[i].ny,
						cases[i].delta, &p), 0);
		assert_close(p, cases[i].p, 1e-9, "tost p");
		assert_int_equal(p < 0.05, cases[i].same);
	}
	/* Degenerate: no variance decides by the means; one value or no margin is no test. */
	{
		static const double a[] = { 5, 5, 5 }, b[] = { 5.5, 5.5 };

		assert_int_equal(iom_stats_tost(a, 3, b, 2, 1, &p), 0);
		assert_true(p == 0);
		assert_int_equal(iom_stats_tost(a, 3, b, 2, 0.4, &p), 0);
		assert_true(p == 1);
		assert_int_equal(iom_stats_tost(a, 1, b, 2, 1, &p), -EINVAL);
		assert_true(p == 1);
		assert_int_equal(iom_stats_tost(a, 3, b, 2, 0, &p), -EINVAL);
	}
}

/* p.adjust(c(0.01, 0.04, 0.03, 0.005, NA, 0.2), method) in R, NA left out of the family. */
static void test_stats_adjust_p(void **state)
{
	static const double p[] = { 0.01, 0.04, 0.03, 0.005, NAN, 0.2 };
	static const double holm[] = { 0.04, 0.09, 0.09, 0.025, NAN, 0.2 };
	static const double bh[] = { 0.025, 0.05, 0.05, 0.025, NAN, 0.2 };
	double adj[ARRAY_LEN(p)];

	(void)state;
	iom_stats_adjust_p(p, ARRAY_LEN(p), IOM_ADJUST_HOLM, adj);
	for (size_t i = 0; i < ARRAY_LEN(p); i++)
		if (isnan(holm[i]))
			assert_true(isnan(adj[i]));
		else
			assert_close(adj[i], holm[i], 1e-12, "holm");
	iom_stats_adjust_p(p, ARRAY_LEN(p), IOM_ADJUST_BH, adj);
	for (size_t i = 0; i < ARRAY_LEN(p); i++)
		if (isnan(bh[i]))
			assert_true(isnan(adj[i]));
		else
			assert_close(adj[i], bh[i], 1e-12, "bh");
	iom_stats_adjust_p(p, ARRAY_LEN(p), IOM_ADJUST_NONE, adj);
	assert_true(adj[1] == 0.04 && isnan(adj[4]));
	/* Holm never exceeds 1 and keeps the order; adj may be p itself. */
	{
		double q[] = { 0.5, 0.6, 0.7 };

		iom_stats_adjust_p(q, 3, IOM_ADJUST_HOLM, q);
		assert_true(q[0] == 1 && q[1] == 1 && q[2] == 1);
	}
}

/*
 * The moderated t's ψ and ψ′ against scipy.special.digamma / polygamma(1, x); the trigamma inverse
 * against scipy.optimize.brentq on polygamma(1, x) − y (xtol 1e-300, rtol 1e-15). At the
 * extremes limma's shortcuts 1/y and 1/√y hold to a few 1e-8.
 */
static void test_stats_digamma_trigamma(void **state)
{
	static const struct { double x, psi, psi1; } g[] = {
		{ 0.001, -1000.5755719318103, 1000001.6425331959 },
		{ 0.5, -1.9635100260214235, 4.9348022005446799 },
		{ 1, -0.57721566490153287, 1.6449340668482266 },
		{ 2.5, 0.70315664064524319, 0.49035775610023491 },
		{ 7.3, 1.9178203356379859, 0.14679576813142703 },
		{ 10, 2.2517525890667209, 0.10516633568168576 },
		{ 123.4, 4.8113737751162775, 0.0081366516108652628 },
		{ 1e6, 13.81551005796419, 1.0000005000001667e-06 },
	};
	static const struct { double y, x, rel; } inv[] = {
		{ 1e-7, 10000000.499999993, 1e-7 },
		{ 0.01, 100.49916668194322, 1e-9 },
		{ 0.5, 2.4599529483523073, 1e-9 },
		{ 1.6449340668482264, 1, 1e-9 },
		{ 10, 0.33508104437803571, 1e-9 },
		{ 1000, 0.031647661051196402, 1e-9 },
		{ 1e8, 0.00010000000082234685, 1e-7 },
	};

	(void)state;
	for (unsigned i = 0; i < ARRAY_LEN(g); i++) {
		assert_close(iom_stats_digamma(g[i].x), g[i].psi, 1e-14, "digamma");
		assert_close(iom_stats_trigamma(g[i].x), g[i].psi1, 1e-14, "trigamma");
	}
	for (unsigned i = 0; i < ARRAY_LEN(inv); i++) {
		assert_close(iom_stats_trigamma_inv(inv[i].y), inv[i].x, inv[i].rel,
			     "trigamma_inv");
		/* and it inverts this library's own trigamma */
		if (inv[i].rel < 1e-8)
			assert_close(iom_stats_trigamma(iom_stats_trigamma_inv(inv[i].y)), inv[i].y,
				     1e-9, "trigamma(trigamma_inv)");
	}
	assert_true(isnan(iom_stats_digamma(0)));
	assert_true(isnan(iom_stats_trigamma(-1)));
	assert_true(isnan(iom_stats_trigamma_inv(0)));
}

/*
 * The prior and the moderated test against a Python reference: limma's fitFDist written out
 * with scipy (digamma, polygamma, trigamma inverse by brentq), the posterior variance
 * (d0·s0² + d·s²)/(d0 + d) of the pooled two-sample variance on min(d0 + d, Σd) df, t and
 * TOST p from scipy.stats.t; without a prior it is scipy.stats.ttest_ind(x, y) (Student's).
 * Prior A: spread variances (finite d0); B: no more spread than sampling (d0 infinite);
 * C: a zero variance among them (raised to 1e-5 of the median), d0 small.
 */
static void test_stats_moderated_reference(void **state)
{
	static const double x[] = { 10.1, 10.4, 9.8, 10.0 }, y[] = { 10.9, 11.2, 10.6 };
	static const double va[] = { 0.04, 0.065, 0.025, 0.12, 0.055, 0.015, 0.2, 0.045 };
	static const double da[] = { 4, 4, 6, 4, 8, 4, 3, 4 };
	static const double vb[] = { 0.05, 0.0525, 0.0475, 0.051, 0.049 };
	static const double db[] = { 4, 4, 4, 4, 4 };
	static const double vc[] = { 0, 0.01, 0.025, 0.035, 0.055 };
	static const double dc[] = { 2, 2, 2, 2, 2 };
	static const struct {
		const double *v, *d;
		size_t n;
		double d0, s0sq, cap, t, df, p, tost05, tost15;
	} c[] = {
		{ va, da, 8, 16.009398491476496, 0.0634871227481378, 37, -4.2087339549458074,
		  21.009398491476496, 0.00039411694487068795, 0.9439111078988337,
		  0.0012173208446222175 },
		{ vb, db, 5, INFINITY, 0.06548395880073063, 20, -4.2211237868135028, 20,
		  0.00041948208947378271, 0.94403397349247264, 0.001255185878563511 },
		{ vc, dc, 5, 0.40627715203054543, 0.00012509069493276946, 10, -4.1427240509864562,
		  5.4062771520305457, 0.0075898785931354925, 0.92039553632241888,
		  0.0086241930004603284 },
		{ NULL, NULL, 0, 0, NAN, 0, -3.9842986294344422, 5, 0.010485767852466257,
		  0.91134556669206124, 0.011224317231092538 },
	};

	(void)state;
	for (unsigned i = 0; i < ARRAY_LEN(c); i++) {
		struct iom_stats_prior pr = { 0, NAN, 0, 0 };
		struct iom_welch w;
		double p, df;

		if (c[i].v) {
			assert_int_equal(iom_stats_fit_prior(c[i].v, c[i].d, c[i].n, 0, &pr), 0);
			if (isinf(c[i].d0))
				assert_true(isinf(pr.d0));
			else
				assert_close(pr.d0, c[i].d0, 1e-9, "d0");
			assert_close(pr.s0sq, c[i].s0sq, 1e-9, "s0sq");
			assert_close(pr.df_cap, c[i].cap, 0, "df cap");
			assert_int_equal(pr.n, c[i].n);
		}
		assert_int_equal(iom_stats_mod_t(x, 4, y, 3, c[i].v ? &pr : NULL, &w), 0);
		assert_close(w.t, c[i].t, 1e-12, "t");
		assert_close(w.df, c[i].df, 1e-12, "df");
		assert_close(w.p, c[i].p, 1e-9, "p");
		assert_int_equal(iom_stats_mod_tost(x, 4, y, 3, c[i].v ? &pr : NULL, 0.5, &p, &df),
				 0);
		assert_close(p, c[i].tost05, 1e-9, "tost 0.5");
		assert_close(df, c[i].df, 1e-12, "tost df");
		assert_int_equal(iom_stats_mod_tost(x, 4, y, 3, c[i].v ? &pr : NULL, 1.5, &p, NULL),
				 0);
		assert_close(p, c[i].tost15, 1e-9, "tost 1.5");
	}
}

/*
 * The conservative prior (conf 0.95: the spread of the log-variances at its upper 95 %
 * bound) against the same Python reference with Wilson–Hilferty's χ² quantile, z from
 * scipy.stats.norm.ppf; that quantile within 0.5 % of scipy.stats.chi2.ppf.
 */
static void test_stats_prior_conservative(void **state)
{
	static const struct { double p, k, wh, exact; } q[] = {
		{ 0.05, 9, 3.3152629616079188, 3.325112843066815 },
		{ 0.05, 23, 13.08740732285602, 13.090514188172804 },
		{ 0.01, 47, 27.392973208909115, 27.415846907690153 },
		{ 0.95, 7, 14.046832848231944, 14.067140449340169 },
	};
	static const double va[] = { 0.04, 0.065, 0.025, 0.12, 0.055, 0.015, 0.2, 0.045 };
	static const double da[] = { 4, 4, 6, 4, 8, 4, 3, 4 };
	static const double vb[] = { 0.05, 0.0525, 0.0475, 0.051, 0.049 };
	static const double db[] = { 4, 4, 4, 4, 4 };
	struct iom_stats_prior pr;

	(void)state;
	for (unsigned i = 0; i < ARRAY_LEN(q); i++) {
		assert_close(iom_stats_chi2_quantile_wh(q[i].p, q[i].k), q[i].wh, 1e-9, "wh");
		assert_close(iom_stats_chi2_quantile_wh(q[i].p, q[i].k), q[i].exact, 5e-3,
			     "chi2");
	}
	assert_true(isnan(iom_stats_chi2_quantile_wh(0, 5)));
	/* A: limma's d0 16.0 becomes 1.89 (it is 8 variances only) */
	assert_int_equal(iom_stats_fit_prior(va, da, 8, 0.95, &pr), 0);
	assert_close(pr.d0, 1.8867017949083165, 1e-9, "d0 ub");
	assert_close(pr.s0sq, 0.036541572465157934, 1e-9, "s0sq ub");
	/* B: even the upper bound is within sampling noise: still infinite */
	assert_int_equal(iom_stats_fit_prior(vb, db, 5, 0.95, &pr), 0);
	assert_true(isinf(pr.d0));
	assert_close(pr.s0sq, 0.065483958800730602, 1e-9, "s0sq ub B");
}

/* What a prior cannot be fitted from, and the degenerate moderated tests. */
static void test_stats_moderated_degenerate(void **state)
{
	static const double one[] = { 0.5 }, d1[] = { 4 };
	static const double zeros[] = { 0, 0, 0.1 }, d3[] = { 2, 2, 2 };
	static const double bad[] = { NAN, -1, 0.2 }, dbad[] = { 2, 2, 0 };
	static const double k[] = { 5, 5, 5 }, k2[] = { 6, 6, 6 };
	struct iom_stats_prior pr;
	struct iom_welch w;
	double p;

	(void)state;
	assert_int_equal(iom_stats_fit_prior(one, d1, 1, 0, &pr), -EINVAL);
	assert_true(pr.d0 == 0 && isnan(pr.s0sq));
	assert_int_equal(iom_stats_fit_prior(zeros, d3, 3, 0, &pr), -EINVAL); /* mostly zero */
	assert_int_equal(iom_stats_fit_prior(bad, dbad, 3, 0, &pr), -EINVAL); /* none usable */
	/* no prior, constant samples: decided by the means, as Welch's test is */
	assert_int_equal(iom_stats_mod_t(k, 3, k2, 3, NULL, &w), 0);
	assert_true(isinf(w.t) && w.t < 0 && w.p == 0 && w.df == 4);
	assert_int_equal(iom_stats_mod_t(k, 3, k, 3, NULL, &w), 0);
	assert_true(w.t == 0 && w.p == 1);
	assert_int_equal(iom_stats_mod_tost(k, 3, k2, 3, NULL, 2, &p, NULL), 0);
	assert_true(p == 0);
	assert_int_equal(iom_stats_mod_t(k, 1, k2, 3, NULL, &w), -EINVAL);
	assert_true(w.p == 1 && w.df == 0);
	assert_int_equal(iom_stats_mod_tost(k, 3, k2, 3, NULL, 0, &p, NULL), -EINVAL);
	assert_true(p == 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_t_quantile),
		cmocka_unit_test(test_stats_ci95_log),
		cmocka_unit_test(test_stats_t_cdf_and_p),
		cmocka_unit_test(test_stats_betai),
		cmocka_unit_test(test_stats_welch_reference),
		cmocka_unit_test(test_stats_welch_degenerate),
		cmocka_unit_test(test_stats_descriptive),
		cmocka_unit_test(test_stats_tost_reference),
		cmocka_unit_test(test_stats_adjust_p),
		cmocka_unit_test(test_stats_digamma_trigamma),
		cmocka_unit_test(test_stats_moderated_reference),
		cmocka_unit_test(test_stats_moderated_degenerate),
		cmocka_unit_test(test_stats_prior_conservative),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
