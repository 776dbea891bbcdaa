/* SPDX-License-Identifier: MIT */
/*
 * This file contains the certification of one plugin (`divergence
 * certify`, harness/run/certify.h): for each selected claim, the
 * conformance cases, the edge-value cross product, seeded random cases and
 * the shape-path cases (harness/cases/shapes.h), judged in a worker; the claim's findings held and recorded with its
 * counts and certificate in one transaction; the run in the store through
 * a run session (harness/run/session.h); the certificate, each failing
 * class with an example and the signature to replay ("[sig:N]").
 */
#include "harness/run/certify.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/base/alloc.h"
#include "harness/cases/casefile.h"
#include "harness/cases/coverage.h"
#include "harness/cases/gen.h"
#include "harness/cases/shapes.h"
#include "harness/worker/narrow.h"
#include "harness/run/resume.h"
#include "harness/run/session.h"
#include "harness/run/trial.h"
#include "harness/store/store.h"
#include "harness/worker/worker.h"
#include "oracle/dtype.h"
#include "oracle/fastpath.h"

/* The shape-path stage of a claim stops after this many cases that the
 * plugin did not complete (a crash, a hang, an exit, a failure...): each
 * costs a new worker, and a plugin failing so on every call says nothing
 * more about its paths. */
#define CERTIFY_SHAPE_STOP 16u

/* Cases larger than this are stored as a 1-element (or narrowed) case. */

void certify_options_default(certify_options *o)
{
    memset(o, 0, sizeof *o);
    char err[64];
    verdict_profile_parse("exact", &o->profile, err, sizeof err);
    o->seed = 1;
    o->random_cases = 200;
    o->max_elements = 64;
    o->shape_paths = 1;
    o->shape_tier = SHAPES_MAX_TIER;
    o->timeout_ms = 2000;
    o->max_hangs = 1;
    o->progress = isatty(2);
    o->memory_limit = WORKER_LIMIT_AS;
    o->cpu_limit_s = WORKER_LIMIT_CPU_S;
}

/* One sighting of a finding, held until its claim is recorded. */
typedef struct held_finding {
    uint32_t sig;                   /* index into certify.sigs */
    int own_case;                   /* 1: c is this record's copy */
    divcase c;
    store_finding f;                /* its pointers are set when it is
                                       recorded (the array moves) */
    int has_expected, has_actual, has_note;
    char operand[64], expected[128], actual[VERDICT_ACTUAL_MAX];
    char note[WORKER_MESSAGE_MAX];
} held_finding;

/* A signature of the claim: (class, operand classes). */
typedef struct held_signature {
    uint32_t cls;
    char operand[64];
    uint32_t records;               /* sightings held with their case */
    uint32_t first;                 /* its first record */
    uint64_t counted;               /* further sightings, counted only */
} held_signature;

/* Everything one certification holds. */
typedef struct certify {
    const certify_options *o;
    FILE *out, *err;
    worker *w;
    const worker_info *info;
    run_session session; /* the run in the store */
    store *db;           /* session.db */
    int64_t run_id;      /* session.run_id */
    casefile_set *cases;
    /* the claim being judged */
    uint32_t variant, dtype;
    verdict_tally tally;
    case_coverage coverage; /* what the claim's valid cases exercised */
    verdict_example first[ORACLE_CLASS_COUNT]; /* one reproducer per class */
    int64_t first_id[ORACLE_CLASS_COUNT];      /* its signature id */
    uint64_t new_signatures;
    const divcase *current;
    const oracle_plan *current_plan;
    trial trial;        /* the case being judged, with its worker */
    int store_failed;
    int narrowed;       /* a crash of this claim was narrowed already */
    /* the claim's findings, held until it is recorded */
    held_finding *held;
    size_t n_held, cap_held;
    held_signature *sigs;
    size_t n_sigs, cap_sigs;
    uint64_t held_bytes;
    int held_failed;    /* out of memory holding a finding */
    /* --resume: the claims the run certified before */
    resume_certificate *recorded;
    size_t n_recorded, cap_recorded;
} certify;

static int grow(void **p, size_t *cap, size_t need, size_t size);

