#!/bin/sh
# SPDX-License-Identifier: MIT
# What divergence diff finds among the real libraries (docs/diff.md),
# asserted: on integer x/0 and INT_MIN/-1 of ONNX Div-14 i32, ONNX Runtime
# and libtorch answer an error status or die of SIGFPE, Eigen dies of
# SIGFPE, where the reference gives its value; XNNPACK's declared
# flush-to-zero is a declared-deviation hazard beside the reference on
# f32. Exit 77 (skipped) when an adapter was not built (its library is not
# installed; scripts/setup.sh installs all of them).
# Usage: test_diff_realworld.sh DIVERGENCE PLUGIN_DIR
set -u
D=$1 P=$2
for lib in reference onnxruntime libtorch eigen xnnpack; do
    if [ ! -f "$P/$lib.so" ]; then
        echo "SKIP: $P/$lib.so was not built (run scripts/setup.sh)"
        exit 77
    fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# where_given FILE HAZARD PLUGIN: PLUGIN's cell in the "where HAZARD" rows
where_given() {
    awk -v h="$2," -v p="$3" '
        /^    where / { inhz = ($2 == h); next }
        inhz && /^      / && $1 == p { $1 = ""; sub(/^ /, ""); print; exit }
        /^    [a-zA-Z]/ && !/^    where / { inhz = 0 }' "$1"
}
# hazard_given FILE HAZARD PLUGIN: PLUGIN's cell in the "hazard HAZARD" rows
hazard_given() {
    awk -v h="$2" -v p="$3" '
        /^    hazard / { inhz = ($2 == h); next }
        inhz && /^      / && $1 == p { $1 = ""; sub(/^ /, ""); print; exit }
        /^    [a-zA-Z]/ && !/^    hazard / { inhz = 0 }' "$1"
}
want() { # FILE KIND HAZARD PLUGIN PATTERN
    got=$($2 "$1" "$3" "$4")
    case $got in $5) ok ;; *) bad "$3 $4: got '$got', want '$5'"; sed -n 1,40p "$1" ;; esac
}

"$D" diff --plugin "$P/reference.so" --plugin "$P/onnxruntime.so" --plugin "$P/libtorch.so" \
    --plugin "$P/eigen.so" --variant onnx-div-14 --dtype i32 --random 20 --timeout 20000 \
    --db "$tmp/i.db" >"$tmp/i.out" 2>&1
[ $? -eq 1 ] && ok || bad "i32: exit $?, want 1 (the libraries depart)"
want "$tmp/i.out" where_given int-div-zero divergence-reference "0 (0x00000000)"
want "$tmp/i.out" where_given int-div-zero onnxruntime "failure (error status)"
want "$tmp/i.out" where_given int-div-zero libtorch "failure (error status)"
want "$tmp/i.out" where_given int-div-zero eigen "crash (SIGFPE)"
want "$tmp/i.out" where_given int-min-neg-one divergence-reference "-2147483648 (0x80000000)"
want "$tmp/i.out" where_given int-min-neg-one eigen "crash (SIGFPE)"
for lib in onnxruntime libtorch eigen; do
    grep -q "^    DEPARTS $lib: " "$tmp/i.out" && ok || bad "i32: no departure of $lib"
done
grep -q "^    DEPARTS divergence-reference" "$tmp/i.out" && bad "i32: the reference departs" || ok

"$D" diff --plugin "$P/reference.so" --plugin "$P/xnnpack.so" --variant onnx-div-14 \
    --dtype f32 --random 20 --timeout 20000 --db "$tmp/f.db" >"$tmp/f.out" 2>&1
rc=$?
[ $rc -le 1 ] && ok || bad "f32: exit $rc"
want "$tmp/f.out" hazard_given declared-deviation divergence-reference "*(0x*"
want "$tmp/f.out" hazard_given declared-deviation xnnpack "*(0x*"

# --partial: f64, which XNNPACK does not claim, is compared among the
# others; f32 among all three. Without it, f64 is left out.
"$D" diff --partial --plugin "$P/reference.so" --plugin "$P/xnnpack.so" --plugin "$P/eigen.so" \
    --variant onnx-div-7 --dtype f32 --dtype f64 --random 5 --timeout 20000 \
    --db "$tmp/p.db" >"$tmp/p.out" 2>&1
grep -A1 "^  onnx-div-7 *f64 " "$tmp/p.out" | grep -q "compared: divergence-reference|eigen (" &&
    ok || { bad "--partial: f64 not compared among reference and eigen"; cat "$tmp/p.out"; }
grep -A1 "^  onnx-div-7 *f32 " "$tmp/p.out" | grep -q "compared:" &&
    bad "--partial: f32 compared among a subset" || ok
"$D" diff --plugin "$P/reference.so" --plugin "$P/xnnpack.so" --plugin "$P/eigen.so" \
    --variant onnx-div-7 --dtype f32 --dtype f64 --random 5 --timeout 20000 \
    --db "$tmp/p.db" >"$tmp/q.out" 2>&1
grep -q "^  onnx-div-7 *f64 " "$tmp/q.out" && bad "without --partial: f64 compared" || ok

echo "diff realworld: $pass passed, $fail failed"
[ $fail -eq 0 ]
