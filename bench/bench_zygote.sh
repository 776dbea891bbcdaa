#!/bin/sh
# SPDX-License-Identifier: MIT
# What the zygote saves (harness/worker/zygote.c): each figure measured with
# the zygote and with the behaviour before it (DIVERGENCE_NO_ZYGOTE=1: every
# crash reloads the plugin), the two runs back to back, the best of REPS
# pairs (the machine may be shared). The figures:
#   certify libtorch (its INT_MIN / -1 crashes; each reload costs ~0.45 s)
#   certify the reference kernel (no crashes: the zygote must cost nothing)
#   sweep f16 of the reference kernel (every pair; likewise)
# The flags are those of scripts/certify-all.sh (--timeout 10000). The
# certificates of both runs must agree; a difference is printed.
#
# Usage: bench/bench_zygote.sh [BUILD_DIR]
#   REPS=N           pairs per figure (default 3)
#   SKIP_LIBTORCH=1  leave libtorch out (its baseline takes 2-4 minutes)
# Prints one line per run on stderr and a Markdown table (figure, with the
# zygote, without, ratio) on stdout; bench/run-all.sh takes its rows.
set -u
B=${1:-build}
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
D=$B/divergence
REF=$B/plugins/reference.so
TORCH=$B/plugins/libtorch.so
REPS=${REPS:-3}
for f in "$D" "$REF"; do
    [ -e "$f" ] || { echo "bench_zygote: no $f (build first: ninja -C $B)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
say() { echo "bench_zygote: $*" >&2; }
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh" # faster, ratio, add
# What must not differ between the two runs: the verdict lines, without
# times, paths and fault addresses.
verdicts() {
    grep -E 'CONFORMANT|CRASHED|HUNG|claims hold|pairs judged' "$1" |
        sed -e 's/[0-9.]* s\b//g' -e 's/0x[0-9a-f]*//g' -e 's/[0-9.e+]* pairs\/s//' \
            -e 's/run [0-9]* in [^ ]*//' -e "s/'divergence .*//"
}

# pair NAME ARGS...: runs `divergence ARGS --db DB` with the zygote and
# without, REPS times each, back to back; leaves the best times in $zy, $re.
pair() {
    name=$1
    shift
    zy=999999 re=999999
    for rep in $(seq "$REPS"); do
        for mode in zygote reload; do
            nz=0
            [ "$mode" = reload ] && nz=1
            db=$tmp/$name-$mode.db
            rm -f "$db" "$db-wal" "$db-shm"
            DIVERGENCE_NO_ZYGOTE=$nz /usr/bin/time -f '%e' -o "$tmp/time" \
                "$D" "$@" --db "$db" --no-progress >"$tmp/$name-$mode.out" 2>&1
            sec=$(tail -1 "$tmp/time")
            say "$name, $mode, run $rep: $sec s"
            if [ "$mode" = zygote ]; then
                faster "$sec" "$zy" && zy=$sec
            else
                faster "$sec" "$re" && re=$sec
            fi
        done
        verdicts "$tmp/$name-zygote.out" >"$tmp/v1"
        verdicts "$tmp/$name-reload.out" >"$tmp/v2"
        if ! cmp -s "$tmp/v1" "$tmp/v2"; then
            say "$name: the certificates differ between the zygote and reloading:"
            diff "$tmp/v1" "$tmp/v2" >&2
        fi
    done
}

echo "| figure (wall s, best of $REPS) | with the zygote | reloading (DIVERGENCE_NO_ZYGOTE=1) | ratio / goal |"
echo "| --- | --- | --- | --- |"
if [ "${SKIP_LIBTORCH:-0}" != 1 ] && [ -e "$TORCH" ]; then
    pair libtorch certify --plugin "$TORCH" --timeout 10000
    crashes=$(grep -cE '^ +crash ' "$tmp/libtorch-zygote.out")
    echo "| certify libtorch, --timeout 10000 ($crashes crash signatures) | $zy | $re | $(ratio "$re" "$zy") faster (goal >= 5x) |"
else
    echo "| certify libtorch | not run (SKIP_LIBTORCH=1 or not built) | | |"
fi
pair reference certify --plugin "$REF" --timeout 10000
echo "| certify reference | $zy | $re | $(ratio "$zy" "$re") of the time (goal <= 1.10x) |"
pair f16 sweep --plugin "$REF" --dtype f16
echo "| sweep f16, reference, every pair | $zy | $re | $(ratio "$zy" "$re") of the time (goal <= 1.10x) |"
