/* SPDX-License-Identifier: MIT */
/*
 * sweep — runs a plan into a results directory. See sweep.h.
 *
 * Order of things, each step on disk before the next:
 *   lock + journal → matrix.cfg → targets prepared (device facts) → study.json →
 *   before_study → for each run: [target visit: fstrim, before_target] → journal run-start →
 *   precondition, drop_caches, before_run → run → after_run → runs/NNNNN.json → summary.csv →
 *   journal run-done → rest → … → after_target, after_study → study.json (end) → summary.csv
 *   rebuilt → journal study-end → winners table (main.c).
 * On resume, the results directory is opened and checked first (sweep_dir.c).
 */
#include "sweep.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "adapt.h"
#include "engine/engine.h"
#include "hooks.h"
#include "host/hosts.h"
#include "journal.h"
#include "live.h"
#include "ownfile.h"
#include "result/resdir.h"
#include "result/result.h"
#include "result/study.h"
#include "result/summary.h"
#include "run/run.h"
#include "stage.h"
#include "strbuf.h"
#include "sweep_in.h"
#include "target/target.h"
#include "trace/trace.h"
#include "units.h"
#include "util.h"

char *iom_sweep_default_dir(const struct iom_matrix *m)
{
	char when[32];
	const char *name = m->name && *m->name ? m->name : "study";
	char *dir, *p;

	iom_format_utc(when, sizeof(when), iom_wall_ns());
	/* "2026-11-29T23:55:00Z" → "20261129T235500Z": no colons in a path */
	for (p = when; *p; p++)
		if (*p == '-' || *p == ':')
			memmove(p, p + 1, strlen(p));
	dir = xasprintf("results/%s-%s", name, when);
	for (p = dir + strlen("results/"); *p; p++)
		if (*p == '/' || *p == ' ')
			*p = '_';
	return dir;
}



/* MemAvailable from /proc/meminfo in bytes; 0 when unknown. */
static uint64_t mem_available(void)
{
	char *text, *p;
	uint64_t kib = 0;

	if (iom_read_file("/proc/meminfo", &text, NULL) < 0)
		return 0;
	p = strstr(text, "MemAvailable:");
	if (p)
		kib = strtoull(p + strlen("MemAvailable:"), NULL, 10);
	free(text);
	return kib * 1024;
}

/* Refuses, before anything runs, a run whose I/O buffers would not fit in memory. */
static int check_memory(const struct iom_plan *p, char *err, size_t errlen)
{
	uint64_t avail = mem_available();

	if (!avail)
		return 0;
	for (size_t i = 0; i < p->ncells; i++) {
		const struct iom_cell *c = &p->cells[i];
		uint64_t need = iom_cell_buffer_bytes(p->m, c);

		if (need > avail) {
			char bs[32], need_s[32], avail_s[32], desc[256];

			iom_dim_format(IOM_DIM_BLOCK_SIZE, (int64_t)iom_cell_max_block(p->m, c), bs,
				       sizeof(bs));
			iom_size_format(need, need_s, sizeof(need_s));
			iom_size_format(avail, avail_s, sizeof(avail_s));
			iom_cell_describe(p, c, desc, sizeof(desc));
			return iom_err(err, errlen, ENOMEM,
				       "cell '%s' needs %s of I/O buffers (%s × queue depth %" PRId64
				       " × %" PRId64 " threads) but only %s of memory is available",
				       desc, need_s, bs, c->v[IOM_DIM_QUEUE_DEPTH],
				       c->v[IOM_DIM_THREADS], avail_s);
		}
	}
	return 0;
}

/* Refuses, before anything runs, a `cpus` list naming a CPU this process may not run on. */
static int check_cpus(const struct iom_matrix *m, char *err, size_t errlen)
{
	cpu_set_t allowed;

	if (!m->ncpus || sched_getaffinity(0, sizeof(allowed), &allowed) < 0)
		return 0;
	for (unsigned i = 0; i < m->ncpus; i++)
		if (!CPU_ISSET(m->cpus[i], &allowed))
			return iom_err(err, errlen, EINVAL,
				       "cpus: CPU %u is not one this process may run on (%d CPUs "
				       "allowed, %ld online)", m->cpus[i], CPU_COUNT(&allowed),
				       sysconf(_SC_NPROCESSORS_ONLN));
	return 0;
}

/* ---- messages ---------------------------------------------------------------------------- */




static void format_hms(uint64_t ns, char *buf, size_t len)
{
	uint64_t t = ns / 1000000000u;

	snprintf(buf, len, "%" PRIu64 ":%02" PRIu64 ":%02" PRIu64, t / 3600, t / 60 % 60, t % 60);
}

/* The status line on a terminal: run i/N, cell, last IOPS, elapsed, ETA. */
static void show_status(struct sweep *s, const struct iom_run *run, size_t pos)
{
	char desc[256], elapsed[32], eta[32], now_iops[32] = "";
	uint64_t per_run, left, ios, ns;

	if (!s->tty || s->o->quiet)
		return;
	iom_cell_describe(s->p, &s->p->cells[run->cell], desc, sizeof(desc));
	format_hms(iom_now_ns() - s->invocation_ns, elapsed, sizeof(elapsed));
	/* the estimate, scaled by how long the measured runs really took */
	per_run = s->est_run_ns;
	if (s->runs_timed)
		per_run = s->runs_ns / s->runs_timed;
	left = per_run * (uint64_t)s->remaining;
	if (s->run_t0) /* the part of the current run already behind us */
		left -= IOM_MIN(left, IOM_MIN(iom_now_ns() - s->run_t0, per_run));
	if (per_run)
		format_hms(left, eta, sizeof(eta));
	else
		snprintf(eta, sizeof(eta), "?");
	ios = __atomic_load_n(&s->live.ios, __ATOMIC_RELAXED);
	ns = __atomic_load_n(&s->live.ns, __ATOMIC_RELAXED);
	if (s->run_t0 && ns)
		iom_count_format((double)ios * 1e9 / (double)ns, now_iops, sizeof(now_iops));
	sweep_erase_status(s);
	fprintf(s->out, "[run %u/%zu, %zu to go] %.60s  %s %s IOPS  elapsed %s  eta %s", run->index,
		s->p->nruns, pos, desc, now_iops[0] ? "now" : "last",
		now_iops[0] ? now_iops : s->last_iops[0] ? s->last_iops : "-", elapsed, eta);
	fflush(s->out);
	s->status_shown = true;
}

