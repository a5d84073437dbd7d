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
 * Intervals: every one is IOM_INTERVAL_NS long give or take the controller's wake-up, except
 * the last, which ends with the window and may be shorter; together they add up exactly to the
 * totals. The IOPS and MB/s spread (iops_stddev, mb_s_stddev: sample stddev) is taken over the
 * intervals at least 0.9 s long.
 */
#include "run.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu.h"
#include "hist.h"
#include "plan.h"
#include "trace.h"
#include "units.h"
#include "util.h"

#define POLL_NS 10000000ull   /* 10 ms: how late a stop, failure or finished share is noticed */
#define ACK_POLL_NS 100000ull /* 0.1 ms while waiting for the workers to acknowledge a phase */
#define WATCHDOG_GRACE_NS 2000000000ull /* a timed-out run's workers' time to drain and exit */

void iom_run_spec_set_cell(struct iom_run_spec *s, const struct iom_cell *c)
{
	s->block_size = (uint32_t)c->v[IOM_DIM_BLOCK_SIZE];
	s->queue_depth = (uint32_t)c->v[IOM_DIM_QUEUE_DEPTH];
	s->threads = (uint32_t)c->v[IOM_DIM_THREADS];
	s->read_pct = (uint32_t)c->v[IOM_DIM_READ_PCT];
	s->pattern = (enum iom_pattern)c->v[IOM_DIM_PATTERN];
	s->engine = (enum iom_engine_kind)c->v[IOM_DIM_ENGINE];
	s->direct = c->v[IOM_DIM_DIRECT] != 0;
}

/* The controller's state. */
struct ctl {
	const struct iom_run_spec *spec;
	struct iom_worker_conf conf;
	struct iom_worker *w;      /* threads entries, 64-byte aligned */
	pthread_t *tid;
	unsigned nstarted;
	_Atomic int phase;
	struct iom_worker_gate gate;
	bool gate_open, joined;
	struct iom_worker_hooks hooks; /* the spec's, with the trace's record hook */
	struct iom_trace *trace;

	/* the measured window */
	uint64_t t0, t1;           /* monotonic ns */
	bool measuring, measured;
	struct iom_interval *iv;   /* intervals, with their lengths in iv_ns */
	uint64_t *iv_ns;
	size_t niv, cap;
	uint64_t last_ios[2], last_bytes[2], last_tick;

	uint64_t watchdog;         /* monotonic deadline of timing.timeout; 0: none */
	unsigned abandoned;        /* workers that did not exit after a timeout (detached) */
};

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

