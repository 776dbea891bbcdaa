/* SPDX-License-Identifier: MIT */
/*
 * The SQLite store (see store.h and docs/store.md).
 *
 * Layout of this file: the schema as a list of migrations, the statements
 * as one table, then the plumbing (allocator, errors, transactions), then
 * the operations in the order of store.h.
 */
#include "harness/store/store.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/alloc.h"
#include "harness/base/sha256.h"
#include "oracle/compare.h"
#include "oracle/dtype.h"
#include "oracle/shape.h"
#include "oracle/variant.h"

#ifndef DVG_VERSION
#define DVG_VERSION "unknown"
#endif

/* ------------------------------------------------------------------------
 * The schema. migrations[N] takes a database from user_version N to N+1;
 * a later version appends one entry and never edits an earlier one.
 * docs/store.md describes every table and view.
 * ---------------------------------------------------------------------- */
static const char *const migrations[] = {
    /* 0 -> 1 */
    "CREATE TABLE runs(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  kind TEXT NOT NULL,\n"
    "  status TEXT NOT NULL DEFAULT 'running'\n"
    "    CHECK (status IN ('running', 'complete', 'incomplete')),\n"
    "  started_at TEXT NOT NULL,\n"
    "  finished_at TEXT,\n"
    "  profile TEXT NOT NULL,\n"
    "  host TEXT NOT NULL,\n"
    "  pid INTEGER NOT NULL,\n"
    "  process_tag TEXT NOT NULL,\n"
    "  cpu_features TEXT NOT NULL,\n"
    "  build_flags TEXT NOT NULL,\n"
    "  divergence_version TEXT NOT NULL,\n"
    "  seed INTEGER,\n"
    "  shard_index INTEGER,\n"
    "  shard_count INTEGER,\n"
    "  args TEXT NOT NULL\n"
    ");\n"
    "CREATE INDEX runs_status ON runs(status);\n"
    "CREATE TABLE plugin_builds(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  name TEXT NOT NULL,\n"
    "  version TEXT NOT NULL,\n"
    "  sha256 TEXT NOT NULL,\n"
    "  path TEXT NOT NULL,\n"
    "  first_seen TEXT NOT NULL,\n"
    "  UNIQUE (name, version, sha256)\n"
    ");\n"
    "CREATE TABLE run_plugins(\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id),\n"
    "  plugin_build_id INTEGER NOT NULL REFERENCES plugin_builds(id),\n"
    "  PRIMARY KEY (run_id, plugin_build_id)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE counts(\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id),\n"
    "  implementation TEXT NOT NULL,\n"
    "  variant TEXT NOT NULL,\n"
    "  dtype TEXT NOT NULL,\n"
    "  class TEXT NOT NULL,\n"
    "  elements INTEGER NOT NULL DEFAULT 0,\n"
    "  cases INTEGER NOT NULL DEFAULT 0,\n"
    "  PRIMARY KEY (run_id, implementation, variant, dtype, class)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE certificates(\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id),\n"
    "  implementation TEXT NOT NULL,\n"
    "  variant TEXT NOT NULL,\n"
    "  dtype TEXT NOT NULL,\n"
    "  verdict TEXT NOT NULL,\n"
    "  profile TEXT NOT NULL,\n"
    "  cases INTEGER NOT NULL,\n"
    "  elements INTEGER NOT NULL,\n"
    "  recorded_at TEXT NOT NULL,\n"
    "  PRIMARY KEY (run_id, implementation, variant, dtype)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE signatures(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  implementation TEXT NOT NULL,\n"
    "  variant TEXT NOT NULL,\n"
    "  dtype TEXT NOT NULL,\n"
    "  class TEXT NOT NULL,\n"
    "  operand_class TEXT NOT NULL,\n"
    "  first_run_id INTEGER NOT NULL REFERENCES runs(id),\n"
    "  last_run_id INTEGER NOT NULL REFERENCES runs(id),\n"
    "  first_seen TEXT NOT NULL,\n"
    "  last_seen TEXT NOT NULL,\n"
    "  status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'fixed')),\n"
    "  fixed_run_id INTEGER REFERENCES runs(id),\n"
    "  occurrences INTEGER NOT NULL DEFAULT 1,\n"
    "  reproducers_dropped INTEGER NOT NULL DEFAULT 0,\n"
    "  UNIQUE (implementation, variant, dtype, class, operand_class)\n"
    ");\n"
    "CREATE INDEX signatures_last_run ON signatures(last_run_id);\n"
    "CREATE INDEX signatures_first_run ON signatures(first_run_id);\n"
    "CREATE TABLE reproducers(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  signature_id INTEGER NOT NULL REFERENCES signatures(id),\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id),\n"
    "  recorded_at TEXT NOT NULL,\n"
    "  case_id TEXT NOT NULL,\n"
    "  source TEXT NOT NULL,\n"
    "  variant TEXT NOT NULL,\n"
    "  dtype TEXT NOT NULL,\n"
    "  attrs TEXT NOT NULL,\n"
    "  attr_broadcast INTEGER NOT NULL,\n"
    "  attr_axis_set INTEGER NOT NULL,\n"
    "  attr_axis INTEGER NOT NULL,\n"
    "  attr_pythondiv INTEGER NOT NULL,\n"
    "  attr_auto_broadcast INTEGER NOT NULL,\n"
    "  attr_int_rounding INTEGER NOT NULL,\n"
    "  a_shape TEXT NOT NULL,\n"
    "  b_shape TEXT NOT NULL,\n"
    "  a BLOB NOT NULL,\n"
    "  b BLOB NOT NULL,\n"
    "  element INTEGER,\n"
    "  expected TEXT,\n"
    "  actual TEXT,\n"
    "  ulps INTEGER,\n"
    "  note TEXT\n"
    ");\n"
    "CREATE INDEX reproducers_signature ON reproducers(signature_id);\n"
    "CREATE INDEX reproducers_run ON reproducers(run_id);\n"
    /* Views for people with the sqlite3 shell (docs/store.md). */
    "CREATE VIEW v_findings AS\n"
    "SELECT s.id AS signature_id, s.implementation, s.variant, s.dtype, s.class,\n"
    "       s.operand_class, s.status, s.occurrences, s.first_seen, s.last_seen,\n"
    "       s.first_run_id, s.last_run_id,\n"
    "       r.id AS reproducer_id, r.run_id AS reproducer_run_id, r.case_id, r.attrs,\n"
    "       r.a_shape, r.b_shape, r.element, r.expected, r.actual, r.ulps, r.note\n"
    "FROM signatures s LEFT JOIN reproducers r ON r.signature_id = s.id;\n"
    "CREATE VIEW v_signatures AS\n"
    "SELECT s.*,\n"
    "  (SELECT count(*) FROM reproducers r WHERE r.signature_id = s.id)\n"
    "    AS reproducers_stored,\n"
    "  (SELECT group_concat(DISTINCT b.version) FROM run_plugins p\n"
    "     JOIN plugin_builds b ON b.id = p.plugin_build_id\n"
    "     WHERE p.run_id = s.first_run_id AND b.name = s.implementation)\n"
    "    AS first_version,\n"
    "  (SELECT group_concat(DISTINCT b.version) FROM run_plugins p\n"
    "     JOIN plugin_builds b ON b.id = p.plugin_build_id\n"
    "     WHERE p.run_id = s.last_run_id AND b.name = s.implementation)\n"
    "    AS last_version,\n"
    "  (SELECT group_concat(DISTINCT b.version) FROM run_plugins p\n"
    "     JOIN plugin_builds b ON b.id = p.plugin_build_id\n"
    "     WHERE p.run_id = s.fixed_run_id AND b.name = s.implementation)\n"
    "    AS fixed_version\n"
    "FROM signatures s;\n"
    "CREATE VIEW v_run_summary AS\n"
    "SELECT r.id AS run_id, r.kind, r.status, r.started_at, r.finished_at, r.host,\n"
    "  r.profile, r.seed, r.shard_index, r.shard_count,\n"
    "  (SELECT group_concat(b.name || ' ' || b.version, ', ') FROM run_plugins p\n"
    "     JOIN plugin_builds b ON b.id = p.plugin_build_id WHERE p.run_id = r.id)\n"
    "    AS plugins,\n"
    "  (SELECT coalesce(sum(c.elements), 0) FROM counts c WHERE c.run_id = r.id)\n"
    "    AS elements,\n"
    "  (SELECT coalesce(sum(c.elements), 0) FROM counts c\n"
    "     WHERE c.run_id = r.id AND c.class <> 'match') AS differences,\n"
    "  (SELECT count(*) FROM signatures s WHERE s.first_run_id = r.id)\n"
    "    AS new_signatures,\n"
    "  (SELECT count(*) FROM signatures s WHERE s.last_run_id = r.id)\n"
    "    AS signatures_seen,\n"
    "  (SELECT count(*) FROM reproducers x WHERE x.run_id = r.id) AS reproducers,\n"
    "  (SELECT count(*) FROM certificates t\n"
    "     WHERE t.run_id = r.id AND t.verdict LIKE 'CONFORMANT%') AS conformant,\n"
    "  (SELECT count(*) FROM certificates t\n"
    "     WHERE t.run_id = r.id AND t.verdict NOT LIKE 'CONFORMANT%') AS not_conformant\n"
    "FROM runs r;\n"
    "CREATE VIEW v_certificates AS\n"
    "SELECT t.run_id, r.started_at, r.host, r.status AS run_status, t.implementation,\n"
    "  (SELECT group_concat(DISTINCT b.version) FROM run_plugins p\n"
    "     JOIN plugin_builds b ON b.id = p.plugin_build_id\n"
    "     WHERE p.run_id = t.run_id AND b.name = t.implementation) AS version,\n"
    "  t.variant, t.dtype, t.verdict, t.profile, t.cases, t.elements\n"
    "FROM certificates t JOIN runs r ON r.id = t.run_id;\n",

    /* 1 -> 2: ULP histograms, which runs saw which signature, the shards
     * a merged run was made of, fixed status for schema-1 files (whose
     * certify did not mark it), and views for reports and queries. */
    "CREATE TABLE ulp_histograms(\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id),\n"
    "  implementation TEXT NOT NULL,\n"
    "  variant TEXT NOT NULL,\n"
    "  dtype TEXT NOT NULL,\n"
    "  bucket INTEGER NOT NULL CHECK (bucket BETWEEN 0 AND 22),\n"
    "  elements INTEGER NOT NULL DEFAULT 0,\n"
    "  PRIMARY KEY (run_id, implementation, variant, dtype, bucket)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE signature_runs(\n"
    "  signature_id INTEGER NOT NULL REFERENCES signatures(id),\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id),\n"
    "  occurrences INTEGER NOT NULL DEFAULT 0,\n"
    "  PRIMARY KEY (signature_id, run_id)\n"
    ") WITHOUT ROWID;\n"
    "CREATE INDEX signature_runs_run ON signature_runs(run_id);\n"
    "CREATE TABLE run_shards(\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id),\n"
    "  shard_index INTEGER NOT NULL,\n"
    "  shard_count INTEGER NOT NULL,\n"
    "  campaign TEXT NOT NULL,\n"
    "  status TEXT NOT NULL,\n"
    "  started_at TEXT NOT NULL,\n"
    "  finished_at TEXT,\n"
    "  host TEXT NOT NULL,\n"
    "  pid INTEGER NOT NULL,\n"
    "  process_tag TEXT NOT NULL,\n"
    "  cpu_features TEXT NOT NULL,\n"
    "  args TEXT NOT NULL,\n"
    "  PRIMARY KEY (run_id, shard_index)\n"
    ") WITHOUT ROWID;\n"
    "CREATE INDEX run_shards_campaign ON run_shards(campaign);\n"
    "CREATE INDEX certificates_claim ON certificates(implementation, variant, dtype, run_id);\n"
    /* Schema 1 kept no per-run record of signatures: its reproducers and
     * the first and last run are what is known. */
    "INSERT INTO signature_runs(signature_id, run_id, occurrences)\n"
    "  SELECT signature_id, run_id, count(*) FROM reproducers GROUP BY signature_id, run_id;\n"
    "INSERT OR IGNORE INTO signature_runs(signature_id, run_id, occurrences)\n"
    "  SELECT id, first_run_id, 1 FROM signatures;\n"
    "INSERT OR IGNORE INTO signature_runs(signature_id, run_id, occurrences)\n"
    "  SELECT id, last_run_id, 1 FROM signatures;\n"
    "UPDATE signatures SET fixed_run_id = (SELECT min(t.run_id) FROM certificates t\n"
    "    WHERE t.implementation = signatures.implementation AND t.variant = signatures.variant\n"
    "      AND t.dtype = signatures.dtype AND t.run_id > signatures.last_run_id)\n"
    "  WHERE status = 'open';\n"
    "UPDATE signatures SET status = 'fixed' WHERE status = 'open' AND fixed_run_id IS NOT NULL;\n"
    "DROP VIEW v_run_summary;\n"
    "CREATE VIEW v_run_summary AS\n"
    "SELECT r.id AS run_id, r.kind, r.status, r.started_at, r.finished_at, r.host,\n"
    "  r.profile, r.seed, r.shard_index, r.shard_count,\n"
    "  (SELECT group_concat(b.name || ' ' || b.version, ', ') FROM run_plugins p\n"
    "     JOIN plugin_builds b ON b.id = p.plugin_build_id WHERE p.run_id = r.id)\n"
    "    AS plugins,\n"
    "  (SELECT coalesce(sum(c.elements), 0) FROM counts c WHERE c.run_id = r.id)\n"
    "    AS elements,\n"
    "  (SELECT coalesce(sum(c.elements), 0) FROM counts c\n"
    "     WHERE c.run_id = r.id AND c.class <> 'match') AS differences,\n"
    "  (SELECT count(*) FROM signatures s WHERE s.first_run_id = r.id)\n"
    "    AS new_signatures,\n"
    "  (SELECT count(*) FROM signatures s WHERE s.last_run_id = r.id)\n"
    "    AS signatures_seen,\n"
    "  (SELECT count(*) FROM reproducers x WHERE x.run_id = r.id) AS reproducers,\n"
    "  (SELECT count(*) FROM certificates t\n"
    "     WHERE t.run_id = r.id AND t.verdict LIKE 'CONFORMANT%') AS conformant,\n"
    "  (SELECT count(*) FROM certificates t\n"
    "     WHERE t.run_id = r.id AND t.verdict NOT LIKE 'CONFORMANT%') AS not_conformant,\n"
    "  (SELECT count(*) FROM run_shards h WHERE h.run_id = r.id) AS merged_shards,\n"
    "  (SELECT count(*) FROM signature_runs g WHERE g.run_id = r.id) AS signatures_in_run\n"
    "FROM runs r;\n"
    "CREATE VIEW v_ulp_histograms AS\n"
    "SELECT run_id, implementation, variant, dtype, bucket,\n"
    "  CASE WHEN bucket = 0 THEN 1 WHEN bucket <= 21 THEN (1 << (bucket - 1)) + 1 END\n"
    "    AS ulps_from,\n"
    "  CASE WHEN bucket <= 20 THEN 1 << bucket END AS ulps_to,\n"
    "  elements\n"
    "FROM ulp_histograms;\n"
    "CREATE VIEW v_signature_runs AS\n"
    "SELECT g.run_id, r.kind, r.started_at, g.signature_id, s.implementation,\n"
    "  (SELECT group_concat(DISTINCT b.version) FROM run_plugins p\n"
    "     JOIN plugin_builds b ON b.id = p.plugin_build_id\n"
    "     WHERE p.run_id = g.run_id AND b.name = s.implementation) AS version,\n"
    "  s.variant, s.dtype, s.class, s.operand_class, g.occurrences,\n"
    "  s.first_run_id = g.run_id AS is_new, s.status, s.fixed_run_id\n"
    "FROM signature_runs g JOIN signatures s ON s.id = g.signature_id\n"
    "  JOIN runs r ON r.id = g.run_id;\n"
    "CREATE VIEW v_certificate_changes AS\n"
    "SELECT run_id, implementation, version, variant, dtype, verdict, profile, held,\n"
    "  lag(run_id) OVER w AS previous_run_id, lag(version) OVER w AS previous_version,\n"
    "  lag(verdict) OVER w AS previous_verdict, lag(held) OVER w AS previously_held\n"
    "FROM (SELECT t.run_id, t.implementation, t.variant, t.dtype, t.verdict, t.profile,\n"
    "        t.verdict LIKE 'CONFORMANT%' AS held,\n"
    "        (SELECT group_concat(DISTINCT b.version) FROM run_plugins p\n"
    "           JOIN plugin_builds b ON b.id = p.plugin_build_id\n"
    "           WHERE p.run_id = t.run_id AND b.name = t.implementation) AS version\n"
    "      FROM certificates t)\n"
    "WINDOW w AS (PARTITION BY implementation, variant, dtype ORDER BY run_id);\n",
    /* 2 -> 3: sweeps (`divergence sweep`): one row per sweep with its
     * progress and verdict, the chunks done (what --resume skips), and
     * element counts per difference class and operand class, which a sweep
     * keeps instead of one finding per element. */
    "CREATE TABLE sweeps(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id),\n"
    "  implementation TEXT NOT NULL,\n"
    "  variant TEXT NOT NULL,\n"
    "  dtype TEXT NOT NULL,\n"
    "  attrs TEXT NOT NULL,\n"
    "  space TEXT NOT NULL CHECK (space IN ('exhaustive', 'structured')),\n"
    "  layout TEXT NOT NULL,\n"
    "  plan TEXT NOT NULL,\n"
    "  pairs INTEGER NOT NULL,\n"
    "  random_pairs INTEGER NOT NULL DEFAULT 0,\n"
    "  chunks INTEGER NOT NULL,\n"
    "  chunks_done INTEGER NOT NULL DEFAULT 0,\n"
    "  pairs_done INTEGER NOT NULL DEFAULT 0,\n"
    "  pairs_unjudged INTEGER NOT NULL DEFAULT 0,\n"
    "  verdict TEXT,\n"
    "  started_at TEXT NOT NULL,\n"
    "  finished_at TEXT,\n"
    "  UNIQUE (run_id, variant, dtype)\n"
    ");\n"
    "CREATE INDEX sweeps_plan ON sweeps(implementation, plan);\n"
    "CREATE TABLE sweep_chunks(\n"
    "  sweep_id INTEGER NOT NULL REFERENCES sweeps(id),\n"
    "  chunk INTEGER NOT NULL,\n"
    "  pairs INTEGER NOT NULL,\n"
    "  pairs_unjudged INTEGER NOT NULL DEFAULT 0,\n"
    "  tally TEXT NOT NULL DEFAULT '',\n"
    "  done_at TEXT NOT NULL,\n"
    "  PRIMARY KEY (sweep_id, chunk)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE operand_counts(\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id),\n"
    "  implementation TEXT NOT NULL,\n"
    "  variant TEXT NOT NULL,\n"
    "  dtype TEXT NOT NULL,\n"
    "  class TEXT NOT NULL,\n"
    "  operand_class TEXT NOT NULL,\n"
    "  elements INTEGER NOT NULL DEFAULT 0,\n"
    "  PRIMARY KEY (run_id, implementation, variant, dtype, class, operand_class)\n"
    ") WITHOUT ROWID;\n"
    "CREATE VIEW v_sweeps AS\n"
    "SELECT w.id AS sweep_id, w.run_id, r.status AS run_status, w.started_at, w.finished_at,\n"
    "  w.implementation,\n"
    "  (SELECT group_concat(DISTINCT b.version) FROM run_plugins p\n"
    "     JOIN plugin_builds b ON b.id = p.plugin_build_id\n"
    "     WHERE p.run_id = w.run_id AND b.name = w.implementation) AS version,\n"
    "  w.variant, w.dtype, w.attrs, w.space, w.layout, w.pairs, w.random_pairs,\n"
    "  w.pairs_done, w.pairs_unjudged, w.chunks, w.chunks_done,\n"
    "  w.pairs_done = w.pairs AND w.pairs_unjudged = 0 AS covered, w.verdict,\n"
    "  (SELECT coalesce(sum(c.elements), 0) FROM counts c WHERE c.run_id = w.run_id\n"
    "     AND c.implementation = w.implementation AND c.variant = w.variant\n"
    "     AND c.dtype = w.dtype AND c.class <> 'match') AS differences\n"
    "FROM sweeps w JOIN runs r ON r.id = w.run_id;\n",
};
#define SCHEMA_VERSION ((int)(sizeof migrations / sizeof migrations[0]))

