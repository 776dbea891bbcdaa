/* SPDX-License-Identifier: MIT */
/*
 * This file contains the replay of a recorded input on one plugin build
 * (see replay.h), shared by `divergence replay` and `divergence bisect`.
 */
#include "harness/run/replay/replay.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/run/engine/context.h"
#include "oracle/shape.h"

int replay_open(replay *r, const char *path, const char *config, const run_isolation *iso)
{
    char msg[256];
    memset(r, 0, sizeof *r);
    r->path = path;
    verdict_profile_parse("exact", &r->profile, msg, sizeof msg);
    worker_options wo;
    run_isolation def;
    if (!iso) {
        isolation_default(&def, 0);
        iso = &def;
    }
    /* As certify runs it. */
    isolation_worker_options(iso, WORKER_DEFAULT_TIMEOUT_MS, config, (isolation_place){-1, 1}, 0,
                             &wo);
    r->iso = *iso;
    r->config = dvg_strdup(config ? config : "");
    if (!r->config) {
        snprintf(r->error, sizeof r->error, "out of memory");
        return -1;
    }
    if (worker_new(path, &wo, &r->w)) {
        snprintf(r->error, sizeof r->error, "cannot create a worker for %s", path);
        r->w = NULL;
        return -1;
    }
    trial_init(&r->t, r->w, &r->profile);
    return 0;
}

/* The case of `in` in its context, against the answer r->t just judged:
 * 1 the same, 0 it differs (or a call failed there; sunk as a finding of
 * the context's class), -1 a harness error (r->error). */
static int run_context(replay *r, const replay_input *in, verdict_sink sink, void *ctx)
{
    const worker_result *base = &r->t.wr;
    verdict_example ex;
    memset(&ex, 0, sizeof ex);
    ex.cls = in->context_cls;
    ex.index = UINT64_MAX;
    ex.operand_a = ex.operand_b = ORACLE_OPERAND_COUNT;
    ex.elements = 1; /* not accepted: whether it counts is the certificate's (the
                        capabilities declared); a replay shows whether it happens */
    if (!r->t.valid || base->outcome != WORKER_OUT_OK || !base->computed)
        return 1; /* no answer to compare with: the trial judged it */
    uint32_t kind = context_probe_of_class(in->context_cls);
    if (kind) {
        worker_probe_result pr;
        if (!worker_probe_applies(in->c, base, kind))
            return 1;
        if (worker_probe(r->w, in->c, base, kind, &pr, &r->context) < 0) {
            snprintf(r->error, sizeof r->error, "%s", worker_errmsg(r->w));
            return -1;
        }
        if (pr.internal || (pr.ran && !pr.n_differ))
            return 1;
        snprintf(ex.note, sizeof ex.note, "%s", pr.note);
    } else if (in->context_cls == ORACLE_CLASS_THREAD_COUNT_DIFFERS && in->threads) {
        worker_options wo;
        context_env env = {0};
        worker *tw = NULL;
        int rc = -1;
        if (context_threads_options(&r->iso, r->config, 1, in->threads, &wo, &env) ||
            worker_new(r->path, &wo, &tw)) {
            snprintf(r->error, sizeof r->error, "cannot create a worker of %u threads for %s",
                     in->threads, r->path);
            goto threads_done;
        }
        rc = context_threads_compare(tw, in->threads, in->c, base, &r->context, ex.note,
                                     sizeof ex.note);
        if (rc < 0)
            snprintf(r->error, sizeof r->error, "%s", worker_errmsg(tw));
threads_done:
        worker_free(tw);
        context_env_free(&env);
        if (rc != 0)
            return rc;
    } else {
        return 1;
    }
    if (sink)
        sink(ctx, in->c, &ex);
    return 0;
}

/* The case of `in`, a performance cliff whose values r->t just judged
 * conforming, timed again against the recorded median: 0 still a cliff
 * (sunk), 1 not, -1 a harness error. */
