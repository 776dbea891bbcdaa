/* SPDX-License-Identifier: MIT */
/*
 * tests/oracle/slow_div.c: see slow_div.h. Clarity over speed: every loop
 * here moves one bit at a time.
 */
#include "slow_div.h"

enum { CLS_ZERO, CLS_FINITE, CLS_INF, CLS_NAN };

/* What a / b is, by operand class, before any arithmetic. */
enum { R_NAN, R_ZERO, R_INF, R_DIVIDE };
static const int OUTCOME[4][4] = {
    /*               b: zero    finite    inf     NaN   */
    /* a zero   */ { R_NAN, R_ZERO,   R_ZERO, R_NAN },
    /* a finite */ { R_INF, R_DIVIDE, R_ZERO, R_NAN },
    /* a inf    */ { R_INF, R_INF,    R_NAN,  R_NAN },
    /* a NaN    */ { R_NAN, R_NAN,    R_NAN,  R_NAN },
};

/* A value as (-1)^sign * sig * 2^exp with an exponent of any size; for
 * finite non-zero values sig has its leading 1 at bit `fbits`. */
typedef struct unbounded {
    int cls;
    int sign;
    uint64_t sig;
    int64_t exp;
} unbounded;

static unbounded unpack(int ebits, int fbits, uint64_t v)
{
    const uint64_t all_ones = ((uint64_t)1 << ebits) - 1;
    const int64_t bias = (int64_t)(all_ones >> 1);
    uint64_t field = (v >> fbits) & all_ones;
    uint64_t frac = v & (((uint64_t)1 << fbits) - 1);
    unbounded u;

    u.sign = (int)((v >> (ebits + fbits)) & 1);
    u.sig = 0;
    u.exp = 0;
    if (field == all_ones) {
        u.cls = frac ? CLS_NAN : CLS_INF;
    } else if (field == 0 && frac == 0) {
        u.cls = CLS_ZERO;
    } else {
        u.cls = CLS_FINITE;
        if (field == 0) {
            u.sig = frac; /* subnormal: no hidden bit, exponent of field 1 */
            u.exp = 1 - bias - fbits;
        } else {
            u.sig = frac + ((uint64_t)1 << fbits);
            u.exp = (int64_t)field - bias - fbits;
        }
        while (!((u.sig >> fbits) & 1)) { /* normalise one bit at a time */
            u.sig <<= 1;
            u.exp -= 1;
        }
    }
    return u;
}

uint64_t slow_div(int ebits, int fbits, uint64_t a, uint64_t b)
{
    const int p = fbits + 1;
    const uint64_t all_ones = ((uint64_t)1 << ebits) - 1;
    const int64_t bias = (int64_t)(all_ones >> 1);
    const int64_t unit_min = 1 - bias - fbits; /* exponent of the smallest subnormal */
    const uint64_t nan = (all_ones << fbits) | ((uint64_t)1 << (fbits - 1));
    unbounded x = unpack(ebits, fbits, a), y = unpack(ebits, fbits, b);
    uint64_t sign = (uint64_t)(x.sign ^ y.sign) << (ebits + fbits);
    uint64_t num, q, n;
    int64_t qexp, unit;
    int sticky, guard, below;

    switch (OUTCOME[x.cls][y.cls]) {
    case R_NAN:
        return nan;
    case R_ZERO:
        return sign;
    case R_INF:
        return sign | (all_ones << fbits);
    default:
        break;
    }

    /* Long division: p + 2 quotient bits, the first of them a 1. */
    num = x.sig;
    qexp = x.exp - y.exp;
    if (num < y.sig) {
        num <<= 1;
        qexp -= 1;
    }
    q = 0;
    for (int i = 0; i < p + 2; i++) {
        q <<= 1;
        if (num >= y.sig) {
            num -= y.sig;
            q |= 1;
        }
        num <<= 1;
    }
    sticky = num != 0;
    qexp -= p + 1; /* the quotient is (q + sticky fraction) * 2^qexp */

    /* The unit of the last kept bit: p bits kept when the result is
     * normal, but never below the smallest subnormal. */
    unit = qexp + 2;
    if (unit < unit_min)
        unit = unit_min;
    /* Denormalise: shift until two bits (guard, round) lie below unit. */
    for (int64_t e = qexp; e < unit - 2 && q != 0; e++) {
        sticky |= (int)(q & 1);
        q >>= 1;
    }
    guard = (int)((q >> 1) & 1);
    below = (int)(q & 1) | sticky;
    n = q >> 2;
    if (guard && (below || (n & 1)))
        n += 1;
    if (n == ((uint64_t)1 << p)) { /* the rounding carried into a new bit */
        n >>= 1;
        unit += 1;
    }

    /* Encode n * 2^unit. */
    if (n == 0)
        return sign;
    if (n < ((uint64_t)1 << fbits))
        return sign | n; /* subnormal (unit == unit_min) */
    if (unit + fbits + bias >= (int64_t)all_ones)
        return sign | (all_ones << fbits); /* overflow */
    return sign | ((uint64_t)(unit + fbits + bias) << fbits) | (n - ((uint64_t)1 << fbits));
}
