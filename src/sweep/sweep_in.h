/* SPDX-License-Identifier: MIT */
/*
 * sweep_in — what sweep.c and its rooms (sweep_dir.c, the results directory and resume;
 * sweep_rate.c, the offered load's shares; sweep_msg.c, its words) share: the state of one
 * sweep, its messages, the directory's opening and resume, and the shares' rates.
 */
#ifndef IOM_SWEEP_IN_H
#define IOM_SWEEP_IN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "journal.h"
#include "live.h"
#include "ownfile.h"
#include "result/result.h"
#include "run/run.h"
#include "stage.h"
#include "sweep.h"
#include "util.h"

struct sweep {
	const struct iom_plan *p;
	const struct iom_matrix *m;
	const struct iom_sweep_opts *o;
	FILE *out;
	bool tty;                       /* draw the status line on out */
	bool status_shown;              /* the status line is on screen (erase before printing) */
	struct iom_own_dir rd;          /* the results directory, opened once and pinned */
	struct iom_journal j;
	struct iom_journal_state st;
	bool plan_changed;              /* resume: matrix.cfg gives another plan (refused) */
	struct iom_stage stage;         /* the targets: their infos, visits and built-ins */
	uint64_t start_wall_ns;         /* of the study (the first invocation's on resume) */
	uint64_t invocation_ns;         /* monotonic start of this invocation */

	/* progress */
	uint64_t est_run_ns;            /* the plan's estimate per run (0: bytes-bound) */
	uint64_t runs_ns;               /* wall time of the runs of this invocation */
	uint64_t run_t0;                /* monotonic start of the current run (0: between runs) */
	const struct iom_run *cur_run;  /* the run the status line is about */
	struct iom_run_live live;       /* what the current run measured so far */
	size_t runs_timed, remaining;
	size_t redone;                  /* resume: finished runs whose files were damaged */
	size_t reshared;                /* … and runs whose rate is a share of a max run again */
	char last_iops[32];

	/* the live files (live.h), when asked for */
	struct iom_live lv;
	bool live_on, live_warned;

	/* the current run's offered load (sweep_derive_rate: a share of the max made a number), and
	 * why it could not be derived (rate_ret < 0) */
	int64_t rate_iops, rate_mb_s;
	int rate_ret;
	char rate_err[IOM_ERRLEN];

	/* many hosts: the latest row of each rank for each target (rank × target; hseen says
	 * which), the per-host provenance of study.json */
	struct iom_host_row *hrow;
	bool *hseen;
	size_t hranks;

	/* hooks */
	bool shell_hooks;
	unsigned invocation;            /* 0 for `run`, k for the k-th resume (log names) */
};

/* The status line off the screen, when it is on (sweep_msg.c, as the two below). */
void sweep_erase_status(struct sweep *s);
/* A line on the sweep's output (and its log); always: also under -q. */
__attribute__((format(printf, 3, 4)))
void sweep_say(struct sweep *s, bool always, const char *fmt, ...);
/* "iomatrix: warning: …" on stderr (and the log). */
__attribute__((format(printf, 2, 3)))
void sweep_warn(struct sweep *s, const char *fmt, ...);
/* Whether dir is one a creation left before anything was measured (sweep_dir.c). */
bool sweep_dir_is_fresh(const char *dir);
/* The "max" run a share run derives its rate from (sweep_rate.c; NULL when none). */
const struct iom_run *sweep_share_max(const struct sweep *s, const struct iom_run *run);
/* run's offered load into *rate_iops and *rate_mb_s, a share of the max made a number
 * (sweep_rate.c): 0, or -ENOENT with why in err when the max run has no ok result. */
int sweep_derive_rate(struct sweep *s, const struct iom_run *run, int64_t *rate_iops,
		      int64_t *rate_mb_s, char *err, size_t errlen);

/* Opens the results directory for run or resume (sweep_dir.c): created and locked, or on
 * resume checked, repaired and replayed; *complete when a resumed study has nothing to do.
 * 0 or -errno with err. */
int sweep_open_dir(struct sweep *s, bool *complete, char *err, size_t errlen);
/* What a resume kept and what it runs, on screen and in the log (sweep_dir.c). */
void sweep_say_resumed(struct sweep *s);

#endif
