/* SPDX-License-Identifier: MIT */
/*
 * test_engine — every engine of the registry behind the one interface: data written at given
 * offsets of a temp file reads back the same (every engine that moves data; io_uring also with
 * and without registered buffers, file and setup flags, and with SQPOLL), reap hands back exact
 * counts, stamps are ordered, errors come back as res < 0, an engine without queues takes a
 * queue depth above 1 as 1, and null completes without touching the data. The registry agrees
 * with the engine key's choices; IOPOLL is refused before a run on a device without poll queues
 * (a fake sysfs tree says which); the SQPOLL thread's CPU is in the process CPU a run counts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>

#include "cpu.h"
#include "engine/engine.h"
#include "keys.h"
#include "util.h"

#define BS 4096u
#define DEPTH 8u
#define FILE_BYTES (1u << 20)

struct fixture {
	char path[64];
	int fd;
	void *buf;
};

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

	snprintf(f->path, sizeof(f->path), "%.40s/iom-engine-XXXXXX", dir);
	f->fd = mkstemp(f->path);
	assert_true(f->fd >= 0);
	assert_int_equal(ftruncate(f->fd, FILE_BYTES), 0);
	assert_int_equal(posix_memalign(&f->buf, 4096, DEPTH * BS), 0);
	memset(f->buf, 0, DEPTH * BS);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	close(f->fd);
	unlink(f->path);
	free(f->buf);
	free(f);
	return 0;
}

/* The byte expected at position i of the block written at off. */
static uint8_t pattern(uint64_t off, size_t i)
{
	return (uint8_t)((off / BS) * 131 + i * 7 + 1);
}

/* Runs n I/Os of op at offs through e, depth at a time, waiting for all of each batch; returns
 * the number of I/Os whose res was not BS. */
static unsigned run_ios(struct iom_engine *e, struct iom_io *slots, uint8_t op,
			const uint64_t *offs, unsigned n)
{
	struct iom_io *done[DEPTH];
	unsigned i = 0, bad = 0;

	while (i < n) {
		unsigned k, batch = IOM_MIN(e->depth, n - i), got = 0;

		for (k = 0; k < batch; k++) {
			struct iom_io *io = &slots[k];

			io->op = op;
			io->offset = offs[i + k];
			if (op == IOM_OP_WRITE) {
				size_t b;

				for (b = 0; b < BS; b++)
					((uint8_t *)io->buf)[b] = pattern(io->offset, b);
			} else {
				memset(io->buf, 0, BS);
			}
			io->res = -12345;
			iom_engine_queue(e, io);
		}
		assert_int_equal(iom_engine_submit(e, batch), 0);
		while (got < batch) {
			unsigned r = iom_engine_reap(e, done, DEPTH);

			for (k = 0; k < r; k++) {
				assert_true(done[k]->submit_ns > 0);
				assert_true(done[k]->complete_ns >= done[k]->submit_ns);
				if (done[k]->res != (int32_t)BS)
					bad++;
				if (op == IOM_OP_READ && done[k]->res == (int32_t)BS) {
					size_t b;

					for (b = 0; b < BS; b++)
						assert_int_equal(((uint8_t *)done[k]->buf)[b],
								 pattern(done[k]->offset, b));
				}
			}
			got += r;
			if (got < batch)
				assert_int_equal(iom_engine_submit(e, batch - got), 0);
		}
		i += batch;
	}
	return bad;
}

static void init_slots(struct iom_io *slots, void *buf)
{
	unsigned i;

	for (i = 0; i < DEPTH; i++) {
		slots[i] = (struct iom_io){ .buf = (char *)buf + (size_t)i * BS, .len = BS,
					    .slot = (uint16_t)i };
	}
}

struct roundtrip_case {
	const char *name;
	enum iom_engine_kind kind;
	unsigned flags;
	unsigned depth;
};

static const struct roundtrip_case roundtrip_cases[] = {
	{ "io_uring, everything registered", IOM_ENGINE_IO_URING, 0, DEPTH },
	{ "io_uring, plain buffers", IOM_ENGINE_IO_URING, IOM_ENGINE_NO_FIXED_BUFFERS, DEPTH },
	{ "io_uring, plain file", IOM_ENGINE_IO_URING, IOM_ENGINE_NO_FIXED_FILES, DEPTH },
	{ "io_uring, plain setup", IOM_ENGINE_IO_URING,
	  IOM_ENGINE_NO_SETUP_FLAGS | IOM_ENGINE_NO_FIXED_BUFFERS | IOM_ENGINE_NO_FIXED_FILES, 3 },
	{ "io_uring, depth 1", IOM_ENGINE_IO_URING, 0, 1 },
	{ "io_uring, SQPOLL", IOM_ENGINE_IO_URING, IOM_ENGINE_SQPOLL, DEPTH },
	{ "libaio, depth 1", IOM_ENGINE_LIBAIO, 0, 1 },
	{ "libaio, depth 3", IOM_ENGINE_LIBAIO, 0, 3 },
};

