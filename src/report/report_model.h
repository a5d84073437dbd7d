/* SPDX-License-Identifier: MIT */
/*
 * report_model — the report's inside, which its files share (report.h is its public face):
 * what one or more results directories say: winners that survive the noise, studies
 * compared across boots, and the same conclusions as text, Markdown, CSV, JSON or a
 * self-contained HTML page with inline SVG charts; and the DiskSpd-style report of a single run.
 *
 * The report reads only results directories (study.json and runs/NNNNN.json through result.h),
 * never live state. Loading builds an in-memory model that keeps every repetition's value of
 * every metric, so every statistic is computed from the model without re-reading files:
 *
 *  - per (cell, metric, compared value): mean, stddev, coefficient of variation, 95 % CI;
 *  - per (cell, metric): the verdict. The best mean wins only when Welch's t-test against the
 *    runner-up gives p < alpha AND the margin exceeds min_effect; the two are the "same" when
 *    two one-sided tests show their difference within ± min_effect; otherwise "undecided",
 *    with the repetitions that would likely settle it. p-values are adjusted over every
 *    comparison of the report (Holm by default). When either of the two has a single
 *    repetition the verdict is "single-run": no significance;
 *  - per (compared value, metric): cells won, same, undecided, lost, and the median margin.
 *
 * Several directories merge into one model (the study done in two boots): cells match on every
 * dimension value but the compared one. The module is split over files by job: report_load.c
 * (reading directories into the model), report_stats.c (verdicts, outcomes, tallies, noise),
 * report_prov.c (provenance differences, missing cells), report_words.c (cells and figures in
 * words), report_hosts.c (the runs of many hosts: per-host rows, provenance per host),
 * report_text.c (the text report), report_fmt.c (Markdown, CSV, JSON), report_html.c
 * (HTML) with report_charts.c (its charts), report_run.c (the DiskSpd view of one run),
 * report_export.c (the pools the exports are made from), report_fio.c (fio JSON and JSON+), report_prom.c (OpenMetrics),
 * report_diskspd.c (DiskSpd's XML results) and report_main.c (the table of formats, the entry
 * points); chart.c draws the SVG charts and knows nothing of benchmarks.
 * docs/reports.md is the user's description of all of it.
 */
#ifndef IOM_REPORT_MODEL_H
#define IOM_REPORT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "matrix/matrix.h"
#include "report.h"
#include "result/result.h"
#include "result/study.h"
#include "stats.h"

/* The metrics a cell is judged on. */
enum iom_metric {
	IOM_METRIC_IOPS,        /* total IOPS */
	IOM_METRIC_MB_S,        /* total MB/s, decimal */
	IOM_METRIC_LAT_MEAN,    /* mean latency of all I/O, ns */
	IOM_METRIC_LAT_P99,     /* 99th percentile latency of all I/O, ns */
	IOM_METRIC_CPU_PER_IO,  /* system CPU µs per I/O (all CPUs; the process's in old runs) */
	IOM_METRIC_CPU_BUSY,    /* the CPUs' busy %, averaged over them (DiskSpd's avg. Usage,
				 * IOMeter's %CPU; the system's, the process's CPUs in old runs) */
	IOM_NMETRIC
};

struct iom_metric_info {
	const char *name;       /* "iops", "mb_s", "lat_mean_ns", "lat_p99_ns", "cpu_us_per_io",
				 * "cpu_busy_pct" (keys.h, iom_metric_names, the same) */
	const char *title;      /* column title: "IOPS", "MB/s", "lat avg", "lat p99", "CPU/IO",
				 * "CPU %" */
	bool higher_is_better;
};
extern const struct iom_metric_info iom_metrics[IOM_NMETRIC];

struct iom_report;
/* The next metric after k (-1: the first) that m compares (report.metrics), in the order of
 * iom_metrics; IOM_NMETRIC after the last. Each of them, in order:
 *	for (int k = iom_report_metric_next(m, -1); k < IOM_NMETRIC;
 *	     k = iom_report_metric_next(m, k)) */
int iom_report_metric_next(const struct iom_report *m, int k);

/* The defaults of report = { … } (keys.c has the same), used when study.json has none. */
#define IOM_REPORT_ALPHA 0.05
#define IOM_REPORT_MIN_EFFECT_PCT 2.0
#define IOM_REPORT_MAX_CV_PCT 5.0

