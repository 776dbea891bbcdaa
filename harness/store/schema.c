/* SPDX-License-Identifier: MIT */
/*
 * harness/store/schema.c: the schema of the store.
 *
 * This file contains the schema as an ordered list of migrations (every
 * table and view docs/store.md describes) and the code that brings a
 * file up to date with them: store_migrate, run by store_open on a
 * writable file, and store_check_foreign, which tells a file of another
 * program from a new one; and the read views (read_runs, ...) that
 * every connection gets, through which code outside the store reads.
 */
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>

#include "harness/store/store_internal.h"

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
    /* ---- 3 -> 4: bugs and coverage (issue 14) ------------------------
     * Bugs: signatures grouped by their behaviour fingerprint (docs/
     * store.md, "bugs"), each signature's bug in signatures.bug_id, the
     * signatures of older files grouped from their first reproducer.
     * Coverage: what certify's cases exercised per (run, claim). */
    "CREATE TABLE bugs(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  implementation TEXT NOT NULL,\n"
    "  class TEXT NOT NULL,\n"
    "  kind TEXT NOT NULL,\n"
    "  locus TEXT NOT NULL,\n"
    "  first_run_id INTEGER NOT NULL REFERENCES runs(id),\n"
    "  first_seen TEXT NOT NULL,\n"
    "  UNIQUE (implementation, class, kind, locus)\n"
    ");\n"
    "ALTER TABLE signatures ADD COLUMN bug_id INTEGER REFERENCES bugs(id);\n"
    "CREATE INDEX signatures_bug ON signatures(bug_id);\n"
    STORE_SQL_GROUP_BUGS
    "CREATE TABLE coverage(\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id),\n"
    "  implementation TEXT NOT NULL,\n"
    "  variant TEXT NOT NULL,\n"
    "  dtype TEXT NOT NULL,\n"
    "  cases INTEGER NOT NULL,\n"
    "  ranks TEXT NOT NULL,\n"
    "  inner_sizes TEXT NOT NULL,\n"
    "  broadcast_classes TEXT NOT NULL,\n"
    "  size_tiers TEXT NOT NULL,\n"
    "  paths TEXT NOT NULL DEFAULT '',\n"
    "  PRIMARY KEY (run_id, implementation, variant, dtype)\n"
    ") WITHOUT ROWID;\n"
    "CREATE VIEW v_bugs AS\n"
    "SELECT b.id AS bug_id, b.implementation, b.class, b.kind, b.locus, b.first_run_id,\n"
    "  b.first_seen, count(s.id) AS signatures, coalesce(sum(s.occurrences), 0) AS occurrences,\n"
    "  max(s.last_run_id) AS last_run_id, max(s.last_seen) AS last_seen,\n"
    "  CASE WHEN sum(s.status = 'open') > 0 THEN 'open' ELSE 'fixed' END AS status,\n"
    "  group_concat(DISTINCT s.variant) AS variants, group_concat(DISTINCT s.dtype) AS dtypes\n"
    "FROM bugs b LEFT JOIN signatures s ON s.bug_id = b.id GROUP BY b.id;\n",
    /* ---- end of 3 -> 4 ---------------------------------------------- */
    /* ---- 4 -> 5: the sandbox (issue 13) ------------------------------
     * The layers of the worker's sandbox in force for the run, as
     * worker_describe_layers names them; NULL: not recorded (older runs,
     * merged runs). */
    "ALTER TABLE runs ADD COLUMN sandbox TEXT;\n",
    /* ---- end of 4 -> 5 ---------------------------------------------- */
    /* ---- 5 -> 6: data offsets (issue 14) ----------------------------
     * reproducers.data_offsets: where the
     * case placed the data of A, B and C ("a=3 b=17 c=42", as a case
     * file's `offsets:` writes it; '' the default placement);
     * coverage.alignments: the offsets from a 64-byte line at which the
     * claim's cases placed A, B and C. */
    ("ALTER TABLE reproducers ADD COLUMN data_offsets TEXT NOT NULL DEFAULT '';\n"
     "ALTER TABLE coverage ADD COLUMN alignments TEXT NOT NULL DEFAULT '';\n"),
    /* ---- end of 5 -> 6 ---------------------------------------------- */
    /* ---- 6 -> 7: regression ranges (issue 30) ------------------------
     * signature_ranges: where `divergence bisect` found a signature come
     * in ('regression') and go away ('fixed') in a series of builds of
     * its implementation: the last build before the change (NULL: the
     * change lies before the first build of the series) and the first
     * build after it, with the series' length, the replays it took and
     * whether the replays saw the signature come and go more than once.
     * One row per (signature, kind): a later bisection replaces it. */
    "CREATE TABLE signature_ranges(\n"
    "  signature_id INTEGER NOT NULL REFERENCES signatures(id),\n"
    "  kind TEXT NOT NULL CHECK (kind IN ('regression', 'fixed')),\n"
    "  before_build_id INTEGER REFERENCES plugin_builds(id),\n"
    "  after_build_id INTEGER NOT NULL REFERENCES plugin_builds(id),\n"
    "  builds INTEGER NOT NULL,\n"
    "  replays INTEGER NOT NULL,\n"
    "  monotonic INTEGER NOT NULL DEFAULT 1,\n"
    "  note TEXT NOT NULL DEFAULT '',\n"
    "  recorded_at TEXT NOT NULL,\n"
    "  PRIMARY KEY (signature_id, kind)\n"
    ") WITHOUT ROWID;\n"
    "CREATE VIEW v_signature_ranges AS\n"
    "SELECT g.signature_id, s.implementation, s.variant, s.dtype, s.class, s.operand_class,\n"
    "  s.status, g.kind, g.before_build_id, b.version AS before_version,\n"
    "  b.sha256 AS before_sha256, g.after_build_id, a.version AS after_version,\n"
    "  a.sha256 AS after_sha256, g.builds, g.replays, g.monotonic, g.note, g.recorded_at\n"
    "FROM signature_ranges g JOIN signatures s ON s.id = g.signature_id\n"
    "  LEFT JOIN plugin_builds b ON b.id = g.before_build_id\n"
    "  JOIN plugin_builds a ON a.id = g.after_build_id;\n",
    /* ---- end of 6 -> 7 ---------------------------------------------- */
    /* ---- 7 -> 8: call history (issue 26) -----------------------------
     * reproducers.calls_before: the calls a worker must make before the
     * case for the departure to show (a finding of class
     * depends-on-earlier-calls: alone the case conforms), as the text of a
     * case file (casefile_write), one case per earlier call in their
     * order; '' for a reproducer that shows alone. */
    "ALTER TABLE reproducers ADD COLUMN calls_before TEXT NOT NULL DEFAULT '';\n",
    /* ---- end of 7 -> 8 ---------------------------------------------- */
    /* ---- 8 -> 9: interrupted runs (issue 34) -------------------------
     * runs.status 'interrupted': a run stopped by SIGINT, SIGTERM or
     * SIGHUP that stored what it held (harness/base/interrupt.h). The
     * CHECK of runs.status only widens, so no stored row can break it:
     * SQLite's documented way for that is to edit the table's text in
     * sqlite_schema (lang_altertable.html, "other kinds of table schema
     * changes"), where rebuilding runs would have to drop and recreate
     * every table and view that names it. */
    "PRAGMA writable_schema = ON;\n"
    "UPDATE sqlite_schema SET sql = replace(sql,\n"
    "    '(''running'', ''complete'', ''incomplete'')',\n"
    "    '(''running'', ''complete'', ''incomplete'', ''interrupted'')')\n"
    "  WHERE type = 'table' AND name = 'runs';\n"
    "PRAGMA writable_schema = RESET;\n",
    /* ---- end of 8 -> 9 ---------------------------------------------- */
    /* ---- 9 -> 10: a signature's life (issue 34) ----------------------
     * signature_events: each change of a signature's state, with the run
     * that made it and that run's build of the implementation: 'new'
     * (first seen), 'fixed' (its claim certified by a run that did not
     * see it), 'reopened' (seen again by a run after it was fixed).
     * signatures.reopened_run_id: the run that last reopened it (NULL:
     * never). Older files get their 'new' and 'fixed' events from
     * first_run_id and fixed_run_id; a reopening before version 10 left
     * no trace to read back. */
    "CREATE TABLE signature_events(\n"
    "  signature_id INTEGER NOT NULL REFERENCES signatures(id),\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id),\n"
    "  build_id INTEGER REFERENCES plugin_builds(id),\n"
    "  kind TEXT NOT NULL CHECK (kind IN ('new', 'fixed', 'reopened')),\n"
    "  recorded_at TEXT NOT NULL,\n"
    "  PRIMARY KEY (signature_id, run_id, kind)\n"
    ") WITHOUT ROWID;\n"
    "CREATE INDEX signature_events_run ON signature_events(run_id);\n"
    "ALTER TABLE signatures ADD COLUMN reopened_run_id INTEGER REFERENCES runs(id);\n"
    "INSERT OR IGNORE INTO signature_events(signature_id, run_id, build_id, kind, recorded_at)\n"
    "  SELECT s.id, s.first_run_id, " STORE_SQL_RUN_BUILD("s.first_run_id", "s.implementation")
    ", 'new', s.first_seen FROM signatures s;\n"
    "INSERT OR IGNORE INTO signature_events(signature_id, run_id, build_id, kind, recorded_at)\n"
    "  SELECT s.id, s.fixed_run_id, " STORE_SQL_RUN_BUILD("s.fixed_run_id", "s.implementation")
    ", 'fixed', coalesce((SELECT r.finished_at FROM runs r WHERE r.id = s.fixed_run_id),"
    " s.last_seen) FROM signatures s WHERE s.fixed_run_id IS NOT NULL;\n"
    "CREATE VIEW v_signature_events AS\n"
    "SELECT e.signature_id, s.implementation, s.variant, s.dtype, s.class, s.operand_class,\n"
    "  e.kind, e.run_id, e.build_id, b.version, b.sha256, e.recorded_at\n"
    "FROM signature_events e JOIN signatures s ON s.id = e.signature_id\n"
    "  LEFT JOIN plugin_builds b ON b.id = e.build_id;\n",
    /* ---- end of 9 -> 10 --------------------------------------------- */
};
#define SCHEMA_VERSION ((int)(sizeof migrations / sizeof migrations[0]))

