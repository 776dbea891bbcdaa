/* SPDX-License-Identifier: MIT */
/*
 * harness/store/records.c: recording what a run did.
 *
 * This file contains the writes of store.h that are not findings or
 * sweeps: a run's life (store_begin_run, store_finish_run,
 * store_resume_run, store_mark_stale_runs, which asks harness/base/host.h
 * whether a run's process is gone), the plugin builds it loaded, and its
 * counts, certificates, coverage, ULP histograms and fixed signatures.
 */
#include <inttypes.h>
#include <string.h>
#include <sqlite3.h>
#include <unistd.h>

#include "harness/base/alloc.h"
#include "harness/base/host.h"
#include "harness/base/sha256.h"
#include "harness/store/store_internal.h"
#include "oracle/compare.h"

#ifndef DVG_VERSION
#define DVG_VERSION "unknown"
#endif

/* ------------------------------------------------------------------------
 * Runs.
 * ---------------------------------------------------------------------- */
int store_begin_run(store *s, const store_run_info *info, int64_t *run_id)
{
    char host[256], tag[256], features[8192];
    sqlite3_stmt *st;
    int64_t id = 0;
    int rc = -1;

    s->op = "begin run";
    if (s->batch)
        return store_fail(s, "a run cannot begin inside a batch (it must commit at once)");
    if (!info)
        return store_fail(s, "no run info");
    if (store_need_text(s, "run kind", info->kind))
        return -1;
    if (info->shard_count && info->shard_index >= info->shard_count)
        return store_fail(s, "shard %" PRIu32 "/%" PRIu32 " is out of range", info->shard_index,
                          info->shard_count);
    host_get_name(host, sizeof host);
    host_get_process_tag((long)getpid(), tag, sizeof tag);
    host_get_cpu_features(features, sizeof features);

    if (store_begin_op(s, "begin run"))
        return -1;
    if (!(st = store_prepare(s, SQL_RUN_INSERT)))
        goto done;
    store_bind_text(st, 1, info->kind);
    store_bind_text(st, 2, info->profile ? info->profile : "exact");
    store_bind_text(st, 3, host);
    sqlite3_bind_int64(st, 4, (int64_t)getpid());
    store_bind_text(st, 5, tag);
    store_bind_text(st, 6, features);
    store_bind_text(st, 7, info->build_flags ? info->build_flags : "");
    store_bind_text(st, 8, DVG_VERSION);
    if (info->has_seed)
        sqlite3_bind_int64(st, 9, (int64_t)info->seed);
    if (info->shard_count) {
        sqlite3_bind_int64(st, 10, info->shard_index);
        sqlite3_bind_int64(st, 11, info->shard_count);
    }
    store_bind_text(st, 12, info->args ? info->args : "");
    if (info->sandbox)
        store_bind_text(st, 13, info->sandbox);
    else
        sqlite3_bind_null(st, 13);
    if (store_step_done(s, st))
        goto done;
    id = sqlite3_last_insert_rowid(s->db);
    rc = 0;
done:
    rc = store_end_op(s, rc);
    if (rc == 0)
        *run_id = id;
    return rc;
}

/* One try of store_finish_run with the status's text. */
static int finish_run(store *s, int64_t run_id, const char *text)
{
    sqlite3_stmt *st;
    int rc = -1;
    if (store_begin_op(s, "finish run"))
        return -1;
    if (!(st = store_prepare(s, SQL_RUN_FINISH)))
        goto done;
    sqlite3_bind_int64(st, 1, run_id);
    store_bind_text(st, 2, text);
    rc = store_step_one(s, st, "run", run_id);
done:
    return store_end_op(s, rc);
}

