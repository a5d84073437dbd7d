/* SPDX-License-Identifier: MIT */
/*
 * Tests of units: sizes and durations parse exactly (fractions included), refuse what does not
 * fit in 64 bits or is not a number with a message that quotes the input, and format back in
 * the largest whole unit.
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

#include "units.h"
#include "util.h"

struct size_case {
	const char *in;
	int ret;
	uint64_t bytes;
	const char *msg; /* substring of the error */
};

static const struct size_case size_cases[] = {
	{ "512", 0, 512, NULL },
	{ "0", 0, 0, NULL },
	{ "4K", 0, 4096, NULL },
	{ "4k", 0, 4096, NULL },
	{ "4KiB", 0, 4096, NULL },
	{ "4KB", 0, 4096, NULL },
	{ "4 K", 0, 4096, NULL },
	{ " 64M ", 0, 64ull << 20, NULL },
	{ "1.5M", 0, 1572864, NULL },
	{ "1.5K", 0, 1536, NULL },
	{ "1.50K", 0, 1536, NULL },
	{ "1G", 0, 1ull << 30, NULL },
	{ "2T", 0, 2ull << 40, NULL },
	{ "512B", 0, 512, NULL },
	{ "0.5K", 0, 512, NULL },
	{ "16777215T", 0, 16777215ull << 40, NULL },
	{ "18446744073709551615", 0, UINT64_MAX, NULL },
	{ "18446744073709551616", -ERANGE, 0, "too large" },
	{ "16777216T", -ERANGE, 0, "too large" },
	{ "99999999999999999999999999999999999999999", -ERANGE, 0, "too large" },
	{ "4Q", -EINVAL, 0, "'4Q': unknown unit 'Q' (use K, M, G, T)" },
	{ "4KQ", -EINVAL, 0, "unknown unit 'KQ'" },
	{ "0.3K", -EINVAL, 0, "not a whole number of bytes" },
	{ "1.0000000000000000001K", -ERANGE, 0, "too precise" },
	{ "-4K", -EINVAL, 0, "cannot be negative" },
	{ "", -EINVAL, 0, "empty size" },
	{ "   ", -EINVAL, 0, "empty size" },
	{ "nan", -EINVAL, 0, "'nan': not a size" },
	{ "inf", -EINVAL, 0, "not a size" },
	{ "1e308", -EINVAL, 0, "unknown unit 'e308'" },
	{ "0x10", -EINVAL, 0, "unknown unit" },
	{ ".5K", -EINVAL, 0, "not a size" },
	{ "4.K", -EINVAL, 0, "not a size" },
	{ "K", -EINVAL, 0, "not a size" },
};

static void test_units_size_parse(void **state)
{
	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(size_cases); i++) {
		const struct size_case *c = &size_cases[i];
		char err[IOM_ERRLEN] = "";
		uint64_t v = 12345;
		int ret = iom_size_parse(c->in, &v, err, sizeof(err));

		if (ret != c->ret || (ret == 0 && v != c->bytes) ||
		    (c->msg && !strstr(err, c->msg)))
			fail_msg("size '%s': ret %d value %llu err '%s'", c->in, ret,
				 (unsigned long long)v, err);
		if (ret < 0)
			assert_int_equal(v, 12345); /* untouched on error */
	}
}

