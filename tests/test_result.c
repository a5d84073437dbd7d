/* SPDX-License-Identifier: MIT */
/*
 * Tests of run results and the results directory: a fully populated result survives the trip
 * to runs/NNNNN.json and back field for field; doubles are written without 17-digit noise;
 * summary.csv quotes per RFC 4180 and has one column per header field on every row, and its
 * rebuild orders rows by index; study.json round-trips; truncated, corrupt and newer-schema
 * files are refused with messages that name the file and the problem, never a crash.
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
#include <sys/stat.h>
#include <unistd.h>

#include "ownfile.h"
#include "plan.h"
#include "result/resdir.h"
#include "result/result.h"
#include "result/study.h"
#include "result/summary.h"
#include "tmpdir.h"
#include "util.h"

#define FIXTURES "tests/fixtures/results"

/* ---- fixtures built in memory ---- */

static struct iom_target targets[2] = {
	{ .label = "lsi, \"sas\"", .path = "/tmp/iom-test-a", .controller = "auto",
	  .size = 1 << 30 },
	{ .label = "pvscsi", .path = "/dev/sdz", .filesystem = "ext4", .controller = "pvscsi",
	  .destructive = true },
};

/* The dimensions a matrix that does not use them leaves out of a run's cell (the sparse dimensions). */
static int sparse_dims(void)
{
	int n = 0;

	for (int d = 1; d < IOM_DIM_COUNT; d++)
		n += (iom_dim_key((enum iom_dim)d)->flags & IOM_KEY_SPARSE) != 0;
	return n;
}

static struct iom_matrix matrix = {
	.file = "demo.cfg", .name = "demo", .description = "two controllers", .seed = 42,
	.targets = targets, .ntargets = 2, .compare = IOM_DIM_TARGET,
	.timing = { .warmup_ns = 2000000000, .duration_ns = 10500000000, .cooldown_ns = 1000000000,
		    .rest_ns = 250000000, .timeout_ns = 60000000000, .repeat = 3 },
	.repeat_order = IOM_REPEAT_INTERLEAVED, .shuffle = true,
	.report = { .alpha = 0.05, .min_effect_pct = 2, .max_cv_pct = 5 },
};

static const struct iom_cell cell = {
	.v = { [IOM_DIM_TARGET] = 0, [IOM_DIM_BLOCK_SIZE] = 4096, [IOM_DIM_QUEUE_DEPTH] = 32,
	       [IOM_DIM_THREADS] = 4, [IOM_DIM_READ_PCT] = 70,
	       [IOM_DIM_PATTERN] = IOM_PATTERN_RANDOM, [IOM_DIM_ENGINE] = IOM_ENGINE_IO_URING,
	       [IOM_DIM_DIRECT] = 1 },
};

/* A result with every field set to a distinct, non-zero value. */
static void fill_result(struct iom_run_result *r, uint32_t index)
{
	memset(r, 0, sizeof(*r));
	r->index = index;
	r->repetition = 2;
	r->seed = 0xfedcba9876543210ull; /* above INT64_MAX */
	r->status = IOM_RUN_INTERRUPTED;
	r->error = xstrdup("stopped by \"SIGINT\", at 3/4\nof the window");
	r->start_wall_ns = 1764460800123456789ull;
	r->elapsed_s = 10.000123456;
	for (int d = 0; d < IOM_NDIR; d++) {
		struct iom_io_stats *s = &r->dir[d];

		s->ios = 1000003u * (unsigned)(d + 1);
		s->bytes = s->ios * 4096;
		s->iops = 100000.012345678 * (d + 1);
		s->mb_s = 409.600050567 * (d + 1);
		s->mib_s = 390.625048225 * (d + 1);
		s->lat.min = 1000 + (uint64_t)d;
		s->lat.max = 5000000000ull + (uint64_t)d;
		s->lat.mean = 12345.678901 + d;
		s->lat.stddev = 234.567891 + d;
		for (int i = 0; i < IOM_NPCT; i++)
			s->lat.pct[i] = 2000 + (uint64_t)i * 1000 + (uint64_t)d;
	}
	r->iops_stddev = 1.25;
	r->mb_s_stddev = 0.00512;
	r->qd_mean = 31.5;
	r->nintervals = 3;
	r->intervals = xcalloc(3, sizeof(*r->intervals));
	for (size_t i = 0; i < 3; i++) {
		r->intervals[i].ios[0] = 70000 + i;
		r->intervals[i].ios[1] = 30000 + i;
		r->intervals[i].bytes[0] = (70000 + i) * 4096;
		r->intervals[i].bytes[1] = (30000 + i) * 4096;
		/* the last ends with the window, 0.23 s after it began */
		r->intervals[i].ns = i < 2 ? IOM_INTERVAL_NS : 230000000;
	}
	r->nthreads = 2;
	r->threads = xcalloc(2, sizeof(*r->threads));
	for (unsigned t = 0; t < 2; t++) {
		for (int d = 0; d < IOM_NDIR; d++) {
			r->threads[t].dir[d].ios = 500000 + t * 10 + (unsigned)d;
			r->threads[t].dir[d].bytes = (500000 + t * 10 + (unsigned)d) * 4096ull;
			r->threads[t].dir[d].lat_mean_ns = 12000.5 + t + d;
			r->threads[t].dir[d].lat_stddev_ns = 230.25 + t + d;
		}
	}
	r->cpu.ncpu = 2;
	r->cpu.per_cpu = xcalloc(2, sizeof(*r->cpu.per_cpu));
	for (unsigned i = 0; i < 3; i++) {
		struct iom_cpu_pct *p = i < 2 ? &r->cpu.per_cpu[i] : &r->cpu.avg;

		*p = (struct iom_cpu_pct){ .user = 1.5 + i, .kernel = 6.25 + i, .iowait = 0.5 + i,
					   .irq = 0.125 + i, .softirq = 1.0625 + i,
					   .steal = 0.03125 + i, .idle = 90.53125 - 6 * i };
	}
	r->cpu.busy_pct = 9.46875;
	r->cpu.proc_user_s = 1.234567;
	r->cpu.proc_sys_s = 4.567891;
	r->cpu.us_per_io = 1.9012345;
	r->cpu.interrupts = 123456789;
	r->cpu.interrupts_per_io = 0.98765;
	r->cpu.irq_drivers = xstrdup("vmw_pvscsi");
	r->warmup_ios = 77777;
	r->cooldown_ios = 33333;
	r->registered_buffers = true;
	r->engine_notes = xstrdup("SINGLE_ISSUER DEFER_TASKRUN");
}

static void assert_close(double want, double got)
{
	if (isnan(want)) {
		assert_true(isnan(got));
		return;
	}
	if (fabs(want - got) > 1e-8 * fabs(want) + 1e-12) {
		print_error("want %.17g, got %.17g\n", want, got);
		fail();
	}
}

