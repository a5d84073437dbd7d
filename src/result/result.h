/* SPDX-License-Identifier: MIT */
/*
 * result — one run's measurements, and their JSON form in the results directory.
 *
 * run.c fills a struct iom_run_result; result.c writes it as runs/NNNNN.json (atomically) and
 * reads it back. The report reads only these files, never live state, so reports can be rebuilt
 * long after the runs. docs/results.md documents every field; IOM_RESULT_SCHEMA is bumped on
 * any incompatible change.
 *
 * The results directory (resdir.c owns its layout; study.c study.json, summary.c summary.csv):
 *   DIR/matrix.cfg        the matrix as run
 *   DIR/study.json        provenance: tool, plan hash, host, kernel, CPU, targets and device facts
 *   DIR/runs/NNNNN.json   one per finished run, NNNNN = plan index (5 digits or more)
 *   DIR/summary.csv       one row per run: appended (and fsync'd) after each run, rewritten whole
 *                         from runs/ by iom_summary_rebuild() at the end of a sweep
 *
 * result.c writes a run file, result_read.c reads it back; result_json.h is what those and
 * study.c share (the family's inside). Only jsonio.c, the result family and the report writers
 * include <json-c/json.h>.
 */
#ifndef IOM_RESULT_H
#define IOM_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu.h"
#include "hist.h"
#include "matrix/matrix.h"
#include "target/target.h"

#define IOM_RESULT_SCHEMA 1

struct iom_cell;
struct iom_own_dir;
struct json_object;
struct iom_plan;

/* The latency percentiles every result carries: 1 … 99, then 3- to 9-nines. */
#define IOM_NPCT 16
extern const double iom_percentiles[IOM_NPCT];

/* Index into iom_percentiles[] of pct (exactly as listed there), or -1. */
int iom_percentile_index(double pct);

enum iom_dir { IOM_DIR_READ, IOM_DIR_WRITE, IOM_DIR_TOTAL, IOM_NDIR };

struct iom_lat {
	uint64_t min, max;       /* ns */
	double mean, stddev;     /* ns */
	uint64_t pct[IOM_NPCT];  /* ns, at iom_percentiles[] */
};

struct iom_io_stats {
	uint64_t ios, bytes;
	double iops;
	double mb_s;             /* decimal: 10^6 bytes per second */
	double mib_s;            /* 2^20 bytes per second */
	struct iom_lat lat;
};

/* Per-thread figures, as DiskSpd prints them. */
struct iom_thread_stats {
	struct {
		uint64_t ios, bytes;
		double lat_mean_ns, lat_stddev_ns;
	} dir[IOM_NDIR];
};

/* One line of a run's access spec: its values as run (inherited ones filled in) and the
 * counted I/O it did: ios and bytes by direction and in total, rates, and the latency of
 * all its I/O (dir[IOM_DIR_TOTAL].lat; the per-direction latencies are not kept). */
struct iom_line_stats {
	uint32_t share, block_size, read_pct, random_pct;
	uint64_t align;
	struct iom_io_stats dir[IOM_NDIR];
};

/* I/O completed in one interval of the measured window (IOM_INTERVAL_NS long, but for the
 * last, which ends with the window). */
#define IOM_INTERVAL_NS 1000000000ull
/* one path of a target with several: what the threads on it (thread i on path
 * i % npaths) counted in the measured window, by direction and in total (rates, no
 * latencies). */
struct iom_path_stats {
	char *path;              /* the resolved path (heap) */
	struct iom_io_stats dir[IOM_NDIR];
};

struct iom_interval {
	uint64_t ios[2], bytes[2];  /* [IOM_DIR_READ], [IOM_DIR_WRITE] */
	uint64_t ns;                /* its real length; 0 (a file from before): 1 s */
	/* The latency of its I/O (all of it, service time): p50, p99 and max (hist.h
	 * iom_hist_delta: within a bucket's width), from lat_ios I/Os (0: none, or a file from
	 * before per-interval latencies; the result's has_iv_lat says which). */
	uint64_t p50_ns, p99_ns, max_ns, lat_ios;
};
/* the interval's length in seconds (its ns, or 1 s when unrecorded). */
double iom_interval_secs(const struct iom_interval *iv);
/* an interval of the full IOM_INTERVAL_NS (give or take 1 %, the controller's
 * wake-up); the spread of a run's rates is taken over these only. */
