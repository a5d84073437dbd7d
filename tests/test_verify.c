/* SPDX-License-Identifier: MIT */
/*
 * test_verify — sector headers: what a write stamps, what a read accepts, what it counts as a
 * mismatch (bit rot, a misdirected write, a known sector without a header) and what it leaves
 * alone (a sector never written verified); then a real write run and read run through
 * iom_run_execute() with the psync engine on a temporary file, corrupted in between; and the
 * verify block of a run's JSON (result.c) written and read back.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "plan.h"
#include "result/resdir.h"
#include "run/run.h"
#include "tmpdir.h"
#include "util.h"
#include "verify.h"

#define BS 4096u
#define REGION (1u << 20)

/* A block at offset off, stamped by a verified write of thread 0. */
static void stamp(struct iom_verify *v, char *buf, uint64_t off)
{
	struct iom_io io = { .buf = buf, .offset = off, .len = BS, .op = IOM_OP_WRITE };

	memset(buf, 0xa5, BS);
	iom_verify_prepare_write(v, 0, &io);
}

static int check(struct iom_verify *v, char *buf, uint64_t off, char *err, size_t errlen)
{
	struct iom_io io = { .buf = buf, .offset = off, .len = BS, .op = IOM_OP_READ, .res = BS };

	return iom_verify_check_read(v, 0, &io, err, errlen);
}

static void test_verify_stamped_blocks_check(void **state)
{
	struct iom_verify *v = iom_verify_new(REGION);
	struct iom_worker_hooks h = { 0 };
	struct iom_run_verify out;
	char buf[BS], err[IOM_ERRLEN];
	uint64_t magic;

	(void)state;
	assert_int_equal(iom_verify_begin(v, 3, 42, 1, BS, &h, err, sizeof(err)), 0);
	assert_ptr_equal(h.ctx, v);
	assert_non_null(h.prepare_write);
	assert_non_null(h.check_read);
	assert_null(h.record);
	stamp(v, buf, 8192);
	for (unsigned s = 0; s < BS / IOM_VERIFY_SECTOR; s++) {
		uint64_t off;

		memcpy(&magic, buf + s * IOM_VERIFY_SECTOR, 8);
		memcpy(&off, buf + s * IOM_VERIFY_SECTOR + 8, 8);
		assert_true(magic == IOM_VERIFY_MAGIC);
		assert_int_equal(off, 8192 + s * IOM_VERIFY_SECTOR);
	}
	assert_int_equal(check(v, buf, 8192, err, sizeof(err)), 0);
	assert_int_equal(iom_verify_end(v, true, &out), 0);
	assert_true(out.enabled);
	assert_int_equal(out.sectors_written, 8);
	assert_int_equal(out.sectors_checked, 8);
	assert_int_equal(out.sectors_unwritten, 0);
	assert_int_equal(out.nfirst, 0);
	iom_verify_free(v);
}

/* Damage done to a stamped block at 8192, and what the read must report. */
static void rot(char *b) { b[IOM_VERIFY_SECTOR + 300] ^= 0x10; }
static void misdirect(char *b) { memcpy(b + 2 * IOM_VERIFY_SECTOR, b, IOM_VERIFY_SECTOR); }
static void zero_known(char *b) { memset(b + 3 * IOM_VERIFY_SECTOR, 0, IOM_VERIFY_SECTOR); }

static void test_verify_mismatches(void **state)
{
	static const struct {
		const char *name;
		void (*damage)(char *b);
		bool known;            /* a previous verified run of the sweep wrote the block */
		uint64_t mismatches, unwritten, offset;
		const char *expected, *found;
	} cases[] = {
		{ "bit rot", rot, false, 1, 0, 8192 + 512, "(run 3, thread 0, write 0)",
		  "of the sector as read" },
		{ "misdirected", misdirect, false, 1, 0, 8192 + 1024, "a header for offset 9216",
		  "a header for offset 8192 (run 3, thread 0, write 0)" },
		{ "zeroed, unknown", zero_known, false, 0, 1, 0, NULL, NULL },
		{ "zeroed, known", zero_known, true, 1, 0, 8192 + 1536,
		  "a header for offset 9728", "no header (first bytes 00 00 00 00" },
	};

	(void)state;
	for (size_t k = 0; k < IOM_ARRAY_SIZE(cases); k++) {
		struct iom_verify *v = iom_verify_new(REGION);
		struct iom_worker_hooks h = { 0 };
		struct iom_run_verify out;
		char buf[BS], err[IOM_ERRLEN];

		print_message("case %s\n", cases[k].name);
		assert_int_equal(iom_verify_begin(v, 3, 42, 1, BS, &h, err, sizeof(err)), 0);
		stamp(v, buf, 8192);
		iom_verify_end(v, cases[k].known, &out);
		iom_run_result_release(&(struct iom_run_result){ .verify = out });
		assert_int_equal(iom_verify_begin(v, 4, 43, 1, BS, &h, err, sizeof(err)), 0);
		cases[k].damage(buf);
		assert_int_equal(check(v, buf, 8192, err, sizeof(err)), 0);
		assert_int_equal(iom_verify_end(v, true, &out), cases[k].mismatches);
		assert_int_equal(out.mismatches, cases[k].mismatches);
		assert_int_equal(out.sectors_unwritten, cases[k].unwritten);
		assert_int_equal(out.nfirst, cases[k].mismatches);
		if (cases[k].mismatches) {
			assert_int_equal(out.first[0].offset, cases[k].offset);
			assert_non_null(strstr(out.first[0].expected, cases[k].expected));
			assert_non_null(strstr(out.first[0].found, cases[k].found));
		}
		iom_run_result_release(&(struct iom_run_result){ .verify = out });
		iom_verify_free(v);
	}
}

