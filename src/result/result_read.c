/* SPDX-License-Identifier: MIT */
/*
 * result_read — a run file read back (runs/NNNNN.json → struct iom_result_file), strict about
 * types and lenient about absence: a field of the wrong type is an error naming the field
 * ("FILE: 'read.lat_ns.min' is not an integer"), a missing measured field reads as zero, so
 * files written by a later, additive revision of the same schema still read. A schema number
 * above IOM_RESULT_SCHEMA is refused, and figures no run can have made (a block size of 0, a
 * count past its kind's, a negative rate) make the file inconsistent.
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
#include "result_json.h"
#include "units.h"
#include "util.h"

/* ---- run JSON: reading ---- */

static void read_lat(struct iom_rd *c, json_object *o, const char *prefix, struct iom_lat *l)
{
	char p[128], key[32];
	json_object *pct;

	snprintf(p, sizeof(p), "%s.lat_ns", prefix);
	iom_rd_u64(c, o, p, "min", &l->min);
	iom_rd_double(c, o, p, "mean", &l->mean);
	iom_rd_double(c, o, p, "stddev", &l->stddev);
	iom_rd_u64(c, o, p, "max", &l->max);
	pct = iom_rd_obj(c, o, p, "percentiles");
	snprintf(p, sizeof(p), "%s.lat_ns.percentiles", prefix);
	for (int i = 0; i < IOM_NPCT; i++) {
		snprintf(key, sizeof(key), "%.10g", iom_percentiles[i]);
		iom_rd_u64(c, pct, p, key, &l->pct[i]);
	}
}

