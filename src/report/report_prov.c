/* SPDX-License-Identifier: MIT */
/*
 * report_prov — provenance compared across the sources of a model (report.h): each source's
 * facts (tool, plan, host, kernel, CPU, timing, every target's device facts) as (what, value)
 * pairs, the facts that differ between sources, and the cells one source lacks that another
 * has. The writers print them; nothing here prints.
 */
#include "report_model.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result/study.h"
#include "strbuf.h"
#include "units.h"
#include "util.h"

/* ---- provenance: what differs between the directories ---- */

struct fact {
	char *what, *value;
};

struct facts {
	struct fact *f;
	size_t n;
};

static void fact_add(struct facts *fs, const char *what, const char *value)
{
	fs->f = xrealloc(fs->f, (fs->n + 1) * sizeof(*fs->f));
	fs->f[fs->n].what = xstrdup(what);
	fs->f[fs->n].value = xstrdup(value && *value ? value : "?");
	fs->n++;
}

static void fact_addf(struct facts *fs, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fact_addf(struct facts *fs, const char *what, const char *fmt, ...)
{
	struct iom_strbuf b = { 0 };
	va_list ap;

	va_start(ap, fmt);
	iom_strbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	fact_add(fs, what, iom_strbuf_get(&b));
	iom_strbuf_release(&b);
}

static void secs_text(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%.10gs", (double)ns / 1e9);
}

static void target_facts(struct facts *fs, const char *prefix, const struct iom_study_target *t)
{
	const struct iom_device_facts *f = &t->facts;
	char what[160];

#define W(name) (snprintf(what, sizeof(what), "%s%s", prefix, name), what)
	fact_add(fs, W("path"), t->path);
	/* The controller label, when it says more than the driver found in sysfs. */
	if (!t->has_facts || !f->driver || !t->controller || strcmp(t->controller, f->driver) != 0)
		fact_add(fs, W("controller"), t->controller);
	if (!t->has_facts)
		return;
	fact_add(fs, W("driver"), f->driver);
	fact_addf(fs, W("device model"), "%s%s%s", f->vendor ? f->vendor : "",
		  f->vendor && f->model ? " " : "", f->model ? f->model : "");
	fact_add(fs, W("scheduler"), f->scheduler);
	fact_addf(fs, W("nr_requests"), "%u", f->nr_requests);
	fact_addf(fs, W("block size"), "%u/%u", f->logical_block_size, f->physical_block_size);
	fact_add(fs, W("rotational"), f->rotational < 0 ? "?" : f->rotational ? "yes" : "no");
	if (f->fstype || t->filesystem)
		fact_add(fs, W("filesystem"), f->fstype ? f->fstype : t->filesystem);
	if (f->mount_options)
		fact_add(fs, W("mount options"), f->mount_options);
#undef W
}

static bool has_label(const struct iom_study_info *s, const char *label)
{
	return iom_study_target_find(s, label) != NULL;
}

/* Whether label names a target of every source (NULL never does). */
static bool every_source_has(const struct iom_report *m, const char *label)
{
	bool all = label != NULL;

	for (size_t j = 0; all && j < m->nsrc; j++)
		all = has_label(&m->src[j].study, label);
	return all;
}

/* The facts of source i, matched across sources: a target by its label when every source has
 * it, else by position among the unmatched ones when they count alike. */
static void source_facts(const struct iom_report *m, size_t i, struct facts *fs)
{
	const struct iom_study_info *s = &m->src[i].study;
	struct iom_strbuf labels = { 0 };
	char buf[64];
	const char *kernel = s->kernel ? s->kernel : "?";
	size_t rel = strcspn(kernel, " "), nun = SIZE_MAX, pos = 0;

	fact_add(fs, "tool version", s->tool_version);
	snprintf(buf, sizeof(buf), "%016" PRIx64, s->plan_hash);
	fact_add(fs, "plan", buf);
	fact_add(fs, "matrix", s->name);
	fact_add(fs, "host", s->host);
	fact_addf(fs, "kernel", "%.*s", (int)rel, kernel);
	fact_add(fs, "kernel build", kernel[rel] ? kernel + rel + 1 : "?");
	fact_add(fs, "CPU", s->cpu_model);
	fact_addf(fs, "CPUs", "%u", s->ncpu);
	/* what makes a study repeatable (machine.h): listed when two studies differ in it */
	if (s->matrix_commit)
		fact_addf(fs, "matrix commit", "%.12s%s", s->matrix_commit,
			  s->matrix_modified ? " (modified since)" : "");
	if (s->ram_bytes)
		fact_addf(fs, "RAM", "%.1f GiB", (double)s->ram_bytes / (1024.0 * 1024 * 1024));
	fact_add(fs, "distribution", s->distro);
	fact_add(fs, "liburing", s->liburing);
	fact_add(fs, "io_uring", s->io_uring);
	fact_add(fs, "CPU governor", s->governor);
	fact_add(fs, "hypervisor", s->hypervisor);
	fact_add(fs, "kernel command line", s->cmdline);
	if (s->timing.bytes) {
		fact_addf(fs, "measured size", "%" PRIu64 " bytes", s->timing.bytes);
	} else {
		secs_text(buf, sizeof(buf), s->timing.duration_ns);
		fact_add(fs, "duration", buf);
	}
	secs_text(buf, sizeof(buf), s->timing.warmup_ns);
	fact_add(fs, "warm-up", buf);
	fact_addf(fs, "repetitions", "%" PRIu32, s->timing.repeat);
	fact_addf(fs, "report options", "alpha %g, min effect %g%%, max CV %g%%", s->report.alpha,
		  s->report.min_effect_pct, s->report.max_cv_pct);
	for (size_t t = 0; t < s->ntargets; t++) {
		iom_strbuf_str(&labels, t ? ", " : "");
		iom_strbuf_str(&labels, s->targets[t].label ? s->targets[t].label : "?");
	}
	fact_add(fs, "target", iom_strbuf_get(&labels));
	free(labels.s);

	/* Targets every source has, by label. */
	for (size_t t = 0; t < s->ntargets; t++) {
		const char *l = s->targets[t].label;
		char *prefix;

		if (!every_source_has(m, l))
			continue;
		prefix = m->nsrc > 1 || s->ntargets > 1 ? xasprintf("%s ", l) : xstrdup("");
		target_facts(fs, prefix, &s->targets[t]);
		free(prefix);
	}
	/* The others by position, when every source has as many. */
	for (size_t j = 0; j < m->nsrc; j++) {
		const struct iom_study_info *o = &m->src[j].study;
		size_t k = 0;

		for (size_t t = 0; t < o->ntargets; t++)
			k += !every_source_has(m, o->targets[t].label);
		if (nun == SIZE_MAX)
			nun = k;
		else if (nun != k)
			return;
	}
	for (size_t t = 0; t < s->ntargets; t++) {
		const char *l = s->targets[t].label;
		char *prefix;

		if (every_source_has(m, l))
			continue;
		prefix = nun > 1 ? xasprintf("target %zu ", ++pos) : xstrdup("");
		target_facts(fs, prefix, &s->targets[t]);
		free(prefix);
	}
}

static const char *fact_get(const struct facts *fs, const char *what)
{
	for (size_t i = 0; i < fs->n; i++)
		if (strcmp(fs->f[i].what, what) == 0)
			return fs->f[i].value;
	return NULL;
}

size_t iom_report_diffs(const struct iom_report *m, struct iom_report_diff **out)
{
	struct facts *fs;
	size_t n = 0;
	bool kernel_differs = false;

	*out = NULL;
	if (m->nsrc < 2)
		return 0;
	fs = xcalloc(m->nsrc, sizeof(*fs));
	for (size_t i = 0; i < m->nsrc; i++)
		source_facts(m, i, &fs[i]);
	/* Every fact any source has, in first appearance order. */
	for (size_t i = 0; i < m->nsrc; i++) {
		for (size_t f = 0; f < fs[i].n; f++) {
			const char *what = fs[i].f[f].what;
			bool seen = false, differs = false;

			for (size_t j = 0; j < i && !seen; j++)
				seen = fact_get(&fs[j], what) != NULL;
			for (size_t d = 0; d < n && !seen; d++)
				seen = strcmp((*out)[d].what, what) == 0;
			if (seen)
				continue;
			for (size_t j = 0; j < m->nsrc; j++) {
				const char *a = fact_get(&fs[j], what), *b = fs[i].f[f].value;

				differs |= strcmp(a ? a : "-", b) != 0;
			}
			if (!differs || (kernel_differs && strcmp(what, "kernel build") == 0))
				continue;
			kernel_differs |= strcmp(what, "kernel") == 0;
			*out = xrealloc(*out, (n + 1) * sizeof(**out));
			(*out)[n].what = xstrdup(what);
			(*out)[n].value = xcalloc(m->nsrc + 1, sizeof(char *));
			for (size_t j = 0; j < m->nsrc; j++) {
				const char *a = fact_get(&fs[j], what);

				(*out)[n].value[j] = xstrdup(a ? a : "-");
			}
			n++;
		}
	}
	for (size_t i = 0; i < m->nsrc; i++) {
		for (size_t f = 0; f < fs[i].n; f++) {
			free(fs[i].f[f].what);
			free(fs[i].f[f].value);
		}
		free(fs[i].f);
	}
	free(fs);
	return n;
}

void iom_report_diffs_free(struct iom_report_diff *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; d[i].value && d[i].value[j]; j++)
			free(d[i].value[j]);
		free(d[i].value);
		free(d[i].what);
	}
	free(d);
}

