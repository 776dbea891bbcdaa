/* SPDX-License-Identifier: MIT */
/*
 * harness/base/cpumodel.h: the CPUs a claim can be judged under, one table.
 *
 * A plugin that picks its code path from CPUID (an AVX-512 path, an AVX2
 * path, an SSE path) shows on one machine only the path that machine
 * selects. The harness reaches the others by running the worker under
 * QEMU's user-mode emulator (Debian's qemu-user-static), whose CPU models
 * present a chosen feature set to CPUID and XGETBV (harness/worker: the
 * worker program execs the emulator on itself once its sandbox is in
 * place; docs/sandbox.md). This table names those models; `certify --cpu`,
 * `fuzz --cpu` and the worker (worker_options.cpu) all look names up here.
 *
 *   native      the host's own CPU (no emulator)
 *   x86-64-v3   QEMU -cpu Haswell: AVX2, FMA, F16C, BMI1/2, no AVX-512
 *               (aliases v3, haswell, avx2)
 *   x86-64-v2   QEMU -cpu Nehalem: SSE4.2 and POPCNT, no AVX
 *               (aliases v2, nehalem, sse4.2)
 *
 * AVX-512 paths cannot be emulated (QEMU 7.2's TCG has no AVX-512): an
 * AVX-512 host covers them natively. Only an x86-64 host runs the models.
 */
#ifndef HARNESS_BASE_CPUMODEL_H
#define HARNESS_BASE_CPUMODEL_H

#include <stddef.h>

typedef struct cpum_model {
    const char *name;    /* the canonical name: "native", "x86-64-v3", ... */
    const char *aliases; /* other accepted names, comma-separated, "" none */
    const char *qemu;    /* QEMU's -cpu argument; NULL for native */
    int level;           /* the x86-64 psABI level it presents (2, 3); 0 native */
    const char *isa;     /* what it presents, for the certificate */
} cpum_model;

#define CPUM_NATIVE 0 /* the index of "native" */

/* The number of models, and model i (0 <= i < cpum_count()). */
int cpum_count(void);
const cpum_model *cpum_get(int i);

/* The index of the model `name` names (its name or an alias, any case),
 * or -1. */
int cpum_find(const char *name);

/* The x86-64 psABI level of this host's CPU (1-4, from CPUID), 0 when this
 * is no x86-64 machine. */
int cpum_host_level(void);

/* The model one level below the host's (an AVX-512 host: x86-64-v3; an
 * AVX2 host: x86-64-v2), or -1 when there is none to emulate. */
int cpum_below_host(void);

/* The host as the certificate names it: "x86-64-v4: avx512f avx512bw
 * avx512_fp16 ..." (its level, then the vector features that tell paths
 * apart), into buf (cap bytes). */
void cpum_describe_host(char *buf, size_t cap);

/* The emulator: its path (cap bytes) and QEMU's version ("7.2.22"; vcap
 * bytes; "" unknown). 0, or -1 when none is installed (or this is no
 * x86-64 host). Looks at $DIVERGENCE_EMULATOR when set (a path; "" means
 * none: the test hook for a host without it), else
 * /usr/bin/qemu-x86_64-static. The emulator must be a static executable
 * (the worker's view holds the file alone). Answered once per process. */
int cpum_emulator(char *path, size_t cap, char *version, size_t vcap);

/* Why cpum_emulator finds none: not installed, or an AddressSanitizer
 * build (no emulator there). A constant string. */
const char *cpum_no_emulator_why(void);

#endif
