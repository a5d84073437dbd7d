/* SPDX-License-Identifier: MIT */
/*
 * report_diskspd — one run as DiskSpd's XML results (`report --format diskspd-xml --run N`, and
 * `iomatrix diskspd … -Rxml`), for what reads DiskSpd's -Rxml output (Process-DiskSpd.ps1,
 * VMFleet's scripts, dashboards). Part of the report module (report.h); docs/interop.md.
 *
 * The element names and nesting are those DiskSpd's XmlResultParser writes: <Results> holding
 * <System>, the <Profile> the run amounts to (its <TimeSpans><TimeSpan> with the target's
 * <Path>, <BlockSize>, <RequestCount>, <WriteRatio>, …), and one <TimeSpan> of results —
 * <TestTimeSeconds>, <ThreadCount>, <ProcCount>, <CpuUtilization> (a <CPU> per processor and
 * the <Average>), <Latency> (the averages, then a <Bucket> per percentile 0, 1 … 99, 99.9 …
 * 99.9999999, 100 with <ReadMilliseconds>, <WriteMilliseconds>, <TotalMilliseconds>, from the
 * run's kept histograms), <Iops> (the spread and a <Bucket> per 1-second interval) and a
 * <Thread> per thread with its <Target> counts and mean latencies. Times are milliseconds with
 * three decimals, as DiskSpd writes them.
 */
#include "report_model.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "result/resdir.h"
#include "result/study.h"
#include "stats.h"
#include "util.h"

#ifndef IOM_VERSION
#define IOM_VERSION "0.1"
#endif

struct xml {
	FILE *out;
	int indent;
};

static void pad(struct xml *x)
{
	fprintf(x->out, "%*s", x->indent, "");
}

/* text escaped for an element's content or an attribute */
static void esc(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out); break;
		}
	}
}

static void open_el(struct xml *x, const char *name)
{
	pad(x);
	fprintf(x->out, "<%s>\n", name);
	x->indent += 2;
}

static void close_el(struct xml *x, const char *name)
{
	x->indent -= 2;
	pad(x);
	fprintf(x->out, "</%s>\n", name);
}

static void str_el(struct xml *x, const char *name, const char *v)
{
	pad(x);
	fprintf(x->out, "<%s>", name);
	esc(x->out, v);
	fprintf(x->out, "</%s>\n", name);
}

static void u64_el(struct xml *x, const char *name, uint64_t v)
{
	pad(x);
	fprintf(x->out, "<%s>%" PRIu64 "</%s>\n", name, v, name);
}

static void num_el(struct xml *x, const char *name, const char *fmt, double v)
{
	pad(x);
	fprintf(x->out, "<%s>", name);
	fprintf(x->out, fmt, isfinite(v) ? v : 0);
	fprintf(x->out, "</%s>\n", name);
}

static const char *bool_text(bool b)
{
	return b ? "true" : "false";
}

static uint64_t cell_u64(const struct iom_result_file *f, const char *name, uint64_t def)
{
	const char *v = iom_result_cell_get(f, name);

	return v ? strtoull(v, NULL, 10) : def;
}

static bool cell_true(const struct iom_result_file *f, const char *name)
{
	const char *v = iom_result_cell_get(f, name);

	return v && strcmp(v, "true") == 0;
}

static void system_xml(struct xml *x, const struct iom_study_info *s, const struct iom_run_result *r)
{
	char utc[40];

	open_el(x, "System");
	str_el(x, "ComputerName", s->host ? s->host : "");
	open_el(x, "Tool");
	str_el(x, "Version", "iomatrix " IOM_VERSION);
	str_el(x, "VersionDate", "");
	close_el(x, "Tool");
	iom_format_utc(utc, sizeof(utc), r->start_wall_ns);
	str_el(x, "RunTime", utc);
	close_el(x, "System");
}

