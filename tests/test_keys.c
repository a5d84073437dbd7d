/*
 * Tests of the key table: it is consistent (every dimension has exactly one key, names are
 * unique within a section, defaults parse and lie in range, ranges make sense), lookups and
 * "did you mean" work, scalar values parse and format back, and both printed forms list every
 * key.
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
		/* workload dimensions live in the workload section */
		if (d != IOM_DIM_TARGET)
			assert_int_equal(iom_dim_key((enum iom_dim)d)->section, IOM_SEC_WORKLOAD);
	}
	assert_int_equal(iom_dim_from_name("blocksize"), -1);
	assert_int_equal(iom_dim_from_name(NULL), -1);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys_every_dimension_has_one_key),
		cmocka_unit_test(test_keys_names_unique),
		cmocka_unit_test(test_keys_defaults_parse_in_range),
		cmocka_unit_test(test_keys_find_and_closest),
		cmocka_unit_test(test_keys_parse_text),
		cmocka_unit_test(test_keys_format),
		cmocka_unit_test(test_keys_print_lists_every_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
