/* SPDX-License-Identifier: MIT */
/*
 * report_text — the text report (report.h): provenance, the winners table, the closing verdict
 * and the notes beneath, for a storage engineer reading a terminal.
 *
 * One row per cell named in the compact words of the trade ("4K rnd rd70 qd32"), one column
 * group per compared value, 4 significant figures with the unit in the text (12.35K IOPS,
 * 70.9µs); a winner marked '*' (bold on a terminal) with its margin beneath ("better by
 * 20.8%"), "same", "?" (undecided) or "(better by 3.1%)" (single run) otherwise. Every line
 * fits the width (the terminal's, COLUMNS or --width; 100 when not a terminal): when the column
 * groups of all compared values do not fit side by side, there is one table per metric with
 * the compared values as its columns, never a block per compared value. The closing verdict
 * counts per compared value the cells won, same, undecided and lost with the median margin;
 * the undecided cells follow with the repetitions that would settle them. The DiskSpd-style
 * report of a single run is report_run.c's.
 */
#include "report_model.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "result/study.h"
#include "strbuf.h"
#include "units.h"
#include "util.h"

#define DEFAULT_WIDTH 100
#define MAX_EXCLUDED_SHOWN 20
#define MAX_NOISY_SHOWN 20
#define MAX_MISSING_SHOWN 12

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
	if (k == IOM_METRIC_LAT_P99 && r->few_ios) { /* too few I/Os for a p99 */
		snprintf(buf, len, "n/a");
		return;
	}
	noisy = r->n >= 2 && iom_stats_cv(r->v[k], r->n) * 100 > m->opts.max_cv_pct;
	iom_report_fmt_value(num, sizeof(num), k, iom_report_mean(r, k));
	snprintf(buf, len, "%s%s%s%s", winners && vd->winner == (int)cv ? "*" : "", num,
		 noisy ? "~" : "", r->stalled && k == IOM_METRIC_IOPS ? "!" : "");
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

/* A margin beneath the best value, which is better by it: "20.8%" without a sign (the legend
 * says "better by the margin beneath"; a sign would mean more for IOPS and less for latency),
 * "3.15×" from 100 % on, else the margin's words ("even"). */
static void best_margin(char *buf, size_t len, enum iom_metric k, double pct)
{
	char mg[32], *times;

	iom_report_fmt_margin(mg, sizeof(mg), k, pct);
	/* a ratio beneath the best is its own: "3.15×" */
	if ((times = strstr(mg, "× ")))
		times[strlen("×")] = '\0';
	snprintf(buf, len, "%s", strncmp(mg, "better by ", 10) == 0 ? mg + 10 : mg);
}

/* Beneath the table, for a study with paced runs (docs/load.md): that their latency
 * is response time, and which offered loads each compared value held — "a held 2.00K, 4.00K;
 * saturated at 8.00K (achieved 6.10K)" — over the mean of each cell's repetitions. */
static void load_note(FILE *out, const struct iom_report *m, unsigned width)
{
	bool any = false;

	for (size_t cv = 0; cv < m->ncompared; cv++) {
		struct iom_strbuf held = { 0 }, sat = { 0 };
		size_t nh = 0, ns = 0;

		for (size_t c = 0; c < m->ncells; c++) {
			const struct iom_report_reps *r = &m->cells[c].by[cv];
			double off = 0, ach = 0, hl = 0, svc = 0, svc99 = 0;
			char a[32], b[32], sm[32], sp[32], *w;

			for (size_t i = 0; i < r->n; i++) {
				off += r->x[IOM_X_OFFERED][i];
				ach += r->v[IOM_METRIC_IOPS][i];
				hl += r->x[IOM_X_HELD][i];
				svc += r->x[IOM_X_SVC_MEAN][i];
				svc99 += r->x[IOM_X_SVC_P99][i];
			}
			if (!r->n || !(off > 0))
				continue;
			iom_count_format(off / (double)r->n, a, sizeof(a));
			iom_count_format(ach / (double)r->n, b, sizeof(b));
			/* the service time (submission to completion) beside the table's response time */
			iom_lat_format(svc / (double)r->n, sm, sizeof(sm));
			iom_lat_format(svc99 / (double)r->n, sp, sizeof(sp));
			w = iom_report_cell_label(m, c);
			if (hl == (double)r->n)
				iom_strbuf_printf(&held, "%s%s (%s; service time avg %s, p99 %s)",
						  nh++ ? ", " : "", a, w, sm, sp);
			else
				iom_strbuf_printf(&sat, "%s%s (%s; achieved %s; service time avg %s, "
						  "p99 %s)", ns++ ? ", " : "", a, w, b, sm, sp);
			free(w);
		}
		if (nh || ns) {
			char *line;

			if (!any) {
				fputc('\n', out);
				print_wrapped(out, "lat avg and lat p99 of paced runs (rate_iops, "
					      "rate_mb_s) are response times, from each I/O's due "
					      "time; their service times, from submission, follow "
					      "(docs/load.md)", width, 2);
			}
			any = true;
			line = xasprintf("%s: held %s%s%s%s", m->compared[cv],
					 nh ? iom_strbuf_get(&held) : "none", ns ? "; saturated at " : "",
					 ns ? iom_strbuf_get(&sat) : "", "");
			print_wrapped(out, line, width, 2);
			free(line);
		}
		free(held.s);
		free(sat.s);
	}
}


