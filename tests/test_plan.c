/* SPDX-License-Identifier: MIT */
/*
 * Tests of the plan: nesting order (named, then file order; values in first-appearance order),
 * ranges, excludes, grouped and interleaved repetitions, a reproducible shuffle, seeds that
 * follow the cell and not its position, exact counts and the refusal of huge plans before any
 * allocation, the golden plan of matrices/atto.cfg, and the three output formats.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "util.h"

#define TARGETS2                                                                   \
	"iomatrix = 1;\n"                                                          \
	"targets = ( { label = \"a\"; path = \"a\"; size = \"1G\"; },\n"           \
	"            { label = \"b\"; path = \"b\"; size = \"1G\"; } );\n"

struct fixture {
	struct iom_matrix *m;
	struct iom_plan p;
};

static void build(struct fixture *f, const char *text)
{
	char err[IOM_ERRLEN] = "";

	if (iom_matrix_parse("t.cfg", text, NULL, 0, &f->m, err, sizeof(err)) != 0)
		fail_msg("matrix refused: %s", err);
	if (iom_plan_build(f->m, &f->p, err, sizeof(err)) != 0)
		fail_msg("plan refused: %s", err);
}

static void release(struct fixture *f)
{
	iom_plan_release(&f->p);
	iom_matrix_free(f->m);
}

/* The plan as "target:value|…" lines of the given dimensions, one per run. */
static char *runs_text(const struct iom_plan *p, const enum iom_dim *dims, size_t n)
{
	char *buf = NULL, v[64];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	for (size_t i = 0; i < p->nruns; i++) {
		const struct iom_cell *c = &p->cells[p->runs[i].cell];

		for (size_t d = 0; d < n; d++) {
			iom_cell_value(p, c, dims[d], v, sizeof(v));
			fprintf(f, "%s%s", d ? " " : "", v);
		}
		fprintf(f, "/%u\n", p->runs[i].repetition);
	}
	fclose(f);
	return buf;
}

static void test_plan_order_named_then_file(void **state)
{
	struct fixture f;
	static const enum iom_dim dims[] = { IOM_DIM_TARGET, IOM_DIM_READ_PCT,
					     IOM_DIM_QUEUE_DEPTH };
	char *text;

	(void)state;
	/* read_pct named outermost; then target (line 2), then queue_depth (file order) */
	build(&f, TARGETS2
	      "workload = { queue_depth = [ 32, 1 ]; read_pct = [ 0, 100 ]; };\n"
	      "timing = { duration = \"1s\"; };\n"
	      "order = [ \"read_pct\" ];\n");
	text = runs_text(&f.p, dims, 3);
	assert_string_equal(text, "a 0 32/1\na 0 1/1\nb 0 32/1\nb 0 1/1\n"
				  "a 100 32/1\na 100 1/1\nb 100 32/1\nb 100 1/1\n");
	assert_int_equal(f.p.ncells, 8);
	assert_true(f.p.varies[IOM_DIM_TARGET] && f.p.varies[IOM_DIM_READ_PCT] &&
		    f.p.varies[IOM_DIM_QUEUE_DEPTH]);
	assert_false(f.p.varies[IOM_DIM_BLOCK_SIZE]);
	free(text);
	release(&f);
}

static void test_plan_per_target_values_first_appearance(void **state)
{
	struct fixture f;
	static const enum iom_dim dims[] = { IOM_DIM_QUEUE_DEPTH, IOM_DIM_TARGET };
	char *text;

	(void)state;
	/* b adds qd 128 after a's values; order by qd outermost: 1, 32 (a's), then 128 (b's) */
	build(&f, "iomatrix = 1;\n"
		  "targets = ( { label = \"a\"; path = \"a\"; size = \"1G\"; queue_depth = [ 1, 32 ]; },\n"
		  "  { label = \"b\"; path = \"b\"; size = \"1G\"; queue_depth = [ 128, 32, 1 ]; } );\n"
		  "timing = { duration = \"1s\"; };\n"
		  "order = [ \"queue_depth\", \"target\" ];\n");
	text = runs_text(&f.p, dims, 2);
	assert_string_equal(text, "1 a/1\n1 b/1\n32 a/1\n32 b/1\n128 b/1\n");
	free(text);
	release(&f);
}