int store_finish_run(store *s, int64_t run_id, int status)
{
    const char *text = status == STORE_RUN_COMPLETE     ? "complete"
                       : status == STORE_RUN_INCOMPLETE ? "incomplete"
                       : status == STORE_RUN_INTERRUPTED ? "interrupted"
                                                        : NULL;
    s->op = "finish run";
    if (!text)
        return store_fail(s, "unknown run status %d", status);
    if (finish_run(s, run_id, text) == 0)
        return 0;
    /* A full disk or the file size limit (ulimit -f) can refuse even this
     * one small write while the WAL holds what was committed before:
     * moving that into the database and truncating the WAL may make the
     * room for it. The first failure is the one reported. */
    int code = s->code & 0xff;
    if (s->batch || (code != SQLITE_FULL && code != SQLITE_IOERR))
        return -1;
    char first[sizeof s->err];
    store_copy_text(first, sizeof first, s->err);
    sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
    if (finish_run(s, run_id, text) == 0)
        return 0;
    store_copy_text(s->err, sizeof s->err, first);
    return -1;
}

int store_resume_run(store *s, int64_t run_id)
{
    char host[256], tag[256];
    sqlite3_stmt *st;
    int rc = -1;
    s->op = "resume run";
    if (s->batch)
        return store_fail(s, "a run cannot be resumed inside a batch");
    host_get_name(host, sizeof host);
    host_get_process_tag((long)getpid(), tag, sizeof tag);
    if (store_begin_op(s, "resume run"))
        return -1;
    if (!(st = store_prepare(s, SQL_RUN_RESUME)))
        goto done;
    sqlite3_bind_int64(st, 1, run_id);
    store_bind_text(st, 2, host);
    sqlite3_bind_int64(st, 3, (int64_t)getpid());
    store_bind_text(st, 4, tag);
    if (store_step_done(s, st))
        goto done;
    if (sqlite3_changes(s->db) != 1) {
        store_fail(s, "run %" PRId64 " is not incomplete (unknown, complete, or resumed by "
                      "another process)", run_id);
        goto done;
    }
    rc = 0;
done:
    return store_end_op(s, rc);
}

int store_mark_stale_runs(store *s, int64_t *n_marked)
{
    sqlite3_stmt *st;
    int64_t *dead = NULL, marked = 0;
    size_t n_dead = 0, cap = 0;
    int rc = -1, step;

    char host[256], my_tag[256];
    host_get_name(host, sizeof host);
    host_get_process_tag((long)getpid(), my_tag, sizeof my_tag);
    if (store_begin_op(s, "mark stale runs"))
        return -1;
    if (!(st = store_prepare(s, SQL_RUN_RUNNING)))
        goto done;
    /* Runs of other hosts cannot be judged; this process's own are alive. */
    store_bind_text(st, 1, host);
    sqlite3_bind_int64(st, 2, (int64_t)getpid());
    store_bind_text(st, 3, my_tag);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *tag = (const char *)sqlite3_column_text(st, 2);
        if (!host_process_is_dead((long)sqlite3_column_int64(st, 1), tag ? tag : "", my_tag))
            continue;
        if (n_dead == cap) {
            size_t ncap = cap ? 2 * cap : 16;
            int64_t *grown = dvg_realloc(dead, ncap * sizeof *dead);
            if (!grown) {
                store_reset_stmt(st);
                store_fail(s, "out of memory");
                goto done;
            }
            dead = grown;
            cap = ncap;
        }
        dead[n_dead++] = sqlite3_column_int64(st, 0);
    }
    if (step != SQLITE_DONE) {
        store_fail_db(s);
        store_reset_stmt(st);
        goto done;
    }
    store_reset_stmt(st);
    if (n_dead && !(st = store_prepare(s, SQL_RUN_MARK_INCOMPLETE)))
        goto done;
    for (size_t i = 0; i < n_dead; i++) {
        sqlite3_bind_int64(st, 1, dead[i]);
        if (store_step_done(s, st))
            goto done;
        marked += sqlite3_changes(s->db);
    }
    rc = 0;
done:
    dvg_free(dead);
    rc = store_end_op(s, rc);
    if (rc == 0 && n_marked)
        *n_marked = marked;
    return rc;
}

/* ------------------------------------------------------------------------
 * Plugin builds, counts, certificates.
 * ---------------------------------------------------------------------- */
