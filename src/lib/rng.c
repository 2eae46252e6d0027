/* rng.c - MT19937 (Matsumoto and Nishimura), numpy's legacy generator. */
#include "rng.h"

void ckpt_rng_seed(ckpt_rng *r, uint32_t seed)
{
	r->mt[0] = seed;
	for (int i = 1; i < 624; i++)
		r->mt[i] = 1812433253u * (r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) + (uint32_t)i;
	r->i = 624;
}

static void twist(ckpt_rng *r)
{
	for (int i = 0; i < 624; i++) {
		uint32_t y = (r->mt[i] & 0x80000000u) | (r->mt[(i + 1) % 624] & 0x7fffffffu);

		r->mt[i] = r->mt[(i + 397) % 624] ^ (y >> 1) ^ (y & 1 ? 0x9908b0dfu : 0);
	}
	r->i = 0;
}

uint32_t ckpt_rng_u32(ckpt_rng *r)
{
	uint32_t y;

	if (r->i >= 624)
		twist(r);
	y = r->mt[r->i++];
	y ^= y >> 11;
	y ^= (y << 7) & 0x9d2c5680u;
	y ^= (y << 15) & 0xefc60000u;
	y ^= y >> 18;
	return y;
}

double ckpt_rng_double(ckpt_rng *r)
{
	uint32_t a = ckpt_rng_u32(r) >> 5, b = ckpt_rng_u32(r) >> 6;

	return (a * 67108864.0 + b) / 9007199254740992.0;
}

double ckpt_rng_uniform(ckpt_rng *r, double lo, double hi)
{
	return lo + (hi - lo) * ckpt_rng_double(r);
}
