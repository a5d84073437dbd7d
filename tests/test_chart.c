/* SPDX-License-Identifier: MIT */
/*
 * Tests of the SVG charts: text is escaped, the heat-map colours are the spreadsheet ones and
 * clamp, linear axes get nice ticks from zero, log axes 1-2-5 bounds and ticks, the nines axis
 * 50 % … 99.9999999 % without a tick beyond the data, a gap in a series starts a new stroke,
 * and bar charts draw one bar per finite value, the first kind striped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/chart.h"
#include "util.h"

static size_t count_of(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *s = text; (s = strstr(s, needle)); s += strlen(needle))
		n++;
	return n;
}

/* An axis label as the chart writes it: ">LABEL</text>". */
static bool has_label(const char *svg, const char *label)
{
	char *want = xasprintf(">%s</text>", label);
	bool found = strstr(svg, want) != NULL;

	free(want);
	return found;
}

static char *line_svg(const struct iom_line_chart *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	iom_chart_line(f, c);
	fclose(f);
	assert_true(strncmp(buf, "<svg ", 5) == 0);
	assert_non_null(strstr(buf, "</svg>\n"));
	return buf;
}

static void test_chart_escape(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	iom_chart_escape(f, "<a href=\"x\">&'µs");
	iom_chart_escape(f, NULL);
	fclose(f);
	assert_string_equal(buf, "&lt;a href=&quot;x&quot;&gt;&amp;&#39;µs");
	free(buf);
}

static void test_chart_heat(void **state)
{
	static const struct {
		double t;
		const char *want;
	} cases[] = {
		{ 0, "#ffffff" }, { 1, "#63be7b" }, { -1, "#f8696b" }, { 2, "#63be7b" },
		{ -5, "#f8696b" }, { NAN, "#ffffff" }, { 0.5, "#b1dfbd" },
	};
	char buf[16];

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		iom_chart_heat(buf, sizeof(buf), cases[i].t);
		assert_string_equal(buf, cases[i].want);
	}
	assert_string_equal(iom_chart_color(0), "#0072b2");
	assert_string_equal(iom_chart_color(IOM_CHART_NCOLORS + 1), iom_chart_color(1));
}

static void test_chart_linear_axis_and_gaps(void **state)
{
	static const double x[] = { 1, 2, 3, 4, 5 };
	static const double y[] = { 10, 187, NAN, 120, 140 };
	static const double y2[] = { 5, 6, 7, 8, 9 };
	const struct iom_chart_series se[] = {
		{ .name = "a<b", .x = x, .y = y, .n = 5, .color = 0, .markers = true },
		{ .name = "c", .x = x, .y = y2, .n = 5, .color = 1, .dashed = true },
	};
	struct iom_line_chart c = {
		.id = "t1", .title = "T & U", .subtitle = "sub",
		.x = { .title = "x", .kind = IOM_AXIS_LINEAR },
		.y = { .title = "y", .kind = IOM_AXIS_LINEAR, .zero = true },
		.series = se, .nseries = 2, .legend_note = "dashed: other",
	};
	char *svg;

	(void)state;
	svg = line_svg(&c);
	assert_non_null(strstr(svg, "id=\"t1\""));
	assert_non_null(strstr(svg, ">T &amp; U</text>"));
	/* Nice ticks from 0: 0, 50, 100, 150, 200. */
	for (int v = 0; v <= 200; v += 50) {
		char l[16];

		snprintf(l, sizeof(l), "%d", v);
		assert_true(has_label(svg, l));
	}
	assert_false(has_label(svg, "250"));
	/* Two series; the NaN starts a second stroke in the first. */
	assert_int_equal(count_of(svg, "<path class=\"series\""), 2);
	assert_int_equal(count_of(svg, "d=\"M"), 2);
	{
		const char *p = strstr(svg, "d=\"M");
		const char *end = strchr(p, '/');

		assert_int_equal(count_of(p, " M"), count_of(end, " M") + 1);
	}
	assert_non_null(strstr(svg, "stroke-dasharray=\"6 4\""));
	/* Markers only on the first series (4 finite points), with escaped titles. */
	assert_int_equal(count_of(svg, "<circle "), 4);
	assert_non_null(strstr(svg, "<title>a&lt;b: 2, 187</title>"));
	/* Legend: both names and the note. */
	assert_non_null(strstr(svg, ">a&lt;b</text>"));
	assert_non_null(strstr(svg, ">dashed: other</text>"));
	free(svg);
}

