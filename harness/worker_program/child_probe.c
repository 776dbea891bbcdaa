/* SPDX-License-Identifier: MIT */
/*
 * harness/worker_program/child_probe.c: the worker program's side of a probe
 * (worker_probe, worker.h).
 *
 * This file contains OP_PROBE as the worker program runs it: in place, one
 * compute whose A (or B) points at C's buffer, into which the parent
 * copied A's (B's) bytes; two threads, a second instance opened as the
 * first one was (two instances) or none (one instance), a solo run of
 * each job (the first into C, the second, A's bytes reversed, into its
 * reference buffer), then two new threads, free to run on any CPU, count
 * in, wait for each other and call compute again and again at once, until
 * an output differs from its solo answer, a call fails, or the calls or
 * the time are spent. The parent judges from the buffers (its own copy of
 * the first answer, the second's reference): what the worker compares
 * here only decides when to stop.
 */
#include "harness/worker_program/program.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct probe_job {
    const dvg_descriptor *d;
    dvg_iut *iut;
    const ctl_request *q;
    const dvg_tensor *a, *b;
    dvg_tensor *c;
    const uint8_t *ref;      /* its solo answer (the worker's own copy) */
    int32_t status;
    uint32_t calls;
    int64_t deadline;       /* the probe's time, and past it ... */
    int64_t overlap_deadline; /* ... the most it waits for an overlap */
    int *ready, *stop;
    int *inside;            /* the threads inside compute now */
    int *overlapped;        /* 1 once both were inside at once */
} probe_job;

/* Lets the calling thread run on every CPU (the worker may be pinned to
 * one, where two threads would take turns instead of overlapping); the
 * worker's cpuset still bounds it. */
static void probe_unpin(void)
{
    long n = sysconf(_SC_NPROCESSORS_CONF);
    cpu_set_t set;
    CPU_ZERO(&set);
    for (long i = 0; i < n && i < CPU_SETSIZE; i++)
        CPU_SET(i, &set);
    sched_setaffinity(0, sizeof set, &set);
}

/* One of the two threads: counts in, waits for the other, then calls
 * compute again and again until its output differs from its solo answer,
 * a call fails, the other thread stopped, or the calls or the time are
 * spent (two calls at least, and the two threads seen inside compute at
 * once, or the overlap's time spent too). */
static void *probe_thread(void *arg)
{
    probe_job *j = arg;
    size_t n = (size_t)j->c->nbytes;
    probe_unpin();
    __atomic_add_fetch(j->ready, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(j->ready, __ATOMIC_SEQ_CST) < 2)
        sched_yield();
    for (;;) {
        if (__atomic_add_fetch(j->inside, 1, __ATOMIC_SEQ_CST) == 2)
            __atomic_store_n(j->overlapped, 1, __ATOMIC_SEQ_CST);
        j->status = j->d->compute(j->iut, j->q->variant, &j->q->attrs, j->a, j->b, j->c);
        __atomic_sub_fetch(j->inside, 1, __ATOMIC_SEQ_CST);
        j->calls++;
        if (j->status != DVG_OK || memcmp(j->c->data, j->ref, n) != 0) {
            __atomic_store_n(j->stop, 1, __ATOMIC_SEQ_CST);
            break;
        }
        if (__atomic_load_n(j->stop, __ATOMIC_SEQ_CST) || j->calls >= WORKER_PROBE_ROUNDS)
            break;
        if (j->calls >= 2) {
            int64_t now = worker_now_ms();
            if (now >= j->overlap_deadline ||
                (now >= j->deadline && __atomic_load_n(j->overlapped, __ATOMIC_SEQ_CST)))
                break;
        }
    }
    return NULL;
}

/* Jobs 0 and 1 at once, each on a new thread. 0, or -1 when a thread
 * cannot be made (the other one has run alone then). */
static int probe_pair(probe_job job[2])
{
    int ready = 0, stop = 0, inside = 0, overlapped = 0;
    pthread_t t[2];
    job[0].ready = job[1].ready = &ready;
    job[0].stop = job[1].stop = &stop;
    job[0].inside = job[1].inside = &inside;
    job[0].overlapped = job[1].overlapped = &overlapped;
    if (pthread_create(&t[0], NULL, probe_thread, &job[0]) != 0)
        return -1;
    if (pthread_create(&t[1], NULL, probe_thread, &job[1]) != 0) {
        __atomic_add_fetch(&ready, 1, __ATOMIC_SEQ_CST);
        pthread_join(t[0], NULL);
        return -1;
    }
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    return 0;
}

static void probe_status(const dvg_descriptor *d, dvg_iut *iut, int32_t st, const char *what,
                         ctl_reply *rep)
{
    char text[WORKER_MESSAGE_MAX];
    rep->status = st;
    child_last_error(d, iut, text);
    snprintf(rep->message, sizeof rep->message, "%s: %.400s", what, text);
}

