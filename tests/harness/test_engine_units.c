/* SPDX-License-Identifier: MIT */
/*
 * tests/harness/test_engine_units.c: the run engine's pure rules, called
 * directly rather than reached end to end: shard membership and its
 * check, the claim filter, the CPU models' names (a name found gives its
 * model back), the pace rules of performance-cliff (peers, ratio, floor,
 * and the median a note carries, written and read back), and the hazard
 * classes of the elements where conformant implementations may differ.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "check.h"
#include "harness/base/cpumodel.h"
#include "harness/run/engine/crosscheck.h"
#include "harness/run/engine/engine.h"
#include "harness/run/engine/pace.h"
#include "oracle/expect.h"
#include "oracle/rules.h"
#include "oracle/variant.h"

static void shards(void)
{
    /* Every unit belongs to exactly one shard of N; N <= 1 holds all. */
    for (uint32_t n = 2; n <= 7; n++)
        for (uint64_t k = 0; k < 100; k++) {
            int owners = 0;
            for (uint32_t i = 0; i < n; i++)
                owners += run_shard_holds(i, n, k);
            CHECKF(owners == 1, "unit %llu has %d owners among %u shards",
                   (unsigned long long)k, owners, n);
        }
    for (uint64_t k = 0; k < 10; k++)
        CHECK(run_shard_holds(0, 0, k) && run_shard_holds(0, 1, k));
    char *text = NULL;
    size_t len = 0;
    FILE *err = open_memstream(&text, &len);
    CHECK(run_shard_check("certify", 2, 3, err) == 0);
    CHECK(run_shard_check("certify", 0, 1, err) == 0);
    CHECK(run_shard_check("certify", 3, 3, err) == -1);
    fclose(err);
    CHECKF(text && strstr(text, "divergence certify: shard 3/3: the index must be below"),
           "the shard error says: %s", text ? text : "(nothing)");
    free(text);
}

static void filters(void)
{
    run_filter none = {0};
    CHECK(run_filter_selects(&none, DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_F32));
    CHECK(!run_filter_any(&none));
    run_filter f = {.variants = {DVG_VARIANT_ONNX_DIV_14}, .n_variants = 1,
                    .dtypes = {DVG_DTYPE_I8, DVG_DTYPE_F16}, .n_dtypes = 2};
    CHECK(run_filter_any(&f));
    CHECK(run_filter_selects(&f, DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_I8));
    CHECK(run_filter_selects(&f, DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_F16));
    CHECK(!run_filter_selects(&f, DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_F32));
    CHECK(!run_filter_selects(&f, DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_I8));
}

static void cpu_models(void)
{
    CHECK(cpum_count() >= 3);
    CHECK(cpum_get(CPUM_NATIVE) && !strcmp(cpum_get(CPUM_NATIVE)->name, "native"));
    CHECK(cpum_get(CPUM_NATIVE)->qemu == NULL);
    for (int i = 0; i < cpum_count(); i++) {
        const cpum_model *m = cpum_get(i);
        CHECKF(cpum_find(m->name) == i, "cpum_find(%s) is %d, not %d", m->name,
               cpum_find(m->name), i);
        /* any case */
        char upper[64];
        snprintf(upper, sizeof upper, "%s", m->name);
        for (char *p = upper; *p; p++)
            if (*p >= 'a' && *p <= 'z')
                *p = (char)(*p - 'a' + 'A');
        CHECKF(cpum_find(upper) == i, "cpum_find(%s) is %d", upper, cpum_find(upper));
        CHECKF(i == CPUM_NATIVE || (m->qemu && m->level >= 1), "model %s has no QEMU cpu", m->name);
    }
    CHECK(cpum_find("no-such-cpu") == -1);
    CHECK(cpum_find("") == -1);
    int below = cpum_below_host();
    CHECK(below == -1 || (below > 0 && below < cpum_count() &&
                          cpum_get(below)->level < cpum_host_level()));
}

