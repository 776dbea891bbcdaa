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

#include "harness/cases/shapes.h"
#include "harness/run/engine/recorder.h"
#include "harness/run/engine/trial.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"

typedef struct paths_ctx {
    shared *sh;
    trial *t;
    recorder rec;
    int failed;        /* 1: out of memory, 2: the store */
} paths_ctx;

/* Keeps one finding of a shape-path case, as certify does, and counts it
 * per operand class, as the batches count theirs. */
static int paths_sink(void *ctx, const divcase *c, const verdict_example *ex)
{
    paths_ctx *p = ctx;
    verdict_words w;
    verdict_example_words(c->dtype, ex, &w);
    char note[VERDICT_NOTE_MAX + 160];
    snprintf(note, sizeof note, "sweep shape path: %.200s%s%.300s", c->source,
             ex->note[0] ? "; " : "", ex->note);
    if (ex->index != UINT64_MAX &&
        store_record_operand_counts(p->sh->db, p->sh->run_id, p->sh->info->name, p->sh->variant,
                                    c->dtype, ex->cls, w.operand, ex->elements)) {
        p->failed = 2;
        return -1;
    }
    if (sweep_record(p->sh, &p->rec, p->t, c, ex, note) < 0) {
        p->failed = 1;
        return -1;
    }
    return 0;
}

int sweep_walk_paths(shared *sh, worker *w, double *secs)
{
    const sweep_options *o = sh->o;
    uint64_t chunk = sh->sp.n_chunks;
    *secs = 0;
    if (!o->shape_tier || sh->paths_done || !sweep_chunk_in_shard(o, chunk))
        return 0;
    double t0 = engine_now();
    shapes_list l;
    divcase_pool pool = {0};
    if (shapes_build(sh->variant, o->dtype, o->shape_tier, &l)) {
        fprintf(sh->err, "divergence sweep: out of memory for the shape paths\n");
        return -1;
    }
    trial t;
    trial_init(&t, w, &o->profile);
    counts k;
    memset(&k, 0, sizeof k);
    paths_ctx p = {.sh = sh, .t = &t};
    recorder_init(&p.rec, STORE_DEFAULT_REPRODUCERS, UINT64_MAX);
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
        if (shapes_case_pooled(&g, sh->variant, o->dtype, &l.spec[i], id, &pool, &c)) {
            fprintf(sh->err, "divergence sweep: out of memory for a shape-path case\n");
            rc = -1;
            break;
        }
        verdict_tally before = k.t;
        if (trial_run(&t, &c, &k.t, paths_sink, &p) < 0) {
            fprintf(sh->err, "divergence sweep: %s\n",
                    p.failed == 2 ? store_errmsg(sh->db)
                    : p.failed ? "out of memory keeping a finding" : t.error);
            rc = -1;
        }
        for (int cls = 0; cls < ORACLE_CLASS_COUNT; cls++)
            if (k.t.counts[cls] + k.t.accepted[cls] > before.counts[cls] + before.accepted[cls])
                k.batches[cls]++;
        divcase_free_pooled(&c, &pool);
    }
    shapes_list_free(&l);
    divcase_pool_free(&pool);
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
        if (rc || recorder_write(&p.rec, sh->db, sh->run_id, &sh->new_signatures) ||
            store_sweep_chunk_done(sh->db, sh->sweep_id, chunk, 0, 0, tally) ||
            store_commit(sh->db)) {
            fprintf(sh->err, "divergence sweep: %s\n", store_errmsg(sh->db));
            rc = -1;
        }
    }
    recorder_free(&p.rec);
    if (rc) {
        store_rollback(sh->db);
        return -1;
    }
    sh->paths = k;
    sh->paths_done = 1;
    sh->paths_walked = 1;
    *secs = engine_now() - t0;
    return 0;
}
