/* SPDX-License-Identifier: MIT */
/*
 * This file contains the comparison primitives: ULP distance, operand
 * classes, the values a processor's flush-to-zero and denormals-are-zero
 * modes give, and the classification of one (expected, actual) pair into a
 * difference class.
 */
#include "oracle/compare.h"

#include <string.h>

#include "oracle/dtype.h"

#define CLASS_NAME_(ID, name, desc) name,
#define CLASS_DESC_(ID, name, desc) desc,
static const char *const class_names[] = {ORACLE_CLASS_LIST(CLASS_NAME_)};
static const char *const class_descs[] = {ORACLE_CLASS_LIST(CLASS_DESC_)};
#undef CLASS_NAME_
#undef CLASS_DESC_

#define OPERAND_NAME_(ID, name) name,
static const char *const operand_names[] = {ORACLE_OPERAND_LIST(OPERAND_NAME_)};
#undef OPERAND_NAME_

const char *oracle_class_name(uint32_t cls)
{
    return cls < ORACLE_CLASS_COUNT ? class_names[cls] : "?";
}

const char *oracle_class_description(uint32_t cls)
{
    return cls < ORACLE_CLASS_COUNT ? class_descs[cls] : "?";
}

int oracle_class_by_name(const char *name)
{
    for (int i = 0; i < ORACLE_CLASS_COUNT; i++)
        if (!strcmp(class_names[i], name))
            return i;
    return -1;
}

const char *oracle_operand_name(uint32_t operand_class)
{
    return operand_class < ORACLE_OPERAND_COUNT ? operand_names[operand_class] : "?";
}

/* Float fraction width; 0 for integer dtypes. */
static uint32_t frac_bits_of(uint32_t dtype)
{
    oracle_float_format f;
    return oracle_float_format_of(dtype, &f) ? (uint32_t)f.frac_bits : 0;
}

typedef struct fparts {
    uint64_t sign, exp, frac, exp_max;
} fparts;

static fparts split(uint32_t dtype, uint64_t v)
{
    uint32_t bits = oracle_dtype(dtype)->bits, fb = frac_bits_of(dtype);
    fparts p;
    p.sign = (v >> (bits - 1)) & 1;
    p.exp_max = (UINT64_C(1) << (bits - 1 - fb)) - 1;
    p.exp = (v >> fb) & p.exp_max;
    p.frac = v & ((UINT64_C(1) << fb) - 1);
    return p;
}

static int is_nan(fparts p) { return p.exp == p.exp_max && p.frac; }
static int is_inf(fparts p) { return p.exp == p.exp_max && !p.frac; }
static int is_zero(fparts p) { return p.exp == 0 && !p.frac; }
static int is_subnormal(fparts p) { return p.exp == 0 && p.frac; }

uint64_t oracle_ulp_distance(uint32_t dtype, uint64_t x, uint64_t y)
{
    const oracle_dtype_info *d = oracle_dtype(dtype);
    if (!d)
        return UINT64_MAX;
    uint64_t mask = oracle_dtype_mask(dtype);
    x &= mask;
    y &= mask;
    if (d->kind != DVG_KIND_FLOAT) {
        if (d->kind == DVG_KIND_UNSIGNED)
            return x > y ? x - y : y - x;
        int64_t sx = oracle_int_value(dtype, x), sy = oracle_int_value(dtype, y);
        return sx > sy ? (uint64_t)sx - (uint64_t)sy : (uint64_t)sy - (uint64_t)sx;
    }
    fparts px = split(dtype, x), py = split(dtype, y);
    if (is_nan(px) || is_nan(py))
        return UINT64_MAX;
    if (is_inf(px) && is_inf(py) && px.sign != py.sign)
        return UINT64_MAX;
    /* Map sign-magnitude onto a line where +0 and -0 are one point. */
    uint64_t sign_bit = UINT64_C(1) << (d->bits - 1);
    uint64_t mx = x & ~sign_bit, my = y & ~sign_bit;
    if (px.sign == py.sign)
        return mx > my ? mx - my : my - mx;
    return mx + my;
}

