/* SPDX-License-Identifier: MIT */
/*
 * result — one run's measurements and their JSON form; the layout of the results directory
 * (matrix.cfg, study.json, runs/NNNNN.json, summary.csv). docs/results.md documents every field.
 *
 * JSON is built and parsed with json-c, never by hand. Doubles are written with nine significant
 * digits and no exponent (json_object_new_double_s), so files read well and round-trip to a
 * relative 5e-9; a non-finite double is written as null and read back as NaN. Arrays of numbers
 * and small leaf objects are written on one line so a 30-minute run's per-second intervals stay
 * a few lines, not thousands.
 *
 * Reading is strict about types and lenient about absence: a field of the wrong type is an error
 * naming the field ("FILE: 'read.lat_ns.min' is not an integer"), a missing measured field reads
 * as zero, so files written by a later, additive revision of the same schema still read. A
 * schema number above IOM_RESULT_SCHEMA is refused.
 *
 * summary.csv is appended (one write, then fsync) after each run so it is current while a long
 * sweep runs, and rewritten whole from runs/NNNNN.json at the end, which drops any torn or duplicate
 * row a crash and a resume may have left. Quoting follows RFC 4180; lines end with LF.
 */
#include "result.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "csv.h"
#include "jsonio.h"
#include "machine.h"
#include "keys.h"
#include "ownfile.h"
#include "plan.h"
#include "units.h"
#include "util.h"

#ifndef IOM_VERSION
#define IOM_VERSION "unknown"
#endif

const double iom_percentiles[IOM_NPCT] = {
	1, 5, 10, 25, 50, 75, 90, 95, 99,
	99.9, 99.99, 99.999, 99.9999, 99.99999, 99.999999, 99.9999999,
};

static const char *const dir_names[IOM_NDIR] = { "read", "write", "total" };
static const char *const status_names[] = { "ok", "failed", "interrupted" };

int iom_percentile_index(double pct)
{
	for (int i = 0; i < IOM_NPCT; i++)
		if (fabs(iom_percentiles[i] - pct) < 1e-12)
			return i;
	return -1;
}

bool iom_result_few_ios_text(uint64_t ios, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	if (ios == 0 || ios >= IOM_MIN_PCT_IOS)
		return false;
	snprintf(buf, len, "n/a (only %" PRIu64 " I/O%s)", ios, ios == 1 ? "" : "s");
	return true;
}

double iom_interval_secs(const struct iom_interval *iv)
{
	return (double)(iv->ns ? iv->ns : IOM_INTERVAL_NS) / 1e9;
}

bool iom_interval_full(const struct iom_interval *iv)
{
	return !iv->ns || iv->ns >= IOM_INTERVAL_NS / 100 * 99;
}

void iom_run_result_release(struct iom_run_result *r)
{
	if (!r)
		return;
	free(r->error);
	free(r->intervals);
	free(r->threads);
	free(r->cpu.per_cpu);
	free(r->cpu.irq_drivers);
	free(r->engine_notes);
	for (size_t i = 0; r->host_hist && i < r->nhosts; i++)
		for (int d = 0; d < IOM_NDIR; d++)
			iom_hist_sparse_release(&r->host_hist[i][d]);
	free(r->host_hist);
	r->host_hist = NULL;
	for (size_t i = 0; r->hosts && i < r->nhosts; i++) {
		for (size_t k = 0; k < r->hosts[i].npaths; k++)
			free(r->hosts[i].paths[k].path);
		free(r->hosts[i].paths);
		free(r->hosts[i].lines);
	}
	free(r->hosts);
	r->hosts = NULL;
	r->nhosts = 0;
	free(r->trace.file);
	r->trace.file = NULL;
	for (size_t i = 0; i < r->verify.nfirst; i++) {
		free(r->verify.first[i].expected);
		free(r->verify.first[i].found);
	}
	free(r->verify.first);
	r->verify.first = NULL;
	r->verify.nfirst = 0;
	free(r->stall.reason);
	r->stall.reason = NULL;
	for (size_t i = 0; i < r->npaths; i++)
		free(r->paths[i].path);
	free(r->paths);
	r->paths = NULL;
	r->npaths = 0;
	free(r->access);
	free(r->lines);
	r->access = NULL;
	r->lines = NULL;
	r->nlines = 0;
	free(r->steady.criterion);
	r->steady.criterion = NULL;
	for (int d = 0; d < IOM_NDIR; d++) {
		iom_hist_sparse_release(&r->hist[d]);
		iom_hist_sparse_release(&r->load.response_hist[d]);
	}
	r->has_hist = false;
	r->error = NULL;
	r->intervals = NULL;
	r->threads = NULL;
	r->cpu.per_cpu = NULL;
	r->cpu.irq_drivers = NULL;
	r->engine_notes = NULL;
}

const char *iom_run_status_name(enum iom_run_status s)
{
	return (unsigned)s < IOM_ARRAY_SIZE(status_names) ? status_names[s] : "unknown";
}

int iom_run_status_parse(const char *name)
{
	for (size_t i = 0; name && i < IOM_ARRAY_SIZE(status_names); i++)
		if (strcmp(name, status_names[i]) == 0)
			return (int)i;
	return -1;
}

/* ---- paths and directories ---- */

int iom_results_dir_create(const struct iom_own_dir *d, char *err, size_t errlen)
{
	char *runs = xasprintf("%s/runs", d->path);
	int ret = iom_own_mkdir(d, runs, err, errlen);

	free(runs);
	return ret;
}

char *iom_result_path(const char *dir, uint32_t index)
{
	return xasprintf("%s/runs/%05" PRIu32 ".json", dir, index);
}

static int write_text(const struct iom_own_dir *d, const char *path, const char *text,
		      char *err, size_t errlen)
{
	return iom_own_write_atomic(d, path, text, strlen(text), err, errlen);
}

int iom_results_write_matrix(const struct iom_own_dir *d, const char *text, char *err,
			     size_t errlen)
{
	char *path = xasprintf("%s/matrix.cfg", d->path);
	int ret = write_text(d, path, text ? text : "", err, errlen);

	free(path);
	return ret;
}

/* ---- run JSON: writing ---- */

/* Whether a run's cell names dimension d: always, but a sparse dimension (IOM_KEY_SPARSE, the
 * keys of issue 16) only when the matrix gives it a value off its default somewhere, so that
 * the run files and summary.csv of a matrix that does not use it stay as they were. */
static bool cell_names(const struct iom_matrix *m, int d)
{
	return !m || iom_matrix_dim_shown(m, (enum iom_dim)d);
}

static json_object *cell_json(const struct iom_matrix *m, const struct iom_cell *c)
{
	json_object *o = json_object_new_object();

	for (int d = 0; d < IOM_DIM_COUNT; d++) {
		const char *name = iom_dim_name((enum iom_dim)d);
		int64_t v = c->v[d];
		const struct iom_key *k;
		char buf[64];

		if (!cell_names(m, d))
			continue;

		if (d == IOM_DIM_TARGET) {
			const char *label = m && v >= 0 && (size_t)v < m->ntargets ?
						    m->targets[v].label : NULL;

			if (label) {
				iom_json_add(o, name, json_object_new_string(label));
			} else {
				snprintf(buf, sizeof(buf), "#%" PRId64, v);
				iom_json_add(o, name, json_object_new_string(buf));
			}
			continue;
		}
		if (d == IOM_DIM_ACCESS && m && v > 0 && (size_t)v <= m->naccess_specs) {
			iom_json_add(o, name, json_object_new_string(m->access_specs[v - 1].name));
			continue;
		}
		if (d == IOM_DIM_HOST && m && m->host_labels && v >= 0 && (uint64_t)v < m->nranks) {
			/* many hosts: the rank by its label, "r1@vm2" */
			iom_json_add(o, name, json_object_new_string(m->host_labels[v]));
			continue;
		}
		k = iom_dim_key((enum iom_dim)d);
		/* a key added later that the study leaves at its default: the cell as before */
		if (m && !iom_matrix_dim_shown(m, (enum iom_dim)d))
			continue;
		switch (k ? k->type : IOM_TYPE_UINT) {
		case IOM_TYPE_BOOL:
			iom_json_add(o, name, json_object_new_boolean(v != 0));
			break;
		case IOM_TYPE_ENUM:
		case IOM_TYPE_SPEC:
		case IOM_TYPE_STRING:
		case IOM_TYPE_LIST:
		case IOM_TYPE_GROUP:
		case IOM_TYPE_RATE:
			iom_dim_format((enum iom_dim)d, v, buf, sizeof(buf));
			iom_json_add(o, name, json_object_new_string(buf));
			break;
		default:
			iom_json_add(o, name, json_object_new_int64(v));
			break;
		}
	}
	return o;
}

static json_object *lat_json(const struct iom_lat *l)
{
	json_object *o = json_object_new_object();
	json_object *p = json_object_new_object();

	iom_json_add(o, "min", json_object_new_uint64(l->min));
	iom_json_add(o, "mean", iom_json_num(l->mean));
	iom_json_add(o, "stddev", iom_json_num(l->stddev));
	iom_json_add(o, "max", json_object_new_uint64(l->max));
	for (int i = 0; i < IOM_NPCT; i++) {
		char key[32];

		snprintf(key, sizeof(key), "%.10g", iom_percentiles[i]);
		iom_json_add(p, key, json_object_new_uint64(l->pct[i]));
	}
	iom_json_add(o, "percentiles", p);
	return o;
}

/* A 128-bit sum as the decimal digits JSON keeps exactly (a number would round past 2^53). */
static json_object *u128_json(unsigned __int128 v)
{
	char buf[48], *p = buf + sizeof(buf) - 1;

	*p = '\0';
	do {
		*--p = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	return json_object_new_string(p);
}

/* "hist": { count, sum, sumsq, clamped, bins: [lo_ns, n, lo_ns, n, …] }: a kept histogram,
 * each non-empty bucket as its lower bound in ns and its count (docs/results.md). */
static json_object *hist_json(const struct iom_hist_sparse *h)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();

	iom_json_add(o, "count", json_object_new_uint64(h->count));
	iom_json_add(o, "min", json_object_new_uint64(h->min));
	iom_json_add(o, "max", json_object_new_uint64(h->max));
	iom_json_add(o, "sum", u128_json(h->sum));
	iom_json_add(o, "sumsq", u128_json(h->sumsq));
	iom_json_add(o, "clamped", json_object_new_uint64(h->clamped));
	for (uint32_t i = 0; i < h->nbins; i++) {
		uint64_t lo, hi;

		iom_hist_bucket_range(h->bins[i].b, &lo, &hi);
		json_object_array_add(a, json_object_new_uint64(lo));
		json_object_array_add(a, json_object_new_uint64(h->bins[i].n));
	}
	iom_json_add(o, "bins", iom_json_one_line(a));
	return iom_json_one_line(o);
}

/* x (an I/O figure's object) with h as "hist" in its "lat_ns". */
static json_object *with_hist(json_object *x, const struct iom_hist_sparse *h)
{
	json_object *lat = NULL;

	if (json_object_object_get_ex(x, "lat_ns", &lat) && lat)
		iom_json_add(lat, "hist", hist_json(h));
	return x;
}

static json_object *io_json(const struct iom_io_stats *s)
{
	json_object *o = json_object_new_object();

	iom_json_add(o, "ios", json_object_new_uint64(s->ios));
	iom_json_add(o, "bytes", json_object_new_uint64(s->bytes));
	iom_json_add(o, "iops", iom_json_num(s->iops));
	iom_json_add(o, "mb_s", iom_json_num(s->mb_s));
	iom_json_add(o, "mib_s", iom_json_num(s->mib_s));
	iom_json_add(o, "lat_ns", lat_json(&s->lat));
	return o;
}

/* "access": { "name": …, "lines": [ { share, block_size, read_pct, random_pct, align, read,
 * write, total }, … ] } (issue 16a); read and write carry ios, bytes and rates, total also
 * the latencies. */
static json_object *access_json(const char *name, const struct iom_line_stats *lines, size_t n)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();

	if (name)
		iom_json_add(o, "name", json_object_new_string(name));
	for (size_t i = 0; i < n; i++) {
		const struct iom_line_stats *l = &lines[i];
		json_object *e = json_object_new_object();

		iom_json_add(e, "share", json_object_new_uint64(l->share));
		iom_json_add(e, "block_size", json_object_new_uint64(l->block_size));
		iom_json_add(e, "read_pct", json_object_new_uint64(l->read_pct));
		iom_json_add(e, "random_pct", json_object_new_uint64(l->random_pct));
		iom_json_add(e, "align", json_object_new_uint64(l->align));
		for (int d = 0; d < IOM_NDIR; d++) {
			json_object *x = io_json(&l->dir[d]);

			if (d != IOM_DIR_TOTAL)
				json_object_object_del(x, "lat_ns");
			iom_json_add(e, dir_names[d], x);
		}
		json_object_array_add(a, e);
	}
	iom_json_add(o, "lines", a);
	return o;
}

/* "paths": [ { "path", "read", "write", "total" }, … ] (issue 16c): each with ios, bytes and
 * rates, no latencies. */
