/* SPDX-License-Identifier: MIT */
/*
 * plugins/reference/reference.c: the reference Div kernel of Divergence.
 *
 * Built from the public header alone (include/divergence/iut.h), exactly as
 * a vendor's plugin would be. It claims every (variant, dtype) pair that
 * docs/semantics.md lists (SONNX: the contents-list types too) and follows each
 * variant's rules:
 *
 *  - Shapes: ONNX Div-1/6 legacy broadcasting (broadcast=0: equal shapes;
 *    broadcast=1: B -> A, B is a 1-element tensor of rank <= rank(A), axis
 *    aside, or B's shape is the run of A's dims starting at `axis`, suffix
 *    match when `axis` is unset; no size-1 expansion; an axis outside
 *    0..rank(A)-rank(B), negative ones included, is invalid), numpy
 *    multidirectional broadcasting (ONNX Div-7+), OpenVINO none / numpy /
 *    pdpd (B -> A; axis -1 is rank(A) - rank(B), taken before B's trailing
 *    1s are dropped; other negative axes and windows past A are invalid; a
 *    1 inside the window broadcasts), SONNX equal shapes. Rank 0 to
 *    DVG_MAX_RANK, zero-size dimensions.
 *  - Integers: ONNX truncates; OpenVINO floors when pythondiv is true
 *    (non-zero) and truncates when it is 0; SONNX floors unless int_rounding is
 *    DVG_ROUND_TRUNC. Where every variant leaves the result unspecified the
 *    kernel answers, without trapping: x / 0 = 0 and INT_MIN / -1 = INT_MIN.
 *  - Floats: the IEEE quotient rounded to nearest even with subnormals.
 *    f32 and f64 divide in host arithmetic; f16 and bf16 are widened exactly
 *    to double, divided there and narrowed with a bit-level round to nearest
 *    even (double rounding is innocuous: 53 >= 2p + 2 for p = 11 and 8).
 *    compute() forces round-to-nearest and clears FTZ/DAZ, and restores the
 *    caller's floating-point environment before it returns.
 *  - Vector runs (x86-64 with AVX2 and F16C, looked up at run time): f16,
 *    bf16, i8, u8, i16, u16 divide eight elements at a time in single
 *    precision, bit-identical to the scalar code (see "Vector runs").
 *
 * One pass over C: the broadcasting plan gives each output dimension an
 * element stride into A and into B (0 where the operand is broadcast);
 * dimensions that are contiguous in A, B and C are merged, so equal shapes
 * and a scalar operand become one flat loop, and anything else is an
 * incremental index walk over the outer dimensions around a flat inner run.
 *
 * tests/mutants/ builds this file once more per mutant; see "Mutation
 * points" below. Nothing else in the file knows about mutants.
 */
#include <fenv.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "divergence/iut.h"

#ifndef REFERENCE_VERSION
#define REFERENCE_VERSION "0.1.0"
#endif

#include "elements.h" /* element access, f16/bf16 through double */

/* ------------------------------------------------------------------------
 * Mutation points. tests/mutants/ compiles this file once more per mutant
 * with -DDVG_MUTANT=MUTANT_<NAME>; tests/mutants/mutant.h then defines one
 * of the hooks below so that the kernel is wrong in exactly one way. In
 * the reference build every hook is the identity (or a constant) and
 * costs nothing.
 * ---------------------------------------------------------------------- */
#ifdef DVG_MUTANT
#include "mutant.h"
#endif
/* A mutant whose arithmetic differs runs the scalar code only (see
 * "Vector runs" below); one that changes result bits gets them changed
 * after the vector runs as well. */
#if defined(MUTANT_FDIV) || defined(MUTANT_IDIV) || defined(MUTANT_INT_GUARD) || \
    defined(MUTANT_NARROW) || defined(MUTANT_MXCSR) || defined(MUTANT_INT_ZERO)
#undef REFERENCE_SIMD
#define REFERENCE_SIMD 0
#endif
#ifdef MUTANT_FBITS
#define REFERENCE_SIMD_FBITS 1
#endif
#ifndef MUTANT_FDIV /* float quotient x / y in host arithmetic */
#define MUTANT_FDIV(x, y) ((x) / (y))
#endif
#ifndef MUTANT_NARROW /* f16/bf16: the double quotient rounded to the format */
#define MUTANT_NARROW(d, frac_bits, exp_bits) narrow((d), (frac_bits), (exp_bits))
#endif
#ifndef MUTANT_MXCSR /* x86: MXCSR while computing (FTZ and DAZ cleared) */
#define MUTANT_MXCSR(csr) (csr)
#endif
#ifndef MUTANT_DEVIATIONS /* descriptor.deviations */
#define MUTANT_DEVIATIONS 0
#endif
#ifndef MUTANT_FBITS /* float result bits before the store */
#define MUTANT_FBITS(bits, frac_bits, exp_bits) (bits)
#endif
#ifndef MUTANT_IDIV /* integer quotient of T, toward zero; b != 0 */
#define MUTANT_IDIV(T, a, b) ((T)((a) / (b)))
#endif
#ifndef MUTANT_INT_GUARD /* 1: x / 0 and INT_MIN / -1 are answered, not divided */
#define MUTANT_INT_GUARD 1
#endif
#ifndef MUTANT_INT_ZERO /* integer x / 0 under the guard */
#define MUTANT_INT_ZERO(T) ((T)0)
#endif
#ifndef MUTANT_INT_MIN_NEG1 /* INT_MIN / -1 under the guard */
#define MUTANT_INT_MIN_NEG1(T, MIN) ((T)(MIN))
#endif
#ifndef MUTANT_ROUNDING /* the integer rounding the variant asks for */
#define MUTANT_ROUNDING(r) (r)
#endif
#ifndef MUTANT_NUMPY_PLAN /* numpy plan, after strides are set */
#define MUTANT_NUMPY_PLAN(rank, dims, a_stride, a) ((void)0)
#endif
#ifndef MUTANT_BEFORE /* compute(), input valid, C untouched: a status */
#define MUTANT_BEFORE(variant, a, b, c, count) DVG_OK
#endif
#ifndef MUTANT_AFTER /* compute(), all `count` (> 0) elements of C written */
#define MUTANT_AFTER(variant, a, b, c, count) ((void)0)
#endif
#ifndef MUTANT_AFTER_ATTRS /* MUTANT_AFTER with the call's attributes (`at`) */
#define MUTANT_AFTER_ATTRS(variant, at, a, b, c, count) MUTANT_AFTER(variant, a, b, c, count)
#endif
#ifndef MUTANT_REFUSE /* compute(), after MUTANT_AFTER: a status to return */
#define MUTANT_REFUSE(variant, a, b, c, count) DVG_OK
#endif
#ifndef MUTANT_AFTER_ISA /* after MUTANT_AFTER: the ISA level open_with forced (NULL: none) */
#define MUTANT_AFTER_ISA(isa, c, count) ((void)0)
#endif
#ifndef MUTANT_ABI_MAJOR /* descriptor.abi_major */
#define MUTANT_ABI_MAJOR DVG_ABI_MAJOR
#endif
#ifndef MUTANT_ENTRY /* the exported entry point */
#define MUTANT_ENTRY dvg_iut_descriptor
#endif
#ifndef MUTANT_IUT_NAME /* descriptor.name */
#define MUTANT_IUT_NAME "divergence-reference"
#endif
#ifndef MUTANT_CAPABILITIES /* descriptor.capabilities (ABI 1.1) */
#define MUTANT_CAPABILITIES                                                        \
    (DVG_CAP_INSTANCES_CONCURRENT | DVG_CAP_INSTANCE_CONCURRENT | DVG_CAP_IN_PLACE_A | \
     DVG_CAP_IN_PLACE_B | DVG_CAP_THREADS)
