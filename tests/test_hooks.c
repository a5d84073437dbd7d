/* SPDX-License-Identifier: MIT */
/*
 * test_hooks — hook templates (every variable, "$$", unknown and unavailable variables, shell
 * quoting proven by running printf on hostile labels and reading the bytes back), running hooks
 * (exit status with the last line of output, a signal, a timeout that kills the process group,
 * the stop flag, IOMATRIX_* in the environment, the log file), and the amount of a precondition.
 * (Programs without a shell: test_proc.c; the built-ins and the plan's text: test_stage.c.)
 *
 * Every case works in its own temporary directory (with a space in its name, so ${study.dir}
 * must be quoted too), removed in teardown.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hooks.h"
#include "keys.h"
#include "tmpdir.h"
#include "util.h"

/* ---- helpers ---------------------------------------------------------------------------- */

struct st {
	char cwd[4096];
	char *dir;
	struct iom_hook_vars vars;
};

static int setup(void **state)
{
	struct st *s = xcalloc(1, sizeof(*s));

	if (!getcwd(s->cwd, sizeof(s->cwd)))
		return -1;
	s->dir = xstrdup("/tmp/iom-hooks G-XXXXXX");
	if (!mkdtemp(s->dir))
		return -1;
	iom_hook_vars_set(&s->vars, "study.dir", s->dir);
	iom_hook_vars_set(&s->vars, "study.name", "night sweep");
	iom_hook_vars_set(&s->vars, "target.label", "a b'c");
	iom_hook_vars_set(&s->vars, "target.path", "/dev/shm/scratch file");
	iom_hook_vars_set(&s->vars, "target.device", "/dev/nvme0n1");
	iom_hook_vars_set(&s->vars, "target.controller", "nvme");
	iom_hook_vars_set(&s->vars, "target.filesystem", "ext4");
	iom_hook_vars_set(&s->vars, "target.mount", "");
	iom_hook_vars_set(&s->vars, "cell.block_size", "4K");
	iom_hook_vars_setf(&s->vars, "cell.queue_depth", "%d", 32);
	iom_hook_vars_setf(&s->vars, "cell.threads", "%d", 4);
	iom_hook_vars_setf(&s->vars, "cell.read_pct", "%d", 70);
	iom_hook_vars_set(&s->vars, "cell.pattern", "random");
	iom_hook_vars_set(&s->vars, "cell.engine", "io_uring");
	iom_hook_vars_set(&s->vars, "cell.direct", "true");
	iom_hook_vars_setf(&s->vars, "run.index", "%u", 7u);
	iom_hook_vars_setf(&s->vars, "run.repetition", "%u", 2u);
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct st *s = *state;

	if (chdir(s->cwd) != 0)
		return -1;
	test_tmpdir_remove(s->dir);
	free(s->dir);
	iom_hook_vars_release(&s->vars);
	free(s);
	return 0;
}

static char *path_in(const struct st *s, const char *name)
{
	return xasprintf("%s/%s", s->dir, name);
}

static char *slurp(const char *path)
{
	char *data = NULL;
	size_t len;

	if (iom_read_file(path, &data, &len) < 0)
		fail_msg("cannot read '%s'", path);
	return data;
}

static void assert_contains(const char *s, const char *part)
{
	if (!strstr(s, part))
		fail_msg("'%s' does not contain '%s'", s, part);
}

/* ---- points and templates --------------------------------------------------------------- */

static void test_hooks_point_names(void **state)
{
	(void)state;
	for (int i = 0; i < IOM_HOOK_COUNT; i++)
		assert_int_equal(iom_hook_point_from_name(iom_hook_point_name(i)), i);
	assert_string_equal(iom_hook_point_name(IOM_HOOK_BEFORE_RUN), "before_run");
	assert_string_equal(iom_hook_point_name(IOM_HOOK_AFTER_STUDY), "after_study");
	assert_int_equal(iom_hook_point_from_name("before_runs"), -1);
	/* every variable of the table has a value in the test's table, and the table is unique */
	for (size_t i = 0; i < iom_hook_nvars; i++)
		for (size_t j = i + 1; j < iom_hook_nvars; j++)
			assert_string_not_equal(iom_hook_var_table[i].name,
						iom_hook_var_table[j].name);
}

struct expand_case {
	const char *tmpl;
	bool quote;
	const char *want; /* NULL: an error */
	const char *err;
};

