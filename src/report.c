/*
 * report — the model of one or more results directories, the statistics that decide winners,
 * the text report and the entry points. Promises are in report.h.
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
 * their reasons, never averaged in.
 *
 * Statistics (per (cell, metric)): the best and the runner-up by mean; Welch's t-test between
 * them; a win needs p < alpha and a margin above min_effect, the margin being the difference
 * relative to the worse of the two (so "+20.8 %" more IOPS and "-18.2 %" less latency read the
 * same way, and a loss is exactly the mirror of a win). A value that is not the best "lost"
 * when it is significantly and materially worse than the best, else it "tied". One repetition
 * on either side of a test gives "single-run": no significance is claimed.
 *
 * The text report is made for a storage engineer reading a terminal: one row per cell named in
 * the compact words of the trade ("4K rnd rd70 qd32"), one column group per compared value,
 * 4 significant figures with the unit in the text (12.35K IOPS, 70.9µs); a winner marked '*'
 * (bold on a terminal) with its margin beneath, "tie" or "(+3.1%)" (single run) otherwise;
 * column groups that do not fit the width continue in a further block. The closing verdict
 * counts per compared value the cells won, tied and lost with the median margin.
 *
 * The DiskSpd-style report of a single run is report_run.c's.
 */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "journal.h"
#include "keys.h"
#include "stats.h"
#include "strbuf.h"
#include "units.h"
#include "util.h"

const struct iom_metric_info iom_metrics[IOM_NMETRIC] = {
	[IOM_METRIC_IOPS] = { "iops", "IOPS", true },
	[IOM_METRIC_MB_S] = { "mb_s", "MB/s", true },
	[IOM_METRIC_LAT_MEAN] = { "lat_mean_ns", "lat avg", false },
	[IOM_METRIC_LAT_P99] = { "lat_p99_ns", "lat p99", false },
	[IOM_METRIC_CPU_PER_IO] = { "cpu_us_per_io", "CPU/IO", false },
};

#define DEFAULT_WIDTH 100
#define MAX_EXCLUDED_SHOWN 20
#define MAX_NOISY_SHOWN 20
#define MAX_MISSING_SHOWN 12
#define MAX_SUGGEST 9999
#define POWER_Z 0.8416212335729143 /* the normal quantile of 0.8: 80 % power */

/* ---- lines built before they are printed (strbuf.h) ---- */

/* Display width of UTF-8 text: continuation bytes take no column. */
static int dispw(const char *s)
{
	int w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			w++;
	return w;
}

/* Appends s padded to w columns (right-aligned unless left), bold when asked. */
static void sb_cell(struct iom_strbuf *b, const char *s, int w, bool left, bool bold)
{
	int pad = w - dispw(s);

	if (!left)
		iom_strbuf_spaces(b, pad);
	if (bold)
		iom_strbuf_str(b, "\033[1m");
	iom_strbuf_str(b, s);
	if (bold)
		iom_strbuf_str(b, "\033[0m");
	if (left)
		iom_strbuf_spaces(b, pad);
}

/* Prints the line without trailing spaces and empties b. */
static void sb_line(struct iom_strbuf *b, FILE *out)
{
	while (b->len && b->s[b->len - 1] == ' ')
		b->s[--b->len] = '\0';
	fprintf(out, "%s\n", b->s ? b->s : "");
	iom_strbuf_reset(b);
}

void iom_report_fmt_value(char *buf, size_t len, enum iom_metric k, double v)
{
	switch (k) {
	case IOM_METRIC_IOPS:
		iom_count_format(v, buf, len);
		break;
	case IOM_METRIC_MB_S:
		iom_sig_format(v, 4, buf, len);
		break;
	case IOM_METRIC_LAT_MEAN:
	case IOM_METRIC_LAT_P99:
		iom_lat_format(v, buf, len);
		break;
	default:
		iom_sig_format(v, 3, buf, len);
		break;
	}
}

void iom_report_fmt_margin(char *buf, size_t len, enum iom_metric k, double pct)
{
	char sign = iom_metrics[k].higher_is_better ? '+' : '-';

	if (pct < 0) {
		sign = sign == '+' ? '-' : '+';
		pct = -pct;
	}
	if (isnan(pct))
		snprintf(buf, len, "-");
	else if (!isfinite(pct) || pct >= 9999.5)
		snprintf(buf, len, "%c>9999%%", sign);
	else if (pct >= 99.95)
		snprintf(buf, len, "%c%.0f%%", sign, pct);
	else
		snprintf(buf, len, "%c%.1f%%", sign, pct);
}

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
	double v[IOM_NMETRIC];
	double x[IOM_NX];
	char *error;
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
	cv = iom_result_cell_get(&f, m->compare);
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
	rec->error = r->error ? xstrdup(r->error) : NULL;
	rec->stalled = r->status == IOM_RUN_OK && r->stall.stalled;
	if (rec->stalled && !rec->error)
		rec->error = xstrdup(r->stall.reason ? r->stall.reason : "the window stalled");
	rec->v[IOM_METRIC_IOPS] = t->iops;
	rec->v[IOM_METRIC_MB_S] = t->mb_s;
	rec->v[IOM_METRIC_LAT_MEAN] = t->lat.mean;
	rec->v[IOM_METRIC_LAT_P99] = (double)t->lat.pct[iom_percentile_index(99)];
	rec->v[IOM_METRIC_CPU_PER_IO] = r->cpu.us_per_io;
	rec->x[IOM_X_READ_MB_S] = r->dir[IOM_DIR_READ].mb_s;
	rec->x[IOM_X_WRITE_MB_S] = r->dir[IOM_DIR_WRITE].mb_s;
	rec->x[IOM_X_READ_IOPS] = r->dir[IOM_DIR_READ].iops;
	rec->x[IOM_X_WRITE_IOPS] = r->dir[IOM_DIR_WRITE].iops;
	for (int i = 0; i < IOM_NPCT; i++)
		rec->x[IOM_X_PCT + i] = (double)t->lat.pct[i];
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

/* The compared dimension: as asked, else the one every study names, else the target. */
static const char *default_compare(const struct iom_report *m)
{
	const char *c = m->nsrc ? m->src[0].study.compare : NULL;

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
			if (st.run[r] != IOM_RS_PENDING && !(k < n && idx[k] == r))
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
	m->compare = xstrdup(compare ? compare : default_compare(m));
	m->opts = m->src[0].study.report;
	if (!(m->opts.alpha > 0)) /* a study.json without a report section */
		m->opts = (struct iom_report_opts){ IOM_REPORT_ALPHA, IOM_REPORT_MIN_EFFECT_PCT,
						    IOM_REPORT_MAX_CV_PCT };
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
	if (ret == 0)
		m->opts = o;
	return ret;
}

