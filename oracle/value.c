/* SPDX-License-Identifier: MIT */
/*
 * This file contains element values as people write them (see value.h):
 * the case files' literal grammar (raw bits, decimals and hex floats,
 * named values, the expected-value forms), the command line's looser one,
 * the one round-to-nearest-even into every float format both share, exact
 * integers as elements, and values written back as text. Decimal text goes
 * through glibc's correctly rounded strtod under directed rounding modes
 * (round to odd), so every literal, however many digits, is correctly
 * rounded; the caller's rounding mode is restored.
 */
#include "oracle/value.h"

#include <ctype.h>
#include <errno.h>
#include <fenv.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/dtype.h"
#include "oracle/expect.h"


static uint64_t f_sign(oracle_float_format f) { return UINT64_C(1) << (f.exp_bits + f.frac_bits); }
static uint64_t f_inf(oracle_float_format f) { return ((UINT64_C(1) << f.exp_bits) - 1) << f.frac_bits; }
static uint64_t f_mant(oracle_float_format f) { return (UINT64_C(1) << f.frac_bits) - 1; }

/* ---------------------------------------------------------------------------
 * Rounding
 * ------------------------------------------------------------------------- */

/*
 * Rounds sign * (sig + sticky) * 2^exp to nearest, ties to even, in format f
 * (subnormals kept, overflow to inf): `sticky` says that nonzero bits lie
 * below sig's last bit. sig != 0. Integer arithmetic only.
 */
static uint64_t round_pack(int sign, uint64_t sig, int exp, int sticky, oracle_float_format f)
{
    const int bias = (1 << (f.exp_bits - 1)) - 1, emin = 1 - bias, emax = bias;
    const uint64_t s = sign ? f_sign(f) : 0;
    int lz = __builtin_clzll(sig);
    sig <<= lz;
    int e = exp - lz + 63; /* value = (sig / 2^63) * 2^e */
    if (e > emax)
        return s | f_inf(f);
    int shift = 63 - f.frac_bits + (e < emin ? emin - e : 0);
    uint64_t keep, rem, half;
    if (shift > 64)
        return s; /* below half the smallest subnormal */
    if (shift == 64) {
        keep = 0;
        rem = sig;
        half = UINT64_C(1) << 63;
    } else {
        keep = sig >> shift;
        rem = sig & ((UINT64_C(1) << shift) - 1);
        half = UINT64_C(1) << (shift - 1);
    }
    if (rem > half || (rem == half && (sticky || (keep & 1))))
        keep++;
    if (e < emin)
        return s | keep; /* keep == 2^mbits is the smallest normal */
    if (keep >> (f.frac_bits + 1)) {
        keep >>= 1;
        if (++e > emax)
            return s | f_inf(f);
    }
    return s | ((uint64_t)(e + bias) << f.frac_bits) | (keep & f_mant(f));
}

static uint64_t double_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/*
 * Correctly rounded (nearest, ties to even) conversion of the unsigned
 * decimal or hex-float text `s` (strtod's syntax) to format f. f64: glibc's
 * strtod, which is correctly rounded in the current rounding mode. Narrower
 * formats: strtod rounded toward zero and upward gives the truncation and
 * whether it was exact; the truncation with its last bit forced to 1 when
 * inexact (round to odd) rounds to the same narrow value as the decimal
 * itself, because binary64 carries at least two bits more than any
 * narrower format. The caller's rounding mode is restored.
 */
static uint64_t decimal_to_format(const char *s, oracle_float_format f)
{
    int saved = fegetround();
    uint64_t dz;
    int sticky = 0;
    if (f.frac_bits == 52) {
        fesetround(FE_TONEAREST);
        dz = double_bits(strtod(s, NULL));
    } else {
        fesetround(FE_TOWARDZERO);
        dz = double_bits(strtod(s, NULL));
        fesetround(FE_UPWARD);
        uint64_t du = double_bits(strtod(s, NULL));
        sticky = dz != du;
    }
    fesetround(saved);
    dz &= ~(UINT64_C(1) << 63);
    uint32_t e = (uint32_t)(dz >> 52) & 0x7ff;
    uint64_t frac = dz & ((UINT64_C(1) << 52) - 1);
    if (f.frac_bits == 52)
        return dz;
    if (e == 0x7ff)
        return f_inf(f);
    if (e == 0 && frac == 0)
        return sticky ? round_pack(0, 1, -1075, 1, f) : 0; /* below 2^-1074 */
    uint64_t sig = e ? frac | (UINT64_C(1) << 52) : frac;
    int exp = (e ? (int)e : 1) - 1075;
    /* Round to odd into binary64, then to nearest even into f. */
    if (sticky)
        sig |= 1;
    return round_pack(0, sig, exp, 0, f);
}

