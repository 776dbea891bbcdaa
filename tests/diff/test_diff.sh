#!/bin/sh
# SPDX-License-Identifier: MIT
# divergence diff: the reference kernel against kernels that conform but
# choose otherwise where the specs leave room (each hazard class must come
# out with what each plugin gave), and against one that departs (the
# departure must be attributed to it, and to it alone); the run in the
# store as kind diff, its hazards as findings of the plugin set.
# Usage: test_diff.sh DIVERGENCE REFERENCE_SO DIFF_DIR MUTANT_DIR
set -u
D=$1 REF=$2 OTHER=$3/mutant_other_unspecified.so M=$4
. "$(dirname "$0")/../lib.sh"
db=$tmp/diff.db

# run NAME WANT_RC ARGS...: divergence diff into $tmp/NAME.out
run() {
    name=$1 want=$2; shift 2
    "$D" diff --db "$db" --cases "" --random 20 "$@" >"$tmp/$name.out" 2>&1
    rc=$?
    if [ $rc -eq "$want" ]; then ok; else
        bad "$name: exit $rc, want $want"; sed -n 1,40p "$tmp/$name.out" >&2
    fi
}

# given NAME VARIANT HAZARD PLUGIN: what PLUGIN gives in the HAZARD row of
# the table of VARIANT in $tmp/NAME.out
given() {
    awk -v v="$2" -v h="$3" -v p="$4" '
        /^  [a-z]/ { inpair = ($1 == v) }
        inpair && /^    hazard / { inhz = ($2 == h); next }
        inpair && inhz && /^      / && $1 == p { $1 = ""; sub(/^ /, ""); print; exit }
        /^    [a-zA-Z]/ && !/^    hazard / { inhz = 0 }' "$tmp/$1.out"
}

# where_given NAME VARIANT HAZARD PLUGIN: what PLUGIN does in the "where
# HAZARD, a plugin does not compute" rows
where_given() {
    awk -v v="$2" -v h="$3," -v p="$4" '
        /^  [a-z]/ { inpair = ($1 == v) }
        inpair && /^    where / { inhz = ($2 == h); next }
        inpair && inhz && /^      / && $1 == p { $1 = ""; sub(/^ /, ""); print; exit }
        /^    [a-zA-Z]/ && !/^    where / { inhz = 0 }' "$tmp/$1.out"
}

# expect NAME VARIANT HAZARD PLUGIN VALUE
expect() {
    got=$(given "$1" "$2" "$3" "$4")
    if [ "$got" = "$5" ]; then ok; else
        bad "$1 $2 $3 $4: got '$got', want '$5'"; sed -n 1,60p "$tmp/$1.out" >&2
    fi
}

R=divergence-reference O=divergence-mutant-other_unspecified

# Integers: x/0 is 0 in the reference, -1 in the other; INT_MIN/-1 is
# INT_MIN against INT_MAX. Both conform: exit 0, nobody departs.
run int 0 --plugin "$REF" --plugin "$OTHER" --variant onnx-div-14 --dtype i32
expect int onnx-div-14 int-div-zero $R "0 (0x00000000)"
expect int onnx-div-14 int-div-zero $O "-1 (0xffffffff)"
expect int onnx-div-14 int-min-neg-one $R "-2147483648 (0x80000000)"
expect int onnx-div-14 int-min-neg-one $O "2147483647 (0x7fffffff)"
if grep -q DEPARTS "$tmp/int.out"; then bad "int: a departure reported"; else ok; fi
# unsigned: x/0 gives all ones
run u8 0 --plugin "$REF" --plugin "$OTHER" --variant onnx-div-14 --dtype u8
expect u8 onnx-div-14 int-div-zero $O "255 (0xff)"

# Floats: the NaN of 0/0 differs in sign or payload.
run nan 0 --plugin "$REF" --plugin "$OTHER" --variant onnx-div-14 --dtype f32
got=$(given nan onnx-div-14 nan-sign-or-payload $O)
case $got in *0xffc00001*) ok ;; *) bad "nan: other gives '$got', want 0xffc00001" ;; esac
got=$(given nan onnx-div-14 nan-sign-or-payload $R)
case $got in *nan*) ok ;; *) bad "nan: reference gives '$got', want a NaN" ;; esac

