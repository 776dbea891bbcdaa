/* SPDX-License-Identifier: MIT */
/*
 * harness/store/store_internal.h: what the files of the store share. No
 * file outside harness/store/ includes it: store.h is the contract, this
 * is the plumbing behind it.
 *
 * The files of the store, one concern each:
 *   schema.c          the schema as a list of migrations, and migrating
 *   statements.c      the statement catalogue; preparing, binding and
 *                     stepping statements; error messages
 *   connection.c      SQLite's heap through harness/base/alloc.h; open
 *                     (WAL recovery, checks, migration, stale runs) and
 *                     close; batches and the transaction of one write
 *   records.c         runs, plugin builds, counts, certificates, ULP
 *                     histograms, fixed signatures
 *   findings.c        signatures and reproducers: recording and loading
 *   read.c            store_select and the rows it hands out
 *   merge.c           store_merge
 *   check.c           store_verify (the one soundness check) and
 *                     store_check
 *   sweep_progress.c  sweeps, their chunks and operand counts
 *   ranges.c          regression ranges (signature_ranges)
 * What describes this machine and its processes (host name, CPU
 * features, process tags) comes from harness/base/host.h.
 *
 * Conventions of the functions below: they return 0 or -1 like store.h's;
 * a failure leaves its message in s->err through store_fail or
 * store_fail_db, prefixed with the file and s->op.
 */
#ifndef HARNESS_STORE_INTERNAL_H
#define HARNESS_STORE_INTERNAL_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/store/store.h"

/* A private flag of store_open: a read-only open accepts an older schema
 * (store_check reports it; nothing else may read one). */
#define OPEN_ANY_VERSION 0x100u

/* An ISO 8601 UTC time stamp with milliseconds, computed by SQLite. */
#define NOW "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

/* The build of implementation IMPL that run RUN loaded (its newest, for a
 * run that loaded several), or NULL: SQL over the tables, for the events
 * of a signature's life (signature_events). */
#define STORE_SQL_RUN_BUILD(run, impl)                                                  \
    "(SELECT max(p.plugin_build_id) FROM run_plugins p JOIN plugin_builds b"           \
    " ON b.id = p.plugin_build_id WHERE p.run_id = " run " AND b.name = " impl ")"

/* ------------------------------------------------------------------------
 * Bugs (docs/store.md, "bugs"): a signature's bug is the fingerprint
 * (implementation, class, kind, locus) of the case it was first recorded
 * with. The raw locus of that case: 'case' when the finding names no
 * element, 'broadcast' when A's and B's shapes differ (but for a sweep's
 * case, "sweep:..": its layout is the harness's, the same for every pair),
 * else 'elementwise' ('unknown' for a signature of an older file that kept
 * no reproducer); finding_locus in findings.c is the same rule over a
 * case: keep the two alike. From it and the signature's class and dtype:
 *   - a class that is a behaviour of its own (crash, hang,
 *     element-not-written, ...): (class, 'any', 'any');
 *   - a value class (wrong-value, nan-expected, int-wrap, ...) seen on a
 *     broadcasting case: ('value', 'any', 'broadcast'): the values were
 *     read from the wrong place, so which class they fall in is chance;
 *   - a value class seen otherwise: (class, kind, locus), kind the dtype's
 *     arithmetic ('float' or 'integer'): an arithmetic bug, whose class
 *     and arithmetic say which one. A value class seen on a broadcasting
 *     case joins the arithmetic bug of its class and kind when the
 *     implementation has one already: that bug explains it without the
 *     shape.
 * Each macro takes SQL expressions and gives one.
 * ---------------------------------------------------------------------- */
#define STORE_SQL_VALUE_CLASS(cls)                                                      \
    "(" cls " IN ('wrong-value', 'floor-vs-trunc', 'flushed-subnormal-output',"         \
    " 'subnormal-input-as-zero', 'nan-expected', 'nan-unexpected', 'wrong-sign-inf',"   \
    " 'wrong-sign-zero', 'int-wrap'))"