#endif
#ifndef MUTANT_SPLIT_END /* threads: where part k of t ends (`next`: where k + 1 starts) */
#define MUTANT_SPLIT_END(k, t, next) (next)
#endif
#ifndef MUTANT_THREADS /* open(): the threads an instance splits over (`asked`: open_with's) */
#define MUTANT_THREADS(asked) (asked)
#endif
#ifndef MUTANT_SCRATCH /* 1: compute through one static buffer (not re-entrant) */
#define MUTANT_SCRATCH 0
#endif

static inline uint32_t div_f32(float x, float y)
{
    float q = MUTANT_FDIV(x, y);
    uint32_t bits;
    memcpy(&bits, &q, sizeof bits);
    return (uint32_t)MUTANT_FBITS(bits, 23, 8);
}

static inline uint64_t div_f64(double x, double y)
{
    double q = MUTANT_FDIV(x, y);
    uint64_t bits;
    memcpy(&bits, &q, sizeof bits);
    return (uint64_t)MUTANT_FBITS(bits, 52, 11);
}

static inline uint16_t div_f16(uint16_t x, uint16_t y)
{
    double q = MUTANT_FDIV(widen(x, 10, 5), widen(y, 10, 5));
    return (uint16_t)MUTANT_FBITS(MUTANT_NARROW(q, 10, 5), 10, 5);
}

static inline uint16_t div_bf16(uint16_t x, uint16_t y)
{
    double q = MUTANT_FDIV(widen(x, 7, 8), widen(y, 7, 8));
    return (uint16_t)MUTANT_FBITS(MUTANT_NARROW(q, 7, 8), 7, 8);
}

/* ------------------------------------------------------------------------
 * Integers. Signed division in the operand's own type; the two cases with
 * no representable or defined answer are answered before dividing:
 * x / 0 = 0, INT_MIN / -1 = INT_MIN.
 * ---------------------------------------------------------------------- */
#define DEFINE_SDIV(tag, T, MIN)                                              \
    static inline T sdiv_##tag(T a, T b, int floor)                           \
    {                                                                         \
        T q;                                                                  \
        if (MUTANT_INT_GUARD) {                                               \
            if (b == 0)                                                       \
                return MUTANT_INT_ZERO(T);                                    \
            if (b == -1)                                                      \
                return a == (MIN) ? MUTANT_INT_MIN_NEG1(T, MIN) : (T)-a;      \
        }                                                                     \
        q = MUTANT_IDIV(T, a, b);                                             \
        if (floor && a % b != 0 && ((a % b < 0) != (b < 0)))                  \
            q = (T)(q - 1);                                                   \
        return q;                                                             \
    }                                                                         \
    static inline T tag##_trunc(T a, T b) { return sdiv_##tag(a, b, 0); }     \
    static inline T tag##_floor(T a, T b) { return sdiv_##tag(a, b, 1); }

#define DEFINE_UDIV(tag, T)                                                   \
    static inline T tag##_div(T a, T b)                                       \
    {                                                                         \
        if (MUTANT_INT_GUARD && b == 0)                                       \
            return MUTANT_INT_ZERO(T);                                        \
        return MUTANT_IDIV(T, a, b);                                          \
    }

DEFINE_SDIV(i4, int8_t, -8)
DEFINE_SDIV(i8, int8_t, INT8_MIN)
DEFINE_SDIV(i16, int16_t, INT16_MIN)
DEFINE_SDIV(i32, int32_t, INT32_MIN)
DEFINE_SDIV(i64, int64_t, INT64_MIN)
DEFINE_UDIV(u4, uint8_t)
DEFINE_UDIV(u8, uint8_t)
DEFINE_UDIV(u16, uint16_t)
DEFINE_UDIV(u32, uint32_t)
DEFINE_UDIV(u64, uint64_t)
#undef DEFINE_SDIV
#undef DEFINE_UDIV

/* ------------------------------------------------------------------------
 * Runs: n elements C[ci + i] = A[ai + i*as] / B[bi + i*bs]. The three
 * common stride patterns get loops without index arithmetic.
 * ---------------------------------------------------------------------- */
typedef void run_fn(const uint8_t *a, int64_t ai, int64_t as, const uint8_t *b,
                    int64_t bi, int64_t bs, uint8_t *c, int64_t ci, int64_t n);

#define DEFINE_RUN(name, T, LD, ST, OP)                                       \
    static void name(const uint8_t *a, int64_t ai, int64_t as,               \
                     const uint8_t *b, int64_t bi, int64_t bs, uint8_t *c,    \
                     int64_t ci, int64_t n)                                   \
    {                                                                         \
        int64_t i;                                                            \
        if (as == 1 && bs == 1) {                                             \
            for (i = 0; i < n; i++)                                           \
                ST(c, ci + i, OP(LD(a, ai + i), LD(b, bi + i)));              \
        } else if (as == 1 && bs == 0) {                                      \
            const T y = LD(b, bi);                                            \
            for (i = 0; i < n; i++)                                           \
                ST(c, ci + i, OP(LD(a, ai + i), y));                          \
        } else if (as == 0 && bs == 1) {                                      \
            const T x = LD(a, ai);                                            \
            for (i = 0; i < n; i++)                                           \
                ST(c, ci + i, OP(x, LD(b, bi + i)));                          \
        } else {                                                              \
            for (i = 0; i < n; i++, ai += as, bi += bs)                       \
                ST(c, ci + i, OP(LD(a, ai), LD(b, bi)));                      \
        }                                                                     \
    }

DEFINE_RUN(run_f16, uint16_t, ld_u16, st_u16, div_f16)
DEFINE_RUN(run_bf16, uint16_t, ld_u16, st_u16, div_bf16)
DEFINE_RUN(run_f32, float, ld_f32, st_u32, div_f32)
DEFINE_RUN(run_f64, double, ld_f64, st_u64, div_f64)
DEFINE_RUN(run_i4_trunc, int8_t, ld_i4, st_i4, i4_trunc)
DEFINE_RUN(run_i4_floor, int8_t, ld_i4, st_i4, i4_floor)
DEFINE_RUN(run_i8_trunc, int8_t, ld_i8, st_i8, i8_trunc)
DEFINE_RUN(run_i8_floor, int8_t, ld_i8, st_i8, i8_floor)
DEFINE_RUN(run_i16_trunc, int16_t, ld_i16, st_i16, i16_trunc)
DEFINE_RUN(run_i16_floor, int16_t, ld_i16, st_i16, i16_floor)
DEFINE_RUN(run_i32_trunc, int32_t, ld_i32, st_i32, i32_trunc)
DEFINE_RUN(run_i32_floor, int32_t, ld_i32, st_i32, i32_floor)
DEFINE_RUN(run_i64_trunc, int64_t, ld_i64, st_i64, i64_trunc)
DEFINE_RUN(run_i64_floor, int64_t, ld_i64, st_i64, i64_floor)
DEFINE_RUN(run_u4, uint8_t, ld_u4, st_u4, u4_div)
DEFINE_RUN(run_u8, uint8_t, ld_u8, st_u8, u8_div)
DEFINE_RUN(run_u16, uint16_t, ld_u16, st_u16, u16_div)
DEFINE_RUN(run_u32, uint32_t, ld_u32, st_u32, u32_div)
DEFINE_RUN(run_u64, uint64_t, ld_u64, st_u64, u64_div)
#undef DEFINE_RUN

