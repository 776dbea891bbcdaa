/* SPDX-License-Identifier: MIT */
/*
 * This file contains one batch of a sweep: its operands built in the
 * layout of the variant, run in the job's worker (again, to tell
 * unwritten elements and nondeterminism, on the sampled and poisoned
 * batches) and judged; a batch that crashed, hung or failed judged as a
 * whole case, with a small case kept and the first crash narrowed.
 */
#include "harness/run/sweep/sweep_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cases/gen.h"
#include "harness/run/engine/trial.h"
#include "harness/run/engine/narrow.h"
#include "oracle/dtype.h"
#include "oracle/value.h"

/* ---- operands of a batch ---------------------------------------------------- */

/* Elements at..at+count-1 of a packed buffer set to `bits`: a few
 * stored one by one, the rest copied from them in doubling blocks. */
static void fill_elems(uint32_t dtype, uint8_t *p, uint64_t at, uint64_t count, uint64_t bits)
{
    uint32_t w = oracle_dtype(dtype)->bits;
    if (w < 8) {
        for (uint64_t i = 0; i < count; i++)
            oracle_store(dtype, p, at + i, bits);
        return;
    }
    if (w == 8) {
        memset(p + at, (int)(uint8_t)bits, (size_t)count);
        return;
    }
    size_t esize = w / 8, total = (size_t)count * esize, done = 0;
    uint8_t *dst = p + at * esize;
    for (; done < total && done < 64; done += esize)
        memcpy(dst + done, &bits, esize); /* little-endian: the low bytes */
    while (done < total) {
        size_t n = done < total - done ? done : total - done;
        memcpy(dst + done, dst, n);
        done += n;
    }
}

/* Elements at..at+n-1 of a packed buffer set to the product values
 * (`at` even for i4/u4). */
static void copy_cols(const space *sp, uint8_t *p, uint64_t at)
{
    if (sp->bits >= 8)
        memcpy(p + at * sp->bits / 8, sp->cols, (size_t)sp->n * sp->bits / 8);
    else
        for (uint32_t j = 0; j < sp->n; j++)
            oracle_store(sp->dtype, p, at + j, oracle_load(sp->dtype, sp->cols, j));
}

/* View v with its rows in A (row_is_a) or B and its columns at cols,
 * col_stride elements apart (0: shared). */
static sweep_view view_rows(const sweep_view *v, int row_is_a, const uint8_t *cols,
                            uint64_t col_stride)
{
    sweep_view w = *v;
    w.row_is_a = row_is_a;
    w.cols = cols;
    w.col_stride = col_stride;
    return w;
}

/* Builds batch `first`.. of chunk c (rows rows) into the job's buffers and
 * the case/view; sets bt.same_a / same_b. */
