/* SPDX-License-Identifier: MIT */
/*
 * This file contains the shape-path walker (see shapes.h): the list of
 * shapes a kernel engineer who has debugged tail loops, broadcast fast
 * paths and thread partitions tests first, built per shape rule, each
 * with its path class in words, and the case made from one of them.
 *
 * The families, in list order:
 *   inner   last dimension 1..2L+1 for L = 4..64 and L*unroll-1..+1 up to
 *           1025, equal shapes at rank 1, 3 and one of 2..7 (rank 8 for
 *           the unroll sizes), and a row of that length broadcast;
 *   bcast   every broadcast class of the rule at a few inner sizes: scalar
 *           A or B, row, column, outer product, middle and leading 1s,
 *           both sides broadcasting, size 0 at each axis, rank 7 and 8
 *           with each axis broadcast in turn, pdpd windows at every axis,
 *           ONNX legacy suffix, axis and single-element forms;
 *   align   1-D equal shapes with A, B and C placed by the case's data
 *           offsets (divcase.offsets) at every multiple of the element
 *           size from a 64-byte line: all three at the same offset, and
 *           rotating so that A, B and C differ in each case;
 *   tier    2^k - 1, 2^k and 2^k + 1 elements up to 2^16 + 1 in every
 *           claim; one larger tier per claim, rotating with the claim
 *           (2^17 .. 2^20, and 2^21 .. 2^24 in one claim of eight), so a
 *           certification walks every tier at a bounded cost;
 *   tile    the last two dims both >= 16, one a multiple of 8 and 16 and
 *           the other not (20x16, 16x20, 24x17, ...), equal shapes and
 *           each broadcast class of the rule: an 8x8 or 16x16 tiling's
 *           remainder rows and columns;
 *   large   per broadcast rule one case above 2^22 elements (a threaded
 *           path's threshold): equal shapes, a row or a one-element B,
 *           the form rotating with the claim; periodic, so judged by
 *           periods;
 *   divisor a one-element B (a splat under equal shapes) of +-1, +-2^k
 *           and small odd values over a fixed table of dividends, negative
 *           ones included, under each integer rounding attribute: the
 *           shift and multiply fast paths of a constant divisor.
 */
#include "harness/cases/shapes.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"

/* Tiers above this list one size each (2^k - 1, 2^k or 2^k + 1). */
#define FULL_TIERS 16u

/* The vector widths and unrolls the inner sizes walk around. */
static const uint32_t lanes[] = {4, 8, 16, 32, 64};
static const uint32_t unrolls[] = {2, 3, 4, 8, 16};

/* Appends a spec; returns it zeroed (NULL out of memory). */
static shapes_spec *add(shapes_list *l)
{
    if (dvg_grow((void **)&l->spec, &l->cap, l->n + 1, sizeof *l->spec))
        return NULL;
    shapes_spec *s = &l->spec[l->n++];
    memset(s, 0, sizeof *s);
    return s;
}

static void set_shape(oracle_shape *s, uint32_t rank, const int64_t *dims)
{
    memset(s, 0, sizeof *s);
    s->rank = rank;
    for (uint32_t k = 0; k < rank; k++)
        s->dims[k] = dims[k];
}

/* Appends (a, b) with its path text. 0 or -1. */
static int put(shapes_list *l, const oracle_shape *a, const oracle_shape *b, const char *fmt, ...)
{
    shapes_spec *s = add(l);
    if (!s)
        return -1;
    s->a = *a;
    s->b = *b;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->what, sizeof s->what, fmt, ap);
    va_end(ap);
    return 0;
}

/* The last put spec, for attributes. */
static shapes_spec *last(shapes_list *l)
{
    return &l->spec[l->n - 1];
}

/* A shape of `rank` with inner (last) dimension `inner` and small outer
 * dimensions: 2 outermost and next to the inner one, 1 between. */
static void small_outer(oracle_shape *s, uint32_t rank, int64_t inner)
{
    memset(s, 0, sizeof *s);
    s->rank = rank;
    for (uint32_t k = 0; k + 1 < rank; k++)
        s->dims[k] = (k == 0 || k + 2 == rank) ? 2 : 1;
    if (rank)
        s->dims[rank - 1] = inner;
}

/* 1 when x is already among the first n of v. */
static int seen(const uint32_t *v, size_t n, uint32_t x)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == x)
            return 1;
    return 0;
}

/* The inner sizes: 1..2*64+1, then L*u - 1, L*u, L*u + 1 up to 1025.
 * *n_small receives how many are 1..129. Returns the count. */
static size_t inner_sizes(uint32_t *v, size_t cap, size_t *n_small)
{
    size_t n = 0;
    uint32_t top = 2 * lanes[sizeof lanes / sizeof lanes[0] - 1] + 1;
    for (uint32_t s = 1; s <= top && n < cap; s++)
        v[n++] = s;
    *n_small = n;
    for (size_t i = 0; i < sizeof lanes / sizeof lanes[0]; i++)
        for (size_t j = 0; j < sizeof unrolls / sizeof unrolls[0]; j++) {
            uint32_t m = lanes[i] * unrolls[j];
            for (uint32_t d = m - 1; d <= m + 1; d++)
                if (d <= 1025 && !seen(v, n, d) && n < cap)
                    v[n++] = d;
        }
    return n;
}

/* Which broadcasting the spec list is built for. */
enum { R_EQUAL, R_NUMPY, R_PDPD, R_LEGACY };

static const char *rule_name(int rule)
{
    switch (rule) {
    case R_NUMPY: return "numpy";
    case R_PDPD: return "pdpd";
    case R_LEGACY: return "onnx-legacy";
    default: return "equal";
    }
}

/* Sets the attributes that select `rule` on the last spec, for variants
 * whose rule is chosen by attributes. */
