/* SPDX-License-Identifier: MIT */
/*
 * engine_aio — Linux native AIO through libaio (io_setup, io_submit, io_getevents), the only
 * file that includes <libaio.h>: the engine fio calls libaio, for the comparison with io_uring
 * people run. It keeps the same cycle and the same policy as io_uring:
 *
 *   queue()   prepares an iocb in the I/O's slot (no system call);
 *   submit(n) stamps the batch with one clock read, hands it to io_submit, and, when n > 0
 *             and fewer than n completions are already held, waits in io_getevents for at
 *             least the missing ones (up to the queue depth, so one wake-up takes every event
 *             that is ready);
 *   reap(max) hands back what submit collected, then what io_getevents returns without
 *             waiting (a zero timeout), stamped with one clock read per reaped batch.
 *
 * The kernel completes AIO asynchronously only for O_DIRECT; buffered AIO runs inside
 * io_submit (fio's libaio does the same). An iocb the kernel refuses at submission (a write to
 * a read-only fd: EBADF) is completed with res = -errno, as io_uring reports it, and the rest of
 * the batch is submitted after it. The context takes depth events (io_setup's nr_events, limited
 * by /proc/sys/fs/aio-max-nr): when it is refused (EAGAIN) init says so.
 */
#include "engine.h"

#include <errno.h>
#include <libaio.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct aio_engine {
	io_context_t ctx;
	int fd;
	struct iocb *cbs;          /* one per slot: slot i's iocb is cbs[i] */
	struct iocb **queued;      /* queued since the last submit */
	unsigned nqueued;
	struct io_event *events;   /* depth entries: what io_getevents returned … */
	unsigned head, nevents;    /* … of which events[head .. nevents) are not yet reaped */
	struct iom_io **failed;    /* refused at submission, completed with res < 0 */
	unsigned nfailed;
	unsigned depth;
};

static void aio_free(struct aio_engine *a)
{
	free(a->cbs);
	free(a->queued);
	free(a->events);
	free(a->failed);
	free(a);
}

static int aio_init(struct iom_engine *e, const struct iom_engine_setup *s, char *err,
		    size_t errlen)
{
	struct aio_engine *a;
	int ret;

	if (s->fd < 0)
		return iom_err(err, errlen, EBADF, "libaio engine needs an open target");
	a = xcalloc(1, sizeof(*a));
	/* the matrix sets the depth: these tables are its size */
	a->cbs = iom_try_calloc(s->depth, sizeof(*a->cbs));
	a->queued = iom_try_calloc(s->depth, sizeof(*a->queued));
	a->events = iom_try_calloc(s->depth, sizeof(*a->events));
	a->failed = iom_try_calloc(s->depth, sizeof(*a->failed));
	if (!a->cbs || !a->queued || !a->events || !a->failed) {
		aio_free(a);
		return iom_err(err, errlen, ENOMEM, "the libaio engine's tables of %u I/Os",
			       s->depth);
	}
	ret = io_setup((int)s->depth, &a->ctx);
	if (ret < 0) {
		aio_free(a);
		if (ret == -EAGAIN)
			return iom_err(err, errlen, EAGAIN,
				       "cannot set up libaio with queue depth %u: the system's AIO "
				       "events (/proc/sys/fs/aio-max-nr) are used up; raise "
				       "fs.aio-max-nr or lower the depth", s->depth);
		return iom_err(err, errlen, -ret, "cannot set up libaio with queue depth %u: %s",
			       s->depth, strerror(-ret));
	}
	a->fd = s->fd;
	a->depth = s->depth;
	e->priv = a;
	e->depth = s->depth;
	snprintf(e->notes, sizeof(e->notes), "libaio: io_submit/io_getevents");
	return 0;
}

static void aio_queue(struct iom_engine *e, struct iom_io *io)
{
	struct aio_engine *a = e->priv;
	struct iocb *cb = &a->cbs[io->slot];

	if (io->op == IOM_OP_READ)
		io_prep_pread(cb, a->fd, io->buf, io->len, (long long)io->offset);
	else if (__builtin_expect(io->op == IOM_OP_FLUSH, 0))
		io_prep_fdsync(cb, a->fd); /* IOCB_CMD_FDSYNC: the kernel's aio fsync (4.18+) */
	else
		io_prep_pwrite(cb, a->fd, io->buf, io->len, (long long)io->offset);
	cb->data = io;
	a->queued[a->nqueued++] = cb;
}

/* io_submit's EAGAIN (the kernel short of resources for a moment) is tried again this many
 * times, yielding the CPU in between, before the run fails with it. */
#define EAGAIN_TRIES 1000

