/* SPDX-License-Identifier: MIT */
/*
 * harness/run/campaign/minimise.h: a finding made as small as it goes while it
 * still shows - the fuzz campaign's and import's minimiser, for a
 * departure of one plugin from the oracle and for a disagreement among
 * plugins alike. What "still shows" means is the caller's probe; the
 * steps are the minimiser's: the one element of the example (narrowed to
 * a 1-element case), then its simplest operands of the same operand
 * classes; for a crash, the crashing element (narrow_case); otherwise the
 * smallest shape that keeps it, the operands made constant first.
 */
#ifndef HARNESS_MINIMISE_H
#define HARNESS_MINIMISE_H

#include <stddef.h>
#include "harness/judge/verdict.h"
#include "harness/worker/worker.h"

/* 1 when case c shows the finding being minimised (its example in *ex),
 * 0 when it does not, -1 on a harness error (the probe keeps the
 * message). */
typedef int (*minimise_probe)(void *ctx, const divcase *c, verdict_example *ex);

typedef struct minimise_target {
    minimise_probe probe;
    void *ctx;
    worker *w;                 /* a crash: the worker narrow_case re-runs
                                  the case in; NULL: no narrowing */
    const worker_result *crashed; /* the crash's result, with w */
} minimise_target;

/* Probes past which the shape shrinker stops, and the probe elements it
 * may spend beyond twice the case's own. */
#define MINIMISE_SHRINK_TRIES 64
#define MINIMISE_SHRINK_ELEMENTS (UINT64_C(1) << 22)

/*
 * Minimises the finding *ex of case c into *out (a case the caller frees
 * with divcase_free) and updates *ex to the example the minimised case
 * shows. A hang is kept as found (each probe would cost a timeout). *how
 * (len bytes) says what was done: "as found", "one element", "one element,
 * simplest operands", "narrowed to the crashing element", "smallest shape
 * that keeps the class". Returns 0, or -1 on a harness error.
 */
int minimise_case(const minimise_target *t, const divcase *c, verdict_example *ex,
                  divcase *out, char *how, size_t len);

#endif /* HARNESS_MINIMISE_H */
