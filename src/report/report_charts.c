/* SPDX-License-Identifier: MIT */
/*
 * report_charts — the HTML page's charts (report_html.c lays out the page around them), each
 * drawn by chart.c as inline SVG when the data has the dimension it needs, with a note saying
 * why when it does not: the ATTO view (MB/s and IO/s by transfer size), IOMeter's view (IOPS,
 * latency and system CPU against queue depth), the load view (latency against achieved IOPS),
 * the chosen cell's latency percentiles, and IOPS and latency over time. The cells are grouped
 * into slices (one value of every other dimension); at most four slices of each kind are
 * drawn, the chosen cell's first, the others named.
 */
#include "report_model.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "result/resdir.h"
#include "strbuf.h"
#include "util.h"

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

void iom_report_html_note(FILE *out, const char *fmt, ...)
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
	iom_report_html_note(out, "%s", b.s);
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
		iom_report_html_note(out, "not drawn: it needs block_size to vary (this report has %s)",
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
				iom_report_html_note(out, "%s: %zu bar%s left out: no finished run of that value there "
				     "(failed, interrupted or stalled; see the notes)", words, gaps,
				     gaps == 1 ? "" : "s");
			if (rd < 0)
				iom_report_html_note(out, "%s: one kind of I/O: no read_pct dimension, each size's "
				     "bars are its cell's reads and writes", words);
		} else {
			iom_report_html_note(out, "%s: not drawn: no finished runs", words);
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
		iom_report_html_note(out, "not drawn: it needs queue_depth to vary (this report has %s)",
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
			iom_report_html_note(out, "%s: %zu point%s left out of each chart: no finished run there "
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
		iom_report_html_note(out, "not drawn: no slice has two queue depths");
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
		iom_report_html_note(out, "not drawn: it needs rate_iops, rate_mb_s or queue_depth to vary");
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
		iom_report_html_note(out, "not drawn: no slice has two loads");
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
			iom_report_html_note(out, "left out: %s (no finished run in this cell)", iom_strbuf_get(&b));
			iom_strbuf_release(&b);
		}
	} else {
		iom_report_html_note(out, "%s: no latency recorded in this cell", label);
	}
	free(y);
	free(se);
	free(label);
	free(title);
	free(sub);
}

/* ---- IOPS over time ---- */

int iom_report_time_series(const struct iom_report *m, struct iom_report_time_run *t, char *err, size_t errlen)
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

static void time_chart(FILE *out, const struct iom_report *m, struct iom_report_time_run *runs, size_t nr,
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
		iom_report_html_note(out, "not drawn: run %u (%s) measured %.2f s, less than two 1-second "
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
			iom_report_html_note(out, "left out: %zu run%s with fewer than two 1-second intervals (a "
			      "window shorter than 2 s)", nr - ns, nr - ns == 1 ? "" : "s");
	} else if (nr) {
		for (size_t i = 0; i < nr; i++) {
			char v[32];

			iom_report_fmt_value(v, sizeof(v), IOM_METRIC_IOPS, runs[i].iops);
			iom_report_html_note(out, "not drawn: run %u (%s) measured %.2f s, less than two 1-second "
				  "intervals; %s IOPS over its window", (unsigned)runs[i].run,
			     runs[i].name, runs[i].secs, v);
		}
	} else {
		iom_report_html_note(out, "not drawn: no finished run in this cell");
	}
	(void)m;
	free(se);
}

/* Latency over time beside IOPS over time: each interval's p50 (solid) and p99 (dashed) of the
 * same runs, on a log scale; runs whose files keep no per-interval latencies are named. */
static void lat_time_chart(FILE *out, struct iom_report_time_run *runs, size_t nr)
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
		iom_report_html_note(out, "not drawn: no run with two or more 1-second intervals");
	}
	if (without.len)
		iom_report_html_note(out, "no latencies per interval in the files of %s (written before they were "
			  "kept)", iom_strbuf_get(&without));
	for (size_t i = 0; i < ns; i++)
		free(names[i]);
	free(names);
	free(peaks.s);
	free(without.s);
	free(se);
}

void iom_report_html_charts(FILE *out, const struct iom_report *m, size_t cell,
			    struct iom_report_time_run *runs, size_t nr, const char *title)
{
	atto_chart(out, m, cell);
	qd_charts(out, m, cell);
	load_charts(out, m, cell);
	pct_chart(out, m, cell);
	time_chart(out, m, runs, nr, title);
	lat_time_chart(out, runs, nr);
}
