/* SPDX-License-Identifier: MIT */
/*
 * stage — a target's visit, and what one host does around one run: everything that touches a
 * target outside the measured I/O. A visit is a stretch of consecutive runs on one target.
 *
 *   begin a visit   a filesystem target (fs_type, matrix.h): stale mounts of our own filesystems
 *                   undone, the mkfs recorded by the caller first (IOM_STAGE_MKFS), the
 *                   filesystem made (fsprep.h; only over one this study made), mounted, and a
 *                   scratch file prepared on it; then fstrim of a file target's filesystem, or
 *                   BLKDISCARD of a destructive device's region
 *   before a run    the target still usable, the visit not failed; precondition before the
 *                   target's first write run (sequential writes, unless a write run of it
 *                   finished in an earlier invocation); drop_caches
 *   start a run     data verification armed (verify.h) on the run's spec
 *   after a run     verification ended, its mismatches failing the run
 *   end a visit     the filesystem unmounted
 *
 * Every write that destroys data is here or in target.c, beside target.c's safety checks: the
 * discard and the precondition write through a descriptor from iom_target_open(), so the
 * target's pinned identity (and, for a device, the write checks and O_EXCL) covers them; the
 * precondition's writes are target.c's fill (iom_target_fill).
 *
 * The stage prints nothing and keeps no records: it tells the caller through one callback with
 * a kind (progress lines, warnings, journal notes, a target found unusable, the mkfs to record
 * before it is made), and the caller (sweep.c, or one day a host backend) words them. The shell
 * hooks around a visit and a run are the caller's too (hooks.h): before_target after
 * iom_stage_begin_visit, after_target before iom_stage_end_visit.
 *
 * Built-ins return 0 when done, IOM_STAGE_SKIP when they could not apply for a reason that is
 * not a failure (not root, not supported) with that reason in msg -- the caller logs it as a
 * warning and goes on -- or -errno with the message.
 */
#ifndef IOM_STAGE_H
#define IOM_STAGE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hooks.h"
#include "matrix/matrix.h"
#include "plan.h"
#include "run/run.h"
#include "target/target.h"

struct iom_verify;

/* Returned by built-ins that did not apply: msg says why; not a failure. */
#define IOM_STAGE_SKIP 1

/* ---- what the stage tells its caller ---------------------------------------------------- */

enum iom_stage_kind {
	IOM_STAGE_SAY,          /* a progress line for people, with its "\n" ("making ext4 on …") */
	IOM_STAGE_WARN,         /* a warning (sweep: stderr, the log and a journal note) */
	IOM_STAGE_NOTE,         /* a fact for the journal ("fstrim target 'a' done"); run: its run */
	IOM_STAGE_FAILED,       /* target's visit could not begin (its mkfs or mount failed): it is
				 * unusable until its next visit; text: why */
	IOM_STAGE_CHANGED,      /* target is no longer what was prepared: its remaining runs fail;
				 * text: what changed */
	IOM_STAGE_MKFS,         /* about to make a filesystem on target: record text (a mkfs
				 * detail, iom_fs_made_format) durably, and return 0, or -errno with
				 * the reason in err to refuse (nothing is made) */
	IOM_STAGE_PROGRESS,     /* the precondition has written done of total bytes */
	IOM_STAGE_PROGRESS_END, /* the precondition is over: erase its progress */
};

struct iom_stage_event {
	enum iom_stage_kind kind;
	size_t target;          /* the target it is about */
	uint32_t run;           /* NOTE: the run's index, 0 when none */
	const char *text;       /* SAY, WARN, NOTE, FAILED, CHANGED, MKFS */
	uint64_t done, total;   /* PROGRESS */
	char *err;              /* MKFS: where the callback puts its reason */
	size_t errlen;
};

/* Called for each event; the return counts for IOM_STAGE_MKFS only. */
typedef int (*iom_stage_report_fn)(void *arg, const struct iom_stage_event *e);

/* ---- a host's stage ---------------------------------------------------------------------- */

/*
 * The state of the targets of a plan as one host sees them. iom_stage_init() fills it; the
 * caller may read info, target_error and cur (and write info[t] only through
 * iom_stage_prepare_target()); release it with iom_stage_release().
 */
