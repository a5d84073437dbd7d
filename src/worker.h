/* SPDX-License-Identifier: MIT */
/*
 * worker — one thread's I/O loop: it makes the offsets, keeps queue_depth I/Os in flight through
 * its engine, and records every completion into its own read and write histograms. Nothing in
 * the loop is shared for writing with another thread, and the loop allocates nothing, takes no
 * lock and makes no system call beyond the engine's (see engine.h).
 *
 * The run controller (run.c) steers workers only through the phase (an atomic int it sets and
 * each worker loads, relaxed, once per reaped batch) and reads them only through each worker's
 * `live` block (measured counts, the phase last acted on, state), which sits on its own cache
 * line and is written with plain relaxed stores by its one writer.
 *
 * Offsets: `random` draws a block uniformly from [0, region) (iom_rng_below over region/bs
 * blocks) from a generator seeded with iom_mix64(seed + thread); `sequential` walks the
 * thread's own slice [t·region/threads, (t+1)·region/threads), both ends aligned down to the
 * block size, wrapping at its end. random_pct between 1 and 99 (the mixed generator) mixes the two as
 * IOMeter's "% random" and fio's percentage_random do: each I/O is random with that chance
 * (drawn from a third generator), else it starts where the thread's previous I/O ended; the
 * sequential runs wrap at the end of the whole region, and a thread starts at its slice.
 * align (DiskSpd's -r<align>) puts random offsets on multiples of align instead of the block
 * size: slot i of (region − bs) / align + 1 is offset i·align; sequential I/O ignores it.
 * distribution picks the random slot from a table (dist.h) instead of uniformly.
 * Sequential I/O with thread_stride (DiskSpd's -T) starts thread t at t·stride and walks the
 * whole region; with shared_sequential (DiskSpd's -si) all threads take the next block of one
 * stream (an atomic counter of the run's), wrapping at the region's end. read_pct decides each I/O from a second generator (so the
 * same seed gives the same offsets whatever the mix): a draw below read_pct of 100 is a read;
 * 0 and 100 draw nothing and are exact.
 *
 * What counts: in a duration-bound window, an I/O counts when it completes while the worker
 * sees the phase MEASURE. In a bytes-bound window (conf.bytes > 0) each thread has a share of
 * whole blocks; an I/O counts when it was issued in MEASURE as part of the share, so the
 * threads together complete exactly their shares. A thread whose share is complete goes on
 * with uncounted I/O (the load stays the same for the others) until the controller moves on.
 * Uncounted completions are warm-up I/O before MEASURE and cool-down I/O after it.
 *
 * The submit/reap policy (struct iom_policy) is explicit: refill the free slots only when at
 * least submit_batch are free, and let each submit wait for a number of completions — fixed,
 * or (the default) the adaptive wait's, which the loop measures as it runs (below).
 *
 * A paced run (wl.rate_iops or rate_mb_s, and think_time; docs/load.md) has a loop of its own,
 * chosen once per run, so the closed loop above costs what it did: each I/O is due at a time of
 * the thread's schedule and issued then when a slot is free (queue_depth is the most in
 * flight); service time (submission → completion) goes into hist, response time (due →
 * completion) into resp; think_time pauses a thread after each burst of I/Os.
 */
#ifndef IOM_WORKER_H
#define IOM_WORKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dist.h"
#include "engine/engine.h"
#include "hist.h"
#include "keys.h"
#include "rng.h"

enum iom_phase { IOM_PHASE_WARMUP, IOM_PHASE_MEASURE, IOM_PHASE_COOLDOWN, IOM_PHASE_STOP };

