/* SPDX-License-Identifier: MIT */
/*
 * report_hosts — the runs of many hosts in the report (report.h, docs/hosts.md): each run's
 * per-host rows beside its aggregate as one table of text cells, and the provenance per host
 * (each rank's kernel, CPU and devices, and the facts that are not the same on every rank).
 *
 * report_load.c keeps each run of many hosts (struct iom_report_hrun: the aggregate's figures
 * and the rows of the run file's "hosts"); here they become lines the writers lay out in their
 * own way (text columns, a Markdown or HTML table, JSON), so every format says the same. A
 * straggler is the run's verdict (hosts.c flags it when a host's IOPS is more than 10 % below
 * the hosts' median); the report shows it, never judges it again. Nothing here prints.
 */
#include "report_model.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "util.h"

const char *const iom_report_hcol_title[IOM_NHCOL] = {
	"run", "cell", "rank", "host", "IOPS", "MB/s", "lat avg", "lat p99", "CPU s", "flags",
};

const char iom_report_hosts_legend[] =
	"per run its aggregate (all: summed I/O over the first start to the last end, "
	"percentiles of the merged histograms), then each host over its own window; CPU s: "
	"user + system seconds of the process; straggler: IOPS more than 10% below the hosts' "
	"median; stonewalled: its window ended when the first host's share was done";

void iom_report_hrun_release(struct iom_report_hrun *h)
{
	if (!h)
		return;
	free(h->target);
	free(h->rows);
	memset(h, 0, sizeof(*h));
}

static void figures(struct iom_report_hline *l, double iops, double mb_s, double mean,
		    double p99, double cpu_s)
{
	char b[32];

	iom_report_fmt_value(b, sizeof(b), IOM_METRIC_IOPS, iops);
	l->col[IOM_HCOL_IOPS] = xstrdup(b);
	iom_report_fmt_value(b, sizeof(b), IOM_METRIC_MB_S, mb_s);
	l->col[IOM_HCOL_MB_S] = xstrdup(b);
	iom_report_fmt_value(b, sizeof(b), IOM_METRIC_LAT_MEAN, mean);
	l->col[IOM_HCOL_LAT_MEAN] = xstrdup(b);
	iom_report_fmt_value(b, sizeof(b), IOM_METRIC_LAT_P99, p99);
	l->col[IOM_HCOL_LAT_P99] = xstrdup(b);
	l->col[IOM_HCOL_CPU] = xasprintf("%.2f", cpu_s);
}

size_t iom_report_hlines(const struct iom_report *m, size_t max_runs,
			 struct iom_report_hline **out)
{
	size_t nruns = max_runs && max_runs < m->nhruns ? max_runs : m->nhruns, n = 0, cap = 0;
	struct iom_report_hline *v = NULL;

	for (size_t i = 0; i < nruns; i++)
		cap += 1 + m->hruns[i].nrows;
	v = xcalloc(cap + 1, sizeof(*v));
	for (size_t i = 0; i < nruns; i++) {
		const struct iom_report_hrun *h = &m->hruns[i];
		struct iom_report_hline *l = &v[n++];
		char *words = iom_report_varying_words(m, h->cell);

		l->aggregate = true;
		l->hrun = i;
		l->col[IOM_HCOL_RUN] = m->nsrc > 1 ?
				       xasprintf("%s:%" PRIu32, m->src[h->src].name, h->run) :
				       xasprintf("%" PRIu32, h->run);
		l->col[IOM_HCOL_CELL] = xasprintf("%s%s%s", m->compared[h->compared],
						  *words ? " " : "", words);
		free(words);
		l->col[IOM_HCOL_RANK] = xstrdup("all");
		l->col[IOM_HCOL_HOST] = xasprintf("%zu host%s", h->nrows, h->nrows == 1 ? "" : "s");
		figures(l, h->iops, h->mb_s, h->lat_mean_ns, h->lat_p99_ns, h->cpu_s);
		l->col[IOM_HCOL_FLAGS] = xasprintf("%s%s%s", h->status != IOM_RUN_OK ?
						   iom_run_status_name(h->status) : "",
						   h->status != IOM_RUN_OK && h->stonewalled ? ", " : "",
						   h->stonewalled ? "stonewalled" : "");
		for (size_t k = 0; k < h->nrows; k++) {
			const struct iom_host_row *r = &h->rows[k];
			struct iom_strbuf f = { 0 };

			l = &v[n++];
			l->hrun = i;
			l->straggler = r->straggler;
			l->col[IOM_HCOL_RUN] = xstrdup("");
			l->col[IOM_HCOL_CELL] = xstrdup("");
			l->col[IOM_HCOL_RANK] = xasprintf("%" PRIu32, r->rank);
			l->col[IOM_HCOL_HOST] = xstrdup(r->host[0] ? r->host : "?");
			figures(l, r->iops, r->mb_s, r->lat_mean_ns, (double)r->p99_ns,
				r->user_s + r->sys_s);
			if (r->status != IOM_RUN_OK)
				iom_strbuf_str(&f, iom_run_status_name((enum iom_run_status)r->status));
			if (r->straggler)
				iom_strbuf_printf(&f, "%sstraggler", f.len ? ", " : "");
			if (r->stonewalled)
				iom_strbuf_printf(&f, "%sstonewalled", f.len ? ", " : "");
			l->col[IOM_HCOL_FLAGS] = f.s ? iom_strbuf_take(&f) : xstrdup("");
		}
	}
	*out = v;
	return n;
}