/* An I/O figure's counts and rates (io_json's, without the latencies), prefix naming it. */
static void read_counts(struct iom_rd *c, json_object *o, const char *prefix, struct iom_io_stats *s)
{
	iom_rd_u64(c, o, prefix, "ios", &s->ios);
	iom_rd_u64(c, o, prefix, "bytes", &s->bytes);
	iom_rd_rate(c, o, prefix, "iops", &s->iops);
	iom_rd_rate(c, o, prefix, "mb_s", &s->mb_s);
	iom_rd_rate(c, o, prefix, "mib_s", &s->mib_s);
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

static void rd_u128(struct iom_rd *c, json_object *o, const char *prefix, const char *key,
		    unsigned __int128 *out)
{
	json_object *v = iom_rd_member(c, o, key);

	if (!v)
		return;
	if (!json_object_is_type(v, json_type_string) || !parse_u128(json_object_get_string(v), out))
		iom_rd_fail(c, prefix, key, "is not a string of decimal digits");
}

/* A kept histogram ("lat_ns.hist", hist_json's form) of o, when there is one: *have set. The
 * bins must be bucket bounds in ascending order adding up to count; min and max come from
 * the lat_ns figures beside it (l). */
static void read_hist_at(struct iom_rd *c, json_object *x, const char *p, const struct iom_lat *l,
			 struct iom_hist_sparse *h)
{
	json_object *a;
	const char *bad;
	size_t n;

	iom_hist_sparse_release(h);
	iom_rd_u64(c, x, p, "count", &h->count);
	rd_u128(c, x, p, "sum", &h->sum);
	rd_u128(c, x, p, "sumsq", &h->sumsq);
	iom_rd_u64(c, x, p, "clamped", &h->clamped);
	a = iom_rd_arr(c, x, p, "bins");
	n = a ? json_object_array_length(a) : 0;
	if (c->ret)
		return;
	if (n % 2 || n / 2 > IOM_HIST_BUCKETS) {
		iom_rd_fail(c, p, "bins", "is not pairs of a bucket's lower bound and its count");
		return;
	}
	h->min = l ? l->min : 0;
	h->max = l ? l->max : 0;
	iom_rd_u64(c, x, p, "min", &h->min); /* absent in the first files that kept histograms */
	iom_rd_u64(c, x, p, "max", &h->max);
	h->bins = n ? xcalloc(n / 2, sizeof(*h->bins)) : NULL;
	for (size_t i = 0; i + 1 < n && !c->ret; i += 2) {
		uint64_t lo = 0, cnt = 0, blo, bhi;
		unsigned b;

		iom_rd_u64v(c, json_object_array_get_idx(a, i), p, "bins", &lo);
		iom_rd_u64v(c, json_object_array_get_idx(a, i + 1), p, "bins", &cnt);
		b = iom_hist_bucket_of(lo);
		iom_hist_bucket_range(b, &blo, &bhi);
		if (!c->ret && blo != lo)
			iom_rd_fail(c, p, "bins", "has a value that is not a bucket's lower bound");
		h->bins[h->nbins++] = (struct iom_hist_bin){ .b = b, .n = cnt };
	}
	if (!c->ret && (bad = iom_hist_sparse_invalid(h)) != NULL)
		iom_rd_fail(c, p, "bins", bad);
}

static void read_hist(struct iom_rd *c, json_object *o, const char *prefix, const struct iom_lat *l,
		      struct iom_hist_sparse *h, bool *have)
{
	json_object *x = iom_rd_obj(c, o, prefix, "hist");
	char p[128];

	if (!x)
		return;
	snprintf(p, sizeof(p), "%s.hist", prefix);
	read_hist_at(c, x, p, l, h);
	*have = true;
}

static void read_io_named(struct iom_rd *c, json_object *root, const char *name,
			  struct iom_io_stats *s)
{
	json_object *o = iom_rd_obj(c, root, "", name);

	read_counts(c, o, name, s);
	read_lat(c, iom_rd_obj(c, o, name, "lat_ns"), name, &s->lat);
}

/* A direction's figures and, when the file keeps it, its histogram (*have set). */
static void read_io(struct iom_rd *c, json_object *root, int d, struct iom_io_stats *s,
		    struct iom_hist_sparse *h, bool *have)
{
	const char *dn = iom_result_dir_names[d];
	char p[32];

	read_io_named(c, root, dn, s);
	snprintf(p, sizeof(p), "%s.lat_ns", dn);
	read_hist(c, iom_rd_obj(c, iom_rd_obj(c, root, "", dn), dn, "lat_ns"), p, &s->lat, h, have);
}

static void read_cpu_pct(struct iom_rd *c, json_object *o, const char *prefix, struct iom_cpu_pct *p)
{
	if (o && !json_object_is_type(o, json_type_object)) {
		iom_rd_fail(c, "", prefix, "is not an object");
		return;
	}
	iom_rd_double(c, o, prefix, "user", &p->user);
	iom_rd_double(c, o, prefix, "kernel", &p->kernel);
	iom_rd_double(c, o, prefix, "iowait", &p->iowait);
	iom_rd_double(c, o, prefix, "irq", &p->irq);
	iom_rd_double(c, o, prefix, "softirq", &p->softirq);
	iom_rd_double(c, o, prefix, "steal", &p->steal);
	iom_rd_double(c, o, prefix, "idle", &p->idle);
}

static void read_cpu(struct iom_rd *c, json_object *o, struct iom_run_cpu *cpu)
{
	json_object *a = iom_rd_arr(c, o, "cpu", "per_cpu");
	uint64_t n64 = 0;

	if (a) {
		size_t n = json_object_array_length(a);

		if (n > IOM_CPU_MAX) {
			iom_rd_fail(c, "cpu", "per_cpu", "has more entries than iomatrix supports");
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
	read_cpu_pct(c, iom_rd_obj(c, o, "cpu", "avg"), "cpu.avg", &cpu->avg);
	iom_rd_double(c, o, "cpu", "busy_pct", &cpu->busy_pct);
	iom_rd_double(c, o, "cpu", "proc_user_s", &cpu->proc_user_s);
	iom_rd_double(c, o, "cpu", "proc_sys_s", &cpu->proc_sys_s);
	iom_rd_double(c, o, "cpu", "us_per_io", &cpu->us_per_io);
	iom_rd_u64(c, o, "cpu", "interrupts", &n64);
	cpu->interrupts = n64;
	iom_rd_double(c, o, "cpu", "interrupts_per_io", &cpu->interrupts_per_io);
	iom_rd_str(c, o, "cpu", "irq_drivers", &cpu->irq_drivers);
	/* absent in the runs of older versions: left 0 */
	iom_rd_double(c, o, "cpu", "system_busy_pct", &cpu->system_busy_pct);
	iom_rd_double(c, o, "cpu", "system_us_per_io", &cpu->system_us_per_io);
	iom_rd_double(c, o, "cpu", "iops_per_busy_pct", &cpu->iops_per_busy_pct);
	cpu->other_pct = NAN; /* absent before it was measured */
	iom_rd_double(c, o, "cpu", "other_cpu_pct", &cpu->other_pct);
	n64 = 0;
	iom_rd_u64(c, o, "cpu", "busy_jiffies", &n64);
	cpu->busy_jiffies = n64;
	n64 = 0;
	iom_rd_u64(c, o, "cpu", "all_jiffies", &n64);
	cpu->all_jiffies = n64;
}

static void read_threads(struct iom_rd *c, json_object *root, struct iom_run_result *r)
{
	json_object *a = iom_rd_arr(c, root, "", "threads");
	size_t n;

	if (!a)
		return;
	n = json_object_array_length(a);
	if (n > 1000000) {
		iom_rd_fail(c, "", "threads", "has too many entries");
		return;
	}
	r->nthreads = (unsigned)n;
	r->threads = xcalloc(n, sizeof(*r->threads));
	for (size_t t = 0; t < n; t++) {
		json_object *o = json_object_array_get_idx(a, t);
		char p[48];

		snprintf(p, sizeof(p), "threads[%zu]", t);
		if (!o || !json_object_is_type(o, json_type_object)) {
			iom_rd_fail(c, "", p, "is not an object");
			return;
		}
		for (int d = 0; d < IOM_NDIR; d++) {
			json_object *x = iom_rd_obj(c, o, p, iom_result_dir_names[d]);
			char q[64];

			snprintf(q, sizeof(q), "%s.%s", p, iom_result_dir_names[d]);
			iom_rd_u64(c, x, q, "ios", &r->threads[t].dir[d].ios);
			iom_rd_u64(c, x, q, "bytes", &r->threads[t].dir[d].bytes);
			iom_rd_double(c, x, q, "lat_mean_ns", &r->threads[t].dir[d].lat_mean_ns);
			iom_rd_double(c, x, q, "lat_stddev_ns", &r->threads[t].dir[d].lat_stddev_ns);
		}
	}
}

/* "paths", when there (a target with several paths; older files have none). */
static void read_paths(struct iom_rd *c, json_object *root, struct iom_run_result *r)
{
	json_object *a;
	size_t n;

	if (!json_object_object_get_ex(root, "paths", &a))
		return;
	if (!json_object_is_type(a, json_type_array)) {
		iom_rd_fail(c, "", "paths", "is not an array");
		return;
	}
	n = json_object_array_length(a);
	if (n > 1000000) {
		iom_rd_fail(c, "", "paths", "has too many entries");
		return;
	}
	r->paths = xcalloc(n ? n : 1, sizeof(*r->paths));
	r->npaths = n;
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(a, i);
		char p[48];

		snprintf(p, sizeof(p), "paths[%zu]", i);
		if (!o || !json_object_is_type(o, json_type_object)) {
			iom_rd_fail(c, "", p, "is not an object");
			return;
		}
		iom_rd_str(c, o, p, "path", &r->paths[i].path);
		for (int d = 0; d < IOM_NDIR; d++) {
			json_object *x = iom_rd_obj(c, o, p, iom_result_dir_names[d]);
			struct iom_io_stats *st = &r->paths[i].dir[d];
			char q[64];

			snprintf(q, sizeof(q), "%s.%s", p, iom_result_dir_names[d]);
			read_counts(c, x, q, st);
		}
	}
}

/* "access", when there (a cell with an access spec; older files have none). */
static void read_access(struct iom_rd *c, json_object *root, struct iom_run_result *r)
{
	json_object *o, *a;
	size_t n;

	if (!json_object_object_get_ex(root, "access", &o))
		return;
	a = iom_rd_arr(c, o, "access", "lines");
	if (!a)
		return;
	n = json_object_array_length(a);
	if (n > 1000) {
		iom_rd_fail(c, "access", "lines", "has too many entries");
		return;
	}
	iom_rd_str(c, o, "access", "name", &r->access);
	r->lines = xcalloc(n ? n : 1, sizeof(*r->lines));
	r->nlines = n;
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(a, i);
		struct iom_line_stats *l = &r->lines[i];
		char p[48];

		snprintf(p, sizeof(p), "access.lines[%zu]", i);
		if (!e || !json_object_is_type(e, json_type_object)) {
			iom_rd_fail(c, "", p, "is not an object");
			return;
		}
		iom_rd_u32(c, e, p, "share", &l->share);
		iom_rd_u32(c, e, p, "block_size", &l->block_size);
		iom_rd_u32(c, e, p, "read_pct", &l->read_pct);
		iom_rd_u32(c, e, p, "random_pct", &l->random_pct);
		iom_rd_u64(c, e, p, "align", &l->align);
		for (int d = 0; d < IOM_NDIR; d++) {
			json_object *x = iom_rd_obj(c, e, p, iom_result_dir_names[d]);
			struct iom_io_stats *st = &l->dir[d];
			char q[64];

			snprintf(q, sizeof(q), "%s.%s", p, iom_result_dir_names[d]);
			read_counts(c, x, q, st);
			if (d == IOM_DIR_TOTAL)
				read_lat(c, iom_rd_obj(c, x, q, "lat_ns"), q, &st->lat);
		}
	}
}

/* A string member of o into a fixed buffer (cut to fit); absent or null: left as is. */
static void rd_fixed(struct iom_rd *c, json_object *o, const char *prefix, const char *key,
		     char *buf, size_t len)
{
	char *v = NULL;

	iom_rd_str(c, o, prefix, key, &v);
	if (v)
		snprintf(buf, len, "%s", v);
	free(v);
}

/* "load" of o (the run, or a host row; at names it: "" or "hosts[2]"): the offered load of a
 * paced run, its response times and, where kept, their histograms; absent or null for a
 * closed loop (and every file written before rates). */
static void read_load_at(struct iom_rd *c, json_object *o, const char *at, struct iom_run_load *l)
{
	json_object *v = iom_rd_obj(c, o, at, "load"), *resp;
	char lp[64], rp[80], *arr = NULL;

	if (!v)
		return;
	snprintf(lp, sizeof(lp), "%s%sload", at, *at ? "." : "");
	snprintf(rp, sizeof(rp), "%s.response_ns", lp);
	resp = iom_rd_obj(c, v, lp, "response_ns");
	l->paced = true;
	iom_rd_double(c, v, lp, "offered_iops", &l->offered_iops);
	iom_rd_double(c, v, lp, "achieved_iops", &l->achieved_iops);
	iom_rd_bool(c, v, lp, "held", &l->held);
	iom_rd_u64(c, v, lp, "late_ios", &l->late_ios);
	iom_rd_double(c, v, lp, "max_lag_s", &l->max_lag_s);
	iom_rd_str(c, v, lp, "arrivals", &arr);
	l->poisson = arr && strcmp(arr, "poisson") == 0;
	free(arr);
	for (int d = 0; d < IOM_NDIR && resp; d++) {
		char p[96];
		json_object *lo = iom_rd_obj(c, resp, rp, iom_result_dir_names[d]);
		bool have = false;

		snprintf(p, sizeof(p), "%s.%s", rp, iom_result_dir_names[d]);
		read_lat(c, lo, p, &l->response[d]);
		read_hist(c, lo, p, &l->response[d], &l->response_hist[d], &have);
	}
}

/* "hosts": the rows of a run of many hosts (hosts_json); absent on one host. */
static void read_hosts(struct iom_rd *c, json_object *root, struct iom_run_result *r)
{
	json_object *a = iom_rd_arr(c, root, "", "hosts");
	size_t n;

	if (!a)
		return;
	n = json_object_array_length(a);
	if (n > 1000000) {
		iom_rd_fail(c, "", "hosts", "has too many entries");
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
			iom_rd_fail(c, "", p, "is not an object");
			return;
		}
		iom_rd_u32(c, o, p, "rank", &h->rank);
		rd_fixed(c, o, p, "host", h->host, sizeof(h->host));
		iom_rd_str(c, o, p, "status", &status);
		if (status) {
			int st = iom_run_status_parse(status);

			if (st < 0)
				iom_rd_fail(c, p, "status", "is not \"ok\", \"failed\" or \"interrupted\"");
			h->status = st < 0 ? 0 : st;
			free(status);
		}
		rd_fixed(c, o, p, "error", h->error, sizeof(h->error));
		iom_rd_u64(c, o, p, "ios", &h->ios[IOM_DIR_TOTAL]);
		iom_rd_u64(c, o, p, "bytes", &h->bytes[IOM_DIR_TOTAL]);
		iom_rd_u64(c, o, p, "read_ios", &h->ios[IOM_DIR_READ]);
		iom_rd_u64(c, o, p, "write_ios", &h->ios[IOM_DIR_WRITE]);
		iom_rd_rate(c, o, p, "iops", &h->iops);
		iom_rd_rate(c, o, p, "mb_s", &h->mb_s);
		iom_rd_double(c, o, p, "lat_mean_ns", &h->lat_mean_ns);
		iom_rd_u64(c, o, p, "p50_ns", &h->p50_ns);
		iom_rd_u64(c, o, p, "p99_ns", &h->p99_ns);
		v = iom_rd_member(c, o, "offset_ns");
		if (v && !json_object_is_type(v, json_type_int))
			iom_rd_fail(c, p, "offset_ns", "is not an integer");
		else if (v)
			h->offset_ns = json_object_get_int64(v);
		iom_rd_u64(c, o, p, "window_start_ns", &h->start_ns);
		iom_rd_u64(c, o, p, "window_end_ns", &h->end_ns);
		iom_rd_double(c, o, p, "busy_pct", &h->busy_pct);
		iom_rd_double(c, o, p, "proc_user_s", &h->user_s);
		iom_rd_double(c, o, p, "proc_sys_s", &h->sys_s);
		b = false;
		iom_rd_bool(c, o, p, "straggler", &b);
		h->straggler = b;
		b = false;
		iom_rd_bool(c, o, p, "stonewalled", &b);
		h->stonewalled = b;
		rd_fixed(c, o, p, "kernel", h->kernel, sizeof(h->kernel));
		rd_fixed(c, o, p, "cpu_model", h->cpu_model, sizeof(h->cpu_model));
		rd_fixed(c, o, p, "driver", h->driver, sizeof(h->driver));
		rd_fixed(c, o, p, "scheduler", h->scheduler, sizeof(h->scheduler));
		rd_fixed(c, o, p, "device", h->device, sizeof(h->device));
		v = iom_rd_member(c, o, "start_late_ns");
		if (v && !json_object_is_type(v, json_type_int))
			iom_rd_fail(c, p, "start_late_ns", "is not an integer");
		else if (v)
			h->start_late_ns = json_object_get_int64(v);
		iom_rd_u64(c, o, p, "trace_records", &h->trace_records); /* absent before */
		iom_rd_u64(c, o, p, "trace_dropped", &h->trace_dropped);
		read_load_at(c, o, p, &h->load); /* a paced run's; absent before */
		v = iom_rd_obj(c, o, p, "hist"); /* absent in files from before */
		for (int d = 0; v && d < IOM_NDIR && c->ret == 0; d++) {
			json_object *x = iom_rd_obj(c, v, p, iom_result_dir_names[d]);
			char q[80];

			if (!r->host_hist)
				r->host_hist = xcalloc(n, sizeof(*r->host_hist));
			snprintf(q, sizeof(q), "%s.hist.%s", p, iom_result_dir_names[d]);
			if (x)
				read_hist_at(c, x, q, NULL, &r->host_hist[i][d]);
		}
	}
}

