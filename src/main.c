/*
 * main — the iomatrix command line: a table of commands and a table of options, as tmux and git
 * do it. One parser reads every command line into a struct cli (positional arguments, options,
 * --set overrides), checks it against the command's entry (which options it takes, how many
 * arguments), and hands it to the command's function, which returns an exit code.
 *
 * Adding a command is one line in commands[] and a function; adding an option is one line in
 * options[] and a bit in the commands that take it. Help text comes from the same tables.
 *
 * Exit codes (util.h): 0 ok, 1 runtime failure, 2 usage or invalid matrix, 3 interrupted.
 * Messages go to stderr, one line each: "FILE:LINE: message" for matrices, "iomatrix: message"
 * otherwise. Only this file exits.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsprep.h"
#include "stage.h"
#include "journal.h"
#include "diskspd.h"
#include "keys.h"
#include "matrix.h"
#include "plan.h"
#include "preflight.h"
#include "preset.h"
#include "report.h"
#include "sweep.h"
#include "trace.h"
#include "util.h"

#ifndef IOM_VERSION
#define IOM_VERSION "0.1"
#endif

enum opt_id {
	OPT_FORMAT,
	OPT_SET,
	OPT_MARKDOWN,
	OPT_OUTPUT,
	OPT_QUIET,
	OPT_RUN,
	OPT_COMPARE,
	OPT_NO_TRACE,
	OPT_ALPHA,
	OPT_MIN_EFFECT,
	OPT_MAX_CV,
	OPT_CELL,
	OPT_MEASURED,
	OPT_ALLOW_HOOKS,
	OPT_LOG,
	OPT_PRESET,
	OPT_MAN,
	OPT_MATRIX_ONLY,
	OPT_COUNT
};

/* The one mutable global: set by SIGINT/SIGTERM, read by the sweep between and inside runs. */
static volatile sig_atomic_t stop_requested;

struct option_def {
	const char *name;    /* long name, without "--" */
	char short_name;     /* 0: none */
	const char *arg;     /* name of its value for help; NULL: a flag */
	const char *help;
};

static const struct option_def options[OPT_COUNT] = {
	[OPT_PRESET] = { "preset", 'p', "NAME",
			  "the template: quick (default), atto, diskspd, iometer or crystaldiskmark" },
	[OPT_MAN] = { "man", 0, NULL, "print the key table as roff, for iomatrix-matrix(5)" },
	[OPT_MATRIX_ONLY] = { "matrix-only", 0, NULL,
			      "check the file alone, not whether this machine can run it (its "
			      "paths, devices and free space)" },
	[OPT_FORMAT] = { "format", 'f', "FORMAT",
			 "plan: text|tsv|json; report: text|md|csv|json|html; trace: csv|fio" },
	[OPT_SET] = { "set", 's', "KEY=VALUE",
		      "override a matrix key, e.g. --set block_size=[4K,64K] (repeatable)" },
	[OPT_MARKDOWN] = { "markdown", 0, NULL, "print the key table as Markdown" },
	[OPT_OUTPUT] = { "output", 'o', "PATH",
			 "new: the matrix file to write (never replaced); "
			 "run: the results directory (default results/<name>-<UTC time>); report, "
			 "trace: the file to write (trace --format fio: the prefix of the logs)" },
	[OPT_QUIET] = { "quiet", 'q', NULL, "print only errors and the final summary" },
	[OPT_RUN] = { "run", 'r', "N",
		      "text: the DiskSpd-style report of run N (DIR:N with several directories); "
		      "html: the run of the IOPS-over-time chart" },
	[OPT_COMPARE] = { "compare", 'c', "DIM",
			  "the dimension whose values compete (default: the study's)" },
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
};

/* A parsed command line. */
struct cli {
	const struct command *cmd;
	char **args;                  /* positional arguments (not owned) */
	int nargs;
	bool given[OPT_COUNT];
	const char *value[OPT_COUNT]; /* last value of each option */
	struct iom_override *ov;      /* every --set, in order */
	size_t nov;
};

struct command {
	const char *name;
	int (*fn)(struct cli *cli);
	const char *args;  /* positional arguments for the usage line */
	int min_args, max_args; /* max_args < 0: any number */
	unsigned opts;     /* bit (1 << OPT_x) for each option taken */
	const char *help;  /* one line */
};

