/* SPDX-License-Identifier: MIT */
/*
 * This file contains the recording of a finished sweep chunk: counts,
 * ULP histogram, counts per operand class, one finding per signature
 * with a small reproducer in the sweep's layout, and the chunk's place,
 * in one transaction.
 */
#include "harness/run/sweep/sweep_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/dtype.h"
#include "oracle/value.h"

/* The reproducer of an element signature: its window in the sweep's
 * layout (the random pairs: equal shapes). */
static int window_case(const shared *sh, const sweep_signature *s, int random, divcase *c)
{
    uint32_t dtype = sh->sp.dtype, n = s->window_n;
    int layout = random ? L_FLAT : sh->sp.layout;
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "sweep:%s:%s=%s", oracle_dtype_tag(dtype),
             s->row_is_a ? "a" : "b", "");
    char hex[24];
    size_t used = strlen(c->id);
    snprintf(c->id + used, sizeof c->id - used, "%s",
             oracle_bits_format(dtype, s->row_value, hex, sizeof hex));
    c->variant = sh->variant;
    c->dtype = dtype;
    c->attrs = sh->attrs;
    switch (layout) {
    case L_NUMPY:
        c->a_shape.rank = 2;
        c->a_shape.dims[0] = c->a_shape.dims[1] = 1;
        c->b_shape.rank = 1;
        c->b_shape.dims[0] = n;
        break;
    case L_AXIS0:
        c->a_shape.rank = 2;
        c->a_shape.dims[0] = 1;
        c->a_shape.dims[1] = n;
        c->b_shape.rank = 1;
        c->b_shape.dims[0] = 1;
        break;
    default:
        c->a_shape.rank = c->b_shape.rank = 1;
        c->a_shape.dims[0] = c->b_shape.dims[0] = n;
        break;
    }
    if (divcase_alloc(c, UINT64_C(1) << 20))
        return -1;
    for (uint32_t j = 0; j < n; j++) {
        if (layout == L_NUMPY) {
            oracle_store(dtype, c->b, j, s->window[j]);
        } else if (layout == L_AXIS0) {
            oracle_store(dtype, c->a, j, s->window[j]);
        } else {
            oracle_store(dtype, c->a, j, s->row_value);
            oracle_store(dtype, c->b, j, s->window[j]);
        }
    }
    if (layout == L_NUMPY)
        oracle_store(dtype, c->a, 0, s->row_value);
    else if (layout == L_AXIS0)
        oracle_store(dtype, c->b, 0, s->row_value);
    return 0;
}

/* Records a finished chunk: its counts, histogram, operand counts,
 * findings and place, in one transaction. Called with sh->store_lock held. */
int sweep_commit_chunk(job *jb, uint64_t c, int random)
{
    shared *sh = jb->sh;
    store *db = sh->db;
    const char *impl = sh->info->name;
    const counts *k = &jb->chunk;
    uint64_t pairs = sweep_chunk_pairs(&sh->sp, c);
    if (store_begin(db))
        goto fail;
    for (int cls = 0; cls < ORACLE_CLASS_COUNT; cls++) {
        uint64_t n = cls == 0 ? k->t.elements : k->t.counts[cls] + k->t.accepted[cls];
        uint64_t cases = cls == 0 ? k->t.cases : k->batches[cls];
        if (n && store_record_counts(db, sh->run_id, impl, sh->variant, sh->sp.dtype, (uint32_t)cls,
                                     n, cases))
            goto fail;
    }
    if (store_record_ulp_histogram(db, sh->run_id, impl, sh->variant, sh->sp.dtype, k->t.ulp_hist,
                                   VERDICT_ULP_BUCKETS))
        goto fail;
    uint32_t n_sigs;
    const sweep_signature *sigs = sweep_judge_signatures(jb->judge, &n_sigs);
    for (uint32_t i = 0; i < n_sigs; i++) {
        const sweep_signature *s = &sigs[i];
        char operand[64] = "", expected[128] = "", actual[VERDICT_ACTUAL_MAX] = "";
        char note[WORKER_MESSAGE_MAX + 200];
        divcase repro;
        int have = 0;
        store_finding f;
        memset(&f, 0, sizeof f);
        f.implementation = impl;
        f.cls = s->cls;
        f.ulps = UINT64_MAX;
        if (s->operand_a != ORACLE_OPERAND_COUNT) {
            snprintf(operand, sizeof operand, "%s/%s", oracle_operand_name(s->operand_a),
                     oracle_operand_name(s->operand_b));
            if (store_record_operand_counts(db, sh->run_id, impl, sh->variant, sh->sp.dtype,
                                            s->cls, operand, s->elements))
                goto fail;
            if (window_case(sh, s, random, &repro))
                goto oom;
            have = 1;
            verdict_elem_text(sh->sp.dtype, &s->ex.expected, expected, sizeof expected);
            verdict_actual_text(sh->sp.dtype, &s->ex, actual, sizeof actual);
            snprintf(note, sizeof note, "sweep chunk %" PRIu64 ": %" PRIu64 " elements of this "
                     "signature in the chunk; row %u, column %u of its batch%s%.300s", c,
                     s->elements, s->row, s->col, s->ex.note[0] ? "; " : "", s->ex.note);
            f.c = &repro;
            f.element = s->window_at;
            f.expected = expected;
            f.actual = actual;
            if (s->cls == ORACLE_CLASS_WRONG_VALUE)
                f.ulps = s->ex.ulps;
        } else {
            const case_finding *cf = NULL;
            for (uint32_t q = 0; q < jb->n_cf && !cf; q++)
                if (jb->cf[q].ex.cls == s->cls)
                    cf = &jb->cf[q];
            if (!cf)
                continue; /* counted; its case could not be kept */
            snprintf(note, sizeof note, "sweep chunk %" PRIu64 ": %.400s", c, cf->ex.note);
            f.c = &cf->c;
            f.element = -1;
        }
        f.operand_class = operand;
        f.note = note;
        int is_new = 0;
        int rc = store_record_finding(db, sh->run_id, &f, NULL, &is_new);
        if (have)
            divcase_free(&repro);
        if (rc)
            goto fail;
        sh->new_signatures += (uint64_t)is_new;
    }
    /* narrowed crashes: a finding of their own, beside the batch's */
    for (uint32_t q = 0; q < jb->n_cf; q++) {
        const case_finding *cf = &jb->cf[q];
        if (strncmp(cf->ex.note, "narrowed", 8))
            continue;
        store_finding f;
        memset(&f, 0, sizeof f);
        f.implementation = impl;
        f.cls = cf->ex.cls;
        f.operand_class = "";
        f.c = &cf->c;
        f.element = -1;
        f.ulps = UINT64_MAX;
        f.note = cf->ex.note;
        int is_new = 0;
        if (store_record_finding(db, sh->run_id, &f, NULL, &is_new))
            goto fail;
        sh->new_signatures += (uint64_t)is_new;
    }
    char tally[2048];
    sweep_counts_format(k, tally, sizeof tally);
    if (store_sweep_chunk_done(db, sh->sweep_id, c, pairs, k->unjudged, tally) || store_commit(db))
        goto fail;
    return 0;
oom:
    store_rollback(db);
    fprintf(sh->err, "divergence sweep: out of memory recording findings\n");
    return -1;
fail:
    fprintf(sh->err, "divergence sweep: %s\n", store_errmsg(db));
    store_rollback(db);
    return -1;
}