/* The profile the run amounts to, in DiskSpd's terms. */
static void profile_xml(struct xml *x, const struct iom_study_info *s,
			const struct iom_result_file *f)
{
	const char *label = iom_result_cell_get(f, "target");
	const struct iom_study_target *t = label ? iom_study_target_find(s, label) : NULL;
	const char *pat = iom_result_cell_get(f, "pattern");
	uint64_t bs = cell_u64(f, "block_size", 0);

	open_el(x, "Profile");
	u64_el(x, "Progress", 0);
	str_el(x, "ResultFormat", "xml");
	str_el(x, "Verbose", "false");
	open_el(x, "TimeSpans");
	open_el(x, "TimeSpan");
	str_el(x, "CompletionRoutines", "false");
	str_el(x, "MeasureLatency", "true");
	str_el(x, "CalculateIopsStdDev", "true");
	str_el(x, "DisableAffinity", "false");
	u64_el(x, "Duration", s->timing.duration_ns / 1000000000u);
	u64_el(x, "Warmup", s->timing.warmup_ns / 1000000000u);
	u64_el(x, "Cooldown", s->timing.cooldown_ns / 1000000000u);
	u64_el(x, "ThreadCount", 0);
	u64_el(x, "RequestCount", 0);
	u64_el(x, "IoBucketDuration", IOM_INTERVAL_NS / 1000000u);
	u64_el(x, "RandSeed", f->r.seed);
	open_el(x, "Targets");
	open_el(x, "Target");
	str_el(x, "Path", t && t->path ? t->path : label ? label : "");
	u64_el(x, "BlockSize", bs);
	u64_el(x, "BaseFileOffset", 0);
	str_el(x, "SequentialScan", "false");
	str_el(x, "RandomAccess", "false");
	str_el(x, "TemporaryFile", "false");
	str_el(x, "UseLargePages", "false");
	str_el(x, "DisableOSCache", bool_text(cell_true(f, "direct")));
	str_el(x, "WriteThrough", bool_text(cell_true(f, "write_through")));
	if (pat && strcmp(pat, "sequential") == 0)
		u64_el(x, "StrideSize", bs);
	else
		u64_el(x, "Random", bs);
	u64_el(x, "ThreadStride", 0);
	u64_el(x, "MaxFileSize", 0);
	u64_el(x, "FileSize", t ? t->size : 0);
	u64_el(x, "RequestCount", cell_u64(f, "queue_depth", 1));
	u64_el(x, "WriteRatio", 100 - cell_u64(f, "read_pct", 100));
	u64_el(x, "Throughput", 0);
	u64_el(x, "ThreadsPerFile", cell_u64(f, "threads", 1));
	u64_el(x, "IOPriority", 3);
	u64_el(x, "Weight", 1);
	close_el(x, "Target");
	close_el(x, "Targets");
	close_el(x, "TimeSpan");
	close_el(x, "TimeSpans");
	close_el(x, "Profile");
}

static void cpu_el(struct xml *x, const char *name, unsigned id, const struct iom_cpu_pct *c)
{
	double idle = c->idle + c->iowait, usage = 100 - idle;

	open_el(x, name);
	if (strcmp(name, "CPU") == 0) {
		u64_el(x, "Socket", 0);
		u64_el(x, "Node", 0);
		u64_el(x, "Group", 0);
		u64_el(x, "Core", id);
		u64_el(x, "EfficiencyClass", 0);
		u64_el(x, "Id", id);
	}
	num_el(x, "UsagePercent", "%.2f", usage);
	num_el(x, "UserPercent", "%.2f", c->user);
	num_el(x, "KernelPercent", "%.2f", usage - c->user);
	num_el(x, "IdlePercent", "%.2f", idle);
	close_el(x, name);
}

/* One <Bucket> of the percentile table: the latency of each direction at pct, in ms. */
static void pct_bucket(struct xml *x, const char *label, const struct iom_hist *h,
		       const struct iom_run_result *r, double pct)
{
	static const char *const names[IOM_NDIR] = { "ReadMilliseconds", "WriteMilliseconds",
						     "TotalMilliseconds" };

	open_el(x, "Bucket");
	str_el(x, "Percentile", label);
	for (int d = 0; d < IOM_NDIR; d++) {
		double v;

		if (!r->dir[d].ios)
			continue;
		if (h) {
			v = (double)iom_hist_percentile(&h[d], pct);
		} else {
			int i = iom_percentile_index(pct);

			if (pct <= 0)
				v = (double)r->dir[d].lat.min;
			else if (pct >= 100)
				v = (double)r->dir[d].lat.max;
			else if (i >= 0)
				v = (double)r->dir[d].lat.pct[i];
			else
				continue;
		}
		num_el(x, names[d], "%.3f", v / 1e6);
	}
	close_el(x, "Bucket");
}

