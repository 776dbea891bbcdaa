/* SPDX-License-Identifier: MIT */
/*
 * harness/run/engine/trial.h: one case through the whole check - the oracle's rules,
 * plan and expected elements, the plugin in its worker, the verdict. The
 * unit certify, the fuzz campaign, import and replay all repeat. Here the
 * worker's result becomes the judge's plain outputs (verdict_outputs):
 * harness/judge knows nothing of workers.
 *
 * A trial keeps its buffers between cases (expected elements, the worker
 * result), so a stream of small cases allocates nothing per case.
 */
#ifndef HARNESS_TRIAL_H
#define HARNESS_TRIAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "harness/judge/verdict.h"
#include "harness/run/engine/narrow.h"
#include "harness/run/engine/leak.h"
#include "harness/run/engine/pace.h"
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
    verdict_outputs out;     /* wr as the judge reads it (points into wr) */
    oracle_elem *expected;   /* plan.count entries when valid; owned */
    uint64_t expected_cap;
    /* a refused case, narrowed (harness/run/engine/narrow.h): out points
     * into `refusal` when only undefined elements were refused */
    narrow_refusal refusal;
    uint8_t *undefined;      /* per element: verdict_may_refuse; owned */
    uint64_t undefined_cap;
    /* 1: a refusal of this (variant, dtype) was narrowed to one element
     * already; later ones run their defined and undefined elements as two
     * calls, not halved (a refused call can be dear: libtorch's error
     * carries a backtrace) */
    uint8_t refusal_isolated[DVG_VARIANT_COUNT][DVG_DTYPE_COUNT];
    char error[512];         /* the harness error of a -1 return */
    leak_watch leak;         /* the worker life's resources (leak.h) */
    pace_book pace;          /* the plugin's time per element (pace.h) */
    worker_result retime;    /* a slow case timed once more */
} trial;

/* Sets up a trial on worker w (not started here). The profile pointer is
 * kept. Reads declared deviations from the worker once it has started. */
void trial_init(trial *t, worker *w, const verdict_profile *profile);

/* Frees what the trial owns (not the worker). Accepts NULL. */
void trial_free(trial *t);

/*
 * Runs case c and judges it, adding to *tally and calling sink for each
 * distinct finding (both may be NULL: the verdict is still returned).
 * A case the plugin refuses with an error status, holding elements whose
 * result the spec leaves undefined, is narrowed (narrow_refusals); when
 * it refused only those, the case is judged from the narrowed calls
 * (t->out then points into t->refusal, the refused elements flagged
 * VERDICT_ELEM_REFUSED, t->wr still the refused call).
 * The worker life's resources are watched (leak.h): when they show a leak
 * the case also gets the finding resource-leak (and the worker a fresh
 * child, worker_renew, so that later cases do not pay for it); a failure
 * status in a life whose memory was seen growing is a resource-leak, not
 * a failure. A computed case is timed against the plugin's pace on
 * comparable cases (pace.h; not under an emulated CPU, nor with t->pace.off
 * set): one far slower, timed again and still so, also gets the finding
 * performance-cliff.
 * Returns 1 when the case conforms, 0 when not, -1 on a harness error
 * (malformed case, memory, fork; t->error says which).
 */
int trial_run(trial *t, const divcase *c, verdict_tally *tally, verdict_sink sink, void *ctx);

/* Runs t's last case c (judged by trial_run) once more and times it
 * (pace.h): the CPU time of the worker's main thread per compute run where
 * it can be read (a thread the plugin left spinning is not in it), else
 * pace_case_ns of the new run. *ns becomes the lesser of it and *ns (0:
 * none yet). 0, or -1 on a harness error (t->error). */
int trial_retime(trial *t, const divcase *c, uint64_t *ns);

/* A case-level finding of case c (no element: index UINT64_MAX) of class
 * cls with the words `note`, accepted or not, into *tally and sink (each
 * may be NULL: none). 0, or -1 when the sink failed. */
int trial_case_finding(uint32_t cls, int accepted, const char *note, const divcase *c,
                       verdict_tally *tally, verdict_sink sink, void *ctx);

/* GEN_FILL_PERIOD when output element i of case c (planned as p) depends
 * only on i mod GEN_FILL_PERIOD - A and B each either the whole output
 * repeating with that period, or broadcast along leading dims only (on
 * p's strides) with an element count that divides it - else 0. trial_run
 * judges such a case by periods (verdict_outputs.period). */
uint64_t trial_period(const divcase *c, const oracle_plan *p);

/*
 * Fills *out with what worker result *wr says, as the judge reads it: the
 * outcome (BAD_STATUS is a FAILURE; EXIT, PROTOCOL and LOAD_ERROR are a
 * CRASH), its note (worker_result_format), the shape, the outputs and the
 * element flags (pointers into wr: valid while wr is unchanged), the side
 * effects and the note of a state leak. Every field of *out is written.
 */
void trial_outputs_from_worker(const worker_result *wr, verdict_outputs *out);

/* Operand bytes up to which a finding keeps its whole case. */
#define TRIAL_FULL_CASE_BYTES (64u << 10)

/*
 * The case a finding of t's last case c (judged by trial_run) is stored
 * with: c itself when small or invalid, else the single element of the
 * example (1-D, narrow_subcase) in *tmp, with *owned set: the caller frees
 * it (divcase_free). Never NULL.
 */
const divcase *trial_reproducer_case(const trial *t, const divcase *c, const verdict_example *ex,
                                     divcase *tmp, int *owned);

#endif /* HARNESS_TRIAL_H */
