/* SPDX-License-Identifier: MIT */
/*
 * report_stats — the statistics that decide winners (report.h), computed from the loaded model
 * alone; the numbers themselves (Welch's t-test, summaries) are stats.c's.
 *
 * Per (cell, metric): the best and the runner-up by mean. Every other compared value against
 * the best is one comparison of the report's family: a t-test for a difference and two
 * one-sided tests (TOST) for equivalence within ± min_effect of the worse mean, both p-values
 * adjusted over the whole family (Holm by default, Benjamini–Hochberg or none;
 * iom_report_decide()). The t-test is limma's moderated t on ln(value) when the metric has
 * a usable variance prior (report.h, IOM_REPORT_PRIOR_MIN: each comparison's pooled variance
 * squeezed towards a prior fitted to all of them, so five repetitions carry the strength of
 * many), else Welch's on the values. The verdict: a win needs the adjusted p < alpha and a
 * margin above min_effect, the margin being the difference relative to the worse of the two
 * (so "+20.8 %" more IOPS and "-18.2 %" less latency read the same way, and a loss is exactly
 * the mirror of a win); "same" needs the adjusted TOST p < alpha; otherwise "undecided", with the
 * repetitions that would likely settle it (normal approximation, 80 % power, capped). One
 * repetition on either side gives "single-run": no significance is claimed. Per (compared
 * value, metric): the tally over every cell; and the noisy entries.
 */
#include "plan.h"
#include "report_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

const struct iom_metric_info iom_metrics[IOM_NMETRIC] = {
	[IOM_METRIC_IOPS] = { "iops", "IOPS", true },
	[IOM_METRIC_MB_S] = { "mb_s", "MB/s", true },
	[IOM_METRIC_LAT_MEAN] = { "lat_mean_ns", "lat avg", false },
	[IOM_METRIC_LAT_P99] = { "lat_p99_ns", "lat p99", false },
	[IOM_METRIC_CPU_PER_IO] = { "cpu_us_per_io", "CPU/IO", false },
	[IOM_METRIC_CPU_BUSY] = { "cpu_busy_pct", "CPU %", false },
};

int iom_report_metric_next(const struct iom_report *m, int k)
{
	uint32_t on = m->opts.metrics ? m->opts.metrics : IOM_METRICS_DEFAULT;

	while (++k < IOM_NMETRIC)
		if (on & (1u << k))
			break;
	return k;
}


/* ---- statistics ---- */

bool iom_report_pooled(const struct iom_report_reps *r)
{
	return r->n && r->npooled == r->n;
}

double iom_report_pct(const struct iom_report_reps *r, int i)
{
	if (iom_report_pooled(r))
		return r->pooled_pct[i];
	return r->n ? iom_stats_mean(r->x[IOM_X_PCT + i], r->n) : NAN;
}

void iom_report_pool_words(const struct iom_report_reps *r, char *buf, size_t len)
{
	if (iom_report_pooled(r))
		snprintf(buf, len, "pooled over %zu run%s", r->n, r->n == 1 ? "" : "s");
	else
		snprintf(buf, len, "mean of %zu runs' percentiles (runs without histograms)", r->n);
}

double iom_report_mean(const struct iom_report_reps *r, enum iom_metric k)
{
	if (k == IOM_METRIC_LAT_P99 && iom_report_pooled(r))
		return r->pooled_p99;
	return r->n ? iom_stats_mean(r->v[k], r->n) : NAN;
}

void iom_report_summary(const struct iom_report_reps *r, enum iom_metric k,
			struct iom_stats_summary *s)
{
	iom_stats_summarize(r->v[k], r->n, s);
	if (k == IOM_METRIC_LAT_P99 && iom_report_pooled(r))
		s->mean = r->pooled_p99;
}

static bool better(enum iom_metric k, double a, double b)
{
	return iom_metrics[k].higher_is_better ? a > b : a < b;
}

/* |a − b| relative to the worse of the two, in %. */
static double rel_margin(enum iom_metric k, double a, double b)
{
	double worse = better(k, a, b) ? b : a;

	if (a == b)
		return 0;
	if (worse == 0)
		return INFINITY;
	return fabs(a - b) / fabs(worse) * 100;
}