/*
 * How a worker batches. Each turn of the loop refills every free slot when at least
 * submit_batch slots are free (or nothing is in flight), submits them, and waits in the same
 * system call until wait_nr completions are available, then reaps every completion available:
 *     a fixed policy: wait_nr = wait_min ? wait_min : in_flight / wait_div,
 *     the adaptive wait (both 0, the default): wait_nr = the adaptive wait's (below),
 * clamped to [1, in_flight]. A zero submit_batch takes the default below.
 *
 * No fixed wait suits every device. Waiting for more completions per wake-up costs less CPU
 * per I/O (fewer wake-ups and system calls), but the queue drains further while the thread
 * waits: on a virtio disk 1M sequential QD8 reached 0.95× fio's MB/s waiting for in_flight/2
 * and 1.01× waiting for one; on a loop device in_flight/2 made 1.06× the IOPS of in_flight/4.
 * Where the kernel completes the I/O in io_uring's worker threads on the same CPU (zram: the
 * block driver is synchronous and refuses non-blocking submission) the share of CPU each
 * wake-up takes from those workers decides, and the best wait moved between 1 and in_flight/2
 * with the machine's load (docs/performance.md).
 *
 * The adaptive wait (struct iom_reap_adapt) therefore measures instead of guessing. It starts
 * with a survey of every wait: epochs of IOM_ADAPT_EPOCH_NS at each in turn, up the waits and
 * down again, IOM_ADAPT_SURVEY_PASSES times, and takes the one that completed the most I/Os per
 * second (or, within IOM_ADAPT_GAIN of those, IOM_ADAPT_GAIN less CPU per I/O). A climb from
 * one completion alone stalls where the I/Os per second dip before they rise (filled zram QD32:
 * waiting for 2 made 0.9x the I/Os of waiting for 1, waiting for 16 1.6x). From there it
 * compares the wait it has (w) with its double (or its half)
 * over pairs of epochs of IOM_ADAPT_EPOCH_NS, one epoch of each (IOM_ADAPT_EPOCHS in all, in
 * the order A B B A A B B A), counting the completions, the wall time and the process's CPU
 * time (every thread: the io_uring workers too) of each. The other wait wins when it completes
 * IOM_ADAPT_GAIN more I/Os per second over the probe and more in IOM_ADAPT_PAIRS_WON of its
 * pairs, or as many (within IOM_ADAPT_GAIN) for IOM_ADAPT_GAIN less CPU per I/O, less in as
 * many pairs — a busy machine's burst in one epoch does not decide. It then probes on in the
 * same direction. When neither neighbour wins it holds its wait for a hold of
 * IOM_ADAPT_HOLD_NS, doubled after each probe that confirms it (up to IOM_ADAPT_HOLD_MAX_NS),
 * and probes again: a device or a machine whose best wait changes is followed. Waits are the
 * powers of two from 1 to depth/2.
 *
 * A matrix sets the policy with io_uring's keys submit_batch and reap_wait ("adaptive", a
 * number, or a fraction "1/N"). Refilling later (submit_batch > 1) only lowered the mean queue
 * depth.
 */
struct iom_policy {
	unsigned submit_batch;
	unsigned wait_min;
	unsigned wait_div;
};
#define IOM_POLICY_SUBMIT_BATCH 1

/* The policy a matrix's engine keys (io_uring.submit_batch and reap_wait) set. */
static inline struct iom_policy iom_policy_of(const struct iom_engine_opts *o)
{
	return (struct iom_policy){ .submit_batch = o->submit_batch, .wait_min = o->reap_wait,
				    .wait_div = o->reap_wait_div };
}

/* p with its zero submit_batch replaced by the default. */
static inline struct iom_policy iom_policy_resolve(struct iom_policy p)
{
	if (!p.submit_batch)
		p.submit_batch = IOM_POLICY_SUBMIT_BATCH;
	return p;
}

/* Whether p leaves the wait to the adaptive wait (neither a number nor a fraction). */
static inline bool iom_policy_adaptive(const struct iom_policy *p)
{
	return !p->wait_min && !p->wait_div;
}

/* The completions a fixed policy's wait waits for with in_flight I/Os in flight (p resolved);
 * one for the adaptive policy (its wait is the adaptive wait's). */
static inline unsigned iom_policy_wait(const struct iom_policy *p, unsigned in_flight)
{
	unsigned n = p->wait_min ? p->wait_min : p->wait_div ? in_flight / p->wait_div : 1;

	if (n < 1)
		n = 1;
	return n < in_flight ? n : in_flight;
}

#define IOM_ADAPT_EPOCH_NS 3000000u        /* one epoch of a probe: 3 ms */
#define IOM_ADAPT_EPOCHS 8u                /* epochs of a probe: 4 pairs, one of each wait */
#define IOM_ADAPT_PAIRS_WON 3u             /* pairs the other wait must win, of the 4 … */
#define IOM_ADAPT_GAIN 0.03                /* … and what it must win by over the probe */
#define IOM_ADAPT_HOLD_NS 100000000u       /* the first hold: 100 ms */
#define IOM_ADAPT_HOLD_MAX_NS 1600000000u  /* the longest hold */
#define IOM_ADAPT_SURVEY_PASSES 4u         /* the survey: up, down, up, down the waits */
#define IOM_ADAPT_LEVELS 16u               /* waits 1 to 1 << 15 */

