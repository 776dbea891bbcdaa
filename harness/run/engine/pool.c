/* SPDX-License-Identifier: MIT */
/*
 * This file contains the run engine's job pool (see engine.h): the job
 * threads, each taking the next unit and running it; the calling thread,
 * which commits the results (in unit order through a reorder buffer when
 * the policy asks for it), reports progress and pauses the jobs for
 * checkpoints; and the stop conditions.
 */
#include "harness/run/engine/engine.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "harness/base/affinity.h"
#include "harness/base/alloc.h"
#include "harness/base/interrupt.h"

typedef struct done_unit {
    uint64_t unit;
    void *result;
} done_unit;

typedef struct pool {
    const engine_policy *p;
    pthread_mutex_t lock;
    pthread_cond_t main_cond;  /* the calling thread waits on it */
    pthread_cond_t job_cond;   /* the jobs wait on it */
    /* guarded by lock */
    uint64_t next_unit;        /* the next unit a job takes */
    uint64_t next_commit;      /* ordered: the next unit to commit */
    uint64_t stop_at;          /* no unit above it is taken or committed */
    done_unit *done;           /* results waiting for their commit */
    uint32_t n_done, cap_done;
    uint32_t running;          /* units taken whose result is not in done */
    uint32_t active;           /* jobs still in their loop */
    uint32_t paused;           /* jobs waiting at a checkpoint */
    int pause;
    int failed, stopped;
} pool;

typedef struct job_thread {
    pool *pl;
    engine_job job;
    pthread_t thread;
} job_thread;

double engine_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int listed(const uint32_t *list, uint32_t n, uint32_t v)
{
    for (uint32_t i = 0; i < n; i++)
        if (list[i] == v)
            return 1;
    return !n;
}

int run_filter_selects(const run_filter *f, uint32_t variant, uint32_t dtype)
{
    return listed(f->variants, f->n_variants, variant) && listed(f->dtypes, f->n_dtypes, dtype);
}

int run_filter_any(const run_filter *f)
{
    return f->n_variants || f->n_dtypes;
}

int run_shard_holds(uint32_t index, uint32_t count, uint64_t k)
{
    return count <= 1 || k % count == index;
}

int run_shard_check(const char *cmd, uint32_t index, uint32_t count, FILE *err)
{
    if (count > 1 && index >= count) {
        fprintf(err, "divergence %s: shard %u/%u: the index must be below the count\n", cmd, index,
                count);
        return -1;
    }
    return 0;
}

uint32_t engine_jobs(void)
{
    uint32_t n = affinity_cpu_count();
    return n < 1 ? 1 : n > ENGINE_MAX_JOBS ? ENGINE_MAX_JOBS : n;
}

int engine_pin(int pin, uint32_t jobs)
{
    return pin > 0 || (pin < 0 && jobs == affinity_cpu_count());
}

int engine_cpu(int pinned, uint32_t i, uint32_t jobs)
{
    return pinned ? affinity_cpu_for_job(i, jobs) : -1;
}

/* 1 when a job may take another unit now (or must not wait for one). */
static int may_take(const pool *pl)
{
    const engine_policy *p = pl->p;
    if (pl->failed || pl->next_unit >= p->units || pl->next_unit > pl->stop_at)
        return 1; /* it will leave */
    if (pl->n_done + pl->running >= pl->cap_done)
        return 0;
    return !p->ordered || pl->next_unit < pl->next_commit + pl->cap_done;
}

static void *job_main(void *arg)
{
    job_thread *jt = arg;
    pool *pl = jt->pl;
    const engine_policy *p = pl->p;
    affinity_pin_thread(jt->job.cpu);
    for (;;) {
        /* a stop asked from outside (SIGINT, SIGTERM, SIGHUP) ends the
         * pool as the command's own stop does: the units taken finish
         * and are committed, no other is taken */
        int stop = interrupt_signal() || (p->stop && p->stop(p->ctx));
        pthread_mutex_lock(&pl->lock);
        if (stop)
            pl->stopped = 1;
        while (!stop && (pl->pause || !may_take(pl))) {
            pl->paused += pl->pause;
            pthread_cond_broadcast(&pl->main_cond);
            int was = pl->pause;
            pthread_cond_wait(&pl->job_cond, &pl->lock);
            pl->paused -= was;
        }
        int leave = stop || pl->failed || pl->next_unit >= p->units ||
                    pl->next_unit > pl->stop_at;
        uint64_t u = pl->next_unit;
        if (!leave) {
            pl->next_unit++;
            pl->running++;
        }
        pthread_mutex_unlock(&pl->lock);
        if (leave)
            break;
        void *result = NULL;
        int rc = p->run(p->ctx, &jt->job, u, &result);
        pthread_mutex_lock(&pl->lock);
        pl->running--;
        if (rc < 0) {
            pl->failed = 1;
            if (result && p->discard)
                p->discard(p->ctx, result);
        } else {
            /* may_take kept a place for every running unit's result */
            assert(pl->n_done < pl->cap_done);
            pl->done[pl->n_done].unit = u;
            pl->done[pl->n_done].result = result;
            pl->n_done++;
            if (rc > 0) {
                pl->stopped = 1;
                if (u < pl->stop_at)
                    pl->stop_at = u;
            }
        }
        pthread_cond_broadcast(&pl->main_cond);
        pthread_mutex_unlock(&pl->lock);
    }
    pthread_mutex_lock(&pl->lock);
    pl->active--;
    pthread_cond_broadcast(&pl->main_cond);
    pthread_mutex_unlock(&pl->lock);
    return NULL;
}

