/* SPDX-License-Identifier: MIT */
/*
 * engine_null — completes every I/O the moment it is submitted, without a system call and
 * without touching the buffer. What a run on it measures is iomatrix itself: offset generation,
 * the submit/reap cycle, clock reads and histogram recording (compare fio's --ioengine=null).
 *
 * Completed I/Os wait in a ring of depth entries until reaped; at most depth I/Os are ever
 * queued or completed-but-unreaped, so the ring cannot overflow.
 */
#include "engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "util.h"

struct null_engine {
	struct iom_io **queued;   /* queued since the last submit */
	unsigned nqueued;
	struct iom_io **ring;     /* completed, not yet reaped: ring[head .. head + ndone) */
	unsigned head, ndone, size;
};

static int null_init(struct iom_engine *e, const struct iom_engine_setup *s, char *err,
		     size_t errlen)
{
	struct null_engine *n;

	n = xcalloc(1, sizeof(*n));
	n->queued = iom_try_calloc(s->depth, sizeof(*n->queued)); /* the matrix sets the depth */
	n->ring = iom_try_calloc(s->depth, sizeof(*n->ring));
	if (!n->queued || !n->ring) {
		free(n->queued);
		free(n->ring);
		free(n);
		return iom_err(err, errlen, ENOMEM, "the null engine's queue of %u entries",
			       s->depth);
	}
	n->size = s->depth;
	e->priv = n;
	e->depth = s->depth;
	snprintf(e->notes, sizeof(e->notes), "null: no I/O");
	return 0;
}

static void null_queue(struct iom_engine *e, struct iom_io *io)
{
	struct null_engine *n = e->priv;

	n->queued[n->nqueued++] = io;
}

static int null_submit(struct iom_engine *e, unsigned wait_nr)
{
	struct null_engine *n = e->priv;
	uint64_t now;
	unsigned i, tail;

	(void)wait_nr; /* every submitted I/O is complete at once */
	if (!n->nqueued)
		return 0;
	now = iom_now_ns();
	tail = (n->head + n->ndone) % n->size;
	for (i = 0; i < n->nqueued; i++) {
		struct iom_io *io = n->queued[i];

		io->submit_ns = now;
		io->res = (int32_t)io->len;
		n->ring[tail] = io;
		if (++tail == n->size)
			tail = 0;
	}
	n->ndone += n->nqueued;
	n->nqueued = 0;
	return 0;
}

static unsigned null_reap(struct iom_engine *e, struct iom_io **done, unsigned max)
{
	struct null_engine *n = e->priv;
	unsigned i, cnt = IOM_MIN(max, n->ndone);
	uint64_t now;

	if (!cnt)
		return 0;
	now = iom_now_ns();
	for (i = 0; i < cnt; i++) {
		struct iom_io *io = n->ring[n->head];

		io->complete_ns = now;
		done[i] = io;
		if (++n->head == n->size)
			n->head = 0;
	}
	n->ndone -= cnt;
	return cnt;
}

static void null_release(struct iom_engine *e)
{
	struct null_engine *n = e->priv;

	free(n->queued);
	free(n->ring);
	free(n);
	e->priv = NULL;
}

const struct iom_engine_ops iom_engine_null_ops = {
	.name = "null",
	.init = null_init,
	.queue = null_queue,
	.submit = null_submit,
	.reap = null_reap,
	.release = null_release,
};