int store_schema_version(void)
{
    return SCHEMA_VERSION;
}

/* A database at user_version 0 must hold nothing yet: otherwise it
 * belongs to another program. */
int store_check_foreign(store *s)
{
    int64_t objects = 0;
    if (store_read_int(s, SQL_OTHER_TABLES, &objects))
        return -1;
    if (objects > 0)
        return store_fail(s, "not a Divergence database (user_version 0, but it holds %" PRId64
                             " schema objects of another program)",
                          objects);
    return 0;
}

int store_migrate(store *s, int64_t *version)
{
    char sql[64];
    int64_t v;
    s->op = "migrate";
    if (store_exec(s, "BEGIN IMMEDIATE"))
        return -1;
    if (store_read_int(s, SQL_USER_VERSION, &v))
        goto fail;
    if (v > SCHEMA_VERSION) {
        store_fail(s, "schema version %" PRId64 " is newer than this divergence knows (%d)", v,
                   SCHEMA_VERSION);
        goto fail;
    }
    if (v == 0 && store_check_foreign(s))
        goto fail;
    for (; v < SCHEMA_VERSION; v++) {
        if (sqlite3_exec(s->db, migrations[v], NULL, NULL, NULL) != SQLITE_OK) {
            store_fail(s, "schema version %" PRId64 " to %" PRId64 ": %s", v, v + 1,
                       sqlite3_errmsg(s->db));
            goto fail;
        }
        snprintf(sql, sizeof sql, "PRAGMA user_version = %d", (int)(v + 1));
        if (store_exec(s, sql))
            goto fail;
    }
    if (store_exec(s, "COMMIT"))
        goto fail;
    *version = v;
    return 0;
fail:
    store_exec_quiet(s, "ROLLBACK");
    return -1;
}

