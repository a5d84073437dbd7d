/* SPDX-License-Identifier: MIT */
/*
 * trace_read — the reader of per-I/O traces (docs/trace.md; the writer is trace.c): the header,
 * then block by block, each checked by its CRC-32 and decoded alone, so that a damaged or cut
 * file yields every intact block before it and says where it broke; the end record's counts.
 */
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "crc.h"
#include "ownfile.h"
#include "trace_format.h"
#include "util.h"

#define IN_CAP (64 * 1024)

/* What fill() met when it could not provide the bytes asked for. */
enum fill_status { FILL_OK, FILL_END, FILL_TRUNC, FILL_CORRUPT, FILL_IOERR };

struct iom_trace_reader {
	char *path;
	int fd;
	z_stream z;
	bool z_init;
	uint8_t *in;
	bool in_eof;               /* read() returned 0 */
	bool z_end;                /* the gzip member ended (trailer checked by zlib) */
	int io_err;                /* errno of a failed read */
	char zmsg[128];            /* zlib's word on corrupt compressed data */

	uint8_t *buf;              /* decompressed bytes; [beg, end) not yet consumed */
	size_t cap, beg, end;
	uint64_t pos;              /* decompressed offset of buf[beg] */

	struct iom_trace_header hdr;
	struct iom_trace_rec *recs;  /* the current block */
	size_t nrecs, irec, recs_cap;
	uint64_t count;            /* records delivered */
	uint64_t good_end;         /* decompressed offset after the last complete block */
	uint64_t *thread_records;  /* per thread, decoded so far */

	struct iom_trace_end endrec;
	bool ended;
	int err;                   /* sticky error, -errno */
	char *err_msg;
};

/* Makes at least want decompressed bytes available at buf[beg] when the stream has them. */
static enum fill_status fill(struct iom_trace_reader *r, size_t want)
{
	while (r->end - r->beg < want) {
		size_t before;
		int zret;

		if (r->z_end)
			return FILL_END;
		if (r->beg > 0) {
			memmove(r->buf, r->buf + r->beg, r->end - r->beg);
			r->end -= r->beg;
			r->beg = 0;
		}
		if (r->cap < want || r->cap - r->end < 4096) {
			r->cap = IOM_MAX(want, r->cap * 2);
			r->buf = xrealloc(r->buf, r->cap);
		}
		if (r->z.avail_in == 0 && !r->in_eof) {
			ssize_t n = read(r->fd, r->in, IN_CAP);

			if (n < 0) {
				if (errno == EINTR)
					continue;
				r->io_err = errno;
				return FILL_IOERR;
			}
			if (n == 0)
				r->in_eof = true;
			r->z.next_in = r->in;
			r->z.avail_in = (uInt)n;
		}
		r->z.next_out = r->buf + r->end;
		r->z.avail_out = (uInt)(r->cap - r->end);
		before = r->end;
		zret = inflate(&r->z, Z_NO_FLUSH);
		r->end = r->cap - r->z.avail_out;
		if (zret == Z_STREAM_END) {
			r->z_end = true;
		} else if (zret == Z_DATA_ERROR || zret == Z_NEED_DICT || zret == Z_STREAM_ERROR) {
			snprintf(r->zmsg, sizeof(r->zmsg), "invalid compressed data (%s)",
				 r->z.msg ? r->z.msg : "zlib error");
			return FILL_CORRUPT;
		} else if (zret == Z_MEM_ERROR) {
			r->io_err = ENOMEM;
			return FILL_IOERR;
		} else if (r->end == before && r->z.avail_in == 0 && r->in_eof) {
			return FILL_TRUNC;
		}
	}
	return FILL_OK;
}