static int recorded_claim(void *ctx, const resume_certificate *c)
{
    certify *cf = ctx;
    if (grow((void **)&cf->recorded, &cf->cap_recorded, cf->n_recorded + 1,
             sizeof *cf->recorded))
        return -1;
    cf->recorded[cf->n_recorded++] = *c;
    return 0;
}

static const resume_certificate *recorded_find(const certify *cf, uint32_t variant,
                                               uint32_t dtype)
{
    for (size_t i = 0; i < cf->n_recorded; i++)
        if (cf->recorded[i].variant == variant && cf->recorded[i].dtype == dtype)
            return &cf->recorded[i];
    return NULL;
}

static void held_clear(certify *cf)
{
    for (size_t i = 0; i < cf->n_held; i++)
        if (cf->held[i].own_case)
            divcase_free(&cf->held[i].c);
    cf->n_held = cf->n_sigs = 0;
    cf->held_bytes = 0;
    cf->held_failed = 0;
}

static void held_free(certify *cf)
{
    held_clear(cf);
    dvg_free(cf->held);
    dvg_free(cf->sigs);
    cf->held = NULL;
    cf->sigs = NULL;
    cf->cap_held = cf->cap_sigs = 0;
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? 2 * *cap : 64;
    while (ncap < need)
        ncap *= 2;
    void *q = dvg_realloc(*p, ncap * size);
    if (!q)
        return -1;
    *p = q;
    *cap = ncap;
    return 0;
}

/* Holds one sighting (f, with its case rc). 0, or -1 out of memory. */
static int hold(certify *cf, const store_finding *f, const divcase *rc)
{
    size_t k = 0;
    while (k < cf->n_sigs && !(cf->sigs[k].cls == f->cls &&
                               !strcmp(cf->sigs[k].operand, f->operand_class)))
        k++;
    if (k == cf->n_sigs) {
        if (grow((void **)&cf->sigs, &cf->cap_sigs, k + 1, sizeof *cf->sigs))
            return -1;
        held_signature *g = &cf->sigs[k];
        memset(g, 0, sizeof *g);
        g->cls = f->cls;
        snprintf(g->operand, sizeof g->operand, "%s", f->operand_class);
        cf->n_sigs++;
    }
    held_signature *g = &cf->sigs[k];
    /* The first sighting is always held whole; the store keeps at most
     * STORE_DEFAULT_REPRODUCERS per signature, so later ones past that, or
     * past the byte budget, are only counted. */
    uint64_t bytes = rc->a_bytes + rc->b_bytes;
    if (g->records && (g->records >= STORE_DEFAULT_REPRODUCERS ||
                       cf->held_bytes + bytes > CERTIFY_HELD_BYTES)) {
        g->counted++;
        return 0;
    }
    if (grow((void **)&cf->held, &cf->cap_held, cf->n_held + 1, sizeof *cf->held))
        return -1;
    held_finding *h = &cf->held[cf->n_held];
    memset(h, 0, sizeof *h);
    if (divcase_copy(&h->c, rc))
        return -1;
    h->own_case = 1;
    h->sig = (uint32_t)k;
    h->f = *f;
    snprintf(h->operand, sizeof h->operand, "%s", f->operand_class);
    if ((h->has_expected = f->expected != NULL))
        snprintf(h->expected, sizeof h->expected, "%s", f->expected);
    if ((h->has_actual = f->actual != NULL))
        snprintf(h->actual, sizeof h->actual, "%s", f->actual);
    if ((h->has_note = f->note != NULL))
        snprintf(h->note, sizeof h->note, "%s", f->note);
    if (!g->records++)
        g->first = (uint32_t)cf->n_held;
    cf->held_bytes += bytes;
    cf->n_held++;
    return 0;
}

/* Records the held findings, in the order they were seen, inside the
 * claim's open batch. 0 or -1 (the store's error). */
