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

#include "harness/run/engine/isolation.h"
#include "harness/run/engine/recorder.h"
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

long sweep_record(const shared *sh, recorder *rec, trial *t, const divcase *c,
                  const verdict_example *ex, const char *said)
{
    char note[VERDICT_NOTE_MAX + WORKER_MESSAGE_MAX + 200];
    if (!isolation_cpu_note(sh->o->iso.cpu_model, NULL, verdict_emulation_fakeable(ex->cls), said,
                            note, sizeof note))
        return recorder_departure(rec, sh->info->name, t, c, ex, said);
    return recorder_departure(rec, sh->info->name, t, c, ex, note);
}

/* The findings of a chunk into the recorder r: one per signature (an
 * element's with its window as the reproducer, a batch's with the case
 * kept of its class), then the narrowed crashes; and the counts per
 * operand class. 0, -1 out of memory, -2 a store error. */
static int chunk_findings(shared *sh, const chunk_result *r, recorder *rec)
{
    const char *impl = sh->info->name;
    char note[WORKER_MESSAGE_MAX + 200];
    for (uint32_t i = 0; i < r->n_sigs; i++) {
        const sweep_signature *s = &r->sigs[i];
        verdict_example ex = s->ex;
        long at;
        if (s->operand_a != ORACLE_OPERAND_COUNT) {
            char operand[64];
            snprintf(operand, sizeof operand, "%s/%s", oracle_operand_name(s->operand_a),
                     oracle_operand_name(s->operand_b));
            if (store_record_operand_counts(sh->db, sh->run_id, impl, sh->variant, sh->sp.dtype,
                                            s->cls, operand, s->elements))
                return -2;
            divcase repro;
            if (window_case(sh, s, r->random, &repro))
                return -1;
            snprintf(note, sizeof note, "sweep chunk %" PRIu64 ": %" PRIu64 " elements of this "
                     "signature in the chunk; row %u, column %u of its batch%s%.300s", r->c,
                     s->elements, s->row, s->col, s->ex.note[0] ? "; " : "", s->ex.note);
            ex.index = s->window_at;
            ex.operand_a = s->operand_a;
            ex.operand_b = s->operand_b;
            at = sweep_record(sh, rec, NULL, &repro, &ex, note);
            divcase_free(&repro);
        } else {
            const case_finding *cf = NULL;
            for (uint32_t q = 0; q < r->n_cf && !cf; q++)
                if (r->cf[q].ex.cls == s->cls)
                    cf = &r->cf[q];
            if (!cf)
                continue; /* counted; its case could not be kept */
            snprintf(note, sizeof note, "sweep chunk %" PRIu64 ": %.400s", r->c, cf->ex.note);
            ex.cls = s->cls;
            ex.index = UINT64_MAX;
            at = sweep_record(sh, rec, NULL, &cf->c, &ex, note);
        }
        if (at < 0)
            return -1;
    }
    /* narrowed crashes: a finding of their own, beside the batch's */
    for (uint32_t q = 0; q < r->n_cf; q++)
        if (!strncmp(r->cf[q].ex.note, "narrowed", 8) &&
            sweep_record(sh, rec, NULL, &r->cf[q].c, &r->cf[q].ex, r->cf[q].ex.note) < 0)
            return -1;
    return 0;
}

/* Records a finished chunk: its counts, histogram, operand counts,
 * findings and place, in one transaction. */
int sweep_commit_chunk(shared *sh, const chunk_result *r)
{
    store *db = sh->db;
    const char *impl = sh->info->name;
    const counts *k = &r->chunk;
    uint64_t pairs = sweep_chunk_pairs(&sh->sp, r->c);
    recorder rec;
    recorder_init(&rec, STORE_DEFAULT_REPRODUCERS, UINT64_MAX);
    int rc = -2;
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
    rc = chunk_findings(sh, r, &rec);
    if (rc)
        goto fail;
    rc = -2;
    char tally[2048];
    sweep_counts_format(k, tally, sizeof tally);
    if (recorder_write(&rec, db, sh->run_id, &sh->new_signatures) ||
        store_sweep_chunk_done(db, sh->sweep_id, r->c, pairs, k->unjudged, tally) ||
        store_commit(db))
        goto fail;
    recorder_free(&rec);
    return 0;
fail:
    if (rc == -1)
        fprintf(sh->err, "divergence sweep: out of memory recording findings\n");
    else
        fprintf(sh->err, "divergence sweep: %s\n", store_errmsg(db));
    store_rollback(db);
    recorder_free(&rec);
    return -1;
}
