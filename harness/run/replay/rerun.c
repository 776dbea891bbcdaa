/* SPDX-License-Identifier: MIT */
/*
 * harness/run/replay/rerun.c: rerun_one and rerun_set, the runs of
 * `divergence replay` (rerun.h).
 */
#include "harness/run/replay/rerun.h"

#include <inttypes.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/judge/verdict.h"
#include "harness/run/engine/context.h"
#include "harness/run/engine/trial.h"
#include "harness/run/replay/replay.h"
#include "harness/worker/worker.h"
#include "oracle/dtype.h"

/* One element of a finding: operands, expected and actual values. */
static void show_elem(FILE *out, uint32_t dtype, const char *label, const verdict_example *ex)
{
    char sa[VERDICT_TEXT_MAX], sb[VERDICT_TEXT_MAX], se[VERDICT_TEXT_MAX], sg[VERDICT_ACTUAL_MAX];
    fprintf(out, "  %s element %" PRIu64 ": %s / %s: expected %s, got %s\n", label, ex->index,
            verdict_bits_text(dtype, ex->a, sa, sizeof sa),
            verdict_bits_text(dtype, ex->b, sb, sizeof sb),
            verdict_elem_text(dtype, &ex->expected, se, sizeof se),
            verdict_actual_text(dtype, ex, sg, sizeof sg));
}

/* The judge's sink of a replay: each finding as it comes, at most 8
 * elements of them. */
typedef struct shown_findings {
    FILE *out;
    uint64_t shown;
} shown_findings;

static int print_finding(void *ctx, const divcase *c, const verdict_example *ex)
{
    shown_findings *sf = ctx;
    FILE *out = sf->out;
    uint64_t *shown = &sf->shown;
    if (ex->index == UINT64_MAX)
        fprintf(out, "  %s: %s\n", oracle_class_name(ex->cls), ex->note);
    else if ((*shown)++ < 8) {
        show_elem(out, c->dtype, oracle_class_name(ex->cls), ex);
        if (ex->elements > 1)
            fprintf(out, "    (%" PRIu64 " elements of this case share the signature)\n",
                    ex->elements);
    }
    return 0;
}

/* The workers and trials of a set replay. */
typedef struct set_replay {
    uint32_t n;
    char names[RERUN_MAX_PLUGINS][WORKER_NAME_MAX + 1];
    char paths[RERUN_MAX_PLUGINS][1024];
    replay r[RERUN_MAX_PLUGINS];
} set_replay;

int rerun_set(store *db, const divcase *c, const store_reproducer *info, int hazard,
              const char *const *plugins, uint32_t n_plugins, const char *config,
              const run_isolation *iso, FILE *out, FILE *err)
{
    set_replay *sr = dvg_calloc(1, sizeof *sr);
    int status = 2;
    if (!sr) {
        fprintf(err, "divergence replay: out of memory\n");
        return 2;
    }
    for (const char *at = info->implementation; *at && sr->n < RERUN_MAX_PLUGINS;) {
        size_t len = strcspn(at, "|");
        snprintf(sr->names[sr->n++], sizeof sr->names[0], "%.*s", (int)len, at);
        at += len + (at[len] == '|');
    }
    if (n_plugins && n_plugins != sr->n) {
        fprintf(err, "divergence replay: %s is a set of %u plugins: pass one --plugin per "
                        "plugin, in its order, or none\n", info->implementation, sr->n);
        goto done;
    }
    for (uint32_t k = 0; k < sr->n; k++) {
        store_build b;
        if (n_plugins) {
            snprintf(sr->paths[k], sizeof sr->paths[k], "%s", plugins[k]);
            continue;
        }
        int found = store_run_build(db, info->run_id, sr->names[k], &b);
        if (found < 0) {
            fprintf(err, "divergence replay: %s\n", store_errmsg(db));
            goto done;
        }
        if (found > 0 || !b.path[0]) {
            fprintf(err, "divergence replay: run %lld links no build of %s; pass one "
                            "--plugin per plugin of %s, in its order\n",
                    (long long)info->run_id, sr->names[k], info->implementation);
            goto done;
        }
        snprintf(sr->paths[k], sizeof sr->paths[k], "%s", b.path);
    }
    int departs = 0;
    replay_input in;
    replay_input_for(&in, c, NULL, "", "");
    for (uint32_t k = 0; k < sr->n; k++) {
        fprintf(out, "  replaying on %s (%s)\n", sr->paths[k], sr->names[k]);
        char cfg[WORKER_NAME_MAX];
        if (!config && worker_implementation_config(sr->names[k], cfg, sizeof cfg) != 0) {
            fprintf(err, "divergence replay: the config of %s is recorded only as its hash: "
                            "pass --config\n", sr->names[k]);
            goto done;
        }
        int v = replay_open(&sr->r[k], sr->paths[k], config ? config : cfg, iso);
        if (v == 0)
            v = replay_run(&sr->r[k], &in, NULL, NULL);
        if (v < 0) {
            fprintf(err, "divergence replay: %s\n", sr->r[k].error);
            goto done;
        }
        if (!v) {
            fprintf(out, "  %s departs from the spec on it\n", sr->names[k]);
            departs = 1;
        }
    }
    const trial *t[RERUN_MAX_PLUGINS];
    for (uint32_t k = 0; k < sr->n; k++)
        t[k] = &sr->r[k].t;
    crosscheck_counts counts;
    memset(&counts, 0, sizeof counts);
    crosscheck_outputs(t, sr->n, c, &counts, NULL, NULL);
    if (info->element >= 0 && t[0]->valid && (uint64_t)info->element < t[0]->plan.count) {
        fprintf(out, "  recorded element %lld now:\n", (long long)info->element);
        for (uint32_t k = 0; k < sr->n; k++) {
            char cell[VERDICT_TEXT_MAX];
            crosscheck_outcome_text(t[k], (uint64_t)info->element, cell, sizeof cell);
            fprintf(out, "    %-32s %s\n", sr->names[k], cell);
        }
    }
    if (departs)
        fprintf(out, "  now: a plugin departs from the spec\n");
    else if (counts.hazards[hazard])
        fprintf(out, "  now: the plugins still disagree (%s, %llu elements)\n",
                hazard_name((uint32_t)hazard), (unsigned long long)counts.hazards[hazard]);
    else
        fprintf(out, "  now: no %s disagreement among the plugins that compute it\n",
                hazard_name((uint32_t)hazard));
    status = departs ? 1 : 0;
done:
    for (uint32_t k = 0; k < RERUN_MAX_PLUGINS; k++)
        replay_close(&sr->r[k]);
    dvg_free(sr);
    return status;
}

