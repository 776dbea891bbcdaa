/* SPDX-License-Identifier: MIT */
/*
 * This file contains the trial (see trial.h): one case through the oracle,
 * the plugin's worker and the judge, and the translation of a worker's
 * result into the judge's plain outputs.
 */
#include "harness/run/engine/trial.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/worker/narrow.h"
#include "harness/cases/gen.h"
#include "oracle/dtype.h"

/* The judge's element flags are the worker's, so the flags pass as they
 * are; its notes hold a worker message whole. */
_Static_assert(VERDICT_ELEM_UNWRITTEN == WORKER_ELEM_UNWRITTEN &&
               VERDICT_ELEM_NONDET == WORKER_ELEM_NONDET, "element flags differ");
_Static_assert(VERDICT_NOTE_MAX >= WORKER_MESSAGE_MAX, "a worker message does not fit a note");
_Static_assert(VERDICT_ELEM_REFUSED == NARROW_ELEM_REFUSED, "refused flags differ");

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
    *out = (verdict_outputs){.outcome = outcome_of(wr->outcome),
                             .in_shape = wr->stage == WORKER_STAGE_SHAPE,
                             .has_shape = wr->has_shape, .shape = wr->shape,
                             .computed = wr->computed, .out1 = wr->out1, .out2 = wr->out2,
                             .flags = wr->flags,
                             .period = 0}; /* trial_run sets it where the operands repeat */
    if (wr->outcome != WORKER_OUT_OK) /* the note of a case-level finding */
        worker_result_format(wr, out->note, sizeof out->note);
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
    narrow_refusal_free(&t->refusal);
    dvg_free(t->undefined);
    t->undefined = NULL;
    t->undefined_cap = 0;
    dvg_free(t->expected);
    t->expected = NULL;
    t->expected_cap = 0;
}

/* GEN_FILL_PERIOD when A and B have equal shapes (output element i reads
 * A[i] and B[i]) and both repeat every GEN_FILL_PERIOD elements, as the
 * shape walker's size tiers do (gen_fill_operands_periodic): checked here
 * byte for byte, so a case from anywhere else is judged the same way or in
 * full. 0: judge every element. */
static uint64_t operands_period(const divcase *c, const oracle_plan *p)
{
    const uint64_t period = GEN_FILL_PERIOD;
    if (p->count < 4 * period || !oracle_shape_equal(&c->a_shape, &c->b_shape) ||
        !oracle_shape_equal(&c->a_shape, &p->out))
        return 0;
    uint64_t run = oracle_nbytes(c->dtype, period), all = oracle_nbytes(c->dtype, p->count);
    if (oracle_nbytes(c->dtype, 2 * period) != 2 * run)
        return 0; /* not a whole number of bytes */
    if (memcmp(c->a + run, c->a, (size_t)(all - run)) || memcmp(c->b + run, c->b, (size_t)(all - run)))
        return 0;
    return period;
}

/* The expectation of the first `period` elements of an equal-shape case. */
static void expect_period(const oracle_rules *r, const divcase *c, uint64_t period,
                          oracle_elem *out)
{
    uint64_t a[256], b[256];
    for (uint64_t at = 0; at < period; at += 256) {
        size_t n = period - at < 256 ? (size_t)(period - at) : 256;
        for (size_t i = 0; i < n; i++) {
            a[i] = oracle_load(c->dtype, c->a, at + i);
            b[i] = oracle_load(c->dtype, c->b, at + i);
        }
        oracle_expect_n(r, a, b, n, out + at);
    }
}

/* The refused case c, narrowed: when it refused only elements whose
 * result is undefined, t->out becomes the narrowed calls' outputs. 0, or
 * -1 on a harness error (t->error). */