/* Redraws the status line every second while a run goes on (a terminal only): the run itself
 * prints nothing meanwhile, so the ticker has the terminal to itself. */
struct ticker {
	struct sweep *s;
	size_t pos;
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop, running;
};

static void *tick_main(void *arg)
{
	struct ticker *k = arg;
	struct timespec ts;

	pthread_mutex_lock(&k->mu);
	while (!k->stop) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&k->cv, &k->mu, &ts);
		if (!k->stop)
			show_status(k->s, k->s->cur_run, k->pos);
	}
	pthread_mutex_unlock(&k->mu);
	return NULL;
}

static void ticker_start(struct ticker *k, struct sweep *s, size_t pos)
{
	pthread_condattr_t ca;
	sigset_t all, old;

	memset(k, 0, sizeof(*k));
	if (!s->tty || s->o->quiet)
		return;
	k->s = s;
	k->pos = pos;
	pthread_mutex_init(&k->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&k->cv, &ca);
	pthread_condattr_destroy(&ca);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old); /* signals stay with the sweep's thread */
	k->running = pthread_create(&k->tid, NULL, tick_main, k) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!k->running) {
		pthread_cond_destroy(&k->cv);
		pthread_mutex_destroy(&k->mu);
	}
}

static void ticker_stop(struct ticker *k)
{
	if (!k->running)
		return;
	pthread_mutex_lock(&k->mu);
	k->stop = true;
	pthread_cond_signal(&k->cv);
	pthread_mutex_unlock(&k->mu);
	pthread_join(k->tid, NULL);
	pthread_cond_destroy(&k->cv);
	pthread_mutex_destroy(&k->mu);
	k->running = false;
}

/* ---- targets ----------------------------------------------------------------------------- */

/* The whole disk a block device number belongs to (a partition's disk), as sysfs tells it; d
 * itself when sysfs does not say. */
static dev_t whole_disk(dev_t d)
{
	char link[64], real[PATH_MAX + 16], *slash, *text = NULL;
	unsigned ma, mi;
	dev_t disk = d;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(d), minor(d));
	if (!realpath(link, real))
		return d;
	/* a partition's directory holds a "partition" file and sits in its disk's directory */
	strcat(real, "/partition");
	if (access(real, F_OK) != 0)
		return d;
	*strrchr(real, '/') = '\0';
	slash = strrchr(real, '/');
	if (!slash)
		return d;
	strcpy(slash, "/dev");
	if (iom_read_file(real, &text, NULL) == 0 && sscanf(text, "%u:%u", &ma, &mi) == 2)
		disk = makedev(ma, mi);
	free(text);
	return disk;
}

/* Warns when a target and the results directory share a disk and traces are on: the trace
 * writer's writes (and the filesystem journal commits they cause, with their cache flushes)
 * then land on the device while it is measured. */
static void warn_shared_device(struct sweep *s, size_t i)
{
	const struct iom_target_info *info = &s->stage.info[i];
	struct stat rs, ts;
	bool does_io = false;
	dev_t disk;

	for (size_t k = 0; k < s->p->ncells; k++)
		does_io |= (size_t)s->p->cells[k].v[IOM_DIM_TARGET] == i &&
			   iom_engine_has((enum iom_engine_kind)s->p->cells[k].v[IOM_DIM_ENGINE],
					  IOM_ENGINE_CAP_DATA);
	if (!does_io || !s->m->trace || s->o->no_trace || stat(s->o->dir, &rs) < 0 ||
	    stat(info->path, &ts) < 0)
		return;
	disk = whole_disk(S_ISBLK(ts.st_mode) ? ts.st_rdev : ts.st_dev);
	if (whole_disk(rs.st_dev) != disk)
		return;
	sweep_erase_status(s);
	fprintf(stderr, "iomatrix: warning: target '%s' and the results in '%s' are on the same "
		"device (%u:%u): the traces written there during each run disturb what is "
		"measured; write the results to another device (-o DIR) or run with --no-trace\n",
		s->m->targets[i].label, s->o->dir, major(disk), minor(disk));
	if (s->o->log)
		fprintf(s->o->log, "warning: target '%s' shares its device with the results\n",
			s->m->targets[i].label);
}

static void prepare_targets(struct sweep *s)
{
	const struct iom_matrix *m = s->m;
	char err[IOM_ERRLEN];

	for (size_t i = 0; i < m->ntargets; i++) {
		bool fs = m->targets[i].fs_type != NULL;
		int ret;

		if (s->o->stop && *s->o->stop)
			break; /* stopped (during a fill): no run follows, resume prepares the rest */
		if (m->targets[i].absent)
			continue; /* many hosts: its hosts leave this rank out */
		if (fs) {
			/* prepared once its filesystem is made, at its visit; its device is pinned
			 * now */
			ret = iom_stage_pin_device(&s->stage, i, err, sizeof(err));
		} else {
			if (m->targets[i].npaths) /* several paths */
				sweep_say(s, false, "preparing target '%s' (%s and %zu more path%s)\n",
				    m->targets[i].label, m->targets[i].path,
				    m->targets[i].npaths - 1, m->targets[i].npaths > 2 ? "s" : "");
			else
				sweep_say(s, false, "preparing target '%s' (%s)\n", m->targets[i].label,
				    m->targets[i].path);
			ret = iom_stage_prepare_target(&s->stage, i, err, sizeof(err));
		}
		if (ret < 0) {
			sweep_erase_status(s);
			fprintf(stderr, "iomatrix: target '%s': %s\n", m->targets[i].label, err);
		} else if (!fs) {
			warn_shared_device(s, i);
		}
	}
}

