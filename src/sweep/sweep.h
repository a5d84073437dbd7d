/* SPDX-License-Identifier: MIT */
/*
 * sweep — a whole plan, run into a results directory: the lock and journal, the targets, the
 * matrix as run, study.json, one result file per run, summary.csv, a progress line per run and
 * the winners table at the end. It knows nothing of how I/O is done (run.c) or how results are
 * judged (report.c).
 *
 * Everything a run measured is on disk and fsync'd, and journalled, before the next run starts:
 * a crash loses at most the run in progress, and `iomatrix resume DIR` carries on from the
 * journal (finished runs are never repeated; the run in progress is rerun). A resume warns when
 * the tool version, host or kernel differ from study.json's. It refuses, writing nothing, a
 * matrix.cfg whose plan is not the one the study began with (plan_changed; `iomatrix run` of
 * the edited file starts a new study), and a journal that is empty, unreadable or without its
 * study-start beside run files (it would run them again over them). A run file that does not
 * read back whole and consistent is set aside, renamed runs/NNNNN.json.corrupt-<UTC time> (to
 * undo: rename it back), and its run runs again, as does a run the journal counts finished
 * whose file is missing; each is a warning and a journal note.
 *
 * Each run has a watchdog (timing.timeout; 0: twice the expected time plus 60 s, the expected
 * time of a bytes-bound run counted at 1 MB/s): a hung run fails with the reason and the sweep
 * goes on. A results directory that fills up (ENOSPC) stops the sweep with a message saying so;
 * what was written before stays whole, and the sweep can be resumed once there is space.
 *
 * Hooks (hooks.h) run around the study, each target visit and each run, with their output in
 * DIR/hooks/; shell hooks only when allow_hooks. before_study and the target hooks run again in
 * every invocation (a resume after a reboot needs its setup again); a target visit is a stretch
 * of consecutive runs on one target. A failing before_study stops the sweep; a failing
 * before_target fails that visit's runs; a failing before_run or after_run fails its run; a
 * failing after_target or after_study is a warning. The built-ins (drop_caches, fstrim or
 * discard, precondition — skipped on resume when a write run of that target already finished)
 * and the filesystems of a target's visit are stage.h's; the sweep prints what the stage
 * reports, and journals its notes and, before each mkfs, a mkfs event. On resume the
 * journal's mkfs events say which filesystems are our own, and stale mounts of them are undone.
 *
 * Progress: one line per finished run (UTC time, index, cell, IOPS, MB/s, p99), to out and
 * to the log; on a terminal also a status line (run i/N, cell, the run's IOPS so far — the last
 * run's before its window opens —, elapsed, ETA from the plan's estimate corrected by the
 * measured run times), redrawn every second by a ticker thread while a run goes on.
 */
#ifndef IOM_SWEEP_H
#define IOM_SWEEP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "matrix/matrix.h"
#include "plan.h"

struct iom_hosts;

struct iom_sweep_opts {
	const char *dir;                /* the results directory */
	bool resume;                    /* carry on in dir from its journal */
	bool quiet;                     /* only errors and the final summary */
	FILE *out;                      /* progress and summary; NULL: stdout */
	const struct iom_override *ov;  /* the --set overrides, recorded in study.json */
	size_t nov;
	volatile sig_atomic_t *stop;    /* set by a signal: stop after the current run */
	bool no_trace;                  /* no traces, whatever the matrix says */
	bool allow_hooks;               /* run the matrix's shell hooks (else refused) */
	FILE *log;                      /* also gets the per-run lines and warnings; may be NULL */
	int tty;                        /* status line: 1 yes, 0 no, -1 when out is a terminal */
	struct iom_hosts *hosts;           /* iomatrix-mpi, rank 0: the other ranks run each run
					    * with this one (hosts.h); NULL: this host alone */
	/* live files for other programs (live.h): a Prometheus text file rewritten after every
	 * 1-second interval, and a stream of the intervals (JSON lines; CSV for "*.csv");
	 * NULL: none */
	const char *metrics, *live;
};

struct iom_sweep_outcome {
	size_t ok, failed;      /* runs of this invocation (ok: neither stalled nor unsteady) */
	size_t stalled;         /* finished, but left out of the verdicts: the window stalled */
	size_t unsteady;        /* … or the steady state was not reached in the warm-up */
	size_t skipped;         /* finished before (resume) */
	bool interrupted;       /* *stop was set: the sweep can be resumed */
	bool disk_full;         /* stopped because the results directory is full */
	bool plan_changed;      /* resume refused: matrix.cfg no longer gives the study's plan */
	bool lost;              /* many hosts: a rank was lost (iom_hosts_lost), the sweep stopped
				 * (interrupted too: it can be resumed) */
};

/*
 * Executes plan p (its matrix p->m) into o->dir. A run that fails is recorded with its reason
 * and the sweep goes on. Returns 0 when the sweep went through (see out for failed runs), or
 * -errno when it could not start or could not keep its records (the message in err): a
 * non-empty directory without resume, a locked directory, a resume of a changed plan (-ESTALE,
 * out->plan_changed) or of a journal that lost its records, buffers that do not fit in memory,
 * a results directory that cannot be written (-ENOSPC: full; out->disk_full), shell hooks
 * without allow_hooks (-EPERM), a failing before_study hook.
 */
int iom_sweep_execute(const struct iom_plan *p, const struct iom_sweep_opts *o,
		      struct iom_sweep_outcome *out, char *err, size_t errlen);

/* Whether m has shell hooks (which need allow_hooks; the built-ins do not). */
bool iom_sweep_has_shell_hooks(const struct iom_matrix *m);

/* "results/<name>-<UTC timestamp>" for a new study; the caller frees it. */
char *iom_sweep_default_dir(const struct iom_matrix *m);

/* 0 when dir may take a new study (missing or empty); -EEXIST with the message (how to resume
 * it, or to choose another) when it holds anything. */
int iom_sweep_check_new_dir(const char *dir, char *err, size_t errlen);

#endif
