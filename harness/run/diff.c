/* SPDX-License-Identifier: MIT */
/*
 * This file contains the differential run across implementations
 * (`divergence diff`, harness/run/diff.h): a worker and a trial per plugin,
 * the (variant, dtype) pairs every plugin claims, the same cases through
 * each (the conformance cases, the edge cross product, the pairs of edge
 * values whose result a spec leaves free, seeded random cases), each
 * element classified as agreeing, a portability hazard (every plugin
 * conforms by the one judge, verdict_element, and their bits differ) or a
 * departure (verdict_case's findings, attributed to the plugin); the table
 * of hazard class x plugin per pair, a reproducer per hazard signature, and
 * the run in the store (kind "diff").
 */
#include "harness/run/diff.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/base/alloc.h"
#include "harness/cases/casefile.h"
#include "harness/cases/gen.h"
#include "harness/run/crosscheck.h"
#include "harness/run/session.h"
#include "harness/run/trial.h"
#include "harness/store/store.h"
#include "harness/worker/narrow.h"
#include "harness/worker/worker.h"
#include "oracle/dtype.h"
#include "oracle/fastpath.h"
#include "oracle/variant.h"

/* Hazard signatures (class, operand classes) kept per pair with their
 * example; more are counted under their class only. */
#define DIFF_MAX_SIGS 64

void diff_options_default(diff_options *o)
{
    memset(o, 0, sizeof *o);
    char err[64];
    verdict_profile_parse("exact", &o->profile, err, sizeof err);
    o->seed = 1;
    o->random_cases = 100;
    o->max_elements = 64;
    o->timeout_ms = 2000;
}

/* One plugin in its worker. */
typedef struct diff_plugin {
    const char *path;
    worker *w;
    const worker_info *info;
    trial t;
    struct diff *d;
    /* the pair being compared */
    uint64_t departed_cases;
    uint32_t first_cls;       /* class of its first departure */
    char first_text[VERDICT_NOTE_MAX + 2 * VERDICT_TEXT_MAX];
} diff_plugin;

/* One hazard signature of a pair: its first element as the example. */
typedef struct diff_sig {
    uint32_t hazard, operand_a, operand_b;
    uint64_t elements;
    uint64_t a, b;
    char expected[VERDICT_TEXT_MAX];
    char given[DIFF_MAX_PLUGINS][VERDICT_TEXT_MAX];
    int64_t sig_id;
} diff_sig;

typedef struct diff {
    const diff_options *o;
    FILE *out, *err;
    diff_plugin p[DIFF_MAX_PLUGINS];
    uint32_t n;
    char set_name[DIFF_MAX_PLUGINS * (WORKER_NAME_MAX + 1)];
    /* the plugins compared on the pair: all of them, or with --partial
     * those that claim it; pair_name their names joined by '|' */
    diff_plugin *a[DIFF_MAX_PLUGINS];
    uint32_t na;
    char pair_name[DIFF_MAX_PLUGINS * (WORKER_NAME_MAX + 1)];
    run_session session;
    store *db;
    int64_t run_id;
    casefile_set *cases;
    uint32_t variant, dtype;
    /* the pair's counts */
    uint64_t cases_run, elements, agree, hazard_elems[HAZARD_COUNT];
    int hazard_first[HAZARD_COUNT]; /* index into sigs, -1: none */
    diff_sig sigs[DIFF_MAX_SIGS];
    uint32_t n_sigs;
    /* per class, an element of it on which a plugin does not compute at
     * all, run alone (diff_outcome): what each plugin does there */
    diff_sig outcome[HAZARD_COUNT];
    int outcome_noted[HAZARD_COUNT];
    uint32_t outcome_tries[HAZARD_COUNT];
    uint64_t new_signatures;
    int store_failed;
} diff;

static int wanted(const uint32_t *list, uint32_t n, uint32_t v)
{
    if (!n)
        return 1;
    for (uint32_t i = 0; i < n; i++)
        if (list[i] == v)
            return 1;
    return 0;
}

