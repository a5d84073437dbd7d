/* SPDX-License-Identifier: MIT */
/*
 * Tests of the matrix reader: a table of bad inputs, each checked for its line and message; the
 * corpus of malformed files in tests/bad/; good inputs read into the expected model (defaults,
 * lists, ranges, per-target overrides, order, excludes); every plain key landing where its row of
 * the key table says, from the file and from --set alike; --set overrides; and robustness — every
 * truncation and many random corruptions of a shipped matrix give a result or a message, never a
 * crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "matrix/matrix.h"
#include "rng.h"
#include "util.h"

#define HEAD                                                                   \
	"iomatrix = 1;\n"                                                      \
	"targets = ( { label = \"a\"; path = \"a.scratch\"; size = \"1G\"; } );\n" \
	"timing = { duration = \"1s\"; };\n"

static struct iom_matrix *parse_ok(const char *text)
{
	struct iom_matrix *m = NULL;
	char err[IOM_ERRLEN] = "";

	if (iom_matrix_parse("t.cfg", text, NULL, 0, &m, err, sizeof(err)) != 0)
		fail_msg("valid matrix refused: %s\n%s", err, text);
	return m;
}

/*
 * trim_pct on a cell that only reads is refused (the target would open read-only), but an
 * access spec with a writing line writes whatever the workload's read_pct says.
 */
static void test_matrix_trim_with_access_lines(void **state)
{
	static const char spec_writes[] =
		HEAD "access_specs = { w = ( { share = 50; block_size = \"4K\"; read_pct = 0; },\n"
		     "                        { share = 50; block_size = \"8K\"; } ); };\n"
		     "workload = { access = \"w\"; trim_pct = 10; };\n";
	static const char spec_reads[] =
		HEAD "access_specs = { r = ( { share = 100; block_size = \"4K\"; read_pct = 100; } ); };\n"
		     "workload = { access = \"r\"; read_pct = 0; trim_pct = 10; };\n";
	struct iom_matrix *m = parse_ok(spec_writes);
	char err[IOM_ERRLEN] = "";

	(void)state;
	iom_matrix_free(m);
	m = NULL;
	assert_int_not_equal(iom_matrix_parse("t.cfg", spec_reads, NULL, 0, &m, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "trim_pct discards data"));
	assert_null(m);
}