/* A private flag of store_open: a read-only open accepts an older schema
 * (store_check reports it; nothing else may read one). */
#define OPEN_ANY_VERSION 0x100u

/* An ISO 8601 UTC time stamp with milliseconds, computed by SQLite. */
#define NOW "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

/* ------------------------------------------------------------------------
 * Statements: X(ID, sql). Prepared on first use, kept until close.
 * ---------------------------------------------------------------------- */
#define STORE_SQL_LIST(X)                                                               \
    X(USER_VERSION, "PRAGMA user_version")                                              \
    X(OTHER_TABLES, "SELECT count(*) FROM sqlite_schema")                               \
    X(RUN_INSERT,                                                                       \
      "INSERT INTO runs(kind, status, started_at, profile, host, pid, process_tag,"     \
      " cpu_features, build_flags, divergence_version, seed, shard_index, shard_count," \
      " args) VALUES(?1, 'running', " NOW ", ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,"  \
      " ?12)")                                                                          \
    X(RUN_FINISH, "UPDATE runs SET status = ?2, finished_at = " NOW " WHERE id = ?1")  \
    X(RUN_RUNNING,                                                                      \
      "SELECT id, pid, process_tag FROM runs WHERE status = 'running' AND host = ?1"      \
      " AND NOT (pid = ?2 AND process_tag = ?3)")                                         \
    X(RUN_MARK_INCOMPLETE,                                                              \
      "UPDATE runs SET status = 'incomplete' WHERE id = ?1 AND status = 'running'")     \
    X(RUN_RESUME,                                                                       \
      "UPDATE runs SET status = 'running', finished_at = NULL, host = ?2, pid = ?3,"    \
      " process_tag = ?4 WHERE id = ?1 AND status = 'incomplete'")                      \
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
    X(SIG_UPSERT,                                                                       \
      "INSERT INTO signatures(implementation, variant, dtype, class, operand_class,"    \
      " first_run_id, last_run_id, first_seen, last_seen, status, occurrences)"         \
      " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?6, " NOW ", " NOW ", 'open', 1)"                \
      " ON CONFLICT(implementation, variant, dtype, class, operand_class) DO UPDATE SET" \
      " last_run_id = max(last_run_id, excluded.last_run_id),"                         \
      " last_seen = excluded.last_seen, occurrences = occurrences + 1,"                 \
      " status = 'open', fixed_run_id = NULL RETURNING id, occurrences")               \
    X(SIGRUN_ADD,                                                                       \
      "INSERT INTO signature_runs(signature_id, run_id, occurrences) VALUES(?1, ?2, 1)"  \
      " ON CONFLICT(signature_id, run_id) DO UPDATE SET occurrences = occurrences + 1")  \
    X(ULP_ADD,                                                                          \
      "INSERT INTO ulp_histograms(run_id, implementation, variant, dtype, bucket,"       \
      " elements) VALUES(?1, ?2, ?3, ?4, ?5, ?6)"                                        \
      " ON CONFLICT(run_id, implementation, variant, dtype, bucket) DO UPDATE SET"       \
      " elements = elements + excluded.elements")                                       \
    X(REPRO_COUNT, "SELECT count(*) FROM reproducers WHERE signature_id = ?1")          \
    X(REPRO_INSERT,                                                                     \
      "INSERT INTO reproducers(signature_id, run_id, recorded_at, case_id, source,"     \
      " variant, dtype, attrs, attr_broadcast, attr_axis_set, attr_axis,"               \
      " attr_pythondiv, attr_auto_broadcast, attr_int_rounding, a_shape, b_shape, a,"   \
      " b, element, expected, actual, ulps, note) VALUES(?1, ?2, " NOW ", ?3, ?4, ?5,"  \
      " ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21,"    \
      " ?22)")                                                                          \
    X(SIG_DROPPED,                                                                      \
      "UPDATE signatures SET reproducers_dropped = reproducers_dropped + 1"             \
      " WHERE id = ?1")                                                                 \
    X(CERT_UPSERT,                                                                      \
      "INSERT INTO certificates(run_id, implementation, variant, dtype, verdict,"       \
      " profile, cases, elements, recorded_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, " \
      NOW ") ON CONFLICT(run_id, implementation, variant, dtype) DO UPDATE SET"         \
      " verdict = excluded.verdict, profile = excluded.profile, cases = excluded.cases," \
      " elements = excluded.elements, recorded_at = excluded.recorded_at")             \
    X(SIG_FIX,                                                                          \
      "UPDATE signatures SET status = 'fixed', fixed_run_id = ?1 WHERE"                 \
      " implementation = ?2 AND variant = ?3 AND dtype = ?4 AND status = 'open'"        \
      " AND last_run_id < ?1")                                                          \
    X(REPRO_LOAD,                                                                       \
      "SELECT r.signature_id, r.run_id, r.case_id, r.source, r.variant, r.dtype,"       \
      " r.attr_broadcast, r.attr_axis_set, r.attr_axis, r.attr_pythondiv,"              \
      " r.attr_auto_broadcast, r.attr_int_rounding, r.a_shape, r.b_shape, r.a, r.b,"    \
      " r.element, r.expected, r.actual, r.ulps, r.note, s.implementation, s.class,"    \
      " s.operand_class FROM reproducers r JOIN signatures s ON s.id = r.signature_id"  \
      " WHERE r.id = ?1")                                                               \
    X(REPRO_PLUGIN,                                                                     \
      "SELECT b.version, b.path, b.sha256 FROM run_plugins p JOIN plugin_builds b"      \
      " ON b.id = p.plugin_build_id WHERE p.run_id = ?1 AND b.name = ?2"                \
      " ORDER BY b.id DESC LIMIT 1")

