/* SPDX-License-Identifier: MIT */
/*
 * cmd — what the commands of the iomatrix binary share: the parsed command line (struct cli,
 * filled by main.c's one parser from its option table), the one errno → exit-code mapping, the
 * way a command prints an error and finishes its output, loading a matrix into a plan, and the
 * stop flag of SIGINT/SIGTERM.
 *
 * Each command is a function `int iom_cmd_NAME(struct cli *)` in a cmd_*.c file that returns
 * an exit code; main.c holds the table of commands and is the only place that exits. Command
 * functions call the modules (0 or -errno, a message in err) and map what failed to an exit
 * code here, in one place:
 *
 *   0 ok · 1 runtime failure, a run failed, a report could not be written · 2 bad command line,
 *   invalid matrix, input that is missing, damaged or refused · 3 interrupted (resumable)
 *
 * Which errno counts as "the input is bad" (2) rather than "the work failed" (1) depends on
 * what the command read: every command names the classes of its input (enum iom_cmd_input) and
 * iom_cmd_exit() maps through the one table in cmd.c.
 */
#ifndef IOM_CMD_H
#define IOM_CMD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct iom_matrix;
struct iom_override;
struct iom_plan;
struct iom_preflight;

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
	OPT_WIDTH,
	OPT_BASELINE,
	OPT_LIKE,
	OPT_CORRECTION,   /* the adaptive verdicts' multiple-testing correction */
	OPT_MERGE,
	OPT_LENIENT,
	OPT_METRICS,
	OPT_LIVE,
	OPT_COUNT
};

/* A parsed command line (main.c fills it; the command reads it). */
struct iom_hosts;

struct cli {
	const struct command *cmd;
	char **args;                  /* positional arguments (not owned) */
	int nargs;
	bool given[OPT_COUNT];
	const char *value[OPT_COUNT]; /* last value of each option */
	struct iom_override *ov;      /* every --set, in order */
	size_t nov;
	struct iom_hosts *hosts;      /* iomatrix-mpi: the ranks (hosts.h); NULL: one host */
};

/*
 * The classes of errno a command counts as bad input (exit 2) when its module fails; any other
 * errno is a runtime failure (exit 1). A command passes the classes of what it reads.
 */
enum iom_cmd_input {
	IOM_IN_INVALID = 1u << 0, /* EINVAL: a value, file or flag that does not parse */
	IOM_IN_MISSING = 1u << 1, /* ENOENT: a named file or directory that is not there */
	IOM_IN_NOTDIR = 1u << 2,  /* ENOTDIR: a path that is not a directory */
	IOM_IN_DAMAGED = 1u << 3, /* ENODATA, EBADMSG, ENOTSUP: a damaged or foreign file */
	IOM_IN_DENIED = 1u << 4,  /* EACCES, EISDIR: a path that cannot be opened as asked */
	IOM_IN_EXISTS = 1u << 5,  /* EEXIST: a file that would be replaced */
	IOM_IN_REFUSED = 1u << 6, /* EPERM: what was asked is refused (shell hooks not allowed) */
};

/* The exit code of a module's failure ret (-errno; 0 gives 0) for a command whose input is of
 * the classes in input: 2 when -ret is of one of them, else 1. */
int iom_cmd_exit(int ret, unsigned input);

/* The exit code of a finished sweep: 3 when interrupted, 1 when a run failed, else 0. */
int iom_cmd_outcome(bool interrupted, bool failed);

/* Prints "iomatrix: " and the message to stderr; returns 2 (IOM_EXIT_USAGE). */
int iom_cmd_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints an error as one line on stderr; control characters in err (a file name may hold a
 * newline) are replaced by '?' in place. */
void iom_cmd_print_error(char *err);

/* Checks stdout got everything: code, or 1 with a message when a write to stdout failed. */
int iom_cmd_finish(int code);

/* Loads the matrix at path (with cli's --set overrides) and builds its plan into *m and *p
 * (the caller frees both): 0, or on failure the one-line error printed and exit code 2. */
int iom_cmd_load_plan(const struct cli *cli, const char *path, struct iom_matrix **m,
		      struct iom_plan *p);

/* Prints the matrix's notes on its file (an old spelling still read) to stderr. */
void iom_cmd_print_matrix_notes(const struct iom_matrix *m);

/* Prints what preflight found, one line each ("FILE:LINE: message", warnings marked), also to
 * log when given. */
void iom_cmd_print_preflight(const struct iom_matrix *m, const struct iom_preflight *pf,
			     FILE *log);

/* Installs the SIGINT/SIGTERM handlers (a second signal stops at once; SIGHUP is ignored) and
 * returns the stop flag they set, which a sweep reads between and inside runs. */
volatile sig_atomic_t *iom_cmd_stop_on_signals(void);

/* The commands (cmd_run.c, cmd_report.c, cmd_new.c, cmd_diskspd.c, cmd_import.c): each returns an exit
 * code. iom_cmd_diskspd reads cli->args unparsed (DiskSpd's flags are its own). */
int iom_cmd_check(struct cli *cli);
int iom_cmd_plan(struct cli *cli);
int iom_cmd_run(struct cli *cli);
int iom_cmd_resume(struct cli *cli);
int iom_cmd_report(struct cli *cli);
int iom_cmd_trace(struct cli *cli);
int iom_cmd_new(struct cli *cli);
int iom_cmd_diskspd(struct cli *cli);
int iom_cmd_import(struct cli *cli);

#endif
