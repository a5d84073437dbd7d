/* SPDX-License-Identifier: MIT */
/*
 * test_worker — the offset generator: alignment and bounds, determinism for a seed, sequential
 * wrap and per-thread slices, uniform coverage, the read mix within 1 % of read_pct over 100 k
 * I/Os, refusals with clear messages; and how a bytes-bound window is split between threads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "keys.h"
#include "util.h"
#include "worker.h"

static struct iom_worker_conf conf(enum iom_pattern pattern, uint64_t region, uint32_t bs,
				   unsigned threads, unsigned read_pct, uint64_t seed)
{
	return (struct iom_worker_conf){ .fd = -1, .region = region,
					 .wl = { .block_size = bs, .queue_depth = 1,
						 .threads = threads, .read_pct = read_pct,
						 .pattern = pattern, .engine = IOM_ENGINE_NULL,
						 .random_pct = 100 },
					 .seed = seed };
}

struct bounds_case {
	enum iom_pattern pattern;
	uint64_t region;
	uint32_t bs;
	unsigned threads;
};

static const struct bounds_case bounds_cases[] = {
	{ IOM_PATTERN_RANDOM, 1ull << 30, 4096, 1 },
	{ IOM_PATTERN_RANDOM, (1ull << 30) + 1000, 4096, 4 },   /* a partial last block */
	{ IOM_PATTERN_RANDOM, 3 * 65536 + 512, 65536, 2 },
	{ IOM_PATTERN_RANDOM, 4096, 4096, 1 },                  /* exactly one block */
	{ IOM_PATTERN_RANDOM, 10ull << 40, 1 << 20, 8 },         /* 10 TiB */
	{ IOM_PATTERN_SEQUENTIAL, 1ull << 20, 4096, 1 },
	{ IOM_PATTERN_SEQUENTIAL, (1ull << 20) + 3000, 4096, 3 },
	{ IOM_PATTERN_SEQUENTIAL, 100 * 512 + 17, 512, 7 },
	{ IOM_PATTERN_SEQUENTIAL, 10ull << 40, 1 << 20, 16 },
};

static void test_worker_offsets_aligned_in_bounds(void **state)
{
	size_t c;

	(void)state;
	for (c = 0; c < IOM_ARRAY_SIZE(bounds_cases); c++) {
		const struct bounds_case *bc = &bounds_cases[c];
		struct iom_worker_conf cf = conf(bc->pattern, bc->region, bc->bs, bc->threads, 100, c);
		unsigned t;

		for (t = 0; t < bc->threads; t++) {
			struct iom_worker_gen g;
			char err[IOM_ERRLEN];
			uint64_t lo = 0, hi = bc->region, i;

			assert_int_equal(iom_worker_gen_init(&g, &cf, t, err, sizeof(err)), 0);
			if (bc->pattern == IOM_PATTERN_SEQUENTIAL) {
				lo = g.lo;
				hi = g.hi;
				assert_int_equal(lo % bc->bs, 0);
				assert_true(hi <= bc->region && hi - lo >= bc->bs);
			}
			for (i = 0; i < 20000; i++) {
				uint64_t off = iom_worker_gen_offset(&g);

				assert_int_equal(off % bc->bs, 0);
				assert_true(off >= lo);
				assert_true(off + bc->bs <= hi);
			}
		}
	}
}