static json_object *paths_json(const struct iom_path_stats *paths, size_t n)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_new_object();

		iom_json_add(e, "path", iom_json_str(paths[i].path));
		for (int d = 0; d < IOM_NDIR; d++) {
			json_object *x = io_json(&paths[i].dir[d]);

			json_object_object_del(x, "lat_ns");
			iom_json_add(e, dir_names[d], x);
		}
		json_object_array_add(a, e);
	}
	return a;
}

static json_object *cpu_pct_json(const struct iom_cpu_pct *c)
{
	json_object *o = json_object_new_object();

	iom_json_add(o, "user", iom_json_num(c->user));
	iom_json_add(o, "kernel", iom_json_num(c->kernel));
	iom_json_add(o, "iowait", iom_json_num(c->iowait));
	iom_json_add(o, "irq", iom_json_num(c->irq));
	iom_json_add(o, "softirq", iom_json_num(c->softirq));
	iom_json_add(o, "steal", iom_json_num(c->steal));
	iom_json_add(o, "idle", iom_json_num(c->idle));
	return iom_json_one_line(o);
}

static json_object *cpu_json(const struct iom_run_cpu *c)
{
	json_object *o = json_object_new_object();
	json_object *a = json_object_new_array();

	for (unsigned i = 0; c->per_cpu && i < c->ncpu; i++)
		json_object_array_add(a, cpu_pct_json(&c->per_cpu[i]));
	iom_json_add(o, "per_cpu", a);
	iom_json_add(o, "avg", cpu_pct_json(&c->avg));
	iom_json_add(o, "busy_pct", iom_json_num(c->busy_pct));
	iom_json_add(o, "proc_user_s", iom_json_num(c->proc_user_s));
	iom_json_add(o, "proc_sys_s", iom_json_num(c->proc_sys_s));
	iom_json_add(o, "us_per_io", iom_json_num(c->us_per_io));
	/* which CPU the two per-I/O figures count, for a reader comparing them with other tools */
	iom_json_add(o, "us_per_io_counts",
		     iom_json_str("the iomatrix process: every thread, io_uring's worker threads "
				  "(iou-wrk, iou-sqp) included (getrusage RUSAGE_SELF)"));
	iom_json_add(o, "interrupts", json_object_new_uint64(c->interrupts));
	iom_json_add(o, "interrupts_per_io", iom_json_num(c->interrupts_per_io));
	iom_json_add(o, "irq_drivers", iom_json_str(c->irq_drivers));
	iom_json_add(o, "system_busy_pct", iom_json_num(c->system_busy_pct));
	iom_json_add(o, "system_us_per_io", iom_json_num(c->system_us_per_io));
	iom_json_add(o, "system_us_per_io_counts",
		     iom_json_str("the whole system: every CPU's busy time (/proc/stat: user, "
				  "nice, system, irq, softirq), other processes included"));
	iom_json_add(o, "iops_per_busy_pct", iom_json_num(c->iops_per_busy_pct));
	iom_json_add(o, "other_cpu_pct", iom_json_num(c->other_pct));
	iom_json_add(o, "busy_jiffies", json_object_new_uint64(c->busy_jiffies));
	iom_json_add(o, "all_jiffies", json_object_new_uint64(c->all_jiffies));
	return o;
}

static json_object *threads_json(const struct iom_run_result *r)
{
	json_object *a = json_object_new_array();

	for (unsigned t = 0; r->threads && t < r->nthreads; t++) {
		json_object *o = json_object_new_object();

		for (int d = 0; d < IOM_NDIR; d++) {
			json_object *x = json_object_new_object();

			iom_json_add(x, "ios", json_object_new_uint64(r->threads[t].dir[d].ios));
			iom_json_add(x, "bytes",
				     json_object_new_uint64(r->threads[t].dir[d].bytes));
			iom_json_add(x, "lat_mean_ns",
				     iom_json_num(r->threads[t].dir[d].lat_mean_ns));
			iom_json_add(x, "lat_stddev_ns",
				     iom_json_num(r->threads[t].dir[d].lat_stddev_ns));
			iom_json_add(o, dir_names[d], iom_json_one_line(x));
		}
		json_object_array_add(a, o);
	}
	return a;
}

/* The intervals' arrays: counts, then (has_iv_lat) the latencies and the I/Os they are of. */
static const char *const iv_keys[8] = { "read_ios", "write_ios", "read_bytes", "write_bytes",
					"p50_ns", "p99_ns", "max_ns", "lat_ios" };

static uint64_t *iv_field(struct iom_interval *iv, int k)
{
	uint64_t *f[8] = { &iv->ios[0], &iv->ios[1], &iv->bytes[0], &iv->bytes[1], &iv->p50_ns,
			   &iv->p99_ns, &iv->max_ns, &iv->lat_ios };

	return f[k];
}

static json_object *intervals_json(const struct iom_run_result *r)
{
	json_object *o = json_object_new_object();

	iom_json_add(o, "interval_s", iom_json_num((double)IOM_INTERVAL_NS / 1e9));
	/* issue 18: the last interval ends with the window; every other is interval_s long */
	if (r->intervals && r->nintervals)
		iom_json_add(o, "last_ns", json_object_new_uint64(
			r->intervals[r->nintervals - 1].ns ? r->intervals[r->nintervals - 1].ns :
							      IOM_INTERVAL_NS));
	for (int k = 0; k < (r->has_iv_lat ? 8 : 4); k++) {
		json_object *a = json_object_new_array();

		for (size_t i = 0; r->intervals && i < r->nintervals; i++)
			json_object_array_add(a, json_object_new_uint64(
				*iv_field(&r->intervals[i], k)));
		iom_json_add(o, iv_keys[k], iom_json_one_line(a));
	}
	return o;
}

/* "stalled": { gap_s, at_s, window_s, asked_s (null: bytes-bound), reason }, or null. */
static json_object *stall_json(const struct iom_run_stall *st)
{
	json_object *o;

	if (!st->stalled)
		return NULL;
	o = json_object_new_object();
	iom_json_add(o, "gap_s", iom_json_num(st->gap_s));
	iom_json_add(o, "at_s", iom_json_num(st->at_s));
	iom_json_add(o, "window_s", iom_json_num(st->window_s));
	iom_json_add(o, "asked_s", st->asked_s > 0 ? iom_json_num(st->asked_s) : NULL);
	iom_json_add(o, "reason", iom_json_str(st->reason));
	return iom_json_one_line(o);
}

/* "disk": { name, reads, writes, discards, flushes } completed by the target's disk in the
 * measured window (discards and flushes null where the kernel does not count them), its
 * write_cache mode ("write back": volatile) and whether it takes FUA writes (null: unknown),
 * or null. */
static json_object *disk_json(const struct iom_run_disk *d)
{
	json_object *o;

	if (!d->have)
		return NULL;
	o = json_object_new_object();
	iom_json_add(o, "name", json_object_new_string(d->name));
	iom_json_add(o, "reads", json_object_new_uint64(d->reads));
	iom_json_add(o, "writes", json_object_new_uint64(d->writes));
	iom_json_add(o, "discards", d->has_discards ? json_object_new_uint64(d->discards) : NULL);
	iom_json_add(o, "flushes", d->has_flushes ? json_object_new_uint64(d->flushes) : NULL);
	iom_json_add(o, "write_cache", d->write_cache[0] ? json_object_new_string(d->write_cache)
							 : NULL);
	iom_json_add(o, "fua", d->fua >= 0 ? json_object_new_boolean(d->fua) : NULL);
	return iom_json_one_line(o);
}

/* "load": { offered_iops, achieved_iops, arrivals, held, late_ios, max_lag_s, response_ns:
 * { read, write, total } }, or null for a closed loop. */
static json_object *load_json(const struct iom_run_load *l, bool kept)
{
	json_object *o, *resp;

	if (!l->paced)
		return NULL;
	o = json_object_new_object();
	resp = json_object_new_object();
	iom_json_add(o, "offered_iops", iom_json_num(l->offered_iops));
	iom_json_add(o, "achieved_iops", iom_json_num(l->achieved_iops));
	iom_json_add(o, "arrivals", json_object_new_string(l->poisson ? "poisson" : "fixed"));
	iom_json_add(o, "held", json_object_new_boolean(l->held));
	iom_json_add(o, "late_ios", json_object_new_uint64(l->late_ios));
	iom_json_add(o, "max_lag_s", iom_json_num(l->max_lag_s));
	for (int d = 0; d < IOM_NDIR; d++)
	{
		json_object *lat = lat_json(&l->response[d]);

		if (kept)
			iom_json_add(lat, "hist", hist_json(&l->response_hist[d]));
		iom_json_add(resp, dir_names[d], lat);
	}
	iom_json_add(o, "response_ns", resp);
	return o;
}

