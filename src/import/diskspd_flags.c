/* SPDX-License-Identifier: MIT */
/*
 * diskspd_flags — DiskSpd's command line read into a struct iom_diskspd, through one table.
 *
 * DiskSpd's syntax: each flag is one argument, its value glued on ("-b16K", "-o2", "-Sh"); sizes
 * are whole numbers with an optional K, M, G, T (powers of 1024, any case) or b (blocks of -b).
 * Parsing keeps DiskSpd's meanings, including its defaults (64K blocks, 10 s, 5 s warm-up, two
 * I/Os outstanding, one thread, sequential reads, the OS cache in use) and its quirks (a bare -W
 * is atoi("") = 0 s of warm-up, a bare -w is -w0). Where iomatrix cannot do what a flag asks, the
 * flag is refused unless doing it iomatrix's way keeps the measurement comparable — then it is
 * accepted and a note says what happens instead (-h, -Z<size>, -D, -z).
 *
 * Every flag is a row of flags[] below; the parser walks it, and --help, the man page's list and
 * the refusals print it.
 */
#include "diskspd.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "units.h"
#include "util.h"

#define note iom_diskspd_note

/* A size as DiskSpd writes it; *blocks set when it is in blocks of -b ("8b"). */
static int parse_size(const char *s, uint64_t *v, bool *blocks)
{
	uint64_t n = 0, mult = 1;
	const char *p = s;

	*blocks = false;
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		if (n > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	switch (*p) {
	case '\0': break;
	case 'K': case 'k': mult = 1ull << 10; p++; break;
	case 'M': case 'm': mult = 1ull << 20; p++; break;
	case 'G': case 'g': mult = 1ull << 30; p++; break;
	case 'T': case 't': mult = 1ull << 40; p++; break;
	case 'b': *blocks = true; p++; break;
	default: return -EINVAL;
	}
	if (*p)
		return -EINVAL;
	if (n > UINT64_MAX / mult)
		return -ERANGE;
	*v = n * mult;
	return 0;
}

/* "16K", "1M", "512": a size as the matrix writes it (exact). */

/* ---- the flags -------------------------------------------------------------------------- */

/* The sizes a flag may give in blocks of -b ("8b"), known only once every flag is read. */
struct sized {
	uint64_t v;
	bool blocks;
};

/* One parse: d, what the flags leave for the end, and the message buffer. */
struct parse {
	struct iom_diskspd *d;
	struct sized create, max_size, stride, r_align, s_align; /* -c, -f, -T, -r, -s */
	bool sequential;       /* -s or -si given */
	const char *xml;       /* -X */
	char *err;
	size_t errlen;
};

/* What follows a flag's letters (its argument kind). */
enum arg {
	ARG_NONE,   /* nothing: -L, -h, -n (anything glued on makes an unknown flag) */
	ARG_NUMBER, /* a whole number in [min, max] into the uint64_t at .at of struct iom_diskspd */
	ARG_SIZE,   /* a size (K/M/G/T, not in blocks), at least min, into .at of iom_diskspd */
	ARG_BLOCKS, /* a size that may be in blocks of -b, at least min, into .at of struct parse */
	ARG_OWN,    /* a grammar of its own, read by .take */
};

struct flag;
typedef int flag_take(struct parse *p, const struct flag *f, const char *a, const char *v);

/*
 * One DiskSpd flag. name is what follows the '-' ("b", "rs"): an argument's row is the one with
 * the longest name it starts with. A row with .what is refused, naming what the flag does and
 * why iomatrix does not take it; every flag DiskSpd documents is a row (taken, taken with a
 * note, or refused), so none is ignored. The usage text, the man page's list and the refusals
 * are printed from this table.
 */
struct flag {
	const char *name;
	enum arg arg;
	size_t at;
	uint64_t min, max;
	flag_take *take;       /* ARG_OWN's reader; for the others, what the flag does after */
	const char *key;       /* the matrix key(s) it sets */
	bool range;            /* the value is checked against the range of its key, a workload
				* key (the one key table: -o70000 is refused as queue_depth is) */
	const char *bad;       /* the message for a value that is not one */
	const char *usage;     /* --help: the flag as written, "-b<size>" (NULL: not listed) */
	const char *help;      /* --help and the man page: what it does */
	const char *def;       /* DiskSpd's default, as --help shows it */
	const char *what, *why; /* refused: what it is, and why iomatrix does not take it */
};

static int bad_value(struct parse *p, const char *arg, const char *what)
{
	return iom_err(p->err, p->errlen, EINVAL, "'%s': %s", arg, what);
}

/* Checks a value against the range of the workload key that will hold it. */
static int key_range(struct parse *p, const char *arg, const char *key, int64_t v)
{
	const struct iom_key *k = iom_key_find(IOM_SEC_WORKLOAD, key);
	char e[IOM_ERRLEN];

	if (k && iom_key_check(k, v, e, sizeof(e)) < 0)
		return iom_err(p->err, p->errlen, EINVAL, "'%s': %s", arg, e);
	return 0;
}

/* ARG_NUMBER, ARG_SIZE and ARG_BLOCKS: the value read as the row says, range-checked. */
static int take_value(struct parse *p, const struct flag *f, const char *a, const char *v)
{
	uint64_t n = 0;
	bool blocks = false;

	if (f->arg == ARG_NUMBER) {
		if (iom_uint_parse(v, f->max, &n) < 0 || n < f->min)
			return bad_value(p, a, f->bad);
	} else if (parse_size(v, &n, &blocks) < 0 || n < f->min ||
		   (blocks && f->arg != ARG_BLOCKS)) {
		return bad_value(p, a, f->bad);
	}
	if (f->arg == ARG_BLOCKS) {
		struct sized *s = (struct sized *)((char *)p + f->at);

		s->v = n;
		s->blocks = blocks;
		return 0;
	}
	if (f->range && key_range(p, a, f->key, (int64_t)IOM_MIN(n, INT64_MAX)) < 0)
		return -EINVAL;
	*(uint64_t *)((char *)p->d + f->at) = n;
	return 0;
}

/* -W: a bare -W is 0 s, as DiskSpd reads it (atoi("")); else seconds. */
static int take_warmup(struct parse *p, const struct flag *f, const char *a, const char *v)
{
	if (*v)
		return take_value(p, f, a, v);
	note(p->d, "-W without seconds: no warm-up, as DiskSpd reads it (its default, when -W is "
		   "absent, is -W5)");
	p->d->warmup_s = 0;
	return 0;
}

static int take_stats_ms(struct parse *p, const struct flag *f, const char *a, const char *v)
{
	uint64_t n = 0;

	if (*v && (iom_uint_parse(v, UINT32_MAX, &n) < 0 || n == 0))
		return bad_value(p, a, f->bad);
	if (*v && n != 1000)
		note(p->d, "%s: iomatrix records IOPS in 1 s intervals, not %s ms; the report's "
			   "IOPS stddev is over 1 s intervals", a, v);
	return 0;
}

static int take_old_h(struct parse *p, const struct flag *f, const char *a, const char *v)
{
	(void)f, (void)a, (void)v;
	p->d->direct = true;
	p->d->write_through = true;
	note(p->d, "-h is DiskSpd's old spelling of -Sh (Windows): taken as -Sh, the OS cache "
		   "bypassed with O_DIRECT and writes through (O_DSYNC)");
	return 0;
}

static int take_results(struct parse *p, const struct flag *f, const char *a, const char *v)
{
	(void)f;
	if (strcmp(v, "xml") == 0 || strcmp(v, "text") == 0) {
		p->d->xml_results = v[0] == 'x';
		return 0;
	}
	return iom_err(p->err, p->errlen, EINVAL, "'%s': -R takes text or xml (DiskSpd's other "
		       "result formats are iomatrix report's: --format)", a);
}

/* -a: "-a" pins threads round-robin over every CPU this process may use (what DiskSpd does
 * by default), "-a0,2,3" over the CPUs listed. Processor groups (-ag) are Windows'. */
static int take_affinity(struct parse *p, const struct flag *f, const char *a, const char *v)
{
	struct iom_diskspd *d = p->d;
	char why[IOM_ERRLEN];
	unsigned *cpus, n;
	int ret;

	(void)f;
	free(d->cpus);
	d->cpus = NULL;
	if (*v == 'g')
		return iom_err(p->err, p->errlen, EINVAL, "'%s': processor groups (-ag) are "
			       "Windows'; give CPU numbers, such as -a0,2", a);
	if (*v == '\0') {
		cpu_set_t allowed;
		char buf[32];
		size_t len = 0;

		if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0)
			return iom_err(p->err, p->errlen, errno, "-a: cannot read the CPUs this "
				       "process may use: %s", strerror(errno));
		d->cpus = xstrdup("");
		for (unsigned c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &allowed)) {
				snprintf(buf, sizeof(buf), "%s%u", len ? "," : "", c);
				len += strlen(buf);
				d->cpus = xrealloc(d->cpus, len + 1);
				strcat(d->cpus, buf);
			}
		return 0;
	}
	ret = iom_cpulist_parse(v, &cpus, &n, why, sizeof(why));
	if (ret < 0)
		return iom_err(p->err, p->errlen, -ret, "'%s': -a takes CPU numbers such as -a0,2 "
			       "(%s)", a, why);
	free(cpus);
	d->cpus = xstrdup(v);
	return 0;
}

