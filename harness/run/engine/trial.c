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
#include "harness/run/engine/narrow.h"
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
    case WORKER_OUT_LATE_WRITE: return VERDICT_OUT_LATE_WRITE;
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

/* The judge's sink while a failure is put down to a leak (leak.h): the
 * failure becomes a resource-leak with the leak's words. */
typedef struct leak_sink_ctx {
    verdict_sink sink;
    void *ctx;
    char why[VERDICT_NOTE_MAX - 128];
} leak_sink_ctx;

static int leak_sink(void *ctx, const divcase *c, const verdict_example *ex)
{
    leak_sink_ctx *lc = ctx;
    if (!lc->sink)
        return 0;
    if (ex->cls != ORACLE_CLASS_FAILURE)
        return lc->sink(lc->ctx, c, ex);
    verdict_example e = *ex;
    char was[96];
    size_t n = strnlen(ex->note, sizeof was - 1);
    memcpy(was, ex->note, n);
    was[n] = '\0';
    e.cls = ORACLE_CLASS_RESOURCE_LEAK;
    snprintf(e.note, sizeof e.note, "failed (%s) %s", was, lc->why);
    return lc->sink(lc->ctx, c, &e);
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
    worker_result_free(&t->retime);
    narrow_refusal_free(&t->refusal);
    dvg_free(t->undefined);
    t->undefined = NULL;
    t->undefined_cap = 0;
    dvg_free(t->expected);
    t->expected = NULL;
    t->expected_cap = 0;
}

/* 1 when an operand of n elements, read with `stride` per output dim of
 * plan p (its data d), gives output element i its element i mod n (the
 * innermost dims contiguous as the output's, the outer ones broadcast)
 * and that depends only on i mod `period`: n divides the period, or the
 * operand is the whole output and its data repeat with the period. */
static int operand_periodic(const int64_t *stride, uint64_t n, const uint8_t *d, uint32_t dtype,
                            const oracle_plan *p, uint64_t period)
{
    uint64_t st = 1;
    for (uint32_t k = p->out.rank; k-- > 0;) {
        uint64_t dim = (uint64_t)p->out.dims[k];
        if (dim == 1)
            continue;
        if (st < n ? stride[k] != (int64_t)st : stride[k] != 0)
            return 0;
        if (st < n)
            st *= dim;
    }
    if (n == 0 || st != n)
        return 0;
    if (period % n == 0)
        return 1;
    if (n != p->count)
        return 0;
    uint64_t run = oracle_nbytes(dtype, period), all = oracle_nbytes(dtype, n);
    return memcmp(d + run, d, (size_t)(all - run)) == 0;
}

/* GEN_FILL_PERIOD when output element i depends only on i mod
 * GEN_FILL_PERIOD: A and B each either the whole output repeating with
 * that period, or broadcast along leading dims only with an element count
 * that divides it (a row, one element), as the shape walker's size tiers
 * and large code-path cases are (gen_fill_operands_periodic): checked
 * here byte for byte, so a case from anywhere else is judged the same way
 * or in full. 0: judge every element. */
uint64_t trial_period(const divcase *c, const oracle_plan *p)
{
    const uint64_t period = GEN_FILL_PERIOD;
    if (p->count < 4 * period)
        return 0;
    if (oracle_nbytes(c->dtype, 2 * period) != 2 * oracle_nbytes(c->dtype, period))
        return 0; /* not a whole number of bytes */
    if (!operand_periodic(p->a_stride, p->a_count, c->a, c->dtype, p, period) ||
        !operand_periodic(p->b_stride, p->b_count, c->b, c->dtype, p, period))
        return 0;
    return period;
}

/* The expectation of the first `period` elements of a periodic case
 * (trial_period: A and B read element i mod their counts). */