static const char *const verdict_names[] = {
	[IOM_VERDICT_NONE] = "none",
	[IOM_VERDICT_WIN] = "win",
	[IOM_VERDICT_SAME] = "same",
	[IOM_VERDICT_UNDECIDED] = "undecided",
	[IOM_VERDICT_SINGLE_RUN] = "single-run",
};

const char *iom_verdict_name(enum iom_verdict_kind k)
{
	return (size_t)k < IOM_ARRAY_SIZE(verdict_names) ? verdict_names[k] : "?";
}

static const char *const outcome_names[] = {
	[IOM_OUTCOME_ABSENT] = "absent",
	[IOM_OUTCOME_WON] = "won",
	[IOM_OUTCOME_SAME] = "same",
	[IOM_OUTCOME_UNDECIDED] = "undecided",
	[IOM_OUTCOME_LOST] = "lost",
	[IOM_OUTCOME_SINGLE_RUN] = "single-run",
};

const char *iom_outcome_name(enum iom_outcome o)
{
	return (size_t)o < IOM_ARRAY_SIZE(outcome_names) ? outcome_names[o] : "?";
}

/* Welch's p between two lists of repetitions (both with n ≥ 2). */
static double welch_p(const struct iom_report_reps *a, const struct iom_report_reps *b,
		      enum iom_metric k)
{
	struct iom_welch w;

	if (iom_stats_welch(a->v[k], a->n, b->v[k], b->n, &w) < 0)
		return NAN;
	return w.p;
}

/* whether r's values of metric k take part in verdicts: not a p99 from runs of too
 * few I/Os to have one. */
static bool usable(const struct iom_report_reps *r, enum iom_metric k)
{
	return !(k == IOM_METRIC_LAT_P99 && r->few_ios);
}

/* The best and runner-up of (cell, k), the margin, the noise: the verdict before any test. */
static void rank(const struct iom_report *m, size_t cell, enum iom_metric k,
		 struct iom_report_verdict *v)
{
	const struct iom_report_cell *c = &m->cells[cell];
	double bm = NAN, rm = NAN;
	int best = -1, second = -1;

	memset(v, 0, sizeof(*v));
	v->best = v->winner = v->runner_up = -1;
	v->margin_pct = v->p_value = v->p_adjusted = v->tost_p = v->tost_adjusted = NAN;
	v->df = NAN;
	for (size_t i = 0; i < m->ncompared; i++) {
		double x = iom_report_mean(&c->by[i], k);

		if (!usable(&c->by[i], k))
			continue;
		if (c->by[i].n >= 2)
			v->max_cv_pct = IOM_MAX(v->max_cv_pct, iom_stats_cv(c->by[i].v[k],
									   c->by[i].n) * 100);
		if (!isfinite(x))
			continue;
		if (best < 0 || better(k, x, bm)) {
			second = best;
			rm = bm;
			best = (int)i;
			bm = x;
		} else if (second < 0 || better(k, x, rm)) {
			second = (int)i;
			rm = x;
		}
	}
	v->noisy = v->max_cv_pct > m->opts.max_cv_pct;
	v->best = best;
	if (second < 0)
		return;
	v->runner_up = second;
	v->margin_pct = rel_margin(k, bm, rm);
	if (c->by[best].n < 2 || c->by[second].n < 2)
		v->kind = IOM_VERDICT_SINGLE_RUN;
}

/* ln of r's values of metric k into a new array, or NULL when one is not positive
 * and finite (such a comparison is tested by Welch on the values and left out of the prior). */
static double *ln_values(const struct iom_report_reps *r, enum iom_metric k)
{
	double *l = xcalloc(r->n + 1, sizeof(double));

	for (size_t i = 0; i < r->n; i++) {
		if (!(r->v[k][i] > 0) || !isfinite(r->v[k][i])) {
			free(l);
			return NULL;
		}
		l[i] = log(r->v[k][i]);
	}
	return l;
}

/* The pooled variance of ln(a) and ln(b) (df na + nb − 2), NaN when not both positive. */
static double ln_pooled_var(const struct iom_report_reps *a, const struct iom_report_reps *b,
			    enum iom_metric k)
{
	double *la = ln_values(a, k), *lb = ln_values(b, k), s2 = NAN;