/* ------------------------------------------------------------------------
 * The read views (store.h, "Reading"): what code outside the store reads
 * instead of the tables. TEMP views, created on every connection by
 * store_open, so they are no part of the file and its schema version;
 * SQLite resolves them when they are used, so a file of an older schema
 * opened by store_check lacks only the views of its missing tables.
 * ---------------------------------------------------------------------- */
static const char *const read_views =
    "CREATE TEMP VIEW read_runs AS SELECT id, kind, status, started_at, finished_at, profile,"
    "  host, pid, process_tag, cpu_features, build_flags, divergence_version, seed,"
    "  shard_index, shard_count, args FROM main.runs;\n"
    "CREATE TEMP VIEW read_run_sandbox AS SELECT id AS run_id, sandbox FROM main.runs;\n"
    "CREATE TEMP VIEW read_run_shards AS SELECT run_id, shard_index, shard_count, campaign,"
    "  status, started_at, finished_at, host, pid, process_tag, cpu_features, args"
    "  FROM main.run_shards;\n"
    "CREATE TEMP VIEW read_plugin_builds AS SELECT id, name, version, sha256, path, first_seen"
    "  FROM main.plugin_builds;\n"
    "CREATE TEMP VIEW read_run_plugins AS SELECT run_id, plugin_build_id FROM main.run_plugins;\n"
    "CREATE TEMP VIEW read_counts AS SELECT run_id, implementation, variant, dtype, class,"
    "  elements, cases FROM main.counts;\n"
    "CREATE TEMP VIEW read_certificates AS SELECT run_id, implementation, variant, dtype,"
    "  verdict, profile, cases, elements, recorded_at FROM main.certificates;\n"
    "CREATE TEMP VIEW read_ulp_histograms AS SELECT run_id, implementation, variant, dtype,"
    "  bucket, elements FROM main.ulp_histograms;\n"
    "CREATE TEMP VIEW read_signatures AS SELECT id, implementation, variant, dtype, class,"
    "  operand_class, first_run_id, last_run_id, first_seen, last_seen, status, fixed_run_id,"
    "  occurrences, reproducers_dropped, bug_id, reopened_run_id FROM main.signatures;\n"
    "CREATE TEMP VIEW read_bugs AS SELECT id, implementation, class, kind, locus,"
    "  first_run_id, first_seen FROM main.bugs;\n"
    "CREATE TEMP VIEW read_coverage AS SELECT run_id, implementation, variant, dtype, cases,"
    "  ranks, inner_sizes, broadcast_classes, size_tiers, paths, alignments"
    "  FROM main.coverage;\n"
    "CREATE TEMP VIEW read_signature_runs AS SELECT signature_id, run_id, occurrences"
    "  FROM main.signature_runs;\n"
    "CREATE TEMP VIEW read_reproducers AS SELECT id, signature_id, run_id, recorded_at,"
    "  case_id, source, variant, dtype, attrs, attr_broadcast, attr_axis_set, attr_axis,"
    "  attr_pythondiv, attr_auto_broadcast, attr_int_rounding, a_shape, b_shape, a, b,"
    "  element, expected, actual, ulps, note, data_offsets, calls_before FROM main.reproducers;\n"
    "CREATE TEMP VIEW read_signature_events AS SELECT signature_id, run_id, build_id, kind,"
    "  recorded_at FROM main.signature_events;\n"
    "CREATE TEMP VIEW read_signature_ranges AS SELECT signature_id, kind, before_build_id,"
    "  after_build_id, builds, replays, monotonic, note, recorded_at"
    "  FROM main.signature_ranges;\n";

int store_create_read_views(store *s)
{
    return store_exec(s, read_views);
}
