/*
 * hooks — the template language of the user's hook commands: variables, checking, expansion
 * and quoting, and a hook run as /bin/sh -c through proc.c. See hooks.h.
 */
#include "hooks.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "strbuf.h"
#include "units.h"
#include "util.h"

/* ---- points and variables --------------------------------------------------------------- */

static const char *const point_names[IOM_HOOK_COUNT] = {
	[IOM_HOOK_BEFORE_STUDY] = "before_study", [IOM_HOOK_BEFORE_TARGET] = "before_target",
	[IOM_HOOK_BEFORE_RUN] = "before_run",     [IOM_HOOK_AFTER_RUN] = "after_run",
	[IOM_HOOK_AFTER_TARGET] = "after_target", [IOM_HOOK_AFTER_STUDY] = "after_study",
};

const char *iom_hook_point_name(enum iom_hook_point p)
{
	return (unsigned)p < IOM_HOOK_COUNT ? point_names[p] : "?";
}

int iom_hook_point_from_name(const char *name)
{
	for (int i = 0; i < IOM_HOOK_COUNT; i++)
		if (strcmp(point_names[i], name) == 0)
			return i;
	return -1;
}

#define PT(x) (1u << IOM_HOOK_##x)
#define AT_ALL ((1u << IOM_HOOK_COUNT) - 1)
#define AT_TARGET (PT(BEFORE_TARGET) | PT(BEFORE_RUN) | PT(AFTER_RUN) | PT(AFTER_TARGET))
#define AT_RUN (PT(BEFORE_RUN) | PT(AFTER_RUN))

const struct iom_hook_var_info iom_hook_var_table[] = {
	{ "study.dir", AT_ALL, "the results directory", false },
	{ "study.name", AT_ALL, "the matrix's name", false },
	{ "target.label", AT_TARGET, "the target's label", false },
	{ "target.path", AT_TARGET, "the scratch file or block device the I/O goes to", false },
	{ "target.device", AT_TARGET,
	  "the whole disk under the target (\"\" when unknown)", false },
	{ "target.controller", AT_TARGET,
	  "the controller label or driver (\"\" when unknown)", false },
	{ "target.filesystem", AT_TARGET,
	  "the filesystem (\"ext4\", \"raw\"; \"\" when unknown)", false },
	{ "target.mount", AT_TARGET,
	  "the mount point of the target's filesystem (\"\" for raw)", false },
	{ "cell.block_size", AT_RUN, "the block size as written (\"4K\")", false },
	{ "cell.queue_depth", AT_RUN, "the queue depth", true },
	{ "cell.threads", AT_RUN, "the number of threads", true },
	{ "cell.read_pct", AT_RUN, "the share of reads, 0 to 100", true },
	{ "cell.pattern", AT_RUN, "random or sequential", false },
	{ "cell.engine", AT_RUN, "io_uring, psync or null", false },
	{ "cell.direct", AT_RUN, "true or false", false },
	{ "run.index", AT_RUN, "the run's 1-based position in the plan", true },
	{ "run.repetition", AT_RUN, "the run's 1-based repetition of its cell", true },
};

const size_t iom_hook_nvars = IOM_ARRAY_SIZE(iom_hook_var_table);

static const struct iom_hook_var_info *var_info(const char *name, size_t len)
{
	for (size_t i = 0; i < iom_hook_nvars; i++)
		if (strlen(iom_hook_var_table[i].name) == len &&
		    memcmp(iom_hook_var_table[i].name, name, len) == 0)
			return &iom_hook_var_table[i];
	return NULL;
}

/* ---- shell quoting (strings are built in strbuf.h) --------------------------------------- */

static void sb_quoted(struct iom_strbuf *b, const char *s)
{
	iom_strbuf_add(b, "'", 1);
	for (; *s; s++) {
		if (*s == '\'')
			iom_strbuf_str(b, "'\\''");
		else
			iom_strbuf_add(b, s, 1);
	}
	iom_strbuf_add(b, "'", 1);
}

char *iom_hook_quote(const char *s)
{
	struct iom_strbuf b = { 0 };

	sb_quoted(&b, s ? s : "");
	return iom_strbuf_take(&b);
}

