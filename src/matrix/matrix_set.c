/* SPDX-License-Identifier: MIT */
/*
 * matrix_set — step 3 of reading a matrix: --set KEY=VALUE overrides applied to libconfig's tree.
 *
 * An override finds its place (a top-level key; a section's, with the section name or without
 * it for a workload, timing, report or io_uring key; targets.LABEL.KEY for one target), then its
 * value is parsed as libconfig text through the prescan (a bare word, or a list of bare words,
 * is taken as strings) and copied into the tree in place of the file's. A setting an override
 * adds carries the override as its libconfig hook, so a message about it names the override
 * instead of a line.
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

#include "util.h"

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

/* Where override ov goes: its key's row *k, the group *parent it is set in and the member *name
 * (which points into key, the caller's copy of ov->key to cut). */
static int override_place(struct ctx *c, const struct iom_override *ov, char *key,
			  const struct iom_key **kp, config_setting_t **parentp, char **namep)
{
	config_setting_t *root = config_root_setting(&c->cfg), *parent = NULL;
	const struct iom_key *k = NULL;
	char *dot, *name = NULL;

	dot = strchr(key, '.');
	if (!dot) {
		/* A bare key: a top-level key, else the workload, timing, report or io_uring key
		 * (submit_batch and reap_wait, whose old place is the top level, land in io_uring). */
		static const enum iom_section secs[] = { IOM_SEC_WORKLOAD, IOM_SEC_TIMING,
							 IOM_SEC_REPORT, IOM_SEC_IO_URING };

		name = key;
		if ((k = mx_top_key(name)) != NULL && !(k->flags & IOM_KEY_MOVED)) {
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

		if (last == dot)
			return mx_fail_override(c, ov, "write targets.LABEL.KEY to set a key of one "
						     "target");
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
		if (k && !parent)
			return mx_fail_override(c, ov, "no target labelled '%s'", label);
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
		const struct iom_key *old = mx_top_key(name);

		if (old && (old->flags & IOM_KEY_MOVED) && config_setting_get_member(root, name))
			config_setting_remove(root, name);
	}
	if (!k) {
		const struct iom_key *near = closest_any(strrchr(ov->key, '.') ? strrchr(ov->key, '.') + 1
										 : ov->key);

		if (near)
			return mx_fail_override(c, ov, "unknown key '%s' (did you mean '%s'?)",
					      ov->key, near->name);
		return mx_fail_override(c, ov, "unknown key '%s' (see 'iomatrix help keys')",
				      ov->key);
	}
	if (!parent)
		return mx_fail_override(c, ov, "the matrix's '%s' is not a group", key);
	*kp = k;
	*parentp = parent;
	*namep = name;
	return 0;
}

/* The value of ov, parsed as libconfig text into the member "v" of tmp (initialized here; the
 * caller destroys it); a bare word that is not libconfig is a string. */
static int override_value(struct ctx *c, const struct iom_override *ov, config_t *tmp)
{
	char *quoted = ov->value ? quote_bare_list(ov->value) : NULL;
	char *text = xasprintf("v = %s;", quoted ? quoted : ov->value ? ov->value : "");
	char *scanned = NULL, suberr[IOM_ERRLEN];
	struct ctx sub = *c;
	int ret = 0;

	free(quoted);
	sub.err = suberr;
	sub.errlen = sizeof(suberr);
	config_init(tmp);
	if (mx_prescan(&sub, text, &scanned) < 0 || !config_read_string(tmp, scanned) ||
	    config_setting_length(config_root_setting(tmp)) != 1) {
		config_destroy(tmp);
		config_init(tmp);
		if (!ov->value || !bare_word(ov->value))
			ret = mx_fail_override(c, ov, "not a value (write a number, a word, "
						    "\"text\", [ a, b ] or { from = ...; "
						    "to = ...; })");
		else
			config_setting_set_string(config_setting_add(config_root_setting(tmp), "v",
								     CONFIG_TYPE_STRING),
						  ov->value);
	}
	free(scanned);
	free(text);
	return ret;
}

int mx_apply_override(struct ctx *c, const struct iom_override *ov)
{
	config_setting_t *parent = NULL, *val, *dst;
	const struct iom_key *k = NULL;
	char *key, *name = NULL;
	config_t tmp;
	int ret;

	if (!ov->key || !*ov->key)
		return iom_err(c->err, c->errlen, EINVAL, "--set needs KEY=VALUE");
	key = xstrdup(ov->key);
	if ((ret = override_place(c, ov, key, &k, &parent, &name)) < 0)
		goto out;
	if (k->dim >= 0)
		c->overridden[k->dim] = true;
	if ((ret = override_value(c, ov, &tmp)) < 0) {
		config_destroy(&tmp);
		goto out;
	}
	val = config_setting_get_member(config_root_setting(&tmp), "v");
	config_setting_remove(parent, name);
	dst = copy_setting(parent, name, val);
	config_destroy(&tmp);
	if (!dst) {
		ret = mx_fail_override(c, ov, "cannot set this value here");
		goto out;
	}
	config_setting_set_hook(dst, (void *)ov);
out:
	free(key);
	return ret;
}