/* ---------------------------------------------------------------------------
 * Pieces of a literal
 * ------------------------------------------------------------------------- */

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_xdigit(char c) { return isxdigit((unsigned char)c) != 0; }

/* Float bits of a named value ("max", "min_sub", ...), sign applied; with
 * `expected`, nan and snan are not names (see parse_float_literal). */
static int float_named(oracle_float_format f, const char *name, int neg, int expected,
                       uint64_t *bits)
{
    uint64_t v;
    if (!strcmp(name, "inf"))
        v = f_inf(f);
    else if (!strcmp(name, "nan") && !expected)
        v = f_inf(f) | (UINT64_C(1) << (f.frac_bits - 1));
    else if (!strcmp(name, "snan") && !expected)
        v = f_inf(f) | (UINT64_C(1) << (f.frac_bits - 2));
    else if (!strcmp(name, "max"))
        v = f_inf(f) - 1;
    else if (!strcmp(name, "min_normal"))
        v = UINT64_C(1) << f.frac_bits;
    else if (!strcmp(name, "max_sub"))
        v = f_mant(f);
    else if (!strcmp(name, "min_sub"))
        v = 1;
    else
        return 0;
    *bits = v | (neg ? f_sign(f) : 0);
    return 1;
}

/* Decimal ([0-9]+(.[0-9]*)?|.[0-9]+)([eE][+-]?[0-9]+)? or C99 hex float
 * 0x[h]*(.[h]*)?(p[+-]?[0-9]+)? (at least one digit). `s` has no sign.
 * Sets *nonzero when a significand digit is not 0. */
static int number_syntax(const char *s, int *nonzero)
{
    int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const char *q = hex ? s + 2 : s;
    int digits = 0;
    *nonzero = 0;
    for (; hex ? is_xdigit(*q) : is_digit(*q); q++, digits++)
        *nonzero |= *q != '0';
    if (*q == '.')
        for (q++; hex ? is_xdigit(*q) : is_digit(*q); q++, digits++)
            *nonzero |= *q != '0';
    if (!digits)
        return 0;
    if (*q == (hex ? 'p' : 'e') || *q == (hex ? 'P' : 'E')) {
        q++;
        if (*q == '+' || *q == '-')
            q++;
        if (!is_digit(*q))
            return 0;
        while (is_digit(*q))
            q++;
    }
    return *q == '\0';
}

/* Raw bits "0x..." (t starts with 0x): any number of hex digits whose value
 * fits the dtype's width. */
static int parse_hex_bits(uint32_t dtype, const char *t, uint64_t *bits, oracle_error *err)
{
    const oracle_dtype_info *d = oracle_dtype(dtype);
    const char *q = t + 2;
    uint64_t v = 0;
    if (!*q)
        return oracle_fail(err, ORACLE_EUSAGE, NULL, "'%s' has no hex digits", t);
    for (; *q; q++) {
        if (!is_xdigit(*q))
            return oracle_fail(err, ORACLE_EUSAGE, NULL, "'%s': '%c' is not a hex digit", t, *q);
        if (v >> 60)
            return oracle_fail(err, ORACLE_EUSAGE, NULL, "'%s' does not fit in the %u bits of %s",
                               t, (unsigned)d->bits, d->tag);
        v = v * 16 + (uint64_t)(is_digit(*q) ? *q - '0' : tolower((unsigned char)*q) - 'a' + 10);
    }
    if (v & ~oracle_dtype_mask(dtype))
        return oracle_fail(err, ORACLE_EUSAGE, NULL, "'%s' does not fit in the %u bits of %s", t,
                           (unsigned)d->bits, d->tag);
    *bits = v;
    return ORACLE_OK;
}