static void test_plan_ranges(void **state)
{
	struct fixture f;
	static const enum iom_dim dims[] = { IOM_DIM_BLOCK_SIZE, IOM_DIM_THREADS };
	char *text;

	(void)state;
	build(&f, "iomatrix = 1;\n"
		  "targets = ( { label = \"a\"; path = \"a\"; size = \"1G\"; } );\n"
		  "workload = { block_size = { from = \"512\"; to = \"3K\"; };\n"
		  "             threads = { from = 1; to = 6; step = 2; }; };\n"
		  "timing = { duration = \"1s\"; };\n");
	text = runs_text(&f.p, dims, 2);
	/* 512, 1K, 2K (4K > 3K) x 1, 3, 5 */
	assert_string_equal(text, "512 1/1\n512 3/1\n512 5/1\n1K 1/1\n1K 3/1\n1K 5/1\n"
				  "2K 1/1\n2K 3/1\n2K 5/1\n");
	free(text);
	release(&f);
}

static void test_plan_excludes(void **state)
{
	struct fixture f;

	(void)state;
	build(&f, TARGETS2
	      "workload = { threads = [ 1, 8 ]; queue_depth = [ 1, 64, 128 ]; };\n"
	      "timing = { duration = \"1s\"; repeat = 2; };\n"
	      "exclude = ( { threads = 8; queue_depth = [ 64, 128 ]; },\n"
	      "            { target = \"b\"; queue_depth = 128; } );\n");
	/* a: 6 - 2 = 4; b: 6 - 2 - 2 + 1 (8/128 counted twice) = 3 */
	assert_int_equal(f.p.ncells, 7);
	assert_int_equal(f.p.nruns, 14);
	for (size_t i = 0; i < f.p.ncells; i++) {
		const struct iom_cell *c = &f.p.cells[i];

		assert_false(c->v[IOM_DIM_THREADS] == 8 && c->v[IOM_DIM_QUEUE_DEPTH] >= 64);
		assert_false(c->v[IOM_DIM_TARGET] == 1 && c->v[IOM_DIM_QUEUE_DEPTH] == 128);
	}
	release(&f);
}

