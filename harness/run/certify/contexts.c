/* SPDX-License-Identifier: MIT */
/*
 * This file contains the calling contexts of certify (issue 25): a case
 * the judge saw computed, deterministically, run once more as the
 * plugin's users call it - two instances at once, each from its own
 * thread; one instance from two threads, where the plugin declares it
 * safe; C in A's buffer and in B's, where the output has that input's
 * shape; and, for a claim's largest cases, at each thread count of
 * contexts_thread_counts (open_with's threads and OMP_NUM_THREADS, a
 * worker each) - and compared element by element with the answer the
 * judge saw. A difference (or a call that fails there) is a finding of
 * the context's capability class (verdict_capability): counted against
 * the claim where the plugin declares the capability, accepted and shown
 * as a capability row where it does not. A thread count's answer that
 * differs is judged by the oracle as the judged run was (issue 37): a
 * wrong one (or none) is counted whatever the plugin declares, its note
 * naming the count and the oracle's class; one that conforms, whose bits
 * differ only where the specs leave freedom (NaN payloads and signs,
 * undefined elements), is accepted, a determinism row, unless the
 * profile asks for +bitwise. The probes run on a sample of
 * each claim's cases (the edge cases and CERTIFY_PROBE_SHAPES of the shape
 * paths, spread over the list); the thread counts on its
 * CERTIFY_THREAD_CASES largest shape-path cases.
 */
#include "harness/run/certify/certify_internal.h"

#include <inttypes.h>
#include <string.h>

#include "harness/base/affinity.h"
#include "harness/base/alloc.h"
#include "harness/store/store.h"
#include "oracle/shape.h"

void contexts_thread_counts(uint32_t out[CERTIFY_THREAD_COUNTS])
{
    uint32_t cpus = affinity_cpu_count();
    out[0] = 1;
    out[1] = 2;
    out[2] = 3;
    out[3] = cpus + 1 > 4 ? cpus + 1 : 4;
}

static uint64_t shape_count(const oracle_shape *s)
{
    uint64_t n = 1;
    for (uint32_t k = 0; k < s->rank; k++)
        n *= (uint64_t)s->dims[k];
    return n;
}

/* A shape spec's size: its larger operand's elements. */
static uint64_t spec_size(const shapes_spec *s)
{
    uint64_t a = shape_count(&s->a), b = shape_count(&s->b);
    return a > b ? a : b;
}

/* 1 when slot s is in the probe sample of claim cl. */
static int probe_sample(const certify_claim *cl, const certify_slot *s)
{
    if (s->stage == STAGE_EDGES)
        return 1;
    if (s->stage != STAGE_SHAPES)
        return 0;
    size_t step = (cl->paths.n + CERTIFY_PROBE_SHAPES - 1) / CERTIFY_PROBE_SHAPES;
    return s->index % (step ? step : 1) == 0;
}

/* 1 when slot s is one of claim cl's CERTIFY_THREAD_CASES largest
 * shape-path cases (ties: the earlier). */
static int thread_case(const certify_claim *cl, const certify_slot *s)
{
    if (s->stage != STAGE_SHAPES || s->index >= cl->paths.n)
        return 0;
    uint64_t mine = spec_size(&cl->paths.spec[s->index]);
    if (mine > CERTIFY_THREAD_MAX || mine < 2)
        return 0;
    uint32_t above = 0;
    for (size_t k = 0; k < cl->paths.n && above < CERTIFY_THREAD_CASES; k++) {
        uint64_t n = spec_size(&cl->paths.spec[k]);
        if (n <= CERTIFY_THREAD_MAX && (n > mine || (n == mine && k < s->index)))
            above++;
    }
    return above < CERTIFY_THREAD_CASES;
}

/* A difference in a context: a case-level example of class cls, into the
 * case's tally and the sink. */
static int finding(certify *cf, const divcase *c, case_record *rec, uint32_t cls,
                   const char *note, verdict_sink sink, void *ctx)
{
    return trial_case_finding(cls, !(cf->info->capabilities & verdict_capability(cls)), note, c,
                              &rec->tally, sink, ctx);
}

static const struct {
    uint32_t kind, ctx;
    uint64_t needs; /* run only when declared (0: always) */
} probes[] = {
    {WORKER_PROBE_INSTANCES, CTX_INSTANCES, 0},
    {WORKER_PROBE_INSTANCE, CTX_INSTANCE, DVG_CAP_INSTANCE_CONCURRENT},
    {WORKER_PROBE_IN_PLACE_A, CTX_IN_PLACE_A, 0},
    {WORKER_PROBE_IN_PLACE_B, CTX_IN_PLACE_B, 0},
};

/* The worker of thread count i, started; NULL when it cannot be had
 * (*note then says why: a finding). -1 in *fatal on a harness error. */
