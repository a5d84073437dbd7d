/* SPDX-License-Identifier: MIT */
/*
 * units — sizes, durations and percentages as people write them ("4K", "1.5M", "500ms", "90m",
 * "70%") to and from numbers, with precise errors. K, M, G and T are powers of 1024 (a "K" is
 * 1024 bytes, as block sizes are always meant); "KiB" and "KB" are accepted as the same unit.
 * Durations are stored in nanoseconds; a bare number of a duration is seconds.
 *
 * Parsers never overflow: a value that does not fit (2^64 bytes, "1e308s", NaN) is an error,
 * never undefined behaviour. Error texts quote the input and say what is allowed:
 *     '4Q': unknown unit 'Q' (use K, M, G, T)
 */
#ifndef IOM_UNITS_H
#define IOM_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Parses a size: "512", "4K", "4k", "4KiB", "4KB", "1.5M", "64M", "1G", "2T", "512B". A
 * fraction must come to a whole number of bytes. Returns 0, or -EINVAL / -ERANGE with err. */
int iom_size_parse(const char *s, uint64_t *bytes, char *err, size_t errlen);

/* Formats bytes in the largest unit that divides it exactly: 4096 → "4K", 12 MiB → "12M",
 * 1536 → "1536" (1.5 K is not a whole unit). Needs at most 24 bytes. */
void iom_size_format(uint64_t bytes, char *buf, size_t len);

/* A whole decimal number with nothing before or after it, at most max: 0, -EINVAL (not such a
 * number, or s NULL) or -ERANGE (above max). */
int iom_uint_parse(const char *s, uint64_t max, uint64_t *v);

/* Parses a duration: "500ms", "1.5s", "90m", "2h", "250us", "100ns", "0", "30" (seconds).
 * Stored as nanoseconds, rounded to the nearest. Returns 0, or -EINVAL / -ERANGE with err. */
int iom_duration_parse(const char *s, uint64_t *ns, char *err, size_t errlen);

/* Parses a duration given as a number of seconds (as libconfig hands over 1.5 or 30). */
int iom_duration_from_seconds(double s, uint64_t *ns, char *err, size_t errlen);

/* Formats a duration as it would be written in a matrix: the largest unit that gives a whole
 * number (5400 s → "90m", 2 h → "2h"), else seconds with up to three decimals ("1.5s"),
 * else ms/us/ns; 0 → "0s". Parses back to the same value when it is whole microseconds. */
void iom_duration_format(uint64_t ns, char *buf, size_t len);

/* Formats a duration for people: "2h 05m", "12m 36s", "19.2s", "350ms". */
void iom_duration_human(uint64_t ns, char *buf, size_t len);

/* Reads a plain decimal number "D[.D]" at s (no sign, exponent, hex, octal, "inf" or "nan",
 * which strtod would take: "0x10" is not 16 here), setting *end after it. Returns 0, or
 * -EINVAL when s does not start with one, -ERANGE when it is absurdly long. */
int iom_decimal_parse(const char *s, double *x, const char **end);

/* Parses a percentage "70", "70%", "2.5%" within [min, max]. Returns 0 or -EINVAL / -ERANGE. */
int iom_pct_parse(const char *s, double min, double max, double *pct, char *err, size_t errlen);

/* The most CPUs a CPU list may name (CPU numbers 0 … IOM_CPUS_MAX − 1, as cpu_set_t holds). */
#define IOM_CPUS_MAX 1024u

/* Parses a CPU list as taskset(1) and /sys/devices/system/cpu/online write it: "3", "0-3",
 * "0,2,4-7", kept in the order written (thread i runs on the i-th CPU, round-robin). A CPU
 * named twice, a range that runs backwards, or a CPU beyond IOM_CPUS_MAX is an error.
 * *cpus is the caller's to free. Returns 0, or -EINVAL / -ERANGE with err. */
int iom_cpulist_parse(const char *s, unsigned **cpus, unsigned *n, char *err, size_t errlen);

/* ---- numbers as people and files read them ---- */

/* x ≥ 0 at sig significant figures, no exponent: "57.76", "1234", "0.1234"; "-" when not
 * finite. */
void iom_sig_format(double x, int sig, char *buf, size_t len);

/* A count at 3–4 significant figures with a decimal suffix: "56.3", "9040", "12.35K",
 * "1.234M"; "-" when not finite. */
void iom_count_format(double x, char *buf, size_t len);

/* A latency in ns at 3 significant figures: "850ns", "70.9µs", "1.23ms"; "-" when not finite. */
void iom_lat_format(double ns, char *buf, size_t len);

/* A double as the files iomatrix writes hold it (runs/NNNNN.json, study.json, summary.csv, the
 * csv and json reports): nine significant digits, no exponent for magnitudes in [1e-9, 1e15),
 * trailing zeros trimmed, "-0" as "0". x must be finite. Needs at most 64 bytes. */
void iom_double_format(double x, char *buf, size_t len);

#endif
