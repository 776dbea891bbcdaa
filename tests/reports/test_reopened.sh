#!/bin/sh
# SPDX-License-Identifier: MIT
# A signature's life, open -> fixed -> reopened (issue 34, part 1): one
# kernel name (fixcheck-div) certified as 1.0 (floors: findings), 2.0 (the
# bug fixed) and 3.0 (the bug back, the same signatures) into one
# database. Run 3 reopens what run 2 fixed, and every view says so:
# certify's summary counts new, reopened and fixed; `query new --since 2`
# and `query regressions` list the reopened ones; `query history` shows
# each transition with its run; the reports badge them; the store keeps
# the run and the build of each event.
# Usage: test_reopened.sh DIVERGENCE PLUGIN_DIR SOURCE_DIR
set -u
. "$3/lib.sh"
need sqlite3

cd "$tmp" || exit 1
certify() { # PLUGIN WANT_RC
    "$D" certify --plugin "$P/plugin_$1.so" --variant onnx-div-14 --dtype i32 --random 20 \
        --seed 9 --db r.db --no-progress --cases "" --shape-tier 0 --no-probes \
        --no-thread-counts --cpu native >"$1.out" 2>&1
    rc=$?
    check "certify $1: exit $rc, want $2: $(tail -2 "$1.out")" [ $rc -eq "$2" ]
}
js() {
    "$PY" -c "import json, sys; j = json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"
}

certify fix_v1 1
n=$(sqlite3 r.db "SELECT count(*) FROM signatures")
check "1.0 has findings ($n)" [ "$n" -gt 0 ]
check "run 1's summary: $n new" grep -q "finding signatures: $n new, 0 reopened, 0 fixed;" fix_v1.out
certify fix_v2 0
check "run 2's summary: $n fixed" grep -q "finding signatures: 0 new, 0 reopened, $n fixed;" fix_v2.out
certify fix_v3 1
check "run 3's summary: $n reopened, none new: $(grep 'finding signatures' fix_v3.out)" \
    grep -q "finding signatures: 0 new, $n reopened, 0 fixed;" fix_v3.out
check "the store: each signature reopened by run 3, open" [ "$(sqlite3 r.db \
    "SELECT count(*) FROM signatures WHERE reopened_run_id = 3 AND status = 'open'")" = "$n" ]
check "the events name the run and its build (3.0)" [ "$(sqlite3 r.db \
    "SELECT count(*) FROM signature_events e JOIN plugin_builds b ON b.id = e.build_id
     WHERE e.kind = 'reopened' AND e.run_id = 3 AND b.version = '3.0'")" = "$n" ]

"$D" query --db r.db --json new --since 2 >new.json 2>err.txt
check "query new --since 2 lists the $n reopened signatures: $(cat err.txt)" js new.json \
    "len(j['new']) == $n and all(r['change'] == 'reopened' and r['reopened_run'] == 3 for r in j['new'])"
"$D" query --db r.db new --since 2 >new.txt 2>&1
check "the table says reopened" grep -q reopened new.txt
"$D" query --db r.db --json regressions --plugin fixcheck-div >reg.json 2>err.txt
check "query regressions names the reopened signatures: $(cat err.txt)" js reg.json \
    "j['regressions'] and all(r['failing_run'] == 3 and r['held_run'] == 2 and r['reopened'] for r in j['regressions'])"
"$D" query --db r.db --json history sig:1 >hist.json 2>err.txt
check "query history shows new, fixed, reopened with their runs: $(cat err.txt)" js hist.json \
    "[(r['run'], r['change']) for r in j['runs']] == [(1, 'new'), (2, 'fixed'), (3, 'reopened')] and j['signature'][0]['reopened_by_run'] == 3"

"$D" report --db r.db --run 3 --format md -o r.md 2>err.txt
check "Markdown badges reopened: $(cat err.txt)" grep -q '(reopened: it was fixed)' r.md
"$D" report --db r.db --run 3 --format html -o r.html 2>err.txt
check "HTML badges reopened" grep -q 'class="badge reopened">reopened<' r.html
"$D" report --db r.db --run 3 --format json -o r.json 2>err.txt
check "JSON marks reopened" js r.json "j['findings'] and all(f['reopened'] and not f['new'] for f in j['findings'])"
"$D" report --db r.db --run 3 --format junit -o r.xml 2>err.txt
check "JUnit says reopened" grep -q 'reopened: it was fixed' r.xml

# every run keeps reproducers of its own; sig:N is the latest run's
check "run 3 keeps reproducers of its own for every signature it saw" [ "$(sqlite3 r.db \
    "SELECT count(*) FROM signatures s WHERE EXISTS (SELECT 1 FROM reproducers r
     WHERE r.signature_id = s.id AND r.run_id = 3)")" = "$n" ]
"$D" replay --db r.db sig:1 --plugin "$P/plugin_fix_v3.so" >rp3.txt 2>err.txt
rc=$?
check "replay sig:1 on 3.0 still fails: exit $rc, want 1: $(cat err.txt)" [ $rc -eq 1 ]
check "and says it is run 3's reproducer: $(head -1 rp3.txt)" \
    grep -q '^repro:[0-9]* of sig:1 (the reproducer of the latest run that saw it): .*(recorded in run 3)' rp3.txt
"$D" replay --db r.db sig:1 --plugin "$P/plugin_fix_v2.so" >rp2.txt 2>err.txt
rc=$?
check "replay sig:1 on 2.0 conforms: exit $rc, want 0: $(cat err.txt)" [ $rc -eq 0 ]
finish reopened
