/* SPDX-License-Identifier: MIT */
/*
 * trace — per-I/O traces: the lock-free rings the workers fill and the writer thread that encodes
 * and compresses them; the reader is trace_read.c, the CSV and fio-log export trace_export.c, and
 * what writer and reader share of the format trace_format.h. docs/trace.md is the format; these
 * files are its reference implementation, and the two must say the same thing.
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
 * extras); the flags and the offsets are compressed as a deflate block each, the rest as a
 * third. Columns keep like bytes together, which deflate rewards: on a real 4K random 70/30 QD32
 * run this layout took 3.5 bytes per I/O where the same fields interleaved per record took 4.8.
 * Each block says whether its offsets are absolute (random work) or deltas from the end of the
 * previous I/O (sequential: mostly zeros), and how its times are coded — as the ring's previous
 * block looked best coded, so that the writer reads each record once (the first block takes a
 * first look of its own) —: TIME_REF for batching engines (io_uring stamps a submitted batch
 * once and a reaped batch once, so a completion is mostly "same stamp as the previous one" and a
 * submit mostly "the k-th most recent submit stamp", a few bits instead of a 17-bit latency),
 * TIME_GAP for one-at-a-time engines (the small gap since the previous completion, then the
 * latency). Every block restarts its state, so each decodes alone, and carries a CRC-32, so
 * damage is caught where it is.
 *
 * Compression is ISA-L's igzip (level 1 by default), not zlib's deflate: the same gzip format,
 * within 1 % of zlib level 1's size on traces, at a third of the writer's CPU per record (37 ns
 * instead of 114 ns on a real 4K QD32 trace, docs/trace.md); zlib reads traces back. The blocks'
 * CRC-32s are zlib's crc32 computed by ISA-L (crc.h), so traces written before read unchanged.
 * ISA-L writes raw deflate and the writer the gzip header and trailer around it: the trailer's
 * CRC of the whole stream is joined from the blocks' CRCs, not computed again over the data.
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

#include "crc.h"
#include "ownfile.h"
#include "trace_format.h"
#include "util.h"

#define RELAXED memory_order_relaxed


/* ---- slots and rings ---- */

/* Offsets below 2^60 (1 EiB) are kept; the top bits carry op, phase and gap, op and phase as
 * the block's flag byte has them (F_WRITE, F_PHASE) 60 bits up, so that the writer takes them
 * with a shift and a mask. */
#define SLOT_OFF_MASK ((UINT64_C(1) << 60) - 1)
#define SLOT_WRITE (UINT64_C(1) << 60)
#define SLOT_PHASE_SHIFT 61
#define SLOT_GAP (UINT64_C(1) << 63)
_Static_assert(SLOT_WRITE >> 60 == F_WRITE && (UINT64_C(3) << SLOT_PHASE_SHIFT) >> 60 == F_PHASE &&
	       SLOT_GAP >> 58 == F_GAP, "the slot's flag bits are not the flag byte's");

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
	struct isal_zstream z;     /* ISA-L's raw deflate, inside our gzip header and trailer */
	uint32_t gz_crc;           /* the gzip trailer's CRC-32 and length of what went in */
	uint64_t gz_len;
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

/* The gzip container around ISA-L's raw deflate: the header ISA-L writes for IGZIP_GZIP (no
 * name, no time, OS unknown) and, at the end, the CRC-32 and length of the whole stream. The
 * writer keeps that CRC itself (gz_crc), so ISA-L does not compute it a second time over what the
 * blocks' own CRCs cover. */
static const uint8_t gzip_header[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff };

/* Runs deflate over p[0, len) (len may be 0) without adding it to the stream's CRC: the caller
 * does (stream_crc_add); after FEED_SYNC and FEED_END every byte produced has been written. */
static int deflate_feed_nocrc(struct iom_trace *t, const void *p, size_t len, enum feed how)
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
	if (how == FEED_END) {
		if (t->z.avail_out < 8 && drain_out(t) < 0)
			return t->werr;
		put_le32(t->z.next_out, t->gz_crc);
		put_le32(t->z.next_out + 4, (uint32_t)t->gz_len);
		t->z.next_out += 8;
		t->z.avail_out -= 8;
	}
	if (how != FEED_MORE && how != FEED_BLOCK)
		return drain_out(t);
	t->dirty = true;
	return 0;
}


