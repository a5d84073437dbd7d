/* SPDX-License-Identifier: MIT */
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
	{ "rank", AT_ALL, "the MPI rank the hook runs on (0 on one host)", true },
	{ "ranks", AT_ALL, "the number of ranks of the job (1 on one host)", true },
	{ "host", AT_ALL, "the short hostname of the rank the hook runs on", false },
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
	/* and ${cell.NAME} for every dimension of the key table: cell_var() */
	{ "run.index", AT_RUN, "the run's 1-based position in the plan", true },
	{ "run.repetition", AT_RUN, "the run's 1-based repetition of its cell", true },
};

const size_t iom_hook_nvars = IOM_ARRAY_SIZE(iom_hook_var_table);

/* The variable of a dimension, ${cell.NAME}, written into the caller's storage. */
struct cell_var {
	struct iom_hook_var_info info;
	char name[64];
};

/*
 * ${cell.NAME} for dimension d: known before and after a run, its value the cell's as the
 * plan writes it (iom_cell_value), a number when the key is a whole number or a percentage.
 * Every dimension of the key table but the target (${target.label}) has one, so a key added
 * to the table is a variable with no list to keep.
 */
static const struct iom_hook_var_info *cell_var(enum iom_dim d, struct cell_var *cv)
{
	const struct iom_key *k = iom_dim_key(d);

	snprintf(cv->name, sizeof(cv->name), IOM_HOOK_CELL "%s", iom_dim_name(d));
	cv->info = (struct iom_hook_var_info){
		.name = cv->name, .points = AT_RUN, .help = k ? k->help : "",
		.numeric = k && (k->type == IOM_TYPE_UINT || k->type == IOM_TYPE_PCT),
	};
	return &cv->info;
}

static const struct iom_hook_var_info *var_info(const char *name, size_t len,
						 struct cell_var *cv)
{
	size_t pre = strlen(IOM_HOOK_CELL);

	for (size_t i = 0; i < iom_hook_nvars; i++)
		if (strlen(iom_hook_var_table[i].name) == len &&
		    memcmp(iom_hook_var_table[i].name, name, len) == 0)
			return &iom_hook_var_table[i];
	if (len <= pre || memcmp(name, IOM_HOOK_CELL, pre) != 0)
		return NULL;
	for (int d = 1; d < IOM_DIM_COUNT; d++) {
		const char *dn = iom_dim_name((enum iom_dim)d);

		if (strlen(dn) == len - pre && memcmp(dn, name + pre, len - pre) == 0)
			return cell_var((enum iom_dim)d, cv);
	}
	return NULL;
}

void iom_hook_vars_set_cell(struct iom_hook_vars *vs, enum iom_dim d, const char *value)
{
	struct cell_var cv;

	iom_hook_vars_set(vs, cell_var(d, &cv)->name, value);
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
	const char *cands[64 + IOM_DIM_COUNT];
	struct cell_var cv[IOM_DIM_COUNT];
	size_t n = IOM_MIN(iom_hook_nvars, 64);
	char *copy = xasprintf("%.*s", (int)len, name);
	const char *near;
	int ret;

	for (size_t i = 0; i < n; i++)
		cands[i] = iom_hook_var_table[i].name;
	for (int d = 1; d < IOM_DIM_COUNT; d++)
		cands[n++] = cell_var((enum iom_dim)d, &cv[d])->name;
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
 * Where the shell will be at a point of the command, and what the word there is to it.
 *
 * The quoting: outside quotes, in double quotes, in single quotes, in bash's $'…' (where a
 * backslash escapes a quote), in a comment, after a backslash or a '$' that starts an
 * expansion, inside a ${…} of the shell, inside backquotes, in a here-document's body. It
 * follows POSIX quoting for plain commands and keeps a best guess for $( … ).
 *
 * The command: each simple command's words as the shell splits them (blanks end a word; the
 * operators ; & | ( ) and a newline end a command; < and > start a redirection), each word's
 * text kept without its quotes, so that a variable's place is known: the command's name, an
 * assignment, an argument (of which command, after which words), a redirection's target, a
 * here-document's delimiter. A $( … ) is a command of its own; the outer one resumes at ')'.
 */
