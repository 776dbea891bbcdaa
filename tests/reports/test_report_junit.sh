#!/bin/sh
# SPDX-License-Identifier: MIT
# The JUnit XML report validated against a JUnit schema (xmllint) and read
# back by a standard XML parser: one testcase per claim, failures exactly
# for the claims that do not hold, class counts and replay commands.
# Usage: test_report_junit.sh DIVERGENCE PLUGIN_DIR SOURCE_DIR
set -u
. "$3/lib.sh"
need xmllint

cd "$tmp" || exit 1
"$D" certify --plugin "$P/plugin_hostile.so" --variant onnx-div-7 --variant onnx-div-14 \
    --dtype f32 --dtype i32 --dtype u32 --random 20 --seed 3 --db j.db --no-progress --cases "" \
    >certify.out 2>&1
check "certify exits 1" [ $? -eq 1 ]
"$D" certify --plugin "$P/plugin_fix_v2.so" --variant onnx-div-14 --dtype i16 --random 10 \
    --db j.db --no-progress --cases "" >certify2.out 2>&1
check "the fixed plugin holds" [ $? -eq 0 ]

"$D" report --db j.db --run 1 --format junit -o r1.xml 2>err.txt
check "report run 1: $(cat err.txt)" [ $? -eq 0 ]
"$D" report --db j.db --plugin fixcheck-div --latest --format junit -o r2.xml 2>err.txt
check "report of fixcheck-div: $(cat err.txt)" [ $? -eq 0 ]
# Neither --run nor --plugin: the newest run of the database (run 2), as
# the usage line says.
"$D" report --db j.db --format junit -o r3.xml 2>err.txt
check "report without --run: $(cat err.txt)" [ $? -eq 0 ]
"$D" report --db j.db --run 2 --format junit -o r4.xml 2>err.txt
check "report run 2: $(cat err.txt)" [ $? -eq 0 ]
check "report without --run is run 2's" cmp -s r3.xml r4.xml
for f in r1.xml r2.xml; do
    xmllint --noout --schema "$S/junit.xsd" "$f" 2>xmllint.err
    check "$f valid against junit.xsd: $(cat xmllint.err)" [ $? -eq 0 ]
done
"$PY" "$S/check_junit.py" r1.xml j.db 1
check "run 1 read back" [ $? -eq 0 ]
"$PY" "$S/check_junit.py" r2.xml j.db 2
check "run 2 read back" [ $? -eq 0 ]
# Counts a CI system shows: 6 claims, 4 failing (f32 and i32 of both
# variants), and the fixed plugin's one passing claim.
check "run 1: tests=6 failures=4" grep -q '<testsuites name="divergence" tests="6" failures="4"' r1.xml
check "run 2: tests=1 failures=0" grep -q '<testsuites name="divergence" tests="1" failures="0"' r2.xml
finish
