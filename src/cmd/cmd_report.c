/* SPDX-License-Identifier: MIT */
/*
 * cmd_report — the commands that read what a sweep left: `report` (the winners of one or more
 * results directories, in any format, or one run DiskSpd-style) and `trace` (a run's trace
 * decoded to CSV or fio logs). Both are thin: the report and trace modules do the work; here
 * the options are handed over and a failure mapped to an exit code (cmd.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "host/hosts.h"
#include "report/report.h"
#include "trace/trace.h"
#include "util.h"

int iom_cmd_report(struct cli *cli)
{
	struct iom_report_opts_cli o = {
		.compare = cli->value[OPT_COMPARE],
		.color = -1,
		.format = cli->value[OPT_FORMAT],
		.alpha = cli->value[OPT_ALPHA],
		.min_effect = cli->value[OPT_MIN_EFFECT],
		.max_cv = cli->value[OPT_MAX_CV],
		.correction = cli->value[OPT_CORRECTION],
		.cell = cli->value[OPT_CELL],
		.run = cli->value[OPT_RUN],
		.output = cli->value[OPT_OUTPUT],
		.baseline = cli->value[OPT_BASELINE],
	};
	char err[IOM_ERRLEN];
	int ret;

	if (cli->given[OPT_WIDTH]) {
		char *end;
		long w = strtol(cli->value[OPT_WIDTH], &end, 10);

		if (*end || end == cli->value[OPT_WIDTH] || w < 40 || w > 10000)
			return iom_cmd_usage_error("--width takes a number of columns from 40 to "
						   "10000 (got '%s')", cli->value[OPT_WIDTH]);
		o.width = (unsigned)w;
	} else {
		o.width = (unsigned)iom_term_width(1, 100);
	}
	ret = iom_report_main(stdout, (const char *const *)cli->args, (size_t)cli->nargs, &o, err,
			      sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "iomatrix: %s\n", err);
		return iom_cmd_exit(ret, IOM_IN_INVALID | IOM_IN_MISSING | IOM_IN_NOTDIR);
	}
	return iom_cmd_finish(IOM_EXIT_OK);
}

int iom_cmd_trace(struct cli *cli)
{
	struct iom_trace_export x = {
		.format = IOM_TRACE_CSV,
		.out = cli->value[OPT_OUTPUT],
		.measured_only = cli->given[OPT_MEASURED],
	};
	char err[IOM_ERRLEN];
	int ret;

	if (cli->given[OPT_FORMAT]) {
		int f = iom_trace_format_parse(cli->value[OPT_FORMAT]);

		if (f < 0)
			return iom_cmd_usage_error("unknown format '%s' (use csv, fio or fio-plot)",
						   cli->value[OPT_FORMAT]);
		x.format = (enum iom_trace_format)f;
	}
	if (x.format == IOM_TRACE_FIO_PLOT && !cli->given[OPT_MERGE]) {
		/* fio-plot's names: -o is the directory the logs go to */
		char *prefix = iom_report_fio_plot_prefix(cli->args[0], x.out, err, sizeof(err));

		if (!prefix) {
			fprintf(stderr, "iomatrix: %s\n", err);
			return iom_cmd_exit(-ENOENT, IOM_IN_MISSING);
		}
		x.out = prefix;
		ret = iom_trace_export(cli->args[0], &x, NULL, err, sizeof(err));
		free(prefix);
		if (ret == 0)
			return iom_cmd_finish(IOM_EXIT_OK);
		fprintf(stderr, "iomatrix: %s\n", err);
		return iom_cmd_exit(ret, IOM_IN_INVALID | IOM_IN_MISSING | IOM_IN_DAMAGED |
				    IOM_IN_DENIED);
	}
	if (cli->given[OPT_MERGE]) {
		if (x.format != IOM_TRACE_CSV)
			return iom_cmd_usage_error("--merge writes csv");
		ret = iom_hosts_trace_merge(cli->args[0], x.out, x.measured_only, err,
					    sizeof(err));
	} else {
		ret = iom_trace_export(cli->args[0], &x, NULL, err, sizeof(err));
	}
	if (ret == 0)
		return iom_cmd_finish(IOM_EXIT_OK);
	fprintf(stderr, "iomatrix: %s\n", err);
	/* damaged, foreign or missing input: 2 (what was intact has been written); output: 1 */
	return iom_cmd_exit(ret, IOM_IN_INVALID | IOM_IN_MISSING | IOM_IN_DAMAGED | IOM_IN_DENIED);
}
