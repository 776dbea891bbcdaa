/* SPDX-License-Identifier: MIT */
#include "oracle/value.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/dtype.h"


/*
 * Rounds sign * sig * 2^e2 (sig != 0, any width) to nearest-even in a
 * format with ebits/fbits, subnormals and overflow included. Integer
 * arithmetic only.
 */
static uint64_t round_to_format(uint64_t sign, uint64_t sig, int64_t e2, oracle_float_format f)
{
    const int64_t bias = (INT64_C(1) << (f.exp_bits - 1)) - 1;
    const uint64_t exp_max = (UINT64_C(1) << f.exp_bits) - 1;
    int lead = 63 - __builtin_clzll(sig);       /* value = sig * 2^e2 */
    int64_t exp = lead + e2;                     /* unbiased exponent */
    int64_t biased = exp + bias;
    /* Number of significand bits kept: fbits + 1 for normals, fewer below. */
    int64_t keep = biased >= 1 ? f.frac_bits + 1 : f.frac_bits + biased;
    uint64_t out;
    if (keep < 0) {
        out = 0; /* far below half the smallest subnormal */
        return (sign << (f.exp_bits + f.frac_bits)) | out;
    }
    int64_t drop = lead + 1 - keep;
    uint64_t q;
    if (drop <= 0) {
        q = sig << -drop;
    } else {
        uint64_t rem = drop >= 64 ? sig : sig & ((UINT64_C(1) << drop) - 1);
        q = drop >= 64 ? 0 : sig >> drop;
        uint64_t half = drop > 64 ? 0 : UINT64_C(1) << (drop - 1);
        if (drop <= 64 && (rem > half || (rem == half && (q & 1))))
            q++;
    }
    /* q is the significand in units of the last kept place. */
    if (biased < 1) {
        /* subnormal (or rounds up into the smallest normal: q == 2^fbits) */
        out = q;
    } else {
        if (q >> (f.frac_bits + 1)) { /* carry out of the significand */
            q >>= 1;
            biased++;
        }
        if ((uint64_t)biased >= exp_max)
            out = exp_max << f.frac_bits;
        else
            out = ((uint64_t)biased << f.frac_bits) | (q & ((UINT64_C(1) << f.frac_bits) - 1));
    }
    return (sign << (f.exp_bits + f.frac_bits)) | out;
}

static int parse_hex_bits(uint32_t dtype, const char *t, uint64_t *bits, oracle_error *err)
{
    const oracle_dtype_info *d = oracle_dtype(dtype);
    const char *p = t + 2;
    if (!*p)
        return oracle_fail(err, ORACLE_EUSAGE, NULL, "'%s': no hex digits", t);
    size_t digits = strlen(p);
    uint64_t v = 0;
    for (const char *q = p; *q; q++) {
        if (!isxdigit((unsigned char)*q))
            return oracle_fail(err, ORACLE_EUSAGE, NULL, "'%s': '%c' is not a hex digit", t, *q);
        v = v * 16 + (uint64_t)(isdigit((unsigned char)*q) ? *q - '0' : (tolower(*q) - 'a' + 10));
    }
    if (digits > (d->bits + 3) / 4 + 0 || (v & ~oracle_dtype_mask(dtype)))
        return oracle_fail(err, ORACLE_EUSAGE, NULL, "'%s' is wider than %s (%u bits)", t,
                           d->tag, (unsigned)d->bits);
    *bits = v;
    return ORACLE_OK;
}

static int parse_int(uint32_t dtype, const char *t, uint64_t *bits, oracle_error *err)
{
    const oracle_dtype_info *d = oracle_dtype(dtype);
    char *end;
    errno = 0;
    if (d->kind == DVG_KIND_UNSIGNED) {
        if (t[0] == '-')
            return oracle_fail(err, ORACLE_EUSAGE, NULL, "'%s' is negative, %s is unsigned", t, d->tag);
        unsigned long long v = strtoull(t, &end, 10);
        if (end == t || *end)
            return oracle_fail(err, ORACLE_EUSAGE, NULL, "'%s' is not an integer", t);
        if (errno || (v & ~oracle_dtype_mask(dtype)))
            return oracle_fail(err, ORACLE_EUSAGE, NULL, "'%s' is out of the range of %s", t, d->tag);
        *bits = v;
        return ORACLE_OK;
    }
    long long v = strtoll(t, &end, 10);
    if (end == t || *end)
        return oracle_fail(err, ORACLE_EUSAGE, NULL, "'%s' is not an integer", t);
    int64_t lo = d->bits >= 64 ? INT64_MIN : -(INT64_C(1) << (d->bits - 1));
    int64_t hi = d->bits >= 64 ? INT64_MAX : (INT64_C(1) << (d->bits - 1)) - 1;
    if (errno || v < lo || v > hi)
        return oracle_fail(err, ORACLE_EUSAGE, NULL,
                           "'%s' is out of the range of %s [%" PRId64 ", %" PRId64 "]", t, d->tag,
                           lo, hi);
    *bits = (uint64_t)v & oracle_dtype_mask(dtype);
    return ORACLE_OK;
}

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
    if (v == 0) {
        *bits = sign << total;
        return ORACLE_OK;
    }
    /* long double on x86-64 holds a 64-bit significand: take it exactly. */
    int e;
    long double m = frexpl(v, &e); /* v = m * 2^e, m in [0.5, 1) */
    uint64_t sig = (uint64_t)ldexpl(m, 64);
    *bits = round_to_format(sign, sig, (int64_t)e - 64, f);
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