static void read_intervals(struct iom_rd *c, json_object *root, struct iom_run_result *r)
{
	json_object *o = iom_rd_obj(c, root, "", "intervals");
	json_object *a[IOM_RESULT_NIV];
	size_t n = 0;
	int nk = 4;

	if (!o)
		return;
	for (int k = 0; k < IOM_RESULT_NIV; k++) {
		a[k] = iom_rd_arr(c, o, "intervals", iom_result_iv_keys[k]);
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
			iom_rd_fail(c, "intervals", iom_result_iv_keys[k], "has a different length than the others");
			return;
		}
		for (size_t i = 0; i < m; i++) {
			char key[48];

			snprintf(key, sizeof(key), "%s[%zu]", iom_result_iv_keys[k], i);
			iom_rd_u64v(c, json_object_array_get_idx(a[k], i), "intervals", key,
				iom_result_iv_field(&r->intervals[i], k));
			r->intervals[i].ns = IOM_INTERVAL_NS;
		}
	}
	{
		uint64_t last = IOM_INTERVAL_NS;

		iom_rd_u64(c, o, "intervals", "last_ns", &last);
		if (c->ret == 0 && (last == 0 || last > 2 * IOM_INTERVAL_NS))
			iom_rd_fail(c, "intervals", "last_ns", "is not the length of an interval");
		r->intervals[n - 1].ns = last;
	}
}