	if (la && lb) {
		double sa = iom_stats_stddev(la, a->n), sb = iom_stats_stddev(lb, b->n);

		s2 = (sa * sa * (double)(a->n - 1) + sb * sb * (double)(b->n - 1)) /
		     (double)(a->n + b->n - 2);
	}
	free(la);
	free(lb);
	return s2;
}

/*
 * One comparison, r against the best b (both n ≥ 2): the difference p, the equivalence p
 * within ± min_effect and the df, moderated on ln values when metric k is and both sides are
 * positive, else Welch's on the values (the band then ± min_effect of r's mean).
 */
static void compare_one(const struct iom_report *m, const struct iom_report_reps *r,
			const struct iom_report_reps *b, enum iom_metric k, double *p,
			double *tost, double *df)
{
	double *lr = m->moderated[k] ? ln_values(r, k) : NULL;
	double *lb = lr ? ln_values(b, k) : NULL;
	struct iom_welch w;

	*p = *tost = *df = NAN;
	if (lr && lb) {
		/* ± min_effect as a ratio: |ln r − ln b| < ln(1 + min_effect). */
		if (iom_stats_mod_t(lr, r->n, lb, b->n, &m->prior[k], &w) == 0) {
			*p = w.p;
			*df = w.df;
		}
		if (iom_stats_mod_tost(lr, r->n, lb, b->n, &m->prior[k],
				       log1p(m->opts.min_effect_pct / 100), tost, NULL) < 0)
			*tost = NAN;
	} else {
		if (iom_stats_welch(r->v[k], r->n, b->v[k], b->n, &w) == 0) {
			*p = w.p;
			*df = w.df;
		}
		if (iom_stats_tost(r->v[k], r->n, b->v[k], b->n, fabs(iom_report_mean(r, k)) *
				   m->opts.min_effect_pct / 100, tost) < 0)
			*tost = NAN;
	}
	free(lr);
	free(lb);
}

/* The alpha a suggestion plans for: Bonferroni's over the family (what Holm's first step and
 * Benjamini–Hochberg's worst case need), alpha itself without correction. */
static double planned_alpha(const struct iom_report *m)
{
	if (m->opts.correction == IOM_CORRECTION_NONE || m->ntests < 2)
		return m->opts.alpha;
	return m->opts.alpha / (double)m->ntests;
}

/*
 * Repetitions per side that would likely settle an undecided comparison, with 80 % power, cv
 * the pooled CV in % and d the observed margin in %: the smallest n with n ≥ 2 (t₁ + t₀.₈)²
 * (cv / gap)², the t quantiles at df 2n − 2 (so a few repetitions are not promised the power
 * of many). A difference above min_effect e needs Welch's test to reach it: gap d, t₁ at
 * 1 − α/2; one below needs the equivalence test to clear the rest of the band: gap e − d, t₁
 * at 1 − α. α is planned_alpha(). With pr (the comparison is moderated) the df gain the
 * prior's d0, at most its cap. At least one more than the repetitions there are; *capped
 * when more than the cap would be needed (the cap is returned).
 */
static unsigned settle_reps(const struct iom_report *m, const struct iom_stats_prior *pr,
			    double cv_pct, double d, size_t have, bool *capped)
{
	double a = planned_alpha(m), e = m->opts.min_effect_pct, z, gap, n;
	unsigned cap = m->settle_cap ? m->settle_cap : IOM_REPORT_SETTLE_CAP;

	*capped = false;
	gap = d > e ? d : e - d;
	for (n = (double)have + 1; gap > 0 && n <= cap; n++) {
		double df = 2 * n - 2, dfm;

		/* a moderated test adds the prior's df (at most the family's) */
		if (pr) {
			iom_stats_squeeze(pr, 0, df, &dfm);
			df = IOM_MAX(df, dfm);
		}

		z = iom_stats_t_quantile(d > e ? 1 - a / 2 : 1 - a, df) +
		    iom_stats_t_quantile(0.8, df);
		if (2 * z * z * (cv_pct / gap) * (cv_pct / gap) <= n)
			return (unsigned)n;
	}
	*capped = true;
	return cap;
}