static int cmd_check(struct cli *cli);
static int cmd_plan(struct cli *cli);
static int cmd_run(struct cli *cli);
static int cmd_resume(struct cli *cli);
static int cmd_report(struct cli *cli);
static int cmd_trace(struct cli *cli);
static int cmd_help(struct cli *cli);
static int cmd_version(struct cli *cli);
static int cmd_new(struct cli *cli);
static int cmd_diskspd(struct cli *cli);

#define O(x) (1u << (x))

static const struct command commands[] = {
	{ "check", cmd_check, "MATRIX...", 1, -1, O(OPT_SET) | O(OPT_MATRIX_ONLY),
	  "check matrix files and that this machine can run them: exit 0 when every one can" },
	{ "plan", cmd_plan, "MATRIX", 1, 1, O(OPT_FORMAT) | O(OPT_SET) | O(OPT_ALLOW_HOOKS),
	  "print the ordered runs of a matrix, their count, time and memory" },
	{ "run", cmd_run, "MATRIX", 1, 1,
	  O(OPT_OUTPUT) | O(OPT_SET) | O(OPT_QUIET) | O(OPT_NO_TRACE) | O(OPT_ALLOW_HOOKS) |
		  O(OPT_LOG),
	  "run every run of a matrix's plan into a results directory, then print the winners" },
	{ "resume", cmd_resume, "DIR", 1, 1,
	  O(OPT_QUIET) | O(OPT_NO_TRACE) | O(OPT_ALLOW_HOOKS) | O(OPT_LOG),
	  "carry on an interrupted sweep from its results directory" },
	{ "report", cmd_report, "DIR...", 1, -1,
	  O(OPT_FORMAT) | O(OPT_OUTPUT) | O(OPT_RUN) | O(OPT_COMPARE) | O(OPT_ALPHA) |
		  O(OPT_MIN_EFFECT) | O(OPT_MAX_CV) | O(OPT_CELL),
	  "the winners of one or more results directories (text, md, csv, json, html), or one "
	  "run DiskSpd-style" },
	{ "trace", cmd_trace, "FILE", 1, 1, O(OPT_FORMAT) | O(OPT_OUTPUT) | O(OPT_MEASURED),
	  "decode a run's trace to CSV or to fio latency logs" },
	{ "new", cmd_new, "[PATH...]", 0, -1, O(OPT_PRESET) | O(OPT_OUTPUT),
	  "write a commented matrix file to start from, one target per PATH" },
	{ "diskspd", cmd_diskspd, "[DISKSPD OPTIONS] TARGET", 1, -1, 0,
	  "a one-cell study from DiskSpd's flags, printed DiskSpd-style" },
	{ "help", cmd_help, "[COMMAND|keys]", 0, 1, O(OPT_MARKDOWN) | O(OPT_MAN),
	  "show the commands, one command's usage, or every matrix key" },
	{ "version", cmd_version, "", 0, 0, 0, "print the version of iomatrix" },
};

/* ---- messages ------------------------------------------------------------------------------ */

__attribute__((format(printf, 1, 2)))
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("iomatrix: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return IOM_EXIT_USAGE;
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < IOM_ARRAY_SIZE(commands); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static void print_usage(FILE *out, const struct command *c)
{
	fprintf(out, "usage: iomatrix %s", c->name);
	if (c->args[0])
		fprintf(out, " %s", c->args);
	for (int o = 0; o < OPT_COUNT; o++) {
		if (!(c->opts & O(o)))
			continue;
		if (options[o].arg)
			fprintf(out, " [--%s %s]%s", options[o].name, options[o].arg,
				o == OPT_SET ? "..." : "");
		else
			fprintf(out, " [--%s]", options[o].name);
	}
	fputc('\n', out);
}

/* A command's usage line, what it does and its options: 'iomatrix help CMD', 'CMD --help'. */
static void print_command_help(FILE *out, const struct command *c)
{
	print_usage(out, c);
	fprintf(out, "\n%s\n", c->help);
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
		fprintf(out, "  %-28s %s\n", opt, options[o].help);
	}
}

/* Checks stdout got everything; a failed write is a runtime failure. */
static int finish_output(int code)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "iomatrix: cannot write to standard output: %s\n",
			strerror(errno ? errno : EIO));
		return code == IOM_EXIT_OK ? IOM_EXIT_FAIL : code;
	}
	return code;
}