/* The adaptive wait's state (the caller's storage; no allocation, no lock). */
struct iom_reap_adapt {
	unsigned wait;            /* the completions the next waits wait for (at most in flight) */
	unsigned level, top;      /* the held wait is 1 << level; 1 << top the largest */
	unsigned cand;            /* probing: the level compared with level */
	int dir;                  /* probing: +1 up, -1 down; 0: holding */
	bool surveying;           /* the first epochs: every wait in turn */
	bool came_up;             /* the last move was up (so down needs no probe) */
	unsigned epoch;           /* epochs of this probe done (even: level's, odd: cand's) */
	uint64_t hold_ns;         /* the next hold */
	uint64_t epoch_end;       /* when the current epoch (or hold) ends, ns */
	uint64_t start_ns, start_cpu, ios; /* the current epoch's start, and completions so far */
	double sum_ios[2], sum_ns[2], sum_cpu[2]; /* this probe's sums: [0] level, [1] cand */
	double first_rate, first_cpu; /* the first epoch of the current pair: I/Os per ns, CPU
				       * ns per I/O */
	unsigned rate_won, cpu_won; /* pairs whose candidate epoch had the higher rate, the
				     * lower CPU per I/O */
	unsigned moves, probes;   /* how often the wait changed, and probes run (the notes) */
	double lvl_ios[IOM_ADAPT_LEVELS], lvl_ns[IOM_ADAPT_LEVELS],
		lvl_cpu[IOM_ADAPT_LEVELS]; /* the survey's sums, per level */
};

/* Sets a up for a queue of depth I/Os, at time now_ns with the process's CPU time cpu_ns: the
 * survey of every wait starts, at one completion. */
void iom_reap_adapt_init(struct iom_reap_adapt *a, unsigned depth, uint64_t now_ns,
			 uint64_t cpu_ns);

/* Ends the epoch due at a->epoch_end: now_ns is the latest reap stamp (≥ a->epoch_end), cpu_ns
 * the process's CPU time now, a->ios the completions reaped since the epoch began. Sets
 * a->wait and the next epoch. */
void iom_reap_adapt_epoch(struct iom_reap_adapt *a, uint64_t now_ns, uint64_t cpu_ns);

/* The process's CPU time (user + system of every thread), ns: the adaptive wait's CPU clock. */
uint64_t iom_process_cpu_ns(void);

/* "submit_batch 1, reap_wait 1/4" or "…, reap_wait adaptive": p (resolved) as the matrix keys
 * write it. */
void iom_policy_describe(const struct iom_policy *p, char *buf, size_t len);

/*
 * Hooks for the modules that look at every I/O (traces; data verification).
 * A NULL member costs one predictable branch. They run in the worker thread, in the hot path:
 * they must not block, allocate or lock. ctx is shared by all workers; thread tells them apart.
 */
struct iom_worker_hooks {
	void *ctx;
	/* Every completed I/O, counted or not, with its stamps, result and io->phase (how it was
	 * counted) — a trace record. It is called with record_ctx, not ctx, so that a trace and a
	 * verifier can each keep their own state. */
	void *record_ctx;
	void (*record)(void *ctx, unsigned thread, const struct iom_io *io);
	/* The closed loop's reaped batch at once (ios[0 .. n), in order, each as record would get
	 * it), instead of record, with record_ctx, in cells without flushes or trims. */
	void (*record_batch)(void *ctx, unsigned thread, struct iom_io *const *ios, unsigned n);
	/* A paced run's (docs/load.md) record, with when the I/O was due; called instead of
	 * record when set, with record_ctx. */
	void (*record_due)(void *ctx, unsigned thread, const struct iom_io *io, uint64_t due_ns);
	/* A write about to be queued: may write a header into each block of io->buf. When NULL
	 * the worker stamps each 4 KiB of the buffer with the offset and a write sequence so that
	 * deduplicating storage sees unique blocks. */
	void (*prepare_write)(void *ctx, unsigned thread, struct iom_io *io);
	/* A read that completed in full: 0, or -EILSEQ with what did not match in err (the run
	 * fails with it). */
	int (*check_read)(void *ctx, unsigned thread, const struct iom_io *io, char *err,
			  size_t errlen);
};

