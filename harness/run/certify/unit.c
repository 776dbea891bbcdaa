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
#include "harness/run/engine/history.h"
#include "harness/run/engine/narrow.h"
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
    /* the call history (history.h): the worker life's calls, a trial for
     * the probes, the sightings of the case being judged (held until the
     * probe has said whether they need earlier calls), the classes a
     * probe of this unit saw show alone */
    history hist[CERTIFY_MAX_CPUS];  /* per CPU: each worker its own life */
    trial probe[CERTIFY_MAX_CPUS];
    verdict_example *pending;
    size_t n_pending, cap_pending;
    uint64_t shows_alone;
    uint8_t unexplained[64]; /* per class: probes that found no cause */
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
            /* quiet but for the first CPU's: the plugin's output once */
            isolation_worker_options(&cf->o->iso, 5000, cf->o->config,
                                     (isolation_place){j->cpu, cf->jobs}, k != 0, &wo);
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
        /* the call history's probe runs on the CPU's own worker */
        trial_init(&js->probe[k], js->ws[k], &cf->o->profile);
        js->probe[k].pace.off = 1; /* a fresh child's first calls: not timed */
        history_init(&js->hist[k]);
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
    for (uint32_t k = 0; k < CERTIFY_MAX_CPUS; k++)
        if (js->ws[k])
            trial_free(&js->probe[k]);
    dvg_free(js->pending);
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

/* The note of a sighting under the job's current CPU
 * (isolation_cpu_note): under an emulated CPU each says so, and one of a
 * class the emulator can fake says it is unconfirmed (claim.c does not
 * count it); NULL natively. */
static const char *cpu_note(const certify_job *js, const verdict_example *ex, char *note,
                            size_t cap)
{
    return isolation_cpu_note(js->cf->cpu[js->cpu], js->cf->forced[js->cpu],
                              verdict_emulation_fakeable(ex->cls), ex->note, note, cap);
}

/* Records a sighting at once (a calling context's: no call history). */
static int sink_now(void *ctx, const divcase *c, const verdict_example *ex)
{
    certify_job *js = ctx;
    char note[sizeof ex->note + 96];
    if (recorder_departure(&js->res->rec, js->cf->info->name, js->tp, c, ex,
                           cpu_note(js, ex, note, sizeof note)) >= 0)
        return 0;
    fprintf(js->cf->err, "divergence certify: out of memory holding a finding\n");
    js->sink_failed = 1;
    return -1;
}

/* The judge's sink: every sighting of a case held until the call-history
 * probe has said whether it needs earlier calls (record_pending). */
