/* SPDX-License-Identifier: MIT */
/*
 * run — one run: start the workers, warm up, measure, cool down, stop, and turn what the
 * workers counted into one struct iom_run_result (result.h).
 *
 * The caller prepares and opens the target (target.h) and hands the open fd and its region in
 * the spec, with the cell's values, the timing, the seed and the IRQ lines to count; run.c
 * knows nothing of matrix files, plans or results directories. A run that fails (an I/O error,
 * an engine that cannot be set up) is reported, never fatal: the caller decides what follows.
 */
#ifndef IOM_RUN_H
#define IOM_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "keys.h"
#include "matrix/matrix.h"
#include "result/result.h"
#include "worker.h"

struct iom_own_dir;

struct iom_cell;

/* What a run leaves for a host backend's aggregate (hosts.h): its merged histograms and its
 * measured window in this host's monotonic clock. */
struct iom_run_hosts_out {
	struct iom_hist hist[IOM_NDIR];
	uint64_t t0_ns, t1_ns;
	/* the 1-second intervals, to be summed with the other hosts': niv rows of
	 * IOM_RUN_IV_WORDS — read and write I/Os, read and write bytes, then the latencies in
	 * hist.h's IOM_HIST_COARSE groups (heap, the backend frees it; NULL: none) */
	uint64_t *iv_rows;
	size_t niv;
	/* each access line's latencies (heap, nlines; the backend frees them; NULL: no spec) and
	 * the flushes' and trims' ([0], [1]; empty when the cell has neither) */
	struct iom_hist *line_hist;
	size_t nlines;
	struct iom_hist xhist[2];
};
#define IOM_RUN_IV_WORDS (4 + IOM_HIST_COARSE)

/* What a run has measured so far (see iom_run_spec.live); read with __atomic_load_n. */
struct iom_run_live {
	uint64_t ios;
	uint64_t ns;
};

struct iom_run_spec {
	/* The target: an open fd (the caller's; O_DIRECT when wl.direct) and the region
	 * [0, region). */
	int fd;
	uint64_t region;
	/* Driver names of the target's IRQ lines in /proc/interrupts (cpu.h; comma-separated,
	 * e.g. the target facts' irq_names or driver); NULL: interrupts are not counted. */
	const char *irq_drivers;
	/* The whole disk under the target ("/dev/vda": the target facts' device), whose request
	 * counters (reads, writes, discards, flushes) the result gives over the measured window;
	 * NULL: not read. */
	const char *disk;

	/* The cell's workload values (block size, queue depth, threads, read %, pattern, engine,
	 * direct, verify: keys.h); wl.verify is the caller's, which turns it into hooks. */
	struct iom_workload wl;

	/* warmup_ns, then exactly one of duration_ns and bytes, then cooldown_ns; rest_ns and
	 * repeat belong to the caller. timeout_ns is the watchdog as given (0: none; the caller
	 * works out the default): past it the run fails as timed out, and workers that do not
	 * exit within 2 s more are abandoned (see run.c). */
	struct iom_timing timing;
	uint64_t seed;
	uint32_t index, repetition;     /* copied into the result */

	/* Worker thread i runs on CPU cpus[i % ncpus] (ncpus 0: wherever the scheduler puts it);
	 * the controller and the trace writer are not pinned. */
	const unsigned *cpus;
	unsigned ncpus;

	/* When *stop becomes non-zero the run ends early, marked IOM_RUN_INTERRUPTED. May be NULL. */
	volatile sig_atomic_t *stop;

	/* Tuning, tests and later modules; all zero/NULL in ordinary use. */
	unsigned engine_flags;          /* IOM_ENGINE_NO_* */
	struct iom_policy policy;       /* zero: the measured defaults of worker.h */
	const struct iom_worker_hooks *hooks;
	/* When set, the controller stores here, at each interval of the measured window, the I/Os
	 * counted so far and the window's age in ns (relaxed atomic stores, for a progress display
	 * in another thread; costs the hot path nothing). */
	struct iom_run_live *live;
	/* When set, called on the controller's thread with each interval of the measured window
	 * as it is made (k: its index; its latencies filled in), for live files of the sweep.
	 * The last interval of a bytes-bound window may grow after its call, by the window's
	 * tail. */
	void (*on_interval)(void *arg, const struct iom_interval *iv, size_t k);
	void *interval_arg;