static int write_study(struct sweep *s, uint64_t end_wall_ns, char *err, size_t errlen)
{
	struct iom_study_record rec = {
		.plan = s->p,
		.ov = s->o->ov,
		.nov = s->o->nov,
		.targets = s->stage.info,
		.ntargets = s->m->ntargets,
		.start_wall_ns = s->start_wall_ns,
		.end_wall_ns = end_wall_ns,
	};
	size_t nt = s->m->ntargets;
	struct iom_study_host *sh = s->hranks ? xcalloc(s->hranks, sizeof(*sh)) : NULL;
	const struct iom_host_row **rows = s->hranks ? xcalloc(s->hranks * nt, sizeof(*rows)) : NULL;
	int ret;

	for (size_t r = 0; r < s->hranks; r++) { /* the ranks seen in this invocation's runs */
		sh[rec.nhosts] = (struct iom_study_host){ .rank = (uint32_t)r, .row = rows + r * nt };
		for (size_t t = 0; t < nt; t++)
			if (s->hseen[r * nt + t])
				rows[r * nt + t] = &s->hrow[r * nt + t];
		for (size_t t = 0; t < nt; t++)
			if (rows[r * nt + t]) {
				rec.nhosts++;
				break;
			}
	}
	rec.hosts = sh;
	ret = iom_study_write(&s->rd, &rec, err, errlen);
	free(rows);
	free(sh);
	return ret;
}

/* The rows of run r of target t kept for study.json's hosts: the latest of each rank (an ok
 * one over a failed one), without their per-run arrays. */
static void keep_host_rows(struct sweep *s, long t, const struct iom_run_result *r)
{
	size_t nt = s->m->ntargets;

	if (!s->o->hosts || !r->nhosts)
		return;
	if (!s->hrow) {
		s->hranks = s->o->hosts->size;
		s->hrow = xcalloc(s->hranks * nt, sizeof(*s->hrow));
		s->hseen = xcalloc(s->hranks * nt, sizeof(*s->hseen));
	}
	for (size_t k = 0; k < r->nhosts; k++) {
		const struct iom_host_row *row = &r->hosts[k];
		size_t at = row->rank * nt + (size_t)t;

		if (row->rank >= s->hranks || (s->hseen[at] && row->status != IOM_RUN_OK))
			continue;
		s->hrow[at] = *row;
		s->hrow[at].lines = NULL;
		s->hrow[at].nlines = 0;
		s->hrow[at].paths = NULL;
		s->hrow[at].npaths = 0;
		memset(&s->hrow[at].load, 0, sizeof(s->hrow[at].load));
		s->hseen[at] = true;
	}
}

/* Sleeps ns, waking early when *stop is set. */
static void rest(uint64_t ns, volatile sig_atomic_t *stop)
{
	uint64_t end = iom_now_ns() + ns;

	while (!(stop && *stop)) {
		uint64_t now = iom_now_ns(), step;
		struct timespec ts;

		if (now >= end)
			break;
		step = IOM_MIN(end - now, 100000000ull);
		ts.tv_sec = (time_t)(step / 1000000000u);
		ts.tv_nsec = (long)(step % 1000000000u);
		nanosleep(&ts, NULL);
	}
}

/* ---- hooks ------------------------------------------------------------------------------- */

bool iom_sweep_has_shell_hooks(const struct iom_matrix *m)
{
	for (int pt = 0; pt < IOM_HOOK_COUNT; pt++)
		if (iom_stage_hook_cmd(m, (enum iom_hook_point)pt))
			return true;
	return false;
}

/*
 * Runs the shell hook of pt, if any (0 when none), logged under DIR/hooks/ as what (the stage's
 * iom_stage_hook); a study's or target's hook noted in the journal. 0, or -errno with the
 * message (naming the log) in err: -EINTR when stopped by a signal.
 */
static int run_hook(struct sweep *s, enum iom_hook_point pt, const char *what, long t,
		    const struct iom_run *run, uint64_t timeout_ns, char *err, size_t errlen)
{
	bool ran = false;
	int ret = iom_stage_hook(&s->stage, pt, what, t, run, timeout_ns, &ran, err, errlen);

	/* a run's own hooks are in its run-failed entry when they fail */
	if (ran && !run) {
		char note[IOM_ERRLEN + 64];

		snprintf(note, sizeof(note), "hook %s %s: %s", iom_hook_point_name(pt), what,
			 ret < 0 ? err : "ok");
		iom_journal_append(&s->j, IOM_J_NOTE, 0, note);
	}
	return ret;
}

/* ---- the stage --------------------------------------------------------------------------- */

/* What the stage tells: lines and warnings as the sweep prints them, notes and mkfs events to
 * the journal, the precondition's progress on the status line. */