/*
 * Submits queued[0 .. nqueued); an iocb refused on its own is completed with its error. What the
 * kernel took leaves the queue even when a later io_submit fails, so no iocb is ever submitted
 * twice. 0, or -errno.
 */
static int submit_queued(struct aio_engine *a)
{
	unsigned done = 0, tries = 0;
	int ret = 0;

	while (done < a->nqueued) {
		int r = io_submit(a->ctx, (long)(a->nqueued - done), a->queued + done);

		if (r > 0) {
			done += (unsigned)r;
			tries = 0;
		} else if (r == -EINTR) {
			continue;
		} else if (r == -EAGAIN && ++tries < EAGAIN_TRIES) {
			sched_yield();
		} else if (r < 0 && r != -ENOMEM && r != -EAGAIN) {
			/* the first iocb was refused (EBADF, EINVAL, …): its I/O fails */
			struct iom_io *io = a->queued[done]->data;

			io->res = r;
			a->failed[a->nfailed++] = io;
			done++;
		} else {
			ret = r < 0 ? r : -EIO;
			break;
		}
	}
	memmove(a->queued, a->queued + done, (a->nqueued - done) * sizeof(*a->queued));
	a->nqueued -= done;
	return ret;
}

/* Waits for at least min more events (0: takes what is ready without waiting), after the ones
 * still held, which move to the front of events[]. */
static int get_events(struct aio_engine *a, unsigned min)
{
	struct timespec zero = { 0, 0 };
	unsigned held = a->nevents - a->head;
	int r;

	if (held && a->head)
		memmove(a->events, a->events + a->head, held * sizeof(*a->events));
	a->head = 0;
	a->nevents = held;
	if (held == a->depth)
		return 0;
	do
		r = io_getevents(a->ctx, (long)min, (long)(a->depth - held), a->events + held,
				 min ? NULL : &zero);
	while (r == -EINTR);
	if (r < 0)
		return r;
	a->nevents += (unsigned)r;
	return 0;
}

static int aio_submit(struct iom_engine *e, unsigned wait_nr)
{
	struct aio_engine *a = e->priv;
	unsigned held;
	int ret;

	if (a->nqueued) {
		uint64_t now = iom_now_ns();

		for (unsigned i = 0; i < a->nqueued; i++)
			((struct iom_io *)a->queued[i]->data)->submit_ns = now;
		if ((ret = submit_queued(a)) < 0)
			return ret;
	}
	held = a->nevents - a->head + a->nfailed;
	if (wait_nr <= held)
		return 0;
	return get_events(a, wait_nr - held);
}

static unsigned aio_reap(struct iom_engine *e, struct iom_io **done, unsigned max)
{
	struct aio_engine *a = e->priv;
	unsigned n = 0, i;
	uint64_t now;

	while (n < max && a->nfailed)
		done[n++] = a->failed[--a->nfailed];
	if (n < max && a->head == a->nevents && get_events(a, 0) < 0)
		a->nevents = a->head = 0; /* nothing ready; a failing context fails the next submit */
	while (n < max && a->head < a->nevents) {
		struct io_event *ev = &a->events[a->head++];
		struct iom_io *io = ev->data;

		/* res is the byte count or -errno; res2 is unused by block and file AIO */
		io->res = (int32_t)(long)ev->res;
		done[n++] = io;
	}
	if (!n)
		return 0;
	now = iom_now_ns();
	for (i = 0; i < n; i++)
		done[i]->complete_ns = now;
	return n;
}

/* A paced run's wait: io_getevents for one event with the timeout, into the held events. */
static int aio_wait(struct iom_engine *e, unsigned wait_nr, uint64_t timeout_ns)
{
	struct aio_engine *a = e->priv;
	struct timespec ts = { .tv_sec = (time_t)(timeout_ns / 1000000000u),
			       .tv_nsec = (long)(timeout_ns % 1000000000u) };
	unsigned held = a->nevents - a->head;
	int r;

	if (held || a->nfailed)
		return 0;
	a->head = a->nevents = 0;
	r = io_getevents(a->ctx, (long)IOM_MAX(wait_nr, 1u), (long)a->depth, a->events, &ts);
	if (r == -EINTR)
		return 0;
	if (r < 0)
		return r;
	a->nevents = (unsigned)r;
	return 0;
}

static void aio_release(struct iom_engine *e)
{
	struct aio_engine *a = e->priv;

	io_destroy(a->ctx);
	aio_free(a);
	e->priv = NULL;
}

const struct iom_engine_ops iom_engine_aio_ops = {
	.name = "libaio",
	.init = aio_init,
	.queue = aio_queue,
	.submit = aio_submit,
	.reap = aio_reap,
	.wait = aio_wait,
	.release = aio_release,
};
