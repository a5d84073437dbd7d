/* SPDX-License-Identifier: MIT */
/*
 * report_fmt — the report as Markdown, CSV and JSON, for documents, spreadsheets and scripts.
 * Part of the report module (report.h); the model and its statistics are report_load.c's and
 * report_stats.c's.
 *
 * Markdown: a page a pull request or a wiki can hold — the closing verdict first, then one
 * table per metric (cells down, compared values across, mean ± 95 % CI half-width, the verdict
 * with its margin and p), then noisy cells, missing cells, runs left out and provenance.
 * Every table row has as many cells as its header; '|' in text is escaped.
 *
 * CSV (RFC 4180): one row per (cell, metric, compared value), so the column count never
 * depends on the data: the cell's dimensions, the value's statistics and outcome, and the
 * cell's verdict repeated on each of its rows.
 *
 * JSON (schema IOM_REPORT_JSON_SCHEMA): everything the other formats show, with numbers
 * unrounded, non-finite numbers as null. CSV fields and JSON numbers are csv.h's and jsonio.h's,
 * the same as summary.csv's and the run files': nine significant digits, no exponent.
 */
#include "report_model.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "jsonio.h"
#include "result/study.h"
#include "util.h"

#ifndef IOM_VERSION
#define IOM_VERSION "0.1"
#endif

/* ---- shared ---- */

/* The verdicts of every (cell, metric), cell-major (heap; caller frees). */
static struct iom_report_verdict *all_verdicts(const struct iom_report *m)
{
	struct iom_report_verdict *vd = xcalloc(m->ncells * IOM_NMETRIC + 1, sizeof(*vd));

	for (size_t c = 0; c < m->ncells; c++)
		for (int k = 0; k < IOM_NMETRIC; k++)
			iom_report_verdict(m, c, (enum iom_metric)k, &vd[c * IOM_NMETRIC + k]);
	return vd;
}

static const char *name_or_null(const struct iom_report *m, int i)
{
	return i >= 0 ? m->compared[i] : NULL;
}

/* ---- Markdown ---- */

/* Text for a table cell: '|' escaped, line breaks as spaces. */
static void md_text(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			fputs("\\|", out);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', out);
		else
			fputc(*s, out);
	}
}

/* "12.20K ± 0.31K" (n ≥ 2) or "12.20K" (one run), bold for the winner, "–" for none. */
static void md_value(FILE *out, const struct iom_report *m, size_t c, size_t v, enum iom_metric k,
		     const struct iom_report_verdict *vd)
{
	const struct iom_report_reps *r = &m->cells[c].by[v];
	struct iom_stats_summary s;
	char a[48], b[48];

	if (r->n == 0) {
		fputs(r->failed ? "failed" : r->stalled ? "stalled" : r->interrupted ? "interrupted" :
		      "–", out);
		return;
	}
	iom_report_summary(r, k, &s);
	iom_report_fmt_value(a, sizeof(a), k, s.mean);
	fprintf(out, "%s%s%s", vd->winner == (int)v ? "**" : "", a, vd->winner == (int)v ? "**" : "");
	if (s.n >= 2) {
		iom_report_fmt_value(b, sizeof(b), k, s.ci95);
		fprintf(out, " ± %s", b);
		if (s.cv * 100 > m->opts.max_cv_pct)
			fprintf(out, " ⚠ CV %.1f%%", s.cv * 100);
	}
	if (r->stalled)
		fprintf(out, " ⚠ %u stalled left out", r->stalled);
}

static void md_verdict(FILE *out, const struct iom_report *m, enum iom_metric k,
		       const struct iom_report_verdict *vd)
{
	char mg[32];

	iom_report_fmt_margin(mg, sizeof(mg), k, vd->margin_pct);
	switch (vd->kind) {
	case IOM_VERDICT_WIN:
		md_text(out, m->compared[vd->winner]);
		fprintf(out, " wins | %s | %.2g (%.2g)", mg, vd->p_value, vd->p_adjusted);
		break;
	case IOM_VERDICT_SAME:
		fprintf(out, "same (within ± %g %%, TOST p %.2g) | %s | %.2g (%.2g)",
			m->opts.min_effect_pct, vd->tost_adjusted, mg, vd->p_value, vd->p_adjusted);
		break;
	case IOM_VERDICT_UNDECIDED:
		fprintf(out, "undecided (%s; ", vd->tie_by_p ? "not significant" :
						 "not shown the same");
		if (vd->settle_capped)
			fprintf(out, "more than %u repetitions needed", vd->settle);
		else
			fprintf(out, "set timing.repeat = %u", vd->settle);
		fprintf(out, ") | %s | %.2g (%.2g)", mg, vd->p_value, vd->p_adjusted);
		break;
	case IOM_VERDICT_SINGLE_RUN:
		fprintf(out, "single run — no significance | %s | –", mg);
		break;
	default:
		fputs("– | – | –", out);
		break;
	}
}

