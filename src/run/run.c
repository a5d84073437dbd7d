/* SPDX-License-Identifier: MIT */
/*
 * run — the controller of one run (design of the whole in run.h, of the workers in worker.h).
 *
 * The calling thread is the controller; it does no I/O. In order:
 *   1. start `threads` workers (signals blocked in them, so a handler runs in the caller's
 *      thread) and wait at the gate until each has set up its buffers and engine — an engine
 *      that cannot be set up fails the run before any I/O;
 *   2. warm-up: open the gate with the phase WARMUP and sleep warmup_ns;
 *   3. the measured window: CPU sample, start time, phase MEASURE; every IOM_INTERVAL_NS sum
 *      the workers' live counters into an interval (the array doubles as it grows: 32 bytes per
 *      second of run, so memory stays flat); the window ends at duration_ns, or — bytes-bound —
 *      when every worker has completed its share (the end is the last share's completion);
 *   4. phase COOLDOWN, CPU sample, then wait until every worker has acknowledged it: from then
 *      on their counts are final, so the intervals add up exactly to the totals;
 *   5. cool-down: sleep cooldown_ns; then phase STOP: workers stop submitting, drain what is in
 *      flight and exit; join them;
 *   6. merge the per-thread histograms exactly and fill the result.
 * Between the steps and every POLL_NS while sleeping, the controller checks the stop flag
 * (→ IOM_RUN_INTERRUPTED) and the workers' states (a failed worker → IOM_RUN_FAILED with its
 * message), and the watchdog: past spec->timing.timeout_ns (0: none) the run is failed as timed
 * out. Workers whose I/O hangs in the kernel cannot be cancelled portably: after the phase STOP
 * they get WATCHDOG_GRACE_NS to drain and exit; those that do not are detached and abandoned,
 * with everything they point to (the controller's state, their engines and buffers, the trace)
 * left allocated, so they can never touch freed memory. They exit by themselves when their I/O
 * completes, and the process can still exit (exit_group ends them; a thread in uninterruptible
 * I/O delays that until the device answers).
 *
 * CPU cost is taken over the sampling window, which is the measured window give or take the
 * controller's wake-up; the per-I/O figures scale the CPU rate to the measured window
 * (us_per_io = process CPU seconds / sampling seconds × window seconds / I/Os). The mean queue
 * depth is the area under the in-flight curve divided by the window: the sum of the counted
 * latencies over the window length (Little's law; it costs the hot path nothing). It counts
 * I/Os as iomatrix sees them, from submission until reaped; with the default policy (wait for
 * a quarter of the queue) the device itself has between 3/4 and all of them at any moment.
 *
 * Intervals are the wall-clock seconds of the measured window: interval k is [t0 + k s,
 * t0 + (k+1) s), the last one ends with the window (a remainder under a tenth of a second joins
 * the second before), so a window of w seconds has about w intervals whatever happened in it.
 * Each holds what the workers had counted when the controller took it, at the second's end, give
 * or take its wake-up; when the controller wakes more than a second late (the whole process was
 * stopped, or this thread starved), what it finds goes into the first second it missed and the
 * other missed seconds read 0. Together they add up exactly to the totals. The IOPS and MB/s
 * spread (iops_stddev, mb_s_stddev: sample stddev) is taken over the full intervals (a second,
 * give or take 1 %), empty seconds included, and is NaN with fewer than two. Each interval
 * records its real length (the last ends with the window), so its rate is its I/O over it.
 *
 * Stalls (result.h, struct iom_run_stall). Each worker keeps the reap stamps of its counted
 * completions: the first, the last and the longest time between two in a row. Its longest
 * stretch without a completion is the longest of: window start → first, that gap, and last →
 * window end (not for a thread whose bytes share is complete: it has nothing outstanding that
 * counts). Every worker always has I/O outstanding in the window (it refills before it waits;
 * for psync and null, "outstanding" is the loop itself, which is never idle), so a stretch in
 * which no thread completed anything is a stall of the I/O or of the process: its length is the
 * overlap of the threads' longest stretches (never more than the truth; a thread that starves
 * for CPU while the others complete does not count, so 1024 threads on 2 CPUs are not a stall).
 * An overlap of IOM_STALL_GAP_NS or more, or a duration-bound window more than
 * IOM_STALL_OVERRUN_PCT (and IOM_STALL_OVERRUN_MIN_NS) longer than asked, marks the run stalled. Warm-up and cool-down are not
 * looked at.
 *
 * Memory whose size the matrix sets (the worker table, each thread's histograms, buffers, slot
 * tables and engine queues) comes through util.h's graceful path: when it is not there the run
 * fails with what it asked for ("cannot allocate 4096 I/O slots × 1024 threads (16384 MiB with
 * 4096-byte blocks) for run 3: out of memory (thread 517: 16.0 MiB of I/O buffers …)"), as it
 * does when a worker thread cannot be started; nothing aborts. The threads free their buffers
 * as they exit, so the result is made with that memory back.
 */
#include "run.h"
#include "run_in.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpu.h"
#include "hist.h"
#include "plan.h"
#include "trace/trace.h"
#include "units.h"
#include "util.h"

#define POLL_NS 10000000ull   /* 10 ms: how late a stop, failure or finished share is noticed */
#define ACK_POLL_NS 100000ull /* 0.1 ms while waiting for the workers to acknowledge a phase */
#define WATCHDOG_GRACE_NS 2000000000ull /* a timed-out run's workers' time to drain and exit */

