/* SPDX-License-Identifier: MIT */
/*
 * keys — the one table of matrix keys, and the small amount of logic that only needs the table:
 * finding keys, "did you mean" suggestions, parsing and range-checking scalar values written as
 * text, formatting them back (keys_print.c prints the table for `iomatrix help keys`,
 * docs/matrix.md and the man page).
 *
 * The matrix reader (matrix.c) walks libconfig's tree and asks this table what each key may be
 * and where its value lands in the model; nothing here knows libconfig. The rows name fields of
 * the model's structs (matrix.h) by offset, as fio's option table names its thread options: the
 * table is the schema of that model, which is plain data. Adding a key is one row in iom_keys[]
 * (for a new workload key, a dimension, also a value in enum iom_dim and its field in struct
 * iom_workload, which the row names; docs/architecture.md has the recipe).
 */
#include "keys.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "units.h"
#include "util.h"

#define KIB 1024ll
#define MIB (1024ll * KIB)
#define TIB (1024ll * 1024ll * MIB)
#define MS 1000000ll
#define SEC 1000000000ll
#define HOUR (3600ll * SEC)
#define DAY (24ll * HOUR)

static const char *const pattern_choices[] = { "random", "sequential", NULL };
/* In the order of enum iom_engine_kind and engine.c's registry (test_engine.c checks it). */
static const char *const data_choices[] = { "random", "zeros", "compressible:%", "dedupe:%",
					    NULL };
/* no word for random; the others with a percentage are their value ("dedupe:30%") */
static const char *const data_words[] = { "", "zeros", "compressible", "dedupe" };
static const char *const engine_choices[] = { "io_uring", "psync", "null", "libaio", NULL };
static const char *const repeat_order_choices[] = { "grouped", "interleaved", NULL };
static const char *const correction_choices[] = { "holm", "bh", "none", NULL };
static const char *const pattern_words[] = { "rnd", "seq" };
static const char *const direct_words[] = { "buffered", "direct" }; /* false, true */
static const char *const verify_words[] = { "", "verify" };         /* no word for off */
static const char *const shared_words[] = { "", "si" };             /* shared_sequential */
static const char *const write_through_words[] = { "", "write-through" }; /* none for off */
static const char *const arrivals_choices[] = { "fixed", "poisson", NULL };
static const char *const arrivals_words[] = { "", "poisson" };      /* no word for fixed */
static const char *const placement_choices[] = { "together", "each", NULL }; /* many hosts */
static const char *const rate_scope_choices[] = { "rank", "total", NULL };
static const char *const hooks_where_choices[] = { "rank0", "every", NULL };

#define MAX_LABEL 64  /* names and labels */
#define MAX_TEXT 1024 /* one-line texts and option strings */

#define NODIM (-1)

/* The access dimension's value without the matrix: "none", or "#N" (matrix.c, plan.c and
 * result.c put the specification's name in its place; matrix.c reads names). */
static int access_parse(const char *text, int64_t *v, char *err, size_t errlen)
{
	if (strcmp(text, "none") == 0) {
		*v = 0;
		return 0;
	}
	return iom_err(err, errlen, EINVAL, "access '%s' is not an access specification", text);
}

static void access_format(int64_t v, char *buf, size_t len)
{
	if (v == 0)
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "#%lld", (long long)v);
}

const char *const iom_metric_names[] = {
	"iops", "mb_s", "lat_mean_ns", "lat_p99_ns", "cpu_us_per_io", "cpu_busy_pct", NULL
};

int iom_metrics_parse(const char *text, int64_t *mask, char *err, size_t errlen)
{
	const char *p = text;
	int64_t m = 0;

	for (;;) {
		size_t n, k;

		p += strspn(p, ", \t");
		if (!*p)
			break;
		n = strcspn(p, ", \t");
		for (k = 0; iom_metric_names[k]; k++)
			if (strlen(iom_metric_names[k]) == n && strncmp(p, iom_metric_names[k], n) == 0)
				break;
		if (!iom_metric_names[k])
			return iom_err(err, errlen, EINVAL, "metrics: '%.*s' is not a metric (iops, "
				       "mb_s, lat_mean_ns, lat_p99_ns, cpu_us_per_io, cpu_busy_pct)",
				       (int)n, p);
		m |= (int64_t)1 << k;
		p += n;
	}
	if (!m)
		return iom_err(err, errlen, EINVAL, "metrics: name at least one metric");
	*mask = m;
	return 0;
}

void iom_metrics_format(int64_t mask, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t k = 0; iom_metric_names[k] && off < len; k++)
		if (mask & ((int64_t)1 << k))
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
						iom_metric_names[k]);
}

/* Many hosts (docs/hosts.md): a value of the host dimension without the matrix, "rN" (rank N);
 * a label as the results record it, "rN@vm1", reads as rank N too (matrix.c, plan.c and
 * result.c put the label in its place). */
static int host_parse(const char *text, int64_t *v, char *err, size_t errlen)
{
	char *end;
	long n;

	if (text[0] == 'r' && text[1] >= '0' && text[1] <= '9') {
		n = strtol(text + 1, &end, 10);
		if ((*end == '\0' || *end == '@') && n >= 0 && n < 4096) {
			*v = n;
			return 0;
		}
	}
	return iom_err(err, errlen, EINVAL, "host '%s' is not a rank such as \"r1\" (hosts = "
		       "\"each\" makes the host dimension)", text);
}

static void host_format(int64_t v, char *buf, size_t len)
{
	snprintf(buf, len, "r%lld", (long long)v);
}

