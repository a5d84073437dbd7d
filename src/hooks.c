/*
 * hooks — variable expansion and running of the user's hook commands, and the built-ins that need
 * no shell (drop caches, fstrim, discard, precondition). See hooks.h.
 *
 * Programs are started with posix_spawn (safe in a threaded process, and exec failures come
 * back as errors) in a new process group, with default signal dispositions, an empty signal
 * mask, stdin from /dev/null and every descriptor above 2 closed, so a hook that leaves a
 * process behind never holds the results directory's lock. The parent polls for the exit
 * without reaping (waitid WNOWAIT), so the process group id stays valid until it has killed
 * what it meant to kill.
 */
#include "hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "keys.h"
#include "rng.h"
#include "strbuf.h"
#include "units.h"
#include "util.h"

extern char **environ;

#define TAIL_LINES 10
#define TAIL_BYTES 2048
#define LAST_LINE_MAX 240
#define KILL_GRACE_NS 2000000000ull
#define PROGRESS_EVERY_NS 250000000ull

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

/* ---- running programs ------------------------------------------------------------------- */

void iom_hook_result_release(struct iom_hook_result *r)
{
	free(r->command);
	free(r->tail);
	r->command = r->tail = NULL;
}

/* The environment of a child: ours without stale IOMATRIX_* entries, plus env and hook. */
static char **build_env(const struct iom_hook_vars *env, const char *hook)
{
	size_t n = 0, k = 0;
	char **e;

	while (environ && environ[n])
		n++;
	e = xcalloc(n + (env ? env->n : 0) + 2, sizeof(*e));
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "IOMATRIX_", 9) != 0)
			e[k++] = xstrdup(environ[i]);
	for (size_t i = 0; env && i < env->n; i++) {
		char *s = xasprintf("IOMATRIX_%s=%s", env->v[i].name, env->v[i].value);

		for (char *p = s + 9; *p != '='; p++)
			*p = (*p == '.' || *p == '-') ? '_' :
			     (*p >= 'a' && *p <= 'z') ? (char)(*p - 'a' + 'A') : *p;
		e[k++] = s;
	}
	if (hook)
		e[k++] = xasprintf("IOMATRIX_HOOK=%s", hook);
	e[k] = NULL;
	return e;
}

static void free_strv(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* mkdir -p of the directory that holds path. */
static int make_parent(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	int ret = 0;

	if (slash && slash != dir) {
		*slash = '\0';
		for (char *p = dir + 1; ; p++) {
			if (*p == '/' || *p == '\0') {
				char c = *p;

				*p = '\0';
				if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
					ret = -errno;
					break;
				}
				*p = c;
				if (!c)
					break;
			}
		}
	}
	free(dir);
	return ret;
}

static int write_all(int fd, const char *s, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, s, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The last lines of [from, to) of fd, at most TAIL_LINES and TAIL_BYTES, control characters
 * replaced, trailing white space dropped. */
static char *read_tail(int fd, off_t from, off_t to)
{
	char buf[TAIL_BYTES + 1];
	off_t start = to - from > TAIL_BYTES ? to - TAIL_BYTES : from;
	ssize_t n = to > start ? pread(fd, buf, (size_t)(to - start), start) : 0;
	size_t len, lines = 0;
	char *p;

	if (n < 0)
		n = 0;
	len = (size_t)n;
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' ' ||
			   buf[len - 1] == '\t'))
		len--;
	buf[len] = '\0';
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (c == '\t' || c == '\r')
			buf[i] = ' ';
		else if (c < 0x20 && c != '\n')
			buf[i] = '?';
		else if (c == 0x7f)
			buf[i] = '?';
	}
	p = buf + len;
	while (p > buf) {
		if (p[-1] == '\n' && ++lines == TAIL_LINES)
			break;
		p--;
	}
	/* a cut in the middle of the first line read: drop that partial line */
	if (p == buf && start > from) {
		char *nl = strchr(buf, '\n');

		p = nl ? nl + 1 : buf;
	}
	return xstrdup(p);
}

