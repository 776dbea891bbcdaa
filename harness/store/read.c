/* SPDX-License-Identifier: MIT */
/*
 * harness/store/read.c: reading the store with SQL.
 *
 * This file contains store_select, which runs one read-only statement
 * with bound parameters and hands its rows to a callback (reports/ and
 * `divergence query` read the store this way), and the store_row_*
 * accessors of a row.
 */
#include <inttypes.h>
#include <sqlite3.h>

#include "harness/store/store_internal.h"

struct store_row {
    sqlite3_stmt *st;
};

static int bind_params(store *s, sqlite3_stmt *st, const store_param *params, size_t n)
{
    if ((size_t)sqlite3_bind_parameter_count(st) != n)
        return store_fail(s, "the statement takes %d parameters, %zu given",
                          sqlite3_bind_parameter_count(st), n);
    for (size_t i = 0; i < n; i++) {
        int k = (int)i + 1, r;
        switch (params[i].type) {
        case STORE_INT: r = sqlite3_bind_int64(st, k, params[i].i); break;
        case STORE_REAL: r = sqlite3_bind_double(st, k, params[i].real); break;
        case STORE_TEXT:
            r = params[i].text ? sqlite3_bind_text(st, k, params[i].text, -1, SQLITE_STATIC)
                               : sqlite3_bind_null(st, k);
            break;
        case STORE_NULL: r = sqlite3_bind_null(st, k); break;
        default: return store_fail(s, "parameter %zu has unknown type %d", i + 1, params[i].type);
        }
        if (r != SQLITE_OK)
            return store_fail_db(s);
    }
    return 0;
}

int store_select(store *s, const char *sql, const store_param *params, size_t n_params,
                 store_row_fn fn, void *ctx)
{
    sqlite3_stmt *st = NULL;
    const char *tail = NULL;
    int64_t rows = 0;
    int rc = -1, step;

    s->op = "select";
    s->err[0] = '\0';
    if (!sql || !fn || (n_params && !params))
        return store_fail(s, "no statement, no callback or no parameters");
    if (!s->read_views_made) { /* made on first use: writers rarely read */
        if (store_create_read_views(s))
            return -1;
        s->read_views_made = 1;
    }
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, &tail) != SQLITE_OK) {
        store_fail_db(s);
        goto done;
    }
    while (tail && (*tail == ' ' || *tail == '\n' || *tail == '\t' || *tail == '\r' ||
                    *tail == ';'))
        tail++;
    if (!st || (tail && *tail)) {
        store_fail(s, "expected exactly one statement");
        goto done;
    }
    if (!sqlite3_stmt_readonly(st)) {
        store_fail(s, "not a read-only statement");
        goto done;
    }
    if (bind_params(s, st, params, n_params))
        goto done;
    store_row row = {st};
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        rows++;
        if (fn(ctx, &row)) {
            store_fail(s, "stopped by the caller at row %" PRId64, rows);
            goto done;
        }
    }
    rc = store_steps_ended(s, step);
done:
    sqlite3_finalize(st);
    return rc;
}

int store_row_columns(const store_row *r)
{
    return sqlite3_column_count(r->st);
}

const char *store_row_name(const store_row *r, int col)
{
    const char *name = sqlite3_column_name(r->st, col);
    return name ? name : "";
}

int store_row_type(const store_row *r, int col)
{
    switch (sqlite3_column_type(r->st, col)) {
    case SQLITE_INTEGER: return STORE_INT;
    case SQLITE_FLOAT: return STORE_REAL;
    case SQLITE_TEXT: return STORE_TEXT;
    case SQLITE_BLOB: return STORE_BLOB;
    default: return STORE_NULL;
    }
}

int64_t store_row_int(const store_row *r, int col)
{
    return sqlite3_column_int64(r->st, col);
}

double store_row_real(const store_row *r, int col)
{
    return sqlite3_column_double(r->st, col);
}

const char *store_row_text(const store_row *r, int col)
{
    if (sqlite3_column_type(r->st, col) == SQLITE_NULL)
        return NULL;
    return (const char *)sqlite3_column_text(r->st, col);
}

const void *store_row_blob(const store_row *r, int col, size_t *len)
{
    const void *p = sqlite3_column_blob(r->st, col);
    *len = p ? (size_t)sqlite3_column_bytes(r->st, col) : 0;
    return p;
}

/* store_select's callback: the three counts of store_run_changes. */
static int on_changes(void *ctx, const store_row *r)
{
    int64_t *n = ctx;
    for (int i = 0; i < 3; i++)
        n[i] = store_row_int(r, i);
    return 0;
}

int store_run_changes(store *s, int64_t run_id, int64_t *n_new, int64_t *n_reopened,
                      int64_t *n_fixed)
{
    int64_t n[3] = {0, 0, 0};
    store_param p = STORE_PARAM_INT(run_id);
    if (store_select(s,
                     "SELECT coalesce(sum(kind = 'new'), 0), coalesce(sum(kind = 'reopened'), 0),"
                     " coalesce(sum(kind = 'fixed'), 0) FROM read_signature_events"
                     " WHERE run_id = ?1",
                     &p, 1, on_changes, n))
        return -1;
    *n_new = n[0];
    *n_reopened = n[1];
    *n_fixed = n[2];
    return 0;
}
