/* SPDX-License-Identifier: MIT */
/*
 * cmd_new — `iomatrix new`: a commented matrix file to start from, from a preset (preset.c),
 * printed or written to --output (never replacing a file).
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "preset.h"
#include "util.h"

int iom_cmd_new(struct cli *cli)
{
	const char *preset = cli->given[OPT_PRESET] ? cli->value[OPT_PRESET] : IOM_PRESET_DEFAULT;
	const char *path = cli->value[OPT_OUTPUT];
	char err[IOM_ERRLEN], *text;
	int ret;

	ret = iom_preset_write(preset, (const char *const *)cli->args, (size_t)cli->nargs, &text,
			       err, sizeof(err));
	if (ret < 0) {
		iom_cmd_print_error(err);
		return IOM_EXIT_USAGE;
	}
	if (!cli->given[OPT_OUTPUT]) {
		fputs(text, stdout);
		free(text);
		return iom_cmd_finish(IOM_EXIT_OK);
	}
	ret = iom_preset_save(path, text, "new", err, sizeof(err));
	free(text);
	if (ret < 0) {
		iom_cmd_print_error(err);
		return iom_cmd_exit(ret, IOM_IN_EXISTS);
	}
	printf("wrote %s (preset %s); next: iomatrix check %s; iomatrix plan %s; iomatrix run %s\n",
	       path, preset, path, path, path);
	return iom_cmd_finish(IOM_EXIT_OK);
}

