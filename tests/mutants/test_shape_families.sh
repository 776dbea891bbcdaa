#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 26's shape families catch the mutants built for them
# (tests/mutants/README.md): the 2-D tiles an 8x8 tiling's remainder rows,
# the large code paths a float path wrong above 4 Mi elements in a claim
# the large tier's rotation gives 2^20 at most, the scalar divisors a
# shift fast path under m_pythondiv=false with every seed; each finding
# names its family; the reference stays CONFORMANT on the same runs.
# Usage: test_shape_families.sh DIVERGENCE MUTANT_DIR REFERENCE_SO
set -u
D=$1 M=$2 REF=$3
. "$(dirname "$0")/../lib.sh"

# certify PLUGIN NAME WANT_RC PATTERN ARGS...
certify() {
    plugin=$1 name=$2 want_rc=$3 pattern=$4; shift 4
    "$D" certify --plugin "$plugin" --db "$tmp/$name.db" --no-progress "$@" >"$tmp/$name.out" 2>&1
    rc=$?
    if [ $rc -ne "$want_rc" ]; then
        bad "$name: exit $rc, want $want_rc"; sed -n 1,20p "$tmp/$name.out" >&2; return
    fi
    if grep -q -- "$pattern" "$tmp/$name.out"; then ok; else
        bad "$name: no /$pattern/ in the certificate"; sed -n 1,20p "$tmp/$name.out" >&2
    fi
}

# source NAME PATTERN: a reproducer of the run NAME names the family.
source_names() {
    src=$(sqlite3 "$tmp/$1.db" "SELECT r.source FROM reproducers r" 2>&1)
    if printf '%s\n' "$src" | grep -q -- "$2"; then ok; else
        bad "$1: no reproducer whose source names /$2/: $(printf '%s' "$src" | head -3)"; fi
}

# 1. 8x8 tiles: a numpy claim and one of each by-attribute rule.
certify "$M/mutant_tile_8x8.so" tile 1 '^    wrong-value ' --variant onnx-div-14 --dtype i32
source_names tile '^tile [0-9]*x[0-9]*'
certify "$M/mutant_tile_8x8.so" tile_ov 1 '^    wrong-value ' --variant openvino-divide-1 --dtype f32
certify "$M/mutant_tile_8x8.so" tile_sonnx 1 '^    wrong-value ' --variant sonnx-div --dtype u8
# 2. A plugin of two claims, default flags: the f32 claim's large case finds
# the float path, the i32 claim holds.
certify "$M/mutant_float_4mi.so" f4mi 1 '^  onnx-div-14        f32   NONCONFORMANT'
if grep -q '^  onnx-div-14        i32   CONFORMANT' "$tmp/f4mi.out"; then ok; else
    bad "float_4mi: the i32 claim does not hold"; fi
source_names f4mi '^large, [0-9]* elements'
# 3. The shift fast path, under every seed.
for seed in 1 2 3; do
    certify "$M/mutant_shift_pow2.so" shift$seed 1 '^    floor-vs-trunc ' --seed $seed \
        --variant openvino-divide-1 --dtype i32
    source_names shift$seed '^scalar divisor [0-9]*, .*m_pythondiv=false'
done
# The control: the reference on the same claims.
certify "$REF" ref 0 '^6 of 6 claims hold' --variant onnx-div-14 --variant openvino-divide-1 \
    --variant sonnx-div --dtype f32 --dtype i32
finish