/* The run for [dtype][0: truncate, 1: floor]. */
static run_fn *const runs[DVG_DTYPE_COUNT][2] = {
    [DVG_DTYPE_F16] = {run_f16, run_f16},
    [DVG_DTYPE_BF16] = {run_bf16, run_bf16},
    [DVG_DTYPE_F32] = {run_f32, run_f32},
    [DVG_DTYPE_F64] = {run_f64, run_f64},
    [DVG_DTYPE_I4] = {run_i4_trunc, run_i4_floor},
    [DVG_DTYPE_I8] = {run_i8_trunc, run_i8_floor},
    [DVG_DTYPE_I16] = {run_i16_trunc, run_i16_floor},
    [DVG_DTYPE_I32] = {run_i32_trunc, run_i32_floor},
    [DVG_DTYPE_I64] = {run_i64_trunc, run_i64_floor},
    [DVG_DTYPE_U4] = {run_u4, run_u4},
    [DVG_DTYPE_U8] = {run_u8, run_u8},
    [DVG_DTYPE_U16] = {run_u16, run_u16},
    [DVG_DTYPE_U32] = {run_u32, run_u32},
    [DVG_DTYPE_U64] = {run_u64, run_u64},
};

/* ------------------------------------------------------------------------
 * Vector runs. On x86-64 with AVX2 and F16C (looked up at run time, so
 * the baseline build runs on any x86-64; elsewhere the scalar runs above
 * do everything), runs whose operands are contiguous or one scalar divide
 * f16, bf16, i8, u8, i16 and u16 eight elements at a time in single
 * precision:
 *  - f16: widened exactly (vcvtph2ps), divided, narrowed to nearest even
 *    (vcvtps2ph). The float quotient is the exact one rounded to 24 bits;
 *    rounding that again to 11 bits is innocuous since 24 >= 2 * 11 + 2.
 *  - bf16: widened by a shift, divided, narrowed by integer rounding of
 *    the float's bits (ties to even; a NaN quiet, the top of its payload
 *    kept). 24 >= 2 * 8 + 2; bf16 subnormals are float subnormals, and a
 *    quotient rounded to float's grid first cannot land on a bf16
 *    midpoint it was not on.
 *  - i8, u8, i16, u16: the float quotient of two integers below 2^16 in
 *    magnitude, truncated toward zero, is the truncated quotient (its
 *    error stays below 1/|b|, the least distance of a non-integer
 *    quotient to an integer); floor subtracts one when the remainder is
 *    non-zero and its sign is not the divisor's. x / 0 = 0 and
 *    INT_MIN / -1 = INT_MIN, as in the scalar code, without a trap.
 * Each element is bit-identical to the scalar runs (tests/sweep compares
 * the two builds). A mutant that changes the arithmetic (MUTANT_FDIV,
 * MUTANT_IDIV, MUTANT_INT_GUARD) runs the scalar code only; MUTANT_FBITS
 * is applied to the vector results too.
 * ---------------------------------------------------------------------- */
#ifndef REFERENCE_SIMD
#if defined(__x86_64__) && defined(__GNUC__)
#define REFERENCE_SIMD 1
#else
#define REFERENCE_SIMD 0
#endif
#endif
#ifndef REFERENCE_SIMD_FBITS
#define REFERENCE_SIMD_FBITS 0
#endif

#if REFERENCE_SIMD
#include <cpuid.h>
#include <immintrin.h>

#define SIMD __attribute__((target("avx2,f16c")))
#define SIMD_INLINE __attribute__((target("avx2,f16c"), always_inline)) static inline

/* Operand access: eight elements from element index i, or one broadcast. */
SIMD_INLINE __m128i simd_ld16(const uint8_t *p, int64_t i)
{
    return _mm_loadu_si128((const __m128i *)(const void *)(p + 2 * i));
}

SIMD_INLINE __m128i simd_ld8(const uint8_t *p, int64_t i)
{
    return _mm_loadl_epi64((const __m128i *)(const void *)(p + i));
}

/* Eight int32 lanes holding values of 0..0xFFFF (u16 bits), or of the
 * int16 range, into eight 16-bit elements. */
SIMD_INLINE __m128i simd_pack16(__m256i v, int is_signed)
{
    __m256i p = is_signed ? _mm256_packs_epi32(v, v) : _mm256_packus_epi32(v, v);
    return _mm256_castsi256_si128(_mm256_permute4x64_epi64(p, 0x08));
}

SIMD_INLINE __m128i simd_pack8(__m256i v, int is_signed)
{
    __m128i w = simd_pack16(v, is_signed);
    return is_signed ? _mm_packs_epi16(w, w) : _mm_packus_epi16(w, w);
}

SIMD_INLINE __m256 simd_widen_f16(__m128i h) { return _mm256_cvtph_ps(h); }

SIMD_INLINE __m256 simd_widen_bf16(__m128i h)
{
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

SIMD_INLINE __m128i simd_narrow_f16(__m256 q)
{
    return _mm256_cvtps_ph(q, _MM_FROUND_TO_NEAREST_INT);
}

SIMD_INLINE __m128i simd_narrow_bf16(__m256 q)
{
    const __m256i one = _mm256_set1_epi32(1), half = _mm256_set1_epi32(0x7FFF);
    __m256i bits = _mm256_castps_si256(q);
    __m256i top = _mm256_srli_epi32(bits, 16);
    __m256i rounded = _mm256_srli_epi32(
        _mm256_add_epi32(bits, _mm256_add_epi32(half, _mm256_and_si256(top, one))), 16);
    __m256i quiet = _mm256_or_si256(top, _mm256_set1_epi32(0x40));
    __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(q, q, _CMP_UNORD_Q));
    return simd_pack16(_mm256_blendv_epi8(rounded, quiet, nan), 0);
}

/* Integer quotient of int32 lanes (operands of 16 bits at most), toward
 * zero or toward negative infinity; 0 where y is 0; the low `bits` bits
 * sign-extended, so that INT_MIN / -1 wraps to INT_MIN. */
SIMD_INLINE __m256i simd_idiv(__m256i x, __m256i y, int floor, int sign_bits)
{
    const __m256i zero = _mm256_setzero_si256();
    __m256i q = _mm256_cvttps_epi32(_mm256_div_ps(_mm256_cvtepi32_ps(x), _mm256_cvtepi32_ps(y)));
    if (floor) {
        __m256i r = _mm256_sub_epi32(x, _mm256_mullo_epi32(q, y));
        __m256i adj = _mm256_andnot_si256(_mm256_cmpeq_epi32(r, zero),
                                          _mm256_srai_epi32(_mm256_xor_si256(r, y), 31));
        q = _mm256_add_epi32(q, adj);
    }
    q = _mm256_andnot_si256(_mm256_cmpeq_epi32(y, zero), q);
    if (sign_bits)
        q = _mm256_srai_epi32(_mm256_slli_epi32(q, 32 - sign_bits), 32 - sign_bits);
    return q;
}

/*
 * The body of one vector run: C[ci + i] = A[ai + i] / B[bi + i], an
 * operand flagged scalar read at its first element only. KIND: 0 f16,
 * 1 bf16, 2 i16, 3 u16, 4 i8, 5 u8. Returns the elements done (a
 * multiple of eight); the caller does the rest with the scalar code.
 */