static const struct expand_case expand_cases[] = {
	{ "${target.label}", false, "a b'c", NULL },
	{ "echo ${target.label}", true, "echo \"${IOMATRIX_TARGET_LABEL}\"", NULL },
	{ "ls ${target.path}", true, "ls \"${IOMATRIX_TARGET_PATH}\"", NULL },
	{ "${target.device}", false, "/dev/nvme0n1", NULL },
	{ "${target.controller}", false, "nvme", NULL },
	{ "${target.filesystem}", false, "ext4", NULL },
	{ "echo [${target.mount}]", true, "echo [\"${IOMATRIX_TARGET_MOUNT}\"]", NULL },
	{ "bs=${cell.block_size}", false, "bs=4K", NULL },
	{ "${cell.queue_depth}", false, "32", NULL },
	{ "${cell.threads}", false, "4", NULL },
	{ "${cell.read_pct}", false, "70", NULL },
	{ "${cell.pattern}", false, "random", NULL },
	{ "${cell.engine}", false, "io_uring", NULL },
	{ "${cell.direct}", false, "true", NULL },
	{ "${run.index}/${run.repetition}", false, "7/2", NULL },
	{ "echo ${study.name}", true, "echo \"${IOMATRIX_STUDY_NAME}\"", NULL },
	{ "", false, "", NULL },
	{ "no variables at all", true, "no variables at all", NULL },
	{ "cost $$5", false, "cost $5", NULL },
	{ "$$$$", false, "$$", NULL },
	{ "$${run.index}", false, "${run.index}", NULL },
	{ "echo $HOME $1 $", true, "echo $HOME $1 $", NULL },
	/* numeric variables bare (digits, checked), so that $((…)) of dash takes them */
	{ "a${run.index}b${run.index}c", true, "a${IOMATRIX_RUN_INDEX}b${IOMATRIX_RUN_INDEX}c",
	  NULL },
	/* inside quotes: a reference to the environment variable, expanded by the shell */
	{ "echo \"bs=${cell.block_size}\"", true, "echo \"bs=${IOMATRIX_CELL_BLOCK_SIZE}\"", NULL },
	{ "echo \"bs=${cell.block_size}\"", false, "echo \"bs=4K\"", NULL },
	{ "echo '${target.label}'", true, "echo ''\"${IOMATRIX_TARGET_LABEL}\"''", NULL },
	{ "echo \"it's\" ${target.label}", true, "echo \"it's\" \"${IOMATRIX_TARGET_LABEL}\"",
	  NULL },
	{ "echo it\\'s ${target.label}", true, "echo it\\'s \"${IOMATRIX_TARGET_LABEL}\"", NULL },
	{ "# it's\necho ${target.label}", true, "# it's\necho \"${IOMATRIX_TARGET_LABEL}\"", NULL },
	/* bash's $'…': the quote closed around the reference and opened again */
	{ "echo $'a\\'b ${target.path} c'", true,
	  "echo $'a\\'b '\"${IOMATRIX_TARGET_PATH}\"$' c'", NULL },
	{ "cat <<< ${target.path}", true, "cat <<< \"${IOMATRIX_TARGET_PATH}\"", NULL },
	/* "$$" then a variable: the shell would join them ($'…', $"…", $${…}); refused */
	{ "echo $$${target.path}", true, NULL,
	  "'${target.path}' follows a '$' the shell would join with it into one expansion "
	  "(write '\\$$' for a '$' printed before the value)" },
	{ "echo \"$$${target.path}\"", true, NULL,
	  "'${target.path}' follows a '$' the shell would join with it into one expansion "
	  "(write '\\$$' for a '$' printed before the value)" },
	{ "echo $$${target.path}", false, "echo $/dev/shm/scratch file", NULL },
	{ "echo \\$$${target.path}", true, "echo \\$\"${IOMATRIX_TARGET_PATH}\"", NULL },
	{ "echo $$$$${target.path} '$$${target.path}'", true,
	  "echo $$\"${IOMATRIX_TARGET_PATH}\" '$'\"${IOMATRIX_TARGET_PATH}\"''", NULL },
	/* bash arithmetic evaluates what it expands: only numeric variables there */
	{ "echo $(( ${run.index} + 1 ))", true, "echo $(( ${IOMATRIX_RUN_INDEX} + 1 ))", NULL },
	{ "echo $(( ${target.path} ))", true, NULL,
	  "'${target.path}' is text in a command with ((…)), where bash evaluates values as "
	  "arithmetic, which can run commands; only the numeric variables (${run.index}, "
	  "${cell.queue_depth} …) may be used in it" },
	{ "[[ -e ${target.path} ]]", true, NULL,
	  "'${target.path}' is text in a command with [[ … ]], where bash evaluates values as "
	  "arithmetic, which can run commands; only the numeric variables (${run.index}, "
	  "${cell.queue_depth} …) may be used in it" },
	{ "grep -c '[[:space:]]' ${target.path}", true,
	  "grep -c '[[:space:]]' \"${IOMATRIX_TARGET_PATH}\"", NULL },
	{ "echo $${HOME:${target.path}}", true, NULL,
	  "'${target.path}' is text inside a '$${…}' of the shell, whose offsets and subscripts "
	  "bash evaluates as arithmetic, which can run commands; only the numeric variables may "
	  "be used there" },
	{ "echo $${HOME:${run.index}} $${HOME}${target.path}", true,
	  "echo ${HOME:${IOMATRIX_RUN_INDEX}} ${HOME}\"${IOMATRIX_TARGET_PATH}\"", NULL },
	{ "echo a#b'${run.index}'", true, "echo a#b''\"${IOMATRIX_RUN_INDEX}\"''", NULL },
	/* beyond simple tracking: references, double-quoted, with the best guess of quotes */
	{ "echo $(cat ${target.path})", true, "echo $(cat \"${IOMATRIX_TARGET_PATH}\")", NULL },
	{ "echo \"$(echo \"${target.label}\")\" ${target.label}", true,
	  "echo \"$(echo \"${IOMATRIX_TARGET_LABEL}\")\" \"${IOMATRIX_TARGET_LABEL}\"", NULL },
	{ "echo `x` ${target.label}", true, "echo `x` \"${IOMATRIX_TARGET_LABEL}\"", NULL },
	{ "cat <<E\n${target.label}\nE", true, NULL,
	  "'${target.label}' is in a here-document's body, which its command may read as code "
	  "(pass it as an argument)" },
	{ "cat <<-'E' >x\n\tbody\n\tE\necho ${target.label}", true,
	  "cat <<-'E' >x\n\tbody\n\tE\necho \"${IOMATRIX_TARGET_LABEL}\"", NULL },
	{ "cat <<E; echo ${target.label}\nE", true,
	  "cat <<E; echo \"${IOMATRIX_TARGET_LABEL}\"\nE", NULL },
	{ "echo \\${run.index}", true, NULL,
	  "'${run.index}' follows a backslash (write '$${' for a literal '${')" },
	{ "${target.pth}", true, NULL,
	  "unknown variable '${target.pth}' (did you mean '${target.path}'?)" },
	{ "${wholly_unrelated_thing}", true, NULL, "unknown variable '${wholly_unrelated_thing}'" },
	{ "echo ${run.index", true, NULL, "unterminated '${' at column 6" },
	{ "x ${}", true, NULL, "empty variable name '${}' at column 3" },
	{ "${a b}", true, NULL, "invalid variable name '${a b}' at column 1" },
};