static void expect_period(const oracle_rules *r, const divcase *c, uint64_t period,
                          oracle_elem *out)
{
    uint64_t a[256], b[256];
    uint64_t na = oracle_shape_count(&c->a_shape), nb = oracle_shape_count(&c->b_shape);
    for (uint64_t at = 0; at < period; at += 256) {
        size_t n = period - at < 256 ? (size_t)(period - at) : 256;
        for (size_t i = 0; i < n; i++) {
            a[i] = oracle_load(c->dtype, c->a, (at + i) % na);
            b[i] = oracle_load(c->dtype, c->b, (at + i) % nb);
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

int trial_case_finding(uint32_t cls, int accepted, const char *note, const divcase *c,
                       verdict_tally *tally, verdict_sink sink, void *ctx)
{
    verdict_example ex;
    memset(&ex, 0, sizeof ex);
    ex.cls = cls;
    ex.index = UINT64_MAX;
    ex.operand_a = ex.operand_b = ORACLE_OPERAND_COUNT;
    ex.elements = 1;
    ex.accepted = accepted;
    snprintf(ex.note, sizeof ex.note, "%s", note);
    if (tally) {
        if (accepted)
            tally->accepted[cls]++;
        else
            tally->counts[cls]++;
        tally->class_cases[cls]++;
    }
    return sink && sink(ctx, c, &ex) ? -1 : 0;
}

int trial_retime(trial *t, const divcase *c, uint64_t *ns)
{
    int pid = worker_pid(t->w);
    uint64_t m0 = 0, m1 = 0;
    int main_read = pid > 0 && pace_main_thread_ns(pid, &m0) == 0;
    if (worker_run(t->w, c, &t->plan.out, &t->retime)) {
        snprintf(t->error, sizeof t->error, "case %s: %s", c->id, worker_errmsg(t->w));
        return -1;
    }
    uint64_t again = pace_case_ns(&t->retime);
    /* the main thread's share, per compute run (a spinning thread the
     * plugin left is not in it) */
    if (again && main_read && worker_pid(t->w) == pid && pace_main_thread_ns(pid, &m1) == 0 &&
        m1 >= m0 && (m1 - m0) / 2 < again)
        again = (m1 - m0) / 2;
    if (again && (!*ns || again < *ns))
        *ns = again;
    return 0;
}

/* The pace of t's last case c, computed (pace.h): a cliff candidate is
 * run once more and timed again. 0, 1 when it is a cliff (*note says so),
 * -1 on a harness error (t->error). */
static int pace_case(trial *t, const divcase *c, char *note, size_t len)
{
    const worker_info *in = worker_get_info(t->w);
    if (t->pace.off || (in && strcmp(in->cpu_model, "native") != 0))
        return 0;
    uint64_t n = t->wr.count, ns = pace_case_ns(&t->wr);
    pace_verdict pv;
    if (pace_judge(&t->pace, c->dtype, n, ns, &pv)) {
        if (trial_retime(t, c, &ns) < 0)
            return -1;
        if (pace_judge(&t->pace, c->dtype, n, ns, &pv)) {
            pace_describe(&pv, c->dtype, n, ns, note, len);
            return 1;
        }
    }
    pace_add(&t->pace, c->dtype, n, ns);
    return 0;
}

/* The memory of t's worker life grew steadily (leak.h): case c, just run,
 * runs LEAK_REPEATS times more in the same life, same shapes and data, and
 * what those calls add, read from outside, tells a leak (LEAK_FOUND, the
 * words appended to *note) from a cache (LEAK_NONE, its figure added to
 * *tally). -1 on a harness error (t->error). */
static int repeat_case(trial *t, const divcase *c, verdict_tally *tally, char *note, size_t len)
{
    uint64_t life = worker_spawns(t->w);
    leak_sample s[3];
    int read = leak_read(t->w, &s[0]) == 0;
    for (uint32_t i = 0; read && i < LEAK_REPEATS; i++) {
        if (worker_run(t->w, c, t->valid ? &t->plan.out : NULL, &t->retime)) {
            snprintf(t->error, sizeof t->error, "case %s: %s", c->id, worker_errmsg(t->w));
            return -1;
        }
        read = worker_spawns(t->w) == life;
        if (read && i + 1 == LEAK_REPEATS / 2)
            read = leak_read(t->w, &s[1]) == 0;
    }
    read = read && leak_read(t->w, &s[2]) == 0 && worker_spawns(t->w) == life;
    int leak = leak_repeated(&t->leak, read ? s : NULL, LEAK_REPEATS, note, len);
    if (leak == LEAK_NONE) {
        leak_cache figure;
        verdict_tally one;
        leak_cache_figure(&t->leak, &figure);
        memset(&one, 0, sizeof one);
        one.cache_bytes = figure.bytes;
        one.cache_calls = figure.calls;
        one.cache_lo = figure.lo;
        one.cache_hi = figure.hi;
        verdict_tally_add(tally, &one);
    }
    return leak;
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
    uint64_t period = t->valid ? trial_period(c, &t->plan) : 0;
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
    leak_sink_ctx lc = {sink, ctx, {0}};
    int leaked = t->wr.outcome == WORKER_OUT_FAILURE &&
                 leak_explains_failure(&t->leak, t->w, lc.why, sizeof lc.why);
    /* the tally may hold earlier cases' (fuzz adds up a lane's) */
    uint64_t failed = tally->counts[ORACLE_CLASS_FAILURE],
             failed_cases = tally->class_cases[ORACLE_CLASS_FAILURE];
    int v = verdict_case(&t->rules, c, t->valid, &t->plan, t->expected, &t->out, t->profile,
                         t->declared, t->int_div_zero_value, tally, leaked ? leak_sink : sink,
                         leaked ? &lc : ctx);
    if (leaked) { /* this case's failure is the leak's */
        tally->counts[ORACLE_CLASS_RESOURCE_LEAK] += tally->counts[ORACLE_CLASS_FAILURE] - failed;
        tally->class_cases[ORACLE_CLASS_RESOURCE_LEAK] +=
            tally->class_cases[ORACLE_CLASS_FAILURE] - failed_cases;
        tally->counts[ORACLE_CLASS_FAILURE] = failed;
        tally->class_cases[ORACLE_CLASS_FAILURE] = failed_cases;
    }
    char note[VERDICT_NOTE_MAX];
    int leak = v >= 0 ? leak_note(&t->leak, t->w, note, sizeof note) : LEAK_NONE;
    if (leak == LEAK_SUSPECT && (leak = repeat_case(t, c, tally, note, sizeof note)) < 0)
        return -1;
    if (leak == LEAK_FOUND) {
        v = trial_case_finding(ORACLE_CLASS_RESOURCE_LEAK, 0, note, c, tally, sink, ctx);
        worker_renew(t->w);
    }
    if (v >= 0 && t->valid && t->wr.computed) {
        int slow = pace_case(t, c, note, sizeof note);
        if (slow < 0)
            return -1;
        if (slow)
            v = trial_case_finding(ORACLE_CLASS_PERFORMANCE_CLIFF, 0, note, c, tally, sink, ctx);
    }
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