static void assert_results_equal(const struct iom_run_result *a, const struct iom_run_result *b)
{
	assert_int_equal(a->index, b->index);
	assert_int_equal(a->repetition, b->repetition);
	assert_true(a->seed == b->seed);
	assert_int_equal(a->status, b->status);
	assert_string_equal(a->error, b->error);
	assert_true(a->start_wall_ns == b->start_wall_ns);
	assert_close(a->elapsed_s, b->elapsed_s);
	for (int d = 0; d < IOM_NDIR; d++) {
		const struct iom_io_stats *x = &a->dir[d], *y = &b->dir[d];

		assert_true(x->ios == y->ios);
		assert_true(x->bytes == y->bytes);
		assert_close(x->iops, y->iops);
		assert_close(x->mb_s, y->mb_s);
		assert_close(x->mib_s, y->mib_s);
		assert_true(x->lat.min == y->lat.min);
		assert_true(x->lat.max == y->lat.max);
		assert_close(x->lat.mean, y->lat.mean);
		assert_close(x->lat.stddev, y->lat.stddev);
		for (int i = 0; i < IOM_NPCT; i++)
			assert_true(x->lat.pct[i] == y->lat.pct[i]);
	}
	assert_close(a->iops_stddev, b->iops_stddev);
	assert_close(a->mb_s_stddev, b->mb_s_stddev);
	assert_close(a->qd_mean, b->qd_mean);
	assert_int_equal(a->nintervals, b->nintervals);
	for (size_t i = 0; i < a->nintervals; i++)
		assert_memory_equal(&a->intervals[i], &b->intervals[i], sizeof(a->intervals[i]));
	assert_int_equal(a->nthreads, b->nthreads);
	for (unsigned t = 0; t < a->nthreads; t++) {
		for (int d = 0; d < IOM_NDIR; d++) {
			assert_true(a->threads[t].dir[d].ios == b->threads[t].dir[d].ios);
			assert_true(a->threads[t].dir[d].bytes == b->threads[t].dir[d].bytes);
			assert_close(a->threads[t].dir[d].lat_mean_ns, b->threads[t].dir[d].lat_mean_ns);
			assert_close(a->threads[t].dir[d].lat_stddev_ns,
				     b->threads[t].dir[d].lat_stddev_ns);
		}
	}
	assert_int_equal(a->cpu.ncpu, b->cpu.ncpu);
	for (unsigned i = 0; i <= a->cpu.ncpu; i++) {
		const struct iom_cpu_pct *x = i < a->cpu.ncpu ? &a->cpu.per_cpu[i] : &a->cpu.avg;
		const struct iom_cpu_pct *y = i < b->cpu.ncpu ? &b->cpu.per_cpu[i] : &b->cpu.avg;

		assert_close(x->user, y->user);
		assert_close(x->kernel, y->kernel);
		assert_close(x->iowait, y->iowait);
		assert_close(x->irq, y->irq);
		assert_close(x->softirq, y->softirq);
		assert_close(x->steal, y->steal);
		assert_close(x->idle, y->idle);
	}
	assert_close(a->cpu.busy_pct, b->cpu.busy_pct);
	assert_close(a->cpu.proc_user_s, b->cpu.proc_user_s);
	assert_close(a->cpu.proc_sys_s, b->cpu.proc_sys_s);
	assert_close(a->cpu.us_per_io, b->cpu.us_per_io);
	assert_true(a->cpu.interrupts == b->cpu.interrupts);
	assert_close(a->cpu.interrupts_per_io, b->cpu.interrupts_per_io);
	assert_string_equal(a->cpu.irq_drivers, b->cpu.irq_drivers);
	assert_true(a->warmup_ios == b->warmup_ios);
	assert_true(a->cooldown_ios == b->cooldown_ios);
	assert_int_equal(a->registered_buffers, b->registered_buffers);
	assert_string_equal(a->engine_notes, b->engine_notes);
	assert_int_equal(a->load.paced, b->load.paced);
	assert_int_equal(a->load.poisson, b->load.poisson);
	assert_int_equal(a->load.held, b->load.held);
	assert_close(a->load.offered_iops, b->load.offered_iops);
	assert_close(a->load.achieved_iops, b->load.achieved_iops);
	assert_close(a->load.max_lag_s, b->load.max_lag_s);
	assert_true(a->load.late_ios == b->load.late_ios);
	for (int d = 0; d < IOM_NDIR; d++) {
		assert_true(a->load.response[d].max == b->load.response[d].max);
		assert_close(a->load.response[d].mean, b->load.response[d].mean);
		for (int i = 0; i < IOM_NPCT; i++)
			assert_true(a->load.response[d].pct[i] == b->load.response[d].pct[i]);
	}
	assert_int_equal(a->stall.stalled, b->stall.stalled);
	assert_close(a->stall.gap_s, b->stall.gap_s);
	assert_close(a->stall.at_s, b->stall.at_s);
	assert_close(a->stall.window_s, b->stall.window_s);
	assert_close(a->stall.asked_s, b->stall.asked_s);
	if (a->stall.reason || b->stall.reason)
		assert_string_equal(a->stall.reason, b->stall.reason);
	assert_int_equal(a->disk.have, b->disk.have);
	assert_int_equal(a->disk.has_flushes, b->disk.has_flushes);
	assert_int_equal(a->disk.has_discards, b->disk.has_discards);
	assert_string_equal(a->disk.name, b->disk.name);
	assert_true(a->disk.reads == b->disk.reads && a->disk.writes == b->disk.writes &&
		    a->disk.discards == b->disk.discards && a->disk.flushes == b->disk.flushes);
}

/* A temporary directory made a results directory. */
static int make_dir(void **state)
{
	char err[IOM_ERRLEN];

	if (test_tmpdir_setup(state) != 0)
		return -1;
	return iom_results_dir_create(test_own(*state), err, sizeof(err));
}

#define IN_RESULTS_DIR(f) cmocka_unit_test_setup_teardown(f, make_dir, test_tmpdir_teardown)

static char *slurp(const char *path)
{
	char *text = NULL;

	assert_int_equal(iom_read_file(path, &text, NULL), 0);
	return text;
}

/* ---- round trip ---- */

static void test_result_round_trip(void **state)
{
	const char *dir = *state;
	struct iom_run_result r;
	struct iom_result_file f;
	char err[IOM_ERRLEN] = "";
	char *path;

	fill_result(&r, 7);
	assert_int_equal(iom_result_write(test_own(dir), &matrix, &cell, &r, err, sizeof(err)), 0);
	path = iom_result_path(dir, 7);
	assert_non_null(strstr(path, "/runs/00007.json"));
	assert_int_equal(iom_result_read(path, &f, err, sizeof(err)), 0);
	assert_int_equal(f.schema, IOM_RESULT_SCHEMA);
	assert_results_equal(&r, &f.r);

	/* The cell, in file order, every dimension by name. */
	assert_int_equal(f.ncell, IOM_DIM_COUNT - sparse_dims()); /* unused sparse ones left out */
	assert_string_equal(f.cell[0].name, "target");
	assert_string_equal(f.cell[0].value, "lsi, \"sas\"");
	assert_string_equal(iom_result_cell_get(&f, "block_size"), "4096");
	assert_string_equal(iom_result_cell_get(&f, "queue_depth"), "32");
	assert_string_equal(iom_result_cell_get(&f, "threads"), "4");
	assert_string_equal(iom_result_cell_get(&f, "read_pct"), "70");
	assert_string_equal(iom_result_cell_get(&f, "pattern"), "random");
	assert_string_equal(iom_result_cell_get(&f, "engine"), "io_uring");
	assert_string_equal(iom_result_cell_get(&f, "direct"), "true");
	assert_null(iom_result_cell_get(&f, "nonsense"));

	iom_result_file_release(&f);
	iom_run_result_release(&r);
	free(path);
}

/* The kept histograms go out as their non-empty buckets and come back the same histogram:
 * every bucket, count, min, max and both 128-bit sums; a bin that is not a bucket's lower
 * bound, or bins that do not add up to the count, are refused by name. */
