/* SPDX-License-Identifier: MIT */
/*
 * oracle/f16_div.c: IEEE 754-2019 binary16 division, roundTiesToEven, in
 * integer arithmetic only (no host floating point in this file).
 *
 * binary16 (f16): 1 sign bit, 5 exponent bits (bias 15), 10 fraction bits,
 * precision 11.
 *
 * The division is narrow_div.c's, with this format's fields.
 */
#include "oracle/exact.h"
#include "oracle/softfloat_internal.h"

#define F16_EXP_BITS  5
#define F16_FRAC_BITS 10

/*
 * The default NaN the oracle returns: the positive canonical quiet NaN
 * 0x7E00 (the binary16 counterpart of 0x7FC00000: sign clear, quiet bit
 * set, payload zero). Callers treat every NaN alike, so the choice does
 * not matter beyond being fixed.
 */
#define F16_DEFAULT_NAN 0x7E00u

int f16_is_nan(uint16_t v)
{
    return (v & 0x7FFFu) > 0x7C00u;
}

dvg_f16 f16_div(dvg_f16 a, dvg_f16 b)
{
    static const sf_narrow format = {F16_EXP_BITS, F16_FRAC_BITS, F16_DEFAULT_NAN};
    return (dvg_f16){(uint16_t)sf_div_narrow(a.v, b.v, &format)};
}
