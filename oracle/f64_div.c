/* SPDX-License-Identifier: MIT */
/*
 * oracle/f64_div.c: IEEE 754-2019 binary64 division, roundTiesToEven, in
 * integer arithmetic only (no host floating point in this file).
 *
 * binary64: 1 sign bit, 11 exponent bits (bias 1023), 52 fraction bits,
 * precision 53.
 *
 * Shape (the same in f16_div.c, bf16_div.c, f32_div.c): unpack; special
 * cases, each ending in a labelled exit; normalise subnormal operands;
 * divide the significands with one integer division (128 by 64 bits here)
 * whose remainder gives the sticky bit; one round-and-pack (sf_round_pack).
 */
#include "oracle/exact.h"
#include "oracle/softfloat_internal.h"

#define F64_EXP_BITS  11
#define F64_FRAC_BITS 52
#define F64_EXP_MAX   0x7FF                    /* inf / NaN exponent field */
#define F64_BIAS      0x3FF
#define F64_HIDDEN    ((uint64_t)1 << F64_FRAC_BITS)
#define F64_FRAC_MASK (F64_HIDDEN - 1)

/*
 * The default NaN the oracle returns: the positive canonical quiet NaN
 * 0x7FF8000000000000 (ARM's default NaN, RISC-V's canonical NaN). x86 SSE
 * gives the negative 0xFFF8000000000000 for invalid operations and
 * propagates operand payloads; callers treat every NaN alike, so the
 * choice does not matter beyond being fixed.
 */
#define F64_DEFAULT_NAN 0x7FF8000000000000u

int f64_is_nan(uint64_t v)
{
    return (v & 0x7FFFFFFFFFFFFFFFu) > 0x7FF0000000000000u;
}

/* Packs sign, biased exponent and fraction fields. */
static uint64_t pack_f64(uint64_t sign, uint64_t exp, uint64_t frac)
{
    return (sign << 63) | (exp << F64_FRAC_BITS) | frac;
}

/* The one round-and-pack of this format (see softfloat_internal.h for the
 * (sign, exp, sig) convention: sig's leading 1 at bit 62, exp = biased
 * exponent - 1). */
static uint64_t round_pack_f64(uint64_t sign, int32_t exp, uint64_t sig)
{
    return sf_round_pack(sign, exp, sig, F64_EXP_BITS, F64_FRAC_BITS);
}

dvg_f64 f64_div(dvg_f64 a, dvg_f64 b)
{
    uint64_t sign_z = (a.v ^ b.v) >> 63;
    int32_t exp_a = (int32_t)((a.v >> F64_FRAC_BITS) & F64_EXP_MAX);
    int32_t exp_b = (int32_t)((b.v >> F64_FRAC_BITS) & F64_EXP_MAX);
    uint64_t sig_a = a.v & F64_FRAC_MASK;
    uint64_t sig_b = b.v & F64_FRAC_MASK;
    int32_t exp_z, shift, lt;
    unsigned __int128 num;
    uint64_t q, sig_z;
    uint64_t z;

    /* Special cases. */
    if (exp_a == F64_EXP_MAX) {
        if (sig_a)
            goto nan;      /* NaN / anything */
        if (exp_b == F64_EXP_MAX)
            goto nan;      /* inf / inf, inf / NaN */
        goto infinity;     /* inf / finite (zero included) */
    }
    if (exp_b == F64_EXP_MAX) {
        if (sig_b)
            goto nan;      /* finite / NaN */
        goto zero;         /* finite / inf */
    }
    if (!exp_b) {
        if (!sig_b) {
            if (!(exp_a | (int32_t)(sig_a != 0)))
                goto nan;  /* 0 / 0 */
            goto infinity; /* x / 0, x finite non-zero */
        }
        shift = sf_clz64(sig_b) - (63 - F64_FRAC_BITS);
        sig_b <<= shift;
        exp_b = 1 - shift;
    }
    if (!exp_a) {
        if (!sig_a)
            goto zero;     /* 0 / finite non-zero */
        shift = sf_clz64(sig_a) - (63 - F64_FRAC_BITS);
        sig_a <<= shift;
        exp_a = 1 - shift;
    }

    /* Divide. Both significands keep their leading 1 at bit 52; the
     * 128-bit dividend is sig_a shifted left by 62, or by 63 when
     * sig_a < sig_b, so the quotient q lies in [2^62, 2^63): 63 bits for a
     * precision of 53, its leading 1 already at bit 62, and a non-zero
     * remainder sets the sticky bit. The quotient fits in 64 bits, so the
     * division is one 128-by-64 step. */
    exp_z = exp_a - exp_b + F64_BIAS - 1;
    sig_a |= F64_HIDDEN;
    sig_b |= F64_HIDDEN;
    lt = sig_a < sig_b;
    exp_z -= lt;
    num = (unsigned __int128)sig_a << (62 + lt);
    q = (uint64_t)(num / sig_b);
    sig_z = q | (uint64_t)(num - (unsigned __int128)q * sig_b != 0);
    z = round_pack_f64(sign_z, exp_z, sig_z);
    goto out;

nan:
    z = F64_DEFAULT_NAN;
    goto out;
infinity:
    z = pack_f64(sign_z, F64_EXP_MAX, 0);
    goto out;
zero:
    z = pack_f64(sign_z, 0, 0);
out:
    return (dvg_f64){ z };
}
