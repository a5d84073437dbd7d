/* SPDX-License-Identifier: MIT */
/*
 * hist — log-linear latency histograms (HdrHistogram's layout). Values are nanoseconds. Bucket
 * group k covers [2^k, 2^(k+1)) split into IOM_HIST_SUB linear sub-buckets, so every bucket is
 * at most 1/IOM_HIST_SUB of its lower bound wide; a percentile is reported as the midpoint of
 * its bucket, so its relative error is at most 1/(2·IOM_HIST_SUB) = 0.39 %, always ≤ 1 %.
 * Values below 2·IOM_HIST_SUB ns are exact (buckets one nanosecond wide). The range reaches
 * IOM_HIST_MAX_NS = 2^IOM_HIST_GROUPS − 1 ns (≈ 73 minutes); larger values are recorded as
 * IOM_HIST_MAX_NS (bucket, min, max, sum, sumsq alike) and counted in `clamped`. Memory is fixed:
 * one histogram is IOM_HIST_BUCKETS 8-byte counters (36 KiB), allocated by the caller.
 *
 * Recording is a few instructions and touches one counter: fit for the hot path. Min, max, sum
 * and sum of squares are kept exactly (integers; 128-bit sums cannot overflow in practice), so
 * mean and stddev are exact up to the final floating-point division.
 *
 * Layout: bucket b < 2·IOM_HIST_SUB holds the value b; above, with shift = b/IOM_HIST_SUB − 1,
 * bucket b holds [(IOM_HIST_SUB + b % IOM_HIST_SUB) << shift, … + (1 << shift) − 1].
 */
#ifndef IOM_HIST_H
#define IOM_HIST_H

#include <stdint.h>

#define IOM_HIST_SUB_BITS 7
#define IOM_HIST_SUB (1u << IOM_HIST_SUB_BITS)
#define IOM_HIST_GROUPS 42
#define IOM_HIST_BUCKETS ((IOM_HIST_GROUPS - IOM_HIST_SUB_BITS + 1) * IOM_HIST_SUB)
#define IOM_HIST_MAX_NS ((UINT64_C(1) << IOM_HIST_GROUPS) - 1)

struct iom_hist {
	uint64_t count;
	uint64_t min, max;         /* 0 and 0 while count is 0 */
	unsigned __int128 sum;     /* of values in ns: exact; use iom_hist_mean() */
	unsigned __int128 sumsq;   /* of squared values: exact; use iom_hist_stddev() */
	uint64_t clamped;          /* values beyond IOM_HIST_MAX_NS, recorded as IOM_HIST_MAX_NS */
	uint64_t bucket[IOM_HIST_BUCKETS];
};

/* Empties h (caller's storage). */
void iom_hist_init(struct iom_hist *h);
/* Records one value in ns: no allocation, no lock, no division. */
void iom_hist_record(struct iom_hist *h, uint64_t ns);
/* Adds src into dst exactly (as if every value of src had been recorded into dst). */
void iom_hist_merge(struct iom_hist *dst, const struct iom_hist *src);
/*
 * The value at percentile pct: the midpoint of the bucket holding the value of rank
 * ceil(pct/100 · count) (1-based, in sorted order), kept within [min, max]; 0 for an empty
 * histogram. pct ≥ 100 gives max, pct ≤ 0 gives min.
 */
uint64_t iom_hist_percentile(const struct iom_hist *h, double pct);
/* The rank iom_hist_percentile looks up (1 … count), rounding pct/100·count up with a little
 * tolerance for floating-point noise (99.9 % of 1000 is rank 999); 0 when count is 0. */
uint64_t iom_hist_rank(uint64_t count, double pct);
/* Exact mean in ns; 0 for an empty histogram. */
double iom_hist_mean(const struct iom_hist *h);
/* Sample standard deviation (n − 1) in ns; 0 when count < 2. */
double iom_hist_stddev(const struct iom_hist *h);
/* Bucket index of a value, and the [lo, hi] range a bucket covers (for tests and traces). */
unsigned iom_hist_bucket_of(uint64_t ns);
void iom_hist_bucket_range(unsigned b, uint64_t *lo, uint64_t *hi);

