/* SPDX-License-Identifier: MIT */
/*
 * import_icf — an IOMeter configuration file (.icf) in, a matrix out (import.h).
 *
 * The file is sections of lines: a line that starts with ' is a heading (or the column names of
 * the values below it), the lines after it, indented, are its values. Read from it:
 *   - 'ACCESS SPECIFICATIONS: each 'Access specification name,default assignment' and its
 *     lines 'size,% of size,% reads,% random,delay,burst,align,reply' → access_specs (share =
 *     % of size, block_size = size, read_pct, random_pct, align; delay 0, burst 1 and reply 0
 *     are the only values with an equivalent);
 *   - the workers' 'Assigned access specs' → the access dimension (every spec when none is
 *     assigned); the disk workers → threads; their 'Number of outstanding IOs' → queue_depth;
 *   - 'TEST SETUP: 'Run Time' → duration, 'Ramp Up Time (s)' → warmup, and with 'Test Type'
 *     CYCLE_OUTSTANDING_IOS the 'Queue Depth Cycling' (start, end, step, LINEAR or
 *     EXPONENTIAL) → queue_depth as a list.
 * IOMeter's targets are Windows disks: the matrix gets a scratch file iobw.tst (IOMeter's own
 * test file's name) of 'Disk maximum size' sectors (1G when 0), to be edited. Test types that
 * cycle workers, targets or disks, network workers, and spec lines with delays, bursts or
 * replies are problems with their line.
 */
#include "import_in.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "strbuf.h"
#include "units.h"
#include "util.h"

#define MAX_SPECS 64
#define MAX_LINES 16

struct line {
	char *text;
	unsigned no;
};

struct spec {
	char *name;     /* as IOMeter names it */
	char ident[72]; /* as the matrix names it */
	unsigned line;
	struct iom_strbuf body;
	unsigned nlines;
};

struct icf {
	const char *path;
	struct line *l;
	size_t n;
	struct iom_import *im;
	bool lenient, bad;
	struct iom_strbuf kept;
};