/* Range of an integer dtype as text, "[-128, 127]". */
static void int_range_text(uint32_t dtype, char *buf, size_t len)
{
    const oracle_dtype_info *d = oracle_dtype(dtype);
    if (d->kind == DVG_KIND_UNSIGNED)
        snprintf(buf, len, "[0, %" PRIu64 "]", oracle_dtype_mask(dtype));
    else
        snprintf(buf, len, "[-%" PRIu64 ", %" PRIu64 "]", UINT64_C(1) << (d->bits - 1),
                 (UINT64_C(1) << (d->bits - 1)) - 1);
}

/* An integer literal: min, max, raw bits 0x..., or a signed decimal in
 * range. */
static int parse_int(uint32_t dtype, const char *t, uint64_t *bits, oracle_error *err)
{
    const oracle_dtype_info *d = oracle_dtype(dtype);
    uint64_t mask = oracle_dtype_mask(dtype);
    uint64_t smax = d->kind == DVG_KIND_SIGNED ? mask >> 1 : mask; /* largest value */
    uint64_t nmax = d->kind == DVG_KIND_SIGNED ? smax + 1 : 0;      /* largest |negative| */
    char range[64];
    if (!strcmp(t, "min")) {
        *bits = d->kind == DVG_KIND_SIGNED ? (smax + 1) & mask : 0;
        return ORACLE_OK;
    }
    if (!strcmp(t, "max")) {
        *bits = smax;
        return ORACLE_OK;
    }
    if (t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
        return parse_hex_bits(dtype, t, bits, err);
    const char *s = t;
    int neg = 0;
    if (*s == '-' || *s == '+')
        neg = *s++ == '-';
    if (!is_digit(*s))
        goto not_int;
    uint64_t mag = 0;
    int over = 0;
    for (; *s; s++) {
        if (!is_digit(*s))
            goto not_int;
        unsigned dgt = (unsigned)(*s - '0');
        if (mag > (UINT64_MAX - dgt) / 10)
            over = 1;
        else
            mag = mag * 10 + dgt;
    }
    if (over || (neg ? mag > nmax : mag > smax)) {
        int_range_text(dtype, range, sizeof range);
        return oracle_fail(err, ORACLE_EUSAGE, NULL, "%s is out of the range of %s %s", t, d->tag,
                           range);
    }
    *bits = (neg ? 0 - mag : mag) & mask;
    return ORACLE_OK;
not_int:
    return oracle_fail(err, ORACLE_EUSAGE, NULL,
                       "'%s' is not a value of %s (an integer, raw bits 0x..., min or max)", t,
                       d->tag);
}

/* A float literal of a case file (see oracle_value_parse_literal). */
static int parse_float_literal(uint32_t dtype, const char *t, int expected, uint64_t *bits_out,
                               uint32_t *kind, oracle_error *err)
{
    oracle_float_format f = {0, 0};
    const char *tag = oracle_dtype_tag(dtype);
    if (!oracle_float_format_of(dtype, &f))
        return oracle_fail(err, ORACLE_EUSAGE, NULL, "%s is not a float type", tag);
    if (expected && !strcmp(t, "nan")) {
        *bits_out = f_inf(f) | (UINT64_C(1) << (f.frac_bits - 1));
        *kind = ORACLE_ANY_NAN;
        return ORACLE_OK;
    }
    if (expected && !strcmp(t, "any-inf")) {
        *bits_out = f_inf(f);
        *kind = ORACLE_ANY_INF;
        return ORACLE_OK;
    }
    const char *s = t;
    int neg = 0;
    if (*s == '-' || *s == '+')
        neg = *s++ == '-';
    if (expected && (!strcmp(s, "nan") || !strcmp(s, "snan")))
        return oracle_fail(err, ORACLE_EUSAGE, NULL,
                           "'%s' as an expected value: a quotient's NaN is any NaN, write 'nan' "
                           "(or raw bits 0x... for one pattern)", t);
    uint64_t bits;
    *kind = ORACLE_EXACT;
    if (float_named(f, s, neg, expected, &bits)) {
        *bits_out = bits;
        return ORACLE_OK;
    }
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && !strpbrk(s, ".pP")) {
        if (s != t)
            return oracle_fail(err, ORACLE_EUSAGE, NULL, "'%s': raw hex bits take no sign", t);
        return parse_hex_bits(dtype, t, bits_out, err);
    }
    int nonzero;
    if (!number_syntax(s, &nonzero))
        return oracle_fail(err, ORACLE_EUSAGE, NULL,
                           "'%s' is not a value of %s (a decimal, a hex float 0x1.8p-3, raw bits "
                           "0x..., inf, -inf, nan, snan, max, min_normal, max_sub, min_sub%s)",
                           t, tag, expected ? ", any-inf, unspecified" : "");
    bits = decimal_to_format(s, f);
    if ((bits & ~f_sign(f)) == f_inf(f))
        return oracle_fail(err, ORACLE_EUSAGE, NULL,
                           "'%s' overflows %s (write inf for infinity, max for the largest "
                           "finite value)", t, tag);
    if (bits == 0 && nonzero)
        return oracle_fail(err, ORACLE_EUSAGE, NULL,
                           "'%s' is too small for %s: it rounds to zero (write 0, or min_sub for "
                           "the smallest subnormal)", t, tag);
    *bits_out = bits | (neg ? f_sign(f) : 0);
    return ORACLE_OK;
}

