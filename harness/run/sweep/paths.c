/* SPDX-License-Identifier: MIT */
/*
 * This file contains the shape paths of a sweep: after its batches, which
 * cover every operand pair in one layout, a sweep judges the shape-path
 * cases of its (variant, dtype) (harness/cases/shapes.h: inner sizes
 * around every vector width, every broadcast class, data offsets, size
 * tiers up to 2^SWEEP_PATHS_TIER + 1 elements) through the first job's
 * worker, so a kernel whose values are right in the sweep's layout but
 * wrong on a tail loop or a broadcast path does not sweep CONFORMANT.
 *
 * The stage is recorded as one more chunk of the sweep, number
 * sp.n_chunks (no pairs), with its counts and findings in one
 * transaction: a resumed sweep keeps it, a sharded one walks it in the
 * shard that chunk number falls to.
 */
#include "harness/run/sweep/sweep_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "harness/cases/shapes.h"
#include "harness/run/engine/trial.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"

typedef struct paths_ctx {
    shared *sh;
    trial *t;
    int failed;
} paths_ctx;

/* Stores one finding of a shape-path case, as certify does. */
static int paths_sink(void *ctx, const divcase *c, const verdict_example *ex)
{
    paths_ctx *p = ctx;
    verdict_words w;
    verdict_example_words(c->dtype, ex, &w);
    divcase tmp;
    int owned;
    const divcase *rc = trial_reproducer_case(p->t, c, ex, &tmp, &owned);
    char note[VERDICT_NOTE_MAX + 160];
    snprintf(note, sizeof note, "sweep shape path: %.200s%s%.300s", c->source,
             ex->note[0] ? "; " : "", ex->note);
    store_finding f = {
        .implementation = p->sh->info->name,
        .cls = ex->cls,
        .operand_class = w.operand,
        .c = rc,
        .element = ex->index == UINT64_MAX ? -1 : (owned ? 0 : (int64_t)ex->index),
        .expected = ex->index == UINT64_MAX ? NULL : w.expected,
        .actual = ex->index == UINT64_MAX ? NULL : w.actual,
        .ulps = ex->cls == ORACLE_CLASS_WRONG_VALUE ? ex->ulps : UINT64_MAX,
        .note = note,
    };
    int is_new = 0;
    /* per operand class too, as the batches count theirs */
    int r = ex->index != UINT64_MAX &&
            store_record_operand_counts(p->sh->db, p->sh->run_id, p->sh->info->name,
                                        p->sh->variant, c->dtype, ex->cls, w.operand, ex->elements);
    if (!r)
        r = store_record_finding(p->sh->db, p->sh->run_id, &f, NULL, &is_new);
    if (owned)
        divcase_free(&tmp);
    if (r) {
        p->failed = 1;
        return -1;
    }
    p->sh->new_signatures += (uint64_t)is_new;
    return 0;
}

int sweep_walk_paths(shared *sh, worker *w, double *secs)
{
    const sweep_options *o = sh->o;
    uint64_t chunk = sh->sp.n_chunks;
    *secs = 0;
    if (!o->shape_tier || sh->paths_done || !sweep_chunk_in_shard(o, chunk))
        return 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    shapes_list l;
    if (shapes_build(sh->variant, o->dtype, o->shape_tier, &l)) {
        fprintf(sh->err, "divergence sweep: out of memory for the shape paths\n");
        return -1;
    }
    trial t;
    trial_init(&t, w, &o->profile);
    counts k;
    memset(&k, 0, sizeof k);
    paths_ctx p = {sh, &t, 0};
    gen_rng g;
    gen_seed(&g, o->seed, (uint64_t)sh->variant * 64 + o->dtype + (UINT64_C(1) << 32));
    const char *vname = oracle_variant_get(sh->variant)->name;
    int rc = 0;
    if (store_begin(sh->db)) {
        fprintf(sh->err, "divergence sweep: %s\n", store_errmsg(sh->db));
        rc = -1;
    }
    for (size_t i = 0; i < l.n && rc == 0; i++) {
        divcase c;
        char id[64];
        snprintf(id, sizeof id, "shape:%" PRIu64 ":%s:%s:%zu", o->seed, vname,
                 oracle_dtype_tag(o->dtype), i);
        if (shapes_case(&g, sh->variant, o->dtype, &l.spec[i], id, &c)) {
            fprintf(sh->err, "divergence sweep: out of memory for a shape-path case\n");
            rc = -1;
            break;
        }
        verdict_tally before = k.t;
        if (trial_run(&t, &c, &k.t, paths_sink, &p) < 0) {
            fprintf(sh->err, "divergence sweep: %s\n",
                    p.failed ? store_errmsg(sh->db) : t.error);
            rc = -1;
        }
        for (int cls = 0; cls < ORACLE_CLASS_COUNT; cls++)
            if (k.t.counts[cls] + k.t.accepted[cls] > before.counts[cls] + before.accepted[cls])
                k.batches[cls]++;
        divcase_free(&c);
    }
    shapes_list_free(&l);
    trial_free(&t);
    if (rc == 0) {
        char tally[2048];
        sweep_counts_format(&k, tally, sizeof tally);
        for (int cls = 0; cls < ORACLE_CLASS_COUNT && rc == 0; cls++) {
            uint64_t n = cls == 0 ? k.t.elements : k.t.counts[cls] + k.t.accepted[cls];
            uint64_t cases = cls == 0 ? k.t.cases : k.batches[cls];
            if (n && store_record_counts(sh->db, sh->run_id, sh->info->name, sh->variant,
                                         o->dtype, (uint32_t)cls, n, cases))
                rc = -1;
        }
        if (rc || store_sweep_chunk_done(sh->db, sh->sweep_id, chunk, 0, 0, tally) ||
            store_commit(sh->db)) {
            fprintf(sh->err, "divergence sweep: %s\n", store_errmsg(sh->db));
            rc = -1;
        }
    }
    if (rc) {
        store_rollback(sh->db);
        return -1;
    }
    sh->paths = k;
    sh->paths_done = 1;
    sh->paths_walked = 1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    return 0;
}
