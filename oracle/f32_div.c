/* SPDX-License-Identifier: MIT */
/*
 * oracle/f32_div.c: IEEE 754-2019 binary32 division, roundTiesToEven, in
 * integer arithmetic only (no host floating point in this file).
 *
 * binary32: 1 sign bit, 8 exponent bits (bias 127), 23 fraction bits,
 * precision 24.
 *
 * Shape (the same in f16_div.c, bf16_div.c, f64_div.c): unpack; special
 * cases, each ending in a labelled exit; normalise subnormal operands;
 * divide the significands with one integer division whose remainder gives
 * the sticky bit; one round-and-pack (sf_round_pack).
 */
#include "oracle/exact.h"
#include "oracle/softfloat_internal.h"

#define F32_EXP_BITS  8
#define F32_FRAC_BITS 23
#define F32_EXP_MAX   0xFF                     /* inf / NaN exponent field */
#define F32_BIAS      0x7F
#define F32_HIDDEN    ((uint32_t)1 << F32_FRAC_BITS)
#define F32_FRAC_MASK (F32_HIDDEN - 1)

/*
 * The default NaN the oracle returns: the positive canonical quiet NaN
 * 0x7FC00000 (ARM's default NaN, RISC-V's canonical NaN). x86 SSE gives
 * the negative 0xFFC00000 for invalid operations and propagates operand
 * payloads; callers treat every NaN alike, so the choice does not matter
 * beyond being fixed.
 */
#define F32_DEFAULT_NAN 0x7FC00000u

int f32_is_nan(uint32_t v)
{
    return (v & 0x7FFFFFFFu) > 0x7F800000u;
}

/* Packs sign, biased exponent and fraction fields. */
static uint32_t pack_f32(uint32_t sign, uint32_t exp, uint32_t frac)
{
    return (sign << 31) | (exp << F32_FRAC_BITS) | frac;
}

/* The one round-and-pack of this format (see softfloat_internal.h for the
 * (sign, exp, sig) convention: sig's leading 1 at bit 62, exp = biased
 * exponent - 1). */
static uint32_t round_pack_f32(uint32_t sign, int32_t exp, uint64_t sig)
{
    return (uint32_t)sf_round_pack(sign, exp, sig, F32_EXP_BITS, F32_FRAC_BITS);
}

dvg_f32 f32_div(dvg_f32 a, dvg_f32 b)
{
    uint32_t sign_z = (a.v ^ b.v) >> 31;
    int32_t exp_a = (int32_t)((a.v >> F32_FRAC_BITS) & F32_EXP_MAX);
    int32_t exp_b = (int32_t)((b.v >> F32_FRAC_BITS) & F32_EXP_MAX);
    uint32_t sig_a = a.v & F32_FRAC_MASK;
    uint32_t sig_b = b.v & F32_FRAC_MASK;
    int32_t exp_z, shift, lt;
    uint64_t num, q, sig_z;
    uint32_t z;

    /* Special cases. */
    if (exp_a == F32_EXP_MAX) {
        if (sig_a)
            goto nan;      /* NaN / anything */
        if (exp_b == F32_EXP_MAX)
            goto nan;      /* inf / inf, inf / NaN */
        goto infinity;     /* inf / finite (zero included) */
    }
    if (exp_b == F32_EXP_MAX) {
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
        shift = sf_clz32(sig_b) - (31 - F32_FRAC_BITS);
        sig_b <<= shift;
        exp_b = 1 - shift;
    }
    if (!exp_a) {
        if (!sig_a)
            goto zero;     /* 0 / finite non-zero */
        shift = sf_clz32(sig_a) - (31 - F32_FRAC_BITS);
        sig_a <<= shift;
        exp_a = 1 - shift;
    }

    /* Divide. Both significands get their leading 1 at bit 31; the
     * dividend is sig_a shifted left by 31, or by 32 when sig_a < sig_b,
     * so the quotient q lies in [2^31, 2^32): 32 bits for a precision of
     * 24, and a non-zero remainder sets the sticky bit. */
    exp_z = exp_a - exp_b + F32_BIAS - 1;
    sig_a = (sig_a | F32_HIDDEN) << (31 - F32_FRAC_BITS);
    sig_b = (sig_b | F32_HIDDEN) << (31 - F32_FRAC_BITS);
    lt = sig_a < sig_b;
    exp_z -= lt;
    num = (uint64_t)sig_a << (31 + lt);
    q = num / sig_b;
    sig_z = (q << 31) | (uint64_t)(num - q * sig_b != 0);
    z = round_pack_f32(sign_z, exp_z, sig_z);
    goto out;

nan:
    z = F32_DEFAULT_NAN;
    goto out;
infinity:
    z = pack_f32(sign_z, F32_EXP_MAX, 0);
    goto out;
zero:
    z = pack_f32(sign_z, 0, 0);
out:
    return (dvg_f32){ z };
}