struct iom_stage {
	const struct iom_plan *p;
	const struct iom_matrix *m;
	const char *dir;                /* the results directory: mkfs logs in DIR/hooks/ */
	const struct iom_own_dir *own;  /* dir pinned (ownfile.h), set by the sweep; or NULL */
	volatile sig_atomic_t *stop;
	bool shell_hooks;               /* shell hooks run (they may write: verification forgets) */
	iom_stage_report_fn report;
	void *arg;
	/* the rank the stage is on, of ranks, its short hostname (the hooks' ${rank}, ${ranks},
	 * ${host}; 0, 0 and NULL on one host: 0, 1 and ""), and the invocation (0: run, k: the
	 * k-th resume; the hooks' log names) — the caller's to set after iom_stage_init */
	unsigned rank, ranks, invocation;
	const char *host;

	struct iom_target_info *info;   /* per target; info[t].t == NULL: not prepared */
	char **target_error;            /* why target t cannot be used (NULL: it can) */
	long cur;                       /* the target of the current visit, -1 between visits */

	/* private */
	char *visit_error;              /* the visit failed: its runs fail with this */
	bool *preconditioned;           /* per target: precondition done or not needed */
	bool *written_before;           /* per target: a write run finished in an earlier
					 * invocation (and nothing destroyed it since) */
	bool *changed;                  /* per target: it changed under the sweep (for good) */
	struct iom_target_identity *fs_dev; /* per filesystem target: its device when the sweep
					 * started (fs_dev[t].rdev 0: not pinned) */
	struct iom_verify **verify;     /* per target, made by its first verified run */
	struct iom_verify *cur_verify;  /* of the run between start_run and after_run */
	bool drop_noted, fstrim_noted;
	char **mount_dir;               /* per target: its filesystem's mount point, or NULL */
	struct iom_target *fs_file;     /* per target: the scratch file on it (info[t].t) */
	char **own_uuids;               /* NULL-terminated: filesystems this study made */
	size_t nown;
};

/* Sets up st for plan p: dir the results directory, report the callback (called with arg). */
void iom_stage_init(struct iom_stage *st, const struct iom_plan *p, const char *dir,
		    volatile sig_atomic_t *stop, bool shell_hooks, iom_stage_report_fn report,
		    void *arg);

/*
 * Runs the shell hook of pt, if any and if shell hooks run (0 when not: *ran false), logged as
 * DIR/hooks/<what>.<point>[.resumeK].log under st->dir (pinned by st->own when set), with the
 * study's and the rank's variables, target t's (t < 0: none) and run's (NULL: none). 0, or
 * -errno with the message (naming the log) in err: -EINTR when stopped by a signal.
 */
int iom_stage_hook(struct iom_stage *st, enum iom_hook_point pt, const char *what, long t,
		   const struct iom_run *run, uint64_t timeout_ns, bool *ran, char *err,
		   size_t errlen);
/* The log iom_stage_hook writes for what at pt (heap). */
char *iom_stage_hook_log(const struct iom_stage *st, const char *what, enum iom_hook_point pt);

/* Unmounts what is still mounted and frees what st holds. */
void iom_stage_release(struct iom_stage *st);

/* Whether any cell of target t writes. */
bool iom_stage_target_writes(const struct iom_plan *p, size_t t);

/*
 * Prepares target t (not a filesystem target: those are prepared at their visit) for its runs
 * (iom_target_prepare_stoppable). 0, or -errno with the reason in err, which also makes the
 * target unusable.
 */
int iom_stage_prepare_target(struct iom_stage *st, size_t t, char *err, size_t errlen);

/*
 * Pins the device of filesystem target t as it is now (its number, disk sequence number and
 * size), at the start of the sweep, so that each visit checks before its mkfs that the name
 * still leads to that device. 0, or -errno with the reason in err, which also makes the target
 * unusable.
 */
int iom_stage_pin_device(struct iom_stage *st, size_t t, char *err, size_t errlen);

/* The filesystems an earlier invocation made, from the journal's mkfs details (the texts of
 * IOM_STAGE_MKFS): their UUIDs are this study's own, to be replaced and unmounted. */
void iom_stage_own_from_journal(struct iom_stage *st, char *const *mkfs, size_t n);

/* A write run of target t finished in an earlier invocation: its precondition was done. */
void iom_stage_set_written(struct iom_stage *st, size_t t);

