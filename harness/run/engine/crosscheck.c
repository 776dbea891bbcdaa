/* SPDX-License-Identifier: MIT */
/*
 * This file contains the comparison of several plugins' outputs of one
 * case (harness/run/engine/crosscheck.h): the hazard classes, where the specs
 * leave room, and the walk over the output elements that keeps, among the
 * plugins that computed the case, those on which every one conforms by the
 * one judge (verdict_element) but the bits differ.
 */
#include "harness/run/engine/crosscheck.h"

#include <stdio.h>
#include <string.h>

#include "oracle/compare.h"
#include "oracle/dtype.h"

static const char *const hazard_names[HAZARD_COUNT] = {
    "int-div-zero",      "int-min-neg-one",     "float-div-zero-undefined",
    "unsigned-inf-sign", "nan-sign-or-payload", "declared-deviation"};

const char *hazard_name(uint32_t hazard)
{
    return hazard < HAZARD_COUNT ? hazard_names[hazard] : "?";
}

int hazard_by_name(const char *name)
{
    for (int h = 0; h < HAZARD_COUNT; h++)
        if (!strcmp(hazard_names[h], name))
            return h;
    return -1;
}

uint32_t hazard_of(const oracle_rules *r, const oracle_elem *e, int declared)
{
    if (declared)
        return HAZARD_DECLARED;
    switch (e->rule) {
    case ORACLE_RULE_INT_DIV_ZERO: return HAZARD_INT_DIV_ZERO;
    case ORACLE_RULE_INT_MIN_BY_MINUS_ONE: return HAZARD_INT_MIN_NEG_ONE;
    case ORACLE_RULE_FLOAT_DIV_ZERO_UNDEFINED: return HAZARD_FLOAT_DIV_ZERO;
    case ORACLE_RULE_FLOAT_DIV_ZERO_UNSIGNED_INF: return HAZARD_UNSIGNED_INF_SIGN;
    default: break;
    }
    if (e->kind == ORACLE_ANY_NAN)
        return HAZARD_NAN;
    if (e->kind == ORACLE_ANY_INF)
        return HAZARD_UNSIGNED_INF_SIGN;
    if (e->kind == ORACLE_UNSPECIFIED)
        return r->kind == DVG_KIND_FLOAT ? HAZARD_FLOAT_DIV_ZERO : HAZARD_INT_DIV_ZERO;
    return HAZARD_DECLARED;
}

int hazard_possible(const oracle_elem *e)
{
    return e->kind != ORACLE_EXACT || e->rule == ORACLE_RULE_INT_DIV_ZERO ||
           e->rule == ORACLE_RULE_INT_MIN_BY_MINUS_ONE;
}

int crosscheck_computed(const trial *t)
{
    return t->valid && t->out.outcome == VERDICT_OUT_OK && t->out.computed;
}

