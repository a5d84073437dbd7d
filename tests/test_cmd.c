/* SPDX-License-Identifier: MIT */
/*
 * Tests of cmd's one errno → exit-code table: for every command, the errnos that gave exit 2
 * before the table (each command's own list, copied here from the old main.c) give 2 and no
 * other errno does; 0 is 0; a finished sweep's outcome is 3 when interrupted, 1 when a run
 * failed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>

#include "cmd/cmd.h"
#include "util.h"

/* Every errno a module of iomatrix returns to a command, and a few it does not. */
static const int every_errno[] = {
	EINVAL, ENOENT, ENOTDIR, EISDIR, EACCES, ENODATA, EBADMSG, ENOTSUP, EEXIST, EPERM,
	EIO, ENOSPC, ENOMEM, EINTR, EUCLEAN, ESTALE, EBUSY, EROFS, EPIPE, E2BIG,
};

static const struct {
	const char *command;
	unsigned input;   /* what the command passes to iom_cmd_exit */
	int usage[8];     /* the errnos that were exit 2 before the table; 0 ends */
} commands[] = {
	{ "report", IOM_IN_INVALID | IOM_IN_MISSING | IOM_IN_NOTDIR, { EINVAL, ENOENT, ENOTDIR } },
	{ "trace", IOM_IN_INVALID | IOM_IN_MISSING | IOM_IN_DAMAGED | IOM_IN_DENIED,
	  { EINVAL, ENODATA, EBADMSG, ENOTSUP, ENOENT, EACCES, EISDIR } },
	{ "diskspd", IOM_IN_INVALID | IOM_IN_MISSING, { EINVAL, ENOENT } },
	{ "new", IOM_IN_EXISTS, { EEXIST } },
	{ "run/resume", IOM_IN_REFUSED, { EPERM } },
};

static bool listed(const int *list, int e)
{
	for (int i = 0; i < 8 && list[i]; i++)
		if (list[i] == e)
			return true;
	return false;
}

static void test_cmd_exit_codes_as_before(void **state)
{
	(void)state;
	for (size_t c = 0; c < IOM_ARRAY_SIZE(commands); c++) {
		assert_int_equal(iom_cmd_exit(0, commands[c].input), IOM_EXIT_OK);
		for (size_t i = 0; i < IOM_ARRAY_SIZE(every_errno); i++) {
			int e = every_errno[i];
			int want = listed(commands[c].usage, e) ? IOM_EXIT_USAGE : IOM_EXIT_FAIL;

			if (iom_cmd_exit(-e, commands[c].input) != want)
				fail_msg("%s: errno %d gives %d, not %d", commands[c].command, e,
					 iom_cmd_exit(-e, commands[c].input), want);
		}
	}
}

static void test_cmd_outcome(void **state)
{
	(void)state;
	assert_int_equal(iom_cmd_outcome(false, false), IOM_EXIT_OK);
	assert_int_equal(iom_cmd_outcome(false, true), IOM_EXIT_FAIL);
	assert_int_equal(iom_cmd_outcome(true, false), IOM_EXIT_INTERRUPTED);
	assert_int_equal(iom_cmd_outcome(true, true), IOM_EXIT_INTERRUPTED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmd_exit_codes_as_before),
		cmocka_unit_test(test_cmd_outcome),
	};

	return cmocka_run_group_tests_name("cmd", tests, NULL, NULL);
}
