#!/bin/sh
# SPDX-License-Identifier: MIT
# query new / fixed / history on the hazards of one plugin set
# (docs/diff.md, "In the store"). The set is the reference and
# divergence-mutant-other_unspecified, built twice under that one name:
# mutant_other_unspecified_v2.so makes INT_MIN / -1 as the reference does,
# mutant_other_unspecified.so otherwise. Diffs of onnx-div-14 i32:
#   run 1 (v2): int-div-zero hazards only;
#   run 2 (v1): int-min-neg-one as well: `query new --since 1` lists it;
#   run 3 (v2, i64): another pair: the i32 hazard stays open;
#   run 4 (v2): gone: `query fixed --since 2` lists it, fixed by run 4;
#   run 5 (v1): back: open again, no longer fixed.
# `query history` shows an int-div-zero signature in every i32 run.
# Usage: test_diff_query.sh DIVERGENCE REFERENCE_SO DIFF_DIR
set -u
D=$1 REF=$2 V1=$3/mutant_other_unspecified.so V2=$3/mutant_other_unspecified_v2.so
. "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3 || echo python3)
db=$tmp/q.db
SET="divergence-reference|divergence-mutant-other_unspecified"

# diff RUN PLUGIN DTYPE: run RUN of the set, into $tmp/RUN.out
diff() {
    "$D" diff --db "$db" --cases "" --random 20 --plugin "$REF" --plugin "$2" \
        --variant onnx-div-14 --dtype "$3" >"$tmp/$1.out" 2>&1
    rc=$?
    [ $rc -eq 0 ] && ok || { bad "run $1: exit $rc"; cat "$tmp/$1.out" >&2; }
    grep -q "run $1 in " "$tmp/$1.out" && ok || bad "run $1: not stored as run $1"
}
# hazard RUN CLASS yes|no: whether run RUN's table has a CLASS hazard row
hazard() {
    if grep -q "^    hazard $2 " "$tmp/$1.out"; then got=yes; else got=no; fi
    [ $got = "$3" ] && ok || { bad "run $1: hazard $2: $got, want $3"; cat "$tmp/$1.out" >&2; }
}
# query NAME ARGS...: divergence query --json ARGS into $tmp/NAME.json
query() {
    name=$1; shift
    "$D" query --db "$db" --json "$@" >"$tmp/$name.json" 2>&1 && ok ||
        { bad "query $*: exit $?"; cat "$tmp/$name.json" >&2; }
}
# assert WHAT EXPR: a python expression over j (the JSON of $tmp/$QJ.json)
assert() {
    "$PY" - "$tmp/$QJ.json" "$2" "$SET" <<'PY' && ok || bad "$1"
import json, sys
j = json.load(open(sys.argv[1]))
SET = sys.argv[3]
if not eval("(" + sys.argv[2] + ")"):
    print(json.dumps(j, indent=1)[:3000], file=sys.stderr)
    sys.exit(1)
PY
}

diff 1 "$V2" i32
hazard 1 int-div-zero yes
hazard 1 int-min-neg-one no
diff 2 "$V1" i32
hazard 2 int-div-zero yes
hazard 2 int-min-neg-one yes
sig=$(sed -n 's/.*reproducer int-min-neg-one .*\[sig:\([0-9]*\)\]$/\1/p' "$tmp/2.out")
zero=$(sed -n 's/.*reproducer int-div-zero zero\/zero: .*\[sig:\([0-9]*\)\]$/\1/p' "$tmp/1.out")
[ -n "$sig" ] && [ -n "$zero" ] && ok || bad "no int-min-neg-one or zero/zero signature"

QJ=new1
query $QJ new --since 1
assert "new --since 1: only the int-min-neg-one hazard of the set" \
    "[(x['signature'], x['implementation'], x['class'], x['first_run']) for x in j['new']]
     == [($sig, SET, 'int-min-neg-one', 2)]"
QJ=new0
query $QJ new --since 0
assert "new --since 0: the int-div-zero hazards of run 1 as well" \
    "{x['class'] for x in j['new'] if x['first_run'] == 1} == {'int-div-zero'}
     and all(x['implementation'] == SET for x in j['new'])"

diff 3 "$V2" i64
QJ=fixed3
query $QJ fixed --since 2
assert "fixed --since 2 after a diff of another pair: nothing" "j['fixed'] == []"

diff 4 "$V2" i32
hazard 4 int-min-neg-one no
QJ=fixed4
query $QJ fixed --since 2
assert "fixed --since 2: the int-min-neg-one hazard, fixed by run 4" \
    "[(x['signature'], x['implementation'], x['class'], x['last_seen_run'], x['fixed_by_run'])
      for x in j['fixed']] == [($sig, SET, 'int-min-neg-one', 2, 4)]"
QJ=fixed5
query $QJ fixed --since 4
assert "fixed --since 4: nothing" "j['fixed'] == []"
QJ=hist
query $QJ history "sig:$sig"
assert "history sig:$sig: seen in run 2, fixed by run 4" \
    "j['signature'][0]['status'] == 'fixed' and j['signature'][0]['fixed_by_run'] == 4
     and [(r['run'], r['finding']) for r in j['runs'] if r['finding'] == 'seen'] == [(2, 'seen')]"
QJ=histzero
query $QJ history "sig:$zero"
assert "history sig:$zero: an int-div-zero hazard seen in runs 1, 2 and 4" \
    "j['signature'][0]['class'] == 'int-div-zero' and j['signature'][0]['status'] == 'open'
     and [(r['run'], r['kind'], r['finding']) for r in j['runs']]
         == [(1, 'diff', 'seen'), (2, 'diff', 'seen'), (4, 'diff', 'seen')]"

diff 5 "$V1" i32
hazard 5 int-min-neg-one yes
QJ=fixed6
query $QJ fixed --since 2
assert "fixed --since 2 after the hazard came back: nothing" "j['fixed'] == []"
QJ=hist2
query $QJ history "sig:$sig"
assert "history sig:$sig: open again, seen in runs 2 and 5" \
    "j['signature'][0]['status'] == 'open' and j['signature'][0]['last_run'] == 5
     and [r['run'] for r in j['runs'] if r['finding'] == 'seen'] == [2, 5]"

finish "diff query"
