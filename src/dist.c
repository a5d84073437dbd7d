/* SPDX-License-Identifier: MIT */
/*
 * dist — the distributions of random offsets: the code and the alias table (design in dist.h).
 */
#include "dist.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define PARAM_SHIFT 4
#define ZONE_BITS 14
#define FORMS "uniform, zipf:THETA, pareto:H, normal:SIGMA%%, zoned:A/S:A/S..."

/* A decimal with at most three decimals, in thousandths; *end after it. -EINVAL if none. */
static int parse_milli(const char *s, const char **end, int64_t *milli)
{
	int64_t x = 0;
	int dec = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (x > 1000000000)
			return -EINVAL;
		x = x * 10 + (*s - '0');
	}
	x *= 1000;
	if (*s == '.') {
		int64_t scale = 100;

		s++;
		if (*s < '0' || *s > '9')
			return -EINVAL;
		for (; *s >= '0' && *s <= '9'; s++, dec++) {
			if (dec == 3)
				return -EINVAL;
			x += (*s - '0') * scale;
			scale /= 10;
		}
	}
	*end = s;
	*milli = x;
	return 0;
}

/* A whole number 0..100; *end after it. */
static int parse_pct(const char *s, const char **end, int *pct)
{
	int x = 0, n = 0;

	for (; *s >= '0' && *s <= '9'; s++, n++) {
		x = x * 10 + (*s - '0');
		if (x > 100)
			return -EINVAL;
	}
	if (n == 0)
		return -EINVAL;
	*end = s;
	*pct = x;
	return 0;
}

static int parse_zoned(const char *text, const char *p, int64_t *v, char *err, size_t errlen)
{
	int64_t code = IOM_DIST_ZONED;
	int n = 0, sa = 0, ss = 0;

	for (;;) {
		int a, s;

		if (parse_pct(p, &p, &a) < 0 || *p != '/' || parse_pct(p + 1, &p, &s) < 0)
			return iom_err(err, errlen, EINVAL,
				       "distribution '%s': each zone is A/S, two whole percentages "
				       "(A %% of the accesses go to S %% of the region)", text);
		if (s == 0)
			return iom_err(err, errlen, EINVAL,
				       "distribution '%s': a zone of 0 %% of the region", text);
		if (n == IOM_DIST_MAX_ZONES)
			return iom_err(err, errlen, EINVAL, "distribution '%s': at most %d zones",
				       text, IOM_DIST_MAX_ZONES);
		code |= (int64_t)(a | s << 7) << (PARAM_SHIFT + ZONE_BITS * n);
		n++;
		sa += a;
		ss += s;
		if (*p == '\0')
			break;
		if (*p != ':')
			return iom_err(err, errlen, EINVAL,
				       "distribution '%s': zones are separated by ':'", text);
		p++;
	}
	if (sa != 100 || ss != 100)
		return iom_err(err, errlen, EINVAL,
			       "distribution '%s': the accesses add up to %d %% and the region to "
			       "%d %%; both must be 100", text, sa, ss);
	*v = code;
	return 0;
}

int iom_dist_parse(const char *text, int64_t *v, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		enum iom_dist_kind kind;
		int64_t lo, hi;    /* exclusive lower, inclusive upper bound, in thousandths */
		bool hi_open;
		const char *what;
	} kinds[] = {
		{ "zipf:", IOM_DIST_ZIPF, 0, 10000, false, "theta above 0, at most 10" },
		{ "pareto:", IOM_DIST_PARETO, 0, 1000, true, "h between 0 and 1 (exclusive)" },
		{ "normal:", IOM_DIST_NORMAL, 0, 100000, false,
		  "sigma above 0 %, at most 100 % of the region" },
	};
	const char *p;
	int64_t x;

	if (strcmp(text, "uniform") == 0) {
		*v = IOM_DIST_UNIFORM;
		return 0;
	}
	if (strncmp(text, "zoned:", 6) == 0)
		return parse_zoned(text, text + 6, v, err, errlen);
	for (size_t i = 0; i < IOM_ARRAY_SIZE(kinds); i++) {
		size_t len = strlen(kinds[i].name);

		if (strncmp(text, kinds[i].name, len) != 0)
			continue;
		if (parse_milli(text + len, &p, &x) < 0 ||
		    (*p && !(kinds[i].kind == IOM_DIST_NORMAL && strcmp(p, "%") == 0)))
			return iom_err(err, errlen, EINVAL,
				       "distribution '%s': '%s' is not a number with at most three "
				       "decimals", text, text + len);
		if (x <= kinds[i].lo || x > kinds[i].hi || (kinds[i].hi_open && x == kinds[i].hi))
			return iom_err(err, errlen, ERANGE, "distribution '%s': want %s", text,
				       kinds[i].what);
		*v = kinds[i].kind | x << PARAM_SHIFT;
		return 0;
	}
	return iom_err(err, errlen, EINVAL, "distribution '%s' is not one of " FORMS, text);
}

