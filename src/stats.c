/* SPDX-License-Identifier: MIT */
/*
 * stats — descriptive statistics, Student's t and Welch's test; promises are in stats.h.
 *
 * The t distribution: P(|T| ≥ t) = I_x(df/2, 1/2) with x = df / (df + t²). The regularised
 * incomplete beta I_x(a, b) is the continued fraction of DLMF 8.17.22 (NIST Digital Library of
 * Mathematical Functions, §8.17(v)),
 *
 *     I_x(a, b) = x^a (1 − x)^b / (a B(a, b)) · 1 / (1 + d₁ / (1 + d₂ / (1 + …)))
 *     d₂ₘ   =  m (b − m) x / ((a + 2m − 1)(a + 2m))
 *     d₂ₘ₊₁ = −(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)),
 *
 * evaluated forwards, one partial numerator at a time, by the modified Lentz method (I. J.
 * Thompson and A. R. Barnett, "Coulomb and Bessel functions of complex arguments and order",
 * J. Comput. Phys. 64 (1986) 490-509, §3). The fraction converges fast for x below the mean
 * (a + 1)/(a + b + 2) of the beta distribution; above it, I_x(a, b) = 1 − I_{1−x}(b, a), with
 * 1 − x passed in separately so small t loses no precision. Quantiles bisect the upper tail, so
 * tail probabilities far below 1e-16 keep their precision.
 */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define CF_EPS 1e-16
#define CF_TINY 1e-300
#define CF_MAXIT 200000

/*
 * Beyond this many degrees of freedom the continued fraction needs ~√df steps and gathers
 * rounding; the normal with its first-order correction in 1/df is then within 1e-14 of the
 * CDF (the error shrinks as 1/df²).
 */
#define DF_NORMAL 1e7

/* Mean and sum of squared deviations, exact for a constant sample (two-pass, corrected). */
static void moments(const double *x, size_t n, double *mean, double *ssd)
{
	double m = 0, c = 0, s = 0;
	bool constant = true;
	size_t i;

	*mean = 0;
	*ssd = 0;
	if (n == 0)
		return;
	for (i = 0; i < n; i++) {
		m += x[i];
		constant &= x[i] == x[0];
	}
	if (constant) {
		*mean = x[0];
		return;
	}
	m /= (double)n;
	for (i = 0; i < n; i++) {
		double d = x[i] - m;

		c += d;
		s += d * d;
	}
	/* Corrected two-pass (Chan, Golub and LeVeque): removes the rounding of the mean. */
	*mean = m + c / (double)n;
	*ssd = s - c * c / (double)n;
	if (*ssd < 0)
		*ssd = 0;
}

double iom_stats_mean(const double *x, size_t n)
{
	double m, ssd;

	moments(x, n, &m, &ssd);
	return m;
}

double iom_stats_stddev(const double *x, size_t n)
{
	double m, ssd;

	if (n < 2)
		return 0;
	moments(x, n, &m, &ssd);
	return sqrt(ssd / (double)(n - 1));
}

