/* SPDX-License-Identifier: MIT */
/*
 * harness/run/engine/isolation.h: how a run confines its plugin's workers,
 * the options every command shares (--timeout, --memory-limit,
 * --cpu-limit, --sandbox, --env, --grant) in one struct that each command's options
 * embed, their translation into worker_options, and the sandbox line a
 * run's header prints.
 */
#ifndef HARNESS_RUN_ISOLATION_H
#define HARNESS_RUN_ISOLATION_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "harness/worker/worker.h"

typedef struct run_isolation {
    uint32_t timeout_ms;       /* per plugin call; 0: the command's default */
    uint64_t memory_limit;     /* bytes of address space a worker may add
                                  (worker_options.limit_as_bytes); 0: none */
    uint32_t cpu_limit_s;      /* CPU seconds per plugin call; 0: none */
    int32_t sandbox;           /* WORKER_SANDBOX_* (--sandbox; 0: auto) */
    const char *const *env;    /* --env K=V for the plugin, n_env of them
                                  (borrowed: they outlive the run) */
    uint32_t n_env;
    uint32_t grants;           /* --grant NAME: WORKER_GRANT_* bits */
    int32_t cpu_model;         /* the CPU the plugin sees (--cpu of fuzz and
                                  replay; a harness/base/cpumodel.h index,
                                  CPUM_NATIVE (0) the default) */
    char isa[WORKER_ISA_NAME_MAX]; /* "": none; else the ISA level the
                                  plugin is forced to natively (open_with's
                                  isa, worker_options.isa), cpu_model then
                                  the model it stands for */
} run_isolation;

/* The defaults: timeout_ms, the worker's limits (WORKER_LIMIT_AS of
 * memory, WORKER_LIMIT_CPU_S per call), the sandbox auto, no --env. */
void isolation_default(run_isolation *iso, uint32_t timeout_ms);

/* Where a run's worker runs: its CPU (-1: anywhere), and the workers of
 * the run that share the plugin's output shown on the terminal
 * (WORKER_OUTPUT_TOTAL in all). */
typedef struct isolation_place {
    int cpu;
    uint32_t workers;
} isolation_place;

/* The least time a worker's load and open() get, whatever one call's
 * deadline (fuzz's is 2 s): a library's initialisers take seconds on a
 * loaded or sanitized host (libtorch's load 0.9-2.4 s; the hostile
 * intruder's load under ASan on a busy CI machine more than 2 s). */
#define ISOLATION_LOAD_MS 10000u

/*
 * The worker options of a run under *iso: worker_options_limited (confined,
 * output captured, the file size limit), its limits, sandbox and
 * environment, and its timeout (0: default_timeout_ms), the load and
 * open() at least ISOLATION_LOAD_MS. config: the plugin's open() string
 * (NULL: ""), borrowed; quiet: the plugin's stdout and stderr to
 * /dev/null.
 */
void isolation_worker_options(const run_isolation *iso, uint32_t default_timeout_ms,
                              const char *config, isolation_place at, int quiet,
                              worker_options *wo);

/* One CPU as a run's `cpus:` line names it (docs/commands.md, "The
 * certificate's cpus line"): "native (x86-64-v4:avx512f ...)", or
 * "x86-64-v3 emulated (AVX2/FMA/F16C, no AVX-512; qemu 7.2.22" and, when
 * sample_cases is not UINT64_MAX, ", sample of N cases", then ")". Into
 * buf (cap bytes); returns buf. */
const char *isolation_describe_cpu(int model, uint64_t sample_cases, char *buf, size_t cap);

/*
 * The CPU a sighting was seen under, as its note (reproducers.note) says
 * it: one formatter and its reader, so that `replay` runs a reproducer
 * where it was found. isolation_cpu_note writes "under x86-64-v3
 * (emulated)" for model `model` (a cpumodel.h index) run under the
 * emulator, "emulation-only, unconfirmed: x86-64-v3 (emulated)" instead
 * when `unconfirmed` (a class the emulator can fake), "under x86-64-v3
 * (natively, isa=avx2)" when the plugin was forced to its level `isa`
 * (not NULL or ""); each followed by ": DETAIL" when detail is not empty.
 * Into note (cap bytes); returns note, or NULL (nothing written) for the
 * native CPU, unforced.
 */
const char *isolation_cpu_note(int model, const char *isa, int unconfirmed, const char *detail,
                               char *note, size_t cap);

/* The CPU the start of `note` names in isolation_cpu_note's words, into
 * iso->cpu_model and iso->isa: 1 when it names one, 0 (iso unchanged)
 * when not (a native sighting, or a note of other words). */
int isolation_cpu_from_note(const char *note, run_isolation *iso);

/*
 * The sandbox line of a run's header, "  sandbox: <layers>[ + grant NAME:
 * WHAT]...\n" (worker_describe_sandbox of the layers and grants of the
 * run's worker, `in`), on `out` (and the line as text into buf, cap bytes,
 * WORKER_SANDBOX_TEXT, for the run record); with WORKER_LAYER_OFF also a
 * warning on `err` ("divergence CMD: WARNING: ..."). out and err may be
 * NULL. Returns buf.
 */
const char *isolation_report_sandbox(const char *cmd, const worker_info *in, FILE *out,
                                     FILE *err, char *buf, size_t cap);

#endif /* HARNESS_RUN_ISOLATION_H */
