/* SPDX-License-Identifier: MIT */
/*
 * harness/run/certify/certify.h: certification of one plugin. For each claimed
 * (variant, dtype) pair: the conformance cases of cases/, the edge-value
 * cross product, and seeded random cases biased to edge values, each run in
 * an isolated worker and judged against the oracle; findings go into the
 * store; a certificate per claim is printed.
 */
#ifndef HARNESS_CERTIFY_H
#define HARNESS_CERTIFY_H

#include <stdint.h>
#include <stdio.h>
#include "harness/judge/verdict.h"
#include "harness/run/engine/engine.h"
#include "harness/run/engine/isolation.h"

/* A call that outlives its timeout (a hang) ends its case, not its claim:
 * the claim's other cases still run, until this many hangs (each costs a
 * timeout and a fresh worker) stop it. */
#define CERTIFY_MAX_HANGS 3u

/* The most CPU models one certification judges under. */
#define CERTIFY_MAX_CPUS 8

/* The default's emulated sample: the edge cases, and of the shape-path
 * cases of at most this many elements (A and B together) the first of
 * each inner size and the first of each pattern (a broadcast pattern at
 * any inner size and rank, an alignment): every remainder and pattern
 * once, none of the large tiers. */
#define CERTIFY_SAMPLE_ELEMENTS 4096u

typedef struct certify_options {
    const char *plugin_path;
    const char *config;            /* open() config; NULL: "" */
    const char *db_path;           /* NULL: STORE_DEFAULT_PATH */
    const char *cases_dir;         /* NULL: the data directory's cases/; "" none */
    const char *args;              /* the resume key (cli_run_key), runs.args */
    const char *resume_command;    /* what continues the run when a signal
                                      stops it (cli_resume_command) */
    run_filter only;               /* the claims judged (none named: all) */
    verdict_profile profile;
    uint64_t seed;
    uint32_t random_cases;         /* per claim */
    uint32_t max_elements;         /* per random case */
    int shape_paths;               /* 1: the shape-path cases of
                                      harness/cases/shapes.h too */
    uint32_t shape_tier;           /* their largest size tier: 2^k + 1
                                      elements (at most SHAPES_MAX_TIER) */
    uint32_t max_hangs;            /* a claim stops after this many hangs
                                      (default CERTIFY_MAX_HANGS) */
    uint32_t shard_index;          /* --shard i/N: this process judges the */
    uint32_t shard_count;          /* selected claims k with k % N == i (k
                                      counts the selected claims in the
                                      plugin's order); shard_count 0 or 1:
                                      all of them */
    int progress;                  /* 1: progress line on stderr */
    int verbose;                   /* 1: every reproducer, not one per class */
    int resume;                    /* 1: continue the latest incomplete
                                      certify run of the same command line
                                      and plugin build (harness/run/engine/resume.h):
                                      the claims it certified are kept, the
                                      others judged; none: a new run */
    run_isolation iso;             /* the workers' timeout, limits, sandbox,
                                      environment */
    uint32_t jobs;                 /* jobs, each with its worker (--jobs;
                                      0: engine_jobs(), a CPU each) */
    int pin;                       /* engine_pin: -1 auto, 0 never, 1 */
    int probes;                    /* 1 (default): a sample of each claim's
                                      cases in the calling contexts (two
                                      instances at once, one instance from
                                      two threads, in place): docs/contexts.md */
    int thread_counts;             /* 1 (default): its largest cases at the
                                      thread counts 1, 2, 3, CPUs + 1 */
    uint8_t cpus[CERTIFY_MAX_CPUS]; /* --cpu: the CPU models (harness/base/
                                      cpumodel.h indices) each claim is
                                      judged under, every case under each;
                                      n_cpus 0: the default, native and, on
                                      the sample (CERTIFY_SAMPLE_ELEMENTS),
                                      the model one level below the host
                                      when the emulator is installed */
    uint32_t n_cpus;
} certify_options;

/* Fills the defaults: profile exact, seed 1, 200 random cases of at most
 * 64 elements per claim, the shape-path cases up to tier SHAPES_MAX_TIER,
 * 2 s timeout per plugin call, stop a claim at its first hang (CRASHED),
 * progress when stderr is a terminal, a job per CPU (pinned when they are
 * as many), and the worker's limits (isolation_default: confined, output
 * captured, WORKER_LIMIT_AS of memory, WORKER_LIMIT_CPU_S per call). */
void certify_options_default(certify_options *o);

/*
 * Runs the certification and prints the certificate table to `out` and
 * errors to `err`. Each claim's cases depend on (seed, variant, dtype)
 * alone, so the N shards of a seed together judge exactly the cases of the
 * unsharded run, and `divergence db merge` of their databases gives its
 * counts. A shard that holds no claim succeeds with an empty run.
 *
 * The claims' cases run on the run engine's jobs (harness/run/engine/
 * engine.h), in units of consecutive cases of one claim, and are folded
 * into their claim in case order, where a claim's stop rules (its hangs,
 * the shape stage's incomplete cases) apply: the certificates, counts,
 * findings and signature ids are the same for every number of jobs.
 *
 * Returns the process exit status: 0 every claim holds, 1 a claim does
 * not, 2 usage or environment errors (plugin fails to load, database
 * cannot be opened, malformed case files).
 */
int certify_run(const certify_options *o, FILE *out, FILE *err);

/* A claim's findings wait in memory and are recorded, with its counts and
 * certificate, in one transaction when the claim is done: another writer of
 * the same database never waits for a whole claim, and a claim is in the
 * store entirely or not at all (what --resume relies on). Past this many
 * bytes of held cases, further sightings of a signature are counted
 * without their case. */
#define CERTIFY_HELD_BYTES (UINT64_C(32) << 20)

#endif /* HARNESS_CERTIFY_H */