bool iom_interval_full(const struct iom_interval *iv);

enum iom_run_status { IOM_RUN_OK, IOM_RUN_FAILED, IOM_RUN_INTERRUPTED };

/* a run that measured fewer I/Os than this has too few for its latency percentiles to
 * mean anything (its p99 would be about its mean): they read "n/a (only N I/Os)", it is flagged
 * ("too_few_ios" in the run file) and its p99 is left out of verdicts. */
#define IOM_MIN_PCT_IOS 100
/* "n/a (only 42 I/Os)" into buf when ios (> 0) is under IOM_MIN_PCT_IOS, and true;
 * else false and buf "". */
bool iom_result_few_ios_text(uint64_t ios, char *buf, size_t len);

/*
 * A measured window that stalled (run.c judges it): no I/O completed for IOM_STALL_GAP_NS or
 * more while I/O was outstanding, or a duration-bound window ran more than IOM_STALL_OVERRUN_PCT
 * past the duration asked (and by at least IOM_STALL_OVERRUN_MIN_NS: a 50 ms window that ends
 * 10 ms late is a controller woken late on a busy machine, not a stall). The figures of such a run are not what the device does: the report
 * flags it and leaves it out of its verdicts. JSON "stalled": an object, or null when the run did
 * not stall (files written before stalls were judged have no such field: not stalled).
 */
#define IOM_STALL_GAP_NS 1000000000ull
#define IOM_STALL_OVERRUN_PCT 10
#define IOM_STALL_OVERRUN_MIN_NS 250000000ull
struct iom_run_stall {
	bool stalled;
	double gap_s;      /* the longest time in the window that no I/O completed */
	double at_s;       /* when it began, seconds into the window */
	double window_s;   /* the measured window */
	double asked_s;    /* the duration asked; 0 for a bytes-bound window */
	char *reason;      /* heap: "no I/O completed for 4.0 s, from 1.2 s into the window" */
};

/* One sector whose data did not verify (verify.h): where, and what was expected and found. */
struct iom_verify_mismatch {
	uint64_t offset;     /* byte offset of the 512-byte sector on the target */
	char *expected;      /* heap, e.g. "offset 4096, crc32 1a2b3c4d" */
	char *found;         /* heap, e.g. "offset 8192 (run 3, thread 0, write 17), crc32 …" */
};

/* Data verification of a run (workload key verify; verify.h, docs/hardening.md). */
struct iom_run_verify {
	bool enabled;
	uint64_t sectors_written;    /* sectors stamped with a header */
	uint64_t sectors_checked;    /* sectors read whose header was checked */
	uint64_t sectors_unwritten;  /* sectors read that carry no header: never written verified */
	uint64_t mismatches;         /* sectors read whose header or checksum was wrong */
	struct iom_verify_mismatch *first; /* heap, the first nfirst mismatches */
	size_t nfirst;
};

struct iom_run_cpu {
	unsigned ncpu;
	struct iom_cpu_pct *per_cpu;   /* ncpu entries (heap) */
	struct iom_cpu_pct avg;
	double busy_pct;               /* 100 − idle − iowait, averaged over CPUs */
	double proc_user_s, proc_sys_s;
	double us_per_io;              /* (process user + system) µs per measured I/O */
	uint64_t interrupts;           /* on the IRQ lines of the target's driver */
	double interrupts_per_io;
	char *irq_drivers;             /* which drivers' lines were counted (may be NULL) */
	/* the system's CPU, all CPUs, over the measured window (cpu.h iom_cpu_system_diff):
	 * what the driver's interrupt and softirq work costs lands here, not in the process */
	double system_busy_pct;        /* busy jiffies / all jiffies × 100 */
	double system_us_per_io;       /* all CPUs' busy time (µs) per measured I/O */
	double iops_per_busy_pct;      /* IOMeter's "CPU effectiveness": IOPS per busy % */
	uint64_t busy_jiffies, all_jiffies; /* the sampled window's, as /proc/stat counts them */
	/* what other processes took in the window, in % of one core: the system's busy time less
	 * this process's (every thread) and the interrupt and softirq time its I/O causes; the
	 * CPU figures above include it. NaN when unknown (older runs) */
	double other_pct;
};

