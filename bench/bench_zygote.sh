#!/bin/sh
# SPDX-License-Identifier: MIT
# What the zygote saves (harness/worker_program/zygote.c), and what the sandbox
# costs (docs/sandbox.md): each figure measured with the zygote, with the
# behaviour before it (DIVERGENCE_NO_ZYGOTE=1: every crash reloads the
# plugin) and, given a baseline, with another build's divergence (e.g. the
# main branch's before a change), all back to back, the best of REPS rounds
# (the machine may be shared). The figures:
#   certify libtorch (its INT_MIN / -1 crashes; each reload costs ~0.45 s)
#   certify the reference kernel (no crashes: the zygote must cost nothing),
#     with the sandbox and with --sandbox off
#   sweep f16 of the reference kernel (every pair; likewise)
#   one worker's start and load (`divergence plugins`), the reference and
#     libtorch (286 libraries in its view)
# The flags are those of scripts/certify-all.sh (--timeout 10000). The
# certificates of every run of a figure must agree; a difference is printed.
#
# Usage: bench/bench_zygote.sh [BUILD_DIR [BASELINE_DIVERGENCE]]
#   REPS=N           rounds per figure (default 3)
#   SKIP_LIBTORCH=1  leave libtorch out (its reloading run takes 2-4 minutes)
# Prints one line per run on stderr and a Markdown table (figure, with the
# zygote, reloading, the baseline, ratios) on stdout; bench/run-all.sh
# takes its rows. Both builds load this build's plugins.
set -u
B=${1:-build}
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
BASE=${2:-}
D=$B/divergence
REF=$B/plugins/reference.so
TORCH=$B/plugins/libtorch.so
REPS=${REPS:-3}
for f in "$D" "$REF" ${BASE:+"$BASE"}; do
    [ -e "$f" ] || { echo "bench_zygote: no $f (build first: ninja -C $B)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
BENCH=bench_zygote
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh" # faster, ratio, add, say, load
# What must not differ between the two runs: the verdict lines, without
# times, paths and fault addresses.
verdicts() {
    grep -E 'CONFORMANT|CRASHED|HUNG|claims hold|pairs judged' "$1" |
        sed -e 's/[0-9.]* s\b//g' -e 's/0x[0-9a-f]*//g' -e 's/[0-9.e+]* pairs\/s//' \
            -e 's/run [0-9]* in [^ ]*//' -e "s/'divergence .*//"
}

# measure NAME MODES ARGS...: runs `divergence ARGS --db DB` in each mode
# (zygote: this build; reload: this build, DIVERGENCE_NO_ZYGOTE=1; base:
# the baseline), REPS rounds; the best times in $zygote, $reload, $base.
# ARGS "plugins PATH" loads it 5 times a run, the time of one.
measure() {
    name=$1 modes=$2
    shift 2
    zygote=- reload=- base=-
    for rep in $(seq "$REPS"); do
        for mode in $modes; do
            bin=$D nz=0
            [ "$mode" = reload ] && nz=1
            [ "$mode" = base ] && bin=$BASE
            db=$tmp/$name-$mode.db
            rm -f "$db" "$db-wal" "$db-shm"
            if [ "$1" = plugins ]; then
                DIVERGENCE_NO_ZYGOTE=$nz /usr/bin/time -f '%e' -o "$tmp/time" sh -c \
                    'for i in 1 2 3 4 5; do "$0" "$@" >/dev/null 2>&1 || exit 1; done' "$bin" "$@"
                sec=$(awk '{ printf "%.3f", $1 / 5 }' "$tmp/time")
            else
                DIVERGENCE_NO_ZYGOTE=$nz /usr/bin/time -f '%e' -o "$tmp/time" \
                    "$bin" "$@" --db "$db" --no-progress >"$tmp/$name-$mode.out" 2>&1
                sec=$(tail -1 "$tmp/time")
            fi
            say "$name, $mode, run $rep: $sec s"
            eval "best=\$$mode"
            if [ "$best" = - ] || faster "$sec" "$best"; then eval "$mode=$sec"; fi
        done
        [ "$1" = plugins ] && continue
        first=${modes%% *}
        verdicts "$tmp/$name-$first.out" >"$tmp/v1"
        for mode in $modes; do
            verdicts "$tmp/$name-$mode.out" >"$tmp/v2"
            cmp -s "$tmp/v1" "$tmp/v2" ||
                { say "$name: the certificates of $first and $mode differ:"; diff "$tmp/v1" "$tmp/v2" >&2; }
        done
    done
}

both=zygote
[ -n "$BASE" ] && both="zygote base"
echo "| figure (wall s, best of $REPS) | with the zygote | reloading (DIVERGENCE_NO_ZYGOTE=1) | baseline build | ratio / goal |"
echo "| --- | --- | --- | --- | --- |"
if [ "${SKIP_LIBTORCH:-0}" != 1 ] && [ -e "$TORCH" ]; then
    measure libtorch "$both reload" certify --plugin "$TORCH" --timeout 10000
    crashes=$(grep -cE '^ +crash ' "$tmp/libtorch-zygote.out")
    echo "| certify libtorch, --timeout 10000 ($crashes crash signatures) | $zygote | $reload | $base | reloading $(ratio "$reload" "$zygote") slower (goal >= 5x); $(ratio "$zygote" "$base") of the baseline |"
else
    echo "| certify libtorch | not run (SKIP_LIBTORCH=1 or not built) | | | |"
fi
measure reference "$both reload" certify --plugin "$REF" --timeout 10000
echo "| certify reference | $zygote | $reload | $base | $(ratio "$zygote" "$reload") of reloading, $(ratio "$zygote" "$base") of the baseline (goal <= 1.10x) |"
measure reference-off "$both" certify --plugin "$REF" --timeout 10000 --sandbox off
echo "| certify reference, --sandbox off | $zygote | | $base | $(ratio "$zygote" "$base") of the baseline (goal <= 1.10x) |"
measure f16 "$both reload" sweep --plugin "$REF" --dtype f16
echo "| sweep f16, reference, every pair | $zygote | $reload | $base | $(ratio "$zygote" "$reload") of reloading, $(ratio "$zygote" "$base") of the baseline (goal <= 1.10x) |"
measure load "$both" plugins "$REF"
echo "| one worker's start and load (plugins reference.so) | $zygote | | $base | $(ratio "$zygote" "$base") of the baseline |"
if [ "${SKIP_LIBTORCH:-0}" != 1 ] && [ -e "$TORCH" ]; then
    measure torchload "$both" plugins "$TORCH"
    echo "| one worker's start and load (plugins libtorch.so) | $zygote | | $base | $(ratio "$zygote" "$base") of the baseline |"
fi