static void md_source_table(FILE *out, const struct iom_report *m)
{
	static const char *const rows[] = { "directory", "study", "iomatrix", "plan", "host",
					    "kernel", "CPU", "started", "ended", "runs" };

	fputs("| |", out);
	for (size_t i = 0; i < m->nsrc; i++) {
		fputc(' ', out);
		md_text(out, m->src[i].name);
		fputs(" |", out);
	}
	fputs("\n|---|", out);
	for (size_t i = 0; i < m->nsrc; i++)
		fputs("---|", out);
	fputc('\n', out);
	for (size_t r = 0; r < IOM_ARRAY_SIZE(rows); r++) {
		fprintf(out, "| %s |", rows[r]);
		for (size_t i = 0; i < m->nsrc; i++) {
			const struct iom_study_info *s = &m->src[i].study;
			char buf[64] = "?";

			fputc(' ', out);
			switch (r) {
			case 0:
				md_text(out, m->src[i].dir);
				break;
			case 1:
				md_text(out, s->name ? s->name : "?");
				break;
			case 2:
				md_text(out, s->tool_version ? s->tool_version : "?");
				break;
			case 3:
				fprintf(out, "%016" PRIx64, s->plan_hash);
				break;
			case 4:
				md_text(out, s->host ? s->host : "?");
				break;
			case 5:
				md_text(out, s->kernel ? s->kernel : "?");
				break;
			case 6:
				md_text(out, s->cpu_model ? s->cpu_model : "?");
				fprintf(out, " (%u CPUs)", s->ncpu);
				break;
			case 7:
				if (s->start_wall_ns)
					iom_format_utc(buf, sizeof(buf), s->start_wall_ns);
				fputs(buf, out);
				break;
			case 8:
				snprintf(buf, sizeof(buf), "unfinished");
				if (s->end_wall_ns)
					iom_format_utc(buf, sizeof(buf), s->end_wall_ns);
				fputs(buf, out);
				break;
			default:
				fprintf(out, "%zu (%zu ok)", m->src[i].nruns, m->src[i].nok);
				break;
			}
			fputs(" |", out);
		}
		fputc('\n', out);
	}
	for (size_t i = 0; i < m->nsrc; i++) {
		const struct iom_study_info *s = &m->src[i].study;

		for (size_t t = 0; t < s->ntargets; t++) {
			const struct iom_study_target *x = &s->targets[t];

			fputs("\n- ", out);
			if (m->nsrc > 1) {
				md_text(out, m->src[i].name);
				fputs(": ", out);
			}
			fputs("target `", out);
			md_text(out, x->label ? x->label : "?");
			fputs("` on `", out);
			md_text(out, x->path ? x->path : "?");
			fputc('`', out);
			if (x->controller)
				fprintf(out, ", controller %s", x->controller);
			if (x->has_facts) {
				if (x->facts.driver)
					fprintf(out, ", driver %s", x->facts.driver);
				if (x->facts.model)
					fprintf(out, ", %s%s%s", x->facts.vendor ? x->facts.vendor : "",
						x->facts.vendor ? " " : "", x->facts.model);
				if (x->facts.scheduler)
					fprintf(out, ", scheduler %s", x->facts.scheduler);
				if (x->facts.fstype)
					fprintf(out, ", %s", x->facts.fstype);
			}
		}
	}
	fputc('\n', out);
}

/* What the Markdown callbacks of the walk share. */
struct md {
	FILE *out;
	struct iom_report_verdict *vd; /* all_verdicts() */
	const struct iom_report_visitor *v; /* the walk's, for the tables a body places */
};

static void md_disk_begin(void *ctx, const struct iom_report *m)
{
	(void)m;
	fputs("\n## Disk\n\nThe writes and flushes the target's disk completed per run "
	      "(mean of the repetitions), its write cache (write back: volatile) and FUA.\n\n"
	      "| cell | value | disk per run |\n|---|---|---|\n", ((struct md *)ctx)->out);
}

static void md_head(void *ctx, const struct iom_report *m)
{
	FILE *out = ((struct md *)ctx)->out;
	char *fixed = iom_report_fixed_words(m);
	char corr[96];

	fputs("# iomatrix report", out);
	iom_report_study_names(out, m, md_text);
	fprintf(out, "\n\nCompared: **%s** — ", m->compare);
	for (size_t v = 0; v < m->ncompared; v++) {
		fputs(v ? ", " : "", out);
		md_text(out, m->compared[v]);
	}
	iom_report_correction_words(m, corr, sizeof(corr));
	fprintf(out, ". %zu run%s, %zu ok. A winner needs %s p < %g (%s) and a margin above "
		     "%g %%; a coefficient of variation above %g %% is noisy.\n", m->nruns,
		m->nruns == 1 ? "" : "s", m->nok,
		strcmp(iom_report_test_words(m), "Welch") ? "a" : "Welch's", m->opts.alpha, corr,
		m->opts.min_effect_pct, m->opts.max_cv_pct);
	if (iom_report_disk_any(m))
		fputs("Beneath the tables, **Disk**: the writes and flushes the target's disk "
		      "completed per run, its write cache and FUA.\n", out);
	if (iom_report_by_study(m) && m->ncompared > 1) {
		char *changes = iom_report_setup_changes(m);

		fputs("B vs A: ", out);
		for (size_t v = 1; v < m->ncompared; v++) {
			fputs(v > 1 ? ", " : "", out);
			md_text(out, m->compared[v]);
		}
		fputs(" against the baseline ", out);
		md_text(out, m->compared[0]);
		fputs(", target by target.", out);
		if (changes) {
			fputs(" The studies differ in: ", out);
			md_text(out, changes);
			fputc('.', out);
		}
		fputc('\n', out);
		free(changes);
	}
	if (*fixed && m->ncells > 1) {
		fputs("The same in every cell: ", out);
		md_text(out, fixed);
		fputs(".\n", out);
	}
	free(fixed);
}

static bool md_verdict_begin(void *ctx, const struct iom_report *m)
{
	FILE *out = ((struct md *)ctx)->out;

	if (m->ncompared < 2 || !m->ncells)
		return false;
	fprintf(out, "\n## Verdict\n\nCells won / same / undecided / lost (single run), median "
		     "margin, over %zu cell%s.\n\n| %s |", m->ncells, m->ncells == 1 ? "" : "s",
		m->compare);
	for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
	     k = iom_report_metric_next(m, k))
		fprintf(out, " %s |", iom_metrics[k].title);
	fputs("\n|---|", out);
	for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
	     k = iom_report_metric_next(m, k))
		fputs("---|", out);
	fputc('\n', out);
	return true;
}

