#!/bin/sh
# SPDX-License-Identifier: MIT
# Undefined input may be refused, never crashed on (docs/semantics.md,
# "Refusing undefined input"), through certify, fuzz and diff, with the
# three kernels of this folder (each answers a case holding an integer
# x / 0 or INT_MIN / -1 as a whole):
# - refuses_undefined (a failure status, correct elsewhere): CONFORMANT,
#   the refusal named (refused-undefined, "refuses: error status") in the
#   certificate, the store and the report; NONCONFORMANT (failure) under
#   --profile exact+no-refusals; fuzz exits 0 and names it; diff against
#   the reference exits 0 with a hazard "refuses: error status", on the
#   page of the runs too;
# - sigfpe_undefined: CRASHED, a crash in fuzz and a departure in diff;
# - refuses_and_floors (refuses, and floors where truncation is due):
#   NONCONFORMANT with floor-vs-trunc and no failure, the refusal still
#   named; a departure (floor-vs-trunc) in fuzz and diff.
# Usage: test_refusal.sh DIVERGENCE REFERENCE_SO REFUSAL_DIR
set -u
D=$1 REF=$2 DIR=$3
R=$DIR/mutant_refuses_undefined.so S=$DIR/mutant_sigfpe_undefined.so
F=$DIR/mutant_refuses_and_floors.so
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3 || echo python3)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# has FILE PATTERN WHAT / hasnt FILE PATTERN WHAT
has() { if grep -q -- "$2" "$1"; then ok; else bad "$3"; sed -n 1,40p "$1"; fi; }
hasnt() { if grep -q -- "$2" "$1"; then bad "$3"; grep -- "$2" "$1" | head -5; else ok; fi; }
# run NAME WANT CMD...: CMD's output into $tmp/NAME.out, its exit status WANT
run() {
    name=$1 want=$2
    shift 2
    "$@" >"$tmp/$name.out" 2>&1
    rc=$?
    if [ $rc -eq "$want" ]; then ok; else bad "$name: exit $rc, want $want"; tail -20 "$tmp/$name.out"; fi
}
CLAIMS="--variant onnx-div-14 --variant openvino-divide-1 --dtype i32 --dtype u8"
cert() { # NAME WANT PLUGIN [ARGS...]
    name=$1 want=$2 plugin=$3
    shift 3
    # shellcheck disable=SC2086 # one word per flag
    run "$name" "$want" "$D" certify --plugin "$plugin" --db "$tmp/$name.db" $CLAIMS \
        --random 30 --shape-tier 12 --no-progress "$@"
}

# --- certify -----------------------------------------------------------------
cert cert_r 0 "$R"
n=$(grep -c '^  [a-z0-9-]* *[a-z0-9]* *CONFORMANT ' "$tmp/cert_r.out")
[ "$n" -eq 4 ] && ok || { bad "refuses_undefined: $n of 4 claims CONFORMANT"; cat "$tmp/cert_r.out"; }
n=$(grep -c '^    refused-undefined .*refuses: error status' "$tmp/cert_r.out")
[ "$n" -eq 4 ] && ok || bad "refuses_undefined: the refusal named under $n of 4 claims"
hasnt "$tmp/cert_r.out" '^    failure ' "refuses_undefined: a failure finding"
"$PY" - "$tmp/cert_r.db" <<'PY' && ok || bad "refuses_undefined: the store does not hold the refusal"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
verdicts = {v for (v,) in db.execute("SELECT verdict FROM certificates")}
assert verdicts == {"CONFORMANT"}, verdicts
n = db.execute("SELECT count(*), sum(elements) FROM counts WHERE class = 'refused-undefined'").fetchone()
assert n[0] == 4 and n[1] > 0, n
sigs = db.execute("SELECT count(*) FROM signatures WHERE class = 'refused-undefined'").fetchone()[0]
actual = {a for (a,) in db.execute("SELECT r.actual FROM reproducers r JOIN signatures s"
                                   " ON s.id = r.signature_id WHERE s.class = 'refused-undefined'")}
assert sigs > 0 and actual == {"refuses: error status"}, (sigs, actual)
PY
run report_r 0 "$D" report --db "$tmp/cert_r.db" --format md -o "$tmp/r.md"
has "$tmp/r.md" 'refused-undefined' "the report of refuses_undefined does not name the refusal"
has "$tmp/r.md" 'refuses: error status' "the report of refuses_undefined does not say what it gave"
run report_r_html 0 "$D" report --db "$tmp/cert_r.db" --format html -o "$tmp/r.html"
n=$(grep -o '<td class="cell v-conformant"[^>]*><span class="verdict">CONFORMANT</span><span class="profile">exact</span><span class="refusal">refuses: error status ([1-9][0-9]* elements)</span>' "$tmp/r.html" | wc -l)
[ "$n" -eq 4 ] && ok || bad "the HTML certificate names the refusal in $n of 4 cells"