#define STORE_SQL_BUG_CLASS(cls, locus)                                                 \
    "(CASE WHEN " STORE_SQL_VALUE_CLASS(cls) " AND " locus " = 'broadcast' THEN 'value'" \
    " ELSE " cls " END)"
#define STORE_SQL_BUG_KIND(cls, dtype, locus)                                           \
    "(CASE WHEN NOT " STORE_SQL_VALUE_CLASS(cls) " OR " locus " = 'broadcast' THEN 'any'" \
    " WHEN " dtype " IN ('f16', 'bf16', 'f32', 'f64') THEN 'float' ELSE 'integer' END)"
#define STORE_SQL_BUG_LOCUS(cls, locus)                                                 \
    "(CASE WHEN " STORE_SQL_VALUE_CLASS(cls) " THEN " locus " ELSE 'any' END)"
/* The raw locus of signature `sig` from its first stored reproducer. */
#define STORE_SQL_RAW_LOCUS(sig)                                                        \
    "coalesce((SELECT CASE WHEN r.element IS NULL THEN 'case'"                          \
    " WHEN r.a_shape <> r.b_shape AND r.case_id NOT LIKE 'sweep:%' THEN 'broadcast'"   \
    " ELSE 'elementwise' END"                                                           \
    " FROM reproducers r WHERE r.signature_id = " sig " ORDER BY r.id LIMIT 1), 'unknown')"
/* Groups every signature without a bug (after a migration or a merge). */
#define STORE_SQL_GROUP_BUGS                                                            \
    "CREATE TEMP TABLE group_bug_keys AS SELECT id AS sig, implementation,"             \
    " " STORE_SQL_BUG_CLASS("class", "l") " AS class,"                                  \
    " " STORE_SQL_BUG_KIND("class", "dtype", "l") " AS kind,"                           \
    " " STORE_SQL_BUG_LOCUS("class", "l") " AS locus, first_run_id, first_seen"         \
    " FROM (SELECT s.*, " STORE_SQL_RAW_LOCUS("s.id") " AS l FROM main.signatures s"     \
    " WHERE s.bug_id IS NULL);\n"                                                       \
    "UPDATE temp.group_bug_keys AS k SET class = s.class,"                              \
    " kind = " STORE_SQL_BUG_KIND("s.class", "s.dtype", "'elementwise'") ","            \
    " locus = 'elementwise' FROM main.signatures s WHERE s.id = k.sig"                  \
    " AND k.class = 'value' AND EXISTS (SELECT 1 FROM main.bugs b"                      \
    " WHERE b.implementation = k.implementation AND b.class = s.class"                  \
    " AND b.locus = 'elementwise'"                                                      \
    " AND b.kind = " STORE_SQL_BUG_KIND("s.class", "s.dtype", "'elementwise'")          \
    " UNION ALL SELECT 1 FROM temp.group_bug_keys e JOIN main.signatures t ON t.id = e.sig" \
    " WHERE e.implementation = k.implementation AND e.locus = 'elementwise'"            \
    " AND t.class = s.class AND e.kind = " STORE_SQL_BUG_KIND("s.class", "s.dtype", "'elementwise'") ");\n" \
    "INSERT INTO main.bugs(implementation, class, kind, locus, first_run_id, first_seen)\n" \
    " SELECT implementation, class, kind, locus, min(first_run_id), min(first_seen)"    \
    " FROM temp.group_bug_keys GROUP BY implementation, class, kind, locus"             \
    " ON CONFLICT(implementation, class, kind, locus) DO UPDATE SET"                    \
    " first_run_id = min(first_run_id, excluded.first_run_id),"                         \
    " first_seen = min(first_seen, excluded.first_seen);\n"                            \
    "UPDATE main.signatures SET bug_id = (SELECT b.id FROM temp.group_bug_keys k"       \
    " JOIN main.bugs b ON b.implementation = k.implementation AND b.class = k.class"    \
    " AND b.kind = k.kind AND b.locus = k.locus WHERE k.sig = signatures.id)"           \
    " WHERE bug_id IS NULL;\n"                                                          \
    "DROP TABLE temp.group_bug_keys;\n"

