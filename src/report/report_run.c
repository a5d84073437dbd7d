/* SPDX-License-Identifier: MIT */
/*
 * report_run — the DiskSpd-style report of one run (`iomatrix report DIR --run N`). Part of the
 * report module (report.h).
 *
 * It follows DiskSpd's text layout column for column, so the people who read DiskSpd output
 * every day find every number where they expect it: input parameters, the CPU table, the
 * Total/Read/Write I/O tables per thread, the percentile table. Like DiskSpd, its "MB/s" is
 * MiB/s (2^20 bytes). What DiskSpd has no place for comes after, under "iomatrix extras".
 */
#include "report_model.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "result/resdir.h"
#include "result/study.h"
#include "units.h"
#include "util.h"

static const char *cell_get(const struct iom_result_file *f, const char *name, const char *def)
{
	const char *v = iom_result_cell_get(f, name);

	return v ? v : def;
}

static void fmt_secs(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%.10gs", (double)ns / 1e9);
}

static void print_input(FILE *out, const struct iom_study_info *s, const struct iom_result_file *f)
{
	const struct iom_run_result *r = &f->r;
	const char *label = cell_get(f, "target", NULL);
	const struct iom_study_target *t = s && label ? iom_study_target_find(s, label) : NULL;
	const char *bs = cell_get(f, "block_size", "?");
	const char *engine = cell_get(f, "engine", "?");
	long rd = strtol(cell_get(f, "read_pct", "-1"), NULL, 10);
	char buf[64];

	fprintf(out, "Input parameters:\n\n");
	fprintf(out, "run: %" PRIu32 " (repetition %" PRIu32 ")\n", r->index, r->repetition);
	fprintf(out, "-------------\n");
	if (s && s->timing.bytes) {
		fprintf(out, "measured size: %" PRIu64 " bytes\n", s->timing.bytes);
	} else if (s) {
		fmt_secs(buf, sizeof(buf), s->timing.duration_ns);
		fprintf(out, "duration: %s\n", buf);
	}
	if (s) {
		fmt_secs(buf, sizeof(buf), s->timing.warmup_ns);
		fprintf(out, "warm up time: %s\n", buf);
		fmt_secs(buf, sizeof(buf), s->timing.cooldown_ns);
		fprintf(out, "cool down time: %s\n", buf);
		fmt_secs(buf, sizeof(buf), s->timing.rest_ns);
		fprintf(out, "rest time: %s\n", buf);
	}
	fprintf(out, "measuring latency\n");
	fprintf(out, "random seed: %" PRIu64 "\n", r->seed);
	if (r->npaths) /* several at once */
		for (size_t i = 0; i < r->npaths; i++)
			fprintf(out, "path: '%s'\n", r->paths[i].path ? r->paths[i].path : "?");
	else
		fprintf(out, "path: '%s'\n", t && t->path ? t->path : "?");
	if (label)
		fprintf(out, "target: '%s'\n", label);
	if (t && (t->controller || (t->has_facts && t->facts.driver)))
		fprintf(out, "controller: %s\n", t->controller ? t->controller : t->facts.driver);
	if (t && t->has_facts && (t->facts.device || t->facts.model))
		fprintf(out, "device: %s%s%s%s\n", t->facts.device ? t->facts.device : "",
			t->facts.model ? " (" : "", t->facts.model ? t->facts.model : "",
			t->facts.model ? ")" : "");
	if (strcmp(cell_get(f, "direct", "true"), "false") == 0)
		fprintf(out, "buffered I/O: page cache enabled\n");
	else
		fprintf(out, "direct I/O (O_DIRECT): page cache bypassed\n");
	/* DiskSpd's words for -Sh/-h (write-through) and without */
	if (strcmp(cell_get(f, "write_through", "false"), "true") == 0)
		fprintf(out, "hardware write cache disabled, writethrough on (O_DSYNC: a write "
			     "completes on stable media)\n");
	else
		fprintf(out, "using hardware write cache, writethrough off\n");
	if (rd == 100)
		fprintf(out, "performing read test\n");
	else if (rd == 0)
		fprintf(out, "performing write test\n");
	else if (rd > 0)
		fprintf(out, "performing mix test (read/write ratio: %ld/%ld)\n", rd, 100 - rd);
	fprintf(out, "block size: %s\n", bs);
	if (strcmp(cell_get(f, "pattern", ""), "sequential") == 0)
		fprintf(out, "using sequential I/O (stride: %s)\n", bs);
	else
		fprintf(out, "using random I/O (alignment: %s)\n", bs);
	fprintf(out, "number of outstanding I/O operations: %s\n", cell_get(f, "queue_depth", "?"));
	if (r->npaths) /* thread i on path i mod npaths */
		fprintf(out, "threads per file: %lld (of %s, thread i on path i mod %zu)\n",
			atoll(cell_get(f, "threads", "0")) / (long long)r->npaths,
			cell_get(f, "threads", "?"), r->npaths);
	else
		fprintf(out, "threads per file: %s\n", cell_get(f, "threads", "?"));
	if (strcmp(engine, "io_uring") == 0)
		fprintf(out, "using io_uring%s\n", r->registered_buffers ? " with registered buffers" :
									    "");
	else if (strcmp(engine, "psync") == 0)
		fprintf(out, "using psync (pread/pwrite)\n");
	else if (strcmp(engine, "null") == 0)
		fprintf(out, "using the null engine (no I/O)\n");
	else
		fprintf(out, "using %s\n", engine);
}

