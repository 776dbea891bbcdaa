/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/narrow.c: crash narrowing (narrow.h).
 *
 * This file contains the narrowing of a case whose run ended in a
 * failure (a crash, hang, exit, out-of-bounds access, ...) down to the
 * output element that causes it: the comparison that says whether a run
 * reproduces the failure, the 1-D sub-case of a range of output elements
 * built from the oracle's broadcasting plan, and the bisection that runs
 * those sub-cases through worker_run until one element is left, neither
 * half of the range reproduces, or the step budget is spent.
 */
#include "harness/worker/narrow.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "oracle/dtype.h"
#include "oracle/rules.h"
#include "oracle/shape.h"

static void say(narrow_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(narrow_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->message, sizeof r->message, fmt, ap);
    va_end(ap);
}

int narrow_same_failure(const worker_result *want, const worker_result *got)
{
    if (want->outcome == WORKER_OUT_OK || want->outcome == WORKER_OUT_LOAD_ERROR)
        return 0;
    if (got->outcome != want->outcome)
        return 0;
    if (want->outcome == WORKER_OUT_CRASH && got->signal != want->signal)
        return 0;
    return 1;
}

int narrow_subcase(const divcase *c, const oracle_plan *p, const dvg_attrs *attrs,
                   uint64_t first, uint64_t count, divcase *out)
{
    if (first > p->count || count > p->count - first)
        return -1;
    memset(out, 0, sizeof *out);
    if (count == 1)
        snprintf(out->id, sizeof out->id, "%.70s#%llu", c->id, (unsigned long long)first);
    else
        snprintf(out->id, sizeof out->id, "%.60s#%llu+%llu", c->id, (unsigned long long)first,
                 (unsigned long long)count);
    out->variant = c->variant;
    out->dtype = c->dtype;
    out->attrs = *attrs;
    out->offsets = c->offsets;
    out->a_shape.rank = out->b_shape.rank = 1;
    out->a_shape.dims[0] = out->b_shape.dims[0] = (int64_t)count;
    if (divcase_alloc(out, count) != 0) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    for (uint64_t i = 0; i < count; i++) {
        uint64_t ao, bo;
        oracle_plan_offsets(p, first + i, &ao, &bo);
        oracle_store(c->dtype, out->a, i, oracle_load(c->dtype, c->a, ao));
        oracle_store(c->dtype, out->b, i, oracle_load(c->dtype, c->b, bo));
    }
    for (uint32_t k = 0; k < c->n_requirements && k < DIVCASE_MAX_REQUIREMENTS; k++)
        out->requirements[k] = c->requirements[k];
    out->n_requirements = c->n_requirements;
    memcpy(out->source, c->source, sizeof out->source);
    return 0;
}

/* 1 when the variant accepts equal 1-D shapes of n elements under attrs. */
static int accepts_equal(const divcase *c, const dvg_attrs *attrs, uint64_t n)
{
    oracle_rules rules;
    oracle_plan plan;
    oracle_error err;
    oracle_shape s;
    memset(&s, 0, sizeof s);
    s.rank = 1;
    s.dims[0] = (int64_t)n;
    if (oracle_rules_resolve(c->variant, c->dtype, attrs, &rules, &err) != ORACLE_OK)
        return 0;
    if (oracle_plan_shapes(&rules, &s, &s, &plan, &err) != ORACLE_OK)
        return 0;
    return plan.count == n;
}

/* The attributes of the sub-cases: the case's own when they allow equal
 * shapes (every sub-case length is then fine too), else plain ones. */
static int choose_attrs(const divcase *c, uint64_t n, dvg_attrs *out)
{
    dvg_attrs a = c->attrs;
    if (accepts_equal(c, &a, n) && accepts_equal(c, &a, 1)) {
        *out = a;
        return 0;
    }
    a.broadcast = 0;
    a.axis_set = 0;
    a.auto_broadcast = DVG_BROADCAST_NONE;
    if (accepts_equal(c, &a, n) && accepts_equal(c, &a, 1)) {
        *out = a;
        return 0;
    }
    return -1;
}

void narrow_result_free(narrow_result *r)
{
    if (!r)
        return;
    divcase_free(&r->reduced);
    worker_result_free(&r->failure);
    memset(r, 0, sizeof *r);
}

static uint32_t ceil_log2(uint64_t n)
{
    uint32_t k = 0;
    while (k < 64 && (UINT64_C(1) << k) < n)
        k++;
    return k;
}

/*
 * Runs elements [first, first + count) as a sub-case. Returns 1 when it
 * reproduces (the case and its result are then in *sub and *res), 0 when
 * not, -1 on a harness error.
 */