/* Writes offs through an engine of kind set up as rc says, reads them back, and checks the
 * file holds what was written. */
static void roundtrip(struct fixture *f, const char *name, enum iom_engine_kind kind,
		      unsigned flags, unsigned depth)
{
	static const uint64_t offs[] = { 0, 5 * BS, 65536, 12 * BS, FILE_BYTES - BS, 100 * BS,
					 7 * BS, 200 * BS, 3 * BS, 64 * BS, 250 * BS };
	const unsigned n = IOM_ARRAY_SIZE(offs);
	struct iom_engine_setup s = { .fd = f->fd, .depth = depth, .block_size = BS,
				      .buf = f->buf, .flags = flags };
	struct iom_io slots[DEPTH];
	struct iom_engine e;
	char err[IOM_ERRLEN] = "";
	unsigned i;

	print_message("case: %s\n", name);
	assert_int_equal(ftruncate(f->fd, 0), 0);
	assert_int_equal(ftruncate(f->fd, FILE_BYTES), 0);
	if (iom_engine_init(&e, kind, &s, err, sizeof(err)) != 0)
		fail_msg("%s: %s", name, err);
	print_message("  notes: %s\n", e.notes);
	assert_true(e.depth >= 1 && e.depth <= depth);
	init_slots(slots, f->buf);
	assert_int_equal(run_ios(&e, slots, IOM_OP_WRITE, offs, n), 0);
	assert_int_equal(run_ios(&e, slots, IOM_OP_READ, offs, n), 0);
	iom_engine_release(&e);

	/* What the engine wrote is really in the file. */
	for (i = 0; i < n; i++) {
		uint8_t blk[BS];
		size_t b;

		assert_int_equal(pread(f->fd, blk, BS, (off_t)offs[i]), BS);
		for (b = 0; b < BS; b++)
			assert_int_equal(blk[b], pattern(offs[i], b));
	}
}

/* Every engine of the registry that moves data, at the full depth; then the variants. */
static void test_engine_roundtrip(void **state)
{
	struct fixture *f = *state;
	size_t c;

	for (unsigned k = 0; k < IOM_ENGINE_COUNT; k++)
		if (iom_engine_has((enum iom_engine_kind)k, IOM_ENGINE_CAP_DATA))
			roundtrip(f, iom_engines[k].name, (enum iom_engine_kind)k, 0, DEPTH);
	for (c = 0; c < IOM_ARRAY_SIZE(roundtrip_cases); c++)
		roundtrip(f, roundtrip_cases[c].name, roundtrip_cases[c].kind,
			  roundtrip_cases[c].flags, roundtrip_cases[c].depth);
}

static void test_engine_uring_registration(void **state)
{
	struct fixture *f = *state;
	struct iom_engine_setup s = { .fd = f->fd, .depth = DEPTH, .block_size = BS, .buf = f->buf };
	struct iom_engine e;
	char err[IOM_ERRLEN];

	assert_int_equal(iom_engine_init(&e, IOM_ENGINE_IO_URING, &s, err, sizeof(err)), 0);
	/* Registered, or a fallback that says why (the memory-lock limit of a normal user). */
	if (e.registered_buffers)
		assert_non_null(strstr(e.notes, "registered buffers"));
	else
		assert_non_null(strstr(e.notes, "plain buffers (registering refused"));
	assert_non_null(strstr(e.notes, "io_uring: "));
	iom_engine_release(&e);

	s.flags = IOM_ENGINE_NO_FIXED_BUFFERS;
	assert_int_equal(iom_engine_init(&e, IOM_ENGINE_IO_URING, &s, err, sizeof(err)), 0);
	assert_false(e.registered_buffers);
	assert_non_null(strstr(e.notes, "plain buffers"));
	iom_engine_release(&e);
	iom_engine_release(&e); /* twice is harmless */
}