int store_plugin_build(store *s, int64_t run_id, const char *name, const char *version,
                       const char *path, int64_t *build_id)
{
    char hex[SHA256_HEX_CHARS], why[512];

    s->op = "record plugin build";
    if (store_need_text(s, "plugin name", name) || store_need_text(s, "plugin version", version) ||
        store_need_text(s, "plugin path", path))
        return -1;
    if (sha256_file(path, hex, why, sizeof why))
        return store_fail(s, "%s", why);
    return store_record_plugin_build(s, run_id, name, version, path, hex, build_id);
}

int store_record_plugin_build(store *s, int64_t run_id, const char *name, const char *version,
                              const char *path, const char *hex, int64_t *build_id)
{
    sqlite3_stmt *st;
    int64_t id = 0;
    int rc = -1;

    s->op = "record plugin build";
    if (store_need_text(s, "plugin name", name) || store_need_text(s, "plugin version", version) ||
        store_need_text(s, "plugin path", path))
        return -1;
    if (!hex || strlen(hex) != 64 || strspn(hex, "0123456789abcdef") != 64)
        return store_fail(s, "plugin SHA-256 '%s': expected 64 lower-case hex digits",
                          hex ? hex : "(null)");
    if (store_begin_op(s, "record plugin build"))
        return -1;
    if (!(st = store_prepare(s, SQL_BUILD_UPSERT)))
        goto done;
    store_bind_text(st, 1, name);
    store_bind_text(st, 2, version);
    store_bind_text(st, 3, hex);
    store_bind_text(st, 4, path);
    if (store_step_row(s, st))
        goto done;
    id = sqlite3_column_int64(st, 0);
    if (store_step_done(s, st))
        goto done;
    if (run_id > 0) {
        if (!(st = store_prepare(s, SQL_RUN_PLUGIN_LINK)))
            goto done;
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, id);
        if (store_step_done(s, st))
            goto done;
    }
    rc = 0;
done:
    rc = store_end_op(s, rc);
    if (rc == 0 && build_id)
        *build_id = id;
    return rc;
}

int store_record_counts(store *s, int64_t run_id, const char *implementation,
                        uint32_t variant, uint32_t dtype, uint32_t cls, uint64_t elements,
                        uint64_t cases)
{
    const char *vname, *dname;
    sqlite3_stmt *st;
    int rc = -1;

    s->op = "record counts";
    if (store_need_text(s, "implementation", implementation) ||
        store_name_ids(s, variant, dtype, &vname, &dname))
        return -1;
    if (cls >= ORACLE_CLASS_COUNT)
        return store_fail(s, "unknown difference class %" PRIu32, cls);
    if (elements > INT64_MAX || cases > INT64_MAX)
        return store_fail(s, "count above INT64_MAX");
    if (store_begin_op(s, "record counts"))
        return -1;
    if (!(st = store_prepare(s, SQL_COUNTS_ADD)))
        goto done;
    store_bind_triple(st, run_id, implementation, vname, dname);
    store_bind_text(st, 5, oracle_class_name(cls));
    sqlite3_bind_int64(st, 6, (int64_t)elements);
    sqlite3_bind_int64(st, 7, (int64_t)cases);
    rc = store_step_done(s, st);
done:
    return store_end_op(s, rc);
}

int store_record_certificate(store *s, int64_t run_id, const char *implementation,
                             uint32_t variant, uint32_t dtype, const char *verdict,
                             const char *profile, uint64_t cases, uint64_t elements)
{
    const char *vname, *dname;
    sqlite3_stmt *st;
    int rc = -1;

    s->op = "record certificate";
    if (store_need_text(s, "implementation", implementation) ||
        store_need_text(s, "verdict", verdict) || store_need_text(s, "profile", profile) ||
        store_name_ids(s, variant, dtype, &vname, &dname))
        return -1;
    if (elements > INT64_MAX || cases > INT64_MAX)
        return store_fail(s, "count above INT64_MAX");
    if (store_begin_op(s, "record certificate"))
        return -1;
    if (!(st = store_prepare(s, SQL_CERT_UPSERT)))
        goto done;
    store_bind_triple(st, run_id, implementation, vname, dname);
    store_bind_text(st, 5, verdict);
    store_bind_text(st, 6, profile);
    sqlite3_bind_int64(st, 7, (int64_t)cases);
    sqlite3_bind_int64(st, 8, (int64_t)elements);
    rc = store_step_done(s, st);
done:
    return store_end_op(s, rc);
}

