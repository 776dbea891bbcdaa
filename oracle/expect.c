/* SPDX-License-Identifier: MIT */
/*
 * The expected result of each element: special cases decided from the
 * operands' classes and the variant's rules, ordinary quotients from the
 * exact path (or the self-checked fast path in oracle_expect_n).
 */
#include "oracle/expect.h"

#include <string.h>

#include "oracle/dtype.h"
#include "oracle/exact.h"
#include "oracle/fastpath.h"

#define RULE_INFO_(ID, name, req, text) {name, req, text},
static const oracle_rule_info rule_infos[] = {ORACLE_RULE_LIST(RULE_INFO_)};
#undef RULE_INFO_

const oracle_rule_info *oracle_rule_info_get(uint32_t rule)
{
    return rule < ORACLE_RULE_COUNT_ ? &rule_infos[rule] : NULL;
}

/* Field layout of a float format, with its total width. */
typedef struct float_format {
    uint32_t bits, exp_bits, frac_bits;
} float_format;

static int float_format_of(uint32_t dtype, float_format *f)
{
    oracle_float_format o;
    if (!oracle_float_format_of(dtype, &o))
        return 0;
    *f = (float_format){(uint32_t)(1 + o.exp_bits + o.frac_bits), (uint32_t)o.exp_bits,
                        (uint32_t)o.frac_bits};
    return 1;
}

enum { FC_ZERO, FC_FINITE, FC_INF, FC_NAN };

static int float_class(const float_format *f, uint64_t v)
{
    uint64_t frac = v & ((UINT64_C(1) << f->frac_bits) - 1);
    uint64_t exp = (v >> f->frac_bits) & ((UINT64_C(1) << f->exp_bits) - 1);
    if (exp == (UINT64_C(1) << f->exp_bits) - 1)
        return frac ? FC_NAN : FC_INF;
    if (exp == 0 && frac == 0)
        return FC_ZERO;
    return FC_FINITE;
}

static uint64_t float_sign(const float_format *f, uint64_t v)
{
    return (v >> (f->bits - 1)) & 1;
}

static uint64_t float_inf(const float_format *f, uint64_t sign)
{
    uint64_t exp_all = (UINT64_C(1) << f->exp_bits) - 1;
    return (sign << (f->bits - 1)) | (exp_all << f->frac_bits);
}

static uint64_t float_default_nan(const float_format *f)
{
    return float_inf(f, 0) | (UINT64_C(1) << (f->frac_bits - 1));
}

static uint64_t exact_quotient(uint32_t dtype, uint64_t a, uint64_t b)
{
    switch (dtype) {
    case DVG_DTYPE_F16: return f16_div((dvg_f16){(uint16_t)a}, (dvg_f16){(uint16_t)b}).v;
    case DVG_DTYPE_BF16: return bf16_div((dvg_bf16){(uint16_t)a}, (dvg_bf16){(uint16_t)b}).v;
    case DVG_DTYPE_F32: return f32_div((dvg_f32){(uint32_t)a}, (dvg_f32){(uint32_t)b}).v;
    default: return f64_div((dvg_f64){a}, (dvg_f64){b}).v;
    }
}

static void set(oracle_elem *e, uint32_t kind, uint32_t rule, uint64_t bits)
{
    memset(e, 0, sizeof *e);
    e->kind = (uint8_t)kind;
    e->rule = (uint8_t)rule;
    e->bits = bits;
}

/*
 * Float element. Returns 1 when the answer is decided by a special case,
 * 0 when it is the ordinary rounded quotient (the caller fills bits).
 */