static int held_record(certify *cf)
{
    for (size_t i = 0; i < cf->n_held; i++) {
        held_finding *h = &cf->held[i];
        h->f.implementation = cf->info->name;
        h->f.c = &h->c;
        h->f.operand_class = h->operand;
        h->f.expected = h->has_expected ? h->expected : NULL;
        h->f.actual = h->has_actual ? h->actual : NULL;
        h->f.note = h->has_note ? h->note : NULL;
    }
    for (size_t i = 0; i < cf->n_held; i++) {
        held_finding *h = &cf->held[i];
        int64_t sig = 0;
        int is_new = 0;
        if (store_record_finding(cf->db, cf->run_id, &h->f, &sig, &is_new))
            return -1;
        cf->new_signatures += is_new ? 1 : 0;
        if (!cf->first_id[h->f.cls])
            cf->first_id[h->f.cls] = sig;
    }
    /* The sightings counted without a case: the store counts them as
     * occurrences with a dropped reproducer, as it would have. */
    store_set_reproducer_limit(cf->db, 0);
    for (size_t k = 0; k < cf->n_sigs; k++) {
        held_finding *h = &cf->held[cf->sigs[k].first];
        for (uint64_t n = 0; n < cf->sigs[k].counted; n++)
            if (store_record_finding(cf->db, cf->run_id, &h->f, NULL, NULL)) {
                store_set_reproducer_limit(cf->db, STORE_DEFAULT_REPRODUCERS);
                return -1;
            }
    }
    store_set_reproducer_limit(cf->db, STORE_DEFAULT_REPRODUCERS);
    return 0;
}

/* 1 when selected claim number k belongs to this shard. */
static int in_shard(const certify_options *o, uint32_t k)
{
    return o->shard_count <= 1 || k % o->shard_count == o->shard_index;
}

static int wanted(const uint32_t *list, uint32_t n, uint32_t v)
{
    if (!n)
        return 1;
    for (uint32_t i = 0; i < n; i++)
        if (list[i] == v)
            return 1;
    return 0;
}


static int sink(void *ctx, const divcase *c, const verdict_example *ex)
{
    certify *cf = ctx;
    verdict_words w;
    verdict_example_words(c->dtype, ex, &w);
    divcase tmp;
    int owned;
    const divcase *rc = trial_reproducer_case(&cf->trial, c, ex, &tmp, &owned);
    store_finding f = {
        .implementation = cf->info->name,
        .cls = ex->cls,
        .operand_class = w.operand,
        .c = rc,
        .element = ex->index == UINT64_MAX ? -1 : (owned ? 0 : (int64_t)ex->index),
        .expected = ex->index == UINT64_MAX ? NULL : w.expected,
        .actual = ex->index == UINT64_MAX ? NULL : w.actual,
        .ulps = ex->cls == ORACLE_CLASS_WRONG_VALUE ? ex->ulps : UINT64_MAX,
        .note = ex->note[0] ? ex->note : NULL,
    };
    int rcode = hold(cf, &f, rc);
    if (owned)
        divcase_free(&tmp);
    if (rcode) {
        fprintf(cf->err, "divergence certify: out of memory holding a finding\n");
        cf->held_failed = 1;
        return -1;
    }
    if (!cf->first[ex->cls].elements)
        cf->first[ex->cls] = *ex;
    return 0;
}

/* Re-runs a crashing case element by element down to the one
 * pair that fails, and records that pair as the reproducer. */
static void narrow_failure(certify *cf, const divcase *c, const oracle_plan *p)
{
    if (p->count <= 1)
        return;
    narrow_result nr;
    memset(&nr, 0, sizeof nr);
    narrow_options no = {0};
    if (narrow_case(cf->w, c, &cf->trial.wr, &no, &nr) == 0 && nr.found) {
        verdict_example ex;
        memset(&ex, 0, sizeof ex);
        ex.cls = ORACLE_CLASS_CRASH; /* only crashes and exits are narrowed */
        ex.index = UINT64_MAX;
        snprintf(ex.note, sizeof ex.note, "narrowed to output element %" PRIu64 " of case %s: %s",
                 nr.index, c->id, nr.message);
        sink(cf, &nr.reduced, &ex); /* a whole-case finding: stored as it is */
    }
    narrow_result_free(&nr);
}

