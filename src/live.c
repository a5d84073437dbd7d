/* SPDX-License-Identifier: MIT */
/*
 * live — the live metrics file and interval stream of a running sweep (design in live.h).
 *
 * The metrics file is made whole in memory and written through ownfile's atomic write
 * (temporary beside it, fsync, rename), so node_exporter's textfile collector never reads half
 * of it. It holds the study's progress (runs planned and finished) and the last interval of the
 * run going on: its IOPS, MB/s and latencies (p50, p99, max), labelled with the run, its
 * repetition and its cell's dimensions. The stream gets one line per interval, flushed as it
 * is written.
 */
#include "live.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "ownfile.h"
#include "util.h"

void iom_prom_label(struct iom_strbuf *b, const char *name, const char *value)
{
	iom_prom_name(b, name);
	iom_strbuf_str(b, "=\"");
	for (const char *s = value ? value : ""; *s; s++) {
		if (*s == '\\' || *s == '"')
			iom_strbuf_printf(b, "\\%c", *s);
		else if (*s == '\n')
			iom_strbuf_str(b, "\\n");
		else
			iom_strbuf_add(b, s, 1);
	}
	iom_strbuf_str(b, "\"");
}

void iom_prom_value(struct iom_strbuf *b, double v)
{
	if (isnan(v))
		iom_strbuf_str(b, "NaN");
	else if (isinf(v))
		iom_strbuf_str(b, v > 0 ? "+Inf" : "-Inf");
	else if (v == floor(v) && fabs(v) < 9e15)
		iom_strbuf_printf(b, "%.0f", v);
	else
		iom_strbuf_printf(b, "%.9g", v);
}