static int expect_float_special(const oracle_rules *r, const float_format *f, uint64_t a,
                                uint64_t b, oracle_elem *e)
{
    int ca = float_class(f, a), cb = float_class(f, b);
    uint64_t sign = float_sign(f, a) ^ float_sign(f, b);
    if (cb == FC_ZERO && r->float_div_zero == ORACLE_FDZ_UNDEFINED) {
        /* "The result of division by zero is undefined." Keep IEEE's answer
         * as the preferred value for reports. */
        set(e, ORACLE_UNSPECIFIED, ORACLE_RULE_FLOAT_DIV_ZERO_UNDEFINED, 0);
        e->alt = (ca == FC_ZERO || ca == FC_NAN) ? float_default_nan(f) : float_inf(f, sign);
        e->bits = e->alt;
        e->has_alt = 1;
        return 1;
    }
    if (ca == FC_NAN || cb == FC_NAN) {
        set(e, ORACLE_ANY_NAN, ORACLE_RULE_FLOAT_NAN_OPERAND, float_default_nan(f));
        return 1;
    }
    if (ca == FC_ZERO && cb == FC_ZERO) {
        set(e, ORACLE_ANY_NAN, ORACLE_RULE_FLOAT_ZERO_BY_ZERO, float_default_nan(f));
        return 1;
    }
    if (ca == FC_INF && cb == FC_INF) {
        set(e, ORACLE_ANY_NAN, ORACLE_RULE_FLOAT_INF_BY_INF, float_default_nan(f));
        return 1;
    }
    if (cb == FC_ZERO) {
        if (r->float_div_zero == ORACLE_FDZ_UNSIGNED_INF)
            set(e, ORACLE_ANY_INF, ORACLE_RULE_FLOAT_DIV_ZERO_UNSIGNED_INF, float_inf(f, sign));
        else
            set(e, ORACLE_EXACT, ORACLE_RULE_FLOAT_DIV_ZERO_IEEE, float_inf(f, sign));
        return 1;
    }
    if (ca == FC_INF) {
        set(e, ORACLE_EXACT, ORACLE_RULE_FLOAT_INF_DIVIDEND, float_inf(f, sign));
        return 1;
    }
    if (cb == FC_INF) {
        set(e, ORACLE_EXACT, ORACLE_RULE_FLOAT_INF_DIVISOR, sign << (f->bits - 1));
        return 1;
    }
    set(e, ORACLE_EXACT, ORACLE_RULE_FLOAT_QUOTIENT, 0);
    return 0;
}

static void expect_int(const oracle_rules *r, uint64_t a, uint64_t b, oracle_elem *e)
{
    const oracle_dtype_info *d = oracle_dtype(r->dtype);
    uint64_t mask = oracle_dtype_mask(r->dtype);
    a &= mask;
    b &= mask;
    if (b == 0) {
        set(e, ORACLE_UNSPECIFIED, ORACLE_RULE_INT_DIV_ZERO, 0);
        return;
    }
    if (d->kind == DVG_KIND_UNSIGNED) {
        uint64_t q = int_div_unsigned(a, b, d->bits);
        set(e, ORACLE_EXACT, r->int_rounding == DVG_ROUND_FLOOR ? ORACLE_RULE_INT_FLOOR
                                                               : ORACLE_RULE_INT_TRUNC, q);
        e->alt = q;
        e->has_alt = 1;
        return;
    }
    int64_t sa = oracle_int_value(r->dtype, a), sb = oracle_int_value(r->dtype, b);
    uint64_t int_min = UINT64_C(1) << (d->bits - 1);
    if (a == int_min && b == mask) {
        /* The true quotient -INT_MIN is not representable; two's complement
         * wrap-around would give INT_MIN, kept as the informative value. */
        set(e, ORACLE_UNSPECIFIED, ORACLE_RULE_INT_MIN_BY_MINUS_ONE, int_min);
        e->alt = int_min;
        e->has_alt = 1;
        return;
    }
    uint64_t trunc = int_div_signed(sa, sb, d->bits, 0);
    uint64_t floor = int_div_signed(sa, sb, d->bits, 1);
    int use_floor = r->int_rounding == DVG_ROUND_FLOOR;
    set(e, ORACLE_EXACT, use_floor ? ORACLE_RULE_INT_FLOOR : ORACLE_RULE_INT_TRUNC,
        use_floor ? floor : trunc);
    e->alt = use_floor ? trunc : floor;
    e->has_alt = 1;
}

void oracle_expect(const oracle_rules *r, uint64_t a, uint64_t b, oracle_elem *out)
{
    float_format f;
    if (!float_format_of(r->dtype, &f)) {
        expect_int(r, a, b, out);
        return;
    }
    uint64_t mask = oracle_dtype_mask(r->dtype);
    a &= mask;
    b &= mask;
    if (!expect_float_special(r, &f, a, b, out))
        out->bits = exact_quotient(r->dtype, a, b);
}