/* Target t is no longer what was prepared (iom_target_open said -ESTALE, reason): its
 * remaining runs fail (IOM_STAGE_CHANGED). */
void iom_stage_target_changed(struct iom_stage *st, size_t t, const char *reason);

/*
 * Begins a visit to target t: its filesystem made and mounted (a filesystem target), then
 * fstrim or discard (hooks.fstrim). 0 when the visit goes on (the caller runs before_target);
 * -errno when the target cannot be visited (its runs fail: the reason is recorded).
 */
int iom_stage_begin_visit(struct iom_stage *st, size_t t);

/* The visit failed (before_target failed with reason): its runs fail with it. */
void iom_stage_fail_visit(struct iom_stage *st, const char *reason);

/* The watchdog of a run: timing.timeout, or twice the expected time plus 60 s (a bytes-bound
 * window counted at 1 MB/s; a steady warm-up at its warmup_max). */
uint64_t iom_stage_run_timeout_ns(const struct iom_timing *tm);

/*
 * What comes before the run (its target's visit begun): the target usable and its visit not
 * failed, the precondition, drop_caches. 0, or -errno with the reason in err (the run fails;
 * -EINTR: interrupted by the stop flag).
 */
int iom_stage_before_run(struct iom_stage *st, const struct iom_run *run, char *err,
			 size_t errlen);

/*
 * Arms data verification for the run on spec (its region and spec->wl set): a
 * verified run gets its target's verifier as spec->hooks (hooks: the caller's storage, kept
 * until iom_stage_after_run). A non-verified run that writes, or any shell hook, makes the
 * verifier forget which sectors it knows are written. 0, or -EINVAL with the reason.
 */
int iom_stage_start_run(struct iom_stage *st, const struct iom_run *run, struct iom_run_spec *spec,
			struct iom_worker_hooks *hooks, char *err, size_t errlen);

/* The descriptors of a target with several paths, for one run. */
struct iom_stage_paths {
	int *fds;                 /* fds[0] is the caller's (path 0's); the others are opened */
	uint64_t *regions;
	const char **paths;       /* the infos' resolved paths (borrowed) */
	unsigned n;               /* 0: the target has one path (nothing opened) */
};

/*
 * For a target t with several paths: opens paths 1.. as fd0 was opened for path 0
 * (iom_target_open_sync with direct, writes and dsync: each checked against its pinned
 * identity) and points spec's fds, regions, paths and npaths at ps. Nothing for a target with
 * one path. 0, or -errno with err naming the path (-ESTALE: the target changed, marked so);
 * then nothing is left open but fd0. Close with iom_stage_close_paths (not fd0).
 */
int iom_stage_open_paths(struct iom_stage *st, size_t t, int fd0, bool direct, bool writes,
			 bool dsync, struct iom_stage_paths *ps, struct iom_run_spec *spec,
			 char *err, size_t errlen);
void iom_stage_close_paths(struct iom_stage_paths *ps);

/* Puts the verification of the run just executed into r; mismatches fail it. */
void iom_stage_after_run(struct iom_stage *st, struct iom_run_result *r);

/*
 * One run on this host: the one path of the single-host tool, rank 0 and the followers
 * (sweep.c and hosts.c). What the caller adds around it comes through ops (any may be NULL).
 */
struct iom_stage_run_ops {
	/* after iom_stage_before_run: many hosts' ready point, the before_run hook. 0, or
	 * -errno with err: the run fails (-EINTR: interrupted) */
	int (*before)(void *arg, const struct iom_run *run, char *err, size_t errlen);
	/* the spec built, before the run starts: a share's rate derived, the live figures, the
	 * hosts' sync points armed. 0, or -errno with err: the run fails */
	int (*arm)(void *arg, const struct iom_run *run, struct iom_run_spec *spec, char *err,
		   size_t errlen);
	/* around iom_run_execute (started true, then false): the progress ticker */
	void (*running)(void *arg, bool started);
	/* after a run that is ok: the after_run hook. 0, or -errno with err: the run fails */
	int (*after)(void *arg, const struct iom_run *run, char *err, size_t errlen);
	void *arg;
};

