#!/bin/sh
# SPDX-License-Identifier: MIT
# ONNX's own Div tests (every test_div* of libonnx-testdata) on the
# reference kernel: each case conforms, and the shipped outputs agree with
# the oracle. Exit 77 (skipped) when the test data is not installed, or
# divergence was built without protobuf-c (both come with scripts/setup.sh).
# Usage: test_onnx_reference.sh DIVERGENCE REFERENCE_SO TESTDATA_DIR
set -u
D=$1 REF=$2 DATA=$3
. "$(dirname "$0")/../lib.sh"
if ! ls -d "$DATA"/test_div* >/dev/null 2>&1; then
    echo "SKIP: no test_div* in $DATA (apt-get install libonnx-testdata)"
    exit 77
fi
n=$(ls -d "$DATA"/test_div* | wc -l)
out=$("$D" onnx-tests "$DATA" --plugin "$REF" 2>&1)
rc=$?
if [ $rc -eq 2 ] && echo "$out" | grep -q "built without protobuf-c"; then
    echo "SKIP: $out"
    exit 77
fi
echo "$out"
[ $rc -eq 0 ] && ok || bad "exit $rc, want 0"
for t in "$DATA"/test_div*; do
    name=$(basename "$t")
    echo "$out" | grep -q "^$name/test_data_set_0: " && ok || bad "$name did not run"
done
echo "$out" | grep -q "^$n case(s); plugin $REF: $n conform, 0 depart, 0 skipped; test data: $n agree with the oracle, 0 disagree$" &&
    ok || bad "summary is not '$n conform, $n agree'"
# Each test directory alone, too.
for t in "$DATA"/test_div*; do
    check "$t alone" "$D" onnx-tests "$t" --plugin "$REF" >/dev/null 2>&1
done
finish onnx-reference