/* 1 when plugin k claims (variant, dtype). */
static int claims(const diff_plugin *pl, uint32_t variant, uint32_t dtype)
{
    for (uint32_t i = 0; i < pl->info->n_claims; i++)
        if (pl->info->claims[i].variant == variant && pl->info->claims[i].dtype == dtype)
            return 1;
    return 0;
}

/* The departures of one plugin, from verdict_case: recorded under the
 * plugin's own name, the first kept for the summary. */
static int departure_sink(void *ctx, const divcase *c, const verdict_example *ex)
{
    diff_plugin *pl = ctx;
    diff *d = pl->d;
    if (ex->accepted)
        return 0;
    verdict_words w;
    verdict_example_words(c->dtype, ex, &w);
    if (!pl->first_text[0]) {
        pl->first_cls = ex->cls;
        if (ex->index != UINT64_MAX) {
            char a[VERDICT_TEXT_MAX], b[VERDICT_TEXT_MAX];
            verdict_bits_text(c->dtype, ex->a, a, sizeof a);
            verdict_bits_text(c->dtype, ex->b, b, sizeof b);
            snprintf(pl->first_text, sizeof pl->first_text, "e.g. %s / %s: expected %s, got %s",
                     a, b, w.expected, w.actual);
        } else {
            snprintf(pl->first_text, sizeof pl->first_text, "%s", ex->note);
        }
    }
    store_finding f = {
        .implementation = pl->info->name,
        .cls = ex->cls,
        .operand_class = w.operand,
        .c = c,
        .element = ex->index == UINT64_MAX ? -1 : (int64_t)ex->index,
        .expected = ex->index == UINT64_MAX ? NULL : w.expected,
        .actual = ex->index == UINT64_MAX ? NULL : w.actual,
        .ulps = ex->cls == ORACLE_CLASS_WRONG_VALUE ? ex->ulps : UINT64_MAX,
        .note = ex->note[0] ? ex->note : NULL,
    };
    int is_new = 0;
    if (store_record_finding(d->db, d->run_id, &f, NULL, &is_new)) {
        d->store_failed = 1;
        return -1;
    }
    d->new_signatures += (uint64_t)is_new;
    return 0;
}

/* A new hazard signature: its example kept, its one-element case stored
 * as the reproducer of the plugin set's finding. 0, or -1 (store). */
static int new_sig(diff *d, const divcase *c, const oracle_plan *p, uint64_t i, diff_sig *s)
{
    divcase one;
    int owned = !narrow_subcase(c, p, &c->attrs, i, 1, &one);
    if (owned)
        snprintf(one.id, sizeof one.id, "diff:%s:%.60s[%" PRIu64 "]", hazard_name(s->hazard),
                 c->id, i);
    char operand[64], given[CROSSCHECK_GIVEN_MAX];
    snprintf(operand, sizeof operand, "%s/%s", oracle_operand_name(s->operand_a),
             oracle_operand_name(s->operand_b));
    const trial *t[DIFF_MAX_PLUGINS];
    const char *names[DIFF_MAX_PLUGINS];
    for (uint32_t k = 0; k < d->na; k++) {
        t[k] = &d->a[k]->t;
        names[k] = d->a[k]->info->name;
    }
    crosscheck_given_text(t, names, d->na, i, given, sizeof given);
    store_finding f = {
        .implementation = d->pair_name,
        .class_name = hazard_name(s->hazard),
        .operand_class = operand,
        .c = owned ? &one : c,
        .element = owned ? 0 : (int64_t)i,
        .expected = s->expected,
        .actual = given,
        .ulps = UINT64_MAX,
        .note = "conformant implementations disagree here (divergence diff)",
    };
    int is_new = 0, rc = store_record_finding(d->db, d->run_id, &f, &s->sig_id, &is_new);
    d->new_signatures += (uint64_t)is_new;
    if (owned)
        divcase_free(&one);
    if (rc)
        d->store_failed = 1;
    return rc;
}

