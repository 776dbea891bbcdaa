/* SPDX-License-Identifier: MIT */
/*
 * This file contains certify's case source: the claims this run judges
 * (the filters, the shard, what a resumed run holds), each claim's cases
 * as slots in the order they are judged - the conformance cases, the edge
 * cross product under each rounding, the seeded random cases, the shape
 * paths - with where the generator stands before each one, so that any
 * job can build any case; and the units the engine runs: consecutive
 * slots of one claim, cut by their estimated cost.
 */
#include "harness/run/certify/certify_internal.h"

#include <stdlib.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"

/* What a case costs to run, in elements: a fixed part (the worker's round
 * trips, the verdict) and its elements. Units are cut at about 1/UNITS_PER_JOB
 * of a job's share, and never below UNIT_MIN. */
#define CASE_COST 4096u
#define UNITS_PER_JOB 16u
#define UNIT_MIN (UINT64_C(1) << 20)

static int add_slot(certify_claim *cl, size_t *cap, uint8_t stage, uint32_t index,
                    const gen_rng *g)
{
    if (dvg_grow((void **)&cl->slots, cap, cl->n_slots + 1, sizeof *cl->slots))
        return -1;
    certify_slot *s = &cl->slots[cl->n_slots++];
    memset(s, 0, sizeof *s);
    s->stage = stage;
    s->index = index;
    if (g)
        s->rng = *g;
    return 0;
}

/* The primer of claim cl's calls stage: of the plugin's claims the oracle
 * knows, the next after cl in (variant, dtype) order, cyclically, with
 * another dtype, else with another variant: *variant, *dtype. The order
 * of the plugin's claim list plays no part. 0 when there is none. */
static int calls_primer(const worker_info *in, const certify_claim *cl, uint32_t *variant,
                        uint32_t *dtype)
{
    uint64_t own = (uint64_t)cl->variant * 64 + cl->dtype, best = UINT64_MAX;
    for (int other_dtype = 1; other_dtype >= 0 && best == UINT64_MAX; other_dtype--)
        for (uint32_t i = 0; i < in->n_claims; i++) {
            uint32_t v = in->claims[i].variant, d = in->claims[i].dtype;
            uint64_t key = (uint64_t)v * 64 + d;
            if (key == own || (other_dtype && d == cl->dtype) ||
                !oracle_variant_has_dtype(oracle_variant_get(v), d))
                continue;
            /* distance after own, cyclically */
            uint64_t dist = key > own ? key - own : key + (UINT64_C(1) << 40) - own;
            if (best == UINT64_MAX || dist < best) {
                best = dist;
                *variant = v;
                *dtype = d;
            }
        }
    return best != UINT64_MAX;
}

/* The slots of claim cl's calls stage (certify_internal.h). 0 or -1. */
static int plan_calls(const certify *cf, certify_claim *cl, size_t *cap, int roundings)
{
    uint32_t pv = 0, pd = 0;
    int primer = calls_primer(cf->info, cl, &pv, &pd);
    for (uint32_t k = 0; k < CERTIFY_CALL_SHAPES; k++) {
        gen_rng g;
        gen_seed(&g, cf->o->seed,
                 (UINT64_C(3) << 32) + ((uint64_t)k << 20) + (uint64_t)cl->variant * 64 + cl->dtype);
        for (int step = primer ? 0 : 1; step <= roundings; step++) {
            if (add_slot(cl, cap, STAGE_CALLS, k, &g))
                return -1;
            certify_slot *s = &cl->slots[cl->n_slots - 1];
            s->primer = step == 0;
            s->other_rounding = step == 2;
            s->call_variant = step == 0 ? pv : cl->variant;
            s->call_dtype = step == 0 ? pd : cl->dtype;
        }
    }
    return 0;
}

/* The name of the plugin's ISA level for model m's x86-64 level (the
 * first it declares), or NULL. */
static const char *forcible_level(const certify *cf, const cpum_model *m)
{
    char want[8];
    snprintf(want, sizeof want, "v%d", m->level);
    for (uint32_t i = 0; m->qemu && i < cf->info->n_isa_levels; i++)
        if (!strcmp(cf->info->isa_levels[i].x86_level, want))
            return cf->info->isa_levels[i].name;
    return NULL;
}

/* Appends model k to cf's CPUs (sampled or not), forced natively where
 * the plugin declares a level for it. */
static void add_cpu(certify *cf, int k, int sampled)
{
    const char *level = forcible_level(cf, cpum_get(k));
    cf->sampled[cf->n_cpu] = sampled;
    snprintf(cf->forced[cf->n_cpu], sizeof cf->forced[cf->n_cpu], "%s", level ? level : "");
    cf->cpu[cf->n_cpu++] = (uint8_t)k;
}

