/* SPDX-License-Identifier: MIT */
/*
 * bench/bench_sweep.c: the baselines of `divergence sweep`, measured in
 * this process on the operands the sweep gives the kernel.
 *
 *   kernel   the plugin's compute() alone over every pair of the dtype, in
 *            the sweep's batches (same layout, same batch size), on
 *            THREADS threads, timed inside compute() only (the operands are
 *            made outside the clock): the kernel's own compute time, as
 *            wall time of the busiest thread and CPU time of all. The
 *            harness overhead is the sweep's wall time over this one.
 *   inproc   compute() and the sweep's judging (sweep_judge_batch) in this
 *            process, no worker, no shared memory, no poison: what the
 *            sweep would cost without isolation.
 *
 * Each is measured three times; the best is printed (the machine may be
 * shared with other work).
 *
 * Usage: bench_sweep PLUGIN.so DTYPE VARIANT numpy|flat|axis0 [THREADS [BATCH_PAIRS]]
 * Prints one line: kernel_wall=S kernel_cpu=S inproc_wall=S inproc_cpu=S pairs=N
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness/run/sweep/sweep.h"
#include "oracle/dtype.h"
#include "oracle/fastpath.h"
#include "oracle/rowcheck.h"
#include "oracle/variant.h"

static const dvg_descriptor *D;
static uint32_t dtype, variant, layout, n, k, threads;
static uint64_t rows;
static oracle_rules rules;
static uint8_t *cols;
static int judge_too;

static double now(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

typedef struct job {
    uint32_t index;
    uint64_t listed;
    double compute_wall, compute_cpu; /* inside compute() only */
    int failed;
} job;

/* Elements at..at+count-1 set to `bits` (bytes-wide dtypes). */
static void fill(uint8_t *p, uint64_t at, uint64_t count, uint64_t bits)
{
    uint32_t w = oracle_dtype(dtype)->bits;
    if (w < 8) {
        for (uint64_t i = 0; i < count; i++)
            oracle_store(dtype, p, at + i, bits);
        return;
    }
    size_t esize = w / 8, total = (size_t)count * esize, done = 0;
    uint8_t *dst = p + at * esize;
    for (; done < total && done < 64; done += esize)
        memcpy(dst + done, &bits, esize);
    while (done < total) {
        size_t k2 = done < total - done ? done : total - done;
        memcpy(dst + done, dst, k2);
        done += k2;
    }
}

static void *run(void *arg)
{
    job *j = arg;
    dvg_iut *iut;
    if (D->open("", &iut) != DVG_OK) {
        j->failed = 1;
        return NULL;
    }
    uint32_t bits = oracle_dtype(dtype)->bits;
    uint64_t pairs = (uint64_t)k * n;
    size_t big = oracle_nbytes(dtype, pairs) + 64;
    uint8_t *a = malloc(big), *b = malloc(big), *c = malloc(big);
    uint64_t *fixed = malloc(k * sizeof *fixed);
    sweep_judge *jd = judge_too ? sweep_judge_new(pairs) : NULL;
    verdict_profile prof;
    char err[64];
    verdict_profile_parse("exact", &prof, err, sizeof err);
    verdict_tally t;
    memset(&t, 0, sizeof t);
    dvg_tensor ta = {0}, tb = {0}, tc = {0};
    ta.dtype = tb.dtype = tc.dtype = dtype;
    ta.data = a;
    tb.data = b;
    tc.data = c;
    if (layout == 0) { /* numpy: A (k, 1), B (n) */
        ta.rank = 2, ta.shape[0] = k, ta.shape[1] = 1, ta.nbytes = oracle_nbytes(dtype, k);
        tb.rank = 1, tb.shape[0] = n, tb.nbytes = oracle_nbytes(dtype, n);
        memcpy(b, cols, tb.nbytes);
    } else if (layout == 1) { /* flat */
        ta.rank = tb.rank = 1, ta.shape[0] = tb.shape[0] = (int64_t)pairs;
        ta.nbytes = tb.nbytes = oracle_nbytes(dtype, pairs);
        for (uint32_t i = 0; i < k; i++)
            memcpy(b + (size_t)i * n * bits / 8, cols, (size_t)n * bits / 8);
    } else { /* axis 0: A (k, n), B (k) */
        ta.rank = 2, ta.shape[0] = k, ta.shape[1] = n, ta.nbytes = oracle_nbytes(dtype, pairs);
        tb.rank = 1, tb.shape[0] = k, tb.nbytes = oracle_nbytes(dtype, k);
        for (uint32_t i = 0; i < k; i++)
            memcpy(a + (size_t)i * n * bits / 8, cols, (size_t)n * bits / 8);
    }
    tc.rank = layout == 1 ? 1 : 2;
    tc.shape[0] = layout == 1 ? (int64_t)pairs : k;
    tc.shape[1] = n;
    tc.nbytes = oracle_nbytes(dtype, pairs);
    for (uint64_t r = (uint64_t)j->index * k; r < rows; r += (uint64_t)threads * k) {
        for (uint32_t i = 0; i < k; i++)
            fixed[i] = r + i;
        if (layout == 0)
            for (uint32_t i = 0; i < k; i++)
                oracle_store(dtype, a, i, fixed[i]);
        else if (layout == 1)
            for (uint32_t i = 0; i < k; i++)
                fill(a, (uint64_t)i * n, n, fixed[i]);
        else
            for (uint32_t i = 0; i < k; i++)
                oracle_store(dtype, b, i, fixed[i]);
        double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
        int32_t st = D->compute(iut, variant, &rules.attrs, &ta, &tb, &tc);
        j->compute_wall += now(CLOCK_MONOTONIC) - w0;
        j->compute_cpu += now(CLOCK_THREAD_CPUTIME_ID) - c0;
        if (st != DVG_OK) {
            j->failed = 1;
            break;
        }
        if (jd) {
            sweep_view v = {&rules, k, n, fixed, layout != 2, cols, 0, 0x7DA5,
                            bits <= 16 && n == 1u << bits, NULL};
            uint64_t poison;
            sweep_judge_batch(jd, &v, c, NULL, NULL, NULL, &prof, 0, 0, &t, &poison);
            j->listed += sweep_judge_listed(jd);
        }
    }
    sweep_judge_free(jd);
    free(a);
    free(b);
    free(c);
    free(fixed);
    D->close(iut);
    return NULL;
}

