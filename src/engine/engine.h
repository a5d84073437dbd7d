/* SPDX-License-Identifier: MIT */
/*
 * engine — how an I/O reaches the kernel, behind one small table of function pointers per
 * engine (fio's shape): io_uring (engine_uring.c, the only file that includes <liburing.h>),
 * libaio (engine_aio.c, the only file that includes <libaio.h>: io_submit/io_getevents), psync
 * (engine_psync.c: pread/pwrite, one I/O at a time) and null (engine_null.c: completes every
 * I/O at once without a system call, so it measures iomatrix's own overhead).
 *
 * The registry (engine.c, iom_engines[]) has one row per engine: its name as the matrix writes
 * it, what it can do (IOM_ENGINE_CAP_*), its operations and the group of matrix keys it owns
 * (io_uring = { submit_batch; reap_wait; sqpoll; iopoll; }). Code above this module asks a
 * capability (iom_engine_has()) and never compares an engine's name or kind; adding an engine
 * is its file, its row and a Makefile line (docs/architecture.md).
 *
 * One engine instance belongs to one worker thread and is only ever touched by it (io_uring's
 * SINGLE_ISSUER depends on that: init runs in the worker thread). The worker owns the I/O slots
 * (struct iom_io) and their aligned buffers; the engine only borrows them between queue() and
 * the reap() that hands them back.
 *
 * The cycle, repeated by the worker:
 *
 *   queue(io) … queue(io)   put I/Os in the engine's submission queue; no system call
 *   submit(wait_nr)         one clock read stamps every queued I/O's submit_ns, then one system
 *                           call (io_uring_enter) both submits them and waits until at least
 *                           wait_nr completions are available (0: do not wait)
 *   reap(done, max)         hands back up to max completed I/Os without waiting; one clock read
 *                           per reaped batch stamps their complete_ns; res is the byte count or
 *                           -errno
 *
 * Submit and wait are one call because io_uring does both in one system call; "wait for at
 * least min, return up to max" is submit(min) followed by reap(max). Latency is
 * complete_ns − submit_ns in nanoseconds: from just before the submitting system call to just
 * after the completion was seen — fio's `lat` (fio stamps when the I/O enters its queue, a few
 * ns earlier; both stamp completion once per reaped batch). psync has no batches: it stamps
 * around each pread/pwrite. The hot path allocates nothing, takes no lock and makes no system
 * call beyond the I/O itself and the clock.
 */
#ifndef IOM_ENGINE_H
#define IOM_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* The direction of an I/O; equal to IOM_DIR_READ and IOM_DIR_WRITE of result.h. */
enum iom_op {
	IOM_OP_READ = 0,
	IOM_OP_WRITE = 1,
	/* Only in cells with fsync_every or trim_pct, on engines with the capability: */
	IOM_OP_FLUSH = 2, /* fdatasync of the target; res 0 */
	IOM_OP_TRIM = 3,  /* discard [offset, offset + len) (a file: punch a hole); res 0 */
};

/* How the worker counted a completed I/O (the numbers of trace.h's phases). */
enum iom_io_phase {
	IOM_IO_UNCOUNTED = 0, /* failed, or not yet completed */
	IOM_IO_WARMUP = 1,
	IOM_IO_MEASURED = 2,  /* counted in the run's results */
	IOM_IO_COOLDOWN = 3,  /* after the window (also a bytes-bound thread past its share) */
};

/* One I/O slot. The worker fills buf, offset, len, slot and op before queue(); the engine fills
 * submit_ns, complete_ns and res; the worker sets phase when it accounts the completion. */
struct iom_io {
	void *buf;            /* len bytes inside the worker's buffer area */
	uint64_t offset;
	uint64_t submit_ns;   /* iom_now_ns() just before the submitting system call */
	uint64_t complete_ns; /* iom_now_ns() when the completion was reaped */
	int32_t res;          /* bytes transferred, or -errno */
	uint32_t len;
	uint16_t slot;        /* index of this slot's buffer (its registered-buffer index) */
	uint8_t op;           /* enum iom_op */
	uint8_t tag;          /* the worker's own use (counted in a bytes-bound window) */
	uint8_t phase;        /* enum iom_io_phase, set before the record hook sees the I/O */
	uint8_t line;         /* the worker's: the access spec's line of the I/O (0 without) */
};

/* Setup switches. The NO_* ones are for tests and experiments, 0 in real use (every one then
 * falls back by itself when the kernel or the limits refuse it); SQPOLL and IOPOLL are the
 * matrix's io_uring.sqpoll and io_uring.iopoll, and do not fall back: refused, init fails. */
