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
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "resdir.h"
#include "strbuf.h"
#include "study.h"
#include "util.h"

#ifndef IOM_VERSION
#define IOM_VERSION "0.1"
#endif

#define MAX_SLICES 4
#define MAX_ATTO 4
#define FULL_W 1100
#define HALF_W 545

static void esc(FILE *out, const char *s)
{
	iom_chart_escape(out, s);
}

static void fmt_mbs(char *buf, size_t len, double v)
{
	if (v >= 100 || v == 0)
		snprintf(buf, len, "%.0f", v);
	else if (v >= 10)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.2f", v);
}

/* Tick labels: "12.5K", "200K", "1.2M". */
static void tick_count(char *buf, size_t len, double v)
{
	if (v >= 999.5e3)
		snprintf(buf, len, "%.3gM", v / 1e6);
	else if (v >= 999.5)
		snprintf(buf, len, "%.3gK", v / 1e3);
	else
		snprintf(buf, len, "%.3g", v);
}

/* Tick labels: "50µs", "1ms", "2.5s". */
static void tick_lat(char *buf, size_t len, double ns)
{
	static const char *const unit[] = { "ns", "µs", "ms", "s" };
	size_t i = 0;

	while (i + 1 < IOM_ARRAY_SIZE(unit) && ns >= 999.5) {
		ns /= 1000;
		i++;
	}
	snprintf(buf, len, "%.3g%s", ns, unit[i]);
}

static void fmt_plain(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%g", v);
}

static void fmt_secs(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%gs", v);
}

static double mean_of(const double *x, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += x[i];
	return n ? s / (double)n : NAN;
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

/* ---- slices: the cells that differ only in one dimension (and those it ignores) ---- */

struct slice {
	size_t *cells;
	size_t n;
};

static long long num_value(const char *s)
{
	return strtoll(s, NULL, 10);
}

/* Groups the cells by every dimension except those in ignore[]; the slice of cell first
 * comes first. Returns the count; free with slices_free(). */
static size_t make_slices(const struct iom_report *m, const bool *ignore, size_t first,
			  struct slice **out)
{
	struct slice *s = NULL;
	size_t n = 0;

	for (size_t k = 0; k < m->ncells; k++) {
		size_t c = k == 0 ? first : k <= first ? k - 1 : k;
		size_t i;

		for (i = 0; i < n; i++) {
			bool same = true;

			for (size_t d = 0; d < m->ndims && same; d++)
				same = ignore[d] || strcmp(m->cells[c].value[d],
							   m->cells[s[i].cells[0]].value[d]) == 0;
			if (same)
				break;
		}
		if (i == n) {
			s = xrealloc(s, (n + 1) * sizeof(*s));
			s[n].cells = xcalloc(m->ncells + 1, sizeof(size_t));
			s[n].n = 0;
			n++;
		}
		s[i].cells[s[i].n++] = c;
	}
	*out = s;
	return n;
}

static void slices_free(struct slice *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i].cells);
	free(s);
}

static int dim_index(const struct iom_report *m, const char *name)
{
	for (size_t d = 0; d < m->ndims; d++)
		if (strcmp(m->dims[d], name) == 0)
			return (int)d;
	return -1;
}

/* The words of a slice: the dimensions that vary in the study, except the ignored ones. */
static char *slice_words(const struct iom_report *m, const struct slice *s, const bool *ignore)
{
	struct iom_report vm = *m;
	bool *varies = xcalloc(m->ndims + 1, sizeof(*varies));
	char *w;

	for (size_t d = 0; d < m->ndims; d++)
		varies[d] = m->varies[d] && !ignore[d];
	vm.varies = varies;
	w = iom_report_cell_label(&vm, s->cells[0]);
	/* With nothing varying the label falls back to every dimension: say "all cells". */
	{
		bool any = false;

		for (size_t d = 0; d < m->ndims; d++)
			any |= varies[d];
		if (!any) {
			free(w);
			w = xstrdup("all cells");
		}
	}
	free(varies);
	return w;
}

static void note(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(FILE *out, const char *fmt, ...)
{
	struct iom_strbuf b = { 0 };
	va_list ap;

	va_start(ap, fmt);
	iom_strbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	fputs("<p class=\"note\">", out);
	esc(out, iom_strbuf_get(&b));
	fputs("</p>\n", out);
	iom_strbuf_release(&b);
}

static void more_slices(FILE *out, const struct iom_report *m, const struct slice *s, size_t n,
			size_t max, const bool *ignore)
{
	struct iom_strbuf b = { 0 };

	if (n <= max)
		return;
	iom_strbuf_printf(&b, "%zu more not drawn:", n - max);
	for (size_t i = max; i < n && i < max + 8; i++) {
		char *w = slice_words(m, &s[i], ignore);

		iom_strbuf_printf(&b, "%s %s", i > max ? "," : "", w);
		free(w);
	}
	if (n > max + 8)
		iom_strbuf_str(&b, ", …");
	iom_strbuf_str(&b, " (--cell picks the slice drawn first)");
	note(out, "%s", b.s);
	iom_strbuf_release(&b);
}

/* ---- ATTO ---- */

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* The largest positive value of v[0..n) over the smallest (1 when fewer than two). */
static double spread(const double *v, size_t n)
{
	double lo = INFINITY, hi = 0;

	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]) && v[i] > 0) {
			lo = fmin(lo, v[i]);
			hi = fmax(hi, v[i]);
		}
	return isfinite(lo) ? hi / lo : 1;
}

