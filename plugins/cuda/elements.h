/* SPDX-License-Identifier: MIT */
/*
 * plugins/cuda/elements.h: the per-element code of the CUDA Div kernels, a
 * C++ header that nvcc compiles for the device (kernels.cu) and a host C++
 * compiler for the host (tests/cuda/emulate.cpp, which runs the IEEE
 * flavour's elements on the CPU so that the plugin's host side and index
 * arithmetic are certified where there is no GPU).
 *
 *  - cuda_offsets(): the index walk of kernels.h, element i of C to its
 *    elements of A and B.
 *  - Plain: `x / y` as written (the ieee flavour; under --use_fast_math the
 *    fast-math flavour); Intrinsic (device only): __fdividef and __hdiv.
 *    kernels.cu says what each compiles to and why Plain is correctly
 *    rounded for f16 and bf16.
 *  - The integer rules: truncate or floor, x / 0 = 0, INT_MIN / -1 =
 *    INT_MIN, answered before dividing; i4/u4 nibbles.
 *  - cuda_div_element(), cuda_div_byte4(): one element of C, one byte of a
 *    packed 4-bit C (both of its elements; the high nibble 0 past the end).
 *  - cuda_dispatch(): the element type and functor of a dtype, handed to
 *    a runner (a kernel launch, or the host loop).
 */
#ifndef DVG_PLUGINS_CUDA_ELEMENTS_H
#define DVG_PLUGINS_CUDA_ELEMENTS_H

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "kernels.h"

#ifdef __CUDACC__
#define CUDA_HD __host__ __device__ __forceinline__
#else
#define CUDA_HD inline
#endif

/* The offsets into A and B of output element i. */
CUDA_HD void cuda_offsets(const cuda_plan &p, int64_t i, int64_t *ao, int64_t *bo)
{
    int64_t oa = 0, ob = 0;
    for (int k = (int)p.rank - 1; k >= 0; k--) {
        const int64_t x = i % p.dims[k];
        i /= p.dims[k];
        oa += x * p.as[k];
        ob += x * p.bs[k];
    }
    *ao = oa;
    *bo = ob;
}

/* ------------------------------------------------------------------------
 * Float division, per flavour.
 * ---------------------------------------------------------------------- */
struct CudaPlain {
    static CUDA_HD float f32(float x, float y) { return x / y; }
    static CUDA_HD double f64(double x, double y) { return x / y; }
    static CUDA_HD __half f16(__half x, __half y)
    {
        return __float2half_rn(__half2float(x) / __half2float(y));
    }
    static CUDA_HD __nv_bfloat16 bf16(__nv_bfloat16 x, __nv_bfloat16 y)
    {
        return __float2bfloat16_rn(__bfloat162float(x) / __bfloat162float(y));
    }
};

#ifdef __CUDACC__
struct CudaIntrinsic {
    static __device__ __forceinline__ float f32(float x, float y) { return __fdividef(x, y); }
    static __device__ __forceinline__ double f64(double x, double y) { return x / y; }
    static __device__ __forceinline__ __half f16(__half x, __half y) { return __hdiv(x, y); }
    static __device__ __forceinline__ __nv_bfloat16 bf16(__nv_bfloat16 x, __nv_bfloat16 y)
    {
        return __hdiv(x, y);
    }
};
#endif

template <class Op> struct CudaDivF16 {
    CUDA_HD __half operator()(__half x, __half y) const { return Op::f16(x, y); }
};
template <class Op> struct CudaDivBF16 {
    CUDA_HD __nv_bfloat16 operator()(__nv_bfloat16 x, __nv_bfloat16 y) const
    {
        return Op::bf16(x, y);
    }
};
template <class Op> struct CudaDivF32 {
    CUDA_HD float operator()(float x, float y) const { return Op::f32(x, y); }
};
template <class Op> struct CudaDivF64 {
    CUDA_HD double operator()(double x, double y) const { return Op::f64(x, y); }
};

/* ------------------------------------------------------------------------
 * Integer division.
 * ---------------------------------------------------------------------- */
template <typename T> CUDA_HD T cuda_sdiv(T x, T y, int floor, T min)
{
    if (y == 0)
        return 0;
    if (y == -1)
        return x == min ? min : (T)-x;
    T q = (T)(x / y);
    const T r = (T)(x % y);
    if (floor && r != 0 && ((r < 0) != (y < 0)))
        q = (T)(q - 1);
    return q;
}