/*
 * The dimensions later code divides by or sizes with must hold what a plan can hold: a block
 * size, queue depth and thread count of at least 1, a read percentage of 0 to 100. A file
 * that says otherwise was not written by iomatrix as it ran, and is inconsistent.
 */
static void check_cell_value(struct iom_rd *c, const char *key, json_object *val)
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
			iom_rd_fail(c, "cell", key, "is not an integer");
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
			iom_rd_fail(c, "cell", key, what);
		}
		return;
	}
}

static void read_cell(struct iom_rd *c, json_object *root, struct iom_result_file *f)
{
	json_object *o;
	size_t n = 0;

	if (!json_object_object_get_ex(root, "cell", &o) || !o) {
		c->ret = iom_err(c->err, c->errlen, EINVAL, "%s: no 'cell' object", c->name);
		return;
	}
	if (!json_object_is_type(o, json_type_object)) {
		iom_rd_fail(c, "", "cell", "is not an object");
		return;
	}
	f->cell = xcalloc((size_t)json_object_object_length(o) + 1, sizeof(*f->cell));
	json_object_object_foreach(o, key, val) {
		char *s = val ? iom_result_value_string(val) : xstrdup("");

		if (!s) {
			iom_rd_fail(c, "cell", key, "is not a string, number or boolean");
			return;
		}
		f->cell[n].name = xstrdup(key);
		f->cell[n].value = s;
		f->ncell = ++n;
		check_cell_value(c, key, val);
	}
}

