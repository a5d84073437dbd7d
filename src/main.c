/* SPDX-License-Identifier: MIT */
/*
 * main — the iomatrix command line: a table of commands and a table of options, as tmux and git
 * do it. One parser reads every command line into a struct cli (cmd.h: positional arguments,
 * options, --set overrides), checks it against the command's entry (which options it takes, how
 * many arguments), and hands it to the command's function, which returns an exit code. The
 * commands live in cmd_*.c (cmd.h); only help and version, which print these tables, are here.
 *
 * Adding a command is one line in commands[] and a function iom_cmd_NAME in a cmd_*.c (declared
 * in cmd.h); adding an option is one line in options[], its OPT_ in cmd.h, and a bit in the
 * commands that take it. Help text comes from the same tables.
 *
 * Exit codes (util.h, mapped in cmd.c): 0 ok, 1 runtime failure, 2 usage or invalid matrix,
 * 3 interrupted. Messages go to stderr, one line each: "FILE:LINE: message" for matrices,
 * "iomatrix: message" otherwise. Only this file exits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "host/hosts.h"
#include "import/diskspd.h"
#include "keys.h"
#include "matrix/matrix.h"
#include "util.h"
#ifdef IOM_HOSTS_MPI
#include "host/host_mpi.h"
#endif

#ifndef IOM_VERSION
#define IOM_VERSION "0.1"
#endif

struct option_def {
	const char *name;    /* long name, without "--" */
	char short_name;     /* 0: none */
	const char *arg;     /* name of its value for help; NULL: a flag */
	const char *help;
};

static const struct option_def options[OPT_COUNT] = {
	[OPT_PRESET] = { "preset", 'p', "NAME",
			  "the template: quick (default), atto, diskspd, iometer or crystaldiskmark" },
	[OPT_MAN] = { "man", 0, NULL, "print the key table (or diskspd's flags) as roff, for the man pages" },
	[OPT_MATRIX_ONLY] = { "matrix-only", 0, NULL,
			      "check the file alone, not whether this machine can run it (its "
			      "paths, devices and free space)" },
	[OPT_FORMAT] = { "format", 'f', "FORMAT", "the output format" },
	[OPT_SET] = { "set", 's', "KEY=VALUE",
		      "override a matrix key, e.g. --set block_size=[4K,64K] (repeatable)" },
	[OPT_MARKDOWN] = { "markdown", 0, NULL, "print the key table as Markdown" },
	[OPT_OUTPUT] = { "output", 'o', "PATH", "the file to write" },
	[OPT_QUIET] = { "quiet", 'q', NULL, "print only errors and the final summary" },
	[OPT_RUN] = { "run", 'r', "N",
		      "text: the DiskSpd-style report of run N (DIR:N with several directories); "
		      "html: the run of the IOPS-over-time chart" },
	[OPT_COMPARE] = { "compare", 'c', "DIM",
			  "the dimension whose values compete, or 'study' (alias 'directory'): "
			  "each target, study against study (default: the study's; 'study' when "
			  "the studies differ in a recorded fact)" },
	[OPT_NO_TRACE] = { "no-trace", 0, NULL, "do not record per-I/O traces in this sweep" },
	[OPT_ALPHA] = { "alpha", 0, "P", "significance threshold of Welch's t-test (default: "
					 "the study's report.alpha, 0.05)" },
	[OPT_MIN_EFFECT] = { "min-effect", 0, "PCT",
			     "smallest margin that wins (default: report.min_effect, 2%)" },
	[OPT_MAX_CV] = { "max-cv", 0, "PCT",
			 "coefficient of variation above which a cell is noisy (default 5%)" },
	[OPT_CELL] = { "cell", 0, "CELL", "html: the cell of the percentile and time charts" },
	[OPT_MEASURED] = { "measured-only", 0, NULL, "only the I/O of the measured window" },
	[OPT_ALLOW_HOOKS] = { "allow-hooks", 0, NULL,
			      "run the shell commands of the matrix's hooks section" },
	[OPT_LOG] = { "log", 0, "FILE", "append the per-run lines and warnings to FILE too" },
	[OPT_WIDTH] = { "width", 'w', "N", "text: the columns to fit the tables in (default: "
					   "COLUMNS, the terminal's width, else 100)" },
	[OPT_LIKE] = { "like", 0, "DIR", "estimate the trace size and a size-bound plan's time from "
					 "a previous study's runs in DIR (its IOPS per block size, "
					 "its trace bytes per I/O)" },
	[OPT_BASELINE] = { "baseline", 0, "DIR", "the study that is \"before\" (A): the others "
						 "are compared with it (B vs A)" },
	[OPT_CORRECTION] = { "correction", 0, "HOW",
			     "multiple-comparison correction: holm|bh|none (default: "
			     "report.correction, holm)" },
	[OPT_METRICS] = { "metrics", 0, "FILE", "rewrite FILE (Prometheus text) after every 1-second "
			  "interval, for node_exporter's textfile collector" },
	[OPT_LIVE] = { "live", 0, "FILE", "append every 1-second interval to FILE as it ends (JSON "
		       "lines; CSV when FILE ends in .csv)" },
	[OPT_MERGE] = { "merge", 0, NULL, "trace: every rank's trace of the run (iomatrix-mpi), "
					  "in time order by the recorded clock offsets" },
	[OPT_LENIENT] = { "lenient", 0, NULL, "keep the options with no iomatrix equivalent as "
					      "comments of the matrix instead of refusing the file" },
};