double iom_stats_cv(const double *x, size_t n)
{
	double m = iom_stats_mean(x, n), s = iom_stats_stddev(x, n);

	if (s == 0)
		return 0;
	if (m == 0)
		return INFINITY;
	return s / fabs(m);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double iom_stats_median(const double *x, size_t n)
{
	double *c, med;

	if (n == 0)
		return 0;
	c = xmalloc(n * sizeof(*c));
	memcpy(c, x, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	med = n % 2 ? c[n / 2] : c[n / 2 - 1] / 2 + c[n / 2] / 2;
	free(c);
	return med;
}

double iom_stats_ci_half(const double *x, size_t n, double level)
{
	double s;

	if (n < 2 || !(level > 0))
		return 0;
	s = iom_stats_stddev(x, n);
	if (s == 0)
		return 0;
	if (level >= 1)
		return INFINITY;
	return iom_stats_t_quantile((1 + level) / 2, (double)(n - 1)) * s / sqrt((double)n);
}

bool iom_stats_ci95_log(const double *x, size_t n, double *lo, double *hi)
{
	double *l, half, c;

	if (n < 2)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(x[i] > 0) || !isfinite(x[i]))
			return false;
	l = xcalloc(n, sizeof(*l));
	for (size_t i = 0; i < n; i++)
		l[i] = log(x[i]);
	c = iom_stats_mean(l, n);
	half = iom_stats_ci_half(l, n, 0.95);
	free(l);
	*lo = exp(c - half);
	*hi = exp(c + half);
	return true;
}

void iom_stats_summarize(const double *x, size_t n, struct iom_stats_summary *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->n = n;
	if (n == 0)
		return;
	s->mean = iom_stats_mean(x, n);
	s->stddev = iom_stats_stddev(x, n);
	s->cv = iom_stats_cv(x, n);
	s->ci95 = iom_stats_ci_half(x, n, 0.95);
	s->ci95_lo = s->mean - s->ci95;
	s->ci95_hi = s->mean + s->ci95;
	iom_stats_ci95_log(x, n, &s->ci95_lo, &s->ci95_hi);
	s->median = iom_stats_median(x, n);
	s->min = s->max = x[0];
	for (i = 1; i < n; i++) {
		s->min = x[i] < s->min ? x[i] : s->min;
		s->max = x[i] > s->max ? x[i] : s->max;
	}
}

/* The partial numerator d_j of DLMF 8.17.22 (j ≥ 1). */
static double beta_cf_term(double a, double b, double x, long j)
{
	long half = j / 2; /* m = ⌊j / 2⌋: d_{2m} and d_{2m+1} share it */
	double m = (double)half;

	if (j % 2 == 0)
		return m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
	return -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
}

/*
 * F = 1 + d₁ / (1 + d₂ / (1 + …)) by the modified Lentz method: the convergent f_j = f_{j−1}·C_j·D_j
 * with C_j = 1 + d_j / C_{j−1} and D_j = 1 / (1 + d_j·D_{j−1}), starting from f₀ = C₀ = 1, D₀ = 0;
 * a C or 1/D that falls to zero is replaced by a tiny number, which the next step corrects.
 * I_x(a, b) is x^a (1 − x)^b / (a B(a, b) F).
 */
static double beta_cf(double a, double b, double x)
{
	double f = 1, c = 1, d = 0;

	for (long j = 1; j <= CF_MAXIT; j++) {
		double dj = beta_cf_term(a, b, x, j), delta;

		d = 1 + dj * d;
		c = 1 + dj / c;
		if (fabs(d) < CF_TINY)
			d = CF_TINY;
		if (fabs(c) < CF_TINY)
			c = CF_TINY;
		d = 1 / d;
		delta = c * d;
		f *= delta;
		if (fabs(delta - 1) < CF_EPS)
			break;
	}
	return f;
}

/* The Stirling series of ln Γ(z) beyond (z − ½)·ln z − z + ½·ln 2π; good to 1e-20 for z ≥ 100. */
static double stirling_corr(double z)
{
	double z2 = z * z;

	return (1.0 / 12 - (1.0 / 360 - (1.0 / 1260 - 1.0 / (1680 * z2)) / z2) / z2) / z;
}

/* ln Γ(a + b) − ln Γ(a) without the cancellation of two large lgamma values (a ≥ 100). */
static double lgamma_ratio(double a, double b)
{
	return (a - 0.5) * log1p(b / a) + b * log(a + b) - b + stirling_corr(a + b) -
	       stirling_corr(a);
}

/* ln Γ(a + b) − ln Γ(a) − ln Γ(b). */
static double lbeta_neg(double a, double b)
{
	double big = a > b ? a : b, small = a > b ? b : a;
	int sign;

	if (big >= 100)
		return lgamma_ratio(big, small) - lgamma_r(small, &sign);
	return lgamma_r(a + b, &sign) - lgamma_r(a, &sign) - lgamma_r(b, &sign);
}

/*
 * I_x(a, b), given y = 1 − x, lx = ln x and ly = ln y, each computed by the caller without
 * cancellation (for the t distribution they come from t²/df directly).
 */
static double ibeta(double a, double b, double x, double y, double lx, double ly)
{
	double lbt;

	if (!(a > 0) || !(b > 0) || isnan(x) || isnan(y))
		return NAN;
	if (x <= 0)
		return 0;
	if (y <= 0)
		return 1;
	lbt = lbeta_neg(a, b) + a * lx + b * ly;
	if (x < (a + 1) / (a + b + 2))
		return exp(lbt) / (a * beta_cf(a, b, x));
	return 1 - exp(lbt) / (b * beta_cf(b, a, y));
}

double iom_stats_betai(double a, double b, double x)
{
	if (x <= 0 || x >= 1)
		return ibeta(a, b, x <= 0 ? 0 : 1, x <= 0 ? 1 : 0, 0, 0);
	return ibeta(a, b, x, 1 - x, log(x), log1p(-x));
}

/* P(T ≥ t) for t ≥ 0. */
static double upper_tail(double t, double df)
{
	double t2 = t * t, x, y;

	if (isinf(t))
		return 0;
	if (df > DF_NORMAL)
		return 0.5 * erfc(t / M_SQRT2) +
		       exp(-t2 / 2) / sqrt(2 * M_PI) * (t2 * t + t) / (4 * df);
	/*
	 * x = df / (df + t²) = 1 / (1 + u), y = t² / (df + t²) = u / (1 + u) with u = t² / df,
	 * and their logarithms, each without cancellation.
	 */
	if (t2 > df) {
		double v = df / t2;             /* 1 / u, < 1 */

		x = v / (1 + v);
		y = 1 / (1 + v);
		return 0.5 * ibeta(df / 2, 0.5, x, y, log(v) - log1p(v), -log1p(v));
	} else {
		double u = t2 / df;

		x = 1 / (1 + u);
		y = u / (1 + u);
		return 0.5 * ibeta(df / 2, 0.5, x, y, -log1p(u), log(u) - log1p(u));
	}
}

double iom_stats_t_cdf(double t, double df)
{
	if (!(df > 0) || isnan(t))
		return NAN;
	return t >= 0 ? 1 - upper_tail(t, df) : upper_tail(-t, df);
}

double iom_stats_t_p2(double t, double df)
{
	double p;

	if (!(df > 0) || isnan(t))
		return NAN;
	p = 2 * upper_tail(fabs(t), df);
	return p > 1 ? 1 : p;
}

double iom_stats_t_quantile(double p, double df)
{
	double q, lo = 0, hi = 1, t;
	int i;

	if (!(df > 0) || isnan(p))
		return NAN;
	if (p <= 0)
		return -INFINITY;
	if (p >= 1)
		return INFINITY;
	if (p == 0.5)
		return 0;
	q = p < 0.5 ? p : 1 - p;            /* the upper-tail probability to reach; exact */
	for (i = 0; upper_tail(hi, df) > q; i++) {
		if (i > 2100)
			return p < 0.5 ? -INFINITY : INFINITY;
		lo = hi;
		hi *= 2;
	}
	for (i = 0; i < 200 && hi - lo > 4e-16 * hi; i++) {
		t = lo + (hi - lo) / 2;
		if (upper_tail(t, df) > q)
			lo = t;
		else
			hi = t;
	}
	t = lo + (hi - lo) / 2;
	return p < 0.5 ? -t : t;
}

int iom_stats_welch(const double *x, size_t nx, const double *y, size_t ny,
		    struct iom_welch *w)
{
	double mx, my, ssx, ssy, vx, vy, se2, rx, ry;

	w->t = 0;
	w->df = 0;
	w->p = 1;
	if (nx < 2 || ny < 2)
		return -EINVAL;
	moments(x, nx, &mx, &ssx);
	moments(y, ny, &my, &ssy);
	vx = ssx / (double)(nx - 1) / (double)nx;
	vy = ssy / (double)(ny - 1) / (double)ny;
	se2 = vx + vy;
	if (se2 == 0) {
		w->df = (double)(nx + ny - 2);
		if (mx != my) {
			w->t = mx > my ? INFINITY : -INFINITY;
			w->p = 0;
		}
		return 0;
	}
	w->t = (mx - my) / sqrt(se2);
	/* Welch–Satterthwaite, scaled so that tiny or huge variances cannot overflow. */
	rx = vx / se2;
	ry = vy / se2;
	w->df = 1 / (rx * rx / (double)(nx - 1) + ry * ry / (double)(ny - 1));
	w->p = iom_stats_t_p2(w->t, w->df);
	return 0;
}

int iom_stats_tost(const double *x, size_t nx, const double *y, size_t ny, double delta,
		   double *p)
{
	double mx, my, ssx, ssy, vx, vy, se2, se, d, rx, ry, df, plo, phi;

	*p = 1;
	if (nx < 2 || ny < 2 || !(delta > 0))
		return -EINVAL;
	moments(x, nx, &mx, &ssx);
	moments(y, ny, &my, &ssy);
	d = mx - my;
	vx = ssx / (double)(nx - 1) / (double)nx;
	vy = ssy / (double)(ny - 1) / (double)ny;
	se2 = vx + vy;
	if (se2 == 0) {
		*p = fabs(d) < delta ? 0 : 1;
		return 0;
	}
	se = sqrt(se2);
	rx = vx / se2;
	ry = vy / se2;
	df = 1 / (rx * rx / (double)(nx - 1) + ry * ry / (double)(ny - 1));
	plo = 1 - iom_stats_t_cdf((d + delta) / se, df); /* H0: d ≤ −delta */
	phi = iom_stats_t_cdf((d - delta) / se, df);     /* H0: d ≥ +delta */
	*p = plo > phi ? plo : phi;
	return 0;
}

struct pidx {
	double p;
	size_t i;
};

static int pidx_cmp(const void *a, const void *b)
{
	const struct pidx *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

void iom_stats_adjust_p(const double *p, size_t n, enum iom_stats_adjust how, double *adj)
{
	struct pidx *s = xcalloc(n + 1, sizeof(*s));
	size_t m = 0;
	double run;

	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i]))
			s[m++] = (struct pidx){ p[i], i };
	for (size_t i = 0; i < n; i++)
		if (isnan(p[i]))
			adj[i] = NAN;
	qsort(s, m, sizeof(*s), pidx_cmp);
	switch (how) {
	case IOM_ADJUST_HOLM:
		run = 0;
		for (size_t j = 0; j < m; j++) {
			double a = (double)(m - j) * s[j].p;

			run = a > run ? a : run;
			adj[s[j].i] = run < 1 ? run : 1;
		}
		break;
	case IOM_ADJUST_BH:
		run = 1;
		for (size_t j = m; j-- > 0;) {
			double a = (double)m / (double)(j + 1) * s[j].p;

			run = a < run ? a : run;
			adj[s[j].i] = run;
		}
		break;
	default:
		for (size_t j = 0; j < m; j++)
			adj[s[j].i] = s[j].p;
		break;
	}
	free(s);
}

