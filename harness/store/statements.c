/* SPDX-License-Identifier: MIT */
/*
 * harness/store/statements.c: the statement catalogue and how a statement
 * runs.
 *
 * This file contains the text of the statements the store keeps prepared
 * (STORE_SQL_LIST in store_internal.h: prepared on first use, kept until
 * store_close), the helpers that prepare, bind, step and reset them, and
 * the store's error messages ("FILE: OPERATION: WHY"), which every other
 * file of the store sets through store_fail and store_fail_db.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "harness/store/store_internal.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"

#define SQL_TEXT_(ID, sql) sql,
static const char *const sql_text[SQL_COUNT_] = {STORE_SQL_LIST(SQL_TEXT_)};
#undef SQL_TEXT_

/* ------------------------------------------------------------------------
 * Errors.
 * ---------------------------------------------------------------------- */
void store_copy_text(char *dst, size_t len, const char *src)
{
    if (!dst || !len)
        return;
    snprintf(dst, len, "%s", src ? src : "");
}

int store_fail(store *s, const char *fmt, ...)
{
    char detail[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    snprintf(s->err, sizeof s->err, "%s: %s: %s", s->path, s->op ? s->op : "store", detail);
    return -1;
}

/* A failure SQLite reported on s->db. A failed write says what the
 * system said and, when a file size limit (ulimit -f: RLIMIT_FSIZE, with
 * SIGXFSZ ignored) is in force, that limit: SQLite's own word for it is
 * only "disk I/O error". */
int store_fail_db(store *s)
{
    s->code = sqlite3_errcode(s->db);
    int sys = sqlite3_system_errno(s->db);
    int code = s->code & 0xff;
    struct rlimit fsize;
    if ((code == SQLITE_IOERR || code == SQLITE_FULL) && getrlimit(RLIMIT_FSIZE, &fsize) == 0 &&
        fsize.rlim_cur != RLIM_INFINITY)
        return store_fail(s, "%s (a file may not grow past %llu bytes here: the file size "
                             "limit, ulimit -f)",
                          sqlite3_errmsg(s->db), (unsigned long long)fsize.rlim_cur);
    if ((code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN) && sys)
        return store_fail(s, "%s (%s)", sqlite3_errmsg(s->db), strerror(sys));
    return store_fail(s, "%s", sqlite3_errmsg(s->db));
}

int store_fail_readonly(store *s)
{
    return store_fail(s, "the database is read-only (%s)",
                      s->readonly == 1 ? "opened for reading only" : "the file is not writable");
}

/* ------------------------------------------------------------------------
 * Statements.
 * ---------------------------------------------------------------------- */
sqlite3_stmt *store_prepare(store *s, int id)
{
    if (!s->stmt[id] && sqlite3_prepare_v3(s->db, sql_text[id], -1, SQLITE_PREPARE_PERSISTENT,
                                           &s->stmt[id], NULL) != SQLITE_OK) {
        store_fail_db(s);
        s->stmt[id] = NULL;
        return NULL;
    }
    return s->stmt[id];
}

void store_reset_stmt(sqlite3_stmt *st)
{
    if (st) {
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
    }
}

/* Runs a statement that returns no rows (or whose rows are ignored). */
int store_step_done(store *s, sqlite3_stmt *st)
{
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        ;
    if (rc != SQLITE_DONE) {
        store_fail_db(s);
        store_reset_stmt(st);
        return -1;
    }
    store_reset_stmt(st);
    return 0;
}

void store_bind_triple(sqlite3_stmt *st, int64_t run_id, const char *implementation,
                       const char *variant, const char *dtype)
{
    sqlite3_bind_int64(st, 1, run_id);
    store_bind_text(st, 2, implementation);
    store_bind_text(st, 3, variant);
    store_bind_text(st, 4, dtype);
}

int store_step_one(store *s, sqlite3_stmt *st, const char *what, int64_t id)
{
    if (store_step_done(s, st))
        return -1;
    if (sqlite3_changes(s->db) != 1)
        return store_fail(s, "no %s %" PRId64, what, id);
    return 0;
}

int store_steps_ended(store *s, int step)
{
    if (step == SQLITE_DONE)
        return 0;
    store_fail_db(s);
    return -1;
}

/* Steps to the first row; -1 (with the error) when there is none. The
 * caller reads the row, then calls step_done or finish. */
int store_step_row(store *s, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        return 0;
    if (rc == SQLITE_DONE)
        store_fail(s, "no row returned");
    else
        store_fail_db(s);
    store_reset_stmt(st);
    return -1;
}

int store_exec(store *s, const char *sql)
{
    if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return store_fail_db(s);
    return 0;
}

/* Ends a failed transaction without touching the message of the failure. */
void store_exec_quiet(store *s, const char *sql)
{
    (void)sqlite3_exec(s->db, sql, NULL, NULL, NULL);
}

void store_bind_text(sqlite3_stmt *st, int i, const char *text)
{
    if (text)
        sqlite3_bind_text(st, i, text, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, i);
}

sqlite3_stmt *store_prepare_sql(store *s, const char *sql)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        store_fail_db(s);
        sqlite3_finalize(st);
        return NULL;
    }
    return st;
}

int store_read_int(store *s, int id, int64_t *out)
{
    sqlite3_stmt *st = store_prepare(s, id);
    if (!st || store_step_row(s, st))
        return -1;
    *out = sqlite3_column_int64(st, 0);
    return store_step_done(s, st);
}

/* ------------------------------------------------------------------------
 * Names of the ids the store keeps as text.
 * ---------------------------------------------------------------------- */
int store_name_ids(store *s, uint32_t variant, uint32_t dtype, const char **vname,
                          const char **dname)
{
    const oracle_variant *v = oracle_variant_get(variant);
    if (!v)
        return store_fail(s, "unknown variant %" PRIu32, variant);
    if (!oracle_dtype(dtype))
        return store_fail(s, "unknown dtype %" PRIu32, dtype);
    *vname = v->name;
    *dname = oracle_dtype_tag(dtype);
    return 0;
}

int store_need_text(store *s, const char *what, const char *text)
{
    if (!text || !*text)
        return store_fail(s, "%s is missing", what);
    return 0;
}
