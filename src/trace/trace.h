/* SPDX-License-Identifier: MIT */
/*
 * trace — the compressed per-I/O trace of a run: a record of every completed I/O (submit time,
 * latency, read or write, offset, size, thread), written while the run goes on, and read back
 * by `iomatrix trace` and by anyone with a zlib (docs/trace.md specifies the format byte by byte).
 *
 * Writing. iom_trace_open() creates the file and one ring per worker thread, allocated up front
 * (a fixed number of 32-byte slots, a power of two), and starts one writer thread. Each worker
 * hands its completions to its own ring with iom_trace_record() (usable directly as the worker's
 * `record` hook) or iom_trace_put(): a few stores and one release-store of the ring's head, no
 * lock, no system call, never a wait. When a ring is full the record is dropped and counted, and
 * the next record that gets through is marked as following a gap. The writer thread drains the
 * rings, encodes each thread's records in blocks (columns of varints: delta-coded offsets and
 * times, latencies, flags), compresses them with ISA-L's igzip (gzip container, so `zcat` opens
 * the file)
 * and writes them. About once a second it ends the compressed data with a sync flush, so after a
 * crash of the process everything up to the last flush can be read back. iom_trace_close() drains
 * what is left, writes the end record (per-thread counts of records and drops) and the gzip
 * trailer, and fsyncs. Memory stays the same however long the run.
 *
 * Reading. iom_trace_reader_open()/_next() decode a trace record by record, block by block: a
 * block is delivered whole (checked by its CRC-32) or not at all. Truncated, corrupt and foreign
 * files give an error that says which, after how many records and where the last complete block
 * ends; what came before is delivered. Nothing in a file can make the reader crash or allocate
 * without bound. iom_trace_export() turns a trace into CSV or fio latency logs.
 *
 * Order: records of one thread come back in the order that thread completed them; blocks of
 * different threads are interleaved in the order the writer drained them, so across threads
 * records are only roughly in time order (sort by time_ns for a global order).
 *
 * Only trace.c includes <isa-l/igzip_lib.h> (writing) and trace_read.c <zlib.h> (reading); the
 * CRCs go through crc.h (ISA-L's CRC, zlib's crc32_combine).
 */
#ifndef IOM_TRACE_H
#define IOM_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

/* Version 1: every trace of a closed-loop run (written as before). Version 2: a paced run's
 * (docs/load.md), whose header has IOM_TRACE_HAS_LAG and whose blocks carry a lag column.
 * The reader reads both. */
#define IOM_TRACE_VERSION 2
#define IOM_TRACE_SUFFIX ".trace.gz"

/* Ring size per thread (records) when the caller leaves it 0 — for up to 16 threads; more share
 * 32 MiB, at least 4096 records each — and the smallest one taken. A record is 32 bytes. */
#define IOM_TRACE_RING_DEFAULT 65536u
#define IOM_TRACE_RING_MIN 16u
/* Most records the writer puts in one block; the most a reader accepts in one. */
#define IOM_TRACE_BLOCK_RECORDS 16384u
#define IOM_TRACE_BLOCK_MAX 65536u
/* Default interval between sync flushes (how much a crash can lose), and compression level. */
#define IOM_TRACE_FLUSH_MS_DEFAULT 1000u
#define IOM_TRACE_LEVEL_DEFAULT 1

/* The part of the run an I/O completed in, as the worker counted it. */
enum iom_trace_phase {
	IOM_TRACE_PHASE_UNKNOWN = 0, /* recorded through iom_trace_record(): not known */
	IOM_TRACE_PHASE_WARMUP = 1,
	IOM_TRACE_PHASE_MEASURED = 2, /* counted in the run's results */
	IOM_TRACE_PHASE_COOLDOWN = 3,
};

/* Switches of iom_trace_open(), for tests. */
enum {
	IOM_TRACE_PAUSED = 1u << 0, /* the writer drains nothing until iom_trace_resume() or close */
};

/* What the trace header records, and how to write. */
struct iom_own_dir;

