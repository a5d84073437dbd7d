/* SPDX-License-Identifier: MIT */
/*
 * Tests of `iomatrix diskspd`'s flag parsing: tables of DiskSpd command lines (the published
 * ones among them) and the matrix keys they come to, read back through the matrix reader; flags
 * that are accepted with a note; flags and targets that are refused, with their messages; and
 * a target file that exists without -c. No I/O is done (tests/e2e/diskspd.sh runs one).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import/diskspd.h"
#include "matrix/matrix.h"
#include "util.h"

#define MAXARGS 20
#define S (1000000000ull)

/* Splits a command line on spaces into argv (the strings are the caller's copy, line). */
static int split(char *line, char **argv)
{
	int n = 0;

	for (char *tok = strtok(line, " "); tok && n < MAXARGS; tok = strtok(NULL, " "))
		argv[n++] = tok;
	return n;
}

struct want {
	const char *args;
	uint64_t bs, size;
	unsigned qd, threads, read_pct;
	int pattern; /* enum iom_pattern */
	bool direct;
	uint64_t warmup_s, duration_s, cooldown_s;
	uint64_t seed; /* 0: DiskSpd mode leaves the matrix's default (1) */
};

static const struct want cases[] = {
	/* DiskSpd's defaults: 64K sequential reads, 2 outstanding, 1 thread, 10 s after 5 s, cached */
	{ "-c1G t.dat", 65536, 1ull << 30, 2, 1, 100, IOM_PATTERN_SEQUENTIAL, false, 5, 10, 0, 0 },
	/* published in controller comparisons */
	{ "-b16K -d1800 -h -L -o2 -t4 -r -w50 -c10G t.dat", 16384, 10ull << 30, 2, 4, 50,
	  IOM_PATTERN_RANDOM, true, 5, 1800, 0, 0 },
	{ "-t2 -o32 -b4K -r4K -d120 -Sh -D -L -W -w30 -c5G t.dat", 4096, 5ull << 30, 32, 2, 70,
	  IOM_PATTERN_RANDOM, true, 0, 120, 0, 0 },
	/* sizes in any case, -S alone is -Su, -C, -W with seconds, -z */
	{ "-b8k -c512m -S -W10 -C3 -d2 -z42 -w t.dat", 8192, 512ull << 20, 2, 1, 100,
	  IOM_PATTERN_SEQUENTIAL, true, 10, 2, 3, 42 },
	{ "-b1M -c2g -Su -s -w100 -o8 -t16 t.dat", 1 << 20, 2ull << 30, 8, 16, 0,
	  IOM_PATTERN_SEQUENTIAL, true, 5, 10, 0, 0 },
	/* -r overrides -s; -s with the block size as stride; -c in blocks of -b */
	{ "-s4K -r -b4K -c1024b -Sb t.dat", 4096, 4ull << 20, 2, 1, 100, IOM_PATTERN_RANDOM, false,
	  5, 10, 0, 0 },
	{ "-b4K -s4K -c16M -Suw -D1000 -Z -Zr -Z1M t.dat", 4096, 16ull << 20, 2, 1, 100,
	  IOM_PATTERN_SEQUENTIAL, true, 5, 10, 0, 0 },
	/* -r with the alignment in blocks */
	{ "-b8K -r1b -c1M t.dat", 8192, 1 << 20, 2, 1, 100, IOM_PATTERN_RANDOM, false, 5, 10, 0, 0 },
};