/* ---- templates -------------------------------------------------------------------------- */

enum tok_kind { TOK_END, TOK_TEXT, TOK_VAR };

struct tok {
	enum tok_kind kind;
	const char *s; /* text, or the variable's name */
	size_t len;
};

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-';
}

/* The next piece of the template at *pp: literal text, or a ${variable}. */
static int next_tok(const char *start, const char **pp, struct tok *t, char *err, size_t errlen)
{
	const char *p = *pp, *q;

	if (!*p) {
		t->kind = TOK_END;
		return 0;
	}
	if (p[0] == '$' && p[1] == '$') {
		t->kind = TOK_TEXT;
		t->s = p;
		t->len = 1;
		*pp = p + 2;
		return 0;
	}
	if (p[0] == '$' && p[1] == '{') {
		q = strchr(p + 2, '}');
		if (!q)
			return iom_err(err, errlen, EINVAL, "unterminated '${' at column %zu",
				       (size_t)(p - start) + 1);
		t->kind = TOK_VAR;
		t->s = p + 2;
		t->len = (size_t)(q - (p + 2));
		if (t->len == 0)
			return iom_err(err, errlen, EINVAL, "empty variable name '${}' at column %zu",
				       (size_t)(p - start) + 1);
		for (size_t i = 0; i < t->len; i++)
			if (!name_char(t->s[i]))
				return iom_err(err, errlen, EINVAL,
					       "invalid variable name '${%.*s}' at column %zu",
					       (int)t->len, t->s, (size_t)(p - start) + 1);
		*pp = q + 1;
		return 0;
	}
	/* literal text up to the next "$$" or "${"; any other '$' is the shell's */
	for (q = p + 1; *q && !(q[0] == '$' && (q[1] == '$' || q[1] == '{')); q++)
		;
	t->kind = TOK_TEXT;
	t->s = p;
	t->len = (size_t)(q - p);
	*pp = q;
	return 0;
}

static void points_text(unsigned points, char *buf, size_t len)
{
	size_t n = 0, count = 0, seen = 0;

	for (int i = 0; i < IOM_HOOK_COUNT; i++)
		count += (points >> i) & 1u;
	buf[0] = '\0';
	for (int i = 0; i < IOM_HOOK_COUNT && n < len; i++) {
		if (!((points >> i) & 1u))
			continue;
		seen++;
		n += (size_t)snprintf(buf + n, len - n, "%s%s",
				      seen == 1 ? "" : seen == count ? " and " : ", ",
				      point_names[i]);
	}
}

static int unknown_var(const char *name, size_t len, char *err, size_t errlen)
{
	const char *cands[64];
	size_t n = IOM_MIN(iom_hook_nvars, IOM_ARRAY_SIZE(cands));
	char *copy = xasprintf("%.*s", (int)len, name);
	const char *near;
	int ret;

	for (size_t i = 0; i < n; i++)
		cands[i] = iom_hook_var_table[i].name;
	near = iom_closest(copy, cands, n);
	if (near)
		ret = iom_err(err, errlen, EINVAL,
			      "unknown variable '${%s}' (did you mean '${%s}'?)", copy, near);
	else
		ret = iom_err(err, errlen, EINVAL, "unknown variable '${%s}'", copy);
	free(copy);
	return ret;
}

/*
 * Where the shell will be at a point of the command: outside quotes, in double quotes, in single
 * quotes, in bash's $'…' (where a backslash escapes a quote), in a comment, after a backslash or
 * a '$' that starts an expansion, inside a ${…} of the shell. It follows POSIX quoting for plain
 * commands and keeps a best guess for $( … ); where it guesses wrong the reference it inserts is
 * still only a reference (see the top of this file), so a wrong guess costs exactness only.
 */
enum qstate { Q_OUT, Q_DQ, Q_SQ, Q_ANSI };