/* The index in pl->done of the result to commit next, or -1. */
static int ready(const pool *pl)
{
    for (uint32_t i = 0; i < pl->n_done; i++) {
        if (pl->done[i].unit > pl->stop_at)
            continue;
        if (!pl->p->ordered || pl->done[i].unit == pl->next_commit)
            return (int)i;
    }
    return -1;
}

/* Commits what is ready, with pl->lock held (released around each
 * commit). */
static void commit_ready(pool *pl)
{
    const engine_policy *p = pl->p;
    int i;
    while (!pl->failed && (i = ready(pl)) >= 0) {
        done_unit d = pl->done[i];
        /* an ordered pool commits each unit once, in order */
        assert(!p->ordered || d.unit == pl->next_commit);
        pl->done[i] = pl->done[--pl->n_done];
        pthread_mutex_unlock(&pl->lock);
        int rc = p->commit(p->ctx, d.unit, d.result);
        pthread_mutex_lock(&pl->lock);
        pl->next_commit = d.unit + 1;
        if (rc < 0)
            pl->failed = 1;
        if (rc > 0) {
            pl->stopped = 1;
            if (d.unit < pl->stop_at)
                pl->stop_at = d.unit;
        }
        pthread_cond_broadcast(&pl->job_cond);
    }
}

/* Pauses the jobs between units, runs the checkpoint, lets them go on
 * (pl->lock held). */
static void checkpoint(pool *pl)
{
    const engine_policy *p = pl->p;
    pl->pause = 1;
    pthread_cond_broadcast(&pl->job_cond);
    while (pl->paused < pl->active && !pl->failed)
        pthread_cond_wait(&pl->main_cond, &pl->lock);
    if (!pl->failed) {
        pthread_mutex_unlock(&pl->lock);
        int rc = p->checkpoint(p->ctx);
        pthread_mutex_lock(&pl->lock);
        if (rc)
            pl->failed = 1;
    }
    pl->pause = 0;
    pthread_cond_broadcast(&pl->job_cond);
}

/* The calling thread's part while the jobs run: commits, ticks,
 * checkpoints, until every job has left and nothing is left to commit. */
static void drive(pool *pl)
{
    const engine_policy *p = pl->p;
    double next_tick = p->tick ? engine_now() + p->tick_s : 0;
    double next_checkpoint = p->checkpoint ? engine_now() + p->checkpoint_s : 0;
    pthread_mutex_lock(&pl->lock);
    for (;;) {
        commit_ready(pl);
        /* after an error nothing more is committed: wait for the jobs */
        int more = !pl->failed && ready(pl) >= 0;
        if (pl->active == 0 && !more)
            break;
        double now = engine_now();
        if (p->checkpoint && now >= next_checkpoint && pl->active) {
            checkpoint(pl);
            next_checkpoint = engine_now() + p->checkpoint_s;
            continue;
        }
        if (p->tick && now >= next_tick) {
            pthread_mutex_unlock(&pl->lock);
            p->tick(p->ctx, 0);
            pthread_mutex_lock(&pl->lock);
            next_tick = engine_now() + p->tick_s;
        }
        double until = now + 0.2;
        if (p->tick && next_tick < until)
            until = next_tick;
        if (p->checkpoint && next_checkpoint < until)
            until = next_checkpoint;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        double wait = until - engine_now();
        if (wait > 0 && !more && pl->active) {
            /* main_cond runs on CLOCK_MONOTONIC (pool_init) */
            long ns = ts.tv_nsec + (long)(wait * 1e9);
            ts.tv_sec += ns / 1000000000L;
            ts.tv_nsec = ns % 1000000000L;
            pthread_cond_timedwait(&pl->main_cond, &pl->lock, &ts);
        }
    }
    pthread_mutex_unlock(&pl->lock);
    if (p->tick)
        p->tick(p->ctx, 1);
}

