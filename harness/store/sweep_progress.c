/* SPDX-License-Identifier: MIT */
/*
 * harness/store/sweep_progress.c: what `divergence sweep` records.
 *
 * This file contains the sweep operations of store.h (schema 3;
 * harness/run/sweep/sweep.h is their caller): a sweep's row, the chunks it
 * finished (what --resume skips), its verdict, and its element counts
 * per difference class and operand class. Their statements are prepared
 * per call: a sweep writes once per chunk.
 */
#include <inttypes.h>
#include <sqlite3.h>
#include <string.h>

#include "harness/store/store_internal.h"
#include "oracle/compare.h"

int store_sweep_begin(store *s, int64_t run_id, const store_sweep_info *info, int64_t *sweep_id)
{
    const char *vname, *dname;
    sqlite3_stmt *st = NULL;
    int rc = -1;
    s->op = "begin sweep";
    if (!info || store_need_text(s, "implementation", info->implementation) ||
        store_need_text(s, "sweep space", info->space) ||
        store_need_text(s, "sweep plan", info->plan) ||
        store_name_ids(s, info->variant, info->dtype, &vname, &dname))
        return -1;
    if (strcmp(info->space, "exhaustive") && strcmp(info->space, "structured"))
        return store_fail(s, "sweep space '%s' is neither exhaustive nor structured", info->space);
    if (info->pairs > INT64_MAX || info->random_pairs > info->pairs || info->chunks > INT64_MAX)
        return store_fail(s, "sweep size out of range");
    if (store_begin_op(s, "begin sweep"))
        return -1;
    st = store_prepare_sql(
        s, "INSERT INTO sweeps(run_id, implementation, variant, dtype, attrs, space,"
           " layout, plan, pairs, random_pairs, chunks, started_at)"
           " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, " NOW ")");
    if (!st)
        goto done;
    store_bind_triple(st, run_id, info->implementation, vname, dname);
    store_bind_text(st, 5, info->attrs ? info->attrs : "");
    store_bind_text(st, 6, info->space);
    store_bind_text(st, 7, info->layout ? info->layout : "");
    store_bind_text(st, 8, info->plan);
    sqlite3_bind_int64(st, 9, (int64_t)info->pairs);
    sqlite3_bind_int64(st, 10, (int64_t)info->random_pairs);
    sqlite3_bind_int64(st, 11, (int64_t)info->chunks);
    if (store_step_done(s, st))
        goto done;
    *sweep_id = sqlite3_last_insert_rowid(s->db);
    rc = 0;
done:
    sqlite3_finalize(st);
    return store_end_op(s, rc);
}

int store_sweep_find(store *s, const char *implementation, const char *plan, int64_t *sweep_id,
                     int64_t *run_id)
{
    sqlite3_stmt *st;
    int rc = -1, step;
    s->op = "find sweep";
    s->err[0] = '\0';
    if (store_need_text(s, "implementation", implementation) ||
        store_need_text(s, "sweep plan", plan))
        return -1;
    st = store_prepare_sql(s, "SELECT w.id, w.run_id FROM sweeps w JOIN runs r ON r.id = w.run_id"
                              " WHERE w.implementation = ?1 AND w.plan = ?2 AND w.verdict IS NULL"
                              " AND r.status <> 'complete' ORDER BY w.id DESC LIMIT 1");
    if (!st)
        return -1;
    store_bind_text(st, 1, implementation);
    store_bind_text(st, 2, plan);
    step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        *sweep_id = sqlite3_column_int64(st, 0);
        *run_id = sqlite3_column_int64(st, 1);
        rc = 0;
    } else if (step == SQLITE_DONE) {
        *sweep_id = *run_id = 0;
        rc = 0;
    } else {
        store_fail_db(s);
    }
    sqlite3_finalize(st);
    return rc;
}