/* The last line of tail for a message: ": line", or " (no output)". */
static char *last_line(const char *tail)
{
	const char *nl = strrchr(tail, '\n'), *line = nl ? nl + 1 : tail;

	while (*line == ' ')
		line++;
	if (!*line)
		return xstrdup(" (no output)");
	if (strlen(line) > LAST_LINE_MAX) {
		int cut = LAST_LINE_MAX;

		while (cut > 0 && ((unsigned char)line[cut] & 0xc0) == 0x80)
			cut--; /* not inside a UTF-8 character */
		return xasprintf(": %.*s…", cut, line);
	}
	return xasprintf(": %s", line);
}

static const char *signal_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "signal %d", sig);
	return buf;
}

static char *argv_text(const char *const argv[])
{
	struct iom_strbuf b = { 0 };

	for (size_t i = 0; argv[i]; i++) {
		bool plain = *argv[i] != '\0';

		for (const char *p = argv[i]; *p && plain; p++)
			plain = name_char(*p) || strchr("/=,:+@%", *p);
		if (i)
			iom_strbuf_add(&b, " ", 1);
		if (plain)
			iom_strbuf_str(&b, argv[i]);
		else
			sb_quoted(&b, argv[i]);
	}
	return iom_strbuf_take(&b);
}

static void nap(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u),
			       .tv_nsec = (long)(ns % 1000000000u) };

	nanosleep(&ts, NULL);
}

/*
 * Runs argv with envp as o says, command being what the log's header shows. Fills r; returns 0
 * or -errno with the message in err.
 */
