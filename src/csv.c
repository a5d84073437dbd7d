/* SPDX-License-Identifier: MIT */
/*
 * csv — RFC 4180 fields onto a stdio stream (csv.h). Errors stay in the stream: the caller
 * checks ferror() or fclose() once, after the whole file.
 */
#include "csv.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "units.h"

void iom_csv_field(FILE *f, const char *s, bool first)
{
	if (!first)
		fputc(',', f);
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void iom_csv_num(FILE *f, double x)
{
	char buf[64];

	if (!isfinite(x)) {
		fputc(',', f);
		return;
	}
	iom_double_format(x, buf, sizeof(buf));
	iom_csv_field(f, buf, false);
}

void iom_csv_uint(FILE *f, uint64_t v, bool first)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	iom_csv_field(f, buf, first);
}

void iom_csv_end(FILE *f)
{
	fputc('\n', f);
}