void sweep_build_batch(job *jb, uint64_t c, int random, uint64_t first, uint32_t k, uint32_t n,
                        divcase *dc, sweep_view *v)
{
    shared *sh = jb->sh;
    const space *sp = &sh->sp;
    uint32_t dtype = sp->dtype;
    int layout = random ? L_FLAT : sp->layout;
    memset(dc, 0, sizeof *dc);
    snprintf(dc->id, sizeof dc->id, "sweep:%s:chunk%" PRIu64 ":row%" PRIu64, oracle_dtype_tag(dtype),
             c, first);
    dc->variant = sh->variant;
    dc->dtype = dtype;
    dc->attrs = sh->attrs;
    memset(v, 0, sizeof *v);
    v->rules = &sh->rules;
    v->k = k;
    v->n = n;
    v->fixed = jb->fixed;
    v->poison = jb->bt.poison[0];
    v->every_value = !random && !sp->table && sp->bits <= 16 && n == 1u << sp->bits;
    int want_a = 0, want_b = 0; /* content wanted: 1 the product values, 2 per batch */
    if (random) {
        for (uint32_t i = 0; i < k; i++) {
            gen_rng g;
            gen_seed(&g, sp->seed, first + i);
            uint64_t x = gen_next(&g) & sp->mask;
            jb->fixed[i] = x;
            fill_elems(dtype, jb->a, (uint64_t)i * n, n, x);
            for (uint32_t j = 0; j < n; j++)
                oracle_store(dtype, jb->b, (uint64_t)i * n + j, gen_next(&g) & sp->mask);
        }
        want_a = want_b = 2;
    } else {
        for (uint32_t i = 0; i < k; i++)
            jb->fixed[i] = sweep_product_value(sp, first + i);
    }
    switch (layout) {
    case L_NUMPY: /* A (k, 1) rows, B (n) values */
        dc->a_shape.rank = 2;
        dc->a_shape.dims[0] = k;
        dc->a_shape.dims[1] = 1;
        dc->b_shape.rank = 1;
        dc->b_shape.dims[0] = n;
        for (uint32_t i = 0; i < k; i++)
            oracle_store(dtype, jb->a, i, jb->fixed[i]);
        if (jb->content_b != 1)
            copy_cols(sp, jb->b, 0);
        want_a = 2; /* the rows, per batch; B: the product values */
        want_b = 1;
        *v = view_rows(v, 1, jb->b, 0);
        break;
    case L_AXIS0: /* A (k, n) values repeated, B (k) rows */
        dc->a_shape.rank = 2;
        dc->a_shape.dims[0] = k;
        dc->a_shape.dims[1] = n;
        dc->b_shape.rank = 1;
        dc->b_shape.dims[0] = k;
        if (jb->content_a != 1 || jb->rows_a < k)
            for (uint32_t i = 0; i < k; i++)
                copy_cols(sp, jb->a, (uint64_t)i * n);
        jb->rows_a = k;
        for (uint32_t i = 0; i < k; i++)
            oracle_store(dtype, jb->b, i, jb->fixed[i]);
        want_a = 1; /* the product values; B: the rows, per batch */
        want_b = 2;
        *v = view_rows(v, 0, jb->a, 0);
        break;
    default: /* L_FLAT: A (k n) rows repeated, B (k n) values */
        dc->a_shape.rank = dc->b_shape.rank = 1;
        dc->a_shape.dims[0] = dc->b_shape.dims[0] = (int64_t)k * n;
        if (!random) {
            for (uint32_t i = 0; i < k; i++)
                fill_elems(dtype, jb->a, (uint64_t)i * n, n, jb->fixed[i]);
            if (jb->content_b != 1 || jb->rows_b < k)
                for (uint32_t i = 0; i < k; i++)
                    copy_cols(sp, jb->b, (uint64_t)i * n);
            jb->rows_b = k;
            want_a = 2;
            want_b = 1;
        }
        *v = view_rows(v, 1, jb->b, random ? n : 0);
        break;
    }
    dc->a_bytes = oracle_nbytes(dtype, oracle_shape_count(&dc->a_shape));
    dc->b_bytes = oracle_nbytes(dtype, oracle_shape_count(&dc->b_shape));
    dc->a = jb->a;
    dc->b = jb->b;
    /* the same content as the previous batch, when it was the product's */
    jb->bt.same_a = want_a == 1 && jb->content_a == 1;
    jb->bt.same_b = want_b == 1 && jb->content_b == 1;
    jb->content_a = want_a == 1 ? 1 : 0;
    jb->content_b = want_b == 1 ? 1 : 0;
}

/* ---- findings ------------------------------------------------------------- */

/* A small case for a whole-batch finding: the batch itself when small,
 * else the first row's first SWEEP_WINDOW pairs in the same layout. */
static int small_case(const divcase *dc, const sweep_view *v, divcase *out)
{
    if (dc->a_bytes + dc->b_bytes <= TRIAL_FULL_CASE_BYTES)
        return divcase_copy(out, dc);
    divcase one;
    memset(&one, 0, sizeof one);
    snprintf(one.id, sizeof one.id, "%.80s[first %u]", dc->id, SWEEP_WINDOW);
    one.variant = dc->variant;
    one.dtype = dc->dtype;
    one.attrs = dc->attrs;
    uint32_t len = v->n < SWEEP_WINDOW ? v->n : SWEEP_WINDOW;
    /* the same ranks and broadcasting, one row of len values */
    one.a_shape = dc->a_shape;
    one.b_shape = dc->b_shape;
    if (dc->a_shape.rank == 2 && dc->a_shape.dims[1] == 1) { /* numpy */
        one.a_shape.dims[0] = 1;
        one.b_shape.dims[0] = len;
    } else if (dc->a_shape.rank == 2) { /* axis 0 */
        one.a_shape.dims[0] = 1;
        one.a_shape.dims[1] = len;
        one.b_shape.dims[0] = 1;
    } else {
        one.a_shape.dims[0] = one.b_shape.dims[0] = len;
    }
    if (divcase_alloc(&one, UINT64_C(1) << 20))
        return -1;
    uint64_t na = oracle_shape_count(&one.a_shape), nb = oracle_shape_count(&one.b_shape);
    for (uint64_t i = 0; i < na; i++)
        oracle_store(dc->dtype, one.a, i, oracle_load(dc->dtype, dc->a, i));
    for (uint64_t i = 0; i < nb; i++)
        oracle_store(dc->dtype, one.b, i, oracle_load(dc->dtype, dc->b, i));
    *out = one;
    return 0;
}