static int run_program(const char *what, const char *command, const char *const argv[],
		       char *const envp[], const struct iom_hook_opts *o,
		       struct iom_hook_result *r, char *err, size_t errlen)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	enum iom_hook_outcome killed_for = IOM_HOOK_OK;
	uint64_t start, deadline, kill_at = 0, wait_ns = 1000000;
	char when[32], m[IOM_ERRLEN], *hdr, *msg_tail = NULL;
	off_t out_start, out_end;
	int fd, ret, status = 0;
	pid_t pid;

	r->outcome = IOM_HOOK_NOT_STARTED;
	if (o->log_path) {
		if ((ret = make_parent(o->log_path)) < 0)
			return iom_err(err, errlen, -ret, "cannot create the directory of '%s': %s",
				       o->log_path, strerror(-ret));
		fd = open(o->log_path, O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	} else {
		fd = memfd_create("iomatrix-hook", MFD_CLOEXEC);
	}
	if (fd < 0) {
		ret = errno;
		return iom_err(err, errlen, ret, "cannot create the log %s%s%s of %s: %s",
			       o->log_path ? "'" : "", o->log_path ? o->log_path : "(memory)",
			       o->log_path ? "'" : "", what, strerror(ret));
	}
	iom_format_utc(when, sizeof(when), iom_wall_ns());
	{
		struct iom_strbuf b = { 0 };

		iom_strbuf_str(&b, "# ");
		iom_strbuf_str(&b, what);
		iom_strbuf_str(&b, " at ");
		iom_strbuf_str(&b, when);
		iom_strbuf_str(&b, ":\n# ");
		for (const char *p = command; *p; p++) {
			if (*p == '\n')
				iom_strbuf_str(&b, "\n# ");
			else
				iom_strbuf_add(&b, p, 1);
		}
		iom_strbuf_str(&b, "\n");
		hdr = iom_strbuf_take(&b);
	}
	ret = write_all(fd, hdr, strlen(hdr));
	free(hdr);
	if (ret < 0) {
		close(fd);
		return iom_err(err, errlen, -ret, "cannot write the log '%s': %s",
			       o->log_path ? o->log_path : "(memory)", strerror(-ret));
	}
	out_start = lseek(fd, 0, SEEK_END);

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fd, 1);
	posix_spawn_file_actions_adddup2(&fa, fd, 2);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
					      POSIX_SPAWN_SETSIGDEF);
	start = iom_now_ns();
	if (strchr(argv[0], '/'))
		ret = posix_spawn(&pid, argv[0], &fa, &at, (char *const *)argv, envp);
	else
		ret = posix_spawnp(&pid, argv[0], &fa, &at, (char *const *)argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (ret != 0) {
		char *line = xasprintf("# cannot start '%s': %s\n", argv[0], strerror(ret));

		write_all(fd, line, strlen(line));
		free(line);
		close(fd);
		return iom_err(err, errlen, ret, "cannot start %s ('%s'): %s", what, argv[0],
			       strerror(ret));
	}

	deadline = o->timeout_ns ? start + o->timeout_ns : UINT64_MAX;
	for (;;) {
		siginfo_t si;
		uint64_t now;

		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0) {
			if (errno == EINTR)
				continue;
			break; /* ECHILD: someone reaped it (SIGCHLD ignored); waitpid says so */
		}
		if (si.si_pid == pid)
			break;
		now = iom_now_ns();
		if (killed_for == IOM_HOOK_OK) {
			if (o->stop && *o->stop)
				killed_for = IOM_HOOK_INTERRUPTED;
			else if (now >= deadline)
				killed_for = IOM_HOOK_TIMED_OUT;
			if (killed_for != IOM_HOOK_OK) {
				kill(-pid, SIGTERM);
				kill_at = now + KILL_GRACE_NS;
			}
		} else if (kill_at && now >= kill_at) {
			kill(-pid, SIGKILL);
			kill_at = 0;
		}
		nap(wait_ns);
		wait_ns = IOM_MIN(wait_ns * 2, 20000000ull);
	}
	if (killed_for != IOM_HOOK_OK)
		kill(-pid, SIGKILL); /* what is left of the group; the unreaped child keeps its id */
	while ((ret = (int)waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	r->elapsed_ns = iom_now_ns() - start;
	out_end = lseek(fd, 0, SEEK_END);
	r->tail = read_tail(fd, out_start, out_end);

	if (ret < 0) {
		ret = errno;
		r->outcome = IOM_HOOK_EXITED;
		r->status = -1;
		ret = iom_err(m, sizeof(m), ret, "cannot wait for %s: %s", what, strerror(ret));
	} else if (killed_for != IOM_HOOK_OK) {
		char t[32];

		r->outcome = killed_for;
		r->status = WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status);
		msg_tail = last_line(r->tail);
		iom_duration_format(o->timeout_ns, t, sizeof(t));
		if (killed_for == IOM_HOOK_TIMED_OUT)
			ret = iom_err(m, sizeof(m), ETIMEDOUT, "%s timed out after %s and was killed%s",
				      what, t, msg_tail);
		else
			ret = iom_err(m, sizeof(m), EINTR, "%s was stopped%s", what, msg_tail);
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		r->outcome = IOM_HOOK_OK;
		r->status = 0;
		ret = 0;
	} else if (WIFEXITED(status)) {
		r->outcome = IOM_HOOK_EXITED;
		r->status = WEXITSTATUS(status);
		msg_tail = last_line(r->tail);
		ret = iom_err(m, sizeof(m), EIO, "%s exited with status %d%s", what, r->status,
			      msg_tail);
	} else {
		char s[32];

		r->outcome = IOM_HOOK_SIGNALED;
		r->status = WTERMSIG(status);
		msg_tail = last_line(r->tail);
		ret = iom_err(m, sizeof(m), EIO, "%s was killed by %s%s", what,
			      signal_name(r->status, s, sizeof(s)), msg_tail);
	}
	{
		char d[32], *line;

		iom_duration_human(r->elapsed_ns, d, sizeof(d));
		line = ret == 0 ? xasprintf("# exited with status 0 after %s\n", d)
				: xasprintf("# failed after %s: %s\n", d, m);
		write_all(fd, line, strlen(line));
		free(line);
		if (ret < 0 && o->log_path)
			fdatasync(fd); /* the output of a failure is kept */
	}
	if (ret < 0)
		iom_err(err, errlen, -ret, "%s", m);
	free(msg_tail);
	close(fd);
	return ret;
}