static void test_result_hist_round_trip(void **state)
{
	const char *dir = *state;
	struct iom_hist *h = calloc(2, sizeof(*h)), *back = h + 1;
	struct iom_run_result r;
	struct iom_result_file f;
	char err[IOM_ERRLEN] = "", *path, *text, *at;

	assert_non_null(h);
	iom_hist_init(h);
	for (uint64_t v = 1; v < UINT64_C(1) << 40; v = v * 3 + 7)
		iom_hist_record(h, v);
	iom_hist_record(h, UINT64_MAX); /* clamped */
	fill_result(&r, 5);
	for (int d = 0; d < IOM_NDIR; d++) {
		iom_hist_sparse_of(&r.hist[d], h);
		r.dir[d].lat.min = h->min;
		r.dir[d].lat.max = h->max;
	}
	r.has_hist = true;
	assert_int_equal(iom_result_write(test_own(dir), &matrix, &cell, &r, err, sizeof(err)), 0);
	path = iom_result_path(dir, 5);
	assert_int_equal(iom_result_read(path, &f, err, sizeof(err)), 0);
	assert_true(f.r.has_hist);
	iom_hist_init(back);
	iom_hist_sparse_merge(back, &f.r.hist[IOM_DIR_TOTAL]);
	assert_memory_equal(back->bucket, h->bucket, sizeof(h->bucket));
	assert_true(back->count == h->count && back->min == h->min && back->max == h->max &&
		    back->sum == h->sum && back->sumsq == h->sumsq && back->clamped == 1);
	iom_result_file_release(&f);

	text = NULL;
	assert_int_equal(iom_read_file(path, &text, NULL), 0);
	at = strstr(text, "\"bins\": [1, ");
	assert_non_null(at);
	/* the first bin's bound, 1, becomes 9: still a bucket (below 256 ns), not min's */
	at[9] = '9';
	assert_int_equal(iom_write_file_atomic(path, text, strlen(text)), 0);
	assert_int_equal(iom_result_read(path, &f, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'read.lat_ns.hist.bins' has a min or max outside"));
	iom_result_file_release(&f);
	free(text);

	/* an old file: no "hist" at all reads as none kept */
	r.has_hist = false;
	assert_int_equal(iom_result_write(test_own(dir), &matrix, &cell, &r, err, sizeof(err)), 0);
	assert_int_equal(iom_result_read(path, &f, err, sizeof(err)), 0);
	assert_false(f.r.has_hist);
	iom_result_file_release(&f);
	iom_run_result_release(&r);
	free(path);
	free(h);
}

/* "disk" goes out and comes back: its counters, null flushes and discards from an old kernel,
 * or null when the disk is unknown. */
static void test_result_disk_round_trip(void **state)
{
	static const struct iom_run_disk cases[] = {
		{ .have = true, .has_flushes = true, .has_discards = true, .name = "vda",
		  .reads = 3, .writes = 1024, .discards = 7, .flushes = 1031 },
		{ .have = true, .name = "sdb", .reads = 1, .writes = 2 },
		{ .have = false },
	};
	const char *dir = *state;

	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		struct iom_run_result r;
		struct iom_result_file f;
		char err[IOM_ERRLEN] = "", *path, *text;

		fill_result(&r, 9);
		r.disk = cases[i];
		assert_int_equal(iom_result_write(test_own(dir), &matrix, &cell, &r,
					 err, sizeof(err)), 0);
		path = iom_result_path(dir, 9);
		text = slurp(path);
		if (!cases[i].have)
			assert_non_null(strstr(text, "\"disk\": null"));
		else if (!cases[i].has_flushes)
			assert_non_null(strstr(text, "\"flushes\": null"));
		assert_int_equal(iom_result_read(path, &f, err, sizeof(err)), 0);
		assert_results_equal(&r, &f.r);
		iom_result_file_release(&f);
		iom_run_result_release(&r);
		free(text);
		free(path);
	}
}

/* "paths" goes out and comes back for a target with several paths, and is absent
 * (none read back) for one path, as in older files. */
static void test_result_paths_round_trip(void **state)
{
	const char *dir = *state;

	for (int with = 0; with < 2; with++) {
		struct iom_run_result r;
		struct iom_result_file f;
		char err[IOM_ERRLEN] = "", *path, *text;

		fill_result(&r, 9);
		if (with) {
			r.npaths = 2;
			r.paths = xcalloc(2, sizeof(*r.paths));
			for (size_t p = 0; p < 2; p++) {
				r.paths[p].path = xasprintf("/dev/loop%zu", p);
				for (int d = 0; d < IOM_NDIR; d++) {
					r.paths[p].dir[d].ios = 100 * (p + 1) + (uint64_t)d;
					r.paths[p].dir[d].bytes = 4096 * r.paths[p].dir[d].ios;
					r.paths[p].dir[d].iops = 1000.5 * (double)(p + 1);
					r.paths[p].dir[d].mb_s = 4.25 * (double)(p + 1);
					r.paths[p].dir[d].mib_s = 4.0 * (double)(p + 1);
				}
			}
		}
		assert_int_equal(iom_result_write(test_own(dir), &matrix, &cell, &r,
					 err, sizeof(err)), 0);
		path = iom_result_path(dir, 9);
		text = slurp(path);
		assert_int_equal(strstr(text, "\"paths\"") != NULL, with);
		assert_int_equal(iom_result_read(path, &f, err, sizeof(err)), 0);
		assert_results_equal(&r, &f.r);
		assert_int_equal(f.r.npaths, r.npaths);
		for (size_t p = 0; p < r.npaths; p++) {
			assert_string_equal(f.r.paths[p].path, r.paths[p].path);
			for (int d = 0; d < IOM_NDIR; d++) {
				assert_int_equal(f.r.paths[p].dir[d].ios, r.paths[p].dir[d].ios);
				assert_int_equal(f.r.paths[p].dir[d].bytes, r.paths[p].dir[d].bytes);
				assert_true(f.r.paths[p].dir[d].iops == r.paths[p].dir[d].iops);
				assert_true(f.r.paths[p].dir[d].mb_s == r.paths[p].dir[d].mb_s);
			}
		}
		iom_result_file_release(&f);
		iom_run_result_release(&r);
		free(text);
		free(path);
	}
}

/* an access spec's per-line figures go out and come back (counts, rates, the total's
 * latencies), and are absent for a cell without one. */
static void test_result_access_round_trip(void **state)
{
	const char *dir = *state;

	for (int with = 0; with < 2; with++) {
		struct iom_run_result r;
		struct iom_result_file f;
		char err[IOM_ERRLEN] = "", *path, *text;

		fill_result(&r, 11);
		if (with) {
			r.access = xstrdup("oltp");
			r.nlines = 2;
			r.lines = xcalloc(2, sizeof(*r.lines));
			for (size_t l = 0; l < 2; l++) {
				struct iom_line_stats *ls = &r.lines[l];

				ls->share = l ? 30 : 70;
				ls->block_size = l ? 65536 : 8192;
				ls->read_pct = l ? 0 : 70;
				ls->random_pct = l ? 0 : 100;
				ls->align = ls->block_size;
				for (int d = 0; d < IOM_NDIR; d++) {
					ls->dir[d].ios = 1000 * (l + 1) + (uint64_t)d;
					ls->dir[d].bytes = ls->block_size * ls->dir[d].ios;
					ls->dir[d].iops = 250.5 * (double)(l + 1);
					ls->dir[d].mb_s = 2.5 * (double)(l + 1);
					ls->dir[d].mib_s = 2.25 * (double)(l + 1);
				}
				ls->dir[IOM_DIR_TOTAL].lat.mean = 1234.5 + (double)l;
				ls->dir[IOM_DIR_TOTAL].lat.max = 99000 + l;
				for (int i = 0; i < IOM_NPCT; i++)
					ls->dir[IOM_DIR_TOTAL].lat.pct[i] = 1000 + 10 * (uint64_t)i + l;
			}
		}
		assert_int_equal(iom_result_write(test_own(dir), &matrix, &cell, &r,
					 err, sizeof(err)), 0);
		path = iom_result_path(dir, 11);
		text = slurp(path);
		assert_int_equal(strstr(text, "\"access\"") != NULL, with);
		assert_int_equal(iom_result_read(path, &f, err, sizeof(err)), 0);
		assert_results_equal(&r, &f.r);
		assert_int_equal(f.r.nlines, r.nlines);
		if (with)
			assert_string_equal(f.r.access, "oltp");
		for (size_t l = 0; l < r.nlines; l++) {
			const struct iom_line_stats *a = &r.lines[l], *b = &f.r.lines[l];

			assert_int_equal(b->share, a->share);
			assert_int_equal(b->block_size, a->block_size);
			assert_int_equal(b->read_pct, a->read_pct);
			assert_int_equal(b->random_pct, a->random_pct);
			assert_int_equal(b->align, a->align);
			for (int d = 0; d < IOM_NDIR; d++) {
				assert_int_equal(b->dir[d].ios, a->dir[d].ios);
				assert_int_equal(b->dir[d].bytes, a->dir[d].bytes);
				assert_true(b->dir[d].iops == a->dir[d].iops);
			}
			assert_true(b->dir[IOM_DIR_TOTAL].lat.mean == a->dir[IOM_DIR_TOTAL].lat.mean);
			assert_int_equal(b->dir[IOM_DIR_TOTAL].lat.max, a->dir[IOM_DIR_TOTAL].lat.max);
			for (int i = 0; i < IOM_NPCT; i++)
				assert_int_equal(b->dir[IOM_DIR_TOTAL].lat.pct[i],
						 a->dir[IOM_DIR_TOTAL].lat.pct[i]);
		}
		iom_result_file_release(&f);
		iom_run_result_release(&r);
		free(text);
		free(path);
	}
}

/* "stalled" goes out and comes back: an object with the gap (asked_s null for a bytes-bound
 * window), or null for a run that did not stall. */
static void test_result_stall_round_trip(void **state)
{
	static const struct iom_run_stall cases[] = {
		{ .stalled = true, .gap_s = 4.0012, .at_s = 1.25, .window_s = 7.0034, .asked_s = 3,
		  .reason = "no I/O completed for 4.0 s, from 1.2 s into the window; the window "
			    "lasted 7.0 s for 3.0 s asked" },
		{ .stalled = true, .gap_s = 1.5, .at_s = 50, .window_s = 100.5, .asked_s = 0,
		  .reason = "no I/O completed for 1.5 s, from 50.0 s into the window" },
		{ .stalled = false },
	};
	const char *dir = *state;

	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		struct iom_run_result r;
		struct iom_result_file f;
		char err[IOM_ERRLEN] = "", *path, *text;

		fill_result(&r, 9);
		r.stall = cases[i];
		r.stall.reason = cases[i].reason ? xstrdup(cases[i].reason) : NULL;
		assert_int_equal(iom_result_write(test_own(dir), &matrix, &cell, &r,
					 err, sizeof(err)), 0);
		path = iom_result_path(dir, 9);
		text = slurp(path);
		if (!cases[i].stalled)
			assert_non_null(strstr(text, "\"stalled\": null"));
		else if (cases[i].asked_s == 0)
			assert_non_null(strstr(text, "\"asked_s\": null"));
		assert_int_equal(iom_result_read(path, &f, err, sizeof(err)), 0);
		assert_results_equal(&r, &f.r);
		iom_result_file_release(&f);
		iom_run_result_release(&r);
		free(text);
		free(path);
	}
}

