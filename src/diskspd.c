/* SPDX-License-Identifier: MIT */
/*
 * diskspd — DiskSpd's flags in, a one-cell matrix out, run like any other study.
 *
 * DiskSpd's syntax: each flag is one argument, its value glued on ("-b16K", "-o2", "-Sh"); sizes
 * are whole numbers with an optional K, M, G, T (powers of 1024, any case) or b (blocks of -b).
 * Parsing keeps DiskSpd's meanings, including its defaults (64K blocks, 10 s, 5 s warm-up, two
 * I/Os outstanding, one thread, sequential reads, the OS cache in use) and its quirks (a bare -W
 * is atoi("") = 0 s of warm-up, a bare -w is -w0). Where iomatrix cannot do what a flag asks, the
 * flag is refused unless doing it iomatrix's way keeps the measurement comparable — then it is
 * accepted and a note says what happens instead (-h, -Z<size>, -D, -z).
 *
 * The matrix is text built here and read back by matrix.c, so `--matrix` prints exactly what
 * runs, and every range is checked by the one key table.
 */
#include "diskspd.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "import.h"
#include "keys.h"
#include "matrix.h"
#include "plan.h"
#include "preset.h"
#include "report.h"
#include "units.h"
#include "sweep.h"
#include "util.h"

/* DiskSpd flags iomatrix knows but does not take, with what they do and why not (for the
 * message): every flag DiskSpd documents is taken, taken with a note, or refused here by name;
 * none is ignored. */
static const struct {
	char flag;
	const char *what, *why;
} unsupported[] = {
	{ 'B', "target bounds", "iomatrix's region always starts at offset 0 (-f<size> sets its "
				"end)" },
	{ 'e', "event tracing (ETW)", "ETW is Windows'; iomatrix records a per-I/O trace of its "
				      "own (traces/, 'iomatrix trace')" },
	{ 'F', "total threads", "iomatrix gives each target its threads (-t)" },
	{ 'I', "I/O priority", "iomatrix issues every I/O at the default priority" },
	{ 'l', "large pages", "iomatrix puts buffers of 2 MiB and more in transparent huge pages "
			      "by itself" },
	{ 'N', "memory-mapped flush mode", "iomatrix does no memory-mapped I/O" },
	{ 'O', "outstanding I/Os per thread with -F", "iomatrix gives each target its threads "
						      "(-t) and queue depth (-o)" },
	{ 'p', "parallel sequential I/O", "iomatrix's sequential threads each walk a slice of "
					  "their own" },
	{ 'P', "progress dots", "iomatrix prints a progress line per run (--quiet: none)" },
	{ 'u', "IoRing", "iomatrix's I/O goes through Linux's io_uring already" },
	{ 'v', "verbose mode", "iomatrix's messages say what they do; the matrix (--matrix) shows "
			       "every setting" },
	{ 'x', "completion routines", "a Windows I/O model; iomatrix reaps completions from "
				      "io_uring" },
	{ 'y', "named-event synchronization", "Windows events; iomatrix runs its study on its "
					      "own" },
};

#define SUPPORTED "-a -b -c -C -d -D -f -g -h -i -j -L -n -o -r -R -s -S -t -T -w -W -X -z -Z"

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
static void fmt_size(uint64_t v, char *buf, size_t len)
{
	static const char units[] = "TGMK";

	for (int i = 0; i < 4; i++) {
		uint64_t u = 1ull << (10 * (4 - i));

		if (v >= u && v % u == 0) {
			snprintf(buf, len, "%" PRIu64 "%c", v / u, units[i]);
			return;
		}
	}
	snprintf(buf, len, "%" PRIu64, v);
}

#define note iom_diskspd_note

void iom_diskspd_note(struct iom_diskspd *d, const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	d->notes = xrealloc(d->notes, (d->nnotes + 1) * sizeof(*d->notes));
	d->notes[d->nnotes++] = xstrdup(buf);
}

void iom_diskspd_init(struct iom_diskspd *d)
{
	memset(d, 0, sizeof(*d));
	d->block_size = IOM_DISKSPD_BLOCK;
	d->duration_s = IOM_DISKSPD_DURATION;
	d->warmup_s = IOM_DISKSPD_WARMUP;
	d->outstanding = IOM_DISKSPD_OUTSTANDING;
	d->threads = 1;
}

void iom_diskspd_release(struct iom_diskspd *d)
{
	for (size_t i = 0; i < d->nnotes; i++)
		free(d->notes[i]);
	free(d->notes);
	for (size_t i = 0; i < d->nown; i++)
		free(d->own[i]);
	free(d->own);
	free(d->command);
	free(d->cpus);
	free(d->targets);
	memset(d, 0, sizeof(*d));
}

/* The -S letters: 0 or -EINVAL with err. */
static int parse_cache(struct iom_diskspd *d, const char *arg, char *err, size_t errlen)
{
	const char *l = arg + 2;
	bool u = false, b = false, w = false;

	if (!*l)
		u = true; /* -S alone is -Su */
	for (; *l; l++) {
		switch (*l) {
		case 'u': u = true; break;
		case 'h': u = w = true; break;
		case 'w': w = true; break;
		case 'b': b = true; break;
		case 'r':
			return iom_err(err, errlen, EINVAL, "'%s': -Sr (remote caching) is for "
				       "Windows network filesystems; iomatrix does not take it", arg);
		case 'm':
			return iom_err(err, errlen, EINVAL, "'%s': -Sm (memory-mapped I/O) is not "
				       "supported by iomatrix", arg);
		case 'y': case 'Y':
			return iom_err(err, errlen, EINVAL, "'%s': -S%c (BypassIO) is Windows-only",
				       arg, *l);
		default:
			return iom_err(err, errlen, EINVAL, "'%s': unknown -S letter '%c' (use -Sh, "
				       "-Su, -Sb, -Sw or -S)", arg, *l);
		}
	}
	if (u && b)
		return iom_err(err, errlen, EINVAL, "'%s': -Sb (cache on) and -Su/-Sh (cache off) "
			       "conflict", arg);
	d->direct = u;
	d->write_through = d->write_through || w;
	return 0;
}

static int bad_value(char *err, size_t errlen, const char *arg, const char *what)
{
	return iom_err(err, errlen, EINVAL, "'%s': %s", arg, what);
}

