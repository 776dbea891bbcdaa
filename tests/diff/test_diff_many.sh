#!/bin/sh
# SPDX-License-Identifier: MIT
# What scripts/certify-all.sh needs of diff and of the page of every
# implementation on a machine that builds every plugin (issue 37, part 4):
# - `divergence diff` takes every plugin given: 10 of them (the reference,
#   the six adapters and the three CUDA flavours) and more, not "at most 8";
#   the run's plugin set names all of them.
# - The page of certificates alone (no diff ran, or it failed) says at its
#   top that nothing compared the implementations, and never "No
#   implementation departs" (which only a diff that ran may say).
# Usage: test_diff_many.sh DIVERGENCE REFERENCE_SO DIFF_DIR MUTANT_DIR
set -u
D=$1 REF=$2 OTHER=$3/mutant_other_unspecified.so M=$4
. "$(dirname "$0")/../lib.sh"
db=$tmp/many.db

# Certificates only: the page says it was not compared.
"$D" certify --plugin "$REF" --db "$db" --variant onnx-div-14 --dtype u8 --shape-tier 0 \
    --random 2 --cases "" --no-progress >"$tmp/cert.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok || { bad "certify: exit $rc"; tail -5 "$tmp/cert.out" >&2; }
for fmt in html md; do
    "$D" report --db "$db" --latest-per-plugin --format $fmt -o "$tmp/alone.$fmt" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 0 ] && ok || { bad "report $fmt: exit $rc"; cat "$tmp/err" >&2; }
    check "$fmt page without a diff says so" grep -q "Not measured: no run on this page compares" \
        "$tmp/alone.$fmt"
    if grep -q "No implementation departs" "$tmp/alone.$fmt"; then
        bad "$fmt page without a diff claims no implementation departs"
    else ok; fi
done
check "html: the warning opens the page" grep -q 'id="not-compared"' "$tmp/alone.html"

# 11 plugins: the reference, the conformant other one and 9 mutants of the
# zoo (some depart: exit 1 is a finding, 2 a refusal).
plugins="--plugin $REF --plugin $OTHER"
n=2
for name in recip_mul flush_subnormals floor_not_trunc wrong_inf_sign nan_to_num skip_last \
    cache_shapes leak_256k remainder_17; do
    plugins="$plugins --plugin $M/mutant_$name.so"
    n=$((n + 1))
done
# shellcheck disable=SC2086 # one word per flag and path
"$D" diff $plugins --db "$db" --cases "" --random 2 --variant onnx-div-14 --dtype u8 \
    --jobs 1 >"$tmp/diff.out" 2>&1
rc=$?
[ $rc -le 1 ] && ok || { bad "diff of $n plugins: exit $rc"; sed -n 1,20p "$tmp/diff.out" >&2; }
if grep -q "at most" "$tmp/diff.out"; then bad "diff of $n plugins refused"; else ok; fi
check "diff of $n plugins names the reference" grep -q "divergence-reference" "$tmp/diff.out"
check "diff of $n plugins names the last mutant" grep -q "remainder_17" "$tmp/diff.out"
"$D" report --db "$db" --latest-per-plugin --format html -o "$tmp/all.html" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && ok || { bad "report after the diff: exit $rc"; cat "$tmp/err" >&2; }
if grep -q 'id="not-compared"' "$tmp/all.html"; then
    bad "the page after a diff still says it was not compared"
else ok; fi
finish test_diff_many
