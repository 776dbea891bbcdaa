/* SPDX-License-Identifier: MIT */
/*
 * This file contains the job side of certify's policy: a job's worker,
 * trial and operand pool; a unit's cases built from their slots, run and
 * judged, each case's counts, coverage and findings kept apart in a case
 * record; the first crash of a unit narrowed to its element. A unit stops
 * early where its claim certainly stops (its own hangs or incomplete shape
 * cases reach the claim's limits): what it would run past that is never
 * folded (claim.c); so does a unit whose claim was seen to stop before its
 * next slot, by another unit or by the fold (claim_stop_at).
 */
#include "harness/run/certify/certify_internal.h"

#include <inttypes.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/worker/narrow.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"

typedef struct certify_job {
    certify *cf;
    worker *w;               /* the current unit's CPU's worker */
    trial *tp;               /* and its trial */
    worker *ws[CERTIFY_MAX_CPUS];  /* a worker per CPU (cf->cpu), made
                                      when a unit first needs it */
    int own[CERTIFY_MAX_CPUS];     /* 0: the first job's, cf->w */
    trial ts[CERTIFY_MAX_CPUS];
    divcase_pool pool;       /* the shape cases' operand buffers */
    unit_result *res;        /* the unit being run */
    uint32_t cpu;            /* the unit's CPU (an index of cf->cpu) */
    int sink_failed;
    certify_contexts cx;     /* the calling contexts' workers (contexts.c) */
} certify_job;

/* Makes the job's worker and trial for CPU k (cf->cpu[k]) current,
 * starting it first when this job has none: a native one is loaded now
 * (a load error ends the run, as it always did); an emulated one loads on
 * its first case, so that a plugin that cannot load under the model
 * (AVX-512 code outside its dispatch: SIGILL) is a finding of that CPU. 0
 * or -1 (its message printed). */
static int job_use_cpu(certify_job *js, engine_job *j, uint32_t k)
{
    certify *cf = js->cf;
    if (!js->ws[k]) {
        int native = cf->cpu[k] == CPUM_NATIVE;
        if (native && j->index == 0) {
            js->ws[k] = cf->w;
        } else {
            worker_options wo;
            isolation_worker_options(&cf->o->iso, 5000, cf->o->config,
                                     (isolation_place){j->cpu, cf->jobs}, 0, &wo);
            /* A model the plugin can be forced to: natively, forced. */
            if (cf->forced[k][0])
                snprintf(wo.isa, sizeof wo.isa, "%s", cf->forced[k]);
            else
                snprintf(wo.cpu_model, sizeof wo.cpu_model, "%s", cpum_get(cf->cpu[k])->name);
            native = native || cf->forced[k][0];
            if (worker_new(cf->o->plugin_path, &wo, &js->ws[k])) {
                fprintf(cf->err, "divergence certify: cannot create a worker for %s\n",
                        cf->o->plugin_path);
                return -1;
            }
            js->own[k] = 1;
        }
        trial_init(&js->ts[k], js->ws[k], &cf->o->profile);
        if (js->own[k] && native) {
            int started = worker_start(js->ws[k], &js->ts[k].wr);
            if (started != 0) {
                char msg[512];
                fprintf(cf->err, "divergence certify: cannot load plugin %s: %s\n",
                        cf->o->plugin_path,
                        started < 0 ? worker_errmsg(js->ws[k])
                                    : worker_result_format(&js->ts[k].wr, msg, sizeof msg));
                return -1;
            }
        }
    }
    js->w = js->ws[k];
    js->tp = &js->ts[k];
    js->cpu = k;
    return 0;
}

int certify_job_start(void *ctx, engine_job *j)
{
    certify *cf = ctx;
    certify_job *js = dvg_calloc(1, sizeof *js);
    if (!js) {
        fprintf(cf->err, "divergence certify: out of memory\n");
        return -1;
    }
    j->state = js;
    js->cf = cf;
    return job_use_cpu(js, j, 0);
}

void certify_job_free(void *ctx, engine_job *j)
{
    (void)ctx;
    certify_job *js = j->state;
    if (!js)
        return;
    for (uint32_t k = 0; k < CERTIFY_MAX_CPUS; k++) {
        if (js->ws[k])
            trial_free(&js->ts[k]);
        if (js->own[k])
            worker_free(js->ws[k]);
    }
    contexts_free(&js->cx);
    divcase_pool_free(&js->pool);
    dvg_free(js);
    j->state = NULL;
}

