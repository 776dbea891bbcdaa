/* SPDX-License-Identifier: MIT */
/*
 * This file contains what certify's calling contexts and replay share
 * (context.h): the probe of each context class, a thread count's worker
 * options, and the note that names the count.
 */
#include "harness/run/engine/context.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "oracle/compare.h"

static const struct {
    uint32_t kind, cls;
} probe_classes[] = {
    {WORKER_PROBE_INSTANCES, ORACLE_CLASS_INSTANCES_NOT_CONCURRENT},
    {WORKER_PROBE_INSTANCE, ORACLE_CLASS_INSTANCE_NOT_CONCURRENT},
    {WORKER_PROBE_IN_PLACE_A, ORACLE_CLASS_IN_PLACE_A_WRONG},
    {WORKER_PROBE_IN_PLACE_B, ORACLE_CLASS_IN_PLACE_B_WRONG},
};

uint32_t context_class_of_probe(uint32_t kind)
{
    for (size_t k = 0; k < sizeof probe_classes / sizeof probe_classes[0]; k++)
        if (probe_classes[k].kind == kind)
            return probe_classes[k].cls;
    return ORACLE_CLASS_MATCH;
}

uint32_t context_probe_of_class(uint32_t cls)
{
    for (size_t k = 0; k < sizeof probe_classes / sizeof probe_classes[0]; k++)
        if (probe_classes[k].cls == cls)
            return probe_classes[k].kind;
    return 0;
}

int context_threads_options(const run_isolation *iso, const char *config, uint32_t workers,
                            uint32_t threads, worker_options *wo, context_env *env)
{
    /* quiet: what the plugin prints, the run's own worker shows */
    isolation_worker_options(iso, 5000, config, (isolation_place){-1, workers}, 1, wo);
    snprintf(env->omp, sizeof env->omp, "OMP_NUM_THREADS=%u", threads);
    env->list = dvg_calloc((size_t)iso->n_env + 1, sizeof *env->list);
    if (!env->list)
        return -1;
    for (uint32_t k = 0; k < iso->n_env; k++)
        env->list[k] = iso->env[k];
    env->list[iso->n_env] = env->omp;
    wo->env = env->list;
    wo->n_env = iso->n_env + 1;
    wo->threads = threads;
    /* Loaded afresh (a library that starts threads in open has no
     * zygote): libtorch's load alone takes up to 2.4 s on a loaded host. */
    wo->load_timeout_ms = wo->timeout_ms > CONTEXT_LOAD_MS ? wo->timeout_ms : CONTEXT_LOAD_MS;
    return 0;
}

void context_env_free(context_env *env)
{
    dvg_free(env->list);
    env->list = NULL;
}

int context_threads_compare(worker *tw, uint32_t threads, const divcase *c,
                            const worker_result *base, worker_result *r, char *note, size_t cap)
{
    char line[WORKER_MESSAGE_MAX], what[128];
    if (worker_run(tw, c, &base->shape, r) != 0)
        return -1;
    if (!r->computed) {
        context_threads_note(threads, worker_result_format(r, line, sizeof line), note, cap);
        return 0;
    }
    uint64_t first, n = worker_outputs_differ(base->dtype, base->count, base->out1, r->out1, &first);
    if (!n)
        return 1;
    snprintf(what, sizeof what,
             "%" PRIu64 " elements differ from the judged run's answer (first: element %" PRIu64 ")",
             n, first);
    context_threads_note(threads, what, note, cap);
    return 0;
}

#define THREADS_NOTE "threads %u: "

const char *context_threads_note(uint32_t threads, const char *what, char *note, size_t cap)
{
    char head[32];
    snprintf(head, sizeof head, THREADS_NOTE, threads);
    snprintf(note, cap, "%s%s", head, what);
    return note;
}

uint32_t context_threads_of_note(const char *note)
{
    unsigned threads = 0;
    char colon = 0;
    if (sscanf(note, "threads %u%c", &threads, &colon) != 2 || colon != ':')
        return 0;
    return threads;
}
