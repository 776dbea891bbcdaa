#!/bin/sh
# SPDX-License-Identifier: MIT
# certify --shard i/N and db merge: the two shard databases of a seed,
# merged, hold one run with the same counts, certificates, histograms,
# signatures and reproducers as the unsharded run of that seed. Merging is
# idempotent, keeps the shards' metadata, and merges into a database that
# already holds other runs.
# Usage: test_db_merge.sh DIVERGENCE PLUGIN_DIR SOURCE_DIR
set -u
. "$3/lib.sh"
need sqlite3

cd "$tmp" || exit 1
certify() { # DB EXTRA...
    db=$1; shift
    "$D" certify --plugin "$P/plugin_hostile.so" --variant onnx-div-7 --variant onnx-div-14 \
        --dtype f32 --dtype i16 --dtype i32 --dtype u32 --random 15 --seed 21 --db "$db" \
        --no-progress --cases "" "$@" >"$db.out" 2>&1
    echo $?
}
check "unsharded run exits 1" [ "$(certify full.db)" -eq 1 ]
check "shard 0/2 exits 1" [ "$(certify s0.db --shard 0/2)" -eq 1 ]
check "shard 1/2 exits 1" [ "$(certify s1.db --shard 1/2)" -eq 1 ]
check "shards split the claims" [ "$(sqlite3 s0.db 'SELECT count(*) FROM certificates')" -gt 0 ] \
    && [ "$(sqlite3 s1.db 'SELECT count(*) FROM certificates')" -gt 0 ]
check "shard 0 is recorded as 0/2" [ "$(sqlite3 s0.db 'SELECT shard_index || "/" || shard_count FROM runs')" = 0/2 ]
check "the header names the shard" grep -q ', shard 1/2, run 1' s1.db.out
check "shard 8/9 of the 7 claims holds none: exit 0" [ "$(certify s9.db --shard 8/9)" -eq 0 ]
"$D" certify --plugin "$P/plugin_hostile.so" --shard 2/2 --db bad.db >/dev/null 2>&1
check "--shard 2/2 is refused" [ $? -eq 2 ]

"$D" db merge merged.db s0.db s1.db >merge.out 2>&1
check "db merge: $(cat merge.out)" [ $? -eq 0 ]
check "one merged run" [ "$(sqlite3 merged.db 'SELECT count(*) FROM runs')" -eq 1 ]
check "the merged run: 2 shards, complete, shard_index NULL" [ "$(sqlite3 merged.db \
    "SELECT status || ' ' || shard_count || ' ' || coalesce(shard_index, 'null') || ' ' || (SELECT count(*) FROM run_shards) FROM runs")" = "complete 2 null 2" ]
"$PY" "$S/check_merge.py" full.db 1 merged.db 1
check "merged shards = the unsharded run" [ $? -eq 0 ]
"$D" db check merged.db >check.out 2>&1
check "db check merged.db: $(cat check.out)" [ $? -eq 0 ]

# Idempotent: merging a shard again adds nothing.
"$D" db merge merged.db s1.db >merge2.out 2>&1
check "merge again: $(cat merge2.out)" grep -q '1 runs merged before' merge2.out
"$PY" "$S/check_merge.py" full.db 1 merged.db 1 >/dev/null
check "merging again changes nothing" [ $? -eq 0 ]
# One shard at a time folds into the same run.
"$D" db merge stepwise.db s1.db >/dev/null 2>&1 && "$D" db merge stepwise.db s0.db >/dev/null 2>&1
check "stepwise merge" [ $? -eq 0 ]
"$PY" "$S/check_merge.py" full.db 1 stepwise.db 1 >/dev/null
check "shards merged one at a time = the unsharded run" [ $? -eq 0 ]
# A merged database merges into one that already holds runs.
cp full.db history.db
"$D" db merge history.db merged.db >merge3.out 2>&1
check "merge into history: $(cat merge3.out)" [ $? -eq 0 ]
check "history holds 2 runs" [ "$(sqlite3 history.db 'SELECT count(*) FROM runs')" -eq 2 ]
"$PY" "$S/check_merge.py" full.db 1 history.db 2 --run-only >check3.out
check "the merged run keeps its counts beside another run: $(cat check3.out)" [ $? -eq 0 ]
check "no duplicated signature" [ "$(sqlite3 history.db 'SELECT count(*) FROM signatures')" -eq \
    "$(sqlite3 full.db 'SELECT count(*) FROM signatures')" ]
check "occurrences added" [ "$(sqlite3 history.db 'SELECT sum(occurrences) FROM signatures')" -eq \
    "$(sqlite3 full.db 'SELECT 2 * sum(occurrences) FROM signatures')" ]
check "reproducers bounded at 8 per signature" [ "$(sqlite3 history.db \
    'SELECT max(n) FROM (SELECT count(*) AS n FROM reproducers GROUP BY signature_id)')" -le 8 ]
"$D" report --db merged.db --run 1 --format md -o merged.md 2>err.txt
check "report of the merged run: $(cat err.txt)" grep -q '2 of 2 shards merged (0, 1)' merged.md
"$D" db merge merged.db merged.db >/dev/null 2>&1
check "merging a file into itself is refused" [ $? -eq 2 ]
finish