/* Queue `depth`, wait for all, reap in pieces of 3: the counts add up exactly, nothing more. */
static void test_engine_reap_counts(void **state)
{
	struct fixture *f = *state;
	enum iom_engine_kind kinds[IOM_ENGINE_COUNT];
	size_t k;

	for (k = 0; k < IOM_ENGINE_COUNT; k++)
		kinds[k] = (enum iom_engine_kind)k;
	for (k = 0; k < IOM_ARRAY_SIZE(kinds); k++) {
		struct iom_engine_setup s = { .fd = f->fd, .depth = DEPTH, .block_size = BS,
					      .buf = f->buf };
		struct iom_io slots[DEPTH], *done[DEPTH];
		struct iom_engine e;
		char err[IOM_ERRLEN];
		unsigned i, got = 0, r, seen = 0;

		assert_int_equal(iom_engine_init(&e, kinds[k], &s, err, sizeof(err)), 0);
		assert_int_equal(e.depth, iom_engine_depth(kinds[k], DEPTH));
		init_slots(slots, f->buf);
		assert_int_equal(iom_engine_reap(&e, done, DEPTH), 0);
		for (i = 0; i < e.depth; i++) {
			slots[i].op = IOM_OP_READ;
			slots[i].offset = (uint64_t)i * BS;
			iom_engine_queue(&e, &slots[i]);
		}
		assert_int_equal(iom_engine_submit(&e, e.depth), 0);
		assert_int_equal(iom_engine_reap(&e, done, 0), 0);
		while (got < e.depth) {
			r = iom_engine_reap(&e, done, 3);
			assert_true(r >= 1 && r <= 3);
			assert_true(r == IOM_MIN(3u, e.depth - got));
			for (i = 0; i < r; i++) {
				unsigned idx = done[i]->slot;

				assert_true(idx < e.depth);
				assert_false(seen & (1u << idx)); /* each I/O handed back once */
				seen |= 1u << idx;
				assert_int_equal(done[i]->res, BS);
			}
			got += r;
		}
		assert_int_equal(iom_engine_reap(&e, done, DEPTH), 0);
		assert_int_equal(seen, (1u << e.depth) - 1);
		iom_engine_release(&e);
	}
}

static void test_engine_psync_depth_one(void **state)
{
	struct fixture *f = *state;
	struct iom_engine_setup s = { .fd = f->fd, .depth = 32, .block_size = BS, .buf = f->buf };
	struct iom_engine e;
	char err[IOM_ERRLEN];

	/* an engine without queues takes one I/O at a time; one with queues the whole depth */
	for (unsigned k = 0; k < IOM_ENGINE_COUNT; k++)
		assert_int_equal(iom_engine_depth((enum iom_engine_kind)k, 32),
				 iom_engine_has((enum iom_engine_kind)k, IOM_ENGINE_CAP_QUEUES) ? 32
											: 1);
	assert_int_equal(iom_engine_depth(IOM_ENGINE_PSYNC, 32), 1);
	assert_int_equal(iom_engine_depth(IOM_ENGINE_IO_URING, 32), 32);
	assert_int_equal(iom_engine_init(&e, IOM_ENGINE_PSYNC, &s, err, sizeof(err)), 0);
	assert_int_equal(e.depth, 1);
	assert_non_null(strstr(e.notes, "queue_depth 32 taken as 1"));
	iom_engine_release(&e);
}

static void test_engine_null_no_io(void **state)
{
	struct fixture *f = *state;
	struct iom_engine_setup s = { .fd = -1, .depth = DEPTH, .block_size = BS, .buf = f->buf };
	struct iom_io slots[DEPTH], *done[DEPTH];
	struct iom_engine e;
	char err[IOM_ERRLEN];
	uint8_t blk[BS];
	unsigned i;

	assert_int_equal(iom_engine_init(&e, IOM_ENGINE_NULL, &s, err, sizeof(err)), 0);
	init_slots(slots, f->buf);
	memset(f->buf, 0xab, BS);
	/* Round after round of fewer than depth: the completion ring wraps correctly. */
	for (i = 0; i < 100; i++) {
		unsigned k, n = 1 + i % DEPTH;

		for (k = 0; k < n; k++) {
			slots[k].op = IOM_OP_WRITE;
			slots[k].offset = (uint64_t)k * BS;
			iom_engine_queue(&e, &slots[k]);
		}
		assert_int_equal(iom_engine_submit(&e, 1), 0);
		assert_int_equal(iom_engine_reap(&e, done, DEPTH), n);
		for (k = 0; k < n; k++)
			assert_ptr_equal(done[k], &slots[k]);
	}
	/* The file was not written: it is still a hole of zeros. */
	assert_int_equal(pread(f->fd, blk, BS, 0), BS);
	for (i = 0; i < BS; i++)
		assert_int_equal(blk[i], 0);
	iom_engine_release(&e);
}

/* A write to a read-only fd and a read past the end come back as the I/O's res, not as an
 * engine failure: the worker decides what an I/O error means. */
static void test_engine_io_errors(void **state)
{
	struct fixture *f = *state;
	enum iom_engine_kind kinds[IOM_ENGINE_COUNT];
	size_t k, n = 0;
	int ro = open(f->path, O_RDONLY);

	for (k = 0; k < IOM_ENGINE_COUNT; k++)
		if (iom_engine_has((enum iom_engine_kind)k, IOM_ENGINE_CAP_DATA))
			kinds[n++] = (enum iom_engine_kind)k;
	assert_true(n >= 3);
	assert_true(ro >= 0);
	for (k = 0; k < n; k++) {
		struct iom_engine_setup s = { .fd = ro, .depth = 2, .block_size = BS, .buf = f->buf };
		struct iom_io slots[DEPTH], *done[DEPTH];
		struct iom_engine e;
		char err[IOM_ERRLEN];

		assert_int_equal(iom_engine_init(&e, kinds[k], &s, err, sizeof(err)), 0);
		init_slots(slots, f->buf);
		slots[0].op = IOM_OP_WRITE;
		slots[0].offset = 0;
		iom_engine_queue(&e, &slots[0]);
		assert_int_equal(iom_engine_submit(&e, 1), 0);
		assert_int_equal(iom_engine_reap(&e, done, DEPTH), 1);
		assert_int_equal(done[0]->res, -EBADF);

		slots[0].op = IOM_OP_READ;
		slots[0].offset = 2 * FILE_BYTES;
		iom_engine_queue(&e, &slots[0]);
		assert_int_equal(iom_engine_submit(&e, 1), 0);
		assert_int_equal(iom_engine_reap(&e, done, DEPTH), 1);
		assert_int_equal(done[0]->res, 0);
		iom_engine_release(&e);
	}
	close(ro);
}

