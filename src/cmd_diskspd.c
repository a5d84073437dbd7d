/* SPDX-License-Identifier: MIT */
/*
 * cmd_diskspd — `iomatrix diskspd`: DiskSpd's flags turned into a one-cell study (diskspd.c),
 * run and printed DiskSpd-style, or only its matrix printed (--matrix).
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "diskspd.h"
#include "util.h"

/* cli->args holds every argument after "diskspd", unparsed: DiskSpd's flags and the target. */
int iom_cmd_diskspd(struct cli *cli)
{
	struct iom_diskspd_outcome res;
	struct iom_diskspd d;
	char err[IOM_ERRLEN], *text;
	int ret;

	if (iom_diskspd_parse(cli->nargs, cli->args, &d, err, sizeof(err)) < 0)
		return iom_cmd_usage_error("%s", err);
	if (d.help) {
		iom_diskspd_usage(stdout);
		iom_diskspd_release(&d);
		return iom_cmd_finish(IOM_EXIT_OK);
	}
	if (d.matrix_only || d.print_fio) {
		ret = d.print_fio ? iom_diskspd_fio(&d, &text, err, sizeof(err))
				  : iom_diskspd_matrix(&d, &text, err, sizeof(err));
		iom_diskspd_release(&d);
		if (ret < 0)
			return iom_cmd_usage_error("%s", err);
		fputs(text, stdout);
		free(text);
		return iom_cmd_finish(IOM_EXIT_OK);
	}
	ret = iom_diskspd_run(&d, stdout, stderr, iom_cmd_stop_on_signals(), &res, err,
			      sizeof(err));
	iom_diskspd_release(&d);
	if (ret < 0) {
		fprintf(stderr, "iomatrix: %s\n", err);
		return iom_cmd_exit(ret, IOM_IN_INVALID | IOM_IN_MISSING);
	}
	if (res.interrupted || res.failed)
		fprintf(stderr, "iomatrix: %s\n", err);
	return iom_cmd_finish(iom_cmd_outcome(res.interrupted, res.failed));
}