const struct iom_key iom_keys[] = {
	/* top level */
	{ .name = "iomatrix", .section = IOM_SEC_TOP, .type = IOM_TYPE_UINT, .dim = NODIM,
	  .min = 1, .max = 1, .flags = IOM_KEY_REQUIRED,
	  .help = "schema version of the file; this iomatrix reads 1" },
	{ .name = "name", .section = IOM_SEC_TOP, .type = IOM_TYPE_STRING, .dim = NODIM,
	  IOM_AT(iom_matrix, name), .max = MAX_LABEL, .chars = IOM_CHARS_NAME,
	  .help = "short name of the study, used in the results directory name (letters, digits, "
		  "'.', '_', '-'; default: the file name without .cfg)" },
	{ .name = "description", .section = IOM_SEC_TOP, .type = IOM_TYPE_STRING, .dim = NODIM,
	  IOM_AT(iom_matrix, description), .max = MAX_TEXT,
	  .help = "one line on what the study is for" },
	{ .name = "seed", .section = IOM_SEC_TOP, .type = IOM_TYPE_UINT, .dim = NODIM,
	  .min = 0, .max = INT64_MAX, .def = "1", IOM_AT(iom_matrix, seed),
	  .flags = IOM_KEY_INT_ONLY,
	  .help = "base of every run's seed: the same seed gives the same offsets" },
	{ .name = "targets", .section = IOM_SEC_TOP, .type = IOM_TYPE_GROUP, .dim = NODIM,
	  .flags = IOM_KEY_REQUIRED,
	  .help = "where the I/O goes: a list of target groups; the targets are the dimension "
		  "named target" },
	{ .name = "workload", .section = IOM_SEC_TOP, .type = IOM_TYPE_GROUP, .dim = NODIM,
	  .help = "what I/O is done; any key given as a list or range is a dimension" },
	{ .name = "timing", .section = IOM_SEC_TOP, .type = IOM_TYPE_GROUP, .dim = NODIM,
	  .flags = IOM_KEY_REQUIRED,
	  .help = "how long each run lasts and how often each cell is repeated" },
	{ .name = "order", .section = IOM_SEC_TOP, .type = IOM_TYPE_LIST, .dim = NODIM,
	  .help = "loop nesting, outermost first; dimensions not named follow in file order" },
	{ .name = "compare", .section = IOM_SEC_TOP, .type = IOM_TYPE_STRING, .dim = NODIM,
	  .def = "target", .help = "the dimension whose values compete in the report" },
	{ .name = "repeat_order", .section = IOM_SEC_TOP, .type = IOM_TYPE_ENUM, .dim = NODIM,
	  .def = "grouped", .choices = repeat_order_choices, IOM_AT(iom_matrix, repeat_order),
	  .help = "grouped: a cell's repetitions back to back; interleaved: every cell once, then "
		  "every cell again" },
	{ .name = "shuffle", .section = IOM_SEC_TOP, .type = IOM_TYPE_UINT, .dim = NODIM,
	  .min = 0, .max = INT64_MAX,
	  .help = "a seed: when given, the runs are put in a random order, the same for the "
		  "same seed" },
	{ .name = "trace", .section = IOM_SEC_TOP, .type = IOM_TYPE_BOOL, .dim = NODIM,
	  .def = "true", IOM_AT(iom_matrix, trace),
	  .help = "record every I/O of every run in a compressed trace, traces/NNNNN.trace.gz "
		  "(docs/trace.md); --no-trace turns it off for one sweep" },
	{ .name = "cpus", .section = IOM_SEC_TOP, .type = IOM_TYPE_STRING, .dim = NODIM,
	  .help = "CPUs the worker threads run on, as taskset writes them (\"2\", \"0-3\", "
		  "\"0,2\"): thread i on the i-th CPU listed, round-robin (DiskSpd's -a); the "
		  "trace writer and the controller are not pinned. Default: no pinning" },
	{ .name = "io_uring", .section = IOM_SEC_TOP, .type = IOM_TYPE_GROUP, .dim = NODIM,
	  .help = "the io_uring engine's own keys: submit_batch and reap_wait (libaio follows "
		  "them too), sqpoll and iopoll (other engines ignore them)" },
	/* the io_uring keys' old place, still read with a note */
	{ .name = "submit_batch", .section = IOM_SEC_TOP, .type = IOM_TYPE_UINT, .dim = NODIM,
	  .min = 1, .max = IOM_QUEUE_DEPTH_MAX, .def = "1", .flags = IOM_KEY_MOVED,
	  .help = "now io_uring.submit_batch" },
	{ .name = "reap_wait", .section = IOM_SEC_TOP, .type = IOM_TYPE_STRING, .dim = NODIM,
	  .def = "adaptive", .flags = IOM_KEY_MOVED, .help = "now io_uring.reap_wait" },
	{ .name = "exclude", .section = IOM_SEC_TOP, .type = IOM_TYPE_GROUP, .dim = NODIM,
	  .help = "a list of conditions such as { threads = 8; queue_depth = 64; }; a cell that "
		  "matches every key of a condition is dropped" },
	{ .name = "report", .section = IOM_SEC_TOP, .type = IOM_TYPE_GROUP, .dim = NODIM,
	  .help = "how results are judged" },
	{ .name = "access_specs", .section = IOM_SEC_TOP, .type = IOM_TYPE_GROUP, .dim = NODIM,
	  .help = "named access specifications, IOMeter's: NAME = ( { share = 70; block_size = "
		  "\"8K\"; read_pct = 70; random_pct = 100; align = ...; }, ... ); shares add up to "
		  "100; the workload key access picks one per run" },
	{ .name = "hooks", .section = IOM_SEC_TOP, .type = IOM_TYPE_GROUP, .dim = NODIM,
	  .help = "shell commands run around the study, targets and runs (only with "
		  "--allow-hooks), and the built-ins drop_caches, fstrim, precondition" },
	/* many hosts (docs/hosts.md) */
	{ .name = "hosts", .section = IOM_SEC_TOP, .type = IOM_TYPE_ENUM, .dim = NODIM,
	  .def = "together", .choices = placement_choices, IOM_AT(iom_matrix, placement),
	  .help = "iomatrix-mpi: together, each run on every rank at once (their aggregate); "
		  "each, host is a dimension: every cell runs once per rank, on that rank alone "
		  "while the others wait, and compare defaults to host (r1@vm2: rank 1 on host "
		  "vm2). On one host (iomatrix) the dimension has the one value r0" },
	{ .name = "rate_scope", .section = IOM_SEC_TOP, .type = IOM_TYPE_ENUM, .dim = NODIM,
	  .def = "rank", .choices = rate_scope_choices, IOM_AT(iom_matrix, rate_scope),
	  .help = "iomatrix-mpi: what rate_iops and rate_mb_s mean on many ranks: rank, the "
		  "load each rank offers (N ranks offer N times it); total, the load of the run "
		  "as a whole, split evenly over the ranks that run it. A share of \"max\" is "
		  "always of the aggregate max, split over the ranks (docs/hosts.md)" },

	/* targets = ( { … }, … ) — and every workload key, as a per-target override */
	{ .name = "label", .section = IOM_SEC_TARGET, .type = IOM_TYPE_STRING, .dim = NODIM,
	  .flags = IOM_KEY_REQUIRED,
	  .help = "unique name of the target (letters, digits, '.', '_', '-')" },
	{ .name = "path", .section = IOM_SEC_TARGET, .type = IOM_TYPE_STRING, .dim = NODIM,
	  .flags = IOM_KEY_REQUIRED,
	  .help = "a scratch file (created when missing) or a block device under /dev/ (or paths: "
		  "several at once)" },
	{ .name = "size", .section = IOM_SEC_TARGET, .type = IOM_TYPE_SIZE, .dim = NODIM,
	  .unit = "bytes", .min = 4 * KIB, .max = 1024 * TIB, IOM_AT(iom_target, size),
	  .help = "size of the scratch file, or the region [0, size) of a device; required for "
		  "files, default for devices: the whole device" },
	{ .name = "filesystem", .section = IOM_SEC_TARGET, .type = IOM_TYPE_STRING, .dim = NODIM,
	  IOM_AT(iom_target, filesystem), .max = MAX_LABEL, .chars = IOM_CHARS_NAME,
	  .help = "a label for the report, e.g. \"ext4\"" },
	{ .name = "controller", .section = IOM_SEC_TARGET, .type = IOM_TYPE_STRING, .dim = NODIM,
	  .def = "auto", IOM_AT(iom_target, controller), .max = MAX_LABEL, .chars = IOM_CHARS_NAME,
	  .help = "a label for the report; \"auto\" reads the device's driver from sysfs" },
	{ .name = "overwrite", .section = IOM_SEC_TARGET, .type = IOM_TYPE_BOOL, .dim = NODIM,
	  .def = "false", IOM_AT(iom_target, overwrite),
	  .help = "may take over an existing file that iomatrix did not create" },
	{ .name = "destructive", .section = IOM_SEC_TARGET, .type = IOM_TYPE_BOOL, .dim = NODIM,
	  .def = "false", IOM_AT(iom_target, destructive),
	  .help = "may write to a block device, destroying its contents" },
	{ .name = "allow_same", .section = IOM_SEC_TARGET, .type = IOM_TYPE_BOOL, .dim = NODIM,
	  .def = "false", IOM_AT(iom_target, allow_same),
	  .help = "may be the same device or file as another target under another name (an A/A "
		  "test of the noise floor); without it that is refused, and with it the report "
		  "says the two are one" },
	{ .name = "device", .section = IOM_SEC_TARGET, .type = IOM_TYPE_STRING, .dim = NODIM,
	  .help = "a block device under /dev/, instead of path (with filesystems: the device "
		  "iomatrix formats)" },
	{ .name = "paths", .section = IOM_SEC_TARGET, .type = IOM_TYPE_STRING, .dim = NODIM,
	  .help = "a list of scratch files or of block devices, instead of path: one run drives "
		  "them all at once (worker thread i on path i mod N), size applies to each, and "
		  "every path is checked and pinned as a single path is" },
	{ .name = "filesystems", .section = IOM_SEC_TARGET, .type = IOM_TYPE_STRING,
	  .dim = NODIM,
	  .help = "a list of \"ext4\", \"xfs\", \"btrfs\", \"raw\": one target per filesystem "
		  "(labelled LABEL-FSTYPE); iomatrix makes each on the device in turn (needs "
		  "destructive = true), mounts it privately and runs the cells on a scratch file of "
		  "size bytes there (raw: on the device)" },
	/* many hosts (docs/hosts.md) */
	{ .name = "hosts", .section = IOM_SEC_TARGET, .type = IOM_TYPE_STRING, .dim = NODIM,
	  .help = "iomatrix-mpi: a list of short hostnames and rank:N selectors ([ \"vm1\", "
		  "\"rank:2\" ]): the target exists only on the ranks they name; the others do "
		  "not prepare or open it and sit its runs out. Default: on every rank" },
	{ .name = "fill_data", .section = IOM_SEC_TARGET, .type = IOM_TYPE_BOOL,
	  .dim = NODIM, IOM_AT(iom_target, fill_data), .def = "false",
	  .help = "the scratch file's fill writes the target's data value (zeros, "
		  "compressible:N%, dedupe:N%) instead of random data, when iomatrix fills it "
		  "(created or extended; a filled file is reused as it is)" },
	{ .name = "mkfs_options", .section = IOM_SEC_TARGET, .type = IOM_TYPE_STRING,
	  .dim = NODIM, IOM_AT(iom_target, mkfs_options), .max = MAX_TEXT,
	  .help = "extra mkfs arguments for filesystems, split at white space" },
	{ .name = "mount_options", .section = IOM_SEC_TARGET, .type = IOM_TYPE_STRING,
	  .dim = NODIM, IOM_AT(iom_target, mount_options), .max = MAX_TEXT,
	  .help = "mount options for filesystems, as mount(8) takes them (\"noatime,discard\")" },

	/* workload = { … } — the dimensions */
	{ .name = "block_size", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_SIZE,
	  .dim = IOM_DIM_BLOCK_SIZE, IOM_AT(iom_workload, block_size),
	  .unit = "bytes", .min = 512, .max = 64 * MIB, .def = "4K",
	  .describe = "bs=%s", .word_pos = 2,
	  .help = "bytes per I/O; a multiple of 512 with direct I/O" },
	{ .name = "queue_depth", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_UINT,
	  .dim = IOM_DIM_QUEUE_DEPTH, IOM_AT(iom_workload, queue_depth),
	  .min = 1, .max = IOM_QUEUE_DEPTH_MAX, .def = "1",
	  .describe = "qd=%s", .word = "qd%s", .word_pos = 5,
	  .help = "I/Os in flight per thread" },
	{ .name = "threads", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_UINT,
	  .dim = IOM_DIM_THREADS, IOM_AT(iom_workload, threads),
	  .min = 1, .max = 1024, .def = "1",
	  .describe = "t=%s", .word = "t%s", .word_pos = 6,
	  .help = "threads, each with its own queue of queue_depth I/Os" },
	{ .name = "read_pct", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_PCT,
	  .dim = IOM_DIM_READ_PCT, IOM_AT(iom_workload, read_pct),
	  .unit = "%", .min = 0, .max = 100, .def = "100",
	  .describe = "rd=%s%%", .word = "rd%s", .word_zero = "wr100", .word_pos = 4,
	  .help = "share of reads; the rest are writes (0 = all writes)" },
	{ .name = "pattern", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_ENUM,
	  .dim = IOM_DIM_PATTERN, IOM_AT(iom_workload, pattern),
	  .def = "random", .choices = pattern_choices,
	  .words = pattern_words, .word_pos = 3,
	  .help = "random offsets (aligned to block_size) or sequential" },
	{ .name = "engine", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_ENUM,
	  .dim = IOM_DIM_ENGINE, IOM_AT(iom_workload, engine),
	  .def = "io_uring", .choices = engine_choices,
	  .word_pos = 7,
	  .help = "how I/O is issued: io_uring; psync (pread/pwrite, one I/O at a time); null "
		  "(no I/O: measures iomatrix itself); libaio (Linux AIO, io_submit/io_getevents, "
		  "as fio's libaio)" },
	{ .name = "direct", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_BOOL,
	  .dim = IOM_DIM_DIRECT, IOM_AT(iom_workload, direct),
	  .def = "true",
	  .words = direct_words, .word_pos = 8,
	  .help = "O_DIRECT: bypass the page cache" },
	{ .name = "verify", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_BOOL,
	  .dim = IOM_DIM_VERIFY, IOM_AT(iom_workload, verify),
	  .def = "false",
	  .words = verify_words,
	  .help = "writes carry a checked header per 512 bytes; reads check it (docs/hardening.md)" },
	/* where each I/O goes */
	{ .name = "random_pct", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_PCT,
	  .dim = IOM_DIM_RANDOM_PCT, IOM_AT(iom_workload, random_pct),
	  .unit = "%", .min = 0, .max = 100, .def = "100", .flags = IOM_KEY_SPARSE,
	  .describe = "random=%s%%", .word = "rnd%s",
	  .help = "share of I/Os at a random offset (IOMeter's % random, fio's "
		  "percentage_random); the rest continue sequentially from the thread's previous "
		  "I/O. Applies to pattern = \"random\"; pattern = \"sequential\" is "
		  "random_pct = 0, and a matrix giving both sequential and a random_pct below 100 "
		  "is an error" },
	{ .name = "align", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_SIZE,
	  .dim = IOM_DIM_ALIGN, IOM_AT(iom_workload, align),
	  .unit = "bytes", .min = 0, .max = 64 * MIB, .def = "0", .flags = IOM_KEY_SPARSE,
	  .describe = "align=%s", .word = "al%s",
	  .help = "random offsets are multiples of this many bytes (DiskSpd's -r<align>); 0, the "
		  "default, is block_size. A multiple of 512 with direct I/O; sequential I/O ignores "
		  "it" },
	{ .name = "distribution", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_SPEC,
	  .dim = IOM_DIM_DISTRIBUTION, IOM_AT(iom_workload, distribution),
	  .def = "uniform", .flags = IOM_KEY_SPARSE,
	  .parse = iom_dist_parse, .format = iom_dist_format,
	  .forms = "uniform | zipf:THETA | pareto:H | normal:SIGMA% | zoned:A/S:A/S...",
	  .help = "how random offsets spread over the region, with fio's meanings: uniform; "
		  "zipf:THETA (0 < THETA <= 10); pareto:H (0 < H < 1; 0.2 puts 80 % of the I/O on "
		  "20 % of the region); normal:SIGMA% (a bell around the middle, SIGMA in % of the "
		  "region); zoned:A/S:A/S... (A % of the accesses to the next S % of the region, up to 4 "
		  "zones, each sum 100). zipf's and pareto's hot blocks are spread over the region; "
		  "deterministic per seed (docs/matrix.md, \"Distributions\")" },
	{ .name = "access", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_SPEC,
	  .dim = IOM_DIM_ACCESS, IOM_AT(iom_workload, access),
	  .def = "none", .flags = IOM_KEY_SPARSE,
	  .parse = access_parse, .format = access_format,
	  .forms = "none | a name of access_specs",
	  .help = "an access specification of access_specs, by name (IOMeter's): each I/O picks "
		  "one of its lines by share, with that line's block_size, read_pct, random_pct and "
		  "align (the workload's where the line leaves one out); none: the workload's "
		  "values alone" },
	{ .name = "thread_stride", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_SIZE,
	  .dim = IOM_DIM_THREAD_STRIDE, IOM_AT(iom_workload, thread_stride),
	  .unit = "bytes", .min = 0, .max = 1024 * TIB, .def = "0", .flags = IOM_KEY_SPARSE,
	  .describe = "stride=%s", .word = "T%s",
	  .help = "sequential I/O: thread t starts at t x thread_stride (rounded down to the block "
		  "size) and walks the whole region, wrapping at its end (DiskSpd's -T); 0, the "
		  "default: each thread walks its own slice of the region" },
	{ .name = "shared_sequential", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_BOOL,
	  .dim = IOM_DIM_SHARED_SEQUENTIAL, IOM_AT(iom_workload, shared_sequential),
	  .def = "false", .flags = IOM_KEY_SPARSE, .words = shared_words,
	  .help = "sequential I/O: all threads take the next block of one stream over the whole "
		  "region (DiskSpd's -si), instead of one stream per thread" },
	{ .name = "write_through", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_BOOL,
	  .dim = IOM_DIM_WRITE_THROUGH, IOM_AT(iom_workload, write_through),
	  .def = "false",
	  .words = write_through_words,
	  .flags = IOM_KEY_SPARSE,
	  .help = "every write is on stable media when it completes: the target is opened O_DSYNC "
		  "(a device without FUA then flushes its volatile cache after each write); the "
		  "run's JSON gives the device's flushes (DiskSpd -Sh, -Sw)" },
	{ .name = "data", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_ENUM,
	  .dim = IOM_DIM_DATA, IOM_AT(iom_workload, data),
	  .def = "random", .choices = data_choices, .words = data_words,
	  .flags = IOM_KEY_SPARSE,
	  .help = "what writes carry: random (incompressible, every 4 KiB unique); zeros; "
		  "compressible:N% (gzip shrinks each 4 KiB by about N %: that share is zeros); "
		  "dedupe:N% (N % of written blocks repeat an earlier block of the thread)" },
	{ .name = "fsync_every", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_UINT,
	  .dim = IOM_DIM_FSYNC_EVERY, IOM_AT(iom_workload, fsync_every),
	  .min = 0, .max = 1000000, .def = "0", .word = "fsync%s", .word_zero = "",
	  .flags = IOM_KEY_SPARSE,
	  .help = "a flush (fdatasync; io_uring IORING_OP_FSYNC) after every N writes of a "
		  "thread, as fio's fsync; counted apart in the run's flush figures; 0: none" },
	{ .name = "trim_pct", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_PCT,
	  .dim = IOM_DIM_TRIM_PCT, IOM_AT(iom_workload, trim_pct),
	  .unit = "%", .min = 0, .max = 100, .def = "0", .word = "trim%s%%", .word_zero = "",
	  .flags = IOM_KEY_SPARSE,
	  .help = "share of I/Os that discard their block (a device: a discard; a file: a hole "
		  "punched), the rest split by read_pct; counted apart in the run's trim figures" },
	/* the offered load (docs/load.md) */
	{ .name = "rate_iops", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_RATE,
	  .dim = IOM_DIM_RATE_IOPS, IOM_AT(iom_workload, rate_iops),
	  .unit = "I/O per s", .min = 1, .max = 100000000, .def = "none",
	  .flags = IOM_KEY_SPARSE, .describe = "rate=%s", .word = "%siops",
	  .help = "the offered load of the whole run, spread over its threads: an open loop, each "
		  "I/O due at its time of the schedule (arrivals), queue_depth the most in "
		  "flight; latency is response time from the due time (and service time from "
		  "submission). A number, \"max\" (the cell unthrottled, recorded as a run) or a "
		  "share of that max (\"50%\"), derived when the plan runs; \"none\": a closed "
		  "loop (docs/load.md)" },
	{ .name = "rate_mb_s", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_RATE,
	  .dim = IOM_DIM_RATE_MB_S, IOM_AT(iom_workload, rate_mb_s),
	  .unit = "MB/s", .min = 1, .max = 1000000000000ll, .def = "none", .scale = 1000000,
	  .flags = IOM_KEY_SPARSE, .describe = "rate=%sMB/s", .word = "%sMBps",
	  .help = "rate_iops in bytes: the offered load in MB/s (10^6 bytes per second; \"12.5\" "
		  "too), as many I/Os of block_size per second (DiskSpd's -g); \"max\" and "
		  "shares as rate_iops" },
	{ .name = "arrivals", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_ENUM,
	  .dim = IOM_DIM_ARRIVALS, IOM_AT(iom_workload, arrivals),
	  .def = "fixed", .choices = arrivals_choices, .words = arrivals_words,
	  .flags = IOM_KEY_SPARSE,
	  .help = "when each I/O of a paced run is due: fixed, evenly spaced (1/rate apart in "
		  "each thread); poisson, exponential gaps of the same mean from the run's seed" },
	{ .name = "think_time", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_DURATION,
	  .dim = IOM_DIM_THINK_TIME, IOM_AT(iom_workload, think_ns),
	  .unit = "ns", .min = 0, .max = 3600 * SEC, .def = "0s", .flags = IOM_KEY_SPARSE,
	  .describe = "think=%s", .word = "think%s",
	  .help = "a closed loop with pauses (DiskSpd's -j): each thread waits this long after "
		  "every burst of its I/Os has completed; 0: no pause. Not with a rate" },
	{ .name = "burst", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_UINT,
	  .dim = IOM_DIM_BURST, IOM_AT(iom_workload, burst),
	  .min = 1, .max = 1000000, .def = "1", .flags = IOM_KEY_SPARSE,
	  .describe = "burst=%s", .word = "burst%s",
	  .help = "I/Os per burst of a thread between think_time pauses (DiskSpd's -i); at most "
		  "queue_depth of them in flight" },
	{ .name = "pace_tick", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_DURATION,
	  .dim = IOM_DIM_PACE_TICK, IOM_AT(iom_workload, pace_tick_ns),
	  .unit = "ns", .min = 1000, .max = 10000000, .def = "75us", /* IOM_PACE_TICK_NS */
	  .flags = IOM_KEY_SPARSE,
	  .describe = "tick=%s", .word = "tick%s",
	  .help = "a paced run whose threads issue more than one I/O per tick: each wake-up "
		  "issues every I/O due by then, the next comes a tick later at the soonest. "
		  "Longer: fewer wake-ups, less CPU (on a VM each costs 7 to 10 microseconds), "
		  "up to a tick more lag in the response time (docs/load.md)" },
	/* many hosts (docs/hosts.md) */
	{ .name = "host", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_SPEC,
	  .dim = IOM_DIM_HOST, IOM_AT(iom_workload, host),
	  .def = "r0", .flags = IOM_KEY_SPARSE,
	  .parse = host_parse, .format = host_format,
	  .forms = "rN (a rank)",
	  .help = "the rank that runs the cell alone: not given by hand, hosts = \"each\" makes "
		  "it a dimension of every rank of the job (an exclude condition may name one, "
		  "host = \"r2\")" },
	{ .name = "ranks", .section = IOM_SEC_WORKLOAD, .type = IOM_TYPE_UINT,
	  .dim = IOM_DIM_RANKS, IOM_AT(iom_workload, ranks),
	  .min = 1, .max = 4096, .flags = IOM_KEY_SPARSE,
	  .describe = "ranks=%s", .word = "ranks%s",
	  .help = "iomatrix-mpi: the cell runs on the first N ranks at once (the others wait), "
		  "their aggregate summed; a list is how the figures scale with the number of "
		  "clients. Default: every rank. More than the job's ranks is refused (on one host, "
		  "iomatrix, more than 1)" },

	/* timing = { … } */
	{ .name = "warmup", .section = IOM_SEC_TIMING, IOM_AT(iom_timing, warmup_ns), .type = IOM_TYPE_DURATION, .dim = NODIM,
	  .unit = "ns", .min = 0, .max = DAY, .def = "1s",
	  .help = "I/O before the measured window, not counted; \"steady\": until steady state (timing.steady)" },
	{ .name = "duration", .section = IOM_SEC_TIMING, IOM_AT(iom_timing, duration_ns), .type = IOM_TYPE_DURATION, .dim = NODIM,
	  .unit = "ns", .min = MS, .max = 7 * DAY,
	  .help = "length of the measured window; exactly one of duration and bytes" },
	{ .name = "bytes", .section = IOM_SEC_TIMING, IOM_AT(iom_timing, bytes), .type = IOM_TYPE_SIZE, .dim = NODIM,
	  .unit = "bytes", .min = 512, .max = 1024 * TIB,
	  .help = "measured I/O per run (ATTO's total length) instead of a duration" },
	{ .name = "cooldown", .section = IOM_SEC_TIMING, IOM_AT(iom_timing, cooldown_ns), .type = IOM_TYPE_DURATION, .dim = NODIM,
	  .unit = "ns", .min = 0, .max = DAY, .def = "0s",
	  .help = "I/O after the measured window, not counted (DiskSpd's -C)" },
	{ .name = "rest", .section = IOM_SEC_TIMING, IOM_AT(iom_timing, rest_ns), .type = IOM_TYPE_DURATION, .dim = NODIM,
	  .unit = "ns", .min = 0, .max = DAY, .def = "0s",
	  .help = "idle pause after each run" },
	{ .name = "timeout", .section = IOM_SEC_TIMING, IOM_AT(iom_timing, timeout_ns), .type = IOM_TYPE_DURATION, .dim = NODIM,
	  .unit = "ns", .min = 0, .max = 30 * DAY, .def = "0s",
	  .help = "a run taking longer fails; 0: twice the expected time plus 60s" },
	{ .name = "repeat", .section = IOM_SEC_TIMING, IOM_AT(iom_timing, repeat), .type = IOM_TYPE_UINT, .dim = NODIM,
	  .min = 1, .max = 1000, .def = "1", .help = "repetitions of each cell" },
	/* adaptive repetitions */
	{ .name = "repeat_max", .section = IOM_SEC_TIMING, IOM_AT(iom_timing, repeat_max), .type = IOM_TYPE_UINT, .dim = NODIM,
	  .min = 0, .max = 1000, .def = "0",
	  .help = "adaptive: after repeat rounds, cells not yet settled get further rounds (interleaved) up to this many; 0: none" },
	{ .name = "steady", .section = IOM_SEC_TIMING, .type = IOM_TYPE_STRING, .dim = NODIM,
	  .max = 48, .def = "iops 2% 10s",
	  .help = "with warmup = \"steady\": \"iops 2% 10s\" (range of per-second IOPS over 10s within 2% of their mean) or \"iops_slope 0.5% 10s\" (their slope per second), fio's steadystate" },
	{ .name = "warmup_max", .section = IOM_SEC_TIMING, IOM_AT(iom_timing, warmup_max_ns), .type = IOM_TYPE_DURATION, .dim = NODIM,
	  .unit = "ns", .min = 1000000000, .max = DAY, .def = "60s",
	  .help = "with warmup = \"steady\": the longest warm-up; not steady by then, the run is flagged and left out of verdicts" },
	{ .name = "until", .section = IOM_SEC_TIMING, .type = IOM_TYPE_STRING, .dim = NODIM,
	  .max = 32, .def = "settled",
	  .help = "what settles a cell with repeat_max: \"ci 2%\" (95 % CI of its IOPS within 2 % of the mean either way) or \"settled\" (its verdict is not undecided)" },

	/* report = { … } */
	{ .name = "alpha", .section = IOM_SEC_REPORT, IOM_AT(iom_report_opts, alpha), .type = IOM_TYPE_FLOAT, .dim = NODIM,
	  .fmin = 0.0001, .fmax = 0.5, .def = "0.05",
	  .help = "significance threshold of the test that decides a winner" },
	{ .name = "min_effect", .section = IOM_SEC_REPORT, IOM_AT(iom_report_opts, min_effect_pct), .type = IOM_TYPE_FLOAT, .dim = NODIM,
	  .unit = "%", .fmin = 0, .fmax = 100, .def = "2%",
	  .help = "smallest difference that counts as a win" },
	{ .name = "max_cv", .section = IOM_SEC_REPORT, IOM_AT(iom_report_opts, max_cv_pct), .type = IOM_TYPE_FLOAT, .dim = NODIM,
	  .unit = "%", .fmin = 0, .fmax = 1000, .def = "5%",
	  .help = "coefficient of variation above which a cell is called noisy" },
	{ .name = "correction", .section = IOM_SEC_REPORT, IOM_AT(iom_report_opts, correction), .type = IOM_TYPE_ENUM, .dim = NODIM,
	  .def = "holm", .choices = correction_choices,
	  .help = "multiple-comparison correction over every comparison in a report: holm, bh (false discovery rate) or none" },
	{ .name = "metrics", .section = IOM_SEC_REPORT, IOM_AT(iom_report_opts, metrics), .type = IOM_TYPE_SPEC, .dim = NODIM,
	  .def = "iops, mb_s, lat_mean_ns, lat_p99_ns, cpu_us_per_io",
	  .parse = iom_metrics_parse, .format = iom_metrics_format,
	  .forms = "a list of iops, mb_s, lat_mean_ns, lat_p99_ns, cpu_us_per_io, cpu_busy_pct",
	  .help = "the metrics the winners compare, in the report's order whatever the list's: "
		  "cpu_busy_pct is the CPU's busy % (DiskSpd's avg. Usage, IOMeter's %CPU), beside "
		  "cpu_us_per_io, the system's CPU µs per I/O" },

	/* hooks = { … } */
	{ .name = "before_study", .section = IOM_SEC_HOOKS, .type = IOM_TYPE_STRING, .dim = NODIM,
	  .help = "shell command run before the first run" },
	{ .name = "before_target", .section = IOM_SEC_HOOKS, .type = IOM_TYPE_STRING,
	  .dim = NODIM, .help = "shell command run before a target's first run" },
	{ .name = "before_run", .section = IOM_SEC_HOOKS, .type = IOM_TYPE_STRING, .dim = NODIM,
	  .help = "shell command run before each run; failing, it fails the run" },
	{ .name = "after_run", .section = IOM_SEC_HOOKS, .type = IOM_TYPE_STRING, .dim = NODIM,
	  .help = "shell command run after each run; failing, it fails the run" },
	{ .name = "after_target", .section = IOM_SEC_HOOKS, .type = IOM_TYPE_STRING,
	  .dim = NODIM, .help = "shell command run after a target's last run" },
	{ .name = "after_study", .section = IOM_SEC_HOOKS, .type = IOM_TYPE_STRING, .dim = NODIM,
	  .help = "shell command run after the last run" },
	{ .name = "where", .section = IOM_SEC_HOOKS, .type = IOM_TYPE_ENUM, .dim = NODIM,
	  .def = "rank0", .choices = hooks_where_choices, IOM_AT(iom_hooks, where),
	  .help = "iomatrix-mpi: the ranks the shell hooks run on: rank0, rank 0 alone; every, "
		  "each rank around its own visits and runs (${rank}, ${host}, ${ranks} tell "
		  "them apart), its logs collected into the results directory, and a before_run "
		  "hook failing on any rank fails the run on all (docs/hosts.md)" },
	{ .name = "drop_caches", .section = IOM_SEC_HOOKS, IOM_AT(iom_hooks, drop_caches), .type = IOM_TYPE_BOOL, .dim = NODIM,
	  .def = "false",
	  .help = "built-in: sync and drop the page cache before each run (root)" },
	{ .name = "fstrim", .section = IOM_SEC_HOOKS, IOM_AT(iom_hooks, fstrim), .type = IOM_TYPE_BOOL, .dim = NODIM,
	  .def = "false",
	  .help = "built-in: trim the free space of a file target's filesystem before the "
		  "target's first run (root)" },
	{ .name = "precondition", .section = IOM_SEC_HOOKS, .type = IOM_TYPE_GROUP,
	  .dim = NODIM,
	  .help = "built-in: { pattern = \"sequential\"; bytes = \"2x\"; } fills a target with "
		  "sequential writes (a multiple of its region, or a size) before its first "
		  "write cell, as SNIA's test specification asks" },

	/* io_uring = { … } — the keys the io_uring engine owns (engine.c's registry), landed in
	 * struct iom_engine_opts; libaio follows submit_batch and reap_wait too */
	{ .name = "submit_batch", .section = IOM_SEC_IO_URING, .type = IOM_TYPE_UINT,
	  .dim = NODIM, IOM_AT(iom_engine_opts, submit_batch), .min = 1,
	  .max = IOM_QUEUE_DEPTH_MAX, .def = "1",
	  .help = "a worker refills its queue only when at least this many slots are free, and "
		  "submits them together (fio's iodepth_batch_submit; at most queue_depth). 1: "
		  "every completed I/O is replaced at once. libaio follows it too" },
	{ .name = "reap_wait", .section = IOM_SEC_IO_URING, .type = IOM_TYPE_STRING,
	  .dim = NODIM, .def = "adaptive",
	  .help = "the completions each wait of a worker waits for: \"adaptive\" measures "
		  "which wait (1, 2, 4, … up to half the queue) completes the most I/Os per "
		  "second, or as many for less CPU, and follows it; or a fixed number (8) or "
		  "fraction of the I/Os in flight (\"1/2\"), at least 1, at most all in flight. "
		  "libaio follows it too (docs/performance.md)" },
	{ .name = "sqpoll", .section = IOM_SEC_IO_URING, .type = IOM_TYPE_BOOL, .dim = NODIM,
	  IOM_AT(iom_engine_opts, sqpoll), .def = "false",
	  .help = "IORING_SETUP_SQPOLL: a kernel thread per worker (iou-sqp-PID) polls the "
		  "submission queue, so submitting makes no system call; its CPU time is counted "
		  "in the run's process CPU" },
	{ .name = "iopoll", .section = IOM_SEC_IO_URING, .type = IOM_TYPE_BOOL, .dim = NODIM,
	  IOM_AT(iom_engine_opts, iopoll), .def = "false",
	  .help = "IORING_SETUP_IOPOLL: completions are polled instead of interrupts; needs "
		  "direct = true and a device with poll queues (/sys/block/X/queue/io_poll reads "
		  "1; NVMe with poll_queues=N), else the run fails before any I/O" },

	/* exclude = ( { … }, … ) — and every workload key */
	{ .name = "target", .section = IOM_SEC_EXCLUDE, .type = IOM_TYPE_STRING,
	  .dim = IOM_DIM_TARGET, .word_pos = 1, .help = "a target label, or a list of labels" },
};

