/* SPDX-License-Identifier: MIT */
/*
 * summary — DIR/summary.csv: a row per run, appended as runs finish, rewritten whole from
 * runs/ at a sweep's end (docs/results.md names its columns).
 */
#ifndef IOM_SUMMARY_H
#define IOM_SUMMARY_H

#include <stddef.h>

struct iom_cell;
struct iom_matrix;
struct iom_own_dir;
struct iom_run_result;

/*
 * Appends r's row to DIR/summary.csv (writing the header first when the file is new) with one
 * write and an fsync. A crash can leave a torn or duplicate row; iom_summary_rebuild() repairs
 * it, and the sweep calls that at its end.
 */
int iom_summary_append(const struct iom_own_dir *d, const struct iom_matrix *m,
		       const struct iom_cell *c, const struct iom_run_result *r, char *err,
		       size_t errlen);

/* Rewrites DIR/summary.csv from every DIR/runs/NNNNN.json (in index order), whole or not at all. */
int iom_summary_rebuild(const struct iom_own_dir *d, char *err, size_t errlen);

#endif
