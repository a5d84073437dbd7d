/* SPDX-License-Identifier: MIT */
/*
 * import_in — what the readers of `iomatrix import` share (design in import.h): the import's
 * result and its problems, the one way a job file is read, and each reader's entry point, which
 * import.c picks from. Below import.c, so that the readers never reach up to the frame.
 */
#ifndef IOM_IMPORT_IN_H
#define IOM_IMPORT_IN_H

#include <stdbool.h>
#include <stddef.h>

struct iom_diskspd;

/* What an import came to: the matrix text, and the problems found (each "FILE:LINE: ..."). */
struct iom_import {
	char *text;        /* the matrix (heap); NULL when a problem refused the import */
	char **problems;   /* heap strings; refusals, or with lenient what became comments */
	size_t nproblems;
};

void iom_import_release(struct iom_import *im);

/* Adds a problem "FILE:LINE: message" to im (the readers' one way to refuse). */
void iom_import_problem(struct iom_import *im, const char *file, unsigned line, const char *fmt,
			...) __attribute__((format(printf, 4, 5)));

/* Reads path whole into a new NUL-terminated buffer: a regular file (a link to one is fine: the
 * user names it) of at most a matrix file's cap (ownfile.h), holding no NUL byte. 0, or -errno
 * with err naming the file. The caller frees *buf. */
int iom_import_read(const char *path, char **buf, size_t *len, char *err, size_t errlen);

/* The readers (buf: the file's text, NUL-terminated). */
int iom_import_fio(const char *path, const char *buf, bool lenient, struct iom_import *im,
		   char *err, size_t errlen);
int iom_import_icf(const char *path, const char *buf, bool lenient, struct iom_import *im,
		   char *err, size_t errlen);

/*
 * Reads a DiskSpd XML profile (its <Profile>: the first <TimeSpan>'s duration, warm-up,
 * cool-down, random seed, <Affinity>, and its <Targets>) into d, as iom_diskspd_parse() fills
 * it from flags (d released first; release it with iom_diskspd_release()). What has no
 * equivalent is a problem in im (with lenient a note of d). 0, or -EINVAL with err.
 */
int iom_import_diskspd_profile(const char *path, const char *buf, size_t len, bool lenient,
			       struct iom_diskspd *d, struct iom_import *im, char *err,
			       size_t errlen);

#endif