/* A rate with three significant digits: "812", "2.00K", "31.2K", "754K", "5.00M". */
static void rate3(double x, char *buf, size_t len)
{
	static const char *const unit[] = { "", "K", "M", "G" };
	int u = 0;

	while (x >= 999.5 && u < 3) {
		x /= 1000;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%.0f", x);
	else
		snprintf(buf, len, "%.*f%s", x < 9.995 ? 2 : x < 99.95 ? 1 : 0, x, unit[u]);
}

bool iom_load_held(double offered_iops, double achieved_iops, double secs, bool poisson)
{
	double tol = offered_iops * IOM_LOAD_HELD_PCT / 100.0;

	if (!poisson)
		return fabs(achieved_iops - offered_iops) <= tol;
	if (secs > 0 && offered_iops > 0)
		tol = IOM_MAX(tol, 3.0 * sqrt(offered_iops * secs) / secs);
	return achieved_iops >= offered_iops - tol;
}

void iom_run_load_describe(const struct iom_run_load *l, char *buf, size_t len)
{
	char a[32], b[32];

	if (!l->paced) {
		snprintf(buf, len, "%s", "");
		return;
	}
	rate3(l->offered_iops, a, sizeof(a));
	rate3(l->achieved_iops, b, sizeof(b));
	if (l->late_ios) {
		/* why: how many I/Os went out late, and by how much at most */
		char n[32], lag[32];

		rate3((double)l->late_ios, n, sizeof(n));
		iom_lat_format(l->max_lag_s * 1e9, lag, sizeof(lag));
		snprintf(buf, len, "offered %s IOPS, achieved %s: %s%s I/O%s late, up to %s "
			 "behind%s", a, b, l->held ? "held (" : "saturated: ", n,
			 l->late_ios == 1 ? "" : "s", lag, l->held ? ")" : "");
		return;
	}
	snprintf(buf, len, "offered %s IOPS, achieved %s: %s", a, b,
		 l->held ? "held" : "saturated");
}

/* "hosts": one row per host of a run of many hosts (hosts.h); absent on one host. */
static json_object *hosts_json(const struct iom_run_result *r)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < r->nhosts; i++) {
		const struct iom_host_row *h = &r->hosts[i];
		json_object *o = json_object_new_object();

		iom_json_add(o, "rank", json_object_new_uint64(h->rank));
		iom_json_add(o, "host", json_object_new_string(h->host));
		iom_json_add(o, "status", json_object_new_string(
				     iom_run_status_name((enum iom_run_status)h->status)));
		iom_json_add(o, "error", h->error[0] ? json_object_new_string(h->error) : NULL);
		iom_json_add(o, "ios", json_object_new_uint64(h->ios[IOM_DIR_TOTAL]));
		iom_json_add(o, "bytes", json_object_new_uint64(h->bytes[IOM_DIR_TOTAL]));
		iom_json_add(o, "read_ios", json_object_new_uint64(h->ios[IOM_DIR_READ]));
		iom_json_add(o, "write_ios", json_object_new_uint64(h->ios[IOM_DIR_WRITE]));
		iom_json_add(o, "iops", iom_json_num(h->iops));
		iom_json_add(o, "mb_s", iom_json_num(h->mb_s));
		iom_json_add(o, "lat_mean_ns", iom_json_num(h->lat_mean_ns));
		iom_json_add(o, "p50_ns", json_object_new_uint64(h->p50_ns));
		iom_json_add(o, "p99_ns", json_object_new_uint64(h->p99_ns));
		iom_json_add(o, "offset_ns", json_object_new_int64(h->offset_ns));
		iom_json_add(o, "window_start_ns", json_object_new_uint64(h->start_ns));
		iom_json_add(o, "window_end_ns", json_object_new_uint64(h->end_ns));
		iom_json_add(o, "busy_pct", iom_json_num(h->busy_pct));
		iom_json_add(o, "proc_user_s", iom_json_num(h->user_s));
		iom_json_add(o, "proc_sys_s", iom_json_num(h->sys_s));
		iom_json_add(o, "straggler", json_object_new_boolean(h->straggler));
		iom_json_add(o, "stonewalled", json_object_new_boolean(h->stonewalled));
		iom_json_add(o, "kernel", json_object_new_string(h->kernel));
		iom_json_add(o, "cpu_model", json_object_new_string(h->cpu_model));
		iom_json_add(o, "device", json_object_new_string(h->device));
		iom_json_add(o, "driver", json_object_new_string(h->driver));
		iom_json_add(o, "scheduler", json_object_new_string(h->scheduler));
		iom_json_add(o, "start_late_ns", json_object_new_int64(h->start_late_ns));
		/* its own lines, paths, load, flushes and trims, as the run's (left out when none) */
		if (h->nlines)
			iom_json_add(o, "access", access_json(NULL, h->lines, h->nlines));
		if (h->npaths)
			iom_json_add(o, "paths", paths_json(h->paths, h->npaths));
		if (h->load.paced)
			iom_json_add(o, "load", load_json(&h->load, false));
		if (h->has_xops) {
			iom_json_add(o, "flush", io_json(&h->xops[0]));
			iom_json_add(o, "trim", io_json(&h->xops[1]));
		}
		if (r->host_hist) {
			json_object *x = json_object_new_object();

			for (int d = 0; d < IOM_NDIR; d++)
				iom_json_add(x, dir_names[d], hist_json(&r->host_hist[i][d]));
			iom_json_add(o, "hist", x);
		}
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *run_json(const struct iom_matrix *m, const struct iom_cell *c,
			     const struct iom_run_result *r)
{
	json_object *o = json_object_new_object();
	char utc[32];

	iom_json_add(o, "schema", json_object_new_int(IOM_RESULT_SCHEMA));
	iom_json_add(o, "index", json_object_new_uint64(r->index));
	iom_json_add(o, "repetition", json_object_new_uint64(r->repetition));
	iom_json_add(o, "seed", json_object_new_uint64(r->seed));
	iom_json_add(o, "cell", cell_json(m, c));
	iom_json_add(o, "status", json_object_new_string(iom_run_status_name(r->status)));
	iom_json_add(o, "error", iom_json_str(r->error));
	if (r->start_wall_ns) {
		iom_format_utc(utc, sizeof(utc), r->start_wall_ns);
		iom_json_add(o, "start_utc", json_object_new_string(utc));
	} else {
		iom_json_add(o, "start_utc", NULL);
	}
	iom_json_add(o, "start_ns", json_object_new_uint64(r->start_wall_ns));
	iom_json_add(o, "elapsed_s", iom_json_num(r->elapsed_s));
	for (int d = 0; d < IOM_NDIR; d++)
		iom_json_add(o, dir_names[d], r->has_hist ? with_hist(io_json(&r->dir[d]), &r->hist[d])
							  : io_json(&r->dir[d]));
	iom_json_add(o, "iops_stddev", iom_json_num(r->iops_stddev));
	iom_json_add(o, "mb_s_stddev", iom_json_num(r->mb_s_stddev));
	iom_json_add(o, "qd_mean", iom_json_num(r->qd_mean));
	if (r->status == IOM_RUN_OK) /* issue 18 */
		iom_json_add(o, "too_few_ios", json_object_new_boolean(
			r->dir[IOM_DIR_TOTAL].ios < IOM_MIN_PCT_IOS));
	iom_json_add(o, "threads", threads_json(r));
	if (r->access)
		iom_json_add(o, "access", access_json(r->access, r->lines, r->nlines));
	if (r->npaths)
		iom_json_add(o, "paths", paths_json(r->paths, r->npaths));
	iom_json_add(o, "cpu", cpu_json(&r->cpu));
	iom_json_add(o, "intervals", intervals_json(r));
	iom_json_add(o, "warmup_ios", json_object_new_uint64(r->warmup_ios));
	iom_json_add(o, "cooldown_ios", json_object_new_uint64(r->cooldown_ios));
	iom_json_add(o, "registered_buffers", json_object_new_boolean(r->registered_buffers));
	iom_json_add(o, "engine_notes", iom_json_str(r->engine_notes));
	if (r->trace.file) {
		json_object *t = json_object_new_object();
		const char *name = strrchr(r->trace.file, '/');

		/* relative to the results directory: traces/NNNNN.trace.gz */
		if (name && name - r->trace.file >= 6 && strncmp(name - 6, "traces", 6) == 0)
			name -= 6;
		else
			name = name ? name + 1 : r->trace.file;
		iom_json_add(t, "file", json_object_new_string(name));
		iom_json_add(t, "records", json_object_new_uint64(r->trace.records));
		iom_json_add(t, "dropped", json_object_new_uint64(r->trace.dropped));
		iom_json_add(t, "bytes", json_object_new_uint64(r->trace.bytes));
		iom_json_add(t, "bytes_per_io", iom_json_num(r->trace.bytes_per_io));
		iom_json_add(o, "trace", t);
	} else {
		iom_json_add(o, "trace", NULL);
	}
	if (r->verify.enabled) {
		json_object *v = json_object_new_object(), *first = json_object_new_array();

		iom_json_add(v, "sectors_written",
			     json_object_new_uint64(r->verify.sectors_written));
		iom_json_add(v, "sectors_checked",
			     json_object_new_uint64(r->verify.sectors_checked));
		iom_json_add(v, "sectors_unwritten",
			     json_object_new_uint64(r->verify.sectors_unwritten));
		iom_json_add(v, "mismatches", json_object_new_uint64(r->verify.mismatches));
		for (size_t i = 0; i < r->verify.nfirst; i++) {
			json_object *mm = json_object_new_object();

			iom_json_add(mm, "offset",
				     json_object_new_uint64(r->verify.first[i].offset));
			iom_json_add(mm, "expected", iom_json_str(r->verify.first[i].expected));
			iom_json_add(mm, "found", iom_json_str(r->verify.first[i].found));
			json_object_array_add(first, mm);
		}
		iom_json_add(v, "first", first);
		iom_json_add(o, "verify", v);
	} else {
		iom_json_add(o, "verify", NULL);
	}
	iom_json_add(o, "stalled", stall_json(&r->stall));
	iom_json_add(o, "disk", disk_json(&r->disk));
	iom_json_add(o, "flush", r->has_xops ? io_json(&r->xops[0]) : NULL);
	iom_json_add(o, "trim", r->has_xops ? io_json(&r->xops[1]) : NULL);
	if (r->steady.asked) { /* issue 18 */
		json_object *x = json_object_new_object();

		iom_json_add(x, "criterion", iom_json_str(r->steady.criterion));
		iom_json_add(x, "reached", json_object_new_boolean(r->steady.reached));
		iom_json_add(x, "at_s", iom_json_num(r->steady.reached ? r->steady.at_s : NAN));
		iom_json_add(x, "warmup_s", iom_json_num(r->steady.warmup_s));
		iom_json_add(x, "spread_pct", iom_json_num(r->steady.spread_pct));
		iom_json_add(o, "steady", iom_json_one_line(x));
	}
	iom_json_add(o, "load", load_json(&r->load, r->has_hist));
	if (r->nhosts)
		iom_json_add(o, "hosts", hosts_json(r));
	if (r->nhosts && r->stonewalled)
		iom_json_add(o, "stonewalled", json_object_new_boolean(true));
	if (r->nhosts)
		iom_json_add(o, "start_spread_ns", json_object_new_uint64(r->start_spread_ns));
	return o;
}

int iom_result_write(const struct iom_own_dir *d, const struct iom_matrix *m,
		     const struct iom_cell *c, const struct iom_run_result *r, char *err,
		     size_t errlen)
{
	json_object *o = run_json(m, c, r);
	char *path = iom_result_path(d->path, r->index);
	char *text = iom_json_text(o);
	int ret;

	json_object_put(o);
	ret = write_text(d, path, text, err, errlen);
	free(text);
	free(path);
	return ret;
}

/* ---- reading: typed getters with the field's path in every message ---- */

struct rd {
	const char *name; /* the file, for messages */
	char *err;
	size_t errlen;
	int ret;          /* first error, sticky: later getters do nothing */
};

static int rd_fail(struct rd *c, const char *prefix, const char *key, const char *what)
{
	if (c->ret == 0)
		c->ret = iom_err(c->err, c->errlen, EINVAL, "%s: '%s%s%s' %s", c->name,
				 prefix ? prefix : "", prefix && *prefix ? "." : "", key, what);
	return c->ret;
}

/* The member key of o, or NULL when absent or null. */
static json_object *member(struct rd *c, json_object *o, const char *key)
{
	json_object *v = NULL;

	if (c->ret || !o)
		return NULL;
	json_object_object_get_ex(o, key, &v);
	return v;
}

static json_object *rd_obj(struct rd *c, json_object *o, const char *prefix, const char *key)
{
	json_object *v = member(c, o, key);

	if (v && !json_object_is_type(v, json_type_object)) {
		rd_fail(c, prefix, key, "is not an object");
		return NULL;
	}
	return v;
}

static json_object *rd_arr(struct rd *c, json_object *o, const char *prefix, const char *key)
{
	json_object *v = member(c, o, key);

	if (v && !json_object_is_type(v, json_type_array)) {
		rd_fail(c, prefix, key, "is not an array");
		return NULL;
	}
	return v;
}

static bool is_uint(json_object *v)
{
	return json_object_is_type(v, json_type_int) && json_object_get_int64(v) >= 0;
}

static void rd_u64v(struct rd *c, json_object *v, const char *prefix, const char *key,
		    uint64_t *out)
{
	if (c->ret || !v)
		return;
	if (!is_uint(v)) {
		rd_fail(c, prefix, key, "is not a non-negative integer");
		return;
	}
	/* json-c reads a number of 2^64 or more as 2^64 - 1, silently: no count gets there */
	if (json_object_get_uint64(v) == UINT64_MAX) {
		rd_fail(c, prefix, key, "is out of range (2^64 or more)");
		return;
	}
	*out = json_object_get_uint64(v);
}

static void rd_u64(struct rd *c, json_object *o, const char *prefix, const char *key,
		   uint64_t *out)
{
	rd_u64v(c, member(c, o, key), prefix, key, out);
}

static void rd_u32(struct rd *c, json_object *o, const char *prefix, const char *key,
		   uint32_t *out)
{
	uint64_t v = *out;

	rd_u64(c, o, prefix, key, &v);
	if (v > UINT32_MAX)
		rd_fail(c, prefix, key, "is out of range");
	else
		*out = (uint32_t)v;
}

/*
 * The largest figure a file of iomatrix holds: every number it writes as a double (rates,
 * latencies in ns, CPU shares and times, seconds) is 0 or more and far below it (1e15 ns is
 * eleven days, 1e15 IOPS no device does). A number beyond it, negative, or not finite (json-c
 * reads NaN and Infinity) was not written by iomatrix, and the file is inconsistent, as with a
 * crafted count.
 */
#define FIGURE_MAX 1e15

static void rd_double(struct rd *c, json_object *o, const char *prefix, const char *key,
		      double *out)
{
	json_object *v;
	double x;

	if (c->ret || !o || !json_object_object_get_ex(o, key, &v))
		return; /* absent: left as is */
	if (!v) {
		*out = NAN; /* null: written for a non-finite value */
		return;
	}
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int)) {
		rd_fail(c, prefix, key, "is not a number");
		return;
	}
	x = json_object_get_double(v);
	if (!isfinite(x) || x < 0 || x > FIGURE_MAX) {
		char what[96];

		snprintf(what, sizeof(what), "is %.6g, not a figure iomatrix writes (0 to %g)", x,
			 FIGURE_MAX);
		rd_fail(c, prefix, key, what);
		return;
	}
	*out = x;
}

/* A rate, which iomatrix always writes as a number (0 without a measured window): null is
 * refused too. */
static void rd_rate(struct rd *c, json_object *o, const char *prefix, const char *key,
		    double *out)
{
	rd_double(c, o, prefix, key, out);
	if (c->ret == 0 && isnan(*out))
		rd_fail(c, prefix, key, "is null, not a rate");
}

static void rd_bool(struct rd *c, json_object *o, const char *prefix, const char *key, bool *out)
{
	json_object *v = member(c, o, key);

	if (!v)
		return;
	if (!json_object_is_type(v, json_type_boolean)) {
		rd_fail(c, prefix, key, "is not true or false");
		return;
	}
	*out = json_object_get_boolean(v);
}

static void rd_str(struct rd *c, json_object *o, const char *prefix, const char *key, char **out)
{
	json_object *v = member(c, o, key);

	if (!v)
		return;
	if (!json_object_is_type(v, json_type_string)) {
		rd_fail(c, prefix, key, "is not a string");
		return;
	}
	free(*out);
	*out = xstrdup(json_object_get_string(v));
}