/* An option's help in one command's own words, where the generic line of options[] would
 * speak of other commands. */
static const struct {
	const char *command;
	int option;
	const char *help;
} own_help[] = {
	{ "plan", OPT_FORMAT, "text (default), tsv or json" },
	{ "report", OPT_FORMAT, "text (default), md, csv, json, html, fio-json, fio-jsonplus, "
	  "openmetrics or diskspd-xml" },
	{ "trace", OPT_FORMAT, "csv (default), fio (latency logs) or fio-plot (fio-plot's names, "
	  "with bw and iops logs)" },
	{ "new", OPT_OUTPUT, "the matrix file to write (never replaced; default: standard output)" },
	{ "import", OPT_OUTPUT, "the matrix file to write (never replaced; default: standard "
				"output)" },
	{ "import", OPT_FORMAT, "fio (a job file), diskspd (an XML profile) or icf (IOMeter); "
				"default: by the file's name (.fio .ini .job, .xml, .icf), else its "
				"content" },
	{ "run", OPT_OUTPUT, "the results directory (default results/<name>-<UTC time>); it must "
			     "be new or empty" },
	{ "report", OPT_OUTPUT, "the file to write (default: standard output)" },
	{ "trace", OPT_OUTPUT, "the file to write; with --format fio the prefix of the logs" },
	{ "check", OPT_SET, "override a matrix key before checking, e.g. --set "
			    "block_size=[4K,64K] (repeatable)" },
};

/* The help of option o as command c says it. */
static const char *option_help(const char *command, int o)
{
	for (size_t i = 0; i < sizeof(own_help) / sizeof(own_help[0]); i++)
		if (own_help[i].option == o && strcmp(own_help[i].command, command) == 0)
			return own_help[i].help;
	return options[o].help;
}

struct command {
	const char *name;
	int (*fn)(struct cli *cli);
	const char *args;  /* positional arguments for the usage line */
	int min_args, max_args; /* max_args < 0: any number */
	unsigned opts;     /* bit (1 << OPT_x) for each option taken */
	const char *help;  /* one line */
};

static int cmd_help(struct cli *cli);
static int cmd_version(struct cli *cli);

#define O(x) (1u << (x))

