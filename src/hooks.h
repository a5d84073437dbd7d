/* SPDX-License-Identifier: MIT */
/*
 * hooks — the template language of the user's shell commands around a study, its targets and
 * its runs: variables, checking, expansion, quoting, and running a hook through proc.h. (The
 * built-ins that need no shell, and the plan's text about hooks, are stage.h's.)
 *
 * A hook is a command template with variables: ${target.path}, ${cell.block_size}, ${run.index}
 * … (iom_hook_var_table lists them and where each is known). The caller hands the values as a
 * table of name → text, so this module knows nothing of matrices or plans. "$$" is a literal
 * "$"; a "$" before anything but "{" or "$" is left to the shell ($HOME works).
 *
 * No value can inject a command, wherever a variable is accepted and whichever POSIX shell /bin/sh
 * is (dash, or bash as on Fedora, RHEL and Arch). The values are in the hook's environment
 * (IOMATRIX_TARGET_PATH, IOMATRIX_RUN_INDEX …; IOMATRIX_HOOK names the point), and a variable
 * becomes a reference to its environment variable, never its text: "${IOMATRIX_TARGET_PATH}"
 * outside quotes (one word; a numeric one bare, for dash's $((…))), ${IOMATRIX_…} inside "…", '"${IOMATRIX_…}"' inside '…' and
 * '"${IOMATRIX_…}"$' inside bash's $'…' (the quote closed around the reference and opened
 * again). Why that is safe: the command the shell parses is the template's own text plus these
 * references, built of quotes, '$', braces and the name only; no byte of a value is in it. A
 * shell never parses the result of a parameter expansion as syntax (POSIX: it is only split into
 * fields and globbed), so a value is never parsed as syntax -- plain words, "…", '…', $'…',
 * here-strings and $(…). A wrong guess of the quoting around a variable (the quote tracking
 * is exact for plain commands, a best guess inside $(…)) costs exactness (a value split into
 * words, or quotes printed).
 * That is not enough where bash (as /bin/sh) evaluates a value itself: as arithmetic, whose
 * array subscripts run a $(command), or as a variable name (test -v, printf -v, read, …),
 * whose subscript is arithmetic too. So a text variable (all but the numeric ones) is accepted
 * only at the places of a positive list, where bash, dash and busybox sh all keep it as data:
 *  - an argument of a simple command, bare or in "…", '…' or $'…', or a redirection's target;
 *  - of a command that is not a builtin running code (eval, trap, alias, ., source, fc, bind,
 *    complete, compgen; and ssh) or taking names (let, declare, typeset, local, export,
 *    readonly, read, readarray, mapfile, unset, getopts, wait); not after -v or -R in test
 *    or [, nor -v in printf; not printf's first argument; not right after another value in
 *    test or [ (that value could be -v); not in the command string of a shell's -c.
 * Refused, by iom_hook_check (so `iomatrix check` names the file, the line and the place) and
 * at expansion, is everything else: the command's name (also after exec, command, builtin),
 * an assignment's name, subscript or value, a template with "((", "$[" or "[[ " anywhere,
 * the inside of a $${…} of the shell, of backquotes, and of a here-document's body, a
 * here-document's delimiter; and a variable after a backslash or after a '$' that starts an
 * expansion ($$${target.path} is "$" then the variable: the shell would join the two, into
 * $'…' or $"…" in bash): write '\$$' for a '$' printed before the value, '$${' for a literal
 * '${'. The numeric variables' values are checked to be digits and may stand anywhere.
 * Where a command must see the value inside code, write the environment variable itself
 * (sh -c 'ls "$IOMATRIX_TARGET_PATH"'): the inner shell expands it as data.
 *
 * A hook runs as /bin/sh -c CMD (o->shell instead, for the tests) as proc.h runs a program:
 * its own process group, stdin from /dev/null, stdout and stderr to a log file the caller
 * names, its process group killed at its timeout or when the stop flag is set.
 */
#ifndef IOM_HOOKS_H
#define IOM_HOOKS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "proc.h"

enum iom_hook_point {
	IOM_HOOK_BEFORE_STUDY,
	IOM_HOOK_BEFORE_TARGET,
	IOM_HOOK_BEFORE_RUN,
	IOM_HOOK_AFTER_RUN,
	IOM_HOOK_AFTER_TARGET,
	IOM_HOOK_AFTER_STUDY,
	IOM_HOOK_COUNT
};

/* "before_study" …; iom_hook_point_from_name returns -1 for an unknown name. */
const char *iom_hook_point_name(enum iom_hook_point p);
int iom_hook_point_from_name(const char *name);

/* The variables a hook may use, and at which points each has a value. */
struct iom_hook_var_info {
	const char *name;  /* "target.path" */
	unsigned points;   /* bit (1u << point) for each enum iom_hook_point where it is known */
	const char *help;
	bool numeric; /* its value is always decimal digits (allowed in arithmetic) */
};

