/* SPDX-License-Identifier: MIT */
/*
 * rng — xoshiro256** (Blackman and Vigna, 2018) seeded through splitmix64, as its authors
 * recommend: the four state words are the first four splitmix64 outputs from the seed, so any
 * seed (0 included) gives a well-mixed, non-zero state. Bounded draws use Lemire's
 * multiply-shift with rejection (no modulo bias, no division on the common path).
 */
#include "rng.h"

#include <string.h>

#define GOLDEN_GAMMA UINT64_C(0x9e3779b97f4a7c15)

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* The splitmix64 output function (Stafford's Mix13 variant). */
static inline uint64_t finalize(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

uint64_t iom_mix64(uint64_t x)
{
	return finalize(x + GOLDEN_GAMMA);
}

void iom_rng_seed(struct iom_rng *r, uint64_t seed)
{
	unsigned i;

	for (i = 0; i < 4; i++) {
		seed += GOLDEN_GAMMA;
		r->s[i] = finalize(seed);
	}
}

uint64_t iom_rng_next(struct iom_rng *r)
{
	uint64_t *s = r->s;
	const uint64_t result = rotl(s[1] * 5, 7) * 9;
	const uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t iom_rng_below(struct iom_rng *r, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)iom_rng_next(r) * n;
	uint64_t low = (uint64_t)m;

	/* Only when low < n can the draw be biased; n == 0 never enters and gives 0. */
	if (__builtin_expect(low < n, 0)) {
		uint64_t threshold = (0 - n) % n;    /* 2^64 mod n */

		while (low < threshold) {
			m = (unsigned __int128)iom_rng_next(r) * n;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

void iom_rng_fill(struct iom_rng *r, void *buf, size_t len)
{
	unsigned char *p = buf;
	uint64_t v;

	while (len >= 8) {
		v = iom_rng_next(r);
		memcpy(p, &v, 8);
		p += 8;
		len -= 8;
	}
	if (len) {
		v = iom_rng_next(r);
		memcpy(p, &v, len);
	}
}
