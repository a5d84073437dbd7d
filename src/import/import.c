/* SPDX-License-Identifier: MIT */
/*
 * import — the frame of `iomatrix import` (design in import.h): read the file (import_in.c),
 * pick its reader, collect the problems, and check the matrix made before handing it out.
 */
#include "import.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskspd.h"
#include "matrix/matrix.h"
#include "util.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcasecmp(s + a - b, suffix) == 0;
}

/* The format of a file: by its name, else by its first bytes. */
static enum iom_import_format detect(const char *path, const char *buf)
{
	const char *p = buf;

	if (ends_with(path, ".fio") || ends_with(path, ".ini") || ends_with(path, ".job"))
		return IOM_IMPORT_FIO;
	if (ends_with(path, ".xml"))
		return IOM_IMPORT_DISKSPD;
	if (ends_with(path, ".icf"))
		return IOM_IMPORT_ICF;
	if (strncmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '<')
		return IOM_IMPORT_DISKSPD;
	if (strstr(buf, "'TEST SETUP") || strstr(buf, "'ACCESS SPECIFICATIONS"))
		return IOM_IMPORT_ICF;
	return IOM_IMPORT_FIO;
}

int iom_import_file(const char *path, enum iom_import_format format, bool lenient,
		    struct iom_import *im, char *err, size_t errlen)
{
	struct iom_matrix *m = NULL;
	char *buf, e[IOM_ERRLEN];
	size_t len = 0;
	int ret;

	memset(im, 0, sizeof(*im));
	if ((ret = iom_import_read(path, &buf, &len, err, errlen)) < 0)
		return ret;
	if (format == IOM_IMPORT_AUTO)
		format = detect(path, buf);
	switch (format) {
	case IOM_IMPORT_DISKSPD: {
		struct iom_diskspd d;

		ret = iom_import_diskspd_profile(path, buf, len, lenient, &d, im, err, errlen);
		if (ret == 0) {
			ret = iom_diskspd_matrix(&d, &im->text, err, errlen);
			iom_diskspd_release(&d);
		}
		break;
	}
	case IOM_IMPORT_ICF:
		ret = iom_import_icf(path, buf, lenient, im, err, errlen);
		break;
	default:
		ret = iom_import_fio(path, buf, lenient, im, err, errlen);
		break;
	}
	free(buf);
	if (ret < 0) {
		free(im->text);
		im->text = NULL;
		return ret;
	}
	ret = iom_matrix_parse(path, im->text, NULL, 0, &m, e, sizeof(e));
	iom_matrix_free(m);
	if (ret < 0) {
		free(im->text);
		im->text = NULL;
		return iom_err(err, errlen, EINVAL, "the matrix made from %s is not valid: %s", path,
			       e);
	}
	return 0;
}