static void keep_case_finding(job *jb, const verdict_example *ex, const divcase *c,
                              const sweep_view *v)
{
    for (uint32_t i = 0; i < jb->n_cf; i++)
        if (jb->cf[i].ex.cls == ex->cls)
            return; /* one case per class and chunk */
    if (jb->n_cf == MAX_CASE_FINDINGS)
        return;
    case_finding *f = &jb->cf[jb->n_cf];
    f->ex = *ex;
    if ((v ? small_case(c, v, &f->c) : divcase_copy(&f->c, c)) == 0)
        jb->n_cf++;
}

typedef struct failure_ctx {
    job *jb;
    const divcase *c;
    const sweep_view *v;
} failure_ctx;

static int failure_sink(void *ctx, const divcase *c, const verdict_example *ex)
{
    failure_ctx *f = ctx;
    (void)c;
    sweep_judge_add_signature(f->jb->judge, NULL, ex, UINT64_MAX);
    keep_case_finding(f->jb, ex, f->c, f->v);
    return 0;
}

/* ---- the jobs -------------------------------------------------------------- */

/* A batch that did not compute: judged as a whole case; the first crash
 * of the sweep narrowed to one pair. */
static int batch_failed(job *jb, const divcase *dc, const sweep_view *v, const oracle_shape *expect)
{
    shared *sh = jb->sh;
    verdict_tally before = jb->chunk.t;
    failure_ctx fx = {jb, dc, v};
    oracle_plan p;
    oracle_error why;
    if (oracle_plan_shapes(&sh->rules, &dc->a_shape, &dc->b_shape, &p, &why) != ORACLE_OK)
        return -1;
    (void)expect;
    verdict_outputs vo;
    trial_outputs_from_worker(&jb->wr, &vo);
    if (verdict_case(&sh->rules, dc, 1, &p, NULL, &vo, &sh->o->profile, sh->declared,
                     sh->int_div_zero_value, &jb->chunk.t, failure_sink, &fx) < 0)
        return -1;
    for (int k = 0; k < ORACLE_CLASS_COUNT; k++)
        if (jb->chunk.t.counts[k] + jb->chunk.t.accepted[k] > before.counts[k] + before.accepted[k])
            jb->chunk.batches[k]++;
    jb->chunk.unjudged += (uint64_t)v->k * v->n;
    uint32_t out = jb->wr.outcome;
    if (out == WORKER_OUT_HANG)
        jb->chunk.hangs++;
    else
        jb->chunk.failures++;
    pthread_mutex_lock(&sh->lock);
    int narrow = (out == WORKER_OUT_CRASH || out == WORKER_OUT_EXIT) && !sh->narrowed;
    sh->narrowed |= narrow;
    pthread_mutex_unlock(&sh->lock);
    if (narrow) {
        narrow_result nr;
        memset(&nr, 0, sizeof nr);
        if (narrow_case(jb->w, dc, &jb->wr, NULL, &nr) == 0 && nr.found) {
            verdict_example ex;
            memset(&ex, 0, sizeof ex);
            ex.cls = ORACLE_CLASS_CRASH;
            ex.index = UINT64_MAX;
            ex.operand_a = ex.operand_b = ORACLE_OPERAND_COUNT;
            snprintf(ex.note, sizeof ex.note, "narrowed to output element %" PRIu64
                     " of batch %s: %s", nr.index, dc->id, nr.message);
            ex.elements = 1;
            /* kept beside the batch's own crash finding */
            if (jb->n_cf < MAX_CASE_FINDINGS && divcase_copy(&jb->cf[jb->n_cf].c, &nr.reduced) == 0) {
                jb->cf[jb->n_cf].ex = ex;
                jb->n_cf++;
            }
        }
        narrow_result_free(&nr);
        /* narrowing ran other cases on the worker: its batch state is gone */
        uint64_t p0 = jb->bt.poison[0], p1 = jb->bt.poison[1];
        int ci = jb->bt.check_inputs;
        memset(&jb->bt, 0, sizeof jb->bt);
        jb->bt.poison[0] = p0;
        jb->bt.poison[1] = p1;
        jb->bt.check_inputs = ci;
        jb->content_a = jb->content_b = 0;
    }
    return 0;
}