/* The case being compared, for on_hazard. */
typedef struct diff_case {
    diff *d;
    const divcase *c;
    oracle_plan plan;
} diff_case;

/* A hazard element (crosscheck_outputs' sink): counted under its
 * signature (class, operand classes); the first of a signature kept as its
 * example and stored. */
static int on_hazard(void *ctx, const crosscheck_elem *x)
{
    diff_case *dc = ctx;
    diff *d = dc->d;
    uint32_t s = 0;
    while (s < d->n_sigs && !(d->sigs[s].hazard == x->hazard &&
                              d->sigs[s].operand_a == x->operand_a &&
                              d->sigs[s].operand_b == x->operand_b))
        s++;
    if (s < d->n_sigs) {
        d->sigs[s].elements++;
        return 0;
    }
    if (s == DIFF_MAX_SIGS)
        return 0;
    diff_sig *g = &d->sigs[d->n_sigs++];
    memset(g, 0, sizeof *g);
    g->hazard = x->hazard;
    g->operand_a = x->operand_a;
    g->operand_b = x->operand_b;
    g->elements = 1;
    g->a = x->a;
    g->b = x->b;
    verdict_elem_text(dc->c->dtype, x->expected, g->expected, sizeof g->expected);
    for (uint32_t k = 0; k < d->na; k++)
        crosscheck_outcome_text(&d->a[k]->t, x->index, g->given[k], sizeof g->given[k]);
    if (d->hazard_first[x->hazard] < 0)
        d->hazard_first[x->hazard] = (int)s;
    return new_sig(d, dc->c, &dc->plan, x->index, g);
}

/* Compares the outputs of the case just run among the plugins that
 * computed it. 0, or -1 (store). */
static int compare_outputs(diff *d, const divcase *c)
{
    const trial *t[DIFF_MAX_PLUGINS];
    uint32_t first = UINT32_MAX;
    for (uint32_t k = 0; k < d->na; k++) {
        t[k] = &d->a[k]->t;
        if (first == UINT32_MAX && crosscheck_computed(t[k]))
            first = k;
    }
    if (first == UINT32_MAX)
        return 0;
    diff_case dc = {d, c, t[first]->plan};
    crosscheck_counts n;
    memset(&n, 0, sizeof n);
    int rc = crosscheck_outputs(t, d->na, c, &n, on_hazard, &dc);
    d->elements += n.elements;
    d->agree += n.agree;
    for (int h = 0; h < HAZARD_COUNT; h++)
        d->hazard_elems[h] += n.hazards[h];
    return rc ? -1 : 0;
}

/* A plugin did not compute case c: for each class of element whose result
 * a spec leaves free (at most a few tries per class and pair), its first
 * element is run alone on every plugin, and when some plugin still does
 * not compute it, what each does is kept for the table ("x/0 for i32:
 * reference 0, libtorch failure (error status)"). Departures found here
 * are not recorded again. 0, or -1 on an error. */
