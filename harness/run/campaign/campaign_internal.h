/* SPDX-License-Identifier: MIT */
/*
 * harness/run/campaign/campaign_internal.h: what the files of the fuzz
 * campaign and of import share (private; the contract is campaign.h):
 *   corpus.c        the corpus: the seed files, read once, sorted by name
 *   generate.c      case i of the shard from the seed: generated, a drawn
 *                   shape path, or a mutated corpus input decoded
 *   jobs.c          a job's lanes (a worker and trials per plugin), one
 *                   case through them, what is new to the run minimised
 *                   and kept for the commit; the run engine's policy
 *   differential.c  disagreements among plugins (hazards): kept, minimised
 *   import.c        `divergence import`: engine finding files replayed
 *   campaign.c      campaign_run: the run session, checkpoints of the
 *                   counts, the summary
 */
#ifndef HARNESS_CAMPAIGN_INTERNAL_H
#define HARNESS_CAMPAIGN_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "harness/cases/gen.h"
#include "harness/run/campaign/campaign.h"
#include "harness/run/engine/crosscheck.h"
#include "harness/run/engine/engine.h"
#include "harness/run/engine/history.h"
#include "harness/run/engine/recorder.h"
#include "harness/run/engine/session.h"
#include "harness/run/engine/trial.h"
#include "harness/worker/worker.h"

#define MAX_CORPUS_FILES 20000
#define MAX_CORPUS_BYTES (64u << 10)
#define MAX_NEW_PER_CASE 8
#define MAX_SIGNATURES 4096

/* ---- the corpus (corpus.c) --------------------------------------------- */

typedef struct corpus {
    uint8_t **data;
    size_t *size;
    size_t n;
} corpus;

/* Reads one regular file of at most `max` bytes into *out (dvg_malloc'd)
 * without blocking on a FIFO or a device. 0, or -1 with *why. */
int campaign_read_file(const char *path, size_t max, uint8_t **out, size_t *size,
                       const char **why);

/* Loads every regular file of `dir`, sorted by name (the same corpus, and
 * so the same cases, on every machine). 0, or -1 with a message. */
int corpus_load(const char *dir, corpus *c, FILE *err);
void corpus_free(corpus *c);

/* ---- what the jobs share ------------------------------------------------ */

/* A tally per (variant, dtype). */
typedef verdict_tally pair_tallies[DVG_VARIANT_COUNT][DVG_DTYPE_COUNT];

typedef struct job job;

typedef struct shared {
    const campaign_options *o;
    const char *kind;               /* "fuzz" or "import" */
    FILE *out, *err;
    uint32_t n_plugins;
    worker_info *info[CAMPAIGN_MAX_PLUGINS]; /* owned copies of the first
                                       job's workers' (a worker's own changes
                                       while it restarts, in its job's thread) */
    char set_name[CAMPAIGN_MAX_PLUGINS * (WORKER_NAME_MAX + 1)]; /* the names
                                       joined by '|': the run's implementation
                                       and its hazards' */
    dvg_claim claims[WORKER_MAX_CLAIMS]; /* the pairs every plugin claims */
    uint32_t n_claims;
    corpus corpus;
    run_session session;        /* the run in the store */
    store *db;                  /* session.db */
    int64_t run_id;             /* session.run_id */
    uint32_t jobs;
    int pinned;
    job **job_of;               /* each job's state, by index */
    pthread_mutex_t lock;
    /* guarded by lock */
    char (*signatures)[160];        /* this run's signatures, as found
                                       (before minimising, which may
                                       change the operand classes) */
    uint32_t n_signatures;
    uint32_t n_hazard_signatures;   /* of those, disagreements among plugins */
    uint64_t hazard_elements[HAZARD_COUNT];
    double first_finding_at;        /* 0: none yet */
    uint64_t first_finding_case;
    /* the calling thread's (the engine's commits, ticks, checkpoints) */
    uint64_t first_case;            /* the shard's case number of unit 0 */
    const char *const *files;       /* import: the files, one per unit */
    uint64_t cases, elements;       /* committed */
    int64_t hazard_first[HAZARD_COUNT]; /* its first stored signature; 0 none */
    pair_tallies *tallies;          /* per plugin: the sum of the jobs' */
    pair_tallies *recorded;         /* per plugin: in the store */
    uint64_t resumed_from;          /* --resume: the cases the run held */
    double deadline;
    double started_at;
} shared;

/* One plugin of a job: its worker, the trial that runs each case and the
 * one that probes while minimising, its tallies, and its departures from
 * the oracle in the case that are new to the run. */
typedef struct lane {
    job *j;
    uint32_t k;                     /* the plugin's index */
    worker *w;
    trial t;
    trial probe;
    pair_tallies tallies;
    verdict_example pending[MAX_NEW_PER_CASE];
    uint32_t n_pending;
    /* the calls of the worker's life (fuzz: keyed cases), and per
     * (variant, dtype) the classes seen alone on a fresh child (not probed
     * again) and the probes that found no cause (history.h) */
    history hist;
    uint64_t shows_alone[DVG_VARIANT_COUNT][DVG_DTYPE_COUNT];
    uint8_t unexplained[DVG_VARIANT_COUNT][DVG_DTYPE_COUNT];
    /* this case's departures found to need earlier calls: their minimised
     * calls, by pending index */
    history_finding explained[MAX_NEW_PER_CASE];
    uint8_t is_explained[MAX_NEW_PER_CASE];
    uint64_t moved[ORACLE_CLASS_COUNT]; /* this case's counts, by class, that
                                       go to depends-on-earlier-calls */
} lane;

