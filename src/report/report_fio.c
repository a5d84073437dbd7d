/* SPDX-License-Identifier: MIT */
/*
 * report_fio — fio's JSON and JSON+ output (`report --format fio-json` / `fio-jsonplus`), so
 * that what reads fio's results (fio_jsonplus_clat2csv, fio-plot, dashboards) reads iomatrix's.
 * Part of the report module (report.h); docs/interop.md says what each field holds.
 *
 * One job per pool (report_export.c): each (cell, compared value) with its finished repetitions
 * pooled — I/Os and bytes added up, rates over the windows added up, latencies from the merged
 * buckets — or, with --run, that one run. The fields are fio 3.x's (fio 3.33 writes the same
 * names): per direction io_bytes, bw (KiB/s), iops, runtime (ms), total_ios, the latency
 * objects with fio's default percentile list, and the bw and iops figures over the 1-second
 * intervals. iomatrix measures one latency, submission to completion, which is fio's lat (slat
 * + clat): it is written as clat_ns and lat_ns alike, slat_ns empty (N 0). JSON+ adds clat_ns's
 * "bins": each non-empty bucket keyed by its midpoint in ns — the value iomatrix's percentiles
 * report — with its count, so fio_jsonplus_clat2csv's percentiles are iomatrix's.
 */
#include "report_model.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "jsonio.h"
#include "result/resdir.h"
#include "result/study.h"
#include "stats.h"
#include "util.h"

#ifndef IOM_VERSION
#define IOM_VERSION "0.1"
#endif

/* fio's default percentile_list. */
static const double fio_pcts[] = {
	1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99,
};

static json_object *u64(uint64_t v)
{
	return json_object_new_uint64(v);
}

/* An empty latency object (what iomatrix does not measure: slat, trim, sync). */
static json_object *lat_none(void)
{
	json_object *o = json_object_new_object();

	iom_json_add(o, "min", u64(0));
	iom_json_add(o, "max", u64(0));
	iom_json_add(o, "mean", iom_json_num(0));
	iom_json_add(o, "stddev", iom_json_num(0));
	iom_json_add(o, "N", u64(0));
	return o;
}

static json_object *lat_obj(const struct iom_report_pool *p, int d, bool pcts, bool bins)
{
	const struct iom_hist *h = &p->hist[d];
	json_object *o = json_object_new_object();

	iom_json_add(o, "min", u64(p->has_hist ? h->min : p->min_ns[d]));
	iom_json_add(o, "max", u64(p->has_hist ? h->max : p->max_ns[d]));
	iom_json_add(o, "mean", iom_json_num(iom_report_pool_mean(p, d)));
	iom_json_add(o, "stddev", iom_json_num(p->has_hist ? iom_hist_stddev(h) : NAN));
	iom_json_add(o, "N", u64(p->ios[d]));
	if (pcts && p->ios[d]) {
		json_object *x = json_object_new_object();

		for (size_t i = 0; i < IOM_ARRAY_SIZE(fio_pcts); i++) {
			double v = iom_report_pool_pct(p, d, fio_pcts[i]);
			char key[32];

			if (isnan(v))
				continue;
			snprintf(key, sizeof(key), "%f", fio_pcts[i]);
			iom_json_add(x, key, u64((uint64_t)v));
		}
		iom_json_add(o, "percentile", x);
	}
	if (bins && p->has_hist && p->ios[d]) {
		json_object *x = json_object_new_object();

		for (unsigned b = 0; b < IOM_HIST_BUCKETS; b++) {
			uint64_t lo, hi;
			char key[32];

			if (!h->bucket[b])
				continue;
			iom_hist_bucket_range(b, &lo, &hi);
			snprintf(key, sizeof(key), "%" PRIu64, lo + (hi - lo + 1) / 2);
			iom_json_add(x, key, u64(h->bucket[b]));
		}
		iom_json_add(o, "bins", x);
	}
	return o;
}

/* min, max, mean, dev and samples of direction d's rate over the full 1-second intervals:
 * KiB/s (bw) or I/Os per second (iops). */