static void test_matrix_bad_inputs(void **state)
{
	static const struct {
		const char *text;
		int line;
		const char *msg;
	} cases[] = {
		{ "", 1, "missing required key 'iomatrix'" },
		{ "iomatrix = 2;\n", 1, "schema version 2: this iomatrix reads schema 1" },
		{ HEAD "workload = { blocksize = \"4K\"; };\n", 4,
		  "unknown key 'blocksize' in workload (did you mean 'block_size'?)" },
		{ HEAD "workload = {\n block_size = 4K;\n};\n", 5,
		  "syntax error (values with units are strings" },
		{ HEAD "\n\nworkload = { threads = \"x\"; };\n", 6, "threads 'x' is not a whole number" },
		{ HEAD "workload = { block_size = \"64G\"; };\n", 4,
		  "block_size '64G' is out of range (512 to 64M)" },
		{ HEAD "workload = { block_size = 4294967296; };\n", 4,
		  "block_size 4G is out of range (512 to 64M)" },
		{ HEAD "workload = { block_size = 99999999999999999999; };\n", 4, "too large" },
		{ HEAD "workload = { block_size = -1; };\n", 4, "block_size -1 cannot be negative" },
		{ HEAD "workload = { block_size = 1e308; };\n", 4, "not the real number 1e+308" },
		{ HEAD "workload = { block_size = \"NaN\"; };\n", 4, "'NaN': not a size" },
		{ HEAD "workload = {\n block_size = ( \"4K\",\n 4000 ); };\n", 6,
		  "block_size 4000 is not a multiple of 512, as direct I/O needs (target 'a'" },
		{ HEAD "workload = { block_size = ( \"4K\", 4000 ); direct = false; };\n", 0, NULL },
		{ "iomatrix = 1;\ntargets = (\n { label = \"a\"; path = \"a\"; size = \"1G\"; },\n"
		  " { label = \"b\"; path = \"b\"; size = \"1G\";\n   block_size = 1000; }\n);\n"
		  "timing = { duration = \"1s\"; };\n", 5, "(target 'b'" },
		{ "iomatrix = 1;\ntargets = (\n { label = \"a\"; path = \"a\"; size = \"1G\"; },\n"
		  " { label = \"a\"; path = \"b\"; size = \"1G\"; }\n);\n"
		  "timing = { duration = \"1s\"; };\n", 4, "duplicate label 'a' (also the label of "
							"the target at line 3)" },
		{ "iomatrix = 1;\ntargets = ( { label = \"a\"; path = \"a\"; } );\n"
		  "timing = { duration = \"1s\"; };\n", 2, "target 'a' has no size" },
		{ "iomatrix = 1;\ntargets = ( { label = \"d\"; path = \"/dev/sdz\"; } );\n"
		  "timing = { duration = \"1s\"; };\n", 0, NULL },
		{ "iomatrix = 1;\ntiming = { duration = \"1s\"; };\n", 1,
		  "missing required key 'targets'" },
		{ HEAD "workload = { queue_depth = [ ]; };\n", 4, "queue_depth is an empty list" },
		{ HEAD "workload = { queue_depth = [ 2, 2 ]; };\n", 4, "queue_depth lists 2 twice" },
		{ HEAD "workload = { queue_depth = { from = 8; to = 1; }; };\n", 4, "goes down" },
		{ HEAD "workload = { queue_depth = { from = 1; to = 8; stp = 2; }; };\n", 4,
		  "unknown key 'stp' in the range of queue_depth (did you mean 'step'?)" },
		{ "iomatrix = 1;\ntargets = ( { label = \"a\"; path = \"a\"; size = \"1G\"; } );\n"
		  "timing = {\n duration = \"1s\";\n bytes = \"1G\";\n};\n", 5,
		  "both duration and bytes" },
		{ "iomatrix = 1;\ntargets = ( { label = \"a\"; path = \"a\"; size = \"1G\"; } );\n"
		  "timing = { rest = \"1s\"; };\n", 3, "timing needs duration or bytes" },
		{ HEAD "order = [ \"block_size\" ];\n", 4, "order names 'block_size', which is not a "
							  "dimension here" },
		{ HEAD "order = [ \"blocksize\" ];\n", 4, "(did you mean 'block_size'?)" },
		{ HEAD "order = [ \"target\", \"target\" ];\n", 4, "order names 'target' twice" },
		{ HEAD "compare = \"colour\";\n", 4, "unknown dimension 'colour' in compare" },
		{ HEAD "exclude = ( { target = \"zz\"; } );\n", 4, "exclude names target 'zz'" },
		{ HEAD "exclude = ( { } );\n", 4, "empty exclude condition" },
		{ HEAD "@include \"x.cfg\"\n", 4, "@include is not supported" },
		{ HEAD "workload = { block_size = [ 512, \"4K\" ]; };\n", 4,
		  "mismatched element type in array (to mix numbers and strings" },
		{ HEAD "shuffle = \"yes\";\n", 4, "shuffle must be a seed" },
		{ HEAD "repeat_order = \"sideways\";\n", 4,
		  "repeat_order 'sideways' is not one of grouped | interleaved" },
		{ HEAD "report = { min_effect = \"200%\"; };\n", 4, "min_effect 200 is out of range" },
		{ HEAD "name = \"a b\";\n", 4, "name 'a b' may only contain letters" },
		{ HEAD "name = \"abc;\n\n", 4, "unterminated string (no closing \")" },
		{ HEAD "\"name\" = \"x\";\n", 4, "syntax error" },
		{ HEAD "description = \"two\\nlines\";\n", 4, "description contains a control" },
		{ HEAD "targets = 1;\n", 4, "duplicate setting name" },
		{ HEAD "submit_batch = 0;\n", 4, "submit_batch 0 is out of range (1 to 65536)" },
		{ HEAD "reap_wait = \"half\";\n", 4, "reap_wait 'half' is neither a number" },
		{ HEAD "reap_wait = \"1/0\";\n", 4, "reap_wait '1/0' is neither" },
		{ HEAD "reap_wait = 0;\n", 4, "reap_wait '0' is neither" },
		{ HEAD "reap_wait = \"2/3\";\n", 4, "reap_wait '2/3' is neither" },
		{ HEAD "reap_wait = 0.5;\n", 4, "reap_wait must be a number of completions (8) or a "
						"fraction of the I/Os in flight" },
	};

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		struct iom_matrix *m = NULL;
		char err[IOM_ERRLEN] = "", prefix[32];
		int ret = iom_matrix_parse("t.cfg", cases[i].text, NULL, 0, &m, err, sizeof(err));

		if (!cases[i].msg) {
			if (ret != 0)
				fail_msg("case %zu: valid input refused: %s", i, err);
			iom_matrix_free(m);
			continue;
		}
		snprintf(prefix, sizeof(prefix), "t.cfg:%d: ", cases[i].line);
		if (ret != -EINVAL || m || strncmp(err, prefix, strlen(prefix)) != 0 ||
		    !strstr(err, cases[i].msg) || strchr(err, '\n'))
			fail_msg("case %zu: ret %d, want '%s...%s', got '%s'", i, ret, prefix,
				 cases[i].msg, err);
	}
}

/* Every file of tests/bad/ through iom_matrix_load, as the e2e test does through the binary. */
static void test_matrix_bad_corpus(void **state)
{
	DIR *d = opendir("tests/bad");
	struct dirent *e;
	int n = 0;

	(void)state;
	if (!d)
		skip();
	while ((e = readdir(d)) != NULL) {
		char *path, *text, want[IOM_ERRLEN], err[IOM_ERRLEN] = "";
		struct iom_matrix *m = NULL;
		int line;
		char msg[IOM_ERRLEN];

		if (!strstr(e->d_name, ".cfg"))
			continue;
		path = xasprintf("tests/bad/%s", e->d_name);
		assert_int_equal(iom_read_file(path, &text, NULL), 0);
		assert_int_equal(sscanf(text, "# expect: %d: %511[^\n]", &line, msg), 2);
		snprintf(want, sizeof(want), "%s:%d: ", path, line);
		if (iom_matrix_load(path, NULL, 0, &m, err, sizeof(err)) == 0) {
			/* the plan-level errors (huge, all excluded) are plan.c's to report */
			iom_matrix_free(m);
		} else if (strncmp(err, want, strlen(want)) != 0 || !strstr(err, msg)) {
			fail_msg("%s: want '%s...%s', got '%s'", path, want, msg, err);
		}
		free(text);
		free(path);
		n++;
	}
	closedir(d);
	assert_true(n >= 40);
}