void iom_prom_family(struct iom_strbuf *b, const char *name, const char *type, const char *help)
{
	iom_strbuf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void iom_prom_name(struct iom_strbuf *b, const char *name)
{
	if (!*name || (*name >= '0' && *name <= '9'))
		iom_strbuf_str(b, "_");
	for (const char *s = name; *s; s++) {
		char c = *s;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');

		iom_strbuf_add(b, ok ? s : "_", 1);
	}
}

/* The labels of the current run: study, run, repetition, then its dimensions. */
static void run_labels(struct iom_strbuf *b, const struct iom_live *l)
{
	char n[32];

	iom_strbuf_str(b, "{");
	iom_prom_label(b, "study", l->study);
	snprintf(n, sizeof(n), "%" PRIu32, l->run);
	iom_strbuf_str(b, ",");
	iom_prom_label(b, "run", n);
	snprintf(n, sizeof(n), "%" PRIu32, l->repetition);
	iom_strbuf_str(b, ",");
	iom_prom_label(b, "repetition", n);
	for (size_t i = 0; i < l->nlabels; i++) {
		iom_strbuf_str(b, ",");
		iom_prom_label(b, l->labels[i].name, l->labels[i].value);
	}
	iom_strbuf_str(b, "}");
}

static void gauge(struct iom_strbuf *b, const struct iom_live *l, const char *name,
		  const char *help, double v, bool labelled)
{
	iom_prom_family(b, name, "gauge", help);
	iom_strbuf_str(b, name);
	if (labelled) {
		run_labels(b, l);
	} else {
		iom_strbuf_str(b, "{");
		iom_prom_label(b, "study", l->study);
		iom_strbuf_str(b, "}");
	}
	iom_strbuf_str(b, " ");
	iom_prom_value(b, v);
	iom_strbuf_str(b, "\n");
}

static int write_metrics(struct iom_live *l, char *err, size_t errlen)
{
	struct iom_strbuf b = { 0 };
	int ret;

	if (!l->metrics)
		return 0;
	gauge(&b, l, "iomatrix_runs_planned", "runs in the study's plan", (double)l->nruns, false);
	gauge(&b, l, "iomatrix_runs_finished", "runs finished so far", (double)l->done, false);
	if (l->have_last) {
		const struct iom_interval *iv = &l->last;
		double secs = iom_interval_secs(iv);

		gauge(&b, l, "iomatrix_interval", "the index of the last 1-second interval (from 0)",
		      (double)l->last_k, true);
		gauge(&b, l, "iomatrix_interval_iops", "I/Os per second in the last interval",
		      (double)(iv->ios[0] + iv->ios[1]) / secs, true);
		gauge(&b, l, "iomatrix_interval_read_iops", "reads per second in the last interval",
		      (double)iv->ios[0] / secs, true);
		gauge(&b, l, "iomatrix_interval_write_iops", "writes per second in the last interval",
		      (double)iv->ios[1] / secs, true);
		gauge(&b, l, "iomatrix_interval_throughput_bytes_per_second",
		      "bytes per second in the last interval",
		      (double)(iv->bytes[0] + iv->bytes[1]) / secs, true);
		gauge(&b, l, "iomatrix_interval_latency_p50_seconds",
		      "median latency of the last interval's I/O", (double)iv->p50_ns / 1e9, true);
		gauge(&b, l, "iomatrix_interval_latency_p99_seconds",
		      "99th-percentile latency of the last interval's I/O", (double)iv->p99_ns / 1e9,
		      true);
		gauge(&b, l, "iomatrix_interval_latency_max_seconds",
		      "longest latency of the last interval's I/O", (double)iv->max_ns / 1e9, true);
		gauge(&b, l, "iomatrix_run_ios", "I/Os the run has counted so far", (double)l->ios,
		      true);
		gauge(&b, l, "iomatrix_run_seconds", "seconds of the run's measured window so far",
		      l->secs, true);
	}
	iom_strbuf_str(&b, "# EOF\n");
	ret = iom_own_write_atomic(NULL, l->metrics, b.s, b.len, err, errlen);
	free(b.s);
	return ret;
}

int iom_live_open(struct iom_live *l, const char *metrics, const char *stream, const char *study,
		  size_t nruns, char *err, size_t errlen)
{
	memset(l, 0, sizeof(*l));
	l->study = xstrdup(study ? study : "");
	l->nruns = nruns;
	if (stream) {
		size_t n = strlen(stream);

		l->csv = n >= 4 && strcmp(stream + n - 4, ".csv") == 0;
		l->stream = iom_own_fopen(NULL, stream, "w", err, errlen);
		if (!l->stream)
			return -EIO;
		if (l->csv)
			fputs("run,repetition,cell,interval,end_s,seconds,read_ios,write_ios,"
			      "read_bytes,write_bytes,iops,mb_s,p50_ns,p99_ns,max_ns\n", l->stream);
		if (fflush(l->stream) != 0)
			return iom_err(err, errlen, errno, "cannot write '%s': %s", stream,
				       strerror(errno));
	}
	if (metrics) {
		l->metrics = xstrdup(metrics);
		return write_metrics(l, err, errlen);
	}
	return 0;
}

void iom_live_run_begin(struct iom_live *l, uint32_t run, uint32_t repetition, const char *cell,
			const struct iom_cell_pair *dims, size_t ndims)
{
	for (size_t i = 0; i < l->nlabels; i++) {
		free(l->labels[i].name);
		free(l->labels[i].value);
	}
	free(l->labels);
	free(l->cell);
	l->run = run;
	l->repetition = repetition;
	l->cell = xstrdup(cell ? cell : "");
	l->labels = xcalloc(ndims + 1, sizeof(*l->labels));
	for (size_t i = 0; i < ndims; i++) {
		l->labels[i].name = xstrdup(dims[i].name);
		l->labels[i].value = xstrdup(dims[i].value);
	}
	l->nlabels = ndims;
	l->ios = 0;
	l->secs = 0;
	l->have_last = false;
}

/* A JSON string: the cell's words (printable text; quotes, backslashes and controls escaped). */
static void json_text(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

int iom_live_interval(struct iom_live *l, const struct iom_interval *iv, size_t k)
{
	double secs = iom_interval_secs(iv);
	uint64_t ios = iv->ios[0] + iv->ios[1], bytes = iv->bytes[0] + iv->bytes[1];
	char err[IOM_ERRLEN];
	int ret = 0;

	l->ios += ios;
	l->secs += secs;
	l->last = *iv;
	l->last_k = k;
	l->have_last = true;
	if (l->stream) {
		FILE *f = l->stream;

		if (l->csv) {
			iom_csv_uint(f, l->run, true);
			iom_csv_uint(f, l->repetition, false);
			iom_csv_field(f, l->cell, false);
			iom_csv_uint(f, k, false);
			iom_csv_num(f, l->secs);
			iom_csv_num(f, secs);
			for (int d = 0; d < 2; d++)
				iom_csv_uint(f, iv->ios[d], false);
			for (int d = 0; d < 2; d++)
				iom_csv_uint(f, iv->bytes[d], false);
			iom_csv_num(f, (double)ios / secs);
			iom_csv_num(f, (double)bytes / secs / 1e6);
			iom_csv_uint(f, iv->p50_ns, false);
			iom_csv_uint(f, iv->p99_ns, false);
			iom_csv_uint(f, iv->max_ns, false);
			iom_csv_end(f);
		} else {
			fprintf(f, "{\"run\": %" PRIu32 ", \"repetition\": %" PRIu32 ", \"cell\": ",
				l->run, l->repetition);
			json_text(f, l->cell);
			fprintf(f, ", \"interval\": %zu, \"end_s\": %.6f, \"seconds\": %.6f, "
				"\"read_ios\": %" PRIu64 ", \"write_ios\": %" PRIu64 ", "
				"\"read_bytes\": %" PRIu64 ", \"write_bytes\": %" PRIu64 ", "
				"\"iops\": %.3f, \"mb_s\": %.6f, \"p50_ns\": %" PRIu64 ", "
				"\"p99_ns\": %" PRIu64 ", \"max_ns\": %" PRIu64 "}\n", k, l->secs, secs,
				iv->ios[0], iv->ios[1], iv->bytes[0], iv->bytes[1],
				(double)ios / secs, (double)bytes / secs / 1e6, iv->p50_ns, iv->p99_ns,
				iv->max_ns);
		}
		if (fflush(f) != 0)
			ret = -EIO;
	}
	if (write_metrics(l, err, sizeof(err)) < 0)
		ret = -EIO;
	return ret;
}

void iom_live_run_end(struct iom_live *l)
{
	char err[IOM_ERRLEN];

	l->done++;
	(void)write_metrics(l, err, sizeof(err));
}

void iom_live_close(struct iom_live *l)
{
	if (l->stream)
		fclose(l->stream);
	iom_live_run_begin(l, 0, 0, NULL, NULL, 0);
	free(l->labels);
	free(l->cell);
	free(l->metrics);
	free(l->study);
	memset(l, 0, sizeof(*l));
}