/* Runs and judges one case. Returns 0, or -1 on a harness error. */
static int judge(certify *cf, const divcase *c)
{
    cf->current = c;
    cf->current_plan = &cf->trial.plan;
    int v = trial_run(&cf->trial, c, &cf->tally, sink, cf);
    if (v < 0) {
        fprintf(cf->err, "divergence certify: %s\n", cf->trial.error);
        return -1;
    }
    if (cf->trial.valid) {
        coverage_add_plan(&cf->coverage, &cf->trial.plan);
        coverage_add_offsets(&cf->coverage, c, &cf->trial.plan);
    }
    uint32_t out = cf->trial.wr.outcome;
    /* Hangs are not narrowed: each step would cost a full timeout. */
    if (v == 0 && cf->trial.valid && !cf->narrowed &&
        (out == WORKER_OUT_CRASH || out == WORKER_OUT_EXIT)) {
        cf->narrowed = 1; /* one narrowed reproducer per claim */
        narrow_failure(cf, c, &cf->trial.plan);
    }
    return 0;
}

static void print_reproducers(certify *cf)
{
    for (int k = 1; k < ORACLE_CLASS_COUNT; k++) {
        /* refusals of undefined input are accepted, and named */
        uint64_t n = k == ORACLE_CLASS_REFUSED_UNDEFINED ? cf->tally.accepted[k] : cf->tally.counts[k];
        if (!n)
            continue;
        const verdict_example *ex = &cf->first[k];
        fprintf(cf->out, "    %-26s %10" PRIu64 "  ", oracle_class_name((uint32_t)k), n);
        if (ex->index != UINT64_MAX && ex->elements) {
            char a[64], b[64], want[128], got[VERDICT_ACTUAL_MAX];
            verdict_bits_text(cf->dtype, ex->a, a, sizeof a);
            verdict_bits_text(cf->dtype, ex->b, b, sizeof b);
            verdict_elem_text(cf->dtype, &ex->expected, want, sizeof want);
            verdict_actual_text(cf->dtype, ex, got, sizeof got);
            fprintf(cf->out, "e.g. %s / %s: expected %s, got %s", a, b, want, got);
            if (k == ORACLE_CLASS_WRONG_VALUE && cf->tally.max_ulps)
                fprintf(cf->out, " (max %" PRIu64 " ulp)", cf->tally.max_ulps);
        } else if (ex->elements) {
            fprintf(cf->out, "%s", ex->note);
        }
        if (cf->first_id[k])
            fprintf(cf->out, "  [" STORE_REF_SIGNATURE "%" PRId64 "]", cf->first_id[k]);
        fputc('\n', cf->out);
    }
}

static void progress(certify *cf, uint32_t claim, uint32_t n_claims, uint64_t done, uint64_t total)
{
    if (!cf->o->progress)
        return;
    fprintf(cf->err, "\r[%u/%u] %-18s %-5s %5" PRIu64 "/%-5" PRIu64 " cases", claim + 1, n_claims,
            oracle_variant_get(cf->variant)->name, oracle_dtype_tag(cf->dtype), done, total);
    fflush(cf->err);
}

static int out_of_memory(certify *cf)
{
    fprintf(cf->err, "divergence certify: out of memory\n");
    return -1;
}

/* Judges one case of the claim (freeing it when `owned`) and reports
 * progress. Returns 0 to go on, 1 when the claim has hung max_hangs times,
 * -1 on a harness error. */
static int step(certify *cf, divcase *c, int owned, uint32_t claim, uint32_t n_claims,
                uint64_t done, uint64_t total)
{
    int rc = judge(cf, c);
    if (owned)
        divcase_free(c);
    progress(cf, claim, n_claims, done, total);
    if (rc)
        return -1;
    return cf->tally.counts[ORACLE_CLASS_HANG] >= cf->o->max_hangs ? 1 : 0;
}