/* Per-repetition figures kept besides the metrics, for the charts. */
enum iom_report_x {
	IOM_X_READ_MB_S,
	IOM_X_WRITE_MB_S,
	IOM_X_READ_IOPS,
	IOM_X_WRITE_IOPS,
	IOM_X_PCT,              /* IOM_X_PCT + i: total latency at iom_percentiles[i], ns */
	/* the offered load of a paced run (result.h, struct iom_run_load; docs/load.md): offered
	 * IOPS (0 for a closed loop), 1 when the schedule held, and the run's response and service
	 * time, mean and p99 (a closed loop's response time is its service time) */
	IOM_X_OFFERED = IOM_X_PCT + IOM_NPCT,
	IOM_X_HELD,
	IOM_X_RESP_MEAN,
	IOM_X_RESP_P99,
	IOM_X_SVC_MEAN,
	IOM_X_SVC_P99,
	/* the target's disk over the window: writes and flushes it completed, its write cache
	 * (1 "write back", volatile; 0 "write through"), FUA taken (1, 0); NaN when unknown */
	IOM_X_DISK_WRITES,
	IOM_X_DISK_FLUSHES,
	IOM_X_WCACHE_BACK,
	IOM_X_FUA,
	IOM_X_OTHER_CPU,        /* other processes' CPU in the window, % of a core; NaN: unknown */
	IOM_NX
};

/* The repetitions of one cell for one compared value (ok runs only). */
struct iom_report_reps {
	size_t n;
	uint32_t *run;              /* plan index of each repetition (heap, n entries) */
	size_t *src;                /* source (index into model->src) of each repetition */
	double *v[IOM_NMETRIC];     /* value of each metric per repetition (heap, n entries) */
	double *x[IOM_NX];          /* the chart figures per repetition (heap, n entries) */
	unsigned failed;            /* runs of this (cell, value) that failed: excluded */
	unsigned interrupted;       /* runs that were interrupted: excluded */
	unsigned stalled;           /* runs that finished but stalled (result.h): excluded */
	unsigned few_ios;           /* repetitions of fewer than IOM_MIN_PCT_IOS I/Os:
				     * their p99 means nothing, so the value's p99 is left out */
	/* The repetitions pooled: their histograms merged bucket by bucket. pooled holds all
	 * I/O's service time (the percentile curve), pooled_pct its percentiles, pooled_p99 the
	 * p99 the cell is judged on (a paced run's response time); npooled of the n repetitions
	 * kept a histogram. Only when every one did (iom_report_pooled()) are the figures pooled;
	 * otherwise — files from before histograms were kept — each percentile is the mean over
	 * the repetitions, and the reports say so. */
	size_t npooled;
	struct iom_hist_sparse pooled;
	double pooled_pct[IOM_NPCT];
	double pooled_p99;
};

/* Whether r's percentiles are pooled from its repetitions' buckets (every one kept them). */
bool iom_report_pooled(const struct iom_report_reps *r);
/* r's latency at iom_percentiles[i]: pooled when iom_report_pooled(r), else the mean of the
 * repetitions' (NaN without repetitions). */
double iom_report_pct(const struct iom_report_reps *r, int i);
/* "pooled over 3 runs", or "mean of 3 runs' percentiles (runs without histograms)" into buf. */
void iom_report_pool_words(const struct iom_report_reps *r, char *buf, size_t len);

struct iom_report_cell {
	char **value;               /* value of each of model->dims[] (heap) */
	struct iom_report_reps *by; /* one per compared value (heap, ncompared entries) */
	bool *in_src;               /* per source: the directory has a run of this cell */
};

/* A run left out of the figures, with its reason (for a stalled run: why it stalled). */
struct iom_report_excluded {
	uint32_t run;
	size_t src, cell, compared;
	enum iom_run_status status;
	bool stalled;               /* status ok, but the window stalled */
	char *error;
};

/*
 * A run the report cannot show: the journal counts it finished (done or failed) but its file is
 * missing, or its file does not read back whole and consistent. `iomatrix resume` redoes it.
 */
struct iom_report_damaged {
	size_t src;
	uint32_t run;
	char *why;                  /* heap: "result file missing", or the parser's message */
};

/* What an excluded run is called in reports: "failed", "interrupted" or "stalled". */
const char *iom_report_excluded_status(const struct iom_report_excluded *e);

/* One results directory of the model. */
struct iom_report_source {
	char *dir;                  /* as given */
	char *name;                 /* its base name, or the path when two base names are equal */
	struct iom_study_info study;
	size_t nruns, nok;
};