static void test_units_uint_parse(void **state)
{
	static const struct {
		const char *s;
		uint64_t max;
		int ret;
		uint64_t v;
	} cases[] = {
		{ "0", 10, 0, 0 }, { "42", 100, 0, 42 }, { "100", 100, 0, 100 },
		{ "101", 100, -ERANGE, 0 }, { "18446744073709551615", UINT64_MAX, 0, UINT64_MAX },
		{ "18446744073709551616", UINT64_MAX, -ERANGE, 0 }, { "", 10, -EINVAL, 0 },
		{ "-1", 10, -EINVAL, 0 }, { "+1", 10, -EINVAL, 0 }, { "1k", 10000, -EINVAL, 0 },
		{ " 1", 10, -EINVAL, 0 }, { NULL, 10, -EINVAL, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 7;

		assert_int_equal(iom_uint_parse(cases[i].s, cases[i].max, &v), cases[i].ret);
		assert_int_equal(v, cases[i].ret == 0 ? cases[i].v : 7);
	}
}

static void test_units_size_format(void **state)
{
	static const struct {
		uint64_t v;
		const char *out;
	} cases[] = {
		{ 0, "0" },         { 512, "512" },          { 1024, "1K" },
		{ 1536, "1536" },   { 4096, "4K" },          { 12ull << 20, "12M" },
		{ 1536ull << 10, "1536K" }, { 64ull << 20, "64M" }, { 1ull << 30, "1G" },
		{ 3ull << 40, "3T" }, { 1ull << 50, "1024T" }, { UINT64_MAX, "18446744073709551615" },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		uint64_t back = 0;

		iom_size_format(cases[i].v, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].out);
		assert_int_equal(iom_size_parse(buf, &back, NULL, 0), 0);
		assert_true(back == cases[i].v);
	}
}

struct dur_case {
	const char *in;
	int ret;
	uint64_t ns;
	const char *msg;
};

static const struct dur_case dur_cases[] = {
	{ "0", 0, 0, NULL },
	{ "0s", 0, 0, NULL },
	{ "500ms", 0, 500000000ull, NULL },
	{ "1.5s", 0, 1500000000ull, NULL },
	{ "90m", 0, 5400000000000ull, NULL },
	{ "2h", 0, 7200000000000ull, NULL },
	{ "250us", 0, 250000ull, NULL },
	{ "100ns", 0, 100ull, NULL },
	{ "30", 0, 30000000000ull, NULL },
	{ "0.1s", 0, 100000000ull, NULL },
	{ "1.0000000005s", 0, 1000000001ull, NULL }, /* rounded to the nearest ns */
	{ "5124095h", 0, 5124095ull * 3600000000000ull, NULL },
	{ "5124096h", -ERANGE, 0, "too long" },
	{ "18446744073709551616ns", -ERANGE, 0, "too long" },
	{ "1e308s", -EINVAL, 0, "unknown unit 'e308s'" },
	{ "90M", -EINVAL, 0, "'90M': unknown unit 'M' (use ms, s, m, h)" },
	{ "1d", -EINVAL, 0, "unknown unit 'd'" },
	{ "-1s", -EINVAL, 0, "cannot be negative" },
	{ "nan", -EINVAL, 0, "not a duration" },
	{ "", -EINVAL, 0, "empty duration" },
};

static void test_units_duration_parse(void **state)
{
	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(dur_cases); i++) {
		const struct dur_case *c = &dur_cases[i];
		char err[IOM_ERRLEN] = "";
		uint64_t v = 0;
		int ret = iom_duration_parse(c->in, &v, err, sizeof(err));

		if (ret != c->ret || (ret == 0 && v != c->ns) || (c->msg && !strstr(err, c->msg)))
			fail_msg("duration '%s': ret %d value %llu err '%s'", c->in, ret,
				 (unsigned long long)v, err);
	}
}

