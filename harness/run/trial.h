/* SPDX-License-Identifier: MIT */
/*
 * harness/run/trial.h: one case through the whole check - the oracle's rules,
 * plan and expected elements, the plugin in its worker, the verdict. The
 * unit certify, the fuzz campaign, import and replay all repeat.
 *
 * A trial keeps its buffers between cases (expected elements, the worker
 * result), so a stream of small cases allocates nothing per case.
 */
#ifndef HARNESS_TRIAL_H
#define HARNESS_TRIAL_H

#include <stddef.h>
#include <stdint.h>
#include "harness/judge/verdict.h"
#include "harness/worker/worker.h"

typedef struct trial {
    worker *w;               /* the plugin's worker; not owned */
    const verdict_profile *profile;
    uint64_t declared;       /* the plugin's DVG_DEV_* bits */
    int64_t int_div_zero_value;
    /* filled by trial_run for the last case */
    oracle_rules rules;
    oracle_plan plan;
    int valid;               /* 1: the oracle planned it; 0: invalid input */
    worker_result wr;        /* what the worker did */
    oracle_elem *expected;   /* plan.count entries when valid; owned */
    uint64_t expected_cap;
    char error[512];         /* the harness error of a -1 return */
} trial;

/* Sets up a trial on worker w (not started here). The profile pointer is
 * kept. Reads declared deviations from the worker once it has started. */
void trial_init(trial *t, worker *w, const verdict_profile *profile);

/* Frees what the trial owns (not the worker). Accepts NULL. */
void trial_free(trial *t);

/*
 * Runs case c and judges it, adding to *tally and calling sink for each
 * distinct finding (both may be NULL: the verdict is still returned).
 * Returns 1 when the case conforms, 0 when not, -1 on a harness error
 * (malformed case, memory, fork; t->error says which).
 */
int trial_run(trial *t, const divcase *c, verdict_tally *tally, verdict_sink sink, void *ctx);

#endif /* HARNESS_TRIAL_H */