struct iom_report {
	struct iom_report_source *src; /* heap, nsrc entries, in the order given */
	size_t nsrc;
	struct iom_report_opts opts;   /* alpha, min effect and max CV in force */
	char *compare;              /* the compared dimension ("target" unless told otherwise) */
	char **dims;                /* every other dimension, in file order */
	bool *varies;               /* per dims[]: more than one value among the cells */
	size_t ndims;
	char **compared;            /* values of the compared dimension, first appearance first;
				     * "label@dir" when the same value measured the same cell in
				     * two directories */
	size_t ncompared;
	bool qualified;             /* some compared values carry "@dir" */
	struct iom_report_cell *cells; /* first appearance (source, then plan index) order */
	size_t ncells;
	size_t nruns, nok;
	struct iom_report_excluded *excluded;
	size_t nexcluded;
	struct iom_report_damaged *damaged; /* source, then run order */
	size_t ndamaged;
	/* the verdicts decided together (iom_report_decide()), so that the correction
	 * spans the report. Per (cell, metric, compared value), index (c · IOM_NMETRIC + k) ·
	 * ncompared + v: the value against the best of its (cell, metric), NaN for the best
	 * itself or where either side has fewer than two repetitions. */
	struct iom_report_verdict *vd; /* per cell × metric; NULL: decided on demand, uncorrected */
	double *p_raw, *p_adj;         /* the p against the best (Welch's or moderated), raw, adjusted */
	double *tost_raw, *tost_adj;   /* the equivalence (TOST) p against the best */
	size_t ntests;                 /* comparisons in the family (finite p_raw) */
	unsigned settle_cap;           /* the most repetitions a suggestion names: the study's
					* repeat_max, else IOM_REPORT_SETTLE_CAP (0: that) */
	/* moderated t: per metric the prior (limma's fitFDist) of the family's pooled
	 * variances of ln(value); moderated[k] when metric k's tests use it (at least
	 * IOM_REPORT_PRIOR_MIN comparisons with positive values), else they are Welch's. */
	struct iom_stats_prior prior[IOM_NMETRIC];
	bool moderated[IOM_NMETRIC];
	double *df_used;               /* per (cell, metric, compared value) as p_raw: the df */
	/* the runs of many hosts (docs/hosts.md), their per-host rows beside the
	 * aggregate, in source then run order (report_hosts.c) */
	struct iom_report_hrun *hruns;
	size_t nhruns;
};

/*
 * When a metric's tests borrow strength (docs/reports.md, "Moderated t"): from at least
 * IOM_REPORT_PRIOR_MIN comparisons, the prior fitted with the spread of their log-variances at
 * its upper IOM_REPORT_PRIOR_CONF bound, and only when it is worth IOM_REPORT_PRIOR_MIN_D0 df
 * or more (variances scattered far beyond their sampling noise: Welch's test, since the
 * prior's shape then misleads more than it helps). Chosen by simulation of null studies with
 * CVs spread 1× to 20× across cells, 3 or 5 repetitions: Holm's family-wise error stays at
 * or below about 5 %, where limma's plain estimate gave up to 10 %.
 */
#define IOM_REPORT_PRIOR_MIN 10
#define IOM_REPORT_PRIOR_CONF 0.95
#define IOM_REPORT_PRIOR_MIN_D0 4.0

/*
 * Loads the results directories dirs[0..n) (study.json and every runs/NNNNN.json) into m,
 * comparing the values of dimension compare (NULL: the one every study.json names, else
 * "target"). The significance options are those of the first study.json (defaults when it has
 * none). A run file that does not read back, and a run the directory's journal counts finished
 * whose file is missing, are left out and listed in m->damaged; the rest is the model. Reads
 * only: nothing is renamed or repaired (that is resume's). Returns 0, or -errno with a message
 * naming the file in err (an unreadable study.json, a compared dimension the runs lack).
 * Release m with iom_report_release() in every case.
 */
int iom_report_load_many(const char *const *dirs, size_t n, const char *compare,
			 struct iom_report *m, char *err, size_t errlen);
/* iom_report_load_many() of one directory. */
int iom_report_load(const char *dir, const char *compare, struct iom_report *m, char *err,
		    size_t errlen);
void iom_report_release(struct iom_report *m);

/*
 * Overrides the model's options with command-line text (NULL: keep): alpha "0.01", min effect
 * and max CV as "2", "2%" or "0.5%", range-checked as the matrix keys are. 0 or -EINVAL with err.
 */
int iom_report_set_opts(struct iom_report *m, const char *alpha, const char *min_effect,
			const char *max_cv, char *err, size_t errlen);

/* Mean of metric k over the repetitions in r; NaN when there are none. The p99 is the
 * exception: pooled from the repetitions' buckets when they kept them (iom_report_pooled). */
double iom_report_mean(const struct iom_report_reps *r, enum iom_metric k);
/* n, mean, stddev, CV, CI95 half-width … of metric k over r (all 0 when r has none); the
 * p99's "mean" is iom_report_mean's, its spread the repetitions' (the verdicts test those). */
void iom_report_summary(const struct iom_report_reps *r, enum iom_metric k,
			struct iom_stats_summary *s);

/* The largest number of repetitions the report suggests when the study sets no repeat_max. */
#define IOM_REPORT_SETTLE_CAP 100