int certify_cpus(certify *cf)
{
    const certify_options *o = cf->o;
    char emu[256];
    int have_emu = cpum_emulator(emu, sizeof emu, cf->emu_version, sizeof cf->emu_version) == 0;
    cf->n_cpu = 0;
    if (o->n_cpus) {
        for (uint32_t i = 0; i < o->n_cpus && i < CERTIFY_MAX_CPUS; i++) {
            const cpum_model *m = cpum_get(o->cpus[i]);
            if (m->qemu && !forcible_level(cf, m) && (!have_emu || !cpum_host_level())) {
                fprintf(cf->err, "divergence certify: --cpu %s needs QEMU's user-mode emulator "
                                 "on an x86-64 host (qemu-x86_64-static, Debian's "
                                 "qemu-user-static)%s\n",
                        m->name, cpum_host_level() ? ", which is not installed" : "");
                return -1;
            }
            add_cpu(cf, o->cpus[i], 0);
        }
        return 0;
    }
    /* The default: native, and the tier below on the sample. */
    add_cpu(cf, CPUM_NATIVE, 0);
    int below = cpum_below_host();
    if (below < 0)
        return 0;
    if (o->iso.grants && !forcible_level(cf, cpum_get(below))) {
        snprintf(cf->cpus_missing, sizeof cf->cpus_missing,
                 "%s not covered: a plugin run with --grant is not run under the emulator",
                 cpum_get(below)->name);
        return 0;
    }
    if (!have_emu && !forcible_level(cf, cpum_get(below))) {
        snprintf(cf->cpus_missing, sizeof cf->cpus_missing,
                 "%s not covered: %s", cpum_get(below)->name, cpum_no_emulator_why());
        return 0;
    }
    add_cpu(cf, below, 1);
    return 0;
}

/* The sample's memory of the inner sizes and patterns it holds: their
 * hashes (open addressing; 0 is empty). */
#define SAMPLE_SEEN 4096u
typedef struct sample_seen {
    uint64_t h[SAMPLE_SEEN];
} sample_seen;

/* Adds hash h (made non-zero) to *seen: 1 when it was not there. */
static int sample_add(sample_seen *seen, uint64_t h)
{
    h |= 1;
    for (uint32_t i = (uint32_t)(h % SAMPLE_SEEN);; i = (i + 1) % SAMPLE_SEEN) {
        if (seen->h[i] == h)
            return 0;
        if (!seen->h[i]) {
            seen->h[i] = h;
            return 1;
        }
    }
}

/* FNV-1a of n bytes at p onto h. */
static uint64_t fnv(uint64_t h, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * UINT64_C(1099511628211);
    return h;
}

/* 1 when `what` ("inner 17, rank 3, numpy equal shapes") brings a new
 * inner size ("inner 17") or a new pattern (the words without the inner
 * size and the rank) into *seen: each remainder once, each broadcast
 * pattern and alignment once. */
static int sample_new_class(sample_seen *seen, const char *what)
{
    const uint64_t basis = UINT64_C(1469598103934665603);
    uint64_t inner = 0, pattern = basis ^ 0x5a;
    const char *p = what;
    if (!strncmp(p, "inner ", 6)) {
        size_t n = strcspn(p, ",");
        inner = fnv(basis, p, n);
        p += n;
    }
    while (*p) {
        if (!strncmp(p, ", rank ", 7)) {
            p += 7;
            while (*p >= '0' && *p <= '9')
                p++;
            continue;
        }
        pattern = fnv(pattern, p, 1);
        p++;
    }
    int fresh = sample_add(seen, pattern);
    if (inner)
        fresh |= sample_add(seen, inner);
    return fresh;
}

/* 1 when slot s of claim cl is in the emulated sample: the edge cases,
 * and of the shape-path cases of at most CERTIFY_SAMPLE_ELEMENTS
 * elements the first of each inner size and of each pattern
 * (sample_new_class). */
static int in_sample(const certify_claim *cl, const certify_slot *s, sample_seen *seen)
{
    if (s->stage == STAGE_EDGES)
        return 1;
    if (s->stage != STAGE_SHAPES)
        return 0;
    const shapes_spec *sp = &cl->paths.spec[s->index];
    return oracle_shape_count(&sp->a) + oracle_shape_count(&sp->b) <= CERTIFY_SAMPLE_ELEMENTS &&
           sample_new_class(seen, sp->what);
}

/* The slots of the CPUs after the first: the first's again (all, or
 * the sample), each CPU's after the one before. 0 or -1. */
