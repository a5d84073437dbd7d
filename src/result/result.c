/* SPDX-License-Identifier: MIT */
/*
 * result — one run's measurements and their JSON form, runs/NNNNN.json (the writer; the reader
 * is result_read.c). docs/results.md documents every field.
 *
 * JSON is built with json-c, never by hand. Doubles are written with nine significant digits
 * and no exponent (json_object_new_double_s), so files read well and round-trip to a relative
 * 5e-9; a non-finite double is written as null and read back as NaN. Arrays of numbers and
 * small leaf objects are written on one line so a 30-minute run's per-second intervals stay a
 * few lines, not thousands.
 */
#include "result.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonio.h"
#include "keys.h"
#include "ownfile.h"
#include "plan.h"
#include "resdir.h"
#include "units.h"
#include "util.h"

const double iom_percentiles[IOM_NPCT] = {
	1, 5, 10, 25, 50, 75, 90, 95, 99,
	99.9, 99.99, 99.999, 99.9999, 99.99999, 99.999999, 99.9999999,
};

const char *const iom_result_dir_names[IOM_NDIR] = { "read", "write", "total" };
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
		for (int d = 0; d < IOM_NDIR; d++)
			iom_hist_sparse_release(&r->hosts[i].load.response_hist[d]);
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

/* ---- run JSON: writing ---- */

/* Whether a run's cell names dimension d: always, but a sparse dimension (IOM_KEY_SPARSE, the
 * later workload keys) only when the matrix gives it a value off its default somewhere, so that
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

/* "hist": { count, sum, sumsq, clamped, bins: [lo_ns, n, lo_ns, n, …] }: a kept histogram,
 * each non-empty bucket as its lower bound in ns and its count (docs/results.md). */
static json_object *hist_json(const struct iom_hist_sparse *h)
{
	json_object *o = json_object_new_object();
	uint64_t *bins = xcalloc(2 * (size_t)h->nbins + 1, sizeof(*bins));

	iom_json_add(o, "count", json_object_new_uint64(h->count));
	iom_json_add(o, "min", json_object_new_uint64(h->min));
	iom_json_add(o, "max", json_object_new_uint64(h->max));
	iom_json_add(o, "sum", iom_json_u128(h->sum));
	iom_json_add(o, "sumsq", iom_json_u128(h->sumsq));
	iom_json_add(o, "clamped", json_object_new_uint64(h->clamped));
	for (uint32_t i = 0; i < h->nbins; i++) {
		uint64_t hi;

		iom_hist_bucket_range(h->bins[i].b, &bins[2 * i], &hi);
		bins[2 * i + 1] = h->bins[i].n;
	}
	iom_json_add(o, "bins", iom_json_u64_array(bins, 2 * (size_t)h->nbins));
	free(bins);
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
 * write, total }, … ] } (access specs); read and write carry ios, bytes and rates, total also
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
			iom_json_add(e, iom_result_dir_names[d], x);
		}
		json_object_array_add(a, e);
	}
	iom_json_add(o, "lines", a);
	return o;
}

/* "paths": [ { "path", "read", "write", "total" }, … ] (several paths): each with ios, bytes and
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
			iom_json_add(e, iom_result_dir_names[d], x);
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
			iom_json_add(o, iom_result_dir_names[d], iom_json_one_line(x));
		}
		json_object_array_add(a, o);
	}
	return a;
}

const char *const iom_result_iv_keys[IOM_RESULT_NIV] = {
	"read_ios", "write_ios", "read_bytes", "write_bytes", "p50_ns", "p99_ns", "max_ns",
	"lat_ios"
};

uint64_t *iom_result_iv_field(struct iom_interval *iv, int k)
{
	uint64_t *f[IOM_RESULT_NIV] = { &iv->ios[0], &iv->ios[1], &iv->bytes[0], &iv->bytes[1],
					&iv->p50_ns, &iv->p99_ns, &iv->max_ns, &iv->lat_ios };

	return f[k];
}

static json_object *intervals_json(const struct iom_run_result *r)
{
	json_object *o = json_object_new_object();

	iom_json_add(o, "interval_s", iom_json_num((double)IOM_INTERVAL_NS / 1e9));
	/* the last interval ends with the window; every other is interval_s long */
	if (r->intervals && r->nintervals)
		iom_json_add(o, "last_ns", json_object_new_uint64(
			r->intervals[r->nintervals - 1].ns ? r->intervals[r->nintervals - 1].ns :
							      IOM_INTERVAL_NS));
	for (int k = 0; k < (r->has_iv_lat ? 8 : 4); k++) {
		json_object *a = json_object_new_array();

		for (size_t i = 0; r->intervals && i < r->nintervals; i++)
			json_object_array_add(a, json_object_new_uint64(
				*iom_result_iv_field(&r->intervals[i], k)));
		iom_json_add(o, iom_result_iv_keys[k], iom_json_one_line(a));
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
		iom_json_add(resp, iom_result_dir_names[d], lat);
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
		iom_json_add(o, "trace_records", json_object_new_uint64(h->trace_records));
		iom_json_add(o, "trace_dropped", json_object_new_uint64(h->trace_dropped));
		/* its own lines, paths, load, flushes and trims, as the run's (left out when none) */
		if (h->nlines)
			iom_json_add(o, "access", access_json(NULL, h->lines, h->nlines));
		if (h->npaths)
			iom_json_add(o, "paths", paths_json(h->paths, h->npaths));
		if (h->load.paced)
			iom_json_add(o, "load", load_json(&h->load, r->host_hist != NULL));
		if (h->has_xops) {
			iom_json_add(o, "flush", io_json(&h->xops[0]));
			iom_json_add(o, "trim", io_json(&h->xops[1]));
		}
		if (h->verify) {
			json_object *v = json_object_new_object();

			iom_json_add(v, "sectors_written", json_object_new_uint64(h->sectors_written));
			iom_json_add(v, "sectors_checked", json_object_new_uint64(h->sectors_checked));
			iom_json_add(v, "sectors_unwritten",
				     json_object_new_uint64(h->sectors_unwritten));
			iom_json_add(v, "mismatches", json_object_new_uint64(h->mismatches));
			iom_json_add(o, "verify", iom_json_one_line(v));
		}
		if (r->host_hist) {
			json_object *x = json_object_new_object();

			for (int d = 0; d < IOM_NDIR; d++)
				iom_json_add(x, iom_result_dir_names[d], hist_json(&r->host_hist[i][d]));
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
		iom_json_add(o, iom_result_dir_names[d],
			     r->has_hist ? with_hist(io_json(&r->dir[d]), &r->hist[d]) :
					   io_json(&r->dir[d]));
	iom_json_add(o, "iops_stddev", iom_json_num(r->iops_stddev));
	iom_json_add(o, "mb_s_stddev", iom_json_num(r->mb_s_stddev));
	iom_json_add(o, "qd_mean", iom_json_num(r->qd_mean));
	if (r->status == IOM_RUN_OK)
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
	if (r->steady.asked) {
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
	ret = iom_own_write_atomic(d, path, text, strlen(text), err, errlen);
	free(text);
	free(path);
	return ret;
}

/* ---- a cell as its file holds it ---- */

char *iom_result_value_string(json_object *v)
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
		char *v = iom_result_value_string(val);

		if (!v)
			continue;
		(*out)[n].name = xstrdup(key);
		(*out)[n++].value = v;
	}
	json_object_put(o);
	return n;
}
