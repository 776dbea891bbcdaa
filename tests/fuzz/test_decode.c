/* SPDX-License-Identifier: MIT */
/*
 * The total decoder of harness/cases/decode.h: every input (empty, every prefix,
 * random bytes, under several limits) decodes to a well-formed case within
 * the limits, allocating only A and B; the same bytes give the same case;
 * the claims restrict the (variant, dtype); decode_encode round-trips every
 * case of cases/ the limits admit, generated cases and decoded cases; the
 * shrinking keeps a valid pair valid; random bytes reach every variant,
 * dtype, rank, zero dimensions, valid and invalid pairs of every shape rule;
 * and the shape-path layout (first byte 0x80 and above) draws valid pairs
 * within the element budget at ranks 1 to 8, with vector-width tails such
 * as an inner dimension of 17, up to the budget and not past it.
 *
 * Usage: test_fuzz_decode CASES_DIR
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "harness/cases/decode.h"
#include "harness/base/alloc.h"
#include "harness/cases/casefile.h"
#include "harness/cases/gen.h"
#include "oracle/dtype.h"
#include "oracle/rules.h"
#include "oracle/shape.h"
#include "oracle/variant.h"

/* A decoded case is well formed within the limits. */
static int well_formed(const divcase *c, const decode_limits *lim, char *why, size_t len)
{
    const oracle_variant *v = oracle_variant_get(c->variant);
    oracle_rules r;
    if (!v || !oracle_variant_has_dtype(v, c->dtype)) {
        snprintf(why, len, "pair %u/%u not in the table", c->variant, c->dtype);
        return 0;
    }
    if (oracle_rules_resolve(c->variant, c->dtype, &c->attrs, &r, NULL)) {
        snprintf(why, len, "attributes do not resolve");
        return 0;
    }
    if (!decode_limits_admit(lim, c)) {
        snprintf(why, len, "not admitted by its own limits");
        return 0;
    }
    uint64_t na = oracle_shape_count(&c->a_shape), nb = oracle_shape_count(&c->b_shape);
    if (c->a_shape.rank > DVG_MAX_RANK || c->b_shape.rank > DVG_MAX_RANK ||
        na > lim->max_elements || nb > lim->max_elements) {
        snprintf(why, len, "shapes beyond the limits");
        return 0;
    }
    for (int t = 0; t < 2; t++) {
        const oracle_shape *s = t ? &c->b_shape : &c->a_shape;
        for (uint32_t i = 0; i < DVG_MAX_RANK; i++)
            if ((i < s->rank && s->dims[i] < 0) || (i >= s->rank && s->dims[i] != 0)) {
                snprintf(why, len, "bad dimension %u", i);
                return 0;
            }
    }
    if (!c->a || !c->b || c->a_bytes != oracle_nbytes(c->dtype, na) ||
        c->b_bytes != oracle_nbytes(c->dtype, nb)) {
        snprintf(why, len, "operand buffers");
        return 0;
    }
    if (r.shape_rule == ORACLE_SHAPE_NUMPY) {
        oracle_plan p;
        if (oracle_plan_shapes(&r, &c->a_shape, &c->b_shape, &p, NULL) == ORACLE_OK &&
            p.count > lim->max_elements) {
            snprintf(why, len, "numpy output beyond the limits");
            return 0;
        }
    }
    if (!memchr(c->id, 0, sizeof c->id) || strncmp(c->id, "fuzz:", 5)) {
        snprintf(why, len, "id");
        return 0;
    }
    return 1;
}

static int same_case(const divcase *x, const divcase *y)
{
    return x->variant == y->variant && x->dtype == y->dtype &&
           !memcmp(&x->attrs, &y->attrs, sizeof x->attrs) &&
           oracle_shape_equal(&x->a_shape, &y->a_shape) &&
           oracle_shape_equal(&x->b_shape, &y->b_shape) && x->a_bytes == y->a_bytes &&
           x->b_bytes == y->b_bytes && !memcmp(x->a, y->a, x->a_bytes) &&
           !memcmp(x->b, y->b, x->b_bytes);
}

