#!/bin/sh
# SPDX-License-Identifier: MIT
# What divergence diff finds among the real libraries (docs/diff.md),
# asserted. First the hazard table of docs/diff.md, read from that file:
# for each of its rows (hazard class, pair, `hazard` or `where` row,
# example element, what each library gives), a fresh `diff --partial` of
# the six implementations on the pairs the table names (one run per
# variant) must print that row with that example and each library's cell,
# and no line at all for a library whose cell is `-` (it does not claim
# the pair). Then: on integer x/0 and INT_MIN/-1 of ONNX Div-14 i32, ONNX
# Runtime and libtorch refuse x/0 (a hazard beside the reference's value)
# and die of SIGFPE on INT_MIN/-1, Eigen dies of SIGFPE on both, where the
# reference gives its value; XNNPACK's declared
# flush-to-zero is a declared-deviation hazard beside the reference on
# f32; --partial compares a pair among the plugins that claim it. Exit 77
# (skipped) when an adapter was not built (its library is not installed;
# scripts/setup.sh installs all of them).
# Usage: test_diff_realworld.sh DIVERGENCE PLUGIN_DIR DIFF_MD
set -u
D=$1 P=$2 DOC=$3
for lib in reference onnxruntime libtorch eigen xnnpack onednn; do
    if [ ! -f "$P/$lib.so" ]; then
        echo "SKIP: $P/$lib.so was not built (run scripts/setup.sh)"
        exit 77
    fi
done
. "$(dirname "$0")/../lib.sh"
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

