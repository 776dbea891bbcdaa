#!/bin/sh
# SPDX-License-Identifier: MIT
# divergence bisect over eight builds of "bisect-div" (builds.h: one
# source, the floor bug in builds 5 and 6): a signature recorded with
# build 6 gets exactly the regression range 1.4 .. 1.5 and the fixed range
# 1.6 .. 1.7, each in at most log2(8) + 2 = 5 replays (printed), whichever
# way the builds are named (--plugin, --builds DIR, --seen); --all replays
# all eight; a non-monotonic order is marked so; a range found again
# replaces the old one and a fixed range no longer found goes; db merge
# carries the ranges; query history shows them; bad input is refused.
# Usage: test_bisect.sh DIVERGENCE NIGHTLY_BUILD_DIR SOURCE_ROOT
set -u
ROOT=$3
set -- "$1" "$2" "$3/tests/nightly"
. "$ROOT/tests/reports/lib.sh"
need sqlite3
SERIES=$P/series
b() { echo "$SERIES/bisect-div-1.$1.so"; }

cd "$tmp" || exit 1
mkdir nocases
certify() { # DB BUILD
    "$D" certify --plugin "$(b "$2")" --variant onnx-div-14 --dtype i32 --random 10 \
        --shape-tier 0 --cases nocases --seed 1 --db "$1" --no-progress >"$1.$2.out" 2>&1
}
certify b.db 6
check "build 6 floors: certify exits 1" [ $? -eq 1 ]
sigs=$(sqlite3 b.db "SELECT count(*) FROM signatures WHERE class = 'floor-vs-trunc'")
check "build 6 has floor-vs-trunc signatures ($sigs)" [ "$sigs" -gt 1 ]
all_sigs=$(sqlite3 b.db "SELECT group_concat('sig:' || id, ' ') FROM signatures")
cp b.db fresh.db

# ranges DB SIG: "kind before after replays builds monotonic" per range, regression first
ranges() {
    sqlite3 -separator ' ' "$1" "SELECT kind, coalesce(before_version, '-'), after_version,
        replays, builds, monotonic FROM v_signature_ranges WHERE signature_id = $2
        ORDER BY kind DESC"
}
# exact DB SIG WHAT: the two ranges of the issue, each in at most 5 replays
exact() {
    r=$(ranges "$1" "$2" | tr '\n' ';')
    echo "$3: sig:$2: $r" # the replay counts, for the log
    reg_replays=$(ranges "$1" "$2" | awk '$1 == "regression" { print $4 }')
    fix_replays=$(ranges "$1" "$2" | awk '$1 == "fixed" { print $4 }')
    check "$3: sig:$2: regression 1.4 .. 1.5, fixed 1.6 .. 1.7 of 8 builds ($r)" \
        [ "$(ranges "$1" "$2" | cut -d' ' -f1-3,5,6 | tr '\n' ';')" = \
          "regression 1.4 1.5 8 1;fixed 1.6 1.7 8 1;" ]
    check "$3: sig:$2: at most log2(8) + 2 = 5 replays each ($reg_replays, $fix_replays)" \
        [ "${reg_replays:-99}" -le 5 ] && [ "${fix_replays:-99}" -le 5 ]
}

# 1. --builds DIR: the eight in version order of their names.
"$D" bisect --db b.db --builds "$SERIES" sig:1 >one.out 2>one.err
rc=$?
check "bisect --builds sig:1: exit $rc ($(cat one.err))" [ $rc -eq 0 ]
cat one.out
exact b.db 1 "--builds"
check "the output names both ranges" grep -q 'regression range: 1.4 (build 4 of 8) .. 1.5 (build 5 of 8)' one.out
check "... and counts the replays" grep -q 'fixed range: 1.6 (build 6 of 8) .. 1.7 (build 7 of 8) ([0-9] replays)' one.out
check "no build replayed twice" [ "$(grep -c '^  replay' one.out)" -eq "$(grep '^  replay' one.out | sort -u -k3 | wc -l)" ]

# 2. --plugin, every signature at once (one worker per build for all).
plugins=""
for k in 1 2 3 4 5 6 7 8; do plugins="$plugins --plugin $(b $k)"; done
# shellcheck disable=SC2086
"$D" bisect --db b.db $plugins $all_sigs >all.out 2>all.err
rc=$?
check "bisect --plugin x8 of $sigs signatures: exit $rc ($(cat all.err))" [ $rc -eq 0 ]
for s in $(sqlite3 b.db "SELECT id FROM signatures"); do
    exact b.db "$s" "--plugin"
done
echo "replays per signature: $(grep -c '^  replay' all.out) over $sigs signatures"