int iom_hook_exec(const char *what, const char *const argv[], const struct iom_hook_opts *o,
		  struct iom_hook_result *r, char *err, size_t errlen)
{
	static const struct iom_hook_opts none;
	char **envp;
	int ret;

	memset(r, 0, sizeof(*r));
	if (!o)
		o = &none;
	r->command = argv_text(argv);
	envp = build_env(o->env, NULL);
	ret = run_program(what, r->command, argv, envp, o, r, err, errlen);
	free_strv(envp);
	return ret;
}

int iom_hook_run(enum iom_hook_point point, const char *tmpl, const struct iom_hook_vars *vars,
		 const struct iom_hook_opts *o, struct iom_hook_result *r, char *err,
		 size_t errlen)
{
	static const struct iom_hook_opts none;
	const char *argv[4];
	char what[64], e[IOM_ERRLEN];
	char **envp;
	int ret;

	memset(r, 0, sizeof(*r));
	r->outcome = IOM_HOOK_NOT_STARTED;
	if (!o)
		o = &none;
	snprintf(what, sizeof(what), "hook %s", iom_hook_point_name(point));
	ret = iom_hook_expand(tmpl, vars, true, &r->command, e, sizeof(e));
	if (ret < 0)
		return iom_err(err, errlen, -ret, "%s: %s", what, e);
	argv[0] = o->shell ? o->shell : "/bin/sh";
	argv[1] = "-c";
	argv[2] = r->command;
	argv[3] = NULL;
	envp = build_env(vars, iom_hook_point_name(point));
	ret = run_program(what, r->command, argv, envp, o, r, err, errlen);
	free_strv(envp);
	return ret;
}

/* ---- plan output ------------------------------------------------------------------------ */

bool iom_hooks_any(const struct iom_hook_desc *d)
{
	for (int i = 0; i < IOM_HOOK_COUNT; i++)
		if (d->cmd[i])
			return true;
	return d->drop_caches || d->fstrim || d->precondition;
}

int iom_hooks_describe(FILE *out, const struct iom_hook_desc *d)
{
	bool cmds = false;

	for (int i = 0; i < IOM_HOOK_COUNT; i++)
		cmds |= d->cmd[i] != NULL;
	if (cmds) {
		fprintf(out, "hooks (shell commands, %s):\n",
			d->allowed ? "allowed by --allow-hooks" : "run only with --allow-hooks");
		for (int i = 0; i < IOM_HOOK_COUNT; i++) {
			if (!d->cmd[i])
				continue;
			fprintf(out, "  %-14s ", point_names[i]);
			for (const char *p = d->cmd[i]; *p; p++) {
				if (*p == '\n')
					fprintf(out, "\n  %-14s ", "");
				else
					fputc(*p, out);
			}
			fputc('\n', out);
		}
	}
	if (d->drop_caches || d->fstrim || d->precondition) {
		fprintf(out, "preparation (built-in):\n");
		if (d->precondition)
			fprintf(out, "  %-14s sequential writes of %s%s before a target's first "
				     "writing run\n", "precondition", d->precondition,
				     strchr(d->precondition, 'x') || strchr(d->precondition, 'X')
					     ? " the region" : "");
		if (d->fstrim)
			fprintf(out, "  %-14s before each target's first run\n", "fstrim");
		if (d->drop_caches)
			fprintf(out, "  %-14s before each run (needs root)\n", "drop_caches");
	}
	return ferror(out) ? -EIO : 0;
}

/* ---- built-ins -------------------------------------------------------------------------- */

