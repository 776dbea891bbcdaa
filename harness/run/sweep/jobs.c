/* SPDX-License-Identifier: MIT */
/*
 * This file contains the jobs of a sweep as the run engine's policy: a job
 * (a worker and the buffers of a batch), a unit per chunk of the shard not
 * done yet, its batches run and judged, the sweep stopped after too many
 * failing batches, and a chunk's result committed (recorded) as it comes.
 */
#include "harness/run/sweep/sweep_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/run/engine/isolation.h"
#include "oracle/dtype.h"

static void chunk_reset(job *jb)
{
    memset(&jb->chunk, 0, sizeof jb->chunk);
    sweep_judge_clear(jb->judge);
    for (uint32_t i = 0; i < jb->n_cf; i++)
        divcase_free(&jb->cf[i].c);
    jb->n_cf = 0;
    jb->batch_seq = 0;
}

/* Runs chunk c's batches. 0, 1 when the sweep stopped, -1 on a harness
 * error. */
static int run_batches(job *jb, uint64_t c, int *random)
{
    shared *sh = jb->sh;
    uint64_t first, rows;
    uint32_t n;
    sweep_chunk_rows(&sh->sp, c, random, &first, &rows, &n);
    uint32_t k = *random ? sh->sp.random_k : sh->sp.k;
    chunk_reset(jb);
    for (uint64_t r = 0; r < rows; r += k) {
        uint32_t kk = rows - r < k ? (uint32_t)(rows - r) : k;
        divcase dc;
        sweep_view v;
        sweep_build_batch(jb, c, *random, first + r, kk, n, &dc, &v);
        if (sweep_run_batch(jb, &dc, &v))
            return -1;
        pthread_mutex_lock(&sh->lock);
        sh->pairs_under_way += (uint64_t)kk * n;
        jb->added += (uint64_t)kk * n;
        uint64_t failures = sh->total.failures + jb->chunk.failures;
        uint64_t hangs = sh->total.hangs + jb->chunk.hangs;
        if (!sh->stopped && (failures >= sh->o->max_failures || hangs >= MAX_HANGS)) {
            sh->stopped = 1;
            sh->stop_reason = hangs >= MAX_HANGS ? "a batch hung" : "batches failed";
        }
        int stop = sh->stopped;
        pthread_mutex_unlock(&sh->lock);
        if (stop)
            return 1;
    }
    return 0;
}

int sweep_chunk_run(void *ctx, engine_job *ej, uint64_t u, void **result)
{
    shared *sh = ctx;
    job *jb = ej->state;
    uint64_t c = sh->units[u];
    int random;
    int rc = run_batches(jb, c, &random);
    if (rc < 0)
        return -1;
    /* A chunk cut short by a stop is recorded too: what it judged counts,
     * the rest of its pairs are unjudged. */
    uint64_t pairs = sweep_chunk_pairs(&sh->sp, c), done = jb->chunk.t.elements + jb->chunk.unjudged;
    if (done < pairs)
        jb->chunk.unjudged += pairs - done;
    chunk_result *r = dvg_calloc(1, sizeof *r);
    uint32_t n_sigs;
    const sweep_signature *sigs = sweep_judge_signatures(jb->judge, &n_sigs);
    if (r && n_sigs)
        r->sigs = dvg_malloc(n_sigs * sizeof *r->sigs);
    if (!r || (n_sigs && !r->sigs)) {
        dvg_free(r);
        fprintf(sh->err, "divergence sweep: out of memory\n");
        return -1;
    }
    r->c = c;
    r->random = random;
    r->chunk = jb->chunk;
    if (n_sigs)
        memcpy(r->sigs, sigs, n_sigs * sizeof *sigs);
    r->n_sigs = n_sigs;
    memcpy(r->cf, jb->cf, sizeof r->cf);
    r->n_cf = jb->n_cf;
    jb->n_cf = 0; /* the cases now belong to the result */
    r->added = jb->added;
    jb->added = 0;
    *result = r;
    return rc;
}

