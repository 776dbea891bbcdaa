/* SPDX-License-Identifier: MIT */
/*
 * This file contains the minimiser of findings (harness/run/campaign/minimise.h):
 * the narrowing to the example's element, the simplest operands of its
 * operand classes, and the greedy shape shrinker whose candidates are the
 * steps a kernel's paths care about first. Every step keeps a change only
 * when the caller's probe says the finding still shows.
 */
#include "harness/run/campaign/minimise.h"

#include <stdio.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/cases/gen.h"
#include "harness/run/engine/narrow.h"
#include "oracle/dtype.h"
#include "oracle/value.h"

/* Simple values of a dtype, simplest first: candidates for operands. */
static size_t simple_values(uint32_t dtype, uint64_t *v, size_t max)
{
    size_t n = 0;
    const char *texts[] = {"0", "1", "-1", "2", "-2", "3", "-3", "7", "-7", "0.5", "-0.5",
                           "10", "-10", "100", "-100"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0] && n < max; i++) {
        uint64_t bits;
        oracle_error e;
        if (oracle_value_parse(dtype, texts[i], &bits, &e) == ORACLE_OK)
            v[n++] = bits;
    }
    size_t ne;
    const uint64_t *edges = gen_edge_values(dtype, &ne);
    for (size_t i = 0; i < ne && n < max; i++)
        v[n++] = edges[i];
    return n;
}

/* Replaces the operands of a 1-element case with the simplest values of
 * the same operand classes that keep the finding's class. */
static int simplify_operands(const minimise_target *tg, divcase *c, verdict_example *ex)
{
    uint64_t cand[64];
    size_t n = simple_values(c->dtype, cand, 64);
    for (int side = 0; side < 2; side++) {
        uint8_t *data = side ? c->b : c->a;
        uint64_t orig = oracle_load(c->dtype, data, 0);
        uint32_t klass = oracle_operand_class(c->dtype, orig);
        for (size_t i = 0; i < n; i++) {
            if (cand[i] == orig || oracle_operand_class(c->dtype, cand[i]) != klass)
                continue;
            oracle_store(c->dtype, data, 0, cand[i]);
            verdict_example e2;
            int r = tg->probe(tg->ctx, c, &e2);
            if (r < 0)
                return -1;
            if (r && e2.operand_a == ex->operand_a && e2.operand_b == ex->operand_b) {
                *ex = e2;
                orig = cand[i];
                break;
            }
            oracle_store(c->dtype, data, 0, orig);
        }
        oracle_store(c->dtype, data, 0, orig);
    }
    return 0;
}

/* A copy of c with shapes (a, b) whose operands are c's first elements,
 * repeated, or with `fill` every element of A is fill[0] and of B fill[1]. */
static int reshaped(const divcase *c, const oracle_shape *a, const oracle_shape *b,
                    const uint64_t *fill, divcase *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->id, sizeof out->id, "%s", c->id);
    out->variant = c->variant;
    out->dtype = c->dtype;
    out->attrs = c->attrs;
    out->offsets = c->offsets;
    out->a_shape = *a;
    out->b_shape = *b;
    if (divcase_alloc(out, UINT64_C(1) << 24))
        return -1;
    uint64_t na = oracle_shape_count(a), nb = oracle_shape_count(b);
    uint64_t ca = oracle_shape_count(&c->a_shape), cb = oracle_shape_count(&c->b_shape);
    for (uint64_t i = 0; i < na && (ca || fill); i++)
        oracle_store(c->dtype, out->a, i, fill ? fill[0] : oracle_load(c->dtype, c->a, i % ca));
    for (uint64_t i = 0; i < nb && (cb || fill); i++)
        oracle_store(c->dtype, out->b, i, fill ? fill[1] : oracle_load(c->dtype, c->b, i % cb));
    return 0;
}

/* The shape shrinker's candidates: smaller pairs made from (a, b) by one
 * step, the steps a kernel's paths care about first: the leading output
 * axis dropped (from both operands, or one), one size mapped to 1, to
 * half, to half with its "+1" tail kept, or to one less everywhere it
 * occurs (a map of sizes keeps a broadcasting or window pair a pair: equal
 * dimensions stay equal, 1s stay 1), then one operand's dimension alone
 * to 1 or to one less. */
#define SHRINK_MAX_CANDIDATES 160

typedef struct shape_pair {
    oracle_shape a, b;
} shape_pair;

static void drop_leading(oracle_shape *s)
{
    memmove(s->dims, s->dims + 1, (s->rank - 1) * sizeof s->dims[0]);
    s->dims[--s->rank] = 0;
}

static void map_size(oracle_shape *s, int64_t from, int64_t to)
{
    for (uint32_t k = 0; k < s->rank; k++)
        if (s->dims[k] == from)
            s->dims[k] = to;
}