/* The verdict of one (cell, metric). */
struct iom_report_verdict {
	enum iom_verdict_kind kind;
	int best;           /* index into compared[] of the best mean, or -1 */
	int winner;         /* best when kind is WIN, else -1 */
	int runner_up;      /* second-best mean, or -1 */
	double margin_pct;  /* |best − runner-up| / |the runner-up| · 100; NaN without runner-up */
	double p_value;     /* the two-sided p, best vs runner-up (moderated t on ln values when
			     * moderated, else Welch's); NaN when not tested */
	double p_adjusted;  /* p_value adjusted over the report's family (m->opts.correction) */
	double tost_p;      /* the equivalence test's p (within ± min_effect); NaN: not tested */
	double tost_adjusted; /* tost_p adjusted over the family */
	bool tie_by_p;      /* not a win because the adjusted p ≥ alpha */
	bool tie_by_effect; /* not a win because margin ≤ min_effect */
	double max_cv_pct;  /* largest CV among the compared values with ≥ 2 repetitions */
	bool noisy;         /* max_cv_pct > the model's max CV */
	unsigned settle;    /* UNDECIDED: repetitions per side that would likely settle it (the
			     * timing.repeat to set), at most the cap; 0 otherwise */
	bool settle_capped; /* UNDECIDED: more than the cap would be needed (settle is the cap) */
	bool moderated;     /* the tests borrowed the metric's variance prior */
	double df;          /* their degrees of freedom (d0 + d when moderated); NaN: untested */
};

void iom_report_verdict(const struct iom_report *m, size_t cell, enum iom_metric k,
			struct iom_report_verdict *v);

/*
 * decides every verdict of m at once: each compared value of each (cell, metric)
 * against the best is one test of the family, its p-values adjusted by m->opts.correction
 * (Holm, Benjamini–Hochberg or none) over all of them. Loading and iom_report_set_opts() call
 * it; a model built by hand calls it after filling its cells (before it, verdicts are
 * uncorrected). Replaces what a previous call decided.
 */
void iom_report_decide(struct iom_report *m);
/* "Holm's correction over 240 tests", "Benjamini–Hochberg over 240 tests", "no correction
 * (240 tests)" into buf; "moderated t (limma), " before it when some metric is moderated. */
void iom_report_correction_words(const struct iom_report *m, char *buf, size_t len);
/* "moderated" when some metric's tests are limma's moderated t, else "Welch" (as in
 * "with Welch p < 0.05"). */
const char *iom_report_test_words(const struct iom_report *m);
/* --correction: "holm", "bh" or "none" (NULL: keep) into m's options, then decides again. 0 or
 * -EINVAL with err. */
int iom_report_set_correction(struct iom_report *m, const char *text, char *err, size_t errlen);

/* How one compared value fared in one (cell, metric). */
enum iom_outcome {
	IOM_OUTCOME_ABSENT,     /* no finished run, or nothing to compare it with */
	IOM_OUTCOME_WON,        /* the winner */
	IOM_OUTCOME_SAME,       /* shown to be within ± min_effect of the best (or, the best, of
				 * the runner-up) */
	IOM_OUTCOME_UNDECIDED,  /* neither a loss (a win) nor the same shown */
	IOM_OUTCOME_LOST,       /* significantly (adjusted p < alpha, margin > min effect) worse */
	IOM_OUTCOME_SINGLE_RUN, /* it or the best has one repetition */
};
/* "absent", "won", "same", "undecided", "lost", "single-run". */
const char *iom_outcome_name(enum iom_outcome o);

/*
 * The outcome of compared value cv in (cell, k); *margin_pct (may be NULL) gets its signed
 * margin against the best of the others: + when cv is better, |a − b| / |the worse| · 100, NaN
 * when absent.
 */
enum iom_outcome iom_report_outcome(const struct iom_report *m, size_t cell, enum iom_metric k,
				    size_t cv, double *margin_pct);

/* The closing verdict of one compared value for one metric over every cell. */
struct iom_report_tally {
	unsigned won, same, undecided, lost, single_run;
	size_t nmargin;          /* cells it was compared in (margins counted) */
	double median_margin_pct; /* median signed margin over those cells; NaN when none */
};
void iom_report_tally(const struct iom_report *m, enum iom_metric k, size_t cv,
		      struct iom_report_tally *t);

/* One noisy (cell, metric, compared value): CV above the model's max CV. */
struct iom_report_noisy {
	size_t cell, compared;
	enum iom_metric metric;
	size_t n;
	double cv_pct;
	unsigned suggest;        /* repetitions that would settle its undecided verdict (see
				  * reports.md); 0 when its verdict is not undecided */
	bool capped;             /* more than suggest (the cap) would be needed */
	enum iom_verdict_kind verdict; /* of its (cell, metric) */
};
/* Every noisy entry in cell, metric, value order into *out (heap, caller frees); the count. */
size_t iom_report_noisy_list(const struct iom_report *m, struct iom_report_noisy **out);

