/* SPDX-License-Identifier: MIT */
/*
 * trace_export — a trace as CSV or as fio's logs (latency, bandwidth and IOPS per thread, and
 * fio-plot's per-second rate logs), read through trace.h's reader.
 */
#include "trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ownfile.h"
#include "util.h"

int iom_trace_format_parse(const char *name)
{
	if (strcmp(name, "csv") == 0)
		return IOM_TRACE_CSV;
	if (strcmp(name, "fio") == 0)
		return IOM_TRACE_FIO;
	if (strcmp(name, "fio-plot") == 0)
		return IOM_TRACE_FIO_PLOT;
	return -1;
}

/* The input's file name without ".trace.gz" (or ".gz"), in the current directory. */
static char *default_prefix(const char *in)
{
	const char *base = strrchr(in, '/') ? strrchr(in, '/') + 1 : in;
	size_t n = strlen(base), ls = strlen(IOM_TRACE_SUFFIX);

	if (n > ls && strcmp(base + n - ls, IOM_TRACE_SUFFIX) == 0)
		return xasprintf("%.*s", (int)(n - ls), base);
	if (n > 3 && strcmp(base + n - 3, ".gz") == 0)
		return xasprintf("%.*s", (int)(n - 3), base);
	return xstrdup(base);
}

static int close_out(FILE *f, const char *name, bool is_stdout, char *err, size_t errlen)
{
	int bad = ferror(f);

	if (is_stdout)
		bad |= fflush(f) != 0;
	else
		bad |= fclose(f) != 0;
	if (bad)
		return iom_err(err, errlen, EIO, "cannot write '%s'", name);
	return 0;
}

/* fio-plot's rate logs of one thread: what completed in each second, by direction. */
struct rate_log {
	FILE *bw, *iops;
	int64_t sec;              /* the second being counted (of completion times) */
	uint64_t ios[2], bytes[2];
};

/* Writes the second being counted of l (its end in ms, each direction that did I/O) and
 * starts second `next`. */
static void rate_flush(struct rate_log *l, int64_t next)
{
	for (unsigned d = 0; d < 2; d++) {
		if (!l->ios[d])
			continue;
		fprintf(l->bw, "%lld, %llu, %u, 0, 0, 0\n", (long long)(l->sec + 1) * 1000,
			(unsigned long long)(l->bytes[d] / 1024), d);
		fprintf(l->iops, "%lld, %llu, %u, 0, 0, 0\n", (long long)(l->sec + 1) * 1000,
			(unsigned long long)l->ios[d], d);
		l->ios[d] = l->bytes[d] = 0;
	}
	l->sec = next;
}

/* Opens thread t's bw and iops logs under prefix (through ownfile: created anew). */
static int rate_open(struct rate_log *l, const char *prefix, unsigned t, char *err, size_t errlen)
{
	char *bw = xasprintf("%s_bw.%u.log", prefix, t + 1);
	char *io = xasprintf("%s_iops.%u.log", prefix, t + 1);

	l->bw = iom_own_fopen(NULL, bw, "w", err, errlen);
	l->iops = l->bw ? iom_own_fopen(NULL, io, "w", err, errlen) : NULL;
	free(bw);
	free(io);
	return l->bw && l->iops ? 0 : -EIO;
}

static int rate_close(struct rate_log *l, char *err, size_t errlen)
{
	int bad = 0;

	if (l->bw) {
		rate_flush(l, 0);
		bad |= ferror(l->bw) | (fclose(l->bw) != 0);
	}
	if (l->iops)
		bad |= ferror(l->iops) | (fclose(l->iops) != 0);
	l->bw = l->iops = NULL;
	return bad ? iom_err(err, errlen, EIO, "cannot write fio-plot's bw and iops logs") : 0;
}

