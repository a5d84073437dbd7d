/*
 * sweep — runs a plan into a results directory. See sweep.h.
 *
 * Order of things, each step on disk before the next:
 *   lock + journal → matrix.cfg → targets prepared (device facts) → study.json →
 *   for each run: journal run-start → run → runs/NNNNN.json → summary.csv → journal run-done
 *   → rest → … → study.json (end) → summary.csv rebuilt → journal study-end → winners table.
 */
#include "sweep.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "journal.h"
#include "report.h"
#include "result.h"
#include "run.h"
#include "target.h"
#include "trace.h"
#include "units.h"
#include "util.h"

struct sweep {
	const struct iom_plan *p;
	const struct iom_matrix *m;
	const struct iom_sweep_opts *o;
	FILE *out;
	struct iom_journal j;
	struct iom_journal_state st;
	struct iom_target_info *info;   /* per target; info[i].t == NULL when preparing failed */
	char **target_error;            /* why target i could not be prepared */
	uint64_t start_wall_ns;
};

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

static bool dir_is_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool empty = true;

	if (!d)
		return errno == ENOENT;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			empty = false;
			break;
		}
	closedir(d);
	return empty;
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
		uint64_t need = iom_cell_buffer_bytes(c);

		if (need > avail) {
			char bs[32], need_s[32], avail_s[32], desc[256];

			iom_dim_format(IOM_DIM_BLOCK_SIZE, c->v[IOM_DIM_BLOCK_SIZE], bs, sizeof(bs));
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

/* Whether any cell of target t writes. */
static bool target_writes(const struct iom_plan *p, size_t t)
{
	for (size_t i = 0; i < p->ncells; i++)
		if ((size_t)p->cells[i].v[IOM_DIM_TARGET] == t && p->cells[i].v[IOM_DIM_READ_PCT] < 100)
			return true;
	return false;
}

static void prepare_targets(struct sweep *s)
{
	const struct iom_matrix *m = s->m;
	char err[IOM_ERRLEN];

	s->info = xcalloc(m->ntargets, sizeof(*s->info));
	s->target_error = xcalloc(m->ntargets, sizeof(*s->target_error));
	for (size_t i = 0; i < m->ntargets; i++) {
		int ret;

		if (!s->o->quiet)
			fprintf(s->out, "preparing target '%s' (%s)\n", m->targets[i].label,
				m->targets[i].path);
		ret = iom_target_prepare(&m->targets[i], target_writes(s->p, i), &s->info[i], err,
					 sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "iomatrix: target '%s': %s\n", m->targets[i].label, err);
			s->target_error[i] = xstrdup(err);
			iom_target_info_release(&s->info[i]);
			memset(&s->info[i], 0, sizeof(s->info[i]));
		}
	}
}

static void release_targets(struct sweep *s)
{
	if (!s->info)
		return;
	for (size_t i = 0; i < s->m->ntargets; i++) {
		if (s->info[i].t)
			iom_target_info_release(&s->info[i]);
		free(s->target_error[i]);
	}
	free(s->info);
	free(s->target_error);
}

