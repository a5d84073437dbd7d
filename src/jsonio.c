/* SPDX-License-Identifier: MIT */
/*
 * jsonio — the json-c helpers of every JSON file written (jsonio.h). A custom serializer keeps
 * arrays of numbers and small leaf objects on one line, so a 30-minute run's per-second
 * intervals stay a few lines, not thousands.
 */
#include "jsonio.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "strbuf.h"
#include "units.h"
#include "util.h"

/* The decimal digits of v, written backwards ending at end; their first. */
static char *u64_digits(uint64_t v, char *end)
{
	do {
		*--end = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	return end;
}

/* The same of a 128-bit v: its digits below 2^64's peeled off one by one, the rest as above. */
static char *u128_digits(unsigned __int128 v, char *end)
{
	while (v > UINT64_MAX) {
		*--end = (char)('0' + (int)(v % 10));
		v /= 10;
	}
	return u64_digits((uint64_t)v, end);
}

json_object *iom_json_num(double x)
{
	char buf[64];

	if (!isfinite(x))
		return NULL; /* null */
	iom_double_format(x, buf, sizeof(buf));
	return json_object_new_double_s(x, buf);
}

json_object *iom_json_str(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

json_object *iom_json_utc(uint64_t ns)
{
	char buf[32];

	if (!ns)
		return NULL;
	iom_format_utc(buf, sizeof(buf), ns);
	return json_object_new_string(buf);
}

json_object *iom_json_u128(unsigned __int128 v)
{
	char buf[48], *end = buf + sizeof(buf) - 1;

	*end = '\0';
	return json_object_new_string(u128_digits(v, end));
}

void iom_json_add(json_object *o, const char *key, json_object *v)
{
	json_object_object_add(o, key, v);
}

/* An integer as json-c writes it ("%" PRId64, or PRIu64 above INT64_MAX), without the printbuf
 * json-c gives every object it serializes: the intervals' and histograms' arrays hold
 * thousands of them. */
static void int_out(struct printbuf *pb, json_object *x)
{
	int64_t v = json_object_get_int64(x);
	char buf[24], *end = buf + sizeof(buf), *p;

	if (v == INT64_MAX) {
		p = u64_digits(json_object_get_uint64(x), end);
	} else {
		p = u64_digits(v < 0 ? 0 - (uint64_t)v : (uint64_t)v, end);
		if (v < 0)
			*--p = '-';
	}
	printbuf_memappend(pb, p, (int)(end - p));
}

/* Serializes an array or a flat object on one line (a json-c custom serializer). */
static int one_line(json_object *jso, struct printbuf *pb, int level, int flags)
{
	(void)level;
	flags &= ~(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_PRETTY_TAB);
	if (json_object_is_type(jso, json_type_array)) {
		size_t n = json_object_array_length(jso);

		printbuf_strappend(pb, "[");
		for (size_t i = 0; i < n; i++) {
			json_object *x = json_object_array_get_idx(jso, i);
			const char *s;

			if (i)
				printbuf_strappend(pb, ", ");
			if (json_object_is_type(x, json_type_int)) {
				int_out(pb, x);
				continue;
			}
			s = json_object_to_json_string_ext(x, flags);
			printbuf_memappend(pb, s, (int)strlen(s));
		}
		printbuf_strappend(pb, "]");
	} else {
		bool first = true;

		printbuf_strappend(pb, "{");
		json_object_object_foreach(jso, key, val) {
			json_object *k = json_object_new_string(key); /* for its escaping */
			const char *ks = json_object_to_json_string_ext(k, flags);
			const char *s = json_object_to_json_string_ext(val, flags);

			if (!first)
				printbuf_strappend(pb, ", ");
			first = false;
			printbuf_memappend(pb, ks, (int)strlen(ks));
			printbuf_strappend(pb, ": ");
			printbuf_memappend(pb, s, (int)strlen(s));
			json_object_put(k);
		}
		printbuf_strappend(pb, "}");
	}
	return 0;
}

json_object *iom_json_one_line(json_object *o)
{
	json_object_set_serializer(o, one_line, NULL, NULL);
	return o;
}

json_object *iom_json_u64_array(const uint64_t *v, size_t n)
{
	json_object *o = json_object_new_array();
	struct iom_strbuf b = { 0 };
	char buf[24], *end = buf + sizeof(buf);

	iom_strbuf_add(&b, "[", 1);
	for (size_t i = 0; i < n; i++) {
		const char *p = u64_digits(v[i], end);

		if (i)
			iom_strbuf_add(&b, ", ", 2);
		iom_strbuf_add(&b, p, (size_t)(end - p));
	}
	iom_strbuf_add(&b, "]", 1);
	json_object_set_serializer(o, json_object_userdata_to_json_string, iom_strbuf_take(&b),
				   json_object_free_userdata);
	return o;
}

char *iom_json_text(json_object *o)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						       JSON_C_TO_STRING_SPACED |
						       JSON_C_TO_STRING_NOSLASHESCAPE);

	return xasprintf("%s\n", s);
}
