/* SPDX-License-Identifier: MIT */
/*
 * chart — SVG line and bar charts; promises are in chart.h.
 *
 * Geometry is plain arithmetic in pixels: an axis maps a value through its transform (identity,
 * log10, or −log10(1 − p/100) for nines) linearly onto a pixel span. Linear axes get "nice"
 * ticks (1, 2, 2.5 or 5 × 10^k, about five of them); log axes a tick per decade, with 2 and 5
 * between when the axis spans two decades or less; a nines axis 50 %, 90 %, 99 %, …. Tick
 * labels that would overlap the previous one are left out. Text widths are estimated (0.6 em
 * per character), which is close enough for the system sans-serif fonts the page asks for.
 */
#include "chart.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define FONT "font-family=\"system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif\""
#define MAX_TICKS 64

/* Okabe and Ito's colour-blind-safe set ("Color Universal Design", 2008), then Tol's wine and a
 * grey; no two told apart by red against green alone. A mark that must stand out whatever the
 * colours (saturated points) is a shape: iom_chart_series.ring. */
static const char *const palette[IOM_CHART_NCOLORS] = {
	"#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9",
	"#d55e00", "#f0e442", "#000000", "#882255", "#999999",
};

const char *iom_chart_color(size_t i)
{
	return palette[i % IOM_CHART_NCOLORS];
}

void iom_chart_escape(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			fputc(*s, out);
			break;
		}
	}
}