const size_t iom_nkeys = IOM_ARRAY_SIZE(iom_keys);

static const char *const section_names[] = {
	[IOM_SEC_TOP] = "top level",
	[IOM_SEC_TARGET] = "targets",
	[IOM_SEC_WORKLOAD] = "workload",
	[IOM_SEC_TIMING] = "timing",
	[IOM_SEC_REPORT] = "report",
	[IOM_SEC_HOOKS] = "hooks",
	[IOM_SEC_EXCLUDE] = "exclude",
	[IOM_SEC_IO_URING] = "io_uring",
};

const char *iom_correction_name(enum iom_correction c)
{
	return (size_t)c < IOM_ARRAY_SIZE(correction_choices) - 1 ? correction_choices[c] : "?";
}

int iom_correction_from_name(const char *name)
{
	for (int i = 0; correction_choices[i]; i++)
		if (strcmp(correction_choices[i], name) == 0)
			return i;
	return -1;
}

const char *iom_section_name(enum iom_section section)
{
	if ((size_t)section >= IOM_ARRAY_SIZE(section_names))
		return "?";
	return section_names[section];
}

int iom_section_from_name(const char *name)
{
	for (size_t i = IOM_SEC_TARGET; name && i < IOM_ARRAY_SIZE(section_names); i++)
		if (strcmp(section_names[i], name) == 0)
			return (int)i;
	return -1;
}