static worker *thread_worker(certify *cf, certify_contexts *cx, uint32_t i, char *note,
                             size_t cap, int *fatal)
{
    *fatal = 0;
    if (cx->tw[i] && worker_alive(cx->tw[i]))
        return cx->tw[i];
    if (cx->tw_failed[i]) { /* once: a load that hangs costs a timeout each try */
        context_threads_note(cx->threads[i], "the plugin did not load (as at this job's first try)",
                             note, cap);
        return NULL;
    }
    if (!cx->tw[i]) {
        worker_options wo;
        if (context_threads_options(&cf->o->iso, cf->o->config, cf->jobs, cx->threads[i], &wo,
                                    &cx->env[i])) {
            fprintf(cf->err, "divergence certify: out of memory\n");
            *fatal = 1;
            return NULL;
        }
        if (worker_new(cf->o->plugin_path, &wo, &cx->tw[i])) {
            fprintf(cf->err, "divergence certify: cannot create a worker for %s\n",
                    cf->o->plugin_path);
            *fatal = 1;
            return NULL;
        }
    }
    int started = worker_start(cx->tw[i], &cx->wr);
    if (started < 0) {
        fprintf(cf->err, "divergence certify: %s\n", worker_errmsg(cx->tw[i]));
        *fatal = 1;
        return NULL;
    }
    if (started > 0) {
        char line[WORKER_MESSAGE_MAX];
        char what[WORKER_MESSAGE_MAX + 32];
        cx->tw_failed[i] = 1;
        snprintf(what, sizeof what, "the plugin did not load: %.400s",
                 worker_result_format(&cx->wr, line, sizeof line));
        context_threads_note(cx->threads[i], what, note, cap);
        return NULL;
    }
    return cx->tw[i];
}

/* Thread count `threads` gave cx->wr for case c, other than the judged
 * answer (t->wr; *note says how): judged by the oracle. A wrong answer is
 * counted (the oracle's words appended to *note); a conformant one is a
 * determinism note (accepted) but under +bitwise. */
static int judge_threads(certify *cf, certify_contexts *cx, const divcase *c, const trial *t,
                         case_record *rec, char *note, size_t cap, verdict_sink sink, void *ctx)
{
    verdict_outputs out;
    verdict_tally scratch;
    verdict_first fw;
    memset(&scratch, 0, sizeof scratch);
    memset(&fw, 0, sizeof fw);
    trial_outputs_from_worker(&cx->wr, &out);
    out.period = t->out.period;
    int conforms = verdict_case(&t->rules, c, t->valid, &t->plan, t->expected, &out, t->profile,
                                t->declared, t->int_div_zero_value, &scratch, verdict_keep_first,
                                &fw);
    if (conforms < 0)
        return -1;
    if (!conforms && fw.found) {
        size_t used = strlen(note);
        char sa[VERDICT_TEXT_MAX], sb[VERDICT_TEXT_MAX], se[VERDICT_TEXT_MAX];
        char sg[VERDICT_ACTUAL_MAX];
        const verdict_example *ex = &fw.ex;
        if (ex->index == UINT64_MAX)
            snprintf(note + used, cap - used, "; judged by the oracle: %s: %.200s",
                     oracle_class_name(ex->cls), ex->note);
        else
            snprintf(note + used, cap - used,
                     "; judged by the oracle: %s, %" PRIu64 " elements (element %" PRIu64
                     ": %s / %s, expected %s, got %s)",
                     oracle_class_name(ex->cls), ex->elements, ex->index,
                     verdict_bits_text(c->dtype, ex->a, sa, sizeof sa),
                     verdict_bits_text(c->dtype, ex->b, sb, sizeof sb),
                     verdict_elem_text(c->dtype, &ex->expected, se, sizeof se),
                     verdict_actual_text(c->dtype, ex, sg, sizeof sg));
    }
    int accepted = conforms && !cf->o->profile.bitwise;
    return trial_case_finding(ORACLE_CLASS_THREAD_COUNT_DIFFERS, accepted, note, c, &rec->tally,
                              sink, ctx);
}

/* The largest cases at each thread count. */
static int thread_counts(certify *cf, certify_contexts *cx, const divcase *c, const trial *t,
                         case_record *rec, verdict_sink sink, void *ctx)
{
    if (!cx->threads[0])
        contexts_thread_counts(cx->threads);
    rec->contexts[CTX_THREADS] = 1;
    for (uint32_t i = 0; i < CERTIFY_THREAD_COUNTS; i++) {
        char note[VERDICT_NOTE_MAX] = "";
        int fatal;
        worker *tw = thread_worker(cf, cx, i, note, sizeof note, &fatal);
        if (fatal)
            return -1;
        int same = tw ? context_threads_compare(tw, cx->threads[i], c, &t->wr, &cx->wr, note,
                                                sizeof note)
                      : 1;
        if (same < 0) {
            fprintf(cf->err, "divergence certify: %s\n", worker_errmsg(tw));
            return -1;
        }
        /* an answer that differs is judged; no worker (the plugin did not
         * load at that count) is no answer: a capability row as before */
        if (tw && !same) {
            if (judge_threads(cf, cx, c, t, rec, note, sizeof note, sink, ctx) != 0)
                return -1;
        } else if (note[0] &&
                   finding(cf, c, rec, ORACLE_CLASS_THREAD_COUNT_DIFFERS, note, sink, ctx) != 0) {
            return -1;
        }
        if (note[0])
            break; /* one finding per case names the first count that differs */
    }
    return 0;
}

