/* SPDX-License-Identifier: MIT */
/*
 * keys_print — the key table printed: `iomatrix help keys` wrapped to the terminal, Markdown for
 * docs/matrix.md (--markdown) and roff for iomatrix-matrix(5) (--man), every line from the rows
 * of keys.c (`make docs` puts the last two in the docs; check_plan.sh and man_pages.sh fail when
 * they are stale).
 */
#include "keys.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The name of a key as a user finds it: "workload.block_size", "iomatrix". */
static void qualified_name(const struct iom_key *k, char *buf, size_t len)
{
	if (k->section == IOM_SEC_TOP)
		snprintf(buf, len, "%s", k->name);
	else
		snprintf(buf, len, "%s.%s", iom_section_name(k->section), k->name);
}

static void default_text(const struct iom_key *k, char *buf, size_t len)
{
	if (k->flags & IOM_KEY_REQUIRED)
		snprintf(buf, len, "required");
	else if (k->def)
		snprintf(buf, len, "%s", k->def);
	else
		snprintf(buf, len, "-");
}

/* Prints s for a Markdown table cell: '|' would end the cell. */
static void md_cell(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', out);
		fputc(*s, out);
	}
}

/* The UTF-8 characters of the key table's help text, as roff's named glyphs (groff warns on raw
 * bytes above 127 and other formatters print them as garbage). */
static const struct {
	const char *utf8, *roff;
} roff_glyphs[] = {
	{ "\u2026", "..." },   { "\u00d7", "\\(mu" }, { "\u00b5", "\\(*m" }, { "\u2014", "\\(em" },
	{ "\u2013", "\\(en" }, { "\u2265", "\\(>=" }, { "\u2264", "\\(<=" }, { "\u2192", "\\(->" },
	{ "\u00b1", "\\(+-" }, { "\u2018", "\\(oq" }, { "\u2019", "\\(cq" },
};

/* Text for roff: backslashes doubled, '-' as "\-", a leading '.' or '\'' guarded, and the help
 * text's UTF-8 characters as named glyphs. */
static void roff_text(FILE *out, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", out);
	for (; *s; s++) {
		size_t g;

		for (g = 0; g < IOM_ARRAY_SIZE(roff_glyphs); g++) {
			size_t n = strlen(roff_glyphs[g].utf8);

			if (strncmp(s, roff_glyphs[g].utf8, n) == 0)
				break;
		}
		if (g < IOM_ARRAY_SIZE(roff_glyphs)) {
			fputs(roff_glyphs[g].roff, out);
			s += strlen(roff_glyphs[g].utf8) - 1;
		} else if (*s == '\\')
			fputs("\\e", out);
		else if (*s == '-')
			fputs("\\-", out);
		else
			fputc(*s, out);
	}
}

void iom_keys_print_man(FILE *out)
{
	char name[64], range[128], def[64];

	for (size_t i = 0; i < iom_nkeys; i++) {
		const struct iom_key *k = &iom_keys[i];

		if (k->flags & IOM_KEY_MOVED)
			continue;
		qualified_name(k, name, sizeof(name));
		iom_key_range_text(k, range, sizeof(range));
		default_text(k, def, sizeof(def));
		fputs(".TP\n.B ", out);
		roff_text(out, name);
		fputs("\n.I ", out);
		roff_text(out, iom_type_name(k->type));
		if (range[0]) {
			fputs(", ", out);
			roff_text(out, range);
		}
		if (strcmp(def, "required") == 0) {
			fputs("; required", out);
		} else if (strcmp(def, "-") != 0) {
			fputs("; default ", out);
			roff_text(out, def);
		}
		fputs(".\n", out);
		roff_text(out, k->help);
		if (k->flags & IOM_KEY_RESERVED)
			fputs(" (reserved: checked, not yet acted on)", out);
		fputc('\n', out);
	}
}

