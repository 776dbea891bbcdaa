/* SPDX-License-Identifier: MIT */
/*
 * harness/store/store.h: the SQLite store of Divergence. One file (by default
 * `divergence.db` in the current directory) holds the runs, the plugin
 * builds they loaded, counts per (run, implementation, variant, dtype,
 * difference class), certificates, deduplicated signatures and a bounded
 * number of reproducers per signature. docs/store.md describes the schema
 * for people who query it with the sqlite3 shell.
 *
 * Properties
 *  - The schema is versioned with PRAGMA user_version and brought up to
 *    date by an ordered list of migrations when a writable file is opened.
 *    A file written by a newer schema is refused, never changed.
 *  - WAL journal mode and a busy timeout of STORE_BUSY_TIMEOUT_MS, so
 *    several processes (workers, shards on one machine) can write one file;
 *    readers never block writers.
 *  - Every write runs in a transaction (BEGIN IMMEDIATE); every value
 *    travels as a bound parameter. A process killed at any moment leaves
 *    what it committed readable; its run stays 'running' until the next
 *    writable open (or store_mark_stale_runs) on the same host sees its
 *    process gone and marks it 'incomplete'.
 *  - All heap of the store, SQLite's included, goes through harness/base/alloc.h
 *    (installed with SQLITE_CONFIG_MALLOC the first time a store is opened,
 *    unless SQLite was already initialised by someone else).
 *
 * Errors: every fallible function returns 0 on success and -1 on failure;
 * outputs through trailing pointers are written only on success. After a
 * failure store_errmsg() says which file, which operation and why (SQLite's
 * message when SQLite failed), e.g.
 *     "divergence.db: record finding: attempt to write a readonly database".
 *
 * Threads: a store handle is used by one thread at a time. Separate
 * handles (in one process or many) may share a file.
 *
 * Since: schema version 1; what schema 2 added says so.
 */
#ifndef HARNESS_STORE_H
#define HARNESS_STORE_H

#include <stddef.h>
#include <stdint.h>
#include "harness/cases/divcase.h"

#define STORE_DEFAULT_PATH       "divergence.db"
#define STORE_BUSY_TIMEOUT_MS    10000 /* how long a writer waits for another */
#define STORE_DEFAULT_REPRODUCERS 8    /* reproducers kept per signature */
/* Largest operand (A or B) a reproducer stores, in bytes. A larger case is
 * counted on its signature as a dropped reproducer. Loading refuses blobs
 * larger than this before allocating. */
#define STORE_MAX_OPERAND_BYTES  (UINT64_C(64) << 20)

/* Flags of store_open. */
#define STORE_CREATE   1u /* create the file (and the schema) when missing */
#define STORE_READONLY 2u /* open for reading only: every write fails */

/* Final states of a run (store_finish_run). */
#define STORE_RUN_COMPLETE   1
#define STORE_RUN_INCOMPLETE 2
/* Stopped by SIGINT, SIGTERM or SIGHUP (harness/base/interrupt.h) after
 * storing what it held; taken up by --resume as an incomplete run is.
 * Since schema 9. */
#define STORE_RUN_INTERRUPTED 3

typedef struct store store;

/* The schema version this build writes (the newest it knows). */
int store_schema_version(void);

/*
 * Opens the database at `path` (NUL-terminated; STORE_DEFAULT_PATH is the
 * CLI's default). flags: STORE_CREATE and/or STORE_READONLY.
 *
 * Writable: checks the file with the same check as store_check (SQLite's
 * integrity_check, indexes against tables included, and
 * foreign_key_check: a file `divergence db check` reports FAILED is
 * refused before anything is written to it), sets WAL mode, applies the
 * pending migrations in one transaction and marks the dead runs of this
 * host 'incomplete' (store_mark_stale_runs). A file that is not writable
 * (permissions) opens read-only, as with STORE_READONLY, when it is
 * already up to date.
 *
 * Read-only (STORE_READONLY): never creates, changes or migrates the
 * file; checks it as a writable open does (a damaged file is refused,
 * not read). A file of an older schema is read through a migrated private
 * copy (made with SQLite's backup API; the file stays as it is). When a
 * writer killed at the wrong moment left the WAL index needing a recovery
 * a read-only connection may not run, and the file can be written, a
 * read-write connection that only reads runs the recovery first (the
 * -shm file is rebuilt; the database is not changed).
 *
 * Fails (-1, message in err) when: path is empty ("empty path"); the file
 * is missing and STORE_CREATE is not given; it exists but is not a
 * regular file (a directory, FIFO, device such as /dev/null: "not a
 * regular file"); it is not a SQLite database (corrupt, or another kind
 * of file); it is a SQLite database of some other program (user_version
 * 0 and tables of its own); read-only, it has no schema yet (a 0-byte
 * file: "empty file: not a Divergence database"); its schema version is
 * newer than this build knows (the message names the file and both
 * versions); it is damaged ("the database is damaged (SQLite's
 * integrity_check: ...)"); it needs a migration but cannot be
 * written; or SQLite fails.
 *
 * err: a buffer of errlen bytes for the message (always NUL-terminated,
 * may be NULL). On success *out holds a store the caller closes with
 * store_close.
 */