static void atto_chart(FILE *out, const struct iom_report *m, size_t first)
{
	int bs = dim_index(m, "block_size"), rd = dim_index(m, "read_pct");
	bool *ignore;
	struct slice *sl;
	size_t ns;

	fputs("<h3>ATTO view: MB/s and IO/s by transfer size</h3>\n", out);
	if (bs < 0 || !m->varies[bs]) {
		note(out, "not drawn: it needs block_size to vary (this report has %s)",
		     bs < 0 ? "no block_size dimension" : "one block size");
		return;
	}
	ignore = xcalloc(m->ndims + 1, sizeof(*ignore));
	ignore[bs] = true;
	if (rd >= 0)
		ignore[rd] = true;
	ns = make_slices(m, ignore, first, &sl);
	fputs("<div class=\"charts\">\n", out);
	for (size_t i = 0; i < ns && i < MAX_ATTO; i++) {
		const struct slice *s = &sl[i];
		long long *sizes = xcalloc(s->n + 1, sizeof(*sizes));
		size_t nsz = 0;
		const char **rows, *kinds[2] = { "write", "read" };
		double *v, *vi;
		char *words = slice_words(m, s, ignore), *sub, *subi, *id, *idi;
		bool mixed = false, any = false;
		size_t gaps = 0;

		for (size_t j = 0; j < s->n; j++) {
			long long x = num_value(m->cells[s->cells[j]].value[bs]);
			bool seen = false;

			for (size_t k = 0; k < nsz && !seen; k++)
				seen = sizes[k] == x;
			if (!seen)
				sizes[nsz++] = x;
		}
		qsort(sizes, nsz, sizeof(*sizes), cmp_ll);
		rows = xcalloc(nsz + 1, sizeof(*rows));
		v = xcalloc(nsz * m->ncompared * 2 + 1, sizeof(*v));
		vi = xcalloc(nsz * m->ncompared * 2 + 1, sizeof(*vi));
		for (size_t r = 0; r < nsz; r++) {
			char buf[32], w[64];
			long long lo = 101, hi = -1;
			size_t wc = SIZE_MAX, rc = SIZE_MAX;

			snprintf(buf, sizeof(buf), "%lld", sizes[r]);
			iom_report_word("block_size", buf, w, sizeof(w));
			rows[r] = xstrdup(w);
			/* The write figures from the cell with the fewest reads, read from the most. */
			for (size_t j = 0; j < s->n; j++) {
				const char *const *cv = (const char *const *)m->cells[s->cells[j]].value;
				long long p = rd >= 0 ? num_value(cv[rd]) : 50;

				if (num_value(cv[bs]) != sizes[r])
					continue;
				if (p < 100 && p < lo) {
					lo = p;
					wc = s->cells[j];
				}
				if (p > 0 && p > hi) {
					hi = p;
					rc = s->cells[j];
				}
			}
			mixed |= (lo > 0 && lo < 100) || (hi > 0 && hi < 100);
			for (size_t g = 0; g < m->ncompared; g++) {
				double *wv = &v[(r * m->ncompared + g) * 2], *rv = wv + 1;
				const struct iom_report_reps *a = wc != SIZE_MAX ?
									  &m->cells[wc].by[g] : NULL;
				const struct iom_report_reps *b = rc != SIZE_MAX ?
									  &m->cells[rc].by[g] : NULL;

				double *wi = &vi[(r * m->ncompared + g) * 2], *ri = wi + 1;

				*wv = a && a->n ? mean_of(a->x[IOM_X_WRITE_MB_S], a->n) : NAN;
				*rv = b && b->n ? mean_of(b->x[IOM_X_READ_MB_S], b->n) : NAN;
				*wi = a && a->n ? mean_of(a->x[IOM_X_WRITE_IOPS], a->n) : NAN;
				*ri = b && b->n ? mean_of(b->x[IOM_X_READ_IOPS], b->n) : NAN;
				any |= isfinite(*wv) || isfinite(*rv);
				/* a kind the study measured for this size, but not for this value */
				gaps += (wc != SIZE_MAX && !isfinite(*wv)) +
					(rc != SIZE_MAX && !isfinite(*rv));
			}
		}
		sub = xasprintf("%s; MB/s = 10^6 bytes/s, mean over repetitions%s", words,
				mixed ? "; mixed cells: their read and write parts" : "");
		subi = xasprintf("%s; I/O per second, mean over repetitions%s%s", words,
				 mixed ? "; mixed cells: their read and write parts" : "",
				 spread(vi, nsz * m->ncompared * 2) > 100 ? "; log scale" : "");
		id = xasprintf("chart-atto-%zu", i + 1);
		idi = xasprintf("chart-atto-iops-%zu", i + 1);
		if (any) {
			/* ATTO's layout: MB/s and IO/s side by side, the same bars in both */
			struct iom_bar_chart c = {
				.id = id, .title = "ATTO: write and read MB/s by transfer size",
				.subtitle = sub, .value_title = "MB/s", .fmt = fmt_mbs,
				.rows = rows, .nrows = nsz,
				.groups = (const char *const *)m->compared, .ngroups = m->ncompared,
				.kinds = kinds, .nkinds = 2, .v = v, .width = HALF_W,
			};

			iom_chart_bars(out, &c);
			c.id = idi;
			c.title = "ATTO: write and read IO/s by transfer size";
			c.subtitle = subi;
			c.value_title = "IO/s";
			c.fmt = tick_count;
			c.v = vi;
			/* IO/s fall by decades from 512 B to 64M: on a linear axis the large sizes'
			 * bars are slivers, so the IO/s chart goes to a log scale past 100× (ATTO
			 * scales each size for itself) */
			c.log = spread(vi, nsz * m->ncompared * 2) > 100;
			iom_chart_bars(out, &c);
			if (gaps)
				note(out, "%s: %zu bar%s left out: no finished run of that value there "
				     "(failed, interrupted or stalled; see the notes)", words, gaps,
				     gaps == 1 ? "" : "s");
			if (rd < 0)
				note(out, "%s: one kind of I/O: no read_pct dimension, each size's "
				     "bars are its cell's reads and writes", words);
		} else {
			note(out, "%s: not drawn: no finished runs", words);
		}
		for (size_t r = 0; r < nsz; r++)
			free((char *)rows[r]);
		free(rows);
		free(v);
		free(vi);
		free(sizes);
		free(words);
		free(sub);
		free(subi);
		free(id);
		free(idi);
	}
	fputs("</div>\n", out);
	more_slices(out, m, sl, ns, MAX_ATTO, ignore);
	slices_free(sl, ns);
	free(ignore);
}

