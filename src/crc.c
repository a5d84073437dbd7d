/* SPDX-License-Identifier: MIT */
/*
 * crc — CRC-32 through ISA-L (design in crc.h). ISA-L picks its fastest kernel for this CPU at
 * the first call (PCLMULQDQ, AVX-512 or the table) and its result is zlib's: the same initial
 * value and final inversion are taken care of inside crc32_gzip_refl.
 */
#include "crc.h"

#include <isa-l/crc.h>

uint32_t iom_crc32(uint32_t crc, const void *buf, size_t len)
{
	if (len == 0)
		return crc;
	return crc32_gzip_refl(crc, (const unsigned char *)buf, (uint64_t)len);
}