/* A provenance fact that differs between the sources: what ("kernel") and each source's value. */
struct iom_report_diff {
	char *what;
	char **value;            /* nsrc entries ("?" when unknown) */
};
/* The differences between the sources (none for one source) into *out; the count. Free with
 * iom_report_diffs_free(). */
size_t iom_report_diffs(const struct iom_report *m, struct iom_report_diff **out);
void iom_report_diffs_free(struct iom_report_diff *d, size_t n);
/* "kernel differs: 6.1.0 (boot1) vs 6.18.44 (boot2)"; the caller frees it. */
char *iom_report_diff_text(const struct iom_report *m, const struct iom_report_diff *d);

/* The compared "dimension" of a study against study: each target (and every other dimension)
 * is a cell, the studies are the compared values, the first (the baseline) is A. "directory"
 * is its alias on the command line. */
#define IOM_REPORT_COMPARE_STUDY "study"
/* Whether m compares studies (compare is "study"). */
bool iom_report_by_study(const struct iom_report *m);
/* Whether a provenance fact is one that makes two studies a before/after pair: the controller
 * or its driver, the kernel, a scheduler, a filesystem. */
bool iom_report_fact_is_setup(const char *what);
/* The facts of the setup that differ between the sources, "controller: mptsas → vmw_pvscsi;
 * kernel: 6.1 → 6.8" (values in source order); NULL when none differs. The caller frees it. */
char *iom_report_setup_changes(const struct iom_report *m);

/* "run 5: result file missing; `iomatrix resume DIR` redoes it"; the caller frees it. */
char *iom_report_damaged_text(const struct iom_report *m, const struct iom_report_damaged *d);

/* The cells that some other source has and source s lacks, into *cells (heap); the count. */
size_t iom_report_missing(const struct iom_report *m, size_t s, size_t **cells);

/* The cell's words for the dimensions that vary ("4K rnd qd32"), or for all of them when none
 * varies; the caller frees it. */
char *iom_report_cell_label(const struct iom_report *m, size_t cell);

/*
 * What the target's disk did per run of (cell, compared value cv), mean over its repetitions:
 * "51.7K writes, 18.7K flushes (write back, no FUA)" — the flushes are what write_through
 * costs on a volatile cache without FUA. NULL when no repetition knows its disk. The caller
 * frees the text. iom_report_disk_any: whether any value of m wrote to a known disk.
 */
char *iom_report_disk_words(const struct iom_report *m, size_t cell, size_t cv);
bool iom_report_disk_any(const struct iom_report *m);
/* The same figures as numbers: writes and flushes per run (NaN: unknown), whether the disk's
 * write cache is write back (volatile) and whether it has FUA (1, 0; -1: not recorded). */
struct iom_report_disk {
	double writes, flushes;
	int write_back, fua;
};
/* Fills *d for (cell, cv); false (and *d unknown) when no repetition knows its disk. */
bool iom_report_disk_of(const struct iom_report *m, size_t cell, size_t cv,
			struct iom_report_disk *d);
/* The sentence of the winners tables' legends that explains the disk's figures beneath them. */
extern const char iom_report_disk_legend[];
/* The cell's words for the dimensions that vary only ("" when none varies); the caller frees
 * it. */
char *iom_report_varying_words(const struct iom_report *m, size_t cell);
/* Writes ": controllers" or ": ctrl-a, ctrl-b", the distinct study names (a source without one:
 * its directory's name), through text (the format's escaping; NULL: as they are). */
void iom_report_study_names(FILE *out, const struct iom_report *m,
			    void (*text)(FILE *out, const char *s));
/* The words of the dimensions that are the same in every cell; the caller frees it. */
char *iom_report_fixed_words(const struct iom_report *m);
/* The compact word of one dimension value: "4K", "rnd", "rd70", "qd32", "t4", "label". */
void iom_report_word(const char *dim, const char *value, char *buf, size_t len);

/*
 * Finds the cell that spec names: a 1-based row number of the winners table, or words and
 * dim=value pairs all of which the cell has ("4K rnd qd32", "block_size=4096 qd32"). 0, or
 * -ENOENT / -EINVAL (no cell, or several) with err.
 */
int iom_report_find_cell(const struct iom_report *m, const char *spec, size_t *cell, char *err,
			 size_t errlen);