static void describe(const char *what, const divcase *c)
{
    char sa[128], sb[128], at[160];
    const oracle_variant *v = oracle_variant_get(c->variant);
    fprintf(stderr, "  %s: %s %s %s A %s B %s\n", what, v ? v->name : "?",
            oracle_dtype_tag(c->dtype), v ? oracle_attrs_format(v, &c->attrs, at, sizeof at) : "",
            oracle_shape_format(&c->a_shape, sa, sizeof sa),
            oracle_shape_format(&c->b_shape, sb, sizeof sb));
}

/* Decodes, checks well-formedness and determinism and that exactly two
 * allocations were made; returns 0 with *c filled (caller frees). */
static int decode_checked(const uint8_t *data, size_t n, const decode_limits *lim, divcase *c)
{
    char why[128];
    dvg_alloc_fail_at(0, 0);
    int rc = decode_case(data, n, lim, c);
    uint64_t allocs = dvg_alloc_count();
    CHECKF(rc == 0, "decode of %zu bytes failed", n);
    if (rc)
        return -1;
    CHECKF(allocs == 2, "decode made %" PRIu64 " allocations", allocs);
    int ok = well_formed(c, lim, why, sizeof why);
    CHECKF(ok, "%zu bytes: %s", n, why);
    if (!ok)
        describe("decoded", c);
    divcase again;
    if (decode_case(data, n, lim, &again) == 0) {
        CHECKF(same_case(c, &again) && !strcmp(c->id, again.id), "decode not deterministic");
        divcase_free(&again);
    }
    return 0;
}

/* encode(c) decodes back to c under lim. */
static void check_roundtrip(const divcase *c, const decode_limits *lim, const char *what)
{
    uint8_t *bytes;
    size_t n;
    int rc = decode_encode(c, &bytes, &n);
    CHECKF(rc == 0, "%s: encode failed", what);
    if (rc)
        return;
    CHECKF(n >= 1 && bytes[0] == DECODE_FORMAT_VERSION, "%s: version byte", what);
    divcase d;
    if (decode_case(bytes, n, lim, &d) == 0) {
        int same = same_case(c, &d);
        CHECKF(same, "%s: round trip differs", what);
        if (!same) {
            describe("original", c);
            describe("decoded", &d);
        }
        divcase_free(&d);
    } else {
        CHECKF(0, "%s: decode of the encoding failed", what);
    }
    dvg_free(bytes);
}

/* ---- totality -------------------------------------------------------------- */

static void test_empty_and_prefixes(void)
{
    decode_limits lim;
    decode_limits_default(&lim);
    CHECK(lim.max_elements == 64 && lim.claims == NULL && lim.n_claims == 0);
    divcase c;
    if (decode_checked(NULL, 0, &lim, &c) == 0) {
        /* The empty input: the first variant, its first dtype, defaults. */
        CHECK(c.variant == oracle_variant_at(0)->id);
        divcase_free(&c);
    }
    static const uint8_t zeros[64];
    if (decode_checked(zeros, sizeof zeros, &lim, &c) == 0)
        divcase_free(&c);
    CHECK(decode_case((const uint8_t *)"x", 1, NULL, &c) == 0);
    divcase_free(&c);

    /* Every prefix of a few inputs, under small and larger limits. */
    gen_rng g;
    gen_seed(&g, 4, 1);
    uint8_t buf[300];
    uint64_t maxes[] = {1, 16, 200};
    for (int k = 0; k < 12; k++) {
        for (size_t i = 0; i < sizeof buf; i++)
            buf[i] = (uint8_t)gen_next(&g);
        if (k == 0)
            memset(buf, 0xff, sizeof buf);
        if (k == 1)
            memset(buf, 0xf8, sizeof buf); /* long dims everywhere */
        decode_limits_default(&lim);
        lim.max_elements = maxes[k % 3];
        for (size_t n = 0; n <= sizeof buf; n++)
            if (decode_checked(buf, n, &lim, &c) == 0)
                divcase_free(&c);
    }
}

