/* SPDX-License-Identifier: MIT */
/*
 * import_fio — a fio job file in, a matrix out (import.h).
 *
 * The file is fio's ini dialect: `[name]` sections, `key=value` or a bare `key` (a flag), `;` and
 * `#` comment lines, `include FILE` (relative to the including file, nested at most 8 deep, no
 * sections inside), `${VAR}` on the right of '=' from the environment (unset: empty). A job sees
 * every [global] section above it, then its own options; the last setting of a key wins.
 *
 * Each job becomes a cell: its options mapped onto workload keys, its filename and size onto a
 * target, its runtime and ramp_time onto the timing group. Jobs are then compared key by key:
 * the keys in which they differ become dimensions, provided the jobs are every combination of
 * those values (two jobs differing in bs, four differing in bs and iodepth as a 2 x 2); timing
 * must be the same for all. Sizes follow fio's kb_base (1024 by default: 4k = 4096, 4ki = 4000);
 * times take fio's suffixes (us, ms, s, m, h, d; seconds without one).
 *
 * The options taken are the table known[]; every other option is a problem naming its FILE:LINE
 * (kept as a comment with --lenient), and so is a value that maps to nothing (rw=trim, a
 * read,write pair of block sizes, a non-zero offset). What each maps to is the table fio_rows[],
 * in the order a job's options are read: an option, how its value is read and the workload key
 * it sets, or the step that maps it with the options that go with it (rw with rwmixread, the
 * target, the timing). The jobs then become one matrix in steps of their own: grouped into
 * targets and dimensions, checked as a full product, written.
 */
#include "import_in.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "keys.h"
#include "preset.h"
#include "strbuf.h"
#include "units.h"
#include "util.h"

#define MAX_INCLUDE 8
#define MAX_JOBS 4096
#define MAX_SPLIT 16

/* One option line, as written (value after ${VAR} expansion). */
struct opt {
	char *key, *val;   /* val NULL: a bare flag */
	char *file;        /* where it was written (heap: the include's path) */
	unsigned line;
};

struct section {
	char *name;
	char *file;
	unsigned line;
	bool global;
	struct opt *opts;
	size_t nopts;
};

struct parse {
	struct section *secs;
	size_t nsecs;
	struct iom_import *im;
	bool lenient;
	char **kept;         /* with lenient: the refused lines, as comments */
	size_t nkept;
};

/* The workload keys a job sets, in the order the matrix lists them. */
enum wk {
	W_BLOCK_SIZE, W_ACCESS, W_PATTERN, W_RANDOM_PCT, W_ALIGN, W_READ_PCT, W_QUEUE_DEPTH,
	W_THREADS, W_ENGINE, W_DIRECT, W_DISTRIBUTION, W_RATE_IOPS, W_RATE_MB_S, W_ARRIVALS,
	W_FSYNC_EVERY, W_WRITE_THROUGH, W_DATA, W_COUNT
};

static const char *const wk_name[W_COUNT] = {
	"block_size", "access", "pattern", "random_pct", "align", "read_pct", "queue_depth",
	"threads", "engine", "direct", "distribution", "rate_iops", "rate_mb_s", "arrivals",
	"fsync_every", "write_through", "data",
};

/* Written even at their default, so that the matrix says what fio's defaults were. */
static const bool wk_always[W_COUNT] = {
	[W_BLOCK_SIZE] = true, [W_PATTERN] = true, [W_READ_PCT] = true, [W_QUEUE_DEPTH] = true,
	[W_THREADS] = true, [W_ENGINE] = true, [W_DIRECT] = true,
};

/* A job turned into a cell. */
struct job {
	const char *name, *file;
	unsigned line;
	char *val[W_COUNT];  /* matrix text of the value (heap); NULL: the key's default */
	char *why[W_COUNT];  /* the fio option it came from, for the comment (heap) */
	char *path;          /* the target */
	uint64_t size;       /* 0: a device whole */
	char *spec;          /* bssplit: the access spec's lines (heap), or NULL */
	char *timing;        /* the timing group's body (heap) */
	char *description;
	uint64_t seed;
	bool seed_given;
	unsigned target;     /* index into the distinct targets */
	char *notes;         /* "#   - ...\n" lines (heap) */
};

static void opt_free(struct opt *o)
{
	free(o->key);
	free(o->val);
	free(o->file);
}

static void parse_release(struct parse *p)
{
	for (size_t i = 0; i < p->nsecs; i++) {
		for (size_t j = 0; j < p->secs[i].nopts; j++)
			opt_free(&p->secs[i].opts[j]);
		free(p->secs[i].opts);
		free(p->secs[i].name);
		free(p->secs[i].file);
	}
	free(p->secs);
	for (size_t i = 0; i < p->nkept; i++)
		free(p->kept[i]);
	free(p->kept);
}

/* A problem on an option: refused, or with lenient kept as a comment of the matrix. */
static void refuse(struct parse *p, const char *file, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void refuse(struct parse *p, const char *file, unsigned line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < p->im->nproblems; i++) {
		char *c = strstr(p->im->problems[i], ": ");

		/* a [global] option is every job's: named once */
		if (c && strcmp(c + 2, msg) == 0 && strncmp(p->im->problems[i], file, strlen(file)) == 0 &&
		    (unsigned)atoi(p->im->problems[i] + strlen(file) + 1) == line)
			return;
	}
	iom_import_problem(p->im, file, line, "%s", msg);
	if (p->lenient) {
		p->kept = xrealloc(p->kept, (p->nkept + 1) * sizeof(*p->kept));
		p->kept[p->nkept++] = xasprintf("%s:%u: %s", file, line, msg);
	}
}

/* ${VAR} from the environment, as fio expands it (unset: empty). */
static char *expand_env(const char *v)
{
	struct iom_strbuf b = { 0 };

	iom_strbuf_str(&b, "");
	while (*v) {
		const char *end;

		if (v[0] == '$' && v[1] == '{' && (end = strchr(v + 2, '}'))) {
			char *name = xasprintf("%.*s", (int)(end - v - 2), v + 2);
			const char *val = *name ? getenv(name) : NULL;

			if (val)
				iom_strbuf_str(&b, val);
			free(name);
			v = end + 1;
			continue;
		}
		iom_strbuf_add(&b, v, 1);
		v++;
	}
	return iom_strbuf_take(&b);
}

static void add_opt(struct section *s, const char *key, const char *val, const char *file,
		    unsigned line)
{
	s->opts = xrealloc(s->opts, (s->nopts + 1) * sizeof(*s->opts));
	s->opts[s->nopts++] = (struct opt){
		.key = xstrdup(key), .val = val ? expand_env(val) : NULL, .file = xstrdup(file),
		.line = line,
	};
}

static int parse_text(struct parse *p, const char *file, const char *text, int depth, char *err,
		      size_t errlen);

/* include FILE: its options go into the current section. */
static int include(struct parse *p, const char *from, unsigned line, const char *name, int depth,
		   char *err, size_t errlen)
{
	char *dir = xstrdup(from), *path, *buf;
	size_t len;
	int ret;

	if (depth >= MAX_INCLUDE) {
		free(dir);
		return iom_err(err, errlen, EINVAL, "%s:%u: includes nested more than %d deep", from,
			       line, MAX_INCLUDE);
	}
	path = name[0] == '/' ? xstrdup(name) : xasprintf("%s/%s", dirname(dir), name);
	free(dir);
	ret = iom_import_read(path, &buf, &len, err, errlen);
	if (ret < 0) {
		char e[IOM_ERRLEN];

		snprintf(e, sizeof(e), "%s", err);
		free(path);
		return iom_err(err, errlen, -ret, "%s:%u: include: %s", from, line, e);
	}
	ret = parse_text(p, path, buf, depth + 1, err, errlen);
	free(buf);
	free(path);
	return ret;
}

