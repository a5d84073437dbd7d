/* SPDX-License-Identifier: MIT */
/*
 * report_html — the report as one self-contained HTML page: inline CSS and SVG, no script,
 * nothing fetched. Part of the report module (report.h); the charts are drawn by chart.c.
 *
 * The page reads top-down the way a study is judged: the verdict (cells won, same, undecided,
 * lost per compared value and metric), the charts, the winners table as a heat map (each value shaded
 * by its margin over the best of the others: green when it won, red when it lost, white when
 * the difference is not significant, pale when a single run allows no test), the notes (noisy
 * cells, missing cells, runs left out) and the provenance of every directory with the
 * differences between them marked.
 * The charts are report_charts.c's.
 *
 * Charts appear when the data has the dimension they need, and say so when it does not:
 *  - ATTO: block_size varying; per block size, write and read MB/s per compared value, from
 *    the cells of each "slice" (one value of every other dimension but read_pct): write from
 *    the cell with the fewest reads, read from the one with the most;
 *  - IOMeter's outstanding-I/O view: queue_depth varying; IOPS, and mean and p99 latency,
 *    against queue depth per compared value, one pair of charts per slice;
 *  - latency percentile curves of the chosen cell (--cell; default the first), 1 % …
 *    99.9999999 %, pooled over the repetitions (their histograms merged; the mean of their
 *    percentiles for runs from before histograms were kept);
 *  - IOPS over time: the per-second intervals of the chosen run (--run), or of the first
 *    finished repetition of each compared value in the chosen cell.
 * At most four slices of each kind are drawn, the chosen cell's first; the others are named.
 */
#include "report_model.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "result/resdir.h"
#include "result/study.h"
#include "strbuf.h"
#include "util.h"

#ifndef IOM_VERSION
#define IOM_VERSION "0.1"
#endif

static void esc(FILE *out, const char *s)
{
	iom_chart_escape(out, s);
}

static const char *CSS =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
	"color:#222;margin:20px auto;max-width:1140px;padding:0 16px;background:#fff}"
	"h1{font-size:24px;margin:0 0 4px}"
	"h2{font-size:18px;margin:26px 0 10px;border-bottom:1px solid #ddd;padding-bottom:4px}"
	"h3{font-size:15px;margin:16px 0 6px}"
	".sub{color:#555;margin:2px 0}"
	"table{border-collapse:collapse;font-variant-numeric:tabular-nums;margin:4px 0}"
	"th,td{padding:3px 8px;border:1px solid #e1e3e6;text-align:right;vertical-align:top}"
	"th{background:#f3f4f6;font-weight:600;white-space:nowrap}"
	".l{text-align:left}"
	"td small{display:block;font-size:11px;color:#333;line-height:1.2;white-space:nowrap}"
	"td.win{font-weight:700}"
	"td.none{color:#aaa}"
	".noisy{color:#b35c00;font-weight:700;cursor:help}"
	".note{color:#666;font-style:italic;margin:4px 0}"
	".charts{display:flex;flex-wrap:wrap;gap:10px;margin:6px 0}"
	"svg.chart{border:1px solid #e3e3e3;border-radius:4px}"
	"tr.diff td,tr.diff th{background:#fff3cd}"
	".key span{display:inline-block;padding:1px 8px;margin-right:6px;border:1px solid #ddd}"
	"ul{margin:4px 0 4px 20px;padding:0}"
	"footer{margin:30px 0 10px;color:#888;font-size:12px}";

/* ---- the verdict and the heat map ---- */

/* What the HTML callbacks of the walk share. */
struct html {
	FILE *out;
	size_t cell;                /* the cell of the percentile and time charts */
	struct iom_report_time_run *runs;      /* the runs of the time chart */
	size_t nr;
	const char *title;          /* the time chart's */
	const struct iom_report_visitor *v; /* the walk's, for the tables a body places */
};