static const struct command commands[] = {
	{ "check", iom_cmd_check, "MATRIX...", 1, -1, O(OPT_SET) | O(OPT_MATRIX_ONLY),
	  "check matrix files and that this machine can run them: exit 0 when every one can" },
	{ "plan", iom_cmd_plan, "MATRIX", 1, 1,
	  O(OPT_FORMAT) | O(OPT_SET) | O(OPT_ALLOW_HOOKS) | O(OPT_LIKE),
	  "print the ordered runs of a matrix, their count, time, memory, trace size and disk "
	  "space" },
	{ "run", iom_cmd_run, "MATRIX", 1, 1,
	  O(OPT_OUTPUT) | O(OPT_SET) | O(OPT_QUIET) | O(OPT_NO_TRACE) | O(OPT_ALLOW_HOOKS) |
		  O(OPT_LOG) | O(OPT_METRICS) | O(OPT_LIVE),
	  "run every run of a matrix's plan into a results directory, then print the winners" },
	{ "resume", iom_cmd_resume, "DIR", 1, 1,
	  O(OPT_QUIET) | O(OPT_NO_TRACE) | O(OPT_ALLOW_HOOKS) | O(OPT_LOG) | O(OPT_METRICS) |
		  O(OPT_LIVE),
	  "carry on an interrupted sweep from its results directory" },
	{ "report", iom_cmd_report, "DIR...", 1, -1,
	  O(OPT_FORMAT) | O(OPT_OUTPUT) | O(OPT_RUN) | O(OPT_COMPARE) | O(OPT_ALPHA) |
		  O(OPT_MIN_EFFECT) | O(OPT_MAX_CV) | O(OPT_CELL) | O(OPT_WIDTH) | O(OPT_BASELINE) |
		  O(OPT_CORRECTION),
	  "the winners of one or more results directories (text, md, csv, json, html), or one "
	  "run DiskSpd-style" },
	{ "trace", iom_cmd_trace, "FILE", 1, 1, O(OPT_FORMAT) | O(OPT_OUTPUT) | O(OPT_MEASURED) |
	  O(OPT_MERGE),
	  "decode a run's trace to CSV or to fio latency logs" },
	{ "new", iom_cmd_new, "[PATH...]", 0, -1, O(OPT_PRESET) | O(OPT_OUTPUT),
	  "write a commented matrix file to start from, one target per PATH" },
	{ "diskspd", iom_cmd_diskspd, "[DISKSPD OPTIONS] TARGET", 1, -1, 0,
	  "a one-cell study from DiskSpd's flags (or -X profile.xml), printed DiskSpd-style" },
	{ "import", iom_cmd_import, "FILE", 1, 1, O(OPT_OUTPUT) | O(OPT_LENIENT) | O(OPT_FORMAT),
	  "a commented matrix from a fio job file, a DiskSpd XML profile or an IOMeter .icf" },
	{ "help", cmd_help, "[COMMAND|keys]", 0, 1, O(OPT_MARKDOWN) | O(OPT_MAN),
	  "show the commands, one command's usage, or every matrix key" },
	{ "version", cmd_version, "", 0, 0, 0, "print the version of iomatrix" },
};

/* ---- the tables, printed ----------------------------------------------------------------- */

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < IOM_ARRAY_SIZE(commands); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

/* Writes text from column col on, wrapped at spaces to width, continuation lines at indent. */
static void print_wrapped(FILE *out, const char *text, int col, int indent, int width)
{
	bool fresh = true;

	while (*text) {
		size_t wl = strcspn(text, " ");
		int w = 0;

		for (size_t i = 0; i < wl; i++)
			w += ((unsigned char)text[i] & 0xC0) != 0x80;
		if (!fresh && col + 1 + w > width) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else if (!fresh) {
			fputc(' ', out);
			col++;
		}
		fwrite(text, 1, wl, out);
		col += w;
		fresh = false;
		text += wl;
		while (*text == ' ')
			text++;
	}
	fputc('\n', out);
}

/* The usage line, wrapped to the terminal, an option's brackets kept on one line. */
static void print_usage(FILE *out, const struct command *c)
{
	int width = iom_term_width(fileno(out), 80);
	int indent = (int)strlen("usage: iomatrix ") + (int)strlen(c->name) + 1;
	int col;

	fprintf(out, "usage: iomatrix %s", c->name);
	col = indent - 1;
	if (c->args[0]) {
		fprintf(out, " %s", c->args);
		col += 1 + (int)strlen(c->args);
	}
	for (int o = 0; o < OPT_COUNT; o++) {
		char item[96];
		int w;

		if (!(c->opts & O(o)))
			continue;
		if (options[o].arg)
			snprintf(item, sizeof(item), "[--%s %s]%s", options[o].name, options[o].arg,
				 o == OPT_SET ? "..." : "");
		else
			snprintf(item, sizeof(item), "[--%s]", options[o].name);
		w = (int)strlen(item);
		if (col + 1 + w > width) {
			fprintf(out, "\n%*s%s", indent, "", item);
			col = indent + w;
		} else {
			fprintf(out, " %s", item);
			col += 1 + w;
		}
	}
	fputc('\n', out);
}

/* A command's usage line, what it does and its options: 'iomatrix help CMD', 'CMD --help';
 * the options' help wrapped to the terminal (COLUMNS, its width, 80). */
static void print_command_help(FILE *out, const struct command *c)
{
	int width = iom_term_width(fileno(out), 80);

	print_usage(out, c);
	fputc('\n', out);
	print_wrapped(out, c->help, 0, 0, width);
	for (int o = 0; o < OPT_COUNT; o++) {
		char opt[64];

		if (!(c->opts & O(o)))
			continue;
		if (options[o].short_name)
			snprintf(opt, sizeof(opt), "-%c, --%s%s%s", options[o].short_name,
				 options[o].name, options[o].arg ? " " : "",
				 options[o].arg ? options[o].arg : "");
		else
			snprintf(opt, sizeof(opt), "--%s%s%s", options[o].name,
				 options[o].arg ? " " : "", options[o].arg ? options[o].arg : "");
		fprintf(out, "  %-28s ", opt);
		print_wrapped(out, option_help(c->name, o), 31, 31, width);
	}
}