SIMD_INLINE int64_t simd_body(int kind, int floor, const uint8_t *a, int64_t ai, int a1,
                              const uint8_t *b, int64_t bi, int b1, uint8_t *c, int64_t ci,
                              int64_t n)
{
    int64_t i = 0;
    __m256 xf = _mm256_setzero_ps(), yf = _mm256_setzero_ps();
    __m256i xi = _mm256_setzero_si256(), yi = _mm256_setzero_si256();
#define SIMD_LOADF(p, at) \
    (kind == 0 ? simd_widen_f16(simd_ld16(p, at)) : simd_widen_bf16(simd_ld16(p, at)))
#define SIMD_LOADI(p, at)                                               \
    (kind == 2   ? _mm256_cvtepi16_epi32(simd_ld16(p, at))              \
     : kind == 3 ? _mm256_cvtepu16_epi32(simd_ld16(p, at))              \
     : kind == 4 ? _mm256_cvtepi8_epi32(simd_ld8(p, at))                \
                 : _mm256_cvtepu8_epi32(simd_ld8(p, at)))
    /* A scalar operand is read as one element (it may end a buffer that
     * ends at a guard page) and broadcast. */
    if (kind <= 1) {
        if (a1)
            xf = kind == 0 ? simd_widen_f16(_mm_set1_epi16((short)ld_u16(a, ai)))
                           : simd_widen_bf16(_mm_set1_epi16((short)ld_u16(a, ai)));
        if (b1)
            yf = kind == 0 ? simd_widen_f16(_mm_set1_epi16((short)ld_u16(b, bi)))
                           : simd_widen_bf16(_mm_set1_epi16((short)ld_u16(b, bi)));
    } else {
        if (a1)
            xi = _mm256_set1_epi32(kind == 2 ? ld_i16(a, ai) : kind == 3 ? ld_u16(a, ai)
                                   : kind == 4 ? ld_i8(a, ai) : ld_u8(a, ai));
        if (b1)
            yi = _mm256_set1_epi32(kind == 2 ? ld_i16(b, bi) : kind == 3 ? ld_u16(b, bi)
                                   : kind == 4 ? ld_i8(b, bi) : ld_u8(b, bi));
    }
    for (; i + 8 <= n; i += 8) {
        if (kind <= 1) {
            __m256 x = a1 ? xf : SIMD_LOADF(a, ai + i);
            __m256 y = b1 ? yf : SIMD_LOADF(b, bi + i);
            __m256 q = _mm256_div_ps(x, y);
            __m128i h = kind == 0 ? simd_narrow_f16(q) : simd_narrow_bf16(q);
            _mm_storeu_si128((__m128i *)(void *)(c + 2 * (ci + i)), h);
        } else {
            __m256i x = a1 ? xi : SIMD_LOADI(a, ai + i);
            __m256i y = b1 ? yi : SIMD_LOADI(b, bi + i);
            int is_signed = kind == 2 || kind == 4;
            __m256i q = simd_idiv(x, y, floor && is_signed, is_signed ? (kind == 2 ? 16 : 8) : 0);
            if (kind <= 3)
                _mm_storeu_si128((__m128i *)(void *)(c + 2 * (ci + i)), simd_pack16(q, is_signed));
            else
                _mm_storel_epi64((__m128i *)(void *)(c + ci + i), simd_pack8(q, is_signed));
        }
    }
#undef SIMD_LOADF
#undef SIMD_LOADI
    return i;
}

/* One vector run function per (KIND, floor): the three stride patterns
 * get their own specialised body; any other pattern, and the tail, go to
 * the scalar run. */
#define DEFINE_SIMD_RUN(name, KIND, FLOOR, SCALAR, FBITS)                              \
    SIMD static void name(const uint8_t *a, int64_t ai, int64_t as, const uint8_t *b, \
                          int64_t bi, int64_t bs, uint8_t *c, int64_t ci, int64_t n)  \
    {                                                                                 \
        int64_t done;                                                                 \
        if (as == 1 && bs == 1)                                                       \
            done = simd_body(KIND, FLOOR, a, ai, 0, b, bi, 0, c, ci, n);              \
        else if (as == 0 && bs == 1)                                                  \
            done = simd_body(KIND, FLOOR, a, ai, 1, b, bi, 0, c, ci, n);              \
        else if (as == 1 && bs == 0)                                                  \
            done = simd_body(KIND, FLOOR, a, ai, 0, b, bi, 1, c, ci, n);              \
        else {                                                                        \
            SCALAR(a, ai, as, b, bi, bs, c, ci, n);                                   \
            return;                                                                   \
        }                                                                             \
        FBITS(c, ci, done);                                                           \
        if (done < n)                                                                 \
            SCALAR(a, ai + done * as, as, b, bi + done * bs, bs, c, ci + done,        \
                   n - done);                                                         \
    }

#if REFERENCE_SIMD_FBITS
/* The mutant's result-bit hook over the first `done` f16 or bf16 results. */
static void fbits_f16(uint8_t *c, int64_t ci, int64_t done)
{
    for (int64_t i = 0; i < done; i++)
        st_u16(c, ci + i, (uint16_t)MUTANT_FBITS(ld_u16(c, ci + i), 10, 5));
}
static void fbits_bf16(uint8_t *c, int64_t ci, int64_t done)
{
    for (int64_t i = 0; i < done; i++)
        st_u16(c, ci + i, (uint16_t)MUTANT_FBITS(ld_u16(c, ci + i), 7, 8));
}
#define FBITS_F16 fbits_f16
#define FBITS_BF16 fbits_bf16
#else
#define FBITS_F16(c, ci, done) ((void)0)
#define FBITS_BF16(c, ci, done) ((void)0)
#endif
#define FBITS_NONE(c, ci, done) ((void)0)

DEFINE_SIMD_RUN(simd_run_f16, 0, 0, run_f16, FBITS_F16)
DEFINE_SIMD_RUN(simd_run_bf16, 1, 0, run_bf16, FBITS_BF16)
DEFINE_SIMD_RUN(simd_run_i16_trunc, 2, 0, run_i16_trunc, FBITS_NONE)
DEFINE_SIMD_RUN(simd_run_i16_floor, 2, 1, run_i16_floor, FBITS_NONE)
DEFINE_SIMD_RUN(simd_run_u16, 3, 0, run_u16, FBITS_NONE)
DEFINE_SIMD_RUN(simd_run_i8_trunc, 4, 0, run_i8_trunc, FBITS_NONE)
DEFINE_SIMD_RUN(simd_run_i8_floor, 4, 1, run_i8_floor, FBITS_NONE)
DEFINE_SIMD_RUN(simd_run_u8, 5, 0, run_u8, FBITS_NONE)
#undef DEFINE_SIMD_RUN

static run_fn *const simd_runs[DVG_DTYPE_COUNT][2] = {
    [DVG_DTYPE_F16] = {simd_run_f16, simd_run_f16},
    [DVG_DTYPE_BF16] = {simd_run_bf16, simd_run_bf16},
    [DVG_DTYPE_I16] = {simd_run_i16_trunc, simd_run_i16_floor},
    [DVG_DTYPE_U16] = {simd_run_u16, simd_run_u16},
    [DVG_DTYPE_I8] = {simd_run_i8_trunc, simd_run_i8_floor},
    [DVG_DTYPE_U8] = {simd_run_u8, simd_run_u8},
};

/* 1 when this CPU (and its OS) runs AVX2 and F16C code. F16C is read from
 * CPUID leaf 1 (ECX bit 29): clang 14's __builtin_cpu_supports does not know
 * "f16c"; the AVX2 test covers the OS's saving of the YMM state. */
