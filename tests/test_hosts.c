/* SPDX-License-Identifier: MIT */
/*
 * test_hosts — the logic above a host backend (hosts.h), without MPI: the aggregate of a run's
 * per-host rows (totals summed, the window first start to last end, percentiles of the merged
 * histogram rather than an average of the hosts', stragglers, a failed host named), ${host} and
 * ${rank} in target paths, and how a launch by mpirun/srun is recognised.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/engine.h"
#include "host/hosts.h"
#include "matrix/matrix.h"
#include "util.h"

/* A row of host rank with ios I/Os in [start, start + len) ns and its iops over that. */
static struct iom_host_row row(uint32_t rank, uint64_t ios, uint64_t start, uint64_t len)
{
	struct iom_host_row r = { .rank = rank, .status = IOM_RUN_OK };

	snprintf(r.host, sizeof(r.host), "vm%u", rank);
	r.ios[IOM_DIR_READ] = r.ios[IOM_DIR_TOTAL] = ios;
	r.bytes[IOM_DIR_READ] = r.bytes[IOM_DIR_TOTAL] = ios * 4096;
	r.start_ns = start;
	r.end_ns = start + len;
	r.iops = (double)ios / ((double)len / 1e9);
	r.user_s = 0.25;
	return r;
}

static void test_hosts_aggregate_sums_and_merges(void **state)
{
	struct iom_hist *h = calloc(IOM_NDIR, sizeof(*h)), *one = calloc(3, sizeof(*one));
	struct iom_host_row rows[3];
	struct iom_run_result r = { .status = IOM_RUN_OK };
	double avg_p99 = 0;

	(void)state;
	for (unsigned d = 0; d < IOM_NDIR; d++)
		iom_hist_init(&h[d]);
	/* three hosts of very different latency: 1000 I/Os each at 10 µs, 100 µs, 1 ms */
	for (unsigned k = 0; k < 3; k++) {
		uint64_t ns = k == 0 ? 10000 : k == 1 ? 100000 : 1000000;

		iom_hist_init(&one[k]);
		for (unsigned i = 0; i < 1000; i++)
			iom_hist_record(&one[k], ns + i);
		iom_hist_merge(&h[IOM_DIR_READ], &one[k]);
		iom_hist_merge(&h[IOM_DIR_TOTAL], &one[k]);
		avg_p99 += (double)iom_hist_percentile(&one[k], 99) / 3;
	}
	rows[0] = row(0, 1000, 1000000000, 500000000);
	rows[1] = row(1, 1000, 1002000000, 500000000);   /* 2 ms later */
	rows[2] = row(2, 1000, 999000000, 501000000);    /* 1 ms earlier */
	iom_hosts_aggregate(&r, rows, 3, h);
	assert_int_equal(r.nhosts, 3);
	assert_int_equal(r.dir[IOM_DIR_TOTAL].ios, 3000);
	assert_int_equal(r.dir[IOM_DIR_TOTAL].bytes, 3000 * 4096);
	/* the window: first start (rank 2) to last end (rank 1) */
	assert_true(r.elapsed_s > 0.502999 && r.elapsed_s < 0.503001);
	assert_true(r.dir[IOM_DIR_TOTAL].iops > 3000 / 0.503 - 0.01 &&
		    r.dir[IOM_DIR_TOTAL].iops < 3000 / 0.503 + 0.01);
	/* p99 of the union: the slowest host's, not the average of the three p99s */
	assert_int_equal(r.dir[IOM_DIR_TOTAL].lat.pct[iom_percentile_index(99)],
			 iom_hist_percentile(&h[IOM_DIR_TOTAL], 99));
	assert_true(r.dir[IOM_DIR_TOTAL].lat.pct[iom_percentile_index(99)] > 990000);
	assert_true(avg_p99 < 400000);
	/* CPU summed */
	assert_true(r.cpu.proc_user_s > 0.749 && r.cpu.proc_user_s < 0.751);
	assert_int_equal(r.status, IOM_RUN_OK);
	for (unsigned k = 0; k < 3; k++)
		assert_false(r.hosts[k].straggler);
	iom_run_result_release(&r);
	free(h);
	free(one);
}