#define SQL_ENUM_(ID, sql) SQL_##ID,
enum { STORE_SQL_LIST(SQL_ENUM_) SQL_COUNT_ };
#undef SQL_ENUM_
#define SQL_TEXT_(ID, sql) sql,
static const char *const sql_text[SQL_COUNT_] = {STORE_SQL_LIST(SQL_TEXT_)};
#undef SQL_TEXT_

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
    char err[1024];
};

/* ------------------------------------------------------------------------
 * SQLite's heap through harness/base/alloc.h. An 8-byte header keeps the size.
 * ---------------------------------------------------------------------- */
static void *mem_malloc(int n)
{
    uint64_t *p = dvg_malloc((size_t)n + 8);
    if (!p)
        return NULL;
    p[0] = (uint64_t)n;
    return p + 1;
}

static void mem_free(void *p)
{
    if (p)
        dvg_free((uint64_t *)p - 1);
}

static void *mem_realloc(void *p, int n)
{
    uint64_t *q = dvg_realloc((uint64_t *)p - 1, (size_t)n + 8);
    if (!q)
        return NULL;
    q[0] = (uint64_t)n;
    return q + 1;
}

static int mem_size(void *p)
{
    return p ? (int)((uint64_t *)p)[-1] : 0;
}

static int mem_roundup(int n)
{
    return (n + 7) & ~7;
}

static int mem_init(void *unused)
{
    return SQLITE_OK;
}

static void mem_shutdown(void *unused)
{
}

static const sqlite3_mem_methods mem_methods = {
    mem_malloc, mem_free, mem_realloc, mem_size, mem_roundup, mem_init, mem_shutdown, NULL,
};

static pthread_once_t mem_once = PTHREAD_ONCE_INIT;

static void mem_install(void)
{
    /* SQLITE_MISUSE when SQLite is already initialised: it keeps its own
     * allocator then, which is correct, only not injectable. */
    (void)sqlite3_config(SQLITE_CONFIG_MALLOC, &mem_methods);
}

/* ------------------------------------------------------------------------
 * Errors.
 * ---------------------------------------------------------------------- */
static void copy_text(char *dst, size_t len, const char *src)
{
    if (!dst || !len)
        return;
    snprintf(dst, len, "%s", src ? src : "");
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int fail(store *s, const char *fmt, ...)
{
    char detail[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    snprintf(s->err, sizeof s->err, "%s: %s: %s", s->path, s->op ? s->op : "store", detail);
    return -1;
}

/* A failure SQLite reported on s->db. */
static int fail_db(store *s)
{
    s->code = sqlite3_errcode(s->db);
    return fail(s, "%s", sqlite3_errmsg(s->db));
}

static int fail_readonly(store *s)
{
    return fail(s, "the database is read-only (%s)",
                s->readonly == 1 ? "opened for reading only" : "the file is not writable");
}

/* ------------------------------------------------------------------------
 * Statements and transactions.
 * ---------------------------------------------------------------------- */
static sqlite3_stmt *prep(store *s, int id)
{
    if (!s->stmt[id] && sqlite3_prepare_v3(s->db, sql_text[id], -1, SQLITE_PREPARE_PERSISTENT,
                                           &s->stmt[id], NULL) != SQLITE_OK) {
        fail_db(s);
        s->stmt[id] = NULL;
        return NULL;
    }
    return s->stmt[id];
}

static void finish(sqlite3_stmt *st)
{
    if (st) {
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
    }
}

/* Runs a statement that returns no rows (or whose rows are ignored). */
static int step_done(store *s, sqlite3_stmt *st)
{
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        ;
    if (rc != SQLITE_DONE) {
        fail_db(s);
        finish(st);
        return -1;
    }
    finish(st);
    return 0;
}

/* Steps to the first row; -1 (with the error) when there is none. The
 * caller reads the row, then calls step_done or finish. */
static int step_row(store *s, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        return 0;
    if (rc == SQLITE_DONE)
        fail(s, "no row returned");
    else
        fail_db(s);
    finish(st);
    return -1;
}

static int exec(store *s, const char *sql)
{
    if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return fail_db(s);
    return 0;
}

/* Ends a failed transaction without touching the message of the failure. */
static void exec_quiet(store *s, const char *sql)
{
    (void)sqlite3_exec(s->db, sql, NULL, NULL, NULL);
}

static void bind_text(sqlite3_stmt *st, int i, const char *text)
{
    if (text)
        sqlite3_bind_text(st, i, text, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, i);
}

/* Starts one write operation named `op`: its own transaction, or a
 * savepoint inside the caller's batch. */
static int op_begin(store *s, const char *op)
{
    s->op = op;
    s->err[0] = '\0';
    if (s->readonly)
        return fail_readonly(s);
    if (s->batch && sqlite3_get_autocommit(s->db))
        return fail(s, "the batch was rolled back by an earlier failure; "
                       "call store_rollback and begin again");
    return exec(s, s->batch ? "SAVEPOINT store_op" : "BEGIN IMMEDIATE");
}

/* Ends the operation begun by op_begin: commits (or releases) when rc is
 * 0, rolls back otherwise. Returns rc, or -1 when the commit fails. */
static int op_end(store *s, int rc)
{
    if (s->batch) {
        if (rc) {
            /* Both fail harmlessly when SQLite rolled the batch back. */
            exec_quiet(s, "ROLLBACK TO store_op");
            exec_quiet(s, "RELEASE store_op");
        } else if (exec(s, "RELEASE store_op")) {
            rc = -1;
        }
        return rc;
    }
    if (rc == 0 && exec(s, "COMMIT"))
        rc = -1;
    if (rc && !sqlite3_get_autocommit(s->db))
        exec_quiet(s, "ROLLBACK");
    return rc;
}

/* ------------------------------------------------------------------------
 * This process and this machine.
 * ---------------------------------------------------------------------- */
static void read_line(const char *path, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (!fgets(buf, (int)len, f))
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\r\n")] = '\0';
}

/* State letter and start time (clock ticks after boot) of process `pid`
 * from /proc. 0: found; 1: no such process; -1: /proc cannot tell. */
static int proc_stat(long pid, char *state, unsigned long long *start)
{
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return errno == ENOENT ? 1 : -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    if (!p)
        return -1;
    p++;
    /* Fields after the name: state (3), ppid (4), ..., starttime (22). */
    char *save = NULL;
    char *tok = strtok_r(p, " ", &save);
    for (int field = 3; tok; field++, tok = strtok_r(NULL, " ", &save)) {
        if (field == 3)
            *state = tok[0];
        if (field == 22) {
            *start = strtoull(tok, NULL, 10);
            return 0;
        }
    }
    return -1;
}

/* "boot-id pid-namespace start-ticks" of process `pid`, or "" when /proc
 * cannot tell. */
static void process_tag(long pid, char *tag, size_t len)
{
    char boot[64], ns[64] = "", path[64];
    char state;
    unsigned long long start;
    tag[0] = '\0';
    read_line("/proc/sys/kernel/random/boot_id", boot, sizeof boot);
    snprintf(path, sizeof path, "/proc/%ld/ns/pid", pid);
    ssize_t n = readlink(path, ns, sizeof ns - 1);
    ns[n > 0 ? n : 0] = '\0';
    if (!boot[0] || proc_stat(pid, &state, &start) != 0)
        return;
    snprintf(tag, len, "%s %s %llu", boot, ns[0] ? ns : "-", start);
}

static void host_name(char *buf, size_t len)
{
    if (gethostname(buf, len - 1) != 0)
        snprintf(buf, len, "unknown");
    buf[len - 1] = '\0';
}

/* The flags line of /proc/cpuinfo ("Features" on Arm), or "unknown". */
static void cpu_features(char *buf, size_t len)
{
    char line[8192];
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) && strncmp(line, "Features", 8))
            continue;
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        colon++;
        while (*colon == ' ' || *colon == '\t')
            colon++;
        colon[strcspn(colon, "\r\n")] = '\0';
        if (*colon)
            snprintf(buf, len, "%s", colon);
        break;
    }
    fclose(f);
}

/* 1 when the run of process `pid` with `tag` (both of this host) is
 * certainly dead, else 0. my_tag: this process's tag. */