static size_t shrink_candidates(const oracle_shape *a, const oracle_shape *b, shape_pair *out)
{
    size_t n = 0;
    uint32_t rank = a->rank > b->rank ? a->rank : b->rank;
    if (rank) { /* the leading output axis, from both, then from each */
        shape_pair p = {*a, *b};
        if (p.a.rank == rank)
            drop_leading(&p.a);
        if (p.b.rank == rank)
            drop_leading(&p.b);
        out[n++] = p;
        for (int side = 0; side < 2; side++) {
            shape_pair q = {*a, *b};
            oracle_shape *t = side ? &q.b : &q.a;
            if (t->rank) {
                drop_leading(t);
                out[n++] = q;
            }
        }
    }
    /* Size maps, larger sizes first. */
    int64_t sizes[2 * DVG_MAX_RANK];
    size_t ns = 0;
    for (int side = 0; side < 2; side++) {
        const oracle_shape *s = side ? b : a;
        for (uint32_t k = 0; k < s->rank; k++) {
            size_t i = 0;
            while (i < ns && sizes[i] != s->dims[k])
                i++;
            if (i == ns && s->dims[k] > 1)
                sizes[ns++] = s->dims[k];
        }
    }
    for (size_t i = 0; i < ns; i++)
        for (size_t j = i + 1; j < ns; j++)
            if (sizes[j] > sizes[i]) {
                int64_t t = sizes[i];
                sizes[i] = sizes[j];
                sizes[j] = t;
            }
    for (size_t i = 0; i < ns; i++) {
        /* 1, half, half keeping a "+1" tail (65 -> 33 -> 17 -> 9), one less */
        int64_t d = sizes[i], to[4] = {1, d / 2, (d - 1) / 2 + 1, d - 1};
        for (int t = 0; t < 4; t++) {
            int dup = 0;
            for (int u = 0; u < t; u++)
                dup |= to[u] == to[t];
            if (dup || to[t] >= d)
                continue;
            shape_pair p = {*a, *b};
            map_size(&p.a, d, to[t]);
            map_size(&p.b, d, to[t]);
            out[n++] = p;
        }
    }
    /* One operand's dimension alone. */
    for (int side = 0; side < 2; side++) {
        const oracle_shape *s = side ? b : a;
        for (uint32_t k = 0; k < s->rank && n + 2 <= SHRINK_MAX_CANDIDATES; k++) {
            if (s->dims[k] <= 1)
                continue;
            shape_pair p = {*a, *b};
            oracle_shape *t = side ? &p.b : &p.a;
            t->dims[k] = 1;
            out[n++] = p;
            if (s->dims[k] > 2) {
                shape_pair q = {*a, *b};
                t = side ? &q.b : &q.a;
                t->dims[k] -= 1;
                out[n++] = q;
            }
        }
    }
    return n;
}

/* 1 when the pair is valid (or invalid) under c's attributes as c is. */
static int same_validity(const divcase *c, const oracle_shape *a, const oracle_shape *b,
                         int valid)
{
    oracle_rules r;
    oracle_plan p;
    int v = oracle_rules_resolve(c->variant, c->dtype, &c->attrs, &r, NULL) == ORACLE_OK &&
            oracle_plan_shapes(&r, a, b, &p, NULL) == ORACLE_OK;
    return v == valid;
}

static uint64_t pair_elements(const oracle_shape *a, const oracle_shape *b)
{
    return oracle_shape_count(a) + oracle_shape_count(b);
}

/* What a probe of the pair costs: its operands and its output (numpy's
 * broadcast output can hold far more than both operands). */
static uint64_t probe_cost(const divcase *c, const oracle_shape *a, const oracle_shape *b)
{
    oracle_rules r;
    oracle_plan p;
    uint64_t n = pair_elements(a, b);
    if (oracle_rules_resolve(c->variant, c->dtype, &c->attrs, &r, NULL) == ORACLE_OK &&
        oracle_plan_shapes(&r, a, b, &p, NULL) == ORACLE_OK)
        n += p.count;
    return n;
}

/* 1 when pair p is simpler than (a, b): fewer elements, or as many in
 * fewer dimensions. */
static int simpler(const shape_pair *p, const oracle_shape *a, const oracle_shape *b)
{
    uint64_t np = pair_elements(&p->a, &p->b), n = pair_elements(a, b);
    return np < n || (np == n && p->a.rank + p->b.rank < a->rank + b->rank);
}

/* Probes the shapes (a, b) of c (reshaped with `fill`): when the finding
 * still shows, the reshaped case replaces *c and its example *ex. Returns
 * 1 kept, 0 not, -1 on an error. */
static int try_shapes(const minimise_target *tg, divcase *c, const oracle_shape *a,
                      const oracle_shape *b, const uint64_t *fill, verdict_example *ex)
{
    divcase k;
    if (reshaped(c, a, b, fill, &k))
        return -1;
    verdict_example e2;
    int r = tg->probe(tg->ctx, &k, &e2);
    if (r <= 0) {
        divcase_free(&k);
        return r;
    }
    divcase_free(c);
    *c = k;
    *ex = e2;
    return 1;
}