/* A paced run's wait (ops.wait, docs/load.md): with an I/O in flight it returns once the
 * completion is there (reaped next); with nothing in flight it returns after its timeout. An
 * engine without it (psync, null) completes its I/O in submit. */
static void test_engine_wait_with_timeout(void **state)
{
	struct fixture *f = *state;
	int fd = open(f->path, O_RDONLY);

	assert_true(fd >= 0);
	for (size_t k = 0; k < IOM_ENGINE_COUNT; k++) {
		struct iom_engine_setup s = { .fd = fd, .depth = 2, .block_size = BS, .buf = f->buf };
		struct iom_io slots[DEPTH], *done[DEPTH];
		struct iom_engine e;
		char err[IOM_ERRLEN];
		uint64_t t0;
		unsigned n = 0;

		if (!iom_engine_has((enum iom_engine_kind)k, IOM_ENGINE_CAP_DATA))
			continue;
		assert_int_equal(iom_engine_init(&e, (enum iom_engine_kind)k, &s, err, sizeof(err)),
				 0);
		init_slots(slots, f->buf);
		slots[0].op = IOM_OP_READ;
		slots[0].offset = 0;
		iom_engine_queue(&e, &slots[0]);
		assert_int_equal(iom_engine_submit(&e, 0), 0);
		for (int i = 0; i < 1000 && n == 0; i++) {
			assert_int_equal(iom_engine_wait(&e, 1, 100000000u), 0);
			n = iom_engine_reap(&e, done, DEPTH);
		}
		assert_int_equal(n, 1);
		assert_int_equal(done[0]->res, BS);
		assert_true(done[0]->complete_ns >= done[0]->submit_ns);
		t0 = iom_now_ns();
		assert_int_equal(iom_engine_wait(&e, 1, 2000000u), 0); /* nothing in flight */
		if (e.ops->wait)
			assert_true(iom_now_ns() - t0 >= 1000000u);
		assert_int_equal(iom_engine_reap(&e, done, DEPTH), 0);
		iom_engine_release(&e);
	}
	close(fd);
}

static void test_engine_init_errors(void **state)
{
	struct fixture *f = *state;
	struct iom_engine_setup s = { .fd = -1, .depth = DEPTH, .block_size = BS, .buf = f->buf };
	struct iom_engine e;
	char err[IOM_ERRLEN] = "";

	assert_int_equal(iom_engine_init(&e, IOM_ENGINE_IO_URING, &s, err, sizeof(err)), -EBADF);
	assert_non_null(strstr(err, "needs an open target"));
	iom_engine_release(&e);
	/* every engine that needs a file descriptor says so; one that does not starts without */
	for (unsigned k = 0; k < IOM_ENGINE_COUNT; k++) {
		bool fd = iom_engine_has((enum iom_engine_kind)k, IOM_ENGINE_CAP_FD);

		err[0] = '\0';
		assert_int_equal(iom_engine_init(&e, (enum iom_engine_kind)k, &s, err, sizeof(err)),
				 fd ? -EBADF : 0);
		if (fd)
			assert_non_null(strstr(err, "needs an open target"));
		iom_engine_release(&e);
	}
	s.fd = f->fd;
	s.depth = 0;
	for (unsigned k = 0; k < IOM_ENGINE_COUNT; k++) {
		err[0] = '\0';
		assert_int_equal(iom_engine_init(&e, (enum iom_engine_kind)k, &s, err, sizeof(err)),
				 -EINVAL);
		assert_non_null(strstr(err, "queue depth"));
		iom_engine_release(&e);
	}
}

/* The registry, the engine key's choices and enum iom_engine_kind name the same engines in the
 * same order; each row has its operations, and an engine's key group is a top-level group
 * named after it with keys of its own. */
