/* SPDX-License-Identifier: MIT */
/*
 * Tests of the key table: it is consistent (every dimension has exactly one key, names are
 * unique within a section, defaults parse and lie in range, ranges make sense), lookups and
 * "did you mean" work, scalar values parse and format back, both printed forms list every
 * key, every landing fits its section's struct, and a cell's words come from the table as the
 * report and the cell descriptions have always written them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "worker.h"
#include "matrix/matrix.h"
#include "util.h"

static void test_keys_every_dimension_has_one_key(void **state)
{
	(void)state;
	for (int d = 0; d < IOM_DIM_COUNT; d++) {
		int n = 0;

		for (size_t i = 0; i < iom_nkeys; i++)
			n += iom_keys[i].dim == d;
		if (n != 1)
			fail_msg("dimension %s has %d keys", iom_dim_name((enum iom_dim)d), n);
		assert_int_equal(iom_dim_from_name(iom_dim_name((enum iom_dim)d)), d);
		assert_non_null(iom_dim_key((enum iom_dim)d));
		assert_string_equal(iom_dim_key((enum iom_dim)d)->name,
				    iom_dim_name((enum iom_dim)d));
		/* workload dimensions live in the workload section, and each lands in struct
		 * iom_workload (where iom_run_spec_set_cell puts a cell's value: test_run.c) */
		if (d != IOM_DIM_TARGET) {
			const struct iom_key *k = iom_dim_key((enum iom_dim)d);

			assert_int_equal(k->section, IOM_SEC_WORKLOAD);
			if (!k->size)
				fail_msg("dimension %s has no landing in struct iom_workload "
					 "(IOM_AT(iom_workload, %s) in its row)", k->name, k->name);
			assert_true(k->off + k->size <= sizeof(struct iom_workload));
		}
	}
	/* and every workload key is a dimension */
	for (size_t i = 0; i < iom_nkeys; i++)
		if (iom_keys[i].section == IOM_SEC_WORKLOAD && iom_keys[i].dim <= IOM_DIM_TARGET)
			fail_msg("workload key %s is not a dimension", iom_keys[i].name);
	assert_int_equal(iom_dim_from_name("blocksize"), -1);
	assert_int_equal(iom_dim_from_name(NULL), -1);
}

/* A rate as written ↔ its stored form (model.h, IOM_RATE_*), and the rates refused. */
static void test_keys_rate_values(void **state)
{
	static const struct {
		const char *key, *text;
		int64_t v;          /* stored; ignored when bad */
		const char *back;   /* formatted back; NULL: the text */
		bool bad;
	} cases[] = {
		{ "rate_iops", "2000", 2000, NULL, false },
		{ "rate_iops", "none", IOM_RATE_NONE, NULL, false },
		{ "rate_iops", "max", IOM_RATE_MAX, NULL, false },
		{ "rate_iops", "50%", -500, NULL, false },
		{ "rate_iops", "12.5%", -125, NULL, false },
		{ "rate_iops", "100%", -1000, NULL, false },
		{ "rate_mb_s", "12.5", 12500000, NULL, false },
		{ "rate_mb_s", "4", 4000000, NULL, false },
		{ "rate_iops", "0", 0, NULL, true },
		{ "rate_iops", "150%", 0, NULL, true },
		{ "rate_iops", "0%", 0, NULL, true },
		{ "rate_iops", "12.55%", 0, NULL, true },
		{ "rate_iops", "-5", 0, NULL, true },
		{ "rate_iops", "fast", 0, NULL, true },
		{ "rate_iops", "200000000", 0, NULL, true },
	};
	char err[IOM_ERRLEN], buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct iom_key *k = iom_key_find(IOM_SEC_WORKLOAD, cases[i].key);
		int64_t v = 0;
		int ret;

		assert_non_null(k);
		err[0] = '\0';
		ret = iom_key_parse_text(k, cases[i].text, &v, err, sizeof(err));
		if (cases[i].bad) {
			assert_true(ret < 0);
			assert_non_null(strstr(err, cases[i].key));
			continue;
		}
		assert_int_equal(ret, 0);
		assert_true(v == cases[i].v);
		iom_key_format(k, v, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].back ? cases[i].back : cases[i].text);
	}
}

