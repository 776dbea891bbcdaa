/* SPDX-License-Identifier: MIT */
/*
 * harness/run/replay/replay.h: a recorded input run again on one plugin build -
 * the code `divergence replay` and `divergence bisect` share (one
 * function, replay_run, for both). A replay holds the build's worker
 * (sandboxed and limited as certify runs a plugin, worker_options_limited)
 * and a trial under the exact profile; several inputs may run on one
 * replay, one after the other, on the same worker.
 *
 * What is replayed is a replay_input: today a reproducer's case. A
 * reproducer that keeps the calls made before it (a call sequence, for
 * cache-key bugs) adds them to replay_input, and replay_run plays them on
 * the worker before the case; its callers stay as they are.
 */
#ifndef HARNESS_REPLAY_H
#define HARNESS_REPLAY_H

#include "harness/cases/divcase.h"
#include "harness/judge/verdict.h"
#include "harness/run/engine/isolation.h"
#include "harness/run/engine/trial.h"
#include "harness/worker/worker.h"

/* What one replay runs. Borrowed, read during replay_run only. */
typedef struct replay_input {
    const divcase *c; /* the case (a reproducer's, store_reproducer_load) */
} replay_input;

typedef struct replay {
    worker *w;               /* the build's worker; owned */
    trial t;                 /* the last input's trial (t.wr, t.plan, ...) */
    verdict_profile profile; /* exact */
    const char *path;        /* the build's file; borrowed from replay_open */
    char error[1024];        /* why the last call failed */
} replay;

/*
 * Sets up a replay of the plugin at `path` (kept: it must outlive the
 * replay) opened with `config` (open()'s string, the one the finding was
 * recorded with; NULL: ""; copied) under `iso` (the run's isolation
 * options: timeout, limits, sandbox, --env, grants; NULL: the defaults):
 * its worker, not started (the first replay_run loads the plugin). Returns
 * 0, or -1 with the reason in r->error; replay_close follows either way.
 */
int replay_open(replay *r, const char *path, const char *config, const run_isolation *iso);

/*
 * Runs `in` on the replay's build and judges it (harness/run/engine/trial.h),
 * calling sink (may be NULL) once per distinct finding, as verdict_case
 * does. Returns 1 when the build conforms on it, 0 when it departs, -1 on
 * a harness error or when the build cannot be loaded (r->error names the
 * file and why).
 */
int replay_run(replay *r, const replay_input *in, verdict_sink sink, void *ctx);

/* The build's descriptor as its worker read it (name, version, ...);
 * NULL before a replay_run loaded it. Owned by the replay. */
const worker_info *replay_plugin(const replay *r);

/* Frees the worker and the trial. Accepts NULL and a replay that
 * replay_open failed on. */
void replay_close(replay *r);

#endif /* HARNESS_REPLAY_H */