static int parse_text(struct parse *p, const char *file, const char *text, int depth, char *err,
		      size_t errlen)
{
	char *copy = xstrdup(text), *save = NULL, *raw;
	unsigned line = 0;
	const char *s = copy;
	int ret = 0;

	(void)s;
	for (raw = copy; raw; raw = save) {
		char *nl = strchr(raw, '\n'), *l, *eq;

		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		line++;
		l = iom_trim(raw);
		if (!*l || *l == ';' || *l == '#')
			continue;
		if (*l == '[') {
			char *end = strchr(l, ']');
			struct section *sec;

			if (depth > 0) {
				ret = iom_err(err, errlen, EINVAL, "%s:%u: an included file may not "
					      "hold sections ('%s')", file, line, l);
				break;
			}
			if (!end || end == l + 1 || *iom_trim(end + 1)) {
				ret = iom_err(err, errlen, EINVAL, "%s:%u: '%s' is not a section "
					      "header such as [job1]", file, line, l);
				break;
			}
			*end = '\0';
			if (p->nsecs >= MAX_JOBS) {
				ret = iom_err(err, errlen, EINVAL, "%s:%u: more than %d sections",
					      file, line, MAX_JOBS);
				break;
			}
			p->secs = xrealloc(p->secs, (p->nsecs + 1) * sizeof(*p->secs));
			sec = &p->secs[p->nsecs++];
			*sec = (struct section){ .name = xstrdup(iom_trim(l + 1)), .file = xstrdup(file),
						 .line = line };
			sec->global = strcmp(sec->name, "global") == 0;
			continue;
		}
		if (strncmp(l, "include", 7) == 0 && isspace((unsigned char)l[7])) {
			if ((ret = include(p, file, line, iom_trim(l + 7), depth, err, errlen)) < 0)
				break;
			continue;
		}
		if (!p->nsecs) {
			ret = iom_err(err, errlen, EINVAL, "%s:%u: '%s' before any [section]: a fio "
				      "job file starts with [global] or a [job]", file, line, l);
			break;
		}
		eq = strchr(l, '=');
		if (eq) {
			*eq = '\0';
			add_opt(&p->secs[p->nsecs - 1], iom_trim(l), iom_trim(eq + 1), file, line);
		} else {
			add_opt(&p->secs[p->nsecs - 1], l, NULL, file, line);
		}
	}
	free(copy);
	return ret;
}

/* ---- values in fio's syntax ---------------------------------------------------------------- */

/* An integer with fio's unit suffix (k, m, g, t, p; with kb_base 1024 "ki" means 1000). */
static int fio_size(const char *s, unsigned kb_base, uint64_t *v)
{
	uint64_t n = 0, mult = 1, base;
	const char *q = s;
	int base16 = 0;

	if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) {
		base16 = 1;
		q += 2;
	}
	if (!(base16 ? isxdigit((unsigned char)*q) : isdigit((unsigned char)*q)))
		return -EINVAL;
	for (; base16 ? isxdigit((unsigned char)*q) : isdigit((unsigned char)*q); q++) {
		unsigned d = isdigit((unsigned char)*q) ? (unsigned)(*q - '0')
						       : (unsigned)(tolower((unsigned char)*q) - 'a' + 10);

		if (n > (UINT64_MAX - d) / (base16 ? 16 : 10))
			return -ERANGE;
		n = n * (base16 ? 16 : 10) + d;
	}
	if (*q) {
		static const char units[] = "kmgtp";
		const char *u = strchr(units, tolower((unsigned char)*q));
		bool iec;

		if (u && *u) {
			q++;
			iec = *q == 'i' || *q == 'I';
			if (iec)
				q++;
			/* kb_base 1024: K is 1024, Ki 1000 (fio's compatibility mode); 1000: the SI way */
			base = (kb_base == 1000) == iec ? 1024 : 1000;
			for (long i = 0; i <= u - units; i++)
				mult *= base;
		}
		if (*q == 'b' || *q == 'B')
			q++;
		if (*q)
			return -EINVAL;
	}
	if (mult > 1 && n > UINT64_MAX / mult)
		return -ERANGE;
	*v = n * mult;
	return 0;
}

/* A time with fio's suffixes, seconds without one, into nanoseconds. */
static int fio_time(const char *s, uint64_t *ns)
{
	static const struct {
		const char *suffix;
		uint64_t ns;
	} units[] = {
		{ "", 1000000000ull }, { "s", 1000000000ull }, { "sec", 1000000000ull },
		{ "ms", 1000000ull }, { "msec", 1000000ull }, { "us", 1000ull }, { "usec", 1000ull },
		{ "m", 60000000000ull }, { "h", 3600000000000ull }, { "d", 86400000000000ull },
	};
	uint64_t n = 0;
	const char *q = s;

	if (!isdigit((unsigned char)*q))
		return -EINVAL;
	for (; isdigit((unsigned char)*q); q++) {
		if (n > UINT64_MAX / 10 - 9)
			return -ERANGE;
		n = n * 10 + (uint64_t)(*q - '0');
	}
	for (size_t i = 0; i < IOM_ARRAY_SIZE(units); i++)
		if (strcasecmp(q, units[i].suffix) == 0) {
			if (n > UINT64_MAX / units[i].ns)
				return -ERANGE;
			*ns = n * units[i].ns;
			return 0;
		}
	return -EINVAL;
}

/* fio's bool: 1/0, or a bare flag. */
static int fio_bool(const struct opt *o, bool *v)
{
	if (!o->val || strcmp(o->val, "1") == 0 || strcasecmp(o->val, "true") == 0) {
		*v = true;
		return 0;
	}
	if (strcmp(o->val, "0") == 0 || strcasecmp(o->val, "false") == 0) {
		*v = false;
		return 0;
	}
	return -EINVAL;
}

/* ---- a job's options, resolved ------------------------------------------------------------- */

/* The options a job sees: every global section above it, then its own (last one wins). */
struct view {
	const struct opt **o;
	size_t n;
};

static const struct opt *get(const struct view *v, const char *key)
{
	for (size_t i = v->n; i-- > 0;)
		if (strcmp(v->o[i]->key, key) == 0)
			return v->o[i];
	return NULL;
}

/* The first of several spellings that is set (fio's aliases: bs and blocksize, ...). */
static const struct opt *get2(const struct view *v, const char *a, const char *b)
{
	const struct opt *x = NULL;

	for (size_t i = v->n; i-- > 0 && !x;)
		if (strcmp(v->o[i]->key, a) == 0 || (b && strcmp(v->o[i]->key, b) == 0))
			x = v->o[i];
	return x;
}

/* The options that map, or are taken without effect on what is measured; any other is refused.
 * Those with a "note" are accepted with that note in the matrix. */
