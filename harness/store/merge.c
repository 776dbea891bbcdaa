/* SPDX-License-Identifier: MIT */
/*
 * harness/store/merge.c: merging one Divergence database into another.
 *
 * This file contains store_merge (`divergence db merge`).
 *
 * The input is copied (SQLite's backup API: a consistent snapshot, WAL
 * included) into a temporary file that is migrated to this schema and
 * attached as merge_src; the merge itself is one transaction. The
 * temporary tables map the input's run, build and signature ids to ours.
 */

#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/store/store_internal.h"

/* Rank of a verdict, worst highest, for certificates of one claim that
 * several shards hold. */
#define VERDICT_RANK(v)                                                                    \
    "(CASE WHEN " v " = 'CONFORMANT' THEN 0 WHEN " v " LIKE 'CONFORMANT%' THEN 1 WHEN " v \
    " = 'NONCONFORMANT' THEN 2 WHEN " v " = 'UNSUPPORTED' THEN 3 ELSE 4 END)"

static const char *const merge_sql_setup =
    "DROP TABLE IF EXISTS temp.merge_runs; DROP TABLE IF EXISTS temp.merge_builds;"
    "DROP TABLE IF EXISTS temp.merge_sigs; DROP TABLE IF EXISTS temp.merge_repros;"
    "CREATE TEMP TABLE merge_runs(src INTEGER PRIMARY KEY, dst INTEGER NOT NULL,"
    "  new INTEGER NOT NULL);"
    "CREATE TEMP TABLE merge_builds(src INTEGER PRIMARY KEY, dst INTEGER NOT NULL);"
    "CREATE TEMP TABLE merge_sigs(src INTEGER PRIMARY KEY, dst INTEGER NOT NULL);";

static const char *const merge_sql_teardown =
    "DROP TABLE IF EXISTS temp.merge_runs; DROP TABLE IF EXISTS temp.merge_builds;"
    "DROP TABLE IF EXISTS temp.merge_sigs; DROP TABLE IF EXISTS temp.merge_repros;";

/* After the runs are mapped: builds, run links, counts, histograms,
 * certificates. */
static const char *const merge_sql_tables =
    "INSERT INTO main.plugin_builds(name, version, sha256, path, first_seen)"
    "  SELECT name, version, sha256, path, first_seen FROM merge_src.plugin_builds WHERE true"
    "  ON CONFLICT(name, version, sha256) DO UPDATE SET"
    "  first_seen = min(first_seen, excluded.first_seen);"
    "INSERT INTO temp.merge_builds(src, dst) SELECT s.id, m.id FROM merge_src.plugin_builds s"
    "  JOIN main.plugin_builds m ON m.name = s.name AND m.version = s.version"
    "  AND m.sha256 = s.sha256;"
    "INSERT OR IGNORE INTO main.run_plugins(run_id, plugin_build_id)"
    "  SELECT mr.dst, mb.dst FROM merge_src.run_plugins p"
    "  JOIN temp.merge_runs mr ON mr.src = p.run_id AND mr.new"
    "  JOIN temp.merge_builds mb ON mb.src = p.plugin_build_id;"
    "INSERT INTO main.counts(run_id, implementation, variant, dtype, class, elements, cases)"
    "  SELECT mr.dst, c.implementation, c.variant, c.dtype, c.class, c.elements, c.cases"
    "  FROM merge_src.counts c JOIN temp.merge_runs mr ON mr.src = c.run_id AND mr.new"
    "  WHERE true ON CONFLICT(run_id, implementation, variant, dtype, class) DO UPDATE SET"
    "  elements = elements + excluded.elements, cases = cases + excluded.cases;"
    /* operand counts (schema 3: sweeps) */
    "INSERT INTO main.operand_counts(run_id, implementation, variant, dtype, class,"
    "  operand_class, elements)"
    "  SELECT mr.dst, o.implementation, o.variant, o.dtype, o.class, o.operand_class, o.elements"
    "  FROM merge_src.operand_counts o JOIN temp.merge_runs mr ON mr.src = o.run_id AND mr.new"
    "  WHERE true ON CONFLICT(run_id, implementation, variant, dtype, class, operand_class)"
    "  DO UPDATE SET elements = elements + excluded.elements;"
    "INSERT INTO main.ulp_histograms(run_id, implementation, variant, dtype, bucket, elements)"
    "  SELECT mr.dst, h.implementation, h.variant, h.dtype, h.bucket, h.elements"
    "  FROM merge_src.ulp_histograms h JOIN temp.merge_runs mr ON mr.src = h.run_id AND mr.new"
    "  WHERE true ON CONFLICT(run_id, implementation, variant, dtype, bucket) DO UPDATE SET"
    "  elements = elements + excluded.elements;"
    "INSERT INTO main.certificates(run_id, implementation, variant, dtype, verdict, profile,"
    "  cases, elements, recorded_at)"
    "  SELECT mr.dst, t.implementation, t.variant, t.dtype, t.verdict, t.profile, t.cases,"
    "  t.elements, t.recorded_at FROM merge_src.certificates t"
    "  JOIN temp.merge_runs mr ON mr.src = t.run_id AND mr.new"
    "  WHERE true ON CONFLICT(run_id, implementation, variant, dtype) DO UPDATE SET"
    "  verdict = CASE WHEN " VERDICT_RANK("excluded.verdict") " > " VERDICT_RANK("verdict")
    "  THEN excluded.verdict ELSE verdict END,"
    "  cases = cases + excluded.cases, elements = elements + excluded.elements,"
    "  recorded_at = max(recorded_at, excluded.recorded_at);"
    /* Coverage (schema 4): a claim's shards add their cases; the lists
     * are the first shard's (every shard draws from the same tiers). */
    "INSERT INTO main.coverage(run_id, implementation, variant, dtype, cases, ranks,"
    "  inner_sizes, broadcast_classes, size_tiers, paths, alignments)"
    "  SELECT mr.dst, v.implementation, v.variant, v.dtype, v.cases, v.ranks, v.inner_sizes,"
    "  v.broadcast_classes, v.size_tiers, v.paths, v.alignments FROM merge_src.coverage v"
    "  JOIN temp.merge_runs mr ON mr.src = v.run_id AND mr.new"
    "  WHERE true ON CONFLICT(run_id, implementation, variant, dtype) DO UPDATE SET"
    "  cases = cases + excluded.cases;";