/* Random inputs: well formed, and decode(encode(decode(x))) == decode(x). */
static void test_random(void)
{
    gen_rng g;
    gen_seed(&g, 7, 2);
    uint8_t buf[512];
    for (int k = 0; k < 20000; k++) {
        size_t n = (size_t)gen_below(&g, sizeof buf + 1);
        for (size_t i = 0; i < n; i++)
            buf[i] = (uint8_t)gen_next(&g);
        decode_limits lim;
        decode_limits_default(&lim);
        uint64_t maxes[] = {1, 2, 16, 64, 1000};
        lim.max_elements = maxes[k % 5];
        divcase c;
        if (decode_checked(buf, n, &lim, &c))
            continue;
        check_roundtrip(&c, &lim, "decoded random input");
        divcase_free(&c);
    }
}

/* Failing allocations: -1 and nothing left behind (the run ends clean
 * under ASan's leak check). */
static void test_alloc_failure(void)
{
    uint8_t buf[40] = {1, 2, 3};
    for (uint64_t nth = 1; nth <= 2; nth++) {
        divcase c;
        dvg_alloc_fail_at(nth, 0);
        CHECKF(decode_case(buf, sizeof buf, NULL, &c) == -1, "allocation %" PRIu64 " failed", nth);
        CHECK(c.a == NULL && c.b == NULL);
        dvg_alloc_fail_at(0, 0);
    }
}

/* ---- claims -------------------------------------------------------------- */

static void test_claims(void)
{
    static const dvg_claim two[] = {{DVG_VARIANT_ONNX_DIV_7, DVG_DTYPE_I32},
                                    {DVG_VARIANT_SONNX_DIV, DVG_DTYPE_F16}};
    /* onnx-div-1 has no i8: unusable, skipped. */
    static const dvg_claim mixed[] = {{DVG_VARIANT_ONNX_DIV_1, DVG_DTYPE_I8},
                                      {DVG_VARIANT_OPENVINO_DIVIDE_1, DVG_DTYPE_U4}};
    static const dvg_claim none_usable[] = {{DVG_VARIANT_ONNX_DIV_1, DVG_DTYPE_I8},
                                            {99, DVG_DTYPE_F32}};
    gen_rng g;
    gen_seed(&g, 11, 3);
    uint8_t buf[64];
    int seen[2] = {0, 0}, other_variants = 0;
    for (int k = 0; k < 3000; k++) {
        for (size_t i = 0; i < sizeof buf; i++)
            buf[i] = (uint8_t)gen_next(&g);
        decode_limits lim;
        decode_limits_default(&lim);
        divcase c;
        lim.claims = two;
        lim.n_claims = 2;
        if (decode_checked(buf, sizeof buf, &lim, &c) == 0) {
            int i = c.variant == two[0].variant && c.dtype == two[0].dtype   ? 0
                    : c.variant == two[1].variant && c.dtype == two[1].dtype ? 1
                                                                             : -1;
            CHECKF(i >= 0, "unclaimed pair %u/%u", c.variant, c.dtype);
            if (i >= 0)
                seen[i]++;
            divcase_free(&c);
        }
        lim.claims = mixed;
        if (decode_checked(buf, sizeof buf, &lim, &c) == 0) {
            CHECK(c.variant == DVG_VARIANT_OPENVINO_DIVIDE_1 && c.dtype == DVG_DTYPE_U4);
            divcase_free(&c);
        }
        lim.claims = none_usable;
        if (decode_checked(buf, sizeof buf, &lim, &c) == 0) {
            other_variants += c.variant != DVG_VARIANT_ONNX_DIV_1;
            divcase_free(&c);
        }
    }
    CHECKF(seen[0] > 500 && seen[1] > 500, "claims reached %d and %d times", seen[0], seen[1]);
    CHECK(other_variants > 1000); /* no usable claim: the whole table */

    /* A claimed pair keeps its encoding; an unclaimed one is not admitted. */
    divcase c;
    memset(&c, 0, sizeof c);
    c.variant = DVG_VARIANT_SONNX_DIV;
    c.dtype = DVG_DTYPE_F16;
    oracle_attrs_default(oracle_variant_get(c.variant), &c.attrs);
    c.a_shape.rank = c.b_shape.rank = 1;
    c.a_shape.dims[0] = c.b_shape.dims[0] = 3;
    CHECK(divcase_alloc(&c, 3) == 0);
    decode_limits lim;
    decode_limits_default(&lim);
    lim.claims = two;
    lim.n_claims = 2;
    CHECK(decode_limits_admit(&lim, &c));
    check_roundtrip(&c, &lim, "claimed pair");
    c.dtype = DVG_DTYPE_BF16; /* same width, not claimed */
    CHECK(!decode_limits_admit(&lim, &c));
    lim.n_claims = 0;
    CHECK(decode_limits_admit(&lim, &c));
    divcase_free(&c);
}