/* Runs and judges one batch. 0, or -1 on a harness error. */
int sweep_run_batch(job *jb, const divcase *dc, const sweep_view *v)
{
    shared *sh = jb->sh;
    oracle_shape expect;
    expect.rank = dc->a_shape.rank == 2 ? 2 : 1;
    expect.dims[0] = expect.rank == 2 ? v->k : (int64_t)v->k * v->n;
    expect.dims[1] = v->n;
    uint8_t *out = NULL;
    jb->bt.out_restored = jb->restored;
    jb->restored = 0;
    /* A and B are mapped read-only in the worker, so a kernel writing
     * them faults; only a plugin writing the shared memory through its
     * descriptor on purpose changes them. Comparing them after every batch
     * would read both again (for the flat layout 2 MiB per batch, a third
     * of the sweep's time), so it is done on the sampled batches and on
     * every batch run again. */
    int sample = sh->o->nondet_every && jb->batch_seq % sh->o->nondet_every == 0;
    jb->batch_seq++;
    jb->bt.check_inputs = sample;
    if (worker_batch_run(jb->w, &jb->bt, dc, &expect, &jb->wr, &out)) {
        fprintf(sh->err, "divergence sweep: %s\n", worker_errmsg(jb->w));
        return -1;
    }
    if (!jb->wr.computed || jb->wr.outcome != WORKER_OUT_OK)
        return batch_failed(jb, dc, v, &expect);
    verdict_tally before = jb->chunk.t;
    uint64_t poison = 0;
    if (!sample) {
        /* the check puts the poison back as it reads, so the worker need
         * not fill the output before the next batch */
        sweep_view vr = *v;
        vr.repoison = sh->repoison ? out : NULL;
        if (sweep_judge_batch(jb->judge, &vr, out, NULL, NULL, &jb->wr, &sh->o->profile,
                              sh->declared, sh->int_div_zero_value, &jb->chunk.t, &poison)) {
            fprintf(sh->err, "divergence sweep: out of memory judging a batch\n");
            return -1;
        }
        jb->restored = vr.repoison && !poison;
    }
    if (sample || poison) {
        jb->chunk.reruns++;
        jb->bt.check_inputs = 1;
        if (poison && sh->repoison) { /* the check wrote over the first run: again */
            if (worker_batch_run(jb->w, &jb->bt, dc, &expect, &jb->wr, &out)) {
                fprintf(sh->err, "divergence sweep: %s\n", worker_errmsg(jb->w));
                return -1;
            }
            if (!jb->wr.computed || jb->wr.outcome != WORKER_OUT_OK)
                return batch_failed(jb, dc, v, &expect);
        }
        if (worker_batch_rerun(jb->w, &jb->bt, dc, &expect, &jb->wr)) {
            fprintf(sh->err, "divergence sweep: %s\n", worker_errmsg(jb->w));
            return -1;
        }
        if (!jb->wr.computed || jb->wr.outcome != WORKER_OUT_OK)
            return batch_failed(jb, dc, v, &expect);
        if (sweep_judge_batch(jb->judge, v, jb->wr.out1, jb->wr.flags, jb->wr.out2, &jb->wr,
                              &sh->o->profile, sh->declared, sh->int_div_zero_value,
                              &jb->chunk.t, &poison)) {
            fprintf(sh->err, "divergence sweep: out of memory judging a batch\n");
            return -1;
        }
    }
    jb->chunk.listed += sweep_judge_listed(jb->judge);
    for (int k = 1; k < ORACLE_CLASS_COUNT; k++)
        if (jb->chunk.t.counts[k] + jb->chunk.t.accepted[k] > before.counts[k] + before.accepted[k])
            jb->chunk.batches[k]++;
    return 0;
}
