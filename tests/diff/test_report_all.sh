#!/bin/sh
# SPDX-License-Identifier: MIT
# The pages a person reads, on the six implementations (what
# scripts/certify-all.sh writes, on fewer cases): each certified, then
# `diff --partial` of all six, then the page of every implementation
# (`report --latest-per-plugin`) in HTML, Markdown and JSON.
# - The page opens with its summary: at most 60 table rows outside
#   <details> in the DOM headless Chromium renders (the matrix, one row
#   per hazard class, plugin set and dtype, one per bug, the runs; every
#   signature folded), and the DOM, the Markdown and the JSON match the
#   database (tests/reports/check_runs.py: each hazard row with what each
#   implementation gives on its example, each bug, each signature, each
#   run), with nothing active and no console message.
# - A failing certificate (oneDNN's) reads top-down in each form
#   (tests/reports/check_order.py): matrix, bugs, the first finding, then
#   the coverage folded per claim without an empty column.
# Exit 77 (skipped) when an adapter was not built or chromium is missing.
# Usage: test_report_all.sh DIVERGENCE PLUGIN_DIR REPORTS_SRC_DIR
set -u
. "$3/lib.sh"
need chromium
for lib in reference eigen libtorch onednn onnxruntime xnnpack; do
    if [ ! -f "$P/$lib.so" ]; then
        echo "SKIP: $P/$lib.so was not built (run scripts/setup.sh)"
        exit 77
    fi
done
db=$tmp/all.db
plugins=""
for lib in reference eigen libtorch onednn onnxruntime xnnpack; do
    "$D" certify --plugin "$P/$lib.so" --db "$db" --random 10 --shape-tier 0 --timeout 5000 \
        --no-progress >"$tmp/$lib.out" 2>&1
    rc=$?
    [ $rc -le 1 ] && ok || { bad "certify $lib: exit $rc"; tail -5 "$tmp/$lib.out"; }
    plugins="$plugins --plugin $P/$lib.so"
done
# shellcheck disable=SC2086 # one word per flag and path
"$D" diff --partial $plugins --db "$db" --random 5 --timeout 5000 >"$tmp/diff.out" 2>&1
rc=$?
[ $rc -le 1 ] && ok || { bad "diff: exit $rc"; tail -5 "$tmp/diff.out"; }

# dump PAGE DOM: the DOM headless Chromium renders, with no console message.
dump() {
    chrome --dump-dom "file://$1" >"$2" 2>"$2.err"
    if grep -E 'CONSOLE|Uncaught|Refused to|Content Security Policy' "$2.err"; then
        bad "chromium $1: console messages"; else ok; fi
    [ -s "$2" ] && ok || bad "chromium $1: no DOM"
}

for form in html md json; do
    "$D" report --db "$db" --latest-per-plugin --format $form -o "$tmp/all.$form" && ok ||
        bad "report --latest-per-plugin --format $form: exit $?"
done
dump "$tmp/all.html" "$tmp/all.dom"
for form in dom md json; do
    file=$tmp/all.$form
    "$PY" "$S/check_runs.py" $form "$file" "$db" "$db" latest >"$tmp/check.out" 2>&1 && ok ||
        { bad "the $form page does not match the database"; cat "$tmp/check.out"; }
    if [ $form = dom ]; then
        rows=$(sed -n 's/^check_runs dom: visible rows: //p' "$tmp/check.out")
        echo "the page of every implementation: ${rows:-?} table rows outside <details>"
        [ "${rows:-999}" -le 60 ] && ok || bad "the page shows ${rows:-?} table rows, want at most 60"
    fi
done

# oneDNN's certificate fails claims: its findings come before its coverage.
run=$(sed -n 's/^Certificate: onednn .* run \([0-9]*\) in .*/\1/p' "$tmp/onednn.out")
grep -q NONCONFORMANT "$tmp/onednn.out" && ok || bad "oneDNN's certificate holds every claim"
for form in html md json; do
    "$D" report --db "$db" --run "${run:-0}" --format $form -o "$tmp/onednn.$form" && ok ||
        bad "report --run ${run:-?} --format $form: exit $?"
    "$PY" "$S/check_order.py" $form "$tmp/onednn.$form" >"$tmp/order.out" 2>&1 && ok ||
        { bad "oneDNN's $form certificate does not read top-down"; cat "$tmp/order.out"; }
done
dump "$tmp/onednn.html" "$tmp/onednn.dom"
"$PY" "$S/check_order.py" html "$tmp/onednn.dom" >"$tmp/order.out" 2>&1 && ok ||
    { bad "oneDNN's rendered certificate does not read top-down"; cat "$tmp/order.out"; }

finish