/* Other processes above this many % of a core in a run's window make its CPU figures noise:
 * the report flags the run (report.max_other_cpu). */
#define IOM_OTHER_CPU_PCT 25.0

/*
 * The offered load of a paced run (rate_iops or rate_mb_s; docs/load.md). The service time of
 * each I/O (submission → completion) is the run's ordinary latency (dir[].lat); the response
 * time (due → completion: what the application waits, a queue-full delay included) is here.
 * JSON "load": an object, or null for a closed-loop run (and in files written before).
 */
#define IOM_LOAD_HELD_PCT 1.0  /* achieved within this of offered: the schedule held */
struct iom_run_load {
	bool paced;
	bool poisson;            /* arrivals = "poisson" (else fixed) */
	double offered_iops;     /* the rate asked, in I/O per second (rate_mb_s: over bs) */
	double achieved_iops;    /* counted I/Os over the measured window */
	uint64_t late_ios;       /* counted I/Os submitted more than IOM_LATE_NS after due */
	double max_lag_s;        /* the largest delay from due to submission */
	bool held;               /* iom_load_held */
	struct iom_lat response[IOM_NDIR];
	struct iom_hist_sparse response_hist[IOM_NDIR]; /* the response times' histograms */
};

/*
 * Whether a paced run held its schedule: fixed arrivals achieved within IOM_LOAD_HELD_PCT % of
 * offered; Poisson arrivals not behind it by more than that and by more than three standard
 * deviations of a window's count (√(offered × secs) I/Os: 600 IOPS over 2 s may end 8.7 %
 * short by chance alone, and more I/Os than offered is never a saturation).
 */
bool iom_load_held(double offered_iops, double achieved_iops, double secs, bool poisson);

/* One host's part of a run of many hosts (hosts.h, docs/hosts.md). */
struct iom_host_row {
	uint32_t rank;
	char host[64];
	int32_t status;                /* enum iom_run_status */
	char error[256];
	uint64_t ios[IOM_NDIR], bytes[IOM_NDIR];
	double iops, mb_s;             /* over its own window */
	uint64_t p50_ns, p99_ns;
	double lat_mean_ns;
	int64_t offset_ns;             /* its monotonic clock minus rank 0's */
	uint64_t start_ns, end_ns;     /* its measured window, in rank 0's monotonic clock */
	double busy_pct, user_s, sys_s;
	uint8_t straggler;             /* IOPS more than 10 % below the hosts' median */
	uint8_t stonewalled;           /* its window ended when another host's share was done */
	char kernel[128];              /* uname: release and version (provenance per host) */
	/* provenance per host (the report's "hosts" lines): its CPU model (/proc/cpuinfo) and
	 * the device under its target in the run ("QEMU HARDDISK (/dev/sda)", "loop (/dev/loop3
	 * on /dev/shm/x)"; "" when none: tmpfs) */
	char cpu_model[96];
	char device[160];
	char driver[32], scheduler[32]; /* of that device ("virtio_blk", "mq-deadline"; "": none) */
	/* how long after the agreed start (sync point 1, in its own clock) its window started */
	int64_t start_late_ns;
	/* its trace of the run: the records its writer wrote and those it dropped (a full ring) */
	uint64_t trace_records, trace_dropped;
	/* its window's judgement: stalled (with why), a steady state asked and not reached —
	 * carried into the aggregate, so that a run rank 0 sat out is judged by those that ran */
	bool stalled, steady_asked, steady_reached;
	char stall_reason[160];
	/* its own access lines, paths, offered load, flushes and trims (what the aggregate sums):
	 * the arrays are heap, filled on rank 0 after the gather (NULL in transit), and so are
	 * a paced run's response histograms (load.response_hist; written where host_hist is) */
	struct iom_line_stats *lines;
	size_t nlines;
	struct iom_path_stats *paths;
	size_t npaths;
	struct iom_run_load load;
	bool has_xops;
	struct iom_io_stats xops[2];
	/* its data verification's counts (verify = true; the first mismatches stay its own) */
	bool verify;
	uint64_t sectors_written, sectors_checked, sectors_unwritten, mismatches;
};