static void select_rule(shapes_list *l, const oracle_variant *v, int rule, int64_t axis)
{
    shapes_spec *s = last(l);
    if (v->shape_rule != ORACLE_SHAPE_BY_ATTR && v->shape_rule != ORACLE_SHAPE_PDPD &&
        v->shape_rule != ORACLE_SHAPE_ONNX_LEGACY)
        return;
    s->set_attrs = 1;
    s->axis = -1;
    if (v->attr_keys & ORACLE_ATTR_BROADCAST) {
        s->broadcast = rule == R_LEGACY;
        s->axis_set = axis != -1;
        s->axis = axis;
    } else {
        s->auto_broadcast = rule == R_PDPD    ? DVG_BROADCAST_PDPD
                            : rule == R_NUMPY ? DVG_BROADCAST_NUMPY
                                              : DVG_BROADCAST_NONE;
        s->axis = axis;
    }
}

/* Equal shapes and row broadcasts across the inner sizes. */
static int family_inner(shapes_list *l, const oracle_variant *v, int rule)
{
    uint32_t sizes[256];
    size_t n_small, n = inner_sizes(sizes, 256, &n_small);
    const char *rn = rule_name(rule);
    for (size_t i = 0; i < n; i++) {
        int64_t s = sizes[i];
        uint32_t ranks[4] = {1, 3, 2 + (uint32_t)(i % 6), 8};
        size_t n_ranks = i < n_small ? 3 : 4;
        for (size_t r = 0; r < n_ranks; r++) {
            oracle_shape a;
            small_outer(&a, ranks[r], s);
            if (put(l, &a, &a, "inner %lld, rank %u, %s equal shapes", (long long)s, ranks[r], rn))
                return -1;
            select_rule(l, v, rule, -1);
        }
        if (rule == R_EQUAL || s < 2)
            continue;
        /* B one row (all rules), A one row (numpy). */
        uint32_t rank = 2 + (uint32_t)(i % 3);
        oracle_shape a, b;
        small_outer(&a, rank, s);
        a.dims[0] = 3;
        small_outer(&b, 1, s);
        if (put(l, &a, &b, "inner %lld, rank %u, %s row broadcast (B one row)", (long long)s, rank,
                rn))
            return -1;
        select_rule(l, v, rule, -1);
        if (rule == R_NUMPY &&
            put(l, &b, &a, "inner %lld, rank %u, numpy row broadcast (A one row)", (long long)s,
                rank))
            return -1;
    }
    return 0;
}

/* The numpy broadcast classes at inner size s. */
static int family_numpy(shapes_list *l, const oracle_variant *v, int64_t s)
{
    oracle_shape a, b;
    const long long ls = (long long)s;
#define PUT(ra, da, rb, db, ...)                                                                  \
    do {                                                                                          \
        const int64_t xa[] = {da}, xb[] = {db};                                                   \
        set_shape(&a, ra, xa);                                                                    \
        set_shape(&b, rb, xb);                                                                    \
        if (put(l, &a, &b, __VA_ARGS__))                                                          \
            return -1;                                                                            \
        select_rule(l, v, R_NUMPY, -1);                                                           \
    } while (0)
#define D(...) __VA_ARGS__
    PUT(3, D(2, 3, s), 0, D(0), "inner %lld, numpy scalar B (rank 0)", ls);
    PUT(0, D(0), 3, D(2, 3, s), "inner %lld, numpy scalar A (rank 0)", ls);
    PUT(3, D(2, 3, s), 3, D(1, 1, 1), "inner %lld, numpy scalar B (1,1,1)", ls);
    PUT(1, D(1), 2, D(3, s), "inner %lld, numpy scalar A (1)", ls);
    PUT(2, D(5, s), 2, D(5, 1), "inner %lld, numpy column broadcast (B (n,1))", ls);
    PUT(2, D(5, 1), 2, D(5, s), "inner %lld, numpy column broadcast (A (n,1))", ls);
    PUT(2, D(5, 1), 2, D(1, s), "inner %lld, numpy outer product (A (n,1) / B (1,m))", ls);
    PUT(2, D(5, 1), 1, D(s), "inner %lld, numpy outer product (A (n,1) / B (m))", ls);
    PUT(2, D(1, s), 2, D(5, 1), "inner %lld, numpy outer product (A (1,m) / B (n,1))", ls);
    PUT(4, D(2, 3, 4, s), 4, D(2, 1, 4, s), "inner %lld, numpy middle 1 (B)", ls);
    PUT(4, D(2, 1, 1, s), 4, D(2, 3, 4, s), "inner %lld, numpy middle 1s (A)", ls);
    PUT(3, D(2, 3, s), 5, D(1, 1, 2, 3, s), "inner %lld, numpy leading 1s (B, rank 5)", ls);
    PUT(4, D(1, 1, 3, s), 2, D(3, s), "inner %lld, numpy leading 1s (A, rank 4)", ls);
    PUT(3, D(2, 1, s), 3, D(1, 3, s), "inner %lld, numpy both sides broadcasting", ls);
    PUT(3, D(2, 1, 1), 3, D(1, 3, s), "inner %lld, numpy both sides broadcasting (A column)", ls);
    PUT(3, D(4, 1, s), 2, D(3, 1), "inner %lld, numpy both sides broadcasting (B column)", ls);
#undef PUT
#undef D
    return 0;
}

