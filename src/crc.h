/* SPDX-License-Identifier: MIT */
/*
 * crc — the one CRC-32 of iomatrix: the gzip/zlib polynomial (reflected 0xEDB88320), the value
 * zlib's crc32() gives, computed by ISA-L's crc32_gzip_refl (folded with carry-less multiplies,
 * several times zlib's speed on short buffers such as verification's 512-byte sectors). This
 * module is the only one that includes <isa-l/crc.h>: verification's sector headers and the
 * trace's header, chunk and footer checksums all go through it, so files written with zlib's
 * crc32 read back unchanged. Joining two CRCs (iom_crc32_combine) is zlib's.
 */
#ifndef IOM_CRC_H
#define IOM_CRC_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32 of len bytes at buf continuing crc (0 to start), as zlib's crc32(crc, buf, len). */
uint32_t iom_crc32(uint32_t crc, const void *buf, size_t len);

/* The CRC-32 of A followed by B from crc_a (A's), crc_b (B's) and B's length, as zlib's
 * crc32_combine(): how the trace's writer keeps the gzip trailer's CRC of its whole stream
 * without a second pass over what its blocks' CRCs already covered. */
uint32_t iom_crc32_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);

#endif