static void problem(struct icf *f, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void problem(struct icf *f, unsigned line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	iom_import_problem(f->im, f->path, line, "%s", msg);
	if (f->lenient)
		iom_strbuf_printf(&f->kept, "#   %s:%u: %s\n", f->path, line, msg);
	else
		f->bad = true;
}

/* The index of the first heading at or after from that starts with h; n when none. */
static size_t heading(const struct icf *f, size_t from, const char *h)
{
	for (size_t i = from; i < f->n; i++)
		if (f->l[i].text[0] == '\'' && strncmp(f->l[i].text + 1, h, strlen(h)) == 0)
			return i;
	return f->n;
}

/* The first value line after heading i (skipping column-name headings); NULL when none. */
static const struct line *value(const struct icf *f, size_t i)
{
	for (size_t k = i + 1; k < f->n; k++) {
		if (f->l[k].text[0] != '\'')
			return &f->l[k];
		if (!isspace((unsigned char)f->l[k].text[1]))
			return NULL; /* the next heading: no value */
	}
	return NULL;
}

static int split(char *s, const char *sep, char **out, int max)
{
	int n = 0;
	char *save = NULL;

	for (char *t = strtok_r(s, sep, &save); t && n < max; t = strtok_r(NULL, sep, &save))
		out[n++] = iom_trim(t);
	return n;
}

static bool num(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !*end && errno == 0 && *v <= max;
}

static void make_ident(const char *name, char *buf, size_t len)
{
	size_t o = 0;
	bool dash = false;

	if (!isalpha((unsigned char)*name))
		o = (size_t)snprintf(buf, len, "spec-");
	for (const char *c = name; *c && o + 2 < len; c++) {
		if (isalnum((unsigned char)*c) || *c == '_') {
			buf[o++] = *c;
			dash = false;
		} else if (!dash && o) {
			buf[o++] = '-';
			dash = true;
		}
	}
	while (o && buf[o - 1] == '-')
		o--;
	buf[o] = '\0';
	if (!o)
		snprintf(buf, len, "spec");
}

/* The access specifications section into specs. */
static size_t read_specs(struct icf *f, struct spec *specs)
{
	size_t start = heading(f, 0, "ACCESS SPECIFICATIONS"), end = heading(f, start, "END access");
	size_t n = 0;

	for (size_t i = start + 1; i < end; i++) {
		char *cols[16], *copy;
		int nc;

		if (strncmp(f->l[i].text, "'Access specification name", 26) == 0) {
			const struct line *v = value(f, i);

			if (!v)
				continue;
			if (n == MAX_SPECS) {
				problem(f, v->no, "more than %d access specifications", MAX_SPECS);
				break;
			}
			copy = xstrdup(v->text);
			nc = split(copy, ",", cols, 16);
			specs[n] = (struct spec){ .name = xstrdup(nc ? cols[0] : ""), .line = v->no };
			make_ident(specs[n].name, specs[n].ident, sizeof(specs[n].ident));
			for (size_t k = 0; k < n; k++)
				if (strcmp(specs[k].ident, specs[n].ident) == 0)
					snprintf(specs[n].ident + IOM_MIN(strlen(specs[n].ident), 60u), 8,
						 "-%u", (unsigned)(n + 1) % 1000u);
			free(copy);
			n++;
			continue;
		}
		if (f->l[i].text[0] == '\'' || !n)
			continue;
		if (i > 0 && f->l[i - 1].text[0] == '\'' &&
		    strncmp(f->l[i - 1].text, "'Access specification name", 26) == 0)
			continue; /* the name line */
		{
			uint64_t size, share, reads, rnd, delay, burst, align, reply;
			struct spec *s = &specs[n - 1];
			char sz[32];

			copy = xstrdup(f->l[i].text);
			nc = split(copy, ",", cols, 16);
			if (nc != 8 || !num(cols[0], 64u << 20, &size) || !num(cols[1], 100, &share) ||
			    !num(cols[2], 100, &reads) || !num(cols[3], 100, &rnd) ||
			    !num(cols[4], UINT32_MAX, &delay) || !num(cols[5], UINT32_MAX, &burst) ||
			    !num(cols[6], 64u << 20, &align) || !num(cols[7], UINT32_MAX, &reply)) {
				problem(f, f->l[i].no, "'%s' is not an access spec line (size,%% of size,"
					"%% reads,%% random,delay,burst,align,reply)", f->l[i].text);
			} else if (delay || burst > 1 || reply) {
				problem(f, f->l[i].no, "access spec '%s': a line with delay %" PRIu64
					" ms, burst %" PRIu64 ", reply %" PRIu64 " has no iomatrix "
					"equivalent (delay 0, burst 1, reply 0 only)", s->name, delay, burst,
					reply);
			} else if (share) {
				if (s->nlines == MAX_LINES) {
					problem(f, f->l[i].no, "access spec '%s' has more than %d lines",
						s->name, MAX_LINES);
				} else {
					iom_size_format(size, sz, sizeof(sz));
					iom_strbuf_printf(&s->body, "%s{ share = %" PRIu64 "; block_size = "
							  "\"%s\"; read_pct = %" PRIu64 "; random_pct = %"
							  PRIu64 ";", s->nlines ? ",\n      " : "", share, sz,
							  reads, rnd);
					if (align && align != size) {
						iom_size_format(align, sz, sizeof(sz));
						iom_strbuf_printf(&s->body, " align = \"%s\";", sz);
					}
					iom_strbuf_str(&s->body, " }");
					s->nlines++;
				}
			}
			free(copy);
		}
	}
	return n;
}

/* What the test setup and the workers say. */
struct setup {
	uint64_t duration, warmup; /* ns; a duration of 0: IOMeter's "until stopped" */
	struct iom_strbuf qd;      /* 'Queue Depth Cycling' as a list, or empty */
	unsigned workers;          /* the disk workers */
	uint64_t outstanding;      /* 'Number of outstanding IOs' */
	uint64_t disk_sectors;     /* the first 'Disk maximum size' given; 0: the whole disk */
	struct iom_strbuf used;    /* the assigned access specs, a line each */
};

/* The file's lines, trimmed, without the empty ones; text is the caller's copy, cut up. */
static void read_lines(struct icf *f, char *text)
{
	char *save = NULL;
	unsigned lineno = 0;

	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *t;

		lineno++;
		t = iom_trim(l);
		if (!*t)
			continue;
		f->l = xrealloc(f->l, (f->n + 1) * sizeof(*f->l));
		f->l[f->n++] = (struct line){ .text = t, .no = lineno };
	}
}