/* Size 0 at each axis, and rank 7 and 8 with each axis broadcast in turn. */
static int family_axes(shapes_list *l, const oracle_variant *v, int rule)
{
    const char *rn = rule_name(rule);
    for (uint32_t k = 0; k < 3; k++) {
        oracle_shape a;
        small_outer(&a, 3, 5);
        a.dims[k] = 0;
        if (put(l, &a, &a, "size 0 at axis %u of 3, %s equal shapes", k, rn))
            return -1;
        select_rule(l, v, rule, -1);
        if (rule == R_NUMPY) {
            oracle_shape b = a;
            b.dims[k] = 1;
            if (put(l, &a, &b, "size 0 at axis %u of 3, numpy B broadcast 1 there", k))
                return -1;
            if (put(l, &b, &a, "size 0 at axis %u of 3, numpy A broadcast 1 there", k))
                return -1;
        }
    }
    if (rule != R_NUMPY)
        return 0;
    for (uint32_t rank = 7; rank <= 8; rank++)
        for (uint32_t k = 0; k < rank; k++) {
            oracle_shape a, b;
            memset(&a, 0, sizeof a);
            a.rank = rank;
            for (uint32_t j = 0; j < rank; j++)
                a.dims[j] = j + 1 == rank ? 3 : 2;
            b = a;
            b.dims[k] = 1;
            if (put(l, &a, &b, "rank %u, numpy B broadcast at axis %u", rank, k) ||
                put(l, &b, &a, "rank %u, numpy A broadcast at axis %u", rank, k))
                return -1;
            select_rule(l, v, R_NUMPY, -1);
        }
    return 0;
}

/* pdpd: B a window of A at every axis, exact and with 1s, for A of rank
 * 1..5 with last dimension s. */
static int family_pdpd(shapes_list *l, const oracle_variant *v, int64_t s)
{
    for (uint32_t ra = 1; ra <= 5; ra++) {
        oracle_shape a;
        small_outer(&a, ra, s);
        if (ra > 2)
            a.dims[1] = 3;
        for (uint32_t axis = 0; axis < ra; axis++)
            for (uint32_t len = 1; axis + len <= ra; len++)
                for (int ones = 0; ones < 2; ones++) {
                    oracle_shape b;
                    memset(&b, 0, sizeof b);
                    b.rank = len;
                    for (uint32_t k = 0; k < len; k++)
                        b.dims[k] = (ones && k % 2 == 0) ? 1 : a.dims[axis + k];
                    if (put(l, &a, &b, "inner %lld, rank %u, pdpd window at axis %u, length %u%s",
                            (long long)s, ra, axis, len, ones ? " with 1s" : ""))
                        return -1;
                    select_rule(l, v, R_PDPD, axis + len == ra && !ones ? -1 : (int64_t)axis);
                }
    }
    return 0;
}

/* ONNX legacy broadcast=1: suffix windows, windows at every axis, and B of
 * one element. */
static int family_legacy(shapes_list *l, const oracle_variant *v, int64_t s)
{
    for (uint32_t ra = 1; ra <= 4; ra++) {
        oracle_shape a, b;
        small_outer(&a, ra, s);
        if (ra > 2)
            a.dims[1] = 3;
        for (uint32_t axis = 0; axis < ra; axis++)
            for (uint32_t len = 1; axis + len <= ra; len++) {
                memset(&b, 0, sizeof b);
                b.rank = len;
                for (uint32_t k = 0; k < len; k++)
                    b.dims[k] = a.dims[axis + k];
                if (put(l, &a, &b, "inner %lld, rank %u, onnx-legacy window at axis %u, length %u",
                        (long long)s, ra, axis, len))
                    return -1;
                select_rule(l, v, R_LEGACY, axis);
                if (axis + len == ra) {
                    if (put(l, &a, &b, "inner %lld, rank %u, onnx-legacy suffix, length %u",
                            (long long)s, ra, len))
                        return -1;
                    select_rule(l, v, R_LEGACY, -1);
                }
            }
        memset(&b, 0, sizeof b);
        b.rank = 1;
        b.dims[0] = 1;
        if (put(l, &a, &b, "inner %lld, rank %u, onnx-legacy B of one element", (long long)s, ra))
            return -1;
        select_rule(l, v, R_LEGACY, -1);
    }
    return 0;
}

/* Appends 1-D equal shapes of n elements with A, B and C at byte offsets
 * a, b and c from a 64-byte line. 0 or -1. */
static int put_offsets(shapes_list *l, const oracle_variant *v, uint64_t n, uint32_t a,
                       uint32_t b, uint32_t c)
{
    oracle_shape s;
    small_outer(&s, 1, (int64_t)n);
    if (put(l, &s, &s, "data at 64-byte line + A %u, B %u, C %u, %llu elements", a, b, c,
            (unsigned long long)n))
        return -1;
    select_rule(l, v, R_EQUAL, -1);
    shapes_spec *sp = last(l);
    sp->offsets.set = 1;
    sp->offsets.at[DIVCASE_A] = (uint8_t)a;
    sp->offsets.at[DIVCASE_B] = (uint8_t)b;
    sp->offsets.at[DIVCASE_C] = (uint8_t)c;
    return 0;
}

/* Data pointers at every offset from a 64-byte line that is a multiple of
 * the element size (the n offsets 0, step, ..): A, B and C together at
 * each offset but 0, then rotating, A at offset j, B and C about a third
 * and two thirds of the line further, so each case misaligns the three
 * differently. Lengths of 65 to 80 elements (a vector loop's body and
 * tail on either side of the misaligned head). */
static int family_align(shapes_list *l, const oracle_variant *v, uint32_t dtype)
{
    uint32_t bits = oracle_dtype(dtype)->bits;
    uint32_t step = bits < 8 ? 1 : bits / 8;
    uint32_t n = 64 / step, r1 = (n * 17 + 63) / 64, r2 = n * 42 / 64, i = 0;
    for (uint32_t j = 1; j < n; j++, i++)
        if (put_offsets(l, v, 65 + i % 16, j * step, j * step, j * step))
            return -1;
    for (uint32_t j = 0; j < n; j++, i++)
        if (put_offsets(l, v, 65 + i % 16, j * step, (j + r1) % n * step, (j + r2) % n * step))
            return -1;
    return 0;
}

/* 2^k - 1, 2^k, 2^k + 1 elements, 1-D, for k up to FULL_TIERS; above it
 * one tier per claim and one of its three sizes, rotating with (variant,
 * dtype): 17 .. 20 in seven claims of eight, 21 .. 24 in the eighth, so a
 * certification walks every tier and costs about 2^20 elements a claim
 * (judging runs at 5 to 10 M elements/s). */
