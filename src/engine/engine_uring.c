/* SPDX-License-Identifier: MIT */
/*
 * engine_uring — io_uring, the default engine and the only file that includes <liburing.h>.
 *
 * One ring per worker thread, created in that thread. Setup asks for the most the kernel
 * offers and falls back one step at a time, writing what it got into the engine's notes:
 *   - IORING_SETUP_SINGLE_ISSUER | DEFER_TASKRUN (6.1+: completions are run only when this
 *     one thread waits for them: no interrupts, no cross-CPU wake-ups), else COOP_TASKRUN
 *     (5.19+), else a plain ring — each step taken on EINVAL. On a quiet machine the first
 *     wins (1.11× the IOPS at QD32 on a loop device); on a CPU shared with busy processes
 *     deferred completions wait for the thread to be scheduled and COOP_TASKRUN does better
 *     (docs/performance.md has both measurements);
 *   - the ring fd registered (io_uring_enter skips the fd lookup), else not;
 *   - the target registered as fixed file 0 (no per-I/O file reference), else the plain fd;
 *   - the buffers registered, one per slot (no per-I/O page pinning), else plain buffers — the
 *     memory-lock limit (RLIMIT_MEMLOCK) refuses them to unprivileged users (ENOMEM/EPERM).
 * The matrix's io_uring.sqpoll and io_uring.iopoll add IORING_SETUP_SQPOLL (a kernel thread,
 * iou-sqp-PID, a thread of this process, polls the SQ: submitting makes no system call; it takes
 * none of the task-run flags) and IORING_SETUP_IOPOLL (the waiting submit polls the device for
 * completions; run.c has checked the device has poll queues, engine.c). They do not fall back:
 * refused, init fails and names the key.
 * When no ring can be made at all (ENOSYS; EPERM from the kernel.io_uring_disabled sysctl or a
 * seccomp filter) init fails with the reason and names engine = "psync".
 *
 * The hot path: queue() fills an SQE (no system call); submit() stamps the batch with one
 * clock read and makes one io_uring_enter that submits and waits; reap() walks the CQ ring in
 * place (io_uring_for_each_cqe + io_uring_cq_advance, no system call) and stamps the batch with
 * one clock read.
 */
#include "engine.h"

#include <errno.h>
#include <liburing.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <linux/falloc.h>

#include "util.h"

/* The kernel's limit on SQ entries (IORING_MAX_ENTRIES); the CQ may have twice as many. */
#define MAX_SQ_ENTRIES 32768u
/* How long an SQPOLL thread spins without work before it sleeps (and submit must wake it):
 * longer than any pause of a run's steady state, short enough to idle between runs. */
#define SQ_THREAD_IDLE_MS 1000u

struct uring_engine {
	struct io_uring ring;
	int fd;                  /* the target's fd, or 0: its index among registered files */
	unsigned char sqe_flags; /* IOSQE_FIXED_FILE when the file is registered */
	bool fixed_bufs;
	bool is_block;           /* the target is a block device: a trim is a discard command */
	struct iom_io **queued;  /* queued since the last submit, to be stamped */
	unsigned nqueued;
};