/* Whether a paced run held: fixed within 1 % either way; Poisson behind by more than 1 % and
 * three standard deviations of its count only (600 IOPS over 2 s: 8.66 % of slack). */
static void test_result_load_held(void **state)
{
	(void)state;
	assert_true(iom_load_held(2000, 2019, 2, false));
	assert_false(iom_load_held(2000, 2021, 2, false));
	assert_false(iom_load_held(2000, 1979, 2, false));
	assert_true(iom_load_held(600, 612, 2, true));     /* more than offered: never saturated */
	assert_true(iom_load_held(600, 5000, 2, true));
	assert_true(iom_load_held(600, 549, 2, true));     /* 3 × √1200 / 2 = 51.96 short at most */
	assert_false(iom_load_held(600, 547, 2, true));
	assert_true(iom_load_held(1e6, 990001, 10, true)); /* 1 % is the larger slack here */
	assert_false(iom_load_held(1e6, 989000, 10, true));
	assert_false(iom_load_held(50000, 31200, 1, true));
}

/* "load" goes out and comes back: a paced run's offered and achieved rates, late I/Os, lag and
 * response times; null for a closed loop; and the sentence the progress line and report use. */
static void test_result_load_round_trip(void **state)
{
	const char *dir = *state;
	char line[128];

	for (int paced = 0; paced < 2; paced++) {
		struct iom_run_result r;
		struct iom_result_file f;
		char err[IOM_ERRLEN] = "", *path, *text;

		fill_result(&r, 10);
		if (paced) {
			r.load = (struct iom_run_load){ .paced = true, .poisson = true,
							.offered_iops = 50000, .achieved_iops = 31200,
							.late_ios = 12345, .max_lag_s = 0.75 };
			for (int d = 0; d < IOM_NDIR; d++) {
				r.load.response[d].max = 900000000u + (unsigned)d;
				r.load.response[d].mean = 1e6 * (d + 1);
				for (int i = 0; i < IOM_NPCT; i++)
					r.load.response[d].pct[i] = 1000u * (unsigned)(i + d + 1);
			}
		}
		assert_int_equal(iom_result_write(test_own(dir), &matrix, &cell, &r,
					 err, sizeof(err)), 0);
		path = iom_result_path(dir, 10);
		text = slurp(path);
		if (!paced)
			assert_non_null(strstr(text, "\"load\": null"));
		else
			assert_non_null(strstr(text, "\"arrivals\": \"poisson\""));
		assert_int_equal(iom_result_read(path, &f, err, sizeof(err)), 0);
		assert_results_equal(&r, &f.r);
		iom_run_load_describe(&f.r.load, line, sizeof(line));
		assert_string_equal(line, paced ? "offered 50.0K IOPS, achieved 31.2K: saturated: "
						  "12.3K I/Os late, up to 750ms behind" : "");
		if (paced) { /* more than offered is held, however many went out late */
			struct iom_run_load l = { .paced = true, .offered_iops = 200000,
						  .achieved_iops = 204000, .held = true,
						  .late_ios = 35577, .max_lag_s = 0.018 };

			iom_run_load_describe(&l, line, sizeof(line));
			assert_string_equal(line, "offered 200K IOPS, achieved 204K: held (35.6K I/Os "
						  "late, up to 18.0ms behind)");
			l.late_ios = 0;
			iom_run_load_describe(&l, line, sizeof(line));
			assert_string_equal(line, "offered 200K IOPS, achieved 204K: held");
		}
		iom_result_file_release(&f);
		iom_run_result_release(&r);
		free(text);
		free(path);
	}
}

/* Whether the kept histogram s is exactly h: every bucket, count, min, max, both sums. */
static void assert_hist_is(const struct iom_hist_sparse *s, const struct iom_hist *h)
{
	struct iom_hist *back = calloc(1, sizeof(*back));

	assert_non_null(back);
	iom_hist_init(back);
	iom_hist_sparse_merge(back, s);
	assert_memory_equal(back->bucket, h->bucket, sizeof(h->bucket));
	assert_true(back->count == h->count && back->min == h->min && back->max == h->max &&
		    back->sum == h->sum && back->sumsq == h->sumsq && back->clamped == h->clamped);
	free(back);
}

/* A paced run's response-time histograms go out and come back bucket for bucket: the run's
 * (load.response_ns.*.hist) and each host row's of a run of many hosts
 * (hosts[].load.response_ns.*.hist), beside the rows' own load figures. */