static void md_verdict_row(void *ctx, const struct iom_report *m, size_t v,
			   const struct iom_report_tally *t)
{
	FILE *out = ((struct md *)ctx)->out;

	fputs("| ", out);
	md_text(out, m->compared[v]);
	fputs(" |", out);
	for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
	     k = iom_report_metric_next(m, k)) {
		char mg[32];

		iom_report_fmt_margin(mg, sizeof(mg), (enum iom_metric)k, t[k].median_margin_pct);
		fprintf(out, " %u / %u / %u / %u (%u), %s |", t[k].won, t[k].same,
			t[k].undecided, t[k].lost, t[k].single_run, mg);
	}
	fputc('\n', out);
}

static void md_hosts(FILE *out, const struct iom_report *m);
static void md_host_prov(FILE *out, const struct iom_report *m);

/* One table per metric: cells down, compared values across, the verdict. */
static void md_body(void *ctx, const struct iom_report *m)
{
	FILE *out = ((struct md *)ctx)->out;
	const struct iom_report_verdict *vd = ((struct md *)ctx)->vd;

	for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
	     k = iom_report_metric_next(m, k)) {
		if (!m->ncells)
			break;
		fprintf(out, "\n## %s\n\n| cell |", iom_metrics[k].title);
		for (size_t v = 0; v < m->ncompared; v++) {
			fputc(' ', out);
			md_text(out, m->compared[v]);
			fputs(" |", out);
		}
		fputs(" verdict | margin | p (adjusted) |\n|---|", out);
		for (size_t v = 0; v < m->ncompared; v++)
			fputs("---:|", out);
		fputs("---|---:|---:|\n", out);
		for (size_t c = 0; c < m->ncells; c++) {
			const struct iom_report_verdict *x = &vd[c * IOM_NMETRIC + k];
			char *label = iom_report_cell_label(m, c);

			fputs("| ", out);
			md_text(out, label);
			fputs(" |", out);
			free(label);
			for (size_t v = 0; v < m->ncompared; v++) {
				fputc(' ', out);
				md_value(out, m, c, v, (enum iom_metric)k, x);
				fputs(" |", out);
			}
			fputc(' ', out);
			md_verdict(out, m, (enum iom_metric)k, x);
			fputs(" |\n", out);
		}
	}
	/* what write-through costs shows in the disk's flushes */
	iom_report_walk_disk(m, ((struct md *)ctx)->v);
	md_hosts(out, m);
}

/* each run's per-host rows beside its aggregate (report_hosts.c) */
static void md_hosts(FILE *out, const struct iom_report *m)
{
	struct iom_report_hline *l;
	size_t n;

	if (!m->nhruns)
		return;
	n = iom_report_hlines(m, 0, &l);
	fputs("\n## Per host\n\n", out);
	md_text(out, iom_report_hosts_legend);
	fputs(".\n\n|", out);
	for (int c = 0; c < IOM_NHCOL; c++)
		fprintf(out, " %s |", iom_report_hcol_title[c]);
	fputs("\n|", out);
	for (int c = 0; c < IOM_NHCOL; c++)
		fputs(c >= IOM_HCOL_IOPS && c <= IOM_HCOL_CPU ? "---:|" : "---|", out);
	fputc('\n', out);
	for (size_t i = 0; i < n; i++) {
		fputc('|', out);
		for (int c = 0; c < IOM_NHCOL; c++) {
			/* the aggregate in bold, and a straggler's flag */
			bool bold = *l[i].col[c] && (l[i].aggregate ||
						     (l[i].straggler && c == IOM_HCOL_FLAGS));

			fputs(bold ? " **" : " ", out);
			md_text(out, l[i].col[c]);
			fputs(bold ? "** |" : " |", out);
		}
		fputc('\n', out);
	}
	iom_report_hlines_free(l, n);
}

/* provenance per host of every source with runs of many hosts */
static void md_host_prov(FILE *out, const struct iom_report *m)
{
	for (size_t i = 0; i < m->nsrc; i++) {
		struct iom_report_host_prov p;

		iom_report_host_prov(m, i, &p);
		if (p.nline) {
			fputs("\nHosts", out);
			if (m->nsrc > 1) {
				fputs(" of ", out);
				md_text(out, m->src[i].name);
			}
			fputs(":\n\n", out);
		}
		for (size_t k = 0; k < p.nline; k++) {
			fputs("- ", out);
			md_text(out, p.line[k]);
			fputc('\n', out);
		}
		if (p.nline && !p.ndiffers)
			fputs("- the same kernel, CPU and device model on every host\n", out);
		for (size_t k = 0; k < p.ndiffers; k++) {
			fputs("- **", out);
			md_text(out, p.differs[k]);
			fputs("**\n", out);
		}
		iom_report_host_prov_release(&p);
	}
}

static bool md_noisy_begin(void *ctx, const struct iom_report *m, size_t n)
{
	(void)n;
	fprintf(((struct md *)ctx)->out, "\n## Noisy cells\n\nCoefficient of variation above %g "
		"%%: more repetitions would settle these.\n\n| cell | %s | metric | runs | CV | "
		"repetitions suggested |\n|---|---|---|---:|---:|---:|\n", m->opts.max_cv_pct,
		m->compare);
	return true;
}

