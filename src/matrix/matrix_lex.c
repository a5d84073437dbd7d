/* SPDX-License-Identifier: MIT */
/*
 * matrix_lex — steps 1 and 2 of reading a matrix: the prescan and libconfig.
 *
 * The prescan is a small lexer over the raw text that libconfig 1.5 needs in front of it. It
 * refuses @include (a matrix is one self-contained file, so the results directory holds all of
 * it) and integer literals beyond 64 bits, and appends an L to integers beyond 32 bits, which
 * libconfig would otherwise silently wrap (4294967296 would read as 0). libconfig then parses the
 * text; its syntax errors keep their line, with a hint for the two mistakes everyone makes
 * (unquoted "4K", unquoted words). The --set overrides go through the same prescan.
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
int mx_prescan(struct ctx *c, const char *text, char **out)
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
				ret = mx_fail_line(c, line, "syntax error%s", syntax_hint(text_line));
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
				ret = mx_fail_line(c, start_line, "unterminated string (no closing \")");
				goto out;
			}
			PUT(*p++);
			prev = 'S';
		} else if (*p == '@') {
			if (strncmp(p, "@include", 8) == 0) {
				ret = mx_fail_line(c, line, "@include is not supported: a matrix is one "
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
				ret = mx_fail_line(c, line, "integer %.*s is too large (at most "
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

int mx_parse_text(struct ctx *c, const char *text)
{
	char *scanned, line[256];
	const char *msg, *hint = "";
	int ret;

	ret = mx_prescan(c, text, &scanned);
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
	return mx_fail_line(c, config_error_line(&c->cfg), "%s%s", msg, hint);
}
