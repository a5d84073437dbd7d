/* SPDX-License-Identifier: MIT */
/*
 * live — what a running sweep shows other programs as it goes (docs/interop.md): a metrics
 * file in Prometheus' text format, rewritten whole (temporary, rename) after every 1-second
 * interval, for node_exporter's textfile collector (`run --metrics FILE`); and a stream of the
 * intervals, one line each as it ends, for scripts (`run --live FILE`: JSON lines, or CSV when
 * FILE ends in ".csv"). Both are written on the run's controller thread once a second, never
 * from the I/O path. The Prometheus text helpers (label escaping, numbers) are here too, for
 * the report's OpenMetrics writer.
 */
#ifndef IOM_LIVE_H
#define IOM_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "result/result.h"
#include "strbuf.h"

/* One label: name="value", value escaped as the text format asks (\\, \", \n). */
void iom_prom_label(struct iom_strbuf *b, const char *name, const char *value);
/* A sample value: an integer as itself, else 9 significant digits; NaN and infinities as the
 * format spells them. */
void iom_prom_value(struct iom_strbuf *b, double v);
/* The "# HELP" and "# TYPE" lines of a metric family. */
void iom_prom_family(struct iom_strbuf *b, const char *name, const char *type, const char *help);
/* A label name from a dimension's name: [a-zA-Z0-9_] kept, anything else '_'. */
void iom_prom_name(struct iom_strbuf *b, const char *name);

/* The live files of one sweep (the caller's storage). */
struct iom_live {
	char *metrics;            /* the metrics file's path (heap), or NULL */
	FILE *stream;             /* the interval stream, or NULL */
	bool csv;                 /* the stream is CSV (else JSON lines) */
	char *study;              /* the study's name (heap) */
	size_t nruns, done;       /* the plan's runs, and those finished so far */
	/* the run going on */
	uint32_t run, repetition;
	char *cell;               /* its words (heap) */
	struct iom_cell_pair *labels; /* its dimensions, as labels (heap) */
	size_t nlabels;
	uint64_t ios;             /* counted so far */
	double secs;
	struct iom_interval last; /* the last interval, and its index */
	size_t last_k;
	bool have_last;
};

/*
 * Opens the live files (metrics and stream: paths, either NULL) for a study of nruns runs:
 * the stream created anew (its CSV header written), the metrics file written once (no run yet).
 * 0 or -errno with err; release with iom_live_close() in every case.
 */
int iom_live_open(struct iom_live *l, const char *metrics, const char *stream, const char *study,
		  size_t nruns, char *err, size_t errlen);
/* A run begins: its plan index, repetition, cell words and dimensions (name=value pairs). */
void iom_live_run_begin(struct iom_live *l, uint32_t run, uint32_t repetition, const char *cell,
			const struct iom_cell_pair *dims, size_t ndims);
/* An interval of the current run ended (run.h's on_interval): a line on the stream, the
 * metrics file rewritten. A write that fails is given up quietly (the study goes on); the
 * return says so (0 or -errno). */
int iom_live_interval(struct iom_live *l, const struct iom_interval *iv, size_t k);
/* The current run ended; the metrics file says how many have. */
void iom_live_run_end(struct iom_live *l);
void iom_live_close(struct iom_live *l);

#endif
