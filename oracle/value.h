/* SPDX-License-Identifier: MIT */
/*
 * oracle/value.h: element values as people write them, and back.
 *
 * Two grammars share one conversion. The command line's
 * (oracle_value_parse) accepts, for every dtype: raw bits in hex
 * ("0x3c00"); for integers a decimal in the type's range ("-8" for i4),
 * min or max; for floats a decimal or C99 hex-float literal ("1.5", "-0",
 * "0x1p-24", "1e-8"), "inf", "-inf", "infinity", "nan", "-nan", a literal
 * beyond the format rounding to inf or zero. The case files'
 * (oracle_value_parse_literal, cases/README.md) adds named values and the
 * expected-value forms and refuses literals that overflow or vanish.
 * Decimal and hex-float text is rounded to nearest, ties to even, into the
 * dtype correctly whatever its number of digits (glibc's strtod under
 * directed rounding, then integer rounding).
 */
#ifndef ORACLE_VALUE_H
#define ORACLE_VALUE_H

#include <stddef.h>
#include <stdint.h>
#include "oracle/error.h"

/* Parses `text` as a value of `dtype` into zero-extended bits. ORACLE_OK,
 * or ORACLE_EUSAGE with the reason (out of range, malformed) in *err. */
int oracle_value_parse(uint32_t dtype, const char *text, uint64_t *bits, oracle_error *err);

/*
 * Parses `text` (NUL-terminated, one token) as a case-file value of
 * `dtype`. Operands (`expected` 0): raw bits "0x3c00" (no sign); for
 * floats a decimal or hex-float literal rounded to nearest even, or a name
 * with an optional sign: inf, nan, snan, max, min_normal, max_sub, min_sub;
 * for integers a decimal in range, min or max. A float literal that
 * overflows to inf or rounds a nonzero value to zero is refused. Expected
 * values (`expected` 1) take the same, except that "nan" means any NaN and
 * a signed nan or snan is refused, plus "any-inf" and "unspecified".
 * ORACLE_OK with *bits (zero-extended) and *kind (ORACLE_EXACT,
 * ORACLE_ANY_NAN, ORACLE_ANY_INF or ORACLE_UNSPECIFIED of oracle/expect.h),
 * or ORACLE_EUSAGE with the reason in err->text: the sentence a case file's
 * "FILE:LINE: FIELD: " precedes.
 */
int oracle_value_parse_literal(uint32_t dtype, const char *text, int expected, uint64_t *bits,
                               uint32_t *kind, oracle_error *err);

/* The integer x as an exact element of `dtype`: ORACLE_OK with *bits, or
 * ORACLE_EUSAGE when x is out of the dtype's range or (floats) not exactly
 * representable in it. */
int oracle_value_from_int(uint32_t dtype, int64_t x, uint64_t *bits);

/* Writes the value of `bits` as a decimal people read ("-2", "0.333333343",
 * "inf", "nan", "-0") with enough digits to round-trip. Returns buf. */
char *oracle_value_format(uint32_t dtype, uint64_t bits, char *buf, size_t len);

/* Writes bits as fixed-width hex with 0x ("0x3c00"; i4: "0x7"). */
char *oracle_bits_format(uint32_t dtype, uint64_t bits, char *buf, size_t len);

/* The binary64 value of float bits of a float dtype (exact widening). */
double oracle_value_to_double(uint32_t dtype, uint64_t bits);

#endif /* ORACLE_VALUE_H */