static void test_hooks_expand_table(void **state)
{
	struct st *s = *state;

	for (size_t i = 0; i < IOM_ARRAY_SIZE(expand_cases); i++) {
		const struct expand_case *c = &expand_cases[i];
		char err[IOM_ERRLEN] = "", *out = (char *)"unset";
		int ret;

		print_message("case %zu: %s\n", i, c->tmpl);
		ret = iom_hook_expand(c->tmpl, &s->vars, c->quote, &out, err, sizeof(err));
		if (c->want) {
			assert_int_equal(ret, 0);
			assert_string_equal(out, c->want);
			free(out);
		} else {
			assert_int_equal(ret, -EINVAL);
			assert_null(out);
			assert_string_equal(err, c->err);
		}
	}
}

static void test_hooks_expand_missing_value(void **state)
{
	struct iom_hook_vars vars = { 0 };
	char err[IOM_ERRLEN], *out;

	(void)state;
	iom_hook_vars_set(&vars, "study.dir", "/r");
	assert_int_equal(iom_hook_expand("${target.path}", &vars, true, &out, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "variable '${target.path}' has no value here");
	/* a value set twice is replaced, not duplicated */
	iom_hook_vars_set(&vars, "study.dir", "/s");
	assert_int_equal(vars.n, 1);
	assert_string_equal(iom_hook_vars_get(&vars, "study.dir"), "/s");
	assert_null(iom_hook_vars_get(&vars, "study.name"));
	iom_hook_vars_release(&vars);
	assert_int_equal(vars.n, 0);
}

struct check_case {
	enum iom_hook_point point;
	const char *tmpl;
	const char *err; /* NULL: valid */
};

static const struct check_case check_cases[] = {
	{ IOM_HOOK_BEFORE_STUDY, "mkdir -p ${study.dir}/iostat && echo ${study.name}", NULL },
	{ IOM_HOOK_BEFORE_TARGET, "blockdev --flushbufs ${target.device}", NULL },
	{ IOM_HOOK_BEFORE_RUN, "echo ${run.index} ${cell.block_size} ${target.label}", NULL },
	{ IOM_HOOK_AFTER_RUN, "echo ${run.repetition} $$ $HOME", NULL },
	{ IOM_HOOK_AFTER_TARGET, "echo ${target.path}", NULL },
	{ IOM_HOOK_AFTER_STUDY, "echo ${study.dir}", NULL },
	{ IOM_HOOK_BEFORE_TARGET, "echo ${cell.block_size}",
	  "variable '${cell.block_size}' has no value in before_target (it is known in before_run "
	  "and after_run)" },
	{ IOM_HOOK_AFTER_STUDY, "echo ${target.path}",
	  "variable '${target.path}' has no value in after_study (it is known in before_target, "
	  "before_run, after_run and after_target)" },
	{ IOM_HOOK_BEFORE_STUDY, "echo ${run.idx}",
	  "unknown variable '${run.idx}' (did you mean '${run.index}'?)" },
	{ IOM_HOOK_BEFORE_RUN, "echo ${run.index", "unterminated '${' at column 6" },
	/* what cannot stay data is refused when the matrix is read (check names FILE:LINE) */
	{ IOM_HOOK_BEFORE_TARGET, "echo $$${target.path}",
	  "'${target.path}' follows a '$' the shell would join with it into one expansion "
	  "(write '\\$$' for a '$' printed before the value)" },
	{ IOM_HOOK_BEFORE_TARGET, "echo \\${target.path}",
	  "'${target.path}' follows a backslash (write '$${' for a literal '${')" },
	{ IOM_HOOK_BEFORE_RUN, "(( ${run.index} > 3 )) && echo ${cell.pattern}",
	  "'${cell.pattern}' is text in a command with ((…)), where bash evaluates values as "
	  "arithmetic, which can run commands; only the numeric variables (${run.index}, "
	  "${cell.queue_depth} …) may be used in it" },
	{ IOM_HOOK_BEFORE_RUN, "(( ${run.index} > 3 )) && echo $${HOME:+x} ${run.repetition}",
	  NULL },
	{ IOM_HOOK_BEFORE_RUN, "# $$${target.path} in a comment is nothing", NULL },
};

static void test_hooks_check_points(void **state)
{
	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(check_cases); i++) {
		const struct check_case *c = &check_cases[i];
		char err[IOM_ERRLEN] = "";
		int ret = iom_hook_check(c->point, c->tmpl, err, sizeof(err));

		print_message("case %zu: %s: %s\n", i, iom_hook_point_name(c->point), c->tmpl);
		if (!c->err) {
			assert_int_equal(ret, 0);
		} else {
			assert_int_equal(ret, -EINVAL);
			assert_string_equal(err, c->err);
		}
	}
}

/*
 * The positive list: a text variable is accepted only where bash, dash and busybox sh keep its
 * value as data (an argument of a command that takes it as neither code nor a name, or a
 * redirection's target); everything else is refused naming the place (err: a part of the
 * message; NULL: accepted).
 */