static void test_diskspd_flags_make_matrix_keys(void **state)
{
	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		const struct want *w = &cases[i];
		char *line = xstrdup(w->args), *argv[MAXARGS], err[IOM_ERRLEN], *text;
		int argc = split(line, argv);
		struct iom_diskspd d;
		struct iom_matrix *m;

		if (iom_diskspd_parse(argc, argv, &d, err, sizeof(err)) < 0)
			fail_msg("'%s': %s", w->args, err);
		if (iom_diskspd_matrix(&d, &text, err, sizeof(err)) < 0)
			fail_msg("'%s': %s", w->args, err);
		if (iom_matrix_parse("diskspd", text, NULL, 0, &m, err, sizeof(err)) < 0)
			fail_msg("'%s': %s", w->args, err);
		assert_int_equal(m->ntargets, 1);
		assert_string_equal(m->targets[0].path, "t.dat");
		assert_string_equal(m->targets[0].label, "t.dat");
		assert_int_equal(m->targets[0].size, w->size);
		assert_int_equal(m->workload[IOM_DIM_BLOCK_SIZE].n, 1);
		if ((uint64_t)m->workload[IOM_DIM_BLOCK_SIZE].v[0] != w->bs)
			fail_msg("'%s': block size %lld", w->args,
				 (long long)m->workload[IOM_DIM_BLOCK_SIZE].v[0]);
		assert_int_equal(m->workload[IOM_DIM_QUEUE_DEPTH].v[0], w->qd);
		assert_int_equal(m->workload[IOM_DIM_THREADS].v[0], w->threads);
		assert_int_equal(m->workload[IOM_DIM_READ_PCT].v[0], w->read_pct);
		assert_int_equal(m->workload[IOM_DIM_PATTERN].v[0], w->pattern);
		assert_int_equal(m->workload[IOM_DIM_DIRECT].v[0], w->direct);
		assert_int_equal(m->workload[IOM_DIM_ENGINE].v[0], IOM_ENGINE_IO_URING);
		assert_int_equal(m->timing.warmup_ns, w->warmup_s * S);
		assert_int_equal(m->timing.duration_ns, w->duration_s * S);
		assert_int_equal(m->timing.cooldown_ns, w->cooldown_s * S);
		assert_int_equal(m->timing.repeat, 1);
		assert_int_equal(m->seed, w->seed ? w->seed : 1);
		assert_string_equal(m->name, "diskspd");
		/* the description is the command as given */
		assert_int_equal(strncmp(m->description, "diskspd ", 8), 0);
		assert_string_equal(m->description + 8, w->args);
		iom_matrix_free(m);
		free(text);
		iom_diskspd_release(&d);
		free(line);
	}
}

/* Where each I/O goes: -r<align>, -rs<pct>, -T<offset> and -si become align, random_pct, thread_stride
 * and shared_sequential. */
static void test_diskspd_placement_flags(void **state)
{
	static const struct {
		const char *args;
		int64_t align, random_pct, stride, shared, pattern;
	} pcases[] = {
		{ "-b4K -r512 -c1M t.dat", 512, 100, 0, 0, IOM_PATTERN_RANDOM },
		{ "-b4K -r4K -c1M t.dat", 0, 100, 0, 0, IOM_PATTERN_RANDOM },   /* the block size */
		{ "-b4K -r64K -c1M t.dat", 65536, 100, 0, 0, IOM_PATTERN_RANDOM },
		{ "-b4K -r2b -c1M t.dat", 8192, 100, 0, 0, IOM_PATTERN_RANDOM },  /* in blocks */
		{ "-b4K -rs30 -c1M t.dat", 0, 30, 0, 0, IOM_PATTERN_RANDOM },
		{ "-b8K -t4 -T1M -c16M t.dat", 0, 100, 1 << 20, 0, IOM_PATTERN_SEQUENTIAL },
		{ "-b8K -t4 -T16b -c16M t.dat", 0, 100, 16 * 8192, 0, IOM_PATTERN_SEQUENTIAL },
		{ "-b8K -t1 -T1M -c16M t.dat", 0, 100, 0, 0, IOM_PATTERN_SEQUENTIAL }, /* no effect */
		{ "-b8K -t4 -r -T1M -c16M t.dat", 0, 100, 0, 0, IOM_PATTERN_RANDOM },  /* random */
		{ "-b8K -t4 -si -c16M t.dat", 0, 100, 0, 1, IOM_PATTERN_SEQUENTIAL },
		{ "-b8K -t4 -si8K -T1M -c16M t.dat", 0, 100, 0, 1, IOM_PATTERN_SEQUENTIAL },
	};

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(pcases); i++) {
		char *line = xstrdup(pcases[i].args), *argv[MAXARGS], err[IOM_ERRLEN], *text;
		int argc = split(line, argv);
		struct iom_diskspd d;
		struct iom_matrix *m;

		if (iom_diskspd_parse(argc, argv, &d, err, sizeof(err)) < 0)
			fail_msg("'%s': %s", pcases[i].args, err);
		if (iom_diskspd_matrix(&d, &text, err, sizeof(err)) < 0)
			fail_msg("'%s': %s", pcases[i].args, err);
		if (iom_matrix_parse("diskspd", text, NULL, 0, &m, err, sizeof(err)) < 0)
			fail_msg("'%s': %s\n%s", pcases[i].args, err, text);
		if (m->workload[IOM_DIM_ALIGN].v[0] != pcases[i].align ||
		    m->workload[IOM_DIM_RANDOM_PCT].v[0] != pcases[i].random_pct ||
		    m->workload[IOM_DIM_THREAD_STRIDE].v[0] != pcases[i].stride ||
		    m->workload[IOM_DIM_SHARED_SEQUENTIAL].v[0] != pcases[i].shared ||
		    m->workload[IOM_DIM_PATTERN].v[0] != pcases[i].pattern)
			fail_msg("'%s': align %lld random_pct %lld stride %lld shared %lld pattern "
				 "%lld\n%s", pcases[i].args,
				 (long long)m->workload[IOM_DIM_ALIGN].v[0],
				 (long long)m->workload[IOM_DIM_RANDOM_PCT].v[0],
				 (long long)m->workload[IOM_DIM_THREAD_STRIDE].v[0],
				 (long long)m->workload[IOM_DIM_SHARED_SEQUENTIAL].v[0],
				 (long long)m->workload[IOM_DIM_PATTERN].v[0], text);
		iom_matrix_free(m);
		free(text);
		iom_diskspd_release(&d);
		free(line);
	}
}