static void latency_xml(struct xml *x, const struct iom_run_result *r)
{
	static const char *const avg[IOM_NDIR] = { "AverageReadMilliseconds",
						   "AverageWriteMilliseconds",
						   "AverageTotalMilliseconds" };
	static const char *const sd[IOM_NDIR] = { "ReadLatencyStdev", "WriteLatencyStdev",
						  "LatencyStdev" };
	struct iom_hist *h = NULL;
	char label[32];

	if (r->has_hist) {
		h = xcalloc(IOM_NDIR, sizeof(*h));
		for (int d = 0; d < IOM_NDIR; d++)
			iom_hist_sparse_merge(&h[d], &r->hist[d]);
	}
	pad(x);
	fprintf(x->out, "<Latency ReadHistoBuckets=\"%u\" WriteHistoBuckets=\"%u\" "
		"TotalHistoBuckets=\"%u\">\n", r->hist[0].nbins, r->hist[1].nbins, r->hist[2].nbins);
	x->indent += 2;
	for (int d = 0; d < IOM_NDIR; d++) {
		if (!r->dir[d].ios)
			continue;
		num_el(x, avg[d], "%.3f", r->dir[d].lat.mean / 1e6);
		num_el(x, sd[d], "%.3f", r->dir[d].lat.stddev / 1e6);
	}
	pct_bucket(x, "0", h, r, 0);
	for (int p = 1; p <= 99; p++) {
		snprintf(label, sizeof(label), "%d", p);
		pct_bucket(x, label, h, r, p);
	}
	for (int n = 1; n <= 7; n++) {
		double pct = 100 - 1.0 / pow(10, n);

		snprintf(label, sizeof(label), "%.*f", n, pct);
		pct_bucket(x, label, h, r, pct);
	}
	pct_bucket(x, "100", h, r, 100);
	close_el(x, "Latency");
	free(h);
}

/* The spread of the full 1-second intervals' IOPS of direction d (2: both). */
static double iops_sd(const struct iom_run_result *r, int d)
{
	double *v = xcalloc(r->nintervals + 1, sizeof(*v)), s;
	size_t n = 0;

	for (size_t i = 0; i < r->nintervals; i++) {
		const struct iom_interval *iv = &r->intervals[i];

		if (iom_interval_full(iv))
			v[n++] = (double)(d == 2 ? iv->ios[0] + iv->ios[1] : iv->ios[d]) /
				 iom_interval_secs(iv);
	}
	s = n > 1 ? iom_stats_stddev(v, n) : 0;
	free(v);
	return s;
}

static void iops_xml(struct xml *x, const struct iom_run_result *r)
{
	open_el(x, "Iops");
	if (r->dir[IOM_DIR_READ].ios)
		num_el(x, "ReadIopsStdDev", "%.3f", iops_sd(r, 0));
	if (r->dir[IOM_DIR_WRITE].ios)
		num_el(x, "WriteIopsStdDev", "%.3f", iops_sd(r, 1));
	num_el(x, "IopsStdDev", "%.3f", iops_sd(r, 2));
	for (size_t i = 0; i < r->nintervals; i++) {
		const struct iom_interval *iv = &r->intervals[i];
		double secs = iom_interval_secs(iv);

		pad(x);
		fprintf(x->out, "<Bucket SampleMillisecond=\"%zu\" Read=\"%.0f\" Write=\"%.0f\" "
			"Total=\"%.0f\"/>\n", (i + 1) * (size_t)(IOM_INTERVAL_NS / 1000000u),
			(double)iv->ios[0] / secs, (double)iv->ios[1] / secs,
			(double)(iv->ios[0] + iv->ios[1]) / secs);
	}
	close_el(x, "Iops");
}

