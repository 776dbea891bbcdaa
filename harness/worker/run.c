/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/run.c: worker_run, one case on a worker.
 *
 * This file contains the checks of a case before it is sent (dtype,
 * shapes, operand bytes, data offsets, max_bytes), output_shape and the
 * validation of what it answers, and, when the plugin's shape is the
 * expected one, the two computes into this run's two poison patterns
 * (worker_poison),
 * the checks after each (inputs unchanged, the slack around the output,
 * the unused nibble of an odd i4/u4 output) and the per-element flags of
 * the two runs.
 */
#include "harness/worker/worker_internal.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "harness/base/text.h"

#include "oracle/dtype.h"

/* Checks after one compute run into poison pattern pat (WORKER_POISON_BYTES,
 * from the region's first page on); returns the side effects found. */
static uint32_t check_after_run(worker *w, const divcase *c, const ctl_region *g,
                                const uint8_t *pat, worker_result *r, int64_t *slack_at)
{
    uint32_t side = 0;
    const uint8_t *arena = w->arena;
    if (!arena)
        return 0; /* nothing but empty tensors */
    if (c->a_bytes && memcmp(arena + g[R_A].off + g[R_A].pad, c->a, (size_t)c->a_bytes) != 0)
        side |= WORKER_SIDE_INPUT_A;
    if (c->b_bytes && memcmp(arena + g[R_B].off + g[R_B].pad, c->b, (size_t)c->b_bytes) != 0)
        side |= WORKER_SIDE_INPUT_B;
    const uint8_t *o = arena + g[R_OUT].off;
    int64_t at;
    if (worker_slack_changed(o, &g[R_OUT], w->page, pat, WORKER_POISON_BYTES, &at)) {
        side |= WORKER_SIDE_SLACK;
        if (*slack_at == 0)
            *slack_at = at;
    }
    const oracle_dtype_info *info = oracle_dtype(c->dtype);
    if (info && info->bits == 4 && (r->count & 1) && g[R_OUT].nbytes) {
        uint64_t last = g[R_OUT].pad + g[R_OUT].nbytes - 1;
        if ((o[last] >> 4) != (pat[last % WORKER_POISON_BYTES] >> 4))
            side |= WORKER_SIDE_PAD_NIBBLE;
    }
    return side;
}

/* The flags of r's elements, whose output data started `pad` bytes into
 * its first page, filled with this run's poison patterns. */
static void mark_elements(worker_result *r, uint64_t pad)
{
    /* The patterns as the data saw them (rotated by pad), as elements: 64
     * bytes hold a whole number of elements of every dtype, so element i
     * held q[i % period]. */
    uint8_t p1[WORKER_POISON_BYTES], p2[WORKER_POISON_BYTES], pat[2][WORKER_POISON_BYTES];
    worker_poison(0, pat[0]);
    worker_poison(1, pat[1]);
    for (uint32_t k = 0; k < WORKER_POISON_BYTES; k++) {
        p1[k] = pat[0][(pad + k) % WORKER_POISON_BYTES];
        p2[k] = pat[1][(pad + k) % WORKER_POISON_BYTES];
    }
    uint64_t q1[2 * WORKER_POISON_BYTES], q2[2 * WORKER_POISON_BYTES];
    uint32_t period = WORKER_POISON_BYTES * 8 / oracle_dtype(r->dtype)->bits;
    for (uint32_t j = 0; j < period; j++) {
        q1[j] = oracle_load(r->dtype, p1, j);
        q2[j] = oracle_load(r->dtype, p2, j);
    }
    worker_flag_elements(r, q1, q2, period);
}

/* Nanoseconds from *a to *b (0 when b is not later). */
static uint64_t elapsed_ns(const struct timespec *a, const struct timespec *b)
{
    int64_t ns = ((int64_t)b->tv_sec - (int64_t)a->tv_sec) * 1000000000 +
                 ((int64_t)b->tv_nsec - (int64_t)a->tv_nsec);
    return ns > 0 ? (uint64_t)ns : 0;
}

/* This process's patterns: drawn once, from the kernel's random bytes
 * (the clock and the pid where there are none); run 2's is run 1's
 * complement, so no element can hold both. */
static uint8_t poison_pattern[WORKER_POISON_BYTES];
static pthread_once_t poison_once = PTHREAD_ONCE_INIT;

static void poison_draw(void)
{
    if (getrandom(poison_pattern, sizeof poison_pattern, 0) != (ssize_t)sizeof poison_pattern) {
        uint64_t x = (uint64_t)worker_now_ms() * 0x9E3779B97F4A7C15u ^ (uint64_t)getpid();
        for (size_t i = 0; i < sizeof poison_pattern; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            poison_pattern[i] = (uint8_t)x;
        }
    }
}