static bool md_provenance_begin(void *ctx, const struct iom_report *m,
				const struct iom_report_diff *d, size_t n)
{
	FILE *out = ((struct md *)ctx)->out;

	(void)d;
	fputs("\n## Provenance\n\n", out);
	md_source_table(out, m);
	md_host_prov(out, m);
	if (n)
		fputs("\nDifferences:\n\n", out);
	return true;
}

int iom_report_write_md(FILE *out, const struct iom_report *m,
			const struct iom_report_opts_cli *o, char *err, size_t errlen)
{
	struct md md = { .out = out, .vd = all_verdicts(m) };
	/* Lists are "- item" lines; sections are "## headings"; the verdict a table. */
	const struct iom_report_visitor v = {
		.ctx = &md, .out = out, .text = md_text, .item_open = "- ", .item_close = "\n",
		.strong_open = "", .strong_close = "", .head = md_head,
		.verdict_begin = md_verdict_begin, .verdict_row = md_verdict_row, .body = md_body,
		.row_open = "|", .row_close = "\n", .cell_left = " ", .cell_right = " ",
		.cell_close = " |", .noisy_begin = md_noisy_begin,
		.list_open = "", .list_close = "", .missing_title = "\n## Missing cells\n\n",
		.excluded_title = "\n## Runs left out\n\n",
		.provenance_begin = md_provenance_begin, .disk_begin = md_disk_begin,
	};

	(void)o;
	md.v = &v;
	iom_report_walk(m, &v);
	free(md.vd);
	return iom_report_out_status(out, err, errlen);
}

/* ---- CSV ---- */

/* The "pooled" column: how a p99 was had ("pooled over 3 runs", or the mean of percentiles of
 * runs from before histograms were kept); empty for every other metric. */
static void pool_field(FILE *out, const struct iom_report_reps *r, enum iom_metric k)
{
	char w[96] = "";

	if (k == IOM_METRIC_LAT_P99 && r->n)
		iom_report_pool_words(r, w, sizeof(w));
	iom_csv_field(out, w, false);
}

/* The disk's columns: writes and flushes per run, "write back" or "write through", FUA "yes"
 * or "no"; empty where the runs did not record them. */
static void disk_fields(FILE *out, const struct iom_report *m, size_t c, size_t v)
{
	struct iom_report_disk d;

	(void)iom_report_disk_of(m, c, v, &d);
	iom_csv_num(out, d.writes);
	iom_csv_num(out, d.flushes);
	iom_csv_field(out, d.write_back < 0 ? "" : d.write_back ? "write back" : "write through",
		      false);
	iom_csv_field(out, d.fua < 0 ? "" : d.fua ? "yes" : "no", false);
}

int iom_report_write_csv(FILE *out, const struct iom_report *m,
			  const struct iom_report_opts_cli *o, char *err, size_t errlen)
{
	static const char *const cols[] = {
		"metric", NULL /* the compared dimension */, "n", "mean", "stddev", "cv_pct",
		"ci95_low", "ci95_high", "outcome", "vs_best_other_pct", "noisy", "verdict",
		"winner", "margin_pct", "p_value", "p_adjusted", "pooled", "disk_writes",
		"disk_flushes", "write_cache", "fua",
	};
	struct iom_report_verdict *vd = all_verdicts(m);

	(void)o;
	iom_csv_field(out, "cell", true);
	for (size_t d = 0; d < m->ndims; d++)
		iom_csv_field(out, m->dims[d], false);
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cols); i++)
		iom_csv_field(out, cols[i] ? cols[i] : m->compare, false);
	iom_csv_end(out);
	for (size_t c = 0; c < m->ncells; c++) {
		char *label = iom_report_cell_label(m, c);

		for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
		     k = iom_report_metric_next(m, k)) {
			const struct iom_report_verdict *x = &vd[c * IOM_NMETRIC + k];

			for (size_t v = 0; v < m->ncompared; v++) {
				const struct iom_report_reps *r = &m->cells[c].by[v];
				struct iom_stats_summary s;
				double mg;
				enum iom_outcome oc = iom_report_outcome(m, c, (enum iom_metric)k, v, &mg);

				iom_report_summary(r, (enum iom_metric)k, &s);
				iom_csv_field(out, label, true);
				for (size_t d = 0; d < m->ndims; d++)
					iom_csv_field(out, m->cells[c].value[d], false);
				iom_csv_field(out, iom_metrics[k].name, false);
				iom_csv_field(out, m->compared[v], false);
				iom_csv_uint(out, r->n, false);
				iom_csv_num(out, r->n ? s.mean : NAN);
				iom_csv_num(out, r->n >= 2 ? s.stddev : NAN);
				iom_csv_num(out, r->n >= 2 ? s.cv * 100 : NAN);
				iom_csv_num(out, r->n >= 2 ? s.ci95_lo : NAN);
				iom_csv_num(out, r->n >= 2 ? s.ci95_hi : NAN);
				iom_csv_field(out, iom_outcome_name(oc), false);
				iom_csv_num(out, mg);
				iom_csv_field(out, r->n >= 2 && s.cv * 100 > m->opts.max_cv_pct ?
						   "yes" : "no", false);
				iom_csv_field(out, iom_verdict_name(x->kind), false);
				iom_csv_field(out, name_or_null(m, x->winner), false);
				iom_csv_num(out, x->margin_pct);
				iom_csv_num(out, x->p_value);
				iom_csv_num(out, x->p_adjusted);
				pool_field(out, r, (enum iom_metric)k);
				disk_fields(out, m, c, v);
				iom_csv_end(out);
			}
		}
		free(label);
	}
	free(vd);
	return iom_report_out_status(out, err, errlen);
}

/* ---- JSON ---- */

/* A dimension value as the run files write it: an integer, a boolean or a string. */
/* A value's disk per run (mean of its repetitions): { writes, flushes, write_cache, fua },
 * null when no repetition knows its disk. */
