#!/bin/sh
# SPDX-License-Identifier: MIT
# Two certifications and two fuzz campaigns write one database at the same
# time. The certifications judge a slow plugin (30 ms a call), so one
# claim takes longer than the store's busy timeout (10 s): a claim's
# findings are recorded in one short transaction at its end, so no writer
# waits for a whole claim. All four must finish (exit 0 or 1) with all
# their rows: every claim's certificate, every fuzz case counted, every
# run complete, the file sound.
# Usage: test_concurrent.sh DIVERGENCE SLOW_PLUGIN FINDING_PLUGIN REFERENCE
set -u
D=$1 SLOW=$2 FIND=$3 REF=$4
. "$(dirname "$0")/../lib.sh"
db=$tmp/shared.db
"$D" certify --plugin "$REF" --db "$db" --variant onnx-div-14 --dtype i8 --random 5 --no-progress >/dev/null

start=$(date +%s)
"$D" certify --plugin "$SLOW" --db "$db" --variant onnx-div-13 --dtype i32 --random 220 \
    --no-progress >"$tmp/a.out" 2>&1 &
a=$!
"$D" certify --plugin "$SLOW" --db "$db" --variant onnx-div-13 --dtype f32 --random 100 \
    --no-progress >"$tmp/b.out" 2>&1 &
b=$!
sleep 1
"$D" fuzz --plugin "$FIND" --db "$db" --seconds 0 --cases 40000 --jobs 1 --no-progress \
    >"$tmp/c.out" 2>&1 &
c=$!
"$D" fuzz --plugin "$REF" --db "$db" --seconds 0 --cases 40000 --jobs 1 --no-progress \
    >"$tmp/d.out" 2>&1 &
d=$!
for p in a b c d; do
    eval "pid=\$$p"
    wait "$pid"
    rc=$?
    [ $rc -le 1 ] && ok || { bad "writer $p: exit $rc"; cat "$tmp/$p.out" >&2; }
done
took=$(($(date +%s) - start))
echo "four writers on one database: $took s"
[ $took -ge 11 ] && ok || bad "the slow claims took only $took s: no claim outlasted the busy timeout"

n=$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE status = 'complete'")
[ "$n" = 5 ] && ok || bad "$n complete runs, want 5"
n=$(sqlite3 "$db" "SELECT count(*) FROM certificates c JOIN runs r ON r.id = c.run_id WHERE r.kind = 'certify'")
[ "$n" = 3 ] && ok || bad "$n certificates, want 3"
n=$(sqlite3 "$db" "SELECT sum(cases) FROM counts c JOIN runs r ON r.id = c.run_id WHERE r.kind = 'fuzz' AND c.class = 'match'")
[ "$n" = 80000 ] && ok || bad "$n fuzz cases counted, want 80000"
n=$(sqlite3 "$db" "SELECT count(*) FROM signature_runs g JOIN runs r ON r.id = g.run_id WHERE r.kind = 'fuzz'")
[ "$n" -gt 0 ] && ok || bad "the fuzz campaign with findings recorded none"
"$D" db check "$db" >"$tmp/check" 2>&1 && ok || bad "db check: $(cat "$tmp/check")"
finish