static void test_keys_names_unique(void **state)
{
	(void)state;
	for (size_t i = 0; i < iom_nkeys; i++) {
		assert_non_null(iom_keys[i].name);
		assert_non_null(iom_keys[i].help);
		assert_true(strlen(iom_keys[i].help) > 10);
		for (size_t j = i + 1; j < iom_nkeys; j++)
			if (iom_keys[i].section == iom_keys[j].section &&
			    strcmp(iom_keys[i].name, iom_keys[j].name) == 0)
				fail_msg("key %s appears twice in %s", iom_keys[i].name,
					 iom_section_name(iom_keys[i].section));
		/* a target key must not shadow a workload key (targets accept both) */
		if (iom_keys[i].section == IOM_SEC_TARGET)
			assert_null(iom_key_find(IOM_SEC_WORKLOAD, iom_keys[i].name));
	}
}

static void test_keys_defaults_parse_in_range(void **state)
{
	(void)state;
	for (size_t i = 0; i < iom_nkeys; i++) {
		const struct iom_key *k = &iom_keys[i];
		char err[IOM_ERRLEN] = "";
		int64_t v;
		double f;

		if (k->type == IOM_TYPE_SIZE || k->type == IOM_TYPE_UINT ||
		    k->type == IOM_TYPE_PCT || k->type == IOM_TYPE_DURATION)
			assert_true(k->min <= k->max);
		if (k->type == IOM_TYPE_FLOAT)
			assert_true(k->fmin <= k->fmax);
		if (k->type == IOM_TYPE_ENUM)
			assert_non_null(k->choices);
		if (!k->def)
			continue;
		assert_false(k->flags & IOM_KEY_REQUIRED); /* a required key has no default */
		switch (k->type) {
		case IOM_TYPE_FLOAT:
			if (iom_key_parse_float(k, k->def, &f, err, sizeof(err)) != 0)
				fail_msg("default of %s: %s", k->name, err);
			break;
		case IOM_TYPE_STRING:
			break;
		default:
			if (iom_key_parse_text(k, k->def, &v, err, sizeof(err)) != 0)
				fail_msg("default of %s: %s", k->name, err);
			break;
		}
	}
}

/* The pace_tick key's default is the worker's, and the tick leaves a wake-up room before the
 * late mark. */
static void test_keys_pace_tick_default(void **state)
{
	const struct iom_key *k = iom_key_find(IOM_SEC_WORKLOAD, "pace_tick");
	char err[IOM_ERRLEN] = "";
	int64_t v = 0;

	(void)state;
	assert_non_null(k);
	assert_int_equal(iom_key_parse_text(k, k->def, &v, err, sizeof(err)), 0);
	assert_int_equal(v, IOM_PACE_TICK_NS);
	assert_true(IOM_PACE_TICK_NS < IOM_LATE_NS);
}

static void test_keys_find_and_closest(void **state)
{
	(void)state;
	assert_non_null(iom_key_find(IOM_SEC_WORKLOAD, "block_size"));
	/* targets and exclude conditions accept workload keys */
	assert_non_null(iom_key_find(IOM_SEC_TARGET, "queue_depth"));
	assert_non_null(iom_key_find(IOM_SEC_EXCLUDE, "threads"));
	assert_non_null(iom_key_find(IOM_SEC_EXCLUDE, "target"));
	assert_null(iom_key_find(IOM_SEC_WORKLOAD, "label"));
	assert_null(iom_key_find(IOM_SEC_TIMING, "block_size"));
	assert_null(iom_key_find(IOM_SEC_TOP, NULL));

	assert_string_equal(iom_key_closest(IOM_SEC_WORKLOAD, "blocksize")->name, "block_size");
	assert_string_equal(iom_key_closest(IOM_SEC_WORKLOAD, "queu_depth")->name,
			    "queue_depth");
	assert_string_equal(iom_key_closest(IOM_SEC_WORKLOAD, "thread")->name, "threads");
	assert_string_equal(iom_key_closest(IOM_SEC_TIMING, "warmpu")->name, "warmup");
	assert_string_equal(iom_key_closest(IOM_SEC_TOP, "target")->name, "targets");
	assert_string_equal(iom_key_closest(IOM_SEC_TARGET, "lable")->name, "label");
	assert_null(iom_key_closest(IOM_SEC_WORKLOAD, "zzzzzzzz"));
	assert_null(iom_key_closest(IOM_SEC_WORKLOAD, "x"));
}

