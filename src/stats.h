/* SPDX-License-Identifier: MIT */
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

#include <stdbool.h>
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

/*
 * Summary of one sample, as the report prints it (ci95 = iom_stats_ci_half(…, 0.95)).
 * ci95_lo..ci95_hi is the 95 % interval the files give: for a sample of positive values (IOPS,
 * MB/s, latencies) on the log scale, where the moderated t tests them — exp(mean of ln x ±
 * t·s/√n), never below 0; with a value ≤ 0, mean ± ci95.
 */
struct iom_stats_summary {
	size_t n;
	double mean, stddev, cv, ci95, median, min, max;
	double ci95_lo, ci95_hi;
};
/* Fills s for x[0..n); every field 0 when n is 0. */
void iom_stats_summarize(const double *x, size_t n, struct iom_stats_summary *s);

/* The 95 % interval of positive values x[0..n) on the log scale into *lo, *hi (n ≥ 2); false,
 * leaving them alone, when a value is ≤ 0 or not finite. */
bool iom_stats_ci95_log(const double *x, size_t n, double *lo, double *hi);

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

/*
 * The empirical-Bayes moderated t-test of limma (Smyth 2004, "Linear models and
 * empirical Bayes methods for assessing differential expression in microarray experiments",
 * Stat. Appl. Genet. Mol. Biol. 3(1), article 3). Many comparisons of one kind each estimate
 * a variance from a few values; a scaled inverse-χ² prior (d0, s0²) fitted to all of them by
 * moments of log s² (limma's fitFDist) shrinks each to (d0·s0² + d·s²) / (d0 + d), and the
 * t-test then has d0 + d degrees of freedom. When the variances scatter no more than their
 * own sampling noise, d0 is infinite (every comparison uses s0²); when they scatter widely,
 * d0 is small and the test is the ordinary one.
 */

/* Digamma ψ(x) = d/dx ln Γ(x) for x > 0 (NaN otherwise), to about 1e-15 relative. */
double iom_stats_digamma(double x);
/* Trigamma ψ′(x) for x > 0 (NaN otherwise), to about 1e-15 relative. */
double iom_stats_trigamma(double x);
/*
 * The x > 0 with ψ′(x) = y, for y > 0 (limma's trigammaInverse: Newton's method on 1/ψ′);
 * NaN for y ≤ 0 or NaN.
 */
double iom_stats_trigamma_inv(double y);

/* A scaled inverse-χ² prior of variances: s² ~ s0² · χ²(d0) / d0 before the data. */
struct iom_stats_prior {
	double d0;      /* prior degrees of freedom; INFINITY: every variance is s0²; 0: none */
	double s0sq;    /* prior variance s0² (NaN when there is no prior) */
	double df_cap;  /* the sum of the fitted variances' df: the most df a test claims */
	size_t n;       /* variances it was fitted to */
};
/*
 * Fits the prior to the sample variances s2[0..n) with df[0..n) degrees of freedom (limma's
 * fitFDist without covariate): entries with a non-finite or negative s2 or a df ≤ 0 are left
 * out, zero variances are raised to 1e-5 of the median. conf 0 is limma's moment estimate;
 * conf in (0, 1) takes the sample variance of the log-variances at its upper conf confidence
 * bound instead (χ² with m − 1 df, Wilson–Hilferty), so that a real spread which the sampling
 * noise of a few variances hides still lowers d0. Returns 0, or -EINVAL (pr: d0 0, s0sq NaN)
 * when fewer than two variances are usable or more than half are zero.
 */
int iom_stats_fit_prior(const double *s2, const double *df, size_t n, double conf,
			struct iom_stats_prior *pr);
/*
 * The chi-square quantile of lower probability p with k df by Wilson and Hilferty's cube
 * approximation (within 0.5 % for k ≥ 9, p in [0.01, 0.99]); NaN outside 0 < p < 1, k > 0.
 */
double iom_stats_chi2_quantile_wh(double p, double k);
/*
 * The posterior variance (d0·s0² + df·s2) / (d0 + df) (s0² when d0 is infinite, s2 when there
 * is no prior) and into *df_post its degrees of freedom d0 + df, at most pr->df_cap.
 */
double iom_stats_squeeze(const struct iom_stats_prior *pr, double s2, double df,
			 double *df_post);
/*
 * The moderated two-sample t-test of equal means: the pooled variance of x[0..nx) and
 * y[0..ny) (df nx + ny − 2) squeezed by pr, t = (mean x − mean y) / √(s̃²(1/nx + 1/ny)) on
 * the posterior df. Returns 0, or -EINVAL when nx < 2 or ny < 2 (w: t 0, df 0, p 1). A zero
 * posterior variance (no prior and constant samples) is decided by the means as in
 * iom_stats_welch().
 */
int iom_stats_mod_t(const double *x, size_t nx, const double *y, size_t ny,
		    const struct iom_stats_prior *pr, struct iom_welch *w);
/*
 * The two one-sided tests of iom_stats_tost() on the moderated test's standard error and df:
 * p < alpha shows |mean x − mean y| < delta. Returns 0, or -EINVAL when nx < 2, ny < 2 or delta
 * is not positive (*p is then 1); *df (may be NULL) gets the df used.
 */
int iom_stats_mod_tost(const double *x, size_t nx, const double *y, size_t ny,
		       const struct iom_stats_prior *pr, double delta, double *p, double *df);

#endif
