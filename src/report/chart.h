/* SPDX-License-Identifier: MIT */
/*
 * chart — SVG charts for a self-contained HTML page: line charts over linear, logarithmic or
 * "nines" axes (the percentile axis of latency curves, where 90 %, 99 %, 99.9 % … are evenly
 * spaced), and grouped horizontal bar charts (the ATTO layout). Everything is written inline:
 * no script, no font or style sheet fetched, every text escaped. Each point and bar carries a
 * <title>, which browsers show on hover without any script.
 *
 * The module knows nothing of benchmarks: it draws the numbers it is given, the caller names
 * them and formats their labels. Nothing is allocated that outlives a call.
 */
#ifndef IOM_CHART_H
#define IOM_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The palette: ten colours that stay apart for the colour-blind (Tableau 10); wraps around. */
#define IOM_CHART_NCOLORS 10
const char *iom_chart_color(size_t i);

/* Writes s escaped for HTML and SVG text and attribute values (& < > " '). */
void iom_chart_escape(FILE *out, const char *s);

/*
 * A heat-map background for t in [-1, 1] as "#rrggbb" into buf (8 bytes): white at 0, shading
 * to green towards +1 and to red towards −1; t outside the range is clamped.
 */
void iom_chart_heat(char *buf, size_t len, double t);

/* Formats a tick or value label. */
typedef void (*iom_chart_fmt)(char *buf, size_t len, double v);

enum iom_axis_kind {
	IOM_AXIS_LINEAR,
	IOM_AXIS_LOG,    /* log10; positive values only */
	IOM_AXIS_NINES,  /* percentiles p in [0, 100): position −log10(1 − p/100) */
};

struct iom_chart_axis {
	const char *title;
	enum iom_axis_kind kind;
	iom_chart_fmt fmt;        /* tick labels; NULL: "%g" (nines: "99.9%") */
	const double *ticks;      /* explicit ticks in data units, the axis spanning them exactly;
				   * NULL: chosen from the data */
	size_t nticks;
	bool zero;                /* a linear axis starts at 0 */
};

struct iom_chart_series {
	const char *name;
	const double *x, *y;      /* n points; a non-finite y (or ≤ 0 on a log axis) is a gap */
	size_t n;
	size_t color;             /* palette index */
	bool dashed;
	bool markers;             /* a dot on every point */
	bool ring;                /* no line: a black ring around each point (a mark, not a
				   * colour); series of one name share one legend entry */
};

struct iom_line_chart {
	const char *id;           /* unique in the page (ids of clip paths) */
	const char *title;
	const char *subtitle;     /* may be NULL */
	struct iom_chart_axis x, y;
	const struct iom_chart_series *series;
	size_t nseries;
	const char *legend_note;  /* one more legend entry in grey, e.g. "dashed: p99"; may be NULL */
	unsigned width, height;   /* px of the plot's whole box; 0: 560 × 360 */
};

/* Writes one <svg> element: the chart, its axes, grid and legend. */
void iom_chart_line(FILE *out, const struct iom_line_chart *c);

struct iom_bar_chart {
	const char *id;           /* unique in the page (ids of the stripe patterns) */
	const char *title;
	const char *subtitle;     /* may be NULL */
	const char *value_title;  /* the value axis: "MB/s" */
	iom_chart_fmt fmt;        /* value and tick labels; NULL: "%g" */
	const char *const *rows;  /* category labels, top to bottom ("512", "4K", …) */
	size_t nrows;
	const char *const *groups; /* one colour each (targets) */
	size_t ngroups;
	const char *const *kinds; /* bars of a group, top to bottom; the first striped, the
				   * others solid ("write", "read") */
	size_t nkinds;
	const double *v;          /* v[(row · ngroups + group) · nkinds + kind]; NaN: no bar */
	unsigned width;           /* px; 0: 1100. The height follows from the rows */
	bool log;                 /* a log10 value axis (bars from its left end): values that
				   * span decades stay readable; ≤ 0 is no bar */
};

/* Writes one <svg> element: horizontal bars, a value axis from 0 (or log), value labels,
 * legend. */
void iom_chart_bars(FILE *out, const struct iom_bar_chart *c);

#endif