static int required(struct iom_rd *c, json_object *root, const char *key)
{
	json_object *v;

	if (c->ret == 0 && (!json_object_object_get_ex(root, key, &v) || !v))
		c->ret = iom_err(c->err, c->errlen, EINVAL, "%s: no '%s' field", c->name, key);
	return c->ret;
}

/* "trace": where the run's trace went and what it holds. */
static void read_trace(struct iom_rd *c, json_object *root, struct iom_run_result *r)
{
	json_object *t = iom_rd_obj(c, root, "", "trace");

	if (t) {
		iom_rd_str(c, t, "trace.", "file", &r->trace.file);
		iom_rd_u64(c, t, "trace.", "records", &r->trace.records);
		iom_rd_u64(c, t, "trace.", "dropped", &r->trace.dropped);
		iom_rd_u64(c, t, "trace.", "bytes", &r->trace.bytes);
		iom_rd_double(c, t, "trace.", "bytes_per_io", &r->trace.bytes_per_io);
	}
}

/* "verify": absent in files written before data verification existed. */
static void read_verify(struct iom_rd *c, json_object *root, struct iom_run_result *r)
{
	json_object *v = iom_rd_obj(c, root, "", "verify");

	if (v) {
		r->verify.enabled = true;
		iom_rd_u64(c, v, "verify.", "sectors_written", &r->verify.sectors_written);
		iom_rd_u64(c, v, "verify.", "sectors_checked", &r->verify.sectors_checked);
		iom_rd_u64(c, v, "verify.", "sectors_unwritten", &r->verify.sectors_unwritten);
		iom_rd_u64(c, v, "verify.", "mismatches", &r->verify.mismatches);
	}
}