static void pace(void)
{
    static pace_book b;
    memset(&b, 0, sizeof b);
    uint64_t count = UINT64_C(1) << 16;
    pace_verdict v;
    /* Too few peers: no judgement. */
    for (uint32_t i = 0; i + 1 < PACE_PEERS; i++)
        pace_add(&b, DVG_DTYPE_F32, count, count * 2); /* 2 ns per element */
    CHECK(!pace_judge(&b, DVG_DTYPE_F32, count, count * 200, &v));
    pace_add(&b, DVG_DTYPE_F32, count, count * 2);
    /* Enough peers: PACE_RATIO times their median is a cliff... */
    CHECK(pace_judge(&b, DVG_DTYPE_F32, count, count * 2 * PACE_RATIO, &v));
    CHECK(v.peers >= PACE_PEERS && v.median > 1.9 && v.median < 2.1);
    /* ...just under it is not, */
    CHECK(!pace_judge(&b, DVG_DTYPE_F32, count, count * 2 * PACE_RATIO - count, &v));
    /* another dtype has no peers, */
    CHECK(!pace_judge(&b, DVG_DTYPE_F64, count, count * 2 * PACE_RATIO * 10, &v));
    /* and a case under the floor in all is never one. */
    CHECK(!pace_is_cliff(1000.0, 1.0, PACE_MIN_NS - 1));
    CHECK(pace_is_cliff(1000.0, 1.0, PACE_MIN_NS));
    CHECK(!pace_is_cliff(19.9, 1.0, PACE_MIN_NS * 10));
    /* Tiny cases are not added. */
    static pace_book small;
    memset(&small, 0, sizeof small);
    pace_add(&small, DVG_DTYPE_F32, PACE_MIN_ELEMENTS - 1, 1000);
    CHECK(small.n[DVG_DTYPE_F32] == 0);
    /* The note carries the median replay compares with. */
    CHECK(pace_judge(&b, DVG_DTYPE_F32, count, count * 100, &v));
    char note[512];
    pace_describe(&v, DVG_DTYPE_F32, count, count * 100, note, sizeof note);
    double median = pace_median_of_note(note);
    CHECKF(median > 0.99 * v.median && median < 1.01 * v.median,
           "the note's median %g, the verdict's %g: %s", median, v.median, note);
    CHECK(pace_median_of_note("wrong-value in 3 elements") == 0);
}

/* The hazard class of a / b under (variant, dtype)'s default rules. */
static uint32_t hazard(uint32_t variant, uint32_t dtype, uint64_t a, uint64_t b, int *possible)
{
    const oracle_variant *v = oracle_variant_get(variant);
    dvg_attrs attrs;
    oracle_rules r;
    oracle_error why;
    oracle_elem e;
    oracle_attrs_default(v, &attrs);
    if (oracle_rules_resolve(variant, dtype, &attrs, &r, &why) != ORACLE_OK)
        return HAZARD_COUNT;
    oracle_expect(&r, a, b, &e);
    *possible = hazard_possible(&e);
    return hazard_of(&r, &e, 0);
}

static void hazards(void)
{
    int possible;
    CHECK(hazard(DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_I32, 5, 0, &possible) == HAZARD_INT_DIV_ZERO &&
          possible);
    CHECK(hazard(DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_I32, 0x80000000u, 0xffffffffu, &possible) ==
              HAZARD_INT_MIN_NEG_ONE &&
          possible);
    CHECK(hazard(DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_F32, 0, 0, &possible) == HAZARD_NAN &&
          possible); /* 0 / 0: NaN, its sign and payload free */
    CHECK(hazard(DVG_VARIANT_OPENVINO_DIVIDE_1, DVG_DTYPE_F32, 0x3f800000u, 0, &possible) ==
              HAZARD_FLOAT_DIV_ZERO &&
          possible);
    hazard(DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_F32, 0x40400000u, 0x3f800000u, &possible);
    CHECK(!possible); /* 3 / 1: exact, no freedom */
    /* Names round-trip. */
    for (uint32_t h = 0; h < HAZARD_COUNT; h++)
        CHECKF(hazard_by_name(hazard_name(h)) == (int)h, "hazard %u: %s", h, hazard_name(h));
    CHECK(hazard_by_name("wrong-value") == -1);
}

int main(void)
{
    shards();
    filters();
    cpu_models();
    pace();
    hazards();
    return check_done("test_engine_units");
}