static void test_units_duration_seconds(void **state)
{
	uint64_t ns = 0;
	char err[IOM_ERRLEN];

	(void)state;
	assert_int_equal(iom_duration_from_seconds(1.5, &ns, err, sizeof(err)), 0);
	assert_true(ns == 1500000000ull);
	assert_int_equal(iom_duration_from_seconds(0, &ns, err, sizeof(err)), 0);
	assert_true(ns == 0);
	assert_int_equal(iom_duration_from_seconds(1e308, &ns, err, sizeof(err)), -ERANGE);
	assert_int_equal(iom_duration_from_seconds(__builtin_inf(), &ns, err, sizeof(err)),
			 -ERANGE);
	assert_int_equal(iom_duration_from_seconds(__builtin_nan(""), &ns, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(iom_duration_from_seconds(-1, &ns, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "negative"));
}

static void test_units_duration_format(void **state)
{
	static const struct {
		uint64_t ns;
		const char *out;
	} cases[] = {
		{ 0, "0s" },
		{ 1500000000ull, "1.5s" },
		{ 5400000000000ull, "90m" },
		{ 7200000000000ull, "2h" },
		{ 60000000000ull, "1m" },
		{ 500000000ull, "500ms" },
		{ 1000000000ull, "1s" },
		{ 1250000000ull, "1.25s" },
		{ 1500000ull, "1500us" },
		{ 7ull, "7ns" },
		{ 61000000000ull, "61s" },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		uint64_t back = 0;

		iom_duration_format(cases[i].ns, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].out);
		assert_int_equal(iom_duration_parse(buf, &back, NULL, 0), 0);
		assert_true(back == cases[i].ns);
	}
	iom_duration_human(756000000000ull, buf, sizeof(buf));
	assert_string_equal(buf, "12m 36s");
	iom_duration_human(7500000000000ull, buf, sizeof(buf));
	assert_string_equal(buf, "2h 05m");
	iom_duration_human(19200000000ull, buf, sizeof(buf));
	assert_string_equal(buf, "19.2s");
}

/* Plain decimals only: what strtod would also take (hex, octal-looking, exponents, signs,
 * inf, nan) is not a number here. */
static void test_units_decimal_parse(void **state)
{
	static const struct { const char *s; double want; const char *rest; } ok[] = {
		{ "16", 16, "" }, { "010", 10, "" }, { "12.5%", 12.5, "%" }, { "0.001x", 0.001, "x" },
		{ "0x10", 0, "x10" }, { "1e3", 1, "e3" },
	};
	static const char *const bad[] = { "", ".5", "-1", "+1", " 1", "inf", "nan", "x1", "1." };
	const char *end;
	double x;

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(ok); i++) {
		x = -1;
		assert_int_equal(iom_decimal_parse(ok[i].s, &x, &end), 0);
		assert_true(x == ok[i].want);
		assert_string_equal(end, ok[i].rest);
	}
	for (size_t i = 0; i < IOM_ARRAY_SIZE(bad); i++) {
		x = -1;
		assert_int_equal(iom_decimal_parse(bad[i], &x, &end), -EINVAL);
		assert_true(x == -1);
	}
}

static void test_units_pct_parse(void **state)
{
	char err[IOM_ERRLEN];
	double v = -1;

	(void)state;
	assert_int_equal(iom_pct_parse("70", 0, 100, &v, err, sizeof(err)), 0);
	assert_true(v == 70);
	assert_int_equal(iom_pct_parse("2.5%", 0, 100, &v, err, sizeof(err)), 0);
	assert_true(v == 2.5);
	assert_int_equal(iom_pct_parse("100 %", 0, 100, &v, err, sizeof(err)), 0);
	assert_int_equal(iom_pct_parse("101", 0, 100, &v, err, sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, "out of range (0% to 100%)"));
	assert_int_equal(iom_pct_parse("-5", 0, 100, &v, err, sizeof(err)), -EINVAL);
	assert_int_equal(iom_pct_parse("nan", 0, 100, &v, err, sizeof(err)), -EINVAL);
	assert_int_equal(iom_pct_parse("5%%", 0, 100, &v, err, sizeof(err)), -EINVAL);
	assert_int_equal(iom_pct_parse(NULL, 0, 100, &v, err, sizeof(err)), -EINVAL);
}

