/* SPDX-License-Identifier: MIT */
/*
 * trace — per-I/O traces: the lock-free rings the workers fill, the writer thread that encodes
 * and compresses them, the reader, and the CSV and fio-log export. docs/trace.md is the format;
 * this file is its reference implementation, and the two must say the same thing.
 *
 * Rings: one single-producer/single-consumer ring per worker thread. The producer (the worker)
 * owns `head` and a cached copy of `tail`; it reads the real tail (acquire) only when its copy
 * says the ring is full, so a record costs four stores to the slot and one release-store of the
 * head, and the cache line holding the consumer's tail is touched once per lap at most. The
 * consumer (the writer thread) owns `tail`; producer and consumer fields live on separate cache
 * lines. Slot memory is allocated and touched at open, so the hot path never faults a page in.
 *
 * Encoding: a block holds up to IOM_TRACE_BLOCK_RECORDS records of one thread as six columns
 * (flag bytes, then varints: offsets, times, latencies or stamp references, new submit stamps,
 * extras), each compressed as a deflate block of its own. Columns keep like bytes together, which
 * deflate rewards: on a real 4K random 70/30 QD32 run this layout took 3.5 bytes per I/O where
 * the same fields interleaved per record took 4.8. Each block says whether its offsets are
 * absolute (random work) or deltas from the end of the previous I/O (sequential: mostly zeros),
 * and how its times are coded — as the ring's previous block looked best coded, so that the
 * writer reads each record once (the first block takes a first look of its own) —: TIME_REF for batching engines (io_uring
 * stamps a submitted batch once and a reaped batch once, so a completion is mostly "same stamp as
 * the previous one" and a submit mostly "the k-th most recent submit stamp", a few bits instead
 * of a 17-bit latency), TIME_GAP for one-at-a-time engines (the small gap since the previous
 * completion, then the latency). Every block restarts its state, so each decodes alone, and
 * carries a CRC-32, so damage is caught where it is.
 *
 * Compression is ISA-L's igzip (level 1 by default), not zlib's deflate: the same gzip format,
 * within 1 % of zlib level 1's size on traces, at a third of the writer's CPU per record (37 ns
 * instead of 114 ns on a real 4K QD32 trace, docs/trace.md); zlib reads traces back. The blocks'
 * CRC-32s are zlib's crc32 computed by ISA-L (crc.h), so traces written before read unchanged.
 *
 * The writer thread drains a ring once a block's worth is waiting (or at a flush, or at close),
 * and sleeps on a futex when there is nothing to do: until the next flush, or until a producer
 * whose ring passed another quarter wakes it (see nap()). It ends the compressed data with a
 * sync flush about once a second. write() follows each flush: a crash of the process loses at
 * most the last interval; the file is fsync'd only at close (as every other run file is, before
 * the next run starts).
 */
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <libgen.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <isa-l/igzip_lib.h>
#include <zlib.h>

#include "crc.h"
#include "ownfile.h"
#include "util.h"

#define RELAXED memory_order_relaxed

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

/* ---- slots and rings ---- */

/* Offsets below 2^60 (1 EiB) are kept; the top bits carry op, phase and gap. */
#define SLOT_OFF_MASK ((UINT64_C(1) << 60) - 1)
#define SLOT_WRITE (UINT64_C(1) << 60)
#define SLOT_PHASE_SHIFT 61
#define SLOT_GAP (UINT64_C(1) << 63)

struct slot {
	uint64_t submit_ns, complete_ns;
	uint64_t off_flags;
	uint32_t len;
	int32_t res;
};

struct ring {
	/* The producer's line. */
	_Alignas(64) _Atomic uint64_t head;
	uint64_t cached_tail;
	_Atomic uint64_t dropped;
	bool gap;                  /* a record was dropped since the last one that got through */
	struct slot *slots;        /* read-only after open */
	uint64_t *due;             /* with lags: each slot's due time */
	uint64_t mask;
	/* The consumer's line. */
	_Alignas(64) _Atomic uint64_t tail;
	uint64_t written;
	unsigned next_mode, next_shift; /* the coding the next block is tried with */
	bool guessed;              /* next_mode and next_shift come from a block already coded */
};

struct iom_trace {
	struct ring *rings;
	unsigned nthreads;
	uint64_t ring_records;
	uint64_t wake_mask;        /* a producer whose head reaches a multiple of wake_mask + 1
				    * wakes a sleeping writer */
	uint64_t start_mono_ns;
	uint64_t flush_ns;
	_Atomic uint64_t stray;    /* records for a thread out of range */
	_Atomic int closing;
	_Atomic int paused;
	pthread_t writer;
	bool writer_started;
	/* The futex word: 1 while the writer sleeps (or is about to). Its own line: producers read
	 * it once per wake_mask + 1 records, the writer writes it twice per nap. */
	_Alignas(64) _Atomic uint32_t sleeping;

	char *path;
	const struct iom_own_dir *own; /* the pinned directory path is under, or NULL */
	int fd;

	/* The writer thread's own from here on (the opener's before it starts). */
	struct isal_zstream z;     /* ISA-L's deflate, writing the gzip container */
	uint8_t *z_level_buf;
	unsigned char *out;        /* compressed bytes not yet written */
	size_t out_cap;
	uint64_t bytes_out;
	bool dirty;                /* data given to deflate since the last flush */
	uint8_t *col[NCOLS];       /* a block's columns */
	unsigned ncols;            /* NCOLS with lags, else NCOLS_V1 */
	bool lags;
	uint64_t *due;             /* every ring's due times (with lags) */
	int werr;                  /* first failure of the writer, -errno */
	char werr_msg[IOM_ERRLEN];
};