static int family_tiers(shapes_list *l, const oracle_variant *v, uint32_t variant,
                        uint32_t dtype, uint32_t max_tier)
{
    uint32_t h = variant * 7 + dtype;
    uint32_t big = h % 8 == 0 ? FULL_TIERS + 5 + (h / 8) % 4 : FULL_TIERS + 1 + h % 4;
    int big_d = (int)((variant + dtype) % 3) - 1;
    if (big > max_tier)
        big = max_tier;
    for (uint32_t k = 1; k <= max_tier; k++)
        for (int d = -1; d <= 1; d++) {
            if (k > FULL_TIERS && (k != big || d != big_d))
                continue;
            oracle_shape a;
            small_outer(&a, 1, (int64_t)((UINT64_C(1) << k) + (uint64_t)(int64_t)d));
            if (put(l, &a, &a, "size tier 2^%u%s elements", k, d < 0 ? " - 1" : d > 0 ? " + 1" : ""))
                return -1;
            select_rule(l, v, R_EQUAL, -1);
        }
    return 0;
}

/* Tile sizes: the second-to-last dim not a multiple of 8 (or of 16) while
 * the last is one of both, and the converse. */
static const int64_t tiles[][2] = {{20, 16}, {16, 20}, {24, 17}, {17, 24}, {36, 32},
                                   {32, 36}, {23, 48}, {48, 23}, {40, 16}, {16, 40}};

/* 2-D tiles: both of the last two dims >= 16, one of them not a multiple
 * of a tile height, at rank 2 and 3, under `rule`: equal shapes, and its
 * broadcast classes over the tile (a row, a column, an outer product, the
 * tile itself under a leading dimension). */
static int family_tiles(shapes_list *l, const oracle_variant *v, int rule)
{
    const char *rn = rule_name(rule);
    for (size_t i = 0; i < sizeof tiles / sizeof tiles[0]; i++) {
        int64_t h = tiles[i][0], w = tiles[i][1];
        const long long lh = (long long)h, lw = (long long)w;
        oracle_shape a, b;
        const int64_t d3[] = {2, h, w}, d2[] = {h, w}, row[] = {w}, col[] = {h, 1},
                      col1[] = {h}, op_a[] = {h, 1}, op_b[] = {1, w};
        for (uint32_t rank = 2; rank <= 3; rank++) { /* A ends as (2, h, w) */
            set_shape(&a, rank, rank == 2 ? d2 : d3);
            if (put(l, &a, &a, "tile %lldx%lld, rank %u, %s equal shapes", lh, lw, rank, rn))
                return -1;
            select_rule(l, v, rule, -1);
        }
        if (rule == R_EQUAL)
            continue;
        /* B the tile under A's leading dimension (a suffix window). */
        set_shape(&b, 2, d2);
        if (put(l, &a, &b, "tile %lldx%lld, rank 3, %s B the tile (leading dim broadcast)", lh,
                lw, rn))
            return -1;
        select_rule(l, v, rule, -1);
        /* B one row of the tile. */
        set_shape(&b, 1, row);
        if (put(l, &a, &b, "tile %lldx%lld, rank 3, %s row broadcast (B one row)", lh, lw, rn))
            return -1;
        select_rule(l, v, rule, -1);
        /* B one column: numpy (h,1); pdpd and legacy (h) at axis 1. */
        if (rule == R_NUMPY) {
            set_shape(&b, 2, col);
            if (put(l, &a, &b, "tile %lldx%lld, rank 3, numpy column broadcast (B (n,1))", lh,
                    lw))
                return -1;
            set_shape(&a, 2, op_a);
            set_shape(&b, 2, op_b);
            if (put(l, &a, &b, "tile %lldx%lld, numpy outer product (A (n,1) / B (1,m))", lh, lw))
                return -1;
        } else {
            set_shape(&b, 1, col1);
            if (put(l, &a, &b, "tile %lldx%lld, rank 3, %s column window at axis 1", lh, lw, rn))
                return -1;
            select_rule(l, v, rule, 1);
        }
    }
    return 0;
}

/* Large code paths: above 2^22 elements (SHAPES_LARGE_TIER), where a
 * kernel goes threaded, one case per claim and rule: under R_EQUAL
 * (broadcast=0, auto_broadcast=none, sonnx-div) equal shapes of 2^22 + 1
 * elements; under a broadcasting rule one of three forms, rotating with
 * (variant, dtype, rule) - equal shapes (only where the variant has no
 * R_EQUAL of its own), B one row of 4096 under A (1025, 4096), B of one
 * element - so the claims together walk every form. A and B repeat with
 * GEN_FILL_PERIOD elements and B's element count divides it, so output
 * element i depends only on i mod the period: judged by periods
 * (trial.c), about a memcmp each. */
static int family_large(shapes_list *l, const oracle_variant *v, uint32_t variant,
                        uint32_t dtype, int rule)
{
    const char *rn = rule_name(rule);
    const int64_t big = (INT64_C(1) << SHAPES_LARGE_TIER) + 1, rows = big / GEN_FILL_PERIOD + 1;
    const int64_t da[] = {big}, dr[] = {rows, GEN_FILL_PERIOD}, drow[] = {GEN_FILL_PERIOD},
                  done[] = {1};
    int has_equal = v->shape_rule == ORACLE_SHAPE_BY_ATTR;
    uint32_t form = rule == R_EQUAL ? 0
                    : has_equal     ? 1 + (variant * 7 + dtype + (uint32_t)rule) % 2
                                    : (variant * 7 + dtype + (uint32_t)rule) % 3;
    oracle_shape a, b;
    set_shape(&a, 1, da);
    int rc;
    if (form == 0) {
        rc = put(l, &a, &a, "large, %lld elements, %s equal shapes", (long long)big, rn);
    } else if (form == 1) {
        set_shape(&a, 2, dr);
        set_shape(&b, 1, drow);
        rc = put(l, &a, &b, "large, %lld elements, %s row broadcast (B one row of %u)",
                 (long long)(rows * GEN_FILL_PERIOD), rn, GEN_FILL_PERIOD);
    } else {
        set_shape(&b, 1, done);
        rc = put(l, &a, &b, "large, %lld elements, %s B of one element", (long long)big, rn);
    }
    if (rc)
        return -1;
    select_rule(l, v, rule, -1);
    last(l)->periodic = 1;
    return 0;
}