enum {
	IOM_ENGINE_NO_FIXED_BUFFERS = 1u << 0, /* io_uring: do not register the buffers */
	IOM_ENGINE_NO_FIXED_FILES = 1u << 1,   /* io_uring: do not register the file */
	IOM_ENGINE_NO_SETUP_FLAGS = 1u << 2,   /* io_uring: no SINGLE_ISSUER / DEFER_TASKRUN */
	IOM_ENGINE_SQPOLL = 1u << 3,           /* io_uring: a kernel thread polls the SQ */
	IOM_ENGINE_IOPOLL = 1u << 4,           /* io_uring: completions are polled, not IRQs */
};

/* The setup flags a matrix's engine keys (io_uring.sqpoll and iopoll) ask for. */
static inline unsigned iom_engine_opts_flags(const struct iom_engine_opts *o)
{
	return (o->sqpoll ? IOM_ENGINE_SQPOLL : 0u) | (o->iopoll ? IOM_ENGINE_IOPOLL : 0u);
}

/* What an engine can do: the capabilities of its registry row. */
enum {
	IOM_ENGINE_CAP_FD = 1u << 0,            /* needs an open target (a file descriptor) */
	IOM_ENGINE_CAP_QUEUES = 1u << 1,        /* keeps more than one I/O in flight: a queue
						 * depth above 1 means something */
	IOM_ENGINE_CAP_POLICY = 1u << 2,        /* submit() waits for wait_nr completions: the
						 * submit/reap policy (submit_batch, reap_wait)
						 * applies and is named in the run's notes */
	IOM_ENGINE_CAP_FIXED_BUFFERS = 1u << 3, /* can register its buffers with the kernel */
	IOM_ENGINE_CAP_POLLED = 1u << 4,        /* can poll for completions (IOM_ENGINE_IOPOLL) */
	IOM_ENGINE_CAP_DATA = 1u << 5,          /* moves data (null does not: nothing to verify) */
	IOM_ENGINE_CAP_FLUSH = 1u << 6,         /* does IOM_OP_FLUSH (fsync_every) */
	IOM_ENGINE_CAP_TRIM = 1u << 7,          /* does IOM_OP_TRIM (trim_pct) */
};

struct iom_engine_setup {
	int fd;               /* the open target (ignored by null) */
	unsigned depth;       /* queue depth asked for, ≥ 1 */
	uint32_t block_size;
	void *buf;            /* iom_engine_depth(kind, depth) × block_size bytes, 4096-aligned,
	                       * outliving the engine; slot i is at buf + i × block_size */
	unsigned flags;       /* IOM_ENGINE_NO_* */
};

#define IOM_ENGINE_NOTES 192

struct iom_engine;

struct iom_engine_ops {
	const char *name;
	unsigned max_depth; /* most I/Os the engine keeps in flight (0: no limit of its own) */
	/* Sets e up for s; fills e->depth (the depth it will take, ≤ s->depth) and e->notes.
	 * 0 or -errno with the reason in err. */
	int (*init)(struct iom_engine *e, const struct iom_engine_setup *s, char *err, size_t errlen);
	/* Queues io. At most e->depth I/Os are queued or in flight at any time. */
	void (*queue)(struct iom_engine *e, struct iom_io *io);
	/* Stamps and submits every queued I/O, then waits until at least wait_nr completions are
	 * available (wait_nr ≤ the number in flight). 0 or -errno (the engine failed, not an I/O). */
	int (*submit)(struct iom_engine *e, unsigned wait_nr);
	/* Moves up to max completed I/Os into done[], stamped; never waits. Returns how many. */
	unsigned (*reap)(struct iom_engine *e, struct iom_io **done, unsigned max);
	/* Paced runs only (docs/load.md): waits until wait_nr completions are available (at least
	 * 1, at most the number in flight) or timeout_ns have passed, whichever is first; the
	 * queue was submitted before. 0 or -errno. NULL for an engine whose I/O is complete when
	 * submit returns (psync, null). */
	int (*wait)(struct iom_engine *e, unsigned wait_nr, uint64_t timeout_ns);
	/* Frees what init set up; every I/O must have been reaped. */
	void (*release)(struct iom_engine *e);
};

struct iom_engine {
	const struct iom_engine_ops *ops;
	void *priv;                     /* the engine's own state */
	unsigned depth;                 /* effective queue depth */
	bool registered_buffers;        /* io_uring fixed buffers are in use */
	char notes[IOM_ENGINE_NOTES];   /* setup facts: flags used, fallbacks and why */
};