/* "stalled": absent in files written before stalls were judged (null: not stalled). */
static void read_stall(struct iom_rd *c, json_object *root, struct iom_run_result *r)
{
	json_object *v = iom_rd_obj(c, root, "", "stalled");

	if (v) {
		r->stall.stalled = true;
		iom_rd_double(c, v, "stalled", "gap_s", &r->stall.gap_s);
		iom_rd_double(c, v, "stalled", "at_s", &r->stall.at_s);
		iom_rd_double(c, v, "stalled", "window_s", &r->stall.window_s);
		iom_rd_double(c, v, "stalled", "asked_s", &r->stall.asked_s);
		if (isnan(r->stall.asked_s))
			r->stall.asked_s = 0; /* null: bytes-bound */
		iom_rd_str(c, v, "stalled", "reason", &r->stall.reason);
	}
}

/* "disk": the target's disk over the window; absent in files written before its counters were
 * recorded. */
static void read_disk(struct iom_rd *c, json_object *root, struct iom_run_result *r)
{
	json_object *v = iom_rd_obj(c, root, "", "disk");
	char *dname = NULL;

	if (v) {
		r->disk.have = true;
		iom_rd_str(c, v, "disk.", "name", &dname);
		snprintf(r->disk.name, sizeof(r->disk.name), "%s", dname ? dname : "");
		free(dname);
		dname = NULL;
		iom_rd_u64(c, v, "disk.", "reads", &r->disk.reads);
		iom_rd_u64(c, v, "disk.", "writes", &r->disk.writes);
		/* null: the kernel did not count them */
		r->disk.has_discards = json_object_object_get(v, "discards") != NULL;
		r->disk.has_flushes = json_object_object_get(v, "flushes") != NULL;
		if (r->disk.has_discards)
			iom_rd_u64(c, v, "disk.", "discards", &r->disk.discards);
		if (r->disk.has_flushes)
			iom_rd_u64(c, v, "disk.", "flushes", &r->disk.flushes);
		iom_rd_str(c, v, "disk.", "write_cache", &dname);
		snprintf(r->disk.write_cache, sizeof(r->disk.write_cache), "%s",
			 dname ? dname : "");
		free(dname);
		r->disk.fua = -1;
		if (json_object_object_get(v, "fua")) {
			bool fua = false;

			iom_rd_bool(c, v, "disk.", "fua", &fua);
			r->disk.fua = fua;
		}
	}
}