struct place_case {
	const char *tmpl;
	const char *err;
};

static const struct place_case place_cases[] = {
	/* accepted: arguments, bare or quoted, of plain commands; redirection targets */
	{ "cp -v ${target.path} \"${study.dir}/copy\"", NULL },
	{ "echo '${target.label}' $'${target.label}' x=${target.label}", NULL },
	{ "dd if=${target.path} of=/dev/null count=1 2>>${study.dir}/dd.log", NULL },
	{ "[ -e ${target.path} ] && [ \"${target.label}\" = x ] || test -n ${target.label}", NULL },
	{ "printf '%s %s\\n' ${target.label} ${target.path}", NULL },
	{ "if true; then ls ${target.path}; fi; for f in ${target.path}; do echo $f; done", NULL },
	{ "case ${target.label} in x) echo ${target.path};; esac", NULL },
	{ "out=$(cat ${target.path}); { echo ${target.label}; } | tee -a ${study.dir}/l", NULL },
	{ "cat <<< ${target.label}; cat <<E >${study.dir}/x\nbody\nE\necho ${target.path}", NULL },
	{ "sh -c 'ls \"$1\"' sh ${target.path}; command -V ls; exec >${study.dir}/log", NULL },
	{ "echo read eval ${target.label}; echo -v ${target.label}", NULL },
	{ "test ${run.index} -eq 1 && printf ${run.index} && a[${run.index}]=1", NULL },
	/* refused: the exploits of bash as /bin/sh, and the other places of code or names */
	{ "echo $[ ${study.dir} ]", "is text in a command with $[…]" },
	{ "echo `[[ ${study.dir} -eq 1 ]]`", "is inside backquotes" },
	{ "x=`echo ${study.dir}`", "is inside backquotes" },
	{ "echo \"`echo ${study.dir}`\"", "is inside backquotes" },
	{ "a[${study.dir}]=1", "is in an array subscript (a[…])" },
	{ "d=${study.dir}; ls $d", "is the value of an assignment (d=…)" },
	{ "test -v ${study.dir}", "follows 'test -v'" },
	{ "[ -v ${study.dir} ]", "follows '[ -v'" },
	{ "[ ! -R \"${study.dir}\" ]", "follows '[ -v'" },
	{ "printf -v ${study.dir} %s x", "follows 'printf -v'" },
	{ "builtin printf -v x%s ${study.dir}", "follows 'printf -v'" },
	{ "printf ${study.dir} x", "is printf's first argument" },
	{ "[ ${target.label} ${study.dir} ]", "follows another value in '['" },
	{ "eval echo ${study.dir}", "is an argument of 'eval'" },
	{ "\\eval \"echo ${study.dir}\"", "is an argument of 'eval'" },
	{ "command eval \"echo ${study.dir}\"", "is an argument of 'eval'" },
	{ "trap 'rm ${study.dir}' EXIT", "is an argument of 'trap'" },
	{ ". ${study.dir}/env.sh", "is an argument of '.'" },
	{ "ssh host ls ${study.dir}", "is an argument of 'ssh'" },
	{ "declare -n r=${study.dir}", "is an argument of 'declare'" },
	{ "read ${study.dir} </dev/null", "is an argument of 'read'" },
	{ "let ${study.dir}", "is an argument of 'let'" },
	{ "unset ${study.dir}", "is an argument of 'unset'" },
	{ "local x=${study.dir}", "is an argument of 'local'" },
	{ "export X=${study.dir}", "is an argument of 'export'" },
	{ "sh -c \"ls ${study.dir}\"", "is in the command string of 'sh -c'" },
	{ "/bin/bash -xc 'ls ${study.dir}'", "is in the command string of '/bin/bash -c'" },
	{ "sudo sh -c \"ls ${study.dir}\"", "is in the command string of 'sh -c'" },
	{ "${study.dir}/post.sh", "is the command's name" },
	{ "x=1 \"${study.dir}\" arg", "is the command's name" },
	{ "exec ${study.dir}", "is the command's name" },
	{ "echo x; ${study.dir}", "is the command's name" },
	{ "echo $(${study.dir})", "is the command's name" },
	{ "cat <<E\n${study.dir}\nE", "is in a here-document's body" },
	{ "cat <<-E\n\tE x\n${study.dir}\n\tE", "is in a here-document's body" },
	{ "cat <<${study.dir}\nx\n", "is a here-document's delimiter" },
	{ "[[ ${study.dir} == x ]]", "is text in a command with [[ … ]]" },
	{ "for ((i = 0; i < 1; i++)); do echo ${study.dir}; done", "is text in a command with ((…))" },
	{ "echo $${x[${study.dir}]}", "is text inside a '$${…}' of the shell" },
};

static void test_hooks_positive_list(void **state)
{
	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(place_cases); i++) {
		const struct place_case *c = &place_cases[i];
		char err[IOM_ERRLEN] = "";
		int ret = iom_hook_check(IOM_HOOK_BEFORE_RUN, c->tmpl, err, sizeof(err));

		print_message("case %zu: %s\n", i, c->tmpl);
		if (!c->err) {
			if (ret != 0)
				fail_msg("'%s' refused: %s", c->tmpl, err);
		} else {
			assert_int_equal(ret, -EINVAL);
			assert_contains(err, c->err);
		}
	}
}

/* ---- running hooks ---------------------------------------------------------------------- */