/* Appends printf text to the notes, separated by ", ". */
__attribute__((format(printf, 2, 3))) static void note(struct iom_engine *e, const char *fmt, ...)
{
	size_t len = strlen(e->notes);
	va_list ap;

	if (len && len + 2 < sizeof(e->notes)) {
		memcpy(e->notes + len, ", ", 3);
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(e->notes + len, sizeof(e->notes) - len, fmt, ap);
	va_end(ap);
}

/* Why io_uring_setup refused with EPERM/EACCES, from the sysctl when it is set. */
static void why_not_permitted(char *buf, size_t len)
{
	char *text = NULL;
	size_t n;
	int v;

	if (iom_read_file("/proc/sys/kernel/io_uring_disabled", &text, &n) == 0 &&
	    sscanf(text, "%d", &v) == 1 && v == 2)
		snprintf(buf, len, " (io_uring is disabled by sysctl kernel.io_uring_disabled = 2)");
	else if (text && sscanf(text, "%d", &v) == 1 && v == 1)
		snprintf(buf, len, " (kernel.io_uring_disabled = 1 allows io_uring only to the group "
			 "in kernel.io_uring_group)");
	else
		snprintf(buf, len, " (a seccomp filter or security module may forbid it)");
	free(text);
}

static int setup_ring(struct iom_engine *e, struct uring_engine *u, const struct iom_engine_setup *s,
		      char *err, size_t errlen)
{
	static const struct {
		unsigned flags;
		const char *name;
	} tries[] = {
		/* Measured both ways (docs/performance.md): on a quiet machine SINGLE_ISSUER |
		 * DEFER_TASKRUN drives a median 1.11× the IOPS of COOP_TASKRUN at 0.93× the CPU
		 * per I/O (4 of 4 pairs); on a CPU shared with other busy processes COOP_TASKRUN
		 * won by 1.6×, because deferred completions wait for the thread to be scheduled.
		 * A benchmark is run on a quiet machine: DEFER_TASKRUN first. */
		{ IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		  "SINGLE_ISSUER DEFER_TASKRUN" },
		{ IORING_SETUP_COOP_TASKRUN, "COOP_TASKRUN" },
		{ 0, "plain setup" },
	};
	/* SQPOLL takes none of the task-run flags (the kernel refuses them with it) */
	bool sqpoll = s->flags & IOM_ENGINE_SQPOLL, iopoll = s->flags & IOM_ENGINE_IOPOLL;
	size_t i = (s->flags & IOM_ENGINE_NO_SETUP_FLAGS) || sqpoll ? IOM_ARRAY_SIZE(tries) - 1 : 0;
	unsigned sq = IOM_MIN(s->depth, MAX_SQ_ENTRIES);
	char why[160] = "";
	int ret = -EINVAL;

	for (; i < IOM_ARRAY_SIZE(tries); i++) {
		struct io_uring_params p;

		memset(&p, 0, sizeof(p));
		p.flags = tries[i].flags;
		if (sqpoll) {
			p.flags |= IORING_SETUP_SQPOLL;
			p.sq_thread_idle = SQ_THREAD_IDLE_MS;
		}
		if (iopoll)
			p.flags |= IORING_SETUP_IOPOLL;
		if (s->depth > sq) {
			/* A deeper queue than the SQ may be: the CQ still holds every completion,
			 * and queue() submits early when the SQ is full. */
			p.flags |= IORING_SETUP_CQSIZE;
			p.cq_entries = IOM_MAX(2 * sq, s->depth);
		}
		ret = io_uring_queue_init_params(sq, &u->ring, &p);
		if (ret == 0) {
			if (sqpoll)
				note(e, "io_uring: SQPOLL%s", iopoll ? " IOPOLL" : "");
			else
				note(e, "io_uring: %s%s", tries[i].name, iopoll ? " IOPOLL" : "");
			if (i > 0 && !sqpoll && !(s->flags & IOM_ENGINE_NO_SETUP_FLAGS))
				note(e, "(%s refused)", tries[0].name);
			return 0;
		}
		if (ret != -EINVAL)
			break;
	}
	if (ret == -ENOSYS)
		snprintf(why, sizeof(why), " (the kernel was built without it)");
	else if (ret == -EPERM || ret == -EACCES)
		why_not_permitted(why, sizeof(why));
	else if (ret == -ENOMEM)
		snprintf(why, sizeof(why), " (out of memory, or the memory-lock limit, ulimit -l, "
			 "is too low)");
	if (sqpoll || iopoll)
		return iom_err(err, errlen, -ret,
			       "cannot set up io_uring with queue depth %u and %s: %s%s; set "
			       "io_uring.%s = false", s->depth, sqpoll ? "SQPOLL" : "IOPOLL",
			       strerror(-ret), why, sqpoll ? "sqpoll" : "iopoll");
	return iom_err(err, errlen, -ret,
		       "cannot set up io_uring with queue depth %u: %s%s; use engine = \"psync\"",
		       s->depth, strerror(-ret), why);
}

static int uring_init(struct iom_engine *e, const struct iom_engine_setup *s, char *err,
		      size_t errlen)
{
	struct uring_engine *u;
	int ret;

	if (s->fd < 0)
		return iom_err(err, errlen, EBADF, "io_uring engine needs an open target");
	u = xcalloc(1, sizeof(*u));
	ret = setup_ring(e, u, s, err, errlen);
	if (ret < 0) {
		free(u);
		return ret;
	}
	u->queued = iom_try_calloc(s->depth, sizeof(*u->queued)); /* the matrix sets the depth */
	if (!u->queued) {
		io_uring_queue_exit(&u->ring);
		free(u);
		return iom_err(err, errlen, ENOMEM, "the io_uring engine's table of %u queued I/Os",
			       s->depth);
	}
	u->fd = s->fd;
	{
		struct stat st;

		u->is_block = fstat(s->fd, &st) == 0 && S_ISBLK(st.st_mode);
	}

	if (!(s->flags & IOM_ENGINE_NO_SETUP_FLAGS)) {
		ret = io_uring_register_ring_fd(&u->ring);
		if (ret < 0)
			note(e, "ring fd not registered (%s)", strerror(-ret));
		else
			note(e, "registered ring fd");
	}

	if (s->flags & IOM_ENGINE_NO_FIXED_FILES) {
		note(e, "plain file");
	} else if ((ret = io_uring_register_files(&u->ring, &s->fd, 1)) == 0) {
		u->fd = 0;
		u->sqe_flags = IOSQE_FIXED_FILE;
		note(e, "registered file");
	} else {
		note(e, "plain file (registering refused: %s)", strerror(-ret));
	}

	if (s->flags & IOM_ENGINE_NO_FIXED_BUFFERS) {
		note(e, "plain buffers");
	} else {
		struct iovec *iov = iom_try_calloc(s->depth, sizeof(*iov));
		unsigned i;

		for (i = 0; iov && i < s->depth; i++) {
			iov[i].iov_base = (char *)s->buf + (size_t)i * s->block_size;
			iov[i].iov_len = s->block_size;
		}
		ret = iov ? io_uring_register_buffers(&u->ring, iov, s->depth) : -ENOMEM;
		free(iov);
		if (ret == 0) {
			u->fixed_bufs = true;
			note(e, "registered buffers");
		} else if (ret == -ENOMEM || ret == -EPERM) {
			note(e, "plain buffers (registering refused: %s; RLIMIT_MEMLOCK too low)",
			     strerror(-ret));
		} else {
			note(e, "plain buffers (registering refused: %s)", strerror(-ret));
		}
	}
	e->priv = u;
	e->depth = s->depth;
	e->registered_buffers = u->fixed_bufs;
	return 0;
}

static void stamp_queued(struct uring_engine *u)
{
	uint64_t now = iom_now_ns();
	unsigned i;

	for (i = 0; i < u->nqueued; i++)
		u->queued[i]->submit_ns = now;
	u->nqueued = 0;
}

/*
 * The discard command of a block device (kernel 6.12+: BLOCK_URING_CMD_DISCARD of linux/fs.h, as
 * liburing 2.8's io_uring_prep_cmd_discard; the liburing this builds with may predate it). An
 * older kernel refuses it and the run fails naming the trim.
 */
#ifndef BLOCK_URING_CMD_DISCARD
#define BLOCK_URING_CMD_DISCARD _IO(0x12, 0)
#endif

/* A flush (IORING_OP_FSYNC, data only) or a trim: a block device's discard command, a file's
 * hole punched (IORING_OP_FALLOCATE). Only in cells with fsync_every or trim_pct. */
static void prep_special(struct uring_engine *u, struct io_uring_sqe *sqe, struct iom_io *io)
{
	if (io->op == IOM_OP_FLUSH) {
		io_uring_prep_fsync(sqe, u->fd, IORING_FSYNC_DATASYNC);
	} else if (u->is_block) {
		io_uring_prep_rw(IORING_OP_URING_CMD, sqe, u->fd, NULL, 0, 0);
		sqe->cmd_op = BLOCK_URING_CMD_DISCARD;
		sqe->addr = io->offset;
		sqe->addr3 = io->len;
	} else {
		io_uring_prep_fallocate(sqe, u->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					io->offset, io->len);
	}
}

static void uring_queue(struct iom_engine *e, struct iom_io *io)
{
	struct uring_engine *u = e->priv;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	if (__builtin_expect(!sqe, 0)) {
		/* Only with a queue deeper than the largest SQ (32768): push what is queued and
		 * take the freed entry. With SQPOLL the submit only moves the tail: the entries
		 * are free once the kernel's poller has taken them. */
		stamp_queued(u);
		io_uring_submit(&u->ring);
		sqe = io_uring_get_sqe(&u->ring);
		while (!sqe && (u->ring.flags & IORING_SETUP_SQPOLL) &&
		       io_uring_sqring_wait(&u->ring) >= 0)
			sqe = io_uring_get_sqe(&u->ring);
	}
	if (u->fixed_bufs) {
		if (io->op == IOM_OP_READ)
			io_uring_prep_read_fixed(sqe, u->fd, io->buf, io->len, io->offset, io->slot);
		else if (__builtin_expect(io->op == IOM_OP_WRITE, 1))
			io_uring_prep_write_fixed(sqe, u->fd, io->buf, io->len, io->offset, io->slot);
		else
			prep_special(u, sqe, io);
	} else {
		if (io->op == IOM_OP_READ)
			io_uring_prep_read(sqe, u->fd, io->buf, io->len, io->offset);
		else if (__builtin_expect(io->op == IOM_OP_WRITE, 1))
			io_uring_prep_write(sqe, u->fd, io->buf, io->len, io->offset);
		else
			prep_special(u, sqe, io);
	}
	sqe->flags |= u->sqe_flags;
	io_uring_sqe_set_data(sqe, io);
	u->queued[u->nqueued++] = io;
}

static int uring_submit(struct iom_engine *e, unsigned wait_nr)
{
	struct uring_engine *u = e->priv;
	int ret;

	if (u->nqueued)
		stamp_queued(u);
	else if (wait_nr == 0 || io_uring_cq_ready(&u->ring) >= wait_nr)
		return 0;
	do
		ret = io_uring_submit_and_wait(&u->ring, wait_nr);
	while (ret == -EINTR);
	return ret < 0 ? ret : 0;
}

static unsigned uring_reap(struct iom_engine *e, struct iom_io **done, unsigned max)
{
	struct uring_engine *u = e->priv;
	struct io_uring_cqe *cqe;
	unsigned head, i, n = 0;
	uint64_t now;

	if (!io_uring_cq_ready(&u->ring))
		return 0;
	now = iom_now_ns();
	io_uring_for_each_cqe(&u->ring, head, cqe) {
		struct iom_io *io;

		if (n == max)
			break;
		io = (struct iom_io *)io_uring_cqe_get_data(cqe);
		io->res = cqe->res;
		done[n++] = io;
	}
	io_uring_cq_advance(&u->ring, n);
	for (i = 0; i < n; i++)
		done[i]->complete_ns = now;
	return n;
}

/* A paced run's wait: for one completion, or until the timeout (a timeout of the same
 * io_uring_enter, so that nothing is reaped late while the worker waits for an I/O's time). */
static int uring_wait(struct iom_engine *e, unsigned wait_nr, uint64_t timeout_ns)
{
	struct uring_engine *u = e->priv;
	struct __kernel_timespec ts = { .tv_sec = (long long)(timeout_ns / 1000000000u),
					.tv_nsec = (long long)(timeout_ns % 1000000000u) };
	struct io_uring_cqe *cqe;
	int ret;

	if (io_uring_cq_ready(&u->ring) >= wait_nr)
		return 0;
	ret = io_uring_wait_cqes(&u->ring, &cqe, wait_nr, &ts, NULL);
	return ret == -ETIME || ret == -EINTR || ret == -EAGAIN || ret >= 0 ? 0 : ret;
}

static void uring_release(struct iom_engine *e)
{
	struct uring_engine *u = e->priv;

	/* The ring's teardown runs later in a kernel worker, which would drop the registered
	 * file's reference after this thread has closed the target: the next run's exclusive open
	 * of a device would find it still held. Unregistered here, the reference goes now. */
	if (u->sqe_flags & IOSQE_FIXED_FILE)
		io_uring_unregister_files(&u->ring);
	io_uring_queue_exit(&u->ring);
	free(u->queued);
	free(u);
	e->priv = NULL;
}

const struct iom_engine_ops iom_engine_uring_ops = {
	.name = "io_uring",
	.init = uring_init,
	.queue = uring_queue,
	.submit = uring_submit,
	.reap = uring_reap,
	.wait = uring_wait,
	.release = uring_release,
};

char *iom_uring_facts(void)
{
	struct io_uring_params p;
	struct io_uring ring;
	struct io_uring_probe *probe;
	unsigned ops = 0, last = 0;
	char *out;

	memset(&p, 0, sizeof(p));
	if (io_uring_queue_init_params(4, &ring, &p) < 0)
		return NULL;
	probe = io_uring_get_probe_ring(&ring);
	if (probe) {
		last = probe->last_op + 1u;
		for (unsigned i = 0; i < last; i++)
			ops += io_uring_opcode_supported(probe, (int)i) != 0;
		io_uring_free_probe(probe);
	}
	io_uring_queue_exit(&ring);
	out = xasprintf("features 0x%x, %u of %u opcodes", p.features, ops, last);
	return out;
}