/* The variables other than the cell's; a dimension NAME of the key table is ${cell.NAME}. */
extern const struct iom_hook_var_info iom_hook_var_table[];
extern const size_t iom_hook_nvars;
#define IOM_HOOK_CELL "cell."

/*
 * Checks a hook template for point without running it: every "${" closed, every variable one of
 * iom_hook_var_table and known at point. For the matrix reader, which prefixes FILE:LINE.
 * 0, or -EINVAL with a message such as "unknown variable '${target.pth}' (did you mean
 * '${target.path}'?)" or "variable '${cell.block_size}' has no value in before_target (it is
 * known in before_run and after_run)".
 */
int iom_hook_check(enum iom_hook_point point, const char *tmpl, char *err, size_t errlen);

/* A table of variable values, name → text; copies are owned by the table. Zero-initialise it,
 * fill it with _set, and free it with _release. */
struct iom_hook_var {
	char *name, *value;
};
struct iom_hook_vars {
	struct iom_hook_var *v;
	size_t n, cap;
};

/* Sets name to value (NULL is the empty text), replacing an earlier value. */
void iom_hook_vars_set(struct iom_hook_vars *vs, const char *name, const char *value);
void iom_hook_vars_setf(struct iom_hook_vars *vs, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The value of name, or NULL when it is not in the table. */
const char *iom_hook_vars_get(const struct iom_hook_vars *vs, const char *name);
void iom_hook_vars_release(struct iom_hook_vars *vs);
/* Sets ${cell.NAME}, dimension d's variable (NAME its key's), to value. */
void iom_hook_vars_set_cell(struct iom_hook_vars *vs, enum iom_dim d, const char *value);

/* s quoted for /bin/sh as one word: 'a b'\''c'. The caller frees it. */
char *iom_hook_quote(const char *s);

/*
 * Expands the variables of tmpl from vars into a new string *out (the caller frees it). With
 * quote, the result is for /bin/sh with vars in its environment as iom_hook_run exports them
 * (see the top of this file); without, the plain values are spliced in (for people to read).
 * 0, or -EINVAL with a message naming the variable: "unknown variable '${foo}'", "variable
 * '${target.path}' has no value here", "unterminated '${' at column 7", "'${run.index}' follows
 * a backslash (write '$${' for a literal '${')".
 */
int iom_hook_expand(const char *tmpl, const struct iom_hook_vars *vars, bool quote, char **out,
		    char *err, size_t errlen);

/* How a hook is run. Zero is: no log file, no timeout, no stop flag, /bin/sh. */
struct iom_hook_opts {
	const char *log_path;         /* as struct iom_proc_opts */
	const struct iom_own_dir *log_dir;
	uint64_t timeout_ns;          /* 0: none */
	volatile sig_atomic_t *stop;  /* when it becomes set the process group is killed */
	const char *shell;            /* the shell; NULL: /bin/sh (the tests run hooks under dash
				       * and under bash through it) */
};

/*
 * Runs the hook template tmpl at point: expands it with vars (quoted), runs /bin/sh -c with the
 * values also in the environment (IOMATRIX_<NAME>, dots as '_', and IOMATRIX_HOOK=<point>),
 * waits for it as o says (iom_proc_run). r is the caller's storage (release it with
 * iom_proc_result_release whatever the return; its outcome is IOM_PROC_NOT_STARTED when the
 * template did not expand). Returns 0 when it exited with status
 * 0; otherwise -errno with a message in err that names the hook, what happened and the last
 * line of its output:
 *   -EIO        "hook before_run exited with status 3: <last line>" / "… was killed by SIGSEGV: …"
 *   -ETIMEDOUT  "hook before_run timed out after 1s and was killed: <last line>"
 *   -EINTR      "hook before_run was stopped: …"
 *   -EINVAL     "hook before_run: unknown variable '${foo}'"
 *   other       "cannot start hook before_run ('/bin/sh'): …"
 * ("(no output)" replaces ": <last line>" when it printed nothing.)
 */
int iom_hook_run(enum iom_hook_point point, const char *tmpl, const struct iom_hook_vars *vars,
		 const struct iom_hook_opts *o, struct iom_proc_result *r, char *err,
		 size_t errlen);

/* ---- the amount of a precondition (a value of the matrix's hooks section) -------------- */

/*
 * Parses the amount of a precondition: a multiple of the region ("2x", "1.5x", at most 100x) or
 * a size ("64G"). *bytes gets the bytes to write (a multiple rounds down to whole bytes).
 * 0, or -EINVAL / -ERANGE with a message.
 */
int iom_precondition_bytes(const char *text, uint64_t region, uint64_t *bytes, char *err,
			   size_t errlen);

#endif
