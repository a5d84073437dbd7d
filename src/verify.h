/* SPDX-License-Identifier: MIT */
/*
 * verify — data verification (workload key `verify = true`): block headers and checksums.
 *
 * The unit is the 512-byte sector: every sector of every written block carries a 48-byte
 * header at its start (native byte order):
 *     magic "IOMVRFY1" · offset of the sector on the target · run seed · the thread's write
 *     sequence · run index · thread · crc32 (zlib) of the whole sector with this field as 0
 * and every sector of every read is checked against it. 512 bytes because it is the smallest
 * block size and the smallest logical sector a device has, so a header never straddles what a
 * device writes atomically, and a later read cell of any block size finds every header where it
 * expects it. (The block size of a verified cell must be a multiple of 512.)
 *
 * What a read is checked against. A read sector either carries the magic or not:
 *   - magic present: the header's offset must be the sector's own offset (a misdirected or lost
 *     write shows as another offset) and the crc32 must match (a changed byte anywhere in the
 *     sector). Any failure is a mismatch. Run, seed and sequence say who wrote it; they are not
 *     compared, because a read cell checks what an earlier run of the study wrote.
 *   - magic absent: the sector was never written with verification (the scratch fill, a
 *     non-verified cell, an earlier study) — counted as "unwritten", not a mismatch — unless the
 *     verifier knows it wrote that sector: a verified run that completed on this target in this
 *     sweep marks its sectors in a bitmap (one bit per sector, kept while it takes at most
 *     IOM_VERIFY_MAP_MAX bytes), and a known sector without a header is a mismatch (a sector
 *     zeroed, trimmed or overwritten behind iomatrix's back). The caller forgets the bitmap
 *     whenever something else may have written the target (iom_verify_forget).
 *
 * Mismatches are counted; the first IOM_VERIFY_KEEP are kept with offset, expected and found.
 * A run with mismatches fails (the sweep marks it); after IOM_VERIFY_MAX_ERRORS the read hook
 * returns -EILSEQ so that a run of garbage stops early.
 *
 * The hooks run in the worker threads, in the hot path: per-thread counters on their own cache
 * lines, relaxed atomic ORs into the pending bitmap, no lock and no allocation.
 */
#ifndef IOM_VERIFY_H
#define IOM_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "result/result.h"
#include "worker.h"

#define IOM_VERIFY_SECTOR 512u
#define IOM_VERIFY_HEADER 48u
#define IOM_VERIFY_MAGIC UINT64_C(0x31594652564d4f49) /* "IOMVRFY1" in little-endian memory */
#define IOM_VERIFY_KEEP 8u
#define IOM_VERIFY_MAX_ERRORS 64u
#define IOM_VERIFY_MAP_MAX (16u << 20) /* bytes per bitmap: regions up to 64 GiB are tracked */

struct iom_verify;

/*
 * A verifier for one target of a sweep whose I/O goes to [0, region). It lives across the
 * sweep's runs on that target; free it with iom_verify_free() (NULL is fine).
 */
struct iom_verify *iom_verify_new(uint64_t region);
void iom_verify_free(struct iom_verify *v);

/*
 * Prepares v for one run (index, seed, threads) and points hooks->ctx, prepare_write and
 * check_read at it (the caller's hooks struct; record/record_ctx are left alone). 0, or -EINVAL
 * with a message when the block size is not a multiple of IOM_VERIFY_SECTOR.
 */
int iom_verify_begin(struct iom_verify *v, uint32_t run, uint64_t seed, unsigned threads,
		     uint32_t block_size, struct iom_worker_hooks *hooks, char *err, size_t errlen);

/*
 * Ends the run begun last: fills out (the result's verify block; heap strings owned by the
 * result) and, when the run completed (ok), adds the sectors it wrote to the known-written
 * bitmap. Returns the number of mismatches.
 */
uint64_t iom_verify_end(struct iom_verify *v, bool ok, struct iom_run_verify *out);

/* Forgets which sectors are known to be written: something other than a verified run may have
 * written the target (a non-verified writing run, a hook). */
void iom_verify_forget(struct iom_verify *v);

/* The hooks themselves (worker.h), for tests; ctx is the struct iom_verify. */
void iom_verify_prepare_write(void *ctx, unsigned thread, struct iom_io *io);
int iom_verify_check_read(void *ctx, unsigned thread, const struct iom_io *io, char *err,
			  size_t errlen);

#endif
