/* SPDX-License-Identifier: MIT */
/*
 * report_export — what the exports to other tools' formats (fio JSON, OpenMetrics, DiskSpd XML;
 * docs/interop.md) are made from: a "pool", the finished repetitions of one (cell, compared
 * value) of the model, or one run, read back from their run files and added up — I/Os and
 * bytes by direction, the windows' lengths, CPU seconds, the per-second intervals, and the
 * kept histograms merged bucket by bucket (pooled, never averaged; the mean of the runs'
 * percentiles only for files from before histograms were kept, and then the pool says so).
 * Part of the report module (report.h).
 */
#include "report_model.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "result/resdir.h"
#include "strbuf.h"
#include "util.h"

/* Adds one run file to p. */
static void pool_add(struct iom_report_pool *p, const struct iom_result_file *f)
{
	const struct iom_run_result *r = &f->r;

	if (p->nruns == 0) {
		p->first = r->index;
		p->start_wall_ns = r->start_wall_ns;
		p->has_hist = true;
		p->has_iv_lat = true;
	}
	p->runs = xrealloc(p->runs, (p->nruns + 1) * sizeof(*p->runs));
	p->runs[p->nruns++] = r->index;
	p->has_hist &= r->has_hist;
	p->has_iv_lat &= r->has_iv_lat;
	for (int d = 0; d < IOM_NDIR; d++) {
		p->ios[d] += r->dir[d].ios;
		p->bytes[d] += r->dir[d].bytes;
		if (r->has_hist)
			iom_hist_sparse_merge(&p->hist[d], &r->hist[d]);
		for (int i = 0; i < IOM_NPCT; i++)
			p->pct_sum[d][i] += (double)r->dir[d].lat.pct[i];
		p->mean_sum[d] += r->dir[d].lat.mean * (double)r->dir[d].ios;
		if (r->dir[d].ios && (!p->min_ns[d] || r->dir[d].lat.min < p->min_ns[d]))
			p->min_ns[d] = r->dir[d].lat.min;
		p->max_ns[d] = IOM_MAX(p->max_ns[d], r->dir[d].lat.max);
	}
	p->secs += r->elapsed_s;
	p->user_s += r->cpu.proc_user_s;
	p->sys_s += r->cpu.proc_sys_s;
	p->busy_pct += r->cpu.busy_pct;
	p->iv = xrealloc(p->iv, (p->niv + r->nintervals + 1) * sizeof(*p->iv));
	if (r->nintervals)
		memcpy(p->iv + p->niv, r->intervals, r->nintervals * sizeof(*p->iv));
	p->niv += r->nintervals;
}

static int pool_read(struct iom_report_pool *p, const char *dir, uint32_t run, char *err,
		     size_t errlen)
{
	char *path = iom_result_path(dir, run);
	struct iom_result_file f;
	int ret = iom_result_read(path, &f, err, errlen);

	if (ret == 0) {
		pool_add(p, &f);
		if (!p->cell_text) {
			struct iom_strbuf b = { 0 };

			for (size_t i = 0; i < f.ncell; i++)
				iom_strbuf_printf(&b, "%s%s=%s", i ? " " : "", f.cell[i].name,
						  f.cell[i].value);
			p->cell_text = iom_strbuf_take(&b);
			p->ncell = f.ncell;
			p->cell = xcalloc(f.ncell + 1, sizeof(*p->cell));
			for (size_t i = 0; i < f.ncell; i++) {
				p->cell[i].name = xstrdup(f.cell[i].name);
				p->cell[i].value = xstrdup(f.cell[i].value);
			}
		}
	}
	iom_result_file_release(&f);
	free(path);
	return ret;
}

static void pool_init(struct iom_report_pool *p)
{
	memset(p, 0, sizeof(*p));
	for (int d = 0; d < IOM_NDIR; d++)
		iom_hist_init(&p->hist[d]);
}

int iom_report_pool_cell(const struct iom_report *m, size_t cell, size_t cv,
			 struct iom_report_pool *p, char *err, size_t errlen)
{
	const struct iom_report_reps *r = &m->cells[cell].by[cv];
	int ret = 0;

	pool_init(p);
	p->cell_index = cell;
	p->compared = cv;
	for (size_t i = 0; i < r->n && ret == 0; i++)
		ret = pool_read(p, m->src[r->src[i]].dir, r->run[i], err, errlen);
	return ret;
}

int iom_report_pool_run(const struct iom_report *m, size_t src, uint32_t run,
			struct iom_report_pool *p, char *err, size_t errlen)
{
	pool_init(p);
	p->cell_index = SIZE_MAX;
	p->compared = SIZE_MAX;
	for (size_t c = 0; c < m->ncells; c++)
		for (size_t v = 0; v < m->ncompared; v++)
			for (size_t i = 0; i < m->cells[c].by[v].n; i++)
				if (m->cells[c].by[v].run[i] == run && m->cells[c].by[v].src[i] == src) {
					p->cell_index = c;
					p->compared = v;
				}
	return pool_read(p, m->src[src].dir, run, err, errlen);
}

void iom_report_pool_release(struct iom_report_pool *p)
{
	for (size_t i = 0; i < p->ncell; i++) {
		free(p->cell[i].name);
		free(p->cell[i].value);
	}
	free(p->cell);
	free(p->cell_text);
	free(p->runs);
	free(p->iv);
	memset(p, 0, sizeof(*p));
}

const char *iom_report_pool_get(const struct iom_report_pool *p, const char *name)
{
	for (size_t i = 0; i < p->ncell; i++)
		if (strcmp(p->cell[i].name, name) == 0)
			return p->cell[i].value;
	return NULL;
}

double iom_report_pool_pct(const struct iom_report_pool *p, int d, double pct)
{
	int i = iom_percentile_index(pct);

	if (p->has_hist)
		return (double)iom_hist_percentile(&p->hist[d], pct);
	return i >= 0 && p->nruns ? p->pct_sum[d][i] / (double)p->nruns : NAN;
}

double iom_report_pool_mean(const struct iom_report_pool *p, int d)
{
	if (p->has_hist)
		return iom_hist_mean(&p->hist[d]);
	return p->ios[d] ? p->mean_sum[d] / (double)p->ios[d] : 0;
}
