/* SPDX-License-Identifier: MIT */
/*
 * harness/run/certify/certify_internal.h: what the files of `divergence
 * certify` share (private to harness/run/certify; the contract is
 * certify.h):
 *   plan.c     the case source: the selected claims, each claim's cases as
 *              slots (stage, index, where the generator stands), and the
 *              units the engine runs (consecutive slots of one claim)
 *   unit.c     the policy's job side: a job's worker and trial, a unit's
 *              cases run and judged, each one's counts and findings kept
 *              apart (a case record)
 *   claim.c    the policy's commit side: the case records folded into
 *              their claim in order, under the claim's stop rules; a
 *              finished claim recorded and its certificate printed
 *   certify.c  certify_run: the plugin, the session, the header, the
 *              engine, the summary
 *   contexts.c the calling contexts of a sample of each claim's cases
 *              (issue 25): two instances at once, one instance from two
 *              threads, in place on A and on B, other thread counts
 */
#ifndef HARNESS_CERTIFY_INTERNAL_H
#define HARNESS_CERTIFY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "harness/base/cpumodel.h"
#include "harness/cases/casefile.h"
#include "harness/cases/coverage.h"
#include "harness/cases/gen.h"
#include "harness/cases/shapes.h"
#include "harness/run/certify/certify.h"
#include "harness/run/engine/context.h"
#include "harness/run/engine/engine.h"
#include "harness/run/engine/recorder.h"
#include "harness/run/engine/resume.h"
#include "harness/run/engine/session.h"
#include "harness/run/engine/trial.h"
#include "harness/worker/worker.h"

/* The shape-path stage of a claim stops after this many cases that the
 * plugin did not complete (a crash, a hang, an exit, a failure...): each
 * costs a new worker, and a plugin failing so on every call says nothing
 * more about its paths. */
#define CERTIFY_SHAPE_STOP 16u

/* The stages of a claim, in their order. */
enum { STAGE_CONFORMANCE, STAGE_EDGES, STAGE_RANDOM, STAGE_CALLS, STAGE_SHAPES };

/* The calls stage (the cache-key attack): for each of these shapes
 * (A and B alike, valid under every variant's default rule), a call of
 * another claim of the plugin (the next in (variant, dtype) order with
 * another dtype, or another variant: not judged here), then the claim's
 * own case, then, where the variant has an integer-rounding attribute, its
 * case under the other rounding: back to back in one worker life, so a
 * cache keyed by too little (shapes without the dtype, or without the
 * attribute) answers one from the other's entry. */
#define CERTIFY_CALL_SHAPES 2u

/* Probes of one class in a unit that found no cause (neither alone nor
 * after the history) before the unit stops probing it. */
#define CERTIFY_UNEXPLAINED 4u

/* One case of a claim's plan. */
typedef struct certify_slot {
    uint8_t stage;
    uint8_t cpu;      /* the CPU it runs under: an index of certify.cpu */
    uint32_t index;   /* conformance: the case's index in the set; edges:
                         the rounding pass; random, shapes: the case's number */
    gen_rng rng;      /* random, shapes, calls: the generator before the case */
    /* calls: the call's (variant, dtype), another claim's for a primer
     * (not judged), and 1 for the other integer rounding */
    uint32_t call_variant, call_dtype;
    uint8_t primer, other_rounding;
} certify_slot;

/* How a selected claim is answered. */
enum { CLAIM_JUDGE, CLAIM_NO_DTYPE, CLAIM_RECORDED };

typedef struct certify_claim {
    uint32_t variant, dtype;
    int kind;
    resume_certificate had;   /* CLAIM_RECORDED: what the run holds */
    certify_slot *slots;
    size_t n_slots;
    shapes_list paths;        /* its shape-path specs */
    size_t stop_at;           /* no slot from here on is folded: the claim
                                 certainly stopped before (claim_stop_at) */
} certify_claim;

/* Slots [slot, ...) of cl will never be folded: the claim certainly stops
 * before them (a unit's own hangs or incomplete cases reached the limits,
 * or the fold stopped the claim). Jobs read it to skip what would be
 * thrown away; the results do not depend on when they see it. */
static inline void claim_stop_at(certify_claim *cl, size_t slot)
{
    size_t cur = __atomic_load_n(&cl->stop_at, __ATOMIC_RELAXED);
    while (slot < cur &&
           !__atomic_compare_exchange_n(&cl->stop_at, &cur, slot, 1, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED)) {
    }
}