static void probe_pairs(const dvg_descriptor *d, dvg_iut *iut, const child_setup *cs,
                        const ctl_request *q, const dvg_tensor *ta, const dvg_tensor *tb,
                        dvg_tensor *tc, size_t page, ctl_reply *rep)
{
    ctl_map m[3];
    memset(m, 0, sizeof m);
    dvg_iut *iut2 = iut;
    uint8_t *ref1 = NULL, *ref2 = NULL;
    size_t n = (size_t)tc->nbytes;
    static const int prot[3] = {PROT_READ, PROT_READ | PROT_WRITE, PROT_READ | PROT_WRITE};
    for (int i = 0; i < 3; i++)
        if (child_map(i == P_A2 ? WORKER_FD_ARENA_RO : WORKER_FD_ARENA, &q->probe_region[i],
                      prot[i], page, &m[i]) != 0) {
            rep->internal = 1;
            snprintf(rep->message, sizeof rep->message, "the worker cannot map the probe's buffers");
            goto done;
        }
    dvg_tensor a2 = *ta, c2 = *tc, r2 = *tc;
    a2.data = (void *)(uintptr_t)m[P_A2].data;
    c2.data = (void *)(uintptr_t)m[P_OUT2].data;
    r2.data = (void *)(uintptr_t)m[P_REF2].data;
    if (q->probe == WORKER_PROBE_INSTANCES) {
        int32_t st = child_open(d, cs, &iut2);
        if (st != DVG_OK) {
            iut2 = iut;
            rep->status = st;
            snprintf(rep->message, sizeof rep->message,
                     "opening a second instance returned %d", (int)st);
            goto done;
        }
    }
    int32_t st = d->compute(iut, q->variant, &q->attrs, ta, tb, tc);
    if (st != DVG_OK) {
        probe_status(d, iut, st, "the first job alone", rep);
        goto done;
    }
    st = d->compute(iut2, q->variant, &q->attrs, &a2, tb, &r2);
    if (st != DVG_OK) {
        /* A reversed is another input, which the plugin may refuse (an
         * undefined element): no answer either way. */
        rep->probe_skip = 1;
        probe_status(d, iut2, st, "the second job alone", rep);
        rep->status = DVG_OK;
        goto done;
    }
    ref1 = malloc(n ? n : 1);
    ref2 = malloc(n ? n : 1);
    if (!ref1 || !ref2) {
        rep->internal = 1;
        snprintf(rep->message, sizeof rep->message, "the worker is out of memory");
        goto done;
    }
    memcpy(ref1, tc->data, n);
    memcpy(ref2, r2.data, n);
    int64_t deadline = worker_now_ms() + q->probe_ms;
    int64_t overlap_deadline = deadline + WORKER_PROBE_OVERLAP_MS;
    probe_job job[2] = {
        {d, iut, q, ta, tb, tc, ref1, 0, 0, deadline, overlap_deadline, NULL, NULL, NULL, NULL},
        {d, iut2, q, &a2, tb, &c2, ref2, 0, 0, deadline, overlap_deadline, NULL, NULL, NULL, NULL}};
    if (probe_pair(job) != 0) {
        rep->internal = 1;
        snprintf(rep->message, sizeof rep->message, "the worker cannot start a thread");
        goto done;
    }
    rep->probe_rounds = job[0].calls < job[1].calls ? job[0].calls : job[1].calls;
    if (job[0].status != DVG_OK || job[1].status != DVG_OK) {
        int second = job[0].status == DVG_OK;
        probe_status(d, second ? iut2 : iut, job[second].status,
                     second ? "the second thread" : "the first thread", rep);
    }
done:
    if (iut2 != iut)
        d->close(iut2);
    free(ref1);
    free(ref2);
    for (int i = 0; i < 3; i++)
        child_unmap(&m[i]);
}

void child_probe(const dvg_descriptor *d, dvg_iut *iut, const child_setup *cs,
                 const ctl_request *q, const dvg_tensor *ta, const dvg_tensor *tb,
                 dvg_tensor *tc, size_t page, ctl_reply *rep)
{
    rep->status = DVG_OK;
    if (q->probe == WORKER_PROBE_IN_PLACE_A || q->probe == WORKER_PROBE_IN_PLACE_B) {
        dvg_tensor a = *ta, b = *tb;
        if (q->probe == WORKER_PROBE_IN_PLACE_A)
            a.data = tc->data;
        else
            b.data = tc->data;
        int32_t st = d->compute(iut, q->variant, &q->attrs, &a, &b, tc);
        if (st != DVG_OK)
            probe_status(d, iut, st, "in place", rep);
        return;
    }
    if (q->probe == WORKER_PROBE_INSTANCES || q->probe == WORKER_PROBE_INSTANCE) {
        probe_pairs(d, iut, cs, q, ta, tb, tc, page, rep);
        return;
    }
    rep->internal = 1;
    snprintf(rep->message, sizeof rep->message, "the worker got an unknown probe %u", q->probe);
}