void certify_unit_discard(void *ctx, void *result)
{
    (void)ctx;
    unit_result *res = result;
    if (!res)
        return;
    recorder_free(&res->rec);
    dvg_free(res->cases);
    dvg_free(res);
}

/* The judge's sink: every sighting into the unit's recorder. */
static int sink(void *ctx, const divcase *c, const verdict_example *ex)
{
    certify_job *js = ctx;
    /* Under an emulated CPU each sighting says so; one of a class the
     * emulator can fake says it is unconfirmed (claim.c does not count
     * it). */
    char note[sizeof ex->note + 96];
    const char *n = NULL;
    const cpum_model *m = cpum_get(js->cf->cpu[js->cpu]);
    const char *forced = js->cf->forced[js->cpu];
    if (m->qemu && forced[0]) {
        snprintf(note, sizeof note, "under %s (natively, isa=%s)%s%s", m->name, forced,
                 ex->note[0] ? ": " : "", ex->note);
        n = note;
    } else if (m->qemu) {
        snprintf(note, sizeof note, "%s%s (emulated)%s%s",
                 verdict_emulation_fakeable(ex->cls) ? "emulation-only, unconfirmed: " : "under ",
                 m->name, ex->note[0] ? ": " : "", ex->note);
        n = note;
    }
    if (recorder_departure(&js->res->rec, js->cf->info->name, js->tp, c, ex, n) < 0) {
        fprintf(js->cf->err, "divergence certify: out of memory holding a finding\n");
        js->sink_failed = 1;
        return -1;
    }
    return 0;
}

/* Re-runs a crashing case element by element down to the one pair that
 * fails, and keeps that pair as a whole-case finding. */
static void narrow_failure(certify_job *js, const divcase *c, const oracle_plan *p)
{
    if (p->count <= 1)
        return;
    narrow_result nr;
    memset(&nr, 0, sizeof nr);
    narrow_options no = {0};
    if (narrow_case(js->w, c, &js->tp->wr, &no, &nr) == 0 && nr.found) {
        verdict_example ex;
        memset(&ex, 0, sizeof ex);
        ex.cls = ORACLE_CLASS_CRASH; /* only crashes and exits are narrowed */
        ex.index = UINT64_MAX;
        snprintf(ex.note, sizeof ex.note, "narrowed to output element %" PRIu64 " of case %s: %s",
                 nr.index, c->id, nr.message);
        sink(js, &nr.reduced, &ex);
    }
    narrow_result_free(&nr);
}

/* Builds the case of slot s of claim cl into *c (or points *cp at a
 * conformance case). 0, or -1 out of memory. */
static int build_case(certify_job *js, const certify_claim *cl, const certify_slot *s,
                      divcase *c, const divcase **cp)
{
    const certify_options *o = js->cf->o;
    const oracle_variant *v = oracle_variant_get(cl->variant);
    const char *tag = oracle_dtype_tag(cl->dtype);
    char id[64];
    gen_rng g = s->rng;
    *cp = c;
    switch (s->stage) {
    case STAGE_CONFORMANCE:
        *cp = &js->cf->cases->cases[s->index];
        return 0;
    case STAGE_EDGES: {
        dvg_attrs at;
        oracle_attrs_default(v, &at);
        if (s->index == 1) {
            at.pythondiv = 0;
            if (v->attr_keys & ORACLE_ATTR_INT_ROUNDING)
                at.int_rounding = DVG_ROUND_TRUNC;
        }
        return gen_edge_case(cl->variant, cl->dtype, &at,
                             s->index ? "edges:other-rounding" : "edges", c);
    }
    case STAGE_RANDOM:
        snprintf(id, sizeof id, "gen:%" PRIu64 ":%s:%s:%u", o->seed, v->name, tag, s->index);
        return gen_case(&g, cl->variant, cl->dtype, NULL, 1, 8, o->max_elements, id, c);
    default:
        snprintf(id, sizeof id, "shape:%" PRIu64 ":%s:%s:%u", o->seed, v->name, tag, s->index);
        return shapes_case_pooled(&g, cl->variant, cl->dtype, &cl->paths.spec[s->index], id,
                                  &js->pool, c);
    }
}