static void test_verify_forget_and_failed_runs(void **state)
{
	struct iom_verify *v = iom_verify_new(REGION);
	struct iom_worker_hooks h = { 0 };
	struct iom_run_verify out;
	char buf[BS], err[IOM_ERRLEN];

	(void)state;
	/* a failed run's writes are not known: a zeroed sector is "unwritten" */
	assert_int_equal(iom_verify_begin(v, 1, 1, 1, BS, &h, err, sizeof(err)), 0);
	stamp(v, buf, 0);
	iom_verify_end(v, false, &out);
	assert_int_equal(iom_verify_begin(v, 2, 2, 1, BS, &h, err, sizeof(err)), 0);
	memset(buf, 0, BS);
	check(v, buf, 0, err, sizeof(err));
	assert_int_equal(iom_verify_end(v, true, &out), 0);
	assert_int_equal(out.sectors_unwritten, 8);
	/* a completed run's are, until forgotten */
	assert_int_equal(iom_verify_begin(v, 3, 3, 1, BS, &h, err, sizeof(err)), 0);
	stamp(v, buf, 0);
	iom_verify_end(v, true, &out);
	assert_int_equal(iom_verify_begin(v, 4, 4, 1, BS, &h, err, sizeof(err)), 0);
	memset(buf, 0, BS);
	check(v, buf, 0, err, sizeof(err));
	assert_int_equal(iom_verify_end(v, true, &out), 8);
	iom_run_result_release(&(struct iom_run_result){ .verify = out });
	iom_verify_forget(v);
	assert_int_equal(iom_verify_begin(v, 5, 5, 1, BS, &h, err, sizeof(err)), 0);
	check(v, buf, 0, err, sizeof(err));
	assert_int_equal(iom_verify_end(v, true, &out), 0);
	assert_int_equal(out.sectors_unwritten, 8);
	iom_verify_free(v);
	iom_verify_free(NULL);
}

static void test_verify_refusals_and_limit(void **state)
{
	struct iom_verify *v = iom_verify_new(REGION);
	struct iom_worker_hooks h = { 0 };
	struct iom_run_verify out;
	char buf[BS], err[IOM_ERRLEN] = "";
	int ret = 0;

	(void)state;
	assert_int_equal(iom_verify_begin(v, 1, 1, 1, 1000, &h, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "multiple of 512"));
	assert_null(h.prepare_write);
	/* a read of garbage stops after IOM_VERIFY_MAX_ERRORS mismatched sectors */
	assert_int_equal(iom_verify_begin(v, 1, 1, 1, BS, &h, err, sizeof(err)), 0);
	stamp(v, buf, 0);
	for (unsigned i = 0; i < IOM_VERIFY_MAX_ERRORS / 8 && ret == 0; i++)
		ret = check(v, buf, 4096 * (i + 1), err, sizeof(err));
	assert_int_equal(ret, -EILSEQ);
	assert_non_null(strstr(err, "stopped after 64 mismatched sectors"));
	assert_int_equal(iom_verify_end(v, false, &out), IOM_VERIFY_MAX_ERRORS);
	assert_int_equal(out.nfirst, IOM_VERIFY_KEEP);
	assert_int_equal(out.first[0].offset, 4096);
	iom_run_result_release(&(struct iom_run_result){ .verify = out });
	iom_verify_free(v);
}

/* A real write run then a read run (psync, buffered) on a temporary file, one sector rotted in
 * between: the read run's check_read sees it, with its offset. */
