/* SPDX-License-Identifier: MIT */
/*
 * This file contains the job side of `divergence diff`: a job's workers,
 * one per plugin, each with its trial; the cases of one (variant, dtype)
 * pair - the conformance cases, the pairs of edge values whose result a
 * spec leaves free, the edge cross product, seeded random cases - through
 * every plugin that claims the pair; each output element classified as
 * agreeing, a portability hazard (every plugin conforms by the one judge
 * and their bits differ) or a departure (verdict_case's findings,
 * attributed to the plugin); what a plugin does where it does not compute,
 * run alone; all of it kept in the pair's result for the commit.
 */
#include "harness/run/diff/diff_internal.h"

#include <inttypes.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/cases/gen.h"
#include "harness/run/engine/crosscheck.h"
#include "harness/run/engine/trial.h"
#include "harness/run/engine/narrow.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"

typedef struct diff_job diff_job;

/* One of the pair's plugins, for its departure sink. */
typedef struct lane {
    diff_job *j;
    uint32_t k;               /* its index among the pair's plugins */
} lane;

struct diff_job {
    diff *d;
    worker *w[DIFF_MAX_PLUGINS];
    int own;                  /* 1: the workers are this job's */
    trial t[DIFF_MAX_PLUGINS];
    /* the pair being compared */
    pair_result *res;
    const diff_pair *pair;
    trial *run[DIFF_MAX_PLUGINS];     /* the pair's plugins' trials */
    const trial *a[DIFF_MAX_PLUGINS]; /* the same, read only */
    const char *names[DIFF_MAX_PLUGINS];
    lane lanes[DIFF_MAX_PLUGINS];
    int failed;               /* out of memory recording */
};

int diff_job_start(void *ctx, engine_job *j)
{
    diff *d = ctx;
    diff_job *dj = dvg_calloc(1, sizeof *dj);
    if (!dj) {
        fprintf(d->err, "divergence diff: out of memory\n");
        return -1;
    }
    j->state = dj;
    dj->d = d;
    dj->own = j->index > 0;
    for (uint32_t k = 0; k < d->n; k++) {
        if (!dj->own)
            dj->w[k] = d->w[k];
        else if (diff_start_worker(d, k, j->cpu, &dj->w[k]))
            return -1;
        trial_init(&dj->t[k], dj->w[k], &d->o->profile);
    }
    return 0;
}

void diff_job_free(void *ctx, engine_job *j)
{
    diff *d = ctx;
    diff_job *dj = j->state;
    if (!dj)
        return;
    for (uint32_t k = 0; k < d->n; k++) {
        trial_free(&dj->t[k]);
        if (dj->own)
            worker_free(dj->w[k]);
    }
    dvg_free(dj);
    j->state = NULL;
}

void diff_pair_discard(void *ctx, void *result)
{
    (void)ctx;
    pair_result *res = result;
    if (!res)
        return;
    recorder_free(&res->rec);
    dvg_free(res);
}

/* The departures of one plugin, from verdict_case: kept under the
 * plugin's own name, the first for the summary. */
static int departure_sink(void *ctx, const divcase *c, const verdict_example *ex)
{
    lane *l = ctx;
    pair_result *res = l->j->res;
    if (ex->accepted)
        return 0;
    if (!res->first_text[l->k][0]) {
        verdict_words w;
        verdict_example_words(c->dtype, ex, &w);
        res->first_cls[l->k] = ex->cls;
        if (ex->index != UINT64_MAX) {
            char a[VERDICT_TEXT_MAX], b[VERDICT_TEXT_MAX];
            verdict_bits_text(c->dtype, ex->a, a, sizeof a);
            verdict_bits_text(c->dtype, ex->b, b, sizeof b);
            snprintf(res->first_text[l->k], sizeof res->first_text[l->k],
                     "e.g. %s / %s: expected %s, got %s", a, b, w.expected, w.actual);
        } else {
            snprintf(res->first_text[l->k], sizeof res->first_text[l->k], "%s", ex->note);
        }
    }
    if (recorder_departure(&res->rec, l->j->names[l->k], NULL, c, ex, NULL) < 0) {
        l->j->failed = 1;
        return -1;
    }
    return 0;
}