extern const struct iom_engine_ops iom_engine_uring_ops;
extern const struct iom_engine_ops iom_engine_aio_ops;
extern const struct iom_engine_ops iom_engine_psync_ops;
extern const struct iom_engine_ops iom_engine_null_ops;

/* One row of the registry. */
struct iom_engine_info {
	const char *name;                 /* as the matrix writes it: a choice of key engine */
	unsigned caps;                    /* IOM_ENGINE_CAP_* */
	const struct iom_engine_ops *ops;
	int keys;                         /* the enum iom_section of the key group it owns
					   * (named as the engine), or -1: none */
};

/* The registry, indexed by enum iom_engine_kind (the index of the engine key's choice). */
extern const struct iom_engine_info iom_engines[IOM_ENGINE_COUNT];

/* The row of kind; an out-of-range kind gets the default engine's (io_uring). */
static inline const struct iom_engine_info *iom_engine_info(enum iom_engine_kind kind)
{
	return &iom_engines[(unsigned)kind < IOM_ENGINE_COUNT ? kind : IOM_ENGINE_IO_URING];
}

/* Whether engines of kind have every capability of caps (IOM_ENGINE_CAP_*). */
static inline bool iom_engine_has(enum iom_engine_kind kind, unsigned caps)
{
	return (iom_engine_info(kind)->caps & caps) == caps;
}

/* The operations of an engine kind. */
static inline const struct iom_engine_ops *iom_engine_ops_of(enum iom_engine_kind kind)
{
	return iom_engine_info(kind)->ops;
}

/* What this kernel's io_uring offers, for the study's record: "features 0x3fff, 48 of 58
 * opcodes" (io_uring_params.features, io_uring_get_probe); NULL when io_uring cannot be set up.
 * The caller frees it. */
char *iom_uring_facts(void);

/* The engine named name ("io_uring", "libaio", …) as *kind; -ENOENT when there is none. */
int iom_engine_find(const char *name, enum iom_engine_kind *kind);

/*
 * Checks, before a run, what the setup flags ask of the target open at fd (direct: opened with
 * O_DIRECT): IOM_ENGINE_IOPOLL needs O_DIRECT and a block device with poll queues (for a file,
 * the device of its filesystem), read from /sys/block/X/queue/io_poll — without them the kernel
 * refuses every I/O or spins in polling for completions that come by interrupt. Returns 0, or
 * -EOPNOTSUPP/-EINVAL with a message in err that names the sysfs file and what to change.
 * sysfs is the root of /sys (NULL: "/sys"; tests pass a fake tree).
 */
int iom_engine_check(enum iom_engine_kind kind, int fd, unsigned flags, bool direct,
		     const char *sysfs, char *err, size_t errlen);

/* The queue depth an engine of kind takes when depth is asked for: the number of buffer slots
 * the caller provides. */
static inline unsigned iom_engine_depth(enum iom_engine_kind kind, unsigned depth)
{
	unsigned max = iom_engine_ops_of(kind)->max_depth;

	return max && depth > max ? max : depth;
}

/* Sets up e (caller's storage) as an engine of kind; the caller releases it with
 * iom_engine_release() in the same thread. 0 or -errno with a message in err: -EINVAL for a
 * depth of 0, checked here for every engine. */
int iom_engine_init(struct iom_engine *e, enum iom_engine_kind kind,
		    const struct iom_engine_setup *s, char *err, size_t errlen);

static inline void iom_engine_queue(struct iom_engine *e, struct iom_io *io)
{
	e->ops->queue(e, io);
}

static inline int iom_engine_submit(struct iom_engine *e, unsigned wait_nr)
{
	return e->ops->submit(e, wait_nr);
}

static inline unsigned iom_engine_reap(struct iom_engine *e, struct iom_io **done, unsigned max)
{
	return e->ops->reap(e, done, max);
}

/* The engine's wait for wait_nr completions with a timeout (ops.wait); 0 at once when it has
 * none. */
static inline int iom_engine_wait(struct iom_engine *e, unsigned wait_nr, uint64_t timeout_ns)
{
	return e->ops->wait ? e->ops->wait(e, wait_nr, timeout_ns) : 0;
}

/* Releases what iom_engine_init() set up; safe on a zeroed or already released engine. */
static inline void iom_engine_release(struct iom_engine *e)
{
	if (e->ops && e->priv)
		e->ops->release(e);
	e->priv = NULL;
}

#endif
