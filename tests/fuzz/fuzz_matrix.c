/* SPDX-License-Identifier: MIT */
/*
 * fuzz_matrix — libFuzzer harness for the matrix reader: any bytes handed to iom_matrix_parse()
 * must give a model or a "NAME:LINE: message", never a crash, a leak or a sanitizer report. A
 * model that parses is also expanded into its plan when the plan is small (iom_plan_count first,
 * as the binary does), so the plan builder sees every shape the parser accepts.
 *
 * Seeds: the .cfg files of matrices/ and tests/bad/ (see tests/fuzz/run.sh).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "matrix/matrix.h"
#include "plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct iom_matrix *m = NULL;
	char err[512];

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (iom_matrix_parse("fuzz.cfg", text, NULL, 0, &m, err, sizeof(err)) == 0) {
		size_t nruns = 0;

		if (iom_plan_count(m, &nruns, err, sizeof(err)) == 0 && nruns <= 4096) {
			struct iom_plan p;

			if (iom_plan_build(m, &p, err, sizeof(err)) == 0)
				iom_plan_release(&p);
		}
		iom_matrix_free(m);
	}
	free(text);
	return 0;
}
