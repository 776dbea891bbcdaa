/* SPDX-License-Identifier: MIT */
/*
 * bench/bench_shapes.c: what the shape-path walker costs a claim.
 *
 * This file contains a small program that builds, for every (variant,
 * dtype) pair the oracle knows, the list of shape-path cases certify runs
 * after its random cases (harness/cases/shapes.h), and prints per family
 * of sizes how many cases and output elements a claim gets: the inner
 * sizes, broadcast classes and alignments (every case below 2^10
 * elements), then each power-of-two tier 2^k - 1 .. 2^k + 1. It also times
 * the oracle's expectation of one claim's cases in this process (the
 * judge's share of certify's cost, without the worker and the plugin), with
 * the same claim's cases without the shape paths as the baseline.
 *
 * Usage: bench_shapes [MAX_TIER]   (default SHAPES_MAX_TIER)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "harness/base/alloc.h"
#include "harness/cases/gen.h"
#include "harness/cases/shapes.h"
#include "oracle/dtype.h"
#include "oracle/expect.h"
#include "oracle/rules.h"
#include "oracle/shape.h"
#include "oracle/variant.h"

#define TIERS (SHAPES_MAX_TIER + 1)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The tier of an element count: 0 below 2^10 (the path families), else k
 * with 2^k - 1 <= n <= 2^k + 1 rounded to the nearest power. */
static uint32_t tier_of(uint64_t n)
{
    if (n < 1000)
        return 0;
    uint32_t k = 0;
    while (k < 63 && (UINT64_C(1) << (k + 1)) <= n + 1)
        k++;
    return k < TIERS ? k : TIERS - 1;
}

/* Output elements of spec s under the variant's rules, or 0 if invalid. */
static uint64_t out_elements(uint32_t variant, uint32_t dtype, const shapes_spec *s)
{
    gen_rng g;
    gen_seed(&g, 1, 0);
    divcase c;
    if (shapes_case(&g, variant, dtype, s, "bench", &c))
        return 0;
    oracle_rules r;
    oracle_plan p;
    uint64_t n = 0;
    if (oracle_rules_resolve(variant, dtype, &c.attrs, &r, NULL) == ORACLE_OK &&
        oracle_plan_shapes(&r, &c.a_shape, &c.b_shape, &p, NULL) == ORACLE_OK)
        n = p.count;
    divcase_free(&c);
    return n;
}

typedef struct tally {
    uint64_t cases[TIERS], elements[TIERS];
} tally;

/* Times the oracle's expectation of every case of one claim's list. */
static double expect_seconds(uint32_t variant, uint32_t dtype, const shapes_list *l,
                             uint64_t *elements)
{
    gen_rng g;
    gen_seed(&g, 1, 0);
    double spent = 0;
    *elements = 0;
    for (size_t i = 0; i < l->n; i++) {
        divcase c;
        if (shapes_case(&g, variant, dtype, &l->spec[i], "bench", &c))
            continue;
        oracle_rules r;
        oracle_plan p;
        if (oracle_rules_resolve(variant, dtype, &c.attrs, &r, NULL) == ORACLE_OK &&
            oracle_plan_shapes(&r, &c.a_shape, &c.b_shape, &p, NULL) == ORACLE_OK) {
            oracle_elem *e = dvg_malloc((p.count ? p.count : 1) * sizeof *e);
            if (e) {
                double t0 = now();
                oracle_expect_tensor(&r, &p, c.a, c.b, e);
                spent += now() - t0;
                *elements += p.count;
                dvg_free(e);
            }
        }
        divcase_free(&c);
    }
    return spent;
}

int main(int argc, char **argv)
{
    uint32_t max_tier = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : SHAPES_MAX_TIER;
    tally all = {{0}, {0}};
    uint64_t claims = 0, total_cases = 0, total_elements = 0, most = 0;
    for (uint32_t vi = 0; vi < oracle_variant_count(); vi++) {
        const oracle_variant *v = oracle_variant_at(vi);
        for (uint32_t d = 0; d < DVG_DTYPE_COUNT; d++) {
            if (!oracle_variant_has_dtype(v, d))
                continue;
            shapes_list l;
            if (shapes_build(v->id, d, max_tier, &l)) {
                fprintf(stderr, "bench_shapes: out of memory\n");
                return 1;
            }
            uint64_t claim_elements = 0;
            for (size_t i = 0; i < l.n; i++) {
                uint64_t n = out_elements(v->id, d, &l.spec[i]);
                all.cases[tier_of(n)]++;
                all.elements[tier_of(n)] += n;
                claim_elements += n;
            }
            claims++;
            total_cases += l.n;
            total_elements += claim_elements;
            if (claim_elements > most)
                most = claim_elements;
            shapes_list_free(&l);
        }
    }
    printf("shape paths per claim, mean over the %" PRIu64 " (variant, dtype) claims of the oracle"
           " (max tier %u):\n", claims, max_tier);
    printf("| family | cases per claim | output elements per claim |\n| --- | --- | --- |\n");
    for (uint32_t k = 0; k < TIERS; k++) {
        if (!all.cases[k])
            continue;
        char name[64];
        if (k == 0)
            snprintf(name, sizeof name, "paths below 1000 elements");
        else
            snprintf(name, sizeof name, "about 2^%u elements", k);
        printf("| %s | %.2f | %.0f |\n", name, (double)all.cases[k] / (double)claims,
               (double)all.elements[k] / (double)claims);
    }
    printf("| all | %.1f | %.0f (largest claim %" PRIu64 ") |\n", (double)total_cases / (double)claims,
           (double)total_elements / (double)claims, most);
    /* The judge's share, in this process, for one float and one integer claim. */
    static const struct { const char *variant; uint32_t dtype; } timed[] = {
        {"onnx-div-14", DVG_DTYPE_F32}, {"onnx-div-14", DVG_DTYPE_I32}};
    for (size_t i = 0; i < sizeof timed / sizeof timed[0]; i++) {
        const oracle_variant *v = oracle_variant_by_name(timed[i].variant);
        shapes_list l;
        if (!v || shapes_build(v->id, timed[i].dtype, max_tier, &l))
            return 1;
        uint64_t n;
        double s = expect_seconds(v->id, timed[i].dtype, &l, &n);
        printf("oracle expectation of the %s %s shape paths: %zu cases, %" PRIu64
               " elements, %.3f s (%.3g elements/s)\n",
               v->name, oracle_dtype_tag(timed[i].dtype), l.n, n, s, s > 0 ? (double)n / s : 0);
        shapes_list_free(&l);
    }
    return 0;
}
