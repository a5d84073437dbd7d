/* SPDX-License-Identifier: MIT */
/*
 * Tests of the report. Synthetic results directories written through result.h's writers give
 * exact cases: a clear win (p tiny, margin big), a tie by p (noisy), a tie by min_effect
 * (significant but tiny), single runs, the median margin, failed runs left out; the p-values
 * pinned here were computed independently (Welch's t and the Welch–Satterthwaite df, the t
 * density integrated numerically in Python; R's t.test gives the same: t = -0.6124, df = 4,
 * p-value = 0.5734 for the noisy case). The fixture directories tests/fixtures/report/boot1
 * and boot2 (a controller study in two boots, written by gen.py there) test merging with
 * partial overlap, provenance differences, cell and run choice, and every format parsed back:
 * CSV column counts, JSON through json-c, Markdown pipes, HTML charts. The DiskSpd-style report
 * of a fixture run reproduces the reference sample's tables line for line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "keys.h"
#include "ownfile.h"
#include "plan.h"
#include "report/report_model.h"
#include "result/resdir.h"
#include "result/result.h"
#include "result/study.h"
#include "result/summary.h"
#include "tmpdir.h"
#include "util.h"

#define FIXTURES "tests/fixtures/results"
#define BOOT1 "tests/fixtures/report/boot1"
#define BOOT2 "tests/fixtures/report/boot2"

/* the metrics a study compares when it names none (report.metrics): the first five */
#define NSHOWN __builtin_popcount(IOM_METRICS_DEFAULT)

static struct iom_target targets[] = {
	{ .label = "lsi", .path = "/tmp/iom-lsi" },
	{ .label = "pvscsi", .path = "/tmp/iom-pvscsi" },
	{ .label = "nvme-ctrl-a", .path = "/tmp/iom-nvme" },
	{ .label = "virtio-blk", .path = "/tmp/iom-virtio" },
	{ .label = "ahci", .path = "/tmp/iom-ahci" },
};

/* One run of a synthetic study. */
struct spec {
	int target;
	int qd;
	uint32_t rep;
	enum iom_run_status status;
	double iops, lat_us, p99_us, cpu_us;
	const char *error;
};

/* Writes study.json (with report options ro, zeros when NULL) and runs/NNNNN.json (index =
 * position + 1) for runs into dir, the targets taken from ts. */
static void make_study_with(const char *dir, const struct spec *runs, size_t n,
			    struct iom_target *ts, size_t ntargets, const struct iom_report_opts *ro)
{
	struct iom_matrix m = { .name = "synthetic", .file = "synthetic.cfg", .targets = ts,
				.ntargets = ntargets, .compare = IOM_DIM_TARGET,
				.timing = { .duration_ns = 1000000000, .repeat = 2 } };
	struct iom_plan p = { .m = &m, .nruns = n, .hash = 0xabcdef };
	struct iom_study_record rec = { .plan = &p, .start_wall_ns = 1764460800000000000ull };
	char err[IOM_ERRLEN] = "";

	if (ro)
		m.report = *ro;
	assert_int_equal(iom_results_dir_create(test_own(dir), err, sizeof(err)), 0);
	assert_int_equal(iom_study_write(test_own(dir), &rec, err, sizeof(err)), 0);
	for (size_t i = 0; i < n; i++) {
		const struct spec *s = &runs[i];
		struct iom_cell c = { .v = { s->target, 4096, s->qd, 1, 100, IOM_PATTERN_RANDOM,
					     IOM_ENGINE_IO_URING, 1 } };
		struct iom_run_result r = { .index = (uint32_t)i + 1, .repetition = s->rep,
					    .status = s->status, .error = (char *)s->error,
					    .elapsed_s = 1 };
		struct iom_io_stats *t = &r.dir[IOM_DIR_TOTAL];

		t->iops = s->iops;
		t->mb_s = s->iops * 4096 / 1e6;
		t->ios = (uint64_t)s->iops;
		t->lat.mean = s->lat_us * 1000;
		t->lat.pct[iom_percentile_index(99)] = (uint64_t)(s->p99_us * 1000);
		r.cpu.us_per_io = s->cpu_us;
		r.dir[IOM_DIR_READ] = *t; /* read_pct 100 */
		assert_int_equal(iom_result_write(test_own(dir), &m, &c, &r, err, sizeof(err)), 0);
	}
}

static void make_study(const char *dir, const struct spec *runs, size_t n, size_t ntargets)
{
	make_study_with(dir, runs, n, targets, ntargets, NULL);
}

/* The report of dirs in the format of o, as a string; fails the test on an error. */
static char *report_of(const char *const *dirs, size_t n, const struct iom_report_opts_cli *o)
{
	char err[IOM_ERRLEN] = "";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (iom_report_main(f, dirs, n, o, err, sizeof(err)) != 0) {
		print_error("%s\n", err);
		fail();
	}
	fclose(f);
	return buf;
}

/* The text report of dir (color off unless asked). */
static char *winners_text(const char *dir, const char *compare, int color)
{
	struct iom_report_opts_cli o = { .compare = compare, .color = color };

	return report_of(&dir, 1, &o);
}

/* The report of the two fixture boots in format fmt. */
static char *boots(const char *fmt)
{
	static const char *const dirs[] = { BOOT1, BOOT2 };
	struct iom_report_opts_cli o = { .color = 0, .format = fmt };

	return report_of(dirs, 2, &o);
}

static int display_width(const char *s, size_t n)
{
	int w = 0;

	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			w++;
	return w;
}

static int widest_line(const char *text)
{
	int widest = 0;

	for (const char *s = text; *s;) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);

		widest = IOM_MAX(widest, display_width(s, n));
		s += n + (nl ? 1 : 0);
	}
	return widest;
}

/* The line of text that starts with prefix (after leading spaces), or NULL. */
static const char *line_with(const char *text, const char *prefix)
{
	for (const char *s = text; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL) {
		const char *p = s;

		while (*p == ' ')
			p++;
		if (strncmp(p, prefix, strlen(prefix)) == 0)
			return s;
	}
	return NULL;
}

static size_t count_of(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *s = text; (s = strstr(s, needle)); s += strlen(needle))
		n++;
	return n;
}

static void assert_near(double got, double want, double rel)
{
	if (!(fabs(got - want) <= rel * fabs(want))) {
		print_error("got %.12g, want %.12g (±%g relative)\n", got, want, rel);
		fail();
	}
}

static void verdict_of(const char *dir, size_t cell, enum iom_metric k,
		       struct iom_report_verdict *v)
{
	struct iom_report m;
	char err[IOM_ERRLEN] = "";

	assert_int_equal(iom_report_load(dir, NULL, &m, err, sizeof(err)), 0);
	iom_report_verdict(&m, cell, k, v);
	iom_report_release(&m);
}

/* ---- the model ---- */

/* Three repetitions a side, tiny noise, pvscsi better on every metric in both cells. */
static const struct spec clear[] = {
	{ 0, 1, 1, IOM_RUN_OK, 10000, 100, 200, 20, NULL },
	{ 1, 1, 1, IOM_RUN_OK, 12000, 80, 150, 12, NULL },
	{ 0, 32, 1, IOM_RUN_OK, 200000, 160, 400, 6, NULL },
	{ 1, 32, 1, IOM_RUN_OK, 210000, 150, 380, 4, NULL },
	{ 0, 1, 2, IOM_RUN_OK, 10100, 101, 202, 20.2, NULL },
	{ 1, 1, 2, IOM_RUN_OK, 12100, 81, 152, 12.1, NULL },
	{ 0, 32, 2, IOM_RUN_OK, 201000, 161, 402, 6.1, NULL },
	{ 1, 32, 2, IOM_RUN_OK, 211000, 151, 382, 4.1, NULL },
	{ 0, 1, 3, IOM_RUN_OK, 9900, 99, 198, 19.8, NULL },
	{ 1, 1, 3, IOM_RUN_OK, 11900, 79, 148, 11.9, NULL },
	{ 0, 32, 3, IOM_RUN_OK, 199000, 159, 398, 5.9, NULL },
	{ 1, 32, 3, IOM_RUN_OK, 209000, 149, 378, 3.9, NULL },
};

static void test_report_model_keeps_repetitions(void **state)
{
	const char *dir = *state;
	struct iom_report m;
	struct iom_stats_summary s;
	char err[IOM_ERRLEN] = "";

	make_study(dir, clear, IOM_ARRAY_SIZE(clear), 2);
	assert_int_equal(iom_report_load(dir, NULL, &m, err, sizeof(err)), 0);
	assert_string_equal(m.compare, "target");
	assert_int_equal(m.ncompared, 2);
	assert_string_equal(m.compared[0], "lsi");
	assert_string_equal(m.compared[1], "pvscsi");
	assert_false(m.qualified);
	assert_int_equal(m.nsrc, 1);
	assert_string_equal(m.src[0].dir, dir);
	assert_int_equal(m.src[0].nruns, 12);
	assert_int_equal(m.nruns, 12);
	assert_int_equal(m.nok, 12);
	assert_int_equal(m.nexcluded, 0);
	assert_int_equal(m.ncells, 2);
	{
		int sparse = 0; /* the sparse dimensions, left out of cells that do not use them */

		for (int d = 1; d < IOM_DIM_COUNT; d++)
			sparse += (iom_dim_key((enum iom_dim)d)->flags & IOM_KEY_SPARSE) != 0;
		assert_int_equal(m.ndims, IOM_DIM_COUNT - 1 - sparse);
	}
	assert_string_equal(m.dims[0], "block_size");
	assert_string_equal(m.dims[1], "queue_depth");
	assert_false(m.varies[0]);
	assert_true(m.varies[1]);
	assert_string_equal(m.cells[0].value[1], "1");
	assert_string_equal(m.cells[1].value[1], "32");
	assert_true(m.cells[0].in_src[0]);
	/* Every repetition's value, in run order, with the run it came from. */
	assert_int_equal(m.cells[0].by[0].n, 3);
	assert_int_equal(m.cells[0].by[0].run[0], 1);
	assert_int_equal(m.cells[0].by[0].run[1], 5);
	assert_int_equal(m.cells[0].by[0].src[1], 0);
	assert_true(m.cells[0].by[0].v[IOM_METRIC_IOPS][1] == 10100);
	assert_true(m.cells[0].by[1].v[IOM_METRIC_LAT_MEAN][1] == 81000);
	assert_true(m.cells[0].by[1].v[IOM_METRIC_LAT_P99][0] == 150000);
	assert_true(m.cells[0].by[0].v[IOM_METRIC_CPU_PER_IO][1] == 20.2);
	assert_true(fabs(m.cells[0].by[0].v[IOM_METRIC_MB_S][0] - 40.96) < 1e-9);
	assert_true(m.cells[0].by[0].x[IOM_X_READ_IOPS][0] == 10000);
	assert_true(m.cells[0].by[0].x[IOM_X_WRITE_MB_S][0] == 0);
	assert_true(m.cells[0].by[0].x[IOM_X_PCT + iom_percentile_index(99)][0] == 200000);
	assert_true(iom_report_mean(&m.cells[0].by[0], IOM_METRIC_IOPS) == 10000);
	/* Mean, sample stddev, CV and the 95 % CI half-width t(0.975, 2) · s / √3. */
	iom_report_summary(&m.cells[0].by[0], IOM_METRIC_IOPS, &s);
	assert_int_equal(s.n, 3);
	assert_near(s.mean, 10000, 1e-12);
	assert_near(s.stddev, 100, 1e-12);
	assert_near(s.cv, 0.01, 1e-12);
	assert_near(s.ci95, 4.302652729911275 * 100 / sqrt(3), 1e-9);
	/* A study.json without report options (these synthetic ones) gets the defaults. */
	assert_true(m.opts.alpha == IOM_REPORT_ALPHA);
	assert_true(m.opts.min_effect_pct == IOM_REPORT_MIN_EFFECT_PCT);
	assert_true(m.opts.max_cv_pct == IOM_REPORT_MAX_CV_PCT);
	iom_report_release(&m);
}

/* ---- verdicts ---- */

static void test_report_clear_win(void **state)
{
	static const struct {
		size_t cell;
		enum iom_metric k;
		double margin;
	} want[] = {
		{ 0, IOM_METRIC_IOPS, 20.0 }, { 0, IOM_METRIC_MB_S, 20.0 },
		{ 0, IOM_METRIC_LAT_MEAN, 20.0 }, { 0, IOM_METRIC_LAT_P99, 25.0 },
		{ 0, IOM_METRIC_CPU_PER_IO, 40.0 }, { 1, IOM_METRIC_IOPS, 5.0 },
		{ 1, IOM_METRIC_LAT_MEAN, 100.0 / 16 }, { 1, IOM_METRIC_CPU_PER_IO, 100.0 / 3 },
	};
	const char *dir = *state;
	struct iom_report m;
	struct iom_report_verdict v;
	struct iom_report_tally t;
	char err[IOM_ERRLEN] = "";
	char *text;
	const char *line;

	make_study(dir, clear, IOM_ARRAY_SIZE(clear), 2);
	assert_int_equal(iom_report_load(dir, NULL, &m, err, sizeof(err)), 0);
	for (size_t i = 0; i < IOM_ARRAY_SIZE(want); i++) {
		iom_report_verdict(&m, want[i].cell, want[i].k, &v);
		assert_int_equal(v.kind, IOM_VERDICT_WIN);
		assert_int_equal(v.winner, 1);
		assert_int_equal(v.best, 1);
		assert_int_equal(v.runner_up, 0);
		assert_near(v.margin_pct, want[i].margin, 1e-9);
		assert_true(v.p_value < 0.001);
		assert_false(v.tie_by_p || v.tie_by_effect || v.noisy);
	}
	/* Welch: t = -24.49, df = 4, p = 1.6483e-5. */
	iom_report_verdict(&m, 0, IOM_METRIC_IOPS, &v);
	assert_near(v.p_value, 1.6483088987186297e-05, 1e-6);
	assert_string_equal(iom_verdict_name(v.kind), "win");
	/* pvscsi won both cells on IOPS, lsi lost both; median margins +12.5 % and -12.5 %. */
	assert_int_equal(iom_report_outcome(&m, 0, IOM_METRIC_IOPS, 1, NULL), IOM_OUTCOME_WON);
	assert_int_equal(iom_report_outcome(&m, 0, IOM_METRIC_IOPS, 0, NULL), IOM_OUTCOME_LOST);
	iom_report_tally(&m, IOM_METRIC_IOPS, 1, &t);
	assert_int_equal(t.won, 2);
	assert_int_equal(t.same + t.undecided + t.lost + t.single_run, 0);
	assert_near(t.median_margin_pct, 12.5, 1e-9);
	iom_report_tally(&m, IOM_METRIC_IOPS, 0, &t);
	assert_int_equal(t.lost, 2);
	assert_near(t.median_margin_pct, -12.5, 1e-9);
	iom_report_release(&m);

	text = winners_text(dir, NULL, 0);
	assert_null(strchr(text, '\033'));
	line = line_with(text, "qd1 ");
	assert_non_null(line);
	assert_non_null(strstr(line, "*12.00K"));
	assert_non_null(strstr(line, "*80.0µs"));
	assert_non_null(strstr(line, "*150µs"));
	assert_non_null(strstr(line, "10.00K"));
	assert_null(strstr(line, "*10.00K"));
	/* The margins on the line beneath. */
	line = strchr(line, '\n') + 1;
	assert_non_null(strstr(line, " 20.0%"));
	assert_non_null(strstr(line, " 25.0%"));
	assert_non_null(strstr(line, " 40.0%"));
	assert_null(strstr(line, "-"));
	assert_null(strstr(line, "+"));
	assert_non_null(strstr(text, "* winner: better by more than 2% with Welch p < 0.05"));
	assert_non_null(strstr(text, "(p adjusted: Holm's correction over 10 tests)"));
	/* The closing verdict: won/same/undecided/lost and the median margin per metric. */
	assert_non_null(strstr(text, "verdict over 2 cells: won/same/undecided/lost, median margin"));
	/* (stacked, "pvscsi: IOPS 2/0/0/0 better by 12.5%; …", when the words do not fit) */
	line = line_with(strstr(text, "verdict over"), "pvscsi");
	assert_non_null(line);
	assert_non_null(strstr(line, "2/0/0/0 better by 12.5%"));
	line = line_with(strstr(text, "verdict over"), "lsi");
	assert_non_null(strstr(line, "0/0/0/2 worse by 12.5%"));
	assert_true(widest_line(text) <= 100);
	free(text);

	/* On a terminal the winners are bold as well. */
	text = winners_text(dir, NULL, 1);
	assert_non_null(strstr(text, "\033[1m*12.00K\033[0m"));
	free(text);
}

