/* SPDX-License-Identifier: MIT */
/*
 * oracle/narrow_div.c: IEEE 754-2019 division, roundTiesToEven, of the
 * binary formats whose significand fits 24 bits - binary16, bfloat16,
 * binary32 - in integer arithmetic only (no host floating point in this
 * file): f16_div.c, bf16_div.c and f32_div.c give their format's fields.
 *
 * Shape (the same as f64_div.c's): unpack; special cases, each ending in a
 * labelled exit; normalise subnormal operands; divide the significands
 * with one integer division whose remainder gives the sticky bit; one
 * round-and-pack (sf_round_pack).
 */
#include "oracle/softfloat_internal.h"

uint32_t sf_div_narrow(uint32_t a, uint32_t b, const sf_narrow *f)
{
    const uint32_t exp_max = (1u << f->exp_bits) - 1, bias = exp_max >> 1;
    const uint32_t hidden = (uint32_t)1 << f->frac_bits, frac_mask = hidden - 1;
    const int32_t up = 31 - (int32_t)f->frac_bits; /* leading 1 to bit 31 */
    uint32_t sign_z = (a ^ b) >> (f->exp_bits + f->frac_bits);
    int32_t exp_a = (int32_t)((a >> f->frac_bits) & exp_max);
    int32_t exp_b = (int32_t)((b >> f->frac_bits) & exp_max);
    uint32_t sig_a = a & frac_mask;
    uint32_t sig_b = b & frac_mask;
    int32_t exp_z, shift, lt;
    uint64_t num, q, sig_z;
    uint32_t z;

    /* Special cases. */
    if (exp_a == (int32_t)exp_max) {
        if (sig_a)
            goto nan;      /* NaN / anything */
        if (exp_b == (int32_t)exp_max)
            goto nan;      /* inf / inf, inf / NaN */
        goto infinity;     /* inf / finite (zero included) */
    }
    if (exp_b == (int32_t)exp_max) {
        if (sig_b)
            goto nan;      /* finite / NaN */
        goto zero;         /* finite / inf */
    }
    if (!exp_b) {
        if (!sig_b) {
            if (!(exp_a | (int32_t)sig_a))
                goto nan;  /* 0 / 0 */
            goto infinity; /* x / 0, x finite non-zero */
        }
        shift = sf_clz32(sig_b) - up;
        sig_b <<= shift;
        exp_b = 1 - shift;
    }
    if (!exp_a) {
        if (!sig_a)
            goto zero;     /* 0 / finite non-zero */
        shift = sf_clz32(sig_a) - up;
        sig_a <<= shift;
        exp_a = 1 - shift;
    }

    /* Divide. Both significands get their leading 1 at bit 31; the
     * dividend is sig_a shifted left by 31, or by 32 when sig_a < sig_b,
     * so the quotient q lies in [2^31, 2^32): 32 bits for a precision of
     * at most 24, and a non-zero remainder sets the sticky bit. */
    exp_z = exp_a - exp_b + (int32_t)bias - 1;
    sig_a = (sig_a | hidden) << up;
    sig_b = (sig_b | hidden) << up;
    lt = sig_a < sig_b;
    exp_z -= lt;
    num = (uint64_t)sig_a << (31 + lt);
    q = num / sig_b;
    sig_z = (q << 31) | (uint64_t)(num - q * sig_b != 0);
    z = (uint32_t)sf_round_pack(sign_z, exp_z, sig_z, f->exp_bits, f->frac_bits);
    goto out;

nan:
    z = f->default_nan;
    goto out;
infinity:
    z = (sign_z << (f->exp_bits + f->frac_bits)) | (exp_max << f->frac_bits);
    goto out;
zero:
    z = sign_z << (f->exp_bits + f->frac_bits);
out:
    return z;
}