/* After the signatures are mapped: per-run sightings, regression ranges
 * (schema 7: the newer bisection of a (signature, kind) wins), fixed
 * status. */
static const char *const merge_sql_signatures =
    "INSERT INTO main.signature_ranges(signature_id, kind, before_build_id, after_build_id,"
    "  builds, replays, monotonic, note, recorded_at)"
    "  SELECT ms.dst, g.kind, bb.dst, ab.dst, g.builds, g.replays, g.monotonic, g.note,"
    "  g.recorded_at FROM merge_src.signature_ranges g"
    "  JOIN temp.merge_sigs ms ON ms.src = g.signature_id"
    "  LEFT JOIN temp.merge_builds bb ON bb.src = g.before_build_id"
    "  JOIN temp.merge_builds ab ON ab.src = g.after_build_id"
    "  WHERE true ON CONFLICT(signature_id, kind) DO UPDATE SET"
    "  before_build_id = excluded.before_build_id, after_build_id = excluded.after_build_id,"
    "  builds = excluded.builds, replays = excluded.replays, monotonic = excluded.monotonic,"
    "  note = excluded.note, recorded_at = excluded.recorded_at"
    "  WHERE excluded.recorded_at > recorded_at;"
    "INSERT INTO main.signature_runs(signature_id, run_id, occurrences)"
    "  SELECT ms.dst, mr.dst, g.occurrences FROM merge_src.signature_runs g"
    "  JOIN temp.merge_sigs ms ON ms.src = g.signature_id"
    "  JOIN temp.merge_runs mr ON mr.src = g.run_id AND mr.new"
    "  WHERE true ON CONFLICT(signature_id, run_id) DO UPDATE SET"
    "  occurrences = occurrences + excluded.occurrences;"
    "INSERT OR IGNORE INTO main.signature_events(signature_id, run_id, build_id, kind,"
    "  recorded_at) SELECT ms.dst, mr.dst, mb.dst, e.kind, e.recorded_at"
    "  FROM merge_src.signature_events e JOIN temp.merge_sigs ms ON ms.src = e.signature_id"
    "  JOIN temp.merge_runs mr ON mr.src = e.run_id"
    "  LEFT JOIN temp.merge_builds mb ON mb.src = e.build_id;"
    "UPDATE main.signatures SET reopened_run_id = (SELECT max(e.run_id)"
    "  FROM main.signature_events e WHERE e.signature_id = signatures.id"
    "  AND e.kind = 'reopened');"
    "UPDATE main.signatures SET fixed_run_id = (SELECT min(t.run_id) FROM main.certificates t"
    "  WHERE t.implementation = signatures.implementation AND t.variant = signatures.variant"
    "  AND t.dtype = signatures.dtype AND t.run_id > signatures.last_run_id);"
    "UPDATE main.signatures SET status = CASE WHEN fixed_run_id IS NULL THEN 'open'"
    "  ELSE 'fixed' END;"
    "CREATE TEMP TABLE merge_repros AS"
    "  SELECT ms.dst AS sig, mr.dst AS run, r.id AS src_id,"
    "  row_number() OVER (PARTITION BY ms.dst ORDER BY r.id)"
    "  + (SELECT count(*) FROM main.reproducers x WHERE x.signature_id = ms.dst) AS rank"
    "  FROM merge_src.reproducers r JOIN temp.merge_sigs ms ON ms.src = r.signature_id"
    "  JOIN temp.merge_runs mr ON mr.src = r.run_id AND mr.new;";

