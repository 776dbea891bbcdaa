/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/batch.c: the batch runs of a sweep (batch.h).
 *
 * This file contains worker_batch_run and worker_batch_rerun: one compute
 * per call, the output read in place, operands copied only when they
 * changed, output_shape once per child and layout, the output filled with
 * an element-sized poison pattern (and not filled again when the caller
 * has put it back), and, on a rerun, the second compute and the element
 * flags as worker_run gives them.
 */
#include "harness/worker/batch.h"

#include <stdint.h>
#include <string.h>

#include "harness/base/text.h"

#include "harness/worker/worker_internal.h"
#include "oracle/dtype.h"

_Static_assert(sizeof(((worker_batch *)0)->region_) == 3 * sizeof(ctl_region),
               "worker_batch keeps the three regions of a layout");

/* The bytes of one poison element (i4/u4: the pattern byte), and their
 * count. */
static uint32_t batch_pattern(uint32_t dtype, uint64_t poison, uint8_t bytes[8])
{
    uint32_t bits = oracle_dtype(dtype)->bits, n = bits < 8 ? 1 : bits / 8;
    for (uint32_t i = 0; i < n; i++)
        bytes[i] = (uint8_t)(poison >> (8 * i));
    return n;
}

/* The poison element's bytes as the output region's pages hold them:
 * byte i of the region is bytes[i % count], so that its elements, from the
 * data start `pad` on, hold the poison element. Returns the count. */
static uint32_t batch_region_pattern(uint32_t dtype, uint64_t poison, uint64_t pad,
                                     uint8_t bytes[8])
{
    uint8_t b[8];
    uint32_t esize = batch_pattern(dtype, poison, b);
    uint32_t shift = (uint32_t)(pad % esize);
    for (uint32_t i = 0; i < esize; i++)
        bytes[i] = b[(i + esize - shift) % esize];
    return esize;
}

/* Fills `n` bytes (a multiple of the element size; `dst` page-aligned)
 * of the output region whose data starts at `pad` with the poison
 * element: one block by hand, the rest copied from it in doubling
 * blocks. */
static void batch_fill(uint8_t *dst, uint64_t n, uint64_t pad, uint32_t dtype, uint64_t poison)
{
    uint8_t b[8];
    uint32_t esize = batch_region_pattern(dtype, poison, pad, b);
    uint64_t done = 0;
    for (; done < n && done < 64; done++)
        dst[done] = b[done % esize];
    while (done < n) {
        uint64_t k = done < n - done ? done : n - done;
        memcpy(dst + done, dst, (size_t)k);
        done += k;
    }
}

/* The checks after one run: A and B (when asked), the slack around the
 * output, the unused nibble of an odd i4/u4 output. */
static uint32_t batch_side_effects(worker *w, const worker_batch *bt, const divcase *c,
                                   const ctl_region *g, uint64_t poison, uint64_t count,
                                   int64_t *slack_at)
{
    uint32_t side = 0;
    const uint8_t *arena = w->arena;
    if (!arena)
        return 0;
    if (bt->check_inputs) {
        if (c->a_bytes && memcmp(arena + g[R_A].off + g[R_A].pad, c->a, (size_t)c->a_bytes))
            side |= WORKER_SIDE_INPUT_A;
        if (c->b_bytes && memcmp(arena + g[R_B].off + g[R_B].pad, c->b, (size_t)c->b_bytes))
            side |= WORKER_SIDE_INPUT_B;
    }
    uint8_t b[8];
    uint32_t esize = batch_region_pattern(c->dtype, poison, g[R_OUT].pad, b);
    const uint8_t *o = arena + g[R_OUT].off;
    int64_t at;
    if (worker_slack_changed(o, &g[R_OUT], w->page, b, esize, &at)) {
        side |= WORKER_SIDE_SLACK;
        if (*slack_at == 0)
            *slack_at = at;
    }
    if (oracle_dtype(c->dtype)->bits == 4 && (count & 1) && g[R_OUT].nbytes) {
        uint8_t last = o[g[R_OUT].pad + g[R_OUT].nbytes - 1];
        if ((last >> 4) != (b[0] >> 4))
            side |= WORKER_SIDE_PAD_NIBBLE;
    }
    return side;
}


/* One compute into poison `poison` (run 0 or 1) with the operands in
 * place. Returns 0 when compute returned DVG_OK (side effects checked),
 * 1 when r holds another end, -1 on a harness error. */
