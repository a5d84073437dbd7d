/* SPDX-License-Identifier: MIT */
/*
 * fuzz_result — libFuzzer harness for the results reader: the input is parsed as a run result
 * (iom_result_parse, from memory) and as a study.json (iom_study_read, through an in-memory
 * file). Either gives a model or a "NAME: message", never a crash, a leak or a sanitizer report.
 *
 * Seeds: tests/fixtures/results/ and tests/fixtures/report/ JSON files (see tests/fuzz/run.sh).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "result/result.h"
#include "result/study.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct iom_result_file f;
	struct iom_study_info s;
	char err[512];
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&f, 0, sizeof(f));
	if (iom_result_parse("fuzz.json", text, &f, err, sizeof(err)) == 0)
		(void)iom_result_cell_get(&f, "block_size");
	iom_result_file_release(&f);
	free(text);

	if (fd < 0) {
		fd = memfd_create("fuzz-study", 0);
		if (fd < 0)
			return 0;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		return 0;
	memset(&s, 0, sizeof(s));
	if (iom_study_read(path, &s, err, sizeof(err)) == 0)
		(void)iom_study_target_find(&s, "a");
	iom_study_info_release(&s);
	return 0;
}