static int write_study(struct sweep *s, uint64_t end_wall_ns, char *err, size_t errlen)
{
	struct iom_study_record rec = {
		.plan = s->p,
		.ov = s->o->ov,
		.nov = s->o->nov,
		.targets = s->info,
		.ntargets = s->m->ntargets,
		.start_wall_ns = s->start_wall_ns,
		.end_wall_ns = end_wall_ns,
	};

	return iom_study_write(s->o->dir, &rec, err, errlen);
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

/* Executes one run of the plan into r. Never fails the sweep: a failure is r's status. */
static void execute_run(struct sweep *s, const struct iom_run *run, struct iom_run_result *r)
{
	const struct iom_cell *c = &s->p->cells[run->cell];
	size_t t = (size_t)c->v[IOM_DIM_TARGET];
	const struct iom_target_info *info = &s->info[t];
	bool writes = c->v[IOM_DIM_READ_PCT] < 100;
	bool direct = c->v[IOM_DIM_DIRECT] != 0;
	struct iom_run_spec spec = { 0 };
	char err[IOM_ERRLEN], cell_text[256];
	char *trace_path = NULL;
	int fd;

	memset(r, 0, sizeof(*r));
	r->index = run->index;
	r->repetition = run->repetition;
	r->seed = run->seed;
	if (!info->t) {
		r->status = IOM_RUN_FAILED;
		r->error = xasprintf("target '%s' is not usable: %s", s->m->targets[t].label,
				     s->target_error[t]);
		return;
	}
	fd = iom_target_open(info, direct, writes, err, sizeof(err));
	if (fd < 0) {
		r->status = IOM_RUN_FAILED;
		r->error = xstrdup(err);
		return;
	}
	spec.fd = fd;
	spec.region = info->region;
	spec.irq_drivers = info->facts.irq_names;
	iom_run_spec_set_cell(&spec, c);
	spec.timing = s->m->timing;
	spec.seed = run->seed;
	spec.index = run->index;
	spec.repetition = run->repetition;
	spec.stop = s->o->stop;
	if (s->m->trace && !s->o->no_trace) {
		iom_cell_describe(s->p, c, cell_text, sizeof(cell_text));
		trace_path = iom_trace_path(s->o->dir, run->index);
		spec.trace_path = trace_path;
		spec.cell_text = cell_text;
	}
	iom_run_execute(&spec, r, err, sizeof(err));
	free(trace_path);
	close(fd);
}

static void print_progress(struct sweep *s, const struct iom_run *run,
			   const struct iom_run_result *r)
{
	char desc[256], when[32], iops[32], mbs[32], p99[32];
	const struct iom_io_stats *tot = &r->dir[IOM_DIR_TOTAL];

	if (s->o->quiet && r->status == IOM_RUN_OK)
		return;
	iom_format_utc(when, sizeof(when), iom_wall_ns());
	iom_cell_describe(s->p, &s->p->cells[run->cell], desc, sizeof(desc));
	if (r->status != IOM_RUN_OK) {
		fprintf(s->out, "%s run %u/%zu rep %u  %s  %s: %s\n", when, run->index,
			s->p->nruns, run->repetition, desc, iom_run_status_name(r->status),
			r->error ? r->error : "");
		fflush(s->out);
		return;
	}
	iom_report_fmt_count(iops, sizeof(iops), tot->iops);
	snprintf(mbs, sizeof(mbs), "%.1f", tot->mb_s);
	iom_report_fmt_lat(p99, sizeof(p99), (double)tot->lat.pct[iom_percentile_index(99)]);
	fprintf(s->out, "%s run %u/%zu rep %u  %s  %s IOPS  %s MB/s  p99 %s", when, run->index,
		s->p->nruns, run->repetition, desc, iops, mbs, p99);
	if (r->trace.file)
		fprintf(s->out, "  trace %.1f bytes per I/O%s", r->trace.bytes_per_io,
			r->trace.dropped ? " (records dropped)" : "");
	fputc('\n', s->out);
	fflush(s->out);
}

/* Records run r: its result file, its summary row, then the journal entry that makes it count. */
static int record_run(struct sweep *s, const struct iom_run *run, const struct iom_run_result *r,
		      char *err, size_t errlen)
{
	const struct iom_cell *c = &s->p->cells[run->cell];
	enum iom_journal_event ev;
	char *name;
	int ret;

	ret = iom_result_write(s->o->dir, s->m, c, r, err, errlen);
	if (ret < 0)
		return ret;
	if (r->status == IOM_RUN_INTERRUPTED)
		return iom_journal_append(&s->j, IOM_J_RUN_INTERRUPTED, run->index, NULL);
	ret = iom_summary_append(s->o->dir, s->m, c, r, err, errlen);
	if (ret < 0)
		return ret;
	name = iom_result_path("", run->index);
	ev = r->status == IOM_RUN_OK ? IOM_J_RUN_DONE : IOM_J_RUN_FAILED;
	ret = iom_journal_append(&s->j, ev, run->index,
				 ev == IOM_J_RUN_DONE ? name + 1 : r->error);
	free(name);
	if (ret < 0)
		return iom_err(err, errlen, -ret, "cannot write the journal in '%s': %s", s->o->dir,
			       strerror(-ret));
	return 0;
}

static int open_dir(struct sweep *s, char *err, size_t errlen)
{
	const struct iom_sweep_opts *o = s->o;
	int ret;

	if (!o->resume && !dir_is_empty(o->dir))
		return iom_err(err, errlen, EEXIST,
			       "results directory '%s' is not empty (resume it with 'iomatrix resume "
			       "%s', or choose another with -o)", o->dir, o->dir);
	ret = iom_results_dir_create(o->dir, err, errlen);
	if (ret < 0)
		return ret;
	ret = iom_journal_open(&s->j, o->dir, err, errlen);
	if (ret < 0)
		return ret;
	if (o->resume) {
		ret = iom_journal_replay(o->dir, s->p->nruns, &s->st, err, errlen);
		if (ret < 0)
			return ret;
		return iom_journal_append(&s->j, IOM_J_RESUME, 0, NULL);
	}
	s->st.nruns = s->p->nruns;
	s->st.run = xcalloc(s->p->nruns + 1, 1);
	ret = iom_results_write_matrix(o->dir, s->m->as_run, err, errlen);
	if (ret < 0)
		return ret;
	{
		char detail[64];

		snprintf(detail, sizeof(detail), "plan %016" PRIx64 " runs %zu", s->p->hash,
			 s->p->nruns);
		return iom_journal_append(&s->j, IOM_J_STUDY_START, 0, detail);
	}
}

int iom_sweep_execute(const struct iom_plan *p, const struct iom_sweep_opts *o,
		      struct iom_sweep_outcome *out, char *err, size_t errlen)
{
	struct sweep s = { .p = p, .m = p->m, .o = o, .out = o->out ? o->out : stdout,
			   .j = { .fd = -1, .lock_fd = -1 } };
	int ret;

	memset(out, 0, sizeof(*out));
	s.start_wall_ns = iom_wall_ns();
	ret = check_memory(p, err, errlen);
	if (ret < 0)
		return ret;
	ret = open_dir(&s, err, errlen);
	if (ret < 0)
		goto done;
	prepare_targets(&s);
	ret = write_study(&s, 0, err, errlen);
	if (ret < 0)
		goto done;

	for (size_t i = 0; i < p->nruns; i++) {
		const struct iom_run *run = &p->runs[i];
		struct iom_run_result r;

		if (o->stop && *o->stop) {
			out->interrupted = true;
			break;
		}
		if (s.st.run[run->index] != IOM_RS_PENDING) {
			out->skipped++;
			continue;
		}
		ret = iom_journal_append(&s.j, IOM_J_RUN_START, run->index, NULL);
		if (ret < 0) {
			iom_err(err, errlen, -ret, "cannot write the journal in '%s': %s", o->dir,
				strerror(-ret));
			goto done;
		}
		execute_run(&s, run, &r);
		ret = record_run(&s, run, &r, err, errlen);
		print_progress(&s, run, &r);
		if (r.status == IOM_RUN_OK)
			out->ok++;
		else if (r.status == IOM_RUN_FAILED)
			out->failed++;
		else
			out->interrupted = true;
		iom_run_result_release(&r);
		if (ret < 0)
			goto done;
		if (out->interrupted)
			break;
		if (i + 1 < p->nruns)
			rest(s.m->timing.rest_ns, o->stop);
	}

	ret = write_study(&s, out->interrupted ? 0 : iom_wall_ns(), err, errlen);
	if (ret < 0)
		goto done;
	ret = iom_summary_rebuild(o->dir, err, errlen);
	if (ret < 0)
		goto done;
	if (!out->interrupted) {
		ret = iom_journal_append(&s.j, IOM_J_STUDY_END, 0, NULL);
		if (ret < 0)
			goto done;
	}
done:
	release_targets(&s);
	iom_journal_state_release(&s.st);
	iom_journal_close(&s.j);
	return ret;
}
