#!/bin/sh
# SPDX-License-Identifier: MIT
# The store against its own inputs (issue 13), one check per defect:
#  1. report -o PATH replaces only a regular file or a new path: a FIFO,
#     a symbolic link (and its target), a device, a directory are refused
#     with exit 2 naming PATH and left as they were; a missing folder is
#     named, not the temporary file; no temporary file is left behind.
#  2. db merge gives its inputs the full integrity_check: an input whose
#     index disagrees with its table (passes quick_check) is refused and
#     nothing is written.
#  3. One check decides for `db check` and for every open: certify and
#     fuzz refuse a database `db check` reports FAILED, unchanged; query,
#     report and replay refuse to read it (exit 2, "damaged").
#  4. db check of a 0-byte file and of /dev/null is no "ok"; reading
#     commands (query, report, db check) never create a schema.
#  6. counts.cases of a certify run is the number of cases in which the
#     class occurred (docs/store.md), never 0 for a class that occurred.
#  7. An unknown last option is called unknown (not "needs a value") by
#     every command; --db "" says the path is empty.
# (5, the file size limit, is tests/crash/test_file_size_limit.sh.)
# Usage: test_store_defects.sh DIVERGENCE PLUGIN_DIR MUTANT
set -u
D=$1 P=$2/reference.so M=$3
. "$(dirname "$0")/../lib.sh"
cd "$tmp" || exit 1
A="--variant onnx-div-13 --dtype i32 --random 2 --no-progress"
"$D" certify --plugin "$P" $A --db good.db >/dev/null 2>&1 || bad "making good.db"
sqlite3 good.db 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null

# ---- 1. report -o PATH ------------------------------------------------------
report() { "$D" report --db good.db --run 1 --format md -o "$@" >out 2>err; }
mkfifo fifo
printf 'keep me\n' >target.txt
ln -s target.txt link.md
mkdir dir.md
# A device node of our own (never /dev/null itself: a report that
# replaced it would break the machine): as root, a copy of /dev/null.
devs=
if mknod dev.md c 1 3 2>/dev/null; then devs=dev.md; else echo "NOTE: mknod refused: no device node checked"; fi
for p in fifo link.md dir.md $devs; do
    report "$p"
    rc=$?
    check "report -o $p: exit $rc (want 2): $(cat err)" [ $rc -eq 2 ]
    check "report -o $p names it: $(cat err)" grep -qF -- "$p" err
done
check "the FIFO is still a FIFO" [ -p fifo ]
check "the link is still a link" [ -L link.md ]
check "its target is unchanged" [ "$(cat target.txt)" = "keep me" ]
check "the directory is still one" [ -d dir.md ]
[ -z "$devs" ] || check "the device node is still one" [ -c dev.md ]
report "$tmp/no/such/dir/x.md"
rc=$?
check "report -o into a missing folder: exit $rc" [ $rc -eq 2 ]
check "names PATH's folder: $(cat err)" grep -qF "$tmp/no/such/dir:" err
check "not the temporary file: $(cat err)" sh -c '! grep -q "\.tmp" err'
report new.md
check "report -o a new path: $(cat err)" [ $? -eq 0 ] && [ -s new.md ]
printf 'old\n' >old.md
report old.md
check "report -o over a regular file: $(cat err)" [ $? -eq 0 ] && ! grep -q '^old$' old.md
check "no temporary file is left: $(ls)" [ -z "$(ls | grep '\.tmp')" ]

# ---- 2. db merge: the full integrity_check on its inputs ---------------------
# The index runs_status is redefined over another column: its entries no
# longer match the table. quick_check does not see it; integrity_check does.
cp good.db badindex.db
sqlite3 badindex.db "PRAGMA writable_schema = ON;
  UPDATE sqlite_schema SET sql = 'CREATE INDEX runs_status ON runs(kind)' WHERE name = 'runs_status';"
check "the damaged input passes quick_check" [ "$(sqlite3 badindex.db 'PRAGMA quick_check')" = ok ]
check "and fails integrity_check" [ "$(sqlite3 badindex.db 'PRAGMA integrity_check')" != ok ]
before=$(sha256sum <badindex.db)
"$D" db merge merged.db badindex.db >out 2>err
rc=$?
check "db merge of a damaged input: exit $rc (want 2): $(cat err)" [ $rc -eq 2 ]
check "it says why: $(cat err)" grep -q 'badindex.db: .*damaged.*runs_status' err
check "nothing is written: merged.db does not exist" [ ! -e merged.db ]
cp good.db merged2.db
sqlite3 merged2.db 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
out_before=$(sha256sum <merged2.db)
"$D" db merge merged2.db badindex.db >out 2>err
check "db merge into an existing database: exit 2" [ $? -eq 2 ]
check "the existing database is unchanged" [ "$(sha256sum <merged2.db)" = "$out_before" ]
check "the input is unchanged" [ "$(sha256sum <badindex.db)" = "$before" ]