int iom_key_store(const struct iom_key *k, void *base, int64_t v)
{
	if (k->type == IOM_TYPE_STRING || k->type == IOM_TYPE_FLOAT)
		return -EINVAL;
	return iom_store_int((char *)base + k->off, k->size, v);
}

int iom_store_int(void *dst, size_t size, int64_t v)
{
	switch (size) {
	case 1: {
		bool b = v != 0;

		memcpy(dst, &b, 1);
		return 0;
	}
	case 4: {
		uint32_t x = (uint32_t)v;

		memcpy(dst, &x, 4);
		return 0;
	}
	case 8:
		memcpy(dst, &v, 8);
		return 0;
	}
	return -EINVAL;
}

/* Sections whose keys are also valid in section s. */
static bool section_accepts(enum iom_section s, enum iom_section key_section)
{
	if (s == key_section)
		return true;
	return (s == IOM_SEC_TARGET || s == IOM_SEC_EXCLUDE) && key_section == IOM_SEC_WORKLOAD;
}

const struct iom_key *iom_key_find(enum iom_section section, const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < iom_nkeys; i++)
		if (section_accepts(section, iom_keys[i].section) &&
		    strcmp(iom_keys[i].name, name) == 0)
			return &iom_keys[i];
	return NULL;
}

/* Optimal string alignment distance (Levenshtein plus transpositions), for short names. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *d, res;

	if (la > 64 || lb > 64)
		return SIZE_MAX;
	d = xcalloc((la + 1) * (lb + 1), sizeof(*d));
#define D(i, j) d[(i) * (lb + 1) + (j)]
	for (size_t i = 0; i <= la; i++)
		D(i, 0) = i;
	for (size_t j = 0; j <= lb; j++)
		D(0, j) = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = tolower((unsigned char)a[i - 1]) !=
				      tolower((unsigned char)b[j - 1]);
			size_t v = IOM_MIN(D(i - 1, j) + 1, D(i, j - 1) + 1);

			v = IOM_MIN(v, D(i - 1, j - 1) + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
				v = IOM_MIN(v, D(i - 2, j - 2) + 1);
			D(i, j) = v;
		}
	}
	res = D(la, lb);
#undef D
	free(d);
	return res;
}

const char *iom_closest(const char *name, const char *const *cands, size_t n)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX, len;

	if (!name)
		return NULL;
	len = strlen(name);
	for (size_t i = 0; i < n; i++) {
		size_t dist = edit_distance(name, cands[i]);

		/* "blocksize" → "block_size"; also a name that is a prefix or part of a key. */
		if (len >= 3 && (strstr(cands[i], name) || strstr(name, cands[i])))
			dist = IOM_MIN(dist, 2);
		if (dist < best_d) {
			best_d = dist;
			best = cands[i];
		}
	}
	if (best && best_d <= IOM_MAX((size_t)2, len / 3) && best_d < len)
		return best;
	return NULL;
}