const char *oracle_elem_requirement(const oracle_rules *r, const oracle_elem *e)
{
    const oracle_variant *v = r->variant;
    switch (e->rule) {
    case ORACLE_RULE_INT_TRUNC:
    case ORACLE_RULE_INT_FLOOR:
        return r->rounding_requirement ? r->rounding_requirement : v->types_requirement;
    case ORACLE_RULE_INT_DIV_ZERO:
        return v->int_div_zero_requirement;
    case ORACLE_RULE_INT_MIN_BY_MINUS_ONE:
        return v->int_overflow_requirement;
    case ORACLE_RULE_FLOAT_ZERO_BY_ZERO:
        if (v->float_div_zero == ORACLE_FDZ_UNSIGNED_INF)
            return "SONNX-FLOAT-NAN";
        break;
    default:
        break;
    }
    const oracle_rule_info *info = oracle_rule_info_get(e->rule);
    return info && info->requirement ? info->requirement : "IEEE-DIV-RNE";
}

#define CHUNK 1024

void oracle_expect_n(const oracle_rules *r, const uint64_t *a, const uint64_t *b, size_t n,
                     oracle_elem *out)
{
    float_format f;
    if (!float_format_of(r->dtype, &f) || !oracle_fastpath_enabled(r->dtype)) {
        for (size_t i = 0; i < n; i++)
            oracle_expect(r, a[i], b[i], &out[i]);
        return;
    }
    uint64_t q[CHUNK];
    uint64_t mask = oracle_dtype_mask(r->dtype);
    for (size_t base = 0; base < n; base += CHUNK) {
        size_t m = n - base < CHUNK ? n - base : CHUNK;
        oracle_fastpath_div(r->dtype, a + base, b + base, m, q);
        for (size_t i = 0; i < m; i++)
            if (!expect_float_special(r, &f, a[base + i] & mask, b[base + i] & mask,
                                      &out[base + i]))
                out[base + i].bits = q[i];
    }
}

void oracle_expect_tensor(const oracle_rules *r, const oracle_plan *p, const void *a_data,
                          const void *b_data, oracle_elem *out)
{
    uint64_t av[CHUNK], bv[CHUNK];
    uint64_t idx[DVG_MAX_RANK] = {0};
    uint64_t ao = 0, bo = 0;
    uint32_t rank = p->out.rank;
    size_t fill = 0;
    uint64_t done = 0;
    for (uint64_t i = 0; i < p->count; i++) {
        av[fill] = oracle_load(r->dtype, a_data, ao);
        bv[fill] = oracle_load(r->dtype, b_data, bo);
        if (++fill == CHUNK) {
            oracle_expect_n(r, av, bv, fill, out + done);
            done += fill;
            fill = 0;
        }
        /* Advance the output index (row-major) and both offsets. */
        for (int k = (int)rank - 1; k >= 0; k--) {
            if (++idx[k] < (uint64_t)p->out.dims[k]) {
                ao += (uint64_t)p->a_stride[k];
                bo += (uint64_t)p->b_stride[k];
                break;
            }
            ao -= (uint64_t)p->a_stride[k] * (idx[k] - 1);
            bo -= (uint64_t)p->b_stride[k] * (idx[k] - 1);
            idx[k] = 0;
        }
    }
    if (fill)
        oracle_expect_n(r, av, bv, fill, out + done);
}

int oracle_elem_accepts(uint32_t dtype, const oracle_elem *e, uint64_t actual)
{
    float_format f;
    actual &= oracle_dtype_mask(dtype);
    switch (e->kind) {
    case ORACLE_EXACT:
        return actual == e->bits;
    case ORACLE_ANY_NAN:
        return float_format_of(dtype, &f) && float_class(&f, actual) == FC_NAN;
    case ORACLE_ANY_INF:
        return float_format_of(dtype, &f) && float_class(&f, actual) == FC_INF;
    case ORACLE_UNSPECIFIED:
        return 1;
    default:
        return 0;
    }
}