static int plan_cpus(const certify *cf, certify_claim *cl, size_t *cap)
{
    size_t n = cl->n_slots;
    sample_seen *seen = NULL;
    for (uint32_t k = 1; k < cf->n_cpu; k++) {
        if (cf->sampled[k]) {
            dvg_free(seen);
            if (!(seen = dvg_calloc(1, sizeof *seen)))
                return -1;
        }
        for (size_t i = 0; i < n; i++) {
            /* the calls stage runs natively only (its slots carry their
             * primer, which a copy would lose) */
            if (cl->slots[i].stage == STAGE_CALLS ||
                (cf->sampled[k] && !in_sample(cl, &cl->slots[i], seen)))
                continue;
            certify_slot s = cl->slots[i];
            if (add_slot(cl, cap, s.stage, s.index, &s.rng)) {
                dvg_free(seen);
                return -1;
            }
            cl->slots[cl->n_slots - 1].cpu = (uint8_t)k;
        }
    }
    dvg_free(seen);
    return 0;
}

/* The slots of a judged claim. 0 or -1 (out of memory). */
static int plan_claim(const certify *cf, certify_claim *cl)
{
    const certify_options *o = cf->o;
    const oracle_variant *v = oracle_variant_get(cl->variant);
    size_t cap = 0;
    /* 1. the conformance cases of this (variant, dtype) */
    for (size_t i = 0; cf->cases && i < cf->cases->count; i++) {
        const divcase *c = &cf->cases->cases[i];
        if (c->variant == cl->variant && c->dtype == cl->dtype &&
            add_slot(cl, &cap, STAGE_CONFORMANCE, (uint32_t)i, NULL))
            return -1;
    }
    /* 2. the edge-value cross product, under each integer rounding the
     *    variant's attributes allow */
    int roundings = (v->attr_keys & (ORACLE_ATTR_PYTHONDIV | ORACLE_ATTR_INT_ROUNDING)) ? 2 : 1;
    for (int pass = 0; pass < roundings; pass++)
        if (add_slot(cl, &cap, STAGE_EDGES, (uint32_t)pass, NULL))
            return -1;
    /* 3. seeded random cases, one stream per claim */
    gen_rng g;
    gen_seed(&g, o->seed, (uint64_t)cl->variant * 64 + cl->dtype);
    for (uint32_t i = 0; i < o->random_cases; i++) {
        if (add_slot(cl, &cap, STAGE_RANDOM, i, &g))
            return -1;
        divcase c;
        if (gen_case(&g, cl->variant, cl->dtype, NULL, 1, 8, o->max_elements, "plan", &c))
            return -1;
        divcase_free(&c);
    }
    /* 4. the calls stage: the same shapes under another claim, this one
     *    and its other rounding, back to back (certify_internal.h) */
    if (plan_calls(cf, cl, &cap, roundings))
        return -1;
    /* 5. the shape paths, a stream of their own */
    if (o->shape_paths) {
        if (shapes_build(cl->variant, cl->dtype, o->shape_tier, &cl->paths))
            return -1;
        gen_seed(&g, o->seed, (uint64_t)cl->variant * 64 + cl->dtype + (UINT64_C(1) << 32));
        for (size_t i = 0; i < cl->paths.n; i++) {
            if (add_slot(cl, &cap, STAGE_SHAPES, (uint32_t)i, &g))
                return -1;
            shapes_case_skip(&g, cl->variant, cl->dtype, &cl->paths.spec[i]);
        }
    }
    /* 6. the same under the other CPUs */
    return plan_cpus(cf, cl, &cap);
}

/* engine_each's item: the plan of claim i, when it is judged. */
static int plan_one(void *ctx, size_t i)
{
    certify *cf = ctx;
    certify_claim *cl = &cf->claims[i];
    return cl->kind == CLAIM_JUDGE ? plan_claim(cf, cl) : 0;
}

/* The estimated cost of slot s of claim cl. */
static uint64_t slot_cost(const certify *cf, const certify_claim *cl, const certify_slot *s)
{
    uint64_t n = 64;
    if (s->stage == STAGE_CONFORMANCE) {
        const divcase *c = &cf->cases->cases[s->index];
        n = oracle_shape_count(&c->a_shape) + oracle_shape_count(&c->b_shape);
    } else if (s->stage == STAGE_SHAPES) {
        const shapes_spec *sp = &cl->paths.spec[s->index];
        n = oracle_shape_count(&sp->a) + oracle_shape_count(&sp->b);
    }
    return CASE_COST + n;
}