int store_open(const char *path, unsigned flags, store **out, char *err, size_t errlen);

/* Removes the database file at `path` and its -wal, -shm and -journal
 * files, those that exist (a scratch database, or one a failed merge
 * left). Never fails. */
void store_remove_files(const char *path);

/* Closes the store, rolling back a batch left open. Accepts NULL. */
void store_close(store *s);

/* Message of the last failure on `s` ("" when none; never NULL). Owner: the
 * store; valid until the next call on it. Accepts NULL (gives "no store"). */
const char *store_errmsg(const store *s);

/* The path the store was opened with. Owner: the store. */
const char *store_path(const store *s);

/*
 * Batches: store_begin starts a write transaction (BEGIN IMMEDIATE) that
 * the record functions join until store_commit (or store_rollback) ends
 * it. Without a batch each record function is a transaction of its own.
 * Within a batch, a record function that fails leaves no partial change
 * (it runs in a savepoint); the batch stays open for the caller to commit
 * or roll back. Another writer waits while a batch is open: keep batches
 * short (well under STORE_BUSY_TIMEOUT_MS).
 *
 * store_begin fails when a batch is already open; store_commit when none
 * is. store_rollback accepts no open batch (returns 0). When SQLite itself
 * rolled the whole batch back after a failure (out of memory, disk full),
 * every later operation of the batch and store_commit fail saying so, and
 * store_rollback closes the batch.
 */
int store_begin(store *s);
int store_commit(store *s);
int store_rollback(store *s);

/* What a run is; every string NUL-terminated, owned by the caller, read
 * during store_begin_run only. */
typedef struct store_run_info {
    const char *kind;        /* "certify", "fuzz", "sweep", ...; required */
    const char *profile;     /* "exact", "ftz", "ulp:2", ...; NULL: "exact" */
    const char *args;        /* the command line, joined; NULL: "" */
    const char *build_flags; /* how divergence was built; NULL: "" */
    uint64_t seed;           /* stored as its two's-complement int64 */
    int has_seed;            /* 0: the seed column is NULL */
    uint32_t shard_index;    /* 0 .. shard_count-1 */
    uint32_t shard_count;    /* 0: not sharded (shard columns NULL) */
    const char *sandbox;     /* the worker's sandbox layers in force
                                (worker_describe_layers); NULL: not recorded */
} store_run_info;

/*
 * Starts a run: inserts it with status 'running', the start time (UTC),
 * this host's name, this process's id and start time, the CPU features
 * (the flags line of /proc/cpuinfo, or "unknown") and the divergence
 * version, and commits at once, so the run is visible even if the process
 * dies next. Fails inside a batch. On success *run_id is the run's id.
 */
int store_begin_run(store *s, const store_run_info *info, int64_t *run_id);

/*
 * Ends a run: status STORE_RUN_COMPLETE ('complete'), STORE_RUN_INCOMPLETE
 * ('incomplete') or STORE_RUN_INTERRUPTED ('interrupted'), and finished_at
 * = now. Fails for an unknown run id or status.
 */
int store_finish_run(store *s, int64_t run_id, int status);

/*
 * Takes up run `run_id` again (`divergence certify|fuzz --resume`): its
 * status goes from 'incomplete' or 'interrupted' back to 'running', finished_at is cleared,
 * and its host, pid and process tag become this process's (so a process
 * killed again leaves it 'running' for store_mark_stale_runs to find).
 * Fails when the run does not exist or is neither (complete, or
 * taken up by another process first), and inside a batch. Since schema 2
 * (added without a schema change).
 */
int store_resume_run(store *s, int64_t run_id);