enum qstate { Q_OUT, Q_DQ, Q_SQ, Q_ANSI };

#define WORD_MAX 32    /* the text kept of a word; a longer word is no name of ours */
#define HEREDOC_MAX 4  /* here-documents opened on one line */
#define SUBST_MAX 16   /* nested $( … ) followed */

struct cmdst {
	bool cmd_pos;    /* no command name yet: the next word is the name or an assignment */
	bool prefix;     /* after command, builtin or exec: their options, then the name */
	bool in_word;
	bool word_var;   /* the current word holds a variable */
	bool prev_var;   /* the word before it did */
	bool redir;      /* the next (or current) word is a redirection's target */
	bool delim;      /* ... a here-document's delimiter */
	bool delim_tabs; /* <<-: its closing line may start with tabs */
	char shell[WORD_MAX]; /* the command's word that names a shell, "" none */
	bool code_next;  /* the next word is a shell's -c command string */
	bool code_word;  /* the current word is one */
	bool opt_v;      /* test, [ or printf: a -v (or -R) word before */
	unsigned nargs;  /* the command's arguments before the current word */
	char name[WORD_MAX]; /* the command's name, "" while there is none */
	char word[WORD_MAX]; /* the current word without its quotes; a variable is \1 */
	size_t wlen;         /* WORD_MAX: the word is longer */
};

struct qtrack {
	enum qstate st;
	bool esc, comment, word_start;
	bool dollar;     /* the last character was a '$' that starts an expansion */
	unsigned brace;  /* open ${ … } expansions of the shell */
	bool backq;      /* inside `…` */
	char op;         /* the redirection character just before ('<', '>'), or 0 */
	unsigned nop;    /* how many of it in a row */
	/* here-documents: the delimiters waiting for the end of their line, then the bodies */
	unsigned nheredoc, body;
	bool in_body;
	char heredoc[HEREDOC_MAX][WORD_MAX];
	bool heredoc_tabs[HEREDOC_MAX];
	char line[WORD_MAX];
	size_t llen;
	struct cmdst c;
	/* best effort for $( … ): the state it was opened in, and the parentheses inside */
	int depth;
	enum qstate outer[SUBST_MAX];
	unsigned parens[SUBST_MAX];
	struct cmdst outer_cmd[SUBST_MAX];
};

static void cmd_fresh(struct cmdst *c)
{
	memset(c, 0, sizeof(*c));
	c->cmd_pos = true;
}

static bool word_in(const char *w, const char *const *list)
{
	for (; w && *list; list++)
		if (strcmp(w, *list) == 0)
			return true;
	return false;
}

/* Reserved words, after which the next word is still a command's name. */
static const char *const reserved_words[] = { "if", "then", "else", "elif", "fi", "do", "done",
					      "while", "until", "esac", "{", "}", "!", "time",
					      NULL };
/* Programs that run a command string given with -c. */
static const char *const shell_words[] = { "sh", "bash", "dash", "ash", "ksh", "mksh", "zsh",
					   "busybox", "su", "runuser", NULL };
/* Builtins (and ssh) that run their arguments as shell code. */
static const char *const code_words[] = { "eval", "trap", "alias", "source", ".", "ssh", "fc",
					  "bind", "complete", "compgen", NULL };
/* Builtins that take variable names (bash evaluates a name's subscript as arithmetic). */
static const char *const name_words[] = { "let", "declare", "typeset", "local", "export",
					  "readonly", "read", "readarray", "mapfile", "unset",
					  "getopts", "wait", NULL };
static const char *const test_words[] = { "test", "[", NULL };

static const char *basename_of(const char *w)
{
	const char *s = w ? strrchr(w, '/') : NULL;

	return s ? s + 1 : w;
}

