/* SPDX-License-Identifier: MIT */
/*
 * This file contains the judging of one batch of a sweep (sweep.h:
 * sweep_judge_*): each row checked in bulk against the exact answers
 * (oracle/rowcheck.h), the listed elements through the full oracle and
 * the verdict, the findings gathered per signature with a window of
 * values for a small reproducer.
 */
#include "harness/run/sweep/sweep_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/run/engine/trial.h"
#include "oracle/dtype.h"
#include "oracle/rowcheck.h"
#include "oracle/value.h"

struct sweep_judge {
    uint64_t cap;          /* pairs */
    uint32_t *list;        /* listed batch indices */
    uint8_t *ma, *mb, *mo1, *mo2, *mflags; /* the 1-D case of the listed pairs */
    uint64_t *mpos;        /* its element m is batch element mpos[m] */
    oracle_elem *expected;
    sweep_signature *sigs;
    uint32_t n_sigs;
    uint64_t listed;
    const sweep_view *view; /* during a call */
    int failed;
};

sweep_judge *sweep_judge_new(uint64_t max_pairs)
{
    sweep_judge *j = dvg_calloc(1, sizeof *j);
    if (!j)
        return NULL;
    uint64_t n = max_pairs ? max_pairs : 1;
    j->cap = n;
    j->list = dvg_malloc(n * sizeof *j->list);
    j->ma = dvg_malloc(n * 8);
    j->mb = dvg_malloc(n * 8);
    j->mo1 = dvg_malloc(n * 8);
    j->mo2 = dvg_malloc(n * 8);
    j->mflags = dvg_malloc(n);
    j->mpos = dvg_malloc(n * sizeof *j->mpos);
    j->expected = dvg_malloc(n * sizeof *j->expected);
    j->sigs = dvg_calloc(MAX_SIGNATURES, sizeof *j->sigs);
    if (!j->list || !j->ma || !j->mb || !j->mo1 || !j->mo2 || !j->mflags || !j->mpos ||
        !j->expected || !j->sigs) {
        sweep_judge_free(j);
        return NULL;
    }
    return j;
}

void sweep_judge_free(sweep_judge *j)
{
    if (!j)
        return;
    dvg_free(j->list);
    dvg_free(j->ma);
    dvg_free(j->mb);
    dvg_free(j->mo1);
    dvg_free(j->mo2);
    dvg_free(j->mflags);
    dvg_free(j->mpos);
    dvg_free(j->expected);
    dvg_free(j->sigs);
    dvg_free(j);
}

const sweep_signature *sweep_judge_signatures(const sweep_judge *j, uint32_t *n)
{
    *n = j->n_sigs;
    return j->sigs;
}

void sweep_judge_clear(sweep_judge *j)
{
    j->n_sigs = 0;
}

uint64_t sweep_judge_listed(const sweep_judge *j)
{
    return j->listed;
}

/* Value j of row i's other operand. */
static uint64_t view_col(const sweep_view *v, uint32_t i, uint64_t col)
{
    return oracle_load(v->rules->dtype, v->cols, (uint64_t)i * v->col_stride + col);
}

/* Adds one finding of a batch (index: batch element, or UINT64_MAX) to
 * the signature list. */
void sweep_judge_add_signature(sweep_judge *j, const sweep_view *v, const verdict_example *ex,
                          uint64_t index)
{
    uint32_t oa = index == UINT64_MAX ? ORACLE_OPERAND_COUNT : ex->operand_a;
    uint32_t ob = index == UINT64_MAX ? ORACLE_OPERAND_COUNT : ex->operand_b;
    for (uint32_t i = 0; i < j->n_sigs; i++) {
        sweep_signature *s = &j->sigs[i];
        if (s->cls == ex->cls && s->operand_a == oa && s->operand_b == ob) {
            s->elements += ex->elements;
            return;
        }
    }
    if (j->n_sigs == MAX_SIGNATURES)
        return;
    sweep_signature *s = &j->sigs[j->n_sigs++];
    memset(s, 0, sizeof *s);
    s->cls = ex->cls;
    s->operand_a = oa;
    s->operand_b = ob;
    s->accepted = ex->accepted;
    s->elements = ex->elements;
    s->ex = *ex;
    s->ex.index = index;
    if (index == UINT64_MAX || !v)
        return;
    uint32_t row = (uint32_t)(index / v->n), col = (uint32_t)(index % v->n);
    uint32_t start = col / SWEEP_WINDOW * SWEEP_WINDOW;
    uint32_t len = v->n - start < SWEEP_WINDOW ? v->n - start : SWEEP_WINDOW;
    s->row = row;
    s->col = col;
    s->row_value = v->fixed[row];
    s->row_is_a = v->row_is_a;
    s->window_n = len;
    s->window_at = col - start;
    for (uint32_t t = 0; t < len; t++)
        s->window[t] = view_col(v, row, start + t);
}

