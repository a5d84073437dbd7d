/* SPDX-License-Identifier: MIT */
/*
 * matrix_values — messages and values: every "FILE:LINE: message" of the matrix room is formatted
 * here, and one key's value is read and checked against its row of the key table (keys.c): a
 * scalar of its type and range, a list of values ([ … ], ( … ), { from; to; [step] }), a string
 * of its charset, and the plain keys that land where their row says (IOM_AT), each with its
 * default when the file does not set it.
 */
#include "matrix_in.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "engine/engine.h"
#include "hooks.h"
#include "units.h"
#include "util.h"

/* ---- messages ---------------------------------------------------------------------------- */

/* Quotes at most 40 characters of s (10 kB labels make poor messages). */
const char *mx_shorten(const char *s, char *buf, size_t len)
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

int mx_line_of(const config_setting_t *s)
{
	for (; s; s = config_setting_parent(s))
		if (config_setting_source_line(s) > 0)
			return (int)config_setting_source_line(s);
	return 1;
}

/* "FILE: --set K=V: message" when ov is given, else "FILE:LINE: message", into the error
 * buffer; -EINVAL. */
static int vfail(struct ctx *c, const struct iom_override *ov, int line, const char *fmt,
		 va_list ap)
{
	char msg[IOM_ERRLEN];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	one_line(msg);
	if (ov)
		return iom_err(c->err, c->errlen, EINVAL, "%s: --set %s=%s: %s", c->file, ov->key,
			       ov->value, msg);
	return iom_err(c->err, c->errlen, EINVAL, "%s:%d: %s", c->file, line > 0 ? line : 1, msg);
}

int mx_fail(struct ctx *c, const config_setting_t *s, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vfail(c, override_of(s), mx_line_of(s), fmt, ap);
	va_end(ap);
	return ret;
}

int mx_fail_line(struct ctx *c, int line, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vfail(c, NULL, line, fmt, ap);
	va_end(ap);
	return ret;
}

int mx_fail_override(struct ctx *c, const struct iom_override *ov, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vfail(c, ov, 0, fmt, ap);
	va_end(ap);
	return ret;
}

const char *mx_config_type_name(int type)
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

int mx_wrong_type(struct ctx *c, const config_setting_t *s, const struct iom_key *k)
{
	char choices[128] = "";

	if (k->type == IOM_TYPE_ENUM) {
		iom_key_range_text(k, choices, sizeof(choices));
		return mx_fail(c, s, "%s must be one of %s (in quotes), not %s", k->name, choices,
			    mx_config_type_name(config_setting_type(s)));
	}
	return mx_fail(c, s, "%s must be %s, not %s", k->name, wanted(k),
		    mx_config_type_name(config_setting_type(s)));
}

int mx_unknown_key(struct ctx *c, const config_setting_t *s, enum iom_section sec)
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
	mx_shorten(name, shown, sizeof(shown));
	if (k)
		return mx_fail(c, s, "unknown key '%s' %s (did you mean '%s'?)", shown, where, k->name);
	return mx_fail(c, s, "unknown key '%s' %s (see 'iomatrix help keys')", shown, where);
}


/* ---- step 4: values ---------------------------------------------------------------------- */

bool mx_is_int(const config_setting_t *s)
{
	return config_setting_type(s) == CONFIG_TYPE_INT ||
	       config_setting_type(s) == CONFIG_TYPE_INT64;
}

/* The access key's value: "none" (0) or the name of one of access_specs (its index + 1). */
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
		return mx_fail(c, s, "access '%s': the matrix has no access_specs", name);
	return mx_fail(c, s, "access '%s' is not one of access_specs (%s)", name, names);
}

/* One scalar value of a numeric, enum or bool key, range-checked. */

