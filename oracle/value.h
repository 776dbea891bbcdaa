/* SPDX-License-Identifier: MIT */
/*
 * oracle/value.h: element values as people write them, and back.
 *
 * Parsing accepts, for every dtype: raw bits in hex ("0x3c00"); for
 * integers a decimal in the type's range ("-8" for i4); for floats a
 * decimal or C99 hex-float literal ("1.5", "-0", "0x1p-24", "1e-8"),
 * "inf", "-inf", "nan", "-nan". Decimal to binary64 is glibc's correctly
 * rounded strtod; narrower float types are rounded from the exact
 * long-double (64-bit significand) value with round-to-nearest-even in
 * integer arithmetic, which is exact for every literal of up to 19
 * significant digits.
 */
#ifndef ORACLE_VALUE_H
#define ORACLE_VALUE_H

#include <stddef.h>
#include <stdint.h>
#include "oracle/error.h"

/* Parses `text` as a value of `dtype` into zero-extended bits. ORACLE_OK,
 * or ORACLE_EUSAGE with the reason (out of range, malformed) in *err. */
int oracle_value_parse(uint32_t dtype, const char *text, uint64_t *bits, oracle_error *err);

/* Writes the value of `bits` as a decimal people read ("-2", "0.333333343",
 * "inf", "nan", "-0") with enough digits to round-trip. Returns buf. */
char *oracle_value_format(uint32_t dtype, uint64_t bits, char *buf, size_t len);

/* Writes bits as fixed-width hex with 0x ("0x3c00"; i4: "0x7"). */
char *oracle_bits_format(uint32_t dtype, uint64_t bits, char *buf, size_t len);

/* The binary64 value of float bits of a float dtype (exact widening). */
double oracle_value_to_double(uint32_t dtype, uint64_t bits);

#endif /* ORACLE_VALUE_H */