const struct iom_key *iom_key_closest(enum iom_section section, const char *name)
{
	const char *cands[IOM_ARRAY_SIZE(iom_keys)];
	const struct iom_key *keys[IOM_ARRAY_SIZE(iom_keys)];
	const char *best;
	size_t n = 0;

	for (size_t i = 0; i < iom_nkeys; i++) {
		if (section_accepts(section, iom_keys[i].section)) {
			keys[n] = &iom_keys[i];
			cands[n++] = iom_keys[i].name;
		}
	}
	best = iom_closest(name, cands, n);
	for (size_t i = 0; best && i < n; i++)
		if (cands[i] == best)
			return keys[i];
	return NULL;
}

const struct iom_key *iom_dim_key(enum iom_dim dim)
{
	for (size_t i = 0; i < iom_nkeys; i++)
		if (iom_keys[i].dim == (int)dim)
			return &iom_keys[i];
	return NULL;
}

/* A dimension's name is its key's: "target" is the row of exclude conditions. */
const char *iom_dim_name(enum iom_dim dim)
{
	const struct iom_key *k = (unsigned)dim < IOM_DIM_COUNT ? iom_dim_key(dim) : NULL;

	return k ? k->name : "?";
}

int iom_dim_from_name(const char *name)
{
	for (int d = 0; name && d < IOM_DIM_COUNT; d++)
		if (strcmp(iom_dim_name((enum iom_dim)d), name) == 0)
			return d;
	return -1;
}