static void test_verify_runs_on_a_file(void **state)
{
	char path[] = "/tmp/iom-test-verify-XXXXXX", err[IOM_ERRLEN];
	struct iom_verify *v = iom_verify_new(REGION);
	struct iom_worker_hooks h = { 0 };
	struct iom_run_spec s = {
		.region = REGION,
		.wl = { .block_size = BS, .queue_depth = 4, .threads = 2, .read_pct = 0,
			.pattern = IOM_PATTERN_SEQUENTIAL, .engine = IOM_ENGINE_PSYNC },
		.timing = { .bytes = REGION }, .seed = 9, .index = 1, .hooks = &h,
	};
	struct iom_run_result r;
	char junk = 0x5a;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, REGION), 0);
	s.fd = fd;
	assert_int_equal(iom_verify_begin(v, 1, 9, 2, BS, &h, err, sizeof(err)), 0);
	assert_int_equal(iom_run_execute(&s, &r, err, sizeof(err)), 0);
	assert_int_equal(iom_verify_end(v, r.status == IOM_RUN_OK, &r.verify), 0);
	assert_true(r.verify.sectors_written >= REGION / IOM_VERIFY_SECTOR);
	iom_run_result_release(&r);

	assert_int_equal(pwrite(fd, &junk, 1, 300 * IOM_VERIFY_SECTOR + 100), 1);
	s.wl.read_pct = 100;
	s.index = 2;
	assert_int_equal(iom_verify_begin(v, 2, 10, 2, BS, &h, err, sizeof(err)), 0);
	assert_int_equal(iom_run_execute(&s, &r, err, sizeof(err)), 0);
	/* (I/O after the measured share may read a sector again) */
	assert_true(iom_verify_end(v, r.status == IOM_RUN_OK, &r.verify) >= 1);
	assert_true(r.verify.sectors_checked >= REGION / IOM_VERIFY_SECTOR);
	assert_int_equal(r.verify.first[0].offset, 300 * IOM_VERIFY_SECTOR);
	iom_run_result_release(&r);
	iom_verify_free(v);
	close(fd);
	unlink(path);
}

/* The verify block of a run's JSON: written whole, read back (counts), null when off. */
static void test_verify_result_json(void **state)
{
	static struct iom_target tg = { .label = "t", .path = "/tmp/t", .controller = "auto",
					.size = 1 << 20 };
	static struct iom_matrix m = { .file = "v.cfg", .name = "v", .targets = &tg,
				       .ntargets = 1 };
	struct iom_cell c = { .v = { [IOM_DIM_BLOCK_SIZE] = 4096, [IOM_DIM_QUEUE_DEPTH] = 1,
				     [IOM_DIM_THREADS] = 1, [IOM_DIM_READ_PCT] = 100,
				     [IOM_DIM_ENGINE] = IOM_ENGINE_PSYNC, [IOM_DIM_VERIFY] = 1 } };
	struct iom_run_result r = { .index = 1, .repetition = 1, .status = IOM_RUN_FAILED };
	struct iom_result_file f;
	char dir[] = "/tmp/iom-test-verify-json-XXXXXX", err[IOM_ERRLEN], *path, *text;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(iom_results_dir_create(test_own(dir), err, sizeof(err)), 0);
	r.error = xstrdup("data verification failed: 1 mismatched sector");
	r.verify = (struct iom_run_verify){ .enabled = true, .sectors_written = 7,
					    .sectors_checked = 2048, .sectors_unwritten = 5,
					    .mismatches = 1, .nfirst = 1 };
	r.verify.first = xcalloc(1, sizeof(*r.verify.first));
	r.verify.first[0] = (struct iom_verify_mismatch){ 153600, xstrdup("a header for offset 153600"),
							  xstrdup("a header for offset 0 (run 1)") };
	assert_int_equal(iom_result_write(test_own(dir), &m, &c, &r, err, sizeof(err)), 0);
	iom_run_result_release(&r);
	path = iom_result_path(dir, 1);
	assert_int_equal(iom_read_file(path, &text, NULL), 0);
	assert_non_null(strstr(text, "\"offset\": 153600"));
	assert_non_null(strstr(text, "a header for offset 0 (run 1)"));
	free(text);
	assert_int_equal(iom_result_read(path, &f, err, sizeof(err)), 0);
	assert_true(f.r.verify.enabled);
	assert_int_equal(f.r.verify.sectors_written, 7);
	assert_int_equal(f.r.verify.sectors_checked, 2048);
	assert_int_equal(f.r.verify.sectors_unwritten, 5);
	assert_int_equal(f.r.verify.mismatches, 1);
	assert_string_equal(iom_result_cell_get(&f, "verify"), "true");
	iom_result_file_release(&f);

	/* off: "verify": null, read back as not enabled */
	memset(&r, 0, sizeof(r));
	r.index = 1;
	c.v[IOM_DIM_VERIFY] = 0;
	assert_int_equal(iom_result_write(test_own(dir), &m, &c, &r, err, sizeof(err)), 0);
	assert_int_equal(iom_result_read(path, &f, err, sizeof(err)), 0);
	assert_false(f.r.verify.enabled);
	assert_string_equal(iom_result_cell_get(&f, "verify"), "false");
	iom_result_file_release(&f);
	unlink(path);
	free(path);
	path = xasprintf("%s/runs", dir);
	rmdir(path);
	free(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verify_stamped_blocks_check),
		cmocka_unit_test(test_verify_mismatches),
		cmocka_unit_test(test_verify_forget_and_failed_runs),
		cmocka_unit_test(test_verify_refusals_and_limit),
		cmocka_unit_test(test_verify_runs_on_a_file),
		cmocka_unit_test(test_verify_result_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
