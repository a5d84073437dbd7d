/* SPDX-License-Identifier: MIT */
/*
 * test_crc — iom_crc32 (ISA-L) gives zlib's crc32 on random buffers of every length from 0 to
 * 4200 bytes and on larger ones, at every alignment of the start, in one call and chained in
 * pieces; the published check value of "123456789"; and iom_crc32_combine joins the CRCs of
 * two pieces into the CRC of both, for pieces of 0 bytes up to a megabyte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "crc.h"
#include "rng.h"

#define MAXLEN (1u << 20)

static unsigned char *random_buffer(size_t len, uint64_t seed)
{
	unsigned char *b = malloc(len + 64);
	struct iom_rng r;

	assert_non_null(b);
	iom_rng_seed(&r, seed);
	for (size_t i = 0; i < len + 64; i++)
		b[i] = (unsigned char)iom_rng_next(&r);
	return b;
}

static void test_crc_check_value(void **state)
{
	(void)state;
	assert_int_equal(iom_crc32(0, "123456789", 9), 0xCBF43926u);
	assert_int_equal(iom_crc32(0, "", 0), 0);
	assert_int_equal(iom_crc32(0x1234, "", 0), 0x1234);
}

static void test_crc_equals_zlib_every_length(void **state)
{
	unsigned char *b = random_buffer(MAXLEN, 42);

	(void)state;
	for (size_t len = 0; len <= 4200; len++) {
		size_t off = len % 61; /* every start alignment */

		assert_int_equal(iom_crc32(0, b + off, len), (uint32_t)crc32(0, b + off, (uInt)len));
	}
	for (size_t len = 4201; len <= MAXLEN; len = len * 3 + 7)
		assert_int_equal(iom_crc32(0, b, len), (uint32_t)crc32(0, b, (uInt)len));
	assert_int_equal(iom_crc32(0, b, MAXLEN), (uint32_t)crc32(0, b, MAXLEN));
	free(b);
}

static void test_crc_chained_equals_zlib(void **state)
{
	unsigned char *b = random_buffer(65536, 7);
	struct iom_rng r;

	(void)state;
	iom_rng_seed(&r, 99);
	for (int round = 0; round < 200; round++) {
		uint32_t mine = 0, z = 0;
		size_t at = 0;

		while (at < 65536) {
			size_t n = (size_t)(iom_rng_next(&r) % 1500);

			if (n > 65536 - at)
				n = 65536 - at;
			mine = iom_crc32(mine, b + at, n);
			z = (uint32_t)crc32(z, b + at, (uInt)n);
			assert_int_equal(mine, z);
			at += n;
		}
		assert_int_equal(mine, (uint32_t)crc32(0, b, 65536));
	}
	free(b);
}

static void test_crc_combine_equals_whole(void **state)
{
	unsigned char *b = random_buffer(MAXLEN, 11);
	struct iom_rng r;

	(void)state;
	iom_rng_seed(&r, 5);
	for (int round = 0; round < 300; round++) {
		size_t a = (size_t)iom_rng_below(&r, round < 100 ? 100 : MAXLEN / 2);
		size_t n = (size_t)iom_rng_below(&r, round % 2 ? 64 : MAXLEN / 2);
		uint32_t ca = iom_crc32(0, b, a), cb = iom_crc32(0, b + a, n);

		assert_int_equal(iom_crc32_combine(ca, cb, n), iom_crc32(0, b, a + n));
	}
	assert_int_equal(iom_crc32_combine(0x1234u, 0, 0), 0x1234u);
	assert_int_equal(iom_crc32_combine(0, iom_crc32(0, b, 9), 9), iom_crc32(0, b, 9));
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc_check_value),
		cmocka_unit_test(test_crc_equals_zlib_every_length),
		cmocka_unit_test(test_crc_chained_equals_zlib),
		cmocka_unit_test(test_crc_combine_equals_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