static void test_engine_registry_matches_keys(void **state)
{
	const struct iom_key *k = iom_key_find(IOM_SEC_WORKLOAD, "engine");
	size_t n = 0;

	(void)state;
	assert_non_null(k);
	assert_int_equal(k->type, IOM_TYPE_ENUM);
	while (k->choices[n])
		n++;
	assert_int_equal(n, IOM_ENGINE_COUNT);
	assert_string_equal(k->def, iom_engines[IOM_ENGINE_IO_URING].name);
	for (unsigned i = 0; i < IOM_ENGINE_COUNT; i++) {
		const struct iom_engine_info *e = &iom_engines[i];
		enum iom_engine_kind kind;
		int64_t v;
		char err[IOM_ERRLEN];

		assert_non_null(e->name);
		assert_string_equal(k->choices[i], e->name);
		assert_non_null(e->ops);
		assert_string_equal(e->ops->name, e->name);
		assert_non_null(e->ops->init);
		assert_non_null(e->ops->release);
		assert_int_equal(iom_engine_find(e->name, &kind), 0);
		assert_int_equal(kind, i);
		assert_int_equal(iom_key_parse_text(k, e->name, &v, err, sizeof(err)), 0);
		assert_int_equal(v, i);
		/* a queue without a policy, or moving no data yet needing a target, is a typo */
		if (e->caps & IOM_ENGINE_CAP_POLICY)
			assert_true(e->caps & IOM_ENGINE_CAP_QUEUES);
		if (e->caps & (IOM_ENGINE_CAP_FIXED_BUFFERS | IOM_ENGINE_CAP_POLLED))
			assert_true(e->caps & IOM_ENGINE_CAP_FD);
		if (e->keys >= 0) {
			const struct iom_key *g = iom_key_find(IOM_SEC_TOP, e->name);
			size_t owned = 0;

			assert_non_null(g);
			assert_int_equal(g->type, IOM_TYPE_GROUP);
			assert_string_equal(iom_section_name((enum iom_section)e->keys), e->name);
			for (size_t j = 0; j < iom_nkeys; j++)
				owned += iom_keys[j].section == (enum iom_section)e->keys;
			assert_true(owned >= 4);
		}
	}
	assert_int_equal(iom_engine_find("aio", &(enum iom_engine_kind){ 0 }), -ENOENT);
	/* what the rest of iomatrix asks instead of comparing names */
	assert_false(iom_engine_has(IOM_ENGINE_NULL, IOM_ENGINE_CAP_DATA));
	assert_false(iom_engine_has(IOM_ENGINE_NULL, IOM_ENGINE_CAP_FD));
	assert_false(iom_engine_has(IOM_ENGINE_PSYNC, IOM_ENGINE_CAP_QUEUES));
	assert_true(iom_engine_has(IOM_ENGINE_LIBAIO, IOM_ENGINE_CAP_QUEUES | IOM_ENGINE_CAP_POLICY));
	assert_false(iom_engine_has(IOM_ENGINE_LIBAIO, IOM_ENGINE_CAP_POLLED));
	assert_true(iom_engine_has(IOM_ENGINE_IO_URING, IOM_ENGINE_CAP_POLLED));
}

/* Makes dir and its parents (mkdir -p, for the fake sysfs tree). */
static void mkdirs(const char *dir)
{
	char p[512];

	snprintf(p, sizeof(p), "%s", dir);
	for (char *q = p + 1; *q; q++) {
		if (*q == '/') {
			*q = '\0';
			mkdir(p, 0755);
			*q = '/';
		}
	}
	mkdir(p, 0755);
}

static void write_text(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* A fake sysfs tree at root where device dev is disk "fake0" (partition: "fake0p1" of it)
 * whose queue/io_poll reads io_poll. */
static void fake_sysfs(const char *root, dev_t dev, bool partition, const char *io_poll)
{
	char path[512], target[512];

	snprintf(path, sizeof(path), "%s/devices/virtual/block/fake0/queue", root);
	mkdirs(path);
	snprintf(path, sizeof(path), "%s/devices/virtual/block/fake0/queue/io_poll", root);
	write_text(path, io_poll);
	snprintf(path, sizeof(path), "%s/devices/virtual/block/fake0/fake0p1", root);
	mkdirs(path);
	snprintf(path, sizeof(path), "%s/block", root);
	mkdirs(path);
	snprintf(path, sizeof(path), "%s/block/fake0", root);
	unlink(path);
	assert_int_equal(symlink("../devices/virtual/block/fake0", path), 0);
	snprintf(path, sizeof(path), "%s/dev/block", root);
	mkdirs(path);
	snprintf(path, sizeof(path), "%s/dev/block/%u:%u", root, major(dev), minor(dev));
	unlink(path);
	snprintf(target, sizeof(target), "../../devices/virtual/block/fake0%s",
		 partition ? "/fake0p1" : "");
	assert_int_equal(symlink(target, path), 0);
}

/* Removes the fake tree (small: a fixed list of what fake_sysfs made). */
static void unfake_sysfs(const char *root, dev_t dev)
{
	static const char *const rel[] = { "block/fake0", "devices/virtual/block/fake0/queue/io_poll",
					   "devices/virtual/block/fake0/queue",
					   "devices/virtual/block/fake0/fake0p1",
					   "devices/virtual/block/fake0", "devices/virtual/block",
					   "devices/virtual", "devices", "block", "dev/block",
					   "dev", "" };
	char path[512];

	snprintf(path, sizeof(path), "%s/dev/block/%u:%u", root, major(dev), minor(dev));
	unlink(path);
	for (size_t i = 0; i < IOM_ARRAY_SIZE(rel); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, rel[i]);
		if (unlink(path) != 0)
			rmdir(path);
	}
}