static int stage_report(void *arg, const struct iom_stage_event *e)
{
	struct sweep *s = arg;
	const char *label = s->m->targets[e->target].label;
	char d[32], t[32];
	int ret;

	switch (e->kind) {
	case IOM_STAGE_SAY:
		sweep_say(s, false, "%s", e->text);
		break;
	case IOM_STAGE_WARN:
		sweep_warn(s, "%s", e->text);
		break;
	case IOM_STAGE_NOTE:
		iom_journal_append(&s->j, IOM_J_NOTE, e->run, e->text);
		break;
	case IOM_STAGE_FAILED:
	case IOM_STAGE_CHANGED:
		sweep_erase_status(s);
		fprintf(stderr, "iomatrix: target '%s': %s%s\n", label, e->text,
			e->kind == IOM_STAGE_CHANGED ? "; its remaining runs fail" : "");
		iom_journal_append(&s->j, IOM_J_NOTE, 0, e->text);
		break;
	case IOM_STAGE_MKFS:
		ret = iom_journal_append(&s->j, IOM_J_MKFS, 0, e->text);
		if (ret < 0)
			return iom_err(e->err, e->errlen, -ret, "cannot write the journal in '%s': %s",
				       s->o->dir, strerror(-ret));
		break;
	case IOM_STAGE_PROGRESS:
		if (!s->tty || s->o->quiet)
			break;
		iom_size_format(e->done, d, sizeof(d));
		iom_size_format(e->total, t, sizeof(t));
		sweep_erase_status(s);
		fprintf(s->out, "preconditioning: %s of %s", d, t);
		fflush(s->out);
		s->status_shown = true;
		break;
	case IOM_STAGE_PROGRESS_END:
		sweep_erase_status(s);
		break;
	}
	return 0;
}

/* The start of a visit to target t: the stage's part (mkfs, mount, fstrim), then
 * before_target. */
static void begin_visit(struct sweep *s, long t)
{
	char err[IOM_ERRLEN];

	if (s->m->targets[t].absent) /* many hosts: not on this rank, its runs sat out */
		return;
	if (iom_stage_begin_visit(&s->stage, (size_t)t) < 0)
		return;
	if (run_hook(s, IOM_HOOK_BEFORE_TARGET, s->m->targets[t].label, t, NULL,
		     3600ull * 1000000000u, err, sizeof(err)) < 0)
		iom_stage_fail_visit(&s->stage, err);
}

static void end_visit(struct sweep *s)
{
	char err[IOM_ERRLEN];
	long t = s->stage.cur;

	if (t < 0)
		return;
	if (s->stage.info[t].t && run_hook(s, IOM_HOOK_AFTER_TARGET, s->m->targets[t].label, t,
					   NULL, 3600ull * 1000000000u, err, sizeof(err)) < 0 &&
	    !(s->o->stop && *s->o->stop))
		sweep_warn(s, "%s", err);
	iom_stage_end_visit(&s->stage);
}

/* Tells the stage which targets a write run finished on before (journal): their precondition
 * was done. */
static void mark_written_before(struct sweep *s)
{
	for (size_t i = 0; i < s->p->nruns; i++) {
		const struct iom_run *run = &s->p->runs[i];
		const struct iom_cell *c = &s->p->cells[run->cell];

		if (iom_cell_read_pct(s->m, c) < 100 && s->st.run[run->index] != IOM_RS_PENDING)
			iom_stage_set_written(&s->stage, (size_t)c->v[IOM_DIM_TARGET]);
	}
}

/* ---- runs -------------------------------------------------------------------------------- */




static void live_interval(void *arg, const struct iom_interval *iv, size_t k);

/* What the sweep adds around a run (iom_stage_run): the ready point of many hosts and the
 * before_run and after_run hooks, a share's rate, the live figures and the progress ticker. */
struct sweep_run {
	struct sweep *s;
	struct ticker k;
};

static int sweep_before(void *arg, const struct iom_run *run, char *err, size_t errlen)
{
	struct sweep *s = ((struct sweep_run *)arg)->s;
	char what[16];
	int ret;

	if (s->o->hosts && (ret = iom_hosts_ready(s->o->hosts, err, errlen)) < 0)
		return ret; /* the run's deadline starts */
	snprintf(what, sizeof(what), "%05u", run->index);
	ret = run_hook(s, IOM_HOOK_BEFORE_RUN, what, (long)s->p->cells[run->cell].v[IOM_DIM_TARGET],
		       run, iom_stage_run_timeout_ns(&s->m->timing), err, errlen);
	/* hooks on every rank: a before_run failing on any of them fails the run on all */
	return s->o->hosts ? iom_hosts_agree_hook(s->o->hosts, ret, err, errlen) : ret;
}

static int sweep_arm(void *arg, const struct iom_run *run, struct iom_run_spec *spec, char *err,
		     size_t errlen)
{
	struct sweep *s = ((struct sweep_run *)arg)->s;
	int ret;

	(void)run;
	if (s->rate_ret < 0)
		return iom_err(err, errlen, -s->rate_ret, "%s", s->rate_err);
	spec->wl.rate_iops = s->rate_iops;
	spec->wl.rate_mb_s = s->rate_mb_s;
	memset(&s->live, 0, sizeof(s->live));
	spec->live = &s->live;
	if (s->live_on) {
		spec->on_interval = live_interval;
		spec->interval_arg = s;
	}
	/* the sync points of every rank, and this rank's part of the offered load */
	if (s->o->hosts && (ret = iom_hosts_arm(s->o->hosts, spec, err, errlen)) < 0)
		return ret;
	return 0;
}

static void sweep_running(void *arg, bool started)
{
	struct sweep_run *sr = arg;

	if (started)
		ticker_start(&sr->k, sr->s, sr->s->remaining);
	else
		ticker_stop(&sr->k);
}

static int sweep_after(void *arg, const struct iom_run *run, char *err, size_t errlen)
{
	struct sweep *s = ((struct sweep_run *)arg)->s;
	char what[16];

	snprintf(what, sizeof(what), "%05u", run->index);
	return run_hook(s, IOM_HOOK_AFTER_RUN, what, (long)s->p->cells[run->cell].v[IOM_DIM_TARGET],
			run, iom_stage_run_timeout_ns(&s->m->timing), err, errlen);
}

