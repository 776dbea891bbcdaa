/* SPDX-License-Identifier: MIT */
/*
 * tests/oracle/slow_div.h: a deliberately slow second implementation of
 * IEEE 754 division (roundTiesToEven, subnormals kept), written apart from
 * the oracle's f*_div files so a shared mistake is unlikely: generic over
 * the format, bit-by-bit restoring long division, an unbounded exponent
 * until the very end. For tests only.
 */
#ifndef TESTS_ORACLE_SLOW_DIV_H
#define TESTS_ORACLE_SLOW_DIV_H

#include <stdint.h>

/*
 * a / b for a binary format of `ebits` exponent bits (2..11) and `fbits`
 * fraction bits (1..52), operands and result as zero-extended raw bits.
 * Every NaN result is the positive quiet NaN with a zero payload.
 */
uint64_t slow_div(int ebits, int fbits, uint64_t a, uint64_t b);

#endif /* TESTS_ORACLE_SLOW_DIV_H */