static json_object *disk_json(const struct iom_report *m, size_t c, size_t v)
{
	struct iom_report_disk d;
	json_object *o;

	if (!iom_report_disk_of(m, c, v, &d))
		return NULL;
	o = json_object_new_object();
	iom_json_add(o, "writes", iom_json_num(d.writes));
	iom_json_add(o, "flushes", isfinite(d.flushes) ? iom_json_num(d.flushes) : NULL);
	iom_json_add(o, "write_cache", d.write_back < 0 ? NULL :
		     json_object_new_string(d.write_back ? "write back" : "write through"));
	iom_json_add(o, "fua", d.fua < 0 ? NULL : json_object_new_boolean(d.fua));
	return o;
}

static json_object *jvalue(const char *s)
{
	char *end;
	long long v;

	if (strcmp(s, "true") == 0 || strcmp(s, "false") == 0)
		return json_object_new_boolean(s[0] == 't');
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*s && !*end && !errno && (s[0] != '0' || s[1] == '\0'))
		return json_object_new_int64(v);
	return json_object_new_string(s);
}

static json_object *jcell(const struct iom_report *m, size_t c)
{
	json_object *o = json_object_new_object();

	for (size_t d = 0; d < m->ndims; d++)
		iom_json_add(o, m->dims[d], jvalue(m->cells[c].value[d]));
	return o;
}

static json_object *jsource(const struct iom_report_source *src)
{
	const struct iom_study_info *s = &src->study;
	json_object *o = json_object_new_object(), *ts = json_object_new_array();
	char hash[32];

	snprintf(hash, sizeof(hash), "%016" PRIx64, s->plan_hash);
	iom_json_add(o, "dir", json_object_new_string(src->dir));
	iom_json_add(o, "name", json_object_new_string(src->name));
	iom_json_add(o, "study", iom_json_str(s->name));
	iom_json_add(o, "tool_version", iom_json_str(s->tool_version));
	iom_json_add(o, "plan_hash", json_object_new_string(hash));
	iom_json_add(o, "host", iom_json_str(s->host));
	iom_json_add(o, "kernel", iom_json_str(s->kernel));
	iom_json_add(o, "cpu_model", iom_json_str(s->cpu_model));
	iom_json_add(o, "cpu_count", json_object_new_int64(s->ncpu));
	iom_json_add(o, "start_utc", iom_json_utc(s->start_wall_ns));
	iom_json_add(o, "end_utc", iom_json_utc(s->end_wall_ns));
	iom_json_add(o, "runs", json_object_new_uint64(src->nruns));
	iom_json_add(o, "ok", json_object_new_uint64(src->nok));
	for (size_t i = 0; i < s->ntargets; i++) {
		const struct iom_study_target *t = &s->targets[i];
		json_object *x = json_object_new_object();

		iom_json_add(x, "label", iom_json_str(t->label));
		iom_json_add(x, "path", iom_json_str(t->path));
		iom_json_add(x, "controller", iom_json_str(t->controller));
		iom_json_add(x, "filesystem", iom_json_str(t->filesystem));
		if (t->has_facts) {
			iom_json_add(x, "driver", iom_json_str(t->facts.driver));
			iom_json_add(x, "device", iom_json_str(t->facts.device));
			iom_json_add(x, "vendor", iom_json_str(t->facts.vendor));
			iom_json_add(x, "model", iom_json_str(t->facts.model));
			iom_json_add(x, "scheduler", iom_json_str(t->facts.scheduler));
			iom_json_add(x, "nr_requests", json_object_new_int64(t->facts.nr_requests));
			iom_json_add(x, "fstype", iom_json_str(t->facts.fstype));
			iom_json_add(x, "mount_options", iom_json_str(t->facts.mount_options));
		}
		json_object_array_add(ts, x);
	}
	iom_json_add(o, "targets", ts);
	return o;
}

/*
 * per metric the variance prior of the moderated t (ln scale): used or not, d0 (null
 * when infinite, with d0_infinite), s0 (√s0², about the typical CV), how many comparisons it
 * was fitted to and the df cap. NULL before the verdicts are decided.
 */
static json_object *jprior(const struct iom_report *m)
{
	json_object *o;

	if (!m->vd)
		return NULL;
	o = json_object_new_object();
	for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
	     k = iom_report_metric_next(m, k)) {
		const struct iom_stats_prior *pr = &m->prior[k];
		json_object *x = json_object_new_object();

		iom_json_add(x, "used", json_object_new_boolean(m->moderated[k]));
		iom_json_add(x, "d0", iom_json_num(pr->d0));
		iom_json_add(x, "d0_infinite", json_object_new_boolean(isinf(pr->d0)));
		iom_json_add(x, "s0", iom_json_num(sqrt(pr->s0sq)));
		iom_json_add(x, "comparisons", json_object_new_uint64(pr->n));
		iom_json_add(x, "df_cap", iom_json_num(pr->df_cap));
		iom_json_add(o, iom_metrics[k].name, x);
	}
	return o;
}

/* All I/O's latency at every percentile, pooled (or the mean of the runs' percentiles). */
static json_object *jpercentiles(const struct iom_report_reps *r)
{
	json_object *o = json_object_new_object();

	for (int i = 0; i < IOM_NPCT; i++) {
		char key[32];

		snprintf(key, sizeof(key), "%.10g", iom_percentiles[i]);
		iom_json_add(o, key, iom_json_num(iom_report_pct(r, i)));
	}
	return iom_json_one_line(o);
}