/* Parses text into a JSON object and checks its schema against max_schema. */
static json_object *parse_root(struct rd *c, const char *text, int max_schema, const char *what,
			       int *schema)
{
	struct json_tokener *tok = json_tokener_new();
	size_t len = strlen(text);
	json_object *root, *v;
	enum json_tokener_error jerr;

	if (!tok) {
		c->ret = iom_err(c->err, c->errlen, ENOMEM, "%s: out of memory", c->name);
		return NULL;
	}
	root = json_tokener_parse_ex(tok, text, (int)IOM_MIN(len, (size_t)INT32_MAX));
	jerr = json_tokener_get_error(tok);
	if (jerr != json_tokener_success) {
		if (jerr == json_tokener_continue)
			c->ret = iom_err(c->err, c->errlen, EINVAL,
					 "%s: truncated JSON (the file ends after %zu bytes)",
					 c->name, len);
		else
			c->ret = iom_err(c->err, c->errlen, EINVAL, "%s: invalid JSON at byte %zu: %s",
					 c->name, json_tokener_get_parse_end(tok),
					 json_tokener_error_desc(jerr));
		json_object_put(root);
		json_tokener_free(tok);
		return NULL;
	}
	for (size_t i = json_tokener_get_parse_end(tok); i < len; i++) {
		if (!isspace((unsigned char)text[i])) {
			c->ret = iom_err(c->err, c->errlen, EINVAL,
					 "%s: unexpected data after the JSON at byte %zu", c->name, i);
			json_object_put(root);
			json_tokener_free(tok);
			return NULL;
		}
	}
	json_tokener_free(tok);
	if (!root || !json_object_is_type(root, json_type_object)) {
		c->ret = iom_err(c->err, c->errlen, EINVAL, "%s: not %s (not a JSON object)",
				 c->name, what);
		json_object_put(root);
		return NULL;
	}
	if (!json_object_object_get_ex(root, "schema", &v) || !v) {
		c->ret = iom_err(c->err, c->errlen, EINVAL, "%s: not %s (no 'schema' field)",
				 c->name, what);
	} else if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 1 ||
		   json_object_get_int64(v) > INT32_MAX) {
		c->ret = iom_err(c->err, c->errlen, EINVAL, "%s: 'schema' is not a positive integer",
				 c->name);
	} else if (json_object_get_int64(v) > max_schema) {
		c->ret = iom_err(c->err, c->errlen, EINVAL,
				 "%s: schema %" PRId64 " is newer than this iomatrix reads (%d)",
				 c->name, json_object_get_int64(v), max_schema);
	} else {
		*schema = (int)json_object_get_int64(v);
		return root;
	}
	json_object_put(root);
	return NULL;
}

/* ---- run JSON: reading ---- */

static void read_lat(struct rd *c, json_object *o, const char *prefix, struct iom_lat *l)
{
	char p[64], key[32];
	json_object *pct;

	snprintf(p, sizeof(p), "%s.lat_ns", prefix);
	rd_u64(c, o, p, "min", &l->min);
	rd_double(c, o, p, "mean", &l->mean);
	rd_double(c, o, p, "stddev", &l->stddev);
	rd_u64(c, o, p, "max", &l->max);
	pct = rd_obj(c, o, p, "percentiles");
	snprintf(p, sizeof(p), "%s.lat_ns.percentiles", prefix);
	for (int i = 0; i < IOM_NPCT; i++) {
		snprintf(key, sizeof(key), "%.10g", iom_percentiles[i]);
		rd_u64(c, pct, p, key, &l->pct[i]);
	}
}

/* An I/O figure's counts and rates (io_json's, without the latencies), prefix naming it. */
static void read_counts(struct rd *c, json_object *o, const char *prefix, struct iom_io_stats *s)
{
	rd_u64(c, o, prefix, "ios", &s->ios);
	rd_u64(c, o, prefix, "bytes", &s->bytes);
	rd_rate(c, o, prefix, "iops", &s->iops);
	rd_rate(c, o, prefix, "mb_s", &s->mb_s);
	rd_rate(c, o, prefix, "mib_s", &s->mib_s);
}

/* A decimal string of digits into a 128-bit sum; false when it is not one. */
static bool parse_u128(const char *t, unsigned __int128 *out)
{
	unsigned __int128 v = 0, max = ~(unsigned __int128)0;

	if (!*t)
		return false;
	for (; *t; t++) {
		if (*t < '0' || *t > '9' || v > (max - (unsigned)(*t - '0')) / 10)
			return false;
		v = v * 10 + (unsigned)(*t - '0');
	}
	*out = v;
	return true;
}

static void rd_u128(struct rd *c, json_object *o, const char *prefix, const char *key,
		    unsigned __int128 *out)
{
	json_object *v = member(c, o, key);

	if (!v)
		return;
	if (!json_object_is_type(v, json_type_string) || !parse_u128(json_object_get_string(v), out))
		rd_fail(c, prefix, key, "is not a string of decimal digits");
}

/* A kept histogram ("lat_ns.hist", hist_json's form) of o, when there is one: *have set. The
 * bins must be bucket bounds in ascending order adding up to count; min and max come from
 * the lat_ns figures beside it (l). */
static void read_hist_at(struct rd *c, json_object *x, const char *p, const struct iom_lat *l,
			 struct iom_hist_sparse *h)
{
	json_object *a;
	const char *bad;
	size_t n;

	iom_hist_sparse_release(h);
	rd_u64(c, x, p, "count", &h->count);
	rd_u128(c, x, p, "sum", &h->sum);
	rd_u128(c, x, p, "sumsq", &h->sumsq);
	rd_u64(c, x, p, "clamped", &h->clamped);
	a = rd_arr(c, x, p, "bins");
	n = a ? json_object_array_length(a) : 0;
	if (c->ret)
		return;
	if (n % 2 || n / 2 > IOM_HIST_BUCKETS) {
		rd_fail(c, p, "bins", "is not pairs of a bucket's lower bound and its count");
		return;
	}
	h->min = l ? l->min : 0;
	h->max = l ? l->max : 0;
	rd_u64(c, x, p, "min", &h->min); /* absent in the first files that kept histograms */
	rd_u64(c, x, p, "max", &h->max);
	h->bins = n ? xcalloc(n / 2, sizeof(*h->bins)) : NULL;
	for (size_t i = 0; i + 1 < n && !c->ret; i += 2) {
		uint64_t lo = 0, cnt = 0, blo, bhi;
		unsigned b;

		rd_u64v(c, json_object_array_get_idx(a, i), p, "bins", &lo);
		rd_u64v(c, json_object_array_get_idx(a, i + 1), p, "bins", &cnt);
		b = iom_hist_bucket_of(lo);
		iom_hist_bucket_range(b, &blo, &bhi);
		if (!c->ret && blo != lo)
			rd_fail(c, p, "bins", "has a value that is not a bucket's lower bound");
		h->bins[h->nbins++] = (struct iom_hist_bin){ .b = b, .n = cnt };
	}
	if (!c->ret && (bad = iom_hist_sparse_invalid(h)) != NULL)
		rd_fail(c, p, "bins", bad);
}

static void read_hist(struct rd *c, json_object *o, const char *prefix, const struct iom_lat *l,
		      struct iom_hist_sparse *h, bool *have)
{
	json_object *x = rd_obj(c, o, prefix, "hist");
	char p[80];

	if (!x)
		return;
	snprintf(p, sizeof(p), "%s.hist", prefix);
	read_hist_at(c, x, p, l, h);
	*have = true;
}

static void read_io_named(struct rd *c, json_object *root, const char *name,
			  struct iom_io_stats *s)
{
	json_object *o = rd_obj(c, root, "", name);

	read_counts(c, o, name, s);
	read_lat(c, rd_obj(c, o, name, "lat_ns"), name, &s->lat);
}

/* A direction's figures and, when the file keeps it, its histogram (*have set). */
static void read_io(struct rd *c, json_object *root, int d, struct iom_io_stats *s,
		    struct iom_hist_sparse *h, bool *have)
{
	char p[32];

	read_io_named(c, root, dir_names[d], s);
	snprintf(p, sizeof(p), "%s.lat_ns", dir_names[d]);
	read_hist(c, rd_obj(c, rd_obj(c, root, "", dir_names[d]), dir_names[d], "lat_ns"), p,
		  &s->lat, h, have);
}

static void read_cpu_pct(struct rd *c, json_object *o, const char *prefix, struct iom_cpu_pct *p)
{
	if (o && !json_object_is_type(o, json_type_object)) {
		rd_fail(c, "", prefix, "is not an object");
		return;
	}
	rd_double(c, o, prefix, "user", &p->user);
	rd_double(c, o, prefix, "kernel", &p->kernel);
	rd_double(c, o, prefix, "iowait", &p->iowait);
	rd_double(c, o, prefix, "irq", &p->irq);
	rd_double(c, o, prefix, "softirq", &p->softirq);
	rd_double(c, o, prefix, "steal", &p->steal);
	rd_double(c, o, prefix, "idle", &p->idle);
}

static void read_cpu(struct rd *c, json_object *o, struct iom_run_cpu *cpu)
{
	json_object *a = rd_arr(c, o, "cpu", "per_cpu");
	uint64_t n64 = 0;

	if (a) {
		size_t n = json_object_array_length(a);

		if (n > IOM_CPU_MAX) {
			rd_fail(c, "cpu", "per_cpu", "has more entries than iomatrix supports");
			return;
		}
		cpu->ncpu = (unsigned)n;
		cpu->per_cpu = xcalloc(n, sizeof(*cpu->per_cpu));
		for (size_t i = 0; i < n; i++) {
			char p[48];

			snprintf(p, sizeof(p), "cpu.per_cpu[%zu]", i);
			read_cpu_pct(c, json_object_array_get_idx(a, i), p, &cpu->per_cpu[i]);
		}
	}
	read_cpu_pct(c, rd_obj(c, o, "cpu", "avg"), "cpu.avg", &cpu->avg);
	rd_double(c, o, "cpu", "busy_pct", &cpu->busy_pct);
	rd_double(c, o, "cpu", "proc_user_s", &cpu->proc_user_s);
	rd_double(c, o, "cpu", "proc_sys_s", &cpu->proc_sys_s);
	rd_double(c, o, "cpu", "us_per_io", &cpu->us_per_io);
	rd_u64(c, o, "cpu", "interrupts", &n64);
	cpu->interrupts = n64;
	rd_double(c, o, "cpu", "interrupts_per_io", &cpu->interrupts_per_io);
	rd_str(c, o, "cpu", "irq_drivers", &cpu->irq_drivers);
	/* absent in the runs of older versions: left 0 */
	rd_double(c, o, "cpu", "system_busy_pct", &cpu->system_busy_pct);
	rd_double(c, o, "cpu", "system_us_per_io", &cpu->system_us_per_io);
	rd_double(c, o, "cpu", "iops_per_busy_pct", &cpu->iops_per_busy_pct);
	cpu->other_pct = NAN; /* absent before it was measured */
	rd_double(c, o, "cpu", "other_cpu_pct", &cpu->other_pct);
	n64 = 0;
	rd_u64(c, o, "cpu", "busy_jiffies", &n64);
	cpu->busy_jiffies = n64;
	n64 = 0;
	rd_u64(c, o, "cpu", "all_jiffies", &n64);
	cpu->all_jiffies = n64;
}

static void read_threads(struct rd *c, json_object *root, struct iom_run_result *r)
{
	json_object *a = rd_arr(c, root, "", "threads");
	size_t n;

	if (!a)
		return;
	n = json_object_array_length(a);
	if (n > 1000000) {
		rd_fail(c, "", "threads", "has too many entries");
		return;
	}
	r->nthreads = (unsigned)n;
	r->threads = xcalloc(n, sizeof(*r->threads));
	for (size_t t = 0; t < n; t++) {
		json_object *o = json_object_array_get_idx(a, t);
		char p[48];

		snprintf(p, sizeof(p), "threads[%zu]", t);
		if (!o || !json_object_is_type(o, json_type_object)) {
			rd_fail(c, "", p, "is not an object");
			return;
		}
		for (int d = 0; d < IOM_NDIR; d++) {
			json_object *x = rd_obj(c, o, p, dir_names[d]);
			char q[64];

			snprintf(q, sizeof(q), "%s.%s", p, dir_names[d]);
			rd_u64(c, x, q, "ios", &r->threads[t].dir[d].ios);
			rd_u64(c, x, q, "bytes", &r->threads[t].dir[d].bytes);
			rd_double(c, x, q, "lat_mean_ns", &r->threads[t].dir[d].lat_mean_ns);
			rd_double(c, x, q, "lat_stddev_ns", &r->threads[t].dir[d].lat_stddev_ns);
		}
	}
}

/* issue 16c: "paths", when there (a target with several paths; older files have none). */
static void read_paths(struct rd *c, json_object *root, struct iom_run_result *r)
{
	json_object *a;
	size_t n;

	if (!json_object_object_get_ex(root, "paths", &a))
		return;
	if (!json_object_is_type(a, json_type_array)) {
		rd_fail(c, "", "paths", "is not an array");
		return;
	}
	n = json_object_array_length(a);
	if (n > 1000000) {
		rd_fail(c, "", "paths", "has too many entries");
		return;
	}
	r->paths = xcalloc(n ? n : 1, sizeof(*r->paths));
	r->npaths = n;
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(a, i);
		char p[48];

		snprintf(p, sizeof(p), "paths[%zu]", i);
		if (!o || !json_object_is_type(o, json_type_object)) {
			rd_fail(c, "", p, "is not an object");
			return;
		}
		rd_str(c, o, p, "path", &r->paths[i].path);
		for (int d = 0; d < IOM_NDIR; d++) {
			json_object *x = rd_obj(c, o, p, dir_names[d]);
			struct iom_io_stats *st = &r->paths[i].dir[d];
			char q[64];

			snprintf(q, sizeof(q), "%s.%s", p, dir_names[d]);
			read_counts(c, x, q, st);
		}
	}
}

