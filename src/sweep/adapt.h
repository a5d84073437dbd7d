/* SPDX-License-Identifier: MIT */
/*
 * adapt — adaptive repetitions (timing.repeat_max, timing.until; docs/reports.md): from what a
 * results directory holds so far, whether a plan cell needs another round.
 *
 * The sweep asks; this module judges, through the report's model and verdicts (report.h), so
 * that the conductor knows nothing of how results are judged. A judge is opened once per
 * adaptive round (it loads the directory's run files then) and asked per cell.
 */
#ifndef IOM_ADAPT_H
#define IOM_ADAPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"

struct iom_adapt;

/* Loads what dir holds of plan p (its compared dimension: p->m->compare). Never fails: a
 * directory it cannot read makes a judge that says "continue" for every cell. Returns NULL only
 * without memory. */
struct iom_adapt *iom_adapt_open(const char *dir, const struct iom_plan *p);

/*
 * Whether plan cell pc needs another round: with timing.until "ci X%", until the 95 % CI of its
 * IOPS is within ± X % of the mean; else until its IOPS verdict (against the other compared
 * values of its report cell) is no longer undecided. Writes "continue: …" or "stop: …" into why.
 */
bool iom_adapt_more(const struct iom_adapt *a, uint32_t pc, char *why, size_t len);

/* Frees what iom_adapt_open() loaded (a may be NULL). */
void iom_adapt_close(struct iom_adapt *a);

#endif
