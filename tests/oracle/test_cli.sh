#!/bin/sh
# SPDX-License-Identifier: MIT
# The oracle's two CLI commands: answers, and clear errors with exit 2 on
# bad input. Usage: test_cli.sh path/to/divergence
set -u
D=$1
. "$(dirname "$0")/../lib.sh"


# expect_out NAME WANT CMD... : stdout of CMD equals WANT, exit 0
expect_out() {
    name=$1 want=$2; shift 2
    got=$("$@" 2>"$tmp/err"); rc=$?
    if [ $rc -eq 0 ] && [ "$got" = "$want" ]; then ok; else bad "$name: rc=$rc got '$got' want '$want' ($(cat "$tmp/err"))"; fi
}

# expect_err NAME PATTERN CMD... : exit 2 and stderr matches PATTERN
expect_err() {
    name=$1 pat=$2; shift 2
    "$@" >"$tmp/out" 2>"$tmp/err" </dev/null; rc=$?
    if [ $rc -eq 2 ] && grep -q -- "$pat" "$tmp/err"; then ok; else bad "$name: rc=$rc stderr '$(cat "$tmp/err")' (want /$pat/)"; fi
}

# expect_err_in NAME PATTERN INPUT CMD... : same, with INPUT on stdin
expect_err_in() {
    name=$1 pat=$2 input=$3; shift 3
    printf "$input" | "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
    if [ $rc -eq 2 ] && grep -q -- "$pat" "$tmp/err"; then ok; else bad "$name: rc=$rc stderr '$(cat "$tmp/err")' (want /$pat/)"; fi
}

# --- divergence oracle: answers ------------------------------------------
expect_out "f32 1/3, 1/0, 0/0, nan" "$(printf '3eaaaaab\n7f800000\nnan\nnan')" \
    sh -c "printf '3f800000 40400000\n0x3f800000 0x00000000\n00000000 00000000\n7fc00000 3f800000\n' | $D oracle --variant onnx-div-7 --dtype f32"
expect_out "i8 trunc vs floor" "$(printf 'fd\nfc')" \
    sh -c "printf 'f9 02\n' | $D oracle --variant onnx-div-14 --dtype i8; printf 'f9 02\n' | $D oracle --variant openvino-divide-1 --dtype i8"
expect_out "m_pythondiv=false" "fd" \
    sh -c "printf 'f9 02\n' | $D oracle --variant openvino-divide-1 --dtype i8 --attr m_pythondiv=false"
expect_out "int x/0 and INT_MIN/-1" "$(printf 'unspecified\nunspecified')" \
    sh -c "printf '00000001 00000000\n80000000 ffffffff\n' | $D oracle --variant onnx-div-7 --dtype i32"
expect_out "sonnx x/0 any inf" "inf" \
    sh -c "printf 'bc00 0000\n' | $D oracle --variant sonnx-div --dtype f16"
expect_out "openvino float x/0" "unspecified" \
    sh -c "printf '3c00 0000\n' | $D oracle --variant openvino-divide-1 --dtype f16"
expect_out "i4 packed operands" "$(printf '3\nunspecified')" \
    sh -c "printf '7 2\n8 f\n' | $D oracle --variant openvino-divide-1 --dtype i4"
expect_out "blank lines skipped, CRLF" "$(printf '3c00\n4000')" \
    sh -c "printf '3c00 3c00\r\n\n4000 3c00\n' | $D oracle --variant onnx-div-7 --dtype f16"

# Fast path and exact path agree on 200k seeded random f32 lines.
awk 'BEGIN { srand(7); for (i = 0; i < 200000; i++) printf "%08x %08x\n", int(rand() * 4294967296), int(rand() * 4294967296) }' >"$tmp/pairs"
"$D" oracle --variant onnx-div-7 --dtype f32 <"$tmp/pairs" >"$tmp/fast" && \
"$D" oracle --variant onnx-div-7 --dtype f32 --exact <"$tmp/pairs" >"$tmp/exact"
if cmp -s "$tmp/fast" "$tmp/exact" && [ "$(wc -l <"$tmp/fast")" -eq 200000 ]; then ok; else bad "fast and exact paths differ"; fi

