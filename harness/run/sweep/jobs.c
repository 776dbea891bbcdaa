/* SPDX-License-Identifier: MIT */
/*
 * This file contains the jobs of a sweep: one thread and one worker each,
 * taking the chunks of the shard one after the other, running their
 * batches, stopping the sweep after too many failing batches, and
 * recording each chunk under the store's lock.
 */
#include "harness/run/sweep/sweep_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/affinity.h"
#include "harness/base/alloc.h"
#include "harness/run/engine/trial.h"
#include "oracle/dtype.h"

void sweep_set_failed(shared *sh)
{
    pthread_mutex_lock(&sh->lock);
    sh->failed = 1;
    pthread_mutex_unlock(&sh->lock);
}

static void chunk_reset(job *jb)
{
    memset(&jb->chunk, 0, sizeof jb->chunk);
    sweep_judge_clear(jb->judge);
    for (uint32_t i = 0; i < jb->n_cf; i++)
        divcase_free(&jb->cf[i].c);
    jb->n_cf = 0;
    jb->batch_seq = 0;
}

/* Runs chunk c. 0, 1 when the sweep stopped, -1 on a harness error. */
static int run_chunk(job *jb, uint64_t c)
{
    shared *sh = jb->sh;
    int random;
    uint64_t first, rows;
    uint32_t n;
    sweep_chunk_rows(&sh->sp, c, &random, &first, &rows, &n);
    uint32_t k = random ? sh->sp.random_k : sh->sp.k;
    chunk_reset(jb);
    for (uint64_t r = 0; r < rows; r += k) {
        uint32_t kk = rows - r < k ? (uint32_t)(rows - r) : k;
        divcase dc;
        sweep_view v;
        sweep_build_batch(jb, c, random, first + r, kk, n, &dc, &v);
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
        int stop = sh->failed || sh->stopped;
        pthread_mutex_unlock(&sh->lock);
        if (stop)
            break;
    }
    pthread_mutex_lock(&sh->lock);
    int failed = sh->failed;
    pthread_mutex_unlock(&sh->lock);
    if (failed)
        return -1;
    /* A chunk cut short by a stop is recorded too: what it judged counts,
     * the rest of its pairs are unjudged. */
    uint64_t pairs = sweep_chunk_pairs(&sh->sp, c), done = jb->chunk.t.elements + jb->chunk.unjudged;
    if (done < pairs)
        jb->chunk.unjudged += pairs - done;
    /* the store has a lock of its own: the other jobs go on meanwhile */
    pthread_mutex_lock(&sh->store_lock);
    int rc = sweep_commit_chunk(jb, c, random);
    pthread_mutex_unlock(&sh->store_lock);
    pthread_mutex_lock(&sh->lock);
    sh->pairs_under_way -= jb->added;
    jb->added = 0;
    if (rc == 0) {
        sweep_counts_add(&sh->total, &jb->chunk);
        sh->pairs_done += pairs;
        sh->done[c] = 1;
    } else {
        sh->failed = 1;
    }
    if (rc == 0 && sh->stopped)
        rc = 1;
    pthread_mutex_unlock(&sh->lock);
    return rc;
}

void *sweep_job_main(void *arg)
{
    job *jb = arg;
    shared *sh = jb->sh;
    affinity_pin_thread(jb->cpu);
    for (;;) {
        pthread_mutex_lock(&sh->lock);
        uint64_t c = sh->next_chunk;
        while (c < sh->sp.n_chunks && (sh->done[c] || !sweep_chunk_in_shard(sh->o, c)))
            c++;
        sh->next_chunk = c + 1;
        int stop = sh->failed || sh->stopped || c >= sh->sp.n_chunks;
        pthread_mutex_unlock(&sh->lock);
        if (stop)
            break;
        int rc = run_chunk(jb, c);
        if (rc < 0) {
            sweep_set_failed(sh);
            break;
        }
        if (rc > 0)
            break;
    }
    return NULL;
}

int sweep_job_start(shared *sh, job *jb, uint32_t index, uint32_t n_jobs, uint64_t max_pairs,
                     FILE *err)
{
    memset(jb, 0, sizeof *jb);
    jb->sh = sh;
    jb->index = index;
    jb->cpu = sh->o->pin ? affinity_cpu_for_job(index, n_jobs) : -1;
    worker_options wo;
    worker_options_limited(&wo);
    wo.config = sh->o->config;
    wo.timeout_ms = sh->o->timeout_ms ? sh->o->timeout_ms : 10000;
    wo.quiet = 1;
    wo.cpu = jb->cpu;
    trial_sandbox_options(&wo, sh->o->sandbox, sh->o->env, sh->o->n_env);
    if (worker_new(sh->o->plugin_path, &wo, &jb->w)) {
        fprintf(err, "divergence sweep: cannot create a worker for %s\n", sh->o->plugin_path);
        return -1;
    }
    jb->judge = sweep_judge_new(max_pairs);
    uint32_t bits = oracle_dtype(sh->sp.dtype)->bits;
    jb->ab_cap = max_pairs * bits / 8 + 8;
    jb->a = dvg_malloc(jb->ab_cap);
    jb->b = dvg_malloc(jb->ab_cap);
    jb->fixed = dvg_malloc(max_pairs * sizeof *jb->fixed);
    if (!jb->judge || !jb->a || !jb->b || !jb->fixed) {
        fprintf(err, "divergence sweep: out of memory\n");
        return -1;
    }
    int rc = worker_start(jb->w, &jb->wr);
    if (rc) {
        char msg[WORKER_MESSAGE_MAX + 64];
        fprintf(err, "divergence sweep: cannot load plugin %s: %s\n", sh->o->plugin_path,
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