const char *iom_type_name(enum iom_type type)
{
	switch (type) {
	case IOM_TYPE_SIZE: return "size";
	case IOM_TYPE_UINT: return "integer";
	case IOM_TYPE_PCT: return "percent";
	case IOM_TYPE_FLOAT: return "number";
	case IOM_TYPE_BOOL: return "bool";
	case IOM_TYPE_ENUM: return "choice";
	case IOM_TYPE_DURATION: return "duration";
	case IOM_TYPE_STRING: return "string";
	case IOM_TYPE_LIST: return "list";
	case IOM_TYPE_GROUP: return "group";
	case IOM_TYPE_SPEC: return "spec";
	case IOM_TYPE_RATE: return "rate";
	}
	return "?";
}

/* A choice spelled "name:%" takes a whole percentage: "name:N%" (IOM_CHOICE_VALUE). */
static bool choice_takes_pct(const char *choice)
{
	size_t n = strlen(choice);

	return n > 2 && choice[n - 2] == ':' && choice[n - 1] == '%';
}

/* A rate's stored form as written: "none", "max", "25%", "2000", "12.5". */
static void rate_format(const struct iom_key *k, int64_t v, char *buf, size_t len)
{
	int64_t scale = k->scale ? k->scale : 1;

	if (v == IOM_RATE_NONE)
		snprintf(buf, len, "none");
	else if (v == IOM_RATE_MAX)
		snprintf(buf, len, "max");
	else if (IOM_RATE_IS_SHARE(v))
		snprintf(buf, len, "%g%%", IOM_RATE_SHARE(v) * 100.0);
	else if (v % scale == 0)
		snprintf(buf, len, "%" PRId64, v / scale);
	else
		snprintf(buf, len, "%.10g", (double)v / (double)scale);
}