/* Beneath the tables: the values whose runs shared the machine with other processes that took
 * more than IOM_OTHER_CPU_PCT % of a core (their CPU figures include them) — "rd100 qd1, a: 2
 * of 2 runs, up to 97% of a core". */
static void neighbour_note(FILE *out, const struct iom_report *m, unsigned width)
{
	bool any = false;

	for (size_t c = 0; c < m->ncells; c++)
		for (size_t v = 0; v < m->ncompared; v++) {
			const struct iom_report_reps *r = &m->cells[c].by[v];
			size_t busy = 0;
			double top = 0;
			char *label, *line;

			for (size_t i = 0; i < r->n; i++)
				if (r->x[IOM_X_OTHER_CPU][i] > IOM_OTHER_CPU_PCT) {
					busy++;
					top = fmax(top, r->x[IOM_X_OTHER_CPU][i]);
				}
			if (!busy)
				continue;
			if (!any) {
				char *head = xasprintf("busy neighbours: other processes took more than "
						       "%g%% of a core during these runs' windows, so "
						       "their CPU figures (CPU/IO, busy %%) include "
						       "them:", IOM_OTHER_CPU_PCT);

				fputc('\n', out);
				print_wrapped(out, head, width, 2);
				free(head);
			}
			any = true;
			label = iom_report_cell_label(m, c);
			line = xasprintf("  %s, %s: %zu of %zu run%s, up to %.0f%% of a core", label,
					 m->compared[v], busy, r->n, r->n == 1 ? "" : "s", top);
			print_wrapped(out, line, width, 4);
			free(line);
			free(label);
		}
}

/* Beneath the tables, when any run wrote to a known disk: per cell, what the disk did per run
 * for each compared value — "rd0 qd1: a 51.7K writes, 18.7K flushes (write back, no FUA)". */
static void disk_note(FILE *out, const struct iom_report *m, unsigned width)
{
	if (!iom_report_disk_any(m))
		return;
	fputc('\n', out);
	fputs("disk per run (mean of the repetitions):\n", out);
	for (size_t c = 0; c < m->ncells; c++) {
		struct iom_strbuf b = { 0 };
		char *label = iom_report_cell_label(m, c);
		bool any = false;

		iom_strbuf_printf(&b, "  %s:", label);
		for (size_t v = 0; v < m->ncompared; v++) {
			char *w = iom_report_disk_words(m, c, v);

			if (w)
				iom_strbuf_printf(&b, "%s %s %s", any ? ";" : "", m->compared[v], w);
			any |= w != NULL;
			free(w);
		}
		if (any)
			print_wrapped(out, iom_strbuf_get(&b), width, 4);
		iom_strbuf_release(&b);
		free(label);
	}
}

/* What the line beneath a row shows under the best value: "20.8%", "same", "?" (undecided),
 * "(3.1%)". */