static json_object *jmetric(const struct iom_report *m, size_t c, enum iom_metric k,
			    const struct iom_report_verdict *vd)
{
	json_object *o = json_object_new_object(), *vals = json_object_new_object();

	iom_json_add(o, "verdict", json_object_new_string(iom_verdict_name(vd->kind)));
	iom_json_add(o, "winner", iom_json_str(name_or_null(m, vd->winner)));
	iom_json_add(o, "best", iom_json_str(name_or_null(m, vd->best)));
	iom_json_add(o, "runner_up", iom_json_str(name_or_null(m, vd->runner_up)));
	iom_json_add(o, "margin_pct", iom_json_num(vd->margin_pct));
	iom_json_add(o, "p_value", iom_json_num(vd->p_value));
	iom_json_add(o, "p_adjusted", iom_json_num(vd->p_adjusted));
	iom_json_add(o, "tost_p", iom_json_num(vd->tost_p));
	iom_json_add(o, "tost_p_adjusted", iom_json_num(vd->tost_adjusted));
	iom_json_add(o, "undecided_reason", vd->kind != IOM_VERDICT_UNDECIDED ? NULL :
			     json_object_new_string(vd->tie_by_p ? "not significant" :
								   "below min_effect"));
	iom_json_add(o, "settle_repeat", vd->kind != IOM_VERDICT_UNDECIDED ? NULL :
			     json_object_new_uint64(vd->settle));
	iom_json_add(o, "settle_capped", vd->kind != IOM_VERDICT_UNDECIDED ? NULL :
			     json_object_new_boolean(vd->settle_capped));
	iom_json_add(o, "noisy", json_object_new_boolean(vd->noisy));
	/* which test decided, on how many degrees of freedom */
	iom_json_add(o, "test", isnan(vd->df) ? NULL :
			     json_object_new_string(vd->moderated ? "moderated t" : "welch"));
	iom_json_add(o, "df", iom_json_num(vd->df));
	for (size_t v = 0; v < m->ncompared; v++) {
		const struct iom_report_reps *r = &m->cells[c].by[v];
		json_object *x = json_object_new_object(), *runs = json_object_new_array(), *ci;
		struct iom_stats_summary s;
		double mg;
		enum iom_outcome oc = iom_report_outcome(m, c, k, v, &mg);

		iom_report_summary(r, k, &s);
		iom_json_add(x, "n", json_object_new_uint64(r->n));
		iom_json_add(x, "mean", r->n ? iom_json_num(s.mean) : NULL);
		iom_json_add(x, "stddev", r->n >= 2 ? iom_json_num(s.stddev) : NULL);
		iom_json_add(x, "cv_pct", r->n >= 2 ? iom_json_num(s.cv * 100) : NULL);
		ci = NULL;
		if (r->n >= 2) {
			ci = json_object_new_array();
			json_object_array_add(ci, iom_json_num(s.ci95_lo));
			json_object_array_add(ci, iom_json_num(s.ci95_hi));
		}
		iom_json_add(x, "ci95", ci);
		iom_json_add(x, "min", r->n ? iom_json_num(s.min) : NULL);
		iom_json_add(x, "max", r->n ? iom_json_num(s.max) : NULL);
		iom_json_add(x, "outcome", json_object_new_string(iom_outcome_name(oc)));
		iom_json_add(x, "vs_best_other_pct", iom_json_num(mg));
		iom_json_add(x, "disk", disk_json(m, c, v));
		if (m->vd) {
			size_t i = (c * IOM_NMETRIC + k) * m->ncompared + v;

			iom_json_add(x, "p_vs_best", iom_json_num(m->p_raw[i]));
			iom_json_add(x, "p_vs_best_adjusted", iom_json_num(m->p_adj[i]));
			iom_json_add(x, "df_vs_best", iom_json_num(m->df_used[i]));
		}
		for (size_t i = 0; i < r->n; i++)
			json_object_array_add(runs, json_object_new_int64(r->run[i]));
		iom_json_add(x, "runs", runs);
		if (r->failed)
			iom_json_add(x, "failed", json_object_new_int64(r->failed));
		if (r->interrupted)
			iom_json_add(x, "interrupted", json_object_new_int64(r->interrupted));
		if (r->stalled)
			iom_json_add(x, "stalled", json_object_new_int64(r->stalled));
		if (r->few_ios)
			iom_json_add(x, "too_few_ios", json_object_new_int64(r->few_ios));
		if (k == IOM_METRIC_LAT_P99 && r->n) {
			char w[96];

			iom_report_pool_words(r, w, sizeof(w));
			iom_json_add(x, "pooled_runs", json_object_new_uint64(
				iom_report_pooled(r) ? r->n : 0));
			iom_json_add(x, "pooled", json_object_new_string(w));
			iom_json_add(x, "percentiles_ns", jpercentiles(r));
		}
		iom_json_add(vals, m->compared[v], x);
	}
	iom_json_add(o, "values", vals);
	return o;
}