uint32_t oracle_operand_class(uint32_t dtype, uint64_t bits)
{
    const oracle_dtype_info *d = oracle_dtype(dtype);
    if (!d)
        return ORACLE_OPERAND_NORMAL;
    uint64_t mask = oracle_dtype_mask(dtype);
    bits &= mask;
    if (d->kind == DVG_KIND_FLOAT) {
        fparts p = split(dtype, bits);
        if (is_nan(p)) return ORACLE_OPERAND_NAN;
        if (is_inf(p)) return ORACLE_OPERAND_INF;
        if (is_zero(p)) return ORACLE_OPERAND_ZERO;
        if (is_subnormal(p)) return ORACLE_OPERAND_SUBNORMAL;
        return ORACLE_OPERAND_NORMAL;
    }
    if (bits == 0)
        return ORACLE_OPERAND_ZERO;
    if (bits == 1)
        return ORACLE_OPERAND_ONE;
    if (d->kind == DVG_KIND_UNSIGNED)
        return bits == mask ? ORACLE_OPERAND_INT_MAX : ORACLE_OPERAND_POSITIVE;
    uint64_t int_min = UINT64_C(1) << (d->bits - 1);
    if (bits == int_min) return ORACLE_OPERAND_INT_MIN;
    if (bits == mask) return ORACLE_OPERAND_MINUS_ONE;
    if (bits == int_min - 1) return ORACLE_OPERAND_INT_MAX;
    return (bits & int_min) ? ORACLE_OPERAND_NEGATIVE : ORACLE_OPERAND_POSITIVE;
}

/* A subnormal operand read as zero of the same sign. */
static uint64_t as_zero_if_subnormal(uint32_t dtype, uint64_t v)
{
    fparts p = split(dtype, v);
    return is_subnormal(p) ? p.sign << (oracle_dtype(dtype)->bits - 1) : v;
}

/* A finite non-zero float as m * 2^e with m's leading 1 at bit 63. */
static void normalized(uint32_t dtype, fparts p, uint64_t *m, int32_t *e)
{
    uint32_t fb = frac_bits_of(dtype);
    int32_t bias = (int32_t)(p.exp_max >> 1);
    uint64_t sig = p.exp ? p.frac | (UINT64_C(1) << fb) : p.frac;
    int shift = __builtin_clzll(sig);
    *m = sig << shift;
    *e = (p.exp ? (int32_t)p.exp : 1) - bias - (int32_t)fb - shift;
}

int oracle_ftz_zero(const oracle_rules *r, uint64_t a, uint64_t b, uint64_t *zero)
{
    uint32_t dtype = r->dtype;
    if (r->kind != DVG_KIND_FLOAT)
        return 0;
    uint64_t mask = oracle_dtype_mask(dtype);
    fparts pa = split(dtype, a & mask), pb = split(dtype, b & mask);
    if (pa.exp == pa.exp_max || pb.exp == pb.exp_max || is_zero(pa) || is_zero(pb))
        return 0;
    /* |a / b| < 2^emin, emin = 1 - bias, exactly: |a| < 2^emin * |b|. */
    uint64_t ma, mb;
    int32_t ea, eb;
    normalized(dtype, pa, &ma, &ea);
    normalized(dtype, pb, &mb, &eb);
    eb += 1 - (int32_t)(pb.exp_max >> 1);
    if (ea > eb || (ea == eb && ma >= mb))
        return 0;
    *zero = (pa.sign ^ pb.sign) << (oracle_dtype(dtype)->bits - 1);
    return 1;
}

int oracle_daz_expect(const oracle_rules *r, uint64_t a, uint64_t b, oracle_elem *out)
{
    uint32_t dtype = r->dtype;
    if (r->kind != DVG_KIND_FLOAT)
        return 0;
    uint64_t mask = oracle_dtype_mask(dtype);
    a &= mask;
    b &= mask;
    uint64_t a0 = as_zero_if_subnormal(dtype, a), b0 = as_zero_if_subnormal(dtype, b);
    if (a0 == a && b0 == b)
        return 0;
    oracle_expect(r, a0, b0, out);
    if (out->kind == ORACLE_UNSPECIFIED) {
        /* The variant leaves x / 0 open (OpenVINO): IEEE's answer, which the
         * rule keeps as its preferred value; no value is free. */
        uint64_t ieee = out->alt;
        int nan = is_nan(split(dtype, ieee));
        memset(out, 0, sizeof *out);
        out->kind = nan ? ORACLE_ANY_NAN : ORACLE_EXACT;
        out->rule = nan ? ORACLE_RULE_FLOAT_ZERO_BY_ZERO : ORACLE_RULE_FLOAT_DIV_ZERO_IEEE;
        out->bits = ieee;
    }
    return 1;
}