static int add_unit(certify *cf, uint32_t claim, size_t from, size_t to, int first, int last)
{
    if (dvg_grow((void **)&cf->units, &cf->cap_units, cf->n_units + 1, sizeof *cf->units))
        return -1;
    cf->units[cf->n_units++] = (certify_unit){claim, from, to, first, last};
    return 0;
}

/* Cuts every claim into units of about `target` cost (a claim that is
 * not judged: one unit of no slot, which prints its line); with
 * DIVERGENCE_UNIT_CASES=N in the environment, into units of N cases (the
 * tests cut the same run two ways and compare: the results must not
 * depend on it). */
static int plan_units(certify *cf)
{
    const char *fixed = getenv("DIVERGENCE_UNIT_CASES");
    uint64_t every = fixed ? strtoull(fixed, NULL, 10) : 0;
    uint64_t total = 0;
    for (uint32_t i = 0; i < cf->n_claims; i++)
        for (size_t s = 0; s < cf->claims[i].n_slots; s++)
            total += slot_cost(cf, &cf->claims[i], &cf->claims[i].slots[s]);
    uint64_t target = total / ((uint64_t)cf->jobs * UNITS_PER_JOB);
    if (target < UNIT_MIN)
        target = UNIT_MIN;
    for (uint32_t i = 0; i < cf->n_claims; i++) {
        const certify_claim *cl = &cf->claims[i];
        cf->total_cases += cl->n_slots;
        size_t from = 0;
        uint64_t cost = 0;
        for (size_t s = 0; s < cl->n_slots; s++) {
            /* An emulated case costs about WORKER_EMULATION_SLOWDOWN native ones. */
            uint64_t c = every ? 1 : slot_cost(cf, cl, &cl->slots[s]);
            cost += cf->cpu[cl->slots[s].cpu] != CPUM_NATIVE && !cf->forced[cl->slots[s].cpu][0] &&
                            !every
                        ? c * WORKER_EMULATION_SLOWDOWN
                        : c;
            cf->sample_cases += (uint64_t)cf->sampled[cl->slots[s].cpu];
            /* A unit runs under one CPU: cut where the next slot's differs. */
            int cpu_ends = s + 1 < cl->n_slots && cl->slots[s + 1].cpu != cl->slots[s].cpu;
            if ((cpu_ends || cost >= (every ? every : target)) && s + 1 < cl->n_slots) {
                if (add_unit(cf, i, from, s + 1, from == 0, 0))
                    return -1;
                from = s + 1;
                cost = 0;
            }
        }
        if (add_unit(cf, i, from, cl->n_slots, from == 0, 1))
            return -1;
    }
    return 0;
}

int certify_plan(certify *cf, const resume_certificate *had, size_t n_had)
{
    const certify_options *o = cf->o;
    const worker_info *in = cf->info;
    cf->claims = dvg_calloc(in->n_claims ? in->n_claims : 1, sizeof *cf->claims);
    if (!cf->claims)
        goto oom;
    uint32_t selected = 0;
    for (uint32_t i = 0; i < in->n_claims; i++) {
        uint32_t variant = in->claims[i].variant, dtype = in->claims[i].dtype;
        if (!run_filter_selects(&o->only, variant, dtype))
            continue;
        uint32_t k = selected++;
        if (!run_shard_holds(o->shard_index, o->shard_count, k))
            continue;
        certify_claim *cl = &cf->claims[cf->n_claims++];
        cl->variant = variant;
        cl->dtype = dtype;
        cl->kind = CLAIM_JUDGE;
        cl->stop_at = SIZE_MAX;
        for (size_t r = 0; r < n_had; r++)
            if (had[r].variant == variant && had[r].dtype == dtype) {
                cl->kind = CLAIM_RECORDED;
                cl->had = had[r];
            }
        if (!oracle_variant_has_dtype(oracle_variant_get(variant), dtype))
            cl->kind = CLAIM_NO_DTYPE;
    }
    /* the claims' plans are independent: one thread per job makes them */
    if (engine_each(cf->jobs, cf->n_claims, plan_one, cf) || plan_units(cf))
        goto oom;
    return 0;
oom:
    fprintf(cf->err, "divergence certify: out of memory\n");
    return -1;
}

void certify_plan_free(certify *cf)
{
    for (uint32_t i = 0; cf->claims && i < cf->n_claims; i++) {
        dvg_free(cf->claims[i].slots);
        shapes_list_free(&cf->claims[i].paths);
    }
    dvg_free(cf->claims);
    dvg_free(cf->units);
    cf->claims = NULL;
    cf->units = NULL;
    cf->n_claims = 0;
    cf->n_units = cf->cap_units = 0;
}