/* ------------------------------------------------------------------------
 * The statement catalogue: X(ID, sql). SQL_ID names each statement;
 * statements.c holds their text and prepares one on first use, kept
 * until store_close (store_prepare).
 * ---------------------------------------------------------------------- */
#define STORE_SQL_LIST(X)                                                               \
    X(USER_VERSION, "PRAGMA user_version")                                              \
    X(OTHER_TABLES, "SELECT count(*) FROM sqlite_schema")                               \
    X(RUN_INSERT,                                                                       \
      "INSERT INTO runs(kind, status, started_at, profile, host, pid, process_tag,"     \
      " cpu_features, build_flags, divergence_version, seed, shard_index, shard_count," \
      " args, sandbox) VALUES(?1, 'running', " NOW ", ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,"  \
      " ?10, ?11, ?12, ?13)")                                                           \
    X(RUN_FINISH, "UPDATE runs SET status = ?2, finished_at = " NOW " WHERE id = ?1")  \
    X(RUN_RUNNING,                                                                      \
      "SELECT id, pid, process_tag FROM runs WHERE status = 'running' AND host = ?1"      \
      " AND NOT (pid = ?2 AND process_tag = ?3)")                                         \
    X(RUN_MARK_INCOMPLETE,                                                              \
      "UPDATE runs SET status = 'incomplete' WHERE id = ?1 AND status = 'running'")     \
    X(RUN_RESUME,                                                                       \
      "UPDATE runs SET status = 'running', finished_at = NULL, host = ?2, pid = ?3,"    \
      " process_tag = ?4 WHERE id = ?1 AND status IN ('incomplete', 'interrupted')")    \
    X(BUILD_UPSERT,                                                                     \
      "INSERT INTO plugin_builds(name, version, sha256, path, first_seen)"              \
      " VALUES(?1, ?2, ?3, ?4, " NOW ") ON CONFLICT(name, version, sha256)"             \
      " DO UPDATE SET path = excluded.path RETURNING id")                               \
    X(RUN_PLUGIN_LINK,                                                                  \
      "INSERT OR IGNORE INTO run_plugins(run_id, plugin_build_id) VALUES(?1, ?2)")      \
    X(COUNTS_ADD,                                                                       \
      "INSERT INTO counts(run_id, implementation, variant, dtype, class, elements,"     \
      " cases) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)"                                      \
      " ON CONFLICT(run_id, implementation, variant, dtype, class) DO UPDATE SET"       \
      " elements = elements + excluded.elements, cases = cases + excluded.cases")      \
    X(OPERAND_COUNTS_ADD,                                                               \
      "INSERT INTO operand_counts(run_id, implementation, variant, dtype, class,"       \
      " operand_class, elements) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)"                    \
      " ON CONFLICT(run_id, implementation, variant, dtype, class, operand_class)"      \
      " DO UPDATE SET elements = elements + excluded.elements")                         \
    X(SIG_UPSERT,                                                                       \
      "INSERT INTO signatures(implementation, variant, dtype, class, operand_class,"    \
      " first_run_id, last_run_id, first_seen, last_seen, status, occurrences)"         \
      " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?6, " NOW ", " NOW ", 'open', 1)"                \
      " ON CONFLICT(implementation, variant, dtype, class, operand_class) DO UPDATE SET" \
      " last_run_id = max(last_run_id, excluded.last_run_id),"                         \
      " last_seen = excluded.last_seen, occurrences = occurrences + 1,"                 \
      " reopened_run_id = CASE WHEN status = 'fixed' THEN excluded.last_run_id"        \
      " ELSE reopened_run_id END,"                                                      \
      " status = 'open', fixed_run_id = NULL RETURNING id, occurrences, reopened_run_id") \
    X(SIG_EVENT,                                                                        \
      "INSERT OR IGNORE INTO signature_events(signature_id, run_id, build_id, kind,"    \
      " recorded_at) SELECT s.id, ?2, " STORE_SQL_RUN_BUILD("?2", "s.implementation")   \
      ", ?3, " NOW " FROM signatures s WHERE s.id = ?1")                                \
    X(SIGRUN_ADD,                                                                       \
      "INSERT INTO signature_runs(signature_id, run_id, occurrences) VALUES(?1, ?2, 1)"  \
      " ON CONFLICT(signature_id, run_id) DO UPDATE SET occurrences = occurrences + 1")  \
    X(ULP_ADD,                                                                          \
      "INSERT INTO ulp_histograms(run_id, implementation, variant, dtype, bucket,"       \
      " elements) VALUES(?1, ?2, ?3, ?4, ?5, ?6)"                                        \
      " ON CONFLICT(run_id, implementation, variant, dtype, bucket) DO UPDATE SET"       \
      " elements = elements + excluded.elements")                                       \
    X(REPRO_COUNT,                                                                      \
      "SELECT count(*) FROM reproducers WHERE signature_id = ?1 AND run_id = ?2")      \
    X(REPRO_INSERT,                                                                     \
      "INSERT INTO reproducers(signature_id, run_id, recorded_at, case_id, source,"     \
      " variant, dtype, attrs, attr_broadcast, attr_axis_set, attr_axis,"               \
      " attr_pythondiv, attr_auto_broadcast, attr_int_rounding, a_shape, b_shape, a,"   \
      " b, element, expected, actual, ulps, note, data_offsets, calls_before)"           \
      " VALUES(?1, ?2, " NOW ", ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"   \
      " ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24)")                                        \
    X(BUG_UPSERT,                                                                       \
      "INSERT INTO bugs(implementation, class, kind, locus, first_run_id, first_seen)"  \
      " VALUES(?1, " STORE_SQL_BUG_CLASS("?2", "?4") ","                                \
      " " STORE_SQL_BUG_KIND("?2", "?3", "?4") ", " STORE_SQL_BUG_LOCUS("?2", "?4") ","  \
      " ?5, " NOW ") ON CONFLICT(implementation, class, kind, locus) DO UPDATE SET"     \
      " first_run_id = min(first_run_id, excluded.first_run_id) RETURNING id")         \
    X(BUG_ARITHMETIC,                                                                   \
      "SELECT count(*) FROM bugs WHERE implementation = ?1 AND class = ?2"              \
      " AND kind = " STORE_SQL_BUG_KIND("?2", "?3", "'elementwise'")                    \
      " AND locus = 'elementwise'")                                                     \
    X(SIG_SET_BUG, "UPDATE signatures SET bug_id = ?2 WHERE id = ?1 AND bug_id IS NULL") \
    X(SIG_DROPPED,                                                                      \
      "UPDATE signatures SET reproducers_dropped = reproducers_dropped + 1"             \
      " WHERE id = ?1")                                                                 \
    X(CERT_UPSERT,                                                                      \
      "INSERT INTO certificates(run_id, implementation, variant, dtype, verdict,"       \
      " profile, cases, elements, recorded_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, " \
      NOW ") ON CONFLICT(run_id, implementation, variant, dtype) DO UPDATE SET"         \
      " verdict = excluded.verdict, profile = excluded.profile, cases = excluded.cases," \
      " elements = excluded.elements, recorded_at = excluded.recorded_at")             \
    X(COVERAGE_UPSERT,                                                                  \
      "INSERT INTO coverage(run_id, implementation, variant, dtype, cases, ranks,"      \
      " inner_sizes, broadcast_classes, size_tiers, paths, alignments)"                 \
      " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"                           \
      " ON CONFLICT(run_id, implementation, variant, dtype) DO UPDATE SET"              \
      " cases = excluded.cases, ranks = excluded.ranks,"                                \
      " inner_sizes = excluded.inner_sizes,"                                            \
      " broadcast_classes = excluded.broadcast_classes,"                                \
      " size_tiers = excluded.size_tiers, paths = excluded.paths,"                      \
      " alignments = excluded.alignments")                                              \
    X(SIG_FIX_EVENTS,                                                                   \
      "INSERT OR IGNORE INTO signature_events(signature_id, run_id, build_id, kind,"    \
      " recorded_at) SELECT s.id, ?1, " STORE_SQL_RUN_BUILD("?1", "s.implementation")   \
      ", 'fixed', " NOW " FROM signatures s WHERE implementation = ?2 AND variant = ?3" \
      " AND dtype = ?4 AND status = 'open' AND last_run_id < ?1")                       \
    X(SIG_FIX,                                                                          \
      "UPDATE signatures SET status = 'fixed', fixed_run_id = ?1 WHERE"                 \
      " implementation = ?2 AND variant = ?3 AND dtype = ?4 AND status = 'open'"        \
      " AND last_run_id < ?1")                                                          \
    X(REPRO_LOAD,                                                                       \
      "SELECT r.signature_id, r.run_id, r.case_id, r.source, r.variant, r.dtype,"       \
      " r.attr_broadcast, r.attr_axis_set, r.attr_axis, r.attr_pythondiv,"              \
      " r.attr_auto_broadcast, r.attr_int_rounding, r.a_shape, r.b_shape, r.a, r.b,"    \
      " r.element, r.expected, r.actual, r.ulps, r.note, s.implementation, s.class,"    \
      " s.operand_class, r.data_offsets FROM reproducers r"                             \
      " JOIN signatures s ON s.id = r.signature_id"                                     \
      " WHERE r.id = ?1")                                                               \
    X(REPRO_PLUGIN,                                                                     \
      "SELECT b.version, b.path, b.sha256 FROM run_plugins p JOIN plugin_builds b"      \
      " ON b.id = p.plugin_build_id WHERE p.run_id = ?1 AND b.name = ?2"                \
      " ORDER BY b.id DESC LIMIT 1")                                                    \
    X(REPRO_CALLS, "SELECT calls_before FROM reproducers WHERE id = ?1")                \
    X(SIG_DROPPED_COUNT, "SELECT reproducers_dropped FROM signatures WHERE id = ?1")    \
    X(SIG_RUN_REPROS,                                                                   \
      "SELECT (SELECT b.id FROM reproducers b WHERE b.signature_id = ?1"                \
      " AND b.run_id = r.run_id"                                                        \
      " ORDER BY coalesce(b.note, '') LIKE '%; narrowed to output element %' DESC, b.id" \
      " LIMIT 1), r.run_id FROM reproducers r WHERE r.signature_id = ?1"                \
      " AND (?2 = 0 OR r.run_id = ?2) GROUP BY r.run_id ORDER BY r.run_id DESC")