static void test_matrix_good_model(void **state)
{
	struct iom_matrix *m = parse_ok(
		"iomatrix = 1;\n"
		"description = \"a test\";\n"
		"seed = 42;\n"
		"targets = (\n"
		"  { label = \"fast\"; path = \"/dev/nvme0n1\"; destructive = true;\n"
		"    queue_depth = [ 1, 32, 128 ]; controller = \"nvme\"; },\n"
		"  { label = \"slow\"; path = \"slow.scratch\"; size = 1073741824; filesystem = \"xfs\"; }\n"
		");\n"
		"workload = {\n"
		"  read_pct = [ 100, 0 ];\n"
		"  block_size = { from = \"4K\"; to = \"64K\"; };\n"
		"  queue_depth = [ 1, 32 ];\n"
		"  threads = { from = 2; to = 8; step = 3; };\n"
		"};\n"
		"timing = { warmup = \"500ms\"; duration = 90; cooldown = 1.5; repeat = 3; };\n"
		"order = [ \"block_size\" ];\n"
		"compare = \"queue_depth\";\n"
		"repeat_order = \"interleaved\";\n"
		"shuffle = 9;\n"
		"exclude = ( { target = \"slow\"; threads = [ 5, 8 ]; }, { read_pct = 0; queue_depth = 128; } );\n"
		"report = { alpha = 0.01; min_effect = \"5%\"; };\n"
		"hooks = { before_run = \"sync\"; };\n");
	static const int64_t bs[] = { 4096, 8192, 16384, 32768, 65536 };

	(void)state;
	assert_string_equal(m->name, "t"); /* the file name without .cfg */
	assert_string_equal(m->description, "a test");
	assert_true(m->seed == 42);
	assert_int_equal(m->ntargets, 2);
	assert_string_equal(m->targets[0].label, "fast");
	assert_true(m->targets[0].destructive);
	assert_true(m->targets[0].size == 0);
	assert_string_equal(m->targets[0].controller, "nvme");
	assert_string_equal(m->targets[1].controller, "auto");
	assert_string_equal(m->targets[1].filesystem, "xfs");
	assert_true(m->targets[1].size == 1ull << 30);
	assert_int_equal(m->targets[0].dim[IOM_DIM_QUEUE_DEPTH].n, 3);
	assert_int_equal(m->targets[0].dim[IOM_DIM_QUEUE_DEPTH].v[2], 128);
	assert_int_equal(m->targets[1].dim[IOM_DIM_QUEUE_DEPTH].n, 2);
	assert_int_equal(m->targets[1].dim[IOM_DIM_BLOCK_SIZE].n, 5);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(m->targets[1].dim[IOM_DIM_BLOCK_SIZE].v[i], bs[i]);
	assert_int_equal(m->workload[IOM_DIM_THREADS].n, 3); /* 2, 5, 8 */
	assert_int_equal(m->workload[IOM_DIM_THREADS].v[2], 8);
	/* defaults */
	assert_int_equal(m->workload[IOM_DIM_PATTERN].v[0], IOM_PATTERN_RANDOM);
	assert_int_equal(m->workload[IOM_DIM_ENGINE].v[0], IOM_ENGINE_IO_URING);
	assert_int_equal(m->workload[IOM_DIM_DIRECT].v[0], 1);
	assert_true(m->listed[IOM_DIM_TARGET] && m->listed[IOM_DIM_QUEUE_DEPTH] &&
		    m->listed[IOM_DIM_BLOCK_SIZE] && m->listed[IOM_DIM_READ_PCT]);
	assert_false(m->listed[IOM_DIM_PATTERN] || m->listed[IOM_DIM_DIRECT]);
	assert_true(m->timing.warmup_ns == 500000000ull);
	assert_true(m->timing.duration_ns == 90000000000ull);
	assert_true(m->timing.cooldown_ns == 1500000000ull);
	assert_true(m->timing.bytes == 0);
	assert_int_equal(m->timing.repeat, 3);
	/* order: named first, then file order of first appearance: target (line 4), queue_depth
	 * (line 6, in a target), read_pct (10), threads (13), then the rest in table order */
	assert_int_equal(m->order[0], IOM_DIM_BLOCK_SIZE);
	assert_int_equal(m->order[1], IOM_DIM_TARGET);
	assert_int_equal(m->order[2], IOM_DIM_QUEUE_DEPTH);
	assert_int_equal(m->order[3], IOM_DIM_READ_PCT);
	assert_int_equal(m->order[4], IOM_DIM_THREADS);
	assert_int_equal(m->order[5], IOM_DIM_PATTERN);
	assert_int_equal(m->compare, IOM_DIM_QUEUE_DEPTH);
	assert_int_equal(m->repeat_order, IOM_REPEAT_INTERLEAVED);
	assert_true(m->shuffle && m->shuffle_seed == 9);
	assert_int_equal(m->nexcludes, 2);
	assert_int_equal(m->excludes[0].dim[IOM_DIM_TARGET].n, 1);
	assert_int_equal(m->excludes[0].dim[IOM_DIM_TARGET].v[0], 1);
	assert_int_equal(m->excludes[0].dim[IOM_DIM_THREADS].n, 2);
	assert_int_equal(m->excludes[1].dim[IOM_DIM_TARGET].n, 0);
	assert_true(m->report.alpha == 0.01);
	assert_true(m->report.min_effect_pct == 5);
	assert_true(m->report.max_cv_pct == 5); /* default */
	assert_string_equal(m->hooks.before_run, "sync");
	assert_null(m->hooks.after_run);
	assert_int_equal(iom_matrix_target_index(m, "slow"), 1);
	assert_int_equal(iom_matrix_target_index(m, "none"), -1);
	assert_non_null(strstr(m->as_run, "description = \"a test\""));
	iom_matrix_free(m);
	iom_matrix_free(NULL);
}

