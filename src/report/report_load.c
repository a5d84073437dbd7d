/* SPDX-License-Identifier: MIT */
/*
 * report_load — reading results directories into the report model (report.h): sources, cells,
 * compared values, repetitions, runs left out and runs damaged; the significance options; the
 * runs named on the command line.
 *
 * Loading reads every runs/NNNNN.json of every directory once, in directory then index order,
 * into records (the cell as name/value pairs, the metrics, the chart figures), and only then
 * builds the model: the dimensions are the union over all runs, in order of first appearance,
 * minus the compared one; a cell is one value of each (a dimension a run lacks reads as ""), so
 * two directories' cells match exactly when every dimension value matches. A compared value
 * that measured the same cell in two directories is two different measurements of the same
 * thing — the same controller before and after a kernel update — so each is qualified with
 * its directory, "lsi@boot1" and "lsi@boot2"; a value found in two directories on disjoint
 * cells simply continues there, unqualified. Failed and interrupted runs are kept aside with
 * their reasons, never averaged in. Nothing here judges or prints: report_stats.c judges,
 * report_text.c and the other writers print.
 */
#include "report_model.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "journal.h"
#include "keys.h"
#include "result/resdir.h"
#include "result/study.h"
#include "strbuf.h"
#include "util.h"

/* ---- the model ---- */

/* One run as read, before the cells are built. */
struct rec {
	size_t src;
	uint32_t run;
	struct iom_cell_pair *cell;  /* owned copy */
	size_t ncell;
	char *cv;                    /* the compared value as the file holds it */
	size_t raw;                  /* index of cv among the distinct raw values */
	size_t cellx, compared;
	enum iom_run_status status;
	bool stalled;                /* ok, but stalled: error holds why */
	bool few_ios;                /* fewer than IOM_MIN_PCT_IOS I/Os measured */
	double v[IOM_NMETRIC];
	double x[IOM_NX];
	char *error;
	struct iom_report_hrun *hrun; /* a run of many hosts (heap; NULL: one host) */
	/* its kept histograms of all I/O: service time, and the response time judged (a paced
	 * run's; else a copy of the service time's); has_hist false: a file without them */
	bool has_hist;
	struct iom_hist_sparse svc, judged;
};

/* Cells by key (their dimension values joined), open addressing; slot holds cell index + 1. */
struct cell_index {
	size_t *slot;
	size_t cap;
	char **key;       /* per cell */
};

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

static size_t *index_find(struct cell_index *ix, const char *key)
{
	size_t i = fnv1a(key) & (ix->cap - 1);

	while (ix->slot[i] && strcmp(ix->key[ix->slot[i] - 1], key) != 0)
		i = (i + 1) & (ix->cap - 1);
	return &ix->slot[i];
}

static void index_grow(struct cell_index *ix)
{
	size_t *old = ix->slot, oldcap = ix->cap;

	ix->cap = ix->cap ? ix->cap * 2 : 64;
	ix->slot = xcalloc(ix->cap, sizeof(*ix->slot));
	for (size_t i = 0; i < oldcap; i++)
		if (old[i])
			*index_find(ix, ix->key[old[i] - 1]) = old[i];
	free(old);
}

static size_t find_or_add(char ***list, size_t *n, const char *v)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*list)[i], v) == 0)
			return i;
	*list = xrealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[*n] = xstrdup(v);
	return (*n)++;
}

static const char *rec_get(const struct rec *r, const char *name)
{
	for (size_t i = 0; i < r->ncell; i++)
		if (strcmp(r->cell[i].name, name) == 0)
			return r->cell[i].value;
	return NULL;
}

static void rec_free(struct rec *r)
{
	for (size_t i = 0; i < r->ncell; i++) {
		free(r->cell[i].name);
		free(r->cell[i].value);
	}
	free(r->cell);
	free(r->cv);
	free(r->error);
	iom_report_hrun_release(r->hrun);
	free(r->hrun);
	iom_hist_sparse_release(&r->svc);
	iom_hist_sparse_release(&r->judged);
}