/* issue 16a: "access", when there (a cell with an access spec; older files have none). */
static void read_access(struct rd *c, json_object *root, struct iom_run_result *r)
{
	json_object *o, *a;
	size_t n;

	if (!json_object_object_get_ex(root, "access", &o))
		return;
	a = rd_arr(c, o, "access", "lines");
	if (!a)
		return;
	n = json_object_array_length(a);
	if (n > 1000) {
		rd_fail(c, "access", "lines", "has too many entries");
		return;
	}
	rd_str(c, o, "access", "name", &r->access);
	r->lines = xcalloc(n ? n : 1, sizeof(*r->lines));
	r->nlines = n;
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(a, i);
		struct iom_line_stats *l = &r->lines[i];
		char p[48];

		snprintf(p, sizeof(p), "access.lines[%zu]", i);
		if (!e || !json_object_is_type(e, json_type_object)) {
			rd_fail(c, "", p, "is not an object");
			return;
		}
		rd_u32(c, e, p, "share", &l->share);
		rd_u32(c, e, p, "block_size", &l->block_size);
		rd_u32(c, e, p, "read_pct", &l->read_pct);
		rd_u32(c, e, p, "random_pct", &l->random_pct);
		rd_u64(c, e, p, "align", &l->align);
		for (int d = 0; d < IOM_NDIR; d++) {
			json_object *x = rd_obj(c, e, p, dir_names[d]);
			struct iom_io_stats *st = &l->dir[d];
			char q[64];

			snprintf(q, sizeof(q), "%s.%s", p, dir_names[d]);
			read_counts(c, x, q, st);
			if (d == IOM_DIR_TOTAL)
				read_lat(c, rd_obj(c, x, q, "lat_ns"), q, &st->lat);
		}
	}
}

/* A string member of o into a fixed buffer (cut to fit); absent or null: left as is. */
static void rd_fixed(struct rd *c, json_object *o, const char *prefix, const char *key,
		     char *buf, size_t len)
{
	char *v = NULL;

	rd_str(c, o, prefix, key, &v);
	if (v)
		snprintf(buf, len, "%s", v);
	free(v);
}

/* "hosts": the rows of a run of many hosts (hosts_json); absent on one host. */
static void read_hosts(struct rd *c, json_object *root, struct iom_run_result *r)
{
	json_object *a = rd_arr(c, root, "", "hosts");
	size_t n;

	if (!a)
		return;
	n = json_object_array_length(a);
	if (n > 1000000) {
		rd_fail(c, "", "hosts", "has too many entries");
		return;
	}
	r->hosts = xcalloc(n ? n : 1, sizeof(*r->hosts));
	r->nhosts = n;
	for (size_t i = 0; i < n && c->ret == 0; i++) {
		json_object *o = json_object_array_get_idx(a, i), *v;
		struct iom_host_row *h = &r->hosts[i];
		char p[48], *status = NULL;
		bool b;

		snprintf(p, sizeof(p), "hosts[%zu]", i);
		if (!o || !json_object_is_type(o, json_type_object)) {
			rd_fail(c, "", p, "is not an object");
			return;
		}
		rd_u32(c, o, p, "rank", &h->rank);
		rd_fixed(c, o, p, "host", h->host, sizeof(h->host));
		rd_str(c, o, p, "status", &status);
		if (status) {
			int st = iom_run_status_parse(status);

			if (st < 0)
				rd_fail(c, p, "status", "is not \"ok\", \"failed\" or \"interrupted\"");
			h->status = st < 0 ? 0 : st;
			free(status);
		}
		rd_fixed(c, o, p, "error", h->error, sizeof(h->error));
		rd_u64(c, o, p, "ios", &h->ios[IOM_DIR_TOTAL]);
		rd_u64(c, o, p, "bytes", &h->bytes[IOM_DIR_TOTAL]);
		rd_u64(c, o, p, "read_ios", &h->ios[IOM_DIR_READ]);
		rd_u64(c, o, p, "write_ios", &h->ios[IOM_DIR_WRITE]);
		rd_rate(c, o, p, "iops", &h->iops);
		rd_rate(c, o, p, "mb_s", &h->mb_s);
		rd_double(c, o, p, "lat_mean_ns", &h->lat_mean_ns);
		rd_u64(c, o, p, "p50_ns", &h->p50_ns);
		rd_u64(c, o, p, "p99_ns", &h->p99_ns);
		v = member(c, o, "offset_ns");
		if (v && !json_object_is_type(v, json_type_int))
			rd_fail(c, p, "offset_ns", "is not an integer");
		else if (v)
			h->offset_ns = json_object_get_int64(v);
		rd_u64(c, o, p, "window_start_ns", &h->start_ns);
		rd_u64(c, o, p, "window_end_ns", &h->end_ns);
		rd_double(c, o, p, "busy_pct", &h->busy_pct);
		rd_double(c, o, p, "proc_user_s", &h->user_s);
		rd_double(c, o, p, "proc_sys_s", &h->sys_s);
		b = false;
		rd_bool(c, o, p, "straggler", &b);
		h->straggler = b;
		b = false;
		rd_bool(c, o, p, "stonewalled", &b);
		h->stonewalled = b;
		rd_fixed(c, o, p, "kernel", h->kernel, sizeof(h->kernel));
		rd_fixed(c, o, p, "cpu_model", h->cpu_model, sizeof(h->cpu_model));
		rd_fixed(c, o, p, "driver", h->driver, sizeof(h->driver));
		rd_fixed(c, o, p, "scheduler", h->scheduler, sizeof(h->scheduler));
		rd_fixed(c, o, p, "device", h->device, sizeof(h->device));
		v = member(c, o, "start_late_ns");
		if (v && !json_object_is_type(v, json_type_int))
			rd_fail(c, p, "start_late_ns", "is not an integer");
		else if (v)
			h->start_late_ns = json_object_get_int64(v);
		v = rd_obj(c, o, p, "hist"); /* absent in files from before */
		for (int d = 0; v && d < IOM_NDIR && c->ret == 0; d++) {
			json_object *x = rd_obj(c, v, p, dir_names[d]);
			char q[80];

			if (!r->host_hist)
				r->host_hist = xcalloc(n, sizeof(*r->host_hist));
			snprintf(q, sizeof(q), "%s.hist.%s", p, dir_names[d]);
			if (x)
				read_hist_at(c, x, q, NULL, &r->host_hist[i][d]);
		}
	}
}

static void read_intervals(struct rd *c, json_object *root, struct iom_run_result *r)
{
	json_object *o = rd_obj(c, root, "", "intervals");
	json_object *a[8];
	size_t n = 0;
	int nk = 4;

	if (!o)
		return;
	for (int k = 0; k < 8; k++) {
		a[k] = rd_arr(c, o, "intervals", iv_keys[k]);
		if (a[k] && json_object_array_length(a[k]) > n)
			n = json_object_array_length(a[k]);
	}
	if (c->ret || n == 0)
		return;
	/* the latencies: all four arrays, or none (files from before) */
	r->has_iv_lat = a[4] || a[5] || a[6] || a[7];
	if (r->has_iv_lat)
		nk = 8;
	r->nintervals = n;
	r->intervals = xcalloc(n, sizeof(*r->intervals));
	for (int k = 0; k < nk; k++) {
		size_t m = a[k] ? json_object_array_length(a[k]) : 0;

		if (m != n) {
			rd_fail(c, "intervals", iv_keys[k], "has a different length than the others");
			return;
		}
		for (size_t i = 0; i < m; i++) {
			char key[48];

			snprintf(key, sizeof(key), "%s[%zu]", iv_keys[k], i);
			rd_u64v(c, json_object_array_get_idx(a[k], i), "intervals", key,
				iv_field(&r->intervals[i], k));
			r->intervals[i].ns = IOM_INTERVAL_NS;
		}
	}
	{
		uint64_t last = IOM_INTERVAL_NS;

		rd_u64(c, o, "intervals", "last_ns", &last);
		if (c->ret == 0 && (last == 0 || last > 2 * IOM_INTERVAL_NS))
			rd_fail(c, "intervals", "last_ns", "is not the length of an interval");
		r->intervals[n - 1].ns = last;
	}
}

static char *value_string(json_object *v)
{
	char buf[64];

	switch (json_object_get_type(v)) {
	case json_type_string:
		return xstrdup(json_object_get_string(v));
	case json_type_boolean:
		return xstrdup(json_object_get_boolean(v) ? "true" : "false");
	case json_type_int:
		if (json_object_get_int64(v) < 0)
			snprintf(buf, sizeof(buf), "%" PRId64, json_object_get_int64(v));
		else
			snprintf(buf, sizeof(buf), "%" PRIu64, json_object_get_uint64(v));
		return xstrdup(buf);
	case json_type_double:
		iom_double_format(json_object_get_double(v), buf, sizeof(buf));
		return xstrdup(buf);
	default:
		return NULL;
	}
}

size_t iom_result_cell_pairs(const struct iom_matrix *m, const struct iom_cell *c,
			     struct iom_cell_pair **out)
{
	json_object *o = cell_json(m, c);
	size_t n = 0;

	*out = xcalloc((size_t)json_object_object_length(o) + 1, sizeof(**out));
	json_object_object_foreach(o, key, val) {
		char *v = value_string(val);

		if (!v)
			continue;
		(*out)[n].name = xstrdup(key);
		(*out)[n++].value = v;
	}
	json_object_put(o);
	return n;
}

/*
 * The dimensions later code divides by or sizes with must hold what a plan can hold: a block
 * size, queue depth and thread count of at least 1, a read percentage of 0 to 100. A file
 * that says otherwise was not written by iomatrix as it ran, and is inconsistent.
 */
static void check_cell_value(struct rd *c, const char *key, json_object *val)
{
	static const struct {
		const char *name;
		int64_t min, max;
	} dims[] = {
		{ "block_size", 1, INT64_MAX }, { "queue_depth", 1, INT64_MAX },
		{ "threads", 1, INT64_MAX },    { "read_pct", 0, 100 },
	};

	for (size_t i = 0; i < IOM_ARRAY_SIZE(dims); i++) {
		char what[96];
		int64_t v;

		if (strcmp(key, dims[i].name) != 0)
			continue;
		if (!val || !json_object_is_type(val, json_type_int)) {
			rd_fail(c, "cell", key, "is not an integer");
			return;
		}
		v = json_object_get_int64(val);
		if (v < dims[i].min || v > dims[i].max || v == INT64_MAX) {
			if (dims[i].max == INT64_MAX)
				snprintf(what, sizeof(what), "is %s, not a positive integer",
					 v == INT64_MAX ? "out of range" : json_object_get_string(val));
			else
				snprintf(what, sizeof(what), "is %s, not %" PRId64 " to %" PRId64,
					 json_object_get_string(val), dims[i].min, dims[i].max);
			rd_fail(c, "cell", key, what);
		}
		return;
	}
}

static void read_cell(struct rd *c, json_object *root, struct iom_result_file *f)
{
	json_object *o;
	size_t n = 0;

	if (!json_object_object_get_ex(root, "cell", &o) || !o) {
		c->ret = iom_err(c->err, c->errlen, EINVAL, "%s: no 'cell' object", c->name);
		return;
	}
	if (!json_object_is_type(o, json_type_object)) {
		rd_fail(c, "", "cell", "is not an object");
		return;
	}
	f->cell = xcalloc((size_t)json_object_object_length(o) + 1, sizeof(*f->cell));
	json_object_object_foreach(o, key, val) {
		char *s = val ? value_string(val) : xstrdup("");

		if (!s) {
			rd_fail(c, "cell", key, "is not a string, number or boolean");
			return;
		}
		f->cell[n].name = xstrdup(key);
		f->cell[n].value = s;
		f->ncell = ++n;
		check_cell_value(c, key, val);
	}
}

static int required(struct rd *c, json_object *root, const char *key)
{
	json_object *v;

	if (c->ret == 0 && (!json_object_object_get_ex(root, key, &v) || !v))
		c->ret = iom_err(c->err, c->errlen, EINVAL, "%s: no '%s' field", c->name, key);
	return c->ret;
}