/* ---- parsing ------------------------------------------------------------------------------- */

static int add_override(struct cli *cli, const char *text)
{
	const char *eq = strchr(text, '=');
	char *key;

	if (!eq || eq == text)
		return usage_error("--set needs KEY=VALUE, e.g. --set block_size=64K (got '%s')",
				   text);
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
			usage_error("unknown option '%s' for '%s' (see 'iomatrix help %s')", a,
				    c->name, c->name);
			return IOM_EXIT_USAGE;
		}
		if (!options[o].arg) {
			if (value)
				return usage_error("option '--%s' takes no value", options[o].name);
		} else if (!value) {
			if (i + 1 >= argc)
				return usage_error("option '--%s' needs a value (%s)",
						   options[o].name, options[o].arg);
			value = argv[++i];
		}
		if ((ret = set_option(cli, o, value)) != 0)
			return ret;
	}
	if (cli->nargs < c->min_args || (c->max_args >= 0 && cli->nargs > c->max_args)) {
		usage_error("'%s' takes %s%s", c->name,
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

/* ---- commands ------------------------------------------------------------------------------ */

/* Prints an error as one line (a file name may hold a newline). */
static void print_error(char *err)
{
	for (unsigned char *q = (unsigned char *)err; *q; q++)
		if (*q < 0x20 || *q == 0x7f)
			*q = '?';
	fprintf(stderr, "%s\n", err);
}

/* Loads a matrix and builds its plan; on failure prints the one-line error, returns an exit code. */
static int load_plan(struct cli *cli, const char *path, struct iom_matrix **m, struct iom_plan *p)
{
	char err[IOM_ERRLEN];
	int ret;

	ret = iom_matrix_load(path, cli->ov, cli->nov, m, err, sizeof(err));
	if (ret < 0) {
		print_error(err);
		return IOM_EXIT_USAGE;
	}
	ret = iom_plan_build(*m, p, err, sizeof(err));
	if (ret < 0) {
		print_error(err);
		iom_matrix_free(*m);
		*m = NULL;
		return IOM_EXIT_USAGE;
	}
	return 0;
}

/* Warns (this machine only: the matrix stays valid) about a filesystem of the matrix whose mkfs
 * is not installed, so that it shows before a night starts rather than at its target's turn. */
static void warn_missing_mkfs(const struct iom_matrix *m)
{
	for (size_t t = 0; t < m->ntargets; t++) {
		const char *fs = m->targets[t].fs_type;
		char err[IOM_ERRLEN], *path = NULL;
		bool seen = false;

		for (size_t u = 0; fs && u < t; u++)
			seen |= m->targets[u].fs_type && strcmp(m->targets[u].fs_type, fs) == 0;
		if (!fs || seen || strcmp(fs, "raw") == 0)
			continue;
		if (iom_fs_tool_find(fs, NULL, NULL, &path, err, sizeof(err)) < 0)
			fprintf(stderr, "%s:%d: warning: target '%s': %s\n", m->file, m->targets[t].line,
				m->targets[t].label, err);
		free(path);
	}
}

/* Prints what preflight found, one line each ("FILE:LINE: message", warnings marked), also to
 * log when given. */
static void print_preflight(const struct iom_matrix *m, const struct iom_preflight *pf, FILE *log)
{
	for (size_t i = 0; i < pf->n; i++) {
		char *line = xasprintf("%s:%d: %s%s", m->file, pf->d[i].line,
				       pf->d[i].error ? "" : "warning: ", pf->d[i].msg);

		print_error(line);
		if (log)
			fprintf(log, "%s\n", line);
		free(line);
	}
}

/* Whether this machine can run the plan of m (preflight.h), into pf: 0, or -errno with err when
 * the plan cannot be built. */
static int check_machine(const struct iom_matrix *m, struct iom_preflight *pf, char *err,
			 size_t errlen)
{
	struct iom_preflight_opts po = { 0 };
	struct iom_plan p;
	char *dir;
	int ret;

	memset(pf, 0, sizeof(*pf));
	ret = iom_plan_build(m, &p, err, errlen);
	if (ret < 0)
		return ret;
	dir = iom_sweep_default_dir(m); /* where `run` puts the results without -o */
	po.results_dir = dir;
	ret = iom_preflight_check(&p, &po, pf);
	free(dir);
	iom_plan_release(&p);
	return ret;
}

static int cmd_check(struct cli *cli)
{
	int code = IOM_EXIT_OK;

	for (int i = 0; i < cli->nargs; i++) {
		struct iom_preflight pf = { 0 };
		struct iom_matrix *m;
		char err[IOM_ERRLEN];
		size_t nruns = 0;

		if (iom_matrix_load(cli->args[i], cli->ov, cli->nov, &m, err, sizeof(err)) < 0 ||
		    iom_plan_count(m, &nruns, err, sizeof(err)) < 0 ||
		    (!cli->given[OPT_MATRIX_ONLY] && check_machine(m, &pf, err, sizeof(err)) < 0)) {
			print_error(err);
			iom_matrix_free(m);
			code = IOM_EXIT_USAGE;
			continue;
		}
		if (pf.errors) {
			fflush(stdout);
			print_preflight(m, &pf, NULL);
			fprintf(stderr, "%s: the matrix is valid (%zu runs), but this machine cannot "
				"run it: %zu problem%s above ('iomatrix check --matrix-only' checks the "
				"file alone)\n", cli->args[i], nruns, pf.errors,
				pf.errors == 1 ? "" : "s");
			code = IOM_EXIT_USAGE;
		} else {
			printf("%s: valid, %zu runs\n", cli->args[i], nruns);
			fflush(stdout);
			print_preflight(m, &pf, NULL);
		}
		warn_missing_mkfs(m);
		iom_preflight_release(&pf);
		iom_matrix_free(m);
	}
	return finish_output(code);
}

static int cmd_plan(struct cli *cli)
{
	enum iom_plan_format fmt = IOM_PLAN_TEXT;
	struct iom_matrix *m;
	struct iom_plan p;
	int ret;

	if (cli->given[OPT_FORMAT]) {
		const char *f = cli->value[OPT_FORMAT];

		if (strcmp(f, "text") == 0)
			fmt = IOM_PLAN_TEXT;
		else if (strcmp(f, "tsv") == 0)
			fmt = IOM_PLAN_TSV;
		else if (strcmp(f, "json") == 0)
			fmt = IOM_PLAN_JSON;
		else
			return usage_error("unknown format '%s' (use text, tsv or json)", f);
	}
	if ((ret = load_plan(cli, cli->args[0], &m, &p)) != 0)
		return ret;
	ret = iom_plan_write(stdout, &p, fmt);
	if (ret == 0 && fmt == IOM_PLAN_TEXT) {
		struct iom_stage_desc d;

		iom_stage_desc_of(m, cli->given[OPT_ALLOW_HOOKS], &d);
		if (iom_stage_desc_any(&d)) {
			putchar('\n');
			ret = iom_stage_describe(stdout, &d);
		}
	}
	iom_plan_release(&p);
	iom_matrix_free(m);
	if (ret < 0) {
		fprintf(stderr, "iomatrix: cannot write the plan: %s\n", strerror(-ret));
		return IOM_EXIT_FAIL;
	}
	return finish_output(IOM_EXIT_OK);
}

/* ---- running ------------------------------------------------------------------------------- */

static void on_stop_signal(int sig)
{
	if (stop_requested)
		signal(sig, SIG_DFL), raise(sig); /* a second signal stops at once */
	stop_requested = 1;
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGHUP, SIG_IGN); /* an overnight sweep outlives its terminal */
}

static int sweep_logged(const struct iom_plan *p, const char *dir,
			const struct iom_sweep_opts *po);

/*
 * The preflight of `run` and `resume` (preflight.h), into pf: on resume only the runs the
 * journal leaves to do count, and a complete study or a journal that cannot be read is left to
 * the sweep, which says so. Reads only: nothing is written.
 */
static void preflight_sweep(const struct iom_plan *p, const char *dir, bool resume, bool no_trace,
			    struct iom_preflight *pf)
{
	struct iom_preflight_opts po = { .results_dir = dir, .no_trace = no_trace };
	struct iom_journal_state st;
	char err[IOM_ERRLEN];
	uint8_t *pending = NULL;

	memset(pf, 0, sizeof(*pf));
	if (resume) {
		if (iom_journal_replay(dir, p->nruns, &st, err, sizeof(err)) < 0 || st.ended) {
			iom_journal_state_release(&st);
			return;
		}
		pending = xcalloc(p->nruns + 1, 1);
		for (size_t i = 1; i <= p->nruns; i++)
			pending[i] = st.run[i] == IOM_RS_PENDING;
		po.pending = pending;
		iom_journal_state_release(&st);
	}
	iom_preflight_check(p, &po, pf);
	free(pending);
}

/* Runs plan p into dir (new or resumed); prints the winners table; returns the exit code. */
static int sweep(struct cli *cli, const struct iom_plan *p, const char *dir, bool resume)
{
	struct iom_sweep_opts o = {
		.dir = dir,
		.resume = resume,
		.quiet = cli->given[OPT_QUIET],
		.out = stdout,
		.ov = cli->ov,
		.nov = cli->nov,
		.stop = &stop_requested,
		.no_trace = cli->given[OPT_NO_TRACE],
		.allow_hooks = cli->given[OPT_ALLOW_HOOKS],
		.tty = -1,
	};
	struct iom_preflight pf;
	int ret;

	if (iom_sweep_has_shell_hooks(p->m) && !o.allow_hooks) {
		fprintf(stderr, "%s:%d: this matrix has shell hooks, which run only with "
			"--allow-hooks (a matrix file can come from anyone: running its commands "
			"must be your choice; 'iomatrix plan' shows them)\n", p->m->file,
			p->m->hooks.line);
		return IOM_EXIT_USAGE;
	}
	/* before anything is written: the results directory, the log, a scratch file */
	preflight_sweep(p, dir, resume, o.no_trace, &pf);
	if (pf.errors) {
		print_preflight(p->m, &pf, NULL);
		fprintf(stderr, "iomatrix: %zu problem%s above keep%s this sweep from running; "
			"nothing was written%s\n", pf.errors, pf.errors == 1 ? "" : "s",
			pf.errors == 1 ? "s" : "", resume ? "" : " ('iomatrix check MATRIX' checks "
			"again once they are fixed)");
		iom_preflight_release(&pf);
		return IOM_EXIT_USAGE;
	}
	if (cli->given[OPT_LOG]) {
		o.log = fopen(cli->value[OPT_LOG], "a");
		if (!o.log) {
			fprintf(stderr, "iomatrix: cannot open log '%s': %s\n", cli->value[OPT_LOG],
				strerror(errno));
			iom_preflight_release(&pf);
			return IOM_EXIT_USAGE;
		}
	}
	print_preflight(p->m, &pf, o.log); /* the warnings */
	iom_preflight_release(&pf);
	ret = sweep_logged(p, dir, &o);
	if (o.log)
		fclose(o.log);
	return ret;
}

/* The body of sweep(), once the options are ready and the log open. */
static int sweep_logged(const struct iom_plan *p, const char *dir, const struct iom_sweep_opts *po)
{
	const struct iom_sweep_opts o = *po;
	struct iom_sweep_outcome res;
	char err[IOM_ERRLEN];
	int ret;

	install_signals();
	if (!o.quiet)
		printf("%s: %zu runs into %s\n", p->m->file, p->nruns, dir);
	ret = iom_sweep_execute(p, &o, &res, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "iomatrix: %s\n", err);
		if (o.log)
			fprintf(o.log, "error: %s\n", err);
		/* hooks not allowed, or resume of a changed plan: what the user asked is refused */
		return ret == -EPERM || res.plan_changed ? IOM_EXIT_USAGE : IOM_EXIT_FAIL;
	}
	if (res.interrupted) {
		fprintf(stderr, "iomatrix: interrupted after %zu runs; carry on with: iomatrix resume "
			"%s%s\n", res.ok + res.failed, dir, o.allow_hooks ? " --allow-hooks" : "");
		if (o.log)
			fprintf(o.log, "interrupted after %zu runs; carry on with: iomatrix resume "
				"%s%s\n", res.ok + res.failed, dir,
				o.allow_hooks ? " --allow-hooks" : "");
		return finish_output(IOM_EXIT_INTERRUPTED);
	}
	putchar('\n');
	ret = iom_report_after_sweep(stdout, dir, err, sizeof(err));
	if (ret < 0)
		fprintf(stderr, "iomatrix: %s\n", err);
	printf("\n%zu runs ok, %zu failed%s; results in %s\n", res.ok, res.failed,
	       res.skipped ? " (resumed)" : "", dir);
	if (ret < 0 || res.failed)
		return finish_output(IOM_EXIT_FAIL);
	return finish_output(IOM_EXIT_OK);
}