#define SQL_ENUM_(ID, sql) SQL_##ID,
enum { STORE_SQL_LIST(SQL_ENUM_) SQL_COUNT_ };
#undef SQL_ENUM_

/* A store handle (store.h's opaque `store`). */
struct store {
    sqlite3 *db;
    char *path;
    int readonly;          /* 1: opened read-only; 2: the file is not writable */
    int batch;             /* store_begin is open */
    int code;              /* SQLite's code of the last failure */
    uint32_t repro_limit;
    int64_t last_reproducer; /* id stored by the last store_record_finding */
    const char *op;        /* the operation under way, for messages */
    char op_text[64];      /* room for an operation name with a number */
    sqlite3_stmt *stmt[SQL_COUNT_];
    int read_views_made;           /* store_create_read_views ran on db */
    char err[1024];
};

/* ------------------------------------------------------------------------
 * schema.c
 * ---------------------------------------------------------------------- */

/* Brings the file of `s` to store_schema_version() in one transaction
 * (BEGIN IMMEDIATE): fails for a newer schema, and for a file at version
 * 0 that holds objects of another program (store_check_foreign); nothing
 * is changed then. *version: the version reached. */
int store_migrate(store *s, int64_t *version);

/* Fails when the file of `s`, at user_version 0, holds schema objects
 * (another program's database); 0 when it holds none. */