static void test_keys_parse_text(void **state)
{
	static const struct {
		const char *key;
		enum iom_section sec;
		const char *text;
		int ret;
		int64_t v;
		const char *msg;
	} cases[] = {
		{ "block_size", IOM_SEC_WORKLOAD, "64M", 0, 64 << 20, NULL },
		{ "block_size", IOM_SEC_WORKLOAD, "512", 0, 512, NULL },
		{ "block_size", IOM_SEC_WORKLOAD, "256", -ERANGE, 0, "block_size 256 is out of range (512 to 64M)" },
		{ "block_size", IOM_SEC_WORKLOAD, "10G", -ERANGE, 0, "out of range (512 to 64M)" },
		{ "block_size", IOM_SEC_WORKLOAD, "4Q", -EINVAL, 0, "unknown unit 'Q'" },
		{ "queue_depth", IOM_SEC_WORKLOAD, "32", 0, 32, NULL },
		{ "queue_depth", IOM_SEC_WORKLOAD, "0", -ERANGE, 0, "out of range (1 to 65536)" },
		{ "queue_depth", IOM_SEC_WORKLOAD, "99999999999999999999", -ERANGE, 0, "out of range" },
		{ "queue_depth", IOM_SEC_WORKLOAD, "3x", -EINVAL, 0, "not a whole number" },
		{ "read_pct", IOM_SEC_WORKLOAD, "70%", 0, 70, NULL },
		{ "read_pct", IOM_SEC_WORKLOAD, "70.5", -EINVAL, 0, "whole percentage" },
		{ "read_pct", IOM_SEC_WORKLOAD, "101", -ERANGE, 0, "out of range" },
		{ "pattern", IOM_SEC_WORKLOAD, "sequential", 0, IOM_PATTERN_SEQUENTIAL, NULL },
		{ "pattern", IOM_SEC_WORKLOAD, "rand", -EINVAL, 0, "pattern 'rand' is not one of random | sequential" },
		{ "engine", IOM_SEC_WORKLOAD, "null", 0, IOM_ENGINE_NULL, NULL },
		{ "direct", IOM_SEC_WORKLOAD, "false", 0, 0, NULL },
		{ "direct", IOM_SEC_WORKLOAD, "yes", -EINVAL, 0, "not true or false" },
		{ "warmup", IOM_SEC_TIMING, "1.5s", 0, 1500000000ll, NULL },
		{ "warmup", IOM_SEC_TIMING, "25h", -ERANGE, 0, "out of range (0s to 24h)" },
		{ "repeat", IOM_SEC_TIMING, "1001", -ERANGE, 0, "1 to 1000" },
		{ "label", IOM_SEC_TARGET, "x", -EINVAL, 0, "not a single value" },
	};

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		const struct iom_key *k = iom_key_find(cases[i].sec, cases[i].key);
		char err[IOM_ERRLEN] = "";
		int64_t v = -1;
		int ret;

		assert_non_null(k);
		ret = iom_key_parse_text(k, cases[i].text, &v, err, sizeof(err));
		if (ret != cases[i].ret || (ret == 0 && v != cases[i].v) ||
		    (cases[i].msg && !strstr(err, cases[i].msg)))
			fail_msg("%s = '%s': ret %d v %lld err '%s'", cases[i].key, cases[i].text,
				 ret, (long long)v, err);
	}
}