/*
 * Marks 'incomplete' every 'running' run that was started on this host by
 * a process that no longer exists (its pid is gone, a zombie, reused by a
 * later process, or the machine rebooted since). Runs of other hosts are
 * left alone: nothing here can tell whether they are alive. *n_marked (may
 * be NULL) receives how many runs were marked. Called by store_open.
 */
int store_mark_stale_runs(store *s, int64_t *n_marked);

/*
 * Records the plugin build at `path` (a shared object; hashed with
 * SHA-256 here): one row per (name, version, hash), reused when it exists
 * (its path is updated to this one). When run_id > 0 the build is also
 * linked to that run (table run_plugins). name, version: the descriptor's
 * strings, non-empty. On success *build_id is the build's id.
 */
int store_plugin_build(store *s, int64_t run_id, const char *name, const char *version,
                       const char *path, int64_t *build_id);

/* As store_plugin_build, with the SHA-256 of the file at `path` (64
 * lower-case hex digits) hashed by the caller, once for the whole run
 * (harness/run/engine/session.h); the file is not read here. */
int store_record_plugin_build(store *s, int64_t run_id, const char *name, const char *version,
                              const char *path, const char *sha256, int64_t *build_id);

/*
 * Adds `elements` and `cases` to the counts of (run, implementation,
 * variant, dtype, class), creating the row at zero first. implementation:
 * the plugin name; variant: DVG_VARIANT_*; dtype: DVG_DTYPE_*; cls:
 * ORACLE_CLASS_* (ORACLE_CLASS_MATCH counts conforming elements). cases:
 * the cases in which the class occurred. Both at most INT64_MAX in total.
 */
int store_record_counts(store *s, int64_t run_id, const char *implementation,
                        uint32_t variant, uint32_t dtype, uint32_t cls, uint64_t elements,
                        uint64_t cases);

/* One difference found, with the case that shows it. Strings are
 * NUL-terminated; everything is owned by the caller and read during
 * store_record_finding only. */
typedef struct store_finding {
    const char *implementation; /* plugin name; required */
    uint32_t cls;               /* ORACLE_CLASS_*, not MATCH */
    const char *operand_class;  /* "subnormal/normal" (A's/B's operand class
                                   names), or "" for a whole-case finding */
    const divcase *c;           /* the case; variant and dtype come from it */
    int64_t element;            /* output element index, -1: the whole case */
    const char *expected;       /* what was due, as text; NULL: none */
    const char *actual;         /* what came, as text; NULL: none */
    uint64_t ulps;              /* ULP distance (or |difference| for
                                   integers); UINT64_MAX: none. Values above
                                   INT64_MAX are stored as NULL */
    const char *note;           /* free text; NULL: none */
    const char *class_name;     /* NULL: oracle_class_name(cls); else the
                                   signature's class as this text, cls
                                   unused (`divergence diff`'s hazard
                                   classes, "int-div-zero", ...) */
    const char *calls_before;   /* the earlier calls the departure needs, as
                                   case-file text (reproducers.calls_before,
                                   schema 8); NULL: none */
} store_finding;

/*
 * Records a finding of run `run_id`: upserts its signature (implementation,
 * variant, dtype, class, operand class) - a new one starts with
 * occurrences 1 and first/last run and time set; a known one gets
 * occurrences + 1, last run and last seen updated, and status 'open' again
 * if it was 'fixed', which reopens it: reopened_run_id = run_id and a
 * 'reopened' event; a new signature gets a 'new' event (schema 10) - then
 * stores the case as a reproducer unless the
 * signature already has the limit of this run (store_set_reproducer_limit) or the
 * operands exceed STORE_MAX_OPERAND_BYTES, in which case the signature's
 * reproducers_dropped is incremented instead.
 *
 * Since schema 2 the sighting is also counted per run (signature_runs).
 *
 * *signature_id (may be NULL): the signature's id. *is_new (may be NULL):
 * 1 when this call created the signature, else 0. store_last_reproducer
 * tells the id of the reproducer stored, if one was.
 */
int store_record_finding(store *s, int64_t run_id, const store_finding *f,
                         int64_t *signature_id, int *is_new);

/* The id of the reproducer stored by the last successful
 * store_record_finding on `s`; 0 when that finding was only counted (or
 * none was recorded yet). */
int64_t store_last_reproducer(const store *s);