/*
 * Reading a histogram another thread is recording into (the run's per-interval latencies, read
 * by the controller once a second; nothing is added to the hot path). iom_hist_add_live adds
 * what live holds now into dst: the buckets between those of its min and max, each read whole
 * (relaxed atomic loads of counters the recording thread increments), and its max. A value
 * recorded meanwhile may be missed, and is then counted at the next read; counts never go back,
 * so of two reads the later holds at least the earlier's. dst's count is the sum of what was
 * read. iom_hist_delta gives the percentiles pcts[0..n) (ascending; midpoints, as
 * iom_hist_percentile; 100 and above: the max), the count and the max (the upper bound of the
 * highest non-empty bucket, not above now's max) of the values in now and not in base: one
 * interval's latencies.
 */
void iom_hist_add_live(struct iom_hist *dst, const struct iom_hist *live);
/*
 * An interval's latencies to be summed with other hosts' (hosts.c): the values in now and not
 * in base, in IOM_HIST_COARSE groups of IOM_HIST_COARSE_STEP buckets each (1/16 of a power of
 * two wide), added into out; iom_hist_coarse_delta gives their percentiles and max as
 * iom_hist_delta does, each value at its group's middle bucket's midpoint: within 4.5/128 of the
 * power of two below it (about 3.5 %), always within the group's width of the exact value.
 */
#define IOM_HIST_COARSE_STEP 8
#define IOM_HIST_COARSE (IOM_HIST_BUCKETS / IOM_HIST_COARSE_STEP)
void iom_hist_coarse_add(const struct iom_hist *now, const struct iom_hist *base, uint64_t *out);
void iom_hist_coarse_delta(const uint64_t *coarse, const double *pcts, unsigned n, uint64_t *out,
			   uint64_t *count, uint64_t *max);
void iom_hist_delta(const struct iom_hist *now, const struct iom_hist *base, const double *pcts,
		    unsigned n, uint64_t *out, uint64_t *count, uint64_t *max);

/*
 * The kept form of a histogram: its non-empty buckets only, in ascending order, with the exact
 * count, min, max, sums and clamped count — everything iom_hist holds, so a histogram taken
 * apart and merged back is the same histogram (run files keep latencies this way, and the
 * report pools repetitions from it). A 4K random read of a second keeps a few hundred bins of
 * the 4736 buckets.
 */
struct iom_hist_bin {
	uint32_t b;                /* bucket index */
	uint64_t n;                /* values in it (> 0) */
};
struct iom_hist_sparse {
	uint64_t count, min, max, clamped;
	unsigned __int128 sum, sumsq;
	uint32_t nbins;
	struct iom_hist_bin *bins; /* heap, nbins entries; NULL when nbins is 0 */
};
/* s (caller's storage) as the non-empty buckets of h; release with iom_hist_sparse_release. */
void iom_hist_sparse_of(struct iom_hist_sparse *s, const struct iom_hist *h);
/* Adds s into dst exactly (as iom_hist_merge of the histogram s was taken from). */
void iom_hist_sparse_merge(struct iom_hist *dst, const struct iom_hist_sparse *s);
/* A copy of src into dst (caller's storage; its own bins). */
void iom_hist_sparse_copy(struct iom_hist_sparse *dst, const struct iom_hist_sparse *src);
/* Frees s's bins and empties it. */
void iom_hist_sparse_release(struct iom_hist_sparse *s);
/* Whether s is one a histogram could have: bins ascending, in range and non-empty, adding up
 * to count, min and max in the first and last bins' buckets; NULL, or what is wrong. */
const char *iom_hist_sparse_invalid(const struct iom_hist_sparse *s);

#endif