static int try_range(worker *w, const divcase *c, const oracle_plan *p, const dvg_attrs *attrs,
                     const worker_result *want, uint64_t first, uint64_t count, divcase *sub,
                     worker_result *res, narrow_result *out)
{
    if (narrow_subcase(c, p, attrs, first, count, sub) != 0) {
        say(out, "out of memory building a sub-case of %llu elements",
            (unsigned long long)count);
        return -1;
    }
    oracle_shape expect;
    memset(&expect, 0, sizeof expect);
    expect.rank = 1;
    expect.dims[0] = (int64_t)count;
    out->steps++;
    if (worker_run(w, sub, &expect, res) != 0) {
        say(out, "worker run failed: %s", worker_errmsg(w));
        divcase_free(sub);
        return -1;
    }
    if (res->outcome == WORKER_OUT_LOAD_ERROR) {
        say(out, "the worker no longer loads: %s", res->message);
        divcase_free(sub);
        return -1;
    }
    if (narrow_same_failure(want, res))
        return 1;
    divcase_free(sub);
    return 0;
}

int narrow_case(worker *w, const divcase *c, const worker_result *failure,
                const narrow_options *o, narrow_result *out)
{
    memset(out, 0, sizeof *out);
    worker_result trial = WORKER_RESULT_INIT;
    divcase sub;
    int rc = -1;
    memset(&sub, 0, sizeof sub);

    if (failure->outcome == WORKER_OUT_OK || failure->outcome == WORKER_OUT_LOAD_ERROR) {
        say(out, "nothing to narrow: the run ended in %s", worker_outcome_name(failure->outcome));
        goto done;
    }
    oracle_rules rules;
    oracle_plan plan;
    oracle_error err;
    if (oracle_rules_resolve(c->variant, c->dtype, &c->attrs, &rules, &err) != ORACLE_OK ||
        oracle_plan_shapes(&rules, &c->a_shape, &c->b_shape, &plan, &err) != ORACLE_OK) {
        say(out, "cannot narrow: the oracle rejects the case: %s", err.text);
        goto done;
    }
    if (oracle_nbytes(c->dtype, plan.a_count) != c->a_bytes ||
        oracle_nbytes(c->dtype, plan.b_count) != c->b_bytes) {
        say(out, "cannot narrow: the operand bytes do not match the shapes");
        goto done;
    }
    uint64_t n = plan.count;
    if (n == 0) {
        say(out, "cannot narrow: the case has no output elements");
        goto done;
    }
    dvg_attrs attrs;
    if (choose_attrs(c, n, &attrs) != 0) {
        say(out, "cannot narrow: the variant accepts no equal 1-D shapes under any attributes");
        goto done;
    }
    uint32_t max_steps = o && o->max_steps ? o->max_steps : 2 * ceil_log2(n) + 4;

    uint64_t lo = 0, len = n;
    int t = try_range(w, c, &plan, &attrs, failure, lo, len, &out->reduced, &out->failure, out);
    if (t < 0)
        goto done;
    out->index = 0;
    out->count = n;
    if (t == 0) {
        /* Keep the full 1-D case and what it did, for the report. */
        if (narrow_subcase(c, &plan, &attrs, 0, n, &out->reduced) != 0) {
            say(out, "out of memory");
            goto done;
        }
        say(out, "the 1-D case of all %llu elements did not reproduce the %s (it gave %s)",
            (unsigned long long)n, worker_outcome_name(failure->outcome),
            worker_outcome_name(out->failure.outcome));
        rc = 0;
        goto done;
    }
    out->reproduced = 1;
    while (len > 1 && out->steps < max_steps) {
        uint64_t half = len / 2;
        uint64_t parts[2][2] = {{lo, half}, {lo + half, len - half}};
        int moved = 0;
        for (int k = 0; k < 2 && !moved && out->steps < max_steps; k++) {
            t = try_range(w, c, &plan, &attrs, failure, parts[k][0], parts[k][1], &sub, &trial,
                          out);
            if (t < 0)
                goto done;
            if (t == 1) {
                divcase_free(&out->reduced);
                out->reduced = sub;
                memset(&sub, 0, sizeof sub);
                worker_result tmp = out->failure;
                out->failure = trial;
                trial = tmp;
                lo = parts[k][0];
                len = parts[k][1];
                moved = 1;
            }
        }
        if (!moved)
            break;
    }
    out->index = lo;
    out->count = len;
    if (len == 1) {
        out->found = 1;
        oracle_plan_offsets(&plan, lo, &out->a_offset, &out->b_offset);
        say(out, "narrowed to output element %llu (A[%llu] / B[%llu]) in %u runs",
            (unsigned long long)lo, (unsigned long long)out->a_offset,
            (unsigned long long)out->b_offset, out->steps);
    } else if (out->steps >= max_steps) {
        say(out, "stopped after %u runs at %llu elements from output index %llu", out->steps,
            (unsigned long long)len, (unsigned long long)lo);
    } else {
        say(out, "%llu elements from output index %llu reproduce, neither half alone does "
                 "(%u runs)",
            (unsigned long long)len, (unsigned long long)lo, out->steps);
    }
    rc = 0;
done:
    divcase_free(&sub);
    worker_result_free(&trial);
    return rc;
}