/* ---- parsing ------------------------------------------------------------------------------- */

static int add_override(struct cli *cli, const char *text)
{
	const char *eq = strchr(text, '=');
	char *key;

	if (!eq || eq == text)
		return iom_cmd_usage_error("--set needs KEY=VALUE, e.g. --set block_size=64K "
					   "(got '%s')", text);
	key = xasprintf("%.*s", (int)(eq - text), text);
	cli->ov = xrealloc(cli->ov, (cli->nov + 1) * sizeof(*cli->ov));
	cli->ov[cli->nov].key = key;
	cli->ov[cli->nov].value = eq + 1;
	cli->nov++;
	return 0;
}

static int set_option(struct cli *cli, int o, const char *value)
{
	cli->given[o] = true;
	cli->value[o] = value;
	if (o == OPT_SET)
		return add_override(cli, value);
	return 0;
}

/* Finds an option by long name (name of len bytes) or short letter; -1 when unknown. */
static int find_option(const char *name, size_t len, char letter)
{
	for (int o = 0; o < OPT_COUNT; o++) {
		if (letter && options[o].short_name == letter)
			return o;
		if (!letter && strlen(options[o].name) == len &&
		    strncmp(options[o].name, name, len) == 0)
			return o;
	}
	return -1;
}

/* Parses argv (after the command name) for command c into cli. 0, an exit code, or -1 when
 * --help was asked for and answered. */
static int parse_args(const struct command *c, int argc, char **argv, struct cli *cli)
{
	bool only_args = false;
	int ret;

	cli->cmd = c;
	cli->args = xcalloc((size_t)argc + 1, sizeof(*cli->args));
	for (int i = 0; i < argc; i++) {
		char *a = argv[i];
		const char *value = NULL, *name;
		size_t len;
		int o;

		if (only_args || a[0] != '-' || a[1] == '\0') {
			cli->args[cli->nargs++] = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			only_args = true;
			continue;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			print_command_help(stdout, c);
			return -1; /* done: exit 0 */
		}
		if (a[1] == '-') {
			name = a + 2;
			len = strcspn(name, "=");
			if (name[len] == '=')
				value = name + len + 1;
			o = find_option(name, len, 0);
		} else {
			name = a + 1;
			len = 1;
			if (a[2])
				value = a + 2;
			o = find_option(NULL, 0, a[1]);
		}
		if (o < 0 || !(c->opts & O(o))) {
			iom_cmd_usage_error("unknown option '%s' for '%s' (see 'iomatrix help %s')",
					    a, c->name, c->name);
			return IOM_EXIT_USAGE;
		}
		if (!options[o].arg) {
			if (value)
				return iom_cmd_usage_error("option '--%s' takes no value",
							   options[o].name);
		} else if (!value) {
			if (i + 1 >= argc)
				return iom_cmd_usage_error("option '--%s' needs a value (%s)",
							   options[o].name, options[o].arg);
			value = argv[++i];
		}
		if ((ret = set_option(cli, o, value)) != 0)
			return ret;
	}
	if (cli->nargs < c->min_args || (c->max_args >= 0 && cli->nargs > c->max_args)) {
		iom_cmd_usage_error("'%s' takes %s%s", c->name,
				    c->max_args == 0 ? "no arguments" : c->args,
				    cli->nargs < c->min_args ? " (missing)" : " (too many arguments)");
		print_usage(stderr, c);
		return IOM_EXIT_USAGE;
	}
	return 0;
}

static void cli_release(struct cli *cli)
{
	for (size_t i = 0; i < cli->nov; i++)
		free((char *)cli->ov[i].key);
	free(cli->ov);
	free(cli->args);
}

/* ---- help and version ------------------------------------------------------------------- */

static void print_commands(FILE *out)
{
	int w = 0;

	fprintf(out, "iomatrix %s - a storage benchmark that runs matrices of workloads\n\n"
		     "usage: iomatrix COMMAND [ARGS]\n\ncommands:\n", IOM_VERSION);
	for (size_t i = 0; i < IOM_ARRAY_SIZE(commands); i++)
		w = IOM_MAX(w, (int)strlen(commands[i].name));
	for (size_t i = 0; i < IOM_ARRAY_SIZE(commands); i++)
		fprintf(out, "  %-*s  %s\n", w, commands[i].name, commands[i].help);
	fprintf(out, "\n'iomatrix help COMMAND' shows a command's options; "
		     "'iomatrix help keys' every matrix key\n");
}

