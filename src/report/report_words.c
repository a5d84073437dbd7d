/* SPDX-License-Identifier: MIT */
/*
 * report_words — the model in the words of the trade (report.h): a metric's value ("12.35K",
 * "70.9µs") and margin ("+14.2%"), a cell's compact words ("4K rnd rd70 qd32"), the words of
 * what every cell shares, an excluded run's status, and the reverse: finding the cell that
 * words (or a row number of the winners table) name. Every writer names cells this way, and
 * ends with iom_report_out_status().
 */
#include "report_model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "units.h"
#include "util.h"

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
	/* pct > 0 is better whichever way the metric goes: words, not a sign that means "more"
	 * for IOPS and "less" for latency in the same row */
	const char *way = pct < 0 ? "worse by" : "better by";
	/* from 100 % on, the ratio of the better to the worse: "3.15× lower" where the worse
	 * has a third of the IOPS (a fall is never above 100 %) */
	bool up = (pct > 0) == iom_metrics[k].higher_is_better;
	double ratio = 1 + fabs(pct) / 100;

	if (pct < 0)
		pct = -pct;
	if (isnan(pct))
		snprintf(buf, len, "-");
	else if (pct < 0.05)
		snprintf(buf, len, "even");
	else if (!isfinite(pct) || ratio >= 999.5)
		snprintf(buf, len, ">999× %s", up ? "higher" : "lower");
	else if (pct >= 99.95)
		snprintf(buf, len, "%.3g× %s", ratio, up ? "higher" : "lower");
	else
		snprintf(buf, len, "%s %.1f%%", way, pct);
}

/* ---- the disk in words ---- */

/* The mean of the finite x[k] of r's repetitions; NaN when none. */
static double mean_known(const struct iom_report_reps *r, int k)
{
	double s = 0;
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++)
		if (isfinite(r->x[k][i])) {
			s += r->x[k][i];
			n++;
		}
	return n ? s / (double)n : NAN;
}

bool iom_report_disk_of(const struct iom_report *m, size_t cell, size_t cv,
			struct iom_report_disk *d)
{
	const struct iom_report_reps *r = &m->cells[cell].by[cv];
	double wb = mean_known(r, IOM_X_WCACHE_BACK), fua = mean_known(r, IOM_X_FUA);

	d->writes = mean_known(r, IOM_X_DISK_WRITES);
	if (!isfinite(d->writes)) {
		*d = (struct iom_report_disk){ NAN, NAN, -1, -1 };
		return false;
	}
	d->flushes = mean_known(r, IOM_X_DISK_FLUSHES);
	d->write_back = isfinite(wb) ? wb >= 0.5 : -1;
	d->fua = isfinite(fua) ? fua >= 0.5 : -1;
	return true;
}

const char iom_report_disk_legend[] =
	"the writes and flushes the target's disk completed per run, its write cache (write "
	"back: volatile) and FUA; write-through on a volatile cache without FUA is a flush per "
	"write";

char *iom_report_disk_words(const struct iom_report *m, size_t cell, size_t cv)
{
	struct iom_report_disk d;
	char a[32], b[32];
	bool wb, fua;

	if (!iom_report_disk_of(m, cell, cv, &d))
		return NULL;
	iom_count_format(d.writes, a, sizeof(a));
	iom_count_format(d.flushes, b, sizeof(b));
	/* the cache's words where the runs recorded them (older runs did not) */
	wb = d.write_back >= 0;
	fua = d.fua >= 0;
	return xasprintf("%s writes, %s flushes%s%s%s%s%s", a, isfinite(d.flushes) ? b : "?",
			 wb || fua ? " (" : "",
			 !wb ? "" : d.write_back ? "write back" : "write through",
			 wb && fua ? ", " : "", !fua ? "" : d.fua ? "FUA" : "no FUA",
			 wb || fua ? ")" : "");
}

bool iom_report_disk_any(const struct iom_report *m)
{
	for (size_t c = 0; c < m->ncells; c++)
		for (size_t v = 0; v < m->ncompared; v++)
			if (mean_known(&m->cells[c].by[v], IOM_X_DISK_WRITES) > 0)
				return true;
	return false;
}

/* ---- cells in words ---- */

void iom_report_word(const char *dim, const char *value, char *buf, size_t len)
{
	iom_dim_word(dim, value, buf, len); /* the words are the key table's (keys.c) */
}

/* The order words are written in: "lsi 4K rnd rd70 qd32 t4 psync direct" (the key table's). */
static int word_rank(const char *dim)
{
	return iom_dim_word_rank(dim);
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

char *iom_report_varying_words(const struct iom_report *m, size_t cell)
{
	return cell_words(m, cell, true);
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

const char *iom_report_excluded_status(const struct iom_report_excluded *e)
{
	return e->stalled ? "stalled" : iom_run_status_name(e->status);
}

void iom_report_study_names(FILE *out, const struct iom_report *m,
			    void (*text)(FILE *out, const char *s))
{
	size_t shown = 0;

	for (size_t i = 0; i < m->nsrc; i++) {
		const char *n = m->src[i].study.name ? m->src[i].study.name : m->src[i].name;
		bool dup = false;

		for (size_t j = 0; j < i && !dup; j++)
			dup = strcmp(n, m->src[j].study.name ? m->src[j].study.name :
							       m->src[j].name) == 0;
		if (dup)
			continue;
		fputs(shown++ ? ", " : ": ", out);
		if (text)
			text(out, n);
		else
			fputs(n, out);
	}
}

/* Every writer ends with this (report.h): it sits here, below the writers and the table of
 * formats that calls them, so that no writer imports the module that picks it. */
int iom_report_out_status(FILE *out, char *err, size_t errlen)
{
	if (!ferror(out))
		return 0;
	return iom_err(err, errlen, EIO, "cannot write the report: %s", strerror(EIO));
}
