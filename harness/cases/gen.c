/* SPDX-License-Identifier: MIT */
/*
 * This file contains the seeded case generator (see gen.h): streams of
 * oracle/prng.h's splitmix64, operand values biased to the oracle's edge
 * values (oracle/edges.h), and shapes drawn for every broadcasting rule,
 * valid and deliberately invalid. Everything is integer arithmetic on
 * bits, so a (seed, stream, index) names the same case on every machine.
 */
#include "harness/cases/gen.h"

#include <stdio.h>
#include <string.h>

#include "oracle/dtype.h"
#include "oracle/edges.h"
#include "oracle/prng.h"
#include "oracle/variant.h"

void gen_seed(gen_rng *g, uint64_t seed, uint64_t stream)
{
    g->state = seed ^ (stream * UINT64_C(0xd1b54a32d192ed03)) ^ UINT64_C(0x6a09e667f3bcc909);
    gen_next(g);
}

/* ---- values ------------------------------------------------------------- */

const uint64_t *gen_edge_values(uint32_t dtype, size_t *n)
{
    return oracle_edge_values(dtype, n);
}

/* What a value draw of one dtype reads, looked up once per tensor rather
 * than once per element. */
typedef struct value_source {
    uint64_t mask;
    const uint64_t *edges;
    size_t n;
    oracle_float_format f;
    int is_float;
} value_source;

static void value_source_init(value_source *v, uint32_t dtype)
{
    v->mask = oracle_dtype_mask(dtype);
    v->edges = gen_edge_values(dtype, &v->n);
    v->f = (oracle_float_format){0, 0};
    v->is_float = oracle_float_format_of(dtype, &v->f);
}

static uint64_t draw_value(gen_rng *g, const value_source *v)
{
    uint64_t mask = v->mask;
    const uint64_t *edges = v->edges;
    oracle_float_format f = v->f;
    uint64_t pick = gen_below(g, 8);
    if (pick < 3)
        return edges[gen_below(g, v->n)];
    if (pick == 3) /* next to an edge value */
        return (edges[gen_below(g, v->n)] + (gen_below(g, 2) ? 1 : mask)) & mask;
    if (pick == 4 && v->is_float) {
        /* Boundary exponent x significand pattern (TestFloat style). */
        uint64_t bias = (UINT64_C(1) << (f.exp_bits - 1)) - 1, emax = (UINT64_C(1) << f.exp_bits) - 1;
        const uint64_t exps[] = {0, 1, 2, bias - f.frac_bits - 1, bias - 1, bias, bias + 1,
                                 bias + f.frac_bits, emax - 2, emax - 1};
        uint64_t fmax = (UINT64_C(1) << f.frac_bits) - 1, r = gen_next(g);
        const uint64_t fracs[] = {0, 1, fmax, fmax - 1, UINT64_C(1) << (f.frac_bits - 1),
                                  (UINT64_C(1) << (f.frac_bits - 1)) + 1, r & fmax, (r & fmax) | 1};
        return oracle_float_pack(f, gen_below(g, 2), exps[gen_below(g, sizeof exps / sizeof exps[0])],
                     fracs[gen_below(g, sizeof fracs / sizeof fracs[0])]);
    }
    if (pick == 5 && !v->is_float) /* small magnitudes: remainders, floor vs trunc */
        return (gen_below(g, 2) ? gen_below(g, 20) : (uint64_t)-(int64_t)gen_below(g, 20)) & mask;
    return gen_next(g) & mask;
}

/* Advances g past `count` values as draw_value would, without making
 * them (gen_skip_operands): each value's pick is drawn, the draws after it
 * only counted, by a table of the pick (no branch to mispredict). */
static void skip_values(gen_rng *g, const value_source *v, uint64_t count)
{
    uint64_t edge = v->n ? 1 : 0, after[8];
    for (uint64_t pick = 0; pick < 8; pick++) {
        uint64_t steps = 1; /* random bits */
        if (pick < 3)
            steps = edge;
        else if (pick == 3)
            steps = edge + 1;
        else if (pick == 4 && v->is_float)
            steps = 4; /* the random fraction, the sign, the exponent, the fraction */
        else if (pick == 5 && !v->is_float)
            steps = 2; /* the sign, the magnitude */
        after[pick] = steps;
    }
    for (uint64_t i = 0; i < count; i++)
        oracle_prng_skip(&g->state, after[gen_below(g, 8)]);
}

uint64_t gen_value(gen_rng *g, uint32_t dtype)
{
    value_source v;
    value_source_init(&v, dtype);
    return draw_value(g, &v);
}