static void test_hosts_straggler_below_median(void **state)
{
	struct iom_hist *h = calloc(IOM_NDIR, sizeof(*h));
	struct iom_host_row rows[3];
	struct iom_run_result r = { .status = IOM_RUN_OK };

	(void)state;
	for (unsigned d = 0; d < IOM_NDIR; d++)
		iom_hist_init(&h[d]);
	rows[0] = row(0, 1000, 1, 1000000000);
	rows[1] = row(1, 890, 1, 1000000000);  /* 2 % below the median: not a straggler */
	rows[2] = row(2, 910, 1, 1000000000);  /* the median itself */
	iom_hosts_aggregate(&r, rows, 3, h);
	assert_false(r.hosts[0].straggler);
	assert_false(r.hosts[1].straggler);
	assert_false(r.hosts[2].straggler);
	iom_run_result_release(&r);
	memset(&r, 0, sizeof(r));
	rows[1] = row(1, 810, 1, 1000000000);  /* 11 % below 910 */
	iom_hosts_aggregate(&r, rows, 3, h);
	assert_true(r.hosts[1].straggler);
	assert_false(r.hosts[0].straggler);
	iom_run_result_release(&r);
	free(h);
}

/* The spread of the windows' starts, in rank 0's clock: the last minus the first
 * (a rank that measured nothing, start 0, is left out). */
static void test_hosts_start_spread(void **state)
{
	struct iom_hist *h = calloc(IOM_NDIR, sizeof(*h));
	struct iom_host_row rows[4];
	struct iom_run_result r = { .status = IOM_RUN_OK };

	(void)state;
	for (unsigned d = 0; d < IOM_NDIR; d++)
		iom_hist_init(&h[d]);
	rows[0] = row(0, 1000, 1000000000, 500000000);
	rows[1] = row(1, 1000, 1000150000, 500000000);   /* 150 µs later */
	rows[2] = row(2, 1000, 999900000, 500000000);    /* 100 µs earlier */
	rows[3] = row(3, 0, 0, 0);                       /* failed before its window */
	rows[3].start_ns = rows[3].end_ns = 0;
	iom_hosts_aggregate(&r, rows, 4, h);
	assert_int_equal(r.start_spread_ns, 250000);
	iom_run_result_release(&r);
	memset(&r, 0, sizeof(r));
	iom_hosts_aggregate(&r, rows + 3, 1, h);         /* nobody measured: no spread */
	assert_int_equal(r.start_spread_ns, 0);
	iom_run_result_release(&r);
	free(h);
}

static void test_hosts_failed_rank_is_named(void **state)
{
	struct iom_hist *h = calloc(IOM_NDIR, sizeof(*h));
	struct iom_host_row rows[2];
	struct iom_run_result r = { .status = IOM_RUN_OK };

	(void)state;
	for (unsigned d = 0; d < IOM_NDIR; d++)
		iom_hist_init(&h[d]);
	rows[0] = row(0, 1000, 1, 1000000000);
	rows[1] = row(1, 0, 0, 0);
	rows[1].status = IOM_RUN_FAILED;
	snprintf(rows[1].error, sizeof(rows[1].error), "write at offset 0 failed: EIO");
	iom_hosts_aggregate(&r, rows, 2, h);
	assert_int_equal(r.status, IOM_RUN_FAILED);
	assert_non_null(strstr(r.error, "rank 1 (host vm1): write at offset 0 failed"));
	/* the others' data kept */
	assert_int_equal(r.hosts[0].ios[IOM_DIR_TOTAL], 1000);
	assert_int_equal(r.dir[IOM_DIR_TOTAL].ios, 1000);
	iom_run_result_release(&r);
	free(h);
}

