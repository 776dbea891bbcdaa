/* SPDX-License-Identifier: MIT */
/*
 * plugins/reference/reference.c: the reference Div kernel of Divergence.
 *
 * Built from the public header alone (include/divergence/iut.h), exactly as
 * a vendor's plugin would be. It claims every (variant, dtype) pair that
 * SEMANTICS.md lists (SONNX: the contents-list types too) and follows each
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

/* ------------------------------------------------------------------------
 * Element types and element access. Tensors are little-endian host bytes
 * with no alignment promise, so every access goes through memcpy (which
 * compiles to a plain load or store). i4/u4: two per byte, low nibble
 * first.
 * ---------------------------------------------------------------------- */
#define DTYPE_BITS_(ID, tag, value, bits, kind) [value] = bits,
static const uint8_t dtype_bits[DVG_DTYPE_COUNT] = {DVG_DTYPE_LIST(DTYPE_BITS_)};
#undef DTYPE_BITS_

#define DEFINE_LD(tag, T)                                                    \
    static inline T ld_##tag(const uint8_t *p, int64_t i)                    \
    {                                                                        \
        T v;                                                                 \
        memcpy(&v, p + i * (int64_t)sizeof(T), sizeof(T));                   \
        return v;                                                            \
    }
#define DEFINE_ST(tag, T)                                                    \
    static inline void st_##tag(uint8_t *p, int64_t i, T v)                  \
    {                                                                        \
        memcpy(p + i * (int64_t)sizeof(T), &v, sizeof(T));                   \
    }
#define DEFINE_LDST(tag, T) DEFINE_LD(tag, T) DEFINE_ST(tag, T)
DEFINE_LDST(i8, int8_t)
DEFINE_LDST(i16, int16_t)
DEFINE_LDST(i32, int32_t)
DEFINE_LDST(i64, int64_t)
DEFINE_LDST(u8, uint8_t)
DEFINE_LDST(u16, uint16_t)
DEFINE_LDST(u32, uint32_t)
DEFINE_LDST(u64, uint64_t)
DEFINE_LD(f32, float) /* float results are stored as bits */
DEFINE_LD(f64, double)
#undef DEFINE_LD
#undef DEFINE_ST
#undef DEFINE_LDST

static inline uint8_t ld_u4(const uint8_t *p, int64_t i)
{
    return (uint8_t)((p[i >> 1] >> ((i & 1) * 4)) & 0xFu);
}

static inline int8_t ld_i4(const uint8_t *p, int64_t i)
{
    int v = ld_u4(p, i);
    return (int8_t)(v >= 8 ? v - 16 : v);
}

/* Writes one nibble and leaves its neighbour as it was. */
static inline void st_u4(uint8_t *p, int64_t i, uint8_t v)
{
    unsigned shift = (unsigned)(i & 1) * 4u;
    p[i >> 1] = (uint8_t)((p[i >> 1] & ~(0xFu << shift)) | ((v & 0xFu) << shift));
}

static inline void st_i4(uint8_t *p, int64_t i, int8_t v)
{
    st_u4(p, i, (uint8_t)v);
}

/* Elements of a tensor: its count in *n (0 when a dimension is 0). Returns
 * -1 when the count exceeds 2^56 (its byte size would not fit). */
static int shape_count(uint32_t rank, const int64_t *dims, int64_t *n)
{
    int64_t count = 1;
    for (uint32_t k = 0; k < rank; k++)
        if (dims[k] == 0) {
            *n = 0;
            return 0;
        }
    for (uint32_t k = 0; k < rank; k++) {
        if (dims[k] > (INT64_C(1) << 56) / count)
            return -1;
        count *= dims[k];
    }
    *n = count;
    return 0;
}

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
#ifndef MUTANT_FDIV /* float quotient x / y in host arithmetic */
#define MUTANT_FDIV(x, y) ((x) / (y))
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
#ifndef MUTANT_ABI_MAJOR /* descriptor.abi_major */
#define MUTANT_ABI_MAJOR DVG_ABI_MAJOR
#endif
#ifndef MUTANT_ENTRY /* the exported entry point */
#define MUTANT_ENTRY dvg_iut_descriptor
#endif
#ifndef MUTANT_IUT_NAME /* descriptor.name */
#define MUTANT_IUT_NAME "divergence-reference"
#endif

/* ------------------------------------------------------------------------
 * Floats. f16 and bf16 go through double; both conversions are exact bit
 * manipulations, independent of the FP environment.
 * ---------------------------------------------------------------------- */

/* The value of a binary format with `frac` fraction and `ebits` exponent
 * bits (f16: 10, 5; bf16: 7, 8), exactly, as a double. */