static void test_worker_offsets_deterministic(void **state)
{
	struct iom_worker_conf a = conf(IOM_PATTERN_RANDOM, 1ull << 30, 4096, 4, 70, 42);
	struct iom_worker_conf b = a, other = a, mix = a;
	struct iom_worker_gen ga, gb, go, gm, g2;
	char err[IOM_ERRLEN];
	unsigned i, same_other = 0, same_thread = 0;

	(void)state;
	other.seed = 43;
	mix.wl.read_pct = 10;
	assert_int_equal(iom_worker_gen_init(&ga, &a, 1, err, sizeof(err)), 0);
	assert_int_equal(iom_worker_gen_init(&gb, &b, 1, err, sizeof(err)), 0);
	assert_int_equal(iom_worker_gen_init(&go, &other, 1, err, sizeof(err)), 0);
	assert_int_equal(iom_worker_gen_init(&gm, &mix, 1, err, sizeof(err)), 0);
	assert_int_equal(iom_worker_gen_init(&g2, &a, 2, err, sizeof(err)), 0);
	for (i = 0; i < 10000; i++) {
		uint64_t x = iom_worker_gen_offset(&ga);
		bool rx = iom_worker_gen_is_read(&ga);

		/* Same seed, same thread: the same offsets and the same mix. */
		assert_int_equal(x, iom_worker_gen_offset(&gb));
		assert_int_equal(rx, iom_worker_gen_is_read(&gb));
		/* Another read_pct: still the same offsets. */
		iom_worker_gen_is_read(&gm);
		assert_int_equal(x, iom_worker_gen_offset(&gm));
		same_other += x == iom_worker_gen_offset(&go);
		same_thread += x == iom_worker_gen_offset(&g2);
	}
	/* Another seed or another thread: another sequence (a few collisions by chance only). */
	assert_true(same_other < 10);
	assert_true(same_thread < 10);
}

static void test_worker_sequential_wrap_and_slices(void **state)
{
	/* 10 blocks and a partial one; 3 threads: slices of blocks [0,3) [3,6) [6,10). */
	const uint32_t bs = 4096;
	struct iom_worker_conf c = conf(IOM_PATTERN_SEQUENTIAL, 10 * bs + 100, bs, 3, 100, 1);
	static const uint64_t expect[3][8] = {
		{ 0, 1, 2, 0, 1, 2, 0, 1 },
		{ 3, 4, 5, 3, 4, 5, 3, 4 },
		{ 6, 7, 8, 9, 6, 7, 8, 9 },
	};
	unsigned t, i;

	(void)state;
	for (t = 0; t < 3; t++) {
		struct iom_worker_gen g;
		char err[IOM_ERRLEN];

		assert_int_equal(iom_worker_gen_init(&g, &c, t, err, sizeof(err)), 0);
		for (i = 0; i < 8; i++)
			assert_int_equal(iom_worker_gen_offset(&g), expect[t][i] * bs);
	}

	/* Slices of many threads are disjoint, in order, and cover the aligned region. */
	c = conf(IOM_PATTERN_SEQUENTIAL, (1ull << 30) + 12345, 65536, 13, 100, 1);
	{
		uint64_t prev_hi = 0;

		for (t = 0; t < 13; t++) {
			struct iom_worker_gen g;
			char err[IOM_ERRLEN];

			assert_int_equal(iom_worker_gen_init(&g, &c, t, err, sizeof(err)), 0);
			assert_int_equal(g.lo, prev_hi);
			assert_true(g.hi > g.lo);
			prev_hi = g.hi;
		}
		assert_int_equal(prev_hi, (1ull << 30));
	}
}

static void test_worker_random_covers_uniformly(void **state)
{
	enum { BLOCKS = 64, DRAWS = 128000 };
	struct iom_worker_conf c = conf(IOM_PATTERN_RANDOM, BLOCKS * 512, 512, 1, 100, 7);
	unsigned hits[BLOCKS] = { 0 }, i;
	struct iom_worker_gen g;
	char err[IOM_ERRLEN];

	(void)state;
	assert_int_equal(iom_worker_gen_init(&g, &c, 0, err, sizeof(err)), 0);
	for (i = 0; i < DRAWS; i++)
		hits[iom_worker_gen_offset(&g) / 512]++;
	/* Expected 2000 per block; a fixed seed, so this is not a flaky statistical test. */
	for (i = 0; i < BLOCKS; i++)
		assert_true(hits[i] > 1700 && hits[i] < 2300);
}

