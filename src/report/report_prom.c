/* SPDX-License-Identifier: MIT */
/*
 * report_prom — a study as OpenMetrics text (`report --format openmetrics`), for dashboards
 * and Prometheus' tools. Part of the report module (report.h); docs/interop.md.
 *
 * Per (cell, compared value): gauges of the figures the winners table shows (IOPS, bytes per
 * second, mean and p99 latency in seconds, system CPU seconds per I/O, repetitions), each
 * labelled with the study, the compared value (under the compared dimension's name) and every
 * other dimension; and the latency of all its I/O as a histogram — its repetitions' kept
 * histograms merged — in _bucket series with cumulative counts, _sum and _count. The bucket
 * bounds are the same for every series of the file: every 16th bound of iomatrix's log-linear
 * layout (8 per power of two, so each `le` is a bucket boundary and its count exact, not
 * interpolated), from the lowest to the highest bucket any series has, then +Inf. Runs without
 * kept histograms give their gauges and no histogram.
 */
#include "report_model.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "live.h"
#include "strbuf.h"
#include "util.h"

/* Every 16th bucket's lower bound is an `le` (its bucket's start, less a nanosecond, ends the
 * range below it). */
#define LE_STEP 16

static void labels(struct iom_strbuf *b, const struct iom_report *m, size_t c, size_t v,
		   const char *le)
{
	iom_strbuf_str(b, "{");
	iom_prom_label(b, "study", m->src[0].study.name ? m->src[0].study.name : m->src[0].name);
	iom_strbuf_str(b, ",");
	iom_prom_label(b, m->compare, m->compared[v]);
	for (size_t d = 0; d < m->ndims; d++) {
		iom_strbuf_str(b, ",");
		iom_prom_label(b, m->dims[d], m->cells[c].value[d]);
	}
	if (le) {
		iom_strbuf_str(b, ",");
		iom_prom_label(b, "le", le);
	}
	iom_strbuf_str(b, "}");
}

static const struct {
	const char *name, *help;
	int metric;          /* enum iom_metric, or -1: repetitions */
	double scale;        /* to base units */
} gauges[] = {
	{ "iomatrix_iops", "I/Os per second, mean over the repetitions", IOM_METRIC_IOPS, 1 },
	{ "iomatrix_throughput_bytes_per_second", "bytes per second, mean over the repetitions",
	  IOM_METRIC_MB_S, 1e6 },
	{ "iomatrix_latency_mean_seconds", "mean latency of all I/O, mean over the repetitions",
	  IOM_METRIC_LAT_MEAN, 1e-9 },
	{ "iomatrix_latency_p99_seconds", "99th-percentile latency of all I/O, pooled over the "
	  "repetitions' histograms", IOM_METRIC_LAT_P99, 1e-9 },
	{ "iomatrix_cpu_seconds_per_io", "system CPU seconds per I/O, mean over the repetitions",
	  IOM_METRIC_CPU_PER_IO, 1e-6 },
	{ "iomatrix_repetitions", "finished repetitions the figures are of", -1, 1 },
};

int iom_report_write_openmetrics(FILE *out, const struct iom_report *m,
				 const struct iom_report_opts_cli *o, char *err, size_t errlen)
{
	struct iom_strbuf b = { 0 };
	unsigned lo = IOM_HIST_BUCKETS, hi = 0;

	(void)o;
	for (size_t g = 0; g < IOM_ARRAY_SIZE(gauges); g++) {
		iom_prom_family(&b, gauges[g].name, "gauge", gauges[g].help);
		for (size_t c = 0; c < m->ncells; c++)
			for (size_t v = 0; v < m->ncompared; v++) {
				const struct iom_report_reps *r = &m->cells[c].by[v];

				if (!r->n)
					continue;
				iom_strbuf_str(&b, gauges[g].name);
				labels(&b, m, c, v, NULL);
				iom_strbuf_str(&b, " ");
				iom_prom_value(&b, gauges[g].metric < 0 ? (double)r->n :
					       iom_report_mean(r, (enum iom_metric)gauges[g].metric) *
					       gauges[g].scale);
				iom_strbuf_str(&b, "\n");
			}
	}
	/* one set of bounds for every histogram: the range of all of them */
	for (size_t c = 0; c < m->ncells; c++)
		for (size_t v = 0; v < m->ncompared; v++) {
			const struct iom_hist_sparse *s = &m->cells[c].by[v].pooled;

			if (!iom_report_pooled(&m->cells[c].by[v]) || !s->nbins)
				continue;
			lo = IOM_MIN(lo, s->bins[0].b);
			hi = IOM_MAX(hi, s->bins[s->nbins - 1].b);
		}
	iom_prom_family(&b, "iomatrix_latency_seconds", "histogram",
			"latency of all I/O (service time), the repetitions' histograms merged");
	for (size_t c = 0; lo <= hi && c < m->ncells; c++)
		for (size_t v = 0; v < m->ncompared; v++) {
			const struct iom_report_reps *r = &m->cells[c].by[v];
			const struct iom_hist_sparse *s = &r->pooled;
			uint64_t cum = 0;
			uint32_t k = 0;

			if (!iom_report_pooled(r))
				continue;
			/* le = the first bound of bucket e (from lo rounded down, every LE_STEP)
			 * less 1 ns, in seconds: the counts of the buckets below e */
			for (unsigned e = lo / LE_STEP * LE_STEP + LE_STEP; e <= hi + LE_STEP;
			     e += LE_STEP) {
				uint64_t blo, bhi;
				char le[48];

				while (k < s->nbins && s->bins[k].b < e)
					cum += s->bins[k++].n;
				iom_hist_bucket_range(IOM_MIN(e, IOM_HIST_BUCKETS - 1), &blo, &bhi);
				if (e >= IOM_HIST_BUCKETS)
					break;
				snprintf(le, sizeof(le), "%.15g", (double)(blo - 1) / 1e9);
				iom_strbuf_str(&b, "iomatrix_latency_seconds_bucket");
				labels(&b, m, c, v, le);
				iom_strbuf_printf(&b, " %" PRIu64 "\n", cum);
			}
			iom_strbuf_str(&b, "iomatrix_latency_seconds_bucket");
			labels(&b, m, c, v, "+Inf");
			iom_strbuf_printf(&b, " %" PRIu64 "\n", s->count);
			iom_strbuf_str(&b, "iomatrix_latency_seconds_sum");
			labels(&b, m, c, v, NULL);
			iom_strbuf_str(&b, " ");
			iom_prom_value(&b, (double)((long double)s->sum / 1e9L));
			iom_strbuf_str(&b, "\niomatrix_latency_seconds_count");
			labels(&b, m, c, v, NULL);
			iom_strbuf_printf(&b, " %" PRIu64 "\n", s->count);
		}
	iom_strbuf_str(&b, "# EOF\n");
	fputs(iom_strbuf_get(&b), out);
	free(b.s);
	return iom_report_out_status(out, err, errlen);
}