/* 'Queue Depth Cycling' (start, end, step, LINEAR or EXPONENTIAL) as the list of its depths,
 * for the CYCLE_OUTSTANDING_IOS test type (on line type_line). */
static void read_qd_cycling(struct icf *f, unsigned type_line, struct setup *s)
{
	size_t i = heading(f, 0, "Queue Depth Cycling");
	const struct line *val = i < f->n ? value(f, i) : NULL;
	uint64_t start, end, step;
	char *c, *cols[8];
	int nc;

	if (!val) {
		problem(f, type_line, "CYCLE_OUTSTANDING_IOS without 'Queue Depth Cycling'");
		return;
	}
	c = xstrdup(val->text);
	nc = split(c, " \t", cols, 4);
	if (nc != 4 || !num(cols[0], IOM_QUEUE_DEPTH_MAX, &start) ||
	    !num(cols[1], IOM_QUEUE_DEPTH_MAX, &end) || !num(cols[2], IOM_QUEUE_DEPTH_MAX, &step) ||
	    !start || start > end || (strcmp(cols[3], "LINEAR") && strcmp(cols[3], "EXPONENTIAL")) ||
	    (strcmp(cols[3], "LINEAR") == 0 ? step == 0 : step < 2)) {
		problem(f, val->no, "'Queue Depth Cycling' takes start, end, step and LINEAR or "
			"EXPONENTIAL (step 2 or more)");
	} else {
		for (uint64_t q = start; q <= end;
		     q = strcmp(cols[3], "LINEAR") == 0 ? q + step : q * step)
			iom_strbuf_printf(&s->qd, "%s%" PRIu64, s->qd.len ? ", " : "", q);
	}
	free(c);
}

/* The test setup: 'Run Time', 'Ramp Up Time (s)' and the test type (NORMAL, or
 * CYCLE_OUTSTANDING_IOS with its queue depths). */
static void read_setup(struct icf *f, struct setup *s)
{
	const struct line *val;
	const char *type = "NORMAL";
	unsigned type_line = 0;
	char *cols[8];
	size_t i;

	if ((i = heading(f, 0, "Run Time")) < f->n && (val = value(f, i))) {
		char *c = xstrdup(val->text);
		uint64_t h, m, sec;

		if (split(c, " \t", cols, 3) != 3 || !num(cols[0], 720, &h) || !num(cols[1], 59, &m) ||
		    !num(cols[2], 59, &sec))
			problem(f, val->no, "'Run Time' takes hours, minutes and seconds");
		else
			s->duration = (h * 3600 + m * 60 + sec) * 1000000000ull;
		free(c);
	}
	if ((i = heading(f, 0, "Ramp Up Time")) < f->n && (val = value(f, i))) {
		if (!num(val->text, 86400, &s->warmup))
			problem(f, val->no, "'Ramp Up Time (s)' takes seconds");
		s->warmup *= 1000000000ull;
	}
	if ((i = heading(f, 0, "Test Type")) < f->n && (val = value(f, i))) {
		type = val->text;
		type_line = val->no;
	}
	if (strcmp(type, "CYCLE_OUTSTANDING_IOS") == 0)
		read_qd_cycling(f, type_line, s);
	else if (strcmp(type, "NORMAL") != 0)
		problem(f, type_line, "test type %s has no iomatrix equivalent (NORMAL and "
			"CYCLE_OUTSTANDING_IOS map: a queue_depth list)", type);
}