/* ---- statistics ---- */

double iom_report_mean(const struct iom_report_reps *r, enum iom_metric k)
{
	return r->n ? iom_stats_mean(r->v[k], r->n) : NAN;
}

void iom_report_summary(const struct iom_report_reps *r, enum iom_metric k,
			struct iom_stats_summary *s)
{
	iom_stats_summarize(r->v[k], r->n, s);
}

static bool better(enum iom_metric k, double a, double b)
{
	return iom_metrics[k].higher_is_better ? a > b : a < b;
}

/* |a − b| relative to the worse of the two, in %. */
static double rel_margin(enum iom_metric k, double a, double b)
{
	double worse = better(k, a, b) ? b : a;

	if (a == b)
		return 0;
	if (worse == 0)
		return INFINITY;
	return fabs(a - b) / fabs(worse) * 100;
}

static const char *const verdict_names[] = {
	[IOM_VERDICT_NONE] = "none",
	[IOM_VERDICT_WIN] = "win",
	[IOM_VERDICT_TIE] = "tie",
	[IOM_VERDICT_SINGLE_RUN] = "single-run",
};

const char *iom_verdict_name(enum iom_verdict_kind k)
{
	return (size_t)k < IOM_ARRAY_SIZE(verdict_names) ? verdict_names[k] : "?";
}

static const char *const outcome_names[] = {
	[IOM_OUTCOME_ABSENT] = "absent",
	[IOM_OUTCOME_WON] = "won",
	[IOM_OUTCOME_TIED] = "tied",
	[IOM_OUTCOME_LOST] = "lost",
	[IOM_OUTCOME_SINGLE_RUN] = "single-run",
};

const char *iom_outcome_name(enum iom_outcome o)
{
	return (size_t)o < IOM_ARRAY_SIZE(outcome_names) ? outcome_names[o] : "?";
}

/* Welch's p between two lists of repetitions (both with n ≥ 2). */
static double welch_p(const struct iom_report_reps *a, const struct iom_report_reps *b,
		      enum iom_metric k)
{
	struct iom_welch w;

	if (iom_stats_welch(a->v[k], a->n, b->v[k], b->n, &w) < 0)
		return NAN;
	return w.p;
}

void iom_report_verdict(const struct iom_report *m, size_t cell, enum iom_metric k,
			struct iom_report_verdict *v)
{
	const struct iom_report_cell *c = &m->cells[cell];
	double bm = NAN, rm = NAN;
	int best = -1, second = -1;

	memset(v, 0, sizeof(*v));
	v->best = v->winner = v->runner_up = -1;
	v->margin_pct = v->p_value = NAN;
	for (size_t i = 0; i < m->ncompared; i++) {
		double x = iom_report_mean(&c->by[i], k);

		if (c->by[i].n >= 2)
			v->max_cv_pct = IOM_MAX(v->max_cv_pct, iom_stats_cv(c->by[i].v[k],
									   c->by[i].n) * 100);
		if (!isfinite(x))
			continue;
		if (best < 0 || better(k, x, bm)) {
			second = best;
			rm = bm;
			best = (int)i;
			bm = x;
		} else if (second < 0 || better(k, x, rm)) {
			second = (int)i;
			rm = x;
		}
	}
	v->noisy = v->max_cv_pct > m->opts.max_cv_pct;
	v->best = best;
	if (second < 0)
		return;
	v->runner_up = second;
	v->margin_pct = rel_margin(k, bm, rm);
	if (c->by[best].n < 2 || c->by[second].n < 2) {
		v->kind = IOM_VERDICT_SINGLE_RUN;
		return;
	}
	v->p_value = welch_p(&c->by[best], &c->by[second], k);
	v->tie_by_p = !(v->p_value < m->opts.alpha);
	v->tie_by_effect = !(v->margin_pct > m->opts.min_effect_pct);
	if (!v->tie_by_p && !v->tie_by_effect) {
		v->kind = IOM_VERDICT_WIN;
		v->winner = best;
	} else {
		v->kind = IOM_VERDICT_TIE;
	}
}

enum iom_outcome iom_report_outcome(const struct iom_report *m, size_t cell, enum iom_metric k,
				    size_t cv, double *margin_pct)
{
	const struct iom_report_cell *c = &m->cells[cell];
	const struct iom_report_reps *me = &c->by[cv], *b;
	struct iom_report_verdict v;
	double mine = iom_report_mean(me, k), om = NAN;
	int other = -1;

	if (margin_pct)
		*margin_pct = NAN;
	if (me->n == 0)
		return IOM_OUTCOME_ABSENT;
	for (size_t i = 0; i < m->ncompared; i++) {
		double x = iom_report_mean(&c->by[i], k);

		if (i == cv || !isfinite(x))
			continue;
		if (other < 0 || better(k, x, om)) {
			other = (int)i;
			om = x;
		}
	}
	if (other < 0)
		return IOM_OUTCOME_ABSENT;
	if (margin_pct)
		*margin_pct = (better(k, mine, om) ? 1 : -1) * rel_margin(k, mine, om);
	iom_report_verdict(m, cell, k, &v);
	if (v.best == (int)cv) {
		switch (v.kind) {
		case IOM_VERDICT_WIN:
			return IOM_OUTCOME_WON;
		case IOM_VERDICT_TIE:
			return IOM_OUTCOME_TIED;
		default:
			return IOM_OUTCOME_SINGLE_RUN;
		}
	}
	b = &c->by[v.best];
	if (me->n < 2 || b->n < 2)
		return IOM_OUTCOME_SINGLE_RUN;
	if (welch_p(me, b, k) < m->opts.alpha &&
	    rel_margin(k, iom_report_mean(b, k), mine) > m->opts.min_effect_pct)
		return IOM_OUTCOME_LOST;
	return IOM_OUTCOME_TIED;
}

void iom_report_tally(const struct iom_report *m, enum iom_metric k, size_t cv,
		      struct iom_report_tally *t)
{
	double *margins = xcalloc(m->ncells + 1, sizeof(*margins));