struct iom_run_result {
	uint32_t index, repetition;
	uint64_t seed;
	enum iom_run_status status;
	char *error;                   /* why a run failed (heap; NULL when ok) */

	uint64_t start_wall_ns;        /* wall clock at the start of the measured window */
	double elapsed_s;              /* length of the measured window */
	struct iom_io_stats dir[IOM_NDIR];
	double iops_stddev, mb_s_stddev; /* over the full intervals; NaN (null in the file) with
					  * fewer than two */
	double qd_mean;                /* mean number of I/Os in flight in the window */
	/* The latency histograms behind dir[].lat (service time; a paced run's response time is
	 * load.response_hist), kept whole so that repetitions, ranks and cells are pooled from
	 * buckets, never averaged as percentiles. has_hist false: a file from before they were
	 * kept (JSON "lat_ns": { …, "hist": { … } }; docs/results.md). */
	bool has_hist;
	struct iom_hist_sparse hist[IOM_NDIR];

	struct iom_interval *intervals;  /* heap */
	size_t nintervals;
	bool has_iv_lat;                 /* the intervals carry their latencies */

	struct iom_thread_stats *threads; /* heap, nthreads entries */
	unsigned nthreads;

	struct iom_run_cpu cpu;

	uint64_t warmup_ios, cooldown_ios;   /* I/O done outside the measured window */
	bool registered_buffers;             /* io_uring fixed buffers were used */
	struct {
		char *file;          /* the run's trace (heap); NULL when not traced */
		uint64_t records;    /* I/Os in the trace: measured + warm-up + cool-down */
		uint64_t dropped;    /* records lost because the writer fell behind */
		uint64_t bytes;      /* compressed size */
		double bytes_per_io;
		int error;           /* 0, or the -errno that kept the trace from being written
				      * whole (-ENOSPC: the results directory is full) */
	} trace;
	char *engine_notes;                  /* setup facts: "SINGLE_ISSUER DEFER_TASKRUN", fallbacks */
	struct iom_run_verify verify;        /* enabled false when the cell does not verify */
	struct iom_run_stall stall;          /* stalled false: the window ran as asked */
	/* a run with an access spec — its name (heap; NULL: none) and per line what
	 * it did (heap, nlines entries; JSON "access": { "name", "lines": [ … ] }, left out
	 * without a spec, so older files and runs without one read the same). */
	char *access;
	struct iom_line_stats *lines;
	size_t nlines;
	/* a target with several paths: per-path figures (heap, npaths entries; JSON
	 * "paths": [ { "path", "read", "write", "total" }, … ], left out for one path; the
	 * totals above are the sum). */
	struct iom_path_stats *paths;
	size_t npaths;
	/* fsync_every and trim_pct: the flushes and trims of the measured window ([0] flush, [1]
	 * trim; bytes: those trimmed), apart from read, write and total; has_xops false when the
	 * cell set neither. */
	bool has_xops;
	struct iom_io_stats xops[2];
	/* The target's disk over the measured window (write_through shows here as flushes);
	 * have false when the disk is unknown (tmpfs) or was not read. */
	struct iom_run_disk {
		bool have;
		bool has_flushes, has_discards; /* the kernel's stat file has these fields */
		char name[32];                  /* "vda", "loop3": /sys/block/NAME/stat */
		uint64_t reads, writes, discards, flushes; /* requests completed in the window */
		char write_cache[16];           /* "write back", "write through"; "": unknown */
		int fua;                        /* FUA writes taken: 1, 0, -1 unknown */
	} disk;
	/* warmup = "steady" — whether and when steady state was reached */
	struct iom_run_steady {
		bool asked;          /* the run warmed up to steady state */
		bool reached;        /* … and reached it (else it is left out of verdicts) */
		double at_s;         /* seconds into the warm-up when it was seen (reached) */
		double warmup_s;     /* the warm-up's length */
		double spread_pct;   /* the last window's range (or slope) in % of its mean */
		char *criterion;     /* heap: "iops 2% 10s" */
	} steady;
	struct iom_run_load load;            /* paced false: a closed loop */