struct iom_trace_info {
	uint32_t run_index;      /* the plan index of the run (names traces/NNNNN.trace.gz) */
	const char *cell;        /* one line describing the cell (iom_cell_describe); may be NULL */
	uint64_t start_wall_ns;  /* iom_wall_ns() at the start of the run */
	uint64_t start_mono_ns;  /* iom_now_ns() at the same moment: record times count from it */
	unsigned nthreads;       /* worker threads: record() takes thread 0 … nthreads − 1 */
	unsigned ring_records;   /* per-thread ring, rounded up to a power of two; 0: default */
	unsigned flush_ms;       /* sync flush interval; 0: IOM_TRACE_FLUSH_MS_DEFAULT */
	int level;               /* ISA-L igzip level 1 … 3; 0: IOM_TRACE_LEVEL_DEFAULT */
	bool phases;             /* the caller will pass phases with iom_trace_put() */
	bool lags;               /* a paced run: records carry their due time
				  * (iom_trace_record_due); the file is version 2 */
	unsigned flags;          /* IOM_TRACE_PAUSED */
	const struct iom_own_dir *own; /* the pinned directory the path is under, or NULL: the
					* trace and traces/ are never opened through a link */
};

/* What iom_trace_close() reports. */
struct iom_trace_stats {
	uint64_t records;        /* written to the file */
	uint64_t dropped;        /* lost because a ring was full (or a thread out of range) */
	uint64_t bytes;          /* size of the file */
	double bytes_per_io;     /* bytes / records (0 when there are none) */
};

struct iom_trace;

/*
 * Creates path (truncating an old file; its parent directory is created when missing, one
 * level), writes the header and starts the writer thread. *out is the caller's until
 * iom_trace_close(). 0, or -errno with "cannot create 'PATH': …" in err.
 */
int iom_trace_open(const char *path, const struct iom_trace_info *info, struct iom_trace **out,
		   char *err, size_t errlen);

/*
 * Hands one completed I/O of worker `thread` to the trace (ctx is the struct iom_trace). Called
 * only from that worker's thread (one producer per ring); never blocks, allocates or makes a
 * system call. The signature is struct iom_worker_hooks' `record`; the record's phase is the one
 * the worker set in io->phase (0, UNKNOWN, when it set none).
 */
void iom_trace_record(void *ctx, unsigned thread, const struct iom_io *io);

/* As iom_trace_record() for ios[0 .. n) in that order, with one load and one store of the ring's
 * head for them all (the closed loop's batch of completions). The signature is struct
 * iom_worker_hooks' `record_batch`. */
void iom_trace_record_batch(void *ctx, unsigned thread, struct iom_io *const *ios, unsigned n);

/* As iom_trace_record(), for a paced run: due_ns is when the I/O was due (≤ its submit stamp),
 * recorded as its lag in a trace opened with info.lags (ignored otherwise). The signature is
 * struct iom_worker_hooks' `record_due`. */
void iom_trace_record_due(void *ctx, unsigned thread, const struct iom_io *io, uint64_t due_ns);

/* As iom_trace_record(), with the phase the worker counted the I/O in. */
void iom_trace_put(struct iom_trace *t, unsigned thread, const struct iom_io *io,
		   enum iom_trace_phase phase);

/* Lets a trace opened with IOM_TRACE_PAUSED drain its rings. */
void iom_trace_resume(struct iom_trace *t);

/*
 * Ends the trace, once every producer has stopped (the workers were joined): drains the rings,
 * writes the end record and the gzip trailer, fsyncs the file and its directory, and frees t
 * (also on failure; NULL is fine). Fills *stats (may be NULL). 0, or -errno with the reason in
 * err (a write that failed during the run is reported here).
 */
int iom_trace_close(struct iom_trace *t, struct iom_trace_stats *stats, char *err, size_t errlen);

/* DIR/traces/NNNNN.trace.gz for a plan index (5 digits, more when needed); the caller frees it. */
char *iom_trace_path(const char *dir, uint32_t index);

/* ---- reading ---- */

/* A trace's header, as read back. */
struct iom_trace_header {
	uint32_t version;
	uint32_t run_index;
	uint32_t nthreads;
	uint32_t clock_id;       /* 1: CLOCK_MONOTONIC */
	uint32_t ring_records;
	uint32_t flags;          /* bit 0: records carry phases */
	uint64_t start_wall_ns, start_mono_ns;
	char *cell;              /* NUL-terminated, owned by the reader */
};
#define IOM_TRACE_HAS_PHASES 1u
#define IOM_TRACE_HAS_LAG 2u     /* version 2: records carry lag_ns */

/* One I/O, as read back. */
struct iom_trace_rec {
	int64_t time_ns;         /* submitted, ns after the header's start_mono_ns */
	uint64_t latency_ns;     /* completed − submitted */
	uint64_t offset;
	uint32_t bytes;          /* asked for */
	int32_t res;             /* bytes transferred or −errno; equals bytes for a full I/O */
	uint32_t thread;
	uint8_t op;              /* enum iom_op: 0 read, 1 write */
	uint8_t phase;           /* enum iom_trace_phase */
	bool gap;                /* records of this thread were dropped just before this one */
	uint64_t lag_ns;         /* a paced run's: submitted − due (0 in a trace without lags);
				  * response time = lag_ns + latency_ns */
};