/* A float as the command line writes it (see oracle_value_parse): strtold's
 * syntax, inf, infinity, nan, overflow to inf and underflow to zero. */
static int parse_float(uint32_t dtype, const char *t, uint64_t *bits, oracle_error *err)
{
    oracle_float_format f = {0, 0};
    if (!oracle_float_format_of(dtype, &f))
        return oracle_fail(err, ORACLE_EUSAGE, NULL, "%s is not a float type", oracle_dtype_tag(dtype));
    uint64_t total = (uint64_t)(f.exp_bits + f.frac_bits);
    uint64_t exp_max = (UINT64_C(1) << f.exp_bits) - 1;
    const char *s = t;
    uint64_t sign = 0;
    if (*s == '-' || *s == '+')
        sign = *s++ == '-';
    if (!strcmp(s, "inf") || !strcmp(s, "infinity")) {
        *bits = (sign << total) | (exp_max << f.frac_bits);
        return ORACLE_OK;
    }
    if (!strcmp(s, "nan")) {
        *bits = (sign << total) | (exp_max << f.frac_bits) | (UINT64_C(1) << (f.frac_bits - 1));
        return ORACLE_OK;
    }
    char *end;
    errno = 0;
    long double v = strtold(s, &end);
    if (end == s || *end || !isfinite(v) || v < 0)
        return oracle_fail(err, ORACLE_EUSAGE, NULL, "'%s' is not a number", t);
    *bits = (sign << total) | (v == 0 ? 0 : decimal_to_format(s, f));
    return ORACLE_OK;
}

int oracle_value_parse(uint32_t dtype, const char *text, uint64_t *bits, oracle_error *err)
{
    const oracle_dtype_info *d = oracle_dtype(dtype);
    if (!d)
        return oracle_fail(err, ORACLE_EUSAGE, NULL, "unknown dtype %u", (unsigned)dtype);
    if (!text || !*text)
        return oracle_fail(err, ORACLE_EUSAGE, NULL, "empty value");
    if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X') && !strpbrk(text, "pP."))
        return parse_hex_bits(dtype, text, bits, err);
    if (d->kind == DVG_KIND_FLOAT)
        return parse_float(dtype, text, bits, err);
    return parse_int(dtype, text, bits, err);
}

int oracle_value_parse_literal(uint32_t dtype, const char *text, int expected, uint64_t *bits,
                               uint32_t *kind, oracle_error *err)
{
    const oracle_dtype_info *d = oracle_dtype(dtype);
    if (!d)
        return oracle_fail(err, ORACLE_EUSAGE, NULL, "unknown dtype");
    if (!strcmp(text, "unspecified")) {
        if (!expected)
            return oracle_fail(err, ORACLE_EUSAGE, NULL,
                               "'unspecified' is an expected value, not an operand");
        *bits = 0;
        *kind = ORACLE_UNSPECIFIED;
        return ORACLE_OK;
    }
    if (!strcmp(text, "invalid"))
        return oracle_fail(err, ORACLE_EUSAGE, NULL,
                           "'invalid' stands alone: write 'expect: invalid'");
    if (d->kind == DVG_KIND_FLOAT)
        return parse_float_literal(dtype, text, expected, bits, kind, err);
    *kind = ORACLE_EXACT;
    return parse_int(dtype, text, bits, err);
}