/* The io_uring submit/reap policy: defaults, a count, a fraction; zero means "the default"
 * nowhere (the worker's own defaults apply to a zeroed policy only). */
static void test_matrix_policy(void **state)
{
	static const struct {
		const char *keys;
		unsigned batch, wait, div;
	} cases[] = {
		{ "", 1, 0, 0 },
		{ "reap_wait = \"adaptive\";\n", 1, 0, 0 },
		{ "reap_wait = \"1/4\";\n", 1, 0, 4 },
		{ "submit_batch = 16;\nreap_wait = 16;\n", 16, 16, 0 },
		{ "reap_wait = \"1/2\";\n", 1, 0, 2 },
		{ "reap_wait = \"8\";\n", 1, 8, 0 },
		{ "reap_wait = \"1/1\";\nsubmit_batch = \"4\";\n", 4, 0, 1 },
	};

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		char text[512];
		struct iom_matrix *m;

		snprintf(text, sizeof(text), HEAD "%s", cases[i].keys);
		m = parse_ok(text);
		if (m->engine.submit_batch != cases[i].batch || m->engine.reap_wait != cases[i].wait ||
		    m->engine.reap_wait_div != cases[i].div)
			fail_msg("case %zu: submit_batch %u, reap_wait %u, 1/%u", i,
				 m->engine.submit_batch, m->engine.reap_wait, m->engine.reap_wait_div);
		iom_matrix_free(m);
	}
}

/* The io_uring engine's keys as a group: the same policy as the old top-level spelling, which
 * is still read with a note naming the new place; sqpoll and iopoll; a key in both places, an
 * unknown key in the group and a wrong type are errors naming the line; --set reaches the
 * group. */
static void test_matrix_io_uring_group(void **state)
{
	static const struct {
		const char *keys;
		unsigned batch, wait, div;
		bool sqpoll, iopoll;
		const char *note; /* NULL: no note */
	} cases[] = {
		{ "", 1, 0, 0, false, false, NULL },
		{ "io_uring = { submit_batch = 16; reap_wait = 16; };\n", 16, 16, 0, false, false,
		  NULL },
		{ "io_uring = { reap_wait = \"1/2\"; sqpoll = true; };\n", 1, 0, 2, true, false,
		  NULL },
		{ "io_uring = { iopoll = true; sqpoll = false; };\n", 1, 0, 0, false, true, NULL },
		{ "submit_batch = 16;\n", 16, 0, 0, false, false,
		  "t.cfg:4: warning: 'submit_batch' at the top level is now io_uring.submit_batch\n" },
		{ "io_uring = { sqpoll = true; };\nreap_wait = 8;\n", 1, 8, 0, true, false,
		  "t.cfg:5: warning: 'reap_wait' at the top level is now io_uring.reap_wait\n" },
	};
	static const struct {
		const char *keys;
		int line;
		const char *msg;
	} bad[] = {
		{ "submit_batch = 4;\nio_uring = { submit_batch = 8; };\n", 4,
		  "'submit_batch' is set twice: here at the top level (its old place) and as "
		  "io_uring.submit_batch on line 5" },
		{ "io_uring = { sqpol = true; };\n", 4,
		  "unknown key 'sqpol' in io_uring (did you mean 'sqpoll'?)" },
		{ "io_uring = { iopoll = 1; };\n", 4, "iopoll must be" },
		{ "io_uring = { submit_batch = 0; };\n", 4,
		  "submit_batch 0 is out of range (1 to 65536)" },
		{ "io_uring = { reap_wait = \"2/3\"; };\n", 4, "reap_wait '2/3' is neither" },
		{ "io_uring = 16;\n", 4, "io_uring must be a group { ... }" },
	};
	const struct iom_override ov[] = { { "io_uring.sqpoll", "true" },
					   { "io_uring.submit_batch", "4" } };
	struct iom_matrix *m;
	char err[IOM_ERRLEN];

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		char text[512];

		snprintf(text, sizeof(text), HEAD "%s", cases[i].keys);
		m = parse_ok(text);
		if (m->engine.submit_batch != cases[i].batch || m->engine.reap_wait != cases[i].wait ||
		    m->engine.reap_wait_div != cases[i].div || m->engine.sqpoll != cases[i].sqpoll ||
		    m->engine.iopoll != cases[i].iopoll)
			fail_msg("case %zu: submit_batch %u, reap_wait %u, 1/%u, sqpoll %d, iopoll %d",
				 i, m->engine.submit_batch, m->engine.reap_wait, m->engine.reap_wait_div, m->engine.sqpoll,
				 m->engine.iopoll);
		if (cases[i].note)
			assert_string_equal(m->notes, cases[i].note);
		else
			assert_null(m->notes);
		iom_matrix_free(m);
	}
	for (size_t i = 0; i < IOM_ARRAY_SIZE(bad); i++) {
		char text[512], want[64];

		snprintf(text, sizeof(text), HEAD "%s", bad[i].keys);
		m = NULL;
		assert_int_equal(iom_matrix_parse("t.cfg", text, NULL, 0, &m, err, sizeof(err)),
				 -EINVAL);
		assert_null(m);
		snprintf(want, sizeof(want), "t.cfg:%d: ", bad[i].line);
		if (strncmp(err, want, strlen(want)) != 0 || !strstr(err, bad[i].msg))
			fail_msg("case %zu: got '%s', want '%s%s'", i, err, want, bad[i].msg);
	}
	assert_int_equal(iom_matrix_parse("t.cfg", HEAD, ov, IOM_ARRAY_SIZE(ov), &m, err,
					  sizeof(err)), 0);
	assert_true(m->engine.sqpoll);
	assert_int_equal(m->engine.submit_batch, 4);
	iom_matrix_free(m);
	/* --set of a moved key by its bare or old name lands in io_uring and replaces the file's
	 * value at either place; a bare io_uring key is found too */
	{
		static const char *const files[] = { "submit_batch = 16;\n",
						     "io_uring = { submit_batch = 16; };\n" };
		const struct iom_override bare[] = { { "submit_batch", "8" }, { "sqpoll", "true" } };
		const struct iom_override grouped[] = { { "io_uring.submit_batch", "8" } };

		for (size_t i = 0; i < IOM_ARRAY_SIZE(files); i++) {
			char text[512];

			snprintf(text, sizeof(text), HEAD "%s", files[i]);
			assert_int_equal(iom_matrix_parse("t.cfg", text, bare, IOM_ARRAY_SIZE(bare),
							  &m, err, sizeof(err)), 0);
			assert_int_equal(m->engine.submit_batch, 8);
			assert_true(m->engine.sqpoll);
			iom_matrix_free(m);
			assert_int_equal(iom_matrix_parse("t.cfg", text, grouped, 1, &m, err,
							  sizeof(err)), 0);
			assert_int_equal(m->engine.submit_batch, 8);
			iom_matrix_free(m);
		}
	}
}

