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
    wo->load_timeout_ms = wo->timeout_ms > ISOLATION_LOAD_MS ? wo->timeout_ms : ISOLATION_LOAD_MS;
    wo->cpu = at.cpu;
    wo->output_total = WORKER_OUTPUT_TOTAL / (at.workers ? at.workers : 1);
    wo->quiet = quiet;
    wo->sandbox = iso->sandbox;
    wo->env = iso->env;
    wo->n_env = iso->n_env;
    wo->grants = iso->grants;
    /* Forced to a level the plugin declares: natively, no emulator. */
    snprintf(wo->isa, sizeof wo->isa, "%s", iso->isa);
    snprintf(wo->cpu_model, sizeof wo->cpu_model, "%s",
             iso->cpu_model > 0 && !iso->isa[0] ? cpum_get(iso->cpu_model)->name : "");
}

#define NOTE_UNDER "under "
#define NOTE_UNCONFIRMED "emulation-only, unconfirmed: "
#define NOTE_EMULATED " (emulated)"
#define NOTE_FORCED " (natively, isa="

const char *isolation_cpu_note(int model, const char *isa, int unconfirmed, const char *detail,
                               char *note, size_t cap)
{
    const cpum_model *m = cpum_get(model);
    int forced = isa && isa[0];
    if (!m || (!m->qemu && !forced))
        return NULL;
    const char *sep = detail && detail[0] ? ": " : "";
    if (forced)
        snprintf(note, cap, NOTE_UNDER "%s" NOTE_FORCED "%s)%s%s", m->name, isa, sep,
                 sep[0] ? detail : "");
    else
        snprintf(note, cap, "%s%s" NOTE_EMULATED "%s%s",
                 unconfirmed ? NOTE_UNCONFIRMED : NOTE_UNDER, m->name, sep, sep[0] ? detail : "");
    return note;
}

int isolation_cpu_from_note(const char *note, run_isolation *iso)
{
    size_t skip = strncmp(note, NOTE_UNDER, strlen(NOTE_UNDER)) == 0 ? strlen(NOTE_UNDER)
                  : strncmp(note, NOTE_UNCONFIRMED, strlen(NOTE_UNCONFIRMED)) == 0
                      ? strlen(NOTE_UNCONFIRMED)
                      : 0;
    if (!skip)
        return 0;
    const char *name = note + skip, *paren = strchr(name, ' ');
    char model[32];
    if (!paren || (size_t)(paren - name) >= sizeof model)
        return 0;
    snprintf(model, sizeof model, "%.*s", (int)(paren - name), name);
    int k = cpum_find(model);
    if (k <= 0)
        return 0;
    if (strncmp(paren, NOTE_EMULATED, strlen(NOTE_EMULATED)) == 0) {
        iso->cpu_model = k;
        iso->isa[0] = '\0';
        return 1;
    }
    if (strncmp(paren, NOTE_FORCED, strlen(NOTE_FORCED)) != 0)
        return 0;
    const char *level = paren + strlen(NOTE_FORCED);
    size_t len = strcspn(level, ")");
    if (!len || level[len] != ')' || len >= sizeof iso->isa)
        return 0;
    iso->cpu_model = k;
    snprintf(iso->isa, sizeof iso->isa, "%.*s", (int)len, level);
    return 1;
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