/* A metric's value as the tables print it ("12.35K", "70.9µs", "57.76"). */
void iom_report_fmt_value(char *buf, size_t len, enum iom_metric k, double v);
/* A margin as it reads, the same words for every metric: "better by 14.2%" (more IOPS, less
 * latency), "worse by 3.1%", "even" under 0.05 %. */
void iom_report_fmt_margin(char *buf, size_t len, enum iom_metric k, double pct);

/*
 * A writer of one report format: the model (loaded, options applied) to out. Returns 0, or
 * -errno with err (a bad --cell or --run; "cannot write the report: …" when out failed).
 */
typedef int iom_report_writer(FILE *out, const struct iom_report *m,
			      const struct iom_report_opts_cli *o, char *err, size_t errlen);

/* A report format: a row of report_main.c's table. Adding a format is one row and its writer. */
struct iom_report_format {
	const char *name;          /* as --format takes it: "text", "md", "csv", "json", "html" */
	const char *alias;         /* another name it takes ("markdown"), or NULL */
	bool takes_run;            /* --run means something to it */
	iom_report_writer *write;
};
/* The format called name (or its alias), or NULL. */
const struct iom_report_format *iom_report_format_find(const char *name);

/* The text report (provenance unless o->brief, table, verdict, notes; report_text.c). */
iom_report_writer iom_report_write_text;
/* Markdown, CSV and JSON (report_fmt.c), the self-contained HTML page (report_html.c). */
iom_report_writer iom_report_write_md;
iom_report_writer iom_report_write_csv;
iom_report_writer iom_report_write_json;
iom_report_writer iom_report_write_html;
/* The writers' last word: 0 when out has no error, else -EIO and "cannot write the report: …"
 * in err. */
int iom_report_out_status(FILE *out, char *err, size_t errlen);

/* The winners table part of the text report. Returns 0 or -EIO when out failed. */
int iom_report_print_winners(FILE *out, const struct iom_report *m,
			     const struct iom_report_opts_cli *o);

/*
 * The sections of a report as a document (report_walk.c), for the writers that lay it out as
 * one (Markdown, HTML): iom_report_walk() calls, in this order, head; verdict_begin, a
 * verdict_row per compared value (t: the tally of every metric), verdict_end; body (the
 * format's own); notes_begin (n: noisy entries); noisy_begin, noisy_end when there are any;
 * provenance_begin (d: the n differences), provenance_end; tail.
 * The lists and rows read the same in every format, so the walk writes them itself: the noisy
 * cells' rows (after noisy_begin), each source's missing cells (under missing_title, with
 * several sources), the runs left out (under excluded_title, when any) and the differences
 * (after provenance_begin). Each list is between list_open and list_close (the differences'
 * are the format's), each item between item_open and item_close, a source's name between
 * strong_open and strong_close, a table row between row_open and row_close with each cell
 * between cell_left (text) or cell_right (numbers) and cell_close, text through text().
 * Every string must be set ("" for none); text may be NULL (written as it is). Labels are the
 * walk's, valid during the call. NULL callbacks are skipped; a *_begin that returns false
 * skips its section's rows and end.
 */
struct iom_report_visitor {
	void *ctx;
	FILE *out;
	void (*text)(FILE *out, const char *s);   /* s escaped for the format */
	const char *item_open, *item_close;       /* "- " and "\n"; "<li>" and "</li>\n" */
	const char *strong_open, *strong_close;   /* "" and ""; "<b>" and "</b>" */
	const char *row_open, *row_close;         /* a table row: "|" and "\n"; "<tr>", "</tr>\n" */
	const char *cell_left, *cell_right;       /* a cell's start: " ", " "; "<td class=…>", "<td>" */
	const char *cell_close;                   /* its end: " |"; "</td>" */
	const char *list_open, *list_close;       /* around a list: "" and ""; "<ul>\n", "</ul>\n" */
	const char *missing_title;                /* "\n## Missing cells\n\n"; "<h3>…</h3>\n" */
	const char *excluded_title;               /* "\n## Runs left out\n\n"; "<h3>…</h3>\n" */
	void (*head)(void *ctx, const struct iom_report *m);
	bool (*verdict_begin)(void *ctx, const struct iom_report *m);
	void (*verdict_row)(void *ctx, const struct iom_report *m, size_t cv,
			    const struct iom_report_tally *t);
	void (*verdict_end)(void *ctx, const struct iom_report *m);
	void (*body)(void *ctx, const struct iom_report *m);
	void (*notes_begin)(void *ctx, const struct iom_report *m, size_t n);
	bool (*noisy_begin)(void *ctx, const struct iom_report *m, size_t n);
	void (*noisy_end)(void *ctx, const struct iom_report *m);
	bool (*provenance_begin)(void *ctx, const struct iom_report *m,
				 const struct iom_report_diff *d, size_t n);
	void (*provenance_end)(void *ctx, const struct iom_report *m,
			       const struct iom_report_diff *d, size_t n);
	void (*tail)(void *ctx, const struct iom_report *m);
	/* the disk's table (iom_report_walk_disk): its heading and header row, its end */
	void (*disk_begin)(void *ctx, const struct iom_report *m);
	void (*disk_end)(void *ctx, const struct iom_report *m);
};
/* Walks m's sections through v, as above. */
void iom_report_walk(const struct iom_report *m, const struct iom_report_visitor *v);
/* The disk's table, which a body places: a row (cell, compared value, what the disk did per
 * run) for each value whose runs know their disk, between v's disk_begin and disk_end; nothing
 * when no run wrote to a known disk. */
