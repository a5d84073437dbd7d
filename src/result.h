/*
 * result — one run's measurements, and their JSON form in the results directory.
 *
 * run.c fills a struct iom_run_result; result.c writes it as runs/NNNNN.json (atomically) and
 * reads it back. The report reads only these files, never live state, so reports can be rebuilt
 * long after the runs. docs/results.md documents every field; IOM_RESULT_SCHEMA is bumped on
 * any incompatible change.
 */
#ifndef IOM_RESULT_H
#define IOM_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu.h"

#define IOM_RESULT_SCHEMA 1

/* The latency percentiles every result carries: 1 … 99, then 3- to 9-nines. */
#define IOM_NPCT 16
extern const double iom_percentiles[IOM_NPCT];

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

/* I/O completed in one interval of the measured window (IOM_INTERVAL_NS long). */
#define IOM_INTERVAL_NS 1000000000ull
struct iom_interval {
	uint64_t ios[2], bytes[2];  /* [IOM_DIR_READ], [IOM_DIR_WRITE] */
};

enum iom_run_status { IOM_RUN_OK, IOM_RUN_FAILED, IOM_RUN_INTERRUPTED };

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
};

struct iom_run_result {
	uint32_t index, repetition;
	uint64_t seed;
	enum iom_run_status status;
	char *error;                   /* why a run failed (heap; NULL when ok) */

	uint64_t start_wall_ns;        /* wall clock at the start of the measured window */
	double elapsed_s;              /* length of the measured window */
	struct iom_io_stats dir[IOM_NDIR];
	double iops_stddev, mb_s_stddev; /* over the intervals */
	double qd_mean;                /* mean number of I/Os in flight in the window */

	struct iom_interval *intervals;  /* heap */
	size_t nintervals;

	struct iom_thread_stats *threads; /* heap, nthreads entries */
	unsigned nthreads;

	struct iom_run_cpu cpu;

	uint64_t warmup_ios, cooldown_ios;   /* I/O done outside the measured window */
	bool registered_buffers;             /* io_uring fixed buffers were used */
	char *engine_notes;                  /* setup facts: "SINGLE_ISSUER DEFER_TASKRUN", fallbacks */
};

/* Frees what the result owns (not r itself). */
void iom_run_result_release(struct iom_run_result *r);

#endif
