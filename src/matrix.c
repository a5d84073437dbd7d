/* SPDX-License-Identifier: MIT */
/*
 * matrix — a matrix file read with libconfig into a validated struct iom_matrix.
 *
 * The steps, in order:
 *   1. prescan: a small lexer over the raw text that libconfig 1.5 needs in front of it. It
 *      refuses @include (a matrix is one self-contained file, so the results directory holds all
 *      of it) and integer literals beyond 64 bits, and appends an L to integers beyond 32 bits,
 *      which libconfig would otherwise silently wrap (4294967296 would read as 0).
 *   2. libconfig parses the text; its syntax errors keep their line, with a hint for the two
 *      mistakes everyone makes (unquoted "4K", unquoted words).
 *   3. --set overrides are applied to the tree, each value parsed as libconfig text. Settings
 *      they add carry the override as their libconfig hook, so a message about them names the
 *      override instead of a line.
 *   4. validation walks the tree with the key table (keys.c): every key known, every value of
 *      its type and in range, then the checks across keys. The first problem found is the one
 *      reported, as "FILE:LINE: message". A plain scalar lands where its row says (read_landed:
 *      one reader per type, the default when the key is missing); what is not plain — the
 *      schema, labels and paths, filesystems lists, cpus, shuffle, submit_batch, reap_wait,
 *      order and compare, hook commands, precondition, exclude — is read by name below.
 *
 * Every value of a workload key becomes a list (struct iom_values): a scalar is a list of one,
 * [ … ] and ( … ) are lists, and { from; to; [step] } is a range. Targets receive the effective
 * list of every workload key: their own when they set it, the workload's otherwise.
 */
#include "matrix.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <libconfig.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dist.h"
#include "engine.h"
#include "hooks.h"
#include "ownfile.h"
#include "units.h"
#include "util.h"

#define MAX_TARGETS 1024
#define MAX_VALUES (1u << 20) /* values in one dimension */
#define MAX_EXCLUDES 4096
#define MAX_LABEL 64
#define MAX_TEXT 1024
#define MAX_PATH_LEN 4095
#define MAX_HOOK 8192

struct ctx {
	const char *file;
	char *err;
	size_t errlen;
	config_t cfg;
	struct iom_matrix *m;
	/* First line where each dimension's key appears in the file (INT_MAX: nowhere). */
	int dim_line[IOM_DIM_COUNT];
	bool overridden[IOM_DIM_COUNT];
	/* Where each dimension was set: in the workload, and per target (NULL: inherited). */
	const config_setting_t *wl_set[IOM_DIM_COUNT];
	const config_setting_t *(*t_set)[IOM_DIM_COUNT];
	/* Each target's filesystems = [ … ] (NULL-terminated; NULL when not given), until the
	 * targets are expanded. */
	char ***fs_list;
	size_t nfs_list;
};

/* ---- messages ---------------------------------------------------------------------------- */

/* Quotes at most 40 characters of s (10 kB labels make poor messages). */
static const char *shorten(const char *s, char *buf, size_t len)
{
	size_t n = strlen(s);

	if (n < 44 || len < 48) {
		snprintf(buf, len, "%s", s);
	} else {
		size_t cut = 40;

		while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
			cut--; /* do not split a UTF-8 sequence */
		snprintf(buf, len, "%.*s...", (int)cut, s);
	}
	return buf;
}

/* Messages are one line: control characters from the input become '?'. */
static void one_line(char *msg)
{
	for (unsigned char *q = (unsigned char *)msg; *q; q++)
		if (*q < 0x20 || *q == 0x7f)
			*q = '?';
}

/* The override a setting comes from, or NULL when it is from the file. */
static const struct iom_override *override_of(const config_setting_t *s)
{
	for (; s; s = config_setting_parent(s))
		if (config_setting_get_hook(s))
			return config_setting_get_hook(s);
	return NULL;
}

static int line_of(const config_setting_t *s)
{
	for (; s; s = config_setting_parent(s))
		if (config_setting_source_line(s) > 0)
			return (int)config_setting_source_line(s);
	return 1;
}