static inline int claim_stopped_before(certify_claim *cl, size_t slot)
{
    return slot >= __atomic_load_n(&cl->stop_at, __ATOMIC_RELAXED);
}

/* A unit: slots [from, to) of a claim; `last`: the claim's last unit. */
typedef struct certify_unit {
    uint32_t claim;
    size_t from, to;
    int first, last;
} certify_unit;

/* The contexts a case can be run in besides the judged call (contexts.c):
 * each counts the cases it ran in (case_record.contexts). */
enum { CTX_INSTANCES, CTX_INSTANCE, CTX_IN_PLACE_A, CTX_IN_PLACE_B, CTX_THREADS, CTX_COUNT };

/* The thread counts a claim's largest cases are run at: 1, 2, 3 and one
 * above the CPU count (4 at least). */
#define CERTIFY_THREAD_COUNTS 4
/* Its largest cases: the CERTIFY_THREAD_CASES shape-path cases with the
 * most elements (at most CERTIFY_THREAD_MAX: the rotating large tier is
 * left out for its cost). */
#define CERTIFY_THREAD_CASES 2u
#define CERTIFY_THREAD_MAX ((UINT64_C(1) << 17) + 1)
/* The probe sample: the edge cases and about CERTIFY_PROBE_SHAPES of the
 * shape-path cases, spread over the list, whose operands and output hold
 * at most CERTIFY_PROBE_BYTES bytes each. */
#define CERTIFY_PROBE_SHAPES 8u
#define CERTIFY_PROBE_BYTES (UINT64_C(1) << 20)

/* A job's workers and buffers for the contexts (contexts.c). */
typedef struct certify_contexts {
    uint32_t threads[CERTIFY_THREAD_COUNTS];
    worker *tw[CERTIFY_THREAD_COUNTS];  /* opened with threads[i], NULL until used */
    int tw_failed[CERTIFY_THREAD_COUNTS]; /* 1: that worker could not be made */
    context_env env[CERTIFY_THREAD_COUNTS]; /* --env's and OMP_NUM_THREADS=N */
    worker_result wr;                   /* a probe's or another thread count's */
} certify_contexts;

/* What one case of a unit gave, kept apart until it is folded. */
typedef struct case_record {
    uint8_t stage;
    uint8_t cpu;              /* its slot's */
    uint32_t index;
    int incomplete;           /* shapes: the plugin did not complete it */
    int narrow;               /* a crash a claim narrows, if its first */
    verdict_tally tally;
    case_coverage coverage;
    uint32_t contexts[CTX_COUNT]; /* 1: it ran in that context */
} case_record;

/* A unit's result: its case records and findings (sighting tags: 2k for
 * case k's, 2k + 1 for its narrowed crash). */
typedef struct unit_result {
    case_record *cases;
    size_t n;
    recorder rec;
} unit_result;

/* The claim being folded (the commit side). */
typedef struct claim_state {
    verdict_tally tally;
    case_coverage coverage;
    verdict_example first[ORACLE_CLASS_COUNT]; /* one reproducer per class */
    recorder rec;
    int narrowed;             /* its first narrowed crash was taken */
    int hung;                 /* it stopped at max_hangs hangs */
    uint32_t incomplete;      /* shape cases the plugin did not complete */
    size_t shapes_done;       /* shape cases judged (the first CPU's) */
    /* per CPU (certify.cpu's order): cases judged, cases with a finding,
     * the classes found (bits), and the cases whose only findings were of
     * a class emulation can fake (verdict_emulation_fakeable) with those
     * classes: not counted */
    uint64_t cpu_cases[CERTIFY_MAX_CPUS], cpu_failed[CERTIFY_MAX_CPUS];
    uint64_t cpu_classes[CERTIFY_MAX_CPUS];
    uint64_t cpu_unconfirmed[CERTIFY_MAX_CPUS], cpu_fake_classes[CERTIFY_MAX_CPUS];
    uint32_t contexts[CTX_COUNT]; /* cases run in each context */
    int open;                 /* begun and not yet recorded */
} claim_state;