/* Checks a value against the range of the matrix key that will hold it. */
static int key_range(const char *arg, const char *key, int64_t v, char *err, size_t errlen)
{
	const struct iom_key *k = iom_key_find(IOM_SEC_WORKLOAD, key);
	char e[IOM_ERRLEN];

	if (k && iom_key_check(k, v, e, sizeof(e)) < 0)
		return iom_err(err, errlen, EINVAL, "'%s': %s", arg, e);
	return 0;
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

/* -a: "-a" pins threads round-robin over every CPU this process may use (what DiskSpd does
 * by default), "-a0,2,3" over the CPUs listed. Processor groups (-ag) are Windows'. */
static int parse_affinity(struct iom_diskspd *d, const char *a, char *err, size_t errlen)
{
	const char *v = a + 2;
	char why[IOM_ERRLEN];
	unsigned *cpus, n;
	int ret;

	free(d->cpus);
	d->cpus = NULL;
	if (*v == 'g')
		return iom_err(err, errlen, EINVAL, "'%s': processor groups (-ag) are Windows'; "
			       "give CPU numbers, such as -a0,2", a);
	if (*v == '\0') {
		cpu_set_t allowed;
		char buf[32];
		size_t len = 0;

		if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0)
			return iom_err(err, errlen, errno, "-a: cannot read the CPUs this process "
				       "may use: %s", strerror(errno));
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
		return iom_err(err, errlen, -ret, "'%s': -a takes CPU numbers such as -a0,2 (%s)", a,
			       why);
	free(cpus);
	d->cpus = xstrdup(v);
	return 0;
}

/* Whether a -X flag comes after argument i (it then refuses the flags before it too). */
static bool xml_seen(char **argv, int i, int argc)
{
	for (int k = i + 1; k < argc; k++)
		if (strncmp(argv[k], "-X", 2) == 0)
			return true;
	return false;
}

/* -X: the profile's settings into d, iomatrix's own options kept. */
static int read_profile(struct iom_diskspd *d, const char *xml, char *err, size_t errlen)
{
	struct iom_diskspd x;
	struct iom_import im = { 0 };
	char *buf;
	size_t len;
	int ret;

	if (d->ntargets) {
		ret = iom_err(err, errlen, EINVAL, "'%s': -X takes no target on the command line "
			      "(the profile's <Target> elements name them)", d->targets[0]);
		iom_diskspd_release(d);
		return ret;
	}
	if ((ret = iom_import_read(xml, &buf, &len, err, errlen)) < 0) {
		iom_diskspd_release(d);
		return ret;
	}
	ret = iom_import_diskspd_profile(xml, buf, len, false, &x, &im, err, errlen);
	free(buf);
	if (ret < 0 && im.nproblems) {
		char first[IOM_ERRLEN];

		snprintf(first, sizeof(first), "%s", im.problems[0]);
		iom_err(err, errlen, EINVAL, "%s%s", first, im.nproblems > 1 ? " (and more: "
			"'iomatrix import' lists them all)" : "");
	}
	iom_import_release(&im);
	if (ret < 0) {
		iom_diskspd_release(d);
		return ret;
	}
	x.output = d->output;
	x.matrix_only = d->matrix_only;
	x.print_fio = d->print_fio;
	x.quiet = d->quiet;
	x.no_trace = d->no_trace;
	x.overwrite = d->overwrite;
	x.destructive = d->destructive;
	iom_diskspd_release(d);
	*d = x;
	return 0;
}

int iom_diskspd_parse(int argc, char **argv, struct iom_diskspd *d, char *err, size_t errlen)
{
	uint64_t r_align = 0, s_align = 0, create = 0, stride = 0, max_size = 0;
	const char *xml = NULL;
	bool r_blocks = false, s_blocks = false, c_blocks = false, f_blocks = false;
	bool t_blocks = false, sequential = false;
	bool only_args = false;
	int ret = 0;

	iom_diskspd_init(d);

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = a + 2;
		bool blocks;
		uint64_t n;

		if (strcmp(a, "--help") == 0 || strcmp(a, "-?") == 0) {
			d->help = true;
			return 0;
		}
		if (only_args || a[0] != '-' || a[1] == '\0') {
			if (windows_target(a)) {
				ret = iom_err(err, errlen, EINVAL, "'%s' is a Windows target; give a "
					      "Linux path (a file, or a block device such as /dev/sdb)",
					      a);
				goto fail;
			}
			for (size_t k = 0; k < d->ntargets; k++)
				if (strcmp(d->targets[k], a) == 0) {
					ret = iom_err(err, errlen, EINVAL, "target '%s' is given twice",
						      a);
					goto fail;
				}
			if (!d->target)
				d->target = a;
			d->targets = xrealloc(d->targets, (d->ntargets + 1) * sizeof(*d->targets));
			d->targets[d->ntargets++] = a;
			append_arg(&d->command, a);
			continue;
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);

			if (len == 0 && !eq) {
				only_args = true;
				continue;
			}
			if (len == 6 && strncmp(name, "output", 6) == 0) {
				if (eq) {
					d->output = eq + 1;
				} else if (i + 1 < argc) {
					d->output = argv[++i];
				} else {
					ret = iom_err(err, errlen, EINVAL, "option '--output' needs a "
						      "value (DIR)");
					goto fail;
				}
				if (!*d->output) {
					ret = iom_err(err, errlen, EINVAL, "option '--output' needs a "
						      "value (DIR)");
					goto fail;
				}
				continue;
			}
			if (eq && (strncmp(name, "matrix=", 7) == 0 || strncmp(name, "quiet=", 6) == 0 ||
				   strncmp(name, "no-trace=", 9) == 0 ||
				   strncmp(name, "overwrite=", 10) == 0 ||
				   strncmp(name, "destructive=", 12) == 0 ||
				   strncmp(name, "print-fio=", 10) == 0)) {
				ret = iom_err(err, errlen, EINVAL, "option '%.*s' takes no value",
					      (int)(eq - a), a);
				goto fail;
			}
			if (!eq && strcmp(name, "matrix") == 0)
				d->matrix_only = true;
			else if (!eq && strcmp(name, "quiet") == 0)
				d->quiet = true;
			else if (!eq && strcmp(name, "no-trace") == 0)
				d->no_trace = true;
			else if (!eq && strcmp(name, "overwrite") == 0)
				d->overwrite = true;
			else if (!eq && strcmp(name, "destructive") == 0)
				d->destructive = true;
			else if (!eq && strcmp(name, "print-fio") == 0)
				d->print_fio = true;
			else {
				ret = iom_err(err, errlen, EINVAL, "unknown option '%s' for 'diskspd' "
					      "(iomatrix's own: --output DIR, --matrix, --print-fio, "
					      "--quiet, --no-trace, --overwrite, --destructive, --help)", a);
				goto fail;
			}
			continue;
		}

		append_arg(&d->command, a);
		if (a[1] == 'X') {
			if (!*v) {
				ret = bad_value(err, errlen, a, "-X takes the XML profile, such as "
						"-Xprofile.xml");
				goto fail;
			}
			xml = v;
			continue;
		}
		if (xml || xml_seen(argv, i, argc)) {
			ret = iom_err(err, errlen, EINVAL, "'%s': -X takes a profile alone, as in "
				      "DiskSpd (the profile holds every setting)", a);
			goto fail;
		}
		switch (a[1]) {
		case 'b':
			if ((ret = parse_size(v, &n, &blocks)) < 0 || blocks || n == 0) {
				ret = bad_value(err, errlen, a, "-b takes a block size such as -b4K, "
						"-b64K or -b1M");
				goto fail;
			}
			if ((ret = key_range(a, "block_size", (int64_t)IOM_MIN(n, INT64_MAX), err,
					     errlen)) < 0)
				goto fail;
			d->block_size = n;
			break;
		case 'c':
			if ((ret = parse_size(v, &create, &c_blocks)) < 0 || create == 0) {
				ret = bad_value(err, errlen, a, "-c takes the size of the file to "
						"create, such as -c1G or -c500M");
				goto fail;
			}
			break;
		case 'C':
		case 'd':
		case 'W': {
			uint64_t *dst = a[1] == 'C' ? &d->cooldown_s
					: a[1] == 'd' ? &d->duration_s : &d->warmup_s;

			if (!*v && a[1] == 'W') {
				/* DiskSpd reads the number with atoi(): a bare -W is 0 s */
				note(d, "-W without seconds: no warm-up, as DiskSpd reads it (its "
					"default, when -W is absent, is -W5)");
				d->warmup_s = 0;
				break;
			}
			if ((ret = iom_uint_parse(v, 720 * 3600, &n)) < 0 || (a[1] == 'd' && n == 0)) {
				ret = bad_value(err, errlen, a, a[1] == 'd'
						? "-d takes the measured seconds, such as -d60"
						: a[1] == 'W' ? "-W takes the warm-up seconds, such as -W5"
							       : "-C takes the cool-down seconds, "
								 "such as -C5");
				goto fail;
			}
			*dst = n;
			break;
		}
		case 'D':
			if (*v && (iom_uint_parse(v, UINT32_MAX, &n) < 0 || n == 0)) {
				ret = bad_value(err, errlen, a, "-D takes milliseconds, such as -D1000");
				goto fail;
			}
			if (*v && n != 1000)
				note(d, "%s: iomatrix records IOPS in 1 s intervals, not %s ms; the "
					"report's IOPS stddev is over 1 s intervals", a, v);
			break;
		case 'f':
			if (*v == 'r' || *v == 's' || *v == 't') {
				ret = iom_err(err, errlen, EINVAL, "DiskSpd option '%s' (%s) is not "
					      "supported by iomatrix diskspd: a hint to the Windows "
					      "cache manager, with no Linux equivalent", a,
					      *v == 'r' ? "random-access hint"
					      : *v == 's' ? "sequential-access hint"
							  : "temporary-file hint");
				goto fail;
			}
			if ((ret = parse_size(v, &max_size, &f_blocks)) < 0 || max_size == 0) {
				ret = bad_value(err, errlen, a, "-f takes the size of the target's "
						"region, such as -f1G (or -fr, -fs, -ft: refused)");
				goto fail;
			}
			break;
		case 'h':
			if (*v)
				goto unknown;
			d->direct = true;
			d->write_through = true;
			note(d, "-h is DiskSpd's old spelling of -Sh (Windows): taken as -Sh, the "
				"OS cache bypassed with O_DIRECT and writes through (O_DSYNC)");
			break;
		case 'L':
			if (*v)
				goto unknown;
			break; /* iomatrix always measures latency */
		case 'R':
			/* the results' form: DiskSpd's text (-Rtext, the default) or XML */
			if (strcmp(v, "xml") == 0 || strcmp(v, "text") == 0) {
				d->xml_results = v[0] == 'x';
				break;
			}
			ret = iom_err(err, errlen, EINVAL, "'%s': -R takes text or xml (DiskSpd's "
				      "other result formats are iomatrix report's: --format)", a);
			goto fail;
		case 'a':
			if ((ret = parse_affinity(d, a, err, errlen)) < 0)
				goto fail;
			break;
		case 'n':
			if (*v)
				goto unknown;
			free(d->cpus);
			d->cpus = NULL;
			note(d, "-n (no affinity): iomatrix's default; DiskSpd itself pins threads "
				"round-robin to the CPUs unless -n is given");
			break;
		case 'o':
			if ((ret = iom_uint_parse(v, UINT32_MAX, &n)) < 0 || n == 0) {
				ret = bad_value(err, errlen, a, "-o takes the I/Os outstanding per "
						"thread, such as -o32");
				goto fail;
			}
			if ((ret = key_range(a, "queue_depth", (int64_t)n, err, errlen)) < 0)
				goto fail;
			d->outstanding = n;
			break;
		case 'r':
			if (*v == 's') { /* -rs<pct>: a share of random I/Os, the rest sequential */
				if (iom_uint_parse(v + 1, 100, &n) < 0 || n == 0) {
					ret = bad_value(err, errlen, a, "-rs takes the percentage of "
							"random I/Os, 1 to 100, such as -rs50");
					goto fail;
				}
				d->random = true;
				d->random_pct = (unsigned)n;
				break;
			}
			if (*v == 'd') {
				ret = iom_err(err, errlen, EINVAL, "'%s': -rd (DiskSpd's random "
					      "distributions) is not taken; write the study as a matrix "
					      "with distribution = \"zoned:A/S:...\" (iomatrix diskspd "
					      "--matrix gives one to start from)", a);
				goto fail;
			}
			if (*v && ((ret = parse_size(v, &r_align, &r_blocks)) < 0 || r_align == 0)) {
				ret = bad_value(err, errlen, a, "-r takes an optional alignment such "
						"as -r4K");
				goto fail;
			}
			d->random = true;
			break;
		case 's':
			if (*v == 'i') { /* -si[stride]: the threads share one sequential stream */
				if (v[1] && ((ret = parse_size(v + 1, &s_align, &s_blocks)) < 0 ||
					     s_align == 0)) {
					ret = bad_value(err, errlen, a, "-si takes an optional stride "
							"such as -si64K");
					goto fail;
				}
				d->shared_seq = true;
				sequential = true;
				break;
			}
			if (*v && ((ret = parse_size(v, &s_align, &s_blocks)) < 0 || s_align == 0)) {
				ret = bad_value(err, errlen, a, "-s takes an optional stride such as "
						"-s64K");
				goto fail;
			}
			sequential = true;
			break;
		case 'T':
			if ((ret = parse_size(v, &stride, &t_blocks)) < 0) {
				ret = bad_value(err, errlen, a, "-T takes the stride between the "
						"threads' starting offsets, such as -T1G or -T8b");
				goto fail;
			}
			break;
		case 'S':
			if ((ret = parse_cache(d, a, err, errlen)) < 0)
				goto fail;
			break;
		case 't':
			if ((ret = iom_uint_parse(v, UINT32_MAX, &n)) < 0 || n == 0) {
				ret = bad_value(err, errlen, a, "-t takes the threads per target, such "
						"as -t4");
				goto fail;
			}
			if ((ret = key_range(a, "threads", (int64_t)n, err, errlen)) < 0)
				goto fail;
			d->threads = n;
			break;
		case 'w':
			if (!*v) {
				d->write_pct = 0; /* DiskSpd: -w and -w0 are the same, all reads */
				break;
			}
			if ((ret = iom_uint_parse(v, 100, &n)) < 0) {
				ret = bad_value(err, errlen, a, "-w takes the percentage of writes, 0 "
						"to 100, such as -w30");
				goto fail;
			}
			d->write_pct = (unsigned)n;
			break;
		case 'z':
			if (*v) {
				if ((ret = iom_uint_parse(v, INT64_MAX, &d->seed)) < 0) {
					ret = bad_value(err, errlen, a, "-z takes a seed, such as -z42");
					goto fail;
				}
			} else {
				d->seed = iom_wall_ns() % 1000000007u;
				note(d, "-z without a seed: seed %" PRIu64 " from the clock (written "
					"into the matrix, so the study can be rerun as it was)", d->seed);
			}
			d->seed_given = true;
			break;
		case 'g': {
			/* -g<bytes per ms per thread>, or -g<I/Os per second per thread>i */
			size_t len = strlen(v);
			bool iops = len > 1 && v[len - 1] == 'i';
			char num[32];

			if (len >= sizeof(num) || !len) {
				ret = bad_value(err, errlen, a, "-g takes bytes per millisecond per "
						"thread, such as -g1000, or I/Os per second, -g500i");
				goto fail;
			}
			memcpy(num, v, len - iops);
			num[len - iops] = '\0';
			if ((ret = iom_uint_parse(num, UINT32_MAX, &n)) < 0 || n == 0) {
				ret = bad_value(err, errlen, a, "-g takes bytes per millisecond per "
						"thread, such as -g1000, or I/Os per second, -g500i");
				goto fail;
			}
			if (iops)
				d->rate_iops = n;
			else
				d->rate_bpms = n;
			break;
		}
		case 'i':
		case 'j':
			if ((ret = iom_uint_parse(v, a[1] == 'i' ? 1000000 : 3600000, &n)) < 0 || n == 0) {
				ret = bad_value(err, errlen, a, a[1] == 'i'
						? "-i takes the I/Os per burst, such as -i8"
						: "-j takes the milliseconds between bursts, such as -j5");
				goto fail;
			}
			*(a[1] == 'i' ? &d->burst : &d->think_ms) = n;
			break;
		case 'Z':
			/* -Z zeros; -Zr random; -Z<size> a random buffer of that size: random too
			 * (iomatrix's is a block per slot, every 4 KiB stamped unique) */
			if (strcmp(v, "") == 0) {
				d->data = "zeros";
			} else if (strcmp(v, "r") == 0) {
				d->data = "random";
			} else if (strchr(v, ',')) {
				ret = iom_err(err, errlen, EINVAL, "DiskSpd option '%s' (write buffers "
					      "from a file) is not supported: iomatrix writes data = "
					      "random, zeros, compressible:N%% or dedupe:N%% (-Z zeros, "
					      "-Zr random)", a);
				goto fail;
			} else {
				uint64_t zsize;
				bool zblocks;

				if (parse_size(v, &zsize, &zblocks) < 0 || zsize == 0) {
					ret = iom_err(err, errlen, EINVAL, "'%s': -Z takes r, a buffer "
						      "size, or nothing (zeros)", a);
					goto fail;
				}
				d->data = "random";
				note(d, "%s: random data, as DiskSpd's random buffer, but not of that "
					"size: iomatrix fills each I/O slot once and stamps every 4 KiB "
					"of each write with its offset and a sequence number", a);
			}
			break;
		default:
		unknown:
			for (size_t k = 0; k < IOM_ARRAY_SIZE(unsupported); k++)
				if (unsupported[k].flag == a[1]) {
					ret = iom_err(err, errlen, EINVAL, "DiskSpd option '%s' (%s) is "
						      "not supported by iomatrix diskspd: %s (it takes "
						      SUPPORTED ")", a, unsupported[k].what,
						      unsupported[k].why);
					goto fail;
				}
			ret = iom_err(err, errlen, EINVAL, "unknown DiskSpd option '%s' (iomatrix "
				      "diskspd takes " SUPPORTED "; see 'iomatrix diskspd --help')", a);
			goto fail;
		}
	}
	if (xml)
		return read_profile(d, xml, err, errlen);
	if (!d->target) {
		ret = iom_err(err, errlen, EINVAL, "'diskspd' needs a target: a file (with -c<size> "
			      "to create it) or a block device");
		goto fail;
	}
	if (c_blocks)
		create *= d->block_size;
	if (f_blocks)
		max_size *= d->block_size;
	d->max_size = max_size;
	if (max_size && create && max_size > create) {
		ret = iom_err(err, errlen, EINVAL, "-f: a region of %" PRIu64 " bytes is larger "
			      "than the file -c creates (%" PRIu64 " bytes)", max_size, create);
		goto fail;
	}
	if (r_blocks)
		r_align *= d->block_size;
	if (s_blocks)
		s_align *= d->block_size;
	if (t_blocks)
		stride *= d->block_size;
	if (d->random && r_align && r_align != d->block_size)
		d->align = r_align; /* -r<align>: the workload's align */
	if (stride && d->threads > 1 && !d->random) {
		d->thread_stride = stride;
		if (stride % d->block_size)
			note(d, "-T: each thread's starting offset is rounded down to the block "
				"size");
	} else if (stride) {
		note(d, "-T without several sequential threads changes nothing (it sets where "
			"sequential threads start)");
	}
	if (d->shared_seq && d->random) {
		ret = iom_err(err, errlen, EINVAL, "-si and -r: -si shares one sequential stream "
			      "between the threads, and -r makes the I/O random; give one");
		goto fail;
	}
	if (d->shared_seq && stride)
		note(d, "-si and -T: the threads share one stream, so -T does not apply");
	if (!d->random && sequential && s_align && s_align != d->block_size) {
		char a1[32], a2[32];

		fmt_size(s_align, a1, sizeof(a1));
		fmt_size(d->block_size, a2, sizeof(a2));
		ret = iom_err(err, errlen, EINVAL, "-s%s: a sequential stride other than the block "
			      "size (%s) is not supported", a1, a2);
		goto fail;
	}
	if (d->random && sequential)
		note(d, "-r and -s given: random, as DiskSpd does (-r overrides -s)");
	if (d->think_ms && !d->burst) {
		ret = iom_err(err, errlen, EINVAL, "-j%" PRIu64 " needs -i (the I/Os of each "
			      "burst), as DiskSpd's -j does", d->think_ms);
		goto fail;
	}
	if (d->burst && !d->think_ms)
		note(d, "-i%" PRIu64 " without -j: no pause between bursts, as DiskSpd does",
		     d->burst);
	if ((d->rate_bpms || d->rate_iops) && d->think_ms) {
		ret = iom_err(err, errlen, EINVAL, "-g with -i/-j: iomatrix paces a run by a rate "
			      "or pauses it between bursts, not both");
		goto fail;
	}
	if (d->rate_bpms || d->rate_iops)
		note(d, "-g: an open loop (docs/load.md): each I/O is due on a schedule and its "
			"latency is counted from then (response time), where DiskSpd sleeps and "
			"counts from submission; the service time is the run's latency as usual");
	if (!d->direct)
		note(d, "no -Sh/-Su/-h: DiskSpd's default goes through the OS cache, and so does "
			"this study (direct = false); add -Sh to measure the device");
	d->create_size = create;
	return 0;