static void rate_stats(json_object *o, const struct iom_report_pool *p, int d, bool bw)
{
	double *v = xcalloc(p->niv + 1, sizeof(*v)), lo = 0, hi = 0, mean = 0, sd = 0;
	size_t n = 0;
	const char *pre = bw ? "bw" : "iops";
	char key[32];

	for (size_t i = 0; i < p->niv; i++) {
		const struct iom_interval *iv = &p->iv[i];
		double secs = iom_interval_secs(iv);
		uint64_t ios = d == IOM_DIR_TOTAL ? iv->ios[0] + iv->ios[1] : iv->ios[d];
		uint64_t by = d == IOM_DIR_TOTAL ? iv->bytes[0] + iv->bytes[1] : iv->bytes[d];

		if (iom_interval_full(iv))
			v[n++] = bw ? (double)by / 1024 / secs : (double)ios / secs;
	}
	if (n) {
		lo = hi = v[0];
		for (size_t i = 0; i < n; i++) {
			lo = fmin(lo, v[i]);
			hi = fmax(hi, v[i]);
		}
		mean = iom_stats_mean(v, n);
		sd = n > 1 ? iom_stats_stddev(v, n) : 0;
	}
	snprintf(key, sizeof(key), "%s_min", pre);
	iom_json_add(o, key, u64((uint64_t)lo));
	snprintf(key, sizeof(key), "%s_max", pre);
	iom_json_add(o, key, u64((uint64_t)hi));
	if (bw)
		iom_json_add(o, "bw_agg", iom_json_num(n ? 100 : 0));
	snprintf(key, sizeof(key), "%s_mean", pre);
	iom_json_add(o, key, iom_json_num(mean));
	snprintf(key, sizeof(key), bw ? "%s_dev" : "%s_stddev", pre);
	iom_json_add(o, key, iom_json_num(sd));
	snprintf(key, sizeof(key), "%s_samples", pre);
	iom_json_add(o, key, u64(n));
	free(v);
}

static json_object *ddir(const struct iom_report_pool *p, int d, bool plus)
{
	json_object *o = json_object_new_object();
	double secs = p->secs > 0 ? p->secs : 0;

	iom_json_add(o, "io_bytes", u64(p->bytes[d]));
	iom_json_add(o, "io_kbytes", u64(p->bytes[d] / 1024));
	iom_json_add(o, "bw_bytes", u64(secs > 0 ? (uint64_t)((double)p->bytes[d] / secs) : 0));
	iom_json_add(o, "bw", u64(secs > 0 ? (uint64_t)((double)p->bytes[d] / 1024 / secs) : 0));
	iom_json_add(o, "iops", iom_json_num(secs > 0 ? (double)p->ios[d] / secs : 0));
	iom_json_add(o, "runtime", u64(p->ios[d] ? (uint64_t)llround(secs * 1000) : 0));
	iom_json_add(o, "total_ios", u64(p->ios[d]));
	iom_json_add(o, "short_ios", u64(0));
	iom_json_add(o, "drop_ios", u64(0));
	iom_json_add(o, "slat_ns", lat_none());
	iom_json_add(o, "clat_ns", lat_obj(p, d, true, plus));
	iom_json_add(o, "lat_ns", lat_obj(p, d, false, false));
	rate_stats(o, p, d, true);
	rate_stats(o, p, d, false);
	return o;
}

/* A direction iomatrix has no I/O of (trim): zeros in fio's shape. */
static json_object *ddir_none(void)
{
	struct iom_report_pool none;

	memset(&none, 0, sizeof(none));
	return ddir(&none, IOM_DIR_READ, false);
}

/* fio's rw of a cell: randread, randwrite, randrw, read, write or rw. */
static const char *fio_rw(const char *read_pct, const char *pattern)
{
	bool rnd = !pattern || strcmp(pattern, "sequential") != 0;
	long rp = read_pct ? strtol(read_pct, NULL, 10) : 100;

	return rp >= 100 ? (rnd ? "randread" : "read") : rp <= 0 ? (rnd ? "randwrite" : "write") :
	       (rnd ? "randrw" : "rw");
}