/* ---- shapes ---------------------------------------------------------------- */

static void random_shape(gen_rng *g, oracle_shape *s, uint32_t max_rank, uint64_t max_elements)
{
    memset(s, 0, sizeof *s);
    s->rank = (uint32_t)gen_below(g, max_rank + 1);
    uint64_t count = 1;
    for (uint32_t i = 0; i < s->rank; i++) {
        int64_t d = gen_below(g, 16) == 0 ? 0 : 1 + (int64_t)gen_below(g, 5);
        if (d && count * (uint64_t)d > max_elements)
            d = 1;
        s->dims[i] = d;
        count *= (uint64_t)(d ? d : 1);
    }
}

/* Makes a compatible partner for numpy broadcasting: a suffix of `out`
 * with some dims set to 1. */
static void numpy_partner(gen_rng *g, const oracle_shape *out, oracle_shape *s)
{
    memset(s, 0, sizeof *s);
    uint32_t drop = (uint32_t)gen_below(g, out->rank + 1);
    if (gen_below(g, 2))
        drop = 0;
    s->rank = out->rank - drop;
    for (uint32_t i = 0; i < s->rank; i++)
        s->dims[i] = gen_below(g, 3) == 0 ? 1 : out->dims[i + drop];
}

/* Breaks a valid pair: changes one dimension of B to a size that matches
 * nothing, or adds a dimension. */
static void break_shape(gen_rng *g, oracle_shape *b)
{
    if (b->rank == 0 || (b->rank < DVG_MAX_RANK && gen_below(g, 4) == 0)) {
        b->dims[b->rank++] = 7;
        return;
    }
    b->dims[gen_below(g, b->rank)] = 6 + (int64_t)gen_below(g, 3);
}

static void shapes_numpy(gen_rng *g, divcase *c, int invalid, uint64_t max_elements)
{
    oracle_shape out;
    random_shape(g, &out, 4, max_elements);
    numpy_partner(g, &out, &c->a_shape);
    numpy_partner(g, &out, &c->b_shape);
    if (gen_below(g, 2)) { /* keep one side full so the output is `out` */
        if (gen_below(g, 2))
            c->a_shape = out;
        else
            c->b_shape = out;
    }
    if (invalid)
        break_shape(g, &c->b_shape);
}

static void shapes_equal(gen_rng *g, divcase *c, int invalid, uint64_t max_elements)
{
    random_shape(g, &c->a_shape, 4, max_elements);
    c->b_shape = c->a_shape;
    if (invalid)
        break_shape(g, &c->b_shape);
}

/* B is a window of A starting at `axis`; ones_broadcast: 1s may replace
 * A's dims (pdpd), else B is exact (ONNX legacy). Returns the window rank. */
static uint32_t window_of(gen_rng *g, const oracle_shape *a, uint32_t axis, uint32_t len,
                          int ones_broadcast, oracle_shape *b)
{
    memset(b, 0, sizeof *b);
    b->rank = len;
    for (uint32_t k = 0; k < len; k++)
        b->dims[k] = (ones_broadcast && gen_below(g, 3) == 0) ? 1 : a->dims[axis + k];
    return len;
}

static void shapes_pdpd(gen_rng *g, divcase *c, int invalid, uint64_t max_elements)
{
    random_shape(g, &c->a_shape, 4, max_elements);
    uint32_t ra = c->a_shape.rank;
    uint32_t axis = (uint32_t)gen_below(g, ra + 1);
    uint32_t len = (uint32_t)gen_below(g, ra - axis + 1);
    window_of(g, &c->a_shape, axis, len, 1, &c->b_shape);
    uint32_t trailing = (uint32_t)gen_below(g, 3);
    while (trailing-- && c->b_shape.rank < ra && c->b_shape.rank < DVG_MAX_RANK)
        c->b_shape.dims[c->b_shape.rank++] = 1; /* trimmed by the rule */
    c->attrs.auto_broadcast = DVG_BROADCAST_PDPD;
    if (axis + c->b_shape.rank == ra && gen_below(g, 2))
        c->attrs.axis = -1;
    else
        c->attrs.axis = axis;
    if (invalid) {
        switch (gen_below(g, 3)) {
        case 0: c->attrs.axis = -2 - (int64_t)gen_below(g, 3); break;
        case 1: c->attrs.axis = (int64_t)ra + 1; break;
        default: break_shape(g, &c->b_shape); break;
        }
    }
}