static int take_no_affinity(struct parse *p, const struct flag *f, const char *a, const char *v)
{
	(void)f, (void)a, (void)v;
	free(p->d->cpus);
	p->d->cpus = NULL;
	note(p->d, "-n (no affinity): iomatrix's default; DiskSpd itself pins threads round-robin "
		   "to the CPUs unless -n is given");
	return 0;
}

/* -r[align]: random I/O, on multiples of align. */
static int take_random(struct parse *p, const struct flag *f, const char *a, const char *v)
{
	if (*v) {
		int ret = take_value(p, f, a, v);

		if (ret < 0)
			return ret;
	}
	p->d->random = true;
	return 0;
}

/* -rs<pct>: a share of random I/Os, the rest sequential. */
static int take_random_pct(struct parse *p, const struct flag *f, const char *a, const char *v)
{
	uint64_t n;

	if (iom_uint_parse(v, 100, &n) < 0 || n == 0)
		return bad_value(p, a, f->bad);
	p->d->random = true;
	p->d->random_pct = (unsigned)n;
	return 0;
}

/* -s[stride], -si[stride]: sequential; -si, the threads share one stream. */
static int take_sequential(struct parse *p, const struct flag *f, const char *a, const char *v)
{
	if (*v) {
		int ret = take_value(p, f, a, v);

		if (ret < 0)
			return ret;
	}
	p->sequential = true;
	p->d->shared_seq |= f->name[1] == 'i';
	return 0;
}