/* ---- the moderated t-test (limma) ---- */

/*
 * ψ, ψ′ and ψ″ by the recurrences ψ(x) = ψ(x + 1) − 1/x, ψ′(x) = ψ′(x + 1) + 1/x²,
 * ψ″(x) = ψ″(x + 1) − 2/x³ up to x ≥ 10, then the asymptotic (Bernoulli) series
 * (Abramowitz & Stegun 6.3.18, 6.4.12, 6.4.13), whose first omitted term is below 1e-16
 * there.
 */
#define PSI_SHIFT 10.0

double iom_stats_digamma(double x)
{
	double acc = 0, z2;

	if (!(x > 0) || isinf(x))
		return isinf(x) && x > 0 ? INFINITY : NAN;
	while (x < PSI_SHIFT) { /* the recurrence up to where the series holds */
		acc -= 1 / x;
		x += 1;
	}
	z2 = 1 / (x * x);
	return acc + log(x) - 0.5 / x -
	       z2 * (1.0 / 12 - z2 * (1.0 / 120 - z2 * (1.0 / 252 - z2 * (1.0 / 240 -
	       z2 * (1.0 / 132 - z2 * (691.0 / 32760 - z2 / 12))))));
}

double iom_stats_trigamma(double x)
{
	double acc = 0, z, z2;

	if (!(x > 0))
		return NAN;
	if (isinf(x))
		return 0;
	while (x < PSI_SHIFT) {
		acc += 1 / (x * x);
		x += 1;
	}
	z = 1 / x;
	z2 = z * z;
	return acc + z + z2 / 2 +
	       z * z2 * (1.0 / 6 - z2 * (1.0 / 30 - z2 * (1.0 / 42 - z2 * (1.0 / 30 -
	       z2 * (5.0 / 66 - z2 * (691.0 / 2730 - z2 * 7.0 / 6))))));
}

