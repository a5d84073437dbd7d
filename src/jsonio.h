/* SPDX-License-Identifier: MIT */
/*
 * jsonio — the json-c helpers every JSON file iomatrix writes is built with: runs/NNNNN.json,
 * study.json (result.c) and `report --format json` (report_fmt.c). One form for numbers, one
 * for times, one layout, so the files agree to the digit.
 *
 * A double is written as units.h's iom_double_format() spells it (nine significant digits, no
 * exponent for ordinary magnitudes) and read back exactly as json-c parses it; a non-finite
 * double, a NULL string and an unset time are written as null. Only this module, result.c and
 * the report writers include json-c.
 */
#ifndef IOM_JSONIO_H
#define IOM_JSONIO_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/* x as a JSON number in the files' form, or NULL (JSON null) when x is not finite. */
json_object *iom_json_num(double x);
/* A copy of s as a JSON string, or NULL (JSON null) for NULL. */
json_object *iom_json_str(const char *s);
/* A wall-clock time (ns since the epoch) as "2026-03-01T12:00:00Z", or NULL when ns is 0. */
json_object *iom_json_utc(uint64_t ns);
/* A 128-bit count (a histogram's sum of squares) as a string of its decimal digits: a JSON
 * number would round past 2^53. */
json_object *iom_json_u128(unsigned __int128 v);
/* Adds v (NULL: null) to object o under key; o takes v's reference. */
void iom_json_add(json_object *o, const char *key, json_object *v);
/* Marks an array or a flat object to be written on one line inside a pretty file; returns o. */
json_object *iom_json_one_line(json_object *o);
/* The n numbers at v as an array on one line, written as iom_json_one_line writes one; built
 * as its text, not as a json-c object per number (a kept histogram's bins), so only for a file
 * being written: the array reads as empty. */
json_object *iom_json_u64_array(const uint64_t *v, size_t n);
/* o as the files hold it: pretty, spaced, '/' unescaped, a final newline. The caller frees. */
char *iom_json_text(json_object *o);

#endif