static int judge_sink(void *ctx, const divcase *c, const verdict_example *ex)
{
    sweep_judge *j = ctx;
    (void)c;
    uint64_t index = ex->index == UINT64_MAX ? UINT64_MAX : j->mpos[ex->index];
    sweep_judge_add_signature(j, j->view, ex, index);
    return 0;
}

/* Rules under which equal 1-D shapes are valid, for the case of listed
 * pairs: the attributes that only shape the output are reset; the element
 * rules stay. */
static int mini_rules(const oracle_rules *r, oracle_rules *out, oracle_plan *p,
                      const oracle_shape *s)
{
    oracle_error why;
    *out = *r;
    if (oracle_plan_shapes(out, s, s, p, &why) == ORACLE_OK)
        return 0;
    dvg_attrs at = r->attrs;
    at.broadcast = 0;
    at.axis_set = 0;
    at.axis = -1;
    at.auto_broadcast = DVG_BROADCAST_NONE;
    if (oracle_rules_resolve(r->variant->id, r->dtype, &at, out, &why) != ORACLE_OK ||
        oracle_plan_shapes(out, s, s, p, &why) != ORACLE_OK)
        return -1;
    return 0;
}

/* Step 1: every row of the batch in bulk (oracle_rowcheck); the elements
 * to judge in full go to j->list (a row with an unwritten or
 * nondeterministic element whole). Returns how many are listed; adds the
 * poisoned elements and the subnormal results of the rows not listed
 * whole. */
static uint64_t check_rows(sweep_judge *j, const sweep_view *v, const uint8_t *out,
                           const uint8_t *flags, int count_sub, uint64_t *poisoned,
                           uint64_t *subnormal)
{
    const oracle_rules *r = v->rules;
    uint32_t bits = oracle_dtype(r->dtype)->bits;
    uint64_t listed = 0;
    for (uint32_t i = 0; i < v->k; i++) {
        uint64_t base = (uint64_t)i * v->n;
        oracle_row row = {r, v->fixed[i], v->row_is_a,
                          v->cols + (uint64_t)i * v->col_stride * bits / 8, out + base * bits / 8,
                          v->n, v->poison, count_sub, v->every_value,
                          v->repoison && !flags ? v->repoison + base * bits / 8 : NULL};
        oracle_row_result res;
        uint32_t *l = j->list + listed;
        oracle_rowcheck(&row, l, &res);
        *poisoned += res.poison;
        int whole = 0;
        if (flags)
            for (uint32_t c = 0; c < v->n && !whole; c++)
                whole = flags[base + c] != 0;
        if (whole) { /* a row with unwritten or nondeterministic elements: in full */
            for (uint32_t c = 0; c < v->n; c++)
                l[c] = (uint32_t)(base + c);
            listed += v->n;
        } else {
            for (uint32_t q = 0; q < res.listed; q++)
                l[q] += (uint32_t)base;
            listed += res.listed;
            *subnormal += res.subnormal;
        }
    }
    return listed;
}

/* Step 2: the `listed` elements of j->list gathered into a case of their
 * own (operands, both outputs, flags, positions) and judged by
 * verdict_case, with wr's side effects. 0, or -1. */