static void test_worker_read_mix(void **state)
{
	static const unsigned pcts[] = { 0, 1, 50, 67, 99, 100 };
	enum { N = 100000 };
	size_t k;

	(void)state;
	for (k = 0; k < IOM_ARRAY_SIZE(pcts); k++) {
		struct iom_worker_conf c = conf(IOM_PATTERN_RANDOM, 1 << 20, 4096, 1, pcts[k], 99);
		struct iom_worker_gen g;
		char err[IOM_ERRLEN];
		unsigned i, reads = 0;
		double pct;

		assert_int_equal(iom_worker_gen_init(&g, &c, 0, err, sizeof(err)), 0);
		for (i = 0; i < N; i++)
			reads += iom_worker_gen_is_read(&g);
		pct = 100.0 * reads / N;
		print_message("read_pct %u: %.3f %% reads\n", pcts[k], pct);
		if (pcts[k] == 0 || pcts[k] == 100)
			assert_int_equal(reads, pcts[k] ? N : 0);
		assert_true(pct >= pcts[k] - 1.0 && pct <= pcts[k] + 1.0);
	}
}

static void test_worker_gen_refusals(void **state)
{
	struct iom_worker_conf c = conf(IOM_PATTERN_RANDOM, 2048, 4096, 1, 100, 1);
	struct iom_worker_gen g;
	char err[IOM_ERRLEN] = "";

	(void)state;
	assert_int_equal(iom_worker_gen_init(&g, &c, 0, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "the region of 2048 bytes holds no block of 4096 bytes");
	c = conf(IOM_PATTERN_SEQUENTIAL, 3 * 4096, 4096, 4, 100, 1);
	assert_int_equal(iom_worker_gen_init(&g, &c, 0, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "too small for 4 threads of sequential"));
	c = conf(IOM_PATTERN_RANDOM, 1 << 20, 0, 1, 100, 1);
	assert_int_equal(iom_worker_gen_init(&g, &c, 0, err, sizeof(err)), -EINVAL);
}

struct share_case {
	uint64_t bytes;
	uint32_t bs;
	unsigned threads;
	uint64_t total_ios;
};

static void test_worker_bytes_shares(void **state)
{
	static const struct share_case cases[] = {
		{ 1 << 20, 4096, 1, 256 },
		{ 1 << 20, 4096, 3, 256 },
		{ (1 << 20) + 1, 4096, 4, 257 }, /* a partial block rounds up */
		{ 8192, 4096, 5, 2 },            /* more threads than blocks */
	};
	size_t k;

	(void)state;
	for (k = 0; k < IOM_ARRAY_SIZE(cases); k++) {
		struct iom_worker_conf c = conf(IOM_PATTERN_RANDOM, 1 << 30, cases[k].bs,
						cases[k].threads, 100, 1);
		_Atomic int phase = IOM_PHASE_WARMUP;
		struct iom_worker_gate gate;
		uint64_t sum = 0, lo = UINT64_MAX, hi = 0;
		unsigned t;

		c.bytes = cases[k].bytes;
		iom_worker_gate_init(&gate);
		for (t = 0; t < cases[k].threads; t++) {
			struct iom_worker w;

			iom_worker_init(&w, &c, t, &phase, &gate);
			sum += w.share_ios;
			lo = IOM_MIN(lo, w.share_ios);
			hi = IOM_MAX(hi, w.share_ios);
			iom_worker_release(&w);
		}
		iom_worker_gate_destroy(&gate);
		assert_int_equal(sum, cases[k].total_ios);
		assert_true(hi - lo <= 1);
	}
}

/* The submit/reap policy: a zeroed policy is the default (refill at once, wait for a quarter
 * of the I/Os in flight); a count or a fraction, always at least one and never more than are
 * in flight. */
/* ---- random_pct, align, distributions ------------------------------------------------------ */

/* Of n offsets from g, the share (in %) that start where the previous I/O ended; each offset is
 * checked to lie inside the region and to be a multiple of align. */
static double sequential_share(struct iom_worker_gen *g, uint64_t region, uint32_t bs,
			       uint64_t align, unsigned n)
{
	uint64_t prev = UINT64_MAX;
	unsigned seq = 0;

	for (unsigned i = 0; i < n; i++) {
		uint64_t off = iom_worker_gen_offset(g);

		assert_true(off + bs <= region);
		assert_int_equal(off % align, 0);
		seq += prev != UINT64_MAX && off == prev + bs;
		prev = off;
	}
	return 100.0 * seq / (n - 1);
}

static void test_worker_random_pct_mixes(void **state)
{
	static const unsigned pcts[] = { 0, 1, 25, 50, 75, 99, 100 };
	enum { N = 100000 };

	(void)state;
	for (size_t k = 0; k < IOM_ARRAY_SIZE(pcts); k++) {
		struct iom_worker_conf c = conf(IOM_PATTERN_RANDOM, 1ull << 30, 4096, 2, 70, 3);
		struct iom_worker_gen g;
		char err[IOM_ERRLEN];
		double seq;

		c.wl.random_pct = pcts[k];
		assert_int_equal(iom_worker_gen_init(&g, &c, 1, err, sizeof(err)), 0);
		assert_int_equal(g.mode, pcts[k] == 100 ? IOM_GEN_RANDOM :
					 pcts[k] == 0   ? IOM_GEN_SEQUENTIAL :
							  IOM_GEN_MIXED);
		seq = sequential_share(&g, c.region, 4096, 4096, N);
		print_message("random_pct %u: %.2f %% sequential successors\n", pcts[k], seq);
		assert_true(seq >= 100.0 - pcts[k] - 1.0 && seq <= 100.0 - pcts[k] + 1.0);
	}
}

static void test_worker_random_pct_keeps_read_mix(void **state)
{
	struct iom_worker_conf a = conf(IOM_PATTERN_RANDOM, 1ull << 30, 4096, 1, 70, 11), b = a;
	struct iom_worker_gen ga, gb;
	char err[IOM_ERRLEN];

	(void)state;
	b.wl.random_pct = 40;
	assert_int_equal(iom_worker_gen_init(&ga, &a, 0, err, sizeof(err)), 0);
	assert_int_equal(iom_worker_gen_init(&gb, &b, 0, err, sizeof(err)), 0);
	for (int i = 0; i < 10000; i++) {
		(void)iom_worker_gen_offset(&ga);
		(void)iom_worker_gen_offset(&gb);
		assert_int_equal(iom_worker_gen_is_read(&ga), iom_worker_gen_is_read(&gb));
	}
	/* pattern sequential wins: random_pct does not apply to it */
	b.wl.pattern = IOM_PATTERN_SEQUENTIAL;
	assert_int_equal(iom_worker_gen_init(&gb, &b, 0, err, sizeof(err)), 0);
	assert_int_equal(gb.mode, IOM_GEN_SEQUENTIAL);
	/* a mixed run wraps at the end of the region: a one-block region is always offset 0 */
	b = conf(IOM_PATTERN_RANDOM, 4096, 4096, 1, 0, 1);
	b.wl.random_pct = 50;
	assert_int_equal(iom_worker_gen_init(&gb, &b, 0, err, sizeof(err)), 0);
	for (int i = 0; i < 100; i++)
		assert_int_equal(iom_worker_gen_offset(&gb), 0);
}

struct align_case {
	uint64_t region;
	uint32_t bs;
	uint64_t align;
	unsigned random_pct;
};

static const struct align_case align_cases[] = {
	{ 1ull << 30, 4096, 512, 100 },
	{ 1ull << 30, 65536, 4096, 100 },
	{ 1ull << 30, 4096, 65536, 100 },   /* coarser than the block */
	{ 10000, 4096, 512, 100 },          /* a region that is not a multiple of either */
	{ 1ull << 30, 4096, 1000, 100 },    /* buffered I/O may take any alignment */
	{ 1ull << 30, 8192, 512, 50 },
};

static void test_worker_align(void **state)
{
	enum { N = 50000 };

	(void)state;
	for (size_t k = 0; k < IOM_ARRAY_SIZE(align_cases); k++) {
		const struct align_case *ac = &align_cases[k];
		struct iom_worker_conf c = conf(IOM_PATTERN_RANDOM, ac->region, ac->bs, 1, 100, k);
		struct iom_worker_gen g;
		char err[IOM_ERRLEN];
		unsigned off_block = 0;
		uint64_t max = 0;

		c.wl.align = ac->align;
		c.wl.random_pct = ac->random_pct;
		assert_int_equal(iom_worker_gen_init(&g, &c, 0, err, sizeof(err)), 0);
		assert_int_equal(g.mode, IOM_GEN_MIXED);
		for (unsigned i = 0; i < N; i++) {
			uint64_t off = iom_worker_gen_offset(&g);

			assert_int_equal(off % ac->align, 0);
			assert_true(off + ac->bs <= ac->region);
			off_block += ac->random_pct == 100 && off % ac->bs != 0;
			max = IOM_MAX(max, off);
		}
		print_message("align %llu bs %u: %u of %u offsets off the block size, max %llu\n",
			      (unsigned long long)ac->align, ac->bs, off_block, N,
			      (unsigned long long)max);
		/* finer than the block: most offsets are not multiples of the block size */
		if (ac->align < ac->bs && ac->random_pct == 100 && ac->region > 1000000)
			assert_true(off_block > N / 2);
		/* the last slot is reached: the whole region is used */
		if (ac->region < 100000)
			assert_int_equal(max, (ac->region - ac->bs) / ac->align * ac->align);
	}
	/* align equal to the block size is the plain random mode */
	{
		struct iom_worker_conf c = conf(IOM_PATTERN_RANDOM, 1 << 20, 4096, 1, 100, 1);
		struct iom_worker_gen g;
		char err[IOM_ERRLEN];

		c.wl.align = 4096;
		assert_int_equal(iom_worker_gen_init(&g, &c, 0, err, sizeof(err)), 0);
		assert_int_equal(g.mode, IOM_GEN_RANDOM);
	}
}

static int desc_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The share (%) of n offsets of a generator for `spec` on the hottest 10 % of the blocks. */
static double hot_share(const char *spec, unsigned random_pct, uint64_t align, unsigned n)
{
	enum { BLOCKS = 16384 };
	struct iom_worker_conf c = conf(IOM_PATTERN_RANDOM, BLOCKS * 4096ull, 4096, 1, 100, 21);
	unsigned *hits = calloc(BLOCKS, sizeof(*hits));
	struct iom_worker_gen g;
	char err[IOM_ERRLEN] = "";
	uint64_t sum = 0;

	assert_non_null(hits);
	assert_int_equal(iom_dist_parse(spec, &c.wl.distribution, err, sizeof(err)), 0);
	c.wl.random_pct = random_pct;
	c.wl.align = align;
	assert_int_equal(iom_worker_gen_init(&g, &c, 0, err, sizeof(err)), 0);
	assert_int_equal(g.mode, c.wl.distribution || align ? IOM_GEN_MIXED : IOM_GEN_RANDOM);
	for (unsigned i = 0; i < n; i++) {
		uint64_t off = iom_worker_gen_offset(&g);

		assert_true(off + 4096 <= c.region);
		assert_int_equal(off % (align ? align : 4096), 0);
		hits[off / 4096]++;
	}
	iom_worker_gen_release(&g);
	iom_worker_gen_release(&g); /* twice is fine */
	qsort(hits, BLOCKS, sizeof(*hits), desc_unsigned);
	for (unsigned i = 0; i < BLOCKS / 10; i++)
		sum += hits[i];
	free(hits);
	return 100.0 * (double)sum / n;
}

static void test_worker_distribution(void **state)
{
	double zipf = hot_share("zipf:1.2", 100, 0, 2000000);
	double uniform = hot_share("uniform", 100, 0, 2000000);
	double zipf_al = hot_share("zipf:1.2", 100, 512, 1000000);
	double zipf_mix = hot_share("zipf:1.2", 50, 0, 1000000);

	(void)state;
	print_message("hottest 10 %% of the blocks: zipf:1.2 %.1f %%, uniform %.1f %%, "
		      "zipf:1.2 align 512 %.1f %%, zipf:1.2 random_pct 50 %.1f %%\n", zipf,
		      uniform, zipf_al, zipf_mix);
	assert_true(zipf >= 50);
	assert_true(uniform >= 9 && uniform <= 12.5);
	assert_true(zipf_al >= 50);
	assert_true(zipf_mix >= 40); /* half the I/Os follow a hot one */
}

/* DiskSpd's -T and -si: thread t starts at t x stride and walks the whole region; with one
 * shared stream the threads together take every block once per pass, in order. */
static void test_worker_stride_and_shared_stream(void **state)
{
	struct iom_worker_conf c = conf(IOM_PATTERN_SEQUENTIAL, 64 * 4096, 4096, 4, 100, 1);
	struct iom_worker_gen g[4];
	_Atomic uint64_t next = 0;
	char err[IOM_ERRLEN];
	unsigned seen[64] = { 0 };

	(void)state;
	c.wl.thread_stride = 3 * 4096 + 100; /* rounded down to the block size */
	for (unsigned t = 0; t < 4; t++) {
		assert_int_equal(iom_worker_gen_init(&g[t], &c, t, err, sizeof(err)), 0);
		assert_int_equal(g[t].mode, IOM_GEN_MIXED);
		/* t x stride, down to a block: 0, 12K, 24K (24676), 36K (37014) */
		assert_int_equal(iom_worker_gen_offset(&g[t]), (t * (3 * 4096 + 100)) / 4096 * 4096);
		assert_int_equal(iom_worker_gen_offset(&g[t]),
				 (t * (3 * 4096 + 100)) / 4096 * 4096 + 4096);
	}
	for (int i = 0; i < 62; i++) /* past the region's end: back to 0 */
		(void)iom_worker_gen_offset(&g[0]);
	assert_int_equal(iom_worker_gen_offset(&g[0]), 0);

	c.wl.thread_stride = 0;
	c.wl.shared_sequential = true;
	c.shared_next = &next;
	for (unsigned t = 0; t < 4; t++) {
		assert_int_equal(iom_worker_gen_init(&g[t], &c, t, err, sizeof(err)), 0);
		assert_int_equal(g[t].mode, IOM_GEN_MIXED);
	}
	for (unsigned i = 0; i < 128; i++) {
		uint64_t off = iom_worker_gen_offset(&g[(i * 7) % 4]);

		assert_int_equal(off, (i % 64) * 4096); /* one stream: in order, whoever asks */
		seen[off / 4096]++;
	}
	for (unsigned b = 0; b < 64; b++)
		assert_int_equal(seen[b], 2);
	/* without the run's counter (a hand-made conf) each thread keeps its own slice */
	c.shared_next = NULL;
	assert_int_equal(iom_worker_gen_init(&g[0], &c, 0, err, sizeof(err)), 0);
	assert_int_equal(g[0].mode, IOM_GEN_SEQUENTIAL);
}

static void test_worker_policy(void **state)
{
	struct iom_policy p = iom_policy_resolve((struct iom_policy){ 0 });
	char text[80];

	(void)state;
	assert_int_equal(p.submit_batch, 1);
	assert_true(iom_policy_adaptive(&p)); /* the default: the adaptive wait */
	assert_int_equal(iom_policy_wait(&p, 32), 1);
	iom_policy_describe(&p, text, sizeof(text));
	assert_string_equal(text, "submit_batch 1, reap_wait adaptive");

	p = iom_policy_resolve((struct iom_policy){ .wait_div = 4 });
	assert_false(iom_policy_adaptive(&p));
	assert_int_equal(iom_policy_wait(&p, 32), 8);
	assert_int_equal(iom_policy_wait(&p, 7), 1); /* below 8 in flight: one at a time */
	assert_int_equal(iom_policy_wait(&p, 1), 1);
	iom_policy_describe(&p, text, sizeof(text));
	assert_string_equal(text, "submit_batch 1, reap_wait 1/4");

	p = iom_policy_resolve((struct iom_policy){ .submit_batch = 16, .wait_min = 16 });
	assert_int_equal(p.wait_div, 0);
	assert_int_equal(iom_policy_wait(&p, 32), 16);
	assert_int_equal(iom_policy_wait(&p, 10), 10); /* never more than in flight */
	iom_policy_describe(&p, text, sizeof(text));
	assert_string_equal(text, "submit_batch 16, reap_wait 16");

	p = iom_policy_resolve((struct iom_policy){ .wait_div = 2 });
	assert_int_equal(p.submit_batch, 1);
	assert_int_equal(iom_policy_wait(&p, 32), 16);
	assert_int_equal(iom_policy_wait(&p, 3), 1);
	p = iom_policy_resolve((struct iom_policy){ .wait_div = 1 });
	assert_int_equal(iom_policy_wait(&p, 32), 32);
}

/* A simulated stage for the adaptive wait: I/Os per second and CPU ns per I/O as a function of
 * the wait, with noise (a burst: one epoch in every `burst` is half as fast). */
struct sim_stage {
	double rate[6];    /* I/Os per second waiting for 1, 2, 4, 8, 16, 32 */
	double cpu[6];     /* CPU ns per I/O, same */
	unsigned burst;
};

/* Runs a for secs of simulated time on st; returns the wait it holds at the end and counts the
 * time it spent at each wait in at[] (ns). */
static unsigned sim_adapt(const struct sim_stage *st, unsigned depth, double secs, double at[6])
{
	struct iom_reap_adapt a;
	uint64_t now = 1000000000u, cpu = 0, end = now + (uint64_t)(secs * 1e9);
	unsigned epochs = 0;

	iom_reap_adapt_init(&a, depth, now, cpu);
	while (now < end) {
		unsigned lv = 0;
		uint64_t len = a.epoch_end - now;
		double r;

		while ((1u << lv) < a.wait)
			lv++;
		r = st->rate[lv];
		if (st->burst && ++epochs % st->burst == 0)
			r /= 2;
		a.ios = (uint64_t)(r * (double)len / 1e9);
		cpu += (uint64_t)(st->cpu[lv] * (double)a.ios);
		now = a.epoch_end;
		at[lv] += (double)len;
		iom_reap_adapt_epoch(&a, now, cpu);
		assert_true(a.wait >= 1 && a.wait <= depth / 2);
	}
	return 1u << a.level;
}

static void test_worker_adaptive_wait(void **state)
{
	static const struct {
		struct sim_stage st;
		unsigned depth, best_lo, best_hi;
	} cases[] = {
		/* a CPU-bound stage (zram): the more a wake-up takes, the more I/Os per second */
		{ { { 200e3, 260e3, 380e3, 440e3, 450e3, 0 }, { 4000, 3000, 2500, 2200, 2200, 0 },
		    0 }, 32, 8, 16 },
		/* the same, with a burst in every third epoch */
		{ { { 200e3, 260e3, 380e3, 440e3, 450e3, 0 }, { 4000, 3000, 2500, 2200, 2200, 0 },
		    3 }, 32, 8, 16 },
		/* a device that drains: waiting for more loses I/Os per second */
		{ { { 100e3, 99e3, 90e3, 80e3, 60e3, 0 }, { 1500, 1400, 1300, 1250, 1200, 0 }, 0 },
		  32, 1, 2 },
		/* a device-bound stage (loop): the same I/Os per second, less CPU per I/O */
		{ { { 100e3, 100e3, 100e3, 100e3, 100e3, 0 }, { 1500, 1400, 1300, 1250, 1240, 0 },
		    0 }, 32, 4, 16 },
		/* filled zram QD32 as measured: waiting for 2 and 4 dips below waiting for 1, so a
		 * climb from 1 stalls there; 16 makes 1.6x the I/Os */
		{ { { 231e3, 207e3, 269e3, 325e3, 365e3, 0 }, { 4330, 4830, 3720, 3080, 2740, 0 },
		    0 }, 32, 16, 16 },
		/* zram unwritten: the same dip, deeper at 4 */
		{ { { 441e3, 410e3, 356e3, 480e3, 569e3, 0 }, { 2267, 2437, 2805, 2083, 1756, 0 },
		    3 }, 32, 16, 16 },
		/* a best in the middle */
		{ { { 100e3, 150e3, 200e3, 150e3, 100e3, 0 }, { 1e4, 7e3, 5e3, 7e3, 1e4, 0 }, 0 },
		  32, 4, 4 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double at[6] = { 0 }, total = 0, good = 0;
		unsigned w = sim_adapt(&cases[i].st, cases[i].depth, 3.0, at);

		if (w < cases[i].best_lo || w > cases[i].best_hi)
			fail_msg("case %zu: ended at %u, not in [%u, %u]", i, w, cases[i].best_lo,
				 cases[i].best_hi);
		/* most of the time at the best waits: the climb and the probes cost little */
		for (unsigned lv = 0; lv < 6; lv++) {
			total += at[lv];
			if ((1u << lv) >= cases[i].best_lo && (1u << lv) <= cases[i].best_hi)
				good += at[lv];
		}
		if (good < 0.9 * total)
			fail_msg("case %zu: %.1f %% of the time at the best waits", i,
				 100 * good / total);
	}
	/* a queue of 1 to 3 has one wait: one completion, never probed */
	{
		struct iom_reap_adapt a;

		iom_reap_adapt_init(&a, 1, 1000, 0);
		assert_int_equal(a.wait, 1);
		assert_int_equal(a.dir, 0);
		iom_reap_adapt_init(&a, 3, 1000, 0);
		assert_int_equal(a.wait, 1);
		iom_reap_adapt_init(&a, 4, 1000, 0);
		assert_int_equal(a.top, 1); /* 1 and 2 */
	}
}

/* The size gzip (zlib's deflate at its default level) makes of len bytes at buf, as a share. */
static double gzip_share(const void *buf, size_t len)
{
	uLongf out = compressBound(len);
	Bytef *z = malloc(out);

	assert_non_null(z);
	assert_int_equal(compress2(z, &out, buf, len, Z_DEFAULT_COMPRESSION), Z_OK);
	free(z);
	return (double)out / (double)len;
}

/* data's write patterns: compressible:N% gzips to about (100 - N) % for every block size (below
 * 4 KiB too), zeros to almost nothing, random and dedupe not at all; the same seed gives the same
 * pattern. */
static void test_worker_data_patterns_compress(void **state)
{
	static const struct { uint32_t data; double lo, hi; } cases[] = {
		{ IOM_CHOICE_VALUE(IOM_DATA_COMPRESSIBLE, 50), 0.40, 0.60 },
		{ IOM_CHOICE_VALUE(IOM_DATA_COMPRESSIBLE, 25), 0.65, 0.85 },
		{ IOM_CHOICE_VALUE(IOM_DATA_COMPRESSIBLE, 90), 0.05, 0.15 },
		{ IOM_CHOICE_VALUE(IOM_DATA_ZEROS, 0), 0.0, 0.02 },
		{ IOM_CHOICE_VALUE(IOM_DATA_RANDOM, 0), 0.99, 1.02 },
		{ IOM_CHOICE_VALUE(IOM_DATA_DEDUPE, 30), 0.99, 1.02 },
	};
	static const size_t lens[] = { 1024, 4096, 65536, 1 << 20 };

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		for (size_t j = 0; j < IOM_ARRAY_SIZE(lens); j++) {
			char *a = malloc(lens[j]), *b = malloc(lens[j]);
			double share;

			assert_non_null(a);
			assert_non_null(b);
			iom_worker_data_pattern(a, lens[j], cases[i].data, 42);
			iom_worker_data_pattern(b, lens[j], cases[i].data, 42);
			assert_memory_equal(a, b, lens[j]);
			share = gzip_share(a, lens[j]);
			if (share < cases[i].lo || share > cases[i].hi)
				fail_msg("data %u, %zu bytes: gzip to %.3f, want %.2f to %.2f",
					 cases[i].data, lens[j], share, cases[i].lo, cases[i].hi);
			free(a);
			free(b);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_worker_offsets_aligned_in_bounds),
		cmocka_unit_test(test_worker_offsets_deterministic),
		cmocka_unit_test(test_worker_sequential_wrap_and_slices),
		cmocka_unit_test(test_worker_random_covers_uniformly),
		cmocka_unit_test(test_worker_read_mix),
		cmocka_unit_test(test_worker_gen_refusals),
		cmocka_unit_test(test_worker_bytes_shares),
		cmocka_unit_test(test_worker_policy),
		cmocka_unit_test(test_worker_adaptive_wait),
		cmocka_unit_test(test_worker_random_pct_mixes),
		cmocka_unit_test(test_worker_random_pct_keeps_read_mix),
		cmocka_unit_test(test_worker_align),
		cmocka_unit_test(test_worker_distribution),
		cmocka_unit_test(test_worker_stride_and_shared_stream),
		cmocka_unit_test(test_worker_data_patterns_compress),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
