/* SPDX-License-Identifier: MIT */
/*
 * test_csv — the one CSV writer: RFC 4180 quoting, and numbers in the form of the JSON files
 * (the same digits in summary.csv, `report --format csv` and runs/NNNNN.json).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "jsonio.h"

static void test_csv_quotes_and_numbers(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	iom_csv_field(f, "plain", true);
	iom_csv_field(f, "a,b", false);
	iom_csv_field(f, "say \"hi\"", false);
	iom_csv_field(f, "two\nlines", false);
	iom_csv_field(f, NULL, false);
	iom_csv_end(f);
	iom_csv_uint(f, 42, true);
	iom_csv_num(f, 12345.678901234);
	iom_csv_num(f, 2.5e9);           /* "%.9g" would write 2.5e+09 */
	iom_csv_num(f, 0.0000123456789); /* "%.9g" would write 1.23456789e-05 */
	iom_csv_num(f, NAN);
	iom_csv_num(f, -0.0);
	iom_csv_end(f);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\n"
				 "42,12345.6789,2500000000,0.0000123456789,,0\n");
	free(buf);
}

/* A number reads the same in the JSON files as in the CSV files. */
static void test_csv_json_same_digits(void **state)
{
	static const double xs[] = { 12345.678901234, 2.5e9, 0.0000123456789, 0.05, 1e-12 };

	(void)state;
	for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
		json_object *o = iom_json_num(xs[i]);
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		assert_non_null(f);
		iom_csv_field(f, "x", true);
		iom_csv_num(f, xs[i]);
		assert_int_equal(fclose(f), 0);
		assert_string_equal(buf + 2, json_object_to_json_string(o));
		free(buf);
		json_object_put(o);
	}
	assert_null(iom_json_num(INFINITY));
	assert_null(iom_json_str(NULL));
	assert_null(iom_json_utc(0));
}

/* A one-line array writes each integer as json-c does (signed, and unsigned above INT64_MAX),
 * a u64 array written as text reads back as the same numbers, and a 128-bit count is its
 * digits. */
static void test_json_one_line_numbers(void **state)
{
	static const uint64_t bins[] = { 0, 1, 9, 10, 8512, UINT64_MAX };
	json_object *o = json_object_new_object(), *a = json_object_new_array(), *back = NULL;
	char *text;

	(void)state;
	json_object_array_add(a, json_object_new_int64(0));
	json_object_array_add(a, json_object_new_int64(-7));
	json_object_array_add(a, json_object_new_int64(INT64_MIN));
	json_object_array_add(a, json_object_new_int64(INT64_MAX));
	json_object_array_add(a, json_object_new_uint64(UINT64_MAX));
	json_object_array_add(a, json_object_new_string("s"));
	json_object_array_add(a, iom_json_num(2.5));
	iom_json_add(o, "a", iom_json_one_line(a));
	iom_json_add(o, "bins", iom_json_u64_array(bins, sizeof(bins) / sizeof(bins[0])));
	iom_json_add(o, "none", iom_json_u64_array(NULL, 0));
	iom_json_add(o, "sum", iom_json_u128((unsigned __int128)UINT64_MAX * 10 + 5));
	iom_json_add(o, "zero", iom_json_u128(0));
	text = iom_json_text(o);
	assert_string_equal(text, "{\n"
		"  \"a\": [0, -7, -9223372036854775808, 9223372036854775807, "
		"18446744073709551615, \"s\", 2.5],\n"
		"  \"bins\": [0, 1, 9, 10, 8512, 18446744073709551615],\n"
		"  \"none\": [],\n"
		"  \"sum\": \"184467440737095516155\",\n"
		"  \"zero\": \"0\"\n"
		"}\n");
	back = json_tokener_parse(text);
	assert_non_null(back);
	assert_true(json_object_object_get_ex(back, "bins", &a));
	assert_int_equal(json_object_array_length(a), 6);
	for (size_t i = 0; i < 6; i++)
		assert_true(json_object_get_uint64(json_object_array_get_idx(a, i)) == bins[i]);
	json_object_put(back);
	json_object_put(o);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_quotes_and_numbers),
		cmocka_unit_test(test_csv_json_same_digits),
		cmocka_unit_test(test_json_one_line_numbers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
