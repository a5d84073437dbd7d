/* SPDX-License-Identifier: MIT */
/*
 * test_strbuf — the one growable string: appends, printf, padding, taking and reusing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

static void test_strbuf_builds_text(void **state)
{
	struct iom_strbuf b = { 0 };
	char *s;

	(void)state;
	assert_string_equal(iom_strbuf_get(&b), "");
	iom_strbuf_str(&b, "qd");
	iom_strbuf_printf(&b, "%d", 32);
	iom_strbuf_spaces(&b, 3);
	iom_strbuf_spaces(&b, -1);
	iom_strbuf_add(&b, "rndX", 3);
	assert_string_equal(iom_strbuf_get(&b), "qd32   rnd");
	assert_int_equal(b.len, 10);
	iom_strbuf_reset(&b);
	assert_string_equal(iom_strbuf_get(&b), "");
	for (int i = 0; i < 1000; i++)
		iom_strbuf_printf(&b, "%03d", i);
	assert_int_equal(b.len, 3000);
	assert_int_equal(strncmp(b.s + 2997, "999", 3), 0);
	s = iom_strbuf_take(&b);
	assert_null(b.s);
	assert_int_equal(b.len, 0);
	assert_int_equal(strlen(s), 3000);
	free(s);
	s = iom_strbuf_take(&b);
	assert_string_equal(s, "");
	free(s);
	iom_strbuf_str(&b, "x");
	iom_strbuf_release(&b);
	assert_null(b.s);
	iom_strbuf_release(&b);
}

static void vappend(struct iom_strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void vappend(struct iom_strbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	iom_strbuf_vprintf(b, fmt, ap);
	va_end(ap);
}

static void test_strbuf_vprintf(void **state)
{
	struct iom_strbuf b = { 0 };

	(void)state;
	vappend(&b, "%s=%u", "qd", 32u);
	vappend(&b, "%s", "");
	vappend(&b, " %.1f%%", 2.25);
	assert_string_equal(iom_strbuf_get(&b), "qd=32 2.2%");
	iom_strbuf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strbuf_builds_text),
		cmocka_unit_test(test_strbuf_vprintf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
