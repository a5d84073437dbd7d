/* SPDX-License-Identifier: MIT */
/*
 * result_json — what the readers of the results directory's JSON files share (result_read.c,
 * study.c): the typed getters, each naming the field's path in its message, the first error
 * sticky; the parse of a whole file with its schema checked; the bounded read of an own file.
 */
#include "result_json.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "ownfile.h"
#include "util.h"

int iom_rd_fail(struct iom_rd *c, const char *prefix, const char *key, const char *what)
{
	if (c->ret == 0)
		c->ret = iom_err(c->err, c->errlen, EINVAL, "%s: '%s%s%s' %s", c->name,
				 prefix ? prefix : "", prefix && *prefix ? "." : "", key, what);
	return c->ret;
}

/* The member key of o, or NULL when absent or null. */
json_object *iom_rd_member(struct iom_rd *c, json_object *o, const char *key)
{
	json_object *v = NULL;

	if (c->ret || !o)
		return NULL;
	json_object_object_get_ex(o, key, &v);
	return v;
}

json_object *iom_rd_obj(struct iom_rd *c, json_object *o, const char *prefix, const char *key)
{
	json_object *v = iom_rd_member(c, o, key);

	if (v && !json_object_is_type(v, json_type_object)) {
		iom_rd_fail(c, prefix, key, "is not an object");
		return NULL;
	}
	return v;
}

json_object *iom_rd_arr(struct iom_rd *c, json_object *o, const char *prefix, const char *key)
{
	json_object *v = iom_rd_member(c, o, key);

	if (v && !json_object_is_type(v, json_type_array)) {
		iom_rd_fail(c, prefix, key, "is not an array");
		return NULL;
	}
	return v;
}

bool iom_rd_is_uint(json_object *v)
{
	return json_object_is_type(v, json_type_int) && json_object_get_int64(v) >= 0;
}

void iom_rd_u64v(struct iom_rd *c, json_object *v, const char *prefix, const char *key,
		    uint64_t *out)
{
	if (c->ret || !v)
		return;
	if (!iom_rd_is_uint(v)) {
		iom_rd_fail(c, prefix, key, "is not a non-negative integer");
		return;
	}
	/* json-c reads a number of 2^64 or more as 2^64 - 1, silently: no count gets there */
	if (json_object_get_uint64(v) == UINT64_MAX) {
		iom_rd_fail(c, prefix, key, "is out of range (2^64 or more)");
		return;
	}
	*out = json_object_get_uint64(v);
}

void iom_rd_u64(struct iom_rd *c, json_object *o, const char *prefix, const char *key,
		   uint64_t *out)
{
	iom_rd_u64v(c, iom_rd_member(c, o, key), prefix, key, out);
}

void iom_rd_u32(struct iom_rd *c, json_object *o, const char *prefix, const char *key,
		   uint32_t *out)
{
	uint64_t v = *out;

	iom_rd_u64(c, o, prefix, key, &v);
	if (v > UINT32_MAX)
		iom_rd_fail(c, prefix, key, "is out of range");
	else
		*out = (uint32_t)v;
}

/*
 * The largest figure a file of iomatrix holds: every number it writes as a double (rates,
 * latencies in ns, CPU shares and times, seconds) is 0 or more and far below it (1e15 ns is
 * eleven days, 1e15 IOPS no device does). A number beyond it, negative, or not finite (json-c
 * reads NaN and Infinity) was not written by iomatrix, and the file is inconsistent, as with a
 * crafted count.
 */
#define FIGURE_MAX 1e15

void iom_rd_double(struct iom_rd *c, json_object *o, const char *prefix, const char *key,
		      double *out)
{
	json_object *v;
	double x;

	if (c->ret || !o || !json_object_object_get_ex(o, key, &v))
		return; /* absent: left as is */
	if (!v) {
		*out = NAN; /* null: written for a non-finite value */
		return;
	}
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int)) {
		iom_rd_fail(c, prefix, key, "is not a number");
		return;
	}
	x = json_object_get_double(v);
	if (!isfinite(x) || x < 0 || x > FIGURE_MAX) {
		char what[96];

		snprintf(what, sizeof(what), "is %.6g, not a figure iomatrix writes (0 to %g)", x,
			 FIGURE_MAX);
		iom_rd_fail(c, prefix, key, what);
		return;
	}
	*out = x;
}