/* A paced I/O submitted more than this after it was due is late (docs/load.md). */
#define IOM_LATE_NS 100000u
/* The default pace_tick (keys.c spells it "75us"): three quarters of IOM_LATE_NS, so that the
 * tick leaves a quarter of the late mark to a wake-up's own latency (docs/load.md, "Pacing"). */
#define IOM_PACE_TICK_NS 75000u

/* The offered rate of conf in I/O per second (rate_iops, or rate_mb_s over the block size);
 * 0 for a closed loop. */
struct iom_worker_conf;
double iom_worker_rate(const struct iom_worker_conf *c);

/* What every worker of a run shares, read-only while they run. */
struct iom_worker_conf {
	int fd;                    /* the open target (unused by the null engine) */
	uint64_t region;           /* I/O goes to [0, region) */
	struct iom_workload wl;    /* the cell's values (keys.h); wl.direct: the fd has O_DIRECT
				    * (for the hint in error messages) */
	unsigned engine_flags;     /* IOM_ENGINE_NO_* */
	uint64_t seed;             /* the run's seed; thread t uses iom_mix64(seed + t) */
	uint64_t bytes;            /* bytes-bound window: measured bytes of all threads; 0: duration */
	struct iom_policy policy;
	const struct iom_worker_hooks *hooks; /* may be NULL */
	/* An access specification (NULL: none). Each I/O picks line L with chance
	 * share/100 (from a generator of its own), and takes its size, direction and offset from
	 * line L's generator: a struct iom_worker_gen of the workload with the line's values in
	 * place (block_size, read_pct, random_pct, align; inherited where the line leaves one
	 * out), so each line has its own sequential stream. The buffers fit the largest line. */
	const struct iom_access_spec *access;
	/* wl.shared_sequential: the run's one sequential stream, the index of the next
	 * block (run.c owns it; every worker takes blocks with a relaxed fetch-add). */
	_Atomic uint64_t *shared_next;
	bool live_warmup;          /* steady state: publish warm-up counts in live.warm_ios (steady) */
	/* A target with several paths: each path has a conf of its own (fd, region,
	 * wl.threads the threads on it, seed, bytes), and worker id i is thread i / path_div of
	 * it for offsets and shares (its seeds stay per id). 0: one path. */
	unsigned path_div;
	/* The run's threads over all its paths, over which a paced run spreads its rate (pacing
	 * with several paths); 0: wl.threads. */
	unsigned run_threads;
};

/*
 * How a generator places offsets, fixed for the run: the two plain workloads each have their
 * own mode, so they cost what they always did (one branch on the mode); everything the workload
 * knobs added (random_pct, align, distributions) takes IOM_GEN_MIXED, out of line.
 */
enum iom_gen_mode {
	IOM_GEN_RANDOM,            /* uniform, aligned to the block size, random_pct 100 */
	IOM_GEN_SEQUENTIAL,        /* the thread's own slice (random_pct 0) */
	IOM_GEN_MIXED,             /* anything else: iom_worker_gen_offset_mixed() */
};

/* The offset and read/write generator of one thread. */
struct iom_worker_gen {
	struct iom_rng off_rng, mix_rng;
	uint64_t blocks;           /* random: region / block size */
	uint64_t lo, hi, next;     /* sequential: the slice [lo, hi) and the next offset */
	uint32_t bs;
	unsigned read_pct;
	enum iom_pattern pattern;
	enum iom_gen_mode mode;
	/* IOM_GEN_MIXED (the mixed generator): a share random_pct of the offsets is random — slot i of
	 * `slots` at i × align — and the rest continue from the previous I/O (next), wrapping at
	 * the region's end (`end`: the last offset a block fits at, plus one). pick_rng decides
	 * which, so the offsets do not change with the read mix. */
	struct iom_rng pick_rng;
	uint64_t slots, end;
	uint64_t align;
	unsigned random_pct;
	struct iom_dist dist;      /* the distribution of random slots; n 0: uniform */
	_Atomic uint64_t *shared;  /* shared_sequential: the run's next block; NULL: own stream */
};