/* ---- IOMeter: IOPS and latency against queue depth ---- */

static void qd_charts(FILE *out, const struct iom_report *m, size_t first)
{
	int qd = dim_index(m, "queue_depth");
	bool *ignore;
	struct slice *sl;
	size_t ns, drawn = 0;

	fputs("<h3>IOMeter view: IOPS, latency and system CPU against queue depth</h3>\n", out);
	if (qd < 0 || !m->varies[qd]) {
		note(out, "not drawn: it needs queue_depth to vary (this report has %s)",
		     qd < 0 ? "no queue_depth dimension" : "one queue depth");
		return;
	}
	ignore = xcalloc(m->ndims + 1, sizeof(*ignore));
	ignore[qd] = true;
	ns = make_slices(m, ignore, first, &sl);
	for (size_t i = 0; i < ns && drawn < MAX_SLICES; i++) {
		const struct slice *s = &sl[i];
		size_t n = s->n, nv = m->ncompared;
		size_t *order = xcalloc(n + 1, sizeof(*order));
		double *x = xcalloc(n + 1, sizeof(*x));
		double *y = xcalloc(4 * nv * n + 1, sizeof(*y));
		struct iom_chart_series *se = xcalloc(2 * nv + 1, sizeof(*se));
		char *words, *t1, *t2, *t3, *id1, *id2, *id3;
		size_t gaps = 0;

		if (n < 2) {
			free(order);
			free(x);
			free(y);
			free(se);
			continue;
		}
		/* The slice's cells by queue depth. */
		for (size_t j = 0; j < n; j++)
			order[j] = s->cells[j];
		for (size_t a = 1; a < n; a++)
			for (size_t b = a; b > 0 && num_value(m->cells[order[b - 1]].value[qd]) >
							    num_value(m->cells[order[b]].value[qd]); b--) {
				size_t t = order[b];

				order[b] = order[b - 1];
				order[b - 1] = t;
			}
		for (size_t j = 0; j < n; j++)
			x[j] = (double)num_value(m->cells[order[j]].value[qd]);
		for (size_t g = 0; g < nv; g++) {
			for (size_t j = 0; j < n; j++) {
				const struct iom_report_reps *r = &m->cells[order[j]].by[g];

				y[(0 * nv + g) * n + j] = iom_report_mean(r, IOM_METRIC_IOPS);
				y[(1 * nv + g) * n + j] = iom_report_mean(r, IOM_METRIC_LAT_MEAN);
				y[(2 * nv + g) * n + j] = iom_report_mean(r, IOM_METRIC_LAT_P99);
				y[(3 * nv + g) * n + j] = iom_report_mean(r, IOM_METRIC_CPU_PER_IO);
				gaps += !r->n;
			}
		}
		words = slice_words(m, s, ignore);
		t1 = xasprintf("IOPS vs queue depth — %s", words);
		t2 = xasprintf("Latency vs queue depth — %s", words);
		id1 = xasprintf("chart-qd-iops-%zu", drawn + 1);
		id2 = xasprintf("chart-qd-lat-%zu", drawn + 1);
		t3 = xasprintf("System CPU per I/O vs queue depth — %s", words);
		id3 = xasprintf("chart-qd-cpu-%zu", drawn + 1);
		fputs("<div class=\"charts\">\n", out);
		for (size_t g = 0; g < nv; g++)
			se[g] = (struct iom_chart_series){ .name = m->compared[g], .x = x,
							   .y = &y[g * n], .n = n, .color = g,
							   .markers = true };
		{
			struct iom_line_chart c = {
				.id = id1, .title = t1, .subtitle = "mean over repetitions",
				.x = { .title = "queue depth (outstanding I/Os per thread)",
				       .kind = IOM_AXIS_LOG, .fmt = fmt_plain, .ticks = x, .nticks = n },
				.y = { .title = "IOPS", .kind = IOM_AXIS_LINEAR,
				       .fmt = tick_count, .zero = true },
				.series = se, .nseries = nv, .width = HALF_W, .height = 340,
			};

			iom_chart_line(out, &c);
		}
		for (size_t g = 0; g < nv; g++) {
			se[2 * g] = (struct iom_chart_series){ .name = m->compared[g], .x = x,
							       .y = &y[(nv + g) * n], .n = n,
							       .color = g, .markers = true };
			se[2 * g + 1] = (struct iom_chart_series){ .name = m->compared[g], .x = x,
								   .y = &y[(2 * nv + g) * n], .n = n,
								   .color = g, .dashed = true,
								   .markers = true };
		}
		{
			struct iom_line_chart c = {
				.id = id2, .title = t2, .subtitle = "mean over repetitions; log scale",
				.x = { .title = "queue depth (outstanding I/Os per thread)",
				       .kind = IOM_AXIS_LOG, .fmt = fmt_plain, .ticks = x, .nticks = n },
				.y = { .title = "latency", .kind = IOM_AXIS_LOG, .fmt = tick_lat },
				.series = se, .nseries = 2 * nv,
				.legend_note = "solid: mean, dashed: p99",
				.width = HALF_W, .height = 340,
			};

			iom_chart_line(out, &c);
		}
		for (size_t g = 0; g < nv; g++)
			se[g] = (struct iom_chart_series){ .name = m->compared[g], .x = x,
							   .y = &y[(3 * nv + g) * n], .n = n,
							   .color = g, .markers = true };
		{
			struct iom_line_chart c = {
				.id = id3, .title = t3,
				.subtitle = "all CPUs' busy time (user, system, irq, softirq) per I/O, "
					    "mean over repetitions",
				.x = { .title = "queue depth (outstanding I/Os per thread)",
				       .kind = IOM_AXIS_LOG, .fmt = fmt_plain, .ticks = x, .nticks = n },
				.y = { .title = "CPU µs per I/O", .kind = IOM_AXIS_LINEAR,
				       .zero = true },
				.series = se, .nseries = nv, .width = HALF_W, .height = 340,
			};

			iom_chart_line(out, &c);
		}
		fputs("</div>\n", out);
		if (gaps)
			note(out, "%s: %zu point%s left out of each chart: no finished run there "
			     "(failed, interrupted or stalled; see the notes)", words, gaps,
			     gaps == 1 ? "" : "s");
		drawn++;
		free(words);
		free(t1);
		free(t2);
		free(t3);
		free(id1);
		free(id2);
		free(id3);
		free(order);
		free(x);
		free(y);
		free(se);
	}
	if (!drawn)
		note(out, "not drawn: no slice has two queue depths");
	more_slices(out, m, sl, ns, MAX_SLICES, ignore);
	slices_free(sl, ns);
	free(ignore);
}

