/* SPDX-License-Identifier: MIT */
/*
 * fuzz_import — libFuzzer harness for the readers of `iomatrix import`: the first byte picks
 * the reader (fio job file, DiskSpd XML profile, IOMeter .icf), the rest is the file. Any bytes
 * must give a matrix that the matrix reader accepts, or problems and a message, never a crash,
 * a leak or a sanitizer report; leniently too.
 *
 * Seeds: tests/fixtures/import (see tests/fuzz/run.sh), each behind its reader's byte.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "import/diskspd.h"
#include "import/import.h"
#include "matrix/matrix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct iom_import im = { 0 };
	struct iom_matrix *m = NULL;
	char err[512], *text;
	bool lenient;
	int kind, ret;

	if (size < 1)
		return 0;
	kind = data[0] % 3;
	lenient = data[0] & 4;
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	if (kind == 0) {
		ret = iom_import_fio("fuzz.fio", text, lenient, &im, err, sizeof(err));
	} else if (kind == 1) {
		ret = iom_import_icf("fuzz.icf", text, lenient, &im, err, sizeof(err));
	} else {
		struct iom_diskspd d;

		ret = iom_import_diskspd_profile("fuzz.xml", text, strlen(text), lenient, &d, &im,
						 err, sizeof(err));
		if (ret == 0) {
			ret = iom_diskspd_matrix(&d, &im.text, err, sizeof(err));
			iom_diskspd_release(&d);
		}
	}
	if (ret == 0 && im.text && iom_matrix_parse("fuzz", im.text, NULL, 0, &m, err,
						    sizeof(err)) == 0)
		iom_matrix_free(m);
	iom_import_release(&im);
	free(text);
	return 0;
}