/* A window judged stalled, or not steady, on any rank is the aggregate's (also when rank 0,
 * whose own result is then empty, sat the run out). */
static void test_hosts_stall_and_steady_of_any_rank(void **state)
{
	struct iom_hist *h = calloc(IOM_NDIR, sizeof(*h));
	struct iom_host_row rows[3];
	struct iom_run_result r = { .status = IOM_RUN_OK };

	(void)state;
	for (unsigned d = 0; d < IOM_NDIR; d++)
		iom_hist_init(&h[d]);
	for (unsigned i = 0; i < 3; i++) {
		rows[i] = row(i, 1000, 1, 1000000000);
		rows[i].steady_asked = true;
		rows[i].steady_reached = true;
	}
	rows[2].stalled = true;
	snprintf(rows[2].stall_reason, sizeof(rows[2].stall_reason), "no I/O completed for 1.5 s");
	rows[1].steady_reached = false;
	iom_hosts_aggregate(&r, rows, 3, h);
	assert_true(r.stall.stalled);
	assert_non_null(strstr(r.stall.reason, "rank 2 (host vm2): no I/O completed for 1.5 s"));
	assert_true(r.steady.asked);
	assert_false(r.steady.reached);
	iom_run_result_release(&r);
	memset(&r, 0, sizeof(r));
	rows[2].stalled = false;
	rows[1].steady_reached = true;
	iom_hosts_aggregate(&r, rows, 3, h);
	assert_false(r.stall.stalled);
	assert_true(r.steady.asked && r.steady.reached);
	iom_run_result_release(&r);
	free(h);
}

static void test_hosts_expand_paths(void **state)
{
	struct iom_target t[2] = { { .label = "a" }, { .label = "b" } };
	struct iom_matrix m = { .targets = t, .ntargets = 2 };
	struct iom_hosts h = { .rank = 12 };

	(void)state;
	snprintf(h.host, sizeof(h.host), "vm3");
	t[0].path = xstrdup("/scratch/${host}/r${rank}.s${rank}");
	t[1].path = xstrdup("/dev/sdb");
	iom_hosts_expand_paths(&h, &m);
	assert_string_equal(t[0].path, "/scratch/vm3/r12.s12");
	assert_string_equal(t[1].path, "/dev/sdb");
	free(t[0].path);
	free(t[1].path);
}

/* Several paths: each gets this rank's ${host} and ${rank}, path (a copy of the first) too. */
static void test_hosts_expand_several_paths(void **state)
{
	char *paths[2] = { xstrdup("/a/${host}-${rank}"), xstrdup("/b/${rank}") };
	struct iom_target t = { .label = "p", .path = xstrdup("/a/${host}-${rank}"), .paths = paths,
				.npaths = 2 };
	struct iom_matrix m = { .targets = &t, .ntargets = 1 };
	struct iom_hosts h = { .rank = 2 };

	(void)state;
	snprintf(h.host, sizeof(h.host), "vm9");
	iom_hosts_expand_paths(&h, &m);
	assert_string_equal(t.path, "/a/vm9-2");
	assert_string_equal(paths[0], "/a/vm9-2");
	assert_string_equal(paths[1], "/b/2");
	free(t.path);
	free(paths[0]);
	free(paths[1]);
}

/* A backend of one process standing for rank `rank` of `size`: a broadcast leaves what is
 * there, a max is the others' (`others`) or this one's. */
struct fake_job {
	uint64_t others;
};

static int fake_bcast(void *ctx, void *buf, size_t len)
{
	(void)ctx;
	(void)buf;
	(void)len;
	return 0;
}

static int fake_allmax(void *ctx, uint64_t *v)
{
	struct fake_job *j = ctx;

	*v = IOM_MAX(*v, j->others);
	return 0;
}