static bool verdict_begin(void *ctx, const struct iom_report *m)
{
	FILE *out = ((struct html *)ctx)->out;
	char corr[96];

	fputs("<h2 id=\"verdict\">Verdict</h2>\n", out);
	if (m->ncompared < 2) {
		iom_report_html_note(out, "one %s only: nothing to compare", m->compare);
		return false;
	}
	iom_report_correction_words(m, corr, sizeof(corr));
	fprintf(out, "<p class=\"sub\">cells won / same / undecided / lost over %zu cell%s, and the "
		     "median margin against the best of the others (a win needs %s p &lt; %g, %s, "
		     "and a margin above %g %%)</p>\n", m->ncells, m->ncells == 1 ? "" : "s",
		strcmp(iom_report_test_words(m), "Welch") ? "a" : "Welch's", m->opts.alpha, corr,
		m->opts.min_effect_pct);
	fputs("<table><thead><tr><th class=\"l\">", out);
	esc(out, m->compare);
	fputs("</th>", out);
	for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
	     k = iom_report_metric_next(m, k))
		fprintf(out, "<th>%s</th>", iom_metrics[k].title);
	fputs("</tr></thead><tbody>\n", out);
	return true;
}

static void verdict_row(void *ctx, const struct iom_report *m, size_t v,
			const struct iom_report_tally *tally)
{
	FILE *out = ((struct html *)ctx)->out;

	fprintf(out, "<tr><th class=\"l\"><span style=\"color:%s\">■</span> ",
		iom_chart_color(v));
	esc(out, m->compared[v]);
	fputs("</th>", out);
	for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
	     k = iom_report_metric_next(m, k)) {
		const struct iom_report_tally *t = &tally[k];
		char mg[32], bg[16];
		unsigned decided = t->won + t->same + t->undecided + t->lost;

		iom_chart_heat(bg, sizeof(bg), decided ? 0.8 * ((double)t->won - t->lost) /
							       decided : 0);
		iom_report_fmt_margin(mg, sizeof(mg), (enum iom_metric)k, t->median_margin_pct);
		fprintf(out, "<td style=\"background:%s\">%u won · %u same · %u undecided · %u lost",
			bg, t->won, t->same, t->undecided, t->lost);
		if (t->single_run)
			fprintf(out, " · %u single run", t->single_run);
		fprintf(out, "<small>median %s</small></td>", mg);
	}
	fputs("</tr>\n", out);
}

/* Closes a table (the verdict's, the noisy cells'). */
static void table_end(void *ctx, const struct iom_report *m)
{
	(void)m;
	fputs("</tbody></table>\n", ((struct html *)ctx)->out);
}

static void heat_cell(FILE *out, const struct iom_report *m, size_t c, size_t v, enum iom_metric k,
		      const struct iom_report_verdict *vd)
{
	const struct iom_report_reps *r = &m->cells[c].by[v];
	struct iom_stats_summary s;
	double mg, t = 0;
	enum iom_outcome oc = iom_report_outcome(m, c, k, v, &mg);
	char val[48], ci[48], mgs[32], bg[16], tip[512];
	bool noisy;

	if (r->n == 0) {
		fprintf(out, "<td class=\"none\">%s</td>", r->failed ? "failed" :
							    r->stalled ? "stalled" :
							    r->interrupted ? "intr." : "–");
		return;
	}
	iom_report_summary(r, k, &s);
	noisy = r->n >= 2 && s.cv * 100 > m->opts.max_cv_pct;
	iom_report_fmt_value(val, sizeof(val), k, s.mean);
	iom_report_fmt_value(ci, sizeof(ci), k, s.ci95);
	iom_report_fmt_margin(mgs, sizeof(mgs), k, mg);
	if (isfinite(mg) || isinf(mg)) {
		double a = fmin(fabs(mg) / 25.0, 1) * 0.85;

		switch (oc) {
		case IOM_OUTCOME_WON:
			t = fmax(a, 0.2);
			break;
		case IOM_OUTCOME_LOST:
			t = -fmax(a, 0.2);
			break;
		case IOM_OUTCOME_SINGLE_RUN:
			t = (mg > 0 ? 1 : -1) * 0.35 * a;
			break;
		default:
			t = 0;
			break;
		}
	}
	iom_chart_heat(bg, sizeof(bg), t);
	if (r->n >= 2)
		snprintf(tip, sizeof(tip), "%s %s: mean %s ± %s (95%% CI), CV %.1f%%, %zu runs; %s, "
			 "%s vs the best other%s%.2g", m->compared[v], iom_metrics[k].title, val, ci,
			 s.cv * 100, r->n, iom_outcome_name(oc), mgs,
			 isfinite(vd->p_value) ? "; Welch p (best vs runner-up) " : "",
			 isfinite(vd->p_value) ? vd->p_value : 0.0);
	else
		snprintf(tip, sizeof(tip), "%s %s: %s, one run; %s, %s vs the best other",
			 m->compared[v], iom_metrics[k].title, val, iom_outcome_name(oc), mgs);
	fprintf(out, "<td%s style=\"background:%s\" title=\"", oc == IOM_OUTCOME_WON ?
		" class=\"win\"" : "", bg);
	esc(out, tip);
	fputs("\">", out);
	esc(out, val);
	if (noisy)
		fprintf(out, "<span class=\"noisy\" title=\"noisy: CV %.1f%%\">~</span>",
			s.cv * 100);
	if (r->stalled)
		fprintf(out, "<span class=\"noisy\" title=\"%u stalled run%s left out\">!</span>",
			r->stalled, r->stalled == 1 ? "" : "s");
	if (vd->best == (int)v) {
		char mb[40];

		switch (vd->kind) {
		case IOM_VERDICT_WIN:
			iom_report_fmt_margin(mb, sizeof(mb), k, vd->margin_pct);
			fprintf(out, "<small>%s</small>", mb);
			break;
		case IOM_VERDICT_SAME:
			fprintf(out, "<small>same</small>");
			break;
		case IOM_VERDICT_UNDECIDED:
			fprintf(out, "<small>undecided</small>");
			break;
		case IOM_VERDICT_SINGLE_RUN:
			iom_report_fmt_margin(mb, sizeof(mb), k, vd->margin_pct);
			fprintf(out, "<small>(%s)</small>", mb);
			break;
		default:
			break;
		}
	}
	fputs("</td>", out);
}

