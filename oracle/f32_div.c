/* SPDX-License-Identifier: MIT */
/*
 * oracle/f32_div.c: IEEE 754-2019 binary32 division, roundTiesToEven, in
 * integer arithmetic only (no host floating point in this file).
 *
 * binary32: 1 sign bit, 8 exponent bits (bias 127), 23 fraction bits,
 * precision 24.
 *
 * The division is narrow_div.c's, with this format's fields.
 */
#include "oracle/exact.h"
#include "oracle/softfloat_internal.h"

#define F32_EXP_BITS  8
#define F32_FRAC_BITS 23

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

dvg_f32 f32_div(dvg_f32 a, dvg_f32 b)
{
    static const sf_narrow format = {F32_EXP_BITS, F32_FRAC_BITS, F32_DEFAULT_NAN};
    return (dvg_f32){(uint32_t)sf_div_narrow(a.v, b.v, &format)};
}