static bool beneath_text(enum iom_metric k, const struct iom_report_verdict *vd, char *buf,
			 size_t len)
{
	char mg[32];

	buf[0] = '\0';
	switch (vd->kind) {
	case IOM_VERDICT_WIN:
		best_margin(buf, len, k, vd->margin_pct);
		return true;
	case IOM_VERDICT_SAME:
		snprintf(buf, len, "same");
		return true;
	case IOM_VERDICT_UNDECIDED:
		snprintf(buf, len, "?");
		return true;
	case IOM_VERDICT_SINGLE_RUN:
		best_margin(mg, sizeof(mg), k, vd->margin_pct);
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
	unsigned nkind[IOM_NVERDICT];      /* verdicts of each kind */
	bool noisy;
	bool stalled;                      /* some shown value left a stalled run out */
	unsigned few_ios;                  /* fewest I/Os of a run too small for a p99 */
	unsigned unpooled;                 /* a p99 from runs without histograms: a mean */
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
	for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
	     k = iom_report_metric_next(m, k)) {
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
		t->groupw += t->colw[k] + (k != iom_report_metric_next(m, -1));
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

	for (int k = iom_report_metric_next(t->m, -1); k < IOM_NMETRIC;
	     k = iom_report_metric_next(t->m, k))
		used += t->colw[k] + (k != iom_report_metric_next(t->m, -1));
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
		for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
		     k = iom_report_metric_next(m, k)) {
			iom_strbuf_spaces(&b, k != iom_report_metric_next(m, -1));
			sb_cell(&b, iom_metrics[k].title, t->colw[k], false, false);
		}
	}
	sb_line(&b, out);
	for (size_t c = 0; c < m->ncells; c++) {
		bool beneath = false;

		sb_cell(&b, t->label[c], t->labelw, true, false);
		for (size_t v = from; v < to; v++) {
			group_start(&b, t, v == from);
			for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
			     k = iom_report_metric_next(m, k)) {
				const struct iom_report_verdict *vd = &t->vd[c * IOM_NMETRIC + k];
				bool win = t->winners && vd->winner == (int)v;

				entry_text(m, c, v, k, vd, t->winners, buf, sizeof(buf));
				iom_strbuf_spaces(&b, k != iom_report_metric_next(m, -1));
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
			for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
			     k = iom_report_metric_next(m, k)) {
				const struct iom_report_verdict *vd = &t->vd[c * IOM_NMETRIC + k];

				buf[0] = '\0';
				if (vd->best == (int)v)
					beneath_text((enum iom_metric)k, vd, buf, sizeof(buf));
				iom_strbuf_spaces(&b, k != iom_report_metric_next(m, -1));
				sb_cell(&b, buf, t->colw[k], false, false);
			}
		}
		sb_line(&b, out);
	}
	free(b.s);
}

/* The width of compared value v's column in metric k's table. */
static int metric_colw(const struct table *t, int k, size_t v)
{
	return IOM_MAX(t->colw[k], dispw(t->m->compared[v]));
}

/* Metric k's table over compared values [from, to): a row per cell, a column per value, the
 * margin beneath the best. */
static void metric_block(FILE *out, const struct table *t, int k, size_t from, size_t to)
{
	const struct iom_report *m = t->m;
	struct iom_strbuf b = { 0 };
	char buf[64];

	sb_cell(&b, "cell", t->labelw, true, false);
	for (size_t v = from; v < to; v++) {
		iom_strbuf_spaces(&b, 2);
		sb_cell(&b, m->compared[v], metric_colw(t, k, v), false, false);
	}
	sb_line(&b, out);
	for (size_t c = 0; c < m->ncells; c++) {
		const struct iom_report_verdict *vd = &t->vd[c * IOM_NMETRIC + k];
		bool beneath = false;

		sb_cell(&b, t->label[c], t->labelw, true, false);
		for (size_t v = from; v < to; v++) {
			bool win = t->winners && vd->winner == (int)v;

			entry_text(m, c, v, (enum iom_metric)k, vd, t->winners, buf, sizeof(buf));
			iom_strbuf_spaces(&b, 2);
			sb_cell(&b, buf, metric_colw(t, k, v), false, win && t->color);
			beneath |= t->winners && vd->best == (int)v && vd->kind != IOM_VERDICT_NONE;
		}
		sb_line(&b, out);
		if (!beneath)
			continue;
		iom_strbuf_spaces(&b, t->labelw);
		for (size_t v = from; v < to; v++) {
			buf[0] = '\0';
			if (vd->best == (int)v)
				beneath_text((enum iom_metric)k, vd, buf, sizeof(buf));
			iom_strbuf_spaces(&b, 2);
			sb_cell(&b, buf, metric_colw(t, k, v), false, false);
		}
		sb_line(&b, out);
	}
	free(b.s);
}