static int run_is_dead(long pid, const char *tag, const char *my_tag)
{
    char boot[64], ns[64], my_boot[64], my_ns[64];
    unsigned long long start = 0, my_start;
    if (sscanf(tag, "%63s %63s %llu", boot, ns, &start) == 3 &&
        sscanf(my_tag, "%63s %63s %llu", my_boot, my_ns, &my_start) == 3) {
        if (strcmp(boot, my_boot) != 0)
            return 1; /* rebooted since */
        if (strcmp(ns, my_ns) != 0)
            return 0; /* another pid namespace (container): cannot tell */
    } else {
        start = 0;
    }
    if (pid <= 0)
        return 0;
    char state;
    unsigned long long now_start;
    int found = proc_stat(pid, &state, &now_start);
    if (found == 1)
        return 1;
    if (found == 0)
        return state == 'Z' || state == 'X' || (start && now_start != start);
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* ------------------------------------------------------------------------
 * Names of the ids the store keeps as text.
 * ---------------------------------------------------------------------- */
static int names(store *s, uint32_t variant, uint32_t dtype, const char **vname,
                 const char **dname)
{
    const oracle_variant *v = oracle_variant_get(variant);
    if (!v)
        return fail(s, "unknown variant %" PRIu32, variant);
    if (!oracle_dtype(dtype))
        return fail(s, "unknown dtype %" PRIu32, dtype);
    *vname = v->name;
    *dname = oracle_dtype_tag(dtype);
    return 0;
}

static int need_text(store *s, const char *what, const char *text)
{
    if (!text || !*text)
        return fail(s, "%s is missing", what);
    return 0;
}

/* Elements of a shape, or -1 when a dimension is negative, the rank too
 * large or the product overflows. */
static int shape_elements(const oracle_shape *sh, uint64_t *out)
{
    uint64_t n = 1;
    if (sh->rank > DVG_MAX_RANK)
        return -1;
    for (uint32_t i = 0; i < sh->rank; i++) {
        if (sh->dims[i] < 0 || __builtin_mul_overflow(n, (uint64_t)sh->dims[i], &n))
            return -1;
    }
    *out = n;
    return 0;
}

/* ------------------------------------------------------------------------
 * Open, migrate, close.
 * ---------------------------------------------------------------------- */
int store_schema_version(void)
{
    return SCHEMA_VERSION;
}

static int read_int(store *s, int id, int64_t *out)
{
    sqlite3_stmt *st = prep(s, id);
    if (!st || step_row(s, st))
        return -1;
    *out = sqlite3_column_int64(st, 0);
    return step_done(s, st);
}

/* Reads user_version, with a clear word for files that are no database. */
static int read_version(store *s, int64_t *version)
{
    s->code = SQLITE_OK;
    if (read_int(s, SQL_USER_VERSION, version) == 0)
        return 0;
    if (s->code == SQLITE_NOTADB || s->code == SQLITE_CORRUPT)
        snprintf(s->err, sizeof s->err, "%s: not a SQLite database, or a corrupt one (%s)",
                 s->path, sqlite3_errmsg(s->db));
    else if (s->code == SQLITE_READONLY)
        snprintf(s->err, sizeof s->err,
                 "%s: open: cannot read it: a WAL database needs its -shm file, which cannot "
                 "be created here (folder not writable?); copy the file to a writable folder "
                 "(%s)",
                 s->path, sqlite3_errmsg(s->db));
    return -1;
}

/* A database at user_version 0 must hold nothing yet: otherwise it
 * belongs to another program. */
static int check_foreign(store *s)
{
    int64_t objects = 0;
    if (read_int(s, SQL_OTHER_TABLES, &objects))
        return -1;
    if (objects > 0)
        return fail(s, "not a Divergence database (user_version 0, but it holds %" PRId64
                       " schema objects of another program)",
                    objects);
    return 0;
}

static int set_wal(store *s)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &st, NULL) != SQLITE_OK) {
        fail_db(s);
        goto done;
    }
    if (step_row(s, st))
        goto done;
    const char *mode = (const char *)sqlite3_column_text(st, 0);
    if (!mode || strcmp(mode, "wal") != 0) {
        fail(s, "cannot switch to WAL journal mode (the mode is %s)", mode ? mode : "?");
        goto done;
    }
    rc = 0;
done:
    sqlite3_finalize(st);
    return rc;
}

static int migrate(store *s, int64_t *version)
{
    char sql[64];
    int64_t v;
    s->op = "migrate";
    if (exec(s, "BEGIN IMMEDIATE"))
        return -1;
    if (read_int(s, SQL_USER_VERSION, &v))
        goto fail;
    if (v > SCHEMA_VERSION) {
        fail(s, "schema version %" PRId64 " is newer than this divergence knows (%d)", v,
             SCHEMA_VERSION);
        goto fail;
    }
    if (v == 0 && check_foreign(s))
        goto fail;
    for (; v < SCHEMA_VERSION; v++) {
        if (sqlite3_exec(s->db, migrations[v], NULL, NULL, NULL) != SQLITE_OK) {
            fail(s, "schema version %" PRId64 " to %" PRId64 ": %s", v, v + 1,
                 sqlite3_errmsg(s->db));
            goto fail;
        }
        snprintf(sql, sizeof sql, "PRAGMA user_version = %d", (int)(v + 1));
        if (exec(s, sql))
            goto fail;
    }
    if (exec(s, "COMMIT"))
        goto fail;
    *version = v;
    return 0;
fail:
    exec_quiet(s, "ROLLBACK");
    return -1;
}

/* s->db: a connection to `path` with SQLite's open flags `oflags` and the
 * busy timeout. 0, or -1 with the message in s. */
static int open_connection(store *s, const char *path, int oflags)
{
    if (sqlite3_open_v2(path, &s->db, oflags, NULL) == SQLITE_OK) {
        sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
        return 0;
    }
    if (s->db)
        fail_db(s);
    else
        fail(s, "out of memory");
    return -1;
}

/* Opens `path` read-write only to read it, which makes SQLite recover a
 * WAL index a crashed writer left inconsistent. 0 when that worked. */
static int wal_recover(const char *path)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(db, STORE_BUSY_TIMEOUT_MS);
        rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL);
    }
    sqlite3_close(db);
    return rc == SQLITE_OK ? 0 : -1;
}

/* SQLite's quick_check before the first write of a session: 0 when it
 * says "ok"; otherwise fails saying what it found. O(size of the file),
 * without the index cross-checks of integrity_check. */
static int quick_check(store *s)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(s->db, "PRAGMA quick_check(1)", -1, &st, NULL) != SQLITE_OK) {
        fail_db(s);
        goto done;
    }
    int step = sqlite3_step(st);
    if (step != SQLITE_ROW) {
        fail_db(s);
        goto done;
    }
    const char *said = (const char *)sqlite3_column_text(st, 0);
    if (!said || strcmp(said, "ok")) {
        char text[320];
        snprintf(text, sizeof text, "%s", said ? said : "no answer");
        for (char *p = text; *p; p++)
            if (*p == '\n')
                *p = ' '; /* one line */
        fail(s, "the database is damaged (SQLite's quick_check: %s); nothing was written "
                "to it; 'divergence db check' reports on it",
             text);
        goto done;
    }
    rc = 0;
done:
    sqlite3_finalize(st);
    return rc;
}

int store_open(const char *path, unsigned flags, store **out, char *err, size_t errlen)
{
    store *s = NULL;
    int rc = -1;
    int64_t version = 0;
    struct stat sb;

    copy_text(err, errlen, "");
    if (!path || !*path || !out) {
        copy_text(err, errlen, "store: open: no path or no output pointer given");
        goto done;
    }
    pthread_once(&mem_once, mem_install);
    if ((!(flags & STORE_CREATE) || (flags & STORE_READONLY)) && stat(path, &sb) != 0) {
        if (err)
            snprintf(err, errlen, "%s: open: %s", path, strerror(errno));
        goto done;
    }
    s = dvg_calloc(1, sizeof *s);
    if (!s || !(s->path = dvg_strdup(path))) {
        if (err)
            snprintf(err, errlen, "%s: open: out of memory", path);
        goto done;
    }
    s->repro_limit = STORE_DEFAULT_REPRODUCERS;
    s->op = "open";
    int oflags = (flags & STORE_READONLY)
                     ? SQLITE_OPEN_READONLY
                     : SQLITE_OPEN_READWRITE | ((flags & STORE_CREATE) ? SQLITE_OPEN_CREATE : 0);
    if (open_connection(s, path, oflags))
        goto done;
    s->readonly = (flags & STORE_READONLY)                    ? 1
                  : sqlite3_db_readonly(s->db, "main") == 1 ? 2
                                                            : 0;
    if (read_version(s, &version)) {
        /* A writer killed at the wrong moment can leave the WAL index
         * needing a recovery that a read-only connection may not run: a
         * read-write connection that only reads runs it (the -shm file is
         * rebuilt from the -wal; the database is not changed), then the
         * read-only one tries again. */
        if (!(s->readonly && s->code == SQLITE_READONLY && wal_recover(path) == 0))
            goto done;
        sqlite3_close(s->db);
        s->db = NULL;
        if (open_connection(s, path, oflags) || read_version(s, &version))
            goto done;
    }
    if (version > SCHEMA_VERSION) {
        fail(s, "schema version %" PRId64 " is newer than this divergence knows (%d); "
                "open it with a newer divergence",
             version, SCHEMA_VERSION);
        goto done;
    }
    if (exec(s, "PRAGMA foreign_keys = ON"))
        goto done;
    if (s->readonly) {
        if (version == 0 && check_foreign(s))
            goto done;
        if (version < SCHEMA_VERSION && !(flags & OPEN_ANY_VERSION)) {
            fail(s, "schema version %" PRId64 " must be migrated to %d, but the database is "
                    "read-only",
                 version, SCHEMA_VERSION);
            goto done;
        }
    } else {
        /* Nothing is written into a damaged file: it would only bury
         * what is left of its findings deeper. */
        if (version > 0 && quick_check(s))
            goto done;
        /* Migrate before WAL: a file that turns out to belong to another
         * program is left exactly as it was. */
        if (version < SCHEMA_VERSION && migrate(s, &version))
            goto done;
        if (set_wal(s) || exec(s, "PRAGMA synchronous = NORMAL"))
            goto done;
        if (store_mark_stale_runs(s, NULL))
            goto done;
    }
    s->op = NULL;
    s->err[0] = '\0';
    rc = 0;
done:
    if (rc) {
        if (s && s->err[0])
            copy_text(err, errlen, s->err);
        store_close(s);
    } else {
        *out = s;
    }
    return rc;
}

void store_close(store *s)
{
    if (!s)
        return;
    if (s->db) {
        if (s->batch)
            exec_quiet(s, "ROLLBACK");
        for (int i = 0; i < SQL_COUNT_; i++)
            sqlite3_finalize(s->stmt[i]);
        sqlite3_close(s->db);
    }
    dvg_free(s->path);
    dvg_free(s);
}

const char *store_errmsg(const store *s)
{
    return s ? s->err : "no store";
}

const char *store_path(const store *s)
{
    return s ? s->path : "";
}

/* ------------------------------------------------------------------------
 * Batches.
 * ---------------------------------------------------------------------- */
int store_begin(store *s)
{
    s->op = "begin";
    s->err[0] = '\0';
    if (s->batch)
        return fail(s, "a batch is already open");
    if (s->readonly)
        return fail_readonly(s);
    if (exec(s, "BEGIN IMMEDIATE"))
        return -1;
    s->batch = 1;
    return 0;
}

int store_commit(store *s)
{
    s->op = "commit";
    s->err[0] = '\0';
    if (!s->batch)
        return fail(s, "no batch is open");
    if (sqlite3_get_autocommit(s->db)) {
        s->batch = 0;
        return fail(s, "the batch was rolled back by an earlier failure");
    }
    if (exec(s, "COMMIT")) {
        /* The batch stays open when SQLite keeps the transaction. */
        s->batch = !sqlite3_get_autocommit(s->db);
        return -1;
    }
    s->batch = 0;
    return 0;
}

int store_rollback(store *s)
{
    s->op = "rollback";
    s->err[0] = '\0';
    if (!s->batch)
        return 0;
    s->batch = 0;
    if (sqlite3_get_autocommit(s->db))
        return 0; /* SQLite rolled back already */
    return exec(s, "ROLLBACK");
}

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
        return fail(s, "a run cannot begin inside a batch (it must commit at once)");
    if (!info)
        return fail(s, "no run info");
    if (need_text(s, "run kind", info->kind))
        return -1;
    if (info->shard_count && info->shard_index >= info->shard_count)
        return fail(s, "shard %" PRIu32 "/%" PRIu32 " is out of range", info->shard_index,
                    info->shard_count);
    host_name(host, sizeof host);
    process_tag((long)getpid(), tag, sizeof tag);
    cpu_features(features, sizeof features);

    if (op_begin(s, "begin run"))
        return -1;
    if (!(st = prep(s, SQL_RUN_INSERT)))
        goto done;
    bind_text(st, 1, info->kind);
    bind_text(st, 2, info->profile ? info->profile : "exact");
    bind_text(st, 3, host);
    sqlite3_bind_int64(st, 4, (int64_t)getpid());
    bind_text(st, 5, tag);
    bind_text(st, 6, features);
    bind_text(st, 7, info->build_flags ? info->build_flags : "");
    bind_text(st, 8, DVG_VERSION);
    if (info->has_seed)
        sqlite3_bind_int64(st, 9, (int64_t)info->seed);
    if (info->shard_count) {
        sqlite3_bind_int64(st, 10, info->shard_index);
        sqlite3_bind_int64(st, 11, info->shard_count);
    }
    bind_text(st, 12, info->args ? info->args : "");
    if (step_done(s, st))
        goto done;
    id = sqlite3_last_insert_rowid(s->db);
    rc = 0;
done:
    rc = op_end(s, rc);
    if (rc == 0)
        *run_id = id;
    return rc;
}