/* ---- latency against achieved IOPS: the hockey stick (docs/load.md) ---- */

/* One point of a target's curve. */
struct load_pt {
	double x, resp_mean, resp_p99, svc_mean, svc_p99;
	bool saturated;
};

/* Mean of chart figure x over r's repetitions; NaN when there are none. */
static double mean_x(const struct iom_report_reps *r, enum iom_report_x x)
{
	double sum = 0;

	for (size_t i = 0; i < r->n; i++)
		sum += r->x[x][i];
	return r->n ? sum / (double)r->n : NAN;
}

static int load_pt_cmp(const void *a, const void *b)
{
	const struct load_pt *p = a, *q = b;

	return (p->x > q->x) - (p->x < q->x);
}

/*
 * Latency against achieved IOPS, one curve per compared value per slice: the offered load
 * (rate_iops or rate_mb_s) is the parameter when it varies, else queue depth. Mean and p99 of
 * response time (due → completion; a closed loop's is its service time) and of service time
 * (submission → completion), saturated points marked.
 */
static void load_charts(FILE *out, const struct iom_report *m, size_t first)
{
	static const char *const params[] = { "rate_iops", "rate_mb_s", "queue_depth" };
	int pd = -1;
	bool *ignore;
	struct slice *sl;
	size_t ns, drawn = 0;

	for (size_t i = 0; i < IOM_ARRAY_SIZE(params) && pd < 0; i++) {
		int d = dim_index(m, params[i]);

		if (d >= 0 && m->varies[d])
			pd = d;
	}
	fputs("<h3>Load view: latency against achieved IOPS</h3>\n", out);
	if (pd < 0) {
		note(out, "not drawn: it needs rate_iops, rate_mb_s or queue_depth to vary");
		return;
	}
	ignore = xcalloc(m->ndims + 1, sizeof(*ignore));
	ignore[pd] = true;
	ns = make_slices(m, ignore, first, &sl);
	for (size_t i = 0; i < ns && drawn < MAX_SLICES; i++) {
		const struct slice *s = &sl[i];
		size_t n = s->n, nv = m->ncompared, nse = 0;
		struct load_pt *pt = xcalloc(nv * n + 1, sizeof(*pt));
		double *v = xcalloc(6 * nv * n + 1, sizeof(*v));
		struct iom_chart_series *se = xcalloc(5 * nv + 1, sizeof(*se));
		char *words, *title, *id, **names = xcalloc(2 * nv + 1, sizeof(*names));
		bool paced = false;

		if (n < 2) {
			free(pt);
			free(v);
			free(se);
			free(names);
			continue;
		}
		for (size_t g = 0; g < nv; g++) {
			struct load_pt *p = &pt[g * n];
			double *x = &v[(6 * g) * n], *y = x + n;

			for (size_t j = 0; j < n; j++) {
				const struct iom_report_reps *r = &m->cells[s->cells[j]].by[g];
				double held = mean_x(r, IOM_X_HELD);

				p[j] = (struct load_pt){
					.x = iom_report_mean(r, IOM_METRIC_IOPS),
					.resp_mean = mean_x(r, IOM_X_RESP_MEAN),
					.resp_p99 = mean_x(r, IOM_X_RESP_P99),
					.svc_mean = mean_x(r, IOM_X_SVC_MEAN),
					.svc_p99 = mean_x(r, IOM_X_SVC_P99),
					.saturated = isfinite(held) && held < 1,
				};
			}
			qsort(p, n, sizeof(*p), load_pt_cmp);
			for (size_t j = 0; j < n; j++) {
				x[j] = p[j].x;
				y[0 * n + j] = p[j].resp_mean;
				y[1 * n + j] = p[j].resp_p99;
				y[2 * n + j] = p[j].svc_mean;
				y[3 * n + j] = p[j].svc_p99;
				y[4 * n + j] = p[j].saturated ? p[j].resp_p99 : NAN;
			}
			for (size_t j = 0; j < n; j++)
				paced |= mean_x(&m->cells[s->cells[j]].by[g], IOM_X_OFFERED) > 0;
			names[2 * g] = xstrdup(m->compared[g]);
			names[2 * g + 1] = xasprintf("%s service", m->compared[g]);
		}
		/* a closed loop's response time is its service time: one line pair per value */
		for (size_t g = 0; g < nv; g++)
			for (int k = 0; k < (paced ? 4 : 2); k++)
				se[nse++] = (struct iom_chart_series){
					.name = names[2 * g + (k >= 2)], .x = &v[(6 * g) * n],
					.y = &v[(6 * g) * n + (1 + (size_t)k) * n], .n = n,
					.color = k < 2 ? g : g + nv, .dashed = k & 1, .markers = true };
		for (size_t g = 0; g < nv; g++)
			se[nse++] = (struct iom_chart_series){
				.name = "saturated", .x = &v[(6 * g) * n],
				.y = &v[(6 * g) * n + 5 * n], .n = n, .ring = true };
		words = slice_words(m, s, ignore);
		title = xasprintf("Latency vs achieved IOPS, by %s — %s", m->dims[pd], words);
		id = xasprintf("chart-load-%zu", drawn + 1);
		{
			struct iom_line_chart c = {
				.id = id, .title = title,
				.subtitle = "mean over repetitions; log scale. Response time: from each "
					    "I/O's due time (a closed loop: its service time); service "
					    "time: from submission",
				.x = { .title = "achieved IOPS", .kind = IOM_AXIS_LINEAR,
				       .fmt = tick_count, .zero = true },
				.y = { .title = "latency", .kind = IOM_AXIS_LOG, .fmt = tick_lat },
				.series = se, .nseries = nse,
				.legend_note = paced ? "solid: mean, dashed: p99; '… service': "
						       "service time, the others response time" :
						       "solid: mean, dashed: p99",
				.width = 2 * HALF_W, .height = 380,
			};

			iom_chart_line(out, &c);
		}
		drawn++;
		free(words);
		free(title);
		free(id);
		free(pt);
		free(v);
		free(se);
		for (size_t g = 0; g < 2 * nv; g++)
			free(names[g]);
		free(names);
	}
	if (!drawn)
		note(out, "not drawn: no slice has two loads");
	more_slices(out, m, sl, ns, MAX_SLICES, ignore);
	slices_free(sl, ns);
	free(ignore);
}