int iom_result_parse(const char *name, const char *text, struct iom_result_file *f, char *err,
		     size_t errlen)
{
	struct rd c = { .name = name, .err = err, .errlen = errlen };
	struct iom_run_result *r = &f->r;
	json_object *root;
	char *status = NULL;
	int st;

	memset(f, 0, sizeof(*f));
	root = parse_root(&c, text, IOM_RESULT_SCHEMA, "an iomatrix run result", &f->schema);
	if (!root)
		return c.ret;
	required(&c, root, "index");
	required(&c, root, "repetition");
	required(&c, root, "status");
	rd_u32(&c, root, "", "index", &r->index);
	rd_u32(&c, root, "", "repetition", &r->repetition);
	{
		json_object *v = member(&c, root, "seed");

		if (v && !is_uint(v))
			rd_fail(&c, "", "seed", "is not a non-negative integer");
		else if (v)
			r->seed = json_object_get_uint64(v); /* any 64-bit value is a seed */
	}
	if (c.ret == 0 && r->index == 0)
		rd_fail(&c, "", "index", "is 0, not a run of a plan (they count from 1)");
	read_cell(&c, root, f);
	rd_str(&c, root, "", "status", &status);
	if (c.ret == 0) {
		st = iom_run_status_parse(status);
		if (st < 0)
			rd_fail(&c, "", "status", "is not \"ok\", \"failed\" or \"interrupted\"");
		else
			r->status = (enum iom_run_status)st;
	}
	free(status);
	rd_str(&c, root, "", "error", &r->error);
	rd_u64(&c, root, "", "start_ns", &r->start_wall_ns);
	rd_double(&c, root, "", "elapsed_s", &r->elapsed_s);
	if (c.ret == 0 && (r->elapsed_s < 0 || (r->status == IOM_RUN_OK && !isfinite(r->elapsed_s))))
		rd_fail(&c, "", "elapsed_s", "is not a length of time (negative, or not a number in a "
			"finished run)");
	for (int d = 0; d < IOM_NDIR; d++)
		read_io(&c, root, d, &r->dir[d], &r->hist[d], &r->has_hist);
	r->iops_stddev = r->mb_s_stddev = NAN; /* null, or absent: fewer than two intervals */
	rd_double(&c, root, "", "iops_stddev", &r->iops_stddev);
	rd_double(&c, root, "", "mb_s_stddev", &r->mb_s_stddev);
	rd_double(&c, root, "", "qd_mean", &r->qd_mean);
	read_threads(&c, root, r);
	read_paths(&c, root, r);
	read_access(&c, root, r);
	read_cpu(&c, rd_obj(&c, root, "", "cpu"), &r->cpu);
	read_intervals(&c, root, r);
	rd_u64(&c, root, "", "warmup_ios", &r->warmup_ios);
	rd_u64(&c, root, "", "cooldown_ios", &r->cooldown_ios);
	rd_bool(&c, root, "", "registered_buffers", &r->registered_buffers);
	rd_str(&c, root, "", "engine_notes", &r->engine_notes);
	{
		json_object *t = rd_obj(&c, root, "", "trace");

		if (t) {
			rd_str(&c, t, "trace.", "file", &r->trace.file);
			rd_u64(&c, t, "trace.", "records", &r->trace.records);
			rd_u64(&c, t, "trace.", "dropped", &r->trace.dropped);
			rd_u64(&c, t, "trace.", "bytes", &r->trace.bytes);
			rd_double(&c, t, "trace.", "bytes_per_io", &r->trace.bytes_per_io);
		}
	}
	{
		/* absent in files written before data verification existed */
		json_object *v = rd_obj(&c, root, "", "verify");

		if (v) {
			r->verify.enabled = true;
			rd_u64(&c, v, "verify.", "sectors_written", &r->verify.sectors_written);
			rd_u64(&c, v, "verify.", "sectors_checked", &r->verify.sectors_checked);
			rd_u64(&c, v, "verify.", "sectors_unwritten", &r->verify.sectors_unwritten);
			rd_u64(&c, v, "verify.", "mismatches", &r->verify.mismatches);
		}
	}
	{
		/* absent in files written before stalls were judged: null, not stalled */
		json_object *v = rd_obj(&c, root, "", "stalled");

		if (v) {
			r->stall.stalled = true;
			rd_double(&c, v, "stalled", "gap_s", &r->stall.gap_s);
			rd_double(&c, v, "stalled", "at_s", &r->stall.at_s);
			rd_double(&c, v, "stalled", "window_s", &r->stall.window_s);
			rd_double(&c, v, "stalled", "asked_s", &r->stall.asked_s);
			if (isnan(r->stall.asked_s))
				r->stall.asked_s = 0; /* null: bytes-bound */
			rd_str(&c, v, "stalled", "reason", &r->stall.reason);
		}
	}
	/* flush and trim: null (or absent in older files) when the cell set neither key */
	if (json_object_object_get(root, "flush") || json_object_object_get(root, "trim")) {
		r->has_xops = true;
		read_io_named(&c, root, "flush", &r->xops[0]);
		read_io_named(&c, root, "trim", &r->xops[1]);
	}
	{
		/* absent in files written before the disk's counters were recorded */
		json_object *v = rd_obj(&c, root, "", "disk");
		char *dname = NULL;

		if (v) {
			r->disk.have = true;
			rd_str(&c, v, "disk.", "name", &dname);
			snprintf(r->disk.name, sizeof(r->disk.name), "%s", dname ? dname : "");
			free(dname);
			dname = NULL;
			rd_u64(&c, v, "disk.", "reads", &r->disk.reads);
			rd_u64(&c, v, "disk.", "writes", &r->disk.writes);
			/* null: the kernel did not count them */
			r->disk.has_discards = json_object_object_get(v, "discards") != NULL;
			r->disk.has_flushes = json_object_object_get(v, "flushes") != NULL;
			if (r->disk.has_discards)
				rd_u64(&c, v, "disk.", "discards", &r->disk.discards);
			if (r->disk.has_flushes)
				rd_u64(&c, v, "disk.", "flushes", &r->disk.flushes);
			rd_str(&c, v, "disk.", "write_cache", &dname);
			snprintf(r->disk.write_cache, sizeof(r->disk.write_cache), "%s",
				 dname ? dname : "");
			free(dname);
			r->disk.fua = -1;
			if (json_object_object_get(v, "fua")) {
				bool fua = false;

				rd_bool(&c, v, "disk.", "fua", &fua);
				r->disk.fua = fua;
			}
		}
	}
	{ /* issue 18 */
		json_object *v = rd_obj(&c, root, "", "steady");

		if (v) {
			r->steady.asked = true;
			r->steady.at_s = r->steady.spread_pct = NAN;
			rd_bool(&c, v, "steady", "reached", &r->steady.reached);
			rd_double(&c, v, "steady", "at_s", &r->steady.at_s);
			rd_double(&c, v, "steady", "warmup_s", &r->steady.warmup_s);
			rd_double(&c, v, "steady", "spread_pct", &r->steady.spread_pct);
			rd_str(&c, v, "steady", "criterion", &r->steady.criterion);
		}
	}
	{
		/* absent or null: a closed loop (and every file written before rates) */
		json_object *v = rd_obj(&c, root, "", "load");

		if (v) {
			char *arr = NULL;
			json_object *resp = rd_obj(&c, v, "load.", "response_ns");

			r->load.paced = true;
			rd_double(&c, v, "load.", "offered_iops", &r->load.offered_iops);
			rd_double(&c, v, "load.", "achieved_iops", &r->load.achieved_iops);
			rd_bool(&c, v, "load.", "held", &r->load.held);
			rd_u64(&c, v, "load.", "late_ios", &r->load.late_ios);
			rd_double(&c, v, "load.", "max_lag_s", &r->load.max_lag_s);
			rd_str(&c, v, "load.", "arrivals", &arr);
			r->load.poisson = arr && strcmp(arr, "poisson") == 0;
			free(arr);
			for (int d = 0; d < IOM_NDIR && resp; d++) {
				char p[48];

				snprintf(p, sizeof(p), "load.response_ns.%s", dir_names[d]);
				json_object *lo = rd_obj(&c, resp, "load.response_ns.", dir_names[d]);
				bool have = false;

				read_lat(&c, lo, p, &r->load.response[d]);
				read_hist(&c, lo, p, &r->load.response[d], &r->load.response_hist[d],
					  &have);
			}
		}
	}
	read_hosts(&c, root, r); /* issue 20: absent on one host */
	rd_bool(&c, root, "", "stonewalled", &r->stonewalled);
	rd_u64(&c, root, "", "start_spread_ns", &r->start_spread_ns);
	json_object_put(root);
	return c.ret;
}

static int read_text(const char *path, size_t cap, char **text, char *err, size_t errlen)
{
	return iom_own_read(NULL, path, IOM_OWN_READ, cap, text, NULL, err, errlen);
}

int iom_result_read(const char *path, struct iom_result_file *out, char *err, size_t errlen)
{
	char *text;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = read_text(path, IOM_OWN_CAP_RUN, &text, err, errlen);
	if (ret < 0)
		return ret;
	ret = iom_result_parse(path, text, out, err, errlen);
	free(text);
	if (ret == 0) {
		/* runs/NNNNN.json holds run NNNNN: the sweep, the journal and the report go by
		 * the name */
		const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		size_t digits = strspn(base, "0123456789");
		unsigned long named = strtoul(base, NULL, 10);

		if (digits && digits <= 10 && strcmp(base + digits, ".json") == 0 &&
		    named != out->r.index)
			ret = iom_err(err, errlen, EINVAL,
				      "%s: 'index' is %" PRIu32 ", but the file is named for run %lu",
				      path, out->r.index, named);
	}
	return ret;
}

int iom_result_host_offsets(const char *path, int64_t *off, size_t max, size_t *n, char *err,
			    size_t errlen)
{
	json_object *root, *a, *h, *v;
	char *text;
	int ret;

	*n = 0;
	ret = read_text(path, IOM_OWN_CAP_RUN, &text, err, errlen);
	if (ret < 0)
		return ret;
	root = json_tokener_parse(text);
	free(text);
	if (!root)
		return iom_err(err, errlen, EINVAL, "%s: invalid JSON", path);
	if (json_object_object_get_ex(root, "hosts", &a) && json_object_is_type(a, json_type_array))
		for (size_t i = 0; i < json_object_array_length(a); i++) {
			int64_t rank;

			h = json_object_array_get_idx(a, i);
			if (!json_object_object_get_ex(h, "rank", &v))
				continue;
			rank = json_object_get_int64(v);
			if (rank >= 0 && (size_t)rank < max &&
			    json_object_object_get_ex(h, "offset_ns", &v))
				off[rank] = json_object_get_int64(v);
			(*n)++;
		}
	json_object_put(root);
	return 0;
}

void iom_result_file_release(struct iom_result_file *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->ncell; i++) {
		free(f->cell[i].name);
		free(f->cell[i].value);
	}
	free(f->cell);
	f->cell = NULL;
	f->ncell = 0;
	iom_run_result_release(&f->r);
}