/* The -S letters. */
static int take_cache(struct parse *p, const struct flag *f, const char *a, const char *v)
{
	bool u = false, b = false, w = false;

	(void)f;
	if (!*v)
		u = true; /* -S alone is -Su */
	for (; *v; v++) {
		switch (*v) {
		case 'u': u = true; break;
		case 'h': u = w = true; break;
		case 'w': w = true; break;
		case 'b': b = true; break;
		case 'r':
			return iom_err(p->err, p->errlen, EINVAL, "'%s': -Sr (remote caching) is "
				       "for Windows network filesystems; iomatrix does not take it",
				       a);
		case 'm':
			return iom_err(p->err, p->errlen, EINVAL, "'%s': -Sm (memory-mapped I/O) "
				       "is not supported by iomatrix", a);
		case 'y': case 'Y':
			return iom_err(p->err, p->errlen, EINVAL, "'%s': -S%c (BypassIO) is "
				       "Windows-only", a, *v);
		default:
			return iom_err(p->err, p->errlen, EINVAL, "'%s': unknown -S letter '%c' "
				       "(use -Sh, -Su, -Sb, -Sw or -S)", a, *v);
		}
	}
	if (u && b)
		return iom_err(p->err, p->errlen, EINVAL, "'%s': -Sb (cache on) and -Su/-Sh "
			       "(cache off) conflict", a);
	p->d->direct = u;
	p->d->write_through = p->d->write_through || w;
	return 0;
}

/* -w[pct]: DiskSpd's -w and -w0 are the same, all reads. */
static int take_writes(struct parse *p, const struct flag *f, const char *a, const char *v)
{
	uint64_t n = 0;

	if (*v && iom_uint_parse(v, 100, &n) < 0)
		return bad_value(p, a, f->bad);
	p->d->write_pct = (unsigned)n;
	return 0;
}

static int take_seed(struct parse *p, const struct flag *f, const char *a, const char *v)
{
	struct iom_diskspd *d = p->d;

	if (*v) {
		if (iom_uint_parse(v, INT64_MAX, &d->seed) < 0)
			return bad_value(p, a, f->bad);
	} else {
		d->seed = iom_wall_ns() % 1000000007u;
		note(d, "-z without a seed: seed %" PRIu64 " from the clock (written into the "
			"matrix, so the study can be rerun as it was)", d->seed);
	}
	d->seed_given = true;
	return 0;
}

/* -g<bytes per ms per thread>, or -g<I/Os per second per thread>i. */
static int take_rate(struct parse *p, const struct flag *f, const char *a, const char *v)
{
	size_t len = strlen(v);
	bool iops = len > 1 && v[len - 1] == 'i';
	char num[32];
	uint64_t n;

	if (len >= sizeof(num) || !len)
		return bad_value(p, a, f->bad);
	memcpy(num, v, len - iops);
	num[len - iops] = '\0';
	if (iom_uint_parse(num, UINT32_MAX, &n) < 0 || n == 0)
		return bad_value(p, a, f->bad);
	*(iops ? &p->d->rate_iops : &p->d->rate_bpms) = n;
	return 0;
}

/* -Z zeros; -Zr random; -Z<size> a random buffer of that size: random too (iomatrix's is a
 * block per slot, every 4 KiB stamped unique). */
static int take_data(struct parse *p, const struct flag *f, const char *a, const char *v)
{
	uint64_t zsize;
	bool zblocks;

	if (strcmp(v, "") == 0) {
		p->d->data = "zeros";
		return 0;
	}
	if (strcmp(v, "r") == 0) {
		p->d->data = "random";
		return 0;
	}
	if (strchr(v, ','))
		return iom_err(p->err, p->errlen, EINVAL, "DiskSpd option '%s' (write buffers "
			       "from a file) is not supported: iomatrix writes data = random, "
			       "zeros, compressible:N%% or dedupe:N%% (-Z zeros, -Zr random)", a);
	if (parse_size(v, &zsize, &zblocks) < 0 || zsize == 0)
		return bad_value(p, a, f->bad);
	p->d->data = "random";
	note(p->d, "%s: random data, as DiskSpd's random buffer, but not of that size: iomatrix "
		   "fills each I/O slot once and stamps every 4 KiB of each write with its offset "
		   "and a sequence number", a);
	return 0;
}

static int take_profile(struct parse *p, const struct flag *f, const char *a, const char *v)
{
	if (!*v)
		return bad_value(p, a, f->bad);
	p->xml = v;
	return 0;
}

