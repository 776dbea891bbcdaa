/* SPDX-License-Identifier: MIT */
/*
 * oracle/fastpath.c: float division through the host FPU where that is
 * provably exact (see fastpath.h), checked against the exact path once per
 * process before it is used.
 *
 * f16 and bf16 are widened to double by moving their bits into place and
 * scaling by a power of two (exact), and narrowed back by integer rounding
 * of the double's bits (normal results) or by one addition of a constant
 * whose last place is the target's smallest subnormal (subnormal results):
 * both round to nearest, ties to even. f32 is widened and narrowed with
 * host casts, f64 divided directly. Every batch runs in the IEEE default
 * environment of oracle/fpenv.h (round to nearest, no traps, FTZ and DAZ
 * clear); the caller's environment, flags included, is restored after.
 * The f16 and
 * bf16 conversions have been checked on all 2^32 pairs of each format
 * (bench/bench_f16_exhaustive.c, also a long test).
 *
 * Compiled with -frounding-math -fsignaling-nans (oracle/CMakeLists.txt):
 * the compiler must not fold or move the divisions across the changes of
 * the environment.
 */
#include "oracle/fastpath.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "divergence/iut.h"
#include "oracle/edges.h"
#include "oracle/exact.h"
#include "oracle/fpenv.h"
#include "oracle/prng.h"

/* Default NaNs, the same patterns the exact path returns. */
#define F16_DEFAULT_NAN  0x7E00u
#define BF16_DEFAULT_NAN 0x7FC0u
#define F32_DEFAULT_NAN  0x7FC00000u
#define F64_DEFAULT_NAN  0x7FF8000000000000u

/* Size of the slices the self-check divides at a time. */
#define CHUNK 1024

/* ------------------------------------------------------------------------
 * Conversions. All are written as straight-line code with selects instead
 * of branches, so the kernels below vectorise; all run inside the guard
 * (round to nearest, DAZ and FTZ clear), which the FP steps rely on.
 * ---------------------------------------------------------------------- */