char *iom_report_fio_plot_prefix(const char *trace, const char *dir, char *err, size_t errlen)
{
	const char *slash = strrchr(trace, '/'), *base = slash ? slash + 1 : trace;
	/* DIR/traces/NNNNN.trace.gz: the run file is DIR/traces/../runs/NNNNN.json */
	char *top = slash ? xasprintf("%.*s/..", (int)(slash - trace), trace) : xstrdup(".."),
	     *path, *name = NULL;
	struct iom_result_file f;
	unsigned long idx = strtoul(base, NULL, 10);
	int ret;

	path = iom_result_path(top, (uint32_t)idx);
	ret = idx ? iom_result_read(path, &f, err, errlen) :
		    iom_err(err, errlen, EINVAL, "'%s' is not named after its run (NNNNN.trace.gz)",
			    trace);
	if (ret == 0) {
		const char *qd = iom_result_cell_get(&f, "queue_depth");
		const char *nj = iom_result_cell_get(&f, "threads");

		name = xasprintf("%s/%s-iodepth-%s-numjobs-%s", dir ? dir : ".",
				 fio_rw(iom_result_cell_get(&f, "read_pct"),
					iom_result_cell_get(&f, "pattern")),
				 qd ? qd : "1", nj ? nj : "1");
	} else if (idx) {
		char e2[IOM_ERRLEN];

		snprintf(e2, sizeof(e2), "%s", err);
		iom_err(err, errlen, -ret, "fio-plot's file names come from the run's file: %s", e2);
	}
	if (idx)
		iom_result_file_release(&f);
	free(path);
	free(top);
	return name;
}

/* fio's job options from the pool's cell: rw, bs, iodepth, numjobs, ioengine, direct,
 * rwmixread, and the target's path as filename. */
static json_object *job_options(const struct iom_report *m, const struct iom_report_pool *p,
				const char *name)
{
	json_object *o = json_object_new_object();
	const char *rd = iom_report_pool_get(p, "read_pct");
	const char *label = iom_report_pool_get(p, "target");
	long rp = rd ? strtol(rd, NULL, 10) : 100;
	const char *rw = fio_rw(rd, iom_report_pool_get(p, "pattern"));
	static const char *const same[][2] = {
		{ "block_size", "bs" }, { "queue_depth", "iodepth" }, { "threads", "numjobs" },
		{ "engine", "ioengine" },
	};
	const char *dv = iom_report_pool_get(p, "direct");

	iom_json_add(o, "name", json_object_new_string(name));
	iom_json_add(o, "rw", json_object_new_string(rw));
	if (rp > 0 && rp < 100)
		iom_json_add(o, "rwmixread", json_object_new_string(rd));
	for (size_t i = 0; i < IOM_ARRAY_SIZE(same); i++) {
		const char *v = iom_report_pool_get(p, same[i][0]);

		if (v)
			iom_json_add(o, same[i][1], json_object_new_string(v));
	}
	if (dv)
		iom_json_add(o, "direct", json_object_new_string(strcmp(dv, "true") == 0 ? "1" :
								  "0"));
	for (size_t s = 0; label && s < m->nsrc; s++) {
		const struct iom_study_target *t = iom_study_target_find(&m->src[s].study, label);

		if (t && t->path) {
			iom_json_add(o, "filename", json_object_new_string(t->path));
			break;
		}
	}
	return o;
}

static json_object *job(const struct iom_report *m, const struct iom_report_pool *p, bool plus)
{
	json_object *o = json_object_new_object(), *x = json_object_new_object();
	json_object *runs = json_object_new_array(), *sync = json_object_new_object();
	char *name;
	double secs = p->secs;

	if (p->cell_index != SIZE_MAX) {
		char *l = iom_report_cell_label(m, p->cell_index);

		name = p->nruns == 1 ? xasprintf("%s %s (run %" PRIu32 ")", m->compared[p->compared],
						 l, p->first)
				     : xasprintf("%s %s", m->compared[p->compared], l);
		free(l);
	} else {
		name = xasprintf("run %" PRIu32, p->first);
	}
	iom_json_add(o, "jobname", json_object_new_string(name));
	iom_json_add(o, "groupid", u64(0));
	iom_json_add(o, "error", u64(0));
	iom_json_add(o, "eta", u64(0));
	iom_json_add(o, "elapsed", u64((uint64_t)llround(secs)));
	iom_json_add(o, "job options", job_options(m, p, name));
	iom_json_add(o, "read", ddir(p, IOM_DIR_READ, plus));
	iom_json_add(o, "write", ddir(p, IOM_DIR_WRITE, plus));
	iom_json_add(o, "trim", ddir_none());
	iom_json_add(sync, "total_ios", u64(0));
	iom_json_add(sync, "lat_ns", lat_none());
	iom_json_add(o, "sync", sync);
	iom_json_add(o, "job_runtime", u64((uint64_t)llround(secs * 1000)));
	iom_json_add(o, "usr_cpu", iom_json_num(secs > 0 ? p->user_s / secs * 100 : 0));
	iom_json_add(o, "sys_cpu", iom_json_num(secs > 0 ? p->sys_s / secs * 100 : 0));
	iom_json_add(o, "ctx", u64(0));
	iom_json_add(o, "majf", u64(0));
	iom_json_add(o, "minf", u64(0));
	/* what fio has no field for: where the figures came from */
	for (size_t i = 0; i < p->nruns; i++)
		json_object_array_add(runs, u64(p->runs[i]));
	iom_json_add(x, "runs", iom_json_one_line(runs));
	iom_json_add(x, "pooled", json_object_new_boolean(p->has_hist));
	iom_json_add(x, "cell", json_object_new_string(p->cell_text ? p->cell_text : ""));
	iom_json_add(x, "latency", json_object_new_string(
		"submission to completion (fio's lat), written as clat_ns and lat_ns"));
	iom_json_add(o, "iomatrix", x);
	free(name);
	return o;
}