static const char *const hostile[] = {
	"a b'c",
	"$(touch pwned)\"$(touch pwned)\"'$(touch pwned)'",
	"\"; touch pwned; \"",
	"'; touch pwned; '",
	"\\';touch pwned;#",
	"\\'\\'';touch pwned;#'",
	"$'\\x27';touch pwned;#",
	"'\";touch pwned;#\"'",
	"\nEOF\ntouch pwned\n",
	"`touch pwned`\"`touch pwned`\"",
	"$(touch pwned)",
	"`touch pwned`",
	"x; touch pwned",
	"x && touch pwned || touch pwned",
	"a[$(touch pwned)]",
	"\"double\" 'single' \\back\\slash",
	"new\nline\ttab",
	"* ? [a-z] ~",
	"${HOME} $HOME \\$HOME",
	"'",
	"''\\''",
	"-n",
	"",
};

struct safe_case {
	const char *tmpl;
	bool exact; /* the label comes back byte for byte (but for trailing newlines, which a
		     * command substitution drops, when subst is set) */
	bool subst;
	bool bash;  /* exact under bash only (bash's $'…', <<<); under dash still safe */
};

static const struct safe_case safe_cases[] = {
	{ "printf %s ${target.label} > ${study.dir}/out", true, false, false },
	{ "printf %s \"${target.label}\" > \"${study.dir}/out\"", true, false, false },
	{ "printf '%s' '${target.label}' > ${study.dir}/out", true, false, false },
	{ "printf %s x${target.label}\"\"'' > ${study.dir}/out; "
	  "printf %s \"$(cat ${study.dir}/out | cut -c 2-)\" > ${study.dir}/out2; "
	  "mv ${study.dir}/out2 ${study.dir}/out", false, false, false },
	{ "printf %s \"$(printf %s \"${target.label}\")\" > ${study.dir}/out", true, true, false },
	{ "# it's a \"comment\n printf %s ${target.label} > ${study.dir}/out", true, false, false },
	{ "echo it\\'s >/dev/null; printf %s ${target.label} > ${study.dir}/out", true, false,
	  false },
	/* bash's ANSI-C quotes, where \' is a quote, and here-strings */
	{ "printf %s $'${target.label}' > ${study.dir}/out", true, false, true },
	{ "printf %s $'\\''${target.label}$'\\'' | tr -d \"'\" > ${study.dir}/out", false, false,
	  true },
	{ "printf %s \"$(cat <<< ${target.label})\" > ${study.dir}/out", true, true, true },
	{ "printf %s $$$$${target.label} > ${study.dir}/out", false, false, false },
	{ "printf %s \\$$${target.label} > ${study.dir}/out", false, false, false },
	{ "printf %s \"\\$$${target.label}\" > ${study.dir}/out", false, false, false },
	{ "printf %s $${HOME:+${run.index}} > /dev/null; "
	  "printf %s ${target.label} > ${study.dir}/out", true, false, false },
	{ "test $(( ${run.index} + 1 )) = 8", false, false, false },
};

/* The path of shell name ("bash") in the usual places, or NULL. */
static const char *shell_path(const char *name)
{
	static const char *const dirs[] = { "/usr/bin", "/bin", "/usr/local/bin" };
	static char buf[3][64];
	static size_t next;

	for (size_t i = 0; i < IOM_ARRAY_SIZE(dirs); i++) {
		char *p = buf[next % 3];

		snprintf(p, sizeof(buf[0]), "%s/%s", dirs[i], name);
		if (access(p, X_OK) == 0) {
			next++;
			return p;
		}
	}
	return NULL;
}

/*
 * Every template with every hostile label under /bin/sh, dash and bash (each one found; a
 * missing one is named and skipped): no command runs, and the exact ones give the label back.
 */
static void test_hooks_quoting_is_safe(void **state)
{
	struct st *s = *state;
	char *out = path_in(s, "out"), *pwned = path_in(s, "pwned");
	const char *shells[3] = { "/bin/sh", shell_path("dash"), shell_path("bash") };
	static const char *const names[3] = { "/bin/sh", "dash", "bash" };
	unsigned ran = 0;

	assert_int_equal(chdir(s->dir), 0); /* "touch pwned" would land here; teardown goes back */
	for (size_t sh = 0; sh < 3; sh++) {
		struct iom_hook_opts o = { .shell = shells[sh] };
		bool is_bash = sh == 2;

		if (!shells[sh]) {
			print_message("%s is not installed: the quoting is not tried with it\n",
				      names[sh]);
			continue;
		}
		ran++;
		for (size_t k = 0; k < IOM_ARRAY_SIZE(safe_cases); k++) {
			const struct safe_case *c = &safe_cases[k];
			bool exact = c->exact && (!c->bash || is_bash);

			for (size_t i = 0; i < IOM_ARRAY_SIZE(hostile); i++) {
				struct iom_proc_result r;
				char err[IOM_ERRLEN] = "", *got;
				int ret;

				unlink(out);
				iom_hook_vars_set(&s->vars, "target.label", hostile[i]);
				ret = iom_hook_run(IOM_HOOK_BEFORE_RUN, c->tmpl, &s->vars, &o, &r, err,
						   sizeof(err));
				if (ret == -EINVAL)
					fail_msg("template %zu refused: %s", k, err);
				if (ret != 0 && exact)
					fail_msg("%s: hook '%s' failed: %s", shells[sh], r.command, err);
				if (exact) {
					size_t want = strlen(hostile[i]);

					while (c->subst && want && hostile[i][want - 1] == '\n')
						want--;
					got = slurp(out);
					if (strlen(got) != want || memcmp(got, hostile[i], want) != 0)
						fail_msg("%s: '%s' wrote '%s'", shells[sh], r.command,
							 got);
					free(got);
				}
				iom_proc_result_release(&r);
				if (access(pwned, F_OK) == 0)
					fail_msg("%s: template %zu with label '%s' ran a command",
						 shells[sh], k, hostile[i]);
			}
		}
	}
	assert_true(ran >= 2); /* /bin/sh and at least one of dash and bash */
	free(out);
	free(pwned);
}