#define REPRO_COLUMNS                                                                  \
    "recorded_at, case_id, source, variant, dtype, attrs, attr_broadcast, attr_axis_set," \
    " attr_axis, attr_pythondiv, attr_auto_broadcast, attr_int_rounding, a_shape,"        \
    " b_shape, a, b, element, expected, actual, ulps, note, data_offsets, calls_before"

static const char *const merge_sql_repro_insert =
    "INSERT INTO main.reproducers(signature_id, run_id, " REPRO_COLUMNS ")"
    " SELECT m.sig, m.run, " REPRO_COLUMNS " FROM temp.merge_repros m"
    " JOIN merge_src.reproducers r ON r.id = m.src_id WHERE m.rank <= ?1"
    " ORDER BY m.sig, m.rank";

static const char *const merge_sql_repro_dropped =
    "UPDATE main.signatures SET reproducers_dropped = reproducers_dropped +"
    " (SELECT count(*) FROM temp.merge_repros m WHERE m.sig = signatures.id AND m.rank > ?1)"
    " WHERE id IN (SELECT sig FROM temp.merge_repros WHERE rank > ?1)";

static const char *const merge_sql_src_runs =
    "SELECT r.id, r.kind, r.status, r.started_at, r.finished_at, r.profile, r.host, r.pid,"
    " r.process_tag, r.cpu_features, r.build_flags, r.divergence_version, r.seed,"
    " r.shard_index, r.shard_count, r.args,"
    " (SELECT count(*) FROM merge_src.run_shards h WHERE h.run_id = r.id),"
    " (SELECT group_concat(sha256, ',') FROM (SELECT DISTINCT b.sha256"
    "    FROM merge_src.run_plugins p JOIN merge_src.plugin_builds b"
    "    ON b.id = p.plugin_build_id WHERE p.run_id = r.id ORDER BY b.sha256))"
    " FROM merge_src.runs r ORDER BY r.started_at, r.id";

/* Column numbers of merge_sql_src_runs. */
enum {
    RUN_ID, RUN_KIND, RUN_STATUS, RUN_STARTED, RUN_FINISHED, RUN_PROFILE, RUN_HOST, RUN_PID,
    RUN_TAG, RUN_FEATURES, RUN_BUILD_FLAGS, RUN_VERSION, RUN_SEED, RUN_SHARD_INDEX,
    RUN_SHARD_COUNT, RUN_ARGS, RUN_FOLDED, RUN_BUILDS
};

/* Runs `sql` with the n int64 parameters of ap bound to ?1.. : with out,
 * the first column of its first row into *out (0 when there is no row or
 * it is NULL); without, a statement that returns no row. 0 or -1. */