void sweep_chunk_discard(void *ctx, void *result)
{
    (void)ctx;
    chunk_result *r = result;
    if (!r)
        return;
    for (uint32_t i = 0; i < r->n_cf; i++)
        divcase_free(&r->cf[i].c);
    dvg_free(r->sigs);
    dvg_free(r);
}

int sweep_chunk_commit(void *ctx, uint64_t u, void *result)
{
    shared *sh = ctx;
    chunk_result *r = result;
    (void)u;
    int rc = sweep_commit_chunk(sh, r);
    pthread_mutex_lock(&sh->lock);
    sh->pairs_under_way -= r->added;
    if (rc == 0) {
        sweep_counts_add(&sh->total, &r->chunk);
        sh->pairs_done += sweep_chunk_pairs(&sh->sp, r->c);
        sh->done[r->c] = 1;
    } else {
        sh->failed = 1;
    }
    pthread_mutex_unlock(&sh->lock);
    sweep_chunk_discard(sh, r);
    return rc;
}

int sweep_stop(void *ctx)
{
    shared *sh = ctx;
    pthread_mutex_lock(&sh->lock);
    int stop = sh->failed || sh->stopped;
    pthread_mutex_unlock(&sh->lock);
    return stop;
}

int sweep_job_start(shared *sh, job *jb, uint32_t index, int cpu)
{
    memset(jb, 0, sizeof *jb);
    jb->sh = sh;
    jb->index = index;
    jb->cpu = cpu;
    worker_options wo;
    isolation_worker_options(&sh->o->iso, 10000, sh->o->config,
                             (isolation_place){cpu, sh->n_jobs}, 1, &wo);
    if (worker_new(sh->o->plugin_path, &wo, &jb->w)) {
        fprintf(sh->err, "divergence sweep: cannot create a worker for %s\n",
                sh->o->plugin_path);
        return -1;
    }
    uint64_t max_pairs = sh->max_pairs;
    jb->judge = sweep_judge_new(max_pairs);
    uint32_t bits = oracle_dtype(sh->sp.dtype)->bits;
    jb->ab_cap = max_pairs * bits / 8 + 8;
    jb->a = dvg_malloc(jb->ab_cap);
    jb->b = dvg_malloc(jb->ab_cap);
    jb->fixed = dvg_malloc(max_pairs * sizeof *jb->fixed);
    if (!jb->judge || !jb->a || !jb->b || !jb->fixed) {
        fprintf(sh->err, "divergence sweep: out of memory\n");
        return -1;
    }
    int rc = worker_start(jb->w, &jb->wr);
    if (rc) {
        char msg[WORKER_MESSAGE_MAX + 64];
        fprintf(sh->err, "divergence sweep: cannot load plugin %s: %s\n", sh->o->plugin_path,
                rc < 0 ? worker_errmsg(jb->w) : worker_result_format(&jb->wr, msg, sizeof msg));
        return -1;
    }
    return 0;
}

void sweep_job_free(job *jb)
{
    for (uint32_t i = 0; i < jb->n_cf; i++)
        divcase_free(&jb->cf[i].c);
    worker_result_free(&jb->wr);
    worker_free(jb->w);
    sweep_judge_free(jb->judge);
    dvg_free(jb->a);
    dvg_free(jb->b);
    dvg_free(jb->fixed);
    memset(jb, 0, sizeof *jb);
}

int sweep_engine_job_start(void *ctx, engine_job *ej)
{
    shared *sh = ctx;
    job *jb = &sh->jobs[ej->index];
    ej->state = jb;
    if (sweep_job_start(sh, jb, ej->index, ej->cpu))
        return -1;
    jb->bt.poison[0] = sh->poison[0];
    jb->bt.poison[1] = sh->poison[1];
    jb->bt.check_inputs = 1;
    return 0;
}

void sweep_engine_job_free(void *ctx, engine_job *ej)
{
    (void)ctx;
    (void)ej; /* the sweep frees its jobs after the shape paths */
}
