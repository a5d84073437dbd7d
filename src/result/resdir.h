/* SPDX-License-Identifier: MIT */
/*
 * resdir — the layout of a results directory (result.h lists it): DIR/runs/NNNNN.json by plan
 * index, DIR/matrix.cfg as run, the runs a directory holds.
 */
#ifndef IOM_RESDIR_H
#define IOM_RESDIR_H

#include <stddef.h>
#include <stdint.h>

struct iom_own_dir;

/* DIR is d->path, the results directory the sweep opened and pinned (ownfile.h): every file
 * below is reached from its descriptor, never through a link. */

/* Creates DIR/runs when missing. 0 or -errno with err. */
int iom_results_dir_create(const struct iom_own_dir *d, char *err, size_t errlen);

/* DIR/runs/NNNNN.json for a plan index (5 digits, more when needed); the caller frees it. */
char *iom_result_path(const char *dir, uint32_t index);

/* Writes the matrix text as run to DIR/matrix.cfg, whole or not at all. */
int iom_results_write_matrix(const struct iom_own_dir *d, const char *text, char *err,
			     size_t errlen);

/* The plan indices of DIR/runs/NNNNN.json, ascending (*idx heap, caller frees). 0 or -errno. */
int iom_result_list(const char *dir, uint32_t **idx, size_t *n, char *err, size_t errlen);

#endif