fail:
	iom_diskspd_release(d);
	return ret < 0 ? ret : -EINVAL;
}

/*
 * Whether a path that does not exist names a block device still to appear: its nearest existing
 * directory is on the filesystem of /dev itself (/dev/sdz, /dev/disk/by-id/…), not a filesystem
 * mounted under it (/dev/shm/x/y.dat is a file to create on tmpfs).
 */
static bool names_device(const char *path)
{
	struct stat dev, st;
	char *dir = xstrdup(path), *slash;
	bool on_dev = false;

	if (strncmp(path, "/dev/", 5) != 0 || stat("/dev", &dev) != 0) {
		free(dir);
		return false;
	}
	while ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		if (stat(dir, &st) == 0) {
			on_dev = S_ISDIR(st.st_mode) && st.st_dev == dev.st_dev;
			break;
		}
	}
	free(dir);
	return on_dev;
}

/* The scratch file size: -c, else the size of an existing file. */
static int target_size(const struct iom_diskspd *d, const char *path, bool *is_dev,
		       uint64_t *size, char *err, size_t errlen)
{
	struct stat st;
	bool exists = stat(path, &st) == 0;
	const char *what = exists ? "is a block device" : "names a device that does not exist";

	*is_dev = exists ? S_ISBLK(st.st_mode) : names_device(path);
	*size = d->max_size; /* -f: the region [0, size); 0: all of it */
	if (exists && !S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return iom_err(err, errlen, EINVAL, "'%s' is %s, neither a file nor a block "
			       "device: give a disk, or a file (-c<size> creates one)", path,
			       S_ISCHR(st.st_mode) ? "a character device" :
			       S_ISFIFO(st.st_mode) ? "a FIFO" :
			       S_ISSOCK(st.st_mode) ? "a socket" : "of another kind");
	if (*is_dev) {
		if (d->create_size)
			return iom_err(err, errlen, EINVAL, "-c creates files, and '%s' %s (as in "
				       "DiskSpd, -c conflicts with a device)", path, what);
		if (d->write_pct && !d->destructive)
			return iom_err(err, errlen, EINVAL, "'%s' %s and -w%u writes to it: add "
				       "--destructive to let iomatrix destroy what is on it", path,
				       what, d->write_pct);
		return 0;
	}
	if (exists && S_ISDIR(st.st_mode))
		return iom_err(err, errlen, EINVAL, "'%s' is a directory; give a file in it, e.g. "
			       "'%s/iomatrix-diskspd.dat' with -c1G", path, path);
	if (d->create_size) {
		*size = d->max_size ? d->max_size : d->create_size;
		return 0;
	}
	if (!exists)
		return iom_err(err, errlen, ENOENT, "'%s' does not exist: give -c<size> to create "
			       "it, e.g. -c1G", path);
	if (!S_ISREG(st.st_mode) || st.st_size <= 0)
		return iom_err(err, errlen, EINVAL, "'%s' is not a regular file with data; give "
			       "-c<size>", path);
	if (d->max_size > (uint64_t)st.st_size)
		return iom_err(err, errlen, EINVAL, "-f: a region of %" PRIu64 " bytes is larger "
			       "than '%s' (%lld bytes)", d->max_size, path,
			       (long long)st.st_size);
	*size = d->max_size ? d->max_size : (uint64_t)st.st_size;
	return 0;
}

/* issue 16c: the size and kind of every target: all files or all devices; the one size is
 * each file's (the smallest existing file's without -c; a device's region with -f, else 0:
 * each device whole). */
static int targets_size(const struct iom_diskspd *d, bool *is_dev, uint64_t *size, char *err,
			size_t errlen)
{
	int ret = target_size(d, d->targets[0], is_dev, size, err, errlen);

	for (size_t k = 1; k < d->ntargets && ret == 0; k++) {
		bool dev;
		uint64_t sz;

		ret = target_size(d, d->targets[k], &dev, &sz, err, errlen);
		if (ret < 0)
			break;
		if (dev != *is_dev)
			return iom_err(err, errlen, EINVAL, "'%s' is %s and '%s' is not: give all "
				       "files or all block devices", d->targets[k],
				       dev ? "a block device" : "a file", d->targets[0]);
		if (sz < *size)
			*size = sz;
	}
	return ret;
}

/* Appends a printf-formatted piece to the growing string *s. */
static void add(char **s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(char **s, const char *fmt, ...)
{
	va_list ap;
	char *piece, *n;

	va_start(ap, fmt);
	if (vasprintf(&piece, fmt, ap) < 0)
		abort();
	va_end(ap);
	n = xasprintf("%s%s", *s ? *s : "", piece);
	free(piece);
	free(*s);
	*s = n;
}

/* "  key = value;" padded so that the comments line up, then "# comment". */
static void add_key(char **s, const char *kv, const char *comment)
{
	add(s, "  %-32s# %s\n", kv, comment);
}

int iom_diskspd_matrix(const struct iom_diskspd *d, char **text, char *err, size_t errlen)
{
	char label[64], bs[32], size[32], e[IOM_ERRLEN], kv[128], c[128];
	char *qpath, *qdesc, *desc, *t = NULL;
	struct iom_matrix *m = NULL;
	uint64_t fsize;
	bool is_dev;
	int ret;

	*text = NULL;
	if ((ret = targets_size(d, &is_dev, &fsize, err, errlen)) < 0)
		return ret;
	iom_preset_label(d->target, label, sizeof(label));
	fmt_size(d->block_size, bs, sizeof(bs));
	fmt_size(fsize, size, sizeof(size));
	qpath = iom_preset_quote(d->target);
	desc = xasprintf("diskspd %s", d->command ? d->command : "");
	qdesc = iom_preset_quote(desc);

	add(&t, "# The study of:  iomatrix %s\n#\n# One cell, run once, as DiskSpd would run it "
		"('iomatrix diskspd --help' tells how\n# each flag maps).\n", desc);
	if (d->nnotes) {
		add(&t, "#\n# Notes:\n");
		for (size_t i = 0; i < d->nnotes; i++)
			add(&t, "#   - %s\n", d->notes[i]);
	}
	add(&t, "\niomatrix = 1;\nname = \"diskspd\";\ndescription = %s;\n", qdesc);
	if (d->seed_given)
		add(&t, "seed = %" PRIu64 ";                         # -z\n", d->seed);
	if (d->cpus)
		add(&t, "cpus = \"%s\";   # -a: thread i on the i-th CPU, round-robin\n", d->cpus);
	if (d->ntargets > 1) { /* issue 16c: all at once, as DiskSpd runs them */
		add(&t, "\ntargets = (\n  { label = \"%s\"; paths = [ %s", label, qpath);
		for (size_t k = 1; k < d->ntargets; k++) {
			char *q = iom_preset_quote(d->targets[k]);

			add(&t, ", %s", q);
			free(q);
		}
		add(&t, " ];");
	} else {
		add(&t, "\ntargets = (\n  { label = \"%s\"; path = %s;", label, qpath);
	}
	if (is_dev && d->max_size)
		add(&t, " size = \"%s\";%s }   # a block device: -f, its first %s\n", size,
		    d->destructive ? " destructive = true;" : "", size);
	else if (is_dev)
		add(&t, "%s }   # a block device: the whole of it\n",
		    d->destructive ? " destructive = true;" : "");
	else
		add(&t, " size = \"%s\";%s }   # %s\n", size,
		    d->overwrite ? " overwrite = true;" : "",
		    d->max_size ? "-f: the region used (created at it when missing)"
		    : d->create_size ? "-c: created when missing" : "the existing file's size");
	add(&t, ");\n\nworkload = {\n");
	snprintf(kv, sizeof(kv), "block_size = \"%s\";", bs);
	add_key(&t, kv, "-b (DiskSpd's default 64K)");
	snprintf(kv, sizeof(kv), "pattern = \"%s\";", d->random ? "random" : "sequential");
	add_key(&t, kv, d->random ? "-r" : "-s (DiskSpd's default: sequential)");
	if (d->random_pct && d->random_pct < 100) {
		snprintf(kv, sizeof(kv), "random_pct = %u;", d->random_pct);
		add_key(&t, kv, "-rs: the share of random I/Os, the rest sequential");
	}
	if (d->align) {
		char al[32];

		fmt_size(d->align, al, sizeof(al));
		snprintf(kv, sizeof(kv), "align = \"%s\";", al);
		add_key(&t, kv, "-r<align>: random offsets on multiples of it");
	}
	if (d->thread_stride && !d->shared_seq) {
		char ts[32];

		fmt_size(d->thread_stride, ts, sizeof(ts));
		snprintf(kv, sizeof(kv), "thread_stride = \"%s\";", ts);
		add_key(&t, kv, "-T: thread t starts at t x stride");
	}
	if (d->shared_seq)
		add_key(&t, "shared_sequential = true;", "-si: the threads share one stream");
	snprintf(kv, sizeof(kv), "read_pct = %u;", 100 - d->write_pct);
	snprintf(c, sizeof(c), "-w%u: %u %% writes", d->write_pct, d->write_pct);
	add_key(&t, kv, c);
	snprintf(kv, sizeof(kv), "queue_depth = %" PRIu64 ";", d->outstanding);
	add_key(&t, kv, "-o: I/Os outstanding per thread");
	snprintf(kv, sizeof(kv), "threads = %" PRIu64 ";", d->threads * (d->ntargets ? d->ntargets : 1));
	if (d->ntargets > 1) {
		snprintf(c, sizeof(c), "-t%" PRIu64 " on each of the %zu targets (thread i on path i "
			 "mod %zu)", d->threads, d->ntargets, d->ntargets);
		add_key(&t, kv, c);
	} else {
		add_key(&t, kv, "-t: threads on the target");
	}
	snprintf(kv, sizeof(kv), "direct = %s;", d->direct ? "true" : "false");
	add_key(&t, kv, d->direct ? "-Sh/-Su/-h: O_DIRECT, the OS cache bypassed"
				  : "no -S: through the OS cache, DiskSpd's default");
	if (d->data) {
		snprintf(kv, sizeof(kv), "data = \"%s\";", d->data);
		add_key(&t, kv, strcmp(d->data, "zeros") == 0 ? "-Z: write buffers of zeros"
							       : "-Zr, -Z<size>: random data");
	}
	if (d->write_through)
		add_key(&t, "write_through = true;", "-Sh/-Sw/-h: O_DSYNC, every write on stable "
			"media (FUA, or a flush of the device's cache)");
	add_key(&t, "engine = \"io_uring\";", "asynchronous, as DiskSpd's completion ports");
	if (d->rate_bpms) {
		/* bytes per ms per thread → 10^6 bytes per s for the run (every thread of every
		 * target file) */
		snprintf(kv, sizeof(kv), "rate_mb_s = \"%.10g\";",
			 (double)d->rate_bpms * (double)(d->threads * (d->ntargets ? d->ntargets : 1)) /
				 1000.0);
		add_key(&t, kv, "-g: bytes per ms per thread, as MB/s of the whole run");
	}
	if (d->rate_iops) {
		snprintf(kv, sizeof(kv), "rate_iops = %" PRIu64 ";",
			 d->rate_iops * d->threads * (d->ntargets ? d->ntargets : 1));
		add_key(&t, kv, "-g…i: I/Os per second per thread, for the whole run");
	}
	if (d->burst && d->think_ms) {
		snprintf(kv, sizeof(kv), "burst = %" PRIu64 ";", d->burst);
		add_key(&t, kv, "-i: I/Os per burst of a thread");
		snprintf(kv, sizeof(kv), "think_time = \"%" PRIu64 "ms\";", d->think_ms);
		add_key(&t, kv, "-j: milliseconds between bursts");
	}
	add(&t, "};\n\ntiming = {\n");
	snprintf(kv, sizeof(kv), "warmup = \"%" PRIu64 "s\";", d->warmup_s);
	add_key(&t, kv, "-W (DiskSpd's default 5)");
	snprintf(kv, sizeof(kv), "duration = \"%" PRIu64 "s\";", d->duration_s);
	add_key(&t, kv, "-d (DiskSpd's default 10)");
	snprintf(kv, sizeof(kv), "cooldown = \"%" PRIu64 "s\";", d->cooldown_s);
	add_key(&t, kv, "-C");
	add(&t, "  repeat = 1;\n};\n");
	free(desc);
	free(qdesc);
	free(qpath);

	ret = iom_matrix_parse("diskspd", t, NULL, 0, &m, e, sizeof(e));
	iom_matrix_free(m);
	if (ret < 0) {
		free(t);
		return iom_err(err, errlen, EINVAL, "these DiskSpd options make an invalid study: %s",
			       e);
	}
	*text = t;
	return 0;
}

int iom_diskspd_fio(const struct iom_diskspd *d, char **text, char *err, size_t errlen)
{
	const char *rw;
	uint64_t fsize;
	bool is_dev;
	char *t = NULL;
	int ret;

	*text = NULL;
	if (d->ntargets > 1)
		return iom_err(err, errlen, EINVAL, "--print-fio: several targets have no fio "
			       "equivalent (fio's filename=a:b makes every job use every file)");
	if (d->thread_stride || d->shared_seq || d->cpus || d->burst || d->think_ms)
		return iom_err(err, errlen, EINVAL, "--print-fio: %s has no fio job equivalent that "
			       "iomatrix imports back", d->thread_stride ? "-T" : d->shared_seq ? "-si"
			       : d->cpus ? "-a" : "-i/-j");
	if ((ret = targets_size(d, &is_dev, &fsize, err, errlen)) < 0)
		return ret;
	if (d->random)
		rw = d->write_pct == 0 ? "randread" : d->write_pct == 100 ? "randwrite" : "randrw";
	else
		rw = d->write_pct == 0 ? "read" : d->write_pct == 100 ? "write" : "rw";
	add(&t, "; The fio job equivalent of:  iomatrix diskspd %s\n", d->command ? d->command : "");
	add(&t, "; 'iomatrix import' of this file gives the plan of that command (same plan hash).\n");
	if (d->cooldown_s)
		add(&t, "; -C%" PRIu64 ": fio has no cool-down (iomatrix's matrix keeps it)\n",
		    d->cooldown_s);
	add(&t, "[diskspd]\nfilename=%s\n", d->target);
	if (fsize)
		add(&t, "size=%" PRIu64 "\n", fsize);
	add(&t, "bs=%" PRIu64 "\nrw=%s\n", d->block_size, rw);
	if (d->write_pct && d->write_pct < 100)
		add(&t, "rwmixread=%u\n", 100 - d->write_pct);
	if (d->random_pct && d->random_pct < 100)
		add(&t, "percentage_random=%u\n", d->random_pct);
	if (d->align)
		add(&t, "blockalign=%" PRIu64 "\n", d->align);
	add(&t, "iodepth=%" PRIu64 "\nnumjobs=%" PRIu64 "\nthread\ngroup_reporting\n"
		"ioengine=io_uring\ndirect=%d\n", d->outstanding, d->threads, d->direct ? 1 : 0);
	if (d->write_through)
		add(&t, "sync=dsync\n");
	if (d->data && strcmp(d->data, "zeros") == 0)
		add(&t, "zero_buffers\n");
	if (d->rate_iops)
		add(&t, "rate_iops=%" PRIu64 "\n", d->rate_iops);
	if (d->rate_bpms)
		add(&t, "rate=%" PRIu64 "\n", d->rate_bpms * 1000);
	if (d->seed_given)
		add(&t, "randseed=%" PRIu64 "\n", d->seed);
	add(&t, "time_based\nruntime=%" PRIu64 "s\nramp_time=%" PRIu64 "s\n", d->duration_s,
	    d->warmup_s);
	*text = t;
	return 0;
}

void iom_diskspd_usage(FILE *out)
{
	fputs("usage: iomatrix diskspd [DISKSPD OPTIONS] TARGET [--output DIR] [--matrix] [--quiet]\n"
	      "                        [--no-trace] [--overwrite] [--destructive] [--print-fio]\n"
	      "       iomatrix diskspd -Xprofile.xml [--output DIR] [--matrix] ...\n"
	      "\n"
	      "a one-cell study from DiskSpd's flags, run into a results directory and printed as\n"
	      "DiskSpd prints its results; for example\n"
	      "  iomatrix diskspd -b16K -d60 -Sh -L -o2 -t4 -r -w50 -c10G /mnt/lsi/io.dat\n"
	      "\n"
	      "DiskSpd options (the value glued on, as DiskSpd takes them):\n"
	      "  -b<size>     block size, K/M/G (powers of 1024)  block_size     [64K]\n"
	      "  -d<seconds>  measured time                       duration       [10]\n"
	      "  -W<seconds>  warm-up (a bare -W is 0, as in DiskSpd)  warmup    [5]\n"
	      "  -C<seconds>  cool-down                           cooldown       [0]\n"
	      "  -o<count>    I/Os outstanding per thread         queue_depth    [2]\n"
	      "  -t<count>    threads on each target              threads (x targets) [1]\n"
	      "  -r[align]    random, on multiples of align       pattern, align [sequential]\n"
	      "  -rs<pct>     pct % of the I/Os random, the rest sequential    random_pct\n"
	      "  -s[stride]   sequential (stride = block size)    pattern\n"
	      "  -si          the threads share one sequential stream   shared_sequential\n"
	      "  -T<offset>   sequential thread t starts at t x offset     thread_stride\n"
	      "  -w<pct>      percentage of writes                read_pct = 100 - pct  [0]\n"
	      "  -c<size>     create the file at this size        targets.size\n"
	      "  -f<size>     use the first <size> bytes only     targets.size (the region)\n"
	      "  -Sh, -Su, -S bypass the OS cache (O_DIRECT); -Sb uses it   direct  [the cache]\n"
	      "  -Sh, -Sw, -h write through: O_DSYNC (FUA, or a flush after each write)  write_through\n"
	      "  -h           old spelling of -Sh (Windows), taken as -Sh\n"
	      "  -L           latency statistics: always measured\n"
	      "  -D[ms]       IOPS statistics: always in 1 s intervals\n"
	      "  -z[seed]     random seed                         seed\n"
	      "  -a[cpus]     pin threads round-robin: -a0,2 to CPUs 0 and 2, -a to all  cpus\n"
	      "  -n           no affinity: iomatrix's default (DiskSpd's default is -a)\n"
	      "  -Z, -Zr      writes of zeros, of random data (-Z<size>: random)  data  [random]\n"
	      "  -X<file>     an XML profile (DiskSpd's <Profile>), alone: its settings and targets\n"
	      "\n"
	      "iomatrix options:\n"
	      "  --output DIR   the results directory (default results/diskspd-<UTC time>)\n"
	      "  --matrix       print the study's matrix file and exit (save it, edit it, run it)\n"
	      "  --print-fio    print the fio job equivalent and exit ('iomatrix import' of it\n"
	      "                 gives this study's plan)\n"
	      "  --quiet        no progress lines (they go to stderr)\n"
	      "  --no-trace     do not record the per-I/O trace\n"
	      "  --overwrite    may take over an existing file iomatrix did not create\n"
	      "  --destructive  may write to a block device, destroying its contents\n"
	      "\n"
	      "other DiskSpd flags are refused. Several targets (files or devices, not both) are\n"
	      "driven at once as in DiskSpd: one target with paths = [ ... ], -t threads on each\n"
	      "(to compare targets one after another, use a matrix: 'iomatrix new PATH PATH')\n",
	      out);
}

int iom_diskspd_run(const struct iom_diskspd *d, FILE *out, FILE *progress,
		    volatile sig_atomic_t *stop, struct iom_diskspd_outcome *res, char *err,
		    size_t errlen)
{
	struct iom_sweep_outcome so;
	struct iom_matrix *m = NULL;
	struct iom_plan p;
	char *text = NULL, *dir = NULL, e[IOM_ERRLEN];
	int ret;

	memset(res, 0, sizeof(*res));
	if ((ret = iom_diskspd_matrix(d, &text, err, errlen)) < 0)
		return ret;
	if ((ret = iom_matrix_parse("diskspd", text, NULL, 0, &m, err, errlen)) < 0)
		goto out;
	if ((ret = iom_plan_build(m, &p, err, errlen)) < 0)
		goto out;
	dir = d->output ? xstrdup(d->output) : iom_sweep_default_dir(m);
	struct iom_sweep_opts o = {
		.dir = dir,
		.quiet = d->quiet || !progress,
		.out = progress ? progress : stderr,
		.stop = stop,
		.no_trace = d->no_trace,
	};
	if (progress && !d->quiet) {
		for (size_t i = 0; i < d->nnotes; i++)
			fprintf(progress, "note: %s\n", d->notes[i]);
		fprintf(progress, "diskspd %s: 1 run into %s\n", d->command, dir);
	}
	ret = iom_sweep_execute(&p, &o, &so, err, errlen);
	iom_plan_release(&p);
	if (ret < 0)
		goto out;
	if (so.interrupted) {
		res->interrupted = true;
		iom_err(err, errlen, EINTR, "interrupted; the results so far are in %s", dir);
		goto out;
	}
	res->failed = so.failed != 0;
	if (d->xml_results) {
		/* -Rxml: the XML alone, as DiskSpd writes it */
		struct iom_report_opts_cli ro = { .format = "diskspd-xml", .run = "1", .color = 0 };

		ret = iom_report_dir(out, dir, &ro, e, sizeof(e));
		if (ret < 0) {
			iom_err(err, errlen, EIO, "%s%s", res->failed ? "the run failed: " : "", e);
			ret = res->failed ? 0 : ret;
			goto out;
		}
		if (progress)
			fprintf(progress, "results in %s (iomatrix report %s)\n", dir, dir);
		if (res->failed)
			iom_err(err, errlen, EIO, "the run failed; see %s", dir);
		goto out;
	}
	fprintf(out, "\nCommand Line: iomatrix diskspd %s\n\n", d->command);
	if (iom_report_run(out, dir, 1, NULL, e, sizeof(e)) < 0) {
		/* a failed run has no figures: say why, from the sweep */
		if (res->failed)
			iom_err(err, errlen, EIO, "the run failed (see %s/runs): %s", dir, e);
		else
			ret = iom_err(err, errlen, EIO, "%s", e);
		goto out;
	}
	fprintf(out, "\nresults in %s (iomatrix report %s)\n", dir, dir);
	if (res->failed)
		iom_err(err, errlen, EIO, "the run failed; see %s", dir);
out:
	iom_matrix_free(m);
	free(text);
	free(dir);
	return ret;
}