struct qtrack {
	enum qstate st;
	bool esc, comment, word_start;
	bool dollar;     /* the last character was a '$' that starts an expansion */
	unsigned brace;  /* open ${ … } expansions of the shell */
	/* best effort for $( … ): the state it was opened in, and the parentheses inside */
	int depth;
	enum qstate outer[16];
	unsigned parens[16];
};

/* "$(" seen in state st: the command inside starts outside quotes. */
static void subst_open(struct qtrack *q)
{
	if (q->depth < (int)IOM_ARRAY_SIZE(q->outer)) {
		q->outer[q->depth] = q->st;
		q->parens[q->depth] = 0;
		q->depth++;
	}
	q->st = Q_OUT;
}

/* What a '$', '(', '{' or '}' does outside single quotes; false for any other character. */
static bool track_dollar(struct qtrack *q, char c, bool dollar)
{
	if (c == '$')
		q->dollar = !dollar; /* "$$" is the shell's process id, complete */
	else if (dollar && c == '(')
		subst_open(q);
	else if (dollar && c == '{')
		q->brace++;
	else if (c == '}' && q->brace > 0)
		q->brace--;
	else
		return false;
	return true;
}

static void track(struct qtrack *q, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		bool dollar = q->dollar;

		q->dollar = false;
		if (q->comment) {
			if (c == '\n') {
				q->comment = false;
				q->word_start = true;
			}
			continue;
		}
		if (q->esc) {
			q->esc = false;
			q->word_start = false;
			continue;
		}
		switch (q->st) {
		case Q_SQ:
			if (c == '\'')
				q->st = Q_OUT;
			break;
		case Q_ANSI:
			if (c == '\\')
				q->esc = true;
			else if (c == '\'')
				q->st = Q_OUT;
			break;
		case Q_DQ:
			if (c == '\\')
				q->esc = true;
			else if (c == '"')
				q->st = Q_OUT;
			else
				track_dollar(q, c, dollar);
			break;
		case Q_OUT:
			if (c == '\\') {
				q->esc = true;
			} else if (c == '\'') {
				q->st = dollar ? Q_ANSI : Q_SQ;
			} else if (c == '"') {
				q->st = Q_DQ;
			} else if (c == '#' && q->word_start) {
				q->comment = true;
			} else if (track_dollar(q, c, dollar)) {
				;
			} else if (c == '(' && q->depth > 0) {
				q->parens[q->depth - 1]++;
			} else if (c == ')' && q->depth > 0) {
				if (q->parens[q->depth - 1] > 0)
					q->parens[q->depth - 1]--;
				else
					q->st = q->outer[--q->depth];
			}
			if (q->st == Q_OUT)
				q->word_start = !q->esc && strchr(" \t\n;&|()", c) != NULL;
			else
				q->word_start = false;
			break;
		}
	}
}

static void track_init(struct qtrack *q)
{
	memset(q, 0, sizeof(*q));
	q->st = Q_OUT;
	q->word_start = true;
}

/* After a variable: part of a word, and no '$' for what follows. */
static void track_var(struct qtrack *q)
{
	q->dollar = false;
	q->word_start = false;
}

/*
 * The bash construct of tmpl that evaluates what it expands as arithmetic, or NULL: "((" (of
 * $((…)) and ((…))) anywhere, or "[[" as a word ([[ x -eq y ]]). Arithmetic evaluates array
 * subscripts, and a subscript can be $(command): bash -c 'echo $(( $X ))' with X='a[$(cmd)]'
 * runs cmd, quoted or not. Found by a plain scan, so no tracking error can hide one.
 */