/* Reads one run file into a record; *damaged: the file itself does not read back (err). */
static int read_rec(const struct iom_report *m, size_t src, uint32_t index, struct rec *rec,
		    bool *damaged, char *err, size_t errlen)
{
	char *path = iom_result_path(m->src[src].dir, index);
	struct iom_result_file f;
	const struct iom_run_result *r = &f.r;
	const struct iom_io_stats *t = &r->dir[IOM_DIR_TOTAL];
	const char *cv;
	int ret = iom_result_read(path, &f, err, errlen);

	*damaged = ret < 0;
	if (ret < 0)
		goto out;
	cv = iom_report_by_study(m) ? m->src[src].name : iom_result_cell_get(&f, m->compare);
	if (!cv) {
		struct iom_strbuf names = { 0 };

		for (size_t i = 0; i < f.ncell; i++) {
			iom_strbuf_str(&names, i ? ", " : "");
			iom_strbuf_str(&names, f.cell[i].name);
		}
		ret = iom_err(err, errlen, EINVAL, "'%s' is not a dimension of the runs in '%s' (%s)",
			      m->compare, path, names.s ? names.s : "none");
		free(names.s);
		goto out;
	}
	rec->src = src;
	rec->run = r->index;
	rec->cv = xstrdup(cv);
	rec->cell = xcalloc(f.ncell + 1, sizeof(*rec->cell));
	for (size_t i = 0; i < f.ncell; i++) {
		rec->cell[i].name = xstrdup(f.cell[i].name);
		rec->cell[i].value = xstrdup(f.cell[i].value);
	}
	rec->ncell = f.ncell;
	rec->status = r->status;
	rec->error = r->error && *r->error ? xstrdup(r->error) : NULL; /* "" is no reason */
	rec->stalled = r->status == IOM_RUN_OK && r->stall.stalled;
	if (rec->stalled && !rec->error)
		rec->error = xstrdup(r->stall.reason ? r->stall.reason : "the window stalled");
	/* not steady by warmup_max: left out of verdicts, like a stall, with why */
	if (r->status == IOM_RUN_OK && !rec->stalled && r->steady.asked && !r->steady.reached) {
		rec->stalled = true;
		free(rec->error);
		rec->error = xasprintf("steady state (%s) not reached in %.1f s of warm-up: spread "
				       "%.1f%%", r->steady.criterion ? r->steady.criterion : "?",
				       r->steady.warmup_s, r->steady.spread_pct);
	}
	rec->few_ios = t->ios < IOM_MIN_PCT_IOS;
	rec->has_hist = r->has_hist && (!r->load.paced ||
					r->load.response_hist[IOM_DIR_TOTAL].count == t->ios);
	if (rec->has_hist) {
		iom_hist_sparse_copy(&rec->svc, &r->hist[IOM_DIR_TOTAL]);
		iom_hist_sparse_copy(&rec->judged, r->load.paced ?
				     &r->load.response_hist[IOM_DIR_TOTAL] : &r->hist[IOM_DIR_TOTAL]);
	}
	rec->v[IOM_METRIC_IOPS] = t->iops;
	rec->v[IOM_METRIC_MB_S] = t->mb_s;
	rec->v[IOM_METRIC_LAT_MEAN] = t->lat.mean;
	rec->v[IOM_METRIC_LAT_P99] = (double)t->lat.pct[iom_percentile_index(99)];
	/* the system's CPU per I/O (all CPUs: the driver's interrupts too); the process's in the
	 * runs of versions that did not record it */
	rec->v[IOM_METRIC_CPU_PER_IO] = r->cpu.system_us_per_io > 0 ? r->cpu.system_us_per_io :
					r->cpu.us_per_io;
	/* the CPUs' busy % (all CPUs, averaged); the process's CPUs' in older runs */
	rec->v[IOM_METRIC_CPU_BUSY] = r->cpu.system_busy_pct > 0 ? r->cpu.system_busy_pct :
				      r->cpu.busy_pct;
	rec->x[IOM_X_READ_MB_S] = r->dir[IOM_DIR_READ].mb_s;
	rec->x[IOM_X_WRITE_MB_S] = r->dir[IOM_DIR_WRITE].mb_s;
	rec->x[IOM_X_READ_IOPS] = r->dir[IOM_DIR_READ].iops;
	rec->x[IOM_X_WRITE_IOPS] = r->dir[IOM_DIR_WRITE].iops;
	for (int i = 0; i < IOM_NPCT; i++)
		rec->x[IOM_X_PCT + i] = (double)t->lat.pct[i];
	/* The offered load: a paced run is judged on its response time, from each
	 * I/O's due time, what the application waits; its service time stays in the figures. */
	rec->x[IOM_X_SVC_MEAN] = t->lat.mean;
	rec->x[IOM_X_SVC_P99] = (double)t->lat.pct[iom_percentile_index(99)];
	rec->x[IOM_X_RESP_MEAN] = rec->x[IOM_X_SVC_MEAN];
	rec->x[IOM_X_RESP_P99] = rec->x[IOM_X_SVC_P99];
	rec->x[IOM_X_OFFERED] = 0;
	rec->x[IOM_X_HELD] = 1;
	rec->x[IOM_X_DISK_WRITES] = r->disk.have ? (double)r->disk.writes : NAN;
	rec->x[IOM_X_DISK_FLUSHES] = r->disk.have && r->disk.has_flushes ? (double)r->disk.flushes
									  : NAN;
	rec->x[IOM_X_WCACHE_BACK] = !r->disk.have || !r->disk.write_cache[0] ? NAN :
				    strcmp(r->disk.write_cache, "write back") == 0;
	rec->x[IOM_X_FUA] = r->disk.have && r->disk.fua >= 0 ? r->disk.fua : NAN;
	rec->x[IOM_X_OTHER_CPU] = r->cpu.ncpu ? r->cpu.other_pct : NAN;
	if (r->load.paced) {
		const struct iom_lat *rt = &r->load.response[IOM_DIR_TOTAL];

		rec->x[IOM_X_OFFERED] = r->load.offered_iops;
		rec->x[IOM_X_HELD] = r->load.held;
		rec->x[IOM_X_RESP_MEAN] = rt->mean;
		rec->x[IOM_X_RESP_P99] = (double)rt->pct[iom_percentile_index(99)];
		rec->v[IOM_METRIC_LAT_MEAN] = rec->x[IOM_X_RESP_MEAN];
		rec->v[IOM_METRIC_LAT_P99] = rec->x[IOM_X_RESP_P99];
	}
	if (r->nhosts) { /* its rows beside the aggregate (report_hosts.c) */
		struct iom_report_hrun *h = xcalloc(1, sizeof(*h));
		const char *tl = iom_result_cell_get(&f, "target");

		h->src = src;
		h->run = r->index;
		h->status = r->status;
		h->stonewalled = r->stonewalled;
		h->iops = t->iops;
		h->mb_s = t->mb_s;
		h->lat_mean_ns = t->lat.mean;
		h->lat_p99_ns = (double)t->lat.pct[iom_percentile_index(99)];
		h->cpu_s = r->cpu.proc_user_s + r->cpu.proc_sys_s;
		h->target = tl ? xstrdup(tl) : NULL;
		h->rows = xcalloc(r->nhosts, sizeof(*h->rows));
		memcpy(h->rows, r->hosts, r->nhosts * sizeof(*h->rows));
		h->nrows = r->nhosts;
		rec->hrun = h;
	}
out:
	iom_result_file_release(&f);
	free(path);
	return ret;
}

