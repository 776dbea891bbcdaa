#!/bin/sh
# SPDX-License-Identifier: MIT
# Every finding names its operands (issue 34, part 4): a kernel that traps
# on INT_MIN / -1 (mutant crash_int_min), given one case whose element 2 of
# 4 is -2147483648 / -1, is certified CRASHED, and the crash's line shows
# the pair as values (and bits) in front of the signal, in certify's text
# and in the Markdown, JSON, JUnit and HTML reports; the HTML shows every
# operand as values, its bytes only after them.
# Usage: test_crash_operands.sh DIVERGENCE MUTANT_DIR
set -u
D=$1 M=$2
. "$(dirname "$0")/../lib.sh"
cd "$tmp" || exit 2
mkdir cases
cat >cases/int_min.case <<'CASE'
case int-min/minus-one
note: INT_MIN / -1 at element 2 of 4: unspecified, but it must not crash
variant: onnx-div-14
dtype: i32
requirement: ONNX-DIV14-TYPES
a.shape: (4,)
a: 1 2 -2147483648 8
b.shape: (4,)
b: 1 1 -1 2
expect.shape: (4,)
expect: 1 2 unspecified 4
CASE
pair='-2147483648 (0x80000000) / -1 (0xffffffff): crash in compute'
"$D" certify --plugin "$M/mutant_crash_int_min.so" --db c.db --variant onnx-div-14 --dtype i32 \
    --cases cases --random 0 --shape-tier 0 --no-probes --no-thread-counts --cpu native \
    --no-progress >out 2>err
rc=$?
[ $rc -eq 1 ] && ok || bad "certify exits $rc, want 1: $(tail -3 err)"
grep -q "^    crash  *[0-9]*  $pair (run 1): SIGFPE" out && ok ||
    bad "certify's crash line does not lead with the operands: $(grep crash out)"
for f in md json junit html; do
    "$D" report --db c.db --run 1 --format $f -o r.$f 2>err
    grep -q -- "$pair" r.$f && ok || bad "the $f report does not name the operands of the crash"
done
grep -q 'class="values">-2147483648 (0x80000000)</span>' r.html && ok ||
    bad "the HTML shows A's value of the narrowed pair nowhere"
grep -q '"b_values": "-1 (0xffffffff)"' r.json && ok || bad "JSON has no b_values of the narrowed pair"
# no operand in the HTML as bytes alone
n_dd=$(grep -o '<dt>[AB]</dt><dd class="mono">' r.html | wc -l)
n_values=$(grep -o '<dt>[AB]</dt><dd class="mono"><span class="values">' r.html | wc -l)
[ "$n_dd" -gt 0 ] && [ "$n_dd" = "$n_values" ] && ok ||
    bad "$n_dd operands in the HTML, $n_values of them with values"
finish crash_operands