int contexts_case(certify *cf, certify_contexts *cx, worker *w, const certify_claim *cl,
                  const certify_slot *s, const divcase *c, const trial *t, case_record *rec,
                  verdict_sink sink, void *ctx)
{
    const worker_result *base = &t->wr;
    if (!t->valid || base->outcome != WORKER_OUT_OK || !base->computed || base->n_nondet ||
        base->n_unwritten || base->side_effects)
        return 0;
    if (cf->o->probes && probe_sample(cl, s) && c->a_bytes <= CERTIFY_PROBE_BYTES &&
        c->b_bytes <= CERTIFY_PROBE_BYTES && base->nbytes <= CERTIFY_PROBE_BYTES) {
        for (size_t k = 0; k < sizeof probes / sizeof probes[0]; k++) {
            if ((probes[k].needs && !(cf->info->capabilities & probes[k].needs)) ||
                !worker_probe_applies(c, base, probes[k].kind))
                continue;
            worker_probe_result pr;
            if (worker_probe(w, c, base, probes[k].kind, &pr, &cx->wr) < 0) {
                fprintf(cf->err, "divergence certify: %s\n", worker_errmsg(w));
                return -1;
            }
            if (pr.internal)
                continue; /* the worker could not run it: no answer */
            rec->contexts[probes[k].ctx] = 1;
            if ((!pr.ran || pr.n_differ) &&
                finding(cf, c, rec, context_class_of_probe(probes[k].kind), pr.note, sink,
                        ctx) != 0)
                return -1;
        }
    }
    if (cf->o->thread_counts && thread_case(cl, s))
        return thread_counts(cf, cx, c, t, rec, sink, ctx);
    return 0;
}

void contexts_print(certify *cf, const certify_claim *cl)
{
    const uint32_t *n = cf->acc.contexts;
    uint32_t th[CERTIFY_THREAD_COUNTS];
    contexts_thread_counts(th);
    if (cf->o->thread_counts)
        fprintf(cf->out, "    contexts: threads %u,%u,%u,%u (%u cases); ", th[0], th[1], th[2],
                th[3], n[CTX_THREADS]);
    else
        fprintf(cf->out, "    contexts: threads not tried (--no-thread-counts); ");
    if (!cf->o->probes) {
        fprintf(cf->out, "no concurrent or in-place calls (--no-probes)\n");
    } else {
        fprintf(cf->out, "two instances at once (%u cases); one instance from two threads (",
                n[CTX_INSTANCES]);
        if (cf->info->capabilities & DVG_CAP_INSTANCE_CONCURRENT)
            fprintf(cf->out, "%u cases", n[CTX_INSTANCE]);
        else
            fprintf(cf->out, "not declared, not run");
        fprintf(cf->out, "); in place on A (%u cases), on B (%u cases)\n", n[CTX_IN_PLACE_A],
                n[CTX_IN_PLACE_B]);
    }
    const verdict_tally *t = &cf->acc.tally;
    for (uint32_t k = 1; k < ORACLE_CLASS_COUNT; k++) {
        if (!verdict_capability(k) || !t->accepted[k])
            continue;
        const char *what, *answer;
        verdict_capability_row(k, 1, &what, &answer);
        if (k == ORACLE_CLASS_THREAD_COUNT_DIFFERS)
            fprintf(cf->out, "    determinism: other thread counts give other bits where the "
                             "specs leave freedom, every answer judged conformant (%" PRIu64
                             " cases; a failure under +bitwise)", t->class_cases[k]);
        else
            fprintf(cf->out, "    %s: %s (not declared; %" PRIu64 " cases)", what, answer,
                    t->class_cases[k]);
        int64_t id = recorder_first_of_class(&cf->acc.rec, k);
        if (id)
            fprintf(cf->out, " [" STORE_REF_SIGNATURE "%" PRId64 "]", id);
        fputc('\n', cf->out);
    }
    (void)cl;
}

void contexts_free(certify_contexts *cx)
{
    for (uint32_t i = 0; i < CERTIFY_THREAD_COUNTS; i++) {
        worker_free(cx->tw[i]);
        context_env_free(&cx->env[i]);
    }
    worker_result_free(&cx->wr);
    memset(cx, 0, sizeof *cx);
}
