/* SPDX-License-Identifier: MIT */
/*
 * harness/run/engine/engine.h: the run engine's job pool, which every
 * command drives (certify, diff, sweep, fuzz and import, onnx-tests).
 *
 * A command is a case source plus a policy. The source cuts its work into
 * units numbered 0, 1, 2, ...; the pool runs them on `jobs` jobs, each a
 * thread with its own state (the command's: its workers, one per plugin,
 * started in the calling thread so that they outlive the job's thread),
 * one unit at a time, and hands each unit's result to the command's
 * commit, always in the calling thread, one at a time: the store's single
 * writer. With `ordered`, results are committed in unit order (a reorder
 * buffer holds the ones that finish early, and a job does not run more
 * than ENGINE_WINDOW units ahead of the commits), so what is stored and
 * printed, the ids included, does not depend on the number of jobs or on
 * which job ran a unit. Without it (a fuzz campaign, a sweep), results are
 * committed as they come.
 *
 * Stop conditions: a unit's run or its commit may stop the pool (return
 * 1); the command's `stop` is asked before each unit is taken (a deadline,
 * a case budget), and so is interrupt_signal (SIGINT, SIGTERM, SIGHUP:
 * harness/base/interrupt.h; the command tells that stop by asking it
 * too); an error (-1) stops it too. Progress: `tick` in the
 * calling thread every tick_s seconds and once at the end. Checkpoints:
 * every checkpoint_s seconds the jobs are paused between two units and
 * `checkpoint` runs in the calling thread (what --resume continues).
 *
 * The jobs run on the CPUs the process may use (harness/base/affinity.h):
 * engine_jobs gives the default count, engine_pin the pinning rule.
 */
#ifndef HARNESS_RUN_ENGINE_H
#define HARNESS_RUN_ENGINE_H

#include <stdint.h>
#include <stdio.h>

/* The most jobs a pool runs, and how far ahead of the commits an ordered
 * pool's jobs may run (units per job). */
#define ENGINE_MAX_JOBS 64
#define ENGINE_WINDOW 8

/* A job: its index (0 .. jobs - 1), its CPU (-1: not pinned) and the
 * command's state for it. */
typedef struct engine_job {
    uint32_t index;
    int cpu;
    void *state;
} engine_job;

typedef struct engine_policy {
    void *ctx;              /* the command's, passed to every callback */
    uint32_t jobs;          /* 1 .. ENGINE_MAX_JOBS */
    int pin;                /* pin job i and its workers to a CPU (engine_pin) */
    uint64_t units;         /* units to run; UINT64_MAX: until a stop */
    int ordered;            /* 1: commits in unit order */
    /* Starts job j (sets j->state), in the calling thread before any job
     * runs. 0, or -1 (its message printed): the pool does not run. */
    int (*job_start)(void *ctx, engine_job *j);
    /* Frees what job_start made, all or part of it. May be NULL. */
    void (*job_free)(void *ctx, engine_job *j);
    /* Runs unit u in job j's thread, its result into *result (the
     * command's, NULL allowed). 0, 1 stop the pool after this unit (its
     * result is committed), -1 an error (its message printed; *result, if
     * set, is discarded). */
    int (*run)(void *ctx, engine_job *j, uint64_t u, void **result);
    /* Commits unit u's result in the calling thread and frees it. 0, 1
     * stop the pool (no later unit is committed), -1 an error. */
    int (*commit)(void *ctx, uint64_t u, void *result);
    /* Frees a result that is not committed (after a stop or an error).
     * May be NULL. */
    void (*discard)(void *ctx, void *result);
    /* 1 when no further unit may be taken (a deadline, a budget): asked
     * in a job's thread before it takes a unit, not under the pool's
     * lock. May be NULL. */
    int (*stop)(void *ctx);
    /* Progress, in the calling thread, every tick_s seconds while the
     * jobs run and once with `last` 1 after they ended. May be NULL. */
    void (*tick)(void *ctx, int last);
    double tick_s;
    /* A checkpoint, every checkpoint_s seconds, with the jobs paused
     * between units. 0, or -1: the pool stops (an error). May be NULL. */
    int (*checkpoint)(void *ctx);
    double checkpoint_s;
} engine_policy;

/* The (variant, dtype) pairs a run is asked for (--variant V ..., --dtype
 * T ...): none named of one, every one of it. */
#define RUN_MAX_FILTERS 32
typedef struct run_filter {
    uint32_t variants[RUN_MAX_FILTERS]; /* DVG_VARIANT_* */
    uint32_t n_variants;
    uint32_t dtypes[RUN_MAX_FILTERS];   /* DVG_DTYPE_* */
    uint32_t n_dtypes;
} run_filter;

/* 1 when the filter selects (variant, dtype). */
int run_filter_selects(const run_filter *f, uint32_t variant, uint32_t dtype);

/* 1 when the filter names a variant or a dtype (its messages say "that
 * the filters select"). */
int run_filter_any(const run_filter *f);

/* A sharded run (--shard I/N): unit k (a claim, a sweep's chunk) belongs
 * to shard I when k mod N = I; with N <= 1 every unit does. */
int run_shard_holds(uint32_t index, uint32_t count, uint64_t k);

/* 0 when --shard I/N is well formed (N <= 1, or I < N); else -1 with
 * "divergence CMD: shard I/N: the index must be below the count" on err. */
int run_shard_check(const char *cmd, uint32_t index, uint32_t count, FILE *err);

/* The jobs a pool runs when none is asked for: one per CPU this process
 * may use, at most ENGINE_MAX_JOBS. */
uint32_t engine_jobs(void);

/* The pinning rule (fuzz's): `pin` 1 pins when the jobs fit the CPUs, 0
 * never, -1 (the default) when the jobs are as many as the CPUs. Returns 1
 * when job i and its workers go to CPU engine_cpu(i, jobs). */
int engine_pin(int pin, uint32_t jobs);

/* The CPU of job i of `jobs` when pinned (affinity_cpu_for_job), else -1. */
int engine_cpu(int pinned, uint32_t i, uint32_t jobs);

/*
 * Runs the pool: starts the jobs, runs and commits units until they are
 * done, a stop or an error, and frees the jobs. Returns 0 when every unit
 * (or every unit up to a stop) was committed, 1 when a stop ended it
 * early (by a unit, a commit or `stop`), -1 on an error (a callback's, or
 * the pool's own: memory, threads, with a message on err prefixed
 * "divergence COMMAND: ").
 */
int engine_run(const engine_policy *p, const char *command, FILE *err);

/* Calls fn(ctx, i) for every i in [0, n), in any order, on up to
 * `threads` threads (the calling one among them): work that must be done
 * before a pool's units can be cut, such as certify's plan of each claim.
 * fn must be safe to call from several threads at once. Returns 0, or -1
 * when a call returned non-zero (the items not yet taken are then left
 * undone). */
int engine_each(uint32_t threads, size_t n, int (*fn)(void *ctx, size_t i), void *ctx);

/* Seconds of CLOCK_MONOTONIC. */
double engine_now(void);

#endif /* HARNESS_RUN_ENGINE_H */
