#!/bin/sh
# SPDX-License-Identifier: MIT
# Every earlier schema version (fixtures/schema-v*.sql) is checked,
# migrated, merged and reported by this version; a newer one is refused
# and left untouched.
# Usage: test_db_migrate.sh DIVERGENCE PLUGIN_DIR SOURCE_DIR
set -u
. "$3/lib.sh"
need sqlite3

cd "$tmp" || exit 1
latest=$(sed -n 's/.*bring files to schema version \([0-9]*\).*/\1/p' <<EOF2
$("$D" db --help)
EOF2
)
check "db --help names the schema version ($latest)" [ -n "$latest" ]
for f in "$S"/fixtures/schema-v*.sql; do
    v=$(basename "$f" .sql | sed 's/schema-v//')
    sqlite3 "v$v.db" <"$f"
    check "fixture $v loads" [ "$(sqlite3 "v$v.db" 'PRAGMA user_version')" = "$v" ]
    cp "v$v.db" "v$v-copy.db"
    "$D" db check "v$v.db" >check.out 2>&1
    rc=$?
    before=$(sha256sum <"v$v-copy.db")
    "$D" db merge "m$v.db" "v$v-copy.db" >merge.out 2>&1
    mrc=$?
    if [ "$v" = 0 ]; then
        # Version 0 is a file without a schema yet: what a writer starts
        # from, but nothing to check, read or merge (issue 13).
        check "db check of version 0 fails: $(cat check.out)" [ $rc -eq 1 ]
        check "db check of version 0 says why" grep -q 'not a Divergence database' check.out
        check "merge of version 0 is refused: $(cat merge.out)" [ $mrc -eq 2 ]
        check "and writes nothing" [ ! -e "m$v.db" ]
    else
        check "db check of version $v: $(cat check.out)" grep -q "ok, schema version $v" check.out
        # Merging reads an older file without changing it.
        check "merge of version $v: $(cat merge.out)" [ $mrc -eq 0 ]
    fi
    check "the merged input is unchanged" [ "$(sha256sum <"v$v-copy.db")" = "$before" ]
    "$D" db migrate "v$v.db" >migrate.out 2>&1
    check "db migrate of version $v: $(cat migrate.out)" grep -q "schema version $v -> $latest" migrate.out
    "$D" db check "v$v.db" >check.out 2>&1
    check "db check after migration: $(cat check.out)" grep -q "ok, schema version $latest\$" check.out
    check "integrity after migration" [ "$(sqlite3 "v$v.db" 'PRAGMA integrity_check')" = ok ]
    # schema 9: a run may be 'interrupted' (the CHECK widened in place)
    if [ "$v" != 0 ]; then
        check "version $v migrated takes an interrupted run" sqlite3 "v$v.db" \
            "UPDATE runs SET status = 'interrupted' WHERE id = (SELECT min(id) FROM runs)"
        check "and still refuses another status" [ -n "$(sqlite3 "v$v.db" \
            "UPDATE runs SET status = 'paused' WHERE id = 1" 2>&1)" ]
        "$D" report --db "v$v.db" --format junit -o "i$v.xml" --run "$(sqlite3 "v$v.db" 'SELECT min(id) FROM runs')" 2>err.txt
        check "the interrupted run's JUnit of version $v has its error: $(cat err.txt)" grep -q 'errors="1"' "i$v.xml"
        sqlite3 "v$v.db" "UPDATE runs SET status = 'complete' WHERE id = (SELECT min(id) FROM runs)"
    fi
done
# The version-8 fixture's killed run (status 'incomplete') is still one --resume takes up.
check "v8's incomplete run stays incomplete" [ "$(sqlite3 v8.db 'SELECT status FROM runs WHERE id = 2')" = incomplete ]

# What the schema-1 fixture holds after the migration.
check "every signature has its runs" [ "$(sqlite3 v1.db 'SELECT count(DISTINCT signature_id) FROM signature_runs')" -eq \
    "$(sqlite3 v1.db 'SELECT count(*) FROM signatures')" ]
check "floor_not_trunc's 12 findings are fixed by run 4 (its 0.2.0)" [ "$(sqlite3 v1.db \
    "SELECT count(*) FROM signatures WHERE implementation = 'divergence-mutant-floor_not_trunc' AND status = 'fixed' AND fixed_run_id = 4")" -eq 12 ]
check "recip_mul's findings stay open" [ "$(sqlite3 v1.db \
    "SELECT count(*) FROM signatures WHERE implementation = 'divergence-mutant-recip_mul' AND status <> 'open'")" -eq 0 ]
"$D" query --db v1.db --json fixed --since 1 >fixed.json 2>err.txt
check "query fixed on the migrated file" "$PY" -c \
    "import json; j = json.load(open('fixed.json')); assert len(j['fixed']) == 12 and {r['fixed_version'] for r in j['fixed']} == {'0.2.0'}"