static uint8_t *put_uv(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static uint64_t zz(int64_t v)
{
	return ((uint64_t)v << 1) ^ (v < 0 ? UINT64_MAX : 0);
}

static int64_t unzz(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

static void futex_wake(_Atomic uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/*
 * Wakes the writer if it sleeps: called by a producer once per wake_mask + 1 records, and at
 * close and resume. The fence orders the producer's store of its head before its load of
 * `sleeping`, as the writer's fence orders its store of `sleeping` before its loads of the
 * heads: of a producer crossing a mark and a writer going to sleep, at least one sees the other.
 */
static __attribute__((noinline, cold)) void wake_writer(struct iom_trace *t)
{
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&t->sleeping, RELAXED))
		futex_wake(&t->sleeping);
}

static inline __attribute__((always_inline)) void put(struct iom_trace *t, unsigned thread,
							const struct iom_io *io, unsigned phase,
							bool with_due, uint64_t due)
{
	struct ring *r;
	struct slot *s;
	uint64_t head;

	if (__builtin_expect(thread >= t->nthreads, 0)) {
		atomic_fetch_add_explicit(&t->stray, 1, RELAXED);
		return;
	}
	r = &t->rings[thread];
	head = atomic_load_explicit(&r->head, RELAXED);
	if (__builtin_expect(head - r->cached_tail > r->mask, 0)) {
		r->cached_tail = atomic_load_explicit(&r->tail, memory_order_acquire);
		if (head - r->cached_tail > r->mask) {
			atomic_store_explicit(&r->dropped,
					      atomic_load_explicit(&r->dropped, RELAXED) + 1, RELAXED);
			r->gap = true;
			return;
		}
	}
	s = &r->slots[head & r->mask];
	if (with_due && r->due)
		r->due[head & r->mask] = due;
	s->submit_ns = io->submit_ns;
	s->complete_ns = io->complete_ns;
	s->off_flags = (io->offset & SLOT_OFF_MASK) | (io->op == IOM_OP_WRITE ? SLOT_WRITE : 0) |
		       (uint64_t)(phase & 3) << SLOT_PHASE_SHIFT | (r->gap ? SLOT_GAP : 0);
	s->len = io->len;
	s->res = io->res;
	r->gap = false;
	atomic_store_explicit(&r->head, head + 1, memory_order_release);
	if (__builtin_expect(((head + 1) & t->wake_mask) == 0, 0))
		wake_writer(t);
}

_Static_assert((int)IOM_IO_UNCOUNTED == (int)IOM_TRACE_PHASE_UNKNOWN &&
	       (int)IOM_IO_WARMUP == (int)IOM_TRACE_PHASE_WARMUP &&
	       (int)IOM_IO_MEASURED == (int)IOM_TRACE_PHASE_MEASURED &&
	       (int)IOM_IO_COOLDOWN == (int)IOM_TRACE_PHASE_COOLDOWN,
	       "engine.h and trace.h phases differ");

void iom_trace_record_batch(void *ctx, unsigned thread, struct iom_io *const *ios, unsigned n)
{
	struct iom_trace *t = ctx;
	struct ring *r;
	uint64_t head;

	if (__builtin_expect(thread >= t->nthreads || n == 0, 0)) {
		for (unsigned i = 0; i < n; i++)
			put(t, thread, ios[i], (enum iom_trace_phase)ios[i]->phase, false, 0);
		return;
	}
	r = &t->rings[thread];
	head = atomic_load_explicit(&r->head, RELAXED);
	if (__builtin_expect(head + n - r->cached_tail > r->mask + 1, 0)) {
		r->cached_tail = atomic_load_explicit(&r->tail, memory_order_acquire);
		if (head + n - r->cached_tail > r->mask + 1) {
			/* not room for all: one at a time, as many as fit, the rest dropped */
			for (unsigned i = 0; i < n; i++)
				put(t, thread, ios[i], (enum iom_trace_phase)ios[i]->phase, false, 0);
			return;
		}
	}
	for (unsigned i = 0; i < n; i++) {
		const struct iom_io *io = ios[i];
		struct slot *s = &r->slots[(head + i) & r->mask];

		s->submit_ns = io->submit_ns;
		s->complete_ns = io->complete_ns;
		s->off_flags = (io->offset & SLOT_OFF_MASK) |
			       (io->op == IOM_OP_WRITE ? SLOT_WRITE : 0) |
			       (uint64_t)(io->phase & 3) << SLOT_PHASE_SHIFT;
		s->len = io->len;
		s->res = io->res;
	}
	if (__builtin_expect(r->gap, 0)) {
		r->slots[head & r->mask].off_flags |= SLOT_GAP;
		r->gap = false;
	}
	atomic_store_explicit(&r->head, head + n, memory_order_release);
	/* a multiple of wake_mask + 1 among head + 1 … head + n: the writer may be woken */
	if (__builtin_expect(((head + n) & ~t->wake_mask) != (head & ~t->wake_mask), 0))
		wake_writer(t);
}

void iom_trace_record(void *ctx, unsigned thread, const struct iom_io *io)
{
	put(ctx, thread, io, (enum iom_trace_phase)io->phase, false, 0);
}

void iom_trace_record_due(void *ctx, unsigned thread, const struct iom_io *io, uint64_t due_ns)
{
	put(ctx, thread, io, (enum iom_trace_phase)io->phase, true, due_ns);
}

void iom_trace_put(struct iom_trace *t, unsigned thread, const struct iom_io *io,
		   enum iom_trace_phase phase)
{
	put(t, thread, io, phase, false, 0);
}

void iom_trace_resume(struct iom_trace *t)
{
	atomic_store_explicit(&t->paused, 0, memory_order_release);
	wake_writer(t);
}

/* ---- compressed output (writer thread) ---- */

static int writer_fail(struct iom_trace *t, int code, const char *what)
{
	if (!t->werr)
		t->werr = iom_err(t->werr_msg, sizeof(t->werr_msg), code, "cannot write '%s': %s",
				  t->path, what);
	return t->werr;
}

/* Writes out what deflate produced so far. */
static int drain_out(struct iom_trace *t)
{
	size_t have = t->out_cap - t->z.avail_out;
	int ret;

	if (have == 0)
		return 0;
	ret = iom_write_all(t->fd, t->out, have);
	if (ret < 0)
		return writer_fail(t, -ret, strerror(-ret));
	t->bytes_out += have;
	t->z.next_out = t->out;
	t->z.avail_out = (uint32_t)t->out_cap;
	return 0;
}

/* How deflate_feed() ends what it was given. */
enum feed {
	FEED_MORE,   /* nothing: more input follows */
	FEED_BLOCK,  /* end the deflate block (a sync flush), so the next data gets Huffman codes
		      * of its own; the output waits in the buffer */
	FEED_SYNC,   /* a sync flush: everything so far is decodable, then written out */
	FEED_END,    /* the last deflate block and the gzip trailer, then written out */
};

/* Runs deflate over p[0, len) (len may be 0); after FEED_SYNC and FEED_END every byte produced
 * has been written. */
static int deflate_feed(struct iom_trace *t, const void *p, size_t len, enum feed how)
{
	int zret;

	if (t->werr)
		return t->werr;
	t->z.next_in = (uint8_t *)(uintptr_t)p;
	t->z.avail_in = (uint32_t)len;
	t->z.flush = how == FEED_SYNC || how == FEED_BLOCK ? SYNC_FLUSH : NO_FLUSH;
	t->z.end_of_stream = how == FEED_END;
	for (;;) {
		zret = isal_deflate(&t->z);
		if (zret != COMP_OK)
			return writer_fail(t, EIO, "ISA-L deflate error");
		if (t->z.avail_out == 0) {
			if (drain_out(t) < 0)
				return t->werr;
			continue;
		}
		if (how == FEED_END ? t->z.internal_state.state == ZSTATE_END : t->z.avail_in == 0)
			break;
	}
	if (how != FEED_MORE && how != FEED_BLOCK)
		return drain_out(t);
	t->dirty = true;
	return 0;
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

static void stamps_init(struct stamps *st, uint64_t base)
{
	st->v[0] = base;
	st->n = 1;
	st->newest = 0;
	st->max = base;
}

/* Position of s (1 … n), or 0. A stamp above every one pushed is new without a search: at QD1
 * every submission's is, and the search of all STAMPS_MAX was most of the writer's work. */
static unsigned stamps_find(const struct stamps *st, uint64_t s)
{
	if (s > st->max)
		return 0;
	for (unsigned k = 0; k < st->n; k++)
		if (st->v[(st->newest - k) & (STAMPS_MAX - 1)] == s)
			return k + 1;
	return 0;
}

static uint64_t stamps_at(const struct stamps *st, unsigned pos)
{
	return st->v[(st->newest - (pos - 1)) & (STAMPS_MAX - 1)];
}

static void stamps_push(struct stamps *st, uint64_t s)
{
	st->newest = (st->newest + 1) & (STAMPS_MAX - 1);
	st->v[st->newest] = s;
	if (s > st->max)
		st->max = s;
	if (st->n < STAMPS_MAX)
		st->n++;
}

/* What a block's records say about the block's best coding: the bits set in any offset, how many
 * records start where the previous ended, how many submit stamps repeat a recent one. */
struct look {
	uint64_t all_off;
	unsigned seq, hits;
};

static unsigned look_mode(const struct look *lk, unsigned n)
{
	return (lk->seq * 2 < n ? MODE_OFF_ABS : 0) | (lk->hits * 4 < n ? MODE_TIME_GAP : 0);
}

static unsigned look_shift(const struct look *lk)
{
	return lk->all_off ? (unsigned)__builtin_ctzll(lk->all_off) : 0;
}

/* The first look over records [first, first + n): what encode_cols() also gathers. */
static void look_at(const struct iom_trace *t, const struct ring *r, uint64_t first, unsigned n,
		    uint64_t base, struct look *lk)
{
	uint64_t prev_end = 0;
	struct stamps st;

	*lk = (struct look){ 0 };
	stamps_init(&st, base);
	for (unsigned i = 0; i < n; i++) {
		const struct slot *s = &r->slots[(first + i) & r->mask];
		uint64_t o = s->off_flags & SLOT_OFF_MASK, sub = s->submit_ns - t->start_mono_ns;

		lk->all_off |= o;
		lk->seq += i > 0 && o == prev_end;
		prev_end = o + s->len;
		if (stamps_find(&st, sub))
			lk->hits++;
		else
			stamps_push(&st, sub);
	}
}

/*
 * Codes records [first, first + n) into the columns c[] with `mode` and `shift`, gathering the
 * block's look on the way. False, with the columns to be thrown away, when an offset has bits
 * below `shift` (the shift was a guess from the previous block).
 */
static bool encode_cols(const struct iom_trace *t, const struct ring *r, uint64_t first,
			unsigned n, unsigned mode, unsigned shift, uint64_t base, uint32_t bytes0,
			uint8_t **c, struct look *lk)
{
	uint64_t prev_c = base, prev_end = 0, prev_end_u = 0;
	uint64_t low = (UINT64_C(1) << shift) - 1;
	struct stamps st;

	*lk = (struct look){ 0 };
	stamps_init(&st, base);
	for (unsigned i = 0; i < n; i++) {
		const struct slot *s = &r->slots[(first + i) & r->mask];
		uint64_t o = s->off_flags & SLOT_OFF_MASK, u = o >> shift;
		uint64_t sub = s->submit_ns - t->start_mono_ns;
		uint64_t cpl = s->complete_ns - t->start_mono_ns;
		uint8_t f = (s->off_flags & SLOT_WRITE ? F_WRITE : 0) |
			    (uint8_t)((s->off_flags >> SLOT_PHASE_SHIFT & 3) << F_PHASE_SHIFT) |
			    (s->off_flags & SLOT_GAP ? F_GAP : 0);
		unsigned ref;

		if (__builtin_expect(o & low, 0))
			return false;
		lk->all_off |= o;
		lk->seq += i > 0 && o == prev_end;
		prev_end = o + s->len;
		ref = stamps_find(&st, sub);
		lk->hits += ref != 0;
		if (s->len != bytes0) {
			f |= F_BYTES;
			c[COL_EXTRA] = put_uv(c[COL_EXTRA], s->len);
		}
		if (s->res != (int32_t)s->len) {
			f |= F_RES;
			c[COL_EXTRA] = put_uv(c[COL_EXTRA], zz(s->res));
		}
		*c[COL_FLAGS]++ = f;
		if (t->lags) {
			uint64_t due = r->due[(first + i) & r->mask];

			c[COL_LAG] = put_uv(c[COL_LAG], s->submit_ns > due ? s->submit_ns - due : 0);
		}
		c[COL_OFF] = put_uv(c[COL_OFF], mode & MODE_OFF_ABS ? u :
					       zz((int64_t)(u - prev_end_u)));
		prev_end_u = (o + s->len) >> shift;
		if (mode & MODE_TIME_GAP) {
			c[COL_TIME] = put_uv(c[COL_TIME], zz((int64_t)(sub - prev_c)));
			c[COL_LAT] = put_uv(c[COL_LAT], cpl - sub);
		} else {
			c[COL_TIME] = put_uv(c[COL_TIME], zz((int64_t)(cpl - prev_c)));
			c[COL_LAT] = put_uv(c[COL_LAT], ref);
			if (!ref)
				c[COL_STAMP] = put_uv(c[COL_STAMP],
						      zz((int64_t)(sub - stamps_at(&st, 1))));
		}
		if (!ref)
			stamps_push(&st, sub);
		prev_c = cpl;
	}
	return true;
}

/*
 * Encodes records [first, first + n) of thread `thread`'s ring as one block and compresses it.
 * The block's coding (offsets absolute or deltas, times as gaps or stamp references, the offset
 * shift) is what the ring's previous block looked best coded with, so that the records are read
 * once; only the first block, and one whose offsets are less aligned than the previous block's,
 * take a first look of their own. A guess that is off costs bytes, never correctness: the
 * block's header says how it is coded.
 */
static int encode_block(struct iom_trace *t, unsigned thread, struct ring *r, uint64_t first,
			unsigned n)
{
	const struct slot *s0 = &r->slots[first & r->mask];
	uint8_t hdr[BLK_HDR_MAX], tail[4], *h = hdr, *c[NCOLS];
	uint64_t base = s0->submit_ns - t->start_mono_ns;
	uint32_t bytes0 = s0->len, crc;
	unsigned mode = r->next_mode, shift = r->next_shift, i;
	bool coded = false;
	struct look lk;

	for (i = 0; i < NCOLS; i++)
		c[i] = t->col[i];
	if (r->guessed)
		coded = encode_cols(t, r, first, n, mode, shift, base, bytes0, c, &lk);
	if (!coded) {
		look_at(t, r, first, n, base, &lk);
		mode = look_mode(&lk, n);
		shift = look_shift(&lk);
		for (i = 0; i < NCOLS; i++)
			c[i] = t->col[i];
		encode_cols(t, r, first, n, mode, shift, base, bytes0, c, &lk);
	}
	r->next_mode = look_mode(&lk, n);
	r->next_shift = look_shift(&lk);
	r->guessed = true;

	*h++ = TAG_BLOCK;
	h = put_uv(h, thread);
	h = put_uv(h, n);
	*h++ = (uint8_t)mode;
	*h++ = (uint8_t)shift;
	h = put_uv(h, zz((int64_t)base));
	h = put_uv(h, bytes0);
	for (i = 1; i < t->ncols; i++)
		h = put_uv(h, (uint64_t)(c[i] - t->col[i]));

	crc = iom_crc32(0, hdr, (size_t)(h - hdr));
	if (deflate_feed(t, hdr, (size_t)(h - hdr), FEED_MORE) < 0)
		return t->werr;
	for (i = 0; i < t->ncols; i++) {
		size_t len = (size_t)(c[i] - t->col[i]);

		if (len == 0)
			continue;
		crc = iom_crc32(crc, t->col[i], len);
		/* A deflate block per column, so each gets Huffman codes of its own (5 bytes of
		 * empty stored block each: 3.42 bytes per I/O instead of 3.58 on 4K 70/30 QD32). */
		if (deflate_feed(t, t->col[i], len, n >= SPLIT_MIN_RECORDS ? FEED_BLOCK : FEED_MORE) < 0)
			return t->werr;
	}
	put_le32(tail, crc);
	return deflate_feed(t, tail, 4, FEED_MORE);
}

/* A block's worth: what the writer waits for before it drains a ring (a quarter ring at most, so
 * that it drains well before the ring fills). */
static uint64_t block_want(const struct iom_trace *t)
{
	return IOM_MIN((uint64_t)IOM_TRACE_BLOCK_RECORDS, t->ring_records / 4);
}

/* Takes records out of ring i: while a block's worth waits, or everything when force. */
static size_t drain_ring(struct iom_trace *t, unsigned i, bool force)
{
	struct ring *r = &t->rings[i];
	uint64_t tail = atomic_load_explicit(&r->tail, RELAXED);
	uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	uint64_t want = block_want(t);
	size_t done = 0;

	while (head - tail >= want || (force && head != tail)) {
		unsigned n = (unsigned)IOM_MIN(head - tail, (uint64_t)IOM_TRACE_BLOCK_RECORDS);

		if (encode_block(t, i, r, tail, n) < 0)
			return done;
		tail += n;
		r->written += n;
		done += n;
		atomic_store_explicit(&r->tail, tail, memory_order_release);
		if (head - tail < want && !force)
			head = atomic_load_explicit(&r->head, memory_order_acquire);
	}
	return done;
}

static int write_end(struct iom_trace *t)
{
	uint8_t *buf = xmalloc(1 + VARINT_MAX * (1 + 2 * (size_t)t->nthreads) + 4), *p = buf;
	int ret;

	*p++ = TAG_END;
	p = put_uv(p, t->nthreads);
	for (unsigned i = 0; i < t->nthreads; i++) {
		p = put_uv(p, t->rings[i].written);
		p = put_uv(p, atomic_load_explicit(&t->rings[i].dropped, RELAXED));
	}
	put_le32(p, iom_crc32(0, buf, (size_t)(p - buf)));
	p += 4;
	ret = deflate_feed(t, buf, (size_t)(p - buf), FEED_MORE);
	free(buf);
	return ret;
}

/* Whether ring i holds a block's worth of records (what drain_ring() takes without force). */
static bool block_waiting(const struct iom_trace *t, unsigned i)
{
	const struct ring *r = &t->rings[i];
	uint64_t want = block_want(t);

	return atomic_load_explicit(&r->head, RELAXED) -
		       atomic_load_explicit(&r->tail, RELAXED) >= want;
}

/*
 * The writer's nap when no block is waiting: until the next flush is due, unless a producer
 * wakes it first. A producer wakes it when its head crosses a multiple of ring/4, so a ring is
 * at most about half full when the writer wakes (ring/4 since the crossing it may have missed
 * while going to sleep, plus less than a block left from before). A default ring of 65536
 * records thus wakes the writer 15 times a second at 250 K I/O per second, and once a second
 * (for the flush) at a few thousand — where a fixed 10 ms nap woke it 100 times a second,
 * which at 1M sequential reads cost about as much CPU as the I/O.
 */
static void nap(struct iom_trace *t, uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u),
			       .tv_nsec = (long)(ns % 1000000000u) };
	bool waiting = false;

	atomic_store_explicit(&t->sleeping, 1, RELAXED);
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&t->closing, RELAXED))
		waiting = true;
	else if (!atomic_load_explicit(&t->paused, RELAXED))
		for (unsigned i = 0; i < t->nthreads && !waiting; i++)
			waiting = block_waiting(t, i);
	if (!waiting)
		syscall(SYS_futex, &t->sleeping, FUTEX_WAIT_PRIVATE, 1, &ts, NULL, 0);
	atomic_store_explicit(&t->sleeping, 0, RELAXED);
}

