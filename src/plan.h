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

#include "matrix.h"

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
	/* A dimension the plan's TSV and JSON show: every one but a quiet key (IOM_KEY_QUIET) at
	 * its default in every cell. */
	bool shown[IOM_DIM_COUNT];
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

/* Value of dimension dim of cell c, formatted as a user writes it (the label for the target). */
void iom_cell_value(const struct iom_plan *p, const struct iom_cell *c, enum iom_dim dim,
		    char *buf, size_t len);

/* A one-line description of a cell: "lsi-sas bs=4K qd=32 t=1 rd=70% random" — only the
 * dimensions that vary, plus the target. */
void iom_cell_describe(const struct iom_plan *p, const struct iom_cell *c, char *buf, size_t len);

/* Expected wall time of one run (warm-up + duration + cool-down + rest); *size_bound is set when
 * the measured window is a byte count and so unknown in advance (counted as 0 then). */
uint64_t iom_plan_run_estimate_ns(const struct iom_plan *p, bool *size_bound);

/* Largest I/O buffer memory one run needs: block size × queue depth × threads. */
uint64_t iom_cell_buffer_bytes(const struct iom_cell *c);
uint64_t iom_plan_max_buffer_bytes(const struct iom_plan *p);

#endif
