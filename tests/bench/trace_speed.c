/* SPDX-License-Identifier: MIT */
/*
 * trace_speed — what a per-I/O trace costs, without an engine: one producer thread hands
 * records to a trace as the closed loop hands its completions (batches of 32: one submit stamp
 * and one completion stamp per batch, random 4 KiB offsets in 64 MiB, all reads), as fast as it
 * can or at the rate given, for the seconds given; then the trace is closed. Prints the records
 * offered per second, those written and dropped, and the CPU in ns per record written of the
 * writer thread (the process's CPU less the producer's, so the final drain and the close are
 * in) and of the producer (its thread CPU per record offered). With "off" the producer makes
 * the same records and hands them to nobody: its ns per record then is the loop's own, and the
 * difference to a run with the trace is what a record costs the producer. WORK draws WORK more
 * random numbers per record, an engine's work: the producer then runs at an engine's rate
 * without waiting, where RATE spins until each batch is due (its CPU is then the spin's).
 *
 * With "drain" the writer works alone: a paused trace with a ring of 2^18 records (8 MiB) is
 * filled, then resumed and closed, SECONDS times over, and the writer's ns per record (the
 * process's CPU from the resume to the end of the close) is the median of those drains: the
 * encoding and compression without the producer beside it, for comparing two builds of the
 * writer.
 *
 *   trace_speed SECONDS [RATE|0] [on|off|drain] [WORK] [DIR]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine.h"
#include "rng.h"
#include "stats.h"
#include "trace/trace.h"
#include "util.h"

#define QD 32u
#define BLOCKS ((64u << 20) / 4096u)

/* where "off" puts what it would have handed the trace, so that the compiler keeps the work */
static volatile uint64_t sink_out;

static uint64_t cpu_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Fills a batch as the closed loop would: random offsets, one submit and one completion stamp. */
static void fill(struct iom_io *const *ios, struct iom_rng *rng, uint64_t sub, uint64_t cpl)
{
	for (unsigned i = 0; i < QD; i++) {
		ios[i]->offset = iom_rng_below(rng, BLOCKS) * 4096u;
		ios[i]->submit_ns = sub;
		ios[i]->complete_ns = cpl;
	}
}

/* Opens a one-thread trace at path whose records count from start; ring 0 is the default. */
static struct iom_trace *open_trace(const char *path, uint64_t start, unsigned ring,
				    unsigned flags)
{
	struct iom_trace_info info = {
		.run_index = 1, .cell = "trace_speed", .start_wall_ns = iom_wall_ns(),
		.start_mono_ns = start, .nthreads = 1, .ring_records = ring, .phases = true,
		.flags = flags,
	};
	struct iom_trace *t;
	char err[IOM_ERRLEN];

	if (iom_trace_open(path, &info, &t, err, sizeof(err)) < 0) {
		fprintf(stderr, "trace_speed: %s\n", err);
		return NULL;
	}
	return t;
}

static int drain_runs(unsigned runs, const char *path, struct iom_io *const *ios,
		      struct iom_rng *rng)
{
	const unsigned ring = 1u << 18;
	double *ns = xcalloc(runs ? runs : 1, sizeof(*ns));
	struct iom_stats_summary sum;
	char err[IOM_ERRLEN];

	for (unsigned k = 0; k < runs; k++) {
		uint64_t start = iom_now_ns(), now = start, p0;
		struct iom_trace *t = open_trace(path, start, ring, IOM_TRACE_PAUSED);
		struct iom_trace_stats st;

		if (!t)
			return 1;
		/* batches of 32, 20 µs apart, each completed 10 µs after its submit stamp */
		for (unsigned b = 0; b < ring / QD; b++, now += 20000)
			fill(ios, rng, now, now + 10000), iom_trace_record_batch(t, 0, ios, QD);
		p0 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
		iom_trace_resume(t);
		if (iom_trace_close(t, &st, err, sizeof(err)) < 0) {
			fprintf(stderr, "trace_speed: %s\n", err);
			return 1;
		}
		ns[k] = (double)(cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - p0) / (double)st.records;
		unlink(path);
		if (k + 1 == runs)
			printf("drain: %u records %u times, bytes/IO %.2f, ", ring, runs,
			       st.bytes_per_io);
	}
	iom_stats_summarize(ns, runs, &sum);
	printf("writer %.2f ns/rec (min %.2f, max %.2f)\n", sum.median, sum.min, sum.max);
	free(ns);
	return 0;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, rate = argc > 2 ? atof(argv[2]) : 0;
	bool off = argc > 3 && strcmp(argv[3], "off") == 0;
	bool drain = argc > 3 && strcmp(argv[3], "drain") == 0;
	unsigned work = argc > 4 ? (unsigned)atoi(argv[4]) : 0;
	const char *dir = argc > 5 ? argv[5] : "/tmp";
	struct iom_io io[QD], *ios[QD];
	struct iom_trace_stats st = { 0 };
	struct iom_trace *t = NULL;
	char err[IOM_ERRLEN], *path = xasprintf("%s/trace_speed.%d%s", dir, (int)getpid(),
						IOM_TRACE_SUFFIX);
	struct iom_rng rng;
	uint64_t start = iom_now_ns(), end = start + (uint64_t)(secs * 1e9), now = start;
	uint64_t offered = 0, sink = 0, p0, c0, p1, c1, wall;

	memset(io, 0, sizeof(io));
	for (unsigned i = 0; i < QD; i++) {
		ios[i] = &io[i];
		io[i].len = 4096;
		io[i].res = 4096;
		io[i].op = IOM_OP_READ;
		io[i].phase = IOM_IO_MEASURED;
	}
	iom_rng_seed(&rng, 1);
	if (drain) {
		int ret = drain_runs((unsigned)secs, path, ios, &rng);

		free(path);
		return ret;
	}
	if (!off && !(t = open_trace(path, start, 0, 0)))
		return 1;
	p0 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
	c0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
	while (now < end) {
		fill(ios, &rng, now, 0);
		for (unsigned w = 0; w < work * QD; w++)
			sink += iom_rng_below(&rng, BLOCKS);
		now = iom_now_ns();
		for (unsigned i = 0; i < QD; i++)
			io[i].complete_ns = now;
		if (t)
			iom_trace_record_batch(t, 0, ios, QD);
		else
			for (unsigned i = 0; i < QD; i++)
				sink += io[i].offset;
		offered += QD;
		if (rate > 0) {
			uint64_t due = start + (uint64_t)((double)offered / rate * 1e9);

			while ((now = iom_now_ns()) < due)
				; /* spin: the producer's CPU is then the spin's */
		}
	}
	wall = now - start;
	c1 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
	if (t && iom_trace_close(t, &st, err, sizeof(err)) < 0) {
		fprintf(stderr, "trace_speed: %s\n", err);
		return 1;
	}
	p1 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
	unlink(path);
	free(path);
	sink_out = sink;
	printf("offered %.2fM/s written %.2fM/s dropped %.2f%% bytes/IO %.2f writer %.1f ns/rec "
	       "producer %.1f ns/rec\n",
	       (double)offered / ((double)wall / 1e3), (double)st.records / ((double)wall / 1e3),
	       offered ? 100.0 * (double)st.dropped / (double)offered : 0.0, st.bytes_per_io,
	       st.records ? (double)(p1 - p0 - (c1 - c0)) / (double)st.records : 0.0,
	       (double)(c1 - c0) / (double)offered);
	return 0;
}