static int cmd_run(struct cli *cli)
{
	struct iom_matrix *m;
	struct iom_plan p;
	char *dir;
	int ret;

	if ((ret = load_plan(cli, cli->args[0], &m, &p)) != 0)
		return ret;
	dir = cli->given[OPT_OUTPUT] ? xstrdup(cli->value[OPT_OUTPUT]) : iom_sweep_default_dir(m);
	ret = sweep(cli, &p, dir, false);
	free(dir);
	iom_plan_release(&p);
	iom_matrix_free(m);
	return ret;
}

static int cmd_resume(struct cli *cli)
{
	const char *dir = cli->args[0];
	struct iom_matrix *m;
	struct iom_plan p;
	struct stat st;
	char *path;
	int ret;

	path = xasprintf("%s/journal", dir);
	if (stat(path, &st) < 0) {
		fprintf(stderr, "iomatrix: '%s' is not a results directory (no journal)\n", dir);
		free(path);
		return IOM_EXIT_USAGE;
	}
	free(path);
	/* The matrix as run, with its overrides applied, is the one in the directory. */
	path = xasprintf("%s/matrix.cfg", dir);
	ret = load_plan(cli, path, &m, &p);
	free(path);
	if (ret != 0)
		return ret;
	ret = sweep(cli, &p, dir, true);
	iom_plan_release(&p);
	iom_matrix_free(m);
	return ret;
}