/* The verdict from its ranking and the runner-up's adjusted p-values. */
static void judge(const struct iom_report *m, size_t cell, enum iom_metric k,
		  struct iom_report_verdict *v, double p_adj, double tost_adj)
{
	const struct iom_report_reps *b, *r;
	double cb, cr;

	if (v->runner_up < 0 || v->kind == IOM_VERDICT_SINGLE_RUN)
		return;
	v->p_adjusted = p_adj;
	v->tost_adjusted = tost_adj;
	v->tie_by_p = !(p_adj < m->opts.alpha);
	v->tie_by_effect = !(v->margin_pct > m->opts.min_effect_pct);
	if (!v->tie_by_p && !v->tie_by_effect) {
		v->kind = IOM_VERDICT_WIN;
		v->winner = v->best;
		return;
	}
	if (tost_adj < m->opts.alpha) {
		v->kind = IOM_VERDICT_SAME;
		return;
	}
	v->kind = IOM_VERDICT_UNDECIDED;
	b = &m->cells[cell].by[v->best];
	r = &m->cells[cell].by[v->runner_up];
	cb = iom_stats_cv(b->v[k], b->n) * 100;
	cr = iom_stats_cv(r->v[k], r->n) * 100;
	v->settle = settle_reps(m, v->moderated ? &m->prior[k] : NULL,
				sqrt((cb * cb + cr * cr) / 2), v->margin_pct,
				IOM_MIN(b->n, r->n), &v->settle_capped);
}

void iom_report_verdict(const struct iom_report *m, size_t cell, enum iom_metric k,
			struct iom_report_verdict *v)
{
	const struct iom_report_cell *c = &m->cells[cell];

	if (m->vd) {
		*v = m->vd[cell * IOM_NMETRIC + k];
		return;
	}
	rank(m, cell, k, v);
	if (v->runner_up < 0 || v->kind == IOM_VERDICT_SINGLE_RUN)
		return;
	v->p_value = welch_p(&c->by[v->best], &c->by[v->runner_up], k);
	if (iom_stats_tost(c->by[v->runner_up].v[k], c->by[v->runner_up].n, c->by[v->best].v[k],
			   c->by[v->best].n, fabs(iom_report_mean(&c->by[v->runner_up], k)) *
			   m->opts.min_effect_pct / 100, &v->tost_p) < 0)
		v->tost_p = NAN;
	judge(m, cell, k, v, v->p_value, v->tost_p);
}

static size_t at(const struct iom_report *m, size_t cell, int k, size_t cv)
{
	return (cell * IOM_NMETRIC + (size_t)k) * m->ncompared + cv;
}

/* Whether compared value i of (cell, k) is tested against the cell's best v->best: one of the
 * family's comparisons (a metric the report compares, two or more repetitions on both sides,
 * the metric usable). */
static bool in_family(const struct iom_report *m, size_t cell, enum iom_metric k,
		      const struct iom_report_verdict *v, size_t i)
{
	const struct iom_report_reps *r = &m->cells[cell].by[i];

	return iom_report_metric_next(m, (int)k - 1) == (int)k &&
	       v->best >= 0 && (int)i != v->best && r->n >= 2 &&
	       m->cells[cell].by[v->best].n >= 2 && usable(r, k);
}