int mx_read_scalar(struct ctx *c, const struct iom_key *k, const config_setting_t *s,
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
			return mx_wrong_type(c, s, k);
		if (k->type == IOM_TYPE_RATE) {
			char num[32];

			snprintf(num, sizeof(num), "%lld", x);
			if (iom_key_parse_text(k, num, v, sub, sizeof(sub)) < 0)
				return mx_fail(c, s, "%s", sub);
			return 0;
		}
		if (x < 0)
			return mx_fail(c, s, "%s %lld cannot be negative", k->name, x);
		if (k->type == IOM_TYPE_DURATION) {
			/* a bare number of seconds */
			if (x > k->max / 1000000000ll) {
				char range[96];

				iom_key_range_text(k, range, sizeof(range));
				return mx_fail(c, s, "%s %llds is out of range (%s)", k->name, x,
					    range);
			}
			x *= 1000000000ll;
		}
		if (iom_key_check(k, x, sub, sizeof(sub)) < 0)
			return mx_fail(c, s, "%s", sub);
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
				return mx_fail(c, s, "%s", sub);
			return 0;
		}
		if (k->type != IOM_TYPE_DURATION) {
			if (k->type == IOM_TYPE_SIZE)
				return mx_fail(c, s, "%s must be a whole number of bytes or a size in "
						  "quotes such as \"1.5M\", not the real number %g",
					    k->name, x);
			return mx_fail(c, s, "%s must be %s, not the real number %g", k->name,
				    wanted(k), x);
		}
		if (iom_duration_from_seconds(x, &ns, sub, sizeof(sub)) < 0)
			return mx_fail(c, s, "%s %s", k->name, sub);
		if (ns > (uint64_t)k->max)
			return mx_fail(c, s, "%s %gs is out of range (at most %llds)", k->name, x,
				    (long long)(k->max / 1000000000ll));
		if (iom_key_check(k, (int64_t)ns, sub, sizeof(sub)) < 0)
			return mx_fail(c, s, "%s", sub);
		*v = (int64_t)ns;
		return 0;
	}
	case CONFIG_TYPE_BOOL:
		if (k->type != IOM_TYPE_BOOL)
			return mx_wrong_type(c, s, k);
		*v = config_setting_get_bool(s) ? 1 : 0;
		return 0;
	case CONFIG_TYPE_STRING: {
		const char *str = config_setting_get_string(s);
		char shown[64];

		if (strlen(str) > 64)
			return mx_fail(c, s, "%s '%s' is not %s", k->name,
				    mx_shorten(str, shown, sizeof(shown)), wanted(k));
		if (iom_key_parse_text(k, str, v, sub, sizeof(sub)) < 0)
			return mx_fail(c, s, "%s", sub);
		return 0;
	}
	default:
		return mx_wrong_type(c, s, k);
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
		return mx_fail(c, s, "%s cannot be a range { from; to; } (only sizes and numbers "
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

			mx_shorten(n, shown, sizeof(shown));
			if (near)
				return mx_fail(c, e, "unknown key '%s' in the range of %s (did you "
						  "mean '%s'?)", shown, k->name, near);
			return mx_fail(c, e, "unknown key '%s' in the range of %s (a range has "
					  "from, to and optionally step)", shown, k->name);
		}
	}
	if (!sf || !st)
		return mx_fail(c, s, "the range of %s needs from and to, e.g. { from = \"512\"; "
				  "to = \"64M\"; }", k->name);
	if ((ret = mx_read_scalar(c, k, sf, &from)) < 0 || (ret = mx_read_scalar(c, k, st, &to)) < 0)
		return ret;
	if (from > to)
		return mx_fail(c, s, "the range of %s goes down (from is larger than to)", k->name);
	if (ss) {
		struct iom_key stepkey = *k;

		stepkey.name = "step";
		stepkey.min = 1;
		if ((ret = mx_read_scalar(c, &stepkey, ss, &step)) < 0)
			return ret;
		count = (uint64_t)(to - from) / (uint64_t)step + 1;
	} else {
		if (from == 0)
			return mx_fail(c, s, "a doubling range of %s cannot start at 0; give a step",
				    k->name);
		for (int64_t v = from; v <= to; v *= 2) {
			count++;
			if (v > INT64_MAX / 2)
				break;
		}
	}
	if (count > MAX_VALUES)
		return mx_fail(c, s, "the range of %s has %" PRIu64 " values (at most %u)", k->name,
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
int mx_read_values(struct ctx *c, const struct iom_key *k, const config_setting_t *s,
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
		if ((ret = mx_read_scalar(c, k, s, &v)) < 0)
			return ret;
		values_push(out, &cap, v);
		return 0;
	}
	*listed = true;
	if (config_setting_length(s) == 0)
		return mx_fail(c, s, "%s is an empty list: give at least one value", k->name);
	if ((unsigned)config_setting_length(s) > MAX_VALUES)
		return mx_fail(c, s, "%s lists more than %u values", k->name, MAX_VALUES);
	for (int i = 0; i < config_setting_length(s); i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);

		if (config_setting_is_aggregate(e))
			return mx_fail(c, e, "a value of %s must be %s, not %s (lists do not nest)",
				    k->name, wanted(k), mx_config_type_name(config_setting_type(e)));
		if ((ret = mx_read_scalar(c, k, e, &v)) < 0)
			return ret;
		for (size_t j = 0; j < out->n && out->n < 4096; j++) {
			if (out->v[j] == v) {
				char shown[32];

				/* as written: an access spec's stored form is only its index */
				if (config_setting_type(e) == CONFIG_TYPE_STRING)
					return mx_fail(c, e, "%s lists '%s' twice", k->name,
						    config_setting_get_string(e));
				iom_key_format(k, v, shown, sizeof(shown));
				return mx_fail(c, e, "%s lists %s twice", k->name, shown);
			}
		}
		values_push(out, &cap, v);
	}
	return 0;
}