/* The end record: per-thread counts the writer wrote and dropped. */
struct iom_trace_end {
	unsigned nthreads;
	uint64_t *records, *dropped; /* nthreads entries each, owned by the reader */
	uint64_t records_total, dropped_total;
};

struct iom_trace_reader;

/*
 * Opens path and reads its header. 0 with *out set (free it with iom_trace_reader_free()), or
 * -errno with "PATH: …" in err: -EINVAL "not an iomatrix trace", -ENOTSUP for a newer version,
 * -ENODATA truncated in the header, -EBADMSG corrupt header, or the open/read error.
 */
int iom_trace_reader_open(const char *path, struct iom_trace_reader **out, char *err,
			  size_t errlen);

const struct iom_trace_header *iom_trace_reader_header(const struct iom_trace_reader *r);

/*
 * The next record into *rec: 1, or 0 at the end of a complete trace (end record and gzip
 * trailer checked, counts matching), or -errno with "PATH: …" in err: -ENODATA "truncated after
 * N records (last complete block at byte X)", -EBADMSG "corrupt after N records (last complete
 * block at byte X): why", or a read error. Byte offsets count the decompressed stream. After an
 * error every call returns it again.
 */
int iom_trace_reader_next(struct iom_trace_reader *r, struct iom_trace_rec *rec, char *err,
			  size_t errlen);

/* The end record once iom_trace_reader_next() returned 0, else NULL. */
const struct iom_trace_end *iom_trace_reader_end(const struct iom_trace_reader *r);

/* Records delivered so far. */
uint64_t iom_trace_reader_count(const struct iom_trace_reader *r);

void iom_trace_reader_free(struct iom_trace_reader *r);

/*
 * Calls fn for every record of path, in file order; fn returns 0 to go on or a negative value
 * to stop (returned as is). Returns 0 when the whole trace was read, else the reader's error (the
 * records before it were delivered). hdr (may be NULL) gets a copy of the header whose cell the
 * caller frees.
 */
int iom_trace_read(const char *path, struct iom_trace_header *hdr,
		   int (*fn)(void *ctx, const struct iom_trace_rec *rec), void *ctx, char *err,
		   size_t errlen);

/* ---- export ---- */

enum iom_trace_format { IOM_TRACE_CSV, IOM_TRACE_FIO, IOM_TRACE_FIO_PLOT };

/* "csv" → IOM_TRACE_CSV, "fio" → IOM_TRACE_FIO, "fio-plot" → IOM_TRACE_FIO_PLOT; -1 for
 * anything else. */
int iom_trace_format_parse(const char *name);

struct iom_trace_export {
	enum iom_trace_format format;
	/*
	 * csv: the output file; NULL or "-" for standard output. fio: the prefix of the files
	 * PREFIX_lat.N.log, one per thread (N = thread + 1, as fio numbers jobs); NULL: the input's
	 * file name without ".trace.gz" (or ".gz"), in the current directory. A trace with lags
	 * (a paced run) also gets PREFIX_clat.N.log (service time, as in _lat) and
	 * PREFIX_resp.N.log (response time, due → completion). fio-plot: as fio, and per thread
	 * PREFIX_bw.N.log and PREFIX_iops.N.log too — fio's logs averaged over 1000 ms
	 * (log_avg_msec=1000): "msec, value, ddir, 0, 0, 0" per direction and second, the KiB/s
	 * or the I/Os completed in it; PREFIX is the caller's (fio-plot's file names).
	 */
	const char *out;
	bool measured_only;      /* only records of the measured window (needs a trace with phases) */
};

/*
 * Writes the records of trace `in` as x says. csv: a header row
 * "time_ns,latency_ns,op,offset,bytes,thread" (a trace with lags adds ",due_ns,response_ns")
 * then one row per record in file order (op is "read" or "write"). fio: fio's latency log with log_offset=1 — "msec, lat_ns, ddir, bs,
 * offset, 0" with msec the completion time in whole milliseconds after the start. On a
 * truncated or corrupt input the intact records are written, then the reader's error returned.
 * *nrecords (may be NULL) gets the number of records written. 0 or -errno with err.
 */
int iom_trace_export(const char *in, const struct iom_trace_export *x, uint64_t *nrecords,
		     char *err, size_t errlen);

#endif
