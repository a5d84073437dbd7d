/* SPDX-License-Identifier: MIT */
/*
 * model — the plain data of a study, which the key table lands values in and every module reads:
 * the dimensions (IOM_DIM_*) and the values of the enum-typed ones, a cell's workload values
 * (struct iom_workload), and the validated matrix (struct iom_matrix: its targets, timing,
 * excludes, hooks and report options). No code and no other header of iomatrix's: it is the
 * floor below keys (which says where each value lands, IOM_AT) and matrix (which fills it).
 */
#ifndef IOM_MODEL_H
#define IOM_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The dimensions of a study: the target, then every workload key, in file order. */
enum iom_dim {
	IOM_DIM_TARGET,
	IOM_DIM_BLOCK_SIZE,
	IOM_DIM_QUEUE_DEPTH,
	IOM_DIM_THREADS,
	IOM_DIM_READ_PCT,
	IOM_DIM_PATTERN,
	IOM_DIM_ENGINE,
	IOM_DIM_DIRECT,
	IOM_DIM_VERIFY,
	/* where each I/O goes */
	IOM_DIM_RANDOM_PCT,
	IOM_DIM_ALIGN,
	IOM_DIM_DISTRIBUTION,
	IOM_DIM_ACCESS,
	IOM_DIM_THREAD_STRIDE,
	IOM_DIM_SHARED_SEQUENTIAL,
	/* writes and their data */
	IOM_DIM_WRITE_THROUGH,
	IOM_DIM_DATA,
	IOM_DIM_FSYNC_EVERY,
	IOM_DIM_TRIM_PCT,
	/* the offered load (docs/load.md) */
	IOM_DIM_RATE_IOPS,
	IOM_DIM_RATE_MB_S,
	IOM_DIM_ARRIVALS,
	IOM_DIM_THINK_TIME,
	IOM_DIM_BURST,
	IOM_DIM_PACE_TICK,
	/* many hosts (docs/hosts.md): hosts = "each" makes host (a rank) a dimension; ranks = N
	 * runs a cell on the first N ranks */
	IOM_DIM_HOST,
	IOM_DIM_RANKS,
	IOM_DIM_COUNT
};

/* Values of the enum-typed dimensions (the index of the choice). */
enum iom_pattern { IOM_PATTERN_RANDOM, IOM_PATTERN_SEQUENTIAL };
/* What writes carry (key data): the choice's index (IOM_CHOICE_INDEX of keys.h); compressible
 * and dedupe take a percentage (IOM_CHOICE_PCT). */
enum iom_data { IOM_DATA_RANDOM, IOM_DATA_ZEROS, IOM_DATA_COMPRESSIBLE, IOM_DATA_DEDUPE };
/* When each I/O of a paced run is due: evenly spaced, or a Poisson process. */
enum iom_arrivals { IOM_ARRIVALS_FIXED, IOM_ARRIVALS_POISSON };

/* The sections of a matrix file, where its keys stand (keys.h: each key names its own); an
 * engine owns the group named as it (engine.h). */
enum iom_section {
	IOM_SEC_TOP,      /* top level of the file */
	IOM_SEC_TARGET,   /* one element of targets = ( … ) */
	IOM_SEC_WORKLOAD, /* workload = { … }; also settable per target */
	IOM_SEC_TIMING,   /* timing = { … } */
	IOM_SEC_REPORT,   /* report = { … } */
	IOM_SEC_HOOKS,    /* hooks = { … } */
	IOM_SEC_EXCLUDE,  /* one element of exclude = ( … ) */
	IOM_SEC_IO_URING, /* io_uring = { … }: the keys the io_uring engine owns */
};

/*
 * A rate (rate_iops, rate_mb_s) in its stored form: 0 none (a closed loop, as fast as the
 * target answers); > 0 a rate in the key's stored unit (I/Os per second; bytes per second);
 * IOM_RATE_MAX the cell unthrottled, recorded as the base of its shares; -1 … -1000 a share of
 * that measured maximum in tenths of a percent ("25%" is -250), derived when the plan runs.
 */
#define IOM_RATE_NONE 0
#define IOM_RATE_MAX (-1000000)
#define IOM_RATE_IS_SHARE(v) ((v) < 0 && (v) >= -1000)
#define IOM_RATE_SHARE(v) ((double)-(v) / 1000.0)
/* The engines, in the order of the engine key's choices and of engine.h's registry (a unit test
 * holds the three together). */
enum iom_engine_kind {
	IOM_ENGINE_IO_URING,
	IOM_ENGINE_PSYNC,
	IOM_ENGINE_NULL,
	IOM_ENGINE_LIBAIO,
	IOM_ENGINE_COUNT
};