void iom_run_spec_set_cell(struct iom_run_spec *s, const struct iom_cell *c)
{
	for (size_t i = 0; i < iom_nkeys; i++)
		if (iom_keys[i].dim > IOM_DIM_TARGET && iom_keys[i].size)
			iom_key_store(&iom_keys[i], &s->wl, c->v[iom_keys[i].dim]);
}

enum wake { WAKE_TIME, WAKE_STOP, WAKE_FAILED, WAKE_DONE, WAKE_TIMEOUT };

static bool timed_out(const struct ctl *c)
{
	return c->watchdog && iom_now_ns() >= c->watchdog;
}

static bool stop_requested(const struct ctl *c)
{
	/* An atomic load of the flag a signal handler (or another thread) sets. */
	return c->spec->stop && __atomic_load_n(c->spec->stop, __ATOMIC_RELAXED);
}

static int state_of(const struct iom_worker *w)
{
	return atomic_load_explicit(&w->live.state, memory_order_acquire);
}

/* What woke the controller: a stop request, a failed worker, or (bytes-bound, done_ok) every
 * worker having completed its share. */
static enum wake check(const struct ctl *c, bool done_ok)
{
	unsigned i, done = 0;

	if (stop_requested(c))
		return WAKE_STOP;
	if (timed_out(c))
		return WAKE_TIMEOUT;
	for (i = 0; i < c->nstarted; i++) {
		int s = state_of(&c->w[i]);

		if (s == IOM_WORKER_FAILED)
			return WAKE_FAILED;
		done += s == IOM_WORKER_DONE;
	}
	return done_ok && done == c->nstarted ? WAKE_DONE : WAKE_TIME;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000u),
			       .tv_nsec = (long)(t % 1000000000u) };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL); /* EINTR: checked by caller */
}

/* Sleeps until deadline (monotonic ns), waking every POLL_NS to check. */
static enum wake wait_until(const struct ctl *c, uint64_t deadline, bool done_ok)
{
	for (;;) {
		enum wake why = check(c, done_ok);
		uint64_t now;

		if (why != WAKE_TIME)
			return why;
		now = iom_now_ns();
		if (now >= deadline)
			return WAKE_TIME;
		sleep_until(IOM_MIN(deadline, now + POLL_NS));
	}
}

static void set_phase(struct ctl *c, int phase)
{
	atomic_store_explicit(&c->phase, phase, memory_order_release);
}

/* Appends an interval of len ns holding ios and bytes (NULL: an empty second). The array grows
 * by doubling: 40 bytes per second of window (7 days, the longest duration, is 24 MB). */
static void push_interval(struct ctl *c, uint64_t len, const uint64_t *ios, const uint64_t *bytes)
{
	struct iom_interval *iv;
	unsigned d;

	if (c->niv == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->iv = xrealloc(c->iv, c->cap * sizeof(*c->iv));
		c->iv_ns = xrealloc(c->iv_ns, c->cap * sizeof(*c->iv_ns));
	}
	iv = &c->iv[c->niv];
	c->iv_ns[c->niv] = len;
	/* its latencies are 0 until interval_lat() fills them: only the first interval of a take
	 * gets any, the seconds a late controller missed keep none */
	*iv = (struct iom_interval){ .ns = len };
	c->niv++;
	for (d = 0; d < 2; d++) {
		iv->ios[d] = ios ? ios[d] : 0;
		iv->bytes[d] = bytes ? bytes[d] : 0;
	}
}

/* The latencies of interval k, which holds what was counted since the last take (grown: since
 * the take before, the window's tail added to it): the workers' histograms summed now, less
 * those of then (hist.h iom_hist_delta). Reads each thread's buckets between its min and max,
 * once a second; the workers do nothing more. */
static void interval_lat(struct ctl *c, size_t k, bool grown)
{
	static const double pcts[2] = { 50, 99 };
	struct iom_interval *iv = &c->iv[k];
	struct iom_hist *now = c->snap[0], *t;
	uint64_t out[2];

	if (!now)
		return;
	iom_hist_init(now);
	for (unsigned i = 0; i < c->nstarted; i++)
		for (unsigned d = 0; d < 2; d++)
			iom_hist_add_live(now, c->w[i].hist[d]);
	iom_hist_delta(now, grown ? c->snap[2] : c->snap[1], pcts, 2, out, &iv->lat_ios,
		       &iv->max_ns);
	if (c->spec->hosts_out) {
		if (c->niv > c->iv_coarse_cap) {
			size_t cap = IOM_MAX(c->niv, 2 * c->iv_coarse_cap);

			c->iv_coarse = xrealloc(c->iv_coarse, cap * IOM_HIST_COARSE *
					       sizeof(*c->iv_coarse));
			memset(c->iv_coarse + c->iv_coarse_cap * IOM_HIST_COARSE, 0,
			       (cap - c->iv_coarse_cap) * IOM_HIST_COARSE * sizeof(*c->iv_coarse));
			c->iv_coarse_cap = cap;
		}
		memset(c->iv_coarse + k * IOM_HIST_COARSE, 0, IOM_HIST_COARSE * sizeof(uint64_t));
		iom_hist_coarse_add(now, grown ? c->snap[2] : c->snap[1],
				    c->iv_coarse + k * IOM_HIST_COARSE);
	}
	iv->p50_ns = out[0];
	iv->p99_ns = out[1];
	t = c->snap[0];
	if (!grown) {
		c->snap[0] = c->snap[2];
		c->snap[2] = c->snap[1];
	} else {
		c->snap[0] = c->snap[1];
	}
	c->snap[1] = t;
}