/* When the compared values do not fit side by side with every metric: one table per metric
 * with the compared values as its columns (never a block per compared value). A metric whose
 * columns still do not fit goes on in a further block of the same metric. */
static void metric_tables(FILE *out, const struct table *t, unsigned width)
{
	for (int k = iom_report_metric_next(t->m, -1); k < IOM_NMETRIC;
	     k = iom_report_metric_next(t->m, k)) {
		fprintf(out, "%s%s\n", k != iom_report_metric_next(t->m, -1) ? "\n" : "", iom_metrics[k].title);
		for (size_t from = 0; from < t->m->ncompared;) {
			size_t to = from + 1;
			int w = t->labelw + 2 + metric_colw(t, k, from);

			while (to < t->m->ncompared &&
			       (unsigned)(w + 2 + metric_colw(t, k, to)) <= width)
				w += 2 + metric_colw(t, k, to++);
			if (from)
				fputc('\n', out);
			metric_block(out, t, k, from, to);
			from = to;
		}
	}
}

/* "10/1/0/1 +8.1%" (won/same/undecided/lost[/single], median margin). */
static void tally_text(const struct iom_report_tally *t, enum iom_metric k, bool single,
		       char *buf, size_t len)
{
	char mg[32];

	iom_report_fmt_margin(mg, sizeof(mg), k, t->median_margin_pct);
	if (single)
		snprintf(buf, len, "%u/%u/%u/%u/%u %s", t->won, t->same, t->undecided, t->lost,
			 t->single_run, mg);
	else
		snprintf(buf, len, "%u/%u/%u/%u %s", t->won, t->same, t->undecided, t->lost, mg);
}

/* The closing verdict: per compared value and metric, cells won, same, undecided, lost; median
 * margin. */
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
		for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
		     k = iom_report_metric_next(m, k))
			iom_report_tally(m, (enum iom_metric)k, v, &ty[v * IOM_NMETRIC + k]);
	}
	total = labelw;
	for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
	     k = iom_report_metric_next(m, k)) {
		colw[k] = dispw(iom_metrics[k].title);
		for (size_t v = 0; v < m->ncompared; v++) {
			tally_text(&ty[v * IOM_NMETRIC + k], (enum iom_metric)k, single, buf,
				   sizeof(buf));
			colw[k] = IOM_MAX(colw[k], dispw(buf));
		}
		total += 2 + colw[k];
	}
	fprintf(out, "verdict over %zu cell%s: won/same/undecided/lost%s, median margin\n",
		m->ncells, m->ncells == 1 ? "" : "s", single ? "/single run" : "");
	if (total <= (int)width) {
		iom_strbuf_spaces(&b, labelw);
		for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
		     k = iom_report_metric_next(m, k)) {
			iom_strbuf_spaces(&b, 2);
			sb_cell(&b, iom_metrics[k].title, colw[k], true, false);
		}
		sb_line(&b, out);
		for (size_t v = 0; v < m->ncompared; v++) {
			sb_cell(&b, m->compared[v], labelw, true, false);
			for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
			     k = iom_report_metric_next(m, k)) {
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
			for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
			     k = iom_report_metric_next(m, k)) {
				tally_text(&ty[v * IOM_NMETRIC + k], (enum iom_metric)k, single, buf,
					   sizeof(buf));
				iom_strbuf_printf(&b, " %s %s%s", iom_metrics[k].title, buf,
					  iom_report_metric_next(m, k) < IOM_NMETRIC ? ";" : "");
			}
			print_wrapped(out, iom_strbuf_get(&b), width, 2);
			b.len = 0;
		}
	}
	free(b.s);
	free(ty);
}

/* the undecided cells, their metrics together, with the repetitions to set:
 * "4K rnd qd32: IOPS +1.2%, lat avg -0.8% (3 runs): set timing.repeat = 9 to settle". */
