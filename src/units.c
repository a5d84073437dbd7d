/* SPDX-License-Identifier: MIT */
/*
 * units — sizes, durations and percentages between the way people write them and numbers.
 *
 * Numbers are parsed by hand, digit by digit, into 128-bit intermediates, never through
 * strtod: "1.5M" is exactly 1572864 bytes and "0.1s" exactly 100 ms, and anything that does not
 * fit in 64 bits is reported instead of wrapping. A number is "D[.D]" followed by an optional
 * unit; a sign, an exponent, "nan" or "inf" are not numbers here.
 */
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

typedef unsigned __int128 u128;

#define MAX_FRAC_DIGITS 18 /* 10^18 < 2^60: fractions stay exact in 128 bits */

/* A decimal number split into its integer part and a fraction of nfrac digits. */
struct decimal {
	u128 ip;        /* integer part (may exceed 64 bits; callers check) */
	uint64_t frac;  /* fraction digits as an integer, trailing zeros removed */
	unsigned nfrac; /* number of significant fraction digits */
	const char *end;/* first character after the number */
};

static const uint64_t pow10_table[MAX_FRAC_DIGITS + 1] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
	1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
	100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
	1000000000000000000ull,
};

/* Reads "D[.D]" at s. Returns 0, or -EINVAL when s does not start with a digit, -ERANGE when
 * the integer part is absurdly long or the fraction has more than 18 significant digits. */
static int read_decimal(const char *s, struct decimal *d)
{
	const u128 cap = (u128)1 << 100;
	char digits[MAX_FRAC_DIGITS + 1];
	unsigned nd = 0;
	bool too_many = false;

	memset(d, 0, sizeof(*d));
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	while (isdigit((unsigned char)*s)) {
		if (d->ip < cap)
			d->ip = d->ip * 10 + (unsigned)(*s - '0');
		s++;
	}
	if (*s == '.') {
		s++;
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		while (isdigit((unsigned char)*s)) {
			if (nd < MAX_FRAC_DIGITS)
				digits[nd++] = *s;
			else if (*s != '0')
				too_many = true;
			s++;
		}
		while (nd > 0 && digits[nd - 1] == '0')
			nd--;
		for (unsigned i = 0; i < nd; i++)
			d->frac = d->frac * 10 + (uint64_t)(digits[i] - '0');
		d->nfrac = nd;
	}
	d->end = s;
	if (d->ip >= cap || too_many)
		return -ERANGE;
	return 0;
}

