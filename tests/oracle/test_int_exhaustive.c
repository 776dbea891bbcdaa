/* SPDX-License-Identifier: MIT */
/*
 * Integer division exhaustively where it is cheap: every i4 x i4, u4 x u4,
 * i8 x i8 and u8 x u8 pair under truncation and floor, against a plain
 * reference written from the definitions; wider types at a fixed seed
 * against 128-bit arithmetic. Also checks that oracle_expect_tensor's
 * incremental index walk agrees with per-element oracle_expect.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "oracle/dtype.h"
#include "oracle/expect.h"
#include "oracle/rules.h"

/* floor(a / b) and trunc(a / b) from the definitions, in 128-bit. */
static __int128 ref_trunc(__int128 a, __int128 b)
{
    __int128 qa = (a < 0 ? -a : a) / (b < 0 ? -b : b);
    return ((a < 0) != (b < 0)) ? -qa : qa;
}

static __int128 ref_floor(__int128 a, __int128 b)
{
    __int128 q = ref_trunc(a, b);
    if (q * b != a && ((a < 0) != (b < 0)))
        q -= 1;
    return q;
}

static oracle_rules rules_for(uint32_t variant, uint32_t dtype, int floor)
{
    const oracle_variant *v = oracle_variant_get(variant);
    dvg_attrs at;
    oracle_attrs_default(v, &at);
    at.pythondiv = floor;
    oracle_rules r;
    oracle_error err;
    CHECKF(oracle_rules_resolve(variant, dtype, &at, &r, &err) == ORACLE_OK, "%s", err.text);
    return r;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* One pair against the reference; returns 1 when it agrees. */
static int check_pair(const oracle_rules *r, uint64_t a, uint64_t b)
{
    const oracle_dtype_info *d = oracle_dtype(r->dtype);
    uint64_t mask = oracle_dtype_mask(r->dtype);
    int is_signed = d->kind == DVG_KIND_SIGNED;
    __int128 va = is_signed ? oracle_int_value(r->dtype, a) : (__int128)a;
    __int128 vb = is_signed ? oracle_int_value(r->dtype, b) : (__int128)b;
    oracle_elem e;
    oracle_expect(r, a, b, &e);
    if (vb == 0)
        return e.kind == ORACLE_UNSPECIFIED && e.rule == ORACLE_RULE_INT_DIV_ZERO;
    __int128 q = r->int_rounding == DVG_ROUND_FLOOR ? ref_floor(va, vb) : ref_trunc(va, vb);
    __int128 other = r->int_rounding == DVG_ROUND_FLOOR ? ref_trunc(va, vb) : ref_floor(va, vb);
    __int128 max = is_signed ? (((__int128)1 << (d->bits - 1)) - 1) : (__int128)mask;
    if (q > max) /* only INT_MIN / -1 */
        return e.kind == ORACLE_UNSPECIFIED && e.rule == ORACLE_RULE_INT_MIN_BY_MINUS_ONE;
    return e.kind == ORACLE_EXACT && e.bits == ((uint64_t)q & mask) && e.has_alt &&
           e.alt == ((uint64_t)other & mask);
}

static void exhaustive(uint32_t dtype, int floor)
{
    oracle_rules r = rules_for(DVG_VARIANT_OPENVINO_DIVIDE_1, dtype, floor);
    uint64_t n = oracle_dtype_mask(dtype) + 1, bad = 0;
    for (uint64_t a = 0; a < n; a++)
        for (uint64_t b = 0; b < n; b++)
            if (!check_pair(&r, a, b) && ++bad <= 5)
                fprintf(stderr, "%s %s: %llu / %llu disagrees\n", oracle_dtype_tag(dtype),
                        floor ? "floor" : "trunc", (unsigned long long)a, (unsigned long long)b);
    CHECKF(bad == 0, "%s %s: %llu of %llu pairs disagree", oracle_dtype_tag(dtype),
           floor ? "floor" : "trunc", (unsigned long long)bad, (unsigned long long)(n * n));
}

static void random_wide(uint32_t dtype, int floor, int count)
{
    oracle_rules r = rules_for(DVG_VARIANT_OPENVINO_DIVIDE_1, dtype, floor);
    uint64_t mask = oracle_dtype_mask(dtype), bad = 0;
    const uint64_t edges[] = {0, 1, mask, mask - 1, mask >> 1, (mask >> 1) + 1, (mask >> 1) - 1,
                              (mask >> 1) + 2, 2, 3, 7, mask - 6};
    const int n_edges = (int)(sizeof edges / sizeof edges[0]);
    for (int i = 0; i < n_edges; i++)
        for (int j = 0; j < n_edges; j++)
            bad += !check_pair(&r, edges[i] & mask, edges[j] & mask);
    for (int i = 0; i < count; i++) {
        uint64_t a = rng() & mask, b = rng() & mask;
        /* Short divisors too, so quotients are large. */
        if (i & 1)
            b &= 0xff;
        bad += !check_pair(&r, a, b);
    }
    CHECKF(bad == 0, "%s %s: %llu random pairs disagree", oracle_dtype_tag(dtype),
           floor ? "floor" : "trunc", (unsigned long long)bad);
}

/* Tensor walk vs per-element answers, with broadcasting. */
static void tensor_walk(void)
{
    oracle_rules r = rules_for(DVG_VARIANT_OPENVINO_DIVIDE_1, DVG_DTYPE_I4, 1);
    oracle_shape a = {4, {3, 1, 4, 1}}, b = {3, {5, 1, 2}};
    oracle_plan p;
    oracle_error err;
    CHECK(oracle_plan_shapes(&r, &a, &b, &p, &err) == ORACLE_OK && p.count == 3 * 5 * 4 * 2);
    uint8_t ab[6], bb[5];
    for (int i = 0; i < 6; i++)
        ab[i] = (uint8_t)rng();
    for (int i = 0; i < 5; i++)
        bb[i] = (uint8_t)rng();
    oracle_elem *out = calloc(p.count, sizeof *out);
    oracle_expect_tensor(&r, &p, ab, bb, out);
    for (uint64_t i = 0; i < p.count; i++) {
        uint64_t ao, bo;
        oracle_plan_offsets(&p, i, &ao, &bo);
        oracle_elem e;
        oracle_expect(&r, oracle_load(DVG_DTYPE_I4, ab, ao), oracle_load(DVG_DTYPE_I4, bb, bo), &e);
        CHECKF(!memcmp(&e, &out[i], sizeof e), "element %llu", (unsigned long long)i);
    }
    free(out);
}

int main(void)
{
    const uint32_t small[] = {DVG_DTYPE_I4, DVG_DTYPE_U4, DVG_DTYPE_I8, DVG_DTYPE_U8};
    for (int i = 0; i < 4; i++)
        for (int floor = 0; floor <= 1; floor++)
            exhaustive(small[i], floor);
    const uint32_t wide[] = {DVG_DTYPE_I16, DVG_DTYPE_U16, DVG_DTYPE_I32, DVG_DTYPE_U32,
                             DVG_DTYPE_I64, DVG_DTYPE_U64};
    for (int i = 0; i < 6; i++)
        for (int floor = 0; floor <= 1; floor++)
            random_wide(wide[i], floor, 200000);
    tensor_walk();
    return check_done("test_int_exhaustive");
}