#define D(field) offsetof(struct iom_diskspd, field)
#define P(field) offsetof(struct parse, field)
#define REFUSED(n, w, y) { .name = (n), .arg = ARG_NONE, .what = (w), .why = (y) }

/* In the order of --help. */
static const struct flag flags[] = {
	{ .name = "b", .arg = ARG_SIZE, .at = D(block_size), .min = 1, .key = "block_size",
	  .range = true,
	  .bad = "-b takes a block size such as -b4K, -b64K or -b1M", .usage = "-b<size>",
	  .help = "block size, K/M/G (powers of 1024)", .def = "64K" },
	{ .name = "d", .arg = ARG_NUMBER, .at = D(duration_s), .min = 1, .max = 720 * 3600,
	  .key = "duration", .bad = "-d takes the measured seconds, such as -d60",
	  .usage = "-d<seconds>", .help = "measured time", .def = "10" },
	{ .name = "W", .arg = ARG_NUMBER, .at = D(warmup_s), .max = 720 * 3600, .take = take_warmup,
	  .key = "warmup", .bad = "-W takes the warm-up seconds, such as -W5",
	  .usage = "-W<seconds>", .help = "warm-up (a bare -W is 0, as in DiskSpd)", .def = "5" },
	{ .name = "C", .arg = ARG_NUMBER, .at = D(cooldown_s), .max = 720 * 3600,
	  .key = "cooldown", .bad = "-C takes the cool-down seconds, such as -C5",
	  .usage = "-C<seconds>", .help = "cool-down", .def = "0" },
	{ .name = "o", .arg = ARG_NUMBER, .at = D(outstanding), .min = 1, .max = UINT32_MAX,
	  .key = "queue_depth", .range = true,
	  .bad = "-o takes the I/Os outstanding per thread, such as -o32",
	  .usage = "-o<count>", .help = "I/Os outstanding per thread", .def = "2" },
	{ .name = "t", .arg = ARG_NUMBER, .at = D(threads), .min = 1, .max = UINT32_MAX,
	  .key = "threads", .range = true, .bad = "-t takes the threads per target, such as -t4",
	  .usage = "-t<count>", .help = "threads on each target (x targets)", .def = "1" },
	{ .name = "r", .arg = ARG_BLOCKS, .at = P(r_align), .min = 1, .take = take_random,
	  .key = "pattern, align", .bad = "-r takes an optional alignment such as -r4K",
	  .usage = "-r[align]", .help = "random, on multiples of align", .def = "sequential" },
	{ .name = "rs", .arg = ARG_OWN, .take = take_random_pct, .key = "random_pct",
	  .bad = "-rs takes the percentage of random I/Os, 1 to 100, such as -rs50",
	  .usage = "-rs<pct>", .help = "pct % of the I/Os random, the rest sequential" },
	REFUSED("rd", "DiskSpd's random distributions", "write the study as a matrix with "
		"distribution = \"zoned:A/S:...\" (iomatrix diskspd --matrix gives one to start "
		"from)"),
	{ .name = "s", .arg = ARG_BLOCKS, .at = P(s_align), .min = 1, .take = take_sequential,
	  .key = "pattern", .bad = "-s takes an optional stride such as -s64K",
	  .usage = "-s[stride]", .help = "sequential (stride = block size)" },
	{ .name = "si", .arg = ARG_BLOCKS, .at = P(s_align), .min = 1, .take = take_sequential,
	  .key = "shared_sequential", .bad = "-si takes an optional stride such as -si64K",
	  .usage = "-si", .help = "the threads share one sequential stream" },
	{ .name = "T", .arg = ARG_BLOCKS, .at = P(stride), .key = "thread_stride",
	  .bad = "-T takes the stride between the threads' starting offsets, such as -T1G or -T8b",
	  .usage = "-T<offset>", .help = "sequential thread t starts at t x offset" },
	{ .name = "w", .arg = ARG_OWN, .take = take_writes, .key = "read_pct = 100 - pct",
	  .bad = "-w takes the percentage of writes, 0 to 100, such as -w30",
	  .usage = "-w<pct>", .help = "percentage of writes", .def = "0" },
	{ .name = "c", .arg = ARG_BLOCKS, .at = P(create), .min = 1, .key = "targets.size",
	  .bad = "-c takes the size of the file to create, such as -c1G or -c500M",
	  .usage = "-c<size>", .help = "create the file at this size" },
	{ .name = "f", .arg = ARG_BLOCKS, .at = P(max_size), .min = 1,
	  .key = "targets.size (the region)",
	  .bad = "-f takes the size of the target's region, such as -f1G (or -fr, -fs, -ft: "
		 "refused)",
	  .usage = "-f<size>", .help = "use the first <size> bytes only" },
	REFUSED("fr", "random-access hint", "a hint to the Windows cache manager, with no Linux "
		"equivalent"),
	REFUSED("fs", "sequential-access hint", "a hint to the Windows cache manager, with no "
		"Linux equivalent"),
	REFUSED("ft", "temporary-file hint", "a hint to the Windows cache manager, with no Linux "
		"equivalent"),
	{ .name = "S", .arg = ARG_OWN, .take = take_cache, .key = "direct, write_through",
	  .usage = "-S[uhwb]",
	  .help = "-Sh, -Su, -S: bypass the OS cache (O_DIRECT), -Sb: use it; -Sh, -Sw: write "
		  "through (O_DSYNC: FUA, or a flush after each write)",
	  .def = "the cache" },
	{ .name = "h", .arg = ARG_NONE, .take = take_old_h, .key = "direct, write_through",
	  .usage = "-h", .help = "old spelling of -Sh (Windows), taken as -Sh" },
	{ .name = "L", .arg = ARG_NONE, .usage = "-L",
	  .help = "latency statistics: always measured" },
	{ .name = "D", .arg = ARG_OWN, .take = take_stats_ms,
	  .bad = "-D takes milliseconds, such as -D1000", .usage = "-D[ms]",
	  .help = "IOPS statistics: always in 1 s intervals" },
	{ .name = "z", .arg = ARG_OWN, .take = take_seed, .key = "seed",
	  .bad = "-z takes a seed, such as -z42", .usage = "-z[seed]", .help = "random seed" },
	{ .name = "a", .arg = ARG_OWN, .take = take_affinity, .key = "cpus", .usage = "-a[cpus]",
	  .help = "pin threads round-robin: -a0,2 to CPUs 0 and 2, -a to all" },
	{ .name = "n", .arg = ARG_NONE, .take = take_no_affinity, .usage = "-n",
	  .help = "no affinity: iomatrix's default (DiskSpd's default is -a)" },
	{ .name = "g", .arg = ARG_OWN, .take = take_rate, .key = "rate_mb_s, rate_iops",
	  .bad = "-g takes bytes per millisecond per thread, such as -g1000, or I/Os per second, "
		 "-g500i",
	  .usage = "-g<rate>[i]",
	  .help = "bytes per ms per thread, or with i I/Os per second per thread (an open loop)" },
	{ .name = "i", .arg = ARG_NUMBER, .at = D(burst), .min = 1, .max = 1000000,
	  .key = "burst", .bad = "-i takes the I/Os per burst, such as -i8",
	  .usage = "-i<count>", .help = "I/Os per burst of a thread (with -j)" },
	{ .name = "j", .arg = ARG_NUMBER, .at = D(think_ms), .min = 1, .max = 3600000,
	  .key = "think_time", .bad = "-j takes the milliseconds between bursts, such as -j5",
	  .usage = "-j<ms>", .help = "milliseconds between bursts (with -i)" },
	{ .name = "Z", .arg = ARG_OWN, .take = take_data, .key = "data",
	  .bad = "-Z takes r, a buffer size, or nothing (zeros)", .usage = "-Z, -Zr",
	  .help = "writes of zeros, of random data (-Z<size>: random)", .def = "random" },
	{ .name = "R", .arg = ARG_OWN, .take = take_results, .usage = "-R<text|xml>",
	  .help = "the results as DiskSpd's text or its XML", .def = "text" },
	{ .name = "X", .arg = ARG_OWN, .take = take_profile,
	  .bad = "-X takes the XML profile, such as -Xprofile.xml", .usage = "-X<file>",
	  .help = "an XML profile (DiskSpd's <Profile>), alone: its settings and targets" },
	REFUSED("B", "target bounds", "iomatrix's region always starts at offset 0 (-f<size> "
		"sets its end)"),
	REFUSED("e", "event tracing (ETW)", "ETW is Windows'; iomatrix records a per-I/O trace "
		"of its own (traces/, 'iomatrix trace')"),
	REFUSED("F", "total threads", "iomatrix gives each target its threads (-t)"),
	REFUSED("I", "I/O priority", "iomatrix issues every I/O at the default priority"),
	REFUSED("l", "large pages", "iomatrix puts buffers of 2 MiB and more in transparent huge "
		"pages by itself"),
	REFUSED("N", "memory-mapped flush mode", "iomatrix does no memory-mapped I/O"),
	REFUSED("O", "outstanding I/Os per thread with -F", "iomatrix gives each target its "
		"threads (-t) and queue depth (-o)"),
	REFUSED("p", "parallel sequential I/O", "iomatrix's sequential threads each walk a slice "
		"of their own"),
	REFUSED("P", "progress dots", "iomatrix prints a progress line per run (--quiet: none)"),
	REFUSED("u", "IoRing", "iomatrix's I/O goes through Linux's io_uring already"),
	REFUSED("v", "verbose mode", "iomatrix's messages say what they do; the matrix (--matrix) "
		"shows every setting"),
	REFUSED("x", "completion routines", "a Windows I/O model; iomatrix reaps completions from "
		"io_uring"),
	REFUSED("y", "named-event synchronization", "Windows events; iomatrix runs its study on "
		"its own"),
};