static void test_matrix_large_integers(void **state)
{
	/* libconfig 1.5 would wrap these at 32 bits; the reader must not */
	struct iom_matrix *m = parse_ok(
		"iomatrix = 1;\n"
		"targets = ( { label = \"a\"; path = \"a\"; size = 4294967296; } );\n"
		"timing = { bytes = 8589934592; };\n"
		"seed = 0x123456789;\n");

	(void)state;
	assert_true(m->targets[0].size == 4294967296ull);
	assert_true(m->timing.bytes == 8589934592ull);
	assert_true(m->seed == 0x123456789ull);
	iom_matrix_free(m);
}

/* A value for every key with a landing, unlike its default: as libconfig text, and as the text
 * the key table parses (NULL: the same). mkfs_options and mount_options belong to target b. */
static const struct {
	const char *key, *cfg, *plain;
} landed_values[] = {
	{ "name", "\"study1\"", "study1" },
	{ "description", "\"about it\"", "about it" },
	{ "seed", "42", NULL },
	{ "repeat_order", "\"interleaved\"", "interleaved" },
	{ "trace", "false", NULL },
	{ "size", "\"2M\"", "2M" },
	{ "filesystem", "\"ext4\"", "ext4" },
	{ "controller", "\"ctl\"", "ctl" },
	{ "overwrite", "true", NULL },
	{ "destructive", "true", NULL },
	{ "allow_same", "true", NULL },
	{ "fill_data", "true", NULL },
	{ "mkfs_options", "\"-q\"", "-q" },
	{ "mount_options", "\"noatime\"", "noatime" },
	{ "warmup", "\"2s\"", "2s" },
	{ "duration", "\"3s\"", "3s" },
	{ "cooldown", "\"1s\"", "1s" },
	{ "rest", "\"250ms\"", "250ms" },
	{ "timeout", "\"1h\"", "1h" },
	{ "repeat", "4", NULL },
	{ "repeat_max", "9", NULL },
	{ "alpha", "0.01", NULL },
	{ "min_effect", "\"3%\"", "3%" },
	{ "max_cv", "7.5", NULL },
	{ "correction", "\"bh\"", "bh" },
	{ "metrics", "\"iops, cpu_busy_pct\"", "iops, cpu_busy_pct" },
	{ "drop_caches", "true", NULL },
	{ "fstrim", "true", NULL },
	{ "hosts", "\"each\"", "each" }, /* many hosts */
	{ "rate_scope", "\"total\"", "total" },
	{ "where", "\"every\"", "every" },
	{ "submit_batch", "4", NULL }, /* the engines' keys (struct iom_engine_opts) */
	{ "sqpoll", "true", NULL },
	{ "iopoll", "true", NULL },
};

/* The model's struct that key k of target b, or of section k->section, lands in. */
static void *landing_base(struct iom_matrix *m, const struct iom_key *k)
{
	switch (k->section) {
	case IOM_SEC_TOP: return m;
	case IOM_SEC_TARGET: return &m->targets[strstr(k->name, "_options") ? 1 : 0];
	case IOM_SEC_TIMING: return &m->timing;
	case IOM_SEC_REPORT: return &m->report;
	case IOM_SEC_HOOKS: return &m->hooks;
	case IOM_SEC_IO_URING: return &m->engine;
	default: return NULL;
	}
}

/* Checks that every landed key of the table holds its landed_values[] value in m (a
 * dimension's landing is in struct iom_workload, where a cell's value lands: test_run.c). */