# ---- 3. one check for `db check` and a writer's open ------------------------
"$D" db check badindex.db >out 2>&1
check "db check reports the damaged file FAILED: $(cat out)" grep -q FAILED out
for cmd in certify fuzz; do
    if [ $cmd = certify ]; then set -- certify --plugin "$P" $A; else set -- fuzz --plugin "$P" --seconds 0 --cases 10 --no-progress; fi
    "$D" "$@" --db badindex.db >out 2>err
    rc=$?
    check "$cmd into a database db check reports FAILED: exit $rc (want 2): $(cat err)" [ $rc -eq 2 ]
    check "$cmd says it is damaged: $(cat err)" grep -q 'badindex.db: .*damaged' err
    check "$cmd wrote nothing" [ "$(sha256sum <badindex.db)" = "$before" ]
done
# Readers too (issue 34): query and report answer from no damaged file.
for q in "query --db badindex.db runs" "query --db badindex.db history sig:1" \
    "report --db badindex.db --run 1 --format json" "replay --db badindex.db sig:1"; do
    # shellcheck disable=SC2086 # the words of the command
    "$D" $q >out 2>err
    rc=$?
    check "$q on a damaged database: exit $rc (want 2): $(cat out err)" [ $rc -eq 2 ]
    check "$q says it is damaged: $(cat err)" grep -q 'badindex.db: .*damaged' err
done
check "the readers wrote nothing" [ "$(sha256sum <badindex.db)" = "$before" ]

# ---- 4. empty files, devices; reading never creates --------------------------
: >empty.db
"$D" db check empty.db >out 2>&1
rc=$?
check "db check of a 0-byte file: exit $rc (want 1): $(cat out)" [ $rc -eq 1 ]
check "says it is empty: $(cat out)" grep -q 'empty.db: .*empty.*not a Divergence database' out
"$D" db check /dev/null >out 2>&1
rc=$?
check "db check of /dev/null: exit $rc (want non-zero): $(cat out)" [ $rc -ne 0 ]
check "says it is not a regular file: $(cat out)" grep -q 'not a regular file' out
for q in runs "new --since 0" "fixed --since 0"; do
    "$D" query --db empty.db $q >out 2>err
    check "query $q on a 0-byte file: exit 2: $(cat err)" [ $? -eq 2 ]
done
"$D" report --db empty.db --run 1 --format md -o r.md >out 2>err
check "report on a 0-byte file: exit 2: $(cat err)" [ $? -eq 2 ]
check "the 0-byte file stays 0 bytes" [ ! -s empty.db ]
check "no side files: $(ls empty.db*)" [ "$(ls empty.db*)" = empty.db ]

# ---- 6. counts.cases: the cases in which the class occurred -----------------
"$D" certify --plugin "$M" --variant onnx-div-13 --dtype i32 --random 40 --no-progress --db counts.db >/dev/null 2>&1
run=$(sqlite3 counts.db "SELECT max(id) FROM runs WHERE kind = 'certify'")
n=$(sqlite3 counts.db "SELECT count(*) FROM counts WHERE run_id = $run AND class <> 'match'")
check "the mutant's certify run counts differences ($n classes)" [ "${n:-0}" -gt 0 ]
zero=$(sqlite3 counts.db "SELECT count(*) FROM counts WHERE run_id = $run AND class <> 'match' AND elements > 0 AND cases = 0")
check "no class that occurred has cases = 0 ($zero rows)" [ "$zero" = 0 ]
over=$(sqlite3 counts.db "SELECT count(*) FROM counts c WHERE run_id = $run AND class <> 'match' AND
  (cases > elements OR cases > (SELECT m.cases FROM counts m WHERE m.run_id = c.run_id AND m.class = 'match'
   AND m.implementation = c.implementation AND m.variant = c.variant AND m.dtype = c.dtype))")
check "cases <= elements and <= the cases judged ($over rows)" [ "$over" = 0 ]

# ---- 7. messages ----------------------------------------------------------------
last() { # PATTERN COMMAND...: exit 2, PATTERN on stderr, no "needs a value"
    pattern=$1; shift
    "$D" "$@" >out 2>err </dev/null
    rc=$?
    if [ $rc -eq 2 ] && grep -q -- "$pattern" err && ! grep -q 'needs a value' err; then ok; else
        bad "divergence $*: exit $rc: $(head -c 300 err)"
    fi
}
for c in "certify --plugin $P" "fuzz --plugin $P" "sweep --plugin $P" "import --plugin $P" \
         "report --run 1" "query runs" "onnx-tests $tmp" "db check good.db"; do
    last "unknown option '--frobnicate'" $c --frobnicate
done
last "empty path" certify --plugin "$P" $A --db ""
last "empty path" query --db "" runs
check "no 'no output pointer' wording: $(cat err)" sh -c '! grep -q "output pointer" err'

finish