static void undecided_block(FILE *out, const struct table *t, unsigned width)
{
	const struct iom_report *m = t->m;
	struct iom_strbuf b = { 0 };
	size_t shown = 0;

	{
		char *head = xasprintf("undecided (%u): neither a win nor the same shown; more "
				       "repetitions would settle them",
				       t->nkind[IOM_VERDICT_UNDECIDED]);

		fputc('\n', out);
		print_wrapped(out, head, width, 2);
		free(head);
	}
	for (size_t c = 0; c < m->ncells; c++) {
		unsigned settle = 0;
		size_t have = SIZE_MAX;
		bool capped = false, any = false;

		for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
		     k = iom_report_metric_next(m, k)) {
			const struct iom_report_verdict *vd = &t->vd[c * IOM_NMETRIC + k];
			char mg[32];

			if (vd->kind != IOM_VERDICT_UNDECIDED)
				continue;
			if (!any && shown++ == MAX_NOISY_SHOWN) {
				fprintf(out, "  … and more (the JSON and CSV reports list every one)\n");
				free(b.s);
				return;
			}
			if (!any)
				iom_strbuf_printf(&b, "  %s:", t->label[c]);
			iom_report_fmt_margin(mg, sizeof(mg), (enum iom_metric)k, vd->margin_pct);
			iom_strbuf_printf(&b, "%s %s %s", any ? "," : "", iom_metrics[k].title, mg);
			any = true;
			settle = IOM_MAX(settle, vd->settle);
			capped |= vd->settle_capped;
			have = IOM_MIN(have, IOM_MIN(m->cells[c].by[vd->best].n,
						     m->cells[c].by[vd->runner_up].n));
		}
		if (!any)
			continue;
		if (capped)
			iom_strbuf_printf(&b, " (%zu runs; more than %u would be needed)", have,
					  settle);
		else
			iom_strbuf_printf(&b, " (%zu runs; about %u would settle it: timing.repeat = "
					  "%u)", have, settle, settle);
		print_wrapped(out, iom_strbuf_get(&b), width, 4);
		b.len = 0;
	}
	free(b.s);
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
		bool firstm = true, capped = false;

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
			capped |= nz[j].capped;
		}
		iom_strbuf_printf(&b, " (%zu runs", nz[i].n);
		if (suggest > nz[i].n && capped)
			iom_strbuf_printf(&b, "; more than %u would be needed", suggest);
		else if (suggest > nz[i].n)
			iom_strbuf_printf(&b, "; about %u would settle it", suggest);
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
		words = iom_report_varying_words(m, e->cell);

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

static void print_host_prov(FILE *out, const struct iom_report *m, size_t i, unsigned width);

static void print_provenance(FILE *out, const struct iom_report *m, unsigned width)
{
	struct iom_report_diff *d;
	size_t nd;

	for (size_t i = 0; i < m->nsrc; i++) {
		print_source(out, m, i, width);
		print_host_prov(out, m, i, width); /* runs of many hosts */
	}
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
	{ /* runs of many hosts in two studies or more: which rank's facts differ */
		struct iom_report_host_prov p;

		iom_report_host_prov_across(m, &p);
		if (p.nline || p.ndiffers)
			fprintf(out, "hosts across the directories, rank by rank:\n");
		for (size_t k = 0; k < p.nline + p.ndiffers; k++) {
			char *line = xasprintf("  %s", k < p.nline ? p.line[k]
								  : p.differs[k - p.nline]);

			print_wrapped(out, line, width, 4);
			free(line);
		}
		iom_report_host_prov_release(&p);
	}
	if (m->qualified)
		fprintf(out, "a value that measured the same cell in two directories is named "
			     "value@directory\n");
}

/* Targets a study ran on one device or file under two names (allow_same, an A/A test): "a
 * and b are one device". */
static void print_same_targets(FILE *out, const struct iom_report *m)
{
	for (size_t i = 0; i < m->nsrc; i++) {
		const struct iom_study_info *st = &m->src[i].study;

		for (size_t t = 0; t < st->ntargets; t++)
			if (st->targets[t].same_as)
				fprintf(out, "%s and %s are one %s (allow_same: an A/A test, their "
					"differences are the noise floor)%s%s\n",
					st->targets[t].same_as, st->targets[t].label,
					st->targets[t].is_block ? "device" : "file",
					m->nsrc > 1 ? " in " : "", m->nsrc > 1 ? m->src[i].name : "");
	}
}