/* ---- percentiles of the chosen cell ---- */

static void pct_chart(FILE *out, const struct iom_report *m, size_t cell)
{
	size_t nv = m->ncompared, ns = 0, nmax = 0, nmin = SIZE_MAX;
	double *y = xcalloc(nv * IOM_NPCT + 1, sizeof(*y));
	struct iom_chart_series *se = xcalloc(nv + 1, sizeof(*se));
	char *label = iom_report_cell_label(m, cell), *title, *sub;
	bool any = false, pooled = true;

	fputs("<h3>Latency percentiles</h3>\n", out);
	for (size_t g = 0; g < nv; g++) {
		const struct iom_report_reps *r = &m->cells[cell].by[g];

		if (!r->n)
			continue;
		nmax = IOM_MAX(nmax, r->n);
		nmin = IOM_MIN(nmin, r->n);
		pooled &= iom_report_pooled(r);
		for (int i = 0; i < IOM_NPCT; i++) {
			y[g * IOM_NPCT + i] = iom_report_pct(r, i);
			any |= y[g * IOM_NPCT + i] > 0;
		}
		se[ns++] = (struct iom_chart_series){ .name = m->compared[g], .x = iom_percentiles,
						      .y = &y[g * IOM_NPCT], .n = IOM_NPCT,
						      .color = g, .markers = true };
	}
	title = xasprintf("Latency percentiles — %s", label);
	if (nmax > 1 && pooled)
		sub = xasprintf("all I/O (read and write); pooled over %s%zu runs (their histograms "
				"merged); log scale; --cell picks another cell",
				nmin != nmax ? "up to " : "", nmax);
	else if (nmax > 1)
		sub = xasprintf("all I/O (read and write); each percentile the mean of %s%zu "
				"repetitions (runs without histograms); log scale; --cell picks "
				"another cell", nmin != nmax ? "up to " : "", nmax);
	else
		sub = xasprintf("all I/O (read and write); one run; log scale; --cell picks another "
				"cell");
	if (any) {
		struct iom_line_chart c = {
			.id = "chart-percentiles", .title = title, .subtitle = sub,
			.x = { .title = "percentile", .kind = IOM_AXIS_NINES },
			.y = { .title = "latency", .kind = IOM_AXIS_LOG, .fmt = tick_lat },
			.series = se, .nseries = ns, .width = FULL_W, .height = 380,
		};

		iom_chart_line(out, &c);
		if (ns < nv) {
			struct iom_strbuf b = { 0 };

			for (size_t g = 0, k = 0; g < nv; g++)
				if (!m->cells[cell].by[g].n)
					iom_strbuf_printf(&b, "%s%s", k++ ? ", " : "", m->compared[g]);
			note(out, "left out: %s (no finished run in this cell)", iom_strbuf_get(&b));
			iom_strbuf_release(&b);
		}
	} else {
		note(out, "%s: no latency recorded in this cell", label);
	}
	free(y);
	free(se);
	free(label);
	free(title);
	free(sub);
}

