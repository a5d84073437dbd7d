/*
 * report_stats — the statistics that decide winners (report.h), computed from the loaded model
 * alone; the numbers themselves (Welch's t-test, summaries) are stats.c's.
 *
 * Per (cell, metric): the best and the runner-up by mean; Welch's t-test between them; a win
 * needs p < alpha and a margin above min_effect, the margin being the difference relative to
 * the worse of the two (so "+20.8 %" more IOPS and "-18.2 %" less latency read the same way,
 * and a loss is exactly the mirror of a win). A value that is not the best "lost" when it is
 * significantly and materially worse than the best, else it "tied". One repetition on either
 * side of a test gives "single-run": no significance is claimed. Per (compared value, metric):
 * the tally over every cell; and the noisy entries, with the repetitions that would settle them.
 */
#include "report.h"

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
};

#define POWER_Z 0.8416212335729143 /* the normal quantile of 0.8: 80 % power */

/* ---- statistics ---- */

double iom_report_mean(const struct iom_report_reps *r, enum iom_metric k)
{
	return r->n ? iom_stats_mean(r->v[k], r->n) : NAN;
}

void iom_report_summary(const struct iom_report_reps *r, enum iom_metric k,
			struct iom_stats_summary *s)
{
	iom_stats_summarize(r->v[k], r->n, s);
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
	[IOM_VERDICT_TIE] = "tie",
	[IOM_VERDICT_SINGLE_RUN] = "single-run",
};

const char *iom_verdict_name(enum iom_verdict_kind k)
{
	return (size_t)k < IOM_ARRAY_SIZE(verdict_names) ? verdict_names[k] : "?";
}