static void print_cpu(FILE *out, const struct iom_run_cpu *c)
{
	fprintf(out, "CPU |  Usage |  User  |  Kernel |  Idle\n");
	fprintf(out, "-------------------------------------------\n");
	for (unsigned i = 0; i <= c->ncpu; i++) {
		const struct iom_cpu_pct *p = i < c->ncpu ? &c->per_cpu[i] : &c->avg;
		double idle = p->idle + p->iowait, usage = 100 - idle;

		if (i == c->ncpu)
			fprintf(out, "-------------------------------------------\navg.");
		else
			fprintf(out, "%4u", i);
		fprintf(out, "| %6.2f%%| %6.2f%%|  %6.2f%%| %6.2f%%\n", usage, p->user,
			usage - p->user, idle);
	}
}

static void print_io_table(FILE *out, const struct iom_study_info *s,
			   const struct iom_result_file *f, enum iom_dir d)
{
	static const char *const title[IOM_NDIR] = { "Read IO", "Write IO", "Total IO" };
	static const char dashes[] = "---------------------------------------------------------"
				     "--------------------------------------------";
	const struct iom_run_result *r = &f->r;
	const char *label = cell_get(f, "target", NULL);
	const struct iom_study_target *t = s && label ? iom_study_target_find(s, label) : NULL;
	double secs = r->elapsed_s > 0 ? r->elapsed_s : NAN;
	uint64_t size = t ? (t->region ? t->region : t->size) : 0;
	char file[512];

	if (t && t->path && size)
		snprintf(file, sizeof(file), "%s (%" PRIu64 "MB)", t->path, size >> 20);
	else
		snprintf(file, sizeof(file), "%s", t && t->path ? t->path : label ? label : "?");
	fprintf(out, "%s\n", title[d]);
	fprintf(out, "thread |       bytes     |     I/Os     |     MB/s   |  I/O per s |  AvgLat  "
		     "| LatStdDev |  file\n%s\n", dashes);
	for (unsigned i = 0; r->threads && i < r->nthreads; i++) {
		const typeof(r->threads[i].dir[d]) *x = &r->threads[i].dir[d];

		fprintf(out, "%6u | %15" PRIu64 " | %12" PRIu64 " | %10.2f | %10.2f | %8.3f | ", i,
			x->bytes, x->ios, (double)x->bytes / secs / 1048576.0, (double)x->ios / secs,
			x->ios ? x->lat_mean_ns / 1e6 : 0.0);
		if (r->npaths) /* thread i's own path */
			snprintf(file, sizeof(file), "%s", r->paths[i % r->npaths].path
							       ? r->paths[i % r->npaths].path : "?");
		if (x->ios)
			fprintf(out, "%9.3f | %s\n", x->lat_stddev_ns / 1e6, file);
		else
			fprintf(out, "%9s | %s\n", "N/A", file);
	}
	fprintf(out, "%s\ntotal: %15" PRIu64 " | %12" PRIu64 " | %10.2f | %10.2f | %8.3f | ", dashes,
		r->dir[d].bytes, r->dir[d].ios, (double)r->dir[d].bytes / secs / 1048576.0,
		(double)r->dir[d].ios / secs, r->dir[d].ios ? r->dir[d].lat.mean / 1e6 : 0.0);
	if (r->dir[d].ios)
		fprintf(out, "%9.3f\n", r->dir[d].lat.stddev / 1e6);
	else
		fprintf(out, "%9s\n", "N/A");
}