/* The integer rounding attributes a variant has, as (set, pythondiv,
 * int_rounding) triples: OpenVINO m_pythondiv true and false, sonnx-div
 * int_rounding floor and trunc; one default entry for the others and for
 * float dtypes, which no rounding attribute touches. Returns the count. */
static int roundings(const oracle_variant *v, uint32_t dtype, int32_t pythondiv[2],
                     uint32_t int_rounding[2])
{
    if (oracle_dtype(dtype)->kind == DVG_KIND_FLOAT)
        return 0;
    if (v->attr_keys & ORACLE_ATTR_PYTHONDIV) {
        pythondiv[0] = 1, pythondiv[1] = 0;
        int_rounding[0] = int_rounding[1] = DVG_ROUND_VARIANT_DEFAULT;
        return 2;
    }
    if (v->attr_keys & ORACLE_ATTR_INT_ROUNDING) {
        pythondiv[0] = pythondiv[1] = 1;
        int_rounding[0] = DVG_ROUND_FLOOR, int_rounding[1] = DVG_ROUND_TRUNC;
        return 2;
    }
    return 0;
}

/* The divisors of a dtype: +-1, +-2^k for k = 1..8 and about half and all
 * of the dtype's width (exact in floats too), and +-3, +-5, +-7; within
 * the dtype's range (unsigned: the positive ones). Returns the count. */
static size_t divisors(uint32_t dtype, int64_t *out, size_t cap)
{
    const oracle_dtype_info *d = oracle_dtype(dtype);
    int sign = d->kind != DVG_KIND_UNSIGNED;
    int top = d->kind == DVG_KIND_FLOAT ? 16 : (int)d->bits - 1;
    int ks[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, top / 2, top / 2 + 1, top - 1, top};
    size_t n = 0;
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        int k = ks[i];
        if (k > top || (i > 0 && k <= ks[i - 1]))
            continue;
        /* signed integers: +2^(bits-1) is out of range, -2^(bits-1) is MIN */
        /* through uint64_t: 2^63 (u64's top) and -2^63 (i64's MIN) have
         * no int64_t value to shift to; their bits are what is meant */
        if (n < cap && !(d->kind == DVG_KIND_SIGNED && k == top))
            out[n++] = (int64_t)(UINT64_C(1) << k);
        if (sign && n < cap)
            out[n++] = (int64_t)(UINT64_C(0) - (UINT64_C(1) << k));
    }
    static const int64_t odd[] = {3, 5, 7};
    for (size_t i = 0; i < 3; i++) {
        if (n < cap)
            out[n++] = odd[i];
        if (sign && n < cap)
            out[n++] = -odd[i];
    }
    return n;
}

/* The bits of integer value x in a float format (exact while x has at
 * most frac_bits + 1 significant bits; truncated beyond). */
static uint64_t float_of_int(oracle_float_format f, int64_t x)
{
    uint64_t m = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
    if (!m)
        return oracle_float_pack(f, x < 0, 0, 0);
    int e = 63;
    while (!((m >> e) & 1))
        e--;
    uint64_t frac = m - (UINT64_C(1) << e);
    frac = e <= f.frac_bits ? frac << (f.frac_bits - e) : frac >> (e - f.frac_bits);
    return oracle_float_pack(f, x < 0, (uint64_t)(e + (1 << (f.exp_bits - 1)) - 1), frac);
}

/* The bits of integer value x in dtype (integers: two's complement). */
static uint64_t value_bits(uint32_t dtype, int64_t x)
{
    oracle_float_format f;
    if (oracle_float_format_of(dtype, &f))
        return float_of_int(f, x);
    return (uint64_t)x & oracle_dtype_mask(dtype);
}

/* The dividends of the scalar-divisor family into bits (NULL: counted
 * only): +-(2^k - 1), +-2^k, +-(2^k + 1) for every k the dtype holds
 * (floats: exactly, k up to 16), and for integers the extremes MIN, MIN +
 * 1, MAX - 1, MAX (unsigned: the non-negative ones, and 2^(bits-1) +-1).
 * Returns the count. */
static size_t dividends(uint32_t dtype, uint64_t *bits)
{
    const oracle_dtype_info *d = oracle_dtype(dtype);
    oracle_float_format f;
    int is_float = oracle_float_format_of(dtype, &f);
    int top = is_float ? (f.frac_bits < 16 ? f.frac_bits : 16) : (int)d->bits - 2;
    int sign = d->kind != DVG_KIND_UNSIGNED;
    size_t n = 0;
#define DIVIDEND(x) (bits ? (void)(bits[n] = value_bits(dtype, (x))) : (void)0, n++)
    for (int k = 0; k <= top; k++)
        for (int64_t e = -1; e <= 1; e++) {
            int64_t x = (INT64_C(1) << k) + e;
            DIVIDEND(x);
            if (sign)
                DIVIDEND(-x);
        }
    if (!is_float) {
        uint64_t mask = oracle_dtype_mask(dtype), half = (mask >> 1) + 1;
        uint64_t ext[] = {half, half + 1, half - 1, mask - 1, mask}; /* MIN, MIN + 1, MAX, .. */
        for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
            DIVIDEND((int64_t)ext[i]);
    }
#undef DIVIDEND
    return n;
}

/* Scalar divisors under `rule`: B of one element (numpy: rank 0, (1) and
 * (1,1) in turn; pdpd: (1) at the last axis; legacy: (1)), or under equal
 * shapes a splat of it, over A holding the dividend table, once per
 * integer rounding attribute. */
