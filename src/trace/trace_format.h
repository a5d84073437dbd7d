/* SPDX-License-Identifier: MIT */
/*
 * trace_format — what the trace's writer (trace.c) and reader (trace_read.c) share of the file
 * format docs/trace.md describes: the header's and blocks' constants, the record flags, the
 * columns, the varint, zigzag and little-endian codings, and the recent submit stamps of a
 * TIME_REF block. Private to those two files; everyone else reads trace.h.
 */
#ifndef IOM_TRACE_FORMAT_H
#define IOM_TRACE_FORMAT_H

#include <stdint.h>

static const char magic[8] = { 'I', 'O', 'M', 'T', 'R', 'A', 'C', 'E' };

/* Header: fixed fields (56 bytes), the cell text, CRC-32. */
#define HDR_FIXED 56u
#define HDR_CELL_MAX 65536u
#define TAG_BLOCK 0x42 /* 'B' */
#define TAG_END 0x45   /* 'E' */

/* Block mode bits. */
#define MODE_OFF_ABS 0x1u
#define MODE_TIME_GAP 0x2u
/* Record flag bits. */
#define F_WRITE 0x01u
#define F_PHASE_SHIFT 1
#define F_PHASE 0x06u
#define F_BYTES 0x08u
#define F_RES 0x10u
#define F_GAP 0x20u
#define F_KNOWN 0x3fu

/* Columns of a block, in order. */
enum { COL_FLAGS, COL_OFF, COL_TIME, COL_LAT, COL_STAMP, COL_EXTRA, COL_LAG, NCOLS };
/* Columns of a block without lags (version 1, and version 2 without IOM_TRACE_HAS_LAG). */
#define NCOLS_V1 COL_LAG
/* The most bytes a block header takes: tag, mode, shift and nine varints. */
#define BLK_HDR_MAX (3 + 9 * 10)
#define VARINT_MAX 10
/* Submit stamps a TIME_REF block remembers (a power of two). */
#define STAMPS_MAX 64u
/* Blocks of fewer records keep their columns in one deflate block. */
#define SPLIT_MIN_RECORDS 256u

static inline uint8_t *put_uv(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline uint64_t zz(int64_t v)
{
	return ((uint64_t)v << 1) ^ (v < 0 ? UINT64_MAX : 0);
}

static inline int64_t unzz(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

/*
 * The recent distinct submit stamps of a block in TIME_REF mode, newest first: a submit equal to
 * one of them is coded as its position (1 … n), any other as 0 and a delta from the newest.
 */
struct stamps {
	uint64_t v[STAMPS_MAX];
	unsigned n, newest;        /* v[newest] is position 1, v[newest − 1] position 2, … */
	uint64_t max;              /* the largest stamp ever pushed (or the base) */
};

static inline void stamps_init(struct stamps *st, uint64_t base)
{
	st->v[0] = base;
	st->n = 1;
	st->newest = 0;
	st->max = base;
}

/* Position of s (1 … n), or 0. The newest stamp is found without a search (most records of a
 * batching engine repeat their batch's), and a stamp above every one pushed is new without one:
 * at QD1 every submission's is, and the search of all STAMPS_MAX was most of the writer's work. */
static inline unsigned stamps_find(const struct stamps *st, uint64_t s)
{
	if (s == st->v[st->newest])
		return 1;
	if (s > st->max)
		return 0;
	for (unsigned k = 0; k < st->n; k++)
		if (st->v[(st->newest - k) & (STAMPS_MAX - 1)] == s)
			return k + 1;
	return 0;
}

static inline uint64_t stamps_at(const struct stamps *st, unsigned pos)
{
	return st->v[(st->newest - (pos - 1)) & (STAMPS_MAX - 1)];
}

static inline void stamps_push(struct stamps *st, uint64_t s)
{
	st->newest = (st->newest + 1) & (STAMPS_MAX - 1);
	st->v[st->newest] = s;
	if (s > st->max)
		st->max = s;
	if (st->n < STAMPS_MAX)
		st->n++;
}

#endif