	memset(t, 0, sizeof(*t));
	for (size_t c = 0; c < m->ncells; c++) {
		double mg;

		switch (iom_report_outcome(m, c, k, cv, &mg)) {
		case IOM_OUTCOME_WON:
			t->won++;
			break;
		case IOM_OUTCOME_TIED:
			t->tied++;
			break;
		case IOM_OUTCOME_LOST:
			t->lost++;
			break;
		case IOM_OUTCOME_SINGLE_RUN:
			t->single_run++;
			break;
		default:
			continue;
		}
		/* An infinite margin (against zero) still orders correctly for the median. */
		if (!isnan(mg))
			margins[t->nmargin++] = mg;
	}
	t->median_margin_pct = t->nmargin ? iom_stats_median(margins, t->nmargin) : NAN;
	free(margins);
}

/*
 * Repetitions per side for a two-sided Welch test at alpha to detect a difference of d % with
 * 80 % power when the CV is cv %: 2 (z_{1−α/2} + z_{0.8})² (cv / d)², the normal
 * approximation. d is the larger of the observed margin and min_effect (at least 0.5 %).
 */
static unsigned suggest_reps(const struct iom_report *m, double cv_pct, double margin_pct)
{
	double d = IOM_MAX(isfinite(margin_pct) ? margin_pct : 0, m->opts.min_effect_pct);
	double za = iom_stats_t_quantile(1 - m->opts.alpha / 2, 1e9), n;

	if (d < 0.5)
		d = 0.5;
	n = ceil(2 * (za + POWER_Z) * (za + POWER_Z) * (cv_pct / d) * (cv_pct / d));
	if (!(n < MAX_SUGGEST))
		return MAX_SUGGEST;
	return n < 2 ? 2 : (unsigned)n;
}