/*
 * The values of the workload dimensions of one cell: plain data, one field per workload key.
 * Each workload key's row names its field here (IOM_AT(iom_workload, f)), so that a cell's value
 * lands by the table (iom_run_spec_set_cell); the run spec and the workers' conf each hold one
 * (spec.wl, conf.wl). Adding a workload key is a value in enum iom_dim, a row in keys.c and a
 * field here, plus the code that uses it.
 */
/* The most I/Os in flight per thread (queue_depth), and so the most a submit batch or a reap
 * wait may be: the one limit of the key table, the matrix reader and the run. */
#define IOM_QUEUE_DEPTH_MAX 65536

/*
 * The keys engines own (io_uring = { … }: the io_uring engine's; libaio follows submit_batch
 * and reap_wait too), landed here by their rows of the key table (IOM_AT(iom_engine_opts, …)),
 * reap_wait by its own reader (a number, a fraction or "adaptive"). The stage hands them to a
 * run as the worker's policy (iom_policy_of, worker.h) and the engine's setup flags
 * (iom_engine_opts_flags, engine.h).
 */
struct iom_engine_opts {
	uint32_t submit_batch;  /* refill when this many slots are free (default 1) */
	uint32_t reap_wait;     /* completions each wait waits for; 0: … */
	uint32_t reap_wait_div; /* … the I/Os in flight / reap_wait_div; both 0: adaptive */
	bool sqpoll, iopoll;    /* IORING_SETUP_SQPOLL, IORING_SETUP_IOPOLL */
};

struct iom_workload {
	uint32_t block_size;
	uint32_t queue_depth;
	uint32_t threads;
	uint32_t read_pct;         /* 0 … 100 */
	enum iom_pattern pattern;
	enum iom_engine_kind engine;
	bool direct;               /* the fd has O_DIRECT */
	bool verify;               /* stage.c arms the run's verifier with it (verify.h) */
	/* where each I/O goes (worker.h) */
	uint32_t random_pct;       /* share of random offsets, 0 … 100; pattern sequential: 0 */
	uint64_t align;            /* random offsets are multiples of it; 0: of block_size */
	int64_t distribution;      /* of random offsets: a code of dist.h; 0 uniform */
	uint32_t access;           /* 0: none; i + 1: the matrix's access_specs[i] */
	uint64_t thread_stride;    /* sequential: thread t starts at t × it (DiskSpd -T); 0: slices */
	bool shared_sequential;    /* sequential: one stream for all threads (DiskSpd -si) */
	/* what each write carries and how it reaches stable media */
	bool write_through;        /* the fd has O_DSYNC: every write on stable media (sweep.c) */
	uint32_t data;             /* what writes carry: enum iom_data + its percentage << 8 */
	uint32_t fsync_every;      /* a flush after every N writes of a thread; 0: none */
	uint32_t trim_pct;         /* share of I/Os that are discards (0 … 100) */
	/* The offered load (docs/load.md): a rate (IOM_RATE_*; rate_mb_s in bytes per second) —
	 * 0 for both is a closed loop — and when each I/O is due. The worker sees only absolute
	 * rates: a share is derived before the run (sweep.c). */
	int64_t rate_iops;
	int64_t rate_mb_s;
	enum iom_arrivals arrivals;
	/* DiskSpd's -j and -i: a closed loop that pauses think_ns after every burst I/Os of a
	 * thread have completed (0: no pause). */
	uint64_t think_ns;
	uint32_t burst;
	/* a paced run above 1/pace_tick_ns IOPS per thread: a wake-up issues what is due, the
	 * next comes a tick later at the soonest (docs/load.md, "Pacing") */
	uint64_t pace_tick_ns;
	/* many hosts (docs/hosts.md): the rank that runs the cell alone (hosts = "each"), and
	 * the number of ranks that run it (the first ranks; 0: every rank). The hosts module
	 * reads them from the cell, the worker never. */
	uint32_t host;
	uint32_t ranks;
};

/*
 * An access specification (IOMeter's): named lines, each with its share of the I/Os
 * and the workload values it sets; what a line leaves out it takes from the cell's workload
 * (IOM_ACCESS_INHERIT). Shares add up to 100.
 */
#define IOM_ACCESS_INHERIT (-1)
#define IOM_ACCESS_MAX_LINES 16
struct iom_access_line {
	uint32_t share;            /* % of the I/Os, 1 … 100 */
	int64_t block_size, read_pct, random_pct, align; /* or IOM_ACCESS_INHERIT */
	int line;
};

struct iom_access_spec {
	char *name;
	struct iom_access_line *lines;
	size_t nlines;
	int line;
};

/* The values of one dimension: a scalar is a list of one. */
struct iom_values {
	int64_t *v;
	size_t n;
};

