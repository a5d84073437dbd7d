/* SPDX-License-Identifier: MIT */
/*
 * worker — the per-thread I/O loop and its offset generator (design in worker.h).
 *
 * One turn of the loop:
 *   1. refill: when at least submit_batch slots are free (or none is in flight), give every free
 *      slot an offset and a direction and queue it;
 *   2. submit and wait: one engine call (one io_uring_enter) submits the queue and waits until
 *      wait_nr completions are available;
 *   3. reap everything available, load the phase once, and account each completion: into the
 *      read or write histogram when it counts, else as warm-up or cool-down I/O; any error
 *      (res < 0 or a short transfer) stops the refilling, the worker drains and reports it;
 *   4. publish the counted totals to the live block (four relaxed stores per batch).
 * The clock is read by the engine only: once per submitted batch, once per reaped batch. The
 * adaptive wait adds a comparison per reaped batch (the reap's stamp against its epoch's end)
 * and a read of the process's CPU clock per epoch (every 3 ms while it probes, once per hold).
 */
#include "worker.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>

#include "util.h"

#define RELAXED memory_order_relaxed

/* ---- offsets ---------------------------------------------------------------------------- */

/*
 * The I/O buffers of a worker: page-aligned, and from HUGE_BUF bytes on, aligned to and
 * advised as transparent huge pages. A 1M direct I/O into 256 scattered 4 KiB pages is 256
 * segments, more than a virtio disk takes in one request (254): the block layer splits every
 * such I/O in two, where the same I/O in a huge page is one segment. Measured on this
 * project's VM, 1M sequential reads QD8: 2 requests per I/O from 4 KiB pages, and the disk
 * delivered ~20 % less than to fio, whose buffers happened to be partly contiguous
 * (docs/performance.md). Where transparent huge pages are off, the advice changes nothing.
 */
#define HUGE_BUF (UINT64_C(2) << 20)

static void *alloc_buffers(size_t len)
{
	size_t align = len >= HUGE_BUF ? HUGE_BUF : 4096;
	void *buf = iom_try_aligned(align, 1, len);

	if (buf && align == HUGE_BUF)
		(void)madvise(buf, len, MADV_HUGEPAGE);
	return buf;
}

/* ---- the mixed generator ---------------------------------------------------------------- */

static int mixed_init(struct iom_worker_gen *g, const struct iom_worker_conf *c, unsigned thread,
		      uint64_t tseed, char *err, size_t errlen)
{
	uint64_t start;

	g->mode = IOM_GEN_MIXED;
	g->align = c->wl.align ? c->wl.align : g->bs;
	iom_rng_seed(&g->pick_rng, iom_mix64(tseed ^ UINT64_C(0x9a7c3e5d1f2b4867)));
	if (c->region < g->bs)
		return iom_err(err, errlen, EINVAL,
			       "the region of %llu bytes holds no block of %u bytes",
			       (unsigned long long)c->region, g->bs);
	g->end = c->region - g->bs + 1;
	g->slots = (c->region - g->bs) / g->align + 1;
	start = (uint64_t)((unsigned __int128)c->region * thread / c->wl.threads);
	if (g->random_pct == 0 && c->wl.thread_stride) /* DiskSpd's -T */
		start = (uint64_t)(((unsigned __int128)c->wl.thread_stride * thread) % g->end);
	start -= start % g->align;
	g->next = start < g->end ? start : 0;
	if (g->random_pct == 0 && c->wl.shared_sequential && c->shared_next) {
		g->shared = c->shared_next;
		g->blocks = c->region / g->bs;
	}
	return iom_dist_build(&g->dist, c->wl.distribution, g->slots, err, errlen);
}

void iom_worker_gen_release(struct iom_worker_gen *g)
{
	iom_dist_release(&g->dist);
}

uint64_t iom_worker_gen_offset_mixed(struct iom_worker_gen *g)
{
	uint64_t off;

	if (g->shared) /* DiskSpd's -si: the next block of the run's one stream */
		return (atomic_fetch_add_explicit(g->shared, 1, memory_order_relaxed) % g->blocks) *
		       g->bs;
	if (g->random_pct == 100 ||
	    (g->random_pct && iom_rng_below(&g->pick_rng, 100) < g->random_pct))
		off = (g->dist.n ? iom_dist_draw(&g->dist, &g->off_rng)
				 : iom_rng_below(&g->off_rng, g->slots)) * g->align;
	else
		off = g->next;
	g->next = off + g->bs;
	if (g->next >= g->end)
		g->next = 0;
	return off;
}

int iom_worker_gen_init(struct iom_worker_gen *g, const struct iom_worker_conf *c, unsigned thread,
			char *err, size_t errlen)
{
	uint64_t tseed = iom_mix64(c->seed + thread);

	memset(g, 0, sizeof(*g));
	if (c->wl.block_size == 0)
		return iom_err(err, errlen, EINVAL, "block size must not be 0");
	if (c->wl.threads == 0 || thread >= c->wl.threads)
		return iom_err(err, errlen, EINVAL, "thread %u of %u does not exist", thread,
			       c->wl.threads);
	g->bs = c->wl.block_size;
	g->read_pct = IOM_MIN(c->wl.read_pct, 100u);
	g->pattern = c->wl.pattern;
	iom_rng_seed(&g->off_rng, tseed);
	iom_rng_seed(&g->mix_rng, iom_mix64(tseed));
	g->random_pct = c->wl.pattern == IOM_PATTERN_SEQUENTIAL ? 0 : IOM_MIN(c->wl.random_pct, 100u);
	g->mode = g->random_pct == 100 ? IOM_GEN_RANDOM : IOM_GEN_SEQUENTIAL;
	if (g->random_pct == 0 && (c->wl.thread_stride || (c->wl.shared_sequential &&
							  c->shared_next)))
		return mixed_init(g, c, thread, tseed, err, errlen);
	if ((g->random_pct > 0 && g->random_pct < 100) ||
	    (g->random_pct == 100 && c->wl.align && c->wl.align != g->bs) ||
	    (g->random_pct > 0 && c->wl.distribution != IOM_DIST_UNIFORM))
		return mixed_init(g, c, thread, tseed, err, errlen);
	if (g->mode == IOM_GEN_RANDOM) {
		g->blocks = c->region / c->wl.block_size;
		if (g->blocks == 0)
			return iom_err(err, errlen, EINVAL,
				       "the region of %llu bytes holds no block of %u bytes",
				       (unsigned long long)c->region, c->wl.block_size);
		return 0;
	}
	g->lo = (uint64_t)((unsigned __int128)c->region * thread / c->wl.threads);
	g->hi = (uint64_t)((unsigned __int128)c->region * (thread + 1) / c->wl.threads);
	g->lo -= g->lo % c->wl.block_size;
	g->hi -= g->hi % c->wl.block_size;
	if (g->hi - g->lo < c->wl.block_size)
		return iom_err(err, errlen, EINVAL,
			       "the region of %llu bytes is too small for %u threads of sequential "
			       "%u-byte I/O (each thread needs its own slice of at least one block)",
			       (unsigned long long)c->region, c->wl.threads, c->wl.block_size);
	g->next = g->lo;
	return 0;
}

/* ---- access specifications -------------------------------------------------------------- */