static void *writer_main(void *arg)
{
	struct iom_trace *t = arg;
	uint64_t next_flush = iom_now_ns() + t->flush_ns;

	for (;;) {
		bool closing = atomic_load_explicit(&t->closing, memory_order_acquire);
		uint64_t now = iom_now_ns();
		bool flush = now >= next_flush;
		size_t did = 0;

		if (closing || !atomic_load_explicit(&t->paused, memory_order_acquire))
			for (unsigned i = 0; i < t->nthreads && !t->werr; i++)
				did += drain_ring(t, i, closing || flush);
		if (t->werr || closing)
			break;
		if (flush) {
			if (t->dirty) {
				deflate_feed(t, NULL, 0, FEED_SYNC);
				t->dirty = false;
			}
			next_flush = now + t->flush_ns;
		}
		if (!did)
			nap(t, next_flush > now ? next_flush - now : 1);
	}
	if (!t->werr && write_end(t) == 0)
		deflate_feed(t, NULL, 0, FEED_END);
	return NULL;
}

/* ---- open and close ---- */

static int make_parent(const struct iom_own_dir *own, const char *path, char *err,
		       size_t errlen)
{
	char *dir = iom_path_dir(path), e[IOM_ERRLEN];
	int ret = iom_own_mkdir(own, dir, e, sizeof(e));

	free(dir);
	if (ret < 0)
		iom_err(err, errlen, -ret, "cannot create the directory of '%s': %s", path, e);
	return ret;
}