void iom_keys_print(FILE *out, bool markdown)
{
	char name[64], range[128], def[64];
	int wname = 0, wtype = 0, wrange = 0, wdef = 0;

	for (size_t i = 0; i < iom_nkeys; i++) {
		const struct iom_key *k = &iom_keys[i];

		qualified_name(k, name, sizeof(name));
		iom_key_range_text(k, range, sizeof(range));
		default_text(k, def, sizeof(def));
		wname = IOM_MAX(wname, (int)strlen(name));
		wtype = IOM_MAX(wtype, (int)strlen(iom_type_name(k->type)));
		wrange = IOM_MAX(wrange, (int)strlen(range));
		wdef = IOM_MAX(wdef, (int)strlen(def));
	}
	if (markdown) {
		fprintf(out, "| key | type | values | default | meaning |\n");
		fprintf(out, "|---|---|---|---|---|\n");
	} else {
		fprintf(out, "%-*s  %-*s  %-*s  %-*s  %s\n", wname, "KEY", wtype, "TYPE", wrange,
			"VALUES", wdef, "DEFAULT", "MEANING");
	}
	for (size_t i = 0; i < iom_nkeys; i++) {
		const struct iom_key *k = &iom_keys[i];
		const char *resnote = k->flags & IOM_KEY_RESERVED
					      ? " (reserved: checked, not yet acted on)"
					      : "";

		if (k->flags & IOM_KEY_MOVED)
			continue;
		qualified_name(k, name, sizeof(name));
		iom_key_range_text(k, range, sizeof(range));
		default_text(k, def, sizeof(def));
		if (markdown) {
			fprintf(out, "| `%s` | %s | ", name, iom_type_name(k->type));
			md_cell(out, range);
			fprintf(out, " | %s | ", def);
			md_cell(out, k->help);
			fprintf(out, "%s |\n", resnote);
		} else {
			fprintf(out, "%-*s  %-*s  %-*s  %-*s  %s%s\n", wname, name, wtype,
				iom_type_name(k->type), wrange, range, wdef, def, k->help,
				resnote);
		}
	}
	if (!markdown) {
		fprintf(out, "\nevery workload key may also be set in a target (it overrides the "
			     "workload's value there)\nand may be a list [ ... ] or a range "
			     "{ from = ...; to = ...; } (doubling) or { from; to; step } (adding):\n"
			     "each list or range is a dimension of the plan; the targets are the "
			     "dimension \"target\"\n");
	}
}

/* ---- the key table wrapped to a width (help keys on a terminal) ---- */

/* Columns of the UTF-8 text p[0..n): one per character. */
static int utf8_cols(const char *p, size_t n)
{
	int c = 0;

	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)p[i] & 0xC0) != 0x80;
	return c;
}

/* Writes text at indent, wrapped at spaces so that no line passes width (a word longer than the
 * line stands alone); the first line starts at column col. */
static void wrap_text(FILE *out, const char *text, int indent, int col, int width)
{
	const char *p = text;
	bool fresh = true; /* nothing written on this line yet */

	while (*p) {
		size_t wl = strcspn(p, " ");

		if (!fresh && col + 1 + utf8_cols(p, wl) > width) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
			fresh = true;
		} else if (!fresh) {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, wl, out);
		col += utf8_cols(p, wl);
		fresh = false;
		p += wl;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}

void iom_keys_print_wrapped(FILE *out, int width)
{
	char name[64], range[128], def[64], head[512];

	for (size_t i = 0; i < iom_nkeys; i++) {
		const struct iom_key *k = &iom_keys[i];
		char *meaning;

		if (k->flags & IOM_KEY_MOVED)
			continue;
		qualified_name(k, name, sizeof(name));
		iom_key_range_text(k, range, sizeof(range));
		default_text(k, def, sizeof(def));
		snprintf(head, sizeof(head), "%s  %s%s%s  default %s", name, iom_type_name(k->type),
			 range[0] ? " " : "", range, def);
		wrap_text(out, head, 4, 0, width);
		meaning = xasprintf("%s%s", k->help, k->flags & IOM_KEY_RESERVED
					  ? " (reserved: checked, not yet acted on)" : "");
		fprintf(out, "    ");
		wrap_text(out, meaning, 4, 4, width);
		free(meaning);
	}
	fputc('\n', out);
	wrap_text(out, "every workload key may also be set in a target (it overrides the workload's "
		  "value there) and may be a list [ ... ] or a range { from = ...; to = ...; } "
		  "(doubling) or { from; to; step } (adding): each list or range is a dimension of "
		  "the plan; the targets are the dimension \"target\"", 0, 0, width);
}
