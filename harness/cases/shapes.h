/* SPDX-License-Identifier: MIT */
/*
 * harness/cases/shapes.h: the shape-path walker. A list of shapes chosen
 * to walk the code paths a tiled, vectorised, threaded kernel has: inner
 * (last) dimensions around every vector width and unroll, ranks 1 to 8,
 * every broadcast pattern class of the variant's shape rule, size-0
 * dimensions, operand sizes across powers of two up to 2^24 elements, and
 * data pointers of A, B and C at every offset from a 64-byte line the
 * element size allows, each tensor on its own. Each entry says in
 * words which path class it targets ("inner 17, rank 3, numpy row
 * broadcast (B)"); shapes_case puts that text in divcase.source, so a
 * finding names its path.
 *
 * Deterministic: the list depends only on (variant, dtype, max_tier); the
 * operand values come from the caller's gen_rng.
 */
#ifndef HARNESS_SHAPES_H
#define HARNESS_SHAPES_H

#include <stddef.h>
#include <stdint.h>

#include "harness/cases/divcase.h"
#include "harness/cases/gen.h"

/* The largest size tier: 2^k - 1, 2^k or 2^k + 1 elements, k up to this. */
#define SHAPES_MAX_TIER 24u

/* One listed shape: A, B and the attributes that select its rule. */
typedef struct shapes_spec {
    oracle_shape a, b;
    int set_attrs;           /* 1: the fields below replace the defaults */
    int32_t broadcast;       /* ONNX legacy broadcast */
    int32_t axis_set;        /* ONNX legacy axis given */
    int64_t axis;            /* ONNX legacy or pdpd axis */
    uint32_t auto_broadcast; /* OpenVINO DVG_BROADCAST_* */
    int set_rounding;        /* 1: pythondiv and int_rounding replace the defaults */
    int32_t pythondiv;       /* OpenVINO m_pythondiv */
    uint32_t int_rounding;   /* sonnx-div DVG_ROUND_* */
    int periodic;            /* 1: A and B repeat every GEN_FILL_PERIOD elements and each
                                is the output's shape or a suffix of it whose count divides
                                the period (the large code-path cases; judged by periods) */
    int divisor_set;         /* 1: fixed values, no draws: every element of B is `divisor`
                                and A a fixed table of dividends, negative ones included */
    int64_t divisor;         /* the divisor, an integer (exact in every dtype it is listed for) */
    divcase_offsets offsets; /* where the worker places A, B and C */
    char what[96];           /* the path class, in words */
} shapes_spec;

/* A list of specs; owned by whoever built it (shapes_list_free). */
typedef struct shapes_list {
    shapes_spec *spec;
    size_t n, cap;
} shapes_list;

/* The large code-path cases (shapes_build) have at least 2^SHAPES_LARGE_TIER
 * elements; a max_tier below it leaves them out. */
#define SHAPES_LARGE_TIER 22u

/*
 * Builds into *l (zeroed first) the path shapes of a (variant, dtype)
 * claim, every one valid under its rule; size tiers of 2^k - 1, 2^k and
 * 2^k + 1 elements up to k = 16 and one larger tier, one of its three
 * sizes, rotating with (variant, dtype): 17 .. 20 in seven claims of
 * eight, 21 .. 24 in the eighth (capped at max_tier, at most
 * SHAPES_MAX_TIER), so a claim stays cheap and the claims together walk
 * every tier. Then three families every claim gets: 2-D tiles (the last
 * two dims >= 16, one a multiple of 8 and 16 and the other not, under
 * each broadcast rule); the large code paths (when max_tier >=
 * SHAPES_LARGE_TIER: one case above 2^22 elements under each rule the
 * variant can be asked for, equal shapes included - equal shapes, a row or
 * a one-element B, the form rotating with (variant, dtype, rule) -
 * periodic, so judged by periods); the scalar divisors (B of one element, or a splat where the
 * rule wants equal shapes, of +-1, +-2^k and small odd values, over a
 * table of dividends, negative ones included, under every integer
 * rounding attribute the variant has).
 * Returns 0, or -1 on allocation failure (*l is then freed).
 */
int shapes_build(uint32_t variant, uint32_t dtype, uint32_t max_tier, shapes_list *l);

/* Frees what *l holds and zeroes it. Accepts NULL. */
void shapes_list_free(shapes_list *l);

/*
 * Fills *c (zeroed first) with the case of spec s: the variant's default
 * attributes with s's, s's data offsets, operand values from g
 * (gen_fill_operands), `id` as its id and s->what as its source. Returns
 * 0, or -1 on allocation failure.
 */
int shapes_case(gen_rng *g, uint32_t variant, uint32_t dtype, const shapes_spec *s,
                const char *id, divcase *c);

/* shapes_case with the operand buffers from *pool (divcase_alloc_pooled;
 * NULL: none): free the case with divcase_free_pooled into the same pool,
 * and a stream of large cases reuses its pages. */
int shapes_case_pooled(gen_rng *g, uint32_t variant, uint32_t dtype, const shapes_spec *s,
                       const char *id, divcase_pool *pool, divcase *c);

/* Advances g exactly as shapes_case would for spec s, without building
 * the case (gen_skip_operands; a divisor_set spec draws nothing). */
void shapes_case_skip(gen_rng *g, uint32_t variant, uint32_t dtype, const shapes_spec *s);

/*
 * Where the choices of a drawn shape come from: below(ctx, n) returns a
 * choice in [0, n) for n >= 1 (called with n = 1 too). The campaign's
 * chooser is its gen_rng (shapes_draw); the fuzz decoder's reads the
 * input's bytes (harness/cases/decode.h), so libFuzzer and AFL++ walk the
 * same shape grammar. Choice 0 is always a valid answer (a decoder out of
 * bytes answers 0): it gives the simplest shape.
 */
typedef struct shapes_chooser {
    uint64_t (*below)(void *ctx, uint64_t n);
    void *ctx;
} shapes_chooser;

/*
 * Draws into *s (zeroed first) one shape path from the chooser's answers,
 * valid under a rule the variant can be asked for: rank 1..8, small outer
 * dimensions, an inner one around a vector width and unroll (L * u - 1,
 * L * u, L * u + 1) or log-uniform up to the budget, then mutated (a
 * dimension grown or shrunk, a 0, a leading dimension added or dropped),
 * and B made from A by the rule (numpy: 1s and dropped leading
 * dimensions, either side broadcasting; pdpd and ONNX legacy: a window).
 * A, B and the output hold at most max_elements elements each (values
 * above 2^40 count as 2^40; 0 as 1). s->what names the class, ending
 * "(drawn)". Returns 0.
 */
int shapes_choose(const shapes_chooser *ch, uint32_t variant, uint64_t max_elements,
                  shapes_spec *s);

/* shapes_choose with the choices drawn from g (gen_below), for the fuzz
 * campaign; then, one case in eight, A, B and C placed at drawn offsets
 * from a 64-byte line, each a multiple of dtype's element size, and
 * "(drawn, data at 64-byte line + A 3, B 17, C 42)" in s->what. Returns 0. */
int shapes_draw(gen_rng *g, uint32_t variant, uint32_t dtype, uint64_t max_elements,
                shapes_spec *s);

/*
 * Applies the attributes spec s selects its rule with (when s->set_attrs:
 * broadcast, axis_set, axis, auto_broadcast; when s->set_rounding:
 * pythondiv, int_rounding) to *attrs; other fields are left as they are.
 */
void shapes_spec_attrs(const shapes_spec *s, dvg_attrs *attrs);

#endif /* HARNESS_SHAPES_H */
