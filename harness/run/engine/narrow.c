/* SPDX-License-Identifier: MIT */
/*
 * harness/run/engine/narrow.c: crash narrowing (narrow.h).
 *
 * This file contains the narrowing of a case whose run ended in a
 * failure (a crash, hang, exit, out-of-bounds access, ...) down to the
 * output element that causes it: the comparison that says whether a run
 * reproduces the failure, the 1-D sub-case of a range of output elements
 * built from the oracle's broadcasting plan, and the bisection that runs
 * those sub-cases through worker_run until one element is left, neither
 * half of the range reproduces, or the step budget is spent.
 */
#include "harness/run/engine/narrow.h"

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

/* The 1-D sub-case of output elements idx[0 .. count) (idx NULL: first,
 * first + 1, ...) of c under plan p. 0, or -1 out of memory. */
static int subcase(const divcase *c, const oracle_plan *p, const dvg_attrs *attrs,
                   uint64_t first, const uint64_t *idx, uint64_t count, divcase *out)
{
    memset(out, 0, sizeof *out);
    if (idx)
        snprintf(out->id, sizeof out->id, "%.60s#%llu-of", c->id, (unsigned long long)count);
    else if (count == 1)
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
        oracle_plan_offsets(p, idx ? idx[i] : first + i, &ao, &bo);
        oracle_store(c->dtype, out->a, i, oracle_load(c->dtype, c->a, ao));
        oracle_store(c->dtype, out->b, i, oracle_load(c->dtype, c->b, bo));
    }
    for (uint32_t k = 0; k < c->n_requirements && k < DIVCASE_MAX_REQUIREMENTS; k++)
        out->requirements[k] = c->requirements[k];
    out->n_requirements = c->n_requirements;
    memcpy(out->source, c->source, sizeof out->source);
    return 0;
}

