/* SPDX-License-Identifier: MIT */
/*
 * harness/run/engine/history.h: the calls of a worker's life, and the
 * probe that tells whether a departure needs them.
 *
 * A plugin may keep state from call to call (a compiled-kernel cache keyed
 * by too little: shapes but not the dtype, or not an attribute); its
 * departure then shows only after certain earlier calls, and a
 * reproducer of the case alone conforms. A history keeps the last
 * HISTORY_MAX calls of the worker's current life (a child's: a crash, a
 * hang or worker_renew ends it) as the command's keys, never the data:
 * the command builds the case of a key again when the probe needs it.
 *
 * history_explain runs a departing case alone on a fresh child of the
 * worker (worker_renew: the zygote's state after open()), twice; when the
 * class shows in neither run (and both ran to an answer), it runs the case after the history and, when the
 * class shows then, minimises the calls before it by delta debugging
 * (ddmin over the calls, each test on a fresh child) to a sequence after
 * which it still shows and from which no call can be dropped. The finding
 * is then of class depends-on-earlier-calls, stored with that sequence
 * (reproducers.calls_before), which `divergence replay` makes first.
 */
#ifndef HARNESS_RUN_HISTORY_H
#define HARNESS_RUN_HISTORY_H

#include <stddef.h>
#include <stdint.h>
#include "harness/cases/divcase.h"
#include "harness/run/engine/trial.h"
#include "harness/worker/worker.h"

/* Calls a life keeps (the oldest go first), the last calls delta
 * debugging starts from, the earlier calls with the case's shapes tried
 * one by one first (a cache keyed by too little is keyed by the shapes),
 * and the most test runs one explanation may make. */
#define HISTORY_MAX 1024u
#define HISTORY_WINDOW 64u
#define HISTORY_SAME_SHAPES 8u
#define HISTORY_MAX_TESTS 64u

typedef struct history {
    uint64_t keys[HISTORY_MAX];  /* oldest first */
    uint64_t shapes[HISTORY_MAX]; /* a hash of each call's operand shapes */
    uint32_t n;
    uint64_t life;              /* worker_spawns of the life they belong to */
    uint64_t calls;             /* calls in that life */
} history;

/* Builds the case of `key` into *c (the command's; it frees it with
 * `release`). 0, or -1 (memory). */
typedef int (*history_build_fn)(void *ctx, uint64_t key, divcase *c);
typedef void (*history_release_fn)(void *ctx, divcase *c);

typedef struct history_source {
    history_build_fn build;
    history_release_fn release;
    void *ctx;
} history_source;

/* An empty history. */
void history_init(history *h);

/* 1 when the history's calls were made in w's current life (no child was
 * started since the last history_push): the calls before the case just
 * run. */
int history_current(const history *h, const worker *w);

/* Notes the call of `key` (case c) just made on w (after it ran): a new
 * life of w starts the history again. */
void history_push(history *h, const worker *w, uint64_t key, const divcase *c);

/* What history_explain found. */
typedef struct history_finding {
    uint64_t keys[HISTORY_WINDOW]; /* the minimised calls before the case */
    uint32_t n;
    uint32_t tests;             /* fresh-child runs it took */
} history_finding;

/*
 * Does the departure of class `cls` in case c (just run on probe->w after
 * the calls of h) need the calls before it? Runs on fresh children of
 * probe->w through `probe` (a trial of its own: the caller's trial is
 * left as it is). Returns 1 with *out (the minimised calls) when c alone
 * does not show cls but does after them; 0 when c shows it alone; 2 when
 * it shows neither alone nor after the history (the calls that set the
 * state up are older than the history, or it comes and goes), or when
 * alone it gave no answer (it hung, crashed or failed there, and cls is
 * none of those: a test that gives no answer never counts as one where
 * the class does not show); -1 on a harness error
 * (probe->error). Afterwards the worker's life holds the last test's
 * calls: h then holds them too (c included, as `key`).
 */
int history_explain(history *h, trial *probe, const divcase *c, uint64_t key, uint32_t cls,
                    const history_source *src, history_finding *out);

/* 1 when a departure of class cls is one history_explain may try: not a
 * hang (a timeout per test), nor a class of the case's own life (a leak,
 * a late write, a slow path) or depends-on-earlier-calls itself. */
int history_probes_class(uint32_t cls);

/* The words of a departure of class cls explained by the calls of *f:
 * "wrong-value only after 1 earlier call on the same worker (ID, ...);
 * alone on a fresh worker the case conforms (3 probe runs)", the ids
 * built from src. Into note (len bytes). */
void history_describe(const history_source *src, uint32_t cls, const history_finding *f,
                      char *note, size_t len);

/*
 * The text of the calls keys[0..n) as one case file (casefile_write, one
 * case per call, named "call1-ID", "call2-ID", ... after its case id),
 * allocated into *text
 * (dvg_free). 0, or -1 (memory, or a case the writer refuses).
 */
int history_calls_text(const history_source *src, const uint64_t *keys, uint32_t n, char **text);

#endif /* HARNESS_RUN_HISTORY_H */