static int batch_compute(worker *w, worker_batch *bt, const divcase *c, const oracle_shape *expect,
                         const ctl_region *g, int run, worker_result *r, int64_t *slack_at)
{
    uint32_t stage = run ? WORKER_STAGE_COMPUTE2 : WORKER_STAGE_COMPUTE1;
    /* The output still holds poison[0] where the last clean first run of
     * this layout left the slack, and the caller put it back in the
     * elements: no fill. */
    int restored = run == 0 && bt->out_restored && bt->fresh_seq_ != 0 &&
                   bt->fresh_seq_ == w->seq && bt->fresh_spawn_ == w->spawns;
    bt->out_restored = 0;
    bt->fresh_seq_ = 0;
    if (g[R_OUT].pages && !restored)
        batch_fill(w->arena + g[R_OUT].off, g[R_OUT].pages * w->page, g[R_OUT].pad, c->dtype,
                   bt->poison[run]);
    ctl_request *q = &w->ctl->req;
    worker_fill_request(q, c);
    q->rank[2] = expect->rank;
    memcpy(q->shape[2], expect->dims, sizeof q->shape[2]);
    memcpy(q->region, g, 3 * sizeof g[0]);
    if (worker_call_child(w, OP_COMPUTE, stage, r)) {
        bt->have_operands_ = 0; /* the child held the arena writable */
        bt->shape_ok_ = 0;
        return 1;
    }
    int taken = worker_take_compute_reply(w, c, stage, run, r);
    if (taken < 0)
        bt->have_operands_ = bt->shape_ok_ = 0;
    if (taken != 1)
        return 1;
    uint32_t side = batch_side_effects(w, bt, c, g, bt->poison[run], r->count, slack_at);
    if (side & (WORKER_SIDE_INPUT_A | WORKER_SIDE_INPUT_B))
        bt->have_operands_ = 0;
    if (run == 0 && side == 0) {
        bt->fresh_seq_ = w->seq;
        bt->fresh_spawn_ = w->spawns;
    }
    if (side & ~(uint32_t)WORKER_SIDE_PAD_NIBBLE)
        r->stage = stage;
    r->side_effects |= side;
    return 0;
}

/* 1 when c (with expect) has the header of the last checked layout. */
static int batch_same_header(const worker_batch *bt, const divcase *c, const oracle_shape *expect)
{
    return bt->variant_ == c->variant && bt->dtype_ == c->dtype &&
           !memcmp(&bt->attrs_, &c->attrs, sizeof bt->attrs_) &&
           oracle_shape_equal(&bt->a_shape_, &c->a_shape) &&
           oracle_shape_equal(&bt->b_shape_, &c->b_shape) &&
           oracle_shape_equal(&bt->out_shape_, expect);
}

int worker_batch_run(worker *w, worker_batch *bt, const divcase *c, const oracle_shape *expect,
                     worker_result *r, uint8_t **out)
{
    worker_reset_result(r);
    *out = NULL;
    if (!oracle_dtype(c->dtype) || !expect || !worker_shape_ok(&c->a_shape) || !worker_shape_ok(&c->b_shape) ||
        !worker_shape_ok(expect)) {
        worker_set_err(w, "batch %s: unknown dtype, no output shape, or a bad shape", c->id);
        return -1;
    }
    uint64_t na = worker_shape_count(&c->a_shape), nb = worker_shape_count(&c->b_shape), nc = worker_shape_count(expect);
    if (na == UINT64_MAX || nb == UINT64_MAX || nc == UINT64_MAX ||
        c->a_bytes != oracle_nbytes(c->dtype, na) || c->b_bytes != oracle_nbytes(c->dtype, nb) ||
        (c->a_bytes && !c->a) || (c->b_bytes && !c->b)) {
        worker_set_err(w, "batch %s: operand bytes do not match the shapes", c->id);
        return -1;
    }
    uint64_t c_bytes = oracle_nbytes(c->dtype, nc);
    if (c->a_bytes > w->opt.max_bytes || c->b_bytes > w->opt.max_bytes ||
        c_bytes > w->opt.max_bytes) {
        worker_set_err(w, "batch %s: a tensor exceeds the limit of %llu bytes", c->id,
                (unsigned long long)w->opt.max_bytes);
        return -1;
    }
    int ready = worker_ready(w, r);
    if (ready)
        return ready < 0 ? -1 : 0;
    w->run_seq = w->seq + 1;

    /* output_shape, once per child and layout */
    if (!bt->shape_ok_ || bt->spawn_ != w->spawns || !batch_same_header(bt, c, expect)) {
        bt->shape_ok_ = 0;
        if (!worker_shape_stage(w, c, expect, r))
            return 0;
        bt->shape_ok_ = 1;
        bt->spawn_ = w->spawns;
        bt->variant_ = c->variant;
        bt->dtype_ = c->dtype;
        bt->attrs_ = c->attrs;
        bt->a_shape_ = c->a_shape;
        bt->b_shape_ = c->b_shape;
        bt->out_shape_ = *expect;
    } else {
        r->shape_status = DVG_OK;
        r->shape_rank = expect->rank;
        r->shape = *expect;
        r->has_shape = 1;
        r->outcome = WORKER_OUT_OK;
    }

    /* the operands, where they changed */
    ctl_region g[3];
    worker_layout_case(w, c, c_bytes, g);
    if (memcmp(bt->region_, g, sizeof bt->region_) != 0 || !bt->have_operands_ ||
        w->arena_size < g[R_OUT].off + g[R_OUT].pages * w->page) {
        bt->have_operands_ = 0;
        bt->fresh_seq_ = 0; /* the output moved, or may have */
        memcpy(bt->region_, g, sizeof bt->region_);
    }
    if (worker_fit_arena(w, g[R_OUT].off + g[R_OUT].pages * w->page) != 0)
        return -1;
    if (c->a_bytes && (!bt->have_operands_ || !bt->same_a))
        memcpy(w->arena + g[R_A].off + g[R_A].pad, c->a, (size_t)c->a_bytes);
    if (c->b_bytes && (!bt->have_operands_ || !bt->same_b))
        memcpy(w->arena + g[R_B].off + g[R_B].pad, c->b, (size_t)c->b_bytes);
    bt->have_operands_ = 1;

    /* one compute */
    r->dtype = c->dtype;
    r->count = nc;
    r->nbytes = c_bytes;
    r->stage = WORKER_STAGE_COMPUTE1;
    int64_t slack_at = 0;
    int got = batch_compute(w, bt, c, expect, g, 0, r, &slack_at);
    if (got)
        return got < 0 ? -1 : 0;
    r->computed = 1;
    worker_side_outcome(r, slack_at);
    *out = w->arena + g[R_OUT].off + g[R_OUT].pad;
    return 0;
}

