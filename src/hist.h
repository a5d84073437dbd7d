/*
 * hist — log-linear latency histograms (HdrHistogram's layout). Values are nanoseconds. Bucket
 * group k covers [2^k, 2^(k+1)) split into IOM_HIST_SUB linear sub-buckets, so every bucket is
 * at most 1/IOM_HIST_SUB of its lower bound wide; a percentile is reported as the midpoint of
 * its bucket, so its relative error is at most 1/(2·IOM_HIST_SUB) = 0.39 %, always ≤ 1 %.
 * Values below IOM_HIST_SUB ns are exact. The range reaches 2^IOM_HIST_GROUPS ns (≈ 73 minutes);
 * larger values are clamped into the last bucket (and counted in `clamped`). Memory is fixed:
 * one histogram is IOM_HIST_BUCKETS 8-byte counters, allocated by the caller.
 *
 * Recording is a few instructions and touches one counter: fit for the hot path. Min, max, sum
 * and sum of squares are kept exactly alongside, so mean and stddev are exact.
 */
#ifndef IOM_HIST_H
#define IOM_HIST_H

#include <stdint.h>

#define IOM_HIST_SUB_BITS 7
#define IOM_HIST_SUB (1u << IOM_HIST_SUB_BITS)
#define IOM_HIST_GROUPS 42
#define IOM_HIST_BUCKETS ((IOM_HIST_GROUPS - IOM_HIST_SUB_BITS + 1) * IOM_HIST_SUB)

struct iom_hist {
	uint64_t count;
	uint64_t min, max;
	double sum, sumsq;      /* of values in ns, for exact mean and stddev */
	uint64_t clamped;       /* values beyond the range, kept in the last bucket */
	uint64_t bucket[IOM_HIST_BUCKETS];
};

void iom_hist_init(struct iom_hist *h);
void iom_hist_record(struct iom_hist *h, uint64_t ns);
/* Adds src into dst exactly. */
void iom_hist_merge(struct iom_hist *dst, const struct iom_hist *src);
/* The value at percentile pct (0 < pct ≤ 100); 0 for an empty histogram. pct 100 is max. */
uint64_t iom_hist_percentile(const struct iom_hist *h, double pct);
double iom_hist_mean(const struct iom_hist *h);
double iom_hist_stddev(const struct iom_hist *h);
/* Bucket index of a value, and the [lo, hi] range a bucket covers (for tests and traces). */
unsigned iom_hist_bucket_of(uint64_t ns);
void iom_hist_bucket_range(unsigned b, uint64_t *lo, uint64_t *hi);

#endif