/* ISA-L's working memory for a level (its token buffer: the larger, the longer a Huffman block
 * can be; the default size of each level). */
static uint32_t level_buf_size(int level)
{
	switch (level) {
	case 1:
		return ISAL_DEF_LVL1_DEFAULT;
	case 2:
		return ISAL_DEF_LVL2_DEFAULT;
	default:
		return ISAL_DEF_LVL3_DEFAULT;
	}
}

static void trace_free(struct iom_trace *t)
{
	if (!t)
		return;
	free(t->z_level_buf);
	if (t->fd >= 0)
		close(t->fd);
	if (t->rings) {
		free(t->rings[0].slots);
		free(t->rings);
	}
	for (int i = 0; i < NCOLS; i++)
		free(t->col[i]);
	free(t->due);
	free(t->out);
	free(t->path);
	free(t);
}

/* IOM_TRACE_RING_DEFAULT records per thread up to 16 threads, then 32 MiB shared out, never
 * fewer than 4096 per thread. */
static uint64_t default_ring(unsigned nthreads)
{
	uint64_t per = (UINT64_C(32) << 20) / sizeof(struct slot) / nthreads;
	uint64_t p = 4096;

	while (p * 2 <= per && p < IOM_TRACE_RING_DEFAULT)
		p *= 2;
	return p;
}