/* The dimensions (union over the runs, first appearance first) and every record's cell. */
static void build_cells(struct iom_report *m, struct rec *recs, size_t nrecs)
{
	struct cell_index ix = { 0 };

	for (size_t i = 0; i < nrecs; i++)
		for (size_t j = 0; j < recs[i].ncell; j++)
			if (strcmp(recs[i].cell[j].name, m->compare) != 0)
				find_or_add(&m->dims, &m->ndims, recs[i].cell[j].name);
	for (size_t i = 0; i < nrecs; i++) {
		struct iom_strbuf key = { 0 };
		size_t *slot;

		for (size_t d = 0; d < m->ndims; d++) {
			const char *v = rec_get(&recs[i], m->dims[d]);

			iom_strbuf_str(&key, v ? v : "");
			iom_strbuf_add(&key, "\x1f", 1);
		}
		iom_strbuf_get(&key);
		if (2 * (m->ncells + 1) > ix.cap)
			index_grow(&ix);
		slot = index_find(&ix, key.s);
		if (!*slot) {
			struct iom_report_cell *c;

			m->cells = xrealloc(m->cells, (m->ncells + 1) * sizeof(*m->cells));
			ix.key = xrealloc(ix.key, (m->ncells + 1) * sizeof(*ix.key));
			ix.key[m->ncells] = key.s;
			key.s = NULL;
			c = &m->cells[m->ncells];
			memset(c, 0, sizeof(*c));
			c->value = xcalloc(m->ndims + 1, sizeof(*c->value));
			for (size_t d = 0; d < m->ndims; d++) {
				const char *v = rec_get(&recs[i], m->dims[d]);

				c->value[d] = xstrdup(v ? v : "");
			}
			c->in_src = xcalloc(m->nsrc, sizeof(*c->in_src));
			*slot = ++m->ncells;
		}
		free(key.s);
		recs[i].cellx = *slot - 1;
		m->cells[recs[i].cellx].in_src[recs[i].src] = true;
	}
	for (size_t c = 0; c < m->ncells; c++)
		free(ix.key[c]);
	free(ix.key);
	free(ix.slot);
}