static inline double widen(uint32_t h, int frac, int ebits)
{
    const uint32_t emask = (1u << ebits) - 1u, bias = (1u << (ebits - 1)) - 1u;
    const uint64_t sign = (uint64_t)((h >> (frac + ebits)) & 1u) << 63;
    const uint32_t e = (h >> frac) & emask, m = h & ((1u << frac) - 1u);
    uint64_t x;
    double d;
    if (e == emask) { /* inf, NaN (payload kept, signaling stays signaling) */
        x = sign | UINT64_C(0x7FF0000000000000) | ((uint64_t)m << (52 - frac));
    } else if (e == 0) { /* zero, subnormal: m * 2^(1 - bias - frac) */
        uint64_t scale_bits = (uint64_t)(1023 + 1 - (int)bias - frac) << 52;
        double scale;
        memcpy(&scale, &scale_bits, sizeof scale);
        d = (double)m * scale;
        return sign ? -d : d;
    } else {
        x = sign | ((uint64_t)(e - bias + 1023u) << 52) | ((uint64_t)m << (52 - frac));
    }
    memcpy(&d, &x, sizeof d);
    return d;
}

/* d rounded to the nearest value of the format (frac, ebits), ties to
 * even, subnormals kept, overflow to inf; NaN stays a quiet NaN with the
 * top of its payload. Returns the bits. */
static inline uint32_t narrow(double d, int frac, int ebits)
{
    const uint32_t emask = (1u << ebits) - 1u;
    const int bias = (1 << (ebits - 1)) - 1;
    uint64_t x, sig, rem, half, q;
    uint32_t sign;
    int e, shift;

    memcpy(&x, &d, sizeof x);
    sign = (uint32_t)(x >> 63) << (frac + ebits);
    e = (int)((x >> 52) & 0x7FF);
    sig = x & UINT64_C(0xFFFFFFFFFFFFF);
    if (e == 0x7FF) {
        if (sig == 0)
            return sign | (emask << frac);
        return sign | (emask << frac) | (1u << (frac - 1)) | (uint32_t)(sig >> (52 - frac));
    }
    if (e == 0) /* zero or a double subnormal: far below half the least subnormal */
        return sign;
    e -= 1023;
    if (e > bias) /* at least 2^(emax + 1) */
        return sign | (emask << frac);
    sig |= UINT64_C(1) << 52;
    shift = 52 - frac;
    if (e < 1 - bias) /* subnormal in the target format */
        shift += (1 - bias) - e;
    if (shift > 62) /* below a quarter of the least subnormal */
        return sign;
    q = sig >> shift;
    rem = sig & ((UINT64_C(1) << shift) - 1);
    half = UINT64_C(1) << (shift - 1);
    if (rem > half || (rem == half && (q & 1)))
        q++;
    if (e < 1 - bias) /* q == 2^frac is the least normal: the bits are right */
        return sign | (uint32_t)q;
    /* the implicit bit of q adds one to the exponent field; a carry out of
     * the significand rounds up to the next binade or to inf */
    return sign | (uint32_t)(((uint64_t)(e + bias - 1) << frac) + q);
}

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
    return (uint16_t)MUTANT_FBITS(narrow(q, 10, 5), 10, 5);
}

static inline uint16_t div_bf16(uint16_t x, uint16_t y)
{
    double q = MUTANT_FDIV(widen(x, 7, 8), widen(y, 7, 8));
    return (uint16_t)MUTANT_FBITS(narrow(q, 7, 8), 7, 8);
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
                return 0;                                                     \
            if (b == -1)                                                      \
                return a == (MIN) ? (T)(MIN) : (T)-a;                         \
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
            return 0;                                                         \
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
 * Variants as data: the pairs claimed, the shape rule, the integer
 * rounding.
 * ---------------------------------------------------------------------- */
#define CLAIM(v, d) {DVG_VARIANT_##v, DVG_DTYPE_##d}
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
    _mm_setcsr(s->mxcsr & ~(0x8000u | 0x0040u)); /* FTZ, DAZ */
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

static int32_t ref_compute(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                           const dvg_tensor *a, const dvg_tensor *b, dvg_tensor *c)
{
    dvg_attrs at;
    plan p;
    int64_t na, nb, nc, idx[DVG_MAX_RANK] = {0};
    int64_t ao = 0, bo = 0, co = 0, inner, ias, ibs;
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

    run = runs[a->dtype][floors(variant, &at)];
    inner = p.dims[n - 1];
    ias = p.as[n - 1];
    ibs = p.bs[n - 1];
    fp_enter(&fp);
    for (co = 0; co < nc; co += inner) {
        run(a->data, ao, ias, b->data, bo, ibs, c->data, co, inner);
        for (uint32_t k = n - 1; k-- > 0;) { /* odometer over the outer dims */
            ao += p.as[k];
            bo += p.bs[k];
            if (++idx[k] < p.dims[k])
                break;
            idx[k] = 0;
            ao -= p.as[k] * p.dims[k];
            bo -= p.bs[k] * p.dims[k];
        }
    }
    fp_leave(&fp);
    MUTANT_AFTER(variant, a, b, c, nc);
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
    0, /* no deviations */
    0,
    ref_open,
    ref_output_shape,
    ref_compute,
    ref_last_error,
    ref_close,
};

__attribute__((visibility("default"))) const dvg_descriptor *MUTANT_ENTRY(void)
{
    return &descriptor;
}
