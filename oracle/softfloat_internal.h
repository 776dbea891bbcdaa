/* SPDX-License-Identifier: MIT */
/*
 * oracle/softfloat_internal.h: private helpers of the exact float path
 * (f16_div.c, bf16_div.c, f32_div.c, f64_div.c). Integer arithmetic only.
 * Not part of any API: included by those four files alone.
 *
 * Conventions, after Berkeley SoftFloat:
 *  - A format has `ebits` exponent bits and `fbits` fraction bits
 *    (precision p = fbits + 1). Its biased exponent field is all ones for
 *    inf/NaN and zero for zeros and subnormals.
 *  - An unrounded result travels as (sign, exp, sig): `sig` is a 64-bit
 *    significand with its leading 1 at bit 62, so the value is
 *    sig / 2^62 * 2^(exp + 1 - bias); every bit below the format's
 *    precision is a round bit and bit 0 is "jammed" with the sticky bit.
 *    `exp` is the biased exponent MINUS ONE: packing adds the hidden bit
 *    into the exponent field, so a rounding carry (or a subnormal rounding
 *    up into the smallest normal) bumps the exponent by itself.
 */
#ifndef ORACLE_SOFTFLOAT_INTERNAL_H
#define ORACLE_SOFTFLOAT_INTERNAL_H

#include <stdint.h>

/* Count of leading zero bits; x == 0 gives the width. */
static inline int sf_clz32(uint32_t x)
{
    return x ? __builtin_clz(x) : 32;
}

static inline int sf_clz64(uint64_t x)
{
    return x ? __builtin_clzll(x) : 64;
}

/*
 * Rounds (sign, exp, sig) to nearest, ties to even, and packs it into a
 * format of `ebits` exponent and `fbits` fraction bits (1 <= fbits <= 60,
 * 2 <= ebits <= 15); returns the raw bits. sig must be non-zero, below
 * 2^63, with its leading 1 at bit 62 (see the conventions above).
 *
 *  - Below the normal range (exp < 0) the significand is shifted right by
 *    -exp, jamming, to the subnormal position, and the exponent field is
 *    0; rounding may carry it into the smallest normal, which the packing
 *    addition gives (exponent field 1, fraction 0).
 *  - Beyond the largest finite, before or after rounding: infinity.
 *  - Ties to even: the sticky bit in bit 0 tells an exact tie from a
 *    quotient just above it.
 *
 * Written with selects rather than branches: random test data underflows
 * and overflows about half the time, which no branch predictor guesses.
 */
static inline uint64_t sf_round_pack(uint64_t sign, int32_t exp, uint64_t sig,
                                     int ebits, int fbits)
{
    const int round_bits_n = 62 - fbits;
    const uint64_t half = (uint64_t)1 << (round_bits_n - 1);
    const uint64_t round_mask = ((uint64_t)1 << round_bits_n) - 1;
    const int32_t exp_all_ones = (1 << ebits) - 1;
    const uint64_t inf = (sign << (ebits + fbits)) | ((uint64_t)exp_all_ones << fbits);
    uint32_t dist;
    uint64_t round_bits, tie;
    int overflow;

    /* Subnormal: shift right by -exp (63 is as good as more: sig < 2^63),
     * ORing the bits shifted out into bit 0. */
    dist = exp < 0 ? (uint32_t)(-(int64_t)exp) : 0;
    dist = dist > 63 ? 63 : dist;
    sig = (sig >> dist) | (uint64_t)((sig & (((uint64_t)1 << dist) - 1)) != 0);
    exp = exp < 0 ? 0 : exp;

    /* Overflow: the exponent is past the largest finite's (biased
     * exponent exp_all_ones - 1), or rounding carries into it. */
    overflow = exp > exp_all_ones - 2 ||
               (exp == exp_all_ones - 2 && sig + half >= ((uint64_t)1 << 63));

    round_bits = sig & round_mask;
    tie = round_bits == half;
    sig = (sig + half) >> round_bits_n;
    sig &= ~tie; /* exact tie: to even */
    return overflow ? inf : (sign << (ebits + fbits)) + ((uint64_t)exp << fbits) + sig;
}

/* A binary format whose significand fits 24 bits (binary16, bfloat16,
 * binary32): its field widths and the default NaN the oracle returns. */
typedef struct sf_narrow {
    uint32_t exp_bits, frac_bits;
    uint32_t default_nan;
} sf_narrow;

/* a / b of format f (bits in the low exp_bits + frac_bits + 1 of each),
 * IEEE 754-2019 roundTiesToEven, subnormals kept; NaNs give
 * f->default_nan (narrow_div.c). */
uint32_t sf_div_narrow(uint32_t a, uint32_t b, const sf_narrow *f);

#endif /* ORACLE_SOFTFLOAT_INTERNAL_H */
