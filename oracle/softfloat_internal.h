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
 * a >> dist, with every 1 bit shifted out ORed into bit 0 of the result
 * (SoftFloat's shiftRightJam64). Any dist >= 0 is allowed.
 */
static inline uint64_t sf_shift_right_jam64(uint64_t a, uint32_t dist)
{
    if (dist < 63)
        return (a >> dist) | (uint64_t)((a << (-dist & 63)) != 0);
    return a != 0;
}

/*
 * Rounds (sign, exp, sig) to nearest, ties to even, and packs it into a
 * format of `ebits` exponent and `fbits` fraction bits (1 <= fbits <= 60,
 * 2 <= ebits <= 15); returns the raw bits. sig must be non-zero with its
 * leading 1 at bit 62 (see the conventions above). Handles, in this order:
 *  - results below the normal range: the significand is shifted right
 *    (jamming) to the subnormal position, exponent field 0; rounding may
 *    carry it into the smallest normal, which the packing addition gives;
 *  - results that overflow, before or after rounding: infinity;
 *  - ties to even: the sticky bit in bit 0 tells an exact tie from a
 *    quotient just above it.
 */
static inline uint64_t sf_round_pack(uint64_t sign, int32_t exp, uint64_t sig,
                                     int ebits, int fbits)
{
    const int round_bits_n = 62 - fbits;
    const uint64_t half = (uint64_t)1 << (round_bits_n - 1);
    const uint64_t round_mask = ((uint64_t)1 << round_bits_n) - 1;
    const int32_t exp_all_ones = (1 << ebits) - 1;
    uint64_t round_bits;

    if ((uint32_t)exp >= (uint32_t)(exp_all_ones - 2)) {
        if (exp < 0) {
            /* Below the smallest normal: denormalise. */
            sig = sf_shift_right_jam64(sig, (uint32_t)(-(int64_t)exp));
            exp = 0;
        } else if (exp > exp_all_ones - 2 || sig + half >= ((uint64_t)1 << 63)) {
            /* Beyond the largest finite, or rounds up past it. */
            return (sign << (ebits + fbits)) | ((uint64_t)exp_all_ones << fbits);
        }
    }
    round_bits = sig & round_mask;
    sig = (sig + half) >> round_bits_n;
    if (round_bits == half)
        sig &= ~(uint64_t)1; /* exact tie: to even */
    if (!sig)
        exp = 0;
    return (sign << (ebits + fbits)) + ((uint64_t)exp << fbits) + sig;
}

#endif /* ORACLE_SOFTFLOAT_INTERNAL_H */