static int family_divisor(shapes_list *l, const oracle_variant *v, uint32_t dtype, int rule)
{
    int64_t dv[64];
    size_t nd = divisors(dtype, dv, 64);
    int32_t pyd[2] = {1, 1};
    uint32_t ir[2] = {0, 0};
    int nr = roundings(v, dtype, pyd, ir);
    const char *rn = rule_name(rule);
    for (int r = 0; r < (nr ? nr : 1); r++)
        for (size_t i = 0; i < nd; i++) {
            oracle_shape a, b;
            const int64_t da[] = {1}, d11[] = {1, 1};
            set_shape(&a, 1, da);
            a.dims[0] = (int64_t)dividends(dtype, NULL);
            set_shape(&b, 1, da);
            const char *form = "one element (1)";
            if (rule == R_NUMPY && i % 3 == 1) {
                set_shape(&b, 0, da);
                form = "one element (rank 0)";
            } else if (rule == R_NUMPY && i % 3 == 2) {
                set_shape(&b, 2, d11);
                form = "one element (1,1)";
            } else if (rule == R_EQUAL) {
                b = a;
                form = "splat";
            }
            char attr[40] = "";
            if (nr && (v->attr_keys & ORACLE_ATTR_PYTHONDIV))
                snprintf(attr, sizeof attr, ", m_pythondiv=%s", pyd[r] ? "true" : "false");
            else if (nr)
                snprintf(attr, sizeof attr, ", int_rounding=%s",
                         ir[r] == DVG_ROUND_TRUNC ? "trunc" : "floor");
            if (put(l, &a, &b, "scalar divisor %lld, %s B %s%s", (long long)dv[i], rn, form, attr))
                return -1;
            select_rule(l, v, rule, -1);
            shapes_spec *s = last(l);
            s->divisor_set = 1;
            s->divisor = dv[i];
            if (nr) {
                s->set_rounding = 1;
                s->pythondiv = pyd[r];
                s->int_rounding = ir[r];
            }
        }
    return 0;
}

int shapes_build(uint32_t variant, uint32_t dtype, uint32_t max_tier, shapes_list *l)
{
    const oracle_variant *v = oracle_variant_get(variant);
    memset(l, 0, sizeof *l);
    if (max_tier > SHAPES_MAX_TIER)
        max_tier = SHAPES_MAX_TIER;
    /* The broadcasting rules the variant can be asked for. */
    int rules[3], n_rules = 0;
    switch (v->shape_rule) {
    case ORACLE_SHAPE_NUMPY: rules[n_rules++] = R_NUMPY; break;
    case ORACLE_SHAPE_PDPD: rules[n_rules++] = R_PDPD; break;
    case ORACLE_SHAPE_ONNX_LEGACY: rules[n_rules++] = R_LEGACY; break;
    case ORACLE_SHAPE_BY_ATTR:
        if (v->attr_keys & ORACLE_ATTR_BROADCAST) {
            rules[n_rules++] = R_LEGACY;
        } else {
            rules[n_rules++] = R_NUMPY;
            rules[n_rules++] = R_PDPD;
        }
        break;
    default: rules[n_rules++] = R_EQUAL; break;
    }
    static const int64_t bcast_inner[] = {1, 7, 17, 33, 65};
    int rc = family_inner(l, v, rules[0]);
    for (int r = 0; r < n_rules && !rc; r++) {
        for (size_t i = 0; i < sizeof bcast_inner / sizeof bcast_inner[0] && !rc; i++) {
            int64_t s = bcast_inner[i];
            if (rules[r] == R_NUMPY)
                rc = family_numpy(l, v, s);
            else if (rules[r] == R_PDPD)
                rc = family_pdpd(l, v, s);
            else if (rules[r] == R_LEGACY)
                rc = family_legacy(l, v, s);
        }
        if (!rc)
            rc = family_axes(l, v, rules[r]);
    }
    if (!rc)
        rc = family_align(l, v, dtype);
    if (!rc)
        rc = family_tiers(l, v, variant, dtype, max_tier);
    /* Every rule the variant can be asked for, equal shapes included (the
     * by-attribute variants' broadcast=0 and auto_broadcast=none): the new
     * families walk each of them, as a kernel has a path per rule. */
    int all[4], n_all = 0;
    if (v->shape_rule == ORACLE_SHAPE_BY_ATTR)
        all[n_all++] = R_EQUAL;
    for (int r = 0; r < n_rules; r++)
        all[n_all++] = rules[r];
    for (int r = 0; r < n_all && !rc; r++)
        rc = family_tiles(l, v, all[r]);
    for (int r = 0; r < n_all && !rc && max_tier >= SHAPES_LARGE_TIER; r++)
        rc = family_large(l, v, variant, dtype, all[r]);
    for (int r = 0; r < n_all && !rc; r++)
        rc = family_divisor(l, v, dtype, all[r]);
    if (rc)
        shapes_list_free(l);
    return rc;
}

void shapes_list_free(shapes_list *l)
{
    if (!l)
        return;
    dvg_free(l->spec);
    memset(l, 0, sizeof *l);
}

/* ---- drawn shapes (the fuzz campaign and the fuzz decoder) ----------------- */

/* The largest budget a draw honours: dimensions stay far from overflow. */
#define DRAW_MAX_ELEMENTS (UINT64_C(1) << 40)

/* A choice in [0, n). */
static uint64_t pick(const shapes_chooser *ch, uint64_t n)
{
    uint64_t k = ch->below(ch->ctx, n ? n : 1);
    return k < n ? k : 0;
}

/* Uniform in [lo, hi]. */
static uint64_t between(const shapes_chooser *g, uint64_t lo, uint64_t hi)
{
    return lo + pick(g, hi - lo + 1);
}

/* An inner size: around a vector width and unroll, or log-uniform up to
 * `max`, each +-1. */
