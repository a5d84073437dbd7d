/* SPDX-License-Identifier: MIT */
/*
 * result_json — inside the result family (result_read.c, study.c): the typed getters
 * of the JSON files the results directory holds, each naming the field's path in its message
 * ("FILE: 'read.lat_ns.min' is not an integer"), the first error sticky; the parse of a whole
 * file with its schema checked. Nothing outside the family includes it.
 */
#ifndef IOM_RESULT_JSON_H
#define IOM_RESULT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/* A file being read: its name for messages, where the first error goes. */
struct iom_rd {
	const char *name; /* the file, for messages */
	char *err;
	size_t errlen;
	int ret;          /* first error, sticky: later getters do nothing */
};

/* Records "NAME: 'PREFIX.KEY' WHAT" as c's error (the first one only); c->ret. */
int iom_rd_fail(struct iom_rd *c, const char *prefix, const char *key, const char *what);
/* The member key of o, or NULL when absent or null. */
json_object *iom_rd_member(struct iom_rd *c, json_object *o, const char *key);
/* The member key as an object or an array; NULL when absent, an error when of another type. */
json_object *iom_rd_obj(struct iom_rd *c, json_object *o, const char *prefix, const char *key);
json_object *iom_rd_arr(struct iom_rd *c, json_object *o, const char *prefix, const char *key);
/* Whether v is a JSON integer of at least 0. */
bool iom_rd_is_uint(json_object *v);
/* Typed members, left as they are when absent, an error naming the field when of the wrong
 * type or out of range; iom_rd_u64v reads the value v itself. */
void iom_rd_u64v(struct iom_rd *c, json_object *v, const char *prefix, const char *key,
		 uint64_t *out);
void iom_rd_u64(struct iom_rd *c, json_object *o, const char *prefix, const char *key,
		uint64_t *out);
void iom_rd_u32(struct iom_rd *c, json_object *o, const char *prefix, const char *key,
		uint32_t *out);
void iom_rd_double(struct iom_rd *c, json_object *o, const char *prefix, const char *key,
		   double *out);
void iom_rd_rate(struct iom_rd *c, json_object *o, const char *prefix, const char *key,
		 double *out);
void iom_rd_bool(struct iom_rd *c, json_object *o, const char *prefix, const char *key,
		 bool *out);
/* A string member into *out (heap, the old value freed). */
void iom_rd_str(struct iom_rd *c, json_object *o, const char *prefix, const char *key,
		char **out);
/* The whole of text as one JSON object with a 'schema' from 1 to max_schema (*schema);
 * NULL with c's error otherwise ("not WHAT", truncated, trailing data). The caller puts it. */
json_object *iom_rd_parse_root(struct iom_rd *c, const char *text, int max_schema,
			       const char *what, int *schema);
/* An own file read whole, at most cap bytes (ownfile.h); 0 or -errno with err. */
int iom_rd_read_text(const char *path, size_t cap, char **text, char *err, size_t errlen);
/* Seconds as a file holds them → nanoseconds (0 for anything not finite and positive). */
uint64_t iom_rd_secs_to_ns(double s);

#endif
