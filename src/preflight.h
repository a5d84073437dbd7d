/* SPDX-License-Identifier: MIT */
/*
 * preflight — what can be known before a sweep starts about whether its runs can work on this
 * machine, found without writing anything: no file created, no mark set, no directory made, no
 * device opened for writing. `iomatrix check` reports it, and `run` and `resume` refuse on an
 * error before they create the results directory, so that an overnight sweep does not fail at
 * 2 a.m. for a reason that was knowable at 6 p.m.
 *
 * For every target that still has runs to do (on resume: runs the journal does not call done):
 *   - a scratch file that does not exist yet: its directory exists, is a directory and is
 *     writable (access W_OK|X_OK); a missing path under /dev/ is a missing device (unless it
 *     is on a filesystem mounted there, as /dev/shm);
 *   - an existing path: a regular file or a block device (not a directory, a dangling symbolic
 *     link, a character device …); a file that must be filled or is written is writable;
 *   - free space (statvfs: f_bfree for root, f_bavail otherwise) covers the bytes the scratch
 *     files still need: a new file its size, an existing one its size less the bytes already
 *     allocated to it (st_blocks); targets on one filesystem add up;
 *   - a block device: its size (BLKGETSIZE64) is not zero and holds the target's region
 *     (size); a target with any cell that writes (read_pct < 100: the precondition built-in
 *     writes only before such cells) has destructive = true;
 *   - a filesystem-dimension target (fs_type, fsprep.h): the device exists and is a block
 *     device, and the scratch file (raw: the region) is not larger than the device. Nothing is
 *     asked of the filesystem that the sweep makes later: its free space, the signatures and
 *     mounts on the device (fsprep checks those at mkfs, knowing which filesystems are the
 *     study's own).
 * And a warning (never an error) when the traces might not fit: an estimate of
 * IOM_PREFLIGHT_TRACE_BYTES_PER_IO bytes per I/O (the bound the trace tests assert; measured
 * traces take 0.7 – 6.5) × the I/Os of every run still to do — a time-bound run at an assumed
 * IOM_PREFLIGHT_ASSUMED_IOPS per second over its warm-up, measured window and cool-down, a
 * bytes-bound one its bytes / block size plus its warm-up and cool-down at that rate — against
 * the free space of the results directory's filesystem (its nearest existing ancestor), less
 * what scratch files on that filesystem take.
 *
 * Each problem names the matrix line to fix: the target's line for everything about a target
 * (its path, size, destructive), the timing section's line for the trace estimate.
 */
#ifndef IOM_PREFLIGHT_H
#define IOM_PREFLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"

#define IOM_PREFLIGHT_TRACE_BYTES_PER_IO 8u
#define IOM_PREFLIGHT_ASSUMED_IOPS 100000u

struct iom_preflight_opts {
	const char *results_dir;  /* where the results go (need not exist yet); NULL: no trace
				   * estimate */
	bool no_trace;            /* --no-trace: no trace estimate */
	const uint8_t *pending;   /* per run index 1 … nruns: non-zero when the run is still to
				   * do (resume); NULL: every run */
	uint64_t assumed_iops;    /* 0: IOM_PREFLIGHT_ASSUMED_IOPS */
};

/* One problem: msg without the "FILE:LINE: " prefix (the file is the plan's matrix's). */
struct iom_preflight_diag {
	bool error;               /* false: a warning */
	int line;
	char *msg;
};

struct iom_preflight {
	struct iom_preflight_diag *d;  /* in line order */
	size_t n;
	size_t errors, warnings;
};

/*
 * Checks plan p against this machine as described above, writing nothing, and puts what it
 * found into pf (the caller's; release it with iom_preflight_release() whatever the result).
 * Returns 0; the problems are in pf (pf->errors > 0: the sweep cannot run as written).
 */
int iom_preflight_check(const struct iom_plan *p, const struct iom_preflight_opts *o,
			struct iom_preflight *pf);
void iom_preflight_release(struct iom_preflight *pf);

#endif