static int pool_init(pool *pl, const engine_policy *p)
{
    memset(pl, 0, sizeof *pl);
    pl->p = p;
    pl->stop_at = UINT64_MAX;
    pl->cap_done = p->jobs * ENGINE_WINDOW;
    pl->done = dvg_calloc(pl->cap_done, sizeof *pl->done);
    if (!pl->done)
        return -1;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&pl->lock, NULL);
    pthread_cond_init(&pl->main_cond, &ca);
    pthread_cond_init(&pl->job_cond, NULL);
    pthread_condattr_destroy(&ca);
    return 0;
}

static void pool_free(pool *pl)
{
    for (uint32_t i = 0; i < pl->n_done; i++)
        if (pl->done[i].result && pl->p->discard)
            pl->p->discard(pl->p->ctx, pl->done[i].result);
    dvg_free(pl->done);
    pthread_cond_destroy(&pl->job_cond);
    pthread_cond_destroy(&pl->main_cond);
    pthread_mutex_destroy(&pl->lock);
}

int engine_run(const engine_policy *p, const char *command, FILE *err)
{
    pool pl;
    uint32_t jobs = p->jobs < 1 ? 1 : p->jobs > ENGINE_MAX_JOBS ? ENGINE_MAX_JOBS : p->jobs;
    engine_policy q = *p;
    if (q.units < jobs) /* no job without a unit to run */
        jobs = q.units ? (uint32_t)q.units : 1;
    q.jobs = jobs;
    if (pool_init(&pl, &q)) {
        fprintf(err, "divergence %s: out of memory\n", command);
        return -1;
    }
    job_thread *jt = dvg_calloc(jobs, sizeof *jt);
    uint32_t started = 0, running = 0;
    int rc = -1;
    if (!jt) {
        fprintf(err, "divergence %s: out of memory\n", command);
        goto done;
    }
    int pinned = engine_pin(q.pin, jobs);
    for (; started < jobs; started++) {
        jt[started].pl = &pl;
        jt[started].job.index = started;
        jt[started].job.cpu = engine_cpu(pinned, started, jobs);
        if (q.job_start(q.ctx, &jt[started].job)) {
            if (q.job_free)
                q.job_free(q.ctx, &jt[started].job);
            goto done;
        }
    }
    pl.active = jobs;
    for (; running < jobs; running++)
        if (pthread_create(&jt[running].thread, NULL, job_main, &jt[running])) {
            pthread_mutex_lock(&pl.lock);
            pl.failed = 1;
            pl.active = running;
            pthread_cond_broadcast(&pl.job_cond);
            pthread_mutex_unlock(&pl.lock);
            fprintf(err, "divergence %s: cannot start a job thread: %s\n", command,
                    strerror(errno));
            break;
        }
    drive(&pl);
    for (uint32_t i = 0; i < running; i++)
        pthread_join(jt[i].thread, NULL);
    rc = pl.failed ? -1 : pl.stopped ? 1 : 0;
done:
    for (uint32_t i = 0; jt && i < started; i++)
        if (q.job_free)
            q.job_free(q.ctx, &jt[i].job);
    dvg_free(jt);
    pool_free(&pl);
    return rc;
}

/* ---- engine_each ------------------------------------------------------- */

typedef struct each_share {
    int (*fn)(void *ctx, size_t i);
    void *ctx;
    size_t n, next;
    int failed;
} each_share;

static void *each_main(void *arg)
{
    each_share *s = arg;
    for (;;) {
        size_t i = __atomic_fetch_add(&s->next, 1, __ATOMIC_RELAXED);
        if (i >= s->n || __atomic_load_n(&s->failed, __ATOMIC_RELAXED))
            return NULL;
        if (s->fn(s->ctx, i))
            __atomic_store_n(&s->failed, 1, __ATOMIC_RELAXED);
    }
}

int engine_each(uint32_t threads, size_t n, int (*fn)(void *ctx, size_t i), void *ctx)
{
    each_share s = {fn, ctx, n, 0, 0};
    pthread_t t[ENGINE_MAX_JOBS];
    uint32_t extra = 0;
    if (threads > ENGINE_MAX_JOBS)
        threads = ENGINE_MAX_JOBS;
    /* the calling thread is one of them; a thread that cannot start is
     * not needed (the others take its items) */
    while (extra + 1 < threads && extra + 1 < n &&
           pthread_create(&t[extra], NULL, each_main, &s) == 0)
        extra++;
    each_main(&s);
    for (uint32_t i = 0; i < extra; i++)
        pthread_join(t[i], NULL);
    return s.failed ? -1 : 0;
}