/*
 * Brings the intervals up to `now` (see the top of this file): every second of the window that
 * has ended by now becomes an interval, and with `final` so does the rest of the window, up to
 * now. What the workers counted since the last take goes into the first interval made (into the
 * last one made before, when the window ends before the second that take opened); the others
 * read 0. Nothing is made while no second has ended: the counts wait for the next take.
 */
static void take_intervals(struct ctl *c, uint64_t now, bool final)
{
	uint64_t ios[2] = { 0, 0 }, bytes[2] = { 0, 0 }, dios[2], dbytes[2];
	bool first = true, grown = false;
	unsigned i, d;
	size_t from = c->niv, got = 0;

	for (i = 0; i < c->nstarted; i++) {
		for (d = 0; d < 2; d++) {
			ios[d] += atomic_load_explicit(&c->w[i].live.ios[d], memory_order_relaxed);
			bytes[d] += atomic_load_explicit(&c->w[i].live.bytes[d],
							 memory_order_relaxed);
		}
	}
	for (d = 0; d < 2; d++) {
		dios[d] = ios[d] - c->last_ios[d];
		dbytes[d] = bytes[d] - c->last_bytes[d];
	}
	for (;;) {
		uint64_t start = c->t0 + (uint64_t)c->niv * IOM_INTERVAL_NS;
		uint64_t b = start + IOM_INTERVAL_NS;

		if (final && now <= start && c->niv) {
			/* bytes-bound: the window ended just before the second the last take
			 * opened; its end belongs to the interval before */
			struct iom_interval *iv = &c->iv[c->niv - 1];

			for (d = 0; d < 2; d++) {
				iv->ios[d] += dios[d];
				iv->bytes[d] += dbytes[d];
			}
			/* steady state: and it ends with the window, not a second after it began */
			iv->ns = c->iv_ns[c->niv - 1] = now - (start - IOM_INTERVAL_NS);
			got = c->niv - 1;
			first = false;
			grown = true;
			break;
		}
		if (b <= now && !(final && b + IOM_INTERVAL_NS / 10 >= now)) {
			push_interval(c, IOM_INTERVAL_NS, first ? dios : NULL, first ? dbytes : NULL);
			if (first)
				got = c->niv - 1;
			first = false;
			continue;
		}
		if (final) {
			push_interval(c, now > start ? now - start : 0, first ? dios : NULL,
				      first ? dbytes : NULL);
			if (first)
				got = c->niv - 1;
			first = false;
		}
		break;
	}
	if (first)
		return;
	interval_lat(c, got, grown);
	for (size_t k = from; c->spec->on_interval && k < c->niv; k++)
		c->spec->on_interval(c->spec->interval_arg, &c->iv[k], k);
	for (d = 0; d < 2; d++) {
		c->last_ios[d] = ios[d];
		c->last_bytes[d] = bytes[d];
	}
	if (c->spec->live && now > c->t0) {
		__atomic_store_n(&c->spec->live->ios, c->last_ios[0] + c->last_ios[1],
				 __ATOMIC_RELAXED);
		__atomic_store_n(&c->spec->live->ns, now - c->t0, __ATOMIC_RELAXED);
	}
}

/* Waits until every running worker has acted on phase (its counts of the phase before are then
 * final), or has failed or exited. */
static void wait_ack(const struct ctl *c, int phase)
{
	unsigned i = 0;

	while (i < c->nstarted) {
		const struct iom_worker *w = &c->w[i];
		int s = state_of(w);

		if (s == IOM_WORKER_FAILED || s == IOM_WORKER_EXITED ||
		    atomic_load_explicit(&w->live.phase_seen, memory_order_acquire) >= phase) {
			i++;
			continue;
		}
		if (stop_requested(c) || timed_out(c))
			return; /* the caller moves to STOP next */
		sleep_until(iom_now_ns() + ACK_POLL_NS);
	}
}