static uint64_t round_pow2(uint64_t v)
{
	uint64_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

int iom_trace_open(const char *path, const struct iom_trace_info *info, struct iom_trace **out,
		   char *err, size_t errlen)
{
	struct iom_trace *t;
	const char *cell = info->cell ? info->cell : "";
	size_t cell_len = strlen(cell), hlen;
	uint64_t nslots;
	uint8_t *hdr;
	struct slot *slots;
	int level = info->level ? info->level : IOM_TRACE_LEVEL_DEFAULT, ret;

	*out = NULL;
	if (info->nthreads < 1 || info->nthreads > 65536)
		return iom_err(err, errlen, EINVAL, "trace of %u threads: 1 to 65536 are possible",
			       info->nthreads);
	if (level < 1 || level > ISAL_DEF_MAX_LEVEL)
		return iom_err(err, errlen, EINVAL, "trace compression level %d: 1 to %d", level,
			       ISAL_DEF_MAX_LEVEL);
	if (cell_len > HDR_CELL_MAX)
		cell_len = HDR_CELL_MAX;

	t = xcalloc(1, sizeof(*t));
	t->fd = -1;
	t->path = xstrdup(path);
	t->nthreads = info->nthreads;
	t->start_mono_ns = info->start_mono_ns;
	t->flush_ns = (uint64_t)(info->flush_ms ? info->flush_ms : IOM_TRACE_FLUSH_MS_DEFAULT) *
		      1000000u;
	t->ring_records = info->ring_records ? info->ring_records : default_ring(info->nthreads);
	t->ring_records = round_pow2(IOM_MAX(t->ring_records, IOM_TRACE_RING_MIN));
	t->wake_mask = t->ring_records / 4 - 1;
	atomic_init(&t->paused, (info->flags & IOM_TRACE_PAUSED) ? 1 : 0);

	/* Rings: aligned ring structs, slot memory touched now so no page faults later. */
	nslots = t->ring_records * t->nthreads;
	if (posix_memalign((void **)&t->rings, 64, sizeof(struct ring) * t->nthreads) != 0) {
		t->rings = NULL;
		ret = iom_err(err, errlen, ENOMEM, "cannot allocate trace rings");
		goto fail;
	}
	slots = malloc(nslots * sizeof(struct slot));
	if (!slots) {
		free(t->rings);
		t->rings = NULL;
		ret = iom_err(err, errlen, ENOMEM, "cannot allocate %llu bytes of trace rings",
			      (unsigned long long)(nslots * sizeof(struct slot)));
		goto fail;
	}
	memset(slots, 0, nslots * sizeof(struct slot));
	memset(t->rings, 0, sizeof(struct ring) * t->nthreads);
	t->lags = info->lags;
	t->ncols = t->lags ? NCOLS : NCOLS_V1;
	if (t->lags) {
		t->due = iom_try_calloc(nslots, sizeof(*t->due));
		if (!t->due) {
			free(slots);
			free(t->rings);
			t->rings = NULL;
			ret = iom_err(err, errlen, ENOMEM, "cannot allocate %llu bytes of trace "
				      "rings", (unsigned long long)(nslots * sizeof(*t->due)));
			goto fail;
		}
	}
	for (unsigned i = 0; i < t->nthreads; i++) {
		t->rings[i].slots = slots + (uint64_t)i * t->ring_records;
		t->rings[i].due = t->due ? t->due + (uint64_t)i * t->ring_records : NULL;
		t->rings[i].mask = t->ring_records - 1;
	}
	for (int i = 0; i < NCOLS; i++)
		t->col[i] = xmalloc((size_t)IOM_TRACE_BLOCK_RECORDS *
				    (i == COL_FLAGS ? 1 : i == COL_EXTRA ? 2 * VARINT_MAX : VARINT_MAX));
	t->out_cap = 256 * 1024;
	t->out = xmalloc(t->out_cap);

	t->own = info->own;
	ret = make_parent(t->own, path, err, errlen);
	if (ret < 0)
		goto fail;
	/* a new file of its own: whatever had the name (the interrupted run's trace) goes */
	t->fd = iom_own_open(t->own, path, IOM_OWN_FRESH, err, errlen);
	if (t->fd < 0) {
		ret = t->fd;
		goto fail;
	}
	isal_deflate_init(&t->z);
	t->z.gzip_flag = IGZIP_GZIP;
	t->z.level = (uint32_t)level;
	t->z.level_buf_size = level_buf_size(level);
	t->z_level_buf = xmalloc(t->z.level_buf_size);
	t->z.level_buf = t->z_level_buf;
	t->z.next_out = t->out;
	t->z.avail_out = (uint32_t)t->out_cap;

	/* The header, flushed at once so that even an empty crashed trace names its run. */
	hlen = HDR_FIXED + cell_len + 4;
	hdr = xcalloc(1, hlen);
	memcpy(hdr, magic, 8);
	put_le32(hdr + 8, info->lags ? 2 : 1);
	put_le32(hdr + 12, (uint32_t)hlen);
	put_le32(hdr + 16, info->run_index);
	put_le32(hdr + 20, t->nthreads);
	put_le32(hdr + 24, CLOCK_MONOTONIC);
	put_le32(hdr + 28, (uint32_t)t->ring_records);
	put_le64(hdr + 32, info->start_wall_ns);
	put_le64(hdr + 40, info->start_mono_ns);
	put_le32(hdr + 48, (info->phases ? IOM_TRACE_HAS_PHASES : 0) |
			   (info->lags ? IOM_TRACE_HAS_LAG : 0));
	put_le32(hdr + 52, (uint32_t)cell_len);
	memcpy(hdr + HDR_FIXED, cell, cell_len);
	put_le32(hdr + HDR_FIXED + cell_len, iom_crc32(0, hdr, (size_t)(hlen - 4)));
	deflate_feed(t, hdr, hlen, FEED_SYNC);
	free(hdr);
	t->dirty = false;
	if (t->werr) {
		ret = iom_err(err, errlen, -t->werr, "%s", t->werr_msg);
		goto fail;
	}

	ret = pthread_create(&t->writer, NULL, writer_main, t);
	if (ret != 0) {
		ret = iom_err(err, errlen, ret, "cannot start the trace writer: %s", strerror(ret));
		goto fail;
	}
	pthread_setname_np(t->writer, "iom-trace");
	t->writer_started = true;
	*out = t;
	return 0;
fail:
	if (t->fd >= 0)
		iom_own_unlink(t->own, path);
	trace_free(t);
	return ret;
}

int iom_trace_close(struct iom_trace *t, struct iom_trace_stats *stats, char *err, size_t errlen)
{
	struct iom_trace_stats st = { 0 };
	int ret = 0;

	if (stats)
		*stats = st;
	if (!t)
		return 0;
	atomic_store_explicit(&t->closing, 1, memory_order_release);
	wake_writer(t);
	if (t->writer_started)
		pthread_join(t->writer, NULL);
	for (unsigned i = 0; i < t->nthreads; i++) {
		st.records += t->rings[i].written;
		st.dropped += atomic_load_explicit(&t->rings[i].dropped, RELAXED);
	}
	st.dropped += atomic_load_explicit(&t->stray, RELAXED);
	if (t->werr) {
		ret = iom_err(err, errlen, -t->werr, "%s", t->werr_msg);
	} else if (fsync(t->fd) < 0) {
		ret = iom_err(err, errlen, errno, "cannot fsync '%s': %s", t->path, strerror(errno));
	} else {
		int fd = t->fd;

		t->fd = -1;
		if (close(fd) < 0)
			ret = iom_err(err, errlen, errno, "cannot write '%s': %s", t->path,
				      strerror(errno));
		else if ((ret = iom_own_fsync_dir(t->own, t->path)) < 0)
			iom_err(err, errlen, -ret, "cannot fsync the directory of '%s': %s", t->path,
				strerror(-ret));
	}
	st.bytes = t->bytes_out;
	st.bytes_per_io = st.records ? (double)st.bytes / (double)st.records : 0;
	if (stats)
		*stats = st;
	trace_free(t);
	return ret;
}

char *iom_trace_path(const char *dir, uint32_t index)
{
	return xasprintf("%s/traces/%05u%s", dir, index, IOM_TRACE_SUFFIX);
}

/* ---- reading ---- */

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

/* ---- export ---- */

int iom_trace_format_parse(const char *name)
{
	if (strcmp(name, "csv") == 0)
		return IOM_TRACE_CSV;
	if (strcmp(name, "fio") == 0)
		return IOM_TRACE_FIO;
	if (strcmp(name, "fio-plot") == 0)
		return IOM_TRACE_FIO_PLOT;
	return -1;
}

/* The input's file name without ".trace.gz" (or ".gz"), in the current directory. */
static char *default_prefix(const char *in)
{
	const char *base = strrchr(in, '/') ? strrchr(in, '/') + 1 : in;
	size_t n = strlen(base), ls = strlen(IOM_TRACE_SUFFIX);

	if (n > ls && strcmp(base + n - ls, IOM_TRACE_SUFFIX) == 0)
		return xasprintf("%.*s", (int)(n - ls), base);
	if (n > 3 && strcmp(base + n - 3, ".gz") == 0)
		return xasprintf("%.*s", (int)(n - 3), base);
	return xstrdup(base);
}

static int close_out(FILE *f, const char *name, bool is_stdout, char *err, size_t errlen)
{
	int bad = ferror(f);

	if (is_stdout)
		bad |= fflush(f) != 0;
	else
		bad |= fclose(f) != 0;
	if (bad)
		return iom_err(err, errlen, EIO, "cannot write '%s'", name);
	return 0;
}

/* fio-plot's rate logs of one thread: what completed in each second, by direction. */
struct rate_log {
	FILE *bw, *iops;
	int64_t sec;              /* the second being counted (of completion times) */
	uint64_t ios[2], bytes[2];
};

/* Writes the second being counted of l (its end in ms, each direction that did I/O) and
 * starts second `next`. */
static void rate_flush(struct rate_log *l, int64_t next)
{
	for (unsigned d = 0; d < 2; d++) {
		if (!l->ios[d])
			continue;
		fprintf(l->bw, "%lld, %llu, %u, 0, 0, 0\n", (long long)(l->sec + 1) * 1000,
			(unsigned long long)(l->bytes[d] / 1024), d);
		fprintf(l->iops, "%lld, %llu, %u, 0, 0, 0\n", (long long)(l->sec + 1) * 1000,
			(unsigned long long)l->ios[d], d);
		l->ios[d] = l->bytes[d] = 0;
	}
	l->sec = next;
}

/* Opens thread t's bw and iops logs under prefix (through ownfile: created anew). */
static int rate_open(struct rate_log *l, const char *prefix, unsigned t, char *err, size_t errlen)
{
	char *bw = xasprintf("%s_bw.%u.log", prefix, t + 1);
	char *io = xasprintf("%s_iops.%u.log", prefix, t + 1);

	l->bw = iom_own_fopen(NULL, bw, "w", err, errlen);
	l->iops = l->bw ? iom_own_fopen(NULL, io, "w", err, errlen) : NULL;
	free(bw);
	free(io);
	return l->bw && l->iops ? 0 : -EIO;
}

static int rate_close(struct rate_log *l, char *err, size_t errlen)
{
	int bad = 0;

	if (l->bw) {
		rate_flush(l, 0);
		bad |= ferror(l->bw) | (fclose(l->bw) != 0);
	}
	if (l->iops)
		bad |= ferror(l->iops) | (fclose(l->iops) != 0);
	l->bw = l->iops = NULL;
	return bad ? iom_err(err, errlen, EIO, "cannot write fio-plot's bw and iops logs") : 0;
}

int iom_trace_export(const char *in, const struct iom_trace_export *x, uint64_t *nrecords,
		     char *err, size_t errlen)
{
	struct rate_log *rates = NULL;
	struct iom_trace_reader *r;
	const struct iom_trace_header *h;
	struct iom_trace_rec rec;
	bool to_stdout = x->format == IOM_TRACE_CSV && (!x->out || strcmp(x->out, "-") == 0);
	static const char *const fio_logs[] = { "lat", "clat", "resp" };
	FILE *csv = NULL, **fio = NULL;
	unsigned nlogs = 1;
	char *prefix = NULL, rerr[IOM_ERRLEN] = "";
	uint64_t n = 0;
	int ret, rret, cret = 0;

	if (nrecords)
		*nrecords = 0;
	ret = iom_trace_reader_open(in, &r, err, errlen);
	if (ret < 0)
		return ret;
	h = iom_trace_reader_header(r);
	if (x->measured_only && !(h->flags & IOM_TRACE_HAS_PHASES)) {
		ret = iom_err(err, errlen, EINVAL,
			      "'%s' does not mark the measured window (its run did not record phases)",
			      in);
		goto out;
	}
	if (x->format == IOM_TRACE_CSV) {
		csv = to_stdout ? stdout : iom_own_fopen(NULL, x->out, "w", err, errlen);
		if (!csv) {
			ret = -EPERM;
			goto out;
		}
		fputs(h->flags & IOM_TRACE_HAS_LAG ? "time_ns,latency_ns,op,offset,bytes,thread,due_ns,"
						     "response_ns\n"
						   : "time_ns,latency_ns,op,offset,bytes,thread\n", csv);
	} else {
		prefix = x->out ? xstrdup(x->out) : default_prefix(in);
		nlogs = h->flags & IOM_TRACE_HAS_LAG ? 3 : 1;
		fio = xcalloc((size_t)h->nthreads * nlogs, sizeof(*fio));
		if (x->format == IOM_TRACE_FIO_PLOT)
			rates = xcalloc(h->nthreads ? h->nthreads : 1, sizeof(*rates));
	}
	while ((rret = iom_trace_reader_next(r, &rec, rerr, sizeof(rerr))) > 0) {
		if (x->measured_only && rec.phase != IOM_TRACE_PHASE_MEASURED)
			continue;
		if (csv) {
			fprintf(csv, "%lld,%llu,%s,%llu,%u,%u", (long long)rec.time_ns,
				(unsigned long long)rec.latency_ns,
				rec.op == IOM_OP_WRITE ? "write" : "read",
				(unsigned long long)rec.offset, rec.bytes, rec.thread);
			if (h->flags & IOM_TRACE_HAS_LAG)
				fprintf(csv, ",%lld,%llu", (long long)rec.time_ns - (long long)rec.lag_ns,
					(unsigned long long)(rec.lag_ns + rec.latency_ns));
			fputc('\n', csv);
		} else {
			int64_t done = rec.time_ns + (int64_t)rec.latency_ns;

			if (rates && rec.thread < h->nthreads) {
				struct rate_log *l = &rates[rec.thread];
				int64_t sec = done > 0 ? done / 1000000000 : 0;

				if (!l->bw && (ret = rate_open(l, prefix, rec.thread, err,
							       errlen)) < 0)
					goto out;
				if (sec > l->sec)
					rate_flush(l, sec);
				l->ios[rec.op == IOM_OP_WRITE] += 1;
				l->bytes[rec.op == IOM_OP_WRITE] += rec.bytes;
			}
			for (unsigned k = 0; k < nlogs; k++) {
				FILE **f = &fio[k * h->nthreads + rec.thread];

				if (!*f) {
					char *name = xasprintf("%s_%s.%u.log", prefix, fio_logs[k],
							       rec.thread + 1);

					*f = iom_own_fopen(NULL, name, "w", err, errlen);
					if (!*f) {
						ret = -EPERM;
						free(name);
						goto out;
					}
					free(name);
				}
				/* _lat and _clat: service time; _resp: response time */
				fprintf(*f, "%llu, %llu, %u, %u, %llu, 0\n",
					(unsigned long long)(done > 0 ? done / 1000000 : 0),
					(unsigned long long)(rec.latency_ns +
							     (k == 2 ? rec.lag_ns : 0)),
					(unsigned)rec.op, rec.bytes,
					(unsigned long long)rec.offset);
			}
		}
		n++;
	}
	ret = rret < 0 ? iom_err(err, errlen, -rret, "%s", rerr) : 0;
out:
	if (csv && (cret = close_out(csv, to_stdout ? "standard output" : x->out, to_stdout,
				     rerr, sizeof(rerr))) < 0 && ret == 0)
		ret = iom_err(err, errlen, -cret, "%s", rerr);
	if (fio) {
		for (unsigned i = 0; i < h->nthreads * nlogs; i++) {
			char *name;

			if (!fio[i])
				continue;
			name = xasprintf("%s_%s.%u.log", prefix, fio_logs[i / h->nthreads],
					 i % h->nthreads + 1);
			cret = close_out(fio[i], name, false, rerr, sizeof(rerr));
			if (cret < 0 && ret == 0)
				ret = iom_err(err, errlen, -cret, "%s", rerr);
			free(name);
		}
		free(fio);
	}
	for (unsigned t = 0; rates && t < h->nthreads; t++)
		if ((cret = rate_close(&rates[t], rerr, sizeof(rerr))) < 0 && ret == 0)
			ret = iom_err(err, errlen, -cret, "%s", rerr);
	free(rates);
	free(prefix);
	iom_trace_reader_free(r);
	if (nrecords)
		*nrecords = n;
	return ret;
}
