/* SPDX-License-Identifier: MIT */
/*
 * crc — the one CRC-32 of iomatrix: the gzip/zlib polynomial (reflected 0xEDB88320), the value
 * zlib's crc32() gives, computed by ISA-L's crc32_gzip_refl (folded with carry-less multiplies,
 * several times zlib's speed on short buffers such as verification's 512-byte sectors). This
 * module is the only one that includes <isa-l/crc.h>: verification's sector headers and the
 * trace's header, chunk and footer checksums all go through it, so files written with zlib's
 * crc32 read back unchanged.
 */
#ifndef IOM_CRC_H
#define IOM_CRC_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32 of len bytes at buf continuing crc (0 to start), as zlib's crc32(crc, buf, len). */
uint32_t iom_crc32(uint32_t crc, const void *buf, size_t len);

#endif