/* -f<size> is the target's size (the region [0, size)): of a created file, of an existing one
 * and of a device; every refused flag of the table names what it is and why. */
static void test_diskspd_max_size(void **state)
{
	static const struct { const char *args; uint64_t size; } cases_f[] = {
		{ "-c4M -f1M t.dat", 1 << 20 },   { "-c4M t.dat", 4 << 20 },
		{ "-b4K -c4M -f16b t.dat", 65536 },
	};

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases_f); i++) {
		char *line = xstrdup(cases_f[i].args), *argv[MAXARGS], err[IOM_ERRLEN], *text;
		int argc = split(line, argv);
		struct iom_diskspd d;
		struct iom_matrix *m;

		if (iom_diskspd_parse(argc, argv, &d, err, sizeof(err)) < 0)
			fail_msg("'%s': %s", cases_f[i].args, err);
		if (iom_diskspd_matrix(&d, &text, err, sizeof(err)) < 0)
			fail_msg("'%s': %s", cases_f[i].args, err);
		if (iom_matrix_parse("diskspd", text, NULL, 0, &m, err, sizeof(err)) < 0)
			fail_msg("'%s': %s", cases_f[i].args, err);
		if (m->targets[0].size != cases_f[i].size)
			fail_msg("'%s': size %llu", cases_f[i].args,
				 (unsigned long long)m->targets[0].size);
		iom_matrix_free(m);
		free(text);
		iom_diskspd_release(&d);
		free(line);
	}
	for (const char *f = "BeFIlNOpPuvxy"; *f; f++) {
		char arg[8], *argv[2] = { arg, "t.dat" }, err[IOM_ERRLEN] = "";
		struct iom_diskspd d;

		snprintf(arg, sizeof(arg), "-%c1", *f);
		assert_int_equal(iom_diskspd_parse(2, argv, &d, err, sizeof(err)), -EINVAL);
		if (!strstr(err, "is not supported by iomatrix diskspd: ") || !strstr(err, arg))
			fail_msg("'%s': %s", arg, err);
	}
}

/* -Z is data = "zeros", -Zr and -Z<size> "random", the last -Z given wins; none leaves the
 * default (random). */
static void test_diskspd_data(void **state)
{
	static const struct { const char *args; int64_t data; } cases_z[] = {
		{ "-Z -w100 -c1M t.dat", IOM_DATA_ZEROS },   { "-Zr -c1M t.dat", IOM_DATA_RANDOM },
		{ "-Z1M -c1M t.dat", IOM_DATA_RANDOM },      { "-Zr -Z -c1M t.dat", IOM_DATA_ZEROS },
		{ "-c1M t.dat", IOM_DATA_RANDOM },
	};

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases_z); i++) {
		char *line = xstrdup(cases_z[i].args), *argv[MAXARGS], err[IOM_ERRLEN], *text;
		int argc = split(line, argv);
		struct iom_diskspd d;
		struct iom_matrix *m;

		if (iom_diskspd_parse(argc, argv, &d, err, sizeof(err)) < 0)
			fail_msg("'%s': %s", cases_z[i].args, err);
		if (iom_diskspd_matrix(&d, &text, err, sizeof(err)) < 0)
			fail_msg("'%s': %s", cases_z[i].args, err);
		if (iom_matrix_parse("diskspd", text, NULL, 0, &m, err, sizeof(err)) < 0)
			fail_msg("'%s': %s", cases_z[i].args, err);
		if (m->workload[IOM_DIM_DATA].v[0] != cases_z[i].data)
			fail_msg("'%s': data %lld", cases_z[i].args,
				 (long long)m->workload[IOM_DIM_DATA].v[0]);
		iom_matrix_free(m);
		free(text);
		iom_diskspd_release(&d);
		free(line);
	}
}

