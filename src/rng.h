/* SPDX-License-Identifier: MIT */
/*
 * rng — a fast, seedable pseudo-random generator (xoshiro256**, seeded through splitmix64). The
 * same seed gives the same sequence on every machine, so the same plan gives the same offsets.
 * A generator is 32 bytes of caller's storage; it is not shared between threads (one per worker).
 */
#ifndef IOM_RNG_H
#define IOM_RNG_H

#include <stddef.h>
#include <stdint.h>

struct iom_rng {
	uint64_t s[4];
};

/* Seeds r: its state is the first four splitmix64 outputs from seed (any seed, 0 included). */
void iom_rng_seed(struct iom_rng *r, uint64_t seed);
/* The next 64 uniformly distributed bits. */
uint64_t iom_rng_next(struct iom_rng *r);
/* Uniform in [0, n) without modulo bias (Lemire's multiply-shift with rejection); n > 0
 * (n == 0 gives 0). */
uint64_t iom_rng_below(struct iom_rng *r, uint64_t n);
/*
 * splitmix64 step: the splitmix64 output for state x, i.e. its finalizer applied to
 * x + 0x9e3779b97f4a7c15. Mixes a value into a well-spread 64-bit seed (used to derive seeds);
 * iom_mix64(seed) is also the first state word iom_rng_seed(seed) sets.
 */
uint64_t iom_mix64(uint64_t x);
/* Fills len bytes with pseudo-random (incompressible) data, 8 bytes per step. */
void iom_rng_fill(struct iom_rng *r, void *buf, size_t len);

#endif