static const char *const outcome_names[] = {
	[IOM_OUTCOME_ABSENT] = "absent",
	[IOM_OUTCOME_WON] = "won",
	[IOM_OUTCOME_TIED] = "tied",
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

/* The best and runner-up of (cell, k), the margin, the noise: the verdict before any test. */
static void rank(const struct iom_report *m, size_t cell, enum iom_metric k,
		 struct iom_report_verdict *v)
{
	const struct iom_report_cell *c = &m->cells[cell];
	double bm = NAN, rm = NAN;
	int best = -1, second = -1;

	memset(v, 0, sizeof(*v));
	v->best = v->winner = v->runner_up = -1;
	v->margin_pct = v->p_value = v->p_adjusted = NAN;
	for (size_t i = 0; i < m->ncompared; i++) {
		double x = iom_report_mean(&c->by[i], k);

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

/* The verdict from its ranking and the runner-up's adjusted p-values. */
static void judge(const struct iom_report *m, struct iom_report_verdict *v, double p_adj)
{
	if (v->runner_up < 0 || v->kind == IOM_VERDICT_SINGLE_RUN)
		return;
	v->p_adjusted = p_adj;
	v->tie_by_p = !(p_adj < m->opts.alpha);
	v->tie_by_effect = !(v->margin_pct > m->opts.min_effect_pct);
	if (!v->tie_by_p && !v->tie_by_effect) {
		v->kind = IOM_VERDICT_WIN;
		v->winner = v->best;
	} else {
		v->kind = IOM_VERDICT_TIE;
	}
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
	judge(m, v, v->p_value);
}

static size_t at(const struct iom_report *m, size_t cell, int k, size_t cv)
{
	return (cell * IOM_NMETRIC + (size_t)k) * m->ncompared + cv;
}

void iom_report_decide(struct iom_report *m)
{
	size_t n = m->ncells * IOM_NMETRIC * m->ncompared + 1;

	free(m->vd);
	free(m->p_raw);
	free(m->p_adj);
	free(m->tost_raw);
	free(m->tost_adj);
	m->vd = xcalloc(m->ncells * IOM_NMETRIC + 1, sizeof(*m->vd));
	m->p_raw = xcalloc(n, sizeof(double));
	m->p_adj = xcalloc(n, sizeof(double));
	m->tost_raw = xcalloc(n, sizeof(double));
	m->tost_adj = xcalloc(n, sizeof(double));
	m->ntests = 0;
	for (size_t i = 0; i < n; i++)
		m->p_raw[i] = m->p_adj[i] = m->tost_raw[i] = m->tost_adj[i] = NAN;
	for (size_t c = 0; c < m->ncells; c++) {
		for (int k = 0; k < IOM_NMETRIC; k++) {
			struct iom_report_verdict *v = &m->vd[c * IOM_NMETRIC + k];
			const struct iom_report_reps *b;

			rank(m, c, (enum iom_metric)k, v);
			if (v->best < 0)
				continue;
			b = &m->cells[c].by[v->best];
			for (size_t i = 0; i < m->ncompared; i++) {
				const struct iom_report_reps *r = &m->cells[c].by[i];
				double delta;

				if ((int)i == v->best || r->n < 2 || b->n < 2)
					continue;
				m->p_raw[at(m, c, k, i)] = welch_p(r, b, (enum iom_metric)k);
				/* Within ± min_effect of the worse of the two, as the margin is. */
				delta = fabs(iom_report_mean(r, (enum iom_metric)k)) *
					m->opts.min_effect_pct / 100;
				if (iom_stats_tost(r->v[k], r->n, b->v[k], b->n, delta,
						   &m->tost_raw[at(m, c, k, i)]) < 0)
					m->tost_raw[at(m, c, k, i)] = NAN;
				if (!isnan(m->p_raw[at(m, c, k, i)]))
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
			judge(m, v, m->p_adj[at(m, c, k, (size_t)v->runner_up)]);
		}
	}
}

void iom_report_correction_words(const struct iom_report *m, char *buf, size_t len)
{
	switch (m->opts.correction) {
	case IOM_CORRECTION_HOLM:
		snprintf(buf, len, "Holm's correction over %zu tests", m->ntests);
		break;
	case IOM_CORRECTION_BH:
		snprintf(buf, len, "Benjamini–Hochberg over %zu tests", m->ntests);
		break;
	default:
		snprintf(buf, len, "no correction (%zu tests)", m->ntests);
		break;
	}
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
	if (me->n == 0)
		return IOM_OUTCOME_ABSENT;
	for (size_t i = 0; i < m->ncompared; i++) {
		double x = iom_report_mean(&c->by[i], k);

		if (i == cv || !isfinite(x))
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
		case IOM_VERDICT_TIE:
			return IOM_OUTCOME_TIED;
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
	return IOM_OUTCOME_TIED;
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
		case IOM_OUTCOME_TIED:
			t->tied++;
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

/*
 * Repetitions per side for a two-sided Welch test at alpha to detect a difference of d % with
 * 80 % power when the CV is cv %: 2 (z_{1−α/2} + z_{0.8})² (cv / d)², the normal
 * approximation. d is the larger of the observed margin and min_effect (at least 0.5 %).
 */
static unsigned suggest_reps(const struct iom_report *m, double cv_pct, double margin_pct)
{
	double d = IOM_MAX(isfinite(margin_pct) ? margin_pct : 0, m->opts.min_effect_pct);
	double za = iom_stats_t_quantile(1 - m->opts.alpha / 2, 1e9), n;

	if (d < 0.5)
		d = 0.5;
	n = ceil(2 * (za + POWER_Z) * (za + POWER_Z) * (cv_pct / d) * (cv_pct / d));
	if (!(n < IOM_REPORT_MAX_SUGGEST))
		return IOM_REPORT_MAX_SUGGEST;
	return n < 2 ? 2 : (unsigned)n;
}

size_t iom_report_noisy_list(const struct iom_report *m, struct iom_report_noisy **out)
{
	size_t n = 0, cap = 0;

	*out = NULL;
	for (size_t c = 0; c < m->ncells; c++) {
		for (int k = 0; k < IOM_NMETRIC; k++) {
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
					.suggest = suggest_reps(m, cv, vd.margin_pct),
				};
				n++;
			}
		}
	}
	return n;
}
