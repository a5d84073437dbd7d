/* SPDX-License-Identifier: MIT */
/*
 * verify — sector headers for data verification (design in verify.h).
 *
 * State per target: the region, two bitmaps (known: sectors a completed verified run wrote;
 * pending: sectors the current run stamped, merged into known by iom_verify_end when the run
 * completed), and per run the per-thread counters and the first mismatches. The checksum is
 * zlib's crc32, computed by ISA-L (crc.h).
 */
#include "verify.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "crc.h"
#include "util.h"

#define RELAXED memory_order_relaxed

/* The header at the start of every sector; 48 bytes, native byte order. */
struct hdr {
	uint64_t magic;
	uint64_t offset;
	uint64_t seed;
	uint64_t seq;
	uint32_t run;
	uint32_t thread;
	uint32_t crc;
	uint32_t pad;
};
_Static_assert(sizeof(struct hdr) == IOM_VERIFY_HEADER, "verify header is 48 bytes");

/* Per-thread counters, each on its own cache line; written only by their thread. */
struct tstat {
	_Alignas(64) uint64_t written, checked, unwritten, seq;
};

struct slot {
	_Atomic int ready;
	uint64_t offset;
	char expected[96];
	char found[160];
};

struct iom_verify {
	uint64_t region, nsectors;
	_Atomic uint64_t *known, *pending; /* NULL when the region is too large to track */
	bool known_valid;                  /* known holds something worth checking against */
	/* the run in progress */
	uint32_t run;
	uint64_t seed;
	unsigned threads;
	struct tstat *ts;
	_Atomic uint64_t mismatches;
	_Atomic unsigned nslots;
	struct slot slots[IOM_VERIFY_KEEP];
};

struct iom_verify *iom_verify_new(uint64_t region)
{
	struct iom_verify *v = xcalloc(1, sizeof(*v));
	uint64_t words;

	v->region = region;
	v->nsectors = region / IOM_VERIFY_SECTOR;
	words = (v->nsectors + 63) / 64;
	if (words && words * 8 <= IOM_VERIFY_MAP_MAX) {
		/* calloc may fail for a large map: the verifier then checks headers only */
		v->known = calloc(words, 8);
		v->pending = calloc(words, 8);
		if (!v->known || !v->pending) {
			free((void *)v->known);
			free((void *)v->pending);
			v->known = v->pending = NULL;
		}
	}
	return v;
}

void iom_verify_free(struct iom_verify *v)
{
	if (!v)
		return;
	free((void *)v->known);
	free((void *)v->pending);
	free(v->ts);
	free(v);
}

void iom_verify_forget(struct iom_verify *v)
{
	if (v && v->known) {
		memset((void *)v->known, 0, (v->nsectors + 63) / 64 * 8);
		v->known_valid = false;
	}
}

int iom_verify_begin(struct iom_verify *v, uint32_t run, uint64_t seed, unsigned threads,
		     uint32_t block_size, struct iom_worker_hooks *hooks, char *err, size_t errlen)
{
	if (block_size % IOM_VERIFY_SECTOR)
		return iom_err(err, errlen, EINVAL,
			       "verify needs a block size that is a multiple of %u (not %" PRIu32 ")",
			       IOM_VERIFY_SECTOR, block_size);
	free(v->ts);
	v->ts = aligned_alloc(64, sizeof(*v->ts) * (threads ? threads : 1));
	if (!v->ts)
		return iom_err(err, errlen, ENOMEM, "cannot allocate the verifier's counters");
	memset(v->ts, 0, sizeof(*v->ts) * (threads ? threads : 1));
	v->run = run;
	v->seed = seed;
	v->threads = threads;
	atomic_store(&v->mismatches, 0);
	atomic_store(&v->nslots, 0);
	for (unsigned i = 0; i < IOM_VERIFY_KEEP; i++)
		atomic_store(&v->slots[i].ready, 0);
	if (v->pending)
		memset((void *)v->pending, 0, (v->nsectors + 63) / 64 * 8);
	hooks->ctx = v;
	hooks->prepare_write = iom_verify_prepare_write;
	hooks->check_read = iom_verify_check_read;
	return 0;
}

uint64_t iom_verify_end(struct iom_verify *v, bool ok, struct iom_run_verify *out)
{
	unsigned n = IOM_MIN(atomic_load(&v->nslots), IOM_VERIFY_KEEP);

	memset(out, 0, sizeof(*out));
	out->enabled = true;
	for (unsigned t = 0; v->ts && t < v->threads; t++) {
		out->sectors_written += v->ts[t].written;
		out->sectors_checked += v->ts[t].checked;
		out->sectors_unwritten += v->ts[t].unwritten;
	}
	out->mismatches = atomic_load(&v->mismatches);
	if (n)
		out->first = xcalloc(n, sizeof(*out->first));
	for (unsigned i = 0; i < n; i++) {
		const struct slot *s = &v->slots[i];

		if (!atomic_load_explicit(&s->ready, memory_order_acquire))
			continue;
		out->first[out->nfirst].offset = s->offset;
		out->first[out->nfirst].expected = xstrdup(s->expected);
		out->first[out->nfirst].found = xstrdup(s->found);
		out->nfirst++;
	}
	if (ok && v->known && v->pending && out->sectors_written) {
		uint64_t words = (v->nsectors + 63) / 64;

		for (uint64_t w = 0; w < words; w++)
			v->known[w] |= v->pending[w];
		v->known_valid = true;
	}
	free(v->ts);
	v->ts = NULL;
	return out->mismatches;
}