void mx_values_copy(struct iom_values *dst, const struct iom_values *src)
{
	dst->n = src->n;
	dst->v = xmalloc((src->n ? src->n : 1) * sizeof(*dst->v));
	memcpy(dst->v, src->v, src->n * sizeof(*dst->v));
}

void mx_values_free(struct iom_values *v)
{
	free(v->v);
	v->v = NULL;
	v->n = 0;
}

bool mx_values_equal(const struct iom_values *a, const struct iom_values *b)
{
	return a->n == b->n && memcmp(a->v, b->v, a->n * sizeof(*a->v)) == 0;
}

/* The default of a key in its stored form (the table's defaults are tested to parse). */
int64_t mx_default_of(const struct iom_key *k)
{
	int64_t v = 0;

	if (k->def)
		iom_key_parse_text(k, k->def, &v, NULL, 0);
	return v;
}

/* A string value: a string of 1..maxlen bytes; CS_NAME allows letters, digits, '.', '_', '-';
 * CS_TEXT anything but control characters; CS_ANY anything but NUL. */
int mx_read_string(struct ctx *c, const config_setting_t *s, const char *what, size_t maxlen,
		       enum charset cs, char **out)
{
	const char *str;
	char shown[64];
	size_t len;

	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return mx_fail(c, s, "%s must be a string in quotes, not %s", what,
			    mx_config_type_name(config_setting_type(s)));
	str = config_setting_get_string(s);
	len = strlen(str);
	if (len == 0)
		return mx_fail(c, s, "%s is empty", what);
	if (len > maxlen)
		return mx_fail(c, s, "%s '%s' is too long (%zu bytes; at most %zu)", what,
			    mx_shorten(str, shown, sizeof(shown)), len, maxlen);
	for (const unsigned char *p = (const unsigned char *)str; *p; p++) {
		bool ok = cs == CS_ANY ? true
			  : cs == CS_TEXT ? (*p >= 0x20 && *p != 0x7f)
					  : (isalnum(*p) || *p == '.' || *p == '_' || *p == '-');

		if (!ok) {
			if (cs == CS_NAME)
				return mx_fail(c, s, "%s '%s' may only contain letters, digits, '.', "
						  "'_' and '-'", what,
					    mx_shorten(str, shown, sizeof(shown)));
			return mx_fail(c, s, "%s contains a control character", what);
		}
	}
	if (cs == CS_NAME && str[0] == '.')
		return mx_fail(c, s, "%s '%s' may not start with '.'", what,
			    mx_shorten(str, shown, sizeof(shown)));
	*out = xstrdup(str);
	return 0;
}