void iom_report_hlines_free(struct iom_report_hline *l, size_t n)
{
	for (size_t i = 0; l && i < n; i++)
		for (int c = 0; c < IOM_NHCOL; c++)
			free(l[i].col[c]);
	free(l);
}

/* ---- provenance per host ---- */

#define NO_DEVICE "no block device"

/* One rank's facts, as first seen in the source's runs. */
struct rank_facts {
	uint32_t rank;
	const char *host, *kernel, *cpu;
	const char **device;        /* per target of the source's list (NULL: not seen) */
	const char **driver, **scheduler; /* the same, in device's allocation */
};

/* "kernel differs: r0, r1: A; r2: B" when the ranks' values are not all the same (a value
 * of NULL, a rank that never ran the target, is left out; "" reads as empty); NULL
 * otherwise. */
static char *differs_text(const char *what, const struct rank_facts *rf, size_t n,
			  const char *(*get)(const struct rank_facts *, size_t), size_t arg,
			  const char *empty)
{
	struct iom_strbuf b = { 0 };
	bool *done = xcalloc(n + 1, sizeof(*done));
	size_t groups = 0;

	iom_strbuf_printf(&b, "%s differs:", what);
	for (size_t i = 0; i < n; i++) {
		const char *v = get(&rf[i], arg);

		if (done[i] || !v)
			continue;
		iom_strbuf_printf(&b, "%s r%" PRIu32, groups ? ";" : "", rf[i].rank);
		for (size_t j = i + 1; j < n; j++) {
			const char *w = get(&rf[j], arg);

			if (!done[j] && w && strcmp(v, w) == 0) {
				done[j] = true;
				iom_strbuf_printf(&b, ", r%" PRIu32, rf[j].rank);
			}
		}
		iom_strbuf_printf(&b, ": %s", *v ? v : empty);
		groups++;
	}
	free(done);
	if (groups < 2) {
		iom_strbuf_release(&b);
		return NULL;
	}
	return iom_strbuf_take(&b);
}

static const char *get_kernel(const struct rank_facts *f, size_t arg)
{
	(void)arg;
	return f->kernel;
}

static const char *get_cpu(const struct rank_facts *f, size_t arg)
{
	(void)arg;
	return f->cpu;
}

static const char *get_device(const struct rank_facts *f, size_t t)
{
	return f->device[t];
}

static void add_line(char ***v, size_t *n, char *s)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = s;
}

/* Each rank's facts of source src's runs of many hosts into *rf (heap, the count returned;
 * device, driver and scheduler per target of *targets, heap, *nt, first appearance first). */