/*
 * Names the compared values: a raw value that measured one cell in two directories is
 * qualified "value@source" everywhere; others keep their name.
 */
static void name_compared(struct iom_report *m, struct rec *recs, size_t nrecs)
{
	char **raw = NULL;
	size_t nraw = 0, *first;
	bool *qualify;

	for (size_t i = 0; i < nrecs; i++)
		recs[i].raw = find_or_add(&raw, &nraw, recs[i].cv);
	first = xcalloc(m->ncells * nraw + 1, sizeof(*first));
	qualify = xcalloc(nraw + 1, sizeof(*qualify));
	for (size_t i = 0; i < nrecs; i++) {
		size_t *f = &first[recs[i].cellx * nraw + recs[i].raw];

		if (!*f)
			*f = recs[i].src + 1;
		else if (*f != recs[i].src + 1)
			qualify[recs[i].raw] = true;
	}
	for (size_t i = 0; i < nrecs; i++) {
		char *name = qualify[recs[i].raw] ?
				     xasprintf("%s@%s", recs[i].cv, m->src[recs[i].src].name) :
				     xstrdup(recs[i].cv);

		recs[i].compared = find_or_add(&m->compared, &m->ncompared, name);
		m->qualified |= qualify[recs[i].raw];
		free(name);
	}
	for (size_t i = 0; i < nraw; i++)
		free(raw[i]);
	free(raw);
	free(first);
	free(qualify);
}

/* Each (cell, compared value)'s repetitions pooled: their kept histograms merged (one
 * scratch histogram, cell after cell), the percentiles read off the merged buckets. */
static void pool_reps(struct iom_report *m, const struct rec *recs, size_t nrecs)
{
	struct iom_hist *h = xmalloc(sizeof(*h)), *j = xmalloc(sizeof(*j));
	size_t *first = xcalloc(m->ncells * m->ncompared + 1, sizeof(*first));
	size_t *next = xcalloc(nrecs + 1, sizeof(*next)), *last;

	/* the records of each (cell, value), chained in run order (index + 1; 0 ends) */
	last = xcalloc(m->ncells * m->ncompared + 1, sizeof(*last));
	for (size_t i = 0; i < nrecs; i++) {
		size_t k = recs[i].cellx * m->ncompared + recs[i].compared;

		if (recs[i].status != IOM_RUN_OK || recs[i].stalled || !recs[i].has_hist)
			continue;
		if (last[k])
			next[last[k] - 1] = i + 1;
		else
			first[k] = i + 1;
		last[k] = i + 1;
	}
	for (size_t k = 0; k < m->ncells * m->ncompared; k++) {
		struct iom_report_reps *r = &m->cells[k / m->ncompared].by[k % m->ncompared];

		if (!first[k])
			continue;
		iom_hist_init(h);
		iom_hist_init(j);
		for (size_t i = first[k]; i; i = next[i - 1]) {
			iom_hist_sparse_merge(h, &recs[i - 1].svc);
			iom_hist_sparse_merge(j, &recs[i - 1].judged);
			r->npooled++;
		}
		iom_hist_sparse_of(&r->pooled, h);
		for (int p = 0; p < IOM_NPCT; p++)
			r->pooled_pct[p] = (double)iom_hist_percentile(h, iom_percentiles[p]);
		r->pooled_p99 = (double)iom_hist_percentile(j, 99);
	}
	free(first);
	free(next);
	free(last);
	free(h);
	free(j);
}