static int simd_usable(void)
{
    static int known = -1;
    int v = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (v < 0) {
        unsigned eax, ebx, ecx, edx;
        __builtin_cpu_init();
        v = __builtin_cpu_supports("avx2") && __get_cpuid(1, &eax, &ebx, &ecx, &edx) &&
            (ecx & bit_F16C);
        __atomic_store_n(&known, v, __ATOMIC_RELAXED);
    }
    return v;
}
#endif /* REFERENCE_SIMD */

/* The run for a dtype and rounding (0: truncate, 1: floor). */
static run_fn *pick_run(uint32_t dtype, int floor)
{
#if REFERENCE_SIMD
    if (simd_runs[dtype][floor] && simd_usable())
        return simd_runs[dtype][floor];
#endif
    return runs[dtype][floor];
}

/* ------------------------------------------------------------------------
 * Variants as data: the pairs claimed, the shape rule, the integer
 * rounding.
 * ---------------------------------------------------------------------- */
#define CLAIM(v, d) {DVG_VARIANT_##v, DVG_DTYPE_##d}
#ifdef MUTANT_CLAIMS /* a mutant that claims fewer pairs */
static const dvg_claim claims[] = {MUTANT_CLAIMS};
#else
static const dvg_claim claims[] = {
    CLAIM(ONNX_DIV_1, F16), CLAIM(ONNX_DIV_1, F32), CLAIM(ONNX_DIV_1, F64),

    CLAIM(ONNX_DIV_6, F16), CLAIM(ONNX_DIV_6, F32), CLAIM(ONNX_DIV_6, F64),
    CLAIM(ONNX_DIV_6, I32), CLAIM(ONNX_DIV_6, I64), CLAIM(ONNX_DIV_6, U32),
    CLAIM(ONNX_DIV_6, U64),

    CLAIM(ONNX_DIV_7, F16), CLAIM(ONNX_DIV_7, F32), CLAIM(ONNX_DIV_7, F64),
    CLAIM(ONNX_DIV_7, I32), CLAIM(ONNX_DIV_7, I64), CLAIM(ONNX_DIV_7, U32),
    CLAIM(ONNX_DIV_7, U64),

    CLAIM(ONNX_DIV_13, F16), CLAIM(ONNX_DIV_13, BF16), CLAIM(ONNX_DIV_13, F32),
    CLAIM(ONNX_DIV_13, F64), CLAIM(ONNX_DIV_13, I32), CLAIM(ONNX_DIV_13, I64),
    CLAIM(ONNX_DIV_13, U32), CLAIM(ONNX_DIV_13, U64),

    CLAIM(ONNX_DIV_14, F16), CLAIM(ONNX_DIV_14, BF16), CLAIM(ONNX_DIV_14, F32),
    CLAIM(ONNX_DIV_14, F64), CLAIM(ONNX_DIV_14, I8), CLAIM(ONNX_DIV_14, I16),
    CLAIM(ONNX_DIV_14, I32), CLAIM(ONNX_DIV_14, I64), CLAIM(ONNX_DIV_14, U8),
    CLAIM(ONNX_DIV_14, U16), CLAIM(ONNX_DIV_14, U32), CLAIM(ONNX_DIV_14, U64),

    CLAIM(OPENVINO_DIVIDE_1, F16), CLAIM(OPENVINO_DIVIDE_1, BF16),
    CLAIM(OPENVINO_DIVIDE_1, F32), CLAIM(OPENVINO_DIVIDE_1, F64),
    CLAIM(OPENVINO_DIVIDE_1, I4), CLAIM(OPENVINO_DIVIDE_1, I8),
    CLAIM(OPENVINO_DIVIDE_1, I16), CLAIM(OPENVINO_DIVIDE_1, I32),
    CLAIM(OPENVINO_DIVIDE_1, I64), CLAIM(OPENVINO_DIVIDE_1, U4),
    CLAIM(OPENVINO_DIVIDE_1, U8), CLAIM(OPENVINO_DIVIDE_1, U16),
    CLAIM(OPENVINO_DIVIDE_1, U32), CLAIM(OPENVINO_DIVIDE_1, U64),

    CLAIM(SONNX_DIV, F16), CLAIM(SONNX_DIV, BF16), CLAIM(SONNX_DIV, F32),
    CLAIM(SONNX_DIV, F64), CLAIM(SONNX_DIV, I4), CLAIM(SONNX_DIV, I8),
    CLAIM(SONNX_DIV, I16), CLAIM(SONNX_DIV, I32), CLAIM(SONNX_DIV, I64),
    CLAIM(SONNX_DIV, U4), CLAIM(SONNX_DIV, U8), CLAIM(SONNX_DIV, U16),
    CLAIM(SONNX_DIV, U32), CLAIM(SONNX_DIV, U64),
};
#endif
#undef CLAIM
#define N_CLAIMS ((uint32_t)(sizeof claims / sizeof claims[0]))

enum {
    SHAPES_LEGACY = 1, /* ONNX Div-1/6: `broadcast` picks equal or legacy */
    SHAPES_NUMPY,      /* numpy multidirectional */
    SHAPES_OPENVINO,   /* `auto_broadcast` picks none, numpy or pdpd */
    SHAPES_EQUAL       /* A, B, C have the same shape */
};

enum {
    ROUND_TRUNC = 1, /* always toward zero */
    ROUND_PYTHONDIV, /* OpenVINO: floor when pythondiv (true), else trunc */
    ROUND_SONNX      /* floor unless int_rounding == DVG_ROUND_TRUNC */
};

static const struct variant_rules {
    uint8_t shapes;
    uint8_t rounding;
} variant_rules[DVG_VARIANT_COUNT] = {
    [DVG_VARIANT_ONNX_DIV_1] = {SHAPES_LEGACY, ROUND_TRUNC},
    [DVG_VARIANT_ONNX_DIV_6] = {SHAPES_LEGACY, ROUND_TRUNC},
    [DVG_VARIANT_ONNX_DIV_7] = {SHAPES_NUMPY, ROUND_TRUNC},
    [DVG_VARIANT_ONNX_DIV_13] = {SHAPES_NUMPY, ROUND_TRUNC},
    [DVG_VARIANT_ONNX_DIV_14] = {SHAPES_NUMPY, ROUND_TRUNC},
    [DVG_VARIANT_OPENVINO_DIVIDE_1] = {SHAPES_OPENVINO, ROUND_PYTHONDIV},
    [DVG_VARIANT_SONNX_DIV] = {SHAPES_EQUAL, ROUND_SONNX},
};

static int claimed(uint32_t variant, uint32_t dtype)
{
    for (uint32_t i = 0; i < N_CLAIMS; i++)
        if (claims[i].variant == variant && claims[i].dtype == dtype)
            return 1;
    return 0;
}

/* 1 for floor, 0 for truncation. */
static int floors(uint32_t variant, const dvg_attrs *at)
{
    uint32_t r = DVG_ROUND_TRUNC;
    switch (variant_rules[variant].rounding) {
    case ROUND_PYTHONDIV:
        r = at->pythondiv != 0 ? DVG_ROUND_FLOOR : DVG_ROUND_TRUNC; /* a boolean */
        break;
    case ROUND_SONNX:
        r = at->int_rounding == DVG_ROUND_TRUNC ? DVG_ROUND_TRUNC : DVG_ROUND_FLOOR;
        break;
    }
    return MUTANT_ROUNDING(r) == DVG_ROUND_FLOOR;
}

/* ------------------------------------------------------------------------
 * The instance and its error text.
 * ---------------------------------------------------------------------- */