/* Formats "FILE:LINE: message" (or "FILE: --set K=V: message") into the error buffer. */
__attribute__((format(printf, 3, 4)))
static int fail(struct ctx *c, const config_setting_t *s, const char *fmt, ...)
{
	const struct iom_override *ov = override_of(s);
	char msg[IOM_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	one_line(msg);
	if (ov)
		return iom_err(c->err, c->errlen, EINVAL, "%s: --set %s=%s: %s", c->file, ov->key,
			       ov->value, msg);
	return iom_err(c->err, c->errlen, EINVAL, "%s:%d: %s", c->file, line_of(s), msg);
}

static int fail_line(struct ctx *c, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail_line(struct ctx *c, int line, const char *fmt, ...)
{
	char msg[IOM_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	one_line(msg);
	return iom_err(c->err, c->errlen, EINVAL, "%s:%d: %s", c->file, line > 0 ? line : 1, msg);
}

static const char *config_type_name(int type)
{
	switch (type) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64: return "an integer";
	case CONFIG_TYPE_FLOAT: return "a real number";
	case CONFIG_TYPE_STRING: return "a string";
	case CONFIG_TYPE_BOOL: return "true or false";
	case CONFIG_TYPE_ARRAY: return "a list [ ... ]";
	case CONFIG_TYPE_LIST: return "a list ( ... )";
	case CONFIG_TYPE_GROUP: return "a group { ... }";
	}
	return "nothing";
}

/* What a key wants, for "wrong type" messages. */
static const char *wanted(const struct iom_key *k)
{
	switch (k->type) {
	case IOM_TYPE_SIZE: return "a size such as 4096 or \"4K\"";
	case IOM_TYPE_UINT: return "a whole number";
	case IOM_TYPE_PCT: return "a whole percentage such as 70";
	case IOM_TYPE_FLOAT: return "a number";
	case IOM_TYPE_BOOL: return "true or false";
	case IOM_TYPE_ENUM: return "a string";
	case IOM_TYPE_DURATION: return "a duration such as \"1.5s\"";
	case IOM_TYPE_STRING: return "a string in quotes";
	case IOM_TYPE_LIST: return "a list of names such as [ \"target\", \"block_size\" ]";
	case IOM_TYPE_GROUP: return "a group { ... }";
	case IOM_TYPE_SPEC: return "a string such as \"zipf:1.2\"";
	case IOM_TYPE_RATE: return "a rate such as 2000, \"max\" or \"50%\"";
	}
	return "?";
}

static int wrong_type(struct ctx *c, const config_setting_t *s, const struct iom_key *k)
{
	char choices[128] = "";

	if (k->type == IOM_TYPE_ENUM) {
		iom_key_range_text(k, choices, sizeof(choices));
		return fail(c, s, "%s must be one of %s (in quotes), not %s", k->name, choices,
			    config_type_name(config_setting_type(s)));
	}
	return fail(c, s, "%s must be %s, not %s", k->name, wanted(k),
		    config_type_name(config_setting_type(s)));
}

static int unknown_key(struct ctx *c, const config_setting_t *s, enum iom_section sec)
{
	const char *name = config_setting_name(s);
	const struct iom_key *k = iom_key_closest(sec, name);
	char where[64], shown[64];

	if (sec == IOM_SEC_TOP)
		snprintf(where, sizeof(where), "at the top level");
	else if (sec == IOM_SEC_TARGET)
		snprintf(where, sizeof(where), "in a target");
	else if (sec == IOM_SEC_EXCLUDE)
		snprintf(where, sizeof(where), "in an exclude condition");
	else
		snprintf(where, sizeof(where), "in %s", iom_section_name(sec));
	shorten(name, shown, sizeof(shown));
	if (k)
		return fail(c, s, "unknown key '%s' %s (did you mean '%s'?)", shown, where, k->name);
	return fail(c, s, "unknown key '%s' %s (see 'iomatrix help keys')", shown, where);
}

/* ---- step 1: prescan --------------------------------------------------------------------- */

static bool ident_char(int ch)
{
	return isalnum(ch) || ch == '_' || ch == '-' || ch == '*';
}

/* The text of line n of text, without its newline, into buf. */
static void line_text(const char *text, int n, char *buf, size_t len)
{
	const char *p = text, *e;

	for (int i = 1; i < n && p; i++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p) {
		buf[0] = '\0';
		return;
	}
	e = strchr(p, '\n');
	snprintf(buf, len, "%.*s", (int)(e ? (size_t)(e - p) : strlen(p)), p);
}

/* A hint for the syntax errors people make: unquoted units and unquoted words. */
static const char *syntax_hint(const char *line)
{
	bool quote = false;

	for (const char *p = line; *p; p++) {
		if (*p == '"')
			quote = !quote;
		if (quote)
			continue;
		if (*p == '#' || (p[0] == '/' && p[1] == '/'))
			break;
		if (isdigit((unsigned char)p[0]) && isalpha((unsigned char)p[1]) &&
		    (p == line || !ident_char((unsigned char)p[-1])) && p[1] != 'x' &&
		    p[1] != 'X' && p[1] != 'L' && p[1] != 'e' && p[1] != 'E')
			return " (values with units are strings: write \"4K\" or \"1.5s\")";
		if (*p == '=' || *p == ':') {
			const char *q = p + 1;

			while (*q == ' ' || *q == '\t')
				q++;
			if (isalpha((unsigned char)*q) && strncasecmp(q, "true", 4) != 0 &&
			    strncasecmp(q, "false", 5) != 0)
				return " (words are strings: write them in quotes, e.g. \"random\")";
		}
	}
	return "";
}

/*
 * Copies text to *out, appending 'L' to integer literals that do not fit in 32 bits; refuses
 * @include, integers beyond 64 bits and unterminated strings (which libconfig 1.5 accepts).
 *
 * It also reports a string where libconfig's grammar allows none (anywhere but after '=', ':',
 * '(', '[', another string, or ',' inside a list): libconfig would report the same syntax error
 * but leak the string, and fuzzing the reader must find no leaks.
 */
static int prescan(struct ctx *c, const char *text, char **out)
{
	size_t len = strlen(text), cap = len + 64, o = 0, depth = 0, depth_cap = 64;
	char *buf = xmalloc(cap), *nest = xmalloc(depth_cap), prev = 0;
	const char *p = text;
	int line = 1, ret = 0;

#define PUT(ch)                                             \
	do {                                                \
		if (o + 2 >= cap)                           \
			buf = xrealloc(buf, cap *= 2);      \
		buf[o++] = (ch);                            \
	} while (0)

	while (*p) {
		if (*p == '\n') {
			line++;
			PUT(*p++);
		} else if (isspace((unsigned char)*p)) {
			PUT(*p++);
		} else if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
			while (*p && *p != '\n')
				PUT(*p++);
		} else if (p[0] == '/' && p[1] == '*') {
			PUT(*p++);
			PUT(*p++);
			while (*p && !(p[0] == '*' && p[1] == '/')) {
				line += *p == '\n';
				PUT(*p++);
			}
		} else if (*p == '"') {
			int start_line = line;
			bool in_list = depth > 0 && nest[depth - 1] != '{';

			if (!(prev && strchr("=:([S", prev)) && !(prev == ',' && in_list)) {
				char text_line[256];

				line_text(text, line, text_line, sizeof(text_line));
				ret = fail_line(c, line, "syntax error%s", syntax_hint(text_line));
				goto out;
			}
			PUT(*p++);
			while (*p && *p != '"') {
				if (*p == '\\' && p[1])
					PUT(*p++);
				line += *p == '\n';
				PUT(*p++);
			}
			if (!*p) {
				ret = fail_line(c, start_line, "unterminated string (no closing \")");
				goto out;
			}
			PUT(*p++);
			prev = 'S';
		} else if (*p == '@') {
			if (strncmp(p, "@include", 8) == 0) {
				ret = fail_line(c, line, "@include is not supported: a matrix is one "
							 "self-contained file");
				goto out;
			}
			PUT(*p++);
			prev = '@';
		} else if (isalpha((unsigned char)*p) || *p == '*') {
			while (ident_char((unsigned char)*p))
				PUT(*p++);
			prev = 'N';
		} else if (isdigit((unsigned char)*p)) {
			const char *start = p;
			bool hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X'), big;
			unsigned __int128 v = 0;

			prev = 'V';
			if (hex) {
				p += 2;
				while (isxdigit((unsigned char)*p)) {
					int d = isdigit((unsigned char)*p) ? *p - '0'
									 : tolower(*p) - 'a' + 10;

					if (v <= UINT64_MAX)
						v = v * 16 + (unsigned)d;
					p++;
				}
			} else {
				while (isdigit((unsigned char)*p)) {
					if (v <= UINT64_MAX)
						v = v * 10 + (unsigned)(*p - '0');
					p++;
				}
				if (*p == '.' || *p == 'e' || *p == 'E') {
					/* a real number: copy it as it is */
					for (const char *q = start; q < p; q++)
						PUT(*q);
					continue;
				}
			}
			if (v > INT64_MAX) {
				ret = fail_line(c, line, "integer %.*s is too large (at most "
							 "9223372036854775807; sizes can be written as "
							 "strings such as \"4G\")",
						(int)IOM_MIN(p - start, 40), start);
				goto out;
			}
			big = v > INT32_MAX && *p != 'L' && *p != 'l';
			for (const char *q = start; q < p; q++)
				PUT(*q);
			if (big)
				PUT('L');
		} else {
			if (*p == '{' || *p == '(' || *p == '[') {
				if (depth == depth_cap)
					nest = xrealloc(nest, depth_cap *= 2);
				nest[depth++] = *p;
			} else if ((*p == '}' || *p == ')' || *p == ']') && depth > 0) {
				depth--;
			}
			prev = *p;
			PUT(*p++);
		}
	}
	buf[o] = '\0';
	*out = buf;
	buf = NULL;
out:
	free(buf);
	free(nest);
	return ret;
#undef PUT
}

/* ---- step 2: libconfig ------------------------------------------------------------------- */

static int parse_text(struct ctx *c, const char *text)
{
	char *scanned, line[256];
	const char *msg, *hint = "";
	int ret;

	ret = prescan(c, text, &scanned);
	if (ret < 0)
		return ret;
	config_set_auto_convert(&c->cfg, 0);
	if (config_read_string(&c->cfg, scanned)) {
		free(scanned);
		return 0;
	}
	free(scanned);
	msg = config_error_text(&c->cfg) ? config_error_text(&c->cfg) : "syntax error";
	line_text(text, config_error_line(&c->cfg), line, sizeof(line));
	if (strstr(msg, "memory exhausted"))
		msg = "too deeply nested for the parser";
	else if (strstr(msg, "mismatched element type"))
		hint = " (to mix numbers and strings, write the list with ( ... ) instead of "
		       "[ ... ])";
	else if (strstr(msg, "syntax error"))
		hint = syntax_hint(line);
	return fail_line(c, config_error_line(&c->cfg), "%s%s", msg, hint);
}

/* ---- step 3: overrides ------------------------------------------------------------------- */

/* Deep copy of src as a new member name (NULL for list/array elements) of parent. */
static config_setting_t *copy_setting(config_setting_t *parent, const char *name,
				      const config_setting_t *src)
{
	int type = config_setting_type(src);
	config_setting_t *dst = config_setting_add(parent, name, type);

	if (!dst)
		return NULL;
	switch (type) {
	case CONFIG_TYPE_INT:
		config_setting_set_int(dst, config_setting_get_int(src));
		break;
	case CONFIG_TYPE_INT64:
		config_setting_set_int64(dst, config_setting_get_int64(src));
		break;
	case CONFIG_TYPE_FLOAT:
		config_setting_set_float(dst, config_setting_get_float(src));
		break;
	case CONFIG_TYPE_BOOL:
		config_setting_set_bool(dst, config_setting_get_bool(src));
		break;
	case CONFIG_TYPE_STRING:
		config_setting_set_string(dst, config_setting_get_string(src));
		break;
	default:
		for (int i = 0; i < config_setting_length(src); i++) {
			const config_setting_t *e = config_setting_get_elem(src, (unsigned)i);

			if (!copy_setting(dst, type == CONFIG_TYPE_GROUP ? config_setting_name(e)
									  : NULL, e))
				return NULL;
		}
		break;
	}
	return dst;
}

static bool bare_word(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.-+/:%~,@", *s))
			return false;
	return true;
}

/* "[4K, 64K]" → "( \"4K\", \"64K\" )": a list whose items are bare words gets them quoted (and
 * parentheses, so that numbers and words may mix). NULL when v is not such a list. */
static char *quote_bare_list(const char *v)
{
	size_t n = strlen(v), cap = 2 * n + 16, o = 0;
	char *out, *body;

	if (n < 2 || v[0] != '[' || v[n - 1] != ']')
		return NULL;
	out = xmalloc(cap);
	out[o++] = '(';
	body = xasprintf("%.*s", (int)(n - 2), v + 1);
	for (char *save = NULL, *item = strtok_r(body, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		char *e;
		bool number = true;

		while (isspace((unsigned char)*item))
			item++;
		e = item + strlen(item);
		while (e > item && isspace((unsigned char)e[-1]))
			*--e = '\0';
		if (!bare_word(item)) {
			free(body);
			free(out);
			return NULL;
		}
		for (const char *q = item; *q; q++)
			if (!isdigit((unsigned char)*q) && !(q == item && *q == '-'))
				number = false;
		number |= strcmp(item, "true") == 0 || strcmp(item, "false") == 0;
		o += (size_t)snprintf(out + o, cap - o, "%s%s%s%s", o > 1 ? ", " : " ",
				      number ? "" : "\"", item, number ? "" : "\"");
	}
	snprintf(out + o, cap - o, " )");
	free(body);
	return out;
}

static const struct iom_key *top_key(const char *name)
{
	return iom_key_find(IOM_SEC_TOP, name);
}

/* The group section of root, created when missing. */
static config_setting_t *section_group(config_setting_t *root, const char *name)
{
	config_setting_t *g = config_setting_get_member(root, name);

	if (g && config_setting_type(g) == CONFIG_TYPE_GROUP)
		return g;
	if (g)
		return NULL;
	return config_setting_add(root, name, CONFIG_TYPE_GROUP);
}

static int override_error(struct ctx *c, const struct iom_override *ov, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int override_error(struct ctx *c, const struct iom_override *ov, const char *fmt, ...)
{
	char msg[IOM_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	one_line(msg);
	return iom_err(c->err, c->errlen, EINVAL, "%s: --set %s=%s: %s", c->file, ov->key,
		       ov->value, msg);
}

/* All key names a --set may use, for suggestions. */
static const struct iom_key *closest_any(const char *name)
{
	static const enum iom_section secs[] = { IOM_SEC_WORKLOAD, IOM_SEC_TIMING, IOM_SEC_TOP,
						 IOM_SEC_REPORT, IOM_SEC_TARGET };

	for (size_t i = 0; i < IOM_ARRAY_SIZE(secs); i++) {
		const struct iom_key *k = iom_key_closest(secs[i], name);

		if (k)
			return k;
	}
	return NULL;
}

static int apply_override(struct ctx *c, const struct iom_override *ov)
{
	config_setting_t *root = config_root_setting(&c->cfg), *parent = NULL, *val, *dst;
	const struct iom_key *k = NULL;
	char *key, *dot, *name, *text;
	config_t tmp;
	int ret = 0;

	if (!ov->key || !*ov->key)
		return iom_err(c->err, c->errlen, EINVAL, "--set needs KEY=VALUE");
	key = xstrdup(ov->key);
	dot = strchr(key, '.');
	if (!dot) {
		/* A bare key: a top-level key, else the workload, timing, report or io_uring key
		 * (submit_batch and reap_wait, whose old place is the top level, land in io_uring). */
		static const enum iom_section secs[] = { IOM_SEC_WORKLOAD, IOM_SEC_TIMING,
							 IOM_SEC_REPORT, IOM_SEC_IO_URING };

		name = key;
		if ((k = top_key(name)) != NULL && !(k->flags & IOM_KEY_MOVED)) {
			parent = root;
		} else {
			k = NULL;
			for (size_t i = 0; i < IOM_ARRAY_SIZE(secs) && !k; i++) {
				k = iom_key_find(secs[i], name);
				if (k && k->section == secs[i])
					parent = section_group(root, iom_section_name(secs[i]));
				else
					k = NULL;
			}
		}
	} else if (strncmp(key, "targets.", 8) == 0 || strncmp(key, "target.", 7) == 0) {
		/* targets.LABEL.KEY: one target's key */
		char *label = strchr(key, '.') + 1, *last = strrchr(key, '.');
		config_setting_t *ts = config_setting_get_member(root, "targets");

		if (last == dot) {
			ret = override_error(c, ov, "write targets.LABEL.KEY to set a key of one "
						    "target");
			goto out;
		}
		*last = '\0';
		name = last + 1;
		k = iom_key_find(IOM_SEC_TARGET, name);
		for (int i = 0; ts && config_setting_is_aggregate(ts) &&
				i < config_setting_length(ts); i++) {
			config_setting_t *t = config_setting_get_elem(ts, (unsigned)i);
			const char *l = NULL;

			if (config_setting_is_group(t) &&
			    config_setting_lookup_string(t, "label", &l) && strcmp(l, label) == 0)
				parent = t;
		}
		if (k && !parent) {
			ret = override_error(c, ov, "no target labelled '%s'", label);
			goto out;
		}
	} else {
		*dot = '\0';
		name = dot + 1;
		int sec;

		k = iom_key_find(IOM_SEC_TOP, key);
		sec = k && k->type == IOM_TYPE_GROUP ? iom_section_from_name(key) : -1;
		if (sec == (int)IOM_SEC_WORKLOAD || sec == (int)IOM_SEC_TIMING ||
		    sec == (int)IOM_SEC_REPORT || sec == (int)IOM_SEC_HOOKS ||
		    sec == (int)IOM_SEC_IO_URING) {
			k = iom_key_find((enum iom_section)sec, name);
			if (k && (int)k->section == sec)
				parent = section_group(root, key);
			else
				k = NULL;
		} else {
			k = NULL;
		}
	}
	if (k && k->section == IOM_SEC_IO_URING && parent) {
		/* the override replaces the file's value, also at its old place (else both would be
		 * set, which read_io_uring refuses) */
		const struct iom_key *old = top_key(name);

		if (old && (old->flags & IOM_KEY_MOVED) && config_setting_get_member(root, name))
			config_setting_remove(root, name);
	}
	if (!k) {
		const struct iom_key *near = closest_any(strrchr(ov->key, '.') ? strrchr(ov->key, '.') + 1
										 : ov->key);

		if (near)
			ret = override_error(c, ov, "unknown key '%s' (did you mean '%s'?)", ov->key,
					     near->name);
		else
			ret = override_error(c, ov, "unknown key '%s' (see 'iomatrix help keys')",
					     ov->key);
		goto out;
	}
	if (!parent) {
		ret = override_error(c, ov, "the matrix's '%s' is not a group", key);
		goto out;
	}
	if (k->dim >= 0)
		c->overridden[k->dim] = true;

	/* The value, as libconfig text; a bare word that is not libconfig is a string. */
	config_init(&tmp);
	text = xasprintf("v = %s;", ov->value ? ov->value : "");
	{
		char *scanned = NULL;
		struct ctx sub = *c;
		char suberr[IOM_ERRLEN];

		sub.err = suberr;
		sub.errlen = sizeof(suberr);
		char *quoted = ov->value ? quote_bare_list(ov->value) : NULL;

		if (quoted) {
			free(text);
			text = xasprintf("v = %s;", quoted);
			free(quoted);
		}
		if (prescan(&sub, text, &scanned) < 0 || !config_read_string(&tmp, scanned) ||
		    config_setting_length(config_root_setting(&tmp)) != 1) {
			config_destroy(&tmp);
			config_init(&tmp);
			if (!ov->value || !bare_word(ov->value)) {
				ret = override_error(c, ov, "not a value (write a number, a word, "
							    "\"text\", [ a, b ] or { from = ...; "
							    "to = ...; })");
				free(scanned);
				free(text);
				config_destroy(&tmp);
				goto out;
			}
			config_setting_set_string(config_setting_add(config_root_setting(&tmp), "v",
								     CONFIG_TYPE_STRING),
						  ov->value);
		}
		free(scanned);
	}
	free(text);
	val = config_setting_get_member(config_root_setting(&tmp), "v");
	config_setting_remove(parent, name);
	dst = copy_setting(parent, name, val);
	config_destroy(&tmp);
	if (!dst) {
		ret = override_error(c, ov, "cannot set this value here");
		goto out;
	}
	config_setting_set_hook(dst, (void *)ov);
out:
	free(key);
	return ret;
}

/* ---- step 4: values ---------------------------------------------------------------------- */

static bool is_int(const config_setting_t *s)
{
	return config_setting_type(s) == CONFIG_TYPE_INT ||
	       config_setting_type(s) == CONFIG_TYPE_INT64;
}

/* One scalar value of a numeric, enum or bool key, range-checked. */
static int read_access_name(struct ctx *c, const config_setting_t *s, int64_t *v);

static int read_scalar(struct ctx *c, const struct iom_key *k, const config_setting_t *s,
		       int64_t *v)
{
	char sub[IOM_ERRLEN];
	int type = config_setting_type(s);

	if (k->dim == IOM_DIM_ACCESS && type == CONFIG_TYPE_STRING)
		return read_access_name(c, s, v);

	switch (type) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64: {
		long long x = config_setting_get_int64(s);

		if (k->type == IOM_TYPE_BOOL || k->type == IOM_TYPE_ENUM ||
		    k->type == IOM_TYPE_SPEC)
			return wrong_type(c, s, k);
		if (k->type == IOM_TYPE_RATE) {
			char num[32];

			snprintf(num, sizeof(num), "%lld", x);
			if (iom_key_parse_text(k, num, v, sub, sizeof(sub)) < 0)
				return fail(c, s, "%s", sub);
			return 0;
		}
		if (x < 0)
			return fail(c, s, "%s %lld cannot be negative", k->name, x);
		if (k->type == IOM_TYPE_DURATION) {
			/* a bare number of seconds */
			if (x > k->max / 1000000000ll) {
				char range[96];

				iom_key_range_text(k, range, sizeof(range));
				return fail(c, s, "%s %llds is out of range (%s)", k->name, x,
					    range);
			}
			x *= 1000000000ll;
		}
		if (iom_key_check(k, x, sub, sizeof(sub)) < 0)
			return fail(c, s, "%s", sub);
		*v = x;
		return 0;
	}
	case CONFIG_TYPE_FLOAT: {
		double x = config_setting_get_float(s);
		uint64_t ns;

		if (k->type == IOM_TYPE_RATE) {
			char num[40];

			snprintf(num, sizeof(num), "%.10g", x);
			if (iom_key_parse_text(k, num, v, sub, sizeof(sub)) < 0)
				return fail(c, s, "%s", sub);
			return 0;
		}
		if (k->type != IOM_TYPE_DURATION) {
			if (k->type == IOM_TYPE_SIZE)
				return fail(c, s, "%s must be a whole number of bytes or a size in "
						  "quotes such as \"1.5M\", not the real number %g",
					    k->name, x);
			return fail(c, s, "%s must be %s, not the real number %g", k->name,
				    wanted(k), x);
		}
		if (iom_duration_from_seconds(x, &ns, sub, sizeof(sub)) < 0)
			return fail(c, s, "%s %s", k->name, sub);
		if (ns > (uint64_t)k->max)
			return fail(c, s, "%s %gs is out of range (at most %llds)", k->name, x,
				    (long long)(k->max / 1000000000ll));
		if (iom_key_check(k, (int64_t)ns, sub, sizeof(sub)) < 0)
			return fail(c, s, "%s", sub);
		*v = (int64_t)ns;
		return 0;
	}
	case CONFIG_TYPE_BOOL:
		if (k->type != IOM_TYPE_BOOL)
			return wrong_type(c, s, k);
		*v = config_setting_get_bool(s) ? 1 : 0;
		return 0;
	case CONFIG_TYPE_STRING: {
		const char *str = config_setting_get_string(s);
		char shown[64];

		if (strlen(str) > 64)
			return fail(c, s, "%s '%s' is not %s", k->name,
				    shorten(str, shown, sizeof(shown)), wanted(k));
		if (iom_key_parse_text(k, str, v, sub, sizeof(sub)) < 0)
			return fail(c, s, "%s", sub);
		return 0;
	}
	default:
		return wrong_type(c, s, k);
	}
}

static void values_push(struct iom_values *vals, size_t *cap, int64_t v)
{
	if (vals->n == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		vals->v = xrealloc(vals->v, *cap * sizeof(*vals->v));
	}
	vals->v[vals->n++] = v;
}

static int read_range(struct ctx *c, const struct iom_key *k, const config_setting_t *s,
		      struct iom_values *out)
{
	static const char *const range_keys[] = { "from", "to", "step" };
	const config_setting_t *sf = NULL, *st = NULL, *ss = NULL;
	int64_t from, to, step = 0;
	uint64_t count = 0;
	size_t cap = 0;
	int ret;

	if (k->type != IOM_TYPE_SIZE && k->type != IOM_TYPE_UINT && k->type != IOM_TYPE_PCT)
		return fail(c, s, "%s cannot be a range { from; to; } (only sizes and numbers "
				  "can); give a list [ ... ]", k->name);
	for (int i = 0; i < config_setting_length(s); i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		const char *n = config_setting_name(e);

		if (strcmp(n, "from") == 0)
			sf = e;
		else if (strcmp(n, "to") == 0)
			st = e;
		else if (strcmp(n, "step") == 0)
			ss = e;
		else {
			const char *near = iom_closest(n, range_keys, 3);
			char shown[64];

			shorten(n, shown, sizeof(shown));
			if (near)
				return fail(c, e, "unknown key '%s' in the range of %s (did you "
						  "mean '%s'?)", shown, k->name, near);
			return fail(c, e, "unknown key '%s' in the range of %s (a range has "
					  "from, to and optionally step)", shown, k->name);
		}
	}
	if (!sf || !st)
		return fail(c, s, "the range of %s needs from and to, e.g. { from = \"512\"; "
				  "to = \"64M\"; }", k->name);
	if ((ret = read_scalar(c, k, sf, &from)) < 0 || (ret = read_scalar(c, k, st, &to)) < 0)
		return ret;
	if (from > to)
		return fail(c, s, "the range of %s goes down (from is larger than to)", k->name);
	if (ss) {
		struct iom_key stepkey = *k;

		stepkey.name = "step";
		stepkey.min = 1;
		if ((ret = read_scalar(c, &stepkey, ss, &step)) < 0)
			return ret;
		count = (uint64_t)(to - from) / (uint64_t)step + 1;
	} else {
		if (from == 0)
			return fail(c, s, "a doubling range of %s cannot start at 0; give a step",
				    k->name);
		for (int64_t v = from; v <= to; v *= 2) {
			count++;
			if (v > INT64_MAX / 2)
				break;
		}
	}
	if (count > MAX_VALUES)
		return fail(c, s, "the range of %s has %" PRIu64 " values (at most %u)", k->name,
			    count, MAX_VALUES);
	for (int64_t v = from; v <= to;) {
		values_push(out, &cap, v);
		if (ss) {
			if (v > to - step)
				break;
			v += step;
		} else {
			if (v > INT64_MAX / 2)
				break;
			v *= 2;
		}
	}
	return 0;
}

/*
 * Reads the values of a workload key: a scalar, a list [ … ] or ( … ), or a range group.
 * *listed is set for a list or range.
 */
static int read_values(struct ctx *c, const struct iom_key *k, const config_setting_t *s,
		       struct iom_values *out, bool *listed)
{
	int type = config_setting_type(s);
	size_t cap = 0;
	int64_t v;
	int ret;

	out->v = NULL;
	out->n = 0;
	*listed = false;
	if (type == CONFIG_TYPE_GROUP) {
		*listed = true;
		return read_range(c, k, s, out);
	}
	if (type != CONFIG_TYPE_ARRAY && type != CONFIG_TYPE_LIST) {
		if ((ret = read_scalar(c, k, s, &v)) < 0)
			return ret;
		values_push(out, &cap, v);
		return 0;
	}
	*listed = true;
	if (config_setting_length(s) == 0)
		return fail(c, s, "%s is an empty list: give at least one value", k->name);
	if ((unsigned)config_setting_length(s) > MAX_VALUES)
		return fail(c, s, "%s lists more than %u values", k->name, MAX_VALUES);
	for (int i = 0; i < config_setting_length(s); i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);

		if (config_setting_is_aggregate(e))
			return fail(c, e, "a value of %s must be %s, not %s (lists do not nest)",
				    k->name, wanted(k), config_type_name(config_setting_type(e)));
		if ((ret = read_scalar(c, k, e, &v)) < 0)
			return ret;
		for (size_t j = 0; j < out->n && out->n < 4096; j++) {
			if (out->v[j] == v) {
				char shown[32];

				/* as written: an access spec's stored form is only its index */
				if (config_setting_type(e) == CONFIG_TYPE_STRING)
					return fail(c, e, "%s lists '%s' twice", k->name,
						    config_setting_get_string(e));
				iom_key_format(k, v, shown, sizeof(shown));
				return fail(c, e, "%s lists %s twice", k->name, shown);
			}
		}
		values_push(out, &cap, v);
	}
	return 0;
}

static void values_copy(struct iom_values *dst, const struct iom_values *src)
{
	dst->n = src->n;
	dst->v = xmalloc((src->n ? src->n : 1) * sizeof(*dst->v));
	memcpy(dst->v, src->v, src->n * sizeof(*dst->v));
}

static void values_free(struct iom_values *v)
{
	free(v->v);
	v->v = NULL;
	v->n = 0;
}

static bool values_equal(const struct iom_values *a, const struct iom_values *b)
{
	return a->n == b->n && memcmp(a->v, b->v, a->n * sizeof(*a->v)) == 0;
}

/* The default of a key in its stored form (the table's defaults are tested to parse). */
static int64_t default_of(const struct iom_key *k)
{
	int64_t v = 0;

	if (k->def)
		iom_key_parse_text(k, k->def, &v, NULL, 0);
	return v;
}

enum charset { CS_NAME, CS_TEXT, CS_ANY };

/* A string value: a string of 1..maxlen bytes; CS_NAME allows letters, digits, '.', '_', '-';
 * CS_TEXT anything but control characters; CS_ANY anything but NUL. */
static int read_string(struct ctx *c, const config_setting_t *s, const char *what, size_t maxlen,
		       enum charset cs, char **out)
{
	const char *str;
	char shown[64];
	size_t len;

	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return fail(c, s, "%s must be a string in quotes, not %s", what,
			    config_type_name(config_setting_type(s)));
	str = config_setting_get_string(s);
	len = strlen(str);
	if (len == 0)
		return fail(c, s, "%s is empty", what);
	if (len > maxlen)
		return fail(c, s, "%s '%s' is too long (%zu bytes; at most %zu)", what,
			    shorten(str, shown, sizeof(shown)), len, maxlen);
	for (const unsigned char *p = (const unsigned char *)str; *p; p++) {
		bool ok = cs == CS_ANY ? true
			  : cs == CS_TEXT ? (*p >= 0x20 && *p != 0x7f)
					  : (isalnum(*p) || *p == '.' || *p == '_' || *p == '-');

		if (!ok) {
			if (cs == CS_NAME)
				return fail(c, s, "%s '%s' may only contain letters, digits, '.', "
						  "'_' and '-'", what,
					    shorten(str, shown, sizeof(shown)));
			return fail(c, s, "%s contains a control character", what);
		}
	}
	if (cs == CS_NAME && str[0] == '.')
		return fail(c, s, "%s '%s' may not start with '.'", what,
			    shorten(str, shown, sizeof(shown)));
	*out = xstrdup(str);
	return 0;
}

/* A real value of an IOM_TYPE_FLOAT key: a number, or a string such as "2%"; range-checked. */
static int read_float(struct ctx *c, const struct iom_key *k, const config_setting_t *s, double *x)
{
	char sub[IOM_ERRLEN];

	if (config_setting_is_number(s)) {
		*x = is_int(s) ? (double)config_setting_get_int64(s) : config_setting_get_float(s);
		if (iom_key_check_float(k, *x, sub, sizeof(sub)) < 0)
			return fail(c, s, "%s", sub);
		return 0;
	}
	if (config_setting_type(s) == CONFIG_TYPE_STRING) {
		if (iom_key_parse_float(k, config_setting_get_string(s), x, sub, sizeof(sub)) < 0)
			return fail(c, s, "%s", sub);
		return 0;
	}
	return wrong_type(c, s, k);
}

static enum charset charset_of(enum iom_chars chars)
{
	return chars == IOM_CHARS_NAME ? CS_NAME : chars == IOM_CHARS_ANY ? CS_ANY : CS_TEXT;
}

/*
 * Reads key k (a row with a landing) of the section group g (NULL when the section is absent)
 * into its field of base, the section's struct: a value given by its type, a missing one as its
 * default (a string without a default stays NULL).
 */
static int read_landed(struct ctx *c, const struct iom_key *k, const config_setting_t *g,
		       void *base)
{
	const config_setting_t *s = g ? config_setting_get_member(g, k->name) : NULL;
	char *dst = (char *)base + k->off;
	int64_t v;
	int ret;

	/* issue 18: warmup = "steady" instead of a duration */
	if (k->section == IOM_SEC_TIMING && strcmp(k->name, "warmup") == 0 && s &&
	    config_setting_type(s) == CONFIG_TYPE_STRING &&
	    strcmp(config_setting_get_string(s), "steady") == 0) {
		((struct iom_timing *)base)->warmup_steady = true;
		((struct iom_timing *)base)->warmup_ns = 0;
		return 0;
	}
	if (k->type == IOM_TYPE_STRING) {
		char *str = NULL;

		if (s && (ret = read_string(c, s, k->name, (size_t)k->max, charset_of(k->chars),
					    &str)) < 0)
			return ret;
		if (!s && k->def)
			str = xstrdup(k->def);
		if (str)
			memcpy(dst, &str, sizeof(str));
		return 0;
	}
	if (k->type == IOM_TYPE_FLOAT) {
		double x = 0;

		if (!s)
			iom_key_parse_float(k, k->def, &x, NULL, 0);
		else if ((ret = read_float(c, k, s, &x)) < 0)
			return ret;
		memcpy(dst, &x, sizeof(x));
		return 0;
	}
	if (!s) {
		v = default_of(k);
	} else {
		if ((k->flags & IOM_KEY_INT_ONLY) && !is_int(s))
			return wrong_type(c, s, k);
		if ((ret = read_scalar(c, k, s, &v)) < 0)
			return ret;
	}
	iom_key_store(k, base, v);
	return 0;
}

/* Reads every key of section sec that has a landing, in table order, from group g into base. */
static int read_landed_section(struct ctx *c, enum iom_section sec, const config_setting_t *g,
			       void *base)
{
	int ret;

	for (size_t i = 0; i < iom_nkeys; i++)
		if (iom_keys[i].section == sec && iom_keys[i].size &&
		    (ret = read_landed(c, &iom_keys[i], g, base)) < 0)
			return ret;
	return 0;
}

/* ---- step 4: sections -------------------------------------------------------------------- */

/* Checks every member of group g is a key of section sec. */
static int check_members(struct ctx *c, const config_setting_t *g, enum iom_section sec)
{
	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *e = config_setting_get_elem(g, (unsigned)i);

		if (!iom_key_find(sec, config_setting_name(e)))
			return unknown_key(c, e, sec);
	}
	return 0;
}

/* A group section of the top level, or NULL when absent; an error when it is not a group. */
static int get_group(struct ctx *c, const char *name, const config_setting_t **g)
{
	const config_setting_t *s = config_setting_get_member(config_root_setting(&c->cfg), name);

	*g = NULL;
	if (!s)
		return 0;
	if (config_setting_type(s) != CONFIG_TYPE_GROUP)
		return fail(c, s, "%s must be a group { ... }, not %s", name,
			    config_type_name(config_setting_type(s)));
	*g = s;
	return 0;
}

static int read_workload(struct ctx *c)
{
	struct iom_matrix *m = c->m;
	const config_setting_t *g;
	int ret;

	if ((ret = get_group(c, "workload", &g)) < 0)
		return ret;
	if (g && (ret = check_members(c, g, IOM_SEC_WORKLOAD)) < 0)
		return ret;
	m->workload_line = g ? line_of(g) : 1;
	for (int d = 1; d < IOM_DIM_COUNT; d++) {
		const struct iom_key *k = iom_dim_key((enum iom_dim)d);
		const config_setting_t *s = g ? config_setting_get_member(g, k->name) : NULL;
		bool listed;

		if (s) {
			if ((ret = read_values(c, k, s, &m->workload[d], &listed)) < 0)
				return ret;
			m->listed[d] |= listed;
			c->wl_set[d] = s;
		} else {
			m->workload[d].v = xmalloc(sizeof(int64_t));
			m->workload[d].v[0] = default_of(k);
			m->workload[d].n = 1;
		}
	}
	return 0;
}

static bool is_device_path(const char *path)
{
	return strncmp(path, "/dev/", 5) == 0;
}

/* issue 16c: paths = [ … ] of target idx (t->paths, t->npaths; t->path a copy of the first):
 * not with path or device, not with filesystems, two or more, no path twice, all files or all
 * devices (by the "/dev/" prefix, as size's requirement goes). */
static int read_paths(struct ctx *c, const config_setting_t *g, size_t idx)
{
	struct iom_target *t = &c->m->targets[idx];
	const config_setting_t *s = config_setting_get_member(g, "paths");
	int n, ret;

	if (!s)
		return 0;
	if (config_setting_get_member(g, "path") || config_setting_get_member(g, "device"))
		return fail(c, s, "target '%s' has both paths and %s: give one", t->label,
			    config_setting_get_member(g, "path") ? "path" : "device");
	if (config_setting_get_member(g, "filesystems"))
		return fail(c, s, "target '%s': paths and filesystems do not go together (a "
			    "filesystem is made on one device)", t->label);
	if (config_setting_type(s) != CONFIG_TYPE_ARRAY && config_setting_type(s) != CONFIG_TYPE_LIST)
		return fail(c, s, "paths must be a list such as [ \"a.scratch\", \"b.scratch\" ]");
	n = config_setting_length(s);
	if (n == 0)
		return fail(c, s, "target '%s': paths is empty (give two or more, or path for one)",
			    t->label);
	if (n > MAX_TARGETS)
		return fail(c, s, "target '%s': %d paths, at most %d", t->label, n, MAX_TARGETS);
	t->paths = xcalloc((size_t)n, sizeof(char *));
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);

		if ((ret = read_string(c, e, "a path", MAX_PATH_LEN, CS_TEXT, &t->paths[i])) < 0)
			return ret;
		t->npaths = (size_t)i + 1;
		for (int k = 0; k < i; k++)
			if (strcmp(t->paths[k], t->paths[i]) == 0)
				return fail(c, e, "target '%s': path '%s' is listed twice", t->label,
					    t->paths[i]);
		if (is_device_path(t->paths[i]) != is_device_path(t->paths[0]))
			return fail(c, e, "target '%s' mixes files and devices ('%s' and '%s'): "
				    "give all scratch files or all block devices", t->label,
				    t->paths[0], t->paths[i]);
	}
	t->path = xstrdup(t->paths[0]);
	if (n == 1) { /* one path is path = …; */
		free(t->paths[0]);
		free(t->paths);
		t->paths = NULL;
		t->npaths = 0;
	}
	return 0;
}

