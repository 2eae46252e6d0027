/* rng.h - the Mersenne Twister exactly as numpy's legacy np.random uses it
 * (np.random.seed(s) is MT19937 init_genrand(s); random_sample() makes a
 * 53-bit double from two 32-bit outputs), so that data drawn here is bit
 * for bit the data numpy draws. */
#ifndef CKPT_RNG_H
#define CKPT_RNG_H

#include <stdint.h>

typedef struct ckpt_rng {
	uint32_t mt[624];
	int i;
} ckpt_rng;

void ckpt_rng_seed(ckpt_rng *r, uint32_t seed);     /* np.random.seed(seed) */
uint32_t ckpt_rng_u32(ckpt_rng *r);
double ckpt_rng_double(ckpt_rng *r);                /* np.random.rand(): [0, 1) */
double ckpt_rng_uniform(ckpt_rng *r, double lo, double hi); /* np.random.uniform */

#endif