int store_finish_run(store *s, int64_t run_id, int status)
{
    sqlite3_stmt *st;
    int rc = -1;
    const char *text = status == STORE_RUN_COMPLETE     ? "complete"
                       : status == STORE_RUN_INCOMPLETE ? "incomplete"
                                                        : NULL;
    s->op = "finish run";
    if (!text)
        return fail(s, "unknown run status %d", status);
    if (op_begin(s, "finish run"))
        return -1;
    if (!(st = prep(s, SQL_RUN_FINISH)))
        goto done;
    sqlite3_bind_int64(st, 1, run_id);
    bind_text(st, 2, text);
    if (step_done(s, st))
        goto done;
    if (sqlite3_changes(s->db) != 1) {
        fail(s, "no run %" PRId64, run_id);
        goto done;
    }
    rc = 0;
done:
    return op_end(s, rc);
}

int store_resume_run(store *s, int64_t run_id)
{
    char host[256], tag[256];
    sqlite3_stmt *st;
    int rc = -1;
    s->op = "resume run";
    if (s->batch)
        return fail(s, "a run cannot be resumed inside a batch");
    host_name(host, sizeof host);
    process_tag((long)getpid(), tag, sizeof tag);
    if (op_begin(s, "resume run"))
        return -1;
    if (!(st = prep(s, SQL_RUN_RESUME)))
        goto done;
    sqlite3_bind_int64(st, 1, run_id);
    bind_text(st, 2, host);
    sqlite3_bind_int64(st, 3, (int64_t)getpid());
    bind_text(st, 4, tag);
    if (step_done(s, st))
        goto done;
    if (sqlite3_changes(s->db) != 1) {
        fail(s, "run %" PRId64 " is not incomplete (unknown, complete, or resumed by "
                "another process)", run_id);
        goto done;
    }
    rc = 0;
done:
    return op_end(s, rc);
}

int store_mark_stale_runs(store *s, int64_t *n_marked)
{
    sqlite3_stmt *st;
    int64_t *dead = NULL, marked = 0;
    size_t n_dead = 0, cap = 0;
    int rc = -1, step;

    char host[256], my_tag[256];
    host_name(host, sizeof host);
    process_tag((long)getpid(), my_tag, sizeof my_tag);
    if (op_begin(s, "mark stale runs"))
        return -1;
    if (!(st = prep(s, SQL_RUN_RUNNING)))
        goto done;
    /* Runs of other hosts cannot be judged; this process's own are alive. */
    bind_text(st, 1, host);
    sqlite3_bind_int64(st, 2, (int64_t)getpid());
    bind_text(st, 3, my_tag);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *tag = (const char *)sqlite3_column_text(st, 2);
        if (!run_is_dead((long)sqlite3_column_int64(st, 1), tag ? tag : "", my_tag))
            continue;
        if (n_dead == cap) {
            size_t ncap = cap ? 2 * cap : 16;
            int64_t *grown = dvg_realloc(dead, ncap * sizeof *dead);
            if (!grown) {
                finish(st);
                fail(s, "out of memory");
                goto done;
            }
            dead = grown;
            cap = ncap;
        }
        dead[n_dead++] = sqlite3_column_int64(st, 0);
    }
    if (step != SQLITE_DONE) {
        fail_db(s);
        finish(st);
        goto done;
    }
    finish(st);
    if (n_dead && !(st = prep(s, SQL_RUN_MARK_INCOMPLETE)))
        goto done;
    for (size_t i = 0; i < n_dead; i++) {
        sqlite3_bind_int64(st, 1, dead[i]);
        if (step_done(s, st))
            goto done;
        marked += sqlite3_changes(s->db);
    }
    rc = 0;
done:
    dvg_free(dead);
    rc = op_end(s, rc);
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
    if (need_text(s, "plugin name", name) || need_text(s, "plugin version", version) ||
        need_text(s, "plugin path", path))
        return -1;
    if (sha256_file(path, hex, why, sizeof why))
        return fail(s, "%s", why);
    return store_record_plugin_build(s, run_id, name, version, path, hex, build_id);
}

int store_record_plugin_build(store *s, int64_t run_id, const char *name, const char *version,
                              const char *path, const char *hex, int64_t *build_id)
{
    sqlite3_stmt *st;
    int64_t id = 0;
    int rc = -1;

    s->op = "record plugin build";
    if (need_text(s, "plugin name", name) || need_text(s, "plugin version", version) ||
        need_text(s, "plugin path", path))
        return -1;
    if (!hex || strlen(hex) != 64 || strspn(hex, "0123456789abcdef") != 64)
        return fail(s, "plugin SHA-256 '%s': expected 64 lower-case hex digits",
                    hex ? hex : "(null)");
    if (op_begin(s, "record plugin build"))
        return -1;
    if (!(st = prep(s, SQL_BUILD_UPSERT)))
        goto done;
    bind_text(st, 1, name);
    bind_text(st, 2, version);
    bind_text(st, 3, hex);
    bind_text(st, 4, path);
    if (step_row(s, st))
        goto done;
    id = sqlite3_column_int64(st, 0);
    if (step_done(s, st))
        goto done;
    if (run_id > 0) {
        if (!(st = prep(s, SQL_RUN_PLUGIN_LINK)))
            goto done;
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, id);
        if (step_done(s, st))
            goto done;
    }
    rc = 0;
done:
    rc = op_end(s, rc);
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
    if (need_text(s, "implementation", implementation) ||
        names(s, variant, dtype, &vname, &dname))
        return -1;
    if (cls >= ORACLE_CLASS_COUNT)
        return fail(s, "unknown difference class %" PRIu32, cls);
    if (elements > INT64_MAX || cases > INT64_MAX)
        return fail(s, "count above INT64_MAX");
    if (op_begin(s, "record counts"))
        return -1;
    if (!(st = prep(s, SQL_COUNTS_ADD)))
        goto done;
    sqlite3_bind_int64(st, 1, run_id);
    bind_text(st, 2, implementation);
    bind_text(st, 3, vname);
    bind_text(st, 4, dname);
    bind_text(st, 5, oracle_class_name(cls));
    sqlite3_bind_int64(st, 6, (int64_t)elements);
    sqlite3_bind_int64(st, 7, (int64_t)cases);
    rc = step_done(s, st);
done:
    return op_end(s, rc);
}

int store_record_certificate(store *s, int64_t run_id, const char *implementation,
                             uint32_t variant, uint32_t dtype, const char *verdict,
                             const char *profile, uint64_t cases, uint64_t elements)
{
    const char *vname, *dname;
    sqlite3_stmt *st;
    int rc = -1;

    s->op = "record certificate";
    if (need_text(s, "implementation", implementation) || need_text(s, "verdict", verdict) ||
        need_text(s, "profile", profile) || names(s, variant, dtype, &vname, &dname))
        return -1;
    if (elements > INT64_MAX || cases > INT64_MAX)
        return fail(s, "count above INT64_MAX");
    if (op_begin(s, "record certificate"))
        return -1;
    if (!(st = prep(s, SQL_CERT_UPSERT)))
        goto done;
    sqlite3_bind_int64(st, 1, run_id);
    bind_text(st, 2, implementation);
    bind_text(st, 3, vname);
    bind_text(st, 4, dname);
    bind_text(st, 5, verdict);
    bind_text(st, 6, profile);
    sqlite3_bind_int64(st, 7, (int64_t)cases);
    sqlite3_bind_int64(st, 8, (int64_t)elements);
    rc = step_done(s, st);
done:
    return op_end(s, rc);
}

int store_record_ulp_histogram(store *s, int64_t run_id, const char *implementation,
                               uint32_t variant, uint32_t dtype, const uint64_t *elements,
                               uint32_t n_buckets)
{
    const char *vname, *dname;
    sqlite3_stmt *st;
    int rc = -1;

    s->op = "record ULP histogram";
    if (need_text(s, "implementation", implementation) ||
        names(s, variant, dtype, &vname, &dname))
        return -1;
    if (n_buckets > STORE_ULP_BUCKETS || (n_buckets && !elements))
        return fail(s, "%" PRIu32 " buckets (at most %d)", n_buckets, STORE_ULP_BUCKETS);
    for (uint32_t b = 0; b < n_buckets; b++)
        if (elements[b] > INT64_MAX)
            return fail(s, "count above INT64_MAX");
    if (op_begin(s, "record ULP histogram"))
        return -1;
    if (!(st = prep(s, SQL_ULP_ADD)))
        goto done;
    for (uint32_t b = 0; b < n_buckets; b++) {
        if (!elements[b])
            continue;
        sqlite3_bind_int64(st, 1, run_id);
        bind_text(st, 2, implementation);
        bind_text(st, 3, vname);
        bind_text(st, 4, dname);
        sqlite3_bind_int64(st, 5, b);
        sqlite3_bind_int64(st, 6, (int64_t)elements[b]);
        if (step_done(s, st))
            goto done;
    }
    rc = 0;
done:
    return op_end(s, rc);
}

int store_mark_fixed(store *s, int64_t run_id, const char *implementation, uint32_t variant,
                     uint32_t dtype, int64_t *n_fixed)
{
    const char *vname, *dname;
    sqlite3_stmt *st;
    int64_t changed = 0;
    int rc = -1;

    s->op = "mark fixed";
    if (need_text(s, "implementation", implementation) ||
        names(s, variant, dtype, &vname, &dname))
        return -1;
    if (op_begin(s, "mark fixed"))
        return -1;
    if (!(st = prep(s, SQL_SIG_FIX)))
        goto done;
    sqlite3_bind_int64(st, 1, run_id);
    bind_text(st, 2, implementation);
    bind_text(st, 3, vname);
    bind_text(st, 4, dname);
    if (step_done(s, st))
        goto done;
    changed = sqlite3_changes(s->db);
    rc = 0;
done:
    rc = op_end(s, rc);
    if (rc == 0 && n_fixed)
        *n_fixed = changed;
    return rc;
}

/* ------------------------------------------------------------------------
 * Findings and reproducers.
 * ---------------------------------------------------------------------- */
void store_set_reproducer_limit(store *s, uint32_t limit)
{
    s->repro_limit = limit;
}

/* Checks that the case's operand buffers hold what its shapes say. */
static int check_case(store *s, const divcase *c)
{
    uint64_t na, nb;
    if (shape_elements(&c->a_shape, &na) || shape_elements(&c->b_shape, &nb))
        return fail(s, "case '%.*s' has an invalid shape", (int)sizeof c->id, c->id);
    if (c->a_bytes != oracle_nbytes(c->dtype, na) || c->b_bytes != oracle_nbytes(c->dtype, nb))
        return fail(s, "case '%.*s': operand sizes %" PRIu64 " and %" PRIu64
                       " bytes do not match its shapes",
                    (int)sizeof c->id, c->id, c->a_bytes, c->b_bytes);
    if ((c->a_bytes && !c->a) || (c->b_bytes && !c->b))
        return fail(s, "case '%.*s' has no operand bytes", (int)sizeof c->id, c->id);
    return 0;
}

static int insert_reproducer(store *s, int64_t sig, int64_t run_id, const store_finding *f,
                             const char *vname, const char *dname)
{
    const divcase *c = f->c;
    char attrs[256], sa[256], sb[256];
    sqlite3_stmt *st = prep(s, SQL_REPRO_INSERT);
    if (!st)
        return -1;
    oracle_attrs_format(oracle_variant_get(c->variant), &c->attrs, attrs, sizeof attrs);
    oracle_shape_format(&c->a_shape, sa, sizeof sa);
    oracle_shape_format(&c->b_shape, sb, sizeof sb);
    sqlite3_bind_int64(st, 1, sig);
    sqlite3_bind_int64(st, 2, run_id);
    sqlite3_bind_text(st, 3, c->id, (int)strnlen(c->id, sizeof c->id), SQLITE_STATIC);
    sqlite3_bind_text(st, 4, c->source, (int)strnlen(c->source, sizeof c->source),
                      SQLITE_STATIC);
    bind_text(st, 5, vname);
    bind_text(st, 6, dname);
    bind_text(st, 7, attrs);
    sqlite3_bind_int64(st, 8, c->attrs.broadcast);
    sqlite3_bind_int64(st, 9, c->attrs.axis_set);
    sqlite3_bind_int64(st, 10, c->attrs.axis);
    sqlite3_bind_int64(st, 11, c->attrs.pythondiv);
    sqlite3_bind_int64(st, 12, c->attrs.auto_broadcast);
    sqlite3_bind_int64(st, 13, c->attrs.int_rounding);
    bind_text(st, 14, sa);
    bind_text(st, 15, sb);
    /* A NULL pointer would bind NULL: an empty operand is an empty blob. */
    sqlite3_bind_blob64(st, 16, c->a_bytes ? (const void *)c->a : "", c->a_bytes, SQLITE_STATIC);
    sqlite3_bind_blob64(st, 17, c->b_bytes ? (const void *)c->b : "", c->b_bytes, SQLITE_STATIC);
    if (f->element >= 0)
        sqlite3_bind_int64(st, 18, f->element);
    bind_text(st, 19, f->expected);
    bind_text(st, 20, f->actual);
    if (f->ulps <= INT64_MAX)
        sqlite3_bind_int64(st, 21, (int64_t)f->ulps);
    bind_text(st, 22, f->note);
    return step_done(s, st);
}

