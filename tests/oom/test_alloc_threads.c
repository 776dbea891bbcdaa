/* SPDX-License-Identifier: MIT */
/*
 * tests/oom/test_alloc_threads.c: the allocation hook (harness/base/alloc.h)
 * under threads, as the job threads of certify and fuzz use it. Several
 * threads allocate at once: every allocation is counted once (no update
 * lost), and with injection on, allocation number N fails exactly once,
 * in whichever thread makes it (no allocation skipped or taken twice).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "harness/base/alloc.h"

#define THREADS 4
#define ALLOCS_PER_THREAD 200000
#define ROUNDS 20

typedef struct job {
    pthread_t thread;
    uint64_t failed; /* allocations that returned NULL */
} job;

static void *job_main(void *arg)
{
    job *j = arg;
    for (int i = 0; i < ALLOCS_PER_THREAD; i++) {
        void *p = dvg_malloc(16);
        j->failed += p == NULL;
        dvg_free(p);
    }
    return NULL;
}

/* Runs THREADS jobs; the allocations that failed in all of them. */
static uint64_t run_jobs(void)
{
    job jobs[THREADS] = {0};
    uint64_t failed = 0;
    for (int t = 0; t < THREADS; t++)
        CHECK(pthread_create(&jobs[t].thread, NULL, job_main, &jobs[t]) == 0);
    for (int t = 0; t < THREADS; t++) {
        pthread_join(jobs[t].thread, NULL);
        failed += jobs[t].failed;
    }
    return failed;
}

int main(void)
{
    const uint64_t total = (uint64_t)THREADS * ALLOCS_PER_THREAD;
    for (int r = 0; r < ROUNDS; r++) {
        dvg_alloc_fail_at(0, 0);
        uint64_t failed = run_jobs();
        uint64_t made = dvg_alloc_count();
        CHECKF(failed == 0, "round %d: %" PRIu64 " allocations failed without injection", r,
               failed);
        CHECKF(made == total, "round %d: %" PRIu64 " allocations counted, %" PRIu64 " made", r,
               made, total);

        uint64_t nth = total / 2 + (uint64_t)r * 997;
        dvg_alloc_fail_at(nth, 0);
        failed = run_jobs();
        made = dvg_alloc_fail_at(0, 0);
        CHECKF(failed == 1, "round %d: allocation %" PRIu64 " failed %" PRIu64 " times, not once",
               r, nth, failed);
        CHECKF(made == total, "round %d: %" PRIu64 " allocations counted, %" PRIu64 " made", r,
               made, total);
    }
    return check_done("test_alloc_threads");
}