/* -Sh, -Sw and -h are write_through = true (O_DSYNC); -Su and -S are not; -Sw alone keeps the
 * OS cache (buffered, O_DSYNC). */
static void test_diskspd_write_through(void **state)
{
	static const struct { const char *args; bool wt, direct; } cases_wt[] = {
		{ "-Sh -w100 -c1M t.dat", true, true },   { "-h -c1M t.dat", true, true },
		{ "-Sw -c1M t.dat", true, false },        { "-Suw -c1M t.dat", true, true },
		{ "-Su -c1M t.dat", false, true },        { "-S -c1M t.dat", false, true },
		{ "-c1M t.dat", false, false },
	};

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases_wt); i++) {
		char *line = xstrdup(cases_wt[i].args), *argv[MAXARGS], err[IOM_ERRLEN], *text;
		int argc = split(line, argv);
		struct iom_diskspd d;
		struct iom_matrix *m;

		if (iom_diskspd_parse(argc, argv, &d, err, sizeof(err)) < 0)
			fail_msg("'%s': %s", cases_wt[i].args, err);
		if (iom_diskspd_matrix(&d, &text, err, sizeof(err)) < 0)
			fail_msg("'%s': %s", cases_wt[i].args, err);
		if (iom_matrix_parse("diskspd", text, NULL, 0, &m, err, sizeof(err)) < 0)
			fail_msg("'%s': %s", cases_wt[i].args, err);
		if (m->workload[IOM_DIM_WRITE_THROUGH].v[0] != cases_wt[i].wt ||
		    m->workload[IOM_DIM_DIRECT].v[0] != cases_wt[i].direct)
			fail_msg("'%s': write_through %lld direct %lld", cases_wt[i].args,
				 (long long)m->workload[IOM_DIM_WRITE_THROUGH].v[0],
				 (long long)m->workload[IOM_DIM_DIRECT].v[0]);
		assert_null(strstr(text, "adds no FUA"));
		iom_matrix_free(m);
		free(text);
		iom_diskspd_release(&d);
		free(line);
	}
}

static void test_diskspd_notes(void **state)
{
	static const struct { const char *args, *note; } notes[] = {
		{ "-h -c1M t.dat", "-h is DiskSpd's old spelling of -Sh" },
		{ "-Sw -c1M t.dat", "DiskSpd's default goes through the OS cache" },
		{ "-W -c1M t.dat", "-W without seconds: no warm-up" },
		{ "-D500 -c1M t.dat", "records IOPS in 1 s intervals, not 500 ms" },
		{ "-Z1M -c1M t.dat", "-Z1M: random data, as DiskSpd's random buffer" },
		{ "-z -c1M t.dat", "-z without a seed" },
		{ "-c1M t.dat", "DiskSpd's default goes through the OS cache" },
		{ "-r -s -c1M t.dat", "-r overrides -s" },
		{ "-n -c1M t.dat", "-n (no affinity): iomatrix's default" },
	};

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(notes); i++) {
		char *line = xstrdup(notes[i].args), *argv[MAXARGS], err[IOM_ERRLEN], *text;
		int argc = split(line, argv);
		struct iom_diskspd d;
		bool found = false;

		assert_int_equal(iom_diskspd_parse(argc, argv, &d, err, sizeof(err)), 0);
		for (size_t k = 0; k < d.nnotes; k++)
			found = found || strstr(d.notes[k], notes[i].note);
		if (!found)
			fail_msg("'%s': no note with '%s'", notes[i].args, notes[i].note);
		/* the notes are in the matrix as comments */
		assert_int_equal(iom_diskspd_matrix(&d, &text, err, sizeof(err)), 0);
		assert_non_null(strstr(text, notes[i].note));
		free(text);
		iom_diskspd_release(&d);
		free(line);
	}
}

/* -a pins threads round-robin (the matrix's cpus), in the order given; a bare -a to every CPU
 * this process may use; -n (or no flag) pins nothing. */
