/* SPDX-License-Identifier: MIT */
/*
 * harness/run/replay/rerun.h: what `divergence replay` runs and prints -
 * one recorded reproducer on one plugin build, or a disagreement among
 * plugins (a hazard of `diff` or a differential fuzz run, a finding of
 * the set "a|b") on every plugin of the set, their outputs compared again
 * (harness/run/engine/crosscheck.h). The command (harness/cli/
 * cmd_replay.c) reads its flags and the reproducer; these run it.
 */
#ifndef HARNESS_RUN_RERUN_H
#define HARNESS_RUN_RERUN_H

#include <stdint.h>
#include <stdio.h>

#include "harness/cases/casefile.h"
#include "harness/run/engine/crosscheck.h"
#include "harness/run/engine/isolation.h"
#include "harness/store/store.h"

/* Plugins in a set a replay re-runs. */
#define RERUN_MAX_PLUGINS CROSSCHECK_MAX_PLUGINS

/*
 * Re-runs case c (reproducer `info`) on the plugin at `plugin`, after the
 * calls of `calls` on a fresh worker when it is not NULL, in its calling
 * context or timed again as recorded, with `config` (NULL: the config the
 * finding was recorded with). Prints the findings and the recorded
 * element now on out, errors on err. Returns the exit status: 0 it now
 * conforms, 1 it still departs, 2 an error.
 */
int rerun_one(const char *plugin, const divcase *c, const store_reproducer *info,
              const char *config, const run_isolation *iso, const casefile_set *calls, FILE *out,
              FILE *err);

/*
 * Re-runs case c, a disagreement of the plugin set info->implementation
 * ("a|b|c") of hazard class `hazard`, on every plugin of the set: the
 * builds run info->run_id links under each name in db, or
 * plugins[0..n_plugins) in the set's order. Prints each plugin's value of
 * the recorded element and whether they still disagree on out, errors on
 * err. Returns the exit status: 0 no plugin departs, 1 one does, 2 an
 * error.
 */
int rerun_set(store *db, const divcase *c, const store_reproducer *info, int hazard,
              const char *const *plugins, uint32_t n_plugins, const char *config,
              const run_isolation *iso, FILE *out, FILE *err);

#endif