/* A new hazard signature: its one-element case kept as the reproducer of
 * the plugin set's finding. 0, or -1 out of memory. */
static int new_sig(diff_job *dj, const divcase *c, const oracle_plan *p, const crosscheck_elem *x,
                   diff_sig *s)
{
    pair_result *res = dj->res;
    divcase one;
    int owned = !narrow_subcase(c, p, &c->attrs, x->index, 1, &one);
    if (owned)
        snprintf(one.id, sizeof one.id, "diff:%s:%.60s[%" PRIu64 "]", hazard_name(s->hazard),
                 c->id, x->index);
    char given[CROSSCHECK_GIVEN_MAX];
    crosscheck_given_text(dj->a, dj->names, res->na, x->index, given, sizeof given);
    verdict_example ex;
    crosscheck_example(x, &ex);
    if (owned)
        ex.index = 0;
    s->handle = recorder_hazard(&res->rec, dj->pair->name, s->hazard, owned ? &one : c, &ex, given,
                                "conformant implementations disagree here (divergence diff)");
    if (owned)
        divcase_free(&one);
    if (s->handle < 0)
        dj->failed = 1;
    return s->handle < 0 ? -1 : 0;
}

/* The case being compared, for on_hazard. */
typedef struct diff_case {
    diff_job *dj;
    const divcase *c;
    oracle_plan plan;
} diff_case;

/* A hazard element (crosscheck_outputs' sink): counted under its
 * signature (class, operand classes); the first of a signature kept as its
 * example. */
static int on_hazard(void *ctx, const crosscheck_elem *x)
{
    diff_case *dc = ctx;
    pair_result *res = dc->dj->res;
    uint32_t s = 0;
    while (s < res->n_sigs && !(res->sigs[s].hazard == x->hazard &&
                                res->sigs[s].operand_a == x->operand_a &&
                                res->sigs[s].operand_b == x->operand_b))
        s++;
    if (s < res->n_sigs) {
        res->sigs[s].elements++;
        return 0;
    }
    if (s == DIFF_MAX_SIGS)
        return 0;
    diff_sig *g = &res->sigs[res->n_sigs++];
    memset(g, 0, sizeof *g);
    g->hazard = x->hazard;
    g->operand_a = x->operand_a;
    g->operand_b = x->operand_b;
    g->elements = 1;
    g->a = x->a;
    g->b = x->b;
    verdict_elem_text(dc->c->dtype, x->expected, g->expected, sizeof g->expected);
    for (uint32_t k = 0; k < res->na; k++)
        crosscheck_outcome_text(dc->dj->a[k], x->index, g->given[k], sizeof g->given[k]);
    if (res->hazard_first[x->hazard] < 0)
        res->hazard_first[x->hazard] = (int)s;
    return new_sig(dc->dj, dc->c, &dc->plan, x, g);
}

/* Compares the outputs of the case just run among the plugins that
 * computed it. 0, or -1 (memory). */
static int compare_outputs(diff_job *dj, const divcase *c)
{
    pair_result *res = dj->res;
    uint32_t first = UINT32_MAX;
    for (uint32_t k = 0; k < res->na && first == UINT32_MAX; k++)
        if (crosscheck_computed(dj->a[k]))
            first = k;
    if (first == UINT32_MAX)
        return 0;
    diff_case dc = {dj, c, dj->a[first]->plan};
    crosscheck_counts n;
    memset(&n, 0, sizeof n);
    int rc = crosscheck_outputs(dj->a, res->na, c, &n, on_hazard, &dc);
    res->elements += n.elements;
    res->agree += n.agree;
    for (int h = 0; h < HAZARD_COUNT; h++)
        res->hazard_elems[h] += n.hazards[h];
    return rc ? -1 : 0;
}

/* Runs the one-element cases one[0..n) (classes hz) on every plugin of
 * the pair, and keeps what each does where one does not compute. 0 or -1. */