struct dvg_iut {
    char error[256];
    uint32_t threads; /* open_with's thread count; 0 and 1: the caller's thread only */
    const char *isa;  /* open_with's ISA level (one of isa_levels' names), NULL: none */
};

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int32_t fail(dvg_iut *iut, int32_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(iut->error, sizeof iut->error, fmt, ap);
    va_end(ap);
    return status;
}

/* ------------------------------------------------------------------------
 * Shapes. A plan gives the output shape and, per output dimension, the
 * element stride into A and into B (0: broadcast).
 * ---------------------------------------------------------------------- */
typedef struct plan {
    uint32_t rank;
    int64_t dims[DVG_MAX_RANK];
    int64_t as[DVG_MAX_RANK];
    int64_t bs[DVG_MAX_RANK];
} plan;

/* Row-major element strides of a dense tensor. Unsigned arithmetic: with a
 * zero dimension the strides are never used, and must not overflow. */
static void dense_strides(const dvg_tensor *t, int64_t *stride)
{
    uint64_t s = 1;
    for (uint32_t k = t->rank; k-- > 0;) {
        stride[k] = (int64_t)s;
        s *= (uint64_t)t->shape[k];
    }
}

/* C has A's shape; A is dense. */
static void plan_like_a(const dvg_tensor *a, plan *p)
{
    p->rank = a->rank;
    memcpy(p->dims, a->shape, sizeof p->dims);
    dense_strides(a, p->as);
    memset(p->bs, 0, sizeof p->bs);
}

static int32_t plan_equal(dvg_iut *iut, const dvg_tensor *a, const dvg_tensor *b, plan *p)
{
    if (a->rank != b->rank || memcmp(a->shape, b->shape, a->rank * sizeof a->shape[0]))
        return fail(iut, DVG_INVALID_INPUT, "shapes of A and B differ and the variant "
                                            "does not broadcast");
    plan_like_a(a, p);
    dense_strides(b, p->bs);
    return DVG_OK;
}

static int32_t plan_numpy(dvg_iut *iut, const dvg_tensor *a, const dvg_tensor *b, plan *p)
{
    int64_t sa[DVG_MAX_RANK], sb[DVG_MAX_RANK];
    uint32_t r = a->rank > b->rank ? a->rank : b->rank;
    dense_strides(a, sa);
    dense_strides(b, sb);
    p->rank = r;
    for (uint32_t k = 0; k < r; k++) {
        int ka = (int)k - (int)(r - a->rank), kb = (int)k - (int)(r - b->rank);
        int64_t da = ka >= 0 ? a->shape[ka] : 1, db = kb >= 0 ? b->shape[kb] : 1;
        int64_t d = da == 1 ? db : da;
        if (da != db && da != 1 && db != 1)
            return fail(iut, DVG_INVALID_INPUT, "numpy broadcasting: dimension %u of the "
                        "output: A has %lld, B has %lld", k, (long long)da, (long long)db);
        p->dims[k] = d;
        p->as[k] = (ka < 0 || (da == 1 && d != 1)) ? 0 : sa[ka];
        p->bs[k] = (kb < 0 || (db == 1 && d != 1)) ? 0 : sb[kb];
    }
    MUTANT_NUMPY_PLAN(r, p->dims, p->as, a);
    return DVG_OK;
}

/* ONNX Div-1/6 with broadcast=1: B -> A, no size-1 expansion. */
static int32_t plan_legacy(dvg_iut *iut, const dvg_attrs *at, const dvg_tensor *a,
                           const dvg_tensor *b, plan *p)
{
    int64_t sb[DVG_MAX_RANK], axis;
    int one = 1; /* B holds exactly one element */
    if (b->rank > a->rank)
        return fail(iut, DVG_INVALID_INPUT, "legacy broadcasting: rank of B (%u) exceeds "
                    "rank of A (%u)", b->rank, a->rank);
    for (uint32_t k = 0; k < b->rank; k++)
        one = one && b->shape[k] == 1;
    plan_like_a(a, p);
    if (one) /* a scalar or a 1-element tensor, `axis` aside: every element / B[0] */
        return DVG_OK;
    axis = at->axis_set ? at->axis : (int64_t)(a->rank - b->rank);
    if (axis < 0 || axis > (int64_t)(a->rank - b->rank))
        return fail(iut, DVG_INVALID_INPUT, "legacy broadcasting: axis %lld is outside "
                    "0..%u", (long long)axis, a->rank - b->rank);
    dense_strides(b, sb);
    for (uint32_t k = 0; k < b->rank; k++) {
        if (b->shape[k] != a->shape[axis + k])
            return fail(iut, DVG_INVALID_INPUT, "legacy broadcasting: dimension %u of B "
                        "(%lld) differs from dimension %lld of A (%lld)", k,
                        (long long)b->shape[k], (long long)(axis + k),
                        (long long)a->shape[axis + k]);
        p->bs[axis + k] = sb[k];
    }
    return DVG_OK;
}

/* OpenVINO pdpd: B -> A. axis -1 means rank(A) - rank(B), taken before B's
 * trailing 1-dims are dropped; the rest of B must match A from `axis` on,
 * where a 1 in B broadcasts. */
static int32_t plan_pdpd(dvg_iut *iut, const dvg_attrs *at, const dvg_tensor *a,
                         const dvg_tensor *b, plan *p)
{
    int64_t sb[DVG_MAX_RANK], axis = at->axis;
    uint32_t rb = b->rank;
    if (b->rank > a->rank)
        return fail(iut, DVG_INVALID_INPUT, "pdpd broadcasting: rank of B (%u) exceeds "
                    "rank of A (%u)", b->rank, a->rank);
    if (axis == -1)
        axis = (int64_t)(a->rank - b->rank);
    if (axis < 0)
        return fail(iut, DVG_INVALID_INPUT, "pdpd broadcasting: axis %lld is negative "
                    "and not -1", (long long)axis);
    while (rb > 0 && b->shape[rb - 1] == 1)
        rb--;
    if (axis > (int64_t)a->rank || (int64_t)rb > (int64_t)a->rank - axis)
        return fail(iut, DVG_INVALID_INPUT, "pdpd broadcasting: B's dimensions (%u "
                    "without trailing 1s) from axis %lld run past rank(A) = %u", rb,
                    (long long)axis, a->rank);
    plan_like_a(a, p);
    dense_strides(b, sb);
    for (uint32_t k = 0; k < rb; k++) {
        int64_t db = b->shape[k], da = a->shape[axis + k];
        if (db != da && db != 1)
            return fail(iut, DVG_INVALID_INPUT, "pdpd broadcasting: dimension %u of B "
                        "(%lld) differs from dimension %lld of A (%lld)", k,
                        (long long)db, (long long)(axis + k), (long long)da);
        p->bs[axis + k] = db == 1 ? 0 : sb[k];
    }
    return DVG_OK;
}

/*
 * Checks what output_shape and compute share: the instance, the attribute
 * block, the pair claimed, both tensors' rank, dims and dtype; then plans.
 * *at receives the attributes (defaults when `attrs` is NULL).
 */
