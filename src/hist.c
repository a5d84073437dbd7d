/* SPDX-License-Identifier: MIT */
/*
 * hist — log-linear latency histograms; the layout and error bound are stated in hist.h.
 *
 * The bucket of a value v is found without division: shift = max(⌊log2 v⌋ − 7, 0) comes from
 * one count-leading-zeros (of v | 128, so small values land in shift 0), and then
 * bucket = shift·128 + (v >> shift). For v < 256 that is v itself; above, v >> shift lies in
 * [128, 256) and the groups follow each other every 128 buckets. Values above IOM_HIST_MAX_NS
 * take one rarely-taken branch that clamps them.
 */
#include "hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static inline unsigned bucket_of(uint64_t v)
{
	unsigned shift = (unsigned)(63 - __builtin_clzll(v | IOM_HIST_SUB)) - IOM_HIST_SUB_BITS;

	return (shift << IOM_HIST_SUB_BITS) + (unsigned)(v >> shift);
}

void iom_hist_init(struct iom_hist *h)
{
	memset(h, 0, sizeof(*h));
}

void iom_hist_record(struct iom_hist *h, uint64_t ns)
{
	uint64_t mn;

	if (__builtin_expect(ns > IOM_HIST_MAX_NS, 0)) {
		ns = IOM_HIST_MAX_NS;
		h->clamped++;
	}
	h->bucket[bucket_of(ns)]++;
	mn = h->count ? h->min : UINT64_MAX;
	h->min = ns < mn ? ns : mn;
	h->max = ns > h->max ? ns : h->max;
	h->count++;
	h->sum += ns;
	h->sumsq += (unsigned __int128)ns * ns;
}