/* The head of the winners: the runs' tally, what is compared, the studies' B vs A. */
static void winners_head(FILE *out, const struct iom_report *m, unsigned width)
{
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
	print_same_targets(out, m);
	if (iom_report_by_study(m) && m->ncompared > 1) {
		struct iom_strbuf sb = { 0 };
		char *changes = iom_report_setup_changes(m);

		iom_strbuf_printf(&sb, "B vs A: ");
		for (size_t v = 1; v < m->ncompared; v++)
			iom_strbuf_printf(&sb, "%s%s", v > 1 ? ", " : "", m->compared[v]);
		iom_strbuf_printf(&sb, " against the baseline %s, each target and cell of one study "
				  "against the same of the other", m->compared[0]);
		print_wrapped(out, iom_strbuf_get(&sb), width, 2);
		iom_strbuf_reset(&sb);
		if (changes) {
			iom_strbuf_printf(&sb, "the studies differ in: %s", changes);
			print_wrapped(out, iom_strbuf_get(&sb), width, 2);
		}
		free(changes);
		free(sb.s);
	}
}

/* The table's verdicts and labels, and what its legend must say: the kinds of verdict, noisy,
 * stalled, too few I/Os, unpooled; the fewest and most repetitions of a value (*nmin, *nmax). */
static void table_gather(struct table *t, size_t *nmin, size_t *nmax)
{
	const struct iom_report *m = t->m;

	t->label = xcalloc(m->ncells, sizeof(*t->label));
	t->vd = xcalloc(m->ncells * IOM_NMETRIC, sizeof(*t->vd));
	for (size_t c = 0; c < m->ncells; c++) {
		t->label[c] = iom_report_cell_label(m, c);
		for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
		     k = iom_report_metric_next(m, k)) {
			struct iom_report_verdict *vd = &t->vd[c * IOM_NMETRIC + k];

			iom_report_verdict(m, c, (enum iom_metric)k, vd);
			t->nkind[vd->kind]++;
			t->noisy |= vd->noisy;
		}
		for (size_t v = 0; v < m->ncompared; v++) {
			size_t n = m->cells[c].by[v].n;

			t->stalled |= n && m->cells[c].by[v].stalled;
			if (n && m->cells[c].by[v].few_ios)
				t->few_ios = 1;
			if (n && !iom_report_pooled(&m->cells[c].by[v]))
				t->unpooled = 1;
			if (n) {
				*nmin = IOM_MIN(*nmin, n);
				*nmax = IOM_MAX(*nmax, n);
			}
		}
	}
}

/* The legend above the table: what is the same everywhere, what the figures are, what a
 * winner needs, what each column measures. */