int store_check_foreign(store *s);

/* Creates the TEMP read views of store.h ("Reading") on the connection
 * of `s`; the first store_select calls it (the schema is current by then). */
int store_create_read_views(store *s);

/* ------------------------------------------------------------------------
 * statements.c
 * ---------------------------------------------------------------------- */

/* Copies src (NULL: "") into dst of len bytes, truncated and NUL-terminated.
 * Nothing when dst is NULL or len 0. */
void store_copy_text(char *dst, size_t len, const char *src);

/* Sets s->err to "PATH: OPERATION: message" (OPERATION: s->op, or "store")
 * and returns -1. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int store_fail(store *s, const char *fmt, ...);

/* store_fail with SQLite's message on s->db; keeps SQLite's code in
 * s->code. Returns -1. */
int store_fail_db(store *s);

/* store_fail saying why the store is read-only. Returns -1. */
int store_fail_readonly(store *s);

/* Statement SQL_<id> of the catalogue, prepared on first use and kept
 * until store_close; NULL (message set) when SQLite refuses it. The
 * caller ends each use with store_step_done or store_reset_stmt. */
sqlite3_stmt *store_prepare(store *s, int id);

/* Prepares `sql` for one call only; NULL (message set) when SQLite
 * refuses it. The caller finalizes it. */