static const struct {
	const char *name;
	const char *note;
} known[] = {
	{ "name", NULL }, { "description", NULL }, { "rw", NULL }, { "readwrite", NULL },
	{ "rwmixread", NULL }, { "rwmixwrite", NULL }, { "bs", NULL }, { "blocksize", NULL },
	{ "bssplit", NULL }, { "iodepth", NULL }, { "numjobs", NULL }, { "size", NULL },
	{ "runtime", NULL }, { "time_based", NULL }, { "ramp_time", NULL }, { "direct", NULL },
	{ "buffered", NULL }, { "ioengine", NULL }, { "filename", NULL }, { "directory", NULL },
	{ "rate_iops", NULL }, { "rate", NULL }, { "rate_process", NULL },
	{ "random_distribution", NULL }, { "fsync", NULL }, { "sync", NULL }, { "dsync", NULL },
	{ "buffer_compress_percentage", NULL }, { "dedupe_percentage", NULL },
	{ "zero_buffers", NULL }, { "refill_buffers", NULL }, { "offset", NULL },
	{ "percentage_random", NULL }, { "blockalign", NULL }, { "ba", NULL },
	{ "randseed", NULL }, { "loops", NULL }, { "kb_base", NULL },
	{ "norandommap", "norandommap: iomatrix keeps no random map anyway (offsets are drawn with "
			 "replacement, as fio's norandommap)" },
	{ "stonewall", NULL }, { "wait_for_previous", NULL }, { "new_group", NULL },
	{ "group_reporting", "group_reporting: iomatrix reports each run's threads together" },
	{ "thread", "thread: iomatrix's workers are threads" },
	{ "randrepeat", "randrepeat: iomatrix's offsets are deterministic per seed" },
};

static const char *known_note(const char *key, bool *found)
{
	for (size_t i = 0; i < IOM_ARRAY_SIZE(known); i++)
		if (strcmp(known[i].name, key) == 0) {
			*found = true;
			return known[i].note;
		}
	*found = false;
	return NULL;
}

