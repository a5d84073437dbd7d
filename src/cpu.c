/* SPDX-License-Identifier: MIT */
/*
 * cpu — CPU time and interrupts over a measured window, from /proc/stat, getrusage and
 * /proc/interrupts.
 *
 * Both parsers walk the text line by line with bounded pointers (no copies, no fixed line
 * buffers: /proc/interrupts lines grow with the number of CPUs). /proc/stat is read in two
 * passes: the first finds the highest CPU number, so per-CPU entries are keyed by number and
 * offline gaps stay zero; the second fills them. Guest time is inside user/nice already and is
 * not added again.
 */
#include "cpu.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>

#include "util.h"

/* The end of the line starting at p: its '\n', or the terminating NUL. */
static const char *line_end(const char *p)
{
	const char *e = strchr(p, '\n');

	return e ? e : p + strlen(p);
}

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Reads one whitespace-terminated decimal token at *p (after blanks) into *v, saturating on
 * overflow. Returns false, leaving *p alone, when the next token is not wholly a number.
 */
static bool read_u64(const char **p, const char *end, uint64_t *v)
{
	const char *q = skip_blank(*p, end);
	uint64_t x = 0;

	if (q == end || !is_digit(*q))
		return false;
	for (; q < end && is_digit(*q); q++) {
		unsigned d = (unsigned)(*q - '0');

		x = x > (UINT64_MAX - d) / 10 ? UINT64_MAX : x * 10 + d;
	}
	if (q < end && *q != ' ' && *q != '\t')
		return false;
	*v = x;
	*p = q;
	return true;
}

/* For a "cpu" or "cpuN" line: *id = -1 for the total, N otherwise; *rest after the label. */
static bool cpu_label(const char *p, const char *end, long *id, const char **rest)
{
	uint64_t n = 0;

	if (end - p < 3 || memcmp(p, "cpu", 3) != 0)
		return false;
	p += 3;
	if (p < end && (*p == ' ' || *p == '\t')) {
		*id = -1;
		*rest = p;
		return true;
	}
	if (p == end || !is_digit(*p))
		return false;
	for (; p < end && is_digit(*p); p++)
		n = n > IOM_CPU_MAX ? n : n * 10 + (unsigned)(*p - '0');
	if (p < end && *p != ' ' && *p != '\t')
		return false;
	*id = n > IOM_CPU_MAX ? IOM_CPU_MAX : (long)n;
	*rest = p;
	return true;
}

/* The columns of a cpu line: at least 4 (user nice system idle), the rest 0 when missing. */
static int parse_ticks(const char *p, const char *end, struct iom_cpu_ticks *t)
{
	uint64_t v[8] = { 0 };
	unsigned n = 0;

	while (n < 8 && read_u64(&p, end, &v[n]))
		n++;
	if (n < 4)
		return -EINVAL;
	t->user = v[0];
	t->nice = v[1];
	t->system = v[2];
	t->idle = v[3];
	t->iowait = v[4];
	t->irq = v[5];
	t->softirq = v[6];
	t->steal = v[7];
	return 0;
}

int iom_cpu_parse_stat(const char *text, struct iom_cpu_sample *s)
{
	const char *p, *end, *rest;
	long id, maxid = -1;
	bool have_total = false;
	int ret;

	memset(s, 0, sizeof(*s));
	for (p = text; *p; p = *end ? end + 1 : end) {
		end = line_end(p);
		if (!cpu_label(p, end, &id, &rest))
			continue;
		if (id >= IOM_CPU_MAX)
			return -ERANGE;
		if (id < 0)
			have_total = true;
		else if (id > maxid)
			maxid = id;
	}
	if (!have_total)
		return -EINVAL;
	s->ncpu = (unsigned)(maxid + 1);
	s->cpu = xcalloc(s->ncpu ? s->ncpu : 1, sizeof(*s->cpu));
	for (p = text; *p; p = *end ? end + 1 : end) {
		end = line_end(p);
		if (!cpu_label(p, end, &id, &rest))
			continue;
		ret = parse_ticks(rest, end, id < 0 ? &s->total : &s->cpu[id]);
		if (ret < 0) {
			iom_cpu_sample_release(s);
			return ret;
		}
	}
	return 0;
}

/* Does any driver of the comma-separated list prefix the token [t, te)? */
static bool driver_matches(const char *drivers, const char *t, const char *te)
{
	const char *d = drivers, *de;

	while (*d) {
		size_t len;

		while (*d == ',' || *d == ' ')
			d++;
		for (de = d; *de && *de != ',' && *de != ' '; de++)
			;
		len = (size_t)(de - d);
		if (len && (size_t)(te - t) >= len && memcmp(t, d, len) == 0)
			return true;
		d = de;
	}
	return false;
}

/* Does any device-name token in [p, end) match a driver? Tokens split at blanks and commas. */
static bool line_matches(const char *drivers, const char *p, const char *end)
{
	while (p < end) {
		const char *te;

		while (p < end && (*p == ' ' || *p == '\t' || *p == ','))
			p++;
		for (te = p; te < end && *te != ' ' && *te != '\t' && *te != ','; te++)
			;
		if (te > p && driver_matches(drivers, p, te))
			return true;
		p = te;
	}
	return false;
}

/* Skips one blank-separated token (the chip name of a numbered IRQ line). */
static const char *skip_token(const char *p, const char *end)
{
	p = skip_blank(p, end);
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	return p;
}

