/* SPDX-License-Identifier: MIT */
/*
 * tests/oracle/test_float_slow.c: the exact path (f16_div, bf16_div,
 * f32_div, f64_div) against the deliberately slow second implementation
 * (slow_div.c), at a fixed seed, on: the edge table crossed with itself,
 * TestFloat-style values (boundary exponents x significand patterns)
 * crossed with the edge table, constructed near-tie and exact-tie
 * quotients, and uniform random pairs. Zero disagreements required (NaN
 * and NaN agree).
 *
 * Usage: test_float_slow [random-pairs-per-dtype]   (default 300000)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "float_gen.h"
#include "slow_div.h"

#define SEED 0x736C6F77u /* "slow" */
#define NEAR_TIES 200000

typedef struct tally {
    const tfmt *f;
    uint64_t pairs;
    uint64_t bad;
} tally;

static void compare(tally *t, uint64_t a, uint64_t b)
{
    uint64_t want = slow_div(t->f->ebits, t->f->fbits, a, b);
    uint64_t got = tfmt_exact_div(t->f, a, b);
    t->pairs++;
    if (!tfmt_same(t->f, want, got)) {
        if (t->bad < 10)
            fprintf(stderr, "%s: %#" PRIx64 " / %#" PRIx64 ": slow %#" PRIx64
                    ", exact %#" PRIx64 "\n", t->f->tag, a, b, want, got);
        t->bad++;
    }
}

int main(int argc, char **argv)
{
    uint64_t n_random = argc > 1 ? strtoull(argv[1], NULL, 10) : 300000;

    for (int k = 0; k < TFMT_COUNT; k++) {
        const tfmt *f = &tfmt_all[k];
        tally t = { f, 0, 0 };
        uint64_t state = SEED + (uint64_t)k, mask = tfmt_mask(f);
        tgen g = { 0 };
        uint64_t *tf;
        size_t n_tf;

        CHECK(tgen_open(&g, f, SEED) == 0);
        if (!g.pool)
            break;
        /* The edge table crossed with itself. */
        for (size_t i = 0; i < g.n_edges; i++)
            for (size_t j = 0; j < g.n_edges; j++)
                compare(&t, g.pool[i], g.pool[j]);
        /* TestFloat values crossed with the edge table, both ways. */
        tf = g.pool + g.n_edges;
        n_tf = g.n_pool - g.n_edges;
        for (size_t i = 0; i < n_tf; i++) {
            for (size_t j = 0; j < g.n_edges; j++) {
                compare(&t, tf[i], g.pool[j]);
                compare(&t, g.pool[j], tf[i]);
            }
        }
        /* TestFloat values crossed with each other, sampled. */
        for (uint64_t i = 0; i < n_random / 2; i++) {
            uint64_t r = tgen_next(&state);
            compare(&t, tf[(r >> 8) % n_tf], tf[(r >> 36) % n_tf]);
        }
        /* Constructed near ties and exact ties. */
        for (uint64_t i = 0; i < NEAR_TIES; i++) {
            uint64_t a, b;
            tgen_near_tie(f, &state, &a, &b);
            compare(&t, a, b);
        }
        /* Uniform random bit patterns. */
        for (uint64_t i = 0; i < n_random; i++) {
            uint64_t a = tgen_next(&state) & mask;
            uint64_t b = tgen_next(&state) & mask;
            compare(&t, a, b);
        }
        printf("%-4s: %" PRIu64 " pairs checked against slow_div, %" PRIu64
               " disagreements\n", f->tag, t.pairs, t.bad);
        CHECKF(t.bad == 0, "%s: %" PRIu64 " disagreements", f->tag, t.bad);
        tgen_close(&g);
    }
    return check_done("test_float_slow");
}
