/* SPDX-License-Identifier: MIT */
/*
 * Integer division, the exact path for every integer dtype. Values arrive
 * extended to 64 bits; the caller has excluded b == 0 and INT_MIN / -1, so
 * the C quotient below never overflows.
 */
#include "oracle/exact.h"

static uint64_t width_mask(uint32_t bits)
{
    return bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
}

uint64_t int_div_signed(int64_t a, int64_t b, uint32_t bits, int floor)
{
    int64_t q = a / b; /* C99: truncates toward zero */
    if (floor && a % b != 0 && ((a < 0) != (b < 0)))
        q -= 1;
    return (uint64_t)q & width_mask(bits);
}

uint64_t int_div_unsigned(uint64_t a, uint64_t b, uint32_t bits)
{
    return (a / b) & width_mask(bits);
}
