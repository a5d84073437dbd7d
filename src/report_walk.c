/*
 * report_walk — the one walk of a report's sections that the Markdown and HTML writers share
 * (report.h): a visitor with per-format callbacks.
 *
 * The walk owns the order and the data: the head, the closing verdict (per compared value the
 * tally of every metric), the format's own body (Markdown's tables per metric, HTML's charts
 * and heat map), the notes (noisy entries, each source's missing cells, the runs left out) and
 * the provenance differences, then the tail. It computes what each row shows (tallies, the
 * noisy list, the missing cells, the cells' words) and frees it; a callback only marks it up.
 * A NULL callback is skipped; a section whose begin callback returns false is not walked.
 */
#include "report.h"

#include <stdlib.h>

static void verdict(const struct iom_report *m, const struct iom_report_visitor *v)
{
	if (v->verdict_begin && !v->verdict_begin(v->ctx, m))
		return;
	for (size_t cv = 0; cv < m->ncompared; cv++) {
		struct iom_report_tally t[IOM_NMETRIC];

		for (int k = 0; k < IOM_NMETRIC; k++)
			iom_report_tally(m, (enum iom_metric)k, cv, &t[k]);
		if (v->verdict_row)
			v->verdict_row(v->ctx, m, cv, t);
	}
	if (v->verdict_end)
		v->verdict_end(v->ctx, m);
}

static void noisy(const struct iom_report *m, const struct iom_report_visitor *v)
{
	struct iom_report_noisy *nz;
	size_t n = iom_report_noisy_list(m, &nz);

	if (v->notes_begin)
		v->notes_begin(v->ctx, m, n);
	if (n && (!v->noisy_begin || v->noisy_begin(v->ctx, m, n))) {
		for (size_t i = 0; i < n; i++) {
			char *label = iom_report_cell_label(m, nz[i].cell);

			if (v->noisy_row)
				v->noisy_row(v->ctx, m, &nz[i], label);
			free(label);
		}
		if (v->noisy_end)
			v->noisy_end(v->ctx, m);
	}
	free(nz);
}

static void missing(const struct iom_report *m, const struct iom_report_visitor *v)
{
	if (m->nsrc < 2 || (v->missing_begin && !v->missing_begin(v->ctx, m)))
		return;
	for (size_t s = 0; s < m->nsrc; s++) {
		size_t *cells, n = iom_report_missing(m, s, &cells);

		if (v->missing_source)
			v->missing_source(v->ctx, m, s, n);
		for (size_t i = 0; i < n; i++) {
			char *label = iom_report_cell_label(m, cells[i]);

			if (v->missing_cell)
				v->missing_cell(v->ctx, m, i, label);
			free(label);
		}
		if (v->missing_source_end)
			v->missing_source_end(v->ctx, m, s);
		free(cells);
	}
	if (v->missing_end)
		v->missing_end(v->ctx, m);
}

static void excluded(const struct iom_report *m, const struct iom_report_visitor *v)
{
	if (!m->nexcluded || (v->excluded_begin && !v->excluded_begin(v->ctx, m)))
		return;
	for (size_t i = 0; i < m->nexcluded; i++) {
		char *label = iom_report_cell_label(m, m->excluded[i].cell);

		if (v->excluded_row)
			v->excluded_row(v->ctx, m, &m->excluded[i], label);
		free(label);
	}
	if (v->excluded_end)
		v->excluded_end(v->ctx, m);
}

static void provenance(const struct iom_report *m, const struct iom_report_visitor *v)
{
	struct iom_report_diff *d;
	size_t n = iom_report_diffs(m, &d);

	if (!v->provenance_begin || v->provenance_begin(v->ctx, m, d, n)) {
		for (size_t i = 0; i < n; i++) {
			char *t = iom_report_diff_text(m, &d[i]);

			if (v->diff_row)
				v->diff_row(v->ctx, m, t);
			free(t);
		}
		if (v->provenance_end)
			v->provenance_end(v->ctx, m, d, n);
	}
	iom_report_diffs_free(d, n);
}

void iom_report_walk(const struct iom_report *m, const struct iom_report_visitor *v)
{
	if (v->head)
		v->head(v->ctx, m);
	verdict(m, v);
	if (v->body)
		v->body(v->ctx, m);
	noisy(m, v);
	missing(m, v);
	excluded(m, v);
	provenance(m, v);
	if (v->tail)
		v->tail(v->ctx, m);
}