# 3. --all: every build replayed, the same ranges.
"$D" bisect --db b.db --builds "$SERIES" --all sig:2 >every.out 2>&1
check "bisect --all: exit $?" [ $? -eq 0 ]
check "--all replays the 8 builds" [ "$(grep -c '^  replay' every.out)" -eq 8 ]
check "--all: the same ranges, 8 replays each" [ "$(ranges b.db 2 | tr '\n' ';')" = \
    "regression 1.4 1.5 8 8 1;fixed 1.6 1.7 8 8 1;" ]

# 4. Non-monotonic: in the order 1 5 2 3 6 4 7 8 the bug is in the 2nd
# and the 5th build. --all sees it come and go and says so; the ranges
# are the edges of the run of the build it was recorded with (6).
printf '# oldest first\nbisect-div-1.1.so\nbisect-div-1.5.so\nbisect-div-1.2.so\nbisect-div-1.3.so\nbisect-div-1.6.so\n%s\nbisect-div-1.7.so\nbisect-div-1.8.so\n' \
    "$(b 4)" >order.txt
cp fresh.db nm.db
"$D" bisect --db nm.db --builds "$SERIES" --order order.txt --all sig:1 >nm.out 2>&1
rc=$?
check "bisect --order --all: exit $rc ($(tail -1 nm.out))" [ $rc -eq 0 ]
check "non-monotonic: the ranges around build 6 ($(ranges nm.db 1 | tr '\n' ';'))" \
    [ "$(ranges nm.db 1 | tr '\n' ';')" = "regression 1.3 1.6 8 8 0;fixed 1.6 1.4 8 8 0;" ]
check "the note says where it was seen" [ "$(sqlite3 nm.db "SELECT DISTINCT note FROM signature_ranges")" = \
    "non-monotonic: the replays show it in builds 2, 5 and not in 1, 3-4, 6-8 (of 8)" ]
# Bisection proper on the same order: a real change, the build before it
# lacks the signature and the build after it shows it (replayed again).
"$D" bisect --db nm.db --builds "$SERIES" --order order.txt sig:1 >nm2.out 2>&1
check "bisect --order: exit $?" [ $? -eq 0 ]
before=$(sqlite3 nm.db "SELECT b.path FROM signature_ranges g JOIN plugin_builds b ON b.id = g.before_build_id WHERE g.signature_id = 1 AND kind = 'regression'")
after=$(sqlite3 nm.db "SELECT b.path FROM signature_ranges g JOIN plugin_builds b ON b.id = g.after_build_id WHERE g.signature_id = 1 AND kind = 'regression'")
"$D" replay --db nm.db --plugin "$before" sig:1 >/dev/null 2>&1
check "the range's first end ($before) lacks it: replay exits 0" [ $? -eq 0 ]
"$D" replay --db nm.db --plugin "$after" sig:1 >/dev/null 2>&1
check "the range's last end ($after) shows it: replay exits 1" [ $? -eq 1 ]

# 5. Bisected again over builds 1..6: not fixed any more, the fixed range
# goes; over builds 1..4 it shows nowhere: exit 1, nothing changed.
"$D" bisect --db b.db --plugin "$(b 1)" --plugin "$(b 2)" --plugin "$(b 3)" --plugin "$(b 4)" \
    --plugin "$(b 5)" --plugin "$(b 6)" sig:1 >six.out 2>&1
check "bisect over 1..6: exit $?" [ $? -eq 0 ]
check "over 1..6: regression 1.4 .. 1.5, no fixed range ($(ranges b.db 1 | tr '\n' ';'))" \
    [ "$(ranges b.db 1 | cut -d' ' -f1-3 | tr '\n' ';')" = "regression 1.4 1.5;" ]
check "it says why" grep -q 'not fixed: the newest build, 1.6' six.out
cp b.db before-none.db
"$D" bisect --db b.db --plugin "$(b 1)" --plugin "$(b 2)" --plugin "$(b 3)" --plugin "$(b 4)" \
    sig:1 >none.out 2>&1
check "no build shows it: exit $? (1)" [ $? -eq 1 ]
check "it says so" grep -q 'no build of the 4 shows it' none.out
check "nothing stored" [ "$(sqlite3 b.db 'SELECT * FROM signature_ranges ORDER BY 1, 2')" = \
    "$(sqlite3 before-none.db 'SELECT * FROM signature_ranges ORDER BY 1, 2')" ]

# 6. --seen: the builds runs loaded, in run order (4, 6, 7); a build whose
# file is gone is left out, saying so.
cp "$(b 2)" gone.so
"$D" certify --plugin gone.so --variant onnx-div-14 --dtype i32 --random 10 --shape-tier 0 \
    --cases nocases --seed 1 --db seen.db --no-progress >/dev/null 2>&1