void iom_chart_heat(char *buf, size_t len, double t)
{
	/* Spreadsheet heat-map colours: green #63be7b, red #f8696b, mixed with white. */
	static const int green[3] = { 0x63, 0xbe, 0x7b }, red[3] = { 0xf8, 0x69, 0x6b };
	const int *c = t >= 0 ? green : red;
	double a = fabs(t);
	int rgb[3];

	if (!(a <= 1))
		a = isnan(a) ? 0 : 1;
	for (int i = 0; i < 3; i++)
		rgb[i] = (int)lround(255 + (c[i] - 255) * a);
	snprintf(buf, len, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

/* Estimated width in px of text at size px: 0.6 em per character (UTF-8 aware). */
static double text_w(const char *s, double size)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			n++;
	return (double)n * size * 0.6;
}

static void default_fmt(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%g", v);
}

/* "90%", "99.9%" for the nines position t (50 % at log10 2). */
static void nines_fmt(char *buf, size_t len, double t)
{
	double p = 100 * (1 - pow(10, -t));
	int k = (int)lround(t);

	if (fabs(t - k) > 1e-9 || k < 1)
		snprintf(buf, len, "%.0f%%", p);
	else
		snprintf(buf, len, "%.*f%%", k > 2 ? k - 2 : 0, p);
}

/* ---- axes ---- */

struct axis {
	enum iom_axis_kind kind;
	double lo, hi;           /* in transformed units */
	double p0, p1;           /* pixels of lo and hi */
	double tick[MAX_TICKS];  /* in transformed units */
	size_t nticks;
};

static bool valid(enum iom_axis_kind kind, double v)
{
	if (!isfinite(v))
		return false;
	if (kind == IOM_AXIS_LOG)
		return v > 0;
	if (kind == IOM_AXIS_NINES)
		return v >= 0 && v < 100;
	return true;
}

static double tr(enum iom_axis_kind kind, double v)
{
	switch (kind) {
	case IOM_AXIS_LOG:
		return log10(v);
	case IOM_AXIS_NINES:
		return -log10(1 - v / 100);
	default:
		return v;
	}
}

/* The value of a transformed position (for tick labels). */
static double untr(enum iom_axis_kind kind, double t)
{
	switch (kind) {
	case IOM_AXIS_LOG:
		return pow(10, t);
	default:
		return t; /* nines labels are formatted from the position itself */
	}
}

static double px(const struct axis *a, double v)
{
	double t = tr(a->kind, v);

	return a->p0 + (t - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

static double nice_step(double range)
{
	double raw = range / 5, mag = pow(10, floor(log10(raw))), f = raw / mag;

	if (f <= 1)
		return mag;
	if (f <= 2)
		return 2 * mag;
	if (f <= 2.5)
		return 2.5 * mag;
	if (f <= 5)
		return 5 * mag;
	return 10 * mag;
}

/* Sets the range (transformed) and ticks of a from the data range [dmin, dmax]. */
static void axis_fit(struct axis *a, const struct iom_chart_axis *spec, double dmin, double dmax)
{
	a->kind = spec->kind;
	a->nticks = 0;
	if (spec->ticks && spec->nticks) {
		double lo = INFINITY, hi = -INFINITY;

		for (size_t i = 0; i < spec->nticks && a->nticks < MAX_TICKS; i++) {
			if (!valid(a->kind, spec->ticks[i]))
				continue;
			a->tick[a->nticks++] = tr(a->kind, spec->ticks[i]);
			lo = fmin(lo, a->tick[a->nticks - 1]);
			hi = fmax(hi, a->tick[a->nticks - 1]);
		}
		if (isfinite(dmin))
			lo = fmin(lo, tr(a->kind, dmin));
		if (isfinite(dmax))
			hi = fmax(hi, tr(a->kind, dmax));
		if (!isfinite(lo) || !isfinite(hi)) {
			lo = 0;
			hi = 1;
		}
		if (hi <= lo) {
			lo -= 0.5;
			hi += 0.5;
		}
		a->lo = lo;
		a->hi = hi;
		return;
	}
	if (!isfinite(dmin) || !isfinite(dmax)) {
		dmin = a->kind == IOM_AXIS_LINEAR ? 0 : 1;
		dmax = a->kind == IOM_AXIS_NINES ? 99 : 10;
	}
	switch (a->kind) {
	case IOM_AXIS_LOG: {
		/* Bounds on the 1-2-5 sequence around the data; ticks on it too when the axis
		 * spans two decades or less, else one per decade. */
		static const double steps[3] = { 1, 2, 5 };
		double lo = floor(log10(dmin)), hi = ceil(log10(dmax));

		for (int i = 2; i >= 0; i--) {
			if (log10(steps[i]) + lo <= log10(dmin) + 1e-9) {
				lo += log10(steps[i]);
				break;
			}
		}
		for (int i = 0; i < 3; i++) {
			if (hi - 1 + log10(steps[i]) >= log10(dmax) - 1e-9) {
				hi = hi - 1 + log10(steps[i]);
				break;
			}
		}
		if (hi <= lo + 1e-9)
			hi = lo + log10(2);
		a->lo = lo;
		a->hi = hi;
		for (double d = floor(lo + 1e-9); d <= hi + 1e-9 && a->nticks + 3 <= MAX_TICKS; d++) {
			for (int i = 0; i < 3; i++) {
				double t = d + log10(steps[i]);

				if ((i == 0 || hi - lo <= 2 + 1e-9) && t >= lo - 1e-9 && t <= hi + 1e-9)
					a->tick[a->nticks++] = t;
			}
		}
		break;
	}
	case IOM_AXIS_NINES: {
		double hi = ceil(tr(a->kind, dmax) - 1e-6);

		a->lo = 0;
		a->hi = hi < 2 ? 2 : hi;
		a->tick[a->nticks++] = log10(2);
		for (double k = 1; k <= a->hi + 1e-9 && a->nticks < MAX_TICKS; k++)
			a->tick[a->nticks++] = k;
		break;
	}
	default: {
		double lo = spec->zero ? fmin(0, dmin) : dmin, hi = spec->zero ? fmax(0, dmax) : dmax;
		double step;

		if (hi <= lo) {
			double pad = lo == 0 ? 1 : fabs(lo) * 0.1;

			hi = lo + pad;
			if (!spec->zero || lo != 0)
				lo -= pad;
		}
		step = nice_step(hi - lo);
		a->lo = floor(lo / step + 1e-9) * step;
		a->hi = ceil(hi / step - 1e-9) * step;
		for (double t = a->lo; t <= a->hi + step * 1e-6 && a->nticks < MAX_TICKS; t += step)
			a->tick[a->nticks++] = fabs(t) < step * 1e-9 ? 0 : t;
		break;
	}
	}
}

static void tick_label(const struct axis *a, const struct iom_chart_axis *spec, double t,
		       char *buf, size_t len)
{
	if (spec->fmt)
		spec->fmt(buf, len, a->kind == IOM_AXIS_NINES ? 100 * (1 - pow(10, -t)) :
								 untr(a->kind, t));
	else if (a->kind == IOM_AXIS_NINES)
		nines_fmt(buf, len, t);
	else
		default_fmt(buf, len, untr(a->kind, t));
}

/* Pixel of a transformed position. */
static double tpx(const struct axis *a, double t)
{
	return a->p0 + (t - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

static void text(FILE *out, double x, double y, const char *anchor, double size,
		 const char *style, const char *s)
{
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%g\"%s%s>", x, y,
		anchor, size, style ? " " : "", style ? style : "");
	iom_chart_escape(out, s);
	fputs("</text>\n", out);
}

static void head(FILE *out, const char *id, unsigned w, unsigned h, const char *title,
		 const char *subtitle)
{
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\"%s", id ? " id=\"" : "");
	if (id) {
		iom_chart_escape(out, id);
		fputc('"', out);
	}
	fprintf(out, " width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" role=\"img\" " FONT ">\n",
		w, h, w, h);
	fputs("<title>", out);
	iom_chart_escape(out, title);
	fputs("</title>\n", out);
	fprintf(out, "<rect width=\"%u\" height=\"%u\" fill=\"#fff\"/>\n", w, h);
	text(out, 12, 22, "start", 15, "font-weight=\"600\" fill=\"#222\"", title);
	if (subtitle)
		text(out, 12, 40, "start", 12, "fill=\"#666\"", subtitle);
}

/* ---- line charts ---- */

struct legend_item {
	const char *name;
	size_t color;
	bool dashed;
	bool note;
	bool ring;
};

/* Lays the legend out in rows within width w from x0; returns the rows needed. With out,
 * draws it with its first row at y. */
static int legend(FILE *out, const struct legend_item *it, size_t n, double x0, double w,
		  double y)
{
	double x = x0;
	int rows = n ? 1 : 0;

	for (size_t i = 0; i < n; i++) {
		double iw = (it[i].note ? 0 : 24) + text_w(it[i].name, 12) + 18;

		if (x > x0 && x + iw > x0 + w) {
			x = x0;
			rows++;
			y += 18;
		}
		if (out && it[i].ring) {
			fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"none\" "
				     "stroke=\"#000\" stroke-width=\"1.8\"/>\n", x + 9, y - 4);
		} else if (out && !it[i].note) {
			fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				     "stroke-width=\"3\"%s/>\n", x, y - 4, x + 18, y - 4,
				iom_chart_color(it[i].color),
				it[i].dashed ? " stroke-dasharray=\"5 3\"" : "");
		}
		if (out)
			text(out, x + (it[i].note ? 0 : 24), y, "start", 12,
			     it[i].note ? "fill=\"#777\" font-style=\"italic\"" : "fill=\"#333\"",
			     it[i].name);
		x += iw;
	}
	return rows;
}

/* Draws the ticks, labels and grid of an axis; vertical: the y axis. */
static void axis_draw(FILE *out, const struct axis *a, const struct iom_chart_axis *spec,
		      bool vertical, double other0, double other1)
{
	double last = NAN;
	char buf[64];

	for (size_t i = 0; i < a->nticks; i++) {
		double p = tpx(a, a->tick[i]), w;

		if (p < fmin(a->p0, a->p1) - 0.5 || p > fmax(a->p0, a->p1) + 0.5)
			continue;
		if (vertical)
			fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				     "stroke=\"#e6e6e6\"/>\n", other0, p, other1, p);
		else
			fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				     "stroke=\"#e6e6e6\"/>\n", p, other0, p, other1);
		tick_label(a, spec, a->tick[i], buf, sizeof(buf));
		w = vertical ? 14 : text_w(buf, 11) + 6;
		/* Leave out a label that would overlap the one drawn before it. */
		if (isfinite(last) && fabs(p - last) < w)
			continue;
		last = p;
		if (vertical)
			text(out, other0 - 6, p + 4, "end", 11, "fill=\"#555\"", buf);
		else
			text(out, p, other0 + 16, "middle", 11, "fill=\"#555\"", buf);
	}
}