/* Builds the per-(cell, compared value) lists from the runs read, in run order. */
static void build_reps(struct iom_report *m, struct rec *recs, size_t nrecs)
{
	for (size_t c = 0; c < m->ncells; c++)
		m->cells[c].by = xcalloc(m->ncompared + 1, sizeof(*m->cells[c].by));
	for (size_t i = 0; i < nrecs; i++) {
		struct iom_report_reps *r = &m->cells[recs[i].cellx].by[recs[i].compared];

		if (recs[i].status == IOM_RUN_OK && !recs[i].stalled)
			r->n++;
	}
	for (size_t c = 0; c < m->ncells; c++) {
		for (size_t v = 0; v < m->ncompared; v++) {
			struct iom_report_reps *r = &m->cells[c].by[v];

			r->run = xcalloc(r->n + 1, sizeof(*r->run));
			r->src = xcalloc(r->n + 1, sizeof(*r->src));
			for (int k = 0; k < IOM_NMETRIC; k++)
				r->v[k] = xcalloc(r->n + 1, sizeof(*r->v[k]));
			for (int k = 0; k < IOM_NX; k++)
				r->x[k] = xcalloc(r->n + 1, sizeof(*r->x[k]));
			r->n = 0;
		}
	}
	m->excluded = xcalloc(nrecs + 1, sizeof(*m->excluded));
	for (size_t i = 0; i < nrecs; i++) {
		struct iom_report_reps *r = &m->cells[recs[i].cellx].by[recs[i].compared];

		m->src[recs[i].src].nruns++;
		if (recs[i].status == IOM_RUN_OK && !recs[i].stalled) {
			r->run[r->n] = recs[i].run;
			r->src[r->n] = recs[i].src;
			for (int k = 0; k < IOM_NMETRIC; k++)
				r->v[k][r->n] = recs[i].v[k];
			for (int k = 0; k < IOM_NX; k++)
				r->x[k][r->n] = recs[i].x[k];
			r->few_ios += recs[i].few_ios;
			r->n++;
			m->nok++;
			m->src[recs[i].src].nok++;
			continue;
		}
		if (recs[i].stalled)
			r->stalled++;
		else if (recs[i].status == IOM_RUN_FAILED)
			r->failed++;
		else
			r->interrupted++;
		m->excluded[m->nexcluded++] = (struct iom_report_excluded){
			.run = recs[i].run, .src = recs[i].src, .cell = recs[i].cellx,
			.compared = recs[i].compared, .status = recs[i].status,
			.stalled = recs[i].stalled, .error = recs[i].error,
		};
		recs[i].error = NULL;
	}
	pool_reps(m, recs, nrecs);
	/* the runs of many hosts, with their cell and compared value */
	for (size_t i = 0; i < nrecs; i++) {
		if (!recs[i].hrun)
			continue;
		m->hruns = xrealloc(m->hruns, (m->nhruns + 1) * sizeof(*m->hruns));
		m->hruns[m->nhruns] = *recs[i].hrun;
		m->hruns[m->nhruns].cell = recs[i].cellx;
		m->hruns[m->nhruns].compared = recs[i].compared;
		m->nhruns++;
		free(recs[i].hrun);
		recs[i].hrun = NULL;
	}
	m->varies = xcalloc(m->ndims + 1, sizeof(*m->varies));
	for (size_t d = 0; d < m->ndims; d++)
		for (size_t c = 1; c < m->ncells && !m->varies[d]; c++)
			m->varies[d] = strcmp(m->cells[c].value[d], m->cells[0].value[d]) != 0;
}

/* The last path component of dir without trailing slashes ("/r/boot1/" → "boot1"). */
static char *base_name(const char *dir)
{
	size_t end = strlen(dir), start;
	char *s;

	while (end > 1 && dir[end - 1] == '/')
		end--;
	start = end;
	while (start > 0 && dir[start - 1] != '/')
		start--;
	if (start == end)
		return xstrdup(dir);
	s = xmalloc(end - start + 1);
	memcpy(s, dir + start, end - start);
	s[end - start] = '\0';
	return s;
}