/* The current word's text, or NULL when it is longer than WORD_MAX - 1. */
static const char *word_text(struct cmdst *c)
{
	if (c->wlen >= WORD_MAX)
		return NULL;
	c->word[c->wlen] = '\0';
	return c->word;
}

/* The length of the shell variable name that w starts with (0: none). */
static size_t name_prefix(const char *w)
{
	size_t n = 0;

	if (!w || !((w[0] >= 'a' && w[0] <= 'z') || (w[0] >= 'A' && w[0] <= 'Z') || w[0] == '_'))
		return 0;
	while ((w[n] >= 'a' && w[n] <= 'z') || (w[n] >= 'A' && w[n] <= 'Z') ||
	       (w[n] >= '0' && w[n] <= '9') || w[n] == '_')
		n++;
	return n;
}

/* Whether w, a word in a command's name position, starts an assignment: NAME=, NAME+=, NAME[. */
static bool assignment(const char *w)
{
	size_t n = name_prefix(w);

	return n > 0 && (w[n] == '=' || w[n] == '[' || (w[n] == '+' && w[n + 1] == '='));
}

static void word_begin(struct cmdst *c)
{
	c->in_word = true;
	c->wlen = 0;
	c->word_var = false;
	if (c->code_next) {
		c->code_word = true;
		c->code_next = false;
	}
}

static void word_add(struct cmdst *c, char ch)
{
	if (!c->in_word)
		word_begin(c);
	if (c->wlen + 1 < WORD_MAX)
		c->word[c->wlen++] = ch;
	else
		c->wlen = WORD_MAX;
}

static void heredoc_push(struct qtrack *q, const char *w, bool tabs)
{
	if (q->nheredoc < HEREDOC_MAX) {
		/* a delimiter too long to keep never matches: the rest is a body */
		snprintf(q->heredoc[q->nheredoc], WORD_MAX, "%s", w ? w : "\1");
		q->heredoc_tabs[q->nheredoc++] = tabs;
	}
}

/* The end of the current word: what it makes of the command. */
static void word_end(struct qtrack *q)
{
	struct cmdst *c = &q->c;
	const char *w;

	if (!c->in_word)
		return;
	w = word_text(c);
	if (c->delim) {
		heredoc_push(q, w, c->delim_tabs);
		c->delim = false;
	} else if (c->redir) {
		c->redir = false;
	} else if (c->cmd_pos) {
		if (w && (word_in(w, reserved_words) || assignment(w) || (c->prefix && w[0] == '-')))
			;
		else if (w && (strcmp(w, "command") == 0 || strcmp(w, "builtin") == 0 ||
			       strcmp(w, "exec") == 0))
			c->prefix = true;
		else {
			snprintf(c->name, sizeof(c->name), "%s", w ? w : "\1");
			c->cmd_pos = c->prefix = false;
			c->nargs = 0;
			if (word_in(basename_of(w), shell_words))
				snprintf(c->shell, sizeof(c->shell), "%s", w);
		}
	} else {
		if (w && (strcmp(w, "-v") == 0 || strcmp(w, "-R") == 0) &&
		    (word_in(c->name, test_words) || strcmp(c->name, "printf") == 0))
			c->opt_v = true;
		if (word_in(basename_of(w), shell_words))
			snprintf(c->shell, sizeof(c->shell), "%s", w);
		else if (w && c->shell[0] && w[0] == '-' && w[1] != '-' && strchr(w, 'c'))
			c->code_next = true;
		c->nargs++;
	}
	c->prev_var = c->word_var;
	c->word_var = c->code_word = c->in_word = false;
}

/* An operator that ends the command (; & | ( ) newline): the next word is a new command's. */
static void cmd_end(struct qtrack *q)
{
	word_end(q);
	cmd_fresh(&q->c);
}

/* A newline outside quotes: the command ends, and the bodies of the here-documents opened on
 * the line begin. */
static void line_end(struct qtrack *q)
{
	cmd_end(q);
	if (q->nheredoc > 0) {
		q->in_body = true;
		q->body = 0;
		q->llen = 0;
	}
}