static void test_diskspd_affinity(void **state)
{
	static const struct { const char *args, *cpus; } pins[] = {
		{ "-a3,1 -t4 -c1M t.dat", "3 1" },
		{ "-a0 -c1M t.dat", "0" },
		{ "-a0,1 -n -c1M t.dat", "" },
		{ "-c1M t.dat", "" },
		{ "-a -c1M t.dat", NULL }, /* every allowed CPU */
	};
	cpu_set_t allowed;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
	for (size_t i = 0; i < IOM_ARRAY_SIZE(pins); i++) {
		char *line = xstrdup(pins[i].args), *argv[MAXARGS], err[IOM_ERRLEN], *text;
		char got[256] = "", want[256] = "";
		int argc = split(line, argv);
		struct iom_diskspd d;
		struct iom_matrix *m;

		assert_int_equal(iom_diskspd_parse(argc, argv, &d, err, sizeof(err)), 0);
		assert_int_equal(iom_diskspd_matrix(&d, &text, err, sizeof(err)), 0);
		if (iom_matrix_parse("diskspd", text, NULL, 0, &m, err, sizeof(err)) < 0)
			fail_msg("'%s': %s", pins[i].args, err);
		for (unsigned k = 0; k < m->ncpus; k++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%u", k ? " " : "",
				 m->cpus[k]);
		if (pins[i].cpus)
			snprintf(want, sizeof(want), "%s", pins[i].cpus);
		else
			for (unsigned c = 0; c < 1024; c++)
				if (CPU_ISSET(c, &allowed))
					snprintf(want + strlen(want), sizeof(want) - strlen(want),
						 "%s%u", want[0] ? " " : "", c);
		if (strcmp(got, want) != 0)
			fail_msg("'%s': cpus '%s', want '%s'", pins[i].args, got, want);
		iom_matrix_free(m);
		free(text);
		iom_diskspd_release(&d);
		free(line);
	}
}

static void test_diskspd_refuses(void **state)
{
	static const struct { const char *args, *msg; } bad[] = {
		{ "-q t.dat", "unknown DiskSpd option '-q'" },
		{ "-F4 t.dat", "DiskSpd option '-F4' (total threads) is not supported" },
		{ "-ag0,1 t.dat", "processor groups (-ag) are Windows'" },
		{ "-a1,x t.dat", "'-a1,x': -a takes CPU numbers such as -a0,2" },
		{ "-a2,2 t.dat", "CPU 2 is listed twice" },
		{ "-nx t.dat", "unknown DiskSpd option '-nx'" },
		{ "-b4K -s8K -c1M t.dat", "-s8K: a sequential stride other than the block size (4K)" },
		{ "-rdpct90/10 t.dat", "'-rdpct90/10' (DiskSpd's random distributions) is not "
				       "supported by iomatrix diskspd: write the study as a matrix" },
		{ "-si -r t.dat", "-si and -r: -si shares one sequential stream" },
		{ "-rs0 t.dat", "'-rs0': -rs takes the percentage of random I/Os" },
		{ "-rs101 t.dat", "'-rs101': -rs takes the percentage" },
		{ "-rsx t.dat", "'-rsx': -rs takes the percentage" },
		{ "-Tx t.dat", "'-Tx': -T takes the stride" },
		{ "-T t.dat", "'-T': -T takes the stride" },
		{ "-six t.dat", "'-six': -si takes an optional stride" },
		{ "-b4Q t.dat", "'-b4Q': -b takes a block size" },
		{ "-b t.dat", "'-b': -b takes a block size" },
		{ "-b100 t.dat", "'-b100': block_size 100 is out of range (512 to 64M)" },
		{ "-b128M t.dat", "block_size 128M is out of range" },
		{ "-w101 t.dat", "'-w101': -w takes the percentage of writes" },
		{ "-d0 t.dat", "'-d0': -d takes the measured seconds" },
		{ "-dx t.dat", "'-dx': -d takes the measured seconds" },
		{ "-o0 t.dat", "'-o0': -o takes the I/Os outstanding" },
		{ "-o70000 t.dat", "queue_depth 70000 is out of range" },
		{ "-t0 t.dat", "'-t0': -t takes the threads" },
		{ "-t2000 t.dat", "threads 2000 is out of range" },
		{ "-c t.dat", "-c takes the size of the file to create" },
		{ "-Sm t.dat", "-Sm (memory-mapped I/O) is not supported" },
		{ "-Sbu t.dat", "conflict" },
		{ "-fr t.dat", "DiskSpd option '-fr' (random-access hint) is not supported by iomatrix "
			       "diskspd: a hint to the Windows cache manager" },
		{ "-ft t.dat", "'-ft' (temporary-file hint) is not supported" },
		{ "-fx t.dat", "'-fx': -f takes the size of the target's region" },
		{ "-c1M -f2M t.dat", "-f: a region of 2097152 bytes is larger than the file -c creates" },
		{ "-R t.dat", "'-R': -R takes text or xml (DiskSpd's other result formats are "
			      "iomatrix report's: --format)" },
		{ "-Rjson t.dat", "'-Rjson': -R takes text or xml" },
		{ "-Z1M,src.bin t.dat", "'-Z1M,src.bin' (write buffers from a file) is not supported" },
		{ "-Zx t.dat", "'-Zx': -Z takes r, a buffer size, or nothing (zeros)" },
		{ "-Sq t.dat", "unknown -S letter 'q'" },
		{ "-Lx t.dat", "unknown DiskSpd option '-Lx'" },
		{ "-hx t.dat", "unknown DiskSpd option '-hx'" },
		{ "-b4K", "needs a target" },
		{ "-c1M a.dat b.dat a.dat", "target 'a.dat' is given twice" },
		{ "C:\\io.dat", "'C:\\io.dat' is a Windows target" },
		{ "#1", "'#1' is a Windows target" },
		{ "--outpt=x t.dat", "unknown option '--outpt=x' for 'diskspd'" },
		{ "--matrix=1 t.dat", "option '--matrix' takes no value" },
		{ "t.dat --output", "option '--output' needs a value" },
	};

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(bad); i++) {
		char *line = xstrdup(bad[i].args), *argv[MAXARGS], err[IOM_ERRLEN] = "";
		int argc = split(line, argv);
		struct iom_diskspd d;

		if (iom_diskspd_parse(argc, argv, &d, err, sizeof(err)) != -EINVAL)
			fail_msg("'%s' was accepted", bad[i].args);
		if (!strstr(err, bad[i].msg))
			fail_msg("'%s': message '%s', want '%s'", bad[i].args, err, bad[i].msg);
		assert_null(d.notes);
		free(line);
	}
}