static int open_sources(struct iom_report *m, const char *const *dirs, size_t n, char *err,
			size_t errlen)
{
	m->src = xcalloc(n + 1, sizeof(*m->src));
	for (size_t i = 0; i < n; i++) {
		struct iom_report_source *s = &m->src[i];
		char *path;
		int ret;

		for (size_t j = 0; j < i; j++)
			if (strcmp(dirs[j], dirs[i]) == 0)
				return iom_err(err, errlen, EINVAL, "'%s' is given twice", dirs[i]);
		s->dir = xstrdup(dirs[i]);
		s->name = base_name(dirs[i]);
		m->nsrc = i + 1;
		path = xasprintf("%s/study.json", dirs[i]);
		if (access(path, F_OK) < 0 && errno == ENOENT) {
			free(path);
			return iom_err(err, errlen, ENOENT, "not a results directory: %s (no "
				       "study.json)", dirs[i]);
		}
		ret = iom_study_read(path, &s->study, err, errlen);
		free(path);
		if (ret < 0)
			return ret;
	}
	/* Two directories of the same base name are named by their paths as given. */
	{
		bool *dup = xcalloc(n + 1, sizeof(*dup));

		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++)
				if (strcmp(m->src[i].name, m->src[j].name) == 0)
					dup[i] = dup[j] = true;
		for (size_t i = 0; i < n; i++) {
			if (dup[i]) {
				free(m->src[i].name);
				m->src[i].name = xstrdup(m->src[i].dir);
			}
		}
		free(dup);
	}
	return 0;
}

/* Whether every target label of every source is a target of every other (and there are
 * targets). */
static bool same_labels(const struct iom_report *m)
{
	for (size_t i = 0; i < m->nsrc; i++) {
		const struct iom_study_info *s = &m->src[i].study;

		if (!s->ntargets)
			return false;
		for (size_t t = 0; t < s->ntargets; t++)
			for (size_t j = 0; j < m->nsrc; j++)
				if (!s->targets[t].label ||
				    !iom_study_target_find(&m->src[j].study, s->targets[t].label))
					return false;
	}
	return true;
}

/* The compared dimension: as asked ("directory" is "study"), else study against study when the
 * studies differ in their setup (controller, driver, kernel, scheduler, filesystem) and every
 * label is in every study, else the one every study names, else the target. */
static const char *default_compare(const struct iom_report *m)
{
	const char *c = m->nsrc ? m->src[0].study.compare : NULL;

	if (m->nsrc > 1 && same_labels(m)) {
		char *changes = iom_report_setup_changes(m);
		bool differ = changes != NULL;

		free(changes);
		if (differ)
			return IOM_REPORT_COMPARE_STUDY;
	}

	for (size_t i = 1; c && i < m->nsrc; i++)
		if (!m->src[i].study.compare || strcmp(m->src[i].study.compare, c) != 0)
			c = NULL;
	return c ? c : "target";
}

static void add_damaged(struct iom_report *m, size_t src, uint32_t run, const char *why)
{
	m->damaged = xrealloc(m->damaged, (m->ndamaged + 1) * sizeof(*m->damaged));
	m->damaged[m->ndamaged++] = (struct iom_report_damaged){ .src = src, .run = run,
								 .why = xstrdup(why) };
}

/*
 * The runs source src's journal counts finished (done or failed) whose file is not among
 * idx[0..n) (ascending): they are missing. A directory without a readable journal says nothing
 * of them (the report reads what runs/ holds).
 */
static void find_missing(struct iom_report *m, size_t src, const uint32_t *idx, size_t n)
{
	const char *dir = m->src[src].dir;
	struct iom_journal_state st = { 0 };
	char e[IOM_ERRLEN], *path = xasprintf("%s/journal", dir);
	size_t nruns = m->src[src].study.nruns, k = 0;

	/* a damaged file is among idx: it was named as damaged */
	if (nruns && access(path, F_OK) == 0 &&
	    iom_journal_replay(dir, nruns, &st, e, sizeof(e)) == 0) {
		for (size_t r = 1; r <= nruns; r++) {
			while (k < n && idx[k] < r)
				k++;
			if (st.run[r] != IOM_RS_PENDING && st.run[r] != IOM_RS_SKIPPED &&
			    !(k < n && idx[k] == r))
				add_damaged(m, src, (uint32_t)r, "result file missing");
		}
	}
	iom_journal_state_release(&st);
	free(path);
}

int iom_report_load_many(const char *const *dirs, size_t n, const char *compare,
			 struct iom_report *m, char *err, size_t errlen)
{
	struct rec *recs = NULL;
	size_t nrecs = 0, cap = 0;
	int ret;

