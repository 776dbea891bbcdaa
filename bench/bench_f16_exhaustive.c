/* SPDX-License-Identifier: MIT */
/*
 * bench/bench_f16_exhaustive.c: every f16 x f16 pair (2^32 of them),
 * fast path (oracle_fastpath_div) against exact path (f16_div). Prints
 * pairs/s and the number of disagreements (NaN and NaN agree); exits 1 on
 * any disagreement, so it also runs as a long test. With --bf16, the same
 * for every bf16 x bf16 pair (bf16_div).
 *
 * Usage: bench_f16_exhaustive [--bf16] [threads] [first-a last-a]
 *   threads: default the number of online CPUs; first-a..last-a: the
 *   dividends to cover (default 0..65535: everything).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "divergence/iut.h"
#include "oracle/exact.h"
#include "oracle/fastpath.h"

#define N16 65536u
#define MAX_THREADS 64
#define MAX_REPORTED 10

typedef struct job {
    int bf16;              /* 0: f16, 1: bf16 */
    uint32_t first, last;  /* dividends covered: first + k * stride <= last */
    uint32_t stride;
    uint64_t pairs;
    uint64_t bad;
    uint32_t report[MAX_REPORTED][4]; /* a, b, exact, fast */
    int status;
} job;

static void *run(void *arg)
{
    job *j = arg;
    uint64_t *a = malloc(N16 * sizeof *a), *b = malloc(N16 * sizeof *b);
    uint64_t *z = malloc(N16 * sizeof *z);

    if (!a || !b || !z) {
        j->status = -1;
        goto done;
    }
    for (uint32_t i = 0; i < N16; i++)
        b[i] = i;
    for (uint32_t x = j->first; x <= j->last; x += j->stride) {
        for (uint32_t i = 0; i < N16; i++)
            a[i] = x;
        oracle_fastpath_div(j->bf16 ? DVG_DTYPE_BF16 : DVG_DTYPE_F16, a, b, N16, z);
        for (uint32_t i = 0; i < N16; i++) {
            uint16_t exact, fast = (uint16_t)z[i];
            int agree;
            if (j->bf16) {
                exact = bf16_div((dvg_bf16){ (uint16_t)x }, (dvg_bf16){ (uint16_t)i }).v;
                agree = bf16_is_nan(exact) ? bf16_is_nan(fast) : exact == fast;
            } else {
                exact = f16_div((dvg_f16){ (uint16_t)x }, (dvg_f16){ (uint16_t)i }).v;
                agree = f16_is_nan(exact) ? f16_is_nan(fast) : exact == fast;
            }
            if (!agree) {
                if (j->bad < MAX_REPORTED) {
                    j->report[j->bad][0] = x;
                    j->report[j->bad][1] = i;
                    j->report[j->bad][2] = exact;
                    j->report[j->bad][3] = fast;
                }
                j->bad++;
            }
        }
        j->pairs += N16;
    }
done:
    free(a);
    free(b);
    free(z);
    return NULL;
}

int main(int argc, char **argv)
{
    int bf16 = argc > 1 && strcmp(argv[1], "--bf16") == 0;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int n_threads;
    uint32_t first, last;
    job jobs[MAX_THREADS] = { { 0 } };
    pthread_t tids[MAX_THREADS];
    struct timespec t0, t1;
    uint64_t pairs = 0, bad = 0;
    double secs;
    int failed = 0;

    argc -= bf16;
    argv += bf16;
    n_threads = argc > 1 ? atoi(argv[1]) : (int)(cpus > 0 ? cpus : 1);
    first = argc > 3 ? (uint32_t)strtoul(argv[2], NULL, 0) : 0;
    last = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 0) : N16 - 1;
    if (n_threads < 1)
        n_threads = 1;
    if (n_threads > MAX_THREADS)
        n_threads = MAX_THREADS;
    if (last >= N16 || first > last) {
        fprintf(stderr, "bench_f16_exhaustive: dividend range %u..%u outside 0..65535\n",
                first, last);
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int t = 0; t < n_threads; t++) {
        jobs[t].bf16 = bf16;
        jobs[t].first = first + (uint32_t)t;
        jobs[t].last = last;
        jobs[t].stride = (uint32_t)n_threads;
        if (pthread_create(&tids[t], NULL, run, &jobs[t]) != 0) {
            fprintf(stderr, "bench_f16_exhaustive: cannot start thread %d\n", t);
            return 2;
        }
    }
    for (int t = 0; t < n_threads; t++)
        pthread_join(tids[t], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;

    for (int t = 0; t < n_threads; t++) {
        failed |= jobs[t].status != 0;
        for (uint64_t k = 0; k < jobs[t].bad && k < MAX_REPORTED; k++)
            fprintf(stderr, "%s %#06x / %#06x: exact %#06x, fast %#06x\n",
                    bf16 ? "bf16" : "f16", jobs[t].report[k][0], jobs[t].report[k][1], jobs[t].report[k][2],
                    jobs[t].report[k][3]);
        pairs += jobs[t].pairs;
        bad += jobs[t].bad;
    }
    printf("%s exhaustive, fast path vs exact path: %" PRIu64 " pairs, %d threads, "
           "%.1f s, %.3g pairs/s, %" PRIu64 " disagreements\n",
           bf16 ? "bf16" : "f16", pairs, n_threads, secs, (double)pairs / secs, bad);
    if (failed) {
        fprintf(stderr, "bench_f16_exhaustive: out of memory\n");
        return 2;
    }
    return bad ? 1 : 0;
}