void iom_key_format(const struct iom_key *k, int64_t v, char *buf, size_t len)
{
	switch (k->type) {
	case IOM_TYPE_RATE:
		rate_format(k, v, buf, len);
		break;
	case IOM_TYPE_SIZE:
		iom_size_format((uint64_t)v, buf, len);
		break;
	case IOM_TYPE_DURATION:
		iom_duration_format((uint64_t)v, buf, len);
		break;
	case IOM_TYPE_BOOL:
		snprintf(buf, len, "%s", v ? "true" : "false");
		break;
	case IOM_TYPE_SPEC:
		k->format(v, buf, len);
		break;
	case IOM_TYPE_ENUM: {
		int64_t n = 0, i = IOM_CHOICE_INDEX(v);

		while (k->choices[n])
			n++;
		if (v < 0 || i >= n)
			snprintf(buf, len, "?");
		else if (choice_takes_pct(k->choices[i]))
			snprintf(buf, len, "%.*s:%" PRId64 "%%", (int)strlen(k->choices[i]) - 2,
				 k->choices[i], IOM_CHOICE_PCT(v));
		else
			snprintf(buf, len, "%s", k->choices[i]);
		break;
	}
	default:
		snprintf(buf, len, "%" PRId64, v);
		break;
	}
}

void iom_key_range_text(const struct iom_key *k, char *buf, size_t len)
{
	char lo[32], hi[32];

	switch (k->type) {
	case IOM_TYPE_SIZE:
	case IOM_TYPE_UINT:
	case IOM_TYPE_PCT:
	case IOM_TYPE_DURATION:
		iom_key_format(k, k->min, lo, sizeof(lo));
		iom_key_format(k, k->max, hi, sizeof(hi));
		if (k->max == INT64_MAX)
			snprintf(buf, len, "%s or more", lo);
		else if (k->min == k->max)
			snprintf(buf, len, "%s", lo);
		else
			snprintf(buf, len, "%s to %s", lo, hi);
		break;
	case IOM_TYPE_RATE:
		snprintf(buf, len, "a rate above 0 (at most %" PRId64 " %s), \"max\", a share "
			 "\"0.1%%\" to \"100%%\" or \"none\"",
			 k->max / (k->scale ? k->scale : 1), k->unit ? k->unit : "");
		break;
	case IOM_TYPE_FLOAT:
		snprintf(buf, len, "%g%s to %g%s", k->fmin, k->unit ? k->unit : "", k->fmax,
			 k->unit ? k->unit : "");
		break;
	case IOM_TYPE_BOOL:
		snprintf(buf, len, "true | false");
		break;
	case IOM_TYPE_SPEC:
		snprintf(buf, len, "%s", k->forms ? k->forms : "");
		break;
	case IOM_TYPE_ENUM: {
		size_t off = 0;

		buf[0] = '\0';
		for (size_t i = 0; k->choices[i] && off < len; i++) {
			const char *ch = k->choices[i];
			bool pct = choice_takes_pct(ch); /* "name:%" reads "name:N%" */

			off += (size_t)snprintf(buf + off, len - off, "%s%.*s%s", i ? " | " : "",
						(int)strlen(ch) - (pct ? 1 : 0), ch, pct ? "N%" : "");
		}
		break;
	}
	default:
		snprintf(buf, len, "%s", "");
		break;
	}
}

int iom_key_check(const struct iom_key *k, int64_t v, char *err, size_t errlen)
{
	char val[32], range[96];
	int64_t lo = k->min, hi = k->max;

	if (k->type == IOM_TYPE_SPEC)
		return 0; /* its parse checked it */
	if (k->type == IOM_TYPE_RATE) {
		if (v == IOM_RATE_NONE || v == IOM_RATE_MAX || IOM_RATE_IS_SHARE(v))
			return 0;
	}
	if (k->type == IOM_TYPE_BOOL) {
		lo = 0;
		hi = 1;
	} else if (k->type == IOM_TYPE_ENUM) {
		int64_t i = IOM_CHOICE_INDEX(v), pct = IOM_CHOICE_PCT(v);

		lo = 0;
		for (hi = 0; k->choices[hi]; hi++)
			;
		hi--;
		if (v >= 0 && i <= hi &&
		    (choice_takes_pct(k->choices[i]) ? pct <= 100 : pct == 0))
			return 0;
		v = v < 0 ? v : hi + 1; /* out of range: named "?" below */
	}
	if (v >= lo && v <= hi)
		return 0;
	iom_key_format(k, v, val, sizeof(val));
	iom_key_range_text(k, range, sizeof(range));
	return iom_err(err, errlen, ERANGE, "%s %s is out of range (%s)", k->name, val, range);
}

/* A non-negative decimal integer, digits only; -ERANGE beyond INT64_MAX. */
static int parse_uint(const char *s, int64_t *v)
{
	uint64_t x = 0;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		if (x > (uint64_t)(INT64_MAX - 9) / 10)
			return -ERANGE;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	if (*s)
		return -EINVAL;
	*v = (int64_t)x;
	return 0;
}

/* A rate as written (see rate_format) into its stored form; range-checked by the caller. */
static int rate_parse(const struct iom_key *k, const char *text, int64_t *v, char *err,
		      size_t errlen)
{
	int64_t scale = k->scale ? k->scale : 1;
	size_t n = strlen(text);
	const char *end;
	double x;

	if (strcmp(text, "none") == 0) {
		*v = IOM_RATE_NONE;
		return 0;
	}
	if (strcmp(text, "max") == 0) {
		*v = IOM_RATE_MAX;
		return 0;
	}
	if (iom_decimal_parse(text, &x, &end) < 0 || (*end && !(*end == '%' && end[1] == '\0')))
		return iom_err(err, errlen, EINVAL, "%s '%s' is not a rate (a number such as "
			       "2000, \"max\", a share such as \"50%%\", or \"none\")", k->name,
			       text);
	if (n && text[n - 1] == '%') {
		if (x <= 0 || x > 100)
			return iom_err(err, errlen, ERANGE, "%s '%s' is not a share of the cell's "
				       "maximum from 0.1%% to 100%%", k->name, text);
		if (x * 10 < 1 || x * 10 != floor(x * 10))
			return iom_err(err, errlen, EINVAL, "%s '%s': give a share in tenths of a "
				       "percent at most (\"12.5%%\")", k->name, text);
		*v = -(int64_t)(x * 10);
		return 0;
	}
	if (x <= 0)
		return iom_err(err, errlen, ERANGE, "%s %s is not a rate: give one above 0, or "
			       "leave %s out (\"none\") for a closed loop", k->name, text, k->name);
	if (x * (double)scale > (double)k->max || x * (double)scale < 1) {
		char range[160];

		iom_key_range_text(k, range, sizeof(range));
		return iom_err(err, errlen, ERANGE, "%s '%s' is out of range (%s)", k->name, text,
			       range);
	}
	*v = (int64_t)llround(x * (double)scale);
	return 0;
}