/* ---- round trips ----------------------------------------------------------- */

static void test_cases_roundtrip(const char *dir)
{
    casefile_set *set;
    casefile_error err;
    if (casefile_load(dir, 0, &set, &err)) {
        CHECKF(0, "cannot load %s: %s", dir, err.text);
        return;
    }
    decode_limits big;
    decode_limits_default(&big);
    big.max_elements = UINT64_C(1) << 24;
    decode_limits small;
    decode_limits_default(&small);
    small.max_elements = 4096;
    size_t n_big = 0, n_small = 0;
    for (size_t i = 0; i < set->count; i++) {
        const divcase *c = &set->cases[i];
        int admitted = decode_limits_admit(&big, c);
        CHECKF(admitted, "case %s not admitted with 2^24 elements", c->id);
        if (admitted) {
            check_roundtrip(c, &big, c->id);
            n_big++;
        }
        if (decode_limits_admit(&small, c)) {
            check_roundtrip(c, &small, c->id);
            n_small++;
        }
    }
    printf("round trip: %zu cases of %zu (2^24 elements), %zu within 4096\n", n_big, set->count,
           n_small);
    CHECK(n_small > 100);
    casefile_set_free(set);
}

static void test_generated_roundtrip(void)
{
    gen_rng g;
    gen_seed(&g, 99, 5);
    size_t n = 0;
    for (uint32_t vi = 0; vi < oracle_variant_count(); vi++) {
        const oracle_variant *v = oracle_variant_at(vi);
        for (uint32_t dt = 1; dt < DVG_DTYPE_COUNT; dt++) {
            if (!oracle_variant_has_dtype(v, dt))
                continue;
            divcase c;
            if (gen_edge_case(v->id, dt, NULL, "edges", &c) == 0) {
                decode_limits lim;
                decode_limits_default(&lim);
                lim.max_elements = 4096;
                CHECKF(decode_limits_admit(&lim, &c), "edge case %s %s not admitted", v->name,
                       oracle_dtype_tag(dt));
                check_roundtrip(&c, &lim, "edge case");
                divcase_free(&c);
            }
            for (int k = 0; k < 40; k++) {
                if (gen_case(&g, v->id, dt, NULL, 1, 4, 200, "gen", &c))
                    continue;
                decode_limits lim;
                decode_limits_default(&lim);
                lim.max_elements = 4096;
                if (decode_limits_admit(&lim, &c)) {
                    check_roundtrip(&c, &lim, "generated case");
                    n++;
                }
                /* Shrinking to 16 elements keeps a valid pair valid. */
                oracle_rules r;
                oracle_plan p;
                int valid = oracle_rules_resolve(c.variant, c.dtype, &c.attrs, &r, NULL) == 0 &&
                            oracle_plan_shapes(&r, &c.a_shape, &c.b_shape, &p, NULL) == 0;
                uint8_t *bytes;
                size_t nb;
                if (valid && decode_encode(&c, &bytes, &nb) == 0) {
                    decode_limits tiny;
                    decode_limits_default(&tiny);
                    tiny.max_elements = 16;
                    divcase d;
                    if (decode_checked(bytes, nb, &tiny, &d) == 0) {
                        int still = oracle_rules_resolve(d.variant, d.dtype, &d.attrs, &r, NULL) == 0 &&
                                    oracle_plan_shapes(&r, &d.a_shape, &d.b_shape, &p, NULL) == 0;
                        CHECKF(still, "shrinking broke a valid pair");
                        if (!still) {
                            describe("generated", &c);
                            describe("shrunk", &d);
                        }
                        divcase_free(&d);
                    }
                    dvg_free(bytes);
                }
                divcase_free(&c);
            }
        }
    }
    CHECKF(n > 1500, "only %zu generated cases round-tripped", n);
}