int store_sweep_chunks(store *s, int64_t sweep_id, store_sweep_chunk_fn fn, void *ctx)
{
    sqlite3_stmt *st;
    int step, rc = 0;
    s->op = "read sweep chunks";
    s->err[0] = '\0';
    st = store_prepare_sql(s, "SELECT chunk, pairs, pairs_unjudged, tally FROM sweep_chunks"
                              " WHERE sweep_id = ?1 ORDER BY chunk");
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, sweep_id);
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t c = sqlite3_column_int64(st, 0), p = sqlite3_column_int64(st, 1),
                u = sqlite3_column_int64(st, 2);
        const char *t = (const char *)sqlite3_column_text(st, 3);
        if (c < 0 || p < 0 || u < 0 || u > p)
            rc = store_fail(s, "sweep %" PRId64 ": chunk %" PRId64 " has bad counts", sweep_id, c);
        else if (fn(ctx, (uint64_t)c, (uint64_t)p, (uint64_t)u, t ? t : ""))
            rc = store_fail(s, "sweep %" PRId64 ": chunk %" PRId64 " refused by the caller",
                            sweep_id, c);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = store_fail_db(s);
    sqlite3_finalize(st);
    return rc;
}

int store_sweep_chunk_done(store *s, int64_t sweep_id, uint64_t chunk, uint64_t pairs,
                           uint64_t unjudged, const char *tally)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    s->op = "record sweep chunk";
    if (chunk > INT64_MAX || pairs > INT64_MAX || unjudged > pairs)
        return store_fail(s, "sweep chunk out of range");
    if (store_begin_op(s, "record sweep chunk"))
        return -1;
    st = store_prepare_sql(
        s, "INSERT INTO sweep_chunks(sweep_id, chunk, pairs, pairs_unjudged, tally, done_at)"
           " VALUES(?1, ?2, ?3, ?4, ?5, " NOW ")");
    if (!st)
        goto done;
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_int64(st, 2, (int64_t)chunk);
    sqlite3_bind_int64(st, 3, (int64_t)pairs);
    sqlite3_bind_int64(st, 4, (int64_t)unjudged);
    store_bind_text(st, 5, tally ? tally : "");
    if (store_step_done(s, st))
        goto done;
    sqlite3_finalize(st);
    st = store_prepare_sql(s, "UPDATE sweeps SET chunks_done = chunks_done + 1,"
                              " pairs_done = pairs_done + ?2, pairs_unjudged = pairs_unjudged + ?3"
                              " WHERE id = ?1");
    if (!st)
        goto done;
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_int64(st, 2, (int64_t)pairs);
    sqlite3_bind_int64(st, 3, (int64_t)unjudged);
    rc = store_step_one(s, st, "sweep", sweep_id);
done:
    sqlite3_finalize(st);
    return store_end_op(s, rc);
}

int store_record_operand_counts(store *s, int64_t run_id, const char *implementation,
                                uint32_t variant, uint32_t dtype, uint32_t cls,
                                const char *operand_class, uint64_t elements)
{
    const char *vname, *dname;
    sqlite3_stmt *st = NULL;
    int rc = -1;
    s->op = "record operand counts";
    if (store_need_text(s, "implementation", implementation) ||
        store_need_text(s, "operand class", operand_class) ||
        store_name_ids(s, variant, dtype, &vname, &dname))
        return -1;
    if (cls >= ORACLE_CLASS_COUNT)
        return store_fail(s, "unknown difference class %" PRIu32, cls);
    if (elements > INT64_MAX)
        return store_fail(s, "count above INT64_MAX");
    if (store_begin_op(s, "record operand counts"))
        return -1;
    if ((st = store_prepare(s, SQL_OPERAND_COUNTS_ADD))) { /* kept: a sweep records many */
        store_bind_triple(st, run_id, implementation, vname, dname);
        store_bind_text(st, 5, oracle_class_name(cls));
        store_bind_text(st, 6, operand_class);
        sqlite3_bind_int64(st, 7, (int64_t)elements);
        rc = store_step_done(s, st);
    }
    return store_end_op(s, rc);
}

int store_sweep_finish(store *s, int64_t sweep_id, const char *verdict)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    s->op = "finish sweep";
    if (store_begin_op(s, "finish sweep"))
        return -1;
    st = store_prepare_sql(
        s, "UPDATE sweeps SET verdict = ?2, finished_at = " NOW " WHERE id = ?1");
    if (!st)
        goto done;
    sqlite3_bind_int64(st, 1, sweep_id);
    if (verdict)
        store_bind_text(st, 2, verdict);
    rc = store_step_one(s, st, "sweep", sweep_id);
done:
    sqlite3_finalize(st);
    return store_end_op(s, rc);
}