int crosscheck_outputs(const trial *const *t, uint32_t n, const divcase *c,
                       crosscheck_counts *counts, crosscheck_sink sink, void *ctx)
{
    crosscheck_counts none;
    if (!counts)
        counts = &none;
    if (n > CROSSCHECK_MAX_PLUGINS)
        n = CROSSCHECK_MAX_PLUGINS;
    uint32_t computed = 0, n_computed = 0, first = 0;
    for (uint32_t k = 0; k < n; k++)
        if (crosscheck_computed(t[k])) {
            if (!n_computed)
                first = k;
            computed |= 1u << k;
            n_computed++;
        }
    if (n_computed < 2)
        return 0;
    const trial *t0 = t[first];
    const oracle_plan *p = &t0->plan;
    const oracle_rules *r = &t0->rules;
    uint32_t dtype = c->dtype;
    uint64_t period = t0->out.period;
    crosscheck_elem x = {.computed = computed};
    for (uint64_t i = 0; i < p->count; i++) {
        const oracle_elem *e = &t0->expected[period ? i % period : i];
        uint64_t ao, bo;
        oracle_plan_offsets(p, i, &ao, &bo);
        uint64_t a = oracle_load(dtype, c->a, ao), b = oracle_load(dtype, c->b, bo);
        int all_ok = 1, same = 1, declared = 0;
        x.refused = 0;
        for (uint32_t k = 0; k < n; k++) {
            if (!(computed & (1u << k)))
                continue;
            uint32_t cls;
            uint8_t flags = t[k]->out.flags ? t[k]->out.flags[i] : 0;
            x.values[k] = oracle_load(dtype, t[k]->out.out1, i);
            if (flags == VERDICT_ELEM_REFUSED && verdict_may_refuse(t[k]->profile, e))
                x.refused |= 1u << k; /* conforms, with no value */
            else if (flags ||
                     !verdict_element(r, a, b, e, x.values[k], t[k]->profile, t[k]->declared, &cls))
                all_ok = 0;
            else if (cls != ORACLE_CLASS_MATCH)
                declared = 1;
        }
        for (uint32_t k = 0; k < n; k++)
            if (computed & (1u << k))
                same &= ((x.refused >> k) & 1) == ((x.refused >> first) & 1) &&
                        ((x.refused >> k & 1) || x.values[k] == x.values[first]);
        counts->elements++;
        if (!all_ok) {
            counts->departures++;
            continue;
        }
        if (same) {
            counts->agree++;
            continue;
        }
        x.index = i;
        x.a = a;
        x.b = b;
        x.expected = e;
        x.hazard = hazard_of(r, e, declared);
        x.operand_a = oracle_operand_class(dtype, a);
        x.operand_b = oracle_operand_class(dtype, b);
        counts->hazards[x.hazard]++;
        if (sink) {
            int rc = sink(ctx, &x);
            if (rc)
                return rc;
        }
    }
    return 0;
}

void crosscheck_outcome_text(const trial *t, uint64_t i, char *buf, size_t cap)
{
    const worker_result *wr = &t->wr;
    if (crosscheck_computed(t)) {
        if (t->out.flags && (t->out.flags[i] & VERDICT_ELEM_REFUSED))
            snprintf(buf, cap, "%s", VERDICT_REFUSED_TEXT);
        else
            verdict_bits_text(t->rules.dtype, oracle_load(t->rules.dtype, t->out.out1, i), buf, cap);
        return;
    }
    const char *name = worker_outcome_name(wr->outcome), *sig = strstr(wr->message, "SIG");
    if (wr->outcome == WORKER_OUT_FAILURE || wr->outcome == WORKER_OUT_BAD_STATUS)
        snprintf(buf, cap, "%s (error status)", name);
    else if (wr->outcome == WORKER_OUT_CRASH && sig)
        snprintf(buf, cap, "%s (%.*s)", name, (int)strcspn(sig, " ,:)"), sig);
    else
        snprintf(buf, cap, "%s", name);
}

void crosscheck_given_text(const trial *const *t, const char *const *names, uint32_t n,
                           uint64_t i, char *buf, size_t cap)
{
    size_t at = 0;
    if (cap)
        buf[0] = 0;
    for (uint32_t k = 0; k < n && at < cap; k++) {
        char cell[VERDICT_TEXT_MAX];
        crosscheck_outcome_text(t[k], i, cell, sizeof cell);
        int w = snprintf(buf + at, cap - at, "%s%s: %s", k ? "; " : "", names[k], cell);
        if (w < 0)
            break;
        at += (size_t)w;
    }
}

void crosscheck_example(const crosscheck_elem *x, verdict_example *ex)
{
    memset(ex, 0, sizeof *ex);
    ex->cls = ORACLE_CLASS_MATCH;
    ex->index = x->index;
    ex->a = x->a;
    ex->b = x->b;
    ex->operand_a = x->operand_a;
    ex->operand_b = x->operand_b;
    ex->expected = *x->expected;
}
