/* SPDX-License-Identifier: MIT */
/*
 * oracle/bf16_div.c: bfloat16 division with IEEE 754-2019 semantics
 * (roundTiesToEven, subnormals kept), in integer arithmetic only (no host
 * floating point in this file).
 *
 * bfloat16 (bf16): 1 sign bit, 8 exponent bits (bias 127), 7 fraction bits,
 * precision 8; the upper half of a binary32. Subnormals are kept.
 *
 * The division is narrow_div.c's, with this format's fields.
 */
#include "oracle/exact.h"
#include "oracle/softfloat_internal.h"

#define BF16_EXP_BITS  8
#define BF16_FRAC_BITS 7

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

dvg_bf16 bf16_div(dvg_bf16 a, dvg_bf16 b)
{
    static const sf_narrow format = {BF16_EXP_BITS, BF16_FRAC_BITS, BF16_DEFAULT_NAN};
    return (dvg_bf16){(uint16_t)sf_div_narrow(a.v, b.v, &format)};
}