/* Adds len bytes whose CRC-32 is crc to the stream's CRC. */
static void stream_crc_add(struct iom_trace *t, uint32_t crc, size_t len)
{
	t->gz_crc = iom_crc32_combine(t->gz_crc, crc, len);
	t->gz_len += len;
}

/* deflate_feed_nocrc() of p[0, len), added to the stream's CRC. */
static int deflate_feed(struct iom_trace *t, const void *p, size_t len, enum feed how)
{
	t->gz_crc = iom_crc32(t->gz_crc, p, len);
	t->gz_len += len;
	return deflate_feed_nocrc(t, p, len, how);
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
 * Codes records [first, first + n), which do not wrap around the ring's end, into the columns
 * c[] with `mode` and `shift`, gathering the block's look on the way. False, with the columns to
 * be thrown away, when an offset has bits below `shift` (the shift was a guess from the
 * previous block).
 *
 * The writer's hot loop. Everything it reads more than once is a local, and so are the column
 * pointers and the look: a store through a uint8_t pointer may alias anything, so with the
 * columns and the look in memory the compiler reloads each of them, and the ring's fields,
 * after every byte it writes. encode_cols() makes a copy for each mode without lags, with mode
 * a constant in it, and one for a paced run's traces (lags), where it is not.
 *
 * It takes ENCODE_CHUNK records at a time in two passes, the record's own columns (flags,
 * offset, length, result) and then its times, the chunk's slots still in the first level cache
 * for the second: one loop that did both kept more values live than there are registers and
 * spilled them to the stack. The writer's drains took 0.94× the time (median of 184 pairs,
 * trace_speed; docs/performance.md).
 */
#define ENCODE_CHUNK 256
static inline __attribute__((always_inline)) bool
encode_cols_as(const struct iom_trace *t, const struct ring *r, uint64_t first, unsigned n,
	       const unsigned mode, const bool lags, unsigned shift, uint64_t base,
	       uint32_t bytes0, uint8_t **c, struct look *lk)
{
	const struct slot *s0 = &r->slots[first & r->mask], *const end = s0 + n;
	const uint64_t *d = r->due ? &r->due[first & r->mask] : NULL;
	const uint64_t start = t->start_mono_ns, low = (UINT64_C(1) << shift) - 1;
	uint8_t *cf = c[COL_FLAGS], *co = c[COL_OFF], *ct = c[COL_TIME], *cl = c[COL_LAT];
	uint8_t *cs = c[COL_STAMP], *cx = c[COL_EXTRA], *cg = c[COL_LAG];
	/* prev_end starts where no offset can be (they are below 2^60): the first is not "seq" */
	uint64_t prev_c = base, prev_end = UINT64_MAX, prev_end_u = 0, all_off = 0;
	unsigned seq = 0, hits = 0;
	struct stamps st;

	stamps_init(&st, base);
	for (const struct slot *s = s0; s < end;) {
		const struct slot *const stop = end - s > ENCODE_CHUNK ? s + ENCODE_CHUNK : end;
		const struct slot *q;

		/* the record's own columns: flags, offset, length and result */
		for (q = s; q < stop; q++) {
			const uint64_t of = q->off_flags, o = of & SLOT_OFF_MASK, u = o >> shift;
			const uint32_t len = q->len;
			const int32_t res = q->res;
			/* the slot's op and phase bits are the flag byte's, shifted (SLOT_WRITE) */
			uint8_t f = (uint8_t)((of >> 60 & (F_WRITE | F_PHASE)) | (of >> 58 & F_GAP));

			all_off |= o;
			seq += o == prev_end;
			prev_end = o + len;
			if (__builtin_expect((len != bytes0) | (res != (int32_t)len), 0)) {
				if (len != bytes0) {
					f |= F_BYTES;
					cx = put_uv(cx, len);
				}
				if (res != (int32_t)len) {
					f |= F_RES;
					cx = put_uv(cx, zz(res));
				}
			}
			*cf++ = f;
			co = put_uv(co, mode & MODE_OFF_ABS ? u : zz((int64_t)(u - prev_end_u)));
			prev_end_u = (o + len) >> shift;
		}
		/* its times: submit and completion, and the lag behind its due time */
		for (q = s; q < stop; q++) {
			const uint64_t sub = q->submit_ns - start, cpl = q->complete_ns - start;
			const unsigned ref = stamps_find(&st, sub);

			hits += ref != 0;
			if (lags) {
				cg = put_uv(cg, q->submit_ns > *d ? q->submit_ns - *d : 0);
				d++;
			}
			if (mode & MODE_TIME_GAP) {
				ct = put_uv(ct, zz((int64_t)(sub - prev_c)));
				cl = put_uv(cl, cpl - sub);
			} else {
				ct = put_uv(ct, zz((int64_t)(cpl - prev_c)));
				cl = put_uv(cl, ref);
				if (!ref)
					cs = put_uv(cs, zz((int64_t)(sub - stamps_at(&st, 1))));
			}
			if (!ref)
				stamps_push(&st, sub);
			prev_c = cpl;
		}
		s = stop;
	}
	/* an offset with bits below the shift: the guess was wrong, the columns thrown away */
	if (__builtin_expect(all_off & low, 0))
		return false;
	c[COL_FLAGS] = cf;
	c[COL_OFF] = co;
	c[COL_TIME] = ct;
	c[COL_LAT] = cl;
	c[COL_STAMP] = cs;
	c[COL_EXTRA] = cx;
	c[COL_LAG] = cg;
	*lk = (struct look){ .all_off = all_off, .seq = seq, .hits = hits };
	return true;
}