void worker_poison(uint32_t run, uint8_t out[WORKER_POISON_BYTES])
{
    pthread_once(&poison_once, poison_draw);
    for (size_t i = 0; i < WORKER_POISON_BYTES; i++)
        out[i] = run ? (uint8_t)~poison_pattern[i] : poison_pattern[i];
}

/* Refuses a case the worker cannot run (unknown dtype, bad shapes or
 * bytes, offsets, sizes over the limit); *c_bytes the output's bytes (0:
 * no expected shape). 0, or -1 with the worker's error set. */
static int case_acceptable(worker *w, const divcase *c, const oracle_shape *expect,
                           uint64_t *c_bytes)
{
    if (!oracle_dtype(c->dtype)) {
        worker_set_err(w, "case %s: unknown dtype %u", c->id, c->dtype);
        return -1;
    }
    if (!worker_shape_ok(&c->a_shape) || !worker_shape_ok(&c->b_shape) || (expect && !worker_shape_ok(expect))) {
        worker_set_err(w, "case %s: a shape has a rank above %d or a negative dimension", c->id,
                DVG_MAX_RANK);
        return -1;
    }
    uint64_t na = worker_shape_count(&c->a_shape), nb = worker_shape_count(&c->b_shape);
    if (na == UINT64_MAX || nb == UINT64_MAX || c->a_bytes != oracle_nbytes(c->dtype, na) ||
        c->b_bytes != oracle_nbytes(c->dtype, nb) || (c->a_bytes && !c->a) ||
        (c->b_bytes && !c->b)) {
        worker_set_err(w, "case %s: operand bytes do not match the shapes", c->id);
        return -1;
    }
    if (c->offsets.set > 1 || c->offsets.at[0] > 63 || c->offsets.at[1] > 63 ||
        c->offsets.at[2] > 63) {
        worker_set_err(w, "case %s: a data offset is above 63 bytes", c->id);
        return -1;
    }
    if (c->a_bytes > w->opt.max_bytes || c->b_bytes > w->opt.max_bytes) {
        worker_set_err(w, "case %s: an operand exceeds the limit of %llu bytes", c->id,
                (unsigned long long)w->opt.max_bytes);
        return -1;
    }
    *c_bytes = 0;
    if (expect) {
        uint64_t nc = worker_shape_count(expect);
        *c_bytes = nc == UINT64_MAX ? UINT64_MAX : oracle_nbytes(c->dtype, nc);
        if (*c_bytes > w->opt.max_bytes) {
            worker_set_err(w, "case %s: the output exceeds the limit of %llu bytes", c->id,
                    (unsigned long long)w->opt.max_bytes);
            return -1;
        }
    }
    return 0;
}

int worker_take_compute_reply(worker *w, const divcase *c, uint32_t stage, int run,
                              worker_result *r)
{
    ctl_reply rep = w->ctl->rep;
    text_sanitize_inplace(rep.message, sizeof rep.message);
    if (rep.seq != w->seq || rep.internal) {
        worker_lose_child(w, 2, stage,
                          rep.internal ? rep.message : "the worker answered another request", r);
        return -1;
    }
    worker_take_leaks(r, &rep);
    wire_copy_text(w->late_case, sizeof w->late_case, c->id);
    r->compute_status[run] = rep.status;
    if (rep.status != DVG_OK) {
        worker_take_status(r, stage, rep.status, rep.message);
        return 0;
    }
    return 1;
}

int worker_shape_stage(worker *w, const divcase *c, const oracle_shape *expect, worker_result *r)
{
    worker_fill_request(&w->ctl->req, c);
    w->ctl->req.check_signals = expect == NULL; /* no compute will follow */
    if (worker_call_child(w, OP_SHAPE, WORKER_STAGE_SHAPE, r))
        return 0;
    ctl_reply rep = w->ctl->rep;
    if (rep.seq != w->seq) {
        worker_lose_child(w, 2, WORKER_STAGE_SHAPE, "the worker answered another request", r);
        return 0;
    }
    text_sanitize_inplace(rep.message, sizeof rep.message);
    worker_take_leaks(r, &rep);
    r->shape_status = rep.status;
    r->shape_rank = rep.rank;
    if (rep.internal) {
        worker_lose_child(w, 2, WORKER_STAGE_SHAPE, rep.message, r);
        return 0;
    }
    if (rep.status != DVG_OK) {
        worker_take_status(r, WORKER_STAGE_SHAPE, rep.status, rep.message);
        return 0;
    }
    r->stage = WORKER_STAGE_SHAPE;
    if (rep.rank > DVG_MAX_RANK) {
        r->outcome = WORKER_OUT_BAD_SHAPE;
        worker_set_msg(r, "output_shape returned DVG_OK with rank %u (at most %d)%s", rep.rank,
                DVG_MAX_RANK, rep.rank == UINT32_MAX ? ": it did not set the rank" : "");
        return 0;
    }
    r->shape.rank = rep.rank;
    for (uint32_t k = 0; k < rep.rank; k++) {
        if (rep.shape[k] < 0) {
            r->outcome = WORKER_OUT_BAD_SHAPE;
            worker_set_msg(r, "output_shape returned DVG_OK with dimension %u = %lld%s", k,
                    (long long)rep.shape[k],
                    rep.shape[k] == INT64_MIN ? ": it did not set it" : "");
            memset(&r->shape, 0, sizeof r->shape);
            return 0;
        }
        r->shape.dims[k] = rep.shape[k];
    }
    r->has_shape = 1;
    r->outcome = WORKER_OUT_OK;
    /* the verdict compares shapes; nothing to compute into otherwise */
    return expect && oracle_shape_equal(&r->shape, expect);
}