int worker_batch_rerun(worker *w, worker_batch *bt, const divcase *c, const oracle_shape *expect,
                       worker_result *r)
{
    ctl_region g[3];
    if (!r->computed || !worker_alive(w) || !bt->shape_ok_) {
        worker_set_err(w, "batch %s: nothing to run again", c->id);
        return -1;
    }
    worker_layout_case(w, c, r->nbytes, g);
    if (memcmp(bt->region_, g, sizeof bt->region_) != 0 || !w->arena) {
        worker_set_err(w, "batch %s: not the case of the last batch", c->id);
        return -1;
    }
    if (worker_fit_buffers(w, r, r->nbytes, r->count) != 0)
        return -1;
    if (r->nbytes)
        memcpy(r->out1, w->arena + g[R_OUT].off + g[R_OUT].pad, (size_t)r->nbytes);
    if (!bt->have_operands_) {
        if (c->a_bytes)
            memcpy(w->arena + g[R_A].off + g[R_A].pad, c->a, (size_t)c->a_bytes);
        if (c->b_bytes)
            memcpy(w->arena + g[R_B].off + g[R_B].pad, c->b, (size_t)c->b_bytes);
        bt->have_operands_ = 1;
    }
    r->computed = 0;
    int64_t slack_at = 0;
    int got = batch_compute(w, bt, c, expect, g, 1, r, &slack_at);
    if (got)
        return got < 0 ? -1 : 0;
    if (r->nbytes)
        memcpy(r->out2, w->arena + g[R_OUT].off + g[R_OUT].pad, (size_t)r->nbytes);
    r->computed = 1;
    if (!(r->side_effects & ~(uint32_t)WORKER_SIDE_PAD_NIBBLE))
        r->stage = WORKER_STAGE_COMPUTE2;
    /* The flags, as mark_elements gives them, with these poisons. */
    uint8_t p1[16], p2[16];
    uint8_t b1[8], b2[8];
    uint32_t esize = batch_pattern(c->dtype, bt->poison[0], b1);
    batch_pattern(c->dtype, bt->poison[1], b2);
    for (uint32_t i = 0; i < 16; i++) {
        p1[i] = b1[i % esize];
        p2[i] = b2[i % esize];
    }
    uint64_t q1[2] = {oracle_load(r->dtype, p1, 0), oracle_load(r->dtype, p1, 1)};
    uint64_t q2[2] = {oracle_load(r->dtype, p2, 0), oracle_load(r->dtype, p2, 1)};
    r->n_unwritten = r->n_nondet = 0;
    r->first_unwritten = r->first_nondet = UINT64_MAX;
    /* Equal runs: nothing nondeterministic, and nothing unwritten (an
     * element would have to equal both poisons). */
    if (!memcmp(r->out1, r->out2, (size_t)r->nbytes)) {
        memset(r->flags, 0, (size_t)r->count);
        worker_side_outcome(r, slack_at);
        return 0;
    }
    worker_flag_elements(r, q1, q2, 2);
    worker_side_outcome(r, slack_at);
    return 0;
}