/* Runs case k of the unit (slot s) into its record. 0, or -1 on a
 * harness error (its message printed). *narrowed: the unit narrowed a
 * crash already. */
static int run_case(certify_job *js, const certify_claim *cl, const certify_slot *s, size_t k,
                    int *narrowed)
{
    unit_result *res = js->res;
    case_record *rec = &res->cases[k];
    rec->stage = s->stage;
    rec->cpu = s->cpu;
    rec->index = s->index;
    divcase built;
    const divcase *c;
    if (build_case(js, cl, s, &built, &c)) {
        fprintf(js->cf->err, "divergence certify: out of memory\n");
        return -1;
    }
    res->rec.tag = (uint32_t)(2 * k);
    int v = trial_run(js->tp, c, &rec->tally, sink, js);
    if (v < 0) {
        if (!js->sink_failed)
            fprintf(js->cf->err, "divergence certify: %s\n", js->tp->error);
    } else {
        if (js->tp->valid) {
            coverage_add_plan(&rec->coverage, &js->tp->plan);
            coverage_add_offsets(&rec->coverage, c, &js->tp->plan);
        }
        uint32_t out = js->tp->wr.outcome;
        /* Hangs are not narrowed: each step would cost a full timeout. */
        rec->narrow = v == 0 && js->tp->valid && (out == WORKER_OUT_CRASH || out == WORKER_OUT_EXIT);
        if (rec->narrow && !*narrowed) {
            *narrowed = 1;
            res->rec.tag = (uint32_t)(2 * k + 1);
            narrow_failure(js, c, &js->tp->plan);
        }
        uint32_t judged = js->tp->out.outcome; /* a refusal of undefined elements completes */
        rec->incomplete = s->stage == STAGE_SHAPES && judged != VERDICT_OUT_OK &&
                          judged != VERDICT_OUT_INVALID_INPUT && judged != VERDICT_OUT_UNSUPPORTED;
        res->rec.tag = (uint32_t)(2 * k);
        /* The calling contexts: natively only (their workers are native:
         * compared with an emulated run they would see the CPUs differ,
         * in the unspecified bits of NaNs say), under the first CPU (the
         * same case again under another probes nothing new). */
        if (!rec->narrow && !js->sink_failed && s->cpu == 0 &&
            js->cf->cpu[0] == CPUM_NATIVE &&
            contexts_case(js->cf, &js->cx, js->w, cl, s, c, js->tp, rec, sink, js) != 0 &&
            !js->sink_failed)
            v = -1;
    }
    if (c == &built)
        divcase_free_pooled(&built, &js->pool);
    return v < 0 || js->sink_failed ? -1 : 0;
}

int certify_unit_run(void *ctx, engine_job *j, uint64_t u, void **result)
{
    certify *cf = ctx;
    certify_job *js = j->state;
    const certify_unit *cu = &cf->units[u];
    certify_claim *cl = &cf->claims[cu->claim];
    unit_result *res = dvg_calloc(1, sizeof *res);
    if (res)
        res->cases = dvg_calloc(cu->to > cu->from ? cu->to - cu->from : 1, sizeof *res->cases);
    if (!res || !res->cases) {
        dvg_free(res);
        fprintf(cf->err, "divergence certify: out of memory\n");
        return -1;
    }
    recorder_init(&res->rec, STORE_DEFAULT_REPRODUCERS, CERTIFY_HELD_BYTES);
    *result = res;
    js->res = res;
    if (cu->to > cu->from && job_use_cpu(js, j, cl->slots[cu->from].cpu))
        return -1;
    int narrowed = 0;
    uint64_t hangs = 0;
    uint32_t incomplete = 0;
    for (size_t s = cu->from; s < cu->to && !claim_stopped_before(cl, s); s++) {
        size_t k = s - cu->from;
        if (run_case(js, cl, &cl->slots[s], k, &narrowed))
            return -1;
        res->n = k + 1;
        /* The claim stops here whatever came before this unit. */
        hangs += res->cases[k].tally.counts[ORACLE_CLASS_HANG];
        incomplete += (uint32_t)res->cases[k].incomplete;
        if (hangs >= cf->o->max_hangs || incomplete >= CERTIFY_SHAPE_STOP) {
            claim_stop_at(cl, s + 1);
            break;
        }
    }
    return 0;
}
