/* SPDX-License-Identifier: MIT */
/*
 * harness/store/ranges.c: regression ranges (schema 7).
 *
 * This file contains store_set_range: the range `divergence bisect`
 * found for a signature, one row of signature_ranges per (signature,
 * kind), replaced by a later bisection.
 */
#include <inttypes.h>
#include <string.h>
#include <sqlite3.h>

#include "harness/store/store_internal.h"

int store_set_range(store *s, int64_t signature_id, const char *kind, const store_range *r)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;

    s->op = "record range";
    if (!kind || (strcmp(kind, STORE_RANGE_REGRESSION) && strcmp(kind, STORE_RANGE_FIXED)))
        return store_fail(s, "unknown range kind '%s'", kind ? kind : "(null)");
    if (r && r->after_build_id <= 0)
        return store_fail(s, "a %s range of signature %" PRId64 " needs its first build after the change",
                          kind, signature_id);
    if (store_begin_op(s, "record range"))
        return -1;
    if (r)
        st = store_prepare_sql(
            s, "INSERT INTO signature_ranges(signature_id, kind, before_build_id,"
               " after_build_id, builds, replays, monotonic, note, recorded_at)"
               " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, " NOW ")"
               " ON CONFLICT(signature_id, kind) DO UPDATE SET"
               " before_build_id = excluded.before_build_id,"
               " after_build_id = excluded.after_build_id, builds = excluded.builds,"
               " replays = excluded.replays, monotonic = excluded.monotonic,"
               " note = excluded.note, recorded_at = excluded.recorded_at");
    else
        st = store_prepare_sql(s, "DELETE FROM signature_ranges WHERE signature_id = ?1"
                                  " AND kind = ?2");
    if (!st)
        goto done;
    sqlite3_bind_int64(st, 1, signature_id);
    store_bind_text(st, 2, kind);
    if (r) {
        if (r->before_build_id > 0)
            sqlite3_bind_int64(st, 3, r->before_build_id);
        else
            sqlite3_bind_null(st, 3);
        sqlite3_bind_int64(st, 4, r->after_build_id);
        sqlite3_bind_int64(st, 5, r->builds);
        sqlite3_bind_int64(st, 6, r->replays);
        sqlite3_bind_int(st, 7, r->monotonic ? 1 : 0);
        store_bind_text(st, 8, r->note ? r->note : "");
    }
    if (sqlite3_step(st) != SQLITE_DONE) {
        store_fail_db(s);
        goto done;
    }
    rc = 0;
done:
    sqlite3_finalize(st);
    return store_end_op(s, rc);
}