static int32_t plan_case(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                         const dvg_tensor *a, const dvg_tensor *b, dvg_attrs *at, plan *p)
{
    const dvg_tensor *t[2] = {a, b};
    memset(at, 0, sizeof *at);
    at->size = sizeof *at;
    at->axis = -1;
    at->pythondiv = 1;
    at->auto_broadcast = DVG_BROADCAST_NUMPY;
    if (attrs) {
        if (attrs->size < sizeof *attrs)
            return fail(iut, DVG_FAILURE, "attrs->size is %u, the ABI 1.0 block has %u "
                        "bytes", attrs->size, (unsigned)sizeof *attrs);
        memcpy(at, attrs, sizeof *at);
    }
    if (!a || !b)
        return fail(iut, DVG_FAILURE, "tensor %s is NULL", a ? "B" : "A");
    for (int i = 0; i < 2; i++) {
        if (t[i]->rank > DVG_MAX_RANK)
            return fail(iut, DVG_INVALID_INPUT, "rank of %c is %u, more than %d",
                        "AB"[i], t[i]->rank, DVG_MAX_RANK);
        for (uint32_t k = 0; k < t[i]->rank; k++)
            if (t[i]->shape[k] < 0)
                return fail(iut, DVG_INVALID_INPUT, "dimension %u of %c is negative (%lld)",
                            k, "AB"[i], (long long)t[i]->shape[k]);
    }
    if (variant == DVG_VARIANT_NONE || variant >= DVG_VARIANT_COUNT)
        return fail(iut, DVG_UNSUPPORTED, "unknown variant %u", variant);
    if (a->dtype != b->dtype)
        return fail(iut, DVG_INVALID_INPUT, "A has dtype %u and B dtype %u; the variant "
                    "needs one type", a->dtype, b->dtype);
    if (!claimed(variant, a->dtype))
        return fail(iut, DVG_UNSUPPORTED, "dtype %u is not claimed for variant %u",
                    a->dtype, variant);

    switch (variant_rules[variant].shapes) {
    case SHAPES_LEGACY:
        if (at->broadcast == 0)
            return plan_equal(iut, a, b, p);
        if (at->broadcast != 1)
            return fail(iut, DVG_INVALID_INPUT, "broadcast is %d, not 0 or 1",
                        at->broadcast);
        return plan_legacy(iut, at, a, b, p);
    case SHAPES_NUMPY:
        return plan_numpy(iut, a, b, p);
    case SHAPES_OPENVINO:
        switch (at->auto_broadcast) {
        case DVG_BROADCAST_NONE: return plan_equal(iut, a, b, p);
        case DVG_BROADCAST_NUMPY: return plan_numpy(iut, a, b, p);
        case DVG_BROADCAST_PDPD: return plan_pdpd(iut, at, a, b, p);
        }
        return fail(iut, DVG_INVALID_INPUT, "auto_broadcast is %u, not none, numpy or pdpd",
                    at->auto_broadcast);
    default:
        return plan_equal(iut, a, b, p);
    }
}

/* Checks that a tensor's buffer holds its elements. */
static int32_t check_buffer(dvg_iut *iut, const dvg_tensor *t, char which, int64_t *count)
{
    if (shape_count(t->rank, t->shape, count) < 0)
        return fail(iut, DVG_FAILURE, "%c has more than 2^56 elements", which);
    if (t->nbytes < ((uint64_t)*count * dtype_bits[t->dtype] + 7) / 8 ||
        (*count > 0 && !t->data))
        return fail(iut, DVG_FAILURE, "%c: buffer of %llu bytes%s for %lld elements", which,
                    (unsigned long long)t->nbytes, t->data ? "" : " (NULL)",
                    (long long)*count);
    return DVG_OK;
}

/* ------------------------------------------------------------------------
 * The FP environment: round to nearest, no FTZ/DAZ, no traps, during
 * compute; the caller's environment afterwards.
 * ---------------------------------------------------------------------- */
typedef struct fp_state {
    fenv_t env;
#if defined(__x86_64__)
    unsigned int mxcsr;
#elif defined(__aarch64__)
    uint64_t fpcr;
#endif
} fp_state;

static void fp_enter(fp_state *s)
{
    feholdexcept(&s->env); /* saves, clears flags, masks traps */
    fesetround(FE_TONEAREST);
#if defined(__x86_64__)
    s->mxcsr = _mm_getcsr();
    _mm_setcsr(MUTANT_MXCSR(s->mxcsr & ~(0x8000u | 0x0040u))); /* FTZ, DAZ */
#elif defined(__aarch64__)
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(s->fpcr));
    __asm__ __volatile__("msr fpcr, %0" ::"r"(s->fpcr & ~((UINT64_C(1) << 24) | /* FZ */
                                                          (UINT64_C(1) << 19)))); /* FZ16 */
#endif
}

static void fp_leave(fp_state *s)
{
#if defined(__x86_64__)
    _mm_setcsr(s->mxcsr);
#elif defined(__aarch64__)
    __asm__ __volatile__("msr fpcr, %0" ::"r"(s->fpcr));
#endif
    fesetenv(&s->env);
}

/* ------------------------------------------------------------------------
 * The entry points.
 * ---------------------------------------------------------------------- */
static int32_t ref_open(const char *config, dvg_iut **out)
{
    dvg_iut *iut;
    if (!config || !out || config[0] != '\0')
        return DVG_FAILURE; /* the reference takes no configuration */
    iut = calloc(1, sizeof *iut);
    if (!iut)
        return DVG_FAILURE;
    *out = iut;
    return DVG_OK;
}

/* The one ISA level the reference has: portable C (its AVX2 runs are
 * chosen at run time and give the same bits). A mutant may declare others
 * (MUTANT_ISA_LEVELS). */
static const dvg_isa_level isa_levels[] = {
#if defined(MUTANT_ISA_LEVELS)
    MUTANT_ISA_LEVELS
#elif defined(__x86_64__)
    {sizeof(dvg_isa_level), 0, "scalar", "v1"},
#else
    {sizeof(dvg_isa_level), 0, "scalar", ""},
#endif
};

static int32_t ref_open_with(const char *config, const dvg_open_options *options, dvg_iut **out)
{
    int32_t status;
    const char *isa = NULL;
    if (options && options->size >= sizeof(dvg_open_options) && options->isa) {
        for (size_t i = 0; i < sizeof isa_levels / sizeof isa_levels[0] && !isa; i++)
            if (!strcmp(options->isa, isa_levels[i].name))
                isa = isa_levels[i].name;
        if (!isa)
            return DVG_UNSUPPORTED; /* no such level */
    }
    status = ref_open(config, out);
    if (status == DVG_OK && options && options->size >= 2 * sizeof(uint32_t))
        (*out)->threads = options->threads;
    if (status == DVG_OK)
        (*out)->threads = MUTANT_THREADS((*out)->threads);
    if (status == DVG_OK)
        (*out)->isa = isa;
    return status;
}

static int32_t ref_output_shape(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                                const dvg_tensor *a, const dvg_tensor *b, uint32_t *rank,
                                int64_t *shape)
{
    dvg_attrs at;
    plan p;
    int32_t status;
    if (!iut)
        return DVG_FAILURE;
    if (!rank || !shape)
        return fail(iut, DVG_FAILURE, "rank or shape is NULL");
    status = plan_case(iut, variant, attrs, a, b, &at, &p);
    if (status != DVG_OK)
        return status;
    *rank = p.rank;
    memcpy(shape, p.dims, p.rank * sizeof shape[0]);
    return DVG_OK;
}

/* Output elements [from, to) of a collapsed plan (its last dimension the
 * runs', the outer ones walked by an odometer). */