/* filesystems = [ … ] of target idx (into c->fs_list[idx]), with its mkfs and mount options
 * (already read). */
static int read_filesystems(struct ctx *c, const config_setting_t *g, size_t idx)
{
	struct iom_target *t = &c->m->targets[idx];
	const config_setting_t *s = config_setting_get_member(g, "filesystems");
	bool any_fs = false;
	char sub[IOM_ERRLEN];
	int n, ret;

	if (!s) {
		if (t->mkfs_options || t->mount_options)
			return fail(c, g, "target '%s' has mkfs or mount options but no filesystems",
				    t->label);
		return 0;
	}
	if (config_setting_type(s) != CONFIG_TYPE_ARRAY && config_setting_type(s) != CONFIG_TYPE_LIST)
		return fail(c, s, "filesystems must be a list such as [ \"ext4\", \"xfs\", \"raw\" ]");
	n = config_setting_length(s);
	if (n == 0)
		return fail(c, s, "filesystems is empty");
	if (!is_device_path(t->path))
		return fail(c, s, "target '%s': filesystems need a block device (device = "
			    "\"/dev/...\"), not '%s'", t->label, t->path);
	if (!t->destructive)
		return fail(c, s, "target '%s': making filesystems destroys what is on '%s'; say "
			    "so with destructive = true", t->label, t->path);
	c->fs_list[idx] = xcalloc((size_t)n + 1, sizeof(char *));
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);

		if ((ret = read_string(c, e, "a filesystem", MAX_LABEL, CS_NAME,
				       &c->fs_list[idx][i])) < 0)
			return ret;
		if (iom_fs_check_type(c->fs_list[idx][i], sub, sizeof(sub)) < 0)
			return fail(c, e, "%s", sub);
		for (int k = 0; k < i; k++)
			if (strcmp(c->fs_list[idx][k], c->fs_list[idx][i]) == 0)
				return fail(c, e, "filesystem '%s' is listed twice",
					    c->fs_list[idx][i]);
		any_fs |= strcmp(c->fs_list[idx][i], "raw") != 0;
	}
	if (any_fs && !t->size)
		return fail(c, g, "target '%s' needs a size: the size of the scratch file on each "
			    "filesystem (e.g. size = \"1G\";)", t->label);
	return 0;
}