/* the runs of many hosts, each with its aggregate and its rows (report_hosts.c). */
static json_object *jhost_runs(const struct iom_report *m)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < m->nhruns; i++) {
		const struct iom_report_hrun *h = &m->hruns[i];
		json_object *x = json_object_new_object(), *agg = json_object_new_object(),
			    *rows = json_object_new_array();
		char *label = iom_report_cell_label(m, h->cell);

		iom_json_add(x, "source", json_object_new_string(m->src[h->src].name));
		iom_json_add(x, "run", json_object_new_int64(h->run));
		iom_json_add(x, "label", json_object_new_string(label));
		iom_json_add(x, "compared", json_object_new_string(m->compared[h->compared]));
		iom_json_add(x, "status", json_object_new_string(iom_run_status_name(h->status)));
		iom_json_add(x, "stonewalled", json_object_new_boolean(h->stonewalled));
		iom_json_add(agg, "iops", iom_json_num(h->iops));
		iom_json_add(agg, "mb_s", iom_json_num(h->mb_s));
		iom_json_add(agg, "lat_mean_ns", iom_json_num(h->lat_mean_ns));
		iom_json_add(agg, "lat_p99_ns", iom_json_num(h->lat_p99_ns));
		iom_json_add(agg, "cpu_s", iom_json_num(h->cpu_s));
		iom_json_add(x, "aggregate", agg);
		for (size_t k = 0; k < h->nrows; k++) {
			const struct iom_host_row *r = &h->rows[k];
			json_object *y = json_object_new_object();

			iom_json_add(y, "rank", json_object_new_int64(r->rank));
			iom_json_add(y, "host", json_object_new_string(r->host));
			iom_json_add(y, "status", json_object_new_string(
					     iom_run_status_name((enum iom_run_status)r->status)));
			iom_json_add(y, "iops", iom_json_num(r->iops));
			iom_json_add(y, "mb_s", iom_json_num(r->mb_s));
			iom_json_add(y, "lat_mean_ns", iom_json_num(r->lat_mean_ns));
			iom_json_add(y, "lat_p99_ns", json_object_new_uint64(r->p99_ns));
			iom_json_add(y, "cpu_s", iom_json_num(r->user_s + r->sys_s));
			iom_json_add(y, "straggler", json_object_new_boolean(r->straggler));
			iom_json_add(y, "stonewalled", json_object_new_boolean(r->stonewalled));
			json_object_array_add(rows, y);
		}
		iom_json_add(x, "hosts", rows);
		json_object_array_add(a, x);
		free(label);
	}
	return a;
}

/* The report's head: schema, tool, the compared values, the options in force, the dimensions
 * and the runs' counts. */
static void json_head(json_object *root, const struct iom_report *m)
{
	json_object *a, *o;

	iom_json_add(root, "schema", json_object_new_int(IOM_REPORT_JSON_SCHEMA));
	iom_json_add(root, "kind", json_object_new_string("iomatrix report"));
	iom_json_add(root, "tool_version", json_object_new_string(IOM_VERSION));
	iom_json_add(root, "compare", json_object_new_string(m->compare));
	a = json_object_new_array();
	for (size_t v = 0; v < m->ncompared; v++)
		json_object_array_add(a, json_object_new_string(m->compared[v]));
	iom_json_add(root, "compared", a);
	o = json_object_new_object();
	iom_json_add(o, "alpha", iom_json_num(m->opts.alpha));
	iom_json_add(o, "min_effect_pct", iom_json_num(m->opts.min_effect_pct));
	iom_json_add(o, "max_cv_pct", iom_json_num(m->opts.max_cv_pct));
	iom_json_add(o, "correction", json_object_new_string(
		iom_correction_name((enum iom_correction)m->opts.correction)));
	iom_json_add(o, "tests", json_object_new_uint64(m->ntests));
	iom_json_add(o, "variance_prior", jprior(m));
	a = json_object_new_array();
	for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
	     k = iom_report_metric_next(m, k))
		json_object_array_add(a, json_object_new_string(iom_metrics[k].name));
	iom_json_add(o, "metrics", a);
	iom_json_add(root, "options", o);
	a = json_object_new_array();
	o = json_object_new_array();
	for (size_t d = 0; d < m->ndims; d++) {
		json_object_array_add(a, json_object_new_string(m->dims[d]));
		if (m->varies[d])
			json_object_array_add(o, json_object_new_string(m->dims[d]));
	}
	iom_json_add(root, "dimensions", a);
	iom_json_add(root, "varies", o);
	iom_json_add(root, "runs", json_object_new_uint64(m->nruns));
	iom_json_add(root, "ok", json_object_new_uint64(m->nok));
}

/* The sources, their differences in a recorded fact, and the cells each lacks. */
static void json_sources(json_object *root, const struct iom_report *m)
{
	struct iom_report_diff *df;
	size_t ndf;
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < m->nsrc; i++)
		json_object_array_add(a, jsource(&m->src[i]));
	iom_json_add(root, "sources", a);
	ndf = iom_report_diffs(m, &df);
	a = json_object_new_array();
	for (size_t i = 0; i < ndf; i++) {
		json_object *x = json_object_new_object(), *vals = json_object_new_array();
		char *t = iom_report_diff_text(m, &df[i]);

		iom_json_add(x, "what", json_object_new_string(df[i].what));
		for (size_t j = 0; j < m->nsrc; j++)
			json_object_array_add(vals, json_object_new_string(df[i].value[j]));
		iom_json_add(x, "values", vals);
		iom_json_add(x, "text", json_object_new_string(t));
		free(t);
		json_object_array_add(a, x);
	}
	iom_report_diffs_free(df, ndf);
	iom_json_add(root, "differences", a);
	a = json_object_new_array();
	for (size_t s = 0; m->nsrc > 1 && s < m->nsrc; s++) {
		size_t *cells, n = iom_report_missing(m, s, &cells);
		json_object *x = json_object_new_object(), *cs = json_object_new_array();

		iom_json_add(x, "source", json_object_new_string(m->src[s].name));
		for (size_t i = 0; i < n; i++) {
			json_object *y = json_object_new_object();
			char *label = iom_report_cell_label(m, cells[i]);

			iom_json_add(y, "label", json_object_new_string(label));
			iom_json_add(y, "cell", jcell(m, cells[i]));
			json_object_array_add(cs, y);
			free(label);
		}
		iom_json_add(x, "cells", cs);
		json_object_array_add(a, x);
		free(cells);
	}
	iom_json_add(root, "missing", a);
}

