/* SPDX-License-Identifier: MIT */
/*
 * harness/store/check.c: checking a file without changing it.
 *
 * This file contains the one check that decides whether a database is
 * sound (store_verify: SQLite's integrity_check and foreign_key_check),
 * and store_check (`divergence db check`), which opens the file read-only
 * accepting an older schema and reports what store_verify found. A
 * writable store_open and store_merge's inputs run the same check, so
 * nothing is written into, or copied from, a file `db check` reports
 * FAILED.
 */
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "harness/store/store_internal.h"

/* Appends `line` to problem (len bytes) after `sep`, newlines turned
 * into spaces (one line). *used: bytes used so far. */
static void add_problem(char *problem, size_t len, size_t *used, const char *sep,
                        const char *line)
{
    if (*used + 1 >= len)
        return;
    int n = snprintf(problem + *used, len - *used, "%s%s", sep, line);
    if (n < 0)
        return;
    size_t end = *used + (size_t)n < len ? *used + (size_t)n : len - 1;
    for (size_t i = *used; i < end; i++)
        if (problem[i] == '\n')
            problem[i] = ' ';
    *used = end;
}

int store_verify(store *s, char *problem, size_t len)
{
    sqlite3_stmt *st = NULL;
    int rc = -1, step;
    size_t used = 0;

    problem[0] = '\0';
    if (sqlite3_prepare_v2(s->db, "PRAGMA integrity_check(20)", -1, &st, NULL) != SQLITE_OK) {
        store_fail_db(s);
        goto done;
    }
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *line = (const char *)sqlite3_column_text(st, 0);
        if (line && strcmp(line, "ok") != 0)
            add_problem(problem, len, &used, used ? "; " : "integrity_check: ", line);
    }
    if (step != SQLITE_DONE) {
        if (sqlite3_errcode(s->db) == SQLITE_CORRUPT || sqlite3_errcode(s->db) == SQLITE_NOTADB) {
            add_problem(problem, len, &used, used ? "; " : "integrity_check: ",
                        sqlite3_errmsg(s->db));
            rc = 1;
        } else {
            store_fail_db(s);
        }
        goto done;
    }
    if (used) {
        rc = 1;
        goto done;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (sqlite3_prepare_v2(s->db, "PRAGMA foreign_key_check", -1, &st, NULL) != SQLITE_OK) {
        store_fail_db(s);
        goto done;
    }
    step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        snprintf(problem, len, "foreign_key_check: table %s row %" PRId64
                               " refers to a missing row of %s",
                 (const char *)sqlite3_column_text(st, 0), (int64_t)sqlite3_column_int64(st, 1),
                 (const char *)sqlite3_column_text(st, 2));
        rc = 1;
        goto done;
    }
    rc = store_steps_ended(s, step);
done:
    sqlite3_finalize(st);
    return rc;
}

int store_check(const char *path, int *version, char *err, size_t errlen)
{
    store *s = NULL;
    int rc = -1;
    int64_t v = 0;
    char problem[sizeof s->err];

    if (store_open(path, STORE_READONLY | OPEN_ANY_VERSION, &s, err, errlen))
        goto done;
    s->op = "check";
    if (store_read_int(s, SQL_USER_VERSION, &v))
        goto report;
    s->err[0] = '\0';
    int found = store_verify(s, problem, sizeof problem);
    if (found > 0)
        store_fail(s, "the database is damaged (%s)", problem);
    if (found)
        goto report;
    rc = 0;
report:
    if (rc)
        store_copy_text(err, errlen, s->err);
done:
    store_close(s);
    if (rc == 0 && version)
        *version = (int)v;
    return rc;
}