/* IOPOLL before a run: without O_DIRECT, on a filesystem that cannot poll (tmpfs), and on a
 * device whose queue/io_poll reads 0 it is refused with a message naming what to change (the
 * sysfs file); on a device with poll queues, and for engines it does not concern, it passes. */
static void test_engine_check_iopoll(void **state)
{
	struct fixture *f = *state;
	char err[IOM_ERRLEN] = "", root[80], shm[64], want[160];
	struct stat st;
	int fd;

	assert_int_equal(iom_engine_check(IOM_ENGINE_IO_URING, f->fd, 0, false, NULL, err,
					  sizeof(err)), 0);
	assert_int_equal(iom_engine_check(IOM_ENGINE_PSYNC, f->fd, IOM_ENGINE_IOPOLL, false, NULL,
					  err, sizeof(err)), 0);
	assert_int_equal(iom_engine_check(IOM_ENGINE_IO_URING, f->fd, IOM_ENGINE_IOPOLL, false,
					  NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "needs direct = true"));

	/* a file on tmpfs */
	snprintf(shm, sizeof(shm), "/dev/shm/iom-engine-XXXXXX");
	fd = mkstemp(shm);
	if (fd >= 0) {
		int ret = iom_engine_check(IOM_ENGINE_IO_URING, fd, IOM_ENGINE_IOPOLL, true, NULL,
					   err, sizeof(err));

		close(fd);
		unlink(shm);
		print_message("tmpfs: %s\n", err);
		assert_int_equal(ret, -EOPNOTSUPP);
		assert_non_null(strstr(err, "a file on tmpfs, which cannot poll"));
	}

	/* the temp file's filesystem, on a fake device with and without poll queues */
	assert_int_equal(fstat(f->fd, &st), 0);
	snprintf(root, sizeof(root), "%s.sys", f->path);
	{
		char fsname[64];
		struct statfs sf;

		assert_int_equal(fstatfs(f->fd, &sf), 0);
		snprintf(fsname, sizeof(fsname), "%lx", (unsigned long)sf.f_type);
		if (sf.f_type != 0xEF53 && sf.f_type != 0x58465342 && sf.f_type != 0x9123683E) {
			print_message("TMPDIR is on filesystem 0x%s: the device cases are skipped\n",
				      fsname);
			return;
		}
	}
	for (int part = 0; part < 2; part++) {
		fake_sysfs(root, st.st_dev, part, "0\n");
		assert_int_equal(iom_engine_check(IOM_ENGINE_IO_URING, f->fd, IOM_ENGINE_IOPOLL,
						  true, root, err, sizeof(err)), -EOPNOTSUPP);
		print_message("no poll queues: %s\n", err);
		snprintf(want, sizeof(want), "%s/block/fake0/queue/io_poll reads 0", root);
		assert_non_null(strstr(err, want));
		assert_non_null(strstr(err, "io_uring.iopoll = false"));
		fake_sysfs(root, st.st_dev, part, "1\n");
		assert_int_equal(iom_engine_check(IOM_ENGINE_IO_URING, f->fd, IOM_ENGINE_IOPOLL,
						  true, root, err, sizeof(err)), 0);
		unfake_sysfs(root, st.st_dev);
	}
	/* no such device in sysfs */
	assert_int_equal(iom_engine_check(IOM_ENGINE_IO_URING, f->fd, IOM_ENGINE_IOPOLL, true, root,
					  err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "not on a block device"));
}

/* An IOPOLL ring is set up and says so (its I/O needs a device with poll queues: see above). */
static void test_engine_uring_iopoll_setup(void **state)
{
	struct fixture *f = *state;
	struct iom_engine_setup s = { .fd = f->fd, .depth = DEPTH, .block_size = BS, .buf = f->buf,
				      .flags = IOM_ENGINE_IOPOLL };
	struct iom_engine e;
	char err[IOM_ERRLEN] = "";
	int ret = iom_engine_init(&e, IOM_ENGINE_IO_URING, &s, err, sizeof(err));

	print_message("iopoll: %s%s\n", ret ? err : e.notes, "");
	if (ret == -EPERM || ret == -ENOSYS)
		skip();
	assert_int_equal(ret, 0);
	assert_non_null(strstr(e.notes, "IOPOLL"));
	iom_engine_release(&e);
}

/* The CPU time (utime + stime, in seconds) of this process's threads named prefix*, from
 * /proc/self/task; *n gets how many there are. */