/* ψ″(x), x > 0: the derivative of the trigamma series, for Newton's steps. */
static double tetragamma(double x)
{
	double acc = 0, z, z2;

	while (x < PSI_SHIFT) {
		acc -= 2 / (x * x * x);
		x += 1;
	}
	z = 1 / x;
	z2 = z * z;
	return acc - z2 - z * z2 -
	       z2 * z2 * (0.5 - z2 * (1.0 / 6 - z2 * (1.0 / 6 - z2 * (3.0 / 10 -
	       z2 * (5.0 / 6 - z2 * (691.0 / 210 - z2 * 35.0 / 2))))));
}

double iom_stats_trigamma_inv(double y)
{
	double x;

	if (!(y > 0))
		return NAN;
	/* ψ′(x) ≈ 1/x + 1/(2x²) for large x, 1/x² for small: limma's starting cases. */
	if (y > 1e7)
		return 1 / sqrt(y);
	if (y < 1e-6)
		return 1 / y;
	x = 0.5 + 1 / y;
	for (int i = 0; i < 50; i++) {
		double tri = iom_stats_trigamma(x), dif = tri * (1 - tri / y) / tetragamma(x);

		x += dif;
		if (-dif / x < 1e-8)
			break;
	}
	return x;
}

double iom_stats_chi2_quantile_wh(double p, double k)
{
	double z, h;

	if (!(p > 0 && p < 1) || !(k > 0))
		return NAN;
	/* the standard normal quantile from t with (practically) infinite df */
	z = iom_stats_t_quantile(p, 1e12);
	h = 2 / (9 * k);
	h = 1 - h + z * sqrt(h);
	return h > 0 ? k * h * h * h : 0;
}