static int outcome_alone(diff_job *dj, const divcase *c, divcase *one, const uint32_t *hz,
                         uint32_t n)
{
    pair_result *res = dj->res;
    for (uint32_t j = 0; j < n; j++) {
        int failed = 0;
        for (uint32_t k = 0; k < res->na; k++) {
            trial *t = dj->run[k];
            if (trial_run(t, &one[j], NULL, NULL, NULL) < 0) {
                fprintf(dj->d->err, "divergence diff: %s: %s\n", dj->names[k], t->error);
                return -1;
            }
            failed |= !crosscheck_computed(t);
        }
        if (!failed)
            continue;
        diff_sig *g = &res->outcome[hz[j]];
        memset(g, 0, sizeof *g);
        g->hazard = hz[j];
        g->a = oracle_load(c->dtype, one[j].a, 0);
        g->b = oracle_load(c->dtype, one[j].b, 0);
        for (uint32_t k = 0; k < res->na; k++)
            crosscheck_outcome_text(dj->a[k], 0, g->given[k], sizeof g->given[k]);
        res->outcome_noted[hz[j]] = 1;
    }
    return 0;
}

/* A plugin did not compute case c: for each class of element whose result
 * a spec leaves free (at most a few tries per class and pair), its first
 * element is run alone on every plugin, and when some plugin still does
 * not compute it, what each does is kept for the table ("x/0 for i32:
 * reference 0, libtorch failure (error status)"). Departures found here
 * are not recorded again. 0, or -1 on an error. */
static int diff_outcome(diff_job *dj, const divcase *c)
{
    pair_result *res = dj->res;
    const trial *t0 = dj->a[0];
    divcase one[HAZARD_COUNT];
    uint32_t hz[HAZARD_COUNT], n = 0;
    int seen[HAZARD_COUNT] = {0};
    for (uint64_t i = 0; i < t0->plan.count && n < HAZARD_COUNT; i++) {
        uint64_t period = t0->out.period;
        const oracle_elem *e = &t0->expected[period ? i % period : i];
        if (!hazard_possible(e))
            continue;
        uint32_t h = hazard_of(&t0->rules, e, 0);
        if (seen[h] || res->outcome_noted[h] || res->outcome_tries[h] >= 3)
            continue;
        seen[h] = 1;
        if (narrow_subcase(c, &t0->plan, &c->attrs, i, 1, &one[n])) {
            for (uint32_t j = 0; j < n; j++)
                divcase_free(&one[j]);
            return -1;
        }
        res->outcome_tries[h]++;
        hz[n++] = h;
    }
    int rc = outcome_alone(dj, c, one, hz, n);
    for (uint32_t j = 0; j < n; j++)
        divcase_free(&one[j]);
    return rc;
}

/* Runs case c through every plugin of the pair and compares. 0, or -1 on
 * an error. */
static int run_case(diff_job *dj, const divcase *c)
{
    pair_result *res = dj->res;
    for (uint32_t k = 0; k < res->na; k++) {
        trial *t = dj->run[k];
        int v = trial_run(t, c, NULL, departure_sink, &dj->lanes[k]);
        if (v < 0) {
            fprintf(dj->d->err, "divergence diff: %s: %s\n", dj->names[k],
                    dj->failed ? "out of memory recording a finding" : t->error);
            return -1;
        }
        res->departed_cases[k] += v == 0;
    }
    res->cases_run++;
    if (compare_outputs(dj, c)) {
        fprintf(dj->d->err, "divergence diff: out of memory recording a disagreement\n");
        return -1;
    }
    if (!dj->a[0]->valid)
        return 0;
    for (uint32_t k = 0; k < res->na; k++)
        if (!crosscheck_computed(dj->a[k]))
            return diff_outcome(dj, c);
    return 0;
}

/* The pairs of edge values whose result a spec leaves free (or that a
 * declared deviation may change): the edge cross product kept where the
 * oracle's answer is not one exact value, as one 1-D case. 0 with
 * c->a_shape.dims[0] == 0 when there is none; -1 out of memory. */