/* The manager list: the disk workers, their outstanding I/Os, disk size and assigned specs. */
static void read_workers(struct icf *f, struct setup *s)
{
	const struct line *val;
	char *cols[8];
	uint64_t v;

	for (size_t i = heading(f, 0, "MANAGER LIST"); i < f->n; i++) {
		if (strcmp(f->l[i].text, "'Worker type") == 0 && (val = value(f, i))) {
			if (strcmp(val->text, "DISK") == 0)
				s->workers++;
			else
				problem(f, val->no, "a %s worker has no iomatrix equivalent (disk "
					"workers only)", val->text);
		} else if (strncmp(f->l[i].text, "'Number of outstanding IOs", 26) == 0 &&
			   (val = value(f, i))) {
			char *c = xstrdup(val->text);

			if (split(c, ",", cols, 5) >= 1 && num(cols[0], IOM_QUEUE_DEPTH_MAX, &v) && v)
				s->outstanding = v;
			else
				problem(f, val->no, "'Number of outstanding IOs' takes a number");
			free(c);
		} else if (strncmp(f->l[i].text, "'Disk maximum size", 18) == 0 &&
			   (val = value(f, i))) {
			char *c = xstrdup(val->text);

			if (split(c, ",", cols, 3) >= 1 && num(cols[0], UINT64_MAX / 512, &v))
				s->disk_sectors = s->disk_sectors ? s->disk_sectors : v;
			if (split(c, ",", cols, 3) >= 2 && strcmp(cols[1], "0") != 0)
				problem(f, val->no, "a starting sector other than 0 has no iomatrix "
					"equivalent");
			free(c);
		} else if (strcmp(f->l[i].text, "'Assigned access specs") == 0) {
			for (size_t k = i + 1; k < f->n && f->l[k].text[0] != '\''; k++)
				if (!s->used.s || !strstr(s->used.s, f->l[k].text))
					iom_strbuf_printf(&s->used, "%s\n", f->l[k].text);
		}
	}
}

/* The access dimension: the assigned specs (every spec when none is), those with lines. */
static void write_access(struct iom_strbuf *b, const struct setup *s, const struct spec *specs,
			 size_t nspecs)
{
	size_t k = 0;

	iom_strbuf_str(b, "  access = (");
	for (size_t i = 0; i < nspecs; i++) {
		bool assigned = !s->used.s;

		if (s->used.s) {
			char *needle = xasprintf("%s\n", specs[i].name);

			assigned = strncmp(s->used.s, needle, strlen(needle)) == 0 ||
				   strstr(s->used.s, needle + 0) != NULL;
			free(needle);
		}
		if (!assigned || !specs[i].nlines)
			continue;
		iom_strbuf_printf(b, "%s\"%s\"", k++ ? ", " : " ", specs[i].ident);
	}
	iom_strbuf_printf(b, " );%*s# %s\n", 10, "",
			  s->used.s ? "the workers' assigned access specs"
				    : "every access spec (none assigned)");
}

/* The matrix: the access specs, the scratch file standing for IOMeter's disk, the workload and
 * the timing. */
