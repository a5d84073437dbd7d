/* SPDX-License-Identifier: MIT */
/*
 * run_result — one run's result from its controller's counts (run_in.h): the threads'
 * histograms merged exactly, the rates over the measured window, the access lines', the
 * paths' and the offered load's figures, the per-second spread, the stall check (the design in
 * run.c's head comment), the CPU and the disk between their samples, and what many hosts ask of
 * a run.
 */
#include "run_in.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "hist.h"
#include "plan.h"
#include "util.h"

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
 * partial and is left out of the spread, not out of the sums); NaN with fewer than two. */
static void interval_spread(const struct ctl *c, double *iops_sd, double *mbs_sd)
{
	double s1 = 0, s2 = 0, b1 = 0, b2 = 0;
	size_t i, n = 0;

	*iops_sd = *mbs_sd = NAN;
	for (i = 0; i < c->niv; i++) {
		double secs = (double)c->iv_ns[i] / 1e9, iops, mbs;

		if (!iom_interval_full(&c->iv[i]))
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

/* The disk's requests between samples a and b (a counter that went back: 0). */
void iom_run_fill_disk(struct iom_run_result *r, const char *device,
		      const struct iom_disk_counters *a, const struct iom_disk_counters *b)
{
	const char *name = strrchr(device, '/');
	struct iom_run_disk *d = &r->disk;

	d->have = true;
	snprintf(d->name, sizeof(d->name), "%s", name ? name + 1 : device);
	d->reads = b->reads >= a->reads ? b->reads - a->reads : 0;
	d->writes = b->writes >= a->writes ? b->writes - a->writes : 0;
	d->discards = b->discards >= a->discards ? b->discards - a->discards : 0;
	d->flushes = b->flushes >= a->flushes ? b->flushes - a->flushes : 0;
	d->has_discards = b->fields >= 12;
	d->has_flushes = b->fields >= 16;
	snprintf(d->write_cache, sizeof(d->write_cache), "%s", b->write_cache);
	d->fua = b->fua;
}

void iom_run_fill_cpu(struct iom_run_result *r, const struct iom_cpu_sample *a,
		     const struct iom_cpu_sample *b, uint64_t sample_ns, const char *drivers)
{
	struct iom_run_cpu *cpu = &r->cpu;
	double scale, ios = (double)r->dir[IOM_DIR_TOTAL].ios;

	if (a->ncpu == 0 || a->ncpu != b->ncpu)
		return;
	cpu->ncpu = a->ncpu;
	cpu->per_cpu = xcalloc(a->ncpu, sizeof(*cpu->per_cpu));
	iom_cpu_diff(a, b, cpu->per_cpu, &cpu->avg);
	/* idle and iowait are shares that may sum to 100 plus a rounding error: never below 0 */
	cpu->busy_pct = fmax(0, 100.0 - cpu->avg.idle - cpu->avg.iowait);
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
	{
		struct iom_cpu_system sys;
		long hz = sysconf(_SC_CLK_TCK);

		iom_cpu_system_diff(a, b, &sys);
		cpu->busy_jiffies = sys.busy;
		cpu->all_jiffies = sys.all;
		if (sys.all)
			cpu->system_busy_pct = 100.0 * (double)sys.busy / (double)sys.all;
		if (ios > 0 && hz > 0)
			cpu->system_us_per_io = (double)sys.busy * 1e6 / (double)hz * scale / ios;
		if (cpu->system_busy_pct > 0 && r->elapsed_s > 0)
			cpu->iops_per_busy_pct = ios / r->elapsed_s / cpu->system_busy_pct;
		/* the others: all busy time less ours and our I/O's interrupts, over the sample */
		cpu->other_pct = NAN;
		if (hz > 0 && sample_ns) {
			double secs = (double)sample_ns / 1e9;
			double busy = (double)sys.busy / (double)hz;
			double irq = (cpu->avg.irq + cpu->avg.softirq) / 100 * a->ncpu * secs;

			cpu->other_pct = fmax(0, busy - cpu->proc_user_s - cpu->proc_sys_s - irq) /
					 secs * 100;
		}
	}
}

bool iom_run_judge_stall(uint64_t gap_ns, uint64_t gap_at_ns, uint64_t window_ns,
			 uint64_t asked_ns, struct iom_run_stall *st)
{
	bool gap = gap_ns >= IOM_STALL_GAP_NS;
	bool over = asked_ns && window_ns >= asked_ns + IOM_STALL_OVERRUN_MIN_NS &&
		    (double)window_ns > (double)asked_ns * (1 + IOM_STALL_OVERRUN_PCT / 100.0);
	char a[96] = "", b[96] = "";

	memset(st, 0, sizeof(*st));
	st->gap_s = (double)gap_ns / 1e9;
	st->at_s = (double)gap_at_ns / 1e9;
	st->window_s = (double)window_ns / 1e9;
	st->asked_s = (double)asked_ns / 1e9;
	if (!gap && !over)
		return false;
	st->stalled = true;
	if (gap)
		snprintf(a, sizeof(a), "no I/O completed for %.1f s, from %.1f s into the window",
			 st->gap_s, st->at_s);
	if (over)
		snprintf(b, sizeof(b), "the window lasted %.1f s for %.1f s asked", st->window_s,
			 st->asked_s);
	st->reason = xasprintf("%s%s%s", a, gap && over ? "; " : "", b);
	return true;
}

/* The longest stretch of the window [t0, t1] in which no thread completed counted I/O (the
 * overlap of every thread's longest stretch; see the top of this file), into *lo and *hi. */
static void stall_gap(const struct ctl *c, uint64_t *lo, uint64_t *hi)
{
	const bool bytes_bound = c->conf.bytes != 0;
	uint64_t a = c->t0, b = c->t1;
	unsigned i, n = 0;

	for (i = 0; i < c->nstarted; i++) {
		const struct iom_worker *w = &c->w[i];
		bool complete = bytes_bound &&
				atomic_load_explicit(&w->live.done_ns, memory_order_relaxed) != 0;
		uint64_t glo = c->t0, ghi = c->t1;

		if (bytes_bound && w->share_ios == 0)
			continue; /* nothing of its own to count */
		if (w->first_ns) {
			/* the longest of: start → first, the gap between two, last → end */
			glo = c->t0;
			ghi = IOM_MAX(w->first_ns, c->t0);
			if (w->gap_hi - w->gap_lo > ghi - glo) {
				glo = w->gap_lo;
				ghi = w->gap_hi;
			}
			if (!complete && c->t1 > w->last_ns && c->t1 - w->last_ns > ghi - glo) {
				glo = w->last_ns;
				ghi = c->t1;
			}
		}
		a = IOM_MAX(a, glo);
		b = IOM_MIN(b, ghi);
		n++;
	}
	if (!n || b <= a)
		a = b = c->t0;
	*lo = a;
	*hi = b;
}

/* access specs: the figures of each line of the run's access spec, from every worker's line
 * counts (tmp: a histogram to merge into). Without the memory, no per-line figures. */
static void fill_lines(const struct ctl *c, struct iom_run_result *r, struct iom_hist *tmp,
		       double secs)
{
	const struct iom_access_spec *a = c->spec->access;

	r->lines = iom_try_calloc(a->nlines, sizeof(*r->lines));
	if (!r->lines)
		return;
	r->access = xstrdup(a->name);
	r->nlines = a->nlines;
	for (size_t l = 0; l < a->nlines; l++) {
		struct iom_line_stats *ls = &r->lines[l];
		struct iom_workload lw = iom_access_line_workload(&c->spec->wl, &a->lines[l]);

		ls->share = a->lines[l].share;
		ls->block_size = lw.block_size;
		ls->read_pct = lw.read_pct;
		ls->random_pct = lw.pattern == IOM_PATTERN_SEQUENTIAL ? 0 : lw.random_pct;
		ls->align = lw.align ? lw.align : lw.block_size;
		iom_hist_init(tmp);
		for (unsigned i = 0; i < c->nstarted; i++) {
			const struct iom_worker *w = &c->w[i];

			if (!w->line_acc || l >= w->nlines)
				continue;
			iom_hist_merge(tmp, w->line_acc[l].hist);
			for (int d = 0; d < 2; d++) {
				ls->dir[d].ios += w->line_acc[l].ios[d];
				ls->dir[d].bytes += w->line_acc[l].bytes[d];
			}
		}
		ls->dir[IOM_DIR_TOTAL].ios = ls->dir[0].ios + ls->dir[1].ios;
		ls->dir[IOM_DIR_TOTAL].bytes = ls->dir[0].bytes + ls->dir[1].bytes;
		fill_lat(&ls->dir[IOM_DIR_TOTAL].lat, tmp);
		for (int d = 0; d < IOM_NDIR; d++)
			fill_rates(&ls->dir[d], secs);
	}
}

/* A paced run's load (result.h, struct iom_run_load): the threads' response-time histograms
 * merged exactly, the late I/Os, the largest lag, and whether the schedule held. */
static void fill_load(const struct ctl *c, struct iom_run_result *r, double secs)
{
	struct iom_run_load *l = &r->load;
	struct iom_hist *h[IOM_NDIR];
	unsigned i, d;

	l->offered_iops = iom_worker_rate(&c->conf);
	if (!(l->offered_iops > 0) || !c->nstarted || !c->w[0].resp[0])
		return;
	l->paced = true;
	l->poisson = c->conf.wl.arrivals == IOM_ARRIVALS_POISSON;
	for (d = 0; d < IOM_NDIR; d++) {
		h[d] = xmalloc(sizeof(*h[d]));
		iom_hist_init(h[d]);
	}
	for (i = 0; i < c->nstarted; i++) {
		const struct iom_worker *w = &c->w[i];

		for (d = 0; d < 2; d++) {
			iom_hist_merge(h[d], w->resp[d]);
			iom_hist_merge(h[IOM_DIR_TOTAL], w->resp[d]);
		}
		l->late_ios += w->late_ios;
		l->max_lag_s = IOM_MAX(l->max_lag_s, (double)w->max_lag_ns / 1e9);
	}
	for (d = 0; d < IOM_NDIR; d++) {
		fill_lat(&l->response[d], h[d]);
		iom_hist_sparse_of(&l->response_hist[d], h[d]);
		free(h[d]);
	}
	/* the schedule's I/Os: reads and writes, and the flushes and trims in their places */
	l->achieved_iops = secs > 0 ? (double)(r->dir[IOM_DIR_TOTAL].ios + r->xops[0].ios +
					       r->xops[1].ios) / secs
				    : 0;
	l->held = iom_load_held(l->offered_iops, l->achieved_iops, secs, l->poisson);
}

/* several paths: the per-path figures of r from its per-thread ones. */
static void fill_paths(const struct ctl *c, struct iom_run_result *r, double secs)
{
	unsigned n = c->spec->npaths;

	r->paths = iom_try_calloc(n, sizeof(*r->paths));
	if (!r->paths || !r->threads)
		return;
	r->npaths = n;
	for (unsigned p = 0; p < n; p++) {
		struct iom_path_stats *ps = &r->paths[p];

		ps->path = xstrdup(c->spec->paths[p]);
		for (unsigned i = p; i < r->nthreads; i += n)
			for (int d = 0; d < IOM_NDIR; d++) {
				ps->dir[d].ios += r->threads[i].dir[d].ios;
				ps->dir[d].bytes += r->threads[i].dir[d].bytes;
			}
		for (int d = 0; d < IOM_NDIR; d++)
			fill_rates(&ps->dir[d], secs);
	}
}

void iom_run_fill_result(const struct ctl *c, struct iom_run_result *r)
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
	/* per thread (the matrix sets how many): without the memory, no per-thread figures */
	r->threads = iom_try_calloc(c->nstarted ? c->nstarted : 1, sizeof(*r->threads));
	r->nthreads = r->threads ? c->nstarted : 0;
	r->registered_buffers = c->nstarted > 0;
	for (i = 0; i < c->nstarted; i++) {
		const struct iom_worker *w = &c->w[i];
		struct iom_thread_stats dummy = { 0 }, *ts = r->threads ? &r->threads[i] : &dummy;

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
	if (c->spec->wl.fsync_every || c->spec->wl.trim_pct) {
		/* flushes and trims, apart from reads and writes */
		r->has_xops = true;
		for (d = 0; d < 2; d++) {
			iom_hist_init(tmp);
			for (i = 0; i < c->nstarted; i++)
				if (c->w[i].xhist[d])
					iom_hist_merge(tmp, c->w[i].xhist[d]);
			r->xops[d].ios = tmp->count;
			r->xops[d].bytes = 0;
			for (i = 0; d && i < c->nstarted; i++)
				r->xops[d].bytes += c->w[i].xbytes[d]; /* trims: each its own length */
			fill_lat(&r->xops[d].lat, tmp);
			fill_rates(&r->xops[d], secs);
		}
	}
	iom_hist_merge(h[IOM_DIR_TOTAL], h[IOM_DIR_READ]);
	iom_hist_merge(h[IOM_DIR_TOTAL], h[IOM_DIR_WRITE]);
	r->dir[IOM_DIR_TOTAL].bytes = r->dir[0].bytes + r->dir[1].bytes;
	if (c->spec->access)
		fill_lines(c, r, tmp, secs);
	if (c->spec->npaths)
		fill_paths(c, r, secs);
	for (d = 0; d < IOM_NDIR; d++) {
		r->dir[d].ios = h[d]->count;
		fill_lat(&r->dir[d].lat, h[d]);
		fill_rates(&r->dir[d], secs);
		iom_hist_sparse_of(&r->hist[d], h[d]);
	}
	r->has_hist = true;
	if (secs > 0) {
		/* Little's law over the counted I/O. An I/O submitted before the window opened
		 * brings its whole latency in, so on a busy machine the sum can exceed what the
		 * depth allows by a few I/Os' worth: the mean is at most the depth. */
		double depth = (double)c->spec->wl.queue_depth * c->spec->wl.threads;

		r->qd_mean = (double)h[IOM_DIR_TOTAL]->sum / ((double)(c->t1 - c->t0));
		if (!iom_engine_has(c->spec->wl.engine, IOM_ENGINE_CAP_QUEUES))
			depth = c->spec->wl.threads;
		r->qd_mean = IOM_MIN(r->qd_mean, depth);
	}
	fill_load(c, r, secs);
	interval_spread(c, &r->iops_stddev, &r->mb_s_stddev);
	if (c->measured) {
		uint64_t lo, hi;

		stall_gap(c, &lo, &hi);
		iom_run_judge_stall(hi - lo, lo - c->t0, c->t1 - c->t0,
				    c->conf.bytes ? 0 : c->spec->timing.duration_ns, &r->stall);
	}
	r->has_iv_lat = c->snap[0] != NULL;
	if (c->niv) {
		r->intervals = xmalloc(c->niv * sizeof(*r->intervals));
		memcpy(r->intervals, c->iv, c->niv * sizeof(*r->intervals));
		r->nintervals = c->niv;
	}

	/* Engine notes: thread 0's, and any thread's that differ. */
	if (c->nstarted) {
		/* the notes of an engine the submit/reap policy applies to name it too (psync
		 * has one I/O at a time; null completes every I/O as it is submitted) */
		struct iom_policy pol = iom_policy_resolve(c->conf.policy);
		char polt[160] = "", *notes;

		if (iom_engine_has(c->conf.wl.engine, IOM_ENGINE_CAP_POLICY))
			iom_policy_describe(&pol, polt, sizeof(polt));
		if (*polt && c->w[0].reap_wait_end) {
			/* the adaptive wait: where each thread's ended, and how often it moved */
			size_t at = strlen(polt);

			for (i = 0; i < c->nstarted && at + 24 < sizeof(polt); i++)
				at += (size_t)snprintf(polt + at, sizeof(polt) - at, "%s%u (%u moves)",
						       i ? ", " : " (ended at ",
						       c->w[i].reap_wait_end,
						       c->w[i].reap_wait_moves);
			if (at + 2 < sizeof(polt))
				memcpy(polt + at, ")", 2);
		}
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

/* What a host backend's aggregate needs of the run (hosts.h): the merged histograms, the
 * window. Only with spec->hosts_out. */
void iom_run_fill_hosts_out(const struct ctl *c, struct iom_run_hosts_out *o)
{
	for (unsigned d = 0; d < IOM_NDIR; d++)
		iom_hist_init(&o->hist[d]);
	for (unsigned i = 0; i < c->nstarted; i++)
		for (unsigned d = 0; d < 2; d++) {
			iom_hist_merge(&o->hist[d], c->w[i].hist[d]);
			iom_hist_merge(&o->hist[IOM_DIR_TOTAL], c->w[i].hist[d]);
		}
	for (unsigned d = 0; d < 2; d++) {
		iom_hist_init(&o->xhist[d]);
		for (unsigned i = 0; i < c->nstarted; i++)
			if (c->w[i].xhist[d])
				iom_hist_merge(&o->xhist[d], c->w[i].xhist[d]);
	}
	free(o->line_hist);
	o->line_hist = NULL;
	o->nlines = c->spec->access ? c->spec->access->nlines : 0;
	if (o->nlines)
		o->line_hist = xcalloc(o->nlines, sizeof(*o->line_hist));
	for (size_t l = 0; l < o->nlines; l++) {
		iom_hist_init(&o->line_hist[l]);
		for (unsigned i = 0; i < c->nstarted; i++)
			if (c->w[i].line_acc && l < c->w[i].nlines)
				iom_hist_merge(&o->line_hist[l], c->w[i].line_acc[l].hist);
	}
	o->t0_ns = c->measured ? c->t0 : 0;
	o->t1_ns = c->measured ? c->t1 : 0;
	free(o->iv_rows);
	o->iv_rows = NULL;
	o->niv = c->measured ? c->niv : 0;
	if (o->niv) {
		o->iv_rows = xcalloc(o->niv, IOM_RUN_IV_WORDS * sizeof(*o->iv_rows));
		for (size_t k = 0; k < o->niv; k++) {
			uint64_t *row = o->iv_rows + k * IOM_RUN_IV_WORDS;

			row[0] = c->iv[k].ios[0];
			row[1] = c->iv[k].ios[1];
			row[2] = c->iv[k].bytes[0];
			row[3] = c->iv[k].bytes[1];
			if (k < c->iv_coarse_cap)
				memcpy(row + 4, c->iv_coarse + k * IOM_HIST_COARSE,
				       IOM_HIST_COARSE * sizeof(*row));
		}
	}
}