static inline double double_from_bits(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static inline uint64_t bits_from_double(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static inline float float_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline uint32_t bits_from_float(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* cond ? x : y, as a mask blend: the compiler must not turn it into a
 * branch around an FP operation it may not then speculate (which would stop
 * the loop from vectorising). */
static inline uint64_t select64(int cond, uint64_t x, uint64_t y)
{
    uint64_t mask = (uint64_t)0 - (uint64_t)(cond != 0);
    return (x & mask) | (y & ~mask);
}

#define D_SIGN     0x8000000000000000u
#define D_EXP_MASK 0x7FF0000000000000u /* also +inf */

/*
 * The value of `h`, a 16-bit format of `ebits` exponent and `fbits`
 * fraction bits (f16: 5, 10; bf16: 8, 7), as a double. Exact.
 * Moved up by 52 - fbits bits, h's exponent and fraction fields read as a
 * double of value h * 2^(bias - 1023) (h subnormal: a double subnormal,
 * still exact); one multiplication by the power of two 2^(1023 - bias)
 * corrects the exponent, exactly, since DAZ is clear. Infinities and NaNs
 * get binary64's all-ones exponent instead.
 */
static inline double widen16(uint64_t h, int ebits, int fbits)
{
    const int shift = 52 - fbits;
    const uint64_t mag_mask = ((uint64_t)1 << (ebits + fbits)) - 1;
    const uint64_t inf16 = (((uint64_t)1 << ebits) - 1) << fbits;
    const int bias = (1 << (ebits - 1)) - 1;
    const double scale = double_from_bits((uint64_t)(1023 + 1023 - bias) << 52);
    uint64_t mag = h & mag_mask;
    uint64_t sign = ((h >> (ebits + fbits)) & 1) << 63;
    uint64_t finite = bits_from_double(double_from_bits(mag << shift) * scale);
    uint64_t special = D_EXP_MASK | (mag << shift);
    return double_from_bits(select64(mag >= inf16, special, finite) | sign);
}

/*
 * `q` rounded to nearest, ties to even, into a 16-bit format of `ebits`
 * exponent and `fbits` fraction bits (f16, bf16); the default NaN `nan`
 * for a NaN, infinity on overflow. q must be zero, infinite, NaN or a
 * normal double (a quotient of two such 16-bit values always is).
 *  - Normal result: rounding the 52-bit fraction to fbits bits by adding
 *    just under half a unit plus the kept bit's parity (ties to even), a
 *    carry running into the exponent; then rebias.
 *  - Subnormal result (|q| below the smallest normal 2^emin): |q| + C with
 *    C = 2^(emin - fbits + 52), whose unit in the last place is the
 *    target's smallest subnormal, so the FPU's round-to-nearest-even
 *    addition rounds |q| to the subnormal grid; the low bits of the sum
 *    are the subnormal's fraction (2^fbits: rounded up to the smallest
 *    normal, which is the right encoding too).
 */
static inline uint64_t narrow16(double q, int ebits, int fbits, uint64_t nan)
{
    const int shift = 52 - fbits;
    const int bias = (1 << (ebits - 1)) - 1;
    const uint64_t inf16 = (((uint64_t)1 << ebits) - 1) << fbits;
    const uint64_t min_normal = (uint64_t)(1023 + 1 - bias) << 52;         /* 2^emin */
    const double c = double_from_bits((uint64_t)(1023 + 1 - bias - fbits + 52) << 52);
    uint64_t bits = bits_from_double(q);
    uint64_t sign = (bits >> 63) << (ebits + fbits);
    uint64_t mag = bits & ~D_SIGN;
    uint64_t rounded = (mag + (((uint64_t)1 << (shift - 1)) - 1) + ((mag >> shift) & 1)) >> shift;
    uint64_t normal = rounded - ((uint64_t)(1023 - bias) << fbits);
    uint64_t subnormal = bits_from_double(double_from_bits(mag) + c) - bits_from_double(c);
    uint64_t h = select64(mag < min_normal, subnormal, normal);
    h = select64(h > inf16, inf16, h);
    return select64(mag > D_EXP_MASK, nan, h | sign);
}

/* ------------------------------------------------------------------------
 * The kernels: BLOCK elements each, in three loops over local arrays
 * (widen, divide, narrow) that the compiler can vectorise; on x86-64 with
 * GCC or Clang they are also built for AVX2 and picked at load time.
 * They run between oracle_fpenv_enter and _leave; noinline keeps the
 * divisions inside that window.
 * ---------------------------------------------------------------------- */

#define BLOCK 256

#ifndef KERNEL /* a build may define it, e.g. to test the baseline code */
/* GCC only: clang refuses target_clones together with noinline. */
#if defined(__x86_64__) && defined(__gnu_linux__) && defined(__has_attribute) && !defined(__clang__)
#if __has_attribute(target_clones)
#define KERNEL __attribute__((noinline, target_clones("avx2", "default")))
#endif
#endif
#endif
#ifndef KERNEL
#define KERNEL __attribute__((noinline))
#endif

typedef void kernel_fn(const uint64_t *a, const uint64_t *b, uint64_t *out);

KERNEL static void kernel_f16(const uint64_t *a, const uint64_t *b, uint64_t *out)
{
    double x[BLOCK], y[BLOCK];
    for (int i = 0; i < BLOCK; i++) {
        x[i] = widen16(a[i], 5, 10);
        y[i] = widen16(b[i], 5, 10);
    }
    for (int i = 0; i < BLOCK; i++)
        x[i] = x[i] / y[i];
    for (int i = 0; i < BLOCK; i++)
        out[i] = narrow16(x[i], 5, 10, F16_DEFAULT_NAN);
}

KERNEL static void kernel_bf16(const uint64_t *a, const uint64_t *b, uint64_t *out)
{
    double x[BLOCK], y[BLOCK];
    for (int i = 0; i < BLOCK; i++) {
        x[i] = widen16(a[i], 8, 7);
        y[i] = widen16(b[i], 8, 7);
    }
    for (int i = 0; i < BLOCK; i++)
        x[i] = x[i] / y[i];
    for (int i = 0; i < BLOCK; i++)
        out[i] = narrow16(x[i], 8, 7, BF16_DEFAULT_NAN);
}

/* f32: host conversions float -> double (exact) and double -> float
 * (correctly rounded, subnormals included, FTZ being clear). */
KERNEL static void kernel_f32(const uint64_t *a, const uint64_t *b, uint64_t *out)
{
    double x[BLOCK], y[BLOCK];
    for (int i = 0; i < BLOCK; i++) {
        x[i] = (double)float_from_bits((uint32_t)a[i]);
        y[i] = (double)float_from_bits((uint32_t)b[i]);
    }
    for (int i = 0; i < BLOCK; i++)
        x[i] = x[i] / y[i];
    for (int i = 0; i < BLOCK; i++) {
        uint32_t z = bits_from_float((float)x[i]);
        out[i] = select64((z & 0x7FFFFFFFu) > 0x7F800000u, F32_DEFAULT_NAN, z);
    }
}

KERNEL static void kernel_f64(const uint64_t *a, const uint64_t *b, uint64_t *out)
{
    double x[BLOCK];
    for (int i = 0; i < BLOCK; i++)
        x[i] = double_from_bits(a[i]) / double_from_bits(b[i]);
    for (int i = 0; i < BLOCK; i++) {
        uint64_t z = bits_from_double(x[i]);
        out[i] = select64((z & ~D_SIGN) > D_EXP_MASK, F64_DEFAULT_NAN, z);
    }
}

/* Runs `kernel` over n pairs: whole blocks in place, the tail through
 * padded copies (padding 1 / 1). */
static void run_kernel(kernel_fn *kernel, uint64_t one, const uint64_t *a, const uint64_t *b,
                       size_t n, uint64_t *out)
{
    uint64_t pa[BLOCK], pb[BLOCK], pz[BLOCK];
    size_t i = 0, rest;

    for (; i + BLOCK <= n; i += BLOCK)
        kernel(a + i, b + i, out + i);
    rest = n - i;
    if (rest) {
        for (size_t k = 0; k < BLOCK; k++) {
            pa[k] = k < rest ? a[i + k] : one;
            pb[k] = k < rest ? b[i + k] : one;
        }
        kernel(pa, pb, pz);
        memcpy(out + i, pz, rest * sizeof *out);
    }
}

int oracle_fastpath_div(uint32_t dtype, const uint64_t *a, const uint64_t *b,
                        size_t n, uint64_t *out)
{
    kernel_fn *kernel;
    uint64_t one; /* 1.0, the padding of a partial block */
    oracle_fpenv g;

    switch (dtype) {
    case DVG_DTYPE_F16:  kernel = kernel_f16;  one = 0x3C00u;               break;
    case DVG_DTYPE_BF16: kernel = kernel_bf16; one = 0x3F80u;               break;
    case DVG_DTYPE_F32:  kernel = kernel_f32;  one = 0x3F800000u;           break;
    case DVG_DTYPE_F64:  kernel = kernel_f64;  one = 0x3FF0000000000000u;   break;
    default:             return -1;
    }
    if (n == 0)
        return 0;
    oracle_fpenv_enter(&g);
    run_kernel(kernel, one, a, b, n, out);
    oracle_fpenv_leave(&g);
    return 0;
}

/* ------------------------------------------------------------------------
 * The self-check.
 * ---------------------------------------------------------------------- */

typedef struct float_format {
    uint32_t dtype;
    int ebits, fbits;
} float_format;

static const float_format FORMATS[] = {
    { DVG_DTYPE_F16, 5, 10 },
    { DVG_DTYPE_BF16, 8, 7 },
    { DVG_DTYPE_F32, 8, 23 },
    { DVG_DTYPE_F64, 11, 52 },
};
#define N_FORMATS (sizeof FORMATS / sizeof FORMATS[0])

static atomic_int enabled_[DVG_DTYPE_COUNT];
static int enabled_count_;
static pthread_once_t once_ = PTHREAD_ONCE_INIT;

/* The exact path on zero-extended bits. */
static uint64_t exact_div(uint32_t dtype, uint64_t a, uint64_t b)
{
    switch (dtype) {
    case DVG_DTYPE_F16:  return f16_div((dvg_f16){ (uint16_t)a }, (dvg_f16){ (uint16_t)b }).v;
    case DVG_DTYPE_BF16: return bf16_div((dvg_bf16){ (uint16_t)a }, (dvg_bf16){ (uint16_t)b }).v;
    case DVG_DTYPE_F32:  return f32_div((dvg_f32){ (uint32_t)a }, (dvg_f32){ (uint32_t)b }).v;
    default:             return f64_div((dvg_f64){ a }, (dvg_f64){ b }).v;
    }
}

static int is_nan(uint32_t dtype, uint64_t v)
{
    switch (dtype) {
    case DVG_DTYPE_F16:  return f16_is_nan((uint16_t)v);
    case DVG_DTYPE_BF16: return bf16_is_nan((uint16_t)v);
    case DVG_DTYPE_F32:  return f32_is_nan((uint32_t)v);
    default:             return f64_is_nan(v);
    }
}

/*
 * The operands the self-check crosses: the edge values of the format
 * (oracle/edges.h), then, both signs, what a division check needs beyond
 * them: more subnormals and smallest normals and their neighbours, the
 * largest finite's neighbour, powers of two across the range, and
 * significands whose quotients fall on or next to ties (1.5, 5, 4/3,
 * near 1.5). Returns the count written (at most SELFCHECK_EDGES).
 */
#define SELFCHECK_EDGES 128
static size_t edge_table(const float_format *f, uint64_t *out)
{
    const uint64_t frac_mask = ((uint64_t)1 << f->fbits) - 1;
    const uint64_t exp_all_ones = ((uint64_t)1 << f->ebits) - 1;
    const uint64_t bias = exp_all_ones >> 1;
    const uint64_t sign = (uint64_t)1 << (f->ebits + f->fbits);
    const uint64_t top = (uint64_t)1 << (f->fbits - 1);
#define EXPF(e) ((uint64_t)(e) << f->fbits)
    const uint64_t mags[] = {
        2, 3, top | 1, frac_mask - 1,                           /* subnormals */
        EXPF(1) | frac_mask, EXPF(2),                           /* smallest normals */
        EXPF(exp_all_ones - 1) | (frac_mask - 1),               /* below the largest */
        EXPF(bias) | top,                                       /* 1.5 */
        EXPF(bias + 2) | (top >> 1),                            /* 5 */
        EXPF(bias) | (frac_mask >> 1),                          /* near 1.5 */
        EXPF(bias) | (0x5555555555555555u & frac_mask),         /* 4/3 */
        EXPF(bias) | (0xAAAAAAAAAAAAAAAAu & frac_mask),
        EXPF(bias + f->fbits), EXPF(bias - f->fbits),           /* 2^+-p */
        EXPF(exp_all_ones - 2), EXPF(3),                        /* near the ends */
        EXPF(bias / 2), EXPF(bias + bias / 2),
    };
#undef EXPF
    size_t n;
    const uint64_t *edges = oracle_edge_values(f->dtype, &n);
    memcpy(out, edges, n * sizeof *out);
    for (size_t i = 0; i < sizeof mags / sizeof mags[0]; i++) {
        out[n++] = mags[i];
        out[n++] = mags[i] | sign;
    }
    return n;
}

/* Compares a chunk; returns the number of disagreements. */
static size_t compare_chunk(uint32_t dtype, const uint64_t *a, const uint64_t *b, size_t n)
{
    uint64_t fast[CHUNK];
    size_t bad = 0;

    oracle_fastpath_div(dtype, a, b, n, fast);
    for (size_t i = 0; i < n; i++) {
        uint64_t exact = exact_div(dtype, a[i], b[i]);
        if (is_nan(dtype, exact) ? !is_nan(dtype, fast[i]) : fast[i] != exact)
            bad++;
    }
    return bad;
}

/* 1 when the fast path of `f` agrees with the exact path on the edge
 * table crossed with itself and on SELFCHECK_RANDOM random pairs. */
#define SELFCHECK_RANDOM 100000
static int check_format(const float_format *f)
{
    uint64_t edges[SELFCHECK_EDGES], a[CHUNK], b[CHUNK];
    uint64_t mask = f->ebits + f->fbits == 63 ? ~(uint64_t)0
                                               : ((uint64_t)1 << (f->ebits + f->fbits + 1)) - 1;
    uint64_t state = 0x6469766572676Eu ^ f->dtype; /* fixed seed */
    size_t n_edges = edge_table(f, edges), n = 0, bad = 0;

    for (size_t i = 0; i < n_edges; i++) {
        for (size_t j = 0; j < n_edges; j++) {
            a[n] = edges[i];
            b[n] = edges[j];
            if (++n == CHUNK) {
                bad += compare_chunk(f->dtype, a, b, n);
                n = 0;
            }
        }
    }
    for (size_t i = 0; i < SELFCHECK_RANDOM; i++) {
        uint64_t r = oracle_prng_next(&state);
        /* Half uniform bits, half an operand from the edge table. */
        a[n] = r & mask;
        b[n] = oracle_prng_next(&state) & mask;
        if (i & 1) {
            if (r >> 63)
                a[n] = edges[(r >> 32) % n_edges];
            else
                b[n] = edges[(r >> 32) % n_edges];
        }
        if (++n == CHUNK) {
            bad += compare_chunk(f->dtype, a, b, n);
            n = 0;
        }
    }
    bad += compare_chunk(f->dtype, a, b, n);
    return bad == 0;
}

static void selfcheck_once(void)
{
    const char *off = getenv("DIVERGENCE_NO_FASTPATH");
    int count = 0;

    if (off && off[0] && strcmp(off, "0") != 0) {
        enabled_count_ = 0;
        return;
    }
    for (size_t i = 0; i < N_FORMATS; i++) {
        int ok = check_format(&FORMATS[i]);
        atomic_store(&enabled_[FORMATS[i].dtype], ok);
        count += ok;
    }
    enabled_count_ = count;
}

int oracle_fastpath_selfcheck(void)
{
    pthread_once(&once_, selfcheck_once);
    return enabled_count_;
}

int oracle_fastpath_enabled(uint32_t dtype)
{
    if (dtype >= DVG_DTYPE_COUNT)
        return 0;
    return atomic_load(&enabled_[dtype]);
}