static int64_t draw_inner(const shapes_chooser *g, uint64_t max)
{
    uint64_t base;
    if (pick(g, 2)) {
        base = (uint64_t)lanes[pick(g, sizeof lanes / sizeof lanes[0])] *
               (pick(g, 2) ? 1 : unrolls[pick(g, sizeof unrolls / sizeof unrolls[0])]);
    } else {
        uint32_t top = 0;
        while (top < 40 && (UINT64_C(2) << top) <= max)
            top++;
        base = UINT64_C(1) << pick(g, top + 1);
    }
    base = base + 1 - pick(g, 3);
    if (base < 1)
        base = 1;
    return (int64_t)(base > max ? max : base);
}

/* The elements of s, counting a 0 as 1 (its room when it grows back). */
static uint64_t room(const oracle_shape *s)
{
    uint64_t n = 1;
    for (uint32_t k = 0; k < s->rank; k++)
        n *= s->dims[k] > 0 ? (uint64_t)s->dims[k] : 1;
    return n;
}

/* One mutation of a: grow or shrink one dimension, a 0 somewhere, or a
 * leading dimension added or dropped; kept within max elements. */
static void mutate_shape(const shapes_chooser *g, oracle_shape *a, uint64_t max)
{
    oracle_shape old = *a;
    uint32_t k = a->rank ? (uint32_t)pick(g, a->rank) : 0;
    switch (pick(g, 6)) {
    case 0: if (a->rank) a->dims[k] = a->dims[k] * 2 + 1; break;
    case 1: if (a->rank) a->dims[k] = a->dims[k] > 1 ? a->dims[k] / 2 : 1; break;
    case 2: if (a->rank) a->dims[k] += pick(g, 2) ? 1 : (a->dims[k] > 1 ? -1 : 0); break;
    case 3: if (a->rank && pick(g, 4) == 0) a->dims[k] = 0; break;
    case 4:
        if (a->rank < DVG_MAX_RANK) {
            memmove(&a->dims[1], &a->dims[0], a->rank * sizeof a->dims[0]);
            a->dims[0] = (int64_t)between(g, 1, 3);
            a->rank++;
        }
        break;
    default:
        if (a->rank > 1) {
            memmove(&a->dims[0], &a->dims[1], (a->rank - 1) * sizeof a->dims[0]);
            a->dims[--a->rank] = 0;
        }
        break;
    }
    if (room(a) > max)
        *a = old;
}

/* Words for the broadcast class of a numpy pair. */
static const char *numpy_class(const oracle_shape *a, const oracle_shape *b)
{
    uint64_t na = oracle_shape_count(a), nb = oracle_shape_count(b);
    int64_t ia = a->rank ? a->dims[a->rank - 1] : 1, ib = b->rank ? b->dims[b->rank - 1] : 1;
    int same = a->rank == b->rank && !memcmp(a->dims, b->dims, a->rank * sizeof a->dims[0]);
    if (same)
        return "equal shapes";
    if (nb == 1)
        return "scalar B";
    if (na == 1)
        return "scalar A";
    if (nb == (uint64_t)ib && ia == ib)
        return "row broadcast (B one row)";
    if (na == (uint64_t)ia && ia == ib)
        return "row broadcast (A one row)";
    if (ia == 1 && nb == (uint64_t)ib)
        return "outer product";
    if (ib == 1 && ia != 1)
        return "column broadcast (B)";
    if (ia == 1 && ib != 1)
        return "column broadcast (A)";
    return "broadcast";
}

int shapes_choose(const shapes_chooser *g, uint32_t variant, uint64_t max_elements,
                  shapes_spec *s)
{
    const oracle_variant *v = oracle_variant_get(variant);
    memset(s, 0, sizeof *s);
    if (max_elements < 1)
        max_elements = 1;
    if (max_elements > DRAW_MAX_ELEMENTS)
        max_elements = DRAW_MAX_ELEMENTS;
    int rule = R_EQUAL;
    switch (v->shape_rule) {
    case ORACLE_SHAPE_NUMPY: rule = R_NUMPY; break;
    case ORACLE_SHAPE_PDPD: rule = R_PDPD; break;
    case ORACLE_SHAPE_ONNX_LEGACY: rule = R_LEGACY; break;
    case ORACLE_SHAPE_BY_ATTR:
        if (v->attr_keys & ORACLE_ATTR_BROADCAST)
            rule = pick(g, 4) ? R_LEGACY : R_EQUAL;
        else
            rule = (int)pick(g, 3) == 0 ? R_PDPD : pick(g, 4) ? R_NUMPY : R_EQUAL;
        break;
    default: break;
    }
    /* A: rank 1..8, small outer dimensions, a drawn inner one; mutated. */
    oracle_shape a;
    memset(&a, 0, sizeof a);
    a.rank = 1 + (uint32_t)pick(g, DVG_MAX_RANK);
    uint64_t outer = 1;
    for (uint32_t k = 0; k + 1 < a.rank; k++) {
        a.dims[k] = (int64_t)between(g, 1, 3);
        outer *= (uint64_t)a.dims[k];
    }
    if (outer > max_elements)
        for (uint32_t k = 0; k + 1 < a.rank; k++)
            a.dims[k] = 1, outer = 1;
    a.dims[a.rank - 1] = draw_inner(g, max_elements / outer);
    for (uint64_t n = pick(g, 3); n > 0; n--)
        mutate_shape(g, &a, max_elements);
    if (a.rank == 0)
        a.dims[a.rank++] = 1;
    /* B by the rule. */
    oracle_shape b = a;
    int64_t axis = -1;
    if (rule == R_NUMPY) {
        for (uint32_t k = 0; k < b.rank; k++)
            if (pick(g, 3) == 0)
                b.dims[k] = 1;
        uint32_t drop = pick(g, 2) ? (uint32_t)pick(g, b.rank + 1) : 0;
        memmove(&b.dims[0], &b.dims[drop], (b.rank - drop) * sizeof b.dims[0]);
        b.rank -= drop;
        memset(&b.dims[b.rank], 0, drop * sizeof b.dims[0]);
        if (pick(g, 2)) { /* A broadcasts instead */
            oracle_shape t = a;
            a = b;
            b = t;
        }
    } else if (rule == R_PDPD || rule == R_LEGACY) {
        uint32_t at = (uint32_t)pick(g, a.rank), len = 1 + (uint32_t)pick(g, a.rank - at);
        memset(&b, 0, sizeof b);
        b.rank = len;
        for (uint32_t k = 0; k < len; k++)
            b.dims[k] = (rule == R_PDPD && pick(g, 3) == 0) ? 1 : a.dims[at + k];
        axis = at + len == a.rank && pick(g, 2) ? -1 : (int64_t)at;
    }
    s->a = a;
    s->b = b;
    shapes_list one = {s, 1, 1};
    select_rule(&one, v, rule, axis);
    const oracle_shape *out = oracle_shape_count(&a) >= oracle_shape_count(&b) ? &a : &b;
    snprintf(s->what, sizeof s->what, "inner %lld, rank %u, %s %s (drawn)",
             (long long)(out->rank ? out->dims[out->rank - 1] : 1), out->rank, rule_name(rule),
             rule == R_NUMPY ? numpy_class(&a, &b)
             : rule == R_EQUAL ? "equal shapes"
             : axis == -1      ? "suffix window"
                               : "window at an axis");
    return 0;
}