	memset(m, 0, sizeof(*m));
	if (n == 0)
		return iom_err(err, errlen, EINVAL, "no results directory to report on");
	ret = open_sources(m, dirs, n, err, errlen);
	if (ret < 0)
		return ret;
	if (compare && strcmp(compare, "directory") == 0)
		compare = IOM_REPORT_COMPARE_STUDY;
	m->compare = xstrdup(compare ? compare : default_compare(m));
	m->opts = m->src[0].study.report;
	m->settle_cap = m->src[0].study.timing.repeat_max; /* 0 is the default cap */
	if (!(m->opts.alpha > 0)) /* a study.json without a report section */
		m->opts = (struct iom_report_opts){ IOM_REPORT_ALPHA, IOM_REPORT_MIN_EFFECT_PCT,
						    IOM_REPORT_MAX_CV_PCT, IOM_CORRECTION_HOLM,
						    IOM_METRICS_DEFAULT };
	for (size_t s = 0; s < n && ret == 0; s++) {
		uint32_t *idx = NULL;
		size_t nidx = 0;

		ret = iom_result_list(m->src[s].dir, &idx, &nidx, err, errlen);
		if (ret == 0 && nrecs + nidx + 1 > cap) {
			cap = nrecs + nidx + 1;
			recs = xrealloc(recs, cap * sizeof(*recs));
		}
		for (size_t i = 0; i < nidx && ret == 0; i++) {
			bool damaged;

			memset(&recs[nrecs], 0, sizeof(recs[nrecs]));
			ret = read_rec(m, s, idx[i], &recs[nrecs], &damaged, err, errlen);
			if (ret == 0) {
				nrecs++;
			} else if (damaged) {
				rec_free(&recs[nrecs]);
				add_damaged(m, s, idx[i], err);
				ret = 0;
			}
		}
		if (ret == 0)
			find_missing(m, s, idx, nidx);
		free(idx);
	}
	m->nruns = nrecs;
	if (ret == 0) {
		build_cells(m, recs, nrecs);
		name_compared(m, recs, nrecs);
		build_reps(m, recs, nrecs);
		iom_report_decide(m);
	}
	for (size_t i = 0; i < nrecs; i++)
		rec_free(&recs[i]);
	free(recs);
	return ret;
}

int iom_report_load(const char *dir, const char *compare, struct iom_report *m, char *err,
		    size_t errlen)
{
	return iom_report_load_many(&dir, 1, compare, m, err, errlen);
}

void iom_report_release(struct iom_report *m)
{
	if (!m)
		return;
	for (size_t c = 0; c < m->ncells; c++) {
		struct iom_report_cell *cell = &m->cells[c];

		for (size_t d = 0; d < m->ndims; d++)
			free(cell->value[d]);
		free(cell->value);
		for (size_t v = 0; cell->by && v < m->ncompared; v++) {
			free(cell->by[v].run);
			free(cell->by[v].src);
			iom_hist_sparse_release(&cell->by[v].pooled);
			for (int k = 0; k < IOM_NMETRIC; k++)
				free(cell->by[v].v[k]);
			for (int k = 0; k < IOM_NX; k++)
				free(cell->by[v].x[k]);
		}
		free(cell->by);
		free(cell->in_src);
	}
	free(m->cells);
	for (size_t d = 0; d < m->ndims; d++)
		free(m->dims[d]);
	free(m->dims);
	free(m->varies);
	for (size_t v = 0; v < m->ncompared; v++)
		free(m->compared[v]);
	free(m->compared);
	for (size_t i = 0; i < m->nexcluded; i++)
		free(m->excluded[i].error);
	free(m->excluded);
	for (size_t i = 0; i < m->ndamaged; i++)
		free(m->damaged[i].why);
	free(m->damaged);
	free(m->compare);
	free(m->vd);
	free(m->p_raw);
	free(m->p_adj);
	free(m->tost_raw);
	free(m->tost_adj);
	for (size_t i = 0; i < m->nhruns; i++)
		iom_report_hrun_release(&m->hruns[i]);
	free(m->hruns);
	free(m->df_used);
	for (size_t i = 0; i < m->nsrc; i++) {
		free(m->src[i].dir);
		free(m->src[i].name);
		iom_study_info_release(&m->src[i].study);
	}
	free(m->src);
	memset(m, 0, sizeof(*m));
}

static int parse_opt(const char *name, const char *option, const char *text, double *out,
		     char *err, size_t errlen)
{
	const struct iom_key *k = iom_key_find(IOM_SEC_REPORT, name);
	char e[IOM_ERRLEN] = "";
	int ret;

	if (!text)
		return 0;
	if (!k)
		return iom_err(err, errlen, EINVAL, "report.%s is not a known key", name);
	ret = iom_key_parse_float(k, text, out, e, sizeof(e));
	if (ret < 0)
		return iom_err(err, errlen, -ret, "%s: %s", option, e);
	return 0;
}