#undef D
#undef P
#undef REFUSED

/* The row of argument a ("-b4K"): the longest name a + 1 starts with, or NULL. */
static const struct flag *flag_of(const char *a)
{
	const struct flag *best = NULL;

	for (size_t i = 0; i < IOM_ARRAY_SIZE(flags); i++) {
		size_t n = strlen(flags[i].name);

		if (strncmp(a + 1, flags[i].name, n) == 0 && (!best || n > strlen(best->name)))
			best = &flags[i];
	}
	return best;
}

/* Every letter taken, "-a -b -c -C …" (DiskSpd's order: by letter, lower case first). */
static void taken_letters(char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int c = 'a'; c <= 'z'; c++)
		for (int up = 0; up < 2; up++) {
			char l = (char)(up ? toupper(c) : c);

			for (size_t i = 0; i < IOM_ARRAY_SIZE(flags); i++)
				if (flags[i].name[0] == l && !flags[i].what) {
					o += (size_t)snprintf(buf + o, len - o, "%s-%c", o ? " " : "",
							      l);
					break;
				}
		}
}

/* A flag that has no row, or is refused, or a row that takes nothing with something glued on. */
static int refuse(struct parse *p, const struct flag *f, const char *a)
{
	char taken[128];

	taken_letters(taken, sizeof(taken));
	if (f && f->what)
		return iom_err(p->err, p->errlen, EINVAL, "DiskSpd option '%s' (%s) is not "
			       "supported by iomatrix diskspd: %s (it takes %s)", a, f->what, f->why,
			       taken);
	return iom_err(p->err, p->errlen, EINVAL, "unknown DiskSpd option '%s' (iomatrix diskspd "
		       "takes %s; see 'iomatrix diskspd --help')", a, taken);
}

