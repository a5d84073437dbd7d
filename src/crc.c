/* SPDX-License-Identifier: MIT */
/*
 * crc — CRC-32 through ISA-L (design in crc.h). ISA-L picks its fastest kernel for this CPU at
 * the first call (PCLMULQDQ, AVX-512 or the table) and its result is zlib's: the same initial
 * value and final inversion are taken care of inside crc32_gzip_refl.
 */
#include "crc.h"

#include <isa-l/crc.h>
#include <zlib.h>

uint32_t iom_crc32(uint32_t crc, const void *buf, size_t len)
{
	if (len == 0)
		return crc;
	return crc32_gzip_refl(crc, (const unsigned char *)buf, (uint64_t)len);
}

uint32_t iom_crc32_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b)
{
	return (uint32_t)crc32_combine(crc_a, crc_b, (z_off_t)len_b);
}
