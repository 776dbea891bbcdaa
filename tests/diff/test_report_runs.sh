#!/bin/sh
# SPDX-License-Identifier: MIT
# divergence report --runs / --latest-per-plugin: one page of two
# certified implementations and their diff. The matrix holds each
# implementation's verdicts with the run they come from (a later run's
# replacing an earlier one's), the hazard table each plugin's value, the
# database path (with < > & in it) escaped in HTML, and JSON that parses.
# With chromium installed the page is also opened headless: it renders,
# logs nothing (no CSP refusal), and the DOM holds the hazard rows. Then
# tests/reports/check_runs.py checks the DOM, the Markdown and the JSON
# against the database: every matrix cell (the latest run's certificate,
# whatever the order of --runs), every hazard and departure row with what
# each plugin gives and its replay command (each one run), every run's
# report command, nothing active.
# Usage: test_report_runs.sh DIVERGENCE REFERENCE_SO DIFF_DIR MUTANT_DIR REPORTS_SRC_DIR
set -u
D=$1 REF=$2 OTHER=$3/mutant_other_unspecified.so M=$4 CHECK=$5/check_runs.py
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3 || echo python3)
. "$(dirname "$0")/../lib.sh"
top=$tmp
cleanup() { rm -rf "$top"; }
tmp="$top/a<b>&c"
mkdir "$tmp"
db=$tmp/r.db
cert() {
    "$D" certify --plugin "$1" --db "$db" --variant onnx-div-14 --dtype i32 --dtype f32 \
        --shape-tier 0 --random 5 --cases "" --no-progress >"$top/cert.out" 2>&1
    [ $? -eq "$2" ] && ok || { bad "certify $1: exit $?"; cat "$top/cert.out" >&2; }
}
cert "$REF" 0                                  # run 1
cert "$M/mutant_recip_mul.so" 1                # run 2: f32 NONCONFORMANT
cert "$OTHER" 0                                # run 3
"$D" diff --plugin "$REF" --plugin "$OTHER" --db "$db" --variant onnx-div-14 --dtype i32 \
    --random 5 --cases "" >"$top/diff.out" 2>&1 # run 4
[ $? -eq 0 ] && ok || { bad "diff: exit $?"; cat "$top/diff.out" >&2; }

"$D" report --db "$db" --latest-per-plugin --format md -o "$top/p.md" && ok || bad "md: exit $?"
R=divergence-reference
# row IMPL: the cells of IMPL's column in the matrix (claims down,
# implementations across, a table per variant: issue 37), one a line.
row() {
    N=$(printf %s "$1" | sed 's/_/\\_/g') awk -F' [|] ' '
        BEGIN { n = ENVIRON["N"] }
        /^## / { m = ($0 ~ /^## Certificates/) }
        m && /^### / { col = 0; next }
        m && /^\| dtype \|/ { for (i = 2; i <= NF; i++) { h = $i; sub(/ \|$/, "", h); if (h == n) col = i } next }
        m && col && /^\| / && !/^\| ---/ { c = $col; sub(/ \|$/, "", c); print c }' "$top/p.md"
}
# 8 cases: the edge product, 5 random, the calls stage's 2 (issue 26)
row $R | grep -q "CONFORMANT (8 cases, run 1)" && ok || { bad "md: reference column"; cat "$top/p.md" >&2; }
row divergence-mutant-recip_mul | grep -q "NONCONFORMANT" && ok || bad "md: recip_mul column"
row divergence-mutant-other_unspecified | grep -q "run 3" && ok || bad "md: other column"
grep "int-min-neg-one" "$top/p.md" | grep -q "2147483647 (0x7fffffff)" && ok ||
    bad "md: no int-min-neg-one hazard with the other's value"

"$D" report --db "$db" --runs 1,2,3,4 --format html -o "$top/p.html" && ok || bad "html: exit $?"
grep -q 'Content-Security-Policy' "$top/p.html" && ok || bad "html: no CSP"
grep -q 'a&lt;b&gt;&amp;c' "$top/p.html" && ok || bad "html: path not escaped"
if grep -q 'a<b>&c' "$top/p.html"; then bad "html: raw path in the page"; else ok; fi
n=$(grep -c '<tr class="hazard">' "$top/p.html")
[ "$n" -ge 2 ] && ok || bad "html: $n hazard rows"
grep -q 'class="v-nonconformant"' "$top/p.html" && ok || bad "html: no nonconformant cell"
# dump PAGE DOM: the DOM headless Chromium renders from PAGE; 1 without chromium.
dump() {
    command -v chromium >/dev/null 2>&1 || return 1
    chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --disable-extensions \
        --disable-default-apps --user-data-dir="$(mktemp -d "$top/chrome.XXXXXX")" \
        --enable-logging=stderr --v=0 --dump-dom "file://$1" >"$2" 2>"$2.err"
    if grep -E 'CONSOLE|Uncaught|Refused to|Content Security Policy' "$2.err"; then
        bad "chromium $1: console messages"; else ok; fi
    [ -s "$2" ] && ok || bad "chromium $1: no DOM"
}
# against FORM FILE RUNS...: check_runs.py's verdict on FILE
against() {
    form=$1 file=$2; shift 2
    "$PY" "$CHECK" "$form" "$file" "$db" "$db" "$@" >"$top/check.out" 2>&1 && ok ||
        { bad "$form $file does not match the database"; cat "$top/check.out" >&2; }
}
if dump "$top/p.html" "$top/dom.html"; then
    n=$(grep -c '<tr class="hazard">' "$top/dom.html")
    [ "$n" -ge 2 ] && ok || bad "chromium: $n hazard rows in the DOM"
    against dom "$top/dom.html" 1 2 3 4
