/* SPDX-License-Identifier: MIT */
/*
 * tests/oracle/test_fastpath.c: the fast path (oracle/fastpath.h).
 *  - DIVERGENCE_NO_FASTPATH=1 disables every dtype (in a child process,
 *    before this process runs its own self-check);
 *  - in a normal environment the self-check enables f16, bf16, f32, f64;
 *  - fast == exact on the edge table crossed with itself and on 1M pairs
 *    per dtype (half edge-derived and near ties, half uniform random);
 *  - a caller that set FE_UPWARD, FTZ and DAZ (and, with glibc, unmasked
 *    traps) still gets the exact answers, and gets its rounding mode,
 *    MXCSR, traps and flags back unchanged.
 *
 * Usage: test_fastpath [pairs-per-dtype]   (default 1000000)
 */
#include <fenv.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "divergence/iut.h"
#include "float_gen.h"
#include "oracle/fastpath.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__SSE__)
#include <xmmintrin.h>
#define HAVE_MXCSR 1
#define MXCSR_FTZ 0x8000u
#define MXCSR_DAZ 0x0040u
#else
#define HAVE_MXCSR 0
#endif

#define SEED 0x66617374u /* "fast" */
#define BATCH 4096

/* Runs the child half of the DIVERGENCE_NO_FASTPATH check: exit status 0
 * when nothing is enabled and the batch function still answers. */
static int child_no_fastpath(void)
{
    uint64_t a[1] = { 0x3C00 }, b[1] = { 0x4000 }, z[1] = { 0 };
    int any = 0;

    setenv("DIVERGENCE_NO_FASTPATH", "1", 1);
    if (oracle_fastpath_selfcheck() != 0)
        return 1;
    for (int k = 0; k < TFMT_COUNT; k++)
        any |= oracle_fastpath_enabled(tfmt_all[k].dtype);
    if (any)
        return 2;
    if (oracle_fastpath_div(DVG_DTYPE_F16, a, b, 1, z) != 0 || z[0] != 0x3800)
        return 3;
    return 0;
}

/* Compares n fast-path quotients with the exact path; returns the number
 * of disagreements and prints the first few. */
static uint64_t compare_batch(const tfmt *f, const uint64_t *a, const uint64_t *b, size_t n,
                              const char *what)
{
    static uint64_t fast[BATCH];
    uint64_t bad = 0;

    if (oracle_fastpath_div(f->dtype, a, b, n, fast) != 0)
        return n;
    for (size_t i = 0; i < n; i++) {
        uint64_t exact = tfmt_exact_div(f, a[i], b[i]);
        if (!tfmt_same(f, exact, fast[i])) {
            if (bad < 5)
                fprintf(stderr, "%s %s: %#" PRIx64 " / %#" PRIx64 ": exact %#" PRIx64
                        ", fast %#" PRIx64 "\n", f->tag, what, a[i], b[i], exact, fast[i]);
            bad++;
        }
    }
    return bad;
}

/* Edge table x edge table, then `count` mixed pairs: disagreements. */
static uint64_t compare_all(const tfmt *f, uint64_t count, const char *what, uint64_t *pairs)
{
    static uint64_t a[BATCH], b[BATCH];
    uint64_t bad = 0, total;
    size_t n = 0;
    tgen g = { 0 };

    if (tgen_open(&g, f, SEED + f->dtype) != 0)
        return 1;
    total = (uint64_t)g.n_edges * g.n_edges + count;
    for (uint64_t i = 0; i < total; i++) {
        if (i < (uint64_t)g.n_edges * g.n_edges) {
            a[n] = g.pool[i / g.n_edges];
            b[n] = g.pool[i % g.n_edges];
        } else {
            tgen_pair(&g, &a[n], &b[n]);
        }
        if (++n == BATCH || i + 1 == total) {
            bad += compare_batch(f, a, b, n, what);
            n = 0;
        }
    }
    *pairs = total;
    tgen_close(&g);
    return bad;
}