static size_t collect(const struct iom_report *m, size_t src, struct rank_facts **rfp,
		      const char ***targetsp, size_t *ntp)
{
	struct rank_facts *rf = NULL;
	const char **targets = NULL;
	size_t nrf = 0, nt = 0;

	/* the targets the source's runs of many hosts name, first appearance first */
	for (size_t i = 0; i < m->nhruns; i++) {
		const char *t = m->hruns[i].target ? m->hruns[i].target : "?";
		size_t k = 0;

		if (m->hruns[i].src != src)
			continue;
		while (k < nt && strcmp(targets[k], t) != 0)
			k++;
		if (k == nt) {
			targets = xrealloc(targets, (nt + 1) * sizeof(*targets));
			targets[nt++] = t;
		}
	}
	for (size_t i = 0; i < m->nhruns; i++) {
		const struct iom_report_hrun *h = &m->hruns[i];
		const char *t = h->target ? h->target : "?";
		size_t ti = 0;

		if (h->src != src)
			continue;
		while (strcmp(targets[ti], t) != 0)
			ti++;
		for (size_t k = 0; k < h->nrows; k++) {
			const struct iom_host_row *r = &h->rows[k];
			size_t j = 0;

			while (j < nrf && rf[j].rank != r->rank)
				j++;
			if (j == nrf) {
				rf = xrealloc(rf, (nrf + 1) * sizeof(*rf));
				rf[nrf] = (struct rank_facts){ .rank = r->rank, .host = r->host,
							       .kernel = r->kernel,
							       .cpu = r->cpu_model };
				rf[nrf].device = xcalloc(3 * (nt + 1), sizeof(*rf[nrf].device));
				rf[nrf].driver = rf[nrf].device + nt + 1;
				rf[nrf].scheduler = rf[nrf].driver + nt + 1;
				nrf++;
			}
			/* "" is no block device (tmpfs); a failed row may carry none where a
			 * later run names one */
			if (!rf[j].device[ti] || (!*rf[j].device[ti] && r->status == IOM_RUN_OK)) {
				rf[j].device[ti] = r->device;
				rf[j].driver[ti] = r->driver;
				rf[j].scheduler[ti] = r->scheduler;
			}
		}
	}
	*rfp = rf;
	*targetsp = targets;
	*ntp = nt;
	return nrf;
}

static void release_facts(struct rank_facts *rf, size_t nrf, const char **targets)
{
	for (size_t j = 0; j < nrf; j++)
		free(rf[j].device);
	free(rf);
	free(targets);
}

void iom_report_host_prov(const struct iom_report *m, size_t src, struct iom_report_host_prov *p)
{
	struct rank_facts *rf;
	const char **targets;
	size_t nt, nrf = collect(m, src, &rf, &targets, &nt);

	memset(p, 0, sizeof(*p));
	for (size_t j = 0; j < nrf; j++) {
		struct iom_strbuf b = { 0 };

		iom_strbuf_printf(&b, "rank %" PRIu32 " (%s): kernel %s; CPU %s", rf[j].rank,
				  *rf[j].host ? rf[j].host : "?", *rf[j].kernel ? rf[j].kernel : "?",
				  *rf[j].cpu ? rf[j].cpu : "?");
		for (size_t t = 0; t < nt; t++)
			iom_strbuf_printf(&b, "; target '%s': %s", targets[t],
					  !rf[j].device[t] ? "not run" :
					  *rf[j].device[t] ? rf[j].device[t] : NO_DEVICE);
		add_line(&p->line, &p->nline, iom_strbuf_take(&b));
	}
	{
		char *d;

		if ((d = differs_text("kernel", rf, nrf, get_kernel, 0, "?")))
			add_line(&p->differs, &p->ndiffers, d);
		if ((d = differs_text("CPU", rf, nrf, get_cpu, 0, "?")))
			add_line(&p->differs, &p->ndiffers, d);
		for (size_t t = 0; t < nt; t++) {
			char *what = xasprintf("device of target '%s'", targets[t]);

			if ((d = differs_text(what, rf, nrf, get_device, t, NO_DEVICE)))
				add_line(&p->differs, &p->ndiffers, d);
			free(what);
		}
	}
	release_facts(rf, nrf, targets);
}

/* One fact of rank r across the sources (v[s]: NULL where source s has none): "kernel: A, C:
 * x; B: y" appended to b when two sources that have it differ; whether it did. */
static bool across_fact(struct iom_strbuf *b, const struct iom_report *m, const char *what,
			const char **v, const char *empty)
{
	bool *done = xcalloc(m->nsrc + 1, sizeof(*done));
	size_t groups = 0, have = 0;
	struct iom_strbuf x = { 0 };

	for (size_t i = 0; i < m->nsrc; i++)
		have += v[i] != NULL;
	for (size_t i = 0; i < m->nsrc && have > 1; i++) {
		if (done[i] || !v[i])
			continue;
		iom_strbuf_printf(&x, "%s %s", groups ? ";" : "", m->src[i].name);
		for (size_t j = i + 1; j < m->nsrc; j++)
			if (!done[j] && v[j] && strcmp(v[i], v[j]) == 0) {
				done[j] = true;
				iom_strbuf_printf(&x, ", %s", m->src[j].name);
			}
		iom_strbuf_printf(&x, ": %s", *v[i] ? v[i] : empty);
		groups++;
	}
	free(done);
	if (groups > 1)
		iom_strbuf_printf(b, "%s%s differs:%s", b->len ? "; " : "", what, x.s);
	iom_strbuf_release(&x);
	return groups > 1;
}

