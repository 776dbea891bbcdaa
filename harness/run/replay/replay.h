/* SPDX-License-Identifier: MIT */
/*
 * harness/run/replay/replay.h: a recorded input run again on one plugin build -
 * the code `divergence replay` and `divergence bisect` share (one
 * function, replay_run, for both). A replay holds the build's worker
 * (sandboxed and limited as certify runs a plugin, worker_options_limited)
 * and a trial under the exact profile; several inputs may run on one
 * replay, one after the other, on the same worker.
 *
 * What is replayed is a replay_input: a reproducer's case, and the calls
 * its departure needs before it (a depends-on-earlier-calls finding's
 * minimised call sequence, reproducers.calls_before): replay_run makes
 * them on a fresh child of the worker, in their order, then runs the case.
 */
#ifndef HARNESS_REPLAY_H
#define HARNESS_REPLAY_H

#include "harness/cases/casefile.h"
#include "harness/cases/divcase.h"
#include "harness/judge/verdict.h"
#include "harness/run/engine/isolation.h"
#include "harness/run/engine/trial.h"
#include "harness/worker/worker.h"

/* What one replay runs. Borrowed, read during replay_run only. */
typedef struct replay_input {
    const divcase *c; /* the case (a reproducer's, store_reproducer_load) */
    const divcase *before; /* n_before calls made first (not judged); may be NULL */
    size_t n_before;
    /* A calling context's finding (harness/run/engine/context.h): its
     * class (ORACLE_CLASS_MATCH: none) and, for thread-count-differs, the
     * thread count its note names; replay_run runs the case in that
     * context too, as certify did. */
    uint32_t context_cls;
    uint32_t threads;
    /* A performance-cliff finding: the peers' median per element its note
     * names (pace_median_of_note; 0: none); replay_run times the case
     * again (natively) against it. */
    double cliff_median;
} replay_input;

/* The input that replays a reproducer: its case c, the calls `calls`
 * (NULL: none) before it, and, for a calling context's finding (its class
 * name `cls`, its note), the context (the thread count from the note). */
void replay_input_for(replay_input *in, const divcase *c, const casefile_set *calls,
                      const char *cls, const char *note);

/* The calls a reproducer needs before its case (store_reproducer_calls'
 * text, a case file) parsed into *set (NULL when the text is empty; the
 * caller frees it with casefile_set_free). 0, or -1 with the reason in
 * why (len bytes). */
int replay_parse_calls(const char *text, casefile_set **set, char *why, size_t len);

typedef struct replay {
    worker *w;               /* the build's worker; owned */
    trial t;                 /* the last input's trial (t.wr, t.plan, ...) */
    verdict_profile profile; /* exact */
    const char *path;        /* the build's file; borrowed from replay_open */
    run_isolation iso;       /* replay_open's (its --env borrowed) */
    char *config;            /* replay_open's; owned */
    worker_result context;   /* a context's run (a probe, a thread count) */
    char timed[256];         /* a cliff's case timed again: the figures; "" when not timed */
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
 * does; for a context's finding, then runs the case in its context
 * (a worker probe, or a worker of the thread count) and compares it with
 * the answer just judged, as certify's contexts do: a difference (or a
 * call that fails there) is a finding of the context's class, sunk with
 * the probe's words (index UINT64_MAX). For a performance cliff whose
 * values conform, times the case again (trial_retime: the lesser of two
 * timings) against the recorded median: PACE_RATIO times it or more is the
 * finding again (r->timed says the figures either way; not under an
 * emulated CPU, where nothing is timed). Returns 1 when the build conforms
 * on it, 0 when it departs, -1 on a harness error or when the build cannot
 * be loaded (r->error names the file and why).
 */
int replay_run(replay *r, const replay_input *in, verdict_sink sink, void *ctx);

/* The build's descriptor as its worker read it (name, version, ...);
 * NULL before a replay_run loaded it. Owned by the replay. */
const worker_info *replay_plugin(const replay *r);

/* Frees the worker and the trial. Accepts NULL and a replay that
 * replay_open failed on. */
void replay_close(replay *r);

#endif /* HARNESS_REPLAY_H */
