/* SPDX-License-Identifier: MIT */
/*
 * oracle/bf16_div.c: bfloat16 division with IEEE 754-2019 semantics
 * (roundTiesToEven, subnormals kept), in integer arithmetic only (no host
 * floating point in this file).
 *
 * bfloat16 (bf16): 1 sign bit, 8 exponent bits (bias 127), 7 fraction bits,
 * precision 8; the upper half of a binary32. Subnormals are kept.
 *
 * Shape (the same in f16_div.c, f32_div.c, f64_div.c): unpack; special
 * cases, each ending in a labelled exit; normalise subnormal operands;
 * divide the significands with one integer division whose remainder gives
 * the sticky bit; one round-and-pack (sf_round_pack).
 */
#include "oracle/exact.h"
#include "oracle/softfloat_internal.h"

#define BF16_EXP_BITS  8
#define BF16_FRAC_BITS 7
#define BF16_EXP_MAX   0xFF                     /* inf / NaN exponent field */
#define BF16_BIAS      0x7F
#define BF16_HIDDEN    ((uint32_t)1 << BF16_FRAC_BITS)
#define BF16_FRAC_MASK (BF16_HIDDEN - 1)

/*
 * The default NaN the oracle returns: the positive canonical quiet NaN
 * 0x7FC0 (the upper half of binary32's 0x7FC00000). Callers treat every
 * NaN alike, so the choice does not matter beyond being fixed.
 */
#define BF16_DEFAULT_NAN 0x7FC0u

int bf16_is_nan(uint16_t v)
{
    return (v & 0x7FFFu) > 0x7F80u;
}

/* Packs sign, biased exponent and fraction fields. */
static uint16_t pack_bf16(uint32_t sign, uint32_t exp, uint32_t frac)
{
    return (uint16_t)((sign << 15) | (exp << BF16_FRAC_BITS) | frac);
}

/* The one round-and-pack of this format (see softfloat_internal.h for the
 * (sign, exp, sig) convention: sig's leading 1 at bit 62, exp = biased
 * exponent - 1). */
static uint16_t round_pack_bf16(uint32_t sign, int32_t exp, uint64_t sig)
{
    return (uint16_t)sf_round_pack(sign, exp, sig, BF16_EXP_BITS, BF16_FRAC_BITS);
}

dvg_bf16 bf16_div(dvg_bf16 a, dvg_bf16 b)
{
    uint32_t sign_z = (uint32_t)(a.v ^ b.v) >> 15;
    int32_t exp_a = (int32_t)((a.v >> BF16_FRAC_BITS) & BF16_EXP_MAX);
    int32_t exp_b = (int32_t)((b.v >> BF16_FRAC_BITS) & BF16_EXP_MAX);
    uint32_t sig_a = a.v & BF16_FRAC_MASK;
    uint32_t sig_b = b.v & BF16_FRAC_MASK;
    int32_t exp_z, shift, lt;
    uint64_t num, q, sig_z;
    uint16_t z;

    /* Special cases. */
    if (exp_a == BF16_EXP_MAX) {
        if (sig_a)
            goto nan;      /* NaN / anything */
        if (exp_b == BF16_EXP_MAX)
            goto nan;      /* inf / inf, inf / NaN */
        goto infinity;     /* inf / finite (zero included) */
    }
    if (exp_b == BF16_EXP_MAX) {
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
        shift = sf_clz32(sig_b) - (31 - BF16_FRAC_BITS);
        sig_b <<= shift;
        exp_b = 1 - shift;
    }
    if (!exp_a) {
        if (!sig_a)
            goto zero;     /* 0 / finite non-zero */
        shift = sf_clz32(sig_a) - (31 - BF16_FRAC_BITS);
        sig_a <<= shift;
        exp_a = 1 - shift;
    }

    /* Divide. Both significands get their leading 1 at bit 31; the
     * dividend is sig_a shifted left by 31, or by 32 when sig_a < sig_b,
     * so the quotient q lies in [2^31, 2^32): 32 bits for a precision of
     * 8, and a non-zero remainder sets the sticky bit. */
    exp_z = exp_a - exp_b + BF16_BIAS - 1;
    sig_a = (sig_a | BF16_HIDDEN) << (31 - BF16_FRAC_BITS);
    sig_b = (sig_b | BF16_HIDDEN) << (31 - BF16_FRAC_BITS);
    lt = sig_a < sig_b;
    exp_z -= lt;
    num = (uint64_t)sig_a << (31 + lt);
    q = num / sig_b;
    sig_z = (q << 31) | (uint64_t)(num - q * sig_b != 0);
    z = round_pack_bf16(sign_z, exp_z, sig_z);
    goto out;

nan:
    z = BF16_DEFAULT_NAN;
    goto out;
infinity:
    z = pack_bf16(sign_z, BF16_EXP_MAX, 0);
    goto out;
zero:
    z = pack_bf16(sign_z, 0, 0);
out:
    return (dvg_bf16){ z };
}