static void print_pct_table(FILE *out, const struct iom_run_result *r)
{
	static const struct {
		const char *name;
		double pct;   /* 0: min, 100: max */
	} rows[] = {
		{ "min", 0 }, { "25th", 25 }, { "50th", 50 }, { "75th", 75 }, { "90th", 90 },
		{ "95th", 95 }, { "99th", 99 }, { "3-nines", 99.9 }, { "4-nines", 99.99 },
		{ "5-nines", 99.999 }, { "6-nines", 99.9999 }, { "7-nines", 99.99999 },
		{ "8-nines", 99.999999 }, { "9-nines", 99.9999999 }, { "max", 100 },
	};
	static const enum iom_dir cols[] = { IOM_DIR_READ, IOM_DIR_WRITE, IOM_DIR_TOTAL };

	char few[48];

	/* too few I/Os for percentiles to mean anything */
	if (iom_result_few_ios_text(r->dir[IOM_DIR_TOTAL].ios, few, sizeof(few))) {
		fprintf(out, "latency percentiles: %s; min %.3f ms, max %.3f ms\n", few,
			(double)r->dir[IOM_DIR_TOTAL].lat.min / 1e6,
			(double)r->dir[IOM_DIR_TOTAL].lat.max / 1e6);
		return;
	}
	fprintf(out, "  %%-ile |  Read (ms) | Write (ms) | Total (ms)\n");
	fprintf(out, "----------------------------------------------\n");
	for (size_t i = 0; i < IOM_ARRAY_SIZE(rows); i++) {
		fprintf(out, "%7s", rows[i].name);
		for (size_t c = 0; c < IOM_ARRAY_SIZE(cols); c++) {
			const struct iom_io_stats *s = &r->dir[cols[c]];
			int p = iom_percentile_index(rows[i].pct);
			uint64_t ns = rows[i].pct == 0 ? s->lat.min : rows[i].pct == 100 ? s->lat.max :
				      p >= 0 ? s->lat.pct[p] : 0;

			if (s->ios)
				fprintf(out, " | %10.3f", (double)ns / 1e6);
			else
				fprintf(out, " | %10s", "N/A");
		}
		fputc('\n', out);
	}
}

/* an access spec's lines and a multi-path target's paths, each with its figures. */
static void print_lines_paths(FILE *out, const struct iom_run_result *r)
{
	int p99 = iom_percentile_index(99);

	if (r->nlines) {
		fprintf(out, "access spec '%s', line by line (MB/s decimal):\n",
			r->access ? r->access : "?");
		fprintf(out, "  %4s %5s %8s %5s %7s %10s %10s %9s %10s %10s\n", "line", "share",
			"block", "read%", "random%", "I/Os", "IOPS", "MB/s", "mean", "p99");
		for (size_t l = 0; l < r->nlines; l++) {
			const struct iom_line_stats *ls = &r->lines[l];
			const struct iom_io_stats *t = &ls->dir[IOM_DIR_TOTAL];
			char bs[32], mean[32], p[32];

			iom_size_format(ls->block_size, bs, sizeof(bs));
			iom_lat_format(t->lat.mean, mean, sizeof(mean));
			iom_lat_format(p99 >= 0 && t->ios ? (double)t->lat.pct[p99] : NAN, p,
				       sizeof(p));
			fprintf(out, "  %4zu %4u%% %8s %5u %7u %10" PRIu64 " %10.1f %9.2f %10s %10s\n",
				l + 1, ls->share, bs, ls->read_pct, ls->random_pct, t->ios, t->iops,
				t->mb_s, mean, p);
		}
	}
	if (r->npaths) {
		fprintf(out, "paths, one by one (MB/s decimal):\n");
		for (size_t i = 0; i < r->npaths; i++) {
			const struct iom_io_stats *t = &r->paths[i].dir[IOM_DIR_TOTAL];

			fprintf(out, "  %s: %" PRIu64 " I/Os, %.1f IOPS, %.2f MB/s\n",
				r->paths[i].path ? r->paths[i].path : "?", t->ios, t->iops, t->mb_s);
		}
	}
}