int narrow_subcase(const divcase *c, const oracle_plan *p, const dvg_attrs *attrs,
                   uint64_t first, uint64_t count, divcase *out)
{
    if (first > p->count || count > p->count - first)
        return -1;
    return subcase(c, p, attrs, first, NULL, count, out);
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

/* The plan of case c and the attributes of its 1-D sub-cases. 0, or -1
 * with the reason (cannot narrow: ...) in msg. */
static int prepare(const divcase *c, oracle_plan *plan, dvg_attrs *attrs, char *msg, size_t len)
{
    oracle_rules rules;
    oracle_error err;
    if (oracle_rules_resolve(c->variant, c->dtype, &c->attrs, &rules, &err) != ORACLE_OK ||
        oracle_plan_shapes(&rules, &c->a_shape, &c->b_shape, plan, &err) != ORACLE_OK) {
        snprintf(msg, len, "cannot narrow: the oracle rejects the case: %.200s", err.text);
        return -1;
    }
    if (oracle_nbytes(c->dtype, plan->a_count) != c->a_bytes ||
        oracle_nbytes(c->dtype, plan->b_count) != c->b_bytes) {
        snprintf(msg, len, "cannot narrow: the operand bytes do not match the shapes");
        return -1;
    }
    if (plan->count == 0) {
        snprintf(msg, len, "cannot narrow: the case has no output elements");
        return -1;
    }
    if (choose_attrs(c, plan->count, attrs) != 0) {
        snprintf(msg, len,
                 "cannot narrow: the variant accepts no equal 1-D shapes under any attributes");
        return -1;
    }
    return 0;
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

/* Runs the 1-D sub-case sub of count elements on w into *res, counting
 * the run in *steps. 0, or -1 with the reason in msg (len bytes): a worker
 * run failed for the harness, or the worker no longer loads. */
static int run_sub(worker *w, const divcase *sub, uint64_t count, worker_result *res,
                   uint32_t *steps, char *msg, size_t len)
{
    oracle_shape expect;
    memset(&expect, 0, sizeof expect);
    expect.rank = 1;
    expect.dims[0] = (int64_t)count;
    ++*steps;
    if (worker_run(w, sub, &expect, res) != 0) {
        snprintf(msg, len, "worker run failed: %.400s", worker_errmsg(w));
        return -1;
    }
    if (res->outcome == WORKER_OUT_LOAD_ERROR) {
        snprintf(msg, len, "the worker no longer loads: %.400s", res->message);
        return -1;
    }
    return 0;
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
    if (run_sub(w, sub, count, res, &out->steps, out->message, sizeof out->message)) {
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
    oracle_plan plan;
    dvg_attrs attrs;
    if (prepare(c, &plan, &attrs, out->message, sizeof out->message))
        goto done;
    uint64_t n = plan.count;
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

/* ---- refusals ---------------------------------------------------------------- */

void narrow_refusal_free(narrow_refusal *r)
{
    if (!r)
        return;
    dvg_free(r->out1);
    dvg_free(r->out2);
    dvg_free(r->flags);
    dvg_free(r->idx_);
    memset(r, 0, sizeof *r);
}

/* Room for the outputs of n elements of dtype (kept between cases). */
static int refusal_room(narrow_refusal *r, uint32_t dtype, uint64_t n)
{
    uint64_t bytes = oracle_nbytes(dtype, n);
    if (bytes > r->cap_bytes_) {
        dvg_free(r->out1);
        dvg_free(r->out2);
        r->out1 = dvg_malloc(bytes);
        r->out2 = dvg_malloc(bytes);
        r->cap_bytes_ = r->out1 && r->out2 ? bytes : 0;
        if (!r->cap_bytes_)
            return -1;
    }
    if (n > r->cap_count_) {
        dvg_free(r->flags);
        dvg_free(r->idx_);
        r->flags = dvg_malloc(n);
        r->idx_ = dvg_malloc(n * sizeof *r->idx_);
        r->cap_count_ = r->flags && r->idx_ ? n : 0;
        if (!r->cap_count_)
            return -1;
    }
    memset(r->out1, 0, (size_t)bytes);
    memset(r->out2, 0, (size_t)bytes);
    memset(r->flags, 0, (size_t)n);
    return 0;
}

/* Runs output elements idx[0 .. count) of c alone (one 1-D sub-case)
 * into *res. 0, or -1 on a harness error (r->message says which). */
static int run_elements(worker *w, const divcase *c, const oracle_plan *p, const dvg_attrs *attrs,
                        const uint64_t *idx, uint64_t count, worker_result *res,
                        narrow_refusal *r)
{
    divcase sub;
    if (subcase(c, p, attrs, 0, idx, count, &sub)) {
        snprintf(r->message, sizeof r->message, "out of memory building a sub-case of %llu "
                 "elements", (unsigned long long)count);
        return -1;
    }
    int rc = run_sub(w, &sub, count, res, &r->steps, r->message, sizeof r->message);
    divcase_free(&sub);
    return rc;
}

/* Puts what a computed sub-run of elements idx[0 .. count) gave into the
 * case's outputs. */
static void scatter(narrow_refusal *r, uint32_t dtype, const uint64_t *idx, uint64_t count,
                    const worker_result *res)
{
    for (uint64_t k = 0; k < count; k++) {
        oracle_store(dtype, r->out1, idx[k], oracle_load(dtype, res->out1, k));
        oracle_store(dtype, r->out2, idx[k], oracle_load(dtype, res->out2, k));
        r->flags[idx[k]] = res->flags ? res->flags[k] : 0;
    }
    r->side_effects |= res->side_effects & (WORKER_SIDE_INPUT_A | WORKER_SIDE_INPUT_B |
                                            WORKER_SIDE_SLACK);
}

/* The element indices 0 .. n-1 into idx, the defined ones (kind 0)
 * first, then the undefined ones by kind (a counting sort: each kind one
 * range); at_kind[k] the end of kind k's range. The defined count. */
static uint64_t order_by_kind(const uint8_t *undefined, uint64_t n, uint64_t *idx,
                              uint64_t at_kind[256])
{
    memset(at_kind, 0, 256 * sizeof at_kind[0]);
    for (uint64_t i = 0; i < n; i++)
        at_kind[undefined[i]]++;
    uint64_t nd = at_kind[0];
    for (uint64_t k = 0, sum = 0; k < 256; k++) {
        uint64_t count = at_kind[k];
        at_kind[k] = sum;
        sum += count;
    }
    for (uint64_t i = 0; i < n; i++)
        idx[at_kind[undefined[i]]++] = i;
    return nd;
}

int narrow_refusals(worker *w, const divcase *c, const uint8_t *undefined,
                    const narrow_options *o, narrow_refusal *out)
{
    worker_result res = WORKER_RESULT_INIT;
    oracle_plan plan;
    dvg_attrs attrs;
    int rc = -1;
    out->accepted = out->found = 0;
    out->count = out->refused = out->index = 0;
    out->steps = 0;
    out->side_effects = 0;
    out->message[0] = 0;
    if (prepare(c, &plan, &attrs, out->message, sizeof out->message))
        return 0; /* not narrowed: the refusal stands */
    uint64_t n = plan.count;
    if (refusal_room(out, c->dtype, n)) {
        snprintf(out->message, sizeof out->message, "out of memory for %llu elements",
                 (unsigned long long)n);
        return -1;
    }
    out->count = n;
    uint64_t *idx = out->idx_, at_kind[256];
    uint64_t nd = order_by_kind(undefined, n, idx, at_kind);
    if (nd == n) {
        snprintf(out->message, sizeof out->message, "no element of the case is undefined");
        rc = 0;
        goto done;
    }
    /* 1. The defined elements alone: they must compute. */
    if (nd) {
        if (run_elements(w, c, &plan, &attrs, idx, nd, &res, out))
            goto done;
        if (res.outcome != WORKER_OUT_OK || !res.computed) {
            char what[WORKER_MESSAGE_MAX];
            snprintf(out->message, sizeof out->message,
                     "the case's %llu defined elements alone: %.400s", (unsigned long long)nd,
                     worker_result_format(&res, what, sizeof what));
            rc = 0;
            goto done;
        }
        scatter(out, c->dtype, idx, nd, &res);
    }
    /* 2. The undefined ones, each kind alone, a refused range halved
     * down to one element (the first time), or refused as a whole. */
    uint32_t budget = o && o->max_steps ? o->max_steps : 4 * ceil_log2(n) + 16;
    uint64_t stack[256 + 2 * 64 + 2][2];
    size_t top = 0;
    for (uint64_t k = 255; k >= 1; k--) { /* each kind, the first on top */
        uint64_t start = at_kind[k - 1]; /* after placing: kind k ends at at_kind[k] */
        if (at_kind[k] > start) {
            stack[top][0] = start;
            stack[top++][1] = at_kind[k] - start;
        }
    }
    while (top) {
        uint64_t at = stack[top - 1][0], len = stack[top - 1][1];
        top--;
        if (run_elements(w, c, &plan, &attrs, idx + at, len, &res, out))
            goto done;
        if (res.outcome == WORKER_OUT_OK && res.computed) {
            scatter(out, c->dtype, idx + at, len, &res);
            continue;
        }
        if (res.outcome != WORKER_OUT_FAILURE) {
            char what[WORKER_MESSAGE_MAX];
            snprintf(out->message, sizeof out->message,
                     "%llu undefined elements alone: %.400s: not a refusal",
                     (unsigned long long)len, worker_result_format(&res, what, sizeof what));
            out->refused = 0;
            rc = 0;
            goto done;
        }
        if (!out->refused)
            snprintf(out->message, sizeof out->message, "%s", res.message);
        if (len > 1 && !out->found && out->steps < budget &&
            top + 2 <= sizeof stack / sizeof stack[0]) {
            stack[top][0] = at + len / 2; /* the first half is run first */
            stack[top++][1] = len - len / 2;
            stack[top][0] = at;
            stack[top++][1] = len / 2;
            continue;
        }
        for (uint64_t k = 0; k < len; k++)
            out->flags[idx[at + k]] = NARROW_ELEM_REFUSED;
        out->refused += len;
        if (len == 1 && !out->found) {
            out->found = 1;
            out->index = idx[at];
        }
    }
    if (out->refused)
        out->accepted = 1;
    else
        snprintf(out->message, sizeof out->message,
                 "no narrowed call was refused: the refusal needs the whole case");
    rc = 0;
done:
    worker_result_free(&res);
    return rc;
}