static void test_chart_log_and_nines_axes(void **state)
{
	static const double pct[] = { 1, 50, 90, 99, 99.9, 99.9999999 };
	static const double lat[] = { 95, 120, 200, 300, 450, 620 };
	const struct iom_chart_series se[] = {
		{ .name = "s", .x = pct, .y = lat, .n = 6 },
	};
	struct iom_line_chart c = {
		.title = "p", .x = { .kind = IOM_AXIS_NINES }, .y = { .kind = IOM_AXIS_LOG },
		.series = se, .nseries = 1, .width = 1100,
	};
	char *svg;

	(void)state;
	svg = line_svg(&c);
	/* 1-2-5 bounds around 95 … 620: 50 to 1000, every 1-2-5 tick between. */
	for (size_t i = 0; i < 5; i++) {
		static const char *const want[] = { "50", "100", "200", "500", "1000" };

		assert_true(has_label(svg, want[i]));
	}
	assert_false(has_label(svg, "10"));
	assert_false(has_label(svg, "2000"));
	/* Nines: 50 %, 90 %, 99 % … 9-nines, nothing beyond. */
	assert_true(has_label(svg, "50%"));
	assert_true(has_label(svg, "90%"));
	assert_true(has_label(svg, "99%"));
	assert_true(has_label(svg, "99.9999%"));
	assert_true(has_label(svg, "99.9999999%"));
	assert_false(has_label(svg, "99.99999999%"));
	free(svg);
}

static void test_chart_bars(void **state)
{
	static const char *const rows[] = { "4K", "1M" };
	static const char *const groups[] = { "lsi", "<pv>" };
	static const char *const kinds[] = { "write", "read" };
	static const double v[] = { 40, 41, 42, NAN, 1500, 1600, 1700, 1800 };
	struct iom_bar_chart c = {
		.id = "b1", .title = "ATTO", .value_title = "MB/s", .rows = rows, .nrows = 2,
		.groups = groups, .ngroups = 2, .kinds = kinds, .nkinds = 2, .v = v,
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	iom_chart_bars(f, &c);
	fclose(f);
	assert_true(strncmp(buf, "<svg ", 5) == 0);
	assert_int_equal(count_of(buf, "<rect class=\"bar\""), 7);
	/* The first kind is striped in the group's colour, the second solid. */
	assert_non_null(strstr(buf, "id=\"b1-s0\""));
	assert_int_equal(count_of(buf, "fill=\"url(#b1-s0)\""), 2);
	assert_int_equal(count_of(buf, "fill=\"url(#b1-s1)\""), 2);
	assert_int_equal(count_of(buf, "fill=\"url(#b1-s-gray)\""), 1); /* the legend's */
	assert_non_null(strstr(buf, "<title>&lt;pv&gt; write 1M: 1700 MB/s</title>"));
	assert_true(has_label(buf, "4K"));
	assert_true(has_label(buf, "2000"));
	assert_true(has_label(buf, "write (striped)"));
	assert_null(strstr(buf, "<pv>"));
	free(buf);
}

/* The width of the bar whose title is title, from its <rect … width="W"> in svg. */
static double bar_width(const char *svg, const char *title)
{
	const char *t = strstr(svg, title), *r;

	assert_non_null(t);
	for (r = t; r > svg && strncmp(r, "<rect class=\"bar\"", 18) != 0; r--)
		;
	r = strstr(r, "width=\"");
	assert_non_null(r);
	return strtod(r + 7, NULL);
}

/* A log value axis: bars of 10, 1000 and 100000 IO/s step by equal widths (a linear axis
 * would draw the first two as slivers beside the third); a bar of 0 is left out. */
static void test_chart_bars_log(void **state)
{
	static const char *const rows[] = { "64M", "1M", "4K", "512" };
	static const char *const groups[] = { "a" };
	static const char *const kinds[] = { "read" };
	static const double v[] = { 10, 1000, 100000, 0 };
	struct iom_bar_chart c = {
		.id = "b2", .title = "ATTO", .value_title = "IO/s", .rows = rows, .nrows = 4,
		.groups = groups, .ngroups = 1, .kinds = kinds, .nkinds = 1, .v = v, .log = true,
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	double w10, w1k, w100k;

	(void)state;
	iom_chart_bars(f, &c);
	fclose(f);
	assert_int_equal(count_of(buf, "<rect class=\"bar\""), 3);
	w10 = bar_width(buf, "a read 64M: ");
	w1k = bar_width(buf, "a read 1M: ");
	w100k = bar_width(buf, "a read 4K: ");
	if (!(fabs((w1k - w10) - (w100k - w1k)) < 1.5) || !(w10 > 0))
		fail_msg("log bars %.1f %.1f %.1f do not step evenly", w10, w1k, w100k);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chart_escape),
		cmocka_unit_test(test_chart_heat),
		cmocka_unit_test(test_chart_linear_axis_and_gaps),
		cmocka_unit_test(test_chart_log_and_nines_axes),
		cmocka_unit_test(test_chart_bars),
		cmocka_unit_test(test_chart_bars_log),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
