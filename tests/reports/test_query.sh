#!/bin/sh
# SPDX-License-Identifier: MIT
# Findings across plugin versions under one name (fixcheck-div): the
# version that floors (1.0) then the fixed one (2.0) shows the findings
# under `fixed`; the fixed one then the broken one again (3.0) shows them
# under `new` and `regressions`. history and diff tell the same story.
# Usage: test_query.sh DIVERGENCE PLUGIN_DIR SOURCE_DIR
set -u
. "$3/lib.sh"
need sqlite3

cd "$tmp" || exit 1
certify() { # DB PLUGIN WANT_RC
    "$D" certify --plugin "$P/plugin_$2.so" --variant onnx-div-14 --variant openvino-divide-1 \
        --dtype i16 --dtype i32 --random 20 --seed 9 --db "$1" --no-progress --cases "" >"$1.$2.out" 2>&1
    rc=$?
    check "certify $2 into $1: exit $rc, want $3" [ $rc -eq "$3" ]
}
# q DB OUT ARGS...: the query as JSON into OUT.json and as a table into OUT.txt
q() {
    db=$1 out=$2; shift 2
    "$D" query --db "$db" --json "$@" >"$out.json" 2>"$out.err"
    check "query --json $*: $(cat "$out.err")" [ $? -eq 0 ]
    "$D" query --db "$db" "$@" >"$out.txt" 2>"$out.err"
    check "query $*: $(cat "$out.err")" [ $? -eq 0 ]
}
# js FILE EXPRESSION: a Python expression over the parsed JSON (as j) holds
js() {
    "$PY" -c "import json, sys; j = json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"
}

# 1. Broken (1.0), then fixed (2.0).
certify fix.db fix_v1 1
certify fix.db fix_v2 0
n=$(sqlite3 fix.db "SELECT count(*) FROM signatures")
check "version 1.0 has findings ($n)" [ "$n" -gt 0 ]
q fix.db fixed fixed --since 1
check "fixed --since 1 lists all $n findings, fixed by run 2 in 2.0" js fixed.json \
    "len(j['fixed']) == $n and all(r['fixed_by_run'] == 2 and r['fixed_version'] == '2.0' and r['last_version'] == '1.0' and r['class'] == 'floor-vs-trunc' for r in j['fixed'])"
check "the table shows them too" grep -q 'floor-vs-trunc.*2\.0' fixed.txt
q fix.db new new --since 1
check "nothing new since run 1" js new.json "j['new'] == []"
check "the empty table says (none)" grep -qx '(none)' new.txt
q fix.db reg regressions --plugin fixcheck-div
check "no regression from 1.0 to 2.0" js reg.json "j['regressions'] == []"
q fix.db hist history sig:1
check "history: seen in run 1 (1.0, NONCONFORMANT), absent in run 2 (2.0, CONFORMANT)" js hist.json \
    "[(r['run'], r['version'], r['verdict'], r['finding']) for r in j['runs']] == [(1, '1.0', 'NONCONFORMANT', 'seen'), (2, '2.0', 'CONFORMANT', 'absent')] and j['signature'][0]['status'] == 'fixed'"
q fix.db diff diff 1 2
check "diff: every claim NONCONFORMANT -> CONFORMANT, every signature gone" js diff.json \
    "j['certificates'] and all(r['run1'] == 'NONCONFORMANT' and r['run2'] == 'CONFORMANT' for r in j['certificates']) and len(j['signatures']) == $n and all(r['change'] == 'gone' for r in j['signatures'])"
# An id that names nothing: exit 2, as report --run 999 and replay sig:999.
"$D" query --db fix.db history sig:999 >/dev/null 2>err.txt
check "history of a missing signature: exit 2" [ $? -eq 2 ]
check "it names the signature: $(cat err.txt)" grep -q 'no signature 999' err.txt
"$D" report --db fix.db --run 999 >/dev/null 2>err.txt
check "report of a missing run: exit 2" [ $? -eq 2 ]
"$D" replay --db fix.db sig:999 >/dev/null 2>err.txt
check "replay of a missing signature: exit 2" [ $? -eq 2 ]
"$D" query --db fix.db diff 1 99 >/dev/null 2>err.txt
check "diff with a missing run: exit 2" [ $? -eq 2 ]
# A bare number is refused, never guessed, as replay refuses it.
"$D" query --db fix.db history 1 >/dev/null 2>err.txt
check "history of a bare number: exit 2" [ $? -eq 2 ]
check "it names both forms: $(cat err.txt)" grep -q 'sig:' err.txt

# 2. Fixed (2.0), then broken again (3.0).
certify reg.db fix_v2 0
certify reg.db fix_v3 1
n=$(sqlite3 reg.db "SELECT count(*) FROM signatures")
q reg.db new2 new --since 1
check "new --since 1 lists all $n findings of 3.0" js new2.json \
    "len(j['new']) == $n and all(r['first_run'] == 2 and r['version'] == '3.0' for r in j['new'])"
q reg.db new3 new --since 1 --plugin no-such-plugin
check "new --plugin filters" js new3.json "j['new'] == []"
q reg.db reg2 regressions --plugin fixcheck-div
claims=$(sqlite3 reg.db "SELECT count(*) FROM certificates WHERE run_id = 2 AND verdict <> 'CONFORMANT'")
check "regressions: the $claims claims held in 2.0 and fail in 3.0" js reg2.json \
    "len(j['regressions']) == $claims and $claims > 0 and all(r['held_in'] == '2.0' and r['fails_in'] == '3.0' and r['held_run'] == 1 and r['failing_run'] == 2 and 'floor-vs-trunc' in r['classes'] and r['signatures'] for r in j['regressions'])"
check "the table names both versions" grep -q '2\.0.*3\.0' reg2.txt
q reg.db fixed2 fixed --since 1
check "nothing fixed since run 1" js fixed2.json "j['fixed'] == []"
q reg.db runs runs
check "runs lists both" js runs.json "[r['run'] for r in j['runs']] == [1, 2] and j['runs'][1]['new'] == $n"
"$D" query --db reg.db regressions >/dev/null 2>&1
check "regressions without --plugin: exit 2" [ $? -eq 2 ]
finish