	struct iom_host_row *hosts;          /* heap, nhosts rows: a run of many hosts */
	size_t nhosts;
	/* each host's latency histograms (read, write, total; heap, nhosts entries beside
	 * hosts; NULL: not kept, as in files from before): JSON hosts[].hist */
	struct iom_hist_sparse (*host_hist)[IOM_NDIR];
	bool stonewalled;                    /* a bytes-bound window of many hosts ended when the
					      * first host completed its share */
	uint64_t start_spread_ns;            /* many hosts: the last window start minus the first
					      * (rank 0's clock, the offsets applied) */
};

/* "offered 50.0K IOPS, achieved 31.2K: saturated" or "offered 2.00K IOPS, achieved 2.00K:
 * held" for a paced run; "" for a closed loop. */
void iom_run_load_describe(const struct iom_run_load *l, char *buf, size_t len);

/* Frees what the result owns (not r itself). */
void iom_run_result_release(struct iom_run_result *r);

/* The clock offsets of the hosts of run file path ("hosts": [ { "rank", "offset_ns" } ]) into
 * off[rank] for ranks below max; *n the number of rows. 0 (no hosts: *n 0), or -errno with err. */
int iom_result_host_offsets(const char *path, int64_t *off, size_t max, size_t *n, char *err,
			    size_t errlen);

/* The words of a run file that its writer and its reader share (result.c). */
/* "read", "write", "total": the directions' names in a run file. */
extern const char *const iom_result_dir_names[IOM_NDIR];
/* The intervals' arrays in a run file: counts, then (has_iv_lat) the latencies and the I/Os
 * they are of; iom_result_iv_field(iv, k) is the field of iv that array k holds. */
#define IOM_RESULT_NIV 8
extern const char *const iom_result_iv_keys[IOM_RESULT_NIV];
uint64_t *iom_result_iv_field(struct iom_interval *iv, int k);
/* A cell's value as text ("4096", "true", "random"); NULL for an object or array. */
char *iom_result_value_string(struct json_object *v);

/* "ok", "failed" or "interrupted"; iom_run_status_parse returns -1 for anything else. */
const char *iom_run_status_name(enum iom_run_status s);
int iom_run_status_parse(const char *name);

/* ---- the run file: writing (called by the sweep) ----
 * DIR is d->path, the results directory the sweep opened and pinned (ownfile.h). */

/*
 * Writes r as DIR/runs/NNNNN.json, whole or not at all. The cell (c, with m for the target
 * labels and dimension types) is written as the "cell" object. Borrows everything.
 */
int iom_result_write(const struct iom_own_dir *d, const struct iom_matrix *m,
		     const struct iom_cell *c, const struct iom_run_result *r, char *err,
		     size_t errlen);

/* ---- the results directory: reading (needs no matrix) ---- */

/* One dimension value of a cell as the file holds it: "block_size" = "4096", "direct" = "true". */
struct iom_cell_pair {
	char *name;
	char *value;
};

/* A run's result as read back: the cell in file order and every measured field. */
struct iom_result_file {
	int schema;
	struct iom_cell_pair *cell;  /* heap, ncell entries, in the order written */
	size_t ncell;
	struct iom_run_result r;
};

/*
 * Reads a runs/NNNNN.json file into out (released with iom_result_file_release, also on
 * failure). Returns 0, or -errno / -EINVAL with "PATH: what is wrong" in err for a missing,
 * truncated or corrupt file, a field of the wrong type, or a schema newer than this reads.
 */
int iom_result_read(const char *path, struct iom_result_file *out, char *err, size_t errlen);

/* As iom_result_read(), from text in memory; name is used in messages. */
int iom_result_parse(const char *name, const char *text, struct iom_result_file *out, char *err,
		     size_t errlen);

void iom_result_file_release(struct iom_result_file *f);

/* The cell c (of m) as a run file writes it, name/value pairs in file order, into *out (heap:
 * free each name and value, then the array); the count. */
size_t iom_result_cell_pairs(const struct iom_matrix *m, const struct iom_cell *c,
			     struct iom_cell_pair **out);

/* The value of dimension name in f's cell, or NULL. */
const char *iom_result_cell_get(const struct iom_result_file *f, const char *name);

#endif