/* Frees what is left of the filesystems lists (all of them when the targets were not
 * expanded). */
static void free_fs_lists(struct ctx *c)
{
	for (size_t i = 0; i < c->nfs_list; i++) {
		for (size_t f = 0; c->fs_list[i] && c->fs_list[i][f]; f++)
			free(c->fs_list[i][f]);
		free(c->fs_list[i]);
	}
	free(c->fs_list);
	c->fs_list = NULL;
	c->nfs_list = 0;
}

/* Replaces each target with filesystems by one target per filesystem, "<label>-<fstype>". */
static int expand_filesystems(struct ctx *c, const config_setting_t *s)
{
	struct iom_matrix *m = c->m;
	struct iom_target *nt;
	const config_setting_t *(*ns)[IOM_DIM_COUNT];
	size_t total = 0, k = 0;
	bool any = false;

	for (size_t i = 0; i < m->ntargets; i++) {
		size_t n = 0;

		while (c->fs_list[i] && c->fs_list[i][n])
			n++;
		total += n ? n : 1;
		any = any || c->fs_list[i];
	}
	if (!any) /* a list of one filesystem is expanded too: "d" becomes "d-ext4" */
		return 0;
	if (total > MAX_TARGETS)
		return fail(c, s, "%zu targets with their filesystems: at most %d", total,
			    MAX_TARGETS);
	nt = xcalloc(total, sizeof(*nt));
	ns = xcalloc(total, sizeof(*ns));
	for (size_t i = 0; i < m->ntargets; i++) {
		struct iom_target *t = &m->targets[i];

		if (!c->fs_list[i]) {
			nt[k] = *t;
			memcpy(ns[k++], c->t_set[i], sizeof(ns[0]));
			continue;
		}
		for (size_t f = 0; c->fs_list[i][f]; f++) {
			struct iom_target *x = &nt[k];

			*x = *t;
			x->label = xasprintf("%s-%s", t->label, c->fs_list[i][f]);
			x->path = xstrdup(t->path);
			x->filesystem = xstrdup(c->fs_list[i][f]);
			x->controller = t->controller ? xstrdup(t->controller) : NULL;
			x->fs_type = c->fs_list[i][f];
			x->mkfs_options = t->mkfs_options ? xstrdup(t->mkfs_options) : NULL;
			x->mount_options = t->mount_options ? xstrdup(t->mount_options) : NULL;
			x->hosts = t->nhosts ? xcalloc(t->nhosts, sizeof(*x->hosts)) : NULL;
			for (size_t h = 0; h < t->nhosts; h++) /* many hosts */
				x->hosts[h] = xstrdup(t->hosts[h]);
			memset(&x->dim[IOM_DIM_TARGET], 0, sizeof(x->dim[0])); /* unused */
			for (int d = 1; d < IOM_DIM_COUNT; d++)
				values_copy(&x->dim[d], &t->dim[d]);
			memcpy(ns[k++], c->t_set[i], sizeof(ns[0]));
		}
		free(t->label);
		free(t->path);
		free(t->filesystem);
		free(t->controller);
		free(t->mkfs_options);
		free(t->mount_options);
		for (size_t h = 0; h < t->nhosts; h++)
			free(t->hosts[h]);
		free(t->hosts);
		for (int d = 0; d < IOM_DIM_COUNT; d++)
			values_free(&t->dim[d]);
		free(c->fs_list[i]); /* the names now belong to the new targets */
		c->fs_list[i] = NULL;
	}
	for (size_t i = 0; i < total; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(nt[i].label, nt[j].label) == 0) {
				char label[64];

				snprintf(label, sizeof(label), "%s", nt[i].label);
				free(m->targets);
				m->targets = nt;
				m->ntargets = total;
				free(c->t_set);
				c->t_set = ns;
				return fail(c, s, "two targets are labelled '%s' once their filesystems "
					    "are expanded", label);
			}
	free(m->targets);
	m->targets = nt;
	m->ntargets = total;
	free(c->t_set);
	c->t_set = ns;
	return 0;
}

/* Many hosts: a target's hosts = [ "vm1", "rank:2" ] — short hostnames or rank selectors. */
static int read_target_hosts(struct ctx *c, const config_setting_t *g, size_t idx)
{
	struct iom_target *t = &c->m->targets[idx];
	const config_setting_t *s = config_setting_get_member(g, "hosts");
	int n, type;

	if (!s)
		return 0;
	type = config_setting_type(s);
	if (type != CONFIG_TYPE_ARRAY && type != CONFIG_TYPE_LIST)
		return fail(c, s, "hosts of target '%s' must be a list of short hostnames or "
				  "rank:N selectors, such as [ \"vm1\", \"rank:2\" ], not %s",
			    t->label, config_type_name(type));
	n = config_setting_length(s);
	if (n == 0)
		return fail(c, s, "hosts of target '%s' is an empty list: the target would live "
				  "nowhere", t->label);
	t->hosts_line = line_of(s);
	t->hosts = xcalloc((size_t)n, sizeof(*t->hosts));
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		const char *v;
		char *end;
		int ret;

		if (config_setting_type(e) != CONFIG_TYPE_STRING)
			return fail(c, e, "hosts of target '%s' are strings (a short hostname or "
					  "rank:N), not %s", t->label,
				    config_type_name(config_setting_type(e)));
		v = config_setting_get_string(e);
		if (strncmp(v, "rank:", 5) == 0) {
			long r = strtol(v + 5, &end, 10);

			if (!isdigit((unsigned char)v[5]) || *end || r < 0 || r > 4095)
				return fail(c, e, "hosts of target '%s': '%s' is not a rank selector "
						  "rank:N (N from 0 to 4095)", t->label, v);
		}
		if ((ret = read_string(c, e, "hosts", 63, strncmp(v, "rank:", 5) == 0 ? CS_TEXT :
				       CS_NAME, &t->hosts[i])) < 0)
			return ret;
		t->nhosts = (size_t)i + 1;
	}
	return 0;
}

static int read_target(struct ctx *c, const config_setting_t *g, size_t idx)
{
	struct iom_matrix *m = c->m;
	struct iom_target *t = &m->targets[idx];
	const config_setting_t *s;
	int ret;

	t->line = line_of(g);
	if ((ret = check_members(c, g, IOM_SEC_TARGET)) < 0)
		return ret;
	s = config_setting_get_member(g, "label");
	if (!s)
		return fail(c, g, "target %zu has no label (required: a unique name such as "
				  "label = \"nvme0\";)", idx + 1);
	if ((ret = read_string(c, s, "label", MAX_LABEL, CS_NAME, &t->label)) < 0)
		return ret;
	for (size_t i = 0; i < idx; i++)
		if (strcmp(m->targets[i].label, t->label) == 0)
			return fail(c, s, "duplicate label '%s' (also the label of the target at "
					  "line %d)", t->label, m->targets[i].line);
	if ((ret = read_paths(c, g, idx)) < 0)
		return ret;
	s = config_setting_get_member(g, "path");
	if (!s) /* paths = [ … ], of several or of one (read as path) */
		s = config_setting_get_member(g, "paths");
	if (s && !t->npaths && config_setting_get_member(g, "device"))
		return fail(c, s, "target '%s' has both path and device: give one", t->label);
	if (!s && (s = config_setting_get_member(g, "device"))) {
		if ((ret = read_string(c, s, "device", MAX_PATH_LEN, CS_TEXT, &t->path)) < 0)
			return ret;
		if (!is_device_path(t->path))
			return fail(c, s, "device '%s' is not under /dev/", t->path);
	}
	if (!s)
		return fail(c, g, "target '%s' has no path (required: a scratch file or a block "
				  "device)", t->label);
	if (!t->path && (ret = read_string(c, s, "path", MAX_PATH_LEN, CS_TEXT, &t->path)) < 0)
		return ret;
	for (size_t i = 0; i < idx; i++)
		for (size_t p = 0; p < (t->npaths ? t->npaths : 1); p++)
			for (size_t q = 0; q < (m->targets[i].npaths ? m->targets[i].npaths : 1);
			     q++) {
				const char *a = t->npaths ? t->paths[p] : t->path;
				const char *b = m->targets[i].npaths ? m->targets[i].paths[q]
								     : m->targets[i].path;

				if (strcmp(a, b) == 0)
					return fail(c, s, "target '%s' has the same path as target "
						    "'%s' ('%s')", t->label,
						    m->targets[i].label, a);
			}
	if (!config_setting_get_member(g, "size") && !is_device_path(t->path))
		return fail(c, g, "target '%s' has no size (required for a scratch file, e.g. "
				  "size = \"1G\";)", t->label);
	/* size, filesystem, controller, overwrite, destructive, mkfs and mount options */
	if ((ret = read_landed_section(c, IOM_SEC_TARGET, g, t)) < 0)
		return ret;
	if ((ret = read_filesystems(c, g, idx)) < 0)
		return ret;
	if ((ret = read_target_hosts(c, g, idx)) < 0) /* many hosts */
		return ret;
	for (int d = 1; d < IOM_DIM_COUNT; d++) {
		const struct iom_key *k = iom_dim_key((enum iom_dim)d);
		bool listed;

		s = config_setting_get_member(g, k->name);
		if (!s) {
			values_copy(&t->dim[d], &m->workload[d]);
			continue;
		}
		if ((ret = read_values(c, k, s, &t->dim[d], &listed)) < 0)
			return ret;
		m->listed[d] |= listed;
		c->t_set[idx][d] = s;
	}
	return 0;
}

static int read_targets(struct ctx *c)
{
	struct iom_matrix *m = c->m;
	const config_setting_t *s = config_setting_get_member(config_root_setting(&c->cfg),
							     "targets");
	int n, ret;

	if (!s)
		return fail_line(c, 1, "missing required key 'targets' (a list of targets, e.g. "
				       "targets = ( { label = \"a\"; path = \"a.scratch\"; size = "
				       "\"1G\"; } );)");
	m->targets_line = line_of(s);
	if (config_setting_type(s) == CONFIG_TYPE_GROUP) {
		/* a single target written without the list */
		n = 1;
	} else if (config_setting_type(s) == CONFIG_TYPE_LIST) {
		n = config_setting_length(s);
		if (n == 0)
			return fail(c, s, "targets is empty: give at least one target");
	} else {
		return fail(c, s, "targets must be a list of groups ( { ... }, { ... } ), not %s",
			    config_type_name(config_setting_type(s)));
	}
	if (n > MAX_TARGETS)
		return fail(c, s, "%d targets: at most %d", n, MAX_TARGETS);
	m->targets = xcalloc((size_t)n, sizeof(*m->targets));
	c->t_set = xcalloc((size_t)n, sizeof(*c->t_set));
	c->fs_list = xcalloc((size_t)n, sizeof(*c->fs_list));
	c->nfs_list = (size_t)n;
	for (int i = 0; i < n; i++) {
		const config_setting_t *g = config_setting_type(s) == CONFIG_TYPE_GROUP
						    ? s : config_setting_get_elem(s, (unsigned)i);

		if (config_setting_type(g) != CONFIG_TYPE_GROUP)
			return fail(c, g, "target %d must be a group { label = ...; path = ...; }, "
					  "not %s", i + 1, config_type_name(config_setting_type(g)));
		m->ntargets = (size_t)i + 1;
		if ((ret = read_target(c, g, (size_t)i)) < 0)
			return ret;
	}
	if ((ret = expand_filesystems(c, s)) < 0)
		return ret;
	if (m->ntargets > 1)
		m->listed[IOM_DIM_TARGET] = true;
	/* A key set differently by targets varies across the plan: a dimension too. */
	for (int d = 1; d < IOM_DIM_COUNT; d++)
		for (size_t i = 1; i < m->ntargets; i++)
			if (!values_equal(&m->targets[i].dim[d], &m->targets[0].dim[d]))
				m->listed[d] = true;
	return 0;
}

/* issue 18: timing.steady ("iops 2% 10s", "iops_slope 0.5% 10s") and timing.warmup_max, for
 * warmup = "steady" only. */
static int read_steady(struct ctx *c, const config_setting_t *g)
{
	struct iom_timing *tm = &c->m->timing;
	const config_setting_t *ss = config_setting_get_member(g, "steady");
	const config_setting_t *sx = config_setting_get_member(g, "warmup_max");
	char *text = NULL, word[16], pct[16], win[24], extra[8], e[IOM_ERRLEN];
	double x = -1;
	uint64_t ns = 0;
	int ret, n;

	if (!tm->warmup_steady) {
		if (ss || sx)
			return fail(c, ss ? ss : sx, "timing.%s is for warmup = \"steady\"",
				    ss ? "steady" : "warmup_max");
		return 0;
	}
	if (ss && (ret = read_string(c, ss, "steady", 48, charset_of(IOM_CHARS_TEXT), &text)) < 0)
		return ret;
	n = sscanf(text ? text : "iops 2% 10s", "%15s %15s %23s %7s", word, pct, win, extra);
	if (n == 3 && (strcmp(word, "iops") == 0 || strcmp(word, "iops_slope") == 0)) {
		const char *end;

		if (iom_decimal_parse(pct, &x, &end) < 0 || strcmp(end, "%") != 0 ||
		    !(x > 0 && x <= 100))
			x = -1;
		if (iom_duration_parse(win, &ns, e, sizeof(e)) < 0 || ns < 2000000000ull ||
		    ns > 3600000000000ull)
			x = -1;
	}
	if (x < 0) {
		ret = fail(c, ss, "timing.steady '%s' is not \"iops PCT%% WINDOW\" or \"iops_slope "
				  "PCT%% WINDOW\" (0 < PCT ≤ 100, a window of 2s to 1h: \"iops 2%% "
				  "10s\")", text);
		free(text);
		return ret;
	}
	tm->steady_slope = strcmp(word, "iops_slope") == 0;
	tm->steady_pct = x;
	tm->steady_window_ns = ns;
	free(text);
	if (tm->warmup_max_ns < tm->steady_window_ns)
		return fail(c, sx ? sx : g, "timing.warmup_max is shorter than the steady-state "
					    "window: steady state could never be seen");
	return 0;
}