static void test_report_tie_by_p_noisy(void **state)
{
	/* 10 % apart, but CV 20 % with three runs: Welch p = 0.573 (R: t.test). */
	static const struct spec runs[] = {
		{ 0, 1, 1, IOM_RUN_OK, 10000, 100, 200, 20, NULL },
		{ 1, 1, 1, IOM_RUN_OK, 11000, 100, 200, 20, NULL },
		{ 0, 1, 2, IOM_RUN_OK, 12000, 100, 200, 20, NULL },
		{ 1, 1, 2, IOM_RUN_OK, 13000, 100, 200, 20, NULL },
		{ 0, 1, 3, IOM_RUN_OK, 8000, 100, 200, 20, NULL },
		{ 1, 1, 3, IOM_RUN_OK, 9000, 100, 200, 20, NULL },
	};
	const char *dir = *state;
	struct iom_report m;
	struct iom_report_verdict v;
	struct iom_report_noisy *nz;
	struct iom_report_tally t;
	char err[IOM_ERRLEN] = "";
	char *text;
	size_t n;

	make_study(dir, runs, IOM_ARRAY_SIZE(runs), 2);
	assert_int_equal(iom_report_load(dir, NULL, &m, err, sizeof(err)), 0);
	iom_report_verdict(&m, 0, IOM_METRIC_IOPS, &v);
	assert_int_equal(v.kind, IOM_VERDICT_UNDECIDED);
	assert_int_equal(v.winner, -1);
	assert_int_equal(v.best, 1);
	assert_near(v.margin_pct, 10, 1e-12);
	assert_near(v.p_value, 0.5733922538261707, 1e-6);
	assert_true(v.tie_by_p);
	assert_false(v.tie_by_effect);
	assert_true(v.noisy);
	assert_near(v.max_cv_pct, 20, 1e-9);
	assert_int_equal(iom_report_outcome(&m, 0, IOM_METRIC_IOPS, 0, NULL),
			 IOM_OUTCOME_UNDECIDED);
	assert_int_equal(iom_report_outcome(&m, 0, IOM_METRIC_IOPS, 1, NULL),
			 IOM_OUTCOME_UNDECIDED);
	iom_report_tally(&m, IOM_METRIC_IOPS, 1, &t);
	assert_int_equal(t.undecided, 1);
	assert_int_equal(t.won + t.same, 0);
	/* Equal latencies with no noise: shown the same, and not noisy. */
	iom_report_verdict(&m, 0, IOM_METRIC_LAT_MEAN, &v);
	assert_int_equal(v.kind, IOM_VERDICT_SAME);
	assert_false(v.noisy);
	/* Both values are noisy on IOPS (and MB/s): CV 20 % and 18.2 %, pooled 19.1 %; the
	 * suggestion is the smallest n with 2 (t_{1−α/2} + t_{0.8})² (19.1 / 10)² ≤ n at df 2n − 2,
	 * α = 0.05 / 5 tests (Holm's first step): 87 repetitions (scipy's t.ppf gives the same). */
	n = iom_report_noisy_list(&m, &nz);
	assert_int_equal(n, 4);
	assert_int_equal(nz[0].metric, IOM_METRIC_IOPS);
	assert_int_equal(nz[0].compared, 0);
	assert_int_equal(nz[0].n, 3);
	assert_near(nz[0].cv_pct, 20, 1e-9);
	assert_int_equal(nz[0].suggest, 87);
	assert_false(nz[0].capped);
	assert_int_equal(nz[2].metric, IOM_METRIC_MB_S);
	free(nz);
	iom_report_release(&m);

	text = winners_text(dir, NULL, 0);
	assert_null(strstr(text, "*11.00K"));
	assert_non_null(strstr(text, "11.00K~"));
	/* One cell: named by all its dimensions; "?" (undecided) beneath the best. */
	assert_non_null(line_with(text, "4K rnd rd100 qd1 t1 io_uring direct "));
	assert_non_null(strstr(strchr(line_with(text, "4K rnd "), '\n'), "?"));
	assert_non_null(strstr(strchr(line_with(text, "4K rnd "), '\n'), "same"));
	assert_non_null(strstr(text, "undecided (2): neither a win nor the same shown"));
	assert_non_null(strstr(text, "IOPS better by 10.0%, MB/s better by 10.0% (3 runs; about 87"));
	assert_non_null(strstr(text, "would settle it: timing.repeat = 87)"));
	assert_non_null(strstr(text, "noisy (CV above 5%): more repetitions would settle these"));
	assert_non_null(strstr(text, "lsi: IOPS 20.0%, MB/s 20.0% (3 runs; about 87 would settle"));
	free(text);
}

static void test_report_tie_by_min_effect(void **state)
{
	/* 1 % apart with almost no noise: significant (p = 2.7e-8) but below min_effect 2 %. */
	static const struct spec runs[] = {
		{ 0, 1, 1, IOM_RUN_OK, 10000, 100, 200, 20, NULL },
		{ 1, 1, 1, IOM_RUN_OK, 10100, 100, 200, 20, NULL },
		{ 0, 1, 2, IOM_RUN_OK, 10001, 100, 200, 20, NULL },
		{ 1, 1, 2, IOM_RUN_OK, 10101, 100, 200, 20, NULL },
		{ 0, 1, 3, IOM_RUN_OK, 9999, 100, 200, 20, NULL },
		{ 1, 1, 3, IOM_RUN_OK, 10099, 100, 200, 20, NULL },
	};
	static const struct iom_report_opts recorded = { 0.05, 0.5, 5, IOM_CORRECTION_HOLM, 0 };
	const char *dir = *state;
	struct iom_report m;
	struct iom_report_verdict v;
	char err[IOM_ERRLEN] = "";
	char *text, *json;

	make_study(dir, runs, IOM_ARRAY_SIZE(runs), 2);
	assert_int_equal(iom_report_load(dir, NULL, &m, err, sizeof(err)), 0);
	iom_report_verdict(&m, 0, IOM_METRIC_IOPS, &v);
	assert_int_equal(v.kind, IOM_VERDICT_SAME); /* within ± 2 %: TOST p tiny */
	assert_true(v.tost_adjusted < 1e-4);
	assert_near(v.margin_pct, 1, 1e-9);
	assert_near(v.p_value, 2.6654818961637585e-08, 1e-4);
	assert_false(v.tie_by_p);
	assert_true(v.tie_by_effect);
	/* A smaller minimum effect on the command line makes it a win; a bad one is refused. */
	assert_int_equal(iom_report_set_opts(&m, NULL, "0.5%", NULL, err, sizeof(err)), 0);
	assert_true(m.opts.min_effect_pct == 0.5);
	iom_report_verdict(&m, 0, IOM_METRIC_IOPS, &v);
	assert_int_equal(v.kind, IOM_VERDICT_WIN);
	assert_int_equal(v.winner, 1);
	/* alpha 0.0001 is still above p. */
	assert_int_equal(iom_report_set_opts(&m, "0.0001", NULL, NULL, err, sizeof(err)), 0);
	iom_report_verdict(&m, 0, IOM_METRIC_IOPS, &v);
	assert_int_equal(v.kind, IOM_VERDICT_WIN);
	assert_int_equal(iom_report_set_opts(&m, "0.6", NULL, NULL, err, sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, "alpha"));
	assert_true(m.opts.alpha == 0.0001); /* unchanged by the refused value */
	iom_report_release(&m);

	/* The same options recorded in study.json (report = { min_effect = 0.5%; }) apply. */
	{
		char *sub = xasprintf("%s/recorded", dir);
		struct iom_report_opts_cli o = { .format = "json" };

		make_study_with(sub, runs, IOM_ARRAY_SIZE(runs), targets, 2, &recorded);
		verdict_of(sub, 0, IOM_METRIC_IOPS, &v);
		assert_int_equal(v.kind, IOM_VERDICT_WIN);
		/* … unless the command line says otherwise. */
		o.min_effect = "2";
		json = report_of((const char *const *)&sub, 1, &o);
		assert_non_null(strstr(json, "\"min_effect_pct\": 2"));
		assert_non_null(strstr(json, "\"verdict\": \"same\""));
		free(json);
		free(sub);
	}
	text = winners_text(dir, NULL, 0);
	assert_null(strstr(text, "*10.10K"));
	assert_non_null(strstr(strchr(line_with(text, "4K rnd "), '\n'), "same"));
	free(text);
}

static void test_report_single_run(void **state)
{
	/* One run each: the best and its margin are shown, no winner is declared. */
	static const struct spec runs[] = {
		{ 0, 1, 1, IOM_RUN_OK, 10000, 100, 200, 20, NULL },
		{ 1, 1, 1, IOM_RUN_OK, 12000, 80, 150, 12, NULL },
		{ 0, 32, 1, IOM_RUN_OK, 50000, 640, 900, 7, NULL },
		{ 1, 32, 1, IOM_RUN_OK, 50000, 640, 900, 7, NULL },
	};
	const char *dir = *state;
	struct iom_report m;
	struct iom_report_verdict v;
	struct iom_report_tally t;
	char err[IOM_ERRLEN] = "";
	char *text, *csv;

	make_study(dir, runs, IOM_ARRAY_SIZE(runs), 2);
	assert_int_equal(iom_report_load(dir, NULL, &m, err, sizeof(err)), 0);
	for (size_t c = 0; c < 2; c++) {
		for (int k = 0; k < NSHOWN; k++) {
			iom_report_verdict(&m, c, (enum iom_metric)k, &v);
			assert_int_equal(v.kind, IOM_VERDICT_SINGLE_RUN);
			assert_int_equal(v.winner, -1);
			assert_true(isnan(v.p_value));
		}
	}
	iom_report_verdict(&m, 0, IOM_METRIC_IOPS, &v);
	assert_int_equal(v.best, 1);
	assert_near(v.margin_pct, 20, 1e-12);
	assert_string_equal(iom_verdict_name(v.kind), "single-run");
	iom_report_tally(&m, IOM_METRIC_IOPS, 1, &t);
	assert_int_equal(t.single_run, 2);
	assert_int_equal(t.won + t.same + t.undecided + t.lost, 0);
	assert_near(t.median_margin_pct, 10, 1e-12); /* median of +20 % and 0 % */
	iom_report_release(&m);

	text = winners_text(dir, NULL, 0);
	assert_non_null(strstr(text, "figures: one run each"));
	assert_non_null(strstr(text, "single run — no significance, no winner"));
	assert_null(strstr(text, "*12.00K"));
	assert_non_null(strstr(strchr(line_with(text, "qd1 "), '\n'), "(20.0%)"));
	assert_non_null(strstr(text, "won/same/undecided/lost/single run"));
	free(text);
	{
		struct iom_report_opts_cli o = { .format = "csv" };

		csv = report_of(&dir, 1, &o);
		assert_non_null(strstr(csv, ",single-run,,20,"));
		free(csv);
	}
}