static int run_pace(replay *r, const replay_input *in, verdict_sink sink, void *ctx)
{
    trial *t = &r->t;
    const worker_info *info = worker_get_info(r->w);
    if (!t->valid || t->wr.outcome != WORKER_OUT_OK || !t->wr.computed || !t->wr.count)
        return 1;
    if (info && strcmp(info->cpu_model, "native") != 0) {
        snprintf(r->timed, sizeof r->timed, "not timed: the CPU is emulated (%s)",
                 info->cpu_model);
        return 1;
    }
    uint64_t ns = pace_case_ns(&t->wr);
    if (trial_retime(t, in->c, &ns) < 0) {
        snprintf(r->error, sizeof r->error, "%s", t->error);
        return -1;
    }
    double per = (double)ns / (double)t->wr.count;
    int slow = pace_is_cliff(per, in->cliff_median, ns);
    snprintf(r->timed, sizeof r->timed,
             "compute took %.3g ns per element (%" PRIu64 " elements, %.3g ms; timed twice, the "
             "lesser), %.1f times the recorded median (%.3g ns per element; a cliff from %u times)",
             per, t->wr.count, (double)ns / 1e6, per / in->cliff_median, in->cliff_median,
             PACE_RATIO);
    if (!slow)
        return 1;
    trial_case_finding(ORACLE_CLASS_PERFORMANCE_CLIFF, 0, r->timed, in->c, NULL, sink, ctx);
    return 0;
}

int replay_run(replay *r, const replay_input *in, verdict_sink sink, void *ctx)
{
    char msg[640];
    if (!r->w) {
        snprintf(r->error, sizeof r->error, "no worker for %s", r->path ? r->path : "?");
        return -1;
    }
    if (in->n_before)
        worker_renew(r->w); /* the calls from the state open() left */
    for (size_t i = 0; i < in->n_before; i++)
        if (trial_run(&r->t, &in->before[i], NULL, NULL, NULL) < 0) {
            snprintf(r->error, sizeof r->error, "earlier call %zu: %s", i + 1, r->t.error);
            return -1;
        }
    int v = trial_run(&r->t, in->c, NULL, sink, ctx);
    if (v < 0) {
        snprintf(r->error, sizeof r->error, "%s", r->t.error);
        return -1;
    }
    if (r->t.wr.outcome == WORKER_OUT_LOAD_ERROR) {
        snprintf(r->error, sizeof r->error, "cannot load %s: %s", r->path,
                 worker_result_format(&r->t.wr, msg, sizeof msg));
        return -1;
    }
    r->timed[0] = '\0';
    if (v == 1 && in->context_cls != ORACLE_CLASS_MATCH)
        v = run_context(r, in, sink, ctx);
    else if (v == 1 && in->cliff_median > 0)
        v = run_pace(r, in, sink, ctx);
    return v;
}

const worker_info *replay_plugin(const replay *r)
{
    return r->w ? worker_get_info(r->w) : NULL;
}

void replay_close(replay *r)
{
    if (!r)
        return;
    trial_free(&r->t);
    worker_free(r->w);
    worker_result_free(&r->context);
    dvg_free(r->config);
    r->config = NULL;
    r->w = NULL;
}

void replay_input_for(replay_input *in, const divcase *c, const casefile_set *calls,
                      const char *cls, const char *note)
{
    memset(in, 0, sizeof *in);
    in->c = c;
    in->before = calls ? calls->cases : NULL;
    in->n_before = calls ? calls->count : 0;
    int k = oracle_class_by_name(cls);
    if (k > 0 && context_probe_of_class((uint32_t)k))
        in->context_cls = (uint32_t)k;
    if (k == ORACLE_CLASS_PERFORMANCE_CLIFF)
        in->cliff_median = pace_median_of_note(note);
    if (k == ORACLE_CLASS_THREAD_COUNT_DIFFERS && context_threads_of_note(note)) {
        in->context_cls = (uint32_t)k;
        in->threads = context_threads_of_note(note);
    }
}

int replay_parse_calls(const char *text, casefile_set **set, char *why, size_t len)
{
    casefile_error err;
    *set = NULL;
    if (!text || !text[0])
        return 0;
    if (casefile_parse_string("calls_before", text, strlen(text), ORACLE_MAX_ELEMENTS, set,
                              &err)) {
        snprintf(why, len, "the earlier calls: %s", err.text);
        *set = NULL;
        return -1;
    }
    return 0;
}