/* Executes one run of the plan into r. Never fails the sweep: a failure is r's status. */
static void execute_run(struct sweep *s, const struct iom_run *run, struct iom_run_result *r)
{
	struct sweep_run sr = { .s = s };
	const struct iom_stage_run_ops ops = { .before = sweep_before, .arm = sweep_arm,
					       .running = sweep_running, .after = sweep_after,
					       .arg = &sr };

	if (s->o->hosts && iom_hosts_sits_out(s->o->hosts)) {
		/* many hosts: another rank's run (hosts = "each", ranks): the aggregate is theirs */
		memset(r, 0, sizeof(*r));
		r->index = run->index;
		r->repetition = run->repetition;
		r->seed = run->seed;
		r->start_wall_ns = iom_wall_ns();
		return;
	}
	iom_stage_run(&s->stage, run, s->o->no_trace ? NULL : s->o->dir, &ops, r);
}

/* ---- the live files (live.h) ------------------------------------------------------------ */

/* An interval of the run going on, from its controller's thread: the stream and metrics file;
 * a write that fails is said once and given up (the study goes on). */
static void live_interval(void *arg, const struct iom_interval *iv, size_t k)
{
	struct sweep *s = arg;

	if (iom_live_interval(&s->lv, iv, k) < 0 && !s->live_warned) {
		s->live_warned = true;
		sweep_warn(s, "the live files (--metrics, --live) could not be written; the study goes on");
	}
}

/* A run begins: its cell's words and dimensions for the live files' labels. */
static void live_begin(struct sweep *s, const struct iom_run *run)
{
	const struct iom_cell *c = &s->p->cells[run->cell];
	struct iom_cell_pair *pairs;
	size_t n = iom_result_cell_pairs(s->m, c, &pairs);
	char words[256];

	iom_cell_describe(s->p, c, words, sizeof(words));
	iom_live_run_begin(&s->lv, run->index, run->repetition, words, pairs, n);
	for (size_t i = 0; i < n; i++) {
		free(pairs[i].name);
		free(pairs[i].value);
	}
	free(pairs);
}

static void print_progress(struct sweep *s, const struct iom_run *run,
			   const struct iom_run_result *r)
{
	char desc[256], when[32], mbs[32], p99[32], trace[96] = "";
	const struct iom_io_stats *tot = &r->dir[IOM_DIR_TOTAL];

	iom_format_utc(when, sizeof(when), iom_wall_ns());
	iom_cell_describe(s->p, &s->p->cells[run->cell], desc, sizeof(desc));
	if (r->status != IOM_RUN_OK) {
		bool why = r->error && *r->error;

		sweep_say(s, true, "%s run %u/%zu rep %u  %s  %s%s%s\n", when, run->index, s->p->nruns,
		    run->repetition, desc, iom_run_status_name(r->status), why ? ": " : "",
		    why ? r->error : "");
		return;
	}
	iom_count_format(tot->iops, s->last_iops, sizeof(s->last_iops));
	snprintf(mbs, sizeof(mbs), "%.1f", tot->mb_s);
	if (!iom_result_few_ios_text(tot->ios, p99, sizeof(p99))) /* too few for a p99 */
		iom_lat_format((double)tot->lat.pct[iom_percentile_index(99)], p99, sizeof(p99));
	if (r->trace.file)
		snprintf(trace, sizeof(trace), "  trace %.1f bytes per I/O%s", r->trace.bytes_per_io,
			 r->trace.dropped ? " (records dropped)" : "");
	sweep_say(s, false, "%s run %u/%zu rep %u  %s  %s IOPS  %s MB/s  p99 %s%s\n", when, run->index,
	    s->p->nruns, run->repetition, desc, s->last_iops, mbs, p99, trace);
	if (r->load.paced) {
		char load[128];

		iom_run_load_describe(&r->load, load, sizeof(load));
		sweep_say(s, !r->load.held, "  run %u %s\n", run->index, load);
	}
	if (r->cpu.ncpu && r->cpu.other_pct > IOM_OTHER_CPU_PCT)
		sweep_say(s, false, "  run %u: other processes took %.0f%% of a core during the window; "
			      "its CPU figures include them\n", run->index, r->cpu.other_pct);
	if (r->stall.stalled)
		sweep_say(s, true, "  run %u stalled: %s; the report leaves it out of the verdicts\n",
		    run->index, r->stall.reason ? r->stall.reason : "the window stalled");
	if (r->steady.asked && !r->steady.reached) /* warmup = "steady" */
		sweep_say(s, true, "  run %u: steady state (%s) not reached in %.1f s of warm-up; the "
			     "report leaves it out of the verdicts\n", run->index,
		    r->steady.criterion ? r->steady.criterion : "?", r->steady.warmup_s);
}

/* Says that the results directory is full (a write failed with ENOSPC), into err. */
static int disk_full(struct sweep *s, const char *what, char *err, size_t errlen)
{
	return iom_err(err, errlen, ENOSPC,
		       "the results directory '%s' is full (no space left on device) while "
		       "writing %s: the sweep stopped; everything recorded before is intact — free "
		       "some space and carry on with 'iomatrix resume %s'",
		       s->o->dir, what, s->o->dir);
}

/*
 * The trace of run filled the results directory: its partial trace goes (to give the space
 * back), the run is not recorded (resume redoes it), and err names the trace.
 */
static int trace_full(struct sweep *s, const struct iom_run *run, char *err, size_t errlen)
{
	char *path = iom_trace_path(s->o->dir, run->index);
	int ret;

	iom_own_unlink(&s->rd, path);
	ret = disk_full(s, path + strlen(s->o->dir) + 1, err, errlen);
	free(path);
	return ret;
}