static int judge_listed(sweep_judge *j, const sweep_view *v, const uint8_t *out,
                        const uint8_t *flags, const uint8_t *out2, const worker_result *wr,
                        const verdict_profile *prof, uint64_t declared,
                        int64_t int_div_zero_value, verdict_tally *t, uint64_t listed)
{
    const oracle_rules *r = v->rules;
    uint32_t dtype = r->dtype;
    for (uint64_t m = 0; m < listed; m++) {
        uint64_t idx = j->list[m];
        uint32_t i = (uint32_t)(idx / v->n);
        uint64_t col = view_col(v, i, idx % v->n);
        oracle_store(dtype, j->ma, m, v->row_is_a ? v->fixed[i] : col);
        oracle_store(dtype, j->mb, m, v->row_is_a ? col : v->fixed[i]);
        uint64_t o1 = oracle_load(dtype, out, idx);
        oracle_store(dtype, j->mo1, m, o1);
        oracle_store(dtype, j->mo2, m, flags ? oracle_load(dtype, out2, idx) : o1);
        j->mflags[m] = flags ? flags[idx] : 0;
        j->mpos[m] = idx;
        if (v->repoison && !flags) /* read: the poison back (the rest had it from step 1) */
            oracle_store(dtype, v->repoison, idx, v->poison);
    }
    divcase c;
    memset(&c, 0, sizeof c);
    snprintf(c.id, sizeof c.id, "sweep-listed");
    c.variant = r->variant->id;
    c.dtype = dtype;
    c.a_shape.rank = c.b_shape.rank = 1;
    c.a_shape.dims[0] = c.b_shape.dims[0] = (int64_t)listed;
    c.a = j->ma;
    c.b = j->mb;
    c.a_bytes = c.b_bytes = oracle_nbytes(dtype, listed);
    oracle_rules mr;
    oracle_plan p;
    if (mini_rules(r, &mr, &p, &c.a_shape))
        return -1;
    c.attrs = mr.attrs;
    oracle_expect_tensor(&mr, &p, c.a, c.b, j->expected);
    verdict_outputs mo; /* the listed pairs as computed, with wr's side effects */
    memset(&mo, 0, sizeof mo);
    if (wr)
        trial_outputs_from_worker(wr, &mo);
    mo.outcome = VERDICT_OUT_OK;
    mo.has_shape = 1;
    mo.shape = p.out;
    mo.computed = 1;
    mo.out1 = j->mo1;
    mo.out2 = j->mo2;
    mo.flags = flags ? j->mflags : NULL;
    j->view = v;
    int rc = verdict_case(&mr, &c, 1, &p, j->expected, &mo, prof, declared, int_div_zero_value,
                          t, judge_sink, j);
    j->view = NULL;
    return rc < 0 ? -1 : 0;
}

int sweep_judge_batch(sweep_judge *j, const sweep_view *v, const uint8_t *out,
                      const uint8_t *flags, const uint8_t *out2, const worker_result *wr,
                      const verdict_profile *prof, uint64_t declared, int64_t int_div_zero_value,
                      verdict_tally *t, uint64_t *poison)
{
    uint64_t total = (uint64_t)v->k * v->n, poisoned = 0, subnormal = 0;
    int count_sub = (declared & DVG_DEV_FLUSH_SUBNORMAL_OUTPUT) != 0;
    uint64_t subnormal_before = t->subnormal_results;
    *poison = 0;
    j->listed = 0;
    if (total > j->cap)
        return -1;
    uint64_t listed = check_rows(j, v, out, flags, count_sub, &poisoned, &subnormal);
    *poison = poisoned;
    if (!flags && poisoned)
        return 0;
    t->elements += total - listed;
    t->subnormal_results += subnormal;
    j->listed = listed;
    int leaks = wr && wr->side_effects;
    if (!listed && !leaks) {
        t->cases++;
        return 0;
    }
    uint64_t cases = t->cases;
    int rc = judge_listed(j, v, out, flags, out2, wr, prof, declared, int_div_zero_value, t, listed);
    t->cases = cases + 1;
    if (!count_sub)
        t->subnormal_results = subnormal_before;
    return rc;
}
