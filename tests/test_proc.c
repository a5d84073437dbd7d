/* SPDX-License-Identifier: MIT */
/*
 * test_proc — child processes without a shell of ours: a program that cannot start, one found
 * in PATH, its exit status with the last line of its output in the message, the command line
 * as the log and the result show it (quoted where needed), the environment (the caller's
 * entries in, stale IOMATRIX_* out), the log file with its header and outcome, a timeout that
 * kills the program, and the stop flag.
 *
 * The log cases work in a temporary directory of their own, removed at the end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "util.h"

static void assert_has(const char *s, const char *part)
{
	if (!s || !strstr(s, part))
		fail_msg("'%s' does not contain '%s'", s ? s : "(null)", part);
}

static void test_proc_not_started(void **state)
{
	const char *argv[] = { "/nonexistent/iomatrix-tool", "-x", NULL };
	struct iom_proc_result r;
	char err[IOM_ERRLEN];

	(void)state;
	assert_int_equal(iom_proc_run("the tool", argv, NULL, &r, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "cannot start the tool ('/nonexistent/iomatrix-tool'): No such "
				 "file or directory");
	assert_int_equal(r.outcome, IOM_PROC_NOT_STARTED);
	iom_proc_result_release(&r);
}

static void test_proc_exit_status_and_command(void **state)
{
	const char *argv[] = { "sh", "-c", "echo one; echo \"it's $IOMATRIX_X\" >&2; exit 2", NULL };
	const char *env[] = { "IOMATRIX_X=from the caller", NULL };
	struct iom_proc_opts o = { .env = env };
	struct iom_proc_result r;
	char err[IOM_ERRLEN];

	(void)state;
	/* a program found in PATH, the caller's entries in its environment */
	assert_int_equal(iom_proc_run("sh", argv, &o, &r, err, sizeof(err)), -EIO);
	assert_string_equal(err, "sh exited with status 2: it's from the caller");
	assert_int_equal(r.outcome, IOM_PROC_EXITED);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.tail, "one\nit's from the caller");
	/* plain words as they are, the others quoted for /bin/sh */
	assert_string_equal(r.command,
			    "sh -c 'echo one; echo \"it'\\''s $IOMATRIX_X\" >&2; exit 2'");
	iom_proc_result_release(&r);

	/* o->command replaces the quoted argv; success */
	{
		const char *ok[] = { "true", NULL };
		struct iom_proc_opts oc = { .command = "shown instead" };

		assert_int_equal(iom_proc_run("true", ok, &oc, &r, err, sizeof(err)), 0);
		assert_int_equal(r.outcome, IOM_PROC_OK);
		assert_string_equal(r.command, "shown instead");
		assert_string_equal(r.tail, "");
		iom_proc_result_release(&r);
	}
}

static void test_proc_environment_drops_stale(void **state)
{
	const char *argv[] = { "sh", "-c", "env | grep '^IOMATRIX_' | sort", NULL };
	const char *env[] = { "IOMATRIX_NEW=1", NULL };
	struct iom_proc_opts o = { .env = env };
	struct iom_proc_result r;
	char err[IOM_ERRLEN];

	(void)state;
	setenv("IOMATRIX_STALE", "from the parent", 1);
	setenv("IOMATRIX_PROC_TEST_KEEP", "x", 1);
	assert_int_equal(iom_proc_run("env", argv, &o, &r, err, sizeof(err)), 0);
	unsetenv("IOMATRIX_STALE");
	unsetenv("IOMATRIX_PROC_TEST_KEEP");
	assert_string_equal(r.tail, "IOMATRIX_NEW=1");
	iom_proc_result_release(&r);
}

static void test_proc_log_timeout_and_stop(void **state)
{
	char dir[] = "/tmp/iom-proc-XXXXXX";
	char err[IOM_ERRLEN], *log, *text = NULL, *rm;
	const char *slow[] = { "sh", "-c", "echo started; sleep 30", NULL };
	struct iom_proc_opts o = { .timeout_ns = 1000000000ull };
	volatile sig_atomic_t stop = 1;
	struct iom_proc_result r;

	(void)state;
	assert_non_null(mkdtemp(dir));
	log = xasprintf("%s/made/by/proc.log", dir);
	o.log_path = log;
	assert_int_equal(iom_proc_run("the slow one", slow, &o, &r, err, sizeof(err)), -ETIMEDOUT);
	assert_string_equal(err, "the slow one timed out after 1s and was killed: started");
	assert_int_equal(r.outcome, IOM_PROC_TIMED_OUT);
	iom_proc_result_release(&r);
	/* the log (its directories made): header, command, output and outcome */
	assert_int_equal(iom_read_file(log, &text, NULL), 0);
	assert_has(text, "# the slow one at ");
	assert_has(text, ":\n# sh -c 'echo started; sleep 30'\nstarted\n# failed after ");
	assert_has(text, ": the slow one timed out after 1s and was killed: started\n");
	free(text);

	o = (struct iom_proc_opts){ .stop = &stop };
	assert_int_equal(iom_proc_run("the slow one", slow, &o, &r, err, sizeof(err)), -EINTR);
	assert_has(err, "the slow one was stopped");
	assert_int_equal(r.outcome, IOM_PROC_INTERRUPTED);
	iom_proc_result_release(&r);

	rm = xasprintf("rm -r -- '%s'", dir);
	assert_int_equal(system(rm), 0);
	free(rm);
	free(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_proc_not_started),
		cmocka_unit_test(test_proc_exit_status_and_command),
		cmocka_unit_test(test_proc_environment_drops_stale),
		cmocka_unit_test(test_proc_log_timeout_and_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