struct iom_target {
	char *label;       /* unique; the value of the target dimension */
	char *path;        /* regular file (scratch file) or block device */
	char *filesystem;  /* label only, e.g. "ext4" (NULL when not given) */
	char *controller;  /* label, or "auto": read the device's driver from sysfs */
	uint64_t size;     /* scratch file size, or region [0, size) of a device; 0 = whole device */
	bool overwrite;    /* may take over an existing file that lacks iomatrix's mark */
	bool fill_data;    /* the scratch fill writes dim[IOM_DIM_DATA]'s one value, not random */
	bool destructive;  /* may write to a block device */
	bool allow_same;   /* may be the same device or file as another target (an A/A test) */
	/* The filesystem as a dimension: a target with filesystems = [ … ] is expanded into one
	 * target per filesystem, labelled "<label>-<fstype>", whose path is the device (fsprep.h
	 * makes the filesystem at the target's first run; its I/O goes to a scratch file of size
	 * bytes on it, or for "raw" to the device itself). NULL for an ordinary target. */
	char *fs_type;        /* "ext4", "xfs", "btrfs", "raw" */
	char *mkfs_options;   /* extra mkfs arguments; NULL: none */
	char *mount_options;  /* mount(8)-style options; NULL: defaults */
	/* Effective values of every workload dimension for this target: its own when it sets the
	 * key, the workload's otherwise. dim[IOM_DIM_TARGET] is unused. */
	struct iom_values dim[IOM_DIM_COUNT];
	int line;
	/* several paths: paths = [ … ] (two or more, all files or all devices): one run drives all
	 * of them at once, worker thread i on paths[i % npaths], each prepared, pinned and
	 * checked as a one-path target (target.h). path is a copy of paths[0]. npaths 0: the
	 * target has the one path. */
	char **paths;
	size_t npaths;
	/* Many hosts (docs/hosts.md): hosts = [ "vm1", "rank:2" ] — the target exists only on
	 * those short hostnames and ranks (heap; nhosts 0: everywhere). iom_matrix_place fills
	 * on_rank (heap, a byte per rank of the job: it lives there; NULL: everywhere) and
	 * iom_hosts_expand_paths absent (this rank lacks it: nothing prepared, checked or run). */
	char **hosts;
	size_t nhosts;
	int hosts_line;
	uint8_t *on_rank;
	bool absent;
};

struct iom_timing {
	uint64_t warmup_ns;
	uint64_t duration_ns; /* exactly one of duration_ns and bytes is non-zero */
	uint64_t bytes;       /* a fixed amount of measured I/O per run (ATTO's total length) */
	uint64_t cooldown_ns;
	uint64_t rest_ns;
	uint64_t timeout_ns;  /* 0: 2 × expected time + 60 s */
	uint32_t repeat;
	/* adaptive repetitions: repeat_max > repeat: after `repeat` rounds a cell gets
	 * further rounds (interleaved) until settled or repeat_max; 0: none. until: what settles
	 * a cell — until_ci_pct > 0: the 95 % CI of its IOPS within ± that % of the mean; else
	 * the report's verdict on it is no longer undecided. */
	uint32_t repeat_max;
	double until_ci_pct;
	/* the steady warm-up: warmup = "steady": warm up until the per-second IOPS of the last
	 * steady_window_ns are steady — their range (steady_slope false) or least-squares slope
	 * per second (true) within steady_pct % of their mean, fio's steadystate "iops" and
	 * "iops_slope" — or warmup_max_ns has passed (then the run is flagged, not measured
	 * any less). */
	bool warmup_steady;
	bool steady_slope;
	double steady_pct;
	uint64_t steady_window_ns;
	uint64_t warmup_max_ns;
};

/* adaptive repetitions: the repetitions a plan holds: repeat_max when adaptive, else repeat. */
static inline uint32_t iom_timing_plan_reps(const struct iom_timing *t)
{
	return t->repeat_max > t->repeat ? t->repeat_max : t->repeat;
}

enum iom_repeat_order { IOM_REPEAT_GROUPED, IOM_REPEAT_INTERLEAVED };

/* hosts = "together" (every rank runs each run at once) or "each" (host is a dimension: one
 * rank at a time); the order of keys.c's choices. */
enum iom_placement { IOM_PLACE_TOGETHER, IOM_PLACE_EACH };
enum iom_rate_scope { IOM_RATE_SCOPE_RANK, IOM_RATE_SCOPE_TOTAL };
enum iom_hooks_where { IOM_HOOKS_RANK0, IOM_HOOKS_EVERY };

/* One exclude condition: a cell is dropped when every dimension given here matches one of its
 * values. dim[d].n == 0 means "any". Target values are target indices. */
struct iom_exclude {
	struct iom_values dim[IOM_DIM_COUNT];
	int line;
};

