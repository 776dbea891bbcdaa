/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/options.c: worker_options' defaults (worker.h). Both
 * sides use them: the harness's client when it makes a worker, the
 * worker program (harness/worker_program/) for what its setup message
 * leaves unsaid; it is part of dvg_wire, the protocol both link.
 */
#include <string.h>
#include <unistd.h>

#include "harness/worker/worker.h"

void worker_options_default(worker_options *o)
{
    memset(o, 0, sizeof *o);
    o->config = "";
    o->timeout_ms = WORKER_DEFAULT_TIMEOUT_MS;
    o->max_bytes = WORKER_DEFAULT_MAX_BYTES;
    o->cpu = -1;
    o->limit_pids = worker_limit_pids();
}

void worker_options_limited(worker_options *o)
{
    worker_options_default(o);
    o->confine = 1;
    o->capture_output = 1;
    o->limit_as_bytes = WORKER_LIMIT_AS;
    o->limit_cpu_s = WORKER_LIMIT_CPU_S;
    o->limit_fsize_bytes = WORKER_LIMIT_FSIZE;
}

uint32_t worker_limit_pids(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_CONF);
    return cpus > 128 ? (uint32_t)(8 * cpus) : 1024u;
}