/* Records run r: its result file, its summary row, then the journal entry that makes it count. */
static int record_run(struct sweep *s, const struct iom_run *run, const struct iom_run_result *r,
		      char *err, size_t errlen)
{
	const struct iom_cell *c = &s->p->cells[run->cell];
	enum iom_journal_event ev;
	char *name;
	int ret;

	ret = iom_result_write(&s->rd, s->m, c, r, err, errlen);
	if (ret == -ENOSPC)
		return disk_full(s, "a result file", err, errlen);
	if (ret < 0)
		return ret;
	if (r->status == IOM_RUN_INTERRUPTED) {
		ret = iom_journal_append(&s->j, IOM_J_RUN_INTERRUPTED, run->index, NULL);
		goto journal;
	}
	ret = iom_summary_append(&s->rd, s->m, c, r, err, errlen);
	if (ret == -ENOSPC)
		return disk_full(s, "summary.csv", err, errlen);
	if (ret < 0)
		return ret;
	name = iom_result_path("", run->index);
	ev = r->status == IOM_RUN_OK ? IOM_J_RUN_DONE : IOM_J_RUN_FAILED;
	ret = iom_journal_append(&s->j, ev, run->index,
				 ev == IOM_J_RUN_DONE ? name + 1 : r->error);
	free(name);
journal:
	if (ret == -ENOSPC)
		return disk_full(s, "the journal", err, errlen);
	if (ret < 0)
		return iom_err(err, errlen, -ret, "cannot write the journal in '%s': %s", s->o->dir,
			       strerror(-ret));
	return 0;
}

/* ---- adaptive repetitions ------------------------------------------------------------------ */

/* Journals the pending runs of plan cell cell from round on as skipped (why: the stop's reason). */
static int skip_cell(struct sweep *s, uint32_t cell, uint32_t round, const char *why)
{
	const struct iom_plan *p = s->p;
	int ret = 0;

	for (size_t k = 0; k < p->nruns && ret == 0; k++) {
		const struct iom_run *x = &p->runs[k];

		if (x->cell != cell || x->repetition < round ||
		    s->st.run[x->index] != IOM_RS_PENDING)
			continue;
		ret = iom_journal_append(&s->j, IOM_J_RUN_SKIPPED, x->index, why);
		s->st.run[x->index] = IOM_RS_SKIPPED;
		s->st.skipped++;
		if (s->remaining)
			s->remaining--;
	}
	return ret;
}

/*
 * Before the first run of an adaptive round (repetition > repeat) that is not decided yet:
 * decides every cell's run of that round from the run files so far, journals each decision,
 * and journals the runs of a cell that stops (this round's and every later one's) as skipped.
 * Decisions already in the journal (a resume) are kept, so a resume continues exactly.
 */
static int decide_round(struct sweep *s, uint32_t round, char *err, size_t errlen)
{
	const struct iom_plan *p = s->p;
	struct iom_adapt *judge = iom_adapt_open(s->o->dir, p);
	char why[160];
	int ret = judge ? 0 : -ENOMEM;

	for (size_t i = 0; i < p->nruns && ret == 0; i++) {
		const struct iom_run *run = &p->runs[i];
		bool more;

		if (run->repetition != round || s->st.decided[run->index] ||
		    s->st.run[run->index] != IOM_RS_PENDING)
			continue;
		more = iom_adapt_more(judge, run->cell, why, sizeof(why));
		ret = iom_journal_append(&s->j, IOM_J_DECIDE, run->index, why);
		s->st.decided[run->index] = 1;
		if (!more && ret == 0)
			ret = skip_cell(s, run->cell, round, why + 6);
	}
	iom_adapt_close(judge);
	if (ret == -ENOMEM)
		return iom_err(err, errlen, ENOMEM, "cannot allocate the judge of an adaptive round");
	if (ret < 0)
		return iom_err(err, errlen, -ret, "cannot write the journal in '%s': %s", s->o->dir,
			       strerror(-ret));
	return 0;
}

/*
 * On resume: a cell whose journal has a "stop" decision has its pending runs of that round and
 * later journaled as skipped now, in case a kill came between the decision and those records
 * (else the resumed sweep would run rounds the cell was decided not to need).
 */
static int skip_after_stops(struct sweep *s, char *err, size_t errlen)
{
	const struct iom_plan *p = s->p;
	int ret = 0;

	for (size_t i = 0; i < p->nruns && ret == 0; i++) {
		const struct iom_run *run = &p->runs[i];
		const char *why = s->st.decision ? s->st.decision[run->index] : NULL;

		if (s->st.decided[run->index] && why && strncmp(why, "stop: ", 6) == 0)
			ret = skip_cell(s, run->cell, run->repetition, why + 6);
	}
	if (ret < 0)
		return iom_err(err, errlen, -ret, "cannot write the journal in '%s': %s", s->o->dir,
			       strerror(-ret));
	return 0;
}

/*
 * DIR/repetitions.tsv: per plan cell its repetitions finished and why it stopped (the last
 * decision of the journal, or "repeat_max" / "repeat" when it ran every round).
 */
