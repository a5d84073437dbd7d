/* SPDX-License-Identifier: MIT */
/*
 * plan — a matrix model expanded into the ordered list of runs. A cell is one value of every
 * dimension; a run is one repetition of a cell. The same model always gives the same plan, in
 * the same order, with the same seeds and the same hash, so plans can be compared byte for byte.
 */
#ifndef IOM_PLAN_H
#define IOM_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "matrix/matrix.h"

/* A plan larger than this is refused, with its count, before anything of its size is allocated. */
#define IOM_PLAN_MAX_RUNS 10000000u

struct iom_cell {
	int64_t v[IOM_DIM_COUNT]; /* v[IOM_DIM_TARGET] is the target index */
};

struct iom_run {
	uint32_t index;      /* 1-based position in the plan; names runs/NNNNN.json */
	uint32_t repetition; /* 1-based */
	uint32_t cell;       /* index into plan->cells */
	uint64_t seed;       /* seed of this run's offset generator */
};

struct iom_plan {
	const struct iom_matrix *m;  /* not owned */
	struct iom_cell *cells;      /* in nesting order */
	size_t ncells;
	struct iom_run *runs;        /* in execution order */
	size_t nruns;
	uint64_t hash;               /* stable hash of the plan (FNV-1a 64 over its TSV form) */
	bool varies[IOM_DIM_COUNT];  /* a dimension with more than one value in the plan */
	bool shown[IOM_DIM_COUNT];   /* a column of the TSV form (an IOM_KEY_SPARSE dimension only
				      * when a cell has it off its default) */
};

enum iom_plan_format { IOM_PLAN_TEXT, IOM_PLAN_TSV, IOM_PLAN_JSON };

/* Expands m into p (caller's storage). Returns 0, or -E2BIG with the count in err when the plan
 * is too large, or -EINVAL when excludes leave nothing. Release with iom_plan_release(). */
int iom_plan_build(const struct iom_matrix *m, struct iom_plan *p, char *err, size_t errlen);
void iom_plan_release(struct iom_plan *p);

/* The number of runs iom_plan_build() would make, with the same errors, without building the
 * plan (for `check`): counting allocates nothing of the plan's size. */
int iom_plan_count(const struct iom_matrix *m, size_t *nruns, char *err, size_t errlen);

/* Writes the plan as `iomatrix plan` prints it. Returns 0 or -errno. */
int iom_plan_write(FILE *out, const struct iom_plan *p, enum iom_plan_format fmt);

/* The lowest read_pct of the I/O of cell c of m: its read_pct, or with an access spec
 * (with access specifications) the lowest of its lines' (each line's own or the cell's), and with trim_pct at
 * most 100 - trim_pct (a trim changes the target); below 100: it writes. */
int64_t iom_cell_read_pct(const struct iom_matrix *m, const struct iom_cell *c);
/* ---- what a plan may cost: trace bytes and the time of bytes-bound runs ---- */

/* The assumptions when no previous study says better: the preflight's bound of a trace's bytes
 * per I/O, an I/O rate, and a ceiling of throughput for large blocks. */
#define IOM_PLAN_ASSUMED_IOPS 100000.0
#define IOM_PLAN_ASSUMED_BYTES_PER_IO 8.0
#define IOM_PLAN_ASSUMED_MAX_MB_S 1000.0

/* A rate measured for one block size (from a previous study, `plan --like DIR`). */
struct iom_plan_rate {
	uint64_t block_size;
	double iops;            /* mean over its runs */
};

struct iom_plan_cost {
	double trace_bytes;     /* every run's trace: its I/Os (warm-up, window, cool-down) ×
				 * bytes per I/O; 0 when the matrix records no trace */
	double bound_s;         /* bytes-bound plans: the measured windows' time; else 0 */
	double timed_s;         /* warm-up, window (or its estimate) and cool-down of every run */
};

/*
 * The cost of plan p: each run's I/O rate is that of its block size among rates[0..n) when
 * there, else default_iops; for a bytes-bound run also capped at max_mb_s (0: no cap) when the
 * rate is an assumption; a cell with an absolute offered load (rate_iops, rate_mb_s) at most
 * that. bytes_per_io is the trace's size per I/O.
 */
void iom_plan_cost(const struct iom_plan *p, const struct iom_plan_rate *rates, size_t n,
		   double default_iops, double bytes_per_io, double max_mb_s,
		   struct iom_plan_cost *out);

/* Value of dimension dim of cell c, formatted as a user writes it (the label for the target). */
void iom_cell_value(const struct iom_plan *p, const struct iom_cell *c, enum iom_dim dim,
		    char *buf, size_t len);

/* A one-line description of a cell: "lsi-sas bs=4K qd=32 t=1 rd=70% random" — only the
 * dimensions that vary, plus the target. */
void iom_cell_describe(const struct iom_plan *p, const struct iom_cell *c, char *buf, size_t len);

/* Expected wall time of one run (warm-up + duration + cool-down + rest); *size_bound is set when
 * the measured window is a byte count and so unknown in advance (counted as 0 then). */
uint64_t iom_plan_run_estimate_ns(const struct iom_plan *p, bool *size_bound);

/* The largest block one of the cell's I/Os moves: its block size, or its access spec's
 * largest line. */
uint64_t iom_cell_max_block(const struct iom_matrix *m, const struct iom_cell *c);

/* Largest I/O buffer memory one run needs: largest block × queue depth × threads (the worker
 * gives every slot a buffer of the largest line's size). */
uint64_t iom_cell_buffer_bytes(const struct iom_matrix *m, const struct iom_cell *c);
uint64_t iom_plan_max_buffer_bytes(const struct iom_plan *p);

#endif