/* Records what the claim's cases exercised (docs/store.md, "coverage"). */
static int record_coverage(certify *cf)
{
    char ranks[64], inner[512], patterns[256], tiers[128], offsets[512];
    coverage_format(&cf->coverage, ranks, sizeof ranks, inner, sizeof inner, patterns,
                    sizeof patterns, tiers, sizeof tiers);
    coverage_format_offsets(&cf->coverage, offsets, sizeof offsets);
    store_coverage c = {cf->coverage.cases, ranks, inner, patterns, tiers, "", offsets};
    return store_record_coverage(cf->db, cf->run_id, cf->info->name, cf->variant, cf->dtype, &c);
}

/* Judges one claim. Returns 1 when it holds, 0 when not, -1 on error. */
static int certify_claim(certify *cf, uint32_t claim, uint32_t n_claims)
{
    const certify_options *o = cf->o;
    memset(&cf->tally, 0, sizeof cf->tally);
    coverage_clear(&cf->coverage);
    memset(cf->first, 0, sizeof cf->first);
    memset(cf->first_id, 0, sizeof cf->first_id);
    cf->narrowed = 0;
    const oracle_variant *v = oracle_variant_get(cf->variant);
    uint64_t total = o->random_cases + 1 + (cf->cases ? cf->cases->count : 0);
    uint64_t done = 0;
    held_clear(cf);
    int rc = 0; /* 0: go on, 1: the claim hung, -1: harness error */
    /* 1. conformance cases of this (variant, dtype) */
    for (size_t i = 0; cf->cases && i < cf->cases->count && rc == 0; i++) {
        divcase *c = &cf->cases->cases[i];
        if (c->variant == cf->variant && c->dtype == cf->dtype)
            rc = step(cf, c, 0, claim, n_claims, ++done, total);
    }
    /* 2. the edge-value cross product, under each integer rounding the
     *    variant's attributes allow */
    int roundings = (v->attr_keys & (ORACLE_ATTR_PYTHONDIV | ORACLE_ATTR_INT_ROUNDING)) ? 2 : 1;
    for (int pass = 0; pass < roundings && rc == 0; pass++) {
        dvg_attrs at;
        oracle_attrs_default(v, &at);
        if (pass == 1) {
            at.pythondiv = 0;
            if (v->attr_keys & ORACLE_ATTR_INT_ROUNDING)
                at.int_rounding = DVG_ROUND_TRUNC;
        }
        divcase c;
        if (gen_edge_case(cf->variant, cf->dtype, &at, pass ? "edges:other-rounding" : "edges", &c))
            rc = out_of_memory(cf);
        else
            rc = step(cf, &c, 1, claim, n_claims, ++done, total);
    }
    /* 3. seeded random cases, biased to edge values and broadcasting */
    gen_rng g;
    gen_seed(&g, o->seed, (uint64_t)cf->variant * 64 + cf->dtype);
    for (uint32_t i = 0; i < o->random_cases && rc == 0; i++) {
        divcase c;
        char id[64];
        snprintf(id, sizeof id, "gen:%" PRIu64 ":%s:%s:%u", o->seed, v->name,
                 oracle_dtype_tag(cf->dtype), i);
        if (gen_case(&g, cf->variant, cf->dtype, NULL, 1, 8, o->max_elements, id, &c))
            rc = out_of_memory(cf);
        else
            rc = step(cf, &c, 1, claim, n_claims, ++done, total);
    }
    /* 4. the shape paths: inner sizes, broadcast classes, alignments and
     *    size tiers, each case named by its path class (divcase.source) */
    shapes_list paths = {0};
    if (rc == 0 && o->shape_paths && shapes_build(cf->variant, cf->dtype, o->shape_tier, &paths))
        rc = out_of_memory(cf);
    total += paths.n;
    gen_seed(&g, o->seed, (uint64_t)cf->variant * 64 + cf->dtype + (UINT64_C(1) << 32));
    uint32_t incomplete = 0; /* shape cases the plugin did not complete */
    size_t shapes_done = 0;
    for (size_t i = 0; i < paths.n && rc == 0 && incomplete < CERTIFY_SHAPE_STOP; i++) {
        divcase c;
        char id[64];
        snprintf(id, sizeof id, "shape:%" PRIu64 ":%s:%s:%zu", o->seed, v->name,
                 oracle_dtype_tag(cf->dtype), i);
        if (shapes_case(&g, cf->variant, cf->dtype, &paths.spec[i], id, &c)) {
            rc = out_of_memory(cf);
            break;
        }
        rc = step(cf, &c, 1, claim, n_claims, ++done, total);
        uint32_t out = cf->trial.out.outcome; /* a refusal of undefined elements completes */
        incomplete += out != VERDICT_OUT_OK && out != VERDICT_OUT_INVALID_INPUT &&
                      out != VERDICT_OUT_UNSUPPORTED;
        shapes_done = i + 1;
    }
    int shapes_stopped = rc == 0 && shapes_done < paths.n;
    shapes_list_free(&paths);
    if (rc == 1) {
        size_t used = strlen(cf->first[ORACLE_CLASS_HANG].note);
        snprintf(cf->first[ORACLE_CLASS_HANG].note + used,
                 sizeof cf->first[ORACLE_CLASS_HANG].note - used,
                 " (claim stopped after %u hangs)", o->max_hangs);
        rc = 0;
    }
    if (rc) {
        held_clear(cf);
        return -1;
    }
    char buf[96];
    const char *cert =
        verdict_certificate(&cf->tally, &o->profile, cf->info->deviations, 0, buf, sizeof buf);
    if (store_begin(cf->db) || held_record(cf))
        goto store_error;
    held_clear(cf);
    for (int k = 0; k < ORACLE_CLASS_COUNT; k++) {
        uint64_t n = k == 0 ? cf->tally.elements : cf->tally.counts[k] + cf->tally.accepted[k];
        if (n && store_record_counts(cf->db, cf->run_id, cf->info->name, cf->variant, cf->dtype,
                                     (uint32_t)k, n,
                                     k == 0 ? cf->tally.cases : cf->tally.class_cases[k]))
            goto store_error;
    }
    /* The claim was tested: findings of its triple that this run did not
     * see are fixed (store_mark_fixed). */
    if (store_record_ulp_histogram(cf->db, cf->run_id, cf->info->name, cf->variant, cf->dtype,
                                   cf->tally.ulp_hist, VERDICT_ULP_BUCKETS) ||
        store_record_certificate(cf->db, cf->run_id, cf->info->name, cf->variant, cf->dtype, cert,
                                 o->profile.name, cf->tally.cases, cf->tally.elements) ||
        store_mark_fixed(cf->db, cf->run_id, cf->info->name, cf->variant, cf->dtype, NULL) ||
        record_coverage(cf) || store_commit(cf->db))
        goto store_error;
    if (o->progress)
        fprintf(cf->err, "\r%60s\r", "");
    fprintf(cf->out, "  %-18s %-5s %-40s %6" PRIu64 " cases %9" PRIu64 " elements\n", v->name,
            oracle_dtype_tag(cf->dtype), cert, cf->tally.cases, cf->tally.elements);
    if (shapes_stopped)
        fprintf(cf->out, "    note: shape paths stopped after %u cases the plugin did not complete "
                         "(%zu of them judged)\n", CERTIFY_SHAPE_STOP, shapes_done);
    if (cf->tally.any_inf_positive + cf->tally.any_inf_negative)
        fprintf(cf->out, "    note: x/0 'inf' without a sign: %" PRIu64 " times +inf, %" PRIu64
                         " times -inf\n", cf->tally.any_inf_positive, cf->tally.any_inf_negative);
    if (cf->tally.unspecified_not_preferred && v->float_div_zero == ORACLE_FDZ_UNDEFINED &&
        oracle_dtype(cf->dtype)->kind == DVG_KIND_FLOAT)
        fprintf(cf->out, "    note: %" PRIu64 " undefined x/0 results differ from IEEE 754\n",
                cf->tally.unspecified_not_preferred);
    if ((cf->info->deviations & DVG_DEV_FLUSH_SUBNORMAL_OUTPUT) &&
        oracle_dtype(cf->dtype)->kind == DVG_KIND_FLOAT && cf->tally.subnormal_results &&
        !cf->tally.accepted[ORACLE_CLASS_FLUSHED_SUBNORMAL_OUTPUT])
        fprintf(cf->out, "    note: declares flush-to-zero but delivered all %" PRIu64
                         " subnormal results\n", cf->tally.subnormal_results);
    print_reproducers(cf);
    return !strncmp(cert, "CONFORMANT", 10);
store_error:
    fprintf(cf->err, "divergence certify: %s\n", store_errmsg(cf->db));
    store_rollback(cf->db);
    held_clear(cf);
    return -1;
}