/* "steady": whether and when a steady warm-up was reached. */
static void read_steady(struct iom_rd *c, json_object *root, struct iom_run_result *r)
{
	json_object *v = iom_rd_obj(c, root, "", "steady");

	if (v) {
		r->steady.asked = true;
		r->steady.at_s = r->steady.spread_pct = NAN;
		iom_rd_bool(c, v, "steady", "reached", &r->steady.reached);
		iom_rd_double(c, v, "steady", "at_s", &r->steady.at_s);
		iom_rd_double(c, v, "steady", "warmup_s", &r->steady.warmup_s);
		iom_rd_double(c, v, "steady", "spread_pct", &r->steady.spread_pct);
		iom_rd_str(c, v, "steady", "criterion", &r->steady.criterion);
	}
}

int iom_result_parse(const char *name, const char *text, struct iom_result_file *f, char *err,
		     size_t errlen)
{
	struct iom_rd c = { .name = name, .err = err, .errlen = errlen };
	struct iom_run_result *r = &f->r;
	json_object *root;
	char *status = NULL;
	int st;

	memset(f, 0, sizeof(*f));
	root = iom_rd_parse_root(&c, text, IOM_RESULT_SCHEMA, "an iomatrix run result", &f->schema);
	if (!root)
		return c.ret;
	required(&c, root, "index");
	required(&c, root, "repetition");
	required(&c, root, "status");
	iom_rd_u32(&c, root, "", "index", &r->index);
	iom_rd_u32(&c, root, "", "repetition", &r->repetition);
	{
		json_object *v = iom_rd_member(&c, root, "seed");

		if (v && !iom_rd_is_uint(v))
			iom_rd_fail(&c, "", "seed", "is not a non-negative integer");
		else if (v)
			r->seed = json_object_get_uint64(v); /* any 64-bit value is a seed */
	}
	if (c.ret == 0 && r->index == 0)
		iom_rd_fail(&c, "", "index", "is 0, not a run of a plan (they count from 1)");
	read_cell(&c, root, f);
	iom_rd_str(&c, root, "", "status", &status);
	if (c.ret == 0) {
		st = iom_run_status_parse(status);
		if (st < 0)
			iom_rd_fail(&c, "", "status", "is not \"ok\", \"failed\" or \"interrupted\"");
		else
			r->status = (enum iom_run_status)st;
	}
	free(status);
	iom_rd_str(&c, root, "", "error", &r->error);
	iom_rd_u64(&c, root, "", "start_ns", &r->start_wall_ns);
	iom_rd_double(&c, root, "", "elapsed_s", &r->elapsed_s);
	if (c.ret == 0 && (r->elapsed_s < 0 || (r->status == IOM_RUN_OK && !isfinite(r->elapsed_s))))
		iom_rd_fail(&c, "", "elapsed_s", "is not a length of time (negative, or not a number in a "
			"finished run)");
	for (int d = 0; d < IOM_NDIR; d++)
		read_io(&c, root, d, &r->dir[d], &r->hist[d], &r->has_hist);
	r->iops_stddev = r->mb_s_stddev = NAN; /* null, or absent: fewer than two intervals */
	iom_rd_double(&c, root, "", "iops_stddev", &r->iops_stddev);
	iom_rd_double(&c, root, "", "mb_s_stddev", &r->mb_s_stddev);
	iom_rd_double(&c, root, "", "qd_mean", &r->qd_mean);
	read_threads(&c, root, r);
	read_paths(&c, root, r);
	read_access(&c, root, r);
	read_cpu(&c, iom_rd_obj(&c, root, "", "cpu"), &r->cpu);
	read_intervals(&c, root, r);
	iom_rd_u64(&c, root, "", "warmup_ios", &r->warmup_ios);
	iom_rd_u64(&c, root, "", "cooldown_ios", &r->cooldown_ios);
	iom_rd_bool(&c, root, "", "registered_buffers", &r->registered_buffers);
	iom_rd_str(&c, root, "", "engine_notes", &r->engine_notes);
	read_trace(&c, root, r);
	read_verify(&c, root, r);
	read_stall(&c, root, r);
	/* flush and trim: null (or absent in older files) when the cell set neither key */
	if (json_object_object_get(root, "flush") || json_object_object_get(root, "trim")) {
		r->has_xops = true;
		read_io_named(&c, root, "flush", &r->xops[0]);
		read_io_named(&c, root, "trim", &r->xops[1]);
	}
	read_disk(&c, root, r);
	read_steady(&c, root, r);
	read_load_at(&c, root, "", &r->load);
	read_hosts(&c, root, r); /* absent on one host */
	iom_rd_bool(&c, root, "", "stonewalled", &r->stonewalled);
	iom_rd_u64(&c, root, "", "start_spread_ns", &r->start_spread_ns);
	json_object_put(root);
	return c.ret;
}

int iom_result_read(const char *path, struct iom_result_file *out, char *err, size_t errlen)
{
	char *text;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = iom_rd_read_text(path, IOM_OWN_CAP_RUN, &text, err, errlen);
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
	ret = iom_rd_read_text(path, IOM_OWN_CAP_RUN, &text, err, errlen);
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