static void data_range(const struct iom_line_chart *c, bool is_x, double *lo, double *hi)
{
	const struct iom_chart_axis *spec = is_x ? &c->x : &c->y;

	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t s = 0; s < c->nseries; s++) {
		const struct iom_chart_series *se = &c->series[s];

		for (size_t i = 0; i < se->n; i++) {
			double v = is_x ? se->x[i] : se->y[i];

			if (!valid(c->x.kind, se->x[i]) || !valid(c->y.kind, se->y[i]))
				continue;
			(void)spec;
			*lo = fmin(*lo, v);
			*hi = fmax(*hi, v);
		}
	}
}

void iom_chart_line(FILE *out, const struct iom_line_chart *c)
{
	unsigned w = c->width ? c->width : 560, h = c->height ? c->height : 360;
	struct legend_item *items = xcalloc(c->nseries + 2, sizeof(*items));
	size_t nitems = 0;
	struct axis ax, ay;
	double top = c->subtitle ? 56 : 40, left = 70, right = w - 18, bottom, lo, hi;
	int rows;

	for (size_t s = 0; s < c->nseries; s++) {
		bool dup = false;

		for (size_t i = 0; i < nitems && !dup; i++)
			dup = strcmp(items[i].name, c->series[s].name) == 0 &&
			      (items[i].color == c->series[s].color || c->series[s].ring);
		if (!dup)
			items[nitems++] = (struct legend_item){ c->series[s].name, c->series[s].color,
								c->series[s].dashed, false,
								c->series[s].ring };
	}
	if (c->legend_note)
		items[nitems++] = (struct legend_item){ .name = c->legend_note, .note = true };
	data_range(c, true, &lo, &hi);
	axis_fit(&ax, &c->x, lo, hi);
	/* Room for the last tick label, centred on the right edge. */
	if (ax.nticks) {
		char last[64];

		tick_label(&ax, &c->x, ax.tick[ax.nticks - 1], last, sizeof(last));
		right = fmin(right, w - text_w(last, 11) / 2 - 6);
	}
	ax.p0 = left;
	ax.p1 = right;
	rows = legend(NULL, items, nitems, left, right - left, 0);
	bottom = h - 44 - 18.0 * rows;
	data_range(c, false, &lo, &hi);
	axis_fit(&ay, &c->y, lo, hi);
	ay.p0 = bottom;
	ay.p1 = top;

	head(out, c->id, w, h, c->title, c->subtitle);
	axis_draw(out, &ay, &c->y, true, left, right);
	axis_draw(out, &ax, &c->x, false, bottom, top);
	fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
		     "stroke=\"#999\"/>\n", left, top, right - left, bottom - top);
	if (c->x.title)
		text(out, (left + right) / 2, bottom + 34, "middle", 12, "fill=\"#333\"", c->x.title);
	if (c->y.title) {
		fprintf(out, "<g transform=\"translate(16 %.1f) rotate(-90)\">\n", (top + bottom) / 2);
		text(out, 0, 0, "middle", 12, "fill=\"#333\"", c->y.title);
		fputs("</g>\n", out);
	}
	for (size_t s = 0; s < c->nseries; s++) {
		const struct iom_chart_series *se = &c->series[s];
		const char *color = iom_chart_color(se->color);
		bool pen = false;

		if (se->ring) { /* points only: a black ring around each */
			for (size_t i = 0; i < se->n; i++)
				if (valid(c->x.kind, se->x[i]) && valid(c->y.kind, se->y[i]))
					fprintf(out, "<circle class=\"ring\" cx=\"%.1f\" cy=\"%.1f\" "
						     "r=\"5.5\" fill=\"none\" stroke=\"#000\" "
						     "stroke-width=\"1.8\"/>\n", px(&ax, se->x[i]),
						px(&ay, se->y[i]));
			continue;
		}
		fprintf(out, "<path class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
			     "stroke-linejoin=\"round\"%s d=\"", color,
			se->dashed ? " stroke-dasharray=\"6 4\"" : "");
		for (size_t i = 0; i < se->n; i++) {
			if (!valid(c->x.kind, se->x[i]) || !valid(c->y.kind, se->y[i])) {
				pen = false;
				continue;
			}
			fprintf(out, "%s%.1f %.1f ", pen ? "L" : "M", px(&ax, se->x[i]),
				px(&ay, se->y[i]));
			pen = true;
		}
		fputs("\"/>\n", out);
		if (!se->markers)
			continue;
		for (size_t i = 0; i < se->n; i++) {
			char xs[64], ys[64];

			if (!valid(c->x.kind, se->x[i]) || !valid(c->y.kind, se->y[i]))
				continue;
			(c->x.fmt ? c->x.fmt : default_fmt)(xs, sizeof(xs), se->x[i]);
			(c->y.fmt ? c->y.fmt : default_fmt)(ys, sizeof(ys), se->y[i]);
			fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.2\" fill=\"%s\"><title>",
				px(&ax, se->x[i]), px(&ay, se->y[i]), color);
			iom_chart_escape(out, se->name);
			fputs(": ", out);
			iom_chart_escape(out, xs);
			fputs(", ", out);
			iom_chart_escape(out, ys);
			fputs("</title></circle>\n", out);
		}
	}
	legend(out, items, nitems, left, right - left, h - 12 - 18.0 * (rows - 1));
	fputs("</svg>\n", out);
	free(items);
}