/* Refused when the matrix is made: what depends on the target or on several flags at once. */
static void test_diskspd_refuses_targets(void **state)
{
	static const struct { const char *args, *msg; int ret; } bad[] = {
		{ "-w10 /dev/iomatrix-no-such-disk", "names a device that does not exist and -w10 "
		  "writes to it: add --destructive", -EINVAL },
		{ "-c1G /dev/iomatrix-no-such-disk", "-c creates files, and "
		  "'/dev/iomatrix-no-such-disk' names a device that does not exist", -EINVAL },
		/* what the path really is: a character device; a missing file in a directory */
		{ "-c1M /dev/null", "'/dev/null' is a character device, neither a file nor a block "
		  "device", -EINVAL },
		{ "-w0 /dev/null", "'/dev/null' is a character device", -EINVAL },
		{ "/dev/shm/iomatrix-no-such-file.dat", "'/dev/shm/iomatrix-no-such-file.dat' does "
		  "not exist: give -c<size>", -ENOENT },
		{ "iomatrix-no-such-file.dat", "'iomatrix-no-such-file.dat' does not exist: give "
		  "-c<size>", -ENOENT },
		{ "-c1M /tmp", "'/tmp' is a directory", -EINVAL },
		{ "/dev/shm/iomatrix-no-such-dir/y.dat", "'/dev/shm/iomatrix-no-such-dir/y.dat' does "
		  "not exist: give -c<size>", -ENOENT },
		{ "-b1000 -Sh -c1M t.dat", "these DiskSpd options make an invalid study", -EINVAL },
	};

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(bad); i++) {
		char *line = xstrdup(bad[i].args), *argv[MAXARGS], err[IOM_ERRLEN] = "";
		char *text = (char *)"unchanged";
		int argc = split(line, argv);
		struct iom_diskspd d;

		assert_int_equal(iom_diskspd_parse(argc, argv, &d, err, sizeof(err)), 0);
		assert_int_equal(iom_diskspd_matrix(&d, &text, err, sizeof(err)), bad[i].ret);
		assert_null(text);
		if (!strstr(err, bad[i].msg))
			fail_msg("'%s': message '%s', want '%s'", bad[i].args, err, bad[i].msg);
		iom_diskspd_release(&d);
		free(line);
	}
}