static void test_unencodable(void)
{
    divcase c;
    memset(&c, 0, sizeof c);
    c.variant = DVG_VARIANT_OPENVINO_DIVIDE_1;
    c.dtype = DVG_DTYPE_I8;
    oracle_attrs_default(oracle_variant_get(c.variant), &c.attrs);
    CHECK(divcase_alloc(&c, 1) == 0);
    uint8_t *bytes;
    size_t n;
    CHECK(decode_encode(&c, &bytes, &n) == 0);
    dvg_free(bytes);
    /* Axes at the ends of the range, short and long forms. */
    int64_t axes[] = {-64, -3, -2, -1, 0, 10, 11, 64};
    for (size_t i = 0; i < sizeof axes / sizeof axes[0]; i++) {
        c.attrs.axis = axes[i];
        check_roundtrip(&c, NULL, "axis");
    }
    c.attrs.axis = 65;
    CHECK(decode_encode(&c, &bytes, &n) == -1 && bytes == NULL);
    CHECK(!decode_limits_admit(NULL, &c));
    c.attrs.axis = -1;
    c.attrs.auto_broadcast = 3;
    CHECK(decode_encode(&c, &bytes, &n) == -1);
    c.attrs.auto_broadcast = 1;
    c.variant = 42;
    CHECK(decode_encode(&c, &bytes, &n) == -1);
    c.variant = DVG_VARIANT_ONNX_DIV_1; /* no i8 */
    CHECK(decode_encode(&c, &bytes, &n) == -1);
    c.variant = DVG_VARIANT_OPENVINO_DIVIDE_1;
    c.a_shape.rank = 2;
    c.a_shape.dims[0] = c.a_shape.dims[1] = 5000; /* 25e6 > 2^24 */
    CHECK(decode_encode(&c, &bytes, &n) == -1);
    divcase_free(&c);

    /* Large dimensions travel in the long form. */
    memset(&c, 0, sizeof c);
    c.variant = DVG_VARIANT_OPENVINO_DIVIDE_1; /* numpy by default */
    c.dtype = DVG_DTYPE_U4;
    oracle_attrs_default(oracle_variant_get(c.variant), &c.attrs);
    c.a_shape.rank = 3;
    c.a_shape.dims[0] = 1000;
    c.a_shape.dims[1] = 0;
    c.a_shape.dims[2] = 77;
    c.b_shape.rank = 1;
    c.b_shape.dims[0] = 1001;
    CHECK(divcase_alloc(&c, 2000) == 0);
    for (uint64_t i = 0; i < 1001; i++)
        oracle_store(c.dtype, c.b, i, i * 7);
    decode_limits lim;
    decode_limits_default(&lim);
    lim.max_elements = 1001;
    CHECK(decode_limits_admit(&lim, &c));
    check_roundtrip(&c, &lim, "long dimensions");
    lim.max_elements = 1000;
    CHECK(!decode_limits_admit(&lim, &c));
    divcase_free(&c);
}

/* ---- reach ----------------------------------------------------------------- */

