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

#include "units.h"
#include "util.h"

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

void iom_json_add(json_object *o, const char *key, json_object *v)
{
	json_object_object_add(o, key, v);
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
			const char *s = json_object_to_json_string_ext(
				json_object_array_get_idx(jso, i), flags);

			if (i)
				printbuf_strappend(pb, ", ");
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

char *iom_json_text(json_object *o)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						       JSON_C_TO_STRING_SPACED |
						       JSON_C_TO_STRING_NOSLASHESCAPE);

	return xasprintf("%s\n", s);
}