/* issue 18: timing.repeat_max and timing.until, checked against repeat and the shuffle. */
static int read_adaptive(struct ctx *c, const config_setting_t *g)
{
	struct iom_timing *tm = &c->m->timing;
	const config_setting_t *su = config_setting_get_member(g, "until");
	const config_setting_t *sm = config_setting_get_member(g, "repeat_max");
	char *until = NULL;
	int ret;

	if (su && (ret = read_string(c, su, "until", 32, charset_of(IOM_CHARS_TEXT), &until)) < 0)
		return ret;
	if (tm->repeat_max && tm->repeat_max <= tm->repeat) {
		free(until);
		return fail(c, sm, "timing.repeat_max %" PRIu32 " is not above repeat %" PRIu32
				   ": it is the most repetitions a cell may get", tm->repeat_max,
			    tm->repeat);
	}
	if (su && !tm->repeat_max) {
		free(until);
		return fail(c, su, "timing.until needs timing.repeat_max (above repeat): it says "
				   "when a cell has had enough rounds");
	}
	if (tm->repeat_max && c->m->shuffle) {
		free(until);
		return fail(c, sm, "timing.repeat_max needs the rounds in order: it does not go "
				   "with shuffle");
	}
	if ((ret = read_steady(c, g)) < 0) {
		free(until);
		return ret;
	}
	tm->until_ci_pct = 0;
	if (until && strcmp(until, "settled") != 0) {
		const char *dend;
		double x = -1;

		if (strncmp(until, "ci ", 3) == 0 &&
		    (iom_decimal_parse(until + 3, &x, &dend) < 0 || strcmp(dend, "%") != 0))
			x = -1;
		if (!(x > 0 && x <= 100)) {
			ret = fail(c, su, "timing.until '%s' is not \"ci PCT%%\" (the 95 %% "
					  "confidence interval of IOPS within ± PCT %% of the mean, "
					  "0 < PCT ≤ 100) or \"settled\"", until);
			free(until);
			return ret;
		}
		tm->until_ci_pct = x;
	}
	free(until);
	return 0;
}

static int read_timing(struct ctx *c)
{
	struct iom_timing *tm = &c->m->timing;
	const config_setting_t *g, *sd, *sb;
	int ret;

	if ((ret = get_group(c, "timing", &g)) < 0)
		return ret;
	if (!g)
		return fail_line(c, 1, "missing required key 'timing' (at least timing = { "
				       "duration = \"10s\"; }; or bytes = \"256M\")");
	c->m->timing_line = line_of(g);
	if ((ret = check_members(c, g, IOM_SEC_TIMING)) < 0)
		return ret;
	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *e = config_setting_get_elem(g, (unsigned)i);

		if (config_setting_is_aggregate(e))
			return fail(c, e, "timing.%s must be a single value (only workload keys "
					  "can be lists)", config_setting_name(e));
	}
	if ((ret = read_landed_section(c, IOM_SEC_TIMING, g, tm)) < 0)
		return ret;
	sd = config_setting_get_member(g, "duration");
	sb = config_setting_get_member(g, "bytes");
	if (sd && sb)
		return fail(c, config_setting_index(sd) > config_setting_index(sb) ? sd : sb,
			    "timing has both duration and bytes: give exactly one (a measured "
			    "window of time, or of I/O)");
	if (!sd && !sb)
		return fail(c, g, "timing needs duration or bytes (a measured window of time, "
				  "or of I/O)");
	return read_adaptive(c, g);
}

static int read_report(struct ctx *c)
{
	struct iom_report_opts *r = &c->m->report;
	const config_setting_t *g;
	int ret;

	if ((ret = get_group(c, "report", &g)) < 0)
		return ret;
	if (g && (ret = check_members(c, g, IOM_SEC_REPORT)) < 0)
		return ret;
	return read_landed_section(c, IOM_SEC_REPORT, g, r);
}

/* precondition = { pattern = "sequential"; bytes = "2x"; } (bytes: a multiple of the region or
 * a size; a bare string is taken as the bytes). */
static int read_precondition(struct ctx *c, const config_setting_t *s, struct iom_hooks *h)
{
	const config_setting_t *b = s, *pat;
	char sub[IOM_ERRLEN];
	uint64_t bytes;
	int ret;

	if (config_setting_type(s) == CONFIG_TYPE_GROUP) {
		for (int i = 0; i < config_setting_length(s); i++) {
			const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
			const char *n = config_setting_name(e);

			if (strcmp(n, "pattern") != 0 && strcmp(n, "bytes") != 0)
				return fail(c, e, "unknown key '%s' in hooks.precondition (pattern, "
					    "bytes)", n);
		}
		pat = config_setting_get_member(s, "pattern");
		if (pat && (config_setting_type(pat) != CONFIG_TYPE_STRING ||
			    strcmp(config_setting_get_string(pat), "sequential") != 0))
			return fail(c, pat, "hooks.precondition.pattern must be \"sequential\" "
				    "(the only pattern a precondition writes)");
		b = config_setting_get_member(s, "bytes");
		if (!b)
			return fail(c, s, "hooks.precondition needs bytes, e.g. bytes = \"2x\" (twice "
				    "the region) or \"64G\"");
	}
	if (is_int(b)) {
		char num[32];

		snprintf(num, sizeof(num), "%lld", (long long)config_setting_get_int64(b));
		h->precondition = xstrdup(num);
	} else if (config_setting_type(b) == CONFIG_TYPE_STRING) {
		h->precondition = xstrdup(config_setting_get_string(b));
	} else {
		return fail(c, b, "hooks.precondition bytes must be a string such as \"2x\" or "
			    "\"64G\"");
	}
	/* the multiple is checked against a region of 1 GiB: the real region comes later */
	ret = iom_precondition_bytes(h->precondition, 1ull << 30, &bytes, sub, sizeof(sub));
	if (ret < 0)
		return fail(c, b, "hooks.precondition: %s", sub);
	return 0;
}

static int read_hooks(struct ctx *c)
{
	struct iom_hooks *h = &c->m->hooks;
	const config_setting_t *g;
	struct {
		const char *name;
		char **dst;
	} fields[] = {
		{ "before_study", &h->before_study }, { "before_target", &h->before_target },
		{ "before_run", &h->before_run },     { "after_run", &h->after_run },
		{ "after_target", &h->after_target }, { "after_study", &h->after_study },
	};
	const config_setting_t *s;
	int ret;

	if ((ret = get_group(c, "hooks", &g)) < 0 || !g)
		return ret;
	h->line = line_of(g);
	if ((ret = check_members(c, g, IOM_SEC_HOOKS)) < 0)
		return ret;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(fields); i++) {
		char sub[IOM_ERRLEN];

		s = config_setting_get_member(g, fields[i].name);
		if (s && (ret = read_string(c, s, fields[i].name, MAX_HOOK, CS_ANY,
					    fields[i].dst)) < 0)
			return ret;
		if (s && iom_hook_check((enum iom_hook_point)i, *fields[i].dst, sub,
					sizeof(sub)) < 0)
			return fail(c, s, "hooks.%s: %s", fields[i].name, sub);
	}
	/* the built-ins drop_caches, fstrim */
	if ((ret = read_landed_section(c, IOM_SEC_HOOKS, g, h)) < 0)
		return ret;
	s = config_setting_get_member(g, "precondition");
	if (s)
		return read_precondition(c, s, h);
	return 0;
}

/* reap_wait: a number of completions (8, "8") into *count, or a fraction of the I/Os in flight
 * ("1/4") into *div, the other 0; "adaptive" (the adaptive wait, worker.h): both 0. */
static int parse_reap_wait(const char *text, unsigned *count, unsigned *div)
{
	unsigned *dst = count;
	unsigned long n;
	char *end;

	*count = *div = 0;
	if (strcmp(text, "adaptive") == 0)
		return 0;
	if (strncmp(text, "1/", 2) == 0) {
		text += 2;
		dst = div;
	}
	if (!isdigit((unsigned char)text[0]))
		return -1;
	n = strtoul(text, &end, 10);
	if (*end || n < 1 || n > 65536)
		return -1;
	*dst = (unsigned)n;
	return 0;
}

static int read_reap_wait(struct ctx *c, const config_setting_t *s)
{
	struct iom_matrix *m = c->m;
	char text[32], shown[64];
	const char *str;

	if (!s)
		return parse_reap_wait(iom_key_find(IOM_SEC_IO_URING, "reap_wait")->def,
				       &m->reap_wait, &m->reap_wait_div);
	if (is_int(s)) {
		snprintf(text, sizeof(text), "%lld", (long long)config_setting_get_int64(s));
		str = text;
	} else if (config_setting_type(s) == CONFIG_TYPE_STRING) {
		str = config_setting_get_string(s);
	} else {
		return fail(c, s, "reap_wait must be a number of completions (8) or a fraction of "
				  "the I/Os in flight (\"1/4\") or \"adaptive\", not %s",
			    config_type_name(config_setting_type(s)));
	}
	if (parse_reap_wait(str, &m->reap_wait, &m->reap_wait_div) < 0) {
		shorten(str, shown, sizeof(shown));
		return fail(c, s, "reap_wait '%s' is neither a number of completions from 1 to "
				  "65536 (8) nor a fraction \"1/N\" of the I/Os in flight with N "
				  "from 1 to 65536 (\"1/4\") nor \"adaptive\"", shown);
	}
	return 0;
}

/*
 * The io_uring engine's keys, io_uring = { submit_batch; reap_wait; sqpoll; iopoll; }; and
 * submit_batch and reap_wait at the top level, their old place, still read with a note in
 * m->notes (set in both places, they are an error).
 */
static int read_io_uring(struct ctx *c)
{
	static const char *const moved[] = { "submit_batch", "reap_wait" };
	const config_setting_t *root = config_root_setting(&c->cfg), *g, *s;
	struct iom_matrix *m = c->m;
	const struct {
		const char *name;
		bool *dst;
	} flags[] = { { "sqpoll", &m->sqpoll }, { "iopoll", &m->iopoll } };
	const struct iom_key *k;
	int64_t v;
	int ret;

	if ((ret = get_group(c, "io_uring", &g)) < 0)
		return ret;
	if (g && (ret = check_members(c, g, IOM_SEC_IO_URING)) < 0)
		return ret;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(moved); i++) {
		const config_setting_t *old = config_setting_get_member(root, moved[i]);
		const config_setting_t *now = g ? config_setting_get_member(g, moved[i]) : NULL;
		char *notes;

		if (old && now)
			return fail(c, old, "'%s' is set twice: here at the top level (its old "
					    "place) and as io_uring.%s on line %d; keep io_uring.%s",
				    moved[i], moved[i], line_of(now), moved[i]);
		if (!old)
			continue;
		notes = xasprintf("%s%s:%d: warning: '%s' at the top level is now io_uring.%s\n",
				  m->notes ? m->notes : "", c->file, line_of(old), moved[i],
				  moved[i]);
		free(m->notes);
		m->notes = notes;
	}

	k = iom_key_find(IOM_SEC_IO_URING, "submit_batch");
	m->submit_batch = (unsigned)default_of(k);
	s = g ? config_setting_get_member(g, "submit_batch") : NULL;
	if (!s)
		s = config_setting_get_member(root, "submit_batch");
	if (s) {
		if ((ret = read_scalar(c, k, s, &v)) < 0)
			return ret;
		m->submit_batch = (unsigned)v;
	}
	s = g ? config_setting_get_member(g, "reap_wait") : NULL;
	if ((ret = read_reap_wait(c, s ? s : config_setting_get_member(root, "reap_wait"))) < 0)
		return ret;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(flags); i++) {
		k = iom_key_find(IOM_SEC_IO_URING, flags[i].name);
		*flags[i].dst = default_of(k) != 0;
		s = g ? config_setting_get_member(g, flags[i].name) : NULL;
		if (s && (ret = read_scalar(c, k, s, &v)) < 0)
			return ret;
		if (s)
			*flags[i].dst = v != 0;
	}
	return 0;
}

/* The top-level scalars that are not plain: shuffle (a seed that also turns the shuffle on) and
 * cpus (a CPU list). Other keys without a landing are read by their own step (submit_batch and
 * reap_wait, the old spelling, by read_io_uring()); 0 for them. */
/* ---- issue 16a: access specifications ---------------------------------------------------- */

static const char *const line_keys[] = { "share", "block_size", "read_pct", "random_pct", "align" };

/* One line { share = N; block_size = …; … } of access spec `name` into l. */
static int read_access_line(struct ctx *c, const char *name, const config_setting_t *g,
			    struct iom_access_line *l)
{
	int64_t *dst[] = { NULL, &l->block_size, &l->read_pct, &l->random_pct, &l->align };
	const config_setting_t *sh;

	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return fail(c, g, "a line of access spec '%s' must be a group { share = N; ... }, "
				  "not %s", name, config_type_name(config_setting_type(g)));
	*l = (struct iom_access_line){ .block_size = IOM_ACCESS_INHERIT,
				       .read_pct = IOM_ACCESS_INHERIT,
				       .random_pct = IOM_ACCESS_INHERIT,
				       .align = IOM_ACCESS_INHERIT, .line = line_of(g) };
	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *e = config_setting_get_elem(g, (unsigned)i);
		size_t j;

		for (j = 0; j < IOM_ARRAY_SIZE(line_keys); j++)
			if (strcmp(config_setting_name(e), line_keys[j]) == 0)
				break;
		if (j == IOM_ARRAY_SIZE(line_keys))
			return fail(c, e, "unknown key '%s' in a line of access spec '%s' (a line "
					  "takes share, block_size, read_pct, random_pct, align)",
				    config_setting_name(e), name);
		if (j > 0) {
			int ret = read_scalar(c, iom_key_find(IOM_SEC_WORKLOAD, line_keys[j]), e,
					      dst[j]);

			if (ret < 0)
				return ret;
		}
	}
	sh = config_setting_get_member(g, "share");
	if (!sh)
		return fail(c, g, "a line of access spec '%s' needs its share (share = 1 to 100, "
				  "the %% of the I/Os)", name);
	if (!is_int(sh) || config_setting_get_int64(sh) < 1 || config_setting_get_int64(sh) > 100)
		return fail(c, sh, "share must be a whole number from 1 to 100 (the %% of the I/Os "
				   "of access spec '%s')", name);
	l->share = (uint32_t)config_setting_get_int64(sh);
	return 0;
}