static int write_fio(FILE *out, const struct iom_report *m, const struct iom_report_opts_cli *o,
		     bool plus, char *err, size_t errlen)
{
	json_object *root = json_object_new_object(), *jobs = json_object_new_array();
	struct iom_report_pool *p = xcalloc(1, sizeof(*p));
	uint64_t start = 0;
	char tbuf[64] = "";
	int ret = 0;

	if (o && o->run) {
		size_t src;
		uint32_t run;

		ret = iom_report_find_run(m, o->run, &src, &run, err, errlen);
		if (ret == 0)
			ret = iom_report_pool_run(m, src, run, p, err, errlen);
		if (ret == 0 && plus && !p->has_hist)
			ret = iom_err(err, errlen, EINVAL, "run %" PRIu32 " keeps no histogram (its "
				      "file was written before they were kept): no fio-jsonplus "
				      "bins; fio-json has its percentiles", run);
		if (ret == 0) {
			start = p->start_wall_ns;
			json_object_array_add(jobs, job(m, p, plus));
		}
		iom_report_pool_release(p);
	}
	for (size_t c = 0; ret == 0 && !(o && o->run) && c < m->ncells; c++)
		for (size_t v = 0; ret == 0 && v < m->ncompared; v++) {
			if (!m->cells[c].by[v].n)
				continue;
			ret = iom_report_pool_cell(m, c, v, p, err, errlen);
			if (ret == 0 && plus && !p->has_hist)
				ret = iom_err(err, errlen, EINVAL, "the runs of '%s' keep no histograms "
					      "(written before they were kept): no fio-jsonplus bins; "
					      "fio-json has their percentiles", p->cell_text);
			if (ret == 0) {
				if (!start || (p->start_wall_ns && p->start_wall_ns < start))
					start = p->start_wall_ns;
				json_object_array_add(jobs, job(m, p, plus));
			}
			iom_report_pool_release(p);
		}
	free(p);
	if (ret < 0) {
		json_object_put(root);
		json_object_put(jobs);
		return ret;
	}
	{
		time_t t = (time_t)(start / 1000000000u);
		struct tm tm;

		if (gmtime_r(&t, &tm))
			strftime(tbuf, sizeof(tbuf), "%a %b %e %H:%M:%S %Y", &tm);
	}
	iom_json_add(root, "fio version", json_object_new_string("iomatrix-" IOM_VERSION));
	iom_json_add(root, "timestamp", u64(start / 1000000000u));
	iom_json_add(root, "timestamp_ms", u64(start / 1000000u));
	iom_json_add(root, "time", json_object_new_string(tbuf));
	iom_json_add(root, "jobs", jobs);
	{
		char *text = iom_json_text(root);

		fputs(text, out);
		free(text);
	}
	json_object_put(root);
	return iom_report_out_status(out, err, errlen);
}

int iom_report_write_fio_json(FILE *out, const struct iom_report *m,
			      const struct iom_report_opts_cli *o, char *err, size_t errlen)
{
	return write_fio(out, m, o, false, err, errlen);
}

int iom_report_write_fio_jsonplus(FILE *out, const struct iom_report *m,
				  const struct iom_report_opts_cli *o, char *err, size_t errlen)
{
	return write_fio(out, m, o, true, err, errlen);
}