/* Reproducers kept per signature and run from now on for this handle (default
 * STORE_DEFAULT_REPRODUCERS; 0 keeps none). Never fails. */
void store_set_reproducer_limit(store *s, uint32_t limit);

/*
 * Records the certificate of (run, implementation, variant, dtype),
 * replacing one recorded before for the same key. verdict: "CONFORMANT",
 * "CONFORMANT under profile ftz", "NONCONFORMANT", "CRASHED",
 * "UNSUPPORTED" (any non-empty text is stored); profile: the profile it
 * was judged under ("exact", "ftz", "ulp:2", ...). cases, elements: what
 * the verdict rests on, at most INT64_MAX.
 */
int store_record_certificate(store *s, int64_t run_id, const char *implementation,
                             uint32_t variant, uint32_t dtype, const char *verdict,
                             const char *profile, uint64_t cases, uint64_t elements);

/* What a claim's cases exercised (docs/store.md, "coverage"): lists as
 * text, each non-NULL ("" when empty). */
typedef struct store_coverage {
    uint64_t cases;
    const char *ranks, *inner_sizes, *broadcast_classes, *size_tiers, *paths;
    const char *alignments; /* since schema 5 */
} store_coverage;

/*
 * Records the coverage of (run, implementation, variant, dtype),
 * replacing one recorded before for the same key (schema 4).
 */
int store_record_coverage(store *s, int64_t run_id, const char *implementation,
                          uint32_t variant, uint32_t dtype, const store_coverage *c);

/*
 * After run `run_id` has tested (implementation, variant, dtype) in full,
 * marks 'fixed' (fixed_run_id = run_id) every open signature of that
 * triple that no run from run_id on has seen. *n_fixed (may be NULL)
 * receives how many.
 */
int store_mark_fixed(store *s, int64_t run_id, const char *implementation, uint32_t variant,
                     uint32_t dtype, int64_t *n_fixed);

/*
 * Adds a ULP-error histogram to (run, implementation, variant, dtype):
 * elements[b] wrong-value elements in bucket b, for b < n_buckets (at most
 * STORE_ULP_BUCKETS; harness/judge/verdict.h defines the buckets:
 * verdict_ulp_bucket). Buckets at zero write nothing. Since schema 2.
 */
#define STORE_ULP_BUCKETS 23
int store_record_ulp_histogram(store *s, int64_t run_id, const char *implementation,
                               uint32_t variant, uint32_t dtype, const uint64_t *elements,
                               uint32_t n_buckets);

/* What store_reproducer_load tells besides the case. Texts longer than
 * their arrays are truncated (always NUL-terminated). */
typedef struct store_reproducer {
    int64_t id, signature_id, run_id;
    char implementation[128];
    char plugin_version[64];  /* "" when the run linked no build of it */
    char plugin_path[1024];   /* "" likewise */
    char plugin_sha256[65];   /* "" likewise */
    char cls[64];             /* class name, "wrong-value" */
    char operand_class[64];
    int64_t element;          /* -1: the whole case */
    char expected[256], actual[256];
    uint64_t ulps;            /* UINT64_MAX: none */
    char note[512];
} store_reproducer;

/*
 * Loads reproducer `id` into *out, ready to run again: id, source,
 * variant, dtype, every attribute field, both shapes and the operand bytes
 * exactly as recorded (the case-file fields expect_* and requirements are
 * empty). *out is overwritten, not freed; on success the caller frees it
 * with divcase_free. info (may be NULL) receives the rest of the record.
 * Everything read is validated (names, ranges, blob sizes against shapes
 * and STORE_MAX_OPERAND_BYTES) before anything is allocated.
 */
int store_reproducer_load(store *s, int64_t id, divcase *out, store_reproducer *info);

/* The earlier calls reproducer `id` needs (reproducers.calls_before, a
 * case file's text; "" when it shows alone) into *text, allocated (the
 * caller frees it with dvg_free). 0, or -1 (no such reproducer, memory,
 * the store's error). Since schema 8. */
int store_reproducer_calls(store *s, int64_t id, char **text);

/* ------------------------------------------------------------------------
 * The ids people type. Signatures and reproducers are numbered apart, so
 * everything Divergence prints for `divergence replay` names which one it
 * means: "sig:N" for signature N, "repro:N" for reproducer N (docs/store.md,
 * "Ids"). A bare number is refused, never guessed: 14 could be either.
 * Since schema 4 (added without a schema change).
 * ---------------------------------------------------------------------- */