static void write_repetitions(struct sweep *s)
{
	const struct iom_plan *p = s->p;
	struct iom_journal_state st;
	struct iom_strbuf b = { 0 };
	char e[IOM_ERRLEN], desc[256], *path;

	if (!s->m->timing.repeat_max ||
	    iom_journal_replay(s->o->dir, p->nruns, &st, e, sizeof(e)) < 0)
		return;
	iom_strbuf_str(&b, "cell\tdescription\trepetitions\tstopped\n");
	for (uint32_t c = 0; c < p->ncells; c++) {
		unsigned n = 0, at = 0;
		const char *last = NULL;

		for (size_t i = 0; i < p->nruns; i++) {
			const struct iom_run *run = &p->runs[i];

			if (run->cell != c)
				continue;
			n += st.run[run->index] == IOM_RS_DONE;
			if (st.decision[run->index] && run->repetition > at) {
				at = run->repetition;
				last = st.decision[run->index];
			}
		}
		iom_cell_describe(p, &p->cells[c], desc, sizeof(desc));
		if (last && strncmp(last, "stop: ", 6) == 0)
			last += 6;
		else
			last = n >= s->m->timing.repeat_max ? "repeat_max reached" : "not finished";
		iom_strbuf_printf(&b, "%u\t%s\t%u\t%s\n", c + 1, desc, n, last);
	}
	path = xasprintf("%s/repetitions.tsv", s->o->dir);
	(void)iom_own_write_atomic(&s->rd, path, iom_strbuf_get(&b), b.len, NULL, 0);
	free(path);
	free(b.s);
	iom_journal_state_release(&st);
}

/* ---- the sweep --------------------------------------------------------------------------- */

/* The sweep up to its first run: the checks, the directory opened (or resumed), the stage,
 * the targets prepared, study.json, the live files, before_study. 0: on to the runs; 1: nothing
 * to run (a complete study, an interrupted before_study); or -errno with err. */
static int sweep_begin(struct sweep *s, struct iom_sweep_outcome *out, char *err, size_t errlen)
{
	const struct iom_plan *p = s->p;
	const struct iom_sweep_opts *o = s->o;
	bool size_bound, complete;
	int ret;

	memset(out, 0, sizeof(*out));
	s->start_wall_ns = iom_wall_ns();
	s->invocation_ns = iom_now_ns();
	s->tty = o->tty < 0 ? isatty(fileno(s->out)) : o->tty > 0;
	s->est_run_ns = iom_plan_run_estimate_ns(p, &size_bound);
	s->shell_hooks = iom_sweep_has_shell_hooks(s->m);
	if (s->shell_hooks && !o->allow_hooks)
		return iom_err(err, errlen, EPERM,
			       "the matrix has shell hooks, which run only with --allow-hooks");
	ret = check_memory(p, err, errlen);
	if (ret == 0)
		ret = check_cpus(p->m, err, errlen);
	if (ret < 0)
		return ret;
	ret = sweep_open_dir(s, &complete, err, errlen);
	out->plan_changed = s->plan_changed;
	if (ret < 0)
		return ret;
	if (complete) {
		/* nothing to do (a unit that resumes at every boot lands here) */
		sweep_say(s, false, "the study in '%s' is complete: nothing to resume\n", o->dir);
		out->skipped = p->nruns;
		return 1;
	}
	iom_stage_init(&s->stage, p, o->dir, o->stop, s->shell_hooks, stage_report, s);
	s->stage.own = &s->rd;
	s->stage.invocation = s->invocation;
	if (o->hosts) { /* the hooks' ${rank}, ${ranks}, ${host}; the followers' logs' names */
		s->stage.rank = o->hosts->rank;
		s->stage.ranks = o->hosts->size;
		s->stage.host = o->hosts->host;
		o->hosts->invocation = s->invocation;
	}
	if (o->resume && s->m->timing.repeat_max && (ret = skip_after_stops(s, err, errlen)) < 0)
		return ret; /* adaptive repetitions: the cells already settled */
	prepare_targets(s);
	iom_stage_own_from_journal(&s->stage, s->st.mkfs, s->st.nmkfs);
	mark_written_before(s);
	ret = write_study(s, 0, err, errlen);
	if (ret == -ENOSPC)
		ret = disk_full(s, "study.json", err, errlen);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < p->nruns; i++)
		s->remaining += s->st.run[p->runs[i].index] == IOM_RS_PENDING;
	if (o->resume)
		sweep_say_resumed(s);
	if (o->metrics || o->live) {
		ret = iom_live_open(&s->lv, o->metrics, o->live, s->m->name, p->nruns, err, errlen);
		s->live_on = true;
		if (ret < 0)
			return ret;
		for (size_t i = 0; i < p->nruns; i++)
			s->lv.done += s->st.run[p->runs[i].index] != IOM_RS_PENDING;
	}
	if (o->hosts) /* the followers' journals are this study's (its first start) */
		o->hosts->study_ns = s->start_wall_ns;
	ret = run_hook(s, IOM_HOOK_BEFORE_STUDY, "study", -1, NULL, 3600ull * 1000000000u, err,
		       errlen);
	if (ret == -EINTR) {
		out->interrupted = true;
		return 1;
	}
	return ret;
}

/* The sweep after its last run: the last visit ended, after_study, study.json, summary.csv
 * rebuilt, repetitions.tsv and the journal's study-end (those three when not interrupted). 0 or
 * -errno with err. */