static int cmd_help(struct cli *cli)
{
	const struct command *c;

	if (cli->nargs == 0) {
		print_commands(stdout);
		return iom_cmd_finish(IOM_EXIT_OK);
	}
	if (strcmp(cli->args[0], "keys") == 0) {
		if (cli->given[OPT_MAN])
			iom_keys_print_man(stdout);
		else if (cli->given[OPT_MARKDOWN])
			iom_keys_print(stdout, true);
		else
			iom_keys_print_wrapped(stdout, iom_term_width(1, 80));
		return iom_cmd_finish(IOM_EXIT_OK);
	}
	c = find_command(cli->args[0]);
	if (c && c->fn == iom_cmd_diskspd) {
		if (cli->given[OPT_MAN])
			iom_diskspd_print_man(stdout);
		else
			iom_diskspd_usage(stdout);
		return iom_cmd_finish(IOM_EXIT_OK);
	}
	if (!c)
		return iom_cmd_usage_error("no help for '%s': not a command (see 'iomatrix help')",
					   cli->args[0]);
	print_command_help(stdout, c);
	return iom_cmd_finish(IOM_EXIT_OK);
}

static int cmd_version(struct cli *cli)
{
	(void)cli;
	printf("iomatrix %s\n", IOM_VERSION);
	return iom_cmd_finish(IOM_EXIT_OK);
}

static int run_main(int argc, char **argv, struct iom_hosts *hosts)
{
	const struct command *c;
	struct cli cli = { .hosts = hosts };
	int code;

	if (argc < 2) {
		print_commands(stderr);
		return IOM_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)
		return cmd_version(&cli);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		print_commands(stdout);
		return iom_cmd_finish(IOM_EXIT_OK);
	}
	c = find_command(argv[1]);
	if (!c) {
		const char *names[IOM_ARRAY_SIZE(commands)];
		const char *near;

		for (size_t i = 0; i < IOM_ARRAY_SIZE(commands); i++)
			names[i] = commands[i].name;
		near = iom_closest(argv[1], names, IOM_ARRAY_SIZE(commands));
		if (argv[1][0] == '-')
			return iom_cmd_usage_error("unknown option '%s' (see 'iomatrix help')",
						   argv[1]);
		if (near)
			return iom_cmd_usage_error("unknown command '%s' (did you mean '%s'?)",
						   argv[1], near);
		return iom_cmd_usage_error("unknown command '%s' (see 'iomatrix help')", argv[1]);
	}
	if (c->fn == iom_cmd_diskspd) {
		/* DiskSpd's flags are its own ("-o2" is not --output): the command reads argv */
		cli.cmd = c;
		cli.args = xcalloc((size_t)argc, sizeof(*cli.args));
		for (int i = 2; i < argc; i++)
			cli.args[cli.nargs++] = argv[i];
		code = c->fn(&cli);
		cli_release(&cli);
		return code;
	}
	if (hosts && hosts->size > 1 && hosts->rank > 0 && c->fn != iom_cmd_run &&
	    c->fn != iom_cmd_resume && c->fn != iom_cmd_plan) {
		cli_release(&cli);
		return IOM_EXIT_OK; /* under mpirun only run, resume and plan need every rank */
	}
	code = parse_args(c, argc - 2, argv + 2, &cli);
	if (code == 0)
		code = c->fn(&cli);
	else if (code < 0) /* --help was answered */
		code = iom_cmd_finish(IOM_EXIT_OK);
	cli_release(&cli);
	return code;
}

int main(int argc, char **argv)
{
#ifdef IOM_HOSTS_MPI
	struct iom_hosts hosts;
	int code;

	if (iom_host_mpi_start(&argc, &argv, &hosts) < 0) {
		fprintf(stderr, "iomatrix-mpi: cannot start MPI\n");
		return IOM_EXIT_FAIL;
	}
	code = run_main(argc, argv, &hosts);
	iom_host_mpi_finish(&hosts, code);
	return code;
#else
	if (iom_hosts_launched_many()) {
		fprintf(stderr, "iomatrix: this is the single-host build, started by mpirun or srun "
			"with several ranks: each would run the whole study on its own. Build and "
			"launch iomatrix-mpi ('make mpi', docs/hosts.md)\n");
		return IOM_EXIT_USAGE;
	}
	return run_main(argc, argv, NULL);
#endif
}
