/* SPDX-License-Identifier: MIT */
/*
 * divergence replay --db FILE sig:N|repro:N [--plugin PATH]
 *
 * This file contains the `replay` command: it re-runs one recorded
 * reproducer on its plugin (the build recorded with the run, or --plugin)
 * and shows expected vs actual. `repro:N` names reproducer N, `sig:N` the
 * first reproducer kept for signature N (the id certificates print); a
 * bare number is refused, since signatures and reproducers are numbered
 * apart (store_ref_parse). Exit 0 when the plugin now conforms on it, 1
 * when it still departs, 2 on errors.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "harness/cli/commands.h"
#include "harness/store/store.h"
#include "harness/run/trial.h"
#include "harness/judge/verdict.h"
#include "harness/worker/worker.h"
#include "oracle/dtype.h"

#define USAGE "usage: divergence replay --db FILE sig:N|repro:N [--plugin PATH]\n"

static void show_elem(uint32_t dtype, const char *label, const verdict_example *ex)
{
    char sa[VERDICT_TEXT_MAX], sb[VERDICT_TEXT_MAX], se[VERDICT_TEXT_MAX], sg[VERDICT_ACTUAL_MAX];
    printf("  %s element %" PRIu64 ": %s / %s: expected %s, got %s\n", label, ex->index,
           verdict_bits_text(dtype, ex->a, sa, sizeof sa),
           verdict_bits_text(dtype, ex->b, sb, sizeof sb),
           verdict_elem_text(dtype, &ex->expected, se, sizeof se),
           verdict_actual_text(dtype, ex, sg, sizeof sg));
}

typedef struct replay_ctx {
    uint32_t dtype;
    uint64_t shown;
} replay_ctx;

static int print_finding(void *ctx, const divcase *c, const verdict_example *ex)
{
    replay_ctx *rc = ctx;
    if (ex->index == UINT64_MAX)
        printf("  %s: %s\n", oracle_class_name(ex->cls), ex->note);
    else if (rc->shown++ < 8) {
        show_elem(rc->dtype, oracle_class_name(ex->cls), ex);
        if (ex->elements > 1)
            printf("    (%" PRIu64 " elements of this case share the signature)\n", ex->elements);
    }
    (void)c;
    return 0;
}

int cmd_replay(int argc, char **argv)
{
    const char *db_path = NULL, *plugin = NULL, *id_text = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf(USAGE
                   "  sig:N    the first reproducer kept for signature N (certificates and fuzz\n"
                   "           summaries print [sig:N] next to a class)\n"
                   "  repro:N  reproducer N (reports print it in their replay commands)\n"
                   "A bare number is refused: signatures and reproducers are numbered apart.\n"
                   "Exit 0 the plugin now conforms on it, 1 it still departs, 2 errors.\n");
            return 0;
        }
        if (!strcmp(argv[i], "--db") && i + 1 < argc)
            db_path = argv[++i];
        else if (!strcmp(argv[i], "--plugin") && i + 1 < argc)
            plugin = argv[++i];
        else if (argv[i][0] != '-' && !id_text)
            id_text = argv[i];
        else {
            fprintf(stderr, "divergence replay: unexpected argument '%s'\n" USAGE, argv[i]);
            return 2;
        }
    }
    if (!id_text) {
        fprintf(stderr, USAGE);
        return 2;
    }
    int64_t ref;
    int by_signature;
    char msg[1024];
    if (store_ref_parse(id_text, &by_signature, &ref, msg, sizeof msg)) {
        fprintf(stderr, "divergence replay: reproducer id %s\n" USAGE, msg);
        return 2;
    }
    if (!db_path)
        db_path = STORE_DEFAULT_PATH;

    int status = 2;
    store *db = NULL;
    worker *w = NULL;
    trial t;
    memset(&t, 0, sizeof t);
    divcase c;
    memset(&c, 0, sizeof c);
    store_reproducer info;
    long long id = ref;
    if (store_open(db_path, STORE_READONLY, &db, msg, sizeof msg)) {
        fprintf(stderr, "divergence replay: %s\n", msg);
        goto done;
    }
    if (by_signature) {
        int64_t first;
        if (store_signature_reproducer(db, ref, &first)) {
            fprintf(stderr, "divergence replay: %s\n", store_errmsg(db));
            goto done;
        }
        id = first;
    }
    if (store_reproducer_load(db, id, &c, &info)) {
        fprintf(stderr, "divergence replay: %s\n", store_errmsg(db));
        goto done;
    }
    if (!plugin)
        plugin = info.plugin_path;
    if (!plugin[0]) {
        fprintf(stderr, "divergence replay: " STORE_REF_REPRODUCER "%lld names no plugin build; "
                        "pass --plugin\n", id);
        goto done;
    }
    oracle_rules r;
    oracle_error why;
    if (oracle_rules_resolve(c.variant, c.dtype, &c.attrs, &r, &why)) {
        fprintf(stderr, "divergence replay: " STORE_REF_REPRODUCER "%lld: %s\n", id, why.text);
        goto done;
    }
    oracle_plan p;
    int valid = oracle_plan_shapes(&r, &c.a_shape, &c.b_shape, &p, &why) == ORACLE_OK;
    char attrs[160], sa[96], sb[96];
    printf(STORE_REF_REPRODUCER "%lld of " STORE_REF_SIGNATURE "%lld%s: %s, %s %s, class %s "
           "(recorded in run %lld)\n", id, (long long)info.signature_id,
           by_signature ? " (its first reproducer)" : "", info.implementation, r.variant->name,
           oracle_dtype_tag(c.dtype), info.cls, (long long)info.run_id);
    printf("  case %s: A %s, B %s, attrs %s\n", c.id, oracle_shape_format(&c.a_shape, sa, sizeof sa),
           oracle_shape_format(&c.b_shape, sb, sizeof sb),
           oracle_attrs_format(r.variant, &c.attrs, attrs, sizeof attrs));
    if (c.offsets.set) {
        char offs[32];
        printf("  data offsets from a 64-byte line: %s\n",
               divcase_offsets_format(&c.offsets, offs, sizeof offs));
    }
    if (info.expected[0])
        printf("  recorded: expected %s, got %s\n", info.expected, info.actual);
    if (info.note[0])
        printf("  recorded note: %s\n", info.note);
    printf("  replaying on %s\n", plugin);
    if (!valid)
        printf("  the oracle: invalid input (%s)\n", why.text);
    verdict_profile prof;
    verdict_profile_parse("exact", &prof, msg, sizeof msg);
    worker_options wo;
    worker_options_limited(&wo); /* as certify ran it */
    if (worker_new(plugin, &wo, &w)) {
        fprintf(stderr, "divergence replay: cannot create a worker for %s\n", plugin);
        goto done;
    }
    trial_init(&t, w, &prof);
    replay_ctx rc = {c.dtype, 0};
    int conforms = trial_run(&t, &c, NULL, print_finding, &rc);
    if (conforms < 0) {
        fprintf(stderr, "divergence replay: %s\n", t.error);
        goto done;
    }
    if (t.wr.outcome == WORKER_OUT_LOAD_ERROR) {
        fprintf(stderr, "divergence replay: cannot load %s: %s\n", plugin,
                worker_result_format(&t.wr, msg, sizeof msg));
        goto done;
    }
    if (t.valid && info.element >= 0 && (uint64_t)info.element < t.plan.count && t.wr.computed) {
        uint64_t ao, bo, i = (uint64_t)info.element;
        oracle_plan_offsets(&t.plan, i, &ao, &bo);
        verdict_example ex;
        memset(&ex, 0, sizeof ex);
        ex.index = i;
        ex.a = oracle_load(c.dtype, c.a, ao);
        ex.b = oracle_load(c.dtype, c.b, bo);
        ex.expected = t.expected[i];
        ex.actual = oracle_load(c.dtype, t.wr.out1, i);
        ex.actual2 = oracle_load(c.dtype, t.wr.out2, i); /* the worker ran it twice */
        show_elem(c.dtype, "recorded", &ex);
    }
    printf("  now: %s\n", conforms ? "conforms" : "still departs from the spec");
    status = conforms ? 0 : 1;
done:
    divcase_free(&c);
    trial_free(&t);
    worker_free(w);
    store_close(db);
    return status;
}