/* One DiskSpd flag a (not a target, not a long option) through its row. */
static int take_flag(struct parse *p, const char *a)
{
	const struct flag *f = flag_of(a);
	const char *v;

	if (!f || f->what)
		return refuse(p, f, a);
	v = a + 1 + strlen(f->name);
	if (f->arg == ARG_NONE && *v)
		return refuse(p, NULL, a);
	if (f->take)
		return f->take(p, f, a, v);
	if (f->arg == ARG_NONE)
		return 0;
	return take_value(p, f, a, v);
}

static void append_arg(char **s, const char *arg)
{
	char *n = *s ? xasprintf("%s %s", *s, arg) : xstrdup(arg);

	free(*s);
	*s = n;
}

/* Whether arg looks like a Windows target DiskSpd takes ("#1", "C:", "C:\io.dat"). */
static bool windows_target(const char *arg)
{
	return arg[0] == '#' || (isalpha((unsigned char)arg[0]) && arg[1] == ':');
}

/* Whether a -X flag comes after argument i (it then refuses the flags before it too). */
static bool xml_seen(char **argv, int i, int argc)
{
	for (int k = i + 1; k < argc; k++)
		if (strncmp(argv[k], "-X", 2) == 0)
			return true;
	return false;
}

/* A target: a Linux path, given once. */
static int take_target(struct parse *p, const char *a)
{
	struct iom_diskspd *d = p->d;

	if (windows_target(a))
		return iom_err(p->err, p->errlen, EINVAL, "'%s' is a Windows target; give a Linux "
			       "path (a file, or a block device such as /dev/sdb)", a);
	for (size_t k = 0; k < d->ntargets; k++)
		if (strcmp(d->targets[k], a) == 0)
			return iom_err(p->err, p->errlen, EINVAL, "target '%s' is given twice", a);
	if (!d->target)
		d->target = a;
	d->targets = xrealloc(d->targets, (d->ntargets + 1) * sizeof(*d->targets));
	d->targets[d->ntargets++] = a;
	append_arg(&d->command, a);
	return 0;
}

/* iomatrix's own options, long only (DiskSpd owns the short letters): a table of their own. */
static const struct {
	const char *name;
	size_t at; /* the bool of struct iom_diskspd it sets */
} own_options[] = {
	{ "matrix", offsetof(struct iom_diskspd, matrix_only) },
	{ "quiet", offsetof(struct iom_diskspd, quiet) },
	{ "no-trace", offsetof(struct iom_diskspd, no_trace) },
	{ "overwrite", offsetof(struct iom_diskspd, overwrite) },
	{ "destructive", offsetof(struct iom_diskspd, destructive) },
	{ "print-fio", offsetof(struct iom_diskspd, print_fio) },
};

/* --output DIR (or --output=DIR) and the switches of own_options; *i moves past a value. */
static int take_long(struct parse *p, char **argv, int argc, int *i)
{
	const char *a = argv[*i], *name = a + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);

	if (len == 6 && strncmp(name, "output", 6) == 0) {
		p->d->output = eq ? eq + 1 : *i + 1 < argc ? argv[++*i] : NULL;
		if (!p->d->output || !*p->d->output)
			return iom_err(p->err, p->errlen, EINVAL, "option '--output' needs a value "
				       "(DIR)");
		return 0;
	}
	for (size_t k = 0; k < IOM_ARRAY_SIZE(own_options); k++) {
		if (strlen(own_options[k].name) != len || strncmp(name, own_options[k].name, len))
			continue;
		if (eq)
			return iom_err(p->err, p->errlen, EINVAL, "option '%.*s' takes no value",
				       (int)(eq - a), a);
		*(bool *)((char *)p->d + own_options[k].at) = true;
		return 0;
	}
	return iom_err(p->err, p->errlen, EINVAL, "unknown option '%s' for 'diskspd' (iomatrix's "
		       "own: --output DIR, --matrix, --print-fio, --quiet, --no-trace, --overwrite, "
		       "--destructive, --help)", a);
}

