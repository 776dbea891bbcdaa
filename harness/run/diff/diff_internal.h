/* SPDX-License-Identifier: MIT */
/*
 * harness/run/diff/diff_internal.h: what the files of `divergence diff`
 * share (private; the contract is diff.h):
 *   pair.c   the job side: a job's workers (one per plugin) and the cases
 *            of one (variant, dtype) pair through every plugin that claims
 *            it, compared; the pair's counts, table and findings kept in a
 *            pair result
 *   diff.c   diff_run: the plugins, the pairs, the session, the engine
 *            (one unit per pair, committed in pair order: recorded and
 *            printed), the summary
 */
#ifndef HARNESS_DIFF_INTERNAL_H
#define HARNESS_DIFF_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "harness/cases/casefile.h"
#include "harness/run/diff/diff.h"
#include "harness/run/engine/engine.h"
#include "harness/run/engine/recorder.h"
#include "harness/run/engine/session.h"
#include "harness/worker/worker.h"

/* Hazard signatures (class, operand classes) kept per pair with their
 * example; more are counted under their class only. */
#define DIFF_MAX_SIGS 64

#define DIFF_SET_NAME_MAX (DIFF_MAX_PLUGINS * (WORKER_NAME_MAX + 1))

/* One pair compared: its plugins (bit k of mask: plugin k claims it) and
 * their names joined by '|'. */
typedef struct diff_pair {
    uint32_t variant, dtype, mask;
    char name[DIFF_SET_NAME_MAX];
} diff_pair;

/* One hazard signature of a pair: its first element as the example. */
typedef struct diff_sig {
    uint32_t hazard, operand_a, operand_b;
    uint64_t elements;
    uint64_t a, b;
    char expected[VERDICT_TEXT_MAX];
    char given[DIFF_MAX_PLUGINS][VERDICT_TEXT_MAX];
    long handle;              /* its sighting in the pair's recorder */
} diff_sig;

/* What comparing one pair gave (k: the index among the pair's plugins). */
typedef struct pair_result {
    uint32_t na;              /* the pair's plugins */
    uint32_t plugin[DIFF_MAX_PLUGINS]; /* their indexes among all */
    uint64_t cases_run, elements, agree, hazard_elems[HAZARD_COUNT];
    int hazard_first[HAZARD_COUNT]; /* index into sigs, -1: none */
    diff_sig sigs[DIFF_MAX_SIGS];
    uint32_t n_sigs;
    /* per class, an element of it on which a plugin does not compute at
     * all, run alone: what each plugin does there */
    diff_sig outcome[HAZARD_COUNT];
    int outcome_noted[HAZARD_COUNT];
    uint32_t outcome_tries[HAZARD_COUNT];
    uint64_t departed_cases[DIFF_MAX_PLUGINS];
    uint32_t first_cls[DIFF_MAX_PLUGINS]; /* class of its first departure */
    char first_text[DIFF_MAX_PLUGINS][VERDICT_NOTE_MAX + 2 * VERDICT_TEXT_MAX];
    recorder rec;             /* departures and hazards */
} pair_result;

typedef struct diff {
    const diff_options *o;
    FILE *out, *err;
    uint32_t n;               /* plugins */
    worker *w[DIFF_MAX_PLUGINS]; /* the first job's workers */
    worker_info *info[DIFF_MAX_PLUGINS]; /* owned copies */
    char set_name[DIFF_SET_NAME_MAX];
    uint32_t jobs;
    int pinned;
    diff_pair *pairs;
    uint32_t n_pairs;
    casefile_set *cases;
    run_session session;
    store *db;
    int64_t run_id;
    /* the commit side */
    uint32_t departed, with_hazards;
    uint64_t new_signatures;
} diff;

/* Starts plugin k's worker for job `cpu` into *w (its message printed on
 * failure). 0 or -1. */
int diff_start_worker(diff *d, uint32_t k, int cpu, worker **w);

/* pair.c: the engine policy's job side. */
int diff_job_start(void *ctx, engine_job *j);
void diff_job_free(void *ctx, engine_job *j);
int diff_pair_run(void *ctx, engine_job *j, uint64_t u, void **result);
void diff_pair_discard(void *ctx, void *result);

#endif /* HARNESS_DIFF_INTERNAL_H */
