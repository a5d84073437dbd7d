/* SPDX-License-Identifier: MIT */
/*
 * hosts — many hosts, one study (docs/hosts.md): what the sweep does through a host backend.
 *
 * A host backend (host_mpi.c, built only into iomatrix-mpi: the one file that includes
 * <mpi.h>) gives a handful of collective operations (struct iom_hosts_ops); this module, which
 * knows nothing of MPI, builds the study's logic on them:
 *   - the matrix file of rank 0 shared with every rank (each parses and plans it the same way;
 *     the plan hashes must agree), ${host} and ${rank} in target paths;
 *   - the preflight outcome of every rank reduced: a refusal anywhere stops the sweep before
 *     any write, naming the rank and host;
 *   - the followers' sweep (ranks > 0): each run rank 0 names next run through the same
 *     iom_stage_run as sweep.c's;
 *   - each run's figures gathered: totals summed, histograms merged bucket by bucket, the
 *     window from the first start to the last end, per-host rows with stragglers flagged (and
 *     each rank's access lines, paths, offered load, flushes and trims, merged alike), and
 *     the followers' traces written into rank 0's traces/NNNNN.rR.trace.gz;
 *   - each run's offered load split over the ranks as rate_scope says (rank 0 derives a share
 *     of the max and sends it with the run's index);
 *   - the shell hooks on every rank (hooks.where = "every"): a before_run outcome agreed by
 *     all, the followers' logs sent to rank 0; and each follower's journal of what it did,
 *     kept for a resume and copied to rank 0 at the end.
 * Every rank makes the same collective calls in the same order: the two run.c sync points of
 * a run are made up (as "failed") by iom_hosts_run_end when the run never reached them.
 */
#ifndef IOM_HOSTS_H
#define IOM_HOSTS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hist.h"
#include "ownfile.h"
#include "plan.h"
#include "preflight.h"
#include "result/result.h"
#include "run/run.h"

/* The collective operations of a backend; each returns 0 or -errno (message in err). */
struct iom_hosts_ops {
	/* rank 0's len bytes of buf to every rank */
	int (*bcast)(void *ctx, void *buf, size_t len);
	/* *v becomes the maximum of every rank's */
	int (*allmax)(void *ctx, uint64_t *v);
	/* every rank's len bytes of mine into rank 0's all (size × len; ignored elsewhere) */
	int (*gather)(void *ctx, const void *mine, size_t len, void *all);
	/* n histograms merged bucket by bucket into rank 0's h */
	int (*merge_hist)(void *ctx, struct iom_hist *h, size_t n);
	/* n counters summed over the ranks into rank 0's v (the intervals of a run); may be NULL:
	 * the aggregate's intervals are then rank 0's */
	int (*sum_u64)(void *ctx, uint64_t *v, size_t n);
	/* a run's sync point (0: before the warm-up, 1: before the measured window): every rank
	 * arrives, ok or not (a rank that failed sits the run out, the others go on); clock
	 * offsets to rank 0 measured; at point 1 every rank returns at the agreed start of the
	 * window, which is never before any rank's not_before (point 1: the end of its warm-up,
	 * 0: none); -errno with err when the ranks lost each other. Point 2 is no collective: the
	 * window has started, its start taken (the backend lets go of what it held for it) */
	int (*sync)(void *ctx, unsigned point, uint64_t not_before, bool ok, char *err,
		    size_t errlen);
	/* how long before a timed warm-up's end to call sync point 1, so that the window can
	 * start at that end (the start's margin and the sync's own time); may be NULL: at it */
	uint64_t (*early_ns)(void *ctx);
	/* this rank's clock minus rank 0's (monotonic), as last measured */
	int64_t (*offset_ns)(void *ctx);
	/* a follower's file to rank 0 (path NULL: none); rank 0 receives rank from's into path,
	 * reached through its pinned results directory rd (nothing written when the follower
	 * sent none: *got false; rd NULL: received and dropped, -ENOENT) */
	int (*send_file)(void *ctx, const char *path);
	int (*recv_file)(void *ctx, unsigned from, const struct iom_own_dir *rd, const char *path,
			 bool *got);
	/* stonewalling (a bytes-bound window): self_done announces this rank's share complete to
	 * the others (once); true when another rank's announcement has arrived. stonewall_end,
	 * after every run on every rank, collects what is still in flight. */
	bool (*stonewall)(void *ctx, bool self_done);
	int (*stonewall_end)(void *ctx);
	/* the agreed start of the last measured window (sync point 1), in this rank's monotonic
	 * clock; 0 when none. May be NULL. */
	uint64_t (*start_ns)(void *ctx);
	/* deadlines: the current run's allowance (0: none, between runs); its ready point, where
	 * every rank arrives when its precondition is done (no deadline), starts it: each later
	 * operation of the run must complete within allow_ns, else the ranks that keep it waiting
	 * are lost: the operation fails with -ETIMEDOUT, as every later one at once, and lost
	 * names them ("rank 1 (host vm2) did not answer …"; NULL while none is). The three may be
	 * NULL (a backend that cannot lose a rank). */
	void (*deadline)(void *ctx, uint64_t allow_ns);
	int (*ready)(void *ctx, char *err, size_t errlen);
	const char *(*lost)(void *ctx);
};