void iom_report_walk_disk(const struct iom_report *m, const struct iom_report_visitor *v);

/* Resolves o->run ("N" or "DIR:N") against the model: *src and *index. 0 or -EINVAL/-ENOENT. */
int iom_report_find_run(const struct iom_report *m, const char *spec, size_t *src,
			uint32_t *index, char *err, size_t errlen);

/* ---- runs of many hosts (docs/hosts.md): report_hosts.c ---- */

/* A run of many hosts as the report keeps it: its aggregate beside one row per host. */
struct iom_report_hrun {
	size_t src, cell, compared;
	uint32_t run;
	enum iom_run_status status;
	bool stonewalled;           /* the window ended when the first host's share was done */
	double iops, mb_s, lat_mean_ns, lat_p99_ns; /* the aggregate's (merged histogram) */
	double cpu_s;               /* user + system CPU seconds, summed over the hosts */
	char *target;               /* the run's target label (heap; NULL: unknown) */
	struct iom_host_row *rows;  /* heap, nrows, rank order */
	size_t nrows;
};
/* Frees what h owns. */
void iom_report_hrun_release(struct iom_report_hrun *h);

/* The columns of the per-host table. */
enum iom_report_hcol {
	IOM_HCOL_RUN, IOM_HCOL_CELL, IOM_HCOL_RANK, IOM_HCOL_HOST, IOM_HCOL_IOPS, IOM_HCOL_MB_S,
	IOM_HCOL_LAT_MEAN, IOM_HCOL_LAT_P99, IOM_HCOL_CPU, IOM_HCOL_FLAGS, IOM_NHCOL
};
/* Their titles ("run", "cell", "rank", "host", "IOPS", "MB/s", "lat avg", "lat p99", "CPU s",
 * "flags"); columns IOM_HCOL_IOPS to IOM_HCOL_CPU are numbers. */
extern const char *const iom_report_hcol_title[IOM_NHCOL];

/* One line of the per-host table: a run's aggregate (rank "all") or one host of it. */
struct iom_report_hline {
	char *col[IOM_NHCOL];       /* heap text; "" for nothing */
	bool aggregate;
	bool straggler;             /* a host more than 10 % below the hosts' median IOPS */
	size_t hrun;                /* index into m->hruns */
};
/*
 * The per-host table of m's runs of many hosts, at most max_runs of them (0: all): per run its
 * aggregate line, then a line per host with its figures and flags ("straggler",
 * "stonewalled", "failed: why"). *out heap (free with iom_report_hlines_free); the count.
 */
size_t iom_report_hlines(const struct iom_report *m, size_t max_runs,
			 struct iom_report_hline **out);
void iom_report_hlines_free(struct iom_report_hline *l, size_t n);
/* The sentence that explains the table's flags and CPU column. */
extern const char iom_report_hosts_legend[];

/* Provenance per host of one source: each rank's facts, and the facts that differ. */
struct iom_report_host_prov {
	char **line;                /* "rank 0 (vm1): kernel …; CPU …; target 'a': …" */
	size_t nline;
	char **differs;             /* "kernel differs: r0, r1: 6.18.44 …; r2: 6.1.0 …" */
	size_t ndiffers;
};
/* The provenance per host of source src from its runs of many hosts (nothing when it has
 * none): kernel, CPU model and each target's device of every rank (the first run that names
 * it), and the kernels, CPUs and devices that are not the same on every rank. Release p with
 * iom_report_host_prov_release(). */
void iom_report_host_prov(const struct iom_report *m, size_t src, struct iom_report_host_prov *p);
/* The same ranks' facts across m's sources (nothing with one source): per rank, the kernel,
 * CPU model and each target's device, driver and scheduler that differ between the studies
 * ("rank 2: kernel differs: A: 6.18 …; B: 6.1 …"), in p->differs; when none does and a rank
 * is in two of them, one line in p->line saying so. */
void iom_report_host_prov_across(const struct iom_report *m, struct iom_report_host_prov *p);
void iom_report_host_prov_release(struct iom_report_host_prov *p);