/* ---- IOPS over time ---- */

struct time_run {
	size_t src, compared;
	uint32_t run;
	double *x, *y;
	size_t n;
	char *name;
	double secs, iops;  /* the window's length and rate, for a run too short */
	double *p50, *p99;  /* each interval's latencies (NaN: none); NULL: the file has none */
	double max_ns;      /* the highest of its intervals' max */
};

static int read_series(const struct iom_report *m, struct time_run *t, char *err, size_t errlen)
{
	char *path = iom_result_path(m->src[t->src].dir, t->run);
	struct iom_result_file f;
	int ret = iom_result_read(path, &f, err, errlen);

	free(path);
	if (ret == 0) {
		const struct iom_run_result *r = &f.r;

		double at = 0;

		t->n = r->nintervals;
		t->x = xcalloc(t->n + 1, sizeof(*t->x));
		t->y = xcalloc(t->n + 1, sizeof(*t->y));
		/* each rate over its interval's real length (the last ends with the
		 * window), plotted at the interval's end */
		for (size_t i = 0; i < t->n; i++) {
			double secs = iom_interval_secs(&r->intervals[i]);

			at += secs;
			t->x[i] = at;
			t->y[i] = (double)(r->intervals[i].ios[0] + r->intervals[i].ios[1]) / secs;
		}
		if (r->has_iv_lat) {
			t->p50 = xcalloc(t->n + 1, sizeof(*t->p50));
			t->p99 = xcalloc(t->n + 1, sizeof(*t->p99));
			for (size_t i = 0; i < t->n; i++) {
				const struct iom_interval *iv = &r->intervals[i];

				t->p50[i] = iv->lat_ios ? (double)iv->p50_ns : NAN;
				t->p99[i] = iv->lat_ios ? (double)iv->p99_ns : NAN;
				t->max_ns = IOM_MAX(t->max_ns, (double)iv->max_ns);
			}
		}
		t->secs = r->elapsed_s;
		t->iops = r->dir[IOM_DIR_TOTAL].iops;
	}
	iom_result_file_release(&f);
	return ret;
}