uint64_t iom_cpu_parse_interrupts(const char *text, const char *drivers, unsigned *nlines)
{
	const char *p = text, *end, *colon, *q;
	unsigned ncols = 0, matched = 0, i;
	uint64_t sum = 0;

	if (nlines)
		*nlines = 0;
	if (!drivers || !*drivers || !text)
		return 0;
	/* The header: one "CPUn" per count column. */
	end = line_end(p);
	for (q = p; q < end; q = skip_token(q, end)) {
		q = skip_blank(q, end);
		if (end - q >= 3 && memcmp(q, "CPU", 3) == 0)
			ncols++;
	}
	if (ncols == 0)
		ncols = IOM_CPU_MAX;    /* no header: take counts up to the first non-number */
	else
		p = *end ? end + 1 : end;
	for (; *p; p = *end ? end + 1 : end) {
		uint64_t line_sum = 0, v;
		bool numbered = true;

		end = line_end(p);
		colon = memchr(p, ':', (size_t)(end - p));
		if (!colon)
			continue;
		q = skip_blank(p, colon);
		if (q == colon)
			continue;
		for (; q < colon; q++)
			numbered &= is_digit(*q);
		q = colon + 1;
		for (i = 0; i < ncols && read_u64(&q, end, &v); i++)
			line_sum += v;
		if (numbered) {
			/* The chip (IO-APIC, PCI-MSIX-…, GICv3), then hwirq-type ("2-edge"). */
			q = skip_blank(skip_token(q, end), end);
			if (q < end && is_digit(*q))
				q = skip_token(q, end);
		}
		if (!line_matches(drivers, q, end))
			continue;
		sum += line_sum;
		matched++;
	}
	if (nlines)
		*nlines = matched;
	return sum;
}

static double tv_seconds(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int iom_cpu_sample(struct iom_cpu_sample *s, const char *drivers)
{
	struct rusage ru;
	char *text;
	int ret;

	memset(s, 0, sizeof(*s));
	ret = iom_read_file("/proc/stat", &text, NULL);
	if (ret < 0)
		return ret;
	ret = iom_cpu_parse_stat(text, s);
	free(text);
	if (ret < 0)
		return ret;
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		s->proc_user_s = tv_seconds(ru.ru_utime);
		s->proc_sys_s = tv_seconds(ru.ru_stime);
	}
	if (drivers && *drivers) {
		ret = iom_read_file("/proc/interrupts", &text, NULL);
		if (ret < 0) {
			iom_cpu_sample_release(s);
			return ret;
		}
		s->irqs = iom_cpu_parse_interrupts(text, drivers, &s->irq_lines);
		free(text);
	}
	return 0;
}

void iom_cpu_sample_release(struct iom_cpu_sample *s)
{
	free(s->cpu);
	s->cpu = NULL;
	s->ncpu = 0;
}

static uint64_t delta(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

static bool ticks_zero(const struct iom_cpu_ticks *t)
{
	return !(t->user | t->nice | t->system | t->idle | t->iowait | t->irq | t->softirq |
		 t->steal);
}

static void pct_between(const struct iom_cpu_ticks *a, const struct iom_cpu_ticks *b,
			struct iom_cpu_pct *out)
{
	uint64_t user = delta(a->user, b->user) + delta(a->nice, b->nice);
	uint64_t sys = delta(a->system, b->system), idle = delta(a->idle, b->idle);
	uint64_t iowait = delta(a->iowait, b->iowait), irq = delta(a->irq, b->irq);
	uint64_t softirq = delta(a->softirq, b->softirq), steal = delta(a->steal, b->steal);
	uint64_t total = user + sys + idle + iowait + irq + softirq + steal;
	double f;

	memset(out, 0, sizeof(*out));
	if (total == 0 || ticks_zero(a) || ticks_zero(b)) {
		out->idle = 100;
		return;
	}
	f = 100.0 / (double)total;
	out->user = (double)user * f;
	out->kernel = (double)sys * f;
	out->iowait = (double)iowait * f;
	out->irq = (double)irq * f;
	out->softirq = (double)softirq * f;
	out->steal = (double)steal * f;
	out->idle = (double)idle * f;
}

void iom_cpu_diff(const struct iom_cpu_sample *a, const struct iom_cpu_sample *b,
		  struct iom_cpu_pct *per_cpu, struct iom_cpu_pct *avg)
{
	static const struct iom_cpu_ticks none;
	unsigned i;

	if (per_cpu)
		for (i = 0; i < a->ncpu; i++)
			pct_between(&a->cpu[i], i < b->ncpu ? &b->cpu[i] : &none, &per_cpu[i]);
	if (avg)
		pct_between(&a->total, &b->total, avg);
}

static uint64_t tick_delta(uint64_t a, uint64_t b)
{
	return b >= a ? b - a : 0;
}

void iom_cpu_system_diff(const struct iom_cpu_sample *a, const struct iom_cpu_sample *b,
			 struct iom_cpu_system *out)
{
	const struct iom_cpu_ticks *x = &a->total, *y = &b->total;

	out->busy = tick_delta(x->user, y->user) + tick_delta(x->nice, y->nice) +
		    tick_delta(x->system, y->system) + tick_delta(x->irq, y->irq) +
		    tick_delta(x->softirq, y->softirq);
	out->all = out->busy + tick_delta(x->idle, y->idle) + tick_delta(x->iowait, y->iowait) +
		   tick_delta(x->steal, y->steal);
}

char *iom_cpu_parse_model(const char *text)
{
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n'), *colon = strchr(line, ':');

		if (!end)
			end = line + strlen(line);
		if (colon && colon < end && strncmp(line, "model name", 10) == 0) {
			colon += 1 + strspn(colon + 1, " \t");
			return xasprintf("%.*s", (int)(end - colon), colon);
		}
		line = *end ? end + 1 : end;
	}
	return NULL;
}

char *iom_cpu_model(void)
{
	char *text = NULL, *model;

	if (iom_read_file("/proc/cpuinfo", &text, NULL) < 0)
		return NULL;
	model = iom_cpu_parse_model(text);
	free(text);
	return model;
}