/* What the flags mean together, once all are read: sizes in blocks of -b, and the pairs that
 * conflict or that DiskSpd reads in its own way. */
static int finish(struct parse *p)
{
	struct iom_diskspd *d = p->d;
	struct sized *sz[] = { &p->create, &p->max_size, &p->stride, &p->r_align, &p->s_align };
	uint64_t create, stride;

	if (!d->target)
		return iom_err(p->err, p->errlen, EINVAL, "'diskspd' needs a target: a file (with "
			       "-c<size> to create it) or a block device");
	for (size_t k = 0; k < IOM_ARRAY_SIZE(sz); k++)
		if (sz[k]->blocks)
			sz[k]->v *= d->block_size;
	create = p->create.v;
	stride = p->stride.v;
	d->max_size = p->max_size.v;
	if (d->max_size && create && d->max_size > create)
		return iom_err(p->err, p->errlen, EINVAL, "-f: a region of %" PRIu64 " bytes is "
			       "larger than the file -c creates (%" PRIu64 " bytes)", d->max_size,
			       create);
	if (d->random && p->r_align.v && p->r_align.v != d->block_size)
		d->align = p->r_align.v; /* -r<align>: the workload's align */
	if (stride && d->threads > 1 && !d->random) {
		d->thread_stride = stride;
		if (stride % d->block_size)
			note(d, "-T: each thread's starting offset is rounded down to the block "
				"size");
	} else if (stride) {
		note(d, "-T without several sequential threads changes nothing (it sets where "
			"sequential threads start)");
	}
	if (d->shared_seq && d->random)
		return iom_err(p->err, p->errlen, EINVAL, "-si and -r: -si shares one sequential "
			       "stream between the threads, and -r makes the I/O random; give one");
	if (d->shared_seq && stride)
		note(d, "-si and -T: the threads share one stream, so -T does not apply");
	if (!d->random && p->sequential && p->s_align.v && p->s_align.v != d->block_size) {
		char a1[32], a2[32];

		iom_size_format(p->s_align.v, a1, sizeof(a1));
		iom_size_format(d->block_size, a2, sizeof(a2));
		return iom_err(p->err, p->errlen, EINVAL, "-s%s: a sequential stride other than "
			       "the block size (%s) is not supported", a1, a2);
	}
	if (d->random && p->sequential)
		note(d, "-r and -s given: random, as DiskSpd does (-r overrides -s)");
	if (d->think_ms && !d->burst)
		return iom_err(p->err, p->errlen, EINVAL, "-j%" PRIu64 " needs -i (the I/Os of "
			       "each burst), as DiskSpd's -j does", d->think_ms);
	if (d->burst && !d->think_ms)
		note(d, "-i%" PRIu64 " without -j: no pause between bursts, as DiskSpd does",
		     d->burst);
	if ((d->rate_bpms || d->rate_iops) && d->think_ms)
		return iom_err(p->err, p->errlen, EINVAL, "-g with -i/-j: iomatrix paces a run by "
			       "a rate or pauses it between bursts, not both");
	if (d->rate_bpms || d->rate_iops)
		note(d, "-g: an open loop (docs/load.md): each I/O is due on a schedule and its "
			"latency is counted from then (response time), where DiskSpd sleeps and "
			"counts from submission; the service time is the run's latency as usual");
	if (!d->direct)
		note(d, "no -Sh/-Su/-h: DiskSpd's default goes through the OS cache, and so does "
			"this study (direct = false); add -Sh to measure the device");
	d->create_size = create;
	return 0;
}

int iom_diskspd_parse(int argc, char **argv, struct iom_diskspd *d, char *err, size_t errlen)
{
	struct parse p = { .d = d, .err = err, .errlen = errlen };
	bool only_args = false;
	int ret = 0;

	iom_diskspd_init(d);
	for (int i = 0; i < argc && ret == 0; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--help") == 0 || strcmp(a, "-?") == 0) {
			d->help = true;
			return 0;
		}
		if (only_args || a[0] != '-' || a[1] == '\0') {
			ret = take_target(&p, a);
		} else if (strcmp(a, "--") == 0) {
			only_args = true;
		} else if (a[1] == '-') {
			ret = take_long(&p, argv, argc, &i);
		} else {
			append_arg(&d->command, a);
			if (a[1] != 'X' && (p.xml || xml_seen(argv, i, argc)))
				ret = iom_err(err, errlen, EINVAL, "'%s': -X takes a profile alone, "
					      "as in DiskSpd (the profile holds every setting)", a);
			else
				ret = take_flag(&p, a);
		}
	}
	if (ret == 0 && p.xml) {
		if (d->ntargets)
			ret = iom_err(err, errlen, EINVAL, "'%s': -X takes no target on the command "
				      "line (the profile's <Target> elements name them)",
				      d->targets[0]);
		else
			d->profile = p.xml; /* read by the command (iom_import_diskspd_profile) */
		if (ret == 0)
			return 0;
	}
	if (ret == 0)
		ret = finish(&p);
	if (ret < 0)
		iom_diskspd_release(d);
	return ret < 0 ? ret : 0;
}

