/*
 * Tests of the sweep journal: events round-trip through replay, a torn last line is ignored, a
 * run started and never finished is reported as in progress, and the lock refuses a second
 * writer.
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
#include "util.h"

static int make_dir(void **state)
{
	char tmpl[] = "/tmp/iom-journal-XXXXXX";

	*state = xstrdup(mkdtemp(tmpl));
	return *state ? 0 : -1;
}

static int remove_dir(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", (char *)*state);
	int rc = system(cmd);

	free(cmd);
	free(*state);
	return rc;
}

static void test_journal_replays_events(void **state)
{
	const char *dir = *state;
	struct iom_journal j;
	struct iom_journal_state st;
	char err[IOM_ERRLEN];

	assert_int_equal(iom_journal_open(&j, dir, err, sizeof(err)), 0);
	assert_int_equal(iom_journal_append(&j, IOM_J_STUDY_START, 0, "plan 0123"), 0);
	assert_int_equal(iom_journal_append(&j, IOM_J_RUN_START, 1, NULL), 0);
	assert_int_equal(iom_journal_append(&j, IOM_J_RUN_DONE, 1, "runs/00001.json"), 0);
	assert_int_equal(iom_journal_append(&j, IOM_J_RUN_START, 2, NULL), 0);
	assert_int_equal(iom_journal_append(&j, IOM_J_RUN_FAILED, 2, "cannot\topen\nx"), 0);
	assert_int_equal(iom_journal_append(&j, IOM_J_RUN_START, 3, NULL), 0);
	iom_journal_close(&j);

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

static void test_journal_ignores_torn_last_line(void **state)
{
	const char *dir = *state;
	struct iom_journal j;
	struct iom_journal_state st;
	char err[IOM_ERRLEN], *path;
	int fd;

	assert_int_equal(iom_journal_open(&j, dir, err, sizeof(err)), 0);
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
	assert_int_equal(iom_journal_open(&j, dir, err, sizeof(err)), 0);
	assert_int_equal(iom_journal_append(&j, IOM_J_RUN_DONE, 1, "runs/00001.json"), 0);
	iom_journal_close(&j);
	assert_int_equal(iom_journal_replay(dir, 1, &st, err, sizeof(err)), 0);
	assert_int_equal(st.torn_lines, 0);
	assert_int_equal(st.done, 1);
	assert_int_equal(st.in_progress, 0);
	iom_journal_state_release(&st);
}

/* mkfs events keep their details, in order, for the filesystems this study may replace. */
static void test_journal_replays_mkfs(void **state)
{
	const char *dir = *state;
	struct iom_journal j;
	struct iom_journal_state st;
	char err[IOM_ERRLEN];

	assert_int_equal(iom_journal_open(&j, dir, err, sizeof(err)), 0);
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

static void test_journal_lock_refuses_second_writer(void **state)
{
	const char *dir = *state;
	struct iom_journal a, b;
	char err[IOM_ERRLEN];

	assert_int_equal(iom_journal_open(&a, dir, err, sizeof(err)), 0);
	assert_int_equal(iom_journal_open(&b, dir, err, sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "in use by another iomatrix process"));
	iom_journal_close(&a);
	assert_int_equal(iom_journal_open(&b, dir, err, sizeof(err)), 0);
	iom_journal_close(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_journal_replays_events, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_journal_ignores_torn_last_line, make_dir,
						remove_dir),
		cmocka_unit_test_setup_teardown(test_journal_replays_mkfs, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_journal_rejects_foreign_lines, make_dir,
						remove_dir),
		cmocka_unit_test_setup_teardown(test_journal_lock_refuses_second_writer, make_dir,
						remove_dir),
	};

	return cmocka_run_group_tests_name("journal", tests, NULL, NULL);
}