static void test_result_response_hist_round_trip(void **state)
{
	const char *dir = *state;
	struct iom_hist *h = calloc(4, sizeof(*h));
	struct iom_run_result r;
	struct iom_result_file f;
	char err[IOM_ERRLEN] = "", *path, *text, *at;

	assert_non_null(h);
	/* h[0] the run's service time, h[1] its response time, h[2] and h[3] the two rows' */
	for (int k = 0; k < 4; k++) {
		iom_hist_init(&h[k]);
		for (uint64_t v = 1000 + 17 * (uint64_t)k; v < UINT64_C(1) << (30 + k);
		     v = v * (2 + (uint64_t)k) + 13)
			iom_hist_record(&h[k], v);
	}
	fill_result(&r, 11);
	r.has_hist = true;
	r.load = (struct iom_run_load){ .paced = true, .offered_iops = 2000,
					.achieved_iops = 1990, .held = true };
	for (int d = 0; d < IOM_NDIR; d++) {
		iom_hist_sparse_of(&r.hist[d], &h[0]);
		r.dir[d].lat.min = h[0].min;
		r.dir[d].lat.max = h[0].max;
		iom_hist_sparse_of(&r.load.response_hist[d], &h[1]);
		r.load.response[d].min = h[1].min;
		r.load.response[d].max = h[1].max;
	}
	r.nhosts = 2;
	r.hosts = xcalloc(2, sizeof(*r.hosts));
	r.host_hist = xcalloc(2, sizeof(*r.host_hist));
	for (size_t i = 0; i < 2; i++) {
		struct iom_host_row *row = &r.hosts[i];

		row->rank = (uint32_t)i;
		snprintf(row->host, sizeof(row->host), "node%zu", i);
		row->status = IOM_RUN_OK;
		row->load = (struct iom_run_load){ .paced = true, .offered_iops = 1000,
						   .achieved_iops = 995 - (double)i, .held = true,
						   .late_ios = 3 + i };
		for (int d = 0; d < IOM_NDIR; d++) {
			iom_hist_sparse_of(&r.host_hist[i][d], &h[0]);
			iom_hist_sparse_of(&row->load.response_hist[d], &h[2 + i]);
			row->load.response[d].min = h[2 + i].min;
			row->load.response[d].max = h[2 + i].max;
			row->load.response[d].pct[IOM_NPCT - 1] = iom_hist_percentile(&h[2 + i], 99);
		}
	}
	assert_int_equal(iom_result_write(test_own(dir), &matrix, &cell, &r, err, sizeof(err)), 0);
	path = iom_result_path(dir, 11);
	assert_int_equal(iom_result_read(path, &f, err, sizeof(err)), 0);
	assert_true(f.r.load.paced);
	for (int d = 0; d < IOM_NDIR; d++)
		assert_hist_is(&f.r.load.response_hist[d], &h[1]);
	assert_int_equal(f.r.nhosts, 2);
	assert_non_null(f.r.host_hist);
	for (size_t i = 0; i < 2; i++) {
		const struct iom_host_row *row = &f.r.hosts[i];

		assert_true(row->load.paced && row->load.held);
		assert_close(row->load.offered_iops, 1000);
		assert_close(row->load.achieved_iops, 995 - (double)i);
		assert_true(row->load.late_ios == 3 + i);
		for (int d = 0; d < IOM_NDIR; d++) {
			assert_hist_is(&f.r.host_hist[i][d], &h[0]);
			assert_hist_is(&row->load.response_hist[d], &h[2 + i]);
			assert_true(row->load.response[d].pct[IOM_NPCT - 1] ==
				    iom_hist_percentile(&h[2 + i], 99));
		}
	}
	iom_result_file_release(&f);

	/* a bad bin in a row's response histogram is refused by its name */
	text = NULL;
	assert_int_equal(iom_read_file(path, &text, NULL), 0);
	at = strstr(text, "\"hosts\"");
	assert_non_null(at);
	at = strstr(at, "\"response_ns\"");
	assert_non_null(at);
	at = strstr(at, "\"bins\": [");
	assert_non_null(at);
	/* its first bound's last digit, of a bucket's lower bound of 1000 ns and more, made one
	 * less: no longer a bucket's lower bound */
	at += strlen("\"bins\": [");
	at += strspn(at, "0123456789") - 1;
	assert_true(*at > '0' && *at <= '9');
	(*at)--;
	assert_int_equal(iom_write_file_atomic(path, text, strlen(text)), 0);
	assert_int_equal(iom_result_read(path, &f, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'hosts[0].load.response_ns.read.hist.bins'"));
	iom_result_file_release(&f);
	free(text);
	iom_run_result_release(&r);
	free(path);
	free(h);
}

static void test_result_writes_readable_numbers(void **state)
{
	const char *dir = *state;
	struct iom_run_result r;
	char err[IOM_ERRLEN] = "";
	char *path, *text;

	fill_result(&r, 8);
	r.mb_s_stddev = NAN;
	assert_int_equal(iom_result_write(test_own(dir), &matrix, &cell, &r, err, sizeof(err)), 0);
	path = iom_result_path(dir, 8);
	text = slurp(path);
	/* Nine significant digits, no exponent, no 17-digit noise. */
	assert_non_null(strstr(text, "\"iops\": 100000.012,"));
	assert_non_null(strstr(text, "\"elapsed_s\": 10.0001235,"));
	assert_non_null(strstr(text, "\"seed\": 18364758544493064720,"));
	assert_non_null(strstr(text, "\"block_size\": 4096,"));
	assert_non_null(strstr(text, "\"direct\": true"));
	assert_non_null(strstr(text, "\"99.9999999\": 17002"));
	assert_non_null(strstr(text, "\"start_utc\": \"2025-11-30T00:00:00Z\""));
	/* Arrays of numbers on one line; a non-finite double as null. */
	assert_non_null(strstr(text, "\"read_ios\": [70000, 70001, 70002]"));
	assert_non_null(strstr(text, "\"mb_s_stddev\": null"));
	assert_null(strstr(text, "e+"));
	assert_null(strstr(text, "\\/"));
	free(text);
	iom_run_result_release(&r);

	/* null reads back as NaN, everything else as written. */
	{
		struct iom_result_file f;

		assert_int_equal(iom_result_read(path, &f, err, sizeof(err)), 0);
		assert_true(isnan(f.r.mb_s_stddev));
		assert_close(1.25, f.r.iops_stddev);
		iom_result_file_release(&f);
	}
	free(path);
}

static void test_result_path_digits(void **state)
{
	static const struct {
		uint32_t index;
		const char *tail;
	} cases[] = {
		{ 1, "/runs/00001.json" },
		{ 99999, "/runs/99999.json" },
		{ 100000, "/runs/100000.json" },
		{ 4294967295u, "/runs/4294967295.json" },
	};

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		char *p = iom_result_path("/r", cases[i].index);
		size_t n = strlen(p), t = strlen(cases[i].tail);

		assert_true(n >= t);
		assert_string_equal(p + n - t, cases[i].tail);
		free(p);
	}
}

static void test_result_list_ignores_other_files(void **state)
{
	const char *dir = *state;
	static const char *const names[] = {
		"00010.json", "00001.json", "123456.json", "00002.json.tmp.4242", "notes.txt",
		"x00003.json", ".json",
	};
	char err[IOM_ERRLEN] = "";
	uint32_t *idx;
	size_t n;

	for (size_t i = 0; i < IOM_ARRAY_SIZE(names); i++) {
		char *p = xasprintf("%s/runs/%s", dir, names[i]);

		assert_int_equal(iom_write_file_atomic(p, "{}", 2), 0);
		free(p);
	}
	assert_int_equal(iom_result_list(dir, &idx, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_int_equal(idx[0], 1);
	assert_int_equal(idx[1], 10);
	assert_int_equal(idx[2], 123456);
	free(idx);

	assert_int_not_equal(iom_result_list("/nonexistent/iom", &idx, &n, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "cannot open '/nonexistent/iom/runs'"));
}

/* ---- summary.csv ---- */

/* An RFC 4180 reader for the test: rows of fields. */
struct csv {
	char ***row;
	size_t *nfield;
	size_t nrow;
};

static void csv_parse(const char *s, struct csv *c)
{
	memset(c, 0, sizeof(*c));
	while (*s) {
		char **fields = NULL;
		size_t nf = 0;

		for (;;) {
			char *buf = xmalloc(strlen(s) + 1);
			size_t n = 0;

			if (*s == '"') {
				for (s++; *s; s++) {
					if (*s == '"' && s[1] == '"')
						buf[n++] = *s++;
					else if (*s == '"')
						break;
					else
						buf[n++] = *s;
				}
				assert_int_equal(*s, '"');
				s++;
			} else {
				while (*s && *s != ',' && *s != '\n')
					buf[n++] = *s++;
			}
			buf[n] = '\0';
			fields = xrealloc(fields, (nf + 1) * sizeof(*fields));
			fields[nf++] = buf;
			if (*s == ',') {
				s++;
				continue;
			}
			assert_true(*s == '\n' || *s == '\0');
			if (*s)
				s++;
			break;
		}
		c->row = xrealloc(c->row, (c->nrow + 1) * sizeof(*c->row));
		c->nfield = xrealloc(c->nfield, (c->nrow + 1) * sizeof(*c->nfield));
		c->row[c->nrow] = fields;
		c->nfield[c->nrow++] = nf;
	}
}

static void csv_free(struct csv *c)
{
	for (size_t r = 0; r < c->nrow; r++) {
		for (size_t f = 0; f < c->nfield[r]; f++)
			free(c->row[r][f]);
		free(c->row[r]);
	}
	free(c->row);
	free(c->nfield);
}

static const char *csv_get(const struct csv *c, size_t row, const char *col)
{
	for (size_t f = 0; f < c->nfield[0]; f++)
		if (strcmp(c->row[0][f], col) == 0)
			return f < c->nfield[row] ? c->row[row][f] : NULL;
	return NULL;
}

static void test_result_summary_csv(void **state)
{
	static const char *const header[] = {
		"index", "repetition", "target", "block_size", "queue_depth", "threads", "read_pct",
		"pattern", "engine", "direct", "verify", "status", "iops", "mb_s", "read_iops", "write_iops",
		"lat_mean_us", "lat_p99_us", "lat_p999_us", "cpu_pct", "cpu_us_per_io", "error",
	};
	const char *dir = *state;
	struct iom_cell c2 = cell;
	struct iom_run_result a, b;
	char err[IOM_ERRLEN] = "";
	char *path = xasprintf("%s/summary.csv", dir), *text, *again;
	struct csv csv;

	fill_result(&a, 3);
	a.status = IOM_RUN_OK;
	fill_result(&b, 1);
	b.status = IOM_RUN_FAILED;
	free(b.error);
	b.error = xstrdup("cannot open '/dev/sdz': \"busy\", try later\nsecond line");
	c2.v[IOM_DIM_TARGET] = 1;
	c2.v[IOM_DIM_DIRECT] = 0;

	/* Appended in run order (3 then 1): the header once, one row per run. */
	assert_int_equal(iom_result_write(test_own(dir), &matrix, &cell, &a, err, sizeof(err)), 0);
	assert_int_equal(iom_summary_append(test_own(dir), &matrix, &cell, &a,
				 err, sizeof(err)), 0);
	assert_int_equal(iom_result_write(test_own(dir), &matrix, &c2, &b, err, sizeof(err)), 0);
	assert_int_equal(iom_summary_append(test_own(dir), &matrix, &c2, &b, err, sizeof(err)), 0);
	text = slurp(path);
	csv_parse(text, &csv);
	assert_int_equal(csv.nrow, 3);
	assert_int_equal(csv.nfield[0], IOM_ARRAY_SIZE(header));
	for (size_t i = 0; i < IOM_ARRAY_SIZE(header); i++)
		assert_string_equal(csv.row[0][i], header[i]);
	for (size_t r = 1; r < csv.nrow; r++)
		assert_int_equal(csv.nfield[r], IOM_ARRAY_SIZE(header));
	assert_string_equal(csv_get(&csv, 1, "index"), "3");
	assert_string_equal(csv_get(&csv, 1, "target"), "lsi, \"sas\"");
	assert_string_equal(csv_get(&csv, 1, "block_size"), "4096");
	assert_string_equal(csv_get(&csv, 1, "status"), "ok");
	assert_string_equal(csv_get(&csv, 1, "iops"), "300000.037");
	assert_string_equal(csv_get(&csv, 1, "lat_mean_us"), "12.3476789");
	assert_string_equal(csv_get(&csv, 1, "lat_p99_us"), "10.002");
	assert_string_equal(csv_get(&csv, 1, "lat_p999_us"), "11.002");
	assert_string_equal(csv_get(&csv, 1, "cpu_pct"), "9.46875");
	assert_string_equal(csv_get(&csv, 2, "index"), "1");
	assert_string_equal(csv_get(&csv, 2, "target"), "pvscsi");
	assert_string_equal(csv_get(&csv, 2, "direct"), "false");
	assert_string_equal(csv_get(&csv, 2, "status"), "failed");
	assert_string_equal(csv_get(&csv, 2, "iops"), "");
	assert_string_equal(csv_get(&csv, 2, "error"),
			    "cannot open '/dev/sdz': \"busy\", try later\nsecond line");
	/* The quoting as RFC 4180 spells it. */
	assert_non_null(strstr(text, ",\"lsi, \"\"sas\"\"\",4096,"));
	csv_free(&csv);
	free(text);

	/* The rebuild orders rows by index and keeps every field. */
	assert_int_equal(iom_summary_rebuild(test_own(dir), err, sizeof(err)), 0);
	again = slurp(path);
	csv_parse(again, &csv);
	assert_int_equal(csv.nrow, 3);
	assert_string_equal(csv_get(&csv, 1, "index"), "1");
	assert_string_equal(csv_get(&csv, 2, "index"), "3");
	assert_string_equal(csv_get(&csv, 2, "iops"), "300000.037");
	assert_string_equal(csv_get(&csv, 1, "error"),
			    "cannot open '/dev/sdz': \"busy\", try later\nsecond line");
	for (size_t r = 0; r < csv.nrow; r++)
		assert_int_equal(csv.nfield[r], IOM_ARRAY_SIZE(header));
	csv_free(&csv);
	free(again);

	iom_run_result_release(&a);
	iom_run_result_release(&b);
	free(path);
}

/* ---- bad files ---- */

static void test_result_rejects_bad_files(void **state)
{
	static const struct {
		const char *file;     /* a fixture, or NULL for text */
		const char *text;
		const char *want;     /* in the message, after "NAME: " */
	} cases[] = {
		{ FIXTURES "/bad/truncated.json", NULL, "truncated JSON" },
		{ FIXTURES "/bad/newer-schema.json", NULL,
		  "schema 2 is newer than this iomatrix reads (1)" },
		{ FIXTURES "/bad/wrong-type.json", NULL,
		  "'read.lat_ns.min' is not a non-negative integer" },
		{ FIXTURES "/bad/garbage.json", NULL, "invalid JSON at byte" },
		{ NULL, "", "truncated JSON" },
		{ NULL, "[1, 2]", "not an iomatrix run result (not a JSON object)" },
		{ NULL, "{\"index\": 1}", "no 'schema' field" },
		{ NULL, "{\"schema\": \"1\"}", "'schema' is not a positive integer" },
		{ NULL, "{\"schema\": 1, \"repetition\": 1, \"status\": \"ok\", \"cell\": {}}",
		  "no 'index' field" },
		{ NULL, "{\"schema\": 1, \"index\": 1, \"repetition\": 1, \"status\": \"ok\"}",
		  "no 'cell' object" },
		{ NULL, "{\"schema\": 1, \"index\": 1, \"repetition\": 1, \"status\": \"meh\", "
			"\"cell\": {}}", "'status' is not \"ok\", \"failed\" or \"interrupted\"" },
		{ NULL, "{\"schema\": 1, \"index\": -3, \"repetition\": 1, \"status\": \"ok\", "
			"\"cell\": {}}", "'index' is not a non-negative integer" },
		{ NULL, "{\"schema\": 1, \"index\": 1, \"repetition\": 1, \"status\": \"ok\", "
			"\"cell\": {\"target\": [1]}}", "'cell.target' is not a string" },
		{ NULL, "{\"schema\": 1, \"index\": 1, \"repetition\": 1, \"status\": \"ok\", "
			"\"cell\": {}, \"threads\": {}}", "'threads' is not an array" },
		{ NULL, "{\"schema\": 1, \"index\": 1, \"repetition\": 1, \"status\": \"ok\", "
			"\"cell\": {}, \"intervals\": {\"read_ios\": [1, 2], \"write_ios\": [1]}}",
		  "has a different length" },
		{ NULL, "{\"schema\": 1} trailing", "unexpected data after the JSON" },
		/* inconsistent: what later code divides by or indexes with (a crafted figure) */
		{ FIXTURES "/bad/inconsistent/00005.json", NULL,
		  "'index' is 7, but the file is named for run 5" },
		{ FIXTURES "/bad/block-size-zero.json", NULL,
		  "'cell.block_size' is 0, not a positive integer" },
		{ FIXTURES "/bad/threads-zero.json", NULL,
		  "'cell.threads' is 0, not a positive integer" },
		{ FIXTURES "/bad/count-overflow.json", NULL,
		  "'total.ios' is out of range (2^64 or more)" },
		{ NULL, "{\"schema\": 1, \"index\": 0, \"repetition\": 1, \"status\": \"ok\", "
			"\"cell\": {}}", "'index' is 0, not a run of a plan (they count from 1)" },
		{ NULL, "{\"schema\": 1, \"index\": 1, \"repetition\": 1, \"status\": \"ok\", "
			"\"cell\": {\"queue_depth\": 0}}", "'cell.queue_depth' is 0, not a positive integer" },
		{ NULL, "{\"schema\": 1, \"index\": 1, \"repetition\": 1, \"status\": \"ok\", "
			"\"cell\": {\"threads\": \"4\"}}", "'cell.threads' is not an integer" },
		{ NULL, "{\"schema\": 1, \"index\": 1, \"repetition\": 1, \"status\": \"ok\", "
			"\"cell\": {\"block_size\": 99999999999999999999}}",
		  "'cell.block_size' is out of range, not a positive integer" },
		{ NULL, "{\"schema\": 1, \"index\": 1, \"repetition\": 1, \"status\": \"ok\", "
			"\"cell\": {\"read_pct\": 101}}", "'cell.read_pct' is 101, not 0 to 100" },
		{ NULL, "{\"schema\": 1, \"index\": 1, \"repetition\": 1, \"status\": \"ok\", "
			"\"cell\": {}, \"elapsed_s\": -1}",
		  "'elapsed_s' is -1, not a figure iomatrix writes (0 to 1e+15)" },
		/* crafted numbers: not finite, negative, absurd, or a null rate */
		{ NULL, "{\"schema\": 1, \"index\": 1, \"repetition\": 1, \"status\": \"ok\", "
			"\"cell\": {}, \"total\": {\"iops\": NaN}}",
		  "'total.iops' is nan, not a figure iomatrix writes (0 to 1e+15)" },
		{ NULL, "{\"schema\": 1, \"index\": 1, \"repetition\": 1, \"status\": \"ok\", "
			"\"cell\": {}, \"total\": {\"iops\": -1e308}}",
		  "'total.iops' is -1e+308, not a figure iomatrix writes (0 to 1e+15)" },
		{ NULL, "{\"schema\": 1, \"index\": 1, \"repetition\": 1, \"status\": \"ok\", "
			"\"cell\": {}, \"read\": {\"mb_s\": Infinity}}",
		  "'read.mb_s' is inf, not a figure iomatrix writes (0 to 1e+15)" },
		{ NULL, "{\"schema\": 1, \"index\": 1, \"repetition\": 1, \"status\": \"ok\", "
			"\"cell\": {}, \"write\": {\"iops\": null}}", "'write.iops' is null, not a rate" },
		{ NULL, "{\"schema\": 1, \"index\": 1, \"repetition\": 1, \"status\": \"ok\", "
			"\"cell\": {}, \"total\": {\"lat_ns\": {\"mean\": 1e300}}}",
		  "'total.lat_ns.mean' is 1e+300, not a figure iomatrix writes" },
		{ NULL, "{\"schema\": 1, \"index\": 1, \"repetition\": 1, \"status\": \"ok\", "
			"\"cell\": {}, \"total\": {\"lat_ns\": {\"stddev\": -5}}}",
		  "'total.lat_ns.stddev' is -5, not a figure iomatrix writes" },
		{ NULL, "{\"schema\": 1, \"index\": 1, \"repetition\": 1, \"status\": \"ok\", "
			"\"cell\": {}, \"cpu\": {\"busy_pct\": -0.5}}",
		  "'cpu.busy_pct' is -0.5, not a figure iomatrix writes" },
		{ NULL, "{\"schema\": 1, \"index\": 1, \"repetition\": 1, \"status\": \"ok\", "
			"\"cell\": {}, \"cpu\": {\"us_per_io\": -Infinity}}",
		  "'cpu.us_per_io' is -inf, not a figure iomatrix writes" },
		{ NULL, "{\"schema\": 1, \"index\": 1, \"repetition\": 1, \"status\": \"ok\", "
			"\"cell\": {}, \"intervals\": {\"read_ios\": [1e30], \"write_ios\": [0], "
			"\"read_bytes\": [0], \"write_bytes\": [0]}}",
		  "'intervals.read_ios[0]' is not a non-negative integer" },
		{ NULL, "{\"schema\": 1, \"index\": 1, \"repetition\": 1, \"status\": \"ok\", "
			"\"cell\": {}, \"write\": {\"bytes\": 36893488147419103232}}",
		  "'write.bytes' is out of range (2^64 or more)" },
		{ NULL, "{\"schema\": 1, \"index\": 1, \"repetition\": 1, \"status\": \"ok\", "
			"\"cell\": {}, \"stalled\": 4}", "'stalled' is not an object" },
		{ NULL, "{\"schema\": 1, \"index\": 1, \"repetition\": 1, \"status\": \"ok\", "
			"\"cell\": {}, \"stalled\": {\"gap_s\": \"4\"}}", "'stalled.gap_s' is not a number" },
	};

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		const char *name = cases[i].file ? cases[i].file : "mem.json";
		struct iom_result_file f;
		char err[IOM_ERRLEN] = "";
		int ret;

		if (cases[i].file)
			ret = iom_result_read(cases[i].file, &f, err, sizeof(err));
		else
			ret = iom_result_parse(name, cases[i].text, &f, err, sizeof(err));
		if (ret == 0 || strncmp(err, name, strlen(name)) != 0 ||
		    !strstr(err, cases[i].want)) {
			print_error("case %zu: ret %d, message '%s', want '%s'\n", i, ret, err,
				    cases[i].want);
			fail();
		}
		iom_result_file_release(&f);
	}
}

/* The checks keep every file iomatrix writes readable: a seed may be any 64-bit value, a run
 * file may sit under any name that is not a run's, and the largest counts below 2^64 - 1 read. */
static void test_result_accepts_consistent_edges(void **state)
{
	const char *text = "{\"schema\": 1, \"index\": 3, \"repetition\": 1, "
			   "\"seed\": 18446744073709551615, \"status\": \"ok\", \"elapsed_s\": 0, "
			   "\"cell\": {\"block_size\": 4096, \"threads\": 1, \"queue_depth\": 1, "
			   "\"read_pct\": 0}, \"total\": {\"ios\": 18446744073709551614}}";
	struct iom_result_file f;
	char err[IOM_ERRLEN] = "";

	(void)state;
	assert_int_equal(iom_result_parse("00003.json", text, &f, err, sizeof(err)), 0);
	assert_true(f.r.seed == UINT64_MAX);
	assert_true(f.r.dir[IOM_DIR_TOTAL].ios == UINT64_MAX - 1);
	iom_result_file_release(&f);
}

static void test_result_missing_file(void **state)
{
	struct iom_result_file f;
	char err[IOM_ERRLEN] = "";

	(void)state;
	assert_int_equal(iom_result_read("/nonexistent/00001.json", &f, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "cannot read '/nonexistent/00001.json': No such file or directory");
	iom_result_file_release(&f);
}

/* Every prefix of a valid file is refused with a message, never read as a result or a crash. */
static void test_result_every_truncation_refused(void **state)
{
	const char *dir = *state;
	struct iom_run_result r;
	char err[IOM_ERRLEN];
	char *path, *text;
	size_t len;

	fill_result(&r, 5);
	assert_int_equal(iom_result_write(test_own(dir), &matrix, &cell, &r, err, sizeof(err)), 0);
	path = iom_result_path(dir, 5);
	text = slurp(path);
	len = strlen(text);
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '}'))
		len--;
	for (size_t cut = 0; cut <= len; cut++) {
		struct iom_result_file f;
		char save = text[cut];

		text[cut] = '\0';
		err[0] = '\0';
		assert_int_not_equal(iom_result_parse("cut.json", text, &f, err, sizeof(err)), 0);
		assert_true(strncmp(err, "cut.json: ", 10) == 0);
		iom_result_file_release(&f);
		text[cut] = save;
	}
	free(text);
	free(path);
	iom_run_result_release(&r);
}

/* A committed fixture written by schema 1 stays readable. */
static void test_result_reads_fixture(void **state)
{
	struct iom_result_file f;
	char err[IOM_ERRLEN] = "";

	(void)state;
	assert_int_equal(iom_result_read(FIXTURES "/diskspd/runs/00001.json", &f, err,
					 sizeof(err)), 0);
	assert_int_equal(f.r.index, 1);
	assert_int_equal(f.r.status, IOM_RUN_OK);
	assert_int_equal(f.r.nthreads, 4);
	assert_true(f.r.dir[IOM_DIR_TOTAL].bytes == 60457844736ull);
	assert_true(f.r.threads[0].dir[IOM_DIR_TOTAL].ios == 924730);
	assert_string_equal(iom_result_cell_get(&f, "block_size"), "16384");
	/* written before stalls were judged: no "stalled" field, read as not stalled */
	assert_false(f.r.stall.stalled);
	assert_null(f.r.stall.reason);
	iom_result_file_release(&f);
}

/* ---- study.json ---- */

static void test_result_study_round_trip(void **state)
{
	const char *dir = *state;
	struct iom_plan plan = { .m = &matrix, .ncells = 4, .nruns = 12,
				 .hash = 0x0123456789abcdefull };
	struct iom_override ov[2] = { { "workload.block_size", "[4K, 8K]" },
				      { "timing.repeat", "3" } };
	struct iom_target_info info[2] = { 0 };
	struct iom_study_record rec = { .plan = &plan, .ov = ov, .nov = 2, .targets = info,
					.ntargets = 2, .start_wall_ns = 1764460800000000000ull };
	struct iom_study_info s;
	char err[IOM_ERRLEN] = "";
	char *path = xasprintf("%s/study.json", dir);

	plan.varies[IOM_DIM_TARGET] = plan.varies[IOM_DIM_QUEUE_DEPTH] = true;
	info[1].t = &targets[1];
	info[1].is_block = true;
	info[1].region = 8ull << 30;
	info[1].controller = "vmw_pvscsi";
	info[1].facts = (struct iom_device_facts){
		.device = "/dev/sdz", .driver = "vmw_pvscsi", .model = "Virtual disk",
		.vendor = "VMware", .logical_block_size = 512, .physical_block_size = 4096,
		.rotational = 0, .scheduler = "mq-deadline", .nr_requests = 256,
		.device_bytes = 8ull << 30,
	};

	assert_int_equal(iom_study_write(test_own(dir), &rec, err, sizeof(err)), 0);
	assert_int_equal(iom_study_read(path, &s, err, sizeof(err)), 0);
	assert_string_equal(s.name, "demo");
	assert_string_equal(s.description, "two controllers");
	assert_string_equal(s.matrix_file, "demo.cfg");
	assert_string_equal(s.compare, "target");
	assert_non_null(s.tool_version); /* IOM_VERSION of result.o's build */
	assert_true(strlen(s.tool_version) > 0);
	assert_true(s.plan_hash == 0x0123456789abcdefull);
	assert_int_equal(s.nruns, 12);
	assert_int_equal(s.ncells, 4);
	assert_true(s.seed == 42);
	assert_true(s.timing.warmup_ns == 2000000000);
	assert_true(s.timing.duration_ns == 10500000000);
	assert_true(s.timing.cooldown_ns == 1000000000);
	assert_true(s.timing.rest_ns == 250000000);
	assert_int_equal(s.timing.repeat, 3);
	assert_close(0.05, s.report.alpha);
	assert_close(2, s.report.min_effect_pct);
	assert_int_equal(s.noverrides, 2);
	assert_string_equal(s.overrides[0], "workload.block_size=[4K, 8K]");
	assert_non_null(s.host);
	assert_non_null(s.kernel);
	assert_true(s.ncpu >= 1);
	assert_true(s.start_wall_ns == 1764460800000000000ull);
	assert_true(s.end_wall_ns == 0);
	assert_int_equal(s.ntargets, 2);
	assert_string_equal(s.targets[0].label, "lsi, \"sas\"");
	assert_false(s.targets[0].has_facts);
	assert_string_equal(s.targets[0].controller, "auto");
	assert_true(s.targets[0].size == 1 << 30);
	assert_true(s.targets[1].has_facts);
	assert_true(s.targets[1].is_block);
	assert_true(s.targets[1].region == 8ull << 30);
	assert_string_equal(s.targets[1].controller, "vmw_pvscsi");
	assert_string_equal(s.targets[1].facts.model, "Virtual disk");
	assert_string_equal(s.targets[1].facts.scheduler, "mq-deadline");
	assert_int_equal(s.targets[1].facts.physical_block_size, 4096);
	assert_int_equal(s.targets[1].facts.rotational, 0);
	assert_null(s.targets[1].facts.fstype);
	assert_ptr_equal(iom_study_target_find(&s, "pvscsi"), &s.targets[1]);
	assert_null(iom_study_target_find(&s, "nope"));
	iom_study_info_release(&s);

	/* Rewritten at the end of the sweep. */
	rec.end_wall_ns = 1764460900000000000ull;
	assert_int_equal(iom_study_write(test_own(dir), &rec, err, sizeof(err)), 0);
	assert_int_equal(iom_study_read(path, &s, err, sizeof(err)), 0);
	assert_true(s.end_wall_ns == 1764460900000000000ull);
	iom_study_info_release(&s);
	free(path);
}

static void test_result_study_newer_schema(void **state)
{
	struct iom_study_info s;
	char err[IOM_ERRLEN] = "";

	(void)state;
	assert_int_not_equal(iom_study_read(FIXTURES "/bad/newer-schema.json", &s, err,
					    sizeof(err)), 0);
	assert_string_equal(err, FIXTURES "/bad/newer-schema.json: schema 2 is newer than this "
				 "iomatrix reads (1)");
	iom_study_info_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		IN_RESULTS_DIR(test_result_round_trip),
		IN_RESULTS_DIR(test_result_stall_round_trip),
		IN_RESULTS_DIR(test_result_disk_round_trip),
		IN_RESULTS_DIR(test_result_paths_round_trip),
		IN_RESULTS_DIR(test_result_access_round_trip),
		cmocka_unit_test(test_result_load_held),
		IN_RESULTS_DIR(test_result_hist_round_trip),
		IN_RESULTS_DIR(test_result_writes_readable_numbers),
		IN_RESULTS_DIR(test_result_load_round_trip),
		IN_RESULTS_DIR(test_result_response_hist_round_trip),
		cmocka_unit_test(test_result_path_digits),
		IN_RESULTS_DIR(test_result_list_ignores_other_files),
		IN_RESULTS_DIR(test_result_summary_csv),
		cmocka_unit_test(test_result_rejects_bad_files),
		cmocka_unit_test(test_result_accepts_consistent_edges),
		cmocka_unit_test(test_result_missing_file),
		IN_RESULTS_DIR(test_result_every_truncation_refused),
		cmocka_unit_test(test_result_reads_fixture),
		IN_RESULTS_DIR(test_result_study_round_trip),
		cmocka_unit_test(test_result_study_newer_schema),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