static void test_units_cpulist_parse(void **state)
{
	static const struct {
		const char *in;
		int ret;
		const char *text; /* the list, or a part of the error */
	} cases[] = {
		{ "3", 0, "3" },
		{ "0-3", 0, "0 1 2 3" },
		{ " 5, 0-1 ,7 ", 0, "5 0 1 7" },
		{ "1023", 0, "1023" },
		{ "", -EINVAL, "an empty CPU list" },
		{ "x", -EINVAL, "not a CPU list" },
		{ "1,", -EINVAL, "not a CPU list" },
		{ "1-", -EINVAL, "not a CPU list" },
		{ "-1", -EINVAL, "not a CPU list" },
		{ "1;2", -EINVAL, "not a CPU list" },
		{ "3-1", -EINVAL, "the range 3-1 runs backwards" },
		{ "0-2,2", -EINVAL, "CPU 2 is listed twice" },
		{ "1024", -ERANGE, "CPUs are numbered 0 to 1023" },
		{ "0-99999999999999999999", -ERANGE, "CPUs are numbered 0 to 1023" },
	};
	char err[IOM_ERRLEN];

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		unsigned *cpus = NULL, n = 99;
		int ret = iom_cpulist_parse(cases[i].in, &cpus, &n, err, sizeof(err));

		if (ret != cases[i].ret)
			fail_msg("'%s': %d, want %d (%s)", cases[i].in, ret, cases[i].ret, err);
		if (ret == 0) {
			char got[64] = "";

			for (unsigned k = 0; k < n; k++)
				snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%u",
					 k ? " " : "", cpus[k]);
			assert_string_equal(got, cases[i].text);
		} else {
			assert_null(cpus);
			assert_int_equal(n, 0);
			if (!strstr(err, cases[i].text))
				fail_msg("'%s': '%s' lacks '%s'", cases[i].in, err, cases[i].text);
		}
		free(cpus);
	}
	assert_int_equal(iom_cpulist_parse(NULL, &(unsigned *){ NULL }, &(unsigned){ 0 }, err,
					   sizeof(err)), -EINVAL);
}

static void test_units_numbers_for_people(void **state)
{
	static const struct { double v; const char *count, *lat; } cases[] = {
		{ 0, "0", "0ns" },
		{ 950, "950", "950ns" },
		{ 9999, "9999", "10.0µs" },
		{ 12345, "12.35K", "12.3µs" },
		{ 123456, "123.5K", "123µs" },
		{ 1234567, "1.235M", "1.23ms" },
		{ 2.5e9, "2.500G", "2.50s" },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		iom_count_format(cases[i].v, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].count);
		iom_lat_format(cases[i].v, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].lat);
	}
	iom_count_format(NAN, buf, sizeof(buf));
	assert_string_equal(buf, "-");
	iom_sig_format(9.99996, 4, buf, sizeof(buf));
	assert_string_equal(buf, "10.00");
}

/* The one form of a double in every file written: 9 significant digits, no exponent. */
static void test_units_double_format(void **state)
{
	static const struct { double v; const char *text; } cases[] = {
		{ 0, "0" },
		{ -0.0, "0" },
		{ 1, "1" },
		{ 12345.678901234, "12345.6789" },
		{ 0.1, "0.1" },
		{ 2.5e9, "2500000000" },
		{ 1.234567891e-5, "0.0000123456789" },
		{ 1e-12, "1e-12" },
		{ 3e16, "3e+16" },
		{ -47.25, "-47.25" },
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		iom_double_format(cases[i].v, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units_size_parse),
		cmocka_unit_test(test_units_uint_parse),
		cmocka_unit_test(test_units_size_format),
		cmocka_unit_test(test_units_duration_parse),
		cmocka_unit_test(test_units_duration_seconds),
		cmocka_unit_test(test_units_duration_format),
		cmocka_unit_test(test_units_decimal_parse),
		cmocka_unit_test(test_units_pct_parse),
		cmocka_unit_test(test_units_cpulist_parse),
		cmocka_unit_test(test_units_numbers_for_people),
		cmocka_unit_test(test_units_double_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
