/* SPDX-License-Identifier: MIT */
/*
 * import_in — the readers' shared part (import_in.h): the problems they collect and the one
 * way a job file is read (ownfile.h: a regular file, a matrix file's size cap, never blocking
 * on a FIFO).
 */
#include "import_in.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ownfile.h"
#include "util.h"

void iom_import_release(struct iom_import *im)
{
	for (size_t i = 0; i < im->nproblems; i++)
		free(im->problems[i]);
	free(im->problems);
	free(im->text);
	memset(im, 0, sizeof(*im));
}

void iom_import_problem(struct iom_import *im, const char *file, unsigned line, const char *fmt,
			...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	im->problems = xrealloc(im->problems, (im->nproblems + 1) * sizeof(*im->problems));
	im->problems[im->nproblems++] = line ? xasprintf("%s:%u: %s", file, line, msg)
					     : xasprintf("%s: %s", file, msg);
}

int iom_import_read(const char *path, char **buf, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	size_t n = 0;
	int ret;

	*buf = NULL;
	/* said as an input's problem; iom_own_read checks again on what it opened */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return iom_err(err, errlen, EINVAL, "'%s' is not a regular file (a %s): give a "
			       "job file", path, S_ISDIR(st.st_mode) ? "directory"
			       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "device" : "FIFO or socket");
	ret = iom_own_read(NULL, path, IOM_OWN_FOLLOW, IOM_OWN_CAP_MATRIX, buf, &n, err, errlen);
	if (ret < 0)
		return ret;
	if (memchr(*buf, '\0', n)) {
		free(*buf);
		*buf = NULL;
		return iom_err(err, errlen, EINVAL, "'%s' holds NUL bytes: not a text file", path);
	}
	if (len)
		*len = n;
	return 0;
}