/* ---- the exports to other tools' formats (docs/interop.md): report_export.c ---- */

/*
 * A pool: the finished repetitions of one (cell, compared value), or one run, read back from
 * their run files and added up. Its histograms are the runs' kept ones merged (has_hist: every
 * run kept them; else percentiles are the mean of the runs' and bins are not had).
 */
struct iom_report_pool {
	size_t cell_index, compared;   /* in the model; SIZE_MAX: a run outside every cell */
	uint32_t first;                /* the first run's plan index */
	uint32_t *runs;                /* heap, nruns: the plan indices pooled */
	size_t nruns;
	struct iom_cell_pair *cell;    /* the first run's cell (heap, ncell) */
	size_t ncell;
	char *cell_text;               /* "target=a block_size=4096 …" (heap) */
	uint64_t start_wall_ns;        /* the first run's window start */
	bool has_hist, has_iv_lat;
	struct iom_hist hist[IOM_NDIR];
	uint64_t ios[IOM_NDIR], bytes[IOM_NDIR];
	uint64_t min_ns[IOM_NDIR], max_ns[IOM_NDIR];
	double pct_sum[IOM_NDIR][IOM_NPCT], mean_sum[IOM_NDIR]; /* for files without histograms */
	double secs;                   /* the windows' lengths added up */
	double user_s, sys_s;          /* the process's CPU seconds added up */
	double busy_pct;               /* the runs' busy_pct added up (divide by nruns) */
	struct iom_interval *iv;       /* every run's intervals, one after the other (heap) */
	size_t niv;
};
/* The pool of (cell, cv)'s finished repetitions, or of one run (src, run). 0 or -errno with err
 * (a run file that does not read back); release p in every case. */
int iom_report_pool_cell(const struct iom_report *m, size_t cell, size_t cv,
			 struct iom_report_pool *p, char *err, size_t errlen);
int iom_report_pool_run(const struct iom_report *m, size_t src, uint32_t run,
			struct iom_report_pool *p, char *err, size_t errlen);
void iom_report_pool_release(struct iom_report_pool *p);
/* The value of dimension name in the pool's cell, or NULL. */
const char *iom_report_pool_get(const struct iom_report_pool *p, const char *name);
/* Direction d's latency at pct (ns; from the merged buckets, or the mean of the runs' at one of
 * iom_percentiles[], NaN at any other), and its mean (exact, weighted by I/Os). */
double iom_report_pool_pct(const struct iom_report_pool *p, int d, double pct);
double iom_report_pool_mean(const struct iom_report_pool *p, int d);

/* fio's JSON and JSON+ output (report_fio.c): one job per pool (every cell and compared
 * value, or the run of --run). */
iom_report_writer iom_report_write_fio_json;
iom_report_writer iom_report_write_fio_jsonplus;
/* OpenMetrics text of a study (report_prom.c): per (cell, compared value) gauges and the
 * pooled latency histogram. */
iom_report_writer iom_report_write_openmetrics;
/* One run (--run) as DiskSpd's XML results (report_diskspd.c). */
iom_report_writer iom_report_write_diskspd_xml;

/* The schema of the JSON report (raised on incompatible change). */
#define IOM_REPORT_JSON_SCHEMA 2

/* The DiskSpd-style report of one run already read (s may be NULL). 0 or -EIO. */
int iom_report_print_run(FILE *out, const struct iom_study_info *s,
			 const struct iom_result_file *f);

/* ---- the HTML page's charts (report_charts.c) ---- */

/* One run of the time charts: its per-second intervals as IOPS (x seconds, y IOPS) and p50 and
 * p99 latency, read from its run file by iom_report_time_series. The caller frees x, y, p50,
 * p99 and name. */
struct iom_report_time_run {
	size_t src, compared;
	uint32_t run;
	double *x, *y;
	size_t n;
	char *name;
	double secs, iops;  /* the window's length and rate, for a run too short */
	double *p50, *p99;  /* each interval's latencies (NaN: none); NULL: the file has none */
	double max_ns;      /* the highest of its intervals' max */
};
/* Reads run t->run of source t->src into t's series. 0 or -errno with err. */
int iom_report_time_series(const struct iom_report *m, struct iom_report_time_run *t, char *err,
			   size_t errlen);
/* Every chart in the page's order: ATTO, IOMeter, load, the percentiles of cell, IOPS and
 * latency over time of runs (nr of them; title the time chart's). */
void iom_report_html_charts(FILE *out, const struct iom_report *m, size_t cell,
			    struct iom_report_time_run *runs, size_t nr, const char *title);
/* A note of the page: <p class="note">, the text escaped. */
void iom_report_html_note(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