cert cert_r_strict 1 "$R" --profile exact+no-refusals
has "$tmp/cert_r_strict.out" 'NONCONFORMANT' "exact+no-refusals: refuses_undefined not NONCONFORMANT"
has "$tmp/cert_r_strict.out" '^    failure ' "exact+no-refusals: no failure finding"
hasnt "$tmp/cert_r_strict.out" 'refused-undefined' "exact+no-refusals: a refusal accepted"

cert cert_s 1 "$S"
n=$(grep -c ' CRASHED ' "$tmp/cert_s.out")
[ "$n" -eq 4 ] && ok || bad "sigfpe_undefined: $n of 4 claims CRASHED"
has "$tmp/cert_s.out" '^    crash .*SIGFPE' "sigfpe_undefined: no SIGFPE crash"
hasnt "$tmp/cert_s.out" 'refused-undefined\| CONFORMANT ' "sigfpe_undefined: a crash accepted"

cert cert_f 1 "$F"
has "$tmp/cert_f.out" 'onnx-div-14 *i32 *NONCONFORMANT' "refuses_and_floors: i32 not NONCONFORMANT"
has "$tmp/cert_f.out" '^    floor-vs-trunc .*expected' "refuses_and_floors: no floor-vs-trunc"
hasnt "$tmp/cert_f.out" '^    failure ' "refuses_and_floors: its refusals departures (failure)"
has "$tmp/cert_f.out" '^    refused-undefined ' "refuses_and_floors: the refusal not named"

# --- fuzz ----------------------------------------------------------------------
fz() { # NAME WANT PLUGIN...
    name=$1 want=$2
    shift 2
    args=""
    for p in "$@"; do args="$args --plugin $p"; done
    # shellcheck disable=SC2086 # one word per flag and path
    run "$name" "$want" "$D" fuzz $args --db "$tmp/$name.db" --cases 1500 --jobs 1 --seed 3 \
        --no-progress
}
fz fuzz_r 0 "$R"
has "$tmp/fuzz_r.out" 'refuses_undefined: refuses: error status on [1-9][0-9]* elements of undefined input' \
    "fuzz refuses_undefined: the refusal not named"
hasnt "$tmp/fuzz_r.out" '^    failure \|^    crash ' "fuzz refuses_undefined: a departure"
fz fuzz_s 1 "$S"
has "$tmp/fuzz_s.out" '^    crash ' "fuzz sigfpe_undefined: no crash"
fz fuzz_f 1 "$F"
has "$tmp/fuzz_f.out" '^    floor-vs-trunc ' "fuzz refuses_and_floors: no floor-vs-trunc"
hasnt "$tmp/fuzz_f.out" '^    failure ' "fuzz refuses_and_floors: its refusals departures (failure)"
fz fuzz_diff_r 0 "$REF" "$R"
has "$tmp/fuzz_diff_r.out" '^  hazard int-div-zero ' "differential fuzz: no int-div-zero hazard"
hasnt "$tmp/fuzz_diff_r.out" 'departs from the oracle' "differential fuzz: refuses_undefined departs"

# --- diff ----------------------------------------------------------------------
df() { # NAME WANT PLUGIN
    run "$1" "$2" "$D" diff --plugin "$REF" --plugin "$3" --db "$tmp/diff.db" \
        --variant onnx-div-14 --dtype i32 --random 20
}
df diff_r 0 "$R"
# the hazard's lines: the reference's value, then the refusal
awk '/^    hazard int-div-zero/ { on = 1; next } on && /^      / { print; next } { on = 0 }' \
    "$tmp/diff_r.out" >"$tmp/hz.txt"
has "$tmp/hz.txt" 'divergence-reference *0 (0x00000000)' "diff: the reference's value of x / 0"
has "$tmp/hz.txt" 'refuses_undefined *refuses: error status' "diff: the refusal is no hazard"
hasnt "$tmp/diff_r.out" 'DEPARTS' "diff: refuses_undefined departs"
df diff_s 1 "$S"
has "$tmp/diff_s.out" 'DEPARTS divergence-mutant-sigfpe_undefined: .*crash' "diff: sigfpe_undefined"
df diff_f 1 "$F"
has "$tmp/diff_f.out" 'DEPARTS divergence-mutant-refuses_and_floors: .*floor-vs-trunc' \
    "diff: refuses_and_floors does not depart with floor-vs-trunc"
has "$tmp/diff_f.out" 'refuses_and_floors *refuses: error status' "diff: refuses_and_floors' refusal"
# the page of the runs: the hazard row says what each gives
run page_r 0 "$D" report --db "$tmp/diff.db" --runs 1 --format md -o "$tmp/page.md"
has "$tmp/page.md" '^| int-div-zero | onnx-div-14 | i32 |.*| 0 (0x00000000) | refuses: error status |' \
    "the page of the diff: no hazard row with the refusal"

echo "refusal: $pass passed, $fail failed"
[ $fail -eq 0 ]