#define STORE_REF_SIGNATURE  "sig:"
#define STORE_REF_REPRODUCER "repro:"

/* Parses "sig:N" or "repro:N" (N a decimal integer, 1 <= N <= INT64_MAX,
 * nothing after it). On success *is_signature is 1 for "sig:" and 0 for
 * "repro:", and *id is N. -1 with the reason in err (errlen bytes,
 * NUL-terminated, may be NULL) otherwise; a bare number gets a reason that
 * names both forms. */
int store_ref_parse(const char *text, int *is_signature, int64_t *id, char *err, size_t errlen);

/* A plugin build as a run links it. */
typedef struct store_build {
    char version[64];
    char path[1024];
    char sha256[65];
} store_build;

/* The build named `name` (a plugin descriptor's name) that run `run_id`
 * links (the newest when it links several) into *out. Returns 0 when
 * found, 1 when the run links none of that name (*out empty), -1 on an
 * error. */
int store_run_build(store *s, int64_t run_id, const char *name, store_build *out);

/* The reproducers of signature `signature_id`, one per run that kept
 * one, newest run first (at most cap; only run `run_id`'s when it is not
 * 0): of each run a crash narrowed to its pair first, else the lowest id,
 * into ids[] and their runs into runs[] (may be NULL); *n how many. Fails
 * (-1) with "no such signature", "signature N keeps no reproducer (M
 * dropped)" when it keeps none, or "signature N keeps no reproducer of
 * run R". */
int store_signature_reproducers(store *s, int64_t signature_id, int64_t run_id, int64_t *ids,
                                int64_t *runs, size_t cap, size_t *n);

/* The reproducer `sig:N` names: store_signature_reproducers' first, of the
 * latest run that kept one for the signature (the build that failed
 * last), into *reproducer_id. 0 or -1 (its messages). */
int store_signature_reproducer(store *s, int64_t signature_id, int64_t *reproducer_id);

/* ------------------------------------------------------------------------
 * Reading: one read-only SQL statement with bound parameters, its rows
 * handed to a callback. Reports and queries use it; their SQL is fixed
 * text, every value a parameter. Since schema 2.
 *
 * Code outside the store reads through the read views, never the tables
 * (only the store writes SQL against those): TEMP views that the first
 * store_select of a connection creates (they are not in the file, and not
 * in its schema version), each with the columns of its table as docs/store.md
 * describes them:
 *   read_runs, read_run_shards, read_plugin_builds, read_run_plugins,
 *   read_counts, read_certificates, read_ulp_histograms, read_signatures,
 *   read_signature_runs, read_reproducers.
 * The views of docs/store.md (v_run_summary, v_signatures, ...) are read
 * as they are.
 * ---------------------------------------------------------------------- */

/* Value types of parameters and columns. */
#define STORE_NULL 0
#define STORE_INT  1
#define STORE_REAL 2
#define STORE_TEXT 3
#define STORE_BLOB 4

/* One parameter (?1, ?2, ... in order). text: NUL-terminated, owned by the
 * caller, read during store_select only; NULL binds NULL. */
typedef struct store_param {
    int type;          /* STORE_NULL, STORE_INT, STORE_REAL or STORE_TEXT */
    int64_t i;
    double real;
    const char *text;
} store_param;

#define STORE_PARAM_INT(v) ((store_param){STORE_INT, (v), 0, NULL})
#define STORE_PARAM_TEXT(t) ((store_param){STORE_TEXT, 0, 0, (t)})

/* One result row, valid during the callback only. */
typedef struct store_row store_row;

/* Called once per row; returns 0 to go on, non-zero to stop (store_select
 * then fails with "stopped by the caller"). */
typedef int (*store_row_fn)(void *ctx, const store_row *row);

/*
 * Runs `sql`, exactly one statement that does not write (SELECT, or a
 * PRAGMA that reads), with params[0..n_params-1] bound to ?1.. (the count
 * must match the statement's), calling fn for every row. Fails for a
 * statement that writes, more than one statement, a parameter count that
 * does not match, or SQLite's errors.
 */
int store_select(store *s, const char *sql, const store_param *params, size_t n_params,
                 store_row_fn fn, void *ctx);

/*
 * What run `run_id` changed in the life of signatures (signature_events,
 * schema 10): *n_new first found by it, *n_reopened seen again by it after
 * a fix, *n_fixed fixed by it (its claim certified without them). 0, or
 * -1 with the reason in store_errmsg. Since schema 10.
 */