/* ---- bar charts ---- */

#define BAR_H 11.0 /* its value label (10 px) beside it, readable with three groups or more */
#define BAR_GAP 1.0
#define GROUP_GAP 4.0
#define ROW_PAD 7.0

void iom_chart_bars(FILE *out, const struct iom_bar_chart *c)
{
	unsigned w = c->width ? c->width : 1100, h;
	iom_chart_fmt fmt = c->fmt ? c->fmt : default_fmt;
	struct iom_chart_axis spec = { .title = c->value_title,
				       .kind = c->log ? IOM_AXIS_LOG : IOM_AXIS_LINEAR,
				       .fmt = fmt, .zero = !c->log };
	struct axis ax;
	double left = 74, right = w - 90, legend_y = c->subtitle ? 60 : 44, top = legend_y + 16;
	double group_h = (double)c->nkinds * BAR_H + (double)(c->nkinds ? c->nkinds - 1 : 0) *
									 BAR_GAP;
	double row_h = 2 * ROW_PAD + (double)c->ngroups * group_h +
		       (double)(c->ngroups ? c->ngroups - 1 : 0) * GROUP_GAP;
	double bottom = top + row_h * (double)c->nrows, max = 0, x;
	char buf[160], val[64];

	double min = INFINITY;

	for (size_t i = 0; i < c->nrows * c->ngroups * c->nkinds; i++)
		if (isfinite(c->v[i]) && (!c->log || c->v[i] > 0)) {
			max = fmax(max, c->v[i]);
			min = fmin(min, c->v[i]);
		}
	if (c->log)
		axis_fit(&ax, &spec, isfinite(min) ? min : 1, max > 0 ? max : 10);
	else
		axis_fit(&ax, &spec, 0, max > 0 ? max : 1);
	ax.p0 = left;
	ax.p1 = right;
	h = (unsigned)ceil(bottom + 44);

	head(out, c->id, w, h, c->title, c->subtitle);
	fputs("<defs>\n", out);
	for (size_t g = 0; g < c->ngroups; g++)
		fprintf(out, "<pattern id=\"%s-s%zu\" patternUnits=\"userSpaceOnUse\" width=\"6\" "
			     "height=\"6\" patternTransform=\"rotate(45)\"><rect width=\"6\" "
			     "height=\"6\" fill=\"%s\" fill-opacity=\"0.28\"/><rect width=\"3\" "
			     "height=\"6\" fill=\"%s\"/></pattern>\n", c->id ? c->id : "bars", g,
			iom_chart_color(g), iom_chart_color(g));
	fprintf(out, "<pattern id=\"%s-s-gray\" patternUnits=\"userSpaceOnUse\" width=\"6\" "
		     "height=\"6\" patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" "
		     "fill=\"#fff\"/><rect width=\"3\" height=\"6\" fill=\"#777\"/></pattern>\n",
		c->id ? c->id : "bars");
	fputs("</defs>\n", out);

	/* Legend: a swatch per group, then the kinds in grey. */
	x = left;
	for (size_t g = 0; g < c->ngroups; g++) {
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\" fill=\"%s\"/>\n", x,
			legend_y - 9, iom_chart_color(g));
		text(out, x + 18, legend_y, "start", 12, "fill=\"#333\"", c->groups[g]);
		x += 18 + text_w(c->groups[g], 12) + 16;
	}
	for (size_t k = 0; k < c->nkinds; k++) {
		x += k ? 0 : 10;
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\" fill=\"", x,
			legend_y - 9);
		if (k == 0 && c->nkinds > 1)
			fprintf(out, "url(#%s-s-gray)", c->id ? c->id : "bars");
		else
			fputs("#777", out);
		fputs("\" stroke=\"#777\"/>\n", out);
		snprintf(buf, sizeof(buf), "%s%s", c->kinds[k],
			 k == 0 && c->nkinds > 1 ? " (striped)" : "");
		text(out, x + 18, legend_y, "start", 12, "fill=\"#555\"", buf);
		x += 18 + text_w(buf, 12) + 16;
	}

	for (size_t r = 0; r < c->nrows; r++) {
		double y0 = top + row_h * (double)r;

		if (r % 2)
			fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				     "fill=\"#f6f7f9\"/>\n", 0.0, y0, (double)w, row_h);
		text(out, left - 10, y0 + row_h / 2 + 5, "end", 13, "font-weight=\"600\" fill=\"#222\"",
		     c->rows[r]);
	}
	axis_draw(out, &ax, &spec, false, bottom, top);
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\"/>\n",
		left, top, left, bottom);
	if (c->value_title)
		text(out, (left + right) / 2, bottom + 34, "middle", 12, "fill=\"#333\"",
		     c->value_title);
	for (size_t r = 0; r < c->nrows; r++) {
		for (size_t g = 0; g < c->ngroups; g++) {
			for (size_t k = 0; k < c->nkinds; k++) {
				double v = c->v[(r * c->ngroups + g) * c->nkinds + k];
				double y = top + row_h * (double)r + ROW_PAD +
					   (double)g * (group_h + GROUP_GAP) +
					   (double)k * (BAR_H + BAR_GAP);
				double bw;

				if (!isfinite(v) || (c->log && !(v > 0)))
					continue;
				bw = fmax(px(&ax, v) - left, 0.5);
				fmt(val, sizeof(val), v);
				fprintf(out, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
					     "height=\"%.1f\" fill=\"", left, y, bw, BAR_H);
				if (k == 0 && c->nkinds > 1)
					fprintf(out, "url(#%s-s%zu)", c->id ? c->id : "bars", g);
				else
					fputs(iom_chart_color(g), out);
				fprintf(out, "\" stroke=\"%s\" stroke-width=\"0.8\"><title>",
					iom_chart_color(g));
				snprintf(buf, sizeof(buf), "%s %s %s: %s %s", c->groups[g],
					 c->kinds[k], c->rows[r], val,
					 c->value_title ? c->value_title : "");
				iom_chart_escape(out, buf);
				fputs("</title></rect>\n", out);
				/* beside the bar; inside its end when it would leave the chart */
				if (left + bw + 4 + text_w(val, 10) <= (double)w - 2)
					text(out, left + bw + 4, y + BAR_H - 2, "start", 10,
					     "fill=\"#444\"", val);
				else
					text(out, left + bw - 3, y + BAR_H - 2, "end", 10,
					     "fill=\"#fff\" font-weight=\"600\"", val);
			}
		}
	}
	fputs("</svg>\n", out);
}
