/* SPDX-License-Identifier: MIT */
/*
 * cmd — the helpers every command shares (cmd.h): the one errno → exit-code table, error lines,
 * the check that stdout got everything, matrix → plan, preflight lines and the stop flag.
 */
#include "cmd.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/hosts.h"
#include "matrix/matrix.h"
#include "plan.h"
#include "preflight.h"
#include "util.h"

/* The one mutable global: set by SIGINT/SIGTERM, read by the sweep between and inside runs. */
static volatile sig_atomic_t stop_requested;

/* Which errno is of which input class (cmd.h); an errno not listed is never bad input. */
static const struct {
	int err;
	unsigned input;
} input_errnos[] = {
	{ EINVAL, IOM_IN_INVALID },
	{ ENOENT, IOM_IN_MISSING },
	{ ENOTDIR, IOM_IN_NOTDIR },
	{ ENODATA, IOM_IN_DAMAGED },
	{ EBADMSG, IOM_IN_DAMAGED },
	{ ENOTSUP, IOM_IN_DAMAGED },
	{ EACCES, IOM_IN_DENIED },
	{ EISDIR, IOM_IN_DENIED },
	{ EEXIST, IOM_IN_EXISTS },
	{ EPERM, IOM_IN_REFUSED },
};

int iom_cmd_exit(int ret, unsigned input)
{
	if (ret >= 0)
		return IOM_EXIT_OK;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(input_errnos); i++)
		if (input_errnos[i].err == -ret)
			return input_errnos[i].input & input ? IOM_EXIT_USAGE : IOM_EXIT_FAIL;
	return IOM_EXIT_FAIL;
}

int iom_cmd_outcome(bool interrupted, bool failed)
{
	if (interrupted)
		return IOM_EXIT_INTERRUPTED;
	return failed ? IOM_EXIT_FAIL : IOM_EXIT_OK;
}

int iom_cmd_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("iomatrix: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return IOM_EXIT_USAGE;
}

void iom_cmd_print_error(char *err)
{
	for (unsigned char *q = (unsigned char *)err; *q; q++)
		if (*q < 0x20 || *q == 0x7f)
			*q = '?';
	fprintf(stderr, "%s\n", err);
}

int iom_cmd_finish(int code)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "iomatrix: cannot write to standard output: %s\n",
			strerror(errno ? errno : EIO));
		return code == IOM_EXIT_OK ? IOM_EXIT_FAIL : code;
	}
	return code;
}

int iom_cmd_load_plan(const struct cli *cli, const char *path, struct iom_matrix **m,
		      struct iom_plan *p)
{
	char err[IOM_ERRLEN];
	int ret;

	ret = iom_matrix_load(path, cli->ov, cli->nov, m, err, sizeof(err));
	if (ret < 0) {
		iom_cmd_print_error(err);
		return IOM_EXIT_USAGE;
	}
	iom_cmd_print_matrix_notes(*m);
	/* many hosts: the job's ranks, before the plan (hosts = "each", ranks = N) */
	ret = iom_matrix_place(*m, cli->hosts ? cli->hosts->size : 1,
			       cli->hosts && cli->hosts->names ?
			       (const char *const *)cli->hosts->names : NULL, err, sizeof(err));
	if (ret == 0)
		ret = iom_plan_build(*m, p, err, sizeof(err));
	if (ret < 0) {
		if (!cli->hosts || cli->hosts->rank == 0) /* every rank plans alike: rank 0 says */
			iom_cmd_print_error(err);
		iom_matrix_free(*m);
		*m = NULL;
		return IOM_EXIT_USAGE;
	}
	return 0;
}

void iom_cmd_print_matrix_notes(const struct iom_matrix *m)
{
	if (m && m->notes)
		fputs(m->notes, stderr);
}

void iom_cmd_print_preflight(const struct iom_matrix *m, const struct iom_preflight *pf,
			     FILE *log)
{
	for (size_t i = 0; i < pf->n; i++) {
		char *line = xasprintf("%s:%d: %s%s", m->file, pf->d[i].line,
				       pf->d[i].error ? "" : "warning: ", pf->d[i].msg);

		iom_cmd_print_error(line);
		if (log)
			fprintf(log, "%s\n", line);
		free(line);
	}
}

static void on_stop_signal(int sig)
{
	if (stop_requested)
		signal(sig, SIG_DFL), raise(sig); /* a second signal stops at once */
	stop_requested = 1;
}

volatile sig_atomic_t *iom_cmd_stop_on_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGHUP, SIG_IGN); /* an overnight sweep outlives its terminal */
	return &stop_requested;
}