# --- The hazard table of docs/diff.md ---------------------------------------
# table_rows: the table's rows, tab-separated and trimmed, the header first
# (hazard class, pair, row, example, then one column per library).
table_rows() {
    awk '/^\| hazard class \| pair \| row \| example \|/ { on = 1 }
        on && !/^\|/ { exit }
        on && !/^\| ---/ {
            n = split($0, f, "|"); line = ""
            for (i = 2; i < n; i++) {
                gsub(/^ +| +$/, "", f[i])
                line = line (i > 2 ? "\t" : "") f[i]
            }
            print line
        }' "$DOC"
}
# row_cells FILE VARIANT DTYPE KIND HAZARD: the first "KIND HAZARD" line of
# the pair's section in diff's output: "example<TAB>its example", then
# "plugin<TAB>cell" for each library listed under it.
row_cells() {
    awk -v v="$2" -v t="$3" -v k="$4" -v h="$5" '
        /^  [^ ]/ { insec = ($1 == v && $2 == t); inrow = 0; next }
        !insec { next }
        /^    [^ ]/ {
            inrow = 0
            if (!done && $1 == k && ($2 == h || $2 == h ",")) {
                eg = $0
                sub(/.*  e\.g\. /, "", eg)
                sub(/ alone:$/, "", eg)
                sub(/ \(oracle: .*$/, "", eg)
                print "example\t" eg
                done = inrow = 1
            }
            next
        }
        inrow && /^      [^ ]/ { val = $0; sub(/^ *[^ ]+ +/, "", val); print $1 "\t" val }' "$1"
}
tab=$(printf '\t')
table_rows >"$tmp/table"
rows=$(($(wc -l <"$tmp/table") - 1))
if [ "$rows" -lt 10 ]; then
    bad "the hazard table of $DOC has $rows rows, want at least 10"
fi
for h in int-div-zero int-min-neg-one float-div-zero-undefined unsigned-inf-sign \
    nan-sign-or-payload declared-deviation; do
    cut -f1 "$tmp/table" | grep -qx "$h" && ok || bad "the hazard table has no $h row"
done
head -1 "$tmp/table" | tr '\t' '\n' | tail -n +5 >"$tmp/libs"
[ "$(tr '\n' ' ' <"$tmp/libs")" = "divergence-reference eigen libtorch onednn onnxruntime xnnpack " ] &&
    ok || bad "the hazard table's columns: $(tr '\n' ' ' <"$tmp/libs")"
# one diff per variant of the table, on the dtypes the table names for it
for v in $(tail -n +2 "$tmp/table" | cut -f2 | cut -d' ' -f1 | sort -u); do
    dts=$(tail -n +2 "$tmp/table" | cut -f2 | awk -v v="$v" '$1 == v { printf " --dtype %s", $2 }')
    # shellcheck disable=SC2086 # one word per flag
    "$D" diff --partial --plugin "$P/reference.so" --plugin "$P/eigen.so" \
        --plugin "$P/libtorch.so" --plugin "$P/onednn.so" --plugin "$P/onnxruntime.so" \
        --plugin "$P/xnnpack.so" --variant "$v" $dts --random 20 --timeout 20000 \
        --db "$tmp/t.db" >"$tmp/t-$v.out" 2>&1
    rc=$?
    [ $rc -le 1 ] && ok || { bad "table: diff of $v exit $rc"; cat "$tmp/t-$v.out"; }
done
# The table was made on a CPU with avx512_bf16 and without avx512_fp16
# (docs/diff.md): oneDNN's f16 and bf16 primitives depend on both
# (docs/findings.md), and with them which cases it computes and so the
# example of the row. Elsewhere the f16 and bf16 rows are skipped, named.
has_cpu() { grep -q "^flags.* $1\( \|$\)" /proc/cpuinfo; }
same_isa=1
if ! has_cpu avx512_bf16 || has_cpu avx512_fp16; then
    same_isa=0
    echo "note: this CPU's avx512_bf16/avx512_fp16 differ from the table's: f16 and bf16 rows skipped"
fi
tail -n +2 "$tmp/table" | while IFS=$tab read -r h pair kind ex rest; do
    v=${pair% *} t=${pair#* }
    if [ $same_isa -eq 0 ] && { [ "$t" = f16 ] || [ "$t" = bf16 ]; }; then
        echo "skipped: $h $pair $kind (another CPU)"
        continue
    fi
    row_cells "$tmp/t-$v.out" "$v" "$t" "$kind" "$h" >"$tmp/cells"
    got=$(sed -n "s/^example$tab//p" "$tmp/cells")
    if [ "$got" != "$ex" ]; then
        echo "FAIL: table $h $pair $kind: example '$got', want '$ex'"
        continue
    fi
    i=0
    while read -r lib; do
        i=$((i + 1))
        want=$(printf '%s\n' "$rest" | cut -f"$i")
        got=$(awk -F'\t' -v p="$lib" '$1 == p { print $2 }' "$tmp/cells")
        [ "$want" = - ] && want=""
        [ "$got" = "$want" ] ||
            echo "FAIL: table $h $pair $kind $lib: got '${got:--}', want '${want:--}'"
    done <"$tmp/libs"
    echo "checked: $h $pair $kind"
done >"$tmp/checks"
n_fail=$(grep -c '^FAIL' "$tmp/checks")
grep '^FAIL' "$tmp/checks"
[ "$n_fail" -eq 0 ] && ok || { fail=$((fail + n_fail)); }
checked=$(grep -c '^checked' "$tmp/checks")
skipped=$(grep -c '^skipped' "$tmp/checks")
grep '^skipped' "$tmp/checks"
[ $((checked + skipped)) -eq "$rows" ] && [ "$checked" -ge 8 ] && ok ||
    bad "table: $checked of $rows rows found in diff's output ($skipped skipped)"
echo "hazard table: $checked of $rows rows found, $skipped skipped, $n_fail differences"

# --- ONNX Div-14 i32 and f32, --partial -----------------------------------------
"$D" diff --plugin "$P/reference.so" --plugin "$P/onnxruntime.so" --plugin "$P/libtorch.so" \
    --plugin "$P/eigen.so" --variant onnx-div-14 --dtype i32 --random 20 --timeout 20000 \
    --db "$tmp/i.db" >"$tmp/i.out" 2>&1
[ $? -eq 1 ] && ok || bad "i32: exit $?, want 1 (the libraries depart)"
want "$tmp/i.out" where_given int-div-zero divergence-reference "0 (0x00000000)"
want "$tmp/i.out" where_given int-div-zero onnxruntime "refuses: error status"
want "$tmp/i.out" where_given int-div-zero libtorch "refuses: error status"
want "$tmp/i.out" where_given int-div-zero eigen "crash (SIGFPE)"
want "$tmp/i.out" where_given int-min-neg-one divergence-reference "-2147483648 (0x80000000)"
want "$tmp/i.out" where_given int-min-neg-one eigen "crash (SIGFPE)"
# x / 0 alone, or with no INT_MIN / -1 beside it, is refused: a hazard
# beside the reference's value (docs/semantics.md, "Refusing undefined input")
want "$tmp/i.out" hazard_given int-div-zero onnxruntime "refuses: error status"
want "$tmp/i.out" hazard_given int-div-zero libtorch "refuses: error status"
want "$tmp/i.out" where_given int-min-neg-one onnxruntime "crash (SIGFPE)"
want "$tmp/i.out" where_given int-min-neg-one libtorch "crash (SIGFPE)"
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

finish "diff realworld"