static int diff_outcome(diff *d, const divcase *c)
{
    const trial *t0 = &d->a[0]->t;
    divcase one[HAZARD_COUNT];
    uint32_t hz[HAZARD_COUNT], n = 0;
    int seen[HAZARD_COUNT] = {0};
    for (uint64_t i = 0; i < t0->plan.count && n < HAZARD_COUNT; i++) {
        uint64_t period = t0->out.period;
        const oracle_elem *e = &t0->expected[period ? i % period : i];
        if (!hazard_possible(e))
            continue;
        uint32_t h = hazard_of(&t0->rules, e, 0);
        if (seen[h] || d->outcome_noted[h] || d->outcome_tries[h] >= 3)
            continue;
        seen[h] = 1;
        if (narrow_subcase(c, &t0->plan, &c->attrs, i, 1, &one[n]))
            return -1;
        d->outcome_tries[h]++;
        hz[n++] = h;
    }
    int rc = 0;
    for (uint32_t j = 0; j < n; j++) {
        int failed = 0;
        for (uint32_t k = 0; k < d->na && rc == 0; k++) {
            if (trial_run(&d->a[k]->t, &one[j], NULL, NULL, NULL) < 0) {
                fprintf(d->err, "divergence diff: %s: %s\n", d->a[k]->info->name,
                        d->a[k]->t.error);
                rc = -1;
                break;
            }
            failed |= !crosscheck_computed(&d->a[k]->t);
        }
        if (rc == 0 && failed) {
            diff_sig *g = &d->outcome[hz[j]];
            memset(g, 0, sizeof *g);
            g->hazard = hz[j];
            g->a = oracle_load(c->dtype, one[j].a, 0);
            g->b = oracle_load(c->dtype, one[j].b, 0);
            for (uint32_t k = 0; k < d->na; k++)
                crosscheck_outcome_text(&d->a[k]->t, 0, g->given[k], sizeof g->given[k]);
            d->outcome_noted[hz[j]] = 1;
        }
        divcase_free(&one[j]);
    }
    return rc;
}