int rerun_one(const char *plugin, const divcase *c, const store_reproducer *info,
              const char *config, const run_isolation *iso, const casefile_set *calls, FILE *out,
              FILE *err)
{
    int status = 2;
    fprintf(out, "  replaying on %s\n", plugin);
    replay rp;
    shown_findings shown = {out, 0};
    replay_input in;
    replay_input_for(&in, c, calls, info->cls, info->note);
    char cfg[WORKER_NAME_MAX];
    /* The config the finding was recorded with (its implementation's
     * name), unless --config says otherwise. */
    if (!config && worker_implementation_config(info->implementation, cfg, sizeof cfg) != 0) {
        fprintf(err, "divergence replay: the config of %s is recorded only as its hash: pass "
                        "--config\n", info->implementation);
        return 2;
    }
    if (!config)
        config = cfg;
    if (config[0])
        fprintf(out, "  with --config %s\n", config);
    if (calls) {
        fprintf(out, "  after %zu earlier call%s on a fresh worker:", calls->count,
                calls->count == 1 ? "" : "s");
        for (size_t i = 0; i < calls->count; i++)
            fprintf(out, "%s %s", i ? "," : "", calls->cases[i].id);
        fprintf(out, "\n");
    }
    if (in.context_cls) {
        uint32_t kind = context_probe_of_class(in.context_cls);
        fprintf(out, "  then in its calling context, as certify ran it: ");
        if (kind)
            fprintf(out, "%s\n", worker_probe_name(kind));
        else
            fprintf(out, "%u threads (open_with, OMP_NUM_THREADS)\n", in.threads);
    }
    if (in.cliff_median > 0)
        fprintf(out, "  then timed again against the median per element its peers had when it was "
                "recorded (%.3g ns)\n", in.cliff_median);
    int conforms = replay_open(&rp, plugin, config, iso);
    if (conforms == 0)
        conforms = replay_run(&rp, &in, print_finding, &shown);
    if (conforms < 0) {
        fprintf(err, "divergence replay: %s\n", rp.error);
        goto done;
    }
    const trial *t = &rp.t;
    if (t->valid && info->element >= 0 && (uint64_t)info->element < t->plan.count &&
        t->wr.computed) {
        uint64_t ao, bo, i = (uint64_t)info->element;
        oracle_plan_offsets(&t->plan, i, &ao, &bo);
        verdict_example ex;
        memset(&ex, 0, sizeof ex);
        ex.index = i;
        ex.a = oracle_load(c->dtype, c->a, ao);
        ex.b = oracle_load(c->dtype, c->b, bo);
        ex.expected = t->expected[i];
        ex.actual = oracle_load(c->dtype, t->wr.out1, i);
        ex.actual2 = oracle_load(c->dtype, t->wr.out2, i); /* the worker ran it twice */
        show_elem(out, c->dtype, "recorded", &ex);
    }
    const char *now = "still departs from the spec";
    if (conforms) {
        now = "conforms";
        if (rp.timed[0]) /* a cliff's figures (as a finding when it still is one) */
            fprintf(out, "  timed again: %s\n", rp.timed);
    } else if (in.context_cls) {
        now = "still departs from the spec in that context";
    } else if (rp.timed[0]) {
        now = "still a performance cliff";
    }
    fprintf(out, "  now: %s\n", now);
    status = conforms ? 0 : 1;
done:
    replay_close(&rp);
    return status;
}

