/* SPDX-License-Identifier: MIT */
/*
 * report — the public face of the report (report_model.h is its inside, which only the
 * report's own files and their tests include): the commands' entry points, the options they
 * pass, and for the judge of adaptive rounds (adapt.c) a model it opens and asks of one plan
 * cell. docs/reports.md is the user's description of the report.
 */
#ifndef IOM_REPORT_H
#define IOM_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct iom_plan;
/* The model of one or more results directories (report_model.h). */
struct iom_report;

enum iom_verdict_kind {
	IOM_VERDICT_NONE,       /* fewer than two compared values have a finished run */
	IOM_VERDICT_WIN,        /* adjusted p < alpha and margin > min_effect */
	IOM_VERDICT_SAME,       /* TOST (adjusted p < alpha): within ± min_effect of each other */
	IOM_VERDICT_UNDECIDED,  /* neither shown: more repetitions needed (settle says how many) */
	IOM_VERDICT_SINGLE_RUN, /* the best or the runner-up has one repetition: no test */
	IOM_NVERDICT
};
/* "none", "win", "same", "undecided", "single-run" (as the JSON and CSV reports write them). */
const char *iom_verdict_name(enum iom_verdict_kind k);

/* Options of `iomatrix report` that this module reads; zero-initialized means the defaults. */
struct iom_report_opts_cli {
	const char *compare;   /* the compared dimension; NULL: the studies' */
	int color;             /* 1 always, 0 never, -1 when out is a terminal (text only) */
	unsigned width;        /* columns to fit the text table in; 0: 100 */
	bool brief;            /* leave out the provenance lines (after a sweep) */
	const char *format;    /* NULL: text; else a name iom_report_format_find() takes */
	const char *alpha;     /* --alpha, --min-effect, --max-cv: NULL keeps the study's */
	const char *min_effect;
	const char *max_cv;
	const char *correction; /* --correction: "holm", "bh", "none"; NULL keeps the study's */
	const char *cell;      /* --cell: the cell of the HTML percentile and time charts */
	const char *run;       /* --run: "N" (first directory) or "DIR:N"; text: the DiskSpd
				* view of that run; html: the run of the IOPS-over-time chart */
	const char *output;    /* -o FILE: written whole or not at all instead of out; NULL: out */
	const char *baseline;  /* --baseline DIR: the study that is "before" (A), put first */
};

/*
 * `iomatrix report DIR [DIR…]`: loads the directories, applies the options and writes the
 * report in the format asked for to out (or to o->output). Returns 0, -EINVAL for a bad option
 * (unknown format, cell or run, out-of-range alpha …) or another -errno, with err; -EUCLEAN
 * when the report was written but runs are missing or damaged (m->damaged: the text report
 * names each, err the first and how many).
 */
int iom_report_main(FILE *out, const char *const *dirs, size_t ndirs,
		    const struct iom_report_opts_cli *o, char *err, size_t errlen);

/* `iomatrix report DIR`: the text report of one directory. 0 or -errno with err. */
int iom_report_dir(FILE *out, const char *dir, const struct iom_report_opts_cli *o, char *err,
		   size_t errlen);

/* The winners table right after a sweep into DIR: as iom_report_dir(), without provenance. */
int iom_report_after_sweep(FILE *out, const char *dir, char *err, size_t errlen);

/* `iomatrix report DIR --run N`: the DiskSpd-style report of run N. 0 or -errno with err. */
int iom_report_run(FILE *out, const char *dir, uint32_t index,
		   const struct iom_report_opts_cli *o, char *err, size_t errlen);

/* fio-plot's name of a traced run's logs: "DIR/randrw-iodepth-4-numjobs-2", from the run file
 * beside the trace (DIR/../runs/NNNNN.json for DIR/traces/NNNNN.trace.gz; dir: where the logs
 * go, NULL: "."). The caller frees it; NULL with err when the run file does not read. */
char *iom_report_fio_plot_prefix(const char *trace, const char *dir, char *err, size_t errlen);

/* The model of dir's runs (compare: the compared dimension, NULL: the study's) into *out (heap:
 * iom_report_free, also NULL). 0 or -errno with err. */
int iom_report_open(const char *dir, const char *compare, struct iom_report **out, char *err,
		    size_t errlen);
void iom_report_free(struct iom_report *m);

/* What the report says of plan cell pc (of p, whose runs m holds from its first directory):
 * its IOPS over its repetitions, and its report cell's IOPS verdict. */
struct iom_report_judgement {
	bool found;                 /* a finished repetition of pc is in m */
	size_t n;                   /* its compared value's repetitions */
	double mean, ci95;          /* their IOPS: mean, 95 % half-width */
	enum iom_verdict_kind kind; /* the IOPS verdict of its report cell */
};
void iom_report_judge(const struct iom_report *m, const struct iom_plan *p, uint32_t pc,
		      struct iom_report_judgement *j);

#endif