void iom_report_decide(struct iom_report *m)
{
	size_t n = m->ncells * IOM_NMETRIC * m->ncompared + 1;
	double *s2 = xcalloc(n, sizeof(double)), *dfr = xcalloc(n, sizeof(double));

	free(m->vd);
	free(m->p_raw);
	free(m->p_adj);
	free(m->tost_raw);
	free(m->tost_adj);
	free(m->df_used);
	m->vd = xcalloc(m->ncells * IOM_NMETRIC + 1, sizeof(*m->vd));
	m->p_raw = xcalloc(n, sizeof(double));
	m->p_adj = xcalloc(n, sizeof(double));
	m->tost_raw = xcalloc(n, sizeof(double));
	m->tost_adj = xcalloc(n, sizeof(double));
	m->df_used = xcalloc(n, sizeof(double));
	m->ntests = 0;
	for (size_t i = 0; i < n; i++)
		s2[i] = m->p_raw[i] = m->p_adj[i] = m->tost_raw[i] = m->tost_adj[i] =
			m->df_used[i] = NAN;
	/* The comparisons of the family, and each one's pooled variance of ln values; per metric
	 * the df of the distinct groups in them (a cell's best is in every one of its
	 * comparisons, its df counted once: the most df the family's variances hold) */
	double group_df[IOM_NMETRIC] = { 0 };

	for (size_t c = 0; c < m->ncells; c++) {
		for (int k = 0; k < IOM_NMETRIC; k++) {
			struct iom_report_verdict *v = &m->vd[c * IOM_NMETRIC + k];
			const struct iom_report_reps *b;
			bool any = false;

			rank(m, c, (enum iom_metric)k, v);
			if (v->best < 0)
				continue;
			b = &m->cells[c].by[v->best];
			for (size_t i = 0; i < m->ncompared; i++) {
				const struct iom_report_reps *r = &m->cells[c].by[i];
				size_t x = at(m, c, k, i);

				if (!in_family(m, c, (enum iom_metric)k, v, i))
					continue;
				s2[x] = ln_pooled_var(r, b, (enum iom_metric)k);
				dfr[x] = (double)(r->n + b->n - 2);
				group_df[k] += (double)(r->n - 1);
				any = true;
			}
			if (any)
				group_df[k] += (double)(b->n - 1);
		}
	}
	/* per metric, the prior of those variances (moderated t). */
	for (int k = 0; k < IOM_NMETRIC; k++) {
		size_t cnt = 0, j = 0;
		double *sk, *dk;

		for (size_t c = 0; c < m->ncells; c++)
			for (size_t i = 0; i < m->ncompared; i++)
				cnt += !isnan(s2[at(m, c, k, i)]);
		sk = xcalloc(cnt + 1, sizeof(double));
		dk = xcalloc(cnt + 1, sizeof(double));
		for (size_t c = 0; c < m->ncells; c++)
			for (size_t i = 0; i < m->ncompared; i++)
				if (!isnan(s2[at(m, c, k, i)])) {
					sk[j] = s2[at(m, c, k, i)];
					dk[j++] = dfr[at(m, c, k, i)];
				}
		m->moderated[k] = iom_stats_fit_prior(sk, dk, cnt, IOM_REPORT_PRIOR_CONF,
						      &m->prior[k]) == 0 &&
				  cnt >= IOM_REPORT_PRIOR_MIN &&
				  m->prior[k].d0 >= IOM_REPORT_PRIOR_MIN_D0;
		if (group_df[k] > 0 && group_df[k] < m->prior[k].df_cap)
			m->prior[k].df_cap = group_df[k];
		free(sk);
		free(dk);
	}
	free(s2);
	free(dfr);
	for (size_t c = 0; c < m->ncells; c++) {
		for (int k = 0; k < IOM_NMETRIC; k++) {
			struct iom_report_verdict *v = &m->vd[c * IOM_NMETRIC + k];
			const struct iom_report_reps *b;

			if (v->best < 0)
				continue;
			b = &m->cells[c].by[v->best];
			for (size_t i = 0; i < m->ncompared; i++) {
				const struct iom_report_reps *r = &m->cells[c].by[i];
				size_t x = at(m, c, k, i);

				if (!in_family(m, c, (enum iom_metric)k, v, i))
					continue;
				compare_one(m, r, b, (enum iom_metric)k, &m->p_raw[x],
					    &m->tost_raw[x], &m->df_used[x]);
				if (!isnan(m->p_raw[x]))
					m->ntests++;
			}
		}
	}
	iom_stats_adjust_p(m->p_raw, n - 1, (enum iom_stats_adjust)m->opts.correction, m->p_adj);
	iom_stats_adjust_p(m->tost_raw, n - 1, (enum iom_stats_adjust)m->opts.correction,
			   m->tost_adj);
	for (size_t c = 0; c < m->ncells; c++) {
		for (int k = 0; k < IOM_NMETRIC; k++) {
			struct iom_report_verdict *v = &m->vd[c * IOM_NMETRIC + k];

			if (v->runner_up < 0 || v->kind == IOM_VERDICT_SINGLE_RUN)
				continue;
			v->p_value = m->p_raw[at(m, c, k, (size_t)v->runner_up)];
			v->tost_p = m->tost_raw[at(m, c, k, (size_t)v->runner_up)];
			v->df = m->df_used[at(m, c, k, (size_t)v->runner_up)];
			/* moderated when this comparison was (both sides positive) */
			v->moderated = m->moderated[k] && !isnan(v->df) &&
				       !isnan(ln_pooled_var(&m->cells[c].by[v->best],
							    &m->cells[c].by[v->runner_up],
							    (enum iom_metric)k));
			judge(m, c, (enum iom_metric)k, v, m->p_adj[at(m, c, k, (size_t)v->runner_up)],
			      m->tost_adj[at(m, c, k, (size_t)v->runner_up)]);
		}
	}
}

