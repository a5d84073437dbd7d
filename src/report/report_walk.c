/* SPDX-License-Identifier: MIT */
/*
 * report_walk — the one walk of a report's sections that the Markdown and HTML writers share
 * (report.h): a visitor with per-format callbacks and markup.
 *
 * The walk owns the order and the data: the head, the closing verdict (per compared value the
 * tally of every metric), the format's own body (Markdown's tables per metric, HTML's charts
 * and heat map), the notes (noisy entries, each source's missing cells, the runs left out) and
 * the provenance differences, then the tail. It computes what each row shows (tallies, the
 * noisy list, the missing cells, the cells' words) and frees it. What reads the same in both
 * formats — the noisy cells' rows, the lists of missing cells, runs left out and differences —
 * it writes itself with the format's markup strings and escaping; the rest (headings, tables
 * of figures, notes) a callback marks up. A NULL callback is skipped; a section whose begin
 * callback returns false is not walked.
 */
#include "report_model.h"

#include <inttypes.h>
#include <stdio.h>
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

static void text(const struct iom_report_visitor *v, const char *s)
{
	if (v->text)
		v->text(v->out, s);
	else
		fputs(s, v->out);
}

/* One table cell of text s, left-aligned (text) or right (numbers). */
static void cell(const struct iom_report_visitor *v, bool left, const char *s)
{
	fputs(left ? v->cell_left : v->cell_right, v->out);
	text(v, s);
	fputs(v->cell_close, v->out);
}

/* A row per noisy entry: cell, compared value, metric, runs, CV, repetitions suggested. */
static void noisy(const struct iom_report *m, const struct iom_report_visitor *v)
{
	struct iom_report_noisy *nz;
	size_t n = iom_report_noisy_list(m, &nz);

	if (v->notes_begin)
		v->notes_begin(v->ctx, m, n);
	if (n && (!v->noisy_begin || v->noisy_begin(v->ctx, m, n))) {
		for (size_t i = 0; i < n; i++) {
			char *label = iom_report_cell_label(m, nz[i].cell);
			char buf[32];

			fputs(v->row_open, v->out);
			cell(v, true, label);
			cell(v, true, m->compared[nz[i].compared]);
			cell(v, true, iom_metrics[nz[i].metric].title);
			snprintf(buf, sizeof(buf), "%zu", nz[i].n);
			cell(v, false, buf);
			snprintf(buf, sizeof(buf), "%.1f %%", nz[i].cv_pct);
			cell(v, false, buf);
			if (nz[i].verdict == IOM_VERDICT_UNDECIDED)
				snprintf(buf, sizeof(buf), "%s%u", nz[i].capped ? "> " : "",
					 nz[i].suggest);
			else if (nz[i].verdict == IOM_VERDICT_WIN ||
				 nz[i].verdict == IOM_VERDICT_SAME)
				snprintf(buf, sizeof(buf), "settled: %s",
					 iom_verdict_name(nz[i].verdict));
			else
				snprintf(buf, sizeof(buf), "–");
			cell(v, false, buf);
			fputs(v->row_close, v->out);
			free(label);
		}
		if (v->noisy_end)
			v->noisy_end(v->ctx, m);
	}
	free(nz);
}

/* "NAME has every cell" or "NAME lacks 2 of 30 cells: 1M wr100 qd32, 1M rd100 qd32". */
static void missing(const struct iom_report *m, const struct iom_report_visitor *v)
{
	if (m->nsrc < 2)
		return;
	fprintf(v->out, "%s%s", v->missing_title, v->list_open);
	for (size_t s = 0; s < m->nsrc; s++) {
		size_t *cells, n = iom_report_missing(m, s, &cells);

		fprintf(v->out, "%s%s", v->item_open, v->strong_open);
		text(v, m->src[s].name);
		fputs(v->strong_close, v->out);
		if (!n)
			fputs(" has every cell", v->out);
		else
			fprintf(v->out, " lacks %zu of %zu cells:", n, m->ncells);
		for (size_t i = 0; i < n; i++) {
			char *label = iom_report_cell_label(m, cells[i]);

			fputs(i ? ", " : " ", v->out);
			text(v, label);
			free(label);
		}
		fputs(v->item_close, v->out);
		free(cells);
	}
	fputs(v->list_close, v->out);
}

/* "run 5 of boot2 (lsi 4K rnd qd32): failed: why". */
static void excluded(const struct iom_report *m, const struct iom_report_visitor *v)
{
	if (!m->nexcluded)
		return;
	fprintf(v->out, "%s%s", v->excluded_title, v->list_open);
	for (size_t i = 0; i < m->nexcluded; i++) {
		const struct iom_report_excluded *e = &m->excluded[i];
		char *label = iom_report_cell_label(m, e->cell);

		fprintf(v->out, "%srun %" PRIu32, v->item_open, e->run);
		if (m->nsrc > 1) {
			fputs(" of ", v->out);
			text(v, m->src[e->src].name);
		}
		fputs(" (", v->out);
		text(v, m->compared[e->compared]);
		fputc(' ', v->out);
		text(v, label);
		fprintf(v->out, "): %s", iom_report_excluded_status(e));
		if (e->error) {
			fputs(": ", v->out);
			text(v, e->error);
		}
		fputs(v->item_close, v->out);
		free(label);
	}
	fputs(v->list_close, v->out);
}

static void provenance(const struct iom_report *m, const struct iom_report_visitor *v)
{
	struct iom_report_diff *d;
	size_t n = iom_report_diffs(m, &d);

	if (!v->provenance_begin || v->provenance_begin(v->ctx, m, d, n)) {
		for (size_t i = 0; i < n; i++) {
			char *t = iom_report_diff_text(m, &d[i]);

			fputs(v->item_open, v->out);
			text(v, t);
			fputs(v->item_close, v->out);
			free(t);
		}
		if (v->provenance_end)
			v->provenance_end(v->ctx, m, d, n);
	}
	iom_report_diffs_free(d, n);
}

void iom_report_walk_disk(const struct iom_report *m, const struct iom_report_visitor *v)
{
	if (!iom_report_disk_any(m))
		return;
	if (v->disk_begin)
		v->disk_begin(v->ctx, m);
	for (size_t c = 0; c < m->ncells; c++)
		for (size_t cv = 0; cv < m->ncompared; cv++) {
			char *w = iom_report_disk_words(m, c, cv), *label;

			if (!w)
				continue;
			label = iom_report_cell_label(m, c);
			fputs(v->row_open, v->out);
			cell(v, true, label);
			cell(v, true, m->compared[cv]);
			cell(v, true, w);
			fputs(v->row_close, v->out);
			free(label);
			free(w);
		}
	if (v->disk_end)
		v->disk_end(v->ctx, m);
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