static int read_access_specs(struct ctx *c, const config_setting_t *s)
{
	struct iom_matrix *m = c->m;

	if (config_setting_type(s) != CONFIG_TYPE_GROUP)
		return fail(c, s, "access_specs must be a group { NAME = ( { share = N; ... }, ... "
				  "); }, not %s", config_type_name(config_setting_type(s)));
	m->access_specs = xcalloc((size_t)config_setting_length(s) + 1, sizeof(*m->access_specs));
	for (int i = 0; i < config_setting_length(s); i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		struct iom_access_spec *a = &m->access_specs[m->naccess_specs++];
		const char *name = config_setting_name(e);
		unsigned sum = 0;
		int n;

		a->name = xstrdup(name);
		a->line = line_of(e);
		if (strlen(name) > MAX_LABEL || strcmp(name, "none") == 0)
			return fail(c, e, "access spec name '%s' is %s", name,
				    strcmp(name, "none") == 0 ? "reserved (access = \"none\" is no "
								"spec)"
							      : "too long");
		if (config_setting_type(e) != CONFIG_TYPE_LIST)
			return fail(c, e, "access spec '%s' must be a list of lines ( { share = N; "
					  "... }, ... ), not %s", name,
				    config_type_name(config_setting_type(e)));
		n = config_setting_length(e);
		if (n < 1 || n > IOM_ACCESS_MAX_LINES)
			return fail(c, e, "access spec '%s' has %d lines (1 to %d)", name, n,
				    IOM_ACCESS_MAX_LINES);
		a->lines = xcalloc((size_t)n, sizeof(*a->lines));
		for (int j = 0; j < n; j++) {
			int ret = read_access_line(c, name, config_setting_get_elem(e, (unsigned)j),
						   &a->lines[j]);

			if (ret < 0)
				return ret;
			a->nlines++;
			sum += a->lines[j].share;
		}
		if (sum != 100)
			return fail(c, e, "the shares of access spec '%s' add up to %u, not 100", name,
				    sum);
	}
	return 0;
}

static int read_access_name(struct ctx *c, const config_setting_t *s, int64_t *v)
{
	const struct iom_matrix *m = c->m;
	const char *name = config_setting_get_string(s);
	char names[256] = "";
	size_t off = 0;

	if (strcmp(name, "none") == 0) {
		*v = 0;
		return 0;
	}
	for (size_t i = 0; i < m->naccess_specs; i++) {
		if (strcmp(m->access_specs[i].name, name) == 0) {
			*v = (int64_t)i + 1;
			return 0;
		}
		if (off < sizeof(names))
			off += (size_t)snprintf(names + off, sizeof(names) - off, "%s'%s'",
						i ? ", " : "", m->access_specs[i].name);
	}
	if (!m->naccess_specs)
		return fail(c, s, "access '%s': the matrix has no access_specs", name);
	return fail(c, s, "access '%s' is not one of access_specs (%s)", name, names);
}

static int read_top_special(struct ctx *c, const struct iom_key *k, const config_setting_t *s)
{
	struct iom_matrix *m = c->m;
	int64_t v;
	int ret;

	if (strcmp(k->name, "shuffle") == 0 && s) {
		if (!is_int(s))
			return fail(c, s, "shuffle must be a seed (a whole number such as "
					  "shuffle = 7;), not %s",
				    config_type_name(config_setting_type(s)));
		if ((ret = read_scalar(c, k, s, &v)) < 0)
			return ret;
		m->shuffle = true;
		m->shuffle_seed = (uint64_t)v;
	} else if (strcmp(k->name, "access_specs") == 0 && s) {
		return read_access_specs(c, s);
	} else if (strcmp(k->name, "cpus") == 0 && s) {
		char *list = NULL, why[IOM_ERRLEN];

		if ((ret = read_string(c, s, "cpus", MAX_TEXT, CS_TEXT, &list)) < 0)
			return ret;
		ret = iom_cpulist_parse(list, &m->cpus, &m->ncpus, why, sizeof(why));
		free(list);
		if (ret < 0)
			return fail(c, s, "cpus: %s", why);
	}
	return 0;
}

/* The scalars of the top level, in table order: the plain ones by their landing (name,
 * description, seed, repeat_order, trace), the others by name. */
static int read_top_scalars(struct ctx *c)
{
	const config_setting_t *root = config_root_setting(&c->cfg);
	int ret;

	for (size_t i = 0; i < iom_nkeys; i++) {
		const struct iom_key *k = &iom_keys[i];

		if (k->section != IOM_SEC_TOP)
			continue;
		ret = k->size ? read_landed(c, k, root, c->m)
			      : read_top_special(c, k, config_setting_get_member(root, k->name));
		if (ret < 0)
			return ret;
	}
	return read_io_uring(c);
}

/* Whether dimension d has more than one value somewhere (or was set from the command line). */
static bool is_dimension(const struct ctx *c, int d)
{
	return d == IOM_DIM_TARGET || c->m->listed[d] || c->overridden[d] ||
	       (d == IOM_DIM_HOST && c->m->placement == IOM_PLACE_EACH); /* of every rank */
}

/* A dimension named by a string setting; an error names the closest dimension. */
static int read_dim_name(struct ctx *c, const config_setting_t *s, const char *what, int *dim)
{
	const char *name, *near;
	char shown[64];
	int d;

	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return fail(c, s, "%s must name dimensions as strings, such as \"block_size\", not "
				  "%s", what, config_type_name(config_setting_type(s)));
	name = config_setting_get_string(s);
	d = iom_dim_from_name(name);
	if (d >= 0) {
		*dim = d;
		return 0;
	}
	shorten(name, shown, sizeof(shown));
	{
		const char *names[IOM_DIM_COUNT];

		for (int i = 0; i < IOM_DIM_COUNT; i++)
			names[i] = iom_dim_name((enum iom_dim)i);
		near = iom_closest(name, names, IOM_DIM_COUNT);
	}
	if (near)
		return fail(c, s, "unknown dimension '%s' in %s (did you mean '%s'?)", shown, what,
			    near);
	return fail(c, s, "unknown dimension '%s' in %s (dimensions: target, block_size, "
			  "queue_depth, threads, read_pct, pattern, engine, direct)", shown, what);
}

static int read_order(struct ctx *c)
{
	struct iom_matrix *m = c->m;
	const config_setting_t *root = config_root_setting(&c->cfg), *s;
	bool named[IOM_DIM_COUNT] = { false };
	size_t n = 0;
	int ret, d;

	s = config_setting_get_member(root, "order");
	if (s) {
		int type = config_setting_type(s);
		int len = type == CONFIG_TYPE_STRING ? 1 : config_setting_length(s);

		if (type != CONFIG_TYPE_STRING && type != CONFIG_TYPE_ARRAY &&
		    type != CONFIG_TYPE_LIST)
			return wrong_type(c, s, top_key("order"));
		if (len == 0)
			return fail(c, s, "order is an empty list: name dimensions, outermost "
					  "first, or leave order out");
		for (int i = 0; i < len; i++) {
			const config_setting_t *e = type == CONFIG_TYPE_STRING
							    ? s : config_setting_get_elem(s, (unsigned)i);

			if ((ret = read_dim_name(c, e, "order", &d)) < 0)
				return ret;
			if (named[d])
				return fail(c, e, "order names '%s' twice", iom_dim_name(d));
			if (!is_dimension(c, d))
				return fail(c, e, "order names '%s', which is not a dimension here "
						  "(it has a single value; give a list to make it "
						  "one)", iom_dim_name(d));
			named[d] = true;
			m->order[n++] = (enum iom_dim)d;
		}
	}
	/* The rest in file order (first line where the key appears), then in table order. */
	while (n < IOM_DIM_COUNT) {
		int best = -1;

		for (d = 0; d < IOM_DIM_COUNT; d++)
			if (!named[d] && (best < 0 || c->dim_line[d] < c->dim_line[best]))
				best = d;
		named[best] = true;
		m->order[n++] = (enum iom_dim)best;
	}

	m->compare = IOM_DIM_TARGET;
	s = config_setting_get_member(root, "compare");
	if (s) {
		if ((ret = read_dim_name(c, s, "compare", &d)) < 0)
			return ret;
		m->compare = (enum iom_dim)d;
	}
	return 0;
}

static int read_excludes(struct ctx *c)
{
	struct iom_matrix *m = c->m;
	const config_setting_t *s = config_setting_get_member(config_root_setting(&c->cfg),
							     "exclude");
	int n, ret;

	m->exclude_line = s ? line_of(s) : 1;
	if (!s)
		return 0;
	if (config_setting_type(s) == CONFIG_TYPE_GROUP)
		n = 1;
	else if (config_setting_type(s) == CONFIG_TYPE_LIST)
		n = config_setting_length(s);
	else
		return fail(c, s, "exclude must be a list of conditions ( { threads = 8; "
				  "queue_depth = 64; }, ... ), not %s",
			    config_type_name(config_setting_type(s)));
	if (n > MAX_EXCLUDES)
		return fail(c, s, "%d exclude conditions: at most %d", n, MAX_EXCLUDES);
	m->excludes = xcalloc((size_t)(n ? n : 1), sizeof(*m->excludes));
	for (int i = 0; i < n; i++) {
		const config_setting_t *g = config_setting_type(s) == CONFIG_TYPE_GROUP
						    ? s : config_setting_get_elem(s, (unsigned)i);
		struct iom_exclude *x = &m->excludes[i];

		m->nexcludes = (size_t)i + 1;
		x->line = line_of(g);
		if (config_setting_type(g) != CONFIG_TYPE_GROUP)
			return fail(c, g, "an exclude condition must be a group such as { threads = "
					  "8; queue_depth = 64; }, not %s",
				    config_type_name(config_setting_type(g)));
		if (config_setting_length(g) == 0)
			return fail(c, g, "an empty exclude condition would drop every cell");
		if ((ret = check_members(c, g, IOM_SEC_EXCLUDE)) < 0)
			return ret;
		for (int j = 0; j < config_setting_length(g); j++) {
			const config_setting_t *e = config_setting_get_elem(g, (unsigned)j);
			const struct iom_key *k = iom_key_find(IOM_SEC_EXCLUDE,
							       config_setting_name(e));
			bool listed;

			if (k->dim != IOM_DIM_TARGET) {
				if ((ret = read_values(c, k, e, &x->dim[k->dim], &listed)) < 0)
					return ret;
				continue;
			}
			/* target: a label or a list of labels */
			int len = config_setting_type(e) == CONFIG_TYPE_STRING
					  ? 1 : config_setting_length(e);

			if (config_setting_type(e) != CONFIG_TYPE_STRING &&
			    config_setting_type(e) != CONFIG_TYPE_ARRAY &&
			    config_setting_type(e) != CONFIG_TYPE_LIST)
				return fail(c, e, "target in an exclude condition must be a label "
						  "or a list of labels, not %s",
					    config_type_name(config_setting_type(e)));
			if (len == 0)
				return fail(c, e, "target is an empty list");
			x->dim[IOM_DIM_TARGET].v = xcalloc((size_t)len, sizeof(int64_t));
			for (int l = 0; l < len; l++) {
				const config_setting_t *le = config_setting_type(e) ==
								     CONFIG_TYPE_STRING
							     ? e : config_setting_get_elem(e, (unsigned)l);
				char shown[64];
				int ti;

				if (config_setting_type(le) != CONFIG_TYPE_STRING)
					return fail(c, le, "target labels are strings, not %s",
						    config_type_name(config_setting_type(le)));
				ti = iom_matrix_target_index(m, config_setting_get_string(le));
				if (ti < 0)
					return fail(c, le, "exclude names target '%s', which is not "
							   "the label of a target",
						    shorten(config_setting_get_string(le), shown,
							    sizeof(shown)));
				x->dim[IOM_DIM_TARGET].v[x->dim[IOM_DIM_TARGET].n++] = ti;
			}
		}
	}
	return 0;
}

bool iom_matrix_dim_shown(const struct iom_matrix *m, enum iom_dim d)
{
	const struct iom_key *k = d == IOM_DIM_TARGET ? NULL : iom_dim_key(d);
	int64_t def = 0;

	if (!k || !(k->flags & IOM_KEY_SPARSE))
		return true;
	if (k->def)
		iom_key_parse_text(k, k->def, &def, NULL, 0);
	for (size_t t = 0; t < m->ntargets; t++)
		for (size_t j = 0; j < m->targets[t].dim[d].n; j++)
			if (m->targets[t].dim[d].v[j] != def)
				return true;
	return false;
}

/* Where a dimension of target i was given (its own key, or the workload's). */
static const config_setting_t *dim_where(const struct ctx *c, size_t i, int d)
{
	return c->t_set[i][d] ? c->t_set[i][d] : c->wl_set[d];
}

/* The offered load of target i (issue 17): a rate needs a duration-bound window (a bytes-bound
 * one ends when the bytes are done, which a rate only stretches), and rate_iops and rate_mb_s
 * are one rate said two ways. */
static int load_checks(struct ctx *c, size_t i, const config_setting_t *sb)
{
	const struct iom_target *t = &c->m->targets[i];
	const struct iom_values *ri = &t->dim[IOM_DIM_RATE_IOPS], *rb = &t->dim[IOM_DIM_RATE_MB_S];
	bool iops = false, mbs = false;

	for (int r = 0; r < 2; r++) {
		const struct iom_values *rv = r ? rb : ri;
		bool share = false, max = false;

		for (size_t j = 0; j < rv->n; j++) {
			share |= IOM_RATE_IS_SHARE(rv->v[j]);
			max |= rv->v[j] == IOM_RATE_MAX;
		}
		if (share && !max)
			return fail(c, dim_where(c, i, r ? IOM_DIM_RATE_MB_S : IOM_DIM_RATE_IOPS),
				    "%s has shares of the cell's maximum but no \"max\" (target "
				    "'%s'): list \"max\" first, e.g. [ \"max\", \"50%%\" ]",
				    r ? "rate_mb_s" : "rate_iops", t->label);
		if (share && c->m->shuffle)
			return fail(c, dim_where(c, i, r ? IOM_DIM_RATE_MB_S : IOM_DIM_RATE_IOPS),
				    "%s has shares of the cell's maximum (target '%s'), which its "
				    "\"max\" run measures before them, and shuffle puts the runs in a "
				    "random order, so a share could run first: leave shuffle out, or "
				    "give the rates as numbers", r ? "rate_mb_s" : "rate_iops",
				    t->label);
	}
	for (size_t j = 0; j < ri->n; j++)
		iops |= ri->v[j] != IOM_RATE_NONE;
	for (size_t j = 0; j < rb->n; j++)
		mbs |= rb->v[j] != IOM_RATE_NONE;
	if (iops && mbs)
		return fail(c, dim_where(c, i, IOM_DIM_RATE_MB_S),
			    "rate_mb_s and rate_iops are both given (target '%s'): give the "
			    "offered load one way", t->label);
	for (size_t j = 0; (iops || mbs) && j < t->dim[IOM_DIM_THINK_TIME].n; j++)
		if (t->dim[IOM_DIM_THINK_TIME].v[j])
			return fail(c, dim_where(c, i, IOM_DIM_THINK_TIME),
				    "think_time pauses a closed loop, and %s makes an open one "
				    "(target '%s'): give one of them", iops ? "rate_iops" : "rate_mb_s",
				    t->label);
	if (!iops && !mbs && dim_where(c, i, IOM_DIM_PACE_TICK))
		return fail(c, dim_where(c, i, IOM_DIM_PACE_TICK),
			    "pace_tick sets how a paced run wakes up, but target '%s' has no "
			    "rate_iops or rate_mb_s: give a rate, or leave pace_tick out", t->label);
	if ((iops || mbs) && c->m->timing.bytes)
		return fail(c, dim_where(c, i, iops ? IOM_DIM_RATE_IOPS : IOM_DIM_RATE_MB_S),
			    "%s paces a run, but timing.bytes%s ends it after a number of bytes: a "
			    "rate only makes it longer; give timing.duration with a rate",
			    iops ? "rate_iops" : "rate_mb_s", sb ? "" : " (set)");
	return 0;
}

