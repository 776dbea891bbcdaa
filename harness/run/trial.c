/* SPDX-License-Identifier: MIT */
/*
 * This file contains the trial (see trial.h): one case through the oracle,
 * the plugin's worker and the judge, and the translation of a worker's
 * result into the judge's plain outputs.
 */
#include "harness/run/trial.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "harness/base/alloc.h"

/* The judge's element flags are the worker's, so the flags pass as they
 * are; its notes hold a worker message whole. */
_Static_assert(VERDICT_ELEM_UNWRITTEN == WORKER_ELEM_UNWRITTEN &&
               VERDICT_ELEM_NONDET == WORKER_ELEM_NONDET, "element flags differ");
_Static_assert(VERDICT_NOTE_MAX >= WORKER_MESSAGE_MAX, "a worker message does not fit a note");

static uint32_t outcome_of(uint32_t worker_outcome)
{
    switch (worker_outcome) {
    case WORKER_OUT_OK: return VERDICT_OUT_OK;
    case WORKER_OUT_INVALID_INPUT: return VERDICT_OUT_INVALID_INPUT;
    case WORKER_OUT_UNSUPPORTED: return VERDICT_OUT_UNSUPPORTED;
    case WORKER_OUT_FAILURE:
    case WORKER_OUT_BAD_STATUS: return VERDICT_OUT_FAILURE;
    case WORKER_OUT_BAD_SHAPE: return VERDICT_OUT_BAD_SHAPE;
    case WORKER_OUT_OOB_WRITE: return VERDICT_OUT_OOB_WRITE;
    case WORKER_OUT_OOB_READ: return VERDICT_OUT_OOB_READ;
    case WORKER_OUT_INPUT_MUTATED: return VERDICT_OUT_INPUT_MUTATED;
    case WORKER_OUT_HANG: return VERDICT_OUT_HANG;
    default: return VERDICT_OUT_CRASH; /* CRASH, EXIT, PROTOCOL, LOAD_ERROR */
    }
}

void trial_outputs_from_worker(const worker_result *wr, verdict_outputs *out)
{
    out->outcome = outcome_of(wr->outcome);
    out->in_shape = wr->stage == WORKER_STAGE_SHAPE;
    out->note[0] = 0;
    if (wr->outcome != WORKER_OUT_OK) /* the note of a case-level finding */
        worker_result_format(wr, out->note, sizeof out->note);
    out->has_shape = wr->has_shape;
    out->shape = wr->shape;
    out->computed = wr->computed;
    out->out1 = wr->out1;
    out->out2 = wr->out2;
    out->flags = wr->flags;
    out->side = 0;
    if (wr->side_effects & (WORKER_SIDE_INPUT_A | WORKER_SIDE_INPUT_B))
        out->side |= VERDICT_SIDE_INPUT;
    if (wr->side_effects & WORKER_SIDE_SLACK)
        out->side |= VERDICT_SIDE_SLACK;
    if (wr->side_effects & WORKER_SIDE_FP_STATE)
        out->side |= VERDICT_SIDE_FP_STATE;
    if (wr->side_effects & WORKER_SIDE_SIGNAL_STATE)
        out->side |= VERDICT_SIDE_SIGNAL_STATE;
    if (wr->side_effects & WORKER_SIDE_PAD_NIBBLE)
        out->side |= VERDICT_SIDE_PADDING;
    out->leak[0] = 0;
    if (out->side & (VERDICT_SIDE_FP_STATE | VERDICT_SIDE_SIGNAL_STATE)) {
        char leak[WORKER_MESSAGE_MAX];
        worker_leak_describe(wr, leak, sizeof leak);
        snprintf(out->leak, sizeof out->leak, "%.200s: %.280s", worker_stage_name(wr->stage), leak);
    }
}

void trial_init(trial *t, worker *w, const verdict_profile *profile)
{
    memset(t, 0, sizeof *t);
    t->w = w;
    t->profile = profile;
}

void trial_free(trial *t)
{
    if (!t)
        return;
    worker_result_free(&t->wr);
    dvg_free(t->expected);
    t->expected = NULL;
    t->expected_cap = 0;
}

int trial_run(trial *t, const divcase *c, verdict_tally *tally, verdict_sink sink, void *ctx)
{
    oracle_error why;
    if (oracle_rules_resolve(c->variant, c->dtype, &c->attrs, &t->rules, &why)) {
        snprintf(t->error, sizeof t->error, "case %s: %s", c->id, why.text);
        return -1;
    }
    memset(&t->plan, 0, sizeof t->plan);
    int rc = oracle_plan_shapes(&t->rules, &c->a_shape, &c->b_shape, &t->plan, &why);
    if (rc == ORACLE_EUSAGE) {
        snprintf(t->error, sizeof t->error, "case %s: %s", c->id, why.text);
        return -1;
    }
    t->valid = rc == ORACLE_OK;
    if (t->valid) {
        if (t->plan.count > t->expected_cap) {
            dvg_free(t->expected);
            t->expected = dvg_malloc(t->plan.count * sizeof *t->expected);
            t->expected_cap = t->expected ? t->plan.count : 0;
            if (!t->expected) {
                snprintf(t->error, sizeof t->error,
                         "case %s: out of memory for %" PRIu64 " expected elements", c->id,
                         t->plan.count);
                return -1;
            }
        }
        oracle_expect_tensor(&t->rules, &t->plan, c->a, c->b, t->expected);
    }
    if (worker_run(t->w, c, t->valid ? &t->plan.out : NULL, &t->wr)) {
        snprintf(t->error, sizeof t->error, "case %s: %s", c->id, worker_errmsg(t->w));
        return -1;
    }
    const worker_info *in = worker_get_info(t->w);
    if (in) {
        t->declared = in->deviations;
        t->int_div_zero_value = in->int_div_zero_value;
    }
    verdict_tally scratch;
    if (!tally) {
        memset(&scratch, 0, sizeof scratch);
        tally = &scratch;
    }
    trial_outputs_from_worker(&t->wr, &t->out);
    int v = verdict_case(&t->rules, c, t->valid, &t->plan, t->expected, &t->out, t->profile,
                         t->declared, t->int_div_zero_value, tally, sink, ctx);
    if (v < 0)
        snprintf(t->error, sizeof t->error, "case %s: recording a finding failed", c->id);
    return v;
}