int iom_builtin_drop_caches(char *msg, size_t msglen)
{
	static const char path[] = "/proc/sys/vm/drop_caches";
	int fd, e = 0;

	sync();
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
	} else {
		if (write(fd, "3", 1) != 1)
			e = errno ? errno : EIO;
		close(fd);
	}
	if (!e)
		return 0;
	if (e == EACCES || e == EPERM) {
		iom_err(msg, msglen, e, "cannot drop the page cache: writing '%s' needs root", path);
		return IOM_HOOK_NOTE;
	}
	if (e == EROFS) {
		iom_err(msg, msglen, e, "cannot drop the page cache: '%s' is read-only here (a "
					"container?)", path);
		return IOM_HOOK_NOTE;
	}
	return iom_err(msg, msglen, e, "cannot drop the page cache: '%s': %s", path, strerror(e));
}

static bool not_supported(int e)
{
	return e == EOPNOTSUPP || e == ENOTSUP || e == ENOTTY || e == ENOSYS;
}

int iom_builtin_fstrim(const char *mount_point, uint64_t *trimmed, char *msg, size_t msglen)
{
	struct fstrim_range range = { .start = 0, .len = UINT64_MAX, .minlen = 0 };
	int fd, e;

	if (trimmed)
		*trimmed = 0;
	fd = open(mount_point, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		return iom_err(msg, msglen, e, "cannot open '%s': %s", mount_point, strerror(e));
	}
	if (ioctl(fd, FITRIM, &range) == 0) {
		close(fd);
		if (trimmed)
			*trimmed = range.len;
		return 0;
	}
	e = errno;
	close(fd);
	if (not_supported(e)) {
		iom_err(msg, msglen, e, "the filesystem at '%s' does not support trimming", mount_point);
		return IOM_HOOK_NOTE;
	}
	if (e == EPERM || e == EACCES) {
		iom_err(msg, msglen, e, "trimming the filesystem at '%s' needs root", mount_point);
		return IOM_HOOK_NOTE;
	}
	return iom_err(msg, msglen, e, "cannot trim the filesystem at '%s': %s", mount_point,
		       strerror(e));
}

int iom_builtin_discard(const char *device, uint64_t offset, uint64_t length, char *msg,
			size_t msglen)
{
	uint64_t size = 0, range[2];
	int fd, e;

	fd = open(device, O_WRONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		return iom_err(msg, msglen, e, "cannot open '%s' exclusively: %s", device,
			       strerror(e));
	}
	if (ioctl(fd, BLKGETSIZE64, &size) < 0) {
		e = errno;
		close(fd);
		if (e == ENOTTY)
			return iom_err(msg, msglen, ENOTBLK, "'%s' is not a block device", device);
		return iom_err(msg, msglen, e, "cannot read the size of '%s': %s", device,
			       strerror(e));
	}
	if (offset > size || (length && length > size - offset)) {
		close(fd);
		return iom_err(msg, msglen, EINVAL, "cannot discard beyond the end of '%s'", device);
	}
	range[0] = offset;
	range[1] = length ? length : size - offset;
	if (range[1] == 0 || ioctl(fd, BLKDISCARD, range) == 0) {
		close(fd);
		return 0;
	}
	e = errno;
	close(fd);
	if (not_supported(e)) {
		iom_err(msg, msglen, e, "'%s' does not support discard", device);
		return IOM_HOOK_NOTE;
	}
	return iom_err(msg, msglen, e, "cannot discard '%s': %s", device, strerror(e));
}

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

static int open_for_fill(const char *path, bool direct)
{
	return open(path, O_WRONLY | O_CLOEXEC | (direct ? O_DIRECT : 0));
}

