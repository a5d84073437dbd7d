/* SPDX-License-Identifier: MIT */
/*
 * adapt — adaptive repetitions: whether a plan cell needs another round (adapt.h).
 */
#include "adapt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "keys.h"
#include "report.h"
#include "stats.h"
#include "util.h"

struct iom_adapt {
	const struct iom_plan *p;
	struct iom_report m;
	bool loaded;    /* the directory's runs are in m */
};

struct iom_adapt *iom_adapt_open(const char *dir, const struct iom_plan *p)
{
	struct iom_adapt *a = iom_try_calloc(1, sizeof(*a));
	char err[IOM_ERRLEN];

	if (!a)
		return NULL;
	a->p = p;
	a->loaded = iom_report_load(dir, iom_dim_name(p->m->compare), &a->m, err,
				    sizeof(err)) == 0;
	return a;
}

void iom_adapt_close(struct iom_adapt *a)
{
	if (!a)
		return;
	iom_report_release(&a->m);
	free(a);
}

/* Whether report cell c's compared value v holds a repetition of plan cell pc. */
static bool holds_cell(const struct iom_adapt *a, size_t c, size_t v, uint32_t pc)
{
	const struct iom_report_reps *r = &a->m.cells[c].by[v];

	for (size_t i = 0; i < r->n; i++)
		if (r->src[i] == 0 && r->run[i] >= 1 && r->run[i] <= a->p->nruns &&
		    a->p->runs[r->run[i] - 1].cell == pc)
			return true;
	return false;
}

bool iom_adapt_more(const struct iom_adapt *a, uint32_t pc, char *buf, size_t len)
{
	const struct iom_report *m = &a->m;
	const struct iom_timing *tm = &a->p->m->timing;

	if (!a->loaded) {
		snprintf(buf, len, "continue: no report of the rounds so far");
		return true;
	}
	for (size_t c = 0; c < m->ncells; c++) {
		for (size_t v = 0; v < m->ncompared; v++) {
			struct iom_stats_summary sm;
			struct iom_report_verdict vd;

			if (!holds_cell(a, c, v, pc))
				continue;
			iom_report_summary(&m->cells[c].by[v], IOM_METRIC_IOPS, &sm);
			if (tm->until_ci_pct > 0) {
				double w = sm.mean > 0 ? sm.ci95 / sm.mean * 100 : INFINITY;

				if (sm.n >= 2 && w <= tm->until_ci_pct) {
					snprintf(buf, len, "stop: ci %.2f%% within %g%% after %zu", w,
						 tm->until_ci_pct, sm.n);
					return false;
				}
				snprintf(buf, len, "continue: ci %.2f%% wider than %g%% after %zu", w,
					 tm->until_ci_pct, sm.n);
				return true;
			}
			iom_report_verdict(m, c, IOM_METRIC_IOPS, &vd);
			if (vd.kind == IOM_VERDICT_UNDECIDED || vd.kind == IOM_VERDICT_SINGLE_RUN) {
				snprintf(buf, len, "continue: %s after %zu", iom_verdict_name(vd.kind),
					 sm.n);
				return true;
			}
			snprintf(buf, len, "stop: %s after %zu", vd.kind == IOM_VERDICT_NONE ?
				 "nothing to compare" : iom_verdict_name(vd.kind), sm.n);
			return false;
		}
	}
	snprintf(buf, len, "continue: no finished repetition yet");
	return true;
}
