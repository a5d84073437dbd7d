/* SPDX-License-Identifier: MIT */
/*
 * crc_zlib — iom_crc32 by zlib's crc32, linked ahead of the library into the "before" build of
 * verify_speed (tests/bench/crc.sh): the CRC verification used before ISA-L's, same values.
 */
#include <zlib.h>

#include "crc.h"

uint32_t iom_crc32(uint32_t crc, const void *buf, size_t len)
{
	return (uint32_t)crc32(crc, (const Bytef *)buf, (uInt)len);
}