struct iom_workload iom_access_line_workload(const struct iom_workload *wl,
					     const struct iom_access_line *l)
{
	struct iom_workload x = *wl;

	if (l->block_size != IOM_ACCESS_INHERIT)
		x.block_size = (uint32_t)l->block_size;
	if (l->read_pct != IOM_ACCESS_INHERIT)
		x.read_pct = (uint32_t)l->read_pct;
	if (l->random_pct != IOM_ACCESS_INHERIT) {
		/* the line says how random it is: the workload's pattern does not overrule it */
		x.random_pct = (uint32_t)l->random_pct;
		x.pattern = IOM_PATTERN_RANDOM;
	}
	if (l->align != IOM_ACCESS_INHERIT)
		x.align = (uint64_t)l->align;
	return x;
}

uint32_t iom_worker_max_block(const struct iom_worker_conf *c)
{
	uint32_t bs = c->wl.block_size;

	if (!c->access)
		return bs;
	bs = 0;
	for (size_t l = 0; l < c->access->nlines; l++)
		bs = IOM_MAX(bs, iom_access_line_workload(&c->wl, &c->access->lines[l]).block_size);
	return bs;
}

/* The line generators (the thread's, freed with its buffers); nlines stays for the counts. */
static void free_lines(struct iom_worker *w)
{
	for (unsigned l = 0; w->lines && l < w->nlines; l++)
		iom_worker_gen_release(&w->lines[l]);
	free(w->lines);
	w->lines = NULL;
}

/* The per-line counts (read by the controller after the join, freed with the worker). */
static void free_line_acc(struct iom_worker *w)
{
	for (unsigned l = 0; w->line_acc && l < w->nlines; l++)
		free(w->line_acc[l].hist);
	free(w->line_acc);
	w->line_acc = NULL;
	w->nlines = 0;
}

/* The line generators and counters of w (conf->access set): 0, -ENOMEM or -EINVAL with
 * w->error set. */
static int prepare_lines(struct iom_worker *w)
{
	const struct iom_worker_conf *c = w->conf;
	const struct iom_access_spec *a = c->access;
	unsigned p = 0;

	w->nlines = (unsigned)a->nlines;
	w->lines = iom_try_calloc(a->nlines, sizeof(*w->lines));
	w->line_acc = iom_try_calloc(a->nlines, sizeof(*w->line_acc));
	if (!w->lines || !w->line_acc) {
		snprintf(w->error, sizeof(w->error), "the tables of %zu access spec lines",
			 a->nlines);
		return -ENOMEM;
	}
	iom_rng_seed(&w->line_rng, iom_mix64(c->seed + w->id) ^ UINT64_C(0x11e5a11e5a11e5));
	for (unsigned l = 0; l < w->nlines; l++) {
		struct iom_worker_conf lc = *c;
		int ret;

		lc.wl = iom_access_line_workload(&c->wl, &a->lines[l]);
		lc.seed = iom_mix64(c->seed ^ (UINT64_C(0xacce55) + l));
		ret = iom_worker_gen_init(&w->lines[l], &lc, c->path_div ? w->id / c->path_div
									 : w->id,
					  w->error, sizeof(w->error));
		if (ret < 0)
			return ret;
		w->line_acc[l].hist = iom_try_calloc(1, sizeof(*w->line_acc[l].hist));
		if (!w->line_acc[l].hist) {
			snprintf(w->error, sizeof(w->error), "the latency histograms of %u lines",
				 w->nlines);
			return -ENOMEM;
		}
		iom_hist_init(w->line_acc[l].hist);
		for (unsigned k = 0; k < a->lines[l].share && p < 100; k++)
			w->pick[p++] = (uint8_t)l;
	}
	while (p < 100) /* shares add up to 100 (matrix.c); a hand-made spec may not */
		w->pick[p++] = (uint8_t)(w->nlines - 1);
	return 0;
}

/* ---- the start gate --------------------------------------------------------------------- */

void iom_worker_gate_init(struct iom_worker_gate *g)
{
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	g->ready = 0;
	g->open = false;
}

void iom_worker_gate_destroy(struct iom_worker_gate *g)
{
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->lock);
}

