/* SPDX-License-Identifier: MIT */
/*
 * Tests of the sweep journal: events round-trip through replay, a torn last line is ignored, a
 * run started and never finished is reported as in progress, the study-start's plan is read
 * back (even when a later line is out of the plan), the lock refuses a second writer, and the
 * lock can be taken before the journal is opened.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "journal.h"
#include "ownfile.h"
#include "tmpdir.h"
#include "util.h"

/* One journal event to write. */
struct event {
	enum iom_journal_event ev;
	uint32_t run;
	const char *detail;
};

/* Writes a new journal in dir holding events, in order. */
static void write_events(const char *dir, const struct event *events, size_t n)
{
	struct iom_journal j;
	char err[IOM_ERRLEN];

	assert_int_equal(iom_journal_open(&j, test_own(dir), err, sizeof(err)), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(iom_journal_append(&j, events[i].ev, events[i].run,
						     events[i].detail), 0);
	iom_journal_close(&j);
}

static void test_journal_replays_events(void **state)
{
	const char *dir = *state;
	struct iom_journal_state st;
	char err[IOM_ERRLEN];
	static const struct event events[] = {
		{ IOM_J_STUDY_START, 0, "plan 0123" },
		{ IOM_J_RUN_START, 1, NULL },
		{ IOM_J_RUN_DONE, 1, "runs/00001.json" },
		{ IOM_J_RUN_START, 2, NULL },
		{ IOM_J_RUN_FAILED, 2, "cannot\topen\nx" },
		{ IOM_J_RUN_START, 3, NULL },
	};

	write_events(dir, events, sizeof(events) / sizeof(events[0]));

	assert_int_equal(iom_journal_replay(dir, 4, &st, err, sizeof(err)), 0);
	assert_int_equal(st.done, 1);
	assert_int_equal(st.failed, 1);
	assert_int_equal(st.run[1], IOM_RS_DONE);
	assert_int_equal(st.run[2], IOM_RS_FAILED);
	assert_int_equal(st.run[3], IOM_RS_PENDING);
	assert_int_equal(st.run[4], IOM_RS_PENDING);
	assert_int_equal(st.in_progress, 3);
	assert_false(st.ended);
	assert_int_equal(st.torn_lines, 0);
	iom_journal_state_release(&st);
}

/* A run redone by resume (its file was missing or damaged) counts as pending from its new
 * run-start until it ends again: interrupted there, it is redone by the next resume too. */
static void test_journal_restarted_run_is_pending(void **state)
{
	const char *dir = *state;
	struct iom_journal_state st;
	char err[IOM_ERRLEN];
	static const struct event events[] = {
		{ IOM_J_STUDY_START, 0, "plan 0123" },
		{ IOM_J_RUN_START, 1, NULL },
		{ IOM_J_RUN_DONE, 1, "runs/00001.json" },
		{ IOM_J_RUN_START, 2, NULL },
		{ IOM_J_RUN_FAILED, 2, "x" },
		{ IOM_J_RESUME, 0, "redoing 2" },
		{ IOM_J_RUN_START, 1, NULL },
		{ IOM_J_RUN_INTERRUPTED, 1, NULL },
		{ IOM_J_RUN_START, 2, NULL },
	};

	write_events(dir, events, sizeof(events) / sizeof(events[0]));

	assert_int_equal(iom_journal_replay(dir, 2, &st, err, sizeof(err)), 0);
	assert_int_equal(st.run[1], IOM_RS_PENDING);
	assert_int_equal(st.run[2], IOM_RS_PENDING);
	assert_int_equal(st.done, 0);
	assert_int_equal(st.failed, 0);
	assert_int_equal(st.in_progress, 2);
	iom_journal_state_release(&st);
}

static void test_journal_ignores_torn_last_line(void **state)
{
	const char *dir = *state;
	struct iom_journal j;
	struct iom_journal_state st;
	char err[IOM_ERRLEN], *path;
	int fd;

	assert_int_equal(iom_journal_open(&j, test_own(dir), err, sizeof(err)), 0);
	assert_int_equal(iom_journal_append(&j, IOM_J_RUN_START, 1, NULL), 0);
	iom_journal_close(&j);
	path = xasprintf("%s/journal", dir);
	fd = open(path, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "2026-01-01T00:00:00Z\trun-do", 27), 27);
	close(fd);
	free(path);

	assert_int_equal(iom_journal_replay(dir, 1, &st, err, sizeof(err)), 0);
	assert_int_equal(st.torn_lines, 1);
	assert_int_equal(st.done, 0);
	assert_int_equal(st.in_progress, 1);
	iom_journal_state_release(&st);

	/* opened again, the fragment is cut off, so the next event stands on a line of its own */
	assert_int_equal(iom_journal_open(&j, test_own(dir), err, sizeof(err)), 0);
	assert_int_equal(iom_journal_append(&j, IOM_J_RUN_DONE, 1, "runs/00001.json"), 0);
	iom_journal_close(&j);
	assert_int_equal(iom_journal_replay(dir, 1, &st, err, sizeof(err)), 0);
	assert_int_equal(st.torn_lines, 0);
	assert_int_equal(st.done, 1);
	assert_int_equal(st.in_progress, 0);
	iom_journal_state_release(&st);
}