int certify_run(const certify_options *o, FILE *out, FILE *err)
{
    certify cf;
    memset(&cf, 0, sizeof cf);
    cf.o = o;
    cf.out = out;
    cf.err = err;
    int status = 2;
    char msg[512];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    oracle_fastpath_selfcheck();

    worker_options wo;
    worker_options_limited(&wo);
    wo.limit_as_bytes = o->memory_limit;
    wo.limit_cpu_s = o->cpu_limit_s;
    wo.config = o->config;
    wo.timeout_ms = o->timeout_ms ? o->timeout_ms : 5000;
    trial_sandbox_options(&wo, o->sandbox, o->env, o->n_env);
    if (worker_new(o->plugin_path, &wo, &cf.w)) {
        fprintf(err, "divergence certify: cannot create a worker for %s\n", o->plugin_path);
        goto done;
    }
    trial_init(&cf.trial, cf.w, &o->profile);
    int started = worker_start(cf.w, &cf.trial.wr);
    if (started != 0) {
        fprintf(err, "divergence certify: cannot load plugin %s: %s\n", o->plugin_path,
                started < 0 ? worker_errmsg(cf.w)
                            : worker_result_format(&cf.trial.wr, msg, sizeof msg));
        goto done;
    }
    cf.info = worker_get_info(cf.w);
    /* Nothing to judge: said before the store is touched. */
    {
        uint32_t selectable = 0;
        for (uint32_t i = 0; i < cf.info->n_claims; i++)
            selectable += wanted(o->variants, o->n_variants, cf.info->claims[i].variant) &&
                          wanted(o->dtypes, o->n_dtypes, cf.info->claims[i].dtype);
        if (!selectable) {
            fprintf(err, "divergence certify: %s (%s) claims no (variant, dtype) pair%s\n",
                    o->plugin_path, cf.info->name,
                    o->n_variants || o->n_dtypes ? " that the filters select" : " at all");
            goto done;
        }
    }

    casefile_error ce;
    if (casefile_load_conformance(o->cases_dir, &cf.cases, &ce)) {
        fprintf(err, "divergence certify: %s\n", ce.text);
        goto done;
    }

    if (session_open(&cf.session, "certify", o->db_path, o->plugin_path, cf.info->name,
                     cf.info->version, err))
        goto done;
    cf.db = cf.session.db;
    const char *db_path = cf.session.db_path;
    int sharded = o->shard_count > 1;
    if (sharded && o->shard_index >= o->shard_count) {
        fprintf(err, "divergence certify: shard %u/%u: the index must be below the count\n",
                o->shard_index, o->shard_count);
        goto done;
    }
    char sandbox[160];
    worker_describe_layers(cf.info->layers, sandbox, sizeof sandbox);
    int resumed = o->resume ? session_resume(&cf.session, "certify", o->args) : 0;
    if (resumed < 0)
        goto done;
    if (resumed && resume_certificates(cf.db, cf.session.run_id, cf.info->name, recorded_claim,
                                       &cf)) {
        fprintf(err, "divergence certify: %s\n", store_errmsg(cf.db));
        goto done;
    }
    store_run_info ri = {.kind = "certify", .profile = o->profile.name, .args = o->args,
                         .sandbox = sandbox, .seed = o->seed, .has_seed = 1,
                         .shard_index = o->shard_index, .shard_count = o->shard_count};
    if (!resumed && session_begin(&cf.session, &ri))
        goto done;
    cf.run_id = cf.session.run_id;

    uint32_t n_claims = 0, n_selected = 0;
    for (uint32_t i = 0; i < cf.info->n_claims; i++)
        if (wanted(o->variants, o->n_variants, cf.info->claims[i].variant) &&
            wanted(o->dtypes, o->n_dtypes, cf.info->claims[i].dtype))
            n_claims += (uint32_t)in_shard(o, n_selected++);
    char shard[48] = "";
    if (sharded)
        snprintf(shard, sizeof shard, ", shard %u/%u", o->shard_index, o->shard_count);
    fprintf(out, "Certificate: %s %s (%s), profile %s, seed %" PRIu64 "%s, run %" PRId64 " in %s%s\n",
            cf.info->name, cf.info->version, o->plugin_path, o->profile.name, o->seed, shard,
            cf.run_id, db_path, resumed ? " (resumed)" : "");
    trial_report_sandbox("certify", cf.info->layers, out, err, sandbox, sizeof sandbox);
    if (cf.info->fp_at_open) {
        char fp[128];
        fprintf(out, "  note: loading and open() leave the FP environment changed (%s); every "
                     "call starts from it\n",
                worker_fp_describe(cf.info->fp_at_open, fp, sizeof fp));
    }
    if (n_claims == 0 && n_selected > 0) {
        fprintf(out, "shard %u/%u holds none of the %u selected claims\n", o->shard_index,
                o->shard_count, n_selected);
        status = session_finish(&cf.session, STORE_RUN_COMPLETE) ? 2 : 0;
        if (status)
            fprintf(err, "divergence certify: %s\n", store_errmsg(cf.db));
        goto done;
    }
    if (n_claims == 0) {
        fprintf(err, "divergence certify: %s claims no (variant, dtype) pair that the filters "
                     "select\n", cf.info->name);
        session_finish(&cf.session, STORE_RUN_COMPLETE);
        goto done;
    }
    uint32_t held = 0, claim = 0, selected = 0;
    status = 0;
    for (uint32_t i = 0; i < cf.info->n_claims; i++) {
        cf.variant = cf.info->claims[i].variant;
        cf.dtype = cf.info->claims[i].dtype;
        if (!wanted(o->variants, o->n_variants, cf.variant) || !wanted(o->dtypes, o->n_dtypes, cf.dtype))
            continue;
        if (!in_shard(o, selected++))
            continue;
        if (!oracle_variant_has_dtype(oracle_variant_get(cf.variant), cf.dtype)) {
            fprintf(out, "  %-18s %-5s %-40s (the variant's type list has no %s)\n",
                    oracle_variant_get(cf.variant)->name, oracle_dtype_tag(cf.dtype),
                    "NONCONFORMANT", oracle_dtype_tag(cf.dtype));
            status = 1;
            claim++;
            continue;
        }
        const resume_certificate *had = recorded_find(&cf, cf.variant, cf.dtype);
        if (had) {
            fprintf(out, "  %-18s %-5s %-40s %6" PRIu64 " cases %9" PRIu64 " elements (recorded "
                         "before the run was resumed)\n",
                    oracle_variant_get(cf.variant)->name, oracle_dtype_tag(cf.dtype),
                    had->verdict, had->cases, had->elements);
            claim++;
            int holds = !strncmp(had->verdict, "CONFORMANT", 10);
            held += (uint32_t)holds;
            if (!holds)
                status = 1;
            continue;
        }
        int r = certify_claim(&cf, claim++, n_claims);
        if (r < 0) {
            status = 2;
            break;
        }
        held += (uint32_t)r;
        if (!r)
            status = 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (status != 2) {
        fprintf(out, "%u of %u claims hold; %" PRIu64 " new finding signatures; %.1f s; "
                     "'divergence replay --db %s " STORE_REF_SIGNATURE "N' re-runs the first "
                     "reproducer of signature [" STORE_REF_SIGNATURE "N]\n",
                held, n_claims, cf.new_signatures, secs, db_path);
        if (session_finish(&cf.session, STORE_RUN_COMPLETE)) {
            fprintf(err, "divergence certify: %s\n", store_errmsg(cf.db));
            status = 2;
        }
    }
done:
    session_close(&cf.session, status == 2);
    held_free(&cf);
    dvg_free(cf.recorded);
    trial_free(&cf.trial);
    worker_free(cf.w);
    casefile_set_free(cf.cases);
    return status;
}