/* "$(" seen in state st: the command inside starts outside quotes, a command of its own. */
static void subst_open(struct qtrack *q)
{
	if (q->depth < SUBST_MAX) {
		q->outer[q->depth] = q->st;
		q->parens[q->depth] = 0;
		q->outer_cmd[q->depth] = q->c;
		q->depth++;
	}
	q->st = Q_OUT;
	cmd_fresh(&q->c);
}

static void subst_close(struct qtrack *q)
{
	word_end(q);
	q->depth--;
	q->st = q->outer[q->depth];
	q->c = q->outer_cmd[q->depth];
	word_add(&q->c, '\1'); /* the substitution is part of the outer word */
}

/* What a '$', '{' or '}' does outside single quotes ("$(" is the caller's); false for any
 * other character. */
static bool track_dollar(struct qtrack *q, char c, bool dollar)
{
	if (c == '$')
		q->dollar = !dollar; /* "$$" is the shell's process id, complete */
	else if (dollar && c == '{')
		q->brace++;
	else if (c == '}' && q->brace > 0)
		q->brace--;
	else
		return false;
	return true;
}

/* A character of a here-document's body: a line equal to the delimiter ends it. */
static void track_body(struct qtrack *q, char c)
{
	const char *l;

	if (c != '\n') {
		if (q->llen + 1 < WORD_MAX)
			q->line[q->llen++] = c;
		else
			q->llen = WORD_MAX;
		return;
	}
	if (q->llen < WORD_MAX) {
		q->line[q->llen] = '\0';
		l = q->line;
		while (q->heredoc_tabs[q->body] && *l == '\t')
			l++;
		if (strcmp(l, q->heredoc[q->body]) == 0 && ++q->body == q->nheredoc) {
			q->in_body = false;
			q->nheredoc = q->body = 0;
		}
	}
	q->llen = 0;
}

/* A character outside quotes (not after a backslash), for the command's words. */
static void track_out(struct qtrack *q, char c, bool dollar)
{
	bool op = q->op == c && (c == '<' || c == '>');

	if (c != '<' && c != '>' && c != '&' && c != '|' && c != '-')
		q->op = 0;
	if (c == '\'') {
		q->st = dollar ? Q_ANSI : Q_SQ;
		if (!q->c.in_word)
			word_begin(&q->c);
	} else if (c == '"') {
		q->st = Q_DQ;
		if (!q->c.in_word)
			word_begin(&q->c);
	} else if (c == '`') {
		q->backq = !q->backq;
		word_add(&q->c, '\1');
	} else if (c == '#' && q->word_start) {
		q->comment = true;
	} else if (dollar && c == '(') {
		subst_open(q);
	} else if (track_dollar(q, c, dollar)) {
		word_add(&q->c, c);
	} else if (c == '(' && q->depth > 0) {
		q->parens[q->depth - 1]++;
		cmd_end(q);
	} else if (c == ')' && q->depth > 0) {
		if (q->parens[q->depth - 1] > 0) {
			q->parens[q->depth - 1]--;
			cmd_end(q);
		} else {
			subst_close(q);
		}
	} else if (c == '<' || c == '>') {
		/* digits before it are its file descriptor, not a word */
		const char *w = q->c.in_word ? word_text(&q->c) : NULL;

		if (w && *w && strspn(w, "0123456789") == strlen(w))
			q->c.in_word = false;
		word_end(q);
		q->nop = op ? q->nop + 1 : 1;
		q->op = c;
		q->c.delim = c == '<' && q->nop == 2;
		q->c.redir = !q->c.delim;
		q->c.delim_tabs = false;
	} else if (c == '-' && q->op == '<' && q->nop == 2 && !q->c.in_word) {
		q->c.delim_tabs = true;
		q->op = 0;
	} else if (c == '&' && (q->op == '<' || q->op == '>')) {
		q->op = 0;               /* >& and <&: the word after is the target */
	} else if (c == '|' && q->op == '>') {
		q->op = 0;               /* >| */
	} else if (strchr(";&|()\n", c)) {
		q->op = 0;
		if (c == '\n')
			line_end(q);
		else
			cmd_end(q);
	} else if (c == ' ' || c == '\t') {
		word_end(q);
	} else {
		word_add(&q->c, c);
	}
	if (c == '<' && q->nop == 3) { /* <<<: a here-string, whose word is data */
		q->c.delim = false;
		q->c.redir = true;
	}
}