static double threads_cpu(const char *prefix, unsigned *n)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	double s = 0;

	*n = 0;
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		char path[300], buf[1024], *p;
		unsigned long ut, st;
		FILE *fp;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat", de->d_name);
		fp = fopen(path, "r");
		if (!fp)
			continue;
		p = fgets(buf, sizeof(buf), fp);
		fclose(fp);
		if (!p || !(p = strchr(buf, '(')) || strncmp(p + 1, prefix, strlen(prefix)) != 0)
			continue;
		p = strrchr(buf, ')');
		/* after the name: state ppid pgrp session tty tpgid flags minflt cminflt majflt
		 * cmajflt utime stime */
		if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) ==
		    2) {
			s += (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
			(*n)++;
		}
	}
	closedir(d);
	return s;
}

/* With SQPOLL a kernel thread of this process (iou-sqp-PID) submits; the process CPU a run
 * counts (cpu.c: getrusage RUSAGE_SELF, sampled as run.c samples it) includes its time. */
static void test_engine_uring_sqpoll_cpu(void **state)
{
	struct fixture *f = *state;
	struct iom_engine_setup s = { .fd = f->fd, .depth = DEPTH, .block_size = BS, .buf = f->buf,
				      .flags = IOM_ENGINE_SQPOLL };
	struct iom_cpu_sample a, b;
	struct iom_io slots[DEPTH];
	struct iom_engine e;
	char err[IOM_ERRLEN] = "";
	double sq0, sq1, me0, me1, proc;
	unsigned nsq, nme, rounds = 0;
	uint64_t t0;
	uint64_t offs[DEPTH];
	int ret = iom_engine_init(&e, IOM_ENGINE_IO_URING, &s, err, sizeof(err));

	if (ret == -EPERM || ret == -ENOSYS)
		skip();
	if (ret != 0)
		fail_msg("sqpoll: %s", err);
	print_message("sqpoll notes: %s\n", e.notes);
	assert_non_null(strstr(e.notes, "io_uring: SQPOLL"));
	assert_null(strstr(e.notes, "refused)"));
	init_slots(slots, f->buf);
	for (unsigned i = 0; i < DEPTH; i++)
		offs[i] = (uint64_t)i * BS;
	/* the poller names itself when it starts: after one round of I/O it has */
	assert_int_equal(run_ios(&e, slots, IOM_OP_WRITE, offs, DEPTH), 0);
	sq0 = threads_cpu("iou-sqp-", &nsq);
	if (nsq == 0) {
		iom_engine_release(&e);
		print_message("no iou-sqp thread in /proc/self/task (a kernel before 5.12?)\n");
		skip();
	}
	me0 = threads_cpu("test_engine", &nme);
	assert_int_equal(iom_cpu_sample(&a, NULL), 0);
	/* Half a second of I/O (the poller spins the whole time), or long enough for the tick
	 * counters to see the poller at all on a loaded machine. */
	t0 = iom_now_ns();
	do {
		assert_int_equal(run_ios(&e, slots, IOM_OP_READ, offs, DEPTH), 0);
		rounds++;
		sq1 = threads_cpu("iou-sqp-", &nsq);
	} while (iom_now_ns() - t0 < 500000000ull || (sq1 - sq0 < 0.05 && iom_now_ns() - t0 < 10e9));
	me1 = threads_cpu("test_engine", &nme);
	assert_int_equal(iom_cpu_sample(&b, NULL), 0);
	iom_engine_release(&e);
	proc = (b.proc_user_s + b.proc_sys_s) - (a.proc_user_s + a.proc_sys_s);
	print_message("%u rounds: process CPU %.3f s; the SQ poller %.3f s, the test's own thread "
		      "%.3f s\n", rounds, proc, sq1 - sq0, me1 - me0);
	iom_cpu_sample_release(&a);
	iom_cpu_sample_release(&b);
	assert_true(sq1 - sq0 >= 0.05);
	/* ticks are 1/CLK_TCK s each, counted per thread: allow two per thread */
	assert_true(proc + 4.0 / (double)sysconf(_SC_CLK_TCK) >= (sq1 - sq0) + (me1 - me0));
}

/* Runs fn in a child process (it may change limits, capabilities or seccomp for itself) and
 * returns its exit status: 0 passed, 77 could not arrange the situation, else failed. */
static int in_child(int (*fn)(struct fixture *), struct fixture *f)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fn(f));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* As a user without CAP_IPC_LOCK and a memory-lock limit of 0: the ring is made, the buffers
 * are not registered, and the notes say why. */
