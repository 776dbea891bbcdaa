/* SPDX-License-Identifier: MIT */
/*
 * harness/run/campaign/campaign.h: the built-in fuzzing campaign (`divergence fuzz`)
 * and the import of findings from libFuzzer and AFL++ (`divergence
 * import`). No clang needed: cases come from structured random generation
 * (harness/cases/gen.h) and from mutating the corpus's bytes and decoding them
 * (harness/cases/decode.h), run in isolated workers on every core, judged against
 * the oracle. Every new finding is minimised (one element, simplest
 * operands of the same classes, smallest shape) and stored deduplicated
 * by signature.
 *
 * Differential mode (several plugins): each case goes through every
 * plugin, each in its own worker, on the (variant, dtype) pairs they all
 * claim. Besides each plugin's departures from the oracle (findings of
 * that plugin), the campaign looks for elements where every plugin that
 * computed the case conforms but their bits differ (a portability hazard,
 * harness/run/engine/crosscheck.h): minimised the same way (while the plugins
 * still disagree with the same hazard class) and stored once per
 * signature as a finding of the plugin set ("a|b"), named by its class.
 * Hazards are reported; they do not make the exit status 1.
 *
 * Reproducible: case number i of shard k of N is a function of (seed,
 * i * N + k) alone, so the same seed and shard give the same cases on any
 * machine, whatever the number of jobs; the N shards of a seed together
 * run the cases of the unsharded run.
 */
#ifndef HARNESS_CAMPAIGN_H
#define HARNESS_CAMPAIGN_H

#include <stdint.h>
#include <stdio.h>
#include "harness/run/engine/crosscheck.h"
#include "harness/run/engine/isolation.h"

#define CAMPAIGN_MAX_PLUGINS CROSSCHECK_MAX_PLUGINS

typedef struct campaign_options {
    const char *plugin_paths[CAMPAIGN_MAX_PLUGINS]; /* --plugin, in order */
    uint32_t n_plugins;        /* 1; or several: the differential mode */
    const char *config;        /* open() config; NULL: "" */
    const char *db_path;       /* NULL: STORE_DEFAULT_PATH */
    const char *corpus_dir;    /* NULL: the data directory's corpus/div; "": none */
    const char *args;          /* the resume key (cli_run_key), runs.args */
    const char *resume_command; /* fuzz: what continues the run when a
                                   signal stops it (cli_resume_command) */
    double seconds;            /* wall-clock budget; 0: until max_cases */
    uint64_t max_cases;        /* 0: until the time budget */
    uint32_t jobs;             /* jobs, a worker per plugin each (the run
                                  engine's, harness/run/engine/engine.h);
                                  0: one per CPU the process may use; import:
                                  1 */
    uint64_t seed;
    uint32_t shard_index, shard_count; /* shard_count 0 or 1: unsharded */
    uint32_t max_elements;     /* per tensor */
    verdict_profile profile;
    int progress;              /* 1: a status line on stderr */
    int stop_on_finding;       /* 1: end the campaign at its first finding */
    int pin;                   /* job i and its worker on the i-th CPU
                                  (harness/base/affinity.h): 1 when the jobs fit,
                                  0 never, -1 (default) when the jobs are as
                                  many as the CPUs the process may use */
    int resume;                /* fuzz: 1 continues the latest incomplete
                                  fuzz run of the same command line and
                                  plugin build (harness/run/engine/resume.h) from the
                                  cases its counts hold; --seconds then
                                  budgets this session; none: a new run */
    run_isolation iso;         /* the workers' timeout, limits, sandbox,
                                  environment */
} campaign_options;

/* A fuzz run records its counts every CAMPAIGN_CHECKPOINT_S seconds (the
 * jobs pause between cases for it), so that a run killed at any moment
 * keeps its counts up to the last checkpoint and --resume can go on from
 * there: cases after it are judged again, the findings they had already
 * recorded are known to the run and not recorded twice. */
#define CAMPAIGN_CHECKPOINT_S 1.0

/* Defaults: 60 s, one job per CPU, seed 1, unsharded, 64 elements, 2 s
 * timeout, profile exact, progress when stderr is a terminal, the worker's
 * limits (isolation_default). */
void campaign_options_default(campaign_options *o);

/*
 * Runs the campaign and prints its summary to `out` (cases, elements,
 * rates, findings new and already known). Returns 0 when nothing was
 * found, 1 when something was, 2 on usage or environment errors.
 */
int campaign_run(const campaign_options *o, FILE *out, FILE *err);

/*
 * Imports finding files written by libFuzzer or AFL++ (the raw inputs of
 * fuzz/fuzz_div.c): each is decoded with the plugin's claims, re-run in a
 * worker, judged, minimised and stored as a run of kind 'import', in the
 * order of the files (a directory's in name order). `paths` may name files
 * or directories. Exit status as campaign_run.
 */
int campaign_import(const campaign_options *o, char **paths, int n_paths, FILE *out,
                    FILE *err);

#endif /* HARNESS_CAMPAIGN_H */