int iom_builtin_precondition(const char *path, const struct iom_precondition *pc,
			     uint64_t *written, char *err, size_t errlen)
{
	uint32_t bs = pc->block_size ? pc->block_size : 1u << 20;
	uint64_t done = 0, off = 0, last = iom_now_ns();
	bool direct = pc->region % 4096 == 0;
	struct iom_rng rng;
	char *buf = NULL;
	int fd, ret = 0;

	if (written)
		*written = 0;
	if (bs % 4096)
		return iom_err(err, errlen, EINVAL,
			       "precondition block size %u is not a multiple of 4096", bs);
	if (pc->region == 0)
		return iom_err(err, errlen, EINVAL, "cannot precondition '%s': its region is empty",
			       path);
	fd = open_for_fill(path, direct);
	if (fd < 0 && direct && errno == EINVAL)
		fd = open_for_fill(path, direct = false);
	if (fd < 0) {
		ret = errno;
		return iom_err(err, errlen, ret, "cannot open '%s' to precondition it: %s", path,
			       strerror(ret));
	}
	if (posix_memalign((void **)&buf, 4096, bs) != 0) {
		close(fd);
		return iom_err(err, errlen, ENOMEM, "cannot allocate %u bytes to precondition '%s'",
			       bs, path);
	}
	iom_rng_seed(&rng, pc->seed);
	iom_rng_fill(&rng, buf, bs);

	while (done < pc->bytes) {
		uint64_t n = IOM_MIN((uint64_t)bs, IOM_MIN(pc->region - off, pc->bytes - done));
		ssize_t w;

		if (pc->stop && *pc->stop) {
			char d[24], t[24];

			iom_size_format(done, d, sizeof(d));
			iom_size_format(pc->bytes, t, sizeof(t));
			ret = iom_err(err, errlen, EINTR,
				      "preconditioning '%s' was stopped after %s of %s", path, d, t);
			goto out;
		}
		if (direct && (n % 4096 || off % 4096)) {
			/* an unaligned tail: finish through the page cache */
			close(fd);
			fd = open_for_fill(path, direct = false);
			if (fd < 0) {
				ret = errno;
				ret = iom_err(err, errlen, ret, "cannot open '%s' to precondition it: "
						"%s", path, strerror(ret));
				goto out;
			}
		}
		/* every 4 KiB of the whole fill differs: its first 8 bytes are its position */
		for (uint64_t k = 0; k < n; k += 4096) {
			uint64_t stamp = iom_mix64(pc->seed ^ (done + k));

			memcpy(buf + k, &stamp, IOM_MIN(sizeof(stamp), (size_t)(n - k)));
		}
		w = pwrite(fd, buf, (size_t)n, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EINVAL && direct) {
			close(fd);
			fd = open_for_fill(path, direct = false);
			if (fd < 0) {
				ret = errno;
				ret = iom_err(err, errlen, ret, "cannot open '%s' to precondition it: "
						"%s", path, strerror(ret));
				goto out;
			}
			continue;
		}
		if (w < 0) {
			ret = errno;
			ret = iom_err(err, errlen, ret, "preconditioning '%s': write at offset %" PRIu64
					" failed: %s", path, off, strerror(ret));
			goto out;
		}
		if (w == 0) {
			ret = iom_err(err, errlen, ENOSPC, "preconditioning '%s': write at offset %"
					PRIu64 " wrote nothing", path, off);
			goto out;
		}
		done += (uint64_t)w;
		off += (uint64_t)w;
		if (off >= pc->region)
			off = 0;
		if (pc->progress && iom_now_ns() - last >= PROGRESS_EVERY_NS && done < pc->bytes) {
			pc->progress(pc->arg, done, pc->bytes);
			last = iom_now_ns();
		}
	}
	if (fdatasync(fd) < 0 && errno != EINVAL) {
		ret = errno;
		ret = iom_err(err, errlen, ret, "cannot sync '%s' after preconditioning: %s", path,
			      strerror(ret));
		goto out;
	}
	if (pc->progress)
		pc->progress(pc->arg, done, pc->bytes);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	if (written)
		*written = done;
	return ret;
}
