/* SPDX-License-Identifier: MIT */
/*
 * harness/run/inspect/inspect.h: one plugin loaded in a worker and its
 * descriptor shown (`divergence plugins`).
 */
#ifndef HARNESS_RUN_INSPECT_H
#define HARNESS_RUN_INSPECT_H

#include <stdint.h>
#include <stdio.h>

/*
 * Loads the plugin at `path` in a worker, with the grants `grants`
 * (WORKER_GRANT_* bits, harness/sandbox/grant.h) and a call timeout of
 * `timeout_ms` (0: the worker's default), validates its descriptor and
 * prints it on out: name, version, ABI, claims, declared deviations, the
 * sandbox, capabilities, ISA levels. Returns 0 when the plugin loads;
 * 2 when it does not, with "divergence plugins: PATH: reason" on err (a
 * plugin whose open() failed, a missing device, has its descriptor
 * printed first).
 */
int inspect_plugin(const char *path, uint32_t grants, uint32_t timeout_ms, FILE *out, FILE *err);

#endif