void iom_worker_gate_wait_ready(struct iom_worker_gate *g, unsigned n)
{
	pthread_mutex_lock(&g->lock);
	while (g->ready < n)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

void iom_worker_gate_open(struct iom_worker_gate *g)
{
	pthread_mutex_lock(&g->lock);
	g->open = true;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

static void gate_arrive(struct iom_worker_gate *g)
{
	pthread_mutex_lock(&g->lock);
	g->ready++;
	pthread_cond_broadcast(&g->cond);
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

/* ---- set-up ----------------------------------------------------------------------------- */

int iom_worker_init(struct iom_worker *w, const struct iom_worker_conf *conf, unsigned id,
		    _Atomic int *phase, struct iom_worker_gate *gate)
{
	unsigned d;

	memset(w, 0, sizeof(*w));
	w->conf = conf;
	w->id = id;
	w->phase = phase;
	w->gate = gate;
	for (d = 0; d < 2; d++) {
		/* 36 KiB each, per thread: the matrix sets how many */
		w->hist[d] = iom_try_calloc(1, sizeof(*w->hist[d]));
		if (!w->hist[d]) {
			free(w->hist[0]);
			w->hist[0] = NULL;
			return -ENOMEM;
		}
		iom_hist_init(w->hist[d]);
	}
	if (conf->wl.fsync_every || conf->wl.trim_pct) {
		for (d = 0; d < 2; d++) {
			w->xhist[d] = iom_try_calloc(1, sizeof(*w->xhist[d]));
			if (!w->xhist[d]) {
				free(w->xhist[0]);
				free(w->hist[0]);
				free(w->hist[1]);
				w->xhist[0] = w->hist[0] = w->hist[1] = NULL;
				return -ENOMEM;
			}
			iom_hist_init(w->xhist[d]);
		}
	}
	if (iom_worker_rate(conf) > 0 || conf->wl.think_ns) {
		for (d = 0; d < 2; d++) {
			w->resp[d] = iom_try_calloc(1, sizeof(*w->resp[d]));
			if (!w->resp[d]) {
				iom_worker_release(w);
				return -ENOMEM;
			}
			iom_hist_init(w->resp[d]);
		}
		if (iom_worker_rate(conf) > 0)
			w->pace_gap_ns = 1e9 * (conf->run_threads ? conf->run_threads
								   : conf->wl.threads) /
					 iom_worker_rate(conf);
	}
	if (conf->bytes && conf->wl.block_size && conf->wl.threads) {
		uint64_t bs = conf->wl.block_size;
		uint64_t total = conf->bytes / bs + !!(conf->bytes % bs);
		unsigned lid = conf->path_div ? id / conf->path_div : id; /* several paths */

		w->share_ios = total / conf->wl.threads + (lid < total % conf->wl.threads);
	}
	atomic_init(&w->live.state, IOM_WORKER_STARTING);
	atomic_init(&w->live.phase_seen, -1);
	return 0;
}

/* Frees the I/O buffers and slots (the thread's own, once its engine is released). */
static void free_io(struct iom_worker *w)
{
	iom_worker_gen_release(&w->gen);
	free_lines(w);
	free(w->data_tmpl);
	free(w->slot_read);
	w->data_tmpl = NULL;
	w->slot_read = NULL;
	free(w->buf);
	free(w->slots);
	free(w->free_slots);
	free(w->done);
	free(w->due);
	w->buf = NULL;
	w->slots = NULL;
	w->free_slots = w->done = NULL;
	w->due = NULL;
}

void iom_worker_release(struct iom_worker *w)
{
	free_io(w);
	free_line_acc(w);
	free(w->hist[0]);
	free(w->hist[1]);
	w->hist[0] = w->hist[1] = NULL;
	free(w->xhist[0]);
	free(w->xhist[1]);
	w->xhist[0] = w->xhist[1] = NULL;
	free(w->resp[0]);
	free(w->resp[1]);
	w->hist[0] = w->hist[1] = w->resp[0] = w->resp[1] = NULL;
}

double iom_worker_rate(const struct iom_worker_conf *c)
{
	if (c->wl.rate_iops > 0)
		return (double)c->wl.rate_iops;
	if (c->wl.rate_mb_s > 0 && c->access) {
		/* an access spec: bytes per second over the lines' share-weighted mean size */
		double mean = 0;

		for (size_t l = 0; l < c->access->nlines; l++)
			mean += c->access->lines[l].share / 100.0 *
				iom_access_line_workload(&c->wl, &c->access->lines[l]).block_size;
		return mean > 0 ? (double)c->wl.rate_mb_s / mean : 0;
	}
	if (c->wl.rate_mb_s > 0 && c->wl.block_size)
		return (double)c->wl.rate_mb_s / c->wl.block_size;
	return 0;
}

static void fail(struct iom_worker *w, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Records the worker's first error and publishes the FAILED state (the message first). */
static void fail(struct iom_worker *w, int code, const char *fmt, ...)
{
	va_list ap;

	if (atomic_load_explicit(&w->live.state, RELAXED) == IOM_WORKER_FAILED)
		return;
	va_start(ap, fmt);
	vsnprintf(w->error, sizeof(w->error), fmt, ap);
	va_end(ap);
	w->error_code = code;
	atomic_store_explicit(&w->live.state, IOM_WORKER_FAILED, memory_order_release);
}

static int prepare(struct iom_worker *w)
{
	const struct iom_worker_conf *c = w->conf;
	unsigned depth = iom_engine_depth(c->wl.engine, c->wl.queue_depth), i;
	struct iom_engine_setup s;
	uint32_t bs;
	size_t len;
	int ret;

	ret = iom_worker_gen_init(&w->gen, c, c->path_div ? w->id / c->path_div : w->id, w->error,
				  sizeof(w->error));
	if (ret < 0)
		return ret;
	iom_rng_seed(&w->op_rng, iom_mix64(c->seed + w->id) ^ UINT64_C(0x7e1fdeadf1005));
	if (depth == 0) {
		snprintf(w->error, sizeof(w->error), "queue depth must be at least 1");
		return -EINVAL;
	}
	if (c->access && (ret = prepare_lines(w)) < 0)
		return ret;
	bs = iom_worker_max_block(c);
	len = (size_t)depth * bs;
	w->buf = alloc_buffers(len);
	if (!w->buf) {
		snprintf(w->error, sizeof(w->error),
			 "%.1f MiB of I/O buffers (%u × %u bytes)",
			 (double)len / (1024.0 * 1024.0), depth, bs);
		return -ENOMEM;
	}
	if ((c->wl.read_pct < 100 || c->access) &&
	    IOM_CHOICE_INDEX(c->wl.data) != IOM_DATA_RANDOM) {
		/* the pattern of data in every slot; a read's data is replaced before a write */
		uint64_t dseed = iom_mix64(c->seed + w->id) ^ UINT64_C(0xda7a0fb0ffe75);

		w->data_tmpl = iom_try_aligned(64, 1, bs);
		w->slot_read = iom_try_calloc(depth, 1);
		if (!w->data_tmpl || !w->slot_read) {
			snprintf(w->error, sizeof(w->error), "its write pattern of %u bytes", bs);
			return -ENOMEM;
		}
		iom_worker_data_pattern(w->data_tmpl, bs, c->wl.data, dseed);
		for (i = 0; i < depth; i++)
			memcpy((char *)w->buf + (size_t)i * bs, w->data_tmpl, bs);
		iom_rng_seed(&w->dedupe_rng, iom_mix64(dseed));
	} else if (c->wl.read_pct < 100 || c->access) {
		struct iom_rng r;

		/* Incompressible data for writes, made once. */
		iom_rng_seed(&r, iom_mix64(c->seed + w->id) ^ UINT64_C(0x5eed0fb0ffe75));
		iom_rng_fill(&r, w->buf, len);
	} else {
		memset(w->buf, 0, len); /* fault the pages in before the clock runs */
	}
	w->slots = iom_try_calloc(depth, sizeof(*w->slots));
	w->free_slots = iom_try_calloc(depth, sizeof(*w->free_slots));
	w->done = iom_try_calloc(depth, sizeof(*w->done));
	if (w->resp[0])
		w->due = iom_try_calloc(depth, sizeof(*w->due));
	if (!w->slots || !w->free_slots || !w->done || (w->resp[0] && !w->due)) {
		snprintf(w->error, sizeof(w->error), "its table of %u I/O slots", depth);
		return -ENOMEM;
	}
	for (i = 0; i < depth; i++) {
		w->slots[i].buf = (char *)w->buf + (size_t)i * bs;
		w->slots[i].len = c->access ? bs : c->wl.block_size;
		w->slots[i].slot = (uint16_t)i;
		w->free_slots[i] = &w->slots[depth - 1 - i];
	}
	s = (struct iom_engine_setup){ .fd = c->fd, .depth = c->wl.queue_depth,
				       .block_size = bs, .buf = w->buf,
				       .flags = c->engine_flags };
	ret = iom_engine_init(&w->engine, c->wl.engine, &s, w->error, sizeof(w->error));
	if (ret < 0)
		return ret;
	if (w->engine.depth != depth) {
		snprintf(w->error, sizeof(w->error), "engine %s took queue depth %u, not %u",
			 w->engine.ops->name, w->engine.depth, depth);
		return -EINVAL;
	}
	return 0;
}

/* ---- the loop --------------------------------------------------------------------------- */

static const char *const op_name[4] = { "read", "write", "flush", "trim" };

/* Stamps each 4 KiB of a write with its offset and a sequence number, so that no two blocks
 * written in a run are alike (deduplicating storage would otherwise see the same few buffers
 * over and over). Two 8-byte stores per 4 KiB; the rest of the buffer stays incompressible. */
static inline void stamp_write(struct iom_io *io, uint64_t seq)
{
	char *p = io->buf;
	uint32_t off = 0;

	do {
		uint64_t v[2] = { io->offset + off, seq };

		memcpy(p + off, v, IOM_MIN(sizeof(v), (size_t)(io->len - off)));
		off += 4096;
	} while (off < io->len);
}

void iom_worker_data_pattern(void *buf, size_t len, uint32_t data, uint64_t seed)
{
	unsigned kind = (unsigned)IOM_CHOICE_INDEX(data), pct = (unsigned)IOM_CHOICE_PCT(data);
	struct iom_rng r;
	size_t chunk = IOM_MIN(len, (size_t)4096), keep;

	iom_rng_seed(&r, seed);
	switch (kind) {
	case IOM_DATA_ZEROS:
		memset(buf, 0, len);
		break;
	case IOM_DATA_COMPRESSIBLE:
		keep = chunk * (100 - IOM_MIN(pct, 100u)) / 100;
		for (size_t off = 0; off < len; off += chunk) {
			size_t n = IOM_MIN(chunk, len - off), k = IOM_MIN(keep, n);

			iom_rng_fill(&r, (char *)buf + off, k);
			memset((char *)buf + off + k, 0, n - k);
		}
		break;
	default:
		iom_rng_fill(&r, buf, len);
		break;
	}
}

/* A write or read of a cell whose data is not random (the branch is on a per-run constant; the
 * default path never comes here). A read marks its slot, whose buffer then holds what was read;
 * a write puts the pattern back into such a slot, then stamps it: compressible with its offset
 * and sequence (as random), dedupe with a block id — a new one, or with pct % chance one given
 * out before, so that the block repeats an earlier one byte for byte — and zeros not at all. */
static void shape_io(struct iom_worker *w, struct iom_io *io, const struct iom_worker_hooks *hooks)
{
	uint32_t data = w->conf->wl.data;

	if (io->op > IOM_OP_WRITE) /* a flush or a trim carries no data */
		return;
	if (io->op == IOM_OP_READ) {
		w->slot_read[io->slot] = 1;
		return;
	}
	if (w->slot_read[io->slot]) {
		memcpy(io->buf, w->data_tmpl, io->len);
		w->slot_read[io->slot] = 0;
	}
	switch (IOM_CHOICE_INDEX(data)) {
	case IOM_DATA_COMPRESSIBLE:
		stamp_write(io, w->write_seq);
		break;
	case IOM_DATA_DEDUPE: {
		uint64_t id = w->dedupe_ids;
		char *p = io->buf;

		if (id && iom_rng_below(&w->dedupe_rng, 100) < (uint64_t)IOM_CHOICE_PCT(data))
			id = iom_rng_below(&w->dedupe_rng, id);
		else
			w->dedupe_ids++;
		for (uint32_t off = 0; off < io->len; off += 4096) {
			uint64_t v[2] = { id, off };

			memcpy(p + off, v, IOM_MIN(sizeof(v), (size_t)(io->len - off)));
		}
		break;
	}
	default: /* zeros */
		break;
	}
	if (hooks && hooks->prepare_write)
		hooks->prepare_write(hooks->ctx, w->id, io);
	w->write_seq++;
}

static void io_failed(struct iom_worker *w, const struct iom_io *io);

/* fsync_every and trim_pct (a per-run constant guards the call): the I/O becomes a flush when
 * the thread has written fsync_every blocks since the last, else a trim with trim_pct % chance.
 * Neither is part of a bytes-bound share. */
static void special_op(struct iom_worker *w, struct iom_io *io, uint64_t *share_issue)
{
	const struct iom_workload *wl = &w->conf->wl;
	uint8_t op = io->op;

	if (wl->fsync_every && w->since_flush >= wl->fsync_every) {
		op = IOM_OP_FLUSH;
		w->since_flush = 0;
	} else if (wl->trim_pct && iom_rng_below(&w->op_rng, 100) < wl->trim_pct) {
		op = IOM_OP_TRIM;
	} else if (op == IOM_OP_WRITE) {
		w->since_flush++;
	}
	if (op != io->op && io->tag) {
		io->tag = 0;
		(*share_issue)++;
	}
	io->op = op;
}

/* A completed flush or trim: failed, or counted apart from reads and writes (in the measured
 * window) with its latency. Not traced. Returns whether it failed. */
static bool account_special(struct iom_worker *w, struct iom_io *io, int phase)
{
	unsigned x = io->op == IOM_OP_TRIM;

	if (io->res < 0) {
		io_failed(w, io);
		return true;
	}
	if (phase == IOM_PHASE_MEASURE) {
		io->phase = IOM_IO_MEASURED;
		iom_hist_record(w->xhist[x], io->complete_ns - io->submit_ns);
		w->xios[x]++;
		w->xbytes[x] += io->len;
	} else {
		io->phase = phase == IOM_PHASE_WARMUP ? IOM_IO_WARMUP : IOM_IO_COOLDOWN;
	}
	return false;
}

static void io_failed(struct iom_worker *w, const struct iom_io *io)
{
	const char *op = op_name[io->op & 3];
	unsigned long long off = (unsigned long long)io->offset;

	if (io->res < 0) {
		const char *hint = "";

		if (io->res == -EINVAL && w->conf->wl.direct && io->op <= IOM_OP_WRITE)
			hint = " (O_DIRECT needs the block size and offsets aligned to the device's "
			       "logical block size)";
		else if (io->op == IOM_OP_TRIM)
			hint = " (the target does not discard: a device without discard "
			       "(queue/discard_max_bytes 0), a kernel before 6.12 for io_uring's "
			       "discard command, or a filesystem that punches no holes; set "
			       "trim_pct = 0)";
		fail(w, -io->res, "%s at offset %llu failed: %s%s", op, off, strerror(-io->res),
		     hint);
	} else {
		fail(w, EIO, "short %s at offset %llu: %d of %u bytes%s", op, off, io->res, io->len,
		     io->res == 0 && io->op == IOM_OP_READ ? " (past the end of the target?)" : "");
	}
}

void iom_policy_describe(const struct iom_policy *p, char *buf, size_t len)
{
	if (iom_policy_adaptive(p))
		snprintf(buf, len, "submit_batch %u, reap_wait adaptive", p->submit_batch);
	else if (p->wait_min)
		snprintf(buf, len, "submit_batch %u, reap_wait %u", p->submit_batch, p->wait_min);
	else
		snprintf(buf, len, "submit_batch %u, reap_wait 1/%u", p->submit_batch,
			 p->wait_div);
}

/* ---- the adaptive wait (worker.h) ------------------------------------------------------- */

uint64_t iom_process_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Which wait epoch k of a probe measures: 0 the held one, 1 the candidate, in the order
 * 0 1 1 0 0 1 1 0, so that a trend over the probe weighs on both alike. */
static inline unsigned adapt_slot(unsigned k)
{
	return (k ^ (k >> 1)) & 1;
}

static void adapt_epoch_start(struct iom_reap_adapt *a, uint64_t now_ns, uint64_t cpu_ns,
			      uint64_t len_ns)
{
	a->start_ns = now_ns;
	a->start_cpu = cpu_ns;
	a->ios = 0;
	a->epoch_end = now_ns + len_ns;
}

/* Holds the level's wait for a hold. */
static void adapt_hold(struct iom_reap_adapt *a, uint64_t now_ns, uint64_t cpu_ns)
{
	a->dir = 0;
	a->wait = 1u << a->level;
	adapt_epoch_start(a, now_ns, cpu_ns, a->hold_ns);
}

/* Starts a probe of the level against the one dir of it. */
static void adapt_probe(struct iom_reap_adapt *a, int dir, uint64_t now_ns, uint64_t cpu_ns)
{
	a->dir = dir;
	a->cand = (unsigned)((int)a->level + dir);
	a->epoch = 0;
	a->rate_won = a->cpu_won = 0;
	for (unsigned i = 0; i < 2; i++)
		a->sum_ios[i] = a->sum_ns[i] = a->sum_cpu[i] = 0;
	a->wait = 1u << a->level;
	adapt_epoch_start(a, now_ns, cpu_ns, IOM_ADAPT_EPOCH_NS);
}

/* Whether the candidate's epochs beat the held wait's: more I/Os per second, or as many for
 * less CPU per I/O, over the probe and in most of its pairs. Epochs without completions decide
 * nothing. */
static bool adapt_wins(const struct iom_reap_adapt *a)
{
	double rate_h, rate_c, cpu_h, cpu_c;

	if (a->sum_ios[0] <= 0 || a->sum_ios[1] <= 0 || a->sum_ns[0] <= 0 || a->sum_ns[1] <= 0)
		return false;
	rate_h = a->sum_ios[0] / a->sum_ns[0];
	rate_c = a->sum_ios[1] / a->sum_ns[1];
	if (rate_c > rate_h * (1 + IOM_ADAPT_GAIN))
		return a->rate_won >= IOM_ADAPT_PAIRS_WON;
	cpu_h = a->sum_cpu[0] / a->sum_ios[0];
	cpu_c = a->sum_cpu[1] / a->sum_ios[1];
	return rate_c >= rate_h * (1 - IOM_ADAPT_GAIN) && cpu_c < cpu_h * (1 - IOM_ADAPT_GAIN) &&
	       a->cpu_won >= IOM_ADAPT_PAIRS_WON;
}

/* The level survey epoch k measures: up the levels and down again, pass after pass. */
static unsigned survey_level(const struct iom_reap_adapt *a, unsigned k)
{
	unsigned n = a->top + 1, i = k % n;

	return (k / n) % 2 ? a->top - i : i;
}

/* The survey's pick: the level with the most I/Os per second, or one within IOM_ADAPT_GAIN of
 * its rate for IOM_ADAPT_GAIN less CPU per I/O (the least CPU of those). */
static unsigned survey_pick(const struct iom_reap_adapt *a)
{
	unsigned best = 0, pick;
	double best_rate = -1, rate[IOM_ADAPT_LEVELS], cpu[IOM_ADAPT_LEVELS];

	for (unsigned lv = 0; lv <= a->top; lv++) {
		rate[lv] = a->lvl_ns[lv] > 0 ? a->lvl_ios[lv] / a->lvl_ns[lv] : 0;
		cpu[lv] = a->lvl_ios[lv] > 0 ? a->lvl_cpu[lv] / a->lvl_ios[lv] : 1e300;
		if (rate[lv] > best_rate) {
			best_rate = rate[lv];
			best = lv;
		}
	}
	pick = best;
	for (unsigned lv = 0; lv <= a->top; lv++)
		if (rate[lv] >= best_rate * (1 - IOM_ADAPT_GAIN) &&
		    cpu[lv] < cpu[best] * (1 - IOM_ADAPT_GAIN) && cpu[lv] < cpu[pick])
			pick = lv;
	return pick;
}

/* Ends a survey epoch: its sums kept for its level, then the next level, or the pick held. */
static void survey_epoch(struct iom_reap_adapt *a, uint64_t now_ns, uint64_t cpu_ns)
{
	unsigned lv = survey_level(a, a->epoch);

	a->lvl_ios[lv] += (double)a->ios;
	a->lvl_ns[lv] += (double)(now_ns - a->start_ns);
	a->lvl_cpu[lv] += (double)(cpu_ns - a->start_cpu);
	if (++a->epoch < IOM_ADAPT_SURVEY_PASSES * (a->top + 1)) {
		a->wait = 1u << survey_level(a, a->epoch);
		adapt_epoch_start(a, now_ns, cpu_ns, IOM_ADAPT_EPOCH_NS);
		return;
	}
	a->surveying = false;
	a->probes++;
	a->level = survey_pick(a);
	a->moves += a->level != 0;
	adapt_hold(a, now_ns, cpu_ns);
}

void iom_reap_adapt_init(struct iom_reap_adapt *a, unsigned depth, uint64_t now_ns,
			 uint64_t cpu_ns)
{
	*a = (struct iom_reap_adapt){ .hold_ns = IOM_ADAPT_HOLD_NS, .wait = 1 };
	while ((2u << a->top) <= depth / 2 && a->top + 1 < IOM_ADAPT_LEVELS)
		a->top++;
	if (a->top) {
		a->surveying = true;
		adapt_epoch_start(a, now_ns, cpu_ns, IOM_ADAPT_EPOCH_NS);
	} else {
		adapt_hold(a, now_ns, cpu_ns); /* one wait only (a queue of 1 to 3) */
	}
}

void iom_reap_adapt_epoch(struct iom_reap_adapt *a, uint64_t now_ns, uint64_t cpu_ns)
{
	unsigned k;

	if (a->surveying) {
		survey_epoch(a, now_ns, cpu_ns);
		return;
	}
	if (a->dir == 0) { /* a hold ended: probe up, else down */
		if (a->level < a->top)
			adapt_probe(a, +1, now_ns, cpu_ns);
		else if (a->level > 0)
			adapt_probe(a, -1, now_ns, cpu_ns);
		else
			adapt_hold(a, now_ns, cpu_ns);
		return;
	}
	k = adapt_slot(a->epoch);
	{
		double ns = (double)(now_ns - a->start_ns), cpu = (double)(cpu_ns - a->start_cpu);
		double rate = ns > 0 ? (double)a->ios / ns : 0;
		double per_io = a->ios ? cpu / (double)a->ios : 1e300;

		a->sum_ios[k] += (double)a->ios;
		a->sum_ns[k] += ns;
		a->sum_cpu[k] += cpu;
		if (!(a->epoch & 1)) {
			a->first_rate = rate;
			a->first_cpu = per_io;
		} else if (k) { /* the pair's second epoch was the candidate's */
			a->rate_won += rate > a->first_rate;
			a->cpu_won += per_io < a->first_cpu;
		} else {
			a->rate_won += a->first_rate > rate;
			a->cpu_won += a->first_cpu < per_io;
		}
	}
	if (++a->epoch < IOM_ADAPT_EPOCHS) {
		a->wait = 1u << (adapt_slot(a->epoch) ? a->cand : a->level);
		adapt_epoch_start(a, now_ns, cpu_ns, IOM_ADAPT_EPOCH_NS);
		return;
	}
	a->probes++;
	if (adapt_wins(a)) {
		int dir = a->dir;

		a->level = a->cand;
		a->came_up = dir > 0;
		a->moves++;
		a->hold_ns = IOM_ADAPT_HOLD_NS;
		if (dir > 0 ? a->level < a->top : a->level > 0)
			adapt_probe(a, dir, now_ns, cpu_ns); /* on in the same direction */
		else
			adapt_hold(a, now_ns, cpu_ns);
		return;
	}
	if (a->dir > 0 && !a->came_up && a->level > 0) {
		adapt_probe(a, -1, now_ns, cpu_ns); /* up lost: down, unless it came from there */
		return;
	}
	/* neither neighbour wins: the level is confirmed, held longer each time */
	a->came_up = false;
	adapt_hold(a, now_ns, cpu_ns);
	a->hold_ns = IOM_MIN(2 * a->hold_ns, (uint64_t)IOM_ADAPT_HOLD_MAX_NS);
}

/* Acts on a new phase: acknowledges it to the controller (after every count of the old phase
 * was published), stops at STOP, and reports an empty bytes share done at once. */
static int observe_phase(struct iom_worker *w, bool *stopping, bool share_complete)
{
	int phase = atomic_load_explicit(w->phase, RELAXED);

	atomic_store_explicit(&w->live.phase_seen, phase, memory_order_release);
	if (phase == IOM_PHASE_STOP)
		*stopping = true;
	if (phase == IOM_PHASE_MEASURE && share_complete &&
	    atomic_load_explicit(&w->live.state, RELAXED) == IOM_WORKER_RUNNING) {
		atomic_store_explicit(&w->live.done_ns, iom_now_ns(), RELAXED);
		atomic_store_explicit(&w->live.state, IOM_WORKER_DONE, memory_order_release);
	}
	return phase;
}

/* Where the thread's next I/O goes: with an access spec its line first (by share), then that
 * line's offset, size and direction; else the workload's (the branch is on a per-run constant). */
static inline void place_io(struct iom_worker *w, struct iom_io *io)
{
	if (__builtin_expect(w->nlines != 0, 0)) {
		unsigned l = w->pick[iom_rng_below(&w->line_rng, 100)];
		struct iom_worker_gen *g = &w->lines[l];

		io->line = (uint8_t)l;
		io->len = g->bs;
		io->offset = iom_worker_gen_offset(g);
		io->op = iom_worker_gen_is_read(g) ? IOM_OP_READ : IOM_OP_WRITE;
	} else {
		io->offset = iom_worker_gen_offset(&w->gen);
		io->op = iom_worker_gen_is_read(&w->gen) ? IOM_OP_READ : IOM_OP_WRITE;
	}
}

/* What a placed I/O carries: a flush or a trim in its place (special: fsync_every or trim_pct;
 * a bytes-bound share gets its I/O back), then a write's data (shaped: data other than random),
 * else today's stamp. */
static inline void ready_io(struct iom_worker *w, struct iom_io *io, bool special, bool shaped,
			    uint64_t *share_issue)
{
	const struct iom_worker_hooks *hooks = w->conf->hooks;

	if (__builtin_expect(special, 0))
		special_op(w, io, share_issue);
	if (__builtin_expect(shaped, 0)) {
		shape_io(w, io, hooks);
	} else if (io->op == IOM_OP_WRITE) {
		if (hooks && hooks->prepare_write)
			hooks->prepare_write(hooks->ctx, w->id, io);
		else
			stamp_write(io, w->write_seq);
		w->write_seq++;
	}
}

/* A counted I/O of an access spec's line d-direction: the line's own figures. */
static inline void count_line(struct iom_worker *w, const struct iom_io *io, unsigned d)
{
	struct iom_worker_line *la = &w->line_acc[io->line];

	iom_hist_record(la->hist, io->complete_ns - io->submit_ns);
	la->ios[d]++;
	la->bytes[d] += io->len;
}

/* A batch with counted completions, the latest at stamp: the longest gap between counted
 * completions so far (stall judgement, run.c), then the counts for the controller. */
static inline void publish(struct iom_worker *w, uint64_t stamp, const uint64_t ios[2],
			   const uint64_t bytes[2])
{
	if (!w->first_ns) {
		w->first_ns = stamp;
	} else if (stamp > w->last_ns && stamp - w->last_ns > w->gap_hi - w->gap_lo) {
		w->gap_lo = w->last_ns;
		w->gap_hi = stamp;
	}
	w->last_ns = IOM_MAX(w->last_ns, stamp);
	atomic_store_explicit(&w->live.ios[0], ios[0], RELAXED);
	atomic_store_explicit(&w->live.ios[1], ios[1], RELAXED);
	atomic_store_explicit(&w->live.bytes[0], bytes[0], RELAXED);
	atomic_store_explicit(&w->live.bytes[1], bytes[1], RELAXED);
}

/* A completion outside the measured window: counted as warm-up (published for steady state
 * when it watches) or as cool-down. */
static inline void count_outside(struct iom_worker *w, struct iom_io *io, int phase)
{
	if (phase == IOM_PHASE_WARMUP) {
		io->phase = IOM_IO_WARMUP;
		w->warmup_ios++;
		if (w->conf->live_warmup) /* steady state watches it */
			atomic_store_explicit(&w->live.warm_ios, w->warmup_ios, RELAXED);
	} else {
		io->phase = IOM_IO_COOLDOWN;
		w->cooldown_ios++;
	}
}

/* A completion that failed, or a read whose data did not check (msg: the check's words): the
 * thread fails and must stop (true). */
static inline bool went_wrong(struct iom_worker *w, struct iom_io *io, unsigned d, char *msg,
			      size_t len)
{
	const struct iom_worker_hooks *hooks = w->conf->hooks;

	if (__builtin_expect(io->res != (int32_t)io->len, 0)) {
		io_failed(w, io);
		return true;
	}
	if (d == IOM_OP_READ && hooks && hooks->check_read &&
	    hooks->check_read(hooks->ctx, w->id, io, msg, len) < 0) {
		fail(w, EILSEQ, "%s", msg);
		return true;
	}
	return false;
}

/* What a loop adds up over the counted completions: the totals it publishes, and per reaped
 * batch how many were counted and the latest of their completion stamps. */
struct tally {
	uint64_t ios[2], bytes[2];
	uint64_t stamp;
	unsigned counted;
};

/* What became of a reaped I/O in account_reaped(). */
enum reaped { REAPED_SPECIAL, REAPED_WRONG, REAPED_COUNTED, REAPED_OUTSIDE };

/*
 * The accounting of one reaped I/O that the closed and the paced loop share: a flush or a trim
 * to its own figures, a failure (the thread stops), a counted completion (measured: the loop's
 * own rule, the phase or a bytes-bound share's tag) into hist and the tally, else warm-up or
 * cool-down. The caller adds its own (the paced loop's response time and lag, a share's end)
 * on REAPED_COUNTED, then hands the I/O to the trace.
 */
static inline __attribute__((always_inline)) enum reaped
account_reaped(struct iom_worker *w, struct iom_io *io, bool special, bool measured, int phase,
	       bool *stopping, struct tally *t, char *msg, size_t len)
{
	unsigned d = io->op;

	io->phase = IOM_IO_UNCOUNTED;
	if (__builtin_expect(special, 0) && io->op > IOM_OP_WRITE) {
		*stopping |= account_special(w, io, phase);
		return REAPED_SPECIAL;
	}
	if (went_wrong(w, io, d, msg, len)) {
		*stopping = true;
		return REAPED_WRONG;
	}
	if (!measured) {
		count_outside(w, io, phase);
		return REAPED_OUTSIDE;
	}
	io->phase = IOM_IO_MEASURED;
	iom_hist_record(w->hist[d], io->complete_ns - io->submit_ns);
	t->ios[d]++;
	t->bytes[d] += io->len;
	if (__builtin_expect(w->nlines != 0, 0))
		count_line(w, io, d);
	t->counted++;
	t->stamp = IOM_MAX(t->stamp, io->complete_ns);
	return REAPED_COUNTED;
}

static int run_loop(struct iom_worker *w)
{
	const struct iom_worker_conf *c = w->conf;
	const struct iom_worker_hooks *hooks = c->hooks;
	struct iom_engine *e = &w->engine;
	struct iom_io **free_slots = w->free_slots, **done = w->done;
	const unsigned depth = e->depth;
	const bool bytes_bound = c->bytes != 0;
	const bool shaped = w->data_tmpl != NULL; /* data other than random */
	const bool special = w->xhist[0] != NULL; /* fsync_every or trim_pct */
	const struct iom_policy policy = iom_policy_resolve(c->policy);
	const unsigned batch = IOM_MIN(policy.submit_batch, depth);
	/* the trace takes the reaped batch at once (flushes and trims are not recorded, so a cell
	 * with them hands over one I/O at a time) */
	const bool record_batch = hooks && hooks->record_batch && !special;
	/* the adaptive wait, for engines that wait for a number of completions */
	const bool adaptive = iom_policy_adaptive(&policy) &&
			      iom_engine_has(c->wl.engine, IOM_ENGINE_CAP_POLICY);
	struct iom_reap_adapt adapt;
	uint64_t share_issue = w->share_ios; /* counted I/Os still to issue … */
	uint64_t share_left = share_issue;    /* … and to complete */
	struct tally t = { 0 };
	unsigned nfree = depth, in_flight = 0;
	char msg[200];                 /* a failed check_read's message */
	bool stopping = false;
	int phase;

	if (adaptive)
		iom_reap_adapt_init(&adapt, depth, iom_now_ns(), iom_process_cpu_ns());
	phase = observe_phase(w, &stopping, bytes_bound && share_left == 0);
	for (;;) {
		unsigned n, i;
		int ret;

		t.counted = 0;
		t.stamp = 0;

		/* 1. refill */
		if (!stopping && nfree && (nfree >= batch || in_flight == 0)) {
			in_flight += nfree;
			while (nfree) {
				struct iom_io *io = free_slots[--nfree];

				place_io(w, io);
				io->tag = 0;
				if (bytes_bound && phase == IOM_PHASE_MEASURE && share_issue) {
					io->tag = 1;
					share_issue--;
				}
				ready_io(w, io, special, shaped, &share_issue);
				iom_engine_queue(e, io);
			}
		}
		if (in_flight == 0) {
			if (stopping) {
				if (adaptive) {
					w->reap_wait_end = 1u << adapt.level;
					w->reap_wait_moves = adapt.moves;
				}
				return 0;
			}
			continue; /* cannot happen: refilled above */
		}

		/* 2. submit and wait */
		ret = iom_engine_submit(e, adaptive ? IOM_MIN(adapt.wait, in_flight)
						    : iom_policy_wait(&policy, in_flight));
		if (ret < 0) {
			fail(w, -ret, "%s engine failed: %s", e->ops->name, strerror(-ret));
			return ret;
		}

		/* 3. reap and account */
		n = iom_engine_reap(e, done, depth);
		if (adaptive && n) {
			adapt.ios += n;
			if (__builtin_expect(done[0]->complete_ns >= adapt.epoch_end, 0))
				iom_reap_adapt_epoch(&adapt, done[0]->complete_ns,
						     iom_process_cpu_ns());
		}
		if (atomic_load_explicit(w->phase, RELAXED) != phase)
			phase = observe_phase(w, &stopping, bytes_bound && share_left == 0);
		for (i = 0; i < n; i++) {
			struct iom_io *io = done[i];
			enum reaped what;

			free_slots[nfree++] = io;
			what = account_reaped(w, io, special,
					      bytes_bound ? io->tag : phase == IOM_PHASE_MEASURE,
					      phase, &stopping, &t, msg, sizeof(msg));
			if (what == REAPED_SPECIAL)
				continue;
			if (what == REAPED_COUNTED && bytes_bound && --share_left == 0)
				atomic_store_explicit(&w->live.done_ns, io->complete_ns, RELAXED);
			if (hooks && hooks->record && !record_batch)
				hooks->record(hooks->record_ctx, w->id, io);
		}
		if (record_batch && n)
			hooks->record_batch(hooks->record_ctx, w->id, done, n);
		in_flight -= n;

		/* 4. publish */
		if (t.counted) {
			publish(w, t.stamp, t.ios, t.bytes);
			if (bytes_bound && share_left == 0 && !stopping)
				atomic_store_explicit(&w->live.state, IOM_WORKER_DONE,
						      memory_order_release);
		}
	}
}

/* ---- the paced loop (docs/load.md) ---------------------------------------------------- */

/*
 * How a paced worker waits (docs/load.md, "Pacing"). Each I/O keeps its exact due time from the
 * schedule (pace_next); what the worker chooses is when it wakes up to issue what is due.
 *
 * - A gap between the thread's I/Os of at least a tick (pace_tick, IOM_PACE_TICK_NS by
 *   default: up to 13.3K IOPS per thread): a wake-up per I/O. The worker sleeps
 *   (clock_nanosleep with a timer slack of 1 ns, or the engine's wait with a timeout when I/O
 *   is in flight, so that completions are reaped while it waits) until a spin before the due
 *   time, then spins on the clock (with I/O in flight: on the engine's reap, so completions
 *   are stamped as they come). The spin is PACE_SPIN_NS (a wake-up on a busy VM comes 50-100
 *   µs late, and a rate near the target's capacity needs that time: psync 64K at 90 % of its
 *   max fell 5 % behind when every short wait slept), but never more than 1/PACE_SPIN_SHARE
 *   of the gap.
 * - A shorter gap: ticks. A wake-up issues, in one submission, every I/O due by then (with a
 *   small queue depth: in turns, as slots free up, without waiting), and the next wake-up is at
 *   the next due time but no sooner than a tick after this one's first issue (a wake-up for
 *   completions issues what is due as well: it costs nothing more). One wake-up costs a VM
 *   6.5-10 µs of CPU; a tick divides that by the I/Os it issues, where a wake-up per I/O
 *   paid it for each (docs/load.md). The price: an I/O is issued up to a tick (plus a
 *   wake-up's latency) after its due time, never before; its response time counts that lag,
 *   from the due time. IOM_PACE_TICK_NS is three quarters of IOM_LATE_NS, so the default tick
 *   alone makes no I/O late, and a wake-up may come 25 µs late before one is. The wait in
 *   between ends at the timeout or when as many I/Os have completed as the tick issued (at
 *   least the closed loop's reap_wait share): a batch's completions are reaped and stamped
 *   together, as the closed loop's are, for about one more wake-up per tick — waiting for the
 *   timeout alone would stamp a completion up to a tick late (a service time of 140 µs where
 *   the device took 35-60). A wait shorter than PACE_SPIN_NS with nothing in flight (a target
 *   near its capacity: psync) spins instead of sleeping.
 *
 * No wait is longer than PACE_MAX_WAIT_NS, so the phase is seen in time at any rate.
 */
#define PACE_SPIN_NS 20000u
#define PACE_SPIN_SHARE 8
#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#else
#define cpu_relax() ((void)0)
#endif
#define PACE_MAX_WAIT_NS 10000000u

static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000u),
			       .tv_nsec = (long)(t % 1000000000u) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* The next due time after *k I/Os of a schedule that starts at start. */
static inline uint64_t pace_next(struct iom_worker *w, struct iom_rng *arr, uint64_t start,
				 uint64_t prev, uint64_t *k)
{
	if (w->conf->wl.arrivals == IOM_ARRIVALS_POISSON) {
		/* an exponential gap: -ln(1 - u) × mean, u uniform in [0, 1) with 53 bits */
		double u = (double)(iom_rng_next(arr) >> 11) * (1.0 / 9007199254740992.0);

		return prev + (uint64_t)(-log1p(-u) * w->pace_gap_ns);
	}
	++*k;
	return start + (uint64_t)((double)*k * w->pace_gap_ns);
}

/* How a paced thread waits: its reap policy, whether it ticks, its spin before a due time. */
struct pacer {
	struct iom_policy policy;
	bool ticked;
	uint64_t spin;
};

/*
 * The paced loop's wait until `wake` (a due time, or a tick's end) when a slot is free: at most
 * PACE_MAX_WAIT_NS; with I/O in flight on the engine's wait (for as many completions as the
 * tick issued, at least the closed loop's share), else asleep; a short last stretch before a
 * due time with nothing in flight is spun. *woke: a wait was begun (the next issue starts a
 * tick). Returns the engine's wait's result (0 without one).
 */
static inline int pace_wait(struct iom_engine *e, const struct pacer *pc, uint64_t wake,
			    unsigned in_flight, unsigned tick_ios, bool *woke)
{
	uint64_t now = iom_now_ns(), wait;
	bool to_next;
	int ret = 0;

	if (wake <= now)
		return 0;
	wait = IOM_MIN(wake - now, (uint64_t)PACE_MAX_WAIT_NS);
	to_next = wait == wake - now;
	*woke = true;
	if (to_next && !pc->ticked)
		wait = wait > pc->spin ? wait - pc->spin : 0;
	else if (to_next && in_flight == 0 && wait <= PACE_SPIN_NS)
		wait = 0; /* ticked: too short to sleep, spun */
	if (in_flight && wait) {
		/* ticked: as many as the tick issued (at least the closed loop's share, at most
		 * those in flight) */
		unsigned nr = iom_policy_wait(&pc->policy, in_flight);

		if (pc->ticked)
			nr = IOM_MIN(IOM_MAX(nr, tick_ios), in_flight);
		ret = iom_engine_wait(e, nr, wait);
	} else if (wait) {
		sleep_until(now + wait);
	}
	if (in_flight == 0 && to_next)
		while (iom_now_ns() < wake)
			cpu_relax();
	return ret;
}

/*
 * The open loop: like run_loop, but an I/O is issued only when it is due (and a slot is free:
 * queue_depth is the most in flight), submitted at once, and each counted completion records
 * its service time (submission → completion) in hist and its response time (due → completion)
 * in resp. A paced run is duration-bound (matrix.c refuses timing.bytes with a rate).
 */
static int run_paced(struct iom_worker *w)
{
	const struct iom_worker_conf *c = w->conf;
	const struct iom_worker_hooks *hooks = c->hooks;
	struct iom_engine *e = &w->engine;
	struct iom_io **free_slots = w->free_slots, **done = w->done;
	const unsigned depth = e->depth;
	const bool shaped = w->data_tmpl != NULL; /* data other than random */
	const bool special = w->xhist[0] != NULL; /* fsync_every or trim_pct */
	/* think_time (no rate): bursts of `burst` I/Os, each due when its burst starts; the next
	 * burst is due think_ns after the last I/O of this one completed */
	const bool think = !(w->pace_gap_ns > 0);
	/* how many completions a wait waits for: the closed loop's reap_wait (of those in flight) */
	const struct iom_policy policy = iom_policy_resolve(c->policy);
	/* ticks (a gap shorter than a tick): a wake-up issues what is due, the next is a tick
	 * later at the soonest; else the spin before each due time: PACE_SPIN_NS, but at most
	 * 1/PACE_SPIN_SHARE of the gap between two I/Os */
	const uint64_t tick = c->wl.pace_tick_ns ? c->wl.pace_tick_ns : IOM_PACE_TICK_NS;
	const bool ticked = !think && w->pace_gap_ns < (double)tick;
	const struct pacer pc = {
		.policy = policy, .ticked = ticked,
		.spin = think ? PACE_SPIN_NS : IOM_MIN((uint64_t)PACE_SPIN_NS,
						       (uint64_t)(w->pace_gap_ns / PACE_SPIN_SHARE)),
	};
	uint64_t tick_at = 0; /* ticked: the soonest time of the next wake-up that issues … */
	bool woke = true;     /* … a tick after the first issue since the last wait for it */
	unsigned tick_ios = 0; /* ticked: the I/Os issued since then */
	const unsigned burst = c->wl.burst ? c->wl.burst : 1;
	unsigned burst_left = burst;
	struct tally t = { 0 };
	unsigned nfree = depth, in_flight = 0;
	struct iom_rng arr;
	uint64_t start, next, k = 0;
	char msg[200];
	bool stopping = false;
	int phase;

	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	iom_rng_seed(&arr, iom_mix64(iom_mix64(c->seed + w->id) ^ UINT64_C(0xa77177a15)));
	/* the threads' schedules interleave: thread t starts t/threads of a gap later */
	start = iom_now_ns() + (uint64_t)(w->pace_gap_ns * w->id /
					  (c->run_threads ? c->run_threads : c->wl.threads));
	next = start;
	if (c->wl.arrivals == IOM_ARRIVALS_POISSON && !think)
		next = pace_next(w, &arr, start, start, &k);
	phase = observe_phase(w, &stopping, false);
	for (;;) {
		unsigned n, i, queued = 0;
		uint64_t now = iom_now_ns();
		int ret;

		t.counted = 0;
		t.stamp = 0;

		/* 1. issue what is due */
		while (!stopping && nfree && next <= now) {
			struct iom_io *io = free_slots[--nfree];

			uint64_t no_share = 0;

			place_io(w, io);
			io->tag = 0;
			ready_io(w, io, special, shaped, &no_share);
			w->due[io->slot] = next;
			iom_engine_queue(e, io);
			queued++;
			if (!think)
				next = pace_next(w, &arr, start, next, &k);
			else if (--burst_left == 0)
				next = UINT64_MAX; /* until the burst has completed */
		}
		in_flight += queued;
		if (ticked && queued) {
			if (woke) {
				tick_at = now + tick;
				tick_ios = 0;
				woke = false;
			}
			tick_ios += queued;
		}
		if (in_flight == 0 && stopping)
			return 0;

		/* 2. submit, then wait: for a completion when the queue is full (or draining),
		 * else for the next I/O's time, reaping what completes meanwhile */
		ret = iom_engine_submit(e, 0);
		if (ret == 0 && in_flight && (stopping || !nfree || !e->ops->wait)) {
			ret = iom_engine_submit(e, 1);
		} else if (ret == 0 && !stopping) {
			/* ticked: the next due time, but a tick after this tick's first issue at
			 * the soonest */
			ret = pace_wait(e, &pc, ticked ? IOM_MAX(next, tick_at) : next, in_flight,
					tick_ios, &woke);
		}
		if (ret < 0) {
			fail(w, -ret, "%s engine failed: %s", e->ops->name, strerror(-ret));
			return ret;
		}

		/* 3. reap and account */
		n = iom_engine_reap(e, done, depth);
		if (atomic_load_explicit(w->phase, RELAXED) != phase)
			phase = observe_phase(w, &stopping, false);
		for (i = 0; i < n; i++) {
			struct iom_io *io = done[i];
			enum reaped what;

			free_slots[nfree++] = io;
			what = account_reaped(w, io, special, phase == IOM_PHASE_MEASURE, phase,
					      &stopping, &t, msg, sizeof(msg));
			if (what == REAPED_SPECIAL)
				continue;
			if (what == REAPED_COUNTED) {
				uint64_t due = w->due[io->slot];
				uint64_t lag = io->submit_ns > due ? io->submit_ns - due : 0;

				iom_hist_record(w->resp[io->op],
						io->complete_ns - IOM_MIN(due, io->submit_ns));
				if (lag > IOM_LATE_NS)
					w->late_ios++;
				w->max_lag_ns = IOM_MAX(w->max_lag_ns, lag);
			}
			if (hooks && hooks->record_due)
				hooks->record_due(hooks->record_ctx, w->id, io,
						  IOM_MIN(w->due[io->slot], io->submit_ns));
			else if (hooks && hooks->record)
				hooks->record(hooks->record_ctx, w->id, io);
		}
		in_flight -= n;
		if (think && burst_left == 0 && in_flight == 0) {
			next = iom_now_ns() + c->wl.think_ns;
			burst_left = burst;
		}

		/* 4. publish */
		if (t.counted)
			publish(w, t.stamp, t.ios, t.bytes);
	}
}

void *iom_worker_main(void *arg)
{
	struct iom_worker *w = arg;
	int ret = prepare(w);

	if (ret < 0) {
		w->error_code = -ret;
		atomic_store_explicit(&w->live.state, IOM_WORKER_FAILED, memory_order_release);
	} else {
		atomic_store_explicit(&w->live.state, IOM_WORKER_RUNNING, memory_order_release);
	}
	gate_arrive(w->gate);
	if (ret == 0 && atomic_load_explicit(w->phase, memory_order_acquire) != IOM_PHASE_STOP)
		ret = w->resp[0] ? run_paced(w) : run_loop(w);
	iom_engine_release(&w->engine);
	free_io(w);
	if (ret == 0 && atomic_load_explicit(&w->live.state, RELAXED) != IOM_WORKER_FAILED)
		atomic_store_explicit(&w->live.state, IOM_WORKER_EXITED, memory_order_release);
	return NULL;
}