void iom_report_correction_words(const struct iom_report *m, char *buf, size_t len)
{
	const char *mod = "";

	for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
	     k = iom_report_metric_next(m, k))
		if (m->vd && m->moderated[k])
			mod = "moderated t (limma), ";
	switch (m->opts.correction) {
	case IOM_CORRECTION_HOLM:
		snprintf(buf, len, "%sHolm's correction over %zu tests", mod, m->ntests);
		break;
	case IOM_CORRECTION_BH:
		snprintf(buf, len, "%sBenjamini–Hochberg over %zu tests", mod, m->ntests);
		break;
	default:
		snprintf(buf, len, "%sno correction (%zu tests)", mod, m->ntests);
		break;
	}
}

const char *iom_report_test_words(const struct iom_report *m)
{
	for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
	     k = iom_report_metric_next(m, k))
		if (m->vd && m->moderated[k])
			return "moderated";
	return "Welch";
}

/* cv's equivalence p against the best of (cell, k), adjusted when the model is decided. */
static double tost_vs_best(const struct iom_report *m, size_t cell, enum iom_metric k,
			   size_t cv, const struct iom_report_reps *me,
			   const struct iom_report_reps *b)
{
	double p;

	if (m->vd)
		return m->tost_adj[at(m, cell, (int)k, cv)];
	if (iom_stats_tost(me->v[k], me->n, b->v[k], b->n, fabs(iom_report_mean(me, k)) *
			   m->opts.min_effect_pct / 100, &p) < 0)
		return NAN;
	return p;
}

/* cv's p against the best of (cell, k), adjusted when the model is decided. */
static double p_vs_best(const struct iom_report *m, size_t cell, enum iom_metric k, size_t cv,
			const struct iom_report_reps *me, const struct iom_report_reps *b)
{
	if (m->vd)
		return m->p_adj[at(m, cell, (int)k, cv)];
	return welch_p(me, b, k);
}

enum iom_outcome iom_report_outcome(const struct iom_report *m, size_t cell, enum iom_metric k,
				    size_t cv, double *margin_pct)
{
	const struct iom_report_cell *c = &m->cells[cell];
	const struct iom_report_reps *me = &c->by[cv], *b;
	struct iom_report_verdict v;
	double mine = iom_report_mean(me, k), om = NAN;
	int other = -1;

	if (margin_pct)
		*margin_pct = NAN;
	if (me->n == 0 || !usable(me, k))
		return IOM_OUTCOME_ABSENT;
	for (size_t i = 0; i < m->ncompared; i++) {
		double x = iom_report_mean(&c->by[i], k);

		if (i == cv || !isfinite(x) || !usable(&c->by[i], k))
			continue;
		if (other < 0 || better(k, x, om)) {
			other = (int)i;
			om = x;
		}
	}
	if (other < 0)
		return IOM_OUTCOME_ABSENT;
	if (margin_pct)
		*margin_pct = (better(k, mine, om) ? 1 : -1) * rel_margin(k, mine, om);
	iom_report_verdict(m, cell, k, &v);
	if (v.best == (int)cv) {
		switch (v.kind) {
		case IOM_VERDICT_WIN:
			return IOM_OUTCOME_WON;
		case IOM_VERDICT_SAME:
			return IOM_OUTCOME_SAME;
		case IOM_VERDICT_UNDECIDED:
			return IOM_OUTCOME_UNDECIDED;
		default:
			return IOM_OUTCOME_SINGLE_RUN;
		}
	}
	b = &c->by[v.best];
	if (me->n < 2 || b->n < 2)
		return IOM_OUTCOME_SINGLE_RUN;
	if (p_vs_best(m, cell, k, cv, me, b) < m->opts.alpha &&
	    rel_margin(k, iom_report_mean(b, k), mine) > m->opts.min_effect_pct)
		return IOM_OUTCOME_LOST;
	if (tost_vs_best(m, cell, k, cv, me, b) < m->opts.alpha)
		return IOM_OUTCOME_SAME;
	return IOM_OUTCOME_UNDECIDED;
}