/* One compute run (run 0 or 1) into the output's region of layout g,
 * filled with this run's poison first; its answer into r (out1 or out2,
 * the side effects the check after it found). 1 when it completed, 0
 * when r says why the case ended. */
static int compute_once(worker *w, const divcase *c, const oracle_shape *expect, const ctl_region *g,
                        uint64_t c_bytes, int run, worker_result *r, int64_t *slack_at,
                        uint32_t *side_stage)
{
    size_t page = w->page;
    uint8_t poison[WORKER_POISON_BYTES];
    worker_poison((uint32_t)run, poison);
    uint32_t stage = run ? WORKER_STAGE_COMPUTE2 : WORKER_STAGE_COMPUTE1;
    /* The second run's operands are the first's when the check after
     * it found them unchanged (it compared every byte). */
    if (c->a_bytes && (!run || (r->side_effects & WORKER_SIDE_INPUT_A)))
        memcpy(w->arena + g[R_A].off + g[R_A].pad, c->a, (size_t)c->a_bytes);
    if (c->b_bytes && (!run || (r->side_effects & WORKER_SIDE_INPUT_B)))
        memcpy(w->arena + g[R_B].off + g[R_B].pad, c->b, (size_t)c->b_bytes);
    for (uint64_t i = 0; i < g[R_OUT].pages * page; i += WORKER_POISON_BYTES)
        memcpy(w->arena + g[R_OUT].off + i, poison, WORKER_POISON_BYTES);
    ctl_request *q = &w->ctl->req;
    worker_fill_request(q, c);
    q->rank[2] = expect->rank;
    memcpy(q->shape[2], expect->dims, sizeof q->shape[2]);
    memcpy(q->region, g, 3 * sizeof g[0]);
    q->check_signals = run == 1;
    clockid_t cpu;
    struct timespec t0, t1, c0, c1;
    int cpu_ok = clock_getcpuclockid((pid_t)worker_pid(w), &cpu) == 0 &&
                 clock_gettime(cpu, &c0) == 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (worker_call_child(w, OP_COMPUTE, stage, r))
        return 0;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r->compute_ns[run] = elapsed_ns(&t0, &t1);
    if (cpu_ok && clock_gettime(cpu, &c1) == 0)
        r->compute_cpu_ns[run] = elapsed_ns(&c0, &c1);
    if (worker_take_compute_reply(w, c, stage, run, r) != 1)
        return 0;
    if (c_bytes)
        memcpy(run ? r->out2 : r->out1, w->arena + g[R_OUT].off + g[R_OUT].pad,
               (size_t)c_bytes);
    uint32_t side = check_after_run(w, c, g, poison, r, slack_at);
    if (side & ~(uint32_t)WORKER_SIDE_PAD_NIBBLE && !*side_stage)
        *side_stage = stage;
    r->side_effects |= side;
    return 1;
}

int worker_run(worker *w, const divcase *c, const oracle_shape *expect, worker_result *r)
{
    worker_reset_result(r);
    uint64_t c_bytes;
    if (case_acceptable(w, c, expect, &c_bytes))
        return -1;
    int ready = worker_ready(w, r);
    if (ready)
        return ready < 0 ? -1 : 0;
    w->run_seq = w->seq + 1;
    if (!worker_shape_stage(w, c, expect, r))
        return 0;

    /* compute, twice */
    r->dtype = c->dtype;
    r->count = worker_shape_count(expect);
    r->nbytes = c_bytes;
    if (worker_fit_buffers(w, r, c_bytes, r->count) != 0)
        return -1;
    ctl_region g[3];
    worker_layout_case(w, c, c_bytes, g);
    if (worker_fit_arena(w, g[R_OUT].off + g[R_OUT].pages * w->page) != 0)
        return -1;
    int64_t slack_at = 0;
    uint32_t side_stage = 0;
    for (int run = 0; run < 2; run++)
        if (!compute_once(w, c, expect, g, c_bytes, run, r, &slack_at, &side_stage))
            return 0;
    r->computed = 1;
    r->stage = side_stage ? side_stage : WORKER_STAGE_COMPUTE2;
    mark_elements(r, g[R_OUT].pad);
    worker_side_outcome(r, slack_at);
    return 0;
}