	/* When set, every I/O of the run (warm-up, measured, cool-down) is streamed to this
	 * compressed trace (trace.h); cell_text describes the cell in its header. */
	const char *trace_path;
	const struct iom_own_dir *trace_dir; /* the pinned directory trace_path is under, or NULL */
	const char *cell_text;

	/* The access specification of wl.access (the matrix's; must outlive the run),
	 * NULL for none: each I/O picks one of its lines (worker.h); the result then has per-line
	 * figures (result.h, lines). */
	const struct iom_access_spec *access;

	/* A target with several paths: npaths (>= 2) open fds, their regions and
	 * their names (for the result); worker thread i works on path i % npaths, in its own
	 * region, its sequential slice among that path's threads. fd and region above are path
	 * 0's. npaths 0: the one fd. */
	const int *fds;
	const uint64_t *regions;
	const char *const *paths;
	unsigned npaths;

	/* Many hosts (hosts.h); all NULL on one host. sync is called before the warm-up (point
	 * 0) and before the measured window (point 1), on the calling thread; a failure fails
	 * the run with its message. Point 1 is called sync_early_ns before a timed warm-up's end,
	 * which it gets as not_before (this host's monotonic clock; 0 for the other points and
	 * a steady warm-up's end): the window starts at the instant agreed, never before it, so
	 * the hosts agree on it while the warm-up goes on. Point 2, once the window has started
	 * (its start taken), tells the backend so; its outcome is ignored. hosts_out, when set,
	 * gets the run's histograms and window. */
	int (*sync)(void *arg, unsigned point, uint64_t not_before, char *err, size_t errlen);
	void *sync_arg;
	uint64_t sync_early_ns;
	/* Stonewalling of a bytes-bound window (IOR's rule; hosts.h): called (with sync_arg) as
	 * the window goes on, self_done once this host's share is complete; true when another host
	 * has completed its share, which ends this host's window now (out->stonewalled). */
	bool (*stonewall)(void *arg, bool self_done);
	struct iom_run_hosts_out *hosts_out;
};

/* Copies the workload values of cell c into s->wl, by the key table (every workload key lands
 * at its row's place in struct iom_workload); leaves everything else as it is. */
void iom_run_spec_set_cell(struct iom_run_spec *s, const struct iom_cell *c);

/*
 * Executes one run as spec says and fills out (the caller's storage, overwritten; release it
 * with iom_run_result_release() whatever the return). Returns 0 with status IOM_RUN_OK; -EINTR
 * with status IOM_RUN_INTERRUPTED when *spec->stop was set (out holds what was measured until
 * then); or -errno with status IOM_RUN_FAILED, the reason in out->error and in err — for an I/O
 * error it names the operation, the offset and the error ("write at offset 1048576 failed: No
 * space left on device").
 */
int iom_run_execute(const struct iom_run_spec *spec, struct iom_run_result *out, char *err,
		    size_t errlen);

/*
 * Judges a measured window of window_ns (see run.c): gap_ns is the longest time no I/O
 * completed, from gap_at_ns into the window; asked_ns the duration asked (0: bytes-bound). A gap
 * of IOM_STALL_GAP_NS or more, or a window more than IOM_STALL_OVERRUN_PCT (and at least
 * IOM_STALL_OVERRUN_MIN_NS) longer than asked, is a stall. Overwrites st; when stalled, st->reason is new heap text (the result owns it, freed by
 * iom_run_result_release()). Returns st->stalled.
 */
bool iom_run_judge_stall(uint64_t gap_ns, uint64_t gap_at_ns, uint64_t window_ns,
			 uint64_t asked_ns, struct iom_run_stall *st);

#endif