/* Greedy: the first smaller candidate pair that still shows the class
 * replaces the case, until none does, MINIMISE_SHRINK_TRIES probes are
 * spent, or the probes have cost MINIMISE_SHRINK_ELEMENTS elements more
 * than twice the case's own (a case of millions of elements gets a few
 * probes, not 64). An element finding's operands are first made constant
 * (every element of A the example's a, of B its b), so a smaller shape
 * keeps the values that showed the finding wherever its path goes wrong. */
static int shrink_shapes(const minimise_target *tg, divcase *c, verdict_example *ex, int valid)
{
    shape_pair *cand = dvg_malloc(SHRINK_MAX_CANDIDATES * sizeof *cand);
    if (!cand)
        return -1;
    int rc = 0;
    uint64_t fill[2], *fillp = NULL;
    uint64_t spent = 0,
             allowance = MINIMISE_SHRINK_ELEMENTS + 2 * probe_cost(c, &c->a_shape, &c->b_shape);
    int tries = 0;
    if (ex->index != UINT64_MAX) {
        fill[0] = ex->a;
        fill[1] = ex->b;
        tries++;
        spent += probe_cost(c, &c->a_shape, &c->b_shape);
        oracle_shape a = c->a_shape, b = c->b_shape;
        int r = try_shapes(tg, c, &a, &b, fill, ex);
        if (r < 0) {
            rc = -1;
            goto done;
        }
        if (r)
            fillp = fill;
    }
    for (int improved = 1; improved && tries < MINIMISE_SHRINK_TRIES && spent < allowance;) {
        improved = 0;
        size_t n = shrink_candidates(&c->a_shape, &c->b_shape, cand);
        for (size_t i = 0; i < n && !improved && tries < MINIMISE_SHRINK_TRIES && spent < allowance;
             i++) {
            if (!simpler(&cand[i], &c->a_shape, &c->b_shape) ||
                !same_validity(c, &cand[i].a, &cand[i].b, valid))
                continue;
            tries++;
            spent += probe_cost(c, &cand[i].a, &cand[i].b);
            int r = try_shapes(tg, c, &cand[i].a, &cand[i].b, fillp, ex);
            if (r < 0) {
                rc = -1;
                goto done;
            }
            improved = r;
        }
    }
done:
    dvg_free(cand);
    return rc;
}

/*
 * Minimises the finding `ex` of case c into *out (a case the caller frees)
 * and updates *ex to the minimised example. *how says what was done.
 */
int minimise_case(const minimise_target *tg, const divcase *c, verdict_example *ex,
                  divcase *out, char *how, size_t len)
{
    if (divcase_copy(out, c))
        return -1;
    snprintf(how, len, "as found");
    oracle_rules r;
    oracle_plan p;
    oracle_error why;
    int valid = oracle_rules_resolve(c->variant, c->dtype, &c->attrs, &r, &why) == ORACLE_OK &&
                oracle_plan_shapes(&r, &c->a_shape, &c->b_shape, &p, &why) == ORACLE_OK;
    if (ex->cls == ORACLE_CLASS_HANG)
        return 0; /* every probe would cost a timeout */
    if (ex->index != UINT64_MAX && valid) {
        divcase one;
        if (p.count > 1 && narrow_subcase(c, &p, &c->attrs, ex->index, 1, &one) == 0) {
            verdict_example e2;
            int rr = tg->probe(tg->ctx, &one, &e2);
            if (rr < 0) {
                divcase_free(&one);
                return -1;
            }
            if (rr) {
                divcase_free(out);
                *out = one;
                *ex = e2;
                snprintf(how, len, "one element");
            } else {
                divcase_free(&one);
            }
        }
        if (oracle_shape_count(&out->a_shape) == 1 && oracle_shape_count(&out->b_shape) == 1) {
            if (simplify_operands(tg, out, ex))
                return -1;
            snprintf(how, len, "one element, simplest operands");
            return 0;
        }
    }
    if (ex->cls == ORACLE_CLASS_CRASH && tg->w && valid && p.count > 1) {
        narrow_result nr;
        memset(&nr, 0, sizeof nr);
        narrow_options no = {0};
        if (narrow_case(tg->w, c, tg->crashed, &no, &nr) == 0 && nr.found) {
            divcase_free(out);
            if (divcase_copy(out, &nr.reduced)) {
                narrow_result_free(&nr);
                return -1;
            }
            snprintf(how, len, "narrowed to the crashing element");
            narrow_result_free(&nr);
            return 0;
        }
        narrow_result_free(&nr);
    }
    if (shrink_shapes(tg, out, ex, valid))
        return -1;
    snprintf(how, len, "smallest shape that keeps the class");
    return 0;
}