const char *iom_result_cell_get(const struct iom_result_file *f, const char *name)
{
	for (size_t i = 0; i < f->ncell; i++)
		if (strcmp(f->cell[i].name, name) == 0)
			return f->cell[i].value;
	return NULL;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int iom_result_list(const char *dir, uint32_t **idx, size_t *n, char *err, size_t errlen)
{
	char *runs = xasprintf("%s/runs", dir);
	DIR *d = iom_own_opendir(NULL, runs, err, errlen);
	struct dirent *e;
	size_t cap = 64;
	int ret = 0;

	*idx = NULL;
	*n = 0;
	if (!d) {
		ret = -errno;
		free(runs);
		return ret;
	}
	*idx = xmalloc(cap * sizeof(**idx));
	while ((e = readdir(d))) {
		const char *s = e->d_name;
		size_t digits = strspn(s, "0123456789");
		unsigned long v;

		if (digits == 0 || digits > 10 || strcmp(s + digits, ".json") != 0)
			continue;
		v = strtoul(s, NULL, 10);
		if (v > UINT32_MAX)
			continue;
		if (*n == cap) {
			cap *= 2;
			*idx = xrealloc(*idx, cap * sizeof(**idx));
		}
		(*idx)[(*n)++] = (uint32_t)v;
	}
	closedir(d);
	free(runs);
	qsort(*idx, *n, sizeof(**idx), cmp_u32);
	return 0;
}

/* ---- summary.csv ---- */

static const char *const csv_metrics[] = {
	"status", "iops", "mb_s", "read_iops", "write_iops", "lat_mean_us", "lat_p99_us",
	"lat_p999_us", "cpu_pct", "cpu_us_per_io", "error",
};

static void csv_header(FILE *f, const struct iom_cell_pair *cell, size_t ncell)
{
	iom_csv_field(f, "index", true);
	iom_csv_field(f, "repetition", false);
	for (size_t i = 0; i < ncell; i++)
		iom_csv_field(f, cell[i].name, false);
	for (size_t i = 0; i < IOM_ARRAY_SIZE(csv_metrics); i++)
		iom_csv_field(f, csv_metrics[i], false);
	iom_csv_end(f);
}

static void csv_row(FILE *f, const struct iom_cell_pair *cell, size_t ncell,
		    const struct iom_run_result *r)
{
	const struct iom_io_stats *t = &r->dir[IOM_DIR_TOTAL];
	int p99 = iom_percentile_index(99), p999 = iom_percentile_index(99.9);

	iom_csv_uint(f, r->index, true);
	iom_csv_uint(f, r->repetition, false);
	for (size_t i = 0; i < ncell; i++)
		iom_csv_field(f, cell[i].value, false);
	iom_csv_field(f, iom_run_status_name(r->status), false);
	if (r->status == IOM_RUN_FAILED) {
		for (size_t i = 2; i < IOM_ARRAY_SIZE(csv_metrics); i++)
			fputc(',', f);
	} else {
		iom_csv_num(f, t->iops);
		iom_csv_num(f, t->mb_s);
		iom_csv_num(f, r->dir[IOM_DIR_READ].iops);
		iom_csv_num(f, r->dir[IOM_DIR_WRITE].iops);
		iom_csv_num(f, t->lat.mean / 1e3);
		iom_csv_num(f, (double)t->lat.pct[p99] / 1e3);
		iom_csv_num(f, (double)t->lat.pct[p999] / 1e3);
		iom_csv_num(f, r->cpu.busy_pct);
		iom_csv_num(f, r->cpu.us_per_io);
	}
	iom_csv_field(f, r->error ? r->error : "", false);
	iom_csv_end(f);
}

/* The cell of (m, c) as the file will hold it: the same pairs iom_result_read() gives. */
static void cell_pairs(const struct iom_matrix *m, const struct iom_cell *c,
		       struct iom_result_file *f)
{
	json_object *o = cell_json(m, c);
	size_t n = 0;

	f->cell = xcalloc((size_t)json_object_object_length(o) + 1, sizeof(*f->cell));
	json_object_object_foreach(o, key, val) {
		f->cell[n].name = xstrdup(key);
		f->cell[n].value = val ? value_string(val) : xstrdup("");
		f->ncell = ++n;
	}
	json_object_put(o);
}

int iom_summary_append(const struct iom_own_dir *d, const struct iom_matrix *m,
		       const struct iom_cell *c, const struct iom_run_result *r, char *err,
		       size_t errlen)
{
	char *path = xasprintf("%s/summary.csv", d->path);
	struct iom_result_file cf = { 0 };
	char *buf = NULL;
	size_t len = 0;
	struct stat st;
	FILE *f;
	int fd, ret = 0;

	fd = iom_own_open(d, path, IOM_OWN_APPEND, err, errlen);
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	if (fstat(fd, &st) < 0) {
		ret = iom_err(err, errlen, errno, "cannot open '%s': %s", path, strerror(errno));
		goto out;
	}
	cell_pairs(m, c, &cf);
	f = open_memstream(&buf, &len);
	if (!f) {
		ret = iom_err(err, errlen, ENOMEM, "out of memory");
		goto out;
	}
	if (st.st_size == 0)
		csv_header(f, cf.cell, cf.ncell);
	csv_row(f, cf.cell, cf.ncell, r);
	if (fclose(f) != 0) {
		ret = iom_err(err, errlen, ENOMEM, "out of memory");
		goto out;
	}
	ret = iom_write_all(fd, buf, len);
	if (ret == 0 && fsync(fd) < 0)
		ret = -errno;
	if (ret == 0 && st.st_size == 0)
		ret = iom_own_fsync_dir(d, NULL);
	if (ret < 0)
		iom_err(err, errlen, -ret, "cannot write '%s': %s", path, strerror(-ret));
out:
	if (fd >= 0)
		close(fd);
	iom_result_file_release(&cf);
	free(buf);
	free(path);
	return ret;
}

int iom_summary_rebuild(const struct iom_own_dir *d, char *err, size_t errlen)
{
	const char *dir = d->path;
	uint32_t *idx = NULL;
	size_t n = 0, len = 0, ncell = 0;
	char *buf = NULL, *path;
	FILE *f;
	int ret;

	ret = iom_result_list(dir, &idx, &n, err, errlen);
	if (ret < 0)
		return ret;
	f = open_memstream(&buf, &len);
	if (!f) {
		free(idx);
		return iom_err(err, errlen, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n && ret == 0; i++) {
		struct iom_result_file rf;
		char *rp = iom_result_path(dir, idx[i]);

		ret = iom_result_read(rp, &rf, err, errlen);
		if (ret == 0 && i == 0) {
			ncell = rf.ncell;
			csv_header(f, rf.cell, rf.ncell);
		} else if (ret == 0 && rf.ncell != ncell) {
			ret = iom_err(err, errlen, EINVAL,
				      "%s: its cell has %zu dimensions, the first run's has %zu", rp,
				      rf.ncell, ncell);
		}
		if (ret == 0)
			csv_row(f, rf.cell, rf.ncell, &rf.r);
		iom_result_file_release(&rf);
		free(rp);
	}
	if (fclose(f) != 0 && ret == 0)
		ret = iom_err(err, errlen, ENOMEM, "out of memory");
	if (ret == 0) {
		path = xasprintf("%s/summary.csv", dir);
		ret = iom_own_write_atomic(d, path, buf, len, err, errlen);
		free(path);
	}
	free(buf);
	free(idx);
	return ret;
}

/* ---- study.json ---- */

static json_object *jsecs(uint64_t ns)
{
	return iom_json_num((double)ns / 1e9);
}

static json_object *facts_json(const struct iom_device_facts *f)
{
	json_object *o = json_object_new_object();

	iom_json_add(o, "device", iom_json_str(f->device));
	iom_json_add(o, "partition", iom_json_str(f->partition));
	iom_json_add(o, "driver", iom_json_str(f->driver));
	iom_json_add(o, "model", iom_json_str(f->model));
	iom_json_add(o, "vendor", iom_json_str(f->vendor));
	iom_json_add(o, "logical_block_size", json_object_new_uint64(f->logical_block_size));
	iom_json_add(o, "physical_block_size", json_object_new_uint64(f->physical_block_size));
	iom_json_add(o, "rotational",
		     f->rotational < 0 ? NULL : json_object_new_boolean(f->rotational));
	iom_json_add(o, "scheduler", iom_json_str(f->scheduler));
	iom_json_add(o, "nr_requests", json_object_new_uint64(f->nr_requests));
	iom_json_add(o, "fstype", iom_json_str(f->fstype));
	iom_json_add(o, "mount_point", iom_json_str(f->mount_point));
	iom_json_add(o, "mount_options", iom_json_str(f->mount_options));
	iom_json_add(o, "device_bytes", json_object_new_uint64(f->device_bytes));
	return o;
}

/*
 * The label of the first target before target i that is the same device (st_rdev) or file
 * (st_dev/st_ino) as it, as pinned when both were prepared (allow_same); NULL when none.
 */
static const char *same_as(const struct iom_study_record *s, size_t i)
{
	const struct iom_matrix *m = s->plan->m;
	const struct iom_target_info *a = s->targets && i < s->ntargets && s->targets[i].t ?
						  &s->targets[i] : NULL;

	for (size_t j = 0; a && j < i; j++) {
		const struct iom_target_info *b = j < s->ntargets && s->targets[j].t ?
							  &s->targets[j] : NULL;

		if (!b || a->is_block != b->is_block)
			continue;
		if (a->is_block ? a->id.rdev && a->id.rdev == b->id.rdev :
				  a->id.ino && a->id.dev == b->id.dev && a->id.ino == b->id.ino)
			return m->targets[j].label;
	}
	return NULL;
}

/* "machine": what makes the study repeatable beyond host, kernel and CPU (machine.h). */
static json_object *machine_json(const char *matrix_file)
{
	struct iom_machine mc;
	json_object *o = json_object_new_object();

	iom_machine_read(&mc, matrix_file);
	iom_json_add(o, "matrix_commit", iom_json_str(mc.matrix_commit));
	iom_json_add(o, "matrix_modified", mc.matrix_commit ?
			     json_object_new_boolean(mc.matrix_modified) : NULL);
	iom_json_add(o, "ram_bytes", json_object_new_uint64(mc.ram_bytes));
	iom_json_add(o, "distro", iom_json_str(mc.distro));
	iom_json_add(o, "liburing", iom_json_str(mc.liburing));
	iom_json_add(o, "io_uring", iom_json_str(mc.io_uring));
	iom_json_add(o, "cpu_governor", iom_json_str(mc.governor));
	iom_json_add(o, "hypervisor", iom_json_str(mc.hypervisor));
	iom_json_add(o, "kernel_cmdline", iom_json_str(mc.cmdline));
	iom_machine_release(&mc);
	return o;
}

static json_object *targets_json(const struct iom_study_record *s)
{
	const struct iom_matrix *m = s->plan->m;
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < m->ntargets; i++) {
		const struct iom_target *t = &m->targets[i];
		const struct iom_target_info *info =
			s->targets && i < s->ntargets && s->targets[i].t ? &s->targets[i] : NULL;
		json_object *o = json_object_new_object();

		iom_json_add(o, "label", iom_json_str(t->label));
		iom_json_add(o, "path", iom_json_str(t->path));
		iom_json_add(o, "filesystem", iom_json_str(t->filesystem));
		iom_json_add(o, "controller",
			     iom_json_str(info && info->controller ? info->controller :
							      t->controller));
		iom_json_add(o, "size", json_object_new_uint64(t->size));
		iom_json_add(o, "region", json_object_new_uint64(info ? info->region : 0));
		iom_json_add(o, "is_block", json_object_new_boolean(info && info->is_block));
		iom_json_add(o, "overwrite", json_object_new_boolean(t->overwrite));
		iom_json_add(o, "destructive", json_object_new_boolean(t->destructive));
		iom_json_add(o, "facts", info ? facts_json(&info->facts) : NULL);
		iom_json_add(o, "same_as", iom_json_str(same_as(s, i)));
		if (t->npaths) { /* issue 16c: every path, its region and device facts */
			json_object *pa = json_object_new_array();

			for (size_t k = 0; k < t->npaths; k++) {
				const struct iom_target_info *pi =
					info && k <= info->nmore ? iom_target_info_path(info, k) : NULL;
				json_object *e = json_object_new_object();

				iom_json_add(e, "path", iom_json_str(t->paths[k]));
				iom_json_add(e, "resolved", iom_json_str(pi ? pi->path : NULL));
				iom_json_add(e, "region",
					     json_object_new_uint64(pi ? pi->region : 0));
				iom_json_add(e, "facts", pi ? facts_json(&pi->facts) : NULL);
				json_object_array_add(pa, e);
			}
			iom_json_add(o, "paths", pa);
		}
		json_object_array_add(a, o);
	}
	return a;
}

int iom_study_write(const struct iom_own_dir *rd, const struct iom_study_record *s, char *err,
		    size_t errlen)
{
	const struct iom_plan *p = s->plan;
	const struct iom_matrix *m = p->m;
	json_object *o = json_object_new_object(), *x;
	struct utsname u;
	char buf[64], *text, *path, *model;
	int ret;

	iom_json_add(o, "schema", json_object_new_int(IOM_RESULT_SCHEMA));
	iom_json_add(o, "tool", json_object_new_string("iomatrix"));
	iom_json_add(o, "tool_version", json_object_new_string(IOM_VERSION));
	iom_json_add(o, "name", iom_json_str(m->name));
	iom_json_add(o, "description", iom_json_str(m->description));
	iom_json_add(o, "matrix_file", iom_json_str(m->file));
	iom_json_add(o, "compare", json_object_new_string(iom_dim_name(m->compare)));
	snprintf(buf, sizeof(buf), "%016" PRIx64, p->hash);
	iom_json_add(o, "plan_hash", json_object_new_string(buf));
	iom_json_add(o, "runs", json_object_new_uint64(p->nruns));
	iom_json_add(o, "cells", json_object_new_uint64(p->ncells));
	x = json_object_new_array();
	for (int d = 0; d < IOM_DIM_COUNT; d++)
		if (p->varies[d])
			json_object_array_add(x, json_object_new_string(iom_dim_name(d)));
	iom_json_add(o, "varies", iom_json_one_line(x));
	iom_json_add(o, "seed", json_object_new_uint64(m->seed));

	x = json_object_new_object();
	iom_json_add(x, "warmup_s", jsecs(m->timing.warmup_ns));
	iom_json_add(x, "duration_s", jsecs(m->timing.duration_ns));
	iom_json_add(x, "bytes", json_object_new_uint64(m->timing.bytes));
	iom_json_add(x, "cooldown_s", jsecs(m->timing.cooldown_ns));
	iom_json_add(x, "rest_s", jsecs(m->timing.rest_ns));
	iom_json_add(x, "timeout_s", jsecs(m->timing.timeout_ns));
	iom_json_add(x, "repeat", json_object_new_uint64(m->timing.repeat));
	if (m->timing.repeat_max) { /* issue 18 */
		iom_json_add(x, "repeat_max", json_object_new_uint64(m->timing.repeat_max));
		iom_json_add(x, "until_ci_pct", m->timing.until_ci_pct > 0 ?
			     iom_json_num(m->timing.until_ci_pct) : NULL);
	}
	iom_json_add(x, "repeat_order", json_object_new_string(
		m->repeat_order == IOM_REPEAT_INTERLEAVED ? "interleaved" : "grouped"));
	iom_json_add(x, "shuffle", json_object_new_boolean(m->shuffle));
	iom_json_add(o, "timing", x);

	x = json_object_new_object();
	iom_json_add(x, "alpha", iom_json_num(m->report.alpha));
	iom_json_add(x, "min_effect_pct", iom_json_num(m->report.min_effect_pct));
	iom_json_add(x, "max_cv_pct", iom_json_num(m->report.max_cv_pct));
	iom_json_add(x, "correction", json_object_new_string(
		iom_correction_name((enum iom_correction)m->report.correction)));
	{
		json_object *a = json_object_new_array();
		uint32_t on = m->report.metrics ? m->report.metrics : IOM_METRICS_DEFAULT;

		for (size_t k = 0; iom_metric_names[k]; k++)
			if (on & (1u << k))
				json_object_array_add(a, json_object_new_string(iom_metric_names[k]));
		iom_json_add(x, "metrics", a);
	}
	iom_json_add(o, "report", x);

	x = json_object_new_array();
	for (size_t i = 0; i < s->nov; i++) {
		char *kv = xasprintf("%s=%s", s->ov[i].key, s->ov[i].value);

		json_object_array_add(x, json_object_new_string(kv));
		free(kv);
	}
	iom_json_add(o, "overrides", iom_json_one_line(x));

	if (uname(&u) == 0) {
		char *kernel = xasprintf("%s %s", u.release, u.version);

		iom_json_add(o, "host", json_object_new_string(u.nodename));
		iom_json_add(o, "kernel", json_object_new_string(kernel));
		free(kernel);
	} else {
		iom_json_add(o, "host", NULL);
		iom_json_add(o, "kernel", NULL);
	}
	model = iom_cpu_model();
	iom_json_add(o, "cpu_model", iom_json_str(model));
	free(model);
	iom_json_add(o, "cpu_count", json_object_new_int64(sysconf(_SC_NPROCESSORS_ONLN)));
	iom_json_add(o, "machine", machine_json(s->plan->m->file));
	iom_json_add(o, "start_utc", iom_json_utc(s->start_wall_ns));
	iom_json_add(o, "start_ns", json_object_new_uint64(s->start_wall_ns));
	iom_json_add(o, "end_utc", iom_json_utc(s->end_wall_ns));
	iom_json_add(o, "end_ns", json_object_new_uint64(s->end_wall_ns));
	iom_json_add(o, "targets", targets_json(s));
	if (s->nhosts) { /* many hosts: each rank's facts, per target as its runs saw them */
		json_object *a = json_object_new_array();

		for (size_t i = 0; i < s->nhosts; i++) {
			const struct iom_study_host *sh = &s->hosts[i];
			const struct iom_host_row *any = NULL;
			json_object *h = json_object_new_object(), *t = json_object_new_object();

			for (size_t k = 0; k < m->ntargets && !any; k++)
				any = sh->row[k];
			iom_json_add(h, "rank", json_object_new_uint64(sh->rank));
			iom_json_add(h, "host", iom_json_str(any ? any->host : NULL));
			iom_json_add(h, "kernel", iom_json_str(any ? any->kernel : NULL));
			iom_json_add(h, "cpu_model", iom_json_str(any ? any->cpu_model : NULL));
			for (size_t k = 0; k < m->ntargets; k++) {
				const struct iom_host_row *r = sh->row[k];
				json_object *d;

				if (!r)
					continue;
				d = json_object_new_object();
				iom_json_add(d, "device", json_object_new_string(r->device));
				iom_json_add(d, "driver", json_object_new_string(r->driver));
				iom_json_add(d, "scheduler", json_object_new_string(r->scheduler));
				iom_json_add(t, m->targets[k].label, iom_json_one_line(d));
			}
			iom_json_add(h, "targets", t);
			json_object_array_add(a, h);
		}
		iom_json_add(o, "hosts", a);
	}

	text = iom_json_text(o);
	json_object_put(o);
	path = xasprintf("%s/study.json", rd->path);
	ret = write_text(rd, path, text, err, errlen);
	free(path);
	free(text);
	return ret;
}

static uint64_t secs_to_ns(double s)
{
	return isfinite(s) && s > 0 ? (uint64_t)llround(s * 1e9) : 0;
}

static void read_facts(struct rd *c, json_object *o, const char *p, struct iom_device_facts *f)
{
	uint32_t u;
	json_object *rot;

	rd_str(c, o, p, "device", &f->device);
	rd_str(c, o, p, "partition", &f->partition);
	rd_str(c, o, p, "driver", &f->driver);
	rd_str(c, o, p, "model", &f->model);
	rd_str(c, o, p, "vendor", &f->vendor);
	rd_u32(c, o, p, "logical_block_size", &f->logical_block_size);
	rd_u32(c, o, p, "physical_block_size", &f->physical_block_size);
	f->rotational = -1;
	rot = member(c, o, "rotational");
	if (rot) {
		bool b = false;

		rd_bool(c, o, p, "rotational", &b);
		f->rotational = b;
	}
	rd_str(c, o, p, "scheduler", &f->scheduler);
	u = 0;
	rd_u32(c, o, p, "nr_requests", &u);
	f->nr_requests = u;
	rd_str(c, o, p, "fstype", &f->fstype);
	rd_str(c, o, p, "mount_point", &f->mount_point);
	rd_str(c, o, p, "mount_options", &f->mount_options);
	rd_u64(c, o, p, "device_bytes", &f->device_bytes);
}

static void read_study_targets(struct rd *c, json_object *root, struct iom_study_info *s)
{
	json_object *a = rd_arr(c, root, "", "targets");
	size_t n;

	if (!a)
		return;
	n = json_object_array_length(a);
	s->targets = xcalloc(n + 1, sizeof(*s->targets));
	s->ntargets = n;
	for (size_t i = 0; i < n && c->ret == 0; i++) {
		struct iom_study_target *t = &s->targets[i];
		json_object *o = json_object_array_get_idx(a, i), *facts;
		char p[48];

		snprintf(p, sizeof(p), "targets[%zu]", i);
		t->facts.rotational = -1;
		if (!o || !json_object_is_type(o, json_type_object)) {
			rd_fail(c, "", p, "is not an object");
			return;
		}
		rd_str(c, o, p, "label", &t->label);
		rd_str(c, o, p, "path", &t->path);
		rd_str(c, o, p, "filesystem", &t->filesystem);
		rd_str(c, o, p, "controller", &t->controller);
		rd_u64(c, o, p, "size", &t->size);
		rd_u64(c, o, p, "region", &t->region);
		rd_bool(c, o, p, "is_block", &t->is_block);
		rd_str(c, o, p, "same_as", &t->same_as);
		facts = rd_obj(c, o, p, "facts");
		if (facts) {
			char q[64];

			snprintf(q, sizeof(q), "%s.facts", p);
			t->has_facts = true;
			read_facts(c, facts, q, &t->facts);
		}
	}
}

int iom_study_read(const char *path, struct iom_study_info *s, char *err, size_t errlen)
{
	struct rd c = { .name = path, .err = err, .errlen = errlen };
	json_object *root, *x;
	char *text, *hash = NULL, *order = NULL;
	double d;
	uint64_t u;
	int ret;

	memset(s, 0, sizeof(*s));
	ret = read_text(path, IOM_OWN_CAP_STUDY, &text, err, errlen);
	if (ret < 0)
		return ret;
	root = parse_root(&c, text, IOM_RESULT_SCHEMA, "an iomatrix study.json", &s->schema);
	free(text);
	if (!root)
		return c.ret;
	rd_str(&c, root, "", "tool_version", &s->tool_version);
	rd_str(&c, root, "", "name", &s->name);
	rd_str(&c, root, "", "description", &s->description);
	rd_str(&c, root, "", "matrix_file", &s->matrix_file);
	rd_str(&c, root, "", "compare", &s->compare);
	rd_str(&c, root, "", "plan_hash", &hash);
	if (hash && c.ret == 0) {
		char *end;

		errno = 0;
		s->plan_hash = strtoull(hash, &end, 16);
		if (*end || !*hash || errno)
			rd_fail(&c, "", "plan_hash", "is not a hexadecimal number");
	}
	free(hash);
	rd_u32(&c, root, "", "runs", &s->nruns);
	rd_u32(&c, root, "", "cells", &s->ncells);
	rd_u64(&c, root, "", "seed", &s->seed);

	x = rd_obj(&c, root, "", "timing");
	d = 0;
	rd_double(&c, x, "timing", "warmup_s", &d);
	s->timing.warmup_ns = secs_to_ns(d);
	d = 0;
	rd_double(&c, x, "timing", "duration_s", &d);
	s->timing.duration_ns = secs_to_ns(d);
	rd_u64(&c, x, "timing", "bytes", &s->timing.bytes);
	d = 0;
	rd_double(&c, x, "timing", "cooldown_s", &d);
	s->timing.cooldown_ns = secs_to_ns(d);
	d = 0;
	rd_double(&c, x, "timing", "rest_s", &d);
	s->timing.rest_ns = secs_to_ns(d);
	d = 0;
	rd_double(&c, x, "timing", "timeout_s", &d);
	s->timing.timeout_ns = secs_to_ns(d);
	rd_u32(&c, x, "timing", "repeat", &s->timing.repeat);
	rd_u32(&c, x, "timing", "repeat_max", &s->timing.repeat_max);
	rd_double(&c, x, "timing", "until_ci_pct", &s->timing.until_ci_pct);
	rd_str(&c, x, "timing", "repeat_order", &order);
	free(order);

	x = rd_obj(&c, root, "", "report");
	rd_double(&c, x, "report", "alpha", &s->report.alpha);
	rd_double(&c, x, "report", "min_effect_pct", &s->report.min_effect_pct);
	rd_double(&c, x, "report", "max_cv_pct", &s->report.max_cv_pct);
	{
		char *corr = NULL;

		rd_str(&c, x, "report", "correction", &corr);
		if (corr && iom_correction_from_name(corr) < 0)
			rd_fail(&c, "report", "correction", "is not holm, bh or none");
		else if (corr)
			s->report.correction = (uint32_t)iom_correction_from_name(corr);
		free(corr);
	}
	x = rd_arr(&c, x, "report", "metrics");
	for (size_t i = 0; x && i < json_object_array_length(x); i++) {
		json_object *e = json_object_array_get_idx(x, i);
		int64_t bit;

		if (!json_object_is_type(e, json_type_string) ||
		    iom_metrics_parse(json_object_get_string(e), &bit, NULL, 0) < 0) {
			rd_fail(&c, "report", "metrics", "names a metric that is not one");
			break;
		}
		s->report.metrics |= (uint32_t)bit;
	}

	x = rd_arr(&c, root, "", "overrides");
	if (x) {
		size_t n = json_object_array_length(x);

		s->overrides = xcalloc(n + 1, sizeof(*s->overrides));
		for (size_t i = 0; i < n && c.ret == 0; i++) {
			json_object *v = json_object_array_get_idx(x, i);

			if (!v || !json_object_is_type(v, json_type_string)) {
				rd_fail(&c, "", "overrides", "holds something other than strings");
				break;
			}
			s->overrides[i] = xstrdup(json_object_get_string(v));
			s->noverrides = i + 1;
		}
	}
	rd_str(&c, root, "", "host", &s->host);
	rd_str(&c, root, "", "kernel", &s->kernel);
	rd_str(&c, root, "", "cpu_model", &s->cpu_model);
	{ /* absent in studies of older versions */
		json_object *mo = rd_obj(&c, root, "", "machine");
		bool mod = false;

		if (mo) {
			rd_str(&c, mo, "machine.", "matrix_commit", &s->matrix_commit);
			rd_bool(&c, mo, "machine.", "matrix_modified", &mod);
			s->matrix_modified = mod;
			rd_u64(&c, mo, "machine.", "ram_bytes", &s->ram_bytes);
			rd_str(&c, mo, "machine.", "distro", &s->distro);
			rd_str(&c, mo, "machine.", "liburing", &s->liburing);
			rd_str(&c, mo, "machine.", "io_uring", &s->io_uring);
			rd_str(&c, mo, "machine.", "cpu_governor", &s->governor);
			rd_str(&c, mo, "machine.", "hypervisor", &s->hypervisor);
			rd_str(&c, mo, "machine.", "kernel_cmdline", &s->cmdline);
		}
	}
	u = 0;
	rd_u64(&c, root, "", "cpu_count", &u);
	s->ncpu = (unsigned)IOM_MIN(u, (uint64_t)UINT32_MAX);
	rd_u64(&c, root, "", "start_ns", &s->start_wall_ns);
	rd_u64(&c, root, "", "end_ns", &s->end_wall_ns);
	read_study_targets(&c, root, s);
	json_object_put(root);
	return c.ret;
}

void iom_study_info_release(struct iom_study_info *s)
{
	if (!s)
		return;
	free(s->tool_version);
	free(s->name);
	free(s->description);
	free(s->matrix_file);
	free(s->compare);
	for (size_t i = 0; i < s->noverrides; i++)
		free(s->overrides[i]);
	free(s->overrides);
	free(s->host);
	free(s->kernel);
	free(s->cpu_model);
	free(s->matrix_commit);
	free(s->distro);
	free(s->liburing);
	free(s->io_uring);
	free(s->governor);
	free(s->hypervisor);
	free(s->cmdline);
	for (size_t i = 0; i < s->ntargets; i++) {
		struct iom_study_target *t = &s->targets[i];

		free(t->label);
		free(t->path);
		free(t->filesystem);
		free(t->controller);
		free(t->same_as);
		iom_device_facts_release(&t->facts);
	}
	free(s->targets);
	memset(s, 0, sizeof(*s));
}

const struct iom_study_target *iom_study_target_find(const struct iom_study_info *s,
						     const char *label)
{
	for (size_t i = 0; label && i < s->ntargets; i++)
		if (s->targets[i].label && strcmp(s->targets[i].label, label) == 0)
			return &s->targets[i];
	return NULL;
}