static int reader_fail(struct iom_trace_reader *r, int code, char *err, size_t errlen,
		       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int reader_fail(struct iom_trace_reader *r, int code, char *err, size_t errlen,
		       const char *fmt, ...)
{
	char what[IOM_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	free(r->err_msg);
	r->err_msg = xasprintf("%s: %s", r->path, what);
	r->err = -code;
	return iom_err(err, errlen, code, "%s", r->err_msg);
}

static int fail_truncated(struct iom_trace_reader *r, char *err, size_t errlen)
{
	return reader_fail(r, ENODATA, err, errlen,
			   "truncated after %llu records (last complete block at byte %llu)",
			   (unsigned long long)r->count, (unsigned long long)r->good_end);
}

static int fail_corrupt(struct iom_trace_reader *r, char *err, size_t errlen, const char *why)
{
	return reader_fail(r, EBADMSG, err, errlen,
			   "corrupt after %llu records (last complete block at byte %llu): %s",
			   (unsigned long long)r->count, (unsigned long long)r->good_end, why);
}

/* The error for a fill() that came up short. */
static int fail_fill(struct iom_trace_reader *r, enum fill_status st, char *err, size_t errlen)
{
	switch (st) {
	case FILL_CORRUPT:
		return fail_corrupt(r, err, errlen, r->zmsg);
	case FILL_IOERR:
		return reader_fail(r, r->io_err, err, errlen, "cannot read: %s",
				   strerror(r->io_err));
	case FILL_END:  /* the compressed stream ended cleanly, but in the middle of the trace */
	case FILL_TRUNC:
	default:
		return fail_truncated(r, err, errlen);
	}
}

/* A varint from [*p, end); -1 when it runs past end or past 64 bits. */
static int get_uv(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;
	unsigned sh = 0;

	while (*p < end) {
		uint8_t b = *(*p)++;

		if (sh == 63 && b > 1)
			return -1;
		x |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
		sh += 7;
		if (sh > 63)
			return -1;
	}
	return -1;
}

static int read_header(struct iom_trace_reader *r, char *err, size_t errlen)
{
	enum fill_status st = fill(r, 8);
	const uint8_t *b = r->buf + r->beg;
	uint32_t hlen, cell_len, version;

	if (st == FILL_IOERR)
		return fail_fill(r, st, err, errlen);
	if (r->end - r->beg < 8) {
		size_t have = r->end - r->beg;

		if (st == FILL_TRUNC && memcmp(b, magic, have) == 0)
			return reader_fail(r, ENODATA, err, errlen, "truncated in its header");
		if (st == FILL_CORRUPT && have == 0)
			return reader_fail(r, EINVAL, err, errlen,
					   "not an iomatrix trace (%s)", r->zmsg);
		return reader_fail(r, EINVAL, err, errlen, "not an iomatrix trace");
	}
	if (memcmp(b, magic, 8) != 0)
		return reader_fail(r, EINVAL, err, errlen, "not an iomatrix trace");
	st = fill(r, 16);
	b = r->buf + r->beg;
	if (st != FILL_OK) {
		if (st == FILL_TRUNC || st == FILL_END)
			return reader_fail(r, ENODATA, err, errlen, "truncated in its header");
		return fail_fill(r, st, err, errlen);
	}
	/* Length and checksum first (every version keeps them where they are), then the rest. */
	version = get_le32(b + 8);
	hlen = get_le32(b + 12);
	if (hlen < 20 || hlen > HDR_FIXED + HDR_CELL_MAX + 1024)
		return reader_fail(r, EBADMSG, err, errlen, "corrupt header");
	st = fill(r, hlen);
	b = r->buf + r->beg;
	if (st != FILL_OK) {
		if (st == FILL_TRUNC || st == FILL_END)
			return reader_fail(r, ENODATA, err, errlen, "truncated in its header");
		return fail_fill(r, st, err, errlen);
	}
	if (iom_crc32(0, b, hlen - 4) != get_le32(b + hlen - 4))
		return reader_fail(r, EBADMSG, err, errlen, "corrupt header (bad checksum)");
	if (version > IOM_TRACE_VERSION)
		return reader_fail(r, ENOTSUP, err, errlen,
				   "trace format version %u is newer than this iomatrix reads (%u)",
				   version, IOM_TRACE_VERSION);
	if (version == 0 || hlen < HDR_FIXED + 4)
		return reader_fail(r, EBADMSG, err, errlen, "corrupt header");
	cell_len = get_le32(b + 52);
	if (hlen < HDR_FIXED + (uint64_t)cell_len + 4)
		return reader_fail(r, EBADMSG, err, errlen, "corrupt header");
	r->hdr.version = version;
	r->hdr.run_index = get_le32(b + 16);
	r->hdr.nthreads = get_le32(b + 20);
	r->hdr.clock_id = get_le32(b + 24);
	r->hdr.ring_records = get_le32(b + 28);
	r->hdr.start_wall_ns = get_le64(b + 32);
	r->hdr.start_mono_ns = get_le64(b + 40);
	r->hdr.flags = get_le32(b + 48);
	if ((r->hdr.flags & IOM_TRACE_HAS_LAG) && version < 2)
		return reader_fail(r, EBADMSG, err, errlen, "corrupt header (lags in version 1)");
	r->hdr.cell = xmalloc(cell_len + 1);
	memcpy(r->hdr.cell, b + HDR_FIXED, cell_len);
	r->hdr.cell[cell_len] = '\0';
	if (r->hdr.nthreads < 1 || r->hdr.nthreads > 65536)
		return reader_fail(r, EBADMSG, err, errlen, "corrupt header (%u threads)",
				   r->hdr.nthreads);
	r->thread_records = xcalloc(r->hdr.nthreads, sizeof(uint64_t));
	r->beg += hlen;
	r->pos += hlen;
	r->good_end = r->pos;
	return 0;
}

int iom_trace_reader_open(const char *path, struct iom_trace_reader **out, char *err,
			  size_t errlen)
{
	struct iom_trace_reader *r = xcalloc(1, sizeof(*r));
	char e[IOM_ERRLEN];
	uint8_t id[2];
	ssize_t n;
	int ret;

	*out = NULL;
	r->path = xstrdup(path);
	r->fd = iom_own_open(NULL, path, IOM_OWN_FOLLOW, e, sizeof(e));
	if (r->fd < 0) {
		ret = iom_err(err, errlen, -r->fd, "%s", e);
		if (ret != -EPERM && ret != -EISDIR)
			iom_err(err, errlen, -ret, "cannot open '%s': %s", path, strerror(-ret));
		r->fd = -1;
		iom_trace_reader_free(r);
		return ret;
	}
	/* Not gzip at all: say so before zlib finds a "header check" to complain about. */
	do
		n = pread(r->fd, id, 2, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		ret = reader_fail(r, errno, err, errlen, "cannot read: %s", strerror(errno));
		iom_trace_reader_free(r);
		return ret;
	}
	if (n < 2 || id[0] != 0x1f || id[1] != 0x8b) {
		ret = reader_fail(r, EINVAL, err, errlen, "not an iomatrix trace");
		iom_trace_reader_free(r);
		return ret;
	}
	r->in = xmalloc(IN_CAP);
	r->cap = 256 * 1024;
	r->buf = xmalloc(r->cap);
	if (inflateInit2(&r->z, 15 + 16) != Z_OK) {
		ret = iom_err(err, errlen, ENOMEM, "cannot set up zlib");
		iom_trace_reader_free(r);
		return ret;
	}
	r->z_init = true;
	ret = read_header(r, err, errlen);
	if (ret < 0) {
		iom_trace_reader_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

const struct iom_trace_header *iom_trace_reader_header(const struct iom_trace_reader *r)
{
	return &r->hdr;
}

uint64_t iom_trace_reader_count(const struct iom_trace_reader *r)
{
	return r->count;
}

const struct iom_trace_end *iom_trace_reader_end(const struct iom_trace_reader *r)
{
	return r->ended ? &r->endrec : NULL;
}

/* A block's header fields. */
struct blk {
	uint32_t thread, n;
	unsigned mode, shift;
	uint64_t base, bytes0;
	uint64_t collen[NCOLS];    /* collen[COL_FLAGS] is n */
	unsigned ncols;            /* NCOLS with lags, else NCOLS_V1 (collen[COL_LAG] 0) */
};

/* Decodes the columns of block b (payload: its NCOLS columns back to back) into r->recs. NULL,
 * or why not. */
static const char *decode_block(struct iom_trace_reader *r, const uint8_t *payload,
				const struct blk *b)
{
	const uint8_t *cur[NCOLS], *end[NCOLS], *p = payload;
	uint64_t prev_c = b->base, prev_end_u = 0;
	struct stamps st;

	for (int k = 0; k < NCOLS; k++) {
		cur[k] = p;
		p += b->collen[k];
		end[k] = p;
	}
	(void)b->ncols;
	if (b->n > r->recs_cap) {
		r->recs_cap = b->n;
		r->recs = xrealloc(r->recs, b->n * sizeof(*r->recs));
	}
	stamps_init(&st, b->base);
	for (uint32_t i = 0; i < b->n; i++) {
		struct iom_trace_rec *rec = &r->recs[i];
		uint8_t f = *cur[COL_FLAGS]++;
		uint64_t bytes = b->bytes0, res, v, t1, t2, sub, cpl, u;

		if (f & ~F_KNOWN)
			return "unknown record flags";
		if (f & F_BYTES) {
			if (get_uv(&cur[COL_EXTRA], end[COL_EXTRA], &bytes) < 0 || bytes > UINT32_MAX)
				return "bad size";
		}
		res = bytes;
		if (f & F_RES) {
			int64_t sres;

			if (get_uv(&cur[COL_EXTRA], end[COL_EXTRA], &v) < 0)
				return "bad result";
			sres = unzz(v);
			if (sres < INT32_MIN || sres > INT32_MAX)
				return "bad result";
			res = (uint64_t)sres;
		}
		if (get_uv(&cur[COL_OFF], end[COL_OFF], &v) < 0)
			return "bad offset";
		u = b->mode & MODE_OFF_ABS ? v : prev_end_u + (uint64_t)unzz(v);
		if (b->shift && u >> (64 - b->shift))
			return "offset out of range";
		rec->offset = u << b->shift;
		prev_end_u = (rec->offset + bytes) >> b->shift;
		if (get_uv(&cur[COL_TIME], end[COL_TIME], &t1) < 0 ||
		    get_uv(&cur[COL_LAT], end[COL_LAT], &t2) < 0)
			return "bad time";
		if (b->mode & MODE_TIME_GAP) {
			sub = prev_c + (uint64_t)unzz(t1);
			cpl = sub + t2;
		} else {
			cpl = prev_c + (uint64_t)unzz(t1);
			if (t2 > st.n)
				return "bad submit stamp reference";
			if (t2) {
				sub = stamps_at(&st, (unsigned)t2);
			} else {
				if (get_uv(&cur[COL_STAMP], end[COL_STAMP], &v) < 0)
					return "bad submit stamp";
				sub = stamps_at(&st, 1) + (uint64_t)unzz(v);
				stamps_push(&st, sub);
			}
		}
		prev_c = cpl;
		rec->lag_ns = 0;
		if (b->ncols > COL_LAG && get_uv(&cur[COL_LAG], end[COL_LAG], &rec->lag_ns) < 0)
			return "bad lag";
		rec->time_ns = (int64_t)sub;
		rec->latency_ns = cpl - sub;
		rec->bytes = (uint32_t)bytes;
		rec->res = (int32_t)(int64_t)res;
		rec->thread = b->thread;
		rec->op = f & F_WRITE ? IOM_OP_WRITE : IOM_OP_READ;
		rec->phase = (uint8_t)((f & F_PHASE) >> F_PHASE_SHIFT);
		rec->gap = (f & F_GAP) != 0;
	}
	for (int k = 0; k < NCOLS; k++)
		if (cur[k] != end[k])
			return "column lengths do not match the records";
	r->nrecs = b->n;
	r->irec = 0;
	return NULL;
}

static int read_block(struct iom_trace_reader *r, char *err, size_t errlen)
{
	enum fill_status st = fill(r, BLK_HDR_MAX);
	const uint8_t *h = r->buf + r->beg, *p = h + 1, *e = r->buf + r->end;
	uint64_t thread, n, zbase, payload, total;
	struct blk b;
	const char *why;

	if (get_uv(&p, e, &thread) < 0 || get_uv(&p, e, &n) < 0 || e - p < 2)
		goto short_hdr;
	b.mode = p[0];
	b.shift = p[1];
	p += 2;
	if (get_uv(&p, e, &zbase) < 0 || get_uv(&p, e, &b.bytes0) < 0)
		goto short_hdr;
	b.ncols = r->hdr.flags & IOM_TRACE_HAS_LAG ? NCOLS : NCOLS_V1;
	b.collen[COL_LAG] = 0;
	for (unsigned k = 1; k < b.ncols; k++)
		if (get_uv(&p, e, &b.collen[k]) < 0)
			goto short_hdr;
	if (thread >= r->hdr.nthreads)
		return fail_corrupt(r, err, errlen, "block of a thread beyond the header's count");
	if (n < 1 || n > IOM_TRACE_BLOCK_MAX || b.mode > 3 || b.shift > 63 ||
	    b.bytes0 > UINT32_MAX)
		return fail_corrupt(r, err, errlen, "bad block header");
	b.collen[COL_FLAGS] = n;
	payload = 0;
	for (int k = 0; k < NCOLS; k++) {
		if (b.collen[k] > n * 2 * VARINT_MAX)
			return fail_corrupt(r, err, errlen, "bad block header");
		payload += b.collen[k];
	}
	b.thread = (uint32_t)thread;
	b.n = (uint32_t)n;
	b.base = (uint64_t)unzz(zbase);
	total = (uint64_t)(p - h) + payload + 4;
	st = fill(r, total);
	if (st != FILL_OK)
		return fail_fill(r, st, err, errlen);
	h = r->buf + r->beg;
	if (iom_crc32(0, h, (size_t)(total - 4)) != get_le32(h + total - 4))
		return fail_corrupt(r, err, errlen, "bad block checksum");
	why = decode_block(r, h + (total - 4 - payload), &b);
	if (why)
		return fail_corrupt(r, err, errlen, why);
	r->thread_records[thread] += n;
	r->beg += total;
	r->pos += total;
	r->good_end = r->pos;
	return 0;
short_hdr:
	/* The header did not parse from what there is: short data, or garbage. */
	if (st != FILL_OK)
		return fail_fill(r, st, err, errlen);
	return fail_corrupt(r, err, errlen, "bad block header");
}

static int read_end(struct iom_trace_reader *r, char *err, size_t errlen)
{
	size_t want = 1 + VARINT_MAX * (1 + 2 * (size_t)r->hdr.nthreads) + 4;
	enum fill_status st = fill(r, want);
	const uint8_t *b = r->buf + r->beg, *p = b + 1, *e = r->buf + r->end;
	struct iom_trace_end *en = &r->endrec;
	uint64_t nt;
	char why[160];

	if (get_uv(&p, e, &nt) < 0)
		goto short_end;
	if (nt != r->hdr.nthreads)
		return fail_corrupt(r, err, errlen, "end record for another thread count");
	en->nthreads = (unsigned)nt;
	en->records = xcalloc(nt, sizeof(uint64_t));
	en->dropped = xcalloc(nt, sizeof(uint64_t));
	for (uint64_t i = 0; i < nt; i++) {
		if (get_uv(&p, e, &en->records[i]) < 0 || get_uv(&p, e, &en->dropped[i]) < 0)
			goto short_end;
		en->records_total += en->records[i];
		en->dropped_total += en->dropped[i];
	}
	if (e - p < 4)
		goto short_end;
	if (iom_crc32(0, b, (size_t)(p - b)) != get_le32(p))
		return fail_corrupt(r, err, errlen, "bad end record checksum");
	p += 4;
	for (uint64_t i = 0; i < nt; i++) {
		if (en->records[i] != r->thread_records[i]) {
			snprintf(why, sizeof(why),
				 "the end record counts %llu records of thread %llu, the blocks hold %llu",
				 (unsigned long long)en->records[i], (unsigned long long)i,
				 (unsigned long long)r->thread_records[i]);
			return fail_corrupt(r, err, errlen, why);
		}
	}
	r->pos += (uint64_t)(p - b);
	r->beg += (size_t)(p - b);
	r->good_end = r->pos;
	/* Nothing may follow but the gzip trailer, which zlib checks. */
	st = fill(r, 1);
	if (st == FILL_OK)
		return fail_corrupt(r, err, errlen, "data after the end record");
	if (st != FILL_END)
		return fail_fill(r, st, err, errlen);
	if (r->z.avail_in > 0 || (!r->in_eof && read(r->fd, r->in, 1) > 0))
		return fail_corrupt(r, err, errlen, "data after the end of the compressed stream");
	r->ended = true;
	return 0;
short_end:
	if (st != FILL_OK)
		return fail_fill(r, st, err, errlen);
	return fail_corrupt(r, err, errlen, "bad end record");
}

int iom_trace_reader_next(struct iom_trace_reader *r, struct iom_trace_rec *rec, char *err,
			  size_t errlen)
{
	enum fill_status st;
	int ret;

	for (;;) {
		if (r->err)
			return iom_err(err, errlen, -r->err, "%s", r->err_msg);
		if (r->irec < r->nrecs) {
			*rec = r->recs[r->irec++];
			r->count++;
			return 1;
		}
		if (r->ended)
			return 0;
		st = fill(r, 1);
		if (st != FILL_OK)
			return fail_fill(r, st, err, errlen);
		switch (r->buf[r->beg]) {
		case TAG_BLOCK:
			ret = read_block(r, err, errlen);
			break;
		case TAG_END:
			ret = read_end(r, err, errlen);
			break;
		default:
			ret = fail_corrupt(r, err, errlen, "unknown record tag");
			break;
		}
		if (ret < 0)
			return ret;
	}
}

void iom_trace_reader_free(struct iom_trace_reader *r)
{
	if (!r)
		return;
	if (r->z_init)
		inflateEnd(&r->z);
	if (r->fd >= 0)
		close(r->fd);
	free(r->path);
	free(r->in);
	free(r->buf);
	free(r->hdr.cell);
	free(r->recs);
	free(r->thread_records);
	free(r->endrec.records);
	free(r->endrec.dropped);
	free(r->err_msg);
	free(r);
}

int iom_trace_read(const char *path, struct iom_trace_header *hdr,
		   int (*fn)(void *ctx, const struct iom_trace_rec *rec), void *ctx, char *err,
		   size_t errlen)
{
	struct iom_trace_reader *r;
	struct iom_trace_rec rec;
	int ret = iom_trace_reader_open(path, &r, err, errlen);

	if (ret < 0)
		return ret;
	if (hdr) {
		*hdr = r->hdr;
		hdr->cell = xstrdup(r->hdr.cell);
	}
	while ((ret = iom_trace_reader_next(r, &rec, err, errlen)) > 0) {
		ret = fn(ctx, &rec);
		if (ret < 0)
			break;
	}
	iom_trace_reader_free(r);
	return ret;
}