int iom_trace_export(const char *in, const struct iom_trace_export *x, uint64_t *nrecords,
		     char *err, size_t errlen)
{
	struct rate_log *rates = NULL;
	struct iom_trace_reader *r;
	const struct iom_trace_header *h;
	struct iom_trace_rec rec;
	bool to_stdout = x->format == IOM_TRACE_CSV && (!x->out || strcmp(x->out, "-") == 0);
	static const char *const fio_logs[] = { "lat", "clat", "resp" };
	FILE *csv = NULL, **fio = NULL;
	unsigned nlogs = 1;
	char *prefix = NULL, rerr[IOM_ERRLEN] = "";
	uint64_t n = 0;
	int ret, rret, cret = 0;

	if (nrecords)
		*nrecords = 0;
	ret = iom_trace_reader_open(in, &r, err, errlen);
	if (ret < 0)
		return ret;
	h = iom_trace_reader_header(r);
	if (x->measured_only && !(h->flags & IOM_TRACE_HAS_PHASES)) {
		ret = iom_err(err, errlen, EINVAL,
			      "'%s' does not mark the measured window (its run did not record phases)",
			      in);
		goto out;
	}
	if (x->format == IOM_TRACE_CSV) {
		csv = to_stdout ? stdout : iom_own_fopen(NULL, x->out, "w", err, errlen);
		if (!csv) {
			ret = -EPERM;
			goto out;
		}
		fputs(h->flags & IOM_TRACE_HAS_LAG ? "time_ns,latency_ns,op,offset,bytes,thread,due_ns,"
						     "response_ns\n"
						   : "time_ns,latency_ns,op,offset,bytes,thread\n", csv);
	} else {
		prefix = x->out ? xstrdup(x->out) : default_prefix(in);
		nlogs = h->flags & IOM_TRACE_HAS_LAG ? 3 : 1;
		fio = xcalloc((size_t)h->nthreads * nlogs, sizeof(*fio));
		if (x->format == IOM_TRACE_FIO_PLOT)
			rates = xcalloc(h->nthreads ? h->nthreads : 1, sizeof(*rates));
	}
	while ((rret = iom_trace_reader_next(r, &rec, rerr, sizeof(rerr))) > 0) {
		if (x->measured_only && rec.phase != IOM_TRACE_PHASE_MEASURED)
			continue;
		if (csv) {
			fprintf(csv, "%lld,%llu,%s,%llu,%u,%u", (long long)rec.time_ns,
				(unsigned long long)rec.latency_ns,
				rec.op == IOM_OP_WRITE ? "write" : "read",
				(unsigned long long)rec.offset, rec.bytes, rec.thread);
			if (h->flags & IOM_TRACE_HAS_LAG)
				fprintf(csv, ",%lld,%llu", (long long)rec.time_ns - (long long)rec.lag_ns,
					(unsigned long long)(rec.lag_ns + rec.latency_ns));
			fputc('\n', csv);
		} else {
			int64_t done = rec.time_ns + (int64_t)rec.latency_ns;

			if (rates && rec.thread < h->nthreads) {
				struct rate_log *l = &rates[rec.thread];
				int64_t sec = done > 0 ? done / 1000000000 : 0;

				if (!l->bw && (ret = rate_open(l, prefix, rec.thread, err,
							       errlen)) < 0)
					goto out;
				if (sec > l->sec)
					rate_flush(l, sec);
				l->ios[rec.op == IOM_OP_WRITE] += 1;
				l->bytes[rec.op == IOM_OP_WRITE] += rec.bytes;
			}
			for (unsigned k = 0; k < nlogs; k++) {
				FILE **f = &fio[k * h->nthreads + rec.thread];

				if (!*f) {
					char *name = xasprintf("%s_%s.%u.log", prefix, fio_logs[k],
							       rec.thread + 1);

					*f = iom_own_fopen(NULL, name, "w", err, errlen);
					if (!*f) {
						ret = -EPERM;
						free(name);
						goto out;
					}
					free(name);
				}
				/* _lat and _clat: service time; _resp: response time */
				fprintf(*f, "%llu, %llu, %u, %u, %llu, 0\n",
					(unsigned long long)(done > 0 ? done / 1000000 : 0),
					(unsigned long long)(rec.latency_ns +
							     (k == 2 ? rec.lag_ns : 0)),
					(unsigned)rec.op, rec.bytes,
					(unsigned long long)rec.offset);
			}
		}
		n++;
	}
	ret = rret < 0 ? iom_err(err, errlen, -rret, "%s", rerr) : 0;
out:
	if (csv && (cret = close_out(csv, to_stdout ? "standard output" : x->out, to_stdout,
				     rerr, sizeof(rerr))) < 0 && ret == 0)
		ret = iom_err(err, errlen, -cret, "%s", rerr);
	if (fio) {
		for (unsigned i = 0; i < h->nthreads * nlogs; i++) {
			char *name;

			if (!fio[i])
				continue;
			name = xasprintf("%s_%s.%u.log", prefix, fio_logs[i / h->nthreads],
					 i % h->nthreads + 1);
			cret = close_out(fio[i], name, false, rerr, sizeof(rerr));
			if (cret < 0 && ret == 0)
				ret = iom_err(err, errlen, -cret, "%s", rerr);
			free(name);
		}
		free(fio);
	}
	for (unsigned t = 0; rates && t < h->nthreads; t++)
		if ((cret = rate_close(&rates[t], rerr, sizeof(rerr))) < 0 && ret == 0)
			ret = iom_err(err, errlen, -cret, "%s", rerr);
	free(rates);
	free(prefix);
	iom_trace_reader_free(r);
	if (nrecords)
		*nrecords = n;
	return ret;
}
