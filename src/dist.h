/* SPDX-License-Identifier: MIT */
/*
 * dist — the distributions of random offsets (the workload key `distribution`):
 * uniform, zipf:θ, pareto:h, normal:σ% and zoned:A/S:A/S… with fio's meanings, as one coded
 * number and as a table that draws from them in constant time.
 *
 * The code. A distribution is one int64 so that it can be a dimension like any other (the plan,
 * the seeds and the results hold it as a number; the key table formats it back): bits 0-3 the
 * kind (0 uniform, the default, so a matrix without the key keeps its seeds); zipf, pareto and
 * normal keep their parameter in thousandths from bit 4 (θ, h, σ in % of the region); zoned
 * keeps up to IOM_DIST_MAX_ZONES zones of 14 bits from bit 4, each A (7 bits, % of accesses)
 * then S (7 bits, % of the region, at least 1). Parameters have at most three decimals.
 *
 * The table. The region's slots (random offsets, see worker.h) are cut into ranges: for zoned,
 * one per zone, in order from the start of the region; for the others, n equal ranges
 * (n = the largest power of two at most min(slots, 4096)). Each range gets the probability the
 * distribution gives its slots — summed exactly for a zipf range's first 1024 ranks, the rest by
 * the integral of x^-θ; pareto from its CDF x^(1/p), p = log h / log(1 - h), as fio's
 * n = N·u^p; normal from Φ around the middle of the region (truncated to it) — and an alias
 * table (Walker, Vose's construction) picks a range with one 64-bit draw; a second draw picks a
 * slot inside it, uniformly. fio computes zipf's normalising sum over up to 10 M terms and
 * scatters the ranks by a hash; here the ranks of zipf and pareto are scattered over the ranges
 * by an odd multiplier modulo n (a permutation), so the hot slots are spread over the region as
 * with fio, and two draws of the generator are the whole cost per I/O. Inside a range slots are
 * equally likely: the skew is exact at the grain of 1/n of the region (1/4096 for a large one).
 * The generator is the worker's own, so the offsets are deterministic per seed.
 */
#ifndef IOM_DIST_H
#define IOM_DIST_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"

enum iom_dist_kind {
	IOM_DIST_UNIFORM,
	IOM_DIST_ZIPF,
	IOM_DIST_PARETO,
	IOM_DIST_NORMAL,
	IOM_DIST_ZONED,
};

#define IOM_DIST_MAX_ZONES 4
#define IOM_DIST_MAX_RANGES 4096

/* "uniform", "zipf:1.2", "pareto:0.2", "normal:5%", "zoned:60/10:30/20:10/70" → the code in *v.
 * 0, or -EINVAL with "distribution '…' …" in err. */
int iom_dist_parse(const char *text, int64_t *v, char *err, size_t errlen);
/* The code v as iom_dist_parse reads it ("zipf:1.2"); "?" for a code it would not make. */
void iom_dist_format(int64_t v, char *buf, size_t len);
/* The kind of code v. */
static inline enum iom_dist_kind iom_dist_kind(int64_t v)
{
	return (enum iom_dist_kind)(v & 0xf);
}

/* A distribution's table over `slots` slots (the caller's storage; iom_dist_release frees). */
struct iom_dist {
	uint32_t n;          /* ranges; 0: no table (uniform) */
	uint64_t *lo;        /* n + 1 bounds: range i is slots [lo[i], lo[i + 1]) */
	uint64_t *thresh;    /* alias method: keep i when the low 32 bits of the draw are below */
	uint32_t *alias;     /* … else take alias[i] */
};

/*
 * Builds d for code v over slots slots (slots ≥ 1). A uniform code builds nothing (d->n = 0).
 * 0; -EINVAL with a message when a zone of zoned holds no slot; -ENOMEM when the table cannot
 * be had. Release with iom_dist_release() (also after a failure).
 */
int iom_dist_build(struct iom_dist *d, int64_t v, uint64_t slots, char *err, size_t errlen);
/* Whether code v can be built over slots slots: every zone of a zoned code holds a slot (what
 * iom_dist_build refuses, without building; `check` asks it of each target's region). 0, or
 * -EINVAL with the message iom_dist_build gives. */
int iom_dist_fits(int64_t v, uint64_t slots, char *err, size_t errlen);
void iom_dist_release(struct iom_dist *d);

/* A slot in [0, slots) drawn from d (d->n > 0), with two draws of r. */
static inline uint64_t iom_dist_draw(const struct iom_dist *d, struct iom_rng *r)
{
	uint64_t u = iom_rng_next(r);
	uint32_t i = (uint32_t)(((u >> 32) * d->n) >> 32);

	if ((u & 0xffffffffu) >= d->thresh[i])
		i = d->alias[i];
	return d->lo[i] + iom_rng_below(r, d->lo[i + 1] - d->lo[i]);
}

#endif