/* A rate, which iomatrix always writes as a number (0 without a measured window): null is
 * refused too. */
void iom_rd_rate(struct iom_rd *c, json_object *o, const char *prefix, const char *key,
		    double *out)
{
	iom_rd_double(c, o, prefix, key, out);
	if (c->ret == 0 && isnan(*out))
		iom_rd_fail(c, prefix, key, "is null, not a rate");
}

void iom_rd_bool(struct iom_rd *c, json_object *o, const char *prefix, const char *key, bool *out)
{
	json_object *v = iom_rd_member(c, o, key);

	if (!v)
		return;
	if (!json_object_is_type(v, json_type_boolean)) {
		iom_rd_fail(c, prefix, key, "is not true or false");
		return;
	}
	*out = json_object_get_boolean(v);
}

void iom_rd_str(struct iom_rd *c, json_object *o, const char *prefix, const char *key, char **out)
{
	json_object *v = iom_rd_member(c, o, key);

	if (!v)
		return;
	if (!json_object_is_type(v, json_type_string)) {
		iom_rd_fail(c, prefix, key, "is not a string");
		return;
	}
	free(*out);
	*out = xstrdup(json_object_get_string(v));
}

/* Parses text into a JSON object and checks its schema against max_schema. */
json_object *iom_rd_parse_root(struct iom_rd *c, const char *text, int max_schema, const char *what,
			       int *schema)
{
	struct json_tokener *tok = json_tokener_new();
	size_t len = strlen(text);
	json_object *root, *v;
	enum json_tokener_error jerr;

	if (!tok) {
		c->ret = iom_err(c->err, c->errlen, ENOMEM, "%s: out of memory", c->name);
		return NULL;
	}
	root = json_tokener_parse_ex(tok, text, (int)IOM_MIN(len, (size_t)INT32_MAX));
	jerr = json_tokener_get_error(tok);
	if (jerr != json_tokener_success) {
		if (jerr == json_tokener_continue)
			c->ret = iom_err(c->err, c->errlen, EINVAL,
					 "%s: truncated JSON (the file ends after %zu bytes)",
					 c->name, len);
		else
			c->ret = iom_err(c->err, c->errlen, EINVAL, "%s: invalid JSON at byte %zu: %s",
					 c->name, json_tokener_get_parse_end(tok),
					 json_tokener_error_desc(jerr));
		json_object_put(root);
		json_tokener_free(tok);
		return NULL;
	}
	for (size_t i = json_tokener_get_parse_end(tok); i < len; i++) {
		if (!isspace((unsigned char)text[i])) {
			c->ret = iom_err(c->err, c->errlen, EINVAL,
					 "%s: unexpected data after the JSON at byte %zu", c->name, i);
			json_object_put(root);
			json_tokener_free(tok);
			return NULL;
		}
	}
	json_tokener_free(tok);
	if (!root || !json_object_is_type(root, json_type_object)) {
		c->ret = iom_err(c->err, c->errlen, EINVAL, "%s: not %s (not a JSON object)",
				 c->name, what);
		json_object_put(root);
		return NULL;
	}
	if (!json_object_object_get_ex(root, "schema", &v) || !v) {
		c->ret = iom_err(c->err, c->errlen, EINVAL, "%s: not %s (no 'schema' field)",
				 c->name, what);
	} else if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 1 ||
		   json_object_get_int64(v) > INT32_MAX) {
		c->ret = iom_err(c->err, c->errlen, EINVAL, "%s: 'schema' is not a positive integer",
				 c->name);
	} else if (json_object_get_int64(v) > max_schema) {
		c->ret = iom_err(c->err, c->errlen, EINVAL,
				 "%s: schema %" PRId64 " is newer than this iomatrix reads (%d)",
				 c->name, json_object_get_int64(v), max_schema);
	} else {
		*schema = (int)json_object_get_int64(v);
		return root;
	}
	json_object_put(root);
	return NULL;
}

int iom_rd_read_text(const char *path, size_t cap, char **text, char *err, size_t errlen)
{
	return iom_own_read(NULL, path, IOM_OWN_READ, cap, text, NULL, err, errlen);
}

uint64_t iom_rd_secs_to_ns(double s)
{
	return isfinite(s) && s > 0 ? (uint64_t)llround(s * 1e9) : 0;
}