/*
 * Runs run on this host into r (which it fills; release it with iom_run_result_release):
 * before_run (the target usable, the precondition, drop_caches), ops->before, the open through
 * the identity checks (every path of the target), the spec from the cell (engine policy,
 * access lines, paths, offered load, think time, flushes, trims, data, steady warm-up, the
 * watchdog of iom_stage_run_timeout_ns), its trace in trace_dir/traces/ (none: trace_dir NULL
 * or the matrix traces nothing), ops->arm, verification, the run, ops->after. Never fails as
 * such: a failure is r's status and error.
 */
void iom_stage_run(struct iom_stage *st, const struct iom_run *run, const char *trace_dir,
		   const struct iom_stage_run_ops *ops, struct iom_run_result *r);

/* Ends the current visit (none: nothing): its filesystem unmounted. */
void iom_stage_end_visit(struct iom_stage *st);

/* The shell hook of a point (NULL when unset). */
const char *iom_stage_hook_cmd(const struct iom_matrix *m, enum iom_hook_point pt);

/* ---- what `iomatrix plan` prints about hooks and built-ins --------------------------------- */

/* The hooks and built-ins of a study. */
struct iom_stage_desc {
	const char *cmd[IOM_HOOK_COUNT]; /* templates; NULL when unset */
	bool allowed;                    /* --allow-hooks was given */
	bool drop_caches;                /* before each run */
	bool fstrim;                     /* before each target's first run */
	const char *precondition;        /* bytes as written ("2x", "64G"); NULL: none */
};

/* Fills d (the caller's; pointers borrowed from m). */
void iom_stage_desc_of(const struct iom_matrix *m, bool allowed, struct iom_stage_desc *d);

/* Whether d has anything to describe. */
bool iom_stage_desc_any(const struct iom_stage_desc *d);

/* Writes the "hooks:" and "preparation:" sections of the plan text (nothing when there is
 * nothing). 0 or -errno. */
int iom_stage_describe(FILE *out, const struct iom_stage_desc *d);

/* ---- built-ins --------------------------------------------------------------------------- */

/*
 * sync, then writes "3" to /proc/sys/vm/drop_caches (page cache, dentries and inodes). 0;
 * IOM_STAGE_SKIP when not permitted (not root, or a read-only /proc in a container), with a
 * message saying so; -errno on another failure.
 */
int iom_stage_drop_caches(char *msg, size_t msglen);

/*
 * Trims the free space of the filesystem mounted at mount_point (FITRIM, as fstrim(8) does);
 * *trimmed gets the bytes the filesystem reports (may be NULL). 0; IOM_STAGE_SKIP when the
 * filesystem or its device does not support it or it is not permitted; -errno otherwise.
 */
int iom_stage_fstrim(const char *mount_point, uint64_t *trimmed, char *msg, size_t msglen);

/*
 * Discards [offset, offset + length) of the block device device, open for writing as fd
 * (BLKDISCARD; length 0: to its end) — the raw-device counterpart of fstrim, destroying the
 * data there: fd comes from iom_target_open() of a destructive device (checked, held O_EXCL).
 * 0; IOM_STAGE_SKIP when the device does not support discard; -errno otherwise.
 */
int iom_stage_discard(int fd, const char *device, uint64_t offset, uint64_t length, char *msg,
		      size_t msglen);

struct iom_precondition {
	uint64_t region;        /* the region [0, region) of the target */
	uint64_t bytes;         /* bytes to write, wrapping to 0 at the region's end */
	uint32_t block_size;    /* bytes per write (a multiple of 4096); 0: 1 MiB */
	uint64_t seed;          /* of the (incompressible) data */
	/* Called at most every 250 ms, and once at the end with done == total; may be NULL. */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *arg;
	volatile sig_atomic_t *stop; /* when it becomes set, the fill stops (-EINTR) */
};

/*
 * Fills the target at path, open for writing as fd (from iom_target_open(): nothing is
 * created, extended or truncated), with exactly pc->bytes of sequential writes from offset 0,
 * wrapping at the region's end (iom_target_fill, O_DIRECT where the target takes it), then
 * fdatasync. The data is random, and every 4 KiB differs, so neither compression nor
 * deduplication shortens it. *written (may be NULL) gets the bytes written, also on failure.
 * Not measured. 0; -EINTR when stopped; -errno with a message naming the path and offset.
 */
int iom_stage_precondition(int fd, const char *path, const struct iom_precondition *pc,
			   uint64_t *written, char *err, size_t errlen);

#endif