/* Shell commands around the study (NULL when unset; run only with --allow-hooks, see hooks.h)
 * and the built-ins, which need no shell. */
struct iom_hooks {
	char *before_study, *before_target, *before_run;
	char *after_run, *after_target, *after_study;
	bool drop_caches;      /* before each run */
	bool fstrim;           /* before each target's first run (file targets) */
	char *precondition;    /* bytes to write before a target's first write cell, as written
				* ("2x", "64G"; sequential); NULL: none */
	uint32_t where;        /* iomatrix-mpi: the ranks its shell hooks run on (iom_hooks_where) */
	int line;              /* of the hooks section; 0 when absent */
};

struct iom_report_opts {
	double alpha;          /* significance threshold of Welch's t-test (0.05) */
	double min_effect_pct; /* smallest difference that counts as a win (2 %) */
	double max_cv_pct;     /* coefficient of variation above which a cell is noisy (5 %) */
	/* the multiple-comparison correction over every comparison in a report */
	uint32_t correction;   /* enum iom_correction (holm) */
	/* the metrics the winners compare: bit k for the report's metric k (keys.h,
	 * iom_metric_names; report.h, enum iom_metric); 0, as in a study.json from before the
	 * key, for IOM_METRICS_DEFAULT */
	uint32_t metrics;
};

/* report.metrics' default: every metric but the CPU's busy % (iops, mb_s, lat_mean_ns,
 * lat_p99_ns, cpu_us_per_io). */
#define IOM_METRICS_DEFAULT 0x1fu

/* report.correction: how the p-values of a report's comparisons are adjusted (the order of
 * keys.c's choices; the values of stats.h's enum iom_stats_adjust). */
enum iom_correction { IOM_CORRECTION_HOLM, IOM_CORRECTION_BH, IOM_CORRECTION_NONE };

struct iom_matrix {
	char *file;        /* as given; used in messages */
	char *as_run;      /* the matrix text as run: the file itself, or with overrides applied */
	int schema;
	char *name;
	char *description;
	uint64_t seed;     /* base of every run's seed (default 1) */

	struct iom_target *targets;
	size_t ntargets;
	struct iom_values workload[IOM_DIM_COUNT]; /* the workload section, defaults applied */
	bool listed[IOM_DIM_COUNT]; /* given as a list (or range) anywhere, or different
				     * between targets: a dimension (target: more than one) */

	struct iom_timing timing;

	enum iom_dim order[IOM_DIM_COUNT]; /* full loop nesting, outermost first */
	enum iom_dim compare;              /* the dimension whose values compete */
	enum iom_repeat_order repeat_order;
	bool shuffle;
	bool trace;        /* record every I/O in traces/NNNNN.trace.gz (default true) */
	unsigned *cpus;    /* worker thread i runs on cpus[i % ncpus]; ncpus 0: not pinned */
	unsigned ncpus;
	/* io_uring = { … } (submit_batch and reap_wait also at the top level, their old place) */
	struct iom_engine_opts engine;
	/* Notes on the file for the user, "FILE:LINE: warning: …\n" each (an old spelling still
	 * read); NULL: none. check and run print them. */
	char *notes;
	uint64_t shuffle_seed;

	struct iom_exclude *excludes;
	size_t nexcludes;

	struct iom_access_spec *access_specs; /* access_specs = { NAME = ( { … }, … ); … } */
	size_t naccess_specs;

	struct iom_report_opts report;
	struct iom_hooks hooks;

	/* Lines of the sections in the file, for messages about the plan as a whole (1 when the
	 * section is absent). */
	int targets_line, workload_line, timing_line, exclude_line;

	/* Many hosts (docs/hosts.md): the placement (hosts = "…"), and what iom_matrix_place
	 * learnt of the job: its ranks' short hostnames (heap, nranks; NULL before) and the
	 * labels of the host dimension's values, "r1@vm1" (heap, one per rank when hosts =
	 * "each"). ranks_line: where the largest ranks value is given (0: nowhere). */
	uint32_t placement;
	/* what an offered load (rate_iops, rate_mb_s) means on many ranks: each rank's, or the
	 * total of the ranks that run it, split evenly (enum iom_rate_scope) */
	uint32_t rate_scope;
	bool compare_default;  /* compare not given: hosts = "each" on many ranks compares host */
	int placement_line, ranks_line;
	unsigned nranks;
	char **rank_hosts;
	char **host_labels;
};

/* A --set KEY=VALUE override: key is a path such as "workload.block_size", "timing.repeat" or
 * "block_size" (a workload key may drop its section); value is libconfig syntax ("[4K, 8K]",
 * "32", "\"random\"", a bare word is taken as a string). */
struct iom_override {
	const char *key;
	const char *value;
};

#endif