/* Checks across keys: direct I/O alignment, block size against target size and bytes. */
/* Whether a cell with access spec a (0: none) and workload read_pct rp does reads only. */
static bool access_reads_only(const struct iom_matrix *m, int64_t a, int64_t rp)
{
	if (a <= 0 || (size_t)a > m->naccess_specs)
		return rp == 100;
	for (size_t l = 0; l < m->access_specs[a - 1].nlines; l++) {
		int64_t r = m->access_specs[a - 1].lines[l].read_pct;

		if ((r == IOM_ACCESS_INHERIT ? rp : r) < 100)
			return false;
	}
	return true;
}

/*
 * Every zone of a zoned distribution holds a block of the target's region, for each block
 * size and alignment of target i's random cells (as the workers build the distribution's
 * table: (region - block) / alignment + 1 offsets); a target without a size is checked when
 * it runs.
 */
static int zones_fit(struct ctx *c, size_t i)
{
	const struct iom_target *t = &c->m->targets[i];
	const struct iom_values *dv = &t->dim[IOM_DIM_DISTRIBUTION];
	const struct iom_values *bs = &t->dim[IOM_DIM_BLOCK_SIZE], *al = &t->dim[IOM_DIM_ALIGN];
	const struct iom_values *pt = &t->dim[IOM_DIM_PATTERN];
	bool random = false;
	char e[IOM_ERRLEN], dtext[64], btext[32], stext[32];

	for (size_t j = 0; j < pt->n; j++)
		random |= pt->v[j] == IOM_PATTERN_RANDOM;
	if (!random || t->size == 0)
		return 0;
	for (size_t d = 0; d < dv->n; d++)
		for (size_t b = 0; b < bs->n; b++)
			for (size_t a = 0; a < (al->n ? al->n : 1); a++) {
				uint64_t bsz = (uint64_t)bs->v[b];
				uint64_t align = al->n && al->v[a] ? (uint64_t)al->v[a] : bsz;

				if (bsz == 0 || align == 0 || t->size < bsz ||
				    iom_dist_fits(dv->v[d], (t->size - bsz) / align + 1, e,
						  sizeof(e)) == 0)
					continue;
				iom_dist_format(dv->v[d], dtext, sizeof(dtext));
				iom_size_format(bsz, btext, sizeof(btext));
				iom_size_format(t->size, stext, sizeof(stext));
				return fail(c, dim_where(c, i, IOM_DIM_DISTRIBUTION),
					    "distribution '%s' with block_size %s on target '%s' "
					    "(size %s): %s; give that zone more of the region, or "
					    "use smaller blocks", dtext, btext, t->label, stext, e);
			}
	return 0;
}

static int cross_checks(struct ctx *c)
{
	struct iom_matrix *m = c->m;
	const config_setting_t *sb = NULL;
	char a[32], b[32];
	int ret;

	if (config_setting_get_member(config_root_setting(&c->cfg), "timing"))
		sb = config_setting_get_member(
			config_setting_get_member(config_root_setting(&c->cfg), "timing"), "bytes");
	for (size_t i = 0; i < m->ntargets; i++) {
		const struct iom_target *t = &m->targets[i];
		const struct iom_values *bs = &t->dim[IOM_DIM_BLOCK_SIZE];
		const config_setting_t *where = c->t_set[i][IOM_DIM_BLOCK_SIZE]
							? c->t_set[i][IOM_DIM_BLOCK_SIZE]
							: c->wl_set[IOM_DIM_BLOCK_SIZE];
		bool direct = false, verify = false;
		int64_t maxbs = 0;

		for (size_t j = 0; j < t->dim[IOM_DIM_DIRECT].n; j++)
			direct |= t->dim[IOM_DIM_DIRECT].v[j] != 0;
		for (size_t j = 0; j < t->dim[IOM_DIM_VERIFY].n; j++)
			verify |= t->dim[IOM_DIM_VERIFY].v[j] != 0;
		if (t->npaths) { /* issue 16c */
			const config_setting_t *tw = c->t_set[i][IOM_DIM_THREADS]
							     ? c->t_set[i][IOM_DIM_THREADS]
							     : c->wl_set[IOM_DIM_THREADS];

			if (verify)
				return fail_line(c, t->line, "target '%s': verify is not available for a "
						 "target with several paths (give each path a target of "
						 "its own to verify it)", t->label);
			for (size_t j = 0; j < t->dim[IOM_DIM_THREADS].n; j++)
				if ((uint64_t)t->dim[IOM_DIM_THREADS].v[j] < t->npaths) {
					if (tw)
						return fail(c, tw, "target '%s' has %zu paths but "
							    "threads = %lld: give at least one "
							    "thread per path", t->label, t->npaths,
							    (long long)t->dim[IOM_DIM_THREADS].v[j]);
					return fail_line(c, t->line, "target '%s' has %zu paths but "
							 "threads = %lld: give at least one thread "
							 "per path", t->label, t->npaths,
							 (long long)t->dim[IOM_DIM_THREADS].v[j]);
				}
		}
		{
			/* fsync_every and trim_pct need an engine that can, writes allowed, and
			 * trims no verified data */
			const struct iom_values *fs = &t->dim[IOM_DIM_FSYNC_EVERY];
			const struct iom_values *tp = &t->dim[IOM_DIM_TRIM_PCT];
			const struct iom_values *en = &t->dim[IOM_DIM_ENGINE];
			const struct iom_values *rp = &t->dim[IOM_DIM_READ_PCT];
			bool flush = false, trim = false, ro = false;

			for (size_t j = 0; j < fs->n; j++)
				flush |= fs->v[j] != 0;
			for (size_t j = 0; j < tp->n; j++)
				trim |= tp->v[j] != 0;
			/* read-only: a cell all of whose I/Os are reads (an access spec's lines
			 * where one is picked, the workload's read_pct where a line leaves it) */
			for (size_t k = 0; k < t->dim[IOM_DIM_ACCESS].n; k++)
				for (size_t j = 0; j < rp->n; j++)
					ro |= access_reads_only(m, t->dim[IOM_DIM_ACCESS].v[k],
								rp->v[j]);
			for (size_t j = 0; j < en->n && (flush || trim); j++) {
				enum iom_engine_kind k = (enum iom_engine_kind)en->v[j];
				int dim = flush && !iom_engine_has(k, IOM_ENGINE_CAP_FLUSH)
						  ? IOM_DIM_FSYNC_EVERY
						  : trim && !iom_engine_has(k, IOM_ENGINE_CAP_TRIM)
							    ? IOM_DIM_TRIM_PCT
							    : -1;
				const config_setting_t *w;

				if (dim < 0)
					continue;
				w = c->t_set[i][dim] ? c->t_set[i][dim] : c->wl_set[dim];
				return fail(c, w ? w : c->t_set[i][IOM_DIM_ENGINE],
					    "engine %s cannot %s (target '%s'): set engine = "
					    "\"io_uring\" or \"psync\" for %s", iom_engines[k].name,
					    dim == IOM_DIM_FSYNC_EVERY ? "flush (fsync_every)"
								       : "discard (trim_pct)",
					    t->label, iom_dim_name((enum iom_dim)dim));
			}
			if (trim && (ro || verify)) {
				const config_setting_t *w = c->t_set[i][IOM_DIM_TRIM_PCT]
								    ? c->t_set[i][IOM_DIM_TRIM_PCT]
								    : c->wl_set[IOM_DIM_TRIM_PCT];

				return fail(c, w, "trim_pct discards data (target '%s'): %s", t->label,
					    ro ? "a cell with read_pct = 100 opens the target "
						 "read-only; give read_pct below 100 (the workload's "
						 "or an access line's)"
					       : "verify would find the trimmed sectors gone; set "
						 "verify = false");
			}
		}
		if ((ret = zones_fit(c, i)) < 0)
			return ret;
		if (t->fill_data && t->dim[IOM_DIM_DATA].n != 1)
			return fail_line(c, t->line, "target '%s' has fill_data = true and %zu values "
					 "of data: its scratch file is filled once, with one (set data "
					 "on the target, or fill_data = false)", t->label,
					 t->dim[IOM_DIM_DATA].n);
		for (size_t j = 0; verify && j < t->dim[IOM_DIM_DATA].n; j++) {
			int64_t d = IOM_CHOICE_INDEX(t->dim[IOM_DIM_DATA].v[j]);
			const config_setting_t *dw = c->t_set[i][IOM_DIM_DATA]
							     ? c->t_set[i][IOM_DIM_DATA]
							     : c->wl_set[IOM_DIM_DATA];

			/* verify's header (offset, sequence, crc) in every sector would make zeros
			 * not zeros and every deduplicated block unique */
			if (d == IOM_DATA_ZEROS || d == IOM_DATA_DEDUPE)
				return fail(c, dw ? dw : c->t_set[i][IOM_DIM_VERIFY],
					    "data %s cannot be verified (target '%s'): verify writes a "
					    "header with the offset into every 512-byte sector, so no "
					    "block would be %s; use data = \"random\" or "
					    "\"compressible:N%%\" with verify, or verify = false",
					    d == IOM_DATA_ZEROS ? "\"zeros\"" : "\"dedupe:N%\"", t->label,
					    d == IOM_DATA_ZEROS ? "zeros" : "a repeat of another");
		}
		for (size_t j = 0; j < bs->n; j++) {
			maxbs = IOM_MAX(maxbs, bs->v[j]);
			if (verify && !direct && bs->v[j] % 512 != 0) {
				iom_size_format((uint64_t)bs->v[j], a, sizeof(a));
				return fail(c, where ? where : c->t_set[i][IOM_DIM_VERIFY],
					    "block_size %s is not a multiple of 512, as verify needs "
					    "(target '%s'; a header goes in every 512-byte sector)", a,
					    t->label);
			}
			if (direct && bs->v[j] % 512 != 0) {
				const config_setting_t *w = where;

				/* point at the list element when there is one */
				if (w && config_setting_length(w) > 0 &&
				    config_setting_type(w) != CONFIG_TYPE_GROUP &&
				    j < (size_t)config_setting_length(w))
					w = config_setting_get_elem(w, (unsigned)j);
				iom_size_format((uint64_t)bs->v[j], a, sizeof(a));
				return fail(c, w ? w : c->t_set[i][IOM_DIM_DIRECT],
					    "block_size %s is not a multiple of 512, as direct I/O "
					    "needs (target '%s'; set direct = false or use a multiple "
					    "of 512)", a, t->label);
			}
		}
		if (t->size && (uint64_t)maxbs > t->size) {
			iom_size_format((uint64_t)maxbs, a, sizeof(a));
			iom_size_format(t->size, b, sizeof(b));
			return fail_line(c, t->line, "target '%s' has size %s, smaller than its "
						     "block_size %s", t->label, b, a);
		}
		if (m->timing.bytes && (uint64_t)maxbs > m->timing.bytes) {
			iom_size_format((uint64_t)maxbs, a, sizeof(a));
			iom_size_format(m->timing.bytes, b, sizeof(b));
			return fail(c, sb, "bytes %s is less than block_size %s: a run would do "
					   "no measured I/O", b, a);
		}
		if ((ret = load_checks(c, i, sb)) < 0)
			return ret;
	}
	return 0;
}

/* ---- issue 16a: where each I/O goes -------------------------------------------------------- */

/* Where target i's dimension d was set: its own setting, else the workload's (NULL: default). */
static const config_setting_t *set_of(const struct ctx *c, size_t i, int d)
{
	return c->t_set[i][d] ? c->t_set[i][d] : c->wl_set[d];
}

static bool values_have(const struct iom_values *v, int64_t x)
{
	for (size_t j = 0; j < v->n; j++)
		if (v->v[j] == x)
			return true;
	return false;
}

/* pattern = "sequential" is random_pct = 0: the two may not disagree within one target; align
 * is a multiple of 512 where the I/O is direct. */
static int check_placement(struct ctx *c)
{
	struct iom_matrix *m = c->m;

	for (size_t i = 0; i < m->ntargets; i++) {
		const struct iom_target *t = &m->targets[i];
		const struct iom_values *rp = &t->dim[IOM_DIM_RANDOM_PCT];

		if (!values_have(&t->dim[IOM_DIM_PATTERN], IOM_PATTERN_SEQUENTIAL))
			continue;
		for (size_t j = 0; j < rp->n; j++)
			if (rp->v[j] != 100)
				return fail(c, set_of(c, i, IOM_DIM_RANDOM_PCT),
					    "random_pct %lld conflicts with pattern = \"sequential\" "
					    "(target '%s'): sequential is random_pct = 0; give "
					    "pattern = \"random\" with random_pct, or pattern alone",
					    (long long)rp->v[j], t->label);
	}
	for (size_t i = 0; i < m->ntargets; i++) {
		const struct iom_target *t = &m->targets[i];
		const struct iom_values *al = &t->dim[IOM_DIM_ALIGN];
		char a[32];

		bool direct = values_have(&t->dim[IOM_DIM_DIRECT], 1);

		if (!direct && !values_have(&t->dim[IOM_DIM_VERIFY], 1))
			continue;
		for (size_t j = 0; j < al->n; j++) {
			if (al->v[j] % 512 == 0)
				continue;
			iom_size_format((uint64_t)al->v[j], a, sizeof(a));
			return fail(c, set_of(c, i, IOM_DIM_ALIGN),
				    "align %s is not a multiple of 512, as %s needs (target '%s'; "
				    "use a multiple of 512)", a,
				    direct ? "direct I/O" : "verify", t->label);
		}
	}
	return 0;
}

/* A run with an access spec: duration-bound, unverified, its lines' sizes fit the target. */
static int check_access(struct ctx *c)
{
	struct iom_matrix *m = c->m;
	const config_setting_t *root = config_root_setting(&c->cfg);

	for (size_t i = 0; i < m->ntargets; i++) {
		const struct iom_target *t = &m->targets[i];
		const struct iom_values *ac = &t->dim[IOM_DIM_ACCESS];
		const config_setting_t *where = set_of(c, i, IOM_DIM_ACCESS);
		bool direct = values_have(&t->dim[IOM_DIM_DIRECT], 1);

		for (size_t j = 0; j < ac->n; j++) {
			const struct iom_access_spec *a;

			if (ac->v[j] == 0)
				continue;
			a = &m->access_specs[ac->v[j] - 1];
			if (m->timing.bytes)
				return fail(c, where, "access '%s': a run with an access spec is "
						      "duration-bound (timing.duration, not bytes)",
					    a->name);
			if (values_have(&t->dim[IOM_DIM_VERIFY], 1))
				return fail(c, where, "access '%s' with verify: verify checks one "
						      "block size; run it without an access spec",
					    a->name);
			for (size_t l = 0; l < a->nlines; l++) {
				const struct iom_access_line *ln = &a->lines[l];
				char b[32];

				if (ln->block_size == IOM_ACCESS_INHERIT)
					continue;
				iom_size_format((uint64_t)ln->block_size, b, sizeof(b));
				if (direct && ln->block_size % 512 != 0)
					return fail_line(c, ln->line, "block_size %s of access spec "
						"'%s' is not a multiple of 512, as direct I/O needs "
						"(target '%s')", b, a->name, t->label);
				if (t->size && (uint64_t)ln->block_size > t->size)
					return fail_line(c, ln->line, "block_size %s of access spec "
						"'%s' is larger than target '%s'", b, a->name,
						t->label);
				if (direct && ln->align != IOM_ACCESS_INHERIT && ln->align % 512)
					return fail_line(c, ln->line, "align of access spec '%s' is "
						"not a multiple of 512, as direct I/O needs", a->name);
			}
		}
	}
	(void)root;
	return 0;
}

