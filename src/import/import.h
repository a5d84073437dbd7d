/* SPDX-License-Identifier: MIT */
/*
 * import — `iomatrix import FILE`: another tool's job description turned into a commented
 * matrix file. Three readers, one per format:
 *   - a fio job file (import_fio.c): global and job sections, include, ${VAR}; each job a cell,
 *     jobs that differ in a parameter a dimension of it;
 *   - a DiskSpd XML profile (import_diskspd.c, libxml2): its <Profile> read into the same
 *     struct iom_diskspd a DiskSpd command line fills (diskspd.h), so `iomatrix diskspd -X` and
 *     the import give the matrix `iomatrix diskspd` gives;
 *   - an IOMeter .icf file (import_icf.c): its access specifications (access_specs) and the
 *     outstanding-I/O sweep of its test setup (queue_depth).
 * Every option or field a reader has no equivalent for is a problem naming FILE:LINE and the
 * option; with lenient they are kept as comments at the top of the matrix instead. The matrix
 * is text read back by matrix.c before it is handed out, so what import writes always checks.
 */
#ifndef IOM_IMPORT_H
#define IOM_IMPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "import_in.h"

enum iom_import_format {
	IOM_IMPORT_AUTO,
	IOM_IMPORT_FIO,
	IOM_IMPORT_DISKSPD,
	IOM_IMPORT_ICF,
};

/*
 * Imports path (format AUTO: by its name's ending, .fio .ini .job; .xml; .icf; else by its
 * first bytes). Returns 0 with im->text set (problems with lenient are in it as comments, and
 * in im->problems); -EINVAL when the file has options with no equivalent (im->problems names
 * each; err says how many) or the matrix made is not valid (err); another -errno when the file
 * cannot be read. Release im with iom_import_release() either way.
 */
int iom_import_file(const char *path, enum iom_import_format format, bool lenient,
		    struct iom_import *im, char *err, size_t errlen);

#endif
