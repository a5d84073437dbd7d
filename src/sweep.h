/*
 * sweep — a whole plan, run into a results directory: the lock and journal, the targets, the
 * matrix as run, study.json, one result file per run, summary.csv, a progress line per run and
 * the winners table at the end. It knows nothing of how I/O is done (run.c) or how results are
 * judged (report.c).
 *
 * Everything a run measured is on disk and fsync'd, and journalled, before the next run starts:
 * a crash loses at most the run in progress, and `iomatrix resume DIR` carries on from the
 * journal (finished runs are never repeated; the run in progress is rerun).
 */
#ifndef IOM_SWEEP_H
#define IOM_SWEEP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "matrix.h"
#include "plan.h"

struct iom_sweep_opts {
	const char *dir;                /* the results directory */
	bool resume;                    /* carry on in dir from its journal */
	bool quiet;                     /* only errors and the final summary */
	FILE *out;                      /* progress and summary; NULL: stdout */
	const struct iom_override *ov;  /* the --set overrides, recorded in study.json */
	size_t nov;
	volatile sig_atomic_t *stop;    /* set by a signal: stop after the current run */
	bool no_trace;                  /* no traces, whatever the matrix says */
};

struct iom_sweep_outcome {
	size_t ok, failed;      /* runs of this invocation */
	size_t skipped;         /* finished before (resume) */
	bool interrupted;       /* *stop was set: the sweep can be resumed */
};

/*
 * Executes plan p (its matrix p->m) into o->dir. A run that fails is recorded with its reason
 * and the sweep goes on. Returns 0 when the sweep went through (see out for failed runs), or
 * -errno when it could not start or could not keep its records (the message in err): a
 * non-empty directory without resume, a locked directory, buffers that do not fit in memory,
 * a results directory that cannot be written.
 */
int iom_sweep_execute(const struct iom_plan *p, const struct iom_sweep_opts *o,
		      struct iom_sweep_outcome *out, char *err, size_t errlen);

/* "results/<name>-<UTC timestamp>" for a new study; the caller frees it. */
char *iom_sweep_default_dir(const struct iom_matrix *m);

#endif
