/* bf16mean.h - (internal to libckpt) the mean of bfloat16 inputs stored as
 * bfloat16, the common case of averaging 16-bit checkpoints, in one pass
 * per block without the general path's pair of doubles: the same bits as
 * combine.c's exact mean, at the disk's speed. */
#ifndef CKPT_BF16MEAN_H
#define CKPT_BF16MEAN_H

#include <stddef.h>
#include <stdint.h>

/* Values per call, inputs at most. */
#define CKPT_BF16_BLOCK 512
#define CKPT_BF16_MAX_INPUTS 1024

/* out[i] = the mean of in[0][i] .. in[nin-1][i], correctly rounded to
 * nearest even, for i < n (n <= CKPT_BF16_BLOCK).  Returns 0, having
 * written nothing, for a block this path cannot decide (a NaN or an
 * infinity, or inputs more than 2^40 apart in one element): the general
 * path takes it. */
int ckpt_bf16_mean_block(const uint16_t *const *in, size_t nin, uint16_t *out, size_t n);

#endif