int store_record_finding(store *s, int64_t run_id, const store_finding *f,
                         int64_t *signature_id, int *is_new)
{
    const char *vname, *dname;
    sqlite3_stmt *st;
    int64_t sig = 0, occurrences = 0, stored = 0, repro = 0;
    int rc = -1;

    s->op = "record finding";
    if (!f || !f->c)
        return fail(s, "no finding or no case");
    if (need_text(s, "implementation", f->implementation) ||
        names(s, f->c->variant, f->c->dtype, &vname, &dname) || check_case(s, f->c))
        return -1;
    if (f->cls == ORACLE_CLASS_MATCH || f->cls >= ORACLE_CLASS_COUNT)
        return fail(s, "class %" PRIu32 " is not a difference", f->cls);
    if (!f->operand_class)
        return fail(s, "operand class is missing");
    if (op_begin(s, "record finding"))
        return -1;
    if (!(st = prep(s, SQL_SIG_UPSERT)))
        goto done;
    bind_text(st, 1, f->implementation);
    bind_text(st, 2, vname);
    bind_text(st, 3, dname);
    bind_text(st, 4, oracle_class_name(f->cls));
    bind_text(st, 5, f->operand_class);
    sqlite3_bind_int64(st, 6, run_id);
    if (step_row(s, st))
        goto done;
    sig = sqlite3_column_int64(st, 0);
    occurrences = sqlite3_column_int64(st, 1);
    if (step_done(s, st))
        goto done;
    if (!(st = prep(s, SQL_SIGRUN_ADD)))
        goto done;
    sqlite3_bind_int64(st, 1, sig);
    sqlite3_bind_int64(st, 2, run_id);
    if (step_done(s, st))
        goto done;
    if (!(st = prep(s, SQL_REPRO_COUNT)))
        goto done;
    sqlite3_bind_int64(st, 1, sig);
    if (step_row(s, st))
        goto done;
    stored = sqlite3_column_int64(st, 0);
    if (step_done(s, st))
        goto done;
    if (stored < (int64_t)s->repro_limit && f->c->a_bytes <= STORE_MAX_OPERAND_BYTES &&
        f->c->b_bytes <= STORE_MAX_OPERAND_BYTES) {
        if (insert_reproducer(s, sig, run_id, f, vname, dname))
            goto done;
        repro = sqlite3_last_insert_rowid(s->db);
    } else {
        if (!(st = prep(s, SQL_SIG_DROPPED)))
            goto done;
        sqlite3_bind_int64(st, 1, sig);
        if (step_done(s, st))
            goto done;
    }
    rc = 0;
done:
    rc = op_end(s, rc);
    if (rc == 0) {
        s->last_reproducer = repro;
        if (signature_id)
            *signature_id = sig;
        if (is_new)
            *is_new = occurrences == 1;
    }
    return rc;
}

int64_t store_last_reproducer(const store *s)
{
    return s->last_reproducer;
}

/* Text column `col` of the current row into dst (truncated). */
static void column_text(sqlite3_stmt *st, int col, char *dst, size_t len)
{
    copy_text(dst, len, (const char *)sqlite3_column_text(st, col));
}

/* An integer column that must fit [lo, hi]. */
static int column_range(store *s, sqlite3_stmt *st, int col, int64_t lo, int64_t hi,
                        int64_t *out)
{
    if (sqlite3_column_type(st, col) != SQLITE_INTEGER)
        return fail(s, "column %s is not an integer", sqlite3_column_name(st, col));
    int64_t v = sqlite3_column_int64(st, col);
    if (v < lo || v > hi)
        return fail(s, "column %s = %" PRId64 " is out of range", sqlite3_column_name(st, col),
                    v);
    *out = v;
    return 0;
}

/* Parses and checks one operand: its shape text and its blob. */
static int load_operand(store *s, sqlite3_stmt *st, int shape_col, int blob_col, uint32_t dtype,
                        oracle_shape *shape, uint64_t *nbytes)
{
    const char *text = (const char *)sqlite3_column_text(st, shape_col);
    oracle_error why;
    uint64_t count;
    if (!text || oracle_shape_parse(text, shape, &why) != ORACLE_OK)
        return fail(s, "column %s: %s", sqlite3_column_name(st, shape_col),
                    text ? why.text : "NULL");
    if (shape_elements(shape, &count))
        return fail(s, "column %s: shape '%s' is too large", sqlite3_column_name(st, shape_col),
                    text);
    uint64_t want = oracle_nbytes(dtype, count);
    uint64_t have = (uint64_t)sqlite3_column_bytes(st, blob_col);
    if (want > STORE_MAX_OPERAND_BYTES || have != want)
        return fail(s, "column %s holds %" PRIu64 " bytes; shape %s of %s needs %" PRIu64
                       " (at most %" PRIu64 ")",
                    sqlite3_column_name(st, blob_col), have, text, oracle_dtype_tag(dtype), want,
                    STORE_MAX_OPERAND_BYTES);
    *nbytes = have;
    return 0;
}

int store_reproducer_load(store *s, int64_t id, divcase *out, store_reproducer *info)
{
    sqlite3_stmt *st, *pl = NULL;
    divcase c;
    store_reproducer r;
    int64_t v[6];
    uint64_t na, nb;
    int rc = -1;

    memset(&c, 0, sizeof c);
    memset(&r, 0, sizeof r);
    snprintf(s->op_text, sizeof s->op_text, "load reproducer %" PRId64, id);
    s->op = s->op_text;
    s->err[0] = '\0';
    if (!(st = prep(s, SQL_REPRO_LOAD)))
        goto done;
    sqlite3_bind_int64(st, 1, id);
    int step = sqlite3_step(st);
    if (step == SQLITE_DONE) {
        fail(s, "no such reproducer");
        goto done;
    }
    if (step != SQLITE_ROW) {
        fail_db(s);
        goto done;
    }
    const char *vname = (const char *)sqlite3_column_text(st, 4);
    const char *dname = (const char *)sqlite3_column_text(st, 5);
    const oracle_variant *variant = vname ? oracle_variant_by_name(vname) : NULL;
    c.dtype = dname ? oracle_dtype_by_tag(dname) : DVG_DTYPE_NONE;
    if (!variant) {
        fail(s, "unknown variant '%s'", vname ? vname : "NULL");
        goto done;
    }
    if (c.dtype == DVG_DTYPE_NONE) {
        fail(s, "unknown dtype '%s'", dname ? dname : "NULL");
        goto done;
    }
    c.variant = variant->id;
    if (column_range(s, st, 6, INT32_MIN, INT32_MAX, &v[0]) ||
        column_range(s, st, 7, INT32_MIN, INT32_MAX, &v[1]) ||
        column_range(s, st, 8, INT64_MIN, INT64_MAX, &v[2]) ||
        column_range(s, st, 9, INT32_MIN, INT32_MAX, &v[3]) ||
        column_range(s, st, 10, 0, UINT32_MAX, &v[4]) ||
        column_range(s, st, 11, 0, UINT32_MAX, &v[5]))
        goto done;
    c.attrs.size = sizeof c.attrs;
    c.attrs.broadcast = (int32_t)v[0];
    c.attrs.axis_set = (int32_t)v[1];
    c.attrs.axis = v[2];
    c.attrs.pythondiv = (int32_t)v[3];
    c.attrs.auto_broadcast = (uint32_t)v[4];
    c.attrs.int_rounding = (uint32_t)v[5];
    if (load_operand(s, st, 12, 14, c.dtype, &c.a_shape, &na) ||
        load_operand(s, st, 13, 15, c.dtype, &c.b_shape, &nb))
        goto done;
    column_text(st, 2, c.id, sizeof c.id);
    column_text(st, 3, c.source, sizeof c.source);

    r.id = id;
    r.signature_id = sqlite3_column_int64(st, 0);
    r.run_id = sqlite3_column_int64(st, 1);
    r.element = sqlite3_column_type(st, 16) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 16);
    column_text(st, 17, r.expected, sizeof r.expected);
    column_text(st, 18, r.actual, sizeof r.actual);
    r.ulps = sqlite3_column_type(st, 19) == SQLITE_NULL ? UINT64_MAX
                                                        : (uint64_t)sqlite3_column_int64(st, 19);
    column_text(st, 20, r.note, sizeof r.note);
    column_text(st, 21, r.implementation, sizeof r.implementation);
    column_text(st, 22, r.cls, sizeof r.cls);
    column_text(st, 23, r.operand_class, sizeof r.operand_class);

    /* Sizes were checked against the shapes above: allocate and copy. */
    if (divcase_alloc(&c, ORACLE_MAX_ELEMENTS) || c.a_bytes != na || c.b_bytes != nb) {
        fail(s, "out of memory for %" PRIu64 " + %" PRIu64 " operand bytes", na, nb);
        goto done;
    }
    if (na)
        memcpy(c.a, sqlite3_column_blob(st, 14), na);
    if (nb)
        memcpy(c.b, sqlite3_column_blob(st, 15), nb);
    finish(st);

    if (info) {
        if (!(pl = prep(s, SQL_REPRO_PLUGIN)))
            goto done;
        sqlite3_bind_int64(pl, 1, r.run_id);
        bind_text(pl, 2, r.implementation);
        step = sqlite3_step(pl);
        if (step == SQLITE_ROW) {
            column_text(pl, 0, r.plugin_version, sizeof r.plugin_version);
            column_text(pl, 1, r.plugin_path, sizeof r.plugin_path);
            column_text(pl, 2, r.plugin_sha256, sizeof r.plugin_sha256);
        } else if (step != SQLITE_DONE) {
            fail_db(s);
            goto done;
        }
    }
    rc = 0;
done:
    finish(st);
    finish(pl);
    if (rc) {
        divcase_free(&c);
    } else {
        *out = c;
        if (info)
            *info = r;
    }
    return rc;
}

/* ------------------------------------------------------------------------
 * Checking a file.
 * ---------------------------------------------------------------------- */
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
    if (read_int(s, SQL_USER_VERSION, &v))
        goto report;
    if (sqlite3_prepare_v2(s->db, "PRAGMA integrity_check(20)", -1, &st, NULL) != SQLITE_OK) {
        fail_db(s);
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
        fail_db(s);
        goto report;
    }
    if (used) {
        char problems[sizeof s->err];
        copy_text(problems, sizeof problems, s->err);
        for (char *p = problems; *p; p++)
            if (*p == '\n')
                *p = ' '; /* one line */
        fail(s, "integrity_check: %s", problems);
        goto report;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (sqlite3_prepare_v2(s->db, "PRAGMA foreign_key_check", -1, &st, NULL) != SQLITE_OK) {
        fail_db(s);
        goto report;
    }
    step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        fail(s, "foreign_key_check: table %s row %" PRId64 " refers to a missing row of %s",
             (const char *)sqlite3_column_text(st, 0), (int64_t)sqlite3_column_int64(st, 1),
             (const char *)sqlite3_column_text(st, 2));
        goto report;
    }
    if (step != SQLITE_DONE) {
        fail_db(s);
        goto report;
    }
    rc = 0;