static void time_chart(FILE *out, const struct iom_report *m, struct time_run *runs, size_t nr,
		       const char *title)
{
	struct iom_chart_series *se = xcalloc(nr + 1, sizeof(*se));
	size_t ns = 0, most = 0;

	fputs("<h3>IOPS over time</h3>\n", out);
	for (size_t i = 0; i < nr; i++) {
		if (runs[i].n < 2)
			continue;
		most = IOM_MAX(most, runs[i].n);
		se[ns++] = (struct iom_chart_series){ .name = runs[i].name, .x = runs[i].x,
						      .y = runs[i].y, .n = runs[i].n,
						      .color = runs[i].compared,
						      .markers = runs[i].n <= 60 };
	}
	/* a run too short for a line says so rather than vanishing */
	for (size_t i = 0; i < nr && ns; i++) {
		char v[32];

		if (runs[i].n >= 2)
			continue;
		iom_report_fmt_value(v, sizeof(v), IOM_METRIC_IOPS, runs[i].iops);
		note(out, "not drawn: run %u (%s) measured %.2f s, less than two 1-second "
			  "intervals; %s IOPS over its window", (unsigned)runs[i].run, runs[i].name,
		     runs[i].secs, v);
	}
	if (ns) {
		struct iom_line_chart c = {
			.id = "chart-time", .title = title,
			.subtitle = "I/Os completed in each 1-second interval of the measured window; "
				    "--run N (or DIR:N) picks a run",
			.x = { .title = "seconds into the measured window", .kind = IOM_AXIS_LINEAR,
			       .fmt = fmt_secs, .zero = true },
			.y = { .title = "IOPS", .kind = IOM_AXIS_LINEAR, .fmt = tick_count,
			       .zero = true },
			.series = se, .nseries = ns, .width = FULL_W, .height = 340,
		};

		iom_chart_line(out, &c);
		if (ns < nr)
			note(out, "left out: %zu run%s with fewer than two 1-second intervals (a "
			      "window shorter than 2 s)", nr - ns, nr - ns == 1 ? "" : "s");
	} else if (nr) {
		for (size_t i = 0; i < nr; i++) {
			char v[32];

			iom_report_fmt_value(v, sizeof(v), IOM_METRIC_IOPS, runs[i].iops);
			note(out, "not drawn: run %u (%s) measured %.2f s, less than two 1-second "
				  "intervals; %s IOPS over its window", (unsigned)runs[i].run,
			     runs[i].name, runs[i].secs, v);
		}
	} else {
		note(out, "not drawn: no finished run in this cell");
	}
	(void)m;
	free(se);
}

/* Latency over time beside IOPS over time: each interval's p50 (solid) and p99 (dashed) of the
 * same runs, on a log scale; runs whose files keep no per-interval latencies are named. */