/* Probes per (variant, dtype) of a lane that found no cause, after which
 * its departures are not probed again (each costs up to HISTORY_MAX_TESTS
 * runs). */
#define CAMPAIGN_UNEXPLAINED 4u

/* A disagreement among the plugins in the case, new to the run: the
 * crosscheck element (its expected value copied out of the trial) and
 * what each plugin gave. */
typedef struct pending_hazard {
    crosscheck_elem x;
    oracle_elem expected;
    char given[CROSSCHECK_GIVEN_MAX];
} pending_hazard;

/* What one case gave, for the commit: its elements, whether every
 * plugin conformed, and the minimised findings new to the run (with their
 * handles for the hazards' first signatures). */
typedef struct case_result {
    uint64_t elements;
    int conforms;
    char line[640];                 /* import: the file's line */
    recorder rec;
    long hazard_handle[HAZARD_COUNT]; /* -1: none */
} case_result;

struct job {
    shared *sh;
    lane lanes[CAMPAIGN_MAX_PLUGINS];
    uint32_t n_lanes;
    pending_hazard hazards[MAX_NEW_PER_CASE];
    uint32_t n_hazards;
    const divcase *current;
    uint64_t case_number;           /* its number in the shard */
    uint64_t case_key;              /* its key (campaign_case_key) */
    int keyed;                      /* 1: cases have keys (fuzz; import's
                                       files do not): the call history runs */
    uint8_t *rebuild_scratch;       /* a mutated corpus input, rebuilt */
    case_result *res;               /* the case being run */
    uint8_t *scratch;               /* a mutated corpus input */
    int cpu;                        /* job and worker's CPU; -1 not pinned */
};

/* ---- generation (generate.c) --------------------------------------------- */

/* The key of case number `index` of this shard, now: the number, and
 * (the low CAMPAIGN_KEY_BUDGET_BITS, as log2) the drawn shape paths'
 * element budget it is made under, which depends on the number and, in a
 * campaign with a time budget, on the whole seconds since it started where
 * they are further along than the number (generate.c: SHAPE_BUDGET_RATE). */
#define CAMPAIGN_KEY_BUDGET_BITS 6
uint64_t campaign_case_key(shared *sh, uint64_t index);

/* The case of `key` (campaign_case_key): the same case from the same key
 * at any time, so the call history rebuilds earlier calls from their keys
 * (scratch: cap bytes for a mutated corpus input). Depends on (seed,
 * global number, budget). 0 or -1. */
int campaign_make_case(shared *sh, uint64_t key, uint8_t *scratch, size_t cap, divcase *c);

/* ---- the jobs (jobs.c) ------------------------------------------------ */

/* Claims a signature for this run (under sh->lock): 1 when it is new to
 * the run; notes the first finding (in case `case_number`). */
int campaign_claim_signature(shared *sh, const char *key, int hazard, uint64_t case_number);

/* The trials of a job's lanes: the runs (probe 0) or the probes (1); the
 * plugins' names. */
void campaign_lane_trials(job *j, int probe, const trial **t);
void campaign_lane_names(const shared *sh, const char **names);

/* Starts a job's workers, one per plugin (in the calling thread, which
 * outlives them). 0, or -1 with a message. */
int campaign_job_start(shared *sh, job *j, int cpu);
void campaign_job_free(job *j);

/* Runs case c through every lane of job j, compares their outputs when
 * there are several, minimises what is new to the run into j->res.
 * Returns 1 when every plugin conforms, 0 when one departs, -1 on an
 * error (its message printed). */
int campaign_run_case(job *j, const divcase *c);

/* A case result, and what the commit does with it: its findings recorded,
 * the first hazard signature noted. */
case_result *campaign_result_new(void);
void campaign_result_free(case_result *r);
int campaign_record(shared *sh, case_result *r);

/* The engine policy's job callbacks (state: the job). */
int campaign_engine_job_start(void *ctx, engine_job *ej);
void campaign_engine_job_free(void *ctx, engine_job *ej);
void campaign_engine_discard(void *ctx, void *result);

/* ---- disagreements (differential.c) --------------------------------------- */

/* crosscheck_outputs' sink in the campaign (ctx: the job): keeps the
 * hazards whose signature is new to the run. */
int campaign_on_hazard(void *ctx, const crosscheck_elem *x);

/* Minimises the disagreements of the case new to this run into the
 * case's recorder, as findings of the plugin set. 0 or -1. */
int campaign_minimise_hazards(job *j, const divcase *c);

/* ---- the run (campaign.c) ---------------------------------------------- */

/* The shared state: options checked, the locks, the lists. 0 or -1. */
int campaign_shared_init(shared *sh, const campaign_options *o, const char *kind, FILE *out,
                         FILE *err);
void campaign_shared_free(shared *sh, int failed);

/* Copies the plugins' descriptions from job j's workers, names the set and
 * takes the claims every plugin makes. 0, or -1 with a message. */
int campaign_take_info(shared *sh, const job *j);

/* Opens the run (new, or --resume's). 0 or -1. */
int campaign_open_run(shared *sh);

/* Records the counts and ends the run as `status` (STORE_RUN_*). 0 or -1. */
int campaign_close_run(shared *sh, int status);

/* The sum of the jobs' tallies into sh->tallies (jobs paused or done). */
void campaign_sum_tallies(shared *sh);

/* The summary of the run. */
void campaign_print_summary(shared *sh, double secs);

#endif /* HARNESS_CAMPAIGN_INTERNAL_H */