char *iom_report_diff_text(const struct iom_report *m, const struct iom_report_diff *d)
{
	struct iom_strbuf b = { 0 };

	iom_strbuf_printf(&b, "%s differs: ", d->what);
	for (size_t j = 0; j < m->nsrc; j++)
		iom_strbuf_printf(&b, "%s%s (%s)", j ? " vs " : "", d->value[j], m->src[j].name);
	return b.s;
}

size_t iom_report_missing(const struct iom_report *m, size_t s, size_t **cells)
{
	size_t n = 0;

	*cells = xcalloc(m->ncells + 1, sizeof(**cells));
	for (size_t c = 0; c < m->ncells; c++) {
		bool elsewhere = false;

		for (size_t j = 0; j < m->nsrc; j++)
			elsewhere |= j != s && m->cells[c].in_src[j];
		if (elsewhere && !m->cells[c].in_src[s])
			(*cells)[n++] = c;
	}
	return n;
}

bool iom_report_by_study(const struct iom_report *m)
{
	return m->compare && strcmp(m->compare, IOM_REPORT_COMPARE_STUDY) == 0;
}

/* Whether what ends with the word tail ("lsi-sas driver" ends with "driver"). */
static bool ends_with_word(const char *what, const char *tail)
{
	size_t n = strlen(what), t = strlen(tail);

	return n >= t && strcmp(what + n - t, tail) == 0 && (n == t || what[n - t - 1] == ' ');
}

bool iom_report_fact_is_setup(const char *what)
{
	return strcmp(what, "kernel") == 0 || ends_with_word(what, "controller") ||
	       ends_with_word(what, "driver") || ends_with_word(what, "scheduler") ||
	       ends_with_word(what, "filesystem");
}

char *iom_report_setup_changes(const struct iom_report *m)
{
	struct iom_report_diff *d;
	size_t n = iom_report_diffs(m, &d);
	struct iom_strbuf b = { 0 };
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		if (!iom_report_fact_is_setup(d[i].what))
			continue;
		iom_strbuf_printf(&b, "%s%s: ", any ? "; " : "", d[i].what);
		for (size_t j = 0; j < m->nsrc; j++)
			iom_strbuf_printf(&b, "%s%s", j ? " → " : "", d[i].value[j]);
		any = true;
	}
	iom_report_diffs_free(d, n);
	return any ? iom_strbuf_take(&b) : NULL;
}