/* The offered load each rank of a run offers: rate_scope "rank" keeps a number, "total" and a
 * share split it over the ranks that run the cell (ranks = 2: two of three). */
static void test_hosts_rate_split(void **state)
{
	static const struct {
		const char *scope, *rate, *ranks;
		int64_t derived, want;
	} cases[] = {
		{ "rank", "3000", "", 3000, 3000 },
		{ "total", "3000", "", 3000, 1000 },
		{ "total", "3000", "ranks = 2;", 3000, 1500 },
		{ "rank", "\"50%\"", "", 600000, 200000 },   /* a share of the aggregate max */
		{ "total", "\"50%\"", "", 600000, 200000 },
		{ "total", "2", "", 2, 1 },                 /* never below one I/O per second */
	};
	static const char *const names[] = { "vm0", "vm1", "vm2" };
	const struct iom_hosts_ops ops = { .bcast = fake_bcast };

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		char cfg[512], err[IOM_ERRLEN];
		struct iom_hosts h = { .rank = 0, .size = 3, .ops = &ops };
		struct iom_matrix *m;
		struct iom_plan p;
		const struct iom_run *run = NULL;

		snprintf(cfg, sizeof(cfg), "iomatrix = 1;\nrate_scope = \"%s\";\n"
			 "targets = ( { label = \"a\"; path = \"a.scratch\"; size = \"1M\"; } );\n"
			 "workload = { rate_iops = %s; %s };\ntiming = { duration = \"1s\"; };\n",
			 cases[i].scope, strchr(cases[i].rate, '%') ? "[ \"max\", \"50%\" ]"
			 : cases[i].rate, cases[i].ranks);
		assert_int_equal(iom_matrix_parse("t.cfg", cfg, NULL, 0, &m, err, sizeof(err)), 0);
		assert_int_equal(iom_matrix_place(m, 3, names, err, sizeof(err)), 0);
		assert_int_equal(iom_plan_build(m, &p, err, sizeof(err)), 0);
		for (size_t k = 0; k < p.nruns && !run; k++)
			if (p.cells[p.runs[k].cell].v[IOM_DIM_RATE_IOPS] != IOM_RATE_MAX)
				run = &p.runs[k];
		assert_non_null(run);
		assert_int_equal(iom_hosts_next(&h, &p, run, 0, cases[i].derived, 0), 0);
		assert_int_equal(h.rate_iops, cases[i].want);
		assert_false(h.rate_failed);
		/* rank 0 could not derive it: the run fails on every rank */
		assert_int_equal(iom_hosts_next(&h, &p, run, -ENOENT, 0, 0), 0);
		assert_true(h.rate_failed);
		iom_plan_release(&p);
		iom_matrix_free(m);
	}
}

/* A before_run hook's outcome agreed: this rank's failure is its own; another's fails the run
 * here too, naming the first rank that failed; the agreement is made once per run. */
static void test_hosts_agree_hook(void **state)
{
	static char *names[] = { "vm0", "vm1", "vm2" };
	struct fake_job j = { 0 };
	const struct iom_hosts_ops ops = { .allmax = fake_allmax };
	struct iom_hosts h = { .rank = 1, .size = 3, .ops = &ops, .ctx = &j, .names = names,
			       .hook_agree = true };
	char err[IOM_ERRLEN] = "";

	(void)state;
	assert_int_equal(iom_hosts_agree_hook(&h, 0, err, sizeof(err)), 0);     /* none failed */
	h.hook_agreed = false;
	j.others = 3 - 2;                                                         /* rank 2 failed */
	assert_int_equal(iom_hosts_agree_hook(&h, 0, err, sizeof(err)), -ECANCELED);
	assert_string_equal(err, "the before_run hook failed on rank 2 (host vm2)");
	assert_int_equal(iom_hosts_agree_hook(&h, 0, err, sizeof(err)), 0);     /* once a run */
	h.hook_agreed = false;
	assert_int_equal(iom_hosts_agree_hook(&h, -EIO, err, sizeof(err)), -EIO); /* its own */
	h.hook_agree = h.hook_agreed = false;                     /* hooks on rank 0 alone */
	assert_int_equal(iom_hosts_agree_hook(&h, 0, err, sizeof(err)), 0);
}