/* The hosts of a study: this rank among size. NULL (or size 1): this host alone. */
struct iom_hosts {
	unsigned rank, size;
	char host[64];                /* the short hostname */
	const struct iom_hosts_ops *ops;
	void *ctx;
	char *private_dir;            /* a follower's scratch directory (its traces, mkfs logs) */

	bool agreed;                  /* every rank passed preflight: the followers wait */

	/* private: of the current run */
	bool readied;                 /* its ready point passed (iom_hosts_ready) */
	unsigned synced;              /* sync points passed */
	struct iom_run_hosts_out out; /* what run.c left for the aggregate */
	bool rate_failed;             /* its offered load on this rank (iom_hosts_next) */
	int64_t rate_iops, rate_mb_s;

	/* shell hooks on every rank (hooks.where = "every"): --allow-hooks given (the caller
	 * sets it), the invocation (rank 0's: the collected logs' names), whether the current
	 * run's before_run outcome is agreed (hook_agree) and was (hook_agreed), and a
	 * follower's logs not yet sent to rank 0 (heap paths) */
	bool hooks_allowed;
	unsigned invocation;

	/* the followers' journals (docs/hosts.md, "Faults and resume"): the study's first start
	 * (rank 0 sets it before the first run; it names their journals), and whether the study
	 * ended complete (they remove theirs then) */
	uint64_t study_ns;
	bool complete;
	bool hook_agree, hook_agreed;
	char **pending;
	size_t npending;

	/* placement (hosts = "each", ranks, a target's hosts): every rank's short hostname
	 * (heap, size; the backend fills it), and the current run's cell (iom_hosts_begin_run) */
	char **names;
	const struct iom_plan *plan;
	const struct iom_cell *cell;

	/* provenance per host (the rows' cpu_model and device): read once, and per run the
	 * device under its target (iom_hosts_arm, from the spec's disk) */
	char cpu_model[96];
	char device[160];
	char driver[32], scheduler[32];
};

/* Whether this process was started by mpirun/srun with more than one rank (the
 * OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK environment). */
bool iom_hosts_launched_many(void);

/* Whether this rank's standard output reaches a terminal: under mpirun it is a pseudo-terminal
 * even when mpirun's own output goes to a file or a pipe, so the launcher's (the parent's) is
 * asked too; unknown (no /proc, a remote launcher's gone): not a terminal. */
bool iom_hosts_stdout_is_tty(void);

/* Replaces ${host} and ${rank} in every target path of m with h's (h NULL: rank 0 and this
 * host's short name). */
void iom_hosts_expand_paths(const struct iom_hosts *h, struct iom_matrix *m);

/* Rank 0's file at path shared with every rank: on the others it is written into their private
 * directory, *local (heap) its name there; rank 0's *local is a copy of path. */
int iom_hosts_share_file(struct iom_hosts *h, const char *path, char **local, char *err,
			 size_t errlen);

/* `plan` under MPI: where every target of m (paths expanded on each rank) lives, rank by rank,
 * written by rank 0 to out ("targets by rank:" then "  rank R (host H): label path"). */
int iom_hosts_describe_targets(struct iom_hosts *h, const struct iom_matrix *m, FILE *out);

/* Whether every rank planned the same study (hash): -EINVAL with err when not. */
int iom_hosts_agree_plan(struct iom_hosts *h, uint64_t hash, char *err, size_t errlen);

/* The preflight outcomes of every rank (pf: this rank's), with, on each rank, the write checks
 * of its block devices that will be written (iom_target_check_writable: not mounted, no
 * signature, …; read-only), which one host makes only when it prepares them: -EPERM with err
 * naming each rank and host that refused, and its first problem, on every rank; 0 when none
 * did. */
int iom_hosts_agree_preflight(struct iom_hosts *h, const struct iom_plan *p,
			      const struct iom_preflight *pf, char *err, size_t errlen);

/* What rank 0 tells every rank before each run: which, and its offered load on each rank. */
struct iom_hosts_next_msg {
	uint32_t index;          /* 0: the end */
	uint32_t rate_failed;    /* rank 0 could not derive the run's rate (a share of a max) */
	int64_t rate_iops, rate_mb_s;
	uint64_t study_ns;       /* the study's first start: the followers' journals' name */
	uint32_t complete;       /* the end: the study is complete */
};

/* Tells the followers what to run next (rank 0): run of plan p (NULL: the end), with its
 * offered load as rank 0 derived it (rate_ret < 0: it could not, and the run fails on every
 * rank), each rank's part of it (rate_scope, docs/hosts.md) kept for iom_hosts_arm. */
int iom_hosts_next(struct iom_hosts *h, const struct iom_plan *p, const struct iom_run *run,
		   int rate_ret, int64_t rate_iops, int64_t rate_mb_s);

/* Whether rank takes part in cell c of plan p: hosts = "each", when it is the cell's host;
 * ranks = N, when it is one of the first N. (Every rank of a plain together cell.) */
bool iom_hosts_takes_part(const struct iom_plan *p, const struct iom_cell *c, unsigned rank);