static char *write_matrix(const struct icf *f, const struct setup *s, const struct spec *specs,
			  size_t nspecs)
{
	struct iom_strbuf b = { 0 };
	char sz[32], d[32];

	iom_strbuf_printf(&b, "# Imported from the IOMeter configuration %s by 'iomatrix "
			  "import':\n# its access specifications, %s.\n#\n# IOMeter's targets are "
			  "Windows disks: the target below is a scratch file,\n# iobw.tst as "
			  "IOMeter names its own; edit its path and size.\n", f->path,
			  s->qd.len ? "the outstanding-I/O sweep of its test setup (queue_depth)"
				    : "its workers' outstanding I/Os (queue_depth)");
	if (f->kept.len)
		iom_strbuf_printf(&b, "#\n# Not imported (--lenient):\n%s", f->kept.s);
	iom_strbuf_str(&b, "\niomatrix = 1;\nname = \"iometer\";\n");
	iom_strbuf_str(&b, "\naccess_specs = {\n");
	for (size_t i = 0; i < nspecs; i++) {
		if (!specs[i].nlines)
			continue;
		iom_strbuf_printf(&b, "  # '%s' (line %u)\n  %s = ( %s );\n", specs[i].name,
				  specs[i].line, specs[i].ident, specs[i].body.s);
	}
	iom_size_format(s->disk_sectors ? s->disk_sectors * 512 : 1ull << 30, sz, sizeof(sz));
	iom_strbuf_printf(&b, "};\n\ntargets = (\n  { label = \"iobw\"; path = \"iobw.tst\"; "
			  "size = \"%s\"; }   # %s\n);\n\nworkload = {\n", sz,
			  s->disk_sectors ? "'Disk maximum size' in sectors" : "IOMeter's 0: the "
			  "whole disk; 1G here");
	write_access(&b, s, specs, nspecs);
	if (s->qd.len)
		iom_strbuf_printf(&b, "  queue_depth = [ %s ];   # 'Queue Depth Cycling'\n", s->qd.s);
	else
		iom_strbuf_printf(&b, "  queue_depth = %" PRIu64 ";   # 'Number of outstanding "
				  "IOs'\n", s->outstanding);
	iom_strbuf_printf(&b, "  threads = %u;   # disk workers\n  direct = true;   # "
			  "IOMeter's disk I/O bypasses the cache\n};\n\ntiming = {\n",
			  s->workers ? s->workers : 1);
	iom_duration_format(s->warmup, d, sizeof(d));
	iom_strbuf_printf(&b, "  warmup = \"%s\";   # 'Ramp Up Time'\n", d);
	iom_duration_format(s->duration ? s->duration : 10000000000ull, d, sizeof(d));
	iom_strbuf_printf(&b, "  duration = \"%s\";   # %s\n  repeat = 1;\n};\n", d,
			  s->duration ? "'Run Time'" : "IOMeter's 0 runs until stopped: 10s here");
	return iom_strbuf_take(&b);
}

int iom_import_icf(const char *path, const char *buf, bool lenient, struct iom_import *im,
		   char *err, size_t errlen)
{
	struct icf f = { .path = path, .im = im, .lenient = lenient };
	struct setup s = { .outstanding = 1 };
	struct spec specs[MAX_SPECS];
	char *copy = xstrdup(buf);
	size_t nspecs = 0;
	int ret = 0;

	read_lines(&f, copy);
	if (!f.n || strncmp(f.l[0].text, "Version", 7) != 0 ||
	    heading(&f, 0, "ACCESS SPECIFICATIONS") == f.n) {
		ret = iom_err(err, errlen, EINVAL, "%s: not an IOMeter configuration file (it starts "
			      "with 'Version' and has an 'ACCESS SPECIFICATIONS section)", path);
		goto out;
	}
	read_setup(&f, &s);
	read_workers(&f, &s);
	nspecs = read_specs(&f, specs);
	if (!nspecs)
		problem(&f, f.l[heading(&f, 0, "ACCESS SPECIFICATIONS")].no, "no access "
			"specification");
	if (f.bad)
		ret = iom_err(err, errlen, EINVAL, "%s: %zu setting%s with no iomatrix equivalent "
			      "(--lenient keeps them as comments)", path, im->nproblems,
			      im->nproblems == 1 ? "" : "s");
	else
		im->text = write_matrix(&f, &s, specs, nspecs);
	for (size_t i = 0; i < nspecs; i++) {
		free(specs[i].name);
		iom_strbuf_release(&specs[i].body);
	}
out:
	iom_strbuf_release(&s.qd);
	iom_strbuf_release(&s.used);
	iom_strbuf_release(&f.kept);
	free(f.l);
	free(copy);
	return ret;
}