report:
    if (rc)
        copy_text(err, errlen, s->err);
done:
    sqlite3_finalize(st);
    store_close(s);
    if (rc == 0 && version)
        *version = (int)v;
    return rc;
}

/* ------------------------------------------------------------------------
 * Reading with SQL: reports and queries.
 * ---------------------------------------------------------------------- */
struct store_row {
    sqlite3_stmt *st;
};

static int bind_params(store *s, sqlite3_stmt *st, const store_param *params, size_t n)
{
    if ((size_t)sqlite3_bind_parameter_count(st) != n)
        return fail(s, "the statement takes %d parameters, %zu given",
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
        default: return fail(s, "parameter %zu has unknown type %d", i + 1, params[i].type);
        }
        if (r != SQLITE_OK)
            return fail_db(s);
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
        return fail(s, "no statement, no callback or no parameters");
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, &tail) != SQLITE_OK) {
        fail_db(s);
        goto done;
    }
    while (tail && (*tail == ' ' || *tail == '\n' || *tail == '\t' || *tail == '\r' ||
                    *tail == ';'))
        tail++;
    if (!st || (tail && *tail)) {
        fail(s, "expected exactly one statement");
        goto done;
    }
    if (!sqlite3_stmt_readonly(st)) {
        fail(s, "not a read-only statement");
        goto done;
    }
    if (bind_params(s, st, params, n_params))
        goto done;
    store_row row = {st};
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        rows++;
        if (fn(ctx, &row)) {
            fail(s, "stopped by the caller at row %" PRId64, rows);
            goto done;
        }
    }
    if (step != SQLITE_DONE) {
        fail_db(s);
        goto done;
    }
    rc = 0;
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

/* ------------------------------------------------------------------------
 * Merging databases.
 *
 * The input is copied (SQLite's backup API: a consistent snapshot, WAL
 * included) into a temporary file that is migrated to this schema and
 * attached as merge_src; the merge itself is one transaction. The
 * temporary tables map the input's run, build and signature ids to ours.
 * ---------------------------------------------------------------------- */

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
    "  recorded_at = max(recorded_at, excluded.recorded_at);";

/* After the signatures are mapped: per-run sightings, fixed status. */
static const char *const merge_sql_signatures =
    "INSERT INTO main.signature_runs(signature_id, run_id, occurrences)"
    "  SELECT ms.dst, mr.dst, g.occurrences FROM merge_src.signature_runs g"
    "  JOIN temp.merge_sigs ms ON ms.src = g.signature_id"
    "  JOIN temp.merge_runs mr ON mr.src = g.run_id AND mr.new"
    "  WHERE true ON CONFLICT(signature_id, run_id) DO UPDATE SET"
    "  occurrences = occurrences + excluded.occurrences;"
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
    " b_shape, a, b, element, expected, actual, ulps, note"

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

/* Prepares one statement on s->db, binding int64 parameters. */
static sqlite3_stmt *merge_prep(store *s, const char *sql)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        fail_db(s);
        sqlite3_finalize(st);
        return NULL;
    }
    return st;
}

/* Runs `sql` with int64 parameters ?1.. and reads the first column of its
 * first row into *out (0 when there is no row or it is NULL). */
static int merge_int(store *s, const char *sql, int64_t *out, int n, ...)
{
    sqlite3_stmt *st = merge_prep(s, sql);
    va_list ap;
    int rc = -1, step;
    if (!st)
        return -1;
    va_start(ap, n);
    for (int i = 1; i <= n; i++)
        sqlite3_bind_int64(st, i, va_arg(ap, int64_t));
    va_end(ap);
    step = sqlite3_step(st);
    if (step == SQLITE_ROW || step == SQLITE_DONE) {
        *out = step == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
        rc = 0;
    } else {
        fail_db(s);
    }
    sqlite3_finalize(st);
    return rc;
}

/* Runs `sql` (no rows) with int64 parameters ?1.. . */
static int merge_exec(store *s, const char *sql, int n, ...)
{
    sqlite3_stmt *st = merge_prep(s, sql);
    va_list ap;
    int rc = -1;
    if (!st)
        return -1;
    va_start(ap, n);
    for (int i = 1; i <= n; i++)
        sqlite3_bind_int64(st, i, va_arg(ap, int64_t));
    va_end(ap);
    if (sqlite3_step(st) == SQLITE_DONE)
        rc = 0;
    else
        fail_db(s);
    sqlite3_finalize(st);
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
    copy_text(args, sizeof args, text);
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
    sqlite3_stmt *st = merge_prep(
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
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : fail_db(s);
    sqlite3_finalize(st);
    if (rc == 0)
        *id = sqlite3_last_insert_rowid(s->db);
    return rc;
}

/* Start, end and status of merged run `id` from its shards: complete when
 * all shard_count shards are there and complete. */
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
        "   WHERE run_id = ?1 AND status <> 'complete') THEN 'complete' ELSE 'incomplete' END"
        " WHERE id = ?1",
        1, id);
}