size_t iom_report_noisy_list(const struct iom_report *m, struct iom_report_noisy **out)
{
	size_t n = 0, cap = 0;

	*out = NULL;
	for (size_t c = 0; c < m->ncells; c++) {
		for (int k = 0; k < IOM_NMETRIC; k++) {
			struct iom_report_verdict vd;

			iom_report_verdict(m, c, (enum iom_metric)k, &vd);
			if (!vd.noisy)
				continue;
			for (size_t v = 0; v < m->ncompared; v++) {
				const struct iom_report_reps *r = &m->cells[c].by[v];
				double cv;

				if (r->n < 2)
					continue;
				cv = iom_stats_cv(r->v[k], r->n) * 100;
				if (!(cv > m->opts.max_cv_pct))
					continue;
				if (n == cap) {
					cap = cap ? 2 * cap : 16;
					*out = xrealloc(*out, cap * sizeof(**out));
				}
				(*out)[n] = (struct iom_report_noisy){
					.cell = c, .compared = v, .metric = (enum iom_metric)k,
					.n = r->n, .cv_pct = cv,
					.suggest = suggest_reps(m, cv, vd.margin_pct),
				};
				n++;
			}
		}
	}
	return n;
}

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
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	fact_add(fs, what, s);
	free(s);
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
		bool all = l != NULL;
		char *prefix;

		for (size_t j = 0; all && j < m->nsrc; j++)
			all = has_label(&m->src[j].study, l);
		if (!all)
			continue;
		prefix = m->nsrc > 1 || s->ntargets > 1 ? xasprintf("%s ", l) : xstrdup("");
		target_facts(fs, prefix, &s->targets[t]);
		free(prefix);
	}
	/* The others by position, when every source has as many. */
	for (size_t j = 0; j < m->nsrc; j++) {
		const struct iom_study_info *o = &m->src[j].study;
		size_t k = 0;

		for (size_t t = 0; t < o->ntargets; t++) {
			bool all = o->targets[t].label != NULL;

			for (size_t x = 0; all && x < m->nsrc; x++)
				all = has_label(&m->src[x].study, o->targets[t].label);
			k += !all;
		}
		if (nun == SIZE_MAX)
			nun = k;
		else if (nun != k)
			return;
	}
	for (size_t t = 0; t < s->ntargets; t++) {
		const char *l = s->targets[t].label;
		bool all = l != NULL;
		char *prefix;

		for (size_t j = 0; all && j < m->nsrc; j++)
			all = has_label(&m->src[j].study, l);
		if (all)
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

/* ---- cells in words ---- */

void iom_report_word(const char *dim, const char *value, char *buf, size_t len)
{
	char *end;
	long long v = strtoll(value, &end, 10);
	bool num = *value && !*end;

	if (strcmp(dim, "block_size") == 0 && num)
		iom_dim_format(IOM_DIM_BLOCK_SIZE, v, buf, len);
	else if (strcmp(dim, "pattern") == 0 && strcmp(value, "random") == 0)
		snprintf(buf, len, "rnd");
	else if (strcmp(dim, "pattern") == 0 && strcmp(value, "sequential") == 0)
		snprintf(buf, len, "seq");
	else if (strcmp(dim, "read_pct") == 0 && num)
		snprintf(buf, len, v == 0 ? "wr100" : "rd%lld", v);
	else if (strcmp(dim, "queue_depth") == 0 && num)
		snprintf(buf, len, "qd%lld", v);
	else if (strcmp(dim, "threads") == 0 && num)
		snprintf(buf, len, "t%lld", v);
	else if (strcmp(dim, "direct") == 0)
		snprintf(buf, len, "%s", strcmp(value, "true") == 0 ? "direct" : "buffered");
	else if (strcmp(dim, "verify") == 0) /* no word for the usual case, off */
		snprintf(buf, len, "%s", strcmp(value, "true") == 0 ? "verify" : "");
	else if (strcmp(dim, "target") == 0 || strcmp(dim, "engine") == 0)
		snprintf(buf, len, "%s", value);
	else
		snprintf(buf, len, "%s=%s", dim, value);
}

/* The order words are written in: "lsi 4K rnd rd70 qd32 t4 psync direct". */
static int word_rank(const char *dim)
{
	static const char *const order[] = {
		"target", "block_size", "pattern", "read_pct", "queue_depth", "threads", "engine",
		"direct",
	};

	for (size_t i = 0; i < IOM_ARRAY_SIZE(order); i++)
		if (strcmp(dim, order[i]) == 0)
			return (int)i;
	return (int)IOM_ARRAY_SIZE(order);
}

/* The cell's words for the dimensions that vary (want_varying) or those that do not. */
static char *cell_words(const struct iom_report *m, size_t cell, bool want_varying)
{
	struct iom_strbuf b = { 0 };

	for (int rank = 0; rank <= word_rank(""); rank++) {
		for (size_t d = 0; d < m->ndims; d++) {
			char w[160];

			if (m->varies[d] != want_varying || word_rank(m->dims[d]) != rank)
				continue;
			iom_report_word(m->dims[d], m->cells[cell].value[d], w, sizeof(w));
			if (!*w)
				continue;
			if (b.len)
				iom_strbuf_str(&b, " ");
			iom_strbuf_str(&b, w);
		}
	}
	iom_strbuf_get(&b);
	return b.s;
}

char *iom_report_cell_label(const struct iom_report *m, size_t cell)
{
	char *s = cell_words(m, cell, true);

	if (!*s) {
		free(s);
		s = cell_words(m, cell, false);
	}
	return s;
}

char *iom_report_fixed_words(const struct iom_report *m)
{
	return m->ncells ? cell_words(m, 0, false) : xstrdup("");
}

/* Whether cell c has token: a word of one of its values, a raw value, or dim=value. */
static bool cell_has(const struct iom_report *m, size_t c, const char *tok)
{
	const char *eq = strchr(tok, '=');

	for (size_t d = 0; d < m->ndims; d++) {
		const char *v = m->cells[c].value[d];
		char w[160];

		iom_report_word(m->dims[d], v, w, sizeof(w));
		if (eq) {
			size_t nl = (size_t)(eq - tok);

			if (strlen(m->dims[d]) != nl || strncmp(m->dims[d], tok, nl) != 0)
				continue;
			/* The value as the file holds it, or as a user writes it ("4K"). */
			if (strcmp(v, eq + 1) == 0 || strcmp(w, eq + 1) == 0)
				return true;
			if (strcmp(m->dims[d], "block_size") == 0) {
				const struct iom_key *k = iom_key_find(IOM_SEC_WORKLOAD, "block_size");
				int64_t bs;
				char e[IOM_ERRLEN];

				if (k && iom_key_parse_text(k, eq + 1, &bs, e, sizeof(e)) == 0 &&
				    bs == strtoll(v, NULL, 10))
					return true;
			}
			return false;
		}
		if (strcmp(w, tok) == 0 || strcmp(v, tok) == 0)
			return true;
	}
	return false;
}

int iom_report_find_cell(const struct iom_report *m, const char *spec, size_t *cell, char *err,
			 size_t errlen)
{
	char *copy, *tok, *save = NULL, **toks = NULL;
	size_t ntoks = 0, nmatch = 0, first = 0;
	struct iom_strbuf list = { 0 };
	char *end;
	unsigned long row;

	if (m->ncells == 0)
		return iom_err(err, errlen, ENOENT, "no cell to choose: no finished runs");
	errno = 0;
	row = strtoul(spec, &end, 10);
	if (*spec >= '0' && *spec <= '9' && !*end) {
		if (row < 1 || row > m->ncells)
			return iom_err(err, errlen, ENOENT, "no cell %s: the table has %zu (1 to %zu)",
				       spec, m->ncells, m->ncells);
		*cell = row - 1;
		return 0;
	}
	copy = xstrdup(spec);
	for (tok = strtok_r(copy, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save)) {
		toks = xrealloc(toks, (ntoks + 1) * sizeof(*toks));
		toks[ntoks++] = tok;
	}
	for (size_t c = 0; c < m->ncells; c++) {
		bool all = ntoks > 0;

		for (size_t t = 0; all && t < ntoks; t++)
			all = cell_has(m, c, toks[t]);
		if (!all)
			continue;
		if (nmatch++ == 0)
			first = c;
		if (nmatch <= 4) {
			char *l = iom_report_cell_label(m, c);

			iom_strbuf_printf(&list, "%s'%s'", nmatch > 1 ? ", " : "", l);
			free(l);
		}
	}
	free(toks);
	free(copy);
	if (nmatch == 1)
		*cell = first;
	if (nmatch == 0)
		iom_err(err, errlen, ENOENT, "no cell matches '%s' (name it as the table does, "
			"e.g. '4K rnd qd32', or by its row number)", spec);
	else if (nmatch > 1)
		iom_err(err, errlen, EINVAL, "'%s' matches %zu cells (%s%s): name more of it", spec,
			nmatch, iom_strbuf_get(&list), nmatch > 4 ? ", …" : "");
	free(list.s);
	return nmatch == 1 ? 0 : nmatch ? -EINVAL : -ENOENT;
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

/* ---- the text report ---- */

/* Prints text wrapped at spaces to width columns (keeping its leading spaces), continuation
 * lines indented by indent. */
static void print_wrapped(FILE *out, const char *text, unsigned width, int indent)
{
	const char *s = text;
	int col = (int)strspn(s, " ");
	bool first = true;

	fprintf(out, "%*s", col, "");
	s += col;
	while (*s) {
		size_t wl = strcspn(s, " ");
		char word[1024];
		int w;

		snprintf(word, sizeof(word), "%.*s", (int)IOM_MIN(wl, sizeof(word) - 1), s);
		w = dispw(word);
		if (!first && col + 1 + w > (int)width) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else if (!first) {
			fputc(' ', out);
			col++;
		}
		fputs(word, out);
		col += w;
		first = false;
		s += wl;
		while (*s == ' ')
			s++;
	}
	fputc('\n', out);
}

/* What one (cell, compared value, metric) shows: "*12.20K", "81.0µs~", "failed". */
static void entry_text(const struct iom_report *m, size_t cell, size_t cv, enum iom_metric k,
		       const struct iom_report_verdict *vd, bool winners, char *buf, size_t len)
{
	const struct iom_report_reps *r = &m->cells[cell].by[cv];
	char num[48];
	bool noisy;

	if (r->n == 0) {
		snprintf(buf, len, "%s", k != IOM_METRIC_IOPS ? "-" : r->failed ? "failed" :
					 r->stalled ? "stalled" : r->interrupted ? "intr." : "-");
		return;
	}
	noisy = r->n >= 2 && iom_stats_cv(r->v[k], r->n) * 100 > m->opts.max_cv_pct;
	iom_report_fmt_value(num, sizeof(num), k, iom_report_mean(r, k));
	snprintf(buf, len, "%s%s%s%s", winners && vd->winner == (int)cv ? "*" : "", num,
		 noisy ? "~" : "", r->stalled && k == IOM_METRIC_IOPS ? "!" : "");
}

const char *iom_report_excluded_status(const struct iom_report_excluded *e)
{
	return e->stalled ? "stalled" : iom_run_status_name(e->status);
}

/* Beneath the table: "stalled runs left out of verdicts: run 5 (no I/O completed for 4.0 s,
 * from 1.2 s into the window)", wrapped. */
static void stalled_note(FILE *out, const struct iom_report *m, unsigned width)
{
	struct iom_strbuf b = { 0 };
	size_t n = 0;

	for (size_t i = 0; i < m->nexcluded; i++) {
		const struct iom_report_excluded *e = &m->excluded[i];

		if (!e->stalled)
			continue;
		if (n == MAX_EXCLUDED_SHOWN) {
			iom_strbuf_printf(&b, ", …");
			break;
		}
		iom_strbuf_printf(&b, "%s run %" PRIu32 "%s%s (%s)", n ? "," : "", e->run,
			  m->nsrc > 1 ? " of " : "", m->nsrc > 1 ? m->src[e->src].name : "",
			  e->error ? e->error : "stalled");
		n++;
	}
	if (n) {
		char *line = xasprintf("stalled runs left out of verdicts:%s", iom_strbuf_get(&b));

		fputc('\n', out);
		print_wrapped(out, line, width, 2);
		free(line);
	}
	free(b.s);
}

/* What the line beneath a row shows under the best value: "+20.8%", "tie", "(+3.1%)". */
static bool beneath_text(enum iom_metric k, const struct iom_report_verdict *vd, char *buf,
			 size_t len)
{
	char mg[32];

	buf[0] = '\0';
	switch (vd->kind) {
	case IOM_VERDICT_WIN:
		iom_report_fmt_margin(buf, len, k, vd->margin_pct);
		return true;
	case IOM_VERDICT_TIE:
		snprintf(buf, len, "tie");
		return true;
	case IOM_VERDICT_SINGLE_RUN:
		iom_report_fmt_margin(mg, sizeof(mg), k, vd->margin_pct);
		snprintf(buf, len, "(%s)", mg);
		return true;
	default:
		return false;
	}
}

struct table {
	const struct iom_report *m;
	bool color, winners;
	int labelw;
	int colw[IOM_NMETRIC];
	int groupw;
	char **label;                      /* per cell */
	struct iom_report_verdict *vd;     /* per cell × metric */
	unsigned nkind[4];                 /* verdicts of each kind */
	bool noisy;
	bool stalled;                      /* some shown value left a stalled run out */
};

#define GROUP_GAP 3

static void table_measure(struct table *t)
{
	const struct iom_report *m = t->m;
	char buf[64];

	t->labelw = dispw("cell");
	for (size_t c = 0; c < m->ncells; c++)
		t->labelw = IOM_MAX(t->labelw, dispw(t->label[c]));
	t->groupw = 0;
	for (int k = 0; k < IOM_NMETRIC; k++) {
		t->colw[k] = IOM_MAX(dispw(iom_metrics[k].title), 6);
		for (size_t c = 0; c < m->ncells; c++) {
			const struct iom_report_verdict *vd = &t->vd[c * IOM_NMETRIC + k];

			for (size_t v = 0; v < m->ncompared; v++) {
				entry_text(m, c, v, k, vd, t->winners, buf, sizeof(buf));
				t->colw[k] = IOM_MAX(t->colw[k], dispw(buf));
			}
			if (t->winners && beneath_text((enum iom_metric)k, vd, buf, sizeof(buf)))
				t->colw[k] = IOM_MAX(t->colw[k], dispw(buf));
		}
		t->groupw += t->colw[k] + (k ? 1 : 0);
	}
	for (size_t v = 0; v < m->ncompared; v++)
		t->groupw = IOM_MAX(t->groupw, dispw(m->compared[v]) + 2);
}

/* The group title: " lsi-sas " centered in dashes over the group's width. */
static void group_title(struct iom_strbuf *b, const char *name, int w)
{
	int nw = dispw(name) + 2, left = (w - nw) / 2, right = w - nw - left;

	for (int i = 0; i < left; i++)
		iom_strbuf_str(b, "-");
	iom_strbuf_str(b, " ");
	iom_strbuf_str(b, name);
	iom_strbuf_str(b, " ");
	for (int i = 0; i < right; i++)
		iom_strbuf_str(b, "-");
}

/* The gap before a column group, and the slack of a group widened by its title. */
static void group_start(struct iom_strbuf *b, const struct table *t, bool first)
{
	int used = 0;

	for (int k = 0; k < IOM_NMETRIC; k++)
		used += t->colw[k] + (k ? 1 : 0);
	iom_strbuf_spaces(b, (first ? 2 : GROUP_GAP) + t->groupw - used);
}

static void table_block(FILE *out, struct table *t, size_t from, size_t to)
{
	const struct iom_report *m = t->m;
	struct iom_strbuf b = { 0 };
	char buf[64];

	iom_strbuf_spaces(&b, t->labelw);
	for (size_t v = from; v < to; v++) {
		iom_strbuf_spaces(&b, v == from ? 2 : GROUP_GAP);
		group_title(&b, m->compared[v], t->groupw);
	}
	sb_line(&b, out);
	sb_cell(&b, "cell", t->labelw, true, false);
	for (size_t v = from; v < to; v++) {
		group_start(&b, t, v == from);
		for (int k = 0; k < IOM_NMETRIC; k++) {
			iom_strbuf_spaces(&b, k ? 1 : 0);
			sb_cell(&b, iom_metrics[k].title, t->colw[k], false, false);
		}
	}
	sb_line(&b, out);
	for (size_t c = 0; c < m->ncells; c++) {
		bool beneath = false;

		sb_cell(&b, t->label[c], t->labelw, true, false);
		for (size_t v = from; v < to; v++) {
			group_start(&b, t, v == from);
			for (int k = 0; k < IOM_NMETRIC; k++) {
				const struct iom_report_verdict *vd = &t->vd[c * IOM_NMETRIC + k];
				bool win = t->winners && vd->winner == (int)v;

				entry_text(m, c, v, k, vd, t->winners, buf, sizeof(buf));
				iom_strbuf_spaces(&b, k ? 1 : 0);
				sb_cell(&b, buf, t->colw[k], false, win && t->color);
				beneath |= t->winners && vd->best == (int)v && vd->kind != IOM_VERDICT_NONE;
			}
		}
		sb_line(&b, out);
		if (!beneath)
			continue;
		iom_strbuf_spaces(&b, t->labelw);
		for (size_t v = from; v < to; v++) {
			group_start(&b, t, v == from);
			for (int k = 0; k < IOM_NMETRIC; k++) {
				const struct iom_report_verdict *vd = &t->vd[c * IOM_NMETRIC + k];

				buf[0] = '\0';
				if (vd->best == (int)v)
					beneath_text((enum iom_metric)k, vd, buf, sizeof(buf));
				iom_strbuf_spaces(&b, k ? 1 : 0);
				sb_cell(&b, buf, t->colw[k], false, false);
			}
		}
		sb_line(&b, out);
	}
	free(b.s);
}

/* "10/1/1 +8.1%" (won/tied/lost[/single], median margin). */
static void tally_text(const struct iom_report_tally *t, enum iom_metric k, bool single,
		       char *buf, size_t len)
{
	char mg[32];

	iom_report_fmt_margin(mg, sizeof(mg), k, t->median_margin_pct);
	if (single)
		snprintf(buf, len, "%u/%u/%u/%u %s", t->won, t->tied, t->lost, t->single_run, mg);
	else
		snprintf(buf, len, "%u/%u/%u %s", t->won, t->tied, t->lost, mg);
}

/* The closing verdict: per compared value and metric, cells won, tied, lost; median margin. */
static void verdict_block(FILE *out, const struct table *t, unsigned width)
{
	const struct iom_report *m = t->m;
	struct iom_report_tally *ty = xcalloc(m->ncompared * IOM_NMETRIC + 1, sizeof(*ty));
	bool single = t->nkind[IOM_VERDICT_SINGLE_RUN] > 0;
	int colw[IOM_NMETRIC], labelw = 0, total;
	char buf[96];
	struct iom_strbuf b = { 0 };

	for (size_t v = 0; v < m->ncompared; v++) {
		labelw = IOM_MAX(labelw, dispw(m->compared[v]));
		for (int k = 0; k < IOM_NMETRIC; k++)
			iom_report_tally(m, (enum iom_metric)k, v, &ty[v * IOM_NMETRIC + k]);
	}
	total = labelw;
	for (int k = 0; k < IOM_NMETRIC; k++) {
		colw[k] = dispw(iom_metrics[k].title);
		for (size_t v = 0; v < m->ncompared; v++) {
			tally_text(&ty[v * IOM_NMETRIC + k], (enum iom_metric)k, single, buf,
				   sizeof(buf));
			colw[k] = IOM_MAX(colw[k], dispw(buf));
		}
		total += 2 + colw[k];
	}
	fprintf(out, "verdict over %zu cells: won/tied/lost%s, median margin\n", m->ncells,
		single ? "/single run" : "");
	if (total <= (int)width) {
		iom_strbuf_spaces(&b, labelw);
		for (int k = 0; k < IOM_NMETRIC; k++) {
			iom_strbuf_spaces(&b, 2);
			sb_cell(&b, iom_metrics[k].title, colw[k], true, false);
		}
		sb_line(&b, out);
		for (size_t v = 0; v < m->ncompared; v++) {
			sb_cell(&b, m->compared[v], labelw, true, false);
			for (int k = 0; k < IOM_NMETRIC; k++) {
				tally_text(&ty[v * IOM_NMETRIC + k], (enum iom_metric)k, single, buf,
					   sizeof(buf));
				iom_strbuf_spaces(&b, 2);
				sb_cell(&b, buf, colw[k], true, false);
			}
			sb_line(&b, out);
		}
	} else {
		for (size_t v = 0; v < m->ncompared; v++) {
			iom_strbuf_printf(&b, "%s:", m->compared[v]);
			for (int k = 0; k < IOM_NMETRIC; k++) {
				tally_text(&ty[v * IOM_NMETRIC + k], (enum iom_metric)k, single, buf,
					   sizeof(buf));
				iom_strbuf_printf(&b, " %s %s%s", iom_metrics[k].title, buf,
					  k + 1 < IOM_NMETRIC ? ";" : "");
			}
			print_wrapped(out, iom_strbuf_get(&b), width, 2);
			b.len = 0;
		}
	}
	free(b.s);
	free(ty);
}

static void noisy_block(FILE *out, const struct iom_report *m, unsigned width)
{
	struct iom_report_noisy *nz;
	size_t n = iom_report_noisy_list(m, &nz), shown = 0;
	bool *done = xcalloc(n + 1, sizeof(*done));
	struct iom_strbuf b = { 0 };

	if (n)
		fprintf(out, "\nnoisy (CV above %g%%): more repetitions would settle these\n",
			m->opts.max_cv_pct);
	/* One line per (cell, compared value), its noisy metrics together. */
	for (size_t i = 0; i < n; i++) {
		unsigned suggest = 0;
		char *label;
		bool firstm = true;

		if (done[i])
			continue;
		if (shown++ == MAX_NOISY_SHOWN) {
			fprintf(out, "  … and more (the JSON and CSV reports list every one)\n");
			break;
		}
		label = iom_report_cell_label(m, nz[i].cell);
		iom_strbuf_printf(&b, "  %s, %s:", label, m->compared[nz[i].compared]);
		for (size_t j = i; j < n && nz[j].cell == nz[i].cell; j++) {
			if (nz[j].compared != nz[i].compared)
				continue;
			done[j] = true;
			iom_strbuf_printf(&b, "%s %s %.1f%%", firstm ? "" : ",",
				  iom_metrics[nz[j].metric].title, nz[j].cv_pct);
			firstm = false;
			suggest = IOM_MAX(suggest, nz[j].suggest);
		}
		iom_strbuf_printf(&b, " (%zu runs", nz[i].n);
		if (suggest > nz[i].n)
			iom_strbuf_printf(&b, "; about %s%u would settle it", suggest >= MAX_SUGGEST ? "> " : "",
				  suggest);
		iom_strbuf_str(&b, ")");
		print_wrapped(out, iom_strbuf_get(&b), width, 4);
		b.len = 0;
		free(label);
	}
	free(b.s);
	free(done);
	free(nz);
}

static void missing_block(FILE *out, const struct iom_report *m, unsigned width)
{
	struct iom_strbuf b = { 0 };
	bool any = false;

	if (m->nsrc < 2)
		return;
	fputc('\n', out);
	for (size_t s = 0; s < m->nsrc; s++) {
		size_t *cells, n = iom_report_missing(m, s, &cells);

		if (n) {
			any = true;
			iom_strbuf_printf(&b, "%s lacks %zu of %zu cells:", m->src[s].name, n, m->ncells);
			for (size_t i = 0; i < n && i < MAX_MISSING_SHOWN; i++) {
				char *l = iom_report_cell_label(m, cells[i]);

				iom_strbuf_printf(&b, " %s%s", l, i + 1 < n ? "," : "");
				free(l);
			}
			if (n > MAX_MISSING_SHOWN)
				iom_strbuf_printf(&b, " … and %zu more", n - MAX_MISSING_SHOWN);
			print_wrapped(out, iom_strbuf_get(&b), width, 2);
			b.len = 0;
		}
		free(cells);
	}
	if (any)
		fprintf(out, "compared on the cells they share; the others have no winner\n");
	else
		fprintf(out, "every cell is in every directory\n");
	free(b.s);
}

static void print_excluded(FILE *out, const struct iom_report *m)
{
	size_t shown = IOM_MIN(m->nexcluded, (size_t)MAX_EXCLUDED_SHOWN);

	if (!m->nexcluded)
		return;
	for (size_t i = 0; i < m->nexcluded; i++)
		if (!m->excluded[i].stalled)
			break;
		else if (i + 1 == m->nexcluded)
			return; /* every one stalled: the note beneath the table named them */
	fprintf(out, "\nruns left out:\n");
	for (size_t i = 0; i < shown; i++) {
		const struct iom_report_excluded *e = &m->excluded[i];
		char *words;

		if (e->stalled)
			continue; /* named beneath the table */
		words = cell_words(m, e->cell, true);

		fprintf(out, "  run %" PRIu32 "%s%s (%s%s%s): %s%s%s\n", e->run,
			m->nsrc > 1 ? " of " : "", m->nsrc > 1 ? m->src[e->src].name : "",
			m->compared[e->compared], *words ? " " : "", words,
			iom_report_excluded_status(e), e->error ? ": " : "", e->error ? e->error : "");
		free(words);
	}
	if (m->nexcluded > shown)
		fprintf(out, "  … and %zu more (summary.csv lists every run)\n", m->nexcluded - shown);
}

static void print_source(FILE *out, const struct iom_report *m, size_t i, unsigned width)
{
	const struct iom_report_source *src = &m->src[i];
	const struct iom_study_info *s = &src->study;
	char start[32] = "?", end[32] = "unfinished";
	const char *kernel = s->kernel ? s->kernel : "?";
	char *line;

	if (s->start_wall_ns)
		iom_format_utc(start, sizeof(start), s->start_wall_ns);
	if (s->end_wall_ns)
		iom_format_utc(end, sizeof(end), s->end_wall_ns);
	if (m->nsrc > 1) {
		/* Several directories: the name, then when and where, then what ran it. */
		line = xasprintf("%s: study '%s' in %s", src->name, s->name ? s->name : "?",
				 src->dir);
		print_wrapped(out, line, width, 4);
		free(line);
		line = xasprintf("  %s … %s on %s, kernel %.*s", start, end, s->host ? s->host : "?",
				 (int)strcspn(kernel, " "), kernel);
		print_wrapped(out, line, width, 4);
		free(line);
		fprintf(out, "  iomatrix %s, plan %016" PRIx64 "\n",
			s->tool_version ? s->tool_version : "?", s->plan_hash);
	} else {
		line = xasprintf("study '%s' in %s, %s … %s", s->name ? s->name : "?", src->dir,
				 start, end);
		print_wrapped(out, line, width, 4);
		free(line);
		/* The kernel's release; its build string is in study.json. */
		line = xasprintf("iomatrix %s, plan %016" PRIx64 ", host %s, kernel %.*s",
				 s->tool_version ? s->tool_version : "?", s->plan_hash,
				 s->host ? s->host : "?", (int)strcspn(kernel, " "), kernel);
		print_wrapped(out, line, width, 4);
		free(line);
	}
	if (m->nsrc < 2)
		return;
	for (size_t t = 0; t < s->ntargets; t++) {
		const struct iom_study_target *x = &s->targets[t];
		const char *drv = x->has_facts && x->facts.driver ? x->facts.driver : x->controller;
		struct iom_strbuf b = { 0 };

		iom_strbuf_printf(&b, "  %s: %s", x->label ? x->label : "?", x->path ? x->path : "?");
		if (drv)
			iom_strbuf_printf(&b, ", %s", drv);
		if (x->has_facts && x->facts.model)
			iom_strbuf_printf(&b, ", %s%s%s", x->facts.vendor ? x->facts.vendor : "",
				  x->facts.vendor ? " " : "", x->facts.model);
		if (x->has_facts && x->facts.scheduler)
			iom_strbuf_printf(&b, ", scheduler %s", x->facts.scheduler);
		print_wrapped(out, iom_strbuf_get(&b), width, 4);
		free(b.s);
	}
}

static void print_provenance(FILE *out, const struct iom_report *m, unsigned width)
{
	struct iom_report_diff *d;
	size_t nd;

	for (size_t i = 0; i < m->nsrc; i++)
		print_source(out, m, i, width);
	if (m->nsrc < 2)
		return;
	nd = iom_report_diffs(m, &d);
	if (!nd)
		fprintf(out, "no differences in tool, plan, host, kernel, CPU or devices\n");
	if (nd)
		fprintf(out, "differences between the directories:\n");
	for (size_t i = 0; i < nd; i++) {
		char *text = iom_report_diff_text(m, &d[i]);
		char *line = xasprintf("  %s", text);

		print_wrapped(out, line, width, 4);
		free(line);
		free(text);
	}
	iom_report_diffs_free(d, nd);
	if (m->qualified)
		fprintf(out, "a value that measured the same cell in two directories is named "
			     "value@directory\n");
}

int iom_report_print_winners(FILE *out, const struct iom_report *m,
			     const struct iom_report_opts_cli *o)
{
	struct table t = { .m = m };
	unsigned width = o && o->width ? o->width : DEFAULT_WIDTH;
	size_t nmin = SIZE_MAX, nmax = 0;
	char *fixed;
	int color = o ? o->color : -1;

	t.color = color < 0 ? isatty(fileno(out)) : color > 0;
	t.winners = m->ncompared > 1;
	fprintf(out, "%zu run%s: %zu ok", m->nruns, m->nruns == 1 ? "" : "s", m->nok);
	if (m->nexcluded) {
		size_t nstalled = 0;

		for (size_t i = 0; i < m->nexcluded; i++)
			nstalled += m->excluded[i].stalled;
		fprintf(out, ", %zu left out (%s)", m->nexcluded,
			nstalled == m->nexcluded ? "stalled" :
			nstalled ? "failed, interrupted or stalled" : "failed or interrupted");
	}
	if (m->ndamaged)
		fprintf(out, "; %zu more missing or damaged (listed below)", m->ndamaged);
	fprintf(out, "\ncompared: %s", m->compare);
	{
		size_t w = strlen("compared: ") + strlen(m->compare) + 3;

		for (size_t v = 0; v < m->ncompared; v++)
			w += (size_t)dispw(m->compared[v]) + 2;
		if (w <= width) {
			for (size_t v = 0; v < m->ncompared; v++)
				fprintf(out, "%s%s", v ? ", " : " (", m->compared[v]);
			fprintf(out, "%s", m->ncompared ? ")" : "");
		} else {
			fprintf(out, " (%zu values)", m->ncompared);
		}
	}
	fputc('\n', out);
	if (m->ncells == 0) {
		fprintf(out, "no finished runs to report\n");
		return ferror(out) ? -EIO : 0;
	}

	t.label = xcalloc(m->ncells, sizeof(*t.label));
	t.vd = xcalloc(m->ncells * IOM_NMETRIC, sizeof(*t.vd));
	for (size_t c = 0; c < m->ncells; c++) {
		t.label[c] = iom_report_cell_label(m, c);
		for (int k = 0; k < IOM_NMETRIC; k++) {
			struct iom_report_verdict *vd = &t.vd[c * IOM_NMETRIC + k];

			iom_report_verdict(m, c, (enum iom_metric)k, vd);
			t.nkind[vd->kind]++;
			t.noisy |= vd->noisy;
		}
		for (size_t v = 0; v < m->ncompared; v++) {
			size_t n = m->cells[c].by[v].n;

			t.stalled |= n && m->cells[c].by[v].stalled;
			if (n) {
				nmin = IOM_MIN(nmin, n);
				nmax = IOM_MAX(nmax, n);
			}
		}
	}
	fixed = iom_report_fixed_words(m);
	if (*fixed && m->ncells > 1)
		fprintf(out, "the same in every cell: %s\n", fixed);
	free(fixed);
	if (nmax == 0)
		fprintf(out, "no run finished: nothing to compare\n");
	else if (nmin == nmax && nmax == 1)
		fprintf(out, "figures: one run each");
	else if (nmin == nmax)
		fprintf(out, "figures: mean of %zu repetitions", nmax);
	else
		fprintf(out, "figures: mean of %zu to %zu repetitions", nmin, nmax);
	if (nmax && !t.winners)
		fprintf(out, "; one %s: no winners", m->compare);
	if (nmax && t.noisy)
		fprintf(out, "; ~ noisy: CV above %g%%", m->opts.max_cv_pct);
	if (nmax && t.stalled)
		fprintf(out, "; ! a stalled run left out");
	if (nmax)
		fputc('\n', out);
	if (nmax && t.winners && (t.nkind[IOM_VERDICT_WIN] || t.nkind[IOM_VERDICT_TIE]))
		fprintf(out, "* winner: better by more than %g%% with Welch p < %g, its margin "
			     "beneath; else 'tie'\n", m->opts.min_effect_pct, m->opts.alpha);
	if (nmax && t.winners && t.nkind[IOM_VERDICT_SINGLE_RUN])
		fprintf(out, "(+x%%) beneath the best: single run — no significance, no winner\n");
	if (nmax)
		fprintf(out, "lat avg, lat p99: latency of all I/O; CPU/IO: iomatrix CPU µs per I/O; "
			     "MB/s: 10^6 bytes/s\n");
	fputc('\n', out);

	table_measure(&t);
	for (size_t from = 0; from < m->ncompared;) {
		size_t to = from + 1;

		while (to < m->ncompared &&
		       (unsigned)(t.labelw + 2 + (int)(to - from + 1) * (t.groupw + GROUP_GAP) -
				  GROUP_GAP) <= width)
			to++;
		if (from)
			fputc('\n', out);
		table_block(out, &t, from, to);
		from = to;
	}
	stalled_note(out, m, width);
	if (t.winners && nmax) {
		fputc('\n', out);
		verdict_block(out, &t, width);
	}
	noisy_block(out, m, width);
	missing_block(out, m, width);
	print_excluded(out, m);
	for (size_t c = 0; c < m->ncells; c++)
		free(t.label[c]);
	free(t.label);
	free(t.vd);
	return ferror(out) ? -EIO : 0;
}

/* The runs the report cannot show, each with why and what redoes it. */
static void print_damaged(FILE *out, const struct iom_report *m)
{
	if (!m->ndamaged)
		return;
	fprintf(out, "\nruns not in the report (missing or damaged):\n");
	for (size_t i = 0; i < m->ndamaged; i++) {
		char *line = iom_report_damaged_text(m, &m->damaged[i]);

		fprintf(out, "  %s\n", line);
		free(line);
	}
}

char *iom_report_damaged_text(const struct iom_report *m, const struct iom_report_damaged *d)
{
	const char *dir = m->src[d->src].dir;
	bool missing = strcmp(d->why, "result file missing") == 0;

	return xasprintf("run %" PRIu32 "%s%s: %s; `iomatrix resume %s` %s", d->run,
			 m->nsrc > 1 ? " of " : "", m->nsrc > 1 ? m->src[d->src].name : "", d->why,
			 dir, missing ? "redoes it" : "sets the file aside and redoes the run");
}

int iom_report_write_text(FILE *out, const struct iom_report *m,
			  const struct iom_report_opts_cli *o, char *err, size_t errlen)
{
	if (!o || !o->brief) {
		print_provenance(out, m, o && o->width ? o->width : DEFAULT_WIDTH);
		fputc('\n', out);
	}
	iom_report_print_winners(out, m, o);
	print_damaged(out, m);
	return iom_report_out_status(out, err, errlen);
}