static void lat_time_chart(FILE *out, struct time_run *runs, size_t nr)
{
	struct iom_chart_series *se = xcalloc(2 * nr + 1, sizeof(*se));
	char **names = xcalloc(2 * nr + 1, sizeof(*names));
	struct iom_strbuf peaks = { 0 }, without = { 0 };
	size_t ns = 0;

	fputs("<h3>Latency over time</h3>\n", out);
	for (size_t i = 0; i < nr; i++) {
		char v[32];

		if (!runs[i].p50) {
			iom_strbuf_printf(&without, "%s%s", without.len ? ", " : "", runs[i].name);
			continue;
		}
		if (runs[i].n < 2)
			continue;
		names[ns] = xasprintf("%s p50", runs[i].name);
		se[ns] = (struct iom_chart_series){ .name = names[ns], .x = runs[i].x,
						    .y = runs[i].p50, .n = runs[i].n,
						    .color = runs[i].compared, .markers = runs[i].n <= 60 };
		ns++;
		names[ns] = xasprintf("%s p99", runs[i].name);
		se[ns] = (struct iom_chart_series){ .name = names[ns], .x = runs[i].x,
						      .y = runs[i].p99, .n = runs[i].n,
						      .color = runs[i].compared, .dashed = true,
						      .markers = runs[i].n <= 60 };
		ns++;
		iom_report_fmt_value(v, sizeof(v), IOM_METRIC_LAT_MEAN, runs[i].max_ns);
		iom_strbuf_printf(&peaks, "%s%s %s", peaks.len ? ", " : "", runs[i].name, v);
	}
	if (ns) {
		char *sub = xasprintf("p50 and p99 of the I/Os completed in each 1-second interval "
				      "(all I/O, service time); log scale; the highest interval max: "
				      "%s", iom_strbuf_get(&peaks));
		struct iom_line_chart c = {
			.id = "chart-lat-time", .title = "Latency over time", .subtitle = sub,
			.x = { .title = "seconds into the measured window", .kind = IOM_AXIS_LINEAR,
			       .fmt = fmt_secs, .zero = true },
			.y = { .title = "latency", .kind = IOM_AXIS_LOG, .fmt = tick_lat },
			.series = se, .nseries = ns, .width = FULL_W, .height = 340,
		};

		iom_chart_line(out, &c);
		free(sub);
	} else if (!without.len) {
		note(out, "not drawn: no run with two or more 1-second intervals");
	}
	if (without.len)
		note(out, "no latencies per interval in the files of %s (written before they were "
			  "kept)", iom_strbuf_get(&without));
	for (size_t i = 0; i < ns; i++)
		free(names[i]);
	free(names);
	free(peaks.s);
	free(without.s);
	free(se);
}

/* ---- the verdict and the heat map ---- */

/* What the HTML callbacks of the walk share. */
struct html {
	FILE *out;
	size_t cell;                /* the cell of the percentile and time charts */
	struct time_run *runs;      /* the runs of the time chart */
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
		note(out, "one %s only: nothing to compare", m->compare);
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
	IOM_REPORT_EACH_METRIC(m, k)
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
	IOM_REPORT_EACH_METRIC(m, k) {
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
		note(out, "no finished runs to report");
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
	IOM_REPORT_EACH_METRIC(m, k)
		fprintf(out, "<th colspan=\"%zu\">%s</th>", m->ncompared, iom_metrics[k].title);
	fputs("</tr><tr>", out);
	IOM_REPORT_EACH_METRIC(m, k) {
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
		IOM_REPORT_EACH_METRIC(m, k) {
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
		note(out, "no noisy cells, no runs left out");
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
	note(((struct html *)ctx)->out, "repetitions suggested: per side, for Welch's test to "
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
			note(out, "no differences in tool, plan, host, kernel, CPU or devices");
		if (m->qualified)
			note(out, "a value that measured the same cell in two directories is named "
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
	note(out, "%s", iom_report_hosts_legend);
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
		atto_chart(out, m, h->cell);
		qd_charts(out, m, h->cell);
		load_charts(out, m, h->cell);
		pct_chart(out, m, h->cell);
		time_chart(out, m, h->runs, h->nr, h->title);
		lat_time_chart(out, h->runs, h->nr);
	} else {
		note(out, "no finished runs: nothing to draw");
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
	struct time_run *runs = NULL;
	char *title = NULL;
	int ret = 0;

	if (o && o->cell) {
		ret = iom_report_find_cell(m, o->cell, &cell, err, errlen);
		if (ret < 0)
			return ret;
	}
	/* The runs of the time chart, read before anything is written. */
	if (o && o->run) {
		struct time_run t = { 0 };

		ret = iom_report_find_run(m, o->run, &t.src, &t.run, err, errlen);
		if (ret < 0)
			return ret;
		ret = read_series(m, &t, err, errlen);
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
			struct time_run t = { .compared = v };
			char e[IOM_ERRLEN];

			if (!r->n)
				continue;
			t.src = r->src[0];
			t.run = r->run[0];
			if (read_series(m, &t, e, sizeof(e)) < 0)
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