int store_record_ulp_histogram(store *s, int64_t run_id, const char *implementation,
                               uint32_t variant, uint32_t dtype, const uint64_t *elements,
                               uint32_t n_buckets)
{
    const char *vname, *dname;
    sqlite3_stmt *st;
    int rc = -1;

    s->op = "record ULP histogram";
    if (store_need_text(s, "implementation", implementation) ||
        store_name_ids(s, variant, dtype, &vname, &dname))
        return -1;
    if (n_buckets > STORE_ULP_BUCKETS || (n_buckets && !elements))
        return store_fail(s, "%" PRIu32 " buckets (at most %d)", n_buckets, STORE_ULP_BUCKETS);
    for (uint32_t b = 0; b < n_buckets; b++)
        if (elements[b] > INT64_MAX)
            return store_fail(s, "count above INT64_MAX");
    if (store_begin_op(s, "record ULP histogram"))
        return -1;
    if (!(st = store_prepare(s, SQL_ULP_ADD)))
        goto done;
    for (uint32_t b = 0; b < n_buckets; b++) {
        if (!elements[b])
            continue;
        store_bind_triple(st, run_id, implementation, vname, dname);
        sqlite3_bind_int64(st, 5, b);
        sqlite3_bind_int64(st, 6, (int64_t)elements[b]);
        if (store_step_done(s, st))
            goto done;
    }
    rc = 0;
done:
    return store_end_op(s, rc);
}

int store_mark_fixed(store *s, int64_t run_id, const char *implementation, uint32_t variant,
                     uint32_t dtype, int64_t *n_fixed)
{
    const char *vname, *dname;
    sqlite3_stmt *st;
    int64_t changed = 0;
    int rc = -1;

    s->op = "mark fixed";
    if (store_need_text(s, "implementation", implementation) ||
        store_name_ids(s, variant, dtype, &vname, &dname))
        return -1;
    if (store_begin_op(s, "mark fixed"))
        return -1;
    if (!(st = store_prepare(s, SQL_SIG_FIX_EVENTS)))
        goto done;
    store_bind_triple(st, run_id, implementation, vname, dname);
    if (store_step_done(s, st))
        goto done;
    if (!(st = store_prepare(s, SQL_SIG_FIX)))
        goto done;
    store_bind_triple(st, run_id, implementation, vname, dname);
    if (store_step_done(s, st))
        goto done;
    changed = sqlite3_changes(s->db);
    rc = 0;
done:
    rc = store_end_op(s, rc);
    if (rc == 0 && n_fixed)
        *n_fixed = changed;
    return rc;
}

int store_record_coverage(store *s, int64_t run_id, const char *implementation,
                          uint32_t variant, uint32_t dtype, const store_coverage *c)
{
    const char *vname, *dname;
    sqlite3_stmt *st;
    int rc = -1;

    s->op = "record coverage";
    if (!c || !c->ranks || !c->inner_sizes || !c->broadcast_classes || !c->size_tiers ||
        !c->paths || !c->alignments)
        return store_fail(s, "no coverage, or a list of it is NULL");
    if (store_need_text(s, "implementation", implementation) ||
        store_name_ids(s, variant, dtype, &vname, &dname))
        return -1;
    if (c->cases > INT64_MAX)
        return store_fail(s, "count above INT64_MAX");
    if (store_begin_op(s, "record coverage"))
        return -1;
    if (!(st = store_prepare(s, SQL_COVERAGE_UPSERT)))
        goto done;
    store_bind_triple(st, run_id, implementation, vname, dname);
    sqlite3_bind_int64(st, 5, (int64_t)c->cases);
    store_bind_text(st, 6, c->ranks);
    store_bind_text(st, 7, c->inner_sizes);
    store_bind_text(st, 8, c->broadcast_classes);
    store_bind_text(st, 9, c->size_tiers);
    store_bind_text(st, 10, c->paths);
    store_bind_text(st, 11, c->alignments);
    rc = store_step_done(s, st);
done:
    return store_end_op(s, rc);
}
