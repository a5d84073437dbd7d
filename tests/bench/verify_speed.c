/* SPDX-License-Identifier: MIT */
/*
 * verify_speed — the throughput of data verification itself, no I/O: the 4 KiB blocks of a
 * 64 MiB region, 64 at a time in 64 buffer slots of random data (in cache, as a worker's
 * buffers are), stamped as a verified write stamps them (a header and a CRC-32 per 512-byte
 * sector), then checked as a verified read checks them, over and over for the seconds given;
 * then the CRC alone over the slots' 512-byte sectors. Prints "stamp check crc" in MB/s, with
 * the CRC this binary was linked with: the library's (ISA-L, crc.c), or zlib's when crc_zlib.o
 * comes first on the link line (verify before ISA-L; tests/bench/crc.sh runs both).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc.h"
#include "engine/engine.h"
#include "rng.h"
#include "util.h"
#include "verify.h"

#define BS 4096u
#define REGION (64u << 20)
#define SLOTS (256u << 10) /* the I/O buffers: 64 slots of 4 KiB, in cache as a worker's are */

static double mb_s(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes / 1e6 / ((double)ns / 1e9) : 0.0;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	struct iom_worker_hooks hooks = { 0 };
	struct iom_verify *v = iom_verify_new(REGION);
	char err[IOM_ERRLEN];
	struct iom_rng rng;
	uint64_t t0, stamp_ns = 0, check_ns = 0, bytes = 0;
	unsigned char *region = malloc(SLOTS);

	if (!v || !region || iom_verify_begin(v, 1, 42, 1, BS, &hooks, err, sizeof(err)) < 0) {
		fprintf(stderr, "verify_speed: cannot set up: %s\n", err);
		return 1;
	}
	iom_rng_seed(&rng, 1);
	iom_rng_fill(&rng, region, SLOTS);
	t0 = iom_now_ns();
	while ((double)(iom_now_ns() - t0) < secs * 1e9) {
		for (uint64_t base = 0; base < REGION; base += SLOTS) {
			uint64_t a = iom_now_ns(), b;

			for (uint64_t off = base; off < base + SLOTS; off += BS) {
				struct iom_io io = { .buf = region + off % SLOTS, .offset = off,
						     .len = BS, .op = IOM_OP_WRITE, .res = BS };

				iom_verify_prepare_write(v, 0, &io);
			}
			b = iom_now_ns();
			for (uint64_t off = base; off < base + SLOTS; off += BS) {
				struct iom_io io = { .buf = region + off % SLOTS, .offset = off,
						     .len = BS, .op = IOM_OP_READ, .res = BS };

				if (iom_verify_check_read(v, 0, &io, err, sizeof(err)) < 0) {
					fprintf(stderr, "verify_speed: %s\n", err);
					return 1;
				}
			}
			stamp_ns += b - a;
			check_ns += iom_now_ns() - b;
		}
		bytes += REGION;
	}
	{
		uint64_t crc_bytes = 0, t1;
		uint32_t sum = 0;

		t1 = iom_now_ns();
		while ((double)(iom_now_ns() - t1) < secs * 1e9) {
			for (size_t off = 0; off < REGION; off += IOM_VERIFY_SECTOR)
				sum ^= iom_crc32(0, region + off % SLOTS, IOM_VERIFY_SECTOR);
			crc_bytes += REGION;
		}
		printf("%.0f %.0f %.0f %s\n", mb_s(bytes, stamp_ns), mb_s(bytes, check_ns),
		       mb_s(crc_bytes, iom_now_ns() - t1), sum == 0x12345678 ? "." : "");
	}
	free(region);
	iom_verify_free(v);
	return 0;
}