static void test_keys_format(void **state)
{
	char buf[64];

	(void)state;
	iom_dim_format(IOM_DIM_BLOCK_SIZE, 4096, buf, sizeof(buf));
	assert_string_equal(buf, "4K");
	iom_dim_format(IOM_DIM_BLOCK_SIZE, 1536, buf, sizeof(buf));
	assert_string_equal(buf, "1536");
	iom_dim_format(IOM_DIM_PATTERN, IOM_PATTERN_SEQUENTIAL, buf, sizeof(buf));
	assert_string_equal(buf, "sequential");
	iom_dim_format(IOM_DIM_ENGINE, IOM_ENGINE_PSYNC, buf, sizeof(buf));
	assert_string_equal(buf, "psync");
	iom_dim_format(IOM_DIM_DIRECT, 1, buf, sizeof(buf));
	assert_string_equal(buf, "true");
	iom_dim_format(IOM_DIM_READ_PCT, 70, buf, sizeof(buf));
	assert_string_equal(buf, "70");
	iom_key_range_text(iom_dim_key(IOM_DIM_ENGINE), buf, sizeof(buf));
	assert_string_equal(buf, "io_uring | psync | null | libaio");
	iom_key_range_text(iom_key_find(IOM_SEC_TIMING, "warmup"), buf, sizeof(buf));
	assert_string_equal(buf, "0s to 24h");
}

static char *printed(bool markdown)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	iom_keys_print(f, markdown);
	fclose(f);
	return buf;
}

static void test_keys_print_lists_every_key(void **state)
{
	char *text = printed(false), *md = printed(true);

	(void)state;
	assert_non_null(strstr(md, "| key | type |"));
	for (size_t i = 0; i < iom_nkeys; i++) {
		char name[64];

		if (iom_keys[i].section == IOM_SEC_TOP)
			snprintf(name, sizeof(name), "%s", iom_keys[i].name);
		else
			snprintf(name, sizeof(name), "%s.%s", iom_section_name(iom_keys[i].section),
				 iom_keys[i].name);
		if (!strstr(text, name))
			fail_msg("help keys lacks %s", name);
		snprintf(name + strlen(name), sizeof(name) - strlen(name), "`");
		if (!strstr(md, name))
			fail_msg("markdown lacks %s", name);
	}
	/* same content every time */
	{
		char *again = printed(true);

		assert_string_equal(md, again);
		free(again);
	}
	free(text);
	free(md);
}

/* The struct a section's landings point into (matrix.h), by size. */
static size_t section_struct_size(enum iom_section sec)
{
	switch (sec) {
	case IOM_SEC_TOP: return sizeof(struct iom_matrix);
	case IOM_SEC_TARGET: return sizeof(struct iom_target);
	case IOM_SEC_TIMING: return sizeof(struct iom_timing);
	case IOM_SEC_REPORT: return sizeof(struct iom_report_opts);
	case IOM_SEC_HOOKS: return sizeof(struct iom_hooks);
	case IOM_SEC_IO_URING: return sizeof(struct iom_engine_opts);
	case IOM_SEC_WORKLOAD: return sizeof(struct iom_workload); /* a cell's values (keys.h) */
	default: return 0; /* exclude conditions land nowhere */
	}
}

static void test_keys_landings_fit(void **state)
{
	size_t landed = 0;

	(void)state;
	for (size_t i = 0; i < iom_nkeys; i++) {
		const struct iom_key *k = &iom_keys[i];

		if (!k->size)
			continue;
		landed++;
		if (k->dim == IOM_DIM_TARGET || k->type == IOM_TYPE_GROUP ||
		    k->type == IOM_TYPE_LIST)
			fail_msg("%s: the target, a group or a list has no plain landing", k->name);
		if (k->off + k->size > section_struct_size(k->section))
			fail_msg("%s lands outside its section's struct", k->name);
		switch (k->type) {
		case IOM_TYPE_STRING:
			assert_int_equal(k->size, sizeof(char *));
			assert_true(k->max > 0); /* the longest value */
			break;
		case IOM_TYPE_FLOAT:
			assert_int_equal(k->size, sizeof(double));
			break;
		case IOM_TYPE_BOOL:
			assert_int_equal(k->size, sizeof(bool));
			break;
		default:
			assert_true(k->size == 4 || k->size == 8);
			/* the widest value fits the field */
			if (k->size == 4)
				assert_true(k->type == IOM_TYPE_ENUM || k->max <= UINT32_MAX);
			break;
		}
		/* two keys of a section never share a field */
		for (size_t j = 0; j < i; j++)
			if (iom_keys[j].size && iom_keys[j].section == k->section &&
			    iom_keys[j].off < k->off + k->size && k->off < iom_keys[j].off +
								     iom_keys[j].size)
				fail_msg("%s and %s land on the same bytes", k->name, iom_keys[j].name);
	}
	assert_true(landed >= 20);
	/* a few landings by name */
	assert_int_equal(iom_key_find(IOM_SEC_TIMING, "repeat")->off,
			 offsetof(struct iom_timing, repeat));
	assert_int_equal(iom_key_find(IOM_SEC_TOP, "seed")->off, offsetof(struct iom_matrix, seed));
	assert_int_equal(iom_key_find(IOM_SEC_TOP, "cpus")->size, 0); /* read by name */
}