static void test_reach(void)
{
    gen_rng g;
    gen_seed(&g, 2024, 6);
    uint8_t buf[200];
    int variants[DVG_VARIANT_COUNT] = {0}, dtypes[DVG_DTYPE_COUNT] = {0}, ranks[DVG_MAX_RANK + 1] = {0};
    int valid[8] = {0}, invalid[8] = {0}, zero_dims = 0, neg_axis = 0, big_axis = 0;
    int int_min_neg1 = 0, total = 50000, n_valid = 0;
    for (int k = 0; k < total; k++) {
        size_t n = 12 + (size_t)gen_below(&g, sizeof buf - 12);
        for (size_t i = 0; i < n; i++)
            buf[i] = (uint8_t)gen_next(&g);
        divcase c;
        if (decode_case(buf, n, NULL, &c))
            continue;
        variants[c.variant]++;
        dtypes[c.dtype]++;
        ranks[c.a_shape.rank]++;
        ranks[c.b_shape.rank]++;
        zero_dims += oracle_shape_count(&c.a_shape) == 0;
        oracle_rules r;
        oracle_plan p;
        if (oracle_rules_resolve(c.variant, c.dtype, &c.attrs, &r, NULL) == 0) {
            int ok = oracle_plan_shapes(&r, &c.a_shape, &c.b_shape, &p, NULL) == 0;
            if (ok) {
                valid[r.shape_rule]++;
                n_valid++;
            } else {
                invalid[r.shape_rule]++;
            }
            if (r.shape_rule == ORACLE_SHAPE_PDPD) {
                neg_axis += c.attrs.axis < -1;
                big_axis += c.attrs.axis > (int64_t)c.a_shape.rank;
            }
            const oracle_dtype_info *d = oracle_dtype(c.dtype);
            if (ok && d->kind == DVG_KIND_SIGNED) {
                uint64_t mask = oracle_dtype_mask(c.dtype);
                for (uint64_t i = 0; i < p.count; i++) {
                    uint64_t ao, bo;
                    oracle_plan_offsets(&p, i, &ao, &bo);
                    if (oracle_load(c.dtype, c.a, ao) == (mask >> 1) + 1 &&
                        oracle_load(c.dtype, c.b, bo) == mask)
                        int_min_neg1++;
                }
            }
        }
        divcase_free(&c);
    }
    for (uint32_t i = 0; i < oracle_variant_count(); i++)
        CHECKF(variants[oracle_variant_at(i)->id] > 1000, "variant %s: %d",
               oracle_variant_at(i)->name, variants[oracle_variant_at(i)->id]);
    for (uint32_t d = 1; d < DVG_DTYPE_COUNT; d++)
        CHECKF(dtypes[d] > 500, "dtype %s: %d", oracle_dtype_tag(d), dtypes[d]);
    for (int r = 0; r <= DVG_MAX_RANK; r++)
        CHECKF(ranks[r] > 200, "rank %d: %d", r, ranks[r]);
    uint32_t rules[] = {ORACLE_SHAPE_EQUAL, ORACLE_SHAPE_NUMPY, ORACLE_SHAPE_PDPD,
                        ORACLE_SHAPE_ONNX_LEGACY};
    for (int i = 0; i < 4; i++)
        CHECKF(valid[rules[i]] > 300 && invalid[rules[i]] > 300, "rule %u: %d valid, %d invalid",
               rules[i], valid[rules[i]], invalid[rules[i]]);
    CHECKF(n_valid > total / 3 && n_valid < total * 9 / 10, "%d of %d valid", n_valid, total);
    CHECKF(zero_dims > 500, "zero dims %d", zero_dims);
    CHECKF(neg_axis > 100 && big_axis > 100, "pdpd axes %d negative, %d past A", neg_axis, big_axis);
    CHECKF(int_min_neg1 > 50, "INT_MIN / -1 %d", int_min_neg1);
    printf("reach: %d of %d valid; equal %d/%d numpy %d/%d pdpd %d/%d legacy %d/%d; "
           "INT_MIN/-1 %d\n", n_valid, total, valid[1], invalid[1], valid[2], invalid[2],
           valid[3], invalid[3], valid[4], invalid[4], int_min_neg1);
}

/* ---- the shape-path layout ------------------------------------------------ */

/* Bytes for the shape-path layout: first byte 0x80 and above. */
static void shape_path_input(gen_rng *g, uint8_t *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = (uint8_t)gen_next(g);
    if (n)
        buf[0] |= 0x80;
}