uint32_t oracle_modes_explaining(const oracle_rules *r, uint64_t a, uint64_t b, uint64_t actual)
{
    uint32_t modes = 0;
    uint64_t zero;
    oracle_elem daz;
    actual &= oracle_dtype_mask(r->dtype);
    if (oracle_ftz_zero(r, a, b, &zero) && actual == zero)
        modes |= ORACLE_MODE_FTZ;
    if (oracle_daz_expect(r, a, b, &daz) && oracle_elem_accepts(r->dtype, &daz, actual))
        modes |= ORACLE_MODE_DAZ;
    return modes;
}

static uint32_t classify_float(const oracle_rules *r, uint32_t prefer, uint64_t a, uint64_t b,
                               const oracle_elem *e, uint64_t actual, uint64_t *ulps)
{
    uint32_t dtype = r->dtype;
    fparts pe = split(dtype, e->bits), pa = split(dtype, actual);
    if (e->kind == ORACLE_ANY_NAN)
        return ORACLE_CLASS_NAN_EXPECTED;
    /* Before nan-unexpected: under denormals-are-zero 0 / subnormal is NaN. */
    uint32_t modes = oracle_modes_explaining(r, a, b, actual);
    if (modes & prefer)
        modes &= prefer;
    if (modes & ORACLE_MODE_FTZ)
        return ORACLE_CLASS_FLUSHED_SUBNORMAL_OUTPUT;
    if (modes & ORACLE_MODE_DAZ)
        return ORACLE_CLASS_SUBNORMAL_INPUT_AS_ZERO;
    if (is_nan(pa))
        return ORACLE_CLASS_NAN_UNEXPECTED;
    if (e->kind == ORACLE_EXACT) {
        if (is_inf(pe) && is_inf(pa))
            return ORACLE_CLASS_WRONG_SIGN_INF;
        if (is_zero(pe) && is_zero(pa))
            return ORACLE_CLASS_WRONG_SIGN_ZERO;
    }
    *ulps = oracle_ulp_distance(dtype, e->bits, actual);
    return ORACLE_CLASS_WRONG_VALUE;
}

/* 1 when `actual` is `expected` wrapped into a narrower integer width. */
static int wrapped_narrower(uint32_t dtype, uint64_t expected, uint64_t actual)
{
    const oracle_dtype_info *d = oracle_dtype(dtype);
    uint64_t mask = oracle_dtype_mask(dtype);
    for (uint32_t k = 4; k < d->bits; k *= 2) {
        uint64_t low = expected & ((UINT64_C(1) << k) - 1);
        uint64_t v = low;
        if (d->kind == DVG_KIND_SIGNED && (low >> (k - 1)) & 1)
            v = (low | ~((UINT64_C(1) << k) - 1)) & mask;
        if (v == actual)
            return 1;
    }
    return 0;
}

uint32_t oracle_classify(const oracle_rules *r, uint64_t a, uint64_t b, const oracle_elem *e,
                         uint64_t actual, uint64_t *ulps)
{
    return oracle_classify_preferring(r, 0, a, b, e, actual, ulps);
}

uint32_t oracle_classify_preferring(const oracle_rules *r, uint32_t prefer, uint64_t a,
                                    uint64_t b, const oracle_elem *e, uint64_t actual,
                                    uint64_t *ulps)
{
    uint64_t mask = oracle_dtype_mask(r->dtype);
    uint64_t scratch;
    if (!ulps)
        ulps = &scratch;
    *ulps = 0;
    actual &= mask;
    if (oracle_elem_accepts(r->dtype, e, actual))
        return ORACLE_CLASS_MATCH;
    if (r->kind == DVG_KIND_FLOAT)
        return classify_float(r, prefer, a & mask, b & mask, e, actual, ulps);
    if (e->has_alt && e->alt != e->bits && actual == e->alt)
        return ORACLE_CLASS_FLOOR_VS_TRUNC;
    if (wrapped_narrower(r->dtype, e->bits, actual))
        return ORACLE_CLASS_INT_WRAP;
    *ulps = oracle_ulp_distance(r->dtype, e->bits, actual);
    return ORACLE_CLASS_WRONG_VALUE;
}