void iom_dist_format(int64_t v, char *buf, size_t len)
{
	int64_t x = v >> PARAM_SHIFT;
	size_t off;

	switch (iom_dist_kind(v)) {
	case IOM_DIST_UNIFORM:
		snprintf(buf, len, "%s", v ? "?" : "uniform");
		return;
	case IOM_DIST_ZIPF:
		snprintf(buf, len, "zipf:%g", (double)x / 1000);
		return;
	case IOM_DIST_PARETO:
		snprintf(buf, len, "pareto:%g", (double)x / 1000);
		return;
	case IOM_DIST_NORMAL:
		snprintf(buf, len, "normal:%g%%", (double)x / 1000);
		return;
	case IOM_DIST_ZONED:
		off = (size_t)snprintf(buf, len, "zoned");
		for (int i = 0; i < IOM_DIST_MAX_ZONES && off < len; i++) {
			int64_t z = x >> (ZONE_BITS * i);

			if (((z >> 7) & 0x7f) == 0)
				break;
			off += (size_t)snprintf(buf + off, len - off, ":%d/%d", (int)(z & 0x7f),
						(int)((z >> 7) & 0x7f));
		}
		return;
	}
	snprintf(buf, len, "?");
}

/* ---- the table ---------------------------------------------------------------------------- */

/* sum of k^-theta for k in [a, b] (1-based ranks): exact for the first 1024 ranks of the
 * region and the first 32 of a later range, then the integral of x^-theta over
 * [k - 1/2, b + 1/2] (the midpoint rule, whose error there is below 1e-4 of the sum). */
static double zipf_mass(uint64_t a, uint64_t b, double theta)
{
	uint64_t k, exact = a == 1 ? 1024 : 32;
	double s = 0;

	for (k = a; k <= b && k < a + exact; k++)
		s += pow((double)k, -theta);
	if (k <= b) {
		double x0 = (double)k - 0.5, x1 = (double)b + 0.5;

		s += theta == 1.0 ? log(x1 / x0)
				  : (pow(x0, 1 - theta) - pow(x1, 1 - theta)) / (theta - 1);
	}
	return s;
}

static double phi(double x)
{
	return 0.5 * erfc(-x / sqrt(2.0));
}

/* Vose's alias table from w[0..n) (any scale, sum > 0); small/large are n-entry scratch. */
static void alias_build(struct iom_dist *d, double *w, uint32_t *small, uint32_t *large)
{
	uint32_t n = d->n, ns = 0, nl = 0;
	double sum = 0;

	for (uint32_t i = 0; i < n; i++)
		sum += w[i];
	for (uint32_t i = 0; i < n; i++) {
		w[i] = w[i] * n / sum;
		if (w[i] < 1.0)
			small[ns++] = i;
		else
			large[nl++] = i;
	}
	while (ns && nl) {
		uint32_t s = small[--ns], l = large[nl - 1];

		d->thresh[s] = (uint64_t)(w[s] * 4294967296.0);
		d->alias[s] = l;
		w[l] -= 1.0 - w[s];
		if (w[l] < 1.0) {
			nl--;
			small[ns++] = l;
		}
	}
	/* what is left has probability 1 up to rounding: always kept */
	while (nl)
		d->thresh[large[--nl]] = UINT64_C(1) << 32;
	while (ns)
		d->thresh[small[--ns]] = UINT64_C(1) << 32;
}

void iom_dist_release(struct iom_dist *d)
{
	free(d->lo);
	free(d->thresh);
	free(d->alias);
	memset(d, 0, sizeof(*d));
}

