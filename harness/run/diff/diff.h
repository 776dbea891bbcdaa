/* SPDX-License-Identifier: MIT */
/*
 * harness/run/diff/diff.h: the differential run across implementations
 * (`divergence diff`). The same cases - the conformance cases of cases/,
 * the edge-value cross product, seeded random cases and one case per
 * unspecified class built on purpose - go through every plugin, each in
 * its own worker, on the (variant, dtype) pairs they all claim (with
 * `partial`, on every pair two of them claim, among those). Each
 * output element is classified:
 *   agree      every plugin gave the same bits;
 *   hazard     every plugin that computed it conforms (the one judge,
 *              verdict_element) but their bits differ: a portability
 *              hazard, named by its class (harness/run/engine/crosscheck.h);
 *   departure  a plugin does not conform (verdict_case's classes), and
 *              which one.
 * Hazards go into the store as findings of the plugin set
 * ("reference|libtorch"), one signature per (hazard class, operand
 * classes); departures as findings of the plugin that departs.
 */
#ifndef HARNESS_DIFF_H
#define HARNESS_DIFF_H

#include <stdint.h>
#include <stdio.h>
#include "harness/run/engine/crosscheck.h"
#include "harness/run/engine/engine.h"
#include "harness/run/engine/isolation.h"

#define DIFF_MAX_PLUGINS CROSSCHECK_MAX_PLUGINS

typedef struct diff_options {
    const char *plugins[DIFF_MAX_PLUGINS]; /* at least 2 */
    uint32_t n_plugins;
    const char *db_path;           /* NULL: STORE_DEFAULT_PATH */
    const char *cases_dir;         /* NULL: the data directory's cases/; "" none */
    const char *args;              /* the command line (runs.args) */
    run_filter only;               /* the pairs compared (none named: all
                                      shared) */
    verdict_profile profile;
    uint64_t seed;
    uint32_t random_cases;         /* per pair */
    uint32_t max_elements;         /* per random case */
    int partial;                   /* 1: also the pairs that only some (at
                                      least two) claim, each compared among
                                      those; its hazards are findings of
                                      that subset */
    const char *config;            /* open()'s string for every plugin (--config;
                                      NULL: ""): each one's implementation is
                                      named with it (worker_implementation_name) */
    run_isolation iso;             /* the workers' timeout, limits, sandbox,
                                      environment */
    uint32_t jobs;                 /* jobs, each with a worker per plugin
                                      (--jobs; 0: engine_jobs()) */
    int pin;                       /* engine_pin: -1 auto, 0 never, 1 */
} diff_options;

/* Defaults: profile exact, seed 1, 100 random cases of at most 64
 * elements per pair, 2 s per plugin call, the worker's limits, a job per
 * CPU. */
void diff_options_default(diff_options *o);

/*
 * Runs the comparison, one pair per unit of the run engine (each job with
 * a worker per plugin), each pair recorded and printed in the order of the
 * pairs: the output and the store's ids are the same for any number of
 * jobs. Prints per (variant, dtype) the table of hazard
 * class x plugin (what each gives), one reproducer per hazard signature,
 * and the departures, to `out`; errors to `err`. Returns the exit status:
 * 0 no plugin departs (hazards are reported, not failures), 1 a plugin
 * departs from the oracle, 2 usage or environment error (a plugin does not
 * load, no pair is shared, the store cannot be opened).
 */
int diff_run(const diff_options *o, FILE *out, FILE *err);

#endif /* HARNESS_DIFF_H */