/* text at column indent (the first line already there, at column col), wrapped at 80. */
static void wrapped(FILE *out, const char *text, int col, int indent)
{
	const char *w = text;

	while (*w) {
		int n = (int)strcspn(w, " ");

		if (col > indent && col + 1 + n > 80) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', out);
			col++;
		}
		fprintf(out, "%.*s", n, w);
		col += n;
		w += n;
		while (*w == ' ')
			w++;
	}
	fputc('\n', out);
}

void iom_diskspd_usage(FILE *out)
{
	char line[512];
	size_t n = 0;

	fputs("usage: iomatrix diskspd [DISKSPD OPTIONS] TARGET [--output DIR] [--matrix] [--quiet]\n"
	      "                        [--no-trace] [--overwrite] [--destructive] [--print-fio]\n"
	      "       iomatrix diskspd -Xprofile.xml [--output DIR] [--matrix] ...\n"
	      "\n"
	      "a one-cell study from DiskSpd's flags, run into a results directory and printed as\n"
	      "DiskSpd prints its results; for example\n"
	      "  iomatrix diskspd -b16K -d60 -Sh -L -o2 -t4 -r -w50 -c10G /mnt/lsi/io.dat\n"
	      "\n"
	      "DiskSpd options (the value glued on, as DiskSpd takes them): what each does, the\n"
	      "matrix key it sets, [DiskSpd's default]\n", out);
	for (size_t i = 0; i < IOM_ARRAY_SIZE(flags); i++) {
		const struct flag *f = &flags[i];

		if (!f->usage)
			continue;
		snprintf(line, sizeof(line), "%s%s%s%s%s%s", f->help, f->key ? ": " : "",
			 f->key ? f->key : "", f->def ? " [" : "", f->def ? f->def : "",
			 f->def ? "]" : "");
		fprintf(out, "  %-12s ", f->usage);
		wrapped(out, line, 15, 15);
	}
	fputs("\n"
	      "iomatrix options:\n"
	      "  --output DIR   the results directory (default results/diskspd-<UTC time>)\n"
	      "  --matrix       print the study's matrix file and exit (save it, edit it, run it)\n"
	      "  --print-fio    print the fio job equivalent and exit ('iomatrix import' of it\n"
	      "                 gives this study's plan)\n"
	      "  --quiet        no progress lines (they go to stderr)\n"
	      "  --no-trace     do not record the per-I/O trace\n"
	      "  --overwrite    may take over an existing file iomatrix did not create\n"
	      "  --destructive  may write to a block device, destroying its contents\n"
	      "\n", out);
	n = (size_t)snprintf(line, sizeof(line), "refused, each with its reason:");
	for (size_t i = 0; i < IOM_ARRAY_SIZE(flags); i++)
		if (flags[i].what && n < sizeof(line))
			n += (size_t)snprintf(line + n, sizeof(line) - n, " -%s", flags[i].name);
	if (n < sizeof(line))
		snprintf(line + n, sizeof(line) - n, "; any other flag is unknown. Several "
			 "targets (files or devices, not both) are driven at once as in DiskSpd: "
			 "one target with paths = [ ... ], -t threads on each (to compare targets "
			 "one after another, use a matrix: 'iomatrix new PATH PATH')");
	wrapped(out, line, 0, 0);
}

/* s for roff: a '-' is "\-" (a minus, so that it can be searched for and copied). */
static void roff_text(FILE *out, const char *s)
{
	for (; *s; s++)
		if (*s == '-')
			fputs("\\-", out);
		else if (*s == '\\')
			fputs("\\e", out);
		else
			fputc(*s, out);
}

void iom_diskspd_print_man(FILE *out)
{
	fputs(".RS\n", out);
	for (size_t i = 0; i < IOM_ARRAY_SIZE(flags); i++) {
		const struct flag *f = &flags[i];

		if (!f->usage)
			continue;
		fputs(".TP\n.B ", out);
		roff_text(out, f->usage);
		fputs("\n", out);
		roff_text(out, f->help);
		if (f->key) {
			fputs(": \\fB", out);
			roff_text(out, f->key);
			fputs("\\fR", out);
		}
		if (f->def) {
			fputs(" [", out);
			roff_text(out, f->def);
			fputs("]", out);
		}
		fputs("\n", out);
	}
	fputs(".RE\n.IP\nRefused, each with its reason:", out);
	for (size_t i = 0, n = 0; i < IOM_ARRAY_SIZE(flags); i++) {
		if (!flags[i].what)
			continue;
		fprintf(out, "%s\n.B \\-%s\n(", n++ ? "," : "", flags[i].name);
		roff_text(out, flags[i].what);
		fputs(")", out);
	}
	fputs(".\nAny other flag is unknown, and refused too.\n", out);
}