/* ---- many hosts (docs/hosts.md) ----------------------------------------------------------- */

/* hosts = "each" and ranks = N: the host dimension is made by iom_matrix_place, not by hand;
 * each with ranks would say two placements; where the largest ranks value is given. */
static int read_placement(struct ctx *c)
{
	struct iom_matrix *m = c->m;
	const config_setting_t *root = config_root_setting(&c->cfg), *s;
	int64_t most = 0;

	s = config_setting_get_member(root, "hosts");
	m->placement_line = s ? line_of(s) : 0;
	for (size_t i = 0; i < m->ntargets; i++) {
		const struct iom_values *rk = &m->targets[i].dim[IOM_DIM_RANKS];

		if ((s = set_of(c, i, IOM_DIM_HOST)))
			return fail(c, s, "host is not given by hand: hosts = \"each\" (at the top "
					  "level) makes it the dimension of every rank (an exclude "
					  "condition may name one)");
		for (size_t j = 0; j < rk->n; j++)
			if (rk->v[j] > most) {
				most = rk->v[j];
				m->ranks_line = line_of(set_of(c, i, IOM_DIM_RANKS));
			}
		if (rk->n && rk->v[0] && m->placement == IOM_PLACE_EACH)
			return fail(c, set_of(c, i, IOM_DIM_RANKS),
				    "ranks with hosts = \"each\": each runs a cell on one rank at a "
				    "time; give one of them");
	}
	/* hosts = "each" compares the hosts, unless compare says otherwise (iom_matrix_place) */
	m->compare_default = !config_setting_get_member(root, "compare");
	return 0;
}

static void dim_set_all(struct iom_values *v, unsigned n)
{
	free(v->v);
	v->v = xcalloc(n ? n : 1, sizeof(*v->v));
	for (unsigned i = 0; i < n; i++)
		v->v[i] = (int64_t)i;
	v->n = n ? n : 1;
}

int iom_matrix_place(struct iom_matrix *m, unsigned nranks, const char *const *hosts, char *err,
		     size_t errlen)
{
	char here[64];

	if (!nranks)
		nranks = 1;
	m->nranks = nranks;
	m->rank_hosts = xcalloc(nranks, sizeof(*m->rank_hosts));
	for (unsigned r = 0; r < nranks; r++) {
		if (hosts) {
			m->rank_hosts[r] = xstrdup(hosts[r]);
			continue;
		}
		if (gethostname(here, sizeof(here)) < 0)
			snprintf(here, sizeof(here), "localhost");
		here[sizeof(here) - 1] = '\0';
		if (strchr(here, '.'))
			*strchr(here, '.') = '\0';
		m->rank_hosts[r] = xstrdup(here);
	}
	for (size_t t = 0; t < m->ntargets; t++) {
		struct iom_target *tg = &m->targets[t];
		unsigned n = 0;

		if (!tg->nhosts)
			continue;
		free(tg->on_rank);
		tg->on_rank = xcalloc(nranks, 1);
		for (unsigned r = 0; r < nranks; r++) {
			char sel[32];

			snprintf(sel, sizeof(sel), "rank:%u", r);
			for (size_t k = 0; k < tg->nhosts && !tg->on_rank[r]; k++)
				tg->on_rank[r] = strcmp(tg->hosts[k], sel) == 0 ||
						 strcmp(tg->hosts[k], m->rank_hosts[r]) == 0;
			n += tg->on_rank[r];
		}
		if (!n)
			return iom_err(err, errlen, EINVAL, "%s:%d: target '%s' lives on no rank "
				       "of this job (its hosts: %s%s; rank 0 is on %s)", m->file,
				       tg->hosts_line, tg->label, tg->hosts[0],
				       tg->nhosts > 1 ? ", …" : "", m->rank_hosts[0]);
	}
	if (m->placement == IOM_PLACE_EACH) {
		m->host_labels = xcalloc(nranks, sizeof(*m->host_labels));
		for (unsigned r = 0; r < nranks; r++)
			m->host_labels[r] = xasprintf("r%u@%s", r, m->rank_hosts[r]);
		dim_set_all(&m->workload[IOM_DIM_HOST], nranks);
		for (size_t t = 0; t < m->ntargets; t++)
			dim_set_all(&m->targets[t].dim[IOM_DIM_HOST], nranks);
		m->listed[IOM_DIM_HOST] = nranks > 1;
		if (nranks > 1 && m->compare_default)
			m->compare = IOM_DIM_HOST;
		/* a target's cells only on the ranks where it lives */
		for (size_t t = 0; t < m->ntargets; t++)
			for (unsigned r = 0; m->targets[t].on_rank && r < nranks; r++) {
				struct iom_exclude *x;

				if (m->targets[t].on_rank[r])
					continue;
				m->excludes = xrealloc(m->excludes, (m->nexcludes + 1) *
						       sizeof(*m->excludes));
				x = &m->excludes[m->nexcludes++];
				memset(x, 0, sizeof(*x));
				x->line = m->targets[t].hosts_line;
				x->dim[IOM_DIM_TARGET].v = xcalloc(1, sizeof(int64_t));
				x->dim[IOM_DIM_TARGET].v[0] = (int64_t)t;
				x->dim[IOM_DIM_TARGET].n = 1;
				x->dim[IOM_DIM_HOST].v = xcalloc(1, sizeof(int64_t));
				x->dim[IOM_DIM_HOST].v[0] = (int64_t)r;
				x->dim[IOM_DIM_HOST].n = 1;
			}
	}
	for (size_t t = 0; t < m->ntargets; t++) {
		const struct iom_values *rk = &m->targets[t].dim[IOM_DIM_RANKS];

		for (size_t j = 0; j < rk->n; j++)
			if (rk->v[j] > (int64_t)nranks)
				return iom_err(err, errlen, EINVAL, "%s:%d: ranks %lld is more than "
					       "the %u rank%s of this job%s (target '%s')", m->file,
					       m->ranks_line ? m->ranks_line : m->workload_line,
					       (long long)rk->v[j], nranks, nranks == 1 ? "" : "s",
					       hosts ? "" : ": plain iomatrix is one host; start "
					       "iomatrix-mpi under mpirun with as many ranks",
					       m->targets[t].label);
	}
	return 0;
}

/* ---- the whole ----------------------------------------------------------------------------- */

static void note_line(struct ctx *c, int d, const config_setting_t *s)
{
	int line = line_of(s);

	if (line < c->dim_line[d])
		c->dim_line[d] = line;
}

/* Records where each dimension first appears in the file, before overrides move anything. */
static void record_dim_lines(struct ctx *c)
{
	const config_setting_t *root = config_root_setting(&c->cfg), *s;

	for (int d = 0; d < IOM_DIM_COUNT; d++)
		c->dim_line[d] = INT_MAX - IOM_DIM_COUNT + d;
	s = config_setting_get_member(root, "targets");
	if (s)
		note_line(c, IOM_DIM_TARGET, s);
	s = config_setting_get_member(root, "workload");
	for (int d = 1; s && config_setting_is_group(s) && d < IOM_DIM_COUNT; d++) {
		const config_setting_t *e = config_setting_get_member(s, iom_dim_name(d));

		if (e)
			note_line(c, d, e);
	}
	s = config_setting_get_member(root, "targets");
	for (int i = 0; s && config_setting_is_list(s) && i < config_setting_length(s); i++) {
		const config_setting_t *t = config_setting_get_elem(s, (unsigned)i);

		for (int d = 1; config_setting_is_group(t) && d < IOM_DIM_COUNT; d++) {
			const config_setting_t *e = config_setting_get_member(t, iom_dim_name(d));

			if (e)
				note_line(c, d, e);
		}
	}
}

static int validate(struct ctx *c)
{
	const config_setting_t *root = config_root_setting(&c->cfg), *s;
	int ret;

	/* The schema first: a file of another schema may use keys this one does not know. */
	s = config_setting_get_member(root, "iomatrix");
	if (!s)
		return fail_line(c, 1, "missing required key 'iomatrix' (the schema version: write "
				       "iomatrix = 1; at the top)");
	if (!is_int(s))
		return fail(c, s, "iomatrix must be the schema version 1, not %s",
			    config_type_name(config_setting_type(s)));
	if (config_setting_get_int64(s) != IOM_MATRIX_SCHEMA)
		return fail(c, s, "schema version %lld: this iomatrix reads schema %d",
			    (long long)config_setting_get_int64(s), IOM_MATRIX_SCHEMA);
	c->m->schema = IOM_MATRIX_SCHEMA;
	for (int i = 0; i < config_setting_length(root); i++) {
		const config_setting_t *e = config_setting_get_elem(root, (unsigned)i);
		const struct iom_key *k = top_key(config_setting_name(e));

		if (!k)
			return unknown_key(c, e, IOM_SEC_TOP);
	}
	if ((ret = read_top_scalars(c)) < 0 || (ret = read_workload(c)) < 0 ||
	    (ret = read_targets(c)) < 0 || (ret = read_timing(c)) < 0 ||
	    (ret = read_order(c)) < 0 || (ret = read_excludes(c)) < 0 ||
	    (ret = read_report(c)) < 0 || (ret = read_hooks(c)) < 0 ||
	    (ret = cross_checks(c)) < 0 || (ret = check_placement(c)) < 0 ||
	    (ret = check_access(c)) < 0 || (ret = read_placement(c)) < 0)
		return ret;
	return 0;
}

/* The file's name without directory and .cfg: the default study name. */
static char *default_name(const char *file)
{
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	size_t n = strlen(base);

	if (n > 4 && strcmp(base + n - 4, ".cfg") == 0)
		n -= 4;
	return xasprintf("%.*s", (int)IOM_MIN(n, (size_t)MAX_LABEL), base);
}

static char *render(const config_t *cfg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return xstrdup("");
	config_write(cfg, f);
	fclose(f);
	return buf ? buf : xstrdup("");
}

int iom_matrix_parse(const char *name, const char *text, const struct iom_override *ov,
		     size_t nov, struct iom_matrix **out, char *err, size_t errlen)
{
	struct ctx c = { .file = name ? name : "(matrix)", .err = err, .errlen = errlen };
	int ret;

	*out = NULL;
	c.m = xcalloc(1, sizeof(*c.m));
	c.m->file = xstrdup(c.file);
	config_init(&c.cfg);
	if ((ret = parse_text(&c, text ? text : "")) < 0)
		goto fail;
	record_dim_lines(&c);
	for (size_t i = 0; i < nov; i++)
		if ((ret = apply_override(&c, &ov[i])) < 0)
			goto fail;
	if ((ret = validate(&c)) < 0)
		goto fail;
	if (!c.m->name)
		c.m->name = default_name(c.file);
	c.m->as_run = nov ? render(&c.cfg) : xstrdup(text);
	config_destroy(&c.cfg);
	free(c.t_set);
	free_fs_lists(&c);
	*out = c.m;
	return 0;
fail:
	config_destroy(&c.cfg);
	free(c.t_set);
	free_fs_lists(&c);
	iom_matrix_free(c.m);
	return ret;
}

int iom_matrix_load(const char *path, const struct iom_override *ov, size_t nov,
		    struct iom_matrix **out, char *err, size_t errlen)
{
	char *text, e[IOM_ERRLEN];
	size_t len;
	int ret;

	*out = NULL;
	/* a FIFO or a device is refused without blocking, a huge file without reading it */
	ret = iom_own_read(NULL, path, IOM_OWN_FOLLOW, IOM_OWN_CAP_MATRIX, &text, &len, e,
			   sizeof(e));
	if (ret < 0)
		return iom_err(err, errlen, -ret, "%s: cannot read the matrix: %s", path,
			       ret == -EPERM || ret == -EISDIR || ret == -EFBIG ? e : strerror(-ret));
	if (strlen(text) != len) {
		free(text);
		return iom_err(err, errlen, EINVAL, "%s:1: not a text file (it contains a NUL "
						    "byte)", path);
	}
	ret = iom_matrix_parse(path, text, ov, nov, out, err, errlen);
	free(text);
	return ret;
}

void iom_matrix_free(struct iom_matrix *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->ntargets; i++) {
		struct iom_target *t = &m->targets[i];

		free(t->label);
		free(t->path);
		for (size_t p = 0; p < t->npaths; p++)
			free(t->paths[p]);
		free(t->paths);
		free(t->filesystem);
		free(t->controller);
		free(t->fs_type);
		free(t->mkfs_options);
		free(t->mount_options);
		for (size_t h = 0; h < t->nhosts; h++)
			free(t->hosts[h]);
		free(t->hosts);
		free(t->on_rank);
		for (int d = 0; d < IOM_DIM_COUNT; d++)
			values_free(&t->dim[d]);
	}
	free(m->targets);
	for (size_t i = 0; i < m->nexcludes; i++)
		for (int d = 0; d < IOM_DIM_COUNT; d++)
			values_free(&m->excludes[i].dim[d]);
	free(m->excludes);
	for (size_t i = 0; i < m->naccess_specs; i++) {
		free(m->access_specs[i].name);
		free(m->access_specs[i].lines);
	}
	free(m->access_specs);
	for (int d = 0; d < IOM_DIM_COUNT; d++)
		values_free(&m->workload[d]);
	free(m->hooks.before_study);
	free(m->hooks.before_target);
	free(m->hooks.before_run);
	free(m->hooks.after_run);
	free(m->hooks.after_target);
	free(m->hooks.after_study);
	free(m->hooks.precondition);
	free(m->file);
	free(m->as_run);
	free(m->name);
	free(m->description);
	free(m->cpus);
	free(m->notes);
	for (unsigned r = 0; r < m->nranks; r++) {
		free(m->rank_hosts ? m->rank_hosts[r] : NULL);
		free(m->host_labels ? m->host_labels[r] : NULL);
	}
	free(m->rank_hosts);
	free(m->host_labels);
	free(m);
}

int iom_matrix_target_index(const struct iom_matrix *m, const char *label)
{
	for (size_t i = 0; label && i < m->ntargets; i++)
		if (m->targets[i].label && strcmp(m->targets[i].label, label) == 0)
			return (int)i;
	return -1;
}