/*
 * Sets up the generator of thread `thread` of c->wl.threads. 0, or -EINVAL with a message when
 * the region holds no block (random) or the thread's slice holds none (sequential), or a zone
 * of the distribution no offset; -ENOMEM when its table cannot be had. Release with
 * iom_worker_gen_release() (a uniform generator holds nothing, but may be released too).
 */
int iom_worker_gen_init(struct iom_worker_gen *g, const struct iom_worker_conf *c, unsigned thread,
			char *err, size_t errlen);

/* Frees what iom_worker_gen_init allocated (a distribution's table); g stays usable only after
 * another init. Safe on a generator whose init failed, and twice. */
void iom_worker_gen_release(struct iom_worker_gen *g);

/* The next offset of an IOM_GEN_MIXED generator (out of line: the plain modes never call it). */
uint64_t iom_worker_gen_offset_mixed(struct iom_worker_gen *g);

/* The next offset: aligned to the block size (random: to align), the whole block inside the
 * region (or slice). */
static inline uint64_t iom_worker_gen_offset(struct iom_worker_gen *g)
{
	uint64_t off;

	if (g->mode == IOM_GEN_RANDOM)
		return iom_rng_below(&g->off_rng, g->blocks) * g->bs;
	if (__builtin_expect(g->mode != IOM_GEN_SEQUENTIAL, 0))
		return iom_worker_gen_offset_mixed(g);
	off = g->next;
	g->next += g->bs;
	if (g->next + g->bs > g->hi)
		g->next = g->lo;
	return off;
}

/* The workload of line l of access spec a: wl with the line's values in place of its own. */
struct iom_workload iom_access_line_workload(const struct iom_workload *wl,
					     const struct iom_access_line *l);

/* The largest block size of c's I/O: its access spec's largest line, else its block size. */
uint32_t iom_worker_max_block(const struct iom_worker_conf *c);

/* Whether the next I/O is a read. */
static inline bool iom_worker_gen_is_read(struct iom_worker_gen *g)
{
	if (g->read_pct >= 100)
		return true;
	if (g->read_pct == 0)
		return false;
	return iom_rng_below(&g->mix_rng, 100) < g->read_pct;
}

/*
 * The write pattern of one block of len bytes for data (enum iom_data and its percentage, as
 * struct iom_workload holds it), from seed: random and dedupe pseudo-random bytes; zeros; and
 * compressible:N% the first (100 - N) % of every 4 KiB (of the block when shorter) pseudo-random,
 * the rest zeros, so that gzip shrinks it by about N %. The worker stamps 16 bytes per 4 KiB of
 * each write on top (offset and sequence; for dedupe a block id), except for zeros.
 */
void iom_worker_data_pattern(void *buf, size_t len, uint32_t data, uint64_t seed);

/* Start gate: workers set up their engines, report ready, and wait until the controller opens
 * it (or sets the phase to STOP to abort). */
struct iom_worker_gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned ready;
	bool open;
};

void iom_worker_gate_init(struct iom_worker_gate *g);
void iom_worker_gate_destroy(struct iom_worker_gate *g);
/* Blocks until n workers reported ready. */
void iom_worker_gate_wait_ready(struct iom_worker_gate *g, unsigned n);
void iom_worker_gate_open(struct iom_worker_gate *g);

enum iom_worker_state {
	IOM_WORKER_STARTING,
	IOM_WORKER_RUNNING,
	IOM_WORKER_DONE,     /* bytes-bound: this thread's share is complete */
	IOM_WORKER_FAILED,   /* error[] says why */
	IOM_WORKER_EXITED,   /* the loop has ended (after RUNNING or DONE) */
};

/* Written by the worker, read by the controller at any time. */
struct iom_worker_live {
	_Atomic uint64_t ios[2], bytes[2]; /* counted so far, by direction */
	_Atomic uint64_t done_ns;          /* bytes-bound: when the share completed */
	_Atomic int phase_seen;            /* the last phase the worker acted on */
	_Atomic int state;                 /* enum iom_worker_state */
	_Atomic uint64_t warm_ios;         /* steady state: warm-up I/Os so far (conf->live_warmup) */
};

struct iom_worker {
	/* Set by iom_worker_init(), read-only afterwards. */
	const struct iom_worker_conf *conf;
	unsigned id;
	_Atomic int *phase;
	struct iom_worker_gate *gate;
	uint64_t share_ios;            /* bytes-bound: counted I/Os this thread must complete */