/* A fake other host for run.c's stonewall point: "done" after `after` polls. */
struct fake_peer {
	unsigned polls, after;
	unsigned self_done;
};

static bool fake_stonewall(void *arg, bool self_done)
{
	struct fake_peer *f = arg;

	if (self_done) {
		f->self_done++;
		return false;
	}
	return ++f->polls >= f->after;
}

static struct iom_run_spec bytes_spec(uint64_t bytes, struct fake_peer *f)
{
	return (struct iom_run_spec){
		.fd = -1, .region = 1ull << 30,
		.wl = { .block_size = 4096, .queue_depth = 8, .threads = 1, .read_pct = 100,
			.pattern = IOM_PATTERN_RANDOM, .engine = IOM_ENGINE_NULL },
		.timing = { .bytes = bytes },
		.seed = 5, .index = 1, .repetition = 1,
		.stonewall = fake_stonewall, .sync_arg = f,
	};
}

static void test_hosts_stonewall_ends_the_window(void **state)
{
	/* another host is done after 5 polls (about 50 ms): this one's share of 1 TiB is not,
	 * and its window ends then, marked */
	struct fake_peer f = { .after = 5 };
	struct iom_run_spec spec = bytes_spec(1ull << 40, &f);
	struct iom_run_result r;
	char err[256];

	(void)state;
	assert_int_equal(iom_run_execute(&spec, &r, err, sizeof(err)), 0);
	assert_int_equal(r.status, IOM_RUN_OK);
	assert_true(r.stonewalled);
	assert_int_equal(f.polls, 5);
	assert_int_equal(f.self_done, 0);
	assert_true(r.dir[IOM_DIR_TOTAL].ios > 0);
	assert_true(r.dir[IOM_DIR_TOTAL].bytes < (1ull << 40));
	assert_true(r.elapsed_s > 0.02 && r.elapsed_s < 30);
	iom_run_result_release(&r);

	/* this host's share done first: it says so once, and is not stonewalled */
	f = (struct fake_peer){ .after = 1u << 30 };
	spec = bytes_spec(4ull << 20, &f);
	assert_int_equal(iom_run_execute(&spec, &r, err, sizeof(err)), 0);
	assert_false(r.stonewalled);
	assert_int_equal(f.self_done, 1);
	assert_int_equal(r.dir[IOM_DIR_TOTAL].bytes, 4ull << 20);
	iom_run_result_release(&r);
}

static void test_hosts_launched_many(void **state)
{
	(void)state;
	unsetenv("OMPI_COMM_WORLD_SIZE");
	unsetenv("PMI_SIZE");
	unsetenv("PMIX_RANK");
	assert_false(iom_hosts_launched_many());
	setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
	assert_false(iom_hosts_launched_many()); /* mpirun -np 1: one host, fine */
	setenv("OMPI_COMM_WORLD_SIZE", "3", 1);
	assert_true(iom_hosts_launched_many());
	unsetenv("OMPI_COMM_WORLD_SIZE");
	setenv("PMI_SIZE", "2", 1);               /* srun, MPICH */
	assert_true(iom_hosts_launched_many());
	unsetenv("PMI_SIZE");
	setenv("PMIX_RANK", "0", 1);
	assert_false(iom_hosts_launched_many());
	setenv("PMIX_RANK", "2", 1);
	assert_true(iom_hosts_launched_many());
	unsetenv("PMIX_RANK");
}

/* hosts = "each" and ranks = N (docs/hosts.md): the host dimension of every rank, labelled,
 * compared by default; which ranks take part in a cell; ranks beyond the job refused. */