/* a run of fewer than 100 I/Os has no meaningful percentiles: "n/a (only N I/Os)". */
static void test_report_too_few_ios(void **state)
{
	static const struct spec runs[] = {
		{ 0, 1, 1, IOM_RUN_OK, 42, 100, 200, 20, NULL },
		{ 1, 1, 1, IOM_RUN_OK, 5000, 80, 150, 12, NULL },
		{ 0, 1, 2, IOM_RUN_OK, 43, 101, 201, 20, NULL },
		{ 1, 1, 2, IOM_RUN_OK, 5001, 81, 151, 12, NULL },
	};
	const char *dir = *state;
	struct iom_report_opts_cli o = { .color = 0 };
	struct iom_report m;
	struct iom_report_verdict v;
	char err[IOM_ERRLEN] = "", few[48];
	char *text, *buf = NULL;
	size_t len = 0;
	FILE *f;

	assert_true(iom_result_few_ios_text(42, few, sizeof(few)));
	assert_string_equal(few, "n/a (only 42 I/Os)");
	assert_true(iom_result_few_ios_text(1, few, sizeof(few)));
	assert_string_equal(few, "n/a (only 1 I/O)");
	assert_false(iom_result_few_ios_text(100, few, sizeof(few)));
	assert_string_equal(few, "");
	assert_false(iom_result_few_ios_text(0, few, sizeof(few)));

	make_study(dir, runs, IOM_ARRAY_SIZE(runs), 2);
	assert_int_equal(iom_report_load(dir, NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(m.cells[0].by[0].few_ios, 2);
	assert_int_equal(m.cells[0].by[1].few_ios, 0);
	/* lsi's p99 takes no part: nothing to compare pvscsi's with */
	iom_report_verdict(&m, 0, IOM_METRIC_LAT_P99, &v);
	assert_int_equal(v.kind, IOM_VERDICT_NONE);
	assert_int_equal(iom_report_outcome(&m, 0, IOM_METRIC_LAT_P99, 0, NULL),
			 IOM_OUTCOME_ABSENT);
	/* … while its IOPS do */
	iom_report_verdict(&m, 0, IOM_METRIC_IOPS, &v);
	assert_int_equal(v.kind, IOM_VERDICT_WIN);
	iom_report_release(&m);

	text = winners_text(dir, NULL, 0);
	assert_non_null(strstr(text, "; lat p99 n/a: fewer than 100 I/Os in a run"));
	assert_non_null(strstr(line_with(text, "4K rnd "), "  n/a "));
	free(text);

	/* The DiskSpd view of run 1: the percentile table gives way to the exact line. */
	f = open_memstream(&buf, &len);
	assert_int_equal(iom_report_run(f, dir, 1, &o, err, sizeof(err)), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\nlatency percentiles: n/a (only 42 I/Os); min 0.000 ms, "
				    "max 0.000 ms\n"));
	assert_null(strstr(buf, "%-ile"));
	free(buf);
}

/* a run that did not reach steady state is left out of verdicts, with why. */
static void test_report_not_steady_left_out(void **state)
{
	static const struct spec runs[] = {
		{ 0, 1, 1, IOM_RUN_OK, 10000, 100, 200, 20, NULL },
		{ 1, 1, 1, IOM_RUN_OK, 12000, 80, 150, 12, NULL },
		{ 0, 1, 2, IOM_RUN_OK, 10010, 100, 200, 20, NULL },
		{ 1, 1, 2, IOM_RUN_OK, 12010, 80, 150, 12, NULL },
		{ 0, 1, 3, IOM_RUN_OK, 10020, 100, 200, 20, NULL },
		{ 1, 1, 3, IOM_RUN_OK, 12020, 80, 150, 12, NULL },
	};
	const char *dir = *state;
	struct iom_report m;
	char err[IOM_ERRLEN] = "";
	char *path, *text = NULL, *at, *out;

	make_study(dir, runs, IOM_ARRAY_SIZE(runs), 2);
	path = iom_result_path(dir, 6);
	assert_int_equal(iom_read_file(path, &text, NULL), 0);
	at = strstr(text, "\"stalled\": null");
	assert_non_null(at);
	*at = '\0';
	out = xasprintf("%s\"steady\": { \"criterion\": \"iops 2%% 10s\", \"reached\": false, "
			"\"at_s\": null, \"warmup_s\": 60.1, \"spread_pct\": 7.5 }, \"%s", text,
			at + 1);
	assert_int_equal(iom_write_file_atomic(path, out, strlen(out)), 0);
	free(out);
	free(text);
	free(path);

	assert_int_equal(iom_report_load(dir, NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(m.cells[0].by[1].n, 2); /* run 6 left out */
	assert_int_equal(m.nexcluded, 1);
	assert_int_equal(m.excluded[0].run, 6);
	assert_string_equal(m.excluded[0].error, "steady state (iops 2% 10s) not reached in 60.1 s "
						 "of warm-up: spread 7.5%");
	iom_report_release(&m);
	text = winners_text(dir, NULL, 0);
	assert_non_null(strstr(text, "steady state (iops 2% 10s) not reached in 60.1 s"));
	free(text);
}

/* `report --format csv` and summary.csv write a figure with the same digits (csv.h): a billion
 * IOPS as 2500000000, not 2.5e+09 in one of them. */
static void test_report_csv_digits_match_summary(void **state)
{
	static const struct spec runs[] = {
		{ 0, 1, 1, IOM_RUN_OK, 2.5e9, 100, 200, 0.0000123456789, NULL },
		{ 1, 1, 1, IOM_RUN_OK, 1.25e9, 80, 150, 0.5, NULL },
	};
	const char *dir = *state;
	struct iom_report_opts_cli o = { .format = "csv" };
	char err[IOM_ERRLEN] = "", *csv, *summary, *path;

	make_study(dir, runs, IOM_ARRAY_SIZE(runs), 2);
	assert_int_equal(iom_summary_rebuild(test_own(dir), err, sizeof(err)), 0);
	path = xasprintf("%s/summary.csv", dir);
	assert_int_equal(iom_read_file(path, &summary, NULL), 0);
	csv = report_of(&dir, 1, &o);
	for (size_t i = 0; i < 2; i++) {
		const char *text = i ? summary : csv;

		assert_non_null(strstr(text, ",2500000000,"));
		assert_non_null(strstr(text, ",1250000000,"));
		assert_non_null(strstr(text, ",0.0000123456789,"));
		assert_null(strstr(text, "e+0"));
		assert_null(strstr(text, "e-0"));
	}
	free(csv);
	free(summary);
	free(path);
}

static void test_report_single_vs_repeated(void **state)
{
	/* pvscsi repeated, lsi once: still no test, so no winner. */
	static const struct spec runs[] = {
		{ 0, 1, 1, IOM_RUN_OK, 10000, 100, 200, 20, NULL },
		{ 1, 1, 1, IOM_RUN_OK, 12000, 80, 150, 12, NULL },
		{ 1, 1, 2, IOM_RUN_OK, 12100, 81, 151, 12, NULL },
	};
	const char *dir = *state;
	struct iom_report_verdict v;

	make_study(dir, runs, IOM_ARRAY_SIZE(runs), 2);
	verdict_of(dir, 0, IOM_METRIC_IOPS, &v);
	assert_int_equal(v.kind, IOM_VERDICT_SINGLE_RUN);
	assert_int_equal(v.best, 1);
	assert_int_equal(v.winner, -1);
}

static void test_report_median_margin(void **state)
{
	/* Three cells, margins of pvscsi on IOPS +10 %, +30 %, -5 % (as lsi's +5 %). */
	static const struct spec runs[] = {
		{ 0, 1, 1, IOM_RUN_OK, 10000, 100, 200, 20, NULL },
		{ 1, 1, 1, IOM_RUN_OK, 11000, 100, 200, 20, NULL },
		{ 0, 1, 2, IOM_RUN_OK, 10010, 100, 200, 20, NULL },
		{ 1, 1, 2, IOM_RUN_OK, 11011, 100, 200, 20, NULL },
		{ 0, 8, 1, IOM_RUN_OK, 10000, 100, 200, 20, NULL },
		{ 1, 8, 1, IOM_RUN_OK, 13000, 100, 200, 20, NULL },
		{ 0, 8, 2, IOM_RUN_OK, 10010, 100, 200, 20, NULL },
		{ 1, 8, 2, IOM_RUN_OK, 13013, 100, 200, 20, NULL },
		{ 0, 32, 1, IOM_RUN_OK, 10500, 100, 200, 20, NULL },
		{ 1, 32, 1, IOM_RUN_OK, 10000, 100, 200, 20, NULL },
		{ 0, 32, 2, IOM_RUN_OK, 10510.5, 100, 200, 20, NULL },
		{ 1, 32, 2, IOM_RUN_OK, 10010, 100, 200, 20, NULL },
	};
	const char *dir = *state;
	struct iom_report m;
	struct iom_report_tally t;
	char err[IOM_ERRLEN] = "";
	double mg;

	make_study(dir, runs, IOM_ARRAY_SIZE(runs), 2);
	assert_int_equal(iom_report_load(dir, NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(m.ncells, 3);
	assert_int_equal(iom_report_outcome(&m, 2, IOM_METRIC_IOPS, 1, &mg), IOM_OUTCOME_LOST);
	assert_near(mg, -5, 1e-9);
	iom_report_tally(&m, IOM_METRIC_IOPS, 1, &t);
	assert_int_equal(t.won, 2);
	assert_int_equal(t.lost, 1);
	assert_int_equal(t.nmargin, 3);
	assert_near(t.median_margin_pct, 10, 1e-9);
	iom_report_tally(&m, IOM_METRIC_IOPS, 0, &t);
	assert_int_equal(t.won, 1);
	assert_int_equal(t.lost, 2);
	assert_near(t.median_margin_pct, -10, 1e-9);
	/* Equal latencies everywhere: every cell the same, median margin 0. */
	iom_report_tally(&m, IOM_METRIC_LAT_MEAN, 0, &t);
	assert_int_equal(t.same, 3);
	assert_true(t.median_margin_pct == 0);
	iom_report_release(&m);
}

static void test_report_lower_is_better(void **state)
{
	/* lsi does more I/O per second, pvscsi answers sooner and spends less CPU. */
	static const struct spec runs[] = {
		{ 0, 1, 1, IOM_RUN_OK, 20000, 300, 900, 30, NULL },
		{ 1, 1, 1, IOM_RUN_OK, 15000, 200, 600, 10, NULL },
		{ 0, 1, 2, IOM_RUN_OK, 20020, 300.3, 900.9, 30.03, NULL },
		{ 1, 1, 2, IOM_RUN_OK, 15015, 200.2, 600.6, 10.01, NULL },
	};
	static const int want[IOM_NMETRIC] = { 0, 0, 1, 1, 1 };
	const char *dir = *state;
	struct iom_report m;
	char err[IOM_ERRLEN] = "";

	make_study(dir, runs, IOM_ARRAY_SIZE(runs), 2);
	assert_int_equal(iom_report_load(dir, NULL, &m, err, sizeof(err)), 0);
	for (int k = 0; k < NSHOWN; k++) {
		struct iom_report_verdict v;

		iom_report_verdict(&m, 0, (enum iom_metric)k, &v);
		assert_int_equal(v.kind, IOM_VERDICT_WIN);
		assert_int_equal(v.winner, want[k]);
		assert_int_equal(v.runner_up, 1 - want[k]);
	}
	{
		struct iom_report_verdict v;

		iom_report_verdict(&m, 0, IOM_METRIC_LAT_P99, &v);
		assert_near(v.margin_pct, 100.0 / 3, 1e-9);
		iom_report_verdict(&m, 0, IOM_METRIC_IOPS, &v);
		assert_near(v.margin_pct, 100.0 / 3, 1e-9);
	}
	iom_report_release(&m);
}

static void test_report_failed_runs_excluded(void **state)
{
	static const struct spec runs[] = {
		{ 0, 1, 1, IOM_RUN_OK, 10000, 100, 200, 20, NULL },
		{ 0, 1, 2, IOM_RUN_FAILED, 9e9, 1, 1, 0.001, "pwrite: Input/output error" },
		{ 1, 1, 1, IOM_RUN_OK, 9000, 110, 220, 21, NULL },
		{ 1, 1, 2, IOM_RUN_INTERRUPTED, 9e9, 1, 1, 0.001, "stopped by SIGINT" },
		{ 0, 32, 1, IOM_RUN_FAILED, 0, 0, 0, 0, "cannot open '/tmp/iom-lsi'" },
		{ 1, 32, 1, IOM_RUN_OK, 60000, 500, 900, 6, NULL },
	};
	const char *dir = *state;
	struct iom_report m;
	struct iom_report_verdict v;
	char err[IOM_ERRLEN] = "";
	char *text;
	const char *line;

	make_study(dir, runs, IOM_ARRAY_SIZE(runs), 2);
	assert_int_equal(iom_report_load(dir, NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(m.nruns, 6);
	assert_int_equal(m.nok, 3);
	assert_int_equal(m.nexcluded, 3);
	assert_int_equal(m.cells[0].by[0].n, 1);
	assert_int_equal(m.cells[0].by[0].failed, 1);
	assert_int_equal(m.cells[0].by[1].interrupted, 1);
	assert_int_equal(m.cells[1].by[0].n, 0);
	assert_int_equal(m.excluded[0].run, 2);
	assert_int_equal(m.excluded[0].status, IOM_RUN_FAILED);
	assert_string_equal(m.excluded[0].error, "pwrite: Input/output error");
	/* The failed run's absurd figures do not count. */
	iom_report_verdict(&m, 0, IOM_METRIC_IOPS, &v);
	assert_int_equal(v.best, 0);
	assert_int_equal(v.kind, IOM_VERDICT_SINGLE_RUN);
	assert_near(v.margin_pct, 100.0 / 9, 1e-9);
	/* A cell where one side has no finished run has nothing to compare. */
	iom_report_verdict(&m, 1, IOM_METRIC_IOPS, &v);
	assert_int_equal(v.kind, IOM_VERDICT_NONE);
	assert_int_equal(v.winner, -1);
	assert_int_equal(iom_report_outcome(&m, 1, IOM_METRIC_IOPS, 1, NULL), IOM_OUTCOME_ABSENT);
	iom_report_release(&m);

	text = winners_text(dir, NULL, 0);
	assert_non_null(strstr(text, "6 runs: 3 ok, 3 left out (failed or interrupted)"));
	line = line_with(text, "qd32 ");
	assert_non_null(line);
	assert_non_null(strstr(line, "failed"));
	assert_non_null(strstr(text, "run 2 (lsi qd1): failed: pwrite: Input/output error"));
	assert_non_null(strstr(text, "run 4 (pvscsi qd1): interrupted: stopped by SIGINT"));
	assert_non_null(strstr(text, "run 5 (lsi qd32): failed: cannot open '/tmp/iom-lsi'"));
	assert_null(strstr(text, "9.000G"));
	free(text);
}

/* Rewrites run index of dir as stalled, for reason. */
static void mark_stalled(const char *dir, uint32_t index, const char *reason)
{
	char *path = iom_result_path(dir, index), *text = NULL, *at, *out;

	assert_int_equal(iom_read_file(path, &text, NULL), 0);
	at = strstr(text, "\"stalled\": null");
	assert_non_null(at);
	*at = '\0';
	out = xasprintf("%s\"stalled\": { \"gap_s\": 4, \"at_s\": 1.2, \"window_s\": 7, "
			"\"asked_s\": 3, \"reason\": \"%s\" }%s", text, reason,
			at + strlen("\"stalled\": null"));
	assert_int_equal(iom_write_file_atomic(path, out, strlen(out)), 0);
	free(out);
	free(text);
	free(path);
}

/* A run that finished but stalled is left out of the figures and the verdicts like a failed
 * one, its value marked '!' (or "stalled" when it was the only run), and named beneath the
 * table with why; the other formats say "stalled" too. */
static void test_report_stalled_runs_excluded(void **state)
{
	static const char gap[] = "no I/O completed for 4.0 s, from 1.2 s into the window";
	static const struct spec runs[] = {
		{ 0, 1, 1, IOM_RUN_OK, 10000, 100, 200, 20, NULL },
		{ 0, 1, 2, IOM_RUN_OK, 10100, 100, 200, 20, NULL },
		{ 0, 1, 3, IOM_RUN_OK, 3000, 300, 4e6, 20, NULL },  /* stalled */
		{ 1, 1, 1, IOM_RUN_OK, 9000, 110, 220, 21, NULL },
		{ 1, 1, 2, IOM_RUN_OK, 9050, 110, 220, 21, NULL },
		{ 1, 1, 3, IOM_RUN_OK, 9020, 110, 220, 21, NULL },
		{ 0, 32, 1, IOM_RUN_OK, 50000, 500, 900, 6, NULL }, /* stalled */
		{ 1, 32, 1, IOM_RUN_OK, 60000, 500, 900, 6, NULL },
	};
	const char *dir = *state;
	const char *const dirs[] = { dir };
	struct iom_report_opts_cli o = { .color = 0 };
	struct iom_report m;
	struct iom_report_verdict v;
	char err[IOM_ERRLEN] = "";
	char *text;
	const char *line;

	make_study(dir, runs, IOM_ARRAY_SIZE(runs), 2);
	mark_stalled(dir, 3, gap);
	mark_stalled(dir, 7, "the window lasted 7.0 s for 3.0 s asked");
	assert_int_equal(iom_report_load(dir, NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(m.nruns, 8);
	assert_int_equal(m.nok, 6);
	assert_int_equal(m.nexcluded, 2);
	assert_int_equal(m.cells[0].by[0].n, 2);
	assert_int_equal(m.cells[0].by[0].stalled, 1);
	assert_int_equal(m.cells[0].by[0].failed, 0);
	assert_int_equal(m.excluded[0].run, 3);
	assert_true(m.excluded[0].stalled);
	assert_int_equal(m.excluded[0].status, IOM_RUN_OK);
	assert_string_equal(iom_report_excluded_status(&m.excluded[0]), "stalled");
	assert_string_equal(m.excluded[0].error, gap);
	/* Without the stalled run lsi wins (10050 against 9023); with it, it would lose. */
	iom_report_verdict(&m, 0, IOM_METRIC_IOPS, &v);
	assert_int_equal(v.best, 0);
	assert_int_equal(v.winner, 0);
	assert_near(iom_report_mean(&m.cells[0].by[0], IOM_METRIC_IOPS), 10050, 1e-12);
	/* The cell whose only lsi run stalled has nothing to compare. */
	iom_report_verdict(&m, 1, IOM_METRIC_IOPS, &v);
	assert_int_equal(v.kind, IOM_VERDICT_NONE);
	iom_report_release(&m);

	text = winners_text(dir, NULL, 0);
	assert_non_null(strstr(text, "8 runs: 6 ok, 2 left out (stalled)"));
	assert_non_null(strstr(text, "; ! a stalled run left out"));
	line = line_with(text, "qd1 ");
	assert_non_null(line);
	assert_non_null(strstr(line, "*10.05K!"));
	line = line_with(text, "qd32 ");
	assert_non_null(line);
	assert_non_null(strstr(line, "stalled"));
	assert_non_null(strstr(text, "stalled runs left out of verdicts: run 3 (no I/O completed "
				     "for 4.0 s, from 1.2 s into the window),"));
	assert_non_null(strstr(text, "7.0 s for 3.0 s asked)\n")); /* run 7, wrapped */
	assert_null(strstr(text, "runs left out:")); /* named once, beneath the table */
	free(text);

	o.format = "json";
	text = report_of(dirs, 1, &o);
	assert_non_null(strstr(text, "\"status\": \"stalled\""));
	assert_non_null(strstr(text, "\"stalled\": 1"));
	free(text);
	o.format = "md";
	text = report_of(dirs, 1, &o);
	assert_non_null(strstr(text, "): stalled: no I/O completed for 4.0 s"));
	assert_non_null(strstr(text, "⚠ 1 stalled left out"));
	free(text);
	o.format = "html";
	text = report_of(dirs, 1, &o);
	assert_non_null(strstr(text, "1 stalled run left out"));
	assert_non_null(strstr(text, "): stalled: no I/O completed for 4.0 s"));
	free(text);

	/* The DiskSpd view of the stalled run says so. */
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		assert_int_equal(iom_report_run(f, dir, 3, NULL, err, sizeof(err)), 0);
		fclose(f);
		assert_non_null(strstr(buf, "run stalled: no I/O completed for 4.0 s"));
		free(buf);
	}
}

static void test_report_single_compared_value(void **state)
{
	static const struct spec runs[] = {
		{ 0, 1, 1, IOM_RUN_OK, 10000, 100, 200, 20, NULL },
		{ 0, 32, 1, IOM_RUN_OK, 50000, 640, 900, 7, NULL },
	};
	const char *dir = *state;
	char *text;

	make_study(dir, runs, IOM_ARRAY_SIZE(runs), 1);
	text = winners_text(dir, NULL, 0);
	assert_null(strchr(text, '*'));
	assert_null(strstr(text, "verdict over"));
	assert_non_null(strstr(text, "one target: no winners"));
	assert_non_null(line_with(text, "qd1 "));
	assert_non_null(strstr(line_with(text, "qd32 "), "50.00K"));
	assert_non_null(strstr(line_with(text, "qd1 "), "10.00K"));
	free(text);
}

static void test_report_compare_other_dimension(void **state)
{
	const char *dir = *state;
	struct iom_report m;
	struct iom_report_verdict v;
	char err[IOM_ERRLEN] = "";
	char *text;

	make_study(dir, clear, IOM_ARRAY_SIZE(clear), 2);
	assert_int_equal(iom_report_load(dir, "queue_depth", &m, err, sizeof(err)), 0);
	assert_int_equal(m.ncompared, 2);
	assert_string_equal(m.compared[0], "1");
	assert_string_equal(m.compared[1], "32");
	assert_int_equal(m.ncells, 2);
	assert_string_equal(m.dims[0], "target");
	assert_string_equal(m.cells[1].value[0], "pvscsi");
	iom_report_verdict(&m, 0, IOM_METRIC_IOPS, &v);
	assert_int_equal(v.winner, 1);
	iom_report_release(&m);

	text = winners_text(dir, "queue_depth", 0);
	assert_non_null(line_with(text, "lsi "));
	assert_non_null(line_with(text, "pvscsi "));
	free(text);

	assert_int_equal(iom_report_load(dir, "colour", &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'colour' is not a dimension of the runs in"));
	assert_non_null(strstr(err, "(target, block_size, queue_depth"));
	iom_report_release(&m);
}

static void test_report_fits_100_columns_or_wraps(void **state)
{
	const char *dir = *state;
	struct spec runs[5 * 3];
	char *text;
	size_t n = 0;

	for (int t = 0; t < 5; t++)
		for (int q = 0; q < 3; q++)
			runs[n++] = (struct spec){ t, 1 << (q * 3), 1, IOM_RUN_OK,
						   123456.7 + t * 1000 + q, 1234.5 + t, 9876 + t,
						   12.5 + t, NULL };
	/* Two targets: one block, within 100 columns. */
	make_study(dir, runs, 6, 2);
	text = winners_text(dir, NULL, 0);
	assert_true(widest_line(text) <= 100);
	assert_non_null(strstr(text, "- lsi -"));
	assert_non_null(strstr(text, "- pvscsi -"));
	{
		const char *first = strstr(text, "\ncell ");

		assert_non_null(first);
		assert_null(strstr(first + 1, "\ncell ")); /* one block */
	}
	free(text);

	/* Five targets: a table per metric with the five as its columns, within 100 columns,
	 * never a block per target. */
	{
		char *five = xasprintf("%s/five", dir);

		make_study(five, runs, 15, 5);
		text = winners_text(five, NULL, 0);
		assert_true(widest_line(text) <= 100);
		for (size_t t = 0; t < 5; t++) {
			char *title = xasprintf("- %s -", targets[t].label);

			assert_non_null(strstr(text, targets[t].label));
			assert_null(strstr(text, title));
			free(title);
		}
		/* One table per metric, each with the cell column. */
		assert_true(count_of(text, "\ncell ") >= NSHOWN);
		free(text);
		free(five);
	}
}

static void test_report_bad_directories(void **state)
{
	const char *dir = *state;
	struct iom_report m;
	char err[IOM_ERRLEN] = "";
	char *path;

	assert_int_equal(iom_report_load("/nonexistent/iom", NULL, &m, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "not a results directory: /nonexistent/iom (no study.json)");
	iom_report_release(&m);

	/* A corrupt run file is named, with why, and left out; the rest is the report. */
	make_study(dir, clear, 2, 2);
	path = iom_result_path(dir, 2);
	assert_int_equal(iom_write_file_atomic(path, "{\"schema\": 1, \"index\": ", 23), 0);
	assert_int_equal(iom_report_load(dir, NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(m.nruns, 1);
	assert_int_equal(m.ndamaged, 1);
	assert_int_equal(m.damaged[0].run, 2);
	assert_non_null(strstr(m.damaged[0].why, path));
	assert_non_null(strstr(m.damaged[0].why, "truncated JSON"));
	iom_report_release(&m);
	free(path);
}

/* A run the journal counts finished whose file is missing, and a damaged one, are named in the
 * text report, which shows the rest; iom_report_main says so with -EUCLEAN (exit 1). A
 * directory without a journal names no missing runs. Nothing is renamed. */
static void test_report_names_missing_and_damaged_runs(void **state)
{
	const char *dir = *state;
	static const struct iom_report_opts_cli o = { .color = 0 };
	char err[IOM_ERRLEN] = "", *path, *text, *journal, *line;
	struct iom_report m;
	size_t len;
	FILE *f;

	make_study(dir, clear, 4, 2);
	journal = xasprintf("%s/journal", dir);
	text = xasprintf("2026-01-01T00:00:00Z\tstudy-start\t0\tplan 0000000000abcdef runs 4\n"
			 "2026-01-01T00:00:01Z\trun-done\t1\truns/00001.json\n"
			 "2026-01-01T00:00:02Z\trun-done\t2\truns/00002.json\n"
			 "2026-01-01T00:00:03Z\trun-failed\t3\tno device\n"
			 "2026-01-01T00:00:04Z\trun-done\t4\truns/00004.json\n");
	assert_int_equal(iom_write_file_atomic(journal, text, strlen(text)), 0);
	free(text);
	path = iom_result_path(dir, 3);
	assert_int_equal(unlink(path), 0);
	free(path);
	path = iom_result_path(dir, 4);
	assert_int_equal(iom_write_file_atomic(path, "garbage", 7), 0);

	assert_int_equal(iom_report_load(dir, NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(m.nruns, 2);
	assert_int_equal(m.ndamaged, 2);
	assert_int_equal(m.damaged[0].run, 4); /* read first: runs/ in order, then the journal */
	assert_int_equal(m.damaged[1].run, 3);
	line = iom_report_damaged_text(&m, &m.damaged[1]);
	text = xasprintf("run 3: result file missing; `iomatrix resume %s` redoes it", dir);
	assert_string_equal(line, text);
	free(text);
	free(line);
	iom_report_release(&m);

	f = open_memstream(&text, &len);
	assert_int_equal(iom_report_main(f, &dir, 1, &o, err, sizeof(err)), -EUCLEAN);
	fclose(f);
	assert_non_null(strstr(text, "2 runs: 2 ok; 2 more missing or damaged (listed below)"));
	assert_non_null(strstr(text, "runs not in the report (missing or damaged):\n"));
	line = xasprintf("  run 3: result file missing; `iomatrix resume %s` redoes it\n", dir);
	assert_non_null(strstr(text, line));
	free(line);
	line = xasprintf("  run 4: %s: invalid JSON", path);
	assert_non_null(strstr(text, line));
	free(line);
	assert_non_null(strstr(err, "2 runs are missing or damaged, the first: run 4: "));
	free(text);
	assert_int_equal(access(path, F_OK), 0); /* the report renames nothing */

	/* without a journal, only the damaged file is named */
	assert_int_equal(unlink(journal), 0);
	assert_int_equal(iom_report_load(dir, NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(m.ndamaged, 1);
	assert_int_equal(m.damaged[0].run, 4);
	iom_report_release(&m);
	free(journal);
	free(path);

	/* The same directory twice. */
	{
		const char *dirs[] = { BOOT1, BOOT1 };

		assert_int_equal(iom_report_load_many(dirs, 2, NULL, &m, err, sizeof(err)), -EINVAL);
		assert_string_equal(err, "'" BOOT1 "' is given twice");
		iom_report_release(&m);
	}
}

/* ---- comparing studies ---- */

static void test_report_merge_partial_overlap(void **state)
{
	static const char *const dirs[] = { BOOT1, BOOT2 };
	struct iom_report m;
	struct iom_report_verdict v;
	char err[IOM_ERRLEN] = "";
	size_t *cells, n, c;
	char *label, *text;

	(void)state;
	assert_int_equal(iom_report_load_many(dirs, 2, NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(m.nsrc, 2);
	assert_string_equal(m.src[0].name, "boot1");
	assert_string_equal(m.src[1].name, "boot2");
	assert_string_equal(m.compare, "target");
	assert_int_equal(m.ncompared, 2);
	assert_string_equal(m.compared[0], "lsi-sas");
	assert_string_equal(m.compared[1], "pvscsi");
	assert_false(m.qualified);
	assert_int_equal(m.ncells, 30);
	assert_int_equal(m.nruns, 90 + 84);
	assert_int_equal(m.src[0].nruns, 90);
	assert_int_equal(m.src[1].nok, 84);
	assert_int_equal(m.nexcluded, 1);
	assert_int_equal(m.excluded[0].src, 0);
	/* boot2 lacks the two 1M qd32 cells; boot1 has every cell. */
	n = iom_report_missing(&m, 0, &cells);
	assert_int_equal(n, 0);
	free(cells);
	n = iom_report_missing(&m, 1, &cells);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		label = iom_report_cell_label(&m, cells[i]);
		assert_string_equal(label, i ? "1M rd100 qd32" : "1M wr100 qd32");
		free(label);
		/* Compared only on the cells both have: these have no verdict. */
		iom_report_verdict(&m, cells[i], IOM_METRIC_IOPS, &v);
		assert_int_equal(v.kind, IOM_VERDICT_NONE);
		assert_true(m.cells[cells[i]].in_src[0]);
		assert_false(m.cells[cells[i]].in_src[1]);
	}
	free(cells);
	/* A shared cell: pvscsi wins at 4K qd32. */
	assert_int_equal(iom_report_find_cell(&m, "4K rd100 qd32", &c, err, sizeof(err)), 0);
	iom_report_verdict(&m, c, IOM_METRIC_IOPS, &v);
	assert_int_equal(v.kind, IOM_VERDICT_WIN);
	assert_string_equal(m.compared[v.winner], "pvscsi");
	assert_true(m.opts.alpha == 0.05);
	iom_report_release(&m);

	text = boots("text");
	assert_non_null(strstr(text, "boot2 lacks 2 of 30 cells: 1M wr100 qd32, 1M rd100 qd32"));
	assert_non_null(strstr(text, "compared on the cells they share"));
	assert_non_null(strstr(text, "run 7 of boot1 (lsi-sas 16K wr100 qd1): failed"));
	assert_true(widest_line(text) <= 100);
	free(text);
}

static void test_report_provenance_differences(void **state)
{
	static const char *const dirs[] = { BOOT1, BOOT2 };
	static const char *const want[] = {
		"plan differs: 5f0c2d9a7e31b644 (boot1) vs a41e07c3395d2b18 (boot2)",
		"kernel differs: 6.1.0-18-amd64 (boot1) vs 6.18.44 (boot2)",
		"target differs: lsi-sas (boot1) vs pvscsi (boot2)",
		"driver differs: mpt3sas (boot1) vs vmw_pvscsi (boot2)",
		"scheduler differs: mq-deadline (boot1) vs none (boot2)",
		"nr_requests differs: 64 (boot1) vs 254 (boot2)",
	};
	struct iom_report m;
	struct iom_report_diff *d;
	char err[IOM_ERRLEN] = "";
	size_t n;
	char *text;

	(void)state;
	assert_int_equal(iom_report_load_many(dirs, 2, NULL, &m, err, sizeof(err)), 0);
	n = iom_report_diffs(&m, &d);
	assert_int_equal(n, IOM_ARRAY_SIZE(want));
	for (size_t i = 0; i < n; i++) {
		char *t = iom_report_diff_text(&m, &d[i]);

		assert_string_equal(t, want[i]);
		free(t);
	}
	/* The same host, CPU, tool and timing are not pointed out; neither is the kernel's build
	 * string, the release differing already. */
	assert_string_equal(d[1].what, "kernel");
	assert_string_equal(d[1].value[1], "6.18.44");
	iom_report_diffs_free(d, n);
	iom_report_release(&m);
	/* One directory has no differences. */
	assert_int_equal(iom_report_load(BOOT1, NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(iom_report_diffs(&m, &d), 0);
	iom_report_diffs_free(d, 0);
	iom_report_release(&m);

	text = boots("text");
	assert_non_null(strstr(text, "boot1: study 'controllers' in " BOOT1 "\n  2025-11-29T21:00:00Z"
				     " … 2025-11-29T21:31:30Z on esx-vm01, kernel 6.1.0-18-amd64\n"
				     "  iomatrix 0.3.0, plan 5f0c2d9a7e31b644\n"));
	assert_non_null(strstr(text, "  lsi-sas: /dev/sdb, mpt3sas, VMware Virtual disk, "
				     "scheduler mq-deadline"));
	assert_non_null(strstr(text, "differences between the directories:\n  plan differs"));
	for (size_t i = 0; i < IOM_ARRAY_SIZE(want); i++)
		assert_non_null(strstr(text, want[i]));
	assert_null(strstr(text, "host differs"));
	free(text);
}

static void test_report_same_label_qualified(void **state)
{
	/* The same label on the same cells in two directories: label@dir. */
	static const struct spec one[] = {
		{ 0, 1, 1, IOM_RUN_OK, 10000, 100, 200, 20, NULL },
		{ 0, 1, 2, IOM_RUN_OK, 10100, 101, 202, 20, NULL },
	};
	static const struct spec other[] = {
		{ 0, 1, 1, IOM_RUN_OK, 12000, 80, 150, 12, NULL },
		{ 0, 1, 2, IOM_RUN_OK, 12100, 81, 151, 12, NULL },
		{ 0, 32, 1, IOM_RUN_OK, 50000, 640, 900, 7, NULL },
	};
	const char *dir = *state;
	char *a = xasprintf("%s/before", dir), *b = xasprintf("%s/after", dir);
	char *c = xasprintf("%s/x/same", dir), *e = xasprintf("%s/y/same", dir);
	const char *ab[] = { a, b }, *ce[] = { c, e };
	struct iom_report m;
	struct iom_report_verdict v;
	char err[IOM_ERRLEN] = "";
	char *text;

	make_study(a, one, IOM_ARRAY_SIZE(one), 1);
	make_study(b, other, IOM_ARRAY_SIZE(other), 1);
	assert_int_equal(iom_report_load_many(ab, 2, NULL, &m, err, sizeof(err)), 0);
	assert_true(m.qualified);
	assert_int_equal(m.ncompared, 2);
	assert_string_equal(m.compared[0], "lsi@before");
	assert_string_equal(m.compared[1], "lsi@after");
	iom_report_verdict(&m, 0, IOM_METRIC_IOPS, &v);
	assert_int_equal(v.kind, IOM_VERDICT_WIN);
	assert_int_equal(v.winner, 1);
	/* qd32 only in "after": "before" lacks it. */
	{
		size_t *cells, n = iom_report_missing(&m, 0, &cells);

		assert_int_equal(n, 1);
		assert_string_equal(m.cells[cells[0]].value[1], "32");
		free(cells);
	}
	iom_report_release(&m);
	text = report_of(ab, 2, NULL);
	assert_non_null(strstr(text, "compared: target (lsi@before, lsi@after)"));
	assert_non_null(strstr(text, "named value@directory"));
	free(text);

	/* Different cells under the same label just continue each other. */
	make_study(c, one, IOM_ARRAY_SIZE(one), 1);
	make_study(e, other + 2, 1, 1);
	assert_int_equal(iom_report_load_many(ce, 2, NULL, &m, err, sizeof(err)), 0);
	assert_false(m.qualified);
	assert_int_equal(m.ncompared, 1);
	assert_string_equal(m.compared[0], "lsi");
	assert_int_equal(m.ncells, 2);
	/* Two directories of one base name are named by their paths. */
	assert_string_equal(m.src[0].name, c);
	assert_string_equal(m.src[1].name, e);
	iom_report_release(&m);
	free(a);
	free(b);
	free(c);
	free(e);
}

/* ---- choosing cells and runs ---- */

static void test_report_find_cell_and_run(void **state)
{
	static const char *const dirs[] = { BOOT1, BOOT2 };
	static const struct {
		const char *spec;
		int ret;
		const char *label;   /* the cell found, or a piece of the message */
	} cases[] = {
		{ "4K rd100 qd8", 0, "4K rd100 qd8" },
		{ "qd8 rd100 4K", 0, "4K rd100 qd8" },
		{ "block_size=16K queue_depth=32 read_pct=0", 0, "16K wr100 qd32" },
		{ "block_size=16384 qd32 wr100", 0, "16K wr100 qd32" },
		{ "3", 0, "4K wr100 qd8" },
		{ "4K", -EINVAL, "'4K' matches 6 cells ('4K wr100 qd1', '4K rd100 qd1'" },
		{ "qd7", -ENOENT, "no cell matches 'qd7'" },
		{ "31", -ENOENT, "no cell 31: the table has 30" },
	};
	static const struct {
		const char *spec;
		int ret;
		size_t src;
		uint32_t run;
		const char *msg;
	} runs[] = {
		{ "7", 0, 0, 7, NULL }, /* the failed run is a run too */
		{ "boot2:5", 0, 1, 5, NULL },
		{ BOOT2 ":84", 0, 1, 84, NULL },
		{ "boot2:90", -ENOENT, 0, 0, "no run 90 in '" BOOT2 "'" },
		{ "boot3:1", -EINVAL, 0, 0, "'boot3' is not one of the directories" },
		{ "x", -EINVAL, 0, 0, "run 'x' is not a run number (N or DIR:N)" },
		{ "0", -EINVAL, 0, 0, "not a run number" },
	};
	struct iom_report m;
	char err[IOM_ERRLEN];

	(void)state;
	assert_int_equal(iom_report_load_many(dirs, 2, NULL, &m, err, sizeof(err)), 0);
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		size_t c = SIZE_MAX;
		int ret;

		err[0] = '\0';
		ret = iom_report_find_cell(&m, cases[i].spec, &c, err, sizeof(err));
		if (ret != cases[i].ret) {
			print_error("'%s': %d (%s)\n", cases[i].spec, ret, err);
			fail();
		}
		if (ret == 0) {
			char *l = iom_report_cell_label(&m, c);

			assert_string_equal(l, cases[i].label);
			free(l);
		} else {
			assert_non_null(strstr(err, cases[i].label));
		}
	}
	for (size_t i = 0; i < IOM_ARRAY_SIZE(runs); i++) {
		size_t src = SIZE_MAX;
		uint32_t run = 0;
		int ret;

		err[0] = '\0';
		ret = iom_report_find_run(&m, runs[i].spec, &src, &run, err, sizeof(err));
		if (ret != runs[i].ret) {
			print_error("'%s': %d (%s)\n", runs[i].spec, ret, err);
			fail();
		}
		if (ret == 0) {
			assert_int_equal(src, runs[i].src);
			assert_int_equal(run, runs[i].run);
		} else {
			assert_non_null(strstr(err, runs[i].msg));
		}
	}
	iom_report_release(&m);
}

/* ---- formats ---- */

/* Counts the fields of one RFC 4180 record at *p and moves past it; -1 at the end. */
static int csv_record(const char **p)
{
	const char *s = *p;
	int n = 1;
	bool quoted = false;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (quoted) {
			if (*s == '"' && s[1] == '"')
				s++;
			else if (*s == '"')
				quoted = false;
		} else if (*s == '"') {
			quoted = true;
		} else if (*s == ',') {
			n++;
		} else if (*s == '\n') {
			s++;
			break;
		}
	}
	*p = s;
	return n;
}

/*
 * Percentiles over repetitions are pooled from the runs' buckets, never averaged. A bimodal
 * cell: run 1 has 9700 I/Os at 100 µs and 300 at 10 ms (its p99 is 10 ms), run 2 has 10000 at
 * 100 µs (p99 100 µs). Of the 20000 I/Os, 1.5 % took 10 ms, so the p99 of all of them is
 * 10 ms; the mean of the two p99s, 5.05 ms, is a latency no I/O had. The model, the text, the
 * JSON and the CSV say "pooled"; the fixture boots (files from before histograms were kept)
 * still report, marked as the mean of the runs' percentiles.
 */
static void test_report_pooled_bimodal(void **state)
{
	const char *dir = *state;
	struct iom_matrix mx = { .name = "bimodal", .file = "b.cfg", .targets = targets,
				 .ntargets = 1, .compare = IOM_DIM_TARGET,
				 .timing = { .duration_ns = 1000000000, .repeat = 2 } };
	struct iom_plan p = { .m = &mx, .nruns = 2, .hash = 0x1234 };
	struct iom_study_record rec = { .plan = &p, .start_wall_ns = 1764460800000000000ull };
	struct iom_hist *h = malloc(sizeof(*h));
	struct iom_report m;
	char err[IOM_ERRLEN] = "", *text, *csv;
	double mean_of_p99s, pooled, lo = 10e6 * (1 - 1.0 / 128), hi = 10e6 * (1 + 1.0 / 128);
	struct iom_report_opts_cli oj = { .format = "json" }, oc = { .format = "csv" };

	assert_non_null(h);
	assert_int_equal(iom_results_dir_create(test_own(dir), err, sizeof(err)), 0);
	assert_int_equal(iom_study_write(test_own(dir), &rec, err, sizeof(err)), 0);
	for (uint32_t i = 0; i < 2; i++) {
		struct iom_cell c = { .v = { 0, 4096, 1, 1, 100, IOM_PATTERN_RANDOM,
					     IOM_ENGINE_IO_URING, 1 } };
		struct iom_run_result r = { .index = i + 1, .repetition = i + 1,
					    .status = IOM_RUN_OK, .elapsed_s = 1 };

		iom_hist_init(h);
		for (int k = 0; k < 10000; k++)
			iom_hist_record(h, i == 0 && k < 300 ? 10000000 : 100000);
		for (int d = 0; d < IOM_NDIR; d++) {
			struct iom_io_stats *t = &r.dir[d];

			if (d == IOM_DIR_WRITE)
				continue;
			t->ios = h->count;
			t->iops = (double)h->count;
			t->lat.min = h->min;
			t->lat.max = h->max;
			t->lat.mean = iom_hist_mean(h);
			for (int q = 0; q < IOM_NPCT; q++)
				t->lat.pct[q] = iom_hist_percentile(h, iom_percentiles[q]);
			iom_hist_sparse_of(&r.hist[d], h);
		}
		iom_hist_init(h);
		iom_hist_sparse_of(&r.hist[IOM_DIR_WRITE], h);
		r.has_hist = true;
		assert_int_equal(iom_result_write(test_own(dir), &mx, &c, &r, err, sizeof(err)), 0);
		iom_run_result_release(&r);
	}
	free(h);

	assert_int_equal(iom_report_load(dir, NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(m.ncells, 1);
	assert_int_equal(m.cells[0].by[0].n, 2);
	assert_true(iom_report_pooled(&m.cells[0].by[0]));
	mean_of_p99s = (m.cells[0].by[0].v[IOM_METRIC_LAT_P99][0] +
			m.cells[0].by[0].v[IOM_METRIC_LAT_P99][1]) / 2;
	pooled = iom_report_mean(&m.cells[0].by[0], IOM_METRIC_LAT_P99);
	assert_true(mean_of_p99s > 4.9e6 && mean_of_p99s < 5.2e6);
	assert_true(pooled >= lo && pooled <= hi);
	assert_true(iom_report_pct(&m.cells[0].by[0], iom_percentile_index(50)) < 101e3);
	assert_int_equal(m.cells[0].by[0].pooled.count, 20000);
	iom_report_release(&m);

	{
		/* wide enough that the legend's line is not wrapped */
		struct iom_report_opts_cli ow = { .color = 0, .width = 400 };

		text = report_of(&dir, 1, &ow);
		assert_non_null(strstr(text, "lat p99 pooled over 2 runs (their histograms merged)"));
		free(text);
	}
	text = winners_text(dir, NULL, 0);
	assert_non_null(strstr(text, " 9.99ms"));     /* 10 ms, its bucket's midpoint */
	assert_null(strstr(text, "5.05ms"));
	free(text);
	text = report_of(&dir, 1, &oj);
	assert_non_null(strstr(text, "\"pooled\": \"pooled over 2 runs\""));
	free(text);
	csv = report_of(&dir, 1, &oc);
	assert_non_null(strstr(csv, ",pooled over 2 runs,,,,\n")); /* no disk: empty */
	free(csv);

	/* files from before: reported, marked */
	text = boots("text");
	assert_non_null(strstr(text, "mean of the runs' p99s"));
	free(text);
}

/* report.metrics: its words are the report's metric names, in the same order; a list parses to
 * their bits whatever its order and separators, and the report walks only those it names. */
static void test_report_metrics_key(void **state)
{
	struct iom_report m = { 0 };
	char err[IOM_ERRLEN] = "", buf[128];
	int64_t mask = 0;
	int seen[IOM_NMETRIC], n = 0;

	(void)state;
	for (int k = 0; k < IOM_NMETRIC; k++)
		assert_string_equal(iom_metric_names[k], iom_metrics[k].name);
	assert_null(iom_metric_names[IOM_NMETRIC]);
	assert_int_equal(iom_metrics_parse("cpu_busy_pct,iops  lat_p99_ns", &mask, err,
					   sizeof(err)), 0);
	assert_int_equal(mask, (1 << IOM_METRIC_IOPS) | (1 << IOM_METRIC_LAT_P99) |
			       (1 << IOM_METRIC_CPU_BUSY));
	iom_metrics_format(mask, buf, sizeof(buf));
	assert_string_equal(buf, "iops, lat_p99_ns, cpu_busy_pct");
	assert_int_equal(iom_metrics_parse("iops, cpu", &mask, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'cpu' is not a metric"));
	assert_int_equal(iom_metrics_parse(" , ", &mask, err, sizeof(err)), -EINVAL);

	m.opts.metrics = (1u << IOM_METRIC_LAT_P99) | (1u << IOM_METRIC_CPU_BUSY);
	for (int k = iom_report_metric_next(&m, -1); k < IOM_NMETRIC;
	     k = iom_report_metric_next(&m, k))
		seen[n++] = k;
	assert_int_equal(n, 2);
	assert_int_equal(seen[0], IOM_METRIC_LAT_P99);
	assert_int_equal(seen[1], IOM_METRIC_CPU_BUSY);
	m.opts.metrics = 0; /* a study from before the key: the default five */
	n = 0;
	for (int k = iom_report_metric_next(&m, -1); k < IOM_NMETRIC;
	     k = iom_report_metric_next(&m, k))
		seen[n++] = k;
	assert_int_equal(n, 5);
	assert_int_equal(seen[4], IOM_METRIC_CPU_PER_IO);
}

static void test_report_csv_parses(void **state)
{
	static struct iom_target odd[] = {
		{ .label = "lsi, \"sas\"", .path = "/tmp/a" },
		{ .label = "pv", .path = "/tmp/b" },
	};
	const char *dir = *state;
	char *csv = boots("csv");
	const char *p = csv;
	int cols = csv_record(&p), n, rows = 0;

	assert_int_equal(cols, 8 + 21);
	{
		static const char head[] =
			"cell,block_size,queue_depth,threads,read_pct,pattern,engine,direct,metric,"
			"target,n,mean,stddev,cv_pct,ci95_low,ci95_high,outcome,vs_best_other_pct,"
			"noisy,verdict,winner,margin_pct,p_value,p_adjusted,pooled,disk_writes,"
			"disk_flushes,write_cache,fua\n";

		assert_true(strncmp(csv, head, strlen(head)) == 0);
	}
	while ((n = csv_record(&p)) >= 0) {
		assert_int_equal(n, cols);
		rows++;
	}
	assert_int_equal(rows, 30 * NSHOWN * 2);
	/* A win row and a cell missing on one side (empty figures, outcome absent). */
	assert_non_null(strstr(csv, "\n4K rd100 qd32,4096,32,1,100,random,io_uring,true,iops,pvscsi,"
				    "3,"));
	assert_non_null(strstr(csv, ",iops,pvscsi,0,,,,,,absent,,no,none,,,,,,,,,\n"));
	free(csv);

	/* Quoting: a label with a comma and quotes stays one field. */
	{
		static const struct spec runs[] = {
			{ 0, 1, 1, IOM_RUN_OK, 10000, 100, 200, 20, NULL },
			{ 1, 1, 1, IOM_RUN_OK, 12000, 80, 150, 12, NULL },
		};
		struct iom_report_opts_cli o = { .format = "csv" };

		make_study_with(dir, runs, 2, odd, 2, NULL);
		csv = report_of(&dir, 1, &o);
		p = csv;
		cols = csv_record(&p);
		while ((n = csv_record(&p)) >= 0)
			assert_int_equal(n, cols);
		assert_non_null(strstr(csv, ",\"lsi, \"\"sas\"\"\","));
		free(csv);
	}
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v)) {
		print_error("no '%s' in %s\n", key, json_object_to_json_string(o));
		fail();
	}
	return v;
}

static void test_report_json_parses(void **state)
{
	char *text = boots("json");
	json_object *root = json_tokener_parse(text), *cells, *c, *x, *vals;
	size_t nwin = 0;

	(void)state;
	assert_non_null(root);
	assert_int_equal(json_object_get_int(get(root, "schema")), IOM_REPORT_JSON_SCHEMA);
	assert_string_equal(json_object_get_string(get(root, "compare")), "target");
	assert_int_equal(json_object_array_length(get(root, "compared")), 2);
	assert_true(json_object_get_double(get(get(root, "options"), "alpha")) == 0.05);
	assert_int_equal(json_object_array_length(get(root, "sources")), 2);
	assert_string_equal(json_object_get_string(get(json_object_array_get_idx(
				    get(root, "sources"), 1), "kernel")),
			    "6.18.44 #1 SMP PREEMPT_DYNAMIC");
	x = get(root, "differences");
	assert_int_equal(json_object_array_length(x), 6);
	assert_string_equal(json_object_get_string(get(json_object_array_get_idx(x, 1), "what")),
			    "kernel");
	x = get(json_object_array_get_idx(get(root, "missing"), 1), "cells");
	assert_int_equal(json_object_array_length(x), 2);
	assert_int_equal(json_object_get_int(get(get(json_object_array_get_idx(x, 0), "cell"),
						 "block_size")), 1048576);
	cells = get(root, "cells");
	assert_int_equal(json_object_array_length(cells), 30);
	for (size_t i = 0; i < 30; i++) {
		c = json_object_array_get_idx(cells, i);
		assert_true(json_object_is_type(get(c, "label"), json_type_string));
		assert_true(json_object_is_type(get(get(c, "cell"), "direct"), json_type_boolean));
		for (int k = 0; k < NSHOWN; k++) {
			const char *verdict;

			x = get(get(c, "metrics"), iom_metrics[k].name);
			verdict = json_object_get_string(get(x, "verdict"));
			assert_true(strcmp(verdict, "win") == 0 || strcmp(verdict, "same") == 0 ||
				    strcmp(verdict, "undecided") == 0 ||
				    strcmp(verdict, "single-run") == 0 ||
				    strcmp(verdict, "none") == 0);
			/* winner is the compared value or null; margin and p are there. */
			if (strcmp(verdict, "win") == 0) {
				nwin++;
				assert_true(json_object_is_type(get(x, "winner"), json_type_string));
				assert_true(json_object_get_double(get(x, "p_adjusted")) < 0.05);
				assert_true(json_object_get_double(get(x, "p_value")) <=
					    json_object_get_double(get(x, "p_adjusted")));
				assert_true(json_object_get_double(get(x, "margin_pct")) > 2);
			} else {
				assert_null(get(x, "winner"));
			}
			(void)get(x, "margin_pct");
			(void)get(x, "p_value");
			vals = get(x, "values");
			for (size_t v = 0; v < 2; v++) {
				json_object *y = get(vals, v ? "pvscsi" : "lsi-sas");

				(void)get(y, "mean");
				(void)get(y, "stddev");
				(void)get(y, "ci95");
				(void)get(y, "outcome");
				if (json_object_get_int(get(y, "n")) >= 2)
					assert_int_equal(json_object_array_length(get(y, "ci95")), 2);
			}
		}
	}
	/* 140 tests under Holm's correction: 89 wins (132 uncorrected). */
	assert_int_equal(nwin, 89);
	assert_string_equal(json_object_get_string(get(get(root, "options"), "correction")),
			    "holm");
	assert_int_equal(json_object_get_int(get(get(root, "options"), "tests")), 140);
	/* the variance prior of every metric, fitted to its 28 comparisons */
	for (int k = 0; k < NSHOWN; k++) {
		x = get(get(get(root, "options"), "variance_prior"), iom_metrics[k].name);
		assert_true(json_object_is_type(get(x, "used"), json_type_boolean));
		assert_true(json_object_is_type(get(x, "d0_infinite"), json_type_boolean));
		assert_int_equal(json_object_get_int(get(x, "comparisons")), 28);
		/* this study's CVs scatter (d0 about 1.8 to 2.7): not used, Welch decides */
		assert_false(json_object_get_boolean(get(x, "used")));
	}
	x = get(get(json_object_array_get_idx(cells, 0), "metrics"), "iops");
	assert_string_equal(json_object_get_string(get(x, "test")), "welch");
	assert_true(json_object_get_double(get(x, "df")) > 0);
	x = get(get(get(root, "verdict"), "pvscsi"), "iops");
	assert_int_equal(json_object_get_int(get(x, "won")) + json_object_get_int(get(x, "same")) +
				 json_object_get_int(get(x, "undecided")) +
				 json_object_get_int(get(x, "lost")),
			 28);
	assert_true(json_object_get_double(get(x, "median_margin_pct")) > 10);
	assert_true(json_object_array_length(get(root, "noisy")) >= 1);
	assert_int_equal(json_object_array_length(get(root, "excluded")), 1);
	json_object_put(root);
	free(text);
}

/* Every Markdown table row has as many unescaped pipes as its table's header. */
/* The formats are one table: names and aliases found, --run where it applies. */
static void test_report_format_table(void **state)
{
	static const struct { const char *name, *is; bool run; } cases[] = {
		{ "text", "text", true }, { "md", "md", false }, { "markdown", "md", false },
		{ "csv", "csv", false }, { "json", "json", false }, { "html", "html", true },
	};
	const struct iom_report_format *f;

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		f = iom_report_format_find(cases[i].name);
		assert_non_null(f);
		assert_string_equal(f->name, cases[i].is);
		assert_int_equal(f->takes_run, cases[i].run);
		assert_non_null(f->write);
	}
	assert_ptr_equal(iom_report_format_find("markdown"), iom_report_format_find("md"));
	assert_null(iom_report_format_find("xml"));
	assert_null(iom_report_format_find("TEXT"));
	assert_null(iom_report_format_find(NULL));
}

/* What the walk hands the Markdown and HTML writers: every section, in order, once. */
struct walk_log {
	char seq[64];
	size_t n, verdict_rows, noisy_n, diffs_n;
};

static void log_step(struct walk_log *w, char c)
{
	if (w->n + 1 < sizeof(w->seq) && (!w->n || w->seq[w->n - 1] != c))
		w->seq[w->n++] = c;
}

static void w_head(void *ctx, const struct iom_report *m) { (void)m; log_step(ctx, 'H'); }
static bool w_verdict_begin(void *ctx, const struct iom_report *m)
{
	(void)m;
	log_step(ctx, 'V');
	return true;
}
static void w_verdict_row(void *ctx, const struct iom_report *m, size_t cv,
			  const struct iom_report_tally *t)
{
	struct iom_report_tally want;

	iom_report_tally(m, IOM_METRIC_LAT_P99, cv, &want);
	assert_int_equal(t[IOM_METRIC_LAT_P99].won, want.won);
	assert_int_equal(t[IOM_METRIC_LAT_P99].lost, want.lost);
	((struct walk_log *)ctx)->verdict_rows++;
	log_step(ctx, 'v');
}
static void w_body(void *ctx, const struct iom_report *m) { (void)m; log_step(ctx, 'B'); }
static void w_notes(void *ctx, const struct iom_report *m, size_t n)
{
	(void)m;
	((struct walk_log *)ctx)->noisy_n = n;
	log_step(ctx, 'N');
}
static bool w_prov_begin(void *ctx, const struct iom_report *m, const struct iom_report_diff *d,
			 size_t n)
{
	(void)m;
	(void)d;
	((struct walk_log *)ctx)->diffs_n = n;
	log_step(ctx, 'P');
	return true;
}
static void w_tail(void *ctx, const struct iom_report *m) { (void)m; log_step(ctx, 'T'); }

/* Escapes nothing but marks every text the walk writes. */
static void w_text(FILE *out, const char *s)
{
	fprintf(out, "'%s'", s);
}

static void test_report_walk_sections(void **state)
{
	static const char *const dirs[] = { BOOT1, BOOT2 };
	struct walk_log w = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct iom_report_visitor v = {
		.ctx = &w, .out = f, .text = w_text, .item_open = "<", .item_close = ">\n",
		.strong_open = "*", .strong_close = "*", .head = w_head,
		.verdict_begin = w_verdict_begin, .verdict_row = w_verdict_row, .body = w_body,
		.row_open = "[", .row_close = "]\n", .cell_left = "(", .cell_right = "{",
		.cell_close = ")", .list_open = "{{\n", .list_close = "}}\n",
		.missing_title = "#missing\n", .excluded_title = "#excluded\n",
		.notes_begin = w_notes, .provenance_begin = w_prov_begin, .tail = w_tail,
	};
	struct iom_report m;
	char err[IOM_ERRLEN] = "";

	(void)state;
	assert_non_null(f);
	assert_int_equal(iom_report_load_many(dirs, 2, NULL, &m, err, sizeof(err)), 0);
	iom_report_walk(&m, &v);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(w.seq, "HVvBNPT");
	assert_non_null(strstr(buf, "#missing\n{{\n<*'boot1'* has every cell>\n"));
	assert_non_null(strstr(buf, "#excluded\n{{\n<run "));
	assert_int_equal(w.verdict_rows, m.ncompared);
	assert_int_equal(count_of(buf, "[("), w.noisy_n);    /* a row per noisy entry */
	assert_true(w.noisy_n > 0);
	assert_non_null(strstr(buf, ")('IOPS')"));       /* text cells left, numbers right */
	assert_non_null(strstr(buf, " %')"));
	assert_non_null(strstr(buf, "<*'boot1'* has every cell>\n"));
	assert_non_null(strstr(buf, "<*'boot2'* lacks 2 of 30 cells: '1M wr100 qd32', "
				    "'1M rd100 qd32'>\n"));
	assert_int_equal(count_of(buf, "<run "), m.nexcluded);
	assert_true(m.nexcluded > 0);
	assert_int_equal(count_of(buf, " differs: "), w.diffs_n);
	assert_true(w.diffs_n > 0);
	free(buf);

	/* every callback may be NULL; text then goes out as it is */
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	v = (struct iom_report_visitor){ .out = f, .item_open = "", .item_close = "\n",
					 .strong_open = "", .strong_close = "", .row_open = "",
					 .row_close = "", .cell_left = "", .cell_right = "",
					 .cell_close = "", .list_open = "", .list_close = "",
					 .missing_title = "", .excluded_title = "" };
	iom_report_walk(&m, &v);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "boot2 lacks 2 of 30 cells: 1M wr100 qd32, 1M rd100 qd32\n"));
	free(buf);
	iom_report_release(&m);
}

static void test_report_md_tables(void **state)
{
	char *md = boots("md");
	int want = -1, tables = 0, rows = 0;

	(void)state;
	for (const char *s = md; *s;) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);

		if (len && s[0] == '|') {
			int pipes = 0;

			for (size_t i = 0; i < len; i++)
				pipes += s[i] == '|' && (i == 0 || s[i - 1] != '\\');
			if (want < 0) {
				want = pipes;
				tables++;
			}
			assert_int_equal(pipes, want);
			assert_true(s[len - 1] == '|');
			rows++;
		} else {
			want = -1;
		}
		s += len + (nl ? 1 : 0);
	}
	assert_int_equal(tables, 1 + NSHOWN + 1 + 1); /* verdict, metrics, noisy, sources */
	assert_true(rows > 5 * 30);
	assert_non_null(strstr(md, "# iomatrix report: controllers\n"));
	assert_non_null(strstr(md, "| 4K rd100 qd32 | 137.5K ± "));
	assert_non_null(strstr(md, "| pvscsi wins | better by 35.6% | "));
	assert_non_null(strstr(md, "- kernel differs: 6.1.0-18-amd64 (boot1) vs 6.18.44 (boot2)"));
	assert_non_null(strstr(md, "- boot2 lacks 2 of 30 cells: 1M wr100 qd32, 1M rd100 qd32"));
	free(md);
}

static void test_report_html(void **state)
{
	static const char *const titles[] = {
		"<title>iomatrix report: controllers</title>",
		"ATTO: write and read MB/s by transfer size",
		"IOPS vs queue depth — 4K wr100",
		"Latency vs queue depth — 4K wr100",
		"Latency percentiles — 4K wr100 qd1",
		"IOPS over time — 4K wr100 qd1, first repetition of each",
		"id=\"chart-atto-1\"", "id=\"chart-qd-iops-1\"", "id=\"chart-qd-lat-1\"",
		"id=\"chart-percentiles\"", "id=\"chart-time\"",
		"<h2 id=\"verdict\">Verdict</h2>", "<h2 id=\"winners\">Winners by cell</h2>",
		"<table class=\"heat\">", "<h2 id=\"provenance\">Provenance</h2>",
		"kernel differs: 6.1.0-18-amd64 (boot1) vs 6.18.44 (boot2)",
		"<b>boot2</b> lacks 2 of 30 cells: 1M wr100 qd32, 1M rd100 qd32",
		"15 won · 0 same · 13 undecided · 0 lost",
	};
	char *html = boots("html");
	const char *dir = *state;

	for (size_t i = 0; i < IOM_ARRAY_SIZE(titles); i++) {
		if (!strstr(html, titles[i])) {
			print_error("missing: %s\n", titles[i]);
			fail();
		}
	}
	assert_true(strncmp(html, "<!DOCTYPE html>", 15) == 0);
	assert_int_equal(count_of(html, "<svg "), count_of(html, "</svg>"));
	assert_true(count_of(html, "<svg ") >= 3 + 8 + 2);
	/* Self-contained: no script, nothing fetched. */
	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, "src="));
	assert_null(strstr(html, "<link"));
	assert_int_equal(count_of(html, "http"), count_of(html, "http://www.w3.org/2000/svg"));
	free(html);

	/* A chosen cell and run. */
	{
		static const char *const dirs[] = { BOOT1, BOOT2 };
		struct iom_report_opts_cli o = { .format = "html", .cell = "1M rd100 qd8",
						 .run = "boot2:5" };

		html = report_of(dirs, 2, &o);
		assert_non_null(strstr(html, "Latency percentiles — 1M rd100 qd8"));
		assert_non_null(strstr(html, "IOPS over time — run 5: pvscsi 4K wr100 qd32"));
		/* The chosen cell's slice is drawn first. */
		assert_non_null(strstr(html, "IOPS vs queue depth — 1M rd100"));
		assert_true(strstr(html, "IOPS vs queue depth — 1M rd100") <
			    strstr(html, "IOPS vs queue depth — 4K wr100"));
		free(html);
	}

	/* One block size and one queue depth: the charts say why they are not drawn. */
	{
		struct iom_report_opts_cli o = { .format = "html" };
		static const struct spec runs[] = {
			{ 0, 1, 1, IOM_RUN_OK, 10000, 100, 200, 20, NULL },
			{ 1, 1, 1, IOM_RUN_OK, 12000, 80, 150, 12, NULL },
		};

		make_study(dir, runs, 2, 2);
		html = report_of(&dir, 1, &o);
		assert_non_null(strstr(html, "not drawn: it needs block_size to vary (this report "
					     "has one block size)"));
		assert_non_null(strstr(html, "not drawn: it needs queue_depth to vary"));
		/* Runs shorter than two intervals say so, with their length and rate. */
		assert_non_null(strstr(html, "less than two 1-second intervals; 10.00K IOPS over "
					     "its window"));
		assert_non_null(strstr(html, "less than two 1-second intervals; 12.00K IOPS over "
					     "its window"));
		assert_non_null(strstr(html, "id=\"chart-percentiles\""));
		assert_non_null(strstr(html, "single run, no test"));
		free(html);
	}
}

static void test_report_main_options(void **state)
{
	static const struct {
		struct iom_report_opts_cli o;
		int ret;
		const char *msg;
	} bad[] = {
		{ { .format = "xml" }, -EINVAL, "unknown report format 'xml' (text, md, csv, json, "
						"html, fio-json" },
		{ { .format = "csv", .run = "3" }, -EINVAL, "--run is for the text, html, fio-json" },
		{ { .alpha = "2" }, -ERANGE, "alpha" },
		{ { .max_cv = "lots" }, -EINVAL, "max_cv" },
		{ { .format = "html", .cell = "qd3" }, -ENOENT, "no cell matches 'qd3'" },
		{ { .run = "999" }, -ENOENT, "no run 999 in" },
	};
	const char *dir = *state, *b1 = BOOT1;
	char *out = xasprintf("%s/report.html", dir), *text;
	char err[IOM_ERRLEN];
	FILE *f = fopen("/dev/null", "w");

	assert_non_null(f);
	for (size_t i = 0; i < IOM_ARRAY_SIZE(bad); i++) {
		int ret;

		err[0] = '\0';
		ret = iom_report_main(f, &b1, 1, &bad[i].o, err, sizeof(err));
		if (ret != bad[i].ret || !strstr(err, bad[i].msg)) {
			print_error("case %zu: %d '%s'\n", i, ret, err);
			fail();
		}
	}
	fclose(f);
	/* -o FILE: written there, nothing on out. */
	{
		struct iom_report_opts_cli o = { .format = "html", .output = out };
		char *buf = NULL;
		size_t len = 0;

		f = open_memstream(&buf, &len);
		assert_int_equal(iom_report_main(f, &b1, 1, &o, err, sizeof(err)), 0);
		fclose(f);
		assert_int_equal(len, 0);
		free(buf);
		assert_int_equal(iom_read_file(out, &buf, &len), 0);
		assert_true(len > 10000);
		assert_non_null(strstr(buf, "</html>\n"));
		free(buf);
	}
	/* --run N with the text format: the DiskSpd view of that run. */
	{
		struct iom_report_opts_cli o = { .run = "2" };

		text = report_of(&b1, 1, &o);
		assert_non_null(strstr(text, "Results for run 2:"));
		assert_non_null(strstr(text, "number of outstanding I/O operations: 1"));
		free(text);
	}
	/* After a sweep: the table without the provenance lines. */
	{
		char *buf = NULL;
		size_t len = 0;

		f = open_memstream(&buf, &len);
		assert_int_equal(iom_report_after_sweep(f, BOOT1, err, sizeof(err)), 0);
		fclose(f);
		assert_null(strstr(buf, "study 'controllers'"));
		assert_non_null(strstr(buf, "90 runs: 89 ok, 1 left out"));
		free(buf);
	}
	free(out);
}

/* ---- the DiskSpd-style report of one run ---- */

/* Collapses runs of blanks to one and drops leading ones, as the reference sample is written. */
static char *normalize(const char *s)
{
	char *out = xmalloc(strlen(s) + 1), *o = out;
	bool bol = true;

	for (; *s; s++) {
		if (*s == ' ' && (bol || s[1] == ' ' || s[1] == '\n'))
			continue;
		*o++ = *s;
		bol = *s == '\n';
	}
	*o = '\0';
	return out;
}

#define DASHES \
	"-----------------------------------------------------------------------------------------" \
	"------------"

/* The reference DiskSpd report's tables, the file column aside. */
static const char *const diskspd_tables[] = {
	"actual test time: 1800.00s",
	"thread count: 4",
	"proc count: 4",
	"",
	"CPU | Usage | User | Kernel | Idle",
	"-------------------------------------------",
	"0| 8.35%| 1.84%| 6.50%| 91.65%",
	"1| 8.38%| 1.89%| 6.48%| 91.62%",
	"2| 7.78%| 1.79%| 5.99%| 92.22%",
	"3| 7.39%| 1.60%| 5.79%| 92.61%",
	"-------------------------------------------",
	"avg.| 7.97%| 1.78%| 6.19%| 92.03%",
	"",
	"Total IO",
	"thread | bytes | I/Os | MB/s | I/O per s | AvgLat | LatStdDev | file",
	DASHES,
	"0 | 15150776320 | 924730 | 8.03 | 513.74 | 3.888 | 3.175 | FILE",
	"1 | 15089106944 | 920966 | 7.99 | 511.65 | 3.904 | 3.289 | FILE",
	"2 | 15108947968 | 922177 | 8.00 | 512.32 | 3.899 | 3.140 | FILE",
	"3 | 15109013504 | 922181 | 8.01 | 512.32 | 3.898 | 3.086 | FILE",
	DASHES,
	"total: 60457844736 | 3690054 | 32.03 | 2050.03 | 3.897 | 3.173",
	"",
	"Read IO",
	"thread | bytes | I/Os | MB/s | I/O per s | AvgLat | LatStdDev | file",
	DASHES,
	"0 | 7574110208 | 462287 | 4.01 | 256.83 | 3.274 | 2.741 | FILE",
	"1 | 7539032064 | 460146 | 3.99 | 255.64 | 3.297 | 2.966 | FILE",
	"2 | 7562526720 | 461580 | 4.01 | 256.43 | 3.297 | 2.861 | FILE",
	"3 | 7543046144 | 460391 | 4.00 | 255.77 | 3.293 | 2.613 | FILE",
	DASHES,
	"total: 30218715136 | 1844404 | 16.01 | 1024.67 | 3.290 | 2.798",
	"",
	"Write IO",
	"thread | bytes | I/Os | MB/s | I/O per s | AvgLat | LatStdDev | file",
	DASHES,
	"0 | 7576666112 | 462443 | 4.01 | 256.91 | 4.501 | 3.448 | FILE",
	"1 | 7550074880 | 460820 | 4.00 | 256.01 | 4.510 | 3.479 | FILE",
	"2 | 7546421248 | 460597 | 4.00 | 255.89 | 4.501 | 3.289 | FILE",
	"3 | 7565967360 | 461790 | 4.01 | 256.55 | 4.503 | 3.389 | FILE",
	DASHES,
	"total: 30239129600 | 1845650 | 16.02 | 1025.36 | 4.504 | 3.402",
	"%-ile | Read (ms) | Write (ms) | Total (ms)",
	"----------------------------------------------",
	"min | 0.000 | 0.000 | 0.000",
	"25th | 1.360 | 2.258 | 1.709",
	"50th | 2.818 | 3.885 | 3.269",
	"75th | 4.481 | 6.093 | 5.443",
	"90th | 6.259 | 8.370 | 7.195",
	"95th | 7.163 | 9.928 | 8.987",
	"99th | 10.090 | 13.425 | 12.593",
	"3-nines | 23.523 | 30.284 | 27.785",
	"4-nines | 47.191 | 52.535 | 49.878",
	"5-nines | 190.339 | 161.402 | 190.339",
	"6-nines | 534.581 | 534.289 | 534.289",
	"7-nines | 545.593 | 535.040 | 545.593",
	"8-nines | 545.593 | 535.040 | 545.593",
	"9-nines | 545.593 | 535.040 | 545.593",
	"max | 545.593 | 535.040 | 545.593",
};

static void test_report_diskspd_layout(void **state)
{
	struct iom_report_opts_cli o = { .color = 0 };
	char err[IOM_ERRLEN] = "";
	char *buf = NULL, *norm, *want, *p;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct sbuf {
		char *s;
		size_t n;
	} w = { 0 };
	FILE *wf = open_memstream(&w.s, &w.n);

	(void)state;
	assert_int_equal(iom_report_run(f, FIXTURES "/diskspd", 1, &o, err, sizeof(err)), 0);
	fclose(f);
	norm = normalize(buf);

	/* The input parameters a DiskSpd reader looks for. */
	static const char *const input[] = {
		"\nInput parameters:\n",
		"\nduration: 1800s\nwarm up time: 5s\ncool down time: 0s\n",
		"\nmeasuring latency\n",
		"\npath: '/mnt/lsi/io.dat'\n",
		("\nperforming mix test (read/write ratio: 50/50)\nblock size: 16384\n"
		 "using random I/O (alignment: 16384)\nnumber of outstanding I/O operations: 2\n"
		 "threads per file: 4\n"),
		("\nResults for run 1:\n*************************************************************"
		 "******************\n\n"),
	};
	for (size_t i = 0; i < IOM_ARRAY_SIZE(input); i++) {
		if (!strstr(norm, input[i])) {
			print_error("missing:\n%s\nin:\n%s\n", input[i], norm);
			fail();
		}
	}

	/* The tables, line for line, in order. */
	for (size_t i = 0; i < IOM_ARRAY_SIZE(diskspd_tables); i++) {
		const char *l = diskspd_tables[i];
		const char *file = strstr(l, "FILE");

		if (file)
			fprintf(wf, "%.*s/mnt/lsi/io.dat (10240MB)\n", (int)(file - l), l);
		else
			fprintf(wf, "%s\n", l);
	}
	fclose(wf);
	want = w.s;
	p = strstr(norm, "actual test time:");
	assert_non_null(p);
	if (strncmp(p, want, strlen(want)) != 0) {
		print_error("want:\n%s\ngot:\n%.*s\n", want, (int)strlen(want), p);
		fail();
	}
	/* What DiskSpd has no place for follows, and says MB/s above is MiB/s. */
	assert_non_null(strstr(norm, "MB/s above is MiB/s (2^20 bytes per second)"));
	assert_non_null(strstr(norm, "total 33.59,"));
	free(want);
	free(norm);
	free(buf);
}

static void test_report_run_missing(void **state)
{
	struct iom_report_opts_cli o = { .color = 0 };
	char err[IOM_ERRLEN] = "";
	FILE *f = fopen("/dev/null", "w");

	(void)state;
	assert_int_equal(iom_report_run(f, FIXTURES "/diskspd", 9, &o, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no run 9 in '" FIXTURES "/diskspd'"));
	fclose(f);
}

static void test_report_failed_run_report(void **state)
{
	static const struct spec runs[] = {
		{ 0, 1, 1, IOM_RUN_FAILED, 0, 0, 0, 0, "cannot open '/tmp/iom-lsi': Permission denied" },
	};
	const char *dir = *state;
	char err[IOM_ERRLEN] = "";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	make_study(dir, runs, 1, 1);
	assert_int_equal(iom_report_run(f, dir, 1, NULL, err, sizeof(err)), 0);
	fclose(f);
	assert_non_null(strstr(buf, "run failed: cannot open '/tmp/iom-lsi': Permission denied"));
	assert_null(strstr(buf, "Total IO"));
	free(buf);
}

/* Without writes, DiskSpd's N/A where a figure does not exist. */
static void test_report_read_only_run(void **state)
{
	static const struct spec runs[] = {
		{ 0, 1, 1, IOM_RUN_OK, 10000, 100, 200, 20, NULL },
	};
	const char *dir = *state;
	char err[IOM_ERRLEN] = "";
	char *buf = NULL, *norm;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	make_study(dir, runs, 1, 1);
	assert_int_equal(iom_report_run(f, dir, 1, NULL, err, sizeof(err)), 0);
	fclose(f);
	norm = normalize(buf);
	assert_non_null(strstr(norm, "\nperforming read test\n"));
	assert_non_null(strstr(norm, "\nmax | 0.000 | N/A | 0.000\n"));
	assert_non_null(strstr(norm, "\n99th | 0.200 | N/A | 0.200\n"));
	assert_non_null(strstr(norm, "\nRead IO\n"));
	assert_non_null(strstr(norm, "\ntotal: 0 | 0 | 0.00 | 0.00 | 0.000 | N/A\n%-ile"));
	free(norm);
	free(buf);
}

/* a study of many hosts written through result.h, read back by the report: the
 * rows beside the aggregate, the straggler flagged (as hosts.c decided it), and the hosts'
 * facts that differ listed rank by rank. */
static void test_report_hosts_rows_and_differs(void **state)
{
	struct iom_matrix mx = { .name = "hosts", .file = "hosts.cfg", .targets = targets,
				 .ntargets = 1, .compare = IOM_DIM_TARGET,
				 .timing = { .duration_ns = 1000000000, .repeat = 2 } };
	struct iom_plan p = { .m = &mx, .nruns = 2, .hash = 0xabcdef };
	struct iom_study_record rec = { .plan = &p, .start_wall_ns = 1764460800000000000ull };
	const char *dir = *state;
	char err[IOM_ERRLEN] = "", *text;
	struct iom_report m;
	struct iom_report_hline *l;
	struct iom_report_host_prov pv;
	size_t n;

	assert_int_equal(iom_results_dir_create(test_own(dir), err, sizeof(err)), 0);
	assert_int_equal(iom_study_write(test_own(dir), &rec, err, sizeof(err)), 0);
	for (uint32_t i = 1; i <= 2; i++) {
		struct iom_cell c = { .v = { 0, 4096, 1, 1, 100, IOM_PATTERN_RANDOM,
					     IOM_ENGINE_IO_URING, 1 } };
		struct iom_host_row rows[3] = { 0 };
		struct iom_run_result r = { .index = i, .repetition = i, .status = IOM_RUN_OK,
					    .elapsed_s = 1, .hosts = rows, .nhosts = 3 };

		r.dir[IOM_DIR_TOTAL].iops = 25000;
		r.dir[IOM_DIR_TOTAL].ios = 25000;
		r.cpu.proc_user_s = 0.5;
		r.cpu.proc_sys_s = 0.25;
		for (uint32_t k = 0; k < 3; k++) {
			struct iom_host_row *h = &rows[k];

			h->rank = k;
			snprintf(h->host, sizeof(h->host), "vm%u", k + 1);
			h->iops = k == 1 ? 5000 : 10000;  /* rank 1 the straggler */
			h->ios[IOM_DIR_TOTAL] = (uint64_t)h->iops;
			h->mb_s = h->iops * 4096 / 1e6;
			h->lat_mean_ns = 100000;
			h->p99_ns = 250000;
			h->user_s = 0.25;
			h->straggler = k == 1;
			h->stonewalled = k == 2 && i == 2;
			snprintf(h->kernel, sizeof(h->kernel), "%s", k == 2 ? "6.1.0 #2" : "6.18.44 #1");
			snprintf(h->cpu_model, sizeof(h->cpu_model), "AMD EPYC");
			/* rank 0's device read no facts in run 1 (failed early), run 2 names it */
			snprintf(h->device, sizeof(h->device), "%s",
				 k == 0 && i == 1 ? "" : k == 1 ? "" : "QEMU HARDDISK (/dev/sda)");
			if (k == 0 && i == 1)
				h->status = IOM_RUN_FAILED;
			h->start_late_ns = 1000 * (int64_t)k;
		}
		r.stonewalled = i == 2;
		r.start_spread_ns = 123456;
		assert_int_equal(iom_result_write(test_own(dir), &mx, &c, &r, err, sizeof(err)), 0);
	}
	assert_int_equal(iom_report_load(dir, NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(m.nhruns, 2);
	assert_int_equal(m.hruns[0].nrows, 3);
	assert_string_equal(m.hruns[0].rows[2].kernel, "6.1.0 #2"); /* read back whole */
	assert_int_equal(m.hruns[0].rows[2].start_late_ns, 2000);
	{
		char *path = iom_result_path(dir, 1);
		struct iom_result_file f;

		assert_int_equal(iom_result_read(path, &f, err, sizeof(err)), 0);
		assert_int_equal(f.r.start_spread_ns, 123456);
		assert_int_equal(f.r.nhosts, 3);
		assert_string_equal(f.r.hosts[1].device, "");
		iom_result_file_release(&f);
		free(path);
	}
	assert_true(m.hruns[1].stonewalled);
	n = iom_report_hlines(&m, 0, &l);
	assert_int_equal(n, 8);
	assert_true(l[0].aggregate);
	assert_string_equal(l[0].col[IOM_HCOL_RANK], "all");
	assert_string_equal(l[0].col[IOM_HCOL_HOST], "3 hosts");
	assert_string_equal(l[0].col[IOM_HCOL_IOPS], "25.00K");
	assert_string_equal(l[0].col[IOM_HCOL_CPU], "0.75");
	assert_string_equal(l[1].col[IOM_HCOL_FLAGS], "failed");
	assert_true(l[2].straggler);
	assert_string_equal(l[2].col[IOM_HCOL_FLAGS], "straggler");
	assert_string_equal(l[2].col[IOM_HCOL_IOPS], "5000");
	assert_false(l[3].straggler);
	assert_string_equal(l[3].col[IOM_HCOL_FLAGS], "");
	assert_string_equal(l[4].col[IOM_HCOL_FLAGS], "stonewalled");
	assert_string_equal(l[7].col[IOM_HCOL_FLAGS], "stonewalled");
	iom_report_hlines_free(l, n);
	n = iom_report_hlines(&m, 1, &l); /* at most one run */
	assert_int_equal(n, 4);
	iom_report_hlines_free(l, n);

	iom_report_host_prov(&m, 0, &pv);
	assert_int_equal(pv.nline, 3);
	assert_string_equal(pv.line[0], "rank 0 (vm1): kernel 6.18.44 #1; CPU AMD EPYC; target "
			    "'lsi': QEMU HARDDISK (/dev/sda)");
	assert_string_equal(pv.line[1], "rank 1 (vm2): kernel 6.18.44 #1; CPU AMD EPYC; target "
			    "'lsi': no block device");
	assert_int_equal(pv.ndiffers, 2);
	assert_string_equal(pv.differs[0], "kernel differs: r0, r1: 6.18.44 #1; r2: 6.1.0 #2");
	assert_string_equal(pv.differs[1], "device of target 'lsi' differs: r0, r2: QEMU HARDDISK "
			    "(/dev/sda); r1: no block device");
	iom_report_host_prov_release(&pv);
	iom_report_release(&m);

	text = winners_text(dir, NULL, 0);
	assert_true(widest_line(text) <= 100);
	assert_non_null(strstr(text, "\nper host (2 runs of many hosts):\n"));
	assert_non_null(line_with(text, "run  cell"));
	assert_int_equal(count_of(text, "  straggler\n"), 2);
	assert_non_null(strstr(text, "hosts:\n  rank 0 (vm1): kernel 6.18.44 #1; CPU AMD EPYC;"));
	assert_non_null(strstr(text, "  kernel differs: r0, r1: 6.18.44 #1; r2: 6.1.0 #2\n"));
	free(text);
	{
		struct iom_report_opts_cli o = { .color = 0, .format = "json" };
		json_object *root, *a, *h;

		text = report_of(&dir, 1, &o);
		root = json_tokener_parse(text);
		assert_non_null(root);
		assert_true(json_object_object_get_ex(root, "host_runs", &a));
		assert_int_equal(json_object_array_length(a), 2);
		assert_true(json_object_object_get_ex(json_object_array_get_idx(a, 0), "hosts", &h));
		assert_true(json_object_get_boolean(json_object_object_get(
			json_object_array_get_idx(h, 1), "straggler")));
		json_object_put(root);
		free(text);
	}
}

/* Margins in words: a percentage below 100 %, the ratio of the better to the worse above. */
static void test_report_margin_words(void **state)
{
	static const struct { enum iom_metric k; double pct; const char *want; } cases[] = {
		{ IOM_METRIC_IOPS, 51.1, "better by 51.1%" },
		{ IOM_METRIC_IOPS, -51.1, "worse by 51.1%" },
		{ IOM_METRIC_IOPS, -215, "3.15× lower" },
		{ IOM_METRIC_IOPS, 215, "3.15× higher" },
		{ IOM_METRIC_LAT_P99, 215, "3.15× lower" },
		{ IOM_METRIC_LAT_P99, -215, "3.15× higher" },
		{ IOM_METRIC_MB_S, -100, "2× lower" },
		{ IOM_METRIC_IOPS, 0.01, "even" },
		{ IOM_METRIC_IOPS, -INFINITY, ">999× lower" },
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		iom_report_fmt_margin(buf, sizeof(buf), cases[i].k, cases[i].pct);
		if (strcmp(buf, cases[i].want) != 0)
			fail_msg("%g: '%s', want '%s'", cases[i].pct, buf, cases[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST_IN_TMPDIR(test_report_model_keeps_repetitions),
		TEST_IN_TMPDIR(test_report_clear_win),
		TEST_IN_TMPDIR(test_report_tie_by_p_noisy),
		TEST_IN_TMPDIR(test_report_tie_by_min_effect),
		TEST_IN_TMPDIR(test_report_single_run),
		TEST_IN_TMPDIR(test_report_csv_digits_match_summary),
		cmocka_unit_test(test_report_format_table),
		cmocka_unit_test(test_report_margin_words),
		cmocka_unit_test(test_report_walk_sections),
		TEST_IN_TMPDIR(test_report_single_vs_repeated),
		TEST_IN_TMPDIR(test_report_median_margin),
		TEST_IN_TMPDIR(test_report_lower_is_better),
		TEST_IN_TMPDIR(test_report_failed_runs_excluded),
		TEST_IN_TMPDIR(test_report_stalled_runs_excluded),
		TEST_IN_TMPDIR(test_report_single_compared_value),
		TEST_IN_TMPDIR(test_report_compare_other_dimension),
		TEST_IN_TMPDIR(test_report_fits_100_columns_or_wraps),
		TEST_IN_TMPDIR(test_report_bad_directories),
		TEST_IN_TMPDIR(test_report_names_missing_and_damaged_runs),
		cmocka_unit_test(test_report_merge_partial_overlap),
		cmocka_unit_test(test_report_provenance_differences),
		TEST_IN_TMPDIR(test_report_same_label_qualified),
		cmocka_unit_test(test_report_find_cell_and_run),
		TEST_IN_TMPDIR(test_report_csv_parses),
		cmocka_unit_test(test_report_metrics_key),
		TEST_IN_TMPDIR(test_report_pooled_bimodal),
		cmocka_unit_test(test_report_json_parses),
		cmocka_unit_test(test_report_md_tables),
		TEST_IN_TMPDIR(test_report_html),
		TEST_IN_TMPDIR(test_report_main_options),
		cmocka_unit_test(test_report_diskspd_layout),
		TEST_IN_TMPDIR(test_report_too_few_ios),
		TEST_IN_TMPDIR(test_report_not_steady_left_out),
		cmocka_unit_test(test_report_run_missing),
		TEST_IN_TMPDIR(test_report_failed_run_report),
		TEST_IN_TMPDIR(test_report_read_only_run),
		TEST_IN_TMPDIR(test_report_hosts_rows_and_differs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
