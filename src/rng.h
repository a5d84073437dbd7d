/*
 * rng — a fast, seedable pseudo-random generator (xoshiro256**, seeded through splitmix64). The
 * same seed gives the same sequence on every machine, so the same plan gives the same offsets.
 */
#ifndef IOM_RNG_H
#define IOM_RNG_H

#include <stddef.h>
#include <stdint.h>

struct iom_rng {
	uint64_t s[4];
};

void iom_rng_seed(struct iom_rng *r, uint64_t seed);
uint64_t iom_rng_next(struct iom_rng *r);
/* Uniform in [0, n) without modulo bias (Lemire's method); n > 0. */
uint64_t iom_rng_below(struct iom_rng *r, uint64_t n);
/* splitmix64 step: mixes a value into a well-spread 64-bit seed (also used to derive seeds). */
uint64_t iom_mix64(uint64_t x);
/* Fills len bytes with pseudo-random (incompressible) data. */
void iom_rng_fill(struct iom_rng *r, void *buf, size_t len);

#endif
