/* SPDX-License-Identifier: MIT */
/*
 * bench/bench_oracle.c: elements/s of the float division paths, per float
 * dtype, on the same pairs (half edge-derived and constructed near ties,
 * half uniform random bit patterns, fixed seed):
 *   exact  f16_div / bf16_div / f32_div / f64_div, one call per element;
 *   fast   oracle_fastpath_div over the whole array (one FP-environment
 *          save and restore per call);
 *   mpfr   MPFR at precision p with the format's exponent range and
 *          mpfr_subnormalize (tests/oracle/mpfr_ref.c).
 * Goals it reports against: fast >= 100x MPFR on f32, exact >= 10x MPFR on
 * every float dtype. Single thread. It prints figures; it never fails on
 * speed (exit 1 only when the three paths disagree on a result).
 *
 * Usage: bench_oracle [pairs-per-dtype]   (default 2097152)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "divergence/iut.h"
#include "float_gen.h"
#include "mpfr_ref.h"
#include "oracle/exact.h"
#include "oracle/fastpath.h"

#define SEED 0x62656E63u /* "benc" */
#define REPEATS 3

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void exact_f16(const uint64_t *a, const uint64_t *b, size_t n, uint64_t *z)
{
    for (size_t i = 0; i < n; i++)
        z[i] = f16_div((dvg_f16){ (uint16_t)a[i] }, (dvg_f16){ (uint16_t)b[i] }).v;
}

static void exact_bf16(const uint64_t *a, const uint64_t *b, size_t n, uint64_t *z)
{
    for (size_t i = 0; i < n; i++)
        z[i] = bf16_div((dvg_bf16){ (uint16_t)a[i] }, (dvg_bf16){ (uint16_t)b[i] }).v;
}

static void exact_f32(const uint64_t *a, const uint64_t *b, size_t n, uint64_t *z)
{
    for (size_t i = 0; i < n; i++)
        z[i] = f32_div((dvg_f32){ (uint32_t)a[i] }, (dvg_f32){ (uint32_t)b[i] }).v;
}

static void exact_f64(const uint64_t *a, const uint64_t *b, size_t n, uint64_t *z)
{
    for (size_t i = 0; i < n; i++)
        z[i] = f64_div((dvg_f64){ a[i] }, (dvg_f64){ b[i] }).v;
}

static void (*const EXACT[TFMT_COUNT])(const uint64_t *, const uint64_t *, size_t, uint64_t *) = {
    exact_f16, exact_bf16, exact_f32, exact_f64,
};

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : (size_t)1 << 21;
    uint64_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    uint64_t *ze = malloc(n * sizeof *ze), *zf = malloc(n * sizeof *zf);
    uint64_t *zm = malloc(n * sizeof *zm);
    double exact_ratio_min = 1e300, fast_ratio_f32 = 0;
    int mismatched = 0;

    if (!a || !b || !ze || !zf || !zm || n == 0) {
        fprintf(stderr, "bench_oracle: cannot allocate %zu pairs\n", n);
        return 2;
    }
    printf("bench_oracle: %zu pairs per dtype (half edge-derived and near ties, half "
           "uniform random), one thread, best of %d for exact and fast\n", n, REPEATS);
    printf("%-5s %14s %14s %14s %12s %12s\n", "dtype", "exact elem/s", "fast elem/s",
           "mpfr elem/s", "exact/mpfr", "fast/mpfr");
    for (int k = 0; k < TFMT_COUNT; k++) {
        const tfmt *f = &tfmt_all[k];
        double t_exact = 1e300, t_fast = 1e300, t_mpfr, t0, r_exact, r_fast, r_mpfr;
        uint64_t bad = 0;
        tgen g = { 0 };
        mref m;

        if (tgen_open(&g, f, SEED + (uint64_t)k) != 0) {
            fprintf(stderr, "bench_oracle: out of memory\n");
            return 2;
        }
        for (size_t i = 0; i < n; i++)
            tgen_pair(&g, &a[i], &b[i]);
        tgen_close(&g);

        for (int r = 0; r < REPEATS; r++) {
            t0 = now();
            EXACT[k](a, b, n, ze);
            t0 = now() - t0;
            if (t0 < t_exact)
                t_exact = t0;
            t0 = now();
            oracle_fastpath_div(f->dtype, a, b, n, zf);
            t0 = now() - t0;
            if (t0 < t_fast)
                t_fast = t0;
        }
        mref_init(&m, f);
        mref_enter(&m);
        t0 = now();
        for (size_t i = 0; i < n; i++)
            zm[i] = mref_div(&m, a[i], b[i]);
        t_mpfr = now() - t0;
        mref_clear(&m);

        for (size_t i = 0; i < n; i++)
            if (!tfmt_same(f, ze[i], zm[i]) || !tfmt_same(f, ze[i], zf[i]))
                bad++;
        r_exact = (double)n / t_exact;
        r_fast = (double)n / t_fast;
        r_mpfr = (double)n / t_mpfr;
        printf("%-5s %14.4g %14.4g %14.4g %11.1fx %11.1fx\n", f->tag, r_exact, r_fast,
               r_mpfr, r_exact / r_mpfr, r_fast / r_mpfr);
        if (bad) {
            printf("%-5s %" PRIu64 " results differ between exact, fast and MPFR\n", f->tag,
                   bad);
            mismatched = 1;
        }
        if (r_exact / r_mpfr < exact_ratio_min)
            exact_ratio_min = r_exact / r_mpfr;
        if (f->dtype == DVG_DTYPE_F32)
            fast_ratio_f32 = r_fast / r_mpfr;
    }
    printf("goal: fast >= 100x MPFR on f32: %.1fx (%s)\n", fast_ratio_f32,
           fast_ratio_f32 >= 100 ? "met" : "NOT met");
    printf("goal: exact >= 10x MPFR on every float dtype: lowest %.1fx (%s)\n",
           exact_ratio_min, exact_ratio_min >= 10 ? "met" : "NOT met");
    mpfr_free_cache();
    free(a);
    free(b);
    free(ze);
    free(zf);
    free(zm);
    return mismatched ? 1 : 0;
}