template <typename T> CUDA_HD T cuda_udiv(T x, T y)
{
    return y == 0 ? (T)0 : (T)(x / y);
}

template <typename T, T Min> struct CudaDivSigned {
    int floor;
    CUDA_HD T operator()(T x, T y) const { return cuda_sdiv<T>(x, y, floor, Min); }
};
template <typename T> struct CudaDivUnsigned {
    CUDA_HD T operator()(T x, T y) const { return cuda_udiv<T>(x, y); }
};

/* Element i of a packed 4-bit tensor, sign-extended when Signed. */
template <bool Signed> CUDA_HD int cuda_nibble(const uint8_t *t, int64_t i)
{
    const int v = (t[i >> 1] >> ((i & 1) * 4)) & 0xF;
    return Signed && v >= 8 ? v - 16 : v;
}

/* ------------------------------------------------------------------------
 * One element of C; one byte of a packed 4-bit C.
 * ---------------------------------------------------------------------- */
template <typename T, class F>
CUDA_HD void cuda_div_element(const cuda_plan &p, int64_t i, const T *a, const T *b, T *c, F f)
{
    int64_t ao, bo;
    cuda_offsets(p, i, &ao, &bo);
    c[i] = f(a[ao], b[bo]);
}

template <bool Signed>
CUDA_HD void cuda_div_byte4(const cuda_plan &p, int64_t j, const uint8_t *a, const uint8_t *b,
                            uint8_t *c, int floor)
{
    unsigned out = 0;
    for (int h = 0; h < 2 && 2 * j + h < p.count; h++) {
        int64_t ao, bo;
        cuda_offsets(p, 2 * j + h, &ao, &bo);
        const int x = cuda_nibble<Signed>(a, ao), y = cuda_nibble<Signed>(b, bo);
        const int q = Signed ? cuda_sdiv<int>(x, y, floor, -8) : cuda_udiv<int>(x, y);
        out |= ((unsigned)q & 0xFu) << (4 * h);
    }
    c[j] = (uint8_t)out;
}

/*
 * Hands dtype's element type T and its division functor f (float ops from
 * Op) to run.template typed<T>(f), or the 4-bit types to
 * run.template nibbles<Signed>(floor); returns what that returns, or 1
 * (cudaErrorInvalidValue) for a dtype without one.
 */
template <class Op, class Run> int cuda_dispatch(uint32_t dtype, int floor, Run &run)
{
    switch (dtype) {
    case DVG_DTYPE_F16: return run.template typed<__half>(CudaDivF16<Op>());
    case DVG_DTYPE_BF16: return run.template typed<__nv_bfloat16>(CudaDivBF16<Op>());
    case DVG_DTYPE_F32: return run.template typed<float>(CudaDivF32<Op>());
    case DVG_DTYPE_F64: return run.template typed<double>(CudaDivF64<Op>());
    case DVG_DTYPE_I4: return run.template nibbles<true>(floor);
    case DVG_DTYPE_U4: return run.template nibbles<false>(floor);
    case DVG_DTYPE_I8: return run.template typed<int8_t>(CudaDivSigned<int8_t, INT8_MIN>{floor});
    case DVG_DTYPE_I16:
        return run.template typed<int16_t>(CudaDivSigned<int16_t, INT16_MIN>{floor});
    case DVG_DTYPE_I32:
        return run.template typed<int32_t>(CudaDivSigned<int32_t, INT32_MIN>{floor});
    case DVG_DTYPE_I64:
        return run.template typed<int64_t>(CudaDivSigned<int64_t, INT64_MIN>{floor});
    case DVG_DTYPE_U8: return run.template typed<uint8_t>(CudaDivUnsigned<uint8_t>());
    case DVG_DTYPE_U16: return run.template typed<uint16_t>(CudaDivUnsigned<uint16_t>());
    case DVG_DTYPE_U32: return run.template typed<uint32_t>(CudaDivUnsigned<uint32_t>());
    case DVG_DTYPE_U64: return run.template typed<uint64_t>(CudaDivUnsigned<uint64_t>());
    }
    return 1;
}

/* 1 for the float dtypes (whose division the flavour chooses). */
CUDA_HD int cuda_is_float(uint32_t dtype)
{
    return dtype == DVG_DTYPE_F16 || dtype == DVG_DTYPE_BF16 || dtype == DVG_DTYPE_F32 ||
           dtype == DVG_DTYPE_F64;
}

#endif /* DVG_PLUGINS_CUDA_ELEMENTS_H */