int iom_key_parse_text(const struct iom_key *k, const char *text, int64_t *v, char *err,
		       size_t errlen)
{
	char sub[IOM_ERRLEN];
	uint64_t u;
	int64_t x;
	double pct;
	int ret;

	switch (k->type) {
	case IOM_TYPE_SPEC:
		ret = k->parse(text, &x, err, errlen);
		if (ret < 0)
			return ret;
		break;
	case IOM_TYPE_SIZE:
	case IOM_TYPE_DURATION:
		ret = k->type == IOM_TYPE_SIZE ? iom_size_parse(text, &u, sub, sizeof(sub))
					       : iom_duration_parse(text, &u, sub, sizeof(sub));
		if (ret < 0)
			return iom_err(err, errlen, -ret, "%s %s", k->name, sub);
		if (u > (uint64_t)k->max) {
			char range[96];

			iom_key_range_text(k, range, sizeof(range));
			return iom_err(err, errlen, ERANGE, "%s '%s' is out of range (%s)", k->name,
				       text, range);
		}
		x = (int64_t)u;
		break;
	case IOM_TYPE_UINT:
		ret = parse_uint(text, &x);
		if (ret == -ERANGE || (ret == 0 && x > k->max)) {
			char range[96];

			iom_key_range_text(k, range, sizeof(range));
			return iom_err(err, errlen, ERANGE, "%s '%s' is out of range (%s)", k->name,
				       text, range);
		}
		if (ret < 0)
			return iom_err(err, errlen, EINVAL, "%s '%s' is not a whole number",
				       k->name, text);
		break;
	case IOM_TYPE_PCT:
		ret = iom_pct_parse(text, (double)k->min, (double)k->max, &pct, sub, sizeof(sub));
		if (ret < 0)
			return iom_err(err, errlen, -ret, "%s %s", k->name, sub);
		if (pct != floor(pct))
			return iom_err(err, errlen, EINVAL, "%s '%s' is not a whole percentage",
				       k->name, text);
		x = (int64_t)pct;
		break;
	case IOM_TYPE_RATE:
		ret = rate_parse(k, text, &x, err, errlen);
		if (ret < 0)
			return ret;
		break;
	case IOM_TYPE_BOOL:
		if (strcmp(text, "true") == 0)
			x = 1;
		else if (strcmp(text, "false") == 0)
			x = 0;
		else
			return iom_err(err, errlen, EINVAL, "%s '%s' is not true or false",
				       k->name, text);
		break;
	case IOM_TYPE_ENUM: {
		char range[96];

		for (x = 0; k->choices[x]; x++) {
			size_t n = strlen(k->choices[x]) - 1;

			if (strcmp(k->choices[x], text) == 0)
				break;
			if (choice_takes_pct(k->choices[x]) && strncmp(k->choices[x], text, n) == 0) {
				/* "name:N%": a whole percentage, 0 to 100 */
				ret = iom_pct_parse(text + n, 0, 100, &pct, sub, sizeof(sub));
				if (ret == 0 && (pct != floor(pct) || !strchr(text + n, '%')))
					ret = -EINVAL;
				if (ret < 0)
					return iom_err(err, errlen, EINVAL, "%s '%s': after '%.*s' "
						       "comes a whole percentage from 0%% to 100%%, "
						       "e.g. '%.*s50%%'", k->name, text, (int)n,
						       text, (int)n, text);
				x = IOM_CHOICE_VALUE(x, (int64_t)pct);
				break;
			}
		}
		if (k->choices[IOM_CHOICE_INDEX(x)])
			break;
		iom_key_range_text(k, range, sizeof(range));
		return iom_err(err, errlen, EINVAL, "%s '%s' is not one of %s", k->name, text,
			       range);
	}
	default:
		return iom_err(err, errlen, EINVAL, "%s is not a single value", k->name);
	}
	ret = iom_key_check(k, x, err, errlen);
	if (ret == 0)
		*v = x;
	return ret;
}

int iom_key_check_float(const struct iom_key *k, double v, char *err, size_t errlen)
{
	char range[96];

	if (!isnan(v) && v >= k->fmin && v <= k->fmax)
		return 0;
	iom_key_range_text(k, range, sizeof(range));
	return iom_err(err, errlen, ERANGE, "%s %g is out of range (%s)", k->name, v, range);
}

int iom_key_parse_float(const struct iom_key *k, const char *text, double *v, char *err,
			size_t errlen)
{
	char sub[IOM_ERRLEN];
	double x;
	int ret;

	/* Within the range, or just beyond it so that the range message names the value. */
	ret = iom_pct_parse(text, 0, 1e9, &x, sub, sizeof(sub));
	if (ret < 0)
		return iom_err(err, errlen, EINVAL, "%s '%s' is not a number", k->name, text);
	if (strchr(text, '%') && (!k->unit || strcmp(k->unit, "%") != 0))
		return iom_err(err, errlen, EINVAL, "%s '%s' is not a percentage", k->name, text);
	ret = iom_key_check_float(k, x, err, errlen);
	if (ret == 0)
		*v = x;
	return ret;
}

void iom_dim_format(enum iom_dim dim, int64_t value, char *buf, size_t len)
{
	const struct iom_key *k = iom_dim_key(dim);

	if (!k || dim == IOM_DIM_TARGET) {
		snprintf(buf, len, "%" PRId64, value);
		return;
	}
	iom_key_format(k, value, buf, len);
}

/* Writes tmpl with each "%s" replaced by value and "%%" by '%' (the table's word formats). */
static void fill(char *buf, size_t len, const char *tmpl, const char *value)
{
	size_t o = 0;

	if (!len)
		return;
	for (const char *p = tmpl; *p && o + 1 < len; p++) {
		if (p[0] == '%' && p[1] == 's') {
			for (const char *q = value; *q && o + 1 < len; q++)
				buf[o++] = *q;
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			buf[o++] = '%';
			p++;
		} else {
			buf[o++] = *p;
		}
	}
	buf[o] = '\0';
}

void iom_dim_describe(enum iom_dim dim, int64_t value, char *buf, size_t len)
{
	const struct iom_key *k = dim == IOM_DIM_TARGET ? NULL : iom_dim_key(dim);
	char v[64];

	iom_dim_format(dim, value, v, sizeof(v));
	if (k && k->describe)
		fill(buf, len, k->describe, v);
	else if (k && k->type == IOM_TYPE_BOOL && k->words)
		snprintf(buf, len, "%s", k->words[value != 0]);
	else
		snprintf(buf, len, "%s", v);
}

void iom_dim_word(const char *dim, const char *value, char *buf, size_t len)
{
	int d = iom_dim_from_name(dim);
	const struct iom_key *k = d >= 0 ? iom_dim_key((enum iom_dim)d) : NULL;
	char *end, v[64];
	long long x;

	if (!k)
		goto other;
	switch (k->type) {
	case IOM_TYPE_STRING:
	case IOM_TYPE_SPEC:
		snprintf(buf, len, "%s", value);
		return;
	case IOM_TYPE_RATE: {
		int64_t r = 0;

		if (rate_parse(k, value, &r, NULL, 0) < 0)
			goto other;
		iom_key_format(k, r, v, sizeof(v));
		if (r == IOM_RATE_NONE)
			snprintf(buf, len, "%s", "");
		else if (r == IOM_RATE_MAX)
			snprintf(buf, len, "%s", "max");
		else if (IOM_RATE_IS_SHARE(r))
			snprintf(buf, len, "%s-of-max", v);
		else
			fill(buf, len, k->word, v);
		return;
	}
	case IOM_TYPE_BOOL:
		if (!k->words)
			break;
		snprintf(buf, len, "%s", k->words[strcmp(value, "true") == 0]);
		return;
	case IOM_TYPE_ENUM:
		if (!k->words)
			break;
		for (size_t i = 0; k->choices[i]; i++) {
			if (strcmp(k->choices[i], value) == 0) {
				snprintf(buf, len, "%s", k->words[i]);
				return;
			}
		}
		{
			int64_t pv;

			/* a choice with its percentage ("compressible:50%") is its own word */
			if (iom_key_parse_text(k, value, &pv, NULL, 0) == 0) {
				snprintf(buf, len, "%s", value);
				return;
			}
		}
		goto other;
	default: /* a number as the results record it */
		x = strtoll(value, &end, 10);
		if (!*value || *end)
			goto other;
		if (x == 0 && k->word_zero) {
			snprintf(buf, len, "%s", k->word_zero);
			return;
		}
		iom_key_format(k, x, v, sizeof(v));
		if (k->word)
			fill(buf, len, k->word, v);
		else
			snprintf(buf, len, "%s", v);
		return;
	}
	snprintf(buf, len, "%s", value);
	return;
other:
	snprintf(buf, len, "%s=%s", dim, value);
}

int iom_dim_word_rank(const char *dim)
{
	int d = iom_dim_from_name(dim), last = 0;
	const struct iom_key *k = d >= 0 ? iom_dim_key((enum iom_dim)d) : NULL;

	for (size_t i = 0; i < iom_nkeys; i++)
		last = IOM_MAX(last, iom_keys[i].word_pos);
	return k && k->word_pos ? k->word_pos - 1 : last;
}

const char *const iom_fs_types[] = { "ext4", "xfs", "btrfs", "raw", NULL };
const char *const iom_fs_types_text = "ext4, xfs, btrfs or raw";

int iom_fs_check_type(const char *fstype, char *err, size_t errlen)
{
	for (size_t i = 0; fstype && iom_fs_types[i]; i++)
		if (strcmp(iom_fs_types[i], fstype) == 0)
			return 0;
	return iom_err(err, errlen, EINVAL, "unknown filesystem '%s' (%s)", fstype ? fstype : "",
		       iom_fs_types_text);
}
