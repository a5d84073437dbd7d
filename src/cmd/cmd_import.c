/* SPDX-License-Identifier: MIT */
/*
 * cmd_import — `iomatrix import FILE`: a fio job file, a DiskSpd XML profile or an IOMeter .icf
 * turned into a commented matrix (import.c), printed or written to --output (never replacing a
 * file). Each option with no equivalent is printed as FILE:LINE: message; with --lenient they
 * are kept as comments and the matrix is written anyway.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "import/import.h"
#include "preset.h"
#include "util.h"

int iom_cmd_import(struct cli *cli)
{
	enum iom_import_format format = IOM_IMPORT_AUTO;
	const char *path = cli->args[0], *fmt = cli->value[OPT_FORMAT];
	bool lenient = cli->given[OPT_LENIENT];
	struct iom_import im;
	char err[IOM_ERRLEN];
	int ret;

	if (fmt) {
		if (strcmp(fmt, "fio") == 0)
			format = IOM_IMPORT_FIO;
		else if (strcmp(fmt, "diskspd") == 0)
			format = IOM_IMPORT_DISKSPD;
		else if (strcmp(fmt, "icf") == 0)
			format = IOM_IMPORT_ICF;
		else
			return iom_cmd_usage_error("unknown import format '%s' (fio, diskspd or icf)",
						   fmt);
	}
	ret = iom_import_file(path, format, lenient, &im, err, sizeof(err));
	for (size_t i = 0; i < im.nproblems; i++) {
		if (lenient && ret == 0)
			fprintf(stderr, "%s (kept as a comment)\n", im.problems[i]);
		else
			iom_cmd_print_error(im.problems[i]);
	}
	if (ret < 0) {
		iom_cmd_print_error(err);
		iom_import_release(&im);
		return iom_cmd_exit(ret, IOM_IN_INVALID | IOM_IN_MISSING | IOM_IN_DENIED);
	}
	if (!cli->given[OPT_OUTPUT]) {
		fputs(im.text, stdout);
		iom_import_release(&im);
		return iom_cmd_finish(IOM_EXIT_OK);
	}
	ret = iom_preset_save(cli->value[OPT_OUTPUT], im.text, "import", err,
			      sizeof(err));
	iom_import_release(&im);
	if (ret < 0) {
		iom_cmd_print_error(err);
		return iom_cmd_exit(ret, IOM_IN_EXISTS);
	}
	printf("wrote %s; next: iomatrix check %s; iomatrix plan %s; iomatrix run %s\n",
	       cli->value[OPT_OUTPUT], cli->value[OPT_OUTPUT], cli->value[OPT_OUTPUT],
	       cli->value[OPT_OUTPUT]);
	return iom_cmd_finish(IOM_EXIT_OK);
}