for f in html junit md json; do
    "$D" report --db v1.db --run 1 --format $f -o "r1.$f" 2>err.txt
    check "report --format $f of a migrated run: $(cat err.txt)" [ $? -eq 0 ]
done
# Version 4 groups the signatures of older files into bugs (docs/store.md).
check "every signature has a bug after migration" [ "$(sqlite3 v3.db \
    'SELECT count(*) FROM signatures WHERE bug_id IS NULL')" -eq 0 ]
check "schema 3: certify's and sweep's floor-vs-trunc signatures are one bug, the broadcast mutant's another" \
    [ "$(sqlite3 v3.db "SELECT group_concat(implementation || ':' || class || ':' || locus, ' ') FROM \
    (SELECT * FROM v_bugs ORDER BY implementation)")" = \
    "divergence-mutant-bcast_ignores_a1:value:broadcast divergence-mutant-floor_not_trunc:floor-vs-trunc:elementwise" ]
# Version 5 adds data offsets: older reproducers keep the default placement.
check "schema 4: the reproducers have the default placement after migration" [ "$(sqlite3 v4.db \
    "SELECT count(*) FROM reproducers WHERE data_offsets = ''")" -eq 23 ]
"$D" replay --db v4.db repro:1 >replay.out 2>&1
check "a reproducer of schema 4 replays after migration: $(tail -2 replay.out)" \
    grep -q 'floor-vs-trunc' replay.out
check "schema 1: every signature has a bug" [ "$(sqlite3 v1.db \
    'SELECT count(*) FROM signatures WHERE bug_id IS NULL')" -eq 0 ]
check "the merged copy of schema 3 groups the same" [ "$(sqlite3 m3.db \
    "SELECT group_concat(class || ':' || signatures, ' ') FROM (SELECT * FROM v_bugs ORDER BY class)")" = \
    "$(sqlite3 v3.db "SELECT group_concat(class || ':' || signatures, ' ') FROM (SELECT * FROM v_bugs ORDER BY class)")" ]
check "the merged copy has the 4 runs" [ "$(sqlite3 m1.db 'SELECT count(*) FROM runs')" -eq 4 ]
"$PY" "$S/check_merge.py" v1.db 2 m1.db 2 >cm.out
check "merged from schema 1 = migrated: $(cat cm.out)" [ $? -eq 0 ]
# Reading commands never migrate (issue 13): an unmigrated file is read
# through a migrated copy and left as it was; the first command that
# writes migrates it.
before=$(sha256sum <v1-copy.db)
"$D" query --db v1-copy.db runs >runs.txt 2>err.txt
check "query on an unmigrated file: $(cat err.txt)" [ $? -eq 0 ]
check "query answers from it" grep -q certify runs.txt
"$D" report --db v1-copy.db --run 1 --format md -o r1-copy.md 2>err.txt
check "report on an unmigrated file: $(cat err.txt)" [ $? -eq 0 ]
"$D" query --db v1.db runs >runs-migrated.txt 2>err.txt
check "the same answer as from the migrated file" cmp -s runs.txt runs-migrated.txt
sed 's/v1-copy\.db/v1.db/g' r1-copy.md >r1-copy-renamed.md
check "the same report as from the migrated file" cmp -s r1-copy-renamed.md r1.md
check "query and report leave it unmigrated" [ "$(sqlite3 v1-copy.db 'PRAGMA user_version')" = 1 ]
check "and unchanged" [ "$(sha256sum <v1-copy.db)" = "$before" ]

# A newer schema is refused by every command and never changed.
sqlite3 v99.db "PRAGMA user_version = 99"
before=$(sha256sum <v99.db)
"$D" db check v99.db >/dev/null 2>&1
check "db check of a newer schema: exit 1" [ $? -eq 1 ]
"$D" db migrate v99.db >/dev/null 2>&1
check "db migrate of a newer schema: exit 2" [ $? -eq 2 ]
"$D" db merge m99.db v99.db >merge.out 2>&1
check "db merge of a newer schema: exit 2" [ $? -eq 2 ]
check "it says why" grep -q 'schema version 99 is newer' merge.out
"$D" report --db v99.db --run 1 -o x.html >/dev/null 2>&1
check "report of a newer schema: exit 2" [ $? -eq 2 ]
check "the newer file is unchanged" [ "$(sha256sum <v99.db)" = "$before" ]
printf 'not a database at all, just text that is long enough to look like a header.....\n' >junk.db
"$D" db merge m-junk.db junk.db >/dev/null 2>&1
check "db merge of a file that is no database: exit 2" [ $? -eq 2 ]
finish