/* A device read-only, or with --destructive; an existing file without -c keeps its size. */
static void test_diskspd_targets(void **state)
{
	char path[] = "/tmp/iom-test-diskspd.XXXXXX", err[IOM_ERRLEN], *text;
	char *argv[4];
	struct iom_diskspd d;
	struct iom_matrix *m;
	int fd;

	(void)state;
	argv[0] = (char *)"-w0";
	argv[1] = (char *)"/dev/iomatrix-no-such-disk";
	assert_int_equal(iom_diskspd_parse(2, argv, &d, err, sizeof(err)), 0);
	assert_int_equal(iom_diskspd_matrix(&d, &text, err, sizeof(err)), 0);
	assert_int_equal(iom_matrix_parse("d", text, NULL, 0, &m, err, sizeof(err)), 0);
	assert_int_equal(m->targets[0].size, 0);
	assert_false(m->targets[0].destructive);
	iom_matrix_free(m);
	free(text);
	iom_diskspd_release(&d);

	argv[0] = (char *)"-w50";
	argv[2] = (char *)"--destructive";
	assert_int_equal(iom_diskspd_parse(3, argv, &d, err, sizeof(err)), 0);
	assert_int_equal(iom_diskspd_matrix(&d, &text, err, sizeof(err)), 0);
	assert_int_equal(iom_matrix_parse("d", text, NULL, 0, &m, err, sizeof(err)), 0);
	assert_true(m->targets[0].destructive);
	iom_matrix_free(m);
	free(text);
	iom_diskspd_release(&d);

	/* a file to create under /dev/shm (tmpfs mounted on /dev), not a device */
	argv[0] = (char *)"-c64M";
	argv[1] = (char *)"/dev/shm/iomatrix-no-such-dir/y.dat";
	assert_int_equal(iom_diskspd_parse(2, argv, &d, err, sizeof(err)), 0);
	assert_int_equal(iom_diskspd_matrix(&d, &text, err, sizeof(err)), 0);
	assert_non_null(strstr(text, "size = \"64M\""));
	assert_null(strstr(text, "block device"));
	free(text);
	iom_diskspd_release(&d);

	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 3 << 20), 0);
	close(fd);
	argv[0] = path;
	argv[1] = (char *)"--overwrite";
	argv[2] = (char *)"--output=res";
	argv[3] = (char *)"--matrix";
	assert_int_equal(iom_diskspd_parse(4, argv, &d, err, sizeof(err)), 0);
	assert_string_equal(d.output, "res");
	assert_true(d.matrix_only);
	assert_int_equal(iom_diskspd_matrix(&d, &text, err, sizeof(err)), 0);
	assert_int_equal(iom_matrix_parse("d", text, NULL, 0, &m, err, sizeof(err)), 0);
	assert_int_equal(m->targets[0].size, 3 << 20);
	assert_true(m->targets[0].overwrite);
	iom_matrix_free(m);
	free(text);
	iom_diskspd_release(&d);
	unlink(path);

	argv[0] = (char *)"-b4K";
	argv[1] = (char *)"--help";
	assert_int_equal(iom_diskspd_parse(2, argv, &d, err, sizeof(err)), 0);
	assert_true(d.help);
	iom_diskspd_release(&d);
}

/* Several targets: several target files are one target with paths, all driven at once: -t threads
 * on each; files and devices together are refused. */