static double compute_wall, compute_cpu;

static int phase(double *wall, double *cpu)
{
    pthread_t th[64];
    job jobs[64];
    double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    for (uint32_t i = 0; i < threads; i++) {
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].index = i;
        pthread_create(&th[i], NULL, run, &jobs[i]);
    }
    int failed = 0;
    compute_wall = compute_cpu = 0;
    for (uint32_t i = 0; i < threads; i++) {
        pthread_join(th[i], NULL);
        failed |= jobs[i].failed;
        if (jobs[i].compute_wall > compute_wall)
            compute_wall = jobs[i].compute_wall;
        compute_cpu += jobs[i].compute_cpu;
    }
    *wall = now(CLOCK_MONOTONIC) - w0;
    *cpu = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
    return failed;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: bench_sweep PLUGIN.so DTYPE VARIANT numpy|flat|axis0 [THREADS [BATCH_PAIRS]]\n");
        return 2;
    }
    void *so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    dvg_entry_fn entry;
    if (!so || !(*(void **)&entry = dlsym(so, DVG_ENTRY_SYMBOL))) {
        fprintf(stderr, "bench_sweep: cannot load %s\n", argv[1]);
        return 2;
    }
    D = entry();
    dtype = oracle_dtype_by_tag(argv[2]);
    const oracle_variant *v = oracle_variant_by_name(argv[3]);
    layout = !strcmp(argv[4], "numpy") ? 0 : !strcmp(argv[4], "flat") ? 1 : 2;
    threads = argc > 5 ? (uint32_t)atoi(argv[5]) : 2;
    uint32_t batch = argc > 6 ? (uint32_t)atoi(argv[6]) : 1u << 19;
    if (!dtype || !v || oracle_dtype(dtype)->bits > 16 || threads < 1 || threads > 64) {
        fprintf(stderr, "bench_sweep: a 16-bit or smaller dtype and a known variant\n");
        return 2;
    }
    variant = v->id;
    dvg_attrs at;
    oracle_error why;
    oracle_attrs_default(v, &at);
    if (layout == 2) {
        at.broadcast = 1;
        at.axis = 0;
        at.axis_set = v->attr_keys & ORACLE_ATTR_BROADCAST ? 1 : 0;
        at.auto_broadcast = DVG_BROADCAST_PDPD;
    }
    if (oracle_rules_resolve(variant, dtype, &at, &rules, &why)) {
        fprintf(stderr, "bench_sweep: %s\n", why.text);
        return 2;
    }
    n = 1u << oracle_dtype(dtype)->bits;
    rows = n;
    k = batch / n ? batch / n : 1;
    if (k > rows)
        k = (uint32_t)rows;
    cols = malloc(oracle_nbytes(dtype, n) + 8);
    for (uint32_t i = 0; i < n; i++)
        oracle_store(dtype, cols, i, i);
    oracle_fastpath_selfcheck();
    oracle_rowcheck_selfcheck(dtype);
    /* best of three of each (the machine may be shared) */
    double kw = 1e30, kc = 1e30, iw = 1e30, ic = 1e30, w, c;
    for (int rep = 0; rep < 3; rep++) {
        judge_too = 0;
        if (phase(&w, &c))
            return 1;
        if (compute_wall < kw) { /* the kernel's own time: inside compute() */
            kw = compute_wall;
            kc = compute_cpu;
        }
        judge_too = 1;
        if (phase(&w, &c))
            return 1;
        if (w < iw) {
            iw = w;
            ic = c;
        }
    }
    printf("kernel_wall=%.3f kernel_cpu=%.3f inproc_wall=%.3f inproc_cpu=%.3f pairs=%llu\n", kw, kc,
           iw, ic, (unsigned long long)rows * n);
    return 0;
}
