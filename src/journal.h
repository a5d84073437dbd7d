/* SPDX-License-Identifier: MIT */
/*
 * journal — the append-only record of what a sweep did, in DIR/journal. One line per event,
 * written with a single write(2) and fsync'd before the sweep goes on, so after a crash, a kill or
 * a power cut the journal says exactly which runs finished. A torn last line (no newline) is
 * ignored on replay: the event it described never completed.
 *
 * Line format (tab-separated, documented in docs/results.md):
 *   UTC-time <TAB> event <TAB> run-index <TAB> detail
 * events: study-start, resume, run-start, run-done (detail: result file), run-failed (detail:
 * reason), run-interrupted, study-end, note (free text, e.g. a hook's outcome), mkfs (detail:
 * "DEVICE FSTYPE UUID LABEL" of a filesystem iomatrix is about to make, fsprep.h
 * iom_fs_made_format — written before the mkfs, so that only filesystems this study made may
 * be replaced, even after a crash during the mkfs).
 *
 * The journal knows nothing of I/O or statistics.
 */
#ifndef IOM_JOURNAL_H
#define IOM_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct iom_own_dir;

enum iom_journal_event {
	IOM_J_STUDY_START,
	IOM_J_RESUME,
	IOM_J_RUN_START,
	IOM_J_RUN_DONE,
	IOM_J_RUN_FAILED,
	IOM_J_RUN_INTERRUPTED,
	IOM_J_STUDY_END,
	IOM_J_NOTE,
	IOM_J_MKFS,
	/* adaptive repetitions */
	IOM_J_DECIDE,      /* a cell's next round decided: detail "continue: …" or "stop: …" */
	IOM_J_RUN_SKIPPED, /* a run of a round its cell does not need (detail: why) */
	IOM_J_COUNT
};

struct iom_journal {
	int fd;
	int lock_fd;
};

/* What replaying a journal says about each run (index 1..nruns). */
enum iom_run_state {
	IOM_RS_PENDING,     /* never started, or started and never finished (to be rerun) */
	IOM_RS_DONE,
	IOM_RS_FAILED,
	IOM_RS_SKIPPED,     /* adaptive: not needed (its cell settled): never to be run */
};

struct iom_journal_state {
	size_t nruns;
	uint8_t *run;        /* nruns + 1 entries, indexed by run index; enum iom_run_state */
	size_t done, failed, torn_lines;
	uint32_t in_progress; /* index of a run started but never finished (interrupted or
			       * killed), 0 when none */
	bool ended;           /* a study-end event was seen */
	bool started;         /* a study-start event was seen */
	bool has_plan;        /* the study-start named its plan ("plan HASH runs N") */
	uint64_t plan_hash;   /* the plan the study began with (has_plan) */
	size_t plan_runs;     /* its number of runs; 0 when the line does not say */
	size_t events;        /* complete lines read */
	unsigned resumes;
	char **mkfs;          /* details of the mkfs events, in order (heap) */
	size_t nmkfs;
	/* adaptive repetitions */
	uint8_t *decided;     /* nruns + 1: a decide event named this run (its round decided) */
	char **decision;      /* nruns + 1: that event's detail (heap), or NULL */
	size_t skipped;       /* runs in state IOM_RS_SKIPPED */
};

/*
 * Opens DIR/journal for appending (creating it) and takes DIR/.lock with flock (DIR: d->path,
 * the pinned results directory; neither is ever opened through a link), so that two
 * processes never write one results directory. -EBUSY with a message when another holds it.
 * Opening cuts a torn last line off the journal. iom_journal_open() is iom_journal_lock()
 * then iom_journal_open_locked(); a resume takes the lock first, replays and checks the
 * journal while nothing is written yet, and only then opens it.
 */
int iom_journal_open(struct iom_journal *j, const struct iom_own_dir *d, char *err,
		     size_t errlen);
/* Takes DIR/.lock (j->fd stays -1). 0, or -EBUSY / -errno with a message. */
int iom_journal_lock(struct iom_journal *j, const struct iom_own_dir *d, char *err,
		     size_t errlen);
/* Opens DIR/journal for appending, j holding the lock already (iom_journal_lock()). On failure
 * the lock is kept: iom_journal_close() releases both. */
int iom_journal_open_locked(struct iom_journal *j, const struct iom_own_dir *d, char *err,
			    size_t errlen);
void iom_journal_close(struct iom_journal *j);

/* Appends one event and fsyncs. detail may be NULL; tabs and newlines in it are replaced. */
int iom_journal_append(struct iom_journal *j, enum iom_journal_event ev, uint32_t index,
		       const char *detail);

/* Replays DIR/journal for a plan of nruns runs into st (caller frees with _state_release, also
 * on failure). Reads only. Unknown events or indices beyond nruns are errors naming the line;
 * st then holds what the lines before said, the study-start's plan among it (a resume names a
 * changed plan rather than the first run index the new plan lacks). */
int iom_journal_replay(const char *dir, size_t nruns, struct iom_journal_state *st, char *err,
		       size_t errlen);
void iom_journal_state_release(struct iom_journal_state *st);

const char *iom_journal_event_name(enum iom_journal_event ev);

#endif