int oracle_value_from_int(uint32_t dtype, int64_t x, uint64_t *bits)
{
    const oracle_dtype_info *d = oracle_dtype(dtype);
    uint64_t mask = oracle_dtype_mask(dtype);
    oracle_float_format f;
    if (!d)
        return ORACLE_EUSAGE;
    if (oracle_float_format_of(dtype, &f)) {
        uint64_t mag = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
        if (!mag) {
            *bits = 0;
            return ORACLE_OK;
        }
        uint64_t r = round_pack(x < 0, mag, 0, 0, f);
        /* exact when no bit below the kept significand was dropped */
        int width = 64 - __builtin_clzll(mag);
        int dropped = width > f.frac_bits + 1 ? width - (f.frac_bits + 1) : 0;
        if ((r & ~f_sign(f)) >= f_inf(f) ||
            (dropped && (mag & ((UINT64_C(1) << dropped) - 1))))
            return ORACLE_EUSAGE;
        *bits = r;
        return ORACLE_OK;
    }
    if (d->kind == DVG_KIND_UNSIGNED) {
        if (x < 0 || (uint64_t)x > mask)
            return ORACLE_EUSAGE;
    } else if (d->bits < 64) {
        int64_t hi = (int64_t)(mask >> 1), lo = -hi - 1;
        if (x < lo || x > hi)
            return ORACLE_EUSAGE;
    }
    *bits = (uint64_t)x & mask;
    return ORACLE_OK;
}

double oracle_value_to_double(uint32_t dtype, uint64_t bits)
{
    oracle_float_format f;
    if (!oracle_float_format_of(dtype, &f))
        return 0;
    uint64_t sign = (bits >> (f.exp_bits + f.frac_bits)) & 1;
    uint64_t exp = (bits >> f.frac_bits) & ((UINT64_C(1) << f.exp_bits) - 1);
    uint64_t frac = bits & ((UINT64_C(1) << f.frac_bits) - 1);
    int bias = (1 << (f.exp_bits - 1)) - 1;
    double v;
    if (exp == (UINT64_C(1) << f.exp_bits) - 1)
        v = frac ? NAN : INFINITY;
    else if (exp == 0)
        v = ldexp((double)frac, 1 - bias - f.frac_bits);
    else
        v = ldexp((double)(frac | (UINT64_C(1) << f.frac_bits)), (int)exp - bias - f.frac_bits);
    return sign ? -v : v;
}

char *oracle_value_format(uint32_t dtype, uint64_t bits, char *buf, size_t len)
{
    const oracle_dtype_info *d = oracle_dtype(dtype);
    if (!d) {
        snprintf(buf, len, "?");
        return buf;
    }
    bits &= oracle_dtype_mask(dtype);
    if (d->kind == DVG_KIND_FLOAT) {
        double v = oracle_value_to_double(dtype, bits);
        int digits = dtype == DVG_DTYPE_F16 ? 5 : dtype == DVG_DTYPE_BF16 ? 4
                   : dtype == DVG_DTYPE_F32 ? 9 : 17;
        if (isnan(v))
            snprintf(buf, len, "%snan", (bits >> (d->bits - 1)) ? "-" : "");
        else if (isinf(v))
            snprintf(buf, len, "%sinf", v < 0 ? "-" : "");
        else if (v == 0)
            snprintf(buf, len, "%s0", signbit(v) ? "-" : "");
        else
            snprintf(buf, len, "%.*g", digits, v);
    } else if (d->kind == DVG_KIND_SIGNED) {
        snprintf(buf, len, "%" PRId64, oracle_int_value(dtype, bits));
    } else {
        snprintf(buf, len, "%" PRIu64, bits);
    }
    return buf;
}

char *oracle_bits_format(uint32_t dtype, uint64_t bits, char *buf, size_t len)
{
    const oracle_dtype_info *d = oracle_dtype(dtype);
    int width = d ? (int)((d->bits + 3) / 4) : 1;
    snprintf(buf, len, "0x%0*" PRIx64, width, bits & oracle_dtype_mask(dtype));
    return buf;
}