static int cmd_report(struct cli *cli)
{
	struct iom_report_opts_cli o = {
		.compare = cli->value[OPT_COMPARE],
		.color = -1,
		.format = cli->value[OPT_FORMAT],
		.alpha = cli->value[OPT_ALPHA],
		.min_effect = cli->value[OPT_MIN_EFFECT],
		.max_cv = cli->value[OPT_MAX_CV],
		.cell = cli->value[OPT_CELL],
		.run = cli->value[OPT_RUN],
		.output = cli->value[OPT_OUTPUT],
	};
	char err[IOM_ERRLEN];
	int ret;

	ret = iom_report_main(stdout, (const char *const *)cli->args, (size_t)cli->nargs, &o, err,
			      sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "iomatrix: %s\n", err);
		return ret == -EINVAL || ret == -ENOENT || ret == -ENOTDIR ? IOM_EXIT_USAGE
									  : IOM_EXIT_FAIL;
	}
	return finish_output(IOM_EXIT_OK);
}

static int cmd_trace(struct cli *cli)
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
			return usage_error("unknown format '%s' (use csv or fio)",
					   cli->value[OPT_FORMAT]);
		x.format = (enum iom_trace_format)f;
	}
	ret = iom_trace_export(cli->args[0], &x, NULL, err, sizeof(err));
	if (ret == 0)
		return finish_output(IOM_EXIT_OK);
	fprintf(stderr, "iomatrix: %s\n", err);
	/* damaged, foreign or missing input: 2 (what was intact has been written); output: 1 */
	switch (-ret) {
	case EINVAL: case ENODATA: case EBADMSG: case ENOTSUP: case ENOENT: case EACCES:
	case EISDIR:
		return IOM_EXIT_USAGE;
	default:
		return IOM_EXIT_FAIL;
	}
}