int iom_dist_fits(int64_t v, uint64_t slots, char *err, size_t errlen)
{
	uint64_t lo = 0;
	int cum = 0;

	if (iom_dist_kind(v) != IOM_DIST_ZONED || slots == 0)
		return 0;
	for (uint32_t i = 0; i < IOM_DIST_MAX_ZONES; i++) {
		int64_t z = v >> (PARAM_SHIFT + ZONE_BITS * i);
		uint64_t hi;

		if (!((z >> 7) & 0x7f))
			break;
		cum += (int)((z >> 7) & 0x7f);
		hi = (uint64_t)((unsigned __int128)slots * (unsigned)cum / 100);
		if ((z & 0x7f) > 0 && hi == lo)
			return iom_err(err, errlen, EINVAL,
				       "the region of %llu random offsets is too small for zone %u "
				       "of the distribution", (unsigned long long)slots, i + 1);
		lo = hi;
	}
	return 0;
}

int iom_dist_build(struct iom_dist *d, int64_t v, uint64_t slots, char *err, size_t errlen)
{
	enum iom_dist_kind kind = iom_dist_kind(v);
	double param = (double)(v >> PARAM_SHIFT) / 1000, *w = NULL, pw = 0;
	uint32_t n = 1, *scratch = NULL;
	int ret = 0;

	memset(d, 0, sizeof(*d));
	if (kind == IOM_DIST_UNIFORM || slots == 0)
		return 0;
	if (kind == IOM_DIST_ZONED) {
		if ((ret = iom_dist_fits(v, slots, err, errlen)) < 0)
			return ret;
		n = 0;
		while (n < IOM_DIST_MAX_ZONES && ((v >> (PARAM_SHIFT + ZONE_BITS * n + 7)) & 0x7f))
			n++;
		if (n == 0) /* the parse never makes one: a zoned code without zones */
			return iom_err(err, errlen, EINVAL, "distribution %lld has no zones",
				       (long long)v);
	} else {
		while ((uint64_t)n * 2 <= IOM_MIN(slots, (uint64_t)IOM_DIST_MAX_RANGES))
			n *= 2;
	}
	d->n = n;
	d->lo = iom_try_calloc(n + 1, sizeof(*d->lo));
	d->thresh = iom_try_calloc(n, sizeof(*d->thresh));
	d->alias = iom_try_calloc(n, sizeof(*d->alias));
	w = iom_try_calloc(n, sizeof(*w));
	scratch = iom_try_calloc(2 * (size_t)n, sizeof(*scratch));
	if (!d->lo || !d->thresh || !d->alias || !w || !scratch) {
		ret = iom_err(err, errlen, ENOMEM, "the table of distribution %lld",
			      (long long)v);
		goto out;
	}
	if (kind == IOM_DIST_PARETO)
		pw = log(param) / log(1.0 - param);
	for (uint32_t i = 0; i <= n; i++)
		d->lo[i] = (uint64_t)((unsigned __int128)slots * i / n);
	if (kind == IOM_DIST_ZONED) {
		int cum = 0;

		for (uint32_t i = 0; i < n; i++) {
			int64_t z = v >> (PARAM_SHIFT + ZONE_BITS * i);

			cum += (int)((z >> 7) & 0x7f);
			d->lo[i + 1] = (uint64_t)((unsigned __int128)slots * (unsigned)cum / 100);
			w[i] = (double)(z & 0x7f);
		}
	}
	for (uint32_t r = 0; r < n && kind != IOM_DIST_ZONED; r++) {
		/* the r-th range by rank goes to position pos (a permutation for n a power of 2) */
		uint32_t pos = kind == IOM_DIST_NORMAL ? r : (uint32_t)(r * 2654435761u) & (n - 1);
		double a = (double)d->lo[r] / (double)slots, b = (double)d->lo[r + 1] / (double)slots;

		switch (kind) {
		case IOM_DIST_ZIPF:
			w[pos] = zipf_mass(d->lo[r] + 1, d->lo[r + 1], param);
			break;
		case IOM_DIST_PARETO:
			w[pos] = pow(b, 1.0 / pw) - pow(a, 1.0 / pw);
			break;
		default: /* normal, around the middle, sigma in % of the region */
			w[pos] = phi((b - 0.5) / (param / 100)) - phi((a - 0.5) / (param / 100));
			break;
		}
	}
	alias_build(d, w, scratch, scratch + n);
out:
	free(w);
	free(scratch);
	if (ret < 0)
		iom_dist_release(d);
	return ret;
}
