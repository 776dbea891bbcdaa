/* SPDX-License-Identifier: MIT */
/*
 * harness/run/engine/pace.h: slow paths. Each computed case of at least
 * PACE_MIN_ELEMENTS output elements gives the plugin's time per element:
 * the CPU time its worker used in compute (worker_result.compute_cpu_ns,
 * read by the parent from the kernel's clock of the child: the waits of a
 * loaded machine are not in it; the wall time where that clock cannot be
 * read), the lesser of the case's two runs. The book keeps, per dtype,
 * the last PACE_KEEP of them with their sizes. A case is a performance
 * cliff when, against the median of at least PACE_PEERS earlier cases of
 * its dtype whose sizes are within a factor 2^PACE_BAND of its own, it
 * took PACE_RATIO times as long per element or more, and at least
 * PACE_MIN_NS in all; it is then timed once more (one more worker_run of
 * the case, also by the CPU time of the worker's main thread, half of what
 * the whole run used: a thread the plugin left spinning, which the
 * process's clock counts during every call, is not in it) and reported
 * only when the lesser time still says so. A case
 * found slow does not join the book (the median stays the plugin's
 * usual pace).
 */
#ifndef HARNESS_RUN_PACE_H
#define HARNESS_RUN_PACE_H

#include <stddef.h>
#include <stdint.h>
#include "divergence/iut.h"
#include "harness/worker/worker.h"

#define PACE_MIN_ELEMENTS (UINT64_C(1) << 10)
#define PACE_MIN_NS UINT64_C(250000) /* 250 us */
#define PACE_RATIO 20u
#define PACE_PEERS 8u
#define PACE_BAND 2u
#define PACE_KEEP 256u

/* One timed case: its time per element, and its size as log2 (rounded
 * down) of its output elements. */
typedef struct pace_sample {
    float ns;
    uint8_t log2;
} pace_sample;

typedef struct pace_book {
    pace_sample s[DVG_DTYPE_COUNT][PACE_KEEP]; /* a ring per dtype */
    uint32_t n[DVG_DTYPE_COUNT];               /* samples ever added */
    int off;                                   /* 1: nothing is timed (an emulated worker) */
} pace_book;

/* The time one run took per the rules above: the CPU time of compute run
 * `run` of *wr, or its wall time where the CPU time was not read. */
uint64_t pace_run_ns(const worker_result *wr, int run);

/* The CPU time process pid's main thread has used so far
 * (/proc/PID/schedstat: a thread the plugin left spinning is not in it).
 * 0, or -1 when it cannot be read. */
int pace_main_thread_ns(int pid, uint64_t *ns);

/* The lesser of *wr's two runs (pace_run_ns); 0 when it did not compute. */
uint64_t pace_case_ns(const worker_result *wr);

/* What pace_judge found. */
typedef struct pace_verdict {
    double ns_per, median;      /* the case's time per element, the peers' median */
    uint32_t peers;             /* the samples the median is of */
    uint32_t lo, hi;            /* their sizes: 2^lo .. 2^(hi+1) elements */
} pace_verdict;

/* 1 when a case of dtype `dtype`, `count` output elements, that took
 * `ns` is a cliff candidate against the book (at least PACE_PEERS peers,
 * PACE_RATIO times their median per element, PACE_MIN_NS); *v says the
 * figures (filled whenever there are peers). 0 otherwise. */
int pace_judge(const pace_book *b, uint32_t dtype, uint64_t count, uint64_t ns, pace_verdict *v);

/* 1 when a case that took `ns` in all, `ns_per` per element, is a cliff
 * against peers whose median is `median` per element: PACE_RATIO times
 * that or more, and PACE_MIN_NS in all (pace_judge's rule). */
int pace_is_cliff(double ns_per, double median, uint64_t ns);

/* The peers' median per element that a performance-cliff note
 * (pace_describe's words) names; 0 when the note names none. */
double pace_median_of_note(const char *note);

/* Adds a case's time to the book (a case below PACE_MIN_ELEMENTS, or one
 * of an unknown dtype, is not). */
void pace_add(pace_book *b, uint32_t dtype, uint64_t count, uint64_t ns);

/* The finding's words into note (len bytes): "compute took 812 ns per
 * element (1048576 elements, 852 ms; timed twice), 410 times the median
 * of 37 earlier f32 cases of 2^18..2^23 elements (1.98 ns per element);
 * the values conform". */
void pace_describe(const pace_verdict *v, uint32_t dtype, uint64_t count, uint64_t ns,
                   char *note, size_t len);

#endif /* HARNESS_RUN_PACE_H */