/*
 * The hook-injection attack as it was: "$$" then a variable was a '$' before the value's single
 * quotes, which bash read as $'…', where \' is a quote. Now refused, at check time too, and the
 * references that replace it under bash and dash create nothing.
 */
static void test_hooks_dollar_before_variable(void **state)
{
	struct st *s = *state;
	char err[IOM_ERRLEN] = "", *pwned = path_in(s, "PWNED");
	const char *shells[2] = { shell_path("dash"), shell_path("bash") };
	struct iom_proc_result r;

	assert_int_equal(iom_hook_check(IOM_HOOK_BEFORE_RUN, "echo $$${target.path}", err,
					sizeof(err)),
			 -EINVAL);
	assert_contains(err, "follows a '$'");
	assert_int_equal(chdir(s->dir), 0);
	iom_hook_vars_set(&s->vars, "target.path", "\\';touch PWNED;#");
	for (size_t sh = 0; sh < 2; sh++) {
		struct iom_hook_opts o = { .shell = shells[sh] };

		if (!shells[sh])
			continue;
		assert_int_equal(iom_hook_run(IOM_HOOK_BEFORE_RUN, "echo $$${target.path}",
					      &s->vars, &o, &r, err, sizeof(err)),
				 -EINVAL);
		assert_int_equal(r.outcome, IOM_PROC_NOT_STARTED);
		iom_proc_result_release(&r);
		/* what a hook writes instead: '$' quoted, or the shell's own $$ */
		assert_int_equal(iom_hook_run(IOM_HOOK_BEFORE_RUN,
					      "echo \\$$${target.path} $$$$${target.path} "
					      "$'$${target.path}' \"$$\"${target.path}",
					      &s->vars, &o, &r, err, sizeof(err)),
				 0);
		assert_contains(r.tail, "$\\';touch PWNED;#");
		iom_proc_result_release(&r);
		assert_int_equal(access(pwned, F_OK), -1);
	}
	/* a numeric variable is trusted bare for its digits only */
	iom_hook_vars_set(&s->vars, "run.index", "1;touch PWNED");
	assert_int_equal(iom_hook_run(IOM_HOOK_BEFORE_RUN, "echo ${run.index}", &s->vars, NULL, &r,
				      err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "hook before_run: variable '${run.index}' is not a number here "
				 "('1;touch PWNED')");
	iom_proc_result_release(&r);
	assert_int_equal(access(pwned, F_OK), -1);
	free(pwned);
}

static void test_hooks_exit_status(void **state)
{
	struct st *s = *state;
	char *log = path_in(s, "hooks/00007-before_run.log"), *text;
	struct iom_hook_opts o = { .log_path = log };
	struct iom_proc_result r;
	char err[IOM_ERRLEN];

	assert_int_equal(iom_hook_run(IOM_HOOK_BEFORE_RUN,
				      "echo first; echo \"run ${run.index} went wrong\" >&2; exit 3",
				      &s->vars, &o, &r, err, sizeof(err)),
			 -EIO);
	assert_string_equal(err, "hook before_run exited with status 3: run 7 went wrong");
	assert_int_equal(r.outcome, IOM_PROC_EXITED);
	assert_int_equal(r.status, 3);
	assert_string_equal(r.tail, "first\nrun 7 went wrong");
	assert_string_equal(r.command,
			    "echo first; echo \"run ${IOMATRIX_RUN_INDEX} went wrong\" >&2; exit 3");
	iom_proc_result_release(&r);

	/* the log (its directory made) keeps the command, the output and the outcome */
	text = slurp(log);
	assert_contains(text, "# hook before_run at ");
	assert_contains(text, "# echo first; echo \"run ${IOMATRIX_RUN_INDEX} went wrong\" >&2; "
			      "exit 3\n");
	assert_contains(text, "\nfirst\nrun 7 went wrong\n# failed after ");
	assert_contains(text, ": hook before_run exited with status 3: run 7 went wrong\n");
	free(text);
	free(log);

	/* no output */
	assert_int_equal(iom_hook_run(IOM_HOOK_AFTER_RUN, "exit 4", &s->vars, NULL, &r, err,
				      sizeof(err)),
			 -EIO);
	assert_string_equal(err, "hook after_run exited with status 4 (no output)");
	iom_proc_result_release(&r);

	/* a signal it sent itself */
	assert_int_equal(iom_hook_run(IOM_HOOK_AFTER_RUN, "echo bye; kill -USR1 $$$$", &s->vars,
				      NULL, &r, err, sizeof(err)),
			 -EIO);
	assert_string_equal(err, "hook after_run was killed by SIGUSR1: bye");
	assert_int_equal(r.outcome, IOM_PROC_SIGNALED);
	assert_int_equal(r.status, SIGUSR1);
	iom_proc_result_release(&r);

	/* a long last line is cut for the message; control characters are replaced */
	assert_int_equal(iom_hook_run(IOM_HOOK_AFTER_RUN,
				      "printf 'a\\001b\\n'; head -c 1000 /dev/zero | tr '\\0' x; "
				      "exit 1",
				      &s->vars, NULL, &r, err, sizeof(err)),
			 -EIO);
	assert_int_equal(strlen(err), strlen("hook after_run exited with status 1: ") + 240 +
					      strlen("…"));
	assert_non_null(strchr(r.tail, '\n')); /* "a?b" above the long line */
	iom_proc_result_release(&r);
	assert_int_equal(iom_hook_run(IOM_HOOK_AFTER_RUN, "printf 'a\\001b\\n'; exit 1", &s->vars,
				      NULL, &r, err, sizeof(err)),
			 -EIO);
	assert_string_equal(err, "hook after_run exited with status 1: a?b");
	iom_proc_result_release(&r);

	/* success */
	assert_int_equal(iom_hook_run(IOM_HOOK_AFTER_RUN, "echo fine", &s->vars, NULL, &r, err,
				      sizeof(err)),
			 0);
	assert_int_equal(r.outcome, IOM_PROC_OK);
	assert_string_equal(r.tail, "fine");
	iom_proc_result_release(&r);
}

/* Whether process pid is gone (or a zombie nobody has reaped yet). */
static bool gone(pid_t pid)
{
	char path[64], *text = NULL, *paren;
	bool g = true;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (iom_read_file(path, &text, NULL) == 0) {
		paren = strrchr(text, ')');
		g = paren && paren[1] == ' ' && paren[2] == 'Z';
		free(text);
	}
	return g;
}

static void test_hooks_timeout_kills_group(void **state)
{
	struct st *s = *state;
	struct iom_hook_opts o = { .timeout_ns = 1000000000ull };
	struct iom_proc_result r;
	char err[IOM_ERRLEN], *pidfile = path_in(s, "pid"), *text;
	pid_t bg;

	assert_int_equal(iom_hook_run(IOM_HOOK_BEFORE_RUN,
				      "sleep 30 & echo $$! > ${study.dir}/pid; echo started; wait",
				      &s->vars, &o, &r, err, sizeof(err)),
			 -ETIMEDOUT);
	assert_string_equal(err, "hook before_run timed out after 1s and was killed: started");
	assert_int_equal(r.outcome, IOM_PROC_TIMED_OUT);
	iom_proc_result_release(&r);

	/* the background sleep was in the hook's process group: it is gone too */
	text = slurp(pidfile);
	bg = (pid_t)atoi(text);
	assert_true(bg > 1);
	for (int i = 0; i < 500 && !gone(bg); i++)
		usleep(10000);
	assert_true(gone(bg));
	free(text);
	free(pidfile);
}

static void test_hooks_stop_flag(void **state)
{
	struct st *s = *state;
	volatile sig_atomic_t stop = 1;
	struct iom_hook_opts o = { .stop = &stop };
	struct iom_proc_result r;
	char err[IOM_ERRLEN];

	assert_int_equal(iom_hook_run(IOM_HOOK_AFTER_RUN, "sleep 30", &s->vars, &o, &r, err,
				      sizeof(err)),
			 -EINTR);
	assert_string_equal(err, "hook after_run was stopped (no output)");
	assert_int_equal(r.outcome, IOM_PROC_INTERRUPTED);
	iom_proc_result_release(&r);
}

static void test_hooks_environment(void **state)
{
	struct st *s = *state;
	struct iom_proc_result r;
	char err[IOM_ERRLEN], *path = path_in(s, "env"), *text;

	setenv("IOMATRIX_STALE", "from the parent", 1);
	assert_int_equal(iom_hook_run(IOM_HOOK_BEFORE_RUN,
				      "env | grep '^IOMATRIX_' | sort > ${study.dir}/env; "
				      "test \"$IOMATRIX_TARGET_LABEL\" = \"a b'c\"",
				      &s->vars, NULL, &r, err, sizeof(err)),
			 0);
	unsetenv("IOMATRIX_STALE");
	iom_proc_result_release(&r);
	text = slurp(path);
	assert_contains(text, "IOMATRIX_HOOK=before_run\n");
	assert_contains(text, "IOMATRIX_TARGET_LABEL=a b'c\n");
	assert_contains(text, "IOMATRIX_TARGET_PATH=/dev/shm/scratch file\n");
	assert_contains(text, "IOMATRIX_CELL_BLOCK_SIZE=4K\n");
	assert_contains(text, "IOMATRIX_CELL_QUEUE_DEPTH=32\n");
	assert_contains(text, "IOMATRIX_RUN_INDEX=7\n");
	assert_contains(text, "IOMATRIX_RUN_REPETITION=2\n");
	assert_contains(text, "IOMATRIX_STUDY_NAME=night sweep\n");
	assert_contains(text, "IOMATRIX_TARGET_MOUNT=\n");
	assert_null(strstr(text, "IOMATRIX_STALE"));
	free(text);
	free(path);
}

static void test_hooks_not_started(void **state)
{
	struct st *s = *state;
	struct iom_proc_result r;
	char err[IOM_ERRLEN];

	assert_int_equal(iom_hook_run(IOM_HOOK_BEFORE_RUN, "echo ${target.pth}", &s->vars, NULL,
				      &r, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "hook before_run: unknown variable '${target.pth}' (did you "
				 "mean '${target.path}'?)");
	assert_int_equal(r.outcome, IOM_PROC_NOT_STARTED);
	iom_proc_result_release(&r);
}

struct bytes_case {
	const char *text;
	uint64_t region;
	uint64_t want;
	int ret;
	const char *err;
};

static const struct bytes_case bytes_cases[] = {
	{ "2x", 1 << 20, 2 << 20, 0, NULL },
	{ "1x", 12345, 12345, 0, NULL },
	{ "1.5X", 1 << 20, 3 << 19, 0, NULL },
	{ "0.5x", 3, 1, 0, NULL },
	{ "100x", 1 << 20, 100ull << 20, 0, NULL },
	{ "64G", 1 << 20, 64ull << 30, 0, NULL },
	{ "4096", 1 << 20, 4096, 0, NULL },
	{ "101x", 1 << 20, 0, -ERANGE,
	  "precondition bytes '101x' is out of range (more than 0x, at most 100x the region)" },
	{ "0x", 1 << 20, 0, -ERANGE,
	  "precondition bytes '0x' is out of range (more than 0x, at most 100x the region)" },
	{ "x", 1 << 20, 0, -EINVAL,
	  "precondition bytes 'x' is not a multiple such as \"2x\" or a size such as \"64G\"" },
	{ "2 x", 1 << 20, 0, -EINVAL,
	  "precondition bytes '2 x' is not a multiple such as \"2x\" or a size such as \"64G\"" },
	{ "0x2x", 1 << 20, 0, -EINVAL,
	  "precondition bytes '0x2x' is not a multiple such as \"2x\" or a size such as \"64G\"" },
	{ "1e1x", 1 << 20, 0, -EINVAL,
	  "precondition bytes '1e1x' is not a multiple such as \"2x\" or a size such as \"64G\"" },
	{ "0", 1 << 20, 0, -ERANGE, "precondition bytes must be more than 0" },
	{ "", 1 << 20, 0, -EINVAL,
	  "precondition bytes are empty (use a multiple of the region such as \"2x\", or a "
	  "size)" },
};

static void test_hooks_precondition_bytes(void **state)
{
	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(bytes_cases); i++) {
		const struct bytes_case *c = &bytes_cases[i];
		char err[IOM_ERRLEN] = "";
		uint64_t b = 0;
		int ret = iom_precondition_bytes(c->text, c->region, &b, err, sizeof(err));

		print_message("case %zu: '%s'\n", i, c->text);
		assert_int_equal(ret, c->ret);
		if (ret == 0)
			assert_int_equal(b, c->want);
		else
			assert_string_equal(err, c->err);
	}
	/* a size the parser rejects keeps the parser's words */
	{
		char err[IOM_ERRLEN];
		uint64_t b;

		assert_int_equal(iom_precondition_bytes("4Q", 1, &b, err, sizeof(err)), -EINVAL);
		assert_contains(err, "precondition bytes ");
		assert_contains(err, "'4Q'");
	}
}

/* Every dimension of the key table is a variable ${cell.NAME}, known before and after a run and
 * not before a target; a whole number or a percentage may stand in arithmetic, and its value
 * must then be digits. */
static void test_hooks_every_dimension_is_a_cell_variable(void **state)
{
	char err[IOM_ERRLEN], tmpl[128];
	int numbers = 0;

	(void)state;
	for (int d = 1; d < IOM_DIM_COUNT; d++) {
		const struct iom_key *k = iom_dim_key((enum iom_dim)d);
		bool number = k->type == IOM_TYPE_UINT || k->type == IOM_TYPE_PCT;
		struct iom_hook_vars vars = { 0 };
		char *out = NULL;

		snprintf(tmpl, sizeof(tmpl), "echo ${cell.%s}", iom_dim_name((enum iom_dim)d));
		if (iom_hook_check(IOM_HOOK_BEFORE_RUN, tmpl, err, sizeof(err)) < 0)
			fail_msg("%s: %s", tmpl, err);
		assert_int_equal(iom_hook_check(IOM_HOOK_AFTER_RUN, tmpl, err, sizeof(err)), 0);
		assert_int_equal(iom_hook_check(IOM_HOOK_BEFORE_TARGET, tmpl, err, sizeof(err)),
				 -EINVAL);
		assert_non_null(strstr(err, "has no value in before_target"));
		/* set by the one setter, read back by its name */
		iom_hook_vars_set_cell(&vars, (enum iom_dim)d, number ? "7" : "x");
		assert_int_equal(iom_hook_expand(tmpl, &vars, false, &out, err, sizeof(err)), 0);
		assert_string_equal(out, number ? "echo 7" : "echo x");
		free(out);
		out = NULL;
		snprintf(tmpl, sizeof(tmpl), "echo $((${cell.%s} + 1))", iom_dim_name((enum iom_dim)d));
		if (number) {
			numbers++;
			if (iom_hook_check(IOM_HOOK_BEFORE_RUN, tmpl, err, sizeof(err)) < 0)
				fail_msg("%s: %s", tmpl, err);
		}
		iom_hook_vars_release(&vars);
	}
	assert_true(numbers >= 3); /* queue_depth, threads, read_pct at least */
	assert_int_equal(iom_hook_check(IOM_HOOK_BEFORE_RUN, "echo ${cell.queue_dpth}", err,
					sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "did you mean '${cell.queue_depth}'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hooks_point_names),
		cmocka_unit_test(test_hooks_every_dimension_is_a_cell_variable),
		cmocka_unit_test_setup_teardown(test_hooks_expand_table, setup, teardown),
		cmocka_unit_test(test_hooks_expand_missing_value),
		cmocka_unit_test(test_hooks_check_points),
		cmocka_unit_test(test_hooks_positive_list),
		cmocka_unit_test_setup_teardown(test_hooks_quoting_is_safe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hooks_dollar_before_variable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hooks_exit_status, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hooks_timeout_kills_group, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hooks_stop_flag, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hooks_environment, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hooks_not_started, setup, teardown),
		cmocka_unit_test(test_hooks_precondition_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
