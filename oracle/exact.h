/* SPDX-License-Identifier: MIT */
/*
 * oracle/exact.h: the exact path. Division of each format in integer
 * arithmetic only, SoftFloat-style: one file per format (f16_div.c,
 * bf16_div.c, f32_div.c, f64_div.c, int_div.c), special cases first, then
 * one round-and-pack. Correct rounding to nearest, ties to even, with
 * subnormal inputs and outputs. No host floating point anywhere: the
 * results do not depend on the rounding mode, FTZ/DAZ or the compiler's
 * floating-point flags.
 *
 * Bits are wrapped so a host float cannot slip in.
 */
#ifndef ORACLE_EXACT_H
#define ORACLE_EXACT_H

#include <stdint.h>

typedef struct { uint16_t v; } dvg_f16;
typedef struct { uint16_t v; } dvg_bf16;
typedef struct { uint32_t v; } dvg_f32;
typedef struct { uint64_t v; } dvg_f64;

/*
 * IEEE 754-2019 division, roundTiesToEven, default exception handling:
 * NaN operand -> the default quiet NaN of the format (sign and payload are
 * not specified by the oracle; callers treat every NaN alike);
 * 0/0 and inf/inf -> default NaN; x/0 (x finite non-zero) and inf/finite
 * -> inf with sign = sign(a) xor sign(b); finite/inf -> signed zero.
 */
dvg_f16  f16_div(dvg_f16 a, dvg_f16 b);
dvg_bf16 bf16_div(dvg_bf16 a, dvg_bf16 b);
dvg_f32  f32_div(dvg_f32 a, dvg_f32 b);
dvg_f64  f64_div(dvg_f64 a, dvg_f64 b);

/* Classification helpers, per format, on raw bits. */
int f16_is_nan(uint16_t v);
int bf16_is_nan(uint16_t v);
int f32_is_nan(uint32_t v);
int f64_is_nan(uint64_t v);

/*
 * Integer division of two values already sign-extended (signed types) or
 * zero-extended (unsigned types) to 64 bits, for a type of `bits` width.
 * `floor` selects floor (1) or truncation (0). The caller has excluded
 * b == 0 and (signed) INT_MIN / -1 of the type; for i64 the quotient is
 * computed without overflow. The result is returned as zero-extended bits
 * of the type's width.
 */
uint64_t int_div_signed(int64_t a, int64_t b, uint32_t bits, int floor);
uint64_t int_div_unsigned(uint64_t a, uint64_t b, uint32_t bits);

#endif /* ORACLE_EXACT_H */