static void test_hosts_placement(void **state)
{
	static const char *const names[] = { "vm0", "vm1", "vm2" };
	const char *each = "iomatrix = 1;\nhosts = \"each\";\n"
			   "targets = ( { label = \"a\"; path = \"a.scratch\"; size = \"1M\"; } );\n"
			   "workload = { read_pct = [100, 0]; };\ntiming = { duration = \"1s\"; };\n";
	const char *ranks = "iomatrix = 1;\n"
			    "targets = ( { label = \"a\"; path = \"a.scratch\"; size = \"1M\"; } );\n"
			    "workload = {\n  ranks = [1, 3];\n};\ntiming = { duration = \"1s\"; };\n";
	struct iom_matrix *m;
	struct iom_plan p;
	char err[IOM_ERRLEN], v[64];
	size_t on[3] = { 0 };

	(void)state;
	assert_int_equal(iom_matrix_parse("t.cfg", each, NULL, 0, &m, err, sizeof(err)), 0);
	assert_int_equal(iom_matrix_place(m, 3, names, err, sizeof(err)), 0);
	assert_int_equal(m->compare, IOM_DIM_HOST);
	assert_int_equal(iom_plan_build(m, &p, err, sizeof(err)), 0);
	assert_int_equal(p.ncells, 6); /* 2 read_pct x 3 hosts */
	for (size_t c = 0; c < p.ncells; c++) {
		unsigned n = 0;

		for (unsigned r = 0; r < 3; r++)
			if (iom_hosts_takes_part(&p, &p.cells[c], r)) {
				assert_int_equal(p.cells[c].v[IOM_DIM_HOST], r);
				on[r]++;
				n++;
			}
		assert_int_equal(n, 1); /* one rank alone */
	}
	assert_int_equal(on[0], 2);
	assert_int_equal(on[2], 2);
	for (size_t c = 0; c < p.ncells; c++) { /* each value by its label */
		iom_cell_value(&p, &p.cells[c], IOM_DIM_HOST, v, sizeof(v));
		assert_string_equal(v, p.cells[c].v[IOM_DIM_HOST] == 0 ? "r0@vm0" :
				    p.cells[c].v[IOM_DIM_HOST] == 1 ? "r1@vm1" : "r2@vm2");
	}
	iom_plan_release(&p);
	iom_matrix_free(m);

	/* one host: one value, compared as before */
	assert_int_equal(iom_matrix_parse("t.cfg", each, NULL, 0, &m, err, sizeof(err)), 0);
	assert_int_equal(iom_matrix_place(m, 1, NULL, err, sizeof(err)), 0);
	assert_int_equal(m->compare, IOM_DIM_TARGET);
	assert_int_equal(iom_plan_build(m, &p, err, sizeof(err)), 0);
	assert_int_equal(p.ncells, 2);
	iom_plan_release(&p);
	iom_matrix_free(m);

	/* ranks = [1, 3]: the first N ranks; 3 on a job of 2 is refused on its line */
	assert_int_equal(iom_matrix_parse("t.cfg", ranks, NULL, 0, &m, err, sizeof(err)), 0);
	assert_int_equal(iom_matrix_place(m, 2, names, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.cfg:4: ranks 3 is more than the 2 ranks of this job"));
	iom_matrix_free(m);
	assert_int_equal(iom_matrix_parse("t.cfg", ranks, NULL, 0, &m, err, sizeof(err)), 0);
	assert_int_equal(iom_matrix_place(m, 3, names, err, sizeof(err)), 0);
	assert_int_equal(iom_plan_build(m, &p, err, sizeof(err)), 0);
	assert_int_equal(p.ncells, 2);
	for (size_t c = 0; c < p.ncells; c++)
		for (unsigned r = 0; r < 3; r++)
			assert_int_equal(iom_hosts_takes_part(&p, &p.cells[c], r),
					 (int64_t)r < p.cells[c].v[IOM_DIM_RANKS]);
	iom_plan_release(&p);
	iom_matrix_free(m);
}

/* A target's hosts = [ … ] (docs/hosts.md): on the ranks named by hostname or rank:N only, its
 * cells sat out elsewhere (with hosts = "each", left out of the plan there); on no rank refused. */
static void test_hosts_target_hosts(void **state)
{
	static const char *const names[] = { "vm0", "vm1", "vm1" };
	const char *text = "iomatrix = 1;\n%s"
			   "targets = ( { label = \"a\"; path = \"a\"; size = \"1M\"; hosts = "
			   "[ %s ]; },\n  { label = \"b\"; path = \"b\"; size = \"1M\"; } );\n"
			   "timing = { duration = \"1s\"; };\n";
	struct iom_matrix *m;
	struct iom_plan p;
	char err[IOM_ERRLEN], cfg[512];

	(void)state;
	snprintf(cfg, sizeof(cfg), text, "", "\"vm1\"");
	assert_int_equal(iom_matrix_parse("t.cfg", cfg, NULL, 0, &m, err, sizeof(err)), 0);
	assert_int_equal(iom_matrix_place(m, 3, names, err, sizeof(err)), 0);
	assert_int_equal(iom_plan_build(m, &p, err, sizeof(err)), 0);
	assert_int_equal(p.ncells, 2);
	for (size_t c = 0; c < p.ncells; c++)
		for (unsigned r = 0; r < 3; r++)
			assert_int_equal(iom_hosts_takes_part(&p, &p.cells[c], r),
					 p.cells[c].v[IOM_DIM_TARGET] == 1 || r > 0);
	iom_plan_release(&p);
	iom_matrix_free(m);

	/* hosts = "each": a's cells only on ranks 0 and 2 (rank:0 and vm1's second rank) */
	snprintf(cfg, sizeof(cfg), text, "hosts = \"each\";\n", "\"rank:0\", \"rank:2\"");
	assert_int_equal(iom_matrix_parse("t.cfg", cfg, NULL, 0, &m, err, sizeof(err)), 0);
	assert_int_equal(iom_matrix_place(m, 3, names, err, sizeof(err)), 0);
	assert_int_equal(iom_plan_build(m, &p, err, sizeof(err)), 0);
	assert_int_equal(p.ncells, 5); /* a on r0, r2; b on r0, r1, r2 */
	for (size_t c = 0; c < p.ncells; c++)
		assert_false(p.cells[c].v[IOM_DIM_TARGET] == 0 && p.cells[c].v[IOM_DIM_HOST] == 1);
	iom_plan_release(&p);
	iom_matrix_free(m);

	/* on no rank of the job */
	snprintf(cfg, sizeof(cfg), text, "", "\"vm7\"");
	assert_int_equal(iom_matrix_parse("t.cfg", cfg, NULL, 0, &m, err, sizeof(err)), 0);
	assert_int_equal(iom_matrix_place(m, 3, names, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.cfg:2: target 'a' lives on no rank of this job"));
	iom_matrix_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hosts_aggregate_sums_and_merges),
		cmocka_unit_test(test_hosts_straggler_below_median),
		cmocka_unit_test(test_hosts_start_spread),
		cmocka_unit_test(test_hosts_failed_rank_is_named),
		cmocka_unit_test(test_hosts_stall_and_steady_of_any_rank),
		cmocka_unit_test(test_hosts_expand_paths),
		cmocka_unit_test(test_hosts_expand_several_paths),
		cmocka_unit_test(test_hosts_rate_split),
		cmocka_unit_test(test_hosts_agree_hook),
		cmocka_unit_test(test_hosts_launched_many),
		cmocka_unit_test(test_hosts_stonewall_ends_the_window),
		cmocka_unit_test(test_hosts_placement),
		cmocka_unit_test(test_hosts_target_hosts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