/* The run every rank is about to make (before its stage calls): which ranks do its I/O. */
void iom_hosts_begin_run(struct iom_hosts *h, const struct iom_plan *p, const struct iom_run *run);

/* The current run's ready point, after this rank's precondition (iom_stage_before_run): every
 * rank arrives, however long theirs took; from here on the run has its deadline. 0, or
 * -ETIMEDOUT with err when a rank was lost. */
int iom_hosts_ready(struct iom_hosts *h, char *err, size_t errlen);

/* Why the ranks lost each other (a rank stopped or gone past a deadline), or NULL. */
const char *iom_hosts_lost(const struct iom_hosts *h);

/* Whether this rank sits the current run out (it only keeps the collective calls in step). */
bool iom_hosts_sits_out(const struct iom_hosts *h);

/* Whether the shell hooks of m run on every rank (hooks.where = "every", --allow-hooks). */
bool iom_hosts_hooks_everywhere(const struct iom_hosts *h, const struct iom_matrix *m);

/* The current run's before_run hook outcome on this rank (ret: 0, or -errno with err) agreed
 * with every rank's when its hooks run everywhere: -ECANCELED with err naming the first rank
 * whose hook failed, when another's did; ret when this one's did. (Made up by
 * iom_hosts_run_end for a rank that never got there.) */
int iom_hosts_agree_hook(struct iom_hosts *h, int ret, char *err, size_t errlen);

/* A hook log a follower wrote (path, copied), for iom_hosts_collect_logs. */
void iom_hosts_add_log(struct iom_hosts *h, const char *path);

/* Every follower's hook logs not sent yet into rank 0's dir/hooks/, each named as the
 * follower named it with its rank (and rank 0's invocation) before ".log":
 * "00003.before_run.r2.log" (collectively, when m's hooks run everywhere; nothing else).
 * On rank 0, rd is the results directory dir, pinned: every file it writes is reached through
 * it, never through a link (NULL on a follower). 0 or -errno. */
int iom_hosts_collect_logs(struct iom_hosts *h, const struct iom_matrix *m,
			   const struct iom_own_dir *rd, const char *dir);

/* The followers' journals at the end of the sweep, collectively: each into rank 0's
 * dir/journal.rK (the journal of what rank K did: its runs, mkfs, precondition and fstrim
 * notes, over every invocation), through rd as iom_hosts_collect_logs. 0 or -errno. */
int iom_hosts_collect_journals(struct iom_hosts *h, const struct iom_own_dir *rd,
			       const char *dir);

/* Arms spec for a run under h: the sync points, what run.c leaves for the aggregate, and this
 * rank's part of the run's offered load (iom_hosts_next). -ENOENT with err when rank 0 could
 * not derive the load. */
int iom_hosts_arm(struct iom_hosts *h, struct iom_run_spec *spec, char *err, size_t errlen);

/*
 * After every rank's run (also one that failed before it started): the ready and sync points
 * it missed made up, the figures gathered; on rank 0, r becomes the aggregate with one row per
 * host and the followers' traces land in dir/traces/NNNNN.rR.trace.gz, reached through rd (the
 * results directory dir, pinned; NULL on a follower). 0 or -errno; -ETIMEDOUT
 * when a rank was lost (iom_hosts_lost): r failed with why, on every rank, and the study cannot
 * go on (the job ends).
 */
int iom_hosts_run_end(struct iom_hosts *h, const struct iom_own_dir *rd, const char *dir,
		      struct iom_run_result *r);

/* Folds rows (n, one per host, rank order) and the merged histograms hist into r (rank 0's
 * result): the aggregate's totals, window, rates, latency and CPU, stragglers flagged, r owns
 * a copy of the rows. */
void iom_hosts_aggregate(struct iom_run_result *r, const struct iom_host_row *rows, size_t n,
			 const struct iom_hist hist[IOM_NDIR]);

/* A host's row of its own result r, window [t0, t1] in its monotonic clock. */
void iom_hosts_row_of(const struct iom_hosts *h, const struct iom_run_result *r, uint64_t t0,
		      uint64_t t1, const struct iom_hist hist[IOM_NDIR], struct iom_host_row *row);

/*
 * `trace --merge`: the traces of every rank of the run whose trace path is (any rank's
 * DIR/traces/NNNNN.rR.trace.gz), decoded in time order with the offsets recorded in
 * DIR/runs/NNNNN.json, to out (NULL or "-": standard output) as CSV
 * "time_ns,rank,latency_ns,op,offset,bytes,thread": time_ns in rank 0's monotonic clock, after
 * the start of rank 0's trace. measured_only: only the measured window's records. 0 or -errno.
 */
int iom_hosts_trace_merge(const char *path, const char *out, bool measured_only, char *err,
			  size_t errlen);

/* A follower's sweep (rank > 0): prepares its targets, then runs what rank 0 names until it
 * names the end. 0 or -errno with err. */
int iom_hosts_follow(struct iom_hosts *h, const struct iom_plan *p, volatile sig_atomic_t *stop,
		     bool no_trace, char *err, size_t errlen);

#endif