/* More conditions than inclusion–exclusion takes: the count comes from walking the cells. */
static void test_plan_many_excludes(void **state)
{
	char *text = xstrdup("iomatrix = 1;\n"
			     "targets = ( { label = \"a\"; path = \"a\"; size = \"1G\"; } );\n"
			     "workload = { queue_depth = { from = 1; to = 40; step = 1; }; };\n"
			     "timing = { duration = \"1s\"; };\nexclude = (");
	struct fixture f;
	size_t n = 0;
	char err[IOM_ERRLEN];

	(void)state;
	for (int i = 1; i <= 20; i++) {
		char *t = xasprintf("%s%s { queue_depth = %d; }", text, i > 1 ? "," : "", 2 * i);

		free(text);
		text = t;
	}
	{
		char *t = xasprintf("%s );\n", text);

		free(text);
		text = t;
	}
	build(&f, text);
	assert_int_equal(f.p.ncells, 20);
	for (size_t i = 0; i < f.p.ncells; i++)
		assert_int_equal(f.p.cells[i].v[IOM_DIM_QUEUE_DEPTH] % 2, 1);
	assert_int_equal(iom_plan_count(f.m, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 20);
	release(&f);
	free(text);
}

static void test_plan_repeat_orders(void **state)
{
	struct fixture f;
	static const enum iom_dim dims[] = { IOM_DIM_TARGET };
	char *text;

	(void)state;
	build(&f, TARGETS2 "timing = { duration = \"1s\"; repeat = 3; };\n");
	text = runs_text(&f.p, dims, 1);
	assert_string_equal(text, "a/1\na/2\na/3\nb/1\nb/2\nb/3\n");
	free(text);
	release(&f);

	build(&f, TARGETS2 "timing = { duration = \"1s\"; repeat = 3; };\n"
			   "repeat_order = \"interleaved\";\n");
	text = runs_text(&f.p, dims, 1);
	assert_string_equal(text, "a/1\nb/1\na/2\nb/2\na/3\nb/3\n");
	for (size_t i = 0; i < f.p.nruns; i++)
		assert_int_equal(f.p.runs[i].index, i + 1);
	free(text);
	release(&f);
}

static void test_plan_shuffle_reproducible(void **state)
{
	const char *base = TARGETS2 "workload = { queue_depth = [ 1, 2, 4, 8, 16 ]; };\n"
				    "timing = { duration = \"1s\"; repeat = 4; };\n";
	char *t7 = xasprintf("%sshuffle = 7;\n", base), *t8 = xasprintf("%sshuffle = 8;\n", base);
	static const enum iom_dim dims[] = { IOM_DIM_TARGET, IOM_DIM_QUEUE_DEPTH };
	struct fixture a, b, c, plain;
	char *ta, *tb, *tc, *tp;

	(void)state;
	build(&a, t7);
	build(&b, t7);
	build(&c, t8);
	build(&plain, base);
	ta = runs_text(&a.p, dims, 2);
	tb = runs_text(&b.p, dims, 2);
	tc = runs_text(&c.p, dims, 2);
	tp = runs_text(&plain.p, dims, 2);
	assert_string_equal(ta, tb);           /* same seed, same order */
	assert_string_not_equal(ta, tc);       /* another seed, another order */
	assert_string_not_equal(ta, tp);       /* shuffled at all */
	assert_true(a.p.hash == b.p.hash && a.p.hash != c.p.hash);
	/* a permutation: same runs, same seeds per (cell, repetition) */
	assert_int_equal(a.p.nruns, plain.p.nruns);
	for (size_t i = 0; i < a.p.nruns; i++) {
		const struct iom_run *r = &a.p.runs[i];
		bool found = false;

		assert_int_equal(r->index, i + 1);
		for (size_t j = 0; j < plain.p.nruns && !found; j++) {
			const struct iom_run *q = &plain.p.runs[j];

			found = memcmp(&a.p.cells[r->cell], &plain.p.cells[q->cell],
				       sizeof(struct iom_cell)) == 0 &&
				r->repetition == q->repetition && r->seed == q->seed;
		}
		assert_true(found);
	}
	free(ta);
	free(tb);
	free(tc);
	free(tp);
	free(t7);
	free(t8);
	release(&a);
	release(&b);
	release(&c);
	release(&plain);
}

static void test_plan_seeds(void **state)
{
	struct fixture f, g, h;

	(void)state;
	build(&f, TARGETS2 "workload = { queue_depth = [ 1, 2 ]; };\n"
			   "timing = { duration = \"1s\"; repeat = 2; };\n");
	/* all distinct */
	for (size_t i = 0; i < f.p.nruns; i++)
		for (size_t j = i + 1; j < f.p.nruns; j++)
			assert_true(f.p.runs[i].seed != f.p.runs[j].seed);
	/* another order: the same cell and repetition keep their seed */
	build(&g, TARGETS2 "workload = { queue_depth = [ 1, 2 ]; };\n"
			   "timing = { duration = \"1s\"; repeat = 2; };\n"
			   "order = [ \"queue_depth\", \"target\" ];\n");
	assert_true(f.p.runs[0].seed == g.p.runs[0].seed); /* a qd1 rep1 first in both */
	assert_true(f.p.runs[2].seed == g.p.runs[4].seed); /* a qd2 rep1 */
	assert_true(f.p.hash != g.p.hash);
	/* another base seed: other seeds */
	build(&h, TARGETS2 "workload = { queue_depth = [ 1, 2 ]; };\n"
			   "timing = { duration = \"1s\"; repeat = 2; };\nseed = 2;\n");
	assert_true(h.p.runs[0].seed != f.p.runs[0].seed);
	release(&f);
	release(&g);
	release(&h);
}

/* Buffer memory counts an access spec's largest line, since every slot gets a buffer that size. */
static void test_plan_buffer_bytes_of_access_lines(void **state)
{
	struct fixture f;

	(void)state;
	build(&f, TARGETS2 "timing = { duration = \"1s\"; };\n"
		  "access_specs = { mix = ( { share = 90; block_size = \"4K\"; },\n"
		  "                         { share = 10; block_size = \"1M\"; } ),\n"
		  "                 small = ( { share = 100; } ); };\n"
		  "workload = { access = [ \"mix\", \"small\", \"none\" ]; block_size = \"8K\";\n"
		  "             queue_depth = 4; threads = 2; };\n");
	assert_int_equal(f.p.ncells, 6);
	for (size_t i = 0; i < f.p.ncells; i++) {
		const struct iom_cell *c = &f.p.cells[i];
		uint64_t want = c->v[IOM_DIM_ACCESS] == 1 ? 1u << 20 : 8u << 10;

		assert_true(iom_cell_max_block(f.m, c) == want);
		assert_true(iom_cell_buffer_bytes(f.m, c) == want * 4 * 2);
	}
	assert_true(iom_plan_max_buffer_bytes(&f.p) == 8ull << 20);
	release(&f);
}

/* The trace estimate of a paced cell counts at most its offered rate; a closed loop the assumed
 * IOPS (capped by the assumed MB/s). */
static void test_plan_cost_of_offered_rates(void **state)
{
	struct fixture f;
	struct iom_plan_cost cost;

	(void)state;
	build(&f, "iomatrix = 1;\n"
		  "targets = ( { label = \"a\"; path = \"a\"; size = \"1G\"; } );\n"
		  "timing = { warmup = \"0s\"; cooldown = \"0s\"; duration = \"10s\"; };\n"
		  "workload = { block_size = \"4K\"; rate_iops = ( \"none\", 2000 ); };\n");
	assert_int_equal(f.p.nruns, 2);
	iom_plan_cost(&f.p, NULL, 0, 100000, 8, 1000, &cost);
	/* 10 s × (100000 + 2000) I/Os × 8 bytes */
	assert_true(fabs(cost.trace_bytes - 10.0 * 102000 * 8) < 1);
	release(&f);
	build(&f, "iomatrix = 1;\n"
		  "targets = ( { label = \"a\"; path = \"a\"; size = \"1G\"; } );\n"
		  "timing = { warmup = \"0s\"; cooldown = \"0s\"; duration = \"10s\"; };\n"
		  "workload = { block_size = \"1M\"; rate_mb_s = 50; };\n");
	iom_plan_cost(&f.p, NULL, 0, 100000, 8, 1000, &cost);
	/* 50 MB/s of 1 MiB blocks: 47.7 I/Os per second, under 1000 MB/s's 954 */
	assert_true(fabs(cost.trace_bytes - 10.0 * 50e6 / 1048576.0 * 8) < 1);
	release(&f);
}

static void test_plan_refuses_huge_before_allocating(void **state)
{
	struct iom_matrix *m = NULL;
	struct iom_plan p;
	char err[IOM_ERRLEN] = "";

	(void)state;
	/* 131072 block sizes x 1000 queue depths x 100 repetitions... 10^10 runs, and a
	 * 10^8-run one: both refused from the count alone (an attempt to allocate them would
	 * need tens of gigabytes) */
	assert_int_equal(iom_matrix_parse("t.cfg",
		"iomatrix = 1;\n"
		"targets = ( { label = \"a\"; path = \"a\"; size = \"1G\"; } );\n"
		"workload = { queue_depth = { from = 1; to = 10000; step = 1; };\n"
		"             threads = { from = 1; to = 1000; step = 1; }; };\n"
		"timing = { duration = \"1s\"; repeat = 10; };\n", NULL, 0, &m, err, sizeof(err)), 0);
	memset(&p, 0xa5, sizeof(p));
	{
		size_t n = 0;

		assert_int_equal(iom_plan_count(m, &n, err, sizeof(err)), -E2BIG);
		assert_int_equal(n, 0);
	}
	assert_int_equal(iom_plan_build(m, &p, err, sizeof(err)), -E2BIG);
	assert_non_null(strstr(err, "t.cfg:3: the plan has 100000000 runs (10000000 cells x 10 "
				    "repetitions), more than the 10000000"));
	assert_null(p.cells);
	assert_null(p.runs);
	iom_plan_release(&p);
	iom_matrix_free(m);

	/* excludes are counted exactly: 2 * 10^7 runs before them, 2 * 10^4 after: accepted */
	assert_int_equal(iom_matrix_parse("t.cfg",
		"iomatrix = 1;\n"
		"targets = ( { label = \"a\"; path = \"a\"; size = \"1G\"; } );\n"
		"workload = { queue_depth = { from = 1; to = 2000; step = 1; };\n"
		"             threads = { from = 1; to = 1000; step = 1; }; };\n"
		"timing = { duration = \"1s\"; repeat = 10; };\n"
		"exclude = ( { threads = { from = 2; to = 1000; step = 1; }; } );\n",
		NULL, 0, &m, err, sizeof(err)), 0);
	assert_int_equal(iom_plan_build(m, &p, err, sizeof(err)), 0);
	assert_int_equal(p.nruns, 20000);
	iom_plan_release(&p);
	iom_matrix_free(m);
}

static void test_plan_exclude_everything(void **state)
{
	struct iom_matrix *m = NULL;
	struct iom_plan p;
	char err[IOM_ERRLEN] = "";

	(void)state;
	assert_int_equal(iom_matrix_parse("t.cfg", TARGETS2 "timing = { duration = \"1s\"; };\n"
				"exclude = ( { target = [ \"a\", \"b\" ]; } );\n",
				NULL, 0, &m, err, sizeof(err)), 0);
	assert_int_equal(iom_plan_build(m, &p, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "t.cfg:5: exclude drops every cell: nothing is left to run");
	iom_matrix_free(m);
}

static char *write_plan(const struct iom_plan *p, enum iom_plan_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(iom_plan_write(f, p, fmt), 0);
	fclose(f);
	return buf;
}

static void test_plan_golden_atto(void **state)
{
	struct iom_matrix *m = NULL;
	struct iom_plan p;
	char err[IOM_ERRLEN] = "", *tsv, *golden, *text, *json, *again;
	uint64_t h = 0xcbf29ce484222325ull;

	(void)state;
	assert_int_equal(iom_matrix_load("matrices/atto.cfg", NULL, 0, &m, err, sizeof(err)), 0);
	assert_int_equal(iom_plan_build(m, &p, err, sizeof(err)), 0);
	assert_int_equal(p.nruns, 21 * 2 * 3 * 2);
	assert_int_equal(p.ncells, 84);
	tsv = write_plan(&p, IOM_PLAN_TSV);
	assert_int_equal(iom_read_file("tests/fixtures/plan/atto.tsv", &golden, NULL), 0);
	assert_string_equal(tsv, golden);
	/* the hash is FNV-1a 64 of exactly these bytes */
	for (const unsigned char *q = (const unsigned char *)tsv; *q; q++)
		h = (h ^ *q) * 0x100000001b3ull;
	assert_true(h == p.hash);

	text = write_plan(&p, IOM_PLAN_TEXT);
	assert_non_null(strstr(text, "\n252 runs: 84 cells x 3 repetitions\n"));
	assert_non_null(strstr(text, "\nestimated time: size-bound"));
	assert_non_null(strstr(text, "\nlargest buffer memory per run: 256M (block_size 64M x "
				     "queue_depth 4 x threads 1)\n"));
	assert_non_null(strstr(text, "fixed: queue_depth=4 threads=1 pattern=sequential "
				     "engine=io_uring direct=true verify=false\n"));
	again = write_plan(&p, IOM_PLAN_TEXT);
	assert_string_equal(text, again);
	json = write_plan(&p, IOM_PLAN_JSON);
	assert_non_null(strstr(json, "\"count\": 252,"));
	assert_non_null(strstr(json, "{\"index\": 1, \"repetition\": 1, \"cell\": 0, \"target\": "
				     "\"lsi-sas\", \"block_size\": 512, \"queue_depth\": 4, "
				     "\"threads\": 1, \"read_pct\": 0, \"pattern\": \"sequential\""));

	/* the run order: for each target, writes (all sizes) then reads; 3 reps back to back */
	assert_int_equal(p.cells[p.runs[0].cell].v[IOM_DIM_BLOCK_SIZE], 512);
	assert_int_equal(p.cells[p.runs[3].cell].v[IOM_DIM_BLOCK_SIZE], 1024);
	assert_int_equal(p.cells[p.runs[62].cell].v[IOM_DIM_BLOCK_SIZE], 64 << 20);
	assert_int_equal(p.cells[p.runs[62].cell].v[IOM_DIM_READ_PCT], 0);
	assert_int_equal(p.cells[p.runs[63].cell].v[IOM_DIM_READ_PCT], 100);
	assert_int_equal(p.cells[p.runs[126].cell].v[IOM_DIM_TARGET], 1);

	{
		char d[128];

		iom_cell_describe(&p, &p.cells[p.runs[63].cell], d, sizeof(d));
		assert_string_equal(d, "lsi-sas bs=512 rd=100%");
	}
	assert_true(iom_plan_max_buffer_bytes(&p) == 256ull << 20);
	{
		bool sb = false;

		assert_true(iom_plan_run_estimate_ns(&p, &sb) == 3000000000ull);
		assert_true(sb);
	}
	free(tsv);
	free(golden);
	free(text);
	free(again);
	free(json);
	iom_plan_release(&p);
	iom_matrix_free(m);
}

static void test_plan_shipped_matrices(void **state)
{
	static const struct {
		const char *file;
		size_t runs;
	} cases[] = {
		{ "matrices/quick.cfg", 16 },
		{ "matrices/atto.cfg", 252 },
		{ "matrices/diskspd-16k.cfg", 6 },
		{ "matrices/iometer-default.cfg", 21 },
		{ "matrices/crystaldiskmark.cfg", 40 },
	};

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		struct iom_matrix *m = NULL;
		struct iom_plan p;
		char err[IOM_ERRLEN] = "";

		if (iom_matrix_load(cases[i].file, NULL, 0, &m, err, sizeof(err)) != 0 ||
		    iom_plan_build(m, &p, err, sizeof(err)) != 0)
			fail_msg("%s: %s", cases[i].file, err);
		assert_int_equal(p.nruns, cases[i].runs);
		{
			size_t n = 0;

			assert_int_equal(iom_plan_count(m, &n, err, sizeof(err)), 0);
			assert_int_equal(n, cases[i].runs);
		}
		iom_plan_release(&p);
		iom_matrix_free(m);
	}
}

static void test_plan_crystaldiskmark_tests(void **state)
{
	struct iom_matrix *m = NULL;
	struct iom_plan p;
	char err[IOM_ERRLEN] = "", *text;
	static const enum iom_dim dims[] = { IOM_DIM_READ_PCT, IOM_DIM_PATTERN,
					     IOM_DIM_BLOCK_SIZE, IOM_DIM_QUEUE_DEPTH };

	(void)state;
	assert_int_equal(iom_matrix_load("matrices/crystaldiskmark.cfg", NULL, 0, &m, err,
					 sizeof(err)), 0);
	assert_int_equal(iom_plan_build(m, &p, err, sizeof(err)), 0);
	assert_int_equal(p.ncells, 8);
	/* keep repetition 1 only */
	text = runs_text(&p, dims, 4);
	assert_non_null(strstr(text, "100 sequential 1M 8/1\n100 sequential 1M 8/2"));
	{
		/* the cells, in order */
		static const char *const want[] = {
			"100 sequential 1M 8", "100 sequential 1M 1", "100 random 4K 32",
			"100 random 4K 1",     "0 sequential 1M 8",   "0 sequential 1M 1",
			"0 random 4K 32",      "0 random 4K 1",
		};
		for (size_t c = 0; c < p.ncells; c++) {
			char got[128] = "", v[32];

			for (size_t d = 0; d < 4; d++) {
				iom_cell_value(&p, &p.cells[c], dims[d], v, sizeof(v));
				snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s",
					 d ? " " : "", v);
			}
			assert_string_equal(got, want[c]);
		}
	}
	free(text);
	iom_plan_release(&p);
	iom_matrix_free(m);
}