static void shapes_onnx_legacy(gen_rng *g, divcase *c, int invalid, uint64_t max_elements)
{
    random_shape(g, &c->a_shape, 4, max_elements);
    uint32_t ra = c->a_shape.rank;
    c->attrs.broadcast = 1;
    c->attrs.axis_set = 0;
    switch (gen_below(g, 3)) {
    case 0: /* element size 1 */
        memset(&c->b_shape, 0, sizeof c->b_shape);
        c->b_shape.rank = (uint32_t)gen_below(g, ra + 1);
        for (uint32_t k = 0; k < c->b_shape.rank; k++)
            c->b_shape.dims[k] = 1;
        break;
    case 1: { /* suffix */
        uint32_t len = (uint32_t)gen_below(g, ra + 1);
        window_of(g, &c->a_shape, ra - len, len, 0, &c->b_shape);
        break;
    }
    default: { /* window at an explicit axis */
        uint32_t axis = (uint32_t)gen_below(g, ra + 1);
        window_of(g, &c->a_shape, axis, (uint32_t)gen_below(g, ra - axis + 1), 0, &c->b_shape);
        c->attrs.axis_set = 1;
        c->attrs.axis = axis;
        break;
    }
    }
    if (invalid) {
        if (gen_below(g, 3) == 0) {
            c->attrs.axis_set = 1;
            c->attrs.axis = (int64_t)ra + 1;
        } else {
            break_shape(g, &c->b_shape);
        }
    }
}

/* ---- cases ------------------------------------------------------------------ */

/* Elements [0, n) of p drawn one by one, stored by their width. */
static void store_values(gen_rng *g, const value_source *v, uint32_t dtype, uint8_t *p, uint64_t n)
{
    switch (oracle_dtype(dtype)->bits) {
    case 8:
        for (uint64_t i = 0; i < n; i++)
            p[i] = (uint8_t)draw_value(g, v);
        break;
    case 16:
        for (uint64_t i = 0; i < n; i++) {
            uint16_t x = (uint16_t)draw_value(g, v);
            memcpy(p + i * 2, &x, 2);
        }
        break;
    case 32:
        for (uint64_t i = 0; i < n; i++) {
            uint32_t x = (uint32_t)draw_value(g, v);
            memcpy(p + i * 4, &x, 4);
        }
        break;
    case 64:
        for (uint64_t i = 0; i < n; i++) {
            uint64_t x = draw_value(g, v);
            memcpy(p + i * 8, &x, 8);
        }
        break;
    default: /* 4 bits: two to a byte */
        for (uint64_t i = 0; i < n; i++)
            oracle_store(dtype, p, i, draw_value(g, v));
        break;
    }
}

/* Values for elements [0, n) of a dense tensor: drawn one by one up to
 * `period` elements, then that run repeated (a whole number of bytes), so a
 * case of millions of elements costs a memcpy, not millions of draws. */
static void fill_tensor(gen_rng *g, uint32_t dtype, uint8_t *p, uint64_t n, uint64_t period)
{
    uint64_t drawn = n < period ? n : period;
    value_source v;
    value_source_init(&v, dtype);
    if (!p) { /* gen_skip_operands: the same draws, nothing written */
        skip_values(g, &v, drawn);
        return;
    }
    store_values(g, &v, dtype, p, drawn);
    uint64_t run = oracle_nbytes(dtype, drawn), total = oracle_nbytes(dtype, n);
    for (uint64_t at = run; run && at < total; at += run)
        memcpy(p + at, p, (size_t)(total - at < run ? total - at : run));
}

/* Both operands; B's run is `b_period` elements long. */
static void fill_both(gen_rng *g, divcase *c, uint64_t b_period)
{
    uint64_t na = oracle_shape_count(&c->a_shape), nb = oracle_shape_count(&c->b_shape);
    const oracle_dtype_info *d = oracle_dtype(c->dtype);
    uint64_t mask = oracle_dtype_mask(c->dtype);
    fill_tensor(g, c->dtype, c->a, na, GEN_FILL_PERIOD);
    fill_tensor(g, c->dtype, c->b, nb, b_period);
    if (d->kind == DVG_KIND_SIGNED && na == nb && na && gen_below(g, 4) == 0) {
        /* INT_MIN / -1 somewhere (the element-wise pairing of equal shapes),
         * within the common run when there is one, so it repeats with it. */
        int periodic = b_period == GEN_FILL_PERIOD && na > b_period;
        uint64_t i = gen_below(g, periodic ? b_period : na);
        /* periodic: in every period, so the operands still repeat with it
         * (trial_period judges such a case by periods) */
        for (uint64_t at = i; c->a && c->b && at < na; at += periodic ? b_period : na) {
            oracle_store(c->dtype, c->a, at, (mask >> 1) + 1);
            oracle_store(c->dtype, c->b, at, mask);
        }
    }
}