static void check_landed(struct iom_matrix *m, const char *how)
{
	size_t seen = 0;

	for (size_t i = 0; i < iom_nkeys; i++) {
		const struct iom_key *k = &iom_keys[i];
		const char *cfg = NULL, *plain = NULL;
		const char *field;

		if (!k->size || k->dim >= 0)
			continue;
		for (size_t j = 0; j < IOM_ARRAY_SIZE(landed_values); j++)
			if (strcmp(landed_values[j].key, k->name) == 0) {
				cfg = landed_values[j].cfg;
				plain = landed_values[j].plain ? landed_values[j].plain : cfg;
			}
		if (!cfg && strcmp(k->name, "bytes") == 0)
			continue; /* exactly one of duration and bytes: duration is given */
		if (!cfg && strcmp(k->name, "warmup_max") == 0)
			continue; /* only with warmup = "steady": test_matrix_steady_and_adaptive */
		if (!cfg)
			fail_msg("%s: key %s has a landing but no test value", how, k->name);
		seen++;
		field = (const char *)landing_base(m, k) + k->off;
		if (k->type == IOM_TYPE_STRING) {
			const char *str;

			memcpy(&str, field, sizeof(str));
			assert_non_null(str);
			if (strcmp(str, plain) != 0)
				fail_msg("%s: %s is '%s', want '%s'", how, k->name, str, plain);
		} else if (k->type == IOM_TYPE_FLOAT) {
			double x, want;

			memcpy(&x, field, sizeof(x));
			assert_int_equal(iom_key_parse_float(k, plain, &want, NULL, 0), 0);
			if (x != want)
				fail_msg("%s: %s is %g, want %g", how, k->name, x, want);
		} else {
			int64_t want, got = 0;
			char def[32];

			assert_int_equal(iom_key_parse_text(k, plain, &want, NULL, 0), 0);
			if (k->size == 1)
				got = *(const bool *)field;
			else if (k->size == 4)
				got = *(const uint32_t *)field;
			else
				memcpy(&got, field, 8);
			if (got != want)
				fail_msg("%s: %s is %lld, want %lld", how, k->name, (long long)got,
					 (long long)want);
			/* and it is not the default, so the test tells a landing from none */
			iom_key_format(k, want, def, sizeof(def));
			if (k->def && strcmp(def, k->def) == 0)
				fail_msg("%s: the test value of %s is its default", how, k->name);
		}
	}
	assert_int_equal(seen, IOM_ARRAY_SIZE(landed_values));
}

static const char *landed_value(const char *key)
{
	for (size_t j = 0; j < IOM_ARRAY_SIZE(landed_values); j++)
		if (strcmp(landed_values[j].key, key) == 0)
			return landed_values[j].cfg;
	return NULL;
}

static void test_matrix_every_landed_key_lands(void **state)
{
	char text[2048];
	struct iom_matrix *m;
	struct iom_override ov[IOM_ARRAY_SIZE(landed_values)];
	char keys[IOM_ARRAY_SIZE(landed_values)][64], err[IOM_ERRLEN] = "";
	size_t nov = 0;
	/* the same study with every landed key at its default, for the overrides */
	static const char *const plain_text =
		"iomatrix = 1;\n"
		"targets = ( { label = \"a\"; path = \"a.scratch\"; },\n"
		"  { label = \"b\"; device = \"/dev/loop9\"; filesystems = [ \"raw\" ];\n"
		"    destructive = true; } );\n"
		"timing = { duration = \"1s\"; };\n";

	(void)state;
	snprintf(text, sizeof(text),
		 "iomatrix = 1;\nname = %s;\ndescription = %s;\nseed = %s;\nrepeat_order = %s;\n"
		 "trace = %s;\n"
		 "targets = ( { label = \"a\"; path = \"a.scratch\"; size = %s; filesystem = %s;\n"
		 "  controller = %s; overwrite = %s; destructive = %s; fill_data = %s;\n"
		 "  allow_same = %s; },\n"
		 "  { label = \"b\"; device = \"/dev/loop9\"; destructive = true;\n"
		 "    filesystems = [ \"raw\" ]; mkfs_options = %s; mount_options = %s; } );\n"
		 "timing = { warmup = %s; duration = %s; cooldown = %s; rest = %s; timeout = %s;\n"
		 "  repeat = %s; repeat_max = %s; };\n"
		 "report = { alpha = %s; min_effect = %s; max_cv = %s; correction = %s;\n"
		 "  metrics = %s; };\n"
		 "hooks = { drop_caches = %s; fstrim = %s; where = %s; };\nhosts = %s;\n"
		 "rate_scope = %s;\nio_uring = { submit_batch = %s; sqpoll = %s; iopoll = %s; };\n",
		 landed_value("name"), landed_value("description"), landed_value("seed"),
		 landed_value("repeat_order"), landed_value("trace"), landed_value("size"),
		 landed_value("filesystem"), landed_value("controller"), landed_value("overwrite"),
		 landed_value("destructive"), landed_value("fill_data"), landed_value("allow_same"),
		 landed_value("mkfs_options"),
		 landed_value("mount_options"), landed_value("warmup"), landed_value("duration"),
		 landed_value("cooldown"), landed_value("rest"), landed_value("timeout"),
		 landed_value("repeat"), landed_value("repeat_max"), landed_value("alpha"),
		 landed_value("min_effect"),
		 landed_value("max_cv"), landed_value("correction"), landed_value("metrics"),
		 landed_value("drop_caches"), landed_value("fstrim"), landed_value("where"),
		 landed_value("hosts"), landed_value("rate_scope"), landed_value("submit_batch"),
		 landed_value("sqpoll"), landed_value("iopoll"));
	m = parse_ok(text);
	check_landed(m, "file");
	iom_matrix_free(m);

	/* --set takes the same path: each key set from the command line lands the same */
	for (size_t i = 0; i < IOM_ARRAY_SIZE(landed_values); i++) {
		const struct iom_key *k = NULL;

		for (size_t j = 0; j < iom_nkeys && !k; j++)
			if (iom_keys[j].size && strcmp(iom_keys[j].name, landed_values[i].key) == 0)
				k = &iom_keys[j];
		assert_non_null(k);
		if (k->section == IOM_SEC_TOP)
			snprintf(keys[nov], sizeof(keys[nov]), "%s", k->name);
		else if (k->section == IOM_SEC_TARGET)
			snprintf(keys[nov], sizeof(keys[nov]), "targets.%s.%s",
				 strstr(k->name, "_options") ? "b" : "a", k->name);
		else
			snprintf(keys[nov], sizeof(keys[nov]), "%s.%s", iom_section_name(k->section),
				 k->name);
		ov[nov].key = keys[nov];
		ov[nov++].value = landed_values[i].cfg;
	}
	if (iom_matrix_parse("t.cfg", plain_text, ov, nov, &m, err, sizeof(err)) != 0)
		fail_msg("--set refused: %s", err);
	check_landed(m, "--set");
	iom_matrix_free(m);

	/* a missing key lands its default */
	ov[0] = (struct iom_override){ "targets.a.size", "\"2M\"" };
	if (iom_matrix_parse("t.cfg", plain_text, ov, 1, &m, err, sizeof(err)) != 0)
		fail_msg("refused: %s", err);
	assert_true(m->seed == 1);
	assert_true(m->trace);
	assert_string_equal(m->targets[0].controller, "auto");
	assert_true(m->timing.warmup_ns == 1000000000ull);
	assert_true(m->report.alpha == 0.05);
	assert_true(m->report.max_cv_pct == 5.0);
	assert_true(m->report.correction == IOM_CORRECTION_HOLM);
	assert_null(m->description);
	assert_false(m->hooks.drop_caches);
	iom_matrix_free(m);
}