static int memlock_child(struct fixture *f)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	struct iom_engine_setup s = { .fd = f->fd, .depth = DEPTH, .block_size = BS, .buf = f->buf };
	struct iom_io slots[DEPTH];
	struct iom_engine e;
	char err[IOM_ERRLEN];
	static const uint64_t offs[] = { 0, 4 * BS, 9 * BS };

	struct rlimit lim;
	unsigned pages;
	int ret = -1;

	if (syscall(SYS_capget, &hdr, data) != 0 || getrlimit(RLIMIT_MEMLOCK, &lim) != 0)
		return 77;
	data[CAP_TO_INDEX(CAP_IPC_LOCK)].effective &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	if (syscall(SYS_capset, &hdr, data) != 0)
		return 77;
	/* Newer kernels charge the rings themselves to the limit too: with none at all the ring
	 * is refused, with the message naming the limit. */
	lim.rlim_cur = 0;
	if (setrlimit(RLIMIT_MEMLOCK, &lim) != 0)
		return 77;
	ret = iom_engine_init(&e, IOM_ENGINE_IO_URING, &s, err, sizeof(err));
	if (ret == -ENOMEM && !strstr(err, "memory-lock limit"))
		return 4;
	if (ret == 0)
		iom_engine_release(&e);
	/* The smallest limit that admits the ring is below what the buffers (DEPTH pages) need. */
	for (pages = 1, ret = -1; pages <= 64 && ret != 0; pages++) {
		lim.rlim_cur = (rlim_t)pages * 4096;
		if (setrlimit(RLIMIT_MEMLOCK, &lim) != 0)
			return 77;
		ret = iom_engine_init(&e, IOM_ENGINE_IO_URING, &s, err, sizeof(err));
	}
	if (ret != 0) {
		fprintf(stderr, "init: %s\n", err);
		return 1;
	}
	fprintf(stderr, "notes with a %u-page memlock limit: %s\n", pages - 1, e.notes);
	if (e.registered_buffers || !strstr(e.notes, "RLIMIT_MEMLOCK too low"))
		return 2;
	init_slots(slots, f->buf);
	/* The plain buffers work. */
	if (run_ios(&e, slots, IOM_OP_WRITE, offs, 3) || run_ios(&e, slots, IOM_OP_READ, offs, 3))
		return 3;
	iom_engine_release(&e);
	return 0;
}

static void test_engine_uring_memlock_fallback(void **state)
{
	int rc = in_child(memlock_child, *state);

	if (rc == 77)
		skip();
	assert_int_equal(rc, 0);
}

/* io_uring_setup refused (as kernel.io_uring_disabled or a container's seccomp profile do):
 * init fails, says why, and names the psync engine. */
static int refuse_child(struct fixture *f, int code, const char *why)
{
	struct sock_filter filt[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)code & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = IOM_ARRAY_SIZE(filt), .filter = filt };
	struct iom_engine_setup s = { .fd = f->fd, .depth = DEPTH, .block_size = BS, .buf = f->buf };
	struct iom_engine e;
	char err[IOM_ERRLEN] = "";
	int ret;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		return 77;
	ret = iom_engine_init(&e, IOM_ENGINE_IO_URING, &s, err, sizeof(err));
	fprintf(stderr, "refused with %s: %s\n", strerror(code), err);
	if (ret != -code)
		return 1;
	if (!strstr(err, "cannot set up io_uring") || !strstr(err, strerror(code)) ||
	    !strstr(err, why) || !strstr(err, "use engine = \"psync\""))
		return 2;
	iom_engine_release(&e);
	return 0;
}

static int eperm_child(struct fixture *f)
{
	return refuse_child(f, EPERM, "(");
}

static int enosys_child(struct fixture *f)
{
	return refuse_child(f, ENOSYS, "built without it");
}

static void test_engine_uring_refused(void **state)
{
	int rc = in_child(eperm_child, *state);

	if (rc == 77)
		skip();
	assert_int_equal(rc, 0);
	assert_int_equal(in_child(enosys_child, *state), 0);
}

/* A depth of 0 is refused by the one check every engine goes through (iom_engine_init), before
 * an engine sees it. */
static void test_engine_depth_zero_refused(void **state)
{
	(void)state;
	for (unsigned k = 0; k < IOM_ENGINE_COUNT; k++) {
		struct iom_engine_setup s = { .fd = 0, .depth = 0, .block_size = 4096 };
		struct iom_engine e;
		char err[IOM_ERRLEN] = "";

		assert_int_equal(iom_engine_init(&e, (enum iom_engine_kind)k, &s, err, sizeof(err)),
				 -EINVAL);
		assert_string_equal(err, "queue depth must be at least 1");
		iom_engine_release(&e);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_engine_depth_zero_refused),
		cmocka_unit_test_setup_teardown(test_engine_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_engine_uring_registration, setup, teardown),
		cmocka_unit_test_setup_teardown(test_engine_reap_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_engine_psync_depth_one, setup, teardown),
		cmocka_unit_test_setup_teardown(test_engine_null_no_io, setup, teardown),
		cmocka_unit_test_setup_teardown(test_engine_io_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_engine_init_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_engine_wait_with_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_engine_uring_memlock_fallback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_engine_uring_refused, setup, teardown),
		cmocka_unit_test(test_engine_registry_matches_keys),
		cmocka_unit_test_setup_teardown(test_engine_check_iopoll, setup, teardown),
		cmocka_unit_test_setup_teardown(test_engine_uring_iopoll_setup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_engine_uring_sqpoll_cpu, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