int store_run_changes(store *s, int64_t run_id, int64_t *n_new, int64_t *n_reopened,
                      int64_t *n_fixed);

/* The row's columns: count, name (never NULL), type (STORE_NULL ..
 * STORE_BLOB, as stored), and values. store_row_text gives NULL for a NULL
 * value (numbers come as text); pointers are owned by the store and valid
 * until the callback returns. store_row_blob sets *len (0 for NULL). */
int store_row_columns(const store_row *r);
const char *store_row_name(const store_row *r, int col);
int store_row_type(const store_row *r, int col);
int64_t store_row_int(const store_row *r, int col);
double store_row_real(const store_row *r, int col);
const char *store_row_text(const store_row *r, int col);
const void *store_row_blob(const store_row *r, int col, size_t *len);

/* What store_merge did. */
typedef struct store_merge_stats {
    int input_version;          /* the input's schema version */
    int64_t runs_added;         /* unsharded runs copied */
    int64_t runs_folded;        /* shard runs folded into merged runs */
    int64_t runs_merged;        /* merged runs that received shards */
    int64_t runs_skipped;       /* runs merged before: nothing added */
    int64_t signatures_added;   /* signatures new to this database */
    int64_t signatures_updated; /* known ones that the input saw again */
    int64_t reproducers_added;
    int64_t reproducers_dropped; /* beyond the per-signature limit: counted */
} store_merge_stats;

/*
 * Merges the Divergence database at `in_path` (any schema version up to
 * this one; never changed: a temporary copy is migrated) into `s`, in one
 * transaction:
 *  - runs get new ids, in the order they started. A run already merged
 *    before (same host, process and start time) adds nothing, so merging
 *    a file twice changes nothing. The shards of one campaign (`--shard
 *    i/N` runs with the same kind, seed, profile, N, divergence build,
 *    plugin builds and command line but for --shard, --db, --plugin,
 *    --jobs) fold into one merged run: shard_index NULL, shard_count N,
 *    status 'complete' once all N shards are in and complete, one row per
 *    shard in run_shards; a later merge adds missing shards to it.
 *  - plugin builds are deduplicated by (name, version, sha256);
 *  - counts, ULP histograms and per-run signature sightings are added;
 *    certificates of one claim held by several shards add their cases and
 *    keep the worst verdict;
 *  - signatures are deduplicated by their key: occurrences and dropped
 *    reproducers add up, first/last run and time are the earliest and
 *    latest; then every signature's fixed status is recomputed (fixed by
 *    the first certificate of its (implementation, variant, dtype) from a
 *    run after the last one that saw it);
 *  - reproducers are copied up to the limit (store_set_reproducer_limit)
 *    per signature, the rest counted in reproducers_dropped.
 * Fails inside a batch, on a read-only store, when in_path is this store's
 * file, is not a Divergence database, has a newer schema or fails the
 * check of store_check (integrity_check, foreign_key_check); nothing is
 * changed then. stats (may be NULL) receives what was done.
 */
int store_merge(store *s, const char *in_path, store_merge_stats *stats);

/*
 * Checks the file at `path` without changing it: that it is a regular
 * file holding a Divergence database (a 0-byte file or one without a
 * schema fails) of a schema version this build knows (an older one
 * passes: the next writable open migrates it), that SQLite's
 * integrity_check and foreign_key_check pass ("the database is damaged
 * (...)" otherwise). store_open's writable opens and store_merge's inputs
 * run the same check. *version (may be NULL) receives its schema
 * version. Returns 0 when it is sound, -1 with the
 * first problems in err (errlen bytes, NUL-terminated, may be NULL).
 */
int store_check(const char *path, int *version, char *err, size_t errlen);

/* ------------------------------------------------------------------------
 * Sweeps (since schema 3): `divergence sweep` (harness/run/sweep/sweep.h) records
 * one row per sweep in `sweeps`, the chunks it finished in `sweep_chunks`
 * (so --resume skips them) and its differences per class and operand
 * class in `operand_counts`, each chunk in one batch with its counts,
 * histograms and findings.
 * ---------------------------------------------------------------------- */

/* What a sweep is; strings NUL-terminated, owned by the caller, read during
 * store_sweep_begin only. */