# SONNX's unsigned inf and OpenVINO's undefined x/0: wrong_inf_sign's +inf
# conforms there.
W=divergence-mutant-wrong_inf_sign
run inf 0 --plugin "$REF" --plugin "$M/mutant_wrong_inf_sign.so" --variant sonnx-div \
    --variant openvino-divide-1 --dtype f32
expect inf sonnx-div unsigned-inf-sign $R "-inf (0xff800000)"
expect inf sonnx-div unsigned-inf-sign $W "inf (0x7f800000)"
got=$(given inf openvino-divide-1 float-div-zero-undefined $W)
[ -n "$got" ] && ok || bad "inf: no float-div-zero-undefined row for openvino-divide-1"

# A declared flush to zero.
F=divergence-mutant-hw_ftz
run ftz 0 --plugin "$REF" --plugin "$M/mutant_hw_ftz.so" --variant onnx-div-13 --dtype f32
got=$(given ftz onnx-div-13 declared-deviation $F)
case $got in "0 (0x00000000)"|"-0 (0x80000000)") ok ;;
    *) bad "ftz: hw_ftz gives '$got' in the declared-deviation row, want a zero" ;; esac

# A departure is the departing plugin's alone: exit 1.
C=divergence-mutant-crash_int_min
run crash 1 --plugin "$REF" --plugin "$OTHER" --plugin "$M/mutant_crash_int_min.so" \
    --variant onnx-div-14 --dtype i32
if grep -q "^    DEPARTS $C: .*crash" "$tmp/crash.out"; then ok; else
    bad "crash: no departure of $C"; cat "$tmp/crash.out" >&2; fi
# The others are still compared, element by element, on the cases it
# does not compute: their x/0 hazard, with its crash beside them.
expect crash onnx-div-14 int-div-zero $R "0 (0x00000000)"
expect crash onnx-div-14 int-div-zero $O "-1 (0xffffffff)"
expect crash onnx-div-14 int-div-zero $C "crash (SIGFPE)"
# ... and where it does not compute, what each plugin does there.
got=$(where_given crash onnx-div-14 int-div-zero $C)
[ "$got" = "crash (SIGFPE)" ] && ok || bad "crash: x/0 row of $C: '$got', want 'crash (SIGFPE)'"
got=$(where_given crash onnx-div-14 int-div-zero $O)
[ "$got" = "-1 (0xffffffff)" ] && ok || bad "crash: x/0 row of $O: '$got', want -1"
got=$(where_given crash onnx-div-14 int-min-neg-one $R)
[ "$got" = "-2147483648 (0x80000000)" ] && ok || bad "crash: INT_MIN/-1 row of $R: '$got'"
if grep "^    DEPARTS" "$tmp/crash.out" | grep -v -q "DEPARTS $C:"; then
    bad "crash: a departure attributed to another plugin"; else ok; fi

# The store: runs of kind diff, hazards as findings of the plugin set.
"$D" query --db "$db" runs >"$tmp/runs.out" 2>&1
n=$(grep -c " diff " "$tmp/runs.out")
[ "$n" -ge 6 ] && ok || { bad "store: $n runs of kind diff, want 6"; cat "$tmp/runs.out" >&2; }
"$D" query --db "$db" --json new --since 0 >"$tmp/new.json" 2>&1
if grep -q "\"$R|$O\"" "$tmp/new.json" && grep -q '"int-min-neg-one"' "$tmp/new.json"; then ok
else bad "store: no int-min-neg-one finding of $R|$O"; head -c 3000 "$tmp/new.json" >&2; fi
sig=$(sed -n 's/.*reproducer int-div-zero .*\[sig:\([0-9]*\)\]$/\1/p' "$tmp/int.out" | head -1)
if [ -n "$sig" ] && "$D" query --db "$db" history "sig:$sig" >"$tmp/hist.out" 2>&1 &&
   grep -q "int-div-zero" "$tmp/hist.out"; then ok; else
    bad "store: history of sig:$sig"; cat "$tmp/hist.out" >&2; fi

# Usage: one plugin is not a comparison.
"$D" diff --plugin "$REF" --db "$db" >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "one plugin: want exit 2"

finish diff