/* Records input run `run` (a shard) as shard of merged run `dst`. */
static int merge_add_shard(store *s, sqlite3_stmt *run, int64_t dst, const char *campaign)
{
    sqlite3_stmt *st = merge_prep(
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
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : fail_db(s);
    sqlite3_finalize(st);
    return rc || merge_run_header(s, dst) ? -1 : 0;
}

/* Maps every run of the input to a run of ours: a run already merged
 * before maps to ours and brings nothing (new = 0); a shard joins the
 * merged run of its campaign that lacks its index, or starts one; any
 * other run is copied. */
static int merge_runs(store *s, const char *in_path, store_merge_stats *stats)
{
    sqlite3_stmt *run = merge_prep(s, merge_sql_src_runs);
    char campaign[8192];
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
        const char *args = (const char *)sqlite3_column_text(run, RUN_ARGS);
        if (folded) {
            /* A run merged from shards in the input: its shards decide. */
            int64_t present;
            if (merge_int(s,
                          "SELECT count(*) FROM merge_src.run_shards h WHERE h.run_id = ?1"
                          " AND EXISTS (SELECT 1 FROM main.run_shards m WHERE m.host = h.host"
                          " AND m.pid = h.pid AND m.process_tag = h.process_tag"
                          " AND m.started_at = h.started_at)",
                          &present, 1, src))
                goto done;
            if (present == folded) {
                if (merge_int(s,
                              "SELECT m.run_id FROM merge_src.run_shards h JOIN main.run_shards m"
                              " ON m.host = h.host AND m.pid = h.pid AND m.process_tag ="
                              " h.process_tag AND m.started_at = h.started_at"
                              " WHERE h.run_id = ?1 LIMIT 1",
                              &dst, 1, src))
                    goto done;
                is_new = 0;
            } else if (present) {
                fail(s, "%s: run %" PRId64 " was merged from shards of which %" PRId64
                        " of %" PRId64 " are here already; merge the shard databases instead",
                     in_path, src, present, folded);
                goto done;
            } else {
                if (merge_int(s,
                              "SELECT run_id FROM main.run_shards WHERE campaign ="
                              " (SELECT campaign FROM merge_src.run_shards WHERE run_id = ?1"
                              "  LIMIT 1) GROUP BY run_id HAVING sum(shard_index IN"
                              " (SELECT shard_index FROM merge_src.run_shards WHERE run_id = ?1))"
                              " = 0 ORDER BY run_id DESC LIMIT 1",
                              &dst, 1, src))
                    goto done;
                if (!dst && merge_insert_run(s, run, 1, args ? args : "", &dst))
                    goto done;
                if (merge_exec(s,
                               "INSERT INTO main.run_shards SELECT ?2, shard_index, shard_count,"
                               " campaign, status, started_at, finished_at, host, pid,"
                               " process_tag, cpu_features, args FROM merge_src.run_shards"
                               " WHERE run_id = ?1",
                               2, src, dst) ||
                    merge_run_header(s, dst))
                    goto done;
                stats->runs_folded += folded;
            }
        } else if (is_shard) {
            if (merge_int(s,
                          "SELECT m.run_id FROM main.run_shards m, merge_src.runs h"
                          " WHERE h.id = ?1 AND m.host = h.host AND m.pid = h.pid"
                          " AND m.process_tag = h.process_tag AND m.started_at = h.started_at",
                          &dst, 1, src))
                goto done;
            if (dst) {
                is_new = 0;
            } else {
                campaign_key(run, campaign, sizeof campaign);
                sqlite3_stmt *find = merge_prep(
                    s, "SELECT run_id FROM main.run_shards WHERE campaign = ?1 GROUP BY run_id"
                       " HAVING sum(shard_index = ?2) = 0 AND max(shard_count) = ?3"
                       " ORDER BY run_id DESC LIMIT 1");
                if (!find)
                    goto done;
                sqlite3_bind_text(find, 1, campaign, -1, SQLITE_STATIC);
                sqlite3_bind_int64(find, 2, sqlite3_column_int64(run, RUN_SHARD_INDEX));
                sqlite3_bind_int64(find, 3, count);
                step = sqlite3_step(find);
                if (step == SQLITE_ROW)
                    dst = sqlite3_column_int64(find, 0);
                else if (step != SQLITE_DONE)
                    fail_db(s);
                sqlite3_finalize(find);
                if (step != SQLITE_ROW && step != SQLITE_DONE)
                    goto done;
                /* The merged run's command line is the campaign's. */
                const char *norm = strstr(campaign, " args=");
                if (!dst && merge_insert_run(s, run, 1, norm ? norm + 6 : "", &dst))
                    goto done;
                if (merge_add_shard(s, run, dst, campaign))
                    goto done;
                stats->runs_folded++;
            }
        } else {
            if (merge_int(s,
                          "SELECT m.id FROM main.runs m, merge_src.runs h WHERE h.id = ?1"
                          " AND m.host = h.host AND m.pid = h.pid AND m.process_tag ="
                          " h.process_tag AND m.started_at = h.started_at AND m.kind = h.kind"
                          " AND m.args = h.args",
                          &dst, 1, src))
                goto done;
            if (dst)
                is_new = 0;
            else if (merge_insert_run(s, run, 0, args ? args : "", &dst))
                goto done;
            else
                stats->runs_added++;
        }
        if (!is_new)
            stats->runs_skipped++;
        if (merge_exec(s, "INSERT INTO temp.merge_runs(src, dst, new) VALUES(?1, ?2, ?3)", 3,
                       src, dst, (int64_t)is_new))
            goto done;
    }
    if (step != SQLITE_DONE) {
        fail_db(s);
        goto done;
    }
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
    sqlite3_stmt *sig = merge_prep(
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
    sqlite3_stmt *ins = merge_prep(
        s, "INSERT INTO main.signatures(implementation, variant, dtype, class, operand_class,"
           " first_run_id, last_run_id, first_seen, last_seen, status, occurrences,"
           " reproducers_dropped) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'open', ?10, ?11)");
    sqlite3_stmt *upd = merge_prep(
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
            fail(s, "%s: signature %" PRId64 " refers to a run that is not there", in_path, src);
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
            if (sqlite3_step(upd) != SQLITE_DONE) {
                fail_db(s);
                goto done;
            }
            sqlite3_reset(upd);
            stats->signatures_updated++;
        } else {
            for (int i = 1; i <= 9; i++)
                sqlite3_bind_value(ins, i, sqlite3_column_value(sig, i));
            sqlite3_bind_int64(ins, 10, occ);
            sqlite3_bind_int64(ins, 11, dropped);
            if (sqlite3_step(ins) != SQLITE_DONE) {
                fail_db(s);
                goto done;
            }
            sqlite3_reset(ins);
            dst = sqlite3_last_insert_rowid(s->db);
            stats->signatures_added++;
        }
        if (merge_exec(s, "INSERT INTO temp.merge_sigs(src, dst) VALUES(?1, ?2)", 2, src, dst))
            goto done;
    }
    if (step != SQLITE_DONE) {
        fail_db(s);
        goto done;
    }
    rc = 0;
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
        fail(s, "%s: %s", src_path, src ? sqlite3_errmsg(src) : "out of memory");
        goto done;
    }
    sqlite3_busy_timeout(src, STORE_BUSY_TIMEOUT_MS);
    if (sqlite3_prepare_v2(src, "SELECT (SELECT user_version FROM pragma_user_version),"
                                " (SELECT count(*) FROM sqlite_schema)",
                           -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        fail(s, "%s: not a SQLite database, or a corrupt one (%s)", src_path,
             sqlite3_errmsg(src));
        goto done;
    }
    v = sqlite3_column_int64(st, 0);
    objects = sqlite3_column_int64(st, 1);
    if (v > SCHEMA_VERSION) {
        fail(s, "%s: schema version %" PRId64 " is newer than this divergence knows (%d)",
             src_path, v, SCHEMA_VERSION);
        goto done;
    }
    if (v == 0 && objects > 0) {
        fail(s, "%s: not a Divergence database (user_version 0, but it holds %" PRId64
                " schema objects of another program)",
             src_path, objects);
        goto done;
    }
    if (sqlite3_open_v2(dst_path, &dst, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        fail(s, "%s: %s", dst_path, dst ? sqlite3_errmsg(dst) : "out of memory");
        goto done;
    }
    if (!(b = sqlite3_backup_init(dst, "main", src, "main"))) {
        fail(s, "%s: copy to %s: %s", src_path, dst_path, sqlite3_errmsg(dst));
        goto done;
    }
    int step = sqlite3_backup_step(b, -1);
    sqlite3_backup_finish(b);
    if (step != SQLITE_DONE) {
        fail(s, "%s: copy to %s: %s", src_path, dst_path, sqlite3_errstr(step));
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

static void remove_database(const char *path)
{
    char side[4200];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-journal", path);
    unlink(side);
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
        return fail(s, "no input database");
    if (s->batch)
        return fail(s, "a merge cannot run inside a batch");
    if (s->readonly)
        return fail_readonly(s);
    if (stat(in_path, &a) != 0)
        return fail(s, "%s: %s", in_path, strerror(errno));
    if (stat(s->path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        return fail(s, "%s is the output database itself", in_path);

    const char *dir = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/divergence-merge-XXXXXX", dir && *dir ? dir : "/tmp");
    if ((fd = mkstemp(tmp)) < 0) {
        fail(s, "temporary copy %s: %s", tmp, strerror(errno));
        tmp[0] = '\0';
        goto done;
    }
    close(fd);
    if (copy_database(s, in_path, tmp, &version))
        goto done;
    /* Bring the copy to this schema (the input itself is never changed). */
    if (store_open(tmp, 0, &in, msg, sizeof msg)) {
        fail(s, "%s: %s", in_path, msg);
        goto done;
    }
    store_close(in);
    in = NULL;

    s->op = "merge";
    if (!(st = merge_prep(s, "ATTACH DATABASE ?1 AS merge_src")))
        goto done;
    sqlite3_bind_text(st, 1, tmp, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE) {
        fail_db(s);
        goto done;
    }
    sqlite3_finalize(st);
    st = NULL;
    attached = 1;
    if (exec(s, "BEGIN IMMEDIATE"))
        goto done;
    began = 1;
    if (exec(s, merge_sql_setup) || merge_runs(s, in_path, &n) || exec(s, merge_sql_tables) ||
        merge_signatures(s, in_path, &n) || exec(s, merge_sql_signatures))
        goto done;
    if (merge_exec(s, merge_sql_repro_insert, 1, (int64_t)s->repro_limit))
        goto done;
    n.reproducers_added = sqlite3_changes(s->db);
    if (merge_int(s, "SELECT count(*) FROM temp.merge_repros WHERE rank > ?1", &dropped, 1,
                  (int64_t)s->repro_limit) ||
        merge_exec(s, merge_sql_repro_dropped, 1, (int64_t)s->repro_limit) ||
        exec(s, merge_sql_teardown) || exec(s, "COMMIT"))
        goto done;
    began = 0;
    n.reproducers_dropped = dropped;
    n.input_version = (int)version;
    rc = 0;
done:
    sqlite3_finalize(st);
    if (began)
        exec_quiet(s, "ROLLBACK");
    if (attached)
        exec_quiet(s, "DETACH DATABASE merge_src");
    store_close(in);
    if (tmp[0])
        remove_database(tmp);
    if (rc == 0 && stats)
        *stats = n;
    return rc;
}

/* ------------------------------------------------------------------------
 * Sweeps (schema 3; `divergence sweep`, harness/run/sweep.h). Their
 * statements are prepared per call: a sweep writes once per chunk.
 * ---------------------------------------------------------------------- */
static sqlite3_stmt *sweep_prep(store *s, const char *sql)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        fail_db(s);
        sqlite3_finalize(st);
        return NULL;
    }
    return st;
}

int store_sweep_begin(store *s, int64_t run_id, const store_sweep_info *info, int64_t *sweep_id)
{
    const char *vname, *dname;
    sqlite3_stmt *st = NULL;
    int rc = -1;
    s->op = "begin sweep";
    if (!info || need_text(s, "implementation", info->implementation) ||
        need_text(s, "sweep space", info->space) || need_text(s, "sweep plan", info->plan) ||
        names(s, info->variant, info->dtype, &vname, &dname))
        return -1;
    if (strcmp(info->space, "exhaustive") && strcmp(info->space, "structured"))
        return fail(s, "sweep space '%s' is neither exhaustive nor structured", info->space);
    if (info->pairs > INT64_MAX || info->random_pairs > info->pairs || info->chunks > INT64_MAX)
        return fail(s, "sweep size out of range");
    if (op_begin(s, "begin sweep"))
        return -1;
    st = sweep_prep(s, "INSERT INTO sweeps(run_id, implementation, variant, dtype, attrs, space,"
                       " layout, plan, pairs, random_pairs, chunks, started_at)"
                       " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, " NOW ")");
    if (!st)
        goto done;
    sqlite3_bind_int64(st, 1, run_id);
    bind_text(st, 2, info->implementation);
    bind_text(st, 3, vname);
    bind_text(st, 4, dname);
    bind_text(st, 5, info->attrs ? info->attrs : "");
    bind_text(st, 6, info->space);
    bind_text(st, 7, info->layout ? info->layout : "");
    bind_text(st, 8, info->plan);
    sqlite3_bind_int64(st, 9, (int64_t)info->pairs);
    sqlite3_bind_int64(st, 10, (int64_t)info->random_pairs);
    sqlite3_bind_int64(st, 11, (int64_t)info->chunks);
    if (step_done(s, st))
        goto done;
    *sweep_id = sqlite3_last_insert_rowid(s->db);
    rc = 0;
done:
    sqlite3_finalize(st);
    return op_end(s, rc);
}

int store_sweep_find(store *s, const char *implementation, const char *plan, int64_t *sweep_id,
                     int64_t *run_id)
{
    sqlite3_stmt *st;
    int rc = -1, step;
    s->op = "find sweep";
    s->err[0] = '\0';
    if (need_text(s, "implementation", implementation) || need_text(s, "sweep plan", plan))
        return -1;
    st = sweep_prep(s, "SELECT w.id, w.run_id FROM sweeps w JOIN runs r ON r.id = w.run_id"
                       " WHERE w.implementation = ?1 AND w.plan = ?2 AND w.verdict IS NULL"
                       " AND r.status <> 'complete' ORDER BY w.id DESC LIMIT 1");
    if (!st)
        return -1;
    bind_text(st, 1, implementation);
    bind_text(st, 2, plan);
    step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        *sweep_id = sqlite3_column_int64(st, 0);
        *run_id = sqlite3_column_int64(st, 1);
        rc = 0;
    } else if (step == SQLITE_DONE) {
        *sweep_id = *run_id = 0;
        rc = 0;
    } else {
        fail_db(s);
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
    st = sweep_prep(s, "SELECT chunk, pairs, pairs_unjudged, tally FROM sweep_chunks"
                       " WHERE sweep_id = ?1 ORDER BY chunk");
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, sweep_id);
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t c = sqlite3_column_int64(st, 0), p = sqlite3_column_int64(st, 1),
                u = sqlite3_column_int64(st, 2);
        const char *t = (const char *)sqlite3_column_text(st, 3);
        if (c < 0 || p < 0 || u < 0 || u > p)
            rc = fail(s, "sweep %" PRId64 ": chunk %" PRId64 " has bad counts", sweep_id, c);
        else if (fn(ctx, (uint64_t)c, (uint64_t)p, (uint64_t)u, t ? t : ""))
            rc = fail(s, "sweep %" PRId64 ": chunk %" PRId64 " refused by the caller", sweep_id,
                      c);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = fail_db(s);
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
        return fail(s, "sweep chunk out of range");
    if (op_begin(s, "record sweep chunk"))
        return -1;
    st = sweep_prep(s, "INSERT INTO sweep_chunks(sweep_id, chunk, pairs, pairs_unjudged, tally,"
                       " done_at) VALUES(?1, ?2, ?3, ?4, ?5, " NOW ")");
    if (!st)
        goto done;
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_int64(st, 2, (int64_t)chunk);
    sqlite3_bind_int64(st, 3, (int64_t)pairs);
    sqlite3_bind_int64(st, 4, (int64_t)unjudged);
    bind_text(st, 5, tally ? tally : "");
    if (step_done(s, st))
        goto done;
    sqlite3_finalize(st);
    st = sweep_prep(s, "UPDATE sweeps SET chunks_done = chunks_done + 1,"
                       " pairs_done = pairs_done + ?2, pairs_unjudged = pairs_unjudged + ?3"
                       " WHERE id = ?1");
    if (!st)
        goto done;
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_int64(st, 2, (int64_t)pairs);
    sqlite3_bind_int64(st, 3, (int64_t)unjudged);
    if (step_done(s, st))
        goto done;
    if (sqlite3_changes(s->db) != 1) {
        fail(s, "no sweep %" PRId64, sweep_id);
        goto done;
    }
    rc = 0;
done:
    sqlite3_finalize(st);
    return op_end(s, rc);
}

int store_record_operand_counts(store *s, int64_t run_id, const char *implementation,
                                uint32_t variant, uint32_t dtype, uint32_t cls,
                                const char *operand_class, uint64_t elements)
{
    const char *vname, *dname;
    sqlite3_stmt *st = NULL;
    int rc = -1;
    s->op = "record operand counts";
    if (need_text(s, "implementation", implementation) ||
        need_text(s, "operand class", operand_class) ||
        names(s, variant, dtype, &vname, &dname))
        return -1;
    if (cls >= ORACLE_CLASS_COUNT)
        return fail(s, "unknown difference class %" PRIu32, cls);
    if (elements > INT64_MAX)
        return fail(s, "count above INT64_MAX");
    if (op_begin(s, "record operand counts"))
        return -1;
    st = sweep_prep(s, "INSERT INTO operand_counts(run_id, implementation, variant, dtype, class,"
                       " operand_class, elements) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)"
                       " ON CONFLICT(run_id, implementation, variant, dtype, class, operand_class)"
                       " DO UPDATE SET elements = elements + excluded.elements");
    if (!st)
        goto done;
    sqlite3_bind_int64(st, 1, run_id);
    bind_text(st, 2, implementation);
    bind_text(st, 3, vname);
    bind_text(st, 4, dname);
    bind_text(st, 5, oracle_class_name(cls));
    bind_text(st, 6, operand_class);
    sqlite3_bind_int64(st, 7, (int64_t)elements);
    rc = step_done(s, st);
done:
    sqlite3_finalize(st);
    return op_end(s, rc);
}

int store_sweep_finish(store *s, int64_t sweep_id, const char *verdict)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    s->op = "finish sweep";
    if (op_begin(s, "finish sweep"))
        return -1;
    st = sweep_prep(s, "UPDATE sweeps SET verdict = ?2, finished_at = " NOW " WHERE id = ?1");
    if (!st)
        goto done;
    sqlite3_bind_int64(st, 1, sweep_id);
    if (verdict)
        bind_text(st, 2, verdict);
    if (step_done(s, st))
        goto done;
    if (sqlite3_changes(s->db) != 1) {
        fail(s, "no sweep %" PRId64, sweep_id);
        goto done;
    }
    rc = 0;
done:
    sqlite3_finalize(st);
    return op_end(s, rc);
}