static void print_extras(FILE *out, const struct iom_run_result *r)
{
	const struct iom_run_cpu *c = &r->cpu;
	const struct iom_io_stats *t = &r->dir[IOM_DIR_TOTAL];

	fprintf(out, "\niomatrix extras:\n");
	fprintf(out, "MB/s above is MiB/s (2^20 bytes per second), as DiskSpd prints it; in decimal "
		     "MB/s (10^6):\n  total %.2f, read %.2f, write %.2f\n",
		t->mb_s, r->dir[IOM_DIR_READ].mb_s, r->dir[IOM_DIR_WRITE].mb_s);
	{
		size_t full = 0;

		for (size_t i = 0; i < r->nintervals; i++)
			full += iom_interval_full(&r->intervals[i]);
		if (isfinite(r->iops_stddev))
			fprintf(out, "over %zu full intervals of 1 s: IOPS stddev %.2f, MB/s stddev "
				     "%.2f (decimal)\n", full, r->iops_stddev, r->mb_s_stddev);
		else
			fprintf(out, "IOPS and MB/s stddev: n/a (%zu full interval%s of 1 s; it takes "
				     "two)\n", full, full == 1 ? "" : "s");
	}
	fprintf(out, "mean queue depth achieved: %.2f\n", r->qd_mean);
	fprintf(out, "CPU: Kernel above includes irq, softirq and steal; iowait counts as Idle\n"
		     "  avg. iowait %.2f%%, irq %.2f%%, softirq %.2f%%, steal %.2f%%\n",
		c->avg.iowait, c->avg.irq, c->avg.softirq, c->avg.steal);
	fprintf(out, "iomatrix CPU: user %.3fs, system %.3fs, %.2f µs per I/O\n", c->proc_user_s,
		c->proc_sys_s, c->us_per_io);
	if (c->system_busy_pct > 0)
		fprintf(out, "system CPU (all CPUs, user+nice+system+irq+softirq): %.2f%% busy, %.2f µs "
			"per I/O, %.0f IOPS per busy %% (CPU effectiveness)\n", c->system_busy_pct,
			c->system_us_per_io, c->iops_per_busy_pct);
	if (c->irq_drivers)
		fprintf(out, "interrupts on %s lines: %" PRIu64 " (%.3f per I/O)\n", c->irq_drivers,
			c->interrupts, c->interrupts_per_io);
	fprintf(out, "latency of all I/O: min %.3f ms, mean %.3f ms, max %.3f ms\n",
		(double)t->lat.min / 1e6, t->lat.mean / 1e6, (double)t->lat.max / 1e6);
	if (r->disk.have) {
		const struct iom_run_disk *d = &r->disk;

		fprintf(out, "disk %s over the window: %" PRIu64 " reads, %" PRIu64 " writes, ",
			d->name, d->reads, d->writes);
		if (d->has_flushes)
			fprintf(out, "%" PRIu64 " flushes", d->flushes);
		else
			fputs("flushes not counted by this kernel", out);
		fprintf(out, "; write cache: %s, FUA: %s\n", d->write_cache[0] ? d->write_cache :
			"unknown", d->fua < 0 ? "unknown" : d->fua ? "yes" : "no");
	}
	if (r->load.paced) {
		const struct iom_lat *rt = &r->load.response[IOM_DIR_TOTAL];
		char load[160];

		iom_run_load_describe(&r->load, load, sizeof(load));
		fprintf(out, "offered load (%s arrivals): %s\n", r->load.poisson ? "Poisson" :
			"fixed", load);
		fprintf(out, "response time of all I/O (from each I/O's due time): min %.3f ms, mean "
			     "%.3f ms, p99 %.3f ms, max %.3f ms; the latencies above are service "
			     "times (from submission)\n", (double)rt->min / 1e6, rt->mean / 1e6,
			(double)rt->pct[iom_percentile_index(99)] / 1e6, (double)rt->max / 1e6);
	}
	fprintf(out, "outside the measured window: %" PRIu64 " I/Os warming up, %" PRIu64
		     " cooling down\n", r->warmup_ios, r->cooldown_ios);
	if (r->engine_notes && *r->engine_notes)
		fprintf(out, "engine: %s\n", r->engine_notes);
	print_lines_paths(out, r);
}