static const char *skip_space(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* Copies the unit (the rest of s without trailing blanks) into buf. */
static void copy_unit(const char *s, char *buf, size_t len)
{
	size_t n = strlen(s);

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

/* Why s is not a number: the common shapes get their own words. */
static int not_a_number(const char *s, const char *what, const char *units, char *err,
			size_t errlen)
{
	const char *p = skip_space(s);

	if (*p == '\0')
		return iom_err(err, errlen, EINVAL, "empty %s", what);
	if (*p == '-')
		return iom_err(err, errlen, EINVAL, "'%s': a %s cannot be negative", s, what);
	return iom_err(err, errlen, EINVAL, "'%s': not a %s (a number with an optional unit %s)",
		       s, what, units);
}

static const struct {
	const char *name;
	unsigned shift;
} size_units[] = {
	{ "", 0 },    { "b", 0 },
	{ "k", 10 },  { "kb", 10 }, { "kib", 10 },
	{ "m", 20 },  { "mb", 20 }, { "mib", 20 },
	{ "g", 30 },  { "gb", 30 }, { "gib", 30 },
	{ "t", 40 },  { "tb", 40 }, { "tib", 40 },
};

int iom_size_parse(const char *s, uint64_t *bytes, char *err, size_t errlen)
{
	struct decimal d;
	char unit[16];
	int shift = -1;
	u128 whole, part;
	int ret;

	if (!s)
		return iom_err(err, errlen, EINVAL, "empty size");
	ret = read_decimal(skip_space(s), &d);
	if (ret == -EINVAL)
		return not_a_number(s, "size", "K, M, G, T", err, errlen);
	if (ret == -ERANGE)
		return iom_err(err, errlen, ERANGE, "'%s': too large or too precise for a size", s);
	copy_unit(skip_space(d.end), unit, sizeof(unit));
	for (size_t i = 0; i < IOM_ARRAY_SIZE(size_units) && strlen(d.end) < 64; i++) {
		if (strcasecmp(unit, size_units[i].name) == 0) {
			shift = (int)size_units[i].shift;
			break;
		}
	}
	if (shift < 0) {
		char shown[16];

		copy_unit(skip_space(d.end), shown, sizeof(shown));
		return iom_err(err, errlen, EINVAL, "'%s': unknown unit '%s' (use K, M, G, T)", s,
			       shown);
	}
	whole = d.ip << shift;
	part = ((u128)d.frac << shift);
	if (part % pow10_table[d.nfrac] != 0)
		return iom_err(err, errlen, EINVAL, "'%s': not a whole number of bytes", s);
	whole += part / pow10_table[d.nfrac];
	if (whole > UINT64_MAX)
		return iom_err(err, errlen, ERANGE, "'%s': too large (at most 16777215T)", s);
	*bytes = (uint64_t)whole;
	return 0;
}

void iom_size_format(uint64_t bytes, char *buf, size_t len)
{
	static const char names[] = "TGMK";

	for (int i = 0; i < 4; i++) {
		unsigned shift = 40 - 10 * (unsigned)i;
		uint64_t unit = 1ull << shift;

		if (bytes >= unit && bytes % unit == 0) {
			snprintf(buf, len, "%llu%c", (unsigned long long)(bytes >> shift), names[i]);
			return;
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)bytes);
}

static const struct {
	const char *name;
	uint64_t ns;
} time_units[] = {
	{ "ns", 1ull },
	{ "us", 1000ull },
	{ "ms", 1000000ull },
	{ "s", 1000000000ull },
	{ "m", 60000000000ull },
	{ "h", 3600000000000ull },
	{ "", 1000000000ull }, /* a bare number is seconds */
};

int iom_duration_parse(const char *s, uint64_t *ns, char *err, size_t errlen)
{
	struct decimal d;
	char unit[16];
	uint64_t mult = 0;
	u128 total;
	int ret;

	if (!s)
		return iom_err(err, errlen, EINVAL, "empty duration");
	ret = read_decimal(skip_space(s), &d);
	if (ret == -EINVAL)
		return not_a_number(s, "duration", "ms, s, m, h", err, errlen);
	if (ret == -ERANGE)
		return iom_err(err, errlen, ERANGE, "'%s': too long or too precise for a duration",
			       s);
	copy_unit(skip_space(d.end), unit, sizeof(unit));
	for (size_t i = 0; i < IOM_ARRAY_SIZE(time_units) && strlen(d.end) < 64; i++) {
		if (strcmp(unit, time_units[i].name) == 0) {
			mult = time_units[i].ns;
			break;
		}
	}
	if (mult == 0)
		return iom_err(err, errlen, EINVAL, "'%s': unknown unit '%s' (use ms, s, m, h)", s,
			       unit);
	/* The fraction, rounded to the nearest nanosecond. */
	total = d.ip * mult;
	total += ((u128)d.frac * mult + pow10_table[d.nfrac] / 2) / pow10_table[d.nfrac];
	if (d.ip > UINT64_MAX || total > UINT64_MAX)
		return iom_err(err, errlen, ERANGE, "'%s': too long (at most 5124095h)", s);
	*ns = (uint64_t)total;
	return 0;
}

int iom_duration_from_seconds(double s, uint64_t *ns, char *err, size_t errlen)
{
	if (isnan(s))
		return iom_err(err, errlen, EINVAL, "not a duration: NaN");
	if (s < 0)
		return iom_err(err, errlen, EINVAL, "%g: a duration cannot be negative", s);
	if (!(s * 1e9 < 18446744073709551615.0))
		return iom_err(err, errlen, ERANGE, "%g s: too long (at most 5124095h)", s);
	*ns = (uint64_t)llround(s * 1e9);
	return 0;
}

void iom_duration_format(uint64_t ns, char *buf, size_t len)
{
	const uint64_t S = 1000000000ull, MS = 1000000ull;
	unsigned long long v = ns;

	if (ns == 0)
		snprintf(buf, len, "0s");
	else if (ns % (3600 * S) == 0)
		snprintf(buf, len, "%lluh", v / (3600 * S));
	else if (ns % (60 * S) == 0)
		snprintf(buf, len, "%llum", v / (60 * S));
	else if (ns % S == 0)
		snprintf(buf, len, "%llus", v / S);
	else if (ns > S && ns % MS == 0) {
		char frac[8];
		size_t n;

		snprintf(frac, sizeof(frac), "%03llu", (v % S) / MS);
		n = strlen(frac);
		while (n > 1 && frac[n - 1] == '0')
			frac[--n] = '\0';
		snprintf(buf, len, "%llu.%ss", v / S, frac);
	} else if (ns % MS == 0)
		snprintf(buf, len, "%llums", v / MS);
	else if (ns % 1000 == 0)
		snprintf(buf, len, "%lluus", v / 1000);
	else
		snprintf(buf, len, "%lluns", v);
}

void iom_duration_human(uint64_t ns, char *buf, size_t len)
{
	unsigned long long s = ns / 1000000000ull;

	if (s >= 3600)
		snprintf(buf, len, "%lluh %02llum", s / 3600, (s % 3600) / 60);
	else if (s >= 60)
		snprintf(buf, len, "%llum %02llus", s / 60, s % 60);
	else if (ns >= 1000000000ull)
		snprintf(buf, len, "%.1fs", (double)ns / 1e9);
	else if (ns >= 1000000ull)
		snprintf(buf, len, "%llums", (unsigned long long)(ns / 1000000ull));
	else
		snprintf(buf, len, "%lluus", (unsigned long long)(ns / 1000ull));
}

/* A CPU number at *p (decimal, no sign); advances *p. -1 when there is none, -2 when too big. */
static long cpu_number(const char **p)
{
	long v = 0;

	if (!isdigit((unsigned char)**p))
		return -1;
	for (; isdigit((unsigned char)**p); (*p)++) {
		v = v * 10 + (**p - '0');
		if (v >= (long)IOM_CPUS_MAX)
			return -2;
	}
	return v;
}

static const char cpulist_usage[] = "a CPU list such as \"2\", \"0-3\" or \"0,2,4-7\"";

/* The error for what cpu_number() found at a place where a CPU number belongs. */
static int cpu_number_error(long code, const char *s, char *err, size_t errlen)
{
	if (code == -2)
		return iom_err(err, errlen, ERANGE, "'%s': CPUs are numbered 0 to %u", s,
			       IOM_CPUS_MAX - 1);
	return iom_err(err, errlen, EINVAL, "'%s': not %s", s, cpulist_usage);
}

int iom_cpulist_parse(const char *s, unsigned **cpus, unsigned *n, char *err, size_t errlen)
{
	unsigned char seen[IOM_CPUS_MAX] = { 0 };
	unsigned *out = NULL, count = 0;
	const char *p = s ? skip_space(s) : "";
	int ret = 0;

	*cpus = NULL;
	*n = 0;
	if (*p == '\0')
		return iom_err(err, errlen, EINVAL, "an empty CPU list (write %s)", cpulist_usage);
	for (;;) {
		long lo = cpu_number(&p), hi;

		if (lo < 0) {
			ret = cpu_number_error(lo, s, err, errlen);
			goto fail;
		}
		hi = lo;
		if (*p == '-') {
			p++;
			hi = cpu_number(&p);
			if (hi < 0) {
				ret = cpu_number_error(hi, s, err, errlen);
				goto fail;
			}
			if (hi < lo) {
				ret = iom_err(err, errlen, EINVAL, "'%s': the range %ld-%ld runs backwards",
					      s, lo, hi);
				goto fail;
			}
		}
		for (long c = lo; c <= hi; c++) {
			if (seen[c]) {
				ret = iom_err(err, errlen, EINVAL, "'%s': CPU %ld is listed twice", s, c);
				goto fail;
			}
			seen[c] = 1;
			out = xrealloc(out, (count + 1) * sizeof(*out));
			out[count++] = (unsigned)c;
		}
		p = skip_space(p);
		if (*p == '\0')
			break;
		if (*p != ',') {
			ret = cpu_number_error(-1, s, err, errlen);
			goto fail;
		}
		p = skip_space(p + 1);
	}
	*cpus = out;
	*n = count;
	return 0;
fail:
	free(out);
	return ret;
}

int iom_uint_parse(const char *s, uint64_t max, uint64_t *v)
{
	uint64_t n = 0;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		uint64_t d = (uint64_t)(*s - '0');

		if (n > (UINT64_MAX - d) / 10)
			return -ERANGE;
		n = n * 10 + d;
		if (n > max)
			return -ERANGE;
	}
	if (*s)
		return -EINVAL;
	*v = n;
	return 0;
}

int iom_decimal_parse(const char *s, double *x, const char **end)
{
	struct decimal d;
	int ret = read_decimal(s, &d);

	if (ret < 0)
		return ret;
	*x = (double)d.ip + (double)d.frac / (double)pow10_table[d.nfrac];
	*end = d.end;
	return 0;
}

int iom_pct_parse(const char *s, double min, double max, double *pct, char *err, size_t errlen)
{
	struct decimal d;
	const char *p;
	double v;

	if (!s)
		return iom_err(err, errlen, EINVAL, "empty percentage");
	if (read_decimal(skip_space(s), &d) < 0)
		return iom_err(err, errlen, EINVAL, "'%s': not a percentage (write 70 or \"70%%\")",
			       s);
	p = skip_space(d.end);
	if (*p == '%')
		p = skip_space(p + 1);
	if (*p != '\0')
		return iom_err(err, errlen, EINVAL, "'%s': not a percentage (write 70 or \"70%%\")",
			       s);
	v = (double)d.ip + (double)d.frac / (double)pow10_table[d.nfrac];
	if (v < min || v > max)
		return iom_err(err, errlen, ERANGE, "'%s': out of range (%g%% to %g%%)", s, min, max);
	*pct = v;
	return 0;
}

/* ---- numbers as people and files read them ---- */

void iom_sig_format(double x, int sig, char *buf, size_t len)
{
	int dec;

	if (!isfinite(x)) {
		snprintf(buf, len, "-");
		return;
	}
	if (x == 0) {
		snprintf(buf, len, "0");
		return;
	}
	dec = sig - 1 - (int)floor(log10(fabs(x)));
	if (dec < 0)
		dec = 0;
	snprintf(buf, len, "%.*f", dec, x);
	/* 9.9996 at 4 figures prints "10.000": print it again at the right number of decimals. */
	if (dec > 0 && fabs(strtod(buf, NULL)) >= pow(10, sig - dec))
		snprintf(buf, len, "%.*f", dec - 1, x);
}

void iom_count_format(double x, char *buf, size_t len)
{
	static const char *const suffix[] = { "", "K", "M", "G", "T" };
	char num[32];
	size_t i = 0;

	if (!isfinite(x)) {
		snprintf(buf, len, "-");
		return;
	}
	if (x < 99.95) {
		iom_sig_format(x, 3, buf, len);
		return;
	}
	if (x < 9999.5) {
		snprintf(buf, len, "%.0f", x);
		return;
	}
	while (i + 1 < IOM_ARRAY_SIZE(suffix) && x >= 999.95) {
		x /= 1000;
		i++;
	}
	iom_sig_format(x, 4, num, sizeof(num));
	snprintf(buf, len, "%s%s", num, suffix[i]);
}

void iom_lat_format(double ns, char *buf, size_t len)
{
	static const char *const unit[] = { "ns", "µs", "ms", "s" };
	char num[32];
	size_t i = 0;

	if (!isfinite(ns)) {
		snprintf(buf, len, "-");
		return;
	}
	while (i + 1 < IOM_ARRAY_SIZE(unit) && ns >= 999.5) {
		ns /= 1000;
		i++;
	}
	iom_sig_format(ns, 3, num, sizeof(num));
	snprintf(buf, len, "%s%s", num, unit[i]);
}

void iom_double_format(double x, char *buf, size_t len)
{
	double ax = fabs(x);
	int decimals;
	char *dot, *end;

	if (x == 0) {
		snprintf(buf, len, "0");
		return;
	}
	if (ax >= 1e15 || ax < 1e-9) {
		snprintf(buf, len, "%.9g", x);
		return;
	}
	decimals = 8 - (int)floor(log10(ax));
	if (decimals < 0)
		decimals = 0;
	snprintf(buf, len, "%.*f", decimals, x);
	dot = strchr(buf, '.');
	if (!dot)
		return;
	end = buf + strlen(buf) - 1;
	while (end > dot && *end == '0')
		*end-- = '\0';
	if (end == dot)
		*end = '\0';
	if (strcmp(buf, "-0") == 0)
		snprintf(buf, len, "0");
}