int iom_stats_fit_prior(const double *s2, const double *df, size_t n, double conf,
			struct iom_stats_prior *pr)
{
	double *v = xcalloc(n + 1, sizeof(double)), *d = xcalloc(n + 1, sizeof(double));
	double med, em = 0, ev = 0, tri = 0, sum_df = 0;
	size_t m = 0, zeros = 0;

	*pr = (struct iom_stats_prior){ 0, NAN, 0, 0 };
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(s2[i]) || s2[i] < 0 || !(df[i] > 0) || !isfinite(df[i]))
			continue;
		v[m] = s2[i];
		d[m] = df[i];
		zeros += s2[i] == 0;
		sum_df += df[i];
		m++;
	}
	if (m < 2 || 2 * zeros > m) {
		free(v);
		free(d);
		return -EINVAL;
	}
	med = iom_stats_median(v, m);
	for (size_t i = 0; i < m; i++) {
		double e = log(IOM_MAX(v[i], 1e-5 * med)) - iom_stats_digamma(d[i] / 2) +
			   log(d[i] / 2);

		v[i] = e;
		em += e;
		tri += iom_stats_trigamma(d[i] / 2);
	}
	em /= (double)m;
	for (size_t i = 0; i < m; i++)
		ev += (v[i] - em) * (v[i] - em);
	ev /= (double)(m - 1);
	if (conf > 0 && conf < 1) {
		double q = iom_stats_chi2_quantile_wh(1 - conf, (double)(m - 1));

		ev = q > 0 ? ev * (double)(m - 1) / q : INFINITY;
	}
	ev -= tri / (double)m;
	if (ev > 0) {
		pr->d0 = 2 * iom_stats_trigamma_inv(ev);
		pr->s0sq = exp(em + iom_stats_digamma(pr->d0 / 2) - log(pr->d0 / 2));
	} else {
		pr->d0 = INFINITY;
		pr->s0sq = exp(em);
	}
	pr->df_cap = sum_df;
	pr->n = m;
	free(v);
	free(d);
	return 0;
}

