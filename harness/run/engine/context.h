/* SPDX-License-Identifier: MIT */
/*
 * harness/run/engine/context.h: the calling contexts a case runs in again
 * (issue 25; docs/contexts.md), as both certify (which finds their
 * departures) and replay (which shows them again) need them: which worker
 * probe a context class stands for, and the worker of a thread count
 * (open_with's threads and OMP_NUM_THREADS for the libraries that read
 * it), with the note that names the count.
 */
#ifndef HARNESS_RUN_CONTEXT_H
#define HARNESS_RUN_CONTEXT_H

#include <stddef.h>
#include <stdint.h>
#include "harness/run/engine/isolation.h"
#include "harness/worker/worker.h"

/* The class of a finding of probe `kind` (WORKER_PROBE_*): instances-
 * not-concurrent, instance-not-concurrent, in-place-a-wrong or
 * in-place-b-wrong; and the probe whose findings are of class cls (0:
 * none). */
uint32_t context_class_of_probe(uint32_t kind);
uint32_t context_probe_of_class(uint32_t cls);

/* The environment of a thread count's worker: the run's --env and
 * OMP_NUM_THREADS=N. Lives as long as the worker it was made for. */
typedef struct context_env {
    const char **list;
    char omp[32];
} context_env;

/* Worker options as isolation_worker_options gives them (quiet, no CPU
 * of its own), with the plugin's thread count `threads` (open_with),
 * env->list (the run's --env and OMP_NUM_THREADS=threads) and at least
 * CONTEXT_LOAD_MS for the load and open(). 0, or -1 out of memory. */
#define CONTEXT_LOAD_MS 20000u
int context_threads_options(const run_isolation *iso, const char *config, uint32_t workers,
                            uint32_t threads, worker_options *wo, context_env *env);
void context_env_free(context_env *env);

/* Runs case c on tw (a worker of `threads` threads) and compares its
 * answer with base's (the judged run's), bit for bit, using r for the
 * result. 1 the same; 0 it differs or the call did not compute (note, cap
 * bytes, says so: "threads N: ..."); -1 a harness error (worker_errmsg). */
int context_threads_compare(worker *tw, uint32_t threads, const divcase *c,
                            const worker_result *base, worker_result *r, char *note, size_t cap);

/* A thread count's note: "threads N: WHAT" into note (cap bytes);
 * returns note. context_threads_of_note reads N back (0 when the note
 * names none). */
const char *context_threads_note(uint32_t threads, const char *what, char *note, size_t cap);
uint32_t context_threads_of_note(const char *note);

#endif /* HARNESS_RUN_CONTEXT_H */