static const char *arith_construct(const char *tmpl)
{
	for (const char *p = tmpl; *p; p++) {
		if (p[0] == '(' && p[1] == '(')
			return "((…))";
		if (p[0] == '[' && p[1] == '[' && (p == tmpl || strchr(" \t\n;&|(!", p[-1])) &&
		    (p[2] == ' ' || p[2] == '\t' || p[2] == '\n'))
			return "[[ … ]]";
	}
	return NULL;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/*
 * Whether variable name (vi its row; NULL for a name outside the table) may stand at q of a
 * template whose arithmetic construct is arith (NULL: none). 0, or -EINVAL with the reason.
 */
static int var_refused(const struct qtrack *q, const struct iom_hook_var_info *vi,
		       const char *name, size_t len, const char *arith, char *err, size_t errlen)
{
	if (q->comment)
		return 0;
	if (q->esc)
		return iom_err(err, errlen, EINVAL,
			       "'${%.*s}' follows a backslash (write '$${' for a literal '${')",
			       (int)len, name);
	if (q->dollar)
		return iom_err(err, errlen, EINVAL,
			       "'${%.*s}' follows a '$' the shell would join with it into one "
			       "expansion (write '\\$$' for a '$' printed before the value)",
			       (int)len, name);
	if (vi && vi->numeric)
		return 0;
	if (arith)
		return iom_err(err, errlen, EINVAL,
			       "'${%.*s}' is text in a command with %s, where bash evaluates values "
			       "as arithmetic, which can run commands; only the numeric variables "
			       "(${run.index}, ${cell.queue_depth} …) may be used in it",
			       (int)len, name, arith);
	if (q->brace > 0 && q->st != Q_SQ)
		return iom_err(err, errlen, EINVAL,
			       "'${%.*s}' is text inside a '$${…}' of the shell, whose offsets and "
			       "subscripts bash evaluates as arithmetic, which can run commands; "
			       "only the numeric variables may be used there",
			       (int)len, name);
	return 0;
}

/* Appends the environment variable that carries variable name: IOMATRIX_TARGET_PATH. */
static void sb_env_name(struct iom_strbuf *b, const char *name)
{
	iom_strbuf_str(b, "${IOMATRIX_");
	for (const char *p = name; *p; p++) {
		char c = *p == '.' || *p == '-' ? '_' : *p >= 'a' && *p <= 'z' ? (char)(*p - 32) : *p;

		iom_strbuf_add(b, &c, 1);
	}
	iom_strbuf_str(b, "}");
}

/*
 * Appends the reference to the IOMATRIX_* environment variable of name that the shell at q
 * expands to the value as one word: "${IOMATRIX_X}" outside quotes (bare for a numeric one,
 * whose digits neither split nor glob, so that it works in $((…)) of dash too), ${IOMATRIX_X} in
 * double quotes, '"${IOMATRIX_X}"' in single quotes and '"${IOMATRIX_X}"$' in $'…' (closing the
 * quote and opening it again around it). The value itself is never written into the command.
 */
static void emit(struct iom_strbuf *b, const struct qtrack *q, const char *name, bool numeric)
{
	switch (q->comment ? Q_OUT : q->st) {
	case Q_DQ:
		sb_env_name(b, name);
		break;
	case Q_SQ:
		iom_strbuf_str(b, "'\"");
		sb_env_name(b, name);
		iom_strbuf_str(b, "\"'");
		break;
	case Q_ANSI:
		iom_strbuf_str(b, "'\"");
		sb_env_name(b, name);
		iom_strbuf_str(b, "\"$'");
		break;
	case Q_OUT:
		iom_strbuf_str(b, numeric ? "" : "\"");
		sb_env_name(b, name);
		iom_strbuf_str(b, numeric ? "" : "\"");
		break;
	}
}

int iom_hook_check(enum iom_hook_point point, const char *tmpl, char *err, size_t errlen)
{
	const char *p = tmpl, *arith = arith_construct(tmpl);
	struct qtrack q;
	struct tok t = { TOK_END, NULL, 0 };
	int ret;

	if ((unsigned)point >= IOM_HOOK_COUNT)
		return iom_err(err, errlen, EINVAL, "unknown hook point %d", (int)point);
	track_init(&q);
	for (;;) {
		const struct iom_hook_var_info *vi;

		if ((ret = next_tok(tmpl, &p, &t, err, errlen)) < 0)
			return ret;
		if (t.kind == TOK_END)
			return 0;
		if (t.kind == TOK_TEXT) {
			track(&q, t.s, t.len);
			continue;
		}
		vi = var_info(t.s, t.len);
		if (!vi)
			return unknown_var(t.s, t.len, err, errlen);
		if (!(vi->points & (1u << point))) {
			char where[160];

			points_text(vi->points, where, sizeof(where));
			return iom_err(err, errlen, EINVAL,
				       "variable '${%s}' has no value in %s (it is known in %s)",
				       vi->name, point_names[point], where);
		}
		if ((ret = var_refused(&q, vi, t.s, t.len, arith, err, errlen)) < 0)
			return ret;
		track_var(&q);
	}
}

int iom_hook_expand(const char *tmpl, const struct iom_hook_vars *vars, bool quote, char **out,
		    char *err, size_t errlen)
{
	struct iom_strbuf b = { 0 };
	const char *p = tmpl, *arith = arith_construct(tmpl);
	struct qtrack q;
	struct tok t = { TOK_END, NULL, 0 };
	int ret;

	*out = NULL;
	track_init(&q);
	for (;;) {
		if ((ret = next_tok(tmpl, &p, &t, err, errlen)) < 0)
			goto fail;
		if (t.kind == TOK_END)
			break;
		if (t.kind == TOK_TEXT) {
			iom_strbuf_add(&b, t.s, t.len);
			track(&q, t.s, t.len);
			continue;
		}
		{
			const struct iom_hook_var_info *vi = var_info(t.s, t.len);
			char *name = xasprintf("%.*s", (int)t.len, t.s);
			const char *v = vars ? iom_hook_vars_get(vars, name) : NULL;

			if (!v) {
				if (vi)
					ret = iom_err(err, errlen, EINVAL,
						      "variable '${%s}' has no value here", name);
				else
					ret = unknown_var(t.s, t.len, err, errlen);
			} else if (quote) {
				ret = var_refused(&q, vi, t.s, t.len, arith, err, errlen);
				/* a numeric variable is trusted for its digits only */
				if (ret == 0 && vi && vi->numeric && !all_digits(v))
					ret = iom_err(err, errlen, EINVAL,
						      "variable '${%s}' is not a number here ('%s')",
						      name, v);
			}
			if (ret < 0) {
				free(name);
				goto fail;
			}
			if (quote)
				emit(&b, &q, name, vi && vi->numeric);
			else
				iom_strbuf_str(&b, v);
			free(name);
			track_var(&q);
		}
	}
	*out = iom_strbuf_take(&b);
	return 0;
fail:
	iom_strbuf_release(&b);
	return ret;
}

/* ---- variable tables -------------------------------------------------------------------- */

void iom_hook_vars_set(struct iom_hook_vars *vs, const char *name, const char *value)
{
	for (size_t i = 0; i < vs->n; i++)
		if (strcmp(vs->v[i].name, name) == 0) {
			free(vs->v[i].value);
			vs->v[i].value = xstrdup(value ? value : "");
			return;
		}
	if (vs->n == vs->cap) {
		vs->cap = vs->cap ? vs->cap * 2 : 16;
		vs->v = xrealloc(vs->v, vs->cap * sizeof(*vs->v));
	}
	vs->v[vs->n].name = xstrdup(name);
	vs->v[vs->n].value = xstrdup(value ? value : "");
	vs->n++;
}

void iom_hook_vars_setf(struct iom_hook_vars *vs, const char *name, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = xmalloc(n > 0 ? (size_t)n + 1 : 1);
	s[0] = '\0';
	if (n > 0) {
		va_start(ap, fmt);
		vsnprintf(s, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	iom_hook_vars_set(vs, name, s);
	free(s);
}

const char *iom_hook_vars_get(const struct iom_hook_vars *vs, const char *name)
{
	for (size_t i = 0; i < vs->n; i++)
		if (strcmp(vs->v[i].name, name) == 0)
			return vs->v[i].value;
	return NULL;
}

void iom_hook_vars_release(struct iom_hook_vars *vs)
{
	for (size_t i = 0; i < vs->n; i++) {
		free(vs->v[i].name);
		free(vs->v[i].value);
	}
	free(vs->v);
	memset(vs, 0, sizeof(*vs));
}

/* ---- running hooks ---------------------------------------------------------------------- */

/* The values of vars as the hook's environment: IOMATRIX_<NAME> (dots → '_'), then
 * IOMATRIX_HOOK=<point>; NULL-terminated, the caller frees each entry and the array. */
static char **hook_env(const struct iom_hook_vars *vars, const char *point)
{
	size_t k = 0;
	char **e = xcalloc((vars ? vars->n : 0) + 2, sizeof(*e));

	for (size_t i = 0; vars && i < vars->n; i++) {
		char *s = xasprintf("IOMATRIX_%s=%s", vars->v[i].name, vars->v[i].value);

		for (char *p = s + 9; *p != '='; p++)
			*p = (*p == '.' || *p == '-') ? '_' :
			     (*p >= 'a' && *p <= 'z') ? (char)(*p - 'a' + 'A') : *p;
		e[k++] = s;
	}
	e[k++] = xasprintf("IOMATRIX_HOOK=%s", point);
	e[k] = NULL;
	return e;
}

int iom_hook_run(enum iom_hook_point point, const char *tmpl, const struct iom_hook_vars *vars,
		 const struct iom_hook_opts *o, struct iom_proc_result *r, char *err,
		 size_t errlen)
{
	static const struct iom_hook_opts none;
	struct iom_proc_opts po;
	const char *argv[4];
	char what[64], e[IOM_ERRLEN], *command = NULL;
	char **env;
	int ret;

	memset(r, 0, sizeof(*r));
	r->outcome = IOM_PROC_NOT_STARTED;
	if (!o)
		o = &none;
	snprintf(what, sizeof(what), "hook %s", iom_hook_point_name(point));
	ret = iom_hook_expand(tmpl, vars, true, &command, e, sizeof(e));
	if (ret < 0) {
		r->command = command;
		return iom_err(err, errlen, -ret, "%s: %s", what, e);
	}
	argv[0] = o->shell ? o->shell : "/bin/sh";
	argv[1] = "-c";
	argv[2] = command;
	argv[3] = NULL;
	env = hook_env(vars, iom_hook_point_name(point));
	po = (struct iom_proc_opts){ .log_path = o->log_path, .timeout_ns = o->timeout_ns,
				     .stop = o->stop, .env = (const char *const *)env,
				     .command = command };
	ret = iom_proc_run(what, argv, &po, r, err, errlen);
	for (char **p = env; *p; p++)
		free(*p);
	free(env);
	free(command);
	return ret;
}

/* ---- the amount of a precondition ---------------------------------------------------------- */

int iom_precondition_bytes(const char *text, uint64_t region, uint64_t *bytes, char *err,
			   size_t errlen)
{
	size_t len = text ? strlen(text) : 0;
	char e[IOM_ERRLEN];
	int ret;

	if (len == 0)
		return iom_err(err, errlen, EINVAL, "precondition bytes are empty (use a multiple "
						    "of the region such as \"2x\", or a size)");
	if (text[len - 1] == 'x' || text[len - 1] == 'X') {
		char *num = xasprintf("%.*s", (int)(len - 1), text), *end;
		double mult;
		long double b;

		errno = 0;
		mult = strtod(num, &end);
		ret = !*num || *end || errno || !isfinite(mult);
		free(num);
		if (ret)
			return iom_err(err, errlen, EINVAL,
				       "precondition bytes '%s' is not a multiple such as \"2x\" "
				       "or a size such as \"64G\"", text);
		if (mult <= 0 || mult > 100)
			return iom_err(err, errlen, ERANGE,
				       "precondition bytes '%s' is out of range (more than 0x, at "
				       "most 100x the region)", text);
		b = (long double)region * (long double)mult;
		if (b >= 18446744073709551615.0L)
			return iom_err(err, errlen, ERANGE, "precondition bytes '%s' is too large",
				       text);
		*bytes = (uint64_t)b;
		return 0;
	}
	ret = iom_size_parse(text, bytes, e, sizeof(e));
	if (ret < 0)
		return iom_err(err, errlen, -ret, "precondition bytes %s", e);
	if (*bytes == 0)
		return iom_err(err, errlen, ERANGE, "precondition bytes must be more than 0");
	return 0;
}