static void table_legend(FILE *out, const struct table *t, size_t nmin, size_t nmax,
			 unsigned width)
{
	const struct iom_report *m = t->m;
	struct iom_strbuf nb = { 0 };
	char *fixed = iom_report_fixed_words(m);

	if (*fixed && m->ncells > 1) {
		char *line = xasprintf("the same in every cell: %s", fixed);

		print_wrapped(out, line, width, 2);
		free(line);
	}
	free(fixed);
	if (nmax == 0)
		iom_strbuf_printf(&nb, "no run finished: nothing to compare");
	else if (nmin == nmax && nmax == 1)
		iom_strbuf_printf(&nb, "figures: one run each");
	else if (nmin == nmax)
		iom_strbuf_printf(&nb, "figures: mean of %zu repetitions", nmax);
	else
		iom_strbuf_printf(&nb, "figures: mean of %zu to %zu repetitions", nmin, nmax);
	if (nmax && !t->winners)
		iom_strbuf_printf(&nb, "; one %s: no winners", m->compare);
	if (nmax && t->noisy)
		iom_strbuf_printf(&nb, "; ~ noisy: CV above %g%%", m->opts.max_cv_pct);
	if (nmax && t->stalled)
		iom_strbuf_printf(&nb, "; ! a stalled run left out");
	if (nmax && t->few_ios)
		iom_strbuf_printf(&nb, "; lat p99 n/a: fewer than %d I/Os in a run",
				  IOM_MIN_PCT_IOS);
	if (nmax > 1 && t->unpooled)
		iom_strbuf_printf(&nb, "; lat p99 the mean of the runs' p99s (runs without "
				  "histograms)");
	else if (nmax > 1 && nmin == nmax)
		iom_strbuf_printf(&nb, "; lat p99 pooled over %zu runs (their histograms merged)",
				  nmax);
	else if (nmax > 1)
		iom_strbuf_printf(&nb, "; lat p99 pooled over %zu to %zu runs (their histograms "
				  "merged)", nmin, nmax);
	print_wrapped(out, iom_strbuf_get(&nb), width, 2);
	iom_strbuf_reset(&nb);
	if (nmax && t->winners && (t->nkind[IOM_VERDICT_WIN] || t->nkind[IOM_VERDICT_SAME] ||
				   t->nkind[IOM_VERDICT_UNDECIDED])) {
		char corr[96];

		iom_report_correction_words(m, corr, sizeof(corr));
		iom_strbuf_printf(&nb, "* winner: better by more than %g%% with %s p < %g, "
				  "better by the margin beneath; 'same': shown within ±%g%% (two "
				  "one-sided tests); '?': undecided, more runs needed",
				  m->opts.min_effect_pct, iom_report_test_words(m), m->opts.alpha,
				  m->opts.min_effect_pct);
		print_wrapped(out, iom_strbuf_get(&nb), width, 2);
		iom_strbuf_reset(&nb);
		iom_strbuf_printf(&nb, "(p adjusted: %s)", corr);
		print_wrapped(out, iom_strbuf_get(&nb), width, 2);
		iom_strbuf_reset(&nb);
	}
	if (nmax && t->winners && t->nkind[IOM_VERDICT_SINGLE_RUN])
		print_wrapped(out, "(x%) beneath the best: better by x %, but a single run — "
			      "no significance, no winner", width, 2);
	if (nmax)
		print_wrapped(out, "lat avg, lat p99: latency of all I/O; CPU/IO: system-wide "
			      "CPU µs per I/O (all CPUs busy: interrupts, kernel threads and "
			      "io_uring's workers included; runs without it: the iomatrix "
			      "process's, every thread); MB/s: 10^6 bytes/s", width, 2);
	if (nmax && iom_report_metric_next(m, IOM_METRIC_CPU_BUSY - 1) == IOM_METRIC_CPU_BUSY)
		print_wrapped(out, "CPU %: the CPUs' busy share over the window, averaged over "
			      "them (DiskSpd's avg. Usage, IOMeter's %CPU; other processes "
			      "included)", width, 2);
	if (nmax && iom_report_disk_any(m)) {
		char *w = xasprintf("disk (beneath the tables): %s", iom_report_disk_legend);

		print_wrapped(out, w, width, 2);
		free(w);
	}
	free(nb.s);
}

int iom_report_print_winners(FILE *out, const struct iom_report *m,
			     const struct iom_report_opts_cli *o)
{
	struct table t = { .m = m };
	unsigned width = o && o->width ? o->width : DEFAULT_WIDTH;
	size_t nmin = SIZE_MAX, nmax = 0;
	int color = o ? o->color : -1;

	t.color = color < 0 ? isatty(fileno(out)) : color > 0;
	t.winners = m->ncompared > 1;
	winners_head(out, m, width);
	if (m->ncells == 0) {
		fprintf(out, "no finished runs to report\n");
		return ferror(out) ? -EIO : 0;
	}
	table_gather(&t, &nmin, &nmax);
	table_legend(out, &t, nmin, nmax, width);
	fputc('\n', out);

	table_measure(&t);
	if ((unsigned)(t.labelw + 2 + (int)m->ncompared * (t.groupw + GROUP_GAP) - GROUP_GAP) <=
	    width)
		table_block(out, &t, 0, m->ncompared); /* every compared value side by side */
	else
		metric_tables(out, &t, width);
	stalled_note(out, m, width);
	load_note(out, m, width);
	disk_note(out, m, width);
	neighbour_note(out, m, width);
	if (t.winners && nmax) {
		fputc('\n', out);
		verdict_block(out, &t, width);
	}
	if (t.winners && t.nkind[IOM_VERDICT_UNDECIDED])
		undecided_block(out, &t, width);
	noisy_block(out, m, width);
	missing_block(out, m, width);
	print_excluded(out, m);
	for (size_t c = 0; c < m->ncells; c++)
		free(t.label[c]);
	free(t.label);
	free(t.vd);
	return ferror(out) ? -EIO : 0;
}

/* ---- the runs of many hosts (report_hosts.c) ---- */

#define MAX_HOST_RUNS_SHOWN 20