/* The steady warm-up and adaptive repetitions: warmup = "steady" with timing.steady and warmup_max; repeat_max and until. */
static void test_matrix_steady_and_adaptive(void **state)
{
	struct iom_matrix *m;

	(void)state;
	m = parse_ok("iomatrix = 1;\n"
		     "targets = ( { label = \"a\"; path = \"a.scratch\"; size = \"1G\"; } );\n"
		     "timing = { duration = \"1s\"; warmup = \"steady\"; "
		     "steady = \"iops_slope 0.5% 20s\"; warmup_max = \"2m\"; repeat = 3; "
		     "repeat_max = 9; until = \"ci 1.5%\"; };\n");
	assert_true(m->timing.warmup_steady);
	assert_true(m->timing.warmup_ns == 0);
	assert_true(m->timing.steady_slope);
	assert_true(m->timing.steady_pct == 0.5);
	assert_true(m->timing.steady_window_ns == 20000000000ull);
	assert_true(m->timing.warmup_max_ns == 120000000000ull);
	assert_int_equal(m->timing.repeat_max, 9);
	assert_true(m->timing.until_ci_pct == 1.5);
	assert_int_equal(iom_timing_plan_reps(&m->timing), 9);
	iom_matrix_free(m);
	/* the defaults: "iops 2% 10s", 60 s; until "settled" */
	m = parse_ok("iomatrix = 1;\n"
		     "targets = ( { label = \"a\"; path = \"a.scratch\"; size = \"1G\"; } );\n"
		     "timing = { duration = \"1s\"; warmup = \"steady\"; repeat_max = 4; "
		     "repeat = 2; };\n");
	assert_false(m->timing.steady_slope);
	assert_true(m->timing.steady_pct == 2);
	assert_true(m->timing.steady_window_ns == 10000000000ull);
	assert_true(m->timing.warmup_max_ns == 60000000000ull);
	assert_true(m->timing.until_ci_pct == 0);
	iom_matrix_free(m);
}

static void test_matrix_overrides(void **state)
{
	const char *text = HEAD "workload = { queue_depth = [ 1, 2 ]; };\n# a comment\n";
	const struct iom_override ov[] = {
		{ "block_size", "[4K, 64K]" },
		{ "workload.pattern", "sequential" },
		{ "timing.repeat", "3" },
		{ "targets.a.threads", "[1,2]" },
		{ "seed", "7" },
		{ "duration", "2.5s" },
		{ "order", "[\"threads\", \"block_size\"]" },
	};
	struct iom_matrix *m = NULL, *again = NULL;
	char err[IOM_ERRLEN] = "";

	(void)state;
	/* without overrides, as_run is the file's text */
	m = parse_ok(text);
	assert_string_equal(m->as_run, text);
	iom_matrix_free(m);

	assert_int_equal(iom_matrix_parse("t.cfg", text, ov, IOM_ARRAY_SIZE(ov), &m, err,
					  sizeof(err)), 0);
	assert_int_equal(m->workload[IOM_DIM_BLOCK_SIZE].n, 2);
	assert_int_equal(m->workload[IOM_DIM_BLOCK_SIZE].v[1], 65536);
	assert_int_equal(m->workload[IOM_DIM_PATTERN].v[0], IOM_PATTERN_SEQUENTIAL);
	assert_int_equal(m->workload[IOM_DIM_QUEUE_DEPTH].n, 2); /* untouched */
	assert_int_equal(m->timing.repeat, 3);
	assert_true(m->timing.duration_ns == 2500000000ull);
	assert_int_equal(m->targets[0].dim[IOM_DIM_THREADS].n, 2);
	assert_true(m->seed == 7);
	assert_int_equal(m->order[0], IOM_DIM_THREADS);
	assert_int_equal(m->order[1], IOM_DIM_BLOCK_SIZE);
	/* as_run is libconfig's rendering of the changed tree, and reads back the same */
	assert_null(strstr(m->as_run, "# a comment"));
	assert_non_null(strstr(m->as_run, "sequential"));
	assert_int_equal(iom_matrix_parse("as_run", m->as_run, NULL, 0, &again, err, sizeof(err)),
			 0);
	assert_int_equal(again->timing.repeat, 3);
	assert_int_equal(again->workload[IOM_DIM_BLOCK_SIZE].n, 2);
	assert_int_equal(again->targets[0].dim[IOM_DIM_THREADS].n, 2);
	assert_int_equal(again->order[0], IOM_DIM_THREADS);
	iom_matrix_free(again);
	iom_matrix_free(m);
}