/* A run cut short (run-interrupted) stays pending and is the one a resume reruns. */
static void test_journal_interrupted_run_is_rerun(void **state)
{
	const char *dir = *state;
	struct iom_journal_state st;
	char err[IOM_ERRLEN];
	static const struct event events[] = {
		{ IOM_J_STUDY_START, 0, "plan 0123 runs 20" },
		{ IOM_J_RUN_START, 16, NULL },
		{ IOM_J_RUN_DONE, 16, "runs/00016.json" },
		{ IOM_J_RUN_START, 17, NULL },
		{ IOM_J_RUN_INTERRUPTED, 17, "runs/00017.json" },
	};

	write_events(dir, events, sizeof(events) / sizeof(events[0]));
	assert_int_equal(iom_journal_replay(dir, 20, &st, err, sizeof(err)), 0);
	assert_int_equal(st.in_progress, 17);
	assert_int_equal(st.run[17], IOM_RS_PENDING);
	assert_int_equal(st.done, 1);
	iom_journal_state_release(&st);
}

/* mkfs events keep their details, in order, for the filesystems this study may replace. */
static void test_journal_replays_mkfs(void **state)
{
	const char *dir = *state;
	struct iom_journal j;
	struct iom_journal_state st;
	char err[IOM_ERRLEN];

	assert_int_equal(iom_journal_open(&j, test_own(dir), err, sizeof(err)), 0);
	assert_int_equal(iom_journal_append(&j, IOM_J_MKFS, 0, "/dev/loop0 ext4 0b5e12ab-1 iom-0b5e12ab"), 0);
	assert_int_equal(iom_journal_append(&j, IOM_J_MKFS, 0, "/dev/loop0 raw - -"), 0);
	iom_journal_close(&j);
	assert_int_equal(iom_journal_replay(dir, 1, &st, err, sizeof(err)), 0);
	assert_int_equal(st.nmkfs, 2);
	assert_string_equal(st.mkfs[0], "/dev/loop0 ext4 0b5e12ab-1 iom-0b5e12ab");
	assert_string_equal(st.mkfs[1], "/dev/loop0 raw - -");
	assert_string_equal(iom_journal_event_name(IOM_J_MKFS), "mkfs");
	iom_journal_state_release(&st);
}

static void test_journal_rejects_foreign_lines(void **state)
{
	const char *dir = *state;
	struct iom_journal_state st;
	char err[IOM_ERRLEN], *path = xasprintf("%s/journal", (const char *)dir);
	const char *text = "2026-01-01T00:00:00Z\trun-done\t9\truns/00009.json\n";

	assert_int_equal(iom_write_file_atomic(path, text, strlen(text)), 0);
	assert_int_equal(iom_journal_replay(dir, 3, &st, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "journal:1:"));
	iom_journal_state_release(&st);
	free(path);
}

/* The study-start's plan is kept, and kept too when a later line is out of the plan (a resume
 * names the changed plan); an empty journal says it never started. */
/* Adaptive rounds: the decisions and the runs they skip replay as written. */
static void test_journal_replays_decisions(void **state)
{
	const char *dir = *state;
	struct iom_journal_state st;
	char err[IOM_ERRLEN];
	static const struct event events[] = {
		{ IOM_J_STUDY_START, 0, "plan 0123 runs 6" },
		{ IOM_J_RUN_DONE, 1, "runs/00001.json" },
		{ IOM_J_RUN_DONE, 2, "runs/00002.json" },
		{ IOM_J_DECIDE, 3, "continue: ci 3.10% wider than 2% after 1" },
		{ IOM_J_DECIDE, 4, "stop: ci 1.20% within 2% after 1" },
		{ IOM_J_RUN_SKIPPED, 4, "ci 1.20% within 2% after 1" },
		{ IOM_J_RUN_SKIPPED, 6, "ci 1.20% within 2% after 1" },
	};

	write_events(dir, events, sizeof(events) / sizeof(events[0]));
	assert_int_equal(iom_journal_replay(dir, 6, &st, err, sizeof(err)), 0);
	assert_int_equal(st.skipped, 2);
	assert_int_equal(st.run[4], IOM_RS_SKIPPED);
	assert_int_equal(st.run[6], IOM_RS_SKIPPED);
	assert_int_equal(st.run[3], IOM_RS_PENDING);
	assert_int_equal(st.run[5], IOM_RS_PENDING);
	assert_true(st.decided[3] && st.decided[4] && !st.decided[5]);
	assert_string_equal(st.decision[4], "stop: ci 1.20% within 2% after 1");
	assert_null(st.decision[5]);
	assert_string_equal(iom_journal_event_name(IOM_J_DECIDE), "decide");
	assert_string_equal(iom_journal_event_name(IOM_J_RUN_SKIPPED), "run-skipped");
	iom_journal_state_release(&st);
}