/* A real value of an IOM_TYPE_FLOAT key: a number, or a string such as "2%"; range-checked. */
static int read_float(struct ctx *c, const struct iom_key *k, const config_setting_t *s, double *x)
{
	char sub[IOM_ERRLEN];

	if (config_setting_is_number(s)) {
		*x = mx_is_int(s) ? (double)config_setting_get_int64(s) : config_setting_get_float(s);
		if (iom_key_check_float(k, *x, sub, sizeof(sub)) < 0)
			return mx_fail(c, s, "%s", sub);
		return 0;
	}
	if (config_setting_type(s) == CONFIG_TYPE_STRING) {
		if (iom_key_parse_float(k, config_setting_get_string(s), x, sub, sizeof(sub)) < 0)
			return mx_fail(c, s, "%s", sub);
		return 0;
	}
	return mx_wrong_type(c, s, k);
}

enum charset mx_charset_of(enum iom_chars chars)
{
	return chars == IOM_CHARS_NAME ? CS_NAME : chars == IOM_CHARS_ANY ? CS_ANY : CS_TEXT;
}

/*
 * Reads key k (a row with a landing) of the section group g (NULL when the section is absent)
 * into its field of base, the section's struct: a value given by its type, a missing one as its
 * default (a string without a default stays NULL).
 */
int mx_read_landed(struct ctx *c, const struct iom_key *k, const config_setting_t *g,
		       void *base)
{
	const config_setting_t *s = g ? config_setting_get_member(g, k->name) : NULL;
	char *dst = (char *)base + k->off;
	int64_t v = 0;
	int ret;

	/* the steady warm-up: warmup = "steady" instead of a duration */
	if (k->section == IOM_SEC_TIMING && strcmp(k->name, "warmup") == 0 && s &&
	    config_setting_type(s) == CONFIG_TYPE_STRING &&
	    strcmp(config_setting_get_string(s), "steady") == 0) {
		((struct iom_timing *)base)->warmup_steady = true;
		((struct iom_timing *)base)->warmup_ns = 0;
		return 0;
	}
	if (k->type == IOM_TYPE_STRING) {
		char *str = NULL;

		if (s && (ret = mx_read_string(c, s, k->name, (size_t)k->max, mx_charset_of(k->chars),
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
		v = mx_default_of(k);
	} else {
		if ((k->flags & IOM_KEY_INT_ONLY) && !mx_is_int(s))
			return mx_wrong_type(c, s, k);
		if ((ret = mx_read_scalar(c, k, s, &v)) < 0)
			return ret;
	}
	iom_key_store(k, base, v);
	return 0;
}

/* Reads every key of section sec that has a landing, in table order, from group g into base. */
int mx_read_landed_section(struct ctx *c, enum iom_section sec, const config_setting_t *g,
			       void *base)
{
	int ret;

	for (size_t i = 0; i < iom_nkeys; i++)
		if (iom_keys[i].section == sec && iom_keys[i].size &&
		    (ret = mx_read_landed(c, &iom_keys[i], g, base)) < 0)
			return ret;
	return 0;
}

/* ---- step 4: sections -------------------------------------------------------------------- */

/* Checks every member of group g is a key of section sec. */
int mx_check_members(struct ctx *c, const config_setting_t *g, enum iom_section sec)
{
	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *e = config_setting_get_elem(g, (unsigned)i);

		if (!iom_key_find(sec, config_setting_name(e)))
			return mx_unknown_key(c, e, sec);
	}
	return 0;
}

/* A group section of the top level, or NULL when absent; an error when it is not a group. */
int mx_get_group(struct ctx *c, const char *name, const config_setting_t **g)
{
	const config_setting_t *s = config_setting_get_member(config_root_setting(&c->cfg), name);

	*g = NULL;
	if (!s)
		return 0;
	if (config_setting_type(s) != CONFIG_TYPE_GROUP)
		return mx_fail(c, s, "%s must be a group { ... }, not %s", name,
			    mx_config_type_name(config_setting_type(s)));
	*g = s;
	return 0;
}