sqlite3_stmt *store_prepare_sql(store *s, const char *sql);

/* Resets a kept statement and clears its bindings; accepts NULL. */
void store_reset_stmt(sqlite3_stmt *st);

/* Runs a statement that returns no rows (or whose rows are ignored) and
 * resets it. */
int store_step_done(store *s, sqlite3_stmt *st);

/* Binds a run's triple, (run_id, implementation, variant, dtype), to
 * parameters 1 to 4 of st (variant and dtype by name). */
void store_bind_triple(sqlite3_stmt *st, int64_t run_id, const char *implementation,
                       const char *variant, const char *dtype);

/* store_step_done of a statement that must change exactly one row: when
 * it changed none, "no WHAT ID" (store_fail). 0 or -1. */
int store_step_one(store *s, sqlite3_stmt *st, const char *what, int64_t id);

/* The end of a loop over a statement's rows: 0 when its last step was
 * SQLITE_DONE, else the database's error (store_fail_db) and -1. */
int store_steps_ended(store *s, int step);

/* Steps to the first row; -1 (with the error, statement reset) when
 * there is none. The caller reads the row, then calls store_step_done or
 * store_reset_stmt. */
int store_step_row(store *s, sqlite3_stmt *st);

/* Runs `sql` (one or more statements without parameters). */
int store_exec(store *s, const char *sql);

/* store_exec that ignores failures and leaves s->err alone: ends a failed
 * transaction without touching the message of the failure. */
void store_exec_quiet(store *s, const char *sql);

/* Binds text (NULL binds NULL) to parameter i; the text must outlive the
 * statement's use. */
void store_bind_text(sqlite3_stmt *st, int i, const char *text);

/* The first column of the first row of catalogue statement `id`. */
int store_read_int(store *s, int id, int64_t *out);

/* The names the store keeps for a variant and dtype id (owned by the
 * oracle's tables); fails for an unknown id. */
int store_name_ids(store *s, uint32_t variant, uint32_t dtype, const char **vname,
                   const char **dname);

/* Fails saying "<what> is missing" when text is NULL or empty. */
int store_need_text(store *s, const char *what, const char *text);

/* ------------------------------------------------------------------------
 * connection.c
 * ---------------------------------------------------------------------- */

/* Starts one write operation named `op` (s->op, for messages): its own
 * transaction (BEGIN IMMEDIATE), or a savepoint inside the caller's
 * batch. Fails on a read-only store and in a batch SQLite rolled back. */
int store_begin_op(store *s, const char *op);

/* Ends the operation begun by store_begin_op: commits (or releases) when
 * rc is 0, rolls back otherwise. Returns rc, or -1 when the commit fails. */
int store_end_op(store *s, int rc);

/* ------------------------------------------------------------------------
 * check.c
 * ---------------------------------------------------------------------- */

/* The one check of a file's soundness, shared by `db check`
 * (store_check), every writable store_open and store_merge's inputs:
 * SQLite's full integrity_check (indexes against their tables included)
 * and foreign_key_check. Returns 0 when the file is sound; 1 when it is
 * damaged, with what was found, one line, in problem (len bytes,
 * "integrity_check: ..." or "foreign_key_check: ..."); -1 when SQLite
 * failed otherwise (busy, I/O, out of memory: message in s). O(size of
 * the file). */
int store_verify(store *s, char *problem, size_t len);

#endif /* HARNESS_STORE_INTERNAL_H */