int iom_report_set_opts(struct iom_report *m, const char *alpha, const char *min_effect,
			const char *max_cv, char *err, size_t errlen)
{
	struct iom_report_opts o = m->opts;
	int ret;

	ret = parse_opt("alpha", "--alpha", alpha, &o.alpha, err, errlen);
	if (ret == 0)
		ret = parse_opt("min_effect", "--min-effect", min_effect, &o.min_effect_pct, err,
				errlen);
	if (ret == 0)
		ret = parse_opt("max_cv", "--max-cv", max_cv, &o.max_cv_pct, err, errlen);
	if (ret == 0) {
		m->opts = o;
		if (m->vd)
			iom_report_decide(m);
	}
	return ret;
}

int iom_report_set_correction(struct iom_report *m, const char *text, char *err, size_t errlen)
{
	int c;

	if (!text)
		return 0;
	c = iom_correction_from_name(text);
	if (c < 0)
		return iom_err(err, errlen, EINVAL, "--correction: '%s' is not holm, bh or none",
			       text);
	m->opts.correction = (uint32_t)c;
	if (m->vd)
		iom_report_decide(m);
	return 0;
}

static bool has_run(const struct iom_report *m, size_t src, uint32_t index)
{
	for (size_t c = 0; c < m->ncells; c++)
		for (size_t v = 0; v < m->ncompared; v++)
			for (size_t i = 0; i < m->cells[c].by[v].n; i++)
				if (m->cells[c].by[v].run[i] == index && m->cells[c].by[v].src[i] == src)
					return true;
	for (size_t i = 0; i < m->nexcluded; i++)
		if (m->excluded[i].run == index && m->excluded[i].src == src)
			return true;
	return false;
}

int iom_report_find_run(const struct iom_report *m, const char *spec, size_t *src,
			uint32_t *index, char *err, size_t errlen)
{
	const char *colon = strrchr(spec, ':'), *num = colon ? colon + 1 : spec;
	char *end;
	unsigned long long n;

	*src = 0;
	if (colon) {
		size_t dl = (size_t)(colon - spec);
		bool found = false;

		for (size_t i = 0; i < m->nsrc && !found; i++) {
			if ((strlen(m->src[i].dir) == dl && strncmp(m->src[i].dir, spec, dl) == 0) ||
			    (strlen(m->src[i].name) == dl && strncmp(m->src[i].name, spec, dl) == 0)) {
				*src = i;
				found = true;
			}
		}
		if (!found)
			return iom_err(err, errlen, EINVAL, "run '%s': '%.*s' is not one of the "
				       "directories reported on", spec, (int)dl, spec);
	}
	errno = 0;
	n = strtoull(num, &end, 10);
	if (!(*num >= '0' && *num <= '9') || *end || errno || n < 1 || n > UINT32_MAX)
		return iom_err(err, errlen, EINVAL, "run '%s' is not a run number (N or DIR:N)",
			       spec);
	*index = (uint32_t)n;
	if (!has_run(m, *src, *index))
		return iom_err(err, errlen, ENOENT, "no run %s in '%s'", num, m->src[*src].dir);
	return 0;
}

char *iom_report_damaged_text(const struct iom_report *m, const struct iom_report_damaged *d)
{
	const char *dir = m->src[d->src].dir;
	bool missing = strcmp(d->why, "result file missing") == 0;

	return xasprintf("run %" PRIu32 "%s%s: %s; `iomatrix resume %s` %s", d->run,
			 m->nsrc > 1 ? " of " : "", m->nsrc > 1 ? m->src[d->src].name : "", d->why,
			 dir, missing ? "redoes it" : "sets the file aside and redoes the run");
}

int iom_report_open(const char *dir, const char *compare, struct iom_report **out, char *err,
		    size_t errlen)
{
	struct iom_report *m = xcalloc(1, sizeof(*m));
	int ret = iom_report_load(dir, compare, m, err, errlen);

	if (ret < 0) {
		iom_report_free(m);
		m = NULL;
	}
	*out = m;
	return ret;
}

void iom_report_free(struct iom_report *m)
{
	if (!m)
		return;
	iom_report_release(m);
	free(m);
}