static void run_range(run_fn *run, const plan *p, const uint8_t *a, const uint8_t *b,
                      uint8_t *c, int64_t from, int64_t to)
{
    uint32_t n = p->rank;
    int64_t inner = p->dims[n - 1], row = from / inner, off = from % inner;
    int64_t idx[DVG_MAX_RANK] = {0}, ao = 0, bo = 0, co = from, len;
    for (uint32_t k = n - 1; k-- > 0;) {
        idx[k] = row % p->dims[k];
        row /= p->dims[k];
        ao += idx[k] * p->as[k];
        bo += idx[k] * p->bs[k];
    }
    while (co < to) {
        len = inner - off < to - co ? inner - off : to - co;
        run(a, ao + off * p->as[n - 1], p->as[n - 1], b, bo + off * p->bs[n - 1], p->bs[n - 1],
            c, co, len);
        co += len;
        off = 0;
        for (uint32_t k = n - 1; k-- > 0;) { /* odometer over the outer dims */
            ao += p->as[k];
            bo += p->bs[k];
            if (++idx[k] < p->dims[k])
                break;
            idx[k] = 0;
            ao -= p->as[k] * p->dims[k];
            bo -= p->bs[k] * p->dims[k];
        }
    }
}

/* One part of a split compute, on a thread of its own. */
typedef struct part {
    run_fn *run;
    const plan *p;
    const uint8_t *a, *b;
    uint8_t *c;
    int64_t from, to;
    pthread_t thread;
} part;

static void *part_main(void *arg)
{
    part *t = arg;
    fp_state fp;
    fp_enter(&fp); /* a new thread's own FP environment */
    run_range(t->run, t->p, t->a, t->b, t->c, t->from, t->to);
    fp_leave(&fp);
    return NULL;
}

/* Parts start at multiples of SPLIT_GRAIN elements (whole bytes of i4/u4:
 * no two threads write one byte), at least two grains each. */
#define SPLIT_GRAIN 64
#define SPLIT_MAX 64

/* Computes all nc elements: on the caller's thread, or split over
 * iut->threads threads (the caller's one of them) where it asked for
 * more than one and C is large enough. Bit-exact either way: each element
 * is computed by the same run. (MUTANT_SCRATCH: through one static
 * buffer, as a kernel with a file-scope scratch array would.) */
static int32_t run_split(dvg_iut *iut, run_fn *run, const plan *p, const dvg_tensor *a,
                         const dvg_tensor *b, dvg_tensor *c, int64_t nc)
{
    part parts[SPLIT_MAX];
    int64_t t = iut->threads < SPLIT_MAX ? (int64_t)iut->threads : SPLIT_MAX, k, started;
    if (MUTANT_SCRATCH) {
        static uint8_t scratch[1 << 16];
        size_t bytes = (size_t)c->nbytes;
        if (bytes <= sizeof scratch) {
            memcpy(scratch, c->data, bytes); /* the padding nibble as found */
            run_range(run, p, a->data, b->data, scratch, 0, nc);
            memcpy(c->data, scratch, bytes);
            return DVG_OK;
        }
    }
    if (t > nc / (2 * SPLIT_GRAIN))
        t = nc / (2 * SPLIT_GRAIN);
    if (t <= 1) {
        run_range(run, p, a->data, b->data, c->data, 0, nc);
        return DVG_OK;
    }
    for (k = 0; k < t; k++) {
        parts[k].run = run;
        parts[k].p = p;
        parts[k].a = a->data;
        parts[k].b = b->data;
        parts[k].c = c->data;
        parts[k].from = nc * k / t / SPLIT_GRAIN * SPLIT_GRAIN;
    }
    for (k = 0; k < t; k++)
        parts[k].to = k + 1 < t ? MUTANT_SPLIT_END(k, t, parts[k + 1].from) : nc;
    for (started = 1; started < t; started++)
        if (pthread_create(&parts[started].thread, NULL, part_main, &parts[started]) != 0)
            break;
    run_range(run, p, a->data, b->data, c->data, parts[0].from, parts[0].to);
    for (k = started; k < t; k++) /* no thread for these: the caller's */
        run_range(run, p, a->data, b->data, c->data, parts[k].from, parts[k].to);
    for (k = 1; k < started; k++)
        pthread_join(parts[k].thread, NULL);
    return DVG_OK;
}

static int32_t ref_compute(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                           const dvg_tensor *a, const dvg_tensor *b, dvg_tensor *c)
{
    dvg_attrs at;
    plan p;
    int64_t na, nb, nc;
    uint32_t n = 0;
    run_fn *run;
    fp_state fp;
    int32_t status;

    if (!iut)
        return DVG_FAILURE;
    if (!c)
        return fail(iut, DVG_FAILURE, "tensor C is NULL");
    status = plan_case(iut, variant, attrs, a, b, &at, &p);
    if (status != DVG_OK)
        return status;
    if (c->dtype != a->dtype || c->rank != p.rank ||
        memcmp(c->shape, p.dims, p.rank * sizeof p.dims[0]))
        return fail(iut, DVG_FAILURE, "C is not the output of this case (dtype or shape)");
    if ((status = check_buffer(iut, a, 'A', &na)) != DVG_OK ||
        (status = check_buffer(iut, b, 'B', &nb)) != DVG_OK ||
        (status = check_buffer(iut, c, 'C', &nc)) != DVG_OK)
        return status;
    status = MUTANT_BEFORE(variant, a, b, c, nc);
    if (status != DVG_OK)
        return fail(iut, status, "declined");
    if (nc == 0)
        return DVG_OK;

    /* Drop size-1 dimensions and merge each dimension into the one outside
     * it when both operands are contiguous across the pair. */
    for (uint32_t k = 0; k < p.rank; k++) {
        if (p.dims[k] == 1)
            continue;
        if (n > 0 && p.as[n - 1] == p.as[k] * p.dims[k] && p.bs[n - 1] == p.bs[k] * p.dims[k]) {
            p.dims[n - 1] *= p.dims[k];
            p.as[n - 1] = p.as[k];
            p.bs[n - 1] = p.bs[k];
        } else {
            p.dims[n] = p.dims[k];
            p.as[n] = p.as[k];
            p.bs[n] = p.bs[k];
            n++;
        }
    }
    if (n == 0) {
        p.dims[0] = 1;
        p.as[0] = p.bs[0] = 0;
        n = 1;
    }

    p.rank = n;
    run = pick_run(a->dtype, floors(variant, &at));
    fp_enter(&fp);
    status = run_split(iut, run, &p, a, b, c, nc);
    fp_leave(&fp);
    if (status != DVG_OK)
        return status;
    MUTANT_AFTER_ATTRS(variant, &at, a, b, c, nc);
    MUTANT_AFTER_ISA(iut->isa, c, nc);
    status = MUTANT_REFUSE(variant, a, b, c, nc);
    if (status != DVG_OK)
        return fail(iut, status, "refused: the case holds an integer x / 0 or INT_MIN / -1");
    return DVG_OK;
}

static const char *ref_last_error(dvg_iut *iut)
{
    return iut ? iut->error : "no instance";
}

static void ref_close(dvg_iut *iut)
{
    free(iut);
}

static const dvg_descriptor descriptor = {
    sizeof(dvg_descriptor),
    MUTANT_ABI_MAJOR,
    DVG_ABI_MINOR,
    MUTANT_IUT_NAME,
    REFERENCE_VERSION,
    N_CLAIMS,
    0,
    claims,
    MUTANT_DEVIATIONS, /* none */
    0,
    ref_open,
    ref_output_shape,
    ref_compute,
    ref_last_error,
    ref_close,
    MUTANT_CAPABILITIES,
    sizeof isa_levels / sizeof isa_levels[0],
    0,
    isa_levels,
    ref_open_with,
};

__attribute__((visibility("default"))) const dvg_descriptor *MUTANT_ENTRY(void)
{
    return &descriptor;
}