static int sink(void *ctx, const divcase *c, const verdict_example *ex)
{
    certify_job *js = ctx;
    (void)c;
    if (dvg_grow((void **)&js->pending, &js->cap_pending, js->n_pending + 1,
                 sizeof *js->pending)) {
        fprintf(js->cf->err, "divergence certify: out of memory holding a finding\n");
        js->sink_failed = 1;
        return -1;
    }
    js->pending[js->n_pending++] = *ex;
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
        ex.elements = 1; /* the one pair */
        /* the pair first, as values: "-2147483648 (0x80000000) / -1
         * (0xffffffff): crash in compute ...; narrowed to ..." */
        char ops[2 * VERDICT_TEXT_MAX + 4], what[256];
        const divcase *r = &nr.reduced;
        verdict_operands_text(r->dtype, oracle_load(r->dtype, r->a, 0),
                              oracle_load(r->dtype, r->b, 0), ops, sizeof ops);
        if (snprintf(ex.note, sizeof ex.note, "%s: %s; narrowed to output element %" PRIu64
                                              " of case %s: %s",
                     ops, worker_result_format(&nr.failure, what, sizeof what), nr.index, c->id,
                     nr.message) < 0) /* cut at VERDICT_NOTE_MAX is fine: the pair comes first */
            ex.note[0] = '\0';
        /* recorded at once: the probe of earlier calls is the case's */
        if (recorder_departure(&js->res->rec, js->cf->info->name, js->tp, &nr.reduced, &ex,
                               NULL) < 0) {
            fprintf(js->cf->err, "divergence certify: out of memory holding a finding\n");
            js->sink_failed = 1;
        }
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
    case STAGE_CALLS: {
        static const int64_t dims[CERTIFY_CALL_SHAPES][2] = {{96, 0}, {6, 40}};
        const oracle_variant *cv = oracle_variant_get(s->call_variant);
        memset(c, 0, sizeof *c);
        snprintf(c->id, sizeof c->id, "calls:%" PRIu64 ":%s:%s:%u%s", o->seed, cv->name,
                 oracle_dtype_tag(s->call_dtype), s->index, s->other_rounding ? ":other-rounding" : "");
        c->variant = s->call_variant;
        c->dtype = s->call_dtype;
        oracle_attrs_default(cv, &c->attrs);
        if (s->other_rounding) {
            c->attrs.pythondiv = 0;
            if (cv->attr_keys & ORACLE_ATTR_INT_ROUNDING)
                c->attrs.int_rounding = DVG_ROUND_TRUNC;
        }
        c->a_shape.rank = dims[s->index][1] ? 2 : 1;
        c->a_shape.dims[0] = dims[s->index][0];
        c->a_shape.dims[1] = dims[s->index][1];
        c->b_shape = c->a_shape;
        if (divcase_alloc(c, UINT64_MAX))
            return -1;
        gen_fill_operands(&g, c);
        return 0;
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

/* The call history's key of slot `slot` of claim `claim`. */
static uint64_t call_key(uint32_t claim, size_t slot)
{
    return (uint64_t)claim << 32 | (uint64_t)slot;
}

/* history_source: the case of a key, built again (a copy the probe owns). */
static int history_build(void *ctx, uint64_t key, divcase *c)
{
    certify_job *js = ctx;
    const certify_claim *cl = &js->cf->claims[key >> 32];
    divcase built;
    const divcase *cp;
    if (build_case(js, cl, &cl->slots[key & UINT32_MAX], &built, &cp))
        return -1;
    int rc = divcase_copy(c, cp);
    if (cp == &built)
        divcase_free_pooled(&built, &js->pool);
    return rc;
}

static void history_release(void *ctx, divcase *c)
{
    (void)ctx;
    divcase_free(c);
}

/* The sightings the sink held for case c (key `key`, judged into *tally),
 * each class a probe may explain tried alone on a fresh child, and, when
 * it shows only after earlier calls, recorded as depends-on-earlier-calls
 * with the minimised calls (history.h). 0, or -1 (printed). */
static int record_pending(certify_job *js, const divcase *c, uint64_t key, verdict_tally *tally)
{
    const history_source src = {history_build, history_release, js};
    uint64_t explained = 0;
    static _Thread_local history_finding hf[64]; /* per class */
    char *text[64] = {0};
    int probed = 0, rc = 0;
    for (size_t i = 0; i < js->n_pending; i++) {
        uint32_t cls = js->pending[i].cls;
        uint64_t bit = UINT64_C(1) << (cls & 63);
        if (!history_probes_class(cls) || js->pending[i].accepted || (js->shows_alone & bit) ||
            (explained & bit) || js->unexplained[cls] >= CERTIFY_UNEXPLAINED)
            continue;
        /* one probe per class of the case: the first sighting's */
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= js->pending[j].cls == cls;
        if (seen)
            continue;
        probed = 1;
        int v = history_explain(&js->hist[js->cpu], &js->probe[js->cpu], c, key, cls, &src, &hf[cls]);
        if (v < 0) {
            fprintf(js->cf->err, "divergence certify: probing the calls before case %s: %s\n",
                    c->id, js->probe[js->cpu].error);
            return -1;
        }
        if (v == 0) {
            js->shows_alone |= bit;
            continue;
        }
        if (v == 2) {
            js->unexplained[cls]++;
            continue;
        }
        explained |= bit;
        if (history_calls_text(&src, hf[cls].keys, hf[cls].n, &text[cls])) {
            fprintf(js->cf->err, "divergence certify: out of memory holding earlier calls\n");
            return -1;
        }
        /* the case's count of cls is the new class's */
        tally->counts[ORACLE_CLASS_EARLIER_CALLS] += tally->counts[cls];
        tally->class_cases[ORACLE_CLASS_EARLIER_CALLS] += tally->class_cases[cls];
        tally->counts[cls] = tally->class_cases[cls] = 0;
    }
    if (!probed)
        history_push(&js->hist[js->cpu], js->w, key, c);
    for (size_t i = 0; i < js->n_pending && rc == 0; i++) {
        verdict_example ex = js->pending[i];
        uint32_t first = ex.cls; /* the probe of its class */
        if (history_probes_class(ex.cls) && (explained & (UINT64_C(1) << ex.cls))) {
            history_describe(&src, ex.cls, &hf[first], ex.note, sizeof ex.note);
            ex.cls = ORACLE_CLASS_EARLIER_CALLS;
        }
        char note[sizeof ex.note + 96];
        long h = recorder_departure(&js->res->rec, js->cf->info->name, js->tp, c, &ex,
                                    cpu_note(js, &ex, note, sizeof note));
        if (h < 0) {
            fprintf(js->cf->err, "divergence certify: out of memory holding a finding\n");
            rc = -1;
        } else if (ex.cls == ORACLE_CLASS_EARLIER_CALLS && text[first]) {
            size_t n = strlen(text[first]) + 1;
            char *copy = dvg_malloc(n);
            if (!copy)
                rc = -1;
            else
                recorder_set_calls(&js->res->rec, h, memcpy(copy, text[first], n));
        }
    }
    for (size_t i = 0; i < 64; i++)
        dvg_free(text[i]);
    js->n_pending = 0;
    return rc;
}

/* Runs case k of the unit (slot s) into its record. 0, or -1 on a
 * harness error (its message printed). *narrowed: the unit narrowed a
 * crash already. */
static int run_case(certify_job *js, const certify_claim *cl, const certify_slot *s, size_t k,
                    uint64_t key, int *narrowed)
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
    js->n_pending = 0;
    if (s->stage == STAGE_CALLS && s->primer) {
        /* another claim's call: made, not judged here */
        int pv = trial_run(js->tp, c, NULL, NULL, NULL);
        if (pv < 0)
            fprintf(js->cf->err, "divergence certify: %s\n", js->tp->error);
        else
            history_push(&js->hist[js->cpu], js->w, key, c);
        divcase_free(&built);
        return pv < 0 ? -1 : 0;
    }
    int v = trial_run(js->tp, c, &rec->tally, sink, js);
    if (v >= 0 && !js->sink_failed && record_pending(js, c, key, &rec->tally))
        js->sink_failed = 1;
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
            contexts_case(js->cf, &js->cx, js->w, cl, s, c, js->tp, rec, sink_now, js) != 0 &&
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
    js->shows_alone = 0;
    memset(js->unexplained, 0, sizeof js->unexplained);
    int narrowed = 0;
    uint64_t hangs = 0;
    uint32_t incomplete = 0;
    for (size_t s = cu->from; s < cu->to && !claim_stopped_before(cl, s); s++) {
        size_t k = s - cu->from;
        if (run_case(js, cl, &cl->slots[s], k, call_key(cu->claim, s), &narrowed))
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