rm gone.so
for k in 4 6 7; do certify seen.db $k; done
s=$(sqlite3 seen.db "SELECT min(id) FROM signatures")
"$D" bisect --db seen.db --seen "sig:$s" >seen.out 2>&1
rc=$?
check "bisect --seen: exit $rc ($(tail -1 seen.out))" [ $rc -eq 0 ]
check "--seen: 1.4 .. 1.6, fixed 1.6 .. 1.7 of 3 builds ($(ranges seen.db "$s" | tr '\n' ';'))" \
    [ "$(ranges seen.db "$s" | cut -d' ' -f1-3,5 | tr '\n' ';')" = "regression 1.4 1.6 3;fixed 1.6 1.7 3;" ]
check "--seen: the build whose file is gone is left out" grep -q 'build 1.2 .* left out' seen.out
"$D" bisect --db seen.db --seen --since 0 >since.out 2>&1
check "bisect --since 0 (every signature): exit $?" [ $? -eq 0 ]
check "--since bisects each new and fixed signature" [ "$(grep -c '^sig:' since.out)" -eq \
    "$(sqlite3 seen.db 'SELECT count(*) FROM signatures')" ]

# 7. The store: query history shows the ranges; db merge carries them
# (again: nothing changes); db check passes.
"$D" query --db b.db history sig:2 >hist.txt 2>&1
check "query history shows the ranges" grep -q '^regression  1.4 ([0-9a-f]*)  1.5 ([0-9a-f]*)  8 ' hist.txt
"$D" query --db b.db --json history sig:2 >hist.json 2>&1
check "query --json history: ranges" "$PY" -c "import json, sys; j = json.load(open('hist.json')); r = j['ranges']; sys.exit(0 if [x['range'] for x in r] == ['regression', 'fixed'] and r[0]['before'].startswith('1.4 (') and r[1]['after'].startswith('1.7 (') else 1)"
"$D" report --db b.db --run 1 --format json -o r1.json >/dev/null 2>&1
check "the run's JSON report gives each finding its ranges (sig:1's fixed range gone since)" \
    "$PY" -c "import json, sys; j = json.load(open('r1.json')); r = {f['signature_id']: f['ranges'] for f in j['findings']}; sys.exit(0 if r.pop(1) == 'regression 1.4 .. 1.5' and r and all(v == 'regression 1.4 .. 1.5; fixed 1.6 .. 1.7' for v in r.values()) else 1)"
"$D" report --db b.db --run 1 --format html -o r1.html >/dev/null 2>&1
check "... and the HTML one" grep -q 'Ranges (divergence bisect): regression 1.4 .. 1.5; fixed 1.6 .. 1.7' r1.html
"$D" db merge m.db b.db >merge.out 2>&1
rc=$?
check "db merge: $(cat merge.out)" [ $rc -eq 0 ]
q='SELECT s.implementation, s.variant, s.dtype, s.class, s.operand_class, g.kind, g.before_version, g.after_version, g.replays, g.monotonic FROM v_signature_ranges g JOIN signatures s ON s.id = g.signature_id ORDER BY 1, 2, 3, 4, 5, 6'
check "the merged file has the ranges" [ "$(sqlite3 m.db "$q")" = "$(sqlite3 b.db "$q")" ] && \
    [ -n "$(sqlite3 m.db "$q")" ]
"$D" db merge m.db b.db >/dev/null 2>&1
check "merging again changes nothing" [ "$(sqlite3 m.db "$q")" = "$(sqlite3 b.db "$q")" ]
"$D" db check m.db b.db >check.out 2>&1
rc=$?
check "db check: $(cat check.out)" [ $rc -eq 0 ]

# 8. Refused: a build of another implementation, a reproducer id, no
# builds, two ways of naming them, a missing signature.
"$D" bisect --db b.db --plugin "$(b 1)" --plugin "$P/nightly_div_1.so" sig:1 >x.out 2>&1
check "a build of another implementation: exit 2" [ $? -eq 2 ]
check "... named" grep -q "nightly_div_1.so is a build of 'nightly-div', not of 'bisect-div'" x.out
"$D" bisect --db b.db --builds "$SERIES" repro:1 >/dev/null 2>&1
check "repro:1: exit 2" [ $? -eq 2 ]
"$D" bisect --db b.db sig:1 >/dev/null 2>&1
check "no builds: exit 2" [ $? -eq 2 ]
"$D" bisect --db b.db --seen --builds "$SERIES" sig:1 >/dev/null 2>&1
check "--seen and --builds: exit 2" [ $? -eq 2 ]
"$D" bisect --db b.db --builds "$SERIES" sig:999 >x.out 2>&1
check "a missing signature: exit 2" [ $? -eq 2 ] && grep -q 'no signature 999' x.out
"$D" bisect --db b.db --builds "$tmp/nocases" sig:1 >x.out 2>&1
check "a folder without builds: exit 2" [ $? -eq 2 ] && grep -q 'holds no build' x.out
finish