static void test_keys_store_by_size(void **state)
{
	struct iom_timing t = { 0 };
	struct iom_matrix m = { 0 };
	struct {
		uint32_t u32;
		bool b;
		uint64_t u64;
	} x = { 0 };

	(void)state;
	assert_int_equal(iom_key_store(iom_key_find(IOM_SEC_TIMING, "repeat"), &t, 7), 0);
	assert_int_equal(t.repeat, 7);
	assert_int_equal(iom_key_store(iom_key_find(IOM_SEC_TIMING, "warmup"), &t, 1500000000), 0);
	assert_int_equal(t.warmup_ns, 1500000000ull);
	assert_int_equal(iom_key_store(iom_key_find(IOM_SEC_TOP, "repeat_order"), &m, 1), 0);
	assert_int_equal(m.repeat_order, IOM_REPEAT_INTERLEAVED);
	assert_int_equal(iom_key_store(iom_key_find(IOM_SEC_TOP, "trace"), &m, 1), 0);
	assert_true(m.trace);
	assert_int_equal(iom_key_store(iom_key_find(IOM_SEC_TOP, "name"), &m, 1), -EINVAL);
	assert_int_equal(iom_key_store(iom_key_find(IOM_SEC_TOP, "cpus"), &m, 1), -EINVAL);
	assert_int_equal(iom_store_int(&x.u32, 4, 65536), 0);
	assert_int_equal(iom_store_int(&x.b, 1, 2), 0);
	assert_int_equal(iom_store_int(&x.u64, 8, INT64_MAX), 0);
	assert_int_equal(x.u32, 65536);
	assert_true(x.b);
	assert_int_equal(x.u64, (uint64_t)INT64_MAX);
	assert_int_equal(iom_store_int(&x.u32, 2, 1), -EINVAL);
}

/* The short words the report has always written ("lsi 4K rnd rd70 qd32 t4 psync direct"). */
static void test_keys_dim_words(void **state)
{
	static const struct {
		const char *dim, *value, *word;
	} cases[] = {
		{ "target", "lsi-sas", "lsi-sas" },
		{ "block_size", "4096", "4K" },     { "block_size", "512", "512" },
		{ "block_size", "67108864", "64M" }, { "block_size", "4K", "block_size=4K" },
		{ "pattern", "random", "rnd" },     { "pattern", "sequential", "seq" },
		{ "pattern", "zigzag", "pattern=zigzag" },
		{ "read_pct", "70", "rd70" },       { "read_pct", "100", "rd100" },
		{ "read_pct", "0", "wr100" },       { "read_pct", "x", "read_pct=x" },
		{ "queue_depth", "32", "qd32" },    { "queue_depth", "", "queue_depth=" },
		{ "threads", "4", "t4" },
		{ "engine", "psync", "psync" },     { "engine", "libfoo", "libfoo" },
		{ "direct", "true", "direct" },     { "direct", "false", "buffered" },
		{ "direct", "yes", "buffered" },
		{ "verify", "true", "verify" },     { "verify", "false", "" },
		{ "nosuch", "3", "nosuch=3" },
	};
	char w[64];

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		iom_dim_word(cases[i].dim, cases[i].value, w, sizeof(w));
		if (strcmp(w, cases[i].word) != 0)
			fail_msg("%s=%s: '%s', want '%s'", cases[i].dim, cases[i].value, w,
				 cases[i].word);
	}
	/* the order of the words: target, block size, pattern, read %, depth, threads, engine,
	 * direct, then the rest (verify, unknown dimensions) together */
	assert_int_equal(iom_dim_word_rank("target"), 0);
	assert_int_equal(iom_dim_word_rank("block_size"), 1);
	assert_int_equal(iom_dim_word_rank("pattern"), 2);
	assert_int_equal(iom_dim_word_rank("read_pct"), 3);
	assert_int_equal(iom_dim_word_rank("queue_depth"), 4);
	assert_int_equal(iom_dim_word_rank("threads"), 5);
	assert_int_equal(iom_dim_word_rank("engine"), 6);
	assert_int_equal(iom_dim_word_rank("direct"), 7);
	assert_int_equal(iom_dim_word_rank("verify"), 8);
	assert_int_equal(iom_dim_word_rank("nosuch"), 8);
	assert_int_equal(iom_dim_word_rank(""), 8);
}