void gen_fill_operands(gen_rng *g, divcase *c)
{
    /* Different periods for A and B (even ones for i4/u4: whole bytes), so
     * the pairs keep changing past the first run. */
    fill_both(g, c, oracle_dtype(c->dtype)->bits < 8 ? GEN_FILL_PERIOD - 6 : GEN_FILL_PERIOD - 5);
}

void gen_fill_operands_periodic(gen_rng *g, divcase *c)
{
    fill_both(g, c, GEN_FILL_PERIOD);
}

void gen_skip_operands(gen_rng *g, const divcase *c, int periodic)
{
    divcase shapes = *c;
    shapes.a = shapes.b = NULL;
    if (periodic)
        gen_fill_operands_periodic(g, &shapes);
    else
        gen_fill_operands(g, &shapes);
}

/* Starts a case: zeroed, named, with the variant's attributes (or `attrs`). */
static const oracle_variant *case_header(uint32_t variant, uint32_t dtype, const dvg_attrs *attrs,
                                         const char *id, divcase *c)
{
    const oracle_variant *v = oracle_variant_get(variant);
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "%s", id);
    c->variant = variant;
    c->dtype = dtype;
    if (attrs)
        c->attrs = *attrs;
    else
        oracle_attrs_default(v, &c->attrs);
    return v;
}

int gen_case(gen_rng *g, uint32_t variant, uint32_t dtype, const dvg_attrs *attrs, int vary_attrs,
             uint32_t invalid_one_in, uint64_t max_elements, const char *id, divcase *c)
{
    const oracle_variant *v = case_header(variant, dtype, attrs, id ? id : "gen", c);
    int invalid = invalid_one_in && gen_below(g, invalid_one_in) == 0;
    if (max_elements < 1)
        max_elements = 1;

    uint32_t rule = v->shape_rule;
    if (rule == ORACLE_SHAPE_BY_ATTR) {
        if (v->attr_keys & ORACLE_ATTR_BROADCAST) {
            if (vary_attrs)
                c->attrs.broadcast = (int32_t)gen_below(g, 2);
            rule = c->attrs.broadcast ? ORACLE_SHAPE_ONNX_LEGACY : ORACLE_SHAPE_EQUAL;
        } else {
            if (vary_attrs) {
                c->attrs.auto_broadcast = (uint32_t)gen_below(g, 3);
                c->attrs.pythondiv = (int32_t)gen_below(g, 2);
            }
            rule = c->attrs.auto_broadcast == DVG_BROADCAST_NONE    ? ORACLE_SHAPE_EQUAL
                   : c->attrs.auto_broadcast == DVG_BROADCAST_PDPD ? ORACLE_SHAPE_PDPD
                                                                    : ORACLE_SHAPE_NUMPY;
        }
    }
    switch (rule) {
    case ORACLE_SHAPE_NUMPY: shapes_numpy(g, c, invalid, max_elements); break;
    case ORACLE_SHAPE_PDPD: shapes_pdpd(g, c, invalid, max_elements); break;
    case ORACLE_SHAPE_ONNX_LEGACY: shapes_onnx_legacy(g, c, invalid, max_elements); break;
    default: shapes_equal(g, c, invalid, max_elements); break;
    }
    /* Keep within the element budget whatever the shapes became. */
    if (oracle_shape_count(&c->a_shape) > max_elements || oracle_shape_count(&c->b_shape) > max_elements) {
        memset(&c->a_shape, 0, sizeof c->a_shape);
        c->b_shape = c->a_shape;
    }
    if (divcase_alloc(c, max_elements * 2 + 16))
        return -1;
    gen_fill_operands(g, c);
    return 0;
}

int gen_edge_case(uint32_t variant, uint32_t dtype, const dvg_attrs *attrs, const char *id,
                  divcase *c)
{
    case_header(variant, dtype, attrs, id ? id : "edges", c);
    size_t n;
    const uint64_t *edges = gen_edge_values(dtype, &n);
    c->a_shape.rank = c->b_shape.rank = 1;
    c->a_shape.dims[0] = c->b_shape.dims[0] = (int64_t)(n * n);
    if (divcase_alloc(c, n * n))
        return -1;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            oracle_store(dtype, c->a, i * n + j, edges[i]);
            oracle_store(dtype, c->b, i * n + j, edges[j]);
        }
    return 0;
}
