#!/bin/sh
# SPDX-License-Identifier: MIT
# What the sandbox costs (docs/sandbox.md): each figure measured with this
# build's divergence and with a baseline's (another build of Divergence,
# e.g. the main branch's before the exec'd worker), back to back, the best
# of REPS rounds (the machine may be shared). Both load the same plugins
# (this build's). The figures:
#   certify the reference kernel, --sandbox auto (every layer)
#   certify the reference kernel, --sandbox off
#   load a plugin and describe it (`divergence plugins`): one worker start,
#     for the reference kernel and for libtorch (286 libraries in its view)
# The certificates of both builds must agree; a difference is printed.
#
# Usage: bench/bench_sandbox.sh BASELINE_DIVERGENCE [BUILD_DIR]
#   REPS=N           rounds per figure (default 3)
#   SKIP_LIBTORCH=1  leave libtorch out
# Prints one line per run on stderr and a Markdown table (figure, this
# build, the baseline, ratio) on stdout.
set -u
BASE=${1:?usage: bench_sandbox.sh BASELINE_DIVERGENCE [BUILD_DIR]}
B=${2:-build}
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
D=$B/divergence
REF=$B/plugins/reference.so
TORCH=$B/plugins/libtorch.so
REPS=${REPS:-3}
for f in "$D" "$REF" "$BASE"; do
    [ -e "$f" ] || { echo "bench_sandbox: no $f" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
say() { echo "bench_sandbox: $*" >&2; }
faster() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }
verdicts() {
    grep -E 'CONFORMANT|CRASHED|HUNG|claims hold' "$1" | sed -e 's/[0-9.]* s\b//g' -e 's/run [0-9]* in [^ ]*//'
}

# pair NAME ARGS...: runs `DIVERGENCE ARGS` with this build and the
# baseline, REPS times each, alternating; the best times in $mine, $base.
pair() {
    name=$1
    shift
    mine=999999 base=999999
    for rep in $(seq "$REPS"); do
        for who in mine base; do
            bin=$D
            [ $who = base ] && bin=$BASE
            db=$tmp/$name-$who.db
            rm -f "$db" "$db-wal" "$db-shm"
            /usr/bin/time -f '%e' -o "$tmp/time" "$bin" "$@" --db "$db" \
                >"$tmp/$name-$who.out" 2>"$tmp/$name-$who.err"
            sec=$(tail -1 "$tmp/time")
            say "$name, $who, round $rep: $sec s"
            if [ $who = mine ]; then
                faster "$sec" "$mine" && mine=$sec
            else
                faster "$sec" "$base" && base=$sec
            fi
        done
        verdicts "$tmp/$name-mine.out" >"$tmp/v1"
        verdicts "$tmp/$name-base.out" >"$tmp/v2"
        if ! cmp -s "$tmp/v1" "$tmp/v2"; then
            say "$name: the certificates differ between the builds:"
            diff "$tmp/v1" "$tmp/v2" >&2
        fi
    done
}

# load NAME PLUGIN: `divergence plugins PLUGIN`, 5 loads per round.
load() {
    name=$1 plugin=$2
    mine=999999 base=999999
    for rep in $(seq "$REPS"); do
        for who in mine base; do
            bin=$D
            [ $who = base ] && bin=$BASE
            /usr/bin/time -f '%e' -o "$tmp/time" sh -c \
                'for i in 1 2 3 4 5; do "$0" plugins "$1" >/dev/null 2>&1 || exit 1; done' "$bin" "$plugin"
            sec=$(awk '{ printf "%.3f", $1 / 5 }' "$tmp/time")
            say "$name, $who, round $rep: $sec s per load"
            if [ $who = mine ]; then
                faster "$sec" "$mine" && mine=$sec
            else
                faster "$sec" "$base" && base=$sec
            fi
        done
    done
}

echo "| figure (wall s, best of $REPS) | this build | baseline | ratio / goal |"
echo "| --- | --- | --- | --- |"
pair auto certify --plugin "$REF" --timeout 10000 --no-progress
echo "| certify reference, --sandbox auto | $mine | $base | $(ratio "$mine" "$base") of the time (goal <= 1.10x) |"
pair off certify --plugin "$REF" --timeout 10000 --no-progress --sandbox off
echo "| certify reference, --sandbox off | $mine | $base | $(ratio "$mine" "$base") of the time (goal <= 1.10x) |"
load refload "$REF"
echo "| one worker start and load: plugins reference.so | $mine | $base | $(ratio "$mine" "$base") |"
if [ "${SKIP_LIBTORCH:-0}" != 1 ] && [ -e "$TORCH" ]; then
    load torchload "$TORCH"
    echo "| one worker start and load: plugins libtorch.so | $mine | $base | $(ratio "$mine" "$base") |"
fi