static void test_journal_replays_study_plan(void **state)
{
	const char *dir = *state;
	struct iom_journal j;
	struct iom_journal_state st;
	char err[IOM_ERRLEN];

	assert_int_equal(iom_journal_open(&j, test_own(dir), err, sizeof(err)), 0);
	iom_journal_close(&j);
	assert_int_equal(iom_journal_replay(dir, 3, &st, err, sizeof(err)), 0);
	assert_false(st.started);
	assert_false(st.has_plan);
	assert_int_equal(st.events, 0);
	iom_journal_state_release(&st);

	assert_int_equal(iom_journal_open(&j, test_own(dir), err, sizeof(err)), 0);
	assert_int_equal(iom_journal_append(&j, IOM_J_STUDY_START, 0,
					    "plan 58de716f039c396c runs 10"), 0);
	assert_int_equal(iom_journal_append(&j, IOM_J_RUN_DONE, 9, "runs/00009.json"), 0);
	iom_journal_close(&j);
	assert_int_equal(iom_journal_replay(dir, 10, &st, err, sizeof(err)), 0);
	assert_true(st.started);
	assert_true(st.has_plan);
	assert_true(st.plan_hash == 0x58de716f039c396cull);
	assert_int_equal(st.plan_runs, 10);
	assert_int_equal(st.events, 2);
	iom_journal_state_release(&st);
	/* a plan of 6 runs: run 9 is out of it, and the plan the study began with is known */
	assert_int_equal(iom_journal_replay(dir, 6, &st, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "journal:2:"));
	assert_true(st.has_plan);
	assert_true(st.plan_hash == 0x58de716f039c396cull);
	iom_journal_state_release(&st);
}

/* The lock alone writes nothing: a resume checks the journal before it is opened (and its
 * torn tail cut). */
static void test_journal_lock_before_open(void **state)
{
	const char *dir = *state;
	struct iom_journal j, k;
	char err[IOM_ERRLEN], *path = xasprintf("%s/journal", (const char *)dir), *text;
	size_t len;

	assert_int_equal(iom_write_file_atomic(path, "a\tb\t0\tc\ntorn", 12), 0);
	assert_int_equal(iom_journal_lock(&j, test_own(dir), err, sizeof(err)), 0);
	assert_int_equal(j.fd, -1);
	assert_int_equal(iom_journal_open(&k, test_own(dir), err, sizeof(err)), -EBUSY);
	assert_int_equal(iom_read_file(path, &text, &len), 0);
	assert_int_equal(len, 12);
	free(text);
	assert_int_equal(iom_journal_open_locked(&j, test_own(dir), err, sizeof(err)), 0);
	assert_int_equal(iom_read_file(path, &text, &len), 0);
	assert_int_equal(len, 8); /* the torn tail is cut once opened */
	free(text);
	assert_int_equal(iom_journal_append(&j, IOM_J_NOTE, 0, "x"), 0);
	iom_journal_close(&j);
	assert_int_equal(iom_journal_open(&k, test_own(dir), err, sizeof(err)), 0);
	iom_journal_close(&k);
	free(path);
}

static void test_journal_lock_refuses_second_writer(void **state)
{
	const char *dir = *state;
	struct iom_journal a, b;
	char err[IOM_ERRLEN];

	assert_int_equal(iom_journal_open(&a, test_own(dir), err, sizeof(err)), 0);
	assert_int_equal(iom_journal_open(&b, test_own(dir), err, sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "in use by another iomatrix process"));
	iom_journal_close(&a);
	assert_int_equal(iom_journal_open(&b, test_own(dir), err, sizeof(err)), 0);
	iom_journal_close(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST_IN_TMPDIR(test_journal_replays_events),
		TEST_IN_TMPDIR(test_journal_restarted_run_is_pending),
		TEST_IN_TMPDIR(test_journal_ignores_torn_last_line),
		TEST_IN_TMPDIR(test_journal_interrupted_run_is_rerun),
		TEST_IN_TMPDIR(test_journal_replays_mkfs),
		TEST_IN_TMPDIR(test_journal_replays_decisions),
		TEST_IN_TMPDIR(test_journal_rejects_foreign_lines),
		TEST_IN_TMPDIR(test_journal_replays_study_plan),
		TEST_IN_TMPDIR(test_journal_lock_before_open),
		TEST_IN_TMPDIR(test_journal_lock_refuses_second_writer),
	};

	return cmocka_run_group_tests_name("journal", tests, NULL, NULL);
}