double iom_stats_squeeze(const struct iom_stats_prior *pr, double s2, double df,
			 double *df_post)
{
	bool none = !pr || !(pr->d0 > 0) || isnan(pr->s0sq);
	double post;

	if (none) {
		*df_post = df;
		return s2;
	}
	if (isinf(pr->d0)) {
		*df_post = pr->df_cap;
		return pr->s0sq;
	}
	post = (pr->d0 * pr->s0sq + df * s2) / (pr->d0 + df);
	*df_post = pr->d0 + df;
	if (pr->df_cap > 0 && *df_post > pr->df_cap)
		*df_post = pr->df_cap;
	return post;
}

/* Difference of means, its moderated standard error and df; -EINVAL for too few values. */
static int mod_se(const double *x, size_t nx, const double *y, size_t ny,
		  const struct iom_stats_prior *pr, double *d, double *se, double *df)
{
	double mx, my, ssx, ssy, dfr;

	if (nx < 2 || ny < 2)
		return -EINVAL;
	moments(x, nx, &mx, &ssx);
	moments(y, ny, &my, &ssy);
	dfr = (double)(nx + ny - 2);
	*d = mx - my;
	*se = sqrt(iom_stats_squeeze(pr, (ssx + ssy) / dfr, dfr, df) *
		   (1 / (double)nx + 1 / (double)ny));
	return 0;
}

int iom_stats_mod_t(const double *x, size_t nx, const double *y, size_t ny,
		    const struct iom_stats_prior *pr, struct iom_welch *w)
{
	double d, se, df;

	w->t = 0;
	w->df = 0;
	w->p = 1;
	if (mod_se(x, nx, y, ny, pr, &d, &se, &df) < 0)
		return -EINVAL;
	w->df = df;
	if (se == 0) {
		if (d != 0) {
			w->t = d > 0 ? INFINITY : -INFINITY;
			w->p = 0;
		}
		return 0;
	}
	w->t = d / se;
	w->p = iom_stats_t_p2(w->t, df);
	return 0;
}

int iom_stats_mod_tost(const double *x, size_t nx, const double *y, size_t ny,
		       const struct iom_stats_prior *pr, double delta, double *p, double *df)
{
	double d, se, dfp, plo, phi;

	*p = 1;
	if (df)
		*df = 0;
	if (!(delta > 0) || mod_se(x, nx, y, ny, pr, &d, &se, &dfp) < 0)
		return -EINVAL;
	if (df)
		*df = dfp;
	if (se == 0) {
		*p = fabs(d) < delta ? 0 : 1;
		return 0;
	}
	plo = 1 - iom_stats_t_cdf((d + delta) / se, dfp); /* H0: d ≤ −delta */
	phi = iom_stats_t_cdf((d - delta) / se, dfp);     /* H0: d ≥ +delta */
	*p = plo > phi ? plo : phi;
	return 0;
}