/* Every cell with its compared metrics, then per compared value the closing verdict. */
static void json_cells(json_object *root, const struct iom_report *m)
{
	struct iom_report_verdict *vd = all_verdicts(m);
	json_object *a = json_object_new_array(), *o;

	for (size_t c = 0; c < m->ncells; c++) {
		json_object *x = json_object_new_object(), *ms = json_object_new_object();
		char *label = iom_report_cell_label(m, c);

		iom_json_add(x, "label", json_object_new_string(label));
		iom_json_add(x, "cell", jcell(m, c));
		for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
		     k = iom_report_metric_next(m, k))
			iom_json_add(ms, iom_metrics[k].name, jmetric(m, c, (enum iom_metric)k,
							     &vd[c * IOM_NMETRIC + k]));
		iom_json_add(x, "metrics", ms);
		json_object_array_add(a, x);
		free(label);
	}
	iom_json_add(root, "cells", a);
	free(vd);

	o = json_object_new_object();
	for (size_t v = 0; v < m->ncompared; v++) {
		json_object *x = json_object_new_object();

		for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
		     k = iom_report_metric_next(m, k)) {
			json_object *y = json_object_new_object();
			struct iom_report_tally t;

			iom_report_tally(m, (enum iom_metric)k, v, &t);
			iom_json_add(y, "won", json_object_new_int64(t.won));
			iom_json_add(y, "same", json_object_new_int64(t.same));
			iom_json_add(y, "undecided", json_object_new_int64(t.undecided));
			iom_json_add(y, "lost", json_object_new_int64(t.lost));
			iom_json_add(y, "single_run", json_object_new_int64(t.single_run));
			iom_json_add(y, "compared_cells", json_object_new_uint64(t.nmargin));
			iom_json_add(y, "median_margin_pct", iom_json_num(t.median_margin_pct));
			iom_json_add(x, iom_metrics[k].name, y);
		}
		iom_json_add(o, m->compared[v], x);
	}
	iom_json_add(root, "verdict", o);
}

/* The notes: noisy values with the repetitions that would settle them, the runs left out. */
static void json_notes(json_object *root, const struct iom_report *m)
{
	struct iom_report_noisy *nz;
	size_t nnz = iom_report_noisy_list(m, &nz);
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < nnz; i++) {
		json_object *x = json_object_new_object();
		char *label = iom_report_cell_label(m, nz[i].cell);

		iom_json_add(x, "label", json_object_new_string(label));
		iom_json_add(x, "compared", json_object_new_string(m->compared[nz[i].compared]));
		iom_json_add(x, "metric", json_object_new_string(iom_metrics[nz[i].metric].name));
		iom_json_add(x, "n", json_object_new_uint64(nz[i].n));
		iom_json_add(x, "cv_pct", iom_json_num(nz[i].cv_pct));
		iom_json_add(x, "suggested_repetitions", nz[i].verdict != IOM_VERDICT_UNDECIDED ?
			     NULL : json_object_new_int64(nz[i].suggest));
		json_object_array_add(a, x);
		free(label);
	}
	free(nz);
	iom_json_add(root, "noisy", a);

	a = json_object_new_array();
	for (size_t i = 0; i < m->nexcluded; i++) {
		const struct iom_report_excluded *e = &m->excluded[i];
		json_object *x = json_object_new_object();
		char *label = iom_report_cell_label(m, e->cell);

		iom_json_add(x, "source", json_object_new_string(m->src[e->src].name));
		iom_json_add(x, "run", json_object_new_int64(e->run));
		iom_json_add(x, "label", json_object_new_string(label));
		iom_json_add(x, "compared", json_object_new_string(m->compared[e->compared]));
		iom_json_add(x, "status", json_object_new_string(iom_report_excluded_status(e)));
		iom_json_add(x, "error", iom_json_str(e->error));
		json_object_array_add(a, x);
		free(label);
	}
	iom_json_add(root, "excluded", a);
}

/* The runs of many hosts, and per source its hosts' provenance. */
static void json_hosts(json_object *root, const struct iom_report *m)
{
	json_object *a;

	iom_json_add(root, "host_runs", jhost_runs(m));
	a = json_object_new_array();
	for (size_t i = 0; i < m->nsrc; i++) {
		json_object *x = json_object_new_object(), *ls = json_object_new_array(),
			    *ds = json_object_new_array();
		struct iom_report_host_prov p;

		iom_report_host_prov(m, i, &p);
		for (size_t k = 0; k < p.nline; k++)
			json_object_array_add(ls, json_object_new_string(p.line[k]));
		for (size_t k = 0; k < p.ndiffers; k++)
			json_object_array_add(ds, json_object_new_string(p.differs[k]));
		iom_json_add(x, "source", json_object_new_string(m->src[i].name));
		iom_json_add(x, "hosts", ls);
		iom_json_add(x, "differences", ds);
		json_object_array_add(a, x);
		iom_report_host_prov_release(&p);
	}
	iom_json_add(root, "host_provenance", a);
}

/* The JSON report, section by section in the order docs/reports.md gives. */
int iom_report_write_json(FILE *out, const struct iom_report *m,
			   const struct iom_report_opts_cli *opts, char *err, size_t errlen)
{
	json_object *root = json_object_new_object();
	char *text;

	(void)opts;
	json_head(root, m);
	json_sources(root, m);
	json_cells(root, m);
	json_notes(root, m);
	json_hosts(root, m);
	text = iom_json_text(root);
	fputs(text, out);
	free(text);
	json_object_put(root);
	return iom_report_out_status(out, err, errlen);
}