/* Starts the workers with every asynchronous signal blocked in them. 0 or -errno with err. */
static int start_workers(struct ctl *c, char *err, size_t errlen)
{
	sigset_t all, old;
	unsigned i;
	int ret = 0;

	sigfillset(&all);
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGFPE);
	sigdelset(&all, SIGILL);
	sigdelset(&all, SIGABRT);
	sigdelset(&all, SIGTRAP);
	sigdelset(&all, SIGSYS);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (i = 0; i < c->conf.wl.threads; i++) {
		const struct iom_run_spec *spec = c->spec;
		pthread_attr_t attr;
		char name[16];

		pthread_attr_init(&attr);
		if (spec->ncpus) {
			unsigned cpu = spec->cpus[i % spec->ncpus];
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			ret = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
			if (ret) {
				pthread_attr_destroy(&attr);
				ret = iom_err(err, errlen, ret, "cannot pin worker thread %u to CPU %u: %s",
					      i, cpu, strerror(ret));
				break;
			}
		}
		ret = pthread_create(&c->tid[i], &attr, iom_worker_main, &c->w[i]);
		pthread_attr_destroy(&attr);
		if (ret) {
			if (spec->ncpus && ret == EINVAL)
				ret = iom_err(err, errlen, ret, "cannot start worker thread %u on CPU %u: "
					      "not a CPU this process may run on", i,
					      spec->cpus[i % spec->ncpus]);
			else if (ret == EAGAIN || ret == ENOMEM)
				ret = iom_err(err, errlen, ret, "cannot start worker thread %u of %u for "
					      "run %u: out of memory or of threads (%s; each thread "
					      "needs a stack: see ulimit -v, ulimit -u)", i,
					      c->conf.wl.threads, spec->index, strerror(ret));
			else
				ret = iom_err(err, errlen, ret, "cannot start worker thread %u of %u: %s",
					      i, c->conf.wl.threads, strerror(ret));
			break;
		}
		snprintf(name, sizeof(name), "iom-w%u", i);
		pthread_setname_np(c->tid[i], name);
		c->nstarted++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

static void open_gate(struct ctl *c)
{
	if (!c->gate_open) {
		iom_worker_gate_open(&c->gate);
		c->gate_open = true;
	}
}

/* Stops and joins every started worker (once; later calls do nothing). With a watchdog, a
 * worker still running WATCHDOG_GRACE_NS after the later of now and the deadline is detached
 * and counted in c->abandoned. */
static void stop_workers(struct ctl *c)
{
	uint64_t limit = 0;
	unsigned i;

	if (c->joined)
		return;
	set_phase(c, IOM_PHASE_STOP);
	open_gate(c);
	if (c->watchdog)
		limit = IOM_MAX(iom_now_ns(), c->watchdog) + WATCHDOG_GRACE_NS;
	for (i = 0; i < c->nstarted; i++) {
		struct timespec ts;
		uint64_t wall;

		if (!limit) {
			pthread_join(c->tid[i], NULL);
			continue;
		}
		/* pthread_timedjoin_np takes CLOCK_REALTIME; past the limit it only tries */
		wall = iom_wall_ns() + (limit > iom_now_ns() ? limit - iom_now_ns() : 0);
		ts.tv_sec = (time_t)(wall / 1000000000u);
		ts.tv_nsec = (long)(wall % 1000000000u);
		if (pthread_timedjoin_np(c->tid[i], NULL, &ts) == 0)
			continue;
		pthread_detach(c->tid[i]);
		c->abandoned++;
	}
	c->joined = true;
}

/* Memory the run's cell asked for and did not get (thread -1: not a thread's own): "cannot
 * allocate 4096 I/O slots × 1024 threads (16384 MiB with 4096-byte blocks) for run 3: out of
 * memory (thread 17: 16.0 MiB of I/O buffers (4096 × 4096 bytes))". Returns -ENOMEM. */
static int out_of_memory(const struct iom_run_spec *s, int thread, const char *what, char *err,
			 size_t errlen)
{
	unsigned depth = iom_engine_depth(s->wl.engine, s->wl.queue_depth);
	double mib = (double)depth * s->wl.block_size * s->wl.threads / (1024.0 * 1024.0);
	char who[32] = "";

	if (thread >= 0)
		snprintf(who, sizeof(who), "thread %d: ", thread);
	iom_err(err, errlen, ENOMEM,
		"cannot allocate %u I/O slot%s × %u thread%s (%.*f MiB with %u-byte blocks) "
		"for run %u: out of memory (%s%s)", depth, depth == 1 ? "" : "s",
		s->wl.threads, s->wl.threads == 1 ? "" : "s", mib < 10 ? 1 : 0, mib,
		s->wl.block_size, s->index, who, what);
	return -ENOMEM; /* said here, so that every caller's failure path is plain to see */
}

/* The first failed worker's message and errno (by thread number); out of memory says what the
 * whole run asked for. */
static int worker_failure(const struct ctl *c, char *err, size_t errlen)
{
	unsigned i;

	for (i = 0; i < c->nstarted; i++) {
		const struct iom_worker *w = &c->w[i];

		if (state_of(w) != IOM_WORKER_FAILED)
			continue;
		if (w->error_code == ENOMEM)
			return out_of_memory(c->spec, (int)i, w->error, err, errlen);
		return iom_err(err, errlen, w->error_code ? w->error_code : EIO, "%s", w->error);
	}
	return iom_err(err, errlen, EIO, "a worker failed");
}

/*
 * steady state: the spread of the last n per-second IOPS in x, in % of their mean: their range
 * (max − min), or with slope the least-squares slope per second (fio's steadystate "iops" and
 * "iops_slope"). INFINITY when the mean is 0.
 */
static double steady_spread(const double *x, size_t n, bool slope)
{
	double mean = 0, lo = INFINITY, hi = -INFINITY, sxy = 0, sxx = 0;

	for (size_t i = 0; i < n; i++) {
		mean += x[i] / (double)n;
		lo = fmin(lo, x[i]);
		hi = fmax(hi, x[i]);
	}
	if (!(mean > 0))
		return INFINITY;
	if (!slope)
		return (hi - lo) / mean * 100;
	for (size_t i = 0; i < n; i++) {
		double dx = (double)i - (double)(n - 1) / 2;

		sxy += dx * (x[i] - mean);
		sxx += dx * dx;
	}
	return fabs(sxy / sxx) / mean * 100;
}

/*
 * steady state: warms up until the per-second IOPS of the last window are steady, or warmup_max
 * has passed; records which in out->steady. Returns how the wait ended (WAKE_TIME: go on to
 * measure, steady or not).
 */
static enum wake warm_to_steady(struct ctl *c, struct iom_run_result *out)
{
	const struct iom_timing *tm = &c->spec->timing;
	size_t win = (size_t)(tm->steady_window_ns / IOM_INTERVAL_NS), n = 0;
	size_t cap = (size_t)(tm->warmup_max_ns / IOM_INTERVAL_NS) + 2;
	double *x = xcalloc(cap, sizeof(*x)), spread = INFINITY;
	uint64_t t0 = iom_now_ns(), last = 0, now;
	enum wake why = WAKE_TIME;
	char crit[64];

	snprintf(crit, sizeof(crit), "%s %g%% %gs", tm->steady_slope ? "iops_slope" : "iops",
		 tm->steady_pct, (double)tm->steady_window_ns / 1e9);
	out->steady.asked = true;
	out->steady.criterion = xstrdup(crit);
	while (n + 1 < cap) {
		uint64_t ios = 0;

		why = wait_until(c, t0 + (uint64_t)(n + 1) * IOM_INTERVAL_NS, false);
		if (why != WAKE_TIME)
			break;
		for (unsigned i = 0; i < c->nstarted; i++)
			ios += atomic_load_explicit(&c->w[i].live.warm_ios, memory_order_relaxed);
		x[n++] = (double)(ios - last);
		last = ios;
		if (n >= win) {
			spread = steady_spread(x + n - win, win, tm->steady_slope);
			if (spread <= tm->steady_pct) {
				out->steady.reached = true;
				break;
			}
		}
		if ((uint64_t)n * IOM_INTERVAL_NS >= tm->warmup_max_ns)
			break;
	}
	now = iom_now_ns();
	out->steady.warmup_s = (double)(now - t0) / 1e9;
	out->steady.at_s = out->steady.reached ? out->steady.warmup_s : NAN;
	out->steady.spread_pct = spread;
	free(x);
	return why;
}

/* several paths: a conf per path, from c->conf: its fd and region, the threads on it (threads i
 * with i % n == p), its share of a bytes-bound window (the blocks its threads' shares of the
 * whole would have been), its own sequential stream, and a seed of its own past path 0. */
static void make_path_confs(struct ctl *c)
{
	const struct iom_run_spec *s = c->spec;
	unsigned n = s->npaths, threads = c->conf.wl.threads;
	uint64_t bs = c->conf.wl.block_size ? c->conf.wl.block_size : 1;
	uint64_t total = c->conf.bytes / bs + !!(c->conf.bytes % bs);

	c->pconf = xcalloc(n, sizeof(*c->pconf));
	c->pshared = xcalloc(n, sizeof(*c->pshared));
	for (unsigned p = 0; p < n; p++) {
		struct iom_worker_conf *pc = &c->pconf[p];
		uint64_t blocks = 0;

		*pc = c->conf;
		pc->fd = s->fds[p];
		pc->region = s->regions[p];
		pc->wl.threads = (threads - p + n - 1) / n;
		pc->path_div = n;
		pc->run_threads = threads; /* a rate is spread over every thread of the run */
		if (p)
			pc->seed = iom_mix64(c->conf.seed ^ (UINT64_C(0x9a7b5) * p));
		for (unsigned i = p; i < threads; i += n)
			blocks += total / threads + (i < total % threads);
		pc->bytes = c->conf.bytes ? blocks * bs : 0;
		atomic_init(&c->pshared[p], 0);
		pc->shared_next = &c->pshared[p];
	}
}

/* ---- the run ---------------------------------------------------------------------------- */

static int check_spec(const struct iom_run_spec *s, char *err, size_t errlen)
{
	if (s->wl.threads == 0 || s->wl.queue_depth == 0 || s->wl.block_size == 0)
		return iom_err(err, errlen, EINVAL,
			       "threads, queue depth and block size must be at least 1");
	if (s->wl.queue_depth > IOM_QUEUE_DEPTH_MAX)
		return iom_err(err, errlen, EINVAL, "queue depth %u is above %d",
			       s->wl.queue_depth, IOM_QUEUE_DEPTH_MAX);
	if (s->wl.read_pct > 100)
		return iom_err(err, errlen, EINVAL, "read_pct %u is above 100", s->wl.read_pct);
	if ((s->wl.rate_iops || s->wl.rate_mb_s || s->wl.think_ns) && s->timing.bytes)
		return iom_err(err, errlen, EINVAL, "a paced run (rate_iops, rate_mb_s, think_time) "
			       "needs a duration, not timing.bytes");
	if (s->wl.rate_iops < 0 || s->wl.rate_mb_s < 0)
		return iom_err(err, errlen, EINVAL, "the run's rate is a share of the cell's max, "
			       "not derived before the run");
	if (!s->timing.duration_ns == !s->timing.bytes)
		return iom_err(err, errlen, EINVAL,
			       "the timing needs exactly one of duration and bytes");
	if (s->region < s->wl.block_size)
		return iom_err(err, errlen, EINVAL,
			       "the region of %llu bytes holds no block of %u bytes",
			       (unsigned long long)s->region, s->wl.block_size);
	if (s->npaths) { /* several paths */
		int ret;

		if (s->npaths < 2 || s->wl.threads < s->npaths)
			return iom_err(err, errlen, EINVAL, "%u paths need at least as many threads "
				       "(threads is %u)", s->npaths, s->wl.threads);
		for (unsigned p = 0; p < s->npaths; p++) {
			if (s->regions[p] < s->wl.block_size)
				return iom_err(err, errlen, EINVAL, "the region of %llu bytes of "
					       "'%s' holds no block of %u bytes",
					       (unsigned long long)s->regions[p], s->paths[p],
					       s->wl.block_size);
			if (iom_engine_has(s->wl.engine, IOM_ENGINE_CAP_FD) && s->fds[p] < 0)
				return iom_err(err, errlen, EBADF, "'%s' is not open", s->paths[p]);
			ret = iom_engine_check(s->wl.engine, s->fds[p], s->engine_flags,
					       s->wl.direct, NULL, err, errlen);
			if (ret < 0)
				return ret;
		}
	}
	if (iom_engine_has(s->wl.engine, IOM_ENGINE_CAP_FD) && s->fd < 0)
		return iom_err(err, errlen, EBADF, "the target is not open");
	/* what the engine's setup flags need of the target (IOPOLL: poll queues), before any
	 * thread starts */
	return iom_engine_check(s->wl.engine, s->fd, s->engine_flags, s->wl.direct, NULL, err,
				errlen);
}

/* Why the run ended early (into msg): interrupted, or a worker's failure. */
static int finish_bad(struct ctl *c, enum wake why, struct iom_run_result *out, char *msg,
		      size_t len)
{
	if (why == WAKE_STOP) {
		out->status = IOM_RUN_INTERRUPTED;
		return iom_err(msg, len, EINTR, "interrupted");
	}
	out->status = IOM_RUN_FAILED;
	if (why == WAKE_TIMEOUT) {
		char t[32];

		iom_duration_format(c->spec->timing.timeout_ns, t, sizeof(t));
		if (c->abandoned)
			return iom_err(msg, len, ETIMEDOUT,
				       "timed out after %s (timing.timeout): the I/O did not "
				       "complete; %u worker thread%s abandoned", t, c->abandoned,
				       c->abandoned == 1 ? " was" : "s were");
		return iom_err(msg, len, ETIMEDOUT, "timed out after %s (timing.timeout)", t);
	}
	return worker_failure(c, msg, len);
}

/* What the steps of a run share: the CPU and disk samples around the window, why the last wait
 * ended, and the first failure with its words. */
struct steps {
	struct iom_cpu_sample cpu_a, cpu_b;
	struct iom_disk_counters disk_a, disk_b;
	bool have_cpu, have_disk;
	uint64_t cpu_t0, cpu_t1;
	enum wake why;
	int ret;
	char msg[IOM_ERRLEN];
};

/* How a step ends: on to the next, or to one of the run's endings. */
enum step {
	STEP_ON,          /* the next step */
	STEP_BAD,         /* interrupted, failed or timed out: finish_bad() says which */
	STEP_OUT,         /* the workers could not start: straight to the result */
	STEP_SYNC_FAILED, /* another host did not reach a sync point */
};

/* The workers' configuration, the trace and its hooks, the worker table: what step 1 starts. */
static int set_up(struct ctl *c, const struct iom_run_spec *spec, char *msg, size_t len,
		  struct iom_run_result *out)
{
	const struct iom_timing *tm = &spec->timing;
	unsigned i;
	int ret;

	if (tm->timeout_ns)
		c->watchdog = iom_now_ns() + tm->timeout_ns;

	c->spec = spec;
	c->conf = (struct iom_worker_conf){
		.fd = spec->fd, .region = spec->region, .wl = spec->wl,
		.engine_flags = spec->engine_flags, .seed = spec->seed, .bytes = tm->bytes,
		.policy = spec->policy, .hooks = spec->hooks, .access = spec->access,
		.shared_next = &c->shared_next, .live_warmup = tm->warmup_steady,
	};
	if (spec->trace_path) {
		struct iom_trace_info ti = {
			.run_index = spec->index, .cell = spec->cell_text,
			.start_wall_ns = iom_wall_ns(), .start_mono_ns = iom_now_ns(),
			.nthreads = spec->wl.threads, .phases = true,
			.lags = iom_worker_rate(&c->conf) > 0, .own = spec->trace_dir,
		};

		ret = iom_trace_open(spec->trace_path, &ti, &c->trace, msg, len);
		if (ret < 0) {
			out->trace.error = ret;
			return ret;
		}
		if (spec->hooks)
			c->hooks = *spec->hooks;
		c->hooks.record = iom_trace_record;
		c->hooks.record_batch = iom_trace_record_batch;
		if (ti.lags)
			c->hooks.record_due = iom_trace_record_due;
		c->hooks.record_ctx = c->trace;
		c->conf.hooks = &c->hooks;
	}
	atomic_init(&c->phase, IOM_PHASE_WARMUP);
	c->w = iom_try_aligned(64, spec->wl.threads, sizeof(*c->w));
	c->tid = iom_try_calloc(spec->wl.threads, sizeof(*c->tid));
	if (!c->w || !c->tid) {
		free(c->w);
		free(c->tid);
		return out_of_memory(spec, -1, "the table of worker threads", msg, len);
	}
	if (spec->npaths)
		make_path_confs(c);
	for (i = 0; i < spec->wl.threads; i++) {
		const struct iom_worker_conf *wc = c->pconf && spec->npaths
							   ? &c->pconf[i % spec->npaths]
							   : &c->conf;

		if (iom_worker_init(&c->w[i], wc, i, &c->phase, &c->gate) == 0)
			continue;
		while (i--)
			iom_worker_release(&c->w[i]);
		free(c->w);
		free(c->tid);
		return out_of_memory(spec, -1, "the latency histograms of every thread", msg, len);
	}
	iom_worker_gate_init(&c->gate);
	return 0;
}

/* 1. start, and wait until every engine is set up; then, many hosts: every rank here before
 * the warm-up (hosts.h) */
static enum step start(struct ctl *c, struct steps *s)
{
	const struct iom_run_spec *spec = c->spec;

	s->ret = start_workers(c, s->msg, sizeof(s->msg));
	iom_worker_gate_wait_ready(&c->gate, c->nstarted);
	if (s->ret < 0)
		return STEP_OUT;
	s->why = check(c, false);
	if (s->why != WAKE_TIME)
		return STEP_BAD;
	if (spec->sync && (s->ret = spec->sync(spec->sync_arg, 0, 0, s->msg, sizeof(s->msg))) < 0)
		return STEP_SYNC_FAILED;
	return STEP_ON;
}

/* 2. warm-up; then, many hosts: the window starts at the instant agreed (hosts.h), agreed
 * while a timed warm-up's last sync_early_ns go on */
static enum step warm_up(struct ctl *c, struct iom_run_result *out, struct steps *s)
{
	const struct iom_run_spec *spec = c->spec;
	const struct iom_timing *tm = &spec->timing;
	uint64_t end = 0;

	if (tm->warmup_steady) {
		open_gate(c);
		s->why = warm_to_steady(c, out);
		if (s->why != WAKE_TIME)
			return STEP_BAD;
	} else if (tm->warmup_ns) {
		open_gate(c);
		end = iom_now_ns() + tm->warmup_ns;
		s->why = wait_until(c, end - (spec->sync ? IOM_MIN(spec->sync_early_ns,
								   tm->warmup_ns) : 0), false);
		if (s->why != WAKE_TIME)
			return STEP_BAD;
	}
	if (spec->sync &&
	    (s->ret = spec->sync(spec->sync_arg, 1, end, s->msg, sizeof(s->msg))) < 0)
		return STEP_SYNC_FAILED;
	return STEP_ON;
}

/* 3. the measured window; its intervals' latencies from three histograms, or none */
static enum step measure(struct ctl *c, struct iom_run_result *out, struct steps *s)
{
	const struct iom_run_spec *spec = c->spec;
	const struct iom_timing *tm = &spec->timing;
	const bool bytes_bound = tm->bytes != 0;
	unsigned i;

	for (i = 0; i < 3; i++)
		c->snap[i] = iom_try_calloc(1, sizeof(*c->snap[i]));
	if (!c->snap[0] || !c->snap[1] || !c->snap[2])
		for (i = 0; i < 3; i++) {
			free(c->snap[i]);
			c->snap[i] = NULL;
		}
	s->have_disk = spec->disk && iom_disk_counters_read(NULL, spec->disk, &s->disk_a) == 0;
	s->have_cpu = iom_cpu_sample(&s->cpu_a, spec->irq_drivers) == 0;
	s->cpu_t0 = iom_now_ns();
	c->t0 = iom_now_ns();
	out->start_wall_ns = iom_wall_ns();
	set_phase(c, IOM_PHASE_MEASURE);
	c->measuring = true;
	open_gate(c);
	/* many hosts: the window has started, its start taken (hosts.h, point 2) */
	if (spec->sync)
		spec->sync(spec->sync_arg, 2, 0, s->msg, sizeof(s->msg));
	for (;;) {
		/* the end of the second being counted: the boundaries are t0 + k s */
		uint64_t tick = c->t0 + (uint64_t)(c->niv + 1) * IOM_INTERVAL_NS;
		uint64_t end = bytes_bound ? UINT64_MAX : c->t0 + tm->duration_ns, now;

		uint64_t wake = IOM_MIN(tick, end);

		if (bytes_bound && spec->stonewall) /* many hosts: the others' shares polled */
			wake = IOM_MIN(wake, iom_now_ns() + POLL_NS);
		s->why = wait_until(c, wake, bytes_bound);
		if (bytes_bound && spec->stonewall && s->why == WAKE_DONE)
			spec->stonewall(spec->sync_arg, true);
		if (bytes_bound && spec->stonewall && s->why == WAKE_TIME &&
		    spec->stonewall(spec->sync_arg, false)) {
			out->stonewalled = true;
			break;
		}
		if (s->why != WAKE_TIME)
			break;
		now = iom_now_ns();
		if (now >= end)
			break;
		take_intervals(c, now, false);
	}
	c->t1 = iom_now_ns();
	if (s->why == WAKE_STOP || s->why == WAKE_FAILED || s->why == WAKE_TIMEOUT)
		return STEP_BAD;
	if (bytes_bound && !out->stonewalled) {
		uint64_t last = c->t0;

		for (i = 0; i < c->nstarted; i++)
			last = IOM_MAX(last, atomic_load_explicit(&c->w[i].live.done_ns,
								  memory_order_relaxed));
		c->t1 = last;
	}
	return STEP_ON;
}

/* 4. end of the window: the counts become final */
static enum step end_window(struct ctl *c, struct steps *s)
{
	const struct iom_run_spec *spec = c->spec;

	set_phase(c, IOM_PHASE_COOLDOWN);
	if (s->have_disk)
		s->have_disk = iom_disk_counters_read(NULL, spec->disk, &s->disk_b) == 0;
	if (s->have_cpu) {
		s->have_cpu = iom_cpu_sample(&s->cpu_b, spec->irq_drivers) == 0;
		s->cpu_t1 = iom_now_ns();
	}
	wait_ack(c, IOM_PHASE_COOLDOWN);
	take_intervals(c, c->t1, true);
	c->measuring = false;
	c->measured = true;
	s->why = check(c, false);
	return s->why == WAKE_TIME ? STEP_ON : STEP_BAD;
}

/* 5. cool-down, then the workers stop */
static enum step cool_down(struct ctl *c, struct steps *s)
{
	const struct iom_timing *tm = &c->spec->timing;

	if (tm->cooldown_ns) {
		s->why = wait_until(c, iom_now_ns() + tm->cooldown_ns, false);
		if (s->why != WAKE_TIME)
			return STEP_BAD;
	}
	stop_workers(c);
	s->why = check(c, false);
	return s->why == WAKE_FAILED ? STEP_BAD : STEP_ON;
}

/* The ending the steps reached: the run's status, and the workers stopped. */
static void end_steps(struct ctl *c, struct iom_run_result *out, struct steps *s, enum step how)
{
	switch (how) {
	case STEP_ON:
		out->status = IOM_RUN_OK;
		s->ret = 0;
		break;
	case STEP_SYNC_FAILED:
		/* another host did not reach the point: nothing of this run is measured */
		stop_workers(c);
		out->status = IOM_RUN_FAILED;
		break;
	case STEP_BAD:
		stop_workers(c);
		if (c->measuring) {
			/* Interrupted or failed inside the window: keep what was counted until
			 * then (the workers have exited, so their counts are final). */
			take_intervals(c, c->t1, true);
			c->measured = true;
			s->have_cpu = false;
		}
		s->ret = finish_bad(c, s->why, out, s->msg, sizeof(s->msg));
		break;
	case STEP_OUT:
		break;
	}
	stop_workers(c);
}

/* Workers that never exited still hold c, their engines, buffers and the trace: all of it is
 * left to them (see the top of this file); the counts so far are not worth a race. */
static int abandon(struct ctl *c, struct iom_run_result *out, struct steps *s, char *err,
		   size_t errlen)
{
	iom_cpu_sample_release(&s->cpu_a);
	iom_cpu_sample_release(&s->cpu_b);
	if (out->status != IOM_RUN_FAILED || s->ret >= 0)
		s->ret = finish_bad(c, WAKE_TIMEOUT, out, s->msg, sizeof(s->msg));
	out->error = xstrdup(s->msg);
	iom_err(err, errlen, -s->ret, "%s", s->msg);
	return s->ret;
}

/* 6. merge the per-thread figures into the result, then release the workers */
static void collect(struct ctl *c, struct iom_run_result *out, struct steps *s)
{
	const struct iom_run_spec *spec = c->spec;

	iom_run_fill_result(c, out);
	if (spec->hosts_out)
		iom_run_fill_hosts_out(c, spec->hosts_out);
	if (s->have_cpu && c->measured)
		iom_run_fill_cpu(out, &s->cpu_a, &s->cpu_b, s->cpu_t1 - s->cpu_t0, spec->irq_drivers);
	if (s->have_disk && c->measured && out->status == IOM_RUN_OK)
		iom_run_fill_disk(out, spec->disk, &s->disk_a, &s->disk_b);
	iom_cpu_sample_release(&s->cpu_a);
	iom_cpu_sample_release(&s->cpu_b);
	for (unsigned i = 0; i < spec->wl.threads; i++)
		iom_worker_release(&c->w[i]);
	free(c->w);
	free(c->tid);
	free(c->iv);
	free(c->iv_ns);
	iom_worker_gate_destroy(&c->gate);
}

/* The trace closed (its figures into the result), the run's error said, c freed. */
static int finish(struct ctl *c, const struct iom_run_spec *spec, struct iom_run_result *out,
		  struct steps *s, char *err, size_t errlen)
{
	int ret = s->ret;

	if (c->trace) {
		struct iom_trace_stats ts = { 0 };
		char terr[IOM_ERRLEN];
		int tret;

		/* the workers are joined: the trace has its last producer behind it */
		tret = iom_trace_close(c->trace, &ts, terr, sizeof(terr));
		if (tret < 0)
			out->trace.error = tret;
		if (tret < 0 && ret == 0) {
			ret = iom_err(s->msg, sizeof(s->msg), EIO, "trace: %s", terr);
			out->status = IOM_RUN_FAILED;
		}
		out->trace.records = ts.records;
		out->trace.dropped = ts.dropped;
		out->trace.bytes = ts.bytes;
		out->trace.bytes_per_io = ts.bytes_per_io;
		out->trace.file = xstrdup(spec->trace_path);
	}
	if (ret < 0) {
		if (out->status == IOM_RUN_FAILED)
			out->error = xstrdup(s->msg);
		iom_err(err, errlen, -ret, "%s", s->msg);
	}
	free(c->pconf);
	free(c->pshared);
	for (unsigned i = 0; i < 3; i++)
		free(c->snap[i]);
	free(c->iv_coarse);
	free(c);
	return ret;
}

int iom_run_execute(const struct iom_run_spec *spec, struct iom_run_result *out, char *err,
		    size_t errlen)
{
	struct ctl *c = xcalloc(1, sizeof(*c)); /* heap: abandoned workers may outlive us */
	struct steps s = { .why = WAKE_TIME };
	enum step next;

	memset(out, 0, sizeof(*out));
	out->index = spec->index;
	out->repetition = spec->repetition;
	out->seed = spec->seed;
	out->status = IOM_RUN_FAILED;
	s.ret = check_spec(spec, s.msg, sizeof(s.msg));
	if (s.ret == 0)
		s.ret = set_up(c, spec, s.msg, sizeof(s.msg), out);
	if (s.ret < 0)
		return finish(c, spec, out, &s, err, errlen);

	next = start(c, &s);
	if (next == STEP_ON)
		next = warm_up(c, out, &s);
	if (next == STEP_ON)
		next = measure(c, out, &s);
	if (next == STEP_ON)
		next = end_window(c, &s);
	if (next == STEP_ON)
		next = cool_down(c, &s);
	end_steps(c, out, &s, next);
	if (c->abandoned)
		return abandon(c, out, &s, err, errlen);
	collect(c, out, &s);
	return finish(c, spec, out, &s, err, errlen);
}