typedef struct store_sweep_info {
    const char *implementation; /* plugin name; required */
    uint32_t variant, dtype;    /* DVG_VARIANT_*, DVG_DTYPE_* */
    const char *attrs;          /* the attributes swept, "k=v k=v"; NULL: "" */
    const char *space;          /* "exhaustive" or "structured" */
    const char *layout;         /* how batches were shaped, for people; NULL: "" */
    const char *plan;           /* everything a resumed sweep must match; required */
    uint64_t pairs;             /* operand pairs the sweep (its shard) covers */
    uint64_t random_pairs;      /* of them, random pairs (structured sweeps) */
    uint64_t chunks;            /* chunks the sweep (its shard) has */
} store_sweep_info;

/* Records a sweep of run `run_id`; *sweep_id its id. */
int store_sweep_begin(store *s, int64_t run_id, const store_sweep_info *info, int64_t *sweep_id);

/* The newest unfinished sweep (no verdict, its run not complete) of
 * `implementation` with this `plan`: *sweep_id and *run_id, both 0 when
 * there is none. */
int store_sweep_find(store *s, const char *implementation, const char *plan, int64_t *sweep_id,
                     int64_t *run_id);

/* Called by store_sweep_chunks once per chunk done, in chunk order;
 * `tally` is the text recorded with it (valid during the call). Returns
 * 0 to go on, non-zero to fail store_sweep_chunks. */
typedef int (*store_sweep_chunk_fn)(void *ctx, uint64_t chunk, uint64_t pairs,
                                    uint64_t unjudged, const char *tally);

/* The chunks of sweep `sweep_id` recorded done. */
int store_sweep_chunks(store *s, int64_t sweep_id, store_sweep_chunk_fn fn, void *ctx);

/* Records chunk `chunk` of the sweep done, with its `pairs` (of which
 * `unjudged` were in batches that crashed or hung) and `tally`, the
 * caller's text of what the chunk found (NULL: ""), and adds them to the
 * sweep's progress. Fails when the chunk was recorded before. Call it in
 * the batch that records the chunk's counts and findings. */
int store_sweep_chunk_done(store *s, int64_t sweep_id, uint64_t chunk, uint64_t pairs,
                           uint64_t unjudged, const char *tally);

/* Adds `elements` of difference class `cls` with operand classes
 * `operand_class` ("subnormal/normal") to (run, implementation, variant,
 * dtype). */
int store_record_operand_counts(store *s, int64_t run_id, const char *implementation,
                                uint32_t variant, uint32_t dtype, uint32_t cls,
                                const char *operand_class, uint64_t elements);

/* Sets the sweep's verdict ("CONFORMANT", "NONCONFORMANT", "CRASHED",
 * "UNSUPPORTED", ...; NULL leaves it unfinished) and finished_at. */
int store_sweep_finish(store *s, int64_t sweep_id, const char *verdict);

/* ------------------------------------------------------------------------
 * Regression ranges (since schema 7): where `divergence bisect`
 * (harness/run/replay/bisect.h) saw a signature come in and go away in a series
 * of builds of its implementation, as ClusterFuzz gives them: the last
 * build before the change and the first build after it (docs/store.md,
 * "signature_ranges"). Builds are plugin_builds rows (store_plugin_build
 * with run_id 0 records a build no run loaded).
 * ---------------------------------------------------------------------- */
#define STORE_RANGE_REGRESSION "regression" /* without it -> with it */
#define STORE_RANGE_FIXED      "fixed"      /* with it -> without it */

typedef struct store_range {
    int64_t before_build_id; /* the last build before the change (regression:
                                without the signature; fixed: with it);
                                0: none, the change lies before the first
                                build of the series */
    int64_t after_build_id;  /* the first build after the change; > 0 */
    uint32_t builds;         /* builds in the series bisected */
    uint32_t replays;        /* replays of the reproducer the range took */
    int monotonic;           /* 0: the replays saw the signature come and go
                                more than once in the series */
    const char *note;        /* NUL-terminated, the caller's; NULL: "" */
} store_range;

/*
 * Records range `kind` (STORE_RANGE_REGRESSION or STORE_RANGE_FIXED) of
 * signature `signature_id`, replacing the one recorded before; r NULL
 * removes it (a signature bisected again that is no longer fixed). One
 * write operation (a transaction, or a savepoint in a batch). Fails for an
 * unknown kind, signature or build.
 */
int store_set_range(store *s, int64_t signature_id, const char *kind, const store_range *r);

#endif /* HARNESS_STORE_H */