int iom_report_print_run(FILE *out, const struct iom_study_info *s,
			 const struct iom_result_file *f)
{
	const struct iom_run_result *r = &f->r;

	if (s)
		fprintf(out, "Study: '%s' (iomatrix %s, plan %016" PRIx64 ") on %s, kernel %.*s\n\n",
			s->name ? s->name : "?", s->tool_version ? s->tool_version : "?",
			s->plan_hash, s->host ? s->host : "?",
			s->kernel ? (int)strcspn(s->kernel, " ") : 1, s->kernel ? s->kernel : "?");
	print_input(out, s, f);
	fprintf(out, "\nResults for run %" PRIu32 ":\n", r->index);
	fprintf(out, "*******************************************************************************"
		     "\n\n");
	if (r->status == IOM_RUN_FAILED) {
		fprintf(out, "run failed: %s\n", r->error && *r->error ? r->error :
			"no reason recorded");
		return ferror(out) ? -EIO : 0;
	}
	if (r->status == IOM_RUN_INTERRUPTED)
		fprintf(out, "run interrupted%s%s: the figures cover part of the window\n",
			r->error && *r->error ? ": " : "", r->error && *r->error ? r->error : "");
	if (r->stall.stalled)
		fprintf(out, "run stalled: %s; its figures are not the device's, and the winners "
			"leave it out\n", r->stall.reason ? r->stall.reason : "the window stalled");
	fprintf(out, "actual test time: %.2fs\n", r->elapsed_s);
	fprintf(out, "thread count: %u\n", r->nthreads);
	fprintf(out, "proc count: %u\n\n", r->cpu.ncpu);
	print_cpu(out, &r->cpu);
	fputc('\n', out);
	print_io_table(out, s, f, IOM_DIR_TOTAL);
	fputc('\n', out);
	print_io_table(out, s, f, IOM_DIR_READ);
	fputc('\n', out);
	print_io_table(out, s, f, IOM_DIR_WRITE);
	print_pct_table(out, r);
	print_extras(out, r);
	return ferror(out) ? -EIO : 0;
}

int iom_report_run(FILE *out, const char *dir, uint32_t index,
		   const struct iom_report_opts_cli *o, char *err, size_t errlen)
{
	struct iom_study_info s;
	struct iom_result_file f;
	char *path = xasprintf("%s/study.json", dir);
	int ret;

	(void)o;
	ret = iom_study_read(path, &s, err, errlen);
	free(path);
	if (ret < 0) {
		iom_study_info_release(&s);
		return ret;
	}
	path = iom_result_path(dir, index);
	ret = iom_result_read(path, &f, err, errlen);
	if (ret == -ENOENT)
		iom_err(err, errlen, ENOENT, "no run %" PRIu32 " in '%s' (%s is missing)", index, dir,
			path);
	if (ret == 0) {
		ret = iom_report_print_run(out, &s, &f);
		if (ret < 0)
			iom_err(err, errlen, -ret, "cannot write the report: %s", strerror(-ret));
	}
	free(path);
	iom_result_file_release(&f);
	iom_study_info_release(&s);
	return ret;
}