void iom_hist_merge(struct iom_hist *dst, const struct iom_hist *src)
{
	unsigned i;

	if (src->count == 0)
		return;
	for (i = 0; i < IOM_HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
	if (dst->count == 0 || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
	dst->clamped += src->clamped;
}

unsigned iom_hist_bucket_of(uint64_t ns)
{
	return bucket_of(ns > IOM_HIST_MAX_NS ? IOM_HIST_MAX_NS : ns);
}

void iom_hist_bucket_range(unsigned b, uint64_t *lo, uint64_t *hi)
{
	unsigned shift;

	if (b >= IOM_HIST_BUCKETS)
		b = IOM_HIST_BUCKETS - 1;
	if (b < 2 * IOM_HIST_SUB) {
		*lo = *hi = b;
		return;
	}
	shift = (b >> IOM_HIST_SUB_BITS) - 1;
	*lo = (uint64_t)(IOM_HIST_SUB + (b & (IOM_HIST_SUB - 1))) << shift;
	*hi = *lo + (UINT64_C(1) << shift) - 1;
}

uint64_t iom_hist_rank(uint64_t count, double pct)
{
	double x;
	uint64_t rank;

	if (count == 0)
		return 0;
	if (!(pct > 0))
		return 1;
	if (pct >= 100)
		return count;
	x = pct / 100.0 * (double)count;
	x = ceil(x * (1 - 1e-12));
	rank = x < 1 ? 1 : (uint64_t)x;
	return rank > count ? count : rank;
}

uint64_t iom_hist_percentile(const struct iom_hist *h, double pct)
{
	uint64_t rank, cum = 0, lo, hi, mid;
	unsigned b;

	if (h->count == 0)
		return 0;
	if (!(pct > 0))
		return h->min;
	if (pct >= 100)
		return h->max;
	rank = iom_hist_rank(h->count, pct);
	for (b = 0; b < IOM_HIST_BUCKETS - 1; b++) {
		cum += h->bucket[b];
		if (cum >= rank)
			break;
	}
	iom_hist_bucket_range(b, &lo, &hi);
	mid = lo + (hi - lo + 1) / 2;
	if (mid < h->min)
		mid = h->min;
	if (mid > h->max)
		mid = h->max;
	return mid;
}

double iom_hist_mean(const struct iom_hist *h)
{
	if (h->count == 0)
		return 0;
	return (double)((long double)h->sum / (long double)h->count);
}

double iom_hist_stddev(const struct iom_hist *h)
{
	unsigned __int128 n = h->count, q, r, d;
	long double var;

	if (h->count < 2)
		return 0;
	/*
	 * (sumsq − sum²/n) / (n − 1) without cancellation: with sum = q·n + r (0 ≤ r < n),
	 * sumsq − sum²/n = d − r²/n where d = sumsq − q·(sum + r) is an exact integer (≥ r²/n by
	 * Cauchy–Schwarz) and only the small r²/n < n is rounded.
	 */
	q = h->sum / n;
	r = h->sum % n;
	d = h->sumsq - q * (h->sum + r);
	var = ((long double)d - (long double)r * ((long double)r / (long double)n)) /
	      (long double)(h->count - 1);
	if (var < 0)
		var = 0;
	return (double)sqrtl(var);
}

void iom_hist_sparse_of(struct iom_hist_sparse *s, const struct iom_hist *h)
{
	uint32_t n = 0;

	memset(s, 0, sizeof(*s));
	for (unsigned b = 0; b < IOM_HIST_BUCKETS; b++)
		n += h->bucket[b] != 0;
	s->count = h->count;
	s->min = h->min;
	s->max = h->max;
	s->clamped = h->clamped;
	s->sum = h->sum;
	s->sumsq = h->sumsq;
	s->bins = n ? xcalloc(n, sizeof(*s->bins)) : NULL;
	for (unsigned b = 0; n && b < IOM_HIST_BUCKETS; b++)
		if (h->bucket[b])
			s->bins[s->nbins++] = (struct iom_hist_bin){ .b = b, .n = h->bucket[b] };
}

void iom_hist_sparse_merge(struct iom_hist *dst, const struct iom_hist_sparse *s)
{
	if (s->count == 0)
		return;
	for (uint32_t i = 0; i < s->nbins; i++)
		dst->bucket[s->bins[i].b < IOM_HIST_BUCKETS ? s->bins[i].b : IOM_HIST_BUCKETS - 1] +=
			s->bins[i].n;
	if (dst->count == 0 || s->min < dst->min)
		dst->min = s->min;
	if (s->max > dst->max)
		dst->max = s->max;
	dst->count += s->count;
	dst->sum += s->sum;
	dst->sumsq += s->sumsq;
	dst->clamped += s->clamped;
}

void iom_hist_sparse_copy(struct iom_hist_sparse *dst, const struct iom_hist_sparse *src)
{
	*dst = *src;
	dst->bins = NULL;
	if (src->nbins) {
		dst->bins = xcalloc(src->nbins, sizeof(*dst->bins));
		memcpy(dst->bins, src->bins, src->nbins * sizeof(*dst->bins));
	}
}

void iom_hist_sparse_release(struct iom_hist_sparse *s)
{
	free(s->bins);
	memset(s, 0, sizeof(*s));
}

const char *iom_hist_sparse_invalid(const struct iom_hist_sparse *s)
{
	uint64_t total = 0;

	for (uint32_t i = 0; i < s->nbins; i++) {
		if (s->bins[i].b >= IOM_HIST_BUCKETS)
			return "has a bucket beyond the histogram's range";
		if (i && s->bins[i].b <= s->bins[i - 1].b)
			return "has buckets out of order";
		if (s->bins[i].n == 0)
			return "has an empty bucket";
		if (total + s->bins[i].n < total)
			return "has counts that overflow";
		total += s->bins[i].n;
	}
	if (total != s->count)
		return "has buckets that do not add up to its count";
	if (s->nbins && (bucket_of(s->min) != s->bins[0].b ||
			 bucket_of(s->max > IOM_HIST_MAX_NS ? IOM_HIST_MAX_NS : s->max) !=
				 s->bins[s->nbins - 1].b))
		return "has a min or max outside its first or last bucket";
	return NULL;
}

void iom_hist_add_live(struct iom_hist *dst, const struct iom_hist *live)
{
	uint64_t mx = __atomic_load_n(&live->max, __ATOMIC_RELAXED);
	uint64_t mn = __atomic_load_n(&live->min, __ATOMIC_RELAXED);
	unsigned lo = bucket_of(mn > IOM_HIST_MAX_NS ? IOM_HIST_MAX_NS : mn);
	unsigned hi = bucket_of(mx > IOM_HIST_MAX_NS ? IOM_HIST_MAX_NS : mx);

	/* min is 0 until the first value, then only falls: [lo, hi] only grows */
	for (unsigned b = lo; b <= hi; b++) {
		uint64_t v = __atomic_load_n(&live->bucket[b], __ATOMIC_RELAXED);

		dst->bucket[b] += v;
		dst->count += v;
	}
	if (mx > dst->max)
		dst->max = mx;
}

void iom_hist_delta(const struct iom_hist *now, const struct iom_hist *base, const double *pcts,
		    unsigned n, uint64_t *out, uint64_t *count, uint64_t *max)
{
	uint64_t total = 0, cum = 0, lo, hi;
	unsigned b, top = 0, k = 0;

	for (b = 0; b < IOM_HIST_BUCKETS; b++) {
		uint64_t d = now->bucket[b] > base->bucket[b] ? now->bucket[b] - base->bucket[b] : 0;

		total += d;
		if (d)
			top = b;
	}
	*count = total;
	*max = 0;
	for (k = 0; k < n; k++)
		out[k] = 0;
	if (!total)
		return;
	iom_hist_bucket_range(top, &lo, &hi);
	*max = hi < now->max ? hi : now->max;
	/* pcts ascending: one walk finds them all */
	for (b = 0, k = 0; b < IOM_HIST_BUCKETS && k < n && pcts[k] < 100; b++) {
		cum += now->bucket[b] > base->bucket[b] ? now->bucket[b] - base->bucket[b] : 0;
		while (k < n && pcts[k] < 100 && cum >= iom_hist_rank(total, pcts[k]) && cum) {
			iom_hist_bucket_range(b, &lo, &hi);
			lo += (hi - lo + 1) / 2;
			out[k++] = lo < *max ? lo : *max;
		}
	}
	for (; k < n; k++)
		out[k] = *max;
}

void iom_hist_coarse_add(const struct iom_hist *now, const struct iom_hist *base, uint64_t *out)
{
	for (unsigned b = 0; b < IOM_HIST_BUCKETS; b++)
		if (now->bucket[b] > base->bucket[b])
			out[b / IOM_HIST_COARSE_STEP] += now->bucket[b] - base->bucket[b];
}

void iom_hist_coarse_delta(const uint64_t *coarse, const double *pcts, unsigned n, uint64_t *out,
			   uint64_t *count, uint64_t *max)
{
	struct iom_hist *h = xcalloc(2, sizeof(*h));

	for (unsigned g = 0; g < IOM_HIST_COARSE; g++)
		h->bucket[g * IOM_HIST_COARSE_STEP + IOM_HIST_COARSE_STEP / 2] = coarse[g];
	h->max = IOM_HIST_MAX_NS;
	iom_hist_delta(h, h + 1, pcts, n, out, count, max);
	free(h);
}