/* Everything one certification holds. */
typedef struct certify {
    const certify_options *o;
    FILE *out, *err;
    worker *w;                /* the first job's worker */
    const worker_info *info;
    run_session session;
    store *db;
    int64_t run_id;
    casefile_set *cases;
    resume_certificate *had;  /* --resume: the claims the run holds */
    size_t n_had, cap_had;
    uint32_t jobs;
    int pinned;
    certify_claim *claims;
    uint32_t n_claims;
    certify_unit *units;
    size_t n_units, cap_units;
    uint64_t total_cases, done_cases;
    /* the commit side */
    claim_state acc;
    uint32_t claims_done, claims_held;
    int status;               /* 0, 1 (a claim does not hold) */
    uint64_t new_signatures;
    /* the CPUs (plan.c, certify_cpus): cpu[i] a cpumodel.h index, the
     * first one's cases all of the plan, sampled[i] 1 when CPU i judges
     * the sample only; what the header says of the CPUs it could not
     * cover */
    uint8_t cpu[CERTIFY_MAX_CPUS];
    int sampled[CERTIFY_MAX_CPUS];
    char forced[CERTIFY_MAX_CPUS][WORKER_ISA_NAME_MAX]; /* non-empty: an
                                 emulated model the plugin declares an ISA
                                 level for (ABI 1.1: its x86_level is the
                                 model's), run natively forced to it
                                 (open_with isa=NAME), not emulated */
    uint32_t n_cpu;
    uint64_t sample_cases;    /* emulated sample cases of all claims */
    char emu_version[32];
    char cpus_missing[256];
} certify;

/* plan.c: the CPUs of this certification from o->cpus (or the default)
 * into cf->cpu, sampled, cpus_missing. 0, or -1 (an emulated CPU asked
 * for by name and no emulator installed: its message printed). */
int certify_cpus(certify *cf);

/* certify.c: the header's CPU line, "native (x86-64-v4: avx512f ...),
 * x86-64-v3 emulated (AVX2/FMA/F16C, no AVX-512; qemu 7.2.22, sample of N
 * cases)", and what was not covered, into buf. Returns buf. */
const char *certify_describe_cpus(const certify *cf, char *buf, size_t cap);

/* plan.c: the selected claims of this shard (with what a resumed run
 * holds), each judged one's slots, and the units. 0, or -1 out of memory
 * or a store error (its message printed). */
int certify_plan(certify *cf, const resume_certificate *had, size_t n_had);
void certify_plan_free(certify *cf);

/* unit.c: the engine policy's job side. */
int certify_job_start(void *ctx, engine_job *j);
void certify_job_free(void *ctx, engine_job *j);
int certify_unit_run(void *ctx, engine_job *j, uint64_t u, void **result);
void certify_unit_discard(void *ctx, void *result);

/* contexts.c. The thread counts (1, 2, 3, max(4, CPUs + 1)). */
void contexts_thread_counts(uint32_t out[CERTIFY_THREAD_COUNTS]);

/* Runs case c (slot s of claim cl, judged by trial t on worker w, whose
 * result it leaves as it is) in the contexts that apply to it, into rec
 * (its tally, its contexts) and, for each difference, sink(ctx, c, ex)
 * with ex of the context's capability class (accepted where the plugin
 * does not declare the capability). 0, or -1 on a harness error (printed)
 * or when the sink failed. */
int contexts_case(certify *cf, certify_contexts *cx, worker *w, const certify_claim *cl,
                  const certify_slot *s, const divcase *c, const trial *t, case_record *rec,
                  verdict_sink sink, void *ctx);

/* The contexts line of a claim's certificate ("    contexts: threads
 * 1,2,3,4 (2 cases); two instances at once (10 cases); ...") and its
 * capability rows (a capability it does not declare and a probe broke:
 * "    re-entrant: no (not declared) [sig:N]") on cf->out. */
void contexts_print(certify *cf, const certify_claim *cl);

void contexts_free(certify_contexts *cx);

/* claim.c: the engine policy's commit side, and the progress line. */
int certify_unit_commit(void *ctx, uint64_t u, void *result);
void certify_tick(void *ctx, int last);

/* A signal stopped the run in the middle of a claim: the findings the
 * claim holds so far (its reproducers and signatures, no counts and no
 * certificate: --resume judges the claim again) recorded in one
 * transaction. 0, or -1 (the store's error printed). */
int certify_store_held(certify *cf);

#endif /* HARNESS_CERTIFY_INTERNAL_H */
