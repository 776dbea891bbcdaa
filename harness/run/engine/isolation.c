/* SPDX-License-Identifier: MIT */
/*
 * This file contains the isolation options a run shares with every other
 * (see isolation.h): their defaults, the worker options they give, and the
 * sandbox line of a run's header.
 */
#include "harness/run/engine/isolation.h"

#include "harness/base/cpumodel.h"

#include <string.h>

void isolation_default(run_isolation *iso, uint32_t timeout_ms)
{
    memset(iso, 0, sizeof *iso);
    iso->timeout_ms = timeout_ms;
    iso->memory_limit = WORKER_LIMIT_AS;
    iso->cpu_limit_s = WORKER_LIMIT_CPU_S;
}

void isolation_worker_options(const run_isolation *iso, uint32_t default_timeout_ms,
                              const char *config, isolation_place at, int quiet,
                              worker_options *wo)
{
    worker_options_limited(wo);
    wo->limit_as_bytes = iso->memory_limit;
    wo->limit_cpu_s = iso->cpu_limit_s;
    wo->config = config;
    wo->timeout_ms = iso->timeout_ms ? iso->timeout_ms : default_timeout_ms;
    wo->cpu = at.cpu;
    wo->output_total = WORKER_OUTPUT_TOTAL / (at.workers ? at.workers : 1);
    wo->quiet = quiet;
    wo->sandbox = iso->sandbox;
    wo->env = iso->env;
    wo->n_env = iso->n_env;
    wo->grants = iso->grants;
    snprintf(wo->cpu_model, sizeof wo->cpu_model, "%s",
             iso->cpu_model > 0 ? cpum_get(iso->cpu_model)->name : "");
}

const char *isolation_describe_cpu(int model, uint64_t sample_cases, char *buf, size_t cap)
{
    const cpum_model *m = cpum_get(model);
    if (!m || !m->qemu) {
        char host[200];
        cpum_describe_host(host, sizeof host);
        snprintf(buf, cap, "native (%s)", host);
        return buf;
    }
    char version[32] = "";
    cpum_emulator(NULL, 0, version, sizeof version);
    char sample[64] = "";
    if (sample_cases != UINT64_MAX)
        snprintf(sample, sizeof sample, ", sample of %llu cases", (unsigned long long)sample_cases);
    snprintf(buf, cap, "%s emulated (%s; qemu %s%s)", m->name, m->isa, version[0] ? version : "?",
             sample);
    return buf;
}

const char *isolation_report_sandbox(const char *cmd, const worker_info *in, FILE *out,
                                     FILE *err, char *buf, size_t cap)
{
    uint32_t layers = in->layers;
    worker_describe_sandbox(layers, in->grants, buf, cap);
    if (out)
        fprintf(out, "  sandbox: %s%s\n", buf,
                layers & WORKER_LAYER_OFF ? "  *** THE PLUGIN RAN UNCONFINED ***" : "");
    if (err && (layers & WORKER_LAYER_OFF))
        fprintf(err, "divergence %s: WARNING: --sandbox off: the plugin runs with all of this "
                     "process's rights (files, network, terminal, the database); its results "
                     "are not evidence\n", cmd);
    return buf;
}