static int unspecified_case(uint32_t variant, uint32_t dtype, divcase *c)
{
    if (gen_edge_case(variant, dtype, NULL, "diff:unspecified", c))
        return -1;
    oracle_rules r;
    oracle_error why;
    if (oracle_rules_resolve(variant, dtype, &c->attrs, &r, &why)) {
        c->a_shape.dims[0] = c->b_shape.dims[0] = 0;
        return 0;
    }
    uint64_t n = (uint64_t)c->a_shape.dims[0], m = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t a = oracle_load(dtype, c->a, i), b = oracle_load(dtype, c->b, i);
        oracle_elem e;
        oracle_expect(&r, a, b, &e);
        if (!hazard_possible(&e))
            continue;
        oracle_store(dtype, c->a, m, a); /* m <= i: compacted in place */
        oracle_store(dtype, c->b, m, b);
        m++;
    }
    c->a_shape.dims[0] = c->b_shape.dims[0] = (int64_t)m;
    c->a_bytes = c->b_bytes = oracle_nbytes(dtype, m);
    snprintf(c->source, sizeof c->source, "%s", "edge pairs with an unspecified result");
    return 0;
}

/* A generated case through run_case (freed after). 0 or -1. */
static int run_built(diff_job *dj, int built, divcase *c)
{
    if (built) {
        fprintf(dj->d->err, "divergence diff: out of memory\n");
        return -1;
    }
    int rc = run_case(dj, c);
    divcase_free(c);
    return rc;
}

/* The pair's cases, in order. 0 or -1. */
static int run_pair(diff_job *dj)
{
    const diff_options *o = dj->d->o;
    const diff_pair *pr = dj->pair;
    const casefile_set *cases = dj->d->cases;
    const oracle_variant *v = oracle_variant_get(pr->variant);
    int rc = 0;
    /* 1. the conformance cases of this pair */
    for (size_t i = 0; cases && i < cases->count && rc == 0; i++) {
        const divcase *c = &cases->cases[i];
        if (c->variant == pr->variant && c->dtype == pr->dtype)
            rc = run_case(dj, c);
    }
    /* 2. the unspecified classes on purpose, then the edge cross product */
    divcase c;
    if (rc == 0) {
        int built = unspecified_case(pr->variant, pr->dtype, &c);
        if (!built && c.a_shape.dims[0] == 0)
            divcase_free(&c); /* none in this pair */
        else
            rc = run_built(dj, built, &c);
    }
    if (rc == 0)
        rc = run_built(dj, gen_edge_case(pr->variant, pr->dtype, NULL, "edges", &c), &c);
    /* 3. seeded random cases */
    gen_rng g;
    gen_seed(&g, o->seed, (uint64_t)pr->variant * 64 + pr->dtype);
    for (uint32_t i = 0; i < o->random_cases && rc == 0; i++) {
        char id[64];
        snprintf(id, sizeof id, "gen:%" PRIu64 ":%s:%s:%u", o->seed, v->name,
                 oracle_dtype_tag(pr->dtype), i);
        rc = run_built(dj, gen_case(&g, pr->variant, pr->dtype, NULL, 1, 8, o->max_elements, id,
                                    &c), &c);
    }
    return rc;
}

int diff_pair_run(void *ctx, engine_job *j, uint64_t u, void **result)
{
    diff *d = ctx;
    diff_job *dj = j->state;
    pair_result *res = dvg_calloc(1, sizeof *res);
    if (!res) {
        fprintf(d->err, "divergence diff: out of memory\n");
        return -1;
    }
    *result = res;
    recorder_init(&res->rec, STORE_DEFAULT_REPRODUCERS, UINT64_MAX);
    dj->res = res;
    dj->pair = &d->pairs[u];
    dj->failed = 0;
    for (int h = 0; h < HAZARD_COUNT; h++)
        res->hazard_first[h] = -1;
    for (uint32_t k = 0; k < d->n; k++)
        if (dj->pair->mask & (1u << k)) {
            uint32_t i = res->na++;
            res->plugin[i] = k;
            dj->run[i] = &dj->t[k];
            dj->a[i] = &dj->t[k];
            dj->names[i] = d->info[k]->name;
            dj->lanes[i] = (lane){dj, i};
        }
    return run_pair(dj);
}