static int sweep_finish(struct sweep *s, const struct iom_sweep_outcome *out, char *err,
			size_t errlen)
{
	const struct iom_sweep_opts *o = s->o;
	int ret;

	end_visit(s);
	if ((ret = iom_own_dir_check(&s->rd, err, errlen)) < 0)
		return ret; /* moved or mounted over during the last run */
	if (!out->interrupted) {
		char herr[IOM_ERRLEN];

		if (run_hook(s, IOM_HOOK_AFTER_STUDY, "study", -1, NULL, 3600ull * 1000000000u, herr,
			     sizeof(herr)) < 0)
			sweep_warn(s, "%s", herr);
	}

	ret = write_study(s, out->interrupted ? 0 : iom_wall_ns(), err, errlen);
	if (ret == -ENOSPC)
		ret = disk_full(s, "study.json", err, errlen);
	if (ret < 0)
		return ret;
	ret = iom_summary_rebuild(&s->rd, err, errlen);
	if (ret == -ENOSPC)
		ret = disk_full(s, "summary.csv", err, errlen);
	if (ret < 0)
		return ret;
	if (!out->interrupted)
		write_repetitions(s); /* adaptive: repetitions.tsv */
	if (!out->interrupted) {
		if (o->hosts) /* the followers may forget their journals */
			o->hosts->complete = true;
		ret = iom_journal_append(&s->j, IOM_J_STUDY_END, 0, NULL);
		if (ret == -ENOSPC)
			ret = disk_full(s, "the journal", err, errlen);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int iom_sweep_execute(const struct iom_plan *p, const struct iom_sweep_opts *o,
		      struct iom_sweep_outcome *out, char *err, size_t errlen)
{
	struct sweep s = { .p = p, .m = p->m, .o = o, .out = o->out ? o->out : stdout,
			   .rd = { .fd = -1 }, .j = { .fd = -1, .lock_fd = -1 } };
	int ret;

	ret = sweep_begin(&s, out, err, errlen);
	if (ret != 0) {
		ret = ret > 0 ? 0 : ret;
		goto done;
	}
	for (size_t i = 0; i < p->nruns; i++) {
		const struct iom_run *run = &p->runs[i];
		long t = (long)p->cells[run->cell].v[IOM_DIM_TARGET];
		struct iom_run_result r;
		uint64_t t0;

		if (o->stop && *o->stop) {
			out->interrupted = true;
			break;
		}
		if (s.m->timing.repeat_max && run->repetition > s.m->timing.repeat &&
		    !s.st.decided[run->index] && s.st.run[run->index] == IOM_RS_PENDING) {
			ret = decide_round(&s, run->repetition, err, errlen); /* adaptive */
			if (ret < 0)
				goto done;
		}
		if (s.st.run[run->index] != IOM_RS_PENDING) {
			/* adaptive: a run its cell did not need is not one done before */
			out->skipped += s.st.run[run->index] != IOM_RS_SKIPPED;
			continue;
		}
		/* the pin: nothing of this run is written unless the directory is still ours */
		if ((ret = iom_own_dir_check(&s.rd, err, errlen)) < 0)
			goto done;
		if (t != s.stage.cur) {
			end_visit(&s);
			begin_visit(&s, t);
		}
		s.cur_run = run;
		s.run_t0 = iom_now_ns();
		memset(&s.live, 0, sizeof(s.live));
		show_status(&s, run, s.remaining);
		ret = iom_journal_append(&s.j, IOM_J_RUN_START, run->index, NULL);
		if (ret == -ENOSPC) {
			ret = disk_full(&s, "the journal", err, errlen);
			goto done;
		}
		if (ret < 0) {
			iom_err(err, errlen, -ret, "cannot write the journal in '%s': %s", o->dir,
				strerror(-ret));
			goto done;
		}
		t0 = iom_now_ns();
		s.rate_ret = sweep_derive_rate(&s, run, &s.rate_iops, &s.rate_mb_s, s.rate_err,
					 sizeof(s.rate_err));
		if (o->hosts) {
			/* the other ranks run it too, each its part of the offered load */
			iom_hosts_next(o->hosts, p, run, s.rate_ret, s.rate_iops, s.rate_mb_s);
			iom_hosts_begin_run(o->hosts, p, run); /* … or sit it out */
		}
		if (s.live_on)
			live_begin(&s, run);
		execute_run(&s, run, &r);
		if (s.live_on)
			iom_live_run_end(&s.lv);
		if (o->hosts && (ret = iom_hosts_run_end(o->hosts, &s.rd, o->dir, &r)) < 0 &&
		    !iom_hosts_lost(o->hosts))
			sweep_warn(&s, "run %u: the other ranks' figures or traces did not all arrive "
			     "or could not be written: %s", run->index, strerror(-ret));
		if (r.trace.error == -ENOSPC || r.trace.error == -EDQUOT) {
			ret = trace_full(&s, run, err, errlen);
			iom_run_result_release(&r);
			goto done;
		}
		keep_host_rows(&s, t, &r);
		ret = record_run(&s, run, &r, err, errlen);
		sweep_erase_status(&s);
		print_progress(&s, run, &r);
		if (r.status == IOM_RUN_OK && r.stall.stalled)
			out->stalled++;
		else if (r.status == IOM_RUN_OK && r.steady.asked && !r.steady.reached)
			out->unsteady++;
		else if (r.status == IOM_RUN_OK)
			out->ok++;
		else if (r.status == IOM_RUN_FAILED)
			out->failed++;
		else
			out->interrupted = true;
		iom_run_result_release(&r);
		if (ret < 0)
			goto done;
		if (o->hosts && iom_hosts_lost(o->hosts)) {
			/* a rank is gone: no collective can complete; the run is recorded failed,
			 * and resume carries on */
			out->lost = true;
			out->interrupted = true;
			break;
		}
		if (out->interrupted)
			break;
		s.remaining--;
		if (i + 1 < p->nruns)
			rest(s.m->timing.rest_ns, o->stop);
		s.runs_ns += iom_now_ns() - t0;
		s.runs_timed++;
		s.run_t0 = 0;
	}
	ret = sweep_finish(&s, out, err, errlen);
done:
	if (ret == -ENOSPC)
		out->disk_full = true;
	iom_stage_release(&s.stage);
	sweep_erase_status(&s);
	iom_journal_state_release(&s.st);
	iom_journal_close(&s.j);
	free(s.hrow);
	free(s.hseen);
	if (s.live_on)
		iom_live_close(&s.lv);
	iom_own_dir_release(&s.rd);
	return ret;
}