/* A rank's facts of each target: 0 its device, 1 its driver, 2 its scheduler. */
static const char *const target_fact[3] = { "device", "driver", "scheduler" };

static const char **target_facts(const struct rank_facts *f, int k)
{
	return k == 0 ? f->device : k == 1 ? f->driver : f->scheduler;
}

void iom_report_host_prov_across(const struct iom_report *m, struct iom_report_host_prov *p)
{
	struct rank_facts **rf = xcalloc(m->nsrc + 1, sizeof(*rf));
	const char ***targets = xcalloc(m->nsrc + 1, sizeof(*targets));
	size_t *nrf = xcalloc(m->nsrc + 1, sizeof(*nrf)), *nt = xcalloc(m->nsrc + 1, sizeof(*nt));
	const char **v = xcalloc(m->nsrc + 1, sizeof(*v));
	uint32_t top = 0;
	size_t compared = 0;

	memset(p, 0, sizeof(*p));
	if (m->nsrc < 2)
		goto out;
	for (size_t s = 0; s < m->nsrc; s++) {
		nrf[s] = collect(m, s, &rf[s], &targets[s], &nt[s]);
		for (size_t j = 0; j < nrf[s]; j++)
			top = IOM_MAX(top, rf[s][j].rank + 1);
	}
	for (uint32_t r = 0; r < top; r++) {
		const struct rank_facts **f = xcalloc(m->nsrc + 1, sizeof(*f));
		struct iom_strbuf b = { 0 };
		size_t have = 0;

		for (size_t s = 0; s < m->nsrc; s++)
			for (size_t j = 0; j < nrf[s] && !f[s]; j++)
				if (rf[s][j].rank == r)
					f[s] = &rf[s][j], have++;
		compared += have > 1;
#define ACROSS(what, expr, empty) do { \
		for (size_t s = 0; s < m->nsrc; s++) \
			v[s] = f[s] ? (expr) : NULL; \
		across_fact(&b, m, what, v, empty); \
	} while (0)
		ACROSS("kernel", f[s]->kernel, "?");
		ACROSS("CPU", f[s]->cpu, "?");
		/* each target of the first source that has the rank, where the others ran it */
		for (size_t s0 = 0; s0 < m->nsrc && have > 1; s0++) {
			if (!f[s0])
				continue;
			for (size_t t = 0; t < nt[s0]; t++) {
				const char *label = targets[s0][t];
				size_t *ti = xcalloc(m->nsrc + 1, sizeof(*ti));

				for (size_t s = 0; s < m->nsrc; s++) {
					ti[s] = SIZE_MAX;
					for (size_t k = 0; f[s] && k < nt[s]; k++)
						if (strcmp(targets[s][k], label) == 0)
							ti[s] = k;
				}
				for (int k = 0; k < 3; k++) {
					char *what = xasprintf("%s of target '%s'", target_fact[k],
							       label);

					for (size_t s = 0; s < m->nsrc; s++)
						v[s] = !f[s] || ti[s] == SIZE_MAX ? NULL
						       : target_facts(f[s], k)[ti[s]];
					across_fact(&b, m, what, v, k ? "none" : NO_DEVICE);
					free(what);
				}
				free(ti);
			}
			break;
		}
#undef ACROSS
		if (b.len) {
			char *line = xasprintf("rank %" PRIu32 ": %s", r, b.s);

			add_line(&p->differs, &p->ndiffers, line);
		}
		iom_strbuf_release(&b);
		free(f);
	}
	if (compared && !p->ndiffers)
		add_line(&p->line, &p->nline, xasprintf("every rank's kernel, CPU and devices are "
							"the same in every study (%zu ranks)",
							compared));
out:
	for (size_t s = 0; s < m->nsrc; s++)
		release_facts(rf[s], nrf[s], targets[s]);
	free(rf);
	free(targets);
	free(nrf);
	free(nt);
	free(v);
}

void iom_report_host_prov_release(struct iom_report_host_prov *p)
{
	for (size_t i = 0; i < p->nline; i++)
		free(p->line[i]);
	for (size_t i = 0; i < p->ndiffers; i++)
		free(p->differs[i]);
	free(p->line);
	free(p->differs);
	memset(p, 0, sizeof(*p));
}