/* ---- new and diskspd ----------------------------------------------------------------------- */

static int cmd_new(struct cli *cli)
{
	const char *preset = cli->given[OPT_PRESET] ? cli->value[OPT_PRESET] : IOM_PRESET_DEFAULT;
	const char *path = cli->value[OPT_OUTPUT];
	char err[IOM_ERRLEN], *text;
	int ret;

	ret = iom_preset_write(preset, (const char *const *)cli->args, (size_t)cli->nargs, &text,
			       err, sizeof(err));
	if (ret < 0) {
		print_error(err);
		return IOM_EXIT_USAGE;
	}
	if (!cli->given[OPT_OUTPUT]) {
		fputs(text, stdout);
		free(text);
		return finish_output(IOM_EXIT_OK);
	}
	ret = iom_preset_save(path, text, err, sizeof(err));
	free(text);
	if (ret < 0) {
		print_error(err);
		return ret == -EEXIST ? IOM_EXIT_USAGE : IOM_EXIT_FAIL;
	}
	printf("wrote %s (preset %s); next: iomatrix check %s; iomatrix plan %s; iomatrix run %s\n",
	       path, preset, path, path, path);
	return finish_output(IOM_EXIT_OK);
}

/* cli->args holds every argument after "diskspd", unparsed: DiskSpd's flags and the target. */
static int cmd_diskspd(struct cli *cli)
{
	struct iom_diskspd d;
	char err[IOM_ERRLEN], *text;
	int ret;

	if (iom_diskspd_parse(cli->nargs, cli->args, &d, err, sizeof(err)) < 0)
		return usage_error("%s", err);
	if (d.help) {
		iom_diskspd_usage(stdout);
		iom_diskspd_release(&d);
		return finish_output(IOM_EXIT_OK);
	}
	if (d.matrix_only) {
		ret = iom_diskspd_matrix(&d, &text, err, sizeof(err));
		iom_diskspd_release(&d);
		if (ret < 0)
			return usage_error("%s", err);
		fputs(text, stdout);
		free(text);
		return finish_output(IOM_EXIT_OK);
	}
	install_signals();
	ret = iom_diskspd_run(&d, stdout, stderr, &stop_requested, err, sizeof(err));
	iom_diskspd_release(&d);
	if (ret == 0)
		return finish_output(IOM_EXIT_OK);
	fprintf(stderr, "iomatrix: %s\n", err);
	if (ret == 3)
		return finish_output(IOM_EXIT_INTERRUPTED);
	if (ret == 1)
		return finish_output(IOM_EXIT_FAIL);
	return ret == -EINVAL || ret == -ENOENT ? IOM_EXIT_USAGE : IOM_EXIT_FAIL;
}

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
		return finish_output(IOM_EXIT_OK);
	}
	if (strcmp(cli->args[0], "keys") == 0) {
		if (cli->given[OPT_MAN])
			iom_keys_print_man(stdout);
		else
			iom_keys_print(stdout, cli->given[OPT_MARKDOWN]);
		return finish_output(IOM_EXIT_OK);
	}
	c = find_command(cli->args[0]);
	if (c && c->fn == cmd_diskspd) {
		iom_diskspd_usage(stdout);
		return finish_output(IOM_EXIT_OK);
	}
	if (!c)
		return usage_error("no help for '%s': not a command (see 'iomatrix help')",
				   cli->args[0]);
	print_command_help(stdout, c);
	return finish_output(IOM_EXIT_OK);
}

