/* SPDX-License-Identifier: MIT */
/*
 * fuzz_trace — libFuzzer harness for the trace reader: the input is written to an in-memory
 * file (memfd) and read with iom_trace_reader_open()/_next() to its end or its error. Nothing
 * in a file may make the reader crash, leak or loop (trace.h promises it).
 *
 * Most mutations of a compressed file only break its deflate stream, so an input whose first
 * byte is odd is taken as the decompressed stream instead: the rest is gzip-compressed here
 * and then read, which lets the fuzzer work on the header, blocks and records themselves.
 *
 * Seeds: the files of tests/fixtures/trace/, and their decompressed streams behind a 0x01
 * byte (see tests/fuzz/run.sh).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include <stdlib.h>
#include <zlib.h>

#include "trace/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* data gzip-compressed into a new buffer (*out, caller frees); its length, or 0. */
static size_t gzip_of(const uint8_t *data, size_t size, uint8_t **out)
{
	z_stream z = { 0 };
	size_t cap = compressBound((uLong)size) + 64;
	uint8_t *buf = malloc(cap);

	*out = NULL;
	if (!buf || deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(buf);
		return 0;
	}
	z.next_in = (Bytef *)data;
	z.avail_in = (uInt)size;
	z.next_out = buf;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&z);
		free(buf);
		return 0;
	}
	deflateEnd(&z);
	*out = buf;
	return cap - z.avail_out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *gz = NULL;
	static int fd = -1;
	static char path[64];
	struct iom_trace_reader *r = NULL;
	struct iom_trace_rec rec;
	char err[512];
	int ret;

	if (fd < 0) {
		fd = memfd_create("fuzz-trace", 0);
		if (fd < 0)
			return 0;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (size && (data[0] & 1)) {
		size = gzip_of(data + 1, size - 1, &gz);
		data = gz;
		if (!gz)
			return 0;
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size) {
		free(gz);
		return 0;
	}
	free(gz);
	if (iom_trace_reader_open(path, &r, err, sizeof(err)) < 0)
		return 0;
	(void)iom_trace_reader_header(r);
	while ((ret = iom_trace_reader_next(r, &rec, err, sizeof(err))) == 1)
		;
	if (ret == 0)
		(void)iom_trace_reader_end(r);
	(void)iom_trace_reader_count(r);
	iom_trace_reader_free(r);
	return 0;
}
