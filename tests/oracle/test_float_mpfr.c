/* SPDX-License-Identifier: MIT */
/*
 * tests/oracle/test_float_mpfr.c: the exact path against MPFR (precision p,
 * the format's exponent range, mpfr_subnormalize, MPFR_RNDN) at a fixed
 * seed. Per float dtype: the edge table crossed with itself, then `count`
 * pairs of which half are edge-derived (TestFloat-style values, the edge
 * table, constructed near-tie and exact-tie quotients, the subnormal /
 * normal and overflow boundaries) and half uniform random bit patterns.
 * Zero disagreements required (NaN and NaN agree).
 *
 * Usage: test_float_mpfr [pairs-per-dtype]   (default 1000000)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "float_gen.h"
#include "mpfr_ref.h"

#define SEED 0x6D706672u /* "mpfr" */

int main(int argc, char **argv)
{
    uint64_t count = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;

    for (int k = 0; k < TFMT_COUNT; k++) {
        const tfmt *f = &tfmt_all[k];
        uint64_t pairs = 0, bad = 0;
        tgen g = { 0 };
        mref m;

        CHECK(tgen_open(&g, f, SEED + (uint64_t)k) == 0);
        if (!g.pool)
            break;
        mref_init(&m, f);
        mref_enter(&m);
        for (uint64_t i = 0; i < (uint64_t)g.n_edges * g.n_edges + count; i++) {
            uint64_t a, b, want, got;
            if (i < (uint64_t)g.n_edges * g.n_edges) {
                a = g.pool[i / g.n_edges];
                b = g.pool[i % g.n_edges];
            } else {
                tgen_pair(&g, &a, &b);
            }
            want = mref_div(&m, a, b);
            got = tfmt_exact_div(f, a, b);
            pairs++;
            if (!tfmt_same(f, want, got)) {
                if (bad < 10)
                    fprintf(stderr, "%s: %#" PRIx64 " / %#" PRIx64 ": mpfr %#" PRIx64
                            ", exact %#" PRIx64 "\n", f->tag, a, b, want, got);
                bad++;
            }
        }
        printf("%-4s: %" PRIu64 " pairs checked against MPFR, %" PRIu64
               " disagreements\n", f->tag, pairs, bad);
        CHECKF(bad == 0, "%s: %" PRIu64 " disagreements", f->tag, bad);
        mref_clear(&m);
        tgen_close(&g);
    }
    mpfr_free_cache();
    return check_done("test_float_mpfr");
}