static void test_diskspd_several_files_one_target(void **state)
{
	char line[] = "-c8M -t2 -o4 -b4K -r -w30 a.dat b.dat c.dat", *argv[MAXARGS];
	char err[IOM_ERRLEN], *text;
	char file[] = "/tmp/iom-test-diskspd.XXXXXX";
	int argc = split(line, argv), fd;
	struct iom_diskspd d;
	struct iom_matrix *m;

	(void)state;
	assert_int_equal(iom_diskspd_parse(argc, argv, &d, err, sizeof(err)), 0);
	assert_int_equal(d.ntargets, 3);
	assert_int_equal(iom_diskspd_matrix(&d, &text, err, sizeof(err)), 0);
	if (iom_matrix_parse("d", text, NULL, 0, &m, err, sizeof(err)) != 0)
		fail_msg("%s\n%s", err, text);
	assert_int_equal(m->ntargets, 1);
	assert_int_equal(m->targets[0].npaths, 3);
	assert_string_equal(m->targets[0].paths[0], "a.dat");
	assert_string_equal(m->targets[0].paths[1], "b.dat");
	assert_string_equal(m->targets[0].paths[2], "c.dat");
	assert_string_equal(m->targets[0].path, "a.dat");
	assert_int_equal(m->targets[0].size, 8 << 20); /* each file's */
	assert_int_equal(m->workload[IOM_DIM_THREADS].n, 1);
	assert_int_equal(m->workload[IOM_DIM_THREADS].v[0], 6); /* -t2 on each of 3 */
	assert_int_equal(m->workload[IOM_DIM_QUEUE_DEPTH].v[0], 4);
	iom_matrix_free(m);
	free(text);
	iom_diskspd_release(&d);

	/* a device (read only) and an existing file */
	fd = mkstemp(file);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 1 << 20), 0);
	close(fd);
	argv[0] = (char *)"-w0";
	argv[1] = (char *)"/dev/iomatrix-no-such-disk";
	argv[2] = file;
	assert_int_equal(iom_diskspd_parse(3, argv, &d, err, sizeof(err)), 0);
	assert_int_equal(iom_diskspd_matrix(&d, &text, err, sizeof(err)), -EINVAL);
	unlink(file);
	if (!strstr(err, "give all files or all block devices"))
		fail_msg("message '%s'", err);
	iom_diskspd_release(&d);
}

/* The table of flags drives the parser, --help, the man page's list and the refusals: every
 * flag the parser says it takes has a line in --help and an entry in the man list, and every
 * flag --help lists as refused is refused by the parser with its reason. */
static void test_diskspd_one_table(void **state)
{
	char err[IOM_ERRLEN] = "", *help = NULL, *man = NULL, *taken, *refused;
	char *argv[2] = { (char *)"-q", (char *)"t.dat" };
	size_t hlen, mlen;
	struct iom_diskspd d;
	FILE *f;
	int n = 0;

	(void)state;
	assert_int_equal(iom_diskspd_parse(2, argv, &d, err, sizeof(err)), -EINVAL);
	taken = strstr(err, "takes -");
	assert_non_null(taken);
	assert_non_null((f = open_memstream(&help, &hlen)));
	iom_diskspd_usage(f);
	fclose(f);
	assert_non_null((f = open_memstream(&man, &mlen)));
	iom_diskspd_print_man(f);
	fclose(f);
	for (const char *p = taken + 6; *p == '-'; p += 3, n++) {
		char line[8], entry[16];

		snprintf(line, sizeof(line), "\n  -%c", p[1]);
		snprintf(entry, sizeof(entry), "\n.B \\-%c", p[1]);
		if (!strstr(help, line))
			fail_msg("-%c is taken but --help has no line for it", p[1]);
		if (!strstr(man, entry))
			fail_msg("-%c is taken but the man list has no entry for it", p[1]);
		if (p[2] != ' ')
			break;
	}
	assert_true(n >= 20);
	refused = strstr(help, "refused, each with its reason:");
	assert_non_null(refused);
	n = 0;
	for (char *p = strstr(refused, " -"); p && p[2] != ';' && p[2] != '\0'; n++) {
		char flag[8] = "", *a[2] = { flag, (char *)"t.dat" };

		sscanf(p + 1, "%7[-A-Za-z]", flag);
		if (iom_diskspd_parse(2, a, &d, err, sizeof(err)) != -EINVAL ||
		    !strstr(err, "is not supported by iomatrix diskspd: "))
			fail_msg("%s is listed as refused, but: %s", flag, err);
		p = strstr(p + 1, " -");
		if (!p || p > strchr(refused, ';'))
			break;
	}
	assert_true(n >= 13);
	free(help);
	free(man);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diskspd_flags_make_matrix_keys),
		cmocka_unit_test(test_diskspd_notes),
		cmocka_unit_test(test_diskspd_write_through),
		cmocka_unit_test(test_diskspd_data),
		cmocka_unit_test(test_diskspd_max_size),
		cmocka_unit_test(test_diskspd_placement_flags),
		cmocka_unit_test(test_diskspd_affinity),
		cmocka_unit_test(test_diskspd_refuses),
		cmocka_unit_test(test_diskspd_one_table),
		cmocka_unit_test(test_diskspd_refuses_targets),
		cmocka_unit_test(test_diskspd_targets),
		cmocka_unit_test(test_diskspd_several_files_one_target),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