/* s cut to w display columns, the cut marked "…" (heap). */
static char *cut_to(const char *s, int w)
{
	struct iom_strbuf b = { 0 };
	int col = 0;

	if (dispw(s) <= w)
		return xstrdup(s);
	for (const char *p = s; *p; p++) {
		if (((unsigned char)*p & 0xC0) != 0x80 && ++col > w - 1)
			break;
		iom_strbuf_add(&b, p, 1);
	}
	iom_strbuf_str(&b, "…");
	return iom_strbuf_take(&b);
}

/* Each run's per-host rows beside its aggregate, in columns that fit the width. */
static void print_hosts(FILE *out, const struct iom_report *m, unsigned width)
{
	struct iom_report_hline *l;
	size_t n = iom_report_hlines(m, MAX_HOST_RUNS_SHOWN, &l);
	int w[IOM_NHCOL], total = 0;
	struct iom_strbuf b = { 0 };

	if (!m->nhruns) {
		iom_report_hlines_free(l, n);
		return;
	}
	for (int c = 0; c < IOM_NHCOL; c++) {
		w[c] = dispw(iom_report_hcol_title[c]);
		for (size_t i = 0; i < n; i++)
			w[c] = IOM_MAX(w[c], dispw(l[i].col[c]));
		total += w[c] + (c ? 2 : 0);
	}
	/* too wide: the cell's words first, then the host names, then the flags are cut */
	for (int c = IOM_HCOL_CELL; total > (int)width && c <= IOM_HCOL_FLAGS; c++) {
		int floor = c == IOM_HCOL_FLAGS ? 11 : 8;

		if (c != IOM_HCOL_CELL && c != IOM_HCOL_HOST && c != IOM_HCOL_FLAGS)
			continue;
		while (total > (int)width && w[c] > floor) {
			w[c]--;
			total--;
		}
	}
	fprintf(out, "\nper host (%zu run%s of many hosts):\n", m->nhruns,
		m->nhruns == 1 ? "" : "s");
	print_wrapped(out, iom_report_hosts_legend, width, 2);
	for (size_t i = 0; i <= n; i++) {
		for (int c = 0; c < IOM_NHCOL; c++) {
			const char *text = i ? l[i - 1].col[c] : iom_report_hcol_title[c];
			char *cut = cut_to(text, w[c]);
			bool num = c >= IOM_HCOL_IOPS && c <= IOM_HCOL_CPU;

			if (c)
				iom_strbuf_spaces(&b, 2);
			sb_cell(&b, cut, w[c], !num, false);
			free(cut);
		}
		sb_line(&b, out);
	}
	if (m->nhruns > MAX_HOST_RUNS_SHOWN)
		fprintf(out, "  … and %zu more runs (--format json lists every one)\n",
			m->nhruns - MAX_HOST_RUNS_SHOWN);
	free(b.s);
	iom_report_hlines_free(l, n);
}

/* Provenance per host of source i: each rank's facts, then those that differ. */
static void print_host_prov(FILE *out, const struct iom_report *m, size_t i, unsigned width)
{
	struct iom_report_host_prov p;

	iom_report_host_prov(m, i, &p);
	if (p.nline)
		fprintf(out, "hosts%s%s:\n", m->nsrc > 1 ? " of " : "",
			m->nsrc > 1 ? m->src[i].name : "");
	for (size_t k = 0; k < p.nline; k++) {
		char *line = xasprintf("  %s", p.line[k]);

		print_wrapped(out, line, width, 4);
		free(line);
	}
	if (p.nline && !p.ndiffers)
		fprintf(out, "  the same kernel, CPU and device model on every host\n");
	for (size_t k = 0; k < p.ndiffers; k++) {
		char *line = xasprintf("  %s", p.differs[k]);

		print_wrapped(out, line, width, 4);
		free(line);
	}
	iom_report_host_prov_release(&p);
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

int iom_report_write_text(FILE *out, const struct iom_report *m,
			  const struct iom_report_opts_cli *o, char *err, size_t errlen)
{
	if (!o || !o->brief) {
		print_provenance(out, m, o && o->width ? o->width : DEFAULT_WIDTH);
		fputc('\n', out);
	}
	iom_report_print_winners(out, m, o);
	print_hosts(out, m, o && o->width ? o->width : DEFAULT_WIDTH);
	print_damaged(out, m);
	return iom_report_out_status(out, err, errlen);
}
