/* SPDX-License-Identifier: MIT */
/*
 * csv — the one CSV writer (RFC 4180, LF line ends) of every CSV file iomatrix writes:
 * summary.csv (result.c) and `report --format csv` (report_fmt.c). Numbers have the form of
 * the JSON files (units.h's iom_double_format: nine significant digits, no exponent for
 * ordinary magnitudes), so a figure reads the same in runs/NNNNN.json, summary.csv and the
 * report.
 */
#ifndef IOM_CSV_H
#define IOM_CSV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* One field, preceded by a comma unless first: quoted when it holds a comma, a quote, CR or LF,
 * quotes doubled; NULL is an empty field. */
void iom_csv_field(FILE *f, const char *s, bool first);
/* A number field (never first) in the files' form; empty when x is not finite. */
void iom_csv_num(FILE *f, double x);
/* An unsigned integer field, first or not. */
void iom_csv_uint(FILE *f, uint64_t v, bool first);
/* Ends the row. */
void iom_csv_end(FILE *f);

#endif