static int merge_run(store *s, const char *sql, int64_t *out, int n, va_list ap)
{
    sqlite3_stmt *st = store_prepare_sql(s, sql);
    if (!st)
        return -1;
    for (int i = 1; i <= n; i++)
        sqlite3_bind_int64(st, i, va_arg(ap, int64_t));
    int step = sqlite3_step(st), rc = 0;
    if (out && step == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    else if (out && step == SQLITE_DONE)
        *out = 0;
    else
        rc = store_steps_ended(s, step);
    sqlite3_finalize(st);
    return rc;
}

/* merge_run with a row to read. */
static int merge_int(store *s, const char *sql, int64_t *out, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    int rc = merge_run(s, sql, out, n, ap);
    va_end(ap);
    return rc;
}

/* merge_run without one. */
static int merge_exec(store *s, const char *sql, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    int rc = merge_run(s, sql, NULL, n, ap);
    va_end(ap);
    return rc;
}

/* A text column, "" for NULL. */
static const char *column_or_empty(sqlite3_stmt *st, int col)
{
    const char *t = (const char *)sqlite3_column_text(st, col);
    return t ? t : "";
}

/* The campaign a shard run belongs to: what its N shards share (kind,
 * seed, profile, shard count, divergence version and build flags, the
 * plugin builds' hashes, the command line without the options that
 * differ between shards or machines). */
static void campaign_key(sqlite3_stmt *run, char *key, size_t len)
{
    static const char *const per_shard[] = {"--shard", "--db", "--plugin", "--jobs", "-o"};
    char args[4096];
    const char *text = (const char *)sqlite3_column_text(run, RUN_ARGS);
    size_t used = 0;
    args[0] = '\0';
    store_copy_text(args, sizeof args, text);
    char norm[4096];
    norm[0] = '\0';
    char *save = NULL;
    int skip_next = 0;
    for (char *tok = strtok_r(args, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        int drop = skip_next;
        skip_next = 0;
        if (!drop && (!strcmp(tok, "--no-progress") || !strcmp(tok, "--progress")))
            drop = 1;
        for (size_t i = 0; !drop && i < sizeof per_shard / sizeof per_shard[0]; i++) {
            size_t n = strlen(per_shard[i]);
            if (!strcmp(tok, per_shard[i]))
                drop = skip_next = 1;
            else if (!strncmp(tok, per_shard[i], n) && tok[n] == '=')
                drop = 1;
        }
        if (drop)
            continue;
        int n = snprintf(norm + used, sizeof norm - used, "%s%s", used ? " " : "", tok);
        if (n > 0 && (size_t)n < sizeof norm - used)
            used += (size_t)n;
    }
    snprintf(key, len, "%s seed=%s profile=%s shards=%lld divergence=%s build=%s plugins=%s "
                       "args=%s",
             column_or_empty(run, RUN_KIND),
             sqlite3_column_type(run, RUN_SEED) == SQLITE_NULL ? "none"
                                                               : column_or_empty(run, RUN_SEED),
             column_or_empty(run, RUN_PROFILE),
             (long long)sqlite3_column_int64(run, RUN_SHARD_COUNT),
             column_or_empty(run, RUN_VERSION), column_or_empty(run, RUN_BUILD_FLAGS),
             column_or_empty(run, RUN_BUILDS), norm);
}

/* Inserts a copy of the input's run (shard columns: shard_index NULL and
 * shard_count `shards` for a merged run, else as they were; args given).
 * *id: the new run. */
static int merge_insert_run(store *s, sqlite3_stmt *run, int merged, const char *args,
                            int64_t *id)
{
    sqlite3_stmt *st = store_prepare_sql(
        s, "INSERT INTO main.runs(kind, status, started_at, finished_at, profile, host, pid,"
           " process_tag, cpu_features, build_flags, divergence_version, seed, shard_index,"
           " shard_count, args) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
           " ?14, ?15)");
    if (!st)
        return -1;
    static const int cols[] = {RUN_KIND, RUN_STATUS, RUN_STARTED, RUN_FINISHED, RUN_PROFILE,
                               RUN_HOST, RUN_PID, RUN_TAG, RUN_FEATURES, RUN_BUILD_FLAGS,
                               RUN_VERSION, RUN_SEED, RUN_SHARD_INDEX, RUN_SHARD_COUNT};
    for (int i = 0; i < (int)(sizeof cols / sizeof cols[0]); i++)
        sqlite3_bind_value(st, i + 1, sqlite3_column_value(run, cols[i]));
    if (merged) {
        /* A merged run is never 'running': no process owns it. */
        sqlite3_bind_text(st, 2, "incomplete", -1, SQLITE_STATIC);
        sqlite3_bind_null(st, 13);
    }
    sqlite3_bind_text(st, 15, args, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : store_fail_db(s);
    sqlite3_finalize(st);
    if (rc == 0)
        *id = sqlite3_last_insert_rowid(s->db);
    return rc;
}

/* Start, end and status of merged run `id` from its shards: complete when
 * all shard_count shards are there and complete; else interrupted when a
 * shard was, else incomplete. */
static int merge_run_header(store *s, int64_t id)
{
    return merge_exec(
        s,
        "UPDATE main.runs SET"
        " started_at = (SELECT min(started_at) FROM main.run_shards WHERE run_id = ?1),"
        " finished_at = CASE WHEN EXISTS (SELECT 1 FROM main.run_shards WHERE run_id = ?1"
        "   AND finished_at IS NULL) THEN NULL"
        "   ELSE (SELECT max(finished_at) FROM main.run_shards WHERE run_id = ?1) END,"
        " status = CASE WHEN (SELECT count(DISTINCT shard_index) FROM main.run_shards"
        "   WHERE run_id = ?1) = shard_count AND NOT EXISTS (SELECT 1 FROM main.run_shards"
        "   WHERE run_id = ?1 AND status <> 'complete') THEN 'complete'"
        "   WHEN EXISTS (SELECT 1 FROM main.run_shards WHERE run_id = ?1"
        "   AND status = 'interrupted') THEN 'interrupted' ELSE 'incomplete' END"
        " WHERE id = ?1",
        1, id);
}

/* Records input run `run` (a shard) as shard of merged run `dst`. */
static int merge_add_shard(store *s, sqlite3_stmt *run, int64_t dst, const char *campaign)
{
    sqlite3_stmt *st = store_prepare_sql(
        s, "INSERT INTO main.run_shards(run_id, shard_index, shard_count, campaign, status,"
           " started_at, finished_at, host, pid, process_tag, cpu_features, args)"
           " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, dst);
    sqlite3_bind_value(st, 2, sqlite3_column_value(run, RUN_SHARD_INDEX));
    sqlite3_bind_value(st, 3, sqlite3_column_value(run, RUN_SHARD_COUNT));
    sqlite3_bind_text(st, 4, campaign, -1, SQLITE_TRANSIENT);
    static const int cols[] = {RUN_STATUS, RUN_STARTED, RUN_FINISHED, RUN_HOST,
                               RUN_PID,    RUN_TAG,     RUN_FEATURES, RUN_ARGS};
    for (int i = 0; i < (int)(sizeof cols / sizeof cols[0]); i++)
        sqlite3_bind_value(st, 5 + i, sqlite3_column_value(run, cols[i]));
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : store_fail_db(s);
    sqlite3_finalize(st);
    return rc || merge_run_header(s, dst) ? -1 : 0;
}

/* Maps every run of the input to a run of ours: a run already merged
 * before maps to ours and brings nothing (new = 0); a shard joins the
 * merged run of its campaign that lacks its index, or starts one; any
 * other run is copied. */
/* A run the input merged from shards (`folded` of them): its shards
 * decide where it goes: the run they are part of here, or a new one. 0
 * or -1. */
static int merge_folded_run(store *s, sqlite3_stmt *run, const char *in_path, int64_t src,
                            int64_t folded, int64_t *dst, int *is_new, store_merge_stats *stats)
{
    const char *args = (const char *)sqlite3_column_text(run, RUN_ARGS);
    int64_t present;
    if (merge_int(s,
                  "SELECT count(*) FROM merge_src.run_shards h WHERE h.run_id = ?1"
                  " AND EXISTS (SELECT 1 FROM main.run_shards m WHERE m.host = h.host"
                  " AND m.pid = h.pid AND m.process_tag = h.process_tag"
                  " AND m.started_at = h.started_at)",
                  &present, 1, src))
        return -1;
    if (present == folded) {
        *is_new = 0;
        return merge_int(s,
                         "SELECT m.run_id FROM merge_src.run_shards h JOIN main.run_shards m"
                         " ON m.host = h.host AND m.pid = h.pid AND m.process_tag ="
                         " h.process_tag AND m.started_at = h.started_at"
                         " WHERE h.run_id = ?1 LIMIT 1",
                         dst, 1, src);
    }
    if (present)
        return store_fail(s, "%s: run %" PRId64 " was merged from shards of which %" PRId64
                             " of %" PRId64 " are here already; merge the shard databases instead",
                          in_path, src, present, folded);
    if (merge_int(s,
                  "SELECT run_id FROM main.run_shards WHERE campaign ="
                  " (SELECT campaign FROM merge_src.run_shards WHERE run_id = ?1"
                  "  LIMIT 1) GROUP BY run_id HAVING sum(shard_index IN"
                  " (SELECT shard_index FROM merge_src.run_shards WHERE run_id = ?1))"
                  " = 0 ORDER BY run_id DESC LIMIT 1",
                  dst, 1, src))
        return -1;
    if (!*dst && merge_insert_run(s, run, 1, args ? args : "", dst))
        return -1;
    if (merge_exec(s,
                   "INSERT INTO main.run_shards SELECT ?2, shard_index, shard_count,"
                   " campaign, status, started_at, finished_at, host, pid,"
                   " process_tag, cpu_features, args FROM merge_src.run_shards"
                   " WHERE run_id = ?1",
                   2, src, *dst) ||
        merge_run_header(s, *dst))
        return -1;
    stats->runs_folded += folded;
    return 0;
}

/* One shard of a campaign (`count` shards): the run of its campaign here
 * that lacks this shard, or a new one. 0 or -1. */
static int merge_shard_run(store *s, sqlite3_stmt *run, int64_t src, int64_t count, int64_t *dst,
                           int *is_new, store_merge_stats *stats)
{
    char campaign[8192];
    if (merge_int(s,
                  "SELECT m.run_id FROM main.run_shards m, merge_src.runs h"
                  " WHERE h.id = ?1 AND m.host = h.host AND m.pid = h.pid"
                  " AND m.process_tag = h.process_tag AND m.started_at = h.started_at",
                  dst, 1, src))
        return -1;
    if (*dst) {
        *is_new = 0;
        return 0;
    }
    campaign_key(run, campaign, sizeof campaign);
    sqlite3_stmt *find = store_prepare_sql(
        s, "SELECT run_id FROM main.run_shards WHERE campaign = ?1 GROUP BY run_id"
           " HAVING sum(shard_index = ?2) = 0 AND max(shard_count) = ?3"
           " ORDER BY run_id DESC LIMIT 1");
    if (!find)
        return -1;
    sqlite3_bind_text(find, 1, campaign, -1, SQLITE_STATIC);
    sqlite3_bind_int64(find, 2, sqlite3_column_int64(run, RUN_SHARD_INDEX));
    sqlite3_bind_int64(find, 3, count);
    int step = sqlite3_step(find);
    if (step == SQLITE_ROW)
        *dst = sqlite3_column_int64(find, 0);
    else if (step != SQLITE_DONE)
        store_fail_db(s);
    sqlite3_finalize(find);
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return -1;
    /* The merged run's command line is the campaign's. */
    const char *norm = strstr(campaign, " args=");
    if (!*dst && merge_insert_run(s, run, 1, norm ? norm + 6 : "", dst))
        return -1;
    if (merge_add_shard(s, run, *dst, campaign))
        return -1;
    stats->runs_folded++;
    return 0;
}

/* A run of its own: the same run here (merged before), or a new one. 0
 * or -1. */
static int merge_plain_run(store *s, sqlite3_stmt *run, int64_t src, int64_t *dst, int *is_new,
                           store_merge_stats *stats)
{
    const char *args = (const char *)sqlite3_column_text(run, RUN_ARGS);
    if (merge_int(s,
                  "SELECT m.id FROM main.runs m, merge_src.runs h WHERE h.id = ?1"
                  " AND m.host = h.host AND m.pid = h.pid AND m.process_tag ="
                  " h.process_tag AND m.started_at = h.started_at AND m.kind = h.kind"
                  " AND m.args = h.args",
                  dst, 1, src))
        return -1;
    if (*dst) {
        *is_new = 0;
        return 0;
    }
    if (merge_insert_run(s, run, 0, args ? args : "", dst))
        return -1;
    stats->runs_added++;
    return 0;
}

static int merge_runs(store *s, const char *in_path, store_merge_stats *stats)
{
    sqlite3_stmt *run = store_prepare_sql(s, merge_sql_src_runs);
    int rc = -1, step;
    if (!run)
        return -1;
    while ((step = sqlite3_step(run)) == SQLITE_ROW) {
        int64_t src = sqlite3_column_int64(run, RUN_ID), dst = 0;
        int64_t folded = sqlite3_column_int64(run, RUN_FOLDED);
        int64_t count = sqlite3_column_int64(run, RUN_SHARD_COUNT);
        int is_shard = !folded && count > 1 &&
                       sqlite3_column_type(run, RUN_SHARD_INDEX) != SQLITE_NULL;
        int is_new = 1;
        if (folded ? merge_folded_run(s, run, in_path, src, folded, &dst, &is_new, stats)
            : is_shard ? merge_shard_run(s, run, src, count, &dst, &is_new, stats)
                       : merge_plain_run(s, run, src, &dst, &is_new, stats))
            goto done;
        if (!is_new)
            stats->runs_skipped++;
        if (merge_exec(s, "INSERT INTO temp.merge_runs(src, dst, new) VALUES(?1, ?2, ?3)", 3,
                       src, dst, (int64_t)is_new))
            goto done;
    }
    if (store_steps_ended(s, step))
        goto done;
    if (merge_int(s, "SELECT count(DISTINCT dst) FROM temp.merge_runs WHERE new AND dst IN"
                     " (SELECT run_id FROM main.run_shards)",
                  &stats->runs_merged, 0))
        goto done;
    rc = 0;
done:
    sqlite3_finalize(run);
    return rc;
}

/* Maps every signature of the input to ours, creating or updating it with
 * what the input's new runs add. */
static int merge_signatures(store *s, const char *in_path, store_merge_stats *stats)
{
    sqlite3_stmt *sig = store_prepare_sql(
        s,
        "SELECT s.id, s.implementation, s.variant, s.dtype, s.class, s.operand_class,"
        " (SELECT dst FROM temp.merge_runs WHERE src = s.first_run_id),"
        " (SELECT dst FROM temp.merge_runs WHERE src = s.last_run_id),"
        " s.first_seen, s.last_seen, s.occurrences, s.reproducers_dropped,"
        " (SELECT coalesce(sum(g.occurrences), 0) FROM merge_src.signature_runs g"
        "   JOIN temp.merge_runs mr ON mr.src = g.run_id AND NOT mr.new"
        "   WHERE g.signature_id = s.id),"
        " (SELECT count(*) FROM merge_src.signature_runs g"
        "   JOIN temp.merge_runs mr ON mr.src = g.run_id AND mr.new"
        "   WHERE g.signature_id = s.id),"
        " (SELECT count(*) FROM merge_src.signature_runs g"
        "   JOIN temp.merge_runs mr ON mr.src = g.run_id AND NOT mr.new"
        "   WHERE g.signature_id = s.id),"
        " (SELECT m.id FROM main.signatures m WHERE m.implementation = s.implementation"
        "   AND m.variant = s.variant AND m.dtype = s.dtype AND m.class = s.class"
        "   AND m.operand_class = s.operand_class)"
        " FROM merge_src.signatures s ORDER BY s.id");
    sqlite3_stmt *ins = store_prepare_sql(
        s, "INSERT INTO main.signatures(implementation, variant, dtype, class, operand_class,"
           " first_run_id, last_run_id, first_seen, last_seen, status, occurrences,"
           " reproducers_dropped) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'open', ?10, ?11)");
    sqlite3_stmt *upd = store_prepare_sql(
        s, "UPDATE main.signatures SET first_run_id = min(first_run_id, ?2),"
           " last_run_id = max(last_run_id, ?3), first_seen = min(first_seen, ?4),"
           " last_seen = max(last_seen, ?5), occurrences = occurrences + ?6,"
           " reproducers_dropped = reproducers_dropped + ?7 WHERE id = ?1");
    int rc = -1, step;
    if (!sig || !ins || !upd)
        goto done;
    while ((step = sqlite3_step(sig)) == SQLITE_ROW) {
        int64_t src = sqlite3_column_int64(sig, 0), dst = sqlite3_column_int64(sig, 15);
        int64_t occ = sqlite3_column_int64(sig, 10), dropped = sqlite3_column_int64(sig, 11);
        int64_t skipped_occ = sqlite3_column_int64(sig, 12);
        int64_t new_runs = sqlite3_column_int64(sig, 13), old_runs = sqlite3_column_int64(sig, 14);
        if (sqlite3_column_type(sig, 6) == SQLITE_NULL ||
            sqlite3_column_type(sig, 7) == SQLITE_NULL) {
            store_fail(s, "%s: signature %" PRId64 " refers to a run that is not there", in_path,
                       src);
            goto done;
        }
        /* Only what runs not merged before add counts. */
        if (old_runs) {
            occ = occ > skipped_occ ? occ - skipped_occ : 0;
            dropped = 0;
        }
        if (dst && !new_runs && old_runs) {
            /* Nothing new: every run that saw it was merged before. */
        } else if (dst) {
            sqlite3_bind_int64(upd, 1, dst);
            sqlite3_bind_value(upd, 2, sqlite3_column_value(sig, 6));
            sqlite3_bind_value(upd, 3, sqlite3_column_value(sig, 7));
            sqlite3_bind_value(upd, 4, sqlite3_column_value(sig, 8));
            sqlite3_bind_value(upd, 5, sqlite3_column_value(sig, 9));
            sqlite3_bind_int64(upd, 6, occ);
            sqlite3_bind_int64(upd, 7, dropped);
            if (store_step_done(s, upd))
                goto done;
            stats->signatures_updated++;
        } else {
            for (int i = 1; i <= 9; i++)
                sqlite3_bind_value(ins, i, sqlite3_column_value(sig, i));
            sqlite3_bind_int64(ins, 10, occ);
            sqlite3_bind_int64(ins, 11, dropped);
            if (store_step_done(s, ins))
                goto done;
            dst = sqlite3_last_insert_rowid(s->db);
            stats->signatures_added++;
        }
        if (merge_exec(s, "INSERT INTO temp.merge_sigs(src, dst) VALUES(?1, ?2)", 2, src, dst))
            goto done;
    }
    rc = store_steps_ended(s, step);
done:
    sqlite3_finalize(sig);
    sqlite3_finalize(ins);
    sqlite3_finalize(upd);
    return rc;
}

/* Copies the database at src_path into the (new, empty) file at dst_path.
 * *version: the input's schema version. */
static int copy_database(store *s, const char *src_path, const char *dst_path, int64_t *version)
{
    sqlite3 *src = NULL, *dst = NULL;
    sqlite3_stmt *st = NULL;
    sqlite3_backup *b = NULL;
    int rc = -1;
    int64_t v = 0, objects = 0;

    if (sqlite3_open_v2(src_path, &src, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        store_fail(s, "%s: %s", src_path, src ? sqlite3_errmsg(src) : "out of memory");
        goto done;
    }
    sqlite3_busy_timeout(src, STORE_BUSY_TIMEOUT_MS);
    if (sqlite3_prepare_v2(src, "SELECT (SELECT user_version FROM pragma_user_version),"
                                " (SELECT count(*) FROM sqlite_schema)",
                           -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        store_fail(s, "%s: not a SQLite database, or a corrupt one (%s)", src_path,
                   sqlite3_errmsg(src));
        goto done;
    }
    v = sqlite3_column_int64(st, 0);
    objects = sqlite3_column_int64(st, 1);
    if (v > store_schema_version()) {
        store_fail(s, "%s: schema version %" PRId64 " is newer than this divergence knows (%d)",
                   src_path, v, store_schema_version());
        goto done;
    }
    if (v == 0 && objects > 0) {
        store_fail(s, "%s: not a Divergence database (user_version 0, but it holds %" PRId64
                      " schema objects of another program)",
                   src_path, objects);
        goto done;
    }
    if (sqlite3_open_v2(dst_path, &dst, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        store_fail(s, "%s: %s", dst_path, dst ? sqlite3_errmsg(dst) : "out of memory");
        goto done;
    }
    if (!(b = sqlite3_backup_init(dst, "main", src, "main"))) {
        store_fail(s, "%s: copy to %s: %s", src_path, dst_path, sqlite3_errmsg(dst));
        goto done;
    }
    int step = sqlite3_backup_step(b, -1);
    sqlite3_backup_finish(b);
    if (step != SQLITE_DONE) {
        store_fail(s, "%s: copy to %s: %s", src_path, dst_path, sqlite3_errstr(step));
        goto done;
    }
    *version = v;
    rc = 0;
done:
    sqlite3_finalize(st);
    sqlite3_close(src);
    sqlite3_close(dst);
    return rc;
}


int store_merge(store *s, const char *in_path, store_merge_stats *stats)
{
    char tmp[4096], msg[1024];
    struct stat a, b;
    store *in = NULL;
    sqlite3_stmt *st = NULL;
    store_merge_stats n;
    int64_t version = 0, dropped = 0;
    int rc = -1, fd = -1, attached = 0, began = 0;

    memset(&n, 0, sizeof n);
    tmp[0] = '\0';
    s->op = "merge";
    s->err[0] = '\0';
    if (!in_path || !*in_path)
        return store_fail(s, "no input database");
    if (s->batch)
        return store_fail(s, "a merge cannot run inside a batch");
    if (s->readonly)
        return store_fail_readonly(s);
    if (stat(in_path, &a) != 0)
        return store_fail(s, "%s: %s", in_path, strerror(errno));
    if (stat(s->path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        return store_fail(s, "%s is the output database itself", in_path);

    const char *dir = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/divergence-merge-XXXXXX", dir && *dir ? dir : "/tmp");
    if ((fd = mkstemp(tmp)) < 0) {
        store_fail(s, "temporary copy %s: %s", tmp, strerror(errno));
        tmp[0] = '\0';
        goto done;
    }
    close(fd);
    if (copy_database(s, in_path, tmp, &version))
        goto done;
    /* Bring the copy to this schema (the input itself is never changed);
     * the writable open runs store_verify on it first, so a damaged input
     * (even one whose pages pass quick_check) is refused here. */
    if (store_open(tmp, 0, &in, msg, sizeof msg)) {
        size_t tlen = strlen(tmp);
        int named = strncmp(msg, tmp, tlen) == 0 && msg[tlen] == ':';
        store_fail(s, "%s: %s", in_path, named ? msg + tlen + 2 : msg);
        goto done;
    }
    store_close(in);
    in = NULL;

    s->op = "merge";
    if (!(st = store_prepare_sql(s, "ATTACH DATABASE ?1 AS merge_src")))
        goto done;
    sqlite3_bind_text(st, 1, tmp, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE) {
        store_fail_db(s);
        goto done;
    }
    sqlite3_finalize(st);
    st = NULL;
    attached = 1;
    if (store_exec(s, "BEGIN IMMEDIATE"))
        goto done;
    began = 1;
    if (store_exec(s, merge_sql_setup) || merge_runs(s, in_path, &n) ||
        store_exec(s, merge_sql_tables) || merge_signatures(s, in_path, &n) ||
        store_exec(s, merge_sql_signatures))
        goto done;
    if (merge_exec(s, merge_sql_repro_insert, 1, (int64_t)s->repro_limit))
        goto done;
    n.reproducers_added = sqlite3_changes(s->db);
    if (merge_int(s, "SELECT count(*) FROM temp.merge_repros WHERE rank > ?1", &dropped, 1,
                  (int64_t)s->repro_limit) ||
        merge_exec(s, merge_sql_repro_dropped, 1, (int64_t)s->repro_limit) ||
        store_exec(s, STORE_SQL_GROUP_BUGS) || store_exec(s, merge_sql_teardown) ||
        store_exec(s, "COMMIT"))
        goto done;
    began = 0;
    n.reproducers_dropped = dropped;
    n.input_version = (int)version;
    rc = 0;
done:
    sqlite3_finalize(st);
    if (began)
        store_exec_quiet(s, "ROLLBACK");
    if (attached)
        store_exec_quiet(s, "DETACH DATABASE merge_src");
    store_close(in);
    if (tmp[0])
        store_remove_files(tmp);
    if (rc == 0 && stats)
        *stats = n;
    return rc;
}