/* Sums the workers' live counters into a new interval that ends at `now`. */
static void take_interval(struct ctl *c, uint64_t now)
{
	uint64_t ios[2] = { 0, 0 }, bytes[2] = { 0, 0 };
	struct iom_interval *iv;
	unsigned i, d;

	for (i = 0; i < c->nstarted; i++) {
		for (d = 0; d < 2; d++) {
			ios[d] += atomic_load_explicit(&c->w[i].live.ios[d], memory_order_relaxed);
			bytes[d] += atomic_load_explicit(&c->w[i].live.bytes[d],
							 memory_order_relaxed);
		}
	}
	if (c->niv == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->iv = xrealloc(c->iv, c->cap * sizeof(*c->iv));
		c->iv_ns = xrealloc(c->iv_ns, c->cap * sizeof(*c->iv_ns));
	}
	iv = &c->iv[c->niv];
	c->iv_ns[c->niv] = now - c->last_tick;
	c->niv++;
	for (d = 0; d < 2; d++) {
		iv->ios[d] = ios[d] - c->last_ios[d];
		iv->bytes[d] = bytes[d] - c->last_bytes[d];
		c->last_ios[d] = ios[d];
		c->last_bytes[d] = bytes[d];
	}
	c->last_tick = now;
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
	for (i = 0; i < c->conf.threads; i++) {
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
			else
				ret = iom_err(err, errlen, ret, "cannot start worker thread %u of %u: %s",
					      i, c->conf.threads, strerror(ret));
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

/* The first failed worker's message and errno (by thread number). */
static int worker_failure(const struct ctl *c, char *err, size_t errlen)
{
	unsigned i;

	for (i = 0; i < c->nstarted; i++)
		if (state_of(&c->w[i]) == IOM_WORKER_FAILED)
			return iom_err(err, errlen, c->w[i].error_code ? c->w[i].error_code : EIO,
				       "%s", c->w[i].error);
	return iom_err(err, errlen, EIO, "a worker failed");
}

/* ---- the result ------------------------------------------------------------------------- */

static void fill_lat(struct iom_lat *lat, const struct iom_hist *h)
{
	unsigned i;

	lat->min = h->min;
	lat->max = h->max;
	lat->mean = iom_hist_mean(h);
	lat->stddev = iom_hist_stddev(h);
	for (i = 0; i < IOM_NPCT; i++)
		lat->pct[i] = iom_hist_percentile(h, iom_percentiles[i]);
}

static void fill_rates(struct iom_io_stats *st, double secs)
{
	if (secs <= 0)
		return;
	st->iops = (double)st->ios / secs;
	st->mb_s = (double)st->bytes / secs / 1e6;
	st->mib_s = (double)st->bytes / secs / (1024.0 * 1024.0);
}

/* Sample stddev of the per-interval IOPS and MB/s over the full intervals (the last one may be
 * partial and is left out of the spread, not out of the sums). */
static void interval_spread(const struct ctl *c, double *iops_sd, double *mbs_sd)
{
	double s1 = 0, s2 = 0, b1 = 0, b2 = 0;
	size_t i, n = 0;

	*iops_sd = *mbs_sd = 0;
	for (i = 0; i < c->niv; i++) {
		double secs = (double)c->iv_ns[i] / 1e9, iops, mbs;

		if (c->iv_ns[i] < IOM_INTERVAL_NS * 9 / 10)
			continue;
		iops = (double)(c->iv[i].ios[0] + c->iv[i].ios[1]) / secs;
		mbs = (double)(c->iv[i].bytes[0] + c->iv[i].bytes[1]) / secs / 1e6;
		s1 += iops;
		s2 += iops * iops;
		b1 += mbs;
		b2 += mbs * mbs;
		n++;
	}
	if (n < 2)
		return;
	*iops_sd = sqrt(fmax(0, (s2 - s1 * s1 / (double)n) / (double)(n - 1)));
	*mbs_sd = sqrt(fmax(0, (b2 - b1 * b1 / (double)n) / (double)(n - 1)));
}

static void fill_cpu(struct iom_run_result *r, const struct iom_cpu_sample *a,
		     const struct iom_cpu_sample *b, uint64_t sample_ns, const char *drivers)
{
	struct iom_run_cpu *cpu = &r->cpu;
	double scale, ios = (double)r->dir[IOM_DIR_TOTAL].ios;

	if (a->ncpu == 0 || a->ncpu != b->ncpu)
		return;
	cpu->ncpu = a->ncpu;
	cpu->per_cpu = xcalloc(a->ncpu, sizeof(*cpu->per_cpu));
	iom_cpu_diff(a, b, cpu->per_cpu, &cpu->avg);
	cpu->busy_pct = 100.0 - cpu->avg.idle - cpu->avg.iowait;
	cpu->proc_user_s = b->proc_user_s - a->proc_user_s;
	cpu->proc_sys_s = b->proc_sys_s - a->proc_sys_s;
	cpu->interrupts = b->irqs >= a->irqs ? b->irqs - a->irqs : 0;
	cpu->irq_drivers = drivers ? xstrdup(drivers) : NULL;
	/* The CPU rate over the sampling window, applied to the measured window. */
	scale = sample_ns ? r->elapsed_s * 1e9 / (double)sample_ns : 1.0;
	if (ios > 0) {
		cpu->us_per_io = (cpu->proc_user_s + cpu->proc_sys_s) * 1e6 * scale / ios;
		cpu->interrupts_per_io = (double)cpu->interrupts * scale / ios;
	}
}

static void fill_result(const struct ctl *c, struct iom_run_result *r)
{
	struct iom_hist *h[IOM_NDIR], *tmp = xmalloc(sizeof(*tmp));
	double secs = c->measured ? (double)(c->t1 - c->t0) / 1e9 : 0;
	unsigned i, d;
	size_t len = 0;

	for (d = 0; d < IOM_NDIR; d++) {
		h[d] = xmalloc(sizeof(*h[d]));
		iom_hist_init(h[d]);
	}
	r->elapsed_s = secs;
	r->nthreads = c->nstarted;
	r->threads = xcalloc(c->nstarted ? c->nstarted : 1, sizeof(*r->threads));
	r->registered_buffers = c->nstarted > 0;
	for (i = 0; i < c->nstarted; i++) {
		const struct iom_worker *w = &c->w[i];
		struct iom_thread_stats *ts = &r->threads[i];

		iom_hist_init(tmp);
		for (d = 0; d < 2; d++) {
			uint64_t bytes = atomic_load_explicit(&w->live.bytes[d],
							      memory_order_relaxed);

			iom_hist_merge(h[d], w->hist[d]);
			iom_hist_merge(tmp, w->hist[d]);
			r->dir[d].bytes += bytes;
			ts->dir[d].ios = w->hist[d]->count;
			ts->dir[d].bytes = bytes;
			ts->dir[d].lat_mean_ns = iom_hist_mean(w->hist[d]);
			ts->dir[d].lat_stddev_ns = iom_hist_stddev(w->hist[d]);
		}
		ts->dir[IOM_DIR_TOTAL].ios = tmp->count;
		ts->dir[IOM_DIR_TOTAL].bytes = ts->dir[0].bytes + ts->dir[1].bytes;
		ts->dir[IOM_DIR_TOTAL].lat_mean_ns = iom_hist_mean(tmp);
		ts->dir[IOM_DIR_TOTAL].lat_stddev_ns = iom_hist_stddev(tmp);
		r->warmup_ios += w->warmup_ios;
		r->cooldown_ios += w->cooldown_ios;
		r->registered_buffers = r->registered_buffers && w->engine.registered_buffers;
	}
	iom_hist_merge(h[IOM_DIR_TOTAL], h[IOM_DIR_READ]);
	iom_hist_merge(h[IOM_DIR_TOTAL], h[IOM_DIR_WRITE]);
	r->dir[IOM_DIR_TOTAL].bytes = r->dir[0].bytes + r->dir[1].bytes;
	for (d = 0; d < IOM_NDIR; d++) {
		r->dir[d].ios = h[d]->count;
		fill_lat(&r->dir[d].lat, h[d]);
		fill_rates(&r->dir[d], secs);
	}
	if (secs > 0) {
		/* Little's law over the counted I/O. An I/O submitted before the window opened
		 * brings its whole latency in, so on a busy machine the sum can exceed what the
		 * depth allows by a few I/Os' worth: the mean is at most the depth. */
		double depth = (double)c->spec->queue_depth * c->spec->threads;

		r->qd_mean = (double)h[IOM_DIR_TOTAL]->sum / ((double)(c->t1 - c->t0));
		if (c->spec->engine == IOM_ENGINE_PSYNC)
			depth = c->spec->threads;
		r->qd_mean = IOM_MIN(r->qd_mean, depth);
	}
	interval_spread(c, &r->iops_stddev, &r->mb_s_stddev);
	if (c->niv) {
		r->intervals = xmalloc(c->niv * sizeof(*r->intervals));
		memcpy(r->intervals, c->iv, c->niv * sizeof(*r->intervals));
		r->nintervals = c->niv;
	}

	/* Engine notes: thread 0's, and any thread's that differ. */
	if (c->nstarted) {
		/* io_uring's notes name the submit/reap policy too (psync has one I/O at a
		 * time; the null engine completes every I/O as it is submitted) */
		struct iom_policy pol = iom_policy_resolve(c->conf.policy);
		char polt[80] = "", *notes;

		if (c->conf.engine == IOM_ENGINE_IO_URING)
			iom_policy_describe(&pol, polt, sizeof(polt));
		notes = xasprintf("%s%s%s", c->w[0].engine.notes, *polt ? ", " : "", polt);
		len = strlen(notes);
		for (i = 1; i < c->nstarted; i++) {
			const char *n = c->w[i].engine.notes;

			if (strcmp(n, c->w[0].engine.notes) != 0 && len < 4096) {
				char *more = xasprintf("%s; thread %u: %s", notes, i, n);

				free(notes);
				notes = more;
				len = strlen(notes);
			}
		}
		r->engine_notes = notes;
	}
	for (d = 0; d < IOM_NDIR; d++)
		free(h[d]);
	free(tmp);
}

/* ---- the run ---------------------------------------------------------------------------- */

static int check_spec(const struct iom_run_spec *s, char *err, size_t errlen)
{
	if (s->threads == 0 || s->queue_depth == 0 || s->block_size == 0)
		return iom_err(err, errlen, EINVAL,
			       "threads, queue depth and block size must be at least 1");
	if (s->queue_depth > 65536)
		return iom_err(err, errlen, EINVAL, "queue depth %u is above 65536", s->queue_depth);
	if (s->read_pct > 100)
		return iom_err(err, errlen, EINVAL, "read_pct %u is above 100", s->read_pct);
	if (!s->timing.duration_ns == !s->timing.bytes)
		return iom_err(err, errlen, EINVAL,
			       "the timing needs exactly one of duration and bytes");
	if (s->region < s->block_size)
		return iom_err(err, errlen, EINVAL,
			       "the region of %llu bytes holds no block of %u bytes",
			       (unsigned long long)s->region, s->block_size);
	if (s->engine != IOM_ENGINE_NULL && s->fd < 0)
		return iom_err(err, errlen, EBADF, "the target is not open");
	return 0;
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

int iom_run_execute(const struct iom_run_spec *spec, struct iom_run_result *out, char *err,
		    size_t errlen)
{
	const struct iom_timing *tm = &spec->timing;
	const bool bytes_bound = tm->bytes != 0;
	struct iom_cpu_sample cpu_a, cpu_b;
	bool have_cpu = false;
	uint64_t cpu_t0 = 0, cpu_t1 = 0;
	enum wake why = WAKE_TIME;
	char msg[IOM_ERRLEN] = "";
	struct ctl *c = xcalloc(1, sizeof(*c)); /* heap: abandoned workers may outlive us */
	unsigned i;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(&cpu_a, 0, sizeof(cpu_a));
	memset(&cpu_b, 0, sizeof(cpu_b));
	out->index = spec->index;
	out->repetition = spec->repetition;
	out->seed = spec->seed;
	out->status = IOM_RUN_FAILED;
	ret = check_spec(spec, msg, sizeof(msg));
	if (ret < 0)
		goto failed;
	if (tm->timeout_ns)
		c->watchdog = iom_now_ns() + tm->timeout_ns;

	c->spec = spec;
	c->conf = (struct iom_worker_conf){
		.fd = spec->fd, .region = spec->region, .block_size = spec->block_size,
		.queue_depth = spec->queue_depth, .threads = spec->threads,
		.read_pct = spec->read_pct, .pattern = spec->pattern, .engine = spec->engine,
		.engine_flags = spec->engine_flags, .seed = spec->seed, .bytes = tm->bytes,
		.direct = spec->direct, .policy = spec->policy, .hooks = spec->hooks,
	};
	if (spec->trace_path) {
		struct iom_trace_info ti = {
			.run_index = spec->index, .cell = spec->cell_text,
			.start_wall_ns = iom_wall_ns(), .start_mono_ns = iom_now_ns(),
			.nthreads = spec->threads, .phases = true,
		};

		ret = iom_trace_open(spec->trace_path, &ti, &c->trace, msg, sizeof(msg));
		if (ret < 0) {
			out->trace.error = ret;
			goto failed;
		}
		if (spec->hooks)
			c->hooks = *spec->hooks;
		c->hooks.record = iom_trace_record;
		c->hooks.record_ctx = c->trace;
		c->conf.hooks = &c->hooks;
	}
	atomic_init(&c->phase, IOM_PHASE_WARMUP);
	iom_worker_gate_init(&c->gate);
	if (posix_memalign((void **)&c->w, 64, spec->threads * sizeof(*c->w))) {
		iom_worker_gate_destroy(&c->gate);
		ret = iom_err(msg, sizeof(msg), ENOMEM, "cannot allocate %u workers",
			      spec->threads);
		goto failed;
	}
	c->tid = xcalloc(spec->threads, sizeof(*c->tid));
	for (i = 0; i < spec->threads; i++)
		iom_worker_init(&c->w[i], &c->conf, i, &c->phase, &c->gate);

	/* 1. start, and wait until every engine is set up */
	ret = start_workers(c, msg, sizeof(msg));
	iom_worker_gate_wait_ready(&c->gate, c->nstarted);
	if (ret < 0)
		goto out;
	why = check(c, false);
	if (why != WAKE_TIME)
		goto bad;

	/* 2. warm-up */
	if (tm->warmup_ns) {
		open_gate(c);
		why = wait_until(c, iom_now_ns() + tm->warmup_ns, false);
		if (why != WAKE_TIME)
			goto bad;
	}

	/* 3. the measured window */
	have_cpu = iom_cpu_sample(&cpu_a, spec->irq_drivers) == 0;
	cpu_t0 = iom_now_ns();
	c->t0 = c->last_tick = iom_now_ns();
	out->start_wall_ns = iom_wall_ns();
	set_phase(c, IOM_PHASE_MEASURE);
	c->measuring = true;
	open_gate(c);
	for (;;) {
		uint64_t tick = c->last_tick + IOM_INTERVAL_NS;
		uint64_t end = bytes_bound ? UINT64_MAX : c->t0 + tm->duration_ns;

		why = wait_until(c, IOM_MIN(tick, end), bytes_bound);
		if (why != WAKE_TIME)
			break;
		if (iom_now_ns() >= end)
			break;
		take_interval(c, iom_now_ns());
	}
	if (why == WAKE_STOP || why == WAKE_FAILED || why == WAKE_TIMEOUT) {
		c->t1 = iom_now_ns();
		goto bad;
	}
	c->t1 = iom_now_ns();
	if (bytes_bound) {
		uint64_t last = c->t0;

		for (i = 0; i < c->nstarted; i++)
			last = IOM_MAX(last, atomic_load_explicit(&c->w[i].live.done_ns,
								  memory_order_relaxed));
		c->t1 = last;
	}

	/* 4. end of the window: the counts become final */
	set_phase(c, IOM_PHASE_COOLDOWN);
	if (have_cpu) {
		have_cpu = iom_cpu_sample(&cpu_b, spec->irq_drivers) == 0;
		cpu_t1 = iom_now_ns();
	}
	wait_ack(c, IOM_PHASE_COOLDOWN);
	take_interval(c, IOM_MAX(c->t1, c->last_tick));
	c->measuring = false;
	c->measured = true;
	why = check(c, false);
	if (why != WAKE_TIME)
		goto bad;

	/* 5. cool-down */
	if (tm->cooldown_ns) {
		why = wait_until(c, iom_now_ns() + tm->cooldown_ns, false);
		if (why != WAKE_TIME)
			goto bad;
	}
	stop_workers(c);
	why = check(c, false);
	if (why == WAKE_FAILED)
		goto bad;
	out->status = IOM_RUN_OK;
	ret = 0;
	goto out;

bad:
	stop_workers(c);
	if (c->measuring) {
		/* Interrupted or failed inside the window: keep what was counted until then (the
		 * workers have exited, so their counts are final). */
		take_interval(c, IOM_MAX(c->t1, c->last_tick));
		c->measured = true;
		have_cpu = false;
	}
	ret = finish_bad(c, why, out, msg, sizeof(msg));
out:
	stop_workers(c);
	if (c->abandoned) {
		/* Workers still hold c, their engines, buffers and the trace: leave all of it to
		 * them (see the top of this file); the counts so far are not worth a race. */
		iom_cpu_sample_release(&cpu_a);
		iom_cpu_sample_release(&cpu_b);
		if (out->status != IOM_RUN_FAILED || ret >= 0)
			ret = finish_bad(c, WAKE_TIMEOUT, out, msg, sizeof(msg));
		out->error = xstrdup(msg);
		iom_err(err, errlen, -ret, "%s", msg);
		return ret;
	}
	fill_result(c, out);
	if (have_cpu && c->measured)
		fill_cpu(out, &cpu_a, &cpu_b, cpu_t1 - cpu_t0, spec->irq_drivers);
	iom_cpu_sample_release(&cpu_a);
	iom_cpu_sample_release(&cpu_b);
	for (i = 0; i < spec->threads; i++)
		iom_worker_release(&c->w[i]);
	free(c->w);
	free(c->tid);
	free(c->iv);
	free(c->iv_ns);
	iom_worker_gate_destroy(&c->gate);
failed:
	if (c->trace) {
		struct iom_trace_stats ts = { 0 };
		char terr[IOM_ERRLEN];
		int tret;

		/* the workers are joined: the trace has its last producer behind it */
		tret = iom_trace_close(c->trace, &ts, terr, sizeof(terr));
		if (tret < 0)
			out->trace.error = tret;
		if (tret < 0 && ret == 0) {
			ret = iom_err(msg, sizeof(msg), EIO, "trace: %s", terr);
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
			out->error = xstrdup(msg);
		iom_err(err, errlen, -ret, "%s", msg);
	}
	free(c);
	return ret;
}
