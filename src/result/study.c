/* SPDX-License-Identifier: MIT */
/*
 * study — DIR/study.json, what makes a study reproducible from its directory alone: the tool's
 * version, the plan hash, the matrix's file and overrides, the host, kernel and CPU, the machine
 * (machine.h), the report's options, the targets with their device facts; written at the
 * sweep's start and again at its end, and read back by resume and the report.
 */
#include "study.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cpu.h"
#include "jsonio.h"
#include "keys.h"
#include "machine.h"
#include "ownfile.h"
#include "plan.h"
#include "result.h"
#include "result_json.h"
#include "util.h"

#ifndef IOM_VERSION
#define IOM_VERSION "unknown"
#endif

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
		if (t->npaths) { /* every path, its region and device facts */
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
	if (m->timing.repeat_max) {
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
	ret = iom_own_write_atomic(rd, path, text, strlen(text), err, errlen);
	free(path);
	free(text);
	return ret;
}

static void read_facts(struct iom_rd *c, json_object *o, const char *p, struct iom_device_facts *f)
{
	uint32_t u;
	json_object *rot;

	iom_rd_str(c, o, p, "device", &f->device);
	iom_rd_str(c, o, p, "partition", &f->partition);
	iom_rd_str(c, o, p, "driver", &f->driver);
	iom_rd_str(c, o, p, "model", &f->model);
	iom_rd_str(c, o, p, "vendor", &f->vendor);
	iom_rd_u32(c, o, p, "logical_block_size", &f->logical_block_size);
	iom_rd_u32(c, o, p, "physical_block_size", &f->physical_block_size);
	f->rotational = -1;
	rot = iom_rd_member(c, o, "rotational");
	if (rot) {
		bool b = false;

		iom_rd_bool(c, o, p, "rotational", &b);
		f->rotational = b;
	}
	iom_rd_str(c, o, p, "scheduler", &f->scheduler);
	u = 0;
	iom_rd_u32(c, o, p, "nr_requests", &u);
	f->nr_requests = u;
	iom_rd_str(c, o, p, "fstype", &f->fstype);
	iom_rd_str(c, o, p, "mount_point", &f->mount_point);
	iom_rd_str(c, o, p, "mount_options", &f->mount_options);
	iom_rd_u64(c, o, p, "device_bytes", &f->device_bytes);
}

static void read_study_targets(struct iom_rd *c, json_object *root, struct iom_study_info *s)
{
	json_object *a = iom_rd_arr(c, root, "", "targets");
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
			iom_rd_fail(c, "", p, "is not an object");
			return;
		}
		iom_rd_str(c, o, p, "label", &t->label);
		iom_rd_str(c, o, p, "path", &t->path);
		iom_rd_str(c, o, p, "filesystem", &t->filesystem);
		iom_rd_str(c, o, p, "controller", &t->controller);
		iom_rd_u64(c, o, p, "size", &t->size);
		iom_rd_u64(c, o, p, "region", &t->region);
		iom_rd_bool(c, o, p, "is_block", &t->is_block);
		iom_rd_str(c, o, p, "same_as", &t->same_as);
		facts = iom_rd_obj(c, o, p, "facts");
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
	struct iom_rd c = { .name = path, .err = err, .errlen = errlen };
	json_object *root, *x;
	char *text, *hash = NULL, *order = NULL;
	double d;
	uint64_t u;
	int ret;

	memset(s, 0, sizeof(*s));
	ret = iom_rd_read_text(path, IOM_OWN_CAP_STUDY, &text, err, errlen);
	if (ret < 0)
		return ret;
	root = iom_rd_parse_root(&c, text, IOM_RESULT_SCHEMA, "an iomatrix study.json", &s->schema);
	free(text);
	if (!root)
		return c.ret;
	iom_rd_str(&c, root, "", "tool_version", &s->tool_version);
	iom_rd_str(&c, root, "", "name", &s->name);
	iom_rd_str(&c, root, "", "description", &s->description);
	iom_rd_str(&c, root, "", "matrix_file", &s->matrix_file);
	iom_rd_str(&c, root, "", "compare", &s->compare);
	iom_rd_str(&c, root, "", "plan_hash", &hash);
	if (hash && c.ret == 0) {
		char *end;

		errno = 0;
		s->plan_hash = strtoull(hash, &end, 16);
		if (*end || !*hash || errno)
			iom_rd_fail(&c, "", "plan_hash", "is not a hexadecimal number");
	}
	free(hash);
	iom_rd_u32(&c, root, "", "runs", &s->nruns);
	iom_rd_u32(&c, root, "", "cells", &s->ncells);
	iom_rd_u64(&c, root, "", "seed", &s->seed);

	x = iom_rd_obj(&c, root, "", "timing");
	d = 0;
	iom_rd_double(&c, x, "timing", "warmup_s", &d);
	s->timing.warmup_ns = iom_rd_secs_to_ns(d);
	d = 0;
	iom_rd_double(&c, x, "timing", "duration_s", &d);
	s->timing.duration_ns = iom_rd_secs_to_ns(d);
	iom_rd_u64(&c, x, "timing", "bytes", &s->timing.bytes);
	d = 0;
	iom_rd_double(&c, x, "timing", "cooldown_s", &d);
	s->timing.cooldown_ns = iom_rd_secs_to_ns(d);
	d = 0;
	iom_rd_double(&c, x, "timing", "rest_s", &d);
	s->timing.rest_ns = iom_rd_secs_to_ns(d);
	d = 0;
	iom_rd_double(&c, x, "timing", "timeout_s", &d);
	s->timing.timeout_ns = iom_rd_secs_to_ns(d);
	iom_rd_u32(&c, x, "timing", "repeat", &s->timing.repeat);
	iom_rd_u32(&c, x, "timing", "repeat_max", &s->timing.repeat_max);
	iom_rd_double(&c, x, "timing", "until_ci_pct", &s->timing.until_ci_pct);
	iom_rd_str(&c, x, "timing", "repeat_order", &order);
	free(order);

	x = iom_rd_obj(&c, root, "", "report");
	iom_rd_double(&c, x, "report", "alpha", &s->report.alpha);
	iom_rd_double(&c, x, "report", "min_effect_pct", &s->report.min_effect_pct);
	iom_rd_double(&c, x, "report", "max_cv_pct", &s->report.max_cv_pct);
	{
		char *corr = NULL;

		iom_rd_str(&c, x, "report", "correction", &corr);
		if (corr && iom_correction_from_name(corr) < 0)
			iom_rd_fail(&c, "report", "correction", "is not holm, bh or none");
		else if (corr)
			s->report.correction = (uint32_t)iom_correction_from_name(corr);
		free(corr);
	}
	x = iom_rd_arr(&c, x, "report", "metrics");
	for (size_t i = 0; x && i < json_object_array_length(x); i++) {
		json_object *e = json_object_array_get_idx(x, i);
		int64_t bit;

		if (!json_object_is_type(e, json_type_string) ||
		    iom_metrics_parse(json_object_get_string(e), &bit, NULL, 0) < 0) {
			iom_rd_fail(&c, "report", "metrics", "names a metric that is not one");
			break;
		}
		s->report.metrics |= (uint32_t)bit;
	}

	x = iom_rd_arr(&c, root, "", "overrides");
	if (x) {
		size_t n = json_object_array_length(x);

		s->overrides = xcalloc(n + 1, sizeof(*s->overrides));
		for (size_t i = 0; i < n && c.ret == 0; i++) {
			json_object *v = json_object_array_get_idx(x, i);

			if (!v || !json_object_is_type(v, json_type_string)) {
				iom_rd_fail(&c, "", "overrides", "holds something other than strings");
				break;
			}
			s->overrides[i] = xstrdup(json_object_get_string(v));
			s->noverrides = i + 1;
		}
	}
	iom_rd_str(&c, root, "", "host", &s->host);
	iom_rd_str(&c, root, "", "kernel", &s->kernel);
	iom_rd_str(&c, root, "", "cpu_model", &s->cpu_model);
	{ /* absent in studies of older versions */
		json_object *mo = iom_rd_obj(&c, root, "", "machine");
		bool mod = false;

		if (mo) {
			iom_rd_str(&c, mo, "machine.", "matrix_commit", &s->matrix_commit);
			iom_rd_bool(&c, mo, "machine.", "matrix_modified", &mod);
			s->matrix_modified = mod;
			iom_rd_u64(&c, mo, "machine.", "ram_bytes", &s->ram_bytes);
			iom_rd_str(&c, mo, "machine.", "distro", &s->distro);
			iom_rd_str(&c, mo, "machine.", "liburing", &s->liburing);
			iom_rd_str(&c, mo, "machine.", "io_uring", &s->io_uring);
			iom_rd_str(&c, mo, "machine.", "cpu_governor", &s->governor);
			iom_rd_str(&c, mo, "machine.", "hypervisor", &s->hypervisor);
			iom_rd_str(&c, mo, "machine.", "kernel_cmdline", &s->cmdline);
		}
	}
	u = 0;
	iom_rd_u64(&c, root, "", "cpu_count", &u);
	s->ncpu = (unsigned)IOM_MIN(u, (uint64_t)UINT32_MAX);
	iom_rd_u64(&c, root, "", "start_ns", &s->start_wall_ns);
	iom_rd_u64(&c, root, "", "end_ns", &s->end_wall_ns);
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
