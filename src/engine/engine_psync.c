/* SPDX-License-Identifier: MIT */
/*
 * engine_psync — pread(2)/pwrite(2), one I/O per thread at a time: the way most programs do
 * I/O, for comparison, and the engine for kernels where io_uring is disabled. The I/O runs
 * inside submit(), between two clock reads, so its latency is exactly the system call's; a queue
 * depth above 1 is taken as 1 (and the notes say so) — more I/O in flight needs more threads.
 */
#include "engine.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

struct psync_engine {
	int fd;
	bool is_block;          /* a trim is BLKDISCARD (a file: a hole punched) */
	struct iom_io *queued;  /* depth is 1: at most one queued … */
	struct iom_io *done;    /* … or one completed, not yet reaped */
};

static int psync_init(struct iom_engine *e, const struct iom_engine_setup *s, char *err,
		      size_t errlen)
{
	struct psync_engine *p;

	if (s->fd < 0)
		return iom_err(err, errlen, EBADF, "psync engine needs an open target");
	p = xcalloc(1, sizeof(*p));
	p->fd = s->fd;
	{
		struct stat st;

		p->is_block = fstat(s->fd, &st) == 0 && S_ISBLK(st.st_mode);
	}
	e->priv = p;
	e->depth = 1;
	if (s->depth > 1)
		snprintf(e->notes, sizeof(e->notes),
			 "psync: one I/O at a time per thread (queue_depth %u taken as 1)", s->depth);
	else
		snprintf(e->notes, sizeof(e->notes), "psync: one I/O at a time per thread");
	return 0;
}

static void psync_queue(struct iom_engine *e, struct iom_io *io)
{
	struct psync_engine *p = e->priv;

	p->queued = io;
}

/* The whole transfer, retried on EINTR; a short transfer is returned as is (the worker
 * reports it). */
/* A flush (fdatasync) or a trim (BLKDISCARD; a file: fallocate punching a hole): 0 or -errno. */
static int32_t do_special(int fd, bool is_block, const struct iom_io *io)
{
	uint64_t range[2] = { io->offset, io->len };
	int r;

	do {
		if (io->op == IOM_OP_FLUSH)
			r = fdatasync(fd);
		else if (is_block)
			r = ioctl(fd, BLKDISCARD, range);
		else
			r = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				      (off_t)io->offset, (off_t)io->len);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : 0;
}

static int32_t do_io(int fd, bool is_block, const struct iom_io *io)
{
	ssize_t r;

	do {
		if (io->op == IOM_OP_READ)
			r = pread(fd, io->buf, io->len, (off_t)io->offset);
		else if (__builtin_expect(io->op == IOM_OP_WRITE, 1))
			r = pwrite(fd, io->buf, io->len, (off_t)io->offset);
		else
			return do_special(fd, is_block, io);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : (int32_t)r;
}

static int psync_submit(struct iom_engine *e, unsigned wait_nr)
{
	struct psync_engine *p = e->priv;
	struct iom_io *io = p->queued;

	(void)wait_nr; /* the I/O is complete when submit returns */
	if (!io)
		return 0;
	io->submit_ns = iom_now_ns();
	io->res = do_io(p->fd, p->is_block, io);
	io->complete_ns = iom_now_ns();
	p->queued = NULL;
	p->done = io;
	return 0;
}

static unsigned psync_reap(struct iom_engine *e, struct iom_io **done, unsigned max)
{
	struct psync_engine *p = e->priv;

	if (!p->done || !max)
		return 0;
	done[0] = p->done;
	p->done = NULL;
	return 1;
}

static void psync_release(struct iom_engine *e)
{
	free(e->priv);
	e->priv = NULL;
}

const struct iom_engine_ops iom_engine_psync_ops = {
	.name = "psync",
	.max_depth = 1,
	.init = psync_init,
	.queue = psync_queue,
	.submit = psync_submit,
	.reap = psync_reap,
	.release = psync_release,
};
