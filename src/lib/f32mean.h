/* f32mean.h - (internal to libckpt) the mean of float32 inputs stored as
 * float32, the common case of averaging checkpoints, in one pass per block
 * without the general path's pair of doubles: the same bits as combine.c's
 * exact mean. */
#ifndef CKPT_F32MEAN_H
#define CKPT_F32MEAN_H

#include <stddef.h>

/* Values per call, inputs at most. */
#define CKPT_F32_BLOCK 512
#define CKPT_F32_MAX_INPUTS 1024

/* out[i] = the mean of in[0][i] .. in[nin-1][i], correctly rounded to
 * nearest even, for i < n (n <= CKPT_F32_BLOCK).  Returns 0, having
 * written nothing, for a block this path cannot decide (a NaN or an
 * infinity, or inputs more than 2^(29 - ceil(log2 nin)) apart in one
 * element): the general path takes it. */
int ckpt_f32_mean_block(const float *const *in, size_t nin, float *out, size_t n);

#endif