/* Runs case c through every plugin and compares. 0, or -1 on an error. */
static int run_case(diff *d, const divcase *c)
{
    for (uint32_t k = 0; k < d->na; k++) {
        diff_plugin *pl = d->a[k];
        int v = trial_run(&pl->t, c, NULL, departure_sink, pl);
        if (v < 0) {
            if (!d->store_failed)
                fprintf(d->err, "divergence diff: %s: %s\n", pl->info->name, pl->t.error);
            return -1;
        }
        pl->departed_cases += v == 0;
    }
    d->cases_run++;
    if (compare_outputs(d, c))
        return -1;
    if (!d->a[0]->t.valid)
        return 0;
    for (uint32_t k = 0; k < d->na; k++)
        if (!crosscheck_computed(&d->a[k]->t))
            return diff_outcome(d, c);
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

/* Prints the pair's table and reproducers. */
static void print_pair(diff *d)
{
    const oracle_variant *v = oracle_variant_get(d->variant);
    const char *tag = oracle_dtype_tag(d->dtype);
    uint64_t hazards = 0;
    for (int h = 0; h < HAZARD_COUNT; h++)
        hazards += d->hazard_elems[h];
    uint64_t departing = 0;
    for (uint32_t k = 0; k < d->na; k++)
        departing += d->a[k]->departed_cases != 0;
    fprintf(d->out, "  %-18s %-5s %6" PRIu64 " cases %8" PRIu64 " elements: %" PRIu64
                    " agree, %" PRIu64 " hazards, %" PRIu64 " departing plugins\n",
            v->name, tag, d->cases_run, d->elements, d->agree, hazards, departing);
    if (d->na < d->n)
        fprintf(d->out, "    compared: %s (the plugins that claim it)\n", d->pair_name);
    for (int h = 0; h < HAZARD_COUNT; h++) {
        if (d->hazard_first[h] < 0)
            continue;
        const diff_sig *s = &d->sigs[d->hazard_first[h]];
        char a[VERDICT_TEXT_MAX], b[VERDICT_TEXT_MAX];
        verdict_bits_text(d->dtype, s->a, a, sizeof a);
        verdict_bits_text(d->dtype, s->b, b, sizeof b);
        fprintf(d->out, "    hazard %-24s %8" PRIu64 " elements  e.g. %s / %s (oracle: %s):\n",
                hazard_name((uint32_t)h), d->hazard_elems[h], a, b, s->expected);
        for (uint32_t k = 0; k < d->na; k++)
            fprintf(d->out, "      %-32s %s\n", d->a[k]->info->name, s->given[k]);
    }
    for (int h = 0; h < HAZARD_COUNT; h++) {
        if (!d->outcome_noted[h])
            continue;
        const diff_sig *s = &d->outcome[h];
        char a[VERDICT_TEXT_MAX], b[VERDICT_TEXT_MAX];
        verdict_bits_text(d->dtype, s->a, a, sizeof a);
        verdict_bits_text(d->dtype, s->b, b, sizeof b);
        fprintf(d->out, "    where %s, a plugin does not compute  e.g. %s / %s alone:\n",
                hazard_name((uint32_t)h), a, b);
        for (uint32_t k = 0; k < d->na; k++)
            fprintf(d->out, "      %-32s %s\n", d->a[k]->info->name, s->given[k]);
    }
    for (uint32_t s = 0; s < d->n_sigs; s++) {
        const diff_sig *g = &d->sigs[s];
        char a[VERDICT_TEXT_MAX], b[VERDICT_TEXT_MAX];
        verdict_bits_text(d->dtype, g->a, a, sizeof a);
        verdict_bits_text(d->dtype, g->b, b, sizeof b);
        fprintf(d->out, "    reproducer %s %s/%s: %s / %s (%" PRIu64 " elements)  ["
                        STORE_REF_SIGNATURE "%" PRId64 "]\n",
                hazard_name(g->hazard), oracle_operand_name(g->operand_a),
                oracle_operand_name(g->operand_b), a, b, g->elements, g->sig_id);
    }
    for (uint32_t k = 0; k < d->na; k++)
        if (d->a[k]->departed_cases)
            fprintf(d->out, "    DEPARTS %s: %" PRIu64 " cases, first %s: %s\n",
                    d->a[k]->info->name, d->a[k]->departed_cases,
                    oracle_class_name(d->a[k]->first_cls), d->a[k]->first_text);
}

/* Compares one pair. Returns 1 when a plugin departs, 0 when none does,
 * -1 on an error. */
static int diff_pair(diff *d)
{
    const diff_options *o = d->o;
    const oracle_variant *v = oracle_variant_get(d->variant);
    d->cases_run = d->elements = d->agree = 0;
    memset(d->hazard_elems, 0, sizeof d->hazard_elems);
    for (int h = 0; h < HAZARD_COUNT; h++)
        d->hazard_first[h] = -1;
    d->n_sigs = 0;
    memset(d->outcome_noted, 0, sizeof d->outcome_noted);
    memset(d->outcome_tries, 0, sizeof d->outcome_tries);
    for (uint32_t k = 0; k < d->na; k++) {
        d->a[k]->departed_cases = 0;
        d->a[k]->first_text[0] = 0;
    }
    if (store_begin(d->db))
        goto store_error;
    int rc = 0;
    /* 1. the conformance cases of this pair */
    for (size_t i = 0; d->cases && i < d->cases->count && rc == 0; i++) {
        const divcase *c = &d->cases->cases[i];
        if (c->variant == d->variant && c->dtype == d->dtype)
            rc = run_case(d, c);
    }
    /* 2. the unspecified classes on purpose, then the edge cross product */
    divcase c;
    if (rc == 0) {
        if (unspecified_case(d->variant, d->dtype, &c))
            rc = -1;
        else {
            if (c.a_shape.dims[0] > 0)
                rc = run_case(d, &c);
            divcase_free(&c);
        }
    }
    if (rc == 0) {
        if (gen_edge_case(d->variant, d->dtype, NULL, "edges", &c))
            rc = -1;
        else {
            rc = run_case(d, &c);
            divcase_free(&c);
        }
    }
    /* 3. seeded random cases */
    gen_rng g;
    gen_seed(&g, o->seed, (uint64_t)d->variant * 64 + d->dtype);
    for (uint32_t i = 0; i < o->random_cases && rc == 0; i++) {
        char id[64];
        snprintf(id, sizeof id, "gen:%" PRIu64 ":%s:%s:%u", o->seed, v->name,
                 oracle_dtype_tag(d->dtype), i);
        if (gen_case(&g, d->variant, d->dtype, NULL, 1, 8, o->max_elements, id, &c)) {
            rc = -1;
            break;
        }
        rc = run_case(d, &c);
        divcase_free(&c);
    }
    if (rc) {
        if (d->store_failed)
            goto store_error;
        store_rollback(d->db);
        return -1;
    }
    /* The set tested this pair: its hazards that this run did not see are
     * fixed. */
    if (store_mark_fixed(d->db, d->run_id, d->pair_name, d->variant, d->dtype, NULL) ||
        store_commit(d->db))
        goto store_error;
    print_pair(d);
    for (uint32_t k = 0; k < d->na; k++)
        if (d->a[k]->departed_cases)
            return 1;
    return 0;
store_error:
    fprintf(d->err, "divergence diff: %s\n", store_errmsg(d->db));
    store_rollback(d->db);
    return -1;
}

/* Starts plugin k's worker. 0, or -1 with a message. */
static int start_plugin(diff *d, uint32_t k)
{
    const diff_options *o = d->o;
    diff_plugin *pl = &d->p[k];
    worker_options wo;
    worker_options_limited(&wo);
    wo.timeout_ms = o->timeout_ms ? o->timeout_ms : 2000;
    trial_sandbox_options(&wo, o->sandbox, o->env, o->n_env);
    pl->path = o->plugins[k];
    pl->d = d;
    if (worker_new(pl->path, &wo, &pl->w)) {
        fprintf(d->err, "divergence diff: cannot create a worker for %s\n", pl->path);
        return -1;
    }
    trial_init(&pl->t, pl->w, &o->profile);
    int started = worker_start(pl->w, &pl->t.wr);
    if (started != 0) {
        char msg[512];
        fprintf(d->err, "divergence diff: cannot load plugin %s: %s\n", pl->path,
                started < 0 ? worker_errmsg(pl->w)
                            : worker_result_format(&pl->t.wr, msg, sizeof msg));
        return -1;
    }
    pl->info = worker_get_info(pl->w);
    return 0;
}

int diff_run(const diff_options *o, FILE *out, FILE *err)
{
    diff *d = dvg_calloc(1, sizeof *d);
    if (!d) {
        fprintf(err, "divergence diff: out of memory\n");
        return 2;
    }
    d->o = o;
    d->out = out;
    d->err = err;
    int status = 2;
    uint32_t (*shared)[3] = NULL;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    oracle_fastpath_selfcheck();
    if (o->n_plugins < 2 || o->n_plugins > DIFF_MAX_PLUGINS) {
        fprintf(err, "divergence diff: between 2 and %d plugins\n", DIFF_MAX_PLUGINS);
        goto done;
    }
    for (d->n = 0; d->n < o->n_plugins; d->n++)
        if (start_plugin(d, d->n)) {
            d->n++;
            goto done;
        }
    size_t at = 0;
    for (uint32_t k = 0; k < d->n; k++)
        at += (size_t)snprintf(d->set_name + at, sizeof d->set_name - at, "%s%s", k ? "|" : "",
                               d->p[k].info->name);
    /* the pairs every plugin claims (--partial: at least two), in the
     * order the plugins claim them; shared[i][2]: the mask of claimers */
    shared = dvg_calloc(DIFF_MAX_PLUGINS * WORKER_MAX_CLAIMS, sizeof *shared);
    uint32_t n_shared = 0;
    if (!shared) {
        fprintf(err, "divergence diff: out of memory\n");
        goto done;
    }
    for (uint32_t f = 0; f < d->n; f++)
        for (uint32_t i = 0; i < d->p[f].info->n_claims; i++) {
            uint32_t var = d->p[f].info->claims[i].variant, dt = d->p[f].info->claims[i].dtype;
            if (!wanted(o->variants, o->n_variants, var) || !wanted(o->dtypes, o->n_dtypes, dt) ||
                !oracle_variant_has_dtype(oracle_variant_get(var), dt))
                continue;
            uint32_t mask = 0, count = 0, j = 0;
            for (uint32_t k = 0; k < d->n; k++)
                if (claims(&d->p[k], var, dt)) {
                    mask |= 1u << k;
                    count++;
                }
            if (mask & ((1u << f) - 1))
                continue; /* listed with an earlier plugin's claims */
            while (j < n_shared && !(shared[j][0] == var && shared[j][1] == dt))
                j++;
            if (j < n_shared || count < (o->partial ? 2 : d->n))
                continue;
            shared[n_shared][0] = var;
            shared[n_shared][1] = dt;
            shared[n_shared][2] = mask;
            n_shared++;
        }
    if (!n_shared) {
        fprintf(err, "divergence diff: the plugins claim no (variant, dtype) pair in common%s\n",
                o->n_variants || o->n_dtypes ? " that the filters select" : "");
        goto done;
    }
    casefile_error ce;
    if (casefile_load_conformance(o->cases_dir, &d->cases, &ce)) {
        fprintf(err, "divergence diff: %s\n", ce.text);
        goto done;
    }
    if (session_open(&d->session, "diff", o->db_path, o->plugins[0], d->set_name,
                     d->p[0].info->version, err))
        goto done;
    d->db = d->session.db;
    char sandbox[160];
    worker_describe_layers(d->p[0].info->layers, sandbox, sizeof sandbox);
    store_run_info ri = {.kind = "diff", .profile = o->profile.name, .args = o->args,
                         .sandbox = sandbox, .seed = o->seed, .has_seed = 1};
    if (session_begin(&d->session, &ri))
        goto done;
    d->run_id = d->session.run_id;
    /* Each plugin's own build as well: a departure is a finding of one
     * plugin, and `divergence replay` finds that plugin's file through its
     * build in the run. */
    for (uint32_t k = 0; k < d->n; k++)
        if (session_link_plugin(&d->session, d->p[k].info->name, d->p[k].info->version,
                                d->p[k].path))
            goto done;
    fprintf(out, "Diff: %s, profile %s, seed %" PRIu64 ", %u shared pairs, run %" PRId64
                 " in %s\n",
            d->set_name, o->profile.name, o->seed, n_shared, d->run_id, d->session.db_path);
    for (uint32_t k = 0; k < d->n; k++)
        fprintf(out, "  plugin %u: %s %s (%s)\n", k + 1, d->p[k].info->name,
                d->p[k].info->version, d->p[k].path);
    trial_report_sandbox("diff", d->p[0].info->layers, out, err, sandbox, sizeof sandbox);
    uint32_t departed = 0, with_hazards = 0;
    status = 0;
    for (uint32_t i = 0; i < n_shared; i++) {
        d->variant = shared[i][0];
        d->dtype = shared[i][1];
        d->na = 0;
        size_t len = 0;
        for (uint32_t k = 0; k < d->n; k++)
            if (shared[i][2] & (1u << k)) {
                len += (size_t)snprintf(d->pair_name + len, sizeof d->pair_name - len, "%s%s",
                                        d->na ? "|" : "", d->p[k].info->name);
                d->a[d->na++] = &d->p[k];
            }
        int r = diff_pair(d);
        if (r < 0) {
            status = 2;
            break;
        }
        departed += (uint32_t)r;
        with_hazards += d->n_sigs > 0;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (status != 2) {
        status = departed ? 1 : 0;
        fprintf(out, "%u of %u pairs with portability hazards, %u with a departure from the "
                     "oracle; %" PRIu64 " new signatures; %.1f s; 'divergence replay --db %s "
                     STORE_REF_SIGNATURE "N' re-runs a reproducer\n",
                with_hazards, n_shared, departed, d->new_signatures, secs, d->session.db_path);
        if (session_finish(&d->session, STORE_RUN_COMPLETE)) {
            fprintf(err, "divergence diff: %s\n", store_errmsg(d->db));
            status = 2;
        }
    }
done:
    session_close(&d->session, status == 2);
    for (uint32_t k = 0; k < d->n; k++) {
        trial_free(&d->p[k].t);
        worker_free(d->p[k].w);
    }
    casefile_set_free(d->cases);
    dvg_free(shared);
    dvg_free(d);
    return status;
}