else
    echo "SKIP: chromium is not installed: the DOM is not checked" >&2
fi

"$D" report --db "$db" --runs 2,4 --format json -o "$top/p.json" && ok || bad "json: exit $?"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$top/p.json" <<'PY' && ok || bad "json: content"
import json, sys
d = json.load(open(sys.argv[1]))
assert [r["id"] for r in d["runs"]] == [2, 4], d["runs"]
assert any(c["verdict"].startswith("NONCONFORMANT") for c in d["certificates"])
h = [x for x in d["diff"] if x["hazard"] and x["class"] == "int-div-zero"]
assert h and "-1 (0xffffffff)" in h[0]["given"], d["diff"]
PY
fi

# The reference certified again with more cases (run 5), and a diff where
# recip_mul departs (run 6: its departures beside a NaN hazard). Each form
# of each page against the database, --runs in an order where run 1 comes
# after run 5 (the matrix still shows run 5's certificates).
"$D" certify --plugin "$REF" --db "$db" --variant onnx-div-14 --dtype i32 --dtype f32 \
    --shape-tier 0 --random 7 --cases "" --no-progress >"$top/cert.out" 2>&1
[ $? -eq 0 ] && ok || { bad "certify run 5: exit $?"; cat "$top/cert.out" >&2; }
"$D" diff --plugin "$REF" --plugin "$M/mutant_recip_mul.so" --db "$db" --variant onnx-div-14 \
    --dtype f32 --random 5 --cases "" >"$top/diff.out" 2>&1
[ $? -eq 1 ] && ok || { bad "diff run 6: exit $?, want 1"; cat "$top/diff.out" >&2; }
for form in html md json; do
    "$D" report --db "$db" --runs 6,5,1,2,3,4 --format $form -o "$top/all.$form" && ok ||
        bad "--runs 6,5,1,2,3,4 --format $form: exit $?"
    "$D" report --db "$db" --latest-per-plugin --format $form -o "$top/latest.$form" && ok ||
        bad "--latest-per-plugin --format $form: exit $?"
done
grep -q '<tr class="departure">' "$top/all.html" && ok || bad "html: no departure row"
against md "$top/all.md" 6 5 1 2 3 4
against json "$top/all.json" 6 5 1 2 3 4
against md "$top/latest.md" latest
against json "$top/latest.json" latest
# Each reproducer's replay command on the page works: a hazard replays on
# the set's first plugin and conforms (exit 0); a departure replays on the
# plugin that departed, which still departs (exit 1).
"$PY" - "$top/all.json" "$D" <<'PY' >"$top/replay.out" 2>&1 && ok ||
import json, shlex, subprocess, sys
d = json.load(open(sys.argv[1]))
bad = 0
for x in d["diff"]:
    argv = shlex.split(x["replay"])
    assert argv[:2] == ["divergence", "replay"], x["replay"]
    p = subprocess.run([sys.argv[2]] + argv[1:], capture_output=True, text=True)
    want = 0 if x["hazard"] else 1
    if p.returncode != want:
        bad += 1
        print("sig:%d %s: exit %d, want %d\n%s%s" % (x["signature"], x["replay"], p.returncode,
                                                    want, p.stdout, p.stderr))
print("%d replay commands, %d wrong" % (len(d["diff"]), bad))
sys.exit(1 if bad or not d["diff"] else 0)
PY
    { bad "the replay commands of the page"; cat "$top/replay.out" >&2; }
if dump "$top/all.html" "$top/all.dom"; then
    against dom "$top/all.dom" 6 5 1 2 3 4
    dump "$top/latest.html" "$top/latest.dom"
    against dom "$top/latest.dom" latest
fi

# refused: JUnit, --runs with --run, a bad list
"$D" report --db "$db" --runs 1,2 --format junit >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "junit: want exit 2"
"$D" report --db "$db" --runs 1,x >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "--runs 1,x: want exit 2"
"$D" report --db "$db" --runs 1 --run 2 >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "--runs with --run: want exit 2"

echo "report runs: $pass passed, $fail failed"
[ $fail -eq 0 ]
