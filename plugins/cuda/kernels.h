/* SPDX-License-Identifier: MIT */
/*
 * plugins/cuda/kernels.h: what the host side of the CUDA plugin (cuda.c,
 * plain C) calls in the kernels (kernels.cu, compiled by nvcc). C linkage,
 * no CUDA header needed to include it.
 *
 * kernels.cu is compiled twice: once as it is (the object of the `ieee`
 * and `intrinsic` flavours) and once with --use_fast_math and
 * CUDA_KERNELS_FAST defined (the object of the `fast-math` flavour). Each
 * plugin file links one of the two objects, so the function below has one
 * name in both.
 */
#ifndef DVG_PLUGINS_CUDA_KERNELS_H
#define DVG_PLUGINS_CUDA_KERNELS_H

#include <stdint.h>

#include "divergence/iut.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a/b is computed for the float types (integers: one rule for all). */
#define CUDA_FLAVOUR_IEEE      1u /* a / b: div.rn.f32, div.rn.f64; f16 and bf16
                                     through f32 and one rounding */
#define CUDA_FLAVOUR_INTRINSIC 2u /* __fdividef (f32), __hdiv (f16, bf16),
                                     a / b (f64: CUDA has no faster one) */
#define CUDA_FLAVOUR_FAST_MATH 3u /* the IEEE flavour's code compiled with
                                     --use_fast_math (kernels.cu, fast object) */

/*
 * C = A / B as an index walk: output element i (0 <= i < count), written
 * row-major over dims[0..rank-1], reads A at element offset sum(x_k * as[k])
 * and B at sum(x_k * bs[k]), x_k being i's index along dimension k; a
 * stride of 0 broadcasts. rank >= 1; dims[k] >= 1.
 */
typedef struct cuda_plan {
    uint32_t rank;
    uint32_t reserved; /* zero */
    int64_t count;     /* elements of C, > 0 */
    int64_t dims[DVG_MAX_RANK];
    int64_t as[DVG_MAX_RANK];
    int64_t bs[DVG_MAX_RANK];
} cuda_plan;

/*
 * Launches C = A / B on `stream` (a cudaStream_t) for `dtype` under
 * `flavour`; `floor` (integer types): 1 rounds toward negative infinity, 0
 * truncates. a, b, c: device memory holding the operands and the output,
 * dense, i4/u4 packed two per byte, low nibble first; for i4/u4 every
 * byte of C that holds an element is written whole (the high nibble of
 * the last byte of an odd count is the host's to restore). Integer x / 0
 * gives 0 and INT_MIN / -1 gives INT_MIN, without dividing.
 * Returns 0 (cudaSuccess) when the launch was accepted, else the
 * cudaError_t of the launch; cudaErrorInvalidValue (1) for a dtype or
 * flavour this object does not hold.
 */
int cuda_kernels_launch(uint32_t flavour, uint32_t dtype, int floor, const cuda_plan *plan,
                        const void *a, const void *b, void *c, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* DVG_PLUGINS_CUDA_KERNELS_H */
