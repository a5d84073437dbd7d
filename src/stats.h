/*
 * stats — the statistics a report needs to say whether a difference is real: mean, sample
 * standard deviation, coefficient of variation, median, the 95 % (or any) confidence interval
 * of a mean from Student's t, and Welch's unequal-variance t-test.
 *
 * The Student t distribution is computed through the regularized incomplete beta function
 * (continued fraction, modified Lentz), its quantile by bisection on the CDF; both take any
 * real df > 0, as Welch's test needs. Tail probabilities are good to about 1e-13 relative
 * for df ≤ 10⁴ (Welch's df from a study's repetitions is far smaller), degrading to about
 * 1e-10 near df = 10⁷; beyond that the normal with a 1/df correction takes over. That is far
 * below what a report prints.
 *
 * No function returns NaN for the cases a report meets: empty or single samples and samples
 * with zero variance have defined, documented results below. Arrays are the caller's and are
 * never modified.
 */
#ifndef IOM_STATS_H
#define IOM_STATS_H

#include <stddef.h>

/* Arithmetic mean; 0 when n is 0. */
double iom_stats_mean(const double *x, size_t n);
/* Sample standard deviation (divisor n − 1, two-pass); 0 when n < 2. */
double iom_stats_stddev(const double *x, size_t n);
/*
 * Coefficient of variation stddev / |mean| as a fraction (0.05 = 5 %); 0 when n < 2 or the
 * stddev is 0; INFINITY when the mean is 0 but the stddev is not.
 */
double iom_stats_cv(const double *x, size_t n);
/* Median (mean of the two middle values when n is even); 0 when n is 0. Allocates a copy. */
double iom_stats_median(const double *x, size_t n);
/*
 * Half-width of the two-sided confidence interval of the mean at level (0.95 for 95 %):
 * t_{(1+level)/2, n−1} · s / √n. 0 when n < 2 (no interval can be estimated from one value:
 * the caller says "single run") or when all values are equal.
 */
double iom_stats_ci_half(const double *x, size_t n, double level);

/* Summary of one sample, as the report prints it (ci95 = iom_stats_ci_half(…, 0.95)). */
struct iom_stats_summary {
	size_t n;
	double mean, stddev, cv, ci95, median, min, max;
};
/* Fills s for x[0..n); every field 0 when n is 0. */
void iom_stats_summarize(const double *x, size_t n, struct iom_stats_summary *s);

/*
 * Regularized incomplete beta function I_x(a, b), a > 0, b > 0; 0 for x ≤ 0, 1 for x ≥ 1;
 * NaN only for a ≤ 0 or b ≤ 0 (or NaN input).
 */
double iom_stats_betai(double a, double b, double x);
/* Student t cumulative distribution P(T ≤ t) with df > 0 degrees of freedom (NaN if df ≤ 0). */
double iom_stats_t_cdf(double t, double df);
/* Two-sided p-value P(|T| ≥ |t|): 1 for t = 0, 0 for infinite t. */
double iom_stats_t_p2(double t, double df);
/*
 * The t with P(T ≤ t) = p, for 0 < p < 1 and df > 0 (qt(p, df) in R); −INFINITY for p ≤ 0,
 * INFINITY for p ≥ 1, NaN for df ≤ 0.
 */
double iom_stats_t_quantile(double p, double df);

/* Welch's two-sample t-test of equal means, not assuming equal variances. */
struct iom_welch {
	double t;     /* (mean x − mean y) / √(s²x/nx + s²y/ny) */
	double df;    /* Welch–Satterthwaite degrees of freedom */
	double p;     /* two-sided p-value */
};
/*
 * Runs the test on x[0..nx) and y[0..ny) into w. Returns 0, or -EINVAL when nx < 2 or ny < 2
 * (no variance to estimate; w is then t 0, df 0, p 1: no evidence of a difference). When
 * both samples have zero variance the test degenerates and is decided by the means: equal means
 * give t 0, p 1; different means give t ±INFINITY, p 0; df is then nx + ny − 2.
 */
int iom_stats_welch(const double *x, size_t nx, const double *y, size_t ny,
		    struct iom_welch *w);

/*
 * Two one-sided tests (Schuirmann's TOST, Welch's unequal variances) that the difference of
 * means mean x − mean y lies within (−delta, +delta): p = the larger of the p-values of
 * H0 "difference ≤ −delta" and H0 "difference ≥ +delta", so p < alpha shows equivalence at
 * alpha. Returns 0, or -EINVAL when nx < 2, ny < 2 or delta is not positive (*p is then 1).
 * With no variance on either side the test is decided by the means: |difference| < delta
 * gives p 0, else 1.
 */
int iom_stats_tost(const double *x, size_t nx, const double *y, size_t ny, double delta,
		   double *p);

/* How a family of p-values is adjusted for multiple comparisons. */
enum iom_stats_adjust {
	IOM_ADJUST_HOLM,  /* Holm's step-down: the family-wise error rate, any dependence */
	IOM_ADJUST_BH,    /* Benjamini–Hochberg step-up: the false discovery rate */
	IOM_ADJUST_NONE,  /* each test on its own */
};
/*
 * The adjusted p-values of p[0..n) into adj[0..n) (p.adjust in R: "holm", "BH", "none"), in
 * the same order; each adjusted value is at least its raw value and at most 1. A NaN p is not
 * a test: it is left out of the family and adjusted to NaN. adj may be p.
 */
void iom_stats_adjust_p(const double *p, size_t n, enum iom_stats_adjust how, double *adj);

#endif