# --- divergence explain ---------------------------------------------------
"$D" explain --variant openvino-divide-1 --dtype i8 -- -7 2 >"$tmp/x" 2>&1
if grep -q 'expected *0xfc *-4' "$tmp/x" && grep -q 'OV-PYTHONDIV' "$tmp/x" && grep -q 'floor division' "$tmp/x"; then ok; else bad "explain floor: $(cat "$tmp/x")"; fi
"$D" explain --variant onnx-div-7 --dtype f32 -1 0 >"$tmp/x" 2>&1
if grep -q 'expected *0xff800000 *-inf' "$tmp/x" && grep -q 'IEEE-DIV-ZERO' "$tmp/x"; then ok; else bad "explain -1/0: $(cat "$tmp/x")"; fi
"$D" explain --variant sonnx-div --dtype i32 -- -7 2 >"$tmp/x" 2>&1
if grep -q 'expected *0xfffffffc *-4' "$tmp/x" && grep -q 'SONNX-INT-FLOOR' "$tmp/x" && grep -q 'trunc' "$tmp/x"; then ok; else bad "explain sonnx: $(cat "$tmp/x")"; fi
"$D" explain --variant onnx-div-6 --dtype i64 -- -9223372036854775808 -1 >"$tmp/x" 2>&1
if grep -q 'unspecified' "$tmp/x" && grep -q 'SEM-INT-MIN-NEG1' "$tmp/x"; then ok; else bad "explain INT_MIN/-1: $(cat "$tmp/x")"; fi

# --- bad input: clear error, exit 2 --------------------------------------
expect_err "unknown variant" "unknown variant 'onnx-div-99'" "$D" oracle --variant onnx-div-99 --dtype f32
expect_err "missing variant" "--variant is required" "$D" oracle --dtype f32
expect_err "unknown dtype" "unknown dtype 'f8'" "$D" oracle --variant onnx-div-7 --dtype f8
expect_err "dtype not in variant" "dtype i8 is not in the type list of onnx-div-7" "$D" oracle --variant onnx-div-7 --dtype i8
expect_err "attr not in variant" "attribute 'm_pythondiv' is not defined by onnx-div-7" "$D" oracle --variant onnx-div-7 --dtype f32 --attr m_pythondiv=true
expect_err "bad attr value" "auto_broadcast='both'" "$D" oracle --variant openvino-divide-1 --dtype f32 --attr auto_broadcast=both
expect_err "attr without =" "expected key=value" "$D" explain --variant openvino-divide-1 --dtype f32 --attr axis 1 2
expect_err "option without value" "needs a value" "$D" oracle --variant
expect_err "explain one operand" "expected two operands" "$D" explain --variant onnx-div-7 --dtype f32 1
# the messages name the command (explain's once named its first operand)
expect_err "explain names itself" "^divergence explain: --variant is required" "$D" explain 1 2
expect_err "explain names itself (attr)" "^divergence explain: --attr 'axis'" "$D" explain --variant openvino-divide-1 --dtype f32 --attr axis 1 2
expect_err "explain out of range" "out of the range of i8" "$D" explain --variant onnx-div-14 --dtype i8 200 1
expect_err "explain malformed" "not a number" "$D" explain --variant onnx-div-7 --dtype f32 1.5.2 1
expect_err "unknown command" "unknown command" "$D" frobnicate
expect_err_in "malformed hex" "stdin line 2: malformed hex operand" '3c00 3c00\n3c0g 3c00\n' "$D" oracle --variant onnx-div-7 --dtype f16
expect_err_in "wrong width short" "stdin line 1: operand has the wrong width" '3c0 3c00\n' "$D" oracle --variant onnx-div-7 --dtype f16
expect_err_in "wrong width long" "stdin line 1: operand is wider than the dtype" '3c000 3c00\n' "$D" oracle --variant onnx-div-7 --dtype f16
expect_err_in "one operand" "stdin line 1: expected two operands" '3c00\n' "$D" oracle --variant onnx-div-7 --dtype f16
expect_err_in "three operands" "stdin line 1: trailing text" '3c00 3c00 3c00\n' "$D" oracle --variant onnx-div-7 --dtype f16
# The lines before a bad one are answered.
printf '3c00 3c00\nzz\n' | "$D" oracle --variant onnx-div-7 --dtype f16 >"$tmp/out" 2>/dev/null
if [ "$(cat "$tmp/out")" = "3c00" ]; then ok; else bad "lines before the error: '$(cat "$tmp/out")'"; fi

finish
