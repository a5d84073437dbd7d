/* SPDX-License-Identifier: MIT */
/*
 * import_diskspd — a DiskSpd XML profile (`diskspd -X file.xml`, the <Profile> schema of
 * DiskSpd's XmlProfileParser/diskspd.xsd) read into a struct iom_diskspd, as the flags would
 * fill it (import.h). libxml2 parses the XML (no network, no entity expansion); this file is
 * the only one that includes it. Elements are matched by their local name, with or without
 * DiskSpd's namespace.
 *
 * One <TimeSpan> (a profile of several is a series of studies: refused), whose targets share
 * their settings (the struct holds one set: targets that differ are refused, naming the
 * element). Each element maps onto the flag it stands for (the comments say which); an element
 * that asks for what iomatrix refuses as a flag is a problem with its line; an unknown element
 * too.
 */
#include "import_in.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "diskspd.h"
#include "model.h"
#include "units.h"
#include "util.h"

struct ctx {
	const char *path;
	bool lenient;
	struct iom_diskspd *d;
	struct iom_import *im;
	bool bad;
};

static void problem(struct ctx *c, const xmlNode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void problem(struct ctx *c, const xmlNode *n, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	iom_import_problem(c->im, c->path, n ? (unsigned)xmlGetLineNo(n) : 0, "%s", msg);
	if (c->lenient)
		iom_diskspd_note(c->d, "%s:%ld: not imported: %s", c->path,
				 n ? xmlGetLineNo(n) : 0L, msg);
	else
		c->bad = true;
}

static bool is(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* The element's text, trimmed (heap). */
static char *text(const xmlNode *n)
{
	xmlChar *t = xmlNodeGetContent(n);
	char *s = xstrdup(t ? (const char *)t : ""), *b = iom_trim(s);

	xmlFree(t);
	memmove(s, b, strlen(b) + 1);
	return s;
}

static bool number(struct ctx *c, const xmlNode *n, uint64_t max, uint64_t *v)
{
	char *t = text(n), *end;
	bool ok;

	errno = 0;
	*v = strtoull(t, &end, 10);
	ok = *t >= '0' && *t <= '9' && !*end && errno == 0 && *v <= max;
	if (!ok)
		problem(c, n, "<%s>%s</%s>: a whole number (at most %" PRIu64 ") was expected",
			n->name, t, n->name, max);
	free(t);
	return ok;
}

static bool boolean(struct ctx *c, const xmlNode *n, bool *v)
{
	char *t = text(n);
	bool ok = true;

	if (strcmp(t, "true") == 0 || strcmp(t, "1") == 0)
		*v = true;
	else if (strcmp(t, "false") == 0 || strcmp(t, "0") == 0)
		*v = false;
	else
		ok = false;
	if (!ok)
		problem(c, n, "<%s>%s</%s>: true or false was expected", n->name, t, n->name);
	free(t);
	return ok;
}

/* An element that must be false (or 0) because what it asks has no equivalent. */
static void must_be_off(struct ctx *c, const xmlNode *n, const char *flag, const char *why)
{
	char *t = text(n);

	if (strcmp(t, "false") && strcmp(t, "0") && *t)
		problem(c, n, "<%s> (DiskSpd's %s) is not supported: %s", n->name, flag, why);
	free(t);
}

static char *own(struct iom_diskspd *d, char *s)
{
	d->own = xrealloc(d->own, (d->nown + 1) * sizeof(*d->own));
	d->own[d->nown++] = s;
	return s;
}

/* One <Target>: its path, and with first its settings (every target's: they are compared). */
static void target(struct ctx *c, const xmlNode *t, bool first)
{
	struct iom_diskspd *d = c->d;
	const char *path = NULL;
	uint64_t v, random = 0, stride = 0;
	bool b, has_random = false;

	for (const xmlNode *n = t->children; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (!first && !is(n, "Path"))
			continue; /* the first target's settings are every target's (checked below) */
		if (is(n, "Path")) {
			path = own(d, text(n));
		} else if (is(n, "BlockSize")) { /* -b */
			if (number(c, n, 64u << 20, &v) && v)
				d->block_size = v;
		} else if (is(n, "RequestCount")) { /* -o */
			if (number(c, n, IOM_QUEUE_DEPTH_MAX, &v) && v)
				d->outstanding = v;
		} else if (is(n, "ThreadsPerFile")) { /* -t */
			if (number(c, n, 1024, &v) && v)
				d->threads = v;
		} else if (is(n, "WriteRatio")) { /* -w */
			if (number(c, n, 100, &v))
				d->write_pct = (unsigned)v;
		} else if (is(n, "Random")) { /* -r<align> */
			if (number(c, n, UINT64_MAX, &v) && v) {
				random = v;
				has_random = true;
			}
		} else if (is(n, "StrideSize")) { /* -s<stride> */
			number(c, n, UINT64_MAX, &stride);
		} else if (is(n, "InterlockedSequential")) { /* -si */
			if (boolean(c, n, &b))
				d->shared_seq = b;
		} else if (is(n, "ThreadStride")) { /* -T */
			if (number(c, n, UINT64_MAX, &v))
				d->thread_stride = v;
		} else if (is(n, "FileSize")) { /* -c */
			if (number(c, n, UINT64_MAX, &v))
				d->create_size = v;
		} else if (is(n, "MaxFileSize")) { /* -f */
			if (number(c, n, UINT64_MAX, &v))
				d->max_size = v;
		} else if (is(n, "DisableOSCache")) { /* -Su */
			if (boolean(c, n, &b) && b)
				d->direct = true;
		} else if (is(n, "WriteThrough")) { /* -Sw */
			if (boolean(c, n, &b) && b)
				d->write_through = true;
		} else if (is(n, "DisableAllCache")) { /* -h */
			if (boolean(c, n, &b) && b)
				d->direct = d->write_through = true;
		} else if (is(n, "DisableLocalCache")) {
			must_be_off(c, n, "-Sr", "remote caching is for Windows network filesystems");
		} else if (is(n, "BaseFileOffset")) {
			if (number(c, n, UINT64_MAX, &v) && v)
				problem(c, n, "<BaseFileOffset> (DiskSpd's -B) is not supported: "
					"iomatrix's region always starts at offset 0");
		} else if (is(n, "SequentialScan") || is(n, "RandomAccess") || is(n, "TemporaryFile")) {
			must_be_off(c, n, "-fs/-fr/-ft", "a hint to the Windows cache manager");
		} else if (is(n, "UseLargePages")) {
			must_be_off(c, n, "-l", "iomatrix puts large buffers in huge pages by itself");
		} else if (is(n, "ParallelAsyncIO")) {
			must_be_off(c, n, "-p", "iomatrix's sequential threads each walk a slice");
		} else if (is(n, "IOPriority")) {
			if (number(c, n, 3, &v) && v != 0 && v != 3)
				problem(c, n, "<IOPriority>%" PRIu64 "</IOPriority> (DiskSpd's -I) is not "
					"supported: iomatrix issues every I/O at the normal priority", v);
		} else if (is(n, "BurstSize")) { /* -i */
			if (number(c, n, 1000000, &v))
				d->burst = v;
		} else if (is(n, "ThinkTime")) { /* -j */
			if (number(c, n, 3600000, &v))
				d->think_ms = v;
		} else if (is(n, "Throughput")) { /* -g<bytes per ms>, or -g<n>i (unit="IOPS") */
			xmlChar *unit = xmlGetProp(n, (const xmlChar *)"unit");

			if (number(c, n, UINT32_MAX, &v) && v) {
				if (unit && strcmp((const char *)unit, "IOPS") == 0)
					d->rate_iops = v;
				else
					d->rate_bpms = v;
			}
			xmlFree(unit);
		} else if (is(n, "WriteBufferContent")) { /* -Z, -Zr */
			for (const xmlNode *w = n->children; w; w = w->next) {
				char *pat;

				if (is(w, "RandomDataSource")) {
					iom_diskspd_note(d, "<RandomDataSource>: random data, as "
							 "DiskSpd's random buffer, but not of that size "
							 "or from that file");
					continue;
				}
				if (!is(w, "Pattern"))
					continue;
				pat = text(w);
				if (strcmp(pat, "zero") == 0)
					d->data = "zeros";
				else if (strcmp(pat, "random") == 0)
					d->data = "random";
				else if (strcmp(pat, "sequential") != 0)
					problem(c, w, "<Pattern>%s</Pattern>: sequential, zero or random "
						"was expected", pat);
				free(pat);
			}
		} else {
			problem(c, n, "<%s> in <Target> has no iomatrix equivalent", n->name);
		}
	}
	if (!path || !*path) {
		problem(c, t, "<Target> without a <Path>");
		return;
	}
	if (path[0] == '#' || (path[0] && path[1] == ':')) {
		problem(c, t, "'%s' is a Windows target; give a Linux path", path);
		return;
	}
	if (first) {
		d->random = has_random;
		if (has_random && random != d->block_size)
			d->align = random;
		if (stride && stride != d->block_size && !has_random)
			problem(c, t, "<StrideSize>%" PRIu64 "</StrideSize>: a sequential stride other "
				"than the block size is not supported", stride);
		if (d->thread_stride && (d->threads < 2 || d->random))
			d->thread_stride = 0;
		d->target = path;
	}
	d->targets = xrealloc(d->targets, (d->ntargets + 1) * sizeof(*d->targets));
	d->targets[d->ntargets++] = path;
}

/* A target's settings as one string (its elements but <Path>), to compare targets. */
static char *settings(const xmlNode *t)
{
	char *s = xstrdup("");

	for (const xmlNode *n = t->children; n; n = n->next) {
		char *v, *m;

		if (n->type != XML_ELEMENT_NODE || is(n, "Path"))
			continue;
		v = text(n);
		m = xasprintf("%s<%s>%s", s, n->name, v);
		free(v);
		free(s);
		s = m;
	}
	return s;
}

static void timespan(struct ctx *c, const xmlNode *ts)
{
	struct iom_diskspd *d = c->d;
	const xmlNode *targets = NULL;
	uint64_t v;
	bool b;

	for (const xmlNode *n = ts->children; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (is(n, "Targets")) {
			targets = n;
		} else if (is(n, "Duration")) { /* -d */
			if (number(c, n, 720 * 3600, &v) && v)
				d->duration_s = v;
		} else if (is(n, "Warmup")) { /* -W */
			if (number(c, n, 720 * 3600, &v))
				d->warmup_s = v;
		} else if (is(n, "Cooldown")) { /* -C */
			if (number(c, n, 720 * 3600, &v))
				d->cooldown_s = v;
		} else if (is(n, "RandSeed")) { /* -z */
			if (number(c, n, UINT32_MAX, &v) && v) {
				d->seed = v;
				d->seed_given = true;
			}
		} else if (is(n, "ThreadCount")) { /* -F */
			if (number(c, n, UINT32_MAX, &v) && v)
				problem(c, n, "<ThreadCount> (DiskSpd's -F, total threads) is not "
					"supported: give each target its <ThreadsPerFile>");
		} else if (is(n, "RequestCount")) { /* -O */
			if (number(c, n, UINT32_MAX, &v) && v)
				problem(c, n, "<RequestCount> of a <TimeSpan> (DiskSpd's -O) is not "
					"supported: give each target its <RequestCount>");
		} else if (is(n, "GroupAffinity")) {
			must_be_off(c, n, "-ag", "processor groups are Windows'");
		} else if (is(n, "Affinity")) { /* -a */
			char *list = xstrdup("");

			for (const xmlNode *a = n->children; a; a = a->next) {
				char *t, *m;

				if (!is(a, "AffinityAssignment"))
					continue;
				if (!number(c, a, 4095, &v))
					continue;
				t = list;
				m = xasprintf("%s%s%" PRIu64, t, *t ? "," : "", v);
				free(t);
				list = m;
			}
			free(d->cpus);
			d->cpus = *list ? list : NULL;
			if (!*list)
				free(list);
		} else if (is(n, "DisableAffinity")) { /* -n */
			if (boolean(c, n, &b) && b) {
				free(d->cpus);
				d->cpus = NULL;
			}
		} else if (is(n, "CompletionRoutines")) {
			must_be_off(c, n, "-x", "a Windows I/O model; iomatrix reaps completions from "
				    "io_uring");
		} else if (is(n, "MeasureLatency") || is(n, "CalculateIopsStdDev")) {
			/* -L, -D: iomatrix always measures both */
		} else if (is(n, "IoBucketDuration")) {
			if (number(c, n, UINT32_MAX, &v) && v != 1000)
				iom_diskspd_note(d, "<IoBucketDuration>%" PRIu64 "</IoBucketDuration>: "
						 "iomatrix records IOPS in 1 s intervals", v);
		} else {
			problem(c, n, "<%s> in <TimeSpan> has no iomatrix equivalent", n->name);
		}
	}
	if (!targets) {
		problem(c, ts, "<TimeSpan> without <Targets>");
		return;
	}
	{
		char *first = NULL;

		for (const xmlNode *t = targets->children; t; t = t->next) {
			char *s;

			if (!is(t, "Target"))
				continue;
			s = settings(t);
			if (first && strcmp(first, s) != 0)
				problem(c, t, "this <Target> has settings other than the first's: iomatrix "
					"drives several targets of one run with the same workload");
			target(c, t, !first);
			if (!first)
				first = s;
			else
				free(s);
		}
		if (!first)
			problem(c, targets, "<Targets> without a <Target>");
		free(first);
	}
}

int iom_import_diskspd_profile(const char *path, const char *buf, size_t len, bool lenient,
			       struct iom_diskspd *d, struct iom_import *im, char *err,
			       size_t errlen)
{
	struct ctx c = { .path = path, .lenient = lenient, .d = d, .im = im };
	const xmlNode *root, *spans = NULL;
	xmlDoc *doc;
	size_t nspans = 0;
	int ret = 0;

	iom_diskspd_init(d);
	d->profile = path;
	if (len > INT32_MAX)
		return iom_err(err, errlen, EFBIG, "'%s' is too large", path);
	doc = xmlReadMemory(buf, (int)len, path, NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc) {
		const xmlError *e = xmlGetLastError();

		return iom_err(err, errlen, EINVAL, "%s:%d: not well-formed XML: %s", path,
			       e ? e->line : 0, e && e->message ? e->message : "parse error");
	}
	root = xmlDocGetRootElement(doc);
	if (!root || !is(root, "Profile")) {
		ret = iom_err(err, errlen, EINVAL, "%s: not a DiskSpd profile (its root element is "
			      "<%s>, not <Profile>)", path, root ? (const char *)root->name : "");
		goto out;
	}
	for (const xmlNode *n = root->children; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (is(n, "TimeSpans")) {
			spans = n;
		} else if (is(n, "ETW")) {
			problem(&c, n, "<ETW> (DiskSpd's -e) is not supported: ETW is Windows'");
		} else if (is(n, "Verbose") || is(n, "Progress") || is(n, "ResultFormat") ||
			   is(n, "PrecreateFiles")) {
			/* how DiskSpd reports and prepares: iomatrix's own */
		} else {
			problem(&c, n, "<%s> in <Profile> has no iomatrix equivalent", n->name);
		}
	}
	for (const xmlNode *n = spans ? spans->children : NULL; n; n = n->next)
		if (is(n, "TimeSpan")) {
			if (nspans++ == 0)
				timespan(&c, n);
			else
				problem(&c, n, "a second <TimeSpan>: iomatrix imports a profile of "
					"one (import each as a study of its own)");
		}
	if (!nspans)
		problem(&c, spans ? spans : root, "no <TimeSpans><TimeSpan>: nothing to run");
	d->command = xasprintf("-X%s", path);
	if (c.bad || !d->target)
		ret = iom_err(err, errlen, EINVAL, "%s: %zu element%s with no iomatrix equivalent%s",
			      path, im->nproblems, im->nproblems == 1 ? "" : "s",
			      lenient ? "" : " (--lenient keeps them as notes)");
out:
	xmlFreeDoc(doc);
	if (ret < 0)
		iom_diskspd_release(d);
	return ret;
}