static int cmd_version(struct cli *cli)
{
	(void)cli;
	printf("iomatrix %s\n", IOM_VERSION);
	return finish_output(IOM_EXIT_OK);
}

int main(int argc, char **argv)
{
	const struct command *c;
	struct cli cli = { 0 };
	int code;

	if (argc < 2) {
		print_commands(stderr);
		return IOM_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)
		return cmd_version(&cli);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		print_commands(stdout);
		return finish_output(IOM_EXIT_OK);
	}
	c = find_command(argv[1]);
	if (!c) {
		const char *names[IOM_ARRAY_SIZE(commands)];
		const char *near;

		for (size_t i = 0; i < IOM_ARRAY_SIZE(commands); i++)
			names[i] = commands[i].name;
		near = iom_closest(argv[1], names, IOM_ARRAY_SIZE(commands));
		if (argv[1][0] == '-')
			return usage_error("unknown option '%s' (see 'iomatrix help')", argv[1]);
		if (near)
			return usage_error("unknown command '%s' (did you mean '%s'?)", argv[1], near);
		return usage_error("unknown command '%s' (see 'iomatrix help')", argv[1]);
	}
	if (c->fn == cmd_diskspd) {
		/* DiskSpd's flags are its own ("-o2" is not --output): the command reads argv */
		cli.cmd = c;
		cli.args = xcalloc((size_t)argc, sizeof(*cli.args));
		for (int i = 2; i < argc; i++)
			cli.args[cli.nargs++] = argv[i];
		code = c->fn(&cli);
		cli_release(&cli);
		return code;
	}
	code = parse_args(c, argc - 2, argv + 2, &cli);
	if (code == 0)
		code = c->fn(&cli);
	else if (code < 0) /* --help was answered */
		code = finish_output(IOM_EXIT_OK);
	cli_release(&cli);
	return code;
}