static void test_matrix_override_errors(void **state)
{
	static const struct {
		struct iom_override ov;
		const char *msg;
	} cases[] = {
		{ { "blocksize", "4K" }, "t.cfg: --set blocksize=4K: unknown key 'blocksize' (did you mean 'block_size'?)" },
		{ { "workload.label", "x" }, "unknown key 'workload.label'" },
		{ { "block_size", "3K5" }, "t.cfg: --set block_size=3K5: block_size '3K5': unknown unit 'K5'" },
		{ { "block_size", "[1," }, "--set block_size=[1,: not a value" },
		{ { "queue_depth", "0" }, "queue_depth 0 is out of range (1 to 65536)" },
		{ { "targets.b.path", "x" }, "no target labelled 'b'" },
		{ { "targets.path", "x" }, "write targets.LABEL.KEY" },
		{ { "repeat", "1; iomatrix = 2" }, "not a value" },
		{ { "", "1" }, "--set needs KEY=VALUE" },
		{ { "timing.repeat", "[1, 2]" }, "timing.repeat must be a single value" },
	};

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		struct iom_matrix *m = NULL;
		char err[IOM_ERRLEN] = "";
		int ret = iom_matrix_parse("t.cfg", HEAD, &cases[i].ov, 1, &m, err, sizeof(err));

		if (ret != -EINVAL || m || !strstr(err, cases[i].msg))
			fail_msg("--set %s=%s: ret %d err '%s'", cases[i].ov.key, cases[i].ov.value,
				 ret, err);
	}
}

static void test_matrix_load_errors(void **state)
{
	struct iom_matrix *m = NULL;
	char err[IOM_ERRLEN] = "";

	(void)state;
	assert_int_equal(iom_matrix_load("/nonexistent/x.cfg", NULL, 0, &m, err, sizeof(err)),
			 -ENOENT);
	assert_null(m);
	assert_string_equal(err, "/nonexistent/x.cfg: cannot read the matrix: No such file or "
				 "directory");
	assert_int_equal(iom_matrix_load("matrices/atto.cfg", NULL, 0, &m, err, sizeof(err)), 0);
	assert_string_equal(m->name, "atto-transfer-sweep");
	assert_int_equal(m->ntargets, 2);
	assert_int_equal(m->targets[0].dim[IOM_DIM_BLOCK_SIZE].n, 21);
	iom_matrix_free(m);
}

/* Every prefix and many random corruptions of a shipped matrix: a model or a message. */
static void test_matrix_never_crashes(void **state)
{
	char *text, *buf;
	size_t len;
	struct iom_rng rng;

	(void)state;
	assert_int_equal(iom_read_file("matrices/crystaldiskmark.cfg", &text, &len), 0);
	buf = xmalloc(len + 1);
	for (size_t cut = 0; cut <= len; cut++) {
		struct iom_matrix *m = NULL;
		char err[IOM_ERRLEN] = "";

		memcpy(buf, text, cut);
		buf[cut] = '\0';
		if (iom_matrix_parse("cut.cfg", buf, NULL, 0, &m, err, sizeof(err)) == 0)
			iom_matrix_free(m);
		else
			assert_int_equal(strncmp(err, "cut.cfg:", 8), 0);
	}
	iom_rng_seed(&rng, 1);
	for (int round = 0; round < 2000; round++) {
		static const char bytes[] = "{}[]();=\",#0123456789-.eKMx\n ";
		struct iom_matrix *m = NULL;
		char err[IOM_ERRLEN] = "";

		memcpy(buf, text, len + 1);
		for (int k = 0; k < 3; k++)
			buf[iom_rng_below(&rng, len)] = bytes[iom_rng_below(&rng, sizeof(bytes) - 1)];
		if (iom_matrix_parse("flip.cfg", buf, NULL, 0, &m, err, sizeof(err)) == 0)
			iom_matrix_free(m);
		else
			assert_int_equal(strncmp(err, "flip.cfg:", 9), 0);
	}
	free(buf);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matrix_bad_inputs),
		cmocka_unit_test(test_matrix_trim_with_access_lines),
		cmocka_unit_test(test_matrix_every_landed_key_lands),
		cmocka_unit_test(test_matrix_bad_corpus),
		cmocka_unit_test(test_matrix_good_model),
		cmocka_unit_test(test_matrix_policy),
		cmocka_unit_test(test_matrix_io_uring_group),
		cmocka_unit_test(test_matrix_large_integers),
		cmocka_unit_test(test_matrix_steady_and_adaptive),
		cmocka_unit_test(test_matrix_overrides),
		cmocka_unit_test(test_matrix_override_errors),
		cmocka_unit_test(test_matrix_load_errors),
		cmocka_unit_test(test_matrix_never_crashes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
