/* SPDX-License-Identifier: MIT */
/*
 * harness/store/check.c: checking a file without changing it.
 *
 * This file contains store_check (`divergence db check`): it opens the
 * file read-only accepting an older schema, then runs SQLite's
 * integrity_check and foreign_key_check and reports their first problems.
 */
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "harness/store/store_internal.h"

int store_check(const char *path, int *version, char *err, size_t errlen)
{
    store *s = NULL;
    sqlite3_stmt *st = NULL;
    int rc = -1, step;
    int64_t v = 0;
    size_t used = 0;

    if (store_open(path, STORE_READONLY | OPEN_ANY_VERSION, &s, err, errlen))
        goto done;
    s->op = "check";
    if (store_read_int(s, SQL_USER_VERSION, &v))
        goto report;
    if (sqlite3_prepare_v2(s->db, "PRAGMA integrity_check(20)", -1, &st, NULL) != SQLITE_OK) {
        store_fail_db(s);
        goto report;
    }
    s->err[0] = '\0';
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *line = (const char *)sqlite3_column_text(st, 0);
        if (line && strcmp(line, "ok") != 0 && used < sizeof s->err) {
            int n = snprintf(s->err + used, sizeof s->err - used, "%s%s", used ? "; " : "",
                             line);
            used += n > 0 ? (size_t)n : 0;
        }
    }
    if (step != SQLITE_DONE) {
        store_fail_db(s);
        goto report;
    }
    if (used) {
        char problems[sizeof s->err];
        store_copy_text(problems, sizeof problems, s->err);
        for (char *p = problems; *p; p++)
            if (*p == '\n')
                *p = ' '; /* one line */
        store_fail(s, "integrity_check: %s", problems);
        goto report;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (sqlite3_prepare_v2(s->db, "PRAGMA foreign_key_check", -1, &st, NULL) != SQLITE_OK) {
        store_fail_db(s);
        goto report;
    }
    step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        store_fail(s, "foreign_key_check: table %s row %" PRId64 " refers to a missing row of %s",
                   (const char *)sqlite3_column_text(st, 0), (int64_t)sqlite3_column_int64(st, 1),
                   (const char *)sqlite3_column_text(st, 2));
        goto report;
    }
    if (step != SQLITE_DONE) {
        store_fail_db(s);
        goto report;
    }
    rc = 0;
report:
    if (rc)
        store_copy_text(err, errlen, s->err);
done:
    sqlite3_finalize(st);
    store_close(s);
    if (rc == 0 && version)
        *version = (int)v;
    return rc;
}