static void track(struct qtrack *q, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		bool dollar = q->dollar;

		q->dollar = false;
		if (q->in_body) {
			track_body(q, c);
			continue;
		}
		if (q->comment) {
			if (c == '\n') {
				q->comment = false;
				q->word_start = true;
				line_end(q);
			}
			continue;
		}
		if (q->esc) {
			q->esc = false;
			q->word_start = false;
			if (c != '\n')
				word_add(&q->c, c);
			continue;
		}
		switch (q->st) {
		case Q_SQ:
			if (c == '\'')
				q->st = Q_OUT;
			else
				word_add(&q->c, c);
			break;
		case Q_ANSI:
			if (c == '\\')
				q->esc = true;
			else if (c == '\'')
				q->st = Q_OUT;
			else
				word_add(&q->c, c);
			break;
		case Q_DQ:
			if (c == '\\')
				q->esc = true;
			else if (c == '"')
				q->st = Q_OUT;
			else if (c == '`')
				q->backq = !q->backq;
			else if (dollar && c == '(')
				subst_open(q);
			else {
				track_dollar(q, c, dollar);
				word_add(&q->c, c);
			}
			break;
		case Q_OUT:
			if (c == '\\')
				q->esc = true;
			else
				track_out(q, c, dollar);
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
	cmd_fresh(&q->c);
}

/* After a variable: part of a word, and no '$' for what follows. */
static void track_var(struct qtrack *q)
{
	q->dollar = false;
	q->word_start = false;
	q->op = 0;
	word_add(&q->c, '\1');
	q->c.word_var = true;
}

/*
 * The construct of tmpl in which bash evaluates what it expands as arithmetic, or NULL: "(("
 * (of $((…)), ((…)) and for ((…))) or "$[" anywhere, or "[[" then a blank ([[ x -eq y ]]).
 * Arithmetic evaluates array subscripts, and a subscript can be $(command): bash -c
 * 'echo $(( $X ))' with X='a[$(cmd)]' runs cmd, quoted or not. Found by a plain scan, so no
 * tracking error can hide one.
 */
static const char *arith_construct(const char *tmpl)
{
	for (const char *p = tmpl; *p; p++) {
		if (p[0] == '(' && p[1] == '(')
			return "((…))";
		if (p[0] == '$' && p[1] == '[')
			return "$[…]";
		if (p[0] == '[' && p[1] == '[' && (p[2] == ' ' || p[2] == '\t' || p[2] == '\n'))
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
 * Whether a text variable may stand at q: only where bash, dash and busybox sh all keep its
 * value as data. 0, or -EINVAL with the place and why (the variable is named by the caller).
 * The positive list: an argument of a simple command (bare, in "…", '…' or $'…'), or a
 * redirection's target, of a command that neither runs its arguments as code nor takes them
 * as names.
 */
static int place_refused(const struct qtrack *q, const char *arith, char *err, size_t errlen)
{
	const struct cmdst *c = &q->c;
	char w[WORD_MAX] = "";
	size_t n;

	if (c->in_word && c->wlen < WORD_MAX) {
		memcpy(w, c->word, c->wlen);
		w[c->wlen] = '\0';
	}

	if (q->in_body)
		return iom_err(err, errlen, EINVAL,
			       "is in a here-document's body, which its command may read as "
			       "code (pass it as an argument)");
	if (q->backq)
		return iom_err(err, errlen, EINVAL,
			       "is inside backquotes, whose text the shell parses again (use "
			       "$$( … ))");
	if (arith)
		return iom_err(err, errlen, EINVAL,
			       "is text in a command with %s, where bash evaluates values as "
			       "arithmetic, which can run commands; only the numeric variables "
			       "(${run.index}, ${cell.queue_depth} …) may be used in it", arith);
	if (q->brace > 0 && q->st != Q_SQ)
		return iom_err(err, errlen, EINVAL,
			       "is text inside a '$${…}' of the shell, whose offsets and "
			       "subscripts bash evaluates as arithmetic, which can run commands; "
			       "only the numeric variables may be used there");
	if (c->delim)
		return iom_err(err, errlen, EINVAL, "is a here-document's delimiter");
	if (c->redir)
		return 0;
	if (c->cmd_pos) {
		n = name_prefix(w);
		if (n > 0 && w[n] == '[')
			return iom_err(err, errlen, EINVAL,
				       "is in an array subscript (%.*s[…]), which bash evaluates as "
				       "arithmetic", (int)n, w);
		if (n > 0 && (w[n] == '=' || w[n] == '+'))
			return iom_err(err, errlen, EINVAL,
				       "is the value of an assignment (%.*s=…), which bash evaluates "
				       "as arithmetic or a name when %.*s is declared so (pass it as "
				       "an argument)", (int)n, w, (int)n, w);
		return iom_err(err, errlen, EINVAL,
			       "is the command's name: the shell would run the value (give the "
			       "command's name as text, the value as an argument)");
	}
	if (c->code_word)
		return iom_err(err, errlen, EINVAL,
			       "is in the command string of '%s -c', where the value would be "
			       "parsed as code (pass it as an argument after the string, as \"$1\")",
			       c->shell);
	if (word_in(c->name, code_words))
		return iom_err(err, errlen, EINVAL,
			       "is an argument of '%s', which runs its arguments as shell code",
			       c->name);
	if (word_in(c->name, name_words))
		return iom_err(err, errlen, EINVAL,
			       "is an argument of '%s', which takes variable names and evaluates "
			       "their subscripts as arithmetic", c->name);
	if (c->opt_v)
		return iom_err(err, errlen, EINVAL,
			       "follows '%s -v', which takes a variable name and evaluates its "
			       "subscript as arithmetic", c->name);
	if (word_in(c->name, test_words) && c->prev_var)
		return iom_err(err, errlen, EINVAL,
			       "follows another value in '%s', where that value could be an "
			       "operator (-v) that makes this one a variable name", c->name);
	if (strcmp(c->name, "printf") == 0 && c->nargs == 0)
		return iom_err(err, errlen, EINVAL,
			       "is printf's first argument, its format or an option such as -v "
			       "(give the format as text: printf '%%s' …)");
	return 0;
}

/*
 * Whether variable name (vi its row; NULL for a name outside the table) may stand at q of a
 * template whose arithmetic construct is arith (NULL: none). 0, or -EINVAL with the reason.
 */
static int var_refused(const struct qtrack *q, const struct iom_hook_var_info *vi,
		       const char *name, size_t len, const char *arith, char *err, size_t errlen)
{
	char why[IOM_ERRLEN];

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
	if (place_refused(q, arith, why, sizeof(why)) < 0)
		return iom_err(err, errlen, EINVAL, "'${%.*s}' %s", (int)len, name, why);
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
		struct cell_var cv;

		if ((ret = next_tok(tmpl, &p, &t, err, errlen)) < 0)
			return ret;
		if (t.kind == TOK_END)
			return 0;
		if (t.kind == TOK_TEXT) {
			track(&q, t.s, t.len);
			continue;
		}
		vi = var_info(t.s, t.len, &cv);
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
			struct cell_var cv;
			const struct iom_hook_var_info *vi = var_info(t.s, t.len, &cv);
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
	po = (struct iom_proc_opts){ .log_path = o->log_path, .log_dir = o->log_dir, .timeout_ns = o->timeout_ns,
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
		char *num = xasprintf("%.*s", (int)(len - 1), text);
		const char *end;
		double mult;
		long double b;

		ret = iom_decimal_parse(num, &mult, &end) < 0 || *end;
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
