/* SPDX-License-Identifier: MIT */
/*
 * plugins/cuda/kernels.cu: the CUDA Div kernels (interface: kernels.h).
 *
 * One kernel shape for every dtype: a grid-stride loop over the elements of
 * C, each thread turning its element index into the offsets of its A and B
 * elements by index arithmetic over the plan's dimensions (a stride of 0
 * broadcasts), so every broadcasting rule of every variant is the host's
 * plan and nothing else. i4 and u4: a thread owns one byte of C (two
 * elements), so that no two threads write one byte.
 *
 * The per-element code is elements.h (shared with the host emulation the
 * tests certify); this file holds the kernels and their launches.
 *
 * Floats, per flavour (kernels.h):
 *  - Plain: `x / y` as written. Compiled as it is this is div.rn.f32 and
 *    div.rn.f64, IEEE division rounded to nearest even with subnormals; f16
 *    and bf16 are widened exactly to f32, divided there and rounded once to
 *    their format (__float2half_rn, __float2bfloat16_rn). That is correctly
 *    rounded: the f32 quotient is the exact one rounded to 24 bits, and a
 *    second rounding to p bits is innocuous when 24 >= 2p + 2 (p = 11 for
 *    f16, 8 for bf16); f16 subnormals are f32 normals, and bf16 subnormals
 *    are f32 subnormals, a grid 2^16 times finer than bf16's, on which a
 *    quotient that is not a bf16 midpoint cannot land on one (the
 *    reference kernel's vector code rounds the same way and equals its
 *    scalar code on all 2^32 pairs of each). Compiled with --use_fast_math
 *    (CUDA_KERNELS_FAST, the fast-math flavour) the same source becomes what
 *    a framework built that way runs: f32 `x / y` is div.approx.ftz.f32
 *    (nvcc: --use_fast_math implies --ftz=true --prec-div=false), f16 and
 *    bf16 go through it; f64 is unaffected.
 *  - Intrinsic: __fdividef (div.approx.f32: at most 2 ulp for 2^-126 <=
 *    |y| <= 2^126, and 0 for 2^126 < |y| < 2^128 with x finite), __hdiv for
 *    f16 (cuda_fp16.hpp: rcp.approx.ftz.f32 of y times x, rounded to half,
 *    with an FMA correction only for results below 0x008F; documented as
 *    round-to-nearest-even) and for bf16 (cuda_bf16.hpp: div.approx.f32,
 *    with y scaled by 1/4 when |y| >= 2^126). __h2div is two __hdiv calls
 *    (cuda_fp16.hpp), so it has no flavour of its own. f64: CUDA has no
 *    approximate double division; `x / y` (div.rn.f64).
 *
 * Integers: the variant's rounding (truncate or floor, `floor` flag);
 * x / 0 gives 0 and INT_MIN / -1 gives INT_MIN, answered before dividing
 * (a GPU does not trap on either, but their quotients are not defined).
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "elements.h"
#include "kernels.h"

namespace {

const int kThreads = 256;
const int64_t kMaxBlocks = INT64_C(1) << 20; /* the grid-stride loop does the rest */

template <typename T, class F>
__global__ void k_div(cuda_plan p, const T *__restrict__ a, const T *__restrict__ b,
                      T *__restrict__ c, F f)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.count; i += step)
        cuda_div_element(p, i, a, b, c, f);
}

/* i4/u4: thread j writes byte j of C (two elements), so that no two
 * threads write one byte. */
template <bool Signed>
__global__ void k_div4(cuda_plan p, const uint8_t *__restrict__ a, const uint8_t *__restrict__ b,
                       uint8_t *__restrict__ c, int floor)
{
    const int64_t bytes = (p.count + 1) / 2, step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < bytes; j += step)
        cuda_div_byte4<Signed>(p, j, a, b, c, floor);
}

unsigned blocks_for(int64_t items)
{
    const int64_t n = (items + kThreads - 1) / kThreads;
    return (unsigned)(n < kMaxBlocks ? n : kMaxBlocks);
}

/* cuda_dispatch's runner: one kernel launch on a stream. */
struct Launch {
    const cuda_plan &p;
    const void *a, *b;
    void *c;
    cudaStream_t s;

    template <typename T, class F> int typed(F f)
    {
        k_div<T, F><<<blocks_for(p.count), kThreads, 0, s>>>(
            p, static_cast<const T *>(a), static_cast<const T *>(b), static_cast<T *>(c), f);
        return (int)cudaGetLastError();
    }
    template <bool Signed> int nibbles(int floor)
    {
        k_div4<Signed><<<blocks_for((p.count + 1) / 2), kThreads, 0, s>>>(
            p, static_cast<const uint8_t *>(a), static_cast<const uint8_t *>(b),
            static_cast<uint8_t *>(c), floor);
        return (int)cudaGetLastError();
    }
};

} // namespace

extern "C" int cuda_kernels_launch(uint32_t flavour, uint32_t dtype, int floor,
                                   const cuda_plan *plan, const void *a, const void *b, void *c,
                                   void *stream)
{
    Launch run{*plan, a, b, c, static_cast<cudaStream_t>(stream)};
#ifdef CUDA_KERNELS_FAST
    if (flavour == CUDA_FLAVOUR_FAST_MATH || !cuda_is_float(dtype))
        return cuda_dispatch<CudaPlain>(dtype, floor, run);
#else
    if (flavour == CUDA_FLAVOUR_IEEE || !cuda_is_float(dtype))
        return cuda_dispatch<CudaPlain>(dtype, floor, run);
    if (flavour == CUDA_FLAVOUR_INTRINSIC)
        return cuda_dispatch<CudaIntrinsic>(dtype, floor, run);
#endif
    return (int)cudaErrorInvalidValue;
}