void iom_report_tally(const struct iom_report *m, enum iom_metric k, size_t cv,
		      struct iom_report_tally *t)
{
	double *margins = xcalloc(m->ncells + 1, sizeof(*margins));

	memset(t, 0, sizeof(*t));
	for (size_t c = 0; c < m->ncells; c++) {
		double mg;

		switch (iom_report_outcome(m, c, k, cv, &mg)) {
		case IOM_OUTCOME_WON:
			t->won++;
			break;
		case IOM_OUTCOME_SAME:
			t->same++;
			break;
		case IOM_OUTCOME_UNDECIDED:
			t->undecided++;
			break;
		case IOM_OUTCOME_LOST:
			t->lost++;
			break;
		case IOM_OUTCOME_SINGLE_RUN:
			t->single_run++;
			break;
		default:
			continue;
		}
		/* An infinite margin (against zero) still orders correctly for the median. */
		if (!isnan(mg))
			margins[t->nmargin++] = mg;
	}
	t->median_margin_pct = t->nmargin ? iom_stats_median(margins, t->nmargin) : NAN;
	free(margins);
}

size_t iom_report_noisy_list(const struct iom_report *m, struct iom_report_noisy **out)
{
	size_t n = 0, cap = 0;

	*out = NULL;
	for (size_t c = 0; c < m->ncells; c++) {
		for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
		     k = iom_report_metric_next(m, k)) {
			struct iom_report_verdict vd;

			iom_report_verdict(m, c, (enum iom_metric)k, &vd);
			if (!vd.noisy)
				continue;
			for (size_t v = 0; v < m->ncompared; v++) {
				const struct iom_report_reps *r = &m->cells[c].by[v];
				double cv;

				if (r->n < 2)
					continue;
				cv = iom_stats_cv(r->v[k], r->n) * 100;
				if (!(cv > m->opts.max_cv_pct))
					continue;
				if (n == cap) {
					cap = cap ? 2 * cap : 16;
					*out = xrealloc(*out, cap * sizeof(**out));
				}
				(*out)[n] = (struct iom_report_noisy){
					.cell = c, .compared = v, .metric = (enum iom_metric)k,
					.n = r->n, .cv_pct = cv,
					.suggest = vd.kind == IOM_VERDICT_UNDECIDED ?
						   vd.settle : 0,
					.capped = vd.settle_capped, .verdict = vd.kind,
				};
				n++;
			}
		}
	}
	return n;
}

/* Whether report cell c's compared value v holds a repetition of plan cell pc (of p, whose
 * runs the first directory holds). */
static bool holds_cell(const struct iom_report *m, const struct iom_plan *p, size_t c, size_t v,
		       uint32_t pc)
{
	const struct iom_report_reps *r = &m->cells[c].by[v];

	for (size_t i = 0; i < r->n; i++)
		if (r->src[i] == 0 && r->run[i] >= 1 && r->run[i] <= p->nruns &&
		    p->runs[r->run[i] - 1].cell == pc)
			return true;
	return false;
}

void iom_report_judge(const struct iom_report *m, const struct iom_plan *p, uint32_t pc,
		      struct iom_report_judgement *j)
{
	*j = (struct iom_report_judgement){ .kind = IOM_VERDICT_NONE };
	for (size_t c = 0; c < m->ncells; c++)
		for (size_t v = 0; v < m->ncompared; v++) {
			struct iom_stats_summary sm;
			struct iom_report_verdict vd;

			if (!holds_cell(m, p, c, v, pc))
				continue;
			iom_report_summary(&m->cells[c].by[v], IOM_METRIC_IOPS, &sm);
			iom_report_verdict(m, c, IOM_METRIC_IOPS, &vd);
			*j = (struct iom_report_judgement){ .found = true, .n = sm.n,
							    .mean = sm.mean, .ci95 = sm.ci95,
							    .kind = vd.kind };
			return;
		}
}