static void test_shape_path(void)
{
    static const uint64_t budgets[] = {16, 256, 4096, UINT64_C(1) << 20};
    gen_rng g;
    gen_seed(&g, 14, 7);
    uint8_t buf[160];
    for (size_t bi = 0; bi < sizeof budgets / sizeof budgets[0]; bi++) {
        decode_limits lim;
        decode_limits_default(&lim);
        lim.max_elements = budgets[bi];
        int ranks[DVG_MAX_RANK + 1] = {0}, inner17_rank3 = 0, inner33 = 0, zero = 0;
        int invalid = 0, drawn = 0, numpy_bcast = 0, windows = 0;
        int total = budgets[bi] > 4096 ? 1000 : 4000; /* large cases cost more */
        uint64_t largest = 0;
        for (int k = 0; k < total; k++) {
            size_t n = 1 + (size_t)gen_below(&g, sizeof buf);
            shape_path_input(&g, buf, n);
            divcase c;
            if (decode_checked(buf, n, &lim, &c))
                continue;
            if (k % 8 == 0 && budgets[bi] <= 4096)
                check_roundtrip(&c, &lim, "shape-path input");
            oracle_rules r;
            oracle_plan p;
            int ok = oracle_rules_resolve(c.variant, c.dtype, &c.attrs, &r, NULL) == 0 &&
                     oracle_plan_shapes(&r, &c.a_shape, &c.b_shape, &p, NULL) == 0;
            invalid += !ok;
            if (!ok)
                describe("invalid drawn pair", &c);
            drawn += strstr(c.source, "(drawn)") != NULL;
            if (ok) {
                const oracle_shape *o = &p.out;
                uint64_t inner = o->rank ? (uint64_t)o->dims[o->rank - 1] : 1;
                ranks[o->rank]++;
                inner17_rank3 += inner == 17 && o->rank >= 3;
                inner33 += inner == 33;
                zero += p.count == 0;
                numpy_bcast += r.shape_rule == ORACLE_SHAPE_NUMPY &&
                               !oracle_shape_equal(&c.a_shape, &c.b_shape);
                windows += r.shape_rule == ORACLE_SHAPE_PDPD ||
                           r.shape_rule == ORACLE_SHAPE_ONNX_LEGACY;
                if (p.count > largest)
                    largest = p.count;
            }
            divcase_free(&c);
        }
        printf("shape path, budget %" PRIu64 ": largest %" PRIu64 ", inner 17 at rank >= 3: %d, "
               "inner 33: %d, size 0: %d, numpy broadcast %d, windows %d, ranks",
               budgets[bi], largest, inner17_rank3, inner33, zero, numpy_bcast, windows);
        for (int rk = 0; rk <= DVG_MAX_RANK; rk++)
            printf(" %d", ranks[rk]);
        printf("\n");
        CHECKF(invalid == 0, "budget %" PRIu64 ": %d invalid pairs", budgets[bi], invalid);
        CHECKF(drawn == total, "budget %" PRIu64 ": %d of %d name a drawn path", budgets[bi],
               drawn, total);
        CHECKF(largest <= budgets[bi] && largest * 4 > budgets[bi],
               "budget %" PRIu64 ": largest output %" PRIu64, budgets[bi], largest);
        for (int rk = 1; rk <= DVG_MAX_RANK; rk++)
            CHECKF(ranks[rk] > total / 80, "budget %" PRIu64 ": rank %d drawn %d times",
                   budgets[bi], rk, ranks[rk]);
        CHECKF(zero > total / 200 && numpy_bcast > total / 20 && windows > total / 20,
               "budget %" PRIu64 ": size 0 %d, numpy broadcasts %d, windows %d", budgets[bi],
               zero, numpy_bcast, windows);
        if (budgets[bi] >= 256)
            CHECKF(inner17_rank3 > 5 && inner33 > 5,
                   "budget %" PRIu64 ": inner 17 at rank >= 3 %d times, inner 33 %d times",
                   budgets[bi], inner17_rank3, inner33);
    }
    /* One byte: the simplest drawn shape (every choice 0), within a budget of 1. */
    static const uint8_t one[] = {0x80};
    decode_limits lim;
    decode_limits_default(&lim);
    lim.max_elements = 1;
    divcase c;
    if (decode_checked(one, sizeof one, &lim, &c) == 0) {
        CHECK(c.a_shape.rank == 1 && c.a_shape.dims[0] == 1 && oracle_shape_count(&c.b_shape) <= 1);
        divcase_free(&c);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_fuzz_decode CASES_DIR\n");
        return 2;
    }
    test_empty_and_prefixes();
    test_random();
    test_alloc_failure();
    test_claims();
    test_cases_roundtrip(argv[1]);
    test_generated_roundtrip();
    test_unencodable();
    test_reach();
    test_shape_path();
    return check_done("test_fuzz_decode");
}