/* A cell's description as iom_cell_describe has always written it: "bs=4K qd=32 t=1 rd=70%". */
static void test_keys_dim_describe(void **state)
{
	static const struct {
		enum iom_dim dim;
		int64_t v;
		const char *text;
	} cases[] = {
		{ IOM_DIM_BLOCK_SIZE, 4096, "bs=4K" }, { IOM_DIM_QUEUE_DEPTH, 32, "qd=32" },
		{ IOM_DIM_THREADS, 1, "t=1" },         { IOM_DIM_READ_PCT, 70, "rd=70%" },
		{ IOM_DIM_READ_PCT, 0, "rd=0%" },      { IOM_DIM_PATTERN, 0, "random" },
		{ IOM_DIM_PATTERN, 1, "sequential" },  { IOM_DIM_ENGINE, 1, "psync" },
		{ IOM_DIM_DIRECT, 1, "direct" },       { IOM_DIM_DIRECT, 0, "buffered" },
		{ IOM_DIM_VERIFY, 1, "verify" },       { IOM_DIM_VERIFY, 0, "" },
	};
	char t[64], small[4];

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		iom_dim_describe(cases[i].dim, cases[i].v, t, sizeof(t));
		if (strcmp(t, cases[i].text) != 0)
			fail_msg("%s %lld: '%s', want '%s'", iom_dim_name(cases[i].dim),
				 (long long)cases[i].v, t, cases[i].text);
	}
	iom_dim_describe(IOM_DIM_READ_PCT, 100, small, sizeof(small)); /* cut, terminated */
	assert_string_equal(small, "rd=");
}

static void test_keys_fs_types(void **state)
{
	char err[IOM_ERRLEN];

	(void)state;
	for (size_t i = 0; iom_fs_types[i]; i++) {
		assert_int_equal(iom_fs_check_type(iom_fs_types[i], err, sizeof(err)), 0);
		assert_non_null(strstr(iom_fs_types_text, iom_fs_types[i]));
	}
	assert_int_equal(iom_fs_check_type("zfs", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "unknown filesystem 'zfs' (ext4, xfs, btrfs or raw)");
	assert_int_equal(iom_fs_check_type(NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(iom_section_from_name("workload"), IOM_SEC_WORKLOAD);
	assert_int_equal(iom_section_from_name("targets"), IOM_SEC_TARGET);
	assert_int_equal(iom_section_from_name("hooks"), IOM_SEC_HOOKS);
	assert_int_equal(iom_section_from_name("top level"), -1);
	assert_int_equal(iom_section_from_name("nosuch"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys_every_dimension_has_one_key),
		cmocka_unit_test(test_keys_names_unique),
		cmocka_unit_test(test_keys_rate_values),
		cmocka_unit_test(test_keys_defaults_parse_in_range),
		cmocka_unit_test(test_keys_pace_tick_default),
		cmocka_unit_test(test_keys_find_and_closest),
		cmocka_unit_test(test_keys_parse_text),
		cmocka_unit_test(test_keys_format),
		cmocka_unit_test(test_keys_print_lists_every_key),
		cmocka_unit_test(test_keys_landings_fit),
		cmocka_unit_test(test_keys_store_by_size),
		cmocka_unit_test(test_keys_dim_words),
		cmocka_unit_test(test_keys_dim_describe),
		cmocka_unit_test(test_keys_fs_types),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