	/* The worker thread's own; the controller reads them after joining it. */
	struct iom_engine engine;
	void *buf;
	struct iom_io *slots;
	struct iom_io **free_slots, **done;
	struct iom_worker_gen gen;
	struct iom_hist *hist[2];      /* counted latencies, by direction */
	uint64_t warmup_ios, cooldown_ios;
	uint64_t write_seq;            /* writes issued, for the dedup stamp */
	/* data other than random (and some writes): the write pattern of one block, whether each
	 * slot's buffer was last overwritten by a read (then a write copies the pattern back),
	 * and for dedupe the ids given out and their generator. NULL/0 otherwise. */
	void *data_tmpl;
	uint8_t *slot_read;
	uint64_t dedupe_ids;
	struct iom_rng dedupe_rng;
	/* fsync_every and trim_pct: the flushes and trims counted, their latencies ([0] flush,
	 * [1] trim; NULL without either key), the writes since the last flush and the generator
	 * that picks trims. */
	struct iom_hist *xhist[2];
	uint64_t xios[2];
	uint64_t xbytes[2];            /* … and their bytes (a trim's its line's length) */
	uint32_t since_flush;
	struct iom_rng op_rng;
	/* When counted I/O completed (reap stamps, monotonic ns; 0: none yet): the first, the
	 * last, and the longest time between two in a row, [gap_lo, gap_hi) — how run.c finds a
	 * stall (run.c). The worker writes them; the controller reads them after joining it. */
	uint64_t first_ns, last_ns, gap_lo, gap_hi;
	/* The adaptive wait's at the end of the loop (0: a fixed policy or an engine without
	 * one) and how often it moved, for the run's notes. */
	unsigned reap_wait_end, reap_wait_moves;
	/* With an access spec (nlines > 0): a generator per line, the line of each
	 * percent of the picks, and the counted I/O of each line (its latencies, both directions
	 * together; ios and bytes by direction). */
	unsigned nlines;
	struct iom_worker_gen *lines;
	struct iom_rng line_rng;
	uint8_t pick[100];
	struct iom_worker_line {
		struct iom_hist *hist;
		uint64_t ios[2], bytes[2];
	} *line_acc;
	char error[256];               /* why the worker failed … */
	int error_code;                /* … and the errno that goes with it */

	/* A paced run (c->wl.rate_iops or rate_mb_s; docs/load.md), NULL/0 otherwise. Each I/O
	 * is due at a time of the thread's schedule (due[slot] while it is in flight); resp holds
	 * the counted response times, due → completion (hist holds service times, submission →
	 * completion). late_ios counts the counted I/Os submitted more than IOM_LATE_NS after they
	 * were due, max_lag_ns is the largest such delay. */
	double pace_gap_ns;            /* the mean time between two I/Os of this thread */
	uint64_t *due;
	struct iom_hist *resp[2];
	uint64_t late_ios, max_lag_ns;

	_Alignas(64) struct iom_worker_live live;
	char pad_[64];                 /* keeps the next worker's hot data off this line */
};

/*
 * Prepares w as thread `id` of conf (the caller's storage; conf, phase and gate must outlive
 * it): allocates its histograms and sets its share. Buffers and engine are set up by the thread
 * itself. 0, or -ENOMEM when the histograms cannot be had (nothing to release then). Release
 * with iom_worker_release() after the thread was joined.
 */
int iom_worker_init(struct iom_worker *w, const struct iom_worker_conf *conf, unsigned id,
		    _Atomic int *phase, struct iom_worker_gate *gate);

/* The thread's body (pthread_create it with w): sets up buffers and engine, reports ready at
 * the gate, runs the loop until the phase is STOP or an error, drains what is in flight and
 * releases the engine and its I/O buffers and slots (so that a run that ran out of memory has
 * it back as soon as its threads are joined). Its outcome is in w->live.state and w->error;
 * every allocation whose size the matrix controls fails the worker with -ENOMEM (error_code
 * ENOMEM and what it asked for in error), never aborts. */
void *iom_worker_main(void *w);

/* Frees the worker's histograms (and any buffers a thread that never ran still holds). */
void iom_worker_release(struct iom_worker *w);

#endif