static int judge_refusal(trial *t, const divcase *c, uint64_t period)
{
    uint64_t n = t->plan.count;
    if (n > t->undefined_cap) {
        dvg_free(t->undefined);
        t->undefined = dvg_malloc(n);
        t->undefined_cap = t->undefined ? n : 0;
        if (!t->undefined) {
            snprintf(t->error, sizeof t->error, "case %s: out of memory", c->id);
            return -1;
        }
    }
    for (uint64_t i = 0; i < n; i++) { /* 0, or the element's kind: 1 + its rule */
        const oracle_elem *e = &t->expected[period ? i % period : i];
        t->undefined[i] = verdict_may_refuse(t->profile, e) ? (uint8_t)(1 + e->rule) : 0;
    }
    uint8_t *isolated = &t->refusal_isolated[c->variant % DVG_VARIANT_COUNT][c->dtype % DVG_DTYPE_COUNT];
    narrow_options no = {.max_steps = *isolated ? 2 : 0};
    if (narrow_refusals(t->w, c, t->undefined, &no, &t->refusal)) {
        snprintf(t->error, sizeof t->error, "case %.60s: narrowing a refusal: %.400s", c->id,
                 t->refusal.message);
        return -1;
    }
    verdict_outputs *o = &t->out;
    if (!t->refusal.accepted) /* the refusal stands, and says why */
        return 0;
    *isolated |= (uint8_t)t->refusal.found;
    o->outcome = VERDICT_OUT_OK;
    o->has_shape = o->computed = 1;
    o->shape = t->plan.out;
    o->out1 = t->refusal.out1;
    o->out2 = t->refusal.out2;
    o->flags = t->refusal.flags; /* o->period stays: the operands still repeat */
    o->side |= (t->refusal.side_effects & (WORKER_SIDE_INPUT_A | WORKER_SIDE_INPUT_B)
                    ? VERDICT_SIDE_INPUT : 0) |
               (t->refusal.side_effects & WORKER_SIDE_SLACK ? VERDICT_SIDE_SLACK : 0);
    snprintf(o->note, sizeof o->note, "compute refused (%" PRIu64 " of %" PRIu64
             " elements, %u narrowed calls): %.380s", t->refusal.refused, n, t->refusal.steps,
             t->refusal.message);
    return 0;
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
    uint64_t period = t->valid ? operands_period(c, &t->plan) : 0;
    if (t->valid) {
        uint64_t need = period ? period : t->plan.count;
        if (need > t->expected_cap) {
            dvg_free(t->expected);
            t->expected = dvg_malloc(need * sizeof *t->expected);
            t->expected_cap = t->expected ? need : 0;
            if (!t->expected) {
                snprintf(t->error, sizeof t->error,
                         "case %s: out of memory for %" PRIu64 " expected elements", c->id, need);
                return -1;
            }
        }
        if (period)
            expect_period(&t->rules, c, period, t->expected);
        else
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
    t->out.period = period;
    if (t->wr.outcome == WORKER_OUT_FAILURE &&
        verdict_refusal_narrowable(&t->out, t->valid, t->profile) && judge_refusal(t, c, period))
        return -1;
    int v = verdict_case(&t->rules, c, t->valid, &t->plan, t->expected, &t->out, t->profile,
                         t->declared, t->int_div_zero_value, tally, sink, ctx);
    if (v < 0)
        snprintf(t->error, sizeof t->error, "case %s: recording a finding failed", c->id);
    return v;
}

const divcase *trial_reproducer_case(const trial *t, const divcase *c, const verdict_example *ex,
                                     divcase *tmp, int *owned)
{
    *owned = 0;
    if (c->a_bytes + c->b_bytes <= TRIAL_FULL_CASE_BYTES || !t->valid)
        return c;
    if (ex->index != UINT64_MAX && !narrow_subcase(c, &t->plan, &c->attrs, ex->index, 1, tmp)) {
        snprintf(tmp->id, sizeof tmp->id, "%.60s[%" PRIu64 "]", c->id, ex->index);
        *owned = 1;
        return tmp;
    }
    return c;
}