static bool encode_cols(const struct iom_trace *t, const struct ring *r, uint64_t first,
			unsigned n, unsigned mode, unsigned shift, uint64_t base, uint32_t bytes0,
			uint8_t **c, struct look *lk)
{
#define AS(m, l) encode_cols_as(t, r, first, n, m, l, shift, base, bytes0, c, lk)
	switch ((mode & (MODE_OFF_ABS | MODE_TIME_GAP)) | (t->lags ? 4u : 0u)) {
	case 0: return AS(0, false);
	case MODE_OFF_ABS: return AS(MODE_OFF_ABS, false);
	case MODE_TIME_GAP: return AS(MODE_TIME_GAP, false);
	case MODE_OFF_ABS | MODE_TIME_GAP: return AS(MODE_OFF_ABS | MODE_TIME_GAP, false);
	default: return AS(mode & (MODE_OFF_ABS | MODE_TIME_GAP), true);
	}
#undef AS
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
	size_t size;
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

	size = (size_t)(h - hdr);
	crc = iom_crc32(0, hdr, size);
	if (deflate_feed_nocrc(t, hdr, size, FEED_MORE) < 0)
		return t->werr;
	for (i = 0; i < t->ncols; i++) {
		size_t len = (size_t)(c[i] - t->col[i]);
		bool own = n >= SPLIT_MIN_RECORDS && (i == COL_FLAGS || i == COL_OFF);

		if (len == 0)
			continue;
		crc = iom_crc32(crc, t->col[i], len);
		size += len;
		/* The flags and the offsets end a deflate block each, so that they get Huffman
		 * codes of their own, and the time columns share a third: on 4K 70/30 QD32 3.45
		 * bytes per I/O where a block per column took 3.36-3.43 and one for all 3.56, at
		 * three Huffman tables a block instead of five (a table costs the writer about
		 * 9 µs, half a ns per record of a block of 16384). */
		if (deflate_feed_nocrc(t, t->col[i], len, own ? FEED_BLOCK : FEED_MORE) < 0)
			return t->werr;
	}
	stream_crc_add(t, crc, size);
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
		/* a block never wraps around the ring's end: encode_cols() walks its slots */
		uint64_t to_end = t->ring_records - (tail & r->mask);
		unsigned n = (unsigned)IOM_MIN(IOM_MIN(head - tail, to_end),
					       (uint64_t)IOM_TRACE_BLOCK_RECORDS);

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
	t->z.gzip_flag = IGZIP_DEFLATE;
	t->z.level = (uint32_t)level;
	t->z.level_buf_size = level_buf_size(level);
	t->z_level_buf = xmalloc(t->z.level_buf_size);
	t->z.level_buf = t->z_level_buf;
	memcpy(t->out, gzip_header, sizeof(gzip_header));
	t->z.next_out = t->out + sizeof(gzip_header);
	t->z.avail_out = (uint32_t)(t->out_cap - sizeof(gzip_header));

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
