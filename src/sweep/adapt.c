/* SPDX-License-Identifier: MIT */
/*
 * adapt — adaptive repetitions: whether a plan cell needs another round (adapt.h).
 */
#include "adapt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "keys.h"
#include "report/report.h"
#include "util.h"

struct iom_adapt {
	const struct iom_plan *p;
	struct iom_report *m; /* the directory's runs; NULL when they could not be read */
};

struct iom_adapt *iom_adapt_open(const char *dir, const struct iom_plan *p)
{
	struct iom_adapt *a = iom_try_calloc(1, sizeof(*a));
	char err[IOM_ERRLEN];

	if (!a)
		return NULL;
	a->p = p;
	if (iom_report_open(dir, iom_dim_name(p->m->compare), &a->m, err, sizeof(err)) < 0)
		a->m = NULL;
	return a;
}

void iom_adapt_close(struct iom_adapt *a)
{
	if (!a)
		return;
	iom_report_free(a->m);
	free(a);
}

bool iom_adapt_more(const struct iom_adapt *a, uint32_t pc, char *buf, size_t len)
{
	const struct iom_timing *tm = &a->p->m->timing;
	struct iom_report_judgement j;

	if (!a->m) {
		snprintf(buf, len, "continue: no report of the rounds so far");
		return true;
	}
	iom_report_judge(a->m, a->p, pc, &j);
	if (!j.found) {
		snprintf(buf, len, "continue: no finished repetition yet");
		return true;
	}
	if (tm->until_ci_pct > 0) {
		double w = j.mean > 0 ? j.ci95 / j.mean * 100 : INFINITY;

		if (j.n >= 2 && w <= tm->until_ci_pct) {
			snprintf(buf, len, "stop: ci %.2f%% within %g%% after %zu", w,
				 tm->until_ci_pct, j.n);
			return false;
		}
		snprintf(buf, len, "continue: ci %.2f%% wider than %g%% after %zu", w,
			 tm->until_ci_pct, j.n);
		return true;
	}
	if (j.kind == IOM_VERDICT_UNDECIDED || j.kind == IOM_VERDICT_SINGLE_RUN) {
		snprintf(buf, len, "continue: %s after %zu", iom_verdict_name(j.kind), j.n);
		return true;
	}
	snprintf(buf, len, "stop: %s after %zu", j.kind == IOM_VERDICT_NONE ?
		 "nothing to compare" : iom_verdict_name(j.kind), j.n);
	return false;
}
