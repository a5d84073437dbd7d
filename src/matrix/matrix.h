/* SPDX-License-Identifier: MIT */
/*
 * matrix — a matrix file read with libconfig into a validated model. Nothing here runs anything:
 * the model (model.h) is plain data that plan.c expands and run.c executes. Every error names the file
 * and line ("FILE:LINE: what is wrong and what is allowed"), libconfig giving the line.
 *
 * Only this module includes <libconfig.h>.
 */
#ifndef IOM_MATRIX_H
#define IOM_MATRIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keys.h"

#define IOM_MATRIX_SCHEMA 1

/* struct iom_override (a --set KEY=VALUE) is plain data of model.h. */

/*
 * Reads and validates the matrix file at path, applying the overrides in order. On success
 * *out is a new model the caller frees with iom_matrix_free(). On failure returns -errno (or
 * -EINVAL for an invalid matrix) with "FILE:LINE: message" in err.
 */
int iom_matrix_load(const char *path, const struct iom_override *ov, size_t nov,
		    struct iom_matrix **out, char *err, size_t errlen);

/* As iom_matrix_load(), from text in memory; name is used in messages. */
int iom_matrix_parse(const char *name, const char *text, const struct iom_override *ov,
		     size_t nov, struct iom_matrix **out, char *err, size_t errlen);

void iom_matrix_free(struct iom_matrix *m);

/* Index of the target labelled label, or -1. */
int iom_matrix_target_index(const struct iom_matrix *m, const char *label);

/* Whether files written for m show dimension d: every dimension but a quiet key (keys.h,
 * IOM_KEY_SPARSE) that every target of m leaves at its default. The plan's TSV and JSON and each
 * result's cell follow it, so that a study that does not use a key added later writes them as
 * before. */
bool iom_matrix_dim_shown(const struct iom_matrix *m, enum iom_dim d);

/*
 * Many hosts (docs/hosts.md): m learns the job it runs in, before it is planned — nranks ranks
 * (0 or 1: this host alone) on the short hostnames hosts[rank] (NULL: this host's for each).
 * hosts = "each" makes the host dimension one value per rank, labelled "r1@vm2"; a ranks value
 * above nranks is refused: -EINVAL with "FILE:LINE: ranks 3 is more than the 2 ranks …".
 */
int iom_matrix_place(struct iom_matrix *m, unsigned nranks, const char *const *hosts, char *err,
		     size_t errlen);

#endif