int main(int argc, char **argv)
{
    uint64_t count = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    uint64_t dummy[1] = { 0 };
    int status = -1;
    pid_t pid;

    /* DIVERGENCE_NO_FASTPATH=1, in a child that has not run the
     * self-check yet. */
    fflush(stdout);
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0)
        _exit(child_no_fastpath());
    if (pid > 0) {
        CHECK(waitpid(pid, &status, 0) == pid);
        CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0,
               "DIVERGENCE_NO_FASTPATH=1 child: status %#x", status);
    }

    /* The self-check in a normal environment. */
    unsetenv("DIVERGENCE_NO_FASTPATH");
    CHECK(oracle_fastpath_selfcheck() == 4);
    CHECK(oracle_fastpath_selfcheck() == 4); /* once per process */
    for (int k = 0; k < TFMT_COUNT; k++)
        CHECKF(oracle_fastpath_enabled(tfmt_all[k].dtype) == 1, "%s", tfmt_all[k].tag);
    CHECK(oracle_fastpath_enabled(DVG_DTYPE_I32) == 0);
    CHECK(oracle_fastpath_enabled(DVG_DTYPE_NONE) == 0);
    CHECK(oracle_fastpath_enabled(1000) == 0);
    CHECK(oracle_fastpath_div(DVG_DTYPE_I32, dummy, dummy, 1, dummy) == -1);
    CHECK(oracle_fastpath_div(DVG_DTYPE_F32, NULL, NULL, 0, NULL) == 0);

    /* fast == exact. */
    for (int k = 0; k < TFMT_COUNT; k++) {
        uint64_t pairs = 0, bad = compare_all(&tfmt_all[k], count, "default env", &pairs);
        printf("%-4s: %" PRIu64 " pairs fast vs exact, %" PRIu64 " disagreements\n",
               tfmt_all[k].tag, pairs, bad);
        CHECKF(bad == 0, "%s: %" PRIu64 " disagreements", tfmt_all[k].tag, bad);
    }

    /* A hostile caller: round upward, FTZ and DAZ on, traps unmasked, the
     * inexact flag raised. No host FP runs in this block but the fast
     * path's own. */
    {
        uint64_t bad = 0, pairs = 0, total = 0;
        int round_after, inexact_after, others_after;
#if HAVE_MXCSR
        unsigned int csr_before, csr_after;
#endif
#ifdef __GLIBC__
        int traps_after;
#endif
        fenv_t saved;

        fegetenv(&saved);
        feclearexcept(FE_ALL_EXCEPT);
        feraiseexcept(FE_INEXACT);
        CHECK(fesetround(FE_UPWARD) == 0);
#ifdef __GLIBC__
        feenableexcept(FE_DIVBYZERO | FE_INVALID | FE_OVERFLOW);
#endif
#if HAVE_MXCSR
        _mm_setcsr(_mm_getcsr() | MXCSR_FTZ | MXCSR_DAZ);
        csr_before = _mm_getcsr();
#endif
        for (int k = 0; k < TFMT_COUNT; k++) {
            bad += compare_all(&tfmt_all[k], count / 10, "hostile env", &pairs);
            total += pairs;
        }
#if HAVE_MXCSR
        csr_after = _mm_getcsr();
#endif
        round_after = fegetround();
        inexact_after = fetestexcept(FE_INEXACT) != 0;
        others_after = fetestexcept(FE_ALL_EXCEPT & ~FE_INEXACT);
#ifdef __GLIBC__
        traps_after = fegetexcept();
        fedisableexcept(FE_ALL_EXCEPT);
#endif
        fesetenv(&saved);
#if HAVE_MXCSR
        _mm_setcsr(_mm_getcsr() & ~(MXCSR_FTZ | MXCSR_DAZ));
#endif

        printf("hostile env (FE_UPWARD, FTZ, DAZ, traps): %" PRIu64
               " pairs fast vs exact, %" PRIu64 " disagreements\n", total, bad);
        CHECKF(bad == 0, "%" PRIu64 " disagreements under the caller's environment", bad);
        CHECKF(round_after == FE_UPWARD, "rounding mode after: %#x", (unsigned)round_after);
        CHECK(inexact_after);
        CHECKF(others_after == 0, "flags leaked: %#x", (unsigned)others_after);
#ifdef __GLIBC__
        CHECKF(traps_after == (FE_DIVBYZERO | FE_INVALID | FE_OVERFLOW), "traps after: %#x",
               (unsigned)traps_after);
#endif
#if HAVE_MXCSR
        CHECKF(csr_after == csr_before, "MXCSR before %#x, after %#x", csr_before, csr_after);
        CHECK((csr_after & (MXCSR_FTZ | MXCSR_DAZ)) == (MXCSR_FTZ | MXCSR_DAZ));
#endif
    }
    return check_done("test_fastpath");
}