void iom_verify_prepare_write(void *ctx, unsigned thread, struct iom_io *io)
{
	struct iom_verify *v = ctx;
	struct tstat *ts = &v->ts[thread];
	char *p = io->buf;

	for (uint32_t off = 0; off + IOM_VERIFY_SECTOR <= io->len; off += IOM_VERIFY_SECTOR) {
		struct hdr h = {
			.magic = IOM_VERIFY_MAGIC,
			.offset = io->offset + off,
			.seed = v->seed,
			.seq = ts->seq,
			.run = v->run,
			.thread = thread,
		};
		uint64_t sector = h.offset / IOM_VERIFY_SECTOR;

		memcpy(p + off, &h, sizeof(h));
		h.crc = iom_crc32(0, p + off, IOM_VERIFY_SECTOR);
		memcpy(p + off + offsetof(struct hdr, crc), &h.crc, sizeof(h.crc));
		if (v->pending && sector < v->nsectors)
			atomic_fetch_or_explicit(&v->pending[sector / 64], UINT64_C(1) << (sector % 64),
						 RELAXED);
		ts->written++;
	}
	ts->seq++;
}

/* Records a mismatch; keeps its text when it is among the first IOM_VERIFY_KEEP. */
static uint64_t mismatch(struct iom_verify *v, uint64_t offset, const char *expected,
			 const char *found)
{
	uint64_t n = atomic_fetch_add_explicit(&v->mismatches, 1, RELAXED) + 1;
	unsigned i = atomic_fetch_add_explicit(&v->nslots, 1, RELAXED);

	if (i < IOM_VERIFY_KEEP) {
		struct slot *s = &v->slots[i];

		s->offset = offset;
		snprintf(s->expected, sizeof(s->expected), "%s", expected);
		snprintf(s->found, sizeof(s->found), "%s", found);
		atomic_store_explicit(&s->ready, 1, memory_order_release);
	}
	return n;
}

static bool is_known(const struct iom_verify *v, uint64_t offset)
{
	uint64_t sector = offset / IOM_VERIFY_SECTOR;

	return v->known_valid && v->known && sector < v->nsectors &&
	       (v->known[sector / 64] >> (sector % 64) & 1);
}

int iom_verify_check_read(void *ctx, unsigned thread, const struct iom_io *io, char *err,
			  size_t errlen)
{
	static const uint8_t zero[4];
	struct iom_verify *v = ctx;
	struct tstat *ts = &v->ts[thread];
	const char *p = io->buf;
	uint64_t n = 0;

	for (uint32_t off = 0; off + IOM_VERIFY_SECTOR <= io->len; off += IOM_VERIFY_SECTOR) {
		const char *s = p + off;
		uint64_t at = io->offset + off;
		char expected[96], found[160];
		struct hdr h;
		uint32_t crc;

		memcpy(&h, s, sizeof(h));
		if (h.magic != IOM_VERIFY_MAGIC) {
			if (!is_known(v, at)) {
				ts->unwritten++;
				continue;
			}
			snprintf(expected, sizeof(expected), "a header for offset %" PRIu64, at);
			snprintf(found, sizeof(found),
				 "no header (first bytes %02x %02x %02x %02x %02x %02x %02x %02x)",
				 (uint8_t)s[0], (uint8_t)s[1], (uint8_t)s[2], (uint8_t)s[3],
				 (uint8_t)s[4], (uint8_t)s[5], (uint8_t)s[6], (uint8_t)s[7]);
			n = mismatch(v, at, expected, found);
			continue;
		}
		ts->checked++;
		crc = iom_crc32(0, s, offsetof(struct hdr, crc));
		crc = iom_crc32(crc, zero, sizeof(zero));
		crc = iom_crc32(crc, s + offsetof(struct hdr, pad),
				IOM_VERIFY_SECTOR - offsetof(struct hdr, pad));
		if (h.offset == at && h.crc == crc)
			continue;
		if (h.offset != at) { /* a misdirected or lost write */
			snprintf(expected, sizeof(expected), "a header for offset %" PRIu64, at);
			snprintf(found, sizeof(found),
				 "a header for offset %" PRIu64 " (run %" PRIu32 ", thread %" PRIu32
				 ", write %" PRIu64 ")",
				 h.offset, h.run, h.thread, h.seq);
		} else { /* changed bytes */
			snprintf(expected, sizeof(expected),
				 "crc32 %08" PRIx32 " (run %" PRIu32 ", thread %" PRIu32
				 ", write %" PRIu64 ")",
				 h.crc, h.run, h.thread, h.seq);
			snprintf(found, sizeof(found), "crc32 %08" PRIx32 " of the sector as read",
				 crc);
		}
		n = mismatch(v, at, expected, found);
	}
	if (n >= IOM_VERIFY_MAX_ERRORS)
		return iom_err(err, errlen, EILSEQ,
			       "data verification stopped after %" PRIu64 " mismatched sectors", n);
	return 0;
}