static uint64_t rng_below(void *ctx, uint64_t n)
{
    return gen_below(ctx, n);
}

int shapes_draw(gen_rng *g, uint32_t variant, uint32_t dtype, uint64_t max_elements,
                shapes_spec *s)
{
    shapes_chooser ch = {rng_below, g};
    shapes_choose(&ch, variant, max_elements, s);
    /* One case in eight misaligned: offsets drawn last, so the shapes are
     * those drawn before offsets were. */
    if (gen_below(g, 8) == 0) {
        uint32_t bits = oracle_dtype(dtype)->bits, step = bits < 8 ? 1 : bits / 8;
        s->offsets.set = 1;
        for (int i = 0; i < 3; i++)
            s->offsets.at[i] = (uint8_t)(gen_below(g, 64 / step) * step);
        size_t n = strlen(s->what);
        if (n && s->what[n - 1] == ')')
            snprintf(s->what + n - 1, sizeof s->what - (n - 1),
                     ", data at 64-byte line + A %u, B %u, C %u)", s->offsets.at[DIVCASE_A],
                     s->offsets.at[DIVCASE_B], s->offsets.at[DIVCASE_C]);
    }
    return 0;
}

void shapes_spec_attrs(const shapes_spec *s, dvg_attrs *attrs)
{
    if (s->set_rounding) {
        attrs->pythondiv = s->pythondiv;
        attrs->int_rounding = s->int_rounding;
    }
    if (!s->set_attrs)
        return;
    attrs->broadcast = s->broadcast;
    attrs->axis_set = s->axis_set;
    attrs->axis = s->axis;
    attrs->auto_broadcast = s->auto_broadcast;
}

int shapes_case(gen_rng *g, uint32_t variant, uint32_t dtype, const shapes_spec *s,
                const char *id, divcase *c)
{
    return shapes_case_pooled(g, variant, dtype, s, id, NULL, c);
}

/* The case of spec s without its operands: id, source, attributes,
 * shapes, offsets. */
static void case_header(uint32_t variant, uint32_t dtype, const shapes_spec *s, const char *id,
                        divcase *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "%s", id ? id : "shape");
    snprintf(c->source, sizeof c->source, "%s", s->what);
    c->variant = variant;
    c->dtype = dtype;
    oracle_attrs_default(oracle_variant_get(variant), &c->attrs);
    shapes_spec_attrs(s, &c->attrs);
    c->a_shape = s->a;
    c->b_shape = s->b;
    c->offsets = s->offsets;
}

/* 1 when the operands of s repeat with one period (gen_fill_operands_
 * periodic): large equal shapes, the size tiers. */
static int periodic(const shapes_spec *s)
{
    if (s->periodic)
        return 1;
    return oracle_shape_equal(&s->a, &s->b) &&
           oracle_shape_count(&s->a) >= 4 * (uint64_t)GEN_FILL_PERIOD;
}

void shapes_case_skip(gen_rng *g, uint32_t variant, uint32_t dtype, const shapes_spec *s)
{
    if (s->divisor_set)
        return; /* fixed values: nothing drawn */
    divcase c;
    case_header(variant, dtype, s, NULL, &c);
    gen_skip_operands(g, &c, periodic(s));
}

int shapes_case_pooled(gen_rng *g, uint32_t variant, uint32_t dtype, const shapes_spec *s,
                       const char *id, divcase_pool *pool, divcase *c)
{
    case_header(variant, dtype, s, id, c);
    uint64_t na = oracle_shape_count(&s->a), nb = oracle_shape_count(&s->b);
    if (divcase_alloc_pooled(c, na > nb ? na : nb, pool))
        return -1;
    if (s->divisor_set) { /* the dividend table over A, the divisor in every element of B */
        size_t nt = dividends(dtype, NULL);
        uint64_t *t = dvg_malloc(nt * sizeof *t);
        if (!t) {
            divcase_free_pooled(c, pool);
            return -1;
        }
        dividends(dtype, t);
        for (uint64_t i = 0; i < na; i++)
            oracle_store(dtype, c->a, i, t[i % nt]);
        for (uint64_t i = 0; i < nb; i++)
            oracle_store(dtype, c->b, i, value_bits(dtype, s->divisor));
        dvg_free(t);
        return 0;
    }
    /* Large equal shapes (the size tiers) repeat with one period, which the
     * judge checks once (gen.h, gen_fill_operands_periodic). */
    if (periodic(s))
        gen_fill_operands_periodic(g, c);
    else
        gen_fill_operands(g, c);
    return 0;
}