/* A cell's description names the target and every dimension that varies, in dimension order,
 * with the key table's words; a dimension that does not vary is left out. */
static void test_plan_cell_describe(void **state)
{
	struct fixture f = { 0 };
	char d[256];
	const struct iom_cell *last;

	(void)state;
	build(&f, TARGETS2 "workload = { block_size = [ \"4K\", \"1M\" ]; queue_depth = [ 1, 32 ];\n"
			   "  threads = [ 1, 2 ]; read_pct = [ 0, 70 ]; pattern = [ \"random\",\n"
			   "  \"sequential\" ]; engine = [ \"io_uring\", \"psync\" ];\n"
			   "  direct = [ true, false ]; verify = [ false, true ]; };\n"
			   "timing = { duration = \"1s\"; };\n");
	iom_cell_describe(&f.p, &f.p.cells[0], d, sizeof(d));
	assert_string_equal(d, "a bs=4K qd=1 t=1 rd=0% random io_uring direct");
	last = &f.p.cells[f.p.ncells - 1];
	iom_cell_describe(&f.p, last, d, sizeof(d));
	assert_string_equal(d, "b bs=1M qd=32 t=2 rd=70% sequential psync buffered verify");
	release(&f);

	build(&f, TARGETS2 "workload = { queue_depth = [ 1, 32 ]; read_pct = 70; };\n"
			   "timing = { duration = \"1s\"; };\n");
	iom_cell_describe(&f.p, &f.p.cells[1], d, sizeof(d));
	assert_string_equal(d, "a qd=32");
	release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_order_named_then_file),
		cmocka_unit_test(test_plan_per_target_values_first_appearance),
		cmocka_unit_test(test_plan_ranges),
		cmocka_unit_test(test_plan_excludes),
		cmocka_unit_test(test_plan_many_excludes),
		cmocka_unit_test(test_plan_repeat_orders),
		cmocka_unit_test(test_plan_shuffle_reproducible),
		cmocka_unit_test(test_plan_seeds),
		cmocka_unit_test(test_plan_buffer_bytes_of_access_lines),
		cmocka_unit_test(test_plan_cost_of_offered_rates),
		cmocka_unit_test(test_plan_refuses_huge_before_allocating),
		cmocka_unit_test(test_plan_exclude_everything),
		cmocka_unit_test(test_plan_golden_atto),
		cmocka_unit_test(test_plan_shipped_matrices),
		cmocka_unit_test(test_plan_crystaldiskmark_tests),
		cmocka_unit_test(test_plan_cell_describe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