static void threads_xml(struct xml *x, const struct iom_study_info *s,
			const struct iom_result_file *f)
{
	const struct iom_run_result *r = &f->r;
	const char *label = iom_result_cell_get(f, "target");
	const struct iom_study_target *t = label ? iom_study_target_find(s, label) : NULL;

	for (unsigned i = 0; i < r->nthreads; i++) {
		const struct iom_thread_stats *ts = &r->threads[i];

		open_el(x, "Thread");
		u64_el(x, "Id", i);
		open_el(x, "Target");
		str_el(x, "Path", t && t->path ? t->path : label ? label : "");
		u64_el(x, "BytesCount", ts->dir[IOM_DIR_TOTAL].bytes);
		u64_el(x, "FileSize", t ? (t->region ? t->region : t->size) : 0);
		u64_el(x, "IOCount", ts->dir[IOM_DIR_TOTAL].ios);
		u64_el(x, "ReadBytes", ts->dir[IOM_DIR_READ].bytes);
		u64_el(x, "ReadCount", ts->dir[IOM_DIR_READ].ios);
		u64_el(x, "WriteBytes", ts->dir[IOM_DIR_WRITE].bytes);
		u64_el(x, "WriteCount", ts->dir[IOM_DIR_WRITE].ios);
		if (ts->dir[IOM_DIR_READ].ios) {
			num_el(x, "AverageReadLatencyMilliseconds", "%.3f",
			       ts->dir[IOM_DIR_READ].lat_mean_ns / 1e6);
			num_el(x, "ReadLatencyStdev", "%.3f", ts->dir[IOM_DIR_READ].lat_stddev_ns / 1e6);
		}
		if (ts->dir[IOM_DIR_WRITE].ios) {
			num_el(x, "AverageWriteLatencyMilliseconds", "%.3f",
			       ts->dir[IOM_DIR_WRITE].lat_mean_ns / 1e6);
			num_el(x, "WriteLatencyStdev", "%.3f",
			       ts->dir[IOM_DIR_WRITE].lat_stddev_ns / 1e6);
		}
		if (ts->dir[IOM_DIR_TOTAL].ios) {
			num_el(x, "AverageLatencyMilliseconds", "%.3f",
			       ts->dir[IOM_DIR_TOTAL].lat_mean_ns / 1e6);
			num_el(x, "LatencyStdev", "%.3f", ts->dir[IOM_DIR_TOTAL].lat_stddev_ns / 1e6);
		}
		close_el(x, "Target");
		close_el(x, "Thread");
	}
}

int iom_report_write_diskspd_xml(FILE *out, const struct iom_report *m,
				 const struct iom_report_opts_cli *o, char *err, size_t errlen)
{
	struct xml x = { .out = out };
	struct iom_result_file f;
	const struct iom_study_info *s;
	const struct iom_run_result *r = &f.r;
	char *path;
	size_t src;
	uint32_t run;
	int ret;

	if (!o || !o->run)
		return iom_err(err, errlen, EINVAL, "diskspd-xml is the results of one run, as "
			       "DiskSpd's -Rxml: say which with --run N");
	ret = iom_report_find_run(m, o->run, &src, &run, err, errlen);
	if (ret < 0)
		return ret;
	s = &m->src[src].study;
	path = iom_result_path(m->src[src].dir, run);
	ret = iom_result_read(path, &f, err, errlen);
	free(path);
	if (ret == 0 && r->status != IOM_RUN_OK)
		ret = iom_err(err, errlen, EINVAL, "run %" PRIu32 " did not finish (%s): it has no "
			      "results to write", run, iom_run_status_name(r->status));
	if (ret < 0) {
		iom_result_file_release(&f);
		return ret;
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	open_el(&x, "Results");
	system_xml(&x, s, r);
	profile_xml(&x, s, &f);
	open_el(&x, "TimeSpan");
	num_el(&x, "TestTimeSeconds", "%.2f", r->elapsed_s);
	u64_el(&x, "ThreadCount", r->nthreads);
	u64_el(&x, "RequestCount", 0);
	u64_el(&x, "ProcCount", r->cpu.ncpu);
	open_el(&x, "CpuUtilization");
	for (unsigned i = 0; r->cpu.per_cpu && i < r->cpu.ncpu; i++)
		cpu_el(&x, "CPU", i, &r->cpu.per_cpu[i]);
	cpu_el(&x, "Average", 0, &r->cpu.avg);
	close_el(&x, "CpuUtilization");
	latency_xml(&x, r);
	iops_xml(&x, r);
	threads_xml(&x, s, &f);
	close_el(&x, "TimeSpan");
	close_el(&x, "Results");
	iom_result_file_release(&f);
	return iom_report_out_status(out, err, errlen);
}