static void set(struct job *j, enum wk k, const struct opt *from, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void set(struct job *j, enum wk k, const struct opt *from, const char *fmt, ...)
{
	va_list ap;
	char *v;

	va_start(ap, fmt);
	if (vasprintf(&v, fmt, ap) < 0)
		abort();
	va_end(ap);
	free(j->val[k]);
	free(j->why[k]);
	j->val[k] = v;
	j->why[k] = from ? (from->val ? xasprintf("%s=%s", from->key, from->val)
				      : xstrdup(from->key))
			 : xstrdup("fio's default");
}

static void note(struct job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct job *j, const char *fmt, ...)
{
	va_list ap;
	char *n, *all;

	va_start(ap, fmt);
	if (vasprintf(&n, fmt, ap) < 0)
		abort();
	va_end(ap);
	all = xasprintf("%s#   - %s\n", j->notes ? j->notes : "", n);
	free(n);
	free(j->notes);
	j->notes = all;
}

static void job_release(struct job *j)
{
	for (int k = 0; k < W_COUNT; k++) {
		free(j->val[k]);
		free(j->why[k]);
	}
	free(j->path);
	free(j->spec);
	free(j->timing);
	free(j->description);
	free(j->notes);
}

/* ---- a job's options, mapped ---------------------------------------------------------------- */

/* One job being mapped: its options, the cell they become, and what one step tells the next. */
struct mapping {
	struct parse *p;
	const struct section *sec;
	const struct view *v;
	struct job *j;
	unsigned kb_base;       /* fio's kb_base: 1024 or 1000 */
	uint64_t num[W_COUNT];  /* the whole numbers taken, by the key they set (threads: numjobs) */
	bool random;            /* rw= is one of the random ones */
	bool bad;               /* an option was refused */
};

/* A problem on option o of the job being mapped. */
#define BAD(m, o, ...) (refuse((m)->p, (o)->file, (o)->line, __VA_ARGS__), (m)->bad = true)

#define STR_(x) #x
#define STR(x) STR_(x)

/* Every option is one the mapping knows, or refused by name; those taken with a note say so. */
static void check_known(struct mapping *m)
{
	const struct view *v = m->v;

	for (size_t i = 0; i < v->n; i++) {
		bool found;
		const char *nt = known_note(v->o[i]->key, &found);

		if (!found) {
			BAD(m, v->o[i], "fio option '%s' has no iomatrix equivalent", v->o[i]->key);
			continue;
		}
		if (nt && get(v, v->o[i]->key) == v->o[i])
			note(m->j, "%s", nt);
	}
}

static void map_kb_base(struct mapping *m, const struct opt *o)
{
	if (!o)
		return;
	if (!o->val || (strcmp(o->val, "1024") && strcmp(o->val, "1000")))
		BAD(m, o, "kb_base takes 1024 or 1000");
	else
		m->kb_base = (unsigned)atoi(o->val);
}

static void map_name(struct mapping *m, const struct opt *o)
{
	if (o && o->val)
		m->j->name = o->val;
}

static void map_description(struct mapping *m, const struct opt *o)
{
	if (o && o->val)
		m->j->description = xstrdup(o->val);
}

/* rw: the pattern and the mix; with rw or randrw, rwmixread or rwmixwrite (the read share
 * 100 - N) give the mix. */
static void map_rw(struct mapping *m, const struct opt *o)
{
	static const struct {
		const char *rw, *pattern;
		int read_pct; /* -1: rwmixread's */
	} rws[] = {
		{ "read", "sequential", 100 }, { "write", "sequential", 0 },
		{ "rw", "sequential", -1 }, { "readwrite", "sequential", -1 },
		{ "randread", "random", 100 }, { "randwrite", "random", 0 },
		{ "randrw", "random", -1 },
	};
	char base[32];
	uint64_t n;
	size_t k;

	if (!o)
		return;
	snprintf(base, sizeof(base), "%.*s", (int)strcspn(o->val ? o->val : "", ":"),
		 o->val ? o->val : "");
	for (k = 0; k < IOM_ARRAY_SIZE(rws); k++)
		if (strcmp(rws[k].rw, base) == 0)
			break;
	if (k == IOM_ARRAY_SIZE(rws)) {
		BAD(m, o, "rw=%s has no iomatrix equivalent (it takes read, write, rw, randread, "
		    "randwrite, randrw)", o->val ? o->val : "");
		return;
	}
	if (strchr(o->val, ':')) {
		BAD(m, o, "rw=%s: an offset modifier (':N', a hole or N I/Os per offset) has no "
		    "iomatrix equivalent", o->val);
		return;
	}
	m->random = strcmp(rws[k].pattern, "random") == 0;
	set(m->j, W_PATTERN, o, "\"%s\"", rws[k].pattern);
	if (rws[k].read_pct >= 0) {
		set(m->j, W_READ_PCT, o, "%d", rws[k].read_pct);
		return;
	}
	set(m->j, W_READ_PCT, o, "50");
	if ((o = get2(m->v, "rwmixread", "rwmixwrite"))) {
		if (iom_uint_parse(o->val, 100, &n) < 0)
			BAD(m, o, "%s takes a percentage, 0 to 100", o->key);
		else
			set(m->j, W_READ_PCT, o, "%" PRIu64,
			    strcmp(o->key, "rwmixread") == 0 ? n : 100 - n);
	}
}

static void map_random_pct(struct mapping *m, const struct opt *o)
{
	uint64_t n;

	if (!o)
		return;
	if (iom_uint_parse(o->val, 100, &n) < 0 || strchr(o->val, ','))
		BAD(m, o, "percentage_random takes one percentage, 0 to 100");
	else if (!m->random)
		BAD(m, o, "percentage_random with a sequential rw=: write rw=randread, "
		    "randwrite or randrw with it");
	else if (n < 100)
		set(m->j, W_RANDOM_PCT, o, "%" PRIu64, n);
}

/* bs: one size for reads and writes (bs=8k,8k and bs=8k, are one). */
static void map_bs(struct mapping *m, const struct opt *o)
{
	char sz[32], *c;
	uint64_t n;

	if (!o)
		return;
	c = o->val ? strchr(o->val, ',') : NULL;
	if (c && strcmp(c + 1, "") && strncmp(o->val, c + 1, (size_t)(c - o->val)))
		BAD(m, o, "bs=%s: separate block sizes for reads and writes have no iomatrix "
		    "equivalent", o->val);
	else if (!o->val || strpbrk(o->val, "-") ||
		 (c ? (*c = '\0', fio_size(o->val, m->kb_base, &n))
		    : fio_size(o->val, m->kb_base, &n)) < 0 ||
		 n == 0)
		BAD(m, o, "bs=%s is not one block size (a range has no iomatrix equivalent)",
		    o->val ? o->val : "");
	else {
		iom_size_format(n, sz, sizeof(sz));
		set(m->j, W_BLOCK_SIZE, o, "\"%s\"", sz);
	}
	if (c)
		*c = ',';
}

/* bssplit=4k/10:64k/50:32k/ → the lines of an access spec (percentages left blank share what
 * is left evenly, as fio does). */
static void map_bssplit(struct mapping *m, const struct opt *o)
{
	uint64_t bs[MAX_SPLIT];
	int pct[MAX_SPLIT];
	unsigned n = 0, blank = 0, sum = 0;
	struct iom_strbuf b = { 0 };
	char *copy, *save = NULL;
	bool ok = true;

	if (!o)
		return;
	if (!o->val || !*o->val) {
		BAD(m, o, "bssplit needs blocksize/percentage pairs such as 4k/10:64k/90");
		return;
	}
	if (strpbrk(o->val, ",")) {
		const char *c = strchr(o->val, ',');

		if (strncmp(o->val, c + 1, (size_t)(c - o->val)) != 0 || c[1 + (c - o->val)] != '\0') {
			BAD(m, o, "bssplit '%s': separate splits for reads and writes have no "
			    "iomatrix equivalent (an access spec line has one size for both)", o->val);
			return;
		}
	}
	copy = xasprintf("%.*s", (int)strcspn(o->val, ","), o->val);
	for (char *t = strtok_r(copy, ":", &save); t; t = strtok_r(NULL, ":", &save)) {
		char *slash = strchr(t, '/');
		uint64_t v;

		if (n == MAX_SPLIT) {
			free(copy);
			BAD(m, o, "bssplit: more than %d sizes (an access spec has at most %d lines)",
			    MAX_SPLIT, MAX_SPLIT);
			return;
		}
		if (slash)
			*slash = '\0';
		if (fio_size(t, m->kb_base, &v) < 0 || v == 0) {
			BAD(m, o, "bssplit: '%s' is not a block size", t);
			ok = false;
			break;
		}
		bs[n] = v;
		if (!slash || !slash[1]) {
			pct[n] = -1;
			blank++;
		} else if (iom_uint_parse(slash + 1, 100, &v) < 0) {
			BAD(m, o, "bssplit: '%s' is not a percentage (0 to 100)", slash + 1);
			ok = false;
			break;
		} else {
			pct[n] = (int)v;
			sum += (unsigned)v;
		}
		n++;
	}
	free(copy);
	if (!ok)
		return;
	if (sum > 100 || (!blank && sum != 100)) {
		BAD(m, o, "bssplit '%s': the percentages add up to %u, not 100", o->val, sum);
		return;
	}
	for (unsigned i = 0, given = 0; i < n; i++)
		if (pct[i] < 0) {
			/* fio spreads what is left evenly; the last blank takes the remainder */
			pct[i] = (int)((100 - sum) / blank) +
				 (++given == blank ? (int)((100 - sum) % blank) : 0);
		}
	for (unsigned i = 0; i < n; i++) {
		char sz[32];

		if (pct[i] == 0)
			continue;
		iom_size_format(bs[i], sz, sizeof(sz));
		iom_strbuf_printf(&b, "%s{ share = %d; block_size = \"%s\"; }", b.len ? ",\n    " : "",
				  pct[i], sz);
	}
	free(m->j->spec);
	m->j->spec = iom_strbuf_take(&b);
	set(m->j, W_ACCESS, o, "\"%s\"", "bssplit"); /* renamed when the specs are numbered */
}

/* rate: bytes per second of a job, the run's MB/s; not with rate_iops. */
static void map_rate(struct mapping *m, const struct opt *o)
{
	uint64_t n;

	if (o) {
		if (!o->val || strchr(o->val, ',') || fio_size(o->val, m->kb_base, &n) < 0 || n == 0)
			BAD(m, o, "rate takes one rate in bytes per second for reads and writes "
			    "together");
		else
			set(m->j, W_RATE_MB_S, o, "\"%.10g\"",
			    (double)n * (double)m->num[W_THREADS] / 1e6);
	}
	if (m->j->val[W_RATE_IOPS] && m->j->val[W_RATE_MB_S])
		BAD(m, get(m->v, "rate"), "rate with rate_iops: give one of the two");
}

static void map_distribution(struct mapping *m, const struct opt *o)
{
	const char *kind, *c;
	size_t klen;

	if (!o || !o->val)
		return;
	c = strchr(o->val, ':');
	kind = o->val;
	klen = c ? (size_t)(c - kind) : strlen(kind);
	if (klen == 6 && strncmp(kind, "random", 6) == 0 && !c)
		;
	else if (strchr(o->val, ','))
		BAD(m, o, "random_distribution=%s: separate read,write distributions have no "
		    "iomatrix equivalent", o->val);
	else if (c && ((klen == 4 && strncmp(kind, "zipf", 4) == 0) ||
		       (klen == 6 && strncmp(kind, "pareto", 6) == 0)) && !strchr(c + 1, ':'))
		set(m->j, W_DISTRIBUTION, o, "\"%s\"", o->val);
	else if (c && klen == 6 && strncmp(kind, "normal", 6) == 0 && !strchr(c + 1, ':'))
		set(m->j, W_DISTRIBUTION, o, "\"normal:%s%%\"", c + 1);
	else if (c && klen == 5 && strncmp(kind, "zoned", 5) == 0)
		set(m->j, W_DISTRIBUTION, o, "\"%s\"", o->val);
	else
		BAD(m, o, "random_distribution=%s has no iomatrix equivalent (random, zipf:T, "
		    "pareto:H, normal:S, zoned:... map; a second ':center' value does not)", o->val);
}

/* sync: dsync is iomatrix's write_through (O_DSYNC); sync and 1 (O_SYNC) are taken as it, with
 * a note. */
static void map_sync(struct mapping *m, const struct opt *o)
{
	if (!o || !o->val || strcmp(o->val, "none") == 0 || strcmp(o->val, "0") == 0)
		return;
	if (strcmp(o->val, "dsync") == 0) {
		set(m->j, W_WRITE_THROUGH, o, "true");
	} else if (strcmp(o->val, "sync") == 0 || strcmp(o->val, "1") == 0) {
		set(m->j, W_WRITE_THROUGH, o, "true");
		note(m->j, "sync=%s: O_SYNC in fio, O_DSYNC in iomatrix (write_through): the data is "
			   "as durable, file metadata other than the size is not waited for", o->val);
	} else {
		BAD(m, o, "sync takes none, 0, sync, 1 or dsync");
	}
}

/* The data written: buffer_compress_percentage, dedupe_percentage or zero_buffers, one of them. */
static void map_data(struct mapping *m, const struct opt *cp)
{
	const struct opt *dp = get(m->v, "dedupe_percentage");
	const struct opt *zb = get(m->v, "zero_buffers");
	const struct opt *one = cp ? cp : dp, *other = cp && dp ? dp : zb;
	uint64_t n;
	bool flag;

	if (one && other)
		BAD(m, one, "%s with %s: iomatrix's data is one of random, zeros, "
		    "compressible:N%% or dedupe:N%%", one->key, other->key);
	else if (cp) {
		if (iom_uint_parse(cp->val, 100, &n) < 0)
			BAD(m, cp, "buffer_compress_percentage takes a percentage, 0 to 100");
		else if (n)
			set(m->j, W_DATA, cp, "\"compressible:%" PRIu64 "%%\"", n);
	} else if (dp) {
		if (iom_uint_parse(dp->val, 100, &n) < 0)
			BAD(m, dp, "dedupe_percentage takes a percentage, 0 to 100");
		else if (n)
			set(m->j, W_DATA, dp, "\"dedupe:%" PRIu64 "%%\"", n);
	} else if (zb && fio_bool(zb, &flag) == 0 && flag) {
		set(m->j, W_DATA, zb, "\"zeros\"");
	}
}

static void map_offset(struct mapping *m, const struct opt *o)
{
	uint64_t n;

	if (o && (!o->val || fio_size(o->val, m->kb_base, &n) < 0 || n != 0))
		BAD(m, o, "offset=%s: iomatrix's region starts at offset 0 (size sets its end); "
		    "a non-zero offset has no equivalent", o->val ? o->val : "");
}

/* The target: filename under directory (without one fio's own name for the job's file), and its
 * size (without size= an existing file's). */
static void map_target(struct mapping *m, const struct opt *fn)
{
	const struct opt *o, *dir_opt = get(m->v, "directory");
	const char *dir = dir_opt && dir_opt->val ? dir_opt->val : ".";
	uint64_t numjobs = m->num[W_THREADS], size = 0;
	struct job *j = m->j;

	if (fn && fn->val && *fn->val) {
		if (strchr(fn->val, ':'))
			BAD(m, fn, "filename=%s: several files in one job have no iomatrix equivalent "
			    "(a target's paths give each thread one file)", fn->val);
		else
			j->path = fn->val[0] == '/' || !dir_opt ? xstrdup(fn->val)
								: xasprintf("%s/%s", dir, fn->val);
	} else {
		/* fio's own name for a job's file: jobname.jobnumber.filenumber */
		j->path = xasprintf("%s/%s.0.0", dir, j->name);
		if (numjobs > 1)
			note(j, "no filename: fio gives each of the %" PRIu64 " jobs of '%s' a file "
				"of its own; iomatrix's threads share %s", numjobs, j->name, j->path);
	}
	if ((o = get(m->v, "size"))) {
		if (!o->val || strchr(o->val, '%') || fio_size(o->val, m->kb_base, &size) < 0 ||
		    size == 0)
			BAD(m, o, "size=%s: give the size in bytes (a percentage of a device has no "
			    "iomatrix equivalent)", o->val ? o->val : "");
	}
	if (!j->path)
		j->path = xstrdup("");
	if (!size && strncmp(j->path, "/dev/", 5) != 0) {
		struct stat st;

		if (stat(j->path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
			size = (uint64_t)st.st_size;
		} else if (!m->bad) {
			m->bad = true;
			refuse(m->p, fn ? fn->file : m->sec->file, fn ? fn->line : m->sec->line,
			       "job '%s' has no size and '%s' is no file with data: give size=",
			       j->name, j->path);
		}
	}
	j->size = size;
}

/* The timing group: ramp_time the warm-up; runtime the duration (or without it the bytes fio's
 * jobs do, size x numjobs); loops the repeats. */
static void map_timing(struct mapping *m, const struct opt *runtime)
{
	const struct opt *o, *tb = get(m->v, "time_based");
	struct iom_strbuf t = { 0 };
	uint64_t warm = 0, ns = 0, n = 0;
	bool time_based = false;
	char d[32];

	if (tb && fio_bool(tb, &time_based) < 0)
		BAD(m, tb, "time_based takes 0 or 1");
	if ((o = get(m->v, "ramp_time")) && (!o->val || fio_time(o->val, &warm) < 0))
		BAD(m, o, "ramp_time takes a time such as 5s");
	iom_duration_format(warm, d, sizeof(d));
	iom_strbuf_printf(&t, "  warmup = \"%s\";%*s# %s\n", d, (int)(24 - strlen(d)), "",
			  o ? "ramp_time" : "fio's default: no ramp time");
	if (runtime) {
		if (!runtime->val || fio_time(runtime->val, &ns) < 0 || ns < 1000000) {
			BAD(m, runtime, "runtime takes a time of 1ms or more, such as 60s");
			ns = 1000000000ull;
		}
		iom_duration_format(ns, d, sizeof(d));
		iom_strbuf_printf(&t, "  duration = \"%s\";%*s# runtime%s\n", d,
				  (int)(22 - strlen(d)), "", time_based ? " (time_based)" : "");
		if (!time_based)
			note(m->j, "runtime without time_based: fio stops at size or runtime, "
				   "whichever comes first; iomatrix measures for the runtime");
	} else if (time_based) {
		BAD(m, tb, "time_based without runtime: fio would run until stopped; give "
		    "runtime=");
	} else if (m->j->spec) {
		BAD(m, get(m->v, "bssplit"), "bssplit in a job bound by size (no runtime): a run "
		    "with an access spec is timed in iomatrix; give runtime=");
	} else {
		char b[32];

		iom_size_format(m->j->size * m->num[W_THREADS], b, sizeof(b));
		iom_strbuf_printf(&t, "  bytes = \"%s\";%*s# size x numjobs: fio's jobs each do "
				  "size bytes\n", b, (int)(25 - strlen(b)), "");
	}
	if ((o = get(m->v, "loops")) && (iom_uint_parse(o->val, 1000, &n) < 0 || n == 0)) {
		BAD(m, o, "loops takes a whole number, 1 to 1000");
		o = NULL; /* with --lenient: one pass, as without loops */
	}
	if (o) {
		iom_strbuf_printf(&t, "  repeat = %" PRIu64 ";%*s# loops\n", n,
				  (int)(25 - snprintf(d, sizeof(d), "%" PRIu64, n)), "");
	} else {
		iom_strbuf_printf(&t, "  repeat = 1;\n");
	}
	m->j->timing = iom_strbuf_take(&t);
}

static void map_randseed(struct mapping *m, const struct opt *o)
{
	if (!o)
		return;
	if (iom_uint_parse(o->val, INT64_MAX, &m->j->seed) < 0)
		BAD(m, o, "randseed takes a whole number");
	m->j->seed_given = true;
}

/* How a row of the mapping reads its option. */
enum fio_read {
	FR_STEP,  /* its step reads it, and the options that go with it */
	FR_COUNT, /* a whole number, min to max; 0 (a min of 0) sets no key */
	FR_SIZE,  /* one size in fio's units (kb_base), min or more */
	FR_BOOL,  /* 1, 0, true, false or a bare flag; the alias says it the other way round */
	FR_WORD,  /* one of the row's words */
};

struct fio_word {
	const char *fio, *iom; /* iom NULL: taken, the key left as it is */
};

static const struct fio_word engine_words[] = {
	{ "io_uring", "io_uring" }, { "libaio", "libaio" }, { "psync", "psync" },
	{ "sync", "psync" }, { "pvsync", "psync" }, { "null", "null" }, { NULL, NULL },
};

static const struct fio_word arrival_words[] = {
	{ "linear", NULL }, { "poisson", "poisson" }, { NULL, NULL },
};

/* One row of the mapping: an option (and the other spelling fio takes), how its value is read
 * and the workload key it sets; or the step that maps it. */
struct fio_row {
	const char *name, *alias;
	enum fio_read read;
	enum wk key;
	uint64_t min, max;            /* FR_COUNT, FR_SIZE (max: FR_COUNT) */
	bool per_job;                 /* FR_COUNT: fio's value is a job's, the key the run's (x numjobs) */
	const char *on, *off;         /* FR_BOOL: the key's value either way (NULL: not set) */
	const struct fio_word *words; /* FR_WORD: up to { NULL } */
	const char *takes;            /* the refusal: "NAME takes TAKES" ("NAME=VALUE TAKES") */
	bool says_value;
	void (*step)(struct mapping *m, const struct opt *o); /* FR_STEP; o NULL when not set */
};

/* The mapping, in the order a job's options are read (later rows use what earlier ones read:
 * rw the randomness, numjobs the threads, kb_base the sizes). */
static const struct fio_row fio_rows[] = {
	{ "kb_base", NULL, FR_STEP, .step = map_kb_base },
	{ "name", NULL, FR_STEP, .step = map_name },
	{ "description", NULL, FR_STEP, .step = map_description },
	{ "rw", "readwrite", FR_STEP, .step = map_rw },
	{ "percentage_random", NULL, FR_STEP, .step = map_random_pct },
	{ "bs", "blocksize", FR_STEP, .step = map_bs },
	{ "bssplit", NULL, FR_STEP, .step = map_bssplit },
	{ "blockalign", "ba", FR_SIZE, W_ALIGN, .takes = "one size" },
	{ "iodepth", NULL, FR_COUNT, W_QUEUE_DEPTH, 1, IOM_QUEUE_DEPTH_MAX,
	  .takes = "a whole number, 1 to " STR(IOM_QUEUE_DEPTH_MAX) },
	{ "numjobs", NULL, FR_COUNT, W_THREADS, 1, 1024,
	  .takes = "a whole number, 1 to 1024 (iomatrix's threads)" },
	{ "ioengine", NULL, FR_WORD, W_ENGINE, .words = engine_words, .says_value = true,
	  .takes = "has no iomatrix engine (io_uring, libaio, psync, sync, pvsync, null map)" },
	{ "direct", "buffered", FR_BOOL, W_DIRECT, .on = "true", .off = "false", .takes = "0 or 1" },
	{ "rate_iops", NULL, FR_COUNT, W_RATE_IOPS, 1, 100000000, .per_job = true,
	  .takes = "one rate for reads and writes together (separate read,write rates have no "
		   "iomatrix equivalent)" },
	{ "rate", NULL, FR_STEP, .step = map_rate },
	{ "rate_process", NULL, FR_WORD, W_ARRIVALS, .words = arrival_words,
	  .takes = "linear or poisson" },
	{ "random_distribution", NULL, FR_STEP, .step = map_distribution },
	{ "fsync", NULL, FR_COUNT, W_FSYNC_EVERY, 0, 1000000,
	  .takes = "a number of writes, 0 to 1000000" },
	{ "sync", NULL, FR_STEP, .step = map_sync },
	{ "dsync", NULL, FR_BOOL, W_WRITE_THROUGH, .on = "true", .takes = "0 or 1" },
	{ "buffer_compress_percentage", NULL, FR_STEP, .step = map_data },
	{ "offset", NULL, FR_STEP, .step = map_offset },
	{ "filename", NULL, FR_STEP, .step = map_target },
	{ "runtime", NULL, FR_STEP, .step = map_timing },
	{ "randseed", NULL, FR_STEP, .step = map_randseed },
};

/* fio's defaults, written as such ("fio's default") where the job sets nothing. */
static const char *const fio_default[W_COUNT] = {
	[W_BLOCK_SIZE] = "\"4K\"", [W_PATTERN] = "\"sequential\"", [W_READ_PCT] = "100",
	[W_QUEUE_DEPTH] = "1", [W_THREADS] = "1", [W_ENGINE] = "\"psync\"", [W_DIRECT] = "false",
};

/* Option o read as row r says, and the row's key set from it; or the refusal. */
static void map_row(struct mapping *m, const struct fio_row *r, const struct opt *o)
{
	uint64_t n;
	char sz[32];
	bool on;

	switch (r->read) {
	case FR_STEP:
		return;
	case FR_COUNT:
		if (iom_uint_parse(o->val, r->max, &n) < 0 || n < r->min)
			break;
		m->num[r->key] = n;
		if (n)
			set(m->j, r->key, o, "%" PRIu64, r->per_job ? n * m->num[W_THREADS] : n);
		return;
	case FR_SIZE:
		if (!o->val || fio_size(o->val, m->kb_base, &n) < 0 || n < r->min)
			break;
		iom_size_format(n, sz, sizeof(sz));
		set(m->j, r->key, o, "\"%s\"", sz);
		return;
	case FR_BOOL:
		if (fio_bool(o, &on) < 0)
			break;
		if (strcmp(o->key, r->name) != 0)
			on = !on;
		if (on ? r->on : r->off)
			set(m->j, r->key, o, "%s", on ? r->on : r->off);
		return;
	case FR_WORD:
		for (const struct fio_word *w = r->words; o->val && w->fio; w++)
			if (strcmp(w->fio, o->val) == 0) {
				if (w->iom)
					set(m->j, r->key, o, "\"%s\"", w->iom);
				return;
			}
		break;
	}
	if (r->says_value)
		BAD(m, o, "%s=%s %s", o->key, o->val ? o->val : "", r->takes);
	else
		BAD(m, o, "%s takes %s", o->key, r->takes);
}

/* Maps one job (its resolved view) into j, row by row. Returns true when an option was
 * refused. */
static bool map_job(struct parse *p, const struct section *sec, const struct view *v,
		    struct job *j)
{
	struct mapping m = { .p = p, .sec = sec, .v = v, .j = j, .kb_base = 1024 };

	j->name = sec->name;
	j->file = sec->file;
	j->line = sec->line;
	check_known(&m);
	for (int k = 0; k < W_COUNT; k++)
		if (fio_default[k])
			set(j, (enum wk)k, NULL, "%s", fio_default[k]);
	m.num[W_THREADS] = 1;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(fio_rows); i++) {
		const struct fio_row *r = &fio_rows[i];
		const struct opt *o = get2(v, r->name, r->alias);

		if (r->step)
			r->step(&m, o);
		else if (o)
			map_row(&m, r, o);
	}
	return m.bad;
}

/* ---- jobs into one matrix ----------------------------------------------------------------- */

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The job's value of key k as the matrix would hold it (its default when it sets none). */
static const char *value_of(const struct job *j, enum wk k)
{
	return j->val[k] ? j->val[k] : "";
}

static void add_comment_lines(struct iom_strbuf *b, const char *title, char **lines, size_t n)
{
	if (!n)
		return;
	iom_strbuf_printf(b, "#\n# %s\n", title);
	for (size_t i = 0; i < n; i++) {
		iom_strbuf_str(b, "#   ");
		for (const char *c = lines[i]; *c; c++)
			iom_strbuf_add(b, *c == '\n' ? " " : c, 1);
		iom_strbuf_str(b, "\n");
	}
}

/* What the jobs come to together: their distinct targets and access specs, the keys in which
 * they differ (the dimensions) and how many cells those make. */
struct cells {
	char **paths;     /* the targets, borrowed from the jobs */
	uint64_t *sizes;
	size_t npaths;
	char **specs;     /* the access specs (bssplit), borrowed */
	size_t nspecs;
	bool differs[W_COUNT];
	uint64_t combos;  /* the product of the dimensions' lengths, the targets' among them */
};

static void cells_release(struct cells *c)
{
	free(c->paths);
	free(c->sizes);
	free(c->specs);
}

/* The distinct targets (a target has one size) and access specs; each job's target is their
 * index, its access the name of its spec. 0, or -EINVAL with err. */
static int group_targets(struct cells *c, struct job *jobs, size_t njobs, char *err,
			 size_t errlen)
{
	for (size_t i = 0; i < njobs; i++) {
		size_t t;

		for (t = 0; t < c->npaths; t++)
			if (strcmp(c->paths[t], jobs[i].path) == 0)
				break;
		if (t == c->npaths) {
			c->paths = xrealloc(c->paths, (c->npaths + 1) * sizeof(*c->paths));
			c->sizes = xrealloc(c->sizes, (c->npaths + 1) * sizeof(*c->sizes));
			c->paths[c->npaths] = jobs[i].path;
			c->sizes[c->npaths++] = jobs[i].size;
		} else if (c->sizes[t] != jobs[i].size) {
			return iom_err(err, errlen, EINVAL, "%s:%u: job '%s' gives '%s' a size other "
				       "than an earlier job's: a target has one size", jobs[i].file,
				       jobs[i].line, jobs[i].name, jobs[i].path);
		}
		jobs[i].target = (unsigned)t;
		if (jobs[i].spec) {
			size_t s;

			for (s = 0; s < c->nspecs; s++)
				if (strcmp(c->specs[s], jobs[i].spec) == 0)
					break;
			if (s == c->nspecs) {
				c->specs = xrealloc(c->specs, (c->nspecs + 1) * sizeof(*c->specs));
				c->specs[c->nspecs++] = jobs[i].spec;
			}
			free(jobs[i].val[W_ACCESS]);
			jobs[i].val[W_ACCESS] = xasprintf("\"bssplit%s%.0zu\"", s ? "-" : "", s ? s + 1 : 0);
		}
	}
	c->combos = c->npaths > 1 ? c->npaths : 1;
	return 0;
}

/* The dimensions: the keys in which jobs differ. A job that leaves such a key at its default
 * gets the default written out, so that every job has a value in the list. */
static void group_dimensions(struct cells *c, struct job *jobs, size_t njobs)
{
	for (int k = 0; k < W_COUNT; k++) {
		const char **vals = xcalloc(njobs, sizeof(*vals));
		size_t nv = 0;

		for (size_t i = 0; i < njobs; i++) {
			size_t x;

			for (x = 0; x < nv; x++)
				if (strcmp(vals[x], value_of(&jobs[i], (enum wk)k)) == 0)
					break;
			if (x == nv)
				vals[nv++] = value_of(&jobs[i], (enum wk)k);
		}
		free(vals);
		c->differs[k] = nv > 1;
		if (nv < 2)
			continue;
		c->combos *= nv;
		for (size_t i = 0; i < njobs; i++)
			if (!jobs[i].val[k]) {
				const struct iom_key *key = iom_key_find(IOM_SEC_WORKLOAD, wk_name[k]);
				bool str = key && key->type != IOM_TYPE_UINT &&
					   key->type != IOM_TYPE_PCT && key->type != IOM_TYPE_BOOL;

				jobs[i].val[k] = str ? xasprintf("\"%s\"", key->def)
						     : xstrdup(key ? key->def : "0");
				jobs[i].why[k] = xstrdup("fio's default");
			}
	}
}

/* The jobs as the cells of one matrix: one timing and one seed, no cell twice, and every
 * combination of the dimensions' values. 0, or -EINVAL with err. */
static int check_product(const struct cells *c, const char *path, const struct job *jobs,
			 size_t njobs, char *err, size_t errlen)
{
	struct iom_strbuf d = { 0 };
	int ret;

	for (size_t i = 1; i < njobs; i++) {
		if (!same(jobs[i].timing, jobs[0].timing))
			return iom_err(err, errlen, EINVAL, "%s:%u: job '%s' is timed otherwise than "
				       "job '%s' (%s:%u): the cells of one matrix share runtime, "
				       "ramp_time, size-bound bytes and loops", jobs[i].file,
				       jobs[i].line, jobs[i].name, jobs[0].name, jobs[0].file,
				       jobs[0].line);
		if (jobs[i].seed_given != jobs[0].seed_given || jobs[i].seed != jobs[0].seed)
			return iom_err(err, errlen, EINVAL, "%s:%u: job '%s' has another randseed "
				       "than job '%s': a matrix has one seed", jobs[i].file,
				       jobs[i].line, jobs[i].name, jobs[0].name);
		for (size_t e = 0; e < i; e++) {
			bool dup = jobs[e].target == jobs[i].target;

			for (int k = 0; k < W_COUNT && dup; k++)
				dup = same(jobs[e].val[k], jobs[i].val[k]);
			if (dup && njobs == c->combos)
				return iom_err(err, errlen, EINVAL, "%s:%u: job '%s' is the same cell "
					       "as job '%s' (%s:%u)", jobs[i].file, jobs[i].line,
					       jobs[i].name, jobs[e].name, jobs[e].file, jobs[e].line);
		}
	}
	if (c->combos == 1 && njobs > 1)
		return iom_err(err, errlen, EINVAL, "%s:%u: job '%s' is the same cell as job '%s' "
			       "(%s:%u): fio runs such jobs at once, as numjobs does; write one job "
			       "with numjobs=%zu (iomatrix's threads)", jobs[1].file, jobs[1].line,
			       jobs[1].name, jobs[0].name, jobs[0].file, jobs[0].line, njobs);
	if (c->combos == njobs)
		return 0;
	for (int k = 0; k < W_COUNT; k++)
		if (c->differs[k])
			iom_strbuf_printf(&d, "%s%s", d.len ? ", " : "", wk_name[k]);
	if (c->npaths > 1)
		iom_strbuf_printf(&d, "%starget", d.len ? ", " : "");
	ret = iom_err(err, errlen, EINVAL, "%s: the %zu jobs differ in %s but are not every "
		      "combination of their values (%" PRIu64 "): a matrix's dimensions are a full "
		      "product; write one job file per group of jobs", path, njobs,
		      d.s ? d.s : "nothing", c->combos);
	iom_strbuf_release(&d);
	return ret;
}

/* The matrix's head: where it came from, the notes of every job (once each), what --lenient
 * kept, the name, description and seed. */
static void write_header(struct iom_strbuf *b, const struct parse *p, const char *path,
			 const struct job *jobs, size_t njobs)
{
	struct iom_strbuf n = { 0 };
	bool concurrent = njobs > 1;
	char name[65], *qn, *desc, *qd;

	iom_strbuf_printf(b, "# Imported from the fio job file %s by 'iomatrix import': %zu job%s",
			  path, njobs, njobs == 1 ? "" : "s");
	for (size_t i = 0; i < njobs; i++)
		iom_strbuf_printf(b, "%s'%s' (line %u)", i ? ", " : " ", jobs[i].name, jobs[i].line);
	iom_strbuf_str(b, ".\n# Each job is a cell; the options the jobs differ in are its "
			  "dimensions.\n");
	for (size_t i = 0; i < njobs; i++) {
		if (!jobs[i].notes)
			continue;
		if (!n.s || !strstr(n.s, jobs[i].notes))
			iom_strbuf_str(&n, jobs[i].notes);
	}
	for (size_t i = 1; i < p->nsecs && concurrent; i++)
		for (size_t o = 0; o < p->secs[i].nopts; o++)
			if (strcmp(p->secs[i].opts[o].key, "stonewall") == 0 ||
			    strcmp(p->secs[i].opts[o].key, "wait_for_previous") == 0)
				concurrent = false;
	if (concurrent)
		iom_strbuf_str(&n, "#   - fio runs jobs without stonewall at the same time; "
				   "iomatrix runs each cell alone, one after another\n");
	if (n.s)
		iom_strbuf_printf(b, "#\n# Notes:\n%s", n.s);
	iom_strbuf_release(&n);
	add_comment_lines(b, "Not imported (--lenient: fio options with no iomatrix equivalent):",
			  p->kept, p->nkept);

	iom_preset_label(path, name, sizeof(name));
	{
		char *dot = strrchr(name, '.');

		if (dot && dot != name)
			*dot = '\0';
	}
	qn = iom_preset_quote(name);
	desc = xasprintf("fio job file %s", path);
	qd = iom_preset_quote(jobs[0].description && njobs == 1 ? jobs[0].description : desc);
	iom_strbuf_printf(b, "\niomatrix = 1;\nname = %s;\ndescription = %s;\n", qn, qd);
	free(qn);
	free(qd);
	free(desc);
	if (jobs[0].seed_given)
		iom_strbuf_printf(b, "seed = %" PRIu64 ";                          # randseed\n",
				  jobs[0].seed);
}

/* The access specs (bssplit) and the targets, each labelled after its file (-N when two
 * files' labels are the same). */
static void write_targets(struct iom_strbuf *b, const struct cells *c)
{
	char label[64];

	if (c->nspecs) {
		iom_strbuf_str(b, "\naccess_specs = {                          # bssplit\n");
		for (size_t s = 0; s < c->nspecs; s++)
			iom_strbuf_printf(b, "  bssplit%s%.0zu = ( %s );\n", s ? "-" : "",
					  s ? s + 1 : 0, c->specs[s]);
		iom_strbuf_str(b, "};\n");
	}
	iom_strbuf_str(b, "\ntargets = (\n");
	for (size_t t = 0; t < c->npaths; t++) {
		char *q = iom_preset_quote(c->paths[t]), sz[32];
		const char *sep = t + 1 < c->npaths ? "," : "";

		iom_preset_label(c->paths[t], label, sizeof(label));
		for (size_t u = 0; u < t; u++) {
			char other[64];

			iom_preset_label(c->paths[u], other, sizeof(other));
			if (strcmp(other, label) == 0) {
				size_t l = strlen(label);

				snprintf(label + IOM_MIN(l, sizeof(label) - 8), 8, "-%u",
					 (unsigned)(t + 1) % 100000u);
				break;
			}
		}
		iom_size_format(c->sizes[t], sz, sizeof(sz));
		if (c->sizes[t])
			iom_strbuf_printf(b, "  { label = \"%s\"; path = %s; size = \"%s\"; }%s   # "
					  "filename, size\n", label, q, sz, sep);
		else
			iom_strbuf_printf(b, "  { label = \"%s\"; path = %s; }%s   # filename: a "
					  "device, whole (writes need destructive = true)\n", label, q,
					  sep);
		free(q);
	}
	iom_strbuf_str(b, ");\n");
}

/* The workload: each key a job sets, as one value or (a dimension) as the list of the jobs'
 * values in the order they first appear, with the options they came from. */
static void write_workload(struct iom_strbuf *b, const struct cells *c, const struct job *jobs,
			   size_t njobs)
{
	iom_strbuf_str(b, "\nworkload = {\n");
	for (int k = 0; k < W_COUNT; k++) {
		struct iom_strbuf kv = { 0 }, why = { 0 };

		if (!c->differs[k]) {
			if (!jobs[0].val[k] || (!wk_always[k] && !jobs[0].why[k]))
				continue;
			iom_strbuf_printf(&kv, "%s = %s;", wk_name[k], jobs[0].val[k]);
			iom_strbuf_str(&why, jobs[0].why[k]);
		} else {
			iom_strbuf_printf(&kv, "%s = (", wk_name[k]);
			for (size_t i = 0, nv = 0; i < njobs; i++) {
				bool seen = false;

				for (size_t e = 0; e < i && !seen; e++)
					seen = strcmp(jobs[e].val[k], jobs[i].val[k]) == 0;
				if (seen)
					continue;
				iom_strbuf_printf(&kv, "%s%s", nv++ ? ", " : " ", jobs[i].val[k]);
				iom_strbuf_printf(&why, "%s%s: %s", why.len ? "; " : "", jobs[i].name,
						  jobs[i].why[k]);
			}
			iom_strbuf_str(&kv, " );");
		}
		iom_strbuf_printf(b, "  %-40s # %s\n", kv.s, why.s ? why.s : "");
		iom_strbuf_release(&kv);
		iom_strbuf_release(&why);
	}
	iom_strbuf_str(b, "};\n");
}

/* Builds the matrix text from the jobs: grouped into targets and dimensions, checked as a full
 * product, then written. 0, or -EINVAL with err (jobs that cannot be cells of one matrix). */
static int build(struct parse *p, const char *path, struct job *jobs, size_t njobs,
		 char **text, char *err, size_t errlen)
{
	struct cells c = { 0 };
	struct iom_strbuf b = { 0 };
	int ret;

	if ((ret = group_targets(&c, jobs, njobs, err, errlen)) < 0)
		goto out;
	group_dimensions(&c, jobs, njobs);
	if ((ret = check_product(&c, path, jobs, njobs, err, errlen)) < 0)
		goto out;
	write_header(&b, p, path, jobs, njobs);
	write_targets(&b, &c);
	write_workload(&b, &c, jobs, njobs);
	iom_strbuf_printf(&b, "\ntiming = {\n%s};\n", jobs[0].timing);
	*text = iom_strbuf_take(&b);
out:
	cells_release(&c);
	return ret;
}

int iom_import_fio(const char *path, const char *buf, bool lenient, struct iom_import *im,
		   char *err, size_t errlen)
{
	struct parse p = { .im = im, .lenient = lenient };
	struct job *jobs = NULL;
	size_t njobs = 0;
	bool bad = false;
	int ret;

	if ((ret = parse_text(&p, path, buf, 0, err, errlen)) < 0)
		goto out;
	for (size_t i = 0; i < p.nsecs; i++) {
		struct view v = { 0 };

		if (p.secs[i].global)
			continue;
		for (size_t g = 0; g < i; g++)
			if (p.secs[g].global)
				for (size_t o = 0; o < p.secs[g].nopts; o++) {
					v.o = xrealloc(v.o, (v.n + 1) * sizeof(*v.o));
					v.o[v.n++] = &p.secs[g].opts[o];
				}
		for (size_t o = 0; o < p.secs[i].nopts; o++) {
			v.o = xrealloc(v.o, (v.n + 1) * sizeof(*v.o));
			v.o[v.n++] = &p.secs[i].opts[o];
		}
		jobs = xrealloc(jobs, (njobs + 1) * sizeof(*jobs));
		memset(&jobs[njobs], 0, sizeof(*jobs));
		bad |= map_job(&p, &p.secs[i], &v, &jobs[njobs++]);
		free(v.o);
	}
	if (!njobs) {
		ret = iom_err(err, errlen, EINVAL, "%s: no job: a fio job file needs a [section] "
			      "other than [global]", path);
		goto out;
	}
	if (bad && !lenient) {
		ret = iom_err(err, errlen, EINVAL, "%s: %zu fio option%s with no iomatrix "
			      "equivalent (--lenient keeps them as comments)", path, im->nproblems,
			      im->nproblems == 1 ? "" : "s");
		goto out;
	}
	ret = build(&p, path, jobs, njobs, &im->text, err, errlen);
out:
	for (size_t i = 0; i < njobs; i++)
		job_release(&jobs[i]);
	free(jobs);
	parse_release(&p);
	return ret;
}