static void heat_table(FILE *out, const struct iom_report *m)
{
	char pos[16], neg[16], pale[16];

	fputs("<h2 id=\"winners\">Winners by cell</h2>\n", out);
	if (m->ncells == 0) {
		iom_report_html_note(out, "no finished runs to report");
		return;
	}
	iom_chart_heat(pos, sizeof(pos), 0.7);
	iom_chart_heat(neg, sizeof(neg), -0.7);
	iom_chart_heat(pale, sizeof(pale), 0.3);
	fprintf(out, "<p class=\"sub key\">mean over repetitions (lat p99: pooled over their "
		     "histograms); shade by margin over the best of "
		     "the others: <span style=\"background:%s\">won</span><span "
		     "style=\"background:%s\">lost</span><span>same (within ± %g %%) or "
		     "undecided</span><span style=\"background:%s\">single run, no test</span> "
		     "<span class=\"noisy\">~</span> noisy (CV &gt; %g %%); hover a value for its "
		     "confidence interval%s</p>\n", pos, neg, m->opts.min_effect_pct, pale,
		m->opts.max_cv_pct, iom_report_disk_any(m) ? "; beneath the table, the disk per "
		"run: its writes and flushes, its write cache and FUA" : "");
	fputs("<table class=\"heat\"><thead><tr><th class=\"l\" rowspan=\"2\">cell</th>", out);
	for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
	     k = iom_report_metric_next(m, k))
		fprintf(out, "<th colspan=\"%zu\">%s</th>", m->ncompared, iom_metrics[k].title);
	fputs("</tr><tr>", out);
	for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
	     k = iom_report_metric_next(m, k)) {
		for (size_t v = 0; v < m->ncompared; v++) {
			fprintf(out, "<th><span style=\"color:%s\">■</span> ", iom_chart_color(v));
			esc(out, m->compared[v]);
			fputs("</th>", out);
		}
	}
	fputs("</tr></thead><tbody>\n", out);
	for (size_t c = 0; c < m->ncells; c++) {
		char *label = iom_report_cell_label(m, c);

		fputs("<tr><th class=\"l\">", out);
		esc(out, label);
		fputs("</th>", out);
		free(label);
		for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
		     k = iom_report_metric_next(m, k)) {
			struct iom_report_verdict vd;

			iom_report_verdict(m, c, (enum iom_metric)k, &vd);
			for (size_t v = 0; v < m->ncompared; v++)
				heat_cell(out, m, c, v, (enum iom_metric)k, &vd);
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

/* The disk's table beneath the winners: what the target's disk did per run. */
static void disk_begin(void *ctx, const struct iom_report *m)
{
	FILE *out = ((struct html *)ctx)->out;

	(void)m;
	fputs("<h3 id=\"disk\">Disk per run</h3>\n<p class=\"sub key\">mean of the repetitions: ",
	      out);
	esc(out, iom_report_disk_legend);
	fputs("</p>\n<table><thead><tr><th class=\"l\">cell</th><th class=\"l\">value</th>"
	      "<th class=\"l\">disk per run</th></tr></thead><tbody>\n", out);
}

static void disk_end(void *ctx, const struct iom_report *m)
{
	(void)m;
	fputs("</tbody></table>\n", ((struct html *)ctx)->out);
}

/* ---- notes and provenance ---- */

static void notes_begin(void *ctx, const struct iom_report *m, size_t n)
{
	FILE *out = ((struct html *)ctx)->out;

	fputs("<h2 id=\"notes\">Notes</h2>\n", out);
	if (!n && m->nsrc < 2 && !m->nexcluded)
		iom_report_html_note(out, "no noisy cells, no runs left out");
}

static bool noisy_begin(void *ctx, const struct iom_report *m, size_t n)
{
	FILE *out = ((struct html *)ctx)->out;

	(void)n;
	fprintf(out, "<h3>Noisy cells (CV above %g %%)</h3>\n<table><thead><tr><th "
		     "class=\"l\">cell</th><th class=\"l\">", m->opts.max_cv_pct);
	esc(out, m->compare);
	fputs("</th><th class=\"l\">metric</th><th>runs</th><th>CV</th><th>repetitions "
	      "suggested</th></tr></thead><tbody>\n", out);
	return true;
}

static void noisy_end(void *ctx, const struct iom_report *m)
{
	table_end(ctx, m);
	iom_report_html_note(((struct html *)ctx)->out, "repetitions suggested: per side, for Welch's test to "
	     "detect the larger of the observed margin and the minimum effect with 80 %% power");
}

static bool differs(const struct iom_report_diff *d, size_t nd, const char *what)
{
	for (size_t i = 0; i < nd; i++)
		if (strcmp(d[i].what, what) == 0)
			return true;
	return false;
}

static void prov_row(FILE *out, const struct iom_report *m, const struct iom_report_diff *d,
		     size_t nd, const char *label, const char *what, char **values)
{
	fprintf(out, "<tr%s><th class=\"l\">", what && differs(d, nd, what) ? " class=\"diff\"" : "");
	esc(out, label);
	fputs("</th>", out);
	for (size_t i = 0; i < m->nsrc; i++) {
		fputs("<td class=\"l\">", out);
		esc(out, values[i] ? values[i] : "?");
		fputs("</td>", out);
		free(values[i]);
		values[i] = NULL;
	}
	fputs("</tr>\n", out);
}

static bool provenance_begin(void *ctx, const struct iom_report *m,
			     const struct iom_report_diff *d, size_t nd)
{
	FILE *out = ((struct html *)ctx)->out;

	(void)d;
	fputs("<h2 id=\"provenance\">Provenance</h2>\n", out);
	if (m->nsrc > 1 && nd)
		fputs("<p><b>Differences between the directories:</b></p>\n<ul>\n", out);
	return true;
}

static void hosts_prov(FILE *out, const struct iom_report *m);

/* After the differences: the table of every source's facts, a fact that differs marked. */
static void provenance_end(void *ctx, const struct iom_report *m,
			   const struct iom_report_diff *d, size_t nd)
{
	FILE *out = ((struct html *)ctx)->out;
	char **v = xcalloc(m->nsrc + 1, sizeof(*v));

	if (m->nsrc > 1) {
		if (nd)
			fputs("</ul>\n", out);
		else
			iom_report_html_note(out, "no differences in tool, plan, host, kernel, CPU or devices");
		if (m->qualified)
			iom_report_html_note(out, "a value that measured the same cell in two directories is named "
				  "value@directory");
	}
	fputs("<table><thead><tr><th></th>", out);
	for (size_t i = 0; i < m->nsrc; i++) {
		fputs("<th class=\"l\">", out);
		esc(out, m->src[i].name);
		fputs("</th>", out);
	}
	fputs("</tr></thead><tbody>\n", out);
#define ROW(label, what, expr)                                             \
	do {                                                               \
		for (size_t i = 0; i < m->nsrc; i++) {                     \
			const struct iom_study_info *s = &m->src[i].study; \
			(void)s;                                           \
			v[i] = (expr);                                     \
		}                                                          \
		prov_row(out, m, d, nd, label, what, v);                   \
	} while (0)
#define S(x) xstrdup((x) ? (x) : "?")
	ROW("directory", NULL, S(m->src[i].dir));
	ROW("study", "matrix", S(s->name));
	ROW("iomatrix", "tool version", S(s->tool_version));
	ROW("plan hash", "plan", xasprintf("%016" PRIx64, s->plan_hash));
	ROW("host", "host", S(s->host));
	ROW("kernel", "kernel", S(s->kernel));
	ROW("CPU", "CPU", xasprintf("%s (%u CPUs)", s->cpu_model ? s->cpu_model : "?", s->ncpu));
	ROW("started", NULL, ({
		    char b[32] = "?";
		    if (s->start_wall_ns)
			    iom_format_utc(b, sizeof(b), s->start_wall_ns);
		    xstrdup(b);
	    }));
	ROW("ended", NULL, ({
		    char b[32] = "unfinished";
		    if (s->end_wall_ns)
			    iom_format_utc(b, sizeof(b), s->end_wall_ns);
		    xstrdup(b);
	    }));
	ROW("measured", "duration", s->timing.bytes ?
		    xasprintf("%" PRIu64 " bytes per run", s->timing.bytes) :
		    xasprintf("%g s per run, %g s warm-up", (double)s->timing.duration_ns / 1e9,
			      (double)s->timing.warmup_ns / 1e9));
	ROW("repetitions", "repetitions", xasprintf("%" PRIu32, s->timing.repeat));
	ROW("runs", NULL, xasprintf("%zu (%zu ok)", m->src[i].nruns, m->src[i].nok));
	ROW("targets", "target", ({
		    struct iom_strbuf b = { 0 };

		    for (size_t t = 0; t < s->ntargets; t++) {
			    const struct iom_study_target *x = &s->targets[t];
			    const char *drv = x->has_facts && x->facts.driver ? x->facts.driver :
										      x->controller;

			    iom_strbuf_printf(&b, "%s%s: %s", t ? "; " : "",
					      x->label ? x->label : "?", x->path ? x->path : "?");
			    if (drv)
				    iom_strbuf_printf(&b, ", %s", drv);
			    if (x->has_facts && x->facts.model)
				    iom_strbuf_printf(&b, ", %s%s%s",
						      x->facts.vendor ? x->facts.vendor : "",
						      x->facts.vendor ? " " : "", x->facts.model);
			    if (x->has_facts && x->facts.scheduler)
				    iom_strbuf_printf(&b, ", scheduler %s", x->facts.scheduler);
			    if (x->has_facts && x->facts.nr_requests)
				    iom_strbuf_printf(&b, ", nr_requests %u", x->facts.nr_requests);
			    if (x->has_facts && x->facts.fstype)
				    iom_strbuf_printf(&b, ", %s", x->facts.fstype);
		    }
		    iom_strbuf_take(&b);
	    }));
#undef S
#undef ROW
	fputs("</tbody></table>\n", out);
	free(v);
	hosts_prov(out, m);
}

/* ---- runs of many hosts (report_hosts.c) ---- */

/* Each run's per-host rows beside its aggregate; a straggler's row marked. */
static void hosts_table(FILE *out, const struct iom_report *m)
{
	struct iom_report_hline *l;
	size_t n;

	if (!m->nhruns)
		return;
	n = iom_report_hlines(m, 0, &l);
	fputs("<h2 id=\"hosts\">Per host</h2>\n", out);
	iom_report_html_note(out, "%s", iom_report_hosts_legend);
	fputs("<table><thead><tr>", out);
	for (int c = 0; c < IOM_NHCOL; c++)
		fprintf(out, "<th%s>%s</th>", c >= IOM_HCOL_IOPS && c <= IOM_HCOL_CPU ? "" :
			" class=\"l\"", iom_report_hcol_title[c]);
	fputs("</tr></thead><tbody>\n", out);
	for (size_t i = 0; i < n; i++) {
		fputs(l[i].straggler ? "<tr class=\"diff straggler\">" : "<tr>", out);
		for (int c = 0; c < IOM_NHCOL; c++) {
			bool num = c >= IOM_HCOL_IOPS && c <= IOM_HCOL_CPU;

			fprintf(out, "<td class=\"%s%s\">", num ? "" : "l",
				l[i].aggregate ? " win" : "");
			esc(out, l[i].col[c]);
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
	iom_report_hlines_free(l, n);
}

/* Provenance per host of every source with runs of many hosts: facts, then what differs. */
static void hosts_prov(FILE *out, const struct iom_report *m)
{
	for (size_t i = 0; i < m->nsrc; i++) {
		struct iom_report_host_prov p;

		iom_report_host_prov(m, i, &p);
		if (p.nline) {
			fputs("<h3>Hosts", out);
			if (m->nsrc > 1) {
				fputs(" of ", out);
				esc(out, m->src[i].name);
			}
			fputs("</h3>\n<ul>\n", out);
			for (size_t k = 0; k < p.nline; k++) {
				fputs("<li>", out);
				esc(out, p.line[k]);
				fputs("</li>\n", out);
			}
			for (size_t k = 0; k < p.ndiffers; k++) {
				fputs("<li class=\"diff\"><b>", out);
				esc(out, p.differs[k]);
				fputs("</b></li>\n", out);
			}
			if (!p.ndiffers)
				fputs("<li>the same kernel, CPU and device model on every host</li>\n",
				      out);
			fputs("</ul>\n", out);
		}
		iom_report_host_prov_release(&p);
	}
}

/* ---- the page ---- */

static void page_head(void *ctx, const struct iom_report *m)
{
	FILE *out = ((struct html *)ctx)->out;
	char *fixed;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>iomatrix report", out);
	iom_report_study_names(out, m, esc);
	fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<header>\n<h1>iomatrix report",
		CSS);
	iom_report_study_names(out, m, esc);
	fputs("</h1>\n<p class=\"sub\">compared: <b>", out);
	esc(out, m->compare);
	fputs("</b> — ", out);
	for (size_t v = 0; v < m->ncompared; v++) {
		fprintf(out, "%s<span style=\"color:%s\">■</span> ", v ? ", " : "",
			iom_chart_color(v));
		esc(out, m->compared[v]);
	}
	fprintf(out, " · %zu cell%s · %zu run%s, %zu ok · α %g · min effect %g %% · max CV %g %%"
		"</p>\n", m->ncells, m->ncells == 1 ? "" : "s", m->nruns, m->nruns == 1 ? "" : "s",
		m->nok, m->opts.alpha, m->opts.min_effect_pct,
		m->opts.max_cv_pct);
	if (iom_report_by_study(m) && m->ncompared > 1) {
		char *changes = iom_report_setup_changes(m);

		fputs("<p class=\"sub\">B vs A: ", out);
		for (size_t v = 1; v < m->ncompared; v++) {
			fputs(v > 1 ? ", " : "", out);
			esc(out, m->compared[v]);
		}
		fputs(" against the baseline ", out);
		esc(out, m->compared[0]);
		fputs(", target by target", out);
		if (changes) {
			fputs("; the studies differ in: <b>", out);
			esc(out, changes);
			fputs("</b>", out);
		}
		fputs("</p>\n", out);
		free(changes);
	}
	fixed = iom_report_fixed_words(m);
	if (*fixed && m->ncells > 1) {
		fputs("<p class=\"sub\">the same in every cell: ", out);
		esc(out, fixed);
		fputs("</p>\n", out);
	}
	free(fixed);
	fputs("<p class=\"sub\">from ", out);
	for (size_t i = 0; i < m->nsrc; i++) {
		const struct iom_study_info *s = &m->src[i].study;
		const char *k = s->kernel ? s->kernel : "?";

		fputs(i ? "; " : "", out);
		esc(out, m->src[i].dir);
		fputs(" (", out);
		esc(out, s->host ? s->host : "?");
		fputs(", kernel ", out);
		fprintf(out, "%.*s)", (int)strcspn(k, " "), k);
	}
	fputs("</p>\n</header>\n", out);
}

static void page_body(void *ctx, const struct iom_report *m)
{
	const struct html *h = ctx;
	FILE *out = h->out;

	fputs("<h2 id=\"charts\">Charts</h2>\n", out);
	if (m->ncells) {
		iom_report_html_charts(out, m, h->cell, h->runs, h->nr, h->title);
	} else {
		iom_report_html_note(out, "no finished runs: nothing to draw");
	}
	heat_table(out, m);
	iom_report_walk_disk(m, h->v);
	hosts_table(out, m);
}

static void page_tail(void *ctx, const struct iom_report *m)
{
	(void)m;
	fprintf(((struct html *)ctx)->out, "<footer>made by iomatrix %s from the results "
		"directories alone; this page needs no script and fetches nothing</footer>\n"
		"</body>\n</html>\n", IOM_VERSION);
}

int iom_report_write_html(FILE *out, const struct iom_report *m,
			  const struct iom_report_opts_cli *o, char *err, size_t errlen)
{
	size_t cell = 0, nr = 0;
	struct iom_report_time_run *runs = NULL;
	char *title = NULL;
	int ret = 0;

	if (o && o->cell) {
		ret = iom_report_find_cell(m, o->cell, &cell, err, errlen);
		if (ret < 0)
			return ret;
	}
	/* The runs of the time chart, read before anything is written. */
	if (o && o->run) {
		struct iom_report_time_run t = { 0 };

		ret = iom_report_find_run(m, o->run, &t.src, &t.run, err, errlen);
		if (ret < 0)
			return ret;
		ret = iom_report_time_series(m, &t, err, errlen);
		if (ret < 0)
			return ret;
		for (size_t c = 0; c < m->ncells; c++)
			for (size_t v = 0; v < m->ncompared; v++)
				for (size_t i = 0; i < m->cells[c].by[v].n; i++)
					if (m->cells[c].by[v].run[i] == t.run &&
					    m->cells[c].by[v].src[i] == t.src) {
						char *l = iom_report_cell_label(m, c);

						t.compared = v;
						title = xasprintf("IOPS over time — run %" PRIu32 ": %s %s",
								  t.run, m->compared[v], l);
						free(l);
					}
		if (!title)
			title = xasprintf("IOPS over time — run %" PRIu32, t.run);
		t.name = xasprintf("run %" PRIu32, t.run);
		runs = xcalloc(1, sizeof(*runs));
		runs[nr++] = t;
	} else if (m->ncells) {
		char *l = iom_report_cell_label(m, cell);

		runs = xcalloc(m->ncompared + 1, sizeof(*runs));
		for (size_t v = 0; v < m->ncompared; v++) {
			const struct iom_report_reps *r = &m->cells[cell].by[v];
			struct iom_report_time_run t = { .compared = v };
			char e[IOM_ERRLEN];

			if (!r->n)
				continue;
			t.src = r->src[0];
			t.run = r->run[0];
			if (iom_report_time_series(m, &t, e, sizeof(e)) < 0)
				continue;
			t.name = xasprintf("%s (run %" PRIu32 ")", m->compared[v], t.run);
			runs[nr++] = t;
		}
		title = xasprintf("IOPS over time — %s, first repetition of each", l);
		free(l);
	}

	{
		struct html h = { .out = out, .cell = cell, .runs = runs, .nr = nr,
				  .title = title };
		/* Lists are <ul>s of <li>s, the verdict and the noisy cells <table>s. */
		const struct iom_report_visitor v = {
			.ctx = &h, .out = out, .text = esc, .item_open = "<li>",
			.item_close = "</li>\n", .strong_open = "<b>", .strong_close = "</b>",
			.head = page_head, .verdict_begin = verdict_begin, .verdict_row = verdict_row,
			.verdict_end = table_end, .body = page_body, .notes_begin = notes_begin,
			.row_open = "<tr>", .row_close = "</tr>\n", .cell_left = "<td class=\"l\">",
			.cell_right = "<td>", .cell_close = "</td>", .noisy_begin = noisy_begin,
			.noisy_end = noisy_end,
			.list_open = "<ul>\n", .list_close = "</ul>\n",
			.missing_title = "<h3>Cells missing</h3>\n",
			.excluded_title = "<h3>Runs left out</h3>\n",
			.provenance_begin = provenance_begin, .provenance_end = provenance_end,
			.tail = page_tail, .disk_begin = disk_begin, .disk_end = disk_end,
		};

		h.v = &v;
		iom_report_walk(m, &v);
	}
	for (size_t i = 0; i < nr; i++) {
		free(runs[i].x);
		free(runs[i].y);
		free(runs[i].p50);
		free(runs[i].p99);
		free(runs[i].name);
	}
	free(runs);
	free(title);
	if (ferror(out))
		return iom_err(err, errlen, EIO, "cannot write the report: %s", strerror(EIO));
	return 0;
}
